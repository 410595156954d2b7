//! The scalar float operations of GFX11.5 (RDNA3.5: gfx1150–gfx1153): f32 and f16
//! arithmetic, conversions, roundings and compares on SGPRs (`s_add_f32`, `s_cvt_f16_f32`,
//! `s_cmp_lt_f32`, …), defined like their VALU counterparts. MODE applies as for the VALU:
//! FP_ROUND for the arithmetic, FP_DENORM flushing (f32: bits 5:4, f16: bits 7:6) of inputs
//! and results, IEEE for min/max. Conversions from integers and to f16 round to nearest
//! even. A 16-bit result is zero-extended in its SGPR.
//!
//! GFX12 (RDNA4) renamed `s_min_f32`/`s_max_f32` to `s_min_num_*`/`s_max_num_*`, defined as
//! IEEE 754-2019 minimumNumber/maximumNumber (no IEEE mode), and added
//! `s_minimum_*`/`s_maximum_*` (NaN-propagating minimum/maximum).

use super::softfloat as sf;
use super::valu::{
    f, f16_rtz, ftz16, ftz32, h, hb, ieee2019_16, ieee2019_32, minmax16, minmax32, src0_nan,
    src0_nan16, u,
};
use super::{Flow, R};
use crate::decode::Inst;
use crate::ops::Op;
use crate::wave::{Ty, Wave};

/// MODE.IEEE.
const MODE_IEEE: u32 = 1 << 9;

/// Executes a GFX11.5 scalar float operation, or `None` for another operation.
pub(super) fn salu(w: &mut Wave, i: &Inst) -> Option<R> {
    let [t0, t1, _] = i.tys;
    let mode = w.mode;
    let (keep32, keep16) = (mode >> 4 & 3 == 3, mode >> 6 & 3 == 3);
    let in32 = |x: u32| if keep32 { x } else { ftz32(x) };
    let in16 = |x: u32| {
        let x = x & 0xffff;
        if keep16 {
            x
        } else {
            ftz16(x)
        }
    };
    let a = w.sread(i.src[0], i.lit, t0);
    let b = w.sread(i.src[1], i.lit, t1);
    let d = w.sread(i.dst, 0, Ty::B32);
    let rm32 = sf::Round::from_field(mode);
    let rm16 = sf::Round::from_field(mode >> 2);
    let ieee = mode & MODE_IEEE != 0;
    // Arithmetic in the MODE's direction: the host for nearest even, `sf` otherwise.
    let add32 = |x: u32, y: u32| match rm32 {
        sf::Round::NearestEven => src0_nan(x, y, u(f(x) + f(y))),
        _ => sf::add(sf::F32, x.into(), y.into(), rm32) as u32,
    };
    let mul32 = |x: u32, y: u32| match rm32 {
        sf::Round::NearestEven => src0_nan(x, y, u(f(x) * f(y))),
        _ => sf::mul(sf::F32, x.into(), y.into(), rm32) as u32,
    };
    let fma32 = |x: u32, y: u32, z: u32| match rm32 {
        sf::Round::NearestEven => u(f(x).mul_add(f(y), f(z))),
        _ => sf::fma(sf::F32, x.into(), y.into(), z.into(), rm32, 0) as u32,
    };
    let add16 = |x: u32, y: u32| match rm16 {
        sf::Round::NearestEven => src0_nan16(x, y, hb(h(x) + h(y))),
        _ => sf::add(sf::F16, x.into(), y.into(), rm16) as u32,
    };
    let mul16 = |x: u32, y: u32| match rm16 {
        sf::Round::NearestEven => src0_nan16(x, y, hb(h(x) * h(y))),
        _ => sf::mul(sf::F16, x.into(), y.into(), rm16) as u32,
    };
    let fma16 = |x: u32, y: u32, z: u32| match rm16 {
        sf::Round::NearestEven => hb(h(x).mul_add(h(y), h(z))),
        _ => sf::fma(sf::F16, x.into(), y.into(), z.into(), rm16, 0) as u32,
    };
    let out32 = |x: u32| if keep32 { x } else { ftz32(x) };
    let out16 = |x: u32| (if keep16 { x } else { ftz16(x) }) & 0xffff;
    let neg = |x: u32| x ^ 0x8000_0000;
    // Compares: (less, equal, greater, unordered) → SCC.
    let cmp = |x: f64, y: f64, lt: bool, eq: bool, gt: bool, un: bool| {
        if x.is_nan() || y.is_nan() {
            un
        } else if x < y {
            lt
        } else if x == y {
            eq
        } else {
            gt
        }
    };
    let (x32, y32) = (f64::from(f(in32(a))), f64::from(f(in32(b))));
    let (x16, y16) = (h(in16(a)), h(in16(b)));
    let round32 = |g: fn(f32) -> f32| out32(u(g(f(in32(a)))));
    let round16 = |g: fn(f32) -> f32| {
        out16(u32::from(
            half::f16::from_f32(g(half::f16::from_bits(in16(a) as u16).to_f32())).to_bits(),
        ))
    };
    let r = match i.op {
        Op::S_ADD_F32 => out32(add32(in32(a), in32(b))),
        Op::S_SUB_F32 => out32(add32(in32(a), neg(in32(b)))),
        Op::S_MUL_F32 => out32(mul32(in32(a), in32(b))),
        Op::S_MIN_F32 => out32(minmax32(in32(a), in32(b), false, ieee)),
        Op::S_MAX_F32 => out32(minmax32(in32(a), in32(b), true, ieee)),
        Op::S_FMAC_F32 => out32(fma32(in32(a), in32(b), in32(d))),
        // K is the literal: D = S0·K + S1 (fmamk), D = S0·S1 + K (fmaak).
        Op::S_FMAMK_F32 => out32(fma32(in32(a), in32(i.lit), in32(b))),
        Op::S_FMAAK_F32 => out32(fma32(in32(a), in32(b), in32(i.lit))),
        Op::S_ADD_F16 => out16(add16(in16(a), in16(b))),
        Op::S_SUB_F16 => out16(add16(in16(a), in16(b) ^ 0x8000)),
        Op::S_MUL_F16 => out16(mul16(in16(a), in16(b))),
        Op::S_MIN_F16 => out16(minmax16(in16(a), in16(b), false, ieee)),
        Op::S_MAX_F16 => out16(minmax16(in16(a), in16(b), true, ieee)),
        Op::S_FMAC_F16 => out16(fma16(in16(a), in16(b), in16(d))),
        Op::S_MIN_NUM_F32 => out32(ieee2019_32(in32(a), in32(b), false, true)),
        Op::S_MAX_NUM_F32 => out32(ieee2019_32(in32(a), in32(b), true, true)),
        Op::S_MINIMUM_F32 => out32(ieee2019_32(in32(a), in32(b), false, false)),
        Op::S_MAXIMUM_F32 => out32(ieee2019_32(in32(a), in32(b), true, false)),
        Op::S_MIN_NUM_F16 => out16(ieee2019_16(in16(a), in16(b), false, true)),
        Op::S_MAX_NUM_F16 => out16(ieee2019_16(in16(a), in16(b), true, true)),
        Op::S_MINIMUM_F16 => out16(ieee2019_16(in16(a), in16(b), false, false)),
        Op::S_MAXIMUM_F16 => out16(ieee2019_16(in16(a), in16(b), true, false)),
        Op::S_CEIL_F32 => round32(f32::ceil),
        Op::S_FLOOR_F32 => round32(f32::floor),
        Op::S_TRUNC_F32 => round32(f32::trunc),
        Op::S_RNDNE_F32 => round32(f32::round_ties_even),
        Op::S_CEIL_F16 => round16(f32::ceil),
        Op::S_FLOOR_F16 => round16(f32::floor),
        Op::S_TRUNC_F16 => round16(f32::trunc),
        Op::S_RNDNE_F16 => round16(f32::round_ties_even),
        Op::S_CVT_F32_I32 => out32(u(a as i32 as f32)),
        Op::S_CVT_F32_U32 => out32(u(a as f32)),
        // Truncation toward zero, saturated, NaN → 0 (Rust's `as`).
        Op::S_CVT_I32_F32 => f(in32(a)) as i32 as u32,
        Op::S_CVT_U32_F32 => f(in32(a)) as u32,
        Op::S_CVT_F16_F32 => out16(u32::from(half::f16::from_f32(f(in32(a))).to_bits())),
        Op::S_CVT_F32_F16 => out32(u(half::f16::from_bits(in16(a) as u16).to_f32())),
        Op::S_CVT_HI_F32_F16 => out32(u(half::f16::from_bits(in16(a >> 16) as u16).to_f32())),
        Op::S_CVT_PK_RTZ_F16_F32 => f16_rtz(f(in32(a))) | f16_rtz(f(in32(b))) << 16,
        _ => {
            let f32_cmp = matches!(
                i.op,
                Op::S_CMP_LT_F32
                    | Op::S_CMP_EQ_F32
                    | Op::S_CMP_LE_F32
                    | Op::S_CMP_GT_F32
                    | Op::S_CMP_LG_F32
                    | Op::S_CMP_GE_F32
                    | Op::S_CMP_O_F32
                    | Op::S_CMP_U_F32
                    | Op::S_CMP_NGE_F32
                    | Op::S_CMP_NLG_F32
                    | Op::S_CMP_NGT_F32
                    | Op::S_CMP_NLE_F32
                    | Op::S_CMP_NEQ_F32
                    | Op::S_CMP_NLT_F32
            );
            let (x, y) = if f32_cmp { (x32, y32) } else { (x16, y16) };
            w.scc = match i.op {
                Op::S_CMP_LT_F32 | Op::S_CMP_LT_F16 => cmp(x, y, true, false, false, false),
                Op::S_CMP_EQ_F32 | Op::S_CMP_EQ_F16 => cmp(x, y, false, true, false, false),
                Op::S_CMP_LE_F32 | Op::S_CMP_LE_F16 => cmp(x, y, true, true, false, false),
                Op::S_CMP_GT_F32 | Op::S_CMP_GT_F16 => cmp(x, y, false, false, true, false),
                Op::S_CMP_LG_F32 | Op::S_CMP_LG_F16 => cmp(x, y, true, false, true, false),
                Op::S_CMP_GE_F32 | Op::S_CMP_GE_F16 => cmp(x, y, false, true, true, false),
                Op::S_CMP_O_F32 | Op::S_CMP_O_F16 => cmp(x, y, true, true, true, false),
                Op::S_CMP_U_F32 | Op::S_CMP_U_F16 => cmp(x, y, false, false, false, true),
                Op::S_CMP_NGE_F32 | Op::S_CMP_NGE_F16 => cmp(x, y, true, false, false, true),
                Op::S_CMP_NLG_F32 | Op::S_CMP_NLG_F16 => cmp(x, y, false, true, false, true),
                Op::S_CMP_NGT_F32 | Op::S_CMP_NGT_F16 => cmp(x, y, true, true, false, true),
                Op::S_CMP_NLE_F32 | Op::S_CMP_NLE_F16 => cmp(x, y, false, false, true, true),
                Op::S_CMP_NEQ_F32 | Op::S_CMP_NEQ_F16 => cmp(x, y, true, false, true, true),
                Op::S_CMP_NLT_F32 | Op::S_CMP_NLT_F16 => cmp(x, y, false, true, true, true),
                _ => return None,
            };
            return Some(Ok(Flow::Next));
        }
    };
    w.swrite(i.dst, r);
    Some(Ok(Flow::Next))
}
