//! The vector ALU dispatcher: MODE and VGPR index mode first, then the operations with
//! their own shapes (compares, lane reads/writes, VOP3P, carry adds, integer clamp), then the
//! semantics part `ops::valu_part` names. Kept apart from `valu` (the vocabulary every part
//! shares) so that the parts import `valu` and only this module imports the parts: no import
//! cycles between the semantics files.

use super::valu::{pack_flags, put, unpack_flags, Ctx, Scratch};
use super::{unimplemented, Env, Flow, R};
use crate::decode::{flag, Fmt, Gen, Inst, AGPR, VGPR};
use crate::ops::Op;
use crate::wave::{Ty, Wave, LANES};

/// GFX11 VOPD: both halves issue together, so each reads its sources before either writes.
/// X runs first; when Y reads X's destination, Y sees the register as it was (the hardware
/// forbids the halves writing the same VGPR, so restoring X's result afterwards is exact).
/// X's old row is copied only when Y reads it (a row copy per VOPD was 1% of a float loop), and
/// the Y half is made from the X half in place (building both cost 4% of a float loop).
pub(crate) fn vopd(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let mut h = i.vopd_x();
    if h.dst < crate::decode::VGPR || !i.vopd_y_src().contains(&h.dst) {
        valu(w, &h, env)?;
        i.vopd_y_into(&mut h);
        return valu(w, &h, env);
    }
    let r = crate::wave::reg_index(h.dst);
    let old = w.v[r];
    valu(w, &h, env)?;
    let new = std::mem::replace(&mut w.v[r], old);
    i.vopd_y_into(&mut h);
    let res = valu(w, &h, env);
    w.v[r] = new;
    res
}

/// Executes a vector ALU instruction.
pub(crate) fn valu(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    // One test per instruction: only a MODE other than the default (round to nearest even,
    // denormals kept, no FP16_OVFL, VGPR index mode off) takes another path.
    let modal =
        w.mode & (super::fpmode::FP_MASK | super::MODE_GPR_IDX_EN) != super::fpmode::FP_DEFAULT;
    if modal && w.mode & super::MODE_GPR_IDX_EN != 0 {
        return valu_indexed(w, i, env);
    }
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    let mut c = Ctx {
        i,
        exec,
        wmask: exec,
        daz: 0,
        ftz: 0,
    };
    if modal {
        if let Some(r) = super::fpmode::valu(w, &mut c, env) {
            return r;
        }
    }
    valu_body(w, &mut c, env)
}

/// A VALU instruction under VGPR index mode (GFX8/9, between `s_set_gpr_idx_on` and
/// `s_set_gpr_idx_off`): M0[7:0] is added to the VGPR number of each operand M0[15:12] names
/// (bit 0–2: sources 0–2, bit 3: the destination). The sum wraps inside the 256 VGPRs.
#[cold]
#[inline(never)]
fn valu_indexed(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let m0 = w.m0();
    let (idx, on) = ((m0 & 0xff) as u16, m0 >> 12 & 0xf);
    let shift = |r: u16| {
        if (VGPR..AGPR).contains(&r) {
            VGPR + ((r - VGPR + idx) & 0xff)
        } else {
            r
        }
    };
    let mut j = *i;
    for k in 0..3 {
        if on >> k & 1 != 0 {
            j.src[k] = shift(j.src[k]);
        }
    }
    if on & 8 != 0 {
        j.dst = shift(j.dst);
    }
    w.mode &= !super::MODE_GPR_IDX_EN;
    let r = valu(w, &j, env);
    w.mode |= super::MODE_GPR_IDX_EN;
    r
}

/// The vector ALU semantics under `c`'s flushing settings (round to nearest even).
#[inline(always)]
pub(super) fn valu_body(w: &mut Wave, c: &mut Ctx, env: &mut Env) -> R {
    let i = c.i;
    let exec = c.exec;
    match i.op {
        Op::V_CMP => return super::valu_cmp::compare(w, c, &mut *env.scratch),
        Op::V_NOP => return Ok(Flow::Next),
        Op::V_READFIRSTLANE_B32 => {
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = if i.src[0] >= VGPR {
                w.lane(i.src[0], lane)
            } else {
                w.sread(i.src[0], i.lit, Ty::B32)
            };
            w.swrite(i.dst, v);
            return Ok(Flow::Next);
        }
        Op::V_READLANE_B32 => {
            let lane = w.sread(i.src[1], i.lit, Ty::B32) as usize & (w.size() - 1);
            let v = w.lane(i.src[0], lane);
            w.swrite(i.dst, v);
            return Ok(Flow::Next);
        }
        Op::V_WRITELANE_B32 => {
            let lane = w.sread(i.src[1], i.lit, Ty::B32) as usize & (w.size() - 1);
            let v = w.sread(i.src[0], i.lit, Ty::B32);
            w.set_lane(i.dst, lane, v);
            return Ok(Flow::Next);
        }
        _ => {}
    }
    if i.fmt == Fmt::Vop3p {
        return super::valu_packed::vop3p(w, c, env);
    }
    let gfx8 = env.gen == Gen::Gfx8;
    let mode = w.mode;
    // Carry-producing adds: gfx8's v_add_u32 family and gfx9's _co forms.
    let carry_op = match i.op {
        Op::V_ADD_CO_U32 => Some(0),
        Op::V_SUB_CO_U32 => Some(1),
        Op::V_SUBREV_CO_U32 => Some(2),
        Op::V_ADDC_CO_U32 => Some(3),
        Op::V_SUBB_CO_U32 => Some(4),
        Op::V_SUBBREV_CO_U32 => Some(5),
        Op::V_ADD_U32 if gfx8 => Some(0),
        Op::V_SUB_U32 if gfx8 => Some(1),
        Op::V_SUBREV_U32 if gfx8 => Some(2),
        _ => None,
    };
    if let Some(kind) = carry_op {
        // Sources by reference (no row copies), 32-bit lane math and per-lane carry flags
        // packed eight lanes at a time, so every loop here vectorizes.
        let Scratch {
            a: sa,
            b: sb,
            r: sr,
            ..
        } = &mut *env.scratch;
        let a = c.s_into(w, 0, sa);
        let b = c.s_into(w, 1, sb);
        // A per-lane carry-in: 64 bits wide in wave32 too (the high half only reaches lanes
        // 32–63, which a wave32 wave never reads).
        let cin = if kind >= 3 {
            w.sread64(i.src[2], 0, Ty::I64)
        } else {
            0
        };
        let cin = unpack_flags(cin);
        let mut flags = [0u8; LANES];
        let wave32 = w.wave32;
        macro_rules! carry {
            (|$x:ident, $y:ident, $ci:ident| $v:expr, $carry:expr) => {
                crate::wave::for_lanes!(wave32, l, {
                    let $ci = u32::from(cin[l]);
                    let ($x, $y) = (a[l], b[l]);
                    sr[l] = $v;
                    flags[l] = u8::from($carry);
                })
            };
        }
        match kind {
            0 => carry!(|x, y, _ci| x.wrapping_add(y), x.wrapping_add(y) < x),
            1 => carry!(|x, y, _ci| x.wrapping_sub(y), y > x),
            2 => carry!(|x, y, _ci| y.wrapping_sub(x), x > y),
            3 => carry!(
                |x, y, ci| x.wrapping_add(y).wrapping_add(ci),
                (x.wrapping_add(y) < x) | (x.wrapping_add(y).wrapping_add(ci) < ci)
            ),
            4 => carry!(
                |x, y, ci| x.wrapping_sub(y).wrapping_sub(ci),
                (y > x) | (x.wrapping_sub(y) < ci)
            ),
            _ => carry!(
                |x, y, ci| y.wrapping_sub(x).wrapping_sub(ci),
                (x > y) | (y.wrapping_sub(x) < ci)
            ),
        }
        if i.has(flag::CLAMP) {
            // Integer clamp: a carry saturates at 0xffffffff, a borrow at 0 (the carry-out is
            // still written).
            let sat = if matches!(kind, 0 | 3) { u32::MAX } else { 0 };
            for l in 0..LANES {
                if flags[l] != 0 {
                    sr[l] = sat;
                }
            }
        }
        let co = pack_flags(&flags);
        put(w, c, sr);
        w.merge_mask(i.sdst, co, c.wmask);
        return Ok(Flow::Next);
    }

    if i.has(flag::CLAMP) {
        if let Some(r) = super::valu_int::int_clamp(w, c, &mut *env.scratch, mode) {
            return r;
        }
    }
    let part = match crate::ops::valu_part(i.op) {
        0 => super::valu_int::valu_move,
        1 => super::valu_f32::valu_f32,
        2 => super::valu_f32::valu_cvt32,
        3 => super::valu_f64::valu_f64,
        4 => super::valu_f16::valu_f16,
        5 => super::valu_int::valu_int,
        6 => super::rdna::valu_rdna,
        7 => super::valu_media::valu_media,
        8 => super::cdna3::valu_cdna3,
        _ => return Err(unimplemented(i)),
    };
    part(w, c, &mut *env.scratch, mode).unwrap_or_else(|| Err(unimplemented(i)))
}
