//! Vector ALU instructions under a MODE register other than the default
//! (amdgpu-execution.md §4.4): FP_DENORM (denormal flushing of operands and results),
//! FP_ROUND (rounding direction) and FP16_OVFL. `valu::valu` compares MODE with
//! [`FP_DEFAULT`] once per instruction, so the default mode (round to nearest even, denormals
//! kept) costs one compare and runs the semantics in valu.rs unchanged. DX10_CLAMP and IEEE
//! mode are read where they matter (the clamp modifier, min/max) on every path, in valu.rs.
//!
//! Off the default mode this module
//! - works out which sources of the instruction are floats and whether MODE flushes their
//!   denormals (`Ctx::daz`) and whether results are flushed (`Ctx::ftz`); the shared semantics
//!   apply both when they read sources and write results;
//! - computes the operations that honour a rounding direction other than nearest even (and
//!   FP16_OVFL) here, with the exact arithmetic of [`super::softfloat`]: f32/f64/f16
//!   add, sub, mul, fma/fmac, mad/mac/madak/madmk, `v_div_fmas`, sqrt, f32 `v_rcp`, and the
//!   conversions that can round (f64→f32, f32→f16, i32/u32→f32, i16/u16→f16). Packed math
//!   (VOP3P) reads the rounding mode itself. Every other instruction rounds to nearest even
//!   (docs/status.md lists them).
//!
//! Which instructions ignore FP_DENORM: `v_mad_f32`, `v_mac_f32`, `v_madak_f32`,
//! `v_madmk_f32` and the f16 `v_mad`/`v_mac`/`v_madak`/`v_madmk` always flush (valu.rs), and
//! `v_cmp_class` tests the raw bits.

use super::softfloat::{self as sf, Round};
use super::valu::{ftz16, ftz32, ftz64, put_f16, put_f32, put_f64, Ctx, Scratch};
use super::{Env, Flow, R};
use crate::decode::{Fmt, Gen};
use crate::ops::{valu_part, Op};
use crate::wave::{Row, Ty, Wave, LANES};

/// MODE bits handled here: FP_ROUND (3:0), FP_DENORM (7:4), FP16_OVFL (23).
pub(crate) const FP_MASK: u32 = 0xff | MODE_FP16_OVFL;
/// Their default: round to nearest even, f32 and f64/f16 denormals kept, FP16_OVFL clear.
pub(crate) const FP_DEFAULT: u32 = 0xf0;
const MODE_FP16_OVFL: u32 = 1 << 23;

/// The float sources of an instruction (bit k = source k; for the MAC/FMAC forms bit 2 is the
/// accumulator). Integer operands (conversions from integers, ldexp exponents, 16-bit integer
/// ops) are not flushed, nor is `v_cmp_class`'s operand.
fn float_sources(i: &crate::decode::Inst) -> u8 {
    match i.op {
        Op::V_CMP => {
            let ty = i.imm >> 5 & 15;
            let cond = i.imm & 31;
            if ty <= 2 && cond != 16 {
                0b011
            } else {
                0
            }
        }
        Op::V_LDEXP_F32 | Op::V_LDEXP_F64 | Op::V_LDEXP_F16 | Op::V_TRIG_PREOP_F64 => 0b001,
        Op::V_CVT_F64_I32
        | Op::V_CVT_F64_U32
        | Op::V_ADD_U16
        | Op::V_SUB_U16
        | Op::V_SUBREV_U16
        | Op::V_MUL_LO_U16
        | Op::V_LSHLREV_B16
        | Op::V_LSHRREV_B16
        | Op::V_ASHRREV_I16
        | Op::V_MAX_U16
        | Op::V_MIN_U16
        | Op::V_MAX_I16
        | Op::V_MIN_I16
        | Op::V_MAD_U16
        | Op::V_PACK_B32_F16 => 0,
        Op::V_CVT_F16_F32
        | Op::V_CVT_F32_F16
        | Op::V_CVT_FLR_I32_F32
        | Op::V_CVT_I16_F16
        | Op::V_CVT_I32_F32
        | Op::V_CVT_PKRTZ_F16_F32
        | Op::V_CVT_RPI_I32_F32
        | Op::V_CVT_U16_F16
        | Op::V_CVT_U32_F32 => 0b011,
        // GFX10 (exec/rdna.rs): the constant is not a source here.
        Op::V_FMAMK_F32 | Op::V_FMAAK_F32 | Op::V_FMAMK_F16 | Op::V_FMAAK_F16 => 0b011,
        Op::V_PK_ADD_F16
        | Op::V_PK_MUL_F16
        | Op::V_PK_FMA_F16
        | Op::V_PK_MAX_F16
        | Op::V_PK_MIN_F16
        | Op::V_PK_FMA_F32
        | Op::V_PK_MUL_F32
        | Op::V_PK_ADD_F32 => 0b111,
        Op::V_CUBEID_F32
        | Op::V_CUBESC_F32
        | Op::V_CUBETC_F32
        | Op::V_CUBEMA_F32
        | Op::V_MAD_LEGACY_F32
        | Op::V_FMA_LEGACY_F32
        | Op::V_FMAC_LEGACY_F32
        | Op::V_DOT2C_F32_F16 => 0b111,
        Op::V_CVT_PKNORM_I16_F32
        | Op::V_CVT_PKNORM_U16_F32
        | Op::V_CVT_PKNORM_I16_F16
        | Op::V_CVT_PKNORM_U16_F16
        | Op::V_PK_FMAC_F16 => 0b011,
        Op::V_EXP_LEGACY_F32
        | Op::V_LOG_LEGACY_F32
        | Op::V_FREXP_MANT_F16
        | Op::V_FREXP_EXP_I16_F16
        | Op::V_CVT_NORM_I16_F16
        | Op::V_CVT_NORM_U16_F16
        | Op::V_CVT_PK_U8_F32
        | Op::V_CVT_PKACCUM_U8_F32 => 0b001,
        // The f32, f64 and f16 arithmetic parts of valu.rs (the rest of their conversions
        // read floats too).
        op if i.fmt != Fmt::Vop3p && matches!(valu_part(op), 1 | 3 | 4) => 0b111,
        _ => 0,
    }
}

/// Whether MODE's FP fields (FP_ROUND, FP_DENORM, FP16_OVFL) cannot change what the vector
/// instruction `i` computes: it reads no float source [`valu`] flushes, writes no float result
/// (`put_f32`/`put_f16`/`put_f64` flush those) and rounds nothing. The moves and
/// `v_cndmask_b32` (valu_move), the integer operations (valu_int), the integer compares,
/// `v_cmp_class`, the carry forms and `v_readlane`/`v_readfirstlane`; everything else counts as reading MODE.
/// The compiling tier runs such code under any MODE (`jit::Block::runs`).
pub(crate) fn mode_free(i: &crate::decode::Inst) -> bool {
    let other_integer = matches!(
        i.op,
        Op::V_CMP
            | Op::V_READLANE_B32
            | Op::V_READFIRSTLANE_B32
            | Op::V_ADD_CO_U32
            | Op::V_SUB_CO_U32
            | Op::V_SUBREV_CO_U32
            | Op::V_ADDC_CO_U32
            | Op::V_SUBB_CO_U32
            | Op::V_SUBBREV_CO_U32
    );
    i.fmt != Fmt::Vop3p
        && float_sources(i) == 0
        && (matches!(valu_part(i.op), 0 | 5) || other_integer)
}

/// Sets up flushing for `c`'s instruction and runs the ones that round in a direction other
/// than nearest even (or clamp f16 overflow); `None` leaves the instruction to the shared
/// semantics.
#[cold]
#[inline(never)]
pub(super) fn valu(w: &mut Wave, c: &mut Ctx, env: &mut Env) -> Option<R> {
    let i = c.i;
    let mode = w.mode;
    // FP_DENORM fields: bit 0 allows denormal inputs, bit 1 denormal outputs.
    let (in32, out32) = (mode >> 4 & 1 == 0, mode >> 5 & 1 == 0);
    let (in64, out64) = (mode >> 6 & 1 == 0, mode >> 7 & 1 == 0);
    let srcs = float_sources(i);
    for k in 0..3 {
        let flush = match i.tys[k] {
            Ty::B32 => in32,
            Ty::B16 | Ty::F64 => in64,
            Ty::I64 => false,
        };
        if srcs >> k & 1 != 0 && flush {
            c.daz |= 1 << k;
        }
    }
    c.ftz = u8::from(out32) | u8::from(out64) << 1;
    let rm32 = Round::from_field(mode);
    let rm64 = Round::from_field(mode >> 2);
    // FP16_OVFL exists from GFX9 on.
    let ovfl = mode & MODE_FP16_OVFL != 0 && env.gen != Gen::Gfx8;
    if i.fmt == Fmt::Vop3p || rm32 == Round::NearestEven && rm64 == Round::NearestEven && !ovfl {
        return None;
    }
    rounded(w, c, &mut *env.scratch, rm32, rm64, ovfl)
}

const SIGN32: u32 = 0x8000_0000;
const SIGN16: u32 = 0x8000;

/// `v_mad_f32` in direction `rm`: flushes operands, product and result whatever MODE says.
fn mad32(x: u32, y: u32, z: u32, rm: Round) -> u32 {
    let p = ftz32(sf::mul(sf::F32, ftz32(x).into(), ftz32(y).into(), rm) as u32);
    ftz32(sf::add(sf::F32, p.into(), ftz32(z).into(), rm) as u32)
}

/// `v_mad_f16` in direction `rm`, like [`mad32`].
fn mad16(x: u32, y: u32, z: u32, rm: Round) -> u32 {
    let p = ftz16(sf::mul(sf::F16, ftz16(x).into(), ftz16(y).into(), rm) as u32);
    ftz16(sf::add(sf::F16, p.into(), ftz16(z).into(), rm) as u32)
}

/// The instructions that honour a rounding direction (and FP16_OVFL), computed exactly.
fn rounded(
    w: &mut Wave,
    c: &mut Ctx,
    sc: &mut Scratch,
    rm32: Round,
    rm64: Round,
    ovfl: bool,
) -> Option<R> {
    let i = c.i;
    let f32_op = matches!(
        i.op,
        Op::V_ADD_F32
            | Op::V_SUB_F32
            | Op::V_SUBREV_F32
            | Op::V_MUL_F32
            | Op::V_MUL_LEGACY_F32
            | Op::V_FMA_F32
            | Op::V_FMAC_F32
            | Op::V_MAC_F32
            | Op::V_MAD_F32
            | Op::V_MADAK_F32
            | Op::V_MADMK_F32
            | Op::V_FMAAK_F32
            | Op::V_FMAMK_F32
            | Op::V_DIV_FMAS_F32
            | Op::V_SQRT_F32
            | Op::V_RCP_F32
            | Op::V_RCP_IFLAG_F32
            | Op::V_CVT_F32_I32
            | Op::V_CVT_F32_U32
            | Op::V_CVT_F32_F64
    );
    let f64_op = matches!(
        i.op,
        Op::V_ADD_F64
            | Op::V_MUL_F64
            | Op::V_FMA_F64
            | Op::V_FMAC_F64
            | Op::V_DIV_FMAS_F64
            | Op::V_SQRT_F64
    );
    let f16_op = matches!(
        i.op,
        Op::V_ADD_F16
            | Op::V_SUB_F16
            | Op::V_SUBREV_F16
            | Op::V_MUL_F16
            | Op::V_FMA_F16
            | Op::V_FMAC_F16
            | Op::V_MAD_F16
            | Op::V_MAC_F16
            | Op::V_MADAK_F16
            | Op::V_MADMK_F16
            | Op::V_FMAAK_F16
            | Op::V_FMAMK_F16
            | Op::V_SQRT_F16
            | Op::V_CVT_F16_F32
            | Op::V_CVT_F16_U16
            | Op::V_CVT_F16_I16
    );
    if f32_op && rm32 != Round::NearestEven {
        f32_rounded(w, c, sc, rm32);
    } else if f64_op && rm64 != Round::NearestEven {
        f64_rounded(w, c, rm64);
    } else if f16_op && (rm64 != Round::NearestEven || ovfl) {
        f16_rounded(w, c, sc, rm64, ovfl);
    } else {
        return None;
    }
    Some(Ok(Flow::Next))
}

/// Per-lane loop over up to three source rows into `out`.
macro_rules! lanes {
    ($out:expr, $a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
        let (a, b, c3): (&Row, &Row, &Row) = ($a, $b, $c);
        for l in 0..LANES {
            let ($x, $y, $z) = (a[l], b[l], c3[l]);
            $out[l] = $e;
        }
    }};
}

/// The accumulator of a MAC/FMAC form (the third source), flushed when MODE says so.
fn accumulator(w: &Wave, c: &Ctx, flush: fn(u32) -> u32) -> Row {
    let mut acc = w.vsrc(c.i.dst, 0, Ty::B32);
    if c.daz & 4 != 0 {
        for x in acc.iter_mut() {
            *x = flush(*x);
        }
    }
    acc
}

fn f32_rounded(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, rm: Round) {
    let i = c.i;
    let zero = [0u32; LANES];
    let k = [i.lit; LANES];
    let vcc = w.vcc();
    let acc = match i.op {
        Op::V_FMAC_F32 | Op::V_MAC_F32 => accumulator(w, c, ftz32),
        _ => zero,
    };
    let add = |x: u32, y: u32| sf::add(sf::F32, x.into(), y.into(), rm) as u32;
    let mul = |x: u32, y: u32| sf::mul(sf::F32, x.into(), y.into(), rm) as u32;
    let fma = |x: u32, y: u32, z: u32, scale: i32| {
        sf::fma(sf::F32, x.into(), y.into(), z.into(), rm, scale) as u32
    };
    let r = &mut sc.r;
    match i.op {
        Op::V_CVT_F32_F64 => {
            let a = c.s64(w, 0);
            for l in 0..LANES {
                r[l] = sf::convert(sf::F64, sf::F32, a[l], rm) as u32;
            }
        }
        Op::V_ADD_F32
        | Op::V_SUB_F32
        | Op::V_SUBREV_F32
        | Op::V_MUL_F32
        | Op::V_MUL_LEGACY_F32
        | Op::V_FMAC_F32
        | Op::V_MAC_F32
        | Op::V_MADMK_F32
        | Op::V_FMAMK_F32 => {
            let a = c.s_into(w, 0, &mut sc.a);
            let b = c.s_into(w, 1, &mut sc.b);
            match i.op {
                Op::V_ADD_F32 => lanes!(r, a, b, &zero, |x, y, _z| add(x, y)),
                Op::V_SUB_F32 => lanes!(r, a, b, &zero, |x, y, _z| add(x, y ^ SIGN32)),
                Op::V_SUBREV_F32 => lanes!(r, a, b, &zero, |x, y, _z| add(y, x ^ SIGN32)),
                Op::V_MUL_F32 => lanes!(r, a, b, &zero, |x, y, _z| mul(x, y)),
                // DX9 rule: 0 times anything (∞, NaN) is 0.
                Op::V_MUL_LEGACY_F32 => lanes!(r, a, b, &zero, |x, y, _z| {
                    if x & !SIGN32 == 0 || y & !SIGN32 == 0 {
                        0
                    } else {
                        mul(x, y)
                    }
                }),
                Op::V_FMAC_F32 => lanes!(r, a, b, &acc, |x, y, z| fma(x, y, z, 0)),
                Op::V_MAC_F32 => lanes!(r, a, b, &acc, |x, y, z| mad32(x, y, z, rm)),
                Op::V_FMAMK_F32 => lanes!(r, a, &k, b, |x, y, z| fma(x, y, z, 0)),
                _ => lanes!(r, a, &k, b, |x, y, z| mad32(x, y, z, rm)),
            }
        }
        Op::V_FMA_F32 | Op::V_MAD_F32 | Op::V_MADAK_F32 | Op::V_FMAAK_F32 | Op::V_DIV_FMAS_F32 => {
            let a = c.s_into(w, 0, &mut sc.a);
            let b = c.s_into(w, 1, &mut sc.b);
            let cc: &Row = if matches!(i.op, Op::V_MADAK_F32 | Op::V_FMAAK_F32) {
                &k
            } else {
                c.s_into(w, 2, &mut sc.c)
            };
            match i.op {
                Op::V_FMA_F32 | Op::V_FMAAK_F32 => lanes!(r, a, b, cc, |x, y, z| fma(x, y, z, 0)),
                Op::V_DIV_FMAS_F32 => {
                    for l in 0..LANES {
                        // v_div_scale's 2^±64, undone with the single rounding.
                        let scale = match (vcc >> l & 1 != 0, cc[l] >> 23 & 0xff > 127) {
                            (false, _) => 0,
                            (true, true) => 64,
                            (true, false) => -64,
                        };
                        r[l] = fma(a[l], b[l], cc[l], scale);
                    }
                }
                _ => lanes!(r, a, b, cc, |x, y, z| mad32(x, y, z, rm)),
            }
        }
        _ => {
            let a = c.s_into(w, 0, &mut sc.a);
            match i.op {
                Op::V_SQRT_F32 => lanes!(r, a, &zero, &zero, |x, _y, _z| {
                    sf::sqrt(sf::F32, x.into(), rm)
                        .map_or_else(|| f32::from_bits(x).sqrt().to_bits(), |v| v as u32)
                }),
                Op::V_RCP_F32 | Op::V_RCP_IFLAG_F32 => {
                    lanes!(r, a, &zero, &zero, |x, _y, _z| {
                        sf::rcp32(x, rm).unwrap_or_else(|| (1.0 / f32::from_bits(x)).to_bits())
                    })
                }
                Op::V_CVT_F32_I32 => lanes!(r, a, &zero, &zero, |x, _y, _z| {
                    let v = x as i32;
                    sf::from_int(sf::F32, v < 0, u64::from(v.unsigned_abs()), rm) as u32
                }),
                _ => lanes!(r, a, &zero, &zero, |x, _y, _z| {
                    sf::from_int(sf::F32, false, u64::from(x), rm) as u32
                }),
            }
        }
    }
    put_f32(w, c, &sc.r, &mut sc.o);
}

fn f64_rounded(w: &mut Wave, c: &mut Ctx, rm: Round) {
    let i = c.i;
    let vcc = w.vcc();
    let a = c.s64(w, 0);
    let mut r = [0u64; LANES];
    match i.op {
        Op::V_SQRT_F64 => {
            for l in 0..LANES {
                r[l] = sf::sqrt(sf::F64, a[l], rm)
                    .unwrap_or_else(|| f64::from_bits(a[l]).sqrt().to_bits());
            }
        }
        Op::V_ADD_F64 | Op::V_MUL_F64 => {
            let b = c.s64(w, 1);
            for l in 0..LANES {
                r[l] = if i.op == Op::V_ADD_F64 {
                    sf::add(sf::F64, a[l], b[l], rm)
                } else {
                    sf::mul(sf::F64, a[l], b[l], rm)
                };
            }
        }
        _ => {
            let b = c.s64(w, 1);
            let cc = if i.op == Op::V_FMAC_F64 {
                let mut acc = w.vsrc64(i.dst, 0, Ty::F64);
                if c.daz & 4 != 0 {
                    for x in acc.iter_mut() {
                        *x = ftz64(*x);
                    }
                }
                acc
            } else {
                c.s64(w, 2)
            };
            for l in 0..LANES {
                let scale = match (
                    i.op == Op::V_DIV_FMAS_F64 && vcc >> l & 1 != 0,
                    cc[l] >> 52 & 0x7ff > 1023,
                ) {
                    (false, _) => 0,
                    (true, true) => 128,
                    (true, false) => -128,
                };
                r[l] = sf::fma(sf::F64, a[l], b[l], cc[l], rm, scale);
            }
        }
    }
    put_f64(w, c, &mut r);
}

fn f16_rounded(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, rm: Round, ovfl: bool) {
    let i = c.i;
    let zero = [0u32; LANES];
    let k = [i.lit & 0xffff; LANES];
    let acc = match i.op {
        Op::V_FMAC_F16 | Op::V_MAC_F16 => accumulator(w, c, ftz16),
        _ => zero,
    };
    let lo = |x: u32| u64::from(x & 0xffff);
    let add = |x: u32, y: u32| sf::add(sf::F16, lo(x), lo(y), rm) as u32;
    let mul = |x: u32, y: u32| sf::mul(sf::F16, lo(x), lo(y), rm) as u32;
    let fma = |x: u32, y: u32, z: u32| sf::fma(sf::F16, lo(x), lo(y), lo(z), rm, 0) as u32;
    let mad = |x: u32, y: u32, z: u32| mad16(x & 0xffff, y & 0xffff, z & 0xffff, rm);
    let inf16 = |x: u32| x & 0x7fff == 0x7c00;
    // FP16_OVFL: an overflow not caused by an infinite input gives the largest finite value.
    let clamp_ovfl = |v: u32, inputs_inf: bool| {
        if ovfl && inf16(v) && !inputs_inf {
            v & SIGN16 | 0x7bff
        } else {
            v
        }
    };
    let r = &mut sc.r;
    match i.op {
        Op::V_CVT_F16_F32 => {
            let a = c.s_into(w, 0, &mut sc.a);
            lanes!(r, a, &zero, &zero, |x, _y, _z| clamp_ovfl(
                sf::convert(sf::F32, sf::F16, x.into(), rm) as u32,
                x & 0x7fff_ffff == 0x7f80_0000
            ));
        }
        Op::V_CVT_F16_U16 | Op::V_CVT_F16_I16 | Op::V_SQRT_F16 => {
            let a = c.s_into(w, 0, &mut sc.a);
            match i.op {
                Op::V_CVT_F16_U16 => lanes!(r, a, &zero, &zero, |x, _y, _z| clamp_ovfl(
                    sf::from_int(sf::F16, false, u64::from(x & 0xffff), rm) as u32,
                    false
                )),
                Op::V_CVT_F16_I16 => lanes!(r, a, &zero, &zero, |x, _y, _z| {
                    let v = x as u16 as i16;
                    let m = u64::from(v.unsigned_abs());
                    clamp_ovfl(sf::from_int(sf::F16, v < 0, m, rm) as u32, false)
                }),
                _ => lanes!(r, a, &zero, &zero, |x, _y, _z| {
                    sf::sqrt(sf::F16, lo(x), rm).map_or_else(
                        || u32::from(half::f16::from_f64(f16_value(x).sqrt()).to_bits()),
                        |v| v as u32,
                    )
                }),
            }
        }
        _ => {
            let a = c.s_into(w, 0, &mut sc.a);
            let b = c.s_into(w, 1, &mut sc.b);
            let cc: &Row = match i.op {
                Op::V_FMA_F16 | Op::V_MAD_F16 => c.s_into(w, 2, &mut sc.c),
                Op::V_FMAC_F16 | Op::V_MAC_F16 => &acc,
                _ => &zero,
            };
            let any_inf = |x: u32, y: u32, z: u32| inf16(x) || inf16(y) || inf16(z);
            match i.op {
                Op::V_ADD_F16 => lanes!(r, a, b, &zero, |x, y, _z| clamp_ovfl(
                    add(x, y),
                    any_inf(x, y, 0)
                )),
                Op::V_SUB_F16 => lanes!(r, a, b, &zero, |x, y, _z| clamp_ovfl(
                    add(x, y ^ SIGN16),
                    any_inf(x, y, 0)
                )),
                Op::V_SUBREV_F16 => lanes!(r, a, b, &zero, |x, y, _z| clamp_ovfl(
                    add(y, x ^ SIGN16),
                    any_inf(x, y, 0)
                )),
                Op::V_MUL_F16 => lanes!(r, a, b, &zero, |x, y, _z| clamp_ovfl(
                    mul(x, y),
                    any_inf(x, y, 0)
                )),
                Op::V_FMA_F16 | Op::V_FMAC_F16 => lanes!(r, a, b, cc, |x, y, z| clamp_ovfl(
                    fma(x, y, z),
                    any_inf(x, y, z)
                )),
                Op::V_MADMK_F16 => lanes!(r, a, &k, b, |x, y, z| clamp_ovfl(
                    mad(x, y, z),
                    any_inf(x, y, z)
                )),
                Op::V_MADAK_F16 => lanes!(r, a, b, &k, |x, y, z| clamp_ovfl(
                    mad(x, y, z),
                    any_inf(x, y, z)
                )),
                Op::V_FMAMK_F16 => lanes!(r, a, &k, b, |x, y, z| clamp_ovfl(
                    fma(x, y, z),
                    any_inf(x, y, z)
                )),
                Op::V_FMAAK_F16 => lanes!(r, a, b, &k, |x, y, z| clamp_ovfl(
                    fma(x, y, z),
                    any_inf(x, y, z)
                )),
                _ => lanes!(r, a, b, cc, |x, y, z| clamp_ovfl(
                    mad(x, y, z),
                    any_inf(x, y, z)
                )),
            }
        }
    }
    put_f16(w, c, &sc.r, &mut sc.o);
}

fn f16_value(x: u32) -> f64 {
    half::f16::from_bits(x as u16).to_f64()
}
