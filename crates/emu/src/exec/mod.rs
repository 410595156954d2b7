//! Instruction semantics: [`step`] executes one pre-decoded instruction on a wave. Scalar ALU,
//! scalar memory and program control live here; vector ALU in [`valu`], matrix FMA in
//! [`mfma`], vector memory (DS, FLAT/GLOBAL/SCRATCH, MUBUF) in [`vmem`].

mod cdna3;
mod clock;
mod fine_grained;
pub(crate) mod fpmode;
mod gfx12;
mod mfma;
mod mfma_f8f6f4;
mod microfloat;
pub(crate) mod mimg;
mod mxcvt;
mod rdna;
mod salu_float;
mod smfmac;
mod softfloat;
#[macro_use]
mod valu;
mod valu_cmp;
mod valu_dispatch;
mod valu_f16;
mod valu_f32;
mod valu_f64;
mod valu_int;
mod valu_media;
mod valu_packed;
mod vmem;
pub(crate) mod wmma;
mod wmma12;

pub(crate) use valu::Scratch;
pub(crate) use vmem::jit_fast;

use crate::decode::{Fmt, Gen, Inst};
use crate::error::FaultKind;
use crate::memory::{host, MemoryMap, RegionCache};
use crate::ops::Op;
use crate::wave::{Ty, Wave};

/// MODE.GPR_IDX_EN (GFX8/9, bit 27): VGPR index mode is on (`s_set_gpr_idx_on`).
pub(crate) const MODE_GPR_IDX_EN: u32 = 1 << 27;
/// MODE's IEEE bit (`v_max_f32`/`v_min_f32` quiet a signalling NaN under it).
pub(crate) const MODE_IEEE: u32 = valu::MODE_IEEE;
/// The operand code of M0.
const M0: usize = 124;

/// What the scheduler does after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Continue at the next instruction.
    Next,
    /// Continue at this absolute address.
    Jump(u64),
    /// Wait at the work-group barrier (PC advances).
    Barrier,
    /// Let other waves run (PC advances).
    Yield,
    /// Execute this instruction again later (PC stays; it does not count as executed): a
    /// wave waiting at a global wave sync barrier.
    Retry,
    /// The wave ended.
    End,
}

/// A fault raised by an instruction, before the scheduler adds where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LaneFault {
    pub kind: FaultKind,
    pub lane: Option<u32>,
}

impl LaneFault {
    pub(crate) fn new(kind: FaultKind, lane: Option<u32>) -> LaneFault {
        LaneFault { kind, lane }
    }
}

pub(crate) type R = Result<Flow, LaneFault>;

/// What an instruction may touch besides its wave.
pub(crate) struct Env<'a> {
    pub gen: Gen,
    pub mem: &'a MemoryMap,
    pub cache: &'a mut RegionCache,
    pub lds: &'a mut [u8],
    pub private_per_lane: u32,
    pub scratch: &'a mut valu::Scratch,
    /// Shader clock (MHz), the rate of `s_memtime`.
    pub clock_mhz: u32,
    /// The GPU's global wave sync resources.
    pub gws: &'a crate::gws::Gws,
    /// A fixed schedule (`HSAEMU_DETERMINISTIC`): the clocks count the wave's instructions.
    pub deterministic: bool,
    /// The work-group's check state when `--check` is on.
    pub check: Option<&'a mut crate::check::group::GroupCheck>,
    /// The work-group barrier as the running wave sees it (GFX12 `s_barrier_signal_isfirst`,
    /// `s_get_barrier_state`), kept by the scheduler.
    pub barrier: BarrierState,
}

/// The work-group barrier's state: the waves that have signalled it in this phase (each
/// waits at its signal until the barrier completes) and its members (the waves that have not
/// ended: an ended wave does not hold a barrier back).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BarrierState {
    pub signalled: u32,
    pub members: u32,
}

pub(crate) fn unimplemented(i: &Inst) -> LaneFault {
    let mnemonic = match crate::ops::not_for_compute(i.opcode) {
        Some(why) => format!("{} (not for compute: {why})", i.name()),
        None => i.name().to_string(),
    };
    LaneFault::new(FaultKind::Unimplemented { mnemonic }, None)
}

/// Whether the emulator has semantics for a decoded instruction (for coverage reports): every
/// opcode the generated join (`ops::op_of`) gives a handler, a compare or a memory descriptor.
pub(crate) fn implemented(i: &Inst) -> bool {
    !matches!(i.fmt, Fmt::Unimplemented | Fmt::Invalid)
}

/// Executes one instruction. `C`: checking is on (`--check`, see [`crate::check`]): vector
/// memory instructions take their per-lane paths and hand their accesses to the checkers.
/// Inlined into the scheduler's per-instruction loop (`dispatch::run_wave`): a call per
/// wave-instruction costs about 1% of a dispatch.
#[inline(always)]
pub(crate) fn step<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    // Any instruction may write rows a compiled region marked (`Wave::tile_marks`,
    // `Wave::ds_marks`).
    w.tile_marks = 0;
    w.ds_marks = 0;
    if C {
        if let Some(g) = env.check.as_deref_mut() {
            g.step(w, i);
        }
    }
    match i.fmt {
        Fmt::Sop1 if matches!(i.op, Op::S_SENDMSG_RTN_B32 | Op::S_SENDMSG_RTN_B64) => {
            rdna::sendmsg_rtn(w, i, env)
        }
        Fmt::Sop1 if matches!(i.op, Op::S_BARRIER_SIGNAL_ISFIRST | Op::S_GET_BARRIER_STATE) => {
            rdna::barrier_state(w, i, env.barrier)
        }
        Fmt::Sop2 | Fmt::Sop1 | Fmt::Sopk | Fmt::Sopc => salu(w, i),
        Fmt::Sopp => sopp(w, i),
        Fmt::Smem => vector_memory::<C>(w, i, env, smem::<C>),
        Fmt::Vop1 | Fmt::Vop2 | Fmt::Vopc | Fmt::Vop3 | Fmt::Vop3p => {
            valu_dispatch::valu(w, i, env)
        }
        Fmt::Ds => vector_memory::<C>(w, i, env, vmem::ds::<C>),
        Fmt::Flat | Fmt::Global | Fmt::Scratch => vector_memory::<C>(w, i, env, vmem::flat::<C>),
        // Typed (format) buffer accesses: the texture path of 1DB images.
        Fmt::Mubuf if mimg::is_buffer_format(i.op) => mimg::buffer_format(w, i, env),
        Fmt::Mubuf => vector_memory::<C>(w, i, env, vmem::mubuf::<C>),
        Fmt::Mimg => mimg::mimg(w, i, env),
        Fmt::Vopd => valu_dispatch::vopd(w, i, env),
        Fmt::Unimplemented => Err(unimplemented(i)),
        Fmt::Invalid => Err(LaneFault::new(
            FaultKind::IllegalInstruction { word: i.word },
            None,
        )),
    }
}

/// Runs a memory instruction; checked, then hands the accesses it noted to the checkers.
#[inline(always)]
fn vector_memory<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    f: fn(&mut Wave, &Inst, &mut Env) -> R,
) -> R {
    if C {
        if let Some(g) = env.check.as_deref_mut() {
            g.begin(w, i);
        }
    }
    let r = f(w, i, env);
    if C {
        if let Some(g) = env.check.as_deref_mut() {
            crate::check::group::flush(w, i, g);
        }
    }
    r
}

fn bfe32(v: u32, off: u32, width: u32) -> u32 {
    let off = off & 31;
    let width = width & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = v >> off;
    if width >= 32 {
        x
    } else {
        x & ((1u32 << width) - 1)
    }
}

fn sbfe32(v: u32, off: u32, width: u32) -> u32 {
    let off = off & 31;
    let width = width & 0x7f;
    if width == 0 {
        return 0;
    }
    let x = (v as i32) >> off;
    if width >= 32 {
        x as u32
    } else {
        let sh = 32 - width;
        ((x << sh) >> sh) as u32
    }
}

/// Scalar ALU (SOP1, SOP2, SOPK, SOPC).
fn salu(w: &mut Wave, i: &Inst) -> R {
    let pc = w.pc;
    let [t0, t1, _] = i.tys;
    let a = w.sread(i.src[0], i.lit, t0);
    let b = w.sread(i.src[1], i.lit, t1);
    let a64 = || w.sread64(i.src[0], i.lit, t0);
    let b64 = || w.sread64(i.src[1], i.lit, t1);
    let simm = i.imm;
    let k = simm as u32;
    let d = i.dst;
    macro_rules! s32 {
        ($v:expr, scc: $c:expr) => {{
            let v: u32 = $v;
            let c: bool = $c;
            w.swrite(d, v);
            w.scc = c;
        }};
        ($v:expr) => {{
            let v: u32 = $v;
            w.swrite(d, v);
        }};
    }
    macro_rules! s64 {
        ($v:expr, scc: $c:expr) => {{
            let v: u64 = $v;
            let c: bool = $c;
            w.swrite64(d, v);
            w.scc = c;
        }};
        ($v:expr) => {{
            let v: u64 = $v;
            w.swrite64(d, v);
        }};
    }
    macro_rules! logic64 {
        ($e:expr) => {{
            let r: u64 = $e;
            s64!(r, scc: r != 0)
        }};
    }
    macro_rules! saveexec {
        ($f:expr) => {{
            let old = w.exec();
            let s = a64();
            let f: fn(u64, u64) -> u64 = $f;
            let new = f(s, old);
            w.swrite64(d, old);
            w.set_exec(new);
            w.scc = new != 0;
        }};
    }
    match i.op {
        // SOP2
        Op::S_ADD_U32 => {
            let (r, c) = a.overflowing_add(b);
            s32!(r, scc: c)
        }
        Op::S_SUB_U32 => {
            let (r, c) = a.overflowing_sub(b);
            s32!(r, scc: c)
        }
        Op::S_ADD_I32 => {
            let (r, o) = (a as i32).overflowing_add(b as i32);
            s32!(r as u32, scc: o)
        }
        Op::S_SUB_I32 => {
            let (r, o) = (a as i32).overflowing_sub(b as i32);
            s32!(r as u32, scc: o)
        }
        Op::S_ADDC_U32 => {
            let r = u64::from(a) + u64::from(b) + u64::from(w.scc);
            s32!(r as u32, scc: r >> 32 != 0)
        }
        Op::S_SUBB_U32 => {
            let r = u64::from(a)
                .wrapping_sub(u64::from(b))
                .wrapping_sub(u64::from(w.scc));
            s32!(r as u32, scc: u64::from(b) + u64::from(w.scc) > u64::from(a))
        }
        Op::S_MIN_I32 => s32!((a as i32).min(b as i32) as u32, scc: (a as i32) < (b as i32)),
        Op::S_MIN_U32 => s32!(a.min(b), scc: a < b),
        Op::S_MAX_I32 => s32!((a as i32).max(b as i32) as u32, scc: (a as i32) > (b as i32)),
        Op::S_MAX_U32 => s32!(a.max(b), scc: a > b),
        Op::S_CSELECT_B32 => s32!(if w.scc { a } else { b }),
        Op::S_CSELECT_B64 => {
            let v = if w.scc { a64() } else { b64() };
            s64!(v)
        }
        Op::S_AND_B32 => s32!(a & b, scc: a & b != 0),
        Op::S_OR_B32 => s32!(a | b, scc: a | b != 0),
        Op::S_XOR_B32 => s32!(a ^ b, scc: a ^ b != 0),
        Op::S_ANDN2_B32 => s32!(a & !b, scc: a & !b != 0),
        Op::S_ORN2_B32 => s32!(a | !b, scc: a | !b != 0),
        Op::S_NAND_B32 => s32!(!(a & b), scc: !(a & b) != 0),
        Op::S_NOR_B32 => s32!(!(a | b), scc: !(a | b) != 0),
        Op::S_XNOR_B32 => s32!(!(a ^ b), scc: !(a ^ b) != 0),
        Op::S_AND_B64 => logic64!(a64() & b64()),
        // GFX12 64-bit scalar arithmetic: no carry, SCC unchanged.
        Op::S_ADD_NC_U64 => s64!(a64().wrapping_add(b64())),
        Op::S_SUB_NC_U64 => s64!(a64().wrapping_sub(b64())),
        Op::S_MUL_U64 => s64!(a64().wrapping_mul(b64())),
        Op::S_OR_B64 => logic64!(a64() | b64()),
        Op::S_XOR_B64 => logic64!(a64() ^ b64()),
        Op::S_ANDN2_B64 => logic64!(a64() & !b64()),
        Op::S_ORN2_B64 => logic64!(a64() | !b64()),
        Op::S_NAND_B64 => logic64!(!(a64() & b64())),
        Op::S_NOR_B64 => logic64!(!(a64() | b64())),
        Op::S_XNOR_B64 => logic64!(!(a64() ^ b64())),
        Op::S_LSHL_B32 => {
            let r = a << (b & 31);
            s32!(r, scc: r != 0)
        }
        Op::S_LSHR_B32 => {
            let r = a >> (b & 31);
            s32!(r, scc: r != 0)
        }
        Op::S_ASHR_I32 => {
            let r = ((a as i32) >> (b & 31)) as u32;
            s32!(r, scc: r != 0)
        }
        Op::S_LSHL_B64 => logic64!(a64() << (b & 63)),
        Op::S_LSHR_B64 => logic64!(a64() >> (b & 63)),
        Op::S_ASHR_I64 => logic64!(((a64() as i64) >> (b & 63)) as u64),
        Op::S_LSHL1_ADD_U32 | Op::S_LSHL2_ADD_U32 | Op::S_LSHL3_ADD_U32 | Op::S_LSHL4_ADD_U32 => {
            let n = match i.op {
                Op::S_LSHL1_ADD_U32 => 1,
                Op::S_LSHL2_ADD_U32 => 2,
                Op::S_LSHL3_ADD_U32 => 3,
                _ => 4,
            };
            let r = (u64::from(a) << n) + u64::from(b);
            s32!(r as u32, scc: r >> 32 != 0)
        }
        // D = ((1 << S0[4:0]) - 1) << S1[4:0].
        Op::S_BFM_B32 => s32!((((1u64 << (a & 31)) - 1) as u32) << (b & 31)),
        Op::S_BFM_B64 => s64!((((1u128 << (a & 63)) - 1) as u64) << (b & 63)),
        Op::S_MUL_I32 => s32!(a.wrapping_mul(b)),
        Op::S_MUL_HI_U32 => s32!(((u64::from(a) * u64::from(b)) >> 32) as u32),
        Op::S_MUL_HI_I32 => s32!(((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32),
        Op::S_BFE_U32 => {
            let r = bfe32(a, b & 31, b >> 16 & 0x7f);
            s32!(r, scc: r != 0)
        }
        Op::S_BFE_I32 => {
            let r = sbfe32(a, b & 31, b >> 16 & 0x7f);
            s32!(r, scc: r != 0)
        }
        Op::S_BFE_U64 | Op::S_BFE_I64 => {
            let off = b & 63;
            let width = (b >> 16 & 0x7f).min(64);
            let x = a64();
            let r = if width == 0 {
                0
            } else if i.op == Op::S_BFE_U64 {
                let v = x >> off;
                if width >= 64 {
                    v
                } else {
                    v & ((1u64 << width) - 1)
                }
            } else {
                let v = (x as i64) >> off;
                let sh = 64 - width;
                ((v << sh) >> sh) as u64
            };
            logic64!(r)
        }
        Op::S_ABSDIFF_I32 => {
            let r = (a as i32).wrapping_sub(b as i32).unsigned_abs();
            s32!(r, scc: r != 0)
        }
        Op::S_PACK_LL_B32_B16 => s32!((a & 0xffff) | b << 16),
        Op::S_PACK_LH_B32_B16 => s32!((a & 0xffff) | (b & 0xffff_0000)),
        Op::S_PACK_HH_B32_B16 => s32!(a >> 16 | (b & 0xffff_0000)),
        Op::S_PACK_HL_B32_B16 => s32!(a >> 16 | b << 16),
        // SOP1
        Op::S_MOV_B32 => s32!(a),
        Op::S_MOV_B64 => s64!(a64()),
        Op::S_CMOV_B32 => {
            if w.scc {
                s32!(a)
            }
        }
        Op::S_CMOV_B64 => {
            if w.scc {
                s64!(a64())
            }
        }
        Op::S_NOT_B32 => s32!(!a, scc: !a != 0),
        Op::S_NOT_B64 => logic64!(!a64()),
        Op::S_WQM_B32 => {
            let mut r = 0;
            for q in 0..8 {
                if a >> (4 * q) & 0xf != 0 {
                    r |= 0xf << (4 * q);
                }
            }
            s32!(r, scc: r != 0)
        }
        Op::S_WQM_B64 => {
            let x = a64();
            let mut r = 0u64;
            for q in 0..16 {
                if x >> (4 * q) & 0xf != 0 {
                    r |= 0xf << (4 * q);
                }
            }
            logic64!(r)
        }
        // Quad mask: bit q of the result is set when any bit of quad q of the source is.
        Op::S_QUADMASK_B32 => {
            let r = (0..8).fold(0u32, |r, q| r | u32::from(a >> (4 * q) & 0xf != 0) << q);
            s32!(r, scc: r != 0)
        }
        Op::S_QUADMASK_B64 => {
            let x = a64();
            let r = (0..16).fold(0u64, |r, q| r | u64::from(x >> (4 * q) & 0xf != 0) << q);
            logic64!(r)
        }
        // Each bit of the 32-bit source twice (bits 2k and 2k+1 = source bit k); SCC unchanged.
        Op::S_BITREPLICATE_B64_B32 => {
            let r = (0..32).fold(0u64, |r, k| r | (u64::from(a >> k & 1) * (3 << (2 * k))));
            s64!(r)
        }
        // s_version: a marker of the ISA version the code was built for; does nothing.
        Op::S_VERSION => {}
        Op::S_BREV_B32 => s32!(a.reverse_bits()),
        Op::S_BREV_B64 => s64!(a64().reverse_bits()),
        Op::S_BCNT0_I32_B32 => s32!(a.count_zeros(), scc: a != u32::MAX),
        Op::S_BCNT1_I32_B32 => s32!(a.count_ones(), scc: a != 0),
        Op::S_BCNT0_I32_B64 => {
            let x = a64();
            s32!(x.count_zeros(), scc: x != u64::MAX)
        }
        Op::S_BCNT1_I32_B64 => {
            let x = a64();
            s32!(x.count_ones(), scc: x != 0)
        }
        Op::S_FF0_I32_B32 => s32!(if a == u32::MAX {
            u32::MAX
        } else {
            (!a).trailing_zeros()
        }),
        Op::S_FF1_I32_B32 => s32!(if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        Op::S_FF0_I32_B64 => {
            let x = a64();
            s32!(if x == u64::MAX {
                u32::MAX
            } else {
                (!x).trailing_zeros()
            })
        }
        Op::S_FF1_I32_B64 => {
            let x = a64();
            s32!(if x == 0 { u32::MAX } else { x.trailing_zeros() })
        }
        Op::S_FLBIT_I32_B32 => s32!(if a == 0 { u32::MAX } else { a.leading_zeros() }),
        Op::S_FLBIT_I32_B64 => {
            let x = a64();
            s32!(if x == 0 { u32::MAX } else { x.leading_zeros() })
        }
        // The leading bits equal to the sign bit, the sign bit included (the ISA's
        // pseudo-code: the first i from 1 with S0[31 - i] != S0[31]; LLVM's i64-to-float
        // lowering shifts by sffbh − 1 "to preserve the sign bit"); −1 for 0 and −1.
        Op::S_FLBIT_I32 => {
            let x = if (a as i32) < 0 { !a } else { a };
            s32!(if x == 0 { u32::MAX } else { x.leading_zeros() })
        }
        Op::S_FLBIT_I32_I64 => {
            let v = a64();
            let x = if (v as i64) < 0 { !v } else { v };
            s32!(if x == 0 { u32::MAX } else { x.leading_zeros() })
        }
        Op::S_SEXT_I32_I8 => s32!(a as u8 as i8 as i32 as u32),
        Op::S_SEXT_I32_I16 => s32!(a as u16 as i16 as i32 as u32),
        Op::S_BITSET0_B32 => {
            let v = w.sread(d, 0, Ty::B32) & !(1 << (a & 31));
            s32!(v)
        }
        Op::S_BITSET1_B32 => {
            let v = w.sread(d, 0, Ty::B32) | 1 << (a & 31);
            s32!(v)
        }
        Op::S_BITSET0_B64 => {
            let v = w.sread64(d, 0, Ty::I64) & !(1u64 << (a & 63));
            s64!(v)
        }
        Op::S_BITSET1_B64 => {
            let v = w.sread64(d, 0, Ty::I64) | 1u64 << (a & 63);
            s64!(v)
        }
        Op::S_ABS_I32 => {
            let r = (a as i32).unsigned_abs();
            s32!(r, scc: r != 0)
        }
        Op::S_GETPC_B64 => s64!(pc + 4),
        Op::S_SETPC_B64 => return Ok(Flow::Jump(a64())),
        Op::S_SWAPPC_B64 => {
            let target = a64();
            s64!(pc + 4);
            return Ok(Flow::Jump(target));
        }
        Op::S_AND_SAVEEXEC_B64 => saveexec!(|s, e| s & e),
        Op::S_OR_SAVEEXEC_B64 => saveexec!(|s, e| s | e),
        Op::S_XOR_SAVEEXEC_B64 => saveexec!(|s, e| s ^ e),
        Op::S_ANDN2_SAVEEXEC_B64 => saveexec!(|s, e| s & !e),
        Op::S_ORN2_SAVEEXEC_B64 => saveexec!(|s, e| s | !e),
        Op::S_NAND_SAVEEXEC_B64 => saveexec!(|s, e| !(s & e)),
        Op::S_NOR_SAVEEXEC_B64 => saveexec!(|s, e| !(s | e)),
        Op::S_XNOR_SAVEEXEC_B64 => saveexec!(|s, e| !(s ^ e)),
        Op::S_ANDN1_SAVEEXEC_B64 => saveexec!(|s, e| !s & e),
        Op::S_ORN1_SAVEEXEC_B64 => saveexec!(|s, e| !s | e),
        Op::S_ANDN1_WREXEC_B64 | Op::S_ANDN2_WREXEC_B64 => {
            let s = a64();
            let e = w.exec();
            let new = if i.op == Op::S_ANDN1_WREXEC_B64 {
                !s & e
            } else {
                s & !e
            };
            w.set_exec(new);
            s64!(new, scc: new != 0)
        }
        Op::S_MOVRELS_B32 => {
            let v = w.sread(i.src[0].wrapping_add(w.m0() as u16), 0, Ty::B32);
            s32!(v)
        }
        Op::S_MOVRELD_B32 => {
            let dd = d.wrapping_add(w.m0() as u16);
            w.swrite(dd, a);
        }
        Op::S_MOVRELS_B64 => {
            let v = w.sread64(i.src[0].wrapping_add(w.m0() as u16), 0, Ty::I64);
            s64!(v)
        }
        Op::S_MOVRELD_B64 => {
            let dd = d.wrapping_add(w.m0() as u16);
            w.swrite64(dd, a64());
        }
        // GFX10: source index M0[9:0], destination index M0[25:16].
        Op::S_MOVRELSD_2_B32 => {
            let m0 = w.m0();
            let v = w.sread(i.src[0].wrapping_add((m0 & 0x3ff) as u16), 0, Ty::B32);
            w.swrite(d.wrapping_add((m0 >> 16 & 0x3ff) as u16), v);
        }
        // SOPK
        Op::S_MOVK_I32 => s32!(simm as u32),
        Op::S_CMOVK_I32 => {
            if w.scc {
                s32!(simm as u32)
            }
        }
        Op::S_ADDK_I32 => {
            let cur = w.sread(d, 0, Ty::B32) as i32;
            let (r, o) = cur.overflowing_add(simm);
            s32!(r as u32, scc: o)
        }
        Op::S_MULK_I32 => {
            let cur = w.sread(d, 0, Ty::B32) as i32;
            s32!(cur.wrapping_mul(simm) as u32)
        }
        Op::S_CMPK_EQ_I32 => w.scc = w.sread(d, 0, Ty::B32) as i32 == simm,
        Op::S_CMPK_LG_I32 => w.scc = w.sread(d, 0, Ty::B32) as i32 != simm,
        Op::S_CMPK_GT_I32 => w.scc = w.sread(d, 0, Ty::B32) as i32 > simm,
        Op::S_CMPK_GE_I32 => w.scc = w.sread(d, 0, Ty::B32) as i32 >= simm,
        Op::S_CMPK_LT_I32 => w.scc = (w.sread(d, 0, Ty::B32) as i32) < simm,
        Op::S_CMPK_LE_I32 => w.scc = w.sread(d, 0, Ty::B32) as i32 <= simm,
        Op::S_CMPK_EQ_U32 => w.scc = w.sread(d, 0, Ty::B32) == k & 0xffff,
        Op::S_CMPK_LG_U32 => w.scc = w.sread(d, 0, Ty::B32) != k & 0xffff,
        Op::S_CMPK_GT_U32 => w.scc = w.sread(d, 0, Ty::B32) > k & 0xffff,
        Op::S_CMPK_GE_U32 => w.scc = w.sread(d, 0, Ty::B32) >= k & 0xffff,
        Op::S_CMPK_LT_U32 => w.scc = w.sread(d, 0, Ty::B32) < k & 0xffff,
        Op::S_CMPK_LE_U32 => w.scc = w.sread(d, 0, Ty::B32) <= k & 0xffff,
        Op::S_GETREG_B32 => {
            let id = k & 0x3f;
            let off = k >> 6 & 0x1f;
            let size = (k >> 11 & 0x1f) + 1;
            let v = if i.gen.is_rdna() {
                rdna::getreg(w, id).unwrap_or_else(|| getreg(w, id))
            } else {
                getreg(w, id)
            };
            s32!(bfe32(v, off, size))
        }
        Op::S_SETREG_B32 | Op::S_SETREG_IMM32_B32 => {
            let v = if i.op == Op::S_SETREG_B32 {
                w.sread(d, 0, Ty::B32)
            } else {
                i.lit
            };
            let id = k & 0x3f;
            let off = k >> 6 & 0x1f;
            let size = (k >> 11 & 0x1f) + 1;
            let mask = if size >= 32 {
                u32::MAX
            } else {
                ((1u32 << size) - 1) << off
            };
            match id {
                1 => w.mode = (w.mode & !mask) | (v << off & mask),
                3 => w.trapsts = (w.trapsts & !mask) | (v << off & mask),
                _ if i.gen.is_rdna() => {
                    rdna::setreg(w, id, mask, v << off);
                }
                _ => {}
            }
        }
        Op::S_CALL_B64 => {
            s64!(pc + 4);
            return Ok(Flow::Jump((pc as i64 + 4 + i64::from(simm) * 4) as u64));
        }
        // SOPC
        Op::S_CMP_EQ_I32 | Op::S_CMP_EQ_U32 => w.scc = a == b,
        Op::S_CMP_LG_I32 | Op::S_CMP_LG_U32 => w.scc = a != b,
        Op::S_CMP_GT_I32 => w.scc = a as i32 > b as i32,
        Op::S_CMP_GE_I32 => w.scc = a as i32 >= b as i32,
        Op::S_CMP_LT_I32 => w.scc = (a as i32) < b as i32,
        Op::S_CMP_LE_I32 => w.scc = a as i32 <= b as i32,
        Op::S_CMP_GT_U32 => w.scc = a > b,
        Op::S_CMP_GE_U32 => w.scc = a >= b,
        Op::S_CMP_LT_U32 => w.scc = a < b,
        Op::S_CMP_LE_U32 => w.scc = a <= b,
        Op::S_CMP_EQ_U64 => w.scc = a64() == b64(),
        Op::S_CMP_LG_U64 => w.scc = a64() != b64(),
        Op::S_BITCMP0_B32 => w.scc = a >> (b & 31) & 1 == 0,
        Op::S_BITCMP1_B32 => w.scc = a >> (b & 31) & 1 == 1,
        Op::S_BITCMP0_B64 => w.scc = a64() >> (b & 63) & 1 == 0,
        Op::S_BITCMP1_B64 => w.scc = a64() >> (b & 63) & 1 == 1,
        // VGPR index mode (GFX8/9): the index in M0[7:0], the operands it applies to in
        // M0[15:12] (the SIMM4 of `s_set_gpr_idx_on`), MODE.GPR_IDX_EN; `valu` applies it.
        Op::S_SET_GPR_IDX_ON => {
            let m0 = w.m0() & !0xf0ff | a & 0xff | (i.imm as u32 & 0xf) << 12;
            w.s[M0] = m0;
            w.mode |= MODE_GPR_IDX_EN;
        }
        Op::S_SET_GPR_IDX_IDX => w.s[M0] = w.m0() & !0xff | a & 0xff,
        Op::S_SETVSKIP => {}
        _ => return rdna::salu(w, i).unwrap_or_else(|| Err(unimplemented(i))),
    }
    Ok(Flow::Next)
}

/// `s_getreg_b32` sources.
fn getreg(w: &Wave, id: u32) -> u32 {
    match id {
        1 => w.mode,
        2 => {
            // STATUS: SCC, EXECZ, VCCZ, IN_BARRIER...
            u32::from(w.scc) | u32::from(w.exec() == 0) << 9 | u32::from(w.vcc() == 0) << 10
        }
        3 => w.trapsts,
        // HW_ID: WAVE_ID [3:0]; SIMD_ID [5:4] from the host worker; CU_ID [11:8], SH_ID
        // [12], SE_ID [14:13] from the work-group's emulated compute unit.
        4 => {
            w.id & 0xf
                | (w.simd & 3) << 4
                | (w.cu & 0xf) << 8
                | (w.cu >> 4 & 1) << 12
                | (w.cu >> 5 & 3) << 13
        }
        15 => {
            // SH_MEM_BASES: [31:16] shared aperture hi >> 16, [15:0] private aperture hi >> 16.
            (crate::memory::SHARED_APERTURE_HI >> 16) << 16
                | crate::memory::PRIVATE_APERTURE_HI >> 16
        }
        _ => 0,
    }
}

/// Program control (SOPP).
fn sopp(w: &mut Wave, i: &Inst) -> R {
    let target = || (w.pc as i64 + 4 + i64::from(i.imm) * 4) as u64;
    let jump_if = |c: bool| if c { Flow::Jump(target()) } else { Flow::Next };
    Ok(match i.op {
        Op::S_NOP
        | Op::S_SETPRIO
        | Op::S_ICACHE_INV
        | Op::S_INCPERFLEVEL
        | Op::S_DECPERFLEVEL
        | Op::S_TTRACEDATA
        | Op::S_SETKILL
        | Op::S_SENDMSGHALT
        | Op::S_SENDMSG
        // Every earlier instruction has completed when the next one issues here.
        | Op::S_WAIT_IDLE
        // No wave of the work-group sleeps longer than one scheduler turn (`s_sleep`).
        | Op::S_WAKEUP
        // The hints GFX11/GFX12 code is full of (3–6 per wave of a vector add), here rather
        // than in the cold `rdna::sopp` call: GFX11's dependency and clause hints, GFX12's
        // `s_wait_alu` (s_waitcnt_depctr's successor) and the counter waits that need nothing
        // from an in-order emulator (loads, LDS and scalar memory complete in order).
        | Op::S_DELAY_ALU
        | Op::S_CLAUSE
        | Op::S_SET_INST_PREFETCH_DISTANCE
        | Op::S_WAIT_ALU
        | Op::S_WAIT_LOADCNT
        | Op::S_WAIT_KMCNT
        | Op::S_WAIT_DSCNT
        | Op::S_WAIT_LOADCNT_DSCNT => Flow::Next,
        Op::S_SET_GPR_IDX_OFF => {
            w.mode &= !MODE_GPR_IDX_EN;
            Flow::Next
        }
        Op::S_SET_GPR_IDX_MODE => {
            w.s[M0] = w.m0() & !0xf000 | (i.imm as u32 & 0xf) << 12;
            Flow::Next
        }
        Op::S_WAITCNT => {
            // Memory operations complete in order; only vmcnt(0) after stores needs a host
            // StoreLoad fence (amdgpu-execution.md §0.1).
            let k = i.imm as u32;
            let vmcnt = (k & 0xf) | (k >> 14 & 3) << 4;
            // GFX10 counts stores in vscnt instead (`s_waitcnt_vscnt`, exec/rdna.rs).
            if vmcnt == 0 && w.stored && !i.gen.is_rdna() {
                // R5. The `no-storeload-fence` feature exists only to show that the SB litmus
                // test can fail (docs/litmus.md); a default build always fences.
                #[cfg(not(feature = "no-storeload-fence"))]
                host::fence();
                w.stored = false;
            }
            Flow::Next
        }
        Op::S_ENDPGM | Op::S_ENDPGM_SAVED => Flow::End,
        Op::S_BRANCH => Flow::Jump(target()),
        Op::S_CBRANCH_SCC0 => jump_if(!w.scc),
        Op::S_CBRANCH_SCC1 => jump_if(w.scc),
        Op::S_CBRANCH_VCCZ => jump_if(w.vcc() == 0),
        Op::S_CBRANCH_VCCNZ => jump_if(w.vcc() != 0),
        Op::S_CBRANCH_EXECZ => jump_if(w.exec() == 0),
        Op::S_CBRANCH_EXECNZ => jump_if(w.exec() != 0),
        Op::S_BARRIER => Flow::Barrier,
        Op::S_SLEEP => Flow::Yield,
        Op::S_TRAP => {
            let id = (i.imm as u32 & 0xff) as u16;
            if id == 3 {
                Flow::Next
            } else {
                return Err(LaneFault::new(FaultKind::Trap { trap_id: id }, None));
            }
        }
        _ => return rdna::sopp(w, i).unwrap_or_else(|| Err(unimplemented(i))),
    })
}

/// Scalar memory.
fn smem<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let n = match i.op {
        // Scalar atomics and scalar scratch: executed from their memory descriptor.
        Op::Mem => return vmem::scalar::<C>(w, i, env),
        Op::S_LOAD_DWORD
        | Op::S_BUFFER_LOAD_DWORD
        | Op::S_STORE_DWORD
        | Op::S_BUFFER_STORE_DWORD => 1,
        Op::S_LOAD_DWORDX2
        | Op::S_BUFFER_LOAD_DWORDX2
        | Op::S_STORE_DWORDX2
        | Op::S_BUFFER_STORE_DWORDX2 => 2,
        // GFX12's three-dword loads.
        Op::S_LOAD_B96 | Op::S_BUFFER_LOAD_B96 => 3,
        // GFX12's sub-dword loads (zero- or sign-extended to a dword).
        Op::S_LOAD_U8
        | Op::S_LOAD_I8
        | Op::S_LOAD_U16
        | Op::S_LOAD_I16
        | Op::S_BUFFER_LOAD_U8
        | Op::S_BUFFER_LOAD_I8
        | Op::S_BUFFER_LOAD_U16
        | Op::S_BUFFER_LOAD_I16 => 1,
        Op::S_LOAD_DWORDX4
        | Op::S_BUFFER_LOAD_DWORDX4
        | Op::S_STORE_DWORDX4
        | Op::S_BUFFER_STORE_DWORDX4 => 4,
        Op::S_LOAD_DWORDX8 | Op::S_BUFFER_LOAD_DWORDX8 => 8,
        Op::S_LOAD_DWORDX16 | Op::S_BUFFER_LOAD_DWORDX16 => 16,
        Op::S_MEMTIME | Op::S_MEMREALTIME => {
            let t = if env.deterministic {
                clock::deterministic(w.instructions)
            } else if i.op == Op::S_MEMTIME {
                clock::memtime(env.clock_mhz)
            } else {
                clock::memrealtime()
            };
            w.swrite64(i.dst, t);
            return Ok(Flow::Next);
        }
        Op::S_DCACHE_INV
        | Op::S_DCACHE_WB
        | Op::S_DCACHE_INV_VOL
        | Op::S_DCACHE_WB_VOL
        | Op::S_GL1_INV => return Ok(Flow::Next),
        // Discarding a dirty scalar-cache line: scalar stores write memory at once here, so
        // there is no dirty line to drop (amdgpu-execution.md §2.5).
        Op::S_DCACHE_DISCARD | Op::S_DCACHE_DISCARD_X2 => return Ok(Flow::Next),
        // GFX12 prefetches into the instruction or scalar data cache: hints without a
        // result. The address is not checked: a prefetch does not fault on the hardware
        // (a translation failure drops it), and there is no cache here to fill.
        Op::S_PREFETCH_INST
        | Op::S_PREFETCH_INST_PC_REL
        | Op::S_PREFETCH_DATA
        | Op::S_PREFETCH_DATA_PC_REL
        | Op::S_BUFFER_PREFETCH_DATA => return Ok(Flow::Next),
        _ => return Err(unimplemented(i)),
    };
    let buffer = matches!(
        i.op,
        Op::S_BUFFER_LOAD_DWORD
            | Op::S_BUFFER_LOAD_DWORDX2
            | Op::S_BUFFER_LOAD_B96
            | Op::S_BUFFER_LOAD_U8
            | Op::S_BUFFER_LOAD_I8
            | Op::S_BUFFER_LOAD_U16
            | Op::S_BUFFER_LOAD_I16
            | Op::S_BUFFER_LOAD_DWORDX4
            | Op::S_BUFFER_LOAD_DWORDX8
            | Op::S_BUFFER_LOAD_DWORDX16
            | Op::S_BUFFER_STORE_DWORD
            | Op::S_BUFFER_STORE_DWORDX2
            | Op::S_BUFFER_STORE_DWORDX4
    );
    let base = if buffer {
        w.sread64(i.src[0], 0, Ty::I64) & 0xffff_ffff_ffff
    } else {
        w.sread64(i.src[0], 0, Ty::I64)
    };
    // (bytes, signed) of a GFX12 sub-dword load.
    let sub: Option<(u64, bool)> = match i.op {
        Op::S_LOAD_U8 | Op::S_BUFFER_LOAD_U8 => Some((1, false)),
        Op::S_LOAD_I8 | Op::S_BUFFER_LOAD_I8 => Some((1, true)),
        Op::S_LOAD_U16 | Op::S_BUFFER_LOAD_U16 => Some((2, false)),
        Op::S_LOAD_I16 | Op::S_BUFFER_LOAD_I16 => Some((2, true)),
        _ => None,
    };
    // Each address component (base, immediate offset, SGPR offset) drops its two low bits
    // (one for 16-bit loads, none for 8-bit ones) before they are added.
    let keep = !(sub.map_or(4, |(b, _)| b) - 1);
    let mut addr = (base & keep).wrapping_add(if i.has(crate::decode::flag::IMM) {
        i64::from(i.imm) as u64 & keep
    } else {
        0
    });
    if !i.has(crate::decode::flag::IMM) || i.has(crate::decode::flag::SOE) {
        addr = addr.wrapping_add(u64::from(w.sread(i.ext as u16, 0, Ty::B32)) & keep);
    }
    let store = matches!(
        i.op,
        Op::S_STORE_DWORD
            | Op::S_STORE_DWORDX2
            | Op::S_STORE_DWORDX4
            | Op::S_BUFFER_STORE_DWORD
            | Op::S_BUFFER_STORE_DWORDX2
            | Op::S_BUFFER_STORE_DWORDX4
    );
    if C {
        // Scalar accesses take part in race checking only (see check::group::flush).
        if let Some(g) = env.check.as_deref_mut() {
            g.note(crate::check::group::Space::Global, addr, 4 * n, 0, store);
        }
    }
    let bytes = sub.map_or(4 * n as u64, |(b, _)| b);
    if !env.cache.check(env.mem, addr, bytes, store) {
        return Err(LaneFault::new(
            FaultKind::MemoryViolation {
                address: addr,
                write: store,
                size: bytes as u32,
            },
            None,
        ));
    }
    if let Some((b, signed)) = sub {
        let v = host::load(addr, b as u32) as u32;
        let shift = 32 - 8 * b as u32;
        let v = if signed {
            ((v << shift) as i32 >> shift) as u32
        } else {
            v
        };
        w.swrite(i.dst, v);
        return Ok(Flow::Next);
    }
    for k in 0..n as u16 {
        let a = addr + 4 * u64::from(k);
        if store {
            host::store(a, 4, u64::from(w.sread(i.dst + k, 0, Ty::B32)));
        } else {
            w.swrite(i.dst + k, host::load(a, 4) as u32);
        }
    }
    Ok(Flow::Next)
}
