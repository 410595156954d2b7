//! Sparse matrix fused multiply-add (`v_smfmac_*`, gfx940+ and gfx950's double-K shapes):
//! `D = A·B + D` for one M×N×K product whose A has 2:4 structured sparsity (at most two
//! non-zero values in every group of four consecutive k).
//!
//! Layout (AMD's CDNA3/CDNA4 ISA guides, "sparse matrix"): B, C and D are laid out as in the
//! dense MFMA of the same M, N and K ([`Shape`]): a lane of B holds `kpl = K·M/64` consecutive
//! k of one column. A lane of A holds the same k-range of one row, compressed to its `kpl/2`
//! non-zero values in order; value `v` lies in group `v/2` of four, at the position given by
//! bits `2v+1:2v` of the lane's index set. The index VGPR (the SRC2 field) holds
//! `32 / kpl` such sets of `kpl` bits; CBSZ = 0 lets ABID pick one, any other CBSZ picks set
//! 0. The accumulator is the destination itself. Sums follow the MFMA rules: float products
//! exact, summed in f64 and rounded to f32 once; i8 exact with a wrapping i32 sum. BLGP is not
//! defined for SMFMAC; a non-zero value, or an ABID beyond the sets, faults as unimplemented.

use super::mfma::{Elem, Shape};
use super::{unimplemented, Flow, LaneFault, R};
use crate::decode::{flag, Gen, Inst, AGPR, VGPR};
use crate::error::FaultKind;
use crate::ops::Op;
use crate::wave::{reg_index, Row, Wave};

use Elem::{Bf16, Bf8, Fp8, F16, F32, I32, I8};

/// An SMFMAC shape: the dense M×N×K it computes (one block), A's and B's element types.
const fn sp(m: usize, k: usize, a: Elem, b: Elem) -> Shape {
    Shape {
        m,
        n: m,
        k,
        blocks: 1,
        input: a,
        input_b: b,
        output: if matches!(a, I8) { I32 } else { F32 },
    }
}

/// Every SMFMAC opcode of gfx940–gfx942 and gfx950.
pub(crate) static SPARSE: &[(Op, Shape)] = &[
    (Op::V_SMFMAC_F32_16X16X32_F16, sp(16, 32, F16, F16)),
    (Op::V_SMFMAC_F32_32X32X16_F16, sp(32, 16, F16, F16)),
    (Op::V_SMFMAC_F32_16X16X32_BF16, sp(16, 32, Bf16, Bf16)),
    (Op::V_SMFMAC_F32_32X32X16_BF16, sp(32, 16, Bf16, Bf16)),
    (Op::V_SMFMAC_I32_16X16X64_I8, sp(16, 64, I8, I8)),
    (Op::V_SMFMAC_I32_32X32X32_I8, sp(32, 32, I8, I8)),
    (Op::V_SMFMAC_F32_16X16X64_BF8_BF8, sp(16, 64, Bf8, Bf8)),
    (Op::V_SMFMAC_F32_16X16X64_BF8_FP8, sp(16, 64, Bf8, Fp8)),
    (Op::V_SMFMAC_F32_16X16X64_FP8_BF8, sp(16, 64, Fp8, Bf8)),
    (Op::V_SMFMAC_F32_16X16X64_FP8_FP8, sp(16, 64, Fp8, Fp8)),
    (Op::V_SMFMAC_F32_32X32X32_BF8_BF8, sp(32, 32, Bf8, Bf8)),
    (Op::V_SMFMAC_F32_32X32X32_BF8_FP8, sp(32, 32, Bf8, Fp8)),
    (Op::V_SMFMAC_F32_32X32X32_FP8_BF8, sp(32, 32, Fp8, Bf8)),
    (Op::V_SMFMAC_F32_32X32X32_FP8_FP8, sp(32, 32, Fp8, Fp8)),
    // gfx950: twice the K, so twice the values and index bits per lane.
    (Op::V_SMFMAC_F32_16X16X64_F16, sp(16, 64, F16, F16)),
    (Op::V_SMFMAC_F32_32X32X32_F16, sp(32, 32, F16, F16)),
    (Op::V_SMFMAC_F32_16X16X64_BF16, sp(16, 64, Bf16, Bf16)),
    (Op::V_SMFMAC_F32_32X32X32_BF16, sp(32, 32, Bf16, Bf16)),
    (Op::V_SMFMAC_I32_16X16X128_I8, sp(16, 128, I8, I8)),
    (Op::V_SMFMAC_I32_32X32X64_I8, sp(32, 64, I8, I8)),
    (Op::V_SMFMAC_F32_16X16X128_BF8_BF8, sp(16, 128, Bf8, Bf8)),
    (Op::V_SMFMAC_F32_16X16X128_BF8_FP8, sp(16, 128, Bf8, Fp8)),
    (Op::V_SMFMAC_F32_16X16X128_FP8_BF8, sp(16, 128, Fp8, Bf8)),
    (Op::V_SMFMAC_F32_16X16X128_FP8_FP8, sp(16, 128, Fp8, Fp8)),
    (Op::V_SMFMAC_F32_32X32X64_BF8_BF8, sp(32, 64, Bf8, Bf8)),
    (Op::V_SMFMAC_F32_32X32X64_BF8_FP8, sp(32, 64, Bf8, Fp8)),
    (Op::V_SMFMAC_F32_32X32X64_FP8_BF8, sp(32, 64, Fp8, Bf8)),
    (Op::V_SMFMAC_F32_32X32X64_FP8_FP8, sp(32, 64, Fp8, Fp8)),
];

/// The shape of an SMFMAC operation.
pub(crate) fn shape(op: Op) -> Option<&'static Shape> {
    SPARSE.iter().find(|(o, _)| *o == op).map(|(_, s)| s)
}

fn undefined(i: &Inst, what: String) -> LaneFault {
    LaneFault::new(
        FaultKind::Unimplemented {
            mnemonic: format!("{} {what}", i.name()),
        },
        None,
    )
}

/// `n` consecutive registers from `base` (a VGPR or AGPR code), one row each.
fn rows(w: &Wave, base: u16, n: usize) -> Vec<Row> {
    (0..n).map(|r| w.v[reg_index(base + r as u16)]).collect()
}

/// Element `e` (of `bits` bits) of a lane's packed operand, as raw bits.
fn raw(regs: &[Row], lane: usize, e: usize, bits: usize) -> u128 {
    let (word, shift) = (e * bits / 32, e * bits % 32);
    u128::from(regs[word][lane] >> shift) & ((1u128 << bits) - 1)
}

/// Executes an SMFMAC (the hook from the end of `valu::vop3p`).
pub(crate) fn execute(w: &mut Wave, i: &Inst, exec: u64, gen: Gen, sh: &Shape) -> R {
    let (cbsz, abid, blgp) = (i.neg_hi, i.opsel | (i.opsel_hi >> 2) << 3, i.neg);
    let kpl = sh.kpl();
    let sets = 32 / kpl;
    if blgp != 0 || (cbsz == 0 && usize::from(abid) >= sets) {
        return Err(undefined(
            i,
            format!("cbsz:{cbsz} abid:{abid} blgp:{blgp} ({sets} index sets, no BLGP)"),
        ));
    }
    let set = if cbsz == 0 { usize::from(abid) } else { 0 };
    let (a_code, b_code, idx_code) = (i.src[0], i.src[1], i.src[2]);
    if a_code < VGPR || b_code < VGPR || idx_code < VGPR {
        return Err(unimplemented(i));
    }
    let file = |agpr: bool| if agpr { AGPR } else { VGPR };
    let (abits, bbits) = (sh.input.bits(), sh.input_b.bits());
    let a = rows(
        w,
        file(i.opsel_hi & 1 != 0) + (a_code - VGPR),
        kpl / 2 * abits / 32,
    );
    let b = rows(
        w,
        file(i.opsel_hi & 2 != 0) + (b_code - VGPR),
        kpl * bbits / 32,
    );
    let idx = w.v[reg_index(idx_code)];
    let cd = file(!gen.unified_agprs() || i.has(flag::ACC)) + (i.dst - VGPR);
    let nregs = sh.out_regs();
    let mut d = rows(w, cd, nregs);
    for row in 0..sh.m {
        for col in 0..sh.n {
            let (slot, lane) = sh.out_loc(row, col, 0);
            let mut fsum = 0.0f64;
            let mut isum = d[slot][lane] as i32;
            for g in 0..sh.k / kpl {
                let la = row + sh.m * g;
                let bits = idx[la] >> (set * kpl);
                for v in 0..kpl / 2 {
                    let k = (v / 2) * 4 + (bits >> (2 * v) & 3) as usize;
                    let (lb, eb) = sh.in_loc(col, g * kpl + k, 0);
                    let (x, y) = (raw(&a, la, v, abits), raw(&b, lb, eb, bbits));
                    if sh.output == I32 {
                        let p = i32::from(x as u8 as i8) * i32::from(y as u8 as i8);
                        isum = isum.wrapping_add(p);
                    } else {
                        fsum += sh.input.value(x, 0, gen) * sh.input_b.value(y, 0, gen);
                    }
                }
            }
            d[slot][lane] = if sh.output == I32 {
                isum as u32
            } else {
                ((f64::from(f32::from_bits(d[slot][lane])) + fsum) as f32).to_bits()
            };
        }
    }
    for (r, row) in d.iter().enumerate() {
        w.vwrite(cd + r as u16, row, exec);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wave::LANES;

    /// Every lane's compressed A and index set cover its k-range, and B and D fill their
    /// registers as the dense shape does.
    #[test]
    fn sparse_shapes_fit_their_registers() {
        for (op, sh) in SPARSE {
            let kpl = sh.kpl();
            assert!(kpl % 4 == 0 && 32 % kpl == 0, "{op:?}");
            assert!(kpl * sh.input_b.bits() / 32 <= 8, "{op:?}");
            assert_eq!(
                sh.m * (sh.k / kpl),
                LANES,
                "{op:?}: one A row segment per lane"
            );
        }
    }
}
