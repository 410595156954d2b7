//! Matrix fused multiply-add (`v_mfma_*`) on gfx908 and gfx90a: one instruction computes
//! `D = A·B + C` for `blocks` independent M×N×K products, with the matrices spread over the
//! 64 lanes of the wave.
//!
//! Every opcode is one [`Shape`] row in [`SHAPES`]; where each matrix element lives follows
//! from the shape alone, as AMD describes it (the AMD Matrix Instruction Calculator and the
//! "AMD matrix cores" lab notes):
//!
//! - **A and B.** A lane holds `kpl = K·M·blocks / 64` consecutive k-elements of one row of A
//!   (one column of B), packed from the low bits up in one register or a register pair.
//!   Element (i, k) of block b is in lane `i + M·b + M·blocks·(k / kpl)`, slot `k % kpl`.
//! - **C and D, 32-bit.** Each block takes `M·N/64` registers (4×4 blocks share registers).
//!   N consecutive lanes hold one row; a register holds `64/N` such lane groups, and rows go
//!   down four registers before moving to the next lane group, then on to the next four
//!   registers. Blocks that fit in one register (the 4×4 shapes) take successive lane groups.
//! - **C and D, 64-bit** (f64): the same with one register pair per row instead of four
//!   registers.
//! - **CBSZ/ABID** broadcast A: block b reads the A of block `(b >> CBSZ << CBSZ) + ABID`.
//! - **BLGP** swizzles B by lanes: 1/2 broadcast lanes 0–31/32–63, 3 reads lane `l + 16`
//!   (mod 64), 4–7 broadcast the lane group of 16 numbered `BLGP − 4`.
//!
//! A and B are VGPRs or AGPRs (the `acc` bits); on gfx908 C and D are AGPRs, on gfx90a the
//! `acc_cd` bit chooses AGPRs or VGPRs, and C may be an inline constant. Float products are
//! exact, summed in f64 and rounded to f32 once (the hardware's internal order and
//! rounding are not published, so the last bit can differ from hardware); f64 accumulates by
//! fused multiply-adds in k order; i8 is exact with a wrapping i32 sum. Results are written to
//! the lanes enabled in EXEC. AMD lists no CBSZ, ABID or BLGP for the f64 shapes (CDNA3 reuses
//! BLGP as NEG there: A, B, C negated); a non-zero value, or one outside the documented range,
//! faults as unimplemented. CDNA3's fp8/bf8 shapes read 8-bit floats in the generation's format
//! (FNUZ on gfx94x, OCP on gfx950).

use super::{Flow, LaneFault, R};
use crate::decode::{flag, Gen, Inst, AGPR, VGPR};
use crate::error::FaultKind;
use crate::ops::Op;
use crate::wave::{reg_index, Row, Ty, Wave, LANES};
use half::f16;

/// Element type of a matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    F32,
    F16,
    Bf16,
    I8,
    F64,
    I32,
    /// CDNA3/CDNA4 8-bit floats (FNUZ on gfx94x, OCP on gfx950: `cdna3::F8::of`).
    Fp8,
    Bf8,
}

impl Elem {
    pub(super) fn bits(self) -> usize {
        match self {
            Elem::F64 => 64,
            Elem::F32 | Elem::I32 => 32,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::I8 | Elem::Fp8 | Elem::Bf8 => 8,
        }
    }

    /// Element `e` of a lane's packed float operand as f64, 8-bit floats in `gen`'s format.
    pub(super) fn value(self, raw: u128, e: usize, gen: Gen) -> f64 {
        match self {
            Elem::Fp8 | Elem::Bf8 => {
                let f = super::cdna3::F8::of(gen, self == Elem::Bf8);
                f64::from(f.decode((raw >> (8 * e)) as u8))
            }
            _ => self.float(raw, e),
        }
    }

    /// Element `e` of a lane's packed operand as f64 (float types).
    fn float(self, raw: u128, e: usize) -> f64 {
        let bits = self.bits();
        let v = (raw >> (bits * e)) as u64;
        match self {
            Elem::F32 => f64::from(f32::from_bits(v as u32)),
            Elem::F16 => f16::from_bits(v as u16).to_f64(),
            Elem::Bf16 => f64::from(f32::from_bits(u32::from(v as u16) << 16)),
            // F64 (the integer types take `i8_at`).
            _ => f64::from_bits(v),
        }
    }
}

/// Element `e` of a lane's packed i8 operand.
fn i8_at(raw: u128, e: usize) -> i32 {
    i32::from((raw >> (8 * e)) as u8 as i8)
}

/// One MFMA opcode: `blocks` products of an M×K matrix A by a K×N matrix B, plus C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    pub input: Elem,
    /// B's type (A's but for the mixed fp8/bf8 shapes).
    pub input_b: Elem,
    pub output: Elem,
}

pub(super) const fn s(
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    input: Elem,
    output: Elem,
) -> Shape {
    Shape {
        m,
        n,
        k,
        blocks,
        input,
        input_b: input,
        output,
    }
}

/// A shape whose A and B types differ (`v_mfma_f32_*_bf8_fp8`, `*_fp8_bf8`).
const fn s2(m: usize, n: usize, k: usize, a: Elem, b: Elem) -> Shape {
    Shape {
        input_b: b,
        ..s(m, n, k, 1, a, F32)
    }
}

use Elem::{Bf16, Bf8, Fp8, F16, F32, F64, I32, I8};

/// Every MFMA opcode clang-15 emits for gfx908 and gfx90a, then CDNA3's new shapes and
/// gfx950's double-K shapes. CDNA3's and LLVM 22's new spellings of the older shapes
/// (`v_mfma_f32_32x32x4_2b_bf16`, `v_mfma_f64_16x16x4_f64`, …) reach these rows through isa's
/// semantic key (`RENAMES` in crates/isa/gen/semantics.py). SMFMAC is `smfmac.rs`, gfx950's
/// f8f6f4 MFMAs (scaled or not) `mfma_f8f6f4.rs`.
pub(crate) static SHAPES: &[(Op, Shape)] = &[
    (Op::V_MFMA_F32_32X32X1F32, s(32, 32, 1, 2, F32, F32)),
    (Op::V_MFMA_F32_16X16X1F32, s(16, 16, 1, 4, F32, F32)),
    (Op::V_MFMA_F32_4X4X1F32, s(4, 4, 1, 16, F32, F32)),
    (Op::V_MFMA_F32_32X32X2F32, s(32, 32, 2, 1, F32, F32)),
    (Op::V_MFMA_F32_16X16X4F32, s(16, 16, 4, 1, F32, F32)),
    (Op::V_MFMA_F32_32X32X4F16, s(32, 32, 4, 2, F16, F32)),
    (Op::V_MFMA_F32_16X16X4F16, s(16, 16, 4, 4, F16, F32)),
    (Op::V_MFMA_F32_4X4X4F16, s(4, 4, 4, 16, F16, F32)),
    (Op::V_MFMA_F32_32X32X8F16, s(32, 32, 8, 1, F16, F32)),
    (Op::V_MFMA_F32_16X16X16F16, s(16, 16, 16, 1, F16, F32)),
    (Op::V_MFMA_I32_32X32X4I8, s(32, 32, 4, 2, I8, I32)),
    (Op::V_MFMA_I32_16X16X4I8, s(16, 16, 4, 4, I8, I32)),
    (Op::V_MFMA_I32_4X4X4I8, s(4, 4, 4, 16, I8, I32)),
    (Op::V_MFMA_I32_32X32X8I8, s(32, 32, 8, 1, I8, I32)),
    (Op::V_MFMA_I32_16X16X16I8, s(16, 16, 16, 1, I8, I32)),
    (Op::V_MFMA_F32_32X32X2BF16, s(32, 32, 2, 2, Bf16, F32)),
    (Op::V_MFMA_F32_16X16X2BF16, s(16, 16, 2, 4, Bf16, F32)),
    (Op::V_MFMA_F32_4X4X2BF16, s(4, 4, 2, 16, Bf16, F32)),
    (Op::V_MFMA_F32_32X32X4BF16, s(32, 32, 4, 1, Bf16, F32)),
    (Op::V_MFMA_F32_16X16X8BF16, s(16, 16, 8, 1, Bf16, F32)),
    (Op::V_MFMA_F32_32X32X4BF16_1K, s(32, 32, 4, 2, Bf16, F32)),
    (Op::V_MFMA_F32_16X16X4BF16_1K, s(16, 16, 4, 4, Bf16, F32)),
    (Op::V_MFMA_F32_4X4X4BF16_1K, s(4, 4, 4, 16, Bf16, F32)),
    (Op::V_MFMA_F32_32X32X8BF16_1K, s(32, 32, 8, 1, Bf16, F32)),
    (Op::V_MFMA_F32_16X16X16BF16_1K, s(16, 16, 16, 1, Bf16, F32)),
    (Op::V_MFMA_F64_16X16X4F64, s(16, 16, 4, 1, F64, F64)),
    (Op::V_MFMA_F64_4X4X4F64, s(4, 4, 4, 4, F64, F64)),
    // CDNA3. xf32 inputs are f32 values the hardware multiplies at reduced precision (not
    // modelled: products are exact here).
    (Op::V_MFMA_F32_32X32X4_XF32, s(32, 32, 4, 1, F32, F32)),
    (Op::V_MFMA_F32_16X16X8_XF32, s(16, 16, 8, 1, F32, F32)),
    (Op::V_MFMA_I32_32X32X16_I8, s(32, 32, 16, 1, I8, I32)),
    (Op::V_MFMA_I32_16X16X32_I8, s(16, 16, 32, 1, I8, I32)),
    (Op::V_MFMA_F32_32X32X16_FP8_FP8, s(32, 32, 16, 1, Fp8, F32)),
    (Op::V_MFMA_F32_32X32X16_BF8_BF8, s(32, 32, 16, 1, Bf8, F32)),
    (Op::V_MFMA_F32_32X32X16_FP8_BF8, s2(32, 32, 16, Fp8, Bf8)),
    (Op::V_MFMA_F32_32X32X16_BF8_FP8, s2(32, 32, 16, Bf8, Fp8)),
    (Op::V_MFMA_F32_16X16X32_FP8_FP8, s(16, 16, 32, 1, Fp8, F32)),
    (Op::V_MFMA_F32_16X16X32_BF8_BF8, s(16, 16, 32, 1, Bf8, F32)),
    (Op::V_MFMA_F32_16X16X32_FP8_BF8, s2(16, 16, 32, Fp8, Bf8)),
    (Op::V_MFMA_F32_16X16X32_BF8_FP8, s2(16, 16, 32, Bf8, Fp8)),
    // gfx950's double-K shapes: eight (f16/bf16) or sixteen (i8) k-elements per lane in four
    // registers, laid out like the others.
    (Op::V_MFMA_F32_16X16X32_F16, s(16, 16, 32, 1, F16, F32)),
    (Op::V_MFMA_F32_32X32X16_F16, s(32, 32, 16, 1, F16, F32)),
    (Op::V_MFMA_F32_16X16X32_BF16, s(16, 16, 32, 1, Bf16, F32)),
    (Op::V_MFMA_F32_32X32X16_BF16, s(32, 32, 16, 1, Bf16, F32)),
    (Op::V_MFMA_I32_16X16X64_I8, s(16, 16, 64, 1, I8, I32)),
    (Op::V_MFMA_I32_32X32X32_I8, s(32, 32, 32, 1, I8, I32)),
];

/// The shape of an MFMA operation.
pub(crate) fn shape(op: Op) -> Option<&'static Shape> {
    SHAPES.iter().find(|(o, _)| *o == op).map(|(_, s)| s)
}

impl Shape {
    /// k-elements per lane in one A or B operand.
    pub(crate) fn kpl(&self) -> usize {
        self.k * self.m * self.blocks / LANES
    }

    /// Registers of one A or B operand.
    pub(crate) fn in_regs(&self) -> usize {
        (self.kpl() * self.input.bits()).div_ceil(32)
    }

    /// Registers of C and D.
    pub(crate) fn out_regs(&self) -> usize {
        self.m * self.n * self.blocks * self.output.bits() / 32 / LANES
    }

    /// Lane and slot of element (i, k) of A in block b (for B: (j, k), with N for M).
    pub(crate) fn in_loc(&self, i: usize, k: usize, b: usize) -> (usize, usize) {
        let kpl = self.kpl();
        (i + self.m * b + self.m * self.blocks * (k / kpl), k % kpl)
    }

    /// Output slot (register, or register pair for f64) and lane of element (i, j) of D in
    /// block b.
    pub(crate) fn out_loc(&self, i: usize, j: usize, b: usize) -> (usize, usize) {
        let (m, n) = (self.m, self.n);
        // Rows per register run: 4 registers for 32-bit outputs, 1 pair for f64.
        let run = if self.output == F64 { 1 } else { 4 };
        let groups = LANES / n;
        // Blocks sharing one register (4x4 shapes), each in its own lane group.
        let shared = (LANES * run).div_ceil(m * n);
        let slot = b * (m * n / LANES) + (i / (run * groups)) * run + i % run;
        let lane = (b % shared) * n + ((i / run) % groups) * shared * n + j;
        (slot, lane)
    }
}

/// Lane that B data for lane `l` comes from under a BLGP pattern.
pub(crate) fn blgp_lane(l: usize, blgp: u8) -> usize {
    match blgp {
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % LANES,
        4..=7 => 16 * usize::from(blgp - 4) + l % 16,
        _ => l,
    }
}

/// The fault for modifiers AMD does not define for the shape.
pub(super) fn undefined(i: &Inst, what: String) -> LaneFault {
    LaneFault::new(
        FaultKind::Unimplemented {
            mnemonic: format!("{} {what}", i.name()),
        },
        None,
    )
}

/// Register `r` of source `k` (0: A, 1: B, a VGPR) of a matrix instruction, from the file
/// its `acc` bit (op_sel_hi bit `k`) names.
pub(super) fn in_row<'w>(w: &'w Wave, i: &Inst, k: usize, r: usize) -> &'w Row {
    let file = if i.opsel_hi >> k & 1 != 0 { AGPR } else { VGPR };
    &w.v[reg_index(file + (i.src[k] - VGPR) + r as u16)]
}

/// C of a matrix instruction, in its first `nregs` registers: the registers of `file` that
/// `src[2]` names, or an inline constant in every register (gfx90a on; `f64`: a 64-bit
/// constant in every register pair).
pub(super) fn accumulator(
    w: &Wave,
    i: &Inst,
    file: u16,
    nregs: usize,
    f64: bool,
) -> [[u32; LANES]; 32] {
    let mut d = [[0u32; LANES]; 32];
    let c_code = i.src[2];
    if c_code >= VGPR {
        for r in 0..nregs {
            d[r] = w.v[reg_index(file + (c_code - VGPR) + r as u16)];
        }
    } else if f64 {
        let v = w.sread64(c_code, i.lit, Ty::F64);
        for r in 0..nregs {
            d[r] = [(v >> (32 * (r % 2))) as u32; LANES];
        }
    } else {
        let v = w.sread(c_code, i.lit, Ty::B32);
        for row in d.iter_mut().take(nregs) {
            *row = [v; LANES];
        }
    }
    d
}

/// Executes an MFMA (an SMFMAC through `smfmac`, a WMMA through `wmma`), or faults as
/// unimplemented for any other VOP3P operation (the hook from the end of `valu::vop3p`).
#[inline(never)]
pub(crate) fn execute(w: &mut Wave, i: &Inst, exec: u64, gen: Gen) -> R {
    let Some(sh) = shape(i.op) else {
        return match super::smfmac::shape(i.op) {
            Some(sp) => super::smfmac::execute(w, i, exec, gen, sp),
            None => match super::wmma::execute_any(w, i, exec, gen) {
                Some(r) => r,
                None => super::mfma_f8f6f4::execute(w, i, exec),
            },
        };
    };
    // VOP3P-MAI fields, as the decoder lays them out: CBSZ in neg_hi, ABID in op_sel and
    // op_sel_hi[2], BLGP in neg, the A/B acc bits in op_sel_hi[1:0].
    let cbsz = i.neg_hi;
    let abid = i.opsel | (i.opsel_hi >> 2) << 3;
    let mut blgp = i.neg;
    // CDNA3 f64 shapes: the BLGP field is NEG (bit 0 negates A, 1 B, 2 C).
    let mut neg = 0u8;
    if sh.input == F64 && gen.is_cdna3() {
        (neg, blgp) = (blgp, 0);
    }
    if sh.input == F64 && (cbsz | abid | blgp) != 0 {
        return Err(undefined(
            i,
            format!("cbsz:{cbsz} abid:{abid} blgp:{blgp} (not defined for gfx90a f64 MFMA)"),
        ));
    }
    if (1usize << cbsz) > sh.blocks || usize::from(abid) >= 1 << cbsz {
        return Err(undefined(
            i,
            format!("cbsz:{cbsz} abid:{abid} (outside the {} blocks)", sh.blocks),
        ));
    }
    let cd_agpr = !gen.unified_agprs() || i.has(flag::ACC);
    let (a_code, b_code) = (i.src[0], i.src[1]);
    if a_code < VGPR || b_code < VGPR {
        return Err(undefined(i, "with a scalar A/B operand".into()));
    }
    // A and B as one u128 per lane (the operand's one to four registers).
    let operand = |k: usize| -> [u128; LANES] {
        let mut v = [0u128; LANES];
        for r in 0..sh.in_regs() {
            let row = in_row(w, i, k, r);
            for l in 0..LANES {
                v[l] |= u128::from(row[l]) << (32 * r);
            }
        }
        v
    };
    let (a, b) = (operand(0), operand(1));
    let file = if cd_agpr { AGPR } else { VGPR };
    let nregs = sh.out_regs();
    let mut d = accumulator(w, i, file, nregs, sh.output == F64);
    for blk in 0..sh.blocks {
        // CBSZ/ABID: the block whose A this block multiplies.
        let ablk = (blk >> cbsz << cbsz) + usize::from(abid);
        for row in 0..sh.m {
            for col in 0..sh.n {
                let (slot, lane) = sh.out_loc(row, col, blk);
                let a_at = |k: usize| {
                    let (l, e) = sh.in_loc(row, k, ablk);
                    (a[l], e)
                };
                let b_at = |k: usize| {
                    let (l, e) = sh.in_loc(col, k, blk);
                    (b[blgp_lane(l, blgp)], e)
                };
                match sh.output {
                    I32 => {
                        let mut acc = d[slot][lane] as i32;
                        for k in 0..sh.k {
                            let ((x, ea), (y, eb)) = (a_at(k), b_at(k));
                            acc = acc.wrapping_add(i8_at(x, ea) * i8_at(y, eb));
                        }
                        d[slot][lane] = acc as u32;
                    }
                    F64 => {
                        let (lo, hi) = (2 * slot, 2 * slot + 1);
                        let c = u64::from(d[lo][lane]) | u64::from(d[hi][lane]) << 32;
                        let sign = |bit: u8, x: f64| if neg >> bit & 1 != 0 { -x } else { x };
                        let mut acc = sign(2, f64::from_bits(c));
                        for k in 0..sh.k {
                            let ((x, ea), (y, eb)) = (a_at(k), b_at(k));
                            let (x, y) = (sign(0, F64.float(x, ea)), sign(1, F64.float(y, eb)));
                            acc = x.mul_add(y, acc);
                        }
                        let r = acc.to_bits();
                        d[lo][lane] = r as u32;
                        d[hi][lane] = (r >> 32) as u32;
                    }
                    _ => {
                        let mut sum = 0.0f64;
                        for k in 0..sh.k {
                            let ((x, ea), (y, eb)) = (a_at(k), b_at(k));
                            sum += sh.input.value(x, ea, gen) * sh.input_b.value(y, eb, gen);
                        }
                        let c = f64::from(f32::from_bits(d[slot][lane]));
                        d[slot][lane] = ((c + sum) as f32).to_bits();
                    }
                }
            }
        }
    }
    let dst = file + (i.dst - VGPR);
    for (r, row) in d.iter().take(nregs).enumerate() {
        w.vwrite(dst + r as u16, row as &Row, exec);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of every matrix has exactly one place, and the places fill the operand
    /// registers.
    #[test]
    fn layouts_are_bijections() {
        for (op, sh) in SHAPES {
            let mut seen = vec![false; LANES * sh.kpl()];
            for b in 0..sh.blocks {
                for i in 0..sh.m {
                    for k in 0..sh.k {
                        let (l, e) = sh.in_loc(i, k, b);
                        assert!(!seen[l * sh.kpl() + e], "{op:?} A({i},{k}) block {b}");
                        seen[l * sh.kpl() + e] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x), "{op:?}");
            let slots = if sh.output == F64 {
                sh.out_regs() / 2
            } else {
                sh.out_regs()
            };
            let mut seen = vec![false; LANES * slots];
            for b in 0..sh.blocks {
                for i in 0..sh.m {
                    for j in 0..sh.n {
                        let (s, l) = sh.out_loc(i, j, b);
                        assert!(!seen[s * LANES + l], "{op:?} D({i},{j}) block {b}");
                        seen[s * LANES + l] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x), "{op:?}");
            assert!(sh.out_regs() <= 32 && sh.in_regs() <= 4, "{op:?}");
        }
    }

    /// Spot checks against the layouts AMD's lab notes spell out in words.
    #[test]
    fn layouts_match_the_lab_notes() {
        let sh = |op| *shape(op).expect("shape");
        // 32x32x2f32: lanes 0-31 hold k = 0, lanes 32-63 k = 1; D register r holds rows
        // 8·(r/4) + r%4 (lanes 0-31) and 8·(r/4) + 4 + r%4 (lanes 32-63).
        let s = sh(Op::V_MFMA_F32_32X32X2F32);
        assert_eq!(s.in_loc(5, 1, 0), (37, 0));
        assert_eq!(s.out_loc(13, 7, 0), (5, 39));
        // 4x4x1f32: 16 blocks, lanes 4b..4b+3; D register r is row r of every block.
        let s = sh(Op::V_MFMA_F32_4X4X1F32);
        assert_eq!(s.in_loc(2, 0, 9), (38, 0));
        assert_eq!(s.out_loc(3, 1, 15), (3, 61));
        // 32x32x8f16: four consecutive k in a register pair, lanes 32-63 hold k = 4..7.
        let s = sh(Op::V_MFMA_F32_32X32X8F16);
        assert_eq!((s.kpl(), s.in_regs()), (4, 2));
        assert_eq!(s.in_loc(3, 6, 0), (35, 2));
        // 4x4x4f64: lanes 0-15 hold k = 0 (four lanes per block), D lanes 16·i + 4·b + j.
        let s = sh(Op::V_MFMA_F64_4X4X4F64);
        assert_eq!(s.in_loc(1, 2, 3), (45, 0));
        assert_eq!(s.out_loc(2, 3, 1), (0, 39));
        // 16x16x4f64: D register pair p holds rows 4p..4p+3, one per 16-lane group.
        let s = sh(Op::V_MFMA_F64_16X16X4F64);
        assert_eq!(s.out_loc(6, 5, 0), (1, 37));
        assert_eq!(s.out_regs(), 8);
    }

    #[test]
    fn blgp_patterns() {
        assert_eq!(blgp_lane(40, 1), 8);
        assert_eq!(blgp_lane(8, 2), 40);
        assert_eq!(blgp_lane(50, 3), 2);
        assert_eq!(blgp_lane(63, 4), 15);
        assert_eq!(blgp_lane(3, 7), 51);
    }
}
