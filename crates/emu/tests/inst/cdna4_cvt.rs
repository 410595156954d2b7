//! Per-instruction tests of gfx950's scaled conversions (`v_cvt_scalef32_*`), of
//! `v_cvt_sr_f16_f32`/`v_cvt_sr_bf16_f32` and of the LDS transpose loads (a module of
//! `tests/inst.rs`; lines assembled by llvm-mc-22). Expected values come from the definitions
//! written here, never from the emulator:
//!
//! - element formats by their OCP definitions (E4M3: bias 7, S.1111.111 NaN; E5M2: bias 15,
//!   IEEE infinities/NaNs; E2M3 and E2M1: bias 1, E3M2: bias 3, no infinity or NaN), values
//!   enumerated from sign/exponent/mantissa;
//! - the scale: the exponent field of the f32 operand as E8M0, 2^(e − 127), 0xFF NaN;
//!   conversions to a small format divide by it, from one multiply (OCP MX spec §6.3);
//! - to a small format: nearest of the two neighbouring representable values (ties to the
//!   even pattern), or stochastically: round up iff ⌊(|y| − lo)/(hi − lo) · 2^d⌋ plus the
//!   seed's top d bits reaches 2^d (d = 23 − mantissa bits); at or beyond the largest finite
//!   value and for ±∞ the signed largest value; NaN stays NaN (FP8) or becomes the signed
//!   largest value (FP6/FP4);
//! - from a small format: value × scale rounded once to f32/f16/bf16 (IEEE, via `as`/`half`);
//! - op_sel placement as LLVM encodes the intrinsics' selectors; the rest of D is kept;
//! - the transpose loads' lane map (see [`transpose_loads`]).
//!
//! Lanes 5 and 37 are inactive and must keep D.

use super::mem::{mix, rd32, words, wr};
use super::{Gen, Target};
use half::{bf16, f16};
use hsaemu_emu::{run_words, run_words_mem, WaveRegs};

const GFX950: Target = Target {
    mcpu: "gfx950",
    wave64: true,
    gen: Gen::Gfx950,
};

const INACTIVE: [usize; 2] = [5, 37];

fn active(l: usize) -> bool {
    !INACTIVE.contains(&l)
}

fn exec_mask() -> u64 {
    INACTIVE.iter().fold(u64::MAX, |m, l| m & !(1u64 << l))
}

/// Registers with v0–v79 scrambled and lanes 5 and 37 off.
fn regs() -> WaveRegs {
    let mut r = WaveRegs::new(Gen::Gfx950);
    for (v, row) in r.v.iter_mut().enumerate().take(80) {
        for (l, x) in row.iter_mut().enumerate() {
            *x = mix((v * 64 + l) as u64 + 0x1234) as u32;
        }
    }
    r.set_exec(exec_mask());
    r
}

fn program(lines: &[&str]) -> Vec<u32> {
    let lines: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    words(&GFX950, &lines).unwrap_or_else(|| panic!("llvm-mc-22 rejects {lines:?}"))
}

fn run(w: &[u32], r: &mut WaveRegs, what: &str) {
    run_words(Gen::Gfx950, w, r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
}

// ---------------------------------------------------------------------------------------
// Formats by definition.

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    E4M3,
    E5M2,
    E2M3,
    E3M2,
    E2M1,
}

impl Fmt {
    /// Exponent bits, mantissa bits, bias.
    fn layout(self) -> (u32, u32, i32) {
        match self {
            Fmt::E4M3 => (4, 3, 7),
            Fmt::E5M2 => (5, 2, 15),
            Fmt::E2M3 => (2, 3, 1),
            Fmt::E3M2 => (3, 2, 3),
            Fmt::E2M1 => (2, 1, 1),
        }
    }

    fn bits(self) -> u32 {
        let (e, m, _) = self.layout();
        1 + e + m
    }

    fn man(self) -> u32 {
        self.layout().1
    }

    fn has_nan(self) -> bool {
        matches!(self, Fmt::E4M3 | Fmt::E5M2)
    }

    /// The value of a pattern; `None` for NaN.
    fn value(self, c: u32) -> Option<f64> {
        let (eb, mb, bias) = self.layout();
        let neg = c >> (eb + mb) & 1 != 0;
        let e = c >> mb & ((1 << eb) - 1);
        let m = c & ((1 << mb) - 1);
        let top = (1 << eb) - 1;
        let mag = match self {
            Fmt::E4M3 if e == top && m == 7 => return None,
            Fmt::E5M2 if e == top && m != 0 => return None,
            Fmt::E5M2 if e == top => f64::INFINITY,
            _ if e == 0 => f64::from(m) * 2f64.powi(1 - bias - mb as i32),
            _ => (1.0 + f64::from(m) / f64::from(1u32 << mb)) * 2f64.powi(e as i32 - bias),
        };
        Some(if neg { -mag } else { mag })
    }

    /// The finite non-negative values with their patterns, ascending.
    fn ladder(self) -> Vec<(f64, u32)> {
        (0..1u32 << (self.bits() - 1))
            .filter_map(|c| self.value(c).filter(|v| v.is_finite()).map(|v| (v, c)))
            .collect()
    }

    fn is_nan(self, c: u32) -> bool {
        self.value(c).is_none()
    }
}

/// The power of two a scale operand stands for (NaN for exponent 0xFF).
fn scale_of(bits: u32) -> f64 {
    match bits >> 23 & 0xff {
        0xff => f64::NAN,
        e => 2f64.powi(e as i32 - 127),
    }
}

/// Scale operands: powers of two, non-powers (only the exponent counts), a negative one (the
/// sign is not read), the extremes of E8M0 and NaN scales.
const SCALES: [u32; 12] = [
    0x3f80_0000, // 1
    0x4000_0000, // 2
    0x3e80_0000, // 0.25
    0x4040_0000, // 3 (exponent of 2)
    0xbf80_0000, // -1
    0x3fff_ffff, // 1.999… (exponent of 1)
    0x4b00_0000, // 2^23
    0x3400_0000, // 2^-23
    0x7f00_0000, // 2^127
    0x0000_0000, // exponent 0: 2^-127
    0x7f80_0000, // infinity: exponent 0xFF, NaN
    0x7fc0_0001, // NaN
];

/// What a result field must hold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum W {
    Bits(u32),
    NanF32,
    NanF16,
    NanBf16,
    NanSmall(Fmt),
}

impl W {
    fn matches(self, got: u32) -> bool {
        match self {
            W::Bits(b) => got == b,
            W::NanF32 => f32::from_bits(got).is_nan(),
            W::NanF16 => f16::from_bits(got as u16).is_nan(),
            W::NanBf16 => bf16::from_bits(got as u16).is_nan(),
            W::NanSmall(f) => f.is_nan(got),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Wide {
    F32,
    F16,
    Bf16,
}

/// An exact value rounded to nearest even in a wide format.
fn wide(v: f64, t: Wide) -> W {
    match t {
        Wide::F32 if v.is_nan() => W::NanF32,
        Wide::F16 if v.is_nan() => W::NanF16,
        Wide::Bf16 if v.is_nan() => W::NanBf16,
        Wide::F32 => W::Bits((v as f32).to_bits()),
        Wide::F16 => W::Bits(u32::from(f16::from_f64(v).to_bits())),
        Wide::Bf16 => W::Bits(u32::from(bf16::from_f64(v).to_bits())),
    }
}

/// `y` in a small format (module docs); `seed` for stochastic rounding.
fn quantize(f: Fmt, y: f64, seed: Option<u32>) -> W {
    let sign = if y.is_sign_negative() {
        1 << (f.bits() - 1)
    } else {
        0
    };
    let lad = f.ladder();
    let (max, maxc) = *lad.last().expect("values");
    if y.is_nan() {
        return if f.has_nan() {
            W::NanSmall(f)
        } else {
            W::Bits(sign | maxc)
        };
    }
    let a = y.abs();
    if a >= max {
        return W::Bits(sign | maxc);
    }
    let k = lad.iter().rposition(|(v, _)| *v <= a).expect("ladder");
    let ((lo, loc), (hi, hic)) = (lad[k], lad[k + 1]);
    let up = match seed {
        None => {
            let (dl, dh) = (a - lo, hi - a);
            dh < dl || (dh == dl && hic % 2 == 0)
        }
        Some(s) => {
            let d = 23 - f.man();
            let t = ((a - lo) / (hi - lo) * 2f64.powi(d as i32)).floor();
            t + f64::from(s >> (9 + f.man())) >= 2f64.powi(d as i32)
        }
    };
    W::Bits(sign | if up { hic } else { loc })
}

/// A source operand type of a conversion to a small format.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SrcTy {
    F32,
    F16,
    Bf16,
}

impl SrcTy {
    /// The bits of `x` when it is exactly representable.
    fn bits(self, x: f64) -> Option<u32> {
        let b = match self {
            SrcTy::F32 => (x as f32).to_bits(),
            SrcTy::F16 => u32::from(f16::from_f64(x).to_bits()),
            SrcTy::Bf16 => u32::from(bf16::from_f64(x).to_bits()),
        };
        let back = self.value(b);
        (back == x && back.is_sign_negative() == x.is_sign_negative() || x.is_nan()).then_some(b)
    }

    fn value(self, b: u32) -> f64 {
        match self {
            SrcTy::F32 => f64::from(f32::from_bits(b)),
            SrcTy::F16 => f16::from_bits(b as u16).to_f64(),
            SrcTy::Bf16 => bf16::from_bits(b as u16).to_f64(),
        }
    }
}

/// One element of a conversion to a small format: the source value's bits, the scale operand
/// and the seed.
#[derive(Clone, Copy, Debug)]
struct Case {
    x: u32,
    scale: u32,
    seed: u32,
}

/// Source values for conversions to `f` from `ty`: every representable value of `f`, the
/// midpoints between neighbours and points a quarter step either side of them, values at
/// and beyond the largest, ±∞, NaN, zeros and values below the smallest subnormal, both
/// signs, each times several scales (the conversion divides by the scale); only values exact
/// in `ty`. Then NaN scales.
fn cases(f: Fmt, ty: SrcTy) -> Vec<Case> {
    let lad = f.ladder();
    let mut mags: Vec<f64> = Vec::new();
    for w in lad.windows(2) {
        let (lo, hi) = (w[0].0, w[1].0);
        let step = hi - lo;
        mags.extend([lo, lo + step / 4.0, lo + step / 2.0, lo + 3.0 * step / 4.0]);
    }
    let max = lad.last().expect("max").0;
    let top_step = max - lad[lad.len() - 2].0;
    mags.extend([
        max,
        max + top_step / 2.0,
        max + top_step,
        max * 4.0,
        f64::INFINITY,
        f64::NAN,
        lad[1].0 / 4.0,
        lad[1].0 / 2.0,
        lad[1].0 * 0.75,
    ]);
    let scales: &[u32] = match ty {
        SrcTy::F16 => &[0x3f80_0000, 0x4000_0000, 0x3e00_0000, 0x4040_0000],
        _ => &SCALES[..10],
    };
    let mut out = Vec::new();
    for (k, &m) in mags.iter().enumerate() {
        for (j, &sc) in scales.iter().enumerate() {
            for neg in [false, true] {
                let x = if neg { -m } else { m } * scale_of(sc);
                if let Some(x) = ty.bits(x) {
                    let seed = mix((k * 131 + j * 7 + usize::from(neg)) as u64) as u32;
                    out.push(Case { x, scale: sc, seed });
                }
            }
        }
    }
    // A NaN scale: the signed maximum (FP6/FP4) or NaN (FP8).
    for (k, &sc) in SCALES[10..].iter().enumerate() {
        for v in [1.0, -1.0, 0.0] {
            let x = ty.bits(v).expect("small value");
            out.push(Case {
                x,
                scale: sc,
                seed: k as u32,
            });
        }
    }
    out
}

/// The expected small pattern of a case.
fn want_small(f: Fmt, ty: SrcTy, c: &Case, sr: bool) -> W {
    let x = ty.value(c.x);
    let s = scale_of(c.scale);
    let y = if x.is_nan() || s.is_nan() {
        f64::NAN.copysign(x)
    } else {
        x / s
    };
    quantize(f, y, sr.then_some(c.seed))
}

/// The expected pattern of element `k` of a lane whose operands are `c`: one scale and seed
/// per lane, the first case's.
fn want_elem(f: Fmt, ty: SrcTy, c: &[Case], k: usize, sr: bool) -> W {
    let ck = Case {
        scale: c[0].scale,
        seed: c[0].seed,
        ..c[k]
    };
    want_small(f, ty, &ck, sr)
}

/// A field of a D register: register offset, bit shift, width, content.
struct Field {
    reg: usize,
    shift: u32,
    width: u32,
    want: W,
}

/// Checks D (registers `dst..`) of every lane against `fields(lane)`: each field as wanted,
/// every other bit as before; inactive lanes unchanged.
fn check(
    what: &str,
    before: &WaveRegs,
    after: &WaveRegs,
    dst: usize,
    regs: usize,
    fields: &dyn Fn(usize) -> Vec<Field>,
) {
    for l in 0..64 {
        if !active(l) {
            for n in 0..regs {
                assert_eq!(
                    after.v[dst + n][l],
                    before.v[dst + n][l],
                    "{what}: lane {l}"
                );
            }
            continue;
        }
        let mut masks = vec![0u32; regs];
        for fl in fields(l) {
            let m = ((1u64 << fl.width) - 1) as u32;
            masks[fl.reg] |= m << fl.shift;
            let got = after.v[dst + fl.reg][l] >> fl.shift & m;
            assert!(
                fl.want.matches(got),
                "{what}: lane {l} v{} bits {}+{}: got {got:#x}, want {:?}",
                dst + fl.reg,
                fl.shift,
                fl.width,
                fl.want
            );
        }
        for (n, m) in masks.iter().enumerate() {
            assert_eq!(
                after.v[dst + n][l] & !m,
                before.v[dst + n][l] & !m,
                "{what}: lane {l} v{}: bits outside the result changed",
                dst + n
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// From the small formats.

/// Lane l's scale operand: 1.0, or (`scaled`) one of [`SCALES`].
fn lane_scale(scaled: bool, l: usize) -> u32 {
    if scaled {
        SCALES[l % SCALES.len()]
    } else {
        0x3f80_0000
    }
}

/// fp8/bf8 and fp4 to f32, f16 and bf16 on every code in every byte (op_sel), with scale 1 and
/// with the scale list.
#[test]
fn scaled_conversions_from_fp8_bf8_fp4_on_every_code() {
    // Lane l's source word holds bytes 4l..4l+3: all 256 bytes, each byte position covering a
    // quarter of them; the four op_sel byte selections cover every code.
    let word = |l: usize| (0..4).fold(0u32, |w, k| w | ((4 * l + k) as u32 & 0xff) << (8 * k));
    let mut ran = 0;
    for scaled in [false, true] {
        let scale = |l: usize| lane_scale(scaled, l);
        for (fp8, f) in [("fp8", Fmt::E4M3), ("bf8", Fmt::E5M2)] {
            let val = |b: u32, l: usize| f.value(b).map_or(f64::NAN, |v| v * scale_of(scale(l)));
            for byte in 0..4u32 {
                let (b0, b1) = (byte & 1, byte >> 1);
                // One byte to f32, and to the f16 half op_sel[3] of D.
                for hi in [0u32, 1] {
                    let lines = [
                        format!("v_cvt_scalef32_f32_{fp8} v4, v1, v2 op_sel:[{b0},{b1},0]"),
                        format!("v_cvt_scalef32_f16_{fp8} v5, v1, v2 op_sel:[{b0},{b1},{hi}]"),
                    ];
                    let (before, after) = run_lines(&lines, &|r, l| {
                        r.v[1][l] = word(l);
                        r.v[2][l] = scale(l);
                    });
                    let b = |l: usize| word(l) >> (8 * byte) & 0xff;
                    check(&lines[0], &before, &after, 4, 1, &|l| {
                        vec![field(0, 0, 32, wide(val(b(l), l), Wide::F32))]
                    });
                    check(&lines[1], &before, &after, 5, 1, &|l| {
                        vec![field(0, 16 * hi, 16, wide(val(b(l), l), Wide::F16))]
                    });
                    ran += 2;
                }
            }
            // Two bytes (the word op_sel[0]) to two f32, f16 or bf16.
            for wsel in 0..2u32 {
                let op = |d: &str| format!("v_cvt_scalef32_pk_{d}_{fp8}");
                let at = |l: usize, k: u32| word(l) >> (16 * wsel + 8 * k) & 0xff;
                ran += pairs_to_wide(
                    &op,
                    &format!("op_sel:[{wsel},0,0]"),
                    &word,
                    &scale,
                    &|l, k| val(at(l, k), l),
                );
            }
        }
        // FP4: the byte op_sel[1:0], low nibble first.
        let f = Fmt::E2M1;
        let val = |n: u32, l: usize| f.value(n).expect("fp4") * scale_of(scale(l));
        for byte in 0..4u32 {
            let op = |d: &str| format!("v_cvt_scalef32_pk_{d}_fp4");
            let sel = format!("op_sel:[{},{},0]", byte & 1, byte >> 1);
            let nib = |l: usize, k: u32| word(l) >> (8 * byte + 4 * k) & 0xf;
            ran += pairs_to_wide(&op, &sel, &word, &scale, &|l, k| val(nib(l, k), l));
        }
    }
    assert_eq!(ran, 2 * (2 * (16 + 6) + 12));
}

/// Runs the `pk` conversions of two small elements to two f32 (v[6:7]), f16 (v8) and bf16
/// (v9), source word in v1 and scale in v2, and checks them against `val(lane, element)`
/// (the exact scaled value). The number of lines checked.
fn pairs_to_wide(
    op: &dyn Fn(&str) -> String,
    sel: &str,
    word: &dyn Fn(usize) -> u32,
    scale: &dyn Fn(usize) -> u32,
    val: &dyn Fn(usize, u32) -> f64,
) -> usize {
    let lines = [
        format!("{} v[6:7], v1, v2 {sel}", op("f32")),
        format!("{} v8, v1, v2 {sel}", op("f16")),
        format!("{} v9, v1, v2 {sel}", op("bf16")),
    ];
    let (before, after) = run_lines(&lines, &|r, l| {
        r.v[1][l] = word(l);
        r.v[2][l] = scale(l);
    });
    check(&lines[0], &before, &after, 6, 2, &|l| {
        (0..2)
            .map(|k| field(k as usize, 0, 32, wide(val(l, k), Wide::F32)))
            .collect()
    });
    for (n, t) in [(8, Wide::F16), (9, Wide::Bf16)] {
        check(&lines[n - 7], &before, &after, n, 1, &|l| {
            (0..2)
                .map(|k| field(0, 16 * k, 16, wide(val(l, k), t)))
                .collect()
        });
    }
    3
}

fn field(reg: usize, shift: u32, width: u32, want: W) -> Field {
    Field {
        reg,
        shift,
        width,
        want,
    }
}

/// Runs `lines` from scrambled registers set up per lane by `set`; the registers before and
/// after.
fn run_lines(lines: &[String], set: &dyn Fn(&mut WaveRegs, usize)) -> (WaveRegs, WaveRegs) {
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let w = program(&refs);
    let mut r = regs();
    for l in 0..64 {
        set(&mut r, l);
    }
    let before = r.clone();
    run(&w, &mut r, &lines.join("; "));
    (before, r)
}

/// 32 FP6/BF6 elements to 32 f32, f16 or bf16: every code (lane l's element e is code
/// `(l + 5e) mod 64`, so every code meets every position), with scale 1 and the scale list.
#[test]
fn scaled_conversions_from_fp6_bf6_on_every_code() {
    let code = |l: usize, e: usize| ((l + 5 * e) % 64) as u64;
    for scaled in [false, true] {
        let scale = |l: usize| lane_scale(scaled, l);
        for (name, f) in [("fp6", Fmt::E2M3), ("bf6", Fmt::E3M2)] {
            let lines = [
                format!("v_cvt_scalef32_pk32_f32_{name} v[16:47], v[64:69], v2"),
                format!("v_cvt_scalef32_pk32_f16_{name} v[48:63], v[64:69], v2"),
                format!("v_cvt_scalef32_pk32_bf16_{name} v[0:15], v[64:69], v2"),
            ];
            // Scale in v2 but v[0:15] is a destination: keep v2 out of it by writing bf16 last
            // (the scale is read before D is written).
            let (before, after) = run_lines(&lines, &|r, l| {
                let mut bits = [0u64; 4];
                for e in 0..32 {
                    let at = 6 * e;
                    bits[at / 64] |= code(l, e) << (at % 64);
                    if at % 64 > 58 {
                        bits[at / 64 + 1] |= code(l, e) >> (64 - at % 64);
                    }
                }
                for n in 0..6 {
                    r.v[64 + n][l] = (bits[n / 2] >> (32 * (n % 2))) as u32;
                }
                r.v[2][l] = scale(l);
            });
            let val =
                |l: usize, e: usize| f.value(code(l, e) as u32).expect("fp6") * scale_of(scale(l));
            check(&lines[0], &before, &after, 16, 32, &|l| {
                (0..32)
                    .map(|e| field(e, 0, 32, wide(val(l, e), Wide::F32)))
                    .collect()
            });
            for (dst, t, k) in [(48, Wide::F16, 1), (0, Wide::Bf16, 2)] {
                check(&lines[k], &before, &after, dst, 16, &|l| {
                    (0..32)
                        .map(|e| field(e / 2, 16 * (e as u32 % 2), 16, wide(val(l, e), t)))
                        .collect()
                });
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// To the small formats.

/// Runs a conversion line over `cases` in chunks: `set(regs, lane, chunk, base)` loads a
/// lane's operands, `fields(lane, chunk, base)` says what D must hold.
fn run_cases(
    line: &str,
    per_lane: usize,
    cases: &[Case],
    dst: usize,
    dregs: usize,
    set: &dyn Fn(&mut WaveRegs, usize, &[Case]),
    fields: &dyn Fn(usize, &[Case]) -> Vec<Field>,
) -> usize {
    let w = program(&[line]);
    let mut runs = 0;
    for chunk in cases.chunks(64 * per_lane) {
        // Lanes past the end repeat the first cases.
        let lane_cases = |l: usize| -> Vec<Case> {
            (0..per_lane)
                .map(|k| chunk[(l * per_lane + k) % chunk.len()])
                .collect()
        };
        let mut r = regs();
        for l in 0..64 {
            set(&mut r, l, &lane_cases(l));
        }
        let before = r.clone();
        run(&w, &mut r, line);
        check(line, &before, &r, dst, dregs, &|l| {
            fields(l, &lane_cases(l))
        });
        runs += 1;
    }
    runs
}

const FP8S: [(&str, Fmt); 2] = [("fp8", Fmt::E4M3), ("bf8", Fmt::E5M2)];
const SRCS: [(&str, SrcTy); 3] = [
    ("f32", SrcTy::F32),
    ("f16", SrcTy::F16),
    ("bf16", SrcTy::Bf16),
];

/// `scaled_conversions_to_fp8_bf8`'s `pk` line: two elements to the word `dword` of D.
fn fp8_pk_line(name: &str, sname: &str, ty: SrcTy, dword: u32) -> String {
    if ty == SrcTy::F32 {
        format!("v_cvt_scalef32_pk_{name}_f32 v4, v1, v2, v3 op_sel:[0,0,0,{dword}]")
    } else {
        format!("v_cvt_scalef32_pk_{name}_{sname} v4, v1, v3 op_sel:[0,0,{dword}]")
    }
}

/// `scaled_conversions_to_fp8_bf8`'s `sr` line: one element (the half `hi` of a 16-bit
/// source) to the byte `byte` of D.
fn fp8_sr_line(name: &str, sname: &str, byte: u32, hi: u32) -> String {
    let (b0, b1) = (byte & 1, byte >> 1);
    format!("v_cvt_scalef32_sr_{name}_{sname} v4, v1, v2, v3 op_sel:[{hi},0,{b0},{b1}]")
}

/// Every line `scaled_conversions_to_fp8_bf8` runs, in its loops' order: prefetched with one
/// llvm-mc-22 run instead of one per line.
fn fp8_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for (name, _) in FP8S {
        for (sname, ty) in SRCS {
            lines.extend((0..2u32).map(|dword| fp8_pk_line(name, sname, ty, dword)));
            for byte in 0..4u32 {
                for hi in [0u32, 1] {
                    if !(hi == 1 && ty == SrcTy::F32) {
                        lines.push(fp8_sr_line(name, sname, byte, hi));
                    }
                }
            }
        }
    }
    lines
}

/// f32/f16/bf16 to fp8/bf8: `pk` (two elements, the word op_sel[3] of D, nearest even) and
/// `sr` (one element, the byte op_sel[3:2], stochastic; a 16-bit source's half op_sel[0]).
#[test]
fn scaled_conversions_to_fp8_bf8() {
    super::prefetch(&GFX950, &fp8_lines());
    let mut runs = 0;
    for (name, f) in FP8S {
        for (sname, ty) in SRCS {
            let cs = cases(f, ty);
            assert!(cs.len() > 300, "{name} {sname}: {}", cs.len());
            for dword in 0..2u32 {
                let line = fp8_pk_line(name, sname, ty, dword);
                runs += run_cases(
                    &line,
                    2,
                    &cs,
                    4,
                    1,
                    &|r, l, c| {
                        if ty == SrcTy::F32 {
                            r.v[1][l] = c[0].x;
                            r.v[2][l] = c[1].x;
                        } else {
                            r.v[1][l] = c[0].x | c[1].x << 16;
                        }
                        r.v[3][l] = c[0].scale;
                    },
                    &|_, c| {
                        (0..2)
                            .map(|k| {
                                field(
                                    0,
                                    16 * dword + 8 * k as u32,
                                    8,
                                    want_elem(f, ty, c, k, false),
                                )
                            })
                            .collect()
                    },
                );
            }
            for byte in 0..4u32 {
                for hi in [0u32, 1] {
                    if hi == 1 && ty == SrcTy::F32 {
                        continue;
                    }
                    let line = fp8_sr_line(name, sname, byte, hi);
                    runs += run_cases(
                        &line,
                        1,
                        &cs,
                        4,
                        1,
                        &|r, l, c| {
                            r.v[1][l] = if ty == SrcTy::F32 {
                                c[0].x
                            } else {
                                // The other half holds a value that would convert differently.
                                let other = 0x5a5a;
                                if hi == 1 {
                                    other | c[0].x << 16
                                } else {
                                    c[0].x | other << 16
                                }
                            };
                            r.v[2][l] = c[0].seed;
                            r.v[3][l] = c[0].scale;
                        },
                        &|_, c| vec![field(0, 8 * byte, 8, want_small(f, ty, &c[0], true))],
                    );
                }
            }
        }
    }
    assert!(runs > 150, "{runs}");
}

/// `scaled_conversions_to_fp4`'s line: `pk` or `sr_pk` (`sr`) to the byte `byte` of D.
fn fp4_line(sname: &str, ty: SrcTy, sr: bool, byte: u32) -> String {
    let (b0, b1) = (byte & 1, byte >> 1);
    let sel = format!("op_sel:[0,0,{b0},{b1}]");
    match (sr, ty) {
        (false, SrcTy::F32) => format!("v_cvt_scalef32_pk_fp4_f32 v4, v1, v2, v3 {sel}"),
        (false, _) => format!("v_cvt_scalef32_pk_fp4_{sname} v4, v1, v3 {sel}"),
        (true, SrcTy::F32) => format!("v_cvt_scalef32_sr_pk_fp4_f32 v4, v[6:7], v2, v3 {sel}"),
        (true, _) => format!("v_cvt_scalef32_sr_pk_fp4_{sname} v4, v1, v2, v3 {sel}"),
    }
}

/// f32/f16/bf16 to FP4: `pk` (nearest even) and `sr_pk` (stochastic), two nibbles (S0's low)
/// in the byte op_sel[3:2] of D.
#[test]
fn scaled_conversions_to_fp4() {
    let f = Fmt::E2M1;
    // Every line first, with one llvm-mc-22 run instead of one per line.
    let lines: Vec<String> = SRCS
        .iter()
        .flat_map(|&(sname, ty)| {
            [false, true]
                .into_iter()
                .flat_map(move |sr| (0..4u32).map(move |byte| fp4_line(sname, ty, sr, byte)))
        })
        .collect();
    super::prefetch(&GFX950, &lines);
    let mut runs = 0;
    for (sname, ty) in SRCS {
        let cs = cases(f, ty);
        for sr in [false, true] {
            for byte in 0..4u32 {
                let line = fp4_line(sname, ty, sr, byte);
                runs += run_cases(
                    &line,
                    2,
                    &cs,
                    4,
                    1,
                    &|r, l, c| {
                        match (sr, ty) {
                            (false, SrcTy::F32) => {
                                r.v[1][l] = c[0].x;
                                r.v[2][l] = c[1].x;
                            }
                            (true, SrcTy::F32) => {
                                r.v[6][l] = c[0].x;
                                r.v[7][l] = c[1].x;
                                r.v[2][l] = c[0].seed;
                            }
                            (true, _) => {
                                r.v[1][l] = c[0].x | c[1].x << 16;
                                r.v[2][l] = c[0].seed;
                            }
                            (false, _) => r.v[1][l] = c[0].x | c[1].x << 16,
                        }
                        r.v[3][l] = c[0].scale;
                    },
                    &|_, c| {
                        (0..2)
                            .map(|k| {
                                let want = want_elem(f, ty, c, k, sr);
                                field(0, 8 * byte + 4 * k as u32, 4, want)
                            })
                            .collect()
                    },
                );
            }
        }
    }
    assert!(runs >= 24, "{runs}");
}

/// 32 values to 32 packed FP6/BF6 (6 VGPRs, element e at bits 6e): `pk32` from f16/bf16,
/// `sr_pk32` from f32/f16/bf16 (one seed for all 32), `2xpk16` from two sets of 16 f32
/// (element 2i from S0[i], 2i + 1 from S1[i]).
#[test]
fn scaled_conversions_to_fp6_bf6() {
    let mut runs = 0;
    for (name, f) in [("fp6", Fmt::E2M3), ("bf6", Fmt::E3M2)] {
        let forms: Vec<(String, SrcTy, bool)> = vec![
            (
                format!("v_cvt_scalef32_pk32_{name}_f16 v[64:69], v[16:31], v2"),
                SrcTy::F16,
                false,
            ),
            (
                format!("v_cvt_scalef32_pk32_{name}_bf16 v[64:69], v[16:31], v2"),
                SrcTy::Bf16,
                false,
            ),
            (
                format!("v_cvt_scalef32_sr_pk32_{name}_f32 v[64:69], v[16:47], v3, v2"),
                SrcTy::F32,
                true,
            ),
            (
                format!("v_cvt_scalef32_sr_pk32_{name}_f16 v[64:69], v[16:31], v3, v2"),
                SrcTy::F16,
                true,
            ),
            (
                format!("v_cvt_scalef32_sr_pk32_{name}_bf16 v[64:69], v[16:31], v3, v2"),
                SrcTy::Bf16,
                true,
            ),
            (
                format!("v_cvt_scalef32_2xpk16_{name}_f32 v[64:69], v[16:31], v[32:47], v2"),
                SrcTy::F32,
                false,
            ),
        ];
        for (line, ty, sr) in forms {
            let two = line.contains("2xpk16");
            let cs = cases(f, ty);
            runs += run_cases(
                &line,
                32,
                &cs,
                64,
                6,
                &|r, l, c| {
                    for (e, x) in c.iter().enumerate() {
                        match ty {
                            SrcTy::F32 if two => r.v[16 + 16 * (e % 2) + e / 2][l] = x.x,
                            SrcTy::F32 => r.v[16 + e][l] = x.x,
                            _ => {
                                let v = &mut r.v[16 + e / 2][l];
                                let sh = 16 * (e as u32 % 2);
                                *v = *v & !(0xffff << sh) | x.x << sh;
                            }
                        }
                    }
                    r.v[2][l] = c[0].scale;
                    r.v[3][l] = c[0].seed;
                },
                &|_, c| {
                    (0..32)
                        .flat_map(|e| {
                            let want = want_elem(f, ty, c, e, sr);
                            let at = 6 * e as u32;
                            // An element across two registers is checked in both parts.
                            let lo = 32 - at % 32;
                            if lo >= 6 {
                                vec![field(e * 6 / 32, at % 32, 6, want)]
                            } else {
                                let W::Bits(b) = want else {
                                    unreachable!("no NaN in FP6")
                                };
                                vec![
                                    field(e * 6 / 32, at % 32, lo, W::Bits(b & ((1 << lo) - 1))),
                                    field(e * 6 / 32 + 1, 0, 6 - lo, W::Bits(b >> lo)),
                                ]
                            }
                        })
                        .collect()
                },
            );
        }
    }
    assert!(runs >= 12, "{runs}");
}

/// Float input modifiers: neg/abs on f32 sources and on both halves of a packed source.
#[test]
fn scaled_conversions_take_neg_and_abs() {
    let lines = [
        "v_cvt_scalef32_pk_fp4_f32 v4, -v1, |v2|, v3".to_string(),
        "v_cvt_scalef32_pk_fp8_f16 v5, -v6, v3".to_string(),
    ];
    let (before, after) = run_lines(&lines, &|r, l| {
        let x = [0.5f32, -1.5, 3.0, -6.0][l % 4];
        r.v[1][l] = x.to_bits();
        r.v[2][l] = (-x).to_bits();
        r.v[6][l] = u32::from(f16::from_f32(x).to_bits())
            | u32::from(f16::from_f32(-2.0 * x).to_bits()) << 16;
        r.v[3][l] = 0x3f80_0000;
    });
    check(&lines[0], &before, &after, 4, 1, &|l| {
        let x = f64::from([0.5f32, -1.5, 3.0, -6.0][l % 4]);
        vec![
            field(0, 0, 4, quantize(Fmt::E2M1, -x, None)),
            field(0, 4, 4, quantize(Fmt::E2M1, x.abs(), None)),
        ]
    });
    check(&lines[1], &before, &after, 5, 1, &|l| {
        let x = f64::from([0.5f32, -1.5, 3.0, -6.0][l % 4]);
        vec![
            field(0, 0, 8, quantize(Fmt::E4M3, -x, None)),
            field(0, 8, 8, quantize(Fmt::E4M3, 2.0 * x, None)),
        ]
    });
}

// ---------------------------------------------------------------------------------------
// v_cvt_sr_f16_f32 / v_cvt_sr_bf16_f32.

/// f32 to f16/bf16 with stochastic rounding by the definition the emulator documents: the
/// neighbours lo ≤ |x| < hi, round up iff ⌊(|x| − lo)/(hi − lo)·2^d⌋ + (seed mod 2^d) ≥ 2^d
/// (d = 13 for f16, 16 for bf16); past the largest finite value ∞; NaN stays NaN.
fn sr_wide(x: f32, seed: u32, bf: bool) -> W {
    // Mantissa bits, smallest normal exponent, largest finite value.
    let (d, man, emin, max) = if bf {
        (16, 7, -126, 3.3895313892515355e38)
    } else {
        (13, 10, -14, 65504.0)
    };
    if x.is_nan() {
        return if bf { W::NanBf16 } else { W::NanF16 };
    }
    let a = f64::from(x.abs());
    let to = |v: f64| {
        let v = if x.is_sign_negative() { -v } else { v };
        if bf {
            u32::from(bf16::from_f64(v).to_bits())
        } else {
            u32::from(f16::from_f64(v).to_bits())
        }
    };
    if a.is_infinite() {
        return W::Bits(to(f64::INFINITY));
    }
    // The spacing of representable values around a.
    let e = if a == 0.0 {
        emin
    } else {
        ((a.to_bits() >> 52) as i32 - 1023).max(emin)
    };
    let q = 2f64.powi(e - man);
    let lo = (a / q).floor() * q;
    let t = ((a - lo) / q * 2f64.powi(d)).floor();
    let up = t + f64::from(seed & ((1u32 << d) - 1)) >= 2f64.powi(d);
    let v = if up { lo + q } else { lo };
    W::Bits(to(if v > max { f64::INFINITY } else { v }))
}

#[test]
fn stochastic_f16_and_bf16_conversions() {
    let xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        1.0 + 2f32.powi(-11),
        1.0 + 2f32.powi(-12),
        -(1.0 + 3.0 * 2f32.powi(-12)),
        65504.0,
        65519.0,
        65520.0,
        -70000.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        6.0e-8,
        -3.0e-6,
        1.0e-40,
        3.3e38,
        f32::MAX,
        -f32::MAX,
        std::f32::consts::PI,
        -1.0e-3,
        1.1754942e-38,
        0.1,
        1234.567,
    ];
    let seeds = [
        0u32,
        u32::MAX,
        0x0000_1000,
        0x0000_8000,
        0xdead_beef,
        0x1234_5678,
        0x0000_0fff,
        0x0000_7fff,
    ];
    for bf in [false, true] {
        let ty = if bf { "bf16" } else { "f16" };
        for hi in [0u32, 1] {
            let lines = [
                format!("v_cvt_sr_{ty}_f32 v4, v1, v2 op_sel:[0,0,{hi}]"),
                format!("v_cvt_sr_{ty}_f32 v5, -v1, v2"),
            ];
            let case = |l: usize| (xs[l % xs.len()], seeds[(l / 3) % seeds.len()]);
            let (before, after) = run_lines(&lines, &|r, l| {
                let (x, s) = case(l);
                r.v[1][l] = x.to_bits();
                r.v[2][l] = s;
            });
            check(&lines[0], &before, &after, 4, 1, &|l| {
                let (x, s) = case(l);
                vec![field(0, 16 * hi, 16, sr_wide(x, s, bf))]
            });
            check(&lines[1], &before, &after, 5, 1, &|l| {
                let (x, s) = case(l);
                vec![field(0, 0, 16, sr_wide(-x, s, bf))]
            });
        }
    }
    // By hand: 1 + 2^-12 is a quarter of an f16 ulp above 1 (2048 of 2^13), so it rounds up
    // once the seed's low 13 bits reach 8192 − 2048; 1 + 2^-9 is a quarter of a bf16 ulp.
    assert_eq!(
        sr_wide(1.0 + 2f32.powi(-12), 0x17ff, false),
        W::Bits(0x3c00)
    );
    assert_eq!(
        sr_wide(1.0 + 2f32.powi(-12), 0xffff_1800, false),
        W::Bits(0x3c01)
    );
    assert_eq!(sr_wide(1.0 + 2f32.powi(-9), 0xbfff, true), W::Bits(0x3f80));
    assert_eq!(
        sr_wide(1.0 + 2f32.powi(-9), 0x0001_c000, true),
        W::Bits(0x3f81)
    );
}

// ---------------------------------------------------------------------------------------
// LDS transpose loads.

/// `ds_read_b64_tr_b{4,8,16}` and `ds_read_b96_tr_b6`. The lane map (rocRoller's
/// TransposeLoadsTest checks it on gfx950 hardware): in each block of 16 lanes, lane k's load
/// holds E elements of b bits (element i at bits b·i); the block's loads form a matrix M of 16
/// columns whose row r is lanes R·r … R·r + R − 1 (R = 16/E) side by side, M[r][c] = element
/// c mod E of lane R·r + ⌊c/E⌋; lane j of the block receives column j: its element e is
/// M[e][j].
#[test]
fn transpose_loads() {
    let lds_init: Vec<u8> = (0..65536u64).map(|a| mix(a + 99) as u8).collect();
    for (name, bits, dwords) in [
        ("b64_tr_b4", 4u32, 2usize),
        ("b64_tr_b8", 8, 2),
        ("b64_tr_b16", 16, 2),
        ("b96_tr_b6", 6, 3),
    ] {
        let e_per = 32 * dwords as u32 / bits;
        let rr = (16 / e_per) as usize;
        for all_lanes in [true, false] {
            let line = format!("ds_read_{name} v[4:{}], v1 offset:32", 3 + dwords);
            let w = program(&[&line]);
            let mut r = regs();
            if all_lanes {
                r.set_exec(u64::MAX);
            }
            let on = |l: usize| all_lanes || active(l);
            // Lane l's address: a permutation of 16-byte slots.
            let addr = |l: usize| 0x200 + 16 * ((l * 23 + 7) % 64) as u32;
            for l in 0..64 {
                r.v[1][l] = addr(l);
            }
            let before = r.clone();
            let mut lds = lds_init.clone();
            run_words_mem(Gen::Gfx950, &w, &mut r, &mut lds, &mut [0u8; 16])
                .unwrap_or_else(|e| panic!("{line}: {e:?}"));
            assert_eq!(lds, lds_init, "{line}: LDS changed");
            // Lane k's load as one number (inactive lanes read nothing: zero).
            let load = |k: usize| -> u128 {
                if !on(k) {
                    return 0;
                }
                let a = addr(k) as usize + 32;
                (0..dwords).fold(0u128, |v, d| {
                    v | u128::from(rd32(&lds_init, a + 4 * d)) << (32 * d)
                })
            };
            let elem = |k: usize, i: u32| load(k) >> (bits * i) & ((1u128 << bits) - 1);
            for l in 0..64 {
                let (block, j) = (l & !15, l & 15);
                let mut want = 0u128;
                for e in 0..e_per as usize {
                    // M[e][j] = element j mod E of lane R·e + ⌊j/E⌋.
                    let m = elem(
                        block + rr * e + j / e_per as usize,
                        (j % e_per as usize) as u32,
                    );
                    want |= m << (bits * e as u32);
                }
                for d in 0..dwords {
                    let got = r.v[4 + d][l];
                    let exp = if on(l) {
                        (want >> (32 * d)) as u32
                    } else {
                        before.v[4 + d][l]
                    };
                    assert_eq!(
                        got, exp,
                        "{line} (all lanes: {all_lanes}): lane {l} dword {d}"
                    );
                }
            }
        }
    }
    // A hand check of the b16 map: lane 1 gets element 1 of lanes 0, 4, 8 and 12.
    let mut lds = vec![0u8; 65536];
    for k in 0..16 {
        for i in 0..4 {
            wr(&mut lds, 8 * k + 2 * i, (0x100 * k + i) as u64, 2);
        }
    }
    let w = program(&["ds_read_b64_tr_b16 v[4:5], v1"]);
    let mut r = regs();
    r.set_exec(u64::MAX);
    for l in 0..64 {
        r.v[1][l] = 8 * (l % 16) as u32;
    }
    run_words_mem(Gen::Gfx950, &w, &mut r, &mut lds, &mut [0u8; 16]).expect("run");
    assert_eq!(r.v[4][1], 0x0401 << 16 | 0x0001);
    assert_eq!(r.v[5][1], 0x0c01 << 16 | 0x0801);
}

/// The opcodes these tests cover, for `completeness`.
pub(crate) fn mnemonics() -> Vec<String> {
    let mut v = Vec::new();
    for (name, _) in FP8S {
        v.push(format!("v_cvt_scalef32_f32_{name}"));
        v.push(format!("v_cvt_scalef32_f16_{name}"));
        for d in ["f32", "f16", "bf16"] {
            v.push(format!("v_cvt_scalef32_pk_{d}_{name}"));
            v.push(format!("v_cvt_scalef32_pk_{name}_{d}"));
            v.push(format!("v_cvt_scalef32_sr_{name}_{d}"));
        }
    }
    for d in ["f32", "f16", "bf16"] {
        v.push(format!("v_cvt_scalef32_pk_{d}_fp4"));
        v.push(format!("v_cvt_scalef32_pk_fp4_{d}"));
        v.push(format!("v_cvt_scalef32_sr_pk_fp4_{d}"));
        for s in ["fp6", "bf6"] {
            v.push(format!("v_cvt_scalef32_pk32_{d}_{s}"));
            v.push(format!("v_cvt_scalef32_sr_pk32_{s}_{d}"));
            if d != "f32" {
                v.push(format!("v_cvt_scalef32_pk32_{s}_{d}"));
            }
        }
    }
    v.extend(
        [
            "v_cvt_scalef32_2xpk16_fp6_f32",
            "v_cvt_scalef32_2xpk16_bf6_f32",
            "v_cvt_sr_f16_f32",
            "v_cvt_sr_bf16_f32",
        ]
        .map(String::from),
    );
    for n in ["b64_tr_b4", "b64_tr_b8", "b64_tr_b16", "b96_tr_b6"] {
        v.push(format!("ds_read_{n}"));
    }
    v
}

#[test]
fn mnemonics_name_every_new_opcode_once() {
    let m = mnemonics();
    let set: std::collections::BTreeSet<&String> = m.iter().collect();
    assert_eq!(set.len(), m.len());
    assert_eq!(m.len(), 51 + 4);
}
