//! hsaemu-capi: the C ABI of the HSA runtime, as ROCm 5.2's `libhsa-runtime64.so.1` exports
//! it. Glue only: each `extern "C"` function checks that the runtime is initialised (before
//! looking at its arguments, as ROCm does), converts its arguments, calls the safe
//! `hsaemu-runtime` API and maps the result onto `hsa_status_t`.
//!
//! Every function is exported under an internal name `hsaemu_<name>`; the `hsa-runtime64`
//! crate links them into the shared library under their public names with the `ROCR_1`
//! version, following ROCm's export list: deprecated aliases go to their `sc*` twins and the
//! functions hsaemu does not implement to their stubs in [`unimplemented`].

pub mod agent;
pub mod check;
pub mod core;
pub mod executable;
pub mod image;
pub mod memory;
pub mod queue;
pub mod signal;
mod trace_args;
pub mod unimplemented;
mod util;

pub use util::{HSA_STATUS_ERROR, HSA_STATUS_SUCCESS};

/// `_amdgpu_r_debug`: the debugger's view of loaded GPU code objects, shaped like glibc's
/// 40-byte `struct r_debug`. hsaemu keeps it zeroed (no debugger support).
#[unsafe(no_mangle)]
pub static hsaemu_amdgpu_r_debug: [u64; 5] = [0; 5];
