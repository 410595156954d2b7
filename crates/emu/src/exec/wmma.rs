//! Wave matrix multiply-accumulate (`v_wmma_*`, RDNA3/RDNA3.5): one instruction computes
//! `D = A·B + C` for one 16×16×16 product spread over the wave's lanes.
//!
//! Every opcode is one [`Shape`] row in [`SHAPES`]: its element types and its register
//! [`Layout`]. GFX12 (RDNA4) packs A and B without copies, splits K between lane halves and
//! adds fp8 and sparse shapes: its opcodes are rows of `wmma12.rs` ([`execute_any`] picks the
//! table by generation).
//!
//! GFX11's layout (AMD's RDNA3 ISA guide §7.9, the "WMMA on RDNA 3" GPUOpen note, and AMD's
//! Matrix Instruction Calculator, `InstCalcGfx11`):
//!
//! - **A and B.** Lane `i` (mod 16) holds row `i` of A (column `i` of B), all 16
//!   k-elements packed from the low bits up: 8 VGPRs of f16/bf16, 4 of 8-bit, 2 of 4-bit
//!   integers. Every 16-lane group holds a copy (two in wave32, four in wave64); the guide
//!   requires the copies to agree. Here each group reads its own copy: the group that holds
//!   an element of D reads A and B from its own lanes.
//! - **C and D.** Row `i`, column `j` is in VGPR `i / G`, lane `16·(i % G) + j`, for
//!   `G = wave size / 16` groups: wave32 interleaves even rows (lanes 0–15) and odd rows
//!   (lanes 16–31) over 8 VGPRs, wave64 takes four rows per VGPR over 4 VGPRs. 16-bit results
//!   use one half of each VGPR, the low half or, with `op_sel[2]`, the high half (of C and
//!   D); the other half of D keeps its value.
//! - **Modifiers** (the calculator's reading of NEG/NEG_HI). Float inputs: `neg_lo[0]`/
//!   `neg_lo[1]` negate the low 16 bits of each A/B register (even k), `neg_hi[0]`/`neg_hi[1]`
//!   the high 16 bits (odd k); `neg_hi[2]` takes |C| and `neg_lo[2]` subtracts it. Integer
//!   inputs: `neg_lo[0]`/`neg_lo[1]` make A/B signed (unsigned otherwise), `clamp` saturates
//!   the i32 result; `neg_lo[2]` and `neg_hi` must be zero. Any other use of a modifier is not
//!   defined and faults as unimplemented, naming it.
//!
//! C may be an inline constant (every element). Float products are exact, summed in f64 with
//! C and rounded once to the result type (nearest even); the hardware's internal order and
//! rounding are not published, so the last bit can differ from hardware, and MODE's rounding
//! and denormal controls are not applied. Integer sums are exact and wrap (or saturate under
//! `clamp`). Results are written to the lanes enabled in EXEC (the guide requires EXEC to be
//! all ones).

use super::mfma::undefined;
use super::{Flow, R};
use crate::decode::{flag, Gen, Inst, VGPR};
use crate::ops::Op;
use crate::wave::{reg_index, Ty, Wave, LANES};
use half::f16;

/// Element type of A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum In {
    F16,
    Bf16,
    /// 8-bit integers, signed or unsigned by `neg_lo`.
    Iu8,
    /// 4-bit integers, signed or unsigned by `neg_lo`.
    Iu4,
    /// GFX12: OCP E4M3FN.
    Fp8,
    /// GFX12: OCP E5M2.
    Bf8,
}

impl In {
    pub(super) fn bits(self) -> usize {
        match self {
            In::F16 | In::Bf16 => 16,
            In::Iu8 | In::Fp8 | In::Bf8 => 8,
            In::Iu4 => 4,
        }
    }

    pub(super) fn integer(self) -> bool {
        matches!(self, In::Iu8 | In::Iu4)
    }
}

/// Element type of C and D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    F32,
    F16,
    Bf16,
    I32,
}

impl Out {
    pub(super) fn bits(self) -> usize {
        match self {
            Out::F32 | Out::I32 => 32,
            Out::F16 | Out::Bf16 => 16,
        }
    }

    /// A float C element from its bits, with NEG_HI[2] (|C|) applied before NEG[2] (−C).
    pub(super) fn float_c(self, bits: u32, neg: u8, neg_hi: u8) -> f64 {
        let c = match self {
            Out::F16 => f16::from_bits(bits as u16).to_f64(),
            Out::Bf16 => f64::from(f32::from_bits(bits << 16)),
            _ => f64::from(f32::from_bits(bits)),
        };
        let c = if neg_hi & 4 != 0 { c.abs() } else { c };
        if neg & 4 != 0 {
            -c
        } else {
            c
        }
    }

    /// An exact float sum rounded once (nearest even) to a float result type's bits.
    pub(super) fn round(self, s: f64) -> u32 {
        match self {
            Out::F16 => u32::from(f16::from_f64(s).to_bits()),
            Out::Bf16 => u32::from(bf16_of(s)),
            _ => (s as f32).to_bits(),
        }
    }
}

/// Operand VGPRs `code`, `code + 1`, … (`n` of them).
pub(super) fn vgprs(w: &Wave, code: u16, n: usize) -> Vec<[u32; LANES]> {
    (0..n).map(|r| w.v[reg_index(code + r as u16)]).collect()
}

/// Stores result bits `r` at bit `at` of a D VGPR lane: a 16-bit result keeps the other half.
pub(super) fn store(d: &mut u32, r: u32, at: usize, bits: usize) {
    *d = if bits == 16 {
        *d & !(0xffff << at) | r << at
    } else {
        r
    };
}

/// Writes D's VGPRs to the lanes enabled in EXEC.
pub(super) fn write_d(w: &mut Wave, dst: u16, d: &[[u32; LANES]], exec: u64) {
    for (r, row) in d.iter().enumerate() {
        w.vwrite(dst + r as u16, row, exec);
    }
}

/// Where the lanes hold the matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// RDNA3/RDNA3.5 (see the module docs).
    Gfx11,
}

/// One WMMA opcode: an M×K matrix A times a K×N matrix B, plus C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub input: In,
    pub output: Out,
    pub layout: Layout,
}

const fn gfx11(input: In, output: Out) -> Shape {
    Shape {
        m: 16,
        n: 16,
        k: 16,
        input,
        output,
        layout: Layout::Gfx11,
    }
}

/// Every WMMA opcode. GFX12's shapes are rows with their own layout.
pub(crate) static SHAPES: &[(Op, Shape)] = &[
    (Op::V_WMMA_F32_16X16X16_F16, gfx11(In::F16, Out::F32)),
    (Op::V_WMMA_F32_16X16X16_BF16, gfx11(In::Bf16, Out::F32)),
    (Op::V_WMMA_F16_16X16X16_F16, gfx11(In::F16, Out::F16)),
    (Op::V_WMMA_BF16_16X16X16_BF16, gfx11(In::Bf16, Out::Bf16)),
    (Op::V_WMMA_I32_16X16X16_IU8, gfx11(In::Iu8, Out::I32)),
    (Op::V_WMMA_I32_16X16X16_IU4, gfx11(In::Iu4, Out::I32)),
];

/// The shape of a WMMA operation.
pub(crate) fn shape(op: Op) -> Option<&'static Shape> {
    SHAPES.iter().find(|(o, _)| *o == op).map(|(_, s)| s)
}

impl Shape {
    /// VGPRs of one A or B operand.
    pub(crate) fn in_regs(&self) -> usize {
        match self.layout {
            Layout::Gfx11 => self.k * self.input.bits() / 32,
        }
    }

    /// VGPRs of C and D.
    pub(crate) fn out_regs(&self, wave: usize) -> usize {
        match self.layout {
            // 16-bit results take one half of a VGPR: as many VGPRs as 32-bit ones.
            Layout::Gfx11 => self.m * self.n / wave,
        }
    }

    /// Lane and bit offset (in the lane's `in_regs` VGPRs, from VGPR 0 bit 0 up) of element
    /// (i, k) of A, read for the 16-lane group `g` (for B: (j, k)).
    pub(crate) fn in_loc(&self, i: usize, k: usize, g: usize) -> (usize, usize) {
        match self.layout {
            Layout::Gfx11 => (16 * g + i, k * self.input.bits()),
        }
    }

    /// VGPR and lane of element (i, j) of C and D, and the 16-lane group whose copies of A
    /// and B it is computed from.
    pub(crate) fn out_loc(&self, i: usize, j: usize, wave: usize) -> (usize, usize, usize) {
        match self.layout {
            Layout::Gfx11 => {
                let groups = wave / 16;
                (i / groups, 16 * (i % groups) + j, i % groups)
            }
        }
    }
}

/// f64 to bf16, rounding to nearest even once (the f64 holds the exact-enough sum).
pub(super) fn bf16_of(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fc0;
    }
    // Round the f64 to 8 significant bits, then the f32 conversion is exact (in f32's normal
    // range) and bf16 is its high half.
    let bits = x.to_bits();
    let drop = 52 - 7;
    let half = 1u64 << (drop - 1);
    let keep_odd = (bits >> drop) & 1;
    let rounded = (bits + half - 1 + keep_odd) & !((1u64 << drop) - 1);
    ((f64::from_bits(rounded) as f32).to_bits() >> 16) as u16
}

/// A lane's packed operand element: raw bits of element `at` (bit offset) of width `bits`.
fn field(regs: &[[u32; LANES]], lane: usize, at: usize, bits: usize) -> u32 {
    let v = regs[at / 32][lane] >> (at % 32);
    if bits == 32 {
        v
    } else {
        v & ((1 << bits) - 1)
    }
}

/// Executes `i` if it is a WMMA (or SWMMAC) operation of `gen`: GFX12 keeps GFX11's mnemonics
/// but not their layout, so its opcodes are rows of `wmma12`.
pub(crate) fn execute_any(w: &mut Wave, i: &Inst, exec: u64, gen: Gen) -> Option<R> {
    if gen.is_gfx12() {
        let sh = super::wmma12::shape(i.op)?;
        return Some(super::wmma12::execute(w, i, exec, gen, sh));
    }
    shape(i.op).map(|sh| execute(w, i, exec, gen, sh))
}

/// Whether `op`, if it is a WMMA or SWMMAC operation, has a row in `gen`'s table (any other
/// operation: true).
pub(crate) fn defined_on(gen: Gen, op: Op) -> bool {
    let (gfx11, gfx12) = (shape(op).is_some(), super::wmma12::shape(op).is_some());
    !(gfx11 || gfx12) || if gen.is_gfx12() { gfx12 } else { gfx11 }
}

/// Executes a GFX11 WMMA operation of shape `sh`.
#[inline(never)]
fn execute(w: &mut Wave, i: &Inst, exec: u64, gen: Gen, sh: &Shape) -> R {
    let wave = gen.wave_size() as usize;
    let (neg, neg_hi) = (i.neg, i.neg_hi);
    let clamp = i.has(flag::CLAMP);
    if sh.input.integer() {
        if neg & 4 != 0 || neg_hi != 0 {
            return Err(undefined(
                i,
                format!("neg_lo:{neg} neg_hi:{neg_hi} (only neg_lo[0:1], the signedness of A and B, is defined for integer WMMA)"),
            ));
        }
    } else if clamp {
        return Err(undefined(i, "clamp (not defined for float WMMA)".into()));
    }
    if i.src[0] < VGPR || i.src[1] < VGPR {
        return Err(undefined(i, "with a scalar A/B operand".into()));
    }
    let read = |code: u16, n: usize| vgprs(w, code, n);
    let a = read(i.src[0], sh.in_regs());
    let b = read(i.src[1], sh.in_regs());
    let nregs = sh.out_regs(wave);
    // 16-bit results: op_sel[2] picks the high halves of C and D.
    let shift = if sh.output.bits() == 16 && i.opsel & 4 != 0 {
        16
    } else {
        0
    };
    let c = if i.src[2] >= VGPR {
        read(i.src[2], nregs)
    } else {
        let ty = if sh.output.bits() == 16 {
            Ty::B16
        } else {
            Ty::B32
        };
        let v = w.sread(i.src[2], i.lit, ty);
        let v = if sh.output.bits() == 16 {
            (v & 0xffff) << shift
        } else {
            v
        };
        vec![[v; LANES]; nregs]
    };
    let mut d: Vec<[u32; LANES]> = read(i.dst, nregs);
    let bits = sh.input.bits();
    // Float input k of an A/B lane, negated by neg_lo (even k) or neg_hi (odd k) bit `s`.
    let float_in = |regs: &[[u32; LANES]], lane: usize, k: usize, s: u8| -> f64 {
        let mut x = field(regs, lane, k * bits, bits);
        let m = if k.is_multiple_of(2) { neg } else { neg_hi };
        if m >> s & 1 != 0 {
            x ^= 0x8000;
        }
        match sh.input {
            In::F16 => f16::from_bits(x as u16).to_f64(),
            _ => f64::from(f32::from_bits(x << 16)),
        }
    };
    // Integer input k, signed when neg_lo bit `s` is set.
    let int_in = |regs: &[[u32; LANES]], lane: usize, k: usize, s: u8| -> i64 {
        let x = field(regs, lane, k * bits, bits);
        if neg >> s & 1 != 0 {
            let up = 32 - bits as u32;
            i64::from(((x << up) as i32) >> up)
        } else {
            i64::from(x)
        }
    };
    for row in 0..sh.m {
        for col in 0..sh.n {
            let (reg, lane, g) = sh.out_loc(row, col, wave);
            let (la, _) = sh.in_loc(row, 0, g);
            let (lb, _) = sh.in_loc(col, 0, g);
            let cv = c[reg][lane] >> shift;
            let r = match sh.output {
                Out::I32 => {
                    let mut acc = i64::from(cv as i32);
                    for k in 0..sh.k {
                        acc += int_in(&a, la, k, 0) * int_in(&b, lb, k, 1);
                    }
                    if clamp {
                        acc.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u32
                    } else {
                        acc as u32
                    }
                }
                out => {
                    let mut sum = 0.0f64;
                    for k in 0..sh.k {
                        sum += float_in(&a, la, k, 0) * float_in(&b, lb, k, 1);
                    }
                    out.round(sum + out.float_c(cv, neg, neg_hi))
                }
            };
            store(&mut d[reg][lane], r, shift, sh.output.bits());
        }
    }
    write_d(w, i.dst, &d, exec);
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of C/D has one place in each wave size, and the places fill the VGPRs;
    /// A and B elements fill their VGPRs.
    #[test]
    fn layouts_are_bijections() {
        for (op, sh) in SHAPES {
            for wave in [32, 64] {
                let n = sh.out_regs(wave);
                let mut seen = vec![false; n * wave];
                for i in 0..sh.m {
                    for j in 0..sh.n {
                        let (r, l, g) = sh.out_loc(i, j, wave);
                        assert!(l < wave && g < wave / 16, "{op:?}");
                        assert!(!seen[r * wave + l], "{op:?} D({i},{j}) wave{wave}");
                        seen[r * wave + l] = true;
                    }
                }
                assert!(seen.iter().all(|&x| x), "{op:?} wave{wave}");
            }
            assert_eq!(sh.in_regs() * 32, sh.k * sh.input.bits(), "{op:?}");
        }
    }

    /// Spot checks against the GPUOpen note's loops (`r = 2·ele + lane/16`) and the
    /// calculator's wave64 layout (four rows per VGPR).
    #[test]
    fn layouts_match_amd() {
        let sh = shape(Op::V_WMMA_F32_16X16X16_F16).expect("shape");
        assert_eq!(sh.out_loc(5, 3, 32), (2, 19, 1));
        assert_eq!(sh.out_loc(5, 3, 64), (1, 19, 1));
        assert_eq!(sh.out_loc(14, 15, 64), (3, 47, 2));
        assert_eq!(sh.out_regs(32), 8);
        assert_eq!(sh.out_regs(64), 4);
        assert_eq!(sh.in_loc(7, 9, 1), (23, 144));
        let iu4 = shape(Op::V_WMMA_I32_16X16X16_IU4).expect("shape");
        assert_eq!(iu4.in_regs(), 2);
        assert_eq!(iu4.in_loc(2, 9, 3), (50, 36));
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(bf16_of(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even is 1.
        assert_eq!(bf16_of(1.0 + 1.0 / 256.0), 0x3f80);
        assert_eq!(bf16_of(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16_of(1.0 + 1.0 / 256.0 + 1e-9), 0x3f81);
        assert_eq!(bf16_of(-2.0), 0xc000);
    }
}
