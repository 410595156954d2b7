//! Code object readers, executables, executable symbols, and the AMD loader extension table
//! (`hsa_ven_amd_loader_1_00` … `1_03`), which applications reach through
//! `hsa_system_get_(major_)extension_table`.

use std::ffi::{c_char, c_void, CStr};

use hsaemu_runtime::code_object_v1 as v1;
use hsaemu_runtime::executable::symbol_handle;
use hsaemu_runtime::{CodeObjectReader, HsaError, Runtime, SymbolType};

use crate::util::{
    iterate, non_null, put, put_fixed_str, runtime, status, tri, HSA_STATUS_SUCCESS,
    INVALID_ARGUMENT,
};

/// `hsa_code_object_reader_create_from_memory` (the bytes are copied).
///
/// # Safety
/// `code_object` must be readable for `size` bytes; `reader` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_reader_create_from_memory(
    code_object: *const c_void,
    size: usize,
    reader: *mut u64,
) -> u32 {
    let rt = runtime!(code_object, size, reader);
    non_null!(code_object, reader);
    if size == 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: readable for `size` bytes by contract.
    let bytes = unsafe { std::slice::from_raw_parts(code_object as *const u8, size) };
    let r = tri!(CodeObjectReader::from_bytes(bytes));
    // SAFETY: non-null, writable by contract.
    unsafe { *reader = rt.add_reader(r) };
    HSA_STATUS_SUCCESS
}

/// `hsa_code_object_reader_create_from_file`: reads the whole file from its start.
///
/// # Safety
/// `reader` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_reader_create_from_file(
    file: i32,
    reader: *mut u64,
) -> u32 {
    let rt = runtime!(file, reader);
    non_null!(reader);
    let r = tri!(CodeObjectReader::from_fd(file, 0, None));
    // SAFETY: non-null, writable by contract.
    unsafe { *reader = rt.add_reader(r) };
    HSA_STATUS_SUCCESS
}

/// `hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size`.
///
/// # Safety
/// `reader` must be writable.
pub unsafe extern "C" fn loader_reader_from_file_with_offset_size(
    file: i32,
    offset: usize,
    size: usize,
    reader: *mut u64,
) -> u32 {
    let rt = runtime!(file, offset, size, reader);
    non_null!(reader);
    let r = tri!(CodeObjectReader::from_fd(
        file,
        offset as u64,
        Some(size as u64)
    ));
    // SAFETY: non-null, writable by contract.
    unsafe { *reader = rt.add_reader(r) };
    HSA_STATUS_SUCCESS
}

/// `hsa_code_object_reader_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_code_object_reader_destroy(reader: u64) -> u32 {
    let rt = runtime!(reader);
    status(rt.destroy_reader(reader))
}

/// Creates an executable for `hsa_executable_create` and `hsa_executable_create_alt`.
///
/// # Safety
/// `executable`, when not null, is writable (null is rejected with the spec's status).
unsafe fn create(profile: u32, executable: *mut u64) -> u32 {
    let rt = runtime!(profile, executable);
    non_null!(executable);
    if profile > 1 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: non-null, writable by contract.
    unsafe { *executable = rt.create_executable().handle() };
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_create` (deprecated).
///
/// # Safety
/// `executable` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_create(
    profile: u32,
    state: u32,
    _options: *const c_char,
    executable: *mut u64,
) -> u32 {
    if state > 1 {
        let _rt = runtime!(profile, state, _options, executable);
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: forwarded contract.
    unsafe { create(profile, executable) }
}

/// `hsa_executable_create_alt`.
///
/// # Safety
/// `executable` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_create_alt(
    profile: u32,
    _rounding: u32,
    _options: *const c_char,
    executable: *mut u64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { create(profile, executable) }
}

/// `hsa_executable_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_executable_destroy(executable: u64) -> u32 {
    let rt = runtime!(executable);
    status(rt.destroy_executable(executable))
}

/// `hsa_executable_load_agent_code_object`.
///
/// # Safety
/// `loaded_code_object` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_load_agent_code_object(
    executable: u64,
    agent: u64,
    reader: u64,
    _options: *const c_char,
    loaded_code_object: *mut u64,
) -> u32 {
    let rt = runtime!(executable, agent, reader, _options, loaded_code_object);
    let e = tri!(rt.executable(executable));
    let a = tri!(rt.agent(agent)).clone();
    let r = tri!(rt.reader(reader));
    tri!(e.load(rt.memory(), &a, &r));
    if !loaded_code_object.is_null() {
        let base = e.loaded_objects().last().map_or(0, |o| o.1);
        // SAFETY: non-null, writable by contract.
        unsafe { *loaded_code_object = base };
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_load_program_code_object`: program code objects hold no agent code in
/// AMD's ABI; loading one onto every GPU agent is the closest equivalent.
///
/// # Safety
/// `loaded_code_object` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_load_program_code_object(
    executable: u64,
    reader: u64,
    _options: *const c_char,
    loaded_code_object: *mut u64,
) -> u32 {
    let rt = runtime!(executable, reader, _options, loaded_code_object);
    let e = tri!(rt.executable(executable));
    let r = tri!(rt.reader(reader));
    for a in rt.gpu_agents() {
        tri!(e.load(rt.memory(), a, &r));
    }
    if !loaded_code_object.is_null() {
        let base = e.loaded_objects().last().map_or(0, |o| o.1);
        // SAFETY: non-null, writable by contract.
        unsafe { *loaded_code_object = base };
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_freeze`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_executable_freeze(executable: u64, _options: *const c_char) -> u32 {
    let rt = runtime!(executable, _options);
    let e = tri!(rt.executable(executable));
    status(e.freeze())
}

/// `hsa_executable_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_get_info(
    executable: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(executable, attribute, value);
    let e = tri!(rt.executable(executable));
    non_null!(value);
    // SAFETY: non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            1 => put(value, 0u32),
            2 => put(value, u32::from(e.is_frozen())),
            3 => put(value, 2u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_validate`: every loaded executable is valid (0).
///
/// # Safety
/// `result` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_validate(executable: u64, result: *mut u32) -> u32 {
    let rt = runtime!(executable, result);
    tri!(rt.executable(executable));
    non_null!(result);
    // SAFETY: non-null, writable by contract.
    unsafe { *result = 0 };
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_validate_alt`.
///
/// # Safety
/// `result` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_validate_alt(
    executable: u64,
    _options: *const c_char,
    result: *mut u32,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { hsaemu_hsa_executable_validate(executable, result) }
}

unsafe fn define(executable: u64, agent: u64, name: *const c_char, address: *mut c_void) -> u32 {
    let rt = runtime!(executable, agent, name, address);
    let e = tri!(rt.executable(executable));
    if agent != 0 {
        tri!(rt.agent(agent));
    }
    non_null!(name);
    // SAFETY: NUL-terminated by contract.
    let Ok(name) = unsafe { CStr::from_ptr(name) }.to_str() else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    status(e.define_variable(agent, name, address as u64))
}

/// `hsa_executable_global_variable_define`.
///
/// # Safety
/// `name` must be NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_global_variable_define(
    executable: u64,
    name: *const c_char,
    address: *mut c_void,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { define(executable, 0, name, address) }
}

/// `hsa_executable_agent_global_variable_define`.
///
/// # Safety
/// `name` must be NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_agent_global_variable_define(
    executable: u64,
    agent: u64,
    name: *const c_char,
    address: *mut c_void,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { define(executable, agent, name, address) }
}

/// `hsa_executable_readonly_variable_define`.
///
/// # Safety
/// `name` must be NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_readonly_variable_define(
    executable: u64,
    agent: u64,
    name: *const c_char,
    address: *mut c_void,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { define(executable, agent, name, address) }
}

/// `hsa_executable_get_symbol_by_name` (`agent` may be null for any agent).
///
/// # Safety
/// `name` NUL-terminated, `agent` null or readable, `symbol` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_get_symbol_by_name(
    executable: u64,
    name: *const c_char,
    agent: *const u64,
    symbol: *mut u64,
) -> u32 {
    let rt = runtime!(executable, name, agent, symbol);
    let e = tri!(rt.executable(executable));
    non_null!(name, symbol);
    // SAFETY: NUL-terminated by contract.
    let Ok(name) = unsafe { CStr::from_ptr(name) }.to_str() else {
        return crate::util::trace_error!(HsaError::InvalidSymbolName.status());
    };
    // SAFETY: null or readable by contract.
    let agent = if agent.is_null() {
        None
    } else {
        Some(unsafe { *agent })
    };
    let s = tri!(e.symbol_by_name(name, agent));
    // SAFETY: non-null, writable by contract.
    unsafe { *symbol = symbol_handle(&s) };
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_get_symbol` (deprecated; module names are ignored).
///
/// # Safety
/// As `hsa_executable_get_symbol_by_name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_get_symbol(
    executable: u64,
    _module_name: *const c_char,
    name: *const c_char,
    agent: u64,
    _call_convention: i32,
    symbol: *mut u64,
) -> u32 {
    let a = agent;
    // SAFETY: forwarded contract; `a` lives for the call.
    unsafe {
        hsaemu_hsa_executable_get_symbol_by_name(
            executable,
            name,
            if agent == 0 { std::ptr::null() } else { &a },
            symbol,
        )
    }
}

/// `hsa_executable_symbol_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_symbol_get_info(
    symbol: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(symbol, attribute, value);
    let (_, s) = tri!(rt.symbol(symbol));
    non_null!(value);
    let kernel = s.kind == SymbolType::Kernel;
    // SAFETY: non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, if kernel { 1u32 } else { 0 }), // HSA_SYMBOL_KIND_KERNEL / _VARIABLE
            1 => put(value, s.name.len() as u32),
            2 => std::ptr::copy_nonoverlapping(s.name.as_ptr(), value as *mut u8, s.name.len()),
            3 => put(value, 0u32),
            4 => {}
            20 => put(value, s.agent),
            21 if !kernel => put(value, s.address),
            5 => put(value, 1u32), // HSA_SYMBOL_LINKAGE_PROGRAM
            17 => put(value, true),
            6 if !kernel => put(value, 0u32), // HSA_VARIABLE_ALLOCATION_AGENT
            7 if !kernel => put(value, 0u32), // HSA_VARIABLE_SEGMENT_GLOBAL
            8 if !kernel => put(value, 8u32),
            9 if !kernel => put(value, s.size as u32),
            10 if !kernel => put(value, false),
            22 if kernel => put(value, s.address),
            11 if kernel => put(value, s.kernarg_segment_size),
            12 if kernel => put(value, s.kernarg_segment_alignment),
            13 if kernel => put(value, s.group_segment_size),
            14 if kernel => put(value, s.private_segment_size),
            15 if kernel => put(value, s.dynamic_callstack),
            18 if kernel => put(value, 0u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// Callback over (executable, agent, symbol).
pub type AgentSymbolCallback = Option<unsafe extern "C" fn(u64, u64, u64, *mut c_void) -> u32>;
/// Callback over (executable, symbol).
pub type SymbolCallback = Option<unsafe extern "C" fn(u64, u64, *mut c_void) -> u32>;

/// `hsa_executable_iterate_agent_symbols`.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_iterate_agent_symbols(
    executable: u64,
    agent: u64,
    callback: AgentSymbolCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(executable, agent, callback, data);
    let e = tri!(rt.executable(executable));
    tri!(rt.agent(agent));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let syms = e.symbols().into_iter().filter(|s| s.agent == agent);
    // SAFETY: the application's callback.
    iterate(syms, |s| unsafe {
        cb(executable, agent, symbol_handle(&s), data)
    })
}

/// `hsa_executable_iterate_program_symbols`: every hsaemu symbol belongs to an agent.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_iterate_program_symbols(
    executable: u64,
    callback: SymbolCallback,
    _data: *mut c_void,
) -> u32 {
    let rt = runtime!(executable, callback, _data);
    tri!(rt.executable(executable));
    if callback.is_none() {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_iterate_symbols` (deprecated): every symbol.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_executable_iterate_symbols(
    executable: u64,
    callback: SymbolCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(executable, callback, data);
    let e = tri!(rt.executable(executable));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    iterate(e.symbols(), |s| unsafe {
        cb(executable, symbol_handle(&s), data)
    })
}

// ---- the AMD loader extension (function table only; not exported by name) ----

/// `hsa_ven_amd_loader_query_host_address`: device addresses are host addresses.
///
/// # Safety
/// `host_address` must be writable.
pub unsafe extern "C" fn loader_query_host_address(
    device_address: *const c_void,
    host_address: *mut *const c_void,
) -> u32 {
    let rt = runtime!(device_address, host_address);
    non_null!(device_address, host_address);
    let a = device_address as u64;
    if !rt.memory().device_map().contains(a, 1)
        && !rt.executables().iter().any(|e| e.contains_address(a))
    {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: non-null, writable by contract.
    unsafe { *host_address = device_address };
    HSA_STATUS_SUCCESS
}

/// `hsa_ven_amd_loader_segment_descriptor_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SegmentDescriptor {
    pub agent: u64,
    pub executable: u64,
    pub code_object_storage_type: u32,
    pub code_object_storage_base: *const c_void,
    pub code_object_storage_size: usize,
    pub code_object_storage_offset: usize,
    pub segment_base: *const c_void,
    pub segment_size: usize,
}

/// `hsa_ven_amd_loader_query_segment_descriptors`: one descriptor per loaded code object (the
/// emulator's loader places each image as one segment), with ROCr's protocol: a count of 0
/// asks for the number, any other count must be exact.
///
/// # Safety
/// `num` must be null or point to a count; `descriptors` must hold `*num` descriptors.
pub unsafe extern "C" fn loader_query_segment_descriptors(
    descriptors: *mut SegmentDescriptor,
    num: *mut usize,
) -> u32 {
    let rt = runtime!(descriptors, num);
    non_null!(num);
    // SAFETY: non-null, readable by contract.
    let n = unsafe { *num };
    if (n == 0) != descriptors.is_null() {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    let mut all = Vec::new();
    for e in rt.executables() {
        for (agent, base, size) in e.loaded_objects() {
            let code = e.code_object_at(base);
            let (code_base, code_len) = code.as_ref().map_or((std::ptr::null(), 0), |c| {
                (c.bytes().as_ptr() as *const c_void, c.bytes().len())
            });
            all.push(SegmentDescriptor {
                agent,
                executable: e.handle(),
                code_object_storage_type: 2, // HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY
                code_object_storage_base: code_base,
                code_object_storage_size: code_len,
                code_object_storage_offset: 0,
                segment_base: base as *const c_void,
                segment_size: size as usize,
            });
        }
    }
    if n == 0 {
        // SAFETY: non-null, writable by contract.
        unsafe { *num = all.len() };
        return HSA_STATUS_SUCCESS;
    }
    if n != all.len() {
        return crate::util::trace_error!(HsaError::IncompatibleArguments.status());
    }
    // SAFETY: `descriptors` holds `n` entries by contract.
    unsafe { std::ptr::copy_nonoverlapping(all.as_ptr(), descriptors, n) };
    HSA_STATUS_SUCCESS
}

/// `hsa_ven_amd_loader_query_executable`.
///
/// # Safety
/// `executable` must be writable.
pub unsafe extern "C" fn loader_query_executable(
    device_address: *const c_void,
    executable: *mut u64,
) -> u32 {
    let rt = runtime!(device_address, executable);
    non_null!(device_address, executable);
    match rt
        .executables()
        .into_iter()
        .find(|e| e.contains_address(device_address as u64))
    {
        Some(e) => {
            // SAFETY: non-null, writable by contract.
            unsafe { *executable = e.handle() };
            HSA_STATUS_SUCCESS
        }
        None => INVALID_ARGUMENT,
    }
}

/// `hsa_ven_amd_loader_executable_iterate_loaded_code_objects`; a loaded code object's
/// handle is its load base.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
pub unsafe extern "C" fn loader_iterate_loaded_code_objects(
    executable: u64,
    callback: Option<unsafe extern "C" fn(u64, u64, *mut c_void) -> u32>,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(executable, callback);
    let e = tri!(rt.executable(executable));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    iterate(e.loaded_objects(), |(_, base, _)| unsafe {
        cb(executable, base, data)
    })
}

/// `hsa_ven_amd_loader_loaded_code_object_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
pub unsafe extern "C" fn loader_loaded_code_object_get_info(
    loaded: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(loaded, attribute, value);
    non_null!(value);
    let Some((exec, (agent, base, size))) = rt.executables().into_iter().find_map(|e| {
        e.loaded_objects()
            .into_iter()
            .find(|o| o.1 == loaded)
            .map(|o| (e.handle(), o))
    }) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let Ok(e) = rt.executable(exec) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let code = e.code_object_at(base);
    let (code_addr, code_len) = code.as_ref().map_or((0, 0), |c| {
        (c.bytes().as_ptr() as u64, c.bytes().len() as u64)
    });
    // ROCm's URI form for code objects loaded from memory.
    let uri = format!(
        "memory://{}#offset=0x{code_addr:x}&size={code_len}",
        std::process::id()
    );
    // SAFETY: non-null and sized for the attribute by contract (the URI attribute's buffer
    // holds URI_LENGTH bytes).
    unsafe {
        match attribute {
            1 => put(value, exec),              // EXECUTABLE
            2 => put(value, 2u32),              // KIND: AGENT
            3 => put(value, agent),             // AGENT
            4 => put(value, 2u32),              // CODE_OBJECT_STORAGE_TYPE: MEMORY
            5 => put(value, code_addr),         // CODE_OBJECT_STORAGE_MEMORY_BASE
            6 => put(value, code_len),          // CODE_OBJECT_STORAGE_MEMORY_SIZE
            8 => put(value, base as i64),       // LOAD_DELTA (images are linked at 0)
            9 => put(value, base),              // LOAD_BASE
            10 => put(value, size),             // LOAD_SIZE
            11 => put(value, uri.len() as u32), // URI_LENGTH
            12 => std::ptr::copy_nonoverlapping(uri.as_ptr(), value as *mut u8, uri.len()), // URI
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_ven_amd_loader_iterate_executables`.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
pub unsafe extern "C" fn loader_iterate_executables(
    callback: Option<unsafe extern "C" fn(u64, *mut c_void) -> u32>,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(callback);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    iterate(rt.executables(), |e| unsafe { cb(e.handle(), data) })
}

/// The loader extension table at its largest version (1.03, seven entries). Earlier
/// versions are prefixes of it.
pub fn loader_table() -> [usize; 7] {
    [
        loader_query_host_address as *const () as usize,
        loader_query_segment_descriptors as *const () as usize,
        loader_query_executable as *const () as usize,
        loader_iterate_loaded_code_objects as *const () as usize,
        loader_loaded_code_object_get_info as *const () as usize,
        loader_reader_from_file_with_offset_size as *const () as usize,
        loader_iterate_executables as *const () as usize,
    ]
}

// ---- the deprecated code-object API (HSA 1.0) ----

/// `hsa_code_object_serialize`: hands the code object's bytes to the application's allocator.
///
/// # Safety
/// `alloc` must be null or a valid function pointer; the outputs must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_serialize(
    code_object: u64,
    alloc: Option<unsafe extern "C" fn(usize, u64, *mut *mut c_void) -> u32>,
    callback_data: u64,
    _options: *const c_char,
    serialized: *mut *mut c_void,
    size: *mut usize,
) -> u32 {
    let _rt = runtime!(code_object, alloc);
    let Some(alloc) = alloc else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    non_null!(serialized, size);
    let co = tri!(v1::get(code_object));
    let bytes = co.reader().bytes();
    // SAFETY: the application's allocator; it returns a buffer of `bytes.len()` bytes.
    unsafe {
        let s = alloc(bytes.len(), callback_data, serialized);
        if s != HSA_STATUS_SUCCESS {
            return s;
        }
        if (*serialized).is_null() {
            return crate::util::trace_error!(HsaError::OutOfResources.status());
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), *serialized as *mut u8, bytes.len());
        *size = bytes.len();
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_code_object_deserialize`: copies the bytes; the handle is the copy's address.
///
/// # Safety
/// `serialized` holds `size` readable bytes; `code_object` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_deserialize(
    serialized: *const c_void,
    size: usize,
    _options: *const c_char,
    code_object: *mut u64,
) -> u32 {
    let _rt = runtime!(serialized, size, _options, code_object);
    non_null!(serialized, code_object);
    if size == 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: `size` readable bytes by contract.
    let bytes = unsafe { std::slice::from_raw_parts(serialized as *const u8, size) };
    let h = tri!(v1::deserialize(bytes));
    // SAFETY: non-null, writable by contract.
    unsafe { *code_object = h };
    HSA_STATUS_SUCCESS
}

/// `hsa_code_object_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_code_object_destroy(code_object: u64) -> u32 {
    let _rt = runtime!(code_object);
    status(v1::destroy(code_object))
}

/// `hsa_code_object_get_info`. As in ROCr, the machine model, profile and rounding mode come
/// only from an HSAIL note, which compilers other than the (absent) finalizer never write:
/// those queries answer `INVALID_CODE_OBJECT`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_get_info(
    code_object: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(code_object, attribute, value);
    non_null!(value);
    let co = tri!(v1::get(code_object));
    let (Some(version), Some(isa)) = (&co.version, &co.isa_name) else {
        return crate::util::trace_error!(HsaError::InvalidCodeObject.status());
    };
    // SAFETY: non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put_fixed_str(value, version, 64), // VERSION: char[64]
            1 => put(value, 0u32),                  // TYPE: HSA_CODE_OBJECT_TYPE_PROGRAM
            2 => put(value, Runtime::isa_handle(tri!(rt.isa_from_name(isa)))),
            3..=5 => return crate::util::trace_error!(HsaError::InvalidCodeObject.status()),
            _ => return crate::util::trace_error!(INVALID_ARGUMENT),
        }
    }
    HSA_STATUS_SUCCESS
}

/// Looks a code symbol up by name and writes its handle.
///
/// # Safety
/// `name` (and `module` when non-null) are C strings; `symbol` is writable.
unsafe fn code_symbol_by_name(
    code_object: u64,
    module: *const c_char,
    name: *const c_char,
    symbol: *mut u64,
) -> u32 {
    let _rt = runtime!(code_object, module, name, symbol);
    non_null!(name, symbol);
    let co = tri!(v1::get(code_object));
    // SAFETY: C strings by contract.
    let (module, name) = unsafe {
        (
            (!module.is_null()).then(|| CStr::from_ptr(module).to_string_lossy()),
            CStr::from_ptr(name).to_string_lossy(),
        )
    };
    let s = tri!(co.symbol(module.as_deref(), &name));
    // SAFETY: non-null, writable by contract.
    unsafe { *symbol = v1::symbol_handle(&s) };
    HSA_STATUS_SUCCESS
}

/// `hsa_code_object_get_symbol`.
///
/// # Safety
/// As `hsa_code_object_get_symbol_from_name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_get_symbol(
    code_object: u64,
    name: *const c_char,
    symbol: *mut u64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { code_symbol_by_name(code_object, std::ptr::null(), name, symbol) }
}

/// `hsa_code_object_get_symbol_from_name`.
///
/// # Safety
/// `name` (and `module` when non-null) are C strings; `symbol` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_get_symbol_from_name(
    code_object: u64,
    module: *const c_char,
    name: *const c_char,
    symbol: *mut u64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { code_symbol_by_name(code_object, module, name, symbol) }
}

/// `hsa_code_object_iterate_symbols`.
///
/// # Safety
/// `callback` must be null or a valid function pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_object_iterate_symbols(
    code_object: u64,
    callback: Option<unsafe extern "C" fn(u64, u64, *mut c_void) -> u32>,
    data: *mut c_void,
) -> u32 {
    let _rt = runtime!(code_object, callback);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let co = tri!(v1::get(code_object));
    let syms = tri!(co.symbols()).to_vec();
    // SAFETY: the application's callback.
    iterate(syms, |s| unsafe {
        cb(code_object, v1::symbol_handle(&s), data)
    })
}

/// `hsa_code_symbol_get_info` (ROCr's attribute set: no call conventions).
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_code_symbol_get_info(
    code_symbol: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let _rt = runtime!(code_symbol, attribute, value);
    non_null!(value);
    let s = tri!(v1::symbol(code_symbol));
    let kernel = s.kind == SymbolType::Kernel;
    // ROCr splits `module:name`.
    let (module, name) = s.name.rsplit_once(':').unwrap_or(("", &s.name));
    let module = module.split(':').next().unwrap_or("");
    // SAFETY: non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, u32::from(kernel)), // HSA_SYMBOL_KIND_KERNEL / _VARIABLE
            1 => put(value, name.len() as u32),
            2 => std::ptr::copy_nonoverlapping(name.as_ptr(), value as *mut u8, name.len()),
            3 => put(value, module.len() as u32),
            4 => std::ptr::copy_nonoverlapping(module.as_ptr(), value as *mut u8, module.len()),
            5 => put(value, 1u32), // HSA_SYMBOL_LINKAGE_PROGRAM
            17 => put(value, true),
            6 if !kernel => put(value, 0u32), // HSA_VARIABLE_ALLOCATION_AGENT
            7 if !kernel => put(value, if s.writable { 0u32 } else { 1 }), // GLOBAL / READONLY
            8 if !kernel => put(value, s.alignment),
            9 if !kernel => put(value, s.size as u32),
            10 if !kernel => put(value, !s.writable),
            11 if kernel => put(value, s.kernarg_segment_size),
            12 if kernel => put(value, s.kernarg_segment_alignment),
            13 if kernel => put(value, s.group_segment_size),
            14 if kernel => put(value, s.private_segment_size),
            15 if kernel => put(value, s.dynamic_callstack),
            _ => return crate::util::trace_error!(INVALID_ARGUMENT),
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_executable_load_code_object`: loads a deserialized code object through the same
/// loader as `hsa_executable_load_agent_code_object`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_executable_load_code_object(
    executable: u64,
    agent: u64,
    code_object: u64,
    _options: *const c_char,
) -> u32 {
    let rt = runtime!(executable, agent, code_object, _options);
    let e = tri!(rt.executable(executable));
    let co = tri!(v1::get(code_object));
    let a = tri!(rt.agent(agent)).clone();
    status(e.load(rt.memory(), &a, co.reader()))
}
