//! Errors of the emulator: [`EmuError`] for set-up problems (bad configuration, bad code
//! object, overlapping registrations) and [`Fault`] for a dispatch that stopped because a wave
//! did something the hardware would fault on (wild pointer, illegal instruction, trap).

use std::fmt;

pub use crate::validate::{Rejected, Rejection};

/// A set-up error: the request itself is invalid, nothing ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    /// The processor name is not one the emulator models.
    #[error(
        "unsupported processor `{0}` (supported: gfx801-gfx810, gfx900-gfx90c, gfx908, gfx90a, gfx1030-gfx1036)"
    )]
    UnsupportedProcessor(String),
    /// A range to register overlaps an existing one.
    #[error("memory range {base:#x}+{len:#x} overlaps the registered range {other_base:#x}+{other_len:#x}")]
    Overlap {
        /// Base of the new range.
        base: u64,
        /// Length of the new range.
        len: u64,
        /// Base of the range it overlaps.
        other_base: u64,
        /// Length of the range it overlaps.
        other_len: u64,
    },
    /// A range is empty or wraps around the address space.
    #[error("invalid memory range {base:#x}+{len:#x}")]
    InvalidRange {
        /// Base of the range.
        base: u64,
        /// Length of the range.
        len: u64,
    },
    /// `unregister` named a base that is not registered.
    #[error("no memory range is registered at {0:#x}")]
    NotRegistered(u64),
    /// The code object could not be loaded; the message names what and where.
    #[error("cannot load code object: {0}")]
    CodeObject(String),
}

/// What went wrong in a faulting dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// A lane accessed memory outside every registered range (or wrote read-only memory).
    MemoryViolation {
        /// The faulting address.
        address: u64,
        /// Whether the access was a write.
        write: bool,
        /// Bytes accessed.
        size: u32,
    },
    /// An LDS access outside the work-group's allocation.
    LdsOutOfRange {
        /// Byte offset in LDS.
        offset: u64,
        /// Bytes accessed.
        size: u32,
        /// Size of the work-group's LDS allocation.
        lds_size: u32,
    },
    /// A private (scratch) access outside the lane's private segment.
    ScratchOutOfRange {
        /// Private (per-lane) byte offset.
        offset: u64,
        /// Bytes accessed.
        size: u32,
        /// Per-lane private segment size.
        private_size: u32,
    },
    /// The words at the PC are not a valid instruction for the target.
    IllegalInstruction {
        /// The first instruction dword.
        word: u32,
    },
    /// A valid instruction the emulator does not implement yet.
    Unimplemented {
        /// Its mnemonic.
        mnemonic: String,
    },
    /// `s_trap` with this trap ID (2 = abort, `llvm.trap`).
    Trap {
        /// The trap ID from the instruction.
        trap_id: u16,
    },
    /// The PC left the loaded code.
    PcOutOfRange,
    /// The dispatch itself is malformed (sizes, descriptor); nothing ran.
    InvalidDispatch {
        /// What is wrong.
        reason: String,
        /// Which class of error (decides the queue status).
        class: Rejection,
    },
    /// The dispatch was stopped from outside (queue inactivated or destroyed, shut-down, or
    /// the watchdog) while these waves were still live.
    Stopped {
        /// Why it was stopped.
        cause: StopCause,
        /// Every wave that had not ended, where it was.
        waves: Box<[LiveWave]>,
    },
    /// `HSAEMU_JIT=verify`: a compiled block left the wave in another state than the
    /// interpreter running the same instructions (a bug in the compiling tier).
    TierMismatch {
        /// The block and the registers that differ.
        detail: String,
    },
}

/// Why a dispatch was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCause {
    /// Its queue was inactivated, destroyed or the runtime shut down.
    Requested,
    /// It ran longer than the watchdog's limit (seconds).
    Timeout(u32),
}

/// A wave that was live when its dispatch stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveWave {
    /// Its work-group.
    pub workgroup_id: [u32; 3],
    /// Wave index within the work-group.
    pub wave: u32,
    /// Absolute PC of the next instruction.
    pub pc_address: u64,
    /// `function+offset` of the PC, when known.
    pub location: Option<String>,
    /// The next instruction.
    pub instruction: Option<String>,
    /// The global address the wave last loaded from (what a spinning wave polls).
    pub last_load: Option<u64>,
    /// Whether it waits at a barrier.
    pub at_barrier: bool,
}

/// A dispatch that stopped early: what happened, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What happened.
    pub kind: FaultKind,
    /// The kernel's name, when known.
    pub kernel: Option<String>,
    /// Work-group of the faulting wave.
    pub workgroup_id: [u32; 3],
    /// Wave index within the work-group.
    pub wave: u32,
    /// Faulting lane, for per-lane faults.
    pub lane: Option<u32>,
    /// Byte offset of the faulting instruction in its code object (from the kernel's entry
    /// when the code object is not known).
    pub pc: u64,
    /// Disassembly-like text of the faulting instruction.
    pub instruction: Option<String>,
    /// Where the PC is and more about the address (boxed: faults travel in `Result`s).
    pub context: Box<FaultContext>,
}

/// The symbolised side of a [`Fault`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultContext {
    /// Absolute host address of the faulting instruction.
    pub pc_address: u64,
    /// The function the PC lies in (`callee+0x40`), and its caller when the return address
    /// is known (`called from kernel+0x1a8`).
    pub location: Option<String>,
    /// More about the address: the freed allocation it lies in, or the wave's private segment.
    pub detail: Option<String>,
}

// Faults are returned by value through every level of the scheduler.
const _: () = assert!(std::mem::size_of::<Fault>() < 128);

impl Fault {
    /// A launch refused because of its kernel object (descriptor, code).
    pub fn invalid_dispatch(reason: impl Into<String>) -> Fault {
        Fault::rejected(Rejected::new(Rejection::KernelObject, reason))
    }

    /// A launch refused by validation.
    pub fn rejected(r: Rejected) -> Fault {
        Fault {
            kind: FaultKind::InvalidDispatch {
                reason: r.message,
                class: r.reason,
            },
            kernel: None,
            workgroup_id: [0; 3],
            wave: 0,
            lane: None,
            pc: 0,
            instruction: None,
            context: Box::default(),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let FaultKind::InvalidDispatch { reason, .. } = &self.kind {
            return write!(f, "invalid dispatch: {reason}");
        }
        if let FaultKind::Stopped { cause, waves } = &self.kind {
            return write_stopped(f, self.kernel.as_deref(), *cause, waves);
        }
        let what = match &self.kind {
            FaultKind::MemoryViolation { .. } => "memory fault",
            FaultKind::LdsOutOfRange { .. } => "LDS out-of-range access",
            FaultKind::ScratchOutOfRange { .. } => "private (scratch) out-of-range access",
            FaultKind::IllegalInstruction { .. } => "illegal instruction",
            FaultKind::Unimplemented { .. } => "unimplemented instruction",
            FaultKind::Trap { .. } => "trap",
            FaultKind::PcOutOfRange => "program counter outside the loaded code",
            FaultKind::InvalidDispatch { .. } => "invalid dispatch",
            FaultKind::Stopped { .. } => "stopped",
            FaultKind::TierMismatch { .. } => "compiled code differs from the interpreter",
        };
        write!(f, "{what}")?;
        if let Some(k) = &self.kernel {
            write!(f, " in kernel `{k}`")?;
        }
        write!(f, " at pc {:#x}", self.pc)?;
        if let Some(l) = &self.context.location {
            write!(f, " ({l})")?;
        }
        if let Some(i) = &self.instruction {
            write!(f, " ({i})")?;
        }
        write!(f, ": ")?;
        if let Some(l) = self.lane {
            write!(f, "lane {l} of ")?;
        }
        let [x, y, z] = self.workgroup_id;
        write!(f, "wave {} in work-group ({x},{y},{z}) ", self.wave)?;
        // A use after free replaces "outside any allocation".
        let freed = self
            .context
            .detail
            .as_deref()
            .filter(|d| d.starts_with("in an allocation"));
        match &self.kind {
            FaultKind::MemoryViolation {
                address,
                write,
                size,
            } => match freed {
                Some(d) => write!(
                    f,
                    "{} {size} bytes at {address:#x}, a use after free: {d}",
                    if *write { "wrote" } else { "read" },
                ),
                None => write!(
                    f,
                    "{} {size} bytes at {address:#x}, outside any allocation{}",
                    if *write { "wrote" } else { "read" },
                    if *write { " or in read-only memory" } else { "" }
                ),
            },
            FaultKind::LdsOutOfRange {
                offset,
                size,
                lds_size,
            } => write!(
                f,
                "accessed {size} bytes at LDS offset {offset:#x}, beyond the work-group's {lds_size} bytes"
            ),
            FaultKind::ScratchOutOfRange {
                offset,
                size,
                private_size,
            } => write!(
                f,
                "accessed {size} bytes at private offset {offset:#x}, beyond the lane's {private_size} bytes"
            ),
            FaultKind::IllegalInstruction { word } => {
                write!(f, "executed the invalid instruction word {word:#010x}")
            }
            FaultKind::Unimplemented { mnemonic } => {
                write!(f, "executed `{mnemonic}`, which the emulator does not implement")
            }
            FaultKind::Trap { trap_id } => match trap_id {
                2 => write!(f, "executed s_trap 2 (abort: llvm.trap or a failed assert)"),
                id => write!(f, "executed s_trap {id}"),
            },
            FaultKind::PcOutOfRange => write!(f, "jumped outside the loaded code"),
            FaultKind::InvalidDispatch { reason, .. } => write!(f, "{reason}"),
            FaultKind::Stopped { .. } => Ok(()),
            FaultKind::TierMismatch { detail } => write!(f, "{detail}"),
        }?;
        if let (Some(d), None) = (&self.context.detail, freed) {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

/// The report of a stopped dispatch: why, then one line per live wave.
fn write_stopped(
    f: &mut fmt::Formatter<'_>,
    kernel: Option<&str>,
    cause: StopCause,
    waves: &[LiveWave],
) -> fmt::Result {
    match cause {
        StopCause::Requested => write!(f, "dispatch stopped on request")?,
        StopCause::Timeout(s) => write!(f, "dispatch stopped by the watchdog after {s} s")?,
    }
    if let Some(k) = kernel {
        write!(f, " in kernel `{k}`")?;
    }
    write!(f, "; {} live wave(s)", waves.len())?;
    for w in waves {
        let [x, y, z] = w.workgroup_id;
        write!(
            f,
            "\n  wave {} in work-group ({x},{y},{z}) at pc {:#x}",
            w.wave, w.pc_address
        )?;
        if let Some(l) = &w.location {
            write!(f, " ({l})")?;
        }
        if let Some(i) = &w.instruction {
            write!(f, ": {i}")?;
        }
        if w.at_barrier {
            write!(f, ", waiting at a barrier")?;
        }
        if let Some(a) = w.last_load {
            write!(f, ", last loaded from {a:#x}")?;
        }
    }
    Ok(())
}

impl std::error::Error for Fault {}
