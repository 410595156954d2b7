//! The compiling tier (docs/architecture-emu.md, "The compiling tier"): hot straight-line
//! blocks of wave instructions translated to native code (`lower`, Cranelift), run in place of
//! the interpreter from the run loop's one hook.
//!
//! - **What.** A block is a maximal run of instructions that `compilable` admits (at most
//!   [`MAX_BLOCK`]), from a *block start*: a wave's first instruction in a scheduler turn, a
//!   branch target, or the instruction after one the interpreter executed because it is not
//!   compilable. The keys that compile, and how, come from `tools/jit-ops.txt` through
//!   `ops::jit_lowering` (generated), so an opcode is compiled only when listed.
//! - **When.** Dispatches use the tier only when `HSAEMU_JIT` asks (it does not beat the
//!   interpreter yet). With `HSAEMU_JIT=1` each block start counts its executions (all waves
//!   of a program); at [`THRESHOLD`] a block of at least [`MIN_BLOCK`] instructions is queued
//!   to the one background compiler thread, which publishes it in the program's slot.
//!   `HSAEMU_JIT=sync` compiles at the first execution and waits (deterministic);
//!   `HSAEMU_JIT=verify` does the same and also runs every compiled block in the interpreter
//!   on a copy of the wave, faulting when the two states differ. `run_words` compiles and
//!   verifies every block unless `HSAEMU_JIT=0`.
//! - **Falling back.** A block runs only for the wave size it was compiled for and, when it
//!   holds vector ALU instructions, only under the default MODE (round to nearest even,
//!   denormals kept, no VGPR index mode); otherwise the interpreter runs the same
//!   instructions. Memory instructions in a block are calls of the interpreter's one-range
//!   fast paths (`lower_mem.rs`, `vmem::jit_fast`); when one declines (a fault, or anything
//!   the fast path leaves to the general path), the block returns early, before it, and the
//!   interpreter runs it, so faults keep the interpreter's reports.

#![cfg_attr(not(feature = "jit"), allow(dead_code))]

#[cfg(feature = "jit")]
mod lower;

use crate::decode::{flag, Fmt, Gen, Inst, Sub, AGPR, VGPR};
use crate::exec::{self, Env, Flow};
use crate::wave::{Ty, Wave, LANES};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, OnceLock};

/// Executions of a block start before it is compiled.
pub(crate) const THRESHOLD: u32 = 1000;
/// Most instructions in one block.
pub(crate) const MAX_BLOCK: usize = 64;
/// Fewest instructions worth a block in the background tier (a shorter one costs more in
/// the call and the EXEC blends than the interpreter spends on it).
pub(crate) const MIN_BLOCK: usize = 3;

/// How a compiled block is called: the wave's scalar file (`s`, 128 dwords), its vector file
/// (512 rows of 64 dwords), SCC (one byte, 0 or 1), its `lane_ops` counter and the
/// [`CallCtx`] of its calls into the interpreter; it answers how many of its instructions ran
/// (fewer than all when a memory instruction's fast path declined: the block ends before it).
pub(crate) type BlockFn =
    unsafe extern "C" fn(*mut u32, *mut u32, *mut u8, *mut u64, *mut CallCtx) -> u32;

/// What a compiled block's calls into the interpreter (`lower_mem.rs`) reach: the wave (the
/// same one whose registers the block holds pointers into; the block touches none of them
/// during a call), the run's `Env`, and in `verify` runs the journal of global stores.
pub(crate) struct CallCtx {
    pub(crate) wave: *mut Wave,
    pub(crate) env: *mut Env<'static>,
    pub(crate) journal: *mut exec::jit_fast::Journal,
}

/// The tier's setting for dispatches, from `HSAEMU_JIT` (read once). Off unless asked for:
/// with only straight-line ALU blocks compiled it does not yet beat the interpreter
/// (docs/architecture-emu.md, "The compiling tier").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The default, `HSAEMU_JIT=0`, or built without the `jit` feature.
    Off,
    /// `HSAEMU_JIT=1`: compile hot blocks in the background.
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
        match std::env::var("HSAEMU_JIT").as_deref().map(str::trim) {
            Ok("1") => Mode::On,
            Ok("sync") => Mode::Sync,
            Ok("verify") => Mode::Verify,
            _ => Mode::Off,
        }
    })
}

/// Whether `run_words` compiles and checks its blocks: built with the tier and not
/// `HSAEMU_JIT=0` (so the per-instruction tests check the compiled forms by default).
pub(crate) fn in_single_runs() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        cfg!(feature = "jit") && std::env::var("HSAEMU_JIT").map_or(true, |v| v.trim() != "0")
    })
}

/// What a compiled instruction does (`ops::jit_lowering`, generated from
/// `tools/jit-ops.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lower {
    /// A vector ALU operation on 32-bit lanes.
    VAlu(VAluOp),
    /// `v_cmp_*` on 32-bit integers or f32 (not `v_cmpx`).
    VCmp,
    /// `v_readfirstlane_b32`.
    ReadFirstLane,
    /// A 32-bit scalar ALU operation.
    SAlu(SAluOp),
    /// Nothing to do (`s_nop`).
    Nop,
    /// A memory access run by a call to the interpreter's one-range fast path
    /// (`vmem::jit_fast`); when it declines, the block ends before it.
    Mem,
    /// An instruction run by a call to the interpreter's `step` that always continues and
    /// cannot fault (the `s_waitcnt` family: its StoreLoad fence is the interpreter's own).
    Step,
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
    AndOr,
    Xad,
    LshlOr,
    AddLshl,
    Bfi,
    /// `v_fmamk_f32` (`S0 * K + S1`, true) and `v_fmaak_f32` (`S0 * S1 + K`, false).
    FmaK(bool),
}

impl VAluOp {
    /// The vector sources it reads (`v_cndmask`'s mask and the carry-in are apart).
    pub(crate) fn sources(self) -> usize {
        use VAluOp::*;
        match self {
            Mov | Not => 1,
            Fma | LshlAdd | Add3 | Or3 | AndOr | Xad | LshlOr | AddLshl | Bfi => 3,
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
        Lower::Nop => i.fmt == Fmt::Sopp,
        Lower::Mem => exec::jit_fast::admits(i),
        Lower::Step => matches!(i.fmt, Fmt::Sopp | Fmt::Sopk),
        Lower::SAlu(op) => {
            matches!(i.fmt, Fmt::Sop1 | Fmt::Sop2 | Fmt::Sopk | Fmt::Sopc)
                && (i.dst < 128 || matches!(op, SAluOp::Cmp(..)))
                && match op {
                    SAluOp::Movk => true,
                    SAluOp::Mov => scalar_ok(i.src[0]),
                    SAluOp::Mov64 | SAluOp::Saveexec(_) => scalar64_ok(i.src[0]),
                    SAluOp::Saveexec32(_) => scalar_ok(i.src[0]),
                    SAluOp::Logic64(_) | SAluOp::Cselect64 => {
                        scalar64_ok(i.src[0]) && scalar64_ok(i.src[1])
                    }
                    _ => scalar_ok(i.src[0]) && scalar_ok(i.src[1]),
                }
        }
        Lower::VAlu(_) | Lower::VCmp | Lower::ReadFirstLane => {
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
                    Lower::VCmp => {
                        lower_compare(i.imm)
                            && i.sdst < 127
                            && vsrc_ok(i.src[0])
                            && vsrc_ok(i.src[1])
                            && i.tys[..2] == [Ty::B32, Ty::B32]
                    }
                    Lower::ReadFirstLane => i.dst < 128 && vsrc_ok(i.src[0]),
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

fn valu_ok(i: &Inst, op: VAluOp) -> bool {
    let n = op.sources();
    let srcs = i.src[..n].iter().all(|&c| vsrc_ok(c)) && i.tys[..n].iter().all(|&t| t == Ty::B32);
    let special = match op {
        // GFX8's v_add/sub/subrev_u32 write a carry (the interpreter's carry path).
        VAluOp::Add | VAluOp::Sub | VAluOp::SubRev => i.gen != Gen::Gfx8,
        VAluOp::Cndmask => i.src[2] < 127,
        VAluOp::Carry(k) => k < 3 || i.src[2] < 127,
        VAluOp::Fma | VAluOp::Fmac | VAluOp::FmaK(_) => host_fma(),
        _ => true,
    };
    (VGPR..AGPR).contains(&i.dst) && srcs && special
}

/// One compiled block.
pub(crate) struct Block {
    f: BlockFn,
    /// Instructions in it.
    pub n: u32,
    /// Bytes of machine code it covers (the PC advances by this).
    pub bytes: u64,
    /// Bytes before each instruction (the PC after a block that ended early).
    offsets: Box<[u32]>,
    /// Its instructions: the compiled code passes their addresses to its calls.
    _insts: Vec<(Inst, Lower)>,
    /// Whether it holds vector ALU instructions (which need the default MODE).
    valu: bool,
    /// The wave size it was compiled for.
    wave32: bool,
}

impl Block {
    /// Whether this block may run for `w` now (else the interpreter runs its instructions).
    #[inline]
    pub(crate) fn runs(&self, w: &Wave) -> bool {
        w.wave32 == self.wave32
            && (!self.valu
                || w.mode & (exec::fpmode::FP_MASK | exec::MODE_GPR_IDX_EN)
                    == exec::fpmode::FP_DEFAULT)
    }

    /// Bytes of code before its instruction `k` (`k` = `n`: all of it).
    #[inline]
    pub(crate) fn offset(&self, k: u32) -> u64 {
        self.offsets
            .get(k as usize)
            .map_or(self.bytes, |&o| u64::from(o))
    }

    /// Runs the block on `w` (the PC and instruction count are the caller's) and answers how
    /// many of its instructions ran.
    #[inline]
    pub(crate) fn run(
        &self,
        w: &mut Wave,
        env: &mut Env,
        journal: Option<&mut exec::jit_fast::Journal>,
    ) -> u32 {
        let v = w.v.as_mut_ptr().cast::<u32>();
        let wp: *mut Wave = w;
        let mut ctx = CallCtx {
            wave: wp,
            env: std::ptr::from_mut(env).cast(),
            journal: journal.map_or(std::ptr::null_mut(), std::ptr::from_mut),
        };
        // SAFETY: `f` was generated by `lower` for this block's instructions; it reads and
        // writes only the 128 dwords of `w.s`, the 512 rows of `w.v` (register indices are
        // reduced modulo the file when compiled), the byte of `w.scc` (storing 0 or 1, valid
        // for a bool) and `w.lane_ops`, all live and exclusively borrowed here (the scalar
        // ones derived from `wp`, which its calls (`lower_mem`) use while the block itself
        // touches no register; the rows' heap buffer is not moved by those calls); `ctx` outlives the call, and the `Inst` addresses it passes
        // point into `self._insts`.
        unsafe {
            (self.f)(
                std::ptr::addr_of_mut!((*wp).s).cast::<u32>(),
                v,
                std::ptr::addr_of_mut!((*wp).scc).cast::<u8>(),
                std::ptr::addr_of_mut!((*wp).lane_ops),
                &mut ctx,
            )
        }
    }
}

/// Per program: an execution counter and a published block per dword offset.
pub(crate) struct Slots {
    hits: Box<[AtomicU32]>,
    blocks: Box<[AtomicPtr<Block>]>,
}

/// `hits` value once a start was sent to the compiler (it is never sent again).
const SENT: u32 = u32::MAX;

impl Slots {
    pub(crate) fn new(n: usize) -> Slots {
        Slots {
            hits: (0..n).map(|_| AtomicU32::new(0)).collect(),
            blocks: (0..n)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
        }
    }

    /// The compiled block starting at dword `k`.
    #[inline]
    pub(crate) fn block(&self, k: usize) -> Option<&'static Block> {
        let p = self.blocks.get(k)?.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was published from a leaked `Box<Block>` (never freed).
        unsafe { p.as_ref() }
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
            return false;
        }
        // Racing waves may lose counts; being late by a few executions does not matter.
        h.store(n + 1, Ordering::Relaxed);
        n + 1 > threshold && h.swap(SENT, Ordering::Relaxed) != SENT
    }
}

/// Counts of what the tier did in this process (tests and `hsaemu bench` read them).
pub(crate) static COMPILED_BLOCKS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILED_INSTS: AtomicU64 = AtomicU64::new(0);
pub(crate) static FAILED_BLOCKS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILE_NANOS: AtomicU64 = AtomicU64::new(0);
pub(crate) static BLOCK_RUNS: AtomicU64 = AtomicU64::new(0);

/// The block starting at `k` of `fetch`'s program, with each instruction's lowering.
/// Without `shared_loads`, a load from memory other agents may write (global, FLAT, SMEM)
/// ends the block: `HSAEMU_JIT=verify` dispatches run each block twice, and such a load may
/// read another value the second time (a flag the host sets, a value another work-group
/// updates atomically), which is no difference in the tier.
fn collect(fetch: &dyn Fn(u64) -> Option<Inst>, pc: u64, shared_loads: bool) -> Vec<(Inst, Lower)> {
    let mut out = Vec::new();
    let mut at = pc;
    while out.len() < MAX_BLOCK {
        let Some(i) = fetch(at) else { break };
        let shared_load = is_shared_load(&i);
        let Some(l) = compilable(&i).filter(|_| shared_loads || !shared_load) else {
            if std::env::var_os("HSAEMU_JIT_DEBUG").is_some() {
                eprintln!("hsaemu-jit: block ends before `{}`", i.describe());
            }
            break;
        };
        at += u64::from(i.size);
        out.push((i, l));
    }
    out
}

/// A load from global memory (GLOBAL, FLAT, SMEM).
fn is_shared_load(i: &Inst) -> bool {
    i.fmt == Fmt::Smem
        || (matches!(i.fmt, Fmt::Global | Fmt::Flat) && i.mem.kind == crate::decode::Kind::Load)
}

enum Reply {
    Publish(Arc<Slots>, usize),
    Wait(mpsc::Sender<Option<&'static Block>>),
}

struct Request {
    insts: Vec<(Inst, Lower)>,
    wave32: bool,
    reply: Reply,
}

/// The compiler thread's queue (started on first use; `None` when the generator cannot be
/// made for this host, and then nothing is compiled).
fn queue() -> Option<&'static mpsc::Sender<Request>> {
    static Q: OnceLock<Option<mpsc::Sender<Request>>> = OnceLock::new();
    Q.get_or_init(start_compiler).as_ref()
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
                let t = std::time::Instant::now();
                let compiled = c.compile(&r.insts, r.wave32);
                if let (Err(e), true) = (&compiled, std::env::var_os("HSAEMU_JIT_DEBUG").is_some())
                {
                    let first = r
                        .insts
                        .first()
                        .map(|(i, _)| i.describe())
                        .unwrap_or_default();
                    let e: String = e.chars().take(600).collect();
                    eprintln!("hsaemu-jit: block at `{first}` not compiled: {e}");
                }
                let block = compiled.ok().map(|f| {
                    let offsets = r
                        .insts
                        .iter()
                        .scan(0u32, |at, (i, _)| {
                            let o = *at;
                            *at += u32::from(i.size);
                            Some(o)
                        })
                        .collect();
                    let b: &'static Block = Box::leak(Box::new(Block {
                        f,
                        n: r.insts.len() as u32,
                        bytes: r.insts.iter().map(|(i, _)| u64::from(i.size)).sum(),
                        offsets,
                        valu: r.insts.iter().any(|(_, l)| {
                            !matches!(l, Lower::SAlu(_) | Lower::Nop | Lower::Mem | Lower::Step)
                        }),
                        wave32: r.wave32,
                        _insts: r.insts,
                    }));
                    b
                });
                COMPILE_NANOS.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                match block {
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
                            slots.blocks[k]
                                .store(std::ptr::from_ref(b).cast_mut(), Ordering::Release);
                        }
                    }
                    Reply::Wait(tx) => {
                        let _ = tx.send(block);
                    }
                }
            }
        })
        .ok()?;
    ok_rx.recv().ok()?.then_some(tx)
}

#[cfg(not(feature = "jit"))]
fn start_compiler() -> Option<mpsc::Sender<Request>> {
    None
}

/// Compiles the block at `pc` and waits for it.
pub(crate) fn compile_now(
    fetch: &dyn Fn(u64) -> Option<Inst>,
    pc: u64,
    wave32: bool,
) -> Option<&'static Block> {
    compile_insts(collect(fetch, pc, true), wave32)
}

/// Compiles `insts` and waits for the block.
fn compile_insts(insts: Vec<(Inst, Lower)>, wave32: bool) -> Option<&'static Block> {
    if insts.is_empty() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    queue()?
        .send(Request {
            insts,
            wave32,
            reply: Reply::Wait(tx),
        })
        .ok()?;
    rx.recv().ok().flatten()
}

/// The run loop's hook at a block start `k` without a compiled block: counts it and, when
/// it is hot, compiles it (in the background, or now in `sync`/`verify` mode, returning it).
pub(crate) fn on_start(
    slots: &Arc<Slots>,
    k: usize,
    fetch: &dyn Fn(u64) -> Option<Inst>,
    pc: u64,
    wave32: bool,
) -> Option<&'static Block> {
    let sync = matches!(mode(), Mode::Sync | Mode::Verify);
    if !slots.hit(k, if sync { 0 } else { THRESHOLD }) {
        return None;
    }
    if sync {
        let b = compile_insts(collect(fetch, pc, mode() != Mode::Verify), wave32)?;
        slots.blocks[k].store(std::ptr::from_ref(b).cast_mut(), Ordering::Release);
        return Some(b);
    }
    let insts = collect(fetch, pc, true);
    if insts.len() >= MIN_BLOCK {
        if let Some(q) = queue() {
            let _ = q.send(Request {
                insts,
                wave32,
                reply: Reply::Publish(slots.clone(), k),
            });
        }
    }
    None
}

/// Runs `b` at `w.pc` and answers how many of its instructions ran; in `verify` mode (or
/// when `verify` is set) also runs those instructions in the interpreter on a copy of the
/// wave, after putting back the memory the block stored to (its global stores' journal, a
/// copy of LDS), and returns both states when they differ.
pub(crate) fn run(
    b: &Block,
    w: &mut Wave,
    fetch: &dyn Fn(u64) -> Option<Inst>,
    env: &mut Env,
    verify: bool,
) -> Result<u32, String> {
    if !verify {
        return Ok(b.run(w, env, None));
    }
    // Counted only when verifying (a shared counter would cost every run a contended write).
    BLOCK_RUNS.fetch_add(1, Ordering::Relaxed);
    let (s0, scc0, lanes0, stored0, v0) = (w.s, w.scc, w.lane_ops, w.stored, w.v.clone());
    let lds0 = b
        ._insts
        .iter()
        .any(|(i, _)| i.fmt == Fmt::Ds && i.mem.kind == crate::decode::Kind::Store)
        .then(|| env.lds.to_vec());
    let mut journal = Vec::new();
    let done = b.run(w, env, Some(&mut journal));
    let (s1, scc1, lanes1) = (w.s, w.scc, w.lane_ops);
    let v1 = std::mem::replace(&mut w.v, v0);
    (w.s, w.scc, w.lane_ops, w.stored) = (s0, scc0, lanes0, stored0);
    exec::jit_fast::undo(&journal, env);
    if let Some(l) = lds0 {
        env.lds.copy_from_slice(&l);
    }
    let pc0 = w.pc;
    let mut pc = pc0;
    for _ in 0..done {
        let Some(i) = fetch(pc) else {
            return Err(format!("no instruction at {pc:#x}"));
        };
        w.pc = pc;
        match exec::step::<false>(w, &i, env) {
            Ok(Flow::Next) => pc += u64::from(i.size),
            other => {
                return Err(format!(
                    "the interpreter did not continue after `{}`: {other:?}",
                    i.describe()
                ))
            }
        }
    }
    w.pc = pc0;
    let lanes = if w.wave32 { 32 } else { LANES };
    let mut diffs = Vec::new();
    for (k, (a, b)) in s1.iter().zip(&w.s).enumerate() {
        if a != b {
            diffs.push(format!("s[{k}]: compiled {a:#x}, interpreted {b:#x}"));
        }
    }
    if scc1 != w.scc {
        diffs.push(format!("scc: compiled {scc1}, interpreted {}", w.scc));
    }
    if lanes1 != w.lane_ops {
        diffs.push(format!(
            "lane_ops: compiled {lanes1}, interpreted {}",
            w.lane_ops
        ));
    }
    for (r, (a, b)) in v1.iter().zip(&w.v).enumerate() {
        for l in 0..lanes {
            if a[l] != b[l] {
                diffs.push(format!(
                    "v{r}[{l}]: compiled {:#x}, interpreted {:#x}",
                    a[l], b[l]
                ));
            }
        }
    }
    if diffs.is_empty() {
        return Ok(done);
    }
    diffs.truncate(8);
    Err(format!(
        "compiled block of {} instructions at {pc0:#x} differs from the interpreter: {}",
        b.n,
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
    /// Time spent compiling, in nanoseconds (on the compiler thread).
    pub compile_nanos: u64,
    /// Runs of compiled blocks checked against the interpreter (`verify` and `run_words`).
    pub runs: u64,
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
    }
}

/// Whether dispatches use the tier (`HSAEMU_JIT=1`, `sync` or `verify`, in a build with the
/// `jit` feature).
pub fn enabled() -> bool {
    mode() != Mode::Off
}

/// Whether `run_words` and its siblings compile every block and check it against the
/// interpreter (unless `HSAEMU_JIT=0`, in a build with the `jit` feature).
pub fn checks_single_runs() -> bool {
    in_single_runs()
}

#[cfg(all(test, feature = "jit"))]
mod tests {
    use super::*;
    use crate::decode::decode;
    use crate::exec::Scratch;
    use crate::memory::{MemoryMap, RegionCache};

    /// The verify check sees a compiled block that does not do what the instructions say: a
    /// block compiled from `v_mov_b32 v1, s0` checked against `v_mov_b32 v1, s1`.
    #[test]
    fn verify_reports_a_block_that_differs_from_the_interpreter() {
        let gen = Gen::Gfx90a;
        let compiled = [decode(gen, &[0x7e02_0200])]; // v_mov_b32 v1, s0
        let claimed = [decode(gen, &[0x7e02_0201])]; // v_mov_b32 v1, s1
        assert_eq!(compilable(&compiled[0]), Some(Lower::VAlu(VAluOp::Mov)));
        let b =
            compile_now(&|a| compiled.get(a as usize / 4).copied(), 0, false).expect("compiled");
        assert_eq!((b.n, b.bytes), (1, 4));
        let mut w = Wave::new();
        w.s[0] = 7;
        w.s[1] = 9;
        w.set_exec(0b1010);
        let mem = MemoryMap::new();
        let mut cache = RegionCache::default();
        let mut scratch = Scratch::new();
        let gws = crate::gws::Gws::default();
        let mut lds = [0u8; 0];
        let mut env = Env {
            gen,
            mem: &mem,
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
        // Checked against its own instruction, the block agrees.
        let own = |a: u64| compiled.get(a as usize / 4).copied();
        run(b, &mut w, &own, &mut env, true).expect("agrees with the interpreter");
        assert_eq!((w.v[1][1], w.v[1][3], w.v[1][0]), (7, 7, 0));
        // Checked against another instruction, the difference is named lane by lane.
        let other = |a: u64| claimed.get(a as usize / 4).copied();
        let e = run(b, &mut w, &other, &mut env, true).expect_err("differs");
        assert!(
            e.contains("v1[1]: compiled 0x7, interpreted 0x9")
                && e.contains("v1[3]: compiled 0x7, interpreted 0x9")
                && !e.contains("v1[0]"),
            "{e}"
        );
    }
}
