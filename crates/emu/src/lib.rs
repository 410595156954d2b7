//! hsaemu-emu: the emulated AMD GPU. It runs real compiled AMDGPU kernels (clang-15/hipcc
//! output for gfx803, gfx9xx, gfx90a and gfx1030) on the host CPU.
//!
//! # Public API (stable; the runtime codes against it)
//!
//! - [`MemoryMap`]: the thread-safe map of host ranges kernels may touch; every GPU shares
//!   one. Device pointers *are* host pointers; an access outside a registered range is a
//!   [`Fault`], never a host crash.
//! - [`Gpu`]: one emulated agent, made from a [`GpuConfig`] and the memory map.
//!   [`Gpu::load_code_object`] copies a code object into fresh host memory (segments,
//!   relocations) and returns a [`LoadedCodeObject`] with its symbols and kernels (code
//!   object V3+ kernel descriptors and V2 `amd_kernel_code_t`s alike);
//!   [`Gpu::dispatch`] runs one kernel dispatch ([`Dispatch`]) to completion on a pool of host
//!   threads and returns [`DispatchStats`] or the first [`Fault`].
//! - [`kernarg`]: helpers that fill the hidden kernel arguments (code object V4 and V5
//!   layouts) for callers that build kernarg segments themselves.
//! - [`Gpu::coverage`]: which mnemonics of a loaded code object the emulator can execute;
//!   [`opcode_status`]: what the emulator does with an opcode of isa's tables (the census).
//! - [`run_words`]: runs a few instruction words on one wave from a [`WaveRegs`] state (the
//!   per-instruction tests).
//!
//! Supported processors: gfx801–gfx810 (GFX8), gfx900–gfx90c and gfx908 (GFX9), gfx90a (all
//! wave64), and gfx1030–gfx1036 (GFX10.3, RDNA2) in wave32 and wave64, chosen per kernel from
//! its descriptor.
//! The design is described in docs/architecture-emu.md.
//!
//! # Model
//!
//! Work-groups run in parallel on host threads; the waves of one work-group run interleaved on
//! one thread (switching at `s_barrier`, `s_sleep`, wave end and a time slice) and share LDS.
//! Each thread keeps several work-groups resident and time-slices among them, so kernels that
//! spin on memory written by another work-group make progress. Global memory accesses are host
//! atomics (amdgpu-execution.md §2.5). LDS and private memory are reached through the GFX9
//! apertures ([`memory::SHARED_APERTURE_BASE`], [`memory::PRIVATE_APERTURE_BASE`]). Machine
//! code is decoded once per code region into a pre-decoded form; each vector instruction
//! loops over the 64 lanes as `[u32; 64]` arrays under EXEC (a wave32 wave uses lanes 0–31).

// Lane loops index several `[u32; 64]` rows in lockstep; that is the shape that vectorizes.
#![allow(clippy::needless_range_loop)]

mod blit;
mod capture;
mod census;
pub mod check;
mod decode;
pub mod descriptor;
mod dispatch;
pub mod error;
mod exec;
mod gpu;
mod gws;
pub mod image;
pub mod jit;
pub mod kernarg;
mod loader;
pub mod memory;
mod ops;
mod pool;
mod residency;
mod single;
pub mod validate;
mod wave;
mod wavetrace;

pub use capture::{replay, ReplayReport};
pub use census::{opcode_status, opcode_status_on, opcodes, OpcodeStatus};
pub use decode::{emulated, Gen};
pub use descriptor::{KernelDescriptor, KernelObjectFormat};
pub use error::{EmuError, Fault, FaultContext, FaultKind, LiveWave, StopCause};
pub use gpu::{
    deterministic_requested, watchdog_seconds, Control, Coverage, Dispatch, DispatchStats, Gpu,
    GpuConfig,
};
pub use loader::{LoadedCodeObject, LoadedKernel, LoadedSymbol, SymbolKind};
pub use memory::{Access, MemoryKind, MemoryMap};
pub use single::{run_words, run_words_mem, run_words_mem_read_only, run_words_scratch, WaveRegs};
pub use wavetrace::{WaveSelector, WorkGroup};
