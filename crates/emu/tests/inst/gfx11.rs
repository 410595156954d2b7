//! Per-instruction tests of GFX11 (RDNA3/RDNA3.5) opcodes (a module of `tests/inst.rs`):
//! lines assembled by llvm-mc-22 for gfx1100/gfx1151 (wave32 and wave64), run on one wave
//! (`run_words`), and compared with references written here from AMD's definitions (RDNA3
//! ISA guide; for WMMA also AMD's Matrix Instruction Calculator and the GPUOpen WMMA note).

use hsaemu_emu::{run_words, run_words_mem, Gen, WaveRegs};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Assembles `lines` with llvm-mc-22 for `mcpu` (wave64 with `+wavefrontsize64`): the words
/// of each line. Every line must assemble. Cached in the kernel cache by the text.
pub(super) fn asm22(mcpu: &str, wave64: bool, lines: &[String]) -> Vec<Vec<u32>> {
    let path = cache_path22(mcpu, wave64, lines);
    let out = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(_) => {
            let o = run_mc22(mcpu, wave64, lines, &path);
            assert!(
                o.status.success(),
                "llvm-mc-22 rejects:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            let s = String::from_utf8_lossy(&o.stdout).into_owned();
            let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, &s).expect("write cache");
            std::fs::rename(&tmp, &path).expect("cache rename");
            s
        }
    };
    let mut words = Vec::new();
    for l in out.lines() {
        let Some((_, enc)) = l.split_once("encoding: [") else {
            continue;
        };
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("byte"))
            .collect();
        words.push(
            bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        );
    }
    assert_eq!(words.len(), lines.len(), "{out}");
    words
}

/// The `-mattr` of a wave size.
fn attr22(wave64: bool) -> &'static str {
    if wave64 {
        "+wavefrontsize64"
    } else {
        "+wavefrontsize32"
    }
}

/// Where [`asm22`] caches the output of `lines`: keyed by their text.
fn cache_path22(mcpu: &str, wave64: bool, lines: &[String]) -> PathBuf {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let key = format!("{mcpu}{}\n{text}", attr22(wave64));
    hsaemu_testkit::cache_dir().join(format!(
        "inst22-{mcpu}-{:016x}.txt",
        super::fnv(key.as_bytes())
    ))
}

/// llvm-mc-22 run on `lines` (its source written beside `cache`).
fn run_mc22(mcpu: &str, wave64: bool, lines: &[String], cache: &Path) -> std::process::Output {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let src = hsaemu_testkit::temp_beside(cache, "s");
    std::fs::write(&src, &text).expect("write asm");
    let o = std::process::Command::new(hsaemu_testkit::tool("llvm-mc-22"))
        .args([
            "-arch=amdgcn",
            &format!("-mcpu={mcpu}"),
            &format!("-mattr={}", attr22(wave64)),
            "-show-encoding",
        ])
        .arg(&src)
        .output()
        .expect("run llvm-mc-22");
    let _ = std::fs::remove_file(&src);
    // A label's fixup prints its bytes as `A` (read as 0x0a): lines use numeric offsets.
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("fixup"),
        "llvm-mc-22: a line refers to a label"
    );
    o
}

/// Fills [`asm22`]'s cache for each of `lines` alone with one llvm-mc-22 run for all that are
/// missing (as `super::prefetch` does for llvm-mc-15): llvm-mc prints one line per
/// instruction, which is what it prints for that instruction alone. When any line is rejected,
/// or the output has another shape, nothing is cached: [`asm22`] then assembles the lines one
/// by one and reports the rejected one.
pub(super) fn prefetch22(mcpu: &str, wave64: bool, lines: &[String]) {
    let missing = super::uncached(lines, |l| {
        cache_path22(mcpu, wave64, std::slice::from_ref(l))
    });
    let Some(first) = missing.first() else {
        return;
    };
    let o = run_mc22(
        mcpu,
        wave64,
        &missing,
        &cache_path22(mcpu, wave64, std::slice::from_ref(first)),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let outs: Vec<&str> = out.lines().collect();
    if !o.status.success()
        || outs.len() != missing.len()
        || !outs.iter().all(|l| l.contains("; encoding: ["))
    {
        return;
    }
    for (l, enc) in missing.iter().zip(outs) {
        let path = cache_path22(mcpu, wave64, std::slice::from_ref(l));
        super::write_mc_cache(&path, &format!("{enc}\n"));
    }
}

/// The two GFX11 generations the tests run: (llvm-mc cpu, wave64, emulator generation).
pub(super) const WAVES: [(&str, bool, Gen); 2] = [
    ("gfx1100", false, Gen::Gfx11),
    ("gfx1100", true, Gen::Gfx11W64),
];

/// A deterministic scramble.
pub(super) fn mix(k: u64) -> u64 {
    let mut x = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Runs one line on a fresh wave whose registers `setup` fills.
pub(super) fn run1(
    mcpu: &str,
    wave64: bool,
    gen: Gen,
    asm: &str,
    setup: impl FnOnce(&mut WaveRegs),
) -> WaveRegs {
    let mut regs = WaveRegs::new(gen);
    setup(&mut regs);
    run1_from(mcpu, wave64, gen, asm, regs)
}

/// `run1`'s body, not generic: one copy instead of one per caller's closure.
fn run1_from(mcpu: &str, wave64: bool, gen: Gen, asm: &str, mut regs: WaveRegs) -> WaveRegs {
    let w = asm22(mcpu, wave64, &[asm.to_string()]).remove(0);
    run_words(gen, &w, &mut regs)
        .unwrap_or_else(|e| panic!("{asm} [{mcpu} w{}]: {e:?}", if wave64 { 64 } else { 32 }));
    regs
}

// ---------------------------------------------------------------------------------------
// WMMA.

/// Element types of a WMMA shape.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    F16,
    Bf16,
    Iu8,
    Iu4,
    F32,
    I32,
}

impl Ty {
    fn bits(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::Iu8 => 8,
            Ty::Iu4 => 4,
            Ty::F32 | Ty::I32 => 32,
        }
    }
}

/// f32 bits to bf16, rounding to nearest even (the test's sums are exact in f32).
fn bf16_rne(x: f32) -> u16 {
    let b = x.to_bits();
    ((b + 0x7fff + (b >> 16 & 1)) >> 16) as u16
}

fn f16_bits(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}

/// Raw bits of an input element value.
fn in_bits(ty: Ty, v: f64) -> u32 {
    match ty {
        Ty::F16 => u32::from(f16_bits(v)),
        // Exact for the test values.
        Ty::Bf16 => (v as f32).to_bits() >> 16,
        Ty::Iu8 => v as i64 as u32 & 0xff,
        Ty::Iu4 => v as i64 as u32 & 0xf,
        _ => unreachable!(),
    }
}

/// Test values: quarters in [-2, 2] for floats (exact, and every sum of 16 products plus C
/// is exact in f32 and in f16), any 8-/4-bit pattern for integers (read back as signed or
/// unsigned by the modifiers).
fn input_values(ty: Ty, seed: u64) -> Vec<f64> {
    (0..256u64)
        .map(|n| {
            let r = mix(seed * 1000 + n);
            match ty {
                Ty::F16 | Ty::Bf16 => (r % 17) as f64 / 4.0 - 2.0,
                Ty::Iu8 => (r % 256) as f64,
                _ => (r % 16) as f64,
            }
        })
        .collect()
}

struct Wmma {
    name: &'static str,
    input: Ty,
    output: Ty,
}

const WMMA: [Wmma; 6] = [
    Wmma {
        name: "v_wmma_f32_16x16x16_f16",
        input: Ty::F16,
        output: Ty::F32,
    },
    Wmma {
        name: "v_wmma_f32_16x16x16_bf16",
        input: Ty::Bf16,
        output: Ty::F32,
    },
    Wmma {
        name: "v_wmma_f16_16x16x16_f16",
        input: Ty::F16,
        output: Ty::F16,
    },
    Wmma {
        name: "v_wmma_bf16_16x16x16_bf16",
        input: Ty::Bf16,
        output: Ty::Bf16,
    },
    Wmma {
        name: "v_wmma_i32_16x16x16_iu8",
        input: Ty::Iu8,
        output: Ty::I32,
    },
    Wmma {
        name: "v_wmma_i32_16x16x16_iu4",
        input: Ty::Iu4,
        output: Ty::I32,
    },
];

/// Modifiers of one WMMA line.
#[derive(Debug, Clone, Copy, Default)]
struct Mods {
    neg_lo: u8,
    neg_hi: u8,
    clamp: bool,
    /// op_sel[2]: 16-bit C and D in the high halves.
    hi: bool,
    /// C is the inline constant 1.0 (floats) or 1 (integers).
    c_one: bool,
    /// D is C's registers.
    d_is_c: bool,
}

/// The reference: D(i, j) as the result type's bits, from the definitions (see
/// `exec/wmma.rs`'s docs for the modifiers).
fn reference(s: &Wmma, m: Mods, a: &[f64], b: &[f64], c: &[f64]) -> Vec<u32> {
    let mut d = vec![0u32; 256];
    for i in 0..16 {
        for j in 0..16 {
            let cv = if m.c_one { 1.0 } else { c[i * 16 + j] };
            if s.output == Ty::I32 {
                let val = |v: f64, signed: bool| -> i64 {
                    let bits = s.input.bits() as u32;
                    let raw = v as i64;
                    if signed && raw >= 1 << (bits - 1) {
                        raw - (1 << bits)
                    } else {
                        raw
                    }
                };
                let mut acc = cv as i64;
                for k in 0..16 {
                    acc += val(a[i * 16 + k], m.neg_lo & 1 != 0)
                        * val(b[k * 16 + j], m.neg_lo & 2 != 0);
                }
                d[i * 16 + j] = if m.clamp {
                    acc.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32
                } else {
                    acc as u32
                };
                continue;
            }
            let sign = |k: usize, bit: u8| {
                let flag = if k.is_multiple_of(2) {
                    m.neg_lo
                } else {
                    m.neg_hi
                };
                if flag >> bit & 1 != 0 {
                    -1.0
                } else {
                    1.0
                }
            };
            let mut cf = cv;
            if m.neg_hi & 4 != 0 {
                cf = cf.abs();
            }
            if m.neg_lo & 4 != 0 {
                cf = -cf;
            }
            let mut sum = cf;
            for k in 0..16 {
                sum += sign(k, 0) * a[i * 16 + k] * sign(k, 1) * b[k * 16 + j];
            }
            d[i * 16 + j] = match s.output {
                Ty::F32 => (sum as f32).to_bits(),
                Ty::F16 => u32::from(f16_bits(sum)),
                _ => u32::from(bf16_rne(sum as f32)),
            };
        }
    }
    d
}

/// The line of WMMA `s` with modifiers `m` for a wave size.
fn wmma_line(s: &Wmma, m: Mods, wave64: bool) -> String {
    let wave = if wave64 { 64 } else { 32 };
    let in_regs = 16 * s.input.bits() / 32;
    let out_regs = 256 / wave;
    let (va, vb, vc) = (0usize, 8usize, 16usize);
    let vd = if m.d_is_c { vc } else { 24 };
    let r = |base: usize, n: usize| format!("v[{base}:{}]", base + n - 1);
    let mut mods = String::new();
    if m.hi {
        mods.push_str(" op_sel:[0,0,1]");
    }
    if m.neg_lo != 0 {
        let b = |k: u8| m.neg_lo >> k & 1;
        mods.push_str(&format!(" neg_lo:[{},{},{}]", b(0), b(1), b(2)));
    }
    if m.neg_hi != 0 {
        let b = |k: u8| m.neg_hi >> k & 1;
        mods.push_str(&format!(" neg_hi:[{},{},{}]", b(0), b(1), b(2)));
    }
    if m.clamp {
        mods.push_str(" clamp");
    }
    let c_text = if m.c_one {
        if s.output == Ty::I32 {
            "1".to_string()
        } else {
            "1.0".to_string()
        }
    } else {
        r(vc, out_regs)
    };
    format!(
        "{} {}, {}, {}, {c_text}{mods}",
        s.name,
        r(vd, out_regs),
        r(va, in_regs),
        r(vb, in_regs)
    )
}

/// [`wmma_case`] for each of `cases`, their lines assembled first with one llvm-mc-22 run per
/// target ([`prefetch22`]).
fn wmma_cases(cases: &[(&Wmma, Mods, u64)]) {
    for (mcpu, wave64, _) in WAVES {
        let lines: Vec<String> = cases
            .iter()
            .map(|&(s, m, _)| wmma_line(s, m, wave64))
            .collect();
        prefetch22(mcpu, wave64, &lines);
    }
    for &(s, m, seed) in cases {
        wmma_case(s, m, seed);
    }
}

fn wmma_case(s: &Wmma, m: Mods, seed: u64) {
    for (mcpu, wave64, gen) in WAVES {
        let wave = if wave64 { 64 } else { 32 };
        let groups = wave / 16;
        let in_regs = 16 * s.input.bits() / 32;
        let out_regs = 256 / wave;
        let (va, vb, vc) = (0usize, 8usize, 16usize);
        let vd = if m.d_is_c { vc } else { 24 };
        let asm = wmma_line(s, m, wave64);
        let a = input_values(s.input, seed);
        let b = input_values(s.input, seed + 1);
        // C: quarters for floats; for integers values near the i32 limits in some elements
        // (so that clamp saturates and the plain form wraps).
        let c: Vec<f64> = (0..256u64)
            .map(|n| {
                let x = mix(seed * 77 + n);
                match s.output {
                    Ty::I32 => match n % 4 {
                        0 => f64::from(i32::MAX - (x % 1000) as i32),
                        1 => f64::from(i32::MIN + (x % 1000) as i32),
                        _ => (x % 20001) as f64 - 10000.0,
                    },
                    _ => (x % 17) as f64 / 4.0 - 2.0,
                }
            })
            .collect();
        let shift = if m.hi { 16 } else { 0 };
        let regs = run1(mcpu, wave64, gen, &asm, |regs| {
            // Scramble everything, then place the matrices by the documented layout.
            for (v, row) in regs.v.iter_mut().enumerate().take(40) {
                for (l, x) in row.iter_mut().enumerate() {
                    *x = mix((v * 64 + l) as u64) as u32;
                }
            }
            for l in 0..wave {
                let row = l % 16;
                for r in 0..in_regs {
                    regs.v[va + r][l] = 0;
                    regs.v[vb + r][l] = 0;
                }
                for k in 0..16 {
                    let at = k * s.input.bits();
                    regs.v[va + at / 32][l] |= in_bits(s.input, a[row * 16 + k]) << (at % 32);
                    // Lane `row` holds column `row` of B.
                    regs.v[vb + at / 32][l] |= in_bits(s.input, b[k * 16 + row]) << (at % 32);
                }
            }
            for i in 0..16 {
                for j in 0..16 {
                    let (reg, lane) = (i / groups, 16 * (i % groups) + j);
                    let x = c[i * 16 + j];
                    let bits = match s.output {
                        Ty::F32 => (x as f32).to_bits(),
                        Ty::I32 => x as i64 as u32,
                        Ty::F16 => u32::from(f16_bits(x)),
                        _ => (x as f32).to_bits() >> 16,
                    };
                    let slot = &mut regs.v[vc + reg][lane];
                    *slot = if s.output.bits() == 16 {
                        *slot & !(0xffff << shift) | bits << shift
                    } else {
                        bits
                    };
                }
            }
        });
        let old_d: Vec<[u32; 64]> = {
            // What the scramble (and C, for d_is_c) left in D before the instruction.
            let mut v: Vec<[u32; 64]> = (0..out_regs)
                .map(|r| {
                    let mut row = [0u32; 64];
                    for (l, x) in row.iter_mut().enumerate() {
                        *x = mix(((vd + r) * 64 + l) as u64) as u32;
                    }
                    row
                })
                .collect();
            if m.d_is_c {
                for i in 0..16 {
                    for j in 0..16 {
                        let (reg, lane) = (i / groups, 16 * (i % groups) + j);
                        let x = c[i * 16 + j];
                        let bits = match s.output {
                            Ty::F16 => u32::from(f16_bits(x)),
                            _ => (x as f32).to_bits() >> 16,
                        };
                        let slot = &mut v[reg][lane];
                        *slot = *slot & !(0xffff << shift) | bits << shift;
                    }
                }
            }
            v
        };
        let want = reference(s, m, &a, &b, &c);
        let mut bad = Vec::new();
        for i in 0..16 {
            for j in 0..16 {
                let (reg, lane) = (i / groups, 16 * (i % groups) + j);
                let got = regs.v[vd + reg][lane];
                let w = want[i * 16 + j];
                let exp = if s.output.bits() == 16 {
                    // The other half keeps D's value.
                    old_d[reg][lane] & !(0xffff << shift) | w << shift
                } else {
                    w
                };
                if got != exp {
                    bad.push(format!(
                        "D({i},{j}) v{}[{lane}] = {got:#x}, want {exp:#x}",
                        vd + reg
                    ));
                }
            }
        }
        // Lanes past the wave and registers past D are untouched.
        for r in 0..out_regs {
            for l in wave..64 {
                assert_eq!(
                    regs.v[vd + r][l],
                    mix(((vd + r) * 64 + l) as u64) as u32,
                    "{asm}: lane {l}"
                );
            }
        }
        assert!(
            bad.is_empty(),
            "{asm} [w{wave}]: {} wrong, first: {:?}",
            bad.len(),
            &bad[..bad.len().min(4)]
        );
    }
}

/// Every WMMA shape in wave32 and wave64, plain, with C in D's registers, and with C the
/// inline constant 1.
#[test]
fn wmma_every_shape() {
    let mut cases = Vec::new();
    let mut case = |s, m, seed| cases.push((s, m, seed));
    for (n, s) in WMMA.iter().enumerate() {
        let seed = n as u64 * 10;
        case(s, Mods::default(), seed);
        case(
            s,
            Mods {
                d_is_c: true,
                ..Mods::default()
            },
            seed + 1,
        );
        // (A bf16 C constant is not tested: how the hardware reads an inline float constant
        // for a bf16 operand is not documented.)
        if s.output != Ty::Bf16 {
            case(
                s,
                Mods {
                    c_one: true,
                    ..Mods::default()
                },
                seed + 2,
            );
        }
    }
    wmma_cases(&cases);
}

/// Float modifiers: neg_lo/neg_hi on A and B (even and odd k), −C and |C|; op_sel for the
/// 16-bit results (C and D in the high halves, the low halves of D kept).
#[test]
fn wmma_float_modifiers() {
    let mut cases = Vec::new();
    let mut case = |s, m, seed| cases.push((s, m, seed));
    for s in WMMA.iter().filter(|s| s.output != Ty::I32) {
        for (k, (neg_lo, neg_hi)) in [
            (1, 0),
            (2, 0),
            (0, 1),
            (0, 2),
            (3, 3),
            (4, 0),
            (0, 4),
            (4, 4),
            (5, 6),
        ]
        .into_iter()
        .enumerate()
        {
            case(
                s,
                Mods {
                    neg_lo,
                    neg_hi,
                    ..Mods::default()
                },
                100 + k as u64,
            );
        }
        if matches!(s.output, Ty::F16 | Ty::Bf16) {
            case(
                s,
                Mods {
                    hi: true,
                    ..Mods::default()
                },
                200,
            );
            case(
                s,
                Mods {
                    hi: true,
                    d_is_c: true,
                    ..Mods::default()
                },
                201,
            );
            case(
                s,
                Mods {
                    hi: true,
                    neg_lo: 4,
                    ..Mods::default()
                },
                202,
            );
        }
    }
    wmma_cases(&cases);
}

/// Integer modifiers: neg_lo[0]/[1] choose signed A/B, clamp saturates (C near the i32
/// limits makes the plain form wrap).
#[test]
fn wmma_integer_modifiers() {
    let mut cases = Vec::new();
    let mut case = |s, m, seed| cases.push((s, m, seed));
    for s in WMMA.iter().filter(|s| s.output == Ty::I32) {
        for signs in 0..4u8 {
            for clamp in [false, true] {
                let m = Mods {
                    neg_lo: signs,
                    clamp,
                    ..Mods::default()
                };
                case(s, m, 300 + u64::from(signs) * 2 + u64::from(clamp));
            }
        }
    }
    wmma_cases(&cases);
}

/// Modifiers AMD does not define fault as unimplemented, naming the instruction.
#[test]
fn wmma_undefined_modifiers_fault() {
    for (mcpu, wave64, gen) in WAVES {
        for asm in [
            "v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[8:11], v[16:23] neg_hi:[1,0,0]",
            "v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[8:11], v[16:23] neg_lo:[0,0,1]",
        ] {
            let asm = if wave64 {
                asm.replace("v[16:23]", "v[16:19]")
            } else {
                asm.to_string()
            };
            let w = asm22(mcpu, wave64, std::slice::from_ref(&asm)).remove(0);
            let mut regs = WaveRegs::new(gen);
            let e = run_words(gen, &w, &mut regs).expect_err(&asm);
            assert!(
                format!("{e:?}").contains("v_wmma_i32_16x16x16_iu8"),
                "{asm}: {e:?}"
            );
        }
    }
}

/// Mnemonics these tests cover (for `completeness`).
pub(super) fn mnemonics() -> BTreeSet<String> {
    let mut v: BTreeSet<String> = WMMA.iter().map(|s| s.name.to_string()).collect();
    v.extend(
        [
            "buffer_atomic_csub_u32",
            "buffer_load_d16_hi_format_x",
            "buffer_load_format_xyzw",
            "buffer_store_d16_hi_format_x",
            "global_atomic_csub_u32",
            "global_load_addtid_b32",
            "global_store_addtid_b32",
            "s_cvt_f16_f32",
            "s_cvt_f32_f16",
            "s_cvt_f32_i32",
            "s_cvt_f32_u32",
            "s_cvt_hi_f32_f16",
            "s_cvt_i32_f32",
            "s_cvt_pk_rtz_f16_f32",
            "s_cvt_u32_f32",
            "s_fmaak_f32",
            "s_fmamk_f32",
            "s_pack_hl_b32_b16",
            "s_sendmsg_rtn_b32",
            "s_sendmsg_rtn_b64",
            "v_cvt_pk_i16_f32",
            "v_cvt_pk_u16_f32",
            "v_dot2_bf16_bf16",
            "v_dot2_f16_f16",
            "v_dot4_i32_iu8",
            "v_dot8_i32_iu4",
            "v_permlane64_b32",
            "v_swap_b16",
        ]
        .map(String::from),
    );
    for t in ["f16", "f32"] {
        for op in [
            "add", "sub", "mul", "min", "max", "fmac", "ceil", "floor", "rndne", "trunc",
        ] {
            v.insert(format!("s_{op}_{t}"));
        }
        for (c, _) in CONDS {
            v.insert(format!("s_cmp_{c}_{t}"));
        }
    }
    for op in ["min_f32", "max_f32", "cmpswap_f32"] {
        for seg in ["global", "flat", "buffer"] {
            v.insert(format!("{seg}_atomic_{op}"));
        }
    }
    v
}

// ---------------------------------------------------------------------------------------
// Other GFX11 opcodes.

/// EXEC of the vector tests: every lane of the wave but lane 5.
pub(super) fn exec_of(wave64: bool) -> u64 {
    (if wave64 { u64::MAX } else { 0xffff_ffff }) & !(1 << 5)
}

/// Runs `asm` on both wave sizes with v0–v15 scrambled, EXEC without lane 5, and `setup`;
/// `check(before, after, lanes)`.
fn vector_case(
    asm: &str,
    setup: &dyn Fn(&mut WaveRegs),
    check: &dyn Fn(&WaveRegs, &WaveRegs, usize),
) {
    vector_case_on(&WAVES, asm, setup, check);
}

/// [`vector_case`] on the given waves (GFX12's too).
pub(super) fn vector_case_on(
    waves: &[(&str, bool, Gen)],
    asm: &str,
    setup: &dyn Fn(&mut WaveRegs),
    check: &dyn Fn(&WaveRegs, &WaveRegs, usize),
) {
    for &(mcpu, wave64, gen) in waves {
        let lanes = if wave64 { 64 } else { 32 };
        let mut before = WaveRegs::new(gen);
        for (v, row) in before.v.iter_mut().enumerate().take(16) {
            for (l, x) in row.iter_mut().enumerate() {
                *x = mix((1000 + v * 64 + l) as u64) as u32;
            }
        }
        let e = exec_of(wave64);
        before.s[WaveRegs::EXEC] = e as u32;
        before.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
        setup(&mut before);
        let b2 = before.clone();
        let after = run1(mcpu, wave64, gen, asm, move |r| *r = b2);
        check(&before, &after, lanes);
    }
}

/// `v_permlane64_b32`: a wave64 lane reads lane l ^ 32 (an inactive source lane too); wave32
/// does nothing.
#[test]
fn permlane64() {
    vector_case("v_permlane64_b32 v1, v0", &|_| {}, &|b, a, lanes| {
        for l in 0..64 {
            let want = if lanes == 64 && l != 5 {
                b.v[0][l ^ 32]
            } else {
                b.v[1][l]
            };
            assert_eq!(a.v[1][l], want, "w{lanes} lane {l}");
        }
    });
}

/// `v_swap_b16`: the named halves trade places (other halves kept), also within one register.
#[test]
fn swap_b16() {
    vector_case("v_swap_b16 v1.h, v2.l", &|_| {}, &|b, a, lanes| {
        for l in 0..lanes {
            let (d, s) = (b.v[1][l], b.v[2][l]);
            let want = if l == 5 {
                (d, s)
            } else {
                (d & 0xffff | s << 16, s & 0xffff_0000 | d >> 16)
            };
            assert_eq!((a.v[1][l], a.v[2][l]), want, "w{lanes} lane {l}");
        }
    });
    vector_case("v_swap_b16 v1.l, v1.h", &|_| {}, &|b, a, lanes| {
        for l in 0..lanes {
            let x = b.v[1][l];
            let want = if l == 5 { x } else { x.rotate_left(16) };
            assert_eq!(a.v[1][l], want, "w{lanes} lane {l}");
        }
    });
}

/// `v_cvt_pk_i16_f32` / `v_cvt_pk_u16_f32`: S0 to the low half, S1 to the high half, each
/// truncated toward zero and saturated to the 16-bit range, NaN → 0.
#[test]
fn cvt_pk_16_f32() {
    let vals: [f32; 12] = [
        1.5,
        -1.5,
        40000.0,
        -40000.0,
        f32::NAN,
        f32::INFINITY,
        -0.7,
        65535.9,
        70000.0,
        -32768.9,
        32767.99,
        -0.0,
    ];
    for (name, lo, hi) in [
        ("v_cvt_pk_i16_f32", -32768.0f64, 32767.0f64),
        ("v_cvt_pk_u16_f32", 0.0, 65535.0),
    ] {
        let want = |x: f32| -> u32 {
            if x.is_nan() {
                0
            } else {
                (f64::from(x).trunc().clamp(lo, hi) as i64 as u32) & 0xffff
            }
        };
        vector_case(
            &format!("{name} v3, v1, v2"),
            &|r| {
                for l in 0..64 {
                    r.v[1][l] = vals[l % 12].to_bits();
                    r.v[2][l] = vals[(l / 12 + l) % 12].to_bits();
                }
            },
            &|b, a, lanes| {
                for l in 0..lanes {
                    let w = if l == 5 {
                        b.v[3][l]
                    } else {
                        want(f32::from_bits(b.v[1][l])) | want(f32::from_bits(b.v[2][l])) << 16
                    };
                    assert_eq!(a.v[3][l], w, "{name} w{lanes} lane {l}");
                }
            },
        );
    }
}

/// `v_dot4_i32_iu8` / `v_dot8_i32_iu4`: neg_lo[0]/[1] make A/B signed; clamp saturates the
/// signed sum.
#[test]
fn dot_iu() {
    const OPS: [(&str, u32); 2] = [("v_dot4_i32_iu8", 8), ("v_dot8_i32_iu4", 4)];
    let line = |name: &str, signs: u8, clamp: bool| {
        format!(
            "{name} v3, v1, v2, v0 neg_lo:[{},{},0]{}",
            signs & 1,
            signs >> 1,
            if clamp { " clamp" } else { "" }
        )
    };
    // Every line on each wave size with one llvm-mc-22 run, not one per line.
    let lines: Vec<String> = OPS
        .iter()
        .flat_map(|&(name, _)| {
            (0..4u8).flat_map(move |signs| [false, true].map(|clamp| line(name, signs, clamp)))
        })
        .collect();
    for &(mcpu, wave64, _) in &WAVES {
        prefetch22(mcpu, wave64, &lines);
    }
    for (name, bits) in OPS {
        for signs in 0..4u8 {
            for clamp in [false, true] {
                let asm = line(name, signs, clamp);
                let elem = |x: u32, k: u32, signed: bool| -> i64 {
                    let v = (x >> (bits * k)) & ((1 << bits) - 1);
                    if signed && v >> (bits - 1) != 0 {
                        i64::from(v) - (1i64 << bits)
                    } else {
                        i64::from(v)
                    }
                };
                vector_case(
                    &asm,
                    &|r| {
                        for l in 0..64 {
                            // C near the i32 limits in some lanes.
                            r.v[0][l] = match l % 4 {
                                0 => (i32::MAX - l as i32) as u32,
                                1 => (i32::MIN + l as i32) as u32,
                                _ => r.v[0][l] % 1000,
                            };
                        }
                    },
                    &|b, a, lanes| {
                        for l in 0..lanes {
                            let mut acc = i64::from(b.v[0][l] as i32);
                            for k in 0..32 / bits {
                                acc += elem(b.v[1][l], k, signs & 1 != 0)
                                    * elem(b.v[2][l], k, signs & 2 != 0);
                            }
                            let w = if l == 5 {
                                b.v[3][l]
                            } else if clamp {
                                acc.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32
                            } else {
                                acc as u32
                            };
                            assert_eq!(a.v[3][l], w, "{asm} w{lanes} lane {l}");
                        }
                    },
                );
            }
        }
    }
}

/// `v_dot2_f16_f16` / `v_dot2_bf16_bf16`: D.16 = S0.lo·S1.lo + S0.hi·S1.hi + S2.16, one
/// rounding; op_sel[2] reads S2's high half, op_sel[3] writes D's high half.
#[test]
fn dot2_16() {
    for (name, bf) in [("v_dot2_f16_f16", false), ("v_dot2_bf16_bf16", true)] {
        let enc = |x: f64| -> u32 {
            if bf {
                (x as f32).to_bits() >> 16
            } else {
                u32::from(half::f16::from_f64(x).to_bits())
            }
        };
        let dec = |x: u32| -> f64 {
            if bf {
                f64::from(f32::from_bits((x & 0xffff) << 16))
            } else {
                half::f16::from_bits(x as u16).to_f64()
            }
        };
        for (suffix, s2hi, dhi) in [("", false, false), (" op_sel:[0,0,1,1]", true, true)] {
            let asm = format!("{name} v3, v1, v2, v0{suffix}");
            vector_case(
                &asm,
                &|r| {
                    for l in 0..64 {
                        let q = |k: usize| (mix((l * 7 + k) as u64) % 33) as f64 / 4.0 - 4.0;
                        r.v[1][l] = enc(q(0)) | enc(q(1)) << 16;
                        r.v[2][l] = enc(q(2)) | enc(q(3)) << 16;
                        // A large C in some lanes so that bf16 must round.
                        let c = if l % 2 == 0 { q(4) } else { 96.0 + l as f64 };
                        r.v[0][l] = enc(q(5)) | enc(c) << 16;
                        if !s2hi {
                            r.v[0][l] = r.v[0][l].rotate_left(16);
                        }
                    }
                },
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let (x, y) = (b.v[1][l], b.v[2][l]);
                        let z = if s2hi { b.v[0][l] >> 16 } else { b.v[0][l] };
                        let s = dec(x) * dec(y) + dec(x >> 16) * dec(y >> 16) + dec(z);
                        // The exact sum (sixteenths below 256) rounded once.
                        let h = if bf {
                            let f = (s as f32).to_bits();
                            (f + 0x7fff + (f >> 16 & 1)) >> 16
                        } else {
                            u32::from(half::f16::from_f64(s).to_bits())
                        };
                        let old = b.v[3][l];
                        let w = if l == 5 {
                            old
                        } else if dhi {
                            old & 0xffff | h << 16
                        } else {
                            old & 0xffff_0000 | h
                        };
                        assert_eq!(a.v[3][l], w, "{asm} w{lanes} lane {l}: {s}");
                    }
                },
            );
        }
    }
}

/// Scalar: `s_pack_hl_b32_b16` (S0's high half low, S1's low half high) and
/// `s_sendmsg_rtn_*`.
#[test]
fn scalar_gfx11() {
    for (mcpu, wave64, gen) in WAVES {
        let r = run1(mcpu, wave64, gen, "s_pack_hl_b32_b16 s0, s1, s2", |r| {
            r.s[1] = 0x1234_5678;
            r.s[2] = 0x9abc_def0;
        });
        assert_eq!(r.s[0], 0xdef0_1234);
        // GET_REALTIME: a 64-bit counter that runs; GET_TBA/TMA (no trap handler), GET_DOORBELL
        // and GET_DDID: 0.
        let lines = [
            "s_sendmsg_rtn_b64 s[0:1], sendmsg(MSG_RTN_GET_REALTIME)",
            "s_sleep 10",
            "s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)",
            "s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_TBA)",
            "s_sendmsg_rtn_b64 s[6:7], sendmsg(MSG_RTN_GET_TMA)",
            "s_sendmsg_rtn_b32 s8, sendmsg(MSG_RTN_GET_DOORBELL)",
            "s_sendmsg_rtn_b32 s9, sendmsg(MSG_RTN_GET_DDID)",
        ]
        .map(String::from);
        let w: Vec<u32> = asm22(mcpu, wave64, &lines).concat();
        let mut r = WaveRegs::new(gen);
        for k in 4..10 {
            r.s[k] = 0xdead_beef;
        }
        run_words(gen, &w, &mut r).expect("sendmsg_rtn");
        let t = |k: usize| u64::from(r.s[k]) | u64::from(r.s[k + 1]) << 32;
        assert!(t(0) > 0 && t(2) > t(0), "realtime {} then {}", t(0), t(2));
        assert_eq!(&r.s[4..10], &[0; 6]);
        // Context save is not for an emulated wave: a fault naming the message.
        let w = asm22(
            mcpu,
            wave64,
            &["s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_SAVE_WAVE)".into()],
        );
        let e = run_words(gen, &w[0], &mut WaveRegs::new(gen)).expect_err("save wave");
        assert!(format!("{e:?}").contains("sendmsg(132)"), "{e:?}");
    }
}

/// GFX11's hardware register IDs (LLVM's table, `AMDGPUAsmUtils.cpp`: the ones a compute
/// kernel reads are GFX10.3's; TBA/TMA, XNACK_MASK and POPS_PACKER are gone): the encoded IDs
/// and what the emulator answers for them.
#[test]
fn hwreg_ids() {
    let id = |w: &[u32]| w[0] & 0x3f;
    for (mcpu, wave64, gen) in [WAVES[0], WAVES[1], ("gfx1151", false, Gen::Gfx11)] {
        let names = [
            ("HW_REG_MODE", 1),
            ("HW_REG_STATUS", 2),
            ("HW_REG_TRAPSTS", 3),
            ("HW_REG_GPR_ALLOC", 5),
            ("HW_REG_LDS_ALLOC", 6),
            ("HW_REG_SH_MEM_BASES", 15),
            ("HW_REG_FLAT_SCR_LO", 20),
            ("HW_REG_FLAT_SCR_HI", 21),
            ("HW_REG_HW_ID1", 23),
            ("HW_REG_HW_ID2", 24),
            ("HW_REG_SHADER_CYCLES", 29),
        ];
        let lines: Vec<String> = names
            .iter()
            .map(|(n, _)| format!("s_getreg_b32 s0, hwreg({n})"))
            .collect();
        for (w, (n, want)) in asm22(mcpu, wave64, &lines).iter().zip(names) {
            assert_eq!(id(w), want, "{mcpu} {n}");
        }
        // MODE reads back what s_setreg wrote (FP_ROUND, bits 3:0); SHADER_CYCLES counts up;
        // SH_MEM_BASES holds the apertures' high halves (non-zero); FLAT_SCR_LO is the wave's
        // scratch base (0 on a bare wave).
        let lines = [
            "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s1",
            "s_getreg_b32 s2, hwreg(HW_REG_MODE)",
            "s_getreg_b32 s3, hwreg(HW_REG_SHADER_CYCLES)",
            "s_nop 0",
            "s_getreg_b32 s4, hwreg(HW_REG_SHADER_CYCLES)",
            "s_getreg_b32 s5, hwreg(HW_REG_SH_MEM_BASES)",
            "s_getreg_b32 s6, hwreg(HW_REG_HW_ID1, 0, 5)",
        ]
        .map(String::from);
        let w: Vec<u32> = asm22(mcpu, wave64, &lines).concat();
        let mut r = WaveRegs::new(gen);
        r.s[1] = 0xb;
        run_words(gen, &w, &mut r).expect("hwregs");
        assert_eq!(r.s[2], WaveRegs::DEFAULT_MODE & !0xf | 0xb, "{mcpu} MODE");
        assert!(
            r.s[4] > r.s[3],
            "{mcpu} SHADER_CYCLES {} then {}",
            r.s[3],
            r.s[4]
        );
        assert!(
            r.s[5] & 0xffff != 0 && r.s[5] >> 16 != 0,
            "{mcpu} SH_MEM_BASES {:#x}",
            r.s[5]
        );
        assert!(r.s[6] < 32, "{mcpu} WAVE_ID {}", r.s[6]);
    }
}

/// GFX11 spellings of the float atomics (global, flat, buffer `*_min_f32`, `*_max_f32`,
/// `*_cmpswap_f32`) and of the addtid accesses: each lane works on its own dword of a
/// global buffer; `glc` returns the old value.
#[test]
fn memory_renames() {
    // (old, data, compare) → new, by the RDNA3 ISA's pseudo-code: min/max as
    // `src < tmp ? src : tmp`, compare-and-swap comparing as floats (−0 equals +0).
    let vals = [1.5f32, -2.0, 0.0, -0.0, 7.25, -0.5];
    const OPS: [(&str, u32); 3] = [("min_f32", 0), ("max_f32", 1), ("cmpswap_f32", 2)];
    const SEGS: [&str; 3] = ["global", "flat", "buffer"];
    let atomic_line = |op: &str, kind: u32, seg: &str| {
        let data = if kind == 2 { "v[4:5]" } else { "v4" };
        match seg {
            "global" => format!("global_atomic_{op} v3, v1, {data}, s[0:1] glc"),
            "flat" => format!("flat_atomic_{op} v3, v[6:7], {data} glc"),
            _ => format!("buffer_atomic_{op} {data}, v1, s[8:11], 0 offen glc"),
        }
    };
    // addtid: lane l reads/writes the dword at saddr + offset + 4·l.
    let addtid_lines = [
        "global_load_addtid_b32 v3, s[0:1] offset:16".to_string(),
        "global_store_addtid_b32 v4, s[0:1] offset:8".to_string(),
    ];
    // Every line on each wave size with one llvm-mc-22 run, not one per line.
    let mut all: Vec<String> = OPS
        .iter()
        .flat_map(|&(op, kind)| SEGS.map(|seg| atomic_line(op, kind, seg)))
        .collect();
    all.extend(addtid_lines.iter().cloned());
    for (mcpu, wave64, _) in WAVES {
        prefetch22(mcpu, wave64, &all);
    }
    for (mcpu, wave64, gen) in WAVES {
        let lanes = if wave64 { 64 } else { 32 };
        for (op, kind) in OPS {
            for seg in SEGS {
                let asm = atomic_line(op, kind, seg);
                let w = asm22(mcpu, wave64, std::slice::from_ref(&asm)).remove(0);
                let mut store = vec![0u8; 256 + 8];
                let o = store.as_ptr().align_offset(8);
                let mem = &mut store[o..o + 256];
                let addr = mem.as_ptr() as u64;
                let mut r = WaveRegs::new(gen);
                r.s[0] = addr as u32;
                r.s[1] = (addr >> 32) as u32;
                r.s[8] = addr as u32;
                r.s[9] = (addr >> 32) as u32;
                r.s[10] = 512;
                r.s[11] = 0x3000_0000; // OOB_SELECT 3 (raw)
                let e = exec_of(wave64);
                r.s[WaveRegs::EXEC] = e as u32;
                r.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
                let old = |l: usize| vals[l % 6];
                let dat = |l: usize| vals[(l / 6 + 2 * l + 1) % 6];
                let cmp = |l: usize| {
                    if l.is_multiple_of(3) {
                        old(l)
                    } else {
                        vals[(l + 4) % 6]
                    }
                };
                for l in 0..64 {
                    mem[4 * l..4 * l + 4].copy_from_slice(&old(l).to_le_bytes());
                    r.v[1][l] = 4 * l as u32;
                    r.v[4][l] = dat(l).to_bits();
                    r.v[5][l] = cmp(l).to_bits();
                    let a = addr + 4 * l as u64;
                    r.v[6][l] = a as u32;
                    r.v[7][l] = (a >> 32) as u32;
                    r.v[3][l] = 0xdead_beef;
                }
                run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let ret = if seg == "buffer" { 4 } else { 3 };
                for l in 0..lanes {
                    let got = f32::from_le_bytes(mem[4 * l..4 * l + 4].try_into().expect("4"));
                    let (o, d) = (old(l), dat(l));
                    let want = match kind {
                        _ if l == 5 => o,
                        // The ISA's `src < tmp ? src : tmp` (−0 does not replace +0).
                        0 => {
                            if d < o {
                                d
                            } else {
                                o
                            }
                        }
                        1 => {
                            if d > o {
                                d
                            } else {
                                o
                            }
                        }
                        _ => {
                            if o == cmp(l) {
                                d
                            } else {
                                o
                            }
                        }
                    };
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{asm} w{lanes} lane {l}: {o} {d}"
                    );
                    if l != 5 {
                        assert_eq!(
                            r.v[ret][l],
                            o.to_bits(),
                            "{asm} w{lanes} lane {l}: returned"
                        );
                    }
                }
            }
        }
        for (k, asm) in addtid_lines.iter().enumerate() {
            let w = asm22(mcpu, wave64, std::slice::from_ref(asm)).remove(0);
            let mut store = vec![0u8; 1024 + 8];
            let o = store.as_ptr().align_offset(8);
            let mem = &mut store[o..o + 1024];
            for (n, b) in mem.iter_mut().enumerate() {
                *b = mix(n as u64) as u8;
            }
            let before = mem.to_vec();
            let addr = mem.as_ptr() as u64;
            let mut r = WaveRegs::new(gen);
            r.s[0] = addr as u32;
            r.s[1] = (addr >> 32) as u32;
            let e = exec_of(wave64);
            r.s[WaveRegs::EXEC] = e as u32;
            r.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
            for l in 0..64 {
                r.v[3][l] = 0xdead_beef;
                r.v[4][l] = 0x1000 + l as u32;
            }
            run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let rd = |m: &[u8], a: usize| u32::from_le_bytes(m[a..a + 4].try_into().expect("4"));
            for l in 0..lanes {
                if k == 0 {
                    let want = if l == 5 {
                        0xdead_beef
                    } else {
                        rd(&before, 16 + 4 * l)
                    };
                    assert_eq!(r.v[3][l], want, "{asm} w{lanes} lane {l}");
                } else {
                    let want = if l == 5 {
                        rd(&before, 8 + 4 * l)
                    } else {
                        0x1000 + l as u32
                    };
                    assert_eq!(rd(mem, 8 + 4 * l), want, "{asm} w{lanes} lane {l}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// GFX11.5 scalar float operations (gfx1151).

fn f16b(x: f64) -> u32 {
    u32::from(half::f16::from_f64(x).to_bits())
}

fn f16v(x: u32) -> f64 {
    half::f16::from_bits(x as u16).to_f64()
}

/// What a scalar float line must leave: s3's bits (any NaN matches a NaN of the width) or SCC.
enum Want {
    F32(u32),
    F16(u32),
    Bits(u32),
    Scc(bool),
}

/// IEEE-mode min/max (`minNum`/`maxNum`: a quiet NaN loses; −0 < +0).
fn ieee_minmax(x: f64, y: f64, max: bool) -> f64 {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    let first = if max {
        x > y || (x == y && x.is_sign_positive())
    } else {
        x < y || (x == y && x.is_sign_negative())
    };
    if first {
        x
    } else {
        y
    }
}

/// (less, equal, greater, unordered) truth of each compare condition.
const CONDS: [(&str, [bool; 4]); 14] = [
    ("lt", [true, false, false, false]),
    ("eq", [false, true, false, false]),
    ("le", [true, true, false, false]),
    ("gt", [false, false, true, false]),
    ("lg", [true, false, true, false]),
    ("ge", [false, true, true, false]),
    ("o", [true, true, true, false]),
    ("u", [false, false, false, true]),
    ("nge", [true, false, false, true]),
    ("nlg", [false, true, false, true]),
    ("ngt", [true, true, false, true]),
    ("nle", [false, false, true, true]),
    ("neq", [true, false, true, true]),
    ("nlt", [false, true, true, true]),
];

fn relation(x: f64, y: f64) -> usize {
    if x.is_nan() || y.is_nan() {
        3
    } else if x < y {
        0
    } else if x == y {
        1
    } else {
        2
    }
}

/// Every scalar float operation on pairs of values (quarters, a large value, ±0, a denormal,
/// ±inf, a quiet NaN) against the host's IEEE arithmetic (round to nearest even, denormals
/// kept: the default MODE); compares set SCC.
#[test]
fn salu_float() {
    let v32: [f32; 10] = [
        1.5,
        -2.25,
        0.0,
        -0.0,
        3.0e5,
        1.0e-40,
        f32::INFINITY,
        f32::NAN,
        -7.75,
        0.375,
    ];
    let v16: [f64; 9] = [
        1.5,
        -2.25,
        0.0,
        -0.0,
        1000.0,
        5.96e-8,
        f64::INFINITY,
        f64::NAN,
        -7.75,
    ];
    // (line, s1, s2, s3 before, want)
    let mut cases: Vec<(String, u32, u32, u32, Want)> = Vec::new();
    let k = 3.0f32; // the fmaak/fmamk literal
    for &x in &v32 {
        let xb = x.to_bits();
        for &y in &v32 {
            let yb = y.to_bits();
            let (xd, yd) = (f64::from(x), f64::from(y));
            for (name, r) in [
                ("s_add_f32", x + y),
                ("s_sub_f32", x - y),
                ("s_mul_f32", x * y),
                ("s_min_f32", ieee_minmax(xd, yd, false) as f32),
                ("s_max_f32", ieee_minmax(xd, yd, true) as f32),
                ("s_fmac_f32", x.mul_add(y, 0.375)),
                ("s_fmaak_f32", x.mul_add(y, k)),
                ("s_fmamk_f32", x.mul_add(k, y)),
            ] {
                let line = match name {
                    "s_fmaak_f32" => format!("{name} s3, s1, s2, 0x40400000"),
                    "s_fmamk_f32" => format!("{name} s3, s1, 0x40400000, s2"),
                    _ => format!("{name} s3, s1, s2"),
                };
                cases.push((line, xb, yb, 0.375f32.to_bits(), Want::F32(r.to_bits())));
            }
            let pk = |v: f32| -> u32 {
                // Round toward zero to f16.
                let n = half::f16::from_f32(v);
                let mut b = u32::from(n.to_bits());
                if !v.is_nan() && !v.is_infinite() && n.to_f32().abs() > v.abs() && b & 0x7fff != 0
                {
                    b -= 1;
                }
                b
            };
            cases.push((
                "s_cvt_pk_rtz_f16_f32 s3, s1, s2".into(),
                xb,
                yb,
                0,
                Want::Bits(pk(x) | pk(y) << 16),
            ));
            for (c, t) in CONDS {
                cases.push((
                    format!("s_cmp_{c}_f32 s1, s2"),
                    xb,
                    yb,
                    0,
                    Want::Scc(t[relation(xd, yd)]),
                ));
            }
        }
        for (name, r) in [
            ("s_ceil_f32", x.ceil()),
            ("s_floor_f32", x.floor()),
            ("s_trunc_f32", x.trunc()),
            ("s_rndne_f32", x.round_ties_even()),
        ] {
            cases.push((format!("{name} s3, s1"), xb, 0, 0, Want::F32(r.to_bits())));
        }
        cases.push((
            "s_cvt_i32_f32 s3, s1".into(),
            xb,
            0,
            0,
            Want::Bits(x as i32 as u32),
        ));
        cases.push((
            "s_cvt_u32_f32 s3, s1".into(),
            xb,
            0,
            0,
            Want::Bits(x as u32),
        ));
        cases.push((
            "s_cvt_f16_f32 s3, s1".into(),
            xb,
            0,
            0,
            Want::F16(f16b(f64::from(x))),
        ));
    }
    for n in [0u32, 1, 7, 0x8000_0001, 0xffff_ffff, 16_777_217] {
        cases.push((
            "s_cvt_f32_i32 s3, s1".into(),
            n,
            0,
            0,
            Want::F32((n as i32 as f32).to_bits()),
        ));
        cases.push((
            "s_cvt_f32_u32 s3, s1".into(),
            n,
            0,
            0,
            Want::F32((n as f32).to_bits()),
        ));
    }
    for &x in &v16 {
        let xb = f16b(x);
        for &y in &v16 {
            let yb = f16b(y);
            let (xq, yq) = (f16v(xb), f16v(yb));
            for (name, r) in [
                ("s_add_f16", xq + yq),
                ("s_sub_f16", xq - yq),
                ("s_mul_f16", xq * yq),
                ("s_min_f16", ieee_minmax(xq, yq, false)),
                ("s_max_f16", ieee_minmax(xq, yq, true)),
                ("s_fmac_f16", xq.mul_add(yq, 0.375)),
            ] {
                // High halves of the sources are ignored.
                cases.push((
                    format!("{name} s3, s1, s2"),
                    xb | 0xabcd_0000,
                    yb,
                    f16b(0.375),
                    Want::F16(f16b(r)),
                ));
            }
            for (c, t) in CONDS {
                cases.push((
                    format!("s_cmp_{c}_f16 s1, s2"),
                    xb,
                    yb | 0x5555_0000,
                    0,
                    Want::Scc(t[relation(xq, yq)]),
                ));
            }
        }
        for (name, r) in [
            ("s_ceil_f16", xq_round(x, f64::ceil)),
            ("s_floor_f16", xq_round(x, f64::floor)),
            ("s_trunc_f16", xq_round(x, f64::trunc)),
            ("s_rndne_f16", xq_round(x, f64::round_ties_even)),
        ] {
            cases.push((format!("{name} s3, s1"), xb, 0, 0, Want::F16(f16b(r))));
        }
        let xf = f16v(xb) as f32;
        cases.push((
            "s_cvt_f32_f16 s3, s1".into(),
            xb | 0x1234_0000,
            0,
            0,
            Want::F32(xf.to_bits()),
        ));
        cases.push((
            "s_cvt_hi_f32_f16 s3, s1".into(),
            xb << 16 | 0x3c00,
            0,
            0,
            Want::F32(xf.to_bits()),
        ));
    }
    let lines: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
    let words = asm22(mcpu_1151(), false, &lines);
    let mut bad = Vec::new();
    let mut names = BTreeSet::new();
    for ((line, s1, s2, s3, want), w) in cases.iter().zip(&words) {
        names.insert(line.split(' ').next().unwrap_or_default().to_string());
        let mut r = WaveRegs::new(Gen::Gfx11);
        (r.s[1], r.s[2], r.s[3]) = (*s1, *s2, *s3);
        r.scc = !matches!(want, Want::Scc(true));
        run_words(Gen::Gfx11, w, &mut r).unwrap_or_else(|e| panic!("{line}: {e:?}"));
        let ok = match *want {
            Want::F32(b) => {
                r.s[3] == b || (f32::from_bits(b).is_nan() && f32::from_bits(r.s[3]).is_nan())
            }
            Want::F16(b) => {
                r.s[3] == b || (f16v(b).is_nan() && f16v(r.s[3]).is_nan() && r.s[3] >> 16 == 0)
            }
            Want::Bits(b) => r.s[3] == b,
            Want::Scc(c) => r.scc == c,
        };
        if !ok {
            bad.push(format!(
                "{line} [{s1:#x}, {s2:#x}, {s3:#x}]: s3 {:#x} scc {}",
                r.s[3], r.scc
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} wrong: {:#?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
    // Every scalar float opcode has lines.
    assert_eq!(names.len(), 58, "{names:?}");
}

fn mcpu_1151() -> &'static str {
    "gfx1151"
}

/// A rounding of an f16 value (exact in f64), as f64.
fn xq_round(x: f64, g: fn(f64) -> f64) -> f64 {
    g(f16v(f16b(x)))
}

/// MODE applies to the scalar float operations: FP_DENORM flushes f32 denormal inputs and
/// results (bits 5:4 = 0), FP_ROUND rounds toward zero (bits 1:0 = 3).
#[test]
fn salu_float_mode() {
    let lines = [
        "s_add_f32 s3, s1, s2".to_string(),
        "s_mul_f32 s4, s1, s1".to_string(),
        "s_add_f32 s5, s6, s7".to_string(),
    ];
    let w = asm22("gfx1151", false, &lines).concat();
    // Flush: denormal + 0 is 0; a denormal product is 0; the tie rounds to even.
    let mut r = WaveRegs::new(Gen::Gfx11);
    r.mode = WaveRegs::DEFAULT_MODE & !0x30;
    (r.s[1], r.s[2]) = (1.0e-40f32.to_bits(), 0);
    (r.s[6], r.s[7]) = (1.0f32.to_bits(), (1.0f32 - f32::EPSILON / 2.0).to_bits());
    run_words(Gen::Gfx11, &w, &mut r).expect("mode");
    assert_eq!(r.s[3], 0, "flushed denormal input");
    assert_eq!(r.s[4], 0, "flushed product");
    assert_eq!(f32::from_bits(r.s[5]), 2.0, "nearest even");
    // Round toward zero: 1 + (1 − 2^-24) is halfway between 2 − 2^-23 and 2.
    let mut r = WaveRegs::new(Gen::Gfx11);
    r.mode = WaveRegs::DEFAULT_MODE | 3;
    (r.s[6], r.s[7]) = (1.0f32.to_bits(), (1.0f32 - f32::EPSILON / 2.0).to_bits());
    run_words(Gen::Gfx11, &w, &mut r).expect("mode");
    assert_eq!(f32::from_bits(r.s[5]), 2.0 - f32::EPSILON, "toward zero");
}

// ---------------------------------------------------------------------------------------
// Typed buffer accesses with GFX11's format numbering and the d16 spellings.

/// Runs `lines` on a wave with a 1 KiB global buffer behind the raw V# s[8:11] (word 3:
/// destination selects X, Y, Z, W, FORMAT `fmt`, OOB_SELECT 3) and v1 = 8·lane.
fn typed_run(
    mcpu: &str,
    wave64: bool,
    gen: Gen,
    lines: &[String],
    fmt: u32,
    setup: &dyn Fn(&mut [u8], &mut WaveRegs),
) -> (Vec<u8>, WaveRegs) {
    let w: Vec<u32> = asm22(mcpu, wave64, lines).concat();
    let mut store = vec![0u8; 1024 + 8];
    let o = store.as_ptr().align_offset(8);
    let mem = &mut store[o..o + 1024];
    let addr = mem.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    r.s[8] = addr as u32;
    r.s[9] = (addr >> 32) as u32;
    r.s[10] = 1024;
    r.s[11] = 0xfac | fmt << 12 | 3 << 28;
    let e = exec_of(wave64);
    r.s[WaveRegs::EXEC] = e as u32;
    r.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
    for l in 0..64 {
        r.v[1][l] = 8 * l as u32;
    }
    setup(mem, &mut r);
    run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
        .unwrap_or_else(|e| panic!("{lines:?}: {e:?}"));
    (mem.to_vec(), r)
}

/// `buffer_*_d16_format_*` (format from the V#) and `tbuffer_*_d16_format_*` (from the
/// instruction) with 16-bit UINT formats of every component count: a store leaves the
/// register halves in memory (two per register, X low), a load brings them back.
#[test]
fn typed_buffer_d16() {
    let fmts = [
        ("x", 1, "BUF_FMT_16_UINT", 11),
        ("xy", 2, "BUF_FMT_16_16_UINT", 27),
        ("xyz", 3, "BUF_FMT_16_16_16_16_UINT", 55),
        ("xyzw", 4, "BUF_FMT_16_16_16_16_UINT", 55),
    ];
    for (mcpu, wave64, gen) in WAVES {
        let lanes = if wave64 { 64 } else { 32 };
        for (c, n, name, num) in fmts {
            for prefix in ["buffer", "tbuffer"] {
                let regs = |b: usize| {
                    if n <= 2 {
                        format!("v{b}")
                    } else {
                        format!("v[{b}:{}]", b + 1)
                    }
                };
                let f = if prefix == "tbuffer" {
                    format!(" format:[{name}]")
                } else {
                    String::new()
                };
                let lines = [
                    format!(
                        "{prefix}_store_d16_format_{c} {}, v1, s[8:11], 0{f} offen",
                        regs(4)
                    ),
                    format!(
                        "{prefix}_load_d16_format_{c} {}, v1, s[8:11], 0{f} offen",
                        regs(6)
                    ),
                ];
                let (mem, r) = typed_run(mcpu, wave64, gen, &lines, num, &|_, r| {
                    for l in 0..64 {
                        r.v[4][l] = mix(l as u64) as u32;
                        r.v[5][l] = mix(100 + l as u64) as u32;
                        r.v[6][l] = 0xdead_beef;
                        r.v[7][l] = 0xdead_beef;
                    }
                });
                for l in 0..lanes {
                    for k in 0..n {
                        let reg = 4 + k / 2;
                        let h = (mix(if reg == 4 { l as u64 } else { 100 + l as u64 }) as u32
                            >> (16 * (k % 2)))
                            & 0xffff;
                        let at = 8 * l + 2 * k;
                        let m = u32::from(u16::from_le_bytes([mem[at], mem[at + 1]]));
                        let back = r.v[6 + k / 2][l] >> (16 * (k % 2)) & 0xffff;
                        if l == 5 {
                            assert_eq!(m, 0, "{lines:?} lane 5 stored");
                            assert_eq!(r.v[6][l], 0xdead_beef, "{lines:?} lane 5 loaded");
                        } else {
                            assert_eq!(m, h, "{lines:?} w{lanes} lane {l} component {k} stored");
                            assert_eq!(back, h, "{lines:?} w{lanes} lane {l} component {k} loaded");
                        }
                    }
                }
            }
        }
        // d16_hi: the high half goes to memory, a load fills the high half (the low is kept);
        // format 16_FLOAT (13) from the V#.
        let lines = [
            "buffer_store_d16_hi_format_x v4, v1, s[8:11], 0 offen".to_string(),
            "buffer_load_d16_hi_format_x v5, v1, s[8:11], 0 offen".to_string(),
        ];
        let (mem, r) = typed_run(mcpu, wave64, gen, &lines, 13, &|_, r| {
            for l in 0..64 {
                r.v[4][l] = f16b(l as f64 - 20.5) << 16 | 0x1234;
                r.v[5][l] = 0x0000_5678;
            }
        });
        for l in (0..lanes).filter(|&l| l != 5) {
            let h = f16b(l as f64 - 20.5);
            assert_eq!(
                u32::from(u16::from_le_bytes([mem[8 * l], mem[8 * l + 1]])),
                h,
                "d16_hi store lane {l}"
            );
            assert_eq!(r.v[5][l], h << 16 | 0x5678, "d16_hi load lane {l}");
        }
        // GFX11's numbering past 16_16_FLOAT: 8_8_8_8_UNORM is 42 (GFX10: 56); component b
        // of a lane reads byte b / 255.
        for (line, fmt) in [
            ("tbuffer_load_format_xyzw v[8:11], v1, s[8:11], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen", 0),
            ("buffer_load_format_xyzw v[8:11], v1, s[8:11], 0 offen", 42),
        ] {
            let (mem, r) = typed_run(mcpu, wave64, gen, &[line.to_string()], fmt, &|m, _| {
                for (k, b) in m.iter_mut().enumerate() {
                    *b = mix(7 * k as u64) as u8;
                }
            });
            for l in (0..lanes).filter(|&l| l != 5) {
                for b in 0..4 {
                    let want = f32::from(mem[8 * l + b]) / 255.0;
                    let got = f32::from_bits(r.v[8 + b][l]);
                    assert!((got - want).abs() <= f32::EPSILON, "{line} lane {l} component {b}: {got} {want}");
                }
            }
        }
    }
}

/// `global_atomic_csub_u32` / `buffer_atomic_csub_u32`: subtract clamped at 0
/// (`old >= data ? old - data : 0`), the old value returned under glc.
#[test]
fn atomic_csub() {
    for (mcpu, wave64, gen) in WAVES {
        let lanes = if wave64 { 64 } else { 32 };
        for asm in [
            "global_atomic_csub_u32 v3, v1, v4, s[0:1] glc",
            "buffer_atomic_csub_u32 v4, v1, s[8:11], 0 offen glc",
        ] {
            let w = asm22(mcpu, wave64, &[asm.to_string()]).remove(0);
            let mut store = vec![0u8; 256 + 8];
            let o = store.as_ptr().align_offset(8);
            let mem = &mut store[o..o + 256];
            let addr = mem.as_ptr() as u64;
            let mut r = WaveRegs::new(gen);
            (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
            (r.s[8], r.s[9], r.s[10], r.s[11]) = (addr as u32, (addr >> 32) as u32, 256, 3 << 28);
            let e = exec_of(wave64);
            r.s[WaveRegs::EXEC] = e as u32;
            r.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
            let old = |l: usize| [5u32, 100, 0, u32::MAX, 7, 0x8000_0000][l % 6];
            let dat = |l: usize| [3u32, 101, 0, 1, 7, 0x8000_0001][(l / 6 + l) % 6];
            for l in 0..64 {
                mem[4 * l..4 * l + 4].copy_from_slice(&old(l).to_le_bytes());
                r.v[1][l] = 4 * l as u32;
                r.v[4][l] = dat(l);
            }
            run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let ret = if asm.starts_with("buffer") { 4 } else { 3 };
            for l in 0..lanes {
                let got = u32::from_le_bytes(mem[4 * l..4 * l + 4].try_into().expect("4"));
                let (o, d) = (old(l), dat(l));
                let want = if l == 5 { o } else { o.saturating_sub(d) };
                assert_eq!(got, want, "{asm} w{lanes} lane {l}: {o} - {d}");
                if l != 5 {
                    assert_eq!(r.v[ret][l], o, "{asm} lane {l} returned");
                }
            }
        }
    }
}

/// `v_dual_dot2acc_f32_bf16` (a VOPD half): D += S0.lo·S1.lo + S0.hi·S1.hi in bf16, one
/// rounding; and `v_illegal` (the all-zero word) raises an illegal-instruction fault.
#[test]
fn dot2acc_bf16_and_illegal() {
    for (mcpu, wave64, gen) in WAVES {
        let w = asm22(mcpu, wave64, &["v_illegal".to_string()]);
        assert_eq!(w[0], [0]);
        let e = run_words(gen, &w[0], &mut WaveRegs::new(gen)).expect_err("v_illegal");
        assert!(
            matches!(e, hsaemu_emu::FaultKind::IllegalInstruction { word: 0 }),
            "{e:?}"
        );
        // VOPD is wave32 only.
        if wave64 {
            continue;
        }
        let bf = |x: f64| (x as f32).to_bits() >> 16;
        let r = run1(
            mcpu,
            wave64,
            gen,
            "v_dual_dot2acc_f32_bf16 v0, v1, v2 :: v_dual_mov_b32 v3, v4",
            |r| {
                for l in 0..64 {
                    let q = |k: usize| (mix((l * 5 + k) as u64) % 33) as f64 / 4.0 - 4.0;
                    r.v[1][l] = bf(q(0)) | bf(q(1)) << 16;
                    r.v[2][l] = bf(q(2)) | bf(q(3)) << 16;
                    r.v[0][l] = (1.0e8f32 + l as f32).to_bits();
                    r.v[4][l] = l as u32;
                }
            },
        );
        let lanes = if wave64 { 64 } else { 32 };
        for l in 0..lanes {
            let q = |k: usize| (mix((l * 5 + k) as u64) % 33) as f64 / 4.0 - 4.0;
            let want = (q(0) * q(2) + q(1) * q(3) + f64::from(1.0e8f32 + l as f32)) as f32;
            assert_eq!(f32::from_bits(r.v[0][l]), want, "lane {l}");
            assert_eq!(r.v[3][l], l as u32);
        }
    }
}

/// VOPD: both halves read their sources before either writes (RDNA3 ISA, "Dual Issue VALU"),
/// so a Y half reading the X half's destination sees the old value, and an X half reading the
/// Y half's destination too.
#[test]
fn vopd_halves_read_before_either_writes() {
    for (mcpu, wave64, gen) in WAVES {
        if wave64 {
            continue; // VOPD is wave32 only
        }
        let r = run1(
            mcpu,
            wave64,
            gen,
            "v_dual_add_f32 v0, v1, v3 :: v_dual_mul_f32 v3, v0, v4",
            |r| {
                for l in 0..64 {
                    r.v[0][l] = (l as f32 * 0.5).to_bits();
                    r.v[1][l] = (l as f32 + 100.0).to_bits();
                    r.v[3][l] = 3.0f32.to_bits();
                    r.v[4][l] = (-2.0f32).to_bits();
                }
            },
        );
        for l in 0..32 {
            // X: v0 = v1 + old v3; Y: v3 = old v0 * v4.
            assert_eq!(
                f32::from_bits(r.v[0][l]),
                l as f32 + 103.0,
                "{mcpu} lane {l}"
            );
            assert_eq!(f32::from_bits(r.v[3][l]), -(l as f32), "{mcpu} lane {l}");
        }
    }
}
