//! VOP3P: packed 16-bit and (gfx90a) packed 32-bit math, mixed-precision FMA, dot
//! products, AccVGPR moves; matrix FMA goes on to `mfma`.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::softfloat as sf;
use super::valu::*;
use super::{Env, Flow, LaneFault, R};
use crate::decode::{flag, Inst, AGPR, VCC, VGPR};
use crate::ops::Op;
use crate::wave::{Ty, Wave, LANES};
use half::f16;

/// f32 and f16 (low-half) arithmetic on bits in a MODE rounding direction: the host's
/// arithmetic for round to nearest even, [`sf`] otherwise.
#[inline(always)]
fn add32(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        first_nan(u(f(x) + f(y)), &[x, y])
    } else {
        sf::add(sf::F32, x.into(), y.into(), rm) as u32
    }
}
#[inline(always)]
fn mul32(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        first_nan(u(f(x) * f(y)), &[x, y])
    } else {
        sf::mul(sf::F32, x.into(), y.into(), rm) as u32
    }
}
#[inline(always)]
fn fma32(x: u32, y: u32, z: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        first_nan(u(f(x).mul_add(f(y), f(z))), &[x, y, z])
    } else {
        sf::fma(sf::F32, x.into(), y.into(), z.into(), rm, 0) as u32
    }
}
#[inline(always)]
fn add16(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        hb(h(x) + h(y))
    } else {
        sf::add(sf::F16, (x & 0xffff).into(), (y & 0xffff).into(), rm) as u32
    }
}
#[inline(always)]
fn mul16(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        hb(h(x) * h(y))
    } else {
        sf::mul(sf::F16, (x & 0xffff).into(), (y & 0xffff).into(), rm) as u32
    }
}
#[inline(always)]
fn fma16(x: u32, y: u32, z: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        first_nan16(hb(h(x).mul_add(h(y), h(z))), &[x, y, z])
    } else {
        let (x, y, z) = (
            (x & 0xffff).into(),
            (y & 0xffff).into(),
            (z & 0xffff).into(),
        );
        sf::fma(sf::F16, x, y, z, rm, 0) as u32
    }
}

/// Source `k` of a packed-f32 instruction (`v_pk_{add,mul,fma}_f32`, `v_pk_mov_b32`) as
/// register pairs. A constant (inline integer, inline float, literal) is one 32-bit value
/// (floats as f32) used for both halves whatever op_sel says: `v_pk_add_f32 v[2:3], v[0:1],
/// 1.0` adds 1.0 to both.
fn pk32_src(w: &Wave, i: &Inst, k: usize) -> Row64 {
    let code = i.src[k];
    // Registers (SGPR pairs, VGPR pairs) read both dwords.
    if !(128..VGPR).contains(&code) {
        return w.vsrc64(code, i.lit, Ty::I64);
    }
    let v = u64::from(w.sread(code, i.lit, Ty::B32));
    [v | v << 32; LANES]
}

/// VOP3P: packed 16-bit and (gfx90a) packed 32-bit math, mixed-precision FMA, dot products,
/// AccVGPR moves; matrix FMA goes on to [`super::mfma`].
pub(super) fn vop3p(w: &mut Wave, c: &mut Ctx, env: &mut Env) -> R {
    let i = c.i;
    // Half k of source s: op_sel chooses the half for the low result, op_sel_hi for the high.
    let src = |w: &Wave, k: usize| w.vsrc(i.src[k], i.lit, Ty::B16);
    let half = |v: u32, k: usize, hi: bool| -> u32 {
        let sel = if hi {
            i.opsel_hi >> k & 1
        } else {
            i.opsel >> k & 1
        };
        let mut x = if sel != 0 { v >> 16 } else { v & 0xffff };
        let negbit = if hi {
            i.neg_hi >> k & 1
        } else {
            i.neg >> k & 1
        };
        if negbit != 0 {
            x ^= 0x8000;
        }
        x
    };
    let half_int = |v: u32, k: usize, hi: bool| -> u32 {
        let sel = if hi {
            i.opsel_hi >> k & 1
        } else {
            i.opsel >> k & 1
        };
        if sel != 0 {
            v >> 16
        } else {
            v & 0xffff
        }
    };
    // MODE: denormal flushing (`c.daz`/`c.ftz`, set off the default mode), rounding
    // (FP_ROUND: f16 by bits 3:2, f32 by bits 1:0), IEEE min/max, DX10_CLAMP.
    let daz = c.daz != 0;
    let (ftz16_out, ftz32_out) = (c.ftz & 2 != 0, c.ftz & 1 != 0);
    let mode = w.mode;
    let rm16 = sf::Round::from_field(mode >> 2);
    let rm32 = sf::Round::from_field(mode);
    let ieee = mode & MODE_IEEE != 0;
    let dx10 = mode & MODE_DX10_CLAMP != 0;
    // Integer clamp (packed adds/subs/mads): each half saturates at the 16-bit range.
    let cl = i.has(flag::CLAMP);
    macro_rules! pk16 {
        ($n:expr, $float:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let a = src(w, 0);
            let b = if $n > 1 { src(w, 1) } else { [0; LANES] };
            let cc = if $n > 2 { src(w, 2) } else { [0; LANES] };
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let mut out = 0u32;
                for hi in [false, true] {
                    let g = |v: u32, k: usize| if $float {
                        let x = half(v, k, hi);
                        if daz { ftz16(x) } else { x }
                    } else {
                        half_int(v, k, hi)
                    };
                    let ($x, $y, $z) = (g(a[l], 0), g(b[l], 1), g(cc[l], 2));
                    let mut v: u32 = $e;
                    if $float && ftz16_out {
                        v = ftz16(v);
                    }
                    out |= (v & 0xffff) << if hi { 16 } else { 0 };
                }
                r[l] = out;
            }
            if i.has(flag::CLAMP) && $float {
                for x in r.iter_mut() {
                    let lo = clamp01(h(*x & 0xffff), dx10);
                    let hi = clamp01(h(*x >> 16), dx10);
                    *x = hb(lo) | hb(hi) << 16;
                }
            }
            w.vwrite(i.dst, &r, c.exec);
        }};
    }
    // Packed f32 (gfx90a): each source is a register pair.
    macro_rules! pk32 {
        ($n:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let a = pk32_src(w, i, 0);
            let b = if $n > 1 { pk32_src(w, i, 1) } else { [0; LANES] };
            let cc = if $n > 2 { pk32_src(w, i, 2) } else { [0; LANES] };
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                let mut out = 0u64;
                for hi in [false, true] {
                    let g = |v: u64, k: usize| -> u32 {
                        let sel = if hi { i.opsel_hi >> k & 1 } else { i.opsel >> k & 1 };
                        let mut x = if sel != 0 { (v >> 32) as u32 } else { v as u32 };
                        let negbit = if hi { i.neg_hi >> k & 1 } else { i.neg >> k & 1 };
                        if negbit != 0 {
                            x ^= 0x8000_0000;
                        }
                        if daz { ftz32(x) } else { x }
                    };
                    let ($x, $y, $z) = (g(a[l], 0), g(b[l], 1), g(cc[l], 2));
                    let mut v: u32 = $e;
                    if ftz32_out {
                        v = ftz32(v);
                    }
                    if i.has(flag::CLAMP) && (!f(v).is_nan() || dx10) {
                        v = u(clamp01(f64::from(f(v)), dx10) as f32);
                    }
                    out |= u64::from(v) << if hi { 32 } else { 0 };
                }
                r[l] = out;
            }
            w.vwrite64(i.dst, &r, c.exec);
        }};
    }
    match i.op {
        Op::V_PK_ADD_F16 => pk16!(2, true, |x, y, _z| add16(x, y, rm16)),
        Op::V_PK_MUL_F16 => pk16!(2, true, |x, y, _z| mul16(x, y, rm16)),
        Op::V_PK_FMA_F16 => pk16!(3, true, |x, y, z| fma16(x, y, z, rm16)),
        Op::V_PK_MAX_F16 => pk16!(2, true, |x, y, _z| minmax16(x, y, true, ieee)),
        Op::V_PK_MIN_F16 => pk16!(2, true, |x, y, _z| minmax16(x, y, false, ieee)),
        // GFX12: IEEE 754-2019 maximum/minimum of each half.
        Op::V_PK_MAXIMUM_F16 => pk16!(2, true, |x, y, _z| ieee2019_16(x, y, true, false)),
        Op::V_PK_MINIMUM_F16 => pk16!(2, true, |x, y, _z| ieee2019_16(x, y, false, false)),
        Op::V_PK_ADD_U16 if cl => pk16!(2, false, |x, y, _z| (x + y).min(0xffff)),
        Op::V_PK_SUB_U16 if cl => pk16!(2, false, |x, y, _z| x.saturating_sub(y)),
        Op::V_PK_MAD_U16 if cl => pk16!(3, false, |x, y, z| (x * y + z).min(0xffff)),
        Op::V_PK_ADD_I16 if cl => pk16!(2, false, |x, y, _z| sat_i16(
            i32::from(x as u16 as i16) + i32::from(y as u16 as i16)
        )),
        Op::V_PK_SUB_I16 if cl => pk16!(2, false, |x, y, _z| sat_i16(
            i32::from(x as u16 as i16) - i32::from(y as u16 as i16)
        )),
        Op::V_PK_MAD_I16 => pk16!(3, false, |x, y, z| {
            let v = i32::from(x as u16 as i16) * i32::from(y as u16 as i16)
                + i32::from(z as u16 as i16);
            if cl {
                sat_i16(v)
            } else {
                v as u32
            }
        }),
        Op::V_PK_ADD_U16 | Op::V_PK_ADD_I16 => pk16!(2, false, |x, y, _z| x.wrapping_add(y)),
        Op::V_PK_SUB_U16 | Op::V_PK_SUB_I16 => pk16!(2, false, |x, y, _z| x.wrapping_sub(y)),
        Op::V_PK_MUL_LO_U16 => pk16!(2, false, |x, y, _z| x.wrapping_mul(y)),
        Op::V_PK_MAD_U16 => pk16!(3, false, |x, y, z| x.wrapping_mul(y).wrapping_add(z)),
        Op::V_PK_LSHLREV_B16 => pk16!(2, false, |x, y, _z| y << (x & 15)),
        Op::V_PK_LSHRREV_B16 => pk16!(2, false, |x, y, _z| y >> (x & 15)),
        Op::V_PK_ASHRREV_I16 => pk16!(2, false, |x, y, _z| ((y as u16 as i16) >> (x & 15)) as u16
            as u32),
        Op::V_PK_MAX_U16 => pk16!(2, false, |x, y, _z| x.max(y)),
        Op::V_PK_MIN_U16 => pk16!(2, false, |x, y, _z| x.min(y)),
        Op::V_PK_MAX_I16 => pk16!(
            2,
            false,
            |x, y, _z| (x as u16 as i16).max(y as u16 as i16) as u16 as u32
        ),
        Op::V_PK_MIN_I16 => pk16!(
            2,
            false,
            |x, y, _z| (x as u16 as i16).min(y as u16 as i16) as u16 as u32
        ),
        Op::V_PK_FMA_F32 => pk32!(3, |x, y, z| fma32(x, y, z, rm32)),
        Op::V_PK_MUL_F32 => pk32!(2, |x, y, _z| mul32(x, y, rm32)),
        Op::V_PK_ADD_F32 => pk32!(2, |x, y, _z| add32(x, y, rm32)),
        Op::V_PK_MOV_B32 => {
            let a = pk32_src(w, i, 0);
            let b = pk32_src(w, i, 1);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                let lo = if i.opsel & 1 != 0 {
                    a[l] >> 32
                } else {
                    a[l] & 0xffff_ffff
                };
                let hi = if i.opsel & 2 != 0 {
                    b[l] >> 32
                } else {
                    b[l] & 0xffff_ffff
                };
                r[l] = lo | hi << 32;
            }
            w.vwrite64(i.dst, &r, c.exec);
        }
        Op::V_FMA_MIX_F32
        | Op::V_MAD_MIX_F32
        | Op::V_FMA_MIXLO_F16
        | Op::V_FMA_MIXHI_F16
        | Op::V_MAD_MIXLO_F16
        | Op::V_MAD_MIXHI_F16 => {
            let srcs = [0, 1, 2].map(|k| w.vsrc(i.src[k], i.lit, Ty::B32));
            let old = w.vsrc(i.dst, 0, Ty::B32);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let v: [f32; 3] = [0, 1, 2].map(|k| {
                    let x = srcs[k][l];
                    let mut val = if i.opsel_hi >> k & 1 != 0 {
                        let hbits = if i.opsel >> k & 1 != 0 {
                            x >> 16
                        } else {
                            x & 0xffff
                        };
                        h(hbits) as f32
                    } else {
                        f(x)
                    };
                    if i.neg_hi >> k & 1 != 0 {
                        val = val.abs();
                    }
                    if i.neg >> k & 1 != 0 {
                        val = -val;
                    }
                    val
                });
                let mut res = v[0].mul_add(v[1], v[2]);
                if i.has(flag::CLAMP) {
                    res = clamp01(f64::from(res), dx10) as f32;
                }
                r[l] = match i.op {
                    Op::V_FMA_MIX_F32 | Op::V_MAD_MIX_F32 => u(res),
                    Op::V_FMA_MIXLO_F16 | Op::V_MAD_MIXLO_F16 => {
                        (old[l] & 0xffff_0000) | u32::from(f16::from_f32(res).to_bits())
                    }
                    _ => (old[l] & 0xffff) | u32::from(f16::from_f32(res).to_bits()) << 16,
                };
            }
            w.vwrite(i.dst, &r, c.exec);
        }
        Op::V_DOT2_F32_F16 => {
            let (a, b, cc) = (src(w, 0), src(w, 1), w.vsrc(i.src[2], i.lit, Ty::B32));
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let p = h(a[l] & 0xffff) * h(b[l] & 0xffff) + h(a[l] >> 16) * h(b[l] >> 16);
                r[l] = u((p + f64::from(f(cc[l]))) as f32);
            }
            w.vwrite(i.dst, &r, c.exec);
        }
        Op::V_DOT8_I32_I4 | Op::V_DOT8_U32_U4 => {
            let (a, b, cc) = (
                w.vsrc(i.src[0], i.lit, Ty::B32),
                w.vsrc(i.src[1], i.lit, Ty::B32),
                w.vsrc(i.src[2], i.lit, Ty::B32),
            );
            let signed = i.op == Op::V_DOT8_I32_I4;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let acc = super::valu_media::dot8(a[l], b[l], cc[l], signed);
                r[l] = match (i.has(flag::CLAMP), signed) {
                    (false, _) => acc as u32,
                    (true, true) => sat_i32(acc),
                    (true, false) => sat_u32(acc as u64),
                };
            }
            w.vwrite(i.dst, &r, c.exec);
        }
        // GFX11: neg_lo[0]/neg_lo[1] make the A/B elements signed (unsigned otherwise); the
        // sum is signed, saturated under clamp.
        Op::V_DOT4_I32_IU8 | Op::V_DOT8_I32_IU4 => {
            let (a, b, cc) = (
                w.vsrc(i.src[0], i.lit, Ty::B32),
                w.vsrc(i.src[1], i.lit, Ty::B32),
                w.vsrc(i.src[2], i.lit, Ty::B32),
            );
            let (bits, n) = if i.op == Op::V_DOT4_I32_IU8 {
                (8, 4)
            } else {
                (4, 8)
            };
            let elem = |x: u32, k: u32, signed: bool| -> i64 {
                let up = 32 - bits;
                let v = x >> (bits * k) << up;
                i64::from(if signed {
                    (v as i32) >> up
                } else {
                    (v >> up) as i32
                })
            };
            let (sa, sb) = (i.neg & 1 != 0, i.neg & 2 != 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let mut acc = i64::from(cc[l] as i32);
                for k in 0..n {
                    acc += elem(a[l], k, sa) * elem(b[l], k, sb);
                }
                r[l] = if i.has(flag::CLAMP) {
                    sat_i32(acc)
                } else {
                    acc as u32
                };
            }
            w.vwrite(i.dst, &r, c.exec);
        }
        Op::V_DOT4_I32_I8 | Op::V_DOT4_U32_U8 | Op::V_DOT2_I32_I16 | Op::V_DOT2_U32_U16 => {
            // Packed 16-bit sources read inline float constants as f16 (low half).
            let ty = if matches!(i.op, Op::V_DOT2_I32_I16 | Op::V_DOT2_U32_U16) {
                Ty::B16
            } else {
                Ty::B32
            };
            let (a, b, cc) = (
                w.vsrc(i.src[0], i.lit, ty),
                w.vsrc(i.src[1], i.lit, ty),
                w.vsrc(i.src[2], i.lit, Ty::B32),
            );
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let mut acc = i64::from(cc[l] as i32);
                match i.op {
                    Op::V_DOT4_I32_I8 => {
                        for k in 0..4 {
                            acc += i64::from((a[l] >> (8 * k)) as u8 as i8)
                                * i64::from((b[l] >> (8 * k)) as u8 as i8);
                        }
                    }
                    Op::V_DOT4_U32_U8 => {
                        acc = i64::from(cc[l]);
                        for k in 0..4 {
                            acc += i64::from(a[l] >> (8 * k) & 0xff)
                                * i64::from(b[l] >> (8 * k) & 0xff);
                        }
                    }
                    Op::V_DOT2_I32_I16 => {
                        for k in 0..2 {
                            acc += i64::from((a[l] >> (16 * k)) as u16 as i16)
                                * i64::from((b[l] >> (16 * k)) as u16 as i16);
                        }
                    }
                    _ => {
                        acc = i64::from(cc[l]);
                        for k in 0..2 {
                            acc += i64::from(a[l] >> (16 * k) & 0xffff)
                                * i64::from(b[l] >> (16 * k) & 0xffff);
                        }
                    }
                }
                let signed = matches!(i.op, Op::V_DOT4_I32_I8 | Op::V_DOT2_I32_I16);
                r[l] = match (i.has(flag::CLAMP), signed) {
                    (false, _) => acc as u32,
                    (true, true) => sat_i32(acc),
                    (true, false) => sat_u32(acc as u64),
                };
            }
            w.vwrite(i.dst, &r, c.exec);
        }
        Op::V_ACCVGPR_READ_B32 => {
            let code = if i.src[0] >= VGPR {
                AGPR + (i.src[0] - VGPR)
            } else {
                i.src[0]
            };
            let r = w.vsrc(code, i.lit, Ty::B32);
            w.vwrite(i.dst, &r, c.exec);
        }
        Op::V_ACCVGPR_WRITE_B32 => {
            let r = w.vsrc(i.src[0], i.lit, Ty::B32);
            let code = AGPR + (i.dst - VGPR);
            w.vwrite(code, &r, c.exec);
        }
        Op::V_DOT4_F32_FP8_BF8
        | Op::V_DOT4_F32_BF8_FP8
        | Op::V_DOT4_F32_FP8_FP8
        | Op::V_DOT4_F32_BF8_BF8 => super::gfx12::dot4_f8(w, i, c.exec),
        // gfx950's packed additions, then matrix FMA (or an unimplemented VOP3P operation).
        _ => return super::cdna3::vop3p(w, i, c.exec, env.gen),
    }
    let _ = VCC;
    let _ = LaneFault::new;
    Ok(Flow::Next)
}
