//! GFX12 (RDNA4: gfx1200/gfx1201) wave matrix multiply-accumulate: dense `v_wmma_*` and
//! 2:4-sparse `v_swmmac_*`. One instruction computes `D = A·B + C` (SWMMAC: `D = A·B + D`) for
//! one 16×16×K product spread over the wave's lanes.
//!
//! GFX12 keeps GFX11's WMMA mnemonics but not their layout, so its opcodes are rows of their
//! own table ([`SHAPES`]). Layout source: AMD's Matrix Instruction Calculator
//! (`InstCalcGfx12`, `--architecture rdna4`), whose formulas the rules below reproduce for every
//! element of every opcode in both wave sizes (checked once against the tool; the unit tests
//! keep spot checks, including the tool's README examples).
//!
//! - **Wave32 A and B.** Lane `16·h + r` holds row `r` of A (column `r` of B); no copies.
//!   The lane pair splits K in runs of `e` consecutive k: run `c = k / e` goes to lane half
//!   `h = c % 2`, at element `p = (c / 2)·e + k % e` of the lane's packed registers (bit
//!   `p·bits`, from the first VGPR up). `e` is 64 bits of elements (4 f16, 8 8-bit, 16 4-bit)
//!   or half of K when that is less (iu4 with K = 16: one VGPR, 8 nibbles per lane).
//! - **SWMMAC A** holds only the two kept values of every group of four k (2:4 structured
//!   sparsity): the compressed 16×K/2 matrix (value `v` of group `g` is compressed column
//!   `2g + v`) is laid out by the dense rule above. B is dense K×16 in runs of `2e`, so that
//!   a lane's B values are the k of its A groups. The index VGPR (the SRC2 field) holds, for
//!   each of the lane's groups in register order, 4 bits: bits 1:0 name the k (0–3) of the
//!   first kept value and bits 3:2 that of the second (AMD's README example: values from k 2
//!   and 3 have indices 2 and 3). When the lane's indices fill less than 32 bits, the VGPR
//!   holds several sets and `index_key` (op_sel[1:0]) picks one.
//! - **C and D.** Row `i`, column `j`: lane `16·(i / 8) + j`, element `i % 8` packed in the
//!   lane (8 VGPRs of 32-bit results; 16-bit results two rows per VGPR, even rows in the low
//!   halves, 4 VGPRs).
//! - **Wave64** folds the wave32 registers: an operand of `n` wave32 VGPRs takes `n/2`, the
//!   first half of them in lanes 0–31 and the second half in lanes 32–63 (wave32 VGPR `r`, lane
//!   `l` is wave64 VGPR `r % (n/2)`, lane `l + 32·(r / (n/2))`). A one-VGPR operand (iu4 A and
//!   B of K = 16, SWMMAC iu4 A of K = 32, the index) keeps its wave32 place: lanes 32–63 are
//!   not read. The index bits follow the folded A registers, so wave64 has twice the sets.
//! - **Modifiers** (the calculator's README and encoding notes; LLVM 22's assembler for what it
//!   accepts). 16-bit float inputs: `neg_lo[0]`/`neg_lo[1]` negate A/B values in the low 16
//!   bits of their registers, `neg_hi[0]`/`neg_hi[1]` those in the high 16 bits. Float
//!   results: `neg_hi[2]` takes |C|, then `neg_lo[2]` negates it; this also applies to the fp8
//!   shapes, whose A/B negation is not defined (the calculator calls NEG unsupported on fp8;
//!   LLVM 22 accepts, and may fold an `fneg` of C into, `neg_lo[2]`/`neg_hi[2]`). Integer
//!   inputs: `neg_lo[0]`/`neg_lo[1]` make A/B signed, `clamp` saturates the i32 result.
//!   SWMMAC accumulates into D and has no C modifiers. No `op_sel` on dense WMMA. Any other
//!   use of a modifier, or an `index_key` beyond the sets, is not defined and faults as
//!   unimplemented, naming it.
//!
//! fp8/bf8 are the OCP formats (E4M3FN, E5M2; see `cdna3.rs`). Float products are exact,
//! summed in f64 with C and rounded once to the result type (nearest even), as for GFX11;
//! integer sums are exact and wrap (or saturate under `clamp`). Every value here, integer ones
//! included, is summed as an f64: integer products and sums stay far below 2^53. Results are
//! written to the lanes enabled in EXEC.

use super::cdna3::{BF8_OCP, FP8_OCP};
use super::mfma::undefined;
use super::wmma::{store, vgprs, write_d, In, Out};
use super::{Flow, R};
use crate::decode::{flag, Gen, Inst, VGPR};
use crate::ops::Op;
use crate::wave::{reg_index, Ty, Wave, LANES};
use half::f16;

/// One GFX12 WMMA/SWMMAC opcode: a 16×K matrix A times a K×16 matrix B, plus C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub k: usize,
    /// Element type of A.
    pub a: In,
    /// Element type of B (the fp8/bf8 shapes mix the two).
    pub b: In,
    pub output: Out,
    /// SWMMAC: A is 2:4 sparse, with an index VGPR; C is D.
    pub sparse: bool,
}

const fn dense(k: usize, a: In, b: In, output: Out) -> Shape {
    Shape {
        k,
        a,
        b,
        output,
        sparse: false,
    }
}

const fn sparse(k: usize, a: In, b: In, output: Out) -> Shape {
    Shape {
        k,
        a,
        b,
        output,
        sparse: true,
    }
}

use In::{Bf16, Bf8, Fp8, Iu4, Iu8, F16};

/// Every GFX12 WMMA and SWMMAC opcode.
pub(crate) static SHAPES: &[(Op, Shape)] = &[
    (Op::V_WMMA_F32_16X16X16_F16, dense(16, F16, F16, Out::F32)),
    (
        Op::V_WMMA_F32_16X16X16_BF16,
        dense(16, Bf16, Bf16, Out::F32),
    ),
    (Op::V_WMMA_F16_16X16X16_F16, dense(16, F16, F16, Out::F16)),
    (
        Op::V_WMMA_BF16_16X16X16_BF16,
        dense(16, Bf16, Bf16, Out::Bf16),
    ),
    (Op::V_WMMA_I32_16X16X16_IU8, dense(16, Iu8, Iu8, Out::I32)),
    (Op::V_WMMA_I32_16X16X16_IU4, dense(16, Iu4, Iu4, Out::I32)),
    (Op::V_WMMA_I32_16X16X32_IU4, dense(32, Iu4, Iu4, Out::I32)),
    (
        Op::V_WMMA_F32_16X16X16_FP8_FP8,
        dense(16, Fp8, Fp8, Out::F32),
    ),
    (
        Op::V_WMMA_F32_16X16X16_FP8_BF8,
        dense(16, Fp8, Bf8, Out::F32),
    ),
    (
        Op::V_WMMA_F32_16X16X16_BF8_FP8,
        dense(16, Bf8, Fp8, Out::F32),
    ),
    (
        Op::V_WMMA_F32_16X16X16_BF8_BF8,
        dense(16, Bf8, Bf8, Out::F32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_F16,
        sparse(32, F16, F16, Out::F32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_BF16,
        sparse(32, Bf16, Bf16, Out::F32),
    ),
    (
        Op::V_SWMMAC_F16_16X16X32_F16,
        sparse(32, F16, F16, Out::F16),
    ),
    (
        Op::V_SWMMAC_BF16_16X16X32_BF16,
        sparse(32, Bf16, Bf16, Out::Bf16),
    ),
    (
        Op::V_SWMMAC_I32_16X16X32_IU8,
        sparse(32, Iu8, Iu8, Out::I32),
    ),
    (
        Op::V_SWMMAC_I32_16X16X32_IU4,
        sparse(32, Iu4, Iu4, Out::I32),
    ),
    (
        Op::V_SWMMAC_I32_16X16X64_IU4,
        sparse(64, Iu4, Iu4, Out::I32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_FP8_FP8,
        sparse(32, Fp8, Fp8, Out::F32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_FP8_BF8,
        sparse(32, Fp8, Bf8, Out::F32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_BF8_FP8,
        sparse(32, Bf8, Fp8, Out::F32),
    ),
    (
        Op::V_SWMMAC_F32_16X16X32_BF8_BF8,
        sparse(32, Bf8, Bf8, Out::F32),
    ),
];

/// The shape of a GFX12 WMMA/SWMMAC operation.
pub(crate) fn shape(op: Op) -> Option<&'static Shape> {
    SHAPES.iter().find(|(o, _)| *o == op).map(|(_, s)| s)
}

/// A place in an operand: VGPR (from the operand's first), lane, bit offset in the VGPR.
type Loc = (usize, usize, usize);

/// The wave32 place of packed element `idx` of row/column `r`, for runs of `run` elements
/// per lane half (see the module docs).
fn place32(idx: usize, run: usize, r: usize, bits: usize) -> Loc {
    let half = (idx / run) % 2;
    let p = (idx / (2 * run)) * run + idx % run;
    (p * bits / 32, 16 * half + r, p * bits % 32)
}

/// A wave32 place of an operand of `regs32` wave32 VGPRs, in a wave of `wave` lanes.
fn fold(loc: Loc, regs32: usize, wave: usize) -> Loc {
    if wave == 32 || regs32 == 1 {
        return loc;
    }
    let h = regs32 / 2;
    (loc.0 % h, loc.1 + 32 * (loc.0 / h), loc.2)
}

fn regs(regs32: usize, wave: usize) -> usize {
    if wave == 32 {
        regs32
    } else {
        regs32.div_ceil(2)
    }
}

impl Shape {
    /// Element width of A and B (the same for every GFX12 shape).
    fn bits(&self) -> usize {
        self.a.bits()
    }

    /// Columns of A as stored: K, or K/2 compressed.
    fn stored_k(&self) -> usize {
        if self.sparse {
            self.k / 2
        } else {
            self.k
        }
    }

    /// Stored A elements per run of a lane half.
    fn run(&self) -> usize {
        (64 / self.bits()).min(self.stored_k() / 2)
    }

    fn a_regs32(&self) -> usize {
        self.stored_k() * self.bits() / 64
    }

    fn b_regs32(&self) -> usize {
        self.k * self.bits() / 64
    }

    fn out_regs32(&self) -> usize {
        8 * self.output.bits() / 32
    }

    /// VGPRs of A, B, and C/D in a wave of `wave` lanes.
    pub(crate) fn operand_regs(&self, wave: usize) -> (usize, usize, usize) {
        (
            regs(self.a_regs32(), wave),
            regs(self.b_regs32(), wave),
            regs(self.out_regs32(), wave),
        )
    }

    /// Where stored element `s` of row `i` of A is (for SWMMAC, value `s % 2` of group
    /// `s / 2`).
    pub(crate) fn a_loc(&self, i: usize, s: usize, wave: usize) -> Loc {
        fold(
            place32(s, self.run(), i, self.bits()),
            self.a_regs32(),
            wave,
        )
    }

    /// Where element k of column `j` of B is.
    pub(crate) fn b_loc(&self, j: usize, k: usize, wave: usize) -> Loc {
        let run = if self.sparse {
            2 * self.run()
        } else {
            self.run()
        };
        fold(place32(k, run, j, self.bits()), self.b_regs32(), wave)
    }

    /// Where element (i, j) of C and D is.
    pub(crate) fn out_loc(&self, i: usize, j: usize, wave: usize) -> Loc {
        let bits = self.output.bits();
        let p = i % 8;
        fold(
            (p * bits / 32, 16 * (i / 8) + j, p * bits % 32),
            self.out_regs32(),
            wave,
        )
    }

    /// SWMMAC: index sets in the index VGPR.
    pub(crate) fn index_sets(&self, wave: usize) -> usize {
        let groups = regs(self.a_regs32(), wave) * 32 / (2 * self.bits());
        32 / (4 * groups)
    }

    /// SWMMAC: lane and bit offset of the 4 index bits of group `g` of row `i` of A, in set
    /// `set`.
    pub(crate) fn index_loc(&self, i: usize, g: usize, set: usize, wave: usize) -> (usize, usize) {
        let (reg, lane, bit) = self.a_loc(i, 2 * g, wave);
        let position = (32 * reg + bit) / (2 * self.bits());
        (lane, 4 * position + set * 32 / self.index_sets(wave))
    }
}

/// Raw bits of the element at `loc` (of width `bits`) of an operand.
fn raw(regs: &[[u32; LANES]], (reg, lane, bit): Loc, bits: usize) -> u32 {
    let v = regs[reg][lane] >> bit;
    if bits == 32 {
        v
    } else {
        v & ((1 << bits) - 1)
    }
}

/// The value of an A or B element: `neg` is the operand's modifier bits (bit 0: neg_lo, bit
/// 1: neg_hi), which negate a float in the low or high half of its VGPR, or make an integer
/// signed (neg_lo).
fn value(x: u32, ty: In, bit: usize, neg: u8) -> f64 {
    let signed = |b: u32| {
        let up = 32 - b;
        if neg & 1 != 0 {
            f64::from(((x << up) as i32) >> up)
        } else {
            f64::from(x)
        }
    };
    let flip = |sign: u32| {
        let n = if bit < 16 { neg & 1 } else { neg >> 1 & 1 };
        if n != 0 {
            x ^ sign
        } else {
            x
        }
    };
    match ty {
        In::F16 => f16::from_bits(flip(0x8000) as u16).to_f64(),
        In::Bf16 => f64::from(f32::from_bits(flip(0x8000) << 16)),
        In::Fp8 => f64::from(FP8_OCP.decode(x as u8)),
        In::Bf8 => f64::from(BF8_OCP.decode(x as u8)),
        In::Iu8 => signed(8),
        In::Iu4 => signed(4),
    }
}

/// Checks the modifiers of a GFX12 WMMA/SWMMAC against what AMD defines for the shape.
fn check_modifiers(i: &Inst, sh: &Shape, wave: usize) -> Result<usize, String> {
    let (neg, neg_hi, opsel) = (i.neg, i.neg_hi, i.opsel);
    let integer = sh.a.integer();
    if integer && (neg & 4 != 0 || neg_hi != 0) {
        return Err(format!(
            "neg_lo:{neg} neg_hi:{neg_hi} (only neg_lo[0:1], the signedness of A and B, is defined for integer WMMA)"
        ));
    }
    if !integer && i.has(flag::CLAMP) {
        return Err("clamp (not defined for float WMMA)".into());
    }
    if sh.a.bits() == 8 && !integer && (neg | neg_hi) & 3 != 0 {
        return Err(format!(
            "neg_lo:{neg} neg_hi:{neg_hi} (A/B negation is not defined for fp8/bf8 WMMA)"
        ));
    }
    if i.src[0] < VGPR || i.src[1] < VGPR {
        return Err("with a scalar A/B operand".into());
    }
    if !sh.sparse {
        if opsel != 0 {
            return Err(format!("op_sel:{opsel} (not defined for GFX12 WMMA)"));
        }
        return Ok(0);
    }
    if (neg | neg_hi) & 4 != 0 {
        return Err(format!(
            "neg_lo:{neg} neg_hi:{neg_hi} (SWMMAC has no C modifiers: C is D)"
        ));
    }
    if i.src[2] < VGPR {
        return Err("with a scalar or constant index operand".into());
    }
    let sets = sh.index_sets(wave);
    let key = usize::from(opsel);
    if key >= sets {
        return Err(format!("index_key:{key} ({sets} index sets)"));
    }
    Ok(key)
}

/// Executes a GFX12 WMMA or SWMMAC operation of shape `sh`.
#[inline(never)]
pub(crate) fn execute(w: &mut Wave, i: &Inst, exec: u64, gen: Gen, sh: &Shape) -> R {
    let wave = gen.wave_size() as usize;
    let set = check_modifiers(i, sh, wave).map_err(|what| undefined(i, what))?;
    let read = |code: u16, n: usize| vgprs(w, code, n);
    let (a_regs, b_regs, out_regs) = sh.operand_regs(wave);
    let (ra, rb) = (read(i.src[0], a_regs), read(i.src[1], b_regs));
    let bits = sh.bits();
    let (neg_a, neg_b) = (
        i.neg & 1 | (i.neg_hi & 1) << 1,
        i.neg >> 1 & 1 | i.neg_hi & 2,
    );
    // A's stored values as (k, value), row by row: dense, every k; SWMMAC, the two kept values
    // of each group at the k their indices name (two values naming the same k both count, as
    // each selects its element of B).
    let sk = sh.stored_k();
    let mut a = vec![(0usize, 0.0f64); 16 * sk];
    let index = sh.sparse.then(|| w.v[reg_index(i.src[2])]);
    for row in 0..16 {
        for s in 0..sk {
            let loc = sh.a_loc(row, s, wave);
            let x = value(raw(&ra, loc, bits), sh.a, loc.2, neg_a);
            let k = match index {
                Some(idx) => {
                    let (lane, at) = sh.index_loc(row, s / 2, set, wave);
                    4 * (s / 2) + (idx[lane] >> (at + 2 * (s % 2)) & 3) as usize
                }
                None => s,
            };
            a[row * sk + s] = (k, x);
        }
    }
    let mut b = vec![0.0f64; sh.k * 16];
    for col in 0..16 {
        for k in 0..sh.k {
            let loc = sh.b_loc(col, k, wave);
            b[k * 16 + col] = value(raw(&rb, loc, bits), sh.b, loc.2, neg_b);
        }
    }
    let out_bits = sh.output.bits();
    let c = if sh.sparse {
        read(i.dst, out_regs)
    } else if i.src[2] >= VGPR {
        read(i.src[2], out_regs)
    } else {
        // An inline constant or literal: every element.
        let ty = if out_bits == 16 { Ty::B16 } else { Ty::B32 };
        let v = w.sread(i.src[2], i.lit, ty);
        let v = if out_bits == 16 {
            v & 0xffff | v << 16
        } else {
            v
        };
        vec![[v; LANES]; out_regs]
    };
    let mut d: Vec<[u32; LANES]> = read(i.dst, out_regs);
    let clamp = i.has(flag::CLAMP);
    for row in 0..16 {
        for col in 0..16 {
            let loc = sh.out_loc(row, col, wave);
            let cv = raw(&c, loc, out_bits);
            let mut acc = match sh.output {
                Out::I32 => f64::from(cv as i32),
                out => out.float_c(cv, i.neg, i.neg_hi),
            };
            for &(k, x) in &a[row * sk..(row + 1) * sk] {
                acc += x * b[k * 16 + col];
            }
            let r = match sh.output {
                Out::I32 if clamp => {
                    acc.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32
                }
                // Exact (|acc| < 2^53): wrap to 32 bits.
                Out::I32 => acc as i64 as u32,
                out => out.round(acc),
            };
            store(&mut d[loc.0][loc.1], r, loc.2, out_bits);
        }
    }
    write_d(w, i.dst, &d, exec);
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of A (stored), B, C/D and, for SWMMAC, every index has one place, the
    /// places fill the operand's VGPRs (in the lanes it uses), and the operand widths are
    /// those of LLVM 22's GFX12 tables.
    #[test]
    fn layouts_are_bijections() {
        for (op, sh) in SHAPES {
            for wave in [32, 64] {
                let (na, nb, nd) = sh.operand_regs(wave);
                // A one-VGPR wave32 operand keeps lanes 0–31 in wave64.
                let used = |regs32: usize| if regs32 == 1 { 32 } else { wave };
                let fill = |n: usize, lanes: usize, places: Vec<Loc>, bits: usize, what: &str| {
                    let mut seen = vec![0u32; n * wave];
                    for (r, l, b) in places {
                        assert!(r < n && l < wave && b + bits <= 32, "{op:?} {what}");
                        let m = (((1u64 << bits) - 1) << b) as u32;
                        assert_eq!(seen[r * wave + l] & m, 0, "{op:?} {what} wave{wave}");
                        seen[r * wave + l] |= m;
                    }
                    for r in 0..n {
                        for l in 0..wave {
                            let want = if l < lanes { u32::MAX } else { 0 };
                            assert_eq!(seen[r * wave + l], want, "{op:?} {what} wave{wave}");
                        }
                    }
                };
                let bits = sh.bits();
                let a = (0..16)
                    .flat_map(|i| (0..sh.stored_k()).map(move |s| sh.a_loc(i, s, wave)))
                    .collect();
                fill(na, used(sh.a_regs32()), a, bits, "A");
                let b = (0..16)
                    .flat_map(|j| (0..sh.k).map(move |k| sh.b_loc(j, k, wave)))
                    .collect();
                fill(nb, used(sh.b_regs32()), b, bits, "B");
                let d = (0..16)
                    .flat_map(|i| (0..16).map(move |j| sh.out_loc(i, j, wave)))
                    .collect();
                fill(nd, wave, d, sh.output.bits(), "D");
                if sh.sparse {
                    let sets = sh.index_sets(wave);
                    let k = (0..16)
                        .flat_map(|i| {
                            (0..sh.k / 4).flat_map(move |g| {
                                (0..sets).map(move |s| {
                                    let (l, b) = sh.index_loc(i, g, s, wave);
                                    (0, l, b)
                                })
                            })
                        })
                        .collect();
                    fill(1, used(sh.a_regs32()), k, 4, "index");
                }
            }
        }
    }

    /// Operand widths: LLVM 22's GFX12 tables (wave32; wave64 halves them).
    #[test]
    fn operand_widths_match_llvm() {
        let w = |op| shape(op).expect("shape").operand_regs(32);
        assert_eq!(w(Op::V_WMMA_F32_16X16X16_F16), (4, 4, 8));
        assert_eq!(w(Op::V_WMMA_F16_16X16X16_F16), (4, 4, 4));
        assert_eq!(w(Op::V_WMMA_I32_16X16X16_IU8), (2, 2, 8));
        assert_eq!(w(Op::V_WMMA_I32_16X16X16_IU4), (1, 1, 8));
        assert_eq!(w(Op::V_WMMA_I32_16X16X32_IU4), (2, 2, 8));
        assert_eq!(w(Op::V_WMMA_F32_16X16X16_FP8_BF8), (2, 2, 8));
        assert_eq!(w(Op::V_SWMMAC_F32_16X16X32_F16), (4, 8, 8));
        assert_eq!(w(Op::V_SWMMAC_BF16_16X16X32_BF16), (4, 8, 4));
        assert_eq!(w(Op::V_SWMMAC_I32_16X16X32_IU8), (2, 4, 8));
        assert_eq!(w(Op::V_SWMMAC_I32_16X16X32_IU4), (1, 2, 8));
        assert_eq!(w(Op::V_SWMMAC_I32_16X16X64_IU4), (2, 4, 8));
        assert_eq!(w(Op::V_SWMMAC_F32_16X16X32_FP8_FP8), (2, 4, 8));
        let sw = |op| shape(op).expect("shape").operand_regs(64);
        assert_eq!(sw(Op::V_WMMA_I32_16X16X16_IU4), (1, 1, 4));
        assert_eq!(sw(Op::V_SWMMAC_F32_16X16X32_F16), (2, 4, 4));
    }

    /// Places given by AMD's calculator (`matrix_calculator.py --architecture rdna4
    /// --get-register`), including its README's SWMMAC index example.
    #[test]
    fn layouts_match_amd() {
        let f16 = shape(Op::V_WMMA_F32_16X16X16_F16).expect("shape");
        // A[3][5] = v0{19}.[31:16]; A[3][9] = v2{3}.[31:16]; wave64 A[3][9] = v0{35}.[31:16].
        assert_eq!(f16.a_loc(3, 5, 32), (0, 19, 16));
        assert_eq!(f16.a_loc(3, 9, 32), (2, 3, 16));
        assert_eq!(f16.a_loc(3, 9, 64), (0, 35, 16));
        // B[14][7] = v3{23}.[15:0]; D[9][4] = v1{20} in both wave sizes.
        assert_eq!(f16.b_loc(7, 14, 32), (3, 23, 0));
        assert_eq!(f16.out_loc(9, 4, 32), (1, 20, 0));
        assert_eq!(f16.out_loc(9, 4, 64), (1, 20, 0));
        let h = shape(Op::V_WMMA_F16_16X16X16_F16).expect("shape");
        // D[5][2] = v2{2}.[31:16]; wave64 D[13][2] = v0{50}.[31:16].
        assert_eq!(h.out_loc(5, 2, 32), (2, 2, 16));
        assert_eq!(h.out_loc(13, 2, 64), (0, 50, 16));
        let iu8 = shape(Op::V_WMMA_I32_16X16X16_IU8).expect("shape");
        // wave64 A[1][5] = v0{33}.[15:8], A[1][9] = v0{17}.[15:8].
        assert_eq!(iu8.a_loc(1, 5, 64), (0, 33, 8));
        assert_eq!(iu8.a_loc(1, 9, 64), (0, 17, 8));
        let iu4 = shape(Op::V_WMMA_I32_16X16X16_IU4).expect("shape");
        // A[2][11] = v0{18}.[15:12] in both wave sizes.
        assert_eq!(iu4.a_loc(2, 11, 32), (0, 18, 12));
        assert_eq!(iu4.a_loc(2, 11, 64), (0, 18, 12));
        let sf16 = shape(Op::V_SWMMAC_F32_16X16X32_F16).expect("shape");
        // README: K[2][31] = v0{18}.[15:12], with OPSEL 1 v0{18}.[31:28].
        assert_eq!(sf16.index_loc(2, 31 / 4, 0, 32), (18, 12));
        assert_eq!(sf16.index_loc(2, 31 / 4, 1, 32), (18, 28));
        assert_eq!(sf16.index_sets(32), 2);
        assert_eq!(sf16.index_sets(64), 4);
        // A[2][31] (group 7, stored 14/15) = v3{18}; B[31][2] = v7{18}.[31:16].
        assert_eq!(sf16.a_loc(2, 14, 32), (3, 18, 0));
        assert_eq!(sf16.b_loc(2, 31, 32), (7, 18, 16));
        // wave64: K[2][31] = v0{50}.[7:4] (+8 per set); B[31][2] = v3{50}.[31:16].
        assert_eq!(sf16.index_loc(2, 7, 0, 64), (50, 4));
        assert_eq!(sf16.index_loc(2, 7, 3, 64), (50, 28));
        assert_eq!(sf16.b_loc(2, 31, 64), (3, 50, 16));
        let s4 = shape(Op::V_SWMMAC_I32_16X16X64_IU4).expect("shape");
        assert_eq!(s4.index_sets(32), 1);
        // K[0][63] = v0{16}.[31:28]; wave64 v0{48}.[15:12].
        assert_eq!(s4.index_loc(0, 15, 0, 32), (16, 28));
        assert_eq!(s4.index_loc(0, 15, 0, 64), (48, 12));
    }
}
