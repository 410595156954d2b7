//! The decoder: machine words to [`Inst`], driven by the generated tables.
//!
//! `decode` reads the first word, picks the encoding family from its fixed high bits (their
//! layout differs between GFX8/GFX9 and GFX10, see [`family`]), looks the opcode number up in
//! the generation's table, and reads each operand field the table lists.
//! It never panics: short input, unknown opcodes and invalid operand values are
//! [`DecodeError`]s.

use crate::inst::{
    cpol, flags, DecodeError, DecodeErrorKind, Dpp, Dpp8, Encoding, Ext, FloatConst, Gen, Inst,
    Operand, Sdwa,
};
use crate::tables::{encoding_of, lookup, mods, Entry, Fam, Place, F};

/// Decodes the instruction at `offset` in `bytes`.
#[inline]
pub fn decode(gen: Gen, bytes: &[u8], offset: usize) -> Result<Inst, DecodeError> {
    let mut inst = BLANK;
    decode_blank_for(gen, bytes, offset, &mut inst).map(|()| inst)
}

/// Decodes the instruction at `offset` into `inst` (in place: no copy of the whole value).
/// On error `inst` is left unspecified.
#[inline]
pub fn decode_into(
    gen: Gen,
    bytes: &[u8],
    offset: usize,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    *inst = BLANK;
    decode_blank_for(gen, bytes, offset, inst)
}

/// [`decode_blank`] with the GFX10-or-not choice made once, at the top.
#[inline(always)]
fn decode_blank_for(
    gen: Gen,
    bytes: &[u8],
    offset: usize,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    if gen.is_rdna() {
        decode_blank::<true>(gen, bytes, offset, inst)
    } else {
        decode_blank::<false>(gen, bytes, offset, inst)
    }
}

/// The value [`decode_blank`] starts from: every operand, modifier and flag absent.
const BLANK: Inst = Inst::new(crate::Opcode::Unknown, Encoding::Unknown, 4);

/// [`decode_into`] for an `inst` that is [`BLANK`]: only the fields the instruction has are
/// written (what makes [`decode_all`] fast: each slot of its vector is written once).
/// `GFX10` is `gen.is_gfx10()`, a compile-time constant so that the GFX8/GFX9 fast paths pay
/// nothing for GFX10's.
#[inline(always)]
fn decode_blank<const GFX10: bool>(
    gen: Gen,
    bytes: &[u8],
    offset: usize,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let first = offset
        .checked_add(4)
        .and_then(|end| bytes.get(offset..end))
        .and_then(|b| <[u8; 4]>::try_from(b).ok());
    if let Some(w0) = first.map(u32::from_le_bytes) {
        let done = match w0 >> 30 {
            0 | 1 => vop_short_fast(gen, bytes, offset, w0, inst),
            2 => salu_fast(gen, w0, inst),
            _ if GFX10 => vop3_fast_gfx10(gen, bytes, offset, w0, inst),
            _ => vop3_fast(gen, bytes, offset, w0, inst),
        };
        if done {
            return Ok(());
        }
    }
    decode_general(gen, bytes, offset, inst)
}

/// The word after the one at `offset`, if `bytes` has it.
#[inline(always)]
fn second_word(bytes: &[u8], offset: usize) -> Option<u32> {
    let at = offset.checked_add(4)?;
    let b = bytes.get(at..at.checked_add(4)?)?;
    <[u8; 4]>::try_from(b).ok().map(u32::from_le_bytes)
}

/// Plain VOP3 rows ([`Entry::vop3_plain`]: `vdst, src0[, src1[, src2]]`) with valid operands.
/// Like [`vop_short_fast`]: true when written into a [`BLANK`] `inst`, false (nothing written)
/// for everything else.
#[inline(always)]
fn vop3_fast(gen: Gen, bytes: &[u8], offset: usize, w0: u32, inst: &mut Inst) -> bool {
    if w0 >> 26 != 0x34 || (w0 >> 23) & 7 == 7 {
        return false;
    }
    let Some(e) = lookup(gen, Fam::Vop3, (w0 >> 16) & 0x3ff) else {
        return false;
    };
    let [d, srcs @ ..] = e.slots else {
        return false;
    };
    let (true, Some(w1)) = (e.vop3_plain, second_word(bytes, offset)) else {
        return false;
    };
    let dst = if d.class == b's' {
        scalar(gen, w0 & 0xff, d.width)
    } else {
        Some(Operand::Vgpr((w0 & 0xff) as u16))
    };
    let Some(dst) = dst else {
        return false;
    };
    let mut src = [Operand::None; 3];
    for (k, (op, s)) in src.iter_mut().zip(srcs).enumerate() {
        // VOP3 has no literal on GFX8/GFX9 (255 is invalid there, like the reserved values).
        let v = (w1 >> (9 * k)) & 0x1ff;
        *op = if v >= 256 {
            Operand::Vgpr((v - 256) as u16)
        } else {
            match scalar(gen, v, s.width) {
                Some(op) => op,
                None => return false,
            }
        };
    }
    start(inst, e, Encoding::Vop3, 8);
    inst.dst = dst;
    inst.src = src;
    vop3_mods(Fam::Vop3, e, w0, w1, false, inst);
    true
}

/// GFX10 VOP3 rows with the [`Entry::vop3_rdna`] shape: like [`vop3_fast`], plus carry-out
/// `sdst`, lane masks (their width follows the wave size) and a literal constant. True when
/// written into a [`BLANK`] `inst`, false (nothing written) for everything else.
#[inline(always)]
fn vop3_fast_gfx10(gen: Gen, bytes: &[u8], offset: usize, w0: u32, inst: &mut Inst) -> bool {
    if w0 >> 26 != 0x35 {
        return false;
    }
    let Some(e) = lookup(gen, Fam::Vop3, (w0 >> 16) & 0x3ff) else {
        return false;
    };
    let (true, Some(w1)) = (e.vop3_rdna, second_word(bytes, offset)) else {
        return false;
    };
    let (mut dst, mut sdst, mut src) = (Operand::None, Operand::None, [Operand::None; 3]);
    let mut size = 8;
    for s in e.slots {
        let op = match s.field {
            F::Vdst if s.class == b's' => scalar(gen, w0 & 0xff, s.width_on(gen)),
            F::Vdst => Some(Operand::Vgpr((w0 & 0xff) as u16)),
            F::Sdst3 => scalar(gen, (w0 >> 8) & 0x7f, s.width_on(gen)),
            _ => {
                let k = match s.field {
                    F::Src0 => 0,
                    F::Src1 => 1,
                    _ => 2,
                };
                let v = (w1 >> (9 * k)) & 0x1ff;
                src[k] = if v >= 256 {
                    Operand::Vgpr((v - 256) as u16)
                } else if v == 255 {
                    // The literal follows the two words.
                    let at = offset.checked_add(4);
                    match at.and_then(|a| second_word(bytes, a)) {
                        Some(lit) => {
                            size = 12;
                            Operand::Literal(lit)
                        }
                        None => return false,
                    }
                } else {
                    match scalar(gen, v, s.width_on(gen)) {
                        Some(op) => op,
                        None => return false,
                    }
                };
                continue;
            }
        };
        let Some(op) = op else {
            return false;
        };
        if s.field == F::Sdst3 {
            sdst = op;
        } else {
            dst = op;
        }
    }
    start(inst, e, Encoding::Vop3, size);
    inst.dst = dst;
    inst.sdst = sdst;
    inst.src = src;
    vop3_mods(Fam::Vop3, e, w0, w1, sdst != Operand::None, inst);
    true
}

/// Common one-word SALU instructions: SOPP (just the immediate) and SOP1/SOP2 `sdst, ssrc0[,
/// ssrc1]` without a literal. Like [`vop_short_fast`]: true when written into a [`BLANK`]
/// `inst`, false (nothing written) for everything else.
#[inline(always)]
fn salu_fast(gen: Gen, w0: u32, inst: &mut Inst) -> bool {
    use crate::tables::{SALU_DST_SRC0, SALU_DST_SRC0_SRC1, SALU_IMM16};
    let (fam, op) = match w0 >> 23 {
        0x17d => (Fam::Sop1, (w0 >> 8) & 0xff),
        0x17f => (Fam::Sopp, (w0 >> 16) & 0x7f),
        0x17e => return false,
        _ if w0 >> 28 == 0xb => return false,
        _ => (Fam::Sop2, (w0 >> 23) & 0x7f),
    };
    let Some(e) = lookup(gen, fam, op) else {
        return false;
    };
    match e.salu_plain {
        SALU_IMM16 => {
            start(inst, e, Encoding::Sopp, 4);
            inst.src[0] = Operand::Imm(w0 & 0xffff);
            true
        }
        kind @ (SALU_DST_SRC0 | SALU_DST_SRC0_SRC1) => {
            let [d, s0, s1 @ ..] = e.slots else {
                return false;
            };
            let dst = scalar(gen, (w0 >> 16) & 0x7f, d.width);
            let src0 = scalar(gen, w0 & 0xff, s0.width);
            let src1 = match s1 {
                [s1] if kind == SALU_DST_SRC0_SRC1 => scalar(gen, (w0 >> 8) & 0xff, s1.width),
                _ => Some(Operand::None),
            };
            let (Some(dst), Some(src0), Some(src1)) = (dst, src0, src1) else {
                return false;
            };
            start(inst, e, encoding_of(fam), 4);
            inst.dst = dst;
            inst.src[0] = src0;
            inst.src[1] = src1;
            true
        }
        _ => false,
    }
}

/// The most common instructions (half of compiled code): a VOP1/VOP2/VOPC whose table row has
/// a fast shape ([`crate::tables::vop_fast`]) and whose `src0` is not DPP or SDWA (a literal
/// is fine). Writes them into a [`BLANK`] `inst` and returns true; returns false, having
/// written nothing, for everything else (and for anything invalid or truncated, which the
/// general path reports).
#[inline(always)]
fn vop_short_fast(gen: Gen, bytes: &[u8], offset: usize, w0: u32, inst: &mut Inst) -> bool {
    use crate::tables::vop_fast::*;
    if w0 >> 31 != 0 {
        return false;
    }
    let (fam, op) = match w0 >> 25 {
        0x3f => (Fam::Vop1, (w0 >> 9) & 0xff),
        0x3e => (Fam::Vopc, (w0 >> 17) & 0xff),
        _ => (Fam::Vop2, (w0 >> 25) & 0x3f),
    };
    let Some(e) = lookup(gen, fam, op) else {
        return false;
    };
    let fast = e.vop_fast;
    let src0 = w0 & 0x1ff;
    if fast == 0 || matches!(src0, 0xf9 | 0xfa) {
        return false;
    }
    let (src, size) = if src0 >= 256 {
        (Operand::Vgpr((src0 - 256) as u16), 4)
    } else if src0 == 0xff {
        match second_word(bytes, offset) {
            Some(lit) => (Operand::Literal(lit), 8),
            None => return false,
        }
    } else {
        match scalar(gen, src0, fast >> WIDTH_SHIFT) {
            Some(op) => (op, 4),
            None => return false,
        }
    };
    start(inst, e, encoding_of(fam), size);
    inst.src[0] = src;
    if fast & DST_VGPR != 0 {
        inst.dst = Operand::Vgpr(((w0 >> 17) & 0xff) as u16);
    } else if fast & DST_VCC != 0 {
        inst.dst = vcc(gen);
    }
    if fast & SDST_VCC != 0 {
        inst.sdst = vcc(gen);
    }
    if fast & SRC1_VGPR != 0 {
        inst.src[1] = Operand::Vgpr(((w0 >> 9) & 0xff) as u16);
    }
    if fast & SRC2_VCC != 0 {
        inst.src[2] = vcc(gen);
    }
    true
}

/// gfx950's `v_mfma_f32_*_f8f6f4` (A/B widths by format, scaled pairing).
fn is_f8f6f4(op: crate::Opcode) -> bool {
    matches!(
        op,
        crate::Opcode::V_MFMA_F32_16X16X128_F8F6F4 | crate::Opcode::V_MFMA_F32_32X32X64_F8F6F4
    )
}

/// The implicit `vcc` of VOPC and VOP2 carry/mask forms: `vcc_lo` in wave32.
#[inline(always)]
fn vcc(gen: Gen) -> Operand {
    if gen.lane_mask_dwords() == 1 {
        Operand::VccLo
    } else {
        Operand::Vcc
    }
}

/// [`decode_blank`] for every encoding.
#[inline(never)]
fn decode_general(
    gen: Gen,
    bytes: &[u8],
    offset: usize,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let r = Reader { bytes, offset, gen };
    let w0 = r.word(0)?;
    if !gen.is_supported() {
        return Err(r.err(w0, DecodeErrorKind::UnsupportedGen));
    }
    let res = decode_family(&r, family(gen, w0), w0, inst);
    match (res, gfx9_prefixed_vop3p(gen, w0)) {
        // GFX12: the word is a VIMAGE one unless that decoding fails (LLVM tries its 96-bit
        // tables first); GFX10.3/GFX11 have no other encoding with this prefix.
        (Err(_), Some(op)) => {
            *inst = BLANK;
            decode_family(&r, (Some(Fam::Vop3p), op), w0, inst)
        }
        (res, _) => res,
    }
}

/// [`decode_general`] once the family and opcode number of the first word are known.
#[inline(always)]
fn decode_family(
    r: &Reader,
    (fam, mut op): (Option<Fam>, u32),
    w0: u32,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let gen = r.gen;
    let Some(fam) = fam else {
        return Err(r.err(w0, DecodeErrorKind::UnknownOpcode));
    };
    if fam == Fam::Mtbuf && gen.is_gfx10() {
        // GFX10 MTBUF: opcode bit 3 is in the second word.
        op |= ((r.word(1)? >> 21) & 1) << 3;
    }
    let Some(entry) = lookup(gen, fam, op) else {
        return Err(r.err(w0, DecodeErrorKind::UnknownOpcode));
    };
    if entry.opcode == crate::Opcode::V_MFMA_LD_SCALE_B32 {
        return r.mfma_ld_scale(entry, w0, inst);
    }
    let res = match fam {
        Fam::Sop1 | Fam::Sop2 | Fam::Sopc | Fam::Sopk | Fam::Sopp => r.salu(fam, entry, w0, inst),
        Fam::Smem if gen.is_gfx12() => r.smem12(entry, w0, inst),
        Fam::Smem if gen.is_rdna() => r.smem10(entry, w0, inst),
        Fam::Smem => r.smem(entry, w0, inst),
        Fam::Vop1 | Fam::Vop2 | Fam::Vopc => r.vop_short(fam, entry, w0, inst),
        Fam::Vop3 | Fam::Vop3p => r.vop3(fam, entry, w0, inst),
        Fam::Ds => r.ds(entry, w0, inst),
        Fam::Flat | Fam::Global | Fam::Scratch => r.flat(fam, entry, w0, inst),
        Fam::Mubuf | Fam::Mtbuf => r.buffer(fam, entry, w0, inst),
        Fam::Mimg if gen.is_gfx12() => r.mimg12(entry, op, w0, inst),
        Fam::Mimg if gen.is_gfx11() => r.mimg11(entry, w0, inst),
        Fam::Mimg if gen.is_gfx10() => r.mimg10(entry, op, w0, inst),
        Fam::Mimg => r.mimg(entry, w0, inst),
        Fam::VopdX | Fam::VopdY => r.vopd(entry, w0, inst),
        Fam::Ldsdir => r.ldsdir(entry, w0, inst),
        Fam::Vinterp => r.vinterp(entry, w0, inst),
        Fam::Exp => r.exp(entry, w0, inst),
    };
    res.map_err(|kind| r.err(w0, kind))
}

/// Decodes every instruction of `bytes` in order; after an error, decoding resumes at the next word.
pub fn decode_all(gen: Gen, bytes: &[u8]) -> Vec<(u64, Result<Inst, DecodeError>)> {
    if gen.is_rdna() {
        decode_all_for::<true>(gen, bytes)
    } else {
        decode_all_for::<false>(gen, bytes)
    }
}

/// [`decode_all`] for GFX10 or not (see [`decode_blank`]).
fn decode_all_for<const GFX10: bool>(
    gen: Gen,
    bytes: &[u8],
) -> Vec<(u64, Result<Inst, DecodeError>)> {
    // Instructions are at least 4 bytes: one allocation, no regrowth.
    let mut out = Vec::with_capacity(bytes.len() / 4 + 1);
    let mut off = 0;
    while off + 4 <= bytes.len() {
        out.push((off as u64, Ok(BLANK)));
        let Some((_, slot)) = out.last_mut() else {
            break;
        };
        let step = match slot {
            Ok(inst) => match decode_blank::<GFX10>(gen, bytes, off, inst) {
                Ok(()) => usize::from(inst.size),
                Err(e) => {
                    *slot = Err(e);
                    4
                }
            },
            Err(_) => 4,
        };
        off += step;
    }
    if off < bytes.len() {
        out.push((
            off as u64,
            Err(DecodeError {
                offset: off,
                word: 0,
                kind: DecodeErrorKind::Truncated,
            }),
        ));
    }
    out
}

/// The family and opcode number of a first word. The VALU (VOP1/VOP2/VOPC) and SALU words are
/// alike on GFX8, GFX9 and GFX10; the other encodings moved on GFX10 ([`family_gfx10`]).
#[inline]
pub(crate) fn family(gen: Gen, w: u32) -> (Option<Fam>, u32) {
    if w >> 30 == 0b11 && gen.is_gfx12() {
        return family_gfx12(w);
    }
    if w >> 30 == 0b11 && gen.is_gfx11() {
        return family_gfx11(w);
    }
    if w >> 30 == 0b11 && gen.is_gfx10() {
        return family_gfx10(w);
    }
    if w >> 31 == 0 {
        return match w >> 25 {
            0x3f => (Some(Fam::Vop1), (w >> 9) & 0xff),
            0x3e => (Some(Fam::Vopc), (w >> 17) & 0xff),
            _ => (Some(Fam::Vop2), (w >> 25) & 0x3f),
        };
    }
    if w >> 30 == 0b10 {
        return match w >> 23 {
            0x17d => (Some(Fam::Sop1), (w >> 8) & 0xff),
            0x17e => (Some(Fam::Sopc), (w >> 16) & 0x7f),
            0x17f => (Some(Fam::Sopp), (w >> 16) & 0x7f),
            _ if w >> 28 == 0xb => (Some(Fam::Sopk), (w >> 23) & 0x1f),
            _ => (Some(Fam::Sop2), (w >> 23) & 0x7f),
        };
    }
    match w >> 26 {
        0x30 => (Some(Fam::Smem), (w >> 18) & 0xff),
        0x34 if (w >> 23) & 0x7 == 0x7 => (Some(Fam::Vop3p), (w >> 16) & 0x7f),
        0x34 => (Some(Fam::Vop3), (w >> 16) & 0x3ff),
        0x36 => (Some(Fam::Ds), (w >> 17) & 0xff),
        0x37 => flat_segment((w >> 14) & 3, (w >> 18) & 0x7f),
        0x38 => (Some(Fam::Mubuf), (w >> 18) & 0x7f),
        0x3a => (Some(Fam::Mtbuf), (w >> 15) & 0xf),
        0x3c => (Some(Fam::Mimg), (w >> 18) & 0x7f),
        _ => (None, 0),
    }
}

/// GFX9's VOP3P prefix (bits 31:23 = `0x1a7`) on GFX10.3, GFX11 and GFX12: LLVM's disassembler
/// tries its GFX9 "DL" table on every target with FMA-mix instructions, before the target's
/// own, so these words decode there too, their other fields laid out as the target's VOP3P.
/// LLVM 22 (GFX11, GFX12) takes the `v_fma_mix*` opcodes (0x20–0x22); LLVM 15 (GFX10.3, the
/// oracle for gfx1030) also GFX9's `v_pk_mad_i16`/`v_pk_mad_u16`/`v_pk_fma_f16` and `v_dot*`.
/// Returns the target's own VOP3P opcode number for the same instruction (so that it executes as
/// that instruction), or `None` for every other word.
#[inline]
fn gfx9_prefixed_vop3p(gen: Gen, w: u32) -> Option<u32> {
    if w >> 23 != 0x1a7 || !gen.is_rdna() {
        return None;
    }
    let op = (w >> 16) & 0x7f;
    match op {
        0x20..=0x22 => Some(op),
        // GFX9 v_pk_mad_i16, v_pk_mad_u16, v_pk_fma_f16: the same numbers on GFX10.
        0x0 | 0x9 | 0xe if gen.is_gfx10() => Some(op),
        // GFX9 v_dot2_f32_f16 (0x23) and v_dot2_i32_i16 … v_dot8_u32_u4 (0x26–0x2b) are GFX10's
        // 0x13 and 0x14–0x19.
        0x23 if gen.is_gfx10() => Some(0x13),
        0x26..=0x2b if gen.is_gfx10() => Some(op - 0x12),
        _ => None,
    }
}

/// The FLAT-family encoding a segment field names (0 flat, 1 scratch, 2 global), with its
/// opcode; 3 is not an encoding.
#[inline]
fn flat_segment(seg: u32, op: u32) -> (Option<Fam>, u32) {
    match seg {
        0 => (Some(Fam::Flat), op),
        1 => (Some(Fam::Scratch), op),
        2 => (Some(Fam::Global), op),
        _ => (None, 0),
    }
}

/// [`family`] for the GFX10 encodings whose two high bits are set. EXP and VINTRP are not
/// decoded; MTBUF's opcode bit 3 is in the second word (added by the caller); MIMG's opcode
/// bit 7 is bit 0.
#[inline]
fn family_gfx10(w: u32) -> (Option<Fam>, u32) {
    match w >> 26 {
        0x3d => (Some(Fam::Smem), (w >> 18) & 0xff),
        0x35 => (Some(Fam::Vop3), (w >> 16) & 0x3ff),
        0x33 if (w >> 23) & 7 == 0 => (Some(Fam::Vop3p), (w >> 16) & 0x7f),
        0x36 => (Some(Fam::Ds), (w >> 18) & 0xff),
        0x37 => flat_segment((w >> 14) & 3, (w >> 18) & 0x7f),
        // Bit 25 is opcode bit 7 (the d16 format opcodes 0x80–0x87, which the GFX10 table
        // does not hold): not decoded, rather than read as opcode & 0x7f.
        0x38 if (w >> 25) & 1 != 0 => (None, 0),
        0x38 => (Some(Fam::Mubuf), (w >> 18) & 0x7f),
        0x3a => (Some(Fam::Mtbuf), (w >> 16) & 0x7),
        0x3c => (Some(Fam::Mimg), (w >> 18) & 0x7f | (w & 1) << 7),
        _ => (None, 0),
    }
}

/// [`family`] for the GFX11 encodings whose two high bits are set. VOPD's family is its X half (the Y opcode is in bits 21:17); VINTERP (`0xcd`) and
/// LDSDIR (`0xce`) share VOP3P's bits 31:26 and differ in 25:24.
#[inline]
fn family_gfx11(w: u32) -> (Option<Fam>, u32) {
    match w >> 26 {
        0x3d => (Some(Fam::Smem), (w >> 18) & 0xff),
        0x35 => (Some(Fam::Vop3), (w >> 16) & 0x3ff),
        0x33 if (w >> 24) & 3 == 0 => (Some(Fam::Vop3p), (w >> 16) & 0x7f),
        0x33 if (w >> 24) & 3 == 1 => (Some(Fam::Vinterp), (w >> 16) & 0x7f),
        0x33 if (w >> 24) & 3 == 2 => (Some(Fam::Ldsdir), (w >> 20) & 3),
        0x32 => (Some(Fam::VopdX), (w >> 22) & 0xf),
        0x36 => (Some(Fam::Ds), (w >> 18) & 0xff),
        0x37 => flat_segment((w >> 16) & 3, (w >> 18) & 0x7f),
        0x38 => (Some(Fam::Mubuf), (w >> 18) & 0xff),
        0x3a => (Some(Fam::Mtbuf), (w >> 15) & 0xf),
        0x3c => (Some(Fam::Mimg), (w >> 18) & 0xff),
        0x3e => (Some(Fam::Exp), 0),
        _ => (None, 0),
    }
}

/// [`family`] for the GFX12 encodings whose two high bits are set: GFX11's VOP3, VOP3P, VOPD
/// and DS; the GFX12 SMEM (6-bit opcode in 18:13), VFLAT/VGLOBAL/VSCRATCH (segment 25:24,
/// opcode 21:14), VBUFFER (opcode 21:14; MTBUF's are 0x80–0x8f) and VIMAGE/VSAMPLE (one
/// opcode space in 21:14, table `Mimg`); EXPORT, VINTERP and VDSDIR as GFX11's EXP, VINTERP and
/// LDSDIR.
#[inline]
fn family_gfx12(w: u32) -> (Option<Fam>, u32) {
    match w >> 26 {
        0x3d => (Some(Fam::Smem), (w >> 13) & 0x3f),
        0x35 => (Some(Fam::Vop3), (w >> 16) & 0x3ff),
        0x33 if (w >> 24) & 3 == 0 => (Some(Fam::Vop3p), (w >> 16) & 0x7f),
        0x32 => (Some(Fam::VopdX), (w >> 22) & 0xf),
        0x36 => (Some(Fam::Ds), (w >> 18) & 0xff),
        0x3b => flat_segment((w >> 24) & 3, (w >> 14) & 0xff),
        0x31 if (w >> 21) & 1 != 0 => (Some(Fam::Mtbuf), (w >> 14) & 0x7f),
        0x31 => (Some(Fam::Mubuf), (w >> 14) & 0x7f),
        0x34 | 0x39 => (Some(Fam::Mimg), (w >> 14) & 0xff),
        0x33 if (w >> 24) & 3 == 1 => (Some(Fam::Vinterp), (w >> 16) & 0x7f),
        0x33 if (w >> 24) & 3 == 2 => (Some(Fam::Ldsdir), (w >> 20) & 3),
        0x3e => (Some(Fam::Exp), 0),
        _ => (None, 0),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
    gen: Gen,
}

type R<T> = Result<T, DecodeErrorKind>;

impl Reader<'_> {
    #[inline]
    fn word(&self, i: usize) -> Result<u32, DecodeError> {
        let at = self.offset.checked_add(4 * i);
        match at.and_then(|at| self.bytes.get(at..at.checked_add(4)?)) {
            Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            None => Err(DecodeError {
                offset: self.offset,
                word: self.first_word(),
                kind: DecodeErrorKind::Truncated,
            }),
        }
    }

    fn first_word(&self) -> u32 {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            let at = self.offset.checked_add(i);
            *x = at.and_then(|at| self.bytes.get(at)).copied().unwrap_or(0);
        }
        u32::from_le_bytes(b)
    }

    #[inline]
    fn w(&self, i: usize) -> R<u32> {
        self.word(i).map_err(|e| e.kind)
    }

    fn err(&self, word: u32, kind: DecodeErrorKind) -> DecodeError {
        DecodeError {
            offset: self.offset,
            word,
            kind,
        }
    }

    /// A 9-bit (VALU) or 8-bit (SALU) source value as an operand; `lit_at` is the word index a
    /// literal would occupy, `None` where literals are not allowed.
    #[inline(always)]
    fn src(
        &self,
        v: u32,
        width: u8,
        class: u8,
        lit_at: Option<usize>,
        size: &mut u8,
    ) -> R<Operand> {
        if v >= 256 {
            let n = (v - 256) as u16;
            return Ok(if class == b'a' {
                Operand::Agpr(n)
            } else {
                Operand::Vgpr(n)
            });
        }
        if v == 255 {
            let Some(at) = lit_at else {
                return Err(DecodeErrorKind::InvalidOperand);
            };
            let lit = self.w(at)?;
            *size = (4 * (at + 1)) as u8;
            return Ok(Operand::Literal(lit));
        }
        scalar(self.gen, v, width).ok_or(DecodeErrorKind::InvalidOperand)
    }

    #[inline(always)]
    fn salu(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        start(inst, e, encoding_of(fam), 4);
        let mut size = 4u8;
        for s in e.slots {
            let v = match s.field {
                F::Sdst => (w0 >> 16) & 0x7f,
                F::Src0 => w0 & 0xff,
                F::Src1 => (w0 >> 8) & 0xff,
                _ => continue,
            };
            let op = if s.field == F::Sdst {
                scalar(self.gen, v, s.width).ok_or(DecodeErrorKind::InvalidOperand)?
            } else {
                self.src(v, s.width, s.class, Some(1), &mut size)?
            };
            match s.field {
                F::Sdst => inst.dst = op,
                F::Src0 => inst.src[0] = op,
                _ => inst.src[1] = op,
            }
        }
        if fam == Fam::Sop2 && e.slots.iter().any(|s| s.field == F::Lit) {
            // GFX11.5 s_fmaak_f32/s_fmamk_f32: the constant K is the literal word.
            inst.src[2] = Operand::Literal(self.w(1)?);
            size = 8;
        }
        if fam == Fam::Sopk && e.slots.iter().any(|s| s.field == F::Lit) {
            inst.src[1] = Operand::Literal(self.w(1)?);
            size = 8;
        }
        if matches!(fam, Fam::Sopk | Fam::Sopp) {
            inst.src[0] = Operand::Imm(w0 & 0xffff);
            if fam == Fam::Sopk && e.slots.first().is_some_and(|s| s.field == F::Sdst) {
                inst.dst = scalar(self.gen, (w0 >> 16) & 0x7f, e.slots[0].width)
                    .ok_or(DecodeErrorKind::InvalidOperand)?;
            }
            if fam == Fam::Sopk && e.slots.get(1).is_some_and(|s| s.field == F::Sdst) {
                inst.dst = scalar(self.gen, (w0 >> 16) & 0x7f, e.slots[1].width)
                    .ok_or(DecodeErrorKind::InvalidOperand)?;
            }
        }
        if e.slots.iter().any(|s| s.field == F::Sendmsg) {
            inst.src[0] = Operand::Imm(w0 & 0xff);
        }
        if fam == Fam::Sopc && e.slots.iter().any(|s| s.field == F::Ssrc1Imm) {
            inst.src[1] = Operand::Imm((w0 >> 8) & 0xff);
        }
        inst.size = size;
        Ok(())
    }

    #[inline(always)]
    fn smem(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Smem, 8);
        let imm = (w0 >> 17) & 1 != 0;
        let soe = (w0 >> 14) & 1 != 0;
        if (w0 >> 16) & 1 != 0 {
            inst.flags |= flags::GLC;
        }
        self.smem_data_base(e, w0, inst)?;
        if !e.slots.iter().any(|s| s.field == F::SmOffset) {
            return Ok(());
        }
        if self.gen == Gen::Gfx8 {
            if imm {
                inst.offset = (w1 & 0xfffff) as i32;
            } else {
                inst.flags |= flags::SOFFSET;
                inst.src[2] =
                    scalar(self.gen, w1 & 0xff, 1).ok_or(DecodeErrorKind::InvalidOperand)?;
            }
        } else {
            // GFX9: imm selects the 21-bit immediate; soe adds soffset from w1[31:25].
            if imm {
                inst.offset = sext(w1 & 0x1fffff, 21);
                if soe {
                    inst.flags |= flags::SOFFSET;
                    inst.src[2] =
                        scalar(self.gen, w1 >> 25, 1).ok_or(DecodeErrorKind::InvalidOperand)?;
                }
            } else {
                inst.flags |= flags::SOFFSET;
                let v = if soe { w1 >> 25 } else { w1 & 0xff };
                inst.src[2] = scalar(self.gen, v, 1).ok_or(DecodeErrorKind::InvalidOperand)?;
            }
        }
        Ok(())
    }

    /// GFX10/GFX11 SMEM: `sdata`, `sbase`, a signed 21-bit offset and a `soffset` SGPR
    /// (`null`: none). GFX11 moved glc to bit 14 and dlc to bit 13.
    fn smem10(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Smem, 8);
        let (glc, dlc) = if self.gen.is_gfx11() {
            (14, 13)
        } else {
            (16, 14)
        };
        if (w0 >> glc) & 1 != 0 {
            inst.flags |= flags::GLC;
        }
        if (w0 >> dlc) & 1 != 0 {
            inst.flags |= flags::DLC;
        }
        self.smem_data_base(e, w0, inst)?;
        if e.slots.iter().any(|s| s.field == F::SmOffset) {
            inst.offset = sext(w1 & 0x1f_ffff, 21);
            let soffset = w1 >> 25;
            if soffset != null_of(self.gen) {
                inst.flags |= flags::SOFFSET;
                inst.src[2] =
                    scalar(self.gen, soffset, 1).ok_or(DecodeErrorKind::InvalidOperand)?;
            }
        }
        Ok(())
    }

    /// GFX12 SMEM: `th` 24:23 and `scope` 22:21 of word 0 (kept in [`Inst::offset1`]); word 1:
    /// a signed 24-bit offset and the `soffset` SGPR in 31:25 (`null`: none).
    fn smem12(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Smem, 8);
        inst.offset1 = (((w0 >> 23) & 3) | ((w0 >> 21) & 3) << cpol::SCOPE_SHIFT) as u8;
        self.smem_data_base(e, w0, inst)?;
        if e.slots.iter().any(|s| s.field == F::SmOffset) {
            inst.offset = sext(w1 & 0xff_ffff, 24);
            let soffset = w1 >> 25;
            if soffset != NULL11 {
                inst.flags |= flags::SOFFSET;
                inst.src[2] =
                    scalar(self.gen, soffset, 1).ok_or(DecodeErrorKind::InvalidOperand)?;
            }
        }
        Ok(())
    }

    /// SMEM `sdata` (or its immediate form) and `sbase`, in the same bits of word 0 on every
    /// generation.
    #[inline(always)]
    fn smem_data_base(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        for s in e.slots {
            match s.field {
                F::Sdata => {
                    let op = scalar(self.gen, (w0 >> 6) & 0x7f, s.width)
                        .ok_or(DecodeErrorKind::InvalidOperand)?;
                    inst.dst = op;
                    inst.src[1] = op;
                }
                F::SdataImm => inst.src[1] = Operand::Imm((w0 >> 6) & 0x7f),
                F::Sbase => inst.src[0] = Operand::Sgpr(((w0 & 0x3f) << 1) as u16),
                _ => {}
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn vop_short(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let enc = encoding_of(fam);
        start(inst, e, enc, 4);
        let src0 = w0 & 0x1ff;
        let mut size = 4u8;
        let pl = &e.places;
        let has_src0 = e.slots.iter().any(|s| s.field == F::Src0);
        let vgpr_only = e.mods & mods::VGPR_ONLY != 0;
        let gfx10 = self.gen.is_rdna();
        let ext_kind = match src0 {
            _ if !has_src0 || vgpr_only => 0,
            0xf9 => 1,                 // SDWA
            0xfa => 2,                 // DPP16
            0xe9 | 0xea if gfx10 => 3, // DPP8 (0xea: fi)
            _ => 0,
        };
        let w1 = if ext_kind != 0 { self.w(1)? } else { 0 };
        if ext_kind != 0 {
            size = 8;
        }
        for (i, s) in e.slots.iter().enumerate() {
            let op = match s.field {
                F::Vdst if s.class == b's' => {
                    scalar(self.gen, (w0 >> 17) & 0xff, s.width_on(self.gen))
                        .ok_or(DecodeErrorKind::InvalidOperand)?
                }
                F::Vdst if s.class == b't' => t16(inst, 3, (w0 >> 17) & 0xff),
                F::Vdst => vreg(s.class, (w0 >> 17) & 0xff),
                F::Src0 if s.class == b't' && (ext_kind >= 2 || src0 >= 256) => {
                    let v = if ext_kind >= 2 {
                        w1 & 0xff
                    } else {
                        src0 & 0xff
                    };
                    t16(inst, 0, v)
                }
                F::Vsrc1 if s.class == b't' => t16(inst, 1, (w0 >> 9) & 0xff),
                F::Src0 => match ext_kind {
                    1 => {
                        let s1 = if self.gen == Gen::Gfx8 {
                            0
                        } else {
                            (w1 >> 23) & 1
                        };
                        let v = w1 & 0xff;
                        if s1 != 0 {
                            scalar(self.gen, v, s.width).ok_or(DecodeErrorKind::InvalidOperand)?
                        } else {
                            Operand::Vgpr(v as u16)
                        }
                    }
                    2 | 3 => Operand::Vgpr((w1 & 0xff) as u16),
                    _ if vgpr_only => vreg(s.class, src0 & 0xff),
                    _ => self.src(src0, s.width, s.class, Some(1), &mut size)?,
                },
                F::Vsrc1 => Operand::Vgpr(((w0 >> 9) & 0xff) as u16),
                F::Vcc => vcc(self.gen),
                F::Lit => {
                    let lit = self.w(1)?;
                    size = 8;
                    Operand::Literal(lit)
                }
                _ => Operand::None,
            };
            match pl[i] {
                Place::Dst => inst.dst = op,
                Place::Sdst => inst.sdst = op,
                Place::Src(k) => inst.src[usize::from(k)] = op,
                Place::Nowhere => {}
            }
        }
        // DPP/SDWA source modifiers exist where the table says the opcode takes them.
        let (src_mods, sext_mods) = match ext_kind {
            1 => (
                ((e.mods / mods::SDWA_MODS) & 3) as u8,
                ((e.mods / mods::SDWA_SEXT) & 3) as u8,
            ),
            2 => (
                ((e.mods / mods::DPP_MODS) & 3) as u8,
                ((e.mods / mods::DPP_SEXT) & 3) as u8,
            ),
            _ => (0, 0),
        };
        if ext_kind == 1 {
            // SDWA (GFX9 layout; GFX8 has no s0/s1/omod/clamp bits except clamp at 45).
            let sd = Sdwa {
                dst_sel: ((w1 >> 8) & 7) as u8,
                dst_unused: ((w1 >> 11) & 3) as u8,
                src0_sel: ((w1 >> 16) & 7) as u8,
                src1_sel: ((w1 >> 24) & 7) as u8,
                sext: (((w1 >> 19) & 1) | (((w1 >> 27) & 1) << 1)) as u8 & sext_mods,
            };
            inst.mods.clamp = (w1 >> 13) & 1 != 0;
            if self.gen != Gen::Gfx8 {
                inst.mods.omod = ((w1 >> 14) & 3) as u8;
            }
            inst.mods.neg = (((w1 >> 20) & 1) | (((w1 >> 28) & 1) << 1)) as u8 & src_mods;
            inst.mods.abs = (((w1 >> 21) & 1) | (((w1 >> 29) & 1) << 1)) as u8 & src_mods;
            if fam == Fam::Vopc && self.gen != Gen::Gfx8 {
                inst.mods.clamp = false;
            }
            if fam == Fam::Vopc {
                // VOPC SDWA: bit 15 selects an SGPR destination (a lane mask) in bits 14:8.
                if (w1 >> 15) & 1 != 0 && self.gen != Gen::Gfx8 {
                    inst.dst = scalar(self.gen, (w1 >> 8) & 0x7f, self.gen.lane_mask_dwords())
                        .ok_or(DecodeErrorKind::InvalidOperand)?;
                }
                inst.mods.omod = 0;
            }
            if (w1 >> 31) & 1 != 0 && fam != Fam::Vop1 && self.gen != Gen::Gfx8 {
                if let Some(i) = e.slots.iter().position(|s| s.field == F::Vsrc1) {
                    if let Place::Src(k) = pl[i] {
                        inst.src[usize::from(k)] =
                            scalar(self.gen, (w0 >> 9) & 0xff, e.slots[i].width)
                                .ok_or(DecodeErrorKind::InvalidOperand)?;
                    }
                }
            }
            inst.ext = Ext::Sdwa(sd);
        } else if ext_kind == 2 {
            inst.ext = Ext::Dpp(Dpp {
                ctrl: ((w1 >> 8) & 0x1ff) as u16,
                bound_ctrl: (w1 >> 19) & 1 != 0,
                row_mask: (w1 >> 28) as u8,
                bank_mask: ((w1 >> 24) & 0xf) as u8,
                fi: gfx10 && (w1 >> 18) & 1 != 0,
            });
            inst.mods.neg =
                (((w1 >> 20) & 1) | (((w1 >> 22) & 1) << 1)) as u8 & (src_mods | sext_mods);
            inst.mods.abs = (((w1 >> 21) & 1) | (((w1 >> 23) & 1) << 1)) as u8 & src_mods;
        } else if ext_kind == 3 {
            let mut sel = [0u8; 8];
            for (i, s) in sel.iter_mut().enumerate() {
                *s = ((w1 >> (8 + 3 * i)) & 7) as u8;
            }
            inst.ext = Ext::Dpp8(Dpp8 {
                sel,
                fi: src0 == 0xea,
            });
        }
        inst.size = size;
        Ok(())
    }

    /// gfx950 `v_mfma_ld_scale_b32`: alone, or fused with the f8f6f4 MFMA that follows it when
    /// that one has ABID 1 (exactly bit 11 of its ABID field; LLVM 22's pairing).
    fn mfma_ld_scale(&self, e: &Entry, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
        self.vop3(Fam::Vop3p, e, w0, inst)
            .map_err(|k| self.err(w0, k))?;
        if inst.size != 8 {
            return Ok(()); // a literal source: LLVM pairs only the 8-byte form
        }
        let next = Reader {
            bytes: self.bytes,
            offset: self.offset + 8,
            gen: self.gen,
        };
        let Ok(m0) = next.word(0) else {
            return Ok(());
        };
        let (Some(Fam::Vop3p), op) = family(self.gen, m0) else {
            return Ok(());
        };
        let Some(me) = lookup(self.gen, Fam::Vop3p, op) else {
            return Ok(());
        };
        if !is_f8f6f4(me.opcode) || (m0 >> 11) & 0xf != 1 {
            return Ok(());
        }
        let mut mfma = BLANK;
        if next
            .vop3(Fam::Vop3p, me, m0 & !(1 << 11), &mut mfma)
            .is_err()
            || mfma.size != 8
        {
            return Ok(());
        }
        mfma.size = 16;
        mfma.ext = Ext::MfmaScale {
            scale: [inst.src[0], inst.src[1]],
            op_sel: inst.mods.op_sel & 3,
            op_sel_hi: inst.mods.op_sel_hi & 3,
        };
        *inst = mfma;
        Ok(())
    }

    #[inline(always)]
    fn vop3(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, encoding_of(fam), 8);
        let mut size = 8u8;
        let pl = &e.places;
        let vop3b = e.slots.iter().any(|s| s.field == F::Sdst3);
        // gfx950 v_mfma_ld_scale_b32 loads scale factors: VGPR sources, op_sel modifiers.
        let mfma = fam == Fam::Vop3p
            && (e.name.starts_with("v_mfma") || e.name.starts_with("v_smfmac"))
            && e.name != "v_mfma_ld_scale_b32";
        let acc_bits = self.gen.unified_agprs();
        for (i, s) in e.slots.iter().enumerate() {
            let mut class = s.class;
            if mfma && !acc_bits && matches!(s.field, F::Src0 | F::Src1) {
                // gfx908: op_sel_hi bits 0/1 select AGPRs for the A and B operands.
                let bit = if s.field == F::Src0 { 27 } else { 28 };
                class = if (w1 >> bit) & 1 != 0 { b'a' } else { b'v' };
            }
            if mfma && acc_bits {
                class = match s.field {
                    F::Src2 if e.name.starts_with("v_smfmac") => class,
                    F::Vdst | F::Src2 => {
                        if (w0 >> 15) & 1 != 0 {
                            b'a'
                        } else {
                            b'v'
                        }
                    }
                    F::Src0 => {
                        if (w1 >> 27) & 1 != 0 {
                            b'a'
                        } else {
                            b'v'
                        }
                    }
                    F::Src1 => {
                        if (w1 >> 28) & 1 != 0 {
                            b'a'
                        } else {
                            b'v'
                        }
                    }
                    _ => class,
                };
            }
            let op = match s.field {
                F::Vdst => {
                    if s.class == b's' {
                        scalar(self.gen, w0 & 0xff, s.width_on(self.gen))
                            .ok_or(DecodeErrorKind::InvalidOperand)?
                    } else {
                        vreg(class, w0 & 0xff)
                    }
                }
                F::Sdst3 => scalar(self.gen, (w0 >> 8) & 0x7f, s.width_on(self.gen))
                    .ok_or(DecodeErrorKind::InvalidOperand)?,
                F::Src0 | F::Src1 | F::Src2 => {
                    let i = match s.field {
                        F::Src0 => 0,
                        F::Src1 => 1,
                        _ => 2,
                    };
                    let v = (w1 >> (9 * i)) & 0x1ff;
                    if e.mods & (mods::VGPR_ONLY << i) != 0 {
                        vreg(class, v & 0xff)
                    } else if i == 0 && self.gen.is_gfx11() && matches!(v, 0xfa | 0xe9 | 0xea) {
                        // DPP: the VGPR is in the third word (`vop3_dpp`).
                        Operand::None
                    } else {
                        // GFX10 VOP3/VOP3P take one literal, after the two words (GFX11
                        // VOP3 DPP: after the DPP word).
                        let dpp = self.gen.is_gfx11()
                            && fam == Fam::Vop3
                            && matches!(w1 & 0x1ff, 0xfa | 0xe9 | 0xea);
                        let lit_at = self.gen.is_rdna().then_some(if dpp { 3 } else { 2 });
                        self.src(v, s.width_on(self.gen), class, lit_at, &mut size)?
                    }
                }
                _ => Operand::None,
            };
            match pl[i] {
                Place::Dst => inst.dst = op,
                Place::Sdst => inst.sdst = op,
                Place::Src(k) => inst.src[usize::from(k)] = op,
                Place::Nowhere => {}
            }
        }
        vop3_mods(fam, e, w0, w1, vop3b, inst);
        if is_f8f6f4(e.opcode) && (w0 >> 11) & 0xf != 0 {
            // gfx950 f8f6f4 MFMA: ABID bit 0 marks the second half of a scaled MFMA (after
            // `v_mfma_ld_scale_b32`); LLVM refuses it, and the other ABID bits, alone.
            return Err(DecodeErrorKind::InvalidOperand);
        }
        inst.size = size;
        if self.gen.is_gfx11() && fam == Fam::Vop3 {
            self.vop3_dpp(e, w1, inst)?;
            inst.size = inst.size.max(size);
        }
        Ok(())
    }

    /// GFX11 VOP3 with DPP: `src0` 0xfa (DPP16) or 0xe9/0xea (DPP8) names the VGPR in the
    /// third word, which also holds the DPP controls.
    fn vop3_dpp(&self, e: &Entry, w1: u32, inst: &mut Inst) -> R<()> {
        let src0 = w1 & 0x1ff;
        if !matches!(src0, 0xfa | 0xe9 | 0xea) || e.mods & mods::VGPR_ONLY != 0 {
            return Ok(());
        }
        let Some(i) = e.slots.iter().position(|s| s.field == F::Src0) else {
            return Ok(());
        };
        let w2 = self.w(2)?;
        if let Place::Src(k) = e.places[i] {
            inst.src[usize::from(k)] = Operand::Vgpr((w2 & 0xff) as u16);
        }
        inst.size = inst.size.max(12);
        inst.ext = if src0 == 0xfa {
            Ext::Dpp(Dpp {
                ctrl: ((w2 >> 8) & 0x1ff) as u16,
                bound_ctrl: (w2 >> 19) & 1 != 0,
                row_mask: (w2 >> 28) as u8,
                bank_mask: ((w2 >> 24) & 0xf) as u8,
                fi: (w2 >> 18) & 1 != 0,
            })
        } else {
            let mut sel = [0u8; 8];
            for (j, s) in sel.iter_mut().enumerate() {
                *s = ((w2 >> (8 + 3 * j)) & 7) as u8;
            }
            Ext::Dpp8(Dpp8 {
                sel,
                fi: src0 == 0xea,
            })
        };
        Ok(())
    }

    /// GFX11 VOPD: the X half from `e` (`vdstX`, `srcX0`, `vsrcX1`), the Y half from the
    /// VOPD-Y table (`vdstY`, `srcY0` in `sdst`, `vsrcY1`), and the one literal.
    /// GFX11 LDSDIR: vdst 7:0, attrchan 9:8, attr 15:10, wait_vdst 19:16, opcode 21:20; bits
    /// 23:22 must be 0 (llvm-objdump-22 prints `.long` otherwise). GFX12 VDSDIR: bit 23 is
    /// `wait_vm_vsrc`.
    fn ldsdir(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let gfx12 = self.gen.is_gfx12();
        if (w0 >> 22) & if gfx12 { 1 } else { 3 } != 0 {
            return Err(DecodeErrorKind::UnknownOpcode);
        }
        start(inst, e, Encoding::Ldsdir, 4);
        inst.dst = Operand::Vgpr((w0 & 0xff) as u16);
        inst.ext = Ext::Ldsdir {
            attr: ((w0 >> 10) & 0x3f) as u8,
            chan: ((w0 >> 8) & 3) as u8,
            wait_vdst: ((w0 >> 16) & 0xf) as u8,
            wait_vm_vsrc: if gfx12 { ((w0 >> 23) & 1) as u8 } else { 0 },
        };
        Ok(())
    }

    /// GFX11 EXP: en 3:0, target 9:4, done 11, row_en 13; word 1: vsrc0–vsrc3, a byte each
    /// (llvm-objdump-22 ignores the other bits).
    fn exp(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Exp, 8);
        inst.ext = Ext::Exp {
            target: ((w0 >> 4) & 0x3f) as u8,
            en: (w0 & 0xf) as u8,
            vsrc: w1.to_le_bytes(),
            done: (w0 >> 11) & 1 != 0,
            row_en: (w0 >> 13) & 1 != 0,
        };
        Ok(())
    }

    /// GFX11 VINTERP: vdst 7:0, wait_exp 10:8, op_sel 14:11 (src0, src1, src2, dst), clamp 15,
    /// opcode 22:16; word 1: src0 8:0, src1 17:9, src2 26:18, neg 31:29.
    fn vinterp(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Vinterp, 8);
        inst.dst = Operand::Vgpr((w0 & 0xff) as u16);
        for (i, s) in e.slots.iter().enumerate() {
            let Place::Src(k) = e.places[i] else {
                continue;
            };
            let v = (w1 >> (9 * u32::from(k))) & 0x1ff;
            // A 16-bit (true16) source is a VGPR whatever bit 8 says; a 32-bit one below 256
            // is a scalar operand, as llvm-objdump-22 reads it.
            inst.src[usize::from(k)] = if s.class == b't' || v >= 256 {
                Operand::Vgpr((v & 0xff) as u16)
            } else {
                scalar(self.gen, v, 1).ok_or(DecodeErrorKind::InvalidOperand)?
            };
        }
        inst.mods.neg = ((w1 >> 29) & 7) as u8;
        inst.mods.clamp = (w0 >> 15) & 1 != 0;
        inst.mods.op_sel = ((w0 >> 11) & 0xf) as u8;
        inst.ext = Ext::Vinterp {
            wait_exp: ((w0 >> 8) & 7) as u8,
        };
        Ok(())
    }

    fn vopd(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let ye = lookup(self.gen, Fam::VopdY, (w0 >> 17) & 0x1f)
            .ok_or(DecodeErrorKind::UnknownOpcode)?;
        start(inst, e, Encoding::Vopd, 8);
        let mut size = 8u8;
        let lit_x = e.slots.iter().any(|s| s.field == F::Lit) || w0 & 0x1ff == 255;
        let lit_y = ye.slots.iter().any(|s| s.field == F::Lit) || w1 & 0x1ff == 255;
        let lit = if lit_x || lit_y {
            size = 12;
            self.w(2)?
        } else {
            0
        };
        let src = |v: u32| -> R<Operand> {
            match v {
                256.. => Ok(Operand::Vgpr((v - 256) as u16)),
                255 => Ok(Operand::Literal(lit)),
                _ => scalar(self.gen, v, 1).ok_or(DecodeErrorKind::InvalidOperand),
            }
        };
        let vdst_x = w1 >> 24;
        for (i, s) in e.slots.iter().enumerate() {
            let op = match s.field {
                F::Vdst => Operand::Vgpr(vdst_x as u16),
                F::Src0 => src(w0 & 0x1ff)?,
                F::Vsrc1 => Operand::Vgpr(((w0 >> 9) & 0xff) as u16),
                F::Lit => Operand::Literal(lit),
                _ => continue,
            };
            match e.places[i] {
                Place::Dst => inst.dst = op,
                Place::Src(k) => inst.src[usize::from(k)] = op,
                _ => {}
            }
        }
        inst.sdst = src(w1 & 0x1ff)?;
        inst.ext = Ext::Vopd(crate::inst::Vopd {
            opcode: ye.opcode,
            vdst: ((((w1 >> 17) & 0x7f) << 1) | (!vdst_x & 1)) as u8,
            vsrc1: ((w1 >> 9) & 0xff) as u8,
            lit,
        });
        inst.size = size;
        Ok(())
    }

    #[inline(always)]
    fn ds(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Ds, 8);
        for s in e.slots {
            let (v, place) = match s.field {
                F::Vdst => (w1 >> 24, 0),
                F::Addr => (w1 & 0xff, 1),
                F::Data0 => ((w1 >> 8) & 0xff, 2),
                F::Data1 => ((w1 >> 16) & 0xff, 3),
                _ => continue,
            };
            let op = vreg(s.class, v);
            match place {
                0 => inst.dst = op,
                1 => inst.src[0] = op,
                2 => inst.src[1] = op,
                _ => inst.src[2] = op,
            }
        }
        inst.offset = (w0 & 0xff) as i32;
        inst.offset1 = ((w0 >> 8) & 0xff) as u8;
        let gds_bit = if self.gen.is_rdna() { 17 } else { 16 };
        // gfx942/gfx950 have no GDS: LLVM 22 ignores the bit.
        if (w0 >> gds_bit) & 1 != 0 && !matches!(self.gen, Gen::Gfx942 | Gen::Gfx950) {
            inst.flags |= flags::GDS;
        }
        // gfx90a/gfx940: bit 25 selects AGPRs for data and vdst.
        if (w0 >> 25) & 1 != 0 && self.gen.unified_agprs() {
            let to_acc = |op: Operand| match op {
                Operand::Vgpr(n) => Operand::Agpr(n),
                o => o,
            };
            inst.dst = to_acc(inst.dst);
            inst.src[1] = to_acc(inst.src[1]);
            inst.src[2] = to_acc(inst.src[2]);
        }
        Ok(())
    }

    #[inline(always)]
    fn flat(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        if self.gen.is_gfx12() {
            return self.flat12(fam, e, w0, inst);
        }
        if self.gen.is_gfx11() {
            return self.flat11(fam, e, w0, inst);
        }
        let w1 = self.w(1)?;
        start(inst, e, encoding_of(fam), 8);
        let gfx10 = self.gen.is_gfx10();
        let saddr = (w1 >> 16) & 0x7f;
        // `off` (no SGPR address): 0x7f on GFX9, `null` on GFX10.
        let no_saddr = saddr == if gfx10 { NULL } else { 0x7f };
        if gfx10 && (fam == Fam::Flat && saddr != NULL || fam == Fam::Global && saddr == 0x7f) {
            // LLVM rejects these (FLAT has no SGPR address; 0x7f is no GLOBAL `saddr`).
            return Err(DecodeErrorKind::InvalidOperand);
        }
        let acc = (w1 >> 23) & 1 != 0 && self.gen.unified_agprs();
        for s in e.slots {
            let mut class = s.class;
            if acc && matches!(s.field, F::Vdst | F::Data) {
                class = b'a';
            }
            match s.field {
                F::Vdst => inst.dst = vreg(class, w1 >> 24),
                F::Addr => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
                F::Data => inst.src[1] = vreg(class, (w1 >> 8) & 0xff),
                _ => {}
            }
        }
        if (w0 >> 16) & 1 != 0 && e.name.contains("atomic") {
            // Returning atomics (glc/sc0) write the old value to vdst.
            if let Some(d) = e.slots.iter().find(|s| s.field == F::Data) {
                let class = if acc { b'a' } else { d.class };
                inst.dst = vreg(class, w1 >> 24);
            }
        }
        // GFX10 SCRATCH: 0x7f is an SGPR-address form without the SGPR (`off, off`).
        let saddr_off = gfx10 && fam == Fam::Scratch && saddr == 0x7f;
        if fam != Fam::Flat && !no_saddr && !saddr_off {
            let width = if fam == Fam::Global { 2 } else { 1 };
            inst.src[2] = scalar(self.gen, saddr, width).ok_or(DecodeErrorKind::InvalidOperand)?;
        }
        if fam == Fam::Scratch {
            // GFX9/10: a scratch access has a VGPR or an SGPR address; gfx940 says which with
            // `sve`.
            let vaddr = if self.gen.is_cdna3() {
                (w0 >> 13) & 1 != 0
            } else {
                no_saddr
            };
            inst.src[0] = if vaddr {
                Operand::Vgpr((w1 & 0xff) as u16)
            } else {
                Operand::None
            };
        }
        inst.offset = match (gfx10, fam) {
            // GFX10: 12 bits, unsigned for FLAT.
            (true, Fam::Flat) => (w0 & 0xfff) as i32,
            (true, _) => sext(w0 & 0xfff, 12),
            // LLVM decodes the 13-bit field on GFX8 too (the hardware ignores it there).
            (false, Fam::Flat) => (w0 & 0x1fff) as i32,
            (false, _) => sext(w0 & 0x1fff, 13),
        };
        mem_bits(self.gen, inst, w0, 16, Some(17), Some(25));
        if gfx10 && (w0 >> 12) & 1 != 0 {
            inst.flags |= flags::DLC;
        }
        if (w0 >> 13) & 1 != 0 && !(fam == Fam::Scratch && self.gen.is_cdna3()) {
            inst.flags |= flags::LDS;
        }
        Ok(())
    }

    /// GFX11 FLAT/GLOBAL/SCRATCH: segment in bits 17:16, glc 14, slc 15, dlc 13, a signed
    /// 13-bit offset (12-bit unsigned for FLAT); `saddr` `null` is `off`; SCRATCH's `sve` (word
    /// 1 bit 23) says whether the VGPR address is used.
    fn flat11(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, encoding_of(fam), 8);
        let saddr = (w1 >> 16) & 0x7f;
        let no_saddr = saddr == NULL11;
        for s in e.slots {
            match s.field {
                F::Vdst => inst.dst = vreg(s.class, w1 >> 24),
                F::Addr => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
                F::Data => inst.src[1] = vreg(s.class, (w1 >> 8) & 0xff),
                _ => {}
            }
        }
        if (w0 >> 14) & 1 != 0 && e.name.contains("atomic") {
            // Returning atomics (glc) write the old value to vdst.
            if let Some(d) = e.slots.iter().find(|s| s.field == F::Data) {
                inst.dst = vreg(d.class, w1 >> 24);
            }
        }
        if fam != Fam::Flat && !no_saddr {
            let width = if fam == Fam::Global { 2 } else { 1 };
            inst.src[2] = scalar(self.gen, saddr, width).ok_or(DecodeErrorKind::InvalidOperand)?;
        }
        if fam == Fam::Scratch {
            inst.src[0] = if (w1 >> 23) & 1 != 0 {
                Operand::Vgpr((w1 & 0xff) as u16)
            } else {
                Operand::None
            };
        }
        inst.offset = if fam == Fam::Flat {
            (w0 & 0x1fff) as i32
        } else {
            sext(w0 & 0x1fff, 13)
        };
        for (bit, flag) in [(14, flags::GLC), (15, flags::SLC), (13, flags::DLC)] {
            if (w0 >> bit) & 1 != 0 {
                inst.flags |= flag;
            }
        }
        Ok(())
    }

    /// GFX12 VFLAT/VGLOBAL/VSCRATCH (three words): `saddr` 6:0 of word 0 (`null`: `off`);
    /// word 1: vdst 7:0, `sve` 17, `scope` 19:18, `th` 22:20, vdata 30:23; word 2: vaddr 7:0
    /// and a signed 24-bit offset in 31:8. An atomic whose `th` has bit 0 (`TH_ATOMIC_RETURN`)
    /// returns the old value to vdst (flagged `GLC`, as on earlier generations).
    fn flat12(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let w2 = self.w(2)?;
        start(inst, e, encoding_of(fam), 12);
        let saddr = w0 & 0x7f;
        let th = (w1 >> 20) & 7;
        inst.offset1 = (th | ((w1 >> 18) & 3) << cpol::SCOPE_SHIFT) as u8;
        for s in e.slots {
            match s.field {
                F::Vdst => inst.dst = vreg(s.class, w1 & 0xff),
                F::Addr => inst.src[0] = Operand::Vgpr((w2 & 0xff) as u16),
                F::Data => inst.src[1] = vreg(s.class, (w1 >> 23) & 0xff),
                _ => {}
            }
        }
        if th & 1 != 0 && e.name.contains("atomic") {
            inst.flags |= flags::GLC;
            if let Some(d) = e.slots.iter().find(|s| s.field == F::Data) {
                inst.dst = vreg(d.class, w1 & 0xff);
            }
        }
        if fam != Fam::Flat && saddr != NULL11 {
            let width = if fam == Fam::Global { 2 } else { 1 };
            inst.src[2] = scalar(self.gen, saddr, width).ok_or(DecodeErrorKind::InvalidOperand)?;
        }
        if fam == Fam::Scratch {
            inst.src[0] = if (w1 >> 17) & 1 != 0 {
                Operand::Vgpr((w2 & 0xff) as u16)
            } else {
                Operand::None
            };
        }
        inst.offset = sext(w2 >> 8, 24);
        Ok(())
    }

    /// GFX12 VBUFFER (three words): `soffset` 6:0 and `tfe` 22 of word 0; word 1: vdata 7:0,
    /// srsrc 17:9, `scope` 19:18, `th` 22:20, format 29:23 (MTBUF), offen 30, idxen 31; word 2:
    /// vaddr 7:0 and an unsigned 24-bit offset in 31:8.
    fn buffer12(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let w2 = self.w(2)?;
        start(inst, e, encoding_of(fam), 12);
        let offen = (w1 >> 30) & 1 != 0;
        let idxen = (w1 >> 31) & 1 != 0;
        if offen {
            inst.flags |= flags::OFFEN;
        }
        if idxen {
            inst.flags |= flags::IDXEN;
        }
        let th = (w1 >> 20) & 7;
        inst.offset1 = (th | ((w1 >> 18) & 3) << cpol::SCOPE_SHIFT) as u8;
        let atomic = e.name.contains("atomic");
        if atomic && th & 1 != 0 {
            inst.flags |= flags::GLC;
        }
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    let op = vreg(s.class, w1 & 0xff);
                    if e.name.contains("store") || (atomic && th & 1 == 0) {
                        inst.src[1] = op;
                    } else {
                        inst.dst = op;
                        if atomic {
                            inst.src[1] = op;
                        }
                    }
                }
                F::Vaddr if offen || idxen => inst.src[0] = Operand::Vgpr((w2 & 0xff) as u16),
                F::Srsrc => inst.src[2] = Operand::Sgpr(((w1 >> 9) & 0x7f) as u16),
                F::Soffset => {
                    inst.sdst =
                        scalar(self.gen, w0 & 0x7f, 1).ok_or(DecodeErrorKind::InvalidOperand)?
                }
                _ => {}
            }
        }
        inst.offset = (w2 >> 8) as i32;
        if (w0 >> 22) & 1 != 0 && !atomic {
            inst.flags |= flags::TFE;
        }
        if fam == Fam::Mtbuf {
            inst.ext = Ext::BufFormat {
                format: ((w1 >> 23) & 0x7f) as u8,
            };
        }
        Ok(())
    }

    /// GFX11 MUBUF/MTBUF: offset 11:0, slc 12, dlc 13, glc 14, MUBUF `lds` 16, MTBUF format
    /// 25:19; word 1: tfe 21, offen 22, idxen 23.
    fn buffer11(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, encoding_of(fam), 8);
        let offen = (w1 >> 22) & 1 != 0;
        let idxen = (w1 >> 23) & 1 != 0;
        if offen {
            inst.flags |= flags::OFFEN;
        }
        if idxen {
            inst.flags |= flags::IDXEN;
        }
        let atomic = e.name.contains("atomic");
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    let op = vreg(s.class, (w1 >> 8) & 0xff);
                    if e.name.contains("store") || (atomic && (w0 >> 14) & 1 == 0) {
                        inst.src[1] = op;
                    } else {
                        inst.dst = op;
                        if atomic {
                            inst.src[1] = op;
                        }
                    }
                }
                F::Vaddr if offen || idxen => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
                F::Srsrc => inst.src[2] = Operand::Sgpr((((w1 >> 16) & 0x1f) << 2) as u16),
                F::Soffset => {
                    inst.sdst =
                        scalar(self.gen, w1 >> 24, 1).ok_or(DecodeErrorKind::InvalidOperand)?
                }
                _ => {}
            }
        }
        inst.offset = (w0 & 0xfff) as i32;
        for (bit, flag) in [(14, flags::GLC), (12, flags::SLC), (13, flags::DLC)] {
            if (w0 >> bit) & 1 != 0 {
                inst.flags |= flag;
            }
        }
        if (w1 >> 21) & 1 != 0 && !atomic {
            inst.flags |= flags::TFE;
        }
        if fam == Fam::Mtbuf {
            inst.ext = Ext::BufFormat {
                format: ((w0 >> 19) & 0x7f) as u8,
            };
        }
        Ok(())
    }

    /// GFX11 MIMG: NSA 0, dim 4:2, unorm 7, dmask 11:8, slc 12, dlc 13, glc 14, r128 15, a16
    /// 16, d16 17; word 1: vaddr, vdata, srsrc 20:16, tfe 21, lwe 22, ssamp 30:26. With NSA
    /// (non-sequential addresses) a third word holds the next four address VGPRs, one a byte.
    fn mimg11(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let nsa = if w0 & 1 != 0 {
            self.w(2)?.to_le_bytes()
        } else {
            [0; 4]
        };
        start(inst, e, Encoding::Mimg, if w0 & 1 != 0 { 12 } else { 8 });
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    let op = vreg(s.class, (w1 >> 8) & 0xff);
                    if e.name.contains("store") {
                        inst.src[1] = op;
                    } else {
                        inst.dst = op;
                    }
                }
                F::Vaddr => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
                F::Srsrc => inst.src[2] = Operand::Sgpr((((w1 >> 16) & 0x1f) << 2) as u16),
                F::Ssamp => inst.sdst = Operand::Sgpr((((w1 >> 26) & 0x1f) << 2) as u16),
                _ => {}
            }
        }
        inst.ext = Ext::MimgDim {
            dmask: ((w0 >> 8) & 0xf) as u8,
            dim: ((w0 >> 2) & 7) as u8,
            nsa,
        };
        for (word, bit, flag) in [
            (w0, 7, flags::UNORM),
            (w0, 12, flags::SLC),
            (w0, 13, flags::DLC),
            (w0, 14, flags::GLC),
            (w0, 15, flags::DA),
            (w0, 16, flags::A16),
            (w0, 17, flags::D16),
            (w1, 21, flags::TFE),
            (w1, 22, flags::LWE),
        ] {
            if (word >> bit) & 1 != 0 {
                inst.flags |= flag;
            }
        }
        Ok(())
    }

    /// GFX12 VIMAGE (0x34) and VSAMPLE (0x39), three words: dim 2:0, r128 4, d16 5, a16 6,
    /// nv 7, dmask 25:22 (VSAMPLE: tfe 3, unorm 13); word 1: vdata 7:0, rsrc 17:9, scope
    /// 19:18, th 22:20, then VIMAGE tfe 23 and vaddr4 31:24, VSAMPLE lwe 8 and samp 31:23;
    /// word 2: vaddr0–vaddr3. The address operands are as the oracle's table prints them
    /// (separate VGPRs, the last one taking the rest).
    fn mimg12(&self, e: &Entry, op: u32, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let w2 = self.w(2)?;
        let sample = w0 >> 26 == 0x39;
        if sample != e.slots.iter().any(|s| s.field == F::Ssamp) {
            return Err(DecodeErrorKind::UnknownOpcode);
        }
        let key = (w0 & 7) | ((w0 >> 6) & 1) << 3 | ((w0 >> 4) & 1) << 4;
        let row = crate::tables::GFX12_MIMG_VADDR
            .get(op as usize)
            .ok_or(DecodeErrorKind::UnknownOpcode)?;
        let addrs = row[key as usize];
        if addrs == 0 {
            return Err(DecodeErrorKind::InvalidOperand);
        }
        let fields = if sample { 4 } else { 5 };
        let (data, variant) = vimage_data(e, w0, w1);
        // Without a variant for the sizes, LLVM keeps the first one it decoded.
        let first = crate::tables::GFX12_MIMG_FIRST
            .iter()
            .find(|f| u32::from(f.0) == op)
            .map(|f| (f.1, f.2));
        let (data, addrs) = match first {
            Some((d, a)) if !variant || addrs & 0x80 != 0 => (d, a),
            _ => (data, addrs & 0x7f),
        };
        // LLVM decodes an opcode with its widest form first: the last address field (VIMAGE
        // vaddr4, VSAMPLE vaddr3) must be 0 unless some form of the opcode uses it.
        let widest = row.iter().map(|&a| (a & 0x7f).min(fields)).max();
        let last = if sample { w2 >> 24 } else { w1 >> 24 };
        if widest < Some(fields) && last != 0 {
            return Err(DecodeErrorKind::InvalidOperand);
        }
        let widths = match crate::tables::GFX12_MIMG_BVH
            .iter()
            .find(|b| u32::from(b.0) == op && u32::from(b.1) == key)
        {
            Some(b) => b.2,
            None => {
                let total = addrs;
                if total == 0 {
                    return Err(DecodeErrorKind::InvalidOperand);
                }
                let n = total.min(fields);
                let mut w = [1u8; 5];
                w[usize::from(n) - 1] = total - (n - 1);
                w[usize::from(n)..].fill(0);
                w
            }
        };
        start(inst, e, Encoding::Mimg, 12);
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    let op = vreg(s.class, w1 & 0xff);
                    if e.name.contains("store") {
                        inst.src[1] = op;
                    } else {
                        inst.dst = op;
                    }
                }
                F::Vaddr => inst.src[0] = Operand::Vgpr((w2 & 0xff) as u16),
                F::Srsrc => inst.src[2] = self.sgpr_tuple((w1 >> 9) & 0x1ff, s.width)?,
                F::Ssamp => {
                    let v = (w1 >> 23) & 0x1ff;
                    inst.sdst = if v == NULL11 {
                        Operand::Null
                    } else {
                        self.sgpr_tuple(v, 4)?
                    };
                }
                _ => {}
            }
        }
        let b = w2.to_le_bytes();
        inst.ext = Ext::Vimage(crate::inst::Vimage {
            dmask: ((w0 >> 22) & 0xf) as u8,
            dim: (w0 & 7) as u8,
            vaddr: [b[1], b[2], b[3], (w1 >> 24) as u8],
            widths,
            data,
        });
        let th = (w1 >> 20) & 7;
        let nv = if (w0 >> 7) & 1 != 0 { cpol::NV } else { 0 };
        inst.offset1 = (th | ((w1 >> 18) & 3) << cpol::SCOPE_SHIFT) as u8 | nv;
        let (tfe, lwe) = if sample {
            ((w0 >> 3) & 1, (w1 >> 8) & 1)
        } else {
            ((w1 >> 23) & 1, 0)
        };
        for (bit, flag) in [
            (sample && (w0 >> 13) & 1 != 0, flags::UNORM),
            ((w0 >> 4) & 1 != 0, flags::DA),
            ((w0 >> 6) & 1 != 0, flags::A16),
            ((w0 >> 5) & 1 != 0, flags::D16),
            (tfe != 0, flags::TFE),
            (lwe != 0, flags::LWE),
        ] {
            if bit {
                inst.flags |= flag;
            }
        }
        Ok(())
    }

    /// A GFX12 image resource or sampler: `width` aligned SGPRs (or trap temporaries) named by
    /// a 9-bit operand value.
    fn sgpr_tuple(&self, v: u32, width: u8) -> R<Operand> {
        let end = |n: u16, limit: u16| n.is_multiple_of(4) && n + u16::from(width) <= limit;
        match scalar(self.gen, v, 2) {
            Some(Operand::Sgpr(n)) if v < 256 && end(n, 106) => Ok(Operand::Sgpr(n)),
            Some(Operand::Ttmp(n)) if v < 256 && end(n.into(), 16) => Ok(Operand::Ttmp(n)),
            _ => Err(DecodeErrorKind::InvalidOperand),
        }
    }

    fn buffer(&self, fam: Fam, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        if self.gen.is_gfx12() {
            return self.buffer12(fam, e, w0, inst);
        }
        if self.gen.is_gfx11() {
            return self.buffer11(fam, e, w0, inst);
        }
        let w1 = self.w(1)?;
        start(inst, e, encoding_of(fam), 8);
        let offen = (w0 >> 12) & 1 != 0;
        let idxen = (w0 >> 13) & 1 != 0;
        if offen {
            inst.flags |= flags::OFFEN;
        }
        if idxen {
            inst.flags |= flags::IDXEN;
        }
        let acc = (w1 >> 23) & 1 != 0 && self.gen.unified_agprs();
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    let class = if acc { b'a' } else { s.class };
                    let op = vreg(class, (w1 >> 8) & 0xff);
                    let store = e.name.contains("store")
                        || (e.name.contains("atomic") && (w0 >> 14) & 1 == 0);
                    if store {
                        inst.src[1] = op;
                    } else {
                        inst.dst = op;
                        if e.name.contains("atomic") {
                            inst.src[1] = op;
                        }
                    }
                }
                F::Vaddr if offen || idxen => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
                F::Srsrc => inst.src[2] = Operand::Sgpr((((w1 >> 16) & 0x1f) << 2) as u16),
                F::Soffset => {
                    inst.sdst =
                        scalar(self.gen, w1 >> 24, 1).ok_or(DecodeErrorKind::InvalidOperand)?
                }
                _ => {}
            }
        }
        inst.offset = (w0 & 0xfff) as i32;
        if self.gen.is_gfx10() {
            // GFX10: glc, dlc and lds in word 0; slc and tfe in word 1; a unified format.
            mem_bits(self.gen, inst, w0, 14, None, None);
            let lds = fam == Fam::Mubuf && (w0 >> 16) & 1 != 0;
            for (word, bit, flag) in [(w0, 15, flags::DLC), (w1, 22, flags::SLC)] {
                if (word >> bit) & 1 != 0 {
                    inst.flags |= flag;
                }
            }
            // The LDS forms and atomics have no tfe (LLVM ignores the bit there).
            if (w1 >> 23) & 1 != 0 && !lds && !e.name.contains("atomic") {
                inst.flags |= flags::TFE;
            }
            if lds {
                inst.flags |= flags::LDS;
            } else if fam == Fam::Mtbuf {
                inst.ext = Ext::BufFormat {
                    format: ((w0 >> 19) & 0x7f) as u8,
                };
            }
            return Ok(());
        }
        if fam == Fam::Mubuf {
            mem_bits(self.gen, inst, w0, 14, Some(17), Some(15));
            if (w0 >> 16) & 1 != 0 {
                inst.flags |= flags::LDS;
            }
        } else {
            mem_bits(self.gen, inst, w0, 14, None, None);
            if (w1 >> 22) & 1 != 0 {
                inst.flags |= flags::SLC;
            }
            inst.ext = Ext::Mtbuf {
                dfmt: ((w0 >> 19) & 0xf) as u8,
                nfmt: ((w0 >> 23) & 7) as u8,
            };
        }
        if (w1 >> 23) & 1 != 0 && fam == Fam::Mubuf && !self.gen.unified_agprs() {
            inst.flags |= flags::TFE;
        }
        Ok(())
    }

    fn mimg(&self, e: &Entry, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        start(inst, e, Encoding::Mimg, 8);
        mimg_operands(e, w1, inst);
        inst.ext = Ext::Mimg {
            dmask: ((w0 >> 8) & 0xf) as u8,
            dim: 0,
            addrs: 0,
            nsa: [0; 12],
        };
        for (bit, flag) in [
            (12, flags::UNORM),
            (13, flags::GLC),
            (14, flags::DA),
            (15, flags::A16),
            (16, flags::TFE),
            (17, flags::LWE),
            (25, flags::SLC),
        ] {
            if (w0 >> bit) & 1 != 0 {
                inst.flags |= flag;
            }
        }
        if (w1 >> 31) & 1 != 0 {
            inst.flags |= flags::D16;
        }
        Ok(())
    }
}

/// The VOP3/VOP3P modifier bits (neg, abs, clamp, omod, op_sel, …) the opcode has.
#[inline(always)]
fn vop3_mods(fam: Fam, e: &Entry, w0: u32, w1: u32, vop3b: bool, inst: &mut Inst) {
    let m = &mut inst.mods;
    m.neg = (w1 >> 29) as u8;
    m.clamp = (w0 >> 15) & 1 != 0;
    if fam == Fam::Vop3p {
        m.neg_hi = ((w0 >> 8) & 7) as u8;
        m.op_sel = ((w0 >> 11) & 7) as u8;
        m.op_sel_hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) as u8;
    } else {
        // Only the modifiers the opcode has (the table says which) are kept.
        let src_mods = (e.mods & 7) as u8;
        let sext = ((e.mods / mods::SEXT) & 7) as u8;
        m.neg &= src_mods | sext;
        m.clamp &= e.mods & mods::CLAMP != 0;
        if e.mods & mods::OMOD != 0 {
            m.omod = ((w1 >> 27) & 3) as u8;
        }
        if !vop3b {
            m.abs = ((w0 >> 8) & 7) as u8 & src_mods;
            if e.mods & mods::OP_SEL != 0
                || crate::format::has_t16(e)
                || crate::format::byte_sel_row(e.name)
            {
                m.op_sel = ((w0 >> 11) & 0xf) as u8;
            }
        }
        if e.name.starts_with("v_permlane") && e.name.contains("_swap_b32") {
            // gfx950 v_permlane16/32_swap: op_sel bits 0/1 are fi and bound_ctrl.
            m.op_sel = ((w0 >> 11) & 3) as u8;
        }
        if e.name.starts_with("v_bitop3") {
            // gfx950 v_bitop3: the 8-bit truth table in the abs (5:3), omod (7:6) and neg (2:0)
            // fields, kept in `offset`.
            inst.offset = ((w1 >> 29) | ((w0 >> 8) & 7) << 3 | ((w1 >> 27) & 3) << 6) as i32;
        }
    }
}

impl Reader<'_> {
    /// GFX10 MIMG: `dim` and NSA in word 0, which has no `da`/`r128`; `a16`/`d16` in word 1.
    /// NSA adds 1–3 dwords of address VGPR numbers. The number of addresses comes from the
    /// oracle's table (opcode × dim × a16 × NSA), which also rejects what LLVM rejects.
    fn mimg10(&self, e: &Entry, op: u32, w0: u32, inst: &mut Inst) -> R<()> {
        let w1 = self.w(1)?;
        let dim = ((w0 >> 3) & 7) as u8;
        let nsa_dwords = ((w0 >> 1) & 3) as usize;
        let a16 = (w1 >> 30) & 1;
        let key = usize::from(dim) | (a16 as usize) << 3 | nsa_dwords << 4;
        let addrs = crate::tables::GFX10_MIMG_VADDR
            .get(op as usize)
            .map_or(0, |row| row[key]);
        if addrs == 0 {
            return Err(DecodeErrorKind::InvalidOperand);
        }
        let mut nsa = [0u8; 12];
        for k in 0..nsa_dwords {
            let w = self.w(2 + k)?;
            nsa[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        start(inst, e, Encoding::Mimg, (8 + 4 * nsa_dwords) as u8);
        mimg_operands(e, w1, inst);
        inst.ext = Ext::Mimg {
            dmask: ((w0 >> 8) & 0xf) as u8,
            dim,
            addrs,
            nsa,
        };
        for (word, bit, flag) in [
            (w0, 7, flags::DLC),
            (w0, 12, flags::UNORM),
            (w0, 13, flags::GLC),
            (w0, 16, flags::TFE),
            (w0, 17, flags::LWE),
            (w0, 25, flags::SLC),
            (w1, 30, flags::A16),
            (w1, 31, flags::D16),
        ] {
            if (word >> bit) & 1 != 0 {
                inst.flags |= flag;
            }
        }
        Ok(())
    }
}

/// GFX12 VIMAGE/VSAMPLE data VGPRs: dmask's channels (a gather's 4), halved by d16, plus tfe's
/// dword; and whether LLVM has an opcode variant of that size (gathers: not 3; atomics: from
/// the base width to twice it plus tfe's dword). The ray-tracing rows keep their width.
fn vimage_data(e: &Entry, w0: u32, w1: u32) -> (u8, bool) {
    let base = e.slots.first().map_or(1, |s| s.width);
    if e.name.starts_with("image_bvh") {
        return (base, true);
    }
    let sample = w0 >> 26 == 0x39;
    let gather = e.name.starts_with("image_gather4");
    let mut n = if gather {
        4
    } else {
        (((w0 >> 22) & 0xf).count_ones() as u8).max(1)
    };
    if (w0 >> 5) & 1 != 0 {
        n = n.div_ceil(2);
    }
    n += (if sample { w0 >> 3 } else { w1 >> 23 } & 1) as u8;
    let variant = if e.name.contains("atomic") {
        // 1× or 2× the base width, either with tfe's dword.
        (base..=2 * base + 1).contains(&n)
    } else {
        !(gather && n == 3)
    };
    (n, variant)
}

/// The register operands of a MIMG word 1 (the same fields on GFX8, GFX9 and GFX10).
fn mimg_operands(e: &Entry, w1: u32, inst: &mut Inst) {
    for s in e.slots {
        match s.field {
            F::Vdata => {
                let op = vreg(s.class, (w1 >> 8) & 0xff);
                if e.name.contains("store") {
                    inst.src[1] = op;
                } else {
                    inst.dst = op;
                }
            }
            F::Vaddr => inst.src[0] = Operand::Vgpr((w1 & 0xff) as u16),
            F::Srsrc => inst.src[2] = Operand::Sgpr((((w1 >> 16) & 0x1f) << 2) as u16),
            F::Ssamp => inst.sdst = Operand::Sgpr((((w1 >> 21) & 0x1f) << 2) as u16),
            _ => {}
        }
    }
}

/// Sets what every decoded instruction has (the rest of a [`BLANK`] `inst` stays as it is).
#[inline(always)]
fn start(inst: &mut Inst, e: &Entry, encoding: Encoding, size: u8) {
    inst.opcode = e.opcode;
    inst.encoding = encoding;
    inst.size = size;
}

/// The `null` operand value: on GFX10 also "no SGPR" in SMEM `soffset` and FLAT `saddr`.
const NULL: u32 = 0x7d;
/// GFX11's `null` (GFX11 swapped `m0` and `null`: `m0` is 125).
const NULL11: u32 = 0x7c;

/// The `null` operand value of an RDNA generation.
#[inline]
fn null_of(gen: Gen) -> u32 {
    if gen.is_gfx11() {
        NULL11
    } else {
        NULL
    }
}

/// A GFX11 true16 VGPR field of a VOP1/VOP2/VOPC word: bits 6:0 (7:0 of a 9-bit source) name
/// the VGPR, bit 7 its high half, kept like VOP3's `op_sel` (bit `sel`: 0–2 sources, 3 dst).
#[inline]
fn t16(inst: &mut Inst, sel: u8, v: u32) -> Operand {
    if v & 0x80 != 0 {
        inst.mods.op_sel |= 1 << sel;
    }
    Operand::Vgpr((v & 0x7f) as u16)
}

/// Cache-policy bits at the given positions of word 0: glc (gfx940 sc0), slc (gfx940 nt) and
/// the gfx90a `scc` / gfx940 `sc1` bit (FLAT bit 25, MUBUF bit 15).
#[inline]
fn mem_bits(gen: Gen, inst: &mut Inst, w0: u32, glc: u32, slc: Option<u32>, sc1: Option<u32>) {
    if (w0 >> glc) & 1 != 0 {
        inst.flags |= flags::GLC;
    }
    if slc.is_some_and(|b| (w0 >> b) & 1 != 0) {
        inst.flags |= flags::SLC;
    }
    if gen.unified_agprs() && sc1.is_some_and(|b| (w0 >> b) & 1 != 0) {
        inst.flags |= flags::SC1;
    }
}

#[inline]
fn sext(v: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((v << shift) as i32) >> shift
}

/// An 8-bit VGPR/AGPR field (an SGPR where the table's class says so).
#[inline]
fn vreg(class: u8, v: u32) -> Operand {
    match class {
        b'a' => Operand::Agpr(v as u16),
        b's' => Operand::Sgpr(v as u16),
        _ => Operand::Vgpr(v as u16),
    }
}

/// A scalar operand value 0–254 (everything but VGPRs and literals); `None` for reserved
/// values. A lookup in [`SCALARS`].
#[inline(always)]
pub(crate) fn scalar(gen: Gen, v: u32, width: u8) -> Option<Operand> {
    let by_gen = &SCALARS[gen as usize];
    let row = &by_gen[usize::from(width >= 2)];
    row.get(v as usize).copied().flatten()
}

/// Generations, in `Gen as usize` order: the index of [`SCALARS`].
const GEN_COUNT: usize = Gen::ALL.len();

/// [`scalar`]'s answers for every 8-bit value, indexed `[gen as usize][is 64-bit][value]`
/// (no match on the generation in the hot path), built at compile time from [`scalar_value`].
static SCALARS: [[[Option<Operand>; 256]; 2]; GEN_COUNT] = {
    let mut t = [[[None; 256]; 2]; GEN_COUNT];
    let mut g = 0;
    while g < GEN_COUNT {
        let gen = Gen::ALL[g];
        assert!(gen as usize == g, "Gen::ALL is in declaration order");
        let row = match gen {
            Gen::Gfx8 => SCALARS_GFX8,
            Gen::Gfx10 | Gen::Gfx10W64 => SCALARS_GFX10,
            Gen::Gfx11 | Gen::Gfx11W64 => SCALARS_GFX11,
            Gen::Gfx12 | Gen::Gfx12W64 => SCALARS_GFX12,
            _ => SCALARS_GFX9,
        };
        let mut v = 0;
        while v < 256 {
            t[g][0][v] = scalar_value(row, v as u32, false);
            t[g][1][v] = scalar_value(row, v as u32, true);
            v += 1;
        }
        g += 1;
    }
    t
};

const SCALARS_GFX9: usize = 0;
const SCALARS_GFX8: usize = 1;
const SCALARS_GFX10: usize = 2;
const SCALARS_GFX11: usize = 3;
/// GFX12: GFX11's values plus `src_flat_scratch_base_lo`/`_hi` (230, 231).
const SCALARS_GFX12: usize = 4;

/// A scalar operand value 0–254 for the generation row `row` (GFX8: trap registers and `ttmp`
/// numbering differ; GFX10: 106 SGPRs, no `flat_scratch`/`xnack_mask` operands), 64 bits wide
/// or not (`vcc` vs `vcc_lo`, …).
const fn scalar_value(row: usize, v: u32, wide: bool) -> Option<Operand> {
    let gfx8 = row == SCALARS_GFX8;
    Some(match v {
        0..=101 => Operand::Sgpr(v as u16),
        102..=105 if row >= SCALARS_GFX10 => Operand::Sgpr(v as u16),
        // GFX11: `null` is 124 and `m0` 125.
        124 if row >= SCALARS_GFX11 => Operand::Null,
        125 if row >= SCALARS_GFX11 => Operand::M0,
        230 if row == SCALARS_GFX12 => Operand::SrcFlatScratchBaseLo,
        231 if row == SCALARS_GFX12 => Operand::SrcFlatScratchBaseHi,
        102 => {
            if wide {
                Operand::FlatScratch
            } else {
                Operand::FlatScratchLo
            }
        }
        103 => Operand::FlatScratchHi,
        104 => {
            if wide {
                Operand::XnackMask
            } else {
                Operand::XnackMaskLo
            }
        }
        105 => Operand::XnackMaskHi,
        106 => {
            if wide {
                Operand::Vcc
            } else {
                Operand::VccLo
            }
        }
        107 => Operand::VccHi,
        108 if gfx8 => {
            if wide {
                Operand::Tba
            } else {
                Operand::TbaLo
            }
        }
        109 if gfx8 => Operand::TbaHi,
        110 if gfx8 => {
            if wide {
                Operand::Tma
            } else {
                Operand::TmaLo
            }
        }
        111 if gfx8 => Operand::TmaHi,
        108..=123 => {
            let base = if gfx8 { 112 } else { 108 };
            Operand::Ttmp((v - base) as u8)
        }
        124 => Operand::M0,
        // LLVM 15 names 125 `null` on GFX8/GFX9 too (it is reserved there).
        125 => Operand::Null,
        126 => {
            if wide {
                Operand::Exec
            } else {
                Operand::ExecLo
            }
        }
        127 => Operand::ExecHi,
        128..=192 => Operand::InlineInt((v - 128) as i8),
        193..=208 => Operand::InlineInt(-((v - 192) as i32) as i8),
        235 => Operand::SrcSharedBase,
        236 => Operand::SrcSharedLimit,
        237 => Operand::SrcPrivateBase,
        238 => Operand::SrcPrivateLimit,
        239 => Operand::PopsExitingWaveId,
        240 => Operand::InlineFloat(FloatConst::Half),
        241 => Operand::InlineFloat(FloatConst::MinusHalf),
        242 => Operand::InlineFloat(FloatConst::One),
        243 => Operand::InlineFloat(FloatConst::MinusOne),
        244 => Operand::InlineFloat(FloatConst::Two),
        245 => Operand::InlineFloat(FloatConst::MinusTwo),
        246 => Operand::InlineFloat(FloatConst::Four),
        247 => Operand::InlineFloat(FloatConst::MinusFour),
        248 => Operand::InlineFloat(FloatConst::InvTwoPi),
        251 => Operand::SrcVccz,
        252 => Operand::SrcExecz,
        253 => Operand::SrcScc,
        254 => Operand::LdsDirect,
        _ => return None,
    })
}

/// The decoder's interior, for its own tests (crates/isa/tests/unit/decode.rs: each fast path
/// against the general path). Not part of the API: hidden, and may change with the decoder.
#[doc(hidden)]
pub mod internals {
    use super::{DecodeError, Gen, Inst, Reader};
    pub use crate::tables::Fam;

    /// What every decode starts from.
    pub const BLANK: Inst = super::BLANK;

    /// The rows of the semantics table (one per [`crate::Opcode`]).
    pub const SEMANTICS_ROWS: usize = crate::tables::semantics::SEMANTICS.len();

    /// `fam`'s table on `gen` by opcode number: `None` where no opcode is, else whether one of
    /// the row's operands is a lane mask. `None` for a generation without tables.
    pub fn table(gen: Gen, fam: Fam) -> Option<Vec<Option<bool>>> {
        let rows = crate::tables::table(gen, fam)?;
        Some(
            rows.iter()
                .map(|row| row.map(|e| e.slots.iter().any(|s| s.mask)))
                .collect(),
        )
    }

    /// Word `i` of the instruction at `offset`.
    pub fn word(gen: Gen, bytes: &[u8], offset: usize, i: usize) -> Result<u32, DecodeError> {
        Reader { bytes, offset, gen }.word(i)
    }

    /// The general path, for every encoding.
    pub fn decode_general(
        gen: Gen,
        bytes: &[u8],
        offset: usize,
        inst: &mut Inst,
    ) -> Result<(), DecodeError> {
        super::decode_general(gen, bytes, offset, inst)
    }

    /// The VOP1/VOP2/VOPC fast path: `false` if it leaves the word to the general path.
    pub fn vop_short_fast(gen: Gen, bytes: &[u8], offset: usize, w0: u32, inst: &mut Inst) -> bool {
        super::vop_short_fast(gen, bytes, offset, w0, inst)
    }

    /// The GFX8/GFX9 plain-VOP3 fast path.
    pub fn vop3_fast(gen: Gen, bytes: &[u8], offset: usize, w0: u32, inst: &mut Inst) -> bool {
        super::vop3_fast(gen, bytes, offset, w0, inst)
    }

    /// The GFX10 VOP3 fast path.
    pub fn vop3_fast_gfx10(
        gen: Gen,
        bytes: &[u8],
        offset: usize,
        w0: u32,
        inst: &mut Inst,
    ) -> bool {
        super::vop3_fast_gfx10(gen, bytes, offset, w0, inst)
    }

    /// The SOP1/SOP2/SOPP fast path.
    pub fn salu_fast(gen: Gen, w0: u32, inst: &mut Inst) -> bool {
        super::salu_fast(gen, w0, inst)
    }
}
