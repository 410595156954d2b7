//! hsaemu-runtime's unit tests, one module per source file: the crate has no test harness of
//! its own (docs/notes/ci-time.md, "Round 50").

mod agent;
mod alias;
mod cu_mask;
mod error;
mod image;
mod ipc;
mod layout;
mod memory;
mod pages;
mod signal;
mod svm;
mod trace;
mod visible;
