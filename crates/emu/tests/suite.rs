//! The emu_*.cl kernel suite (tests/kernels/cl/emu_*.cl), compiled by clang-15 for gfx90a,
//! gfx906, gfx803 and gfx1030, run on the emulator and compared with CPU references; every test
//! also runs on gfx942 and gfx950 ([`TARGETS_CDNA3`]) and on gfx1100, gfx1151 and gfx1201 in
//! wave32 ([`TARGETS_RDNA3`], clang-22), and the wave64 subset on [`TARGETS_RDNA3_W64`].

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;

fn ulp_diff(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
}

#[test]
fn int_ops() {
    let n = 256usize;
    let mut rng = Rng(21);
    let a: Vec<i32> = (0..n)
        .map(|i| {
            if i < 4 {
                [i32::MIN, -1, 0, i32::MAX][i]
            } else {
                rng.next_u32() as i32
            }
        })
        .collect();
    let b: Vec<i32> = (0..n)
        .map(|i| {
            if i % 5 == 0 {
                (i as i32) - 100
            } else {
                rng.next_u32() as i32 >> (i % 20)
            }
        })
        .collect();
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_int.cl", t);
        let (ba, bb, bo) = (e.buf_i32(&a), e.buf_i32(&b), e.zeros(4 * 16 * n));
        e.run1(
            "int_ops",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.i32s();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let yd = if y == 0 { 1 } else { y };
            let want = [
                x.wrapping_add(y),
                x.wrapping_mul(y),
                ((i64::from(x) * i64::from(y)) >> 32) as i32,
                x.wrapping_div(yd),
                x.wrapping_rem(yd),
                x >> (y & 31),
                ((x as u32) >> (y & 31)) as i32,
                x.wrapping_shl((y & 31) as u32),
                x.count_ones() as i32,
                x.leading_zeros() as i32,
                x.wrapping_abs(),
                x.min(y) ^ x.max(y),
                ((x & 0x7fffff) << 8 >> 8)
                    .wrapping_mul((y & 0x7fffff) << 8 >> 8)
                    .wrapping_add(7),
                x.rotate_left((y as u32) & 31),
                ((x as u32) / (yd as u32)) as i32,
                (x & !0x0f0f0f0f) | (y & 0x0f0f0f0f),
            ];
            for k in 0..16 {
                assert_eq!(o[i * 16 + k], want[k], "{t} lane {i} op {k}: x={x} y={y}");
            }
        }
    }
}

#[test]
fn long_ops() {
    let n = 200usize;
    let mut rng = Rng(5);
    let r64 = |rng: &mut Rng| (u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32())) as i64;
    let a: Vec<i64> = (0..n)
        .map(|i| {
            if i < 3 {
                [i64::MIN, -7, 0][i]
            } else {
                r64(&mut rng) >> (i % 40)
            }
        })
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|i| {
            if i % 7 == 0 {
                i as i64 - 50
            } else {
                r64(&mut rng) >> (i % 50)
            }
        })
        .collect();
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_int.cl", t);
        let (ba, bb, bo) = (
            e.buf_u64(&a.iter().map(|&x| x as u64).collect::<Vec<_>>()),
            e.buf_u64(&b.iter().map(|&x| x as u64).collect::<Vec<_>>()),
            e.zeros(8 * 8 * n),
        );
        e.run1(
            "long_ops",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.u64s();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let yd = if y == 0 { 1 } else { y };
            let want = [
                x.wrapping_mul(y),
                x.wrapping_div(yd),
                x.wrapping_rem(yd),
                x >> (y & 63),
                ((x as u64) / (yd as u64)) as i64,
                x.min(y),
                ((u128::from(x as u64) * u128::from(y as u64)) >> 64) as i64,
                i64::from(x.count_ones()) + i64::from(y.leading_zeros()),
            ];
            for k in 0..8 {
                assert_eq!(
                    o[i * 8 + k] as i64,
                    want[k],
                    "{t} lane {i} op {k}: x={x} y={y}"
                );
            }
        }
    }
}

#[test]
fn small_ints() {
    let n = 128usize;
    let mut rng = Rng(8);
    let a: Vec<u8> = (0..4 * n).map(|_| rng.next_u32() as u8).collect();
    let b: Vec<i16> = (0..2 * n).map(|_| rng.next_u32() as i16).collect();
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_int.cl", t);
        let bb_bytes: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
        let (ba, bb, bo) = (e.buf_bytes(&a), e.buf_bytes(&bb_bytes), e.zeros(16 * n));
        e.run1(
            "small_ints",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.i32s();
        for i in 0..n {
            let p = &a[4 * i..4 * i + 4];
            let (qx, qy) = (b[2 * i], b[2 * i + 1]);
            let s = [
                p[0].saturating_add(200),
                p[1].saturating_add(100),
                p[2].saturating_add(50),
            ];
            let want = [
                i32::from(s[0]) + i32::from(s[1]) * 256 + i32::from(s[2]) * 65536,
                i32::from(qx) * i32::from(qy),
                i32::from(qx.wrapping_add(qy)),
                i32::from(p[3].abs_diff(p[0])) + ((i32::from(p[1]) + i32::from(p[2])) >> 1),
            ];
            for k in 0..4 {
                assert_eq!(o[i * 4 + k], want[k], "{t} lane {i} op {k}");
            }
        }
    }
}

#[test]
fn float_ops() {
    let n = 256usize;
    let mut rng = Rng(99);
    let a: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
    let b: Vec<f32> = (0..n)
        .map(|i| {
            if i % 9 == 0 {
                -2.5
            } else {
                rng.f32(-20.0, 20.0)
            }
        })
        .collect();
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_float.cl", t);
        let (ba, bb, bo) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * 12 * n));
        e.run1(
            "float_ops",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.f32s();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x.min(y),
                x.max(y),
                x.floor(),
                x.ceil(),
                x.round_ties_even(),
                x.trunc(),
                x.abs().copysign(y),
                x / y,
                x % y,
                x * 2f32.powi((y as i32) & 15),
                x.round(),
                x.mul_add(y, 1.0),
            ];
            let tol = [0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1];
            for k in 0..12 {
                let got = o[i * 12 + k];
                let ok = ulp_diff(got, want[k]) <= tol[k] || (k == 11 && got == x * y + 1.0);
                assert!(ok, "{t} lane {i} op {k}: x={x} y={y}: {got} vs {}", want[k]);
            }
        }
    }
}

#[test]
fn float_lib() {
    let n = 256usize;
    let a: Vec<f32> = (0..n).map(|i| -6.0 + i as f32 * 0.047).collect();
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_float.cl", t);
        let (ba, bo) = (e.buf_f32(&a), e.zeros(4 * 12 * n));
        e.run1("float_lib", &[Arg::Ptr(&ba), Arg::Ptr(&bo)], n as u32, 64);
        let o = bo.f32s();
        for i in 0..n {
            let x = a[i];
            let xd = f64::from(x);
            let want = [
                xd.tan(),
                xd.atan(),
                xd.atan2(0.75),
                (xd / 8.0).asin(),
                (xd / 8.0).acos(),
                (xd / 4.0).sinh(),
                xd.tanh(),
                (xd.abs() + 0.5).log2(),
                (xd.abs() + 0.5).log10(),
                xd.exp2(),
                xd.cbrt(),
                xd.hypot(3.0),
            ];
            for k in 0..12 {
                let got = o[i * 12 + k];
                let w = want[k] as f32;
                assert!(
                    ulp_diff(got, w) <= 4 || (got - w).abs() < 1e-6,
                    "{t} x={x} fn {k}: {got} vs {w}"
                );
            }
        }
    }
}

#[test]
fn float_special_values() {
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-40,
        3.5,
        -7.25,
        f32::MAX,
        f32::MIN_POSITIVE,
    ];
    let n = 64usize;
    let a: Vec<f32> = (0..n).map(|i| vals[i % vals.len()]).collect();
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_float.cl", t);
        let (ba, bo, bc) = (e.buf_f32(&a), e.zeros(4 * 4 * n), e.zeros(4 * n));
        e.run1(
            "float_special",
            &[Arg::Ptr(&ba), Arg::Ptr(&bo), Arg::Ptr(&bc)],
            n as u32,
            64,
        );
        let (o, c) = (bo.f32s(), bc.i32s());
        for i in 0..n {
            let x = a[i];
            let sq = o[i * 4];
            let rc = o[i * 4 + 1];
            assert!(
                ulp_diff(sq, x.sqrt()) <= 1 || (x.is_subnormal() && sq.abs() < 1e-19),
                "{t} sqrt({x}) = {sq}"
            );
            assert!(
                ulp_diff(rc, 1.0 / x) <= 1
                    || (x.is_subnormal() && rc.is_infinite())
                    || x.abs() >= f32::MAX / 4.0,
                "{t} 1/{x} = {rc}"
            );
            let want = i32::from(x.is_nan())
                | i32::from(x.is_infinite()) << 1
                | i32::from(x.is_finite()) << 2
                | i32::from(x.is_sign_negative()) << 3
                | i32::from(x.is_normal()) << 4;
            assert_eq!(c[i], want, "{t} class of {x}");
        }
    }
}

#[test]
fn double_ops_and_lib() {
    let n = 128usize;
    let mut rng = Rng(77);
    let a: Vec<f64> = (0..n)
        .map(|_| f64::from(rng.f32(-50.0, 50.0)) * 1.000_000_1)
        .collect();
    let b: Vec<f64> = (0..n)
        .map(|i| {
            if i % 11 == 0 {
                3.0
            } else {
                f64::from(rng.f32(-9.0, 9.0))
            }
        })
        .collect();
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_double.cl", t);
        let (ba, bb, bo) = (e.buf_f64(&a), e.buf_f64(&b), e.zeros(8 * 10 * n));
        e.run1(
            "double_ops",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.f64s();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x + y,
                x * y,
                x / y,
                x.abs().sqrt(),
                x.mul_add(y, 0.5),
                x.floor() + y.ceil(),
                x.min(y) - x.max(y),
                f64::from(x as i32) + (y.abs() as u64) as f64,
                f64::from(x as f32),
                (x * 3.0).round_ties_even(),
            ];
            for k in 0..10 {
                assert_eq!(o[i * 10 + k], want[k], "{t} lane {i} op {k}: x={x} y={y}");
            }
        }
        let bo = e.zeros(8 * 6 * n);
        e.run1("double_lib", &[Arg::Ptr(&ba), Arg::Ptr(&bo)], n as u32, 64);
        let o = bo.f64s();
        for i in 0..n {
            let x = a[i];
            let want = [
                x.sin(),
                x.cos(),
                (x.abs() + 1.0).ln(),
                x.abs().powf(0.3),
                (x / 4.0).exp(),
                x.atan(),
            ];
            for k in 0..6 {
                let got = o[i * 6 + k];
                let ulp = (got.to_bits() as i64 - want[k].to_bits() as i64).unsigned_abs();
                assert!(
                    ulp <= 4 || (got - want[k]).abs() < 1e-15,
                    "{t} x={x} fn {k}: {got} vs {}",
                    want[k]
                );
            }
        }
    }
}

#[test]
fn half_ops() {
    use half::f16;
    let n = 128usize;
    let mut rng = Rng(4);
    let a: Vec<f16> = (0..2 * n)
        .map(|_| f16::from_f32(rng.f32(-8.0, 8.0)))
        .collect();
    let b: Vec<f16> = (0..2 * n)
        .map(|_| f16::from_f32(rng.f32(-8.0, 8.0)))
        .collect();
    let bytes = |v: &[f16]| {
        v.iter()
            .flat_map(|h| h.to_bits().to_le_bytes())
            .collect::<Vec<u8>>()
    };
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_half.cl", t);
        let (ba, bb, bo) = (
            e.buf_bytes(&bytes(&a)),
            e.buf_bytes(&bytes(&b)),
            e.zeros(2 * 8 * n),
        );
        e.run1(
            "half2_ops",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.u16s();
        for i in 0..n {
            for c in 0..2 {
                let (x, y) = (a[2 * i + c].to_f64(), b[2 * i + c].to_f64());
                let want = [
                    f16::from_f64(x + y),
                    f16::from_f64(x * y),
                    f16::from_f64(x.mul_add(y, x)),
                    f16::from_f64(x.max(y)),
                ];
                for k in 0..4 {
                    let got = o[i * 8 + k * 2 + c];
                    let unfused = f16::from_f64(f16::from_f64(x * y).to_f64() + x).to_bits();
                    assert!(
                        got == want[k].to_bits() || (k == 2 && got == unfused),
                        "{t} lane {i}.{c} op {k}: {:#x} vs {:#x}",
                        got,
                        want[k].to_bits()
                    );
                }
            }
        }
        let xs: Vec<f32> = (0..n).map(|i| (i as f32 - 64.0) * 517.3).collect();
        let (bx, bh, bk, bs) = (
            e.buf_f32(&xs),
            e.zeros(2 * n),
            e.zeros(4 * n),
            e.zeros(2 * n),
        );
        e.run1(
            "half_convert",
            &[Arg::Ptr(&bx), Arg::Ptr(&bh), Arg::Ptr(&bk), Arg::Ptr(&bs)],
            n as u32,
            64,
        );
        let (h, k, s) = (bh.u16s(), bk.f32s(), bs.u16s());
        for i in 0..n {
            let v = f16::from_f32(xs[i]);
            assert_eq!(h[i], v.to_bits(), "{t} convert_half({})", xs[i]);
            assert_eq!(
                k[i],
                f16::from_f32(v.to_f32() * 2.0).to_f32(),
                "{t} back {}",
                xs[i]
            );
            let sat = if v.is_nan() {
                0
            } else {
                v.to_f32().clamp(-32768.0, 32767.0) as i16
            };
            assert_eq!(s[i] as i16, sat, "{t} short_sat {}", xs[i]);
        }
    }
}

fn poly(x: i32, k: i32) -> i32 {
    let mut acc = 0i32;
    for j in 0..k {
        acc = acc.wrapping_mul(3).wrapping_add(x ^ j);
    }
    acc
}

#[test]
fn control_switch_loops_calls() {
    let n = 300usize;
    let mut rng = Rng(12);
    let input: Vec<i32> = (0..n)
        .map(|i| {
            if i % 17 == 0 {
                -(i as i32) - 1
            } else {
                (rng.next_u32() % 1000) as i32
            }
        })
        .collect();
    for t in TARGETS_W64
        .into_iter()
        .chain([GFX1030_FLAT_SCRATCH])
        .chain(TARGETS_V2)
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_control.cl", t);
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * n));
        e.run1(
            "switch_loops",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.i32s();
        for i in 0..n {
            let v = input[i];
            let want = if v < 0 {
                12345
            } else {
                match v & 7 {
                    0 => v * 2,
                    1 => v - 100,
                    3 => poly(v, 5),
                    5 => {
                        let mut r = 0;
                        for a in 0..(v & 15) {
                            if a == 7 {
                                continue;
                            }
                            for b in 0..4 {
                                if a * b > 20 {
                                    break;
                                }
                                r += a * b;
                            }
                        }
                        r
                    }
                    _ => -v,
                }
            };
            assert_eq!(o[i], want, "{t} switch_loops lane {i} v={v}");
        }
        let (bi2, bo2) = (
            e.buf_i32(&input.iter().map(|v| v.abs()).collect::<Vec<_>>()),
            e.zeros(4 * n),
        );
        e.run1(
            "calls_private",
            &[Arg::Ptr(&bi2), Arg::Ptr(&bo2)],
            n as u32,
            64,
        );
        let o = bo2.i32s();
        for i in 0..n {
            let v = input[i].abs();
            let cnt = 8 + (v & 15);
            let s: i32 = (0..cnt)
                .map(|j| (v.wrapping_mul(31) + j * j).wrapping_mul(j + 1))
                .fold(0, i32::wrapping_add);
            assert_eq!(
                o[i],
                s.wrapping_add(poly(v, 3)),
                "{t} calls_private lane {i}"
            );
        }
        let u: Vec<u32> = (0..n as u32).map(|i| i * 7919 + 1).collect();
        let (bu, bo3) = (e.buf_u32(&u), e.zeros(4 * n));
        e.run1(
            "while_divergent",
            &[Arg::Ptr(&bu), Arg::Ptr(&bo3)],
            n as u32,
            64,
        );
        let o = bo3.u32s();
        for i in 0..n {
            let (mut x, mut c) = (u[i], 0u32);
            while x > 1 {
                if x % 3 == 0 {
                    x /= 3
                } else if x & 1 == 1 {
                    x -= 1
                } else {
                    x >>= 1
                }
                c += 1;
            }
            assert_eq!(o[i], c, "{t} while_divergent {i}");
        }
    }
}

#[test]
fn lds_transpose_scan_atomics() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_lds.cl", t);
        let (w, h) = (37u32, 21u32);
        let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let (bi, bo) = (e.buf_f32(&input), e.zeros(4 * (w * h) as usize));
        e.run(
            "transpose",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo), Arg::U32(w), Arg::U32(h)],
            [w.div_ceil(16) * 16, h.div_ceil(16) * 16, 1],
            [16, 16, 1],
        );
        let o = bo.f32s();
        for y in 0..h {
            for x in 0..w {
                assert_eq!(
                    o[(x * h + y) as usize],
                    input[(y * w + x) as usize],
                    "{t} transpose ({x},{y})"
                );
            }
        }

        let n = 1024usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 50).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * n));
        e.run1(
            "scan_inclusive",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
            n as u32,
            256,
        );
        let o = bo.i32s();
        for g in 0..n / 256 {
            let mut acc = 0;
            for l in 0..256 {
                acc += input[g * 256 + l];
                assert_eq!(o[g * 256 + l], acc, "{t} scan group {g} lane {l}");
            }
        }

        let groups = 3usize;
        let input: Vec<i32> = (0..256 * groups as i32)
            .map(|i| (i * 7919) % 2001 - 1000)
            .collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * 16 * groups));
        e.run1(
            "local_atomics",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
            256 * groups as u32,
            256,
        );
        let o = bo.i32s();
        for g in 0..groups {
            let v = &input[g * 256..g * 256 + 256];
            let r = &o[g * 16..g * 16 + 16];
            assert_eq!(r[0], v.iter().sum::<i32>(), "{t} add");
            assert_eq!(r[1], -v.iter().sum::<i32>(), "{t} sub");
            assert_eq!(r[2], 5, "{t} xchg");
            assert_eq!(r[3], *v.iter().min().expect("min"), "{t} min");
            assert_eq!(r[4], *v.iter().max().expect("max"), "{t} max");
            assert_eq!(r[5], v.iter().fold(0, |a, b| a & b), "{t} and");
            assert_eq!(r[6], v.iter().fold(0, |a, b| a | b), "{t} or");
            assert_eq!(r[7], v.iter().fold(-1, |a, b| a ^ b), "{t} xor");
            assert_eq!(r[8], 256, "{t} inc");
            assert_eq!(r[9], -256, "{t} dec");
            assert!((0..256).contains(&r[10]), "{t} cmpxchg {}", r[10]);
            let s64: i64 = v.iter().map(|&x| i64::from(x) << 20).sum();
            assert_eq!(
                r[12] as u32 as i64 | (i64::from(r[13]) << 32),
                s64,
                "{t} add64"
            );
            let m64 = v
                .iter()
                .map(|&x| i64::from(x) * i64::from(x))
                .max()
                .expect("max");
            assert_eq!(
                r[14] as u32 as i64 | (i64::from(r[15]) << 32),
                m64,
                "{t} max64"
            );
        }
    }
}

#[test]
fn global_atomics_every_op() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_atomics.cl", t);
        let n = 1000usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 104729) % 5003 - 2500).collect();
        let bi = e.buf_i32(&input);
        let c = e.buf_i32(&[0, 0, i32::MAX, i32::MIN, -1, 0, 0]);
        let c64 = e.buf_u64(&[0, i64::MAX as u64, i64::MIN as u64, 0, 0]);
        let u = e.buf_u32(&[0, 0, u32::MAX, 0]);
        e.run1(
            "global_atomics",
            &[Arg::Ptr(&bi), Arg::Ptr(&c), Arg::Ptr(&c64), Arg::Ptr(&u)],
            n as u32,
            128,
        );
        let (cv, c64v, uv) = (c.i32s(), c64.u64s(), u.u32s());
        let sum: i32 = input.iter().sum();
        assert_eq!(cv[0], sum, "{t} add");
        assert_eq!(cv[1], -sum, "{t} sub");
        assert_eq!(cv[2], *input.iter().min().expect("x"), "{t} min");
        assert_eq!(cv[3], *input.iter().max().expect("x"), "{t} max");
        assert_eq!(
            cv[4],
            input.iter().fold(-1, |a, b| a & (b | 0x10000)),
            "{t} and"
        );
        assert_eq!(cv[5], input.iter().fold(0, |a, b| a | (b & 0xff)), "{t} or");
        assert_eq!(cv[6], input.iter().fold(0, |a, b| a ^ b), "{t} xor");
        assert_eq!(uv[0], n as u32, "{t} inc");
        assert_eq!(uv[1], 0u32.wrapping_sub(n as u32), "{t} dec");
        assert_eq!(
            uv[2],
            input.iter().map(|&x| x as u32).min().expect("x"),
            "{t} umin"
        );
        assert_eq!(
            uv[3],
            input.iter().map(|&x| x as u32).max().expect("x"),
            "{t} umax"
        );
        assert_eq!(
            c64v[0] as i64,
            input.iter().map(|&x| i64::from(x) * 1_000_000).sum::<i64>(),
            "{t} add64"
        );
        assert_eq!(
            c64v[1] as i64,
            input.iter().map(|&x| i64::from(x) * 3).min().expect("x"),
            "{t} min64"
        );
        assert_eq!(
            c64v[2] as i64,
            input.iter().map(|&x| i64::from(x) * 3).max().expect("x"),
            "{t} max64"
        );
        assert_eq!(
            c64v[3],
            input
                .iter()
                .fold(0u64, |a, &b| a ^ ((b as i64 as u64) << 32)),
            "{t} xor64"
        );
        assert!(
            (1..=n as u64).contains(&c64v[4]),
            "{t} cmpxchg64 {}",
            c64v[4]
        );

        let f: Vec<f32> = (0..512).map(|i| (i % 8) as f32 * 0.5).collect();
        let sum = e.buf_f32(&[0.0]);
        e.run1(
            "float_atomic_add",
            &[Arg::Ptr(&e.buf_f32(&f)), Arg::Ptr(&sum)],
            512,
            64,
        );
        assert_eq!(sum.f32s()[0], f.iter().sum::<f32>(), "{t} float CAS add");
    }
}

#[test]
fn cross_workgroup_spin_lock() {
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_atomics.cl", t);
        let groups = 64usize;
        let (lock, counter, order) = (e.zeros(4), e.zeros(4), e.zeros(4 * groups));
        e.run1(
            "spin_lock",
            &[Arg::Ptr(&lock), Arg::Ptr(&counter), Arg::Ptr(&order)],
            64 * groups as u32,
            64,
        );
        assert_eq!(counter.i32s()[0], groups as i32, "{t} counter");
        let mut seen = order.i32s();
        seen.sort();
        assert_eq!(
            seen,
            (0..groups as i32).collect::<Vec<_>>(),
            "{t} every group once"
        );
        assert_eq!(lock.i32s()[0], 0, "{t} lock released");
    }
}

#[test]
fn wave_builtins_dpp_swizzle_bpermute() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_wave.cl", t);
        let n = 128usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 10 + 1).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * 8 * n));
        e.run1("wave_ops", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], n as u32, 64);
        let o = bo.i32s();
        // Lane numbers, readfirstlane and the ds_bpermute index (which wraps at the wave size)
        // follow the wave size; DPP and ds_swizzle work within rows, quads and 32-lane groups.
        let ws = wave_size(t);
        for i in 0..n {
            let l = i % ws;
            let base = i - l;
            let v = |lane: usize| input[base + lane];
            let want = [
                l as i32,
                v(((l + 1) & 63) % ws),
                v(l ^ 1),
                if l.is_multiple_of(16) { 0 } else { v(l - 1) },
                v(0),
                v((l & !3) + 3 - (l & 3)),
                v((l & !3) + 3 - (l & 3)),
                v((l & !15) + 15 - (l & 15)),
            ];
            for k in 0..8 {
                assert_eq!(o[i * 8 + k], want[k], "{t} lane {i} op {k}");
            }
        }
    }
}

#[test]
fn kernel_spinning_on_host_flag_makes_progress() {
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_atomics.cl", t);
        let (flag, seen) = (e.zeros(4), e.zeros(4 * 128));
        let flag_addr = flag.addr() as usize;
        std::thread::scope(|s| {
            s.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(50));
                // SAFETY: `flag` is a live, 4-byte-aligned test buffer; the kernel reads it with
                // atomics, so an atomic store from this thread is well defined.
                let a = unsafe { &*(flag_addr as *const std::sync::atomic::AtomicI32) };
                a.store(42, std::sync::atomic::Ordering::Release);
            });
            e.run1(
                "wait_for_host",
                &[Arg::Ptr(&flag), Arg::Ptr(&seen)],
                128,
                64,
            );
        });
        assert!(seen.i32s().iter().all(|&v| v == 42), "{t}");
    }
}

#[test]
fn double_trig_large_arguments() {
    let n = 64usize;
    let a: Vec<f64> = (0..n)
        .map(|i| 1.234_567e3 * 10f64.powi((i % 16) as i32) * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    for t in TARGETS
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
    {
        let e = emu("cl/emu_double.cl", t);
        let (ba, bo) = (e.buf_f64(&a), e.zeros(8 * 2 * n));
        e.run1(
            "double_big_trig",
            &[Arg::Ptr(&ba), Arg::Ptr(&bo)],
            n as u32,
            64,
        );
        let o = bo.f64s();
        for i in 0..n {
            for (k, want) in [a[i].sin(), a[i].cos()].into_iter().enumerate() {
                let got = o[i * 2 + k];
                let ulp = (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs();
                assert!(ulp <= 2, "{t} x={} fn {k}: {got} vs {want}", a[i]);
            }
        }
    }
}

#[test]
fn sub_group_reductions_and_scans() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_CDNA3)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/emu_wave.cl", t);
        let ws = wave_size(t);
        let n = 256usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2003 - 700).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * 6 * n));
        e.run1("subgroups", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], n as u32, 128);
        let o = bo.i32s();
        for i in 0..n {
            let l = i % ws;
            let wave = &input[i - l..i - l + ws];
            let want = [
                wave.iter().sum::<i32>(),
                wave[..=l].iter().sum::<i32>(),
                wave[..l].iter().copied().max().unwrap_or(i32::MIN),
                wave[3],
                i32::from(wave.iter().any(|&v| v > 1000)),
                ws as i32,
            ];
            for k in 0..6 {
                assert_eq!(o[i * 6 + k], want[k], "{t} work-item {i} op {k}");
            }
        }
    }
}

/// The GFX10 lane permutes and DPP controls (tests/kernels/cl/emu_wave10.cl) in wave32 and
/// wave64, with all lanes active and in divergent code (odd inputs active), where `fi` and
/// `bound_ctrl` decide what an inactive source lane gives.
#[test]
fn gfx10_permlane_dpp8_row_share_xmask() {
    for t in ["gfx1030", GFX1030_W64] {
        let e = emu("cl/emu_wave10.cl", t);
        let ws = wave_size(t);
        let n = 256usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 37 + 11) % 101).collect();
        let sel = |k: usize| (k * 7 + 3) & 15;
        let sel64 = (0..16).fold(0u64, |a, k| a | (sel(k) as u64) << (4 * k));
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * 10 * n));
        e.run1(
            "lanes10",
            &[
                Arg::Ptr(&bi),
                Arg::Ptr(&bo),
                Arg::U32(sel64 as u32),
                Arg::U32((sel64 >> 32) as u32),
            ],
            n as u32,
            64,
        );
        let o = bo.i32s();
        for i in 0..n {
            let l = i % ws;
            let base = i - l;
            let v = |lane: usize| input[base + lane];
            let active = |lane: usize| v(lane) & 1 != 0;
            let p16 = (l & !15) + sel(l & 15);
            let px16 = ((l ^ 16) & !15) + sel(l & 15);
            let shr1 = (!l.is_multiple_of(16)).then(|| l - 1);
            let mut want = [
                v(p16),
                v(px16),
                v((l & !7) + 7 - (l & 7)),
                v((l & !15) + 5),
                v((l & !15) + ((l & 15) ^ 3)),
                -1,
                -1,
                -1,
                -1,
                -1,
            ];
            if active(l) {
                want[5] = if active(p16) { v(p16) } else { -2 };
                want[6] = if active(p16) { v(p16) } else { 0 };
                want[7] = v(px16);
                want[8] = shr1.filter(|&s| active(s)).map_or(-3, v);
                want[9] = shr1.filter(|&s| active(s)).map_or(0, v);
            }
            for k in 0..10 {
                assert_eq!(o[i * 10 + k], want[k], "{t} work-item {i} op {k}");
            }
        }
    }
}
