//! The subcommands of `hsaemu`, one module each.

pub mod inspect;
