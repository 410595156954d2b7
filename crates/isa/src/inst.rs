//! The decoded-instruction model shared by the decoder, the disassembler and the emulator.
//!
//! An [`Inst`] is a small `Copy` value: the generation-independent [`Opcode`], the
//! [`Encoding`] it came from, its size in bytes (literal included), its operands as
//! [`Operand`] data and its modifiers. The emulator executes it without re-reading the
//! machine words. Register operands carry only the first register number; the number of
//! dwords an operand spans comes from [`Opcode::info`] ([`OpInfo::dst_dwords`],
//! [`OpInfo::src_dwords`]) and, for memory instructions whose width depends on bits of the
//! encoding (MIMG `dmask`, MUBUF `tfe`), from [`Inst::dst_dwords`].
//!
//! # Operand slots per encoding
//!
//! | Encoding | `dst` | `sdst` | `src[0]` | `src[1]` | `src[2]` |
//! | --- | --- | --- | --- | --- | --- |
//! | SOP1, SOP2 | sdst | – | ssrc0 | ssrc1 | – |
//! | SOPK | sdst (read by `s_cmpk_*`, `s_setreg_*`) | – | `Imm(simm16)` | `s_setreg_imm32_b32`: `Literal` | – |
//! | SOPC | – | – | ssrc0 | ssrc1 | – |
//! | SOPP | – | – | `Imm(simm16)` | – | – |
//! | SMEM | sdata | – | sbase | sdata again (the data of stores/atomics) | soffset (SGPR, [`flags::SOFFSET`]) or `None` |
//! | VOP1, VOP2, VOPC, VOP3, VOP3P | vdst (VOPC: `Vcc`; VOPC e64: SGPR pair) | VOP3b carry-out SGPRs; VOP2 carry-out `Vcc` | src0 | src1 | src2 (VOP2 carry-in / `v_cndmask` mask: `Vcc`) |
//! | DS | vdst | – | addr | data0 | data1 |
//! | FLAT, GLOBAL, SCRATCH | vdst | – | addr (`None` for SCRATCH with saddr only) | data | saddr (`None` = `off`) |
//! | MUBUF, MTBUF | vdata (loads, returning atomics) | soffset | vaddr (`None` unless offen/idxen/addr64) | vdata (stores, atomics) | srsrc |
//! | MIMG | vdata (loads) | ssamp | vaddr | vdata (stores, atomics) | srsrc |
//!
//! Memory offsets (SMEM immediate, DS `offset`/`offset0`, FLAT, MUBUF) are in [`Inst::offset`];
//! DS `offset1` is [`Inst::offset1`]. VOP2 `v_madmk`/`v_madak` keep their constant in `src[1]`
//! / `src[2]` as `Literal`, like the printed order puts them.
//!
//! # GFX10 ([`Gen::Gfx10`] wave32, [`Gen::Gfx10W64`] wave64)
//!
//! - Lane masks follow the wave size. In wave32 the implicit `vcc` of VOPC and of the VOP2
//!   carry/`v_cndmask` forms is [`Operand::VccLo`], and an SGPR lane mask (the destination of
//!   `v_cmp_*_e64`, the carry-out of `v_add_co_u32`/`v_add_co_ci_u32`/`v_div_scale_*`/
//!   `v_mad_u64_u32`, the carry-in or mask in `src[2]`) is one SGPR; in wave64 they are
//!   [`Operand::Vcc`] and SGPR pairs. [`Gen::lane_mask_dwords`] is the width.
//! - `null` (operand value 125) is [`Operand::Null`]: reads give zero, writes are discarded.
//!   SGPRs go up to `s105` (values 102–105 are SGPRs, not `flat_scratch`/`xnack_mask`).
//! - VOP3 and VOP3P take a literal constant ([`Operand::Literal`], `size` 12).
//! - DPP16 is [`Ext::Dpp`] (with [`Dpp::fi`]); DPP8 is [`Ext::Dpp8`].
//! - SMEM: `offset` is the signed 21-bit immediate; `src[2]` is the `soffset` SGPR unless the
//!   field is `null` (then `src[2]` is `None` and [`flags::SOFFSET`] is clear). Cache bits
//!   [`flags::GLC`], [`flags::DLC`].
//! - FLAT/GLOBAL/SCRATCH, MUBUF and MTBUF have [`flags::DLC`]; `saddr` `off` is encoded as
//!   `null`. The MTBUF format is [`Ext::BufFormat`].
//! - `v_cmpx_*` writes only EXEC on GFX10 (no `dst`). `v_permlane16_b32`/`v_permlanex16_b32`
//!   keep `fi` in bit 0 and `bound_ctrl` in bit 1 of `mods.op_sel` (LLVM prints `op_sel:[…]`).

use crate::opcode::Opcode;

/// A GPU generation: one set of decoding tables.
///
/// `Gfx9` covers gfx904, gfx906 and gfx908 (one table, the union of their opcodes), `Gfx900`
/// gfx900/902/909/90c (which have `v_mad_mix*` where the others have `v_fma_mix*`); gfx90a and
/// gfx940 (CDNA2/CDNA3) have their own; gfx942 and gfx950 have tables generated with LLVM 22.
/// `Gfx10` is GFX10.3 (RDNA2: gfx1030–gfx1036) in wave32, the mode clang compiles for by
/// default and llvm-objdump disassembles in; `Gfx10W64` is the
/// same tables in wave64 (lane masks are SGPR pairs, `vcc` instead of `vcc_lo`): pick it with
/// [`Gen::with_wave64`] for a kernel whose descriptor does not enable wave32. `Gfx11` is
/// reserved (not decoded: [`crate::decode`] returns an error).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Gen {
    /// GFX8 (gfx801–gfx810): GCN3/4.
    Gfx8,
    /// GFX9 (gfx904, gfx906, gfx908/CDNA1).
    Gfx9,
    /// gfx90a (CDNA2).
    Gfx90a,
    /// gfx900, gfx902, gfx909, gfx90c (Vega without FMA mix).
    Gfx900,
    /// gfx940 and gfx941 (CDNA3) as LLVM 15 knows them.
    Gfx940,
    /// GFX10.3 (RDNA2: gfx1030–gfx1036), wave32.
    Gfx10,
    /// GFX11 (RDNA3 gfx1100–gfx1103, RDNA3.5 gfx1150–gfx1153, `gfx11-generic`) in wave32:
    /// one table, the union of gfx1100's and gfx1151's opcodes, from llvm-objdump-22
    /// (`tables/generated_rdna.rs`).
    Gfx11,
    /// GFX10.3 in wave64 (same opcodes as [`Gen::Gfx10`]; lane masks are 64 bits).
    Gfx10W64,
    /// gfx942 (CDNA3) and `gfx9-4-generic` code as LLVM 22 knows them: gfx940's encodings,
    /// tables generated with llvm-objdump-22 (`tables/generated_llvm22.rs`), printed as it
    /// prints them.
    Gfx942,
    /// gfx950 (CDNA4): gfx942 plus its additions, tables and text from llvm-objdump-22.
    Gfx950,
    /// GFX11 in wave64 (same opcodes as [`Gen::Gfx11`]; lane masks are 64 bits).
    Gfx11W64,
    /// GFX12 (RDNA4: gfx1200, gfx1201, `gfx12-generic`) in wave32: GFX11's SALU/VALU/DS
    /// encodings, the GFX12 SMEM, VFLAT/VGLOBAL/VSCRATCH and VBUFFER layouts with `th`/`scope`
    /// cache policies; tables from llvm-objdump-22 (`tables/generated_gfx12.rs`).
    Gfx12,
    /// GFX12 in wave64 (same opcodes as [`Gen::Gfx12`]; lane masks are 64 bits).
    Gfx12W64,
}

impl Gen {
    /// Every generation, in declaration (`Gen as usize`) order.
    pub const ALL: [Gen; 13] = [
        Gen::Gfx8,
        Gen::Gfx9,
        Gen::Gfx90a,
        Gen::Gfx900,
        Gen::Gfx940,
        Gen::Gfx10,
        Gen::Gfx11,
        Gen::Gfx10W64,
        Gen::Gfx942,
        Gen::Gfx950,
        Gen::Gfx11W64,
        Gen::Gfx12,
        Gen::Gfx12W64,
    ];

    /// Whether the generation has decoding tables of its own: the wave64 views
    /// [`Gen::Gfx10W64`] and [`Gen::Gfx11W64`] share their wave32 generation's.
    pub fn has_own_tables(self) -> bool {
        !matches!(self, Gen::Gfx10W64 | Gen::Gfx11W64 | Gen::Gfx12W64)
    }

    /// The generation of a processor name such as `gfx906` (or an alternative name such as
    /// `fiji`) or a target ID such as `gfx90a:xnack-`, from codeobject's processor table (its
    /// ISA version); `None` for processors this crate has no tables for (GFX6/7, GFX10.1,
    /// GFX12, generic processors other than `gfx9-generic` and `gfx9-4-generic`).
    pub fn from_processor(name: &str) -> Option<Gen> {
        let proc = name.split(':').next().unwrap_or(name);
        let p = hsaemu_codeobject::processor_info(proc)?;
        if p.is_generic() {
            // A generic processor's code is the common subset of the processors it covers.
            return match p.isa_version {
                // gfx9-generic (gfx900…gfx90c): gfx900's table covers it.
                (9, 0, _) => Some(Gen::Gfx900),
                // gfx9-4-generic (gfx942 and gfx950): gfx942's instruction set.
                (9, 4, _) => Some(Gen::Gfx942),
                // gfx11-generic: the GFX11 table (gfx1100's opcodes are a subset).
                (11, ..) => Some(Gen::Gfx11),
                // gfx12-generic: gfx1200 and gfx1201 share one instruction set.
                (12, ..) => Some(Gen::Gfx12),
                _ => None,
            };
        }
        Some(match p.isa_version {
            (8, ..) => Gen::Gfx8,
            // Vega without FMA mix (gfx900, gfx902, gfx909, gfx90c).
            (9, 0, 0 | 2 | 9 | 12) => Gen::Gfx900,
            (9, 0, 4 | 6 | 8) => Gen::Gfx9,
            (9, 0, 10) => Gen::Gfx90a,
            // LLVM 15 knows gfx940 (its oracle); gfx941 has no compiler in either LLVM and
            // shares gfx940's instruction set.
            (9, 4, 0 | 1) => Gen::Gfx940,
            // gfx942 and gfx950: tables generated with LLVM 22.
            (9, 4, _) => Gen::Gfx942,
            (9, 5, _) => Gen::Gfx950,
            // GFX10.3 only: gfx1010–gfx1013 (RDNA1) have other opcodes and no tables here.
            (10, 3, _) => Gen::Gfx10,
            (11, ..) => Gen::Gfx11,
            (12, ..) => Gen::Gfx12,
            _ => return None,
        })
    }

    /// Whether this crate can decode this generation (every [`Gen`] now can).
    pub fn is_supported(self) -> bool {
        true
    }

    /// CDNA3/CDNA4 (gfx940's encodings: `sc0`/`sc1`/`nt`, SCRATCH `sve`, MFMA `acc_cd`).
    #[inline]
    pub fn is_cdna3(self) -> bool {
        matches!(self, Gen::Gfx940 | Gen::Gfx942 | Gen::Gfx950)
    }

    /// gfx90a and CDNA3/CDNA4: the unified VGPR/AGPR file (`acc` bits in DS, FLAT, MUBUF and
    /// MFMA `acc_cd`).
    #[inline]
    pub fn unified_agprs(self) -> bool {
        self == Gen::Gfx90a || self.is_cdna3()
    }

    /// Whether the text follows llvm-objdump-22 (gfx942, gfx950) rather than llvm-objdump-15.
    #[inline]
    pub fn llvm22(self) -> bool {
        matches!(
            self,
            Gen::Gfx942 | Gen::Gfx950 | Gen::Gfx11 | Gen::Gfx11W64 | Gen::Gfx12 | Gen::Gfx12W64
        )
    }

    /// Whether this generation has GFX11's SALU, VALU (true16, VOPD, VOP3 DPP) and DS
    /// encodings and operand values (`null` = 124, `m0` = 125): GFX11 and GFX12, either wave
    /// size. [`Gen::is_gfx12`] tells the two apart where GFX12 differs (memory encodings,
    /// wait counters).
    #[inline]
    pub fn is_gfx11(self) -> bool {
        matches!(
            self,
            Gen::Gfx11 | Gen::Gfx11W64 | Gen::Gfx12 | Gen::Gfx12W64
        )
    }

    /// Whether this is GFX12 (RDNA4, either wave size).
    #[inline]
    pub fn is_gfx12(self) -> bool {
        matches!(self, Gen::Gfx12 | Gen::Gfx12W64)
    }

    /// RDNA (GFX10.3 and GFX11, either wave size): `null`, wave32/wave64 lane masks, VOP3
    /// literals, DPP8, the GFX10 VOP3/VOP3P/DS/SMEM layouts.
    #[inline]
    pub fn is_rdna(self) -> bool {
        self.is_gfx10() || self.is_gfx11()
    }

    /// Whether this is GFX10.3 (either wave size).
    #[inline]
    pub fn is_gfx10(self) -> bool {
        matches!(self, Gen::Gfx10 | Gen::Gfx10W64)
    }

    /// Lanes per wavefront: 32 for [`Gen::Gfx10`], [`Gen::Gfx11`] and [`Gen::Gfx12`], 64 for
    /// everything else.
    #[inline]
    pub fn wave_size(self) -> u32 {
        if matches!(self, Gen::Gfx10 | Gen::Gfx11 | Gen::Gfx12) {
            32
        } else {
            64
        }
    }

    /// Dwords of a lane-mask operand (`vcc`, a compare's or carry's SGPRs, `exec`): 1 in
    /// wave32, 2 in wave64.
    #[inline]
    pub fn lane_mask_dwords(self) -> u8 {
        if matches!(self, Gen::Gfx10 | Gen::Gfx11 | Gen::Gfx12) {
            1
        } else {
            2
        }
    }

    /// The same generation in wave64 (`true`) or wave32 (`false`). Only GFX10 has both; the
    /// GFX8/GFX9 generations are always wave64 and come back unchanged.
    pub fn with_wave64(self, wave64: bool) -> Gen {
        match (self, wave64) {
            (Gen::Gfx10 | Gen::Gfx10W64, true) => Gen::Gfx10W64,
            (Gen::Gfx10 | Gen::Gfx10W64, false) => Gen::Gfx10,
            (Gen::Gfx11 | Gen::Gfx11W64, true) => Gen::Gfx11W64,
            (Gen::Gfx11 | Gen::Gfx11W64, false) => Gen::Gfx11,
            (Gen::Gfx12 | Gen::Gfx12W64, true) => Gen::Gfx12W64,
            (Gen::Gfx12 | Gen::Gfx12W64, false) => Gen::Gfx12,
            (g, _) => g,
        }
    }
}

/// The machine-code encoding an instruction was decoded from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Encoding {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar ALU with a 16-bit constant.
    Sopk,
    /// Scalar compare.
    Sopc,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, one source (`_e32`; `_dpp`/`_sdwa` when [`Inst::ext`] is `Dpp`/`Sdwa`).
    Vop1,
    /// Vector ALU, two sources (`_e32`, `_dpp`, `_sdwa`).
    Vop2,
    /// Vector compare (`_e32`, `_dpp`, `_sdwa`).
    Vopc,
    /// Vector ALU, 64-bit encoding (VOP3a and VOP3b, `_e64` forms of VOP1/VOP2/VOPC).
    Vop3,
    /// Vector ALU, packed math, dot, MFMA and AccVGPR moves.
    Vop3p,
    /// Local/global data share.
    Ds,
    /// Untyped buffer memory.
    Mubuf,
    /// Typed buffer memory.
    Mtbuf,
    /// Image memory.
    Mimg,
    /// Flat (generic address) memory.
    Flat,
    /// Global memory (FLAT encoding, segment 2).
    Global,
    /// Scratch memory (FLAT encoding, segment 1).
    Scratch,
    /// An undecodable word.
    Unknown,
    /// GFX11 VOPD: two VALU operations issued together (X in the [`Inst`]'s operands, Y in
    /// [`Ext::Vopd`] and `sdst`).
    Vopd,
    /// GFX11 LDSDIR: `lds_param_load`/`lds_direct_load` (graphics; fields in [`Ext::Ldsdir`]).
    Ldsdir,
    /// GFX11 VINTERP: `v_interp_p10_*`/`v_interp_p2_*` (graphics; `wait_exp` in
    /// [`Ext::Vinterp`], neg/clamp/op_sel in [`Inst::mods`]).
    Vinterp,
    /// GFX11 EXP: `exp` (graphics; fields in [`Ext::Exp`]).
    Exp,
}

/// An inline floating-point constant (source operand values 240–248).
///
/// Its bits depend on the operand type (f16, f32 or f64): see [`FloatConst::bits32`] and friends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FloatConst {
    /// 0.5
    Half,
    /// -0.5
    MinusHalf,
    /// 1.0
    One,
    /// -1.0
    MinusOne,
    /// 2.0
    Two,
    /// -2.0
    MinusTwo,
    /// 4.0
    Four,
    /// -4.0
    MinusFour,
    /// 1/(2π) (GFX8 and later).
    InvTwoPi,
}

impl FloatConst {
    /// The constant as an f64 value.
    pub fn value(self) -> f64 {
        match self {
            FloatConst::Half => 0.5,
            FloatConst::MinusHalf => -0.5,
            FloatConst::One => 1.0,
            FloatConst::MinusOne => -1.0,
            FloatConst::Two => 2.0,
            FloatConst::MinusTwo => -2.0,
            FloatConst::Four => 4.0,
            FloatConst::MinusFour => -4.0,
            FloatConst::InvTwoPi => 0.159_154_943_091_895_35,
        }
    }

    /// The bits for a 32-bit operand.
    pub fn bits32(self) -> u32 {
        match self {
            FloatConst::InvTwoPi => 0x3e22_f983,
            c => (c.value() as f32).to_bits(),
        }
    }

    /// The bits for a 64-bit operand.
    pub fn bits64(self) -> u64 {
        match self {
            FloatConst::InvTwoPi => 0x3fc4_5f30_6dc9_c882,
            c => c.value().to_bits(),
        }
    }

    /// The bits for a 16-bit operand.
    pub fn bits16(self) -> u16 {
        match self {
            FloatConst::Half => 0x3800,
            FloatConst::MinusHalf => 0xb800,
            FloatConst::One => 0x3c00,
            FloatConst::MinusOne => 0xbc00,
            FloatConst::Two => 0x4000,
            FloatConst::MinusTwo => 0xc000,
            FloatConst::Four => 0x4400,
            FloatConst::MinusFour => 0xc400,
            FloatConst::InvTwoPi => 0x3118,
        }
    }
}

/// One operand of a decoded instruction.
///
/// Register operands hold the first register; the width in dwords is in [`OpInfo`]. A
/// 64-bit special register (`vcc`, `exec`, `flat_scratch`, `xnack_mask`) is `Vcc`, `Exec`, … when
/// the operand is 64 bits wide and `VccLo`/`VccHi`, … when it is a 32-bit half.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Operand {
    /// No operand in this slot.
    #[default]
    None,
    /// Scalar register `s<n>` (first of a range).
    Sgpr(u16),
    /// Vector register `v<n>` (first of a range).
    Vgpr(u16),
    /// Accumulation register `a<n>` (gfx908, gfx90a, gfx940).
    Agpr(u16),
    /// Trap temporary `ttmp<n>`.
    Ttmp(u8),
    /// `vcc` (64-bit).
    Vcc,
    /// `vcc_lo`.
    VccLo,
    /// `vcc_hi`.
    VccHi,
    /// `exec` (64-bit).
    Exec,
    /// `exec_lo`.
    ExecLo,
    /// `exec_hi`.
    ExecHi,
    /// `m0`.
    M0,
    /// `scc` (as an implicit operand).
    Scc,
    /// `flat_scratch` (64-bit).
    FlatScratch,
    /// `flat_scratch_lo`.
    FlatScratchLo,
    /// `flat_scratch_hi`.
    FlatScratchHi,
    /// `xnack_mask` (64-bit).
    XnackMask,
    /// `xnack_mask_lo`.
    XnackMaskLo,
    /// `xnack_mask_hi`.
    XnackMaskHi,
    /// `null` (GFX10+; LLVM 15 also prints operand value 125 as `null` on GFX8/GFX9).
    Null,
    /// GFX8 `tba` (64-bit trap base address).
    Tba,
    /// GFX8 `tba_lo`.
    TbaLo,
    /// GFX8 `tba_hi`.
    TbaHi,
    /// GFX8 `tma` (64-bit trap memory address).
    Tma,
    /// GFX8 `tma_lo`.
    TmaLo,
    /// GFX8 `tma_hi`.
    TmaHi,
    /// An inline integer constant, -16..=64.
    InlineInt(i8),
    /// An inline floating-point constant; its bits depend on the operand type.
    InlineFloat(FloatConst),
    /// A 32-bit literal constant following the instruction (64-bit float operands: the high half).
    Literal(u32),
    /// `src_shared_base` (the LDS aperture base, high half).
    SrcSharedBase,
    /// `src_shared_limit`.
    SrcSharedLimit,
    /// `src_private_base` (the scratch aperture base, high half).
    SrcPrivateBase,
    /// `src_private_limit`.
    SrcPrivateLimit,
    /// `src_pops_exiting_wave_id`.
    PopsExitingWaveId,
    /// GFX12 `src_flat_scratch_base_lo` (operand value 230).
    SrcFlatScratchBaseLo,
    /// GFX12 `src_flat_scratch_base_hi` (operand value 231).
    SrcFlatScratchBaseHi,
    /// `src_execz` (`execz`).
    SrcExecz,
    /// `src_vccz` (`vccz`).
    SrcVccz,
    /// `src_scc` (`scc`).
    SrcScc,
    /// `src_lds_direct`.
    LdsDirect,
    /// An immediate field (SOPP/SOPK `simm16`, raw).
    Imm(u32),
}

/// VALU source and output modifiers (VOP3, VOP3P, SDWA, DPP).
///
/// Bit `i` of `neg`, `abs`, `neg_hi`, `op_sel`, `op_sel_hi` applies to source `i` (bit 3 of
/// `op_sel` is the destination's).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct VopMods {
    /// Negate (VOP3P: the low half).
    pub neg: u8,
    /// Absolute value.
    pub abs: u8,
    /// VOP3P: negate the high half.
    pub neg_hi: u8,
    /// Operand half selection (VOP3 16-bit ops on GFX9, VOP3P).
    pub op_sel: u8,
    /// VOP3P high-half selection (decoded default: all set).
    pub op_sel_hi: u8,
    /// Output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2.
    pub omod: u8,
    /// Clamp the result.
    pub clamp: bool,
}

/// DPP controls (`Ext::Dpp`, on VOP1/VOP2/VOPC): DPP16.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dpp {
    /// `dpp_ctrl` (9 bits: quad_perm, row_shl, wave_shr, row_bcast; GFX10 row_share,
    /// row_xmask…).
    pub ctrl: u16,
    /// `row_mask` (4 bits).
    pub row_mask: u8,
    /// `bank_mask` (4 bits).
    pub bank_mask: u8,
    /// `bound_ctrl:0`: out-of-bounds reads give zero.
    pub bound_ctrl: bool,
    /// GFX10 `fi:1`: fetch from inactive lanes too (always false before GFX10).
    pub fi: bool,
}

/// GFX10 DPP8 (`Ext::Dpp8`, on VOP1/VOP2/VOPC, `src0` 0xE9/0xEA): lane `i` of each group of
/// eight reads lane `sel[i]` of the same group.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dpp8 {
    /// The lane each of the eight lanes reads (0–7).
    pub sel: [u8; 8],
    /// `fi:1` (encoded as `src0` 0xEA): fetch from inactive lanes too.
    pub fi: bool,
}

/// SDWA selections (`Ext::Sdwa`, on VOP1/VOP2/VOPC). Selects: 0–3 byte 0–3, 4 word 0, 5 word 1, 6 dword.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Sdwa {
    /// Destination select.
    pub dst_sel: u8,
    /// 0 pad with zeros, 1 sign-extend, 2 preserve the other bits.
    pub dst_unused: u8,
    /// Source 0 select.
    pub src0_sel: u8,
    /// Source 1 select.
    pub src1_sel: u8,
    /// Bit `i`: sign-extend source `i`.
    pub sext: u8,
}

/// Encoding-specific extra fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ext {
    /// Nothing extra.
    #[default]
    None,
    /// DPP16 controls.
    Dpp(Dpp),
    /// GFX10 DPP8 lane selects.
    Dpp8(Dpp8),
    /// gfx950 scaled MFMA: `v_mfma_ld_scale_b32` fused with the f8f6f4 MFMA after it (ABID 1),
    /// one 16-byte instruction as LLVM prints it (`v_mfma_scale_f32_*_f8f6f4`). `scale` holds
    /// the scale sources of A and B; `op_sel` and `op_sel_hi` are the prefix's (bit 0: A, bit 1:
    /// B), which pick the scale byte of each. The MFMA's own fields are in the instruction.
    MfmaScale {
        /// The scale sources (`src0`, `src1` of the prefix).
        scale: [Operand; 2],
        /// The prefix's op_sel bits 0–1.
        op_sel: u8,
        /// The prefix's op_sel_hi bits 0–1.
        op_sel_hi: u8,
    },
    /// SDWA selections.
    Sdwa(Sdwa),
    /// MIMG fields.
    Mimg {
        /// Channel mask.
        dmask: u8,
        /// GFX10 `dim` (`SQ_RSRC_IMG_*` - 8: 0 1D … 7 2D_MSAA_ARRAY); 0 on GFX8/GFX9.
        dim: u8,
        /// GFX10: how many address VGPRs the instruction names (as llvm-objdump prints
        /// them; the register tuple's width without NSA); 0 on GFX8/GFX9.
        addrs: u8,
        /// GFX10 NSA: the address VGPRs after the first (`src[0]`), one per byte; all 0
        /// without NSA (the addresses are then consecutive).
        nsa: [u8; 12],
    },
    /// MTBUF format (GFX8/GFX9).
    Mtbuf {
        /// Data format (`dfmt`).
        dfmt: u8,
        /// Numeric format (`nfmt`).
        nfmt: u8,
    },
    /// GFX10 MTBUF unified format (`BUF_FMT_*`, 7 bits).
    BufFormat {
        /// The format value.
        format: u8,
    },
    /// GFX11 MIMG: the resource dimension (`dim:SQ_RSRC_IMG_*`, 0–7) besides the channel mask.
    MimgDim {
        /// Channel mask.
        dmask: u8,
        /// Dimension (`SQ_RSRC_IMG_1D` = 0 … `_2D_MSAA_ARRAY` = 7).
        dim: u8,
        /// NSA (`Inst::size` 12): the address VGPRs after the first (`src[0]`), one per byte;
        /// with more than five addresses the last names the first VGPR of a tuple holding the
        /// rest. All 0 without NSA (the addresses are then consecutive).
        nsa: [u8; 4],
    },
    /// GFX12 VIMAGE/VSAMPLE: separate address VGPRs (the first is `src[0]`), each operand
    /// as wide as llvm-objdump prints it.
    Vimage(Vimage),
    /// GFX11 VOPD: the Y operation (the X operation is the instruction's own opcode and
    /// operands). Y's `src0` is in [`Inst::sdst`].
    Vopd(Vopd),
    /// GFX11 LDSDIR fields: the attribute (`attr` 15:10) and channel (`attrchan` 9:8, x y z w)
    /// `lds_param_load` reads, and `wait_vdst` (19:16).
    Ldsdir {
        /// Attribute number 0–63.
        attr: u8,
        /// Channel 0–3 (`.x` … `.w`).
        chan: u8,
        /// `wait_vdst` 0–15 (GFX12 `wait_va_vdst`).
        wait_vdst: u8,
        /// GFX12 `wait_vm_vsrc` (bit 23); 0 on GFX11.
        wait_vm_vsrc: u8,
    },
    /// GFX11 EXP fields.
    Exp {
        /// Export target (9:4): 0–7 `mrt0`…, 8 `mrtz`, 12–16 `pos0`…, 20 `prim`, 21–22
        /// `dual_src_blend0/1`; others print `invalid_target_N`.
        target: u8,
        /// Channel enables (3:0): a disabled channel prints `off`.
        en: u8,
        /// The four source VGPRs (word 1, a byte each).
        vsrc: [u8; 4],
        /// `done` (bit 11).
        done: bool,
        /// `row_en` (bit 13).
        row_en: bool,
    },
    /// GFX11 VINTERP `wait_exp` (bits 10:8).
    Vinterp {
        /// `wait_exp` 0–7.
        wait_exp: u8,
    },
}

/// The image fields of a GFX12 VIMAGE or VSAMPLE instruction (three dwords).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vimage {
    /// Channel mask.
    pub dmask: u8,
    /// Dimension (`SQ_RSRC_IMG_1D` = 0 … `_2D_MSAA_ARRAY` = 7).
    pub dim: u8,
    /// The address VGPRs after the first (`vaddr1`–`vaddr4`).
    pub vaddr: [u8; 4],
    /// Each address operand's width in VGPRs (0: no such operand).
    pub widths: [u8; 5],
    /// The data operand's width in VGPRs, as llvm-objdump prints it: dmask's channels (a
    /// gather's 4), halved by d16, plus tfe's; where LLVM has no variant of the opcode for
    /// that size or for the address count, its first variant's.
    pub data: u8,
}

/// The Y half of a VOPD instruction: `v_dual_<x> … :: v_dual_<y> vdst, src0, vsrc1`. Its
/// `src0` operand is kept in [`Inst::sdst`]; the instruction's one literal in `lit` (used by
/// either half's `fmaak`/`fmamk` constant or a literal `src0`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vopd {
    /// The Y operation.
    pub opcode: Opcode,
    /// Y's destination VGPR.
    pub vdst: u8,
    /// Y's `vsrc1` VGPR (unused by `v_dual_mov_b32`).
    pub vsrc1: u8,
    /// The literal constant (0 when there is none).
    pub lit: u32,
}

/// Memory and other single-bit flags of an instruction (bit set in [`Inst::flags`]).
pub mod flags {
    /// `glc` (gfx940: `sc0`).
    pub const GLC: u16 = 1 << 0;
    /// `slc` (gfx940: `nt`).
    pub const SLC: u16 = 1 << 1;
    /// `dlc` (GFX10: SMEM, MUBUF, MTBUF, FLAT/GLOBAL/SCRATCH).
    pub const DLC: u16 = 1 << 2;
    /// gfx940 `sc1` (gfx90a: `scc`).
    pub const SC1: u16 = 1 << 3;
    /// MUBUF `lds`, FLAT `lds`.
    pub const LDS: u16 = 1 << 4;
    /// `tfe`.
    pub const TFE: u16 = 1 << 5;
    /// MUBUF `idxen`.
    pub const IDXEN: u16 = 1 << 6;
    /// MUBUF `offen`.
    pub const OFFEN: u16 = 1 << 7;
    /// MUBUF `addr64` (GFX6/7 only).
    pub const ADDR64: u16 = 1 << 8;
    /// DS `gds`.
    pub const GDS: u16 = 1 << 9;
    /// MIMG `unorm`.
    pub const UNORM: u16 = 1 << 10;
    /// MIMG `da`.
    pub const DA: u16 = 1 << 11;
    /// MIMG `r128`/`a16`.
    pub const A16: u16 = 1 << 12;
    /// MIMG/MUBUF `d16`.
    pub const D16: u16 = 1 << 13;
    /// MIMG `lwe`.
    pub const LWE: u16 = 1 << 14;
    /// SMEM: an SGPR offset is added (`soe`/`imm == 0`; GFX10: `soffset` is not `null`).
    pub const SOFFSET: u16 = 1 << 15;
}

/// GFX12 cache policy of a memory instruction, kept in [`Inst::offset1`].
pub mod cpol {
    /// `th` (temporal hint, bits 2:0): loads `TH_LOAD_*`, stores `TH_STORE_*`, atomics
    /// `TH_ATOMIC_*` (bit 0 of an atomic's `th` is `RETURN`: the old value is written back).
    pub const TH_MASK: u8 = 7;
    /// `scope` shift: bits 4:3 hold `SCOPE_CU` (0), `SCOPE_SE`, `SCOPE_DEV`, `SCOPE_SYS` (3).
    pub const SCOPE_SHIFT: u8 = 3;
    /// `SCOPE_DEV`.
    pub const SCOPE_DEV: u8 = 2;
    /// `nv` (non-volatile; bit 5, printed by VIMAGE/VSAMPLE).
    pub const NV: u8 = 1 << 5;
    /// `SCOPE_SYS`.
    pub const SCOPE_SYS: u8 = 3;

    /// The `th` field of a cache policy.
    pub fn th(cpol: u8) -> u8 {
        cpol & TH_MASK
    }

    /// The `scope` field of a cache policy.
    pub fn scope(cpol: u8) -> u8 {
        (cpol >> SCOPE_SHIFT) & 3
    }
}

/// One decoded instruction. See the module documentation for the operand slots.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// What it does.
    pub opcode: Opcode,
    /// The encoding it came from.
    pub encoding: Encoding,
    /// Size in bytes, literal constant included (4, 8 or 12; GFX10 MIMG with NSA: up to 20;
    /// gfx950 scaled MFMA: 16).
    pub size: u8,
    /// Destination (see the module table).
    pub dst: Operand,
    /// Second destination: VOP3b carry-out, MUBUF soffset, MIMG ssamp.
    pub sdst: Operand,
    /// Sources (see the module table).
    pub src: [Operand; 3],
    /// Memory offset in bytes (DS: `offset` or `offset0`), sign-extended where the field is signed;
    /// gfx950 `v_bitop3_*`: the 8-bit truth table (`bitop3:`).
    pub offset: i32,
    /// DS `offset1`; GFX12 memory instructions (SMEM, VFLAT/VGLOBAL/VSCRATCH, VBUFFER): the
    /// cache policy, `th` in bits 2:0 and `scope` in bits 4:3 (see [`cpol`]).
    pub offset1: u8,
    /// Bits from [`flags`].
    pub flags: u16,
    /// VALU modifiers.
    pub mods: VopMods,
    /// DPP/SDWA/MIMG/MTBUF fields.
    pub ext: Ext,
}

// 80 since GFX10 MIMG keeps its NSA address list (12 VGPR numbers) in `ext`.
const _: () = assert!(core::mem::size_of::<Inst>() <= 80);
const _: () = assert!(core::mem::size_of::<Operand>() == 8);

impl Inst {
    /// An instruction with no operands (the decoder fills in the rest).
    pub const fn new(opcode: Opcode, encoding: Encoding, size: u8) -> Inst {
        Inst {
            opcode,
            encoding,
            size,
            dst: Operand::None,
            sdst: Operand::None,
            src: [Operand::None; 3],
            offset: 0,
            offset1: 0,
            flags: 0,
            mods: VopMods {
                neg: 0,
                abs: 0,
                neg_hi: 0,
                op_sel: 0,
                op_sel_hi: 0,
                omod: 0,
                clamp: false,
            },
            ext: Ext::None,
        }
    }

    /// Whether a flag from [`flags`] is set.
    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// gfx950's `v_mfma_f32_*_f8f6f4`: the dwords of the A (`i` = 0, format CBSZ) or B
    /// (`i` = 1, format BLGP) operand, which depend on the format: 8 for fp8/bf8 (0, 1) and the
    /// undefined 5–7, 6 for fp6/bf6 (2, 3), 4 for fp4 (4). `None` for other opcodes/sources.
    pub fn f8f6f4_src_dwords(&self, i: usize) -> Option<u8> {
        if !matches!(
            self.opcode,
            Opcode::V_MFMA_F32_16X16X128_F8F6F4 | Opcode::V_MFMA_F32_32X32X64_F8F6F4
        ) {
            return None;
        }
        let fmt = match i {
            0 => self.mods.neg_hi,
            1 => self.mods.neg,
            _ => return None,
        };
        Some(match fmt {
            2 | 3 => 6,
            4 => 4,
            _ => 8,
        })
    }

    /// Width in dwords of `dst`: the opcode's width, adjusted for MIMG `dmask`/`d16` and `tfe`.
    pub fn dst_dwords(&self) -> u8 {
        let base = match self.ext {
            Ext::Mimg { dmask, .. }
            | Ext::MimgDim { dmask, .. }
            | Ext::Vimage(Vimage { dmask, .. }) => {
                let n = (dmask.count_ones() as u8).max(1);
                if self.has(flags::D16) {
                    n.div_ceil(2)
                } else {
                    n
                }
            }
            _ => self.opcode.info().dst_dwords,
        };
        base + u8::from(self.has(flags::TFE))
    }
}

/// Kind of a decoding failure.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DecodeErrorKind {
    /// The bytes end inside the instruction (or its literal).
    Truncated,
    /// No instruction of this generation has this encoding and opcode number.
    UnknownOpcode,
    /// The opcode exists but a field holds a value it does not accept.
    InvalidOperand,
    /// This crate has no tables for the generation.
    UnsupportedGen,
}

/// Why the word at `offset` did not decode. The disassembler prints it as `.long 0x…`; the
/// emulator turns executing it into an illegal-instruction fault.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("cannot decode word {word:#010x} at offset {offset:#x}: {kind:?}")]
pub struct DecodeError {
    /// Byte offset of the word.
    pub offset: usize,
    /// The first word; where fewer than 4 bytes remain, those bytes zero-padded (0 in the
    /// error [`crate::decode_all`] gives for trailing bytes).
    pub word: u32,
    /// What went wrong.
    pub kind: DecodeErrorKind,
}

/// Per-opcode properties (generation-independent), from [`Opcode::info`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpInfo {
    /// Width in dwords of the destination (data for memory loads). Lane-mask operands (a
    /// compare's SGPR destination, carry-out/in) are given at their wave64 width (2); in wave32
    /// they are [`Gen::lane_mask_dwords`] wide.
    pub dst_dwords: u8,
    /// Widths in dwords of the sources `src[0..3]` (memory: address, data, third slot).
    pub src_dwords: [u8; 3],
    /// Bits from [`op_flags`].
    pub flags: u16,
}

/// Bits of [`OpInfo::flags`].
pub mod op_flags {
    /// Reads memory.
    pub const LOAD: u16 = 1 << 0;
    /// Writes memory.
    pub const STORE: u16 = 1 << 1;
    /// Atomic read-modify-write.
    pub const ATOMIC: u16 = 1 << 2;
    /// Returns a value (atomics with `glc`/`_rtn`).
    pub const RETURNS: u16 = 1 << 3;
    /// Changes the program counter (branches, calls, `s_setpc`).
    pub const BRANCH: u16 = 1 << 4;
    /// Floating-point operation (source modifiers are neg/abs).
    pub const FLOAT: u16 = 1 << 5;
    /// 16-bit operands.
    pub const B16: u16 = 1 << 6;
    /// Packed 2×16-bit operands.
    pub const PACKED: u16 = 1 << 7;
    /// Writes VCC or an SGPR pair as a per-lane mask (compares, carry-out).
    pub const WRITES_MASK: u16 = 1 << 8;
    /// `dst` is a lane mask (compares: `vcc`/`vcc_lo` or SGPRs), [`Gen::lane_mask_dwords`] wide.
    pub const MASK_DST: u16 = 1 << 9;
    /// `sdst` is a lane mask (carry-out of `v_add_co_u32`…, `v_div_scale_*`'s `vcc`).
    pub const MASK_SDST: u16 = 1 << 10;
    /// `src[2]` is a lane mask (carry-in of `v_addc_co_u32`/`v_add_co_ci_u32`…, the mask of
    /// `v_cndmask_b32`).
    pub const MASK_SRC2: u16 = 1 << 11;
}

impl Opcode {
    /// The LLVM mnemonic (lower case, without `_e32`/`_e64`); GFX8 prints some of these
    /// differently (`v_add_u32` for `V_ADD_CO_U32`), which [`crate::format`] handles.
    pub fn mnemonic(self) -> &'static str {
        crate::opcode::MNEMONICS
            .get(self as usize)
            .copied()
            .unwrap_or("<unknown>")
    }

    /// Every opcode, `Unknown` first.
    pub fn all() -> &'static [Opcode] {
        &crate::opcode::ALL
    }
}
