//! Vector ALU semantics (VOP1, VOP2, VOPC, VOP3, VOP3P, with DPP and SDWA). Every operation
//! computes all 64 lanes as plain array loops (so the compiler vectorizes them) and the result
//! is written back under EXEC.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::decode::{flag, Fmt, Gen, Inst, Sub, DPP8_FI, VGPR};
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};
use half::f16;

pub(super) type Row64 = [u64; LANES];

#[inline(always)]
pub(super) fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline(always)]
pub(super) fn u(x: f32) -> u32 {
    x.to_bits()
}
#[inline(always)]
pub(super) fn d(x: u64) -> f64 {
    f64::from_bits(x)
}
#[inline(always)]
pub(super) fn h(x: u32) -> f64 {
    f16::from_bits(x as u16).to_f64()
}
/// The f16 nearest `x`, ties to even: rounded to odd in f32 first (the value toward zero
/// with its last bit set when inexact), then to f16, which with 13 more bits in f32 rounds
/// once, correctly. (`f16::from_f64` goes through `f32` rounding to nearest, a second
/// rounding: an FMA's exact f64 result could land on an f16 midpoint and then go the wrong
/// way, 1 ulp off for ~35 in a million `v_fma_f16` results.) NaNs as `from_f64`.
#[inline(always)]
pub(super) fn hb(x: f64) -> u32 {
    let r = x as f32;
    if x.is_nan() || f64::from(r) == x {
        return u32::from(f16::from_f64(x).to_bits());
    }
    let mut b = r.to_bits();
    if f64::from(r).abs() > x.abs() {
        // Rounded away from zero: the f32 below it in magnitude (same sign).
        b -= 1;
    }
    u32::from(f16::from_f32(f32::from_bits(b | 1)).to_bits())
}

/// `r`, the host's `x + y` or `x * y`, with the NaN of two NaN operands made src0's (quieted),
/// as the compiling tier and x86 give it. Which of two NaNs the host returns is its code
/// generator's choice (IEEE 754 leaves it open): LLVM may swap a commutative operation's
/// operands, and at opt-level 2 it does in the vectorised lane loops.
#[inline(always)]
pub(super) fn src0_nan(x: u32, y: u32, r: u32) -> u32 {
    if f(x).is_nan() && f(y).is_nan() {
        x | 0x0040_0000
    } else {
        r
    }
}
/// [`src0_nan`] for f64.
#[inline(always)]
pub(super) fn src0_nan64(x: u64, y: u64, r: u64) -> u64 {
    if d(x).is_nan() && d(y).is_nan() {
        x | 0x0008_0000_0000_0000
    } else {
        r
    }
}
/// [`src0_nan`] for f16 in the low half (computed in f64 by [`h`] and [`hb`]).
#[inline(always)]
pub(super) fn src0_nan16(x: u32, y: u32, r: u32) -> u32 {
    let nan = |v: u32| v & 0x7fff > 0x7c00;
    if nan(x) && nan(y) {
        x & 0xffff | 0x0200
    } else {
        r
    }
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
pub(super) fn dpp(row: &Row, ext: u32, exec: u64) -> (Row, u64) {
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
pub(super) fn sdwa_sel(row: &mut Row, sel: u32, sext: bool) {
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
pub(super) fn float_mods(row: &mut Row, k: usize, abs: u8, neg: u8, ty: Ty) {
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

/// VOP3 `op_sel` (GFX9+ 16-bit operations): bit k reads source k's high half, bit 3 writes
/// the result to the destination's high half (keeping the low half). 0 for other encodings.
#[inline(always)]
pub(super) fn vop3_opsel(i: &Inst) -> u8 {
    // GFX11 true16: VOP1/VOP2/VOPC name VGPR halves too (isa keeps them as op_sel bits).
    if i.fmt == Fmt::Vop3 || (i.gen.is_gfx11() && i.fmt != Fmt::Vop3p) {
        i.opsel
    } else {
        0
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
#[inline]
pub(super) fn flush_row(row: &mut Row, ty: Ty) {
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

/// A NaN result `r` of an operation with a NaN operand gives the first NaN of `ops`, quieted:
/// the project's NaN rule (`inst::two_nan_operands_give_the_first_ones`), which the compiling
/// tier's lowering applies too. The host leaves the choice between NaNs to its code
/// generator, FMA unit or libm.
#[inline(always)]
pub(super) fn first_nan(r: u32, ops: &[u32]) -> u32 {
    if f(r).is_nan() {
        if let Some(&x) = ops.iter().find(|&&x| f(x).is_nan()) {
            return x | 0x0040_0000;
        }
    }
    r
}

/// [`first_nan`] for f64.
#[inline(always)]
pub(super) fn first_nan64(r: u64, ops: &[u64]) -> u64 {
    if d(r).is_nan() {
        if let Some(&x) = ops.iter().find(|&&x| d(x).is_nan()) {
            return x | 0x0008_0000_0000_0000;
        }
    }
    r
}

/// [`first_nan`] for f16 in the low half (computed in f64 by [`h`] and [`hb`]).
#[inline(always)]
pub(super) fn first_nan16(r: u32, ops: &[u32]) -> u32 {
    let nan = |v: u32| v & 0x7fff > 0x7c00;
    if nan(r) {
        if let Some(&x) = ops.iter().find(|&&x| nan(x)) {
            return x & 0xffff | 0x0200;
        }
    }
    r
}

/// `out = fma(a, b, c)` on f32 lanes, with the host's FMA instruction when it has one
/// (`f32::mul_add` otherwise compiles to a libm call per lane).
pub(super) fn fma_f32_rows(a: &Row, b: &Row, c: &Row, out: &mut Row) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            unsafe { fma_f32_rows_fma(a, b, c, out) };
            fma_nans32(a, b, c, out);
            return;
        }
    }
    for l in 0..LANES {
        out[l] = u(f(a[l]).mul_add(f(b[l]), f(c[l])));
    }
    fma_nans32(a, b, c, out);
}

/// [`first_nan`] over an FMA's row, after a test of the whole row for a NaN (rare: the vectorised
/// test costs less than a select per lane).
#[inline(always)]
fn fma_nans32(a: &Row, b: &Row, c: &Row, out: &mut Row) {
    // A fold, not `any`: no early exit, so it vectorises.
    if out
        .iter()
        .fold(false, |n, &r| n | (r & 0x7fff_ffff > 0x7f80_0000))
    {
        for l in 0..LANES {
            out[l] = first_nan(out[l], &[a[l], b[l], c[l]]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
pub(super) fn fma_f32_rows_fma(a: &Row, b: &Row, c: &Row, out: &mut Row) {
    for l in 0..LANES {
        out[l] = u(f(a[l]).mul_add(f(b[l]), f(c[l])));
    }
}

/// `fma` on f64 lanes (see [`fma_f32_rows`]).
pub(super) fn fma_f64_rows(a: &Row64, b: &Row64, c: &Row64) -> Row64 {
    let mut out = [0u64; LANES];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA, checked just above.
            unsafe { fma_f64_rows_fma(a, b, c, &mut out) };
            fma_nans64(a, b, c, &mut out);
            return out;
        }
    }
    for l in 0..LANES {
        out[l] = d(a[l]).mul_add(d(b[l]), d(c[l])).to_bits();
    }
    fma_nans64(a, b, c, &mut out);
    out
}

/// [`fma_nans32`] for f64.
#[inline(always)]
fn fma_nans64(a: &Row64, b: &Row64, c: &Row64, out: &mut Row64) {
    if out.iter().fold(false, |n, &r| {
        n | (r & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000)
    }) {
        for l in 0..LANES {
            out[l] = first_nan64(out[l], &[a[l], b[l], c[l]]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
pub(super) fn fma_f64_rows_fma(a: &Row64, b: &Row64, c: &Row64, out: &mut Row64) {
    for l in 0..LANES {
        out[l] = d(a[l]).mul_add(d(b[l]), d(c[l])).to_bits();
    }
}

/// A row by value or by reference, as a reference (for the semantics macros).
#[inline(always)]
pub(super) fn as_row<B: std::borrow::Borrow<Row>>(r: &B) -> &Row {
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
        // `i.opsel` here is VOP3's (VOP3P sources are read by `valu_packed`; other encodings
        // have none).
        let plain = i.sub == Sub::E32 && (i.abs | i.neg | self.daz | i.opsel) >> k & 1 == 0;
        if code >= VGPR && plain {
            // No modifiers: read the register in place (no copy).
            return &w.v[crate::wave::reg_index(code)];
        }
        // Lanes 0–31 only in wave32 (the rest of `out` is left as it was, never read); each
        // copy of fixed length.
        let x = if code >= VGPR {
            None
        } else {
            let ty = if ty == Ty::F64 || ty == Ty::I64 {
                Ty::B32
            } else {
                ty
            };
            Some(w.sread(code, i.lit, ty))
        };
        match (x, w.wave32) {
            (None, false) => *out = w.v[crate::wave::reg_index(code)],
            (None, true) => out[..32].copy_from_slice(&w.v[crate::wave::reg_index(code)][..32]),
            (Some(x), false) => *out = [x; LANES],
            (Some(x), true) => out[..32].fill(x),
        }
        if i.sub != Sub::E32 {
            match i.sub {
                Sub::Dpp if k == 0 => {
                    let (p, m) = dpp(out, i.ext, self.exec);
                    *out = p;
                    self.wmask = m;
                }
                Sub::Dpp8 if k == 0 => *out = dpp8(out, i.ext, self.exec),
                Sub::Sdwa if k < 2 => {
                    let sh = if k == 0 { 16 } else { 24 };
                    sdwa_sel(out, i.ext >> sh & 7, i.ext >> (sh + 3) & 1 != 0);
                }
                _ => {}
            }
        }
        if i.opsel >> k & 1 != 0 {
            for x in out.iter_mut() {
                *x >>= 16;
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
    pub(super) fn s(&mut self, w: &Wave, k: usize) -> Row {
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
                Sub::Dpp8 if k == 0 => r = dpp8(&r, i.ext, self.exec),
                Sub::Sdwa if k < 2 => {
                    let sh = if k == 0 { 16 } else { 24 };
                    sdwa_sel(&mut r, i.ext >> sh & 7, i.ext >> (sh + 3) & 1 != 0);
                }
                _ => {}
            }
        }
        if i.opsel >> k & 1 != 0 {
            for x in r.iter_mut() {
                *x >>= 16;
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
pub(super) const MODE_F32_DENORM_OUT: u32 = 1 << 5;
pub(super) const MODE_F64_DENORM_OUT: u32 = 1 << 7;
pub(super) const MODE_DX10_CLAMP: u32 = 1 << 8;
pub(super) const MODE_IEEE: u32 = 1 << 9;

/// The omod multiplier, or `None` when there is none or the hardware ignores it: omod does
/// nothing while output denormals are enabled (LLVM's SIFoldOperands folds omod only when they
/// are flushed, for that reason).
pub(super) fn omod_factor(c: &Ctx, mode: u32, denorm_out: u32) -> Option<f64> {
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
pub(super) fn clamp01(v: f64, dx10: bool) -> f64 {
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
pub(super) fn out_f32(c: &Ctx, mode: u32, r: &mut Row) {
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

pub(super) fn out_f64(c: &Ctx, mode: u32, r: &mut Row64) {
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

pub(super) fn out_f16(c: &Ctx, mode: u32, r: &mut Row) {
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
    let r = if c.i.omod != 0 || c.i.has(flag::CLAMP) || c.ftz & 2 != 0 {
        *o = *r;
        out_f16(c, w.mode, o);
        &*o
    } else {
        r
    };
    if !put_16(w, c, r) {
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

/// Whether a 16-bit result written to a 32-bit VGPR keeps the register's high half (otherwise
/// it is zeroed). GFX8 zeroes it; GFX9 keeps it for the instructions it introduced with
/// op_sel (`v_mad_u16`/`i16`/`f16`, `v_fma_f16`, `v_div_fixup_f16`; their GFX8 forms are the
/// `_legacy` opcodes) and for the f16 mac/fmac/madak/madmk; GFX10 keeps it for every 16-bit
/// result (LLVM's `GCNSubtarget::zeroesHigh16BitsOfDest`, derived from the hardware).
#[inline(always)]
fn keeps_high_half(i: &Inst) -> bool {
    match i.gen {
        Gen::Gfx8 => false,
        Gen::Gfx10 | Gen::Gfx10W64 | Gen::Gfx11 | Gen::Gfx11W64 | Gen::Gfx12 | Gen::Gfx12W64 => {
            result16(i.op)
        }
        _ => matches!(
            i.op,
            Op::V_MAD_U16
                | Op::V_MAD_I16
                | Op::V_MAD_F16
                | Op::V_FMA_F16
                | Op::V_DIV_FIXUP_F16
                | Op::V_MAC_F16
                | Op::V_FMAC_F16
                | Op::V_MADAK_F16
                | Op::V_MADMK_F16
        ),
    }
}

/// Whether an operation's result is 16 bits wide (VOP3 op_sel bit 3 then picks the half).
#[inline(always)]
fn result16(op: Op) -> bool {
    matches!(
        op,
        Op::V_ADD_F16
            | Op::V_MOV_B16
            | Op::V_NOT_B16
            | Op::V_AND_B16
            | Op::V_OR_B16
            | Op::V_XOR_B16
            | Op::V_CNDMASK_B16
            | Op::V_MAXMIN_F16
            | Op::V_MINMAX_F16
            | Op::V_SUB_F16
            | Op::V_SUBREV_F16
            | Op::V_MUL_F16
            | Op::V_MAX_F16
            | Op::V_MIN_F16
            | Op::V_ADD_U16
            | Op::V_SUB_U16
            | Op::V_SUBREV_U16
            | Op::V_ADD_I16
            | Op::V_SUB_I16
            | Op::V_MUL_LO_U16
            | Op::V_MAX_U16
            | Op::V_MIN_U16
            | Op::V_MAX_I16
            | Op::V_MIN_I16
            | Op::V_LSHLREV_B16
            | Op::V_LSHRREV_B16
            | Op::V_ASHRREV_I16
            | Op::V_LDEXP_F16
            | Op::V_CVT_F16_F32
            | Op::V_CVT_F16_U16
            | Op::V_CVT_F16_I16
            | Op::V_CVT_U16_F16
            | Op::V_CVT_I16_F16
            | Op::V_RCP_F16
            | Op::V_RSQ_F16
            | Op::V_SQRT_F16
            | Op::V_LOG_F16
            | Op::V_EXP_F16
            | Op::V_SIN_F16
            | Op::V_COS_F16
            | Op::V_FLOOR_F16
            | Op::V_CEIL_F16
            | Op::V_TRUNC_F16
            | Op::V_RNDNE_F16
            | Op::V_FRACT_F16
            | Op::V_FREXP_MANT_F16
            | Op::V_FREXP_EXP_I16_F16
            | Op::V_MAX3_F16
            | Op::V_MIN3_F16
            | Op::V_MED3_F16
            | Op::V_MAX3_U16
            | Op::V_MIN3_U16
            | Op::V_MED3_U16
            | Op::V_MAX3_I16
            | Op::V_MIN3_I16
            | Op::V_MED3_I16
            | Op::V_FMAMK_F16
            | Op::V_FMAAK_F16
            | Op::V_CVT_NORM_I16_F16
            | Op::V_CVT_NORM_U16_F16
            | Op::V_MAD_U16
            | Op::V_MAD_I16
            | Op::V_MAD_F16
            | Op::V_FMA_F16
            | Op::V_DIV_FIXUP_F16
            | Op::V_MAC_F16
            | Op::V_FMAC_F16
            | Op::V_MADAK_F16
            | Op::V_MADMK_F16
            | Op::V_MAD_LEGACY_U16
            | Op::V_MAD_LEGACY_I16
            | Op::V_MAD_LEGACY_F16
            | Op::V_FMA_LEGACY_F16
            | Op::V_DIV_FIXUP_LEGACY_F16
            | Op::V_SAT_PK_U8_I16
            | Op::V_MINIMUM_F16
            | Op::V_MAXIMUM_F16
            | Op::V_MINIMUM3_F16
            | Op::V_MAXIMUM3_F16
            | Op::V_MINIMUMMAXIMUM_F16
            | Op::V_MAXIMUMMINIMUM_F16
    )
}

/// Writes a 16-bit result that goes to one half of the destination (op_sel, or a generation
/// that keeps the other half); `false` when the result is written whole.
#[inline(always)]
fn put_16(w: &mut Wave, c: &Ctx, r: &Row) -> bool {
    let i = c.i;
    if i.gen != Gen::Gfx8 && (vop3_opsel(i) & 8 != 0 || keeps_high_half(i)) && result16(i.op) {
        put_half(w, c, r, vop3_opsel(i) & 8 != 0);
        return true;
    }
    false
}

/// Writes a 16-bit result into one half of the destination (op_sel bit 3: the high half),
/// keeping the other.
#[cold]
#[inline(never)]
fn put_half(w: &mut Wave, c: &Ctx, r: &Row, high: bool) {
    let old = w.vsrc(c.i.dst, 0, Ty::B32);
    let mut m = [0u32; LANES];
    for l in 0..LANES {
        m[l] = if high {
            old[l] & 0xffff | r[l] << 16
        } else {
            old[l] & 0xffff_0000 | r[l] & 0xffff
        };
    }
    w.vwrite(c.i.dst, &m, c.wmask);
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
    // 16-bit integer results (f16 ones come through `put_f16`).
    if i.tys[0] == Ty::B16 && put_16(w, c, r) {
        return;
    }
    w.vwrite(i.dst, r, c.wmask);
}

/// Unsigned saturation of a wide result to 32 bits (integer clamp).
#[inline(always)]
pub(super) fn sat_u32(v: u64) -> u32 {
    v.min(u64::from(u32::MAX)) as u32
}

/// Signed saturation of a wide result to 32 bits (integer clamp).
#[inline(always)]
pub(super) fn sat_i32(v: i64) -> u32 {
    v.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32
}

/// Signed saturation to the 16-bit range (integer clamp), as the low half.
#[inline(always)]
pub(super) fn sat_i16(v: i32) -> u32 {
    u32::from(v.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16)
}

#[inline]
pub(super) fn ldexp32(x: f32, n: i32) -> f32 {
    (f64::from(x) * 2f64.powi(n.clamp(-400, 400))) as f32
}

#[inline]
pub(super) fn ldexp64(x: f64, n: i32) -> f64 {
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

#[inline]
pub(super) fn frexp32(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (m, e) = frexp64(f64::from(x));
    (m as f32, e)
}

#[inline]
pub(super) fn frexp64(x: f64) -> (f64, i32) {
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

#[inline]
pub(super) fn fract32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}

#[inline]
pub(super) fn fract64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

#[inline]
pub(super) fn exp32(x: u32) -> i32 {
    ((x >> 23) & 0xff) as i32
}
#[inline]
pub(super) fn exp64(x: u64) -> i32 {
    ((x >> 52) & 0x7ff) as i32
}

pub(super) fn med3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
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
#[inline]
pub(super) fn fmed3(a: f32, b: f32, c: f32) -> f32 {
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
pub(super) fn minmax_bits<const EXP: u64, const QUIET: u64>(
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
    } else {
        ordered((x, a), (y, b), max)
    }
}

/// The smaller (`max`: larger) of two non-NaN values of one float format; for ±0 the sign
/// bits decide (−0 is below +0).
#[inline(always)]
fn ordered((x, a): (u64, f64), (y, b): (u64, f64), max: bool) -> u64 {
    if a == b {
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

/// GFX12's IEEE 754-2019 operations on the raw bits of one float format (`EXP`, `QUIET` as
/// for [`minmax_bits`]), as the RDNA4 ISA's pseudo-code gives them. `number` false:
/// `minimum`/`maximum` (`v_minimum_f32`, `s_maximum_f16`, …): a signaling NaN operand gives
/// it quieted (S0 first), then a quiet NaN operand gives itself (S0 first). `number` true:
/// `minimumNumber`/`maximumNumber` (`s_min_num_f32`, the `*_min_num_*` atomics): a NaN
/// operand gives the other operand, two NaNs give S0 quieted. Otherwise −0 is below +0.
#[inline(always)]
pub(super) fn ieee2019_bits<const EXP: u64, const QUIET: u64>(
    (x, a): (u64, f64),
    (y, b): (u64, f64),
    max: bool,
    number: bool,
) -> u64 {
    let snan = |v: u64| v & (EXP | QUIET) == EXP && v & (QUIET - 1) != 0;
    match (a.is_nan(), b.is_nan()) {
        (true, true) if number => x | QUIET,
        (true, _) if number => y,
        (_, true) if number => x,
        _ if snan(x) => x | QUIET,
        _ if snan(y) => y | QUIET,
        (true, _) => x,
        (_, true) => y,
        _ => ordered((x, a), (y, b), max),
    }
}

/// [`ieee2019_bits`] for f32.
#[inline(always)]
pub(super) fn ieee2019_32(x: u32, y: u32, max: bool, number: bool) -> u32 {
    let (x, y) = ((x.into(), f(x).into()), (y.into(), f(y).into()));
    ieee2019_bits::<0x7f80_0000, 0x0040_0000>(x, y, max, number) as u32
}

/// [`ieee2019_bits`] for f64.
#[inline(always)]
pub(super) fn ieee2019_64(x: u64, y: u64, max: bool, number: bool) -> u64 {
    ieee2019_bits::<{ 0x7ff0 << 48 }, { 1 << 51 }>((x, d(x)), (y, d(y)), max, number)
}

/// [`ieee2019_bits`] for f16 in the low halves (the result's high half is 0).
#[inline(always)]
pub(super) fn ieee2019_16(x: u32, y: u32, max: bool, number: bool) -> u32 {
    let (x, y) = (x & 0xffff, y & 0xffff);
    ieee2019_bits::<0x7c00, 0x0200>((x.into(), h(x)), (y.into(), h(y)), max, number) as u32
}

/// [`minmax_bits`] for f32.
#[inline(always)]
pub(super) fn minmax32(x: u32, y: u32, max: bool, ieee: bool) -> u32 {
    let (x, y) = ((x.into(), f(x).into()), (y.into(), f(y).into()));
    minmax_bits::<0x7f80_0000, 0x0040_0000>(x, y, max, ieee) as u32
}

/// [`minmax_bits`] for f64.
#[inline(always)]
pub(super) fn minmax64(x: u64, y: u64, max: bool, ieee: bool) -> u64 {
    minmax_bits::<{ 0x7ff0 << 48 }, { 1 << 51 }>((x, d(x)), (y, d(y)), max, ieee)
}

/// [`minmax_bits`] for f16 in the low halves (the result's high half is 0).
#[inline(always)]
pub(super) fn minmax16(x: u32, y: u32, max: bool, ieee: bool) -> u32 {
    let (x, y) = (x & 0xffff, y & 0xffff);
    minmax_bits::<0x7c00, 0x0200>((x.into(), h(x)), (y.into(), h(y)), max, ieee) as u32
}

/// `v_mad_f32` and its VOP2 forms: an unfused multiply-add that flushes f32 denormals in its
/// operands, its product and its result whatever MODE says (so LLVM selects it only when f32
/// denormals are flushed, and `llvm.amdgcn.fmad.ftz` always).
#[inline(always)]
pub(super) fn mad_ftz(x: u32, y: u32, z: u32) -> u32 {
    let (x, y, z) = (ftz32(x), ftz32(y), ftz32(z));
    let p = ftz32(src0_nan(x, y, u(f(x) * f(y))));
    ftz32(src0_nan(p, z, u(f(p) + f(z))))
}

/// `v_mad_f16` and its VOP2 forms: like [`mad_ftz`] for f16 (the result's high half is 0).
#[inline(always)]
pub(super) fn mad_ftz16(x: u32, y: u32, z: u32) -> u32 {
    let (x, y, z) = (ftz16(x), ftz16(y), ftz16(z));
    let p = ftz16(src0_nan16(x, y, hb(h(x) * h(y))));
    ftz16(src0_nan16(p, z, hb(h(p) + h(z))))
}

#[inline]
pub(super) fn class_bits(v: f64, is_snan: bool) -> u32 {
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

#[inline]
pub(super) fn f32_class(x: u32) -> u32 {
    let v = f(x);
    let snan = v.is_nan() && x & 0x0040_0000 == 0;
    if v.is_subnormal() {
        return if v.is_sign_negative() { 1 << 4 } else { 1 << 7 };
    }
    class_bits(f64::from(v), snan)
}
#[inline]
pub(super) fn f64_class(x: u64) -> u32 {
    let v = d(x);
    class_bits(v, v.is_nan() && x & (1 << 51) == 0)
}
#[inline]
pub(super) fn f16_class(x: u32) -> u32 {
    let v = f16::from_bits(x as u16);
    let snan = v.is_nan() && x & 0x200 == 0;
    if x & 0x7c00 == 0 && x & 0x3ff != 0 {
        return if v.is_sign_negative() { 1 << 4 } else { 1 << 7 };
    }
    class_bits(v.to_f64(), snan)
}

/// f32 → f16 with round toward zero (for `v_cvt_pkrtz_f16_f32`).
#[inline]
pub(super) fn f16_rtz(x: f32) -> u32 {
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
pub(super) fn pack_flags(flags: &[u8; LANES]) -> u64 {
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
pub(super) fn unpack_flags(mask: u64) -> [u8; LANES] {
    let mut flags = [0u8; LANES];
    for (k, chunk) in flags.chunks_exact_mut(8).enumerate() {
        let b = mask >> (8 * k) & 0xff;
        let x = b.wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
        let x = (x + 0x7f7f_7f7f_7f7f_7f7f) >> 7 & 0x0101_0101_0101_0101;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    flags
}

/// DPP8 (`v_*_dpp … dpp8:[…]`): lane `l` reads lane `sel[l % 8]` of its group of eight. A lane
/// reading an inactive lane gets 0 unless `fi` (fetch inactive) is set.
#[inline(never)]
pub(super) fn dpp8(row: &Row, ext: u32, exec: u64) -> Row {
    let fi = ext & DPP8_FI != 0;
    let mut out = [0u32; LANES];
    for l in 0..LANES {
        let s = (l & !7) | (ext >> (3 * (l & 7)) & 7) as usize;
        out[l] = if fi || exec >> s & 1 != 0 { row[s] } else { 0 };
    }
    out
}

/// The vocabulary every `valu_*` semantics part uses, defined once: `s0!()`..`s2!()` read a
/// source with its modifiers into scratch, `map1!`..`map3!` compute a row lane by lane into
/// `sc.r`, and `v32!`/`vf32!`/`vf16!`/`v64!`/`vf64!` write a result (the `f` forms through the
/// output modifiers). Invoked as `valu_prelude!($ w, c, sc, i)`: the leading `$` lets these
/// inner macros have metavariables of their own.
macro_rules! valu_prelude {
    ($d:tt $wv:ident, $cx:ident, $scr:ident, $ins:ident) => {
            macro_rules! s0 {
                () => {
                    $cx.s_into($wv, 0, &mut $scr.a)
                };
            }
            macro_rules! s1 {
                () => {
                    $cx.s_into($wv, 1, &mut $scr.b)
                };
            }
            macro_rules! s2 {
                () => {
                    $cx.s_into($wv, 2, &mut $scr.c)
                };
            }
            macro_rules! map1 {
                ($d a:expr, |$d x:ident| $d e:expr) => {{
                    let ta = $d a;
                    let a: &Row = as_row(&ta);
                    let r = &mut $scr.r;
                    $crate::wave::for_lanes!($wv.wave32, l, {
                        let $d x = a[l];
                        r[l] = $d e;
                    });
                    &*r
                }};
            }
            macro_rules! map2 {
                ($d a:expr, $d b:expr, |$d x:ident, $d y:ident| $d e:expr) => {{
                    let ta = $d a;
                    let a: &Row = as_row(&ta);
                    let tb = $d b;
                    let b: &Row = as_row(&tb);
                    let r = &mut $scr.r;
                    $crate::wave::for_lanes!($wv.wave32, l, {
                        let $d x = a[l];
                        let $d y = b[l];
                        r[l] = $d e;
                    });
                    &*r
                }};
            }
            macro_rules! map3 {
                ($d a:expr, $d b:expr, $d c:expr, |$d x:ident, $d y:ident, $d z:ident| $d e:expr) => {{
                    let ta = $d a;
                    let a: &Row = as_row(&ta);
                    let tb = $d b;
                    let b: &Row = as_row(&tb);
                    let tc = $d c;
                    let c3: &Row = as_row(&tc);
                    let r = &mut $scr.r;
                    $crate::wave::for_lanes!($wv.wave32, l, {
                        let $d x = a[l];
                        let $d y = b[l];
                        let $d z = c3[l];
                        r[l] = $d e;
                    });
                    &*r
                }};
            }
            macro_rules! v32 {
                ($d r:expr) => {{
                    let tr = $d r;
                    let r: &Row = as_row(&tr);
                    put($wv, $cx, r);
                }};
            }
            macro_rules! vf32 {
                ($d r:expr) => {{
                    let tr = $d r;
                    let r: &Row = as_row(&tr);
                    put_f32($wv, $cx, r, &mut $scr.o);
                }};
            }
            macro_rules! vf16 {
                ($d r:expr) => {{
                    let tr = $d r;
                    let r: &Row = as_row(&tr);
                    put_f16($wv, $cx, r, &mut $scr.o);
                }};
            }
            macro_rules! v64 {
                ($d r:expr) => {{
                    let r: Row64 = $d r;
                    $wv.vwrite64($ins.dst, &r, $cx.wmask);
                }};
            }
            macro_rules! vf64 {
                ($d r:expr) => {{
                    let mut r: Row64 = $d r;
                    put_f64($wv, $cx, &mut r);
                }};
            }
    };
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
