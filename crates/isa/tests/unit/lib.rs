//! The decoder and disassembler through the crate's API (lib.rs's tests).

use hsaemu_isa::*;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// gfx950's f8f6f4 MFMAs and the `v_mfma_ld_scale_b32` pairing, as llvm-objdump-22 prints
/// these words (each expected line is its output).
#[test]
fn gfx950_f8f6f4_and_scaled_mfma_pairing() {
    let list = |ws: &[u32]| -> Vec<String> {
        let b = words(ws);
        let mut at = 0;
        let mut out = Vec::new();
        while at < b.len() {
            let (text, n) = disassemble_one(Gen::Gfx950, &b, at, 0);
            out.push(text);
            at += n;
        }
        out
    };
    let m = "v_mfma_f32_16x16x128_f8f6f4";
    // A/B widths by format: fp6/bf6 (2, 3) 6 VGPRs, fp4 (4) 4, undefined (5) 8.
    assert_eq!(
        list(&[
            0xd3ad_0200,
            0x4452_1904,
            0xd3ad_0400,
            0x8452_1904,
            0xd3ad_0500,
            0x0452_1904
        ]),
        [
            format!("{m} v[0:3], v[4:9], v[12:17], v[20:23] cbsz:2 blgp:2"),
            format!("{m} v[0:3], v[4:7], v[12:15], v[20:23] cbsz:4 blgp:4"),
            format!("{m} v[0:3], v[4:11], v[12:19], v[20:23] cbsz:5"),
        ]
    );
    // The prefix and an MFMA with ABID 1: one instruction.
    assert_eq!(
        list(&[0xd3ac_0000, 0x0002_0b18, 0xd3ae_0b00, 0x8452_1904]),
        [
            "v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[4:9], v[12:15], v[20:35], v24, v5 \
          op_sel_hi:[0,0,0] cbsz:3 blgp:4"
        ]
    );
    assert_eq!(
        list(&[0xd3ac_1800, 0x0802_3318, 0xd3ad_0800, 0x1c52_1904]),
        [
            "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], a[4:11], a[12:19], v[20:23], v24, v25 \
          op_sel:[1,1,0] op_sel_hi:[1,0,0]"
        ]
    );
    // ABID 0 after the prefix: two instructions. Any other ABID: the MFMA is refused (also
    // alone).
    assert_eq!(
        list(&[0xd3ac_0000, 0x0002_3318, 0xd3ad_0000, 0x0452_1904]),
        [
            "v_mfma_ld_scale_b32 v24, v25 op_sel_hi:[0,0]".to_string(),
            format!("{m} v[0:3], v[4:11], v[12:19], v[20:23]"),
        ]
    );
    let refused = list(&[0xd3ac_0000, 0x0002_3318, 0xd3ad_1800, 0x0452_1904]);
    assert_eq!(refused[1], ".long 0xd3ad1800");
    assert_eq!(list(&[0xd3ad_0800, 0x0452_1904])[0], ".long 0xd3ad0800");
}

#[test]
fn processors_map_to_generations() {
    assert_eq!(Gen::from_processor("gfx803"), Some(Gen::Gfx8));
    assert_eq!(Gen::from_processor("gfx900"), Some(Gen::Gfx900));
    assert_eq!(Gen::from_processor("gfx906"), Some(Gen::Gfx9));
    assert_eq!(Gen::from_processor("gfx908"), Some(Gen::Gfx9));
    assert_eq!(Gen::from_processor("gfx90a:xnack-"), Some(Gen::Gfx90a));
    assert_eq!(Gen::from_processor("gfx940"), Some(Gen::Gfx940));
    assert_eq!(Gen::from_processor("gfx941"), Some(Gen::Gfx940));
    assert_eq!(Gen::from_processor("gfx942:xnack-"), Some(Gen::Gfx942));
    assert_eq!(Gen::from_processor("gfx9-4-generic"), Some(Gen::Gfx942));
    assert_eq!(Gen::from_processor("gfx950"), Some(Gen::Gfx950));
    assert_eq!(Gen::from_processor("gfx9-generic"), Some(Gen::Gfx900));
    assert_eq!(Gen::from_processor("gfx10-3-generic"), None);
    assert_eq!(Gen::from_processor("gfx1030"), Some(Gen::Gfx10));
    assert_eq!(Gen::from_processor("gfx1036"), Some(Gen::Gfx10));
    assert!(Gen::Gfx10.is_supported() && Gen::Gfx10W64.is_supported());
    assert_eq!(Gen::from_processor("gfx1010"), None, "RDNA1: no tables");
    assert_eq!(Gen::from_processor("gfx1100"), Some(Gen::Gfx11));
    assert_eq!(Gen::from_processor("gfx1151"), Some(Gen::Gfx11));
    assert_eq!(Gen::from_processor("gfx11-generic"), Some(Gen::Gfx11));
    assert_eq!(Gen::from_processor("gfx1200"), Some(Gen::Gfx12));
    assert_eq!(Gen::from_processor("gfx1201"), Some(Gen::Gfx12));
    assert_eq!(Gen::from_processor("gfx12-generic"), Some(Gen::Gfx12));
    assert_eq!(
        (Gen::Gfx12.wave_size(), Gen::Gfx12W64.lane_mask_dwords()),
        (32, 2)
    );
    assert_eq!(Gen::Gfx12.with_wave64(true), Gen::Gfx12W64);
    assert!(Gen::Gfx12.is_gfx11() && Gen::Gfx12.is_gfx12() && !Gen::Gfx11.is_gfx12());
    assert!(Gen::Gfx11.is_supported() && Gen::Gfx11W64.is_supported());
    assert_eq!(
        (Gen::Gfx11.wave_size(), Gen::Gfx11W64.wave_size()),
        (32, 64)
    );
    assert_eq!(Gen::Gfx11.with_wave64(true), Gen::Gfx11W64);
    assert_eq!(Gen::Gfx11W64.with_wave64(false), Gen::Gfx11);
    assert_eq!(Gen::from_processor("gfx600"), None);
    // Wave size.
    assert_eq!(
        (Gen::Gfx10.wave_size(), Gen::Gfx10.lane_mask_dwords()),
        (32, 1)
    );
    assert_eq!(Gen::Gfx10.with_wave64(true), Gen::Gfx10W64);
    assert_eq!(Gen::Gfx10W64.with_wave64(false), Gen::Gfx10);
    assert_eq!(
        (Gen::Gfx10W64.wave_size(), Gen::Gfx10W64.lane_mask_dwords()),
        (64, 2)
    );
    assert_eq!(Gen::Gfx90a.with_wave64(false), Gen::Gfx90a);
    assert_eq!(Gen::Gfx90a.wave_size(), 64);
}

/// GFX10 operands as data (words from clang-15's gfx1030 output), in wave32 and wave64.
#[test]
fn gfx10_operands_are_data() {
    let w32 = Gen::Gfx10;
    let w64 = Gen::Gfx10W64;
    let dec = |gen, ws: &[u32]| decode(gen, &words(ws), 0).expect("decodes");
    // v_cmp_eq_u32_e32 vcc_lo, 1, v0: the implicit vcc follows the wave size.
    let i = dec(w32, &[0x7d84_0081]);
    assert_eq!((i.opcode, i.dst), (Opcode::V_CMP_EQ_U32, Operand::VccLo));
    assert_eq!(i.src[..2], [Operand::InlineInt(1), Operand::Vgpr(0)]);
    assert_eq!(format(&i, w32, 0), "v_cmp_eq_u32_e32 vcc_lo, 1, v0");
    let i = dec(w64, &[0x7d84_0081]);
    assert_eq!(i.dst, Operand::Vcc);
    assert_eq!(format(&i, w64, 0), "v_cmp_eq_u32_e32 vcc, 1, v0");
    // v_add_co_u32 v3, s0, s0, v3: the carry-out is one SGPR in wave32, a pair in wave64.
    let i = dec(w32, &[0xd70f_0003, 0x0002_0600]);
    assert_eq!(
        (i.opcode, i.encoding),
        (Opcode::V_ADD_CO_U32, Encoding::Vop3)
    );
    assert_eq!((i.dst, i.sdst), (Operand::Vgpr(3), Operand::Sgpr(0)));
    assert_eq!(format(&i, w32, 0), "v_add_co_u32 v3, s0, s0, v3");
    assert_eq!(
        format(&dec(w64, &[0xd70f_0003, 0x0002_0600]), w64, 0),
        "v_add_co_u32 v3, s[0:1], s0, v3"
    );
    // v_add_co_ci_u32_e32 v4, vcc_lo, s3, v2, vcc_lo: carry out and in.
    let i = dec(w32, &[0x5008_0403]);
    assert_eq!((i.sdst, i.src[2]), (Operand::VccLo, Operand::VccLo));
    // v_cndmask_b32_e64 v7, 0x3ff00000, v0, s0: a VOP3 literal (12 bytes), an SGPR mask.
    let i = dec(w32, &[0xd501_0007, 0x0002_00ff, 0x3ff0_0000]);
    assert_eq!(i.size, 12);
    assert_eq!(
        i.src,
        [
            Operand::Literal(0x3ff0_0000),
            Operand::Vgpr(0),
            Operand::Sgpr(0)
        ]
    );
    assert_eq!(
        format(&i, w32, 0),
        "v_cndmask_b32_e64 v7, 0x3ff00000, v0, s0"
    );
    assert_eq!(
        format(&dec(w64, &[0xd501_0007, 0x0002_00ff, 0x3ff0_0000]), w64, 0),
        "v_cndmask_b32_e64 v7, 0x3ff00000, v0, s[0:1]"
    );
    // s_waitcnt_vscnt null, 0x0
    let i = dec(w32, &[0xbbfd_0000]);
    assert_eq!(
        (i.opcode, i.dst, i.src[0]),
        (Opcode::S_WAITCNT_VSCNT, Operand::Null, Operand::Imm(0))
    );
    assert_eq!(format(&i, w32, 0), "s_waitcnt_vscnt null, 0x0");
    // s_code_end, s_and_saveexec_b32 s0, vcc_lo
    assert_eq!(dec(w32, &[0xbf9f_0000]).opcode, Opcode::S_CODE_END);
    let i = dec(w32, &[0xbe80_3c6a]);
    assert_eq!(
        (i.opcode, i.dst, i.src[0]),
        (Opcode::S_AND_SAVEEXEC_B32, Operand::Sgpr(0), Operand::VccLo)
    );
    // DPP8 and DPP16.
    let i = dec(w32, &[0x7e02_02e9, 0xfac6_8814]);
    assert_eq!(
        i.ext,
        Ext::Dpp8(Dpp8 {
            sel: [0, 1, 2, 3, 4, 5, 6, 7],
            fi: false
        })
    );
    assert_eq!(
        format(&i, w32, 0),
        "v_mov_b32_dpp v1, v20 dpp8:[0,1,2,3,4,5,6,7]"
    );
    let i = dec(w32, &[0x7e06_02fa, 0xff01_110a]);
    let Ext::Dpp(d) = i.ext else {
        panic!("not DPP16: {:?}", i.ext)
    };
    assert_eq!(
        (d.ctrl, d.row_mask, d.bank_mask, d.fi),
        (0x111, 0xf, 0xf, false)
    );
    assert_eq!(
        format(&i, w32, 0),
        "v_mov_b32_dpp v3, v10 row_shr:1 row_mask:0xf bank_mask:0xf"
    );
    // SMEM: s_load_dword s0, s[4:5], 0x10 (soffset null) and with an SGPR offset.
    let i = dec(w32, &[0xf400_0002, 0xfa00_0010]);
    assert_eq!(
        (i.dst, i.src[0], i.src[2], i.offset),
        (Operand::Sgpr(0), Operand::Sgpr(4), Operand::None, 16)
    );
    assert!(!i.has(flags::SOFFSET));
    let i = dec(w32, &[0xf401_4504, 0x3c00_0010]);
    assert!(i.has(flags::SOFFSET) && i.has(flags::GLC) && i.has(flags::DLC));
    assert_eq!((i.src[2], i.offset), (Operand::Sgpr(30), 16));
    assert_eq!(
        format(&i, w32, 0),
        "s_load_dword s20, s[8:9], s30 offset:0x10 glc dlc"
    );
    // global_load_dword v0, v3, s[2:3] glc dlc
    let i = dec(w32, &[0xdc31_9000, 0x0002_0003]);
    assert_eq!(
        (i.dst, i.src[0], i.src[2]),
        (Operand::Vgpr(0), Operand::Vgpr(3), Operand::Sgpr(2))
    );
    assert!(i.has(flags::GLC) && i.has(flags::DLC));
    // SGPRs go up to s105 on GFX10 (102 is flat_scratch_lo on GFX9).
    let i = dec(w32, &[0xbe8a_0366]);
    assert_eq!(
        (i.opcode, i.src[0]),
        (Opcode::S_MOV_B32, Operand::Sgpr(102))
    );
    // A zero word is no instruction on GFX10 (clang pads with it).
    let (text, size) = disassemble_one(w32, &words(&[0]), 0, 0);
    assert_eq!((text.as_str(), size), (".long 0x00000000", 4));
}

#[test]
fn vop2_operands_are_data() {
    // v_add_f32_e32 v0, s1, v1
    let i = decode(Gen::Gfx90a, &words(&[0x0200_0201]), 0).expect("decodes");
    assert_eq!(i.opcode, Opcode::V_ADD_F32);
    assert_eq!(i.encoding, Encoding::Vop2);
    assert_eq!(i.size, 4);
    assert_eq!(i.dst, Operand::Vgpr(0));
    assert_eq!(i.src, [Operand::Sgpr(1), Operand::Vgpr(1), Operand::None]);
    assert_eq!(format(&i, Gen::Gfx90a, 0), "v_add_f32_e32 v0, s1, v1");
    // with a literal: v_add_f32_e32 v0, 0x12345678, v1
    let i = decode(Gen::Gfx90a, &words(&[0x0200_02ff, 0x1234_5678]), 0).expect("decodes");
    assert_eq!((i.size, i.src[0]), (8, Operand::Literal(0x1234_5678)));
}

#[test]
fn gfx8_carry_add_is_the_gfx9_opcode() {
    // v_add_u32_e32 v10, vcc, v20, v30 on GFX8 is V_ADD_CO_U32 (GFX9's name).
    let w = words(&[(25 << 25) | (10 << 17) | (30 << 9) | (256 + 20)]);
    let i = decode(Gen::Gfx8, &w, 0).expect("decodes");
    assert_eq!(i.opcode, Opcode::V_ADD_CO_U32);
    assert_eq!(i.sdst, Operand::Vcc);
    assert_eq!(format(&i, Gen::Gfx8, 0), "v_add_u32_e32 v10, vcc, v20, v30");
    assert_eq!(
        format(&i, Gen::Gfx9, 0),
        "v_add_co_u32_e32 v10, vcc, v20, v30"
    );
}

#[test]
fn memory_operands_and_widths() {
    // global_load_dwordx2 v[2:3], v1, s[0:1] offset:-8
    let w = words(&[0xdc54_9ff8, 0x0200_0001]);
    let i = decode(Gen::Gfx90a, &w, 0).expect("decodes");
    assert_eq!(i.opcode, Opcode::GLOBAL_LOAD_DWORDX2);
    assert_eq!(
        (i.dst, i.src[0], i.src[2], i.offset),
        (Operand::Vgpr(2), Operand::Vgpr(1), Operand::Sgpr(0), -8)
    );
    assert_eq!(i.opcode.info().dst_dwords, 2);
    assert!(i.opcode.info().flags & op_flags::LOAD != 0);
    assert_eq!(
        format(&i, Gen::Gfx90a, 0),
        "global_load_dwordx2 v[2:3], v1, s[0:1] offset:-8"
    );
}

#[test]
fn unknown_and_truncated_words_are_errors() {
    let e = decode(Gen::Gfx90a, &words(&[0xffff_ffff]), 0).expect_err("invalid");
    assert_eq!(
        (e.offset, e.word, e.kind),
        (0, 0xffff_ffff, DecodeErrorKind::UnknownOpcode)
    );
    // A 64-bit instruction cut short.
    let e = decode(Gen::Gfx90a, &words(&[0xdc54_9ff8]), 0).expect_err("short");
    assert_eq!(e.kind, DecodeErrorKind::Truncated);
    let (text, size) = disassemble_one(Gen::Gfx90a, &words(&[0xffff_ffff]), 0, 0);
    assert_eq!((text.as_str(), size), (".long 0xffffffff", 4));
    // A trailing partial word.
    let all = decode_all(Gen::Gfx9, &[0x00, 0x00, 0x80, 0xbf, 0x01]);
    assert_eq!(all.len(), 2);
    assert!(all[1].1.is_err());
    assert!(decode(Gen::Gfx11, &words(&[0xbf80_0000]), 0).is_ok());
}

/// GFX11 operands as data (words from clang-22's gfx1100 output, text from
/// llvm-objdump-22): VOPD halves, true16 halves as op_sel bits, `null` at 124.
#[test]
fn gfx11_operands_are_data() {
    let g = Gen::Gfx11;
    let dec = |ws: &[u32]| decode(g, &words(ws), 0).expect("decodes");
    // v_dual_mov_b32 v1, 0 :: v_dual_lshlrev_b32 v4, 2, v0
    let i = dec(&[0xca22_0080, 0x0104_0082]);
    assert_eq!(
        (i.opcode, i.dst, i.src[0]),
        (Opcode::V_MOV_B32, Operand::Vgpr(1), Operand::InlineInt(0))
    );
    let Ext::Vopd(y) = i.ext else {
        panic!("no Y half")
    };
    assert_eq!((y.opcode, y.vdst, y.vsrc1), (Opcode::V_LSHLREV_B32, 4, 0));
    assert_eq!(i.sdst, Operand::InlineInt(2));
    assert_eq!(
        format(&i, g, 0),
        "v_dual_mov_b32 v1, 0 :: v_dual_lshlrev_b32 v4, 2, v0"
    );
    // v_cvt_f16_f32_e32 v0.h, v9: the destination's high half is op_sel bit 3.
    let i = dec(&[0x7f00_1509]);
    assert_eq!((i.dst, i.mods.op_sel), (Operand::Vgpr(0), 8));
    assert_eq!(format(&i, g, 0), "v_cvt_f16_f32_e32 v0.h, v9");
    // v_add_co_ci_u32_e64 v4, null, s5, v4, vcc_lo
    let i = dec(&[0xd520_7c04, 0x01aa_0805]);
    assert_eq!((i.sdst, i.src[2]), (Operand::Null, Operand::VccLo));
    assert_eq!(
        format(&i, g, 0),
        "v_add_co_ci_u32_e64 v4, null, s5, v4, vcc_lo"
    );
}

#[test]
fn random_words_never_panic() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut bytes = Vec::with_capacity(1 << 18);
    while bytes.len() < 1 << 18 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.extend_from_slice(&(x as u32).to_le_bytes());
    }
    for gen in Gen::ALL {
        let mut ok = 0;
        for (off, r) in decode_all(gen, &bytes) {
            if let Ok(i) = r {
                ok += 1;
                assert!(
                    matches!(i.size, 4 | 8 | 12 | 16 | 20),
                    "size {} at {off:#x}",
                    i.size
                );
                let _ = format(&i, gen, off);
                let _ = i.dst_dwords();
            }
        }
        if gen.is_supported() {
            assert!(ok > 1000, "{gen:?}: only {ok} random words decoded");
        }
    }
}

#[test]
fn op_info_widths_and_flags() {
    let w = |op: Opcode| {
        let i = op.info();
        (i.dst_dwords, i.src_dwords)
    };
    assert_eq!(w(Opcode::V_MAD_U64_U32), (2, [1, 1, 2]));
    assert_eq!(w(Opcode::V_ADD_F64), (2, [2, 2, 1]));
    assert_eq!(w(Opcode::S_LOAD_DWORDX8).0, 8);
    assert_eq!(w(Opcode::DS_READ_B128).0, 4);
    assert_eq!(w(Opcode::GLOBAL_STORE_DWORDX4).1[1], 4);
    assert_eq!(w(Opcode::V_MFMA_F32_32X32X8F16), (16, [2, 2, 16]));
    let f = |op: Opcode| op.info().flags;
    assert!(f(Opcode::GLOBAL_LOAD_DWORD) & op_flags::LOAD != 0);
    assert!(f(Opcode::GLOBAL_STORE_DWORD) & op_flags::STORE != 0);
    assert!(f(Opcode::GLOBAL_ATOMIC_ADD) & op_flags::ATOMIC != 0);
    assert!(f(Opcode::DS_ADD_RTN_U32) & op_flags::RETURNS != 0);
    assert!(f(Opcode::S_CBRANCH_EXECZ) & op_flags::BRANCH != 0);
    assert!(f(Opcode::V_CMP_LT_F32) & op_flags::WRITES_MASK != 0);
    // Lane-mask operands, from the tables.
    let masks =
        |op: Opcode| f(op) & (op_flags::MASK_DST | op_flags::MASK_SDST | op_flags::MASK_SRC2);
    assert_eq!(masks(Opcode::V_CMP_LT_F32), op_flags::MASK_DST);
    assert_eq!(masks(Opcode::V_CMPX_EQ_U32), op_flags::MASK_DST);
    assert_eq!(masks(Opcode::V_CNDMASK_B32), op_flags::MASK_SRC2);
    assert_eq!(masks(Opcode::V_ADD_CO_U32), op_flags::MASK_SDST);
    assert_eq!(
        masks(Opcode::V_ADD_CO_CI_U32),
        op_flags::MASK_SDST | op_flags::MASK_SRC2
    );
    assert_eq!(masks(Opcode::V_DIV_SCALE_F32), op_flags::MASK_SDST);
    assert_eq!(masks(Opcode::V_MAD_U64_U32), op_flags::MASK_SDST);
    assert_eq!(masks(Opcode::V_READLANE_B32), 0);
    assert_eq!(masks(Opcode::V_ADD_F32), 0);
    // Lane masks are given at their wave64 width.
    assert_eq!(Opcode::V_ADD_CO_CI_U32.info().src_dwords[2], 2);
}

#[test]
fn inst_is_small() {
    assert!(std::mem::size_of::<Inst>() <= 80);
    assert_eq!(Opcode::all()[0], Opcode::Unknown);
    assert_eq!(Opcode::S_WAITCNT.mnemonic(), "s_waitcnt");
    assert_eq!(
        Opcode::V_MFMA_F32_32X32X8F16.mnemonic(),
        "v_mfma_f32_32x32x8f16"
    );
}
