//! Decoding machine code into the emulator's compact pre-decoded form ([`Inst`]): an adapter
//! over [`hsaemu_isa::decode`], the project's one table-driven decoder (gfx803, gfx900/906/908,
//! gfx90a). `hsaemu-isa` decides whether the words are an instruction, which opcode and
//! encoding they are and how long they are (literal included); this module names the opcode
//! the way LLVM prints it for the generation and lays out the operand fields as raw hardware
//! codes (8/9-bit scalar source codes, `VGPR + n`, `AGPR + n`), which the semantics in
//! [`crate::exec`] read. Fault reports print the instruction with [`hsaemu_isa::format`].

use crate::exec::MemDesc;
use crate::ops::Op;
use crate::wave::Ty;
use hsaemu_isa::{Encoding, Ext, Opcode, Operand};
use std::sync::OnceLock;

pub(crate) mod gfx10;

/// A GPU generation as far as encodings and semantics differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gen {
    /// GFX8 (gfx801–gfx810).
    Gfx8,
    /// gfx900, gfx902, gfx909, gfx90c: GFX9 with `v_mad_mix*` where the others have
    /// `v_fma_mix*`.
    Gfx900,
    /// GFX9 (gfx904, gfx906, gfx908).
    Gfx9,
    /// gfx90a.
    Gfx90a,
    /// CDNA3: gfx940, gfx941, gfx942 (and `gfx9-4-generic` code).
    Gfx940,
    /// CDNA4: gfx950 (its LLVM 22 tables; instructions without semantics here, such as the
    /// scaled MFMAs, fault as unimplemented); fp8/bf8 are the OCP formats instead of gfx940's
    /// FNUZ ones.
    Gfx950,
    /// GFX10.3 (RDNA2: gfx1030–gfx1036) running a wave32 kernel (clang's default for these
    /// processors). A GPU of a GFX10.3 processor reports this generation; each dispatch takes
    /// [`Gen::Gfx10`] or [`Gen::Gfx10W64`] from its kernel descriptor.
    Gfx10,
    /// GFX10.3 running a wave64 kernel (`-mwavefrontsize64`).
    Gfx10W64,
}

impl Gen {
    /// The generation of an LLVM processor name.
    pub fn from_processor(p: &str) -> Option<Gen> {
        match p {
            "gfx801" | "gfx802" | "gfx803" | "gfx805" | "gfx810" => Some(Gen::Gfx8),
            "gfx900" | "gfx902" | "gfx909" | "gfx90c" => Some(Gen::Gfx900),
            "gfx904" | "gfx906" | "gfx908" => Some(Gen::Gfx9),
            "gfx90a" => Some(Gen::Gfx90a),
            "gfx940" | "gfx941" | "gfx942" => Some(Gen::Gfx940),
            "gfx950" => Some(Gen::Gfx950),
            "gfx1030" | "gfx1031" | "gfx1032" | "gfx1033" | "gfx1034" | "gfx1035" | "gfx1036" => {
                Some(Gen::Gfx10)
            }
            _ => None,
        }
    }

    /// The `hsaemu-isa` decoding tables for this generation. GFX9 uses the gfx904/906/908
    /// table (the union of their opcodes, so gfx908's MFMA and AccVGPR instructions decode).
    pub(crate) fn isa(self) -> hsaemu_isa::Gen {
        match self {
            Gen::Gfx8 => hsaemu_isa::Gen::Gfx8,
            Gen::Gfx900 => hsaemu_isa::Gen::Gfx900,
            Gen::Gfx9 => hsaemu_isa::Gen::Gfx9,
            Gen::Gfx90a => hsaemu_isa::Gen::Gfx90a,
            Gen::Gfx940 => hsaemu_isa::Gen::Gfx940,
            Gen::Gfx950 => hsaemu_isa::Gen::Gfx950,
            Gen::Gfx10 => hsaemu_isa::Gen::Gfx10,
            Gen::Gfx10W64 => hsaemu_isa::Gen::Gfx10W64,
        }
    }

    /// gfx90a and CDNA3: one unified file of 512 VGPRs and AGPRs, `acc` bits in DS/FLAT/MUBUF
    /// and `acc_cd` in MFMA, work-item IDs packed into v0.
    #[inline]
    pub fn unified_agprs(self) -> bool {
        matches!(self, Gen::Gfx90a | Gen::Gfx940 | Gen::Gfx950)
    }

    /// CDNA3 or CDNA4 (gfx940's encodings: `sc0`/`sc1`/`nt`, SCRATCH `sve`).
    #[inline]
    pub fn is_cdna3(self) -> bool {
        matches!(self, Gen::Gfx940 | Gen::Gfx950)
    }

    /// Whether this is GFX10.3 (either wave size).
    #[inline]
    pub fn is_gfx10(self) -> bool {
        matches!(self, Gen::Gfx10 | Gen::Gfx10W64)
    }

    /// Lanes per wave: 32 for a GFX10 wave32 kernel, 64 otherwise.
    #[inline]
    pub fn wave_size(self) -> u32 {
        if self == Gen::Gfx10 {
            32
        } else {
            64
        }
    }

    /// The same generation for a kernel in wave64 (`true`) or wave32 (`false`). Only GFX10
    /// has both; GFX8/GFX9 are always wave64 and come back unchanged.
    pub fn with_wave64(self, wave64: bool) -> Gen {
        match (self, wave64) {
            (Gen::Gfx10 | Gen::Gfx10W64, true) => Gen::Gfx10W64,
            (Gen::Gfx10 | Gen::Gfx10W64, false) => Gen::Gfx10,
            (g, _) => g,
        }
    }
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
    Invalid,
}

/// How a VOP1/VOP2/VOPC instruction was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sub {
    E32,
    Sdwa,
    Dpp,
    /// GFX10 DPP8 (lane selects in `Inst::ext`, see [`gfx10::DPP8_FI`]).
    Dpp8,
}

/// Operand codes: 0..=255 are the 8/9-bit scalar source codes (SGPRs, specials, inline
/// constants, 255 = literal); `VGPR + n` is VGPR n; `AGPR + n` is AGPR n.
pub(crate) const VGPR: u16 = 256;
/// See [`VGPR`].
pub(crate) const AGPR: u16 = 512;
/// The literal-constant source code.
pub(crate) const LITERAL: u16 = 255;
/// Scalar code of VCC (low half).
pub(crate) const VCC: u16 = 106;

/// Flag bits of [`Inst::flags`].
pub(crate) mod flag {
    pub const GLC: u16 = 1;
    pub const SLC: u16 = 2;
    pub const OFFEN: u16 = 4;
    pub const IDXEN: u16 = 8;
    pub const IMM: u16 = 16;
    pub const SOE: u16 = 32;
    pub const ACC: u16 = 64;
    pub const CLAMP: u16 = 128;
    pub const LDS: u16 = 256;
    pub const GDS: u16 = 512;
    /// gfx940 `sc1` (MUBUF bit 15, FLAT bit 25): a cache-scope hint (see docs/architecture-emu.md).
    pub const SC1: u16 = 1024;
    /// gfx940 SCRATCH `sve` (bit 13): the VGPR address is used (with or without `saddr`).
    pub const SVE: u16 = 2048;
}

/// One pre-decoded instruction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inst {
    pub op: Op,
    pub fmt: Fmt,
    pub sub: Sub,
    /// Size in bytes.
    pub size: u8,
    pub name: &'static str,
    /// The first dword.
    pub word: u32,
    /// The second dword (0 for 4-byte instructions); with `word` and `lit`, what fault reports
    /// re-decode to print the instruction.
    pub word1: u32,
    /// The generation it was decoded for.
    pub gen: Gen,
    /// Main destination (SGPR code, VGPR+n, AGPR+n).
    pub dst: u16,
    /// Scalar destination of VOP3b/VOPC-e64 (carry out, compare mask).
    pub sdst: u16,
    pub src: [u16; 3],
    pub lit: u32,
    /// simm16, memory offsets.
    pub imm: i32,
    /// DS offset1.
    pub offset1: u8,
    pub abs: u8,
    pub neg: u8,
    pub neg_hi: u8,
    pub opsel: u8,
    pub opsel_hi: u8,
    pub omod: u8,
    pub flags: u16,
    /// Second dword of DPP/SDWA, or the MUBUF/SMEM soffset code.
    pub ext: u32,
    /// How each source's constants are read (from the mnemonic's type suffixes).
    pub tys: [Ty; 3],
    /// What a memory instruction does (parsed from the mnemonic).
    pub mem: MemDesc,
}

impl Inst {
    fn new(name: &'static str, fmt: Fmt, word: u32) -> Inst {
        Inst {
            op: Op::from_mnemonic(name),
            fmt,
            sub: Sub::E32,
            size: 4,
            name,
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
            tys: src_types(name),
            mem: if matches!(
                fmt,
                Fmt::Ds | Fmt::Flat | Fmt::Global | Fmt::Scratch | Fmt::Mubuf
            ) {
                crate::exec::describe(name, fmt)
            } else {
                MemDesc::default()
            },
        }
    }

    /// An undecodable word.
    pub(crate) fn invalid(word: u32) -> Inst {
        Inst::new("", Fmt::Invalid, word)
    }

    pub(crate) fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    /// The instruction as llvm-objdump prints it (via [`hsaemu_isa::format`]), for fault
    /// reports; `.long 0x…` for an undecodable word.
    pub(crate) fn describe(&self) -> String {
        if self.fmt == Fmt::Invalid {
            return format!(".long {:#010x}", self.word);
        }
        // GFX8/9 instructions are at most two dwords; a literal is the second.
        let mut bytes = [0u8; 12];
        bytes[..4].copy_from_slice(&self.word.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.word1.to_le_bytes());
        bytes[8..].copy_from_slice(&self.lit.to_le_bytes());
        let n = usize::from(self.size).min(12);
        match hsaemu_isa::decode(self.gen.isa(), &bytes[..n], 0) {
            Ok(inst) => hsaemu_isa::format(&inst, self.gen.isa(), 0),
            Err(_) => format!("{}, encoding {:#010x}", self.name, self.word),
        }
    }
}

fn is_vop3b(name: &str) -> bool {
    matches!(
        name,
        "v_add_co_u32"
            | "v_sub_co_u32"
            | "v_subrev_co_u32"
            | "v_addc_co_u32"
            | "v_subb_co_u32"
            | "v_subbrev_co_u32"
            | "v_add_u32"
            | "v_sub_u32"
            | "v_subrev_u32"
            | "v_addc_u32"
            | "v_subb_u32"
            | "v_subbrev_u32"
            | "v_div_scale_f32"
            | "v_div_scale_f64"
            | "v_mad_u64_u32"
            | "v_mad_i64_i32"
    )
}

/// Decodes the instruction at `words[0..]` (up to three dwords are read; an instruction that
/// needs more dwords than given is invalid).
pub(crate) fn decode(gen: Gen, words: &[u32]) -> Inst {
    let w = words.first().copied().unwrap_or(0);
    let w1 = words.get(1).copied();
    let mut bytes = [0u8; 12];
    let n = words.len().min(3);
    for (k, word) in words.iter().take(n).enumerate() {
        bytes[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    let Ok(isa) = hsaemu_isa::decode(gen.isa(), &bytes[..4 * n], 0) else {
        return Inst::invalid(w);
    };
    if gen.is_gfx10() {
        return gfx10::from_isa(gen, &isa, w, w1.unwrap_or(0));
    }
    let name = mnemonic(gen, isa.opcode);
    let mut i = match isa.encoding {
        Encoding::Unknown => return Inst::invalid(w),
        // Typed-buffer and image instructions have no semantics: they decode (so executing one
        // is an `Unimplemented` fault naming it, not an illegal instruction) with the MUBUF
        // field layout and no memory description.
        Encoding::Mtbuf | Encoding::Mimg => {
            let mut i = Inst::new("", Fmt::Mubuf, w);
            i.name = name;
            i
        }
        _ => decode_first(gen, name, w, w1),
    };
    // The field layout below follows the encoding `hsaemu-isa` found; a disagreement would be
    // a bug here, and executing the word faults rather than doing something else.
    if i.fmt == Fmt::Invalid || i.fmt != fmt_of(isa.encoding) {
        return Inst::invalid(w);
    }
    i.gen = gen;
    i.size = isa.size;
    i.word1 = w1.unwrap_or(0);
    // The literal constant is the instruction's last dword (`src == 255`, `v_madmk`/`v_madak`,
    // `s_setreg_imm32_b32`).
    if let Some(l) = isa.src.iter().find_map(|o| match o {
        Operand::Literal(v) => Some(*v),
        _ => None,
    }) {
        i.lit = l;
    }
    let sub = match isa.ext {
        Ext::Dpp(_) => Sub::Dpp,
        Ext::Sdwa(_) => Sub::Sdwa,
        _ => Sub::E32,
    };
    if i.sub != sub {
        return Inst::invalid(w);
    }
    if let Some(c) = compare_code(i.name) {
        i.op = Op::V_CMP;
        i.imm = c;
    }
    i
}

/// The emulator's encoding family for an `hsaemu-isa` encoding (typed-buffer and image
/// instructions use the MUBUF layout).
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
        Encoding::Mubuf | Encoding::Mtbuf | Encoding::Mimg => Fmt::Mubuf,
        Encoding::Flat => Fmt::Flat,
        Encoding::Global => Fmt::Global,
        Encoding::Scratch => Fmt::Scratch,
        Encoding::Unknown => Fmt::Invalid,
    }
}

/// The mnemonic LLVM prints for `op` on `gen`, without the `_e32`/`_e64`/`_sdwa`/`_dpp`
/// suffix (GFX8 spells the carry-out adds `v_add_u32`…, GFX9 `v_add_co_u32`…). Built once per
/// generation from the decoding tables of `hsaemu-isa`.
pub(crate) fn mnemonic(gen: Gen, op: Opcode) -> &'static str {
    // Both GFX10 wave sizes share one set of tables (and names).
    let gen = gen.with_wave64(false);
    static NAMES: [OnceLock<Vec<&'static str>>; 8] = [const { OnceLock::new() }; 8];
    let names = NAMES[gen as usize].get_or_init(|| {
        let mut v: Vec<&'static str> = vec![""; Opcode::all().len()];
        for (_, _, op, printed) in hsaemu_isa::table_entries(gen.isa()) {
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

/// Packs a `v_cmp[x]_COND_TYPE` mnemonic as `cond | type << 5 | cmpx << 9`. Conditions follow
/// the float order f, lt, eq, le, gt, lg, ge, o, u, nge, nlg, ngt, nle, neq, nlt, tru (integer
/// `ne` = lg, `t` = tru) and 16 = class; types f16, f32, f64, i16, i32, i64, u16, u32, u64.
fn compare_code(name: &str) -> Option<i32> {
    let rest = name.strip_prefix("v_cmp")?;
    let (x, rest) = match rest.strip_prefix("x_") {
        Some(r) => (1, r),
        None => (0, rest.strip_prefix('_')?),
    };
    let (cond, ty) = rest.rsplit_once('_')?;
    let c = match cond {
        "f" => 0,
        "lt" => 1,
        "eq" => 2,
        "le" => 3,
        "gt" => 4,
        "lg" | "ne" => 5,
        "ge" => 6,
        "o" => 7,
        "u" => 8,
        "nge" => 9,
        "nlg" => 10,
        "ngt" => 11,
        "nle" => 12,
        "neq" => 13,
        "nlt" => 14,
        "tru" | "t" => 15,
        "class" => 16,
        _ => return None,
    };
    let t = match ty {
        "f16" => 0,
        "f32" => 1,
        "f64" => 2,
        "i16" => 3,
        "i32" => 4,
        "i64" => 5,
        "u16" => 6,
        "u32" => 7,
        "u64" => 8,
        _ => return None,
    };
    Some(c | t << 5 | x << 9)
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

fn decode_first(gen: Gen, name: &'static str, w: u32, w1: Option<u32>) -> Inst {
    if w >> 30 == 0b10 {
        // Scalar ALU.
        if w >> 23 == 0b1_0111_1101 {
            let mut i = Inst::new(name, Fmt::Sop1, w);
            i.dst = (w >> 16 & 0x7f) as u16;
            i.src[0] = (w & 0xff) as u16;
            return i;
        }
        if w >> 23 == 0b1_0111_1110 {
            let mut i = Inst::new(name, Fmt::Sopc, w);
            i.src[0] = (w & 0xff) as u16;
            i.src[1] = (w >> 8 & 0xff) as u16;
            return i;
        }
        if w >> 23 == 0b1_0111_1111 {
            let mut i = Inst::new(name, Fmt::Sopp, w);
            i.imm = (w & 0xffff) as i16 as i32;
            return i;
        }
        if w >> 28 == 0b1011 {
            let mut i = Inst::new(name, Fmt::Sopk, w);
            i.dst = (w >> 16 & 0x7f) as u16;
            i.imm = (w & 0xffff) as i16 as i32;
            return i;
        }
        let mut i = Inst::new(name, Fmt::Sop2, w);
        i.dst = (w >> 16 & 0x7f) as u16;
        i.src[0] = (w & 0xff) as u16;
        i.src[1] = (w >> 8 & 0xff) as u16;
        return i;
    }
    if w >> 31 == 0 {
        // VOP1 / VOPC / VOP2 (32-bit forms, possibly SDWA or DPP).
        let mut i = if w >> 25 == 0b011_1111 {
            let mut i = Inst::new(name, Fmt::Vop1, w);
            i.dst = (w >> 17 & 0xff) as u16;
            if name != "v_readfirstlane_b32" {
                i.dst += VGPR;
            }
            i
        } else if w >> 25 == 0b011_1110 {
            let mut i = Inst::new(name, Fmt::Vopc, w);
            i.dst = VCC;
            i.sdst = VCC;
            i.src[1] = VGPR + (w >> 9 & 0xff) as u16;
            i
        } else {
            let mut i = Inst::new(name, Fmt::Vop2, w);
            i.dst = VGPR + (w >> 17 & 0xff) as u16;
            i.src[1] = VGPR + (w >> 9 & 0xff) as u16;
            // Implicit VCC carry in/out (GFX8/9 e32 forms).
            i.sdst = VCC;
            i.src[2] = VCC;
            i
        };
        i.src[0] = (w & 0x1ff) as u16;
        if i.src[0] == 0xf9 || i.src[0] == 0xfa {
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            i.size = 8;
            i.ext = e;
            if i.src[0] == 0xfa {
                i.sub = Sub::Dpp;
                i.src[0] = VGPR + (e & 0xff) as u16;
                i.neg = ((e >> 20 & 1) | (e >> 22 & 1) << 1) as u8;
                i.abs = ((e >> 21 & 1) | (e >> 23 & 1) << 1) as u8;
            } else {
                i.sub = Sub::Sdwa;
                let s0_sgpr = gen != Gen::Gfx8 && e >> 23 & 1 != 0;
                i.src[0] = if s0_sgpr {
                    (e & 0xff) as u16
                } else {
                    VGPR + (e & 0xff) as u16
                };
                if gen != Gen::Gfx8 && e >> 31 & 1 != 0 {
                    i.src[1] -= VGPR;
                }
                i.neg = ((e >> 20 & 1) | (e >> 28 & 1) << 1) as u8;
                i.abs = ((e >> 21 & 1) | (e >> 29 & 1) << 1) as u8;
                if i.fmt == Fmt::Vopc && gen != Gen::Gfx8 && e >> 15 & 1 != 0 {
                    i.sdst = (e >> 8 & 0x7f) as u16;
                    i.dst = i.sdst;
                } else if e >> 13 & 1 != 0 {
                    i.flags |= flag::CLAMP;
                }
                if i.fmt != Fmt::Vopc {
                    i.omod = (e >> 14 & 3) as u8;
                }
            }
        }
        return i;
    }
    match w >> 26 {
        0b110000 => {
            // SMEM (GFX8/9).
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            let mut i = Inst::new(name, Fmt::Smem, w);
            i.size = 8;
            i.src[0] = ((w & 0x3f) << 1) as u16;
            i.dst = (w >> 6 & 0x7f) as u16;
            if w >> 16 & 1 != 0 {
                i.flags |= flag::GLC;
            }
            if w >> 17 & 1 != 0 {
                i.flags |= flag::IMM;
                i.imm = if gen == Gen::Gfx8 {
                    (e & 0xfffff) as i32
                } else {
                    sext(e & 0x1fffff, 21)
                };
            } else {
                i.ext = e & 0xff;
            }
            if gen != Gen::Gfx8 && w >> 14 & 1 != 0 {
                i.flags |= flag::SOE | flag::IMM;
                i.imm = sext(e & 0x1fffff, 21);
                i.ext = e >> 25;
            }
            i
        }
        0b110100 => {
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            let op = w >> 16 & 0x3ff;
            let n = name;
            let vop3p = gen != Gen::Gfx8 && op >= 0x380;
            let mut i = Inst::new(n, if vop3p { Fmt::Vop3p } else { Fmt::Vop3 }, w);
            i.size = 8;
            i.src = [
                (e & 0x1ff) as u16,
                (e >> 9 & 0x1ff) as u16,
                (e >> 18 & 0x1ff) as u16,
            ];
            i.neg = (e >> 29 & 7) as u8;
            i.dst = VGPR + (w & 0xff) as u16;
            if w >> 15 & 1 != 0 {
                i.flags |= flag::CLAMP;
            }
            if vop3p {
                i.neg_hi = (w >> 8 & 7) as u8;
                i.opsel = (w >> 11 & 7) as u8;
                i.opsel_hi = ((e >> 27 & 3) | (w >> 14 & 1) << 2) as u8;
                if n.starts_with("v_mfma") || n.starts_with("v_accvgpr") {
                    // gfx90a: bit 15 is acc_cd (vdst and src2 are AGPRs).
                    i.flags &= !flag::CLAMP;
                    if w >> 15 & 1 != 0 {
                        i.flags |= flag::ACC;
                    }
                }
            } else if op < 0x100
                || (is_vop3b(n)
                    && (gen == Gen::Gfx8
                        || !matches!(n, "v_add_u32" | "v_sub_u32" | "v_subrev_u32")))
            {
                // VOPC in VOP3 (SGPR-pair destination) or VOP3b (carry out).
                i.sdst = (if op < 0x100 { w & 0xff } else { w >> 8 & 0x7f }) as u16;
                if op < 0x100 {
                    i.dst = i.sdst;
                    i.abs = (w >> 8 & 7) as u8;
                } else {
                    i.dst = VGPR + (w & 0xff) as u16;
                }
            } else {
                i.abs = (w >> 8 & 7) as u8;
                i.opsel = (w >> 11 & 0xf) as u8;
                i.omod = (e >> 27 & 3) as u8;
            }
            if n.starts_with("v_readlane") || n.starts_with("v_readfirstlane") {
                i.dst = (w & 0xff) as u16;
            }
            i
        }
        0b110110 => {
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            let mut i = Inst::new(name, Fmt::Ds, w);
            i.size = 8;
            i.imm = (w & 0xff) as i32;
            i.offset1 = (w >> 8 & 0xff) as u8;
            if w >> 16 & 1 != 0 {
                i.flags |= flag::GDS;
            }
            let acc = gen.unified_agprs() && w >> 25 & 1 != 0;
            let reg = if acc { AGPR } else { VGPR };
            i.src = [
                VGPR + (e & 0xff) as u16,
                reg + (e >> 8 & 0xff) as u16,
                reg + (e >> 16 & 0xff) as u16,
            ];
            i.dst = reg + (e >> 24 & 0xff) as u16;
            i
        }
        0b110111 => {
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            let fmt = if gen == Gen::Gfx8 {
                Fmt::Flat
            } else {
                match w >> 14 & 3 {
                    0 => Fmt::Flat,
                    1 => Fmt::Scratch,
                    2 => Fmt::Global,
                    _ => return Inst::invalid(w),
                }
            };
            let mut i = Inst::new(name, fmt, w);
            i.size = 8;
            i.imm = match (gen, fmt) {
                (Gen::Gfx8, _) => 0,
                (_, Fmt::Flat) => (w & 0xfff) as i32,
                _ => sext(w & 0x1fff, 13),
            };
            if w >> 16 & 1 != 0 {
                i.flags |= flag::GLC;
            }
            if w >> 17 & 1 != 0 {
                i.flags |= flag::SLC;
            }
            if gen.is_cdna3() {
                if w >> 25 & 1 != 0 {
                    i.flags |= flag::SC1;
                }
                if fmt == Fmt::Scratch && w >> 13 & 1 != 0 {
                    i.flags |= flag::SVE;
                }
            }
            let acc = gen.unified_agprs() && e >> 23 & 1 != 0;
            let reg = if acc { AGPR } else { VGPR };
            i.src[0] = VGPR + (e & 0xff) as u16;
            i.src[1] = reg + (e >> 8 & 0xff) as u16;
            i.src[2] = (e >> 16 & 0x7f) as u16; // saddr (0x7f = off)
            if gen.is_cdna3() && fmt == Fmt::Scratch && !i.has(flag::SVE) && i.src[2] == 0x7f {
                // `off, off`: neither register, the address is the offset alone (the scalar
                // code of inline constant 0 as `saddr`).
                i.src[2] = 128;
            }
            i.dst = reg + (e >> 24 & 0xff) as u16;
            i
        }
        0b111000 => {
            let Some(e) = w1 else {
                return Inst::invalid(w);
            };
            let mut i = Inst::new(name, Fmt::Mubuf, w);
            i.size = 8;
            i.imm = (w & 0xfff) as i32;
            for (bit, f) in [
                (12, flag::OFFEN),
                (13, flag::IDXEN),
                (14, flag::GLC),
                (16, flag::LDS),
                (17, flag::SLC),
            ] {
                if w >> bit & 1 != 0 {
                    i.flags |= f;
                }
            }
            if gen.is_cdna3() && w >> 15 & 1 != 0 {
                i.flags |= flag::SC1;
            }
            let acc = gen.unified_agprs() && e >> 23 & 1 != 0;
            let reg = if acc { AGPR } else { VGPR };
            i.src[0] = VGPR + (e & 0xff) as u16;
            i.src[1] = reg + (e >> 8 & 0xff) as u16;
            i.src[2] = ((e >> 16 & 0x1f) << 2) as u16;
            i.ext = e >> 24;
            i.dst = i.src[1];
            i
        }
        _ => Inst::invalid(w),
    }
}

/// Operand types of an instruction's sources from its mnemonic (`v_cvt_DST_SRC`: the last type
/// suffix is the source type), with the exceptions of shifts and mixed-width forms.
fn src_types(name: &str) -> [Ty; 3] {
    let last = name.rsplit('_').next().unwrap_or("");
    let base = match last {
        "f16" | "i16" | "u16" | "b16" => Ty::B16,
        "f64" => Ty::F64,
        "i64" | "u64" | "b64" => Ty::I64,
        _ => Ty::B32,
    };
    let mut t = [base; 3];
    if name.starts_with("v_") {
        match name {
            "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64" => t = [Ty::B32, Ty::I64, Ty::B32],
            "v_lshl_b64" | "v_lshr_b64" | "v_ashr_i64" => t = [Ty::I64, Ty::B32, Ty::B32],
            "v_ldexp_f64" | "v_trig_preop_f64" => t = [Ty::F64, Ty::B32, Ty::B32],
            "v_ldexp_f16" => t = [Ty::B16, Ty::B32, Ty::B32],
            "v_mad_u64_u32" | "v_mad_i64_i32" => t = [Ty::B32, Ty::B32, Ty::I64],
            "v_div_fixup_legacy_f16" => {}
            _ => {}
        }
        if name.starts_with("v_cvt_") || name.starts_with("v_frexp_") {
            t = [base; 3];
        }
    }
    if name.starts_with("s_") {
        // SALU: b64/u64/i64 ops read 64-bit sources, except shift amounts and bfe/bfm operands.
        if matches!(
            name,
            "s_lshl_b64"
                | "s_lshr_b64"
                | "s_ashr_i64"
                | "s_bfe_u64"
                | "s_bfe_i64"
                | "s_bitset0_b64"
                | "s_bitset1_b64"
        ) {
            t = [Ty::I64, Ty::B32, Ty::B32];
        }
        if name == "s_bfm_b64" {
            t = [Ty::B32; 3];
        }
    }
    t
}

#[cfg(test)]
mod tests {
    //! Encodings from `llvm-mc-15 -show-encoding` (the oracle), checked through the adapter.
    use super::*;

    #[test]
    fn generations_name_opcodes_like_llvm() {
        // `v_add_u32_e32 v0, vcc, v1, v2` on gfx803 is `v_add_co_u32_e32` on gfx906.
        let i = decode(Gen::Gfx8, &[0x3200_0501]);
        assert_eq!((i.name, i.fmt, i.size), ("v_add_u32", Fmt::Vop2, 4));
        assert_eq!((i.dst, i.src[0], i.src[1]), (VGPR, VGPR + 1, VGPR + 2));
        assert_eq!(decode(Gen::Gfx9, &[0x3200_0501]).name, "v_add_co_u32");
        // gfx900 has v_mad_mix where gfx906 has v_fma_mix (same opcode number).
        let w = [0xd3a0_0000, 0x040e_0501];
        assert_eq!(decode(Gen::Gfx900, &w).name, "v_mad_mix_f32");
        assert_eq!(decode(Gen::Gfx9, &w).name, "v_fma_mix_f32");
        assert_eq!(decode(Gen::Gfx9, &w).fmt, Fmt::Vop3p);
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
            (i.name, i.fmt, i.size),
            ("v_accvgpr_write_b32", Fmt::Vop3p, 8)
        );
        assert_eq!(i.describe(), "v_accvgpr_write_b32 a3, v1");
        assert_eq!(decode(Gen::Gfx9, &[0xffff_ffff, 0]).fmt, Fmt::Invalid);
    }

    /// The emulator's operand code for an `hsaemu-isa` operand (`None` for immediates and
    /// absent operands).
    fn code(gen: Gen, o: Operand) -> Option<u16> {
        use hsaemu_isa::FloatConst as F;
        Some(match o {
            Operand::Sgpr(n) => n,
            Operand::Vgpr(n) => VGPR + n,
            Operand::Agpr(n) => AGPR + n,
            Operand::Ttmp(n) => u16::from(n) + if gen == Gen::Gfx8 { 112 } else { 108 },
            Operand::FlatScratch | Operand::FlatScratchLo => 102,
            Operand::FlatScratchHi => 103,
            Operand::XnackMask | Operand::XnackMaskLo => 104,
            Operand::XnackMaskHi => 105,
            Operand::Vcc | Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::M0 => 124,
            Operand::Null => 125,
            Operand::Exec | Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::InlineInt(v) if v >= 0 => 128 + v as u16,
            Operand::InlineInt(v) => 192 + u16::from(v.unsigned_abs()),
            Operand::InlineFloat(f) => match f {
                F::Half => 240,
                F::MinusHalf => 241,
                F::One => 242,
                F::MinusOne => 243,
                F::Two => 244,
                F::MinusTwo => 245,
                F::Four => 246,
                F::MinusFour => 247,
                F::InvTwoPi => 248,
            },
            Operand::SrcSharedBase => 235,
            Operand::SrcSharedLimit => 236,
            Operand::SrcPrivateBase => 237,
            Operand::SrcPrivateLimit => 238,
            Operand::PopsExitingWaveId => 239,
            Operand::SrcVccz => 251,
            Operand::SrcExecz => 252,
            Operand::SrcScc => 253,
            Operand::LdsDirect => 254,
            Operand::Literal(_) => LITERAL,
            _ => return None,
        })
    }

    /// Over compiled kernels of every GFX8/GFX9 generation, the operand codes, modifiers and
    /// memory offsets the adapter lays out agree with what `hsaemu-isa` decodes (the step
    /// before the semantics read `hsaemu_isa::Inst` operands directly).
    #[test]
    fn fields_agree_with_isa_operands() {
        use object::{Object, ObjectSection};
        let mut bad = Vec::new();
        let mut checked = 0usize;
        let mut seen = std::collections::BTreeMap::new();
        for (target, gen) in [
            ("gfx803", Gen::Gfx8),
            ("gfx900", Gen::Gfx900),
            ("gfx906", Gen::Gfx9),
            ("gfx908", Gen::Gfx9),
            ("gfx90a", Gen::Gfx90a),
        ] {
            let mut sources = vec![
                "cl/math.cl",
                "cl/matmul.cl",
                "cl/reduce.cl",
                "cl/atomics.cl",
                "cl/emu_atomics.cl",
                "cl/emu_control.cl",
                "cl/emu_double.cl",
                "cl/emu_faults.cl",
                "cl/emu_float.cl",
                "cl/emu_half.cl",
                "cl/emu_int.cl",
                "cl/emu_lds.cl",
                "cl/emu_wave.cl",
            ];
            if matches!(target, "gfx908" | "gfx90a") {
                sources.push("cl/emu_mfma.cl");
            }
            for src in sources {
                let path = hsaemu_testkit::compile_cl(src, target, 5);
                let bytes = std::fs::read(&path).expect("read kernel");
                let file = object::File::parse(&*bytes).expect("parse ELF");
                let text = file.section_by_name(".text").expect(".text");
                let text = text.data().expect("text bytes");
                let words: Vec<u32> = text
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                for (off, r) in hsaemu_isa::decode_all(gen.isa(), text) {
                    let Ok(isa) = r else { continue };
                    let k = off as usize / 4;
                    let i = decode(gen, &words[k..(k + 3).min(words.len())]);
                    if i.name.starts_with("v_mad") && i.fmt == Fmt::Vop2 {
                        // v_madmk/v_madak: isa keeps the constant in its printed slot.
                        continue;
                    }
                    checked += 1;
                    let mai = i.name.starts_with("v_mfma") || i.name.starts_with("v_accvgpr");
                    *seen
                        .entry(format!("{:?}/{:?}", i.fmt, i.sub))
                        .or_insert(0usize) += 1;
                    let mut pairs: Vec<(&str, Operand, u16)> = Vec::new();
                    let slots = ["src0", "src1", "src2"];
                    match i.fmt {
                        Fmt::Mubuf => {
                            if i.has(flag::OFFEN) || i.has(flag::IDXEN) {
                                pairs.push(("vaddr", isa.src[0], i.src[0]));
                            }
                            pairs.push(("vdata", isa.src[1], i.src[1]));
                            pairs.push(("srsrc", isa.src[2], i.src[2]));
                            pairs.push(("soffset", isa.sdst, i.ext as u16));
                            pairs.push(("vdata", isa.dst, i.dst));
                        }
                        Fmt::Smem => {
                            pairs.push(("sbase", isa.src[0], i.src[0]));
                            pairs.push(("sdata", isa.dst, i.dst));
                        }
                        Fmt::Flat | Fmt::Global | Fmt::Scratch => {
                            pairs.push(("vaddr", isa.src[0], i.src[0]));
                            pairs.push(("vdata", isa.src[1], i.src[1]));
                            let saddr = if isa.src[2] == Operand::None {
                                Operand::Sgpr(0x7f)
                            } else {
                                isa.src[2]
                            };
                            if i.fmt != Fmt::Flat {
                                // Plain FLAT has no saddr (a GFX8 FLAT word has no field).
                                pairs.push(("saddr", saddr, i.src[2]));
                            }
                            pairs.push(("vdst", isa.dst, i.dst));
                        }
                        Fmt::Sopk | Fmt::Sopp | Fmt::Invalid => {}
                        _ => {
                            for s in 0..3 {
                                pairs.push((slots[s], isa.src[s], i.src[s]));
                            }
                            pairs.push(("dst", isa.dst, i.dst));
                            if i.fmt == Fmt::Vop3 {
                                pairs.push(("sdst", isa.sdst, i.sdst));
                            }
                        }
                    }
                    let m = isa.mods;
                    let mut ints = vec![
                        ("neg", u32::from(m.neg), u32::from(i.neg)),
                        ("clamp", u32::from(m.clamp), u32::from(i.has(flag::CLAMP))),
                    ];
                    if i.fmt == Fmt::Vop3 || i.sub != Sub::E32 {
                        ints.push(("abs", u32::from(m.abs), u32::from(i.abs)));
                        ints.push(("omod", u32::from(m.omod), u32::from(i.omod)));
                    }
                    if i.fmt == Fmt::Vop3p {
                        ints.push(("neg_hi", u32::from(m.neg_hi), u32::from(i.neg_hi)));
                        ints.push(("op_sel", u32::from(m.op_sel), u32::from(i.opsel)));
                        ints.push(("op_sel_hi", u32::from(m.op_sel_hi), u32::from(i.opsel_hi)));
                    }
                    if matches!(i.fmt, Fmt::Ds | Fmt::Mubuf | Fmt::Global | Fmt::Scratch)
                        || i.fmt == Fmt::Flat && gen != Gen::Gfx8
                        || i.fmt == Fmt::Smem && i.has(flag::IMM)
                    {
                        ints.push(("offset", isa.offset as u32, i.imm as u32));
                    }
                    if i.fmt == Fmt::Ds {
                        ints.push(("offset1", u32::from(isa.offset1), u32::from(i.offset1)));
                    }
                    for (what, theirs, ours) in ints {
                        if theirs != ours && !(mai && what == "clamp") {
                            bad.push(format!(
                                "{target} {} {what}: isa {theirs}, emu {ours}",
                                hsaemu_isa::format(&isa, gen.isa(), 0)
                            ));
                        }
                    }
                    // MFMA and AccVGPR moves keep AGPR numbers as `VGPR + n`: the opcode (and
                    // on gfx90a the ACC flag from bit 15, which isa reports as `clamp`) say
                    // the register file.
                    for (what, o, ours) in pairs {
                        let o = match o {
                            Operand::Agpr(n) if mai => Operand::Vgpr(n),
                            o => o,
                        };
                        if let Some(c) = code(gen, o) {
                            if c != ours {
                                bad.push(format!(
                                    "{target} {} {what}: isa {o:?} = {c}, emu {ours}",
                                    hsaemu_isa::format(&isa, gen.isa(), 0)
                                ));
                            }
                        }
                    }
                }
            }
        }
        eprintln!("checked {checked} instructions: {seen:?}");
        assert!(checked > 1000, "{checked}");
        bad.sort();
        bad.dedup();
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad[..bad.len().min(40)].join("\n")
        );
    }
}
