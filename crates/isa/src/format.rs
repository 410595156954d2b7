//! The disassembler: [`Inst`] to the text llvm-objdump-15 prints (mnemonic and operands).
//!
//! The operand order and widths come from the same generated table row the decoder used; the
//! rules here are LLVM's operand syntax: register ranges, special registers, inline constants
//! and literals printed by value and operand type, VOP3/VOP3P/SDWA/DPP modifiers, memory
//! offsets and cache bits, and the SOPP/SOPK operand syntax (`s_waitcnt`, `hwreg`, `sendmsg`).

use crate::inst::{cpol, flags, Encoding, Ext, FloatConst, Gen, Inst, Operand, Vimage};
use crate::opcode::Opcode;
use crate::tables::{mods, table, Entry, Fam, Place, Slot, ALL_FAMS, F};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::OnceLock;

/// How constants print for an operand: by its type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// 32-bit operand (integer or float).
    B32,
    /// 64-bit operand.
    B64,
    /// 16-bit float.
    F16,
    /// 16-bit integer.
    I16,
}

fn fam_of(enc: Encoding) -> Option<Fam> {
    Some(match enc {
        Encoding::Sop1 => Fam::Sop1,
        Encoding::Sop2 => Fam::Sop2,
        Encoding::Sopk => Fam::Sopk,
        Encoding::Sopc => Fam::Sopc,
        Encoding::Sopp => Fam::Sopp,
        Encoding::Smem => Fam::Smem,
        Encoding::Vop1 => Fam::Vop1,
        Encoding::Vop2 => Fam::Vop2,
        Encoding::Vopc => Fam::Vopc,
        Encoding::Vop3 => Fam::Vop3,
        Encoding::Vop3p => Fam::Vop3p,
        Encoding::Ds => Fam::Ds,
        Encoding::Mubuf => Fam::Mubuf,
        Encoding::Mtbuf => Fam::Mtbuf,
        Encoding::Mimg => Fam::Mimg,
        Encoding::Flat => Fam::Flat,
        Encoding::Global => Fam::Global,
        Encoding::Scratch => Fam::Scratch,
        Encoding::Vopd => Fam::VopdX,
        Encoding::Ldsdir => Fam::Ldsdir,
        Encoding::Vinterp => Fam::Vinterp,
        Encoding::Exp => Fam::Exp,
        Encoding::Unknown => return None,
    })
}

/// The table row of an opcode in an encoding family (reverse lookup, built once).
pub(crate) fn entry_for(gen: Gen, fam: Fam, op: Opcode) -> Option<&'static Entry> {
    // The wave64 views share their wave32 generation's tables.
    let gen = gen.with_wave64(false);
    type Map = HashMap<(u8, u8, Opcode), &'static Entry>;
    static MAP: OnceLock<Map> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut m = Map::new();
        for g in Gen::ALL.into_iter().filter(|g| g.has_own_tables()) {
            for f in ALL_FAMS {
                for e in table(g, f).unwrap_or(&[]).iter().flatten() {
                    m.entry((g as u8, f as u8, e.opcode)).or_insert(e);
                }
            }
        }
        m
    });
    map.get(&(gen as u8, fam as u8, op)).copied()
}

/// The llvm-objdump text of `inst` (mnemonic and operands, single spaces), as decoded for
/// `gen` at address `pc` (branch targets print as the raw offset, like llvm-objdump).
pub fn format(inst: &Inst, gen: Gen, pc: u64) -> String {
    let _ = pc;
    let mut s = String::with_capacity(48);
    let Some(fam) = fam_of(inst.encoding) else {
        return "<unknown>".to_string();
    };
    let Some(e) = entry_for(gen, fam, inst.opcode) else {
        return format!("<{}>", inst.opcode.mnemonic());
    };
    let mut f = Fmt {
        s: &mut s,
        gen,
        first: true,
        name: e.name,
        packed_src: false,
    };
    match fam {
        Fam::Sopp => f.sopp(inst, e),
        Fam::Sopk => f.sopk(inst, e),
        Fam::Sop1 | Fam::Sop2 | Fam::Sopc => f.salu(inst, e),
        Fam::Smem => f.smem(inst, e),
        Fam::Vop1 | Fam::Vop2 | Fam::Vopc | Fam::Vop3 | Fam::Vop3p => f.valu(fam, inst, e),
        Fam::Ds => f.ds(inst, e),
        Fam::Flat | Fam::Global | Fam::Scratch => f.flat(fam, inst, e),
        Fam::Mubuf | Fam::Mtbuf => f.buffer(fam, inst, e),
        Fam::Mimg => f.mimg(inst, e),
        Fam::VopdX | Fam::VopdY => f.vopd(inst, e),
        Fam::Ldsdir => f.ldsdir(inst, e),
        Fam::Vinterp => f.vinterp(inst, e),
        Fam::Exp => f.exp(inst, e),
    }
    s
}

struct Fmt<'a> {
    s: &'a mut String,
    gen: Gen,
    first: bool,
    /// The printed mnemonic (LLVM 22's literal syntax depends on the operation).
    name: &'static str,
    /// The source being printed is a packed 16-bit pair (`v_dot2*` sources 0 and 1).
    packed_src: bool,
}

/// How constants print for source `i` of a VALU entry (probed from llvm-objdump).
fn src_kind(e: &Entry, i: usize, width: u8) -> Kind {
    match (e.mods >> (mods::KIND_SHIFT + 2 * i as u32)) & 3 {
        1 => Kind::B64,
        2 => Kind::F16,
        3 => Kind::I16,
        _ => {
            let _ = width;
            Kind::B32
        }
    }
}

impl Fmt<'_> {
    fn name(&mut self, n: &str) {
        self.s.push_str(n);
    }

    /// Starts the next operand (`" "` first, then `", "`).
    fn sep(&mut self) {
        if self.first {
            self.s.push(' ');
            self.first = false;
        } else {
            self.s.push_str(", ");
        }
    }

    /// Appends a space-separated modifier.
    fn modifier(&mut self, m: &str) {
        self.s.push(' ');
        self.s.push_str(m);
    }

    fn reg_range(&mut self, prefix: &str, n: u32, width: u8) {
        if width <= 1 {
            let _ = write!(self.s, "{prefix}{n}");
        } else {
            let _ = write!(self.s, "{prefix}[{n}:{}]", n + u32::from(width) - 1);
        }
    }

    fn operand(&mut self, op: Operand, width: u8, kind: Kind) {
        match op {
            Operand::None => self.s.push_str("off"),
            Operand::Sgpr(n) => self.reg_range("s", n.into(), width),
            Operand::Vgpr(n) => self.reg_range("v", n.into(), width),
            Operand::Agpr(n) => self.reg_range("a", n.into(), width),
            Operand::Ttmp(n) => self.reg_range("ttmp", n.into(), width),
            Operand::Vcc => self.s.push_str("vcc"),
            Operand::VccLo => self.s.push_str("vcc_lo"),
            Operand::VccHi => self.s.push_str("vcc_hi"),
            Operand::Exec => self.s.push_str("exec"),
            Operand::ExecLo => self.s.push_str("exec_lo"),
            Operand::ExecHi => self.s.push_str("exec_hi"),
            Operand::M0 => self.s.push_str("m0"),
            Operand::Scc | Operand::SrcScc => self.s.push_str("src_scc"),
            Operand::FlatScratch => self.s.push_str("flat_scratch"),
            Operand::FlatScratchLo => self.s.push_str("flat_scratch_lo"),
            Operand::FlatScratchHi => self.s.push_str("flat_scratch_hi"),
            Operand::XnackMask => self.s.push_str("xnack_mask"),
            Operand::XnackMaskLo => self.s.push_str("xnack_mask_lo"),
            Operand::XnackMaskHi => self.s.push_str("xnack_mask_hi"),
            Operand::Null => self.s.push_str("null"),
            Operand::Tba => self.s.push_str("tba"),
            Operand::TbaLo => self.s.push_str("tba_lo"),
            Operand::TbaHi => self.s.push_str("tba_hi"),
            Operand::Tma => self.s.push_str("tma"),
            Operand::TmaLo => self.s.push_str("tma_lo"),
            Operand::TmaHi => self.s.push_str("tma_hi"),
            Operand::SrcSharedBase => self.s.push_str("src_shared_base"),
            Operand::SrcSharedLimit => self.s.push_str("src_shared_limit"),
            Operand::SrcPrivateBase => self.s.push_str("src_private_base"),
            Operand::SrcPrivateLimit => self.s.push_str("src_private_limit"),
            Operand::PopsExitingWaveId => self.s.push_str("src_pops_exiting_wave_id"),
            Operand::SrcFlatScratchBaseLo => self.s.push_str("src_flat_scratch_base_lo"),
            Operand::SrcFlatScratchBaseHi => self.s.push_str("src_flat_scratch_base_hi"),
            Operand::SrcExecz => self.s.push_str("src_execz"),
            Operand::SrcVccz => self.s.push_str("src_vccz"),
            Operand::LdsDirect => self.s.push_str("src_lds_direct"),
            Operand::InlineInt(i) => {
                let _ = write!(self.s, "{i}");
            }
            Operand::InlineFloat(c) => self.float_const(c, kind),
            Operand::Literal(v) => self.literal(v, kind),
            Operand::Imm(v) => {
                let _ = write!(self.s, "{v:#x}");
            }
        }
    }

    fn float_const(&mut self, c: FloatConst, kind: Kind) {
        let t = match (c, kind) {
            (_, Kind::I16) => {
                let _ = write!(self.s, "{:#x}", c.bits16());
                return;
            }
            (FloatConst::InvTwoPi, Kind::B64) => "0.15915494309189532",
            (FloatConst::InvTwoPi, _) => "0.15915494",
            (FloatConst::Half, _) => "0.5",
            (FloatConst::MinusHalf, _) => "-0.5",
            (FloatConst::One, _) => "1.0",
            (FloatConst::MinusOne, _) => "-1.0",
            (FloatConst::Two, _) => "2.0",
            (FloatConst::MinusTwo, _) => "-2.0",
            (FloatConst::Four, _) => "4.0",
            (FloatConst::MinusFour, _) => "-4.0",
        };
        self.s.push_str(t);
    }

    /// Literals print by value: an inline-constant value prints as that constant (LLVM 15), or
    /// as `lit(0x…)` (LLVM 22, which keeps the literal encoding visible).
    fn literal(&mut self, v: u32, kind: Kind) {
        // `s_setreg_imm32_b32`'s immediate is no source operand: LLVM 22 prints it as before.
        if self.gen.llvm22() && self.name != "s_setreg_imm32_b32" {
            return self.literal_llvm22(v, kind);
        }
        match kind {
            Kind::B64 => {
                // LLVM 15 keeps the 32-bit literal zero-extended: small values print in decimal.
                if v <= 64 {
                    let _ = write!(self.s, "{v}");
                } else {
                    let _ = write!(self.s, "{v:#x}");
                }
            }
            Kind::B32 => {
                let i = v as i32;
                if (-16..=64).contains(&i) {
                    let _ = write!(self.s, "{i}");
                    return;
                }
                for c in FLOATS {
                    if c.bits32() == v {
                        return self.float_const(c, kind);
                    }
                }
                let _ = write!(self.s, "{v:#x}");
            }
            Kind::F16 | Kind::I16 => {
                let h = v as u16;
                let i = h as i16;
                if (-16..=64).contains(&i) {
                    let _ = write!(self.s, "{i}");
                    return;
                }
                if kind == Kind::F16 {
                    for c in FLOATS {
                        if c.bits16() == h {
                            return self.float_const(c, kind);
                        }
                    }
                }
                let _ = write!(self.s, "{h:#x}");
            }
        }
    }

    /// llvm-objdump-22: a literal whose value an inline constant could have encoded prints as
    /// `lit(0x…)` (all 32 bits); other 16-bit literals print their low half in hex, 32-bit
    /// ones all 32 bits, 64-bit ones (the high half of an f64 or the zero-extended integer) as
    /// LLVM 15 does.
    fn literal_llvm22(&mut self, v: u32, kind: Kind) {
        let int = |x: i32| (-16..=64).contains(&x);
        let f16_inline = |h: u16| FLOATS.iter().any(|c| c.bits16() == h);
        let f32_inline = FLOATS.iter().any(|c| c.bits32() == v);
        let inline = match kind {
            // GFX12: v_pk_fmac_f16's literal is checked as a 32-bit value, VOPD
            // v_dual_dot2acc_f32_f16's as a packed f16 pair.
            Kind::B32 if self.gen.is_gfx12() && self.name == "v_pk_fmac_f16" => {
                int(v as i32) || f32_inline
            }
            Kind::B32 if self.gen.is_gfx12() && self.name.contains("dot2acc_f32_f16") => {
                int(v as i32) || (v >> 16 == 0 && f16_inline(v as u16))
            }
            // Packed f16 pairs: an inline constant fills the low half only.
            // GFX11 packed 16-bit integers take any 32-bit inline constant; packed bf16 the
            // bf16 inline values.
            Kind::B32
                if self.gen.is_gfx11()
                    && self.name.starts_with("v_pk_")
                    && (self.name.contains("_i16") || self.name.contains("_u16")) =>
            {
                int(v as i32) || f32_inline
            }
            Kind::B32 if self.packed_src && self.name.contains("bf16") => {
                int(v as i32) || (v >> 16 == 0 && FLOATS.iter().any(|c| c.bits32() >> 16 == v))
            }
            Kind::B32 if self.name.starts_with("v_pk_") || self.packed_src => {
                int(v as i32) || (v >> 16 == 0 && f16_inline(v as u16))
            }
            Kind::B32 => int(v as i32) || f32_inline,
            Kind::F16 => int(v as u16 as i16 as i32) || f16_inline(v as u16),
            Kind::I16 => int(v as i32) || f32_inline,
            // An f64 literal is the high half: an inline value prints as its float, without
            // `lit`; a 64-bit integer literal is zero-extended.
            Kind::B64 if self.name.contains("_f64") => {
                let wide = u64::from(v) << 32;
                match FLOATS.iter().find(|c| c.bits64() == wide) {
                    Some(&c) => self.float_const(c, kind),
                    None => {
                        let _ = write!(self.s, "{v:#x}");
                    }
                }
                return;
            }
            Kind::B64 => v <= 64,
        };
        let _ = match (inline, kind) {
            (true, _) => write!(self.s, "lit({v:#x})"),
            (false, Kind::F16 | Kind::I16) => write!(self.s, "{:#x}", v as u16),
            (false, _) => write!(self.s, "{v:#x}"),
        };
    }

    fn sopp(&mut self, inst: &Inst, e: &Entry) {
        self.name(e.name);
        let imm = match inst.src[0] {
            Operand::Imm(v) => v,
            _ => 0,
        };
        let n = e.name;
        match n {
            "s_waitcnt" => {
                let (vm, exp, lgkm, vm_max, lgkm_max) = if self.gen == Gen::Gfx8 {
                    (imm & 0xf, (imm >> 4) & 7, (imm >> 8) & 0xf, 0xf, 0xf)
                } else if self.gen.is_gfx11() {
                    // GFX11: vmcnt 15:10, lgkmcnt 9:4, expcnt 2:0.
                    ((imm >> 10) & 0x3f, imm & 7, (imm >> 4) & 0x3f, 0x3f, 0x3f)
                } else if self.gen.is_gfx10() {
                    // GFX10: lgkmcnt is 6 bits.
                    (
                        (imm & 0xf) | ((imm >> 14) & 3) << 4,
                        (imm >> 4) & 7,
                        (imm >> 8) & 0x3f,
                        0x3f,
                        0x3f,
                    )
                } else {
                    (
                        (imm & 0xf) | ((imm >> 14) & 3) << 4,
                        (imm >> 4) & 7,
                        (imm >> 8) & 0xf,
                        0x3f,
                        0xf,
                    )
                };
                let mut parts = Vec::new();
                if vm != vm_max {
                    parts.push(format!("vmcnt({vm})"));
                }
                if exp != 7 {
                    parts.push(format!("expcnt({exp})"));
                }
                if lgkm != lgkm_max {
                    parts.push(format!("lgkmcnt({lgkm})"));
                }
                if parts.is_empty() {
                    parts.push(format!("vmcnt({vm}) expcnt({exp}) lgkmcnt({lgkm})"));
                }
                self.s.push(' ');
                self.s.push_str(&parts.join(" "));
            }
            "s_sendmsg" | "s_sendmsghalt" if self.gen.is_gfx11() => {
                self.s.push(' ');
                sendmsg_gfx11(self.s, imm, self.gen.is_gfx12());
            }
            "s_sendmsg" | "s_sendmsghalt" => {
                self.s.push(' ');
                self.sendmsg(imm);
            }
            "s_version" if self.gen.is_gfx11() => {
                self.s.push(' ');
                self.version(imm);
            }
            "s_set_gpr_idx_mode" if imm > 15 => {
                self.s.push(' ');
                self.u16_imm(imm);
            }
            "s_set_gpr_idx_mode" => {
                self.s.push(' ');
                self.gpr_idx(imm);
            }
            "s_endpgm" if imm == 0 => {}
            "s_endpgm" => {
                let _ = write!(self.s, " {imm}");
            }
            "s_waitcnt_depctr" | "s_wait_alu" => {
                self.s.push(' ');
                self.depctr(imm);
            }
            "s_delay_alu" => {
                self.s.push(' ');
                delay_alu(self.s, imm);
            }
            _ if e.mods & mods::SOPP_HEX != 0 => {
                let _ = write!(self.s, " {imm:#x}");
            }
            _ if !takes_imm(n) => {}
            _ if n.starts_with("s_branch") || n.starts_with("s_cbranch") => {
                let _ = write!(self.s, " {imm}");
            }
            _ => {
                self.s.push(' ');
                self.u16_imm(imm);
            }
        }
    }

    /// `s_version`: the microcode version (named where LLVM names it) and its flag bits.
    fn version(&mut self, imm: u32) {
        const FLAGS: [(u32, &str); 3] = [
            (0x2000, "UC_VERSION_W64_BIT"),
            (0x4000, "UC_VERSION_W32_BIT"),
            (0x8000, "UC_VERSION_MDP_BIT"),
        ];
        if imm & !0xe0ff != 0 {
            return self.u16_imm(imm);
        }
        let code = imm & 0xff;
        let name = match code {
            0 => "UC_VERSION_GFX7",
            4 => "UC_VERSION_GFX10",
            6 => "UC_VERSION_GFX11",
            9 => "UC_VERSION_GFX12",
            _ => "",
        };
        if imm & 0xe000 == 0 && name.is_empty() {
            return self.u16_imm(imm);
        }
        let mut parts = vec![if name.is_empty() {
            code.to_string()
        } else {
            name.to_string()
        }];
        parts.extend(
            FLAGS
                .iter()
                .filter(|f| imm & f.0 != 0)
                .map(|f| f.1.to_string()),
        );
        // LLVM 22 prints the flags as a left-nested expression: `(a|b)|c`.
        let mut text = parts[0].clone();
        for (i, p) in parts.iter().enumerate().skip(1) {
            if i > 1 {
                text = format!("({text})");
            }
            text.push('|');
            text.push_str(p);
        }
        self.s.push_str(&text);
    }

    /// A 16-bit immediate: decimal when it is an inline-constant value, else hex.
    fn u16_imm(&mut self, imm: u32) {
        if imm <= 64 {
            let _ = write!(self.s, "{imm}");
        } else {
            let _ = write!(self.s, "{imm:#x}");
        }
    }

    fn gpr_idx(&mut self, imm: u32) {
        let names = ["SRC0", "SRC1", "SRC2", "DST"];
        let on: Vec<&str> = (0..4)
            .filter(|b| imm >> b & 1 != 0)
            .map(|b| names[b])
            .collect();
        let _ = write!(self.s, "gpr_idx({})", on.join(","));
    }

    /// GFX10.3 `s_waitcnt_depctr`: the fields that differ from their defaults, by name (LLVM
    /// 15's order), or the number when bits outside the fields are set.
    fn depctr(&mut self, imm: u32) {
        // (name, bit offset, width, default)
        const FIELDS: [(&str, u32, u32, u32); 7] = [
            ("depctr_hold_cnt", 7, 1, 1),
            ("depctr_sa_sdst", 0, 1, 1),
            ("depctr_va_vdst", 12, 4, 15),
            ("depctr_va_sdst", 9, 3, 7),
            ("depctr_va_ssrc", 8, 1, 1),
            ("depctr_va_vcc", 1, 1, 1),
            ("depctr_vm_vsrc", 2, 3, 7),
        ];
        let known: u32 = FIELDS.iter().map(|&(_, o, w, _)| ((1 << w) - 1) << o).sum();
        if imm & !known != 0 {
            let _ = write!(self.s, "{imm:#x}");
            return;
        }
        let mut parts = Vec::new();
        for (name, off, width, default) in FIELDS {
            let v = (imm >> off) & ((1 << width) - 1);
            if v != default {
                parts.push(format!("{name}({v})"));
            }
        }
        if parts.is_empty() {
            for (name, off, width, _) in FIELDS {
                parts.push(format!("{name}({})", (imm >> off) & ((1 << width) - 1)));
            }
        }
        self.s.push_str(&parts.join(" "));
    }

    /// `s_sendmsg` operand: symbolic when LLVM's validity checks pass, else
    /// `sendmsg(id, op, stream)` when that re-encodes exactly, else the number.
    fn sendmsg(&mut self, imm: u32) {
        let id = imm & 0xf;
        let op = (imm >> 4) & 7;
        let stream = (imm >> 8) & 3;
        let gfx10 = self.gen.is_gfx10();
        let name = match id {
            1 => "MSG_INTERRUPT",
            2 => "MSG_GS",
            3 => "MSG_GS_DONE",
            4 if gfx10 => "MSG_SAVEWAVE",
            5 if gfx10 => "MSG_STALL_WAVE_GEN",
            6 if gfx10 => "MSG_HALT_WAVES",
            7 if gfx10 => "MSG_ORDERED_PS_DONE",
            8 if gfx10 => "MSG_EARLY_PRIM_DEALLOC",
            9 if self.gen != Gen::Gfx8 => "MSG_GS_ALLOC_REQ",
            10 if self.gen != Gen::Gfx8 => "MSG_GET_DOORBELL",
            11 if gfx10 => "MSG_GET_DDID",
            15 => "MSG_SYSMSG",
            _ => "",
        };
        let requires_op = matches!(id, 2 | 3 | 15);
        let op_ok = match id {
            2 => (1..=3).contains(&op),
            3 => op <= 3,
            15 => (1..=4).contains(&op),
            _ => op == 0,
        };
        let has_stream = matches!(id, 2 | 3) && op != 0;
        let stream_ok = has_stream || stream == 0;
        if !name.is_empty() && op_ok && stream_ok {
            let _ = write!(self.s, "sendmsg({name}");
            if requires_op {
                let opn = match (id, op) {
                    (15, 1) => "SYSMSG_OP_ECC_ERR_INTERRUPT",
                    (15, 2) => "SYSMSG_OP_REG_RD",
                    (15, 3) => "SYSMSG_OP_HOST_TRAP_ACK",
                    (15, _) => "SYSMSG_OP_TTRACE_PC",
                    (_, 0) => "GS_OP_NOP",
                    (_, 1) => "GS_OP_CUT",
                    (_, 2) => "GS_OP_EMIT",
                    _ => "GS_OP_EMIT_CUT",
                };
                let _ = write!(self.s, ", {opn}");
                if has_stream {
                    let _ = write!(self.s, ", {stream}");
                }
            }
            self.s.push(')');
        } else if id | (op << 4) | (stream << 8) == imm {
            let _ = write!(self.s, "sendmsg({id}, {op}, {stream})");
        } else {
            let _ = write!(self.s, "{imm}");
        }
    }

    fn sopk(&mut self, inst: &Inst, e: &Entry) {
        self.name(e.name);
        let imm = match inst.src[0] {
            Operand::Imm(v) => v,
            _ => 0,
        };
        for s in e.slots {
            self.sep();
            match s.field {
                F::Sdst => self.operand(inst.dst, s.width, Kind::B32),
                F::Hwreg => self.hwreg(imm),
                _ if e.name == "s_version" && self.gen.is_gfx11() => self.version(imm),
                F::Lit => {
                    if let Operand::Literal(v) = inst.src[1] {
                        self.literal(v, Kind::B32);
                    }
                }
                _ => {
                    if e.name.starts_with("s_call")
                        || e.name.starts_with("s_cbranch")
                        || e.name.starts_with("s_subvector_loop")
                    {
                        let _ = write!(self.s, "{imm}");
                    } else {
                        let _ = write!(self.s, "{imm:#x}");
                    }
                }
            }
        }
    }

    fn hwreg(&mut self, imm: u32) {
        let id = imm & 0x3f;
        let off = (imm >> 6) & 0x1f;
        let size = ((imm >> 11) & 0x1f) + 1;
        let name = if self.gen.is_gfx12() {
            hwreg_gfx12(id)
        } else if self.gen.is_gfx11() {
            hwreg_gfx11(id)
        } else if self.gen.is_gfx10() {
            hwreg_gfx10(id)
        } else {
            self.hwreg_gfx9(id)
        };
        if name.is_empty() {
            let _ = write!(self.s, "hwreg({id}");
        } else {
            let _ = write!(self.s, "hwreg({name}");
        }
        if off != 0 || size != 32 {
            let _ = write!(self.s, ", {off}, {size}");
        }
        self.s.push(')');
    }

    /// GFX8/GFX9 hardware register names.
    fn hwreg_gfx9(&self, id: u32) -> &'static str {
        match id {
            1 => "HW_REG_MODE",
            2 => "HW_REG_STATUS",
            3 => "HW_REG_TRAPSTS",
            4 => "HW_REG_HW_ID",
            5 => "HW_REG_GPR_ALLOC",
            6 => "HW_REG_LDS_ALLOC",
            7 => "HW_REG_IB_STS",
            15 if self.gen != Gen::Gfx8 => "HW_REG_SH_MEM_BASES",
            16 if self.gen != Gen::Gfx8 => "HW_REG_TBA_LO",
            17 if self.gen != Gen::Gfx8 => "HW_REG_TBA_HI",
            18 if self.gen != Gen::Gfx8 => "HW_REG_TMA_LO",
            19 if self.gen != Gen::Gfx8 => "HW_REG_TMA_HI",
            20 if self.gen.is_cdna3() => "HW_REG_XCC_ID",
            21 if self.gen.is_cdna3() => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
            22 if self.gen.is_cdna3() => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
            23 if self.gen.is_cdna3() => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
            24 if self.gen.is_cdna3() => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
            _ => "",
        }
    }

    fn salu(&mut self, inst: &Inst, e: &Entry) {
        self.name(e.name);
        // GFX11.5 SALU f16: SOP2 sources are f16 operands (constants print by the f16
        // rules); SOP1/SOPC ones print as 32-bit values, SOPC inline floats as their f16 bits.
        let f16 = e.name.ends_with("_f16") && inst.encoding == Encoding::Sop2;
        let sopc_f16 = e.name.ends_with("_f16") && inst.encoding == Encoding::Sopc;
        for s in e.slots {
            self.sep();
            let kind = if s.width >= 2 {
                Kind::B64
            } else if f16 {
                Kind::F16
            } else {
                Kind::B32
            };
            let src = match s.field {
                F::Src0 => Some(inst.src[0]),
                F::Src1 => Some(inst.src[1]),
                _ => None,
            };
            if let (true, Some(Operand::InlineFloat(c))) = (sopc_f16, src) {
                let _ = write!(self.s, "{:#x}", c.bits16());
                continue;
            }
            match s.field {
                F::Sdst => self.operand(inst.dst, s.width, kind),
                F::Src0 => self.operand(inst.src[0], s.width, kind),
                F::Src1 => self.operand(inst.src[1], s.width, kind),
                F::Lit => {
                    if let Operand::Literal(v) = inst.src[2] {
                        let _ = write!(self.s, "{v:#x}");
                    }
                }
                F::Sendmsg => {
                    let v = match inst.src[0] {
                        Operand::Imm(v) => v,
                        _ => 0,
                    };
                    sendmsg_gfx11(self.s, v, self.gen.is_gfx12());
                }
                F::Ssrc1Imm => {
                    let v = match inst.src[1] {
                        Operand::Imm(v) => v,
                        _ => 0,
                    };
                    if e.name == "s_set_gpr_idx_on" && v <= 15 {
                        self.gpr_idx(v);
                    } else {
                        let _ = write!(self.s, "{v:#x}");
                    }
                }
                _ => {}
            }
        }
    }

    fn smem(&mut self, inst: &Inst, e: &Entry) {
        self.name(e.name);
        let gfx10 = self.gen.is_rdna();
        // GFX12 `s_prefetch_*`: the offset, then the `soffset` SGPR (`null` printed).
        let prefetch = e.slots.iter().filter(|s| s.field == F::SmOffset).count() == 2;
        let mut offsets = 0;
        for s in e.slots {
            self.sep();
            match s.field {
                // GFX12: the offset always prints (`0x0`), after the SGPR as ` offset:`.
                F::SmOffset if self.gen.is_gfx12() && !prefetch => {
                    if inst.has(flags::SOFFSET) {
                        self.operand(inst.src[2], 1, Kind::B32);
                        self.s.push_str(" offset:");
                    }
                    signed_hex(self.s, inst.offset);
                }
                F::SmOffset if prefetch => {
                    offsets += 1;
                    if offsets == 1 {
                        signed_hex(self.s, inst.offset);
                    } else if inst.has(flags::SOFFSET) {
                        self.operand(inst.src[2], 1, Kind::B32);
                    } else {
                        self.s.push_str("null");
                    }
                }
                // GFX10: the soffset SGPR (then ` offset:` if any), else the offset; LLVM prints
                // the `null` soffset when the offset is 0.
                F::SmOffset if gfx10 => {
                    if inst.has(flags::SOFFSET) {
                        self.operand(inst.src[2], 1, Kind::B32);
                        if inst.offset != 0 {
                            self.s.push_str(" offset:");
                            signed_hex(self.s, inst.offset);
                        }
                    } else if inst.offset == 0 {
                        self.s.push_str("null");
                    } else {
                        signed_hex(self.s, inst.offset);
                    }
                }
                F::Sdata => self.operand(inst.dst, s.width, Kind::B32),
                F::SdataImm => {
                    if let Operand::Imm(v) = inst.src[1] {
                        let _ = write!(self.s, "{v}");
                    }
                }
                F::Sbase => self.operand(inst.src[0], s.width, Kind::B32),
                F::SmOffset => {
                    if inst.has(flags::SOFFSET) {
                        self.operand(inst.src[2], 1, Kind::B32);
                        if inst.offset != 0 {
                            let _ = write!(self.s, " offset:{:#x}", inst.offset);
                        }
                    } else {
                        let _ = write!(self.s, "{:#x}", inst.offset);
                    }
                }
                _ => {}
            }
        }
        let loads = e.slots.iter().any(|s| s.field == F::Sbase)
            && e.slots.iter().any(|s| s.field == F::Sdata);
        if self.gen.is_gfx12() {
            if loads {
                self.cpol(inst, e);
            }
            return;
        }
        if inst.has(flags::GLC) && loads {
            self.modifier("glc");
        }
        if inst.has(flags::DLC) && loads {
            self.modifier("dlc");
        }
    }

    fn valu(&mut self, fam: Fam, inst: &Inst, e: &Entry) {
        let sdwa = matches!(inst.ext, Ext::Sdwa(_));
        let dpp = matches!(inst.ext, Ext::Dpp(_) | Ext::Dpp8(_));
        if dpp && fam == Fam::Vop3 {
            // GFX11 VOP3 DPP: `_e64_dpp` (VOP3-only opcodes gain `_e64`).
            self.name(e.name.trim_end_matches("_e64"));
            self.name("_e64_dpp");
        } else if sdwa || dpp {
            let base = e.name.trim_end_matches("_e32");
            self.name(base);
            // LLVM 15 prints GFX8 VOPC SDWA without the `_sdwa` suffix; LLVM 22 GFX11 VOPC
            // DPP has no suffix.
            let vopc11 = dpp && fam == Fam::Vopc && self.gen.is_gfx11();
            if !(vopc11 || sdwa && fam == Fam::Vopc && self.gen == Gen::Gfx8) {
                self.name(if sdwa { "_sdwa" } else { "_dpp" });
            }
        } else if let Some(shape) = e
            .name
            .strip_prefix("v_mfma_")
            .filter(|_| matches!(inst.ext, Ext::MfmaScale { .. }))
        {
            // gfx950 scaled MFMA (the `v_mfma_ld_scale_b32` prefix and the MFMA as one).
            self.name("v_mfma_scale_");
            self.name(shape);
        } else {
            self.name(e.name);
        }
        let pl = &e.places;
        let vop3 = matches!(fam, Fam::Vop3);
        let vop3p = matches!(fam, Fam::Vop3p);
        let mut src_i = 0usize;
        let mut nsrc = 0usize;
        for (i, s) in e.slots.iter().enumerate() {
            self.sep();
            let src_index = match s.field {
                F::Src0 => 0,
                F::Src1 | F::Vsrc1 => 1,
                _ => 2,
            };
            let mut width = s.width_on(self.gen);
            if self.gen == Gen::Gfx11W64
                && e.name.starts_with("v_wmma")
                && matches!(s.field, F::Vdst | F::Src2)
            {
                // WMMA in wave64: C and D have half the VGPRs.
                width /= 2;
            }
            if self.gen == Gen::Gfx12W64
                && (e.name.starts_with("v_wmma") || e.name.starts_with("v_swmmac"))
            {
                // GFX12 WMMA/SWMMAC in wave64: every matrix operand has half the VGPRs
                // (SWMMAC's one-VGPR index stays one).
                width = (width / 2).max(1);
            }
            if let (F::Src0 | F::Src1, Some(w)) = (s.field, inst.f8f6f4_src_dwords(src_index)) {
                width = w;
            }
            let kind = src_kind(e, src_index, width);
            let (op, is_src) = match pl[i] {
                Place::Dst => (inst.dst, false),
                Place::Sdst => (inst.sdst, false),
                Place::Src(k) => (inst.src[usize::from(k)], true),
                Place::Nowhere => (Operand::None, false),
            };
            let kind = match op {
                Operand::Literal(v) if e.mods & mods::PACKED_LIT != 0 && v > 0xffff => Kind::B32,
                _ => kind,
            };
            self.packed_src = e.name.starts_with("v_dot2") && src_index < 2;
            if s.field == F::Vcc && !(sdwa && fam == Fam::Vopc && i == 0) {
                // VOPC SDWA may have an SGPR destination instead of vcc.
                self.s.push_str(if self.gen.lane_mask_dwords() == 1 {
                    "vcc_lo"
                } else {
                    "vcc"
                });
                continue;
            }
            if s.field == F::Lit {
                if let Operand::Literal(v) = op {
                    let _ = write!(self.s, "{v:#x}");
                }
                continue;
            }
            if is_src && matches!(s.field, F::Src0 | F::Src1 | F::Src2 | F::Vsrc1) {
                let bit = 1u8 << src_i;
                src_i += 1;
                nsrc += 1;
                let neg = inst.mods.neg & bit != 0;
                let abs = inst.mods.abs & bit != 0;
                let sext = match inst.ext {
                    Ext::Sdwa(sd) => sd.sext & bit != 0,
                    _ => {
                        let sext_bits = if dpp {
                            e.mods / mods::DPP_SEXT
                        } else {
                            e.mods / mods::SEXT
                        };
                        neg && sext_bits & u32::from(bit) != 0
                    }
                };
                // Outside SDWA, `sext` is the neg bit of an integer source.
                let neg = neg && (matches!(inst.ext, Ext::Sdwa(_)) || !sext);
                let mix = vop3p && e.name.contains("_mix");
                if vop3p && !mix {
                    // MFMA: an SGPR C operand wider than 16 dwords prints as its first register.
                    let scalar_c = s.field == F::Src2
                        && !matches!(op, Operand::Vgpr(_) | Operand::Agpr(_))
                        && width > 16;
                    let op = self.gfx940_acc_quirk(e, s, op);
                    self.operand(op, if scalar_c { 1 } else { width }, kind);
                    continue;
                }
                // v_fma_mix/v_mad_mix: neg_lo is `-`, neg_hi is `|…|`.
                let (neg, abs) = if mix {
                    (neg, inst.mods.neg_hi & bit != 0)
                } else {
                    (neg, abs)
                };
                let is_const = matches!(
                    op,
                    Operand::InlineInt(_) | Operand::InlineFloat(_) | Operand::Literal(_)
                );
                if neg && !abs && is_const {
                    let at = self.s.len();
                    self.operand(op, width, kind);
                    // LLVM 22 negates a `lit(…)` with a minus sign.
                    if self.s[at..].starts_with("lit(") {
                        self.s.insert(at, '-');
                    } else {
                        self.s.insert_str(at, "neg(");
                        self.s.push(')');
                    }
                    continue;
                }
                if neg {
                    self.s.push('-');
                }
                if abs {
                    self.s.push('|');
                }
                if sext {
                    self.s.push_str("sext(");
                }
                self.operand(op, width, kind);
                if s.class == b't' && self.true16(e, inst) {
                    self.half(op, inst.mods.op_sel >> src_index);
                }
                if sext {
                    self.s.push(')');
                }
                if abs {
                    self.s.push('|');
                }
            } else if vop3p && s.field == F::Vdst {
                let op = self.gfx940_acc_quirk(e, s, op);
                self.operand(op, width, kind);
            } else if fam == Fam::Vopc && sdwa && i == 0 {
                self.operand(inst.dst, self.gen.lane_mask_dwords(), Kind::B32);
            } else {
                self.operand(op, width, kind);
                if s.class == b't' && self.true16(e, inst) {
                    self.half(op, inst.mods.op_sel >> 3);
                }
            }
        }
        if vop3 && self.gen.is_cdna3() && e.name.starts_with("v_permlane") {
            // gfx950 v_permlane16/32_swap_b32_e64.
            if inst.mods.op_sel & 2 != 0 {
                self.modifier("bound_ctrl:1");
            }
            if inst.mods.op_sel & 1 != 0 {
                self.modifier("fi:1");
            }
        } else if vop3 && e.name.starts_with("v_permlane") {
            // op_sel bits 0 and 1 are fi and bound_ctrl; LLVM prints just those two.
            if inst.mods.op_sel & 3 != 0 {
                let _ = write!(
                    self.s,
                    " op_sel:[{},{}]",
                    inst.mods.op_sel & 1,
                    (inst.mods.op_sel >> 1) & 1
                );
            }
        } else if vop3 {
            if e.name.starts_with("v_bitop3") && inst.offset != 0 {
                let t = inst.offset;
                let _ = if t < 10 {
                    write!(self.s, " bitop3:{t}")
                } else {
                    write!(self.s, " bitop3:{t:#x}")
                };
            }
            let t16 = self.gen.is_gfx11() && has_t16(e);
            let op_sel = inst.mods.op_sel & !opsel_ignored(e.name);
            if let Some(b) = self.byte_sel(e, inst) {
                if b != 0 {
                    let _ = write!(self.s, " byte_sel:{b}");
                }
            } else if t16 {
                let has_op_sel = e.mods & mods::OP_SEL != 0 || opsel_ignored(e.name) != 0;
                if op_sel != 0 && true16_form(e, inst) && has_op_sel {
                    // One entry per source (`v_fmac_*` counts its tied accumulator), and the
                    // destination's when the row has one.
                    let dst = e.slots.iter().any(|s| s.field == F::Vdst);
                    let n = nsrc + usize::from(e.name.starts_with("v_fmac_"));
                    let bits: Vec<String> = (0..n)
                        .map(|b| ((op_sel >> b) & 1).to_string())
                        .chain(dst.then(|| ((op_sel >> 3) & 1).to_string()))
                        .collect();
                    let _ = write!(self.s, " op_sel:[{}]", bits.join(","));
                }
            } else if op_sel != 0 && (e.mods & mods::OP_SEL != 0) {
                // gfx940 v_cvt_sr_* (fp8/bf8) and gfx950 v_cvt_scalef32_pk_fp4_*: LLVM counts
                // the tied old destination as a third source.
                let tied = matches!(
                    e.name,
                    "v_cvt_sr_fp8_f32"
                        | "v_cvt_sr_bf8_f32"
                        | "v_cvt_scalef32_pk_fp4_f16"
                        | "v_cvt_scalef32_pk_fp4_bf16"
                );
                let nsrc = if tied { 3 } else { nsrc };
                let bits: Vec<String> = (0..nsrc)
                    .map(|b| ((op_sel >> b) & 1).to_string())
                    .chain(std::iter::once(((op_sel >> 3) & 1).to_string()))
                    .collect();
                let _ = write!(self.s, " op_sel:[{}]", bits.join(","));
            }
            if inst.mods.clamp {
                self.modifier("clamp");
            }
            match inst.mods.omod {
                1 => self.modifier("mul:2"),
                2 => self.modifier("mul:4"),
                3 => self.modifier("div:2"),
                _ => {}
            }
        }
        if let Ext::MfmaScale {
            scale,
            op_sel,
            op_sel_hi,
        } = inst.ext
        {
            // The scale sources, then the prefix's op_sel (when set) and op_sel_hi (always:
            // its default is not LLVM's usual all-ones), each with a third, zero, bit.
            for op in scale {
                self.sep();
                self.operand(op, 1, Kind::B32);
            }
            if op_sel != 0 {
                let _ = write!(self.s, " op_sel:[{},{},0]", op_sel & 1, op_sel >> 1);
            }
            let _ = write!(
                self.s,
                " op_sel_hi:[{},{},0]",
                op_sel_hi & 1,
                op_sel_hi >> 1
            );
        }
        if vop3p {
            self.vop3p_mods(inst, e, nsrc);
        }
        match inst.ext {
            Ext::Sdwa(sd) => {
                if inst.mods.clamp {
                    self.modifier("clamp");
                }
                match inst.mods.omod {
                    1 => self.modifier("mul:2"),
                    2 => self.modifier("mul:4"),
                    3 => self.modifier("div:2"),
                    _ => {}
                }
                let sel = |v: u8| match v {
                    0 => "BYTE_0",
                    1 => "BYTE_1",
                    2 => "BYTE_2",
                    3 => "BYTE_3",
                    4 => "WORD_0",
                    5 => "WORD_1",
                    _ => "DWORD",
                };
                // LLVM 22: the fp8/bf8 to f32 conversions have only src0_sel.
                let fp8_src = self.gen.llvm22()
                    && [
                        "v_cvt_f32_fp8",
                        "v_cvt_f32_bf8",
                        "v_cvt_pk_f32_fp8",
                        "v_cvt_pk_f32_bf8",
                    ]
                    .iter()
                    .any(|p| e.name.starts_with(p));
                if fam != Fam::Vopc && !fp8_src {
                    let _ = write!(self.s, " dst_sel:{}", sel(sd.dst_sel));
                    let unused = match sd.dst_unused {
                        1 => "UNUSED_SEXT",
                        2 => "UNUSED_PRESERVE",
                        _ => "UNUSED_PAD",
                    };
                    let _ = write!(self.s, " dst_unused:{unused}");
                }
                let _ = write!(self.s, " src0_sel:{}", sel(sd.src0_sel));
                if fam != Fam::Vop1 {
                    let _ = write!(self.s, " src1_sel:{}", sel(sd.src1_sel));
                }
            }
            Ext::Dpp(d) => {
                self.dpp_ctrl(d.ctrl);
                let _ = write!(
                    self.s,
                    " row_mask:{:#x} bank_mask:{:#x}",
                    d.row_mask, d.bank_mask
                );
                if d.bound_ctrl {
                    // LLVM 15 prints the set bit as `bound_ctrl:1` (and accepts `bound_ctrl:0`).
                    self.modifier("bound_ctrl:1");
                }
                if d.fi {
                    self.modifier("fi:1");
                }
            }
            Ext::Dpp8(d) => {
                let sel: Vec<String> = d.sel.iter().map(u8::to_string).collect();
                let _ = write!(self.s, " dpp8:[{}]", sel.join(","));
                if d.fi {
                    self.modifier("fi:1");
                }
            }
            _ => {}
        }
    }

    /// Whether true16 operands print with `.l`/`.h` (see [`true16_form`]).
    /// GFX12 fp8/bf8 conversions print their `op_sel` bits as `byte_sel` (the byte of the
    /// packed source or destination): `None` for every other row.
    fn byte_sel(&self, e: &Entry, inst: &Inst) -> Option<u8> {
        if !self.gen.is_gfx12() {
            return None;
        }
        let o = inst.mods.op_sel;
        match e.name {
            "v_cvt_f32_fp8_e64" | "v_cvt_f32_bf8_e64" => Some((o & 1) << 1 | (o >> 1) & 1),
            "v_cvt_sr_fp8_f32" | "v_cvt_sr_bf8_f32" => Some((o >> 2) & 3),
            _ => None,
        }
    }

    fn true16(&self, e: &Entry, inst: &Inst) -> bool {
        true16_form(e, inst)
    }

    /// GFX11 true16: `.l`/`.h` after a VGPR operand (bit 0 of `sel`: the high half).
    fn half(&mut self, op: Operand, sel: u8) {
        if matches!(op, Operand::Vgpr(_)) {
            self.s.push_str(if sel & 1 != 0 { ".h" } else { ".l" });
        }
    }

    /// GFX11 LDSDIR: `lds_param_load v1, attr2.y wait_vdst:0`, `lds_direct_load v1 wait_vdst:0`;
    /// GFX12 VDSDIR: `ds_param_load v1, attr2.y wait_va_vdst:0 wait_vm_vsrc:0`.
    fn ldsdir(&mut self, inst: &Inst, e: &Entry) {
        let Ext::Ldsdir {
            attr,
            chan,
            wait_vdst,
            wait_vm_vsrc,
        } = inst.ext
        else {
            return;
        };
        self.name(e.name);
        self.sep();
        self.operand(inst.dst, 1, Kind::B32);
        if e.slots.iter().any(|s| s.field == F::Attr) {
            let c = ["x", "y", "z", "w"][usize::from(chan & 3)];
            let _ = write!(self.s, ", attr{attr}.{c}");
        }
        let _ = if self.gen.is_gfx12() {
            write!(
                self.s,
                " wait_va_vdst:{wait_vdst} wait_vm_vsrc:{wait_vm_vsrc}"
            )
        } else {
            write!(self.s, " wait_vdst:{wait_vdst}")
        };
    }

    /// GFX11 EXP, GFX12 EXPORT: `exp mrt0 v1, off, v3, off done row_en`.
    fn exp(&mut self, inst: &Inst, e: &Entry) {
        let Ext::Exp {
            target,
            en,
            vsrc,
            done,
            row_en,
        } = inst.ext
        else {
            return;
        };
        self.name(e.name);
        let _ = match target {
            0..=7 => write!(self.s, " mrt{target}"),
            8 => write!(self.s, " mrtz"),
            12..=16 => write!(self.s, " pos{}", target - 12),
            20 => write!(self.s, " prim"),
            21 | 22 => write!(self.s, " dual_src_blend{}", target - 21),
            _ => write!(self.s, " invalid_target_{target}"),
        };
        for (i, v) in vsrc.iter().enumerate() {
            self.s.push_str(if i == 0 { " " } else { ", " });
            if (en >> i) & 1 != 0 {
                let _ = write!(self.s, "v{v}");
            } else {
                self.s.push_str("off");
            }
        }
        if done {
            self.s.push_str(" done");
        }
        if row_en {
            self.s.push_str(" row_en");
        }
    }

    /// GFX11 VINTERP: `v_interp_p10_f32 v0, -v1, v2, v3 clamp wait_exp:0`; the f16 forms
    /// print the whole `op_sel` and, on GFX11, true16 halves (`op_sel` bits 0, 2 and 3: src0,
    /// src2, vdst).
    fn vinterp(&mut self, inst: &Inst, e: &Entry) {
        let Ext::Vinterp { wait_exp } = inst.ext else {
            return;
        };
        let m = &inst.mods;
        self.name(e.name);
        for (i, s) in e.slots.iter().enumerate() {
            self.sep();
            let (op, sel) = match e.places[i] {
                Place::Dst => (inst.dst, 3),
                Place::Src(k) => {
                    if (m.neg >> k) & 1 != 0 {
                        self.s.push('-');
                    }
                    (inst.src[usize::from(k)], k)
                }
                _ => (Operand::None, 0),
            };
            self.operand(op, 1, Kind::B32);
            if s.class == b't' {
                self.half(op, m.op_sel >> sel);
            }
        }
        if m.clamp {
            self.s.push_str(" clamp");
        }
        if e.name.contains("_f16") && m.op_sel != 0 {
            let b = |i: u8| (m.op_sel >> i) & 1;
            let _ = write!(self.s, " op_sel:[{},{},{},{}]", b(0), b(1), b(2), b(3));
        }
        let _ = write!(self.s, " wait_exp:{wait_exp}");
    }

    /// GFX11 VOPD: `v_dual_<x> vdst, src0, vsrc1 :: v_dual_<y> vdst, src0, vsrc1` (with the
    /// `fmaak`/`fmamk` constant where the half has one).
    fn vopd(&mut self, inst: &Inst, e: &Entry) {
        let Ext::Vopd(y) = inst.ext else {
            return;
        };
        self.vopd_half(e, inst.dst, inst.src);
        let Some(ye) = crate::tables::vopd_y_entry(self.gen, y.opcode) else {
            return;
        };
        self.s.push_str(" :: ");
        self.first = true;
        let mut src = [Operand::None; 3];
        for (i, s) in ye.slots.iter().enumerate() {
            if let Place::Src(k) = ye.places[i] {
                src[usize::from(k)] = match s.field {
                    F::Src0 => inst.sdst,
                    F::Vsrc1 => Operand::Vgpr(y.vsrc1.into()),
                    _ => Operand::Literal(y.lit),
                };
            }
        }
        self.vopd_half(ye, Operand::Vgpr(y.vdst.into()), src);
    }

    fn vopd_half(&mut self, e: &Entry, dst: Operand, src: [Operand; 3]) {
        self.name(e.name);
        // The literal syntax depends on the half's operation.
        self.name = e.name;
        for (i, s) in e.slots.iter().enumerate() {
            self.sep();
            let op = match e.places[i] {
                Place::Dst => dst,
                Place::Src(k) => src[usize::from(k)],
                _ => Operand::None,
            };
            match (s.field, op) {
                (F::Lit, Operand::Literal(v)) => {
                    let _ = write!(self.s, "{v:#x}");
                }
                _ => self.operand(op, s.width, Kind::B32),
            }
        }
    }

    fn vop3p_mods(&mut self, inst: &Inst, e: &Entry, nsrc: usize) {
        let m = &inst.mods;
        let list = |v: u8| -> String {
            (0..nsrc)
                .map(|b| ((v >> b) & 1).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let mfma = (e.name.starts_with("v_mfma") || e.name.starts_with("v_smfmac"))
            && e.name != "v_mfma_ld_scale_b32";
        if mfma {
            // cbsz = neg_hi bits (10:8), abid = op_sel/op_sel_hi2 (14:11), blgp = neg (63:61).
            let cbsz = m.neg_hi;
            let abid = m.op_sel | ((m.op_sel_hi >> 2) << 3);
            if cbsz != 0 {
                let _ = write!(self.s, " cbsz:{cbsz}");
            }
            if abid != 0 {
                let _ = write!(self.s, " abid:{abid}");
            }
            if m.neg != 0 && self.gen.is_cdna3() && e.name.contains("_f64") {
                // gfx940 f64 MFMAs reuse the blgp field as neg.
                let _ = write!(
                    self.s,
                    " neg:[{},{},{}]",
                    m.neg & 1,
                    (m.neg >> 1) & 1,
                    (m.neg >> 2) & 1
                );
            } else if m.neg != 0 {
                let _ = write!(self.s, " blgp:{}", m.neg);
            }
            return;
        }
        let mix = e.name.contains("_mix");
        let all = ((1u16 << nsrc) - 1) as u8;
        // GFX12 SWMMAC: op_sel[1:0] is `index_key`, the set of the index VGPR.
        let op_sel = if e.name.starts_with("v_swmmac") {
            if m.op_sel != 0 {
                let _ = write!(self.s, " index_key:{}", m.op_sel);
            }
            0
        } else {
            m.op_sel
        };
        if op_sel & all != 0 {
            let _ = write!(self.s, " op_sel:[{}]", list(op_sel));
        }
        // LLVM 22 has no op_sel_hi on the integer dot products.
        let no_hi = self.gen.llvm22()
            && (e.name.starts_with("v_dot4_")
                || e.name.starts_with("v_dot8_")
                || e.name.starts_with("v_wmma"));
        if !no_hi && ((mix && m.op_sel_hi & all != 0) || (!mix && m.op_sel_hi & all != all)) {
            let _ = write!(self.s, " op_sel_hi:[{}]", list(m.op_sel_hi));
        }
        if m.neg & all != 0 && !mix {
            let _ = write!(self.s, " neg_lo:[{}]", list(m.neg));
        }
        if m.neg_hi & all != 0 && !mix {
            let _ = write!(self.s, " neg_hi:[{}]", list(m.neg_hi));
        }
        if m.clamp {
            self.modifier("clamp");
        }
    }

    /// LLVM 15 prints the destination and C operand of gfx940 MFMAs as AGPRs whatever `acc_cd`
    /// says; the decoded [`Inst`] keeps what the hardware uses.
    fn gfx940_acc_quirk(&self, e: &Entry, s: &Slot, op: Operand) -> Operand {
        let mfma = (e.name.starts_with("v_mfma") || e.name.starts_with("v_smfmac"))
            && e.name != "v_mfma_ld_scale_b32";
        match op {
            Operand::Vgpr(n)
                if self.gen.is_cdna3()
                    && mfma
                    && matches!(s.field, F::Vdst | F::Src2)
                    && s.class == b'a' =>
            {
                Operand::Agpr(n)
            }
            o => o,
        }
    }

    /// gfx90a and gfx940 (`row_newbcast`; llvm-objdump-15 still prints `row_bcast` there, which
    /// clang-15 emits for the device libraries' wave reductions).
    fn cdna2(&self) -> bool {
        self.gen.unified_agprs()
    }

    fn dpp_ctrl(&mut self, c: u16) {
        let c = u32::from(c);
        // GFX10 drops the wave shifts and row broadcasts and reuses 0x150–0x16f for
        // row_share/row_xmask; gfx90a/gfx940 use 0x150–0x15f for row_newbcast.
        let gfx10 = self.gen.is_rdna();
        let _ = match c {
            0x000..=0x0ff => write!(
                self.s,
                " quad_perm:[{},{},{},{}]",
                c & 3,
                (c >> 2) & 3,
                (c >> 4) & 3,
                (c >> 6) & 3
            ),
            0x101..=0x10f => write!(self.s, " row_shl:{}", c & 0xf),
            0x111..=0x11f => write!(self.s, " row_shr:{}", c & 0xf),
            0x121..=0x12f => write!(self.s, " row_ror:{}", c & 0xf),
            0x130 if !gfx10 => write!(self.s, " wave_shl:1"),
            0x134 if !gfx10 => write!(self.s, " wave_rol:1"),
            0x138 if !gfx10 => write!(self.s, " wave_shr:1"),
            0x13c if !gfx10 => write!(self.s, " wave_ror:1"),
            0x140 => write!(self.s, " row_mirror"),
            0x141 => write!(self.s, " row_half_mirror"),
            0x142 if !gfx10 => write!(self.s, " row_bcast:15"),
            0x143 if !gfx10 => write!(self.s, " row_bcast:31"),
            0x150..=0x15f if gfx10 => write!(self.s, " row_share:{}", c & 0xf),
            0x160..=0x16f if gfx10 => write!(self.s, " row_xmask:{}", c & 0xf),
            0x150..=0x15f if self.cdna2() => write!(self.s, " row_newbcast:{}", c & 0xf),
            _ => write!(self.s, " /* invalid dpp_ctrl {c:#x} */"),
        };
    }

    fn ds(&mut self, inst: &Inst, e: &Entry) {
        self.name(e.name);
        let two = e.name.contains("2st64")
            || e.name.contains("_2addr")
            || e.name.contains("read2")
            || e.name.contains("write2")
            || e.name.contains("wrxchg2");
        for s in e.slots {
            self.sep();
            let op = match s.field {
                F::Vdst => inst.dst,
                F::Addr => inst.src[0],
                F::Data0 => inst.src[1],
                F::Data1 => inst.src[2],
                _ => Operand::None,
            };
            self.operand(op, s.width, Kind::B32);
        }
        if two {
            if inst.offset != 0 {
                let _ = write!(self.s, " offset0:{}", inst.offset);
            }
            if inst.offset1 != 0 {
                let _ = write!(self.s, " offset1:{}", inst.offset1);
            }
        } else {
            let off = inst.offset as u32 | (u32::from(inst.offset1) << 8);
            if off != 0 {
                if let Some(sw) = (e.name == "ds_swizzle_b32")
                    .then(|| swizzle(off, self.gen.llvm22()))
                    .flatten()
                {
                    let _ = write!(self.s, " offset:swizzle({sw})");
                } else {
                    let _ = write!(self.s, " offset:{off}");
                }
            }
        }
        if inst.has(flags::GDS) {
            self.modifier("gds");
        }
    }

    /// GFX12 cache policy: `th:` named by the operation kind (load, store, atomic), then
    /// `scope:`; both omitted when 0.
    fn cpol(&mut self, inst: &Inst, e: &Entry) {
        let th = cpol::th(inst.offset1);
        let scope = cpol::scope(inst.offset1);
        if th != 0 {
            let n = e.name;
            let atomic = n.contains("atomic");
            let store = !atomic && n.contains("store");
            let sys = scope == cpol::SCOPE_SYS;
            self.s.push_str(" th:");
            let name = if atomic {
                match th {
                    1 => Some("TH_ATOMIC_RETURN"),
                    2 => Some("TH_ATOMIC_NT"),
                    3 => Some("TH_ATOMIC_NT_RETURN"),
                    4 | 5 if scope >= cpol::SCOPE_DEV => Some("TH_ATOMIC_CASCADE_RT"),
                    6 | 7 if scope >= cpol::SCOPE_DEV => Some("TH_ATOMIC_CASCADE_NT"),
                    _ => None,
                }
            } else {
                let kind = if store { "TH_STORE_" } else { "TH_LOAD_" };
                self.s.push_str(kind);
                Some(match (th, store) {
                    (1, _) => "NT",
                    (2, _) => "HT",
                    (3, _) if sys => "BYPASS",
                    (3, false) => "LU",
                    (3, true) => "WB",
                    (4, _) => "NT_RT",
                    (5, _) => "RT_NT",
                    (6, _) => "NT_HT",
                    (_, true) => "NT_WB",
                    // th 7 of a load has no name.
                    _ => {
                        self.s.truncate(self.s.len() - kind.len());
                        "0x7"
                    }
                })
            };
            match name {
                Some(x) => self.s.push_str(x),
                None => {
                    let _ = write!(self.s, "TH_ATOMIC_{th:#x}");
                }
            }
        }
        if scope != 0 {
            self.s.push_str(
                [
                    " scope:SCOPE_CU",
                    " scope:SCOPE_SE",
                    " scope:SCOPE_DEV",
                    " scope:SCOPE_SYS",
                ][usize::from(scope)],
            );
        }
    }

    fn cache_bits(&mut self, inst: &Inst) {
        if self.gen.is_rdna() {
            for (f, n) in [
                (flags::GLC, "glc"),
                (flags::SLC, "slc"),
                (flags::DLC, "dlc"),
            ] {
                if inst.has(f) {
                    self.modifier(n);
                }
            }
            return;
        }
        if self.gen.is_cdna3() {
            if inst.has(flags::GLC) {
                self.modifier("sc0");
            }
            if inst.has(flags::SLC) {
                self.modifier("nt");
            }
            if inst.has(flags::SC1) {
                self.modifier("sc1");
            }
        } else {
            if inst.has(flags::GLC) {
                self.modifier("glc");
            }
            if inst.has(flags::SLC) {
                self.modifier("slc");
            }
            if inst.has(flags::SC1) {
                self.modifier("scc");
            }
        }
    }

    fn flat(&mut self, fam: Fam, inst: &Inst, e: &Entry) {
        self.name(e.name);
        if e.slots.is_empty() && self.gen.is_gfx12() {
            // global_inv, global_wb, global_wbinv: the cache policy only.
            self.cpol(inst, e);
            return;
        }
        let saddr = inst.src[2] != Operand::None;
        if inst.has(flags::GLC) && e.name.contains("atomic") {
            if let Some(d) = e.slots.iter().find(|s| s.field == F::Data) {
                let w = if e.name.contains("cmpswap") {
                    d.width / 2
                } else {
                    d.width
                };
                self.sep();
                self.operand(inst.dst, w.max(1), Kind::B32);
            }
        }
        let gfx10 = self.gen.is_rdna();
        for s in e.slots {
            match s.field {
                // GFX10: with `lds` the data goes to LDS and vdst is not printed.
                F::Vdst if gfx10 && inst.has(flags::LDS) => {}
                F::Vdst => {
                    self.sep();
                    self.operand(inst.dst, s.width, Kind::B32);
                }
                F::Addr | F::Off => {
                    self.sep();
                    let w = match fam {
                        Fam::Flat => 2,
                        Fam::Global => {
                            if saddr {
                                1
                            } else {
                                2
                            }
                        }
                        _ => 1,
                    };
                    if fam == Fam::Scratch && inst.src[0] == Operand::None {
                        self.s.push_str("off");
                    } else {
                        self.operand(inst.src[0], w, Kind::B32);
                    }
                }
                F::Data => {
                    self.sep();
                    self.operand(inst.src[1], s.width, Kind::B32);
                }
                _ => {}
            }
        }
        if fam != Fam::Flat {
            self.sep();
            if saddr {
                self.operand(
                    inst.src[2],
                    if fam == Fam::Global { 2 } else { 1 },
                    Kind::B32,
                );
            } else {
                self.s.push_str("off");
            }
        }
        if inst.offset != 0 {
            let _ = write!(self.s, " offset:{}", inst.offset);
        }
        if self.gen.is_gfx12() {
            self.cpol(inst, e);
            return;
        }
        if gfx10 {
            self.cache_bits(inst);
        }
        if inst.has(flags::LDS) {
            self.modifier("lds");
        }
        if !gfx10 {
            self.cache_bits(inst);
        }
    }

    fn buffer(&mut self, fam: Fam, inst: &Inst, e: &Entry) {
        self.name(e.name);
        if e.slots.is_empty() {
            // Cache controls (buffer_wbinvl1, buffer_wbl2, buffer_inv): LLVM ignores the
            // operand fields and prints gfx940's scope bits only.
            if self.gen.is_cdna3() && matches!(e.name, "buffer_wbl2" | "buffer_inv") {
                // LLVM 22 prints only the scope (sc0, sc1) of buffer_inv.
                let mut scope = *inst;
                if self.gen.llvm22() && e.name == "buffer_inv" {
                    scope.flags &= !flags::SLC;
                }
                self.cache_bits(&scope);
            }
            return;
        }
        let idxen = inst.has(flags::IDXEN);
        let offen = inst.has(flags::OFFEN);
        for s in e.slots {
            match s.field {
                // With `lds` the data goes to LDS (M0) and vdata is not printed.
                F::Vdata if fam == Fam::Mubuf && inst.has(flags::LDS) => {}
                F::Vdata => {
                    self.sep();
                    let op = if inst.dst != Operand::None {
                        inst.dst
                    } else {
                        inst.src[1]
                    };
                    // GFX10: LLVM 15 prints the data without the tfe dword.
                    let tfe = inst.has(flags::TFE) && !self.gen.is_gfx10();
                    let w = s.width + u8::from(tfe);
                    self.operand(op, w, Kind::B32);
                }
                F::Vaddr => {
                    self.sep();
                    if idxen || offen {
                        let w = if idxen && offen { 2 } else { 1 };
                        self.operand(inst.src[0], w, Kind::B32);
                    } else {
                        self.s.push_str("off");
                    }
                }
                F::Srsrc => {
                    self.sep();
                    self.operand(inst.src[2], 4, Kind::B32);
                }
                F::Soffset => {
                    self.sep();
                    self.operand(inst.sdst, 1, Kind::B32);
                }
                _ => {}
            }
        }
        if let Ext::BufFormat { format } = inst.ext {
            let formats = if self.gen.is_gfx11() {
                &crate::tables::GFX11_MTBUF_FORMATS
            } else {
                &crate::tables::GFX10_MTBUF_FORMATS
            };
            let printed = formats.get(usize::from(format)).copied().unwrap_or("");
            if !printed.is_empty() {
                self.modifier(printed);
            }
        }
        if let Ext::Mtbuf { dfmt, nfmt } = inst.ext {
            if !(dfmt == 1 && nfmt == 0) {
                let _ = write!(
                    self.s,
                    " format:[{},{}]",
                    DFMT.get(dfmt as usize).copied().unwrap_or("?"),
                    NFMT.get(nfmt as usize).copied().unwrap_or("?")
                );
            }
        }
        if idxen {
            self.modifier("idxen");
        }
        if offen {
            self.modifier("offen");
        }
        if inst.offset != 0 {
            let _ = write!(self.s, " offset:{}", inst.offset);
        }
        if self.gen.is_gfx12() {
            self.cpol(inst, e);
        } else {
            self.cache_bits(inst);
        }
        if fam == Fam::Mubuf && inst.has(flags::LDS) {
            self.modifier("lds");
        }
        if inst.has(flags::TFE) {
            self.modifier("tfe");
        }
    }

    /// A MIMG address: GFX8/GFX9 a tuple as wide as the table row says; GFX10 a tuple as wide
    /// as the decoder found for the dim/a16, or with NSA the list of registers.
    fn mimg_vaddr(&mut self, inst: &Inst, width: u8) {
        let Ext::Mimg { addrs, nsa, .. } = inst.ext else {
            return self.operand(inst.src[0], width, Kind::B32);
        };
        if addrs == 0 || inst.size <= 8 {
            let w = if addrs == 0 { width } else { addrs };
            return self.operand(inst.src[0], w, Kind::B32);
        }
        self.s.push('[');
        self.operand(inst.src[0], 1, Kind::B32);
        for &v in nsa.iter().take(usize::from(addrs) - 1) {
            self.s.push_str(", ");
            self.operand(Operand::Vgpr(v.into()), 1, Kind::B32);
        }
        self.s.push(']');
    }

    fn mimg(&mut self, inst: &Inst, e: &Entry) {
        if let Ext::Vimage(v) = inst.ext {
            return self.vimage(inst, e, &v);
        }
        // GFX10 rows carry the address count (and `dim`) in `ext`.
        let gfx10 = match inst.ext {
            Ext::Mimg { dim, addrs, .. } if addrs != 0 => Some(dim),
            _ => None,
        };
        let sizes11 = match inst.ext {
            Ext::MimgDim { dim, .. } => Some(mimg11_sizes(e.name, dim, inst)),
            _ => None,
        };
        self.name(e.name);
        if sizes11.is_some() && inst.size > 8 && e.slots.iter().any(|s| s.field == F::Ssamp) {
            // llvm-objdump-22's NSA sample/gather forms have a second space after the name.
            self.s.push(' ');
        }
        for s in e.slots {
            match s.field {
                F::Vdata => {
                    self.sep();
                    let op = if inst.dst != Operand::None {
                        inst.dst
                    } else {
                        inst.src[1]
                    };
                    // LLVM sizes vdata from dmask/d16/tfe when an opcode variant of that
                    // size exists (atomics: 1× or 2× the base width), else keeps the base size.
                    let w = if e.name.starts_with("image_gather4") {
                        // GFX10 packs d16 gathers in two dwords.
                        let packed = gfx10.is_some() && inst.has(flags::D16);
                        (if packed { 2 } else { 4 }) + u8::from(inst.has(flags::TFE))
                    } else {
                        inst.dst_dwords()
                    };
                    let w = if let Some((data, _)) = sizes11 {
                        data
                    } else if e.name.contains("atomic") && w != s.width && w != 2 * s.width {
                        s.width
                    } else {
                        w
                    };
                    self.operand(op, w, Kind::B32);
                }
                F::Vaddr => {
                    self.sep();
                    match inst.ext {
                        Ext::MimgDim { nsa, .. } => {
                            let w = sizes11.map_or(s.width, |(_, addr)| addr);
                            self.mimg11_vaddr(inst, w, nsa);
                        }
                        _ => self.mimg_vaddr(inst, s.width),
                    }
                }
                F::Srsrc => {
                    self.sep();
                    // GFX8/GFX9 `r128` (the A16 bit) names a 4-dword T#; GFX10 and GFX11 have
                    // none (the resource is 8 SGPRs).
                    let r128 = gfx10.is_none() && !self.gen.is_gfx11() && inst.has(flags::A16);
                    self.operand(inst.src[2], if r128 { 4 } else { 8 }, Kind::B32);
                }
                F::Ssamp => {
                    self.sep();
                    self.operand(inst.sdst, 4, Kind::B32);
                }
                _ => {}
            }
        }
        if let Ext::Mimg { dmask, .. } = inst.ext {
            if dmask != 0 {
                let _ = write!(self.s, " dmask:{dmask:#x}");
            }
        }
        if let Ext::MimgDim { dmask, dim, .. } = inst.ext {
            return self.mimg11_mods(inst, dmask, dim);
        }
        if let Some(dim) = gfx10 {
            let _ = write!(
                self.s,
                " dim:SQ_RSRC_IMG_{}",
                MIMG_DIMS[usize::from(dim & 7)]
            );
        }
        const GFX9_MODS: [(u16, &str); 8] = [
            (flags::UNORM, "unorm"),
            (flags::GLC, "glc"),
            (flags::SLC, "slc"),
            (flags::A16, "r128"),
            (flags::TFE, "tfe"),
            (flags::LWE, "lwe"),
            (flags::DA, "da"),
            (flags::D16, "d16"),
        ];
        const GFX10_MODS: [(u16, &str); 8] = [
            (flags::UNORM, "unorm"),
            (flags::GLC, "glc"),
            (flags::SLC, "slc"),
            (flags::DLC, "dlc"),
            (flags::A16, "a16"),
            (flags::TFE, "tfe"),
            (flags::LWE, "lwe"),
            (flags::D16, "d16"),
        ];
        for (f, n) in if gfx10.is_some() {
            GFX10_MODS
        } else {
            GFX9_MODS
        } {
            if inst.has(f) {
                self.modifier(n);
            }
        }
    }
}

impl Fmt<'_> {
    /// A GFX11 MIMG address: `width` consecutive VGPRs, or with NSA a list of single VGPRs
    /// whose fifth is a tuple of the rest when there are more than five.
    fn mimg11_vaddr(&mut self, inst: &Inst, width: u8, nsa: [u8; 4]) {
        if inst.size <= 8 {
            return self.operand(inst.src[0], width, Kind::B32);
        }
        self.s.push('[');
        self.operand(inst.src[0], 1, Kind::B32);
        for (i, &v) in nsa.iter().enumerate().take(usize::from(width) - 1) {
            self.s.push_str(", ");
            let w = if i == 3 { width - 4 } else { 1 };
            self.operand(Operand::Vgpr(v.into()), w, Kind::B32);
        }
        self.s.push(']');
    }

    /// GFX12 VIMAGE/VSAMPLE, as llvm-objdump-22 prints them: the data sized by dmask, d16 and
    /// tfe (gathers: 4 channels) where the opcode has a variant of that size; the address
    /// VGPRs in brackets when there are several; the ray-tracing rows without dmask and dim.
    fn vimage(&mut self, inst: &Inst, e: &Entry, v: &Vimage) {
        self.name(e.name);
        let bvh = e.name.starts_with("image_bvh");
        for s in e.slots {
            self.sep();
            match s.field {
                F::Vdata => {
                    let op = if inst.dst != Operand::None {
                        inst.dst
                    } else {
                        inst.src[1]
                    };
                    self.operand(op, v.data, Kind::B32);
                }
                F::Vaddr => {
                    let n = v.widths.iter().filter(|&&w| w != 0).count();
                    if n > 1 {
                        self.s.push('[');
                    }
                    self.operand(inst.src[0], v.widths[0], Kind::B32);
                    for k in 1..n {
                        self.s.push_str(", ");
                        let r = Operand::Vgpr(v.vaddr[k - 1].into());
                        self.operand(r, v.widths[k], Kind::B32);
                    }
                    if n > 1 {
                        self.s.push(']');
                    }
                }
                F::Srsrc => self.operand(inst.src[2], s.width, Kind::B32),
                F::Ssamp => self.operand(inst.sdst, 4, Kind::B32),
                _ => {}
            }
        }
        if !bvh {
            if v.dmask != 0 {
                let _ = write!(self.s, " dmask:{:#x}", v.dmask);
            }
            let _ = write!(
                self.s,
                " dim:SQ_RSRC_IMG_{}",
                MIMG_DIMS[usize::from(v.dim & 7)]
            );
        }
        if inst.has(flags::UNORM) {
            self.modifier("unorm");
        }
        self.cpol(inst, e);
        if inst.offset1 & cpol::NV != 0 {
            self.modifier("nv");
        }
        for (f, n) in [
            (flags::DA, "r128"),
            (flags::A16, "a16"),
            (flags::TFE, "tfe"),
            (flags::LWE, "lwe"),
            (flags::D16, "d16"),
        ] {
            if inst.has(f) && !(bvh && f == flags::DA) {
                self.modifier(n);
            }
        }
    }

    /// GFX11 MIMG modifiers, in llvm-objdump-22's order.
    fn mimg11_mods(&mut self, inst: &Inst, dmask: u8, dim: u8) {
        if dmask != 0 {
            let _ = write!(self.s, " dmask:{dmask:#x}");
        }
        const DIMS: [&str; 8] = [
            "1D",
            "2D",
            "3D",
            "CUBE",
            "1D_ARRAY",
            "2D_ARRAY",
            "2D_MSAA",
            "2D_MSAA_ARRAY",
        ];
        let _ = write!(self.s, " dim:SQ_RSRC_IMG_{}", DIMS[usize::from(dim & 7)]);
        for (f, n) in [
            (flags::UNORM, "unorm"),
            (flags::GLC, "glc"),
            (flags::SLC, "slc"),
            (flags::DLC, "dlc"),
            (flags::DA, "r128"),
            (flags::A16, "a16"),
            (flags::TFE, "tfe"),
            (flags::LWE, "lwe"),
            (flags::D16, "d16"),
        ] {
            if inst.has(f) {
                self.modifier(n);
            }
        }
    }
}

/// GFX11 MIMG register counts `(vdata, vaddr)` as llvm-objdump-22 prints them. LLVM computes
/// the data size from `dmask` (4 for gathers and `image_msaa_load`), `d16` (packed) and `tfe`,
/// and the address size from the opcode's extra arguments (`_c`, `_b`, `_o`), the dim's
/// coordinates, LOD/clamp/mip, and derivatives (`_d`; 16-bit with `_g16`), packing coordinates
/// and LOD two per VGPR under `a16`. It then looks for the opcode variant of exactly that
/// size; when none exists (e.g. a 2D_MSAA_ARRAY sample, 4 data dwords on an atomic) it keeps
/// the variant it decoded first.
fn mimg11_sizes(name: &str, dim: u8, inst: &Inst) -> (u8, u8) {
    let gather = name.starts_with("image_gather4") || name == "image_msaa_load";
    let mut data = if gather {
        4
    } else {
        (mimg_dmask(inst).count_ones() as u8).max(1)
    };
    if inst.has(flags::D16) {
        data = data.div_ceil(2);
    }
    data += u8::from(inst.has(flags::TFE));
    // The data sizes that have a variant, the one decoded first leading.
    let datas: &[u8] = if name.starts_with("image_gather4") {
        &[2, 4, 5]
    } else if name == "image_msaa_load" {
        &[4, 2, 3, 5]
    } else if name == "image_atomic_cmpswap" {
        &[2, 3, 4, 5]
    } else if name.starts_with("image_atomic") {
        &[1, 2, 3]
    } else {
        &[1, 2, 3, 4, 5]
    };
    let nsa = inst.size > 8;
    let a = MimgArgs::of(name);
    let addr = a.dwords(dim, inst.has(flags::A16), nsa);
    // A widened tuple must still end at v255 (else LLVM keeps the first variant too).
    let fits = |op: Operand, n: u8| match op {
        Operand::Vgpr(r) => r + u16::from(n) <= 256,
        _ => true,
    };
    let data_reg = if inst.dst != Operand::None {
        inst.dst
    } else {
        inst.src[1]
    };
    let addr_fits = match inst.ext {
        Ext::MimgDim { nsa: n, .. } if nsa && addr > 5 => {
            fits(Operand::Vgpr(n[3].into()), addr - 4)
        }
        _ => nsa || fits(inst.src[0], addr),
    };
    if datas.contains(&data) && a.has_variant(addr, nsa) && fits(data_reg, data) && addr_fits {
        (data, addr)
    } else {
        (datas[0], a.first_variant(nsa))
    }
}

fn mimg_dmask(inst: &Inst) -> u8 {
    match inst.ext {
        Ext::Mimg { dmask, .. } | Ext::MimgDim { dmask, .. } => dmask & 0xf,
        _ => 0,
    }
}

/// A GFX11 MIMG opcode's address arguments (LLVM's base-opcode properties), read from its name.
struct MimgArgs {
    /// Sample/gather/get_lod: LLVM defines their address variants from a list of sizes.
    sampler: bool,
    /// `_c` (z-compare), `_b` (bias), `_o` (offsets): one dword each, never packed.
    extra: u8,
    coords: bool,
    /// LOD (`_l`), clamp (`_cl`) or mip level (`_mip`, `get_resinfo`).
    lod: bool,
    gradients: bool,
    g16: bool,
}

impl MimgArgs {
    fn of(name: &str) -> MimgArgs {
        let mut a = MimgArgs {
            sampler: false,
            extra: 0,
            coords: name != "image_get_resinfo",
            lod: name.contains("_mip") || name == "image_get_resinfo",
            gradients: false,
            g16: false,
        };
        let rest = [
            "image_sample",
            "image_gather4h",
            "image_gather4",
            "image_get_lod",
        ]
        .iter()
        .find_map(|p| name.strip_prefix(p));
        if let Some(rest) = rest {
            a.sampler = true;
            for part in rest.split('_') {
                match part {
                    "c" | "b" | "o" => a.extra += 1,
                    "l" | "cl" => a.lod = true,
                    "d" | "cd" => a.gradients = true,
                    "g16" => a.g16 = true,
                    _ => {}
                }
            }
        }
        a
    }

    /// Address dwords for a dim (1D, 2D, 3D, CUBE, 1D_ARRAY, 2D_ARRAY, 2D_MSAA,
    /// 2D_MSAA_ARRAY); without NSA LLVM rounds more than 12 up to 16.
    fn dwords(&self, dim: u8, a16: bool, nsa: bool) -> u8 {
        const DIMS: [(u8, u8); 8] = [
            (1, 2),
            (2, 4),
            (3, 6),
            (3, 4),
            (2, 2),
            (3, 4),
            (3, 4),
            (4, 4),
        ];
        let (coords, grads) = DIMS[usize::from(dim & 7)];
        let comps = if self.coords { coords } else { 0 } + u8::from(self.lod);
        let mut n = self.extra + if a16 { comps.div_ceil(2) } else { comps };
        if self.gradients {
            n += if self.g16 {
                (grads / 2).next_multiple_of(2)
            } else {
                grads
            };
        }
        if n > 12 && !nsa {
            16
        } else {
            n
        }
    }

    /// The address sizes LLVM lists: 1–4 for loads, stores and atomics; for a sampler (no
    /// MSAA dims) 1–3 dwords (4 with LOD/clamp), 3–9 with derivatives (2–7 for `_g16`; one
    /// more with clamp), each plus the extra arguments.
    fn sizes(&self) -> std::ops::RangeInclusive<u8> {
        if !self.sampler {
            return 1..=4;
        }
        let lod = u8::from(self.lod);
        let (lo, hi) = match (self.gradients, self.g16) {
            (false, _) => (1, 3),
            (true, false) => (3, 9),
            (true, true) => (2, 7),
        };
        lo + self.extra..=hi + lod + self.extra
    }

    /// Whether an opcode variant with this many address dwords exists. NSA: every listed size
    /// from 2. Otherwise each listed size up to 12, and for samplers a 4-dword variant when
    /// 3 is listed, 8 when any of 5–8 is, 16 when any of 13–16 is.
    fn has_variant(&self, n: u8, nsa: bool) -> bool {
        let sizes = self.sizes();
        if nsa || !self.sampler {
            return sizes.contains(&n) && (n >= 2 || !nsa);
        }
        let any = |lo: u8, hi: u8| sizes.clone().any(|s| (lo..=hi).contains(&s));
        match n {
            4 => any(3, 4),
            8 => any(5, 8),
            16 => any(13, 16),
            _ => n <= 12 && sizes.contains(&n),
        }
    }

    /// The variant the decoder starts from: the smallest address, with NSA the most single
    /// address VGPRs (at most 5).
    fn first_variant(&self, nsa: bool) -> u8 {
        if nsa {
            (*self.sizes().end()).min(5)
        } else {
            *self.sizes().start()
        }
    }
}

/// Whether a row has GFX11 true16 (16-bit VGPR half) operands.
pub(crate) fn has_t16(e: &Entry) -> bool {
    e.slots.iter().any(|s| s.class == b't')
}

/// llvm-objdump-22 decodes a GFX11 VOP3 word of a true16 opcode as the true16 form only when
/// `op_sel` sets no bit other than those of the row's sources and, for a 16-bit VGPR
/// destination, bit 3; otherwise it falls back to the fake16 form, printed without `.l`/`.h`
/// and without `op_sel`.
pub(crate) fn true16_form(e: &Entry, inst: &Inst) -> bool {
    if inst.encoding != Encoding::Vop3 || !has_t16(e) {
        return true;
    }
    let mut valid = 0u8;
    for (s, p) in e.slots.iter().zip(e.places) {
        match p {
            Place::Src(k) if matches!(s.field, F::Src0 | F::Src1 | F::Src2) && !s.mask => {
                valid |= 1 << k
            }
            Place::Dst if matches!(s.class, b't' | b'v') => valid |= 8,
            _ => {}
        }
    }
    inst.mods.op_sel & !valid & !opsel_ignored(e.name) == 0
}

/// `op_sel` bits LLVM drops for an opcode: the packed 32-bit sources of `v_dot2_f16_f16` and
/// `v_dot2_bf16_bf16`.
/// The fp8/bf8 conversions whose `op_sel` bits select a byte (GFX12 prints them as
/// `byte_sel`).
pub(crate) fn byte_sel_row(name: &str) -> bool {
    matches!(
        name,
        "v_cvt_f32_fp8_e64" | "v_cvt_f32_bf8_e64" | "v_cvt_sr_fp8_f32" | "v_cvt_sr_bf8_f32"
    )
}

pub(crate) fn opsel_ignored(name: &str) -> u8 {
    if name.starts_with("v_dot2_f16_f16") || name.starts_with("v_dot2_bf16_bf16") {
        3
    } else {
        0
    }
}

/// GFX11 `s_sendmsg`/`s_sendmsg_rtn_*`: an 8-bit message id (no operation or stream field;
/// higher bits are ignored), symbolic where LLVM 22 names it, else `sendmsg(id, 0, 0)` when
/// that re-encodes exactly, else the number.
fn sendmsg_gfx11(s: &mut String, imm: u32, gfx12: bool) {
    let id = imm & 0xff;
    let stream = (imm >> 8) & 3;
    let name = match id {
        // GFX12 dropped the wave stall/halt messages and added the SE/AID query.
        5 | 6 if gfx12 => "",
        135 if gfx12 => "MSG_RTN_GET_SE_AID_ID",
        1 => "MSG_INTERRUPT",
        2 => "MSG_HS_TESSFACTOR",
        3 => "MSG_DEALLOC_VGPRS",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        9 => "MSG_GS_ALLOC_REQ",
        128 => "MSG_RTN_GET_DOORBELL",
        129 => "MSG_RTN_GET_DDID",
        130 => "MSG_RTN_GET_TMA",
        131 => "MSG_RTN_GET_REALTIME",
        132 => "MSG_RTN_SAVE_WAVE",
        133 => "MSG_RTN_GET_TBA",
        134 => "MSG_RTN_GET_TBA_TO_PC",
        _ => "",
    };
    let _ = stream;
    let _ = if !name.is_empty() {
        write!(s, "sendmsg({name})")
    } else if id == imm {
        write!(s, "sendmsg({id}, 0, 0)")
    } else {
        write!(s, "{imm}")
    };
}

/// GFX11 `s_delay_alu`: `instid0(…) | instskip(…) | instid1(…)`, the fields that are not 0.
fn delay_alu(s: &mut String, imm: u32) {
    const ID: [&str; 12] = [
        "NO_DEP",
        "VALU_DEP_1",
        "VALU_DEP_2",
        "VALU_DEP_3",
        "VALU_DEP_4",
        "TRANS32_DEP_1",
        "TRANS32_DEP_2",
        "TRANS32_DEP_3",
        "FMA_ACCUM_CYCLE_1",
        "SALU_CYCLE_1",
        "SALU_CYCLE_2",
        "SALU_CYCLE_3",
    ];
    const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
    let id0 = imm & 0xf;
    let skip = (imm >> 4) & 7;
    let id1 = (imm >> 7) & 0xf;
    if id0 as usize >= ID.len() || id1 as usize >= ID.len() || skip >= 6 {
        let _ = write!(s, "{imm:#x}");
        return;
    }
    let mut parts = Vec::new();
    if id0 != 0 {
        parts.push(format!("instid0({})", ID[id0 as usize]));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", SKIP[skip as usize]));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", ID[id1 as usize]));
    }
    if parts.is_empty() {
        parts.push("0".to_string());
    }
    s.push_str(&parts.join(" | "));
}

const FLOATS: [FloatConst; 9] = [
    FloatConst::Half,
    FloatConst::MinusHalf,
    FloatConst::One,
    FloatConst::MinusOne,
    FloatConst::Two,
    FloatConst::MinusTwo,
    FloatConst::Four,
    FloatConst::MinusFour,
    FloatConst::InvTwoPi,
];

/// GFX10 MIMG `dim` names (after `SQ_RSRC_IMG_`).
const MIMG_DIMS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "1D_ARRAY",
    "2D_ARRAY",
    "2D_MSAA",
    "2D_MSAA_ARRAY",
];

const DFMT: [&str; 16] = [
    "BUF_DATA_FORMAT_INVALID",
    "BUF_DATA_FORMAT_8",
    "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",
    "BUF_DATA_FORMAT_32",
    "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11",
    "BUF_DATA_FORMAT_11_11_10",
    "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10",
    "BUF_DATA_FORMAT_8_8_8_8",
    "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16",
    "BUF_DATA_FORMAT_32_32_32",
    "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
];
const NFMT: [&str; 8] = [
    "BUF_NUM_FORMAT_UNORM",
    "BUF_NUM_FORMAT_SNORM",
    "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED",
    "BUF_NUM_FORMAT_UINT",
    "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6",
    "BUF_NUM_FORMAT_FLOAT",
];

/// `ds_swizzle_b32` offset syntax (`None`: printed as a plain number). LLVM 22 also names the
/// FFT (`111` in bits 15:13, lane offset in 4:0) and ROTATE (`110`, direction bit 10, amount in
/// 9:5) modes.
fn swizzle(off: u32, llvm22: bool) -> Option<String> {
    if llvm22 && off & 0xe000 == 0xe000 {
        return Some(format!("FFT,{}", off & 0x1f));
    }
    if llvm22 && off & 0xe000 == 0xc000 {
        return Some(format!("ROTATE,{},{}", (off >> 10) & 1, (off >> 5) & 0x1f));
    }
    if off & 0xff00 == 0x8000 {
        let sel = |i: u32| (off >> (2 * i)) & 3;
        return Some(format!(
            "QUAD_PERM,{},{},{},{}",
            sel(0),
            sel(1),
            sel(2),
            sel(3)
        ));
    }
    if off & 0x8000 != 0 {
        return None;
    }
    let and = off & 0x1f;
    let or = (off >> 5) & 0x1f;
    let xor = (off >> 10) & 0x1f;
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return Some(format!("SWAP,{xor}"));
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return Some(format!("REVERSE,{}", xor + 1));
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return Some(format!("BROADCAST,{group},{or}"));
    }
    let p0 = or ^ xor;
    let p1 = (0x1f & and | or) ^ xor;
    let mask: String = (0..5)
        .rev()
        .map(|b| match ((p0 >> b) & 1, (p1 >> b) & 1) {
            (1, 1) => '1',
            (0, 0) => '0',
            (0, 1) => 'p',
            _ => 'i',
        })
        .collect();
    Some(format!("BITMASK_PERM,\"{mask}\""))
}

/// `-0x…`/`0x…`: a signed offset in hex (GFX10 SMEM).
fn signed_hex(s: &mut String, v: i32) {
    if v < 0 {
        let _ = write!(s, "-{:#x}", v.unsigned_abs());
    } else {
        let _ = write!(s, "{v:#x}");
    }
}

/// GFX10.3 hardware register names (`hwreg(…)`), from llvm-objdump-15.
fn hwreg_gfx10(id: u32) -> &'static str {
    match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        16 => "HW_REG_TBA_LO",
        17 => "HW_REG_TBA_HI",
        18 => "HW_REG_TMA_LO",
        19 => "HW_REG_TMA_HI",
        20 => "HW_REG_FLAT_SCR_LO",
        21 => "HW_REG_FLAT_SCR_HI",
        23 => "HW_REG_HW_ID1",
        24 => "HW_REG_HW_ID2",
        25 => "HW_REG_POPS_PACKER",
        29 => "HW_REG_SHADER_CYCLES",
        _ => "",
    }
}

/// GFX11 hardware register names, from llvm-objdump-22.
/// GFX12 hardware register names (llvm-objdump-22's).
fn hwreg_gfx12(id: u32) -> &'static str {
    match id {
        1 => "HW_REG_WAVE_MODE",
        2 => "HW_REG_WAVE_STATUS",
        4 => "HW_REG_WAVE_STATE_PRIV",
        5 => "HW_REG_WAVE_GPR_ALLOC",
        6 => "HW_REG_WAVE_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        10 => "HW_REG_PERF_SNAPSHOT_DATA",
        11 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        12 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        15 => "HW_REG_PERF_SNAPSHOT_DATA1",
        16 => "HW_REG_PERF_SNAPSHOT_DATA2",
        17 => "HW_REG_WAVE_EXCP_FLAG_PRIV",
        18 => "HW_REG_WAVE_EXCP_FLAG_USER",
        19 => "HW_REG_WAVE_TRAP_CTRL",
        20 => "HW_REG_WAVE_SCRATCH_BASE_LO",
        21 => "HW_REG_WAVE_SCRATCH_BASE_HI",
        23 => "HW_REG_WAVE_HW_ID1",
        24 => "HW_REG_WAVE_HW_ID2",
        26 => "HW_REG_WAVE_SCHED_MODE",
        29 => "HW_REG_SHADER_CYCLES_LO",
        30 => "HW_REG_SHADER_CYCLES_HI",
        31 => "HW_REG_WAVE_DVGPR_ALLOC_LO",
        32 => "HW_REG_WAVE_DVGPR_ALLOC_HI",
        _ => "",
    }
}

fn hwreg_gfx11(id: u32) -> &'static str {
    match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        18 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        19 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        20 => "HW_REG_FLAT_SCR_LO",
        21 => "HW_REG_FLAT_SCR_HI",
        23 => "HW_REG_HW_ID1",
        24 => "HW_REG_HW_ID2",
        27 => "HW_REG_PERF_SNAPSHOT_DATA",
        29 => "HW_REG_SHADER_CYCLES",
        _ => "",
    }
}

/// SOPP opcodes that print their immediate even when it is zero.
fn takes_imm(n: &str) -> bool {
    !matches!(
        n,
        "s_wakeup"
            | "s_barrier"
            | "s_icache_inv"
            | "s_ttracedata"
            | "s_endpgm_saved"
            | "s_set_gpr_idx_off"
            | "s_endpgm_ordered_ps_done"
            | "s_code_end"
            | "s_wait_idle"
            | "s_barrier_leave"
    )
}

#[allow(dead_code)]
fn slot_dbg(s: &Slot) -> u8 {
    s.width
}
