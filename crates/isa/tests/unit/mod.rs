//! The crate's unit tests, one module per source file: here, in a test binary that exists
//! anyway, rather than in a unit-test harness of their own, which would compile the whole crate
//! (its tables) a second time (docs/notes/ci-time.md, "Round 42").

mod decode;
mod lib;
mod listing;
mod semantics;
