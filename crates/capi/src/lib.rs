//! hsaemu-capi: the C ABI of the HSA runtime, as ROCm 5.2's `libhsa-runtime64.so.1` exports
//! it. Glue only: each `extern "C"` function checks that the runtime is initialised (before
//! looking at its arguments, as ROCm does), converts its arguments, calls the safe
//! `hsaemu-runtime` API and maps the result onto `hsa_status_t`.
//!
//! Every function is exported under an internal name `hsaemu_<name>`; the `hsa-runtime64`
//! crate links them into the shared library under their public names with the `ROCR_1`
//! version, following `exports.txt` (which also routes ROCm's deprecated aliases and the
//! functions hsaemu does not implement).

pub mod agent;
pub mod core;
pub mod executable;
pub mod memory;
pub mod queue;
pub mod signal;
mod util;

pub use util::{HSA_STATUS_ERROR, HSA_STATUS_SUCCESS};

/// The one stub behind every exported function that hsaemu does not implement (see
/// docs/status-runtime.md): it ignores its arguments (harmless under the x86-64 System V
/// calling convention, where the caller owns argument registers and stack) and returns
/// `HSA_STATUS_ERROR`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_unimplemented() -> u32 {
    HSA_STATUS_ERROR
}

/// `_amdgpu_r_debug`: the debugger's view of loaded GPU code objects, shaped like glibc's
/// 40-byte `struct r_debug`. hsaemu keeps it zeroed (no debugger support).
#[unsafe(no_mangle)]
pub static hsaemu_amdgpu_r_debug: [u64; 5] = [0; 5];
