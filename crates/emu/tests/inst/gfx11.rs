//! Per-instruction tests of GFX11 (RDNA3/RDNA3.5) opcodes (a module of `tests/inst.rs`):
//! lines assembled by llvm-mc-22 for gfx1100/gfx1151 (wave32 and wave64), run on one wave
//! (`run_words`), and compared with references written here from AMD's definitions (RDNA3
//! ISA guide; for WMMA also AMD's Matrix Instruction Calculator and the GPUOpen WMMA note).

use hsaemu_emu::{run_words, Gen, WaveRegs};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Assembles `lines` with llvm-mc-22 for `mcpu` (wave64 with `+wavefrontsize64`): the words
/// of each line. Every line must assemble. Cached in the kernel cache by the text.
pub(super) fn asm22(mcpu: &str, wave64: bool, lines: &[String]) -> Vec<Vec<u32>> {
    let attr = if wave64 {
        "+wavefrontsize64"
    } else {
        "+wavefrontsize32"
    };
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let key = format!("{mcpu}{attr}\n{text}");
    let path: PathBuf = hsaemu_testkit::cache_dir().join(format!(
        "inst22-{mcpu}-{:016x}.txt",
        super::fnv(key.as_bytes())
    ));
    let out = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(_) => {
            let src = path.with_extension(format!("{}.s", std::process::id()));
            std::fs::write(&src, &text).expect("write asm");
            let o = std::process::Command::new(hsaemu_testkit::tool("llvm-mc-22"))
                .args([
                    "-arch=amdgcn",
                    &format!("-mcpu={mcpu}"),
                    &format!("-mattr={attr}"),
                    "-show-encoding",
                ])
                .arg(&src)
                .output()
                .expect("run llvm-mc-22");
            let _ = std::fs::remove_file(&src);
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

/// The two GFX11 generations the tests run: (llvm-mc cpu, wave64, emulator generation).
pub(super) const WAVES: [(&str, bool, Gen); 2] =
    [("gfx1100", false, Gen::Gfx11), ("gfx1100", true, Gen::Gfx11W64)];

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
    let w = asm22(mcpu, wave64, &[asm.to_string()]).remove(0);
    let mut regs = WaveRegs::new(gen);
    setup(&mut regs);
    run_words(gen, &w, &mut regs).unwrap_or_else(|e| panic!("{asm} [{mcpu} w{}]: {e:?}", if wave64 { 64 } else { 32 }));
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
                let flag = if k % 2 == 0 { m.neg_lo } else { m.neg_hi };
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

fn wmma_case(s: &Wmma, m: Mods, seed: u64) {
    for (mcpu, wave64, gen) in WAVES {
        let wave = if wave64 { 64 } else { 32 };
        let groups = wave / 16;
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
        let asm = format!(
            "{} {}, {}, {}, {c_text}{mods}",
            s.name,
            r(vd, out_regs),
            r(va, in_regs),
            r(vb, in_regs)
        );
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
                    bad.push(format!("D({i},{j}) v{}[{lane}] = {got:#x}, want {exp:#x}", vd + reg));
                }
            }
        }
        // Lanes past the wave and registers past D are untouched.
        for r in 0..out_regs {
            for l in wave..64 {
                assert_eq!(regs.v[vd + r][l], mix(((vd + r) * 64 + l) as u64) as u32, "{asm}: lane {l}");
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
    for (n, s) in WMMA.iter().enumerate() {
        let seed = n as u64 * 10;
        wmma_case(s, Mods::default(), seed);
        wmma_case(s, Mods { d_is_c: true, ..Mods::default() }, seed + 1);
        // (A bf16 C constant is not tested: how the hardware reads an inline float constant
        // for a bf16 operand is not documented.)
        if s.output != Ty::Bf16 {
            wmma_case(s, Mods { c_one: true, ..Mods::default() }, seed + 2);
        }
    }
}

/// Float modifiers: neg_lo/neg_hi on A and B (even and odd k), −C and |C|; op_sel for the
/// 16-bit results (C and D in the high halves, the low halves of D kept).
#[test]
fn wmma_float_modifiers() {
    for s in WMMA.iter().filter(|s| s.output != Ty::I32) {
        for (k, (neg_lo, neg_hi)) in [(1, 0), (2, 0), (0, 1), (0, 2), (3, 3), (4, 0), (0, 4), (4, 4), (5, 6)]
            .into_iter()
            .enumerate()
        {
            wmma_case(s, Mods { neg_lo, neg_hi, ..Mods::default() }, 100 + k as u64);
        }
        if matches!(s.output, Ty::F16 | Ty::Bf16) {
            wmma_case(s, Mods { hi: true, ..Mods::default() }, 200);
            wmma_case(s, Mods { hi: true, d_is_c: true, ..Mods::default() }, 201);
            wmma_case(s, Mods { hi: true, neg_lo: 4, ..Mods::default() }, 202);
        }
    }
}

/// Integer modifiers: neg_lo[0]/[1] choose signed A/B, clamp saturates (C near the i32
/// limits makes the plain form wrap).
#[test]
fn wmma_integer_modifiers() {
    for s in WMMA.iter().filter(|s| s.output == Ty::I32) {
        for signs in 0..4u8 {
            for clamp in [false, true] {
                let m = Mods { neg_lo: signs, clamp, ..Mods::default() };
                wmma_case(s, m, 300 + u64::from(signs) * 2 + u64::from(clamp));
            }
        }
    }
}

/// Modifiers AMD does not define fault as unimplemented, naming the instruction.
#[test]
fn wmma_undefined_modifiers_fault() {
    for (mcpu, wave64, gen) in WAVES {
        for asm in [
            "v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[8:11], v[16:23] neg_hi:[1,0,0]",
            "v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[8:11], v[16:23] neg_lo:[0,0,1]",
        ] {
            let asm = if wave64 { asm.replace("v[16:23]", "v[16:19]") } else { asm.to_string() };
            let w = asm22(mcpu, wave64, &[asm.clone()]).remove(0);
            let mut regs = WaveRegs::new(gen);
            let e = run_words(gen, &w, &mut regs).expect_err(&asm);
            assert!(format!("{e:?}").contains("v_wmma_i32_16x16x16_iu8"), "{asm}: {e:?}");
        }
    }
}

/// Mnemonics these tests cover.
#[allow(dead_code)]
pub(super) fn mnemonics() -> BTreeSet<String> {
    WMMA.iter().map(|s| s.name.to_string()).collect()
}
