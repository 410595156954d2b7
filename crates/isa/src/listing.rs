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

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of 8 or more zero bytes print as `...` (whole words), shorter ones as `.long`;
    /// a run stops at the next symbol.
    #[test]
    fn zero_runs_print_like_llvm_objdump() {
        let code_end = 0xbf9f_0000u32.to_le_bytes();
        let mut text = Vec::new();
        text.extend_from_slice(&code_end);
        text.extend_from_slice(&[0; 4]); // one zero word: `.long`
        text.extend_from_slice(&code_end);
        text.extend_from_slice(&[0; 12]); // three words, up to the symbol: `...`
        text.extend_from_slice(&code_end);
        let sym = |name: &str, addr| TextSymbol {
            name: name.into(),
            addr,
            size: 0,
        };
        let out = listing(
            Gen::Gfx10,
            &text,
            0x100,
            &[sym("a", 0x100), sym("b", 0x11c)],
            None,
        );
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with('\t')).collect();
        assert!(lines[1].starts_with("\t.long 0x00000000 "), "{out}");
        assert_eq!(lines[3], "\t\t...", "{out}");
        assert!(lines[4].starts_with("\ts_code_end "), "{out}");
        assert_eq!(lines.len(), 5, "{out}");
    }

    /// A section address at the top of the address space (a corrupt file) wraps instead of
    /// overflowing.
    #[test]
    fn listing_at_the_top_of_the_address_space_does_not_panic() {
        // s_nop 0; s_endpgm
        let text = [0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x81, 0xbf];
        let out = listing(Gen::Gfx9, &text, u64::MAX - 3, &[], None);
        assert!(out.contains("s_nop 0") && out.contains("s_endpgm"), "{out}");
    }
}
