//! gfx950's scaled conversions (`v_cvt_scalef32_*`) between f32/f16/bf16 and the OCP
//! microscaling element formats — FP8 E4M3 and BF8 E5M2 ([`super::cdna3::F8`]), FP6 E2M3,
//! BF6 E3M2 and FP4 E2M1 ([`super::microfloat`]) — and the stochastically rounded
//! `v_cvt_sr_f16_f32`/`v_cvt_sr_bf16_f32`. Reached from `cdna3::valu_cdna3`.
//!
//! ## Definitions (what the tests check)
//!
//! - **Scale.** The scale operand is an f32 of which only the exponent field is read, as an
//!   E8M0 scale: 2^(e − 127), exponent 0xFF is NaN (CDNA4 ISA: "using the exponent provided
//!   by the … single-precision float input"; HIP's `__amd_scale_to_float` builds it so).
//!   Conversions to a small format divide by it, conversions from one multiply (OCP MX spec
//!   §6.3; HIP's and Composable Kernel's host models compute `x / scale` and `v · scale`;
//!   MLIR lowers `arith.scaling_truncf`, a division, to these instructions). Both are exact
//!   here (f64), so a value is rounded once.
//! - **To FP8/BF8/FP6/BF6/FP4** (no clamp bit): round to nearest even, or stochastically with
//!   the *top* `23 − m` bits of the seed added below the result's last place (`m` mantissa
//!   bits; HIP's `from_float_sr` and CK's `convert_to_type_sr` shift the seed right by
//!   `9 + m`); the forms with several elements use the one seed for each, as HIP's host
//!   model does. Results saturate: overflow and ±∞ give the largest finite value of the sign,
//!   as the OCP MX spec's conversion does; a NaN stays NaN in FP8/BF8 and becomes the signed
//!   largest value in the formats without NaN. A NaN scale acts as a NaN input of the
//!   source's sign. Saturation of FP8 without a clamp bit is the MX spec's rule; AMD does not
//!   document it for gfx950, so it is a guess (AMD's HIP host model returns NaN for E4M3
//!   overflow instead).
//! - **From the small formats**: the element's value times the scale, rounded to nearest
//!   even into f32/f16/bf16 (overflow gives ∞, subnormals kept; a NaN scale gives NaN).
//! - **Placement.** Byte-selecting sources use VOP3 `op_sel[1:0]` (byte index) or
//!   `op_sel[0]` (word); results written into part of D keep the rest (tied old value):
//!   `op_sel[3]` picks the word (or f16 half), `op_sel[3:2]` the byte, as LLVM's patterns
//!   encode the intrinsics' selectors. The first element of a pair is the low byte/nibble/
//!   half. Packed 32-element FP6 operands (6 VGPRs) hold element `i` at bits `6i..6i+5`.
//!   `2xpk16` interleaves its sources: element `2i` is `S0[i]`, `2i + 1` is `S1[i]`
//!   (Composable Kernel splits an f32x32 into its even and odd elements for it).
//! - **`v_cvt_sr_f16_f32`/`v_cvt_sr_bf16_f32`** write the f16/bf16 to D's low or (op_sel[3])
//!   high half, keeping the other. No AMD document found says which seed bits they add; they
//!   are modelled like `v_cvt_sr_fp8_f32`: the *low* `23 − m` bits (13 for f16, 16 for bf16)
//!   are added below the last place, then truncated; overflow gives ∞ (MODE.FP16_OVFL is not
//!   applied), NaN a quiet NaN. That choice is a guess.
//! - Float input modifiers (neg/abs) apply to f32 sources and to both halves of packed
//!   16-bit sources; byte sources take none. A 16-bit source that is one f16/bf16 takes the
//!   low half, or the high one with `op_sel[0]`.

use super::cdna3::{f64_to_bf16_rne, Rounding, F8};
use super::microfloat::{self, Mx, E2M1, E2M3, E3M2};
use super::valu::Ctx;
use crate::decode::{Gen, Inst};
use crate::ops::Op;
use crate::wave::{reg_index, Ty, Wave, LANES, VGPR};

type Row = [u32; LANES];

/// A 16-bit float format of a source or result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Half {
    F16,
    Bf16,
}

/// The element format on the small side of a conversion.
#[derive(Clone, Copy)]
enum Small {
    F8(F8),
    Mx(Mx),
}

impl Small {
    fn man(self) -> u32 {
        match self {
            Small::F8(f) => f.man,
            Small::Mx(f) => f.man,
        }
    }

    /// `x / scale` in this format, saturating (see the module docs).
    fn encode(self, x: f64, scale: f64, rounding: Rounding) -> u32 {
        let y = if x.is_nan() || scale.is_nan() {
            f64::NAN.copysign(x)
        } else {
            x / scale
        };
        // The noise is the seed's top 23 − m bits.
        let rounding = match rounding {
            Rounding::Stochastic(seed) => Rounding::Stochastic(seed >> (9 + self.man())),
            r => r,
        };
        u32::from(match self {
            Small::F8(f) => f.encode_exact(y, rounding, true),
            Small::Mx(f) => microfloat::encode(f, y, rounding),
        })
    }

    /// The value of `bits` times `scale` (exact).
    fn decode(self, bits: u32, scale: f64) -> f64 {
        let v = match self {
            Small::F8(f) => f.decode(bits as u8),
            Small::Mx(f) => microfloat::mx_to_f32(f, bits as u8),
        };
        f64::from(v) * scale
    }
}

fn fp8(bf8: bool) -> Small {
    Small::F8(F8::of(Gen::Gfx950, bf8))
}

/// An exact value rounded to f32 bits (to nearest even).
fn to_f32(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// An exact value rounded to f16 or bf16 bits (to nearest even).
fn to_half(v: f64, h: Half) -> u32 {
    u32::from(match h {
        Half::F16 => half::f16::from_f64(v).to_bits(),
        Half::Bf16 => f64_to_bf16_rne(v),
    })
}

fn half_value(bits: u32, h: Half) -> f64 {
    match h {
        Half::F16 => half::f16::from_bits(bits as u16).to_f64(),
        Half::Bf16 => f64::from(f32::from_bits(bits << 16)),
    }
}

/// The sources of one instruction, read raw (op_sel here selects bytes, not halves).
struct Src<'a> {
    w: &'a Wave,
    i: &'a Inst,
}

impl Src<'_> {
    fn raw(&self, k: usize, ty: Ty) -> Row {
        self.w.vsrc(self.i.src[k], self.i.lit, ty)
    }

    /// Register `n` of a multi-register VGPR source (LLVM accepts only VGPRs there).
    fn reg(&self, k: usize, n: u16) -> Row {
        let code = self.i.src[k];
        if code >= VGPR {
            self.w.v[reg_index(code + n)]
        } else {
            self.raw(k, Ty::B32)
        }
    }

    /// Sign bits that neg/abs change on source `k`, for a value whose sign bits are `signs`.
    fn mods(&self, k: usize, x: u32, signs: u32) -> u32 {
        let x = if self.i.abs >> k & 1 != 0 {
            x & !signs
        } else {
            x
        };
        if self.i.neg >> k & 1 != 0 {
            x ^ signs
        } else {
            x
        }
    }

    /// An f32 source's value in lane `l` (neg/abs applied).
    fn f32_at(&self, row: &Row, k: usize, l: usize) -> f64 {
        f64::from(f32::from_bits(self.mods(k, row[l], 0x8000_0000)))
    }

    /// A packed 16-bit source's two values in lane `l` (neg/abs on both halves).
    fn halves_at(&self, row: &Row, k: usize, l: usize, h: Half) -> [f64; 2] {
        let x = self.mods(k, row[l], 0x8000_8000);
        [half_value(x & 0xffff, h), half_value(x >> 16, h)]
    }

    /// The scale (source `k`) of lane `l`.
    fn scale_at(row: &Row, l: usize) -> f64 {
        microfloat::scale_value(row[l])
    }
}

/// Appends D register `n`'s new value, `f(lane)` in every lane.
fn emit(out: &mut Vec<(u16, Row)>, n: u16, f: impl Fn(usize) -> u32) {
    let mut r = [0u32; LANES];
    for (l, x) in r.iter_mut().enumerate() {
        *x = f(l);
    }
    out.push((n, r));
}

/// `v` placed at bit `shift` of `old` over a field of `bits` bits.
fn insert(old: u32, v: u32, shift: u32, bits: u32) -> u32 {
    let mask = ((1u64 << bits) - 1) as u32;
    old & !(mask << shift) | (v & mask) << shift
}

/// Executes one of the conversions this module defines (see the module docs).
pub(super) fn execute(w: &mut Wave, c: &Ctx) -> Option<()> {
    for (n, r) in results(w, c.i)? {
        w.vwrite(c.i.dst + n, &r, c.wmask);
    }
    Some(())
}

/// The new values of D's registers (by offset from D); `None` for an opcode that is not a
/// scaled conversion.
fn results(w: &Wave, i: &Inst) -> Option<Vec<(u16, Row)>> {
    let s = Src { w, i };
    let mut out = Vec::new();
    let opsel = u32::from(i.opsel);
    let byte_in = opsel & 3; // op_sel[1:0]
    let word_in = opsel & 1; // op_sel[0]
    let dst_word = opsel >> 3 & 1; // op_sel[3]
    let dst_byte = opsel >> 2 & 3; // op_sel[3:2]
    let old = w.vsrc(i.dst, 0, Ty::B32);
    let rne = Rounding::NearestEven;
    use Op::*;
    match i.op {
        // One FP8/BF8 byte (op_sel[1:0]) to f32, or to the f16 half op_sel[3] of D.
        V_CVT_SCALEF32_F32_FP8 | V_CVT_SCALEF32_F32_BF8 => {
            let f = fp8(i.op == V_CVT_SCALEF32_F32_BF8);
            let (a, sc) = (s.raw(0, Ty::B32), s.raw(1, Ty::B32));
            emit(&mut out, 0, |l| {
                to_f32(f.decode(a[l] >> (8 * byte_in) & 0xff, Src::scale_at(&sc, l)))
            });
        }
        V_CVT_SCALEF32_F16_FP8 | V_CVT_SCALEF32_F16_BF8 => {
            let f = fp8(i.op == V_CVT_SCALEF32_F16_BF8);
            let (a, sc) = (s.raw(0, Ty::B32), s.raw(1, Ty::B32));
            emit(&mut out, 0, |l| {
                let v = f.decode(a[l] >> (8 * byte_in) & 0xff, Src::scale_at(&sc, l));
                insert(old[l], to_half(v, Half::F16), 16 * dst_word, 16)
            });
        }
        // Two FP8/BF8 bytes (the word op_sel[0]) or two FP4 nibbles (the byte op_sel[1:0]),
        // the low one first, to two f32 (two registers), f16 or bf16.
        V_CVT_SCALEF32_PK_F32_FP8
        | V_CVT_SCALEF32_PK_F32_BF8
        | V_CVT_SCALEF32_PK_F32_FP4
        | V_CVT_SCALEF32_PK_F16_FP8
        | V_CVT_SCALEF32_PK_F16_BF8
        | V_CVT_SCALEF32_PK_F16_FP4
        | V_CVT_SCALEF32_PK_BF16_FP8
        | V_CVT_SCALEF32_PK_BF16_BF8
        | V_CVT_SCALEF32_PK_BF16_FP4 => {
            let (f, width, at) = match i.op {
                V_CVT_SCALEF32_PK_F32_FP4
                | V_CVT_SCALEF32_PK_F16_FP4
                | V_CVT_SCALEF32_PK_BF16_FP4 => (Small::Mx(E2M1), 4, 8 * byte_in),
                V_CVT_SCALEF32_PK_F32_BF8
                | V_CVT_SCALEF32_PK_F16_BF8
                | V_CVT_SCALEF32_PK_BF16_BF8 => (fp8(true), 8, 16 * word_in),
                _ => (fp8(false), 8, 16 * word_in),
            };
            let (a, sc) = (s.raw(0, Ty::B32), s.raw(1, Ty::B32));
            let elem = |l: usize, k: u32| {
                let bits = a[l] >> (at + width * k) & ((1 << width) - 1);
                f.decode(bits, Src::scale_at(&sc, l))
            };
            match i.op {
                V_CVT_SCALEF32_PK_F32_FP8
                | V_CVT_SCALEF32_PK_F32_BF8
                | V_CVT_SCALEF32_PK_F32_FP4 => {
                    for n in 0..2 {
                        emit(&mut out, n, |l| to_f32(elem(l, u32::from(n))));
                    }
                }
                _ => {
                    let h = half_of(matches!(
                        i.op,
                        V_CVT_SCALEF32_PK_BF16_FP8
                            | V_CVT_SCALEF32_PK_BF16_BF8
                            | V_CVT_SCALEF32_PK_BF16_FP4
                    ));
                    emit(&mut out, 0, |l| {
                        to_half(elem(l, 0), h) | to_half(elem(l, 1), h) << 16
                    });
                }
            }
        }
        // Two f32 to two FP8/BF8 bytes in the word op_sel[3] of D.
        V_CVT_SCALEF32_PK_FP8_F32 | V_CVT_SCALEF32_PK_BF8_F32 => {
            let f = fp8(i.op == V_CVT_SCALEF32_PK_BF8_F32);
            let (a, b, sc) = (s.raw(0, Ty::B32), s.raw(1, Ty::B32), s.raw(2, Ty::B32));
            emit(&mut out, 0, |l| {
                let scale = Src::scale_at(&sc, l);
                let pair = f.encode(s.f32_at(&a, 0, l), scale, rne)
                    | f.encode(s.f32_at(&b, 1, l), scale, rne) << 8;
                insert(old[l], pair, 16 * dst_word, 16)
            });
        }
        // Two f16/bf16 halves to two FP8/BF8 bytes in the word op_sel[3] of D.
        V_CVT_SCALEF32_PK_FP8_F16
        | V_CVT_SCALEF32_PK_FP8_BF16
        | V_CVT_SCALEF32_PK_BF8_F16
        | V_CVT_SCALEF32_PK_BF8_BF16 => {
            let f = fp8(matches!(
                i.op,
                V_CVT_SCALEF32_PK_BF8_F16 | V_CVT_SCALEF32_PK_BF8_BF16
            ));
            let h = half_of(matches!(
                i.op,
                V_CVT_SCALEF32_PK_FP8_BF16 | V_CVT_SCALEF32_PK_BF8_BF16
            ));
            let (a, sc) = (s.raw(0, Ty::B16), s.raw(1, Ty::B32));
            emit(&mut out, 0, |l| {
                let scale = Src::scale_at(&sc, l);
                let [x, y] = s.halves_at(&a, 0, l, h);
                let pair = f.encode(x, scale, rne) | f.encode(y, scale, rne) << 8;
                insert(old[l], pair, 16 * dst_word, 16)
            });
        }
        // One value to one FP8/BF8 byte (op_sel[3:2] of D), stochastically rounded by S1.
        V_CVT_SCALEF32_SR_FP8_F32
        | V_CVT_SCALEF32_SR_FP8_F16
        | V_CVT_SCALEF32_SR_FP8_BF16
        | V_CVT_SCALEF32_SR_BF8_F32
        | V_CVT_SCALEF32_SR_BF8_F16
        | V_CVT_SCALEF32_SR_BF8_BF16 => {
            let f = fp8(matches!(
                i.op,
                V_CVT_SCALEF32_SR_BF8_F32 | V_CVT_SCALEF32_SR_BF8_F16 | V_CVT_SCALEF32_SR_BF8_BF16
            ));
            let src = match i.op {
                V_CVT_SCALEF32_SR_FP8_F32 | V_CVT_SCALEF32_SR_BF8_F32 => None,
                V_CVT_SCALEF32_SR_FP8_F16 | V_CVT_SCALEF32_SR_BF8_F16 => Some(Half::F16),
                _ => Some(Half::Bf16),
            };
            let (a, seed, sc) = (
                s.raw(0, if src.is_some() { Ty::B16 } else { Ty::B32 }),
                s.raw(1, Ty::B32),
                s.raw(2, Ty::B32),
            );
            emit(&mut out, 0, |l| {
                let x = match src {
                    None => s.f32_at(&a, 0, l),
                    Some(h) => s.halves_at(&a, 0, l, h)[word_in as usize],
                };
                let b = f.encode(x, Src::scale_at(&sc, l), Rounding::Stochastic(seed[l]));
                insert(old[l], b, 8 * dst_byte, 8)
            });
        }
        // Two values to two FP4 nibbles in the byte op_sel[3:2] of D (S0 low nibble).
        V_CVT_SCALEF32_PK_FP4_F32
        | V_CVT_SCALEF32_PK_FP4_F16
        | V_CVT_SCALEF32_PK_FP4_BF16
        | V_CVT_SCALEF32_SR_PK_FP4_F32
        | V_CVT_SCALEF32_SR_PK_FP4_F16
        | V_CVT_SCALEF32_SR_PK_FP4_BF16 => {
            let f = Small::Mx(E2M1);
            let sr = matches!(
                i.op,
                V_CVT_SCALEF32_SR_PK_FP4_F32
                    | V_CVT_SCALEF32_SR_PK_FP4_F16
                    | V_CVT_SCALEF32_SR_PK_FP4_BF16
            );
            // pk_fp4_f32 has two f32 sources; sr_pk_fp4_f32 one 64-bit source; the 16-bit
            // forms one packed source. The scale is the last source.
            let scale_k = match i.op {
                V_CVT_SCALEF32_PK_FP4_F16 | V_CVT_SCALEF32_PK_FP4_BF16 => 1,
                _ => 2,
            };
            let h = match i.op {
                V_CVT_SCALEF32_PK_FP4_F16 | V_CVT_SCALEF32_SR_PK_FP4_F16 => Some(Half::F16),
                V_CVT_SCALEF32_PK_FP4_BF16 | V_CVT_SCALEF32_SR_PK_FP4_BF16 => Some(Half::Bf16),
                _ => None,
            };
            let a = s.raw(0, if h.is_some() { Ty::B16 } else { Ty::B32 });
            let b = if i.op == V_CVT_SCALEF32_PK_FP4_F32 {
                s.raw(1, Ty::B32)
            } else {
                s.reg(0, 1)
            };
            let (seed, sc) = (s.raw(1, Ty::B32), s.raw(scale_k, Ty::B32));
            emit(&mut out, 0, |l| {
                let [x, y] = match h {
                    Some(h) => s.halves_at(&a, 0, l, h),
                    None if i.op == V_CVT_SCALEF32_PK_FP4_F32 => {
                        [s.f32_at(&a, 0, l), s.f32_at(&b, 1, l)]
                    }
                    None => [s.f32_at(&a, 0, l), s.f32_at(&b, 0, l)],
                };
                let r = if sr {
                    Rounding::Stochastic(seed[l])
                } else {
                    rne
                };
                let scale = Src::scale_at(&sc, l);
                let pair = f.encode(x, scale, r) | f.encode(y, scale, r) << 4;
                insert(old[l], pair, 8 * dst_byte, 8)
            });
        }
        // 32 FP6/BF6 elements (6 VGPRs) to 32 f32 (32 VGPRs) or f16/bf16 (16 VGPRs).
        V_CVT_SCALEF32_PK32_F32_FP6
        | V_CVT_SCALEF32_PK32_F32_BF6
        | V_CVT_SCALEF32_PK32_F16_FP6
        | V_CVT_SCALEF32_PK32_F16_BF6
        | V_CVT_SCALEF32_PK32_BF16_FP6
        | V_CVT_SCALEF32_PK32_BF16_BF6 => {
            let f = Small::Mx(six(matches!(
                i.op,
                V_CVT_SCALEF32_PK32_F32_BF6
                    | V_CVT_SCALEF32_PK32_F16_BF6
                    | V_CVT_SCALEF32_PK32_BF16_BF6
            )));
            let packed: Vec<Row> = (0..6).map(|n| s.reg(0, n)).collect();
            let sc = s.raw(1, Ty::B32);
            let elem =
                |l: usize, e: usize| f.decode(field(&packed, l, 6 * e, 6), Src::scale_at(&sc, l));
            match i.op {
                V_CVT_SCALEF32_PK32_F32_FP6 | V_CVT_SCALEF32_PK32_F32_BF6 => {
                    for e in 0..32 {
                        emit(&mut out, e as u16, |l| to_f32(elem(l, e)));
                    }
                }
                _ => {
                    let h = half_of(matches!(
                        i.op,
                        V_CVT_SCALEF32_PK32_BF16_FP6 | V_CVT_SCALEF32_PK32_BF16_BF6
                    ));
                    for n in 0..16 {
                        emit(&mut out, n as u16, |l| {
                            to_half(elem(l, 2 * n), h) | to_half(elem(l, 2 * n + 1), h) << 16
                        });
                    }
                }
            }
        }
        // 32 values to 32 FP6/BF6 elements (6 VGPRs).
        V_CVT_SCALEF32_PK32_FP6_F16
        | V_CVT_SCALEF32_PK32_FP6_BF16
        | V_CVT_SCALEF32_PK32_BF6_F16
        | V_CVT_SCALEF32_PK32_BF6_BF16
        | V_CVT_SCALEF32_SR_PK32_FP6_F32
        | V_CVT_SCALEF32_SR_PK32_FP6_F16
        | V_CVT_SCALEF32_SR_PK32_FP6_BF16
        | V_CVT_SCALEF32_SR_PK32_BF6_F32
        | V_CVT_SCALEF32_SR_PK32_BF6_F16
        | V_CVT_SCALEF32_SR_PK32_BF6_BF16
        | V_CVT_SCALEF32_2XPK16_FP6_F32
        | V_CVT_SCALEF32_2XPK16_BF6_F32 => return Some(pack32(&s)),
        // f32 to f16/bf16 with stochastic rounding into the half op_sel[3] of D.
        V_CVT_SR_F16_F32 | V_CVT_SR_BF16_F32 => {
            let h = half_of(i.op == V_CVT_SR_BF16_F32);
            let (a, seed) = (s.raw(0, Ty::B32), s.raw(1, Ty::B32));
            emit(&mut out, 0, |l| {
                let x = s.mods(0, a[l], 0x8000_0000);
                insert(old[l], sr_half(x, seed[l], h), 16 * dst_word, 16)
            });
        }
        _ => return None,
    }
    Some(out)
}

fn half_of(bf16: bool) -> Half {
    if bf16 {
        Half::Bf16
    } else {
        Half::F16
    }
}

fn six(bf6: bool) -> Mx {
    if bf6 {
        E3M2
    } else {
        E2M3
    }
}

/// `bits` bits at bit `at` of a lane's multi-register value (`regs[0]` the low dword).
fn field(regs: &[Row], l: usize, at: usize, bits: u32) -> u32 {
    let lo = u64::from(regs[at / 32][l]);
    let hi = regs.get(at / 32 + 1).map_or(0, |r| u64::from(r[l]));
    ((lo | hi << 32) >> (at % 32)) as u32 & ((1u32 << bits) - 1)
}

/// The conversions to 32 packed FP6/BF6 elements: `pk32` from 32 f16/bf16 (16 VGPRs),
/// `sr_pk32` from 32 f32 or 16-bit values with one seed, `2xpk16` from two 16-f32 sources
/// interleaved.
fn pack32(s: &Src) -> Vec<(u16, Row)> {
    use Op::*;
    let i = s.i;
    let bf6 = matches!(
        i.op,
        V_CVT_SCALEF32_PK32_BF6_F16
            | V_CVT_SCALEF32_PK32_BF6_BF16
            | V_CVT_SCALEF32_SR_PK32_BF6_F32
            | V_CVT_SCALEF32_SR_PK32_BF6_F16
            | V_CVT_SCALEF32_SR_PK32_BF6_BF16
            | V_CVT_SCALEF32_2XPK16_BF6_F32
    );
    let f = Small::Mx(six(bf6));
    let h = match i.op {
        V_CVT_SCALEF32_PK32_FP6_F16
        | V_CVT_SCALEF32_PK32_BF6_F16
        | V_CVT_SCALEF32_SR_PK32_FP6_F16
        | V_CVT_SCALEF32_SR_PK32_BF6_F16 => Some(Half::F16),
        V_CVT_SCALEF32_PK32_FP6_BF16
        | V_CVT_SCALEF32_PK32_BF6_BF16
        | V_CVT_SCALEF32_SR_PK32_FP6_BF16
        | V_CVT_SCALEF32_SR_PK32_BF6_BF16 => Some(Half::Bf16),
        _ => None,
    };
    let sr = matches!(
        i.op,
        V_CVT_SCALEF32_SR_PK32_FP6_F32
            | V_CVT_SCALEF32_SR_PK32_FP6_F16
            | V_CVT_SCALEF32_SR_PK32_FP6_BF16
            | V_CVT_SCALEF32_SR_PK32_BF6_F32
            | V_CVT_SCALEF32_SR_PK32_BF6_F16
            | V_CVT_SCALEF32_SR_PK32_BF6_BF16
    );
    let two = matches!(
        i.op,
        V_CVT_SCALEF32_2XPK16_FP6_F32 | V_CVT_SCALEF32_2XPK16_BF6_F32
    );
    // The 32 inputs of a lane, as registers: f32 sources one per VGPR (2xpk16: S0 and S1
    // interleaved), 16-bit ones two per VGPR.
    let regs = if h.is_some() { 16 } else { 32 };
    let src: Vec<Row> = (0..regs)
        .map(|e| match (two, e % 2) {
            (true, 0) => s.reg(0, e / 2),
            (true, _) => s.reg(1, e / 2),
            (false, _) => s.reg(0, e),
        })
        .collect();
    let scale_k = if sr || two { 2 } else { 1 };
    let (seed, sc) = (
        s.w.vsrc(i.src[1], i.lit, Ty::B32),
        s.w.vsrc(i.src[scale_k], i.lit, Ty::B32),
    );
    let mut out = [[0u32; LANES]; 6];
    for l in 0..LANES {
        let scale = Src::scale_at(&sc, l);
        let r = if sr {
            Rounding::Stochastic(seed[l])
        } else {
            Rounding::NearestEven
        };
        for e in 0..32 {
            let x = match h {
                Some(h) => s.halves_at(&src[e / 2], 0, l, h)[e % 2],
                None => s.f32_at(&src[e], if two { e % 2 } else { 0 }, l),
            };
            let v = u64::from(f.encode(x, scale, r)) << (6 * e % 32);
            out[6 * e / 32][l] |= v as u32;
            if 6 * e % 32 > 26 {
                out[6 * e / 32 + 1][l] |= (v >> 32) as u32;
            }
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(n, r)| (n as u16, r))
        .collect()
}

/// `x` (f32 bits) rounded stochastically to f16 or bf16 (see the module docs): the low
/// `23 − m` bits of `seed` are added below the result's last place, then the sum is
/// truncated. The 16 bits.
fn sr_half(x: u32, seed: u32, h: Half) -> u32 {
    let (man, emin, max, nan) = match h {
        Half::F16 => (10, -14, 65504.0, 0x7e00),
        Half::Bf16 => (7, -126, f64::from(f32::from_bits(0x7f7f_0000)), 0x7fc0),
    };
    let sign = x >> 16 & 0x8000;
    let v = f64::from(f32::from_bits(x));
    if v.is_nan() {
        return sign | nan;
    }
    let a = v.abs();
    let mag = if a.is_infinite() {
        f64::INFINITY
    } else if a == 0.0 {
        0.0
    } else {
        let e = ((a.to_bits() >> 52) as i32 - 1023).max(emin);
        let q = 2f64.powi(e - man);
        let d = 23 - man;
        let kept = (a / q * f64::from(1u32 << d)).floor();
        let r = ((kept + f64::from(seed & ((1u32 << d) - 1))) / f64::from(1u32 << d)).floor();
        if r * q > max {
            f64::INFINITY
        } else {
            r * q
        }
    };
    sign | to_half(mag, h)
}
