//! `libhsaemu_check.so`: preloaded by `hsaemu exec --check` (`LD_PRELOAD`). It interposes
//! `hipMalloc` and `hipFree`, calls HIP's own (the next definition, `dlsym(RTLD_NEXT)`), and
//! tells hsaemu's runtime what the program asked for through the runtime's private entry
//! points `hsaemu_check_program_alloc`/`hsaemu_check_program_free`. HIP rounds allocation
//! sizes up before they reach the runtime; `bounds` needs the program's own size to catch an
//! access one byte past the end, and the `hipFree` to catch a use after free even when HIP
//! keeps the memory.

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

/// `hipError_t` (an `int` enum): success, and the error returned when HIP is not loaded.
type HipError = i32;
const HIP_ERROR_UNKNOWN: HipError = 999;

type Malloc = unsafe extern "C" fn(*mut *mut c_void, usize) -> HipError;
type Free = unsafe extern "C" fn(*mut c_void) -> HipError;
type NoteAlloc = extern "C" fn(*mut c_void, usize);
type NoteWrite = extern "C" fn(*mut c_void, usize);
type NoteFree = extern "C" fn(*mut c_void);

/// The address of `name` in `handle`'s scope (`RTLD_NEXT`, `RTLD_DEFAULT`), or 0.
fn symbol(handle: *mut c_void, name: &CStr) -> usize {
    // SAFETY: `name` is NUL-terminated; dlsym only reads it.
    unsafe { libc::dlsym(handle, name.as_ptr()) as usize }
}

/// HIP's definition of `name` (the one after this library).
fn next(cell: &OnceLock<usize>, name: &CStr) -> usize {
    *cell.get_or_init(|| symbol(libc::RTLD_NEXT, name))
}

/// hsaemu's entry point `name`, once the runtime is loaded (looked up until found).
fn hsaemu(cell: &OnceLock<usize>, name: &CStr) -> usize {
    if let Some(&a) = cell.get() {
        return a;
    }
    let a = symbol(libc::RTLD_DEFAULT, name);
    if a != 0 {
        let _ = cell.set(a);
    }
    a
}

/// `hipMalloc`.
///
/// # Safety
/// As HIP's: `ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> HipError {
    static REAL: OnceLock<usize> = OnceLock::new();
    static NOTE: OnceLock<usize> = OnceLock::new();
    let real = next(&REAL, c"hipMalloc");
    if real == 0 {
        return HIP_ERROR_UNKNOWN;
    }
    // SAFETY: `real` is HIP's `hipMalloc`, whose C signature `Malloc` is.
    let real: Malloc = unsafe { std::mem::transmute::<usize, Malloc>(real) };
    // SAFETY: the caller's arguments, passed on unchanged.
    let status = unsafe { real(ptr, size) };
    let note = hsaemu(&NOTE, c"hsaemu_check_program_alloc");
    if status == 0 && !ptr.is_null() && note != 0 {
        // SAFETY: `note` is hsaemu's `hsaemu_check_program_alloc` (signature `NoteAlloc`);
        // HIP succeeded, so `*ptr` holds the new allocation.
        unsafe { std::mem::transmute::<usize, NoteAlloc>(note)(*ptr, size) };
    }
    status
}

/// `hipFree`.
///
/// # Safety
/// As HIP's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> HipError {
    static REAL: OnceLock<usize> = OnceLock::new();
    static NOTE: OnceLock<usize> = OnceLock::new();
    let real = next(&REAL, c"hipFree");
    if real == 0 {
        return HIP_ERROR_UNKNOWN;
    }
    // SAFETY: `real` is HIP's `hipFree`, whose C signature `Free` is.
    let status = unsafe { std::mem::transmute::<usize, Free>(real)(ptr) };
    let note = hsaemu(&NOTE, c"hsaemu_check_program_free");
    if status == 0 && !ptr.is_null() && note != 0 {
        // SAFETY: `note` is hsaemu's `hsaemu_check_program_free` (signature `NoteFree`).
        unsafe { std::mem::transmute::<usize, NoteFree>(note)(ptr) };
    }
    status
}

/// Tells hsaemu that the host wrote `[dst, dst+len)` (HIP copies into device memory with the
/// CPU when it can, which the runtime never sees).
fn wrote(dst: *mut c_void, len: usize) {
    static NOTE: OnceLock<usize> = OnceLock::new();
    let note = hsaemu(&NOTE, c"hsaemu_check_host_wrote");
    if note != 0 && !dst.is_null() {
        // SAFETY: `note` is hsaemu's `hsaemu_check_host_wrote` (signature `NoteWrite`).
        unsafe { std::mem::transmute::<usize, NoteWrite>(note)(dst, len) };
    }
}

/// Defines HIP copy function `$name($args)`: calls HIP's, then, on success, reports that
/// `$len` bytes at `$dst` were written.
macro_rules! copy_function {
    ($name:ident($($arg:ident: $ty:ty),*), $dst:expr, $len:expr) => {
        #[doc = concat!("`", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As HIP's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> HipError {
            static REAL: OnceLock<usize> = OnceLock::new();
            let Ok(name) = CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes())
            else {
                return HIP_ERROR_UNKNOWN;
            };
            let real = next(&REAL, name);
            if real == 0 {
                return HIP_ERROR_UNKNOWN;
            }
            type F = unsafe extern "C" fn($($ty),*) -> HipError;
            // SAFETY: `real` is HIP's function of this name, whose C signature `F` is; the
            // caller's arguments are passed on unchanged.
            let status = unsafe { std::mem::transmute::<usize, F>(real)($($arg),*) };
            if status == 0 {
                wrote($dst, $len);
            }
            status
        }
    };
}

type Stream = *mut c_void;
copy_function!(hipMemcpy(dst: *mut c_void, src: *const c_void, n: usize, kind: i32), dst, n);
copy_function!(
    hipMemcpyAsync(dst: *mut c_void, src: *const c_void, n: usize, kind: i32, s: Stream),
    dst,
    n
);
copy_function!(
    hipMemcpyWithStream(dst: *mut c_void, src: *const c_void, n: usize, kind: i32, s: Stream),
    dst,
    n
);
copy_function!(hipMemcpyHtoD(dst: *mut c_void, src: *const c_void, n: usize), dst, n);
copy_function!(
    hipMemcpyHtoDAsync(dst: *mut c_void, src: *const c_void, n: usize, s: Stream),
    dst,
    n
);
copy_function!(hipMemcpyDtoD(dst: *mut c_void, src: *const c_void, n: usize), dst, n);
copy_function!(
    hipMemcpyDtoDAsync(dst: *mut c_void, src: *const c_void, n: usize, s: Stream),
    dst,
    n
);
copy_function!(
    hipMemcpy2D(
        dst: *mut c_void,
        dpitch: usize,
        src: *const c_void,
        spitch: usize,
        width: usize,
        height: usize,
        kind: i32
    ),
    dst,
    dpitch * height.saturating_sub(1) + width
);
copy_function!(
    hipMemcpy2DAsync(
        dst: *mut c_void,
        dpitch: usize,
        src: *const c_void,
        spitch: usize,
        width: usize,
        height: usize,
        kind: i32,
        s: Stream
    ),
    dst,
    dpitch * height.saturating_sub(1) + width
);
