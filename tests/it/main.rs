//! The cross-crate integration tests: one binary, one module per area.

mod bench;
mod capi;
mod check;
mod codeobject;
mod comgr;
mod debugging;
mod doctests;
mod emu;
mod hip;
mod images;
mod isa;
mod reliability;
mod runtime;
mod support;
mod testkit;
