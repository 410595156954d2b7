//! The MODE register (amdgpu-execution.md §4.4) on real compiler output:
//! tests/kernels/cl/emu_mode.cl, compiled by clang-15 for gfx90a, gfx906, gfx803 and gfx1030 and
//! by clang-22 for gfx1100, gfx1151 and gfx1201 (testkit's recipe; wave32, and wave64 in the
//! denormal test), run on the emulator and checked against CPU references computed here.
//!
//! - `ftz_ops` runs under the kernel descriptor's MODE, built plainly (f32 denormals kept) and
//!   with `-cl-denorms-are-zero` (FLOAT_DENORM_MODE_32 = 0, checked in the descriptor); both
//!   with correctly rounded division and sqrt, so division is the v_div_scale/v_div_fmas
//!   sequence, bracketed by `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2)` in the flushing build.
//! - `mode_ops` writes MODE with `__builtin_amdgcn_s_setreg` first: every rounding direction
//!   and every FP_DENORM value for f32 and for f64/f16. Rust has no directed-rounding
//!   arithmetic, so directed results are checked against the exact value instead: the inputs
//!   are chosen so that each exact result is an integer multiple of 2^-k that fits in an i128,
//!   and a result must lie on the side of it the direction says with no value of its format in
//!   between (for nearest even: no neighbour closer, ties to the even one).
//! - `clamp_ieee_ops`: the clamp modifier with DX10_CLAMP on and off; min/max/canonicalize in
//!   IEEE and non-IEEE mode (expectations from the ISA's pseudo-code for V_MIN/V_MAX).
//! - `fp16_ovfl_ops`: FP16_OVFL (GFX9 and later).

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;
use half::f16;
use hsaemu_codeobject::CodeObject;

const KERNEL: &str = "cl/emu_mode.cl";
const CR_DIV_SQRT: &str = "-cl-fp32-correctly-rounded-divide-sqrt";
const DENORMS_ARE_ZERO: &str = "-cl-denorms-are-zero";
const KEEP_DENORMS: &str = "-fdenormal-fp-math=ieee";
/// MODE bits clang's kernels start with besides FP_ROUND/FP_DENORM.
const DX10: u32 = 1 << 8;
const IEEE: u32 = 1 << 9;

fn load(target: &str, extra: &[&str]) -> (Emu, Vec<u8>) {
    let (processor, target_extra) = compile_target(target);
    let extra: Vec<&str> = extra.iter().chain(target_extra).copied().collect();
    let path = hsaemu_testkit::compile_cl_with(KERNEL, processor, 5, &extra);
    let bytes = std::fs::read(&path).expect("read compiled kernel");
    (from_bytes(&bytes, processor, 5), bytes)
}

fn descriptor(bytes: &[u8], kernel: &str) -> hsaemu_codeobject::KernelDescriptor {
    CodeObject::parse(bytes)
        .expect("parse code object")
        .kernel_descriptor(&format!("{kernel}.kd"))
        .expect("kernel descriptor")
}

fn buf_u16(e: &Emu, v: &[u16]) -> Buf {
    e.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}

fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}
fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

/// Sign-preserving flushes of denormals (when `on`).
fn fl32(x: f32, on: bool) -> f32 {
    if on && x.is_subnormal() {
        0f32.copysign(x)
    } else {
        x
    }
}
fn fl64(x: f64, on: bool) -> f64 {
    if on && x.is_subnormal() {
        0f64.copysign(x)
    } else {
        x
    }
}
fn fl16(x: u16, on: bool) -> u16 {
    if on && x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}
fn h2f(x: u16) -> f64 {
    f16::from_bits(x).to_f64()
}
fn f2h(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}

/// V_MIN_F32/V_MAX_F32 on non-NaN values: −0 orders below +0.
fn min_hw(x: f32, y: f32) -> f32 {
    if x == y {
        f32::from_bits(x.to_bits() | y.to_bits())
    } else {
        x.min(y)
    }
}
fn max_hw(x: f32, y: f32) -> f32 {
    if x == y {
        f32::from_bits(x.to_bits() & y.to_bits())
    } else {
        x.max(y)
    }
}

/// f32 values for the flushing tests: denormals (a fifth), tiny normals, values whose
/// products with the others are denormal, zeros and ordinary values.
fn denormalish32(rng: &mut Rng) -> f32 {
    let r = rng.next_u32();
    let sign = r & 0x8000_0000;
    let mant = rng.next_u32() & 0x007f_ffff;
    let exp: u32 = match r % 5 {
        0 => 0,
        1 => 1 + r % 3,
        2 => 127 - 60 + (r >> 8) % 20,
        3 if r & 0x100 != 0 => return f32::from_bits(sign),
        _ => 127 - 10 + (r >> 8) % 20,
    };
    f32::from_bits(sign | exp << 23 | mant)
}
fn denormalish64(rng: &mut Rng) -> f64 {
    let r = rng.next_u32();
    let sign = u64::from(r & 0x8000_0000) << 32;
    let mant = (u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32())) & ((1 << 52) - 1);
    let exp: u64 = match r % 4 {
        0 => 0,
        1 => u64::from(1 + r % 3),
        2 => 1023 - 540 + u64::from((r >> 8) % 20),
        _ => 1023 - 10 + u64::from((r >> 8) % 20),
    };
    f64::from_bits(sign | exp << 52 | mant)
}
/// f16 values at most 2^-9 in magnitude (f16 fma is then exact in f64, for the reference).
fn denormalish16(rng: &mut Rng) -> u16 {
    let r = rng.next_u32();
    let sign = (r >> 16) as u16 & 0x8000;
    let mant = r as u16 & 0x3ff;
    let exp: u16 = match r % 3 {
        0 => 0,
        1 => 1 + (r >> 20) as u16 % 2,
        _ => 4 + (r >> 20) as u16 % 2,
    };
    sign | exp << 10 | mant
}

#[test]
fn ftz_kernel_descriptor_mode_flushes_f32_denormals() {
    // Half the lanes mostly denormal or near it, half any finite f32 (quotients over the
    // whole range for the division sequence).
    let n = 2048usize;
    let mut rng = Rng(0x5eed);
    let mut pick = |l: usize| {
        if l < n / 2 {
            denormalish32(&mut rng)
        } else {
            loop {
                let v = f32::from_bits(rng.next_u32() ^ rng.next_u32() << 7);
                if v.is_finite() {
                    break v;
                }
            }
        }
    };
    let mut a: Vec<f32> = (0..n).map(&mut pick).collect();
    let mut b: Vec<f32> = (0..n).map(&mut pick).collect();
    let c: Vec<f32> = (0..n).map(&mut pick).collect();
    // Quotients in the denormal range (rounded once by v_div_fmas) and exact denormal results.
    let fixed: [(f32, f32); 6] = [
        (1e-38, 3.0),
        (-1e-38, 7.0),
        (f32::MIN_POSITIVE, 2.0),
        (1.5e-39, 1.0),
        (3.0, 1e-40),
        (1e-45, -1e-45),
    ];
    for (k, (x, y)) in fixed.iter().enumerate() {
        a[k] = *x;
        b[k] = *y;
    }
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        // clang's default keeps f32 denormals where the target has fast f32 denormal support
        // (gfx906, gfx90a) and flushes them on gfx803; -fdenormal-fp-math=ieee keeps them and
        // -cl-denorms-are-zero flushes them everywhere.
        let builds: [(&[&str], bool); 3] = [
            (&[CR_DIV_SQRT], t == "gfx803"),
            (&[CR_DIV_SQRT, KEEP_DENORMS], false),
            (&[CR_DIV_SQRT, DENORMS_ARE_ZERO], true),
        ];
        for (flags, ftz) in builds {
            let (e, bytes) = load(t, flags);
            let kd = descriptor(&bytes, "ftz_ops");
            assert_eq!(
                kd.float_denorm_mode_32(),
                if ftz { 0 } else { 3 },
                "{t} {flags:?}"
            );
            assert_eq!(kd.float_denorm_mode_16_64(), 3, "{t} {flags:?}");
            let (ba, bb, bc) = (e.buf_f32(&a), e.buf_f32(&b), e.buf_f32(&c));
            let (bo, b64, b16, bi) = (
                e.zeros(4 * 12 * n),
                e.zeros(8 * n),
                e.zeros(2 * n),
                e.zeros(4 * 4 * n),
            );
            e.run1(
                "ftz_ops",
                &[
                    Arg::Ptr(&ba),
                    Arg::Ptr(&bb),
                    Arg::Ptr(&bc),
                    Arg::Ptr(&bo),
                    Arg::Ptr(&b64),
                    Arg::Ptr(&b16),
                    Arg::Ptr(&bi),
                ],
                n as u32,
                64,
            );
            let (o, o64, o16, oi) = (bo.f32s(), b64.f64s(), b16.u16s(), bi.i32s());
            for l in 0..n {
                let fl = |v: f32| fl32(v, ftz);
                let (x, y, z) = (fl(a[l]), fl(b[l]), fl(c[l]));
                let want = [
                    fl(x + y),
                    fl(x - y),
                    fl(x * y),
                    fl(x.mul_add(y, z)),
                    fl(x / y),
                    fl(x.abs().sqrt()),
                    min_hw(x, y),
                    max_hw(x, y),
                    fl(fl(x * y) + z),
                    x,
                    x.floor(),
                    fl(x * 2f32.powi(-60)),
                ];
                let what = [
                    "x+y", "x-y", "x*y", "fma", "x/y", "sqrt", "fmin", "fmax", "x*y+z", "canon",
                    "floor", "x*2^-60",
                ];
                for k in 0..12 {
                    let got = o[l * 12 + k];
                    assert!(
                        same32(got, want[k]),
                        "{t} ftz={ftz} lane {l} {}: x={:e} ({:#x}) y={:e} z={:e}: got {got:e} ({:#x}) want {:e} ({:#x})",
                        what[k],
                        a[l],
                        a[l].to_bits(),
                        b[l],
                        c[l],
                        got.to_bits(),
                        want[k],
                        want[k].to_bits()
                    );
                }
                assert_eq!(
                    o64[l].to_bits(),
                    f64::from(x).to_bits(),
                    "{t} {ftz} lane {l} (double)x"
                );
                assert_eq!(
                    o16[l],
                    f16::from_f32(x).to_bits(),
                    "{t} {ftz} lane {l} vstore_half"
                );
                let want_i = [
                    i32::from(x < y),
                    i32::from(x == 0.0),
                    // v_cmp_class tests the raw operand: denormals are seen even when flushed.
                    i32::from(a[l].is_subnormal()),
                    x.floor() as i32,
                ];
                for k in 0..4 {
                    assert_eq!(
                        oi[l * 4 + k],
                        want_i[k],
                        "{t} ftz={ftz} lane {l} int op {k}: x={:e} y={:e}",
                        a[l],
                        b[l]
                    );
                }
            }
        }
    }
}

#[test]
fn f64_division_over_the_whole_range() {
    let n = 4096usize;
    let mut rng = Rng(0xd1d);
    let mut pick = || loop {
        let v = f64::from_bits(u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32()));
        if v.is_finite() {
            break v;
        }
    };
    let mut a: Vec<f64> = (0..n).map(|_| pick()).collect();
    let b: Vec<f64> = (0..n).map(|_| pick()).collect();
    // Denormal and near-overflow quotients.
    for l in 0..n / 8 {
        a[l] = b[l] * f64::from_bits((u64::from(rng.next_u32()) % 0x0010_0000) << 32);
    }
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let (e, _) = load(t, &[]);
        let (ba, bb, bo) = (e.buf_f64(&a), e.buf_f64(&b), e.zeros(8 * n));
        e.run1(
            "div64",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.f64s();
        for l in 0..n {
            let want = a[l] / b[l];
            assert!(
                same64(o[l], want),
                "{t} lane {l}: {:e} / {:e} = {:e}, want {want:e}",
                a[l],
                b[l],
                o[l]
            );
        }
    }
}

/// `v × 2^k` as an exact integer, or `None` when it is not one.
fn scale_exact(neg: bool, mant: u64, exp: i32, k: i32) -> Option<i128> {
    let s = exp + k;
    let m = i128::from(mant);
    let v = if s >= 0 {
        assert!(
            64 - mant.leading_zeros() as i32 + s < 127,
            "scaled value too wide"
        );
        m << s
    } else if s <= -64 {
        if mant != 0 {
            return None;
        }
        0
    } else if m & ((1i128 << -s) - 1) != 0 {
        return None;
    } else {
        m >> -s
    };
    Some(if neg { -v } else { v })
}

/// A finite value of a binary format, decoded: (negative, significand, exponent).
fn decode(bits: u64, frac: u32, exp_bits: u32) -> (bool, u64, i32) {
    let bias = (1i32 << (exp_bits - 1)) - 1;
    let e = (bits >> frac & ((1 << exp_bits) - 1)) as i32;
    let m = bits & ((1 << frac) - 1);
    let neg = bits >> (frac + exp_bits) & 1 != 0;
    if e == 0 {
        (neg, m, 1 - bias - frac as i32)
    } else {
        (neg, m | 1 << frac, e - bias - frac as i32)
    }
}

/// A binary format as (fraction bits, exponent bits).
type Format = (u32, u32);
/// The formats of the rounding checks.
const B32: Format = (23, 8);
const B64: Format = (52, 11);
const B16: Format = (10, 5);
/// A conversion check: what, result bits, result format, exact value × 2^k, k.
type Conversion = (&'static str, u64, Format, i128, i32);

/// Whether `r` (bits of format `fmt`, finite) is the exact value `n × 2^-k` rounded in
/// direction `rm` (0 nearest even, 1 up, 2 down, 3 toward zero).
fn rounds_to(r: u64, fmt: Format, n: i128, k: i32, rm: u32) -> bool {
    let scaled = |b: u64| {
        let (neg, m, e) = decode(b, fmt.0, fmt.1);
        scale_exact(neg, m, e, k)
    };
    let Some(rv) = scaled(r) else {
        return false;
    };
    if rv == n {
        return true;
    }
    // Inexact: the exact value has more significant bits than the format, so r and its
    // neighbours are multiples of 2^-k too. Neighbours by magnitude step, sign-aware.
    let sign = 1u64 << (fmt.0 + fmt.1);
    let mag = r & !sign;
    let inf = ((1u64 << fmt.1) - 1) << fmt.0;
    let step = |m: u64| -> Option<i128> {
        if m >= inf {
            None
        } else {
            scaled(r & sign | m)
        }
    };
    let (toward0, away) = (if mag == 0 { None } else { step(mag - 1) }, step(mag + 1));
    let neg = r & sign != 0;
    let (below, above) = if neg {
        (away, toward0)
    } else {
        (toward0, away)
    };
    match rm {
        1 => rv > n && below.is_none_or(|b| b < n),
        2 => rv < n && above.is_none_or(|a| a > n),
        3 if n >= 0 => rv < n && above.is_none_or(|a| a > n),
        3 => rv > n && below.is_none_or(|b| b < n),
        _ => {
            let d = (rv - n).abs();
            let even = r & 1 == 0;
            [below, above]
                .into_iter()
                .flatten()
                .all(|v| (v - n).abs() > d || (v - n).abs() == d && even)
        }
    }
}

/// An f32 with a random significand and exponent in [-12, 11] (sums, products and fmas of
/// these are exact multiples of 2^-70 below 2^27).
fn pick32(rng: &mut Rng) -> f32 {
    let r = rng.next_u32();
    let e = 127 - 12 + (r >> 24) % 24;
    f32::from_bits(r & 0x8000_0000 | e << 23 | rng.next_u32() & 0x007f_ffff)
}
/// An f64 with a 41-bit significand and exponent in [-8, 8] (exact multiples of 2^-48, so
/// products and fmas are multiples of 2^-96 below 2^19).
fn pick64(rng: &mut Rng) -> f64 {
    let r = rng.next_u32();
    let e = u64::from(1023 - 8 + (r >> 24) % 17);
    let m = (u64::from(rng.next_u32()) << 8 | u64::from(r & 0xff)) & ((1 << 40) - 1);
    f64::from_bits(u64::from(r & 0x8000_0000) << 32 | e << 52 | m << 12)
}
/// An f16 with exponent in [-6, 6] (exact multiples of 2^-32).
fn pick16(rng: &mut Rng) -> u16 {
    let r = rng.next_u32();
    let e = 15 - 6 + (r >> 24) as u16 % 13;
    (r >> 16) as u16 & 0x8000 | e << 10 | r as u16 & 0x3ff
}

fn exact32(x: f32, k: i32) -> i128 {
    let (neg, m, e) = decode(u64::from(x.to_bits()), 23, 8);
    scale_exact(neg, m, e, k).expect("input is a multiple of 2^-k")
}
fn exact64(x: f64, k: i32) -> i128 {
    let (neg, m, e) = decode(x.to_bits(), 52, 11);
    scale_exact(neg, m, e, k).expect("input is a multiple of 2^-k")
}
fn exact16(x: u16, k: i32) -> i128 {
    let (neg, m, e) = decode(u64::from(x), 10, 5);
    scale_exact(neg, m, e, k).expect("input is a multiple of 2^-k")
}

/// `mode_ops` writes F f32, 6 f64 and H f16 results per work-item.
const F: usize = 17;
const H: usize = 12;

/// Runs `mode_ops` with MODE = `mode` and returns its f32, f64 and f16 outputs.
#[allow(clippy::too_many_arguments)]
fn run_mode_ops(
    e: &Emu,
    a: &[f32],
    b: &[f32],
    c: &[f32],
    da: &[f64],
    db: &[f64],
    dc: &[f64],
    ha: &[u16],
    hb: &[u16],
    hc: &[u16],
    ia: &[i32],
    mode: u32,
) -> (Vec<f32>, Vec<f64>, Vec<u16>) {
    let n = a.len();
    let (ba, bb, bc) = (e.buf_f32(a), e.buf_f32(b), e.buf_f32(c));
    let (bda, bdb, bdc) = (e.buf_f64(da), e.buf_f64(db), e.buf_f64(dc));
    let (bha, bhb, bhc) = (buf_u16(e, ha), buf_u16(e, hb), buf_u16(e, hc));
    let bia = e.buf_i32(ia);
    let (bo, bo64, bo16) = (e.zeros(4 * F * n), e.zeros(8 * 6 * n), e.zeros(2 * H * n));
    e.run1(
        "mode_ops",
        &[
            Arg::Ptr(&ba),
            Arg::Ptr(&bb),
            Arg::Ptr(&bc),
            Arg::Ptr(&bda),
            Arg::Ptr(&bdb),
            Arg::Ptr(&bdc),
            Arg::Ptr(&bha),
            Arg::Ptr(&bhb),
            Arg::Ptr(&bhc),
            Arg::Ptr(&bia),
            Arg::Ptr(&bo),
            Arg::Ptr(&bo64),
            Arg::Ptr(&bo16),
            Arg::U32(mode),
            Arg::U32(0),
        ],
        n as u32,
        64,
    );
    (bo.f32s(), bo64.f64s(), bo16.u16s())
}

#[test]
fn rounding_modes_written_by_s_setreg() {
    let n = 512usize;
    let mut rng = Rng(0xabcdef);
    let mut a: Vec<f32> = (0..n).map(|_| pick32(&mut rng)).collect();
    let mut b: Vec<f32> = (0..n).map(|_| pick32(&mut rng)).collect();
    let c: Vec<f32> = (0..n).map(|_| pick32(&mut rng)).collect();
    let mut da: Vec<f64> = (0..n).map(|_| pick64(&mut rng)).collect();
    let mut db: Vec<f64> = (0..n).map(|_| pick64(&mut rng)).collect();
    let dc: Vec<f64> = (0..n).map(|_| pick64(&mut rng)).collect();
    let mut ha: Vec<u16> = (0..n).map(|_| pick16(&mut rng)).collect();
    let mut hb: Vec<u16> = (0..n).map(|_| pick16(&mut rng)).collect();
    let hc: Vec<u16> = (0..n).map(|_| pick16(&mut rng)).collect();
    let ia: Vec<i32> = (0..n)
        .map(|_| rng.next_u32() as i32 >> (rng.next_u32() % 8))
        .collect();
    // Lanes 0-3 overflow and underflow (checked separately).
    (a[0], b[0]) = (f32::MAX, 2.0);
    (a[1], b[1]) = (2f32.powi(-100), 2f32.powi(-60));
    (a[2], b[2]) = (-(2f32.powi(-100)), 2f32.powi(-60));
    (ha[3], hb[3]) = (0x7bff, 0x7bff);
    (da[3], db[3]) = (f64::MAX, 2.0);
    let special = 4;
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let (e, _) = load(t, &[]);
        for rm in 0..4u32 {
            let mode = rm | rm << 2 | 0xf0 | DX10 | IEEE;
            let (o, o64, o16) =
                run_mode_ops(&e, &a, &b, &c, &da, &db, &dc, &ha, &hb, &hc, &ia, mode);
            // Overflow gives ∞ or the largest finite value; underflow 0 or the smallest denormal.
            let (up, down, zero) = (rm == 1, rm == 2, rm == 3);
            let want_max = if up || rm == 0 {
                f32::INFINITY
            } else {
                f32::MAX
            };
            assert_eq!(o[2], want_max, "{t} rm={rm} MAX*2");
            let tiny = f32::from_bits(1);
            assert_eq!(
                o[F + 2].to_bits(),
                if up { tiny } else { 0.0 }.to_bits(),
                "{t} rm={rm} 2^-160"
            );
            assert_eq!(
                o[2 * F + 2].to_bits(),
                if down { -tiny } else { -0.0 }.to_bits(),
                "{t} rm={rm} -2^-160"
            );
            let h_over = if down || zero { 0x7bff } else { 0x7c00 };
            assert_eq!(o16[3 * H], h_over, "{t} rm={rm} f16 MAX+MAX");
            let d_over = if down || zero {
                f64::MAX
            } else {
                f64::INFINITY
            };
            assert_eq!(o64[3 * 6 + 1], d_over, "{t} rm={rm} f64 MAX*2");
            for l in special..n {
                let (x, y, z) = (a[l], b[l], c[l]);
                let k = 70;
                let (xk, yk, zk) = (exact32(x, k), exact32(y, k), exact32(z, k));
                let xy = exact32(x, 35) * exact32(y, 35);
                let checks: [(&str, i128, f32); 4] = [
                    ("x+y", xk + yk, o[l * F]),
                    ("x-y", xk - yk, o[l * F + 1]),
                    ("x*y", xy, o[l * F + 2]),
                    ("fma", xy + zk, o[l * F + 3]),
                ];
                for (what, exact, got) in checks {
                    assert!(
                        rounds_to(u64::from(got.to_bits()), B32, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: x={x:e} y={y:e} z={z:e} got {got:e}"
                    );
                }
                // float2 (v_pk_*_f32 on gfx90a): (x+y, y+z), (x*y, y*z), (fma(x,y,x), fma(y,z,y)).
                let yz = exact32(y, 35) * exact32(z, 35);
                let pk: [(&str, i128); 6] = [
                    ("pk x+y", xk + yk),
                    ("pk y+z", yk + zk),
                    ("pk x*y", xy),
                    ("pk y*z", yz),
                    ("pk fma(x,y,x)", xy + xk),
                    ("pk fma(y,z,y)", yz + yk),
                ];
                for (j, (what, exact)) in pk.into_iter().enumerate() {
                    let got = o[l * F + 11 + j];
                    assert!(
                        rounds_to(u64::from(got.to_bits()), B32, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: x={x:e} y={y:e} z={z:e} got {got:e}"
                    );
                }
                // native_recip (v_rcp_f32, modelled correctly rounded): r against 1/x through
                // r·x − 1, exactly (r at 2^-36, x at 2^-35).
                let r = o[l * F + 10];
                let xs = exact32(x, 35);
                let one = 1i128 << 71;
                let side = |v: f32| ((exact32(v, 36) * xs - one).signum()) * xs.signum();
                let dist = |v: f32| (exact32(v, 36) * xs - one).abs();
                let ok = match rm {
                    1 => side(r) >= 0 && side(r.next_down()) < 0,
                    2 => side(r) <= 0 && side(r.next_up()) > 0,
                    3 if x > 0.0 => side(r) <= 0 && side(r.next_up()) > 0,
                    3 => side(r) >= 0 && side(r.next_down()) < 0,
                    _ => dist(r) < dist(r.next_up()) && dist(r) < dist(r.next_down()),
                };
                assert!(ok, "{t} rm={rm} lane {l} 1/{x:e} = {r:e}");
                // x*y + z unfused: the product rounded first (the kernel's v_mul_f32).
                let p = o[l * F + 4];
                let prod = {
                    // The product as the kernel rounded it, found from the fma check above.
                    let mut found = None;
                    for cand in [x * y, (x * y).next_up(), (x * y).next_down()] {
                        if rounds_to(u64::from(cand.to_bits()), B32, xy, k, rm) {
                            found = Some(cand);
                        }
                    }
                    found.expect("a rounded product")
                };
                assert!(
                    rounds_to(u64::from(p.to_bits()), B32, exact32(prod, k) + zk, k, rm),
                    "{t} rm={rm} lane {l} x*y+z: got {p:e}"
                );
                // sqrt(|x|): r² against |x| exactly (r at 2^-30, |x| at 2^-60).
                let s = o[l * F + 5];
                let xs = exact32(x.abs(), 60);
                let r = exact32(s, 30);
                let (lo, hi) = (exact32(s.next_down(), 30), exact32(s.next_up(), 30));
                let ok = match rm {
                    1 => r * r >= xs && lo * lo < xs,
                    2 | 3 => r * r <= xs && hi * hi > xs,
                    _ => (r + lo) * (r + lo) < 4 * xs && (r + hi) * (r + hi) > 4 * xs,
                };
                assert!(ok, "{t} rm={rm} lane {l} sqrt({:e}) = {s:e}", x.abs());
                let conv: [Conversion; 5] = [
                    (
                        "(float)dx",
                        u64::from(o[l * F + 6].to_bits()),
                        B32,
                        exact64(da[l], 48),
                        48,
                    ),
                    (
                        "(float)n",
                        u64::from(o[l * F + 7].to_bits()),
                        B32,
                        i128::from(ia[l]),
                        0,
                    ),
                    (
                        "(float)(uint)n",
                        u64::from(o[l * F + 8].to_bits()),
                        B32,
                        i128::from(ia[l] as u32),
                        0,
                    ),
                    (
                        "vstore_half",
                        u64::from(o16[l * H + 4]),
                        B16,
                        exact32(x, 35),
                        35,
                    ),
                    (
                        "(float)hx",
                        u64::from(o[l * F + 9].to_bits()),
                        B32,
                        exact16(ha[l], 24),
                        24,
                    ),
                ];
                for (what, got, fmt, exact, k) in conv {
                    assert!(
                        rounds_to(got, fmt, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: got {got:#x}"
                    );
                }
                // f64: add, mul, fma, sub at 2^-96.
                let k = 96;
                let (dxk, dyk, dzk) = (exact64(da[l], k), exact64(db[l], k), exact64(dc[l], k));
                let dxy = exact64(da[l], 48) * exact64(db[l], 48);
                let checks: [(&str, i128, f64); 4] = [
                    ("dx+dy", dxk + dyk, o64[l * 6]),
                    ("dx*dy", dxy, o64[l * 6 + 1]),
                    ("fma64", dxy + dzk, o64[l * 6 + 2]),
                    ("dx-dy", dxk - dyk, o64[l * 6 + 5]),
                ];
                for (what, exact, got) in checks {
                    assert!(
                        rounds_to(got.to_bits(), B64, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: {:e} {:e} {:e} got {got:e}",
                        da[l],
                        db[l],
                        dc[l]
                    );
                }
                assert_eq!(o64[l * 6 + 4], f64::from(x), "{t} lane {l} (double)x");
                // f16: add, mul, fma, sub at 2^-32.
                let k = 32;
                let (hx, hy, hz) = (exact16(ha[l], k), exact16(hb[l], k), exact16(hc[l], k));
                let hxy = exact16(ha[l], 16) * exact16(hb[l], 16);
                let checks: [(&str, i128, u16); 4] = [
                    ("hx+hy", hx + hy, o16[l * H]),
                    ("hx*hy", hxy, o16[l * H + 1]),
                    ("fma16", hxy + hz, o16[l * H + 2]),
                    ("hx-hy", hx - hy, o16[l * H + 3]),
                ];
                for (what, exact, got) in checks {
                    assert!(
                        rounds_to(u64::from(got), B16, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: {:e} {:e} {:e} got {:e}",
                        h2f(ha[l]),
                        h2f(hb[l]),
                        h2f(hc[l]),
                        h2f(got)
                    );
                }
                assert_eq!(o16[l * H + 5], ha[l], "{t} lane {l} (half)(float)hx");
                let hyz = exact16(hb[l], 16) * exact16(hc[l], 16);
                let pk: [(&str, i128); 6] = [
                    ("pk hx+hy", hx + hy),
                    ("pk hy+hz", hy + hz),
                    ("pk hx*hy", hxy),
                    ("pk hy*hz", hyz),
                    ("pk fma(hx,hy,hx)", hxy + hx),
                    ("pk fma(hy,hz,hy)", hyz + hy),
                ];
                for (j, (what, exact)) in pk.into_iter().enumerate() {
                    let got = o16[l * H + 6 + j];
                    assert!(
                        rounds_to(u64::from(got), B16, exact, k, rm),
                        "{t} rm={rm} lane {l} {what}: got {:e}",
                        h2f(got)
                    );
                }
            }
        }
    }
}

#[test]
fn denormal_modes_written_by_s_setreg() {
    let n = 512usize;
    let mut rng = Rng(0xd3d0);
    let a: Vec<f32> = (0..n).map(|_| denormalish32(&mut rng)).collect();
    let b: Vec<f32> = (0..n).map(|_| denormalish32(&mut rng)).collect();
    let c: Vec<f32> = (0..n).map(|_| denormalish32(&mut rng)).collect();
    let da: Vec<f64> = (0..n).map(|_| denormalish64(&mut rng)).collect();
    let db: Vec<f64> = (0..n).map(|_| denormalish64(&mut rng)).collect();
    let dc: Vec<f64> = (0..n).map(|_| denormalish64(&mut rng)).collect();
    let ha: Vec<u16> = (0..n).map(|_| denormalish16(&mut rng)).collect();
    let hb: Vec<u16> = (0..n).map(|_| denormalish16(&mut rng)).collect();
    let hc: Vec<u16> = (0..n).map(|_| denormalish16(&mut rng)).collect();
    let ia: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let (e, bytes) = load(t, &[]);
        // Where the kernel is compiled for flushed f32 denormals (gfx803's default), clang
        // computes x*y+z with v_mac_f32, which flushes whatever MODE says.
        let mac = descriptor(&bytes, "mode_ops").float_denorm_mode_32() == 0;
        assert_eq!(mac, t == "gfx803", "{t}");
        // FP_DENORM values: 0 flush in and out, 1 flush out, 2 flush in, 3 keep.
        for (d32, d64) in [(0, 3), (1, 3), (2, 3), (3, 0), (3, 1), (3, 2), (0, 0)] {
            let mode = d32 << 4 | d64 << 6 | DX10 | IEEE;
            let (o, o64, o16) =
                run_mode_ops(&e, &a, &b, &c, &da, &db, &dc, &ha, &hb, &hc, &ia, mode);
            let (in32, out32) = (d32 & 1 == 0, d32 & 2 == 0);
            let (in64, out64) = (d64 & 1 == 0, d64 & 2 == 0);
            for l in 0..n {
                let (x, y, z) = (fl32(a[l], in32), fl32(b[l], in32), fl32(c[l], in32));
                let o32 = |v: f32| fl32(v, out32);
                let want = [
                    o32(x + y),
                    o32(x - y),
                    o32(x * y),
                    o32(x.mul_add(y, z)),
                    if mac {
                        let (x, y, z) = (fl32(a[l], true), fl32(b[l], true), fl32(c[l], true));
                        fl32(fl32(x * y, true) + z, true)
                    } else {
                        // v_mul_f32 then v_add_f32: the product is flushed on the way out and in.
                        o32(fl32(o32(x * y), in32) + z)
                    },
                    o32(x.abs().sqrt()),
                    o32(fl64(da[l], in64) as f32),
                    ia[l] as f32,
                    ia[l] as u32 as f32,
                    h2f(fl16(ha[l], in64)) as f32,
                    o32(1.0 / x),
                    o32(x + y),
                    o32(y + z),
                    o32(x * y),
                    o32(y * z),
                    o32(x.mul_add(y, x)),
                    o32(y.mul_add(z, y)),
                ];
                for k in 0..F {
                    assert!(
                        same32(o[l * F + k], want[k]),
                        "{t} mode={mode:#x} lane {l} f32 op {k}: x={:e} y={:e} z={:e} got {:e} want {:e}",
                        a[l],
                        b[l],
                        c[l],
                        o[l * F + k],
                        want[k]
                    );
                }
                let (dx, dy, dz) = (fl64(da[l], in64), fl64(db[l], in64), fl64(dc[l], in64));
                let o64f = |v: f64| fl64(v, out64);
                let want64 = [
                    (0, o64f(dx + dy)),
                    (1, o64f(dx * dy)),
                    (2, o64f(dx.mul_add(dy, dz))),
                    (4, f64::from(x)),
                    (5, o64f(dx - dy)),
                ];
                for (k, w) in want64 {
                    assert!(
                        same64(o64[l * 6 + k], w),
                        "{t} mode={mode:#x} lane {l} f64 op {k}: {:e} {:e} {:e} got {:e} want {w:e}",
                        da[l],
                        db[l],
                        dc[l],
                        o64[l * 6 + k]
                    );
                }
                let (hx, hy, hz) = (
                    h2f(fl16(ha[l], in64)),
                    h2f(fl16(hb[l], in64)),
                    h2f(fl16(hc[l], in64)),
                );
                let o16f = |v: f64| fl16(f2h(v), out64);
                let want16 = [
                    o16f(hx + hy),
                    o16f(hx * hy),
                    o16f(hx.mul_add(hy, hz)),
                    o16f(hx - hy),
                    fl16(f16::from_f32(x).to_bits(), out64),
                    0, // (half)(float)hx: not checked here
                    o16f(hx + hy),
                    o16f(hy + hz),
                    o16f(hx * hy),
                    o16f(hy * hz),
                    o16f(hx.mul_add(hy, hx)),
                    o16f(hy.mul_add(hz, hy)),
                ];
                for k in (0..H).filter(|&k| k != 5) {
                    assert_eq!(
                        o16[l * H + k],
                        want16[k],
                        "{t} mode={mode:#x} lane {l} f16 op {k}: {:e} {:e} {:e} (x={:e})",
                        h2f(ha[l]),
                        h2f(hb[l]),
                        h2f(hc[l]),
                        a[l]
                    );
                }
            }
        }
    }
}

#[test]
fn dx10_clamp_and_ieee_mode() {
    let qnan = f32::from_bits(0x7fc0_0000);
    let snan = f32::from_bits(0x7fa0_0000);
    let lanes: [(f32, f32); 7] = [
        (qnan, 1.0),
        (snan, 2.0),
        (f32::INFINITY, f32::NEG_INFINITY),
        (0.25, 0.5),
        (3.0, -5.0),
        (2.0, 0.75),
        (-0.0, 0.0),
    ];
    let a: Vec<f32> = lanes.iter().map(|p| p.0).collect();
    let b: Vec<f32> = lanes.iter().map(|p| p.1).collect();
    let to16 = |x: f32| {
        if x.to_bits() == snan.to_bits() {
            0x7d00 // f16 signaling NaN
        } else {
            f16::from_f32(x).to_bits()
        }
    };
    let ha: Vec<u16> = a.iter().map(|&x| to16(x)).collect();
    let hb: Vec<u16> = b.iter().map(|&x| to16(x)).collect();
    // f64 inputs: the same values, the signaling NaN as an f64 one (widening would quiet it).
    let da: Vec<f64> = a
        .iter()
        .map(|&x| {
            if x.to_bits() == snan.to_bits() {
                f64::from_bits(0x7ff4 << 48)
            } else {
                f64::from(x)
            }
        })
        .collect();
    let db: Vec<f64> = b.iter().map(|&x| f64::from(x)).collect();
    let n = lanes.len();
    // GFX12 has no DX10_CLAMP or IEEE mode (its descriptor reserves both bits and its min/max
    // are the IEEE 754-2019 *_num/minimum/maximum forms), so it is not in this test.
    for t in TARGETS.into_iter().chain(["gfx1100", "gfx1151"]) {
        let (e, _) = load(t, &[]);
        for (dx10, ieee) in [(true, true), (false, true), (true, false), (false, false)] {
            let mode = 0xf0 | if dx10 { DX10 } else { 0 } | if ieee { IEEE } else { 0 };
            let (ba, bb, bha, bhb, bda, bdb) = (
                e.buf_f32(&a),
                e.buf_f32(&b),
                buf_u16(&e, &ha),
                buf_u16(&e, &hb),
                e.buf_f64(&da),
                e.buf_f64(&db),
            );
            let (bo, bo16, bo64) = (e.zeros(4 * 5 * n), e.zeros(2 * 2 * n), e.zeros(8 * 2 * n));
            e.run1(
                "clamp_ieee_ops",
                &[
                    Arg::Ptr(&ba),
                    Arg::Ptr(&bb),
                    Arg::Ptr(&bha),
                    Arg::Ptr(&bhb),
                    Arg::Ptr(&bda),
                    Arg::Ptr(&bdb),
                    Arg::Ptr(&bo),
                    Arg::Ptr(&bo16),
                    Arg::Ptr(&bo64),
                    Arg::U32(mode),
                    Arg::U32(0),
                ],
                n as u32,
                64,
            );
            let (o, o16, o64) = (bo.u32s(), bo16.u16s(), bo64.f64s());
            let ctx = format!("{t} dx10={dx10} ieee={ieee}");
            // The clamp output modifier: NaN becomes 0 only with DX10_CLAMP.
            let clamp = |v: f32| {
                if v.is_nan() {
                    if dx10 {
                        0.0
                    } else {
                        v
                    }
                } else {
                    v.clamp(0.0, 1.0)
                }
            };
            for l in 0..n {
                let (x, y) = (a[l], b[l]);
                let got = |k: usize| f32::from_bits(o[l * 5 + k]);
                assert!(
                    same32(got(0), clamp(x + y)),
                    "{ctx} lane {l} clamp(x+y) = {:e}",
                    got(0)
                );
                assert!(
                    same32(got(4), clamp(x * y)),
                    "{ctx} lane {l} clamp(x*y) = {:e}",
                    got(4)
                );
                // clamp(f64).
                let w64 = clamp((da[l] + db[l]) as f32);
                assert!(
                    same64(o64[l], f64::from(w64)),
                    "{ctx} lane {l} clamp64 = {:e}",
                    o64[l]
                );
                // f16 clamp: a modifier on GFX9; on gfx803 clang clamps with v_max_f16/v_min_f16,
                // where a NaN operand gives the other operand (0) whatever DX10_CLAMP says.
                let s16 = h2f(ha[l]) + h2f(hb[l]);
                let w16 = if s16.is_nan() && t == "gfx803" {
                    0.0
                } else {
                    clamp(s16 as f32)
                };
                let g16 = h2f(o16[l * 2]);
                assert!(
                    g16.to_bits() == f64::from(w16).to_bits() || g16.is_nan() && w16.is_nan(),
                    "{ctx} lane {l} clamp16 = {g16:e}"
                );
            }
            // canonicalize: GFX9 compiles it to v_max_f32 x, x, which quiets a signaling NaN in
            // IEEE mode only (otherwise a NaN S0 gives S1, the same signaling NaN); gfx803 to
            // v_mul_f32 1.0, x, whose arithmetic quiets it in either mode.
            let quiet_snan = ieee || t == "gfx803";
            let want_canon = if quiet_snan { 0x7fe0_0000 } else { 0x7fa0_0000 };
            assert_eq!(o[5 + 1], want_canon, "{ctx} canonicalize(sNaN)");
            assert_eq!(o[1], 0x7fc0_0000, "{ctx} canonicalize(qNaN)");
            assert_eq!(o[6 * 5 + 1], 0x8000_0000, "{ctx} canonicalize(-0)");
            assert_eq!(o[3 * 5 + 1], 0.25f32.to_bits(), "{ctx} canonicalize(0.25)");
            // f64 canonicalize is v_max_f64 x, x on every target.
            let canon64 = |l: usize| o64[n + l].to_bits();
            let want64 = if ieee { 0x7ffc << 48 } else { 0x7ff4 << 48 };
            assert_eq!(canon64(1), want64, "{ctx} canonicalize64(sNaN)");
            assert_eq!(canon64(0), 0x7ff8 << 48, "{ctx} canonicalize64(qNaN)");
            assert_eq!(canon64(6), (-0.0f64).to_bits(), "{ctx} canonicalize64(-0)");
            // f16 canonicalize is v_max_f16 x, x on every target.
            let want16 = if ieee { 0x7f00 } else { 0x7d00 };
            assert_eq!(o16[2 + 1], want16, "{ctx} canonicalize16(sNaN)");
            // fmin/fmax: a NaN operand gives the other one; -0 < +0.
            for l in 0..n {
                let (x, y) = (a[l], b[l]);
                let (mn, mx) = (f32::from_bits(o[l * 5 + 2]), f32::from_bits(o[l * 5 + 3]));
                let (wmn, wmx) = if x.is_nan() || y.is_nan() {
                    (
                        if x.is_nan() { y } else { x },
                        if x.is_nan() { y } else { x },
                    )
                } else {
                    (min_hw(x, y), max_hw(x, y))
                };
                assert!(same32(mn, wmn), "{ctx} lane {l} fmin = {mn:e}");
                assert!(same32(mx, wmx), "{ctx} lane {l} fmax = {mx:e}");
            }
        }
    }
}

#[test]
fn fp16_overflow_clamps_when_fp16_ovfl_is_set() {
    let ha: Vec<u16> = [60000.0f32, -60000.0, 300.0, f32::INFINITY, 1.5]
        .iter()
        .map(|&x| f16::from_f32(x).to_bits())
        .collect();
    let hb: Vec<u16> = [60000.0f32, -60000.0, 300.0, 1.0, 2.0]
        .iter()
        .map(|&x| f16::from_f32(x).to_bits())
        .collect();
    let a = [1e6f32, -1e6, 70000.0, f32::INFINITY, 0.5];
    let n = a.len();
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let (e, _) = load(t, &[]);
        for ovfl in [0u32, 1] {
            let (bha, bhb, ba) = (buf_u16(&e, &ha), buf_u16(&e, &hb), e.buf_f32(&a));
            let bo = e.zeros(2 * 3 * n);
            e.run1(
                "fp16_ovfl_ops",
                &[
                    Arg::Ptr(&bha),
                    Arg::Ptr(&bhb),
                    Arg::Ptr(&ba),
                    Arg::Ptr(&bo),
                    Arg::U32(ovfl),
                    Arg::U32(0),
                ],
                n as u32,
                64,
            );
            let o = bo.u16s();
            // FP16_OVFL exists from GFX9 on: an overflow not caused by an infinite input gives
            // ±65504 instead of ±∞.
            let clamps = ovfl == 1 && t != "gfx803";
            for l in 0..n {
                let wants = [
                    h2f(ha[l]) + h2f(hb[l]),
                    h2f(ha[l]) * h2f(hb[l]),
                    f64::from(a[l]),
                ];
                let inputs_inf = [
                    h2f(ha[l]).is_infinite() || h2f(hb[l]).is_infinite(),
                    h2f(ha[l]).is_infinite() || h2f(hb[l]).is_infinite(),
                    a[l].is_infinite(),
                ];
                for k in 0..3 {
                    let mut want = f2h(wants[k]);
                    if clamps && want & 0x7fff == 0x7c00 && !inputs_inf[k] {
                        want = want & 0x8000 | 0x7bff;
                    }
                    assert_eq!(o[l * 3 + k], want, "{t} ovfl={ovfl} lane {l} op {k}");
                }
            }
        }
    }
}
