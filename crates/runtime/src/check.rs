//! The runtime's part of `--check` (`HSAEMU_CHECK`, see `hsaemu_emu::check`): it tells the
//! checker about the memory it allocates, frees, copies and fills, and prints the findings at
//! process exit, ending the process with [`FOUND_STATUS`] when there were any.

use crate::error::{HsaError, Result};
use hsaemu_emu::check::{self, Checker};

/// Exit status of a program in which `--check` found something.
pub const FOUND_STATUS: i32 = 66;

/// The checker, when `HSAEMU_CHECK` asks for one.
pub(crate) fn active() -> Option<&'static Checker> {
    check::active()
}

/// The checker, for the C API's `--check` entry points.
pub fn active_checker() -> Option<&'static Checker> {
    check::active()
}

/// Called once when the runtime starts: rejects a malformed `HSAEMU_CHECK` and arranges for
/// the findings to be printed at exit.
pub(crate) fn start() -> Result<()> {
    match check::configured() {
        Err(e) => {
            eprintln!("hsaemu: {e}");
            Err(HsaError::Error)
        }
        Ok(None) => Ok(()),
        Ok(Some(_)) => {
            static REGISTERED: std::sync::Once = std::sync::Once::new();
            REGISTERED.call_once(|| {
                // SAFETY: `at_exit` is an `extern "C" fn()` that lives for the whole process.
                unsafe { libc::atexit(at_exit) };
            });
            Ok(())
        }
    }
}

/// Prints the findings; with any, flushes C's streams and ends the process non-zero.
extern "C" fn at_exit() {
    if check::report::print_findings() {
        // SAFETY: fflush(NULL) flushes every open output stream; _exit ends the process
        // without running the remaining exit handlers (the status must be ours).
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(FOUND_STATUS);
        }
    }
}
