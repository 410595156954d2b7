//! Vector f32 arithmetic and the 32-bit conversions.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::softfloat as sf;
use super::valu::*;
use super::{Flow, R};
use crate::decode::VGPR;
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};
use half::f16;

#[inline(never)]
#[allow(unused_macros)]
pub(super) fn valu_f32(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);

    match i.op {
        // f32 arithmetic
        Op::V_ADD_F32 => vf32!(map2!(s0!(), s1!(), |x, y| src0_nan(x, y, u(f(x) + f(y))))),
        Op::V_SUB_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(x) - f(y)))),
        Op::V_SUBREV_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(y) - f(x)))),
        Op::V_MUL_F32 => vf32!(map2!(s0!(), s1!(), |x, y| src0_nan(x, y, u(f(x) * f(y))))),
        Op::V_MUL_LEGACY_F32 => vf32!(map2!(s0!(), s1!(), |x, y| if f(x) == 0.0 || f(y) == 0.0 {
            0
        } else {
            src0_nan(x, y, u(f(x) * f(y)))
        })),
        Op::V_MIN_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map2!(s0!(), s1!(), |x, y| minmax32(x, y, false, ieee)))
        }
        Op::V_MAX_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map2!(s0!(), s1!(), |x, y| minmax32(x, y, true, ieee)))
        }
        Op::V_MAC_F32 | Op::V_FMAC_F32 => {
            if i.op == Op::V_FMAC_F32 && i.dst >= VGPR && c.daz & 4 == 0 {
                // The accumulator is read in place (no copy).
                let (a, b) = (s0!(), s1!());
                fma_f32_rows(a, b, &w.v[crate::wave::reg_index(i.dst)], &mut sc.r);
                vf32!(&sc.r)
            } else {
                // The accumulator is the third source (flushed with it when MODE says so).
                let mut acc = w.vsrc(i.dst, 0, Ty::B32);
                if c.daz & 4 != 0 {
                    flush_row(&mut acc, Ty::B32);
                }
                if i.op == Op::V_FMAC_F32 {
                    let (a, b) = (s0!(), s1!());
                    fma_f32_rows(a, b, &acc, &mut sc.r);
                    vf32!(&sc.r)
                } else {
                    vf32!(map3!(s0!(), s1!(), acc, |x, y, z| mad_ftz(x, y, z)))
                }
            }
        }
        Op::V_MAD_F32 => vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| mad_ftz(x, y, z))),
        Op::V_FMA_F32 => {
            let (a, b, cc) = (s0!(), s1!(), s2!());
            fma_f32_rows(a, b, cc, &mut sc.r);
            vf32!(&sc.r)
        }
        Op::V_MADMK_F32 => {
            let k = [i.lit; LANES];
            vf32!(map3!(s0!(), k, s1!(), |x, y, z| mad_ftz(x, y, z)))
        }
        Op::V_MADAK_F32 => {
            let k = [i.lit; LANES];
            vf32!(map3!(s0!(), s1!(), k, |x, y, z| mad_ftz(x, y, z)))
        }
        Op::V_MIN3_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax32(
                minmax32(x, y, false, ieee),
                z,
                false,
                ieee
            )))
        }
        Op::V_MAXMIN_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax32(
                minmax32(x, y, true, ieee),
                z,
                false,
                ieee
            )))
        }
        Op::V_MINMAX_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax32(
                minmax32(x, y, false, ieee),
                z,
                true,
                ieee
            )))
        }
        Op::V_MAX3_F32 => {
            let ieee = mode & MODE_IEEE != 0;
            vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax32(
                minmax32(x, y, true, ieee),
                z,
                true,
                ieee
            )))
        }
        Op::V_MED3_F32 => vf32!(map3!(s0!(), s1!(), s2!(), |x, y, z| u(fmed3(
            f(x),
            f(y),
            f(z)
        )))),
        Op::V_RCP_F32 | Op::V_RCP_IFLAG_F32 => vf32!(map1!(s0!(), |x| u(1.0 / f(x)))),
        Op::V_RSQ_F32 => vf32!(map1!(s0!(), |x| u(1.0 / f(x).sqrt()))),
        Op::V_SQRT_F32 => vf32!(map1!(s0!(), |x| u(f(x).sqrt()))),
        Op::V_EXP_F32 => vf32!(map1!(s0!(), |x| u(f(x).exp2()))),
        Op::V_LOG_F32 => vf32!(map1!(s0!(), |x| u(f(x).log2()))),
        Op::V_SIN_F32 => vf32!(map1!(s0!(), |x| u(
            (f64::from(f(x)) * std::f64::consts::TAU).sin() as f32
        ))),
        Op::V_COS_F32 => vf32!(map1!(s0!(), |x| u(
            (f64::from(f(x)) * std::f64::consts::TAU).cos() as f32
        ))),
        Op::V_FRACT_F32 => vf32!(map1!(s0!(), |x| u(fract32(f(x))))),
        Op::V_TRUNC_F32 => vf32!(map1!(s0!(), |x| u(f(x).trunc()))),
        Op::V_CEIL_F32 => vf32!(map1!(s0!(), |x| u(f(x).ceil()))),
        Op::V_FLOOR_F32 => vf32!(map1!(s0!(), |x| u(f(x).floor()))),
        Op::V_RNDNE_F32 => vf32!(map1!(s0!(), |x| u(f(x).round_ties_even()))),
        Op::V_FREXP_MANT_F32 => vf32!(map1!(s0!(), |x| u(frexp32(f(x)).0))),
        Op::V_FREXP_EXP_I32_F32 => v32!(map1!(s0!(), |x| frexp32(f(x)).1 as u32)),
        Op::V_LDEXP_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(ldexp32(f(x), y as i32)))),
        Op::V_DIV_SCALE_F32 => {
            let (a, b, cc) = (s0!(), s1!(), s2!());
            let mut r = [0u32; LANES];
            let mut vcc = 0u64;
            for l in 0..LANES {
                let (s0, s1, s2) = (f(a[l]), f(b[l]), f(cc[l]));
                let mut out = s0;
                let mut flag = false;
                if s2 == 0.0 || s1 == 0.0 {
                    out = f32::NAN;
                } else if exp32(cc[l]) - exp32(b[l]) >= 96 {
                    // exponent() is the biased field: 0 for a denormal denominator.
                    flag = true;
                    if s0 == s1 {
                        out = ldexp32(s0, 64);
                    }
                } else if s1.is_subnormal() {
                    out = ldexp32(s0, 64);
                } else if (1.0 / s1).is_subnormal() && (s2 / s1).is_subnormal() {
                    // A huge denominator and a denormal quotient: the denominator is scaled
                    // down, so the quotient comes out 2^64 too large and v_div_fmas (VCC) scales
                    // it back. The ISA text writes ldexp(S0, 64) here, which overflows a
                    // denominator above 2^126; with it the v_rcp_f32 before clang's s_setreg
                    // (still flushing) returns 0. -64 is the reading that makes the sequence
                    // give the correctly rounded quotient (tests/mode.rs checks it).
                    flag = true;
                    if s0 == s1 {
                        out = ldexp32(s0, -64);
                    }
                } else if (1.0 / s1).is_subnormal() {
                    out = ldexp32(s0, -64);
                } else if (s2 / s1).is_subnormal() {
                    flag = true;
                    if s0 == s2 {
                        out = ldexp32(s0, 64);
                    }
                } else if exp32(cc[l]) <= 23 {
                    out = ldexp32(s0, 64);
                }
                r[l] = u(out);
                vcc |= u64::from(flag) << l;
            }
            put(w, c, &r);
            w.merge_mask(i.sdst, vcc, c.wmask);
        }
        Op::V_DIV_FMAS_F32 => {
            let vcc = w.vcc();
            let (a, b, cc) = (s0!(), s1!(), s2!());
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = if vcc >> l & 1 != 0 {
                    // Undo v_div_scale's 2^±64 with a single rounding (the quotient may be
                    // denormal).
                    let scale = if exp32(cc[l]) > 127 { 64 } else { -64 };
                    let (x, y, z) = (a[l].into(), b[l].into(), cc[l].into());
                    sf::fma(sf::F32, x, y, z, sf::Round::NearestEven, scale) as u32
                } else {
                    u(f(a[l]).mul_add(f(b[l]), f(cc[l])))
                };
            }
            vf32!(r)
        }
        Op::V_DIV_FIXUP_F32 => vf32!(map3!(s0!(), s1!(), s2!(), |q, den, num| {
            let (qf, df, nf) = (f(q), f(den), f(num));
            let sign = (den ^ num) & 0x8000_0000;
            if nf.is_nan() {
                num | 0x0040_0000
            } else if df.is_nan() {
                den | 0x0040_0000
            } else if (df == 0.0 && nf == 0.0) || (df.is_infinite() && nf.is_infinite()) {
                0x7fc0_0000
            } else if df == 0.0 || nf.is_infinite() {
                sign | 0x7f80_0000
            } else if df.is_infinite() || nf == 0.0 {
                sign
            } else if exp32(num) - exp32(den) < -150 {
                // The ISA's underflow clause (its magnitude is not given: zero).
                sign
            } else if exp32(q) == 255 {
                // The ISA's overflow clause, read as testing the quotient (its text says S1,
                // which the earlier clauses make unreachable): a quotient too large for
                // v_div_scale's 2^-64 overflows in the Newton steps to ∞ or NaN.
                sign | 0x7f80_0000
            } else {
                sign | (u(qf) & 0x7fff_ffff)
            }
        })),
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

#[inline(never)]
#[allow(unused_macros)]
pub(super) fn valu_cvt32(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);

    match i.op {
        // f32 conversions
        Op::V_CVT_F32_I32 => vf32!(map1!(s0!(), |x| u(x as i32 as f32))),
        Op::V_CVT_F32_U32 => vf32!(map1!(s0!(), |x| u(x as f32))),
        Op::V_CVT_I32_F32 => v32!(map1!(s0!(), |x| f(x) as i32 as u32)),
        Op::V_CVT_U32_F32 => v32!(map1!(s0!(), |x| f(x) as u32)),
        // floor(x + 0.5) exactly (in f64: an f32 sum would round 2^23 + 1 + 0.5 up).
        Op::V_CVT_RPI_I32_F32 => {
            v32!(map1!(s0!(), |x| (f64::from(f(x)) + 0.5).floor() as i32 as u32))
        }
        Op::V_CVT_FLR_I32_F32 => v32!(map1!(s0!(), |x| f(x).floor() as i32 as u32)),
        Op::V_CVT_F16_F32 => vf16!(map1!(s0!(), |x| u32::from(f16::from_f32(f(x)).to_bits()))),
        Op::V_CVT_F32_F16 => vf32!(map1!(s0!(), |x| u(h(x) as f32))),
        Op::V_CVT_F32_UBYTE0 => vf32!(map1!(s0!(), |x| u((x & 0xff) as f32))),
        Op::V_CVT_F32_UBYTE1 => vf32!(map1!(s0!(), |x| u((x >> 8 & 0xff) as f32))),
        Op::V_CVT_F32_UBYTE2 => vf32!(map1!(s0!(), |x| u((x >> 16 & 0xff) as f32))),
        Op::V_CVT_F32_UBYTE3 => vf32!(map1!(s0!(), |x| u((x >> 24) as f32))),
        Op::V_CVT_PKRTZ_F16_F32 => {
            v32!(map2!(s0!(), s1!(), |x, y| f16_rtz(f(x)) | f16_rtz(f(y)) << 16))
        }
        Op::V_CVT_PK_U16_U32 => {
            v32!(map2!(s0!(), s1!(), |x, y| x.min(0xffff) | y.min(0xffff) << 16))
        }
        Op::V_CVT_PK_I16_I32 => v32!(map2!(s0!(), s1!(), |x, y| ((x as i32).clamp(-32768, 32767)
            as u32
            & 0xffff)
            | ((y as i32).clamp(-32768, 32767) as u32) << 16)),
        Op::V_CVT_F16_U16 => vf16!(map1!(s0!(), |x| hb(f64::from(x as u16)))),
        Op::V_CVT_F16_I16 => vf16!(map1!(s0!(), |x| hb(f64::from(x as u16 as i16)))),
        Op::V_CVT_U16_F16 => v32!(map1!(s0!(), |x| u32::from(h(x) as u16))),
        Op::V_CVT_I16_F16 => v32!(map1!(s0!(), |x| u32::from(h(x) as i16 as u16))),
        _ => return None,
    }
    Some(Ok(Flow::Next))
}
