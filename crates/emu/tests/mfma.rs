//! Matrix-core kernels (tests/kernels/cl/emu_mfma.cl), compiled by clang-15 for gfx908 and
//! gfx90a, run on the emulator and compared with matrix products computed here. The kernels
//! place A, B, C and D by AMD's documented register layout, so a wrong layout, type or
//! accumulation in the emulator shows as a wrong product. The broadcast modifiers
//! (CBSZ/ABID/BLGP) are checked against a CPU model of the documented broadcasts.

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;
use half::f16;
use hsaemu_emu::FaultKind;

const MFMA_TARGETS: [&str; 2] = ["gfx908", "gfx90a"];

/// Element type of the A and B inputs (C and D are f32, i32 for i8, f64 for f64).
#[derive(Debug, Clone, Copy, PartialEq)]
enum In {
    F32,
    F16,
    Bf16,
    I8,
    F64,
    /// gfx942's 8-bit floats: E4M3 and E5M2 "FNUZ" (biases 8 and 16).
    Fp8,
    Bf8,
    /// gfx950's: OCP E4M3FN and E5M2 (biases 7 and 15).
    Fp8Ocp,
    Bf8Ocp,
}

impl In {
    fn bytes(self) -> usize {
        match self {
            In::F32 => 4,
            In::F16 | In::Bf16 => 2,
            In::I8 | In::Fp8 | In::Bf8 | In::Fp8Ocp | In::Bf8Ocp => 1,
            In::F64 => 8,
        }
    }
}

/// The 8-bit float of a normal value (the test's quarters in [-2, 2]) or zero, by definition:
/// sign, exponent + bias, mantissa bits (FNUZ and OCP differ only in the bias for these).
fn float8(x: f64, man: u32, bias: i32) -> u8 {
    if x == 0.0 {
        return 0;
    }
    let e = x.abs().log2().floor() as i32;
    let m = ((x.abs() / 2f64.powi(e) - 1.0) * f64::from(1u32 << man)) as u32;
    assert_eq!(
        f64::from(m),
        (x.abs() / 2f64.powi(e) - 1.0) * f64::from(1u32 << man)
    );
    u8::from(x < 0.0) << 7 | (((e + bias) as u32) << man | m) as u8
}

/// Test values: random f32/f64 in [-1, 1]; quarters in [-2, 2] for f16/bf16 (exact in the
/// type, and every sum of their products here is exact in f32); any i8.
fn values(rng: &mut Rng, ty: In, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match ty {
            In::F32 => f64::from(rng.f32(-1.0, 1.0)),
            In::F64 => f64::from(rng.f32(-1.0, 1.0)) + f64::from(rng.next_u32()) * 1e-16,
            In::F16 | In::Bf16 | In::Fp8 | In::Bf8 | In::Fp8Ocp | In::Bf8Ocp => {
                f64::from(rng.next_u32() % 17) / 4.0 - 2.0
            }
            In::I8 => f64::from(rng.next_u32() as u8 as i8),
        })
        .collect()
}

/// Device bytes of input values.
fn encode(ty: In, v: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * ty.bytes());
    for &x in v {
        match ty {
            In::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            In::F16 => out.extend_from_slice(&f16::from_f64(x).to_le_bytes()),
            // Exact for the test values: bf16 is the top half of the f32.
            In::Bf16 => out.extend_from_slice(&(((x as f32).to_bits() >> 16) as u16).to_le_bytes()),
            In::I8 => out.push(x as i8 as u8),
            In::Fp8 => out.push(float8(x, 3, 8)),
            In::Bf8 => out.push(float8(x, 2, 16)),
            In::Fp8Ocp => out.push(float8(x, 3, 7)),
            In::Bf8Ocp => out.push(float8(x, 2, 15)),
            In::F64 => out.extend_from_slice(&x.to_le_bytes()),
        }
    }
    out
}

/// C/D matrices: device bytes of accumulator values, and the values read back.
fn encode_acc(ty: In, v: &[f64]) -> Vec<u8> {
    match ty {
        In::I8 => v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect(),
        In::F64 => encode(In::F64, v),
        _ => v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
    }
}

fn decode_acc(ty: In, buf: &Buf) -> Vec<f64> {
    match ty {
        In::I8 => buf.i32s().into_iter().map(f64::from).collect(),
        In::F64 => buf.f64s(),
        _ => buf.f32s().into_iter().map(f64::from).collect(),
    }
}

fn acc_values(rng: &mut Rng, ty: In, n: usize) -> Vec<f64> {
    match ty {
        In::I8 => (0..n)
            .map(|_| f64::from((rng.next_u32() % 2001) as i32 - 1000))
            .collect(),
        In::F32 | In::F64 => values(rng, ty, n),
        _ => values(rng, In::F16, n),
    }
}

/// `D = A·B + C` for row-major A (m×k), B (k×n), C (m×n), in f64; with the magnitude
/// Σ|a·b| + |c| of each element for tolerances.
fn gemm(a: &[f64], b: &[f64], c: &[f64], m: usize, n: usize, k: usize) -> Vec<(f64, f64)> {
    let mut d = vec![(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut mag) = (c[i * n + j], c[i * n + j].abs());
            for kk in 0..k {
                s += a[i * k + kk] * b[kk * n + j];
                mag += (a[i * k + kk] * b[kk * n + j]).abs();
            }
            d[i * n + j] = (s, mag);
        }
    }
    d
}

/// Checks a device result against the reference: f32 and f64 inputs within one rounding of
/// the magnitude per accumulation step (at most 64 here), everything else (exact in f32/i32)
/// exactly. A misplaced element is off by about the magnitude itself.
fn check(what: &str, ty: In, got: &[f64], want: &[(f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (idx, (&g, &(w, mag))) in got.iter().zip(want).enumerate() {
        let tol = match ty {
            In::F32 => 65.0 * f64::from(f32::EPSILON) / 2.0 * mag,
            In::F64 => 65.0 * f64::EPSILON / 2.0 * mag,
            _ => 0.0,
        };
        assert!(
            (g - w).abs() <= tol,
            "{what}: element {idx}: got {g}, want {w} (tolerance {tol})"
        );
    }
}

/// One-block shapes: a grid of T×T tiles of a 64×64 product, K = 64 in a loop.
#[test]
fn tiles_of_a_matrix_product() {
    let (m, n, k) = (64usize, 64usize, 64usize);
    let mut kernels = vec![
        ("tile_32x32x2f32", 32, In::F32),
        ("tile_16x16x4f32", 16, In::F32),
        ("tile_32x32x8f16", 32, In::F16),
        ("tile_16x16x16f16", 16, In::F16),
        ("tile_32x32x8i8", 32, In::I8),
        ("tile_16x16x16i8", 16, In::I8),
        ("tile_32x32x4bf16", 32, In::Bf16),
        ("tile_16x16x8bf16", 16, In::Bf16),
    ];
    for t in MFMA_TARGETS {
        if t == "gfx90a" {
            kernels.extend([
                ("tile_32x32x8bf16_1k", 32, In::Bf16),
                ("tile_16x16x16bf16_1k", 16, In::Bf16),
                ("tile_16x16x4f64", 16, In::F64),
            ]);
        }
        let e = emu("cl/emu_mfma.cl", t);
        for &(name, tile, ty) in &kernels {
            let mut rng = Rng(0x5eed + tile as u64);
            let a = values(&mut rng, ty, m * k);
            let b = values(&mut rng, ty, k * n);
            let c = acc_values(&mut rng, ty, m * n);
            let (ba, bb, bc) = (
                e.buf_bytes(&encode(ty, &a)),
                e.buf_bytes(&encode(ty, &b)),
                e.buf_bytes(&encode_acc(ty, &c)),
            );
            let bd = e.zeros(m * n * if ty == In::F64 { 8 } else { 4 });
            e.run(
                name,
                &[
                    Arg::Ptr(&ba),
                    Arg::Ptr(&bb),
                    Arg::Ptr(&bc),
                    Arg::Ptr(&bd),
                    Arg::I32(k as i32),
                    Arg::I32(n as i32),
                ],
                [64 * (n / tile) as u32, (m / tile) as u32, 1],
                [64, 1, 1],
            );
            check(
                &format!("{t} {name}"),
                ty,
                &decode_acc(ty, &bd),
                &gemm(&a, &b, &c, m, n, k),
            );
        }
    }
}

/// Multi-block shapes: a batch of independent T×T products (K = 16 in a loop), two waves.
#[test]
fn batched_products() {
    let k = 16usize;
    let mut kernels = vec![
        ("batch_32x32x1f32", 32, In::F32),
        ("batch_16x16x1f32", 16, In::F32),
        ("batch_4x4x1f32", 4, In::F32),
        ("batch_32x32x4f16", 32, In::F16),
        ("batch_16x16x4f16", 16, In::F16),
        ("batch_4x4x4f16", 4, In::F16),
        ("batch_32x32x4i8", 32, In::I8),
        ("batch_16x16x4i8", 16, In::I8),
        ("batch_4x4x4i8", 4, In::I8),
        ("batch_32x32x2bf16", 32, In::Bf16),
        ("batch_16x16x2bf16", 16, In::Bf16),
        ("batch_4x4x2bf16", 4, In::Bf16),
    ];
    for t in MFMA_TARGETS {
        if t == "gfx90a" {
            kernels.extend([
                ("batch_32x32x4bf16_1k", 32, In::Bf16),
                ("batch_16x16x4bf16_1k", 16, In::Bf16),
                ("batch_4x4x4bf16_1k", 4, In::Bf16),
                ("batch_4x4x4f64", 4, In::F64),
            ]);
        }
        let e = emu("cl/emu_mfma.cl", t);
        for &(name, tile, ty) in &kernels {
            // Blocks per wave: 64/T, except f64 4x4x4 (four blocks).
            let per_wave = if ty == In::F64 { 4 } else { 64 / tile };
            let waves = 2usize;
            let nb = per_wave * waves;
            let mut rng = Rng(0xb47c + tile as u64);
            let a = values(&mut rng, ty, nb * tile * k);
            let b = values(&mut rng, ty, nb * k * tile);
            let c = acc_values(&mut rng, ty, nb * tile * tile);
            let (ba, bb, bc) = (
                e.buf_bytes(&encode(ty, &a)),
                e.buf_bytes(&encode(ty, &b)),
                e.buf_bytes(&encode_acc(ty, &c)),
            );
            let bd = e.zeros(nb * tile * tile * if ty == In::F64 { 8 } else { 4 });
            e.run(
                name,
                &[
                    Arg::Ptr(&ba),
                    Arg::Ptr(&bb),
                    Arg::Ptr(&bc),
                    Arg::Ptr(&bd),
                    Arg::I32(k as i32),
                ],
                [64 * waves as u32, 1, 1],
                [64, 1, 1],
            );
            let got = decode_acc(ty, &bd);
            let (sa, sb, sc) = (tile * k, k * tile, tile * tile);
            for blk in 0..nb {
                let want = gemm(
                    &a[blk * sa..][..sa],
                    &b[blk * sb..][..sb],
                    &c[blk * sc..][..sc],
                    tile,
                    tile,
                    k,
                );
                check(
                    &format!("{t} {name} block {blk}"),
                    ty,
                    &got[blk * sc..][..sc],
                    &want,
                );
            }
        }
    }
}

/// A one-wave MFMA with modifiers, as the `MODS` kernels run it.
struct Mods {
    name: &'static str,
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    ty: In,
}

impl Mods {
    /// CBSZ, ABID, BLGP from the kernel name (`mods_SHAPE_CBSZ_ABID_BLGP`).
    fn fields(&self) -> (usize, usize, usize) {
        let f: Vec<usize> = self
            .name
            .rsplit('_')
            .take(3)
            .map(|x| x.parse().expect("modifier"))
            .collect();
        (f[2], f[1], f[0])
    }
    fn kpl(&self) -> usize {
        self.k * self.m * self.blocks / 64
    }
    fn in_bytes(&self) -> usize {
        self.kpl() * self.ty.bytes()
    }
    fn out_regs(&self) -> usize {
        self.m * self.n * self.blocks / 64
    }

    /// Element `e` of a lane's packed operand.
    fn elem(&self, lane_bytes: &[u8], e: usize) -> f64 {
        let b = &lane_bytes[e * self.ty.bytes()..];
        match self.ty {
            In::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            In::F16 => f16::from_le_bytes([b[0], b[1]]).to_f64(),
            In::Bf16 => f64::from(f32::from_bits(
                u32::from(u16::from_le_bytes([b[0], b[1]])) << 16,
            )),
            In::I8 => f64::from(b[0] as i8),
            In::F64 => f64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            _ => panic!("the modifier tests have no 8-bit float shapes"),
        }
    }

    /// Where AMD's layout puts D(i, j) of block b: (register, lane). N lanes hold a row; rows
    /// run down four registers per group of N lanes; 4x4 blocks share registers, one lane
    /// group each.
    fn d_place(&self, i: usize, j: usize, b: usize) -> (usize, usize) {
        match self.m {
            4 => (i, 4 * b + j),
            16 => (4 * b + i % 4, 16 * (i / 4) + j),
            _ => (16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j),
        }
    }

    /// Expected D registers (lane-major) from the raw operands, with or without the modifiers.
    fn expect(&self, a: &[u8], b: &[u8], c: &[f64], with_mods: bool) -> Vec<f64> {
        let (cbsz, abid, blgp) = if with_mods { self.fields() } else { (0, 0, 0) };
        let w = self.in_bytes();
        // BLGP: which lane's B data each lane's slot of B reads.
        let b_lane = |l: usize| match blgp {
            1 => l % 32,                       // lanes 0-31 to both halves
            2 => 32 + l % 32,                  // lanes 32-63 to both halves
            3 => (l + 16) % 64,                // rotated by 16 lanes
            4..=7 => 16 * (blgp - 4) + l % 16, // one group of 16 lanes to all
            _ => l,
        };
        // A(i, k) of block blk (after CBSZ/ABID) and B(k, j) of block blk.
        let kpl = self.kpl();
        let lane_of = |row: usize, k: usize, blk: usize| {
            row + self.m * blk + self.m * self.blocks * (k / kpl)
        };
        let mut d = c.to_vec();
        for blk in 0..self.blocks {
            let ablk = (blk >> cbsz << cbsz) + abid;
            for i in 0..self.m {
                for j in 0..self.n {
                    let mut s = 0.0;
                    for k in 0..self.k {
                        let la = lane_of(i, k, ablk);
                        let lb = b_lane(lane_of(j, k, blk));
                        s += self.elem(&a[la * w..], k % kpl) * self.elem(&b[lb * w..], k % kpl);
                    }
                    let (r, l) = self.d_place(i, j, blk);
                    d[r * 64 + l] += s;
                }
            }
        }
        d
    }
}

/// CBSZ/ABID (broadcast one block's A to a group of blocks) and BLGP (B lane patterns)
/// against a CPU model of the documented broadcasts.
#[test]
fn broadcast_modifiers() {
    let m = |name, m, k, blocks, ty| Mods {
        name,
        m,
        n: m,
        k,
        blocks,
        ty,
    };
    let mut runs = vec![
        m("mods_4x4x1f32_4_3_7", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_2_1_3", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_3_6_0", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_0_0_1", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_0_0_2", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_0_0_4", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_0_0_5", 4, 1, 16, In::F32),
        m("mods_4x4x1f32_0_0_6", 4, 1, 16, In::F32),
        m("mods_16x16x1f32_2_3_0", 16, 1, 4, In::F32),
        m("mods_16x16x1f32_1_1_3", 16, 1, 4, In::F32),
        m("mods_32x32x1f32_1_1_2", 32, 1, 2, In::F32),
        m("mods_16x16x4f32_0_0_3", 16, 4, 1, In::F32),
        m("mods_16x16x4f16_2_2_5", 16, 4, 4, In::F16),
        m("mods_4x4x4i8_3_6_6", 4, 4, 16, In::I8),
        m("mods_32x32x2bf16_1_0_1", 32, 2, 2, In::Bf16),
    ];
    for t in MFMA_TARGETS {
        if t == "gfx90a" {
            runs.push(m("mods_4x4x4bf16_1k_4_9_3", 4, 4, 16, In::Bf16));
        }
        let e = emu("cl/emu_mfma.cl", t);
        for run in &runs {
            let mut rng = Rng(0xb1 + run.m as u64 * 7 + run.k as u64);
            let w = run.in_bytes();
            let av = values(&mut rng, run.ty, 64 * w / run.ty.bytes());
            let bv = values(&mut rng, run.ty, 64 * w / run.ty.bytes());
            let (a, b) = (encode(run.ty, &av), encode(run.ty, &bv));
            let c = acc_values(&mut rng, run.ty, 64 * run.out_regs());
            let (ba, bb, bc, bd) = (
                e.buf_bytes(&a),
                e.buf_bytes(&b),
                e.buf_bytes(&encode_acc(run.ty, &c)),
                e.zeros(4 * 64 * run.out_regs()),
            );
            e.run(
                run.name,
                &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::Ptr(&bd)],
                [64, 1, 1],
                [64, 1, 1],
            );
            let want = run.expect(&a, &b, &c, true);
            // The modifiers change the result, so ignoring them would fail.
            assert_ne!(want, run.expect(&a, &b, &c, false), "{}", run.name);
            let want: Vec<(f64, f64)> = want.iter().map(|&x| (x, 4.0 + x.abs())).collect();
            check(
                &format!("{t} {}", run.name),
                run.ty,
                &decode_acc(run.ty, &bd),
                &want,
            );
        }
    }
}

/// gfx90a operand files beyond clang's own choices (inline assembly): C/D in VGPRs, A/B in
/// AGPRs; and AGPR data moved by v_accvgpr_mov, LDS and global memory.
#[test]
fn gfx90a_operand_files() {
    let e = emu("cl/emu_mfma.cl", "gfx90a");
    let k = 16usize;
    let mut rng = Rng(77);
    let a = values(&mut rng, In::F32, 32 * k);
    let b = values(&mut rng, In::F32, k * 32);
    let c = values(&mut rng, In::F32, 32 * 32);
    let (ba, bb, bc, bd) = (
        e.buf_bytes(&encode(In::F32, &a)),
        e.buf_bytes(&encode(In::F32, &b)),
        e.buf_bytes(&encode(In::F32, &c)),
        e.zeros(4 * 32 * 32),
    );
    e.run(
        "vgpr_cd_32x32x2f32",
        &[
            Arg::Ptr(&ba),
            Arg::Ptr(&bb),
            Arg::Ptr(&bc),
            Arg::Ptr(&bd),
            Arg::I32(k as i32),
        ],
        [64, 1, 1],
        [64, 1, 1],
    );
    check(
        "vgpr_cd_32x32x2f32",
        In::F32,
        &decode_acc(In::F32, &bd),
        &gemm(&a, &b, &c, 32, 32, k),
    );

    let input: Vec<u32> = (0..128).map(|x| x * 7 + 3).collect();
    let (bi, bo) = (e.buf_u32(&input), e.zeros(4 * 192));
    e.run(
        "agpr_moves",
        &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let o = bo.u32s();
    for l in 0..64 {
        assert_eq!(
            o[l],
            input[63 - l],
            "LDS round trip through AGPRs, lane {l}"
        );
        assert_eq!(
            o[64 + l],
            input[64 + l],
            "global load into an AGPR, lane {l}"
        );
        assert_eq!(o[128 + l], input[l] + 1, "lane {l}");
    }
}

/// A and B in AGPRs (gfx908 and gfx90a).
#[test]
fn agpr_a_and_b_operands() {
    for t in MFMA_TARGETS {
        let e = emu("cl/emu_mfma.cl", t);
        let mut rng = Rng(12);
        let a = values(&mut rng, In::F32, 16 * 4);
        let b = values(&mut rng, In::F32, 4 * 16);
        let c = values(&mut rng, In::F32, 16 * 16);
        let (ba, bb, bc, bd) = (
            e.buf_bytes(&encode(In::F32, &a)),
            e.buf_bytes(&encode(In::F32, &b)),
            e.buf_bytes(&encode(In::F32, &c)),
            e.zeros(4 * 16 * 16),
        );
        e.run(
            "agpr_ab_16x16x4f32",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::Ptr(&bd)],
            [64, 1, 1],
            [64, 1, 1],
        );
        check(
            &format!("{t} agpr_ab_16x16x4f32"),
            In::F32,
            &decode_acc(In::F32, &bd),
            &gemm(&a, &b, &c, 16, 16, 4),
        );
    }
}

/// Modifiers AMD does not define for a shape fault as unimplemented, naming them.
#[test]
fn undefined_modifiers_fault() {
    let e = emu("cl/emu_mfma.cl", "gfx90a");
    let (ba, bd) = (e.buf_f64(&[1.0; 128]), e.zeros(8 * 64));
    let f = e
        .try_run(
            "f64_blgp",
            &[Arg::Ptr(&ba), Arg::Ptr(&bd)],
            [64, 1, 1],
            [64, 1, 1],
            0,
        )
        .expect_err("BLGP on gfx90a f64");
    assert_eq!(
        f.kind,
        FaultKind::Unimplemented {
            mnemonic: "v_mfma_f64_4x4x4f64 cbsz:0 abid:0 blgp:1 (not defined for gfx90a f64 MFMA)"
                .into()
        },
        "{f}"
    );
    assert!(
        f.instruction
            .as_deref()
            .is_some_and(|s| s.starts_with("v_mfma_f64_4x4x4f64 ") && s.ends_with("blgp:1")),
        "{f}"
    );
    for t in MFMA_TARGETS {
        let e = emu("cl/emu_mfma.cl", t);
        let (bx, bd) = (e.buf_f32(&[1.0; 256]), e.zeros(4 * 256));
        let f = e
            .try_run(
                "mods_16x16x4f32_1_0_0",
                &[Arg::Ptr(&bx), Arg::Ptr(&bx), Arg::Ptr(&bx), Arg::Ptr(&bd)],
                [64, 1, 1],
                [64, 1, 1],
                0,
            )
            .expect_err("CBSZ on a one-block shape");
        assert_eq!(
            f.kind,
            FaultKind::Unimplemented {
                mnemonic: "v_mfma_f32_16x16x4f32 cbsz:1 abid:0 (outside the 1 blocks)".into()
            },
            "{t}: {f}"
        );
    }
}

/// CDNA3 and CDNA4 shapes (tests/kernels/cl/emu_mfma_cdna3.cl, clang-22): on gfx942 xf32, the
/// new i8 shapes, fp8/bf8 (FNUZ) in every combination tested here and the f64 NEG modifier; on
/// gfx950 the same with OCP fp8/bf8 (no xf32) plus its double-K f16, bf16 and i8 shapes; as
/// tiles of a 64×64×64 product like [`tiles_of_a_matrix_product`].
#[test]
fn cdna3_tiles_of_a_matrix_product() {
    let (m, n, k) = (64usize, 64usize, 64usize);
    for t in ["gfx942", "gfx950"] {
        let (fp8, bf8) = if t == "gfx950" {
            (In::Fp8Ocp, In::Bf8Ocp)
        } else {
            (In::Fp8, In::Bf8)
        };
        let mut kernels = vec![
            ("tile_32x32x16_i8", 32, In::I8, In::I8),
            ("tile_16x16x32_i8", 16, In::I8, In::I8),
            ("tile_32x32x16_fp8_fp8", 32, fp8, fp8),
            ("tile_16x16x32_bf8_bf8", 16, bf8, bf8),
            ("tile_16x16x32_fp8_bf8", 16, fp8, bf8),
            ("tile_32x32x16_bf8_fp8", 32, bf8, fp8),
            ("tile_16x16x4f64_neg_a_c", 16, In::F64, In::F64),
        ];
        if t == "gfx942" {
            kernels.extend([
                ("tile_32x32x4_xf32", 32, In::F32, In::F32),
                ("tile_16x16x8_xf32", 16, In::F32, In::F32),
            ]);
        } else {
            kernels.extend([
                ("tile_16x16x32_f16", 16, In::F16, In::F16),
                ("tile_32x32x16_f16", 32, In::F16, In::F16),
                ("tile_16x16x32_bf16", 16, In::Bf16, In::Bf16),
                ("tile_32x32x16_bf16", 32, In::Bf16, In::Bf16),
                ("tile_16x16x64_i8", 16, In::I8, In::I8),
                ("tile_32x32x32_i8", 32, In::I8, In::I8),
            ]);
        }
        cdna3_tiles(t, &kernels, m, n, k);
    }
}

fn cdna3_tiles(t: &str, kernels: &[(&str, usize, In, In)], m: usize, n: usize, k: usize) {
    let e = emu("cl/emu_mfma_cdna3.cl", t);
    for &(name, tile, ta, tb) in kernels {
        let mut rng = Rng(0xcd3a + tile as u64);
        let a = values(&mut rng, ta, m * k);
        let b = values(&mut rng, tb, k * n);
        let acc = if ta == In::I8 { In::I8 } else { ta };
        let c = acc_values(&mut rng, acc, m * n);
        let (ba, bb, bc) = (
            e.buf_bytes(&encode(ta, &a)),
            e.buf_bytes(&encode(tb, &b)),
            e.buf_bytes(&encode_acc(acc, &c)),
        );
        let bd = e.zeros(m * n * if ta == In::F64 { 8 } else { 4 });
        e.run(
            name,
            &[
                Arg::Ptr(&ba),
                Arg::Ptr(&bb),
                Arg::Ptr(&bc),
                Arg::Ptr(&bd),
                Arg::I32(k as i32),
                Arg::I32(n as i32),
            ],
            [64 * (n / tile) as u32, (m / tile) as u32, 1],
            [64, 1, 1],
        );
        // The NEG kernel computes A·B − C.
        let c: Vec<f64> = if name.contains("neg") {
            c.iter().map(|x| -x).collect()
        } else {
            c
        };
        check(
            &format!("{t} {name}"),
            acc,
            &decode_acc(acc, &bd),
            &gemm(&a, &b, &c, m, n, k),
        );
    }
}

/// SMFMAC (tests/kernels/cl/emu_smfmac.cl, clang-22): every sparse shape of gfx942, and on
/// gfx950 also its double-K shapes, with the index set chosen by CBSZ/ABID. A is a random 2:4
/// sparse matrix (two non-zero values in every group of four k); the test compresses it into
/// the lanes by AMD's documented layout (a lane holds the non-zero values of its k-range in
/// order, with two index bits each giving the value's place in its group), fills the other
/// index sets with noise, and compares D with the dense CPU product A·B + C.
#[test]
fn smfmac_products() {
    let both = [
        "sp_16x16x32_f16_0_0",
        "sp_16x16x32_f16_0_2",
        "sp_16x16x32_f16_1_3",
        "sp_32x32x16_f16_0_1",
        "sp_16x16x32_bf16_0_3",
        "sp_32x32x16_bf16_0_0",
        "sp_16x16x64_i8_0_1",
        "sp_32x32x32_i8_0_0",
        "sp_16x16x64_fp8_fp8_0_0",
        "sp_16x16x64_fp8_bf8_0_1",
        "sp_16x16x64_bf8_fp8_1_0",
        "sp_16x16x64_bf8_bf8_0_0",
        "sp_32x32x32_fp8_fp8_0_1",
        "sp_32x32x32_fp8_bf8_0_0",
        "sp_32x32x32_bf8_fp8_0_0",
        "sp_32x32x32_bf8_bf8_0_1",
    ];
    let gfx950 = [
        "sp_16x16x64_f16_0_1",
        "sp_32x32x32_f16_0_0",
        "sp_16x16x64_bf16_0_0",
        "sp_32x32x32_bf16_1_1",
        "sp_16x16x128_i8_0_0",
        "sp_32x32x64_i8_0_0",
        "sp_16x16x128_fp8_fp8_0_0",
        "sp_16x16x128_fp8_bf8_0_0",
        "sp_16x16x128_bf8_fp8_0_0",
        "sp_16x16x128_bf8_bf8_0_0",
        "sp_32x32x64_fp8_fp8_0_0",
        "sp_32x32x64_fp8_bf8_0_0",
        "sp_32x32x64_bf8_fp8_0_0",
        "sp_32x32x64_bf8_bf8_0_0",
    ];
    for t in ["gfx942", "gfx950"] {
        let e = emu("cl/emu_smfmac.cl", t);
        let names = if t == "gfx950" {
            [&both[..], &gfx950[..]].concat()
        } else {
            both.to_vec()
        };
        for name in names {
            smfmac_run(&e, t, name);
        }
    }
}

/// Runs one `sp_MxNxK_TYPES_CBSZ_ABID` kernel and checks its D.
fn smfmac_run(e: &Emu, t: &str, name: &str) {
    let parts: Vec<&str> = name.split('_').collect();
    let dims: Vec<usize> = parts[1]
        .split('x')
        .map(|x| x.parse().expect("dim"))
        .collect();
    let (m, k) = (dims[0], dims[2]);
    let cbsz: usize = parts[parts.len() - 2].parse().expect("cbsz");
    let abid: usize = parts[parts.len() - 1].parse().expect("abid");
    let ocp = t == "gfx950";
    let ty = |s: &str| match (s, ocp) {
        ("f16", _) => In::F16,
        ("bf16", _) => In::Bf16,
        ("i8", _) => In::I8,
        ("fp8", false) => In::Fp8,
        ("bf8", false) => In::Bf8,
        ("fp8", true) => In::Fp8Ocp,
        ("bf8", true) => In::Bf8Ocp,
        _ => panic!("type {s}"),
    };
    let (ta, tb) = if parts.len() == 6 {
        (ty(parts[2]), ty(parts[3]))
    } else {
        (ty(parts[2]), ty(parts[2]))
    };
    // A lane holds kpl consecutive k (dense), of which kpl/2 are stored; an index set is kpl
    // bits, 32/kpl sets per index VGPR.
    let kpl = k * m / 64;
    let set = if cbsz == 0 { abid } else { 0 };
    let mut rng = Rng(0x5a85 + (m * k) as u64 + abid as u64);
    // Dense A with two non-zero values per group of four, at places (p0, p1).
    let mut a = vec![0.0; m * k];
    let mut places = vec![(0usize, 0usize); m * k / 4];
    for i in 0..m {
        for q in 0..k / 4 {
            let p0 = rng.next_u32() as usize % 4;
            let p1 = (p0 + 1 + rng.next_u32() as usize % 3) % 4;
            let v = values(&mut rng, ta, 2);
            a[i * k + 4 * q + p0] = v[0];
            a[i * k + 4 * q + p1] = v[1];
            places[i * k / 4 + q] = (p0, p1);
        }
    }
    let b = values(&mut rng, tb, k * m);
    let acc = if ta == In::I8 { In::I8 } else { In::F16 };
    let c = acc_values(&mut rng, acc, m * m);
    // Lane l = row + m·g holds k-range g of its row (A) or column (B).
    let (mut a_lanes, mut b_lanes, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for l in 0..64 {
        let (r, g) = (l % m, l / m);
        let mut vals = Vec::new();
        let mut bits = 0u32;
        for v in 0..kpl / 2 {
            let q = g * kpl / 4 + v / 2;
            let (p0, p1) = places[r * k / 4 + q];
            let p = if v % 2 == 0 { p0 } else { p1 };
            vals.push(a[r * k + 4 * q + p]);
            bits |= (p as u32) << (2 * v);
        }
        a_lanes.extend(encode(ta, &vals));
        let col: Vec<f64> = (0..kpl).map(|s| b[(g * kpl + s) * m + r]).collect();
        b_lanes.extend(encode(tb, &col));
        let mask = if kpl == 32 {
            u32::MAX
        } else {
            (1u32 << kpl) - 1
        };
        let noise = rng.next_u32() & !(mask << (set * kpl));
        idx.push(noise | bits << (set * kpl));
    }
    let nregs = m * m / 64;
    let (c_regs, want) = in_registers(m, &c, &gemm(&a, &b, &c, m, m, k));
    let (ba, bb, bc, bi, bd) = (
        e.buf_bytes(&a_lanes),
        e.buf_bytes(&b_lanes),
        e.buf_bytes(&encode_acc(acc, &c_regs)),
        e.buf_u32(&idx),
        e.zeros(4 * 64 * nregs),
    );
    run_one_wave(e, name, &[&ba, &bb, &bc, &bi, &bd]);
    check(&format!("{t} {name}"), acc, &decode_acc(acc, &bd), &want);
}

/// Register and lane of element (i, j) of C and D (f32) for the one-block 16x16 and 32x32
/// shapes: row i of the 16x16 shapes is register i%4 at lanes 16(i/4)+j; of the 32x32 shapes
/// register 4(i/8)+i%4 at lanes 32((i/4)%2)+j.
fn out_place(m: usize, i: usize, j: usize) -> (usize, usize) {
    if m == 16 {
        (i % 4, 16 * (i / 4) + j)
    } else {
        (4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j)
    }
}

/// Runs kernel `name` as one wave of 64 with these buffers as its arguments.
fn run_one_wave(e: &Emu, name: &str, bufs: &[&Buf]) {
    let args: Vec<Arg> = bufs.iter().map(|b| Arg::Ptr(b)).collect();
    e.run(name, &args, [64, 1, 1], [64, 1, 1]);
}

/// C (m×m, row-major) and the expected D (with magnitudes) in register order, `r * 64 + lane`
/// by [`out_place`]: what the one-block kernels read and write.
fn in_registers(m: usize, c: &[f64], want: &[(f64, f64)]) -> (Vec<f64>, Vec<(f64, f64)>) {
    let mut c_regs = vec![0.0; m * m];
    let mut want_regs = vec![(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            let (r, l) = out_place(m, i, j);
            c_regs[r * 64 + l] = c[i * m + j];
            want_regs[r * 64 + l] = want[i * m + j];
        }
    }
    (c_regs, want_regs)
}

/// gfx950's f8f6f4 element formats, numbered as CBSZ/BLGP select them: OCP E4M3 and E5M2,
/// then the OCP MX FP6 (E2M3), BF6 (E3M2) and FP4 (E2M1): (exponent bits, mantissa bits,
/// bias).
const MX_FORMATS: [(u32, u32, i32); 5] = [(4, 3, 7), (5, 2, 15), (2, 3, 1), (3, 2, 3), (2, 1, 1)];

/// The value of a code of format `f` by its definition, `None` for the codes that are not
/// numbers (E4M3 S.1111.111; E5M2 exponent 31).
fn mx_value(f: usize, code: u32) -> Option<f64> {
    let (exp, man, bias) = MX_FORMATS[f];
    let e = (code >> man) & ((1 << exp) - 1);
    let m = code & ((1 << man) - 1);
    if (f == 0 && e == 15 && m == 7) || (f == 1 && e == 31) {
        return None;
    }
    let frac = f64::from(m) / f64::from(1u32 << man);
    let v = if e == 0 {
        2f64.powi(1 - bias) * frac
    } else {
        2f64.powi(e as i32 - bias) * (1.0 + frac)
    };
    Some(if code >> (exp + man) & 1 == 1 { -v } else { v })
}

/// The test's codes of format `f`: those whose value is a multiple of 1/4 in [-4, 4], so that
/// with scales of 2^-2..2^2 every product is a multiple of 2^-8 below 2^8 and every sum of
/// 128 of them (plus C) is exact in f32.
fn mx_codes(f: usize) -> Vec<(u32, f64)> {
    let (exp, man, _) = MX_FORMATS[f];
    (0..1u32 << (1 + exp + man))
        .filter_map(|c| mx_value(f, c).map(|v| (c, v)))
        .filter(|&(_, v)| v.abs() <= 4.0 && (v * 4.0).fract() == 0.0)
        .collect()
}

/// gfx950's f8f6f4 MFMAs (tests/kernels/cl/emu_mfma_f8f6f4.cl, clang-22): both shapes, every
/// element format on A and on B, mixed pairs, every scale byte, scaled and plain. A lane holds
/// 32 consecutive k of one row of A (column of B), lane `row + M·(k/32)`, packed from bit 0
/// up at the format's width (8, 6 or 4 bits; the registers past the format's count hold
/// noise); each lane's scale word holds the E8M0 scale (2^(e-127)) of its 32 elements in the
/// byte the kernel selects and noise in the other three. D is checked exactly against the
/// CPU product of the scaled matrices.
#[test]
fn f8f6f4_products() {
    let e = emu("cl/emu_mfma_f8f6f4.cl", "gfx950");
    let names = [
        "f8f6f4_16_0_0_0_0",
        "f8f6f4_16_1_0_1_2",
        "f8f6f4_16_2_0_2_3",
        "f8f6f4_16_3_0_3_1",
        "f8f6f4_16_4_0_0_1",
        "f8f6f4_16_0_1_2_0",
        "f8f6f4_16_0_2_1_1",
        "f8f6f4_16_0_3_3_3",
        "f8f6f4_16_0_4_2_2",
        "f8f6f4_16_2_3_1_0",
        "f8f6f4_16_4_4_3_2",
        "f8f6f4_16_3_4_0_3",
        "f8f6f4_32_0_0_1_1",
        "f8f6f4_32_1_1_0_2",
        "f8f6f4_32_2_2_3_0",
        "f8f6f4_32_3_3_2_1",
        "f8f6f4_32_4_4_1_3",
        "f8f6f4_32_4_2_2_2",
        "f8f6f4_32_1_3_0_0",
        "f8f6f4_32_0_4_3_1",
        "f8f6f4_16_0_0_plain",
        "f8f6f4_16_1_4_plain",
        "f8f6f4_16_2_2_plain",
        "f8f6f4_16_4_3_plain",
        "f8f6f4_32_0_1_plain",
        "f8f6f4_32_3_2_plain",
        "f8f6f4_32_4_4_plain",
    ];
    for name in names {
        f8f6f4_run(&e, name, None);
    }
    // A NaN scale (0xFF) in the byte lane 5 selects makes row 5 of D NaN, and only row 5.
    f8f6f4_run(&e, "f8f6f4_16_0_0_0_0", Some(5));
}

/// Runs one `f8f6f4_M_CBSZ_BLGP_{SELA_SELB|plain}` kernel and checks its D; `nan_lane`: a
/// lane whose selected A scale is NaN.
fn f8f6f4_run(e: &Emu, name: &str, nan_lane: Option<usize>) {
    let parts: Vec<&str> = name.split('_').collect();
    let num = |k: usize| -> usize { parts[k].parse().expect("field") };
    let (m, fa, fb) = (num(1), num(2), num(3));
    let sel = (parts[4] != "plain").then(|| (num(4), num(5)));
    let k = if m == 16 { 128 } else { 64 };
    let mut rng = Rng(0xf8f6 + (m * 100 + fa * 10 + fb) as u64);
    let (ca, cb) = (mx_codes(fa), mx_codes(fb));
    let pick = |rng: &mut Rng, codes: &[(u32, f64)]| codes[rng.next_u32() as usize % codes.len()];
    // A (m×k) and B (k×n, n = m) as codes and values.
    let a: Vec<(u32, f64)> = (0..m * k).map(|_| pick(&mut rng, &ca)).collect();
    let b: Vec<(u32, f64)> = (0..k * m).map(|_| pick(&mut rng, &cb)).collect();
    // Scale words: the selected byte 2^-2..2^2 (or NaN), the other bytes noise.
    let scale_words = |rng: &mut Rng, byte: Option<usize>, nan: Option<usize>| {
        let mut words = Vec::new();
        let mut scales = Vec::new();
        for l in 0..64 {
            let mut word = rng.next_u32();
            let mut s = 1.0;
            if let Some(byte) = byte {
                let x = if nan == Some(l) {
                    0xff
                } else {
                    125 + rng.next_u32() % 5
                };
                word = word & !(0xff << (8 * byte)) | x << (8 * byte);
                s = if x == 0xff {
                    f64::NAN
                } else {
                    2f64.powi(x as i32 - 127)
                };
            }
            words.push(word);
            scales.push(s);
        }
        (words, scales)
    };
    let (sa_words, sa) = scale_words(&mut rng, sel.map(|s| s.0), nan_lane);
    let (sb_words, sb) = scale_words(&mut rng, sel.map(|s| s.1), None);
    // Lane l holds row/column l % m, k = 32(l / m) .. +32, packed at the format's width.
    let width = |f: usize| 1 + MX_FORMATS[f].0 + MX_FORMATS[f].1;
    let pack = |rng: &mut Rng, code_at: &dyn Fn(usize, usize) -> u32, f: usize| {
        let w = width(f) as usize;
        let mut words = Vec::new();
        for l in 0..64 {
            let mut bits = [0u64; 5]; // 256 bits and room for a carry
            for el in 0..32 {
                let c = u64::from(code_at(l % m, 32 * (l / m) + el));
                bits[w * el / 64] |= c << (w * el % 64);
                if w * el % 64 + w > 64 {
                    bits[w * el / 64 + 1] |= c >> (64 - w * el % 64);
                }
            }
            let used = 32 * w / 32;
            for r in 0..8 {
                words.push(if r < used {
                    (bits[r / 2] >> (32 * (r % 2))) as u32
                } else {
                    rng.next_u32()
                });
            }
        }
        words
    };
    let a_words = pack(&mut rng, &|r, kk| a[r * k + kk].0, fa);
    let b_words = pack(&mut rng, &|c, kk| b[kk * m + c].0, fb);
    // The scaled matrices: the scale of the lane that holds each element.
    let lane = |r: usize, kk: usize| r + m * (kk / 32);
    let av: Vec<f64> = (0..m * k)
        .map(|x| a[x].1 * sa[lane(x / k, x % k)])
        .collect();
    let bv: Vec<f64> = (0..k * m)
        .map(|x| b[x].1 * sb[lane(x % m, x / m)])
        .collect();
    let c = acc_values(&mut rng, In::F16, m * m);
    let nregs = m * m / 64;
    let (c_regs, want) = in_registers(m, &c, &gemm(&av, &bv, &c, m, m, k));
    let (ba, bb, bc, bsa, bsb, bd) = (
        e.buf_u32(&a_words),
        e.buf_u32(&b_words),
        e.buf_bytes(&encode_acc(In::F16, &c_regs)),
        e.buf_u32(&sa_words),
        e.buf_u32(&sb_words),
        e.zeros(4 * 64 * nregs),
    );
    run_one_wave(e, name, &[&ba, &bb, &bc, &bsa, &bsb, &bd]);
    let got = decode_acc(In::F16, &bd);
    if let Some(nl) = nan_lane {
        // Row nl % m of D is NaN; compare the rest.
        for j in 0..m {
            let (r, l) = out_place(m, nl % m, j);
            assert!(
                got[r * 64 + l].is_nan(),
                "{name}: D({}, {j}) not NaN",
                nl % m
            );
        }
        let keep: Vec<usize> = (0..got.len()).filter(|&x| !want[x].0.is_nan()).collect();
        let pick = |v: &[f64]| keep.iter().map(|&x| v[x]).collect::<Vec<_>>();
        let want_kept: Vec<(f64, f64)> = keep.iter().map(|&x| want[x]).collect();
        check(
            &format!("gfx950 {name} (NaN scale)"),
            In::F16,
            &pick(&got),
            &want_kept,
        );
        return;
    }
    check(&format!("gfx950 {name}"), In::F16, &got, &want);
}

/// gfx950's scaled MFMA as machine words (the `v_mfma_ld_scale_b32` prefix and the MFMA, one
/// 16-byte instruction), its scale bytes picked by the prefix's op_sel/op_sel_hi; and the
/// faults for what is not defined: formats 5-7, and the prefix alone.
#[test]
fn f8f6f4_machine_words() {
    use hsaemu_emu::{run_words, Gen, WaveRegs};
    const S_ENDPGM: u32 = 0xbf81_0000;
    // v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], a[4:11], a[12:19], v[20:23], v24, v25
    //   op_sel:[1,1,0] op_sel_hi:[1,0,0] (llvm-objdump-22): A's scale is byte 3 of v24, B's
    //   byte 1 of v25; A and B are fp8 (OCP E4M3).
    let words = [0xd3ac_1800, 0x0802_3318, 0xd3ad_0800, 0x1c52_1904, S_ENDPGM];
    let mut regs = WaveRegs::new(Gen::Gfx950);
    let agpr = |n: usize| 256 + n;
    for r in 0..8 {
        regs.v[agpr(4 + r)] = [0x3838_3838; 64]; // 1.0
        regs.v[agpr(12 + r)] = [0x4040_4040; 64]; // 2.0
    }
    for r in 20..24 {
        regs.v[r] = [1.0f32.to_bits(); 64];
    }
    // The selected bytes 2^1 and 2^-1; the others NaN, which must not be read.
    regs.v[24] = [0x80ff_ffff; 64];
    regs.v[25] = [0xffff_7eff; 64];
    run_words(Gen::Gfx950, &words, &mut regs).expect("scaled MFMA");
    // D = C + 128 · (2·1) · (0.5·2).
    for r in 0..4 {
        assert_eq!(regs.v[r], [257.0f32.to_bits(); 64], "register {r}");
    }
    let unimplemented = |words: &[u32]| -> String {
        let mut regs = WaveRegs::new(Gen::Gfx950);
        match run_words(Gen::Gfx950, words, &mut regs) {
            Err(FaultKind::Unimplemented { mnemonic }) => mnemonic,
            other => panic!("{words:x?}: {other:?}"),
        }
    };
    // v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23] cbsz:5
    assert_eq!(
        unimplemented(&[0xd3ad_0500, 0x0452_1904, S_ENDPGM]),
        "v_mfma_f32_16x16x128_f8f6f4 cbsz:5 blgp:0 (formats 5-7 are not defined)"
    );
    // v_mfma_ld_scale_b32 v24, v25, then an MFMA with ABID 0: two instructions.
    assert_eq!(
        unimplemented(&[0xd3ac_0000, 0x0002_3318, 0xd3ad_0000, 0x0452_1904, S_ENDPGM]),
        "v_mfma_ld_scale_b32 (not for compute: alone only: gfx950 scaled-MFMA prefix; decoded \
         and executed fused with the f8f6f4 MFMA after it (ABID 1) as \
         v_mfma_scale_f32_*_f8f6f4; what it does alone is not documented and clang never emits it)"
    );
}
