//! `--check`: the dynamic checkers behind `hsaemu exec --check=race,uninit,bounds` (issue 16).
//!
//! Turned on for the whole process by `HSAEMU_CHECK=LIST` ([`active`]); when it is off nothing
//! here runs: the scheduler picks the unchecked instantiation of the interpreter
//! (`exec::step::<false>`), so the hot path has no check at all. When on, every vector memory
//! instruction notes its active lanes' accesses ([`group::GroupCheck::note`]) and hands them to
//! the checkers after it ran ([`group::flush`]):
//! - [`shadow`]: the allocations the program made (sizes it asked for, freed or live) and
//!   which of their bytes were ever written (`uninit`, `bounds`);
//! - [`defined`]: per-lane register definedness, so `uninit` reports where a value loaded
//!   from never-written memory is used, not the (possibly speculative) load itself;
//! - [`race`]: per-location last accesses stamped with vector-clock epochs (`race`);
//! - [`report`]: findings, one line each, identical ones counted, printed at exit.

pub(crate) mod defined;
pub(crate) mod group;
pub(crate) mod race;
pub mod report;
pub(crate) mod shadow;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Which checks are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Checks {
    /// Data races on LDS and global memory.
    pub race: bool,
    /// Reads of memory never written since its allocation.
    pub uninit: bool,
    /// Accesses outside any live allocation (past the end, after free).
    pub bounds: bool,
}

impl Checks {
    /// Parses a comma list of `race`, `uninit`, `bounds` (at least one).
    pub fn parse(list: &str) -> Result<Checks, String> {
        let mut c = Checks::default();
        for word in list.split(',').map(str::trim) {
            match word {
                "race" => c.race = true,
                "uninit" => c.uninit = true,
                "bounds" => c.bounds = true,
                _ => {
                    return Err(format!(
                        "unknown check {word:?} in {list:?} (the checks are race, uninit, bounds)"
                    ))
                }
            }
        }
        Ok(c)
    }
}

/// The process's checker: the checks asked for and their shadow state.
pub struct Checker {
    pub checks: Checks,
    pub(crate) memory: shadow::Memory,
    pub(crate) races: race::GlobalRaces,
    pub(crate) findings: report::Findings,
    dispatches: AtomicU32,
}

static CHECKER: OnceLock<Result<Option<Checker>, String>> = OnceLock::new();

/// The checker `HSAEMU_CHECK` asks for (None when unset or empty).
pub fn active() -> Option<&'static Checker> {
    configured().ok().flatten()
}

/// What `HSAEMU_CHECK` asks for, or why it is malformed (the runtime refuses to start then).
pub fn configured() -> Result<Option<&'static Checker>, &'static str> {
    let c = CHECKER.get_or_init(|| match std::env::var("HSAEMU_CHECK") {
        Ok(list) if !list.trim().is_empty() => Checks::parse(&list)
            .map(|checks| Some(Checker::new(checks)))
            .map_err(|e| format!("HSAEMU_CHECK: {e}")),
        _ => Ok(None),
    });
    match c {
        Ok(c) => Ok(c.as_ref()),
        Err(e) => Err(e.as_str()),
    }
}

impl Checker {
    fn new(checks: Checks) -> Checker {
        Checker {
            checks,
            memory: shadow::Memory::default(),
            races: race::GlobalRaces::default(),
            findings: report::Findings::default(),
            dispatches: AtomicU32::new(0),
        }
    }

    /// A new dispatch's number (race epochs of different dispatches never meet).
    pub(crate) fn next_dispatch(&self) -> u32 {
        self.dispatches.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The runtime allocated `[base, base+mapped)` for a request of `requested` bytes;
    /// `device` memory is uninitialised until written (host memory the CPU may write unseen).
    pub fn allocated(
        &self,
        base: u64,
        requested: u64,
        mapped: u64,
        device: bool,
        by: &'static str,
    ) {
        self.memory.allocated(base, requested, mapped, device, by);
    }

    /// The program allocated `size` bytes at `ptr` (from `hipMalloc`, via the preloaded shim).
    pub fn program_allocated(&self, ptr: u64, size: u64, by: &'static str) {
        self.memory.program_allocated(ptr, size, by);
    }

    /// The allocation at `base` was freed (by the runtime or the program's `hipFree`).
    pub fn freed(&self, base: u64, by: &'static str) {
        self.memory.freed(base, by);
    }

    /// The host (a runtime copy or fill) wrote `[addr, addr+len)`.
    pub fn host_wrote(&self, addr: u64, len: u64) {
        self.memory.host_wrote(addr, len);
    }

    /// Findings so far, formatted (one line each, identical ones counted).
    pub fn report(&self) -> Vec<String> {
        self.findings.lines()
    }
}
