//! Vector ALU "media" and small-integer operations: sums of absolute differences
//! (`v_sad_*`, `v_msad_u8`, `v_qsad`/`v_mqsad`), `v_lerp_u8`, byte and normalized packing
//! (`v_cvt_pk_u8_f32`, `v_cvt_pknorm_*`, `v_cvt_norm_*`, `v_sat_pk_u8_i16`), cube-map
//! coordinates, 3-input 16-bit min/max/median, 16→32-bit multiply-adds, the legacy (DX9
//! `0 × anything = 0`) multiply-adds, the accumulating dot products (`v_dot*c_*`), `v_pk_fmac_f16`,
//! M0-relative moves (`v_movrel*`, `v_swaprel_b32`) and the VALU no-ops. Definitions from the
//! Vega, MI200 and RDNA2 ISA references; integer `clamp` saturates where the encoding has it.

use super::valu::{ftz32, put, put_f16, put_f32, sat_i16, sat_i32, sat_u32, Ctx, Scratch};
use super::{Flow, R};
use crate::decode::{flag, VGPR};
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};
use half::f16;

/// How a result row is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    /// 32-bit integer (SDWA/op_sel destination selects apply).
    Int,
    /// f32 (omod, clamp, denormal flush).
    F32,
    /// f16 in the low half (omod, clamp, denormal flush).
    F16,
}

/// Computes `f(s0, s1, s2)` for every lane from the first `n` sources (with their modifiers)
/// and writes the row.
#[inline(always)]
fn map(
    w: &mut Wave,
    c: &mut Ctx,
    sc: &mut Scratch,
    n: usize,
    out: Out,
    f: impl Fn(u32, u32, u32) -> u32,
) {
    {
        let Scratch {
            a, b, c: s2, r, o, ..
        } = &mut *sc;
        *o = [0; LANES];
        let x = c.s_into(w, 0, a);
        let y: &Row = if n > 1 { c.s_into(w, 1, b) } else { o };
        let z: &Row = if n > 2 { c.s_into(w, 2, s2) } else { y };
        for l in 0..LANES {
            r[l] = f(x[l], y[l], z[l]);
        }
    }
    let r = sc.r;
    match out {
        Out::Int => put(w, c, &r),
        Out::F32 => put_f32(w, c, &r, &mut sc.o),
        Out::F16 => put_f16(w, c, &r, &mut sc.o),
    }
}

/// Signed 4-bit dot product of eight nibble pairs plus `acc` (`v_dot8_i32_i4`,
/// `v_dot8_u32_u4`), exact in 64 bits.
pub(super) fn dot8(a: u32, b: u32, acc: u32, signed: bool) -> i64 {
    let mut sum = if signed {
        i64::from(acc as i32)
    } else {
        i64::from(acc)
    };
    for k in 0..8 {
        let (x, y) = (a >> (4 * k) & 15, b >> (4 * k) & 15);
        sum += if signed {
            i64::from(((x << 28) as i32) >> 28) * i64::from(((y << 28) as i32) >> 28)
        } else {
            i64::from(x * y)
        };
    }
    sum
}

/// Sum of absolute differences of the four bytes of `a` and `b`; with `masked`, bytes where
/// `b` (the reference) is 0 are skipped (`v_msad_u8`).
fn sad_bytes(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| {
            let (x, y) = (a >> (8 * k) & 0xff, b >> (8 * k) & 0xff);
            if masked && y == 0 {
                0
            } else {
                x.abs_diff(y)
            }
        })
        .sum()
}

/// f32 → u8 with rounding to nearest even and saturation (NaN → 0).
fn f32_to_u8(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 255.0).round_ties_even() as u32
    }
}

/// f32 → 16-bit signed normalized: clamp to [−1, 1], × 32767, round to nearest even.
fn snorm16(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        u32::from((x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16)
    }
}

/// f32 → 16-bit unsigned normalized: clamp to [0, 1], × 65535, round to nearest even.
fn unorm16(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32
    }
}

fn f16f(x: u32) -> f32 {
    f16::from_bits(x as u16).to_f32()
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// The cube-map face, and coordinates, of the direction `(x, y, z)` (`v_cube*_f32`): which
/// axis is major, as the ISA's pseudo-code tests it.
fn cube(op: Op, x: f32, y: f32, z: f32) -> f32 {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if az >= ax && az >= ay {
        match op {
            Op::V_CUBEID_F32 => {
                if z < 0.0 {
                    5.0
                } else {
                    4.0
                }
            }
            Op::V_CUBESC_F32 => {
                if z < 0.0 {
                    -x
                } else {
                    x
                }
            }
            Op::V_CUBETC_F32 => -y,
            _ => 2.0 * z,
        }
    } else if ay >= ax {
        match op {
            Op::V_CUBEID_F32 => {
                if y < 0.0 {
                    3.0
                } else {
                    2.0
                }
            }
            Op::V_CUBESC_F32 => x,
            Op::V_CUBETC_F32 => {
                if y < 0.0 {
                    -z
                } else {
                    z
                }
            }
            _ => 2.0 * y,
        }
    } else {
        match op {
            Op::V_CUBEID_F32 => {
                if x < 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Op::V_CUBESC_F32 => {
                if x < 0.0 {
                    z
                } else {
                    -z
                }
            }
            Op::V_CUBETC_F32 => -y,
            _ => 2.0 * x,
        }
    }
}

/// `(m, e)` with `x = m · 2^e`, `0.5 ≤ |m| < 1`, for a finite non-zero normal or subnormal f64
/// (all f16 values are normal in f64).
fn frexp(x: f64) -> (f64, i32) {
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022;
    (f64::from_bits(x.to_bits() & !(0x7ff << 52) | 1022 << 52), e)
}

/// `a × b` with the legacy rule that 0 times anything (infinity and NaN included) is 0.
fn mul_legacy(a: f32, b: f32) -> f32 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

/// The VGPR code `base + offset` (wrapping in the 256-register file).
fn rel(base: u16, offset: u32) -> u16 {
    VGPR + ((u32::from(base - VGPR) + offset) & 255) as u16
}

#[inline(never)]
pub(super) fn valu_media(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, _mode: u32) -> Option<R> {
    let i = c.i;
    let cl = i.has(flag::CLAMP);
    let (int, fl) = (Out::Int, Out::F32);
    match i.op {
        Op::V_CLREXCP | Op::V_PIPEFLUSH => {}
        // The legacy (GFX8/9) base-2 exponential and logarithm, as the current ones.
        Op::V_EXP_LEGACY_F32 => map(w, c, sc, 1, fl, |x, _, _| f(x).exp2().to_bits()),
        Op::V_LOG_LEGACY_F32 => map(w, c, sc, 1, fl, |x, _, _| f(x).log2().to_bits()),
        // frexp on f16: the mantissa in [0.5, 1) with the sign, and the exponent as i16
        // (0 and the input itself for ±0, ±inf and NaN).
        Op::V_FREXP_MANT_F16 => map(w, c, sc, 1, Out::F16, |x, _, _| {
            let v = f16::from_bits(x as u16);
            if v.is_nan() || v.is_infinite() || f32::from(v) == 0.0 {
                x & 0xffff
            } else {
                let (m, _) = frexp(f64::from(v));
                u32::from(f16::from_f64(m).to_bits())
            }
        }),
        Op::V_FREXP_EXP_I16_F16 => map(w, c, sc, 1, int, |x, _, _| {
            let v = f16::from_bits(x as u16);
            if v.is_nan() || v.is_infinite() || f32::from(v) == 0.0 {
                0
            } else {
                u32::from(frexp(f64::from(v)).1 as i16 as u16)
            }
        }),
        Op::V_XNOR_B32 => map(w, c, sc, 2, int, |x, y, _| !(x ^ y)),
        Op::V_MAD_U32_U16 => map(w, c, sc, 3, int, |x, y, z| {
            let v = u64::from(x & 0xffff) * u64::from(y & 0xffff) + u64::from(z);
            if cl {
                sat_u32(v)
            } else {
                v as u32
            }
        }),
        Op::V_MAD_I32_I16 => map(w, c, sc, 3, int, |x, y, z| {
            let v = i64::from(x as i16) * i64::from(y as i16) + i64::from(z as i32);
            if cl {
                sat_i32(v)
            } else {
                v as u32
            }
        }),
        Op::V_MAD_LEGACY_U16 => map(w, c, sc, 3, int, |x, y, z| {
            let v = (x & 0xffff) * (y & 0xffff) + (z & 0xffff);
            if cl {
                v.min(0xffff)
            } else {
                v & 0xffff
            }
        }),
        Op::V_MAD_I16 | Op::V_MAD_LEGACY_I16 => map(w, c, sc, 3, int, |x, y, z| {
            let v = i32::from(x as i16) * i32::from(y as i16) + i32::from(z as i16);
            if cl {
                sat_i16(v)
            } else {
                v as u32 & 0xffff
            }
        }),
        Op::V_MAX3_I16 => map(w, c, sc, 3, int, |x, y, z| {
            (x as i16).max(y as i16).max(z as i16) as u16 as u32
        }),
        Op::V_MIN3_I16 => map(w, c, sc, 3, int, |x, y, z| {
            (x as i16).min(y as i16).min(z as i16) as u16 as u32
        }),
        Op::V_MED3_I16 => map(w, c, sc, 3, int, |x, y, z| {
            let (x, y, z) = (x as i16, y as i16, z as i16);
            x.max(y).min(x.min(y).max(z)) as u16 as u32
        }),
        Op::V_MAX3_U16 => map(w, c, sc, 3, int, |x, y, z| {
            (x & 0xffff).max(y & 0xffff).max(z & 0xffff)
        }),
        Op::V_MIN3_U16 => map(w, c, sc, 3, int, |x, y, z| {
            (x & 0xffff).min(y & 0xffff).min(z & 0xffff)
        }),
        Op::V_MED3_U16 => map(w, c, sc, 3, int, |x, y, z| {
            let (x, y, z) = (x & 0xffff, y & 0xffff, z & 0xffff);
            x.max(y).min(x.min(y).max(z))
        }),
        Op::V_SAD_U8 | Op::V_MSAD_U8 | Op::V_SAD_HI_U8 | Op::V_SAD_U16 => {
            let op = i.op;
            map(w, c, sc, 3, int, |x, y, z| {
                let d = match op {
                    Op::V_SAD_U16 => {
                        (x & 0xffff).abs_diff(y & 0xffff) + (x >> 16).abs_diff(y >> 16)
                    }
                    Op::V_SAD_HI_U8 => sad_bytes(x, y, false) << 16,
                    _ => sad_bytes(x, y, op == Op::V_MSAD_U8),
                };
                let v = u64::from(d) + u64::from(z);
                if cl {
                    sat_u32(v)
                } else {
                    v as u32
                }
            })
        }
        Op::V_QSAD_PK_U16_U8 | Op::V_MQSAD_PK_U16_U8 => {
            // Four SADs of the reference S1 against the byte windows 0–3 of the 8 bytes of
            // S0, each added to a 16-bit accumulator of S2.
            let masked = i.op == Op::V_MQSAD_PK_U16_U8;
            let (a, b, acc) = (c.s64(w, 0), c.s_into(w, 1, &mut sc.a), c.s64(w, 2));
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                let mut out = 0u64;
                for k in 0..4 {
                    let window = (a[l] >> (8 * k)) as u32;
                    let v = sad_bytes(window, b[l], masked) + (acc[l] >> (16 * k) & 0xffff) as u32;
                    let v = if cl { v.min(0xffff) } else { v & 0xffff };
                    out |= u64::from(v) << (16 * k);
                }
                r[l] = out;
            }
            w.vwrite64(i.dst, &r, c.wmask);
        }
        Op::V_MQSAD_U32_U8 => {
            // Four masked SADs as in v_mqsad_pk_u16_u8, each added to a 32-bit accumulator
            // (S2 and the destination are four VGPRs).
            let (a, b) = (c.s64(w, 0), *c.s_into(w, 1, &mut sc.a));
            let code = i.src[2];
            for k in 0..4u16 {
                let acc = if code >= VGPR {
                    w.vsrc(rel(code, k.into()), 0, Ty::B32)
                } else {
                    w.vsrc(code, i.lit, Ty::B32)
                };
                let mut r = [0u32; LANES];
                for l in 0..LANES {
                    let window = (a[l] >> (8 * k)) as u32;
                    let v = u64::from(sad_bytes(window, b[l], true)) + u64::from(acc[l]);
                    r[l] = if cl { sat_u32(v) } else { v as u32 };
                }
                w.vwrite(rel(i.dst, k.into()), &r, c.wmask);
            }
        }
        Op::V_LERP_U8 => map(w, c, sc, 3, int, |x, y, z| {
            (0..4)
                .map(|k| {
                    let (a, b, r) = (x >> (8 * k) & 0xff, y >> (8 * k) & 0xff, z >> (8 * k) & 1);
                    ((a + b + r) >> 1) << (8 * k)
                })
                .sum()
        }),
        Op::V_CVT_PK_U8_F32 => map(w, c, sc, 3, int, |x, y, z| {
            let sh = 8 * (y & 3);
            (z & !(0xff << sh)) | f32_to_u8(f(x)) << sh
        }),
        Op::V_CVT_PKACCUM_U8_F32 => {
            // The destination is the accumulator: one byte of it is replaced.
            let old = w.vsrc(i.dst, 0, Ty::B32);
            let (a, b) = (*c.s_into(w, 0, &mut sc.a), *c.s_into(w, 1, &mut sc.b));
            for l in 0..LANES {
                let sh = 8 * (b[l] & 3);
                sc.r[l] = (old[l] & !(0xff << sh)) | f32_to_u8(f(a[l])) << sh;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        Op::V_CVT_PKNORM_I16_F32 => map(w, c, sc, 2, int, |x, y, _| {
            snorm16(f(x)) | snorm16(f(y)) << 16
        }),
        Op::V_CVT_PKNORM_U16_F32 => map(w, c, sc, 2, int, |x, y, _| {
            unorm16(f(x)) | unorm16(f(y)) << 16
        }),
        Op::V_CVT_PKNORM_I16_F16 => map(w, c, sc, 2, int, |x, y, _| {
            snorm16(f16f(x)) | snorm16(f16f(y)) << 16
        }),
        Op::V_CVT_PKNORM_U16_F16 => map(w, c, sc, 2, int, |x, y, _| {
            unorm16(f16f(x)) | unorm16(f16f(y)) << 16
        }),
        Op::V_CVT_NORM_I16_F16 => map(w, c, sc, 1, int, |x, _, _| snorm16(f16f(x))),
        Op::V_CVT_NORM_U16_F16 => map(w, c, sc, 1, int, |x, _, _| unorm16(f16f(x))),
        Op::V_SAT_PK_U8_I16 => map(w, c, sc, 1, int, |x, _, _| {
            let sat = |v: u32| (v as u16 as i16).clamp(0, 255) as u32;
            sat(x) | sat(x >> 16) << 8
        }),
        Op::V_CVT_OFF_F32_I4 => map(w, c, sc, 1, fl, |x, _, _| {
            (f32::from(((x << 28) as i32 >> 28) as i8) / 16.0).to_bits()
        }),
        Op::V_CUBEID_F32 | Op::V_CUBESC_F32 | Op::V_CUBETC_F32 | Op::V_CUBEMA_F32 => {
            let op = i.op;
            map(w, c, sc, 3, fl, |x, y, z| {
                cube(op, f(x), f(y), f(z)).to_bits()
            })
        }
        Op::V_MAD_LEGACY_F32 => map(w, c, sc, 3, fl, |x, y, z| {
            (mul_legacy(f(x), f(y)) + f(z)).to_bits()
        }),
        Op::V_FMA_LEGACY_F32 => map(w, c, sc, 3, fl, |x, y, z| {
            if f(x) == 0.0 || f(y) == 0.0 {
                (0.0f32 + f(z)).to_bits()
            } else {
                f(x).mul_add(f(y), f(z)).to_bits()
            }
        }),
        Op::V_FMAC_LEGACY_F32 => {
            let mut acc = w.vsrc(i.dst, 0, Ty::B32);
            if c.daz & 4 != 0 {
                // The accumulator is the third source (flushed with it when MODE says so).
                acc = acc.map(ftz32);
            }
            let (a, b) = (*c.s_into(w, 0, &mut sc.a), *c.s_into(w, 1, &mut sc.b));
            for l in 0..LANES {
                let (x, y, z) = (f(a[l]), f(b[l]), f(acc[l]));
                sc.r[l] = if x == 0.0 || y == 0.0 {
                    (0.0f32 + z).to_bits()
                } else {
                    x.mul_add(y, z).to_bits()
                };
            }
            let r = sc.r;
            put_f32(w, c, &r, &mut sc.o);
        }
        Op::V_DOT2C_F32_F16 | Op::V_DOT2C_I32_I16 | Op::V_DOT4C_I32_I8 | Op::V_DOT8C_I32_I4 => {
            // VOP2 dot products accumulating into the destination.
            let mut acc = w.vsrc(i.dst, 0, Ty::B32);
            if i.op == Op::V_DOT2C_F32_F16 && c.daz & 4 != 0 {
                acc = acc.map(ftz32);
            }
            let (a, b) = (*c.s_into(w, 0, &mut sc.a), *c.s_into(w, 1, &mut sc.b));
            for l in 0..LANES {
                let (x, y, d) = (a[l], b[l], acc[l]);
                sc.r[l] = match i.op {
                    Op::V_DOT2C_F32_F16 => {
                        let p = f64::from(f16f(x)) * f64::from(f16f(y))
                            + f64::from(f16f(x >> 16)) * f64::from(f16f(y >> 16));
                        ((p + f64::from(f(d))) as f32).to_bits()
                    }
                    Op::V_DOT2C_I32_I16 => (0..2)
                        .map(|k| {
                            i32::from((x >> (16 * k)) as i16)
                                .wrapping_mul(i32::from((y >> (16 * k)) as i16))
                                as u32
                        })
                        .fold(d, u32::wrapping_add),
                    Op::V_DOT4C_I32_I8 => (0..4)
                        .map(|k| {
                            i32::from((x >> (8 * k)) as i8)
                                .wrapping_mul(i32::from((y >> (8 * k)) as i8))
                                as u32
                        })
                        .fold(d, u32::wrapping_add),
                    _ => dot8(x, y, d, true) as u32,
                };
            }
            let r = sc.r;
            if i.op == Op::V_DOT2C_F32_F16 {
                put_f32(w, c, &r, &mut sc.o);
            } else {
                put(w, c, &r);
            }
        }
        Op::V_PK_FMAC_F16 => {
            // Both halves: D.h[k] = fma(S0.h[k], S1.h[k], D.h[k]).
            let acc = w.vsrc(i.dst, 0, Ty::B32);
            let (a, b) = (*c.s_into(w, 0, &mut sc.a), *c.s_into(w, 1, &mut sc.b));
            for l in 0..LANES {
                let half = |k: u32| {
                    let (x, y, z) = (a[l] >> k, b[l] >> k, acc[l] >> k);
                    // The f16 product is exact in f64 and so is its sum with an f16 (the f16
                    // exponent range spans fewer than 53 bits): one rounding, to f16.
                    let v = f64::from(f16f(x)) * f64::from(f16f(y)) + f64::from(f16f(z));
                    u32::from(f16::from_f64(v).to_bits())
                };
                sc.r[l] = half(0) | half(16) << 16;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        Op::V_MOVRELS_B32 | Op::V_MOVRELD_B32 | Op::V_MOVRELSD_B32 | Op::V_MOVRELSD_2_B32 => {
            // M0-relative VGPR indexing (dynamic indexing of register arrays).
            let m0 = w.m0();
            let (src_off, dst_off) = match i.op {
                Op::V_MOVRELS_B32 => (m0, 0),
                Op::V_MOVRELD_B32 => (0, m0),
                Op::V_MOVRELSD_B32 => (m0, m0),
                _ => (m0 & 0x3ff, m0 >> 16 & 0x3ff),
            };
            let code = i.src[0];
            let v = if code >= VGPR {
                w.vsrc(rel(code, src_off), 0, Ty::B32)
            } else {
                w.vsrc(code, i.lit, Ty::B32)
            };
            w.vwrite(rel(i.dst, dst_off), &v, c.exec);
        }
        Op::V_SWAPREL_B32 => {
            let m0 = w.m0();
            let (s, d) = (rel(i.src[0], m0 & 0x3ff), rel(i.dst, m0 >> 16 & 0x3ff));
            let (a, b) = (w.vsrc(s, 0, Ty::B32), w.vsrc(d, 0, Ty::B32));
            w.vwrite(d, &a, c.exec);
            w.vwrite(s, &b, c.exec);
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}
