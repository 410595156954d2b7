//! Initialisation, status strings, system information and extension queries.

use std::ffi::{c_char, c_void};

use hsaemu_runtime::error::status_string;

use crate::util::{non_null, put, runtime, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// `hsa_init`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_init() -> u32 {
    let _trace = crate::trace_args::untraced_call("hsa_init");
    if let Some(t) = hsaemu_runtime::trace::timeline() {
        t.api_call("hsa_init", None);
    }
    crate::util::status(hsaemu_runtime::runtime::acquire())
}

/// `hsa_shut_down`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_shut_down() -> u32 {
    let _trace = crate::trace_args::untraced_call("hsa_shut_down");
    if let Some(t) = hsaemu_runtime::trace::timeline() {
        t.api_call("hsa_shut_down", None);
    }
    crate::util::status(hsaemu_runtime::shut_down())
}

/// `hsa_status_string`: works before `hsa_init`, as ROCm's does.
///
/// # Safety
/// `status_string` must be null or valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_status_string(status: u32, out: *mut *const c_char) -> u32 {
    non_null!(out);
    match status_string(status) {
        Some(s) => {
            // SAFETY: `out` is non-null and writable per the API contract.
            unsafe { *out = s.as_ptr() };
            HSA_STATUS_SUCCESS
        }
        None => INVALID_ARGUMENT,
    }
}

const SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
const SYSTEM_INFO_VERSION_MINOR: u32 = 1;
const SYSTEM_INFO_TIMESTAMP: u32 = 2;
const SYSTEM_INFO_TIMESTAMP_FREQUENCY: u32 = 3;
const SYSTEM_INFO_SIGNAL_MAX_WAIT: u32 = 4;
const SYSTEM_INFO_ENDIANNESS: u32 = 5;
const SYSTEM_INFO_MACHINE_MODEL: u32 = 6;
const SYSTEM_INFO_EXTENSIONS: u32 = 7;
const AMD_SYSTEM_INFO_BUILD_VERSION: u32 = 0x200;
const AMD_SYSTEM_INFO_SVM_SUPPORTED: u32 = 0x201;
const AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: u32 = 0x202;

/// `HSA_EXTENSION_AMD_LOADER`.
pub const EXTENSION_AMD_LOADER: u16 = 0x201;
/// `HSA_EXTENSION_IMAGES`.
pub const EXTENSION_IMAGES: u16 = 1;

/// `hsa_system_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_system_get_info(attribute: u32, value: *mut c_void) -> u32 {
    let rt = runtime!(attribute, value);
    non_null!(value);
    // SAFETY (all `put` calls): `value` is non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            SYSTEM_INFO_VERSION_MAJOR => put(value, 1u16),
            SYSTEM_INFO_VERSION_MINOR => put(value, 1u16),
            SYSTEM_INFO_TIMESTAMP => put(value, rt.timestamp()),
            SYSTEM_INFO_TIMESTAMP_FREQUENCY => put(value, rt.timestamp_frequency()),
            SYSTEM_INFO_SIGNAL_MAX_WAIT => put(value, u64::MAX),
            SYSTEM_INFO_ENDIANNESS => put(value, 0u32), // HSA_ENDIANNESS_LITTLE
            SYSTEM_INFO_MACHINE_MODEL => put(value, 1u32), // HSA_MACHINE_MODEL_LARGE
            SYSTEM_INFO_EXTENSIONS => {
                // One bit per extension ID below 1024: HSA_EXTENSION_IMAGES and
                // HSA_EXTENSION_AMD_LOADER.
                let mut mask = [0u8; 128];
                for e in [EXTENSION_IMAGES, EXTENSION_AMD_LOADER] {
                    mask[usize::from(e / 8)] |= 1 << (e % 8);
                }
                put(value, mask);
            }
            AMD_SYSTEM_INFO_BUILD_VERSION => put(value, c"hsaemu 0.1.0".as_ptr()),
            // XNACK on (HSA_XNACK=1): kernels reach system-allocated memory, as ROCr reports
            // on MI200 with HMM. Off: both false (docs/status-runtime.md says why SVM_SUPPORTED
            // is false then, where ROCr says true).
            AMD_SYSTEM_INFO_SVM_SUPPORTED | AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT => {
                put(value, rt.memory().device_map().emu_map().system_memory())
            }
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

fn extension_name(ext: u16) -> Option<&'static std::ffi::CStr> {
    Some(match ext {
        0 => c"HSA_EXTENSION_FINALIZER",
        1 => c"HSA_EXTENSION_IMAGES",
        2 => c"HSA_EXTENSION_PERFORMANCE_COUNTERS",
        3 => c"HSA_EXTENSION_PROFILING_EVENTS",
        0x200 => c"HSA_EXTENSION_AMD_PROFILER",
        0x201 => c"HSA_EXTENSION_AMD_LOADER",
        0x202 => c"HSA_EXTENSION_AMD_AQLPROFILE",
        _ => return None,
    })
}

/// `hsa_extension_get_name`.
///
/// # Safety
/// `name` must be valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_extension_get_name(
    extension: u16,
    name: *mut *const c_char,
) -> u32 {
    let _rt = runtime!(extension, name);
    non_null!(name);
    match extension_name(extension) {
        Some(s) => {
            // SAFETY: non-null and writable by contract.
            unsafe { *name = s.as_ptr() };
            HSA_STATUS_SUCCESS
        }
        None => INVALID_ARGUMENT,
    }
}

/// Whether hsaemu supports `extension` at `major`: the images and AMD loader extensions, v1.
fn supported(extension: u16, major: u16) -> Option<bool> {
    extension_name(extension)
        .map(|_| matches!(extension, EXTENSION_AMD_LOADER | EXTENSION_IMAGES) && major == 1)
}

/// Copies the first `len` bytes of the images extension's table into `table`.
///
/// # Safety
/// `table` must be writable for `len` bytes.
unsafe fn copy_image_table(len: usize, table: *mut c_void) {
    let t = crate::image::image_table();
    let n = len.min(std::mem::size_of_val(&t));
    // SAFETY: `table` has `len` >= `n` writable bytes by contract.
    unsafe { std::ptr::copy_nonoverlapping(t.as_ptr() as *const u8, table as *mut u8, n) };
}

/// Copies the first `len` bytes of the loader table into `table`.
///
/// # Safety
/// `table` must be writable for `len` bytes.
unsafe fn copy_loader_table(len: usize, table: *mut c_void) {
    let t = crate::executable::loader_table();
    let n = len.min(std::mem::size_of_val(&t));
    // SAFETY: `table` has `len` >= `n` writable bytes by contract.
    unsafe { std::ptr::copy_nonoverlapping(t.as_ptr() as *const u8, table as *mut u8, n) };
}

/// `hsa_system_get_extension_table`: the loader table for minor versions 0..=3.
///
/// # Safety
/// `table` must be large enough for the requested version's table.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_system_get_extension_table(
    extension: u16,
    major: u16,
    minor: u16,
    table: *mut c_void,
) -> u32 {
    let _rt = runtime!(extension, major, minor, table);
    non_null!(table);
    if extension == EXTENSION_IMAGES && major == 1 && minor == 0 {
        // SAFETY: an `hsa_ext_images_1_00_pfn_t` has 10 pointers, by contract.
        unsafe { copy_image_table(10 * std::mem::size_of::<usize>(), table) };
        return HSA_STATUS_SUCCESS;
    }
    if extension != EXTENSION_AMD_LOADER || major != 1 || minor > 3 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    let entries = [3usize, 5, 6, 7][usize::from(minor)];
    // SAFETY: the table of version 1.`minor` has `entries` pointers, by contract.
    unsafe { copy_loader_table(entries * std::mem::size_of::<usize>(), table) };
    HSA_STATUS_SUCCESS
}

/// `hsa_system_get_major_extension_table`: fills `table_length` bytes of the loader table.
///
/// # Safety
/// `table` must be writable for `table_length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_system_get_major_extension_table(
    extension: u16,
    major: u16,
    table_length: usize,
    table: *mut c_void,
) -> u32 {
    let _rt = runtime!(extension, major, table_length, table);
    non_null!(table);
    if extension == EXTENSION_IMAGES && major == 1 && table_length != 0 {
        // SAFETY: `table` is writable for `table_length` bytes by contract.
        unsafe { copy_image_table(table_length, table) };
        return HSA_STATUS_SUCCESS;
    }
    if extension != EXTENSION_AMD_LOADER || major != 1 || table_length == 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: `table` is writable for `table_length` bytes by contract.
    unsafe { copy_loader_table(table_length, table) };
    HSA_STATUS_SUCCESS
}

/// `hsa_system_extension_supported`.
///
/// # Safety
/// `result` must be valid for writing a bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_system_extension_supported(
    extension: u16,
    major: u16,
    _minor: u16,
    result: *mut bool,
) -> u32 {
    let _rt = runtime!(extension, major, _minor, result);
    non_null!(result);
    match supported(extension, major) {
        // SAFETY: non-null and writable by contract.
        Some(s) => unsafe { *result = s },
        None => return INVALID_ARGUMENT,
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_system_major_extension_supported`.
///
/// # Safety
/// `version_minor` and `result` must be valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_system_major_extension_supported(
    extension: u16,
    major: u16,
    version_minor: *mut u16,
    result: *mut bool,
) -> u32 {
    let _rt = runtime!(extension, major, version_minor, result);
    non_null!(version_minor, result);
    match supported(extension, major) {
        // SAFETY: non-null and writable by contract.
        Some(s) => unsafe {
            *result = s;
            *version_minor = 0;
        },
        None => return INVALID_ARGUMENT,
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_agent_extension_supported` (no per-agent extensions either).
///
/// # Safety
/// `result` must be valid for writing a bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_extension_supported(
    extension: u16,
    agent: u64,
    major: u16,
    _minor: u16,
    result: *mut bool,
) -> u32 {
    let rt = runtime!(extension, agent, major, _minor, result);
    non_null!(result);
    crate::util::tri!(rt.agent(agent));
    match supported(extension, major) {
        // SAFETY: non-null and writable by contract.
        Some(s) => unsafe { *result = s },
        None => return INVALID_ARGUMENT,
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_agent_major_extension_supported`.
///
/// # Safety
/// `version_minor` and `result` must be valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_major_extension_supported(
    extension: u16,
    agent: u64,
    major: u16,
    version_minor: *mut u16,
    result: *mut bool,
) -> u32 {
    let rt = runtime!(extension, agent, major, version_minor, result);
    non_null!(version_minor, result);
    crate::util::tri!(rt.agent(agent));
    match supported(extension, major) {
        // SAFETY: non-null and writable by contract.
        Some(s) => unsafe {
            *result = s;
            *version_minor = 0;
        },
        None => return INVALID_ARGUMENT,
    }
    HSA_STATUS_SUCCESS
}
