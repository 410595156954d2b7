//! The MIMG instructions OpenCL C does not emit (tests/kernels/cl/emu_mimg.cl issues them with
//! inline assembly): gather4, get_resinfo, image atomics, sample_lz/_l/_c_lz/_lz_o and d16
//! loads, on gfx906 (gfx90a's LLVM refuses gather4 and the `_lz`/`_l` samples; gfx803 has no
//! packed d16). The T# and S# words are written here from the ISA manual's "Image Resource"
//! and "Image Sampler" tables, and the expected values from the instructions' definitions.
//! The `gfx12_*` tests do the same for GFX12's VIMAGE/VSAMPLE (tests/kernels/cl/emu_mimg12.cl,
//! clang-22 for gfx1201) with T#/S# words from ROCr's `resource_gfx12.h`.

use crate::common::*;
use half::f16;

const SRC: &str = "cl/emu_mimg.cl";
const TARGET: &str = "gfx906";

/// A GFX9 T#: base (256-byte aligned), DATA_FORMAT, NUM_FORMAT, width, height, depth/layers,
/// pitch (elements), TYPE, DST_SEL_X..W.
#[allow(clippy::too_many_arguments)]
fn tsharp(
    base: u64,
    data_format: u32,
    num_format: u32,
    [w, h, d]: [u32; 3],
    pitch: u32,
    ty: u32,
    sel: [u32; 4],
) -> [u32; 8] {
    assert_eq!(base % 256, 0);
    [
        (base >> 8) as u32,
        (base >> 40) as u32 & 0xff | data_format << 20 | num_format << 26,
        (w - 1) | (h - 1) << 14,
        sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9 | ty << 28,
        (d - 1) | (pitch - 1) << 13,
        0,
        0,
        0,
    ]
}

/// SQ_SEL_X..W: the identity swizzle.
const XYZW: [u32; 4] = [4, 5, 6, 7];
/// SQ_RSRC_IMG_2D, SQ_RSRC_IMG_2D_ARRAY.
const IMG_2D: u32 = 9;
const IMG_2D_ARRAY: u32 = 13;

/// An S#: CLAMP_X/Y/Z, DEPTH_COMPARE_FUNC, normalized coordinates, XY_MAG_FILTER,
/// XY_MIN_FILTER (0 point, 1 bilinear), MAX_LOD 4095.
fn ssharp(clamp: u32, compare: u32, mag: u32, min: u32) -> [u32; 4] {
    [
        clamp | clamp << 3 | clamp << 6 | compare << 12,
        4095 << 12,
        mag << 20 | min << 22,
        0,
    ]
}

/// A buffer holding `bytes` at a 256-byte-aligned address (a T# stores the base >> 8), and
/// that address.
fn image(e: &Emu, bytes: &[u8]) -> (Buf, u64) {
    let b = e.zeros(bytes.len() + 256);
    let base = b.addr().next_multiple_of(256);
    // SAFETY: `[base, base + len)` lies inside `b`'s live allocation of len + 256 bytes, which
    // nothing else references while the test writes it.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base as *mut u8, bytes.len()) };
    (b, base)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 4×4 RGBA32F image whose texel (x, y) is (x + 10y, 0, 0, 100 + x + 10y).
fn rgba_4x4() -> Vec<u8> {
    let mut v = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            let r = (x + 10 * y) as f32;
            v.extend_from_slice(&[r, 0.0, 0.0, 100.0 + r]);
        }
    }
    f32_bytes(&v)
}

fn red(x: i32, y: i32) -> f32 {
    (x.clamp(0, 3) + 10 * y.clamp(0, 3)) as f32
}

#[test]
fn gather4_returns_the_bilinear_footprint() {
    let e = emu(SRC, TARGET);
    let (_img, base) = image(&e, &rgba_4x4());
    // RGBA32F (DATA_FORMAT 14, NUM_FORMAT 7), pitch 4 (rows of 64 bytes), clamp-to-edge.
    let t = e.buf_u32(&tsharp(base, 14, 7, [4, 4, 1], 4, IMG_2D, XYZW));
    let s = e.buf_u32(&ssharp(2, 0, 0, 0));
    // Texel-space coordinates, given normalized (÷ 4).
    let uv: [(f32, f32); 4] = [(1.0, 2.0), (0.0, 0.0), (3.9, 1.3), (2.6, 4.0)];
    let c: Vec<f32> = uv.iter().flat_map(|&(u, v)| [u / 4.0, v / 4.0]).collect();
    let c = e.buf_f32(&c);
    let (r, a) = (e.zeros(16 * 4), e.zeros(16 * 4));
    e.run1(
        "gather4",
        &[
            Arg::Ptr(&t),
            Arg::Ptr(&s),
            Arg::Ptr(&c),
            Arg::Ptr(&r),
            Arg::Ptr(&a),
        ],
        4,
        64,
    );
    let (r, a) = (r.f32s(), a.f32s());
    for (i, &(u, v)) in uv.iter().enumerate() {
        // The four texels bilinear filtering at (u, v) would blend, texel centres at
        // i + 0.5, in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        let (i0, j0) = ((u - 0.5).floor() as i32, (v - 0.5).floor() as i32);
        let want = [
            red(i0, j0 + 1),
            red(i0 + 1, j0 + 1),
            red(i0 + 1, j0),
            red(i0, j0),
        ];
        assert_eq!(&r[4 * i..4 * i + 4], &want, "red at ({u}, {v})");
        let alpha: Vec<f32> = want.iter().map(|x| x + 100.0).collect();
        assert_eq!(&a[4 * i..4 * i + 4], &alpha[..], "alpha at ({u}, {v})");
    }
}

#[test]
fn resinfo_gives_sizes_per_mip_level() {
    let e = emu(SRC, TARGET);
    // A 2D array 37×9 with 5 layers; one mip level (BASE_LEVEL = LAST_LEVEL = 0).
    let t = e.buf_u32(&tsharp(0, 10, 0, [37, 9, 5], 64, IMG_2D_ARRAY, XYZW));
    let mips = [0u32, 1, 3, 10];
    let m = e.buf_u32(&mips);
    let o = e.zeros(16 * mips.len());
    e.run1(
        "resinfo",
        &[Arg::Ptr(&t), Arg::Ptr(&m), Arg::Ptr(&o)],
        4,
        64,
    );
    let o = o.u32s();
    for (i, &mip) in mips.iter().enumerate() {
        // Width and height halve per level (at least 1); an array's layers do not.
        let want = [(37u32 >> mip).max(1), (9u32 >> mip).max(1), 5, 1];
        assert_eq!(&o[4 * i..4 * i + 4], &want, "mip {mip}");
    }
}

/// What the `atomics` kernel leaves on a 4×2 R32 image (row pitch 256 bytes, `texels` from its
/// first byte) when `lanes` lanes each work on texel `i % 8`: each texel's adds returned the
/// old values 0, 1, …, exactly one cmpswap (whose compare value is the texel after the adds
/// and the max) won and stored 1000 + its lane, every other one saw that, and the texel holds
/// it.
fn check_atomics(what: &str, lanes: usize, adds: &[u32], cas: &[u32], texels: &[u8]) {
    let per_texel = (lanes / 8) as u32;
    for k in 0..8u32 {
        let mine: Vec<usize> = (0..lanes).filter(|i| i % 8 == k as usize).collect();
        let mut olds: Vec<u32> = mine.iter().map(|&i| adds[i]).collect();
        olds.sort_unstable();
        assert_eq!(
            olds,
            (0..per_texel).collect::<Vec<u32>>(),
            "{what}: add's old values at texel {k}"
        );
        let winners: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|&i| cas[i] == lanes as u32 - 8 + k)
            .collect();
        assert_eq!(winners.len(), 1, "{what}: one winner at texel {k}: {cas:?}");
        let stored = 1000 + winners[0] as u32;
        for &i in &mine {
            assert!(
                i == winners[0] || cas[i] == stored,
                "{what}: lane {i} saw {}",
                cas[i]
            );
        }
        let (x, y) = ((k % 4) as usize, (k / 4) as usize);
        let at = y * 256 + 4 * x;
        let texel = u32::from_le_bytes(texels[at..at + 4].try_into().expect("4 bytes"));
        assert_eq!(texel, stored, "{what}: texel {k}");
    }
}

#[test]
fn image_atomics_return_the_old_value() {
    let e = emu(SRC, TARGET);
    // A 4×2 R32 UINT image (DATA_FORMAT 4, NUM_FORMAT 4), zeroed.
    let (img, base) = image(&e, &[0u8; 4 * 64 * 2]);
    let t = e.buf_u32(&tsharp(base, 4, 4, [4, 2, 1], 64, IMG_2D, [4, 0, 0, 1]));
    // Lane i works on texel k = i % 8: 8 lanes per texel.
    let coords: Vec<u32> = (0..64u32).flat_map(|i| [i % 8 % 4, i % 8 / 4]).collect();
    let c = e.buf_u32(&coords);
    // After the adds (8 each) and the max with the lane ids, texel k holds 56 + k: the
    // compare value of every lane's cmpswap.
    let cmp: Vec<u32> = (0..64u32).map(|i| 56 + i % 8).collect();
    let v = e.buf_u32(&cmp);
    let (old_add, old_cas) = (e.zeros(256), e.zeros(256));
    e.run1(
        "atomics",
        &[
            Arg::Ptr(&t),
            Arg::Ptr(&c),
            Arg::Ptr(&v),
            Arg::Ptr(&old_add),
            Arg::Ptr(&old_cas),
        ],
        64,
        64,
    );
    let bytes = img.bytes();
    let off = (base - img.addr()) as usize;
    check_atomics(
        "gfx1030",
        64,
        &old_add.u32s(),
        &old_cas.u32s(),
        &bytes[off..],
    );
}

#[test]
fn sample_variants() {
    let e = emu(SRC, TARGET);
    let (_img, base) = image(&e, &rgba_4x4());
    let t = e.buf_u32(&tsharp(base, 14, 7, [4, 4, 1], 4, IMG_2D, XYZW));
    // Clamp-to-edge, DEPTH_COMPARE_FUNC LESS (ref < texel), point magnification, bilinear
    // minification.
    let s = e.buf_u32(&ssharp(2, 1, 0, 1));
    let c = e.buf_f32(&[1.25 / 4.0, 2.75 / 4.0, 1.25 / 4.0, 2.75 / 4.0]);
    let refs = e.buf_f32(&[20.5, 30.0]);
    let (lz, l, cmp, off) = (e.zeros(32), e.zeros(32), e.zeros(8), e.zeros(32));
    e.run1(
        "samples",
        &[
            Arg::Ptr(&t),
            Arg::Ptr(&s),
            Arg::Ptr(&c),
            Arg::Ptr(&refs),
            Arg::Ptr(&lz),
            Arg::Ptr(&l),
            Arg::Ptr(&cmp),
            Arg::Ptr(&off),
        ],
        2,
        64,
    );
    // LOD 0: the magnification filter (point): texel (1, 2).
    assert_eq!(lz.f32s()[..4], [21.0, 0.0, 0.0, 121.0]);
    // LOD 2: the minification filter (bilinear) at (1.25, 2.75): texels (0..1, 2..3) with
    // weights 0.75 and 0.25 (the image has one level, so the LOD only picks the filter).
    let want = 0.75 * (0.25 * 20.0 + 0.75 * 21.0) + 0.25 * (0.25 * 30.0 + 0.75 * 31.0);
    assert_eq!(l.f32s()[0], want);
    assert_eq!(l.f32s()[3], want + 100.0);
    // Depth compare against red = 21: 20.5 < 21 passes (1.0), 30 < 21 fails (0.0).
    assert_eq!(cmp.f32s(), [1.0, 0.0]);
    // Offsets (+1, -1) from texel (1, 2): texel (2, 1).
    assert_eq!(off.f32s()[..4], [12.0, 0.0, 0.0, 112.0]);
}

#[test]
fn d16_loads_pack_two_halves() {
    let e = emu(SRC, TARGET);
    // A 2×1 RGBA8 UNORM image (DATA_FORMAT 10, NUM_FORMAT 0).
    let (_img, base) = image(&e, &[255, 0, 7, 9, 51, 204, 1, 2]);
    let t = e.buf_u32(&tsharp(base, 10, 0, [2, 1, 1], 64, IMG_2D, XYZW));
    let c = e.buf_u32(&[0, 0, 1, 0]);
    let o = e.zeros(8);
    e.run1(
        "load_d16",
        &[Arg::Ptr(&t), Arg::Ptr(&c), Arg::Ptr(&o)],
        2,
        64,
    );
    let h = |v: u32| u32::from(f16::from_f32(v as f32 / 255.0).to_bits());
    assert_eq!(o.u32s(), [h(255) | h(0) << 16, h(51) | h(204) << 16]);
}

#[test]
fn kernels_use_the_instructions_under_test() {
    // The inline assembly really is these instructions (not folded or rewritten).
    let path = hsaemu_testkit::compile_cl(SRC, TARGET, 4);
    let text = objdump(&path, "gfx906");
    for m in [
        "image_gather4 ",
        "image_get_resinfo ",
        "image_atomic_add ",
        "image_atomic_umax ",
        "image_atomic_cmpswap ",
        "image_sample_lz ",
        "image_sample_l ",
        "image_sample_c_lz ",
        "image_sample_lz_o ",
        "image_load ",
    ] {
        assert!(text.contains(m), "{m} missing from the disassembly");
    }
}

/// GFX10.3: an NSA address list ([v45, v40]: x, then y) and the GFX10 T# (unified FORMAT 77 =
/// 32_32_32_32_FLOAT, width split across words 1 and 2, PITCH-1 in word 4 bits 13:0), from
/// ROCr's `resource_nv.h` layout.
#[test]
fn gfx10_nsa_addresses() {
    let e = emu("cl/emu_mimg10.cl", "gfx1030");
    let (_img, base) = image(&e, &rgba_4x4());
    let (w, h, pitch) = (4u32 - 1, 4u32 - 1, 4u32 - 1);
    let t = e.buf_u32(&[
        (base >> 8) as u32,
        (base >> 40) as u32 & 0xff | 77 << 20 | (w & 3) << 30,
        w >> 2 | h << 14 | 1 << 31,
        XYZW[0] | XYZW[1] << 3 | XYZW[2] << 6 | XYZW[3] << 9 | IMG_2D << 28,
        pitch,
        0,
        0,
        0,
    ]);
    let c = e.buf_u32(&[1, 2, 3, 0, 0, 3]);
    let o = e.zeros(3 * 16);
    e.run1(
        "load_nsa",
        &[Arg::Ptr(&t), Arg::Ptr(&c), Arg::Ptr(&o)],
        3,
        32,
    );
    let o = o.f32s();
    for (k, (x, y)) in [(1, 2), (3, 0), (0, 3)].into_iter().enumerate() {
        let r = red(x, y);
        assert_eq!(
            &o[4 * k..4 * k + 4],
            &[r, 0.0, 0.0, 100.0 + r],
            "texel ({x}, {y})"
        );
    }
    // The instruction really is the NSA form.
    let path = hsaemu_testkit::compile_cl("cl/emu_mimg10.cl", "gfx1030", 4);
    assert!(objdump(&path, "gfx1030").contains("[v45, v40], s["));
}

/// GFX12 (RDNA4) kernels: VIMAGE/VSAMPLE through clang-22 (`tests/kernels/cl/emu_mimg12.cl`).
const SRC12: &str = "cl/emu_mimg12.cl";
/// gfx1201 in wave32 and wave64.
const GFX12: [&str; 2] = ["gfx1201", GFX1201_W64];

/// A GFX12 T#, from ROCr's `resource_gfx12.h`: base (256-byte aligned) in word 0 and word 1
/// 7:0, FORMAT (GFX11's numbers) at word 1 24:17, WIDTH − 1 split as 31:30 of word 1 and 13:0
/// of word 2, HEIGHT − 1 at word 2 29:14, DST_SEL_X..W and TYPE (31:28) in word 3, and word 4
/// DEPTH (13:0, the last layer of an array) or, for 1D and 2D, pitch − 1 (with PITCH_MSB at
/// 15:14).
fn tsharp12(base: u64, format: u32, [w, h, d]: [u32; 3], pitch: u32, ty: u32) -> [u32; 8] {
    assert_eq!(base % 256, 0);
    let sel = XYZW;
    [
        (base >> 8) as u32,
        (base >> 40) as u32 & 0xff | format << 17 | ((w - 1) & 3) << 30,
        (w - 1) >> 2 | (h - 1) << 14,
        sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9 | ty << 28,
        if ty == IMG_2D {
            (pitch - 1) & 0xffff
        } else {
            d - 1
        },
        0,
        0,
        0,
    ]
}

/// GFX11/GFX12 FORMAT values (LLVM's `UfmtGFX11`): 32_UINT, 32_FLOAT, 32_32_32_32_FLOAT.
const FMT12_R32_UINT: u32 = 20;
const FMT12_R32_FLOAT: u32 = 22;
const FMT12_RGBA32F: u32 = 63;

#[test]
fn gfx12_load_reads_separate_address_vgprs() {
    for target in GFX12 {
        let e = emu(SRC12, target);
        // A 4×4 RGBA32F 2D array of 2 layers; layer 1 is layer 0 + 50 in every component. Rows
        // are 64 bytes, at the 256-byte pitch an array's T# implies (16 texels).
        let mut bytes = Vec::new();
        for layer in 0..2 {
            let mut l = rgba_4x4();
            l.chunks_mut(4).for_each(|c| {
                let v = f32::from_le_bytes(c.try_into().expect("4 bytes")) + 50.0 * layer as f32;
                c.copy_from_slice(&v.to_le_bytes());
            });
            for row in l.chunks(64) {
                bytes.extend_from_slice(row);
                bytes.extend_from_slice(&[0u8; 192]);
            }
        }
        let (_img, base) = image(&e, &bytes);
        let t = e.buf_u32(&tsharp12(base, FMT12_RGBA32F, [4, 4, 2], 16, IMG_2D_ARRAY));
        let at = [(1, 2, 0), (3, 0, 1), (0, 3, 1), (2, 1, 0)];
        let c: Vec<u32> = at
            .iter()
            .flat_map(|&(x, y, l)| [x as u32, y as u32, l, 0])
            .collect();
        let c = e.buf_u32(&c);
        let o = e.zeros(16 * at.len());
        e.run1(
            "load_sep",
            &[Arg::Ptr(&t), Arg::Ptr(&c), Arg::Ptr(&o)],
            at.len() as u32,
            32,
        );
        let o = o.f32s();
        for (k, &(x, y, l)) in at.iter().enumerate() {
            let r = red(x, y) + 50.0 * l as f32;
            let want = [r, 50.0 * l as f32, 50.0 * l as f32, 100.0 + r];
            assert_eq!(
                &o[4 * k..4 * k + 4],
                &want,
                "{target}: texel ({x}, {y}) layer {l}"
            );
        }
    }
}

#[test]
fn gfx12_renamed_atomics() {
    for target in GFX12 {
        let e = emu(SRC12, target);
        // A 4×2 R32 UINT image (pitch 64 texels), zeroed; lane i works on texel i % 8: four lanes
        // per texel in one wave32.
        let (img, base) = image(&e, &[0u8; 4 * 64 * 2]);
        let t = e.buf_u32(&tsharp12(base, FMT12_R32_UINT, [4, 2, 1], 64, IMG_2D));
        let coords: Vec<u32> = (0..32u32).flat_map(|i| [i % 8 % 4, i % 8 / 4]).collect();
        let c = e.buf_u32(&coords);
        // After the adds (4 per texel: 4) and image_atomic_max_int with the lane ids, texel k
        // holds 24 + k: every lane's cmpswap compares with that.
        let cmp: Vec<u32> = (0..32u32).map(|i| 24 + i % 8).collect();
        let v = e.buf_u32(&cmp);
        let (old_add, old_cas) = (e.zeros(128), e.zeros(128));
        e.run1(
            "atomics",
            &[
                Arg::Ptr(&t),
                Arg::Ptr(&c),
                Arg::Ptr(&v),
                Arg::Ptr(&old_add),
                Arg::Ptr(&old_cas),
            ],
            32,
            32,
        );
        let bytes = img.bytes();
        let off = (base - img.addr()) as usize;
        check_atomics(target, 32, &old_add.u32s(), &old_cas.u32s(), &bytes[off..]);
    }
}

#[test]
fn gfx12_atomic_add_flt() {
    for target in GFX12 {
        let e = emu(SRC12, target);
        // One R32 FLOAT texel, 0.0; lane i adds i + 0.5 (sums stay exact in f32).
        let (img, base) = image(&e, &[0u8; 256]);
        let t = e.buf_u32(&tsharp12(base, FMT12_R32_FLOAT, [1, 1, 1], 64, IMG_2D));
        let vals: Vec<f32> = (0..32).map(|i| i as f32 + 0.5).collect();
        let v = e.buf_f32(&vals);
        let old = e.zeros(128);
        e.run1(
            "atomic_add_flt",
            &[Arg::Ptr(&t), Arg::Ptr(&v), Arg::Ptr(&old)],
            32,
            32,
        );
        let off = (base - img.addr()) as usize;
        let total = f32::from_le_bytes(img.bytes()[off..off + 4].try_into().expect("4 bytes"));
        assert_eq!(total, 512.0);
        // The old values are the running sums in some order: the first is 0, and the lane that
        // saw the largest added its value last.
        let olds = old.f32s();
        let (last, &top) = olds
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("32 lanes");
        assert!(olds.contains(&0.0), "{olds:?}");
        assert_eq!(top + vals[last], 512.0, "{olds:?}");
    }
}

/// `image_atomic_min_flt`/`max_flt` as the RDNA4 ISA defines them: IEEE 754-2019
/// minimumNumber/maximumNumber (a NaN operand loses, two NaNs give the data's quieted, −0 is
/// below +0), returning the old value.
#[test]
fn gfx12_float_min_max_atomics() {
    let nan = f32::from_bits(0x7fc0_0001);
    // (texel before, data): the pairs under test.
    let cases = [
        (1.0f32, 2.0f32),
        (2.0, 1.0),
        (nan, 3.0),
        (3.0, nan),
        (-0.0, 0.0),
        (0.0, -0.0),
        (-5.0, f32::NEG_INFINITY),
    ];
    let min = |t: f32, d: f32| {
        if d.is_nan() {
            t
        } else if t.is_nan() || d < t || (d == 0.0 && t == 0.0 && d.is_sign_negative()) {
            d
        } else {
            t
        }
    };
    let max = |t: f32, d: f32| {
        if d.is_nan() {
            t
        } else if t.is_nan() || d > t || (d == 0.0 && t == 0.0 && d.is_sign_positive()) {
            d
        } else {
            t
        }
    };
    for target in GFX12 {
        let e = emu(SRC12, target);
        let before: Vec<f32> = cases.iter().map(|c| c.0).collect();
        let (imin, bmin) = image(&e, &f32_bytes(&before));
        let (imax, bmax) = image(&e, &f32_bytes(&before));
        let n = cases.len() as u32;
        let tmin = e.buf_u32(&tsharp12(bmin, FMT12_R32_FLOAT, [n, 1, 1], 64, IMG_2D));
        let tmax = e.buf_u32(&tsharp12(bmax, FMT12_R32_FLOAT, [n, 1, 1], 64, IMG_2D));
        let data: Vec<f32> = cases.iter().map(|c| c.1).collect();
        let v = e.buf_f32(&data);
        let (omin, omax) = (e.zeros(4 * cases.len()), e.zeros(4 * cases.len()));
        e.run1(
            "minmax_flt",
            &[
                Arg::Ptr(&tmin),
                Arg::Ptr(&tmax),
                Arg::Ptr(&v),
                Arg::Ptr(&omin),
                Arg::Ptr(&omax),
            ],
            n,
            32,
        );
        let texels = |img: &Buf, base: u64| -> Vec<u32> {
            let off = (base - img.addr()) as usize;
            img.bytes()[off..off + 4 * cases.len()]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        let (after_min, after_max) = (texels(&imin, bmin), texels(&imax, bmax));
        for (k, &(t, d)) in cases.iter().enumerate() {
            assert_eq!(
                omin.u32s()[k],
                t.to_bits(),
                "{target}: min_flt old value, case {k}"
            );
            assert_eq!(
                omax.u32s()[k],
                t.to_bits(),
                "{target}: max_flt old value, case {k}"
            );
            assert_eq!(
                after_min[k],
                min(t, d).to_bits(),
                "{target}: min_flt({t}, {d})"
            );
            assert_eq!(
                after_max[k],
                max(t, d).to_bits(),
                "{target}: max_flt({t}, {d})"
            );
        }
    }
}

/// GFX12 `a16` (x in the low and y in the high half of one VGPR) and `d16` (RGBA8 UNORM
/// texels as four f16 halves, x in the low half of the first VGPR).
#[test]
fn gfx12_load_a16_d16() {
    // A 3×2 RGBA8 UNORM image (GFX11/GFX12 FORMAT 42), pitch 64 texels (256-byte rows).
    let mut bytes = vec![0u8; 256 * 2];
    for y in 0..2 {
        for x in 0..3 {
            for c in 0..4 {
                bytes[256 * y + 4 * x + c] = (40 * x + 100 * y + 7 * c) as u8;
            }
        }
    }
    let at = [(2u32, 1u32), (0, 0), (1, 1)];
    for target in GFX12 {
        let e = emu(SRC12, target);
        let (_img, base) = image(&e, &bytes);
        let t = e.buf_u32(&tsharp12(base, 42, [3, 2, 1], 64, IMG_2D));
        let c = e.buf_u32(&at.map(|(x, y)| x | y << 16));
        let o = e.zeros(8 * at.len());
        e.run1(
            "load_a16_d16",
            &[Arg::Ptr(&t), Arg::Ptr(&c), Arg::Ptr(&o)],
            at.len() as u32,
            32,
        );
        let h = |v: usize| u32::from(f16::from_f32(v as f32 / 255.0).to_bits());
        let o = o.u32s();
        for (k, &(x, y)) in at.iter().enumerate() {
            let texel = |ch: usize| bytes[256 * y as usize + 4 * x as usize + ch] as usize;
            let want = [
                h(texel(0)) | h(texel(1)) << 16,
                h(texel(2)) | h(texel(3)) << 16,
            ];
            assert_eq!(o[2 * k..2 * k + 2], want, "{target}: texel ({x}, {y})");
        }
    }
}

#[test]
fn gfx12_sample_d_reads_the_tuple_operand() {
    for target in GFX12 {
        let e = emu(SRC12, target);
        let (_img, base) = image(&e, &rgba_4x4());
        let t = e.buf_u32(&tsharp12(base, FMT12_RGBA32F, [4, 4, 1], 4, IMG_2D));
        // GFX12 S# (ROCr's resource_gfx12.h): clamp-to-edge (2), point filters, MAX_LOD 4095 in
        // word 1 25:13. Zero derivatives: LOD −inf, the magnification filter (point).
        let s = e.buf_u32(&[2 | 2 << 3 | 2 << 6, 4095 << 13, 0, 0]);
        let uv = [(1.25f32, 2.75f32), (3.5, 0.5), (0.2, 3.9)];
        let c: Vec<f32> = uv.iter().flat_map(|&(u, v)| [u / 4.0, v / 4.0]).collect();
        let c = e.buf_f32(&c);
        let o = e.zeros(16 * uv.len());
        e.run1(
            "sample_d",
            &[Arg::Ptr(&t), Arg::Ptr(&s), Arg::Ptr(&c), Arg::Ptr(&o)],
            uv.len() as u32,
            32,
        );
        let o = o.f32s();
        for (k, &(u, v)) in uv.iter().enumerate() {
            let r = red(u.floor() as i32, v.floor() as i32);
            assert_eq!(
                &o[4 * k..4 * k + 4],
                &[r, 0.0, 0.0, 100.0 + r],
                "{target}: at ({u}, {v})"
            );
        }
    }
}

#[test]
fn gfx12_resinfo_reads_the_gfx12_tsharp() {
    for target in GFX12 {
        let e = emu(SRC12, target);
        // A 2D array 37×9 with 5 layers (DEPTH = 4); one mip level.
        let t = e.buf_u32(&tsharp12(0, 42, [37, 9, 5], 64, IMG_2D_ARRAY));
        let mips = [0u32, 1, 3, 10];
        let m = e.buf_u32(&mips);
        let o = e.zeros(16 * mips.len());
        e.run1(
            "resinfo",
            &[Arg::Ptr(&t), Arg::Ptr(&m), Arg::Ptr(&o)],
            mips.len() as u32,
            32,
        );
        let o = o.u32s();
        for (i, &mip) in mips.iter().enumerate() {
            let want = [(37u32 >> mip).max(1), (9u32 >> mip).max(1), 5, 1];
            assert_eq!(&o[4 * i..4 * i + 4], &want, "mip {mip}");
        }
    }
}

#[test]
fn gfx12_kernels_use_the_instructions_under_test() {
    let path = hsaemu_testkit::compile_cl(SRC12, "gfx1201", 5);
    let out = std::process::Command::new(hsaemu_testkit::tool("llvm-objdump-22"))
        .args(["-d", "--mcpu=gfx1201"])
        .arg(&path)
        .output()
        .expect("llvm-objdump-22");
    let text = String::from_utf8_lossy(&out.stdout);
    for m in [
        "image_load v[",
        "], [v45, v40, v37], s[",
        "image_atomic_add_uint ",
        "image_atomic_max_int ",
        "image_atomic_cmpswap ",
        "image_atomic_add_flt ",
        "image_atomic_min_flt ",
        " a16 d16",
        "image_atomic_max_flt ",
        "th:TH_ATOMIC_RETURN",
        "image_sample_d v[",
        "], [v20, v27, v22, v[30:32]], s[",
        "image_get_resinfo ",
    ] {
        assert!(text.contains(m), "{m} missing from the disassembly");
    }
}
