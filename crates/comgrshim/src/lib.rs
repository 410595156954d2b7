//! `libhsaemu_comgr.so`: `hsaemu exec` links it into its library directory as
//! `libamd_comgr.so.2`, so HIP's `dlopen("libamd_comgr.so.2")` (ROCclr's compiler, which
//! builds its blit kernels from OpenCL C in every process) loads it instead of ROCm's. It
//! exports every function of comgr 2.4 (`/usr/include/amd_comgr.h`) and forwards each to the
//! real library, found by absolute path ([`real`]), except `amd_comgr_do_action`, whose
//! results it keeps in a file cache ([`cache`]) so that the second and later processes skip
//! the compile. Anything unexpected falls through to the real `amd_comgr_do_action`.
//!
//! The interposer is a library of the same name rather than an `LD_PRELOAD`: HIP looks the
//! functions up with `dlsym` on its `dlopen` handle, which never sees preloaded definitions.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

mod cache;
mod record;

#[doc(hidden)]
pub use cache::internals;

/// `amd_comgr_status_t`.
pub type Status = c_int;
pub const STATUS_SUCCESS: Status = 0;
pub const STATUS_ERROR: Status = 1;

/// Every comgr handle type (`amd_comgr_data_t`, `..._data_set_t`, `..._action_info_t`,
/// `..._metadata_node_t`, `..._symbol_t`, `..._disassembly_info_t`,
/// `..._symbolizer_info_t`): a struct of one `uint64_t`, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    pub handle: u64,
}

/// The C enums (`amd_comgr_data_kind_t`, `..._language_t`, `..._action_kind_t`,
/// `..._metadata_kind_t`, `..._symbol_info_t`).
pub type Enum = c_int;

/// `amd_comgr_code_object_info_t` (only passed by pointer here).
#[repr(C)]
pub struct CodeObjectInfo {
    pub isa: *const c_char,
    pub size: u64,
    pub offset: u64,
}

/// Where ROCm's comgr may be: the library path's directories (ours skipped), then the
/// system's library directories and ROCm's.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib64",
    "/lib",
    "/opt/rocm/lib",
    "/opt/rocm/lib64",
];
const SONAME: &str = "libamd_comgr.so.2";

/// This library's own file (resolved), to skip it when looking for the real one.
pub(crate) fn own_path() -> Option<std::path::PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: `own_path` is a function of this library; dladdr fills `info` and returns 0
    // on failure, which is checked before `info` is read.
    let found = unsafe { libc::dladdr(own_path as *const c_void, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: dladdr succeeded, so `info` is initialised.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the dynamic loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    use std::os::unix::ffi::OsStrExt;
    std::path::Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()))
        .canonicalize()
        .ok()
}

/// The real comgr's path: the first `libamd_comgr.so.2` on the library path or in
/// [`SYSTEM_DIRS`] that is not this library nor another build of it.
pub fn real_path() -> Option<std::path::PathBuf> {
    let own = own_path();
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(SYSTEM_DIRS.iter().map(std::path::PathBuf::from));
    dirs.into_iter()
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(SONAME))
        .find(|p| {
            p.canonicalize().is_ok_and(|c| {
                Some(&c) != own.as_ref()
                    && c.is_file()
                    && c.file_name().is_some_and(|n| n != "libhsaemu_comgr.so")
            })
        })
}

/// The real comgr's `dlopen` handle (0: not found or not loadable), opened once.
fn real() -> usize {
    static HANDLE: OnceLock<usize> = OnceLock::new();
    *HANDLE.get_or_init(|| {
        let Some(path) = real_path() else {
            return 0;
        };
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return 0;
        };
        // SAFETY: `path` is NUL-terminated; RTLD_LOCAL keeps the real library's symbols
        // out of the global scope (they have our names).
        unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) as usize }
    })
}

/// The real comgr's function `name` (NUL-terminated), looked up once into `cell`; 0 if absent.
fn real_symbol(cell: &OnceLock<usize>, name: &str) -> usize {
    *cell.get_or_init(|| {
        let handle = real();
        let Ok(name) = CStr::from_bytes_with_nul(name.as_bytes()) else {
            return 0;
        };
        if handle == 0 {
            return 0;
        }
        // SAFETY: `handle` is a live dlopen handle (never closed); `name` is NUL-terminated.
        unsafe { libc::dlsym(handle as *mut c_void, name.as_ptr()) as usize }
    })
}

/// Defines exported functions that call the real comgr's function of the same name with the
/// same arguments (STATUS_ERROR when there is none).
/// `=> after` calls `after(args)` when comgr succeeded (to record action info settings).
macro_rules! forward {
    ($(fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(=> $after:path)?;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`, forwarded to the real comgr.")]
        ///
        /// # Safety
        /// As comgr's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> Status {
            static REAL: OnceLock<usize> = OnceLock::new();
            let f = real_symbol(&REAL, concat!(stringify!($name), "\0"));
            if f == 0 {
                return STATUS_ERROR;
            }
            type F = unsafe extern "C" fn($($ty),*) -> Status;
            // SAFETY: `f` is the real comgr's function of this name, whose C signature (in
            // amd_comgr.h) `F` is; the caller's arguments are passed on unchanged.
            let status = unsafe { std::mem::transmute::<usize, F>(f)($($arg),*) };
            forward!(@after [$($after)?] ($($arg),*) status);
            status
        }
    )*};
    (@after [] $args:tt $status:ident) => {};
    (@after [$after:path] ($($arg:ident),*) $status:ident) => {
        if $status == STATUS_SUCCESS {
            #[allow(unused_unsafe)]
            // SAFETY: comgr accepted the arguments, so they are what the recording function
            // (whose parameters are the same) requires.
            unsafe {
                $after($($arg),*)
            };
        }
    };
}

type Callback = *const c_void;

forward! {
    fn amd_comgr_status_string(status: Status, string: *mut *const c_char);
    fn amd_comgr_get_isa_count(count: *mut usize);
    fn amd_comgr_get_isa_name(index: usize, isa_name: *mut *const c_char);
    fn amd_comgr_get_isa_metadata(isa_name: *const c_char, metadata: *mut Handle);
    fn amd_comgr_create_data(kind: Enum, data: *mut Handle);
    fn amd_comgr_release_data(data: Handle);
    fn amd_comgr_get_data_kind(data: Handle, kind: *mut Enum);
    fn amd_comgr_set_data(data: Handle, size: usize, bytes: *const c_char);
    fn amd_comgr_set_data_from_file_slice(data: Handle, fd: c_int, offset: u64, size: u64);
    fn amd_comgr_set_data_name(data: Handle, name: *const c_char);
    fn amd_comgr_get_data(data: Handle, size: *mut usize, bytes: *mut c_char);
    fn amd_comgr_get_data_name(data: Handle, size: *mut usize, name: *mut c_char);
    fn amd_comgr_get_data_isa_name(data: Handle, size: *mut usize, isa_name: *mut c_char);
    fn amd_comgr_create_symbolizer_info(
        code_object: Handle,
        print_symbol_callback: Callback,
        symbolizer_info: *mut Handle,
    );
    fn amd_comgr_destroy_symbolizer_info(symbolizer_info: Handle);
    fn amd_comgr_symbolize(
        symbolizer_info: Handle,
        address: u64,
        is_code: bool,
        user_data: *mut c_void,
    );
    fn amd_comgr_get_data_metadata(data: Handle, metadata: *mut Handle);
    fn amd_comgr_destroy_metadata(metadata: Handle);
    fn amd_comgr_create_data_set(data_set: *mut Handle);
    fn amd_comgr_destroy_data_set(data_set: Handle);
    fn amd_comgr_data_set_add(data_set: Handle, data: Handle);
    fn amd_comgr_data_set_remove(data_set: Handle, data_kind: Enum);
    fn amd_comgr_action_data_count(data_set: Handle, data_kind: Enum, count: *mut usize);
    fn amd_comgr_action_data_get_data(
        data_set: Handle,
        data_kind: Enum,
        index: usize,
        data: *mut Handle,
    );
    fn amd_comgr_create_action_info(action_info: *mut Handle) => record::create;
    fn amd_comgr_destroy_action_info(action_info: Handle) => record::destroy;
    fn amd_comgr_action_info_set_isa_name(action_info: Handle, isa_name: *const c_char)
        => record::isa_name;
    fn amd_comgr_action_info_get_isa_name(
        action_info: Handle,
        size: *mut usize,
        isa_name: *mut c_char,
    );
    fn amd_comgr_action_info_set_language(action_info: Handle, language: Enum)
        => record::language;
    fn amd_comgr_action_info_get_language(action_info: Handle, language: *mut Enum);
    fn amd_comgr_action_info_set_options(action_info: Handle, options: *const c_char)
        => record::options;
    fn amd_comgr_action_info_get_options(
        action_info: Handle,
        size: *mut usize,
        options: *mut c_char,
    );
    fn amd_comgr_action_info_set_option_list(
        action_info: Handle,
        options: *const *const c_char,
        count: usize,
    ) => record::option_list;
    fn amd_comgr_action_info_get_option_list_count(action_info: Handle, count: *mut usize);
    fn amd_comgr_action_info_get_option_list_item(
        action_info: Handle,
        index: usize,
        size: *mut usize,
        option: *mut c_char,
    );
    fn amd_comgr_action_info_set_working_directory_path(
        action_info: Handle,
        path: *const c_char,
    ) => record::working_directory;
    fn amd_comgr_action_info_get_working_directory_path(
        action_info: Handle,
        size: *mut usize,
        path: *mut c_char,
    );
    fn amd_comgr_action_info_set_logging(action_info: Handle, logging: bool) => record::logging;
    fn amd_comgr_action_info_get_logging(action_info: Handle, logging: *mut bool);
    fn amd_comgr_get_metadata_kind(metadata: Handle, kind: *mut Enum);
    fn amd_comgr_get_metadata_string(metadata: Handle, size: *mut usize, string: *mut c_char);
    fn amd_comgr_get_metadata_map_size(metadata: Handle, size: *mut usize);
    fn amd_comgr_iterate_map_metadata(
        metadata: Handle,
        callback: Callback,
        user_data: *mut c_void,
    );
    fn amd_comgr_metadata_lookup(metadata: Handle, key: *const c_char, value: *mut Handle);
    fn amd_comgr_get_metadata_list_size(metadata: Handle, size: *mut usize);
    fn amd_comgr_index_list_metadata(metadata: Handle, index: usize, value: *mut Handle);
    fn amd_comgr_iterate_symbols(data: Handle, callback: Callback, user_data: *mut c_void);
    fn amd_comgr_symbol_lookup(data: Handle, name: *const c_char, symbol: *mut Handle);
    fn amd_comgr_symbol_get_info(symbol: Handle, attribute: Enum, value: *mut c_void);
    fn amd_comgr_create_disassembly_info(
        isa_name: *const c_char,
        read_memory_callback: Callback,
        print_instruction_callback: Callback,
        print_address_annotation_callback: Callback,
        disassembly_info: *mut Handle,
    );
    fn amd_comgr_destroy_disassembly_info(disassembly_info: Handle);
    fn amd_comgr_disassemble_instruction(
        disassembly_info: Handle,
        address: u64,
        user_data: *mut c_void,
        size: *mut u64,
    );
    fn amd_comgr_demangle_symbol_name(mangled: Handle, demangled: *mut Handle);
    fn amd_comgr_lookup_code_object(
        data: Handle,
        info_list: *mut CodeObjectInfo,
        info_list_size: usize,
    );
}

/// `amd_comgr_get_version` (returns nothing: without the real library it leaves 0.0).
///
/// # Safety
/// As comgr's: `major` and `minor` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amd_comgr_get_version(major: *mut usize, minor: *mut usize) {
    static REAL: OnceLock<usize> = OnceLock::new();
    let f = real_symbol(&REAL, "amd_comgr_get_version\0");
    if f == 0 {
        if !major.is_null() && !minor.is_null() {
            // SAFETY: the caller's pointers, checked non-null.
            unsafe {
                *major = 0;
                *minor = 0;
            }
        }
        return;
    }
    type F = unsafe extern "C" fn(*mut usize, *mut usize);
    // SAFETY: `f` is the real comgr's `amd_comgr_get_version`, of signature `F`.
    unsafe { std::mem::transmute::<usize, F>(f)(major, minor) }
}

/// The real `amd_comgr_do_action`.
fn real_do_action(kind: Enum, info: Handle, input: Handle, result: Handle) -> Status {
    static REAL: OnceLock<usize> = OnceLock::new();
    let f = real_symbol(&REAL, "amd_comgr_do_action\0");
    if f == 0 {
        return STATUS_ERROR;
    }
    type F = unsafe extern "C" fn(Enum, Handle, Handle, Handle) -> Status;
    // SAFETY: `f` is the real comgr's `amd_comgr_do_action`, of signature `F`; the handles
    // are the caller's, passed on unchanged (comgr validates them).
    unsafe { std::mem::transmute::<usize, F>(f)(kind, info, input, result) }
}

/// `amd_comgr_do_action`: the cached result when there is one, else the real action (whose
/// result is then stored).
///
/// # Safety
/// As comgr's (the handles are validated by comgr itself).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amd_comgr_do_action(
    kind: Enum,
    info: Handle,
    input: Handle,
    result: Handle,
) -> Status {
    cache::do_action(kind, info, input, result, real_do_action)
}
