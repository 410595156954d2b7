//! CDNA3 (gfx940/941/942) and CDNA4 (gfx950) vector ALU operations that earlier generations do
//! not have: `v_mov_b64`, `v_lshl_add_u64`, the fp8/bf8 conversions, and gfx950's `v_bitop3`
//! and `v_cvt_pk_f16_f32`/`v_cvt_pk_bf16_f32`. Reached as the last
//! `valu_part` (see `ops::valu_part`), so no other instruction pays for it.
//!
//! ## fp8 and bf8
//!
//! gfx940–gfx942 use the "FNUZ" formats (AMD/Graphcore: one NaN, 0x80, no infinity, no
//! negative zero; E4M3 with bias 8, E5M2 with bias 16); gfx950 uses the OCP formats (E4M3FN with
//! bias 7, no infinity, NaN = S.1111.111; E5M2 with bias 15 and IEEE infinities and NaNs). The
//! bit layouts and biases are those of LLVM (`APFloat::Float8E4M3FNUZ`/`Float8E5M2FNUZ` for
//! gfx940, `Float8E4M3FN`/`Float8E5M2` for gfx950) and of AMD's fp8 headers.
//!
//! Conversions to fp8 (the definition the tests check, [`F8::encode`]): round to nearest even
//! (`v_cvt_pk_*_f32`), or stochastically (`v_cvt_sr_*_f32`): the low `23 - m` bits of the
//! random operand are added to the `23 - m` bits below the result's last place, then the sum is
//! truncated (AMD's reference `cast_to_f8`; `m` = 3 or 2 mantissa bits). A result beyond the
//! largest finite value, an infinity and a NaN give the format's NaN (OCP E5M2: infinity for
//! finite overflow and infinities), or with `clamp` the largest finite value of the same sign
//! (NaN stays NaN). AMD's ISA guides name the clamp as the saturating form; whether unclamped
//! hardware saturates too is not documented, so that part is a guess.

use super::valu::{put, Ctx, Scratch};
use super::{Flow, R};
use crate::decode::{flag, Gen, Sub};
use crate::ops::Op;
use crate::wave::{Wave, LANES};

type Row64 = [u64; LANES];

/// An 8-bit floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct F8 {
    /// Mantissa bits (3 for E4M3, 2 for E5M2).
    pub man: u32,
    /// Exponent bits.
    pub exp: u32,
    pub bias: i32,
    /// FNUZ: 0x80 is the only NaN, no infinities, no negative zero.
    pub fnuz: bool,
}

/// gfx940–gfx942 fp8 (E4M3FNUZ).
pub(crate) const FP8_FNUZ: F8 = F8 {
    man: 3,
    exp: 4,
    bias: 8,
    fnuz: true,
};
/// gfx940–gfx942 bf8 (E5M2FNUZ).
pub(crate) const BF8_FNUZ: F8 = F8 {
    man: 2,
    exp: 5,
    bias: 16,
    fnuz: true,
};
/// gfx950 fp8 (OCP E4M3FN).
pub(crate) const FP8_OCP: F8 = F8 {
    man: 3,
    exp: 4,
    bias: 7,
    fnuz: false,
};
/// gfx950 bf8 (OCP E5M2).
pub(crate) const BF8_OCP: F8 = F8 {
    man: 2,
    exp: 5,
    bias: 15,
    fnuz: false,
};

/// How a conversion to an 8-bit format rounds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rounding {
    NearestEven,
    /// Stochastic rounding with these random bits.
    Stochastic(u32),
}

impl F8 {
    /// The fp8 (`bf8 == false`) or bf8 format of a generation: FNUZ on gfx940/gfx942, OCP on
    /// gfx950 and GFX12 (RDNA4).
    pub(crate) fn of(gen: Gen, bf8: bool) -> F8 {
        let ocp = matches!(gen, Gen::Gfx950 | Gen::Gfx12 | Gen::Gfx12W64);
        match (ocp, bf8) {
            (false, false) => FP8_FNUZ,
            (false, true) => BF8_FNUZ,
            (true, false) => FP8_OCP,
            (true, true) => BF8_OCP,
        }
    }

    /// OCP E5M2 is the one format with infinities.
    fn has_inf(self) -> bool {
        !self.fnuz && self.exp == 5
    }

    fn nan(self, negative: bool) -> u8 {
        if self.fnuz {
            0x80
        } else {
            u8::from(negative) << 7 | 0x7f
        }
    }

    /// The largest finite magnitude's bits (sign clear).
    fn max_bits(self) -> u8 {
        if self.fnuz || self.has_inf() {
            // FNUZ: every exponent is finite; OCP E5M2: exponent 31 is inf/NaN.
            let top = if self.fnuz {
                (1 << self.exp) - 1
            } else {
                (1 << self.exp) - 2
            };
            (top << self.man | ((1 << self.man) - 1)) as u8
        } else {
            // OCP E4M3FN: S.1111.111 is NaN, so S.1111.110 (448) is the largest.
            0x7e
        }
    }

    /// The value of an 8-bit pattern.
    pub(crate) fn decode(self, b: u8) -> f32 {
        let neg = b & 0x80 != 0;
        let e = u32::from(b >> self.man) & ((1 << self.exp) - 1);
        let m = u32::from(b) & ((1 << self.man) - 1);
        if self.fnuz && b == 0x80 {
            return f32::NAN;
        }
        if !self.fnuz {
            let top = (1 << self.exp) - 1;
            if self.has_inf() && e == top {
                return match (m, neg) {
                    (0, false) => f32::INFINITY,
                    (0, true) => f32::NEG_INFINITY,
                    _ => f32::NAN,
                };
            }
            if !self.has_inf() && e == top && m == (1 << self.man) - 1 {
                return f32::NAN;
            }
        }
        let v = if e == 0 {
            f64::from(m) * 2f64.powi(1 - self.bias - self.man as i32)
        } else {
            (1.0 + f64::from(m) / f64::from(1u32 << self.man)) * 2f64.powi(e as i32 - self.bias)
        };
        (if neg { -v } else { v }) as f32
    }

    /// `x` converted to this format (see the module docs for the definition).
    pub(crate) fn encode(self, x: f32, rounding: Rounding, clamp: bool) -> u8 {
        self.encode_exact(f64::from(x), rounding, clamp)
    }

    /// [`Self::encode`] of a value exact in 24 significant bits (an f32, f16 or bf16 value
    /// times a power of two: gfx950's scaled conversions divide by the scale first).
    pub(crate) fn encode_exact(self, x: f64, rounding: Rounding, clamp: bool) -> u8 {
        let neg = x.is_sign_negative();
        let sign = u8::from(neg) << 7;
        if x.is_nan() {
            return self.nan(neg);
        }
        let overflow = |clamp: bool| {
            if clamp {
                sign | self.max_bits()
            } else if self.has_inf() {
                sign | 0x7c
            } else {
                self.nan(neg)
            }
        };
        if x.is_infinite() {
            return overflow(clamp);
        }
        let a = x.abs();
        if a == 0.0 {
            // FNUZ has no negative zero.
            return if self.fnuz { 0 } else { sign };
        }
        // The quantum (value of the last mantissa place) at a's exponent, at least the
        // denormal one.
        let emin = 1 - self.bias;
        let e = exponent(a).max(emin);
        let q = 2f64.powi(e - self.man as i32);
        let n = a / q; // exact: a has 24 significant bits
        let r = match rounding {
            Rounding::NearestEven => n.round_ties_even(),
            Rounding::Stochastic(rnd) => {
                let d = 23 - self.man;
                let scaled = (n * f64::from(1u32 << d)).floor();
                let noise = f64::from(rnd & ((1u32 << d) - 1));
                ((scaled + noise) / f64::from(1u32 << d)).floor()
            }
        };
        let v = r * q;
        let max = f64::from(self.decode(self.max_bits()));
        if v > max {
            return overflow(clamp);
        }
        if r == 0.0 {
            return if self.fnuz { 0 } else { sign };
        }
        // Re-encode v (a representable value) as bits.
        let (be, bm) = if v < 2f64.powi(emin) {
            (0, (v / 2f64.powi(emin - self.man as i32)) as u32)
        } else {
            let e = exponent(v);
            let m = ((v / 2f64.powi(e) - 1.0) * f64::from(1u32 << self.man)) as u32;
            ((e + self.bias) as u32, m)
        };
        sign | (be << self.man | bm) as u8
    }
}

/// The unbiased exponent of a positive normal f64 (every nonzero f32 is one).
fn exponent(x: f64) -> i32 {
    (x.to_bits() >> 52) as i32 - 1023
}

/// CDNA3/CDNA4 vector ALU operations (the last part of `valu::valu_body`'s table).
#[inline(never)]
pub(super) fn valu_cdna3(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, _mode: u32) -> Option<R> {
    let i = c.i;
    let gen = i.gen;
    match i.op {
        // D.u64 = S0.u64 (DPP forms are not modelled).
        Op::V_MOV_B64 => {
            if i.sub != Sub::E32 {
                return None;
            }
            let a = c.s64(w, 0);
            w.vwrite64(i.dst, &a, c.wmask);
        }
        // D.u64 = (S0.u64 << S1.u[2:0]) + S2.u64.
        Op::V_LSHL_ADD_U64 => {
            let a = c.s64(w, 0);
            let s = *c.s_into(w, 1, &mut sc.b);
            let b = c.s64(w, 2);
            let mut r: Row64 = [0; LANES];
            for l in 0..LANES {
                r[l] = (a[l] << (s[l] & 7)).wrapping_add(b[l]);
            }
            w.vwrite64(i.dst, &r, c.wmask);
        }
        // One byte (SDWA src0_sel or VOP3 op_sel[1:0]) to f32.
        Op::V_CVT_F32_FP8 | Op::V_CVT_F32_BF8 => {
            let f = F8::of(gen, i.op == Op::V_CVT_F32_BF8);
            let (src, byte) = byte_source(w, c);
            for l in 0..LANES {
                sc.r[l] = f.decode((src[l] >> (8 * byte)) as u8).to_bits();
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // Two bytes of a word (SDWA WORD_1 or VOP3 op_sel[0]) to two f32.
        Op::V_CVT_PK_F32_FP8 | Op::V_CVT_PK_F32_BF8 => {
            let f = F8::of(gen, i.op == Op::V_CVT_PK_F32_BF8);
            let (src, byte) = byte_source(w, c);
            let shift = if byte >= 2 { 16 } else { 0 };
            let mut r: Row64 = [0; LANES];
            for l in 0..LANES {
                let h = src[l] >> shift;
                r[l] = u64::from(f.decode(h as u8).to_bits())
                    | u64::from(f.decode((h >> 8) as u8).to_bits()) << 32;
            }
            w.vwrite64(i.dst, &r, c.wmask);
        }
        // Two f32 to two bytes, written to the low or (op_sel[3]) high word of D; the other
        // word keeps its value.
        Op::V_CVT_PK_FP8_F32 | Op::V_CVT_PK_BF8_F32 => {
            let f = F8::of(gen, i.op == Op::V_CVT_PK_BF8_F32);
            let clamp = i.has(flag::CLAMP);
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let old = w.vsrc(i.dst, 0, crate::wave::Ty::B32);
            let shift = if i.opsel & 8 != 0 { 16 } else { 0 };
            for l in 0..LANES {
                let enc =
                    |x: u32| u32::from(f.encode(f32::from_bits(x), Rounding::NearestEven, clamp));
                let pair = enc(a[l]) | enc(b[l]) << 8;
                sc.r[l] = old[l] & !(0xffff << shift) | pair << shift;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // f32 to one byte with stochastic rounding by S1, into byte op_sel[3:2] of D (the other
        // bytes keep their values).
        Op::V_CVT_SR_FP8_F32 | Op::V_CVT_SR_BF8_F32 => {
            let f = F8::of(gen, i.op == Op::V_CVT_SR_BF8_F32);
            let clamp = i.has(flag::CLAMP);
            let a = *c.s_into(w, 0, &mut sc.a);
            let rnd = *c.s_into(w, 1, &mut sc.b);
            let old = w.vsrc(i.dst, 0, crate::wave::Ty::B32);
            let shift = 8 * u32::from(i.opsel >> 2 & 3);
            for l in 0..LANES {
                let b = f.encode(f32::from_bits(a[l]), Rounding::Stochastic(rnd[l]), clamp);
                sc.r[l] = old[l] & !(0xff << shift) | u32::from(b) << shift;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: two f32 to f16 or bf16 in the low and high halves, rounded to nearest even
        // (MODE's FP_ROUND is not applied); a bf16 NaN stays a quiet NaN of the same sign.
        Op::V_CVT_PK_F16_F32 | Op::V_CVT_PK_BF16_F32 => {
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let cvt = |x: u32| -> u32 {
                if i.op == Op::V_CVT_PK_F16_F32 {
                    u32::from(half::f16::from_f32(f32::from_bits(x)).to_bits())
                } else {
                    bf16_rne(x)
                }
            };
            for l in 0..LANES {
                sc.r[l] = cvt(a[l]) | cvt(b[l]) << 16;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: D = TTBL[{S0, S1, S2}] per bit, the 8-bit table (encoded in the neg (2:0),
        // abs (5:3) and omod (7:6) fields) in `imm`; the sources are read raw. b16: op_sel
        // picks the source halves and (bit 3) writes the high half, keeping the low one; a
        // low-half result zeroes the high half.
        Op::V_BITOP3_B32 | Op::V_BITOP3_B16 => {
            let t = i.imm as u32 & 0xff;
            let b16 = i.op == Op::V_BITOP3_B16;
            let read = |k: usize| {
                let v = w.vsrc(i.src[k], i.lit, crate::wave::Ty::B32);
                if b16 && i.opsel >> k & 1 != 0 {
                    v.map(|x| x >> 16)
                } else {
                    v
                }
            };
            let (a, b, d) = (read(0), read(1), read(2));
            let old = w.vsrc(i.dst, 0, crate::wave::Ty::B32);
            for l in 0..LANES {
                let mut r = 0u32;
                for m in 0..8 {
                    if t >> m & 1 != 0 {
                        let pick = |bit: u32, x: u32| if m >> bit & 1 != 0 { x } else { !x };
                        r |= pick(2, a[l]) & pick(1, b[l]) & pick(0, d[l]);
                    }
                }
                sc.r[l] = match (b16, i.opsel & 8 != 0) {
                    (false, _) => r,
                    (true, false) => r & 0xffff,
                    (true, true) => old[l] & 0xffff | r << 16,
                };
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: one step of a 32-bit LFSR, D = {S0[30:0], 0} ^ (S0[31] ? 197 : 0) (the
        // V_PRNG_B32 pseudocode of AMD's RDNA4/CDNA4 ISA guides).
        Op::V_PRNG_B32 => {
            let a = *c.s_into(w, 0, &mut sc.a);
            for l in 0..LANES {
                sc.r[l] = a[l] << 1 ^ if a[l] >> 31 != 0 { 197 } else { 0 };
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: bf16 (the low half, or the high one by SDWA WORD_1) to f32, exactly: the
        // bf16 bits are the f32's top half.
        Op::V_CVT_F32_BF16 => {
            let (src, byte) = byte_source(w, c);
            let shift = if i.sub == Sub::Sdwa && byte >= 2 {
                16
            } else {
                0
            };
            for l in 0..LANES {
                sc.r[l] = (src[l] >> shift) << 16;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: IEEE 754-2019 maximum/minimum of three f32 (a NaN operand gives a quiet NaN,
        // -0 < +0).
        Op::V_MAXIMUM3_F32 | Op::V_MINIMUM3_F32 => {
            let max = i.op == Op::V_MAXIMUM3_F32;
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let d = *c.s_into(w, 2, &mut sc.c);
            for l in 0..LANES {
                let f = |x: u32| f32::from_bits(x);
                let m = ieee_max_min(ieee_max_min(f(a[l]), f(b[l]), max), f(d[l]), max);
                sc.r[l] = m.to_bits();
            }
            let (r, mut o) = (sc.r, sc.o);
            super::valu::put_f32(w, c, &r, &mut o);
        }
        // gfx950: D.u16 = {sat8(S1.i32 >> S2[4:0]), sat8(S0.i32 >> S2[4:0])}, the high half
        // zero; saturating to i8 or u8. op_sel (writing the high half) is not modelled.
        Op::V_ASHR_PK_I8_I32 | Op::V_ASHR_PK_U8_I32 => {
            if i.opsel != 0 {
                return None;
            }
            let (lo, hi) = if i.op == Op::V_ASHR_PK_I8_I32 {
                (-128, 127)
            } else {
                (0, 255)
            };
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let s = *c.s_into(w, 2, &mut sc.c);
            for l in 0..LANES {
                let sat = |x: u32| ((x as i32 >> (s[l] & 31)).clamp(lo, hi) as u32) & 0xff;
                sc.r[l] = sat(a[l]) | sat(b[l]) << 8;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        // gfx950: D = S0.bf16[0]·S1.bf16[0] + S0.bf16[1]·S1.bf16[1] + D (VOP2), products exact
        // and the sum rounded to f32 once.
        Op::V_DOT2C_F32_BF16 => {
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let d = w.vsrc(i.dst, 0, crate::wave::Ty::B32);
            for l in 0..LANES {
                sc.r[l] = dot2_bf16([a[l], a[l] >> 16], [b[l], b[l] >> 16], d[l]);
            }
            let (r, mut o) = (sc.r, sc.o);
            super::valu::put_f32(w, c, &r, &mut o);
        }
        // gfx950: swap lanes between D and S0 (both VGPRs, both written): permlane16 swaps
        // the odd 16-lane rows of D with the even rows of S0, permlane32 lanes 32-63 of D with
        // lanes 0-31 of S0. Lanes outside EXEC keep their values; reads ignore EXEC (as with
        // FI set: whether inactive lanes are read otherwise is not modelled).
        Op::V_PERMLANE16_SWAP_B32 | Op::V_PERMLANE32_SWAP_B32 => {
            let span = if i.op == Op::V_PERMLANE16_SWAP_B32 {
                16
            } else {
                32
            };
            let (mut d, mut s) = (w.vsrc(i.dst, 0, crate::wave::Ty::B32), [0u32; LANES]);
            let src = w.vsrc(i.src[0], i.lit, crate::wave::Ty::B32);
            s.copy_from_slice(&src);
            for l in 0..LANES {
                if l / span % 2 == 1 {
                    std::mem::swap(&mut d[l], &mut s[l - span]);
                }
            }
            w.vwrite(i.dst, &d, c.wmask);
            w.vwrite(i.src[0], &s, c.wmask);
        }
        // gfx950's scaled conversions and v_cvt_sr_f16/bf16_f32 (exec/mxcvt.rs), which
        // answers `None` for any other opcode.
        _ => super::mxcvt::execute(w, c)?,
    }
    Some(Ok(Flow::Next))
}

/// IEEE 754-2019 maximum (`max`) or minimum: NaN-propagating (quiet), -0 below +0.
fn ieee_max_min(x: f32, y: f32, max: bool) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        // Equal values differ only in the sign of zero.
        let neg = if max {
            x.is_sign_negative() && y.is_sign_negative()
        } else {
            x.is_sign_negative() || y.is_sign_negative()
        };
        return if neg { -x.abs() } else { x.abs() };
    }
    if (x > y) == max {
        x
    } else {
        y
    }
}

/// f16 form of [`ieee_max_min`] (compared as f32: exact).
fn ieee_max_min16(x: u16, y: u16, max: bool) -> u16 {
    let f = |h: u16| half::f16::from_bits(h).to_f32();
    let m = ieee_max_min(f(x), f(y), max);
    if m.is_nan() {
        0x7e00
    } else {
        half::f16::from_f32(m).to_bits()
    }
}

/// a[0]·b[0] + a[1]·b[1] + c for bf16 a and b (low 16 bits of each) and f32 c: the products
/// are exact and the sum is rounded to f32 once.
fn dot2_bf16(a: [u32; 2], b: [u32; 2], c: u32) -> u32 {
    let bf = |x: u32| f64::from(f32::from_bits((x & 0xffff) << 16));
    let sum = bf(a[0]) * bf(b[0]) + bf(a[1]) * bf(b[1]) + f64::from(f32::from_bits(c));
    (sum as f32).to_bits()
}

/// gfx950's packed VOP3P operations (`v_pk_maximum3_f16`, `v_pk_minimum3_f16`,
/// `v_dot2_f32_bf16`), reached from `valu_packed::vop3p` before the matrix operations. Each
/// half of a source is chosen by op_sel (low result) and op_sel_hi (high result) and negated
/// by neg/neg_hi.
pub(super) fn vop3p(w: &mut Wave, i: &crate::decode::Inst, exec: u64, gen: Gen) -> R {
    let src = |k: usize| w.vsrc(i.src[k], i.lit, crate::wave::Ty::B32);
    let half = |v: u32, k: usize, hi: bool| -> u32 {
        let (sel, neg) = if hi {
            (i.opsel_hi >> k & 1, i.neg_hi >> k & 1)
        } else {
            (i.opsel >> k & 1, i.neg >> k & 1)
        };
        (if sel != 0 { v >> 16 } else { v & 0xffff }) ^ u32::from(neg) << 15
    };
    let mut r = [0u32; LANES];
    match i.op {
        Op::V_PK_MAXIMUM3_F16 | Op::V_PK_MINIMUM3_F16 => {
            let max = i.op == Op::V_PK_MAXIMUM3_F16;
            let (a, b, d) = (src(0), src(1), src(2));
            for l in 0..LANES {
                for hi in [false, true] {
                    let h = |v: u32, k: usize| half(v, k, hi) as u16;
                    let m = ieee_max_min16(
                        ieee_max_min16(h(a[l], 0), h(b[l], 1), max),
                        h(d[l], 2),
                        max,
                    );
                    r[l] |= u32::from(m) << if hi { 16 } else { 0 };
                }
            }
        }
        // D.f32 = S0.bf16[0]·S1.bf16[0] + S0.bf16[1]·S1.bf16[1] + S2.f32: the low products
        // take the op_sel halves, the high ones the op_sel_hi halves; neg[2] negates S2.
        Op::V_DOT2_F32_BF16 => {
            let (a, b, d) = (src(0), src(1), src(2));
            for l in 0..LANES {
                let c = d[l] ^ u32::from(i.neg >> 2 & 1) << 31;
                r[l] = dot2_bf16(
                    [half(a[l], 0, false), half(a[l], 0, true)],
                    [half(b[l], 1, false), half(b[l], 1, true)],
                    c,
                );
            }
            if i.has(flag::CLAMP) {
                for x in r.iter_mut() {
                    let v = f32::from_bits(*x);
                    *x = if v.is_nan() {
                        0
                    } else {
                        v.clamp(0.0, 1.0).to_bits()
                    };
                }
            }
        }
        _ => return super::mfma::execute(w, i, exec, gen),
    }
    w.vwrite(i.dst, &r, exec);
    Ok(Flow::Next)
}

/// An f32 rounded to the nearest bf16 (ties to even); NaNs stay NaN (quieted).
fn bf16_rne(x: u32) -> u32 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        return (x >> 16) | 0x40;
    }
    (x + 0x7fff + ((x >> 16) & 1)) >> 16
}

/// An f64 rounded once to the nearest bf16 (ties to even, bf16 denormals kept, overflow to
/// infinity); NaNs give the quiet NaN of their sign. The 16 bits.
pub(crate) fn f64_to_bf16_rne(x: f64) -> u16 {
    if x.is_nan() {
        return if x.is_sign_negative() { 0xffc0 } else { 0x7fc0 };
    }
    // The place of the last kept bit: 7 fraction bits below the leading one, never below
    // the denormal quantum 2^-133.
    // (The unbiased exponent from the bits; f64 denormals are far below bf16's range.)
    let e = ((x.to_bits() >> 52 & 0x7ff) as i32 - 1023).max(-126);
    let ulp = 2f64.powi(e - 7);
    let y = (x / ulp).round_ties_even() * ulp;
    let f = y as f32; // exact: y is a bf16 value, or beyond f32's range (infinity)
    (f.to_bits() >> 16) as u16
}

/// The unselected source of a byte-selecting conversion and the byte it selects: SDWA
/// `src0_sel` (BYTE_0..3, WORD_1 = byte 2) or VOP3 `op_sel[1:0]` (the SDWA select is not applied
/// to the row, the semantics pick the byte).
fn byte_source(w: &Wave, c: &Ctx) -> ([u32; LANES], u32) {
    let i = c.i;
    let src = w.vsrc(i.src[0], i.lit, crate::wave::Ty::B32);
    let byte = if i.sub == Sub::Sdwa {
        match i.ext >> 16 & 7 {
            sel @ 0..=3 => sel,
            5 => 2, // WORD_1
            _ => 0,
        }
    } else {
        u32::from(i.opsel & 3)
    };
    (src, byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_have_their_documented_extremes() {
        assert_eq!(FP8_FNUZ.decode(0x7f), 240.0);
        assert_eq!(BF8_FNUZ.decode(0x7f), 57344.0);
        assert_eq!(FP8_OCP.decode(0x7e), 448.0);
        assert!(FP8_OCP.decode(0x7f).is_nan());
        assert_eq!(BF8_OCP.decode(0x7b), 57344.0);
        assert_eq!(BF8_OCP.decode(0x7c), f32::INFINITY);
        assert_eq!(FP8_FNUZ.decode(0x01), 2f32.powi(-10));
        assert_eq!(FP8_OCP.decode(0x01), 2f32.powi(-9));
        assert_eq!(BF8_FNUZ.decode(0x01), 2f32.powi(-17));
        assert_eq!(BF8_OCP.decode(0x01), 2f32.powi(-16));
    }

    #[test]
    fn encode_inverts_decode_on_every_finite_byte() {
        for f in [FP8_FNUZ, BF8_FNUZ, FP8_OCP, BF8_OCP] {
            for b in 0..=255u8 {
                let x = f.decode(b);
                if x.is_nan() || x.is_infinite() || (b == 0x80 && !f.fnuz) {
                    continue;
                }
                assert_eq!(f.encode(x, Rounding::NearestEven, false), b, "{f:?} {b:#x}");
                assert_eq!(f.encode(x, Rounding::Stochastic(u32::MAX), false), b);
            }
        }
    }
}
