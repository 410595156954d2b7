//! The cross-crate integration tests: one binary, one module per area.

mod hip;
mod capi;
mod runtime;
mod codeobject;
mod emu;
mod isa;
