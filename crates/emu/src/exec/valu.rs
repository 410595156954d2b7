//! Vector ALU semantics (VOP1, VOP2, VOPC, VOP3, VOP3P, with DPP and SDWA). Every operation
//! computes all 64 lanes as plain array loops (so the compiler vectorizes them) and the result
//! is written back under EXEC.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::softfloat as sf;
use super::{unimplemented, Env, Flow, LaneFault, R};
use crate::decode::{flag, Fmt, Gen, Inst, Sub, AGPR, VCC, VGPR};
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};
use half::f16;

type Row64 = [u64; LANES];

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline(always)]
fn u(x: f32) -> u32 {
    x.to_bits()
}
#[inline(always)]
fn d(x: u64) -> f64 {
    f64::from_bits(x)
}
#[inline(always)]
fn h(x: u32) -> f64 {
    f16::from_bits(x as u16).to_f64()
}
#[inline(always)]
fn hb(x: f64) -> u32 {
    u32::from(f16::from_f64(x).to_bits())
}

macro_rules! map64 {
    ($a:expr, |$x:ident| $e:expr) => {{
        let a: &Row64 = &$a;
        let mut r: Row64 = [0; LANES];
        for l in 0..LANES {
            let $x = a[l];
            r[l] = $e;
        }
        r
    }};
    ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
        let a: &Row64 = &$a;
        let b: &Row64 = &$b;
        let mut r: Row64 = [0; LANES];
        for l in 0..LANES {
            let $x = a[l];
            let $y = b[l];
            r[l] = $e;
        }
        r
    }};
    ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
        let a: &Row64 = &$a;
        let b: &Row64 = &$b;
        let c: &Row64 = &$c;
        let mut r: Row64 = [0; LANES];
        for l in 0..LANES {
            let $x = a[l];
            let $y = b[l];
            let $z = c[l];
            r[l] = $e;
        }
        r
    }};
}

/// DPP: permutes src0 and narrows the write mask (row/bank masks, invalid source lanes).
/// GFX10 adds `row_share`/`row_xmask` and `fi` (bit 18: inactive source lanes are read too).
fn dpp(row: &Row, ext: u32, exec: u64) -> (Row, u64) {
    let ctrl = ext >> 8 & 0x1ff;
    let fetch_inactive = ext >> 18 & 1 != 0;
    let bound_zero = ext >> 19 & 1 != 0;
    let bank_mask = ext >> 24 & 0xf;
    let row_mask = ext >> 28 & 0xf;
    let mut out = [0u32; LANES];
    let mut wmask = 0u64;
    for l in 0..LANES {
        let rb = l & !15;
        let li = (l & 15) as i32;
        let src: Option<usize> = match ctrl {
            0..=0xff => Some((l & !3) | (ctrl >> (2 * (l & 3)) & 3) as usize),
            0x101..=0x10f => {
                let s = li + (ctrl & 0xf) as i32;
                (s < 16).then(|| rb + s as usize)
            }
            0x111..=0x11f => {
                let s = li - (ctrl & 0xf) as i32;
                (s >= 0).then(|| rb + s as usize)
            }
            0x121..=0x12f => Some(rb + ((li - (ctrl & 0xf) as i32).rem_euclid(16)) as usize),
            0x130 => (l < 63).then_some(l + 1),
            0x134 => Some((l + 1) % 64),
            0x138 => (l > 0).then(|| l - 1),
            0x13c => Some((l + 63) % 64),
            0x140 => Some(rb + 15 - (l & 15)),
            0x141 => Some((l & !7) + 7 - (l & 7)),
            0x142 => (l >= 16).then(|| rb - 1),
            0x143 => (l >= 32).then_some(31),
            // GFX10 row_share: every lane reads lane `ctrl & 15` of its row.
            0x150..=0x15f => Some(rb + (ctrl & 0xf) as usize),
            // GFX10 row_xmask: lane l reads lane (l ^ mask) of its row.
            0x160..=0x16f => Some(rb + ((l & 15) ^ (ctrl & 0xf) as usize)),
            _ => None,
        };
        let enabled = row_mask >> (l / 16) & 1 != 0 && bank_mask >> ((l & 15) / 4) & 1 != 0;
        match src {
            Some(s) if fetch_inactive || exec >> s & 1 != 0 => {
                out[l] = row[s];
                if enabled {
                    wmask |= 1 << l;
                }
            }
            _ => {
                if bound_zero && enabled {
                    wmask |= 1 << l;
                }
            }
        }
    }
    (out, wmask & exec)
}

/// SDWA source select: byte/word extraction with optional sign extension.
#[inline]
fn sdwa_sel(row: &mut Row, sel: u32, sext: bool) {
    if sel >= 6 {
        return;
    }
    for x in row.iter_mut() {
        let v = *x;
        *x = match (sel, sext) {
            (0..=3, false) => v >> (8 * sel) & 0xff,
            (0..=3, true) => (v >> (8 * sel)) as u8 as i8 as i32 as u32,
            (4 | 5, false) => v >> (16 * (sel - 4)) & 0xffff,
            (_, _) => (v >> (16 * (sel - 4))) as u16 as i16 as i32 as u32,
        };
    }
}

/// Applies abs/neg source modifiers for a float operand of type `ty`.
#[inline]
fn float_mods(row: &mut Row, k: usize, abs: u8, neg: u8, ty: Ty) {
    let sign = match ty {
        Ty::B16 => 0x8000u32,
        _ => 0x8000_0000,
    };
    if abs >> k & 1 != 0 {
        for x in row.iter_mut() {
            *x &= !sign;
        }
    }
    if neg >> k & 1 != 0 {
        for x in row.iter_mut() {
            *x ^= sign;
        }
    }
}

pub(super) struct Ctx<'a> {
    pub(super) i: &'a Inst,
    pub(super) exec: u64,
    /// Write mask (EXEC narrowed by DPP).
    pub(super) wmask: u64,
    /// Sources (bit k = source k) whose denormals are flushed on read (MODE FP_DENORM input
    /// bits; set only off the default mode, by `fpmode`).
    pub(super) daz: u8,
    /// Results whose denormals are flushed: bit 0 f32, bit 1 f64/f16 (MODE FP_DENORM output
    /// bits; set only off the default mode, by `fpmode`).
    pub(super) ftz: u8,
}

/// Sign-preserving flush of an f32 denormal.
#[inline(always)]
pub(super) fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// Sign-preserving flush of an f16 denormal in the low half (the high half is kept).
#[inline(always)]
pub(super) fn ftz16(x: u32) -> u32 {
    if x & 0x7c00 == 0 {
        x & !0x03ff
    } else {
        x
    }
}

/// Sign-preserving flush of an f64 denormal.
#[inline(always)]
pub(super) fn ftz64(x: u64) -> u64 {
    if x & 0x7ff0_0000_0000_0000 == 0 {
        x & 1 << 63
    } else {
        x
    }
}

/// Flushes the denormals of a source row of type `ty` (f32 or f16 bits).
fn flush_row(row: &mut Row, ty: Ty) {
    if ty == Ty::B16 {
        for x in row.iter_mut() {
            *x = ftz16(*x);
        }
    } else {
        for x in row.iter_mut() {
            *x = ftz32(*x);
        }
    }
}

/// `out = fma(a, b, c)` on f32 lanes, with the host's FMA instruction when it has one
/// (`f32::mul_add` otherwise compiles to a libm call per lane).
pub(super) fn fma_f32_rows(a: &Row, b: &Row, c: &Row, out: &mut Row) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            unsafe { fma_f32_rows_fma(a, b, c, out) };
            return;
        }
    }
    for l in 0..LANES {
        out[l] = u(f(a[l]).mul_add(f(b[l]), f(c[l])));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_f32_rows_fma(a: &Row, b: &Row, c: &Row, out: &mut Row) {
    for l in 0..LANES {
        out[l] = u(f(a[l]).mul_add(f(b[l]), f(c[l])));
    }
}

/// `fma` on f64 lanes (see [`fma_f32_rows`]).
fn fma_f64_rows(a: &Row64, b: &Row64, c: &Row64) -> Row64 {
    let mut out = [0u64; LANES];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            unsafe { fma_f64_rows_fma(a, b, c, &mut out) };
            return out;
        }
    }
    for l in 0..LANES {
        out[l] = d(a[l]).mul_add(d(b[l]), d(c[l])).to_bits();
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_f64_rows_fma(a: &Row64, b: &Row64, c: &Row64, out: &mut Row64) {
    for l in 0..LANES {
        out[l] = d(a[l]).mul_add(d(b[l]), d(c[l])).to_bits();
    }
}

/// floor(2/π · 2^1201) as little-endian u64 limbs (generated by tools/gen_two_over_pi.py).
const TWO_OVER_PI: [u64; 19] = [
    0xba10ac06608df8f6,
    0x25d4d7f6bf623f1a,
    0xe2f67a0e73ef14a5,
    0xd45aea4f758fd7cb,
    0x136e9e8c7ecd3cbf,
    0xda3eda6cfd9e4f96,
    0x301fde5e2316b414,
    0x50763ff12fffbc0b,
    0x73e93908bf177bf2,
    0xfc827323ac7306a6,
    0x8909d338e04d68be,
    0x4e7dd1046bea5d76,
    0x2439fc3bd6396253,
    0xa5c00c925dd413a3,
    0x8ac36e48dc74849b,
    0x2083fca2c757bd77,
    0xbb81b6c52b327887,
    0x2a53f84eafa3ea69,
    0x000145f306dc9c88,
];

/// 53 bits of [`TWO_OVER_PI`] starting at bit `lo` (bits below 0 read as 0).
fn two_over_pi_bits(lo: i64) -> u64 {
    let mut v = 0u64;
    for k in 0..53i64 {
        let b = lo + k;
        if b >= 0 && b < 64 * TWO_OVER_PI.len() as i64 {
            let bit = TWO_OVER_PI[(b / 64) as usize] >> (b % 64) & 1;
            v |= bit << k;
        }
    }
    v
}

/// `v_trig_preop_f64`: a 53-bit segment of 2/π for range reduction of `x` (segment `sel`).
fn trig_preop(x: u64, sel: u32) -> f64 {
    let e = exp64(x);
    let mut shift = i64::from(sel & 31) * 53;
    if e > 1077 {
        shift += i64::from(e - 1077);
    }
    let result = two_over_pi_bits(1148 - shift) as f64;
    let mut scale = -53 - shift;
    if e >= 1968 {
        scale += 128;
    }
    ldexp64(result, scale as i32)
}

/// A row by value or by reference, as a reference (for the semantics macros).
#[inline(always)]
fn as_row<B: std::borrow::Borrow<Row>>(r: &B) -> &Row {
    r.borrow()
}

/// Per-thread scratch rows for vector ALU operands and results (kept off the stack so the
/// semantics functions have small frames).
pub(crate) struct Scratch {
    pub(super) a: Row,
    pub(super) b: Row,
    pub(super) c: Row,
    pub(super) r: Row,
    pub(super) o: Row,
}

impl Scratch {
    pub(crate) fn new() -> Box<Scratch> {
        Box::new(Scratch {
            a: [0; LANES],
            b: [0; LANES],
            c: [0; LANES],
            r: [0; LANES],
            o: [0; LANES],
        })
    }
}

impl Ctx<'_> {
    /// Like [`Ctx::s`], into a scratch row.
    pub(super) fn s_into<'a>(&mut self, w: &'a Wave, k: usize, out: &'a mut Row) -> &'a Row {
        let i = self.i;
        let ty = i.tys[k];
        let code = i.src[k];
        let plain = i.sub == Sub::E32 && (i.abs | i.neg | self.daz) >> k & 1 == 0;
        if code >= VGPR && plain {
            // No modifiers: read the register in place (no copy).
            return &w.v[crate::wave::reg_index(code)];
        }
        if code >= VGPR {
            *out = w.v[crate::wave::reg_index(code)];
        } else {
            *out = [w.sread(
                code,
                i.lit,
                if ty == Ty::F64 || ty == Ty::I64 {
                    Ty::B32
                } else {
                    ty
                },
            ); LANES];
        }
        if i.sub != Sub::E32 {
            match i.sub {
                Sub::Dpp if k == 0 => {
                    let (p, m) = dpp(out, i.ext, self.exec);
                    *out = p;
                    self.wmask = m;
                }
                Sub::Dpp8 if k == 0 => *out = super::rdna::dpp8(out, i.ext, self.exec),
                Sub::Sdwa if k < 2 => {
                    let sh = if k == 0 { 16 } else { 24 };
                    sdwa_sel(out, i.ext >> sh & 7, i.ext >> (sh + 3) & 1 != 0);
                }
                _ => {}
            }
        }
        if (i.abs | i.neg) >> k & 1 != 0 && i.fmt != Fmt::Vop3p {
            float_mods(out, k, i.abs, i.neg, ty);
        }
        if self.daz >> k & 1 != 0 {
            flush_row(out, ty);
        }
        out
    }

    /// Source `k` as 32-bit lanes with DPP/SDWA/abs/neg applied (float modifiers by `ty`).
    fn s(&mut self, w: &Wave, k: usize) -> Row {
        let i = self.i;
        let ty = i.tys[k];
        let mut r = w.vsrc(
            i.src[k],
            i.lit,
            if ty == Ty::F64 || ty == Ty::I64 {
                Ty::B32
            } else {
                ty
            },
        );
        if i.sub != Sub::E32 {
            match i.sub {
                Sub::Dpp if k == 0 => {
                    let (p, m) = dpp(&r, i.ext, self.exec);
                    r = p;
                    self.wmask = m;
                }
                Sub::Dpp8 if k == 0 => r = super::rdna::dpp8(&r, i.ext, self.exec),
                Sub::Sdwa if k < 2 => {
                    let sh = if k == 0 { 16 } else { 24 };
                    sdwa_sel(&mut r, i.ext >> sh & 7, i.ext >> (sh + 3) & 1 != 0);
                }
                _ => {}
            }
        }
        if (i.abs | i.neg) >> k & 1 != 0 && i.fmt != Fmt::Vop3p {
            float_mods(&mut r, k, i.abs, i.neg, ty);
        }
        if self.daz >> k & 1 != 0 {
            flush_row(&mut r, ty);
        }
        r
    }

    /// Source `k` as 64-bit lanes with abs/neg applied on the sign bit (f64).
    pub(super) fn s64(&self, w: &Wave, k: usize) -> Row64 {
        let i = self.i;
        let mut r = w.vsrc64(i.src[k], i.lit, i.tys[k]);
        if i.tys[k] == Ty::F64 {
            if i.abs >> k & 1 != 0 {
                for x in r.iter_mut() {
                    *x &= !(1 << 63);
                }
            }
            if i.neg >> k & 1 != 0 {
                for x in r.iter_mut() {
                    *x ^= 1 << 63;
                }
            }
            if self.daz >> k & 1 != 0 {
                for x in r.iter_mut() {
                    *x = ftz64(*x);
                }
            }
        }
        r
    }
}

/// MODE bits read by the output modifiers.
const MODE_F32_DENORM_OUT: u32 = 1 << 5;
const MODE_F64_DENORM_OUT: u32 = 1 << 7;
const MODE_DX10_CLAMP: u32 = 1 << 8;
pub(super) const MODE_IEEE: u32 = 1 << 9;

/// The omod multiplier, or `None` when there is none or the hardware ignores it: omod does
/// nothing while output denormals are enabled (LLVM's SIFoldOperands folds omod only when they
/// are flushed, for that reason).
fn omod_factor(c: &Ctx, mode: u32, denorm_out: u32) -> Option<f64> {
    match c.i.omod {
        0 => None,
        _ if mode & denorm_out != 0 => None,
        1 => Some(2.0),
        2 => Some(4.0),
        _ => Some(0.5),
    }
}

/// The clamp modifier on one value: [0, 1]; NaN becomes 0 when DX10_CLAMP is set and passes
/// through otherwise.
#[inline(always)]
fn clamp01(v: f64, dx10: bool) -> f64 {
    if v.is_nan() {
        if dx10 {
            0.0
        } else {
            v
        }
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// Output modifiers (omod, denormal flush, clamp) for an f32 result.
fn out_f32(c: &Ctx, mode: u32, r: &mut Row) {
    if let Some(m) = omod_factor(c, mode, MODE_F32_DENORM_OUT) {
        for x in r.iter_mut() {
            *x = u(f(*x) * m as f32);
        }
    }
    if c.ftz & 1 != 0 {
        for x in r.iter_mut() {
            *x = ftz32(*x);
        }
    }
    if c.i.has(flag::CLAMP) {
        let dx10 = mode & MODE_DX10_CLAMP != 0;
        for x in r.iter_mut() {
            let v = f(*x);
            if !v.is_nan() || dx10 {
                *x = u(clamp01(f64::from(v), dx10) as f32);
            }
        }
    }
}

fn out_f64(c: &Ctx, mode: u32, r: &mut Row64) {
    if let Some(m) = omod_factor(c, mode, MODE_F64_DENORM_OUT) {
        for x in r.iter_mut() {
            *x = (d(*x) * m).to_bits();
        }
    }
    if c.ftz & 2 != 0 {
        for x in r.iter_mut() {
            *x = ftz64(*x);
        }
    }
    if c.i.has(flag::CLAMP) {
        let dx10 = mode & MODE_DX10_CLAMP != 0;
        for x in r.iter_mut() {
            let v = d(*x);
            if !v.is_nan() || dx10 {
                *x = clamp01(v, dx10).to_bits();
            }
        }
    }
}

fn out_f16(c: &Ctx, mode: u32, r: &mut Row) {
    if let Some(m) = omod_factor(c, mode, MODE_F64_DENORM_OUT) {
        for x in r.iter_mut() {
            *x = hb(h(*x) * m);
        }
    }
    if c.ftz & 2 != 0 {
        for x in r.iter_mut() {
            *x = ftz16(*x);
        }
    }
    if c.i.has(flag::CLAMP) {
        let dx10 = mode & MODE_DX10_CLAMP != 0;
        for x in r.iter_mut() {
            let v = h(*x);
            if !v.is_nan() || dx10 {
                *x = hb(clamp01(v, dx10));
            }
        }
    }
}

/// Writes an f32 result row through the output modifiers (`o` is scratch).
#[inline(always)]
pub(super) fn put_f32(w: &mut Wave, c: &Ctx, r: &Row, o: &mut Row) {
    if c.i.omod != 0 || c.i.has(flag::CLAMP) || c.ftz & 1 != 0 {
        *o = *r;
        out_f32(c, w.mode, o);
        put(w, c, o);
    } else {
        put(w, c, r);
    }
}

/// Writes an f16 result row (low halves) through the output modifiers (`o` is scratch).
#[inline(always)]
pub(super) fn put_f16(w: &mut Wave, c: &Ctx, r: &Row, o: &mut Row) {
    if c.i.omod != 0 || c.i.has(flag::CLAMP) || c.ftz & 2 != 0 {
        *o = *r;
        out_f16(c, w.mode, o);
        put(w, c, o);
    } else {
        put(w, c, r);
    }
}

/// Writes an f64 result row through the output modifiers.
#[inline(always)]
pub(super) fn put_f64(w: &mut Wave, c: &Ctx, r: &mut Row64) {
    if c.i.omod != 0 || c.i.has(flag::CLAMP) || c.ftz & 2 != 0 {
        out_f64(c, w.mode, r);
    }
    w.vwrite64(c.i.dst, r, c.wmask);
}

/// Writes a 32-bit result, merging SDWA destination selects.
#[inline]
pub(super) fn put(w: &mut Wave, c: &Ctx, r: &Row) {
    let i = c.i;
    if i.sub == Sub::Sdwa && i.fmt != Fmt::Vopc {
        let sel = i.ext >> 8 & 7;
        let unused = i.ext >> 11 & 3;
        if sel < 6 {
            let old = w.vsrc(i.dst, 0, Ty::B32);
            let mut m = [0u32; LANES];
            let (shift, bits) = if sel < 4 {
                (8 * sel, 8)
            } else {
                (16 * (sel - 4), 16)
            };
            let field = ((1u64 << bits) - 1) as u32;
            for l in 0..LANES {
                let v = r[l] & field;
                let mut out = v << shift;
                match unused {
                    1 if v >> (bits - 1) & 1 != 0 => {
                        out |= !((field << shift) | ((1u32 << shift) - 1));
                    }
                    2 => out |= old[l] & !(field << shift),
                    _ => {}
                }
                m[l] = out;
            }
            w.vwrite(i.dst, &m, c.wmask);
            return;
        }
    }
    w.vwrite(i.dst, r, c.wmask);
}

fn ldexp32(x: f32, n: i32) -> f32 {
    (f64::from(x) * 2f64.powi(n.clamp(-400, 400))) as f32
}

fn ldexp64(x: f64, n: i32) -> f64 {
    let n = n.clamp(-2200, 2200);
    let mut v = x;
    let mut k = n;
    while k > 1000 {
        v *= 2f64.powi(1000);
        k -= 1000;
    }
    while k < -1000 {
        v *= 2f64.powi(-1000);
        k += 1000;
    }
    v * 2f64.powi(k)
}

fn frexp32(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (m, e) = frexp64(f64::from(x));
    (m as f32, e)
}

fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut bits = x.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut adj = 0;
    if exp == 0 {
        let y = x * 2f64.powi(64);
        bits = y.to_bits();
        exp = ((bits >> 52) & 0x7ff) as i32;
        adj = -64;
    }
    let e = exp - 1022 + adj;
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e)
}

fn fract32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}

fn fract64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

fn exp32(x: u32) -> i32 {
    ((x >> 23) & 0xff) as i32
}
fn exp64(x: u64) -> i32 {
    ((x >> 52) & 0x7ff) as i32
}

fn med3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    if c < lo {
        lo
    } else if c > hi {
        hi
    } else {
        c
    }
}

/// `v_med3_f32`. A NaN input gives NaN: clang lowers `convert_int_sat` (NaN → 0) to
/// `v_med3_f32` + `v_cvt_i32_f32` and relies on it.
fn fmed3(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return f32::NAN;
    }
    a.max(b).min(a.min(b).max(c))
}

/// `v_min_*`/`v_max_*` as the ISA's pseudo-code gives them, on the raw bits of one float format
/// (`EXP`: its exponent field, `QUIET`: its quiet-NaN bit) with the values widened to f64
/// (exact for f16 and f32): in IEEE mode a signaling NaN operand gives that NaN quieted;
/// otherwise a NaN operand gives the other operand; −0 orders below +0.
#[inline(always)]
fn minmax_bits<const EXP: u64, const QUIET: u64>(
    (x, a): (u64, f64),
    (y, b): (u64, f64),
    max: bool,
    ieee: bool,
) -> u64 {
    let snan = |v: u64| v & (EXP | QUIET) == EXP && v & (QUIET - 1) != 0;
    if ieee && snan(x) {
        x | QUIET
    } else if ieee && snan(y) {
        y | QUIET
    } else if a.is_nan() {
        y
    } else if b.is_nan() {
        x
    } else if a == b {
        // Equal values; for ±0 the sign bits decide (max +0, min −0).
        if max {
            x & y
        } else {
            x | y
        }
    } else if (a < b) != max {
        x
    } else {
        y
    }
}

/// [`minmax_bits`] for f32.
#[inline(always)]
fn minmax32(x: u32, y: u32, max: bool, ieee: bool) -> u32 {
    let (x, y) = ((x.into(), f(x).into()), (y.into(), f(y).into()));
    minmax_bits::<0x7f80_0000, 0x0040_0000>(x, y, max, ieee) as u32
}

/// [`minmax_bits`] for f64.
#[inline(always)]
fn minmax64(x: u64, y: u64, max: bool, ieee: bool) -> u64 {
    minmax_bits::<{ 0x7ff0 << 48 }, { 1 << 51 }>((x, d(x)), (y, d(y)), max, ieee)
}

/// [`minmax_bits`] for f16 in the low halves (the result's high half is 0).
#[inline(always)]
fn minmax16(x: u32, y: u32, max: bool, ieee: bool) -> u32 {
    let (x, y) = (x & 0xffff, y & 0xffff);
    minmax_bits::<0x7c00, 0x0200>((x.into(), h(x)), (y.into(), h(y)), max, ieee) as u32
}

/// `v_mad_f32` and its VOP2 forms: an unfused multiply-add that flushes f32 denormals in its
/// operands, its product and its result whatever MODE says (so LLVM selects it only when f32
/// denormals are flushed, and `llvm.amdgcn.fmad.ftz` always).
#[inline(always)]
fn mad_ftz(x: u32, y: u32, z: u32) -> u32 {
    let p = ftz32(u(f(ftz32(x)) * f(ftz32(y))));
    ftz32(u(f(p) + f(ftz32(z))))
}

/// `v_mad_f16` and its VOP2 forms: like [`mad_ftz`] for f16 (the result's high half is 0).
#[inline(always)]
fn mad_ftz16(x: u32, y: u32, z: u32) -> u32 {
    let p = ftz16(hb(h(ftz16(x)) * h(ftz16(y))));
    ftz16(hb(h(p) + h(ftz16(z))))
}

fn class_bits(v: f64, is_snan: bool) -> u32 {
    if v.is_nan() {
        return if is_snan { 1 } else { 2 };
    }
    let neg = v.is_sign_negative();
    let k = if v.is_infinite() {
        if neg {
            2
        } else {
            9
        }
    } else if v == 0.0 {
        if neg {
            5
        } else {
            6
        }
    } else if v.is_subnormal() {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        3
    } else {
        8
    };
    1 << k
}

fn f32_class(x: u32) -> u32 {
    let v = f(x);
    let snan = v.is_nan() && x & 0x0040_0000 == 0;
    if v.is_subnormal() {
        return if v.is_sign_negative() { 1 << 4 } else { 1 << 7 };
    }
    class_bits(f64::from(v), snan)
}
fn f64_class(x: u64) -> u32 {
    let v = d(x);
    class_bits(v, v.is_nan() && x & (1 << 51) == 0)
}
fn f16_class(x: u32) -> u32 {
    let v = f16::from_bits(x as u16);
    let snan = v.is_nan() && x & 0x200 == 0;
    if x & 0x7c00 == 0 && x & 0x3ff != 0 {
        return if v.is_sign_negative() { 1 << 4 } else { 1 << 7 };
    }
    class_bits(v.to_f64(), snan)
}

/// f32 → f16 with round toward zero (for `v_cvt_pkrtz_f16_f32`).
fn f16_rtz(x: f32) -> u32 {
    let r = f16::from_f32(x);
    if r.is_nan() || x.is_infinite() {
        return u32::from(r.to_bits());
    }
    let mut b = r.to_bits();
    if r.to_f32().abs() > x.abs() && b & 0x7fff != 0 {
        b -= 1;
    }
    u32::from(b)
}

/// Packs 64 lane flags (each 0 or 1) into a lane mask, eight lanes per multiply: byte `k` of
/// an 8-byte chunk lands on bit 56 + k of the product. Computing flags into bytes vectorizes;
/// or-ing one bit per lane into a mask does not.
#[inline(always)]
fn pack_flags(flags: &[u8; LANES]) -> u64 {
    let mut mask = 0u64;
    for (k, chunk) in flags.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        let bits = u64::from_le_bytes(b).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << (8 * k);
    }
    mask
}

/// Expands a lane mask into 64 flags (each 0 or 1), eight lanes at a time: the byte is
/// replicated, byte `k` keeps bit `k`, and adding 0x7f moves any set bit to bit 7.
#[inline(always)]
fn unpack_flags(mask: u64) -> [u8; LANES] {
    let mut flags = [0u8; LANES];
    for (k, chunk) in flags.chunks_exact_mut(8).enumerate() {
        let b = mask >> (8 * k) & 0xff;
        let x = b.wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
        let x = (x + 0x7f7f_7f7f_7f7f_7f7f) >> 7 & 0x0101_0101_0101_0101;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    flags
}

/// Packs `f(a[l], b[l])` for all lanes into a mask.
#[inline(always)]
fn cmp_rows<T: Copy, F: Fn(T, T) -> bool>(a: &[T; LANES], b: &[T; LANES], f: F) -> u64 {
    let mut flags = [0u8; LANES];
    for l in 0..LANES {
        flags[l] = u8::from(f(a[l], b[l]));
    }
    pack_flags(&flags)
}

/// Dispatches a comparison condition (see `compare_code`) to a monomorphic lane loop.
macro_rules! by_cond {
    ($cond:expr, $a:expr, $b:expr, $conv:expr, float) => {{
        let cv = $conv;
        match $cond {
            0 => 0,
            1 => cmp_rows($a, $b, |x, y| cv(x) < cv(y)),
            2 => cmp_rows($a, $b, |x, y| cv(x) == cv(y)),
            3 => cmp_rows($a, $b, |x, y| cv(x) <= cv(y)),
            4 => cmp_rows($a, $b, |x, y| cv(x) > cv(y)),
            5 => cmp_rows($a, $b, |x, y| cv(x) < cv(y) || cv(x) > cv(y)),
            6 => cmp_rows($a, $b, |x, y| cv(x) >= cv(y)),
            7 => cmp_rows($a, $b, |x, y| !cv(x).is_nan() && !cv(y).is_nan()),
            8 => cmp_rows($a, $b, |x, y| cv(x).is_nan() || cv(y).is_nan()),
            9 => cmp_rows($a, $b, |x, y| !(cv(x) >= cv(y))),
            10 => cmp_rows($a, $b, |x, y| !(cv(x) < cv(y) || cv(x) > cv(y))),
            11 => cmp_rows($a, $b, |x, y| !(cv(x) > cv(y))),
            12 => cmp_rows($a, $b, |x, y| !(cv(x) <= cv(y))),
            13 => cmp_rows($a, $b, |x, y| cv(x) != cv(y)),
            14 => cmp_rows($a, $b, |x, y| !(cv(x) < cv(y))),
            _ => u64::MAX,
        }
    }};
    ($cond:expr, $a:expr, $b:expr, $conv:expr, int) => {{
        let cv = $conv;
        match $cond {
            0 => 0,
            1 => cmp_rows($a, $b, |x, y| cv(x) < cv(y)),
            2 => cmp_rows($a, $b, |x, y| cv(x) == cv(y)),
            3 => cmp_rows($a, $b, |x, y| cv(x) <= cv(y)),
            4 => cmp_rows($a, $b, |x, y| cv(x) > cv(y)),
            5 => cmp_rows($a, $b, |x, y| cv(x) != cv(y)),
            6 => cmp_rows($a, $b, |x, y| cv(x) >= cv(y)),
            _ => u64::MAX,
        }
    }};
}

fn compare(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch) -> R {
    let i = c.i;
    let code = i.imm;
    let cond = code & 31;
    let ty = code >> 5 & 15;
    let x = code >> 9 & 1 != 0;
    let bits = match ty {
        2 | 5 | 8 => {
            let a = c.s64(w, 0);
            if cond == 16 {
                let b = c.s(w, 1);
                let mut bits = 0u64;
                for l in 0..LANES {
                    bits |= u64::from(f64_class(a[l]) & b[l] != 0) << l;
                }
                bits
            } else {
                let b = c.s64(w, 1);
                match ty {
                    2 => by_cond!(cond, &a, &b, d, float),
                    5 => by_cond!(cond, &a, &b, |v: u64| v as i64, int),
                    _ => by_cond!(cond, &a, &b, |v: u64| v, int),
                }
            }
        }
        _ => {
            let a = c.s_into(w, 0, &mut sc.a);
            let b = c.s_into(w, 1, &mut sc.b);
            match (ty, cond) {
                (1, 16) => cmp_rows(a, b, |x, y| f32_class(x) & y != 0),
                (0, 16) => cmp_rows(a, b, |x, y| f16_class(x) & y != 0),
                (1, _) => by_cond!(cond, a, b, f, float),
                (0, _) => by_cond!(cond, a, b, h, float),
                (3, _) => by_cond!(cond, a, b, |v: u32| v as i16, int),
                (4, _) => by_cond!(cond, a, b, |v: u32| v as i32, int),
                (6, _) => by_cond!(cond, a, b, |v: u32| v as u16, int),
                _ => by_cond!(cond, a, b, |v: u32| v, int),
            }
        }
    };
    let mask = bits & c.exec;
    w.write_mask(i.sdst, mask);
    if x {
        w.set_exec(mask);
    }
    Ok(Flow::Next)
}

/// Executes a vector ALU instruction.
pub(crate) fn valu(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    let mut c = Ctx {
        i,
        exec,
        wmask: exec,
        daz: 0,
        ftz: 0,
    };
    // One test per instruction: only a MODE other than the default (round to nearest even,
    // denormals kept, no FP16_OVFL) takes the per-operation path.
    if w.mode & super::fpmode::FP_MASK != super::fpmode::FP_DEFAULT {
        if let Some(r) = super::fpmode::valu(w, &mut c, env) {
            return r;
        }
    }
    valu_body(w, &mut c, env)
}

/// The vector ALU semantics under `c`'s flushing settings (round to nearest even).
#[inline(always)]
fn valu_body(w: &mut Wave, c: &mut Ctx, env: &mut Env) -> R {
    let i = c.i;
    let exec = c.exec;
    match i.op {
        Op::V_CMP => return compare(w, c, &mut *env.scratch),
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
        return vop3p(w, c, env);
    }
    let gfx8 = env.gen == Gen::Gfx8;
    let mode = w.mode;
    // Carry-producing adds: gfx8's v_add_u32 family and gfx9's _co forms.
    let carry_op = match i.op {
        Op::V_ADD_CO_U32 => Some(0),
        Op::V_SUB_CO_U32 => Some(1),
        Op::V_SUBREV_CO_U32 => Some(2),
        Op::V_ADDC_CO_U32 | Op::V_ADDC_U32 => Some(3),
        Op::V_SUBB_CO_U32 | Op::V_SUBB_U32 => Some(4),
        Op::V_SUBBREV_CO_U32 | Op::V_SUBBREV_U32 => Some(5),
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
        macro_rules! carry {
            (|$x:ident, $y:ident, $ci:ident| $v:expr, $carry:expr) => {
                for l in 0..LANES {
                    let $ci = u32::from(cin[l]);
                    let ($x, $y) = (a[l], b[l]);
                    sr[l] = $v;
                    flags[l] = u8::from($carry);
                }
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
        let co = pack_flags(&flags);
        put(w, c, sr);
        w.merge_mask(i.sdst, co, c.wmask);
        return Ok(Flow::Next);
    }

    let part = match crate::ops::valu_part(i.op) {
        0 => valu_move,
        1 => valu_f32,
        2 => valu_cvt32,
        3 => valu_f64,
        4 => valu_f16,
        5 => valu_int,
        6 => super::rdna::valu_rdna,
        7 => super::cdna3::valu_cdna3,
        _ => return Err(unimplemented(i)),
    };
    part(w, c, &mut *env.scratch, mode).unwrap_or_else(|| Err(unimplemented(i)))
}

#[inline(never)]
#[allow(unused_macros)]
fn valu_move(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        Op::V_MOV_B32 => v32!(*s0!()),
        Op::V_ACCVGPR_MOV_B32 => {
            // gfx90a VOP1: source and destination are AGPRs, which the decoder keeps as
            // `VGPR + n` (the opcode says the file).
            let r = w.vsrc(
                i.src[0] + if i.src[0] >= VGPR { AGPR - VGPR } else { 0 },
                i.lit,
                Ty::B32,
            );
            w.vwrite(AGPR + (i.dst - VGPR), &r, exec);
        }
        Op::V_SWAP_B32 => {
            let a = *s0!();
            let b = w.vsrc(i.dst, 0, Ty::B32);
            w.vwrite(i.dst, &a, exec);
            w.vwrite(i.src[0], &b, exec);
        }
        Op::V_CNDMASK_B32 => {
            let a = s0!();
            let b = s1!();
            // Per-lane select: 64 bits wide in wave32 too (see the carry-in).
            let m = w.sread64(i.src[2], 0, Ty::I64);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = if m >> l & 1 != 0 { b[l] } else { a[l] };
            }
            v32!(r)
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

#[inline(never)]
#[allow(unused_macros)]
fn valu_f32(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        // f32 arithmetic
        Op::V_ADD_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(x) + f(y)))),
        Op::V_SUB_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(x) - f(y)))),
        Op::V_SUBREV_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(y) - f(x)))),
        Op::V_MUL_F32 => vf32!(map2!(s0!(), s1!(), |x, y| u(f(x) * f(y)))),
        Op::V_MUL_LEGACY_F32 => vf32!(map2!(s0!(), s1!(), |x, y| if f(x) == 0.0 || f(y) == 0.0 {
            0
        } else {
            u(f(x) * f(y))
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
fn valu_cvt32(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        // f32 conversions
        Op::V_CVT_F32_I32 => vf32!(map1!(s0!(), |x| u(x as i32 as f32))),
        Op::V_CVT_F32_U32 => vf32!(map1!(s0!(), |x| u(x as f32))),
        Op::V_CVT_I32_F32 => v32!(map1!(s0!(), |x| f(x) as i32 as u32)),
        Op::V_CVT_U32_F32 => v32!(map1!(s0!(), |x| f(x) as u32)),
        Op::V_CVT_RPI_I32_F32 => v32!(map1!(s0!(), |x| (f(x) + 0.5).floor() as i32 as u32)),
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

#[inline(never)]
#[allow(unused_macros)]
fn valu_f64(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        // f64
        Op::V_ADD_F64 => vf64!(map64!(c.s64(w, 0), c.s64(w, 1), |x, y| (d(x) + d(y)).to_bits())),
        Op::V_MUL_F64 => vf64!(map64!(c.s64(w, 0), c.s64(w, 1), |x, y| (d(x) * d(y)).to_bits())),
        Op::V_MIN_F64 => {
            let ieee = mode & MODE_IEEE != 0;
            vf64!(map64!(c.s64(w, 0), c.s64(w, 1), |x, y| minmax64(
                x, y, false, ieee
            )))
        }
        Op::V_MAX_F64 => {
            let ieee = mode & MODE_IEEE != 0;
            vf64!(map64!(c.s64(w, 0), c.s64(w, 1), |x, y| minmax64(
                x, y, true, ieee
            )))
        }
        Op::V_FMA_F64 => vf64!(fma_f64_rows(&c.s64(w, 0), &c.s64(w, 1), &c.s64(w, 2))),
        Op::V_FMAC_F64 => {
            let mut acc = w.vsrc64(i.dst, 0, Ty::F64);
            if c.daz & 4 != 0 {
                for x in acc.iter_mut() {
                    *x = ftz64(*x);
                }
            }
            vf64!(fma_f64_rows(&c.s64(w, 0), &c.s64(w, 1), &acc))
        }
        Op::V_RCP_F64 => vf64!(map64!(c.s64(w, 0), |x| (1.0 / d(x)).to_bits())),
        Op::V_RSQ_F64 => vf64!(map64!(c.s64(w, 0), |x| (1.0 / d(x).sqrt()).to_bits())),
        Op::V_SQRT_F64 => vf64!(map64!(c.s64(w, 0), |x| d(x).sqrt().to_bits())),
        Op::V_FRACT_F64 => vf64!(map64!(c.s64(w, 0), |x| fract64(d(x)).to_bits())),
        Op::V_TRUNC_F64 => vf64!(map64!(c.s64(w, 0), |x| d(x).trunc().to_bits())),
        Op::V_CEIL_F64 => vf64!(map64!(c.s64(w, 0), |x| d(x).ceil().to_bits())),
        Op::V_FLOOR_F64 => vf64!(map64!(c.s64(w, 0), |x| d(x).floor().to_bits())),
        Op::V_RNDNE_F64 => vf64!(map64!(c.s64(w, 0), |x| d(x).round_ties_even().to_bits())),
        Op::V_FREXP_MANT_F64 => vf64!(map64!(c.s64(w, 0), |x| frexp64(d(x)).0.to_bits())),
        Op::V_FREXP_EXP_I32_F64 => {
            let a = c.s64(w, 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = frexp64(d(a[l])).1 as u32;
            }
            v32!(r)
        }
        Op::V_TRIG_PREOP_F64 => {
            let a = c.s64(w, 0);
            let b = *s1!();
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = trig_preop(a[l], b[l]).to_bits();
            }
            vf64!(r)
        }
        Op::V_LDEXP_F64 => {
            let a = c.s64(w, 0);
            let b = s1!();
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = ldexp64(d(a[l]), b[l] as i32).to_bits();
            }
            vf64!(r)
        }
        Op::V_DIV_SCALE_F64 => {
            let (a, b, cc) = (c.s64(w, 0), c.s64(w, 1), c.s64(w, 2));
            let mut r = [0u64; LANES];
            let mut vcc = 0u64;
            for l in 0..LANES {
                let (s0, s1, s2) = (d(a[l]), d(b[l]), d(cc[l]));
                let mut out = s0;
                let mut flag = false;
                if s2 == 0.0 || s1 == 0.0 {
                    out = f64::NAN;
                } else if exp64(cc[l]) - exp64(b[l]) >= 768 {
                    flag = true;
                    if s0 == s1 {
                        out = ldexp64(s0, 128);
                    }
                } else if s1.is_subnormal() {
                    out = ldexp64(s0, 128);
                } else if (1.0 / s1).is_subnormal() && (s2 / s1).is_subnormal() {
                    // As in v_div_scale_f32: the denominator is scaled down.
                    flag = true;
                    if s0 == s1 {
                        out = ldexp64(s0, -128);
                    }
                } else if (1.0 / s1).is_subnormal() {
                    out = ldexp64(s0, -128);
                } else if (s2 / s1).is_subnormal() {
                    flag = true;
                    if s0 == s2 {
                        out = ldexp64(s0, 128);
                    }
                } else if exp64(cc[l]) <= 53 {
                    out = ldexp64(s0, 128);
                }
                r[l] = out.to_bits();
                vcc |= u64::from(flag) << l;
            }
            w.vwrite64(i.dst, &r, c.wmask);
            w.merge_mask(i.sdst, vcc, c.wmask);
        }
        Op::V_DIV_FMAS_F64 => {
            let vcc = w.vcc();
            let (a, b, cc) = (c.s64(w, 0), c.s64(w, 1), c.s64(w, 2));
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = if vcc >> l & 1 != 0 {
                    let scale = if exp64(cc[l]) > 1023 { 128 } else { -128 };
                    sf::fma(sf::F64, a[l], b[l], cc[l], sf::Round::NearestEven, scale)
                } else {
                    d(a[l]).mul_add(d(b[l]), d(cc[l])).to_bits()
                };
            }
            vf64!(r)
        }
        Op::V_DIV_FIXUP_F64 => vf64!(map64!(
            c.s64(w, 0),
            c.s64(w, 1),
            c.s64(w, 2),
            |q, den, num| {
                let (qf, df, nf) = (d(q), d(den), d(num));
                let sign = (den ^ num) & (1 << 63);
                if nf.is_nan() {
                    num | (1 << 51)
                } else if df.is_nan() {
                    den | (1 << 51)
                } else if (df == 0.0 && nf == 0.0) || (df.is_infinite() && nf.is_infinite()) {
                    0x7ff8_0000_0000_0000
                } else if df == 0.0 || nf.is_infinite() {
                    sign | 0x7ff0_0000_0000_0000
                } else if df.is_infinite() || nf == 0.0 {
                    sign
                } else if exp64(num) - exp64(den) < -1075 {
                    // Underflow and overflow clauses as for v_div_fixup_f32.
                    sign
                } else if exp64(q) == 2047 {
                    sign | 0x7ff0_0000_0000_0000
                } else {
                    sign | (qf.to_bits() & !(1 << 63))
                }
            }
        )),
        Op::V_CVT_F64_F32 => {
            let a = s0!();
            v64!(map64!([0u64; LANES], |_z| 0).iter().enumerate().fold(
                [0u64; LANES],
                |mut acc, (l, _)| {
                    acc[l] = f64::from(f(a[l])).to_bits();
                    acc
                }
            ))
        }
        Op::V_CVT_F64_I32 | Op::V_CVT_F64_U32 => {
            let a = s0!();
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = if i.op == Op::V_CVT_F64_I32 {
                    f64::from(a[l] as i32)
                } else {
                    f64::from(a[l])
                }
                .to_bits();
            }
            vf64!(r)
        }
        Op::V_CVT_F32_F64 | Op::V_CVT_I32_F64 | Op::V_CVT_U32_F64 => {
            let a = c.s64(w, 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let x = d(a[l]);
                r[l] = match i.op {
                    Op::V_CVT_F32_F64 => u(x as f32),
                    Op::V_CVT_I32_F64 => x as i32 as u32,
                    _ => x as u32,
                };
            }
            if i.op == Op::V_CVT_F32_F64 {
                vf32!(r)
            } else {
                v32!(r)
            }
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

#[inline(never)]
#[allow(unused_macros)]
fn valu_f16(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        // f16
        Op::V_ADD_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(x) + h(y)))),
        Op::V_SUB_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(x) - h(y)))),
        Op::V_SUBREV_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(y) - h(x)))),
        Op::V_MUL_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(x) * h(y)))),
        Op::V_MIN_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map2!(s0!(), s1!(), |x, y| minmax16(x, y, false, ieee)))
        }
        Op::V_MAX_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map2!(s0!(), s1!(), |x, y| minmax16(x, y, true, ieee)))
        }
        Op::V_FMA_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| hb(
            h(x).mul_add(h(y), h(z))
        ))),
        Op::V_MAD_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| mad_ftz16(x, y, z))),
        Op::V_FMAC_F16 => {
            // The accumulator is the third source (flushed with it when MODE says so).
            let mut acc = w.vsrc(i.dst, 0, Ty::B32);
            if c.daz & 4 != 0 {
                flush_row(&mut acc, Ty::B16);
            }
            vf16!(map3!(s0!(), s1!(), acc, |x, y, z| hb(
                h(x).mul_add(h(y), h(z))
            )))
        }
        Op::V_MAC_F16 => {
            let acc = w.vsrc(i.dst, 0, Ty::B32);
            vf16!(map3!(s0!(), s1!(), acc, |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_MADMK_F16 => {
            let k = [i.lit; LANES];
            vf16!(map3!(s0!(), k, s1!(), |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_MADAK_F16 => {
            let k = [i.lit; LANES];
            vf16!(map3!(s0!(), s1!(), k, |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_RCP_F16 => vf16!(map1!(s0!(), |x| hb(1.0 / h(x)))),
        Op::V_SQRT_F16 => vf16!(map1!(s0!(), |x| hb(h(x).sqrt()))),
        Op::V_RSQ_F16 => vf16!(map1!(s0!(), |x| hb(1.0 / h(x).sqrt()))),
        Op::V_EXP_F16 => vf16!(map1!(s0!(), |x| hb(h(x).exp2()))),
        Op::V_LOG_F16 => vf16!(map1!(s0!(), |x| hb(h(x).log2()))),
        Op::V_SIN_F16 => vf16!(map1!(s0!(), |x| hb((h(x) * std::f64::consts::TAU).sin()))),
        Op::V_COS_F16 => vf16!(map1!(s0!(), |x| hb((h(x) * std::f64::consts::TAU).cos()))),
        Op::V_FLOOR_F16 => vf16!(map1!(s0!(), |x| hb(h(x).floor()))),
        Op::V_CEIL_F16 => vf16!(map1!(s0!(), |x| hb(h(x).ceil()))),
        Op::V_TRUNC_F16 => vf16!(map1!(s0!(), |x| hb(h(x).trunc()))),
        Op::V_RNDNE_F16 => vf16!(map1!(s0!(), |x| hb(h(x).round_ties_even()))),
        Op::V_FRACT_F16 => vf16!(map1!(s0!(), |x| hb(fract64(h(x)).min(0.999_511_718_75)))),
        Op::V_LDEXP_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(ldexp64(h(x), y as i32)))),
        Op::V_MAX3_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, true, ieee),
                z,
                true,
                ieee
            )))
        }
        Op::V_MIN3_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, false, ieee),
                z,
                false,
                ieee
            )))
        }
        Op::V_MED3_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| hb(f64::from(fmed3(
            h(x) as f32,
            h(y) as f32,
            h(z) as f32
        ))))),
        Op::V_DIV_FIXUP_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |q, den, num| {
            let (df, nf) = (h(den), h(num));
            let sign = (den ^ num) & 0x8000;
            if nf.is_nan() {
                num | 0x200
            } else if df.is_nan() {
                den | 0x200
            } else if (df == 0.0 && nf == 0.0) || (df.is_infinite() && nf.is_infinite()) {
                0x7e00
            } else if df == 0.0 || nf.is_infinite() {
                sign | 0x7c00
            } else if df.is_infinite() || nf == 0.0 {
                sign
            } else {
                sign | (q & 0x7fff)
            }
        })),
        Op::V_PACK_B32_F16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff) | (y & 0xffff) << 16)),
        Op::V_ADD_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y) & 0xffff)),
        Op::V_SUB_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y) & 0xffff)),
        Op::V_SUBREV_U16 => v32!(map2!(s0!(), s1!(), |x, y| y.wrapping_sub(x) & 0xffff)),
        Op::V_MUL_LO_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_mul(y) & 0xffff)),
        Op::V_LSHLREV_B16 => v32!(map2!(s0!(), s1!(), |x, y| (y << (x & 15)) & 0xffff)),
        Op::V_LSHRREV_B16 => v32!(map2!(s0!(), s1!(), |x, y| (y & 0xffff) >> (x & 15))),
        Op::V_ASHRREV_I16 => {
            v32!(map2!(s0!(), s1!(), |x, y| ((y as i16) >> (x & 15)) as u16 as u32))
        }
        Op::V_MAX_U16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff).max(y & 0xffff))),
        Op::V_MIN_U16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff).min(y & 0xffff))),
        Op::V_MAX_I16 => v32!(map2!(s0!(), s1!(), |x, y| (x as i16).max(y as i16) as u16 as u32)),
        Op::V_MIN_I16 => v32!(map2!(s0!(), s1!(), |x, y| (x as i16).min(y as i16) as u16 as u32)),
        Op::V_MAD_U16 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x
            .wrapping_mul(y)
            .wrapping_add(z))
            & 0xffff)),
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

#[inline(never)]
#[allow(unused_macros)]
fn valu_int(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    macro_rules! s0 {
        () => {
            c.s_into(w, 0, &mut sc.a)
        };
    }
    macro_rules! s1 {
        () => {
            c.s_into(w, 1, &mut sc.b)
        };
    }
    macro_rules! s2 {
        () => {
            c.s_into(w, 2, &mut sc.c)
        };
    }
    macro_rules! map1 {
        ($a:expr, |$x:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            for l in 0..LANES {
                let $x = a[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map2 {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! map3 {
        ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
            let ta = $a;
            let a: &Row = as_row(&ta);
            let tb = $b;
            let b: &Row = as_row(&tb);
            let tc = $c;
            let c3: &Row = as_row(&tc);
            for l in 0..LANES {
                let $x = a[l];
                let $y = b[l];
                let $z = c3[l];
                sc.r[l] = $e;
            }
            &sc.r
        }};
    }
    macro_rules! v32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put(w, c, r);
        }};
    }
    macro_rules! vf32 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f32(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! vf16 {
        ($r:expr) => {{
            let tr = $r;
            let r: &Row = as_row(&tr);
            put_f16(w, c, r, &mut sc.o);
        }};
    }
    macro_rules! v64 {
        ($r:expr) => {{
            let r: Row64 = $r;
            w.vwrite64(i.dst, &r, c.wmask);
        }};
    }
    macro_rules! vf64 {
        ($r:expr) => {{
            let mut r: Row64 = $r;
            put_f64(w, c, &mut r);
        }};
    }

    match i.op {
        // integer
        Op::V_ADD_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y))),
        Op::V_SUB_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y))),
        Op::V_SUBREV_U32 => v32!(map2!(s0!(), s1!(), |x, y| y.wrapping_sub(x))),
        Op::V_ADD_I32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y))),
        Op::V_SUB_I32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y))),
        Op::V_ADD3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x
            .wrapping_add(y)
            .wrapping_add(z))),
        Op::V_MUL_LO_U32 | Op::V_MUL_LO_I32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_mul(y))),
        Op::V_MUL_HI_U32 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| ((u64::from(x) * u64::from(y)) >> 32) as u32
        )),
        Op::V_MUL_HI_I32 => v32!(map2!(s0!(), s1!(), |x, y| ((i64::from(x as i32)
            * i64::from(y as i32))
            >> 32) as u32)),
        Op::V_MUL_U32_U24 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xff_ffff)
            .wrapping_mul(y & 0xff_ffff))),
        Op::V_MUL_HI_U32_U24 => v32!(map2!(s0!(), s1!(), |x, y| ((u64::from(x & 0xff_ffff)
            * u64::from(y & 0xff_ffff))
            >> 32) as u32)),
        Op::V_MUL_I32_I24 => v32!(map2!(s0!(), s1!(), |x, y| (((x << 8) as i32 >> 8)
            .wrapping_mul((y << 8) as i32 >> 8))
            as u32)),
        Op::V_MUL_HI_I32_I24 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| ((i64::from((x << 8) as i32 >> 8) * i64::from((y << 8) as i32 >> 8)) >> 32)
                as u32
        )),
        Op::V_MAD_U32_U24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & 0xff_ffff)
            .wrapping_mul(y & 0xff_ffff)
            .wrapping_add(z))),
        Op::V_MAD_I32_I24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            (((x << 8) as i32 >> 8).wrapping_mul((y << 8) as i32 >> 8) as u32).wrapping_add(z)
        })),
        Op::V_MAD_U64_U32 | Op::V_MAD_I64_I32 => {
            let (a, b) = (s0!(), s1!());
            let cc = c.s64(w, 2);
            let mut r = [0u64; LANES];
            let mut ov = 0u64;
            for l in 0..LANES {
                let (v, o) = if i.op == Op::V_MAD_U64_U32 {
                    let p = u128::from(a[l]) * u128::from(b[l]) + u128::from(cc[l]);
                    (p as u64, p >> 64 != 0)
                } else {
                    let p = i128::from(a[l] as i32) * i128::from(b[l] as i32)
                        + i128::from(cc[l] as i64);
                    (p as u64, p != i128::from(p as i64))
                };
                r[l] = v;
                ov |= u64::from(o) << l;
            }
            w.vwrite64(i.dst, &r, c.wmask);
            w.merge_mask(i.sdst, ov, c.wmask);
        }
        Op::V_MIN_I32 => v32!(map2!(s0!(), s1!(), |x, y| (x as i32).min(y as i32) as u32)),
        Op::V_MAX_I32 => v32!(map2!(s0!(), s1!(), |x, y| (x as i32).max(y as i32) as u32)),
        Op::V_MIN_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.min(y))),
        Op::V_MAX_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.max(y))),
        Op::V_MIN3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .min(y as i32)
            .min(z as i32)
            as u32)),
        Op::V_MAX3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .max(y as i32)
            .max(z as i32)
            as u32)),
        Op::V_MIN3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.min(y).min(z))),
        Op::V_MAX3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.max(y).max(z))),
        Op::V_MED3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| med3(
            x as i32, y as i32, z as i32
        ) as u32)),
        Op::V_MED3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| med3(x, y, z))),
        Op::V_AND_B32 => v32!(map2!(s0!(), s1!(), |x, y| x & y)),
        Op::V_OR_B32 => v32!(map2!(s0!(), s1!(), |x, y| x | y)),
        Op::V_XOR_B32 => v32!(map2!(s0!(), s1!(), |x, y| x ^ y)),
        Op::V_NOT_B32 => v32!(map1!(s0!(), |x| !x)),
        Op::V_OR3_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x | y | z)),
        Op::V_XAD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x ^ y).wrapping_add(z))),
        Op::V_AND_OR_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & y) | z)),
        Op::V_LSHL_OR_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x << (y & 31)) | z)),
        Op::V_LSHL_ADD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x << (y & 31))
            .wrapping_add(z))),
        Op::V_ADD_LSHL_U32 => {
            v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.wrapping_add(y) << (z & 31)))
        }
        Op::V_LSHLREV_B32 => v32!(map2!(s0!(), s1!(), |x, y| y << (x & 31))),
        Op::V_LSHRREV_B32 => v32!(map2!(s0!(), s1!(), |x, y| y >> (x & 31))),
        Op::V_ASHRREV_I32 => v32!(map2!(s0!(), s1!(), |x, y| ((y as i32) >> (x & 31)) as u32)),
        Op::V_LSHLREV_B64 | Op::V_LSHRREV_B64 | Op::V_ASHRREV_I64 => {
            let a = s0!();
            let b = c.s64(w, 1);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                let s = a[l] & 63;
                r[l] = match i.op {
                    Op::V_LSHLREV_B64 => b[l] << s,
                    Op::V_LSHRREV_B64 => b[l] >> s,
                    _ => ((b[l] as i64) >> s) as u64,
                };
            }
            v64!(r)
        }
        Op::V_BFE_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| super::bfe32(
            x,
            y & 31,
            z & 31
        ))),
        Op::V_BFE_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| super::sbfe32(
            x,
            y & 31,
            z & 31
        ))),
        Op::V_BFI_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & y) | (!x & z))),
        Op::V_BFM_B32 => v32!(map2!(s0!(), s1!(), |x, y| (((1u64 << (x & 31)) - 1)
            as u32)
            << (y & 31))),
        Op::V_ALIGNBIT_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| ((u64::from(x) << 32
            | u64::from(y))
            >> (z & 31))
            as u32)),
        Op::V_ALIGNBYTE_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| ((u64::from(x) << 32
            | u64::from(y))
            >> (8 * (z & 3)))
            as u32)),
        Op::V_BCNT_U32_B32 => v32!(map2!(s0!(), s1!(), |x, y| x.count_ones().wrapping_add(y))),
        Op::V_MBCNT_LO_U32_B32 => {
            let (a, b) = (s0!(), s1!());
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let m = if l >= 32 {
                    u32::MAX
                } else {
                    ((1u64 << l) - 1) as u32
                };
                r[l] = (a[l] & m).count_ones().wrapping_add(b[l]);
            }
            v32!(r)
        }
        Op::V_MBCNT_HI_U32_B32 => {
            let (a, b) = (s0!(), s1!());
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let m = if l < 32 {
                    0
                } else {
                    ((1u64 << (l - 32)) - 1) as u32
                };
                r[l] = (a[l] & m).count_ones().wrapping_add(b[l]);
            }
            v32!(r)
        }
        Op::V_FFBH_U32 => v32!(map1!(s0!(), |x| if x == 0 {
            u32::MAX
        } else {
            x.leading_zeros()
        })),
        Op::V_FFBL_B32 => v32!(map1!(s0!(), |x| if x == 0 {
            u32::MAX
        } else {
            x.trailing_zeros()
        })),
        Op::V_FFBH_I32 => v32!(map1!(s0!(), |x| {
            let y = if (x as i32) < 0 { !x } else { x };
            if y == 0 {
                u32::MAX
            } else {
                y.leading_zeros() - 1
            }
        })),
        Op::V_BFREV_B32 => v32!(map1!(s0!(), |x| x.reverse_bits())),
        Op::V_SAD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x
            .abs_diff(y)
            .wrapping_add(z))),
        Op::V_PERM_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            let bytes = u64::from(x) << 32 | u64::from(y);
            let mut out = 0u32;
            for k in 0..4 {
                let sel = z >> (8 * k) & 0xff;
                let b = match sel {
                    0..=7 => (bytes >> (8 * sel) & 0xff) as u32,
                    8 => ((bytes >> 15 & 1) * 0xff) as u32,
                    9 => ((bytes >> 31 & 1) * 0xff) as u32,
                    10 => ((bytes >> 47 & 1) * 0xff) as u32,
                    11 => ((bytes >> 63 & 1) * 0xff) as u32,
                    12 => 0,
                    _ => 0xff,
                };
                out |= b << (8 * k);
            }
            out
        })),
        Op::V_ACCVGPR_READ_B32 | Op::V_ACCVGPR_WRITE_B32 => v32!(*s0!()),

        _ => return None,
    }
    Some(Ok(Flow::Next))
}

/// f32 and f16 (low-half) arithmetic on bits in a MODE rounding direction: the host's
/// arithmetic for round to nearest even, [`sf`] otherwise.
#[inline(always)]
fn add32(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        u(f(x) + f(y))
    } else {
        sf::add(sf::F32, x.into(), y.into(), rm) as u32
    }
}
#[inline(always)]
fn mul32(x: u32, y: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        u(f(x) * f(y))
    } else {
        sf::mul(sf::F32, x.into(), y.into(), rm) as u32
    }
}
#[inline(always)]
fn fma32(x: u32, y: u32, z: u32, rm: sf::Round) -> u32 {
    if rm == sf::Round::NearestEven {
        u(f(x).mul_add(f(y), f(z)))
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
        hb(h(x).mul_add(h(y), h(z)))
    } else {
        let (x, y, z) = (
            (x & 0xffff).into(),
            (y & 0xffff).into(),
            (z & 0xffff).into(),
        );
        sf::fma(sf::F16, x, y, z, rm, 0) as u32
    }
}

/// VOP3P: packed 16-bit and (gfx90a) packed 32-bit math, mixed-precision FMA, dot products,
/// AccVGPR moves; matrix FMA goes on to [`super::mfma`].
fn vop3p(w: &mut Wave, c: &mut Ctx, env: &mut Env) -> R {
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
            let a = w.vsrc64(i.src[0], i.lit, Ty::I64);
            let b = if $n > 1 { w.vsrc64(i.src[1], i.lit, Ty::I64) } else { [0; LANES] };
            let cc = if $n > 2 { w.vsrc64(i.src[2], i.lit, Ty::I64) } else { [0; LANES] };
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
            let a = w.vsrc64(i.src[0], i.lit, Ty::I64);
            let b = w.vsrc64(i.src[1], i.lit, Ty::I64);
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
        Op::V_DOT4_I32_I8 | Op::V_DOT4_U32_U8 | Op::V_DOT2_I32_I16 | Op::V_DOT2_U32_U16 => {
            let (a, b, cc) = (
                w.vsrc(i.src[0], i.lit, Ty::B32),
                w.vsrc(i.src[1], i.lit, Ty::B32),
                w.vsrc(i.src[2], i.lit, Ty::B32),
            );
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let mut acc = cc[l] as i64;
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
                r[l] = acc as u32;
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
        // Matrix FMA (or an unimplemented VOP3P operation).
        _ => return super::mfma::execute(w, i, c.exec, env.gen),
    }
    let _ = VCC;
    let _ = LaneFault::new;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_flags_pack_and_unpack_round_trip() {
        for mask in [
            0u64,
            u64::MAX,
            1,
            1 << 63,
            0x8000_0001_0000_0080,
            0x0123_4567_89ab_cdef,
        ] {
            let flags = unpack_flags(mask);
            for l in 0..LANES {
                assert_eq!(u64::from(flags[l]), mask >> l & 1, "lane {l} of {mask:#x}");
            }
            assert_eq!(pack_flags(&flags), mask);
        }
    }
}
