//! Lowering machine code into the emulator's executable form ([`Inst`]), once per instruction
//! (the code region is decoded once and cached, see `gpu.rs`). [`hsaemu_isa::decode`], the
//! project's one table-driven decoder, decides whether the words are an instruction, which
//! opcode and encoding, the operands and modifiers and the size; its table row
//! ([`hsaemu_isa::Opcode::semantics`]) gives the semantic key, memory descriptor, compare and
//! constant types. This module only maps them to the emulator's form:
//!
//! - [`Op`]: the handler, from the generated join `ops::op_of` (no names, no parsing);
//! - operands as one generation-neutral code space read by `Wave`: `0..=127` the scalar file
//!   (s0–s105, FLAT_SCRATCH 102, XNACK_MASK 104, VCC 106, TTMP0–15 at 108 on every generation,
//!   M0 124, EXEC 126), `128..=254` inline constants and special sources, [`LITERAL`],
//!   `VGPR + n`, `AGPR + n`; `null` and absent operands are [`NULL`] (reads 0, writes dropped);
//! - DPP/SDWA/DPP8 controls re-packed in `ext` at their GFX9 machine-word positions.
//!
//! Fault reports print the instruction with [`hsaemu_isa::format`].

use crate::ops::{op_of, Op};
use crate::wave::Ty;
pub(crate) use crate::wave::{AGPR, LITERAL, VGPR};
use hsaemu_isa::semantics::{CmpType, MemKind, SrcType, D16};
pub use hsaemu_isa::Gen;
use hsaemu_isa::{Encoding, Ext, FloatConst, Opcode, Operand};
use std::sync::OnceLock;

/// The generations the emulator executes (of isa's [`Gen`], which codeobject's processor
/// table feeds): GFX8, the GFX9 family with CDNA3 (gfx940/941 with LLVM 15's tables, gfx942
/// with LLVM 22's) and CDNA4 (gfx950), GFX10.3 and GFX11 (RDNA3/RDNA3.5) in both wave sizes:
/// every generation isa decodes.
pub fn emulated(gen: Gen) -> bool {
    gen.is_supported()
}

/// Encoding family of a decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fmt {
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
    Global,
    Scratch,
    Mubuf,
    /// MIMG (image) instructions; `exec::mimg` takes the operation from `op`.
    Mimg,
    /// GFX11 VOPD: the X operation in the usual fields; the Y operation's opcode in `imm`,
    /// its destination in `sdst` and its sources in `ext` (10 bits each), see
    /// [`Inst::vopd_halves`].
    Vopd,
    /// A valid instruction without semantics (`Op::Missing`, `Op::NotForCompute`): executing
    /// it faults with its name (and the reason for a not-for-compute opcode).
    Unimplemented,
    Invalid,
}

/// How a VOP1/VOP2/VOPC instruction was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sub {
    E32,
    Sdwa,
    Dpp,
    /// GFX10 DPP8 (lane selects in `Inst::ext`, see [`DPP8_FI`]).
    Dpp8,
}

/// MUBUF/MTBUF `Inst::ext`: bits 15:0 are the soffset code; an MTBUF instruction sets this
/// bit and its format (GFX9 numbering; GFX10's unified one converted) as data format in bits
/// 23:16 and number format in bits 27:24.
pub(crate) const TYPED_FORMAT: u32 = 1 << 31;

/// MIMG `Inst::imm` bit of a GFX12 VIMAGE/VSAMPLE or GFX11 NSA instruction: its address
/// operands are separate VGPRs, `vaddr0` in `src[0]`, `vaddr1`… in the bytes of `lit`, and
/// `ext` is the index of the last operand (VIMAGE and GFX11 NSA 4, VSAMPLE 3), which holds
/// the remaining address dwords in consecutive VGPRs (LLVM's operand widths).
pub(crate) const VIMAGE_ADDRS: i32 = 1 << 12;

/// Scalar code of VCC (low half).
pub(crate) const VCC: u16 = 106;
/// The operand code of `null` (and of an absent operand): the inline constant 0. Reads give 0;
/// `Wave::swrite`/`swrite64` ignore codes of 128 and above, so writes are dropped.
pub(crate) const NULL: u16 = 128;
/// FLAT/GLOBAL/SCRATCH `saddr` `off` (what `exec::vmem` tests).
const SADDR_OFF: u16 = 0x7f;
/// `Ext::Dpp8` in [`Inst::ext`]: lane `i` of each group of 8 reads `ext >> 3i & 7`; bit 24 is
/// `fi`.
pub(crate) const DPP8_FI: u32 = 1 << 24;

/// Flag bits of [`Inst::flags`].
pub(crate) mod flag {
    pub const GLC: u32 = 1;
    pub const SLC: u32 = 2;
    pub const OFFEN: u32 = 4;
    pub const IDXEN: u32 = 8;
    pub const IMM: u32 = 16;
    pub const SOE: u32 = 32;
    pub const ACC: u32 = 64;
    pub const CLAMP: u32 = 128;
    pub const LDS: u32 = 256;
    pub const GDS: u32 = 512;
    /// MIMG: unnormalized coordinates.
    pub const UNORM: u32 = 1024;
    /// MIMG: an array image (GFX8/GFX9 `da`).
    pub const DA: u32 = 2048;
    /// MIMG: 16-bit addresses (GFX9 `a16`; GFX8's `r128`).
    pub const A16: u32 = 4096;
    pub const TFE: u32 = 8192;
    pub const LWE: u32 = 16384;
    /// MIMG: 16-bit data.
    pub const D16: u32 = 32768;
    /// CDNA3 `sc1` (MUBUF bit 15, FLAT bit 25): a cache-scope hint (see
    /// docs/architecture-emu.md).
    pub const SC1: u32 = 1 << 16;
    /// CDNA3 SCRATCH `sve` with a VGPR address: the VGPR is added to `saddr` when both are
    /// present.
    pub const SVE: u32 = 1 << 17;
}

/// Memory operation kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Kind {
    #[default]
    Other,
    Load,
    Store,
    Atomic,
}

/// Atomic operations: isa's table type, as `exec::vmem` names it.
pub(crate) use hsaemu_isa::semantics::AtomicOp as Atom;

/// What a memory instruction does: isa's table row ([`hsaemu_isa::semantics::MemDesc`]) in the
/// form `exec::vmem` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct MemDesc {
    pub kind: Kind,
    /// Bytes per element (1, 2, 4, 8).
    pub bytes: u8,
    /// Elements (dwords for `dwordxN`, 2 for DS `*2` forms).
    pub count: u8,
    pub sext: bool,
    /// 0: full register; 1: low half (d16); 2: high half (d16_hi).
    pub d16: u8,
    pub atom: Atom,
    /// DS: returns the old value.
    pub rtn: bool,
    /// DS: two addresses (read2/write2), `st64` scaling.
    pub two: bool,
    pub st64: bool,
}

/// The emulator's descriptor for isa's (a memory opcode without one gets `Kind::Other`).
fn mem_desc(m: Option<hsaemu_isa::semantics::MemDesc>) -> MemDesc {
    let Some(m) = m else {
        return MemDesc {
            count: 1,
            bytes: 4,
            ..MemDesc::default()
        };
    };
    MemDesc {
        kind: match m.kind {
            MemKind::Load => Kind::Load,
            MemKind::Store => Kind::Store,
            MemKind::Atomic => Kind::Atomic,
        },
        bytes: m.bytes,
        count: m.count,
        sext: m.signed,
        d16: match m.d16 {
            D16::Full => 0,
            D16::Lo => 1,
            D16::Hi => 2,
        },
        atom: m.atomic,
        rtn: m.returns,
        two: m.two,
        st64: m.st64,
    }
}

/// One pre-decoded instruction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inst {
    pub op: Op,
    pub fmt: Fmt,
    pub sub: Sub,
    /// Size in bytes.
    pub size: u8,
    /// The decoded opcode (for names in reports; the semantics read `op`).
    pub opcode: Opcode,
    /// The first dword.
    pub word: u32,
    /// The second dword (0 for 4-byte instructions); with `word` and `lit`, what fault reports
    /// re-decode to print the instruction.
    pub word1: u32,
    /// The generation it was decoded for.
    pub gen: Gen,
    /// Main destination (SGPR code, VGPR+n, AGPR+n).
    pub dst: u16,
    /// Scalar destination of VOP3b/VOPC (carry out, compare mask).
    pub sdst: u16,
    pub src: [u16; 3],
    pub lit: u32,
    /// simm16, memory offsets, MIMG dmask; for `Op::V_CMP` the compare, packed as
    /// `cond | type << 5 | cmpx << 9` (isa's `CmpCond`/`CmpType` order).
    pub imm: i32,
    /// DS offset1.
    pub offset1: u8,
    pub abs: u8,
    pub neg: u8,
    pub neg_hi: u8,
    pub opsel: u8,
    pub opsel_hi: u8,
    pub omod: u8,
    pub flags: u32,
    /// The DPP/SDWA/DPP8 controls, or the MUBUF/SMEM soffset code.
    pub ext: u32,
    /// How each source's constants are read (isa's table row).
    pub tys: [Ty; 3],
    /// What a memory instruction does (isa's table row).
    pub mem: MemDesc,
}

// A pre-decoded program is an array of these, fetched once per executed instruction: one
// cache line each (60 bytes; 80 while it carried the mnemonic string).
const _: () = assert!(std::mem::size_of::<Inst>() <= 64);

impl Inst {
    /// An undecodable word.
    pub(crate) fn invalid(word: u32) -> Inst {
        Inst {
            op: Op::Missing,
            fmt: Fmt::Invalid,
            sub: Sub::E32,
            size: 4,
            opcode: Opcode::Unknown,
            word,
            word1: 0,
            gen: Gen::Gfx8,
            dst: 0,
            sdst: 0,
            src: [0; 3],
            lit: 0,
            imm: 0,
            offset1: 0,
            abs: 0,
            neg: 0,
            neg_hi: 0,
            opsel: 0,
            opsel_hi: 0,
            omod: 0,
            flags: 0,
            ext: 0,
            tys: [Ty::B32; 3],
            mem: MemDesc::default(),
        }
    }

    pub(crate) fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    /// The mnemonic as LLVM prints it for the generation (without encoding suffix).
    pub(crate) fn name(&self) -> &'static str {
        if self.fmt == Fmt::Invalid {
            return "";
        }
        mnemonic(self.gen, self.opcode)
    }

    /// The instruction as llvm-objdump prints it (via [`hsaemu_isa::format`]), for fault
    /// reports; `.long 0x…` for an undecodable word.
    pub(crate) fn describe(&self) -> String {
        if self.fmt == Fmt::Invalid {
            return format!(".long {:#010x}", self.word);
        }
        // Instructions are at most three dwords, a literal the last, except gfx950's scaled
        // MFMA, whose MFMA words are in `lit` and `imm` (see [`MFMA_SCALE`]).
        let mut bytes = [0u8; 4 * MAX_DWORDS];
        bytes[..4].copy_from_slice(&self.word.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.word1.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.lit.to_le_bytes());
        bytes[12..].copy_from_slice(&(self.imm as u32).to_le_bytes());
        let n = usize::from(self.size).min(bytes.len());
        match hsaemu_isa::decode(self.gen, &bytes[..n], 0) {
            Ok(inst) => hsaemu_isa::format(&inst, self.gen, 0),
            Err(_) => format!("{}, encoding {:#010x}", self.name(), self.word),
        }
    }
}

/// The most dwords an instruction takes: gfx950's scaled MFMA (`v_mfma_ld_scale_b32` and the
/// MFMA as one); every other instruction has at most three (a literal the last).
pub(crate) const MAX_DWORDS: usize = 4;

/// `Inst::ext` of gfx950's scaled MFMA (`v_mfma_scale_f32_*_f8f6f4`): this bit, the codes of
/// the A and B scale sources in bits 9:0 and 19:10, the prefix's op_sel in bits 21:20 and its
/// op_sel_hi in bits 23:22 (bit 0 of each for A, bit 1 for B). The MFMA's two words (the
/// third and fourth of the instruction) are kept in `lit` and `imm` for fault reports.
pub(crate) const MFMA_SCALE: u32 = 1 << 31;

/// Decodes the instruction at `words[0..]` (up to [`MAX_DWORDS`] are read; an instruction that
/// needs more dwords than given is invalid) and lowers it.
pub(crate) fn decode(gen: Gen, words: &[u32]) -> Inst {
    let w = words.first().copied().unwrap_or(0);
    let mut bytes = [0u8; 4 * MAX_DWORDS];
    let n = words.len().min(MAX_DWORDS);
    for (k, word) in words.iter().take(n).enumerate() {
        bytes[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    match hsaemu_isa::decode(gen, &bytes[..4 * n], 0) {
        Ok(isa) => lower(gen, &isa, &words[..n]).unwrap_or_else(|| Inst::invalid(w)),
        Err(_) => Inst::invalid(w),
    }
}

/// The emulator's encoding family for an `hsaemu-isa` encoding.
fn fmt_of(e: Encoding) -> Fmt {
    match e {
        Encoding::Sop1 => Fmt::Sop1,
        Encoding::Sop2 => Fmt::Sop2,
        Encoding::Sopk => Fmt::Sopk,
        Encoding::Sopc => Fmt::Sopc,
        Encoding::Sopp => Fmt::Sopp,
        Encoding::Smem => Fmt::Smem,
        Encoding::Vop1 => Fmt::Vop1,
        Encoding::Vop2 => Fmt::Vop2,
        Encoding::Vopc => Fmt::Vopc,
        Encoding::Vop3 => Fmt::Vop3,
        Encoding::Vop3p => Fmt::Vop3p,
        Encoding::Ds => Fmt::Ds,
        Encoding::Mubuf | Encoding::Mtbuf => Fmt::Mubuf,
        Encoding::Flat => Fmt::Flat,
        Encoding::Global => Fmt::Global,
        Encoding::Scratch => Fmt::Scratch,
        Encoding::Mimg => Fmt::Mimg,
        Encoding::Vopd => Fmt::Vopd,
        // Graphics only (interpolation from LDS parameters): not executed.
        Encoding::Ldsdir | Encoding::Vinterp | Encoding::Exp | Encoding::Unknown => Fmt::Invalid,
    }
}

/// The mnemonic LLVM prints for `op` on `gen`, without the `_e32`/`_e64`/`_sdwa`/`_dpp`
/// suffix (GFX8 spells the carry-out adds `v_add_u32`…, GFX9 `v_add_co_u32`…), for reports.
/// Built once per generation from the decoding tables of `hsaemu-isa`.
pub(crate) fn mnemonic(gen: Gen, op: Opcode) -> &'static str {
    // Both GFX10 wave sizes share one set of tables (and names).
    let gen = gen.with_wave64(false);
    static NAMES: [OnceLock<Vec<&'static str>>; Gen::ALL.len()] =
        [const { OnceLock::new() }; Gen::ALL.len()];
    let names = NAMES[gen as usize].get_or_init(|| {
        let mut v: Vec<&'static str> = vec![""; Opcode::all().len()];
        for (_, _, op, printed) in hsaemu_isa::table_entries(gen) {
            let Some(slot) = v.get_mut(op as usize) else {
                continue;
            };
            if slot.is_empty() {
                *slot = ["_e32", "_e64", "_sdwa", "_dpp"]
                    .iter()
                    .fold(printed, |m, s| m.strip_suffix(s).unwrap_or(m));
            }
        }
        v
    });
    match names.get(op as usize) {
        Some(n) if !n.is_empty() => n,
        _ => op.mnemonic(),
    }
}

/// The operand code of an `hsaemu-isa` operand (see the module docs); `None` for an operand
/// the emulator has no code for (the instruction is then treated as undecodable).
fn code(o: Operand) -> Option<u16> {
    Some(match o {
        Operand::None | Operand::Null => NULL,
        Operand::Sgpr(n) if n < 106 => n,
        Operand::Vgpr(n) if n < 256 => VGPR + n,
        Operand::Agpr(n) if n < 256 => AGPR + n,
        Operand::Ttmp(n) if n < 16 => 108 + u16::from(n),
        Operand::FlatScratch | Operand::FlatScratchLo => 102,
        Operand::FlatScratchHi => 103,
        Operand::XnackMask | Operand::XnackMaskLo => 104,
        Operand::XnackMaskHi => 105,
        Operand::Vcc | Operand::VccLo => VCC,
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
        Operand::PopsExitingWaveId => 239,
        Operand::SrcFlatScratchBaseLo => 230,
        Operand::SrcFlatScratchBaseHi => 231,
        Operand::SrcVccz => 251,
        Operand::SrcExecz => 252,
        Operand::SrcScc => 253,
        Operand::LdsDirect => 254,
        Operand::Literal(_) => LITERAL,
        _ => return None,
    })
}

/// How constants read for isa's operand type.
fn ty(t: SrcType) -> Ty {
    match t {
        SrcType::B32 => Ty::B32,
        SrcType::B16 => Ty::B16,
        SrcType::B64 => Ty::I64,
        SrcType::F64 => Ty::F64,
    }
}

/// The emulator's instruction for a decoded one (`words`: the words it was decoded from, kept
/// for fault reports); `None` for an operand outside the emulator's code space.
fn lower(gen: Gen, isa: &hsaemu_isa::Inst, words: &[u32]) -> Option<Inst> {
    let word = |k: usize| words.get(k).copied().unwrap_or(0);
    let (w, w1) = (word(0), word(1));
    let sem = isa.opcode.semantics();
    let op = op_of(isa.opcode);
    let mut i = Inst::invalid(w);
    i.op = op;
    i.opcode = isa.opcode;
    i.fmt = match op {
        Op::Missing | Op::NotForCompute => Fmt::Unimplemented,
        _ => fmt_of(isa.encoding),
    };
    i.gen = gen;
    i.size = isa.size;
    i.word1 = w1;
    i.tys = sem.src.map(ty);
    if let Some(c) = sem.cmp {
        // Integer `ne`/`t` are the float order's `lg`/`tru` (isa's `CmpCond` order).
        let t = match c.ty {
            CmpType::F16 => 0,
            CmpType::F32 => 1,
            CmpType::F64 => 2,
            CmpType::I16 => 3,
            CmpType::I32 => 4,
            CmpType::I64 => 5,
            CmpType::U16 => 6,
            CmpType::U32 => 7,
            CmpType::U64 => 8,
        };
        i.imm = c.cond as i32 | t << 5 | i32::from(c.exec) << 9;
    }
    if i.fmt == Fmt::Unimplemented || i.fmt == Fmt::Invalid {
        return Some(i);
    }
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
            match isa.src[0] {
                // GFX11 `s_sendmsg_rtn_*`: the message ID sits in the SSRC0 field.
                Operand::Imm(v) => i.imm = v as i32,
                o => i.src[0] = code(o)?,
            }
            match isa.src[1] {
                // `s_set_gpr_idx_on`'s SIMM4 sits in the SSRC1 field.
                Operand::Imm(v) => i.imm = v as i32,
                o => i.src[1] = code(o)?,
            }
        }
        Encoding::Sopk => {
            i.dst = code(isa.dst)?;
            i.imm = imm16(isa.src[0]);
        }
        Encoding::Sopp => i.imm = imm16(isa.src[0]),
        Encoding::Smem => {
            // Scalar atomics and scalar scratch are described (isa's row).
            i.mem = mem_desc(sem.mem);
            i.dst = code(isa.dst)?;
            i.src[0] = code(isa.src[0])?;
            // The immediate offset always applies (0 when absent); an SGPR offset is added
            // when present.
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
            // Matrix-core instructions name their AGPRs by the opcode and the `acc`/`acc_cd`
            // bits (gfx90a bit 15, which isa reports as clamp): `exec::mfma` and the AccVGPR
            // moves take `VGPR + n` and choose the file themselves.
            let reg = |o: Operand| match o {
                Operand::Agpr(n) if sem.mai && n < 256 => Some(VGPR + n),
                o => code(o),
            };
            i.dst = reg(isa.dst)?;
            i.sdst = reg(isa.sdst)?;
            for k in 0..3 {
                i.src[k] = reg(isa.src[k])?;
            }
            if isa.opcode.info().flags & hsaemu_isa::op_flags::MASK_DST != 0 {
                // Compares: the mask destination (VCC, SGPRs; none for GFX10 v_cmpx) is `sdst`.
                i.sdst = i.dst;
            }
            if isa.encoding == Encoding::Vop2 && matches!(isa.src[1], Operand::Literal(_)) {
                // v_madmk/v_fmamk: the emulator reads the constant from `lit` and the VGPR
                // addend from src[1].
                i.src[1] = i.src[2];
                i.src[2] = NULL;
            }
            if sem.cmp.is_none() {
                // gfx950 `v_bitop3_*`: the truth table (isa keeps it in `offset`).
                i.imm = isa.offset;
            }
            i.neg = m.neg;
            i.abs = m.abs;
            i.neg_hi = m.neg_hi;
            i.opsel = m.op_sel;
            i.opsel_hi = m.op_sel_hi;
            i.omod = m.omod;
            if m.clamp {
                i.flags |= if sem.mai && isa.encoding == Encoding::Vop3p {
                    flag::ACC
                } else {
                    flag::CLAMP
                };
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
                Ext::MfmaScale {
                    scale,
                    op_sel,
                    op_sel_hi,
                } => {
                    i.ext = MFMA_SCALE
                        | u32::from(code(scale[0])?)
                        | u32::from(code(scale[1])?) << 10
                        | u32::from(op_sel & 3) << 20
                        | u32::from(op_sel_hi & 3) << 22;
                    i.lit = word(2);
                    i.imm = word(3) as i32;
                }
                _ => {}
            }
        }
        Encoding::Ds => {
            i.mem = mem_desc(sem.mem);
            i.dst = code(isa.dst)?;
            for k in 0..3 {
                i.src[k] = code(isa.src[k])?;
            }
            i.imm = isa.offset;
            i.offset1 = isa.offset1;
            if matches!(
                isa.opcode,
                Opcode::DS_CMPSTORE_B32
                    | Opcode::DS_CMPSTORE_B64
                    | Opcode::DS_CMPSTORE_F32
                    | Opcode::DS_CMPSTORE_F64
                    | Opcode::DS_CMPSTORE_RTN_B32
                    | Opcode::DS_CMPSTORE_RTN_B64
                    | Opcode::DS_CMPSTORE_RTN_F32
                    | Opcode::DS_CMPSTORE_RTN_F64
            ) {
                // GFX11 ds_cmpstore: data0 is the new value, data1 the compare value; the
                // semantics (ds_cmpst's) read the compare value first.
                i.src.swap(1, 2);
            }
            if isa.has(hsaemu_isa::flags::GDS) {
                i.flags |= flag::GDS;
            }
        }
        Encoding::Flat | Encoding::Global | Encoding::Scratch => {
            i.mem = mem_desc(sem.mem);
            i.dst = code(isa.dst)?;
            i.src[0] = code(isa.src[0])?;
            i.src[1] = code(isa.src[1])?;
            i.src[2] = match isa.src[2] {
                Operand::None => SADDR_OFF,
                o => code(o)?,
            };
            // GFX8 FLAT has no offset field (LLVM 15 prints the bits anyway).
            i.imm = if gen == Gen::Gfx8 { 0 } else { isa.offset };
            mem_flags(&mut i, isa);
            // CDNA3 SCRATCH names its VGPR address with `sve` (isa leaves `vaddr` out without
            // it, which reads as 0 here): with `saddr` too, both are added.
            if isa.encoding == Encoding::Scratch && gen.is_cdna3() && isa.src[0] != Operand::None {
                i.flags |= flag::SVE;
            }
        }
        Encoding::Mubuf | Encoding::Mtbuf => {
            i.mem = mem_desc(sem.mem);
            // vdata is `dst` for loads and returning atomics and `src[1]` for stores; the
            // emulator reads it from both slots.
            let vdata = match (isa.dst, isa.src[1]) {
                (Operand::Vgpr(n), _) | (_, Operand::Vgpr(n)) => VGPR + n,
                (Operand::Agpr(n), _) | (_, Operand::Agpr(n)) => AGPR + n,
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
            // MTBUF: the format is the instruction's (see [`TYPED_FORMAT`]).
            let typed = match isa.ext {
                Ext::Mtbuf { dfmt, nfmt } => Some(crate::image::Format {
                    data: dfmt,
                    num: nfmt,
                }),
                Ext::BufFormat { format } => Some(
                    if gen.is_gfx11() {
                        crate::image::Format::from_unified_gfx11(u16::from(format))
                    } else {
                        crate::image::Format::from_unified(u16::from(format))
                    }
                    .unwrap_or(crate::image::Format { data: 0, num: 0 }),
                ),
                _ => None,
            };
            if let Some(f) = typed {
                i.ext |= TYPED_FORMAT | u32::from(f.data) << 16 | u32::from(f.num & 0xf) << 24;
            }
            i.imm = isa.offset;
            mem_flags(&mut i, isa);
            for (theirs, ours) in [
                (hsaemu_isa::flags::OFFEN, flag::OFFEN),
                (hsaemu_isa::flags::IDXEN, flag::IDXEN),
            ] {
                if isa.has(theirs) {
                    i.flags |= ours;
                }
            }
        }
        Encoding::Mimg => {
            // vdata is `dst` for loads, samples and atomics (which return the old value with
            // glc) and `src[1]` for stores; atomics also read their data from it. The emulator
            // reads it from both slots.
            let vdata = match (isa.dst, isa.src[1]) {
                (Operand::Vgpr(n), _) | (_, Operand::Vgpr(n)) => VGPR + n,
                (Operand::Agpr(n), _) | (_, Operand::Agpr(n)) => AGPR + n,
                _ => VGPR,
            };
            i.dst = vdata;
            i.src[1] = vdata;
            // vaddr, the T# (srsrc) and the S# (ssamp, in `sdst`; `NULL` when absent).
            i.src[0] = code(isa.src[0])?;
            i.src[2] = code(isa.src[2])?;
            i.sdst = code(isa.sdst)?;
            if let Ext::Mimg {
                dmask, dim, nsa, ..
            } = isa.ext
            {
                // GFX10: `dim` in bits 6:4 and the NSA dword count in 9:8 of `imm`; the first
                // eight NSA address VGPRs in `lit` and `ext` (a third NSA dword faults).
                let nsa_dwords = (isa.size.saturating_sub(8) / 4) as i32;
                i.imm = i32::from(dmask) | i32::from(dim) << 4 | nsa_dwords << 8;
                i.lit = u32::from_le_bytes([nsa[0], nsa[1], nsa[2], nsa[3]]);
                i.ext = u32::from_le_bytes([nsa[4], nsa[5], nsa[6], nsa[7]]);
            }
            // GFX11: `dmask` and `dim` as for GFX10. NSA (`size` 12) names up to five address
            // operands, the fifth a tuple holding the rest: GFX12's form ([`VIMAGE_ADDRS`]).
            if let Ext::MimgDim { dmask, dim, nsa } = isa.ext {
                i.imm = i32::from(dmask) | i32::from(dim) << 4;
                if isa.size > 8 {
                    i.imm |= VIMAGE_ADDRS;
                    i.lit = u32::from_le_bytes(nsa);
                    i.ext = 4;
                }
            }
            // GFX12: `dmask`, `dim` as for GFX10 and the separate addresses (see
            // [`VIMAGE_ADDRS`]). `th`/`scope` are cache hints for the memory model (every
            // access here is coherent) except an atomic's `TH_ATOMIC_RETURN` (th bit 0), which
            // returns the old value as `glc` does. `r128` (isa's `da` bit; a 128-bit T#) is not
            // modelled: such an instruction is invalid.
            if let Ext::Vimage(v) = isa.ext {
                if isa.has(hsaemu_isa::flags::DA) {
                    return None;
                }
                i.imm = i32::from(v.dmask) | i32::from(v.dim) << 4 | VIMAGE_ADDRS;
                i.lit = u32::from_le_bytes(v.vaddr);
                i.ext = if isa.sdst == Operand::None { 4 } else { 3 };
                let th = hsaemu_isa::inst::cpol::th(isa.offset1);
                if isa.opcode.mnemonic().starts_with("image_atomic") && th & 1 != 0 {
                    i.flags |= flag::GLC;
                }
            }
            for (theirs, ours) in [
                (hsaemu_isa::flags::GLC, flag::GLC),
                (hsaemu_isa::flags::SLC, flag::SLC),
                (hsaemu_isa::flags::UNORM, flag::UNORM),
                (hsaemu_isa::flags::DA, flag::DA),
                (hsaemu_isa::flags::A16, flag::A16),
                (hsaemu_isa::flags::TFE, flag::TFE),
                (hsaemu_isa::flags::LWE, flag::LWE),
                (hsaemu_isa::flags::D16, flag::D16),
            ] {
                if isa.has(theirs) {
                    i.flags |= ours;
                }
            }
        }
        Encoding::Vopd => {
            // Each half as the VOP1/VOP2 instruction it issues.
            let Ext::Vopd(y) = isa.ext else {
                return None;
            };
            let vsrc1_x = if isa.opcode == Opcode::V_FMAMK_F32 {
                isa.src[2]
            } else {
                isa.src[1]
            };
            let xi = vopd_half(isa.opcode, isa.dst, isa.src[0], vsrc1_x, isa.size);
            let x = lower(gen, &with_lit(xi, y.lit), words)?;
            let yi = vopd_half(
                y.opcode,
                Operand::Vgpr(y.vdst.into()),
                match isa.sdst {
                    Operand::Literal(_) => Operand::Literal(y.lit),
                    o => o,
                },
                Operand::Vgpr(y.vsrc1.into()),
                isa.size,
            );
            let yl = lower(gen, &with_lit(yi, y.lit), words)?;
            if x.fmt == Fmt::Unimplemented || yl.fmt == Fmt::Unimplemented {
                return Some(if x.fmt == Fmt::Unimplemented { x } else { yl });
            }
            i = x;
            i.fmt = Fmt::Vopd;
            i.size = isa.size;
            i.lit = y.lit;
            i.imm = y.opcode as i32;
            i.sdst = yl.dst;
            i.ext = u32::from(yl.src[0]) | u32::from(yl.src[1]) << 10 | u32::from(yl.src[2]) << 20;
        }
        // Graphics only: their opcodes are not for compute (`Fmt::Unimplemented`), no fields.
        Encoding::Ldsdir | Encoding::Vinterp | Encoding::Exp => {}
        Encoding::Unknown => return None,
    }
    Some(i)
}

/// One half of a VOPD instruction as the VOP1/VOP2 instruction it performs: `v_dual_mov_b32`
/// is VOP1, `fmamk`/`fmaak` take the constant where their VOP2 forms do, `cndmask` reads VCC.
fn vopd_half(
    opcode: Opcode,
    dst: Operand,
    src0: Operand,
    vsrc1: Operand,
    size: u8,
) -> hsaemu_isa::Inst {
    let enc = if opcode == Opcode::V_MOV_B32 {
        Encoding::Vop1
    } else {
        Encoding::Vop2
    };
    let mut h = hsaemu_isa::Inst::new(opcode, enc, size);
    h.dst = dst;
    h.src[0] = src0;
    match opcode {
        Opcode::V_MOV_B32 => {}
        Opcode::V_FMAMK_F32 => {
            h.src[1] = Operand::Literal(0);
            h.src[2] = vsrc1;
        }
        Opcode::V_FMAAK_F32 => {
            h.src[1] = vsrc1;
            h.src[2] = Operand::Literal(0);
        }
        Opcode::V_CNDMASK_B32 => {
            h.src[1] = vsrc1;
            h.src[2] = Operand::VccLo;
        }
        _ => h.src[1] = vsrc1,
    }
    h
}

/// `h` with every literal operand set to `lit` (a VOPD has one literal, shared by its halves).
fn with_lit(mut h: hsaemu_isa::Inst, lit: u32) -> hsaemu_isa::Inst {
    for o in &mut h.src {
        if let Operand::Literal(_) = o {
            *o = Operand::Literal(lit);
        }
    }
    h
}

impl Inst {
    /// A VOPD instruction's two halves, as the VOP1/VOP2 instructions they perform.
    pub(crate) fn vopd_halves(&self) -> (Inst, Inst) {
        let x = self.vopd_x();
        let mut y = x;
        self.vopd_y_into(&mut y);
        (x, y)
    }

    /// A VOPD instruction's X half.
    #[inline]
    pub(crate) fn vopd_x(&self) -> Inst {
        let mut x = *self;
        x.fmt = vopd_half_fmt(x.op);
        x.imm = 0;
        x.sdst = NULL;
        x.ext = 0;
        x
    }

    /// Turns `x` (this instruction's [`Inst::vopd_x`]) into its Y half in place, so the
    /// emulator builds one `Inst` per VOPD rather than two (a per-execution cost).
    #[inline]
    pub(crate) fn vopd_y_into(&self, x: &mut Inst) {
        let y_opcode = Opcode::all()
            .get(self.imm as usize)
            .copied()
            .unwrap_or(Opcode::Unknown);
        x.op = op_of(y_opcode);
        x.opcode = y_opcode;
        x.fmt = vopd_half_fmt(x.op);
        x.tys = y_opcode.semantics().src.map(ty);
        x.dst = self.sdst;
        x.src = self.vopd_y_src();
    }

    /// The Y half's sources (kept in `ext`, 10 bits each).
    #[inline]
    pub(crate) fn vopd_y_src(&self) -> [u16; 3] {
        [
            (self.ext & 0x3ff) as u16,
            (self.ext >> 10 & 0x3ff) as u16,
            (self.ext >> 20 & 0x3ff) as u16,
        ]
    }
}

/// The format a VOPD half performs as: `v_dual_mov_b32` is VOP1, the others VOP2.
fn vopd_half_fmt(op: Op) -> Fmt {
    if op == Op::V_MOV_B32 {
        Fmt::Vop1
    } else {
        Fmt::Vop2
    }
}

/// The cache and LDS bits of a vector memory instruction (`dlc` is a cache hint and ignored;
/// CDNA3's `sc0`/`sc1`/`nt` are isa's GLC/SC1/SLC).
fn mem_flags(i: &mut Inst, isa: &hsaemu_isa::Inst) {
    for (theirs, ours) in [
        (hsaemu_isa::flags::GLC, flag::GLC),
        (hsaemu_isa::flags::SLC, flag::SLC),
        (hsaemu_isa::flags::SC1, flag::SC1),
        (hsaemu_isa::flags::LDS, flag::LDS),
    ] {
        if isa.has(theirs) {
            i.flags |= ours;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Encodings from `llvm-mc-15 -show-encoding` (the oracle), checked through the adapter.
    use super::*;

    /// gfx950's scaled MFMA: four dwords, one instruction; its scale sources and the prefix's
    /// op_sel bits in `ext`, and its text as llvm-objdump-22 prints the words.
    #[test]
    fn gfx950_scaled_mfma_is_one_four_dword_instruction() {
        let w = [0xd3ac_1800, 0x0802_3318, 0xd3ad_0800, 0x1c52_1904];
        let i = decode(Gen::Gfx950, &w);
        assert_eq!((i.name(), i.size), ("v_mfma_f32_16x16x128_f8f6f4", 16));
        assert_eq!(
            i.ext,
            MFMA_SCALE | u32::from(VGPR + 24) | u32::from(VGPR + 25) << 10 | 3 << 20 | 1 << 22
        );
        assert_eq!(
            i.describe(),
            "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], a[4:11], a[12:19], v[20:23], v24, v25 \
             op_sel:[1,1,0] op_sel_hi:[1,0,0]"
        );
        // Given three dwords, the prefix is alone.
        let i = decode(Gen::Gfx950, &w[..3]);
        assert_eq!((i.name(), i.size, i.ext), ("v_mfma_ld_scale_b32", 8, 0));
    }

    #[test]
    fn generations_name_opcodes_like_llvm() {
        // `v_add_u32_e32 v0, vcc, v1, v2` on gfx803 is `v_add_co_u32_e32` on gfx906.
        let i = decode(Gen::Gfx8, &[0x3200_0501]);
        assert_eq!((i.name(), i.fmt, i.size), ("v_add_u32", Fmt::Vop2, 4));
        assert_eq!((i.dst, i.src[0], i.src[1]), (VGPR, VGPR + 1, VGPR + 2));
        assert_eq!(decode(Gen::Gfx9, &[0x3200_0501]).name(), "v_add_co_u32");
        // gfx900 has v_mad_mix where gfx906 has v_fma_mix (same opcode number).
        let w = [0xd3a0_0000, 0x040e_0501];
        assert_eq!(decode(Gen::Gfx900, &w).name(), "v_mad_mix_f32");
        assert_eq!(decode(Gen::Gfx9, &w).name(), "v_fma_mix_f32");
        assert_eq!(decode(Gen::Gfx9, &w).fmt, Fmt::Vop3p);
    }

    /// Opcodes without semantics lower to `Fmt::Unimplemented` (encodings from llvm-mc-15);
    /// a not-for-compute one says why when executed.
    #[test]
    fn gfx11_gfx12_ldsdir_vinterp_and_exp_are_not_for_compute() {
        // lds_param_load v7, attr33.w wait_vdst:5; v_interp_p10_f32 v10, -v1, -v2, -v3 wait_exp:3;
        // exp mrt0 v1, v2, v3, v4 done.
        for (words, name) in [
            (&[0xce05_8707u32][..], "lds_param_load"),
            (&[0xcd00_030a, 0xe40e_0501][..], "v_interp_p10_f32"),
            (&[0xf800_080f, 0x0403_0201][..], "exp"),
        ] {
            let i = decode(Gen::Gfx11, words);
            assert_eq!(
                (i.fmt, i.op, i.name()),
                (Fmt::Unimplemented, Op::NotForCompute, name)
            );
        }
        // GFX12: ds_param_load v7, attr33.w wait_va_vdst:5 wait_vm_vsrc:0; export mrt0 ….
        for (words, name) in [
            (&[0xce05_8707u32][..], "ds_param_load"),
            (&[0xf800_080f, 0x0403_0201][..], "export"),
        ] {
            let i = decode(Gen::Gfx12, words);
            assert_eq!(
                (i.fmt, i.op, i.name()),
                (Fmt::Unimplemented, Op::NotForCompute, name)
            );
        }
    }

    #[test]
    fn opcodes_without_semantics_fault_by_name() {
        // s_sethalt 1; s_cbranch_cdbgsys 0.
        for (words, name) in [
            (&[0xbf8d_0001u32][..], "s_sethalt"),
            (&[0xbf97_0000u32][..], "s_cbranch_cdbgsys"),
        ] {
            let i = decode(Gen::Gfx9, words);
            assert_eq!(
                (i.fmt, i.op, i.name()),
                (Fmt::Unimplemented, Op::NotForCompute, name)
            );
            let crate::error::FaultKind::Unimplemented { mnemonic } =
                crate::exec::unimplemented(&i).kind
            else {
                panic!("{name}: not an Unimplemented fault");
            };
            assert!(
                mnemonic.starts_with(name) && mnemonic.contains("(not for compute: "),
                "{mnemonic}"
            );
        }
    }

    #[test]
    fn image_operands() {
        // image_load v[0:3], v[4:7], s[8:15] dmask:0xf unorm (llvm-mc-15, gfx906).
        let i = decode(Gen::Gfx9, &[0xf000_1f00, 0x0002_0004]);
        assert_eq!((i.fmt, i.op, i.imm), (Fmt::Mimg, Op::IMAGE_LOAD, 0xf));
        assert_eq!((i.dst, i.src[0], i.src[2]), (VGPR, VGPR + 4, 8));
        assert!(i.has(flag::UNORM) && !i.has(flag::GLC));
    }

    #[test]
    fn gfx12_vimage_and_vsample_lower_to_mimg() {
        // image_atomic_add_uint v1, [v41, v38], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D
        // th:TH_ATOMIC_RETURN (clang-22, gfx1201): vaddr1 in `lit`, the last operand index
        // 4 (VIMAGE), the return as `glc`.
        let i = decode(Gen::Gfx12, &[0xd043_0001, 0x0010_0001, 0x0000_2629]);
        assert_eq!((i.fmt, i.op), (Fmt::Mimg, Op::IMAGE_ATOMIC_ADD_UINT));
        assert_eq!(i.imm, 1 | 1 << 4 | VIMAGE_ADDRS);
        assert_eq!(
            (i.dst, i.src[0], i.src[2], i.lit & 0xff, i.ext),
            (VGPR + 1, VGPR + 41, 0, 38, 4)
        );
        assert!(i.has(flag::GLC));
        // image_sample_d v[0:3], [v20, v27, v22, v[30:32]], s[0:7], s[8:11] dmask:0xf
        // dim:SQ_RSRC_IMG_2D: VSAMPLE's last operand is the fourth (index 3).
        let i = decode(Gen::Gfx12, &[0xe7c7_0001, 0x0400_0000, 0x1e16_1b14]);
        assert_eq!(
            (i.fmt, i.op, i.imm),
            (Fmt::Mimg, Op::IMAGE_SAMPLE_D, 0xf | 1 << 4 | VIMAGE_ADDRS)
        );
        assert_eq!(
            (i.src[0], i.lit & 0xff_ffff, i.ext, i.sdst),
            (VGPR + 20, 0x1e_161b, 3, 8)
        );
        assert!(!i.has(flag::GLC));
    }

    #[test]
    fn literals_and_sizes_come_from_the_decoder() {
        // v_add_f32_e32 v0, 0x40490fdb, v1
        let i = decode(Gen::Gfx9, &[0x0200_02ff, 0x4049_0fdb, 0]);
        assert_eq!((i.size, i.src[0], i.lit), (8, LITERAL, 0x4049_0fdb));
        // v_madmk_f32 v0, v1, 0x40490fdb, v2
        let i = decode(Gen::Gfx9, &[0x2e00_0501, 0x4049_0fdb]);
        assert_eq!((i.size, i.lit, i.src[1]), (8, 0x4049_0fdb, VGPR + 2));
        assert_eq!(i.describe(), "v_madmk_f32 v0, v1, 0x40490fdb, v2");
        // The literal missing: invalid, not a read past the end.
        let i = decode(Gen::Gfx9, &[0x0200_02ff]);
        assert_eq!((i.fmt, i.word), (Fmt::Invalid, 0x0200_02ff));
        assert_eq!(i.describe(), ".long 0x020002ff");
    }

    #[test]
    fn gfx908_accvgpr_moves_decode() {
        // v_accvgpr_write_b32 a3, v1
        let i = decode(Gen::Gfx9, &[0xd3d9_4003, 0x1800_0101]);
        assert_eq!(
            (i.name(), i.fmt, i.size),
            ("v_accvgpr_write_b32", Fmt::Vop3p, 8)
        );
        assert_eq!(i.describe(), "v_accvgpr_write_b32 a3, v1");
        assert_eq!(decode(Gen::Gfx9, &[0xffff_ffff, 0]).fmt, Fmt::Invalid);
    }
}

#[cfg(test)]
mod gfx10_tests {
    //! Words from clang-15's gfx1030 output (llvm-objdump-15 prints them beside the text).
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
        assert_eq!((i.name(), i.op), ("v_add_co_ci_u32", Op::V_ADDC_CO_U32));
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
