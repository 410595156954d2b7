//! The MIMG instructions OpenCL C does not emit (tests/kernels/cl/emu_mimg.cl issues them with
//! inline assembly): gather4, get_resinfo, image atomics, sample_lz/_l/_c_lz/_lz_o and d16
//! loads, on gfx906 (gfx90a's LLVM refuses gather4 and the `_lz`/`_l` samples; gfx803 has no
//! packed d16). The T# and S# words are written here from the ISA manual's "Image Resource"
//! and "Image Sampler" tables, and the expected values from the instructions' definitions.

mod common;
use common::*;
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
    let (adds, cas) = (old_add.u32s(), old_cas.u32s());
    let bytes = img.bytes();
    let off = (base - img.addr()) as usize;
    for k in 0..8u32 {
        let lanes: Vec<usize> = (0..64).filter(|i| i % 8 == k as usize).collect();
        let mut olds: Vec<u32> = lanes.iter().map(|&i| adds[i]).collect();
        olds.sort_unstable();
        assert_eq!(
            olds,
            (0..8).collect::<Vec<u32>>(),
            "add's old values at texel {k}"
        );
        // Exactly one cmpswap sees 56 + k and stores 1000 + its lane; the others see that.
        let winners: Vec<usize> = lanes
            .iter()
            .copied()
            .filter(|&i| cas[i] == 56 + k)
            .collect();
        assert_eq!(winners.len(), 1, "one winner at texel {k}: {:?}", &cas);
        let stored = 1000 + winners[0] as u32;
        for &i in &lanes {
            assert!(
                i == winners[0] || cas[i] == stored,
                "lane {i} saw {}",
                cas[i]
            );
        }
        let (x, y) = ((k % 4) as usize, (k / 4) as usize);
        let at = off + y * 256 + 4 * x;
        let texel = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        assert_eq!(texel, stored, "texel {k}");
    }
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
    let out = std::process::Command::new(hsaemu_testkit::tool("llvm-objdump-15"))
        .args(["-d", "--mcpu=gfx906"])
        .arg(&path)
        .output()
        .expect("llvm-objdump-15");
    let text = String::from_utf8_lossy(&out.stdout);
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
    let out = std::process::Command::new(hsaemu_testkit::tool("llvm-objdump-15"))
        .args(["-d", "--mcpu=gfx1030"])
        .arg(&path)
        .output()
        .expect("llvm-objdump-15");
    assert!(String::from_utf8_lossy(&out.stdout).contains("[v45, v40], s["));
}
