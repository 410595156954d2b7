//! hsaemu-private entry points of `--check` (not part of ROCm's API): the `hipMalloc`/`hipFree`
//! shim that `hsaemu exec --check` preloads (crate `hsaemu-checkshim`) finds them with
//! `dlsym` and reports the sizes the program asked for, which HIP rounds up before they reach
//! the runtime.

use std::ffi::c_void;

/// The program allocated `size` bytes at `ptr` (a successful `hipMalloc`).
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_check_program_alloc(ptr: *mut c_void, size: usize) {
    if let Some(c) = hsaemu_runtime::check::active_checker() {
        c.program_allocated(ptr as u64, size as u64, "hipMalloc");
    }
}

/// The program freed the allocation at `ptr` (a successful `hipFree`).
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_check_program_free(ptr: *mut c_void) {
    if let Some(c) = hsaemu_runtime::check::active_checker() {
        c.freed(ptr as u64, "hipFree");
    }
}

/// The host wrote `[ptr, ptr+len)` (a HIP copy HIP made with the CPU).
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_check_host_wrote(ptr: *mut c_void, len: usize) {
    if let Some(c) = hsaemu_runtime::check::active_checker() {
        c.host_wrote(ptr as u64, len as u64);
    }
}
