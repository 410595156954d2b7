//! The compiling tier (docs/architecture-emu.md, "The compiling tier"): hot regions of wave
//! instructions translated to native code (`lower`, Cranelift), run in place of the
//! interpreter from the run loop's one hook.
//!
//! - **What.** A region (`Block`) is the set of instructions that `compilable` admits
//!   reachable from a *block start* through fall-through and `s_branch`/`s_cbranch_*` (at
//!   most [`MAX_BLOCK`]), so loops and if/else run in one call; control reaching anything
//!   else leaves it. A block start is a wave's first instruction in a scheduler turn, a
//!   branch target, the PC a compiled region left at, or the instruction after one the
//!   interpreter executed because it is not compilable. The keys that compile, and how, come
//!   from `tools/jit-ops.txt` through `ops::jit_lowering` (generated), so an opcode is
//!   compiled only when listed. A region runs for at most the instructions left in the
//!   wave's scheduler turn (`Block::run`), so waves interleave as without the tier.
//! - **When.** Dispatches use the tier unless `HSAEMU_JIT=0`. By default (unset, or
//!   `HSAEMU_JIT=1`) each block start counts its executions (all waves of a program); at [`THRESHOLD`] a block of at least [`MIN_BLOCK`] instructions is queued
//!   to the one background compiler thread, which publishes it in the program's slot and
//!   at its other basic blocks' (`Slots::publish`; `Slots::pending`, `Slots::inside` keep
//!   the starts inside a region from compiling it again).
//!   `HSAEMU_JIT=sync` compiles at the first execution and waits (deterministic);
//!   `HSAEMU_JIT=verify` does the same and also runs every compiled block in the interpreter
//!   on a copy of the wave, faulting when the two states differ. `run_words` compiles and
//!   verifies every block unless `HSAEMU_JIT=0`.
//! - **Falling back.** A block runs only for the wave size it was compiled for; when it
//!   holds vector ALU instructions, only with VGPR index mode off, and when one of them is
//!   a float operation (`fpmode::mode_free`), only under the default FP MODE (round to nearest
//!   even, denormals kept); otherwise the interpreter runs the same instructions. Memory instructions in a region are generated inline against a cached
//!   mapped range (`inline_mem.rs`: GLOBAL/FLAT dwords, SMEM loads, waits) or the LDS size
//!   (`inline_lds.rs`: DS under a full EXEC), or are calls of
//!   the interpreter's one-range fast paths (`lower_mem.rs`, `vmem::jit_fast`), also the
//!   inline forms' fallback; when one declines (a fault, or anything
//!   the fast path leaves to the general path), the region exits before it and the
//!   interpreter runs it, so faults keep the interpreter's reports.

#![cfg_attr(not(feature = "jit"), allow(dead_code))]

#[cfg(feature = "jit")]
mod lower;

use crate::decode::{flag, Fmt, Gen, Inst, Sub, AGPR, VGPR};
use crate::exec::{self, Env, Flow};
use crate::wave::{Ty, Wave, LANES};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, OnceLock, Weak};

/// Executions of a block start before it is compiled.
pub(crate) const THRESHOLD: u32 = 1000;
/// Most instructions in one region.
pub(crate) const MAX_BLOCK: usize = 256;
/// Most instructions in one region under `HSAEMU_JIT=sync` (its compile time is the run's).
pub(crate) const SYNC_BLOCK: usize = 64;
/// Fewest instructions worth a block in the background tier (a shorter one costs more in
/// the call and the EXEC blends than the interpreter spends on it).
pub(crate) const MIN_BLOCK: usize = 3;

/// How a compiled region is called: the wave's scalar file (`s`, 128 dwords; SCC, `lane_ops`
/// and the PC are reached at their offsets from it, [`SCC_AT`], [`LANE_OPS_AT`], [`PC_AT`]),
/// its vector file (512 rows of 64 dwords), the [`CallCtx`] of its calls into the interpreter
/// and the instructions left in the wave's scheduler turn (64 bits wide: a 32-bit value
/// read back by the region's 8-byte load stalled each call when it was passed on the
/// stack); it returns the instructions it executed (0 when the first basic block does not
/// fit, or its first instruction is a memory access whose fast path declined). Four
/// arguments, all in registers: SCC's, `lane_ops`' and the PC's own pointers were live
/// across the whole region and spilled at every call.
pub(crate) type BlockFn = unsafe extern "C" fn(*mut u32, *mut u32, *mut CallCtx, u64) -> u32;

/// A `Wave` field's byte offset from the scalar file `Wave::s`.
const fn from_s(field: usize) -> i32 {
    (field as isize - std::mem::offset_of!(Wave, s) as isize) as i32
}

/// Where a region finds SCC (one byte, 0 or 1), `lane_ops` and the PC (written: where the
/// interpreter continues): their byte offsets from its first argument, the scalar file.
pub(crate) const SCC_AT: i32 = from_s(std::mem::offset_of!(Wave, scc));
pub(crate) const LANE_OPS_AT: i32 = from_s(std::mem::offset_of!(Wave, lane_ops));
pub(crate) const PC_AT: i32 = from_s(std::mem::offset_of!(Wave, pc));
/// Where a region that parks its wave after a barrier tail writes the tail's length
/// (`Wave::ahead`).
pub(crate) const AHEAD_AT: i32 = from_s(std::mem::offset_of!(Wave, ahead));
/// And the tail's bytes (`Wave::ahead_size`).
pub(crate) const AHEAD_SIZE_AT: i32 = from_s(std::mem::offset_of!(Wave, ahead_size));

/// What a compiled region's calls into the interpreter (`lower_mem.rs`) reach: the wave (the
/// same one whose registers the region holds pointers into; its SGPRs and rows are current
/// there at each call, the pending rows stored first, and the region drops its values of
/// the registers a call writes), the run's `Env`,
/// and in `verify` runs the journal of global stores. `lds` and `lds_len` are the
/// work-group's LDS (`env.lds`), which inline DS accesses (`inline_lds.rs`) read and write.
pub(crate) struct CallCtx {
    pub(crate) wave: *mut Wave,
    pub(crate) env: *mut Env<'static>,
    pub(crate) journal: *mut exec::jit_fast::Journal,
    pub(crate) lds: *mut u8,
    pub(crate) lds_len: u64,
    /// The windows inline accesses check against (`lower`'s `inline_mem.rs`): the region
    /// cache's [`WINDOWS`] (`RegionCache::windows`, per worker thread, so they outlast the
    /// region's run).
    pub(crate) windows: *mut Window,
    /// The memory map's generation counter: a window taken at another generation is stale.
    pub(crate) map_generation: *const AtomicU64,
    /// The region cache's `last_load` (the watchdog's report), which inline loads set as
    /// the interpreter's checks do.
    pub(crate) last_load: *mut u64,
    /// Calls into the interpreter so far (checked runs count them: [`Stats::calls`]).
    pub(crate) calls: u32,
    /// Set to 1 by a region that ended with `s_barrier` (`Lower::Barrier`).
    pub(crate) parked: u32,
    /// Set by a region compiled without its general variant when it left because EXEC
    /// was not full ([`Variants::Full`]).
    pub(crate) missed: u32,
    /// Set by a region when a lane-affine fact it assumed did not hold (`lower.rs`'s
    /// `affine.rs`): a row's test at a basic block's start, or a carry or shift's.
    pub(crate) affine_missed: u32,
    /// A pair region's wave B (`Block::call_pair`): its scalar and vector files.
    pub(crate) s_b: *mut u32,
    pub(crate) v_b: *mut u32,
}

impl CallCtx {
    /// A context for region calls on `env` (and `journal`, `verify`'s): its pointers are
    /// `env`'s LDS, region cache and memory map, so it may be used only while `env` is live,
    /// not moved, and its `lds` and `cache` not replaced (a slice's `Env`, which the regions
    /// it calls reach only through these pointers while their own code is stopped). The
    /// wave is set by each [`Block::call`].
    pub(crate) fn new(env: &mut Env, journal: Option<&mut exec::jit_fast::Journal>) -> CallCtx {
        CallCtx {
            wave: std::ptr::null_mut(),
            windows: env.cache.windows.as_mut_ptr(),
            map_generation: env.mem.generation(),
            last_load: std::ptr::addr_of_mut!(env.cache.last_load),
            lds: env.lds.as_mut_ptr(),
            lds_len: env.lds.len() as u64,
            env: std::ptr::from_mut(env).cast(),
            journal: journal.map_or(std::ptr::null_mut(), std::ptr::from_mut),
            calls: 0,
            parked: 0,
            missed: 0,
            affine_missed: 0,
            s_b: std::ptr::null_mut(),
            v_b: std::ptr::null_mut(),
        }
    }
}

/// Which variants of a region are generated (`lower.rs`): the general one (blending under
/// EXEC) and the full-EXEC one, or one of them. A region none of whose instructions was a
/// start reached with a partial EXEC while counted gets the full-EXEC variant alone (half
/// the compile time); where it would need the general one it leaves instead, and after
/// [`MISS_LIMIT`] such exits it is compiled again with both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variants {
    Both,
    General,
    Full,
}

/// Whether a work-group's wave32 pairs run in one region call (`lower.rs`'s `pair.rs`,
/// `dispatch.rs`'s `enter_pair`); `HSAEMU_JIT_PAIR=0` turns them off (measuring what they
/// gain, or ruling them out).
pub(crate) fn pairs_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT_PAIR").map_or(true, |v| v != "0"))
}

/// Whether a work-group whose pairs end at once runs them one after the other in its first
/// two waves (`dispatch.rs`'s `stream_pairs`); `HSAEMU_JIT_STREAM=0` turns it off
/// (measuring what it gains, or ruling it out).
pub(crate) fn streams_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT_STREAM").map_or(true, |v| v != "0"))
}

/// Whether regions use lane-affine facts (`lower.rs`'s `affine.rs`, and the DS address
/// shapes of `ds_pred`); `HSAEMU_JIT_AFFINE=0` turns them off (measuring what they gain,
/// or ruling them out).
fn affine_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT_AFFINE").map_or(true, |v| v != "0"))
}

/// Exits of a full-EXEC-only region for want of its general variant before it is compiled
/// again with both.
const MISS_LIMIT: u32 = 64;

/// Windows per worker thread; a memory instruction at `pc` prefers window `(pc / 8) %
/// WINDOWS` (memory instructions are 8 bytes, so up to 32 consecutive ones have their own),
/// and takes the next free one when another instruction of its region has that one. Two
/// instructions of a region on different buffers that share one refresh it at every turn:
/// with 8, rocm-examples' convolution (18 memory instructions: kernel arguments, its
/// `__constant__` mask, 10 loads, a store) refreshed 11 windows per wave.
pub(crate) const WINDOWS: usize = 32;

/// One mapped range as the region cache last answered it for an inline access, which
/// compiled code checks a memory instruction's whole range against before accessing it; a
/// miss calls `inline_mem.rs`'s refresh, which asks the region cache again.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Window {
    /// First byte and end (exclusive); an empty window (`0, 0`) matches nothing.
    pub(crate) base: u64,
    pub(crate) end: u64,
    /// 1 when stores may go there.
    pub(crate) writable: u64,
    /// The memory map's generation the range was taken at.
    pub(crate) generation: u64,
}

/// The tier's setting for dispatches, from `HSAEMU_JIT` (read once). On unless
/// `HSAEMU_JIT=0` (docs/architecture-emu.md, "The compiling tier", "Switch").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `HSAEMU_JIT=0`, or built without the `jit` feature: everything interpreted.
    Off,
    /// The default (`HSAEMU_JIT` unset or `1`): compile hot blocks in the background.
    On,
    /// `HSAEMU_JIT=sync`: compile every block start at its first execution, waiting for it.
    Sync,
    /// `HSAEMU_JIT=verify`: as `sync`, and check each compiled run against the interpreter.
    Verify,
}

pub(crate) fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| {
        if !cfg!(feature = "jit") {
            return Mode::Off;
        }
        let value = std::env::var("HSAEMU_JIT").ok();
        let (mode, known) = mode_of(value.as_deref());
        if !known {
            eprintln!(
                "hsaemu: HSAEMU_JIT={:?} is none of 0, 1, sync, verify; the compiling tier \
                 stays on (its default)",
                value.unwrap_or_default()
            );
        }
        mode
    })
}

/// The mode an `HSAEMU_JIT` value (`None`: unset) selects, and whether the value is one of
/// the documented ones (an unknown value leaves the default, the tier on).
fn mode_of(value: Option<&str>) -> (Mode, bool) {
    match value.map(str::trim) {
        None | Some("1") => (Mode::On, true),
        Some("0") => (Mode::Off, true),
        Some("sync") => (Mode::Sync, true),
        Some("verify") => (Mode::Verify, true),
        Some(_) => (Mode::On, false),
    }
}

/// Whether `run_words` compiles and checks its blocks: built with the tier and not
/// `HSAEMU_JIT=0` (so the per-instruction tests check the compiled forms by default).
pub(crate) fn in_single_runs() -> bool {
    mode() != Mode::Off
}

/// What a compiled instruction does (`ops::jit_lowering`, generated from
/// `tools/jit-ops.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lower {
    /// A vector ALU operation on 32-bit lanes.
    VAlu(VAluOp),
    /// `v_cmp_*` and `v_cmpx_*` on 16-, 32- and 64-bit integers or f32.
    VCmp,
    /// `v_readfirstlane_b32`.
    ReadFirstLane,
    /// `v_readlane_b32` (the lane from a scalar operand, modulo the wave size).
    ReadLane,
    /// A 32-bit scalar ALU operation.
    SAlu(SAluOp),
    /// Nothing to do (`s_nop`; the MUBUF cache write-backs and invalidates, which the
    /// interpreter runs as nothing: memory is coherent here).
    Nop,
    /// `s_branch` (0) and `s_cbranch_scc0`, `_scc1`, `_vccz`, `_vccnz`, `_execz`, `_execnz`
    /// (1–6): a jump inside the compiled region, or its exit.
    Branch(u8),
    /// A memory access run by a call to the interpreter's one-range fast path
    /// (`vmem::jit_fast`); when it declines, the region exits before it.
    Mem,
    /// An instruction run by a call to the interpreter's `step` that always continues and
    /// cannot fault (the `s_waitcnt` family: its StoreLoad fence is the interpreter's own).
    Step,
    /// `s_barrier`: the region's last instruction on its path. It exits after it with the
    /// wave's PC at the next instruction and `CallCtx::parked` set; the run loop then parks
    /// the wave at the barrier, as when the interpreter runs it (`Flow::Barrier`).
    Barrier,
}

/// The vector operations (`D = f(S0, S1, S2)` lane by lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VAluOp {
    Mov,
    Add,
    Sub,
    SubRev,
    MulLo,
    And,
    Or,
    Xor,
    LshlRev,
    LshrRev,
    AshrRev,
    LshlAdd,
    Cndmask,
    FAdd,
    FSub,
    FSubRev,
    FMul,
    Fma,
    Fmac,
    /// The carry forms (`v_add_co_u32`…): the interpreter's carry kinds 0–5 (add, sub,
    /// subrev, then the same with a carry-in from the SGPR pair in source 2).
    Carry(u8),
    Not,
    MinI32,
    MaxI32,
    MinU32,
    MaxU32,
    MulU24,
    MulI24,
    Add3,
    Or3,
    /// `v_xor3_b32` (GFX10+): `S0 ^ S1 ^ S2`.
    Xor3,
    AndOr,
    Xad,
    LshlOr,
    AddLshl,
    Bfi,
    /// `v_fmamk_f32` (`S0 * K + S1`, true) and `v_fmaak_f32` (`S0 * S1 + K`, false).
    FmaK(bool),
    /// The 64-bit shifts by source 0 (`v_lshlrev_b64` 0, `v_lshrrev_b64` 1,
    /// `v_ashrrev_i64` 2): a 32-bit amount, a 64-bit value and result (row pairs).
    Shift64(u8),
    /// gfx90a's packed f32 on row pairs (`v_pk_add_f32` 0, `v_pk_mul_f32` 1, `v_pk_fma_f32`
    /// 2, `v_pk_mov_b32` 3).
    PkF32(u8),
    /// `v_mad_u64_u32` (false) and `v_mad_i64_i32` (true): `S0 * S1 + S2` in 64 bits, the
    /// overflow per lane to an SGPR pair under EXEC (without clamp).
    Mad64(bool),
    /// The conversions between f32 and 32-bit integers as Rust's `as` (the interpreter's):
    /// `v_cvt_f32_i32` 0, `v_cvt_f32_u32` 1 (round to nearest even), `v_cvt_i32_f32` 2,
    /// `v_cvt_u32_f32` 3 (toward zero, saturating, NaN to 0).
    Cvt(u8),
    /// `v_mbcnt_lo_u32_b32` (false), `v_mbcnt_hi_u32_b32` (true): the set bits of S0 below
    /// the lane's bit in the low (high) half of a 64-bit lane mask, plus S1.
    Mbcnt(bool),
    /// `v_bfe_u32` (false), `v_bfe_i32` (true): `S0 >> S1[4:0]`, its low `S2[4:0]` bits,
    /// with the offset and width the same in every lane (scalar operands).
    Bfe(bool),
    /// `v_mul_hi_u32` (false), `v_mul_hi_i32` (true): the high half of the 64-bit product.
    MulHi(bool),
    /// `v_rcp_f32`/`v_rcp_iflag_f32`: `1 / S0`, rounded once (the interpreter's division
    /// under the default MODE).
    Rcp,
    /// The f32 operations of one source whose host instruction is the interpreter's:
    /// `v_sqrt_f32` 0, `v_rsq_f32` 1 (`1 / sqrt`, rounded twice, as the interpreter), and the
    /// roundings to an integral value `v_floor_f32` 2, `v_ceil_f32` 3, `v_trunc_f32` 4,
    /// `v_rndne_f32` 5 (to nearest even).
    FUnary(u8),
    /// `v_cvt_f32_ubyte0`–`3`: byte N of S0 as an f32.
    CvtUbyte(u8),
    /// `v_max_f32` (true) and `v_min_f32` (false) under MODE's IEEE bit (the region's MODE
    /// test asks for it): a signalling NaN operand gives itself quieted, another NaN the
    /// other operand, and −0 orders below +0.
    MinMax(bool),
    /// The f32 division steps as the interpreter defines them: `v_div_scale_f32` (its flag
    /// lanes merged into the scalar destination under EXEC, as a carry-out),
    /// `v_div_fmas_f32` (a lane of VCC set under EXEC leaves the region before it: the
    /// interpreter scales that lane's FMA; the others are `v_fma_f32`s) and
    /// `v_div_fixup_f32`.
    DivScale,
    DivFmas,
    DivFixup,
    /// f64 on row pairs (`v_add_f64` 0, `v_mul_f64` 1, `v_fma_f64` 2, gfx90a's
    /// `v_fmac_f64` 3 into its destination pair), abs/neg on the sources, no output
    /// modifier.
    F64(u8),
}

impl VAluOp {
    /// The vector sources it reads (`v_cndmask`'s mask and the carry-in are apart).
    pub(crate) fn sources(self) -> usize {
        use VAluOp::*;
        match self {
            Mov | Not | Cvt(_) | Rcp | FUnary(_) | CvtUbyte(_) => 1,
            PkF32(2) | Mad64(_) | F64(2) => 3,
            Fma | LshlAdd | Add3 | Or3 | Xor3 | AndOr | Xad | LshlOr | AddLshl | Bfi | Bfe(_) => 3,
            DivScale | DivFmas | DivFixup => 3,
            _ => 2,
        }
    }
}

/// The scalar operations (`D = f(S0, S1)`, SCC as the interpreter sets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SAluOp {
    Mov,
    Movk,
    AddU32,
    SubU32,
    AddI32,
    SubI32,
    MulI32,
    /// `s_mul_hi_u32` (false), `s_mul_hi_i32` (true): the high 32 bits of the 64-bit
    /// product, SCC unchanged.
    MulHi(bool),
    And,
    Or,
    Xor,
    AndN2,
    Lshl,
    Lshr,
    Ashr,
    MinI32,
    MinU32,
    MaxI32,
    MaxU32,
    Cselect,
    /// `s_cmp_*`: SCC from a 32-bit compare (isa's `CmpCond` numbering: 1 lt, 2 eq, 3 le,
    /// 4 gt, 5 ne/lg, 6 ge), signed or not.
    Cmp(u8, bool),
    /// `s_addc_u32`, `s_subb_u32`: with SCC as carry in and out.
    AddcU32,
    SubbU32,
    /// `s_mov_b64`.
    Mov64,
    /// `s_and/or/xor/andn2_b64` (0–3; SCC = result non-zero).
    Logic64(u8),
    /// `s_and/or/xor/andn2_saveexec_b64` (EXEC = f(S0, EXEC), D = old EXEC, SCC = EXEC
    /// non-zero).
    Saveexec(u8),
    /// The same on EXEC_LO (wave32's `_b32` forms).
    Saveexec32(u8),
    /// `s_cselect_b64`.
    Cselect64,
    /// `s_orn2`, `s_nand`, `s_nor`, `s_xnor` on 32 bits (4–7, `lower`'s `logic` numbering;
    /// SCC = result non-zero).
    Logic(u8),
    /// `s_not_b32` (false) and `s_not_b64` (true); SCC = result non-zero.
    Not(bool),
    /// `s_lshl_b64`, `s_lshr_b64`, `s_ashr_i64` (0–2): a 64-bit value by `S1[5:0]`; SCC =
    /// result non-zero.
    Shift64(u8),
    /// `s_lshl1_add_u32` … `s_lshl4_add_u32` (the shift): `(S0 << n) + S1` in 64 bits, SCC =
    /// its bits above 31 non-zero.
    LshlAdd(u8),
    /// `s_bfe_u32` (false), `s_bfe_i32` (true): offset `S1[4:0]`, width `S1[22:16]`; SCC =
    /// result non-zero.
    Bfe(bool),
    /// `s_bfm_b32`: `((1 << S0[4:0]) - 1) << S1[4:0]`, SCC unchanged.
    Bfm,
    /// `s_cmpk_*`: SCC from the SGPR in the destination field against the 16-bit constant,
    /// sign-extended (true) or zero-extended (`Cmp`'s condition numbering).
    Cmpk(u8, bool),
    /// `s_cmp_eq_u64` (true), `s_cmp_lg_u64` (false).
    Cmp64(bool),
    /// `s_brev_b32` (SCC unchanged).
    Brev,
    /// `s_ff1_i32_b32` (GFX11's `s_ctz_i32_b32`): the lowest set bit's index, −1 for none;
    /// SCC unchanged.
    Ff1,
    /// GFX12's `s_add_nc_u64` (false), `s_sub_nc_u64` (true): SCC unchanged.
    AddSub64(bool),
    /// `s_getpc_b64`: the next instruction's address, known when the region is compiled
    /// (a region is compiled for one loaded code object, whose addresses its exits hold
    /// too); SCC unchanged.
    GetPc,
}

impl SAluOp {
    /// The 64-bit forms and those with a 64-bit intermediate (`lower`'s `salu64`).
    pub(crate) fn wide(self) -> bool {
        matches!(
            self,
            SAluOp::AddcU32
                | SAluOp::SubbU32
                | SAluOp::Mov64
                | SAluOp::Saveexec(_)
                | SAluOp::Saveexec32(_)
                | SAluOp::Logic64(_)
                | SAluOp::Cselect64
                | SAluOp::Not(true)
                | SAluOp::Shift64(_)
                | SAluOp::LshlAdd(_)
                | SAluOp::Cmp64(_)
                | SAluOp::AddSub64(_)
                | SAluOp::GetPc
        )
    }
}

/// Whether the host has FMA (Cranelift lowers a vector `fma` only with it).
fn host_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        true
    }
}

/// A scalar operand the compiled code reads as `Wave::sread` does: an SGPR/special register
/// by code, an inline integer or float constant, the literal.
fn scalar_ok(code: u16) -> bool {
    matches!(code, 0..=127 | 128..=208 | 240..=248 | 255)
}

/// A 64-bit scalar operand as `Wave::sread64` reads it (an SGPR pair, a constant).
fn scalar64_ok(code: u16) -> bool {
    matches!(code, 0..=126 | 128..=208 | 240..=248 | 255)
}

/// A vector source: a VGPR (not an AGPR) or a scalar operand.
fn vsrc_ok(code: u16) -> bool {
    (VGPR..AGPR).contains(&code) || scalar_ok(code)
}

/// gfx90a's packed f32: VOP3P without clamp, any op_sel/op_sel_hi (the half of a source
/// each result half reads) and neg_lo/neg_hi (`v_pk_mov_b32` reads op_sel only). A source is
/// a VGPR pair, an SGPR pair or a constant (one 32-bit value for both halves, as the
/// interpreter's `pk32_src`).
fn pk_f32_ok(i: &Inst, k: u8) -> bool {
    let n = if k == 2 { 3 } else { 2 };
    let pair = |c: u16| (VGPR..AGPR).contains(&c) && c + 1 < AGPR;
    let src = |c: u16| pair(c) || scalar64_ok(c);
    i.fmt == Fmt::Vop3p
        && i.sub == Sub::E32
        && i.omod == 0
        && !i.has(flag::CLAMP)
        && pair(i.dst)
        && i.src[..n].iter().all(|&c| src(c))
        && (k != 2 || host_fma())
}

/// `v_add_f64`/`v_mul_f64`/`v_fma_f64`/`v_fmac_f64` (`k` 0–3): VOP3 (or `v_fmac_f64`'s
/// VOP2) with abs/neg on the sources (not on `v_fmac_f64`'s accumulator, which the
/// interpreter reads plain), no clamp or omod, into a VGPR pair; each source a VGPR pair
/// (not running past the last VGPR, where the interpreter wraps) or a 64-bit scalar
/// operand, read as f64.
fn f64_ok(i: &Inst, k: u8) -> bool {
    let n = if k == 2 { 3 } else { 2 };
    let pair = |c: u16| (VGPR..AGPR).contains(&c) && c + 1 < AGPR;
    let src = |c: u16| pair(c) || scalar64_ok(c);
    (i.fmt == Fmt::Vop3 || k == 3 && i.fmt == Fmt::Vop2)
        && (k != 3 || (i.abs | i.neg) & 4 == 0)
        && i.sub == Sub::E32
        && i.omod | i.opsel == 0
        && !i.has(flag::CLAMP)
        && pair(i.dst)
        && i.src[..n].iter().all(|&c| src(c))
        && i.tys[..n].iter().all(|&t| t == Ty::F64)
        && (k < 2 || host_fma())
}

/// A 64-bit vector source: a VGPR pair or a 64-bit scalar operand.
fn scalar64_or_vgpr(code: u16) -> bool {
    (VGPR..AGPR).contains(&code) || scalar64_ok(code)
}

/// Whether `i`'s operation has a lowering at all (the run loop's cheap test for where blocks
/// may start: after an instruction without one).
#[inline]
pub(crate) fn may_compile(i: &Inst) -> bool {
    crate::ops::jit_lowering(i.op).is_some()
}

/// How `i` is compiled, or `None` when the interpreter must run it.
pub(crate) fn compilable(i: &Inst) -> Option<Lower> {
    let l = crate::ops::jit_lowering(i.op)?;
    let ok = match l {
        // The listed MUBUF keys are the cache write-backs and invalidates.
        Lower::Nop => matches!(i.fmt, Fmt::Sopp | Fmt::Sopk | Fmt::Mubuf),
        Lower::Branch(_) => i.fmt == Fmt::Sopp,
        // Not an SMEM load that may reach EXEC (its registers come back from the `Wave`
        // unseen by the full-EXEC variant and the lane-select cache; kernels never do it).
        Lower::Mem => exec::jit_fast::admits(i) && (i.fmt != Fmt::Smem || i.dst + 16 <= 126),
        Lower::Step => matches!(i.fmt, Fmt::Sopp | Fmt::Sopk),
        Lower::Barrier => i.fmt == Fmt::Sopp,
        Lower::SAlu(op) => {
            matches!(i.fmt, Fmt::Sop1 | Fmt::Sop2 | Fmt::Sopk | Fmt::Sopc)
                && (i.dst < 128 || matches!(op, SAluOp::Cmp(..) | SAluOp::Cmp64(_)))
                && match op {
                    SAluOp::Movk => true,
                    SAluOp::Mov => scalar_ok(i.src[0]),
                    SAluOp::Mov64 | SAluOp::Saveexec(_) => scalar64_ok(i.src[0]),
                    SAluOp::Saveexec32(_) => scalar_ok(i.src[0]),
                    SAluOp::Logic64(_) | SAluOp::Cselect64 => {
                        scalar64_ok(i.src[0]) && scalar64_ok(i.src[1])
                    }
                    SAluOp::Not(wide) => {
                        if wide {
                            scalar64_ok(i.src[0])
                        } else {
                            scalar_ok(i.src[0])
                        }
                    }
                    SAluOp::Shift64(_) => scalar64_ok(i.src[0]) && scalar_ok(i.src[1]),
                    SAluOp::Cmp64(_) | SAluOp::AddSub64(_) => {
                        scalar64_ok(i.src[0]) && scalar64_ok(i.src[1])
                    }
                    SAluOp::Brev | SAluOp::Ff1 => scalar_ok(i.src[0]),
                    SAluOp::Cmpk(..) => i.fmt == Fmt::Sopk,
                    // Into an SGPR pair below VCC (kernels address their globals so).
                    SAluOp::GetPc => i.dst < 106,
                    _ => scalar_ok(i.src[0]) && scalar_ok(i.src[1]),
                }
        }
        Lower::VAlu(VAluOp::PkF32(k)) => pk_f32_ok(i, k),
        Lower::VAlu(VAluOp::F64(k)) => f64_ok(i, k),
        Lower::VAlu(_) | Lower::VCmp | Lower::ReadFirstLane | Lower::ReadLane => {
            // abs/neg only on the sources of f32 operations (not on Fmac's accumulator).
            let float_mods = match l {
                Lower::VCmp => i.imm >> 5 & 15 == 1,
                Lower::VAlu(op) => {
                    matches!(
                        op,
                        VAluOp::FAdd
                            | VAluOp::FSub
                            | VAluOp::FSubRev
                            | VAluOp::FMul
                            | VAluOp::Fma
                            | VAluOp::FmaK(_)
                            | VAluOp::Rcp
                            | VAluOp::FUnary(_)
                            | VAluOp::MinMax(_)
                            | VAluOp::DivFmas
                            | VAluOp::DivFixup
                            | VAluOp::Cvt(2 | 3)
                    ) || (op == VAluOp::Fmac && (i.abs | i.neg) & 4 == 0)
                }
                _ => false,
            };
            let plain = matches!(i.fmt, Fmt::Vop1 | Fmt::Vop2 | Fmt::Vop3 | Fmt::Vopc)
                && i.sub == Sub::E32
                && (float_mods || i.abs | i.neg == 0)
                && i.opsel | i.omod == 0
                && !i.has(flag::CLAMP);
            plain
                && match l {
                    Lower::VCmp => lower_compare(i.imm) && vcmp_ok(i),
                    Lower::ReadFirstLane => i.dst < 128 && vsrc_ok(i.src[0]),
                    Lower::ReadLane => {
                        i.dst < 128 && (VGPR..AGPR).contains(&i.src[0]) && scalar_ok(i.src[1])
                    }
                    Lower::VAlu(op) => valu_ok(i, op),
                    _ => false,
                }
        }
    };
    ok.then_some(l)
}

fn lower_compare(imm: i32) -> bool {
    #[cfg(feature = "jit")]
    {
        lower::compare_supported(imm)
    }
    #[cfg(not(feature = "jit"))]
    {
        let _ = imm;
        false
    }
}

/// A compare's sources: 64-bit types read VGPR pairs (not running past the last VGPR, where
/// the interpreter wraps) or 64-bit scalars, the others 32-bit sources.
fn vcmp_ok(i: &Inst) -> bool {
    if matches!(i.imm >> 5 & 15, 2 | 5 | 8) {
        let pair = |c: u16| c < VGPR || c + 1 < AGPR;
        i.src[..2]
            .iter()
            .all(|&c| pair(c) && c < AGPR && scalar64_or_vgpr(c))
            && i.tys[..2].iter().all(|&t| matches!(t, Ty::I64 | Ty::F64))
    } else {
        vsrc_ok(i.src[0])
            && vsrc_ok(i.src[1])
            && i.tys[..2].iter().all(|&t| matches!(t, Ty::B32 | Ty::B16))
    }
}

fn valu_ok(i: &Inst, op: VAluOp) -> bool {
    if let VAluOp::Mad64(_) = op {
        let pair = |c: u16| c < VGPR || c + 1 < AGPR;
        return (VGPR..AGPR).contains(&i.dst)
            && pair(i.dst)
            && i.src[..2].iter().all(|&c| vsrc_ok(c))
            && i.tys[..2] == [Ty::B32, Ty::B32]
            && pair(i.src[2])
            && scalar64_or_vgpr(i.src[2])
            && matches!(i.tys[2], Ty::I64 | Ty::F64);
    }
    if let VAluOp::Shift64(_) = op {
        // The register pairs may not run past the last VGPR (the interpreter wraps there).
        let pair = |c: u16| c < VGPR || c + 1 < AGPR;
        return (VGPR..AGPR).contains(&i.dst)
            && pair(i.dst)
            && vsrc_ok(i.src[0])
            && i.tys[0] == Ty::B32
            && (pair(i.src[1]) && i.src[1] < AGPR && scalar64_or_vgpr(i.src[1]))
            && matches!(i.tys[1], Ty::I64 | Ty::F64);
    }
    let n = op.sources();
    let srcs = i.src[..n].iter().all(|&c| vsrc_ok(c)) && i.tys[..n].iter().all(|&t| t == Ty::B32);
    let special = match op {
        // GFX8's v_add/sub/subrev_u32 write a carry (the interpreter's carry path).
        VAluOp::Add | VAluOp::Sub | VAluOp::SubRev => i.gen != Gen::Gfx8,
        VAluOp::Cndmask => i.src[2] < 127,
        VAluOp::Carry(k) => k < 3 || i.src[2] < 127,
        VAluOp::Fma | VAluOp::Fmac | VAluOp::FmaK(_) | VAluOp::DivFmas => host_fma(),
        // Its flags into an SGPR (pair) or nowhere (GFX10's `null`), not EXEC.
        VAluOp::DivScale => !matches!(i.sdst, 126 | 127),
        VAluOp::Bfe(_) => i.src[1] < VGPR && i.src[2] < VGPR,
        _ => true,
    };
    (VGPR..AGPR).contains(&i.dst) && srcs && special
}

/// One compiled region: the compilable instructions reachable from a block start, with the
/// branches among them.
pub(crate) struct Block {
    f: BlockFn,
    /// Instructions in it.
    pub n: u32,
    /// The MODE bits it runs under ([`Block::runs`]): `w.mode & mode_mask == mode_want`, one
    /// test per entry. Vector ALU instructions need VGPR index mode off; any of them MODE's
    /// FP fields could change (`fpmode::mode_free`) needs their default (round to nearest
    /// even, denormals kept). Integer code runs under any MODE, e.g. gfx803's, whose kernels
    /// flush f32 denormals.
    mode_mask: u32,
    mode_want: u32,
    /// The wave size it was compiled for.
    wave32: bool,
    /// Its instructions: the compiled code passes their addresses to its calls (`lower_mem`).
    insts: Vec<(u64, Inst, Lower)>,
    /// The `s_endpgm`s it leaves for where its rows need not be current (`endpgm_exits`).
    ends: Vec<u64>,
    /// Where it starts, and the other addresses it may be entered at (its basic blocks').
    start: u64,
    entries: Vec<u64>,
    /// Its program's slots and its start's slot (where a recompiled block is published).
    home: Option<(Weak<Slots>, usize)>,
    /// Exits for want of the general variant (`Variants::Full`).
    misses: AtomicU32,
    /// The variants it was compiled with.
    variants: Variants,
    /// Whether it was compiled with lane-affine facts, and their misses.
    affine: bool,
    affine_misses: AtomicU32,
    /// The DS address shapes it was compiled with (`Request::ds_pred`).
    ds_pred: DsPred,
    /// The rows live at each address it was compiled with (`Request::live`).
    live: Live,
    /// Where it starts, as `Request::place`.
    place: String,
    /// The groups of four SGPRs its instructions may write ([`written_sgpr_groups`]).
    pub(crate) sgpr_groups: u32,
    /// Its pair variant (`pair_block`): null until compiled; `pair_tried` once asked for.
    pair: AtomicPtr<Block>,
    pair_tried: AtomicBool,
    /// A pair block's SGPRs (codes) the two waves must hold equal to enter it: those its
    /// instructions may read as values before writing them (`lower.rs`'s `pair.rs`).
    pub(crate) pair_equal: Vec<u8>,
    /// A pair block's ID rows (`Wave::id_rows` bits) that fresh waves may hold in lane 0
    /// alone (`Wave`'s `ID_ROWS_LAZY`): its entry takes them pending from lane 0, and every
    /// path of it that can observe them stores them first (`lower.rs`'s `Compiled`).
    pub(crate) lazy_ids: u8,
}

/// The groups of four SGPRs (`Wave::sgpr_dirty`) that `insts` may write: each one's named
/// destinations (an SMEM load's dwords, another SMEM instruction's up to 16, any other's
/// up to a pair, a compare's or carry's scalar one), and VCC, M0 and EXEC, which some write without naming them. A
/// region's calls into the interpreter run only these instructions.
pub(crate) fn written_sgpr_groups(insts: &[(u64, Inst, Lower)]) -> u32 {
    use crate::wave::sgpr_groups;
    const M0: u16 = 124;
    const EXEC: u16 = 126;
    let mut m = sgpr_groups(crate::decode::VCC, 2) | sgpr_groups(M0, 1) | sgpr_groups(EXEC, 2);
    for (_, i, _) in insts {
        use crate::ops::Op;
        let width = match i.op {
            Op::S_LOAD_DWORD | Op::S_BUFFER_LOAD_DWORD => 1,
            Op::S_LOAD_DWORDX2 | Op::S_BUFFER_LOAD_DWORDX2 => 2,
            Op::S_LOAD_DWORDX4 | Op::S_BUFFER_LOAD_DWORDX4 => 4,
            Op::S_LOAD_DWORDX8 | Op::S_BUFFER_LOAD_DWORDX8 => 8,
            _ if i.fmt == Fmt::Smem => 16,
            _ => 2,
        };
        m |= sgpr_groups(i.dst, width) | sgpr_groups(i.sdst, 2);
    }
    m
}

/// The MODE test of a region of `insts` (`Block::mode_mask`, `mode_want`): VGPR index mode
/// off with vector ALU code, the default FP fields with code they could change.
fn mode_test(insts: &[(u64, Inst, Lower)]) -> (u32, u32) {
    let valu = insts.iter().any(|(_, _, l)| vector_alu(l));
    let fp = insts
        .iter()
        .any(|(_, i, l)| vector_alu(l) && !exec::fpmode::mode_free(i));
    // `v_max_f32`/`v_min_f32` are compiled for IEEE mode, the compute default.
    let ieee = insts
        .iter()
        .any(|(_, _, l)| matches!(l, Lower::VAlu(VAluOp::MinMax(_))));
    // The fields are apart, so one masked compare tests them all.
    const _: () = assert!(exec::MODE_GPR_IDX_EN & exec::fpmode::FP_MASK == 0);
    const _: () = assert!(exec::MODE_IEEE & (exec::fpmode::FP_MASK | exec::MODE_GPR_IDX_EN) == 0);
    let ieee = if ieee { exec::MODE_IEEE } else { 0 };
    let mask = (if valu { exec::MODE_GPR_IDX_EN } else { 0 })
        | (if fp { exec::fpmode::FP_MASK } else { 0 })
        | ieee;
    (mask, (if fp { exec::fpmode::FP_DEFAULT } else { 0 }) | ieee)
}

/// Whether the region runs this instruction as compiled vector ALU code (not as a call into
/// the interpreter, which reads MODE itself).
fn vector_alu(l: &Lower) -> bool {
    !matches!(
        l,
        Lower::SAlu(_) | Lower::Nop | Lower::Branch(_) | Lower::Mem | Lower::Step | Lower::Barrier
    )
}

impl Block {
    /// Whether this block may run for `w` now (else the interpreter runs its instructions).
    #[inline]
    pub(crate) fn runs(&self, w: &Wave) -> bool {
        w.wave32 == self.wave32 && w.mode & self.mode_mask == self.mode_want
    }

    /// Runs the region on `w` from `w.pc` for at most `budget` instructions; returns how
    /// many it executed (0: none, the interpreter runs the next one) and leaves `w.pc` at the
    /// next instruction, the calls into the interpreter it made, and whether it ended with
    /// `s_barrier` (the wave is then to be parked). `w.instructions` is the
    /// caller's. With a `journal`, its global stores first record the memory they overwrite
    /// (`verify`), which makes every store a call.
    #[inline]
    pub(crate) fn run(
        &'static self,
        w: &mut Wave,
        budget: u32,
        env: &mut Env,
        journal: Option<&mut exec::jit_fast::Journal>,
    ) -> (u32, u32, bool) {
        let mut ctx = CallCtx::new(env, journal);
        // SAFETY: `ctx` was just made from `env`, borrowed for the whole call.
        let (n, parked) = unsafe { self.call(&mut ctx, w, budget) };
        (n, ctx.calls, parked)
    }

    /// [`Block::run`] through a `ctx` prepared beforehand (a slice prepares one for all its
    /// region entries, [`CallCtx::new`]): sets its wave to `w` and clears its outputs, calls
    /// the region and counts its misses. Returns the instructions executed and whether the
    /// wave is to be parked at a barrier.
    ///
    /// # Safety
    /// `ctx` was made by [`CallCtx::new`] from an `Env` that is still live and in place, with
    /// the same `lds` and `cache`, and nothing else borrows it during the call.
    #[inline]
    pub(crate) unsafe fn call(
        &'static self,
        ctx: &mut CallCtx,
        w: &mut Wave,
        budget: u32,
    ) -> (u32, bool) {
        let v = w.v.as_mut_ptr().cast::<u32>();
        let wp: *mut Wave = w;
        ctx.wave = wp;
        ctx.calls = 0;
        ctx.parked = 0;
        ctx.missed = 0;
        ctx.affine_missed = 0;
        // SAFETY: `f` was generated by `lower` for this region's instructions; it reads and
        // writes only the 128 dwords of `w.s`, the 512 rows of `w.v` (register indices are
        // reduced modulo the file when compiled), the byte of `w.scc` (storing 0 or 1, valid
        // for a bool), `w.lane_ops` and `w.pc` (the last three at their offsets from the
        // scalar file's pointer, `SCC_AT` …, within the same `Wave`), all live and
        // exclusively borrowed here and derived from `wp`, which its calls into the
        // interpreter (`lower_mem`) also use while the region's own code is stopped (the
        // rows' heap buffer does not move in those calls), and `w.stored` (0 or 1),
        // `w.tile_marks`, `w.ds_marks` and `w.ds_tops`, and reads `w.instructions` and
        // `w.id_rows` (all at their offsets from the scalar file's pointer, not through
        // `ctx.wave`, which is `wp`); `ctx` outlives the call,
        // and the `Inst` addresses the code passes point into `self.insts`. Its other
        // pointers are the live `Env`'s ([`CallCtx::new`]'s contract): its inline memory
        // accesses (`inline_mem.rs`) touch only ranges it first found inside one of
        // `ctx.windows`, a range of the memory map at the map's current generation, which
        // the runtime keeps allocated while kernels may use it (as for the interpreter's
        // accesses, `memory::host`); it writes `*ctx.last_load` and `ctx.windows` (through
        // its refresh calls), the `Env`'s region cache's. Inline DS accesses stay inside
        // `ctx.lds[..lds_len]` (checked per instruction), the work-group's LDS, touched by
        // the calls only through that same `Env`, while the code is stopped.
        let n = unsafe {
            (self.f)(
                std::ptr::addr_of_mut!((*wp).s).cast::<u32>(),
                v,
                ctx,
                u64::from(budget),
            )
        };
        if ctx.affine_missed | ctx.missed != 0 {
            if let Some((variants, affine)) =
                self.count_exit(ctx.missed != 0, ctx.affine_missed != 0)
            {
                self.recompile(variants, affine);
            }
        }
        (n, ctx.parked != 0)
    }

    /// This region compiled for a pair of wave32s (`lower.rs`'s `pair.rs`): asked for on the
    /// first call and compiled in the background like any region (waited for only under
    /// `sync` and `verify`, which compile on the spot); `None` until it is published, when
    /// it cannot be, or for a pair block itself.
    pub(crate) fn pair_block(&'static self) -> Option<&'static Block> {
        let p = self.pair.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: a pointer stored by `publish_pair`, to a leaked (never freed) block.
            return Some(unsafe { &*p });
        }
        if !self.wave32 || self.pair_tried.swap(true, Ordering::AcqRel) {
            return None;
        }
        if !matches!(mode(), Mode::Sync | Mode::Verify) {
            submit(self.pair_request(Reply::Pair(self)));
            return None;
        }
        let (tx, rx) = mpsc::channel();
        if !submit(self.pair_request(Reply::Wait(tx))) {
            return None;
        }
        let b = rx.recv().ok().flatten()?;
        self.publish_pair(b);
        Some(b)
    }

    /// The request compiling this region as a pair region.
    fn pair_request(&self, reply: Reply) -> Request {
        Request {
            insts: self.insts.clone(),
            ends: self.ends.clone(),
            start: self.start,
            wave32: true,
            variants: Variants::Both,
            // Lane-affine facts over both waves' lanes (tested; no tiles, `lower.rs`).
            affine: affine_on(),
            ds_pred: DsPred::new(),
            live: Live::new(),
            place: format!("{} pair", self.place),
            home: None,
            pair: true,
            replaces: None,
            reply,
        }
    }

    /// Makes `b` this region's pair variant, for `pair_block` to find.
    fn publish_pair(&self, b: &'static Block) {
        PAIR_BLOCKS.fetch_add(1, Ordering::Relaxed);
        self.pair
            .store(std::ptr::from_ref(b).cast_mut(), Ordering::Release);
    }

    /// Runs this pair block (`pair_block`) on waves `a` and `b` (both at its entry, SCC and
    /// every SGPR but VCC_LO and EXEC_LO equal: `pairable`) for at most `budget`
    /// instructions each, as [`Block::call`]; both waves then executed the returned count.
    ///
    /// # Safety
    /// As [`Block::call`]; `a` and `b` are distinct waves.
    #[inline]
    pub(crate) unsafe fn call_pair(
        &'static self,
        ctx: &mut CallCtx,
        a: &mut Wave,
        b: &mut Wave,
        budget: u32,
    ) -> (u32, bool) {
        ctx.s_b = b.s.as_mut_ptr();
        ctx.v_b = b.v.as_mut_ptr().cast::<u32>();
        // A's waits fence for B's stores too; B's are A's after (a fence more is harmless).
        a.stored |= b.stored;
        // The tile and DS marks the region's entry keeps or clears for A; B's are dropped
        // (tested again where a later region needs them).
        (b.tile_marks, b.ds_marks) = (0, 0);
        // SAFETY: as `call`'s; the region reaches B's files through `ctx.v_b` and through
        // A's scalar file plus one `Wave`, which its entry checks equal to `ctx.s_b` (else it
        // runs nothing): both point into `b`, exclusively borrowed here and distinct from `a`.
        let r = unsafe { self.call(ctx, a, budget) };
        b.stored = a.stored;
        r
    }

    /// Counts a run that left for want of the general variant (`missed`) or because a
    /// lane-affine fact did not hold (`affine_missed`); returns how to compile the region
    /// again when the count reaches [`MISS_LIMIT`]: with both variants (and its facts) for
    /// the general variant's misses, without facts (its variants kept: a partial EXEC then
    /// still has its misses) for the facts'. A fact that does not hold in the full-EXEC
    /// variant goes on in the general one, so in a region compiled without it the exit is
    /// noted as both: it counts as the fact's miss alone. (Counted as both, such a region
    /// was compiled again twice at its 64th run, with both variants and the facts that miss
    /// and without facts, and the first replacement again when its facts missed: three
    /// compiles where one does, which under load fell into the next dispatches.)
    #[cold]
    fn count_exit(&self, missed: bool, affine_missed: bool) -> Option<(Variants, bool)> {
        let limit = |n: &AtomicU32| n.fetch_add(1, Ordering::Relaxed) + 1 == MISS_LIMIT;
        if affine_missed {
            if !limit(&self.affine_misses) {
                return None;
            }
            if std::env::var_os("HSAEMU_JIT_DEBUG").is_some() {
                eprintln!(
                    "hsaemu-jit: region at {:#x}: {MISS_LIMIT} lane-affine misses, compiled again without",
                    self.start
                );
            }
            return Some((self.variants, false));
        }
        (missed && limit(&self.misses)).then_some((Variants::Both, self.affine))
    }

    /// Queues this region again with `variants` (and lane-affine facts when `affine`), to
    /// replace this block where it is published.
    fn recompile(&'static self, variants: Variants, affine: bool) {
        if let Some(r) = self.replacement(variants, affine) {
            submit(r);
        }
    }

    /// The request compiling this region again (`recompile`), its instructions marked
    /// pending meanwhile (`Slots::pending`): the waves leaving where the facts missed start
    /// there, and such a start made hot would be compiled on the same facts (and again
    /// without) while the replacement is on its way.
    fn replacement(&'static self, variants: Variants, affine: bool) -> Option<Request> {
        let (slots, k) = self
            .home
            .as_ref()
            .and_then(|(s, k)| Some((s.upgrade()?, *k)))?;
        slots.set_pending(k, self.start, &self.insts, true);
        Some(Request {
            insts: self.insts.clone(),
            ends: self.ends.clone(),
            start: self.start,
            wave32: self.wave32,
            variants,
            affine,
            ds_pred: if affine {
                self.ds_pred.clone()
            } else {
                DsPred::new()
            },
            live: self.live.clone(),
            place: self.place.clone(),
            home: self.home.clone(),
            pair: false,
            replaces: Some(self),
            reply: Reply::Publish(slots, k),
        })
    }
}

/// Per program: an execution counter and a published block per dword offset.
pub(crate) struct Slots {
    hits: Box<[AtomicU32]>,
    blocks: Box<[AtomicPtr<Block>]>,
    /// Instructions of a region being compiled: a start among them that becomes hot
    /// meanwhile starts counting again (the region will be entered there, or, when the
    /// start is not one of its basic blocks, becomes hot again later).
    pending: Box<[AtomicBool]>,
    /// Instructions inside a compiled region that are not among its entries: a wave starts
    /// there after its turn ended in the middle of a basic block, or after the interpreter
    /// ran an access the region declined; such a start is compiled only at
    /// [`INSIDE_FACTOR`] times the threshold.
    inside: Box<[AtomicBool]>,
    /// Starts a wave reached with a partial EXEC while they were counted (`Variants`).
    partial: Box<[AtomicBool]>,
    /// Starts sent to the compiler that were executed again since it last cleared the flag
    /// (`still_running`).
    ran: Box<[AtomicBool]>,
}

/// How much hotter a start inside a compiled region must be (see `Slots::inside`): a wave
/// resuming there runs at most one pass through the region's code in the interpreter before
/// it reaches an entry.
const INSIDE_FACTOR: u32 = 16;

/// The slot of the instruction at `pc` in a program whose slot `k` is the one at `start`.
fn index_at(k: usize, start: u64, pc: u64) -> Option<usize> {
    k.checked_add_signed((pc.wrapping_sub(start) as i64 / 4) as isize)
}

/// `hits` value once a start was sent to the compiler (it is never sent again).
const SENT: u32 = u32::MAX;
/// `hits` value of a start whose request waits in [`DEFERRED_REQUESTS`]: its next
/// execution sends it to the compiler again.
const DEFERRED: u32 = u32::MAX - 1;

impl Slots {
    pub(crate) fn new(n: usize) -> Slots {
        Slots {
            hits: (0..n).map(|_| AtomicU32::new(0)).collect(),
            blocks: (0..n)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            pending: (0..n).map(|_| AtomicBool::new(false)).collect(),
            inside: (0..n).map(|_| AtomicBool::new(false)).collect(),
            partial: (0..n).map(|_| AtomicBool::new(false)).collect(),
            ran: (0..n).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// The compiled block starting at dword `k`.
    #[inline]
    pub(crate) fn block(&self, k: usize) -> Option<&'static Block> {
        let p = self.blocks.get(k)?.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was published from a leaked `Box<Block>` (never freed).
        unsafe { p.as_ref() }
    }

    /// Publishes `b`, compiled for the start at dword `k`, there and at its other entries
    /// that have no block yet (a wave the budget stopped inside a loop resumes at one of
    /// its basic blocks: entering the region there, it is not compiled again from there).
    /// A recompiled block (`replaces`) takes the place of the one it replaces, and only
    /// while that one is still there: a block compiled again twice (its general variant's
    /// misses, then its facts') is replaced once, by the first to come, which later misses
    /// of its own replace in turn.
    fn publish(&self, k: usize, b: &'static Block, replaces: Option<&'static Block>) {
        let p = std::ptr::from_ref(b).cast_mut();
        let old = replaces.map_or(std::ptr::null_mut(), |o| std::ptr::from_ref(o).cast_mut());
        if old.is_null() {
            self.blocks[k].store(p, Ordering::Release);
        } else if self.blocks[k]
            .compare_exchange(old, p, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        for (pc, _, _) in &b.insts {
            if let Some(f) = index_at(k, b.start, *pc).and_then(|j| self.inside.get(j)) {
                f.store(true, Ordering::Relaxed);
            }
        }
        for &e in &b.entries {
            let Some(j) = index_at(k, b.start, e) else {
                continue;
            };
            if let (Some(slot), Some(h)) = (self.blocks.get(j), self.hits.get(j)) {
                let swap =
                    |from| slot.compare_exchange(from, p, Ordering::Release, Ordering::Relaxed);
                if swap(std::ptr::null_mut()).is_ok() || (!old.is_null() && swap(old).is_ok()) {
                    h.store(SENT, Ordering::Relaxed);
                }
            }
        }
    }

    /// Counts one execution of the block start at `k`; true exactly once, when it becomes
    /// hot.
    #[inline]
    fn hit(&self, k: usize, threshold: u32) -> bool {
        let Some(h) = self.hits.get(k) else {
            return false;
        };
        let n = h.load(Ordering::Relaxed);
        if n == SENT {
            if let Some(r) = self.ran.get(k).filter(|r| !r.load(Ordering::Relaxed)) {
                r.store(true, Ordering::Relaxed);
            }
            return false;
        }
        if n == DEFERRED {
            if h.compare_exchange(DEFERRED, SENT, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                self.resume(k);
            }
            return false;
        }
        // Racing waves may lose counts; being late by a few executions does not matter.
        if n + 1 > threshold && self.pending[k].load(Ordering::Relaxed) {
            h.store(0, Ordering::Relaxed);
            return false;
        }
        h.store(n + 1, Ordering::Relaxed);
        let threshold = if self.inside[k].load(Ordering::Relaxed) {
            threshold.saturating_mul(INSIDE_FACTOR)
        } else {
            threshold
        };
        if n + 1 > threshold && h.swap(SENT, Ordering::Relaxed) != SENT {
            self.ran[k].store(false, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Sends the deferred request for the start at dword `k` to the compiler again: the
    /// start runs again ([`DEFERRED`]).
    #[cold]
    fn resume(&self, k: usize) {
        let r = {
            let mut d = deferred();
            let at = d.iter().position(|r| match &r.reply {
                Reply::Publish(slots, j) => *j == k && std::ptr::eq(Arc::as_ptr(slots), self),
                _ => false,
            });
            at.map(|i| d.swap_remove(i))
        };
        if let Some(r) = r {
            self.set_pending(k, r.start, &r.insts, true);
            send_again(r);
        }
    }

    /// The variants to generate for the region `insts` from the start at dword `k`: the
    /// full-EXEC one alone when no start among its instructions saw a partial EXEC in the
    /// executions counted. Both under `sync`/`verify`, which compile at a start's first
    /// execution, when nothing has been seen yet.
    fn variants(&self, k: usize, start: u64, insts: &[(u64, Inst, Lower)]) -> Variants {
        match mode() {
            Mode::On => {}
            // `sync` compiles every block start at its first execution: a region that writes
            // EXEC gets the general variant alone (half the compile time). `verify` and
            // `run_words` (`compile_now`) generate and check both.
            Mode::Sync if insts.iter().any(|(_, i, l)| lower::writes_exec(i, *l)) => {
                return Variants::General;
            }
            _ => return Variants::Both,
        }
        let partial = |pc: u64| {
            index_at(k, start, pc)
                .and_then(|j| self.partial.get(j))
                .is_some_and(|p| p.load(Ordering::Relaxed))
        };
        if insts.iter().any(|(pc, _, _)| partial(*pc)) {
            Variants::Both
        } else {
            Variants::Full
        }
    }

    /// Marks the instructions of the region compiled for the start at dword `k` as pending
    /// (`on`) or not.
    fn set_pending(&self, k: usize, start: u64, insts: &[(u64, Inst, Lower)], on: bool) {
        for (pc, _, _) in insts {
            if let Some(p) = index_at(k, start, *pc).and_then(|j| self.pending.get(j)) {
                p.store(on, Ordering::Relaxed);
            }
        }
    }
}

/// Counts of what the tier did in this process (tests and `hsaemu bench` read them).
pub(crate) static COMPILED_BLOCKS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILED_INSTS: AtomicU64 = AtomicU64::new(0);
pub(crate) static FAILED_BLOCKS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILE_NANOS: AtomicU64 = AtomicU64::new(0);
pub(crate) static BLOCK_RUNS: AtomicU64 = AtomicU64::new(0);
pub(crate) static CALLS: AtomicU64 = AtomicU64::new(0);
pub(crate) static AFFINE_BLOCKS: AtomicU64 = AtomicU64::new(0);
/// DS loads compiled into a run's group passes on a predicted address shape.
pub(crate) static DS_RUN_LOADS: AtomicU64 = AtomicU64::new(0);
/// Rows of those loads compiled not to be stored into the `Wave` (dead after the run).
pub(crate) static DS_DEAD_ROWS: AtomicU64 = AtomicU64::new(0);
/// `v_fmac_f32` chains compiled (each ends in one NaN test; `lower.rs`'s `fmac_chain_end`).
pub(crate) static FMAC_CHAINS: AtomicU64 = AtomicU64::new(0);
/// NaN segments compiled (each ends in one NaN test; `nan_seg.rs`).
pub(crate) static NAN_SEGMENTS: AtomicU64 = AtomicU64::new(0);
/// Barrier exits compiled with a tail (`after_barrier`: instructions after the `s_barrier`
/// run before the wave parks).
pub(crate) static BARRIER_TAILS: AtomicU64 = AtomicU64::new(0);
/// Pair regions compiled (`Block::pair_block`) and pair calls made (`PAIR_RUNS`, added
/// per slice by the dispatcher).
pub(crate) static PAIR_BLOCKS: AtomicU64 = AtomicU64::new(0);
pub(crate) static PAIR_RUNS: AtomicU64 = AtomicU64::new(0);
/// Work-groups whose pairs all ran streamed (`dispatch.rs`'s `stream_pairs`), added per
/// worker by the dispatcher.
pub(crate) static STREAMED_GROUPS: AtomicU64 = AtomicU64::new(0);
/// Wave-instructions the interpreter ran in dispatches with the tier on, added per worker
/// by the dispatcher.
pub(crate) static INTERPRETED: AtomicU64 = AtomicU64::new(0);

/// The region starting at `pc` of `fetch`'s program: the compilable instructions reachable
/// from it through fall-through and branches (at most [`MAX_BLOCK`]), by address, each with
/// its lowering. Control leaving it (an instruction that is not compilable, or one past the
/// limit) leaves the compiled code. Without `shared_loads`, a load from memory other agents
/// may write (global, FLAT, SMEM) is left out too: `HSAEMU_JIT=verify` dispatches run each
/// region twice, and such a load may read another value the second time (a flag the host
/// sets, a value another work-group updates atomically), which is no difference in the tier.
fn collect(
    fetch: &dyn Fn(u64) -> Option<Inst>,
    pc: u64,
    shared_loads: bool,
) -> Vec<(u64, Inst, Lower)> {
    let mut found = std::collections::BTreeMap::new();
    let mut work = vec![pc];
    // The region's size in plain instructions (`weight`), at most MAX_BLOCK; under
    // `HSAEMU_JIT=sync`, which compiles a region at every block start at once (hot or not),
    // at most SYNC_BLOCK.
    let max = if mode() == Mode::Sync {
        SYNC_BLOCK
    } else {
        MAX_BLOCK
    };
    let mut size = 0;
    while let Some(at) = work.pop() {
        if size >= max || found.contains_key(&at) {
            continue;
        }
        let Some(i) = fetch(at) else { continue };
        let Some(l) = compilable(&i).filter(|_| shared_loads || !is_shared_load(&i)) else {
            if std::env::var_os("HSAEMU_JIT_DEBUG").is_some() {
                eprintln!("hsaemu-jit: region exit before `{}`", i.describe());
            }
            continue;
        };
        found.insert(at, (i, l));
        size += weight(&i, l);
        let next = at + u64::from(i.size);
        match l {
            Lower::Branch(c) => {
                if c != 0 {
                    work.push(next);
                }
                work.push(branch_target(at, &i));
            }
            // The wave waits there: the region ends, after the instructions right after
            // the barrier that touch only the wave's own registers (`after_barrier`).
            Lower::Barrier => {
                let (mut a, mut tail) = (next, Vec::new());
                while !found.contains_key(&a) {
                    let t = fetch(a).and_then(|t| {
                        compilable(&t)
                            .filter(|&l| after_barrier(&t, l))
                            .map(|l| (t, l))
                    });
                    let Some((t, l)) = t else { break };
                    tail.push((a, t, l));
                    a += u64::from(t.size);
                }
                // Up to its last vector ALU operation: waits and no-ops alone gain nothing
                // there (the reduction's and gfx90a matmul's tails would cost the count).
                let valu = tail
                    .iter()
                    .rposition(|(_, _, l)| matches!(l, Lower::VAlu(_)));
                for (a, t, l) in tail.into_iter().take(valu.map_or(0, |k| k + 1)) {
                    if size >= max {
                        break;
                    }
                    found.insert(a, (t, l));
                    size += weight(&t, l);
                }
            }
            _ => work.push(next),
        }
    }
    found.into_iter().map(|(a, (i, l))| (a, i, l)).collect()
}

/// Whether `i` (lowered as `l`) may run in the region call that ran the `s_barrier` before
/// it, before the work-group's other waves reach the barrier: it reads and writes only the
/// wave's own registers (a vector ALU operation writing no EXEC) or nothing (no-ops, waits),
/// so no other wave can tell. The region parks the wave after such a *barrier tail*, which
/// its next turn would have begun with (gfx1030 matmul's eight `v_fmac_f32`s after the
/// second barrier read 16 rows loaded before it: run before it, those rows die in the run).
pub(crate) fn after_barrier(i: &Inst, l: Lower) -> bool {
    match l {
        Lower::VAlu(VAluOp::Carry(_) | VAluOp::Mad64(_) | VAluOp::DivScale) => {
            !matches!(i.sdst, 126 | 127)
        }
        // It may leave the region (a lane of VCC set).
        Lower::VAlu(VAluOp::DivFmas) => false,
        Lower::VAlu(_) | Lower::Nop | Lower::Step => true,
        _ => false,
    }
}

/// The addresses a region `insts` (from `collect`) leaves for that hold an `s_endpgm`: after
/// it nothing reads the wave's VGPRs (the dispatcher ends the wave there, `dispatch.rs`), so
/// rows the region wrote on lane-affine facts need not be stored at those exits.
fn endpgm_exits(fetch: &dyn Fn(u64) -> Option<Inst>, insts: &[(u64, Inst, Lower)]) -> Vec<u64> {
    let inside: std::collections::HashSet<u64> = insts.iter().map(|(pc, _, _)| *pc).collect();
    let mut ends: Vec<u64> = insts
        .iter()
        .flat_map(|(pc, i, l)| {
            let next = pc + u64::from(i.size);
            match l {
                Lower::Branch(0) => vec![branch_target(*pc, i)],
                Lower::Branch(_) => vec![branch_target(*pc, i), next],
                Lower::Barrier => vec![],
                _ => vec![next],
            }
        })
        .filter(|a| !inside.contains(a))
        .filter(|&a| fetch(a).is_some_and(|i| i.op == crate::ops::Op::S_ENDPGM))
        .collect();
    ends.sort_unstable();
    ends.dedup();
    ends
}

/// What an instruction costs a region's compile time, in plain instructions: the 64-bit
/// operations lowered lane by lane (`v_mad_u64_u32`, a 64-bit shift by a register) count 8,
/// so a region of many of them stays small (`HSAEMU_JIT=sync` compiles a region at every
/// block start).
fn weight(i: &Inst, l: Lower) -> usize {
    match l {
        Lower::VAlu(VAluOp::Mad64(_)) => 8,
        Lower::VAlu(VAluOp::Shift64(_)) if i.src[0] < 128 || i.src[0] >= VGPR => 8,
        _ => 1,
    }
}

/// The target of the branch `i` at `pc` (`PC + 4 + SIMM16 * 4`, as the interpreter's).
pub(crate) fn branch_target(pc: u64, i: &Inst) -> u64 {
    (pc as i64 + 4 + i64::from(i.imm) * 4) as u64
}

/// A load from global memory (GLOBAL, FLAT, SMEM), or a GLOBAL/FLAT atomic (which reads it
/// too, and which `verify`'s journal does not undo: another work-group's atomic on the same
/// word may come between the two runs).
fn is_shared_load(i: &Inst) -> bool {
    i.fmt == Fmt::Smem
        || (matches!(i.fmt, Fmt::Global | Fmt::Flat)
            && matches!(
                i.mem.kind,
                crate::decode::Kind::Load | crate::decode::Kind::Atomic
            ))
}

enum Reply {
    Publish(Arc<Slots>, usize),
    Wait(mpsc::Sender<Option<&'static Block>>),
    /// The pair variant of this block (`Block::pair_block`).
    Pair(&'static Block),
}

struct Request {
    insts: Vec<(u64, Inst, Lower)>,
    /// Addresses outside the region holding an `s_endpgm` (`endpgm_exits`).
    ends: Vec<u64>,
    start: u64,
    wave32: bool,
    variants: Variants,
    /// Whether to use lane-affine facts (`lower.rs`'s `affine.rs`).
    affine: bool,
    /// The DS address rows' shapes as the requesting wave held them (`lower.rs`'s
    /// `predict_ds_shapes`), used with lane-affine facts: a run's group pass takes those
    /// loads in that shape alone, tested before it (a miss is a lane-fact miss).
    ds_pred: DsPred,
    /// The rows live at each address (DS load rows dead after a run are not stored).
    live: Live,
    /// Where the region starts, for the profiler's name of its code (`region_label`): the
    /// kernel's symbol and the offset in it (`matmul_tiled+0x1a4`), or the address.
    place: String,
    home: Option<(Weak<Slots>, usize)>,
    /// Compiled as a pair region (two wave32s in one call, `lower.rs`'s `pair.rs`).
    pair: bool,
    /// The block this one replaces where it is published (a recompile after misses).
    replaces: Option<&'static Block>,
    reply: Reply,
}

/// The compiler thread's queue (started on first use; `None` when the generator cannot be
/// made for this host, and then nothing is compiled).
fn queue() -> Option<&'static mpsc::Sender<Request>> {
    static Q: OnceLock<Option<mpsc::Sender<Request>>> = OnceLock::new();
    Q.get_or_init(start_compiler).as_ref()
}

/// Requests sent to the compiler thread and not yet handled (published, refused or
/// answered; a deferred one is not handled yet).
static QUEUED: AtomicU64 = AtomicU64::new(0);

/// Requests the compiler thread put aside because their start had stopped running when it
/// came to them (`still_running`): the start's next execution sends its request again
/// (`Slots::resume`), and [`wait_compiled`] sends them all.
static DEFERRED_REQUESTS: std::sync::Mutex<Vec<Request>> = std::sync::Mutex::new(Vec::new());

fn deferred() -> std::sync::MutexGuard<'static, Vec<Request>> {
    DEFERRED_REQUESTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Callers of [`wait_compiled`] waiting now: while there are any, nothing is deferred.
static FLUSHING: AtomicU32 = AtomicU32::new(0);

/// How long the compiler waits for a request's start to run again before deferring it.
const RUNNING_WAIT: std::time::Duration = std::time::Duration::from_millis(2);

/// Whether request `r`'s start still runs: executed again (in the interpreter) within
/// [`RUNNING_WAIT`] of the compiler taking the request up. A hot start that stopped (its
/// dispatch ended while the request waited behind others, or while the code generator was
/// busy) may never run again, as in the libraries' kernels that a program dispatches once;
/// compiled then, its code was never called (rocsparse_algorithms: 21 of 23 regions, 1 of
/// its 1.1 CPU-s of compiling kept). Only first requests of a start are tested: a recompile
/// (`replaces`) and a pair variant are asked for by a region that runs, and `sync`/`verify`
/// wait for their answer.
fn still_running(r: &Request) -> bool {
    let Reply::Publish(slots, k) = &r.reply else {
        return true;
    };
    let (Some(ran), Some(block)) = (slots.ran.get(*k), slots.blocks.get(*k)) else {
        return true;
    };
    if r.replaces.is_some() || FLUSHING.load(Ordering::SeqCst) != 0 {
        return true;
    }
    ran.store(false, Ordering::Relaxed);
    let t = std::time::Instant::now();
    loop {
        // A block published at the start meanwhile (another region's entry) runs there
        // instead: this one replaces it, as before.
        if ran.load(Ordering::Relaxed) || !block.load(Ordering::Relaxed).is_null() {
            return true;
        }
        if t.elapsed() >= RUNNING_WAIT {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
}

/// Puts `r` aside in [`DEFERRED_REQUESTS`] (it stays counted in [`QUEUED`]): the start's
/// next execution sends it again.
fn defer(r: Request) {
    let Reply::Publish(slots, k) = &r.reply else {
        return;
    };
    let (slots, k) = (slots.clone(), *k);
    slots.set_pending(k, r.start, &r.insts, false);
    let mut d = deferred();
    d.push(r);
    // Under the lock: a start that finds DEFERRED finds its request (`Slots::resume`).
    slots.hits[k].store(DEFERRED, Ordering::Relaxed);
}

/// Sends a request counted in [`QUEUED`] already (deferred) to the compiler again.
fn send_again(r: Request) {
    if queue().is_some_and(|q| q.send(r).is_ok()) {
        return;
    }
    QUEUED.fetch_sub(1, Ordering::SeqCst);
}

/// Sends `r` to the compiler thread (if there is one), counted in [`QUEUED`] until handled.
fn submit(r: Request) -> bool {
    let Some(q) = queue() else {
        return false;
    };
    QUEUED.fetch_add(1, Ordering::SeqCst);
    let sent = q.send(r).is_ok();
    if !sent {
        QUEUED.fetch_sub(1, Ordering::SeqCst);
    }
    sent
}

/// Waits until the compiler thread has handled every region sent to it so far, or `limit`
/// has passed; whether it has. After a dispatch returns, every region its waves made hot
/// (or sent to be compiled again) is then published or refused, so the next dispatch runs
/// the code a long-running program would reach (regions deferred because their start had
/// stopped running are compiled too, `still_running`). For tests and tools; a time-based
/// wait cannot tell a slow compile from none on a loaded machine.
pub fn wait_compiled(limit: std::time::Duration) -> bool {
    let t = std::time::Instant::now();
    FLUSHING.fetch_add(1, Ordering::SeqCst);
    let done = loop {
        let again: Vec<Request> = deferred().drain(..).collect();
        for r in again {
            if let Reply::Publish(slots, k) = &r.reply {
                let _ = slots.hits[*k].compare_exchange(
                    DEFERRED,
                    SENT,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            send_again(r);
        }
        if QUEUED.load(Ordering::SeqCst) == 0 {
            break true;
        }
        if t.elapsed() >= limit {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    FLUSHING.fetch_sub(1, Ordering::SeqCst);
    done
}

#[cfg(feature = "jit")]
fn start_compiler() -> Option<mpsc::Sender<Request>> {
    let (tx, rx) = mpsc::channel::<Request>();
    let (ok_tx, ok_rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("hsaemu-jit".into())
        .spawn(move || {
            let mut c = match lower::Compiler::new() {
                Ok(c) => {
                    let _ = ok_tx.send(true);
                    c
                }
                Err(_) => {
                    let _ = ok_tx.send(false);
                    return;
                }
            };
            for r in rx {
                if !still_running(&r) {
                    defer(r);
                    continue;
                }
                let t = thread_cpu_nanos();
                let compiled = compile_guarded(&mut c, &r);
                // A compiled region's starts stop waiting once it is published (below): in
                // between, a start made hot would be compiled on its own.
                if let (Reply::Publish(slots, k), Err(_)) = (&r.reply, &compiled) {
                    slots.set_pending(*k, r.start, &r.insts, false);
                }
                if let (Err(e), true) = (&compiled, std::env::var_os("HSAEMU_JIT_DEBUG").is_some())
                {
                    let first = r
                        .insts
                        .first()
                        .map(|(_, i, _)| i.describe())
                        .unwrap_or_default();
                    let e: String = e.chars().take(600).collect();
                    eprintln!("hsaemu-jit: block at `{first}` not compiled: {e}");
                }
                let debug = std::env::var_os("HSAEMU_JIT_DEBUG").is_some();
                let named = compiled
                    .as_ref()
                    .ok()
                    .filter(|_| debug)
                    .map(|c| (c.name.clone(), c.size));
                let n = r.insts.len();
                let block = compiled.ok().map(|c| {
                    perf_map(c.f as usize, c.size, &c.name);
                    let (f, entries, pair_equal, lazy_ids) =
                        (c.f, c.entries, c.pair_equal, c.lazy_ids);
                    let sgpr_groups = written_sgpr_groups(&r.insts);
                    let (mode_mask, mode_want) = mode_test(&r.insts);
                    let b: &'static Block = Box::leak(Box::new(Block {
                        f,
                        n: r.insts.len() as u32,
                        mode_mask,
                        mode_want,
                        wave32: r.wave32,
                        insts: r.insts,
                        ends: r.ends,
                        start: r.start,
                        entries,
                        home: r.home,
                        misses: AtomicU32::new(0),
                        variants: r.variants,
                        affine: r.affine,
                        affine_misses: AtomicU32::new(0),
                        ds_pred: r.ds_pred,
                        live: r.live,
                        place: r.place,
                        sgpr_groups,
                        pair: AtomicPtr::new(std::ptr::null_mut()),
                        pair_tried: AtomicBool::new(r.pair),
                        pair_equal,
                        lazy_ids,
                    }));
                    b
                });
                let spent = thread_cpu_nanos() - t;
                COMPILE_NANOS.fetch_add(spent, Ordering::Relaxed);
                if let Some((name, size)) = &named {
                    let ms = spent as f64 / 1e6;
                    eprintln!("hsaemu-jit: compiled {name}: {n} instructions, {size} bytes, {ms:.1} ms of CPU");
                }
                // Pair variants are counted apart (`Block::pair_block`); one refused (a
                // region a pair cannot run) stays a single-wave region.
                match block {
                    _ if r.pair => {}
                    Some(b) => {
                        COMPILED_BLOCKS.fetch_add(1, Ordering::Relaxed);
                        COMPILED_INSTS.fetch_add(u64::from(b.n), Ordering::Relaxed);
                    }
                    None => {
                        FAILED_BLOCKS.fetch_add(1, Ordering::Relaxed);
                    }
                }
                match r.reply {
                    Reply::Publish(slots, k) => {
                        if let Some(b) = block {
                            slots.publish(k, b, r.replaces);
                            slots.set_pending(k, b.start, &b.insts, false);
                        }
                    }
                    Reply::Wait(tx) => {
                        let _ = tx.send(block);
                    }
                    Reply::Pair(single) => {
                        if let Some(b) = block {
                            single.publish_pair(b);
                        }
                    }
                }
                QUEUED.fetch_sub(1, Ordering::SeqCst);
            }
        })
        .ok()?;
    ok_rx.recv().ok()?.then_some(tx)
}

/// `c.compile(r)`, where a panic in the code generator (a bug) costs this region, not the
/// tier: it is reported, the region stays interpreted, and `c` is replaced by a new
/// generator for the next request (its state is half-built; the old one is forgotten, not
/// dropped, since published blocks run from its memory).
#[cfg(feature = "jit")]
fn compile_guarded(c: &mut lower::Compiler, r: &Request) -> Result<lower::Compiled, String> {
    let p = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.compile(r))) {
        Ok(compiled) => return compiled,
        Err(p) => p,
    };
    let why = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    eprintln!(
        "hsaemu-jit: compiling the region at {} panicked ({why}); it stays interpreted",
        r.place
    );
    if let Ok(fresh) = lower::Compiler::new() {
        std::mem::forget(std::mem::replace(c, fresh));
    }
    Err(format!("the code generator panicked: {why}"))
}

/// The name a profiler shows for a region's code (after `regionN:`, `lower.rs`): where it
/// starts (`Request::place`), its variants (`both`, `general`, `full`), `facts` when
/// compiled on lane-affine facts (with `dsN`: N DS address shapes predicted), and `again`
/// when it replaces a block (a recompile after misses).
fn region_label(r: &Request) -> String {
    let variants = match r.variants {
        Variants::Both => "both",
        Variants::General => "general",
        Variants::Full => "full",
    };
    let mut label = format!("{}:{variants}", r.place);
    if r.affine {
        label.push_str(":facts");
        if !r.ds_pred.is_empty() {
            label.push_str(&format!(":ds{}", r.ds_pred.len()));
        }
    }
    if r.replaces.is_some() {
        label.push_str(":again");
    }
    label
}

/// Whether `HSAEMU_JIT_PERFMAP=1` asks for the perf map (`perf_map`).
fn perf_map_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT_PERFMAP").is_ok_and(|v| v.trim() == "1"))
}

/// With `HSAEMU_JIT_PERFMAP=1`, appends a line `START SIZE NAME` (hexadecimal) for a
/// compiled region's code to `/tmp/perf-<pid>.map`, where `perf report` looks up the
/// symbols of JIT code (docs/debugging.md). Under `perf record`, which sets
/// `PERF_BUILDID_DIR`, Cranelift writes the same lines itself, so they are not written
/// twice. Best effort: a profiling aid, which must not fail a dispatch.
fn perf_map(start: usize, size: usize, name: &str) {
    if !perf_map_on() || std::env::var_os("PERF_BUILDID_DIR").is_some() {
        return;
    }
    use std::io::Write;
    let path = perf_map_path_of(std::process::id());
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path);
    if let Err(e) = file.and_then(|mut f| writeln!(f, "{start:x} {size:x} {name}")) {
        eprintln!("hsaemu-jit: cannot write {}: {e}", path.display());
    }
}

/// The perf map of process `pid` (perf's convention: `/tmp/perf-<pid>.map`).
pub fn perf_map_path_of(pid: u32) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("/tmp/perf-{pid}.map"))
}

/// The calling thread's CPU time in nanoseconds (what compiling costs the process, also
/// under load, when wall time would count other processes' turns).
#[cfg(feature = "jit")]
fn thread_cpu_nanos() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant Linux knows.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(not(feature = "jit"))]
fn start_compiler() -> Option<mpsc::Sender<Request>> {
    None
}

/// The DS address rows' predicted shapes, by (row, dwords per lane): uniform (true) or
/// contiguous in every 4-lane group (`lower.rs`'s `predict_ds_shapes`); under dwords 0,
/// rows in 16-lane tiles (true) and uniform rows beside them (`tiles.rs`'s `predict_tiles`).
type DsPred = std::collections::HashMap<(usize, u32), bool>;

/// Per address, the VGPR rows (bits) that may be read there before a DS load writes them
/// again (`lower.rs`'s `live.rs`); an address not in it: every row. Empty where something
/// reads every register after the region (`HSAEMU_JIT=verify`, `run_words`).
pub(crate) type Live = std::collections::HashMap<u64, [u64; 8]>;

/// [`Live`] for the program of `fetch` from `pc`.
fn live_from(fetch: &dyn Fn(u64) -> Option<Inst>, pc: u64) -> Live {
    #[cfg(feature = "jit")]
    {
        lower::live_rows(fetch, pc)
    }
    #[cfg(not(feature = "jit"))]
    {
        let _ = (fetch, pc);
        Live::new()
    }
}

/// The shapes `w` (about to enter `insts`) predicts, when its EXEC is full and lane facts
/// are on.
fn ds_pred(insts: &[(u64, Inst, Lower)], w: &Wave) -> DsPred {
    if !affine_on() || w.exec() != w.lane_mask {
        return DsPred::new();
    }
    let lanes = if w.wave32 { 32 } else { 64 };
    let mut pred = lower::predict_ds_shapes(insts, &w.v, lanes);
    // The rows in 16-lane tiles (`tiles.rs`), under dwords 0 (no DS access has it).
    let tiles = lower::predict_tiles(insts, &w.v, lanes);
    pred.extend(tiles.into_iter().map(|(r, t)| ((r, 0), t)));
    pred
}

/// Compiles the block at `pc` (where `w` is) and waits for it.
pub(crate) fn compile_now(
    fetch: &dyn Fn(u64) -> Option<Inst>,
    pc: u64,
    w: &Wave,
) -> Option<&'static Block> {
    let insts = collect(fetch, pc, true);
    let pred = ds_pred(&insts, w);
    compile_insts(insts, pc, w.wave32, Variants::Both, None, pred)
}

/// Compiles the region `insts` entered at `pc` and waits for it (its rows current in the
/// `Wave` at every exit).
fn compile_insts(
    insts: Vec<(u64, Inst, Lower)>,
    pc: u64,
    wave32: bool,
    variants: Variants,
    home: Option<(Weak<Slots>, usize)>,
    ds_pred: DsPred,
) -> Option<&'static Block> {
    compile_ending(
        insts,
        (Vec::new(), Live::new()),
        (pc, format!("{pc:#x}")),
        wave32,
        variants,
        home,
        ds_pred,
    )
}

/// [`compile_insts`], with the rows left pending at exits to the `s_endpgm`s at `ends.0`
/// and DS load rows dead after a run (`ends.1`, [`Live`]) not stored. `pc` is where it is
/// entered, `place` the profiler's name for it (`Request::place`).
fn compile_ending(
    insts: Vec<(u64, Inst, Lower)>,
    (ends, live): (Vec<u64>, Live),
    (pc, place): (u64, String),
    wave32: bool,
    variants: Variants,
    home: Option<(Weak<Slots>, usize)>,
    ds_pred: DsPred,
) -> Option<&'static Block> {
    if insts.is_empty() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    let sent = submit(Request {
        insts,
        ends,
        start: pc,
        wave32,
        variants,
        affine: affine_on(),
        ds_pred,
        live,
        place,
        home,
        pair: false,
        replaces: None,
        reply: Reply::Wait(tx),
    });
    if !sent {
        return None;
    }
    rx.recv().ok().flatten()
}

/// How a profiler names an address of a program (`Request::place`).
pub(crate) type Place<'a> = &'a dyn Fn(u64) -> String;

/// The run loop's hook at a block start `k` without a compiled block: counts it and, when
/// it is hot, compiles it (in the background, or now in `sync`/`verify` mode, returning it).
/// `w`: the wave at `pc` (its EXEC, and its rows for `ds_pred`); `place`: how a profiler
/// names an address (`Request::place`).
pub(crate) fn on_start(
    slots: &Arc<Slots>,
    k: usize,
    (fetch, place): (&dyn Fn(u64) -> Option<Inst>, Place),
    pc: u64,
    w: &Wave,
) -> Option<&'static Block> {
    let (wave32, exec_full) = (w.wave32, w.exec() == w.lane_mask);
    if !exec_full {
        if let Some(p) = slots.partial.get(k) {
            p.store(true, Ordering::Relaxed);
        }
    }
    let sync = matches!(mode(), Mode::Sync | Mode::Verify);
    if !slots.hit(k, if sync { 0 } else { THRESHOLD }) {
        return None;
    }
    let insts = collect(fetch, pc, !sync || mode() != Mode::Verify);
    let variants = slots.variants(k, pc, &insts);
    let home = Some((Arc::downgrade(slots), k));
    let pred = ds_pred(&insts, w);
    // `verify` compares every register after each run.
    let ends = if mode() == Mode::Verify {
        Vec::new()
    } else {
        endpgm_exits(fetch, &insts)
    };
    // Only a run's DS loads use it, and only with their shapes predicted.
    let live = if mode() == Mode::Verify || pred.is_empty() {
        Live::new()
    } else {
        live_from(fetch, pc)
    };
    if sync {
        let at = (pc, place(pc));
        let b = compile_ending(insts, (ends, live), at, wave32, variants, home, pred)?;
        slots.publish(k, b, None);
        return Some(b);
    }
    if insts.len() >= MIN_BLOCK && queue().is_some() {
        slots.set_pending(k, pc, &insts, true);
        submit(Request {
            insts,
            ends,
            start: pc,
            wave32,
            variants,
            affine: affine_on(),
            ds_pred: pred,
            live,
            place: place(pc),
            home,
            pair: false,
            replaces: None,
            reply: Reply::Publish(slots.clone(), k),
        });
    }
    None
}

/// Runs `b` at `w.pc` for at most `budget` instructions and returns how many it executed
/// (`w.pc` is then the next instruction's) and whether the last was `s_barrier` (the caller
/// parks the wave). In `verify` mode also runs as many instructions in the interpreter on a
/// copy of the wave and returns both states when they differ.
#[inline]
pub(crate) fn run(
    b: &'static Block,
    w: &mut Wave,
    budget: u32,
    fetch: &dyn Fn(u64) -> Option<Inst>,
    env: &mut Env,
    verify: bool,
) -> Result<(u32, bool), String> {
    if !verify {
        let (n, _, parked) = b.run(w, budget, env, None);
        return Ok((n, parked));
    }
    run_checked(b, w, budget, fetch, env, None)
}

/// [`run`] in `verify` mode. With `global` (`run_words`' buffer, its only global memory)
/// the region runs without a journal, so its stores run inline as in dispatches: the buffer
/// is put back from a copy before the interpreter runs, and what each left in it is
/// compared too.
pub(crate) fn run_checked(
    b: &'static Block,
    w: &mut Wave,
    budget: u32,
    fetch: &dyn Fn(u64) -> Option<Inst>,
    env: &mut Env,
    mut global: Option<&mut [u8]>,
) -> Result<(u32, bool), String> {
    // Counted only when verifying (a shared counter would cost every run a contended write).
    BLOCK_RUNS.fetch_add(1, Ordering::Relaxed);
    let (s0, scc0, lanes0, pc0, stored0, v0) =
        (w.s, w.scc, w.lane_ops, w.pc, w.stored, w.v.to_vec());
    let mem0 = global.as_deref().map(<[u8]>::to_vec);
    // The memory the region stores to is put back before the interpreter runs the same
    // instructions, so a load-modify-store is not applied twice.
    let lds0 = b
        .insts
        .iter()
        .any(|(_, i, _)| i.fmt == Fmt::Ds && i.mem.kind != crate::decode::Kind::Load)
        .then(|| env.lds.to_vec());
    let mut journal = Vec::new();
    let generation = env.mem.generation().load(Ordering::Acquire);
    let (n, calls, parked) = b.run(w, budget, env, mem0.is_none().then_some(&mut journal));
    CALLS.fetch_add(u64::from(calls), Ordering::Relaxed);
    let (s1, scc1, lanes1, pc1, stored1) = (w.s, w.scc, w.lane_ops, w.pc, w.stored);
    let v1 = w.v.to_vec();
    w.v.copy_from_slice(&v0);
    (w.s, w.scc, w.lane_ops, w.stored) = (s0, scc0, lanes0, stored0);
    exec::jit_fast::undo(&journal, env);
    let mem1 = match (global.as_deref_mut(), &mem0) {
        (Some(g), Some(m0)) => {
            let m1 = g.to_vec();
            g.copy_from_slice(m0);
            Some(m1)
        }
        _ => None,
    };
    // The LDS the compiled run left, compared with the interpreter's below (inline stores).
    let lds1 = lds0.map(|l| {
        let after = env.lds.to_vec();
        env.lds.copy_from_slice(&l);
        after
    });
    let mut pc = pc0;
    let mut barrier = false;
    for k in 0..n {
        let Some(i) = fetch(pc) else {
            return Err(format!("no instruction at {pc:#x}"));
        };
        w.pc = pc;
        match exec::step::<false>(w, &i, env) {
            Ok(Flow::Next) => pc += u64::from(i.size),
            Ok(Flow::Jump(t)) => pc = t,
            // A region's last instruction (`Lower::Barrier`).
            Ok(Flow::Barrier) if !barrier => {
                barrier = true;
                pc += u64::from(i.size);
            }
            // The host changed the memory map between the two runs (an `hsa_memory_free`
            // while the kernel runs): the interpreter's run stands, cut before the access it
            // faults on, which the dispatcher runs again and reports as without the tier.
            Err(_) if env.mem.generation().load(Ordering::Acquire) != generation => {
                w.pc = pc;
                return Ok((k, false));
            }
            other => {
                return Err(format!(
                    "the interpreter did not continue after `{}`: {other:?}",
                    i.describe()
                ))
            }
        }
    }
    w.pc = pc;
    let lanes = if w.wave32 { 32 } else { LANES };
    let mut diffs = Vec::new();
    if pc1 != pc {
        diffs.push(format!("pc: compiled {pc1:#x}, interpreted {pc:#x}"));
    }
    if parked != barrier {
        diffs.push(format!(
            "parked at a barrier: compiled {parked}, interpreted {barrier}"
        ));
    }
    for (k, (a, b)) in s1.iter().zip(&w.s).enumerate() {
        if a != b {
            diffs.push(format!("s[{k}]: compiled {a:#x}, interpreted {b:#x}"));
        }
    }
    if scc1 != w.scc {
        diffs.push(format!("scc: compiled {scc1}, interpreted {}", w.scc));
    }
    if stored1 != w.stored {
        diffs.push(format!(
            "stored: compiled {stored1}, interpreted {}",
            w.stored
        ));
    }
    if let (Some(m1), Some(g)) = (&mem1, global.as_deref()) {
        for (k, (a, b)) in m1.iter().zip(g.iter()).enumerate() {
            if a != b && diffs.len() < 8 {
                diffs.push(format!(
                    "global byte {k}: compiled {a:#x}, interpreted {b:#x}"
                ));
            }
        }
    }
    if lanes1 != w.lane_ops {
        diffs.push(format!(
            "lane_ops: compiled {lanes1}, interpreted {}",
            w.lane_ops
        ));
    }
    for (r, (a, b)) in v1.iter().zip(w.v.iter()).enumerate() {
        for l in 0..lanes {
            if a[l] != b[l] {
                diffs.push(format!(
                    "v{r}[{l}]: compiled {:#x}, interpreted {:#x}",
                    a[l], b[l]
                ));
            }
        }
    }
    if let Some(l) = lds1 {
        let differs = l.iter().zip(env.lds.iter()).enumerate();
        for (k, (a, b)) in differs.filter(|(_, (a, b))| a != b).take(8) {
            diffs.push(format!(
                "LDS byte {k:#x}: compiled {a:#x}, interpreted {b:#x}"
            ));
        }
    }
    if diffs.is_empty() {
        return Ok((n, parked));
    }
    diffs.truncate(8);
    Err(format!(
        "compiled region at {pc0:#x} ({n} of its {} instructions run) differs from the \
         interpreter: {}",
        b.n,
        diffs.join("; ")
    ))
}

/// A pair call (`Block::call_pair`) in `verify` mode: runs pair block `p` on waves `a` and
/// `b`, then the same number of instructions in the interpreter from the waves' first
/// states, one of A's then one of B's in turn (the order the pair's lanes run in), and
/// returns both states when they differ (each wave's registers, PC and barrier, the sum of
/// their `lane_ops`; global memory through the journal, whose stores are calls, so a
/// pair leaves before its first store).
pub(crate) fn run_pair_checked(
    p: &'static Block,
    a: &mut Wave,
    b: &mut Wave,
    budget: u32,
    fetch: &dyn Fn(u64) -> Option<Inst>,
    env: &mut Env,
) -> Result<(u32, bool), String> {
    BLOCK_RUNS.fetch_add(1, Ordering::Relaxed);
    let snap = |w: &Wave| (w.s, w.scc, w.lane_ops, w.stored, w.v.to_vec());
    let (a0, b0, pc0) = (snap(a), snap(b), a.pc);
    let mut journal = Vec::new();
    let (n, parked) = {
        let mut ctx = CallCtx::new(env, Some(&mut journal));
        // SAFETY: `ctx` was just made from `env`, borrowed for the whole call; `a` and `b`
        // are distinct waves.
        unsafe { p.call_pair(&mut ctx, a, b, budget) }
    };
    if n == 0 {
        return Ok((0, false));
    }
    let mut ran = Vec::new();
    for (w, w0) in [(&mut *a, a0), (&mut *b, b0)] {
        let v1 = w.v.to_vec();
        w.v.copy_from_slice(&w0.4);
        ran.push((w.s, w.scc, w.lane_ops, w.pc, w.stored, v1));
        (w.s, w.scc, w.lane_ops, w.stored) = (w0.0, w0.1, w0.2, w0.3);
        w.pc = pc0;
    }
    exec::jit_fast::undo(&journal, env);
    let mut barrier = [false; 2];
    for _ in 0..n {
        for (k, w) in [&mut *a, &mut *b].into_iter().enumerate() {
            let pc = w.pc;
            let Some(i) = fetch(pc) else {
                return Err(format!("no instruction at {pc:#x}"));
            };
            match exec::step::<false>(w, &i, env) {
                Ok(Flow::Next) => w.pc = pc + u64::from(i.size),
                Ok(Flow::Jump(t)) => w.pc = t,
                Ok(Flow::Barrier) if !barrier[k] => {
                    barrier[k] = true;
                    w.pc = pc + u64::from(i.size);
                }
                other => {
                    return Err(format!(
                    "the interpreter did not continue after `{}` (wave {k} of a pair): {other:?}",
                    i.describe()
                ))
                }
            }
        }
    }
    let mut diffs = Vec::new();
    let lanes1: u64 = ran.iter().map(|r| r.2).sum();
    if lanes1 != a.lane_ops + b.lane_ops {
        diffs.push(format!(
            "lane_ops (both): compiled {lanes1}, interpreted {}",
            a.lane_ops + b.lane_ops
        ));
    }
    for (k, (w, r)) in [&*a, &*b].into_iter().zip(&ran).enumerate() {
        let (s1, scc1, _, pc1, stored1, v1) = r;
        if *pc1 != w.pc {
            diffs.push(format!(
                "wave {k} pc: compiled {pc1:#x}, interpreted {:#x}",
                w.pc
            ));
        }
        if parked != barrier[k] {
            diffs.push(format!(
                "wave {k} parked at a barrier: compiled {parked}, interpreted {}",
                barrier[k]
            ));
        }
        for (c, (x, y)) in s1.iter().zip(&w.s).enumerate() {
            if x != y {
                diffs.push(format!(
                    "wave {k} s[{c}]: compiled {x:#x}, interpreted {y:#x}"
                ));
            }
        }
        if *scc1 != w.scc {
            diffs.push(format!(
                "wave {k} scc: compiled {scc1}, interpreted {}",
                w.scc
            ));
        }
        // Not `stored`: A's waits fence for both waves' stores (`call_pair`), a fence more.
        let _ = stored1;
        for (r, (x, y)) in v1.iter().zip(w.v.iter()).enumerate() {
            for l in 0..32 {
                if x[l] != y[l] {
                    diffs.push(format!(
                        "wave {k} v{r}[{l}]: compiled {:#x}, interpreted {:#x}",
                        x[l], y[l]
                    ));
                }
            }
        }
    }
    if diffs.is_empty() {
        return Ok((n, parked));
    }
    diffs.truncate(8);
    Err(format!(
        "compiled pair region at {pc0:#x} ({n} of its {} instructions run) differs from the \
         interpreter: {}",
        p.n,
        diffs.join("; ")
    ))
}

/// What the compiling tier did in this process so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Blocks compiled.
    pub blocks: u64,
    /// Instructions in them.
    pub instructions: u64,
    /// Blocks the generator refused (they stay interpreted).
    pub failed: u64,
    /// Time spent compiling, in nanoseconds of the compiler thread's CPU time.
    pub compile_nanos: u64,
    /// Runs of compiled blocks checked against the interpreter (`verify` and `run_words`).
    pub runs: u64,
    /// Calls of the interpreter (memory instructions, waits) those checked runs made.
    pub calls: u64,
    /// Basic blocks compiled on lane-affine facts (`lower.rs`'s `affine.rs`).
    pub affine_blocks: u64,
    /// DS loads compiled into a run's group passes on a predicted address shape
    /// (`lower.rs`'s `group_major`).
    pub ds_run_loads: u64,
    /// Rows of those loads compiled not to be stored into the `Wave`: no instruction reads
    /// them after the run before a DS load writes them again (`lower.rs`'s `live.rs`).
    pub ds_dead_rows: u64,
    /// `v_fmac_f32` chains of runs' group passes compiled, each with one NaN test at its
    /// end (`lower.rs`'s `fmac_chain_end`).
    pub fmac_chains: u64,
    /// NaN segments compiled: stretches of a run's group pass whose float results are
    /// tested for NaNs once, at their end (`nan_seg.rs`).
    pub nan_segments: u64,
    /// Barrier exits compiled with a tail: the vector ALU operations, no-ops and waits
    /// after an `s_barrier` run before the wave parks (`after_barrier`).
    pub barrier_tails: u64,
    /// Regions compiled for a pair of wave32s, and calls running a pair
    /// (`lower.rs`'s `pair.rs`, `dispatch.rs`'s `enter_pair`).
    pub pair_blocks: u64,
    pub pair_runs: u64,
    /// Work-groups whose pairs all ran one after the other in two waves
    /// (`dispatch.rs`'s `stream_pairs`).
    pub streamed_groups: u64,
    /// Wave-instructions the interpreter ran in dispatches with the tier on: those of
    /// blocks not compiled (yet), without a lowering, or left by a region (an exit, a
    /// decline). Not counted with the tier off.
    pub interpreted: u64,
}

/// The counters of [`Stats`].
pub fn stats() -> Stats {
    let r = |c: &AtomicU64| c.load(Ordering::Relaxed);
    Stats {
        blocks: r(&COMPILED_BLOCKS),
        instructions: r(&COMPILED_INSTS),
        failed: r(&FAILED_BLOCKS),
        compile_nanos: r(&COMPILE_NANOS),
        runs: r(&BLOCK_RUNS),
        calls: r(&CALLS),
        affine_blocks: r(&AFFINE_BLOCKS),
        ds_run_loads: r(&DS_RUN_LOADS),
        ds_dead_rows: r(&DS_DEAD_ROWS),
        fmac_chains: r(&FMAC_CHAINS),
        nan_segments: r(&NAN_SEGMENTS),
        barrier_tails: r(&BARRIER_TAILS),
        pair_blocks: r(&PAIR_BLOCKS),
        pair_runs: r(&PAIR_RUNS),
        streamed_groups: r(&STREAMED_GROUPS),
        interpreted: r(&INTERPRETED),
    }
}

/// Whether dispatches use the tier (unless `HSAEMU_JIT=0`, in a build with the `jit`
/// feature).
pub fn enabled() -> bool {
    mode() != Mode::Off
}

/// Whether dispatches compile regions holding global memory accesses, as the default mode
/// does: the tier on and not `HSAEMU_JIT=verify`, whose regions leave out loads from
/// memory other agents may write (`collect`: it runs each region twice).
pub fn dispatches_compile_memory() -> bool {
    matches!(mode(), Mode::On | Mode::Sync)
}

/// Whether dispatches may stream work-groups of wave32 pairs (`HSAEMU_JIT_STREAM` not 0;
/// `dispatch.rs`'s `stream_pairs`, where pairs are used; in `verify` mode checked).
pub fn streams_used() -> bool {
    pairs_used() && streams_on()
}

/// Whether dispatches run a work-group's wave32 pairs in one region call (the tier on and
/// `HSAEMU_JIT_PAIR` not 0; `dispatch.rs`'s `enter_pair`).
pub fn pairs_used() -> bool {
    mode() != Mode::Off && pairs_on()
}

/// Whether `run_words` and its siblings compile every block and check it against the
/// interpreter (unless `HSAEMU_JIT=0`, in a build with the `jit` feature).
pub fn checks_single_runs() -> bool {
    in_single_runs()
}

#[cfg(all(test, feature = "jit"))]
mod tests {
    use super::*;

    /// `region` compiled from its first instruction (wave64, both variants, no DS
    /// predictions, every row live), its rows left pending at exits to the `s_endpgm`s at
    /// `ends`.
    fn compiled_ending(region: Vec<(u64, Inst, Lower)>, ends: Vec<u64>) -> &'static Block {
        compile_ending(
            region,
            (ends, Live::new()),
            (0, "0x0".into()),
            false,
            Variants::Both,
            None,
            DsPred::new(),
        )
        .expect("compiled")
    }
    use crate::decode::decode;
    use crate::exec::Scratch;
    use crate::memory::{MemoryMap, RegionCache};

    /// `words` decoded at every word offset (a region's `fetch` reads them by address / 4).
    fn decoded(gen: Gen, words: &[u32]) -> Vec<Inst> {
        (0..words.len()).map(|k| decode(gen, &words[k..])).collect()
    }

    /// The test environment: no memory, one wave.
    fn with_env<T>(gen: Gen, f: impl FnOnce(&mut Env) -> T) -> T {
        with_env_in(gen, &MemoryMap::new(), f)
    }

    /// [`with_env`] over the memory `mem`.
    fn with_env_in<T>(gen: Gen, mem: &MemoryMap, f: impl FnOnce(&mut Env) -> T) -> T {
        let mut cache = RegionCache::default();
        let mut scratch = Scratch::new();
        let gws = crate::gws::Gws::default();
        let mut lds = [0u8; 0];
        let mut env = Env {
            gen,
            mem,
            cache: &mut cache,
            lds: &mut lds,
            private_per_lane: 0,
            scratch: &mut scratch,
            clock_mhz: 1000,
            gws: &gws,
            deterministic: false,
            check: None,
            barrier: crate::exec::BarrierState::default(),
        };
        f(&mut env)
    }

    /// A counted loop compiles as one region, and its budget cuts it at a basic block:
    /// what runs compiled leaves the state (and PC) of as many interpreted instructions.
    #[test]
    fn the_tier_is_on_unless_hsaemu_jit_is_0() {
        assert_eq!(mode_of(None), (Mode::On, true));
        assert_eq!(mode_of(Some("1")), (Mode::On, true));
        assert_eq!(mode_of(Some(" 0 ")), (Mode::Off, true));
        assert_eq!(mode_of(Some("sync")), (Mode::Sync, true));
        assert_eq!(mode_of(Some("verify")), (Mode::Verify, true));
        assert_eq!(mode_of(Some("off")), (Mode::On, false));
    }

    /// The host frees the memory a verified region stored to before the interpreter runs
    /// it again (`hsa_memory_free` while the kernel runs): the interpreter's run stands, cut
    /// before the store it faults on, and the compiled store is undone; no tier mismatch.
    /// llvm-mc-15 -mcpu=gfx90a: v_mov_b32 v2, 7; global_store_dword v[0:1], v2, off;
    /// s_endpgm.
    #[test]
    fn a_free_between_the_verify_runs_is_the_interpreters_fault() {
        let gen = Gen::Gfx90a;
        let words = [0x7e04_0287, 0xdc70_8000, 0x007f_0200, 0xbf81_0000];
        let insts = decoded(gen, &words);
        let buf: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(5)).collect();
        let base = buf.as_ptr() as u64;
        let mem = MemoryMap::new();
        mem.register(base, 16, crate::memory::Access::ReadWrite)
            .expect("register");
        let armed = std::cell::Cell::new(false);
        let fetch = |a: u64| {
            if armed.replace(false) {
                mem.unregister(base).expect("unregister");
            }
            insts.get(a as usize / 4).copied()
        };
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.n, 2, "the move and the store");
        let mut w = Wave::new();
        (w.v[0][0], w.v[1][0]) = (base as u32, (base >> 32) as u32);
        w.set_exec(1);
        armed.set(true);
        with_env_in(gen, &mem, |env| {
            assert_eq!(run(b, &mut w, 8, &fetch, env, true), Ok((1, false)));
        });
        assert_eq!((w.pc, w.v[2][0]), (4, 7), "stopped before the store");
        assert_eq!(
            buf[0].load(Ordering::Relaxed),
            5,
            "the compiled store undone"
        );
    }

    /// llvm-mc-15 -mcpu=gfx90a: s_mov_b32 s20, 0; v_mov_b32 v30, 0; loop (8):
    /// v_add_u32 v30, v30, v0; s_add_u32 s20, s20, 1; s_cmp_lt_u32 s20, 10;
    /// s_cbranch_scc1 loop (SIMM16 -4); s_endpgm.
    const COUNTED_LOOP: [u32; 7] = [
        0xbe94_0080,
        0x7e3c_0280,
        0x683c_011e,
        0x8014_8114,
        0xbf0a_8a14,
        0xbf85_fffc,
        0xbf81_0000,
    ];

    #[test]
    fn a_region_stops_at_a_basic_block_its_budget_does_not_cover() {
        let gen = Gen::Gfx90a;
        let words = COUNTED_LOOP;
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.n, 6, "the loop and its set-up, up to s_endpgm");
        let mut w = Wave::new();
        for l in 0..LANES {
            w.v[0][l] = l as u32;
        }
        w.set_exec(!0b100);
        with_env(gen, |env| {
            // Set-up (2) and one iteration (4) fit in 7; the next iteration does not.
            assert_eq!(run(b, &mut w, 7, &fetch, env, true), Ok((6, false)));
            assert_eq!((w.pc, w.s[20]), (8, 1));
            // From the start again (a region is entered at its start only): less than its
            // first basic block runs nothing compiled.
            (w.pc, w.s[20]) = (0, 0);
            assert_eq!(run(b, &mut w, 1, &fetch, env, true), Ok((0, false)));
            assert_eq!(w.pc, 0);
            // The whole loop.
            assert_eq!(run(b, &mut w, 1000, &fetch, env, true), Ok((2 + 40, false)));
        });
        assert_eq!((w.pc, w.s[20], w.scc), (24, 10, false));
        assert_eq!((w.v[30][1], w.v[30][2], w.v[30][63]), (10, 0, 630));
        assert_eq!(w.lane_ops, 63 * (1 + 1 + 11));
    }

    /// A region without a loop tests its budget once at its entry, against its longest
    /// path (`lower.rs`'s `longest_path`): a smaller budget runs nothing compiled and
    /// leaves the PC where the region was entered (its start or another basic block).
    #[test]
    fn a_region_without_a_loop_tests_its_longest_path_at_its_entry() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: s_mov_b32 s20, 0; v_mov_b32 v30, 0; s_cmp_eq_u32 s20,
        // 0; s_cbranch_scc1 1; s_add_u32 s20, s20, 1; v_add_u32 v30, v30, v0; s_endpgm.
        // Basic blocks of 4, 1 and 1 instructions: the longest path 6, the one taken 5.
        let words = [
            0xbe94_0080,
            0x7e3c_0280,
            0xbf06_8014,
            0xbf85_0001,
            0x8014_8114,
            0x683c_011e,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.n, 6, "up to s_endpgm");
        let mut w = Wave::new();
        for l in 0..LANES {
            w.v[0][l] = l as u32;
        }
        w.set_exec(!0);
        with_env(gen, |env| {
            assert_eq!(run(b, &mut w, 5, &fetch, env, true), Ok((0, false)));
            assert_eq!(w.pc, 0);
            // Entered at the last basic block (v_add_u32 at 20): declined there.
            w.pc = 20;
            assert_eq!(run(b, &mut w, 5, &fetch, env, true), Ok((0, false)));
            assert_eq!(w.pc, 20);
            w.pc = 0;
            assert_eq!(run(b, &mut w, 6, &fetch, env, true), Ok((5, false)));
        });
        assert_eq!((w.pc, w.s[20]), (24, 0));
        assert_eq!((w.v[30][0], w.v[30][7], w.v[30][63]), (0, 7, 63));
    }

    /// Rows a region wrote on lane-affine facts and has not stored (`lower.rs`'s
    /// `affine.rs`, pending rows) are stored where it leaves for an instruction it does not
    /// compile, which the interpreter then runs on the `Wave`'s rows; only an exit to an
    /// `s_endpgm` may leave them (`endpgm_exits`).
    #[test]
    fn pending_rows_are_stored_where_a_region_leaves_for_the_interpreter() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: v_lshlrev_b32 v2, 2, v0; v_add_u32 v3, s2, v2;
        // v_mov_b32 v4, s3; v_add_u32 v5, s2, v0; v_writelane_b32 v6, s2, 5; s_endpgm.
        let words = [
            0x2404_0082u32,
            0x6806_0402,
            0x7e08_0203,
            0x680a_0002,
            0xd28a_0006,
            0x0001_0a02,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let region = collect(&fetch, 0, true);
        assert_eq!(region.len(), 4, "up to v_writelane_b32");
        let ends = endpgm_exits(&fetch, &region);
        assert!(ends.is_empty(), "{ends:x?}");
        // Without the v_writelane_b32, the region leaves for the s_endpgm.
        let no_writelane = [&words[..4], &words[6..]].concat();
        let insts2 = decoded(gen, &no_writelane);
        let fetch2 = |a: u64| insts2.get(a as usize / 4).copied();
        assert_eq!(endpgm_exits(&fetch2, &collect(&fetch2, 0, true)), [0x10]);
        let b = compiled_ending(region, ends);
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        (w.s[2], w.s[3]) = (0x1234, 77);
        for l in 0..LANES {
            w.v[0][l] = 100 + l as u32;
            for r in 2..6 {
                w.v[r][l] = 0xdead_0000 | l as u32;
            }
        }
        with_env(gen, |env| {
            assert_eq!(run(b, &mut w, 100, &fetch, env, false), Ok((4, false)));
        });
        assert_eq!(w.pc, 0x10);
        for l in 0..LANES {
            let x = 100 + l as u32;
            let want = [
                (2, x << 2),
                (3, 0x1234 + (x << 2)),
                (4, 77),
                (5, 0x1234 + x),
            ];
            for (r, v) in want {
                assert_eq!(w.v[r][l], v, "v{r} lane {l}");
            }
        }
    }

    /// Rows a basic block hands over pending to the next one (`affine.rs`'s
    /// `pending_at_end`) are stored where that one does not fit the budget and the region
    /// leaves before it (`store_handed_over`).
    #[test]
    fn rows_handed_over_pending_are_stored_at_the_next_blocks_budget_exit() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: v_add_co_u32 v2, vcc, s2, v0; v_mov_b32 v3, s3;
        // v_addc_co_u32 v3, vcc, v3, v1, vcc; v_cmp_gt_u64 vcc, s[4:5], v[2:3];
        // s_and_saveexec_b64 s[14:15], vcc; s_cbranch_execz end; v_lshlrev_b64 v[4:5], 2,
        // v[2:3]; v_add_co_u32 v6, vcc, s6, v4; v_mov_b32 v7, s7; v_addc_co_u32 v7, vcc,
        // v7, v5, vcc; end: s_endpgm.
        let words = [
            0x3204_0002u32,
            0x7e06_0203,
            0x3806_0303,
            0x7dd8_0404,
            0xbe8e_206a,
            0xbf88_0005,
            0xd28f_0004,
            0x0002_0482,
            0x320c_0806,
            0x7e0e_0207,
            0x380e_0b07,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let region = collect(&fetch, 0, true);
        assert_eq!(region.len(), 10, "up to s_endpgm");
        let ends = endpgm_exits(&fetch, &region);
        assert_eq!(ends, [0x2c]);
        let b = compiled_ending(region, ends);
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        (w.s[2], w.s[3], w.s[4], w.s[5]) = (0xffff_f000, 2, u32::MAX, u32::MAX);
        for l in 0..LANES {
            (w.v[0][l], w.v[1][l]) = (0x40 + l as u32, 0);
            (w.v[2][l], w.v[3][l]) = (0xdead_0000, 0xdead_0001);
        }
        with_env(gen, |env| {
            // The first basic block (6) fits, the second (4 more) does not.
            assert_eq!(run(b, &mut w, 6, &fetch, env, false), Ok((6, false)));
        });
        assert_eq!(w.pc, 0x18);
        for l in 0..LANES {
            let a = (2u64 << 32) + 0xffff_f000 + 0x40 + l as u64;
            assert_eq!(
                (w.v[2][l], w.v[3][l]),
                (a as u32, (a >> 32) as u32),
                "lane {l}"
            );
        }
    }

    /// `s_barrier` ends a region: it runs up to and including the barrier, leaves the PC
    /// after it and says the wave is to be parked (checked against the interpreter's
    /// `Flow::Barrier` by the verify run).
    #[test]
    fn a_region_ends_with_its_barrier_and_parks_the_wave() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: v_mov_b32 v30, 0; s_barrier; s_waitcnt vmcnt(0);
        // s_mov_b32 s0, 1; v_mov_b32 v30, 1; s_endpgm (a scalar write is no barrier tail,
        // and a wait alone is not taken as one).
        let words = [
            0x7e3c_0280u32,
            0xbf8a_0000,
            0xbf8c_0f70,
            0xbe80_0081,
            0x7e3c_0281,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        assert_eq!(compilable(&insts[1]), Some(Lower::Barrier));
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.n, 2, "up to the barrier");
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        w.v[30][5] = 9;
        with_env(gen, |env| {
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((2, true)));
        });
        assert_eq!((w.pc, w.v[30][5], w.s[0], w.ahead), (8, 0, 0, 0));
    }

    /// The vector ALU operations, no-ops and waits right after `s_barrier` (its tail,
    /// `after_barrier`) run in the same call: the wave parks after them, their count in
    /// `Wave::ahead` for its next turn (checked against the interpreter by the verify run,
    /// which goes on past `Flow::Barrier`), their bytes in `Wave::ahead_size` (the PC less
    /// them is 8, after the barrier, where a stop's report names the wave).
    #[test]
    fn a_barrier_tail_runs_before_the_wave_parks() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: v_mov_b32 v30, 0; s_barrier; v_mov_b32 v30, 1;
        // s_waitcnt vmcnt(0); v_add_u32 v30, 2, v30; s_mov_b32 s0, 1; s_endpgm.
        let words = [
            0x7e3c_0280u32,
            0xbf8a_0000,
            0x7e3c_0281,
            0xbf8c_0f70,
            0x683c_3c82,
            0xbe80_0081,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.n, 5, "up to the tail's end");
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        w.v[30][5] = 9;
        with_env(gen, |env| {
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((5, true)));
        });
        assert_eq!((w.pc, w.v[30][5], w.s[0], w.ahead), (20, 3, 0, 3));
        assert_eq!(w.ahead_size, 12, "three 4-byte instructions");
    }

    /// A start among the instructions of a region being compiled counts again from zero
    /// when it becomes hot; one inside a compiled region needs `INSIDE_FACTOR` times the
    /// threshold.
    #[test]
    fn starts_inside_a_region_wait() {
        let slots = Slots::new(4);
        let hot = |k: usize, n: u32| (0..n).filter(|_| slots.hit(k, 3)).count();
        assert_eq!(hot(0, 4), 1, "the fourth execution makes a start hot");
        slots.pending[1].store(true, Ordering::Relaxed);
        assert_eq!(hot(1, 40), 0, "pending: never hot");
        slots.pending[1].store(false, Ordering::Relaxed);
        assert_eq!(hot(1, 4), 1);
        slots.inside[2].store(true, Ordering::Relaxed);
        assert_eq!(hot(2, 3 * INSIDE_FACTOR), 0);
        assert_eq!(hot(2, 1), 1);
    }

    /// A region is entered at any of its basic blocks (a wave its budget stopped there
    /// resumes there), with the interpreter's results.
    #[test]
    fn a_region_is_entered_at_its_other_basic_blocks() {
        let gen = Gen::Gfx90a;
        let words = COUNTED_LOOP;
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let b = compile_now(&fetch, 0, &Wave::new()).expect("compiled");
        assert_eq!(b.entries, [8], "the loop's head");
        let mut w = Wave::new();
        for l in 0..LANES {
            w.v[0][l] = l as u32;
            w.v[30][l] = 5;
        }
        (w.pc, w.s[20]) = (8, 7);
        w.set_exec(!0b100);
        with_env(gen, |env| {
            // Three iterations (s20 = 7, 8, 9), checked against the interpreter.
            assert_eq!(run(b, &mut w, 1000, &fetch, env, true), Ok((12, false)));
            // At an address that is none of its basic blocks, nothing runs.
            w.pc = 12;
            assert_eq!(run(b, &mut w, 1000, &fetch, env, true), Ok((0, false)));
            assert_eq!(w.pc, 12);
        });
        assert_eq!(
            (w.s[20], w.v[30][1], w.v[30][2], w.v[30][63]),
            (10, 8, 5, 194)
        );
    }

    /// The wave64 region from address 0 of `insts` (a program of `words` words), compiled
    /// with its full-EXEC variant alone and published at slot 0.
    fn full_only(insts: &[Inst], words: usize) -> (Arc<Slots>, &'static Block) {
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let region = collect(&fetch, 0, true);
        let slots = Arc::new(Slots::new(words));
        let home = Some((Arc::downgrade(&slots), 0));
        let b =
            compile_insts(region, 0, false, Variants::Full, home, DsPred::new()).expect("compiled");
        slots.publish(0, b, None);
        (slots, b)
    }

    /// The block published at slot 0 once the compiler thread has replaced `old` there.
    fn recompiled(slots: &Slots, old: &Block) -> &'static Block {
        let t = std::time::Instant::now();
        loop {
            match slots.block(0) {
                Some(n) if !std::ptr::eq(n, old) => return n,
                _ if t.elapsed().as_secs() > 60 => panic!("not compiled again"),
                _ => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        }
    }

    /// Integer vector code runs compiled under any FP MODE (gfx803's kernels flush f32
    /// denormals, so MODE is not the default there); a float operation or a compare of
    /// floats keeps a region to the default FP MODE, and VGPR index mode keeps out any
    /// vector code.
    #[test]
    fn only_float_code_needs_the_default_fp_mode() {
        // llvm-mc-15 -mcpu=gfx90a: v_add_u32_e32 v1, v1, v2; v_cmp_lt_u32_e32 vcc, v1, v2;
        // v_add_f32_e32 v1, v1, v2; v_cmp_lt_f32_e32 vcc, v1, v2; s_endpgm; -mcpu=gfx803:
        // v_add_u32_e32 v1, vcc, v1, v2 (the carry form); s_endpgm.
        let int = [0x6802_0501u32, 0x7d92_0501, 0xbf81_0000];
        let float = [0x0202_0501u32, 0xbf81_0000];
        let float_cmp = [0x7c82_0501u32, 0xbf81_0000];
        let carry = [0x3202_0501u32, 0xbf81_0000];
        let flush = exec::fpmode::FP_DEFAULT & !0x30; // f32 denormals flushed (FP_DENORM)
        let down = exec::fpmode::FP_DEFAULT | 0x3; // f32 rounding toward zero
        let mut w = Wave::new();
        for (gen, words, fp) in [
            (Gen::Gfx90a, &int[..], false),
            (Gen::Gfx90a, &float[..], true),
            (Gen::Gfx90a, &float_cmp[..], true),
            (Gen::Gfx8, &carry[..], false),
        ] {
            let insts = decoded(gen, words);
            let (_, b) = full_only(&insts, words.len());
            for (mode, runs) in [
                (exec::fpmode::FP_DEFAULT, true),
                (flush, !fp),
                (down, !fp),
                (exec::fpmode::FP_DEFAULT | exec::MODE_GPR_IDX_EN, false),
            ] {
                w.mode = mode;
                assert_eq!(b.runs(&w), runs, "{words:x?} under MODE {mode:#x}");
            }
        }
    }

    /// A region compiled with its full-EXEC variant alone leaves where it would need the
    /// general one (at its entry, or after EXEC lost lanes), counting the misses, with the
    /// interpreter's state; at `MISS_LIMIT` misses it is compiled again with both.
    #[test]
    fn a_full_exec_region_leaves_where_exec_is_partial() {
        let gen = Gen::Gfx90a;
        // llvm-mc-15 -mcpu=gfx90a: s_mov_b64 exec, s[0:1]; s_branch 0 (to the next
        // instruction, a basic block of its own); v_mov_b32 v1, s2; s_endpgm.
        let words = [0xbefe_0100u32, 0xbf82_0000, 0x7e02_0202, 0xbf81_0000];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let (slots, b) = full_only(&insts, words.len());
        let mut w = Wave::new();
        w.s[2] = 7;
        with_env(gen, |env| {
            // EXEC stays full: the whole region runs.
            w.set_exec(u64::MAX);
            (w.s[0], w.s[1]) = (u32::MAX, u32::MAX);
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((3, false)));
            assert_eq!((w.pc, w.v[1][0], w.v[1][63]), (12, 7, 7));
            assert_eq!(b.misses.load(Ordering::Relaxed), 0);
            // EXEC loses lanes: the region leaves before the next basic block.
            (w.pc, w.s[0], w.s[1], w.s[2]) = (0, 0b1010, 0, 9);
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((2, false)));
            assert_eq!((w.pc, w.exec()), (8, 0b1010));
            assert_eq!(b.misses.load(Ordering::Relaxed), 1);
            // A partial EXEC at an entry: nothing runs.
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((0, false)));
            w.pc = 0;
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((0, false)));
            assert_eq!((w.pc, w.v[1][1]), (0, 7));
            assert_eq!(b.misses.load(Ordering::Relaxed), 3);
            // At MISS_LIMIT misses the region is compiled again with both variants and
            // replaces this block at its start and its entry.
            for _ in 3..MISS_LIMIT {
                assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((0, false)));
            }
            let both = recompiled(&slots, b);
            assert!(std::ptr::eq(slots.block(2).expect("published"), both));
            assert_eq!(run(both, &mut w, 100, &fetch, env, true), Ok((3, false)));
            assert_eq!((w.pc, w.v[1][1], w.v[1][3], w.v[1][0]), (12, 9, 9, 7));
        });
    }

    /// A region of four instructions (llvm-mc-15 -mcpu=gfx90a): v_add_u32 v2, s2, v0;
    /// v_add_u32 v3, s3, v2; v_mov_b32 v4, v3; s_endpgm.
    const ADD_CHAIN: [u32; 4] = [0x6804_0002, 0x6806_0403, 0x7e08_0303, 0xbf81_0000];

    /// A run of a full-EXEC-only region that left because a fact did not hold is noted as
    /// a miss of the general variant too (the fact's miss goes on there); it counts as the
    /// fact's alone, so at `MISS_LIMIT` the region is compiled again once, without facts and
    /// with its variants, not also with both variants and the facts that miss. A miss of
    /// the general variant alone asks for both variants, with the facts.
    #[test]
    fn a_facts_miss_asks_for_one_compile_without_facts() {
        let (words, insts) = (ADD_CHAIN, decoded(Gen::Gfx90a, &ADD_CHAIN));
        let (_, b) = full_only(&insts, words.len());
        let (_, c) = full_only(&insts, words.len());
        assert_eq!((b.variants, c.variants), (Variants::Full, Variants::Full));
        for k in 1..=MISS_LIMIT {
            let want = (k == MISS_LIMIT).then_some((Variants::Full, false));
            assert_eq!(b.count_exit(true, true), want, "facts' miss {k}");
            let want = (k == MISS_LIMIT).then_some((Variants::Both, c.affine));
            assert_eq!(
                c.count_exit(true, false),
                want,
                "general variant's miss {k}"
            );
        }
        assert_eq!(b.misses.load(Ordering::Relaxed), 0);
        assert_eq!(c.affine_misses.load(Ordering::Relaxed), 0);
        // Past the limit nothing more is asked.
        assert_eq!(b.count_exit(true, true), None);
        assert_eq!(c.count_exit(true, false), None);
    }

    /// A hot start that no longer runs when the compiler comes to it is not compiled: its
    /// request is deferred until the start runs again (then compiled while it runs), or
    /// until `wait_compiled`, which compiles every deferred request. One test, since a
    /// `wait_compiled` defers nothing while it waits.
    #[test]
    fn a_start_that_stopped_running_is_compiled_when_it_runs_again() {
        let insts = decoded(Gen::Gfx90a, &ADD_CHAIN);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let place = |pc: u64| format!("{pc:#x}");
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        let within = |what: &str, done: &dyn Fn() -> bool, step: &dyn Fn()| {
            let t = std::time::Instant::now();
            while !done() {
                assert!(t.elapsed().as_secs() < 60, "{what} within 60 s");
                step();
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        };
        let hot = |slots: &Arc<Slots>| {
            for _ in 0..=THRESHOLD {
                assert!(on_start(slots, 0, (&fetch, &place), 0, &w).is_none());
            }
            within(
                "deferred",
                &|| slots.hits[0].load(Ordering::Relaxed) == DEFERRED,
                &|| {},
            );
            assert!(slots.block(0).is_none());
        };
        // Made hot, then not run: deferred; `wait_compiled` compiles it.
        let a = Arc::new(Slots::new(ADD_CHAIN.len()));
        hot(&a);
        assert!(wait_compiled(std::time::Duration::from_secs(60)));
        assert!(a.block(0).is_some(), "compiled by wait_compiled");
        // Made hot, then run again: sent again and compiled while it runs.
        let b = Arc::new(Slots::new(ADD_CHAIN.len()));
        hot(&b);
        within("compiled", &|| b.block(0).is_some(), &|| {
            assert!(on_start(&b, 0, (&fetch, &place), 0, &w).is_none());
        });
        assert_eq!(b.hits[0].load(Ordering::Relaxed), SENT);
    }

    /// While a region is compiled again, the starts among its instructions wait (as while
    /// it was compiled first): a wave leaving it where its facts missed does not get that
    /// start compiled on the same facts meanwhile. The compiler thread clears the marks.
    #[test]
    fn starts_inside_a_region_compiled_again_wait() {
        let (words, insts) = (ADD_CHAIN, decoded(Gen::Gfx90a, &ADD_CHAIN));
        let (slots, b) = full_only(&insts, words.len());
        let r = b
            .replacement(Variants::Full, false)
            .expect("its home is live");
        assert!((0..3).all(|j| slots.pending[j].load(Ordering::Relaxed)));
        assert!(
            !slots.pending[3].load(Ordering::Relaxed),
            "s_endpgm is not in it"
        );
        // The second instruction, inside the region, hot meanwhile: not sent.
        let hot = THRESHOLD * INSIDE_FACTOR + 1;
        assert!((0..hot).all(|_| !slots.hit(1, THRESHOLD)));
        assert!(r.replaces.is_some_and(|o| std::ptr::eq(o, b)));
        assert_eq!((r.variants, r.affine), (Variants::Full, false));
    }

    /// A recompiled block replaces the block it was compiled from only while that one is
    /// still published at its start: a second replacement of the same block (its facts'
    /// misses after its general variant's) does not undo the first.
    #[test]
    fn a_block_is_replaced_once() {
        let (words, insts) = (ADD_CHAIN, decoded(Gen::Gfx90a, &ADD_CHAIN));
        let (slots, old) = full_only(&insts, words.len());
        let (_, first) = full_only(&insts, words.len());
        let (_, second) = full_only(&insts, words.len());
        slots.publish(0, first, Some(old));
        assert!(std::ptr::eq(slots.block(0).expect("published"), first));
        slots.publish(0, second, Some(old));
        assert!(std::ptr::eq(slots.block(0).expect("published"), first));
        // A replacement of the published block takes its place.
        slots.publish(0, second, Some(first));
        assert!(std::ptr::eq(slots.block(0).expect("published"), second));
    }

    /// A region whose lane-affine facts do not hold (the ID row is not `base + lane`) runs
    /// nothing of its planned first block (no general variant: it leaves as over budget),
    /// counts an affine miss each time, and at `MISS_LIMIT` is compiled again without facts.
    #[test]
    fn a_region_whose_facts_fail_is_compiled_again_without() {
        let (words, insts) = (ADD_CHAIN, decoded(Gen::Gfx90a, &ADD_CHAIN));
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let (slots, b) = full_only(&insts, words.len());
        assert!(b.affine, "compiled on facts");
        slots.publish(0, b, None);
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        (w.s[2], w.s[3]) = (10, 100);
        with_env(Gen::Gfx90a, |env| {
            // `base + lane`: the whole region runs on facts.
            for l in 0..64 {
                w.v[0][l] = 5 + l as u32;
            }
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((3, false)));
            assert_eq!((w.pc, w.v[4][0], w.v[4][63]), (12, 115, 178));
            assert_eq!(b.affine_misses.load(Ordering::Relaxed), 0);
            // Lane 9 off: nothing runs, a miss each time.
            w.v[0][9] = 0;
            for k in 1..MISS_LIMIT {
                w.pc = 0;
                assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((0, false)));
                assert_eq!(b.affine_misses.load(Ordering::Relaxed), k);
            }
            w.pc = 0;
            assert_eq!(run(b, &mut w, 100, &fetch, env, true), Ok((0, false)));
            let again = recompiled(&slots, b);
            assert!(!again.affine, "compiled again without facts");
            assert_eq!(again.variants, Variants::Full, "with its variants");
            w.pc = 0;
            assert_eq!(run(again, &mut w, 100, &fetch, env, true), Ok((3, false)));
            assert_eq!((w.v[4][8], w.v[4][9], w.v[4][10]), (123, 110, 125));
        });
    }

    /// A loop's exit that restores EXEC after the loop left it 0 (`s_or_b32 exec_lo, exec_lo,
    /// s9`, as clang ends every divergent loop) needs no general variant: a full-EXEC-only
    /// region runs through it without a miss, with the interpreter's state (gfx1030 wave32,
    /// where the histogram's per-work-group regions were compiled a second time for it).
    #[test]
    fn a_loop_exit_restoring_exec_is_no_miss() {
        let gen = Gen::Gfx10;
        // llvm-mc-15 -mcpu=gfx1030: s_mov_b32 s9, 0; loop: v_add_nc_u32_e32 v3, 1, v3;
        // v_cmp_lt_u32_e64 s0, 2, v3; s_or_b32 s9, s0, s9; s_andn2_b32 exec_lo, exec_lo, s9;
        // s_cbranch_execnz loop; s_or_b32 exec_lo, exec_lo, s9; v_mov_b32_e32 v4, 5;
        // s_endpgm.
        let words = [
            0xbe89_0380u32,
            0x4a06_0681,
            0xd4c1_0000,
            0x0002_0682,
            0x8809_0900,
            0x8a7e_097e,
            0xbf89_fffa,
            0x887e_097e,
            0x7e08_0285,
            0xbf81_0000,
        ];
        let insts = decoded(gen, &words);
        let fetch = |a: u64| insts.get(a as usize / 4).copied();
        let region = collect(&fetch, 0, true);
        assert_eq!(region.len(), 8, "up to s_endpgm");
        let b =
            compile_insts(region, 0, true, Variants::Full, None, DsPred::new()).expect("compiled");
        let mut w = Wave::new();
        w.set_wave32(true);
        w.set_exec(0xffff_ffff);
        with_env(gen, |env| {
            // Three iterations, then the exit with EXEC 0, checked against the interpreter.
            assert_eq!(
                run(b, &mut w, 100, &fetch, env, true),
                Ok((1 + 3 * 5 + 2, false))
            );
        });
        assert_eq!(b.misses.load(Ordering::Relaxed), 0);
        assert_eq!((w.pc, w.exec(), w.s[9]), (36, 0xffff_ffff, 0xffff_ffff));
        assert_eq!((w.v[3][0], w.v[3][31], w.v[4][0], w.v[4][31]), (3, 3, 5, 5));
    }

    /// The verify check sees a compiled block that does not do what the instructions say: a
    /// block compiled from `v_mov_b32 v1, s0` checked against `v_mov_b32 v1, s1`.
    #[test]
    fn verify_reports_a_block_that_differs_from_the_interpreter() {
        let gen = Gen::Gfx90a;
        let compiled = [decode(gen, &[0x7e02_0200])]; // v_mov_b32 v1, s0
        let claimed = [decode(gen, &[0x7e02_0201])]; // v_mov_b32 v1, s1
        assert_eq!(compilable(&compiled[0]), Some(Lower::VAlu(VAluOp::Mov)));
        let b = compile_now(&|a| compiled.get(a as usize / 4).copied(), 0, &Wave::new())
            .expect("compiled");
        assert_eq!(b.n, 1);
        let mut w = Wave::new();
        w.s[0] = 7;
        w.s[1] = 9;
        w.set_exec(0b1010);
        with_env(gen, |env| verify_both(b, &mut w, &compiled, &claimed, env));
    }

    fn verify_both(
        b: &'static Block,
        w: &mut Wave,
        compiled: &[Inst],
        claimed: &[Inst],
        env: &mut Env,
    ) {
        // Checked against its own instruction, the block agrees.
        let own = |a: u64| compiled.get(a as usize / 4).copied();
        let (n, _) = run(b, w, 100, &own, env, true).expect("agrees with the interpreter");
        assert_eq!((n, w.pc), (1, 4));
        w.pc = 0;
        assert_eq!((w.v[1][1], w.v[1][3], w.v[1][0]), (7, 7, 0));
        // Checked against another instruction, the difference is named lane by lane.
        let other = |a: u64| claimed.get(a as usize / 4).copied();
        let e = run(b, w, 100, &other, env, true).expect_err("differs");
        assert!(
            e.contains("v1[1]: compiled 0x7, interpreted 0x9")
                && e.contains("v1[3]: compiled 0x7, interpreted 0x9")
                && !e.contains("v1[0]"),
            "{e}"
        );
    }
}
