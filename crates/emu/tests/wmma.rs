//! RDNA3 WMMA kernels (tests/kernels/cl/emu_wmma.cl), compiled by clang-22 from
//! `__builtin_amdgcn_wmma_*` for gfx1100 and gfx1151 in wave32 and for gfx1100 in wave64, run
//! on the emulator and compared with matrix products computed here; and every RDNA4 WMMA and
//! SWMMAC shape (tests/kernels/cl/emu_wmma12.cl, `gfx12_every_shape`) on gfx1200 and gfx1201
//! in both wave sizes. The kernels place A, B,
//! C and D by AMD's documented register layout, so a wrong layout, type, rounding or
//! modifier in the emulator shows as a wrong product. (Per-instruction tests with every
//! modifier: `tests/inst/gfx11.rs`.)

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;
use half::f16;
use hsaemu_emu::{run_words, FaultKind, Gen, WaveRegs};

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

// ---------------------------------------------------------------------------------------------
// GFX12 (RDNA4): every WMMA and SWMMAC shape, wave32 and wave64.
//
// The kernels (tests/kernels/cl/emu_wmma12.cl) only move registers: lane l loads its A, B and
// C (or index) VGPRs from element l of each buffer and stores D. The test places matrices in
// those registers by AMD's layout, written here as the Matrix Instruction Calculator's
// closed-form formulas (`InstCalcGfx12`: `__get_input_reg`, `__get_input_lane`,
// `__get_compression_bits`, `__get_output_reg_lanes`), and compares D with CPU products.

/// GFX12 test targets: (name, processor, wave size, extra clang options).
fn gfx12_targets() -> Vec<(&'static str, &'static str, usize, &'static [&'static str])> {
    vec![
        ("gfx1200", "gfx1200", 32, &[]),
        ("gfx1201", "gfx1201", 32, &[]),
        (
            "gfx1200-w64",
            "gfx1200",
            64,
            &["-mwavefrontsize64", "-DWAVE64"],
        ),
        (
            "gfx1201-w64",
            "gfx1201",
            64,
            &["-mwavefrontsize64", "-DWAVE64"],
        ),
    ]
}

/// Element types of the GFX12 shapes.
#[derive(Clone, Copy, PartialEq, Debug)]
enum T {
    F16,
    Bf16,
    /// OCP E4M3FN.
    Fp8,
    /// OCP E5M2.
    Bf8,
    I8,
    I4,
    F32,
    I32,
}

impl T {
    fn bits(self) -> usize {
        match self {
            T::F16 | T::Bf16 => 16,
            T::Fp8 | T::Bf8 | T::I8 => 8,
            T::I4 => 4,
            T::F32 | T::I32 => 32,
        }
    }
}

/// One GFX12 opcode and its kernel: K, A/B/result types, SWMMAC or not.
struct Case {
    kernel: &'static str,
    op: &'static str,
    k: usize,
    a: T,
    b: T,
    out: T,
    sparse: bool,
}

const fn case(kernel: &'static str, k: usize, a: T, b: T, out: T, sparse: bool) -> Case {
    Case {
        kernel,
        op: "",
        k,
        a,
        b,
        out,
        sparse,
    }
}

/// Every GFX12 WMMA and SWMMAC opcode, one kernel each.
const CASES: &[Case] = &[
    op(
        "v_wmma_f32_16x16x16_f16",
        case("wmma_f32_f16", 16, T::F16, T::F16, T::F32, false),
    ),
    op(
        "v_wmma_f32_16x16x16_bf16",
        case("wmma_f32_bf16", 16, T::Bf16, T::Bf16, T::F32, false),
    ),
    op(
        "v_wmma_f16_16x16x16_f16",
        case("wmma_f16_f16", 16, T::F16, T::F16, T::F16, false),
    ),
    op(
        "v_wmma_bf16_16x16x16_bf16",
        case("wmma_bf16_bf16", 16, T::Bf16, T::Bf16, T::Bf16, false),
    ),
    op(
        "v_wmma_i32_16x16x16_iu8",
        case("wmma_iu8", 16, T::I8, T::I8, T::I32, false),
    ),
    op(
        "v_wmma_i32_16x16x16_iu4",
        case("wmma_iu4", 16, T::I4, T::I4, T::I32, false),
    ),
    op(
        "v_wmma_i32_16x16x32_iu4",
        case("wmma_iu4_k32", 32, T::I4, T::I4, T::I32, false),
    ),
    op(
        "v_wmma_f32_16x16x16_fp8_fp8",
        case("wmma_fp8_fp8", 16, T::Fp8, T::Fp8, T::F32, false),
    ),
    op(
        "v_wmma_f32_16x16x16_fp8_bf8",
        case("wmma_fp8_bf8", 16, T::Fp8, T::Bf8, T::F32, false),
    ),
    op(
        "v_wmma_f32_16x16x16_bf8_fp8",
        case("wmma_bf8_fp8", 16, T::Bf8, T::Fp8, T::F32, false),
    ),
    op(
        "v_wmma_f32_16x16x16_bf8_bf8",
        case("wmma_bf8_bf8", 16, T::Bf8, T::Bf8, T::F32, false),
    ),
    op(
        "v_swmmac_f32_16x16x32_f16",
        case("swmmac_f32_f16", 32, T::F16, T::F16, T::F32, true),
    ),
    op(
        "v_swmmac_f32_16x16x32_bf16",
        case("swmmac_f32_bf16", 32, T::Bf16, T::Bf16, T::F32, true),
    ),
    op(
        "v_swmmac_f16_16x16x32_f16",
        case("swmmac_f16_f16", 32, T::F16, T::F16, T::F16, true),
    ),
    op(
        "v_swmmac_bf16_16x16x32_bf16",
        case("swmmac_bf16_bf16", 32, T::Bf16, T::Bf16, T::Bf16, true),
    ),
    op(
        "v_swmmac_i32_16x16x32_iu8",
        case("swmmac_iu8", 32, T::I8, T::I8, T::I32, true),
    ),
    op(
        "v_swmmac_i32_16x16x32_iu4",
        case("swmmac_iu4", 32, T::I4, T::I4, T::I32, true),
    ),
    op(
        "v_swmmac_i32_16x16x64_iu4",
        case("swmmac_iu4_k64", 64, T::I4, T::I4, T::I32, true),
    ),
    op(
        "v_swmmac_f32_16x16x32_fp8_fp8",
        case("swmmac_fp8_fp8", 32, T::Fp8, T::Fp8, T::F32, true),
    ),
    op(
        "v_swmmac_f32_16x16x32_fp8_bf8",
        case("swmmac_fp8_bf8", 32, T::Fp8, T::Bf8, T::F32, true),
    ),
    op(
        "v_swmmac_f32_16x16x32_bf8_fp8",
        case("swmmac_bf8_fp8", 32, T::Bf8, T::Fp8, T::F32, true),
    ),
    op(
        "v_swmmac_f32_16x16x32_bf8_bf8",
        case("swmmac_bf8_bf8", 32, T::Bf8, T::Bf8, T::F32, true),
    ),
];

const fn op(op: &'static str, c: Case) -> Case {
    Case { op, ..c }
}

fn gfx12_case(op: &str) -> &'static Case {
    CASES.iter().find(|c| c.op == op).expect("a GFX12 case")
}

/// (VGPR, lane, bit) of an element.
type Place = (usize, usize, usize);

/// Dense A[r][k] (or B[k][r]): the calculator's formulas for wave32 and wave64.
fn dense_place(bits: usize, kk: usize, wave: usize, r: usize, k: usize) -> Place {
    match (wave, bits, kk) {
        (32, 16, _) => (
            2 * (k / 8) + (k / 2) % 2,
            16 * ((k / 4) % 2) + r,
            16 * (k % 2),
        ),
        (32, 8, _) => ((k / 4) % 2, 16 * (k / 8) + r, 8 * (k % 4)),
        (32, 4, 16) | (64, 4, 16) => (0, 16 * (k / 8) + r, 4 * (k % 8)),
        (32, 4, _) => ((k / 8) % 2, 16 * (k / 16) + r, 4 * (k % 8)),
        (64, 16, _) => (
            (k / 2) % 2,
            32 * ((k / 8) % 2) + 16 * ((k / 4) % 2) + r,
            16 * (k % 2),
        ),
        (64, 8, _) => (0, 32 * ((k / 4) % 2) + 16 * ((k / 8) % 2) + r, 8 * (k % 4)),
        _ => (0, 32 * ((k / 8) % 2) + 16 * ((k / 16) % 2) + r, 4 * (k % 8)),
    }
}

/// SWMMAC A: kept value `v` (0, 1) of the group of k in row i.
fn sparse_a_place(bits: usize, kk: usize, wave: usize, i: usize, k: usize, v: usize) -> Place {
    let pair = 2 * bits * ((k / 4) % (16 / bits)) + v * bits;
    match (wave, bits, kk) {
        (32, 16, _) => (2 * (k / 16) + (k / 4) % 2, 16 * ((k / 8) % 2) + i, 16 * v),
        (32, 8, _) => ((k / 8) % 2, 16 * (k / 16) + i, pair),
        (32, 4, 64) => ((k / 16) % 2, 16 * (k / 32) + i, pair),
        (_, 4, 32) => (0, 16 * (k / 16) + i, pair),
        (64, 16, _) => ((k / 4) % 2, 16 * (k / 8) + i, 16 * v),
        (64, 8, _) => (0, 32 * ((k / 8) % 2) + 16 * (k / 16) + i, pair),
        _ => (0, 32 * ((k / 16) % 2) + 16 * (k / 32) + i, pair),
    }
}

/// SWMMAC B[k][j].
fn sparse_b_place(bits: usize, kk: usize, wave: usize, j: usize, k: usize) -> Place {
    let bit = bits * (k % (32 / bits));
    match (wave, bits, kk) {
        (32, 16, _) => (4 * (k / 16) + (k / 2) % 4, 16 * ((k / 8) % 2) + j, bit),
        (32, 8, _) => ((k / 4) % 4, 16 * (k / 16) + j, bit),
        (32, 4, 32) => ((k / 8) % 2, 16 * (k / 16) + j, bit),
        (32, 4, _) => ((k / 8) % 4, 16 * (k / 32) + j, bit),
        (64, 16, _) => ((k / 2) % 4, 16 * (k / 8) + j, bit),
        (64, 8, _) => ((k / 4) % 2, 32 * ((k / 8) % 2) + 16 * (k / 16) + j, bit),
        (64, 4, 32) => (0, 32 * ((k / 8) % 2) + 16 * (k / 16) + j, bit),
        _ => ((k / 8) % 2, 32 * ((k / 16) % 2) + 16 * (k / 32) + j, bit),
    }
}

/// SWMMAC index of the group of k in row i: (lane, bit) in set 0, and the number of sets.
fn index_place(bits: usize, kk: usize, wave: usize, i: usize, k: usize) -> (usize, usize, usize) {
    match (wave, bits, kk) {
        (32, 16, _) => (16 * ((k / 8) % 2) + i, 8 * (k / 16) + 4 * ((k / 4) % 2), 2),
        (32, 4, 64) => (16 * (k / 32) + i, 4 * ((k / 4) % 8), 1),
        (32, _, _) => (16 * (k / 16) + i, 4 * ((k / 4) % 4), 2),
        (64, 16, _) => (16 * (k / 8) + i, 4 * ((k / 4) % 2), 4),
        (64, 8, _) => (32 * ((k / 8) % 2) + 16 * (k / 16) + i, 4 * ((k / 4) % 2), 4),
        (64, 4, 32) => (16 * (k / 16) + i, 4 * ((k / 4) % 4), 2),
        _ => (
            32 * ((k / 16) % 2) + 16 * (k / 32) + i,
            4 * ((k / 4) % 4),
            2,
        ),
    }
}

/// C/D[i][j].
fn out_place(bits: usize, wave: usize, i: usize, j: usize) -> Place {
    let half = 16 * (i % 2) * usize::from(bits == 16);
    match (wave, bits) {
        (32, 32) => (i % 8, 16 * (i / 8) + j, 0),
        (32, _) => ((i / 2) % 4, 16 * (i / 8) + j, half),
        (_, 32) => (i % 4, 32 * ((i / 4) % 2) + 16 * (i / 8) + j, 0),
        _ => ((i / 2) % 2, 32 * ((i / 4) % 2) + 16 * (i / 8) + j, half),
    }
}

/// The registers of one operand, lane by lane (`lane · regs + reg`, as the kernels load
/// them), initialised to junk: only the placed elements may matter.
struct Regs {
    regs: usize,
    v: Vec<u32>,
}

impl Regs {
    fn junk(regs: usize, wave: usize, rng: &mut Rng) -> Regs {
        Regs {
            regs,
            v: (0..regs * wave).map(|_| rng.next_u32()).collect(),
        }
    }

    fn put(&mut self, (r, l, b): Place, bits: usize, x: u32) {
        let m = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        let w = &mut self.v[l * self.regs + r];
        *w = *w & !(m << b) | (x & m) << b;
    }

    fn get(&self, (r, l, b): Place, bits: usize) -> u32 {
        let m = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        self.v[l * self.regs + r] >> b & m
    }

    fn bytes(&self) -> Vec<u8> {
        self.v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// An 8-bit float (normal values and zero only: what the test uses): sign, `exp` exponent
/// bits with bias `2^(exp-1) - 1`, `7 - exp` mantissa bits.
fn f8_bits(x: f64, exp: u32) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let man = 7 - exp;
    let bias = (1i32 << (exp - 1)) - 1;
    let e = x.abs().log2().floor() as i32;
    let m = (x.abs() / 2f64.powi(e) - 1.0) * f64::from(1u32 << man);
    assert_eq!(m.fract(), 0.0, "{x} is not exact in fp8/bf8");
    u32::from(x < 0.0) << 7 | ((e + bias) as u32) << man | m as u32
}

/// Test values of a type, as (value, bits): floats from a set whose products and sums are
/// exact in f32 (and in f16 for the 16-bit shapes' quarters); integers random.
fn sample(t: T, rng: &mut Rng) -> (f64, u32) {
    const F8: [f64; 14] = [
        0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 3.0, 4.0, 6.0, 0.125, 0.0625,
    ];
    let r = rng.next_u32();
    match t {
        T::F16 | T::Bf16 => {
            let x = f64::from(r % 17) / 4.0 - 2.0;
            let bits = if t == T::F16 {
                f16::from_f64(x).to_bits()
            } else {
                bf16(x)
            };
            (x, u32::from(bits))
        }
        T::Fp8 | T::Bf8 => {
            let x = F8[(r % 14) as usize] * if r & 1 << 16 != 0 { -1.0 } else { 1.0 };
            (x, f8_bits(x, if t == T::Fp8 { 4 } else { 5 }))
        }
        T::I8 => (0.0, r & 0xff),
        _ => (0.0, r & 0xf),
    }
}

/// An integer element's value, signed or not.
fn int_value(x: u32, bits: usize, signed: bool) -> i64 {
    if signed {
        let up = 32 - bits as u32;
        i64::from(((x << up) as i32) >> up)
    } else {
        i64::from(x)
    }
}

/// One GFX12 case's inputs: the operand registers and the matrices they hold.
struct Setup {
    wave: usize,
    ra: Regs,
    rb: Regs,
    rc: Regs,
    /// SWMMAC: the index VGPR (set 0 and the set at bit 16 hold indices, the rest junk).
    ri: Regs,
    /// A's raw elements (row-major 16×K; SWMMAC: value v of group g at column 4g + v) and
    /// their bit offsets in their VGPRs (for `neg_lo`/`neg_hi`).
    a_raw: Vec<u32>,
    a_val: Vec<f64>,
    a_bit: Vec<usize>,
    /// SWMMAC: the positions (of four) of each group's two values, for set 0 and the set at
    /// bit 16.
    kept: [Vec<[usize; 2]>; 2],
    b_raw: Vec<u32>,
    b_val: Vec<f64>,
    b_bit: Vec<usize>,
    c_val: Vec<f64>,
}

fn setup(c: &Case, wave: usize, rng: &mut Rng) -> Setup {
    let kk = c.k;
    let bits = c.a.bits();
    let regs = |wave32: usize| {
        if wave == 32 {
            wave32
        } else {
            wave32.div_ceil(2)
        }
    };
    let stored = if c.sparse { kk / 2 } else { kk };
    let (a_regs32, b_regs32, out_regs32) = (stored * bits / 64, kk * bits / 64, c.out.bits() / 4);
    // A one-VGPR wave32 operand keeps lanes 0–31 in wave64; lanes 32–63 hold junk here.
    let mut s = Setup {
        wave,
        ra: Regs::junk(regs(a_regs32), wave, rng),
        rb: Regs::junk(regs(b_regs32), wave, rng),
        rc: Regs::junk(regs(out_regs32), wave, rng),
        ri: Regs::junk(1, wave, rng),
        a_raw: vec![0; 16 * kk],
        a_val: vec![0.0; 16 * kk],
        a_bit: vec![0; 16 * kk],
        kept: [vec![[0; 2]; 16 * kk / 4], vec![[0; 2]; 16 * kk / 4]],
        b_raw: vec![0; kk * 16],
        b_val: vec![0.0; kk * 16],
        b_bit: vec![0; kk * 16],
        c_val: vec![0.0; 256],
    };
    for i in 0..16 {
        for k in 0..kk {
            if c.sparse && k % 4 >= 2 {
                continue;
            }
            let (x, raw) = sample(c.a, rng);
            let place = if c.sparse {
                sparse_a_place(bits, kk, wave, i, k, k % 4)
            } else {
                dense_place(bits, kk, wave, i, k)
            };
            s.ra.put(place, bits, raw);
            (s.a_raw[i * kk + k], s.a_val[i * kk + k]) = (raw, x);
            s.a_bit[i * kk + k] = place.2;
        }
        if c.sparse {
            for g in 0..kk / 4 {
                let (lane, bit, sets) = index_place(bits, kk, wave, i, 4 * g);
                for (set, at) in [(0, bit), (1, bit + 16)] {
                    if sets == 1 && set == 1 {
                        s.kept[1][i * kk / 4 + g] = s.kept[0][i * kk / 4 + g];
                        continue;
                    }
                    // Two distinct positions of four, in order.
                    let p0 = (rng.next_u32() % 3) as usize;
                    let p1 = p0 + 1 + (rng.next_u32() as usize % (3 - p0));
                    s.kept[set][i * kk / 4 + g] = [p0, p1];
                    s.ri.put((0, lane, at), 4, (p0 | p1 << 2) as u32);
                }
            }
        }
    }
    for j in 0..16 {
        for k in 0..kk {
            let (x, raw) = sample(c.b, rng);
            let place = if c.sparse {
                sparse_b_place(bits, kk, wave, j, k)
            } else {
                dense_place(bits, kk, wave, j, k)
            };
            s.rb.put(place, bits, raw);
            (s.b_raw[k * 16 + j], s.b_val[k * 16 + j]) = (raw, x);
            s.b_bit[k * 16 + j] = place.2;
        }
    }
    // C: integers near the i32 limits in some elements (so that clamp saturates); f32/f16
    // quarters; bf16 results ±64..127 so that most sums round.
    for i in 0..16 {
        for j in 0..16 {
            let r = rng.next_u32();
            let (x, raw) = match c.out {
                T::I32 => {
                    let x = match (i + j) % 3 {
                        0 => i32::MAX - (r % 1000) as i32,
                        1 => i32::MIN + (r % 1000) as i32,
                        _ => (r % 20001) as i32 - 10000,
                    };
                    (f64::from(x), x as u32)
                }
                T::Bf16 => {
                    let x = f64::from(64 + r % 64) * if r & 1 << 20 != 0 { -1.0 } else { 1.0 };
                    (x, u32::from(bf16(x)))
                }
                T::F16 => {
                    let x = f64::from(r % 17) / 4.0 - 2.0;
                    (x, u32::from(f16::from_f64(x).to_bits()))
                }
                _ => {
                    let x = f64::from(r % 17) / 4.0 - 2.0;
                    (x, (x as f32).to_bits())
                }
            };
            s.rc.put(out_place(c.out.bits(), wave, i, j), c.out.bits(), raw);
            s.c_val[i * 16 + j] = x;
        }
    }
    s
}

/// What one instruction does with a [`Setup`]: the index set it reads (0, or the set at bit
/// 16), integer signedness and clamp, NEG/NEG_HI, and C as the inline constant 1.
#[derive(Debug, Clone, Copy, Default)]
struct Sel {
    set: usize,
    a_signed: bool,
    b_signed: bool,
    clamp: bool,
    neg_lo: u8,
    neg_hi: u8,
    c_one: bool,
}

/// D[i][j] as the result type's bits (row-major), from the definitions: the CPU product of
/// the dense A (SWMMAC: the kept values at their indices) and B, plus C; and whether any bf16
/// result needed rounding.
fn expect(c: &Case, s: &Setup, m: Sel) -> (Vec<u32>, bool) {
    let kk = c.k;
    let bits = c.a.bits();
    let integer = c.out == T::I32;
    // NEG (low 16 bits of a register) or NEG_HI (high 16 bits) of operand `n` (0 A, 1 B).
    let sign = |bit: usize, n: u8| {
        let flags = if bit < 16 { m.neg_lo } else { m.neg_hi };
        if flags >> n & 1 != 0 {
            -1.0
        } else {
            1.0
        }
    };
    let mut rounded = false;
    let mut d = vec![0u32; 256];
    for i in 0..16 {
        for j in 0..16 {
            let cv = if m.c_one { 1.0 } else { s.c_val[i * 16 + j] };
            let mut exact_i = cv as i64;
            let mut exact_f = if m.neg_hi & 4 != 0 { cv.abs() } else { cv };
            if m.neg_lo & 4 != 0 {
                exact_f = -exact_f;
            }
            for k in 0..kk {
                let ka = if c.sparse {
                    let g = k / 4;
                    match s.kept[m.set][i * kk / 4 + g] {
                        [p0, _] if p0 == k % 4 => 4 * g,
                        [_, p1] if p1 == k % 4 => 4 * g + 1,
                        _ => continue,
                    }
                } else {
                    k
                };
                let (ia, ib) = (i * kk + ka, k * 16 + j);
                if integer {
                    exact_i += int_value(s.a_raw[ia], bits, m.a_signed)
                        * int_value(s.b_raw[ib], bits, m.b_signed);
                } else {
                    exact_f +=
                        sign(s.a_bit[ia], 0) * s.a_val[ia] * sign(s.b_bit[ib], 1) * s.b_val[ib];
                }
            }
            d[i * 16 + j] = match c.out {
                T::I32 if m.clamp => {
                    exact_i.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
                }
                T::I32 => exact_i as i32 as u32,
                T::F32 => {
                    // The test's values keep every sum exact in the result type.
                    assert_eq!(f64::from(exact_f as f32), exact_f);
                    (exact_f as f32).to_bits()
                }
                T::F16 => {
                    assert_eq!(f16::from_f64(exact_f).to_f64(), exact_f);
                    u32::from(f16::from_f64(exact_f).to_bits())
                }
                _ => {
                    let b = (exact_f as f32).to_bits();
                    let r = (b + 0x7fff + (b >> 16 & 1)) >> 16;
                    rounded |= f64::from(f32::from_bits(r << 16)) != exact_f;
                    r
                }
            };
        }
    }
    (d, rounded)
}

/// Compares the D registers `got` with [`expect`].
fn check_d(what: &str, c: &Case, s: &Setup, m: Sel, got: &Regs) {
    let (want, rounded) = expect(c, s, m);
    let bits = c.out.bits();
    for i in 0..16 {
        for j in 0..16 {
            let have = got.get(out_place(bits, s.wave, i, j), bits);
            let w = want[i * 16 + j];
            assert_eq!(have, w, "{what}: D[{i}][{j}] = {have:#x}, want {w:#x}");
        }
    }
    if c.out == T::Bf16 && !m.c_one {
        assert!(rounded, "{what}: no sum needed rounding");
    }
}

/// Runs one GFX12 case's kernel on one target and checks D (and the second result E).
fn check_gfx12_case(e: &Emu, t: &str, wave: usize, c: &Case, rng: &mut Rng) {
    let s = setup(c, wave, rng);
    let (ba, bb, bc, bi) = (
        e.buf_bytes(&s.ra.bytes()),
        e.buf_bytes(&s.rb.bytes()),
        e.buf_bytes(&s.rc.bytes()),
        e.buf_bytes(&s.ri.bytes()),
    );
    let out_bytes = s.rc.regs * wave * 4;
    let (bd, be) = (e.zeros(out_bytes), e.zeros(out_bytes));
    let integer = c.out == T::I32;
    let mut bufs = vec![&ba, &bb, &bc];
    if c.sparse {
        bufs.push(&bi);
    }
    bufs.push(&bd);
    if c.sparse || integer {
        bufs.push(&be);
    }
    run(e, c.kernel, &bufs, wave as u32);
    // D: index set 0, A signed and B unsigned; E: the set at bit 16, A unsigned, B signed,
    // clamp (float kernels ignore the signs; dense float kernels have D only).
    let first = Sel {
        a_signed: true,
        ..Sel::default()
    };
    let second = Sel {
        set: 1,
        b_signed: true,
        clamp: true,
        ..Sel::default()
    };
    let mut results = vec![(&bd, first)];
    if c.sparse || integer {
        results.push((&be, second));
    }
    for (buf, m) in results {
        let got = Regs {
            regs: s.rc.regs,
            v: buf.u32s(),
        };
        check_d(&format!("{t} {} {m:?}", c.kernel), c, &s, m, &got);
    }
}

/// Assembles GFX12 lines with llvm-mc-22 (gfx1201, either wave size): one word list each.
fn assemble12(lines: &[String], wave64: bool) -> Vec<Vec<u32>> {
    let mut cmd = std::process::Command::new(hsaemu_testkit::tool("llvm-mc-22"));
    cmd.args(["-arch=amdgcn", "-mcpu=gfx1201", "-show-encoding"]);
    if wave64 {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run llvm-mc-22");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.join("\n").as_bytes())
        .expect("write to llvm-mc-22");
    let out = child.wait_with_output().expect("llvm-mc-22");
    // A label's fixup prints its bytes as `A` (read as 0x0a): lines use numeric offsets.
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("fixup"),
        "llvm-mc-22: a line refers to a label"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.trim().is_empty(), "llvm-mc-22: {stderr}");
    let words: Vec<Vec<u32>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split("encoding: [").nth(1))
        .map(|enc| {
            let bytes: Vec<u8> = enc
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("byte"))
                .collect();
            bytes
                .chunks(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        })
        .collect();
    assert_eq!(words.len(), lines.len(), "llvm-mc-22 output");
    words
}

/// Operand registers of the single-instruction tests.
const VA: usize = 0;
const VB: usize = 8;
const VC: usize = 16;
const VI: usize = 24;
const VD: usize = 32;

fn vregs(base: usize, n: usize) -> String {
    if n == 1 {
        format!("v{base}")
    } else {
        format!("v[{base}:{}]", base + n - 1)
    }
}

/// The line for `c` with modifiers `mods` on a wave of `wave` lanes, A in v0, B in v8, C in
/// v16 (or the constant 1), the index in v24, D in v32 (SWMMAC: D is C, so C goes there).
fn line12(c: &Case, s: &Setup, m: Sel, mods: &str) -> String {
    let d = vregs(VD, s.rc.regs);
    let third = if c.sparse {
        vregs(VI, 1)
    } else if m.c_one {
        if c.out == T::I32 { "1" } else { "1.0" }.to_string()
    } else {
        vregs(VC, s.rc.regs)
    };
    format!(
        "{} {d}, {}, {}, {third}{mods}",
        c.op,
        vregs(VA, s.ra.regs),
        vregs(VB, s.rb.regs)
    )
}

/// Runs `words` (one GFX12 WMMA/SWMMAC) on a wave holding `s`'s operands; D's registers.
fn run12(c: &Case, s: &Setup, words: &[u32]) -> Result<Regs, FaultKind> {
    let gen = if s.wave == 64 {
        Gen::Gfx12W64
    } else {
        Gen::Gfx12
    };
    let mut regs = WaveRegs::new(gen);
    let mut load = |base: usize, img: &Regs| {
        for r in 0..img.regs {
            for l in 0..s.wave {
                regs.v[base + r][l] = img.v[l * img.regs + r];
            }
        }
    };
    load(VA, &s.ra);
    load(VB, &s.rb);
    load(VI, &s.ri);
    load(if c.sparse { VD } else { VC }, &s.rc);
    run_words(gen, words, &mut regs)?;
    let mut d = Regs {
        regs: s.rc.regs,
        v: vec![0; s.rc.regs * s.wave],
    };
    for r in 0..d.regs {
        for l in 0..s.wave {
            d.v[l * d.regs + r] = regs.v[VD + r][l];
        }
    }
    Ok(d)
}

/// Modifiers and inline constants on single instructions (llvm-mc-22 lines on gfx1201, both
/// wave sizes), against [`expect`]: NEG/NEG_HI on the low/high 16 bits of A and B registers,
/// −C and |C| (the fp8 shapes too), C = 1, integer signedness and clamp, and `index_key`
/// picking the index set at bit 16.
#[test]
fn gfx12_modifiers() {
    let no = Sel::default();
    let key = Sel { set: 1, ..no };
    let cases: &[(&str, Sel)] = &[
        // A all negated, B's high halves, −|C|.
        (
            "v_wmma_f32_16x16x16_f16",
            Sel {
                neg_lo: 5,
                neg_hi: 7,
                ..no
            },
        ),
        ("v_wmma_f32_16x16x16_bf16", Sel { neg_hi: 2, ..no }),
        ("v_wmma_f16_16x16x16_f16", Sel { neg_lo: 5, ..no }),
        ("v_wmma_bf16_16x16x16_bf16", Sel { neg_hi: 5, ..no }),
        (
            "v_wmma_f32_16x16x16_fp8_bf8",
            Sel {
                neg_lo: 4,
                neg_hi: 4,
                ..no
            },
        ),
        ("v_wmma_f32_16x16x16_bf8_fp8", Sel { neg_lo: 4, ..no }),
        ("v_wmma_f32_16x16x16_f16", Sel { c_one: true, ..no }),
        ("v_wmma_f16_16x16x16_f16", Sel { c_one: true, ..no }),
        (
            "v_wmma_i32_16x16x16_iu8",
            Sel {
                c_one: true,
                a_signed: true,
                b_signed: true,
                clamp: true,
                ..no
            },
        ),
        (
            "v_wmma_i32_16x16x32_iu4",
            Sel {
                b_signed: true,
                ..no
            },
        ),
        (
            "v_wmma_i32_16x16x16_iu4",
            Sel {
                a_signed: true,
                clamp: true,
                ..no
            },
        ),
        (
            "v_swmmac_f32_16x16x32_f16",
            Sel {
                neg_lo: 1,
                neg_hi: 2,
                ..key
            },
        ),
        ("v_swmmac_bf16_16x16x32_bf16", Sel { neg_lo: 2, ..key }),
        ("v_swmmac_f16_16x16x32_f16", key),
        (
            "v_swmmac_i32_16x16x32_iu8",
            Sel {
                a_signed: true,
                clamp: true,
                ..key
            },
        ),
        (
            "v_swmmac_i32_16x16x32_iu4",
            Sel {
                b_signed: true,
                ..key
            },
        ),
        ("v_swmmac_i32_16x16x64_iu4", key),
        ("v_swmmac_f32_16x16x32_bf8_bf8", key),
    ];
    for wave in [32, 64] {
        let mut rng = Rng(0x1200_0000 + wave as u64);
        let mut setups = Vec::new();
        let mut lines = Vec::new();
        for (op, m) in cases {
            let c = gfx12_case(op);
            let s = setup(c, wave, &mut rng);
            // index_key: the set at bit 16 (1 of 2, 2 of 4; the only set of iu4 K=64 in
            // wave32).
            let sets = index_place(c.a.bits(), c.k, wave, 0, 0).2;
            let mut mods = String::new();
            if c.sparse && m.set == 1 && sets > 1 {
                mods = format!(" index_key:{}", sets / 2);
            }
            // Integer shapes: NEG[1:0] is the signedness.
            let (neg_lo, neg_hi) = if c.out == T::I32 {
                (u8::from(m.a_signed) | u8::from(m.b_signed) << 1, 0)
            } else {
                (m.neg_lo, m.neg_hi)
            };
            for (name, v) in [("neg_lo", neg_lo), ("neg_hi", neg_hi)] {
                if v != 0 {
                    mods += &format!(" {name}:[{},{},{}]", v & 1, v >> 1 & 1, v >> 2 & 1);
                }
            }
            if m.clamp {
                mods += " clamp";
            }
            lines.push(line12(c, &s, *m, &mods));
            setups.push((c, s, *m));
        }
        let words = assemble12(&lines, wave == 64);
        for ((c, s, m), (w, l)) in setups.iter().zip(words.iter().zip(&lines)) {
            let d = run12(c, s, w).unwrap_or_else(|e| panic!("wave{wave} `{l}`: {e:?}"));
            check_d(&format!("wave{wave} `{l}`"), c, s, *m, &d);
        }
    }
}

/// Modifier uses AMD does not define (LLVM 22 does not assemble them either: the bits are
/// set in a valid line's encoding) fault as unimplemented, naming the instruction.
#[test]
fn gfx12_undefined_modifiers_fault() {
    // (opcode, word, bit): NEG[0] on fp8, CLAMP on a float shape, OP_SEL on dense WMMA,
    // NEG_HI on an integer shape, NEG[2] (C) on SWMMAC, an index_key beyond the one set of
    // iu4 K=64 in wave32.
    let cases = [
        ("v_wmma_f32_16x16x16_fp8_fp8", 1, 29),
        ("v_wmma_f32_16x16x16_f16", 0, 15),
        ("v_wmma_f32_16x16x16_f16", 0, 11),
        ("v_wmma_i32_16x16x16_iu8", 0, 8),
        ("v_swmmac_f32_16x16x32_f16", 1, 31),
        ("v_swmmac_i32_16x16x64_iu4", 0, 11),
    ];
    let mut rng = Rng(0x12f);
    let setups: Vec<(&Case, Setup)> = cases
        .iter()
        .map(|(op, ..)| {
            let c = gfx12_case(op);
            (c, setup(c, 32, &mut rng))
        })
        .collect();
    let lines: Vec<String> = setups
        .iter()
        .map(|(c, s)| line12(c, s, Sel::default(), ""))
        .collect();
    let words = assemble12(&lines, false);
    for (((c, s), w), (_, word, bit)) in setups.iter().zip(words).zip(cases) {
        // The line as assembled executes.
        assert!(run12(c, s, &w).is_ok(), "{}", c.op);
        let mut w = w;
        w[word] |= 1 << bit;
        match run12(c, s, &w) {
            Err(e @ FaultKind::Unimplemented { .. }) => {
                assert!(format!("{e:?}").contains(c.op), "{e:?}")
            }
            other => panic!("{} with bit {bit} of word {word}: {:?}", c.op, other.err()),
        }
    }
}

/// Every GFX12 WMMA and SWMMAC shape on gfx1200 and gfx1201, wave32 and wave64, against CPU
/// products (SWMMAC: dense products of random 2:4-sparse A with both index sets the kernels
/// select; integer shapes: both signedness choices, with and without clamp).
#[test]
fn gfx12_every_shape() {
    for (t, p, wave, extra) in gfx12_targets() {
        let path = hsaemu_testkit::compile_cl_with("cl/emu_wmma12.cl", p, 5, extra);
        let e = from_bytes(&std::fs::read(&path).expect("read kernel"), p, 5);
        let mut rng = Rng(0x12_0000 + wave as u64);
        for c in CASES {
            check_gfx12_case(&e, t, wave, c, &mut rng);
        }
    }
}

/// GFX12's transpose loads from clang-22's builtins (`tests/kernels/cl/emu_load_tr12.cl`,
/// wave32 on gfx1200 and gfx1201): lane l loads 8 elements at its own scattered offset, and
/// in each block of 8 lanes, lane j receives as element e element j of the block's lane e
/// (RDNA4 ISA §11.6.2 as Triton's gfx1200 layouts encode it).
#[test]
fn gfx12_transpose_loads_from_builtins() {
    for p in ["gfx1200", "gfx1201"] {
        let path = hsaemu_testkit::compile_cl_with("cl/emu_load_tr12.cl", p, 5, &[]);
        let e = from_bytes(&std::fs::read(&path).expect("read kernel"), p, 5);
        let mut rng = Rng(0x7e12);
        let src: Vec<u8> = (0..4096).map(|_| rng.next_u32() as u8).collect();
        for (kernel, size) in [("load_tr_b128", 2usize), ("load_tr_b64", 1)] {
            // Lane l's offset in elements: 8-element rows scattered over the buffer.
            let offs: Vec<u32> = (0..32u32).map(|l| 8 * ((l * 13 + 5) % 32)).collect();
            let (bs, bo, bd) = (e.buf_bytes(&src), e.buf_u32(&offs), e.zeros(32 * 8 * size));
            run(&e, kernel, &[&bs, &bo, &bd], 32);
            let got = bd.bytes();
            for l in 0..32 {
                for el in 0..8 {
                    let from = 8 * (l / 8) + el;
                    let at = (offs[from] as usize + l % 8) * size;
                    let out = (8 * l + el) * size;
                    assert_eq!(
                        got[out..out + size],
                        src[at..at + size],
                        "{p} {kernel} lane {l} element {el}"
                    );
                }
            }
        }
    }
}
