//! RDNA3 WMMA kernels (tests/kernels/cl/emu_wmma.cl), compiled by clang-22 from
//! `__builtin_amdgcn_wmma_*` for gfx1100 and gfx1151 in wave32 and for gfx1100 in wave64, run
//! on the emulator and compared with matrix products computed here. The kernels place A, B,
//! C and D by AMD's documented register layout, so a wrong layout, type, rounding or
//! modifier in the emulator shows as a wrong product. (Per-instruction tests with every
//! modifier: `tests/inst/gfx11.rs`.)

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

mod common;
use common::*;
use half::f16;

/// (test target, processor, extra clang options)
fn targets() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    vec![
        ("gfx1100", "gfx1100", &[]),
        ("gfx1151", "gfx1151", &[]),
        ("gfx1100-w64", "gfx1100", &["-mwavefrontsize64", "-DWAVE64"]),
    ]
}

fn load(processor: &str, extra: &[&str]) -> Emu {
    let path = hsaemu_testkit::compile_cl_with("cl/emu_wmma.cl", processor, 5, extra);
    from_bytes(&std::fs::read(&path).expect("read kernel"), processor, 5)
}

/// Quarters in [-2, 2]: exact in f16 and bf16, and every sum here is exact in f32 and f16.
fn quarters(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| f64::from(rng.next_u32() % 17) / 4.0 - 2.0)
        .collect()
}

fn bf16(x: f64) -> u16 {
    ((x as f32).to_bits() >> 16) as u16
}

/// `A·B + C` for row-major 16×16 matrices.
fn gemm(a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let mut d = vec![0.0; 256];
    for i in 0..16 {
        for j in 0..16 {
            d[i * 16 + j] =
                c[i * 16 + j] + (0..16).map(|k| a[i * 16 + k] * b[k * 16 + j]).sum::<f64>();
        }
    }
    d
}

fn transpose<T: Copy>(m: &[T]) -> Vec<T> {
    (0..256).map(|n| m[(n % 16) * 16 + n / 16]).collect()
}

fn halves(v: &[f64]) -> Vec<u8> {
    v.iter()
        .flat_map(|&x| f16::from_f64(x).to_le_bytes())
        .collect()
}

fn bf16s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|&x| bf16(x).to_le_bytes()).collect()
}

fn f32s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
}

fn run(e: &Emu, kernel: &str, bufs: &[&Buf], wave: u32) {
    let args: Vec<Arg> = bufs.iter().map(|&b| Arg::Ptr(b)).collect();
    e.run(kernel, &args, [wave, 1, 1], [wave as u16, 1, 1]);
}

#[test]
fn float_products() {
    for (t, p, extra) in targets() {
        let e = load(p, extra);
        let wave = if extra.is_empty() { 32 } else { 64 };
        let mut rng = Rng(0x3a17 + wave as u64);
        let (a, b, c) = (
            quarters(&mut rng, 256),
            quarters(&mut rng, 256),
            quarters(&mut rng, 256),
        );
        let want = gemm(&a, &b, &c);
        let bt = transpose(&b);
        // f16 and bf16 inputs, f32 results.
        for (kernel, enc) in [
            ("wmma_f32_f16", halves as fn(&[f64]) -> Vec<u8>),
            ("wmma_f32_bf16", bf16s),
        ] {
            let (ba, bb, bc, bd) = (
                e.buf_bytes(&enc(&a)),
                e.buf_bytes(&enc(&bt)),
                e.buf_bytes(&f32s(&c)),
                e.zeros(1024),
            );
            run(&e, kernel, &[&ba, &bb, &bc, &bd], wave);
            let got: Vec<f64> = bd.f32s().into_iter().map(f64::from).collect();
            assert_eq!(got, want, "{t} {kernel}");
        }
        // f16 results in both halves of the same registers (op_sel 0 then 1).
        let (a2, c2) = (quarters(&mut rng, 256), quarters(&mut rng, 256));
        let want2 = gemm(&a2, &b, &c2);
        let bufs = [
            e.buf_bytes(&halves(&a)),
            e.buf_bytes(&halves(&a2)),
            e.buf_bytes(&halves(&bt)),
            e.buf_bytes(&halves(&c)),
            e.buf_bytes(&halves(&c2)),
            e.zeros(512),
            e.zeros(512),
        ];
        run(&e, "wmma_f16_f16", &bufs.iter().collect::<Vec<_>>(), wave);
        let f16s = |b: &Buf| -> Vec<f64> {
            b.u16s()
                .into_iter()
                .map(|x| f16::from_bits(x).to_f64())
                .collect()
        };
        assert_eq!(f16s(&bufs[5]), want, "{t} wmma_f16_f16 low halves");
        assert_eq!(f16s(&bufs[6]), want2, "{t} wmma_f16_f16 high halves");
        // bf16 results: the exact f32 sum rounded to nearest even. C is ±64..127 (exact in
        // bf16), so that most sums (sixteenths) need rounding.
        let cb: Vec<f64> = (0..256)
            .map(|_| {
                let x = rng.next_u32();
                f64::from(64 + x % 64) * if x & 1 << 20 != 0 { -1.0 } else { 1.0 }
            })
            .collect();
        let want = gemm(&a, &b, &cb);
        let (ba, bb, bc, bd) = (
            e.buf_bytes(&bf16s(&a)),
            e.buf_bytes(&bf16s(&bt)),
            e.buf_bytes(&bf16s(&cb)),
            e.zeros(512),
        );
        run(&e, "wmma_bf16_bf16", &[&ba, &bb, &bc, &bd], wave);
        let rne: Vec<u16> = want
            .iter()
            .map(|&x| {
                let b = (x as f32).to_bits();
                ((b + 0x7fff + (b >> 16 & 1)) >> 16) as u16
            })
            .collect();
        assert_eq!(bd.u16s(), rne, "{t} wmma_bf16_bf16");
        // Some sums need rounding in bf16 (more than 8 significant bits).
        assert!(rne
            .iter()
            .zip(&want)
            .any(|(&r, &w)| f64::from(f32::from_bits(u32::from(r) << 16)) != w));
    }
}

#[test]
fn integer_products() {
    for (t, p, extra) in targets() {
        let e = load(p, extra);
        let wave = if extra.is_empty() { 32 } else { 64 };
        let mut rng = Rng(0x1b8 + wave as u64);
        // iu8: A signed, B unsigned; C near the i32 limits in some elements.
        let a: Vec<u8> = (0..256).map(|_| rng.next_u32() as u8).collect();
        let b: Vec<u8> = (0..256).map(|_| rng.next_u32() as u8).collect();
        let c: Vec<i32> = (0..256)
            .map(|n| match n % 3 {
                0 => i32::MAX - (rng.next_u32() % 1000) as i32,
                1 => i32::MIN + (rng.next_u32() % 1000) as i32,
                _ => (rng.next_u32() % 20001) as i32 - 10000,
            })
            .collect();
        let exact: Vec<i64> = (0..256)
            .map(|n| {
                let (i, j) = (n / 16, n % 16);
                i64::from(c[n])
                    + (0..16)
                        .map(|k| i64::from(a[i * 16 + k] as i8) * i64::from(b[k * 16 + j]))
                        .sum::<i64>()
            })
            .collect();
        let (ba, bb, bc, bd, bd2) = (
            e.buf_bytes(&a),
            e.buf_bytes(&transpose(&b)),
            e.buf_i32(&c),
            e.zeros(1024),
            e.zeros(1024),
        );
        run(&e, "wmma_iu8", &[&ba, &bb, &bc, &bd, &bd2], wave);
        let wrap: Vec<i32> = exact.iter().map(|&x| x as i32).collect();
        let sat: Vec<i32> = exact
            .iter()
            .map(|&x| x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
            .collect();
        assert_eq!(bd.i32s(), wrap, "{t} wmma_iu8");
        assert_eq!(bd2.i32s(), sat, "{t} wmma_iu8 clamp");
        assert_ne!(wrap, sat, "the test saturates some elements");
        // iu4: A unsigned, B signed, two nibbles a byte (low first), rows of 8 bytes.
        let a4: Vec<u8> = (0..256).map(|_| rng.next_u32() as u8 & 15).collect();
        let b4: Vec<u8> = (0..256).map(|_| rng.next_u32() as u8 & 15).collect();
        let pack = |m: &[u8]| -> Vec<u8> { m.chunks(2).map(|p| p[0] | p[1] << 4).collect() };
        let c4: Vec<i32> = (0..256)
            .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
            .collect();
        let (ba, bb, bc, bd) = (
            e.buf_bytes(&pack(&a4)),
            e.buf_bytes(&pack(&transpose(&b4))),
            e.buf_i32(&c4),
            e.zeros(1024),
        );
        run(&e, "wmma_iu4", &[&ba, &bb, &bc, &bd], wave);
        let want: Vec<i32> = (0..256)
            .map(|n| {
                let (i, j) = (n / 16, n % 16);
                c4[n]
                    + (0..16)
                        .map(|k| {
                            i32::from(a4[i * 16 + k]) * i32::from((b4[k * 16 + j] << 4) as i8 >> 4)
                        })
                        .sum::<i32>()
            })
            .collect();
        assert_eq!(bd.i32s(), want, "{t} wmma_iu4");
    }
}
