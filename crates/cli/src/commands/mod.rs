//! The subcommands of `hsaemu`, one module each. Each `run` returns the process exit code,
//! or an error message that `main` prints as `hsaemu: MESSAGE` with exit status 1.

pub mod bench;
pub mod disasm;
pub mod exec;
pub mod info;
pub mod inspect;
pub mod run;
