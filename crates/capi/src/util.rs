//! Helpers shared by the exports: status values, the initialisation check, and writers for
//! attribute values into caller-provided buffers.

use std::ffi::c_void;

use hsaemu_runtime::HsaError;

/// `HSA_STATUS_SUCCESS`.
pub const HSA_STATUS_SUCCESS: u32 = 0;
/// `HSA_STATUS_ERROR`.
pub const HSA_STATUS_ERROR: u32 = 0x1000;
/// `HSA_STATUS_ERROR_INVALID_ARGUMENT`.
pub const INVALID_ARGUMENT: u32 = 0x1001;

/// Whether `HSAEMU_TRACE` (a comma-separated list) includes `what` or `api`. (An entry that is
/// none of these words is the path of the timeline file: see `hsaemu_runtime::trace`.)
pub fn trace_enabled(what: &str) -> bool {
    static TRACE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TRACE
        .get_or_init(|| {
            std::env::var("HSAEMU_TRACE")
                .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
                .unwrap_or_default()
        })
        .iter()
        .any(|t| t == what || t == "api")
}

/// The public name of the enclosing export (`hsa_agent_get_info` inside
/// `hsaemu_hsa_agent_get_info`).
macro_rules! api_name {
    () => {{
        fn f() {}
        let n = std::any::type_name_of_val(&f);
        let n = n.strip_suffix("::f").unwrap_or(n);
        let n = n.rsplit("::").next().unwrap_or(n);
        n.strip_prefix("hsaemu_").unwrap_or(n)
    }};
}
pub(crate) use api_name;

/// Records the status the enclosing export returns (printed when its call trace ends, with
/// `HSAEMU_TRACE=api`) and returns it.
macro_rules! trace_error {
    ($status:expr) => {{
        let status: u32 = $status;
        $crate::trace_args::record(status);
        if let Some(t) = hsaemu_runtime::trace::timeline() {
            let name = hsaemu_runtime::HsaError::from_status(status).map_or("?", |e| e.name());
            t.api_call(
                &format!("{} -> {name}", $crate::util::api_name!()),
                Some(name),
            );
        }
        status
    }};
}
pub(crate) use trace_error;

/// Returns the current runtime, or returns `HSA_STATUS_ERROR_NOT_INITIALIZED` from the
/// enclosing function. With `HSAEMU_TRACE=api`, prints the call with its arguments (each
/// formatted by type, see `trace_args`) and, when the export returns, its status.
macro_rules! runtime {
    ($($arg:ident),* $(,)?) => {{
        let guard = if $crate::util::trace_enabled("api") {
            let name = $crate::util::api_name!();
            let args: Vec<String> = vec![$(format!(
                "{}={}",
                stringify!($arg).trim_start_matches('_'),
                $crate::trace_args::TraceArg::show(&$arg, name, stringify!($arg))
            )),*];
            Some($crate::trace_args::CallTrace::begin(name, &args))
        } else {
            None
        };
        if let Some(t) = hsaemu_runtime::trace::timeline() {
            t.api_call($crate::util::api_name!(), None);
        }
        match hsaemu_runtime::current() {
            Ok(rt) => $crate::trace_args::Traced { rt, _guard: guard },
            Err(e) => return $crate::util::trace_error!(e.status()),
        }
    }};
}
pub(crate) use runtime;

/// Unwraps a `Result<T, HsaError>` or returns its status from the enclosing function.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return $crate::util::trace_error!(hsaemu_runtime::HsaError::status(e)),
        }
    };
}
pub(crate) use tri;

/// Returns `INVALID_ARGUMENT` from the enclosing function if any pointer is null.
macro_rules! non_null {
    ($($p:expr),+) => {
        if $($p.is_null())||+ {
            return $crate::util::trace_error!($crate::util::INVALID_ARGUMENT);
        }
    };
}
pub(crate) use non_null;

/// The status of a unit result (recorded for the call trace).
pub(crate) fn status(r: Result<(), HsaError>) -> u32 {
    let s = match r {
        Ok(()) => HSA_STATUS_SUCCESS,
        Err(e) => e.status(),
    };
    crate::trace_args::record(s);
    s
}

/// Writes `v` to the attribute buffer `out`.
///
/// # Safety
/// `out` must be valid for writing `size_of::<T>()` bytes (the caller's contract for the
/// attribute being queried).
pub(crate) unsafe fn put<T: Copy>(out: *mut c_void, v: T) {
    // SAFETY: guaranteed by the caller; unaligned writes need no alignment.
    unsafe { (out as *mut T).write_unaligned(v) };
}

/// Writes `s` NUL-terminated into a fixed `cap`-byte buffer, zero-filling the rest and
/// truncating if needed.
///
/// # Safety
/// `out` must be valid for writing `cap` bytes.
pub(crate) unsafe fn put_fixed_str(out: *mut c_void, s: &str, cap: usize) {
    let n = s.len().min(cap - 1);
    // SAFETY: `out` has `cap` writable bytes; we write exactly `cap`.
    unsafe {
        let dst = out as *mut u8;
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst, n);
        std::ptr::write_bytes(dst.add(n), 0, cap - n);
    }
}

/// Writes `s` and a NUL terminator (`s.len() + 1` bytes).
///
/// # Safety
/// `out` must be valid for writing `s.len() + 1` bytes.
pub(crate) unsafe fn put_str(out: *mut c_void, s: &str) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let dst = out as *mut u8;
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst, s.len());
        *dst.add(s.len()) = 0;
    }
}

/// The callback status that ends an iteration: anything but success is returned as is.
pub(crate) fn iterate<T>(items: impl IntoIterator<Item = T>, mut f: impl FnMut(T) -> u32) -> u32 {
    for it in items {
        let s = f(it);
        if s != HSA_STATUS_SUCCESS {
            crate::trace_args::record(s);
            return s;
        }
    }
    HSA_STATUS_SUCCESS
}
