//! Per-instruction tests of the MIMG opcodes that OpenCL C does not emit (a module of
//! `tests/inst.rs`): the `_pck` loads and stores, the float image atomics, `image_get_lod`, the
//! `_cd` and `_g16` samples, and 16-bit addresses (`a16`). Each line runs on one wave over a
//! linear image inside the test's global buffer (`run_words_mem`); lanes 5 and 37 are inactive.
//!
//! The T# and S# words are written here from the ISA manuals' "Image Resource" and "Image
//! Sampler" tables (GFX8/GFX9: Vega ISA; GFX10: RDNA2 ISA, the unified FORMAT numbering;
//! GFX11: ROCr's resource_gfx11.h with LLVM's UfmtGFX11 numbering), and
//! the expected values from the instructions' definitions: `_pck` moves the element's bits
//! without format conversion (8- and 16-bit elements zero-extended, or sign-extended with
//! `_sgn`); `image_get_lod` returns the clamped LOD then the raw one, the LOD being log2 of the
//! longer texel-space gradient (the OpenGL/Vulkan scale factor ρ) with the implicit gradients
//! of a quad (lanes 4q..4q+3 as a 2×2 block); the address components come in the ISA's order
//! ([offset] [bias] [z-compare] [derivatives, horizontal then vertical] coordinates
//! [lod/clamp/mip]), 16-bit ones packed two per VGPR as LLVM packs them (the assembler checks
//! the count on GFX10).

use super::mem::{active, aligned, mix, regs, words};
use super::{Target, TARGETS};
use half::f16;
use hsaemu_emu::{run_words_mem, Gen, WaveRegs};

/// GFX11 (RDNA3): the image tests' own target, gfx1100 in wave32 (`TARGETS` has none).
const GFX1100: Target = Target {
    mcpu: "gfx1100",
    wave64: false,
    gen: Gen::Gfx11,
};

fn gfx11(t: &Target) -> bool {
    t.gen == Gen::Gfx11
}

/// An image format: GFX8/GFX9 DATA_FORMAT and NUM_FORMAT, GFX10 unified FORMAT, GFX11
/// unified FORMAT (LLVM's `UfmtGFX11` numbering), bytes.
#[derive(Clone, Copy)]
struct Fmt {
    data: u32,
    num: u32,
    unified: u32,
    gfx11: u32,
    bytes: usize,
}

const R8_UNORM: Fmt = Fmt {
    data: 1,
    num: 0,
    unified: 1,
    gfx11: 1,
    bytes: 1,
};
const RG8_SNORM: Fmt = Fmt {
    data: 3,
    num: 1,
    unified: 15,
    gfx11: 15,
    bytes: 2,
};
const RG16_UINT: Fmt = Fmt {
    data: 5,
    num: 4,
    unified: 27,
    gfx11: 27,
    bytes: 4,
};
const RG32_UINT: Fmt = Fmt {
    data: 11,
    num: 4,
    unified: 62,
    gfx11: 48,
    bytes: 8,
};
const R32_FLOAT: Fmt = Fmt {
    data: 4,
    num: 7,
    unified: 22,
    gfx11: 22,
    bytes: 4,
};
const RGBA32_FLOAT: Fmt = Fmt {
    data: 14,
    num: 7,
    unified: 77,
    gfx11: 63,
    bytes: 16,
};

/// The test image: 16×4 texels (one per lane of a wave64), 2D, linear, pitch 16. Width and
/// height differ so that reading a t derivative as an s one changes the LOD.
const W: usize = 16;
const H: usize = 4;

/// A T# for the W×H 2D image at `base` with LAST_LEVEL `last` and the identity swizzle.
fn tsharp(t: &Target, base: u64, f: Fmt, last: u32) -> [u32; 8] {
    assert_eq!(base % 256, 0);
    let (w, h, pitch) = (W as u32 - 1, H as u32 - 1, W as u32 - 1);
    // DST_SEL_X..W = SQ_SEL_X..W, LAST_LEVEL 19:16, TYPE 31:28 (SQ_RSRC_IMG_2D = 9).
    let word3 = 4 | 5 << 3 | 6 << 6 | 7 << 9 | last << 16 | 9 << 28;
    let addr_hi = (base >> 40) as u32 & 0xff;
    if gfx11(t) {
        // GFX10's words with an 8-bit FORMAT 27:20 in GFX11's numbering and no
        // RESOURCE_LEVEL (ROCr's resource_gfx11.h).
        [
            (base >> 8) as u32,
            addr_hi | f.gfx11 << 20 | (w & 3) << 30,
            w >> 2 | h << 14,
            word3,
            pitch,
            0,
            0,
            0,
        ]
    } else if t.gfx10() {
        // FORMAT 28:20, WIDTH-1 split as w1[31:30] (bits 1:0) and w2[11:0] (bits 13:2),
        // HEIGHT-1 w2[27:14], RESOURCE_LEVEL w2[31], PITCH-1 w4[13:0].
        [
            (base >> 8) as u32,
            addr_hi | f.unified << 20 | (w & 3) << 30,
            w >> 2 | h << 14 | 1 << 31,
            word3,
            pitch,
            0,
            0,
            0,
        ]
    } else {
        // DATA_FORMAT 25:20, NUM_FORMAT 29:26, WIDTH-1 w2[13:0], HEIGHT-1 w2[27:14],
        // DEPTH-1 w4[12:0], PITCH-1 w4[28:13].
        [
            (base >> 8) as u32,
            addr_hi | f.data << 20 | f.num << 26,
            w | h << 14,
            word3,
            pitch << 13,
            0,
            0,
            0,
        ]
    }
}

/// An S#: CLAMP_X/Y/Z, DEPTH_COMPARE_FUNC 14:12, MIN_LOD/MAX_LOD (unsigned 4.8) in word 1,
/// XY_MAG_FILTER 21:20 and XY_MIN_FILTER 23:22 (0 point, 1 bilinear) in word 2.
fn ssharp(clamp: u32, compare: u32, lods: (u32, u32), mag: u32, min: u32) -> [u32; 4] {
    [
        clamp | clamp << 3 | clamp << 6 | compare << 12,
        lods.0 | lods.1 << 12,
        mag << 20 | min << 22,
        0,
    ]
}

/// One run: the target, the image bytes before and after, the registers before and after.
struct Run<'a> {
    t: &'a Target,
    before: Vec<u8>,
    after: Vec<u8>,
    r0: WaveRegs,
    r1: WaveRegs,
}

impl Run<'_> {
    fn texel(m: &[u8], f: Fmt, x: usize, y: usize) -> &[u8] {
        let a = (y * W + x) * f.bytes;
        &m[a..a + f.bytes]
    }

    /// The lanes that run.
    fn lanes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.t.lanes()).filter(|&l| active(self.t, l))
    }

    /// Lanes 5 and 37 keep `v[reg..reg + n]`.
    fn inactive_kept(&self, reg: usize, n: usize, line: &str) {
        for l in (0..self.t.lanes()).filter(|&l| !active(self.t, l)) {
            for r in reg..reg + n {
                assert_eq!(
                    self.r1.v[r][l], self.r0.v[r][l],
                    "{}: {line} lane {l}",
                    self.t.mcpu
                );
            }
        }
    }
}

/// Runs `line` on every target where it assembles (`DIM` stands for GFX10's `dim:` field),
/// with the image's T# in s[8:15] and `samp` in s[16:19]; `setup` fills the image bytes and
/// the VGPRs (v20–v27 start scrambled), `check` compares. Returns how many targets ran it.
fn run(
    line: &str,
    f: Fmt,
    last: u32,
    samp: [u32; 4],
    setup: &dyn Fn(&Target, &mut [u8], &mut WaveRegs),
    check: &dyn Fn(&Run<'_>),
) -> usize {
    run_on(&TARGETS, line, f, last, samp, setup, check)
}

/// [`run`] on `targets`.
fn run_on(
    targets: &[Target],
    line: &str,
    f: Fmt,
    last: u32,
    samp: [u32; 4],
    setup: &dyn Fn(&Target, &mut [u8], &mut WaveRegs),
    check: &dyn Fn(&Run<'_>),
) -> usize {
    let mut ran = 0;
    for t in targets {
        let line = on_target(t, line);
        let w = if llvm22(t, &line) {
            super::gfx11::asm22(t.mcpu, t.wave64, std::slice::from_ref(&line)).pop()
        } else {
            words(t, std::slice::from_ref(&line))
        };
        let Some(w) = w else {
            continue;
        };
        let mut store = Vec::new();
        let global = aligned(&mut store, W * H * 16 + 256);
        let skip = (global.as_ptr() as usize).next_multiple_of(256) - global.as_ptr() as usize;
        let base = global.as_ptr() as u64 + skip as u64;
        let n = W * H * f.bytes;
        let mut r = regs(t);
        for (v, row) in r.v.iter_mut().enumerate().skip(20).take(8) {
            for (l, x) in row.iter_mut().enumerate() {
                *x = mix((v * 64 + l) as u64 + 77) as u32;
            }
        }
        r.s[8..16].copy_from_slice(&tsharp(t, base, f, last));
        r.s[16..20].copy_from_slice(&samp);
        setup(t, &mut global[skip..skip + n], &mut r);
        let before = global[skip..skip + n].to_vec();
        let r0 = r.clone();
        run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
            .unwrap_or_else(|e| panic!("{}: {line}: {e:?}", t.mcpu));
        check(&Run {
            t,
            before,
            after: global[skip..skip + n].to_vec(),
            r0,
            r1: r,
        });
        ran += 1;
    }
    ran
}

/// `line` for `t`: `DIM` replaced by GFX10's and GFX11's `dim:` field (nothing before).
fn on_target(t: &Target, line: &str) -> String {
    let dim = if t.gfx10() || gfx11(t) {
        " dim:SQ_RSRC_IMG_2D"
    } else {
        ""
    };
    line.replace("DIM", dim)
}

/// GFX11 NSA lines need LLVM 22 (LLVM 15 rejects the tuple operand and many lists).
fn llvm22(t: &Target, line: &str) -> bool {
    gfx11(t) && line.contains('[')
}

/// Fills the assembly cache for each of `lines` as [`run_on`] will assemble it on each of
/// `targets`, with one llvm-mc run per target ([`super::prefetch`]).
fn prefetch(targets: &[Target], lines: &[String]) {
    for t in targets {
        let lines: Vec<String> = lines
            .iter()
            .map(|l| on_target(t, l))
            .filter(|l| !llvm22(t, l))
            .collect();
        super::prefetch(t, &lines);
    }
}

/// Lane l's texel: (l % 16, l / 16), unique in a wave64.
fn texel_of(l: usize) -> (usize, usize) {
    (l % W, l / W % H)
}

/// Fills the image with bytes whose high bits vary (so sign extension shows).
fn fill_bytes(m: &mut [u8]) {
    for (k, b) in m.iter_mut().enumerate() {
        *b = mix(k as u64) as u8;
    }
}

/// The element's bits as four dwords, an element under four bytes zero- or sign-extended.
fn raw_dwords(e: &[u8], sgn: bool) -> [u32; 4] {
    let mut b = [0u8; 16];
    b[..e.len()].copy_from_slice(e);
    let mut v: [u32; 4] = std::array::from_fn(|c| {
        u32::from_le_bytes(b[4 * c..4 * c + 4].try_into().expect("4 bytes"))
    });
    if sgn && e.len() < 4 {
        let s = 32 - 8 * e.len() as u32;
        v[0] = ((v[0] << s) as i32 >> s) as u32;
    }
    v
}

/// The destination registers of `dmask` components from v20.
fn vdata(dmask: u32) -> String {
    match dmask.count_ones() {
        1 => "v20".into(),
        n => format!("v[20:{}]", 19 + n),
    }
}

/// The line of a `_pck` load or store of `dmask` (`a16`: 16-bit addresses).
/// Every [`pck_line`] of `ops` with each of `dmasks`, with and without `a16` (for `prefetch`).
fn pck_lines(ops: &[&str], dmasks: impl IntoIterator<Item = u32>) -> Vec<String> {
    dmasks
        .into_iter()
        .flat_map(|dmask| {
            ops.iter()
                .flat_map(move |op| [false, true].map(|a16| pck_line(op, dmask, a16)))
        })
        .collect()
}

fn pck_line(op: &str, dmask: u32, a16: bool) -> String {
    let addr = match (a16, op.contains("_mip")) {
        (false, false) => "v[0:1]",
        (false, true) => "v[0:2]",
        (true, false) => "v0",
        (true, true) => "v[0:1]",
    };
    format!(
        "{op} {}, {addr}, s[8:15] dmask:{dmask:#x}DIM unorm{}",
        vdata(dmask),
        if a16 { " a16" } else { "" }
    )
}

/// `image_load_pck[_sgn]` and `image_load_mip_pck[_sgn]`, with 32- and 16-bit addresses: the
/// element's bits, dword by dword, as `dmask` selects; level 1 is past a one-level T#'s last
/// and reads 0.
#[test]
fn load_pck() {
    const OPS: [&str; 4] = [
        "image_load_pck",
        "image_load_pck_sgn",
        "image_load_mip_pck",
        "image_load_mip_pck_sgn",
    ];
    let cases = [
        (R8_UNORM, 1),
        (RG8_SNORM, 1),
        (RG16_UINT, 1),
        (RG32_UINT, 3),
        (RG32_UINT, 2),
        (RGBA32_FLOAT, 0xf),
        (RGBA32_FLOAT, 0xa),
    ];
    prefetch(&TARGETS, &pck_lines(&OPS, cases.map(|(_, dmask)| dmask)));
    let mut ran = 0;
    for (f, dmask) in cases {
        for op in OPS {
            let mip = op.contains("_mip");
            let sgn = op.ends_with("_sgn");
            for a16 in [false, true] {
                let line = pck_line(op, dmask, a16);
                let level = |l: usize| u32::from(mip && l.is_multiple_of(3));
                ran += run(
                    &line,
                    f,
                    0,
                    [0; 4],
                    &|_, m, r| {
                        fill_bytes(m);
                        for l in 0..64 {
                            let (x, y) = texel_of(l);
                            if a16 {
                                r.v[0][l] = x as u32 | (y as u32) << 16;
                                r.v[1][l] = level(l);
                            } else {
                                r.v[0][l] = x as u32;
                                r.v[1][l] = y as u32;
                                r.v[2][l] = level(l);
                            }
                        }
                    },
                    &|run| {
                        let n = dmask.count_ones() as usize;
                        for l in run.lanes() {
                            let (x, y) = texel_of(l);
                            let want = if level(l) != 0 {
                                [0; 4]
                            } else {
                                raw_dwords(Run::texel(&run.before, f, x, y), sgn)
                            };
                            let picked: Vec<u32> = (0..4)
                                .filter(|c| dmask >> c & 1 != 0)
                                .map(|c| want[c])
                                .collect();
                            let got: Vec<u32> = (0..n).map(|k| run.r1.v[20 + k][l]).collect();
                            assert_eq!(got, picked, "{}: {line} lane {l}", run.t.mcpu);
                        }
                        run.inactive_kept(20, n, &line);
                        assert_eq!(run.after, run.before, "{}: {line}: memory", run.t.mcpu);
                    },
                );
            }
        }
    }
    // 7 formats × 4 opcodes × 2 address sizes on GFX9 and GFX10 (×2 wave sizes), GFX8 without
    // a16.
    assert!(ran >= 7 * 4 * (2 * 4 + 1), "{ran}");
}

/// `image_store_pck` and `image_store_mip_pck`: the element takes the low bytes of the
/// `dmask` dwords (absent ones 0); a store to level 1 of a one-level T# is dropped.
#[test]
fn store_pck() {
    const OPS: [&str; 2] = ["image_store_pck", "image_store_mip_pck"];
    let cases = [
        (R8_UNORM, 1),
        (RG16_UINT, 1),
        (RG32_UINT, 3),
        (RG32_UINT, 1),
    ];
    prefetch(&TARGETS, &pck_lines(&OPS, cases.map(|(_, dmask)| dmask)));
    let mut ran = 0;
    for (f, dmask) in cases {
        for op in OPS {
            let mip = op.contains("_mip");
            for a16 in [false, true] {
                let line = pck_line(op, dmask, a16);
                let level = |l: usize| u32::from(mip && l.is_multiple_of(3));
                ran += run(
                    &line,
                    f,
                    0,
                    [0; 4],
                    &|_, m, r| {
                        fill_bytes(m);
                        for l in 0..64 {
                            let (x, y) = texel_of(l);
                            if a16 {
                                r.v[0][l] = x as u32 | (y as u32) << 16;
                                r.v[1][l] = level(l);
                            } else {
                                r.v[0][l] = x as u32;
                                r.v[1][l] = y as u32;
                                r.v[2][l] = level(l);
                            }
                        }
                    },
                    &|run| {
                        let mut want = run.before.clone();
                        for l in run.lanes().filter(|&l| level(l) == 0) {
                            let (x, y) = texel_of(l);
                            let mut dw = [0u32; 4];
                            let mut k = 0;
                            for (c, d) in dw.iter_mut().enumerate() {
                                if dmask >> c & 1 != 0 {
                                    *d = run.r0.v[20 + k][l];
                                    k += 1;
                                }
                            }
                            let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
                            let a = (y * W + x) * f.bytes;
                            want[a..a + f.bytes].copy_from_slice(&bytes[..f.bytes]);
                        }
                        assert!(run.after == want, "{}: {line}: memory", run.t.mcpu);
                    },
                );
            }
        }
    }
    assert!(ran >= 4 * 2 * (2 * 4 + 1), "{ran}");
}

/// GFX10 `image_atomic_fcmpswap`, `_fmin`, `_fmax` on a 32_FLOAT image, one texel per lane:
/// `tmp = MEM; MEM = op(tmp, DATA); RETURN = tmp` with a float compare (−0 equals +0, NaN
/// equals nothing) and float min/max.
#[test]
fn float_atomics() {
    let vals = [1.5f32, -2.0, 0.25, 1e-40, -1e30, 3.0, -0.5, 7.0];
    let mut ran = 0;
    for op in ["fcmpswap", "fmin", "fmax"] {
        let cmp = op == "fcmpswap";
        let line = format!(
            "image_atomic_{op} {}, v[0:1], s[8:15] dmask:{}DIM unorm glc",
            if cmp { "v[20:21]" } else { "v20" },
            if cmp { "0x3" } else { "0x1" }
        );
        let old = |l: usize| match (cmp, l % 4) {
            (true, 2) => -0.0f32,
            (true, 3) => f32::NAN,
            _ => vals[l % vals.len()],
        };
        let data = |l: usize| vals[(l / 2 + 3) % vals.len()];
        let compare = |l: usize| match l % 4 {
            1 => old(l),
            2 => 0.0,
            3 => f32::NAN,
            _ => data(l) + 1.0,
        };
        ran += run(
            &line,
            R32_FLOAT,
            0,
            [0; 4],
            &|_, m, r| {
                for l in 0..64 {
                    let (x, y) = texel_of(l);
                    let a = (y * W + x) * 4;
                    m[a..a + 4].copy_from_slice(&old(l).to_le_bytes());
                    r.v[0][l] = x as u32;
                    r.v[1][l] = y as u32;
                    r.v[20][l] = data(l).to_bits();
                    r.v[21][l] = compare(l).to_bits();
                }
            },
            &|run| {
                for l in 0..run.t.lanes() {
                    let (x, y) = texel_of(l);
                    let tmp = f32::from_le_bytes(
                        Run::texel(&run.before, R32_FLOAT, x, y)
                            .try_into()
                            .expect("4 bytes"),
                    );
                    let src = data(l);
                    let new = match op {
                        "fcmpswap" if tmp == compare(l) => src,
                        "fcmpswap" => tmp,
                        "fmin" if src < tmp => src,
                        "fmax" if src > tmp => src,
                        _ => tmp,
                    };
                    let (new, ret) = if active(run.t, l) {
                        (new, tmp.to_bits())
                    } else {
                        (tmp, run.r0.v[20][l])
                    };
                    let got = Run::texel(&run.after, R32_FLOAT, x, y);
                    assert_eq!(got, new.to_le_bytes(), "{}: {line} lane {l}", run.t.mcpu);
                    assert_eq!(
                        run.r1.v[20][l], ret,
                        "{}: {line} lane {l}: returned",
                        run.t.mcpu
                    );
                }
            },
        );
    }
    // GFX10 only, both wave sizes.
    assert_eq!(ran, 3 * 2);
}

/// The LOD of texel-space gradients `h` and `v`: log2 of the longer one.
fn lod_of(h: [f64; 2], v: [f64; 2]) -> f32 {
    h[0].hypot(h[1]).max(v[0].hypot(v[1])).log2() as f32
}

/// `image_get_lod` with the implicit gradients of each quad: lane 4q+1 minus lane 4q is the
/// horizontal one, lane 4q+2 minus lane 4q the vertical one. VDATA[0] is the LOD clamped to
/// the sampler's MIN_LOD..MAX_LOD and the T#'s levels (LAST_LEVEL 3: 0..3), VDATA[1] the raw
/// LOD.
#[test]
fn get_lod() {
    // Texel-space gradients (horizontal, vertical) per quad.
    let grads: [([f64; 2], [f64; 2]); 8] = [
        ([2.0, 0.0], [0.0, 1.0]),
        ([4.0, 3.0], [1.0, 0.0]),
        ([0.25, 0.0], [0.0, 0.125]),
        ([0.0, 0.0], [0.0, 0.0]),
        ([16.0, 0.0], [0.0, 0.0]),
        ([1.0, 1.0], [0.0, 0.0]),
        ([0.0, 0.0], [0.0, 8.0]),
        ([0.5, 0.0], [0.0, 0.5]),
    ];
    let mut ran = 0;
    for (min_lod, max_lod) in [(0u32, 0xfffu32), (0x040, 0x200)] {
        let line = "image_get_lod v[20:21], v[0:1], s[8:15], s[16:19] dmask:0x3DIM";
        ran += run(
            line,
            RGBA32_FLOAT,
            3,
            ssharp(2, 0, (min_lod, max_lod), 1, 1),
            &|_, _, r| {
                for l in 0..64 {
                    let (h, v) = grads[l / 4 % 8];
                    let (dx, dy) = (l & 1, l >> 1 & 1);
                    // Normalized coordinates: texels / size, from (1/8, 1/4).
                    let u = 0.125 + (dx as f64 * h[0] + dy as f64 * v[0]) / W as f64;
                    let t = 0.25 + (dx as f64 * h[1] + dy as f64 * v[1]) / H as f64;
                    r.v[0][l] = (u as f32).to_bits();
                    r.v[1][l] = (t as f32).to_bits();
                }
            },
            &|run| {
                for l in run.lanes() {
                    let (h, v) = grads[l / 4 % 8];
                    let raw = lod_of(h, v);
                    let clamped = raw
                        .max(min_lod as f32 / 256.0)
                        .min(max_lod as f32 / 256.0)
                        .clamp(0.0, 3.0);
                    let got = [run.r1.v[20][l], run.r1.v[21][l]].map(f32::from_bits);
                    assert_eq!(got, [clamped, raw], "{}: {line} lane {l}", run.t.mcpu);
                }
                run.inactive_kept(20, 2, line);
            },
        );
    }
    // gfx803, gfx900, gfx906 and gfx1030 (both wave sizes); twice.
    assert!(ran >= 2 * 5, "{ran}");
}

/// The sample opcodes with instruction derivatives (`_d`, `_cd`, with `_c`, `_cl`, `_o`, 16-bit
/// `_g16` derivatives, and `a16`), and `_l`/`_c_l_o` with `a16`: every address component
/// is placed as the ISA orders it, and the LOD the derivatives (or lod/clamp) give picks the
/// filter: point for magnification (LOD ≤ 0), bilinear for minification. The image is
/// 32_32_32_32_FLOAT with red = x + 10y; sample coordinates (2 + k, 1.5) in texels, k = l % 4,
/// fall on a texel centre row and halfway between two columns, so bilinear is the mean of
/// two neighbours and point the right-hand one.
#[test]
fn sample_derivatives() {
    let mut names: Vec<String> = Vec::new();
    for c in ["", "_c"] {
        for d in ["_d", "_cd"] {
            for cl in ["", "_cl"] {
                for o in ["", "_o"] {
                    for g in ["", "_g16"] {
                        names.push(format!("image_sample{c}{d}{cl}{o}{g}"));
                    }
                }
            }
        }
    }
    names.extend(["image_sample_l", "image_sample_c_l_o"].map(String::from));
    // The lines with their exact address tuples in one llvm-mc run per target (the few that
    // fall back to a larger tuple are assembled as they come).
    let exact: Vec<String> = names
        .iter()
        .flat_map(|name| [false, true].map(|a16| (name, a16)))
        .map(|(name, a16)| sample_text(name, a16, sample_layout(name, a16).1))
        .collect();
    prefetch(&TARGETS, &exact);
    let mut ran = 0;
    let mut per_name = std::collections::BTreeMap::new();
    let mut with_a16 = 0;
    for name in &names {
        for a16 in [false, true] {
            let n = sample_line(name, a16, &mut ran);
            *per_name.entry(name.clone()).or_insert(0) += n;
            if a16 {
                with_a16 += n;
            }
        }
    }
    // 194 runs on gfx803–gfx1030, 72 of them with a16 (GFX9 and GFX10).
    for (name, n) in &per_name {
        assert!(*n > 0, "{name} ran on no target");
    }
    assert!(ran >= 194 && with_a16 >= 72, "{ran} {with_a16}");
}

/// Per-lane derivative sets (texel space, horizontal then vertical): LOD −1 (point), LOD 2
/// (bilinear), a diagonal horizontal one of length 1.24 (bilinear; grouped by coordinate
/// instead of by direction it would be 0.875 long and point), and a t-only one of length
/// 0.875 (point; read as an s derivative it would be 3.5 texels and bilinear).
const DERIVS: [([f32; 2], [f32; 2]); 4] = [
    ([0.5, 0.0], [0.0, 0.25]),
    ([4.0, 0.0], [0.0, 2.0]),
    ([0.875, 0.875], [0.0, 0.0]),
    ([0.0, 0.875], [0.0, 0.0]),
];

/// The address components of a sample line: (dword, 16-bit half 0/1 or None for the whole
/// dword), the dwords they take, and which of c, d, l, cl, o the name has.
type Layout = (
    Vec<(usize, Option<usize>)>,
    usize,
    (bool, bool, bool, bool, bool),
);

fn sample_layout(name: &str, a16: bool) -> Layout {
    let rest = name.strip_prefix("image_sample").unwrap_or(name);
    let c = rest.starts_with("_c_");
    let d = rest.contains("_d") || rest.contains("cd");
    let l = rest.contains("_l");
    let cl = rest.contains("_cl");
    let o = rest.contains("_o");
    let g16 = rest.ends_with("_g16");
    let half = a16;
    // The address components: (dword, 16-bit half 0/1 or None for the whole dword).
    let mut slots: Vec<(usize, Option<usize>)> = Vec::new();
    let mut dw = 0;
    if o {
        slots.push((dw, None));
        dw += 1;
    }
    if c {
        slots.push((dw, None));
        dw += 1;
    }
    if d {
        for _direction in 0..2 {
            for j in 0..2 {
                slots.push(if half || g16 {
                    (dw, Some(j))
                } else {
                    (dw + j, None)
                });
            }
            dw += if half || g16 { 1 } else { 2 };
        }
    }
    let trailing = usize::from(l || cl);
    for m in 0..2 + trailing {
        slots.push(if half {
            (dw + m / 2, Some(m % 2))
        } else {
            (dw + m, None)
        });
    }
    let dwords = slots.iter().map(|s| s.0 + 1).max().unwrap_or(1);
    (slots, dwords, (c, d, l, cl, o))
}

/// The sample line of `name` with an address tuple of `size` dwords.
fn sample_text(name: &str, a16: bool, size: usize) -> String {
    let vaddr = if size == 1 {
        "v0".to_string()
    } else {
        format!("v[0:{}]", size - 1)
    };
    format!(
        "{name} v20, {vaddr}, s[8:15], s[16:19] dmask:0x1DIM{}",
        if a16 { " a16" } else { "" }
    )
}

/// Runs one sample line on every target that has it; returns how many ran.
fn sample_line(name: &str, a16: bool, ran: &mut usize) -> usize {
    let (slots, dwords, (c, d, l, cl, o)) = sample_layout(name, a16);
    // The address tuple: its exact size, or the next one the assembler has.
    let mut count = 0;
    for size in [dwords, 8, 16] {
        if size < dwords {
            continue;
        }
        let line = sample_text(name, a16, size);
        let n = run(
            &line,
            RGBA32_FLOAT,
            0,
            // Clamp to edge, LESS (pass when reference < texel), point mag, bilinear min.
            ssharp(2, 1, (0, 0xfff), 0, 1),
            &|_, m, r| sample_setup(m, r, &slots, (c, d, l, cl, o)),
            &|run| sample_check(run, &line, (c, d, l, cl, o)),
        );
        *ran += n;
        count += n;
        if n > 0 {
            break;
        }
    }
    count
}

/// The per-lane inputs of a sample line: coordinates, derivatives, lod, clamp, offsets, z.
struct Lane {
    u: f32,
    v: f32,
    derivs: ([f32; 2], [f32; 2]),
    lod: f32,
    clamp: f32,
    offset: i32,
    reference: f32,
}

fn lane_inputs(l: usize) -> Lane {
    let k = (l % 4) as f32;
    let offset = i32::from(l.is_multiple_of(5));
    Lane {
        u: 2.0 + k,
        v: 1.5,
        derivs: DERIVS[l % 4],
        lod: if l.is_multiple_of(2) { 0.0 } else { 1.5 },
        clamp: if l.is_multiple_of(3) { 1.0 } else { 0.0 },
        offset,
        // Between the two texels bilinear reads (and below the point-sampled one).
        reference: 11.5 + k + offset as f32,
    }
}

fn sample_setup(
    m: &mut [u8],
    r: &mut WaveRegs,
    slots: &[(usize, Option<usize>)],
    (c, d, l_, cl, o): (bool, bool, bool, bool, bool),
) {
    for y in 0..H {
        for x in 0..W {
            let a = (y * W + x) * 16;
            let red = (x + 10 * y) as f32;
            for (k, v) in [red, 1.0, 2.0, 3.0].iter().enumerate() {
                m[a + 4 * k..a + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    for v in 0..16 {
        for lane in 0..64 {
            r.v[v][lane] = 0;
        }
    }
    for lane in 0..64 {
        let p = lane_inputs(lane);
        // Normalized coordinates and derivatives: texels / size.
        let (sw, sh) = (W as f32, H as f32);
        let mut vals: Vec<u32> = Vec::new();
        if o {
            vals.push(p.offset as u32 & 0x3f);
        }
        if c {
            vals.push(p.reference.to_bits());
        }
        if d {
            let (h, v) = p.derivs;
            vals.extend([h[0] / sw, h[1] / sh, v[0] / sw, v[1] / sh].map(f32::to_bits));
        }
        vals.extend([p.u / sw, p.v / sh].map(f32::to_bits));
        if l_ {
            vals.push(p.lod.to_bits());
        }
        if cl {
            vals.push(p.clamp.to_bits());
        }
        for (&(dword, half), &bits) in slots.iter().zip(&vals) {
            match half {
                None => r.v[dword][lane] = bits,
                Some(h) => {
                    let x = u32::from(f16::from_f32(f32::from_bits(bits)).to_bits());
                    r.v[dword][lane] |= x << (16 * h);
                }
            }
        }
    }
}

fn sample_check(run: &Run<'_>, line: &str, (c, d, l_, cl, o): (bool, bool, bool, bool, bool)) {
    for lane in run.lanes() {
        let p = lane_inputs(lane);
        let lod = if l_ {
            p.lod
        } else if d {
            let (h, v) = p.derivs;
            lod_of(h.map(f64::from), v.map(f64::from))
        } else {
            0.0
        };
        let lod = if cl { lod.max(p.clamp) } else { lod };
        let off = if o { p.offset } else { 0 };
        // Columns: point takes floor(u); bilinear the two around u − 0.5 at weight 0.5.
        let red = |x: i32| (x + off + 10) as f32;
        let value = |x: i32| {
            if c {
                if p.reference < red(x) {
                    1.0
                } else {
                    0.0
                }
            } else {
                red(x)
            }
        };
        let x = p.u as i32;
        let want = if lod > 0.0 {
            (value(x - 1) + value(x)) * 0.5
        } else {
            value(x)
        };
        let got = f32::from_bits(run.r1.v[20][lane]);
        assert_eq!(got, want, "{}: {line} lane {lane} (lod {lod})", run.t.mcpu);
    }
    run.inactive_kept(20, 1, line);
}

/// Every opcode the tests above cover.
/// GFX11 (gfx1100, wave32) over a T# written from ROCr's `resource_gfx11.h` layout (8-bit
/// FORMAT in GFX11's numbering, no RESOURCE_LEVEL): `image_load` converts RG8_SNORM texels
/// (b / 127, at least -1), `image_store` writes R8_UNORM bytes (the value clamped to [0, 1],
/// times 255, rounded), and a bilinear `image_sample` halfway between two R32_FLOAT texel
/// centres returns their mean (CLAMP_LAST_TEXEL at the right edge).
#[test]
fn gfx1100_load_store_sample() {
    let t = [GFX1100];
    let coords = |r: &mut WaveRegs| {
        for l in 0..32 {
            let (x, y) = texel_of(l);
            r.v[0][l] = x as u32;
            r.v[1][l] = y as u32;
        }
    };
    let line = "image_load v[20:21], v[0:1], s[8:15] dmask:0x3DIM";
    let ran = run_on(
        &t,
        line,
        RG8_SNORM,
        0,
        [0; 4],
        &|_, m, r| {
            fill_bytes(m);
            coords(r);
        },
        &|run| {
            for l in run.lanes() {
                let (x, y) = texel_of(l);
                let e = Run::texel(&run.before, RG8_SNORM, x, y);
                for (c, &b) in e.iter().enumerate() {
                    let want = (f32::from(b as i8) / 127.0).max(-1.0);
                    let got = f32::from_bits(run.r1.v[20 + c][l]);
                    assert_eq!(got, want, "{line} lane {l} component {c}");
                }
            }
            run.inactive_kept(20, 2, line);
            assert_eq!(run.after, run.before, "{line}: memory");
        },
    );
    assert_eq!(ran, 1, "{line}");

    // Lane l stores (l - 2) / 255 (lane 0 -2/255 clamps to 0), lane 31 stores 2.0 (255).
    let value = |l: usize| {
        if l == 31 {
            2.0
        } else {
            (l as f32 - 2.0) / 255.0
        }
    };
    let line = "image_store v20, v[0:1], s[8:15] dmask:0x1DIM";
    let ran = run_on(
        &t,
        line,
        R8_UNORM,
        0,
        [0; 4],
        &|_, m, r| {
            fill_bytes(m);
            coords(r);
            for l in 0..32 {
                r.v[20][l] = value(l).to_bits();
            }
        },
        &|run| {
            let mut want = run.before.clone();
            for l in run.lanes() {
                let (x, y) = texel_of(l);
                want[y * W + x] = match l {
                    0 | 1 => 0,
                    31 => 255,
                    _ => l as u8 - 2,
                };
            }
            assert!(run.after == want, "{line}: memory {:?}", run.after);
        },
    );
    assert_eq!(ran, 1, "{line}");

    // s = (x + 1) / W is halfway between texel centres x and x + 1; t = (y + 0.5) / H is a
    // row centre. Texel (x, y) holds 4x + y. The quad's gradients are one texel across and
    // none down: LOD 0, the magnification filter (bilinear here).
    let line = "image_sample v20, v[0:1], s[8:15], s[16:19] dmask:0x1DIM";
    let samp = ssharp(2, 0, (0, 0), 1, 1);
    let texel = |x: usize, y: usize| (4 * x + y) as f32;
    let ran = run_on(
        &t,
        line,
        R32_FLOAT,
        0,
        samp,
        &|_, m, r| {
            for y in 0..H {
                for x in 0..W {
                    let a = (y * W + x) * 4;
                    m[a..a + 4].copy_from_slice(&texel(x, y).to_le_bytes());
                }
            }
            for l in 0..32 {
                let (x, y) = texel_of(l);
                r.v[0][l] = ((x as f32 + 1.0) / W as f32).to_bits();
                r.v[1][l] = ((y as f32 + 0.5) / H as f32).to_bits();
            }
        },
        &|run| {
            for l in run.lanes() {
                let (x, y) = texel_of(l);
                let want = (texel(x, y) + texel((x + 1).min(W - 1), y)) / 2.0;
                let got = f32::from_bits(run.r1.v[20][l]);
                assert_eq!(got, want, "{line} lane {l}");
            }
            run.inactive_kept(20, 1, line);
        },
    );
    assert_eq!(ran, 1, "{line}");
}

/// GFX11 NSA (`size` 12; lines by llvm-mc-22): the address operands are separate VGPRs in any order, and with more
/// than five addresses the fifth operand is a tuple holding the rest (LLVM's form). An
/// `image_load` reads x from v7 and y from v3 (RG8_SNORM as above); an `image_sample_d` of a
/// 2D R32_FLOAT image has six addresses: zero derivatives in v9, v4, v11, v2 and the tuple
/// v[5:6] holding s and t (LOD −inf: the point magnification filter, texel (x, y)).
#[test]
fn gfx1100_nsa_addresses() {
    let t = [GFX1100];
    let line = "image_load v[20:21], [v7, v3], s[8:15] dmask:0x3DIM";
    let ran = run_on(
        &t,
        line,
        RG8_SNORM,
        0,
        [0; 4],
        &|_, m, r| {
            fill_bytes(m);
            for l in 0..32 {
                let (x, y) = texel_of(l);
                r.v[7][l] = x as u32;
                r.v[3][l] = y as u32;
                // The registers a consecutive reading would take hold another texel.
                r.v[8][l] = ((x + 1) % W) as u32;
            }
        },
        &|run| {
            for l in run.lanes() {
                let (x, y) = texel_of(l);
                let e = Run::texel(&run.before, RG8_SNORM, x, y);
                for (c, &b) in e.iter().enumerate() {
                    let want = (f32::from(b as i8) / 127.0).max(-1.0);
                    let got = f32::from_bits(run.r1.v[20 + c][l]);
                    assert_eq!(got, want, "{line} lane {l} component {c}");
                }
            }
        },
    );
    assert_eq!(ran, 1, "{line}");

    let line = "image_sample_d v20, [v9, v4, v11, v2, v[5:6]], s[8:15], s[16:19] dmask:0x1DIM";
    let samp = ssharp(2, 0, (0, 4095), 0, 0);
    let texel = |x: usize, y: usize| (4 * x + y) as f32;
    let ran = run_on(
        &t,
        line,
        R32_FLOAT,
        0,
        samp,
        &|_, m, r| {
            for y in 0..H {
                for x in 0..W {
                    let a = (y * W + x) * 4;
                    m[a..a + 4].copy_from_slice(&texel(x, y).to_le_bytes());
                }
            }
            for l in 0..32 {
                let (x, y) = texel_of(l);
                for v in [9, 4, 11, 2] {
                    r.v[v][l] = 0;
                }
                r.v[5][l] = ((x as f32 + 0.5) / W as f32).to_bits();
                r.v[6][l] = ((y as f32 + 0.5) / H as f32).to_bits();
            }
        },
        &|run| {
            for l in run.lanes() {
                let (x, y) = texel_of(l);
                let got = f32::from_bits(run.r1.v[20][l]);
                assert_eq!(got, texel(x, y), "{line} lane {l}");
            }
            run.inactive_kept(20, 1, line);
        },
    );
    assert_eq!(ran, 1, "{line}");
}

/// GFX11 typed buffer load over a V# written from ROCr's `resource_gfx11.h` (word 3: DST_SEL,
/// FORMAT 17:12 in GFX11's numbering, OOB_SELECT 29:28 = 0, index against NUM_RECORDS):
/// `buffer_load_format_xy` of RG32_UINT elements (GFX11 FORMAT 48; GFX10's 48 would be a
/// 10_10_10_2 format); lanes past NUM_RECORDS read 0.
#[test]
fn gfx1100_buffer_load_format() {
    let line = "buffer_load_format_xy v[20:21], v0, s[8:11], 0 idxen";
    let records = 24;
    let ran = run_on(
        &[GFX1100],
        line,
        RG32_UINT,
        0,
        [0; 4],
        &|_, m, r| {
            fill_bytes(m);
            let base = m.as_ptr() as u64;
            r.s[8] = base as u32;
            r.s[9] = (base >> 32) as u32 & 0xffff | 8 << 16;
            r.s[10] = records;
            r.s[11] = 4 | 5 << 3 | 6 << 6 | 7 << 9 | RG32_UINT.gfx11 << 12;
            for l in 0..32 {
                r.v[0][l] = l as u32;
            }
        },
        &|run| {
            for l in run.lanes() {
                for c in 0..2 {
                    let a = 8 * l + 4 * c;
                    let want = if l < records as usize {
                        u32::from_le_bytes(run.before[a..a + 4].try_into().expect("4 bytes"))
                    } else {
                        0
                    };
                    let got = run.r1.v[20 + c][l];
                    assert_eq!(got, want, "{line} lane {l} component {c}");
                }
            }
            run.inactive_kept(20, 2, line);
        },
    );
    assert_eq!(ran, 1, "{line}");
}

pub(crate) fn mnemonics() -> Vec<String> {
    let mut v: Vec<String> = [
        "image_load_pck",
        "image_load_pck_sgn",
        "image_load_mip_pck",
        "image_load_mip_pck_sgn",
        "image_store_pck",
        "image_store_mip_pck",
        "image_atomic_fcmpswap",
        "image_atomic_fmin",
        "image_atomic_fmax",
        "image_get_lod",
    ]
    .map(String::from)
    .to_vec();
    for c in ["", "_c"] {
        for d in ["_d", "_cd"] {
            for cl in ["", "_cl"] {
                for o in ["", "_o"] {
                    for g in ["", "_g16"] {
                        v.push(format!("image_sample{c}{d}{cl}{o}{g}"));
                    }
                }
            }
        }
    }
    v
}
