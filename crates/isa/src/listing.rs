//! llvm-objdump-style listings: one line per instruction, `\t<text>` padded to llvm-objdump's
//! comment column, then `// <12-hex-digit address>: <words>` and, for branches, ` <symbol+off>`.
//!
//! The CLI (`hsaemu disasm`) adds the per-file and per-section headers; this module renders the
//! `.text` bytes of one code object given its load address and function symbols.

use crate::inst::{Encoding, Gen, Operand};
use crate::{decode, format};
use std::fmt::Write;

/// Column (after the tab) where llvm-objdump-15 starts the `//` comment.
const COMMENT_COLUMN: usize = 59;

/// A named address range in `.text` (a kernel or function symbol).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextSymbol {
    /// Symbol name.
    pub name: String,
    /// Address (st_value).
    pub addr: u64,
    /// Size in bytes (0 if unknown).
    pub size: u64,
}

/// Renders `text` (the `.text` bytes loaded at `base`) like `llvm-objdump -d`: a
/// `\n<addr> <name>:` header at every symbol, then one line per instruction. With `only`, just
/// that symbol's range is listed.
pub fn listing(
    gen: Gen,
    text: &[u8],
    base: u64,
    symbols: &[TextSymbol],
    only: Option<&TextSymbol>,
) -> String {
    let mut syms: Vec<&TextSymbol> = symbols.iter().collect();
    syms.sort_by_key(|s| s.addr);
    let (start, end) = match only {
        Some(s) => {
            let lo = s.addr.saturating_sub(base) as usize;
            let hi = if s.size > 0 {
                lo.saturating_add(s.size as usize)
            } else {
                text.len()
            };
            (lo.min(text.len()), hi.min(text.len()))
        }
        None => (0, text.len()),
    };
    let mut out = String::new();
    let mut off = start;
    let mut next_sym = 0;
    if syms
        .first()
        .is_none_or(|s| s.addr > base.wrapping_add(start as u64))
        && only.is_none()
    {
        let _ = writeln!(out, "\n{base:016x} <.text>:");
    }
    while off < end {
        // Section addresses come from the file: wrap rather than overflow on a corrupt one.
        let addr = base.wrapping_add(off as u64);
        while next_sym < syms.len() && syms[next_sym].addr <= addr {
            if syms[next_sym].addr == addr {
                let _ = writeln!(out, "\n{addr:016x} <{}>:", syms[next_sym].name);
            }
            next_sym += 1;
        }
        // Like llvm-objdump: a run of at least 8 zero bytes before the next symbol (or the end)
        // prints as `...` and is skipped in whole words.
        let block_end = syms
            .get(next_sym)
            .and_then(|s| usize::try_from(s.addr.wrapping_sub(base)).ok())
            .map_or(end, |e| e.clamp(off, end));
        let zeros = text[off..block_end].iter().take_while(|&&b| b == 0).count();
        if zeros >= 8 {
            out.push_str("\t\t...\n");
            off += zeros & !3;
            continue;
        }
        let (line_text, size, target) = match decode(gen, text, off) {
            Ok(inst) => {
                let t = format(&inst, gen, addr);
                let target = branch_target(&inst, addr);
                (t, usize::from(inst.size), target)
            }
            Err(e) => {
                let n = (text.len() - off).min(4);
                (format!(".long {:#010x}", e.word), n.max(1), None)
            }
        };
        let _ = write!(out, "\t{line_text}");
        // Like llvm-objdump, no space at all when the text reaches the column.
        let pad = COMMENT_COLUMN.saturating_sub(line_text.len());
        out.extend(std::iter::repeat_n(' ', pad));
        let _ = write!(out, "// {addr:012X}:");
        for w in text[off..(off + size).min(text.len())].chunks(4) {
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            let _ = write!(out, " {:08X}", u32::from_le_bytes(b));
        }
        if let Some(t) = target {
            if let Some(label) = label_for(&syms, t) {
                let _ = write!(out, " <{label}>");
            }
        }
        out.push('\n');
        off += size;
    }
    out
}

/// Where an `s_branch`/`s_cbranch_*` (SOPP) jumps: the next instruction plus `simm16` words.
pub fn branch_target(inst: &crate::Inst, addr: u64) -> Option<u64> {
    if inst.encoding != Encoding::Sopp {
        return None;
    }
    let m = inst.opcode.mnemonic();
    if !(m.starts_with("s_branch") || m.starts_with("s_cbranch")) {
        return None;
    }
    let Operand::Imm(v) = inst.src[0] else {
        return None;
    };
    let delta = i64::from(v as u16 as i16) * 4;
    Some((addr as i64).wrapping_add(4).wrapping_add(delta) as u64)
}

fn label_for(syms: &[&TextSymbol], target: u64) -> Option<String> {
    let s = syms.iter().rev().find(|s| s.addr <= target)?;
    let off = target - s.addr;
    Some(if off == 0 {
        s.name.clone()
    } else {
        format!("{}+{off:#x}", s.name)
    })
}
