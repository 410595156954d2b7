//! GFX12 (RDNA4) vector ALU additions, reached from `rdna::valu_rdna` and
//! `valu_packed::vop3p`, defined by the RDNA4 ISA guide's pseudo-code:
//!
//! - the IEEE 754-2019 `minimum`/`maximum` family (`v_minimum_f32`, `v_maximum3_f16`,
//!   `v_minimummaximum_f32`, …): a NaN operand propagates (quieted), −0 is below +0
//!   (`valu::ieee2019_bits`);
//! - the transcendentals on a scalar (`v_s_exp_f32 s5, s1`, …): VOP3 instructions whose
//!   source and destination are SGPRs, computed once for the wave (EXEC does not matter) with
//!   the VALU's definitions and the VOP3 input and output modifiers;
//! - `v_dot4_f32_{fp8,bf8}_{fp8,bf8}`: four products of 8-bit floats (OCP E4M3 `fp8`, E5M2
//!   `bf8`, the formats of GFX12) added to S2.f32 in order.

use super::cdna3::{BF8_OCP, FP8_OCP};
use super::valu::{
    f, h, hb, ieee2019_16, ieee2019_32, ieee2019_64, out_f16, out_f32, put_f16, put_f32, put_f64,
    u, Ctx, Row64, Scratch,
};
use crate::decode::Inst;
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};

/// `v_minimum_*`, `v_maximum_*`, `v_minimum3_*`, `v_maximum3_*`, `v_minimummaximum_*` and
/// `v_maximumminimum_*` (f16, f32; f64 for the two-operand forms).
pub(super) fn minimum_maximum(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch) {
    let i = c.i;
    // (16-bit, first operation is a maximum, then a second with S2: maximum or not).
    let (half, max, then) = match i.op {
        Op::V_MINIMUM_F32 => (false, false, None),
        Op::V_MAXIMUM_F32 => (false, true, None),
        Op::V_MINIMUM_F16 => (true, false, None),
        Op::V_MAXIMUM_F16 => (true, true, None),
        Op::V_MINIMUM3_F16 => (true, false, Some(false)),
        Op::V_MAXIMUM3_F16 => (true, true, Some(true)),
        // D = maximum(minimum(S0, S1), S2) and D = minimum(maximum(S0, S1), S2).
        Op::V_MINIMUMMAXIMUM_F32 => (false, false, Some(true)),
        Op::V_MAXIMUMMINIMUM_F32 => (false, true, Some(false)),
        Op::V_MINIMUMMAXIMUM_F16 => (true, false, Some(true)),
        Op::V_MAXIMUMMINIMUM_F16 => (true, true, Some(false)),
        _ => {
            let max = i.op == Op::V_MAXIMUM_F64;
            let (a, b) = (c.s64(w, 0), c.s64(w, 1));
            let mut r: Row64 = [0; LANES];
            for l in 0..LANES {
                r[l] = ieee2019_64(a[l], b[l], max, false);
            }
            put_f64(w, c, &mut r);
            return;
        }
    };
    let op = if half { ieee2019_16 } else { ieee2019_32 };
    let a = *c.s_into(w, 0, &mut sc.a);
    let b = *c.s_into(w, 1, &mut sc.b);
    let s2 = if then.is_some() {
        *c.s_into(w, 2, &mut sc.c)
    } else {
        [0; LANES]
    };
    for l in 0..LANES {
        let m = op(a[l], b[l], max, false);
        sc.r[l] = match then {
            Some(max2) => op(m, s2[l], max2, false),
            None => m,
        };
    }
    let r = sc.r;
    if half {
        put_f16(w, c, &r, &mut sc.o);
    } else {
        put_f32(w, c, &r, &mut sc.o);
    }
}

/// `v_s_exp_*`, `v_s_log_*`, `v_s_rcp_*`, `v_s_rsq_*`, `v_s_sqrt_*` (f32, f16): the VALU
/// operation on the scalar S0 written to the SGPR D (an f16 result zero-extended).
pub(super) fn scalar_transcendental(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch) {
    let i = c.i;
    let x = c.s_into(w, 0, &mut sc.a)[0];
    let f32_op = |g: fn(f32) -> f32| u(g(f(x)));
    let f16_op = |g: fn(f64) -> f64| hb(g(h(x & 0xffff)));
    let v = match i.op {
        Op::V_S_EXP_F32 => f32_op(f32::exp2),
        Op::V_S_LOG_F32 => f32_op(f32::log2),
        Op::V_S_RCP_F32 => f32_op(f32::recip),
        Op::V_S_RSQ_F32 => f32_op(|x| 1.0 / x.sqrt()),
        Op::V_S_SQRT_F32 => f32_op(f32::sqrt),
        Op::V_S_EXP_F16 => f16_op(f64::exp2),
        Op::V_S_LOG_F16 => f16_op(f64::log2),
        Op::V_S_RCP_F16 => f16_op(f64::recip),
        Op::V_S_RSQ_F16 => f16_op(|x| 1.0 / x.sqrt()),
        _ => f16_op(f64::sqrt),
    };
    // Output modifiers (omod, clamp, denormal flushing) as for the VALU.
    let mut r: Row = [v; LANES];
    if i.tys[0] == Ty::B16 {
        out_f16(c, w.mode, &mut r);
        r[0] &= 0xffff;
    } else {
        out_f32(c, w.mode, &mut r);
    }
    w.swrite(i.dst, r[0]);
}

/// `v_dot4_f32_fp8_bf8` and its siblings: D.f32 = S2.f32 + Σ S0.A[k]·S1.B[k] over the four
/// bytes in order, each step an f32 addition (the products are exact in f32). S2 takes the
/// VOP3P float modifiers, neg_hi[2] its absolute value, then neg_lo[2] its negation (the
/// assembler refuses clamp and the modifiers of S0/S1).
pub(super) fn dot4_f8(w: &mut Wave, i: &Inst, exec: u64) {
    let (fa, fb) = match i.op {
        Op::V_DOT4_F32_FP8_BF8 => (FP8_OCP, BF8_OCP),
        Op::V_DOT4_F32_BF8_FP8 => (BF8_OCP, FP8_OCP),
        Op::V_DOT4_F32_FP8_FP8 => (FP8_OCP, FP8_OCP),
        _ => (BF8_OCP, BF8_OCP),
    };
    let a = w.vsrc(i.src[0], i.lit, Ty::B32);
    let b = w.vsrc(i.src[1], i.lit, Ty::B32);
    let s2 = w.vsrc(i.src[2], i.lit, Ty::B32);
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let abs = if i.neg_hi & 4 != 0 {
            0x7fff_ffff
        } else {
            u32::MAX
        };
        let mut acc = f(s2[l] & abs ^ u32::from(i.neg >> 2 & 1) << 31);
        for k in 0..4 {
            acc += fa.decode((a[l] >> (8 * k)) as u8) * fb.decode((b[l] >> (8 * k)) as u8);
        }
        r[l] = u(acc);
    }
    w.vwrite(i.dst, &r, exec);
}
