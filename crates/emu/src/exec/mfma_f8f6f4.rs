//! gfx950 (CDNA4) f8f6f4 MFMAs: `v_mfma_f32_16x16x128_f8f6f4` and `v_mfma_f32_32x32x64_f8f6f4`,
//! plain or scaled (`v_mfma_scale_f32_*_f8f6f4`, the `v_mfma_ld_scale_b32` prefix fused with
//! the MFMA, as isa decodes the pair: [`MFMA_SCALE`] in `Inst::ext`). One M×N×K product,
//! `D = (sA·A)·(sB·B) + C`, with A's and B's element formats chosen per instruction.
//!
//! - **Formats.** CBSZ selects A's, BLGP B's (they are not broadcasts here): 0 fp8 (OCP E4M3),
//!   1 bf8 (OCP E5M2), 2 fp6 (E2M3), 3 bf6 (E3M2), 4 fp4 (E2M1), decoded by `cdna3::F8` and
//!   `microfloat`. 5–7 are not defined (LLVM still decodes them, as 8 registers) and fault as
//!   unimplemented. ABID is 0 (the decoder refuses any other value, except ABID 1 after the
//!   prefix, which it fuses).
//! - **A and B.** A lane holds 32 consecutive k of one row of A (column of B): element (i, k)
//!   is in lane `i + M·(k/32)`, slot `k % 32` — the MFMA rule of `mfma.rs` with
//!   `kpl = K·M/64 = 32` for both shapes. Slot `e` is bits `[w·e, w·e + w)` of the lane's
//!   registers read as one little-endian number, `w` the format's width (8, 6 or 4), so the
//!   operand is 8, 6 or 4 registers (isa's `Inst::f8f6f4_src_dwords`). Sources: the lane
//!   mapping as Modular's CDNA4 block-scaled MFMA kernels document it, citing the CDNA4 ISA
//!   guide (lane row = lane % M, K-chunk = lane / M, 32 elements per lane for 16x16x128 fp4
//!   and 32x32x64 fp8); the packing as Composable Kernel's `pk_fp4_t`
//!   (element 0 in the low nibble) and `pk_fp6x32_t` (element `i` at bit `6i` of six dwords,
//!   crossing dword boundaries), which CK passes unchanged to these builtins.
//! - **C and D**: f32, as every 16x16 / 32x32 MFMA (`Shape::out_loc`).
//! - **Scales** (scaled form only). Each lane's scale source register holds four E8M0 bytes;
//!   the prefix's op_sel bit 0 and op_sel_hi bit 0 pick A's byte (`op_sel | op_sel_hi << 1`),
//!   bit 1 of each B's. The byte a lane holds scales the 32 elements that lane holds: A(i, k)
//!   is scaled by the byte of lane `i + M·(k/32)`, which is the MX block size of 32 along K.
//!   E8M0 is `2^(e-127)`, 0xFF NaN (OCP MX). The byte selection is how clang-22 lowers the
//!   builtins' scale-select arguments (0–3, checked by compiling them); the per-lane blocks as
//!   Modular's kernels load them (one scale byte per lane, lane row / K-group as above); the
//!   bias as ROCm's aiter tests use it on gfx950 ("127 = no scaling"). The plain instruction
//!   scales by 1.
//! - **Arithmetic** as the other float MFMAs: products exact, summed in f64, rounded to f32
//!   once (a NaN scale or element makes its sums NaN).
//!
//! Not modelled, and said so: a scale source that is not a VGPR faults as unimplemented (LLVM
//! 22 accepts only VGPRs there and notes that hardware reads bits 30:23 of an SGPR or constant).
//! A lone `v_mfma_ld_scale_b32` (llvm-objdump-22 prints it alone when the next instruction is
//! not an f8f6f4 MFMA with ABID 1; clang never emits that) is on `tools/not-for-compute.txt`
//! and faults as unimplemented: what the prefix does without its MFMA is not documented. Note that clang-22 compiles the scaled
//! builtin with constant zero scales (and selects) as the plain MFMA (LLVM #116724, "use the
//! unscaled form if we know the scale factors are both 0"), which scales by 1 where the E8M0
//! definition gives 2^-254; a zero scale known only at run time gives 2^-254 here.

use super::cdna3::{BF8_OCP, FP8_OCP};
use super::mfma::{accumulator, in_row, undefined, Elem, Shape};
use super::{microfloat, unimplemented, Flow, R};
use crate::decode::{flag, Inst, AGPR, MFMA_SCALE, VGPR};
use crate::ops::Op;
use crate::wave::{reg_index, Wave, LANES};

/// The f8f6f4 shapes (their `input` is nominal: the formats come from CBSZ/BLGP).
static SHAPES: &[(Op, Shape)] = &[
    (
        Op::V_MFMA_F32_16X16X128_F8F6F4,
        super::mfma::s(16, 16, 128, 1, Elem::Fp8, Elem::F32),
    ),
    (
        Op::V_MFMA_F32_32X32X64_F8F6F4,
        super::mfma::s(32, 32, 64, 1, Elem::Fp8, Elem::F32),
    ),
];

/// Elements per lane in A and B (both shapes).
const KPL: usize = 32;
/// The most registers of an A or B operand (fp8/bf8).
const MAX_REGS: usize = 8;

/// An element format of A or B (the CBSZ/BLGP code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Fp8,
    Bf8,
    Fp6,
    Bf6,
    Fp4,
}

impl Format {
    fn of(code: u8) -> Option<Format> {
        Some(match code {
            0 => Format::Fp8,
            1 => Format::Bf8,
            2 => Format::Fp6,
            3 => Format::Bf6,
            4 => Format::Fp4,
            _ => return None,
        })
    }

    /// Bits per element.
    fn bits(self) -> usize {
        match self {
            Format::Fp8 | Format::Bf8 => 8,
            Format::Fp6 | Format::Bf6 => 6,
            Format::Fp4 => 4,
        }
    }

    fn value(self, code: u8) -> f64 {
        f64::from(match self {
            Format::Fp8 => FP8_OCP.decode(code),
            Format::Bf8 => BF8_OCP.decode(code),
            Format::Fp6 => microfloat::e2m3_to_f32(code),
            Format::Bf6 => microfloat::e3m2_to_f32(code),
            Format::Fp4 => microfloat::e2m1_to_f32(code),
        })
    }
}

/// Element `e` of a lane's operand registers `regs`, `bits` wide.
fn element(regs: &[u32; MAX_REGS], e: usize, bits: usize) -> u8 {
    let at = bits * e;
    let (word, shift) = (at / 32, at % 32);
    let lo = u64::from(regs[word]);
    let hi = regs.get(word + 1).map_or(0, |&x| u64::from(x));
    ((lo | hi << 32) >> shift) as u8 & ((1u16 << bits) - 1) as u8
}

/// Executes an f8f6f4 MFMA, or faults as unimplemented for any other VOP3P operation that
/// reaches the end of the matrix hook.
pub(super) fn execute(w: &mut Wave, i: &Inst, exec: u64) -> R {
    let Some(sh) = SHAPES.iter().find(|(o, _)| *o == i.op).map(|(_, s)| s) else {
        return Err(unimplemented(i));
    };
    let (cbsz, blgp) = (i.neg_hi, i.neg);
    let (Some(fa), Some(fb)) = (Format::of(cbsz), Format::of(blgp)) else {
        return Err(undefined(
            i,
            format!("cbsz:{cbsz} blgp:{blgp} (formats 5-7 are not defined)"),
        ));
    };
    if i.src[0] < VGPR || i.src[1] < VGPR {
        return Err(undefined(i, "with a scalar A/B operand".into()));
    }
    // Each lane's registers of A and B (the format's count; the rest stay 0).
    let operand = |k: usize, f: Format| {
        let mut v = [[0u32; MAX_REGS]; LANES];
        for r in 0..KPL * f.bits() / 32 {
            let row = in_row(w, i, k, r);
            for l in 0..LANES {
                v[l][r] = row[l];
            }
        }
        v
    };
    let (a, b) = (operand(0, fa), operand(1, fb));
    let (sa, sb) = if i.ext & MFMA_SCALE != 0 {
        (scales(w, i, 0)?, scales(w, i, 1)?)
    } else {
        ([1.0; LANES], [1.0; LANES])
    };
    // Scaled values: A by row (m × K), B by column (n × K).
    let values = |regs: &[[u32; MAX_REGS]; LANES], s: &[f64; LANES], f: Format, rows: usize| {
        let mut v = vec![0.0f64; rows * sh.k];
        for r in 0..rows {
            for k in 0..sh.k {
                let (l, e) = sh.in_loc(r, k, 0);
                v[r * sh.k + k] = s[l] * f.value(element(&regs[l], e, f.bits()));
            }
        }
        v
    };
    let (av, bv) = (values(&a, &sa, fa, sh.m), values(&b, &sb, fb, sh.n));
    let file = if i.has(flag::ACC) { AGPR } else { VGPR };
    let nregs = sh.out_regs();
    let mut d = accumulator(w, i, file, nregs, false);
    for row in 0..sh.m {
        let ar = &av[row * sh.k..(row + 1) * sh.k];
        for col in 0..sh.n {
            let bc = &bv[col * sh.k..(col + 1) * sh.k];
            let sum: f64 = ar.iter().zip(bc).map(|(x, y)| x * y).sum();
            let (slot, lane) = sh.out_loc(row, col, 0);
            let c = f64::from(f32::from_bits(d[slot][lane]));
            d[slot][lane] = ((c + sum) as f32).to_bits();
        }
    }
    let dst = file + (i.dst - VGPR);
    for (r, row) in d.iter().take(nregs).enumerate() {
        w.vwrite(dst + r as u16, row, exec);
    }
    Ok(Flow::Next)
}

/// Each lane's scale of A (`k` = 0) or B (1) of a scaled MFMA: the E8M0 byte that the prefix's
/// op_sel/op_sel_hi bits `k` select from the lane's scale VGPR.
fn scales(w: &Wave, i: &Inst, k: u32) -> Result<[f64; LANES], super::LaneFault> {
    let code = (i.ext >> (10 * k) & 0x3ff) as u16;
    if !(VGPR..AGPR).contains(&code) {
        return Err(undefined(
            i,
            "with a scale that is not a VGPR (hardware reads bits 30:23 then)".into(),
        ));
    }
    let byte = (i.ext >> (20 + k) & 1) | (i.ext >> (22 + k) & 1) << 1;
    let row = &w.v[reg_index(code)];
    let mut s = [0.0; LANES];
    for l in 0..LANES {
        s[l] = f64::from(microfloat::e8m0_to_f32((row[l] >> (8 * byte)) as u8));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elements are packed from bit 0 up across the registers, a 6-bit one crossing a
    /// register boundary where it falls on one.
    #[test]
    fn elements_are_packed_from_the_low_bits_across_registers() {
        // Element e of a 6-bit packing holds e (mod 64); elements 5 (bits 30..35) and 21
        // (bits 126..131) cross registers.
        let mut regs = [0u32; MAX_REGS];
        for e in 0..32 {
            let at = 6 * e;
            let v = (e as u64 % 64) << (at % 32);
            regs[at / 32] |= v as u32;
            if at % 32 > 26 {
                regs[at / 32 + 1] |= (v >> 32) as u32;
            }
        }
        for e in 0..32 {
            assert_eq!(usize::from(element(&regs, e, 6)), e % 64, "element {e}");
        }
        let regs = [0x7654_3210, 0xfedc_ba98, 0, 0, 0, 0, 0, 0x1122_3344];
        assert_eq!(element(&regs, 0, 4), 0x0);
        assert_eq!(element(&regs, 9, 4), 0x9);
        assert_eq!(element(&regs, 15, 4), 0xf);
        assert_eq!(element(&regs, 31, 8), 0x11);
        assert_eq!(element(&regs, 28, 8), 0x44);
    }

    #[test]
    fn both_shapes_hold_32_elements_per_lane() {
        for (op, sh) in SHAPES {
            assert_eq!(sh.kpl(), KPL, "{op:?}");
            // Lane of A(i, k): row i, K-group k / 32.
            assert_eq!(sh.in_loc(3, 40, 0), (3 + sh.m, 8), "{op:?}");
        }
    }
}
