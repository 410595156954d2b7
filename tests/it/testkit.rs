//! hsaemu-testkit's own tests (its unit tests until Round 42 of docs/notes/ci-time.md): the
//! kernels it compiles in steps are what the compiler drivers make in one run, its cached tool
//! outputs are the tools', and its device-library parser reads what it should.

mod generic_shim;
mod lib;
