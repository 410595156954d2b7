//! GFX10.3 (RDNA2) decoding: builds the emulator's [`Inst`] from the operands `hsaemu-isa`
//! decoded ([`hsaemu_isa::Inst`]), not from the raw words as the GFX8/GFX9 path in the parent
//! module still does. GFX10 moved most fields (VOP3, SMEM, FLAT, MUBUF), added `null`, VOP3
//! literals and DPP8, and sizes lane masks by the wave size; reading isa's operands keeps one
//! decoder of those layouts in the workspace.
//!
//! The result follows the emulator's conventions (see the parent module): operand codes
//! (`0..=127` the scalar file, `128..=255` constants, `VGPR + n`), VOPC/VOP3b masks in `sdst`,
//! the DPP/SDWA controls in `ext` at their machine-word positions, MUBUF `soffset` in `ext`,
//! FLAT/GLOBAL/SCRATCH `saddr` `off` as `0x7f`. `null` becomes [`NULL`]: it reads as the
//! inline constant 0, and the scalar file ignores writes to it.

use super::{compare_code, flag, mnemonic, Gen, Inst, Sub, AGPR, LITERAL, VGPR};
use crate::ops::Op;
use hsaemu_isa::{Encoding, Ext, FloatConst, Operand};

/// The operand code of `null` (and of an absent operand): the inline constant 0. Reads give 0;
/// `Wave::swrite`/`swrite64` ignore codes of 128 and above, so writes are dropped.
pub(crate) const NULL: u16 = 128;
/// FLAT/GLOBAL/SCRATCH `saddr` `off`, as the GFX9 word encodes it (what `exec::vmem` tests).
const SADDR_OFF: u16 = 0x7f;
/// `Ext::Dpp8` in [`Inst::ext`]: lane `i` of each group of 8 reads `ext >> 3i & 7`; bit 24 is
/// `fi`.
pub(crate) const DPP8_FI: u32 = 1 << 24;

/// The operand code of an `hsaemu-isa` operand; `None` for an operand the emulator has no code
/// for (the instruction is then treated as undecodable).
fn code(o: Operand) -> Option<u16> {
    Some(match o {
        Operand::None | Operand::Null => NULL,
        Operand::Sgpr(n) if n < 106 => n,
        Operand::Vgpr(n) if n < 256 => VGPR + n,
        Operand::Agpr(n) if n < 256 => AGPR + n,
        Operand::Ttmp(n) if n < 16 => 108 + u16::from(n),
        Operand::Vcc | Operand::VccLo => 106,
        Operand::VccHi => 107,
        Operand::M0 => 124,
        Operand::Exec | Operand::ExecLo => 126,
        Operand::ExecHi => 127,
        Operand::InlineInt(v) if v >= 0 => 128 + v as u16,
        Operand::InlineInt(v) => 192 + u16::from(v.unsigned_abs()),
        Operand::InlineFloat(f) => match f {
            FloatConst::Half => 240,
            FloatConst::MinusHalf => 241,
            FloatConst::One => 242,
            FloatConst::MinusOne => 243,
            FloatConst::Two => 244,
            FloatConst::MinusTwo => 245,
            FloatConst::Four => 246,
            FloatConst::MinusFour => 247,
            FloatConst::InvTwoPi => 248,
        },
        Operand::SrcSharedBase => 235,
        Operand::SrcSharedLimit => 236,
        Operand::SrcPrivateBase => 237,
        Operand::SrcPrivateLimit => 238,
        Operand::SrcVccz => 251,
        Operand::SrcExecz => 252,
        Operand::SrcScc => 253,
        Operand::Literal(_) => LITERAL,
        _ => return None,
    })
}

/// GFX10 renamed these GFX9 opcodes; they do the same thing.
pub(super) fn renamed(name: &str) -> Option<Op> {
    Some(match name {
        "v_add_nc_u32" => Op::V_ADD_U32,
        "v_sub_nc_u32" => Op::V_SUB_U32,
        "v_subrev_nc_u32" => Op::V_SUBREV_U32,
        "v_add_co_ci_u32" => Op::V_ADDC_CO_U32,
        "v_sub_co_ci_u32" => Op::V_SUBB_CO_U32,
        "v_subrev_co_ci_u32" => Op::V_SUBBREV_CO_U32,
        "v_add_nc_i32" => Op::V_ADD_I32,
        "v_sub_nc_i32" => Op::V_SUB_I32,
        "v_add_nc_u16" => Op::V_ADD_U16,
        "v_sub_nc_u16" => Op::V_SUB_U16,
        "v_add_nc_i16" => Op::V_ADD_I16,
        "v_sub_nc_i16" => Op::V_SUB_I16,
        _ => return None,
    })
}

/// The emulator's instruction for a decoded GFX10 instruction (`w`, `w1`: its first two words,
/// kept for fault reports).
pub(super) fn from_isa(gen: Gen, isa: &hsaemu_isa::Inst, w: u32, w1: u32) -> Inst {
    let name = mnemonic(gen, isa.opcode);
    let fmt = super::fmt_of(isa.encoding);
    let mut i = Inst::new(name, fmt, w);
    i.gen = gen;
    i.size = isa.size;
    i.word1 = w1;
    if let Some(op) = renamed(name) {
        i.op = op;
    }
    match build(&mut i, isa) {
        Some(()) => i,
        None => Inst::invalid(w),
    }
}

fn build(i: &mut Inst, isa: &hsaemu_isa::Inst) -> Option<()> {
    let imm16 = |o: Operand| match o {
        Operand::Imm(v) => v as u16 as i16 as i32,
        _ => 0,
    };
    if let Some(l) = isa.src.iter().find_map(|o| match o {
        Operand::Literal(v) => Some(*v),
        _ => None,
    }) {
        i.lit = l;
    }
    let m = isa.mods;
    match isa.encoding {
        Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopc => {
            i.dst = code(isa.dst)?;
            i.src[0] = code(isa.src[0])?;
            i.src[1] = code(isa.src[1])?;
        }
        Encoding::Sopk => {
            i.dst = code(isa.dst)?;
            i.imm = imm16(isa.src[0]);
        }
        Encoding::Sopp => i.imm = imm16(isa.src[0]),
        Encoding::Smem => {
            i.dst = code(isa.dst)?;
            i.src[0] = code(isa.src[0])?;
            // The immediate offset always applies; an SGPR offset is added when present.
            i.flags |= flag::IMM;
            i.imm = isa.offset;
            if isa.has(hsaemu_isa::flags::SOFFSET) {
                i.flags |= flag::SOE;
                i.ext = u32::from(code(isa.src[2])?);
            }
            if isa.has(hsaemu_isa::flags::GLC) {
                i.flags |= flag::GLC;
            }
        }
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 | Encoding::Vop3p => {
            let info = isa.opcode.info();
            i.dst = code(isa.dst)?;
            i.sdst = code(isa.sdst)?;
            for k in 0..3 {
                i.src[k] = code(isa.src[k])?;
            }
            if info.flags & hsaemu_isa::op_flags::MASK_DST != 0 {
                // Compares: the mask destination (VCC, SGPRs; none for v_cmpx) is `sdst`.
                i.sdst = i.dst;
            }
            if isa.encoding == Encoding::Vop2 && matches!(isa.src[1], Operand::Literal(_)) {
                // v_fmamk/v_madmk: the emulator reads the constant from `lit` and the VGPR
                // addend from src[1].
                i.src[1] = i.src[2];
                i.src[2] = NULL;
            }
            i.neg = m.neg;
            i.abs = m.abs;
            i.neg_hi = m.neg_hi;
            i.opsel = m.op_sel;
            i.opsel_hi = m.op_sel_hi;
            i.omod = m.omod;
            if m.clamp {
                i.flags |= flag::CLAMP;
            }
            match isa.ext {
                Ext::Dpp(d) => {
                    i.sub = Sub::Dpp;
                    i.ext = u32::from(d.ctrl) << 8
                        | u32::from(d.fi) << 18
                        | u32::from(d.bound_ctrl) << 19
                        | u32::from(d.bank_mask) << 24
                        | u32::from(d.row_mask) << 28;
                }
                Ext::Dpp8(d) => {
                    i.sub = Sub::Dpp8;
                    i.ext = d
                        .sel
                        .iter()
                        .enumerate()
                        .fold(0, |a, (k, &s)| a | u32::from(s & 7) << (3 * k));
                    if d.fi {
                        i.ext |= DPP8_FI;
                    }
                }
                Ext::Sdwa(s) => {
                    i.sub = Sub::Sdwa;
                    i.ext = u32::from(s.dst_sel) << 8
                        | u32::from(s.dst_unused) << 11
                        | u32::from(s.src0_sel) << 16
                        | u32::from(s.sext & 1) << 19
                        | u32::from(s.src1_sel) << 24
                        | u32::from(s.sext >> 1 & 1) << 27;
                }
                _ => {}
            }
            if let Some(c) = compare_code(i.name) {
                i.op = Op::V_CMP;
                i.imm = c;
            }
        }
        Encoding::Ds => {
            i.dst = code(isa.dst)?;
            for k in 0..3 {
                i.src[k] = code(isa.src[k])?;
            }
            i.imm = isa.offset;
            i.offset1 = isa.offset1;
            if isa.has(hsaemu_isa::flags::GDS) {
                i.flags |= flag::GDS;
            }
        }
        Encoding::Flat | Encoding::Global | Encoding::Scratch => {
            i.dst = code(isa.dst)?;
            i.src[0] = code(isa.src[0])?;
            i.src[1] = code(isa.src[1])?;
            i.src[2] = match isa.src[2] {
                Operand::None => SADDR_OFF,
                o => code(o)?,
            };
            i.imm = isa.offset;
            mem_flags(i, isa);
        }
        Encoding::Mubuf | Encoding::Mtbuf => {
            // vdata is `dst` for loads and returning atomics and `src[1]` for stores; the
            // emulator reads it from both slots.
            let vdata = match (isa.dst, isa.src[1]) {
                (Operand::Vgpr(n), _) | (_, Operand::Vgpr(n)) => VGPR + n,
                _ => VGPR,
            };
            i.dst = vdata;
            i.src[1] = vdata;
            i.src[0] = match isa.src[0] {
                Operand::None => VGPR,
                o => code(o)?,
            };
            i.src[2] = code(isa.src[2])?;
            i.ext = u32::from(code(isa.sdst)?);
            i.imm = isa.offset;
            mem_flags(i, isa);
            for (theirs, ours) in [
                (hsaemu_isa::flags::OFFEN, flag::OFFEN),
                (hsaemu_isa::flags::IDXEN, flag::IDXEN),
            ] {
                if isa.has(theirs) {
                    i.flags |= ours;
                }
            }
        }
        _ => return None,
    }
    Some(())
}

/// The cache and LDS bits of a vector memory instruction (`dlc` is a cache hint and ignored).
fn mem_flags(i: &mut Inst, isa: &hsaemu_isa::Inst) {
    for (theirs, ours) in [
        (hsaemu_isa::flags::GLC, flag::GLC),
        (hsaemu_isa::flags::SLC, flag::SLC),
        (hsaemu_isa::flags::LDS, flag::LDS),
    ] {
        if isa.has(theirs) {
            i.flags |= ours;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Words from clang-15's gfx1030 output (llvm-objdump-15 prints them beside the text).
    use super::super::{decode, Fmt, VCC};
    use super::*;

    #[test]
    fn lane_masks_null_and_renamed_opcodes() {
        let w32 = Gen::Gfx10;
        // v_cmp_eq_u32_e32 vcc_lo, 1, v0: the compare writes VCC (one SGPR in wave32).
        let i = decode(w32, &[0x7d84_0081]);
        assert_eq!(
            (i.op, i.fmt, i.sdst, i.dst),
            (Op::V_CMP, Fmt::Vopc, VCC, VCC)
        );
        assert_eq!((i.src[0], i.src[1]), (129, VGPR));
        // v_cmpx_eq_u32_e32 1, v13: GFX10 v_cmpx writes EXEC only.
        let i = decode(w32, &[0x7da4_1a81]);
        assert_eq!((i.op, i.sdst, i.imm >> 9 & 1), (Op::V_CMP, NULL, 1));
        // v_add_co_ci_u32_e64 v1, null, s1, 0, s0: renamed v_addc_co_u32, carry-out to null.
        let i = decode(w32, &[0xd528_7d01, 0x0001_0001]);
        assert_eq!((i.name, i.op), ("v_add_co_ci_u32", Op::V_ADDC_CO_U32));
        assert_eq!((i.dst, i.sdst, i.src), (VGPR + 1, NULL, [1, 128, 0]));
        // v_readfirstlane_b32 s0, v10: an SGPR destination.
        let i = decode(w32, &[0x7e00_050a]);
        assert_eq!(
            (i.op, i.dst, i.src[0]),
            (Op::V_READFIRSTLANE_B32, 0, VGPR + 10)
        );
        // v_fmamk_f32 v6, v2, 0xbfc90fda, v5: the VGPR addend in src[1], the constant in lit.
        let i = decode(w32, &[0x580c_0b02, 0xbfc9_0fda]);
        assert_eq!((i.op, i.size, i.lit), (Op::V_FMAMK_F32, 8, 0xbfc9_0fda));
        assert_eq!((i.src[0], i.src[1]), (VGPR + 2, VGPR + 5));
        // v_cndmask_b32_e64 v4, 1.0, 0x4f800000, s0: a VOP3 literal (12 bytes).
        let i = decode(w32, &[0xd501_0004, 0x0001_fef2, 0x4f80_0000]);
        assert_eq!((i.size, i.src, i.lit), (12, [242, LITERAL, 0], 0x4f80_0000));
        assert_eq!(i.describe(), "v_cndmask_b32_e64 v4, 1.0, 0x4f800000, s0");
        // s_waitcnt_vscnt null, 0x0.
        let i = decode(w32, &[0xbbfd_0000]);
        assert_eq!(
            (i.op, i.fmt, i.dst, i.imm),
            (Op::S_WAITCNT_VSCNT, Fmt::Sopk, NULL, 0)
        );
    }

    #[test]
    fn memory_fields() {
        let w32 = Gen::Gfx10;
        // s_load_dword s2, s[4:5], 0x24 and s_load_dwordx4 s[8:11], s[4:5], null.
        let i = decode(w32, &[0xf400_0082, 0xfa00_0024]);
        assert_eq!((i.fmt, i.dst, i.src[0], i.imm), (Fmt::Smem, 2, 4, 0x24));
        assert!(i.has(flag::IMM) && !i.has(flag::SOE));
        let i = decode(w32, &[0xf408_0202, 0xfa00_0000]);
        assert_eq!((i.dst, i.imm, i.has(flag::SOE)), (8, 0, false));
        // global_load_dword v6, v[2:3], off: `off` is 0x7f as on GFX9.
        let i = decode(w32, &[0xdc30_8000, 0x067d_0002]);
        assert_eq!(
            (i.fmt, i.dst, i.src[0], i.src[2]),
            (Fmt::Global, VGPR + 6, VGPR + 2, 0x7f)
        );
        // buffer_load_dword v1, v1, s[0:3], 0 offen: soffset (inline 0) in ext.
        let i = decode(w32, &[0xe030_1000, 0x8000_0101]);
        assert_eq!(
            (i.fmt, i.dst, i.src[0], i.src[2], i.ext),
            (Fmt::Mubuf, VGPR + 1, VGPR + 1, 0, 128)
        );
        assert!(i.has(flag::OFFEN));
        // ds_read_b32 v2, v4.
        let i = decode(w32, &[0xd8d8_0000, 0x0200_0004]);
        assert_eq!(
            (i.fmt, i.dst, i.src[0], i.imm),
            (Fmt::Ds, VGPR + 2, VGPR + 4, 0)
        );
    }

    #[test]
    fn dpp_controls_keep_their_word_positions() {
        let w32 = Gen::Gfx10;
        // v_mov_b32_dpp v11, v6 row_share:5 row_mask:0xf bank_mask:0xf: the same layout as
        // the DPP word (the source register aside).
        let i = decode(w32, &[0x7e16_02fa, 0xff01_5506]);
        assert_eq!((i.sub, i.src[0], i.ext), (Sub::Dpp, VGPR + 6, 0xff01_5500));
        // v_mov_b32_dpp v10, v10 dpp8:[7,6,5,4,3,2,1,0].
        let i = decode(w32, &[0x7e14_02e9, 0x0539_770a]);
        assert_eq!(
            (i.sub, i.src[0], i.ext),
            (Sub::Dpp8, VGPR + 10, 0x0005_3977)
        );
    }
}
