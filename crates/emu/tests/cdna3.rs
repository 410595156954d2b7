//! CDNA3 (gfx942) and CDNA4 (gfx950) instructions, compiled by clang-22 from
//! tests/kernels/cl/emu_cdna3.cl: fp8/bf8 conversions on all 256 inputs per format (gfx942: the
//! FNUZ formats, gfx950: OCP), rounding and overflow cases, stochastic rounding, and the 64-bit
//! address arithmetic (`v_lshl_add_u64`). Expected values come from the formats' definitions
//! written here, never from the emulator.

use crate::common::*;

const SRC: &str = "cl/emu_cdna3.cl";

/// An 8-bit float format by its definition: mantissa bits, bias, and the FNUZ/OCP special
/// values (FNUZ: 0x80 is NaN, no infinities, no -0; OCP E4M3FN: S.1111.111 is NaN; OCP E5M2:
/// IEEE-style infinities and NaNs).
#[derive(Clone, Copy, Debug)]
struct Fmt8 {
    man: u32,
    exp: u32,
    bias: i32,
    fnuz: bool,
}

impl Fmt8 {
    /// gfx942 uses FNUZ E4M3 (bias 8) and E5M2 (bias 16), gfx950 OCP E4M3FN (7) and E5M2 (15).
    fn of(target: &str, bf8: bool) -> Fmt8 {
        let ocp = target.starts_with("gfx950");
        match (bf8, ocp) {
            (false, false) => Fmt8 {
                man: 3,
                exp: 4,
                bias: 8,
                fnuz: true,
            },
            (true, false) => Fmt8 {
                man: 2,
                exp: 5,
                bias: 16,
                fnuz: true,
            },
            (false, true) => Fmt8 {
                man: 3,
                exp: 4,
                bias: 7,
                fnuz: false,
            },
            (true, true) => Fmt8 {
                man: 2,
                exp: 5,
                bias: 15,
                fnuz: false,
            },
        }
    }

    /// `None` for NaN.
    fn value(self, b: u8) -> Option<f64> {
        let neg = b & 0x80 != 0;
        let e = (u32::from(b) >> self.man) & ((1 << self.exp) - 1);
        let m = u32::from(b) & ((1 << self.man) - 1);
        let top = (1 << self.exp) - 1;
        if self.fnuz && b == 0x80 {
            return None;
        }
        if !self.fnuz && self.exp == 5 && e == top {
            return if m == 0 {
                Some(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                })
            } else {
                None
            };
        }
        if !self.fnuz && self.exp == 4 && e == top && m == 7 {
            return None;
        }
        let mag = if e == 0 {
            f64::from(m) * 2f64.powi(1 - self.bias - self.man as i32)
        } else {
            (1.0 + f64::from(m) / f64::from(1 << self.man)) * 2f64.powi(e as i32 - self.bias)
        };
        Some(if neg { -mag } else { mag })
    }

    /// The finite patterns, ascending by value (one zero).
    fn finite_sorted(self) -> Vec<(f64, u8)> {
        let mut v: Vec<(f64, u8)> = (0..=255u8)
            .filter_map(|b| self.value(b).map(|x| (x, b)))
            .filter(|(x, b)| x.is_finite() && !(*x == 0.0 && *b != 0))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    }

    fn is_nan(self, b: u8) -> bool {
        self.value(b).is_none()
    }

    /// Round to nearest, ties to the even pattern; beyond the largest finite value: NaN
    /// (E5M2 OCP: infinity).
    fn nearest_even(self, x: f32) -> Expect {
        if x.is_nan() {
            return Expect::Nan;
        }
        let fin = self.finite_sorted();
        let max = fin.last().expect("values").0;
        let x = f64::from(x);
        if x.is_infinite() || x.abs() > max {
            // Beyond max but rounding back to max when below the halfway point to the next
            // binade step is the "round then check" order: only values that round above max
            // overflow.
            // The midpoint itself rounds to max when max's pattern is even (ties to even).
            let step = max - fin[fin.len() - 2].0;
            let b = fin
                .iter()
                .find(|(v, _)| *v == max.copysign(x))
                .expect("max")
                .1;
            let half = max + step / 2.0;
            if x.is_finite() && (x.abs() < half || (x.abs() == half && b & 1 == 0)) {
                return Expect::Bits(b);
            }
            return self.overflow(x < 0.0);
        }
        let mut best = fin[0];
        for &(v, b) in &fin {
            let (d, db) = ((v - x).abs(), (best.0 - x).abs());
            if d < db || (d == db && b & 1 == 0 && best.1 & 1 != 0) {
                best = (v, b);
            }
        }
        Expect::Bits(self.signed_zero(best, x))
    }

    fn overflow(self, neg: bool) -> Expect {
        if !self.fnuz && self.exp == 5 {
            Expect::Bits(if neg { 0xfc } else { 0x7c })
        } else {
            Expect::Nan
        }
    }

    /// A zero result keeps the input's sign in OCP (FNUZ has no -0).
    fn signed_zero(self, best: (f64, u8), x: f64) -> u8 {
        if best.0 == 0.0 && !self.fnuz && x.is_sign_negative() {
            0x80
        } else {
            best.1
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Bits(u8),
    Nan,
}

fn check(f: Fmt8, got: u8, want: Expect, what: &str) {
    match want {
        Expect::Bits(b) => assert_eq!(got, b, "{what}: got {got:#04x}, want {b:#04x} ({f:?})"),
        Expect::Nan => assert!(f.is_nan(got), "{what}: got {got:#04x}, want NaN ({f:?})"),
    }
}

const TARGETS_CDNA3: [&str; 2] = ["gfx942", "gfx950"];

#[test]
fn fp8_and_bf8_to_f32_on_every_byte() {
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        // Word i holds bytes i, i+1, i+2, i+3: every byte value in every position.
        let words: Vec<u32> = (0..256u32)
            .map(|i| (0..4).fold(0, |w, k| w | ((i + k) & 0xff) << (8 * k)))
            .collect();
        let inp = e.buf_u32(&words);
        let fp8 = e.zeros(256 * 16);
        let bf8 = e.zeros(256 * 16);
        e.run1(
            "fp8_to_f32",
            &[Arg::Ptr(&inp), Arg::Ptr(&fp8), Arg::Ptr(&bf8)],
            256,
            64,
        );
        for (out, bf) in [(fp8.f32s(), false), (bf8.f32s(), true)] {
            let f = Fmt8::of(t, bf);
            for i in 0..256usize {
                for pos in 0..4 {
                    let byte = (words[i] >> (8 * pos)) as u8;
                    let got = out[4 * i + pos];
                    match f.value(byte) {
                        None => assert!(got.is_nan(), "{t} bf8={bf} {byte:#04x}: {got}"),
                        Some(v) => assert_eq!(
                            f64::from(got).to_bits(),
                            v.to_bits(),
                            "{t} bf8={bf} byte {byte:#04x} in position {pos}: {got} vs {v}"
                        ),
                    }
                }
            }
        }
    }
}

#[test]
fn packed_fp8_and_bf8_to_two_f32() {
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        let words: Vec<u32> = (0..256u32)
            .map(|i| i | (255 - i) << 8 | (i ^ 0x55) << 16 | ((i * 7) & 0xff) << 24)
            .collect();
        let inp = e.buf_u32(&words);
        let fp8 = e.zeros(256 * 16);
        let bf8 = e.zeros(256 * 16);
        e.run1(
            "pk_fp8_to_f32",
            &[Arg::Ptr(&inp), Arg::Ptr(&fp8), Arg::Ptr(&bf8)],
            256,
            64,
        );
        for (out, bf) in [(fp8.f32s(), false), (bf8.f32s(), true)] {
            let f = Fmt8::of(t, bf);
            for i in 0..256usize {
                for k in 0..4 {
                    let byte = (words[i] >> (8 * k)) as u8;
                    let got = out[4 * i + k];
                    match f.value(byte) {
                        None => assert!(got.is_nan(), "{t} pk bf8={bf} {byte:#04x}"),
                        Some(v) => assert_eq!(f64::from(got), v, "{t} pk bf8={bf} {byte:#04x}"),
                    }
                }
            }
        }
    }
}

/// Every finite value of both formats, the midpoints between neighbours (ties), points just
/// off the midpoints, values beyond the largest finite one, infinities, NaN and signed zeros.
fn rounding_inputs() -> Vec<f32> {
    let mut v = vec![
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e30,
        -1e30,
    ];
    for f in [
        Fmt8::of("gfx942", false),
        Fmt8::of("gfx942", true),
        Fmt8::of("gfx950", false),
        Fmt8::of("gfx950", true),
    ] {
        let fin = f.finite_sorted();
        for w in fin.windows(2) {
            let (a, b) = (w[0].0, w[1].0);
            let mid = (a + b) / 2.0;
            for x in [a, mid, mid * (1.0 + 1e-6), mid * (1.0 - 1e-6)] {
                v.push(x as f32);
            }
        }
        let max = fin.last().expect("max").0;
        let step = max - fin[fin.len() - 2].0;
        for x in [
            max + step * 0.25,
            max + step * 0.5,
            max + step * 0.75,
            max * 4.0,
        ] {
            v.push(x as f32);
            v.push(-x as f32);
        }
    }
    if v.len() % 2 == 1 {
        v.push(1.0);
    }
    v
}

#[test]
fn f32_to_fp8_and_bf8_round_to_nearest_even() {
    let inputs = rounding_inputs();
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        let n = inputs.len() / 2;
        let inp = e.buf_f32(&inputs);
        let fp8 = e.zeros(n * 4);
        let bf8 = e.zeros(n * 4);
        e.run1(
            "f32_to_fp8",
            &[Arg::Ptr(&inp), Arg::Ptr(&fp8), Arg::Ptr(&bf8)],
            n as u32,
            64,
        );
        for (out, bf) in [(fp8.u32s(), false), (bf8.u32s(), true)] {
            let f = Fmt8::of(t, bf);
            for i in 0..n {
                let (a, b) = (inputs[2 * i], inputs[2 * i + 1]);
                let w = out[i];
                // Low word: (a, b); high word: (b, a), each written over 0x5a5a.
                for (k, x) in [(0, a), (1, b), (2, b), (3, a)] {
                    let what = format!("{t} bf8={bf} x={x:e} ({:#010x}) byte {k}", x.to_bits());
                    check(f, (w >> (8 * k)) as u8, f.nearest_even(x), &what);
                }
            }
        }
    }
}

#[test]
fn f32_to_fp8_and_bf8_with_stochastic_rounding() {
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut xs = Vec::new();
        let mut rnd = Vec::new();
        for k in 0..1024 {
            // Values inside the normal and denormal ranges of both formats, both signs.
            let mag = 2f32.powi(rng.next_u32() as i32 % 14 - 10)
                * (1.0 + (rng.next_u32() >> 9) as f32 / 8388608.0);
            xs.push(if k % 2 == 0 { mag } else { -mag });
            rnd.push(rng.next_u32());
        }
        let n = xs.len();
        let inp = e.buf_f32(&xs);
        let r = e.buf_u32(&rnd);
        let fp8 = e.zeros(n * 4);
        let bf8 = e.zeros(n * 4);
        e.run1(
            "f32_to_fp8_sr",
            &[Arg::Ptr(&inp), Arg::Ptr(&r), Arg::Ptr(&fp8), Arg::Ptr(&bf8)],
            n as u32,
            64,
        );
        for (out, bf) in [(fp8.u32s(), false), (bf8.u32s(), true)] {
            let f = Fmt8::of(t, bf);
            let fin = f.finite_sorted();
            let max = fin.last().expect("max").0;
            let d = 23 - f.man;
            for i in 0..n {
                let x = f64::from(xs[i]);
                let pos = i % 4;
                let w = out[i];
                for k in 0..4 {
                    if k != pos {
                        assert_eq!((w >> (8 * k)) as u8, 0x5a, "{t} sr kept byte {k}");
                    }
                }
                let got = (w >> (8 * pos)) as u8;
                let a = x.abs();
                // The neighbours lo <= |x| < hi; |x| rounds up when the d bits below lo's last
                // place plus the low d random bits carry.
                let lo = fin
                    .iter()
                    .rev()
                    .find(|(v, _)| *v >= 0.0 && *v <= a)
                    .expect("lo")
                    .0;
                let want = if lo == a {
                    lo
                } else {
                    let hi = fin
                        .iter()
                        .find(|(v, _)| *v > a)
                        .map_or(f64::INFINITY, |p| p.0);
                    let frac = ((a - lo) / (hi - lo) * f64::from(1u32 << d)).floor();
                    let noise = f64::from(rnd[i] & ((1 << d) - 1));
                    if frac + noise >= f64::from(1u32 << d) {
                        hi
                    } else {
                        lo
                    }
                };
                let what = format!("{t} bf8={bf} sr x={x:e} rnd={:#x}", rnd[i]);
                if want > max {
                    check(f, got, f.overflow(x < 0.0), &what);
                    continue;
                }
                let signed = if x < 0.0 { -want } else { want };
                let b = fin
                    .iter()
                    .find(|(v, _)| *v == signed)
                    .map(|p| p.1)
                    .unwrap_or(0);
                check(f, got, Expect::Bits(f.signed_zero((want, b), x)), &what);
            }
        }
    }
}

#[test]
fn lshl_add_u64_address_arithmetic() {
    for t in TARGETS_CDNA3 {
        for cov in [5, 6] {
            let e = emu_cov(SRC, t, cov);
            let src: Vec<u64> = (0..1000u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let idx: Vec<u32> = (0..1000u32).map(|i| (i * 617) % 1000).collect();
            let (s, x, d) = (e.buf_u64(&src), e.buf_u32(&idx), e.zeros(8000));
            e.run1(
                "gather64",
                &[Arg::Ptr(&s), Arg::Ptr(&x), Arg::Ptr(&d)],
                1000,
                64,
            );
            for (i, got) in d.u64s().into_iter().enumerate() {
                let want = src[idx[i] as usize].wrapping_add(i as u64 * 0x1_0000_0001);
                assert_eq!(got, want, "{t} V{cov} lane {i}");
            }
        }
    }
}

#[test]
fn three_input_bitwise_functions() {
    // gfx950 compiles these to v_bitop3_b32/b16; gfx942 to two-input operations.
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        let mut rng = Rng(77);
        let n = 256usize;
        let a: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let b: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let c: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let (ba, bb, bc, bo) = (e.buf_u32(&a), e.buf_u32(&b), e.buf_u32(&c), e.zeros(24 * n));
        e.run1(
            "bitops3",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.u32s();
        for i in 0..n {
            let (x, y, z) = (a[i], b[i], c[i]);
            let want = [
                (x & y) | (!x & z),
                x ^ y ^ z,
                (x & y) | (y & z) | (x & z),
                (x & !y) | z,
                !(x | y) & z,
                (x | y) ^ z,
            ];
            assert_eq!(&o[6 * i..6 * i + 6], &want, "{t} lane {i}");
        }
        let h = |v: &[u32]| v.iter().map(|x| *x as u16).collect::<Vec<u16>>();
        let (a16, b16, c16) = (h(&a), h(&b), h(&c));
        let bytes = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let (ba, bb, bc, bo) = (
            e.buf_bytes(&bytes(&a16)),
            e.buf_bytes(&bytes(&b16)),
            e.buf_bytes(&bytes(&c16)),
            e.zeros(6 * n),
        );
        e.run1(
            "bitops3_16",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.u16s();
        for i in 0..n {
            let (x, y, z) = (a16[i], b16[i], c16[i]);
            let want = [(x & y) | (!x & z), (x & !y) | z, (x | y) ^ z];
            assert_eq!(&o[3 * i..3 * i + 3], &want, "{t} b16 lane {i}");
        }
    }
}

/// f32 pairs to f16 and bf16 (gfx950: `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32`), round to
/// nearest even: halfway cases both ways, f16 overflow and denormals, infinities, NaN.
#[test]
fn f32_pairs_to_f16_and_bf16() {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -2.5,
        65504.0,
        65519.0,
        65520.0,
        -1e6,
        1e-7,
        6e-8,
        3e-8,
        1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
    ];
    // bf16 ties: low half exactly 0x8000 with an even and an odd kept bit, and either side.
    for hi in [0x3f80u32, 0x3f81, 0xc123, 0x4000] {
        for lo in [0x7fffu32, 0x8000, 0x8001] {
            xs.push(f32::from_bits(hi << 16 | lo));
        }
    }
    let mut rng = Rng(99);
    while xs.len() < 256 {
        xs.push(f32::from_bits(rng.next_u32()));
    }
    // The definitions: f16 by IEEE round-to-nearest-even (the half crate), bf16 by rounding
    // the low 16 bits to nearest, ties to even.
    let bf16 = |x: f32| -> u16 {
        let b = x.to_bits();
        if x.is_nan() {
            return ((b >> 16) | 0x40) as u16;
        }
        let lo = b & 0xffff;
        let up = lo > 0x8000 || (lo == 0x8000 && (b >> 16) & 1 == 1);
        ((b >> 16) + u32::from(up)) as u16
    };
    for t in TARGETS_CDNA3 {
        let e = emu(SRC, t);
        let n = xs.len() / 2;
        let (bi, bh, bb) = (e.buf_f32(&xs), e.zeros(4 * n), e.zeros(4 * n));
        e.run1(
            "cvt_pk_16",
            &[Arg::Ptr(&bi), Arg::Ptr(&bh), Arg::Ptr(&bb)],
            n as u32,
            64,
        );
        let (h, b) = (bh.u16s(), bb.u16s());
        for (k, &x) in xs.iter().enumerate() {
            let want_h = half::f16::from_f32(x);
            let got_h = half::f16::from_bits(h[k]);
            if x.is_nan() {
                assert!(got_h.is_nan(), "{t} f16 of NaN");
                assert!(b[k] & 0x7fff > 0x7f80, "{t} bf16 of NaN: {:#x}", b[k]);
            } else {
                assert_eq!(got_h.to_bits(), want_h.to_bits(), "{t} f16 of {x:e}");
                assert_eq!(b[k], bf16(x), "{t} bf16 of {x:e} ({:#x})", x.to_bits());
            }
        }
    }
}

const SRC_CDNA4: &str = "cl/emu_cdna4.cl";

/// gfx950 `v_ashr_pk_u8_i32` (selected by clang-22 from shift-and-clamp code) and
/// `v_ashr_pk_i8_i32`: D.u16 = {sat8(S1 >> S2[4:0]), sat8(S0 >> S2[4:0])}, high half zero.
#[test]
fn cdna4_shift_and_pack_to_bytes() {
    let e = emu(SRC_CDNA4, "gfx950");
    let mut rng = Rng(0xa5);
    let n = 256usize;
    let edge = [0, 1, -1, 127, 128, -128, -129, 255, 256, i32::MAX, i32::MIN];
    let a: Vec<i32> = (0..n)
        .map(|k| {
            edge.get(k)
                .copied()
                .unwrap_or(rng.next_u32() as i32 >> (k % 24))
        })
        .collect();
    let b: Vec<i32> = (0..n).map(|k| a[(k * 7 + 3) % n] ^ (k as i32)).collect();
    let s: Vec<u32> = (0..n)
        .map(|k| if k < 40 { k as u32 } else { rng.next_u32() })
        .collect();
    let (ba, bb, bs) = (
        e.buf_u32(&a.iter().map(|&x| x as u32).collect::<Vec<_>>()),
        e.buf_u32(&b.iter().map(|&x| x as u32).collect::<Vec<_>>()),
        e.buf_u32(&s),
    );
    let (bu, bi) = (e.zeros(2 * n), e.zeros(4 * n));
    e.run1(
        "ashr_pk",
        &[
            Arg::Ptr(&ba),
            Arg::Ptr(&bb),
            Arg::Ptr(&bs),
            Arg::Ptr(&bu),
            Arg::Ptr(&bi),
        ],
        n as u32,
        64,
    );
    let (u8s, i8s) = (bu.u16s(), bi.u32s());
    for k in 0..n {
        let sh = s[k] & 31;
        let sat = |x: i32, lo: i32, hi: i32| (x >> sh).clamp(lo, hi) as u32 & 0xff;
        let want_u = sat(a[k], 0, 255) | sat(b[k], 0, 255) << 8;
        let want_i = sat(a[k], -128, 127) | sat(b[k], -128, 127) << 8;
        assert_eq!(u32::from(u8s[k]), want_u, "u8 a={} b={} s={sh}", a[k], b[k]);
        assert_eq!(i8s[k], want_i, "i8 a={} b={} s={sh}", a[k], b[k]);
    }
}

/// IEEE 754-2019 maximum/minimum: a NaN operand gives NaN, -0 < +0.
fn ieee_maximum(x: f64, y: f64, max: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && y == 0.0 {
        let neg = if max {
            x.is_sign_negative() && y.is_sign_negative()
        } else {
            x.is_sign_negative() || y.is_sign_negative()
        };
        return if neg { -0.0 } else { 0.0 };
    }
    if (x > y) == max {
        x
    } else {
        y
    }
}

/// Triples with NaNs, signed zeros, infinities and random values, in every position.
fn max3_inputs() -> Vec<f32> {
    let special = [
        f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
        -2.25,
    ];
    let mut v = Vec::new();
    for &x in &special {
        for &y in &special {
            for &z in &special {
                v.extend([x, y, z]);
            }
        }
    }
    let mut rng = Rng(3);
    while v.len() < 3 * 512 {
        v.push(rng.f32(-100.0, 100.0));
    }
    v
}

/// gfx950 `v_maximum3_f32`, `v_minimum3_f32`, `v_pk_maximum3_f16`, `v_pk_minimum3_f16`
/// (clang-22 selects them from `__builtin_elementwise_maximum/minimum`).
#[test]
fn cdna4_maximum3_and_minimum3() {
    let e = emu(SRC_CDNA4, "gfx950");
    let v = max3_inputs();
    let n = v.len() / 3;
    let (bv, mx, mn) = (e.buf_f32(&v), e.zeros(4 * n), e.zeros(4 * n));
    e.run1(
        "max3",
        &[Arg::Ptr(&bv), Arg::Ptr(&mx), Arg::Ptr(&mn)],
        n as u32,
        64,
    );
    let same = |got: f32, want: f64, what: &str| {
        if want.is_nan() {
            assert!(got.is_nan(), "{what}: got {got}");
        } else {
            assert_eq!(
                f64::from(got).to_bits(),
                want.to_bits(),
                "{what}: got {got}"
            );
        }
    };
    for (k, (gx, gn)) in mx.f32s().into_iter().zip(mn.f32s()).enumerate() {
        let t: Vec<f64> = v[3 * k..3 * k + 3].iter().map(|&x| f64::from(x)).collect();
        for (got, max) in [(gx, true), (gn, false)] {
            let want = ieee_maximum(ieee_maximum(t[0], t[1], max), t[2], max);
            same(got, want, &format!("max={max} of {t:?}"));
        }
    }
    // Packed f16: the low halves hold the triples, the high halves the triples rotated.
    let h: Vec<u32> = (0..v.len())
        .map(|k| {
            let lo = half::f16::from_f32(v[k]).to_bits();
            let hi = half::f16::from_f32(v[(k + 5) % v.len()]).to_bits();
            u32::from(lo) | u32::from(hi) << 16
        })
        .collect();
    let (bh, mx, mn) = (e.buf_u32(&h), e.zeros(4 * n), e.zeros(4 * n));
    e.run1(
        "pk_max3",
        &[Arg::Ptr(&bh), Arg::Ptr(&mx), Arg::Ptr(&mn)],
        n as u32,
        64,
    );
    for (k, (gx, gn)) in mx.u32s().into_iter().zip(mn.u32s()).enumerate() {
        for (got, max) in [(gx, true), (gn, false)] {
            for shift in [0, 16] {
                let t: Vec<f64> = h[3 * k..3 * k + 3]
                    .iter()
                    .map(|&x| half::f16::from_bits((x >> shift) as u16).to_f64())
                    .collect();
                let want = ieee_maximum(ieee_maximum(t[0], t[1], max), t[2], max);
                let g = half::f16::from_bits((got >> shift) as u16).to_f32();
                same(g, want, &format!("pk max={max} half {shift} of {t:?}"));
            }
        }
    }
}

/// gfx950 `v_prng_b32`: D = {S0[30:0], 0} ^ (S0[31] ? 197 : 0) (AMD's ISA pseudocode), four
/// steps per lane.
#[test]
fn cdna4_prng_steps() {
    let e = emu(SRC_CDNA4, "gfx950");
    let mut rng = Rng(11);
    let seeds: Vec<u32> = [0, 1, 0x8000_0000, u32::MAX]
        .into_iter()
        .chain((0..252).map(|_| rng.next_u32()))
        .collect();
    let (bs, bo) = (e.buf_u32(&seeds), e.zeros(16 * seeds.len()));
    e.run1("prng", &[Arg::Ptr(&bs), Arg::Ptr(&bo)], 256, 64);
    let o = bo.u32s();
    for (k, &seed) in seeds.iter().enumerate() {
        let mut x = seed;
        for step in 0..4 {
            x = (x << 1) ^ if x >> 31 == 1 { 197 } else { 0 };
            assert_eq!(o[4 * k + step], x, "seed {seed:#x} step {step}");
        }
    }
}

/// gfx950 `v_cvt_f32_bf16`: the bf16 bits become the f32's top half (low half by VOP1 and
/// VOP3, high half by SDWA WORD_1).
#[test]
fn cdna4_bf16_to_f32() {
    let e = emu(SRC_CDNA4, "gfx950");
    let mut rng = Rng(5);
    let a: Vec<u32> = (0..256).map(|_| rng.next_u32()).collect();
    let (ba, bo) = (e.buf_u32(&a), e.zeros(12 * a.len()));
    e.run1("cvt_f32_bf16", &[Arg::Ptr(&ba), Arg::Ptr(&bo)], 256, 64);
    let o = bo.u32s();
    for (k, &x) in a.iter().enumerate() {
        assert_eq!(
            o[3 * k..3 * k + 3],
            [x << 16, x & 0xffff_0000, x << 16],
            "{x:#x}"
        );
    }
}

/// gfx950 `v_permlane16_swap_b32` (odd 16-lane rows of the first register swapped with the
/// even rows of the second) and `v_permlane32_swap_b32` (lanes 32-63 of the first with lanes
/// 0-31 of the second); both registers are results.
#[test]
fn cdna4_permlane_swaps() {
    let e = emu(SRC_CDNA4, "gfx950");
    let a: Vec<u32> = (0..64).map(|l| 0x1000 + l).collect();
    let b: Vec<u32> = (0..64).map(|l| 0x2000 + l).collect();
    let (ba, bb, bo) = (e.buf_u32(&a), e.buf_u32(&b), e.zeros(4 * 256));
    e.run1(
        "permlane_swap",
        &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
        64,
        64,
    );
    let o = bo.u32s();
    for l in 0..64 {
        let odd = (l / 16) % 2 == 1;
        let first16 = if odd { b[l - 16] } else { a[l] };
        let second16 = if odd { b[l] } else { a[l + 16] };
        let first32 = if l >= 32 { b[l - 32] } else { a[l] };
        let second32 = if l >= 32 { b[l] } else { a[l + 32] };
        assert_eq!(
            [o[l], o[64 + l], o[128 + l], o[192 + l]],
            [first16, second16, first32, second32],
            "lane {l}"
        );
    }
}

/// gfx950 `v_dot2c_f32_bf16` and `v_dot2_f32_bf16`: a0·b0 + a1·b1 + c with exact bf16
/// products and one rounding to f32, with neg_lo/neg_hi negating single halves and C.
#[test]
fn cdna4_bf16_dot_products() {
    let e = emu(SRC_CDNA4, "gfx950");
    let mut rng = Rng(21);
    let n = 256usize;
    let bf = |rng: &mut Rng| (rng.f32(-8.0, 8.0).to_bits() >> 16) & 0xffff;
    let a: Vec<u32> = (0..n).map(|_| bf(&mut rng) | bf(&mut rng) << 16).collect();
    let b: Vec<u32> = (0..n).map(|_| bf(&mut rng) | bf(&mut rng) << 16).collect();
    let c: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
    let (ba, bb, bc, bo) = (e.buf_u32(&a), e.buf_u32(&b), e.buf_f32(&c), e.zeros(12 * n));
    e.run1(
        "dot2_bf16",
        &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::Ptr(&bo)],
        n as u32,
        64,
    );
    let o = bo.f32s();
    let v = |x: u32| f64::from(f32::from_bits(x << 16));
    for k in 0..n {
        let (a0, a1, b0, b1) = (
            v(a[k] & 0xffff),
            v(a[k] >> 16),
            v(b[k] & 0xffff),
            v(b[k] >> 16),
        );
        let cc = f64::from(c[k]);
        let plain = (a0 * b0 + a1 * b1 + cc) as f32;
        let negated = (-a0 * b0 + a1 * -b1 - cc) as f32;
        assert_eq!(o[3 * k..3 * k + 3], [plain, plain, negated], "lane {k}");
    }
}

const SRC_CDNA4_MX: &str = "cl/emu_cdna4_mx.cl";

/// The scaled conversions as clang-22 emits them for the builtins (selectors as op_sel):
/// values exact in FP4, FP8 and BF8 after division by the scale, so each result is the
/// element's pattern at the place the builtin's selector names, the rest of the old value
/// kept, and the way back multiplies by the scale. Non-power-of-two scales count by their
/// exponent only.
#[test]
fn cdna4_scaled_conversions_from_builtins() {
    const FP4: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let e = emu(SRC_CDNA4_MX, "gfx950");
    let n = 256usize;
    let mut rng = Rng(77);
    let mut codes = Vec::new();
    let (mut vals, mut scales) = (Vec::new(), Vec::new());
    for k in 0..n {
        let exp = (k % 41) as i32 - 20;
        let mant = [1.0f32, 1.5, 1.75][k % 3];
        scales.push(mant * 2f32.powi(exp));
        for _ in 0..2 {
            let c = rng.next_u32() % 16;
            let v = FP4[(c % 8) as usize] * if c >= 8 { -1.0 } else { 1.0 };
            codes.push(c);
            vals.push(v * 2f32.powi(exp));
        }
    }
    let (bi, bs) = (e.buf_f32(&vals), e.buf_f32(&scales));
    let (bo, bb) = (e.zeros(12 * n), e.zeros(12 * n));
    e.run1(
        "scaled",
        &[Arg::Ptr(&bi), Arg::Ptr(&bs), Arg::Ptr(&bo), Arg::Ptr(&bb)],
        n as u32,
        64,
    );
    let (o, back) = (bo.u32s(), bb.f32s());
    // The fp8/bf8 pattern of an FP4 code's value (exact in both).
    let f8 = |c: u32, bf8: bool| -> u32 {
        let v = f64::from(FP4[(c % 8) as usize]);
        let f = Fmt8::of("gfx950", bf8);
        let b = f
            .finite_sorted()
            .iter()
            .find(|(x, _)| *x == v)
            .expect("exact")
            .1;
        u32::from(b) | if c >= 8 { 0x80 } else { 0 }
    };
    for k in 0..n {
        let (ca, cb) = (codes[2 * k], codes[2 * k + 1]);
        let what = format!("item {k}: codes {ca:#x} {cb:#x}, scale {}", scales[k]);
        assert_eq!(o[3 * k], 0x5a00_5a5a | (ca | cb << 4) << 16, "fp4 {what}");
        assert_eq!(
            o[3 * k + 1],
            0x5a5a | (f8(ca, false) | f8(cb, false) << 8) << 16,
            "fp8 {what}"
        );
        assert_eq!(o[3 * k + 2], 0x005a_5a5a | f8(ca, true) << 24, "bf8 {what}");
        let (a, b) = (vals[2 * k], vals[2 * k + 1]);
        assert_eq!(
            [back[3 * k], back[3 * k + 1], back[3 * k + 2]].map(f32::to_bits),
            [a, b, b].map(f32::to_bits),
            "back {what}"
        );
    }
}

/// The LDS transpose loads as clang-22 emits them for the builtins, against the lane map
/// (rocRoller's, checked on gfx950 hardware): in each block of 16 lanes, lane j's element e
/// is element j mod E of lane (16/E)·e + ⌊j/E⌋, E elements per lane.
#[test]
fn cdna4_transpose_loads_from_builtins() {
    let e = emu(SRC_CDNA4_MX, "gfx950");
    let mut rng = Rng(5);
    let lds: Vec<u32> = (0..512).map(|_| rng.next_u32()).collect();
    let (bi, bo) = (e.buf_u32(&lds), e.zeros(4 * 9 * 64));
    e.run1("transpose", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], 64, 64);
    let o = bo.u32s();
    // First output dword, element bits, dwords per lane; lane k loads LDS dwords from
    // base + stride·k.
    let forms = [
        (0, 8, 2, 0, 2),
        (2, 4, 2, 128, 2),
        (4, 6, 3, 256, 4),
        (7, 16, 2, 0, 2),
    ];
    for (out, bits, dwords, base, stride) in forms {
        let at = |k: usize| base + stride * k;
        let per_lane = 32 * dwords as u32 / bits;
        let load =
            |k: usize| (0..dwords).fold(0u128, |v, d| v | u128::from(lds[at(k) + d]) << (32 * d));
        for l in 0..64 {
            let (block, j) = (l & !15, (l & 15) as u32);
            let want = (0..per_lane).fold(0u128, |v, el| {
                let src = block + (16 / per_lane * el + j / per_lane) as usize;
                let x = load(src) >> (bits * (j % per_lane)) & ((1 << bits) - 1);
                v | x << (bits * el)
            });
            for d in 0..dwords {
                assert_eq!(
                    o[9 * l + out + d],
                    (want >> (32 * d)) as u32,
                    "b{bits} lane {l} dword {d}"
                );
            }
        }
    }
}
