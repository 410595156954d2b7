//! Decoding tables: per generation and encoding family, what each opcode number is.
//!
//! The tables themselves are generated (`generated.rs`, by `crates/isa/gen/gen_tables.py` from
//! llvm-objdump-15's output); this module defines their row types and the lookups. Adding a
//! generation means one more set of tables, one more row of [`TABLES`] and one more arm in
//! [`gen_row`] (GFX10 added that way; GFX11 would be the next).

use crate::inst::{op_flags, Encoding, Gen, OpInfo};
use crate::opcode::Opcode;
use std::sync::OnceLock;

#[allow(clippy::all)]
mod generated;
#[allow(clippy::all)]
mod generated_gfx12;
mod generated_llvm22;
#[allow(clippy::all)]
mod generated_rdna;
pub(crate) mod semantics;

pub(crate) use generated::{GFX10_MIMG_VADDR, GFX10_MTBUF_FORMATS};
pub(crate) use generated_gfx12::{GFX12_MIMG_BVH, GFX12_MIMG_FIRST, GFX12_MIMG_VADDR};
pub(crate) use generated_rdna::GFX11_MTBUF_FORMATS;

/// An instruction field an operand is read from (names from the ISA manuals).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum F {
    /// VALU `vdst` (VOPC in VOP3: the SGPR-pair destination).
    Vdst,
    /// SALU `sdst`.
    Sdst,
    /// VOP3b carry-out `sdst`.
    Sdst3,
    /// `src0` (SALU `ssrc0`).
    Src0,
    /// `src1` (SALU `ssrc1`).
    Src1,
    /// `src2`.
    Src2,
    /// VOP2/VOPC `vsrc1`.
    Vsrc1,
    /// SOPK `simm16`.
    Simm16,
    /// SMEM `sdata`.
    Sdata,
    /// SMEM `sdata` printed as a number (`s_atc_probe`).
    SdataImm,
    /// SMEM `sbase`.
    Sbase,
    /// SMEM offset (immediate or SGPR).
    SmOffset,
    /// DS/FLAT `addr`.
    Addr,
    /// DS `data0`.
    Data0,
    /// DS `data1`.
    Data1,
    /// FLAT `data`.
    Data,
    /// GLOBAL/SCRATCH `saddr`.
    Saddr,
    /// MUBUF/MTBUF/MIMG `vdata`.
    Vdata,
    /// MUBUF/MTBUF/MIMG `vaddr`.
    Vaddr,
    /// Buffer/image resource.
    Srsrc,
    /// Buffer `soffset`.
    Soffset,
    /// MIMG sampler.
    Ssamp,
    /// VOP2 `v_madmk`/`v_madak` literal.
    Lit,
    /// The implicit `vcc` printed by VOP2 carry ops and VOPC.
    Vcc,
    /// `off` (no SGPR address).
    Off,
    /// SOPC `ssrc1` printed as a number (`s_set_gpr_idx_on`).
    Ssrc1Imm,
    /// SOPK `hwreg(...)`.
    Hwreg,
    /// GFX11 `s_sendmsg_rtn_*`: `ssrc0` printed as `sendmsg(...)`.
    Sendmsg,
    /// GFX11 LDSDIR `attr` and `attrchan`, printed `attr2.y` (`lds_param_load`).
    Attr,
}

/// One printed operand: the field it comes from, its register class (`v`, `s`, `a`, or 0
/// for a fixed token), its width in dwords, and whether it is a lane mask whose width follows
/// the wave size (GFX10 tables; `width` is then the wave32 width).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub field: F,
    pub class: u8,
    pub width: u8,
    pub mask: bool,
}

impl Slot {
    pub(crate) const fn reg(field: F, class: u8, width: u8) -> Slot {
        Slot {
            field,
            class,
            width,
            mask: false,
        }
    }
    /// A lane-mask operand (one SGPR in wave32, a pair in wave64).
    pub(crate) const fn mask(field: F, class: u8, width: u8) -> Slot {
        Slot {
            field,
            class,
            width,
            mask: true,
        }
    }
    pub(crate) const fn fixed(field: F) -> Slot {
        Slot {
            field,
            class: 0,
            width: 1,
            mask: false,
        }
    }
    /// The width in dwords on `gen` (lane masks follow the wave size).
    #[inline(always)]
    pub(crate) fn width_on(&self, gen: Gen) -> u8 {
        if self.mask {
            gen.lane_mask_dwords()
        } else {
            self.width
        }
    }
}

/// Where a printed slot's operand lives in an [`crate::Inst`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Dst,
    Sdst,
    Src(u8),
    Nowhere,
}

/// Places of an entry's slots: the destination first, a second `vcc` or a VOP3b `sdst` in
/// `sdst`, the remaining sources in printed order (memory families by field). Evaluated at
/// compile time for every table row ([`Entry::new`]).
pub(crate) const fn compute_places(fam: Fam, slots: &[Slot]) -> [Place; 8] {
    let mut out = [Place::Nowhere; 8];
    let mut next_src = 0u8;
    let mut i = 0;
    while i < slots.len() && i < 8 {
        out[i] = match (fam, slots[i].field) {
            (_, F::Vdst | F::Sdst) if i == 0 => Place::Dst,
            (Fam::Vopc, F::Vcc) if i == 0 => Place::Dst,
            (_, F::Vcc) if i == 1 => Place::Sdst,
            (_, F::Sdst3) => Place::Sdst,
            (Fam::Smem, F::Sdata) => Place::Dst,
            (Fam::Smem, F::Sbase) => Place::Src(0),
            (Fam::Smem, F::SmOffset) => Place::Src(2),
            (_, F::Addr | F::Vaddr) => Place::Src(0),
            (_, F::Data0 | F::Data) => Place::Src(1),
            (_, F::Data1 | F::Saddr | F::Srsrc) => Place::Src(2),
            (_, F::Vdata) => Place::Dst,
            (_, F::Soffset | F::Ssamp) => Place::Sdst,
            (_, F::Off | F::SdataImm | F::Hwreg | F::Simm16 | F::Ssrc1Imm | F::Attr) => {
                Place::Nowhere
            }
            (_, F::Sendmsg) => Place::Src(0),
            _ => {
                let p = Place::Src(if next_src > 2 { 2 } else { next_src });
                next_src += 1;
                p
            }
        };
        i += 1;
    }
    out
}

/// One opcode of one family of one generation.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    pub opcode: Opcode,
    /// Printed mnemonic, exactly as LLVM prints the probed form (`v_add_f32_e32`, `v_add_f32_e64`).
    pub name: &'static str,
    /// VALU operand properties from [`mods`] (generated from probes).
    pub mods: u32,
    /// Operands in printed order.
    pub slots: &'static [Slot],
    /// Where each slot's operand goes in an `Inst` (from [`compute_places`]).
    pub places: [Place; 8],
    /// For VOP1/VOP2/VOPC rows the decoder handles on a fast path (see [`vop_fast`]): which
    /// operands the row has, plus `src0`'s width in dwords in bits 6–7; 0 for every other row.
    pub vop_fast: u8,
    /// A VOP3 row shaped `vdst, src0[, src1[, src2]]` (VGPR or SGPR `vdst`, no carry-out, no
    /// VGPR-only source) that the decoder handles on a fast path.
    pub vop3_plain: bool,
    /// A GFX10 VOP3 row whose operands are only `vdst` (VGPR or SGPR), a carry-out `sdst` and
    /// `src0`–`src2` in their own places (lane masks and literals allowed), handled on the GFX10
    /// VOP3 fast path.
    pub vop3_rdna: bool,
    /// A SALU row the decoder handles on a fast path: [`SALU_IMM16`] (SOPP: only the 16-bit
    /// immediate), [`SALU_DST_SRC0`] or [`SALU_DST_SRC0_SRC1`] (SOP1/SOP2 `sdst, ssrc0[,
    /// ssrc1]`); 0 for every other row.
    pub salu_plain: u8,
}

/// [`Entry::salu_plain`]: a SOPP row whose only operand is `simm16`.
pub(crate) const SALU_IMM16: u8 = 1;
/// [`Entry::salu_plain`]: a SOP1 row `sdst, ssrc0`.
pub(crate) const SALU_DST_SRC0: u8 = 2;
/// [`Entry::salu_plain`]: a SOP2 row `sdst, ssrc0, ssrc1`.
pub(crate) const SALU_DST_SRC0_SRC1: u8 = 3;

/// The [`Entry::salu_plain`] kind of a row.
const fn salu_plain_kind(fam: Fam, slots: &[Slot]) -> u8 {
    match (fam, slots) {
        (Fam::Sopp, _) => {
            let mut i = 0;
            while i < slots.len() {
                if matches!(slots[i].field, F::Sdst | F::Src0 | F::Src1) {
                    return 0;
                }
                i += 1;
            }
            SALU_IMM16
        }
        (Fam::Sop1, [d, a]) if sreg(d, F::Sdst) && sreg(a, F::Src0) => SALU_DST_SRC0,
        (Fam::Sop2, [d, a, b]) if sreg(d, F::Sdst) && sreg(a, F::Src0) && sreg(b, F::Src1) => {
            SALU_DST_SRC0_SRC1
        }
        _ => 0,
    }
}

/// Whether a row has a lane-mask operand (its width depends on the wave size: general path).
const fn has_mask(slots: &[Slot]) -> bool {
    let mut i = 0;
    while i < slots.len() {
        if slots[i].mask {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `s` is an SGPR-class operand read from `field`.
const fn sreg(s: &Slot, field: F) -> bool {
    s.class == b's' && s.field as u8 == field as u8
}

/// Bits of [`Entry::vop_fast`]: the operands of a short VOP row whose slots are only a VGPR
/// `vdst`, a VGPR-class `src0`, `vsrc1` and implicit `vcc` (no literal, no VGPR-only source).
/// `src0` always goes to `src[0]`.
pub(crate) mod vop_fast {
    /// The row takes the fast path.
    pub const FAST: u8 = 1;
    /// `dst` is the VGPR in `vdst`.
    pub const DST_VGPR: u8 = 1 << 1;
    /// `dst` is `vcc` (VOPC).
    pub const DST_VCC: u8 = 1 << 2;
    /// `sdst` is `vcc` (carry-out of `v_add_u32`-like VOP2).
    pub const SDST_VCC: u8 = 1 << 3;
    /// `src[1]` is the VGPR in `vsrc1`.
    pub const SRC1_VGPR: u8 = 1 << 4;
    /// `src[2]` is `vcc` (carry-in, `v_cndmask_b32`).
    pub const SRC2_VCC: u8 = 1 << 5;
    /// `src0`'s width in dwords: `vop_fast >> WIDTH_SHIFT`.
    pub const WIDTH_SHIFT: u32 = 6;
}

/// The [`Entry::vop_fast`] bits of a row (0 where the row needs the general decoder path).
const fn vop_fast_bits(fam: Fam, mods: u32, slots: &[Slot], places: &[Place; 8]) -> u8 {
    use vop_fast::*;
    if !matches!(fam, Fam::Vop1 | Fam::Vop2 | Fam::Vopc) || mods & (mods::VGPR_ONLY * 7) != 0 {
        return 0;
    }
    if slots.len() > 8 || has_mask(slots) {
        return 0;
    }
    let mut bits = FAST;
    let mut src0_width = 0;
    let mut i = 0;
    while i < slots.len() {
        let s = slots[i];
        let bit = match (s.field, places[i]) {
            (F::Vdst, Place::Dst) if s.class == b'v' => DST_VGPR,
            (F::Src0, Place::Src(0)) if s.class == b'v' && src0_width == 0 => {
                src0_width = s.width;
                0
            }
            (F::Vsrc1, Place::Src(1)) => SRC1_VGPR,
            (F::Vcc, Place::Dst) => DST_VCC,
            (F::Vcc, Place::Sdst) => SDST_VCC,
            (F::Vcc, Place::Src(2)) => SRC2_VCC,
            _ => return 0,
        };
        if bits & bit != 0 {
            return 0;
        }
        bits |= bit;
        i += 1;
    }
    if src0_width == 0 || src0_width > 3 {
        return 0;
    }
    bits | (src0_width << WIDTH_SHIFT)
}

/// Whether a row has the [`Entry::vop3_rdna`] shape.
const fn is_vop3_rdna(fam: Fam, mods: u32, slots: &[Slot], places: &[Place; 8]) -> bool {
    if !matches!(fam, Fam::Vop3) || mods & (mods::VGPR_ONLY * 7) != 0 || slots.len() > 5 {
        return false;
    }
    let mut i = 0;
    while i < slots.len() {
        let s = slots[i];
        let ok = match (s.field, places[i]) {
            (F::Vdst, Place::Dst) => matches!(s.class, b'v' | b's'),
            (F::Sdst3, Place::Sdst) => true,
            (F::Src0, Place::Src(0)) | (F::Src1, Place::Src(1)) | (F::Src2, Place::Src(2)) => {
                s.class != b'a'
            }
            _ => false,
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a row is a plain VOP3 shape (see [`Entry::vop3_plain`]).
const fn is_vop3_plain(fam: Fam, mods: u32, slots: &[Slot], places: &[Place; 8]) -> bool {
    if !matches!(fam, Fam::Vop3) || mods & (mods::VGPR_ONLY * 7) != 0 {
        return false;
    }
    if slots.len() < 2 || slots.len() > 4 || has_mask(slots) {
        return false;
    }
    if !matches!(slots[0].field, F::Vdst)
        || !matches!(places[0], Place::Dst)
        || !matches!(slots[0].class, b'v' | b's')
    {
        return false;
    }
    let mut k = 0;
    while k + 1 < slots.len() {
        let s = slots[k + 1];
        let in_order = matches!((s.field, k), (F::Src0, 0) | (F::Src1, 1) | (F::Src2, 2));
        let placed = matches!(places[k + 1], Place::Src(i) if i as usize == k);
        if !in_order || !placed || s.class == b'a' {
            return false;
        }
        k += 1;
    }
    true
}

impl Entry {
    /// A table row; the operand places are computed at compile time.
    pub(crate) const fn new(
        opcode: Opcode,
        name: &'static str,
        mods: u32,
        fam: Fam,
        slots: &'static [Slot],
    ) -> Entry {
        let places = compute_places(fam, slots);
        Entry {
            opcode,
            name,
            mods,
            slots,
            places,
            vop_fast: vop_fast_bits(fam, mods, slots, &places),
            vop3_plain: is_vop3_plain(fam, mods, slots, &places),
            vop3_rdna: is_vop3_rdna(fam, mods, slots, &places),
            salu_plain: salu_plain_kind(fam, slots),
        }
    }
}

/// Bits of [`Entry::mods`].
pub(crate) mod mods {
    /// Source `i` takes neg/abs modifiers: `SRC_MODS << i` (bits 0–2).
    #[allow(dead_code)]
    pub const SRC_MODS: u32 = 1;
    /// `clamp` exists.
    pub const CLAMP: u32 = 1 << 3;
    /// `omod` (`mul:2`, `div:2`) exists.
    pub const OMOD: u32 = 1 << 4;
    /// `op_sel` exists.
    pub const OP_SEL: u32 = 1 << 5;
    /// Source `i` is a VGPR-only field (values below 256 still name VGPRs): `VGPR_ONLY << i`.
    pub const VGPR_ONLY: u32 = 1 << 8;
    /// Source `i` is an integer whose neg bit means sign-extend (`sext(…)`): `SEXT << i`.
    pub const SEXT: u32 = 1 << 12;
    /// Constant kind of source `i`: `(mods >> (KIND_SHIFT + 2 * i)) & 3` (0 32-bit, 1 64-bit,
    /// 2 16-bit float, 3 16-bit integer).
    pub const KIND_SHIFT: u32 = 16;
    /// DPP: source `i` (0, 1) takes neg/abs: `DPP_MODS << i`.
    pub const DPP_MODS: u32 = 1 << 24;
    /// DPP: source `i`'s neg bit means `sext(…)`: `DPP_SEXT << i`.
    pub const DPP_SEXT: u32 = 1 << 26;
    /// SDWA: source `i` takes neg/abs: `SDWA_MODS << i`.
    pub const SDWA_MODS: u32 = 1 << 28;
    /// SDWA: source `i` takes `sext(…)`: `SDWA_SEXT << i`.
    pub const SDWA_SEXT: u32 = 1 << 30;
    /// SOPP rows: the immediate prints in hex even when small (`s_clause 0x1`).
    pub const SOPP_HEX: u32 = 1;
    /// GFX10 VOP3P packed 16-bit sources: a literal above 0xffff prints as a 32-bit value.
    pub const PACKED_LIT: u32 = 1 << 6;
}

/// Encoding families with a table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fam {
    Sop2,
    Sopk,
    Sop1,
    Sopc,
    Sopp,
    Smem,
    Vop2,
    Vop1,
    Vopc,
    Vop3,
    Vop3p,
    Ds,
    Flat,
    Scratch,
    Global,
    Mubuf,
    Mtbuf,
    Mimg,
    /// GFX11 VOPD, X half (opcode bits 25:22).
    VopdX,
    /// GFX11 VOPD, Y half (opcode bits 21:17).
    VopdY,
    /// GFX11 LDSDIR, GFX12 VDSDIR (`0xce` in bits 31:24; opcode bits 21:20). Graphics:
    /// decoded, not executed.
    Ldsdir,
    /// GFX11 VINTERP (`0xcd` in bits 31:24; opcode bits 22:16). Graphics: decoded, not executed.
    Vinterp,
    /// GFX11 EXP, GFX12 EXPORT (`0x3e` in bits 31:26; one operation). Graphics: decoded, not
    /// executed.
    Exp,
}

/// How many encoding families there are.
pub(crate) const FAM_COUNT: usize = 23;

/// Every encoding family, in declaration order.
pub(crate) const ALL_FAMS: [Fam; FAM_COUNT] = [
    Fam::Sop2,
    Fam::Sopk,
    Fam::Sop1,
    Fam::Sopc,
    Fam::Sopp,
    Fam::Smem,
    Fam::Vop2,
    Fam::Vop1,
    Fam::Vopc,
    Fam::Vop3,
    Fam::Vop3p,
    Fam::Ds,
    Fam::Flat,
    Fam::Scratch,
    Fam::Global,
    Fam::Mubuf,
    Fam::Mtbuf,
    Fam::Mimg,
    Fam::VopdX,
    Fam::VopdY,
    Fam::Ldsdir,
    Fam::Vinterp,
    Fam::Exp,
];

/// The GFX10.3 tables by family, shared by both wave sizes.
const GFX10_FAMILIES: [&[Option<Entry>]; FAM_COUNT] = {
    use generated::*;
    [
        &GFX10_SOP2,
        &GFX10_SOPK,
        &GFX10_SOP1,
        &GFX10_SOPC,
        &GFX10_SOPP,
        &GFX10_SMEM,
        &GFX10_VOP2,
        &GFX10_VOP1,
        &GFX10_VOPC,
        &GFX10_VOP3,
        &GFX10_VOP3P,
        &GFX10_DS,
        &GFX10_FLAT,
        &GFX10_SCRATCH,
        &GFX10_GLOBAL,
        &GFX10_MUBUF,
        &GFX10_MTBUF,
        &GFX10_MIMG,
        &[],
        &[],
        &[],
        &[],
        &[],
    ]
};

/// The GFX11 tables by family (gfx1100 and gfx1151, union), shared by both wave sizes.
const GFX11_FAMILIES: [&[Option<Entry>]; FAM_COUNT] = {
    use generated_rdna::*;
    [
        &GFX11_SOP2,
        &GFX11_SOPK,
        &GFX11_SOP1,
        &GFX11_SOPC,
        &GFX11_SOPP,
        &GFX11_SMEM,
        &GFX11_VOP2,
        &GFX11_VOP1,
        &GFX11_VOPC,
        &GFX11_VOP3,
        &GFX11_VOP3P,
        &GFX11_DS,
        &GFX11_FLAT,
        &GFX11_SCRATCH,
        &GFX11_GLOBAL,
        &GFX11_MUBUF,
        &GFX11_MTBUF,
        &GFX11_MIMG,
        &GFX11_VOPDX,
        &GFX11_VOPDY,
        &GFX11_LDSDIR,
        &GFX11_VINTERP,
        &GFX11_EXP,
    ]
};

/// The GFX12 tables by family (gfx1200 and gfx1201), shared by both wave sizes. `Mimg` holds
/// VIMAGE and VSAMPLE (one opcode space).
const GFX12_FAMILIES: [&[Option<Entry>]; FAM_COUNT] = {
    use generated_gfx12::*;
    [
        &GFX12_SOP2,
        &GFX12_SOPK,
        &GFX12_SOP1,
        &GFX12_SOPC,
        &GFX12_SOPP,
        &GFX12_SMEM,
        &GFX12_VOP2,
        &GFX12_VOP1,
        &GFX12_VOPC,
        &GFX12_VOP3,
        &GFX12_VOP3P,
        &GFX12_DS,
        &GFX12_FLAT,
        &GFX12_SCRATCH,
        &GFX12_GLOBAL,
        &GFX12_MUBUF,
        &GFX12_MTBUF,
        &GFX12_MIMG,
        &GFX12_VOPDX,
        &GFX12_VOPDY,
        &GFX12_LDSDIR,
        &GFX12_VINTERP,
        &GFX12_EXP,
    ]
};

/// Every family's table for each generation, in [`Fam`] order (indexed by `fam as usize`),
/// the generations in `Gen as usize` order (indexed directly: no match in the hot path).
/// `Gfx10W64` shares `Gfx10`'s tables, `Gfx11W64` `Gfx11`'s, `Gfx12W64` `Gfx12`'s.
static TABLES: [[&[Option<Entry>]; FAM_COUNT]; 13] = {
    use generated::*;
    [
        // Gfx8
        [
            &GFX8_SOP2,
            &GFX8_SOPK,
            &GFX8_SOP1,
            &GFX8_SOPC,
            &GFX8_SOPP,
            &GFX8_SMEM,
            &GFX8_VOP2,
            &GFX8_VOP1,
            &GFX8_VOPC,
            &GFX8_VOP3,
            &GFX8_VOP3P,
            &GFX8_DS,
            &GFX8_FLAT,
            &GFX8_SCRATCH,
            &GFX8_GLOBAL,
            &GFX8_MUBUF,
            &GFX8_MTBUF,
            &GFX8_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx9
        [
            &GFX9_SOP2,
            &GFX9_SOPK,
            &GFX9_SOP1,
            &GFX9_SOPC,
            &GFX9_SOPP,
            &GFX9_SMEM,
            &GFX9_VOP2,
            &GFX9_VOP1,
            &GFX9_VOPC,
            &GFX9_VOP3,
            &GFX9_VOP3P,
            &GFX9_DS,
            &GFX9_FLAT,
            &GFX9_SCRATCH,
            &GFX9_GLOBAL,
            &GFX9_MUBUF,
            &GFX9_MTBUF,
            &GFX9_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx90a
        [
            &GFX90A_SOP2,
            &GFX90A_SOPK,
            &GFX90A_SOP1,
            &GFX90A_SOPC,
            &GFX90A_SOPP,
            &GFX90A_SMEM,
            &GFX90A_VOP2,
            &GFX90A_VOP1,
            &GFX90A_VOPC,
            &GFX90A_VOP3,
            &GFX90A_VOP3P,
            &GFX90A_DS,
            &GFX90A_FLAT,
            &GFX90A_SCRATCH,
            &GFX90A_GLOBAL,
            &GFX90A_MUBUF,
            &GFX90A_MTBUF,
            &GFX90A_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx900
        [
            &GFX900_SOP2,
            &GFX900_SOPK,
            &GFX900_SOP1,
            &GFX900_SOPC,
            &GFX900_SOPP,
            &GFX900_SMEM,
            &GFX900_VOP2,
            &GFX900_VOP1,
            &GFX900_VOPC,
            &GFX900_VOP3,
            &GFX900_VOP3P,
            &GFX900_DS,
            &GFX900_FLAT,
            &GFX900_SCRATCH,
            &GFX900_GLOBAL,
            &GFX900_MUBUF,
            &GFX900_MTBUF,
            &GFX900_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx940
        [
            &GFX940_SOP2,
            &GFX940_SOPK,
            &GFX940_SOP1,
            &GFX940_SOPC,
            &GFX940_SOPP,
            &GFX940_SMEM,
            &GFX940_VOP2,
            &GFX940_VOP1,
            &GFX940_VOPC,
            &GFX940_VOP3,
            &GFX940_VOP3P,
            &GFX940_DS,
            &GFX940_FLAT,
            &GFX940_SCRATCH,
            &GFX940_GLOBAL,
            &GFX940_MUBUF,
            &GFX940_MTBUF,
            &GFX940_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx10 (wave32)
        GFX10_FAMILIES,
        // Gfx11 (wave32; LLVM 22)
        GFX11_FAMILIES,
        // Gfx10W64 (the same tables)
        GFX10_FAMILIES,
        // Gfx942 (LLVM 22)
        [
            &generated_llvm22::GFX942_SOP2,
            &generated_llvm22::GFX942_SOPK,
            &generated_llvm22::GFX942_SOP1,
            &generated_llvm22::GFX942_SOPC,
            &generated_llvm22::GFX942_SOPP,
            &generated_llvm22::GFX942_SMEM,
            &generated_llvm22::GFX942_VOP2,
            &generated_llvm22::GFX942_VOP1,
            &generated_llvm22::GFX942_VOPC,
            &generated_llvm22::GFX942_VOP3,
            &generated_llvm22::GFX942_VOP3P,
            &generated_llvm22::GFX942_DS,
            &generated_llvm22::GFX942_FLAT,
            &generated_llvm22::GFX942_SCRATCH,
            &generated_llvm22::GFX942_GLOBAL,
            &generated_llvm22::GFX942_MUBUF,
            &generated_llvm22::GFX942_MTBUF,
            &generated_llvm22::GFX942_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx950 (LLVM 22)
        [
            &generated_llvm22::GFX950_SOP2,
            &generated_llvm22::GFX950_SOPK,
            &generated_llvm22::GFX950_SOP1,
            &generated_llvm22::GFX950_SOPC,
            &generated_llvm22::GFX950_SOPP,
            &generated_llvm22::GFX950_SMEM,
            &generated_llvm22::GFX950_VOP2,
            &generated_llvm22::GFX950_VOP1,
            &generated_llvm22::GFX950_VOPC,
            &generated_llvm22::GFX950_VOP3,
            &generated_llvm22::GFX950_VOP3P,
            &generated_llvm22::GFX950_DS,
            &generated_llvm22::GFX950_FLAT,
            &generated_llvm22::GFX950_SCRATCH,
            &generated_llvm22::GFX950_GLOBAL,
            &generated_llvm22::GFX950_MUBUF,
            &generated_llvm22::GFX950_MTBUF,
            &generated_llvm22::GFX950_MIMG,
            &[],
            &[],
            &[],
            &[],
            &[],
        ],
        // Gfx11W64 (the same tables)
        GFX11_FAMILIES,
        // Gfx12 (wave32; LLVM 22)
        GFX12_FAMILIES,
        // Gfx12W64 (the same tables)
        GFX12_FAMILIES,
    ]
};

/// The table for a family on a generation (`None`: no tables for the generation).
#[inline]
pub(crate) fn table(gen: Gen, fam: Fam) -> Option<&'static [Option<Entry>]> {
    let t = TABLES[gen as usize][fam as usize];
    (!t.is_empty()).then_some(t)
}

/// Every entry of every family of `gen`.
pub(crate) fn all_entries(gen: Gen) -> Vec<(crate::Encoding, u32, Opcode, &'static str)> {
    let mut v = Vec::new();
    for fam in ALL_FAMS {
        for (op, e) in table(gen, fam).unwrap_or(&[]).iter().enumerate() {
            if let Some(e) = e {
                v.push((encoding_of(fam), op as u32, e.opcode, e.name));
            }
        }
    }
    v
}

/// The VOPD-Y row of an opcode on a GFX11 generation (either wave size).
pub(crate) fn vopd_y_entry(gen: Gen, op: Opcode) -> Option<&'static Entry> {
    table(gen, Fam::VopdY)?
        .iter()
        .flatten()
        .find(|e| e.opcode == op)
}

/// The entry for opcode number `op` of `fam` on `gen`.
#[inline]
pub(crate) fn lookup(gen: Gen, fam: Fam, op: u32) -> Option<&'static Entry> {
    TABLES[gen as usize][fam as usize]
        .get(op as usize)?
        .as_ref()
}

// The rows of `TABLES` follow `Gen`'s declaration order.
const _: () = assert!(
    Gen::Gfx8 as usize == 0
        && Gen::Gfx9 as usize == 1
        && Gen::Gfx90a as usize == 2
        && Gen::Gfx900 as usize == 3
        && Gen::Gfx940 as usize == 4
        && Gen::Gfx10 as usize == 5
        && Gen::Gfx11 as usize == 6
        && Gen::Gfx10W64 as usize == 7
        && Gen::Gfx942 as usize == 8
        && Gen::Gfx950 as usize == 9
        && Gen::Gfx11W64 as usize == 10
        && Gen::Gfx12 as usize == 11
        && Gen::Gfx12W64 as usize == 12
);

/// Static per-opcode properties, built once from the width table and the mnemonics.
/// The encoding of a table family.
pub(crate) fn encoding_of(fam: Fam) -> Encoding {
    match fam {
        Fam::Sop2 => Encoding::Sop2,
        Fam::Sopk => Encoding::Sopk,
        Fam::Sop1 => Encoding::Sop1,
        Fam::Sopc => Encoding::Sopc,
        Fam::Sopp => Encoding::Sopp,
        Fam::Smem => Encoding::Smem,
        Fam::Vop2 => Encoding::Vop2,
        Fam::Vop1 => Encoding::Vop1,
        Fam::Vopc => Encoding::Vopc,
        Fam::Vop3 => Encoding::Vop3,
        Fam::Vop3p => Encoding::Vop3p,
        Fam::Ds => Encoding::Ds,
        Fam::Flat => Encoding::Flat,
        Fam::Scratch => Encoding::Scratch,
        Fam::Global => Encoding::Global,
        Fam::Mubuf => Encoding::Mubuf,
        Fam::Mtbuf => Encoding::Mtbuf,
        Fam::Mimg => Encoding::Mimg,
        Fam::VopdX | Fam::VopdY => Encoding::Vopd,
        Fam::Ldsdir => Encoding::Ldsdir,
        Fam::Vinterp => Encoding::Vinterp,
        Fam::Exp => Encoding::Exp,
    }
}

impl Opcode {
    /// Static properties of this opcode.
    pub fn info(self) -> &'static OpInfo {
        op_info(self)
    }
}

pub(crate) fn op_info(op: Opcode) -> &'static OpInfo {
    static INFO: OnceLock<Vec<OpInfo>> = OnceLock::new();
    static DEFAULT: OpInfo = OpInfo {
        dst_dwords: 1,
        src_dwords: [1, 1, 1],
        flags: 0,
    };
    let info = INFO.get_or_init(build_info);
    info.get(op as usize).unwrap_or(&DEFAULT)
}

fn build_info() -> Vec<OpInfo> {
    let all = Opcode::all();
    let mut v: Vec<OpInfo> = all
        .iter()
        .map(|&op| OpInfo {
            dst_dwords: 1,
            src_dwords: [1, 1, 1],
            flags: name_flags(op.mnemonic()),
        })
        .collect();
    for &(op, widths) in generated::WIDTHS
        .iter()
        .chain(generated_llvm22::WIDTHS_LLVM22)
        .chain(generated_rdna::WIDTHS_RDNA)
        .chain(generated_gfx12::WIDTHS_GFX12)
    {
        let Some(info) = v.get_mut(op as usize) else {
            continue;
        };
        for &(field, w) in widths {
            match field {
                F::Vdst | F::Sdst | F::Sdata => info.dst_dwords = w,
                F::Vdata => {
                    info.dst_dwords = w;
                    info.src_dwords[1] = w;
                }
                F::Src0 | F::Addr | F::Vaddr | F::Sbase => info.src_dwords[0] = w,
                F::Src1 | F::Vsrc1 | F::Data0 | F::Data => info.src_dwords[1] = w,
                F::Src2 | F::Data1 | F::Saddr | F::Srsrc => info.src_dwords[2] = w,
                _ => {}
            }
        }
        if matches!(op.mnemonic().as_bytes().first(), Some(b's')) {
            // SMEM stores read sdata.
            if info.flags & op_flags::STORE != 0 {
                info.src_dwords[1] = info.dst_dwords;
            }
        }
    }
    // Lane-mask operands, from every table row of every generation: the implicit `vcc`, the
    // VOP3b carry-out, and GFX10's slots whose width follows the wave size.
    for row in &TABLES {
        for fam_table in row {
            for e in fam_table.iter().flatten() {
                let Some(info) = v.get_mut(e.opcode as usize) else {
                    continue;
                };
                for (s, place) in e.slots.iter().zip(e.places) {
                    if !(s.mask || matches!(s.field, F::Vcc | F::Sdst3)) {
                        continue;
                    }
                    info.flags |= match place {
                        Place::Dst => op_flags::MASK_DST,
                        Place::Sdst => op_flags::MASK_SDST,
                        Place::Src(2) => op_flags::MASK_SRC2,
                        _ => 0,
                    };
                }
            }
        }
    }
    v
}

/// Properties that follow from the mnemonic's spelling.
fn name_flags(name: &str) -> u16 {
    let mut f = 0;
    let mem = [
        "buffer_",
        "tbuffer_",
        "global_",
        "flat_",
        "scratch_",
        "ds_",
        "s_load",
        "s_buffer_",
        "s_store",
        "s_scratch_",
        "s_atomic",
        "image_",
    ]
    .iter()
    .any(|p| name.starts_with(p));
    if mem {
        if name.contains("atomic")
            || name.starts_with("ds_")
                && !name.contains("read")
                && !name.contains("write")
                && !name.contains("load")
                && !name.contains("store")
        {
            f |= op_flags::ATOMIC | op_flags::LOAD | op_flags::STORE;
            if name.contains("_rtn") {
                f |= op_flags::RETURNS;
            }
        } else if name.contains("load") || name.contains("read") {
            f |= op_flags::LOAD;
        } else if name.contains("store") || name.contains("write") {
            f |= op_flags::STORE;
        }
    }
    if name.starts_with("s_branch")
        || name.starts_with("s_cbranch")
        || name.starts_with("s_setpc")
        || name.starts_with("s_swappc")
        || name.starts_with("s_call")
    {
        f |= op_flags::BRANCH;
    }
    if name.starts_with("v_") {
        if ["_f16", "_f32", "_f64"].iter().any(|s| name.contains(s)) {
            f |= op_flags::FLOAT;
        }
        if name.starts_with("v_pk_") {
            f |= op_flags::PACKED;
        }
        if ["_f16", "_u16", "_i16", "_b16"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            f |= op_flags::B16;
        }
        if name.starts_with("v_cmp") || name.contains("_co_") {
            f |= op_flags::WRITES_MASK;
        }
    }
    f
}
