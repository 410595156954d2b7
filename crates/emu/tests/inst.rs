//! Per-instruction tests: single instructions assembled by llvm-mc-15, run on one wave from a
//! known register state (`hsaemu_emu::run_words`), compared lane by lane with a reference
//! computed here from the ISA references' definitions (Vega, MI200 and RDNA2 ISA manuals).
//! The emulator is never its own oracle.
//!
//! Each *key* (a mnemonic) has a reference function. Lines are generated for it on every
//! target (gfx803, gfx900, gfx906, gfx90a, gfx1030 in wave32 and wave64) and in every operand
//! form — VGPRs, an SGPR, an inline integer, an inline float, a literal, and the modifiers
//! (neg/abs, clamp, omod, op_sel/op_sel_hi, neg_lo/neg_hi, DPP, SDWA) — and llvm-mc decides
//! which lines exist: a line the assembler rejects for a target is dropped. Source lanes take
//! edge values (0, −0, denormals, NaN, sNaN, ±inf, INT_MIN, 16-bit overflow…); lanes 5 and 37
//! are inactive and must keep their old value.
//!
//! `completeness` fails when an opcode that executes on one of these targets, or on gfx942,
//! gfx950, GFX11 or GFX12 (either wave size; their lines are in the `cdna_mem`, `cdna4_cvt`,
//! `gfx11` and `gfx12` modules), has no line under its mnemonic on any target, except those
//! on [`KNOWN_UNCOVERED`] (which may only shrink; each section there says why).

// `!(x < y)` and `x < y || x > y` are the ISA's unordered/ordered compares (NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::double_comparisons)]

use hsaemu_emu::{opcode_status_on, opcodes, run_words, Gen, OpcodeStatus, WaveRegs};

#[path = "inst/cdna4_cvt.rs"]
mod cdna4_cvt;
#[path = "inst/cdna_mem.rs"]
mod cdna_mem;
#[path = "inst/gfx11.rs"]
mod gfx11;
#[path = "inst/gfx12.rs"]
mod gfx12;
#[path = "inst/image.rs"]
mod image;
#[path = "inst/mem.rs"]
mod mem;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// Targets and assembly.

struct Target {
    mcpu: &'static str,
    wave64: bool,
    gen: Gen,
}

const TARGETS: [Target; 6] = [
    Target {
        mcpu: "gfx803",
        wave64: true,
        gen: Gen::Gfx8,
    },
    Target {
        mcpu: "gfx900",
        wave64: true,
        gen: Gen::Gfx900,
    },
    Target {
        mcpu: "gfx906",
        wave64: true,
        gen: Gen::Gfx9,
    },
    Target {
        mcpu: "gfx90a",
        wave64: true,
        gen: Gen::Gfx90a,
    },
    Target {
        mcpu: "gfx1030",
        wave64: false,
        gen: Gen::Gfx10,
    },
    Target {
        mcpu: "gfx1030",
        wave64: true,
        gen: Gen::Gfx10W64,
    },
];

impl Target {
    fn gfx10(&self) -> bool {
        matches!(self.gen, Gen::Gfx10 | Gen::Gfx10W64)
    }
    fn gfx8(&self) -> bool {
        self.gen == Gen::Gfx8
    }
    fn lanes(&self) -> usize {
        if self.wave64 {
            64
        } else {
            32
        }
    }
}

/// FNV-1a, for the assembly cache's file names.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The `-mattr` a target's lines are assembled with (the wave size on GFX10+).
fn mc_attr(t: &Target) -> &'static str {
    if t.gfx10() {
        if t.wave64 {
            "+wavefrontsize64"
        } else {
            "+wavefrontsize32"
        }
    } else {
        ""
    }
}

/// Where [`assemble`] caches the encodings of `lines` for `t`: keyed by their text.
fn mc_cache_path(t: &Target, lines: &[String]) -> PathBuf {
    let mut key = format!("{}{}\n", t.mcpu, mc_attr(t));
    for l in lines {
        key.push_str(l);
        key.push('\n');
    }
    hsaemu_testkit::cache_dir().join(format!("inst-{}-{:016x}.txt", t.mcpu, fnv(key.as_bytes())))
}

/// Runs llvm-mc-15 (llvm-mc-22 for gfx942/gfx950) on `lines`: one cache line per input line,
/// its `encoding: [..]` bytes, or `-` where the assembler rejects it.
fn run_mc(t: &Target, lines: &[String]) -> String {
    let attr = mc_attr(t);
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    // LLVM 22 for the processors LLVM 15 does not know (gfx942, gfx950).
    let mc = match t.mcpu {
        "gfx942" | "gfx950" => "llvm-mc-22",
        _ => "llvm-mc-15",
    };
    let tool = hsaemu_testkit::tool(mc);
    // Parallel tests may assemble the same lines: each writes its own file.
    let src = hsaemu_testkit::temp_beside(&mc_cache_path(t, lines), "s");
    std::fs::write(&src, &text).expect("write asm");
    let mut cmd = std::process::Command::new(tool);
    cmd.args([
        "-arch=amdgcn",
        &format!("-mcpu={}", t.mcpu),
        "-show-encoding",
    ]);
    if !attr.is_empty() {
        cmd.arg(format!("-mattr={attr}"));
    }
    let o = cmd.arg(&src).output().expect("run llvm-mc");
    let _ = std::fs::remove_file(&src);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // Rejected lines: "<file>:LINE:COL: error: …".
    let mut bad = BTreeSet::new();
    for l in stderr.lines() {
        if let Some((_, rest)) = l.split_once(".s:") {
            if rest.contains("error:") {
                if let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) {
                    bad.insert(n - 1);
                }
            }
        }
    }
    // A label's fixup prints its bytes as `A`, which would parse as 0x0a: lines are whole
    // instructions, with numeric branch offsets.
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("fixup"),
        "llvm-mc: a line refers to a label"
    );
    let encodings: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_once("encoding: [").map(|(_, e)| e.to_string()))
        .collect();
    let mut enc = encodings.into_iter();
    let mut s = String::new();
    for k in 0..lines.len() {
        if bad.contains(&k) {
            s.push_str("-\n");
        } else {
            let e = enc.next().unwrap_or_else(|| {
                panic!("llvm-mc output and errors disagree at line {k}: {stderr}")
            });
            s.push_str(&e);
            s.push('\n');
        }
    }
    s
}

/// Writes `text` to cache file `path` (through a temporary file: parallel tests).
fn write_mc_cache(path: &Path, text: &str) {
    let tmp = hsaemu_testkit::temp_beside(path, "txt");
    std::fs::write(&tmp, text).expect("write cache");
    std::fs::rename(&tmp, path).expect("rename cache");
}

/// The distinct `lines`, sorted, whose single-line cache file (`path`) does not exist yet:
/// what a prefetch assembles.
fn uncached(lines: &[String], path: impl Fn(&String) -> PathBuf) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !path(l).exists())
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Fills [`assemble`]'s cache for each of `lines` alone, with one llvm-mc run for all that
/// are missing: a test that assembles many single instructions calls it first, since each
/// llvm-mc process costs ~20 ms of CPU to start, more than assembling a line. (An instruction
/// line's encoding does not depend on the lines around it.)
fn prefetch(t: &Target, lines: &[String]) {
    let missing = uncached(lines, |l| mc_cache_path(t, std::slice::from_ref(l)));
    if missing.is_empty() {
        return;
    }
    let out = run_mc(t, &missing);
    for (l, enc) in missing.iter().zip(out.lines()) {
        write_mc_cache(
            &mc_cache_path(t, std::slice::from_ref(l)),
            &format!("{enc}\n"),
        );
    }
}

/// Assembles `lines` for a target with llvm-mc-15 (llvm-mc-22 for gfx942/gfx950): the machine
/// words of each line, or `None` for a line the assembler rejects. Cached in the kernel cache by the text.
fn assemble(t: &Target, lines: &[String]) -> Vec<Option<Vec<u32>>> {
    let path = mc_cache_path(t, lines);
    let out = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(_) => {
            let s = run_mc(t, lines);
            write_mc_cache(&path, &s);
            s
        }
    };
    out.lines()
        .map(|l| {
            if l == "-" {
                return None;
            }
            let bytes: Vec<u8> = l
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("byte"))
                .collect();
            Some(
                bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Types, edge values, float helpers.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    F16,
    F32,
    F64,
    U16,
    U32,
    U64,
}

impl T {
    fn bits(self) -> u32 {
        match self {
            T::F16 | T::U16 => 16,
            T::F32 | T::U32 => 32,
            T::F64 | T::U64 => 64,
        }
    }
    fn float(self) -> bool {
        matches!(self, T::F16 | T::F32 | T::F64)
    }
    fn sign(self) -> u64 {
        1 << (self.bits() - 1)
    }
}

const E_F32: [u64; 16] = [
    0,
    0x8000_0000,
    0x3f80_0000,
    0xbfc0_0000,
    1,
    0x807f_ffff,
    0x7fc0_0000,
    0x7f80_0001,
    0x7f80_0000,
    0xff80_0000,
    0x7f7f_ffff,
    0x4040_0000,
    0x3eaa_aaab,
    0xc2c8_0000,
    0x4b00_0001,
    0x3f00_0000,
];
const E_F16: [u64; 16] = [
    0, 0x8000, 0x3c00, 0xbe00, 1, 0x83ff, 0x7e00, 0x7c01, 0x7c00, 0xfc00, 0x7bff, 0x4200, 0x3555,
    0xd640, 0x6400, 0x3800,
];
const E_F64: [u64; 16] = [
    0,
    1 << 63,
    0x3ff0_0000_0000_0000,
    0xbff8_0000_0000_0000,
    1,
    0x800f_ffff_ffff_ffff,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x4008_0000_0000_0000,
    0x3fd5_5555_5555_5555,
    0xc059_0000_0000_0000,
    0x4330_0000_0000_0001,
    0x3fe0_0000_0000_0000,
];
const E_U32: [u64; 16] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xffff,
    0x8000,
    0x7fff,
    0x1_0000,
    0x1234_5678,
    0xdead_beef,
    0xff,
    0x100,
    0x80,
    31,
    33,
];
const E_U64: [u64; 16] = [
    0,
    1,
    u64::MAX,
    1 << 63,
    (1 << 63) - 1,
    0xffff_ffff,
    0x1_0000_0000,
    0x8000_0000,
    0x1234_5678_9abc_def0,
    63,
    64,
    0xffff_ffff_0000_0000,
    0x8000_0000_0000_0001,
    5,
    0xfedc_ba98_7654_3210,
    32,
];

fn edges(t: T) -> &'static [u64; 16] {
    match t {
        T::F16 => &E_F16,
        T::F32 => &E_F32,
        T::F64 => &E_F64,
        T::U16 | T::U32 => &E_U32,
        T::U64 => &E_U64,
    }
}

/// The value of source `k` in lane `l`: an edge value (16-bit types get another edge value
/// in the high half, which the operation must ignore).
fn lane_value(t: T, k: usize, l: usize) -> u64 {
    let e = edges(t);
    let (p, o) = [(1, 0), (5, 3), (11, 7)][k];
    let v = e[(l * p + o) % 16];
    if t.bits() == 16 {
        v & 0xffff | (e[(l * 3 + 9 + k) % 16] & 0xffff) << 16
    } else {
        v
    }
}

fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
fn fb(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn d(x: u64) -> f64 {
    f64::from_bits(x)
}
fn db(x: f64) -> u64 {
    x.to_bits()
}
fn h(x: u64) -> f32 {
    half::f16::from_bits(x as u16).to_f32()
}
fn hb(x: f32) -> u64 {
    u64::from(half::f16::from_f32(x).to_bits())
}
/// f16 result of an f64 computation (one rounding, to nearest even): the value scaled by a
/// power of two so that the f16's last place is 1, rounded to an integer there (exact in
/// f64). `half`'s `from_f64` rounds twice, through f32.
fn hbd(x: f64) -> u64 {
    if x.is_nan() {
        return u64::from(half::f16::from_f64(x).to_bits());
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    // From 65520 (the midpoint above the largest f16, which ties to infinity) up.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let bits = if a < 2f64.powi(-14) {
        // A subnormal (or zero): its fraction in units of 2^-24; 1024 is the smallest normal.
        (a * 2f64.powi(24)).round_ties_even() as u64
    } else {
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let m = (a * 2f64.powi(10 - e)).round_ties_even() as u64;
        (e + 15) as u64 * 1024 + (m - 1024)
    };
    sign | bits
}
fn is_nan(t: T, v: u64) -> bool {
    match t {
        T::F16 => h(v).is_nan(),
        T::F32 => f(v).is_nan(),
        T::F64 => d(v).is_nan(),
        _ => false,
    }
}

/// IEEE-mode min/max as the ISA defines them: an sNaN operand gives a quiet NaN, a qNaN
/// operand gives the other operand, −0 < +0.
fn fminmax(t: T, x: u64, y: u64, max: bool) -> u64 {
    let q: u64 = match t {
        T::F16 => 0x200,
        T::F32 => 0x40_0000,
        _ => 1 << 51,
    };
    let snan = |v: u64| is_nan(t, v) && v & q == 0;
    let val = |v: u64| match t {
        T::F16 => f64::from(h(v)),
        T::F32 => f64::from(f(v)),
        _ => d(v),
    };
    let (a, b) = (val(x), val(y));
    if snan(x) {
        x | q
    } else if snan(y) {
        y | q
    } else if a.is_nan() {
        y
    } else if b.is_nan() {
        x
    } else if a == b {
        let neg_x = x & t.sign() != 0;
        let neg_y = y & t.sign() != 0;
        if (neg_x && !neg_y) == max {
            y
        } else {
            x
        }
    } else if (a > b) == max {
        x
    } else {
        y
    }
}

// ---------------------------------------------------------------------------------------
// Keys.

/// How a key is encoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    /// VOP1 (`_e32`, `_e64`, `_dpp`, `_sdwa`).
    V1,
    /// VOP2.
    V2,
    /// VOP3 only.
    V3,
    /// VOP3P with per-half semantics (`hf` is the half function) on 16-bit halves.
    P16,
    /// VOP3P with per-half semantics on 32-bit halves of register pairs (gfx90a).
    P32,
    /// VOP3P without packed semantics (dot products): a plain reference.
    P,
    /// SOP2 / SOP1 (`s3` from `s0`, `s1`; the reference also gives SCC).
    S2,
    S1,
}

/// What the reference gets besides the sources.
struct C {
    clamp: bool,
    gen: Gen,
    lane: usize,
}

type Ref = fn(&[u64; 3], &C) -> u64;

struct Key {
    /// Mnemonic (GFX8/9 spelling; `gfx10` overrides it on GFX10).
    name: &'static str,
    gfx10: &'static str,
    form: Form,
    src: &'static [T],
    dst: T,
    r: Ref,
    /// Allowed error in units in the last place for float results (approximations).
    ulp: u32,
    /// The last source is the destination's old value (`v_mac`, `v_fmac`, `v_dot*c`).
    acc: bool,
}

const fn k(name: &'static str, form: Form, src: &'static [T], dst: T, r: Ref) -> Key {
    Key {
        name,
        gfx10: "",
        form,
        src,
        dst,
        r,
        ulp: 0,
        acc: false,
    }
}

/// Same key under its GFX10 name.
const fn k10(
    name: &'static str,
    gfx10: &'static str,
    form: Form,
    src: &'static [T],
    dst: T,
    r: Ref,
) -> Key {
    Key {
        name,
        gfx10,
        form,
        src,
        dst,
        r,
        ulp: 0,
        acc: false,
    }
}

/// A key whose last source is the destination (accumulator).
const fn acc(mut key: Key) -> Key {
    key.acc = true;
    key
}

const fn approx(mut key: Key, ulp: u32) -> Key {
    key.ulp = ulp;
    key
}

use Form::*;
use T::*;

/// `v_mad_f32`/`v_mac_f32`: unfused, with f32 denormals flushed in the operands, the product
/// and the result.
fn mad_ftz32(a: u64, b: u64, c: u64) -> u64 {
    let z = |v: u64| {
        if v & 0x7f80_0000 == 0 {
            v & 0x8000_0000
        } else {
            v
        }
    };
    let p = z(fb(f(z(a)) * f(z(b))));
    z(fb(f(p) + f(z(c))))
}

/// A scalar result with SCC = (result != 0) in bit 32.
fn nz(v: u64) -> u64 {
    v | u64::from(v != 0) << 32
}

fn sat_u32(v: u64, c: &C) -> u64 {
    if c.clamp {
        v.min(0xffff_ffff)
    } else {
        v & 0xffff_ffff
    }
}
fn sat_i32(v: i64, c: &C) -> u64 {
    if c.clamp {
        u64::from(v.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32)
    } else {
        u64::from(v as u32)
    }
}
fn sat_u16(v: i64, c: &C) -> u64 {
    if c.clamp {
        v.clamp(0, 0xffff) as u64
    } else {
        v as u64 & 0xffff
    }
}
fn sat_i16(v: i64, c: &C) -> u64 {
    if c.clamp {
        u64::from(v.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16)
    } else {
        v as u64 & 0xffff
    }
}
fn i16v(x: u64) -> i64 {
    i64::from(x as u16 as i16)
}
fn u16v(x: u64) -> i64 {
    i64::from(x as u16)
}
fn i32v(x: u64) -> i64 {
    i64::from(x as u32 as i32)
}
fn sad8(a: u64, b: u64, masked: bool) -> u64 {
    (0..4)
        .map(|k| {
            let (x, y) = (a >> (8 * k) & 0xff, b >> (8 * k) & 0xff);
            if masked && y == 0 {
                0
            } else {
                x.abs_diff(y)
            }
        })
        .sum()
}
fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    let mut v = [a, b, c];
    v.sort();
    v[1]
}
fn u8_of(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 255.0).round_ties_even() as u64
    }
}
fn snorm(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        u64::from((x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16)
    }
}
fn unorm(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u64
    }
}
fn cube(sel: u8, x: f32, y: f32, z: f32) -> f32 {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (id, sc, tc, ma) = if az >= ax && az >= ay {
        (
            if z < 0.0 { 5.0 } else { 4.0 },
            if z < 0.0 { -x } else { x },
            -y,
            2.0 * z,
        )
    } else if ay >= ax {
        (
            if y < 0.0 { 3.0 } else { 2.0 },
            x,
            if y < 0.0 { -z } else { z },
            2.0 * y,
        )
    } else {
        (
            if x < 0.0 { 1.0 } else { 0.0 },
            if x < 0.0 { z } else { -z },
            -y,
            2.0 * x,
        )
    };
    [id, sc, tc, ma][sel as usize]
}

/// Every key, as a static table: built by a `vec![…]` at run time, the keys were one basic block
/// of code, which took LLVM's instruction selection ~5 s of the test binary's ~46 s build
/// (docs/notes/ci-time.md, "Round 56").
static KEYS: &[Key] = &[
    // ---- 32-bit integer
    k10("v_add_u32", "v_add_nc_u32", V2, &[U32, U32], U32, |s, c| {
        sat_u32(s[0] + s[1], c)
    }),
    k10("v_sub_u32", "v_sub_nc_u32", V2, &[U32, U32], U32, |s, c| {
        if c.clamp && s[1] > s[0] {
            0
        } else {
            s[0].wrapping_sub(s[1]) & 0xffff_ffff
        }
    }),
    k10(
        "v_subrev_u32",
        "v_subrev_nc_u32",
        V2,
        &[U32, U32],
        U32,
        |s, c| {
            if c.clamp && s[0] > s[1] {
                0
            } else {
                s[1].wrapping_sub(s[0]) & 0xffff_ffff
            }
        },
    ),
    k10("v_add_i32", "v_add_nc_i32", V3, &[U32, U32], U32, |s, c| {
        sat_i32(i32v(s[0]) + i32v(s[1]), c)
    }),
    k10("v_sub_i32", "v_sub_nc_i32", V3, &[U32, U32], U32, |s, c| {
        sat_i32(i32v(s[0]) - i32v(s[1]), c)
    }),
    k("v_add3_u32", V3, &[U32, U32, U32], U32, |s, _| {
        (s[0] + s[1] + s[2]) & 0xffff_ffff
    }),
    k("v_mul_lo_u32", V3, &[U32, U32], U32, |s, _| {
        (s[0] * s[1]) & 0xffff_ffff
    }),
    k("v_mul_hi_u32", V3, &[U32, U32], U32, |s, _| {
        (s[0] * s[1]) >> 32
    }),
    k("v_mul_hi_i32", V3, &[U32, U32], U32, |s, _| {
        ((i32v(s[0]) * i32v(s[1])) >> 32) as u64 & 0xffff_ffff
    }),
    k("v_mul_u32_u24", V2, &[U32, U32], U32, |s, _| {
        ((s[0] & 0xff_ffff) * (s[1] & 0xff_ffff)) & 0xffff_ffff
    }),
    k("v_mul_hi_u32_u24", V2, &[U32, U32], U32, |s, _| {
        ((s[0] & 0xff_ffff) * (s[1] & 0xff_ffff)) >> 32
    }),
    k("v_mul_i32_i24", V2, &[U32, U32], U32, |s, _| {
        let a = i64::from(((s[0] as u32) << 8) as i32 >> 8);
        let b = i64::from(((s[1] as u32) << 8) as i32 >> 8);
        (a * b) as u64 & 0xffff_ffff
    }),
    k("v_mad_u32_u24", V3, &[U32, U32, U32], U32, |s, c| {
        sat_u32((s[0] & 0xff_ffff) * (s[1] & 0xff_ffff) + s[2], c)
    }),
    k("v_mad_i32_i24", V3, &[U32, U32, U32], U32, |s, c| {
        let a = i64::from(((s[0] as u32) << 8) as i32 >> 8);
        let b = i64::from(((s[1] as u32) << 8) as i32 >> 8);
        sat_i32(a * b + i32v(s[2]), c)
    }),
    k("v_min_i32", V2, &[U32, U32], U32, |s, _| {
        i32v(s[0]).min(i32v(s[1])) as u64 & 0xffff_ffff
    }),
    k("v_max_i32", V2, &[U32, U32], U32, |s, _| {
        i32v(s[0]).max(i32v(s[1])) as u64 & 0xffff_ffff
    }),
    k("v_min_u32", V2, &[U32, U32], U32, |s, _| s[0].min(s[1])),
    k("v_max_u32", V2, &[U32, U32], U32, |s, _| s[0].max(s[1])),
    k("v_min3_u32", V3, &[U32, U32, U32], U32, |s, _| {
        s[0].min(s[1]).min(s[2])
    }),
    k("v_max3_u32", V3, &[U32, U32, U32], U32, |s, _| {
        s[0].max(s[1]).max(s[2])
    }),
    k("v_med3_u32", V3, &[U32, U32, U32], U32, |s, _| {
        med3(s[0], s[1], s[2])
    }),
    k("v_med3_i32", V3, &[U32, U32, U32], U32, |s, _| {
        med3(i32v(s[0]), i32v(s[1]), i32v(s[2])) as u64 & 0xffff_ffff
    }),
    k("v_and_b32", V2, &[U32, U32], U32, |s, _| s[0] & s[1]),
    k("v_or_b32", V2, &[U32, U32], U32, |s, _| s[0] | s[1]),
    k("v_xor_b32", V2, &[U32, U32], U32, |s, _| s[0] ^ s[1]),
    k("v_xnor_b32", V2, &[U32, U32], U32, |s, _| {
        !(s[0] ^ s[1]) & 0xffff_ffff
    }),
    k("v_not_b32", V1, &[U32], U32, |s, _| !s[0] & 0xffff_ffff),
    k("v_bfrev_b32", V1, &[U32], U32, |s, _| {
        u64::from((s[0] as u32).reverse_bits())
    }),
    k("v_ffbh_u32", V1, &[U32], U32, |s, _| {
        if s[0] == 0 {
            0xffff_ffff
        } else {
            u64::from((s[0] as u32).leading_zeros())
        }
    }),
    k("v_lshlrev_b32", V2, &[U32, U32], U32, |s, _| {
        (s[1] << (s[0] & 31)) & 0xffff_ffff
    }),
    k("v_lshrrev_b32", V2, &[U32, U32], U32, |s, _| {
        s[1] >> (s[0] & 31)
    }),
    k("v_ashrrev_i32", V2, &[U32, U32], U32, |s, _| {
        (i32v(s[1]) >> (s[0] & 31)) as u64 & 0xffff_ffff
    }),
    k("v_bfe_u32", V3, &[U32, U32, U32], U32, |s, _| {
        let (o, w) = (s[1] & 31, s[2] & 31);
        if w == 0 {
            0
        } else {
            (s[0] >> o) & ((1 << w) - 1)
        }
    }),
    k("v_bfi_b32", V3, &[U32, U32, U32], U32, |s, _| {
        (s[0] & s[1]) | (!s[0] & s[2] & 0xffff_ffff)
    }),
    k("v_alignbit_b32", V3, &[U32, U32, U32], U32, |s, _| {
        ((s[0] << 32 | s[1]) >> (s[2] & 31)) & 0xffff_ffff
    }),
    k("v_bcnt_u32_b32", V2, &[U32, U32], U32, |s, _| {
        (u64::from(s[0].count_ones()) + s[1]) & 0xffff_ffff
    }),
    k("v_sad_u32", V3, &[U32, U32, U32], U32, |s, c| {
        sat_u32(s[0].abs_diff(s[1]) + s[2], c)
    }),
    k("v_sad_u8", V3, &[U32, U32, U32], U32, |s, c| {
        sat_u32(sad8(s[0], s[1], false) + s[2], c)
    }),
    k("v_sad_hi_u8", V3, &[U32, U32, U32], U32, |s, c| {
        sat_u32((sad8(s[0], s[1], false) << 16) + s[2], c)
    }),
    k("v_msad_u8", V3, &[U32, U32, U32], U32, |s, c| {
        sat_u32(sad8(s[0], s[1], true) + s[2], c)
    }),
    k("v_sad_u16", V3, &[U32, U32, U32], U32, |s, c| {
        let d = (s[0] & 0xffff).abs_diff(s[1] & 0xffff) + (s[0] >> 16).abs_diff(s[1] >> 16);
        sat_u32(d + s[2], c)
    }),
    k("v_lerp_u8", V3, &[U32, U32, U32], U32, |s, _| {
        (0..4)
            .map(|k| {
                ((s[0] >> (8 * k) & 0xff) + (s[1] >> (8 * k) & 0xff) + (s[2] >> (8 * k) & 1)) >> 1
                    << (8 * k)
            })
            .sum()
    }),
    k("v_mad_u32_u16", V3, &[U16, U16, U32], U32, |s, c| {
        sat_u32((s[0] & 0xffff) * (s[1] & 0xffff) + s[2], c)
    }),
    k("v_mad_i32_i16", V3, &[U16, U16, U32], U32, |s, c| {
        sat_i32(i16v(s[0]) * i16v(s[1]) + i32v(s[2]), c)
    }),
    k("v_cvt_pk_u8_f32", V3, &[F32, U32, U32], U32, |s, _| {
        let sh = 8 * (s[1] & 3);
        (s[2] & !(0xff << sh) & 0xffff_ffff) | u8_of(f(s[0])) << sh
    }),
    k("v_cvt_pknorm_i16_f32", V3, &[F32, F32], U32, |s, _| {
        snorm(f(s[0])) | snorm(f(s[1])) << 16
    }),
    k("v_cvt_pknorm_u16_f32", V3, &[F32, F32], U32, |s, _| {
        unorm(f(s[0])) | unorm(f(s[1])) << 16
    }),
    k("v_cvt_pknorm_i16_f16", V3, &[F16, F16], U32, |s, _| {
        snorm(h(s[0])) | snorm(h(s[1])) << 16
    }),
    k("v_cvt_pknorm_u16_f16", V3, &[F16, F16], U32, |s, _| {
        unorm(h(s[0])) | unorm(h(s[1])) << 16
    }),
    k("v_cvt_norm_i16_f16", V1, &[F16], U16, |s, _| snorm(h(s[0]))),
    k("v_cvt_norm_u16_f16", V1, &[F16], U16, |s, _| unorm(h(s[0]))),
    k("v_sat_pk_u8_i16", V1, &[U32], U16, |s, _| {
        let sat = |v: u64| (v as u16 as i16).clamp(0, 255) as u64;
        sat(s[0]) | sat(s[0] >> 16) << 8
    }),
    k("v_cvt_off_f32_i4", V1, &[U32], F32, |s, _| {
        fb(f32::from((((s[0] as u32) << 28) as i32 >> 28) as i8) / 16.0)
    }),
    // ---- 16-bit integer
    k10("v_add_u16", "v_add_nc_u16", V2, &[U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) + u16v(s[1]), c)
    }),
    k10("v_sub_u16", "v_sub_nc_u16", V2, &[U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) - u16v(s[1]), c)
    }),
    k("v_subrev_u16", V2, &[U16, U16], U16, |s, c| {
        sat_u16(u16v(s[1]) - u16v(s[0]), c)
    }),
    k10("v_add_i16", "v_add_nc_i16", V3, &[U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) + i16v(s[1]), c)
    }),
    k10("v_sub_i16", "v_sub_nc_i16", V3, &[U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) - i16v(s[1]), c)
    }),
    k("v_mul_lo_u16", V2, &[U16, U16], U16, |s, _| {
        (s[0] * s[1]) & 0xffff
    }),
    k("v_mad_u16", V3, &[U16, U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) * u16v(s[1]) + u16v(s[2]), c)
    }),
    k("v_mad_legacy_u16", V3, &[U16, U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) * u16v(s[1]) + u16v(s[2]), c)
    }),
    k("v_mad_i16", V3, &[U16, U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) * i16v(s[1]) + i16v(s[2]), c)
    }),
    k("v_mad_legacy_i16", V3, &[U16, U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) * i16v(s[1]) + i16v(s[2]), c)
    }),
    k("v_max_u16", V2, &[U16, U16], U16, |s, _| {
        (s[0] & 0xffff).max(s[1] & 0xffff)
    }),
    k("v_min_i16", V2, &[U16, U16], U16, |s, _| {
        i16v(s[0]).min(i16v(s[1])) as u64 & 0xffff
    }),
    k("v_max3_u16", V3, &[U16, U16, U16], U16, |s, _| {
        (s[0] & 0xffff).max(s[1] & 0xffff).max(s[2] & 0xffff)
    }),
    k("v_min3_u16", V3, &[U16, U16, U16], U16, |s, _| {
        (s[0] & 0xffff).min(s[1] & 0xffff).min(s[2] & 0xffff)
    }),
    k("v_med3_u16", V3, &[U16, U16, U16], U16, |s, _| {
        med3(s[0] & 0xffff, s[1] & 0xffff, s[2] & 0xffff)
    }),
    k("v_max3_i16", V3, &[U16, U16, U16], U16, |s, _| {
        i16v(s[0]).max(i16v(s[1])).max(i16v(s[2])) as u64 & 0xffff
    }),
    k("v_min3_i16", V3, &[U16, U16, U16], U16, |s, _| {
        i16v(s[0]).min(i16v(s[1])).min(i16v(s[2])) as u64 & 0xffff
    }),
    k("v_med3_i16", V3, &[U16, U16, U16], U16, |s, _| {
        med3(i16v(s[0]), i16v(s[1]), i16v(s[2])) as u64 & 0xffff
    }),
    k("v_lshlrev_b16", V2, &[U16, U16], U16, |s, _| {
        (s[1] << (s[0] & 15)) & 0xffff
    }),
    k("v_ashrrev_i16", V2, &[U16, U16], U16, |s, _| {
        (i16v(s[1]) >> (s[0] & 15)) as u64 & 0xffff
    }),
    // ---- f32
    k("v_add_f32", V2, &[F32, F32], F32, |s, _| {
        fb(f(s[0]) + f(s[1]))
    }),
    k("v_sub_f32", V2, &[F32, F32], F32, |s, _| {
        fb(f(s[0]) - f(s[1]))
    }),
    k("v_mul_f32", V2, &[F32, F32], F32, |s, _| {
        fb(f(s[0]) * f(s[1]))
    }),
    k("v_fma_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fb(f(s[0]).mul_add(f(s[1]), f(s[2])))
    }),
    k("v_min_f32", V2, &[F32, F32], F32, |s, _| {
        fminmax(F32, s[0], s[1], false)
    }),
    k("v_max_f32", V2, &[F32, F32], F32, |s, _| {
        fminmax(F32, s[0], s[1], true)
    }),
    k("v_mul_legacy_f32", V2, &[F32, F32], F32, |s, _| {
        if f(s[0]) == 0.0 || f(s[1]) == 0.0 {
            0
        } else {
            fb(f(s[0]) * f(s[1]))
        }
    }),
    k("v_floor_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).floor())),
    k("v_trunc_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).trunc())),
    k("v_rndne_f32", V1, &[F32], F32, |s, _| {
        fb(f(s[0]).round_ties_even())
    }),
    k("v_sqrt_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).sqrt())),
    k("v_rcp_f32", V1, &[F32], F32, |s, _| fb(1.0 / f(s[0]))),
    approx(
        k("v_exp_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).exp2())),
        2,
    ),
    approx(
        k("v_log_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).log2())),
        2,
    ),
    approx(
        k("v_exp_legacy_f32", V1, &[F32], F32, |s, _| {
            fb(f(s[0]).exp2())
        }),
        2,
    ),
    approx(
        k("v_log_legacy_f32", V1, &[F32], F32, |s, _| {
            fb(f(s[0]).log2())
        }),
        2,
    ),
    k("v_cvt_f32_i32", V1, &[U32], F32, |s, _| {
        fb(s[0] as u32 as i32 as f32)
    }),
    k("v_cvt_f32_u32", V1, &[U32], F32, |s, _| {
        fb(s[0] as u32 as f32)
    }),
    k("v_cvt_u32_f32", V1, &[F32], U32, |s, _| {
        let x = f(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x as u32)
        }
    }),
    k("v_cvt_i32_f32", V1, &[F32], U32, |s, _| {
        let x = f(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x as i32 as u32)
        }
    }),
    k("v_cvt_f16_f32", V1, &[F32], F16, |s, _| hb(f(s[0]))),
    k("v_cvt_f32_f16", V1, &[F16], F32, |s, _| fb(h(s[0]))),
    k("v_cubeid_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fb(cube(0, f(s[0]), f(s[1]), f(s[2])))
    }),
    k("v_cubesc_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fb(cube(1, f(s[0]), f(s[1]), f(s[2])))
    }),
    k("v_cubetc_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fb(cube(2, f(s[0]), f(s[1]), f(s[2])))
    }),
    k("v_cubema_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fb(cube(3, f(s[0]), f(s[1]), f(s[2])))
    }),
    k("v_mad_legacy_f32", V3, &[F32, F32, F32], F32, |s, _| {
        let p = if f(s[0]) == 0.0 || f(s[1]) == 0.0 {
            0.0
        } else {
            f(s[0]) * f(s[1])
        };
        fb(p + f(s[2]))
    }),
    k("v_fma_legacy_f32", V3, &[F32, F32, F32], F32, |s, _| {
        if f(s[0]) == 0.0 || f(s[1]) == 0.0 {
            fb(0.0 + f(s[2]))
        } else {
            fb(f(s[0]).mul_add(f(s[1]), f(s[2])))
        }
    }),
    // ---- f16
    k("v_add_f16", V2, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) + f64::from(h(s[1])))
    }),
    k("v_mul_f16", V2, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])))
    }),
    k("v_fma_f16", V3, &[F16, F16, F16], F16, |s, _| {
        // A NaN operand gives the first NaN of (S0, S1, S2), quieted (the two-NaN rule
        // of `two_nan_operands_give_the_first_ones`); the host's arithmetic leaves the
        // choice to its code generator.
        let nan = |v: u64| v & 0x7fff > 0x7c00;
        if let Some(v) = s[..3].iter().map(|v| v & 0xffff).find(|&v| nan(v)) {
            return v | 0x0200;
        }
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])) + f64::from(h(s[2])))
    }),
    k("v_max_f16", V2, &[F16, F16], F16, |s, _| {
        fminmax(F16, s[0] & 0xffff, s[1] & 0xffff, true)
    }),
    k("v_frexp_mant_f16", V1, &[F16], F16, |s, _| {
        let x = h(s[0]);
        if x.is_nan() || x.is_infinite() || x == 0.0 {
            s[0] & 0xffff
        } else {
            let e = (f64::from(x.abs())).log2().floor() as i32 + 1;
            hbd(f64::from(x) / 2f64.powi(e))
        }
    }),
    k("v_frexp_exp_i16_f16", V1, &[F16], U16, |s, _| {
        let x = h(s[0]);
        if x.is_nan() || x.is_infinite() || x == 0.0 {
            0
        } else {
            ((f64::from(x.abs())).log2().floor() as i64 + 1) as u64 & 0xffff
        }
    }),
    // ---- f64
    k("v_add_f64", V3, &[F64, F64], F64, |s, _| {
        db(d(s[0]) + d(s[1]))
    }),
    k("v_mul_f64", V3, &[F64, F64], F64, |s, _| {
        db(d(s[0]) * d(s[1]))
    }),
    k("v_fma_f64", V3, &[F64, F64, F64], F64, |s, _| {
        db(d(s[0]).mul_add(d(s[1]), d(s[2])))
    }),
    k("v_max_f64", V3, &[F64, F64], F64, |s, _| {
        fminmax(F64, s[0], s[1], true)
    }),
    k("v_floor_f64", V1, &[F64], F64, |s, _| db(d(s[0]).floor())),
    k("v_cvt_f64_i32", V1, &[U32], F64, |s, _| {
        db(f64::from(s[0] as u32 as i32))
    }),
    k("v_cvt_f32_f64", V1, &[F64], F32, |s, _| fb(d(s[0]) as f32)),
    k("v_lshlrev_b64", V3, &[U32, U64], U64, |s, _| {
        s[1] << (s[0] & 63)
    }),
    k("v_ashrrev_i64", V3, &[U32, U64], U64, |s, _| {
        ((s[1] as i64) >> (s[0] & 63)) as u64
    }),
    // ---- packed 16-bit (per-half functions on halves x, y, z)
    k("v_pk_add_u16", P16, &[U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) + u16v(s[1]), c)
    }),
    k("v_pk_sub_u16", P16, &[U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) - u16v(s[1]), c)
    }),
    k("v_pk_add_i16", P16, &[U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) + i16v(s[1]), c)
    }),
    k("v_pk_sub_i16", P16, &[U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) - i16v(s[1]), c)
    }),
    k("v_pk_mad_u16", P16, &[U16, U16, U16], U16, |s, c| {
        sat_u16(u16v(s[0]) * u16v(s[1]) + u16v(s[2]), c)
    }),
    k("v_pk_mad_i16", P16, &[U16, U16, U16], U16, |s, c| {
        sat_i16(i16v(s[0]) * i16v(s[1]) + i16v(s[2]), c)
    }),
    k("v_pk_mul_lo_u16", P16, &[U16, U16], U16, |s, _| {
        (s[0] * s[1]) & 0xffff
    }),
    k("v_pk_max_i16", P16, &[U16, U16], U16, |s, _| {
        i16v(s[0]).max(i16v(s[1])) as u64 & 0xffff
    }),
    k("v_pk_lshlrev_b16", P16, &[U16, U16], U16, |s, _| {
        (s[1] << (s[0] & 15)) & 0xffff
    }),
    k("v_pk_add_f16", P16, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) + f64::from(h(s[1])))
    }),
    k("v_pk_mul_f16", P16, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])))
    }),
    k("v_pk_fma_f16", P16, &[F16, F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])) + f64::from(h(s[2])))
    }),
    k("v_pk_max_f16", P16, &[F16, F16], F16, |s, _| {
        fminmax(F16, s[0], s[1], true)
    }),
    // ---- packed 32-bit (gfx90a)
    k("v_pk_add_f32", P32, &[F32, F32], F32, |s, _| {
        fb(f(s[0]) + f(s[1]))
    }),
    k("v_pk_mul_f32", P32, &[F32, F32], F32, |s, _| {
        fb(f(s[0]) * f(s[1]))
    }),
    k("v_pk_fma_f32", P32, &[F32, F32, F32], F32, |s, _| {
        fb(f(s[0]).mul_add(f(s[1]), f(s[2])))
    }),
    // ---- dot products
    k("v_dot4_i32_i8", P, &[U32, U32, U32], U32, |s, c| {
        let p: i64 = (0..4)
            .map(|k| {
                i64::from((s[0] >> (8 * k)) as u8 as i8) * i64::from((s[1] >> (8 * k)) as u8 as i8)
            })
            .sum();
        sat_i32(p + i32v(s[2]), c)
    }),
    k("v_dot4_u32_u8", P, &[U32, U32, U32], U32, |s, c| {
        let p: u64 = (0..4)
            .map(|k| (s[0] >> (8 * k) & 0xff) * (s[1] >> (8 * k) & 0xff))
            .sum();
        sat_u32(p + s[2], c)
    }),
    k("v_dot2_i32_i16", P, &[U16, U16, U32], U32, |s, c| {
        let p: i64 = (0..2)
            .map(|k| i16v(s[0] >> (16 * k)) * i16v(s[1] >> (16 * k)))
            .sum();
        sat_i32(p + i32v(s[2]), c)
    }),
    k("v_dot8_i32_i4", P, &[U32, U32, U32], U32, |s, c| {
        let n = |v: u64, k: u32| i64::from((((v as u32) >> (4 * k)) << 28) as i32 >> 28);
        let p: i64 = (0..8).map(|k| n(s[0], k) * n(s[1], k)).sum();
        sat_i32(p + i32v(s[2]), c)
    }),
    k("v_dot8_u32_u4", P, &[U32, U32, U32], U32, |s, c| {
        let p: u64 = (0..8)
            .map(|k| (s[0] >> (4 * k) & 15) * (s[1] >> (4 * k) & 15))
            .sum();
        sat_u32(p + s[2], c)
    }),
    // ---- more 32-bit integer and bit operations
    k("v_mov_b32", V1, &[U32], U32, |s, _| s[0]),
    k("v_alignbyte_b32", V3, &[U32, U32, U32], U32, |s, _| {
        ((s[0] << 32 | s[1]) >> (8 * (s[2] & 3))) & 0xffff_ffff
    }),
    k("v_and_or_b32", V3, &[U32, U32, U32], U32, |s, _| {
        (s[0] & s[1]) | s[2]
    }),
    k("v_or3_b32", V3, &[U32, U32, U32], U32, |s, _| {
        s[0] | s[1] | s[2]
    }),
    k("v_xor3_b32", V3, &[U32, U32, U32], U32, |s, _| {
        s[0] ^ s[1] ^ s[2]
    }),
    k("v_xad_u32", V3, &[U32, U32, U32], U32, |s, _| {
        ((s[0] ^ s[1]) + s[2]) & 0xffff_ffff
    }),
    k("v_lshl_add_u32", V3, &[U32, U32, U32], U32, |s, _| {
        ((s[0] << (s[1] & 31)) + s[2]) & 0xffff_ffff
    }),
    k("v_lshl_or_b32", V3, &[U32, U32, U32], U32, |s, _| {
        ((s[0] << (s[1] & 31)) & 0xffff_ffff) | s[2]
    }),
    k("v_add_lshl_u32", V3, &[U32, U32, U32], U32, |s, _| {
        (((s[0] + s[1]) & 0xffff_ffff) << (s[2] & 31)) & 0xffff_ffff
    }),
    k("v_bfe_i32", V3, &[U32, U32, U32], U32, |s, _| {
        let (o, w) = (s[1] & 31, s[2] & 31);
        if w == 0 {
            0
        } else {
            // Arithmetic shift, then the field's sign extended (bits past 31 are the
            // sign bit, as LLVM folds it).
            let v = (i32v(s[0]) >> o) as u64 & ((1 << w) - 1);
            (((v << (64 - w)) as i64) >> (64 - w)) as u64 & 0xffff_ffff
        }
    }),
    k("v_bfm_b32", V2, &[U32, U32], U32, |s, _| {
        (((1u64 << (s[0] & 31)) - 1) << (s[1] & 31)) & 0xffff_ffff
    }),
    k("v_ffbl_b32", V1, &[U32], U32, |s, _| {
        if s[0] == 0 {
            0xffff_ffff
        } else {
            u64::from(s[0].trailing_zeros())
        }
    }),
    k("v_ffbh_i32", V1, &[U32], U32, |s, _| {
        // The ISA's pseudo-code: D = −1; the first i from 1 with S0[31 − i] != S0[31]
        // (the leading bits equal to the sign bit, the sign bit included: Vega's examples
        // give 0x7fffffff → 1 and 0x0000cccc → 16).
        let x = s[0] as u32;
        (1u32..32)
            .find(|i| (x >> (31 - i)) & 1 != x >> 31)
            .map_or(0xffff_ffff, u64::from)
    }),
    k("v_mul_hi_i32_i24", V2, &[U32, U32], U32, |s, _| {
        let a = i64::from(((s[0] as u32) << 8) as i32 >> 8);
        let b = i64::from(((s[1] as u32) << 8) as i32 >> 8);
        ((a * b) >> 32) as u64 & 0xffff_ffff
    }),
    k("v_max3_i32", V3, &[U32, U32, U32], U32, |s, _| {
        i32v(s[0]).max(i32v(s[1])).max(i32v(s[2])) as u64 & 0xffff_ffff
    }),
    k("v_min3_i32", V3, &[U32, U32, U32], U32, |s, _| {
        i32v(s[0]).min(i32v(s[1])).min(i32v(s[2])) as u64 & 0xffff_ffff
    }),
    k("v_perm_b32", V3, &[U32, U32, U32], U32, |s, _| {
        let bytes = s[0] << 32 | s[1];
        (0..4)
            .map(|k| {
                let sel = s[2] >> (8 * k) & 0xff;
                let b = match sel {
                    0..=7 => bytes >> (8 * sel) & 0xff,
                    8..=11 => (bytes >> (16 * (sel - 8) + 15) & 1) * 0xff,
                    12 => 0,
                    _ => 0xff,
                };
                b << (8 * k)
            })
            .sum()
    }),
    k("v_mbcnt_lo_u32_b32", V3, &[U32, U32], U32, |s, c| {
        let m = if c.lane >= 32 {
            0xffff_ffff
        } else {
            (1u64 << c.lane) - 1
        };
        (u64::from((s[0] & m).count_ones()) + s[1]) & 0xffff_ffff
    }),
    k("v_mbcnt_hi_u32_b32", V3, &[U32, U32], U32, |s, c| {
        let m = if c.lane < 32 {
            0
        } else {
            (1u64 << (c.lane - 32)) - 1
        };
        (u64::from((s[0] & m).count_ones()) + s[1]) & 0xffff_ffff
    }),
    k("v_cvt_pk_i16_i32", V3, &[U32, U32], U32, |s, _| {
        let sat = |v: u64| u64::from(i32v(v).clamp(-32768, 32767) as i16 as u16);
        sat(s[0]) | sat(s[1]) << 16
    }),
    k("v_cvt_pk_u16_u32", V3, &[U32, U32], U32, |s, _| {
        s[0].min(0xffff) | s[1].min(0xffff) << 16
    }),
    k("v_lshrrev_b16", V2, &[U16, U16], U16, |s, _| {
        (s[1] & 0xffff) >> (s[0] & 15)
    }),
    k("v_max_i16", V2, &[U16, U16], U16, |s, _| {
        i16v(s[0]).max(i16v(s[1])) as u64 & 0xffff
    }),
    k("v_min_u16", V2, &[U16, U16], U16, |s, _| {
        (s[0] & 0xffff).min(s[1] & 0xffff)
    }),
    k("v_lshrrev_b64", V3, &[U32, U64], U64, |s, _| {
        s[1] >> (s[0] & 63)
    }),
    k("v_pk_ashrrev_i16", P16, &[U16, U16], U16, |s, _| {
        (i16v(s[1]) >> (s[0] & 15)) as u64 & 0xffff
    }),
    k("v_pk_lshrrev_b16", P16, &[U16, U16], U16, |s, _| {
        (s[1] & 0xffff) >> (s[0] & 15)
    }),
    k("v_pk_max_u16", P16, &[U16, U16], U16, |s, _| {
        (s[0] & 0xffff).max(s[1] & 0xffff)
    }),
    k("v_pk_min_u16", P16, &[U16, U16], U16, |s, _| {
        (s[0] & 0xffff).min(s[1] & 0xffff)
    }),
    k("v_pk_min_i16", P16, &[U16, U16], U16, |s, _| {
        i16v(s[0]).min(i16v(s[1])) as u64 & 0xffff
    }),
    k("v_pk_min_f16", P16, &[F16, F16], F16, |s, _| {
        fminmax(F16, s[0], s[1], false)
    }),
    k("v_dot2_u32_u16", P, &[U16, U16, U32], U32, |s, c| {
        let p: u64 = (0..2)
            .map(|k| (s[0] >> (16 * k) & 0xffff) * (s[1] >> (16 * k) & 0xffff))
            .sum();
        sat_u32(p + s[2], c)
    }),
    // ---- more conversions
    k("v_cvt_f32_ubyte0", V1, &[U32], F32, |s, _| {
        fb((s[0] & 0xff) as f32)
    }),
    k("v_cvt_f32_ubyte1", V1, &[U32], F32, |s, _| {
        fb((s[0] >> 8 & 0xff) as f32)
    }),
    k("v_cvt_f32_ubyte2", V1, &[U32], F32, |s, _| {
        fb((s[0] >> 16 & 0xff) as f32)
    }),
    k("v_cvt_f32_ubyte3", V1, &[U32], F32, |s, _| {
        fb((s[0] >> 24 & 0xff) as f32)
    }),
    k("v_cvt_f64_f32", V1, &[F32], F64, |s, _| {
        db(f64::from(f(s[0])))
    }),
    k("v_cvt_f64_u32", V1, &[U32], F64, |s, _| db(s[0] as f64)),
    k("v_cvt_flr_i32_f32", V1, &[F32], U32, |s, _| {
        let x = f(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x.floor() as i32 as u32)
        }
    }),
    k("v_cvt_rpi_i32_f32", V1, &[F32], U32, |s, _| {
        let x = f64::from(f(s[0]));
        if x.is_nan() {
            0
        } else {
            u64::from((x + 0.5).floor() as i32 as u32)
        }
    }),
    k("v_cvt_i32_f64", V1, &[F64], U32, |s, _| {
        let x = d(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x as i32 as u32)
        }
    }),
    k("v_cvt_u32_f64", V1, &[F64], U32, |s, _| {
        let x = d(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x as u32)
        }
    }),
    k("v_cvt_f16_u16", V1, &[U16], F16, |s, _| {
        hb((s[0] & 0xffff) as f32)
    }),
    k("v_cvt_f16_i16", V1, &[U16], F16, |s, _| {
        hb(i16v(s[0]) as f32)
    }),
    k("v_cvt_u16_f16", V1, &[F16], U16, |s, _| {
        let x = h(s[0]);
        if x.is_nan() {
            0
        } else {
            x.clamp(0.0, 65535.0) as u64
        }
    }),
    k("v_cvt_i16_f16", V1, &[F16], U16, |s, _| {
        let x = h(s[0]);
        if x.is_nan() {
            0
        } else {
            u64::from(x.clamp(-32768.0, 32767.0) as i16 as u16)
        }
    }),
    k("v_pack_b32_f16", V3, &[F16, F16], U32, |s, _| {
        (s[0] & 0xffff) | (s[1] & 0xffff) << 16
    }),
    // ---- more f32
    k("v_subrev_f32", V2, &[F32, F32], F32, |s, _| {
        fb(f(s[1]) - f(s[0]))
    }),
    k("v_ceil_f32", V1, &[F32], F32, |s, _| fb(f(s[0]).ceil())),
    k("v_fract_f32", V1, &[F32], F32, |s, _| {
        let x = f(s[0]);
        if !x.is_finite() {
            fb(f32::NAN)
        } else {
            fb((x - x.floor()).min(f32::from_bits(0x3f7f_ffff)))
        }
    }),
    k("v_frexp_mant_f32", V1, &[F32], F32, |s, _| {
        let x = f64::from(f(s[0]));
        if x.is_nan() || x.is_infinite() || x == 0.0 {
            s[0]
        } else {
            let e = x.abs().log2().floor() as i32 + 1;
            let m = x / 2f64.powi(e);
            // log2 may land one off at exact powers of two.
            let m = if m.abs() >= 1.0 {
                m / 2.0
            } else if m.abs() < 0.5 {
                m * 2.0
            } else {
                m
            };
            fb(m as f32)
        }
    }),
    k("v_frexp_exp_i32_f32", V1, &[F32], U32, |s, _| {
        let x = f64::from(f(s[0]));
        if x.is_nan() || x.is_infinite() || x == 0.0 {
            0
        } else {
            let mut e = x.abs().log2().floor() as i64 + 1;
            let m = x.abs() / 2f64.powi(e as i32);
            if m >= 1.0 {
                e += 1;
            } else if m < 0.5 {
                e -= 1;
            }
            e as u64 & 0xffff_ffff
        }
    }),
    k("v_ldexp_f32", V2, &[F32, U32], F32, |s, _| {
        let n = i32v(s[1]).clamp(-400, 400) as i32;
        fb((f64::from(f(s[0])) * 2f64.powi(n)) as f32)
    }),
    k("v_max3_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fminmax(F32, fminmax(F32, s[0], s[1], true), s[2], true)
    }),
    k("v_min3_f32", V3, &[F32, F32, F32], F32, |s, _| {
        fminmax(F32, fminmax(F32, s[0], s[1], false), s[2], false)
    }),
    k("v_rcp_iflag_f32", V1, &[F32], F32, |s, _| fb(1.0 / f(s[0]))),
    approx(
        k("v_rsq_f32", V1, &[F32], F32, |s, _| {
            fb((1.0 / f64::from(f(s[0])).sqrt()) as f32)
        }),
        2,
    ),
    approx(
        k("v_sin_f32", V1, &[F32], F32, |s, _| {
            fb((f64::from(f(s[0])) * std::f64::consts::TAU).sin() as f32)
        }),
        4,
    ),
    approx(
        k("v_cos_f32", V1, &[F32], F32, |s, _| {
            fb((f64::from(f(s[0])) * std::f64::consts::TAU).cos() as f32)
        }),
        4,
    ),
    // ---- more f16
    k("v_sub_f16", V2, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) - f64::from(h(s[1])))
    }),
    k("v_subrev_f16", V2, &[F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[1])) - f64::from(h(s[0])))
    }),
    k("v_min_f16", V2, &[F16, F16], F16, |s, _| {
        fminmax(F16, s[0] & 0xffff, s[1] & 0xffff, false)
    }),
    k("v_ceil_f16", V1, &[F16], F16, |s, _| hb(h(s[0]).ceil())),
    k("v_floor_f16", V1, &[F16], F16, |s, _| hb(h(s[0]).floor())),
    k("v_trunc_f16", V1, &[F16], F16, |s, _| hb(h(s[0]).trunc())),
    k("v_rndne_f16", V1, &[F16], F16, |s, _| {
        hb(h(s[0]).round_ties_even())
    }),
    k("v_sqrt_f16", V1, &[F16], F16, |s, _| {
        hbd(f64::from(h(s[0])).sqrt())
    }),
    approx(
        k("v_rcp_f16", V1, &[F16], F16, |s, _| {
            hbd(1.0 / f64::from(h(s[0])))
        }),
        1,
    ),
    approx(
        k("v_rsq_f16", V1, &[F16], F16, |s, _| {
            hbd(1.0 / f64::from(h(s[0])).sqrt())
        }),
        1,
    ),
    approx(
        k("v_exp_f16", V1, &[F16], F16, |s, _| {
            hbd(f64::from(h(s[0])).exp2())
        }),
        1,
    ),
    approx(
        k("v_log_f16", V1, &[F16], F16, |s, _| {
            hbd(f64::from(h(s[0])).log2())
        }),
        1,
    ),
    k("v_fma_legacy_f16", V3, &[F16, F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])) + f64::from(h(s[2])))
    }),
    k("v_max3_f16", V3, &[F16, F16, F16], F16, |s, _| {
        fminmax(
            F16,
            fminmax(F16, s[0] & 0xffff, s[1] & 0xffff, true),
            s[2] & 0xffff,
            true,
        )
    }),
    k("v_min3_f16", V3, &[F16, F16, F16], F16, |s, _| {
        fminmax(
            F16,
            fminmax(F16, s[0] & 0xffff, s[1] & 0xffff, false),
            s[2] & 0xffff,
            false,
        )
    }),
    // ---- more f64
    k("v_min_f64", V3, &[F64, F64], F64, |s, _| {
        fminmax(F64, s[0], s[1], false)
    }),
    k("v_ceil_f64", V1, &[F64], F64, |s, _| db(d(s[0]).ceil())),
    k("v_trunc_f64", V1, &[F64], F64, |s, _| db(d(s[0]).trunc())),
    k("v_rndne_f64", V1, &[F64], F64, |s, _| {
        db(d(s[0]).round_ties_even())
    }),
    k("v_sqrt_f64", V1, &[F64], F64, |s, _| db(d(s[0]).sqrt())),
    k("v_fract_f64", V1, &[F64], F64, |s, _| {
        let x = d(s[0]);
        if !x.is_finite() {
            db(f64::NAN)
        } else {
            db((x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff)))
        }
    }),
    // ---- multiply-adds that flush denormals whatever MODE says, and accumulators
    k("v_mad_f32", V3, &[F32, F32, F32], F32, |s, _| {
        mad_ftz32(s[0], s[1], s[2])
    }),
    acc(k("v_mac_f32", V2, &[F32, F32, F32], F32, |s, _| {
        mad_ftz32(s[0], s[1], s[2])
    })),
    acc(k("v_fmac_f32", V2, &[F32, F32, F32], F32, |s, _| {
        fb(f(s[0]).mul_add(f(s[1]), f(s[2])))
    })),
    acc(k("v_fmac_f64", V2, &[F64, F64, F64], F64, |s, _| {
        db(d(s[0]).mul_add(d(s[1]), d(s[2])))
    })),
    acc(k("v_fmac_f16", V2, &[F16, F16, F16], F16, |s, _| {
        hbd(f64::from(h(s[0])) * f64::from(h(s[1])) + f64::from(h(s[2])))
    })),
    acc(k("v_fmac_legacy_f32", V2, &[F32, F32, F32], F32, |s, _| {
        if f(s[0]) == 0.0 || f(s[1]) == 0.0 {
            fb(0.0 + f(s[2]))
        } else {
            fb(f(s[0]).mul_add(f(s[1]), f(s[2])))
        }
    })),
    acc(k("v_dot4c_i32_i8", V2, &[U32, U32, U32], U32, |s, _| {
        let p: i64 = (0..4)
            .map(|k| {
                i64::from((s[0] >> (8 * k)) as u8 as i8) * i64::from((s[1] >> (8 * k)) as u8 as i8)
            })
            .sum();
        (p + i32v(s[2])) as u64 & 0xffff_ffff
    })),
    acc(k("v_dot2c_i32_i16", V2, &[U16, U16, U32], U32, |s, _| {
        let p: i64 = (0..2)
            .map(|k| i16v(s[0] >> (16 * k)) * i16v(s[1] >> (16 * k)))
            .sum();
        (p + i32v(s[2])) as u64 & 0xffff_ffff
    })),
    acc(k("v_dot8c_i32_i4", V2, &[U32, U32, U32], U32, |s, _| {
        let n = |v: u64, k: u32| i64::from((((v as u32) >> (4 * k)) << 28) as i32 >> 28);
        let p: i64 = (0..8).map(|k| n(s[0], k) * n(s[1], k)).sum();
        (p + i32v(s[2])) as u64 & 0xffff_ffff
    })),
    // ---- scalar
    k("s_add_u32", S2, &[U32, U32], U32, |s, _| {
        let v = s[0] + s[1];
        v & 0xffff_ffff | u64::from(v >> 32 != 0) << 32
    }),
    k("s_sub_i32", S2, &[U32, U32], U32, |s, _| {
        let v = i32v(s[0]) - i32v(s[1]);
        (v as u64 & 0xffff_ffff) | u64::from(v != i64::from(v as i32)) << 32
    }),
    k("s_absdiff_i32", S2, &[U32, U32], U32, |s, _| {
        let v = (i32v(s[0]) - i32v(s[1])).unsigned_abs() & 0xffff_ffff;
        v | u64::from(v != 0) << 32
    }),
    // Scalar ALU: the value, and SCC in bit 32 (0 where the opcode leaves SCC alone; it
    // starts clear).
    k("s_add_i32", S2, &[U32, U32], U32, |s, _| {
        let v = i32v(s[0]) + i32v(s[1]);
        (v as u64 & 0xffff_ffff) | u64::from(v != i64::from(v as i32)) << 32
    }),
    k("s_sub_u32", S2, &[U32, U32], U32, |s, _| {
        s[0].wrapping_sub(s[1]) & 0xffff_ffff | u64::from(s[1] > s[0]) << 32
    }),
    k("s_min_i32", S2, &[U32, U32], U32, |s, _| {
        (i32v(s[0]).min(i32v(s[1])) as u64 & 0xffff_ffff) | u64::from(i32v(s[0]) < i32v(s[1])) << 32
    }),
    k("s_max_u32", S2, &[U32, U32], U32, |s, _| {
        s[0].max(s[1]) | u64::from(s[0] > s[1]) << 32
    }),
    k("s_and_b32", S2, &[U32, U32], U32, |s, _| nz(s[0] & s[1])),
    k("s_or_b32", S2, &[U32, U32], U32, |s, _| nz(s[0] | s[1])),
    k("s_xor_b32", S2, &[U32, U32], U32, |s, _| nz(s[0] ^ s[1])),
    k("s_andn2_b32", S2, &[U32, U32], U32, |s, _| {
        nz(s[0] & !s[1] & 0xffff_ffff)
    }),
    k("s_orn2_b32", S2, &[U32, U32], U32, |s, _| {
        nz((s[0] | !s[1]) & 0xffff_ffff)
    }),
    k("s_nand_b32", S2, &[U32, U32], U32, |s, _| {
        nz(!(s[0] & s[1]) & 0xffff_ffff)
    }),
    k("s_nor_b32", S2, &[U32, U32], U32, |s, _| {
        nz(!(s[0] | s[1]) & 0xffff_ffff)
    }),
    k("s_xnor_b32", S2, &[U32, U32], U32, |s, _| {
        nz(!(s[0] ^ s[1]) & 0xffff_ffff)
    }),
    k("s_lshl_b32", S2, &[U32, U32], U32, |s, _| {
        nz((s[0] << (s[1] & 31)) & 0xffff_ffff)
    }),
    k("s_lshr_b32", S2, &[U32, U32], U32, |s, _| {
        nz(s[0] >> (s[1] & 31))
    }),
    k("s_ashr_i32", S2, &[U32, U32], U32, |s, _| {
        nz((i32v(s[0]) >> (s[1] & 31)) as u64 & 0xffff_ffff)
    }),
    k("s_bfm_b32", S2, &[U32, U32], U32, |s, _| {
        (((1u64 << (s[0] & 31)) - 1) << (s[1] & 31)) & 0xffff_ffff
    }),
    k("s_mul_i32", S2, &[U32, U32], U32, |s, _| {
        (s[0] * s[1]) & 0xffff_ffff
    }),
    k("s_bfe_u32", S2, &[U32, U32], U32, |s, _| {
        let (o, w) = (s[1] & 31, s[1] >> 16 & 0x7f);
        nz(if w == 0 {
            0
        } else {
            (s[0] >> o) & ((1u64 << w.min(32)) - 1)
        })
    }),
    k("s_lshl2_add_u32", S2, &[U32, U32], U32, |s, _| {
        let v = (s[0] << 2) + s[1];
        v & 0xffff_ffff | u64::from(v >> 32 != 0) << 32
    }),
    k("s_lshl1_add_u32", S2, &[U32, U32], U32, |s, _| {
        let v = (s[0] << 1) + s[1];
        v & 0xffff_ffff | u64::from(v >> 32 != 0) << 32
    }),
    k("s_lshl3_add_u32", S2, &[U32, U32], U32, |s, _| {
        let v = (s[0] << 3) + s[1];
        v & 0xffff_ffff | u64::from(v >> 32 != 0) << 32
    }),
    k("s_lshl4_add_u32", S2, &[U32, U32], U32, |s, _| {
        let v = (s[0] << 4) + s[1];
        v & 0xffff_ffff | u64::from(v >> 32 != 0) << 32
    }),
    // D = S0[offset + width - 1 : offset], sign-extended; offset S1[4:0], width S1[22:16].
    k("s_bfe_i32", S2, &[U32, U32], U32, |s, _| {
        let (o, w) = (s[1] & 31, s[1] >> 16 & 0x7f);
        nz(if w == 0 {
            0
        } else {
            let x = i32v(s[0]) >> o;
            let w = w.min(32);
            ((x << (64 - w)) >> (64 - w)) as u64 & 0xffff_ffff
        })
    }),
    // 64-bit scalar shifts by S1[5:0] and logic (64-bit results: SCC not compared).
    k("s_lshl_b64", S2, &[U64, U32], U64, |s, _| {
        s[0] << (s[1] & 63)
    }),
    k("s_lshr_b64", S2, &[U64, U32], U64, |s, _| {
        s[0] >> (s[1] & 63)
    }),
    k("s_ashr_i64", S2, &[U64, U32], U64, |s, _| {
        ((s[0] as i64) >> (s[1] & 63)) as u64
    }),
    k("s_orn2_b64", S2, &[U64, U64], U64, |s, _| s[0] | !s[1]),
    k("s_nand_b64", S2, &[U64, U64], U64, |s, _| !(s[0] & s[1])),
    k("s_nor_b64", S2, &[U64, U64], U64, |s, _| !(s[0] | s[1])),
    k("s_xnor_b64", S2, &[U64, U64], U64, |s, _| !(s[0] ^ s[1])),
    k("s_not_b64", S1, &[U64], U64, |s, _| !s[0]),
    k("s_mul_hi_u32", S2, &[U32, U32], U32, |s, _| {
        (s[0] * s[1]) >> 32
    }),
    k("s_mul_hi_i32", S2, &[U32, U32], U32, |s, _| {
        let p = i64::from(s[0] as u32 as i32) * i64::from(s[1] as u32 as i32);
        u64::from((p >> 32) as u32)
    }),
    k("s_pack_lh_b32_b16", S2, &[U32, U32], U32, |s, _| {
        s[0] & 0xffff | s[1] & 0xffff_0000
    }),
    k("s_not_b32", S1, &[U32], U32, |s, _| nz(!s[0] & 0xffff_ffff)),
    k("s_brev_b32", S1, &[U32], U32, |s, _| {
        u64::from((s[0] as u32).reverse_bits())
    }),
    k("s_bcnt1_i32_b32", S1, &[U32], U32, |s, _| {
        nz(u64::from(s[0].count_ones()))
    }),
    k("s_ff1_i32_b32", S1, &[U32], U32, |s, _| {
        if s[0] == 0 {
            0xffff_ffff
        } else {
            u64::from(s[0].trailing_zeros())
        }
    }),
    k("s_flbit_i32_b32", S1, &[U32], U32, |s, _| {
        if s[0] == 0 {
            0xffff_ffff
        } else {
            u64::from((s[0] as u32).leading_zeros())
        }
    }),
    k("s_sext_i32_i16", S1, &[U32], U32, |s, _| {
        u64::from(s[0] as u16 as i16 as i32 as u32)
    }),
    k("s_abs_i32", S1, &[U32], U32, |s, _| {
        nz(u64::from((s[0] as u32 as i32).unsigned_abs()))
    }),
    k("s_mov_b32", S1, &[U32], U32, |s, _| s[0]),
    k("s_quadmask_b32", S1, &[U32], U32, |s, _| {
        let r: u64 = (0..8)
            .map(|q| u64::from(s[0] >> (4 * q) & 0xf != 0) << q)
            .sum();
        r | u64::from(r != 0) << 32
    }),
    k("s_bitreplicate_b64_b32", S1, &[U32], U64, |s, _| {
        (0..32).map(|k| (s[0] >> k & 1) * (3 << (2 * k))).sum()
    }),
    k("s_quadmask_b64", S1, &[U64], U64, |s, _| {
        (0..16)
            .map(|q| u64::from(s[0] >> (4 * q) & 0xf != 0) << q)
            .sum()
    }),
];

// ---------------------------------------------------------------------------------------
// Lines.

/// How the sources of a line are given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src0 {
    Vgpr,
    Sgpr,
    InlineInt,
    InlineFloat,
    Literal,
}

#[derive(Clone, Debug)]
struct Line {
    key: usize,
    asm: String,
    src0: Src0,
    neg: u8,
    abs: u8,
    clamp: bool,
    /// VOP3 op_sel (bits 0–2 sources, bit 3 destination) or VOP3P op_sel.
    opsel: u8,
    opsel_hi: u8,
    neg_hi: u8,
    dpp: bool,
    sdwa: bool,
    omod2: bool,
}

impl Line {
    fn new(key: usize, asm: String) -> Line {
        Line {
            key,
            asm,
            src0: Src0::Vgpr,
            neg: 0,
            abs: 0,
            clamp: false,
            opsel: 0,
            opsel_hi: 0,
            neg_hi: 0,
            dpp: false,
            sdwa: false,
            omod2: false,
        }
    }
}

const SGPR_VALUE: usize = 6;

/// The value of source `k` in lane `l` as the key reads it (packed f32: a register pair of
/// two edge values).
fn src_value(key: &Key, k: usize, l: usize) -> u64 {
    if key.form == P32 {
        lane_value(F32, k, l) | lane_value(F32, k, (l + 17) % 64) << 32
    } else {
        lane_value(key.src[k], k, l)
    }
}

/// The register type of source `k` (packed f32 sources are pairs).
fn src_reg(key: &Key, k: usize) -> T {
    if key.form == P32 {
        U64
    } else {
        key.src[k]
    }
}

fn vreg(t: T, k: usize) -> String {
    if t.bits() == 64 {
        format!("v[{}:{}]", 10 + 2 * k, 11 + 2 * k)
    } else {
        format!("v{k}")
    }
}
fn dreg(t: T) -> &'static str {
    if t.bits() == 64 {
        "v[4:5]"
    } else {
        "v3"
    }
}

/// The inline float constant 0.5 or a literal, and the value an operand of type `t` reads.
fn constant(c: Src0, t: T) -> (String, u64) {
    match (c, t.bits()) {
        (Src0::InlineInt, 64) => ("-3".into(), (-3i64) as u64),
        (Src0::InlineInt, _) => ("-3".into(), u64::from((-3i32) as u32)),
        (Src0::InlineFloat, 16) => ("0.5".into(), 0x3800),
        (Src0::InlineFloat, 32) => ("0.5".into(), 0x3f00_0000),
        (Src0::InlineFloat, _) => ("0.5".into(), 0x3fe0_0000_0000_0000),
        (Src0::Literal, 16) => ("0x4248".into(), 0x4248),
        (Src0::Literal, 32) => ("0x40490fdb".into(), 0x4049_0fdb),
        (Src0::Literal, _) if t.float() => ("0x40091eb8".into(), 0x4009_1eb8_0000_0000),
        (Src0::Literal, _) => ("0x12345678".into(), 0x1234_5678),
        _ => unreachable!(),
    }
}

/// Every candidate line of a key for one target (the assembler drops those that do not
/// exist).
fn lines_for(ki: usize, key: &Key, t: &Target) -> Vec<Line> {
    let name = if t.gfx10() && !key.gfx10.is_empty() {
        key.gfx10
    } else {
        key.name
    };
    let n = key.src.len() - usize::from(key.acc);
    let dst = dreg(if key.form == P32 { U64 } else { key.dst });
    let mut out = Vec::new();
    let srcs = |s0: &str, mods: &dyn Fn(usize, String) -> String| -> String {
        (0..n)
            .map(|k| {
                let r = if k == 0 {
                    s0.to_string()
                } else {
                    vreg(src_reg(key, k), k)
                };
                mods(k, r)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let plain = |_: usize, r: String| r;
    let src0_forms = [
        Src0::Vgpr,
        Src0::Sgpr,
        Src0::InlineInt,
        Src0::InlineFloat,
        Src0::Literal,
    ];
    match key.form {
        S1 | S2 => {
            let sreg = |k: usize, t: T| {
                if t.bits() == 64 {
                    format!("s[{}:{}]", 2 * k, 2 * k + 1)
                } else {
                    format!("s{k}")
                }
            };
            let d = if key.dst.bits() == 64 { "s[8:9]" } else { "s8" };
            for c in [
                Src0::Sgpr,
                Src0::InlineInt,
                Src0::InlineFloat,
                Src0::Literal,
            ] {
                let s0 = if c == Src0::Sgpr {
                    sreg(0, key.src[0])
                } else {
                    constant(c, key.src[0]).0
                };
                let rest: String = (1..n)
                    .map(|k| format!(", {}", sreg(k, key.src[k])))
                    .collect();
                let mut l = Line::new(ki, format!("{name} {d}, {s0}{rest}"));
                l.src0 = c;
                out.push(l);
            }
            return out;
        }
        P16 | P32 | P => {
            for c in src0_forms {
                let s0 = match c {
                    Src0::Vgpr => vreg(src_reg(key, 0), 0),
                    Src0::Sgpr if key.form == P32 => "s[4:5]".into(),
                    Src0::Sgpr => "s4".into(),
                    _ => constant(c, key.src[0]).0,
                };
                let mut l = Line::new(ki, format!("{name} {dst}, {}", srcs(&s0, &plain)));
                l.src0 = c;
                out.push(l);
            }
            if key.form != P {
                // op_sel / op_sel_hi, and neg_lo / neg_hi for floats.
                let all = (1u8 << n) - 1;
                let list = |b: u8| {
                    (0..n)
                        .map(|k| (b >> k & 1).to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                for (sel, hi) in [(all, 0u8), (1, 2 & all), (2 & all, 1)] {
                    let mut l = Line::new(
                        ki,
                        format!(
                            "{name} {dst}, {} op_sel:[{}] op_sel_hi:[{}]",
                            srcs(&vreg(src_reg(key, 0), 0), &plain),
                            list(sel),
                            list(hi)
                        ),
                    );
                    l.opsel = sel;
                    l.opsel_hi = hi;
                    out.push(l);
                }
                if key.src[0].float() {
                    let mut l = Line::new(
                        ki,
                        format!(
                            "{name} {dst}, {} neg_lo:[{}] neg_hi:[{}]",
                            srcs(&vreg(src_reg(key, 0), 0), &plain),
                            list(1),
                            list(all)
                        ),
                    );
                    l.neg = 1;
                    l.neg_hi = all;
                    l.opsel_hi = all;
                    out.push(l);
                }
            }
            let mut l = Line::new(
                ki,
                format!(
                    "{name} {dst}, {} clamp",
                    srcs(&vreg(src_reg(key, 0), 0), &plain)
                ),
            );
            l.clamp = true;
            if matches!(key.form, P16 | P32) {
                l.opsel_hi = (1 << n) - 1;
            }
            out.push(l);
            for l in &mut out {
                if matches!(key.form, P16 | P32) && !l.asm.contains("op_sel_hi") {
                    l.opsel_hi = (1 << n) - 1;
                }
            }
            return out;
        }
        _ => {}
    }
    // VOP1/VOP2/VOP3.
    let e32 = matches!(key.form, V1 | V2);
    for c in src0_forms {
        let s0 = match c {
            Src0::Vgpr => vreg(key.src[0], 0),
            Src0::Sgpr if key.src[0].bits() == 64 => "s[4:5]".into(),
            Src0::Sgpr => "s4".into(),
            _ => constant(c, key.src[0]).0,
        };
        let suffix = if e32 { "_e32" } else { "" };
        let mut l = Line::new(ki, format!("{name}{suffix} {dst}, {}", srcs(&s0, &plain)));
        l.src0 = c;
        out.push(l);
        if e32 && c == Src0::Vgpr {
            out.push(Line::new(
                ki,
                format!("{name}_e64 {dst}, {}", srcs(&s0, &plain)),
            ));
        }
        if !e32 && c == Src0::Literal {
            // A VOP3 literal exists on GFX10 only; the e64 form of a VOP1/VOP2 too.
        }
        if e32 && c == Src0::Literal && t.gfx10() {
            let mut l = Line::new(ki, format!("{name}_e64 {dst}, {}", srcs(&s0, &plain)));
            l.src0 = c;
            out.push(l);
        }
    }
    let e64 = if e32 { "_e64" } else { "" };
    let v0 = vreg(key.src[0], 0);
    if key.src[0].float() {
        // neg on src0, abs on the last source.
        let last = n - 1;
        let m = |k: usize, r: String| {
            if k == 0 && k == last {
                format!("-|{r}|")
            } else if k == 0 {
                format!("-{r}")
            } else if k == last {
                format!("|{r}|")
            } else {
                r
            }
        };
        let mut l = Line::new(ki, format!("{name}{e64} {dst}, {}", srcs(&v0, &m)));
        l.neg = 1;
        l.abs = 1 << last;
        out.push(l);
    }
    let mut l = Line::new(
        ki,
        format!("{name}{e64} {dst}, {} clamp", srcs(&v0, &plain)),
    );
    l.clamp = true;
    out.push(l);
    if key.dst == F32 {
        let mut l = Line::new(
            ki,
            format!("{name}{e64} {dst}, {} mul:2", srcs(&v0, &plain)),
        );
        l.omod2 = true;
        out.push(l);
    }
    if !key.acc && (key.src.iter().any(|t| t.bits() == 16) || key.dst.bits() == 16) {
        // VOP3 op_sel: high halves of the sources, then the destination's high half.
        let list = |b: u8| {
            (0..=n)
                .map(|k| (b >> k & 1).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let srcbits = ((1u8 << n) - 1)
            & !key
                .src
                .iter()
                .enumerate()
                .fold(0, |m, (k, t)| m | u8::from(t.bits() != 16) << k);
        for sel in [srcbits, 1 << n] {
            if sel == 0 {
                continue;
            }
            let mut l = Line::new(
                ki,
                format!(
                    "{name}{e64} {dst}, {} op_sel:[{}]",
                    srcs(&v0, &plain),
                    list(sel)
                ),
            );
            l.opsel = if sel == 1 << n { 8 } else { sel };
            out.push(l);
        }
    }
    if e32 && key.src.iter().all(|t| t.bits() == 32) && key.dst.bits() == 32 {
        let mut l = Line::new(
            ki,
            format!(
                "{name}_dpp {dst}, {} quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
                srcs(&v0, &plain)
            ),
        );
        l.dpp = true;
        out.push(l);
        let sel1 = if n > 1 { " src1_sel:BYTE_0" } else { "" };
        let mut l = Line::new(
            ki,
            format!(
                "{name}_sdwa {dst}, {} dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_1{sel1}",
                srcs(&v0, &plain)
            ),
        );
        l.sdwa = true;
        out.push(l);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Running a line and the reference.

fn exec_mask(t: &Target) -> u64 {
    let all = if t.wave64 { u64::MAX } else { 0xffff_ffff };
    all & !(1 << 5) & !(1 << 37)
}

/// Sets the initial registers for a line.
fn setup(key: &Key, t: &Target) -> WaveRegs {
    let mut r = WaveRegs::new(t.gen);
    r.set_exec(exec_mask(t));
    for (k, ty) in key.src.iter().enumerate() {
        for l in 0..64 {
            let v = src_value(key, k, l);
            if src_reg(key, k).bits() == 64 {
                r.v[10 + 2 * k][l] = v as u32;
                r.v[11 + 2 * k][l] = (v >> 32) as u32;
            } else {
                r.v[k][l] = v as u32;
            }
        }
        // Scalar sources s0/s1/s2 (SALU) or s[0:1]…; s4 / s[4:5] hold the VALU SGPR operand.
        let v = edges(*ty)[(SGPR_VALUE + 5 * k) % 16];
        if key.form == S1 || key.form == S2 {
            if ty.bits() == 64 {
                r.s[2 * k] = v as u32;
                r.s[2 * k + 1] = (v >> 32) as u32;
            } else {
                r.s[k] = v as u32;
            }
        }
    }
    let v = edges(key.src[0])[SGPR_VALUE];
    r.s[4] = v as u32;
    r.s[5] = if key.form == P32 {
        edges(F32)[SGPR_VALUE + 1] as u32
    } else {
        (v >> 32) as u32
    };
    for l in 0..64 {
        r.v[3][l] = 0x5a5a_0000 | l as u32;
        r.v[4][l] = 0xa5a5_0000 | l as u32;
        r.v[5][l] = 0x0f0f_0000 | l as u32;
        if key.acc {
            let k = key.src.len() - 1;
            let v = src_value(key, k, l);
            if key.dst.bits() == 64 {
                r.v[4][l] = v as u32;
                r.v[5][l] = (v >> 32) as u32;
            } else {
                r.v[3][l] = v as u32;
            }
        }
    }
    r
}

/// An f32 denormal flushed to zero of the same sign (lines run with f32 denormals off).
fn flush32(v: u64) -> u64 {
    if v & 0x7f80_0000 == 0 {
        v & 0x8000_0000
    } else {
        v
    }
}

fn float_mods(t: T, v: u64, neg: bool, abs: bool) -> u64 {
    let s = t.sign();
    let v = if abs { v & !s } else { v };
    if neg {
        v ^ s
    } else {
        v
    }
}

fn clamp01(t: T, v: u64) -> u64 {
    let one = match t {
        F16 => 0x3c00,
        F32 => 0x3f80_0000,
        _ => 0x3ff0_0000_0000_0000,
    };
    let x = match t {
        F16 => f64::from(h(v)),
        F32 => f64::from(f(v)),
        _ => d(v),
    };
    if x.is_nan() || x < 0.0 {
        0 // DX10_CLAMP: NaN → 0; negative values → +0 (−0 stays −0, as LLVM folds clamp).
    } else if x >= 1.0 {
        one
    } else {
        v
    }
}

/// Expected destination of one lane (`old`: the destination before).
fn expected(key: &Key, line: &Line, t: &Target, lane: usize, old: u64) -> u64 {
    let c = C {
        clamp: line.clamp,
        gen: t.gen,
        lane,
    };
    let _ = c.gen;
    let mut s = [0u64; 3];
    for (k, ty) in key.src.iter().enumerate() {
        let mut v = if k == 0 {
            match line.src0 {
                Src0::Vgpr => src_value(key, 0, if line.dpp { lane ^ 1 } else { lane }),
                Src0::Sgpr if key.form == P32 => {
                    edges(F32)[SGPR_VALUE] | edges(F32)[SGPR_VALUE + 1] << 32
                }
                Src0::Sgpr => edges(*ty)[SGPR_VALUE],
                cst => constant(cst, *ty).1,
            }
        } else if key.form == S1 || key.form == S2 {
            edges(*ty)[(SGPR_VALUE + 5 * k) % 16]
        } else if key.acc && k == key.src.len() - 1 {
            old
        } else {
            src_value(key, k, lane)
        };
        if line.sdwa && k < 2 {
            v = if k == 0 { v >> 16 & 0xffff } else { v & 0xff };
        }
        if line.opsel >> k & 1 != 0 && !matches!(key.form, P16 | P32) {
            v >>= 16;
        }
        if ty.float() && !matches!(key.form, P16 | P32) {
            v = float_mods(*ty, v, line.neg >> k & 1 != 0, line.abs >> k & 1 != 0);
        }
        if line.omod2 && *ty == F32 {
            v = flush32(v);
        }
        s[k] = v;
    }
    let mut r = match key.form {
        P16 | P32 => {
            let w = if key.form == P16 { 16 } else { 32 };
            let mask = (1u64 << w) - 1;
            let mut out = 0u64;
            for hi in [false, true] {
                let mut hs = [0u64; 3];
                for k in 0..key.src.len() {
                    let sel = if hi { line.opsel_hi } else { line.opsel } >> k & 1;
                    let x = if key.form == P32
                        && !matches!(line.src0, Src0::Vgpr | Src0::Sgpr)
                        && k == 0
                    {
                        // A constant is one 32-bit value for both halves.
                        s[0] & 0xffff_ffff
                    } else {
                        s[k] >> (w * sel) & mask
                    };
                    let negb = if hi { line.neg_hi } else { line.neg } >> k & 1;
                    hs[k] = if negb != 0 { x ^ (1 << (w - 1)) } else { x };
                }
                let mut v = (key.r)(&hs, &c) & mask;
                if line.clamp && key.dst.float() {
                    v = clamp01(key.dst, v);
                }
                out |= v << if hi { w } else { 0 };
            }
            out
        }
        _ => {
            let mut v = (key.r)(&s, &c);
            if key.dst.float() {
                if line.omod2 {
                    v = flush32(fb(f(v) * 2.0));
                }
                if line.clamp {
                    v = clamp01(key.dst, v);
                }
            }
            v
        }
    };
    if key.dst.bits() == 16 && !matches!(key.form, P16) {
        r &= 0xffff;
        if line.opsel & 8 != 0 {
            r = old & 0xffff | r << 16;
        }
    }
    if line.sdwa || (key.dst.bits() == 16 && key.form != P16 && line.opsel & 8 == 0) {
        // Compared on the low 16 bits only (the high half: `high_half_of_16_bit_results`).
        if key.dst.bits() == 16 {
            return r & 0xffff | 1 << 63;
        }
    }
    r
}

fn ulps(t: T, a: u64, b: u64) -> u64 {
    match t {
        F32 => (i64::from(a as u32 as i32) - i64::from(b as u32 as i32)).unsigned_abs(),
        F16 => (i64::from(a as u16 as i16) - i64::from(b as u16 as i16)).unsigned_abs(),
        _ => (a as i64).wrapping_sub(b as i64).unsigned_abs(),
    }
}

/// Runs every line of every key on every target; returns the keys that have lines and the
/// failures.
fn run_all(keys: &[Key]) -> (BTreeMap<&'static str, usize>, Vec<String>) {
    let mut covered: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for t in &TARGETS {
        let lines: Vec<Line> = keys
            .iter()
            .enumerate()
            .flat_map(|(ki, key)| lines_for(ki, key, t))
            .collect();
        let text: Vec<String> = lines.iter().map(|l| l.asm.clone()).collect();
        let words = assemble(t, &text);
        for (line, w) in lines.iter().zip(words) {
            let Some(w) = w else { continue };
            let key = &keys[line.key];
            *covered.entry(key.name).or_default() += 1;
            let mut regs = setup(key, t);
            let before = regs.clone();
            if line.omod2 {
                // omod applies only while f32 output denormals are flushed.
                regs.mode &= !0x30;
            }
            let what = format!(
                "{} [{}{}]",
                line.asm,
                t.mcpu,
                if t.wave64 { "" } else { " w32" }
            );
            if let Err(e) = run_words(t.gen, &w, &mut regs) {
                failures.push(format!("{what}: fault {e:?}"));
                continue;
            }
            if key.form == S1 || key.form == S2 {
                let got = u64::from(regs.s[8])
                    | if key.dst.bits() == 64 {
                        u64::from(regs.s[9]) << 32
                    } else {
                        u64::from(regs.scc) << 32
                    };
                // 32-bit results are compared with SCC (bit 32); 64-bit ones without.
                let want = expected(key, line, t, 0, 0);
                if got != want {
                    failures.push(format!("{what}: got {got:#x}, want {want:#x}"));
                }
                continue;
            }
            let wide = key.dst.bits() == 64 || key.form == P32;
            for lane in 0..t.lanes() {
                let (reg, old) = if wide {
                    (
                        u64::from(regs.v[4][lane]) | u64::from(regs.v[5][lane]) << 32,
                        u64::from(before.v[4][lane]) | u64::from(before.v[5][lane]) << 32,
                    )
                } else {
                    (u64::from(regs.v[3][lane]), u64::from(before.v[3][lane]))
                };
                if exec_mask(t) >> lane & 1 == 0 {
                    if reg != old {
                        failures.push(format!("{what}: inactive lane {lane} written"));
                    }
                    continue;
                }
                // DPP: a lane whose source lane is inactive is not written.
                let mut want = if line.dpp && exec_mask(t) >> (lane ^ 1) & 1 == 0 {
                    old
                } else {
                    expected(key, line, t, lane, old)
                };
                let mut got = reg;
                if want >> 63 != 0 && key.dst.bits() == 16 {
                    want &= 0xffff;
                    got &= 0xffff;
                }
                let ok = if key.form == P32 {
                    (0..2).all(|h| {
                        let (g, w) = (
                            got >> (32 * h) & 0xffff_ffff,
                            want >> (32 * h) & 0xffff_ffff,
                        );
                        g == w || (is_nan(F32, g) && is_nan(F32, w))
                    })
                } else if key.form == P16 && key.dst.float() {
                    (0..2).all(|h| {
                        let (g, w) = (got >> (16 * h) & 0xffff, want >> (16 * h) & 0xffff);
                        g == w || (is_nan(F16, g) && is_nan(F16, w))
                    })
                } else if key.dst.float() {
                    got == want
                        || (is_nan(key.dst, got) && is_nan(key.dst, want))
                        || (key.ulp > 0 && ulps(key.dst, got, want) <= u64::from(key.ulp))
                } else {
                    got == want
                };
                if !ok {
                    let srcs: Vec<String> = (0..key.src.len())
                        .map(|k| format!("{:#x}", src_value(key, k, lane)))
                        .collect();
                    failures.push(format!(
                        "{what}: lane {lane} sources {srcs:?}: got {got:#x}, want {want:#x}"
                    ));
                    break;
                }
            }
        }
    }
    (covered, failures)
}

#[test]
fn instructions_match_their_definitions() {
    let (covered, failures) = run_all(KEYS);
    let lines: usize = covered.values().sum();
    eprintln!("{} keys, {lines} lines", covered.len());
    for k in KEYS {
        assert!(
            covered.contains_key(k.name),
            "{}: no line assembles",
            k.name
        );
    }
    for f in failures.iter().take(400) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failing lines", failures.len());
}

// ---------------------------------------------------------------------------------------
// Vector compares: every condition and type, VOPC and VOP3, `v_cmp` and `v_cmpx`.

const FLOAT_CONDS: [&str; 16] = [
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
    "tru",
];
const INT_CONDS: [&str; 8] = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"];

/// The compare keys: (mnemonic, condition, operand type, signed).
fn compare_keys() -> Vec<(String, &'static str, T, bool)> {
    let mut v = Vec::new();
    for x in ["", "x"] {
        for (ty, name) in [(F16, "f16"), (F32, "f32"), (F64, "f64")] {
            for c in FLOAT_CONDS.iter().chain(["class"].iter()) {
                v.push((format!("v_cmp{x}_{c}_{name}"), *c, ty, true));
            }
        }
        for (ty, name, signed) in [
            (U16, "i16", true),
            (U32, "i32", true),
            (U64, "i64", true),
            (U16, "u16", false),
            (U32, "u32", false),
            (U64, "u64", false),
        ] {
            for c in INT_CONDS {
                v.push((format!("v_cmp{x}_{c}_{name}"), c, ty, signed));
            }
        }
    }
    v
}

/// The ISA's compare definitions: ordered float conditions are false on NaN, their `n…`
/// negations and `u` true; `class` tests the bit of the value's class in the mask.
fn compare_ref(cond: &str, ty: T, signed: bool, a: u64, b: u64) -> bool {
    if ty.float() {
        let val = |v: u64| match ty {
            F16 => f64::from(h(v)),
            F32 => f64::from(f(v)),
            _ => d(v),
        };
        let (x, y) = (val(a), val(b));
        if cond == "class" {
            let q = match ty {
                F16 => a & 0x200 != 0,
                F32 => a & 0x40_0000 != 0,
                _ => a & (1 << 51) != 0,
            };
            let neg = a & ty.sign() != 0;
            let denorm = match ty {
                F16 => a & 0x7c00 == 0 && a & 0x3ff != 0,
                F32 => a & 0x7f80_0000 == 0 && a & 0x7f_ffff != 0,
                _ => a & (0x7ff << 52) == 0 && a & ((1 << 52) - 1) != 0,
            };
            let bit = if x.is_nan() {
                if q {
                    1
                } else {
                    0
                }
            } else if x.is_infinite() {
                if neg {
                    2
                } else {
                    9
                }
            } else if x == 0.0 && !denorm {
                if neg {
                    5
                } else {
                    6
                }
            } else if denorm {
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
            return b >> bit & 1 != 0;
        }
        let unordered = x.is_nan() || y.is_nan();
        return match cond {
            "f" => false,
            "lt" => x < y,
            "eq" => x == y,
            "le" => x <= y,
            "gt" => x > y,
            "lg" => x < y || x > y,
            "ge" => x >= y,
            "o" => !unordered,
            "u" => unordered,
            "nge" => !(x >= y),
            "nlg" => !(x < y || x > y),
            "ngt" => !(x > y),
            "nle" => !(x <= y),
            "neq" => !(x == y),
            "nlt" => !(x < y),
            _ => true,
        };
    }
    let (x, y): (i128, i128) = match (ty.bits(), signed) {
        (16, true) => (i16v(a).into(), i16v(b).into()),
        (16, false) => (u16v(a).into(), u16v(b).into()),
        (32, true) => (i32v(a).into(), i32v(b).into()),
        (32, false) => ((a as u32).into(), (b as u32).into()),
        (_, true) => ((a as i64).into(), (b as i64).into()),
        _ => (a.into(), b.into()),
    };
    match cond {
        "f" => false,
        "lt" => x < y,
        "eq" => x == y,
        "le" => x <= y,
        "gt" => x > y,
        "ne" => x != y,
        "ge" => x >= y,
        _ => true,
    }
}

#[test]
fn compares_match_their_definitions() {
    let keys = compare_keys();
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for t in &TARGETS {
        let vcc = if t.wave64 { "vcc" } else { "vcc_lo" };
        let sdst = if t.wave64 { "s[10:11]" } else { "s10" };
        // (key, asm, src0 form, neg/abs on src0, e64, sdwa)
        let mut lines: Vec<(usize, String, Src0, bool, bool)> = Vec::new();
        for (ki, (name, cond, ty, _)) in keys.iter().enumerate() {
            let cmpx = name.starts_with("v_cmpx");
            let class = *cond == "class";
            let src1_ty = if class { U32 } else { *ty };
            let v1 = vreg(src1_ty, 1);
            let d32 = if cmpx && t.gfx10() {
                String::new()
            } else {
                format!("{vcc}, ")
            };
            let d64 = if cmpx && t.gfx10() {
                String::new()
            } else {
                format!("{sdst}, ")
            };
            for c in [
                Src0::Vgpr,
                Src0::Sgpr,
                Src0::InlineInt,
                Src0::InlineFloat,
                Src0::Literal,
            ] {
                let s0 = match c {
                    Src0::Vgpr => vreg(*ty, 0),
                    Src0::Sgpr if ty.bits() == 64 => "s[4:5]".into(),
                    Src0::Sgpr => "s4".into(),
                    _ => constant(c, *ty).0,
                };
                lines.push((ki, format!("{name}_e32 {d32}{s0}, {v1}"), c, false, false));
            }
            lines.push((
                ki,
                format!("{name}_e64 {d64}{}, {v1}", vreg(*ty, 0)),
                Src0::Vgpr,
                false,
                true,
            ));
            if ty.float() {
                lines.push((
                    ki,
                    format!("{name}_e64 {d64}-|{}|, {v1}", vreg(*ty, 0)),
                    Src0::Vgpr,
                    true,
                    true,
                ));
            }
        }
        let text: Vec<String> = lines.iter().map(|l| l.1.clone()).collect();
        let words = assemble(t, &text);
        for ((ki, asm, c, negabs, _), w) in lines.iter().zip(words) {
            let Some(w) = w else { continue };
            let (name, cond, ty, signed) = &keys[*ki];
            covered.insert(name.clone());
            let class = *cond == "class";
            let src1_ty = if class { U32 } else { *ty };
            let mut regs = WaveRegs::new(t.gen);
            regs.set_exec(exec_mask(t));
            for l in 0..64 {
                for (k, tk) in [(0, *ty), (1, src1_ty)] {
                    let v = if k == 1 && class {
                        // Class masks: a different subset of the ten classes per lane.
                        (l as u64 * 0x9e37_79b9) >> 7 & 0x3ff
                    } else {
                        lane_value(tk, k, l)
                    };
                    if tk.bits() == 64 {
                        regs.v[10 + 2 * k][l] = v as u32;
                        regs.v[11 + 2 * k][l] = (v >> 32) as u32;
                    } else {
                        regs.v[k][l] = v as u32;
                    }
                }
            }
            let sv = edges(*ty)[SGPR_VALUE];
            regs.s[4] = sv as u32;
            regs.s[5] = (sv >> 32) as u32;
            regs.s[10] = 0xdead_beef;
            regs.s[11] = 0xdead_beef;
            let what = format!("{asm} [{}{}]", t.mcpu, if t.wave64 { "" } else { " w32" });
            if let Err(e) = run_words(t.gen, &w, &mut regs) {
                failures.push(format!("{what}: fault {e:?}"));
                continue;
            }
            let mut want = 0u64;
            for l in 0..t.lanes() {
                if exec_mask(t) >> l & 1 == 0 {
                    continue;
                }
                let mut a = match c {
                    Src0::Vgpr => lane_value(*ty, 0, l),
                    Src0::Sgpr => sv,
                    cst => constant(*cst, *ty).1,
                };
                if *negabs {
                    a = float_mods(*ty, a, true, true);
                }
                let b = if class {
                    (l as u64 * 0x9e37_79b9) >> 7 & 0x3ff
                } else {
                    lane_value(*ty, 1, l)
                };
                let (a, b) = if ty.bits() == 16 {
                    (a & 0xffff, b & 0xffff)
                } else {
                    (a, b)
                };
                let b = if class {
                    (l as u64 * 0x9e37_79b9) >> 7 & 0x3ff
                } else {
                    b
                };
                if compare_ref(cond, *ty, *signed, a, b) {
                    want |= 1 << l;
                }
            }
            let cmpx = name.starts_with("v_cmpx");
            let e64 = asm.contains("_e64");
            let (lo, hi) = if e64 {
                (10, 11)
            } else {
                (WaveRegs::VCC, WaveRegs::VCC + 1)
            };
            let mut got = u64::from(regs.s[lo]);
            if t.wave64 {
                got |= u64::from(regs.s[hi]) << 32;
            }
            if cmpx && t.gfx10() {
                got = regs.exec();
            }
            if got != want {
                failures.push(format!("{what}: got {got:#x}, want {want:#x}"));
            } else if cmpx && regs.exec() != want {
                failures.push(format!("{what}: EXEC {:#x}, want {want:#x}", regs.exec()));
            }
        }
    }
    eprintln!("{} compare keys with lines", covered.len());
    for f in failures.iter().take(60) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failing lines", failures.len());
    for (name, ..) in &keys {
        assert!(
            covered.contains(name) || !name.contains("16"),
            "{name}: no line"
        );
    }
}

/// Every opcode that executes on a target of [`TARGETS`], by mnemonic.
fn executing_mnemonics() -> BTreeSet<&'static str> {
    let mut set = BTreeSet::new();
    for gen in TARGETS.iter().map(|t| t.gen).chain(LLVM22_GENS) {
        for o in opcodes(gen) {
            if opcode_status_on(gen, o) == OpcodeStatus::Executes {
                set.insert(o.mnemonic());
            }
        }
    }
    set
}

/// The generations of the llvm-mc-22 lines (`cdna_mem` and `cdna4_cvt` on gfx942/gfx950,
/// `gfx11` and `gfx12` in both wave sizes): `completeness` checks their executing opcodes too.
const LLVM22_GENS: [Gen; 6] = [
    Gen::Gfx942,
    Gen::Gfx950,
    Gen::Gfx11,
    Gen::Gfx11W64,
    Gen::Gfx12,
    Gen::Gfx12W64,
];

/// Executing opcodes without a line yet (none of them new in this change): memory
/// instructions (DS, FLAT/GLOBAL/SCRATCH, MUBUF, SMEM: tested through kernels in
/// `tests/kernels.rs` and `tests/suite.rs`), scalar ALU and control flow, and VALU keys
/// still to be written. This list may only shrink: the test fails when a listed mnemonic
/// gains a line (remove it) or an executing mnemonic is neither covered nor listed.
const KNOWN_UNCOVERED: &str = include_str!("inst_known_uncovered.txt");

#[test]
fn completeness() {
    let mut keyed: BTreeSet<String> = BTreeSet::new();
    for k in KEYS {
        keyed.insert(k.name.to_string());
        if !k.gfx10.is_empty() {
            keyed.insert(k.gfx10.to_string());
        }
    }
    for (name, ..) in compare_keys() {
        keyed.insert(name);
    }
    for (g8, g9, g10, _) in CARRY_KEYS {
        keyed.extend([g8, g9, g10].map(String::from));
    }
    keyed.extend(mem::mnemonics());
    keyed.extend(cdna_mem::mnemonics());
    keyed.extend(cdna4_cvt::mnemonics());
    keyed.extend(image::mnemonics());
    keyed.extend(gfx11::mnemonics());
    keyed.extend(gfx12::mnemonics());
    keyed.extend(["v_cndmask_b32", "v_mad_u64_u32", "v_mad_i64_i32"].map(String::from));
    keyed.extend(
        [
            "v_movrels_b32",
            "v_movreld_b32",
            "v_movrelsd_b32",
            "v_movrelsd_2_b32",
            "v_swaprel_b32",
            "v_qsad_pk_u16_u8",
            "v_mqsad_u32_u8",
            "v_mqsad_pk_u16_u8",
            "v_cvt_pkaccum_u8_f32",
            "v_pk_fmac_f16",
            "s_movrels_b64",
            "s_movreld_b64",
            "s_movrelsd_2_b32",
            "s_version",
            // s_getpc_b64_is_the_next_instructions_address
            "s_getpc_b64",
            "s_wait_idle",
            "s_wakeup",
            "v_clrexcp",
            "v_pipeflush",
            "v_nop",
            // vgpr_index_mode
            "s_set_gpr_idx_on",
            "s_set_gpr_idx_off",
            "s_set_gpr_idx_idx",
            "s_set_gpr_idx_mode",
        ]
        .map(String::from),
    );
    let known: BTreeSet<&str> = KNOWN_UNCOVERED
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let exec = executing_mnemonics();
    let uncovered: Vec<&str> = exec
        .iter()
        .copied()
        .filter(|m| !keyed.contains(*m) && !known.contains(m))
        .collect();
    let stale: Vec<&str> = known
        .iter()
        .copied()
        .filter(|m| keyed.contains(*m) || !exec.contains(m))
        .collect();
    eprintln!(
        "{} executing mnemonics: {} with lines, {} on the known-uncovered list",
        exec.len(),
        exec.iter().filter(|m| keyed.contains(**m)).count(),
        known.len()
    );
    if std::env::var_os("INST_PRINT_UNCOVERED").is_some() {
        for m in exec.iter().filter(|m| !keyed.contains(**m)) {
            println!("{m}");
        }
    }
    assert!(
        uncovered.is_empty(),
        "executing opcodes without a line: {uncovered:?}"
    );
    assert!(
        stale.is_empty(),
        "remove from the known-uncovered list: {stale:?}"
    );
}

/// Runs one line on a target from `regs`.
fn run_line(t: &Target, asm: &str, regs: &mut WaveRegs) {
    let w = assemble(t, &[asm.to_string()])
        .pop()
        .flatten()
        .unwrap_or_else(|| panic!("llvm-mc rejects `{asm}` for {}", t.mcpu));
    run_words(t.gen, &w, regs).unwrap_or_else(|e| panic!("{asm}: {e:?}"));
}

fn target(mcpu: &str, wave64: bool) -> &'static Target {
    TARGETS
        .iter()
        .find(|t| t.mcpu == mcpu && t.wave64 == wave64)
        .expect("target")
}

/// `v_fma_f16`/`v_pk_fma_f16` round once: the exact `S0 * S1 + S2` to the nearest f16, ties
/// to even. Expected values from an integer model of the definition (each f16 an integer
/// times 2^-24, the sum exact as an integer times 2^-48, rounded by integer division), not
/// from the host's floats: `half`'s `f64` conversion goes through `f32`, a second rounding
/// that lands some FMAs on an f16 midpoint (1 ulp off; found by a bit-exact HIP test of
/// `__hfma`/`__hfma2`, ~35 results in a million).
#[test]
fn f16_fmas_round_once() {
    // The value of f16 `v` times 2^24 (exact: the smallest subnormal is 2^-24).
    fn scaled(v: u32) -> i128 {
        let (e, f) = (i128::from((v >> 10) & 0x1f), i128::from(v & 0x3ff));
        let m = if e == 0 { f } else { (1024 + f) << (e - 1) };
        if v & 0x8000 != 0 {
            -m
        } else {
            m
        }
    }
    // The f16 nearest `s` · 2^-48 (not zero), ties to even; past the largest, infinity.
    fn round(s: i128) -> u32 {
        let sign = if s < 0 { 0x8000 } else { 0 };
        let a = s.unsigned_abs();
        // The quantum (in units of 2^-48): 2^-24 below 2^-14, else 2^(E - 10) in the binade
        // [2^E, 2^(E + 1)).
        let e = 127 - i32::try_from(a.leading_zeros()).expect("small") - 48;
        let shift = (e.max(-14) - 10 + 48) as u32;
        let (mut q, rem) = (a >> shift, a & ((1u128 << shift) - 1));
        let half = 1u128 << (shift - 1);
        if rem > half || rem == half && q & 1 == 1 {
            q += 1;
        }
        // Below 2^-14 `q` is the subnormal's fraction (1024 is the smallest normal);
        // above, 1024..=2048 times the binade's quantum.
        let bits = if e < -14 {
            q as u32
        } else {
            (e + 15) as u32 * 1024 + (q as u32 - 1024)
        };
        sign | bits.min(0x7c00)
    }
    // (S0, S1, S2, the correctly rounded result), checked by exact rational arithmetic:
    // `(half)fmaf(S0, S1, S2)` gives the neighbour for each.
    let known: [[u32; 4]; 5] = [
        [0x76a1, 0x9de4, 0x1e42, 0xd8e1],
        [0x760c, 0x3880, 0x8dea, 0x72cd],
        [0xcfa8, 0x5880, 0x8afc, 0xec4f],
        [0x5fac, 0x5100, 0x9120, 0x74cb],
        [0x3c98, 0x94ca, 0xb532, 0xb537],
    ];
    for [a, b, c, want] in known {
        assert_eq!(round(scaled(a) * scaled(b) + (scaled(c) << 24)), want);
    }
    // Finite triples whose exact result is not zero: the known ones, then pseudo-random.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || loop {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let v = (seed >> 20) as u32 & 0xffff;
        if v & 0x7c00 != 0x7c00 {
            return v;
        }
    };
    let mut triples: Vec<[u32; 3]> = known.iter().map(|k| [k[0], k[1], k[2]]).collect();
    while triples.len() < 128 {
        let t = [next(), next(), next()];
        if scaled(t[0]) * scaled(t[1]) + (scaled(t[2]) << 24) != 0 {
            triples.push(t);
        }
    }
    let want = |t: &[u32; 3]| round(scaled(t[0]) * scaled(t[1]) + (scaled(t[2]) << 24));
    for name in ["gfx90a", "gfx1030"] {
        let t = target(name, true);
        for (asm, packed) in [
            ("v_fma_f16 v4, v0, v1, v2", false),
            ("v_pk_fma_f16 v4, v0, v1, v2", true),
        ] {
            let mut r = WaveRegs::new(t.gen);
            for l in 0..64 {
                let (lo, hi) = (&triples[l], &triples[127 - l]);
                for k in 0..3 {
                    r.v[k][l] = lo[k] | if packed { hi[k] << 16 } else { 0 };
                }
            }
            run_line(t, asm, &mut r);
            for l in 0..64 {
                let lo = want(&triples[l]);
                assert_eq!(
                    r.v[4][l] & 0xffff,
                    lo,
                    "{name} {asm}, lane {l}: {:04x?}",
                    triples[l]
                );
                if packed {
                    assert_eq!(
                        r.v[4][l] >> 16,
                        want(&triples[127 - l]),
                        "{name} {asm}, lane {l} high: {:04x?}",
                        triples[127 - l]
                    );
                }
            }
        }
    }
}

/// The lines the issue names: `v_pk_add_f32 v[2:3], v[0:1], 1.0` adds 1.0 to both halves
/// (an inline constant of a packed-f32 source is one f32 for both), and integer clamp
/// saturates `v_sub_u32` at 0 and `v_add_u32` at 0xffffffff (HIP's `__clzll(0)` path).
#[test]
fn issue_lines() {
    let t = target("gfx90a", true);
    let mut r = WaveRegs::new(t.gen);
    for l in 0..64 {
        r.v[0][l] = (l as f32).to_bits();
        r.v[1][l] = (-2.5f32 * l as f32).to_bits();
    }
    run_line(t, "v_pk_add_f32 v[2:3], v[0:1], 1.0", &mut r);
    for l in 0..64 {
        assert_eq!(f32::from_bits(r.v[2][l]), l as f32 + 1.0, "lane {l} low");
        assert_eq!(
            f32::from_bits(r.v[3][l]),
            -2.5 * l as f32 + 1.0,
            "lane {l} high"
        );
    }
    for t in [target("gfx900", true), target("gfx90a", true)] {
        let mut r = WaveRegs::new(t.gen);
        for l in 0..64 {
            r.v[0][l] = l as u32;
            r.v[1][l] = 40;
            r.v[4][l] = u32::MAX - 20;
        }
        run_line(t, "v_sub_u32_e64 v2, v0, v1 clamp", &mut r);
        run_line(t, "v_add_u32_e64 v3, v4, v0 clamp", &mut r);
        for l in 0..64 {
            assert_eq!(
                r.v[2][l],
                (l as u32).saturating_sub(40),
                "{} lane {l}",
                t.mcpu
            );
            assert_eq!(
                r.v[3][l],
                (u32::MAX - 20).saturating_add(l as u32),
                "{} lane {l}",
                t.mcpu
            );
        }
    }
}

/// `s_getpc_b64`: `D.u64 = PC + 4`, the address of the instruction after it (the CDNA and
/// RDNA ISA guides; kernels add an offset to it to reach their globals), at a block's start
/// and further into it. The code runs at address 0, so the values are the lines' offsets:
/// `s_getpc_b64` 4 bytes, `s_mov_b32` with an inline constant 4, `s_add_u32` with the
/// literal 0x1234 8. (Compiled regions hold it as a constant, checked against the
/// interpreter by `run_words`.)
#[test]
fn s_getpc_b64_is_the_next_instructions_address() {
    let lines = [
        "s_getpc_b64 s[4:5]",
        "s_mov_b32 s0, 1",
        "s_getpc_b64 s[28:29]",
        "s_add_u32 s28, s28, 0x1234",
        "s_addc_u32 s29, s29, 0",
        "s_getpc_b64 s[30:31]",
    ]
    .map(String::from);
    for t in [target("gfx90a", true), target("gfx1030", false)] {
        let words: Vec<u32> = assemble(t, &lines)
            .into_iter()
            .zip(&lines)
            .flat_map(|(w, l)| w.unwrap_or_else(|| panic!("llvm-mc rejects `{l}`")))
            .collect();
        assert_eq!(words.len(), 7, "{}: the lines' sizes", t.mcpu);
        let mut r = WaveRegs::new(t.gen);
        r.s[5] = 0xdead;
        r.s[29] = 0xbeef;
        run_words(t.gen, &words, &mut r).unwrap_or_else(|e| panic!("{}: {e:?}", t.mcpu));
        assert_eq!((r.s[4], r.s[5]), (4, 0), "{}: at 0", t.mcpu);
        assert_eq!((r.s[28], r.s[29]), (12 + 0x1234, 0), "{}: at 8", t.mcpu);
        assert_eq!((r.s[30], r.s[31]), (28, 0), "{}: at 24", t.mcpu);
        assert_eq!(r.s[0], 1, "{}", t.mcpu);
    }
}

/// The high half of a 16-bit result: zeroed on GFX8; on GFX9 kept by the opcodes that came
/// with op_sel (`v_mad_u16`, …) and zeroed by the others and by the `_legacy` forms; kept by
/// every 16-bit result on GFX10 (LLVM's `GCNSubtarget::zeroesHigh16BitsOfDest`).
#[test]
fn high_half_of_16_bit_results() {
    let cases: [(&str, bool, &str, bool); 8] = [
        ("gfx803", true, "v_add_u16_e32 v3, v0, v1", false),
        ("gfx803", true, "v_mad_u16 v3, v0, v1, v2", false),
        ("gfx900", true, "v_add_u16_e32 v3, v0, v1", false),
        ("gfx900", true, "v_mad_u16 v3, v0, v1, v2", true),
        ("gfx900", true, "v_mad_legacy_u16 v3, v0, v1, v2", false),
        ("gfx900", true, "v_mac_f16_e32 v3, v0, v1", true),
        ("gfx1030", false, "v_add_nc_u16 v3, v0, v1", true),
        ("gfx1030", true, "v_mul_f16_e32 v3, v0, v1", true),
    ];
    for (mcpu, wave64, asm, keeps) in cases {
        let t = target(mcpu, wave64);
        let mut r = WaveRegs::new(t.gen);
        for l in 0..64 {
            r.v[0][l] = 0x3c00;
            r.v[1][l] = 0x4000 + l as u32;
            r.v[2][l] = 1;
            r.v[3][l] = 0xabcd_0000;
        }
        run_line(t, asm, &mut r);
        let hi = r.v[3][0] >> 16;
        assert_eq!(hi, if keeps { 0xabcd } else { 0 }, "{asm} on {mcpu}");
    }
}

/// VOP1 SDWA source modifiers: `sext(…)` sign-extends the selected byte or word of an integer
/// source to 32 bits before the operation, and `-|…|` applies to a float source after the
/// selection (SDWA `SRC0_SEXT`, `SRC0_NEG`, `SRC0_ABS`). clang-15 converts a `signed char` read
/// as half of a 16-bit LDS load with `v_cvt_f32_i32_sdwa v, sext(v) … src0_sel:WORD_0`
/// (rocPRIM's block exchange of `signed char` to `float`): without the sign extension -128
/// becomes 65408.0.
#[test]
fn vop1_sdwa_source_modifiers() {
    let pad = "dst_sel:DWORD dst_unused:UNUSED_PAD";
    // (asm, expected result from the source dword)
    type Case = (String, fn(u32) -> u32);
    let cases: [Case; 5] = [
        (
            format!("v_cvt_f32_i32_sdwa v2, sext(v0) {pad} src0_sel:WORD_0"),
            |v| (v as u16 as i16 as f32).to_bits(),
        ),
        (
            format!("v_cvt_f32_i32_sdwa v2, v0 {pad} src0_sel:WORD_0"),
            |v| (v as u16 as f32).to_bits(),
        ),
        (
            format!("v_cvt_f32_i32_sdwa v2, sext(v0) {pad} src0_sel:BYTE_1"),
            |v| ((v >> 8) as u8 as i8 as f32).to_bits(),
        ),
        (
            format!("v_mov_b32_sdwa v2, sext(v0) {pad} src0_sel:BYTE_0"),
            |v| v as u8 as i8 as i32 as u32,
        ),
        // High halves 1.0 (0x3c00) and -2.0 (0xc000): -|x| is -1.0 and -2.0.
        (
            format!("v_cvt_f32_f16_sdwa v2, -|v0| {pad} src0_sel:WORD_1"),
            |v| {
                if v >> 16 == 0x3c00 {
                    0xbf80_0000
                } else {
                    0xc000_0000
                }
            },
        ),
    ];
    let mut ran = 0;
    for mcpu in ["gfx803", "gfx906", "gfx90a", "gfx1030"] {
        let t = target(mcpu, mcpu != "gfx1030");
        for (asm, want) in &cases {
            let Some(w) = assemble(t, std::slice::from_ref(asm)).pop().flatten() else {
                continue;
            };
            let mut r = WaveRegs::new(t.gen);
            for l in 0..64 {
                let hi = if l % 2 == 0 { 0x3c00 } else { 0xc000 };
                // Low words and bytes with the sign bit set and clear: 0xff80 (-128), …
                r.v[0][l] = hi << 16 | (0xff80u32.wrapping_add(l as u32 * 0x0473) & 0xffff);
                r.v[2][l] = 0xdead_beef;
            }
            run_words(t.gen, &w, &mut r).unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            for l in 0..t.lanes() {
                assert_eq!(
                    r.v[2][l],
                    want(r.v[0][l]),
                    "{asm} on {mcpu}, lane {l}, source {:#x}",
                    r.v[0][l]
                );
            }
            ran += 1;
        }
    }
    // Every line exists on every target (SDWA is GFX8–GFX10).
    assert_eq!(ran, 4 * cases.len());
}

// ---------------------------------------------------------------------------------------
// Carry-out adds and subtracts (VOP2 with VCC, VOP3b with an SGPR carry), `v_cndmask_b32`,
// `v_mad_u64_u32` / `v_mad_i64_i32`.

/// (GFX8 name, GFX9 name, GFX10 name, kind): 0 add, 1 sub, 2 subrev, 3 addc, 4 subb,
/// 5 subbrev.
const CARRY_KEYS: [(&str, &str, &str, u8); 6] = [
    ("v_add_u32", "v_add_co_u32", "v_add_co_u32", 0),
    ("v_sub_u32", "v_sub_co_u32", "v_sub_co_u32", 1),
    ("v_subrev_u32", "v_subrev_co_u32", "v_subrev_co_u32", 2),
    ("v_addc_u32", "v_addc_co_u32", "v_add_co_ci_u32", 3),
    ("v_subb_u32", "v_subb_co_u32", "v_sub_co_ci_u32", 4),
    ("v_subbrev_u32", "v_subbrev_co_u32", "v_subrev_co_ci_u32", 5),
];

/// The ISA's definition: the 32-bit result and the carry (add) or borrow (sub) out; with
/// clamp the result saturates instead of wrapping.
fn carry_ref(kind: u8, a: u64, b: u64, cin: u64, clamp: bool) -> (u64, bool) {
    let (v, out) = match kind {
        0 => (a + b, a + b > 0xffff_ffff),
        1 => (a.wrapping_sub(b), b > a),
        2 => (b.wrapping_sub(a), a > b),
        3 => (a + b + cin, a + b + cin > 0xffff_ffff),
        4 => (a.wrapping_sub(b + cin), b + cin > a),
        _ => (b.wrapping_sub(a + cin), a + cin > b),
    };
    let v = if clamp && out {
        if matches!(kind, 0 | 3) {
            0xffff_ffff
        } else {
            0
        }
    } else {
        v & 0xffff_ffff
    };
    (v, out)
}

#[test]
fn carries_cndmask_and_mad64_match_their_definitions() {
    const CIN: u64 = 0x5555_aaaa_3333_cccc;
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for t in &TARGETS {
        let vcc = if t.wave64 { "vcc" } else { "vcc_lo" };
        let (sd, sc) = if t.wave64 {
            ("s[10:11]", "s[12:13]")
        } else {
            ("s10", "s12")
        };
        let lanes_mask = if t.wave64 { u64::MAX } else { 0xffff_ffff };
        // (asm, key, kind, e64, clamp, src0 constant)
        let mut lines: Vec<(String, String, u8, bool, bool, Option<Src0>)> = Vec::new();
        for (g8, g9, g10, kind) in CARRY_KEYS {
            let name = if t.gfx8() {
                g8
            } else if t.gfx10() {
                g10
            } else {
                g9
            };
            let cin32 = if kind >= 3 {
                format!(", {vcc}")
            } else {
                String::new()
            };
            let cin64 = if kind >= 3 {
                format!(", {sc}")
            } else {
                String::new()
            };
            lines.push((
                format!("{name}_e32 v3, {vcc}, v0, v1{cin32}"),
                name.into(),
                kind,
                false,
                false,
                None,
            ));
            for c in [Src0::InlineInt, Src0::Literal, Src0::Sgpr] {
                let s0 = if c == Src0::Sgpr {
                    "s4".to_string()
                } else {
                    constant(c, U32).0
                };
                lines.push((
                    format!("{name}_e32 v3, {vcc}, {s0}, v1{cin32}"),
                    name.into(),
                    kind,
                    false,
                    false,
                    Some(c),
                ));
            }
            lines.push((
                format!("{name}_e64 v3, {sd}, v0, v1{cin64}"),
                name.into(),
                kind,
                true,
                false,
                None,
            ));
            lines.push((
                format!("{name}_e64 v3, {sd}, v0, v1{cin64} clamp"),
                name.into(),
                kind,
                true,
                true,
                None,
            ));
        }
        for (e64, asm) in [
            (false, format!("v_cndmask_b32_e32 v3, v0, v1, {vcc}")),
            (true, format!("v_cndmask_b32_e64 v3, v0, v1, {sc}")),
        ] {
            lines.push((asm, "v_cndmask_b32".into(), 10, e64, false, None));
        }
        for (name, kind) in [("v_mad_u64_u32", 20u8), ("v_mad_i64_i32", 21)] {
            lines.push((
                format!("{name} v[4:5], {sd}, v0, v1, v[14:15]"),
                name.into(),
                kind,
                true,
                false,
                None,
            ));
            lines.push((
                format!("{name} v[4:5], {sd}, v0, v1, v[14:15] clamp"),
                name.into(),
                kind,
                true,
                true,
                None,
            ));
        }
        let text: Vec<String> = lines.iter().map(|l| l.0.clone()).collect();
        let words = assemble(t, &text);
        for ((asm, name, kind, e64, clamp, c), w) in lines.iter().zip(words) {
            let Some(w) = w else { continue };
            covered.insert(name.clone());
            let mut r = WaveRegs::new(t.gen);
            r.set_exec(exec_mask(t));
            for l in 0..64 {
                r.v[0][l] = lane_value(U32, 0, l) as u32;
                r.v[1][l] = lane_value(U32, 1, l) as u32;
                let c64 = lane_value(U64, 2, l);
                r.v[14][l] = c64 as u32;
                r.v[15][l] = (c64 >> 32) as u32;
                r.v[3][l] = 0x5a5a_0000 | l as u32;
            }
            r.s[4] = 0x8000_0001;
            let cin = CIN & lanes_mask;
            for base in [WaveRegs::VCC, 12] {
                r.s[base] = cin as u32;
                r.s[base + 1] = if t.wave64 { (cin >> 32) as u32 } else { 0 };
            }
            r.s[10] = 0xdead_beef;
            r.s[11] = 0xdead_beef;
            let before = r.clone();
            let what = format!("{asm} [{}{}]", t.mcpu, if t.wave64 { "" } else { " w32" });
            if let Err(e) = run_words(t.gen, &w, &mut r) {
                failures.push(format!("{what}: fault {e:?}"));
                continue;
            }
            let mut mask = 0u64;
            for l in 0..t.lanes() {
                let active = exec_mask(t) >> l & 1 != 0;
                let a = match c {
                    None => lane_value(U32, 0, l),
                    Some(Src0::Sgpr) => 0x8000_0001,
                    Some(c) => constant(*c, U32).1,
                };
                let b = lane_value(U32, 1, l);
                let ci = cin >> l & 1;
                let (want, out, wide) = match kind {
                    10 => (if ci != 0 { b } else { a }, false, false),
                    20 | 21 => {
                        let acc = lane_value(U64, 2, l);
                        let (v, o) = if *kind == 20 {
                            let p = u128::from(a) * u128::from(b) + u128::from(acc);
                            let o = p >> 64 != 0;
                            (if o && *clamp { u64::MAX } else { p as u64 }, o)
                        } else {
                            let p = i128::from(a as u32 as i32) * i128::from(b as u32 as i32)
                                + i128::from(acc as i64);
                            let o = p != i128::from(p as i64);
                            let v = if *clamp {
                                p.clamp(i64::MIN.into(), i64::MAX.into()) as u64
                            } else {
                                p as u64
                            };
                            (v, o)
                        };
                        (v, o, true)
                    }
                    k => {
                        let (v, o) = carry_ref(*k, a, b, ci, *clamp);
                        (v, o, false)
                    }
                };
                let (got, old) = if wide {
                    (
                        u64::from(r.v[4][l]) | u64::from(r.v[5][l]) << 32,
                        u64::from(before.v[4][l]) | u64::from(before.v[5][l]) << 32,
                    )
                } else {
                    (u64::from(r.v[3][l]), u64::from(before.v[3][l]))
                };
                let want = if active { want } else { old };
                if got != want {
                    failures.push(format!("{what}: lane {l}: got {got:#x}, want {want:#x}"));
                    break;
                }
                if active && out {
                    mask |= 1 << l;
                }
            }
            if *kind != 10 {
                // The carry bits of active lanes (what inactive lanes' bits become is not
                // documented).
                let (lo, hi) = if *e64 {
                    (10, 11)
                } else {
                    (WaveRegs::VCC, WaveRegs::VCC + 1)
                };
                let got = u64::from(r.s[lo])
                    | if t.wave64 {
                        u64::from(r.s[hi]) << 32
                    } else {
                        0
                    };
                let got = got & exec_mask(t);
                if got != mask {
                    failures.push(format!("{what}: carry-out {got:#x}, want {mask:#x}"));
                }
            }
        }
    }
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failing lines", failures.len());
    for (g8, g9, g10, _) in CARRY_KEYS {
        for n in [g8, g9, g10] {
            assert!(covered.contains(n), "{n}: no line");
        }
    }
}

/// Opcodes added with the census whose operands do not fit the generated forms: M0-relative
/// moves, quad SADs (64/128-bit operands), `v_cvt_pkaccum_u8_f32` and `v_pk_fmac_f16`
/// (destination as accumulator), and the scalar M0-relative and no-op opcodes.
/// Every line [`new_opcodes_with_special_operands`] assembles, for one llvm-mc run per target
/// ([`prefetch`]); the test fails on a line missing here.
const SPECIAL_LINES: [&str; 19] = [
    "v_movrels_b32_e32 v3, v0",
    "v_movreld_b32_e32 v3, v0",
    "v_movrelsd_b32_e32 v3, v0",
    "v_movrelsd_2_b32_e32 v3, v0",
    "v_swaprel_b32 v3, v0",
    "v_qsad_pk_u16_u8 v[4:5], v[10:11], v1, v[12:13]",
    "v_mqsad_u32_u8 v[4:7], v[10:11], v1, v[12:15]",
    "v_mqsad_pk_u16_u8 v[4:5], v[10:11], v1, v[12:13]",
    "v_cvt_pkaccum_u8_f32_e64 v3, v0, v1",
    "v_pk_fmac_f16 v3, v0, v1",
    "s_movrels_b64 s[8:9], s[0:1]",
    "s_movreld_b64 s[8:9], s[0:1]",
    "s_movrelsd_2_b32 s8, s0",
    "s_version 0x1234",
    "s_wait_idle",
    "s_wakeup",
    "v_clrexcp",
    "v_pipeflush",
    "v_nop",
];

#[test]
fn new_opcodes_with_special_operands() {
    let mut covered = BTreeSet::new();
    let lanes = |r: &WaveRegs, v: usize| r.v[v];
    for t in &TARGETS {
        prefetch(t, &SPECIAL_LINES.map(String::from));
        let mut base = WaveRegs::new(t.gen);
        for l in 0..64 {
            for v in 0..16 {
                base.v[v][l] = (v as u32) << 24 | (l as u32) << 8 | 0x11;
            }
            base.v[0][l] = lane_value(U32, 0, l) as u32;
            base.v[1][l] = lane_value(U32, 1, l) as u32;
        }
        base.s[WaveRegs::M0] = 3 | 5 << 16;
        let attempt = |asm: &str, r: &mut WaveRegs| -> bool {
            assert!(SPECIAL_LINES.contains(&asm), "{asm}: not in SPECIAL_LINES");
            match assemble(t, &[asm.to_string()]).pop().flatten() {
                Some(w) => {
                    run_words(t.gen, &w, r).unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    true
                }
                None => false,
            }
        };
        // v_movrels: v3 = v[0 + M0]; v_movreld: v[3 + M0] = v0; v_movrelsd: v[3 + M0] =
        // v[0 + M0]; GFX10 v_movrelsd_2: v[3 + M0[25:16]] = v[0 + M0[9:0]]; v_swaprel swaps
        // them.
        for (asm, dst, src) in [
            ("v_movrels_b32_e32 v3, v0", 3, 3),
            ("v_movreld_b32_e32 v3, v0", 6, 0),
            ("v_movrelsd_b32_e32 v3, v0", 6, 3),
            ("v_movrelsd_2_b32_e32 v3, v0", 8, 3),
        ] {
            let mut r = base.clone();
            r.s[WaveRegs::M0] = if asm.contains("_2_") { 3 | 5 << 16 } else { 3 };
            if attempt(asm, &mut r) {
                let name = asm.split(' ').next().unwrap_or_default();
                covered.insert(name.trim_end_matches("_e32").to_string());
                assert_eq!(lanes(&r, dst), lanes(&base, src), "{asm} on {}", t.mcpu);
            }
        }
        let mut r = base.clone();
        if attempt("v_swaprel_b32 v3, v0", &mut r) {
            covered.insert("v_swaprel_b32".into());
            assert_eq!((r.v[8], r.v[3]), (base.v[3], base.v[8]), "v_swaprel_b32");
        }
        // Quad SADs: four windows of the eight bytes of S0 against the four of S1.
        let window_sad =
            |a: u64, b: u64, k: u32, masked: bool| sad8(a >> (8 * k) & 0xffff_ffff, b, masked);
        let mut r = base.clone();
        if attempt("v_qsad_pk_u16_u8 v[4:5], v[10:11], v1, v[12:13]", &mut r) {
            covered.insert("v_qsad_pk_u16_u8".into());
            for l in 0..t.lanes() {
                let a = u64::from(base.v[10][l]) | u64::from(base.v[11][l]) << 32;
                let c = u64::from(base.v[12][l]) | u64::from(base.v[13][l]) << 32;
                let want: u64 = (0..4)
                    .map(|k| {
                        ((window_sad(a, u64::from(base.v[1][l]), k, false)
                            + (c >> (16 * k) & 0xffff))
                            & 0xffff)
                            << (16 * k)
                    })
                    .sum();
                let got = u64::from(r.v[4][l]) | u64::from(r.v[5][l]) << 32;
                assert_eq!(got, want, "v_qsad_pk_u16_u8 lane {l} on {}", t.mcpu);
            }
        }
        let mut r = base.clone();
        if attempt("v_mqsad_u32_u8 v[4:7], v[10:11], v1, v[12:15]", &mut r) {
            covered.insert("v_mqsad_u32_u8".into());
            for l in 0..t.lanes() {
                let a = u64::from(base.v[10][l]) | u64::from(base.v[11][l]) << 32;
                for k in 0..4u32 {
                    let want = (window_sad(a, u64::from(base.v[1][l]), k, true)
                        + u64::from(base.v[12 + k as usize][l]))
                        & 0xffff_ffff;
                    assert_eq!(
                        u64::from(r.v[4 + k as usize][l]),
                        want,
                        "v_mqsad_u32_u8 lane {l} dword {k}"
                    );
                }
            }
        }
        let mut r = base.clone();
        if attempt("v_mqsad_pk_u16_u8 v[4:5], v[10:11], v1, v[12:13]", &mut r) {
            covered.insert("v_mqsad_pk_u16_u8".into());
            for l in 0..t.lanes() {
                let a = u64::from(base.v[10][l]) | u64::from(base.v[11][l]) << 32;
                let c = u64::from(base.v[12][l]) | u64::from(base.v[13][l]) << 32;
                let want: u64 = (0..4)
                    .map(|k| {
                        ((window_sad(a, u64::from(base.v[1][l]), k, true)
                            + (c >> (16 * k) & 0xffff))
                            & 0xffff)
                            << (16 * k)
                    })
                    .sum();
                let got = u64::from(r.v[4][l]) | u64::from(r.v[5][l]) << 32;
                assert_eq!(got, want, "v_mqsad_pk_u16_u8 lane {l}");
            }
        }
        // v_cvt_pkaccum_u8_f32: byte S1[1:0] of the destination becomes u8(S0).
        let mut r = base.clone();
        for l in 0..64 {
            r.v[0][l] = (l as f32 * 4.6 - 20.0).to_bits();
            r.v[1][l] = l as u32;
        }
        let before = r.clone();
        if attempt("v_cvt_pkaccum_u8_f32_e64 v3, v0, v1", &mut r) {
            covered.insert("v_cvt_pkaccum_u8_f32".into());
            for l in 0..t.lanes() {
                let sh = 8 * (l as u32 & 3);
                let x = f32::from_bits(before.v[0][l]);
                let byte = x.clamp(0.0, 255.0).round_ties_even() as u32;
                let want = before.v[3][l] & !(0xff << sh) | byte << sh;
                assert_eq!(r.v[3][l], want, "v_cvt_pkaccum_u8_f32 lane {l}");
            }
        }
        // v_pk_fmac_f16: both halves D.h = S0.h * S1.h + D.h.
        let mut r = base.clone();
        for l in 0..64 {
            r.v[0][l] = (lane_value(F16, 0, l) & 0xffff | lane_value(F16, 2, l) << 16) as u32;
            r.v[1][l] = (lane_value(F16, 1, l) & 0xffff | lane_value(F16, 0, l + 1) << 16) as u32;
            r.v[3][l] = (lane_value(F16, 2, l) & 0xffff | 0x3c00 << 16) as u32;
        }
        let before = r.clone();
        if attempt("v_pk_fmac_f16 v3, v0, v1", &mut r) {
            covered.insert("v_pk_fmac_f16".into());
            for l in 0..t.lanes() {
                for k in [0u32, 16] {
                    let x = |v: u32| f64::from(h(u64::from(v >> k & 0xffff)));
                    let want = hbd(x(before.v[0][l]) * x(before.v[1][l]) + x(before.v[3][l]));
                    let got = u64::from(r.v[3][l] >> k & 0xffff);
                    assert!(
                        got == want || (is_nan(F16, got) && is_nan(F16, want)),
                        "v_pk_fmac_f16 lane {l} half {k}: {got:#x} vs {want:#x}"
                    );
                }
            }
        }
        // Scalar: s_movrels_b64 s[8:9] = s[0 + M0 : 1 + M0]; s_movreld_b64 s[8 + M0 …] = s[0:1];
        // GFX10 s_movrelsd_2_b32 s[8 + M0[25:16]] = s[0 + M0[9:0]]; s_version, s_wait_idle and
        // s_wakeup change nothing.
        let mut sbase = base.clone();
        for k in 0..32 {
            sbase.s[k] = 0x1000 + k as u32;
        }
        sbase.s[WaveRegs::M0] = 2;
        for (asm, check) in [
            (
                "s_movrels_b64 s[8:9], s[0:1]",
                [(8usize, 0x1002u32), (9, 0x1003)],
            ),
            ("s_movreld_b64 s[8:9], s[0:1]", [(10, 0x1000), (11, 0x1001)]),
        ] {
            let mut r = sbase.clone();
            if attempt(asm, &mut r) {
                covered.insert(asm.split(' ').next().unwrap_or_default().to_string());
                for (k, v) in check {
                    assert_eq!(r.s[k], v, "{asm} s{k}");
                }
            }
        }
        let mut r = sbase.clone();
        r.s[WaveRegs::M0] = 2 | 4 << 16;
        if attempt("s_movrelsd_2_b32 s8, s0", &mut r) {
            covered.insert("s_movrelsd_2_b32".into());
            assert_eq!(r.s[12], 0x1002);
        }
        for asm in [
            "s_version 0x1234",
            "s_wait_idle",
            "s_wakeup",
            "v_clrexcp",
            "v_pipeflush",
            "v_nop",
        ] {
            let mut r = sbase.clone();
            if attempt(asm, &mut r) {
                covered.insert(asm.split(' ').next().unwrap_or_default().to_string());
                assert_eq!(r, sbase, "{asm} changed registers");
            }
        }
    }
    for n in [
        "v_movrels_b32",
        "v_movreld_b32",
        "v_movrelsd_b32",
        "v_movrelsd_2_b32",
        "v_swaprel_b32",
        "v_qsad_pk_u16_u8",
        "v_mqsad_u32_u8",
        "v_mqsad_pk_u16_u8",
        "v_cvt_pkaccum_u8_f32",
        "v_pk_fmac_f16",
        "s_movrels_b64",
        "s_movreld_b64",
        "s_movrelsd_2_b32",
        "s_version",
        "s_wait_idle",
        "s_wakeup",
        "v_clrexcp",
        "v_pipeflush",
        "v_nop",
    ] {
        assert!(covered.contains(n), "{n}: no line assembles ({covered:?})");
    }
}

/// VGPR index mode (GFX8/9; clang-15 indexes a VGPR array this way on gfx906 and gfx90a):
/// between `s_set_gpr_idx_on` and `s_set_gpr_idx_off`, M0[7:0] is added to the VGPR operands
/// M0[15:12] names; `s_set_gpr_idx_mode` and `s_set_gpr_idx_idx` change those fields only
/// (the ISA's S_SET_GPR_IDX_* definitions).
#[test]
fn vgpr_index_mode() {
    let lines = [
        "s_set_gpr_idx_on s0, gpr_idx(SRC0)", // M0 = 0xabcd_1f03
        "v_mov_b32 v1, v2",                   // v1 = v5
        "s_set_gpr_idx_mode gpr_idx(DST)",    // M0[15:12] = 8
        "v_mov_b32 v2, v3",                   // v5 = v3
        "s_set_gpr_idx_idx s1",               // M0[7:0] = 6
        "v_or_b32 v2, v1, v3",                // v8 = v1 | v3
        "s_set_gpr_idx_off",
        "v_mov_b32 v6, v5", // direct again
    ]
    .map(String::from);
    for mcpu in ["gfx803", "gfx900", "gfx906", "gfx90a"] {
        let t = target(mcpu, true);
        let words: Vec<u32> = assemble(t, &lines)
            .into_iter()
            .zip(&lines)
            .flat_map(|(w, l)| w.unwrap_or_else(|| panic!("{mcpu}: llvm-mc rejects `{l}`")))
            .collect();
        let mut r = WaveRegs::new(t.gen);
        for (v, row) in r.v.iter_mut().enumerate().take(16) {
            for (l, x) in row.iter_mut().enumerate() {
                *x = (100 * v + l) as u32;
            }
        }
        let old = r.clone();
        r.s[0] = 0x103; // only bits 7:0 are the index
        r.s[1] = 6;
        r.s[WaveRegs::M0] = 0xabcd_0f00;
        run_words(t.gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}: {e:?}"));
        let lane = |v: usize| -> Vec<u32> { (0..64).map(|l| (100 * v + l) as u32).collect() };
        let v5: Vec<u32> = lane(3);
        let v1: Vec<u32> = lane(5);
        let v8: Vec<u32> = v1.iter().zip(lane(3)).map(|(a, b)| a | b).collect();
        assert_eq!(r.v[1].to_vec(), v1, "{mcpu}: v1");
        assert_eq!(r.v[5].to_vec(), v5, "{mcpu}: v5");
        assert_eq!(r.v[6].to_vec(), v5, "{mcpu}: v6");
        assert_eq!(r.v[8].to_vec(), v8, "{mcpu}: v8");
        for v in [0, 2, 3, 4, 7, 9] {
            assert_eq!(r.v[v], old.v[v], "{mcpu}: v{v} changed");
        }
        assert_eq!(r.s[WaveRegs::M0], 0xabcd_8f06, "{mcpu}: M0");
        assert_eq!(r.mode, WaveRegs::DEFAULT_MODE, "{mcpu}: MODE");
    }
}

/// Two NaN operands give src0's NaN, quieted; one gives that one, quieted. IEEE 754 leaves
/// the choice between two NaNs open (so does Rust: LLVM may swap a commutative operation's
/// operands); this is the choice x86 and the compiling tier make, fixed for every operation
/// the interpreter computes with the host's `+` and `*`, so results do not depend on how
/// hsaemu was compiled. The products and sums of `v_mad_*` take the first NaN of their
/// three operands.
#[test]
fn two_nan_operands_give_the_first_ones() {
    // Distinct payloads: quiet and signalling NaNs, either sign.
    const A32: u32 = 0x7fc0_1234;
    const B32: u32 = 0xff80_0042;
    const A64: u64 = 0x7ff0_0000_0000_1234;
    const B64: u64 = 0xfff8_0000_0000_0042;
    const A16: u32 = 0x7e12;
    const B16: u32 = 0xfc42;
    let t = target("gfx90a", true);
    let one32 = 1.0f32.to_bits();
    let one16 = 0x3c00;
    // (line, src0, src1, src2 or None, expected): one lane each way round and one with a
    // single NaN; sources in v0, v1, v2 (64-bit ones in v[0:1], v[2:3]).
    let cases32: [(&str, [u32; 3], u32); 9] = [
        (
            "v_fma_f32 v4, v0, v1, v2",
            [B32, A32, one32],
            B32 | 0x0040_0000,
        ),
        (
            "v_fma_f32 v4, v0, v1, v2",
            [one32, A32, B32],
            A32 | 0x0040_0000,
        ),
        (
            "v_fma_f32 v4, v0, v1, v2",
            [one32, one32, B32],
            B32 | 0x0040_0000,
        ),
        ("v_add_f32_e32 v4, v0, v1", [A32, B32, 0], A32 | 0x0040_0000),
        ("v_add_f32_e32 v4, v0, v1", [B32, A32, 0], B32 | 0x0040_0000),
        (
            "v_mul_f32_e32 v4, v0, v1",
            [one32, B32, 0],
            B32 | 0x0040_0000,
        ),
        (
            "v_mul_legacy_f32 v4, v0, v1",
            [B32, A32, 0],
            B32 | 0x0040_0000,
        ),
        (
            "v_mad_f32 v4, v0, v1, v2",
            [one32, B32, A32],
            B32 | 0x0040_0000,
        ),
        (
            "v_mad_f32 v4, v0, v1, v2",
            [one32, one32, A32],
            A32 | 0x0040_0000,
        ),
    ];
    let cases16: [(&str, [u32; 3], u32); 8] = [
        ("v_add_f16_e32 v4, v0, v1", [A16, B16, 0], A16 | 0x0200),
        ("v_mul_f16_e32 v4, v0, v1", [B16, A16, 0], B16 | 0x0200),
        ("v_mad_f16 v4, v0, v1, v2", [one16, B16, A16], B16 | 0x0200),
        ("v_mad_f16 v4, v0, v1, v2", [A16, one16, B16], A16 | 0x0200),
        ("v_fma_f16 v4, v0, v1, v2", [B16, A16, one16], B16 | 0x0200),
        ("v_fma_f16 v4, v0, v1, v2", [one16, A16, B16], A16 | 0x0200),
        (
            "v_fma_f16 v4, v0, v1, v2",
            [one16, one16, B16],
            B16 | 0x0200,
        ),
        (
            "v_pk_fma_f16 v4, v0, v1, v2",
            [B16, A16, one16],
            B16 | 0x0200,
        ),
    ];
    for (asm, src, want) in cases32.iter().chain(&cases16) {
        let mut r = WaveRegs::new(t.gen);
        for l in 0..64 {
            r.v[0][l] = src[0];
            r.v[1][l] = src[1];
            r.v[2][l] = src[2];
        }
        run_line(t, asm, &mut r);
        assert_eq!(r.v[4][0], *want, "{asm} of {src:x?}");
        assert_eq!(r.v[4][63], *want, "{asm} of {src:x?}, lane 63");
    }
    for (asm, a, b) in [
        ("v_add_f64 v[4:5], v[0:1], v[2:3]", A64, B64),
        ("v_add_f64 v[4:5], v[0:1], v[2:3]", B64, A64),
        ("v_mul_f64 v[4:5], v[0:1], v[2:3]", A64, B64),
        ("v_mul_f64 v[4:5], v[0:1], v[2:3]", B64, A64),
        ("v_fma_f64 v[4:5], v[0:1], v[2:3], v[2:3]", A64, B64),
        ("v_fma_f64 v[4:5], v[0:1], v[2:3], v[2:3]", B64, A64),
    ] {
        let mut r = WaveRegs::new(t.gen);
        for l in 0..64 {
            (r.v[0][l], r.v[1][l]) = (a as u32, (a >> 32) as u32);
            (r.v[2][l], r.v[3][l]) = (b as u32, (b >> 32) as u32);
        }
        run_line(t, asm, &mut r);
        for l in [0, 63] {
            let got = u64::from(r.v[4][l]) | u64::from(r.v[5][l]) << 32;
            assert_eq!(
                got,
                a | 0x0008_0000_0000_0000,
                "{asm} of {a:x}, {b:x}, lane {l}"
            );
        }
    }
}
