//! The opcode census: what the emulator does with each opcode of `hsaemu-isa`'s tables. It
//! reads the generated join (`ops::op_of`), so it says exactly what decoding would: an opcode
//! executes (a handler, a compare, a described memory access), is on the reviewed
//! not-for-compute list (`tools/not-for-compute.txt`, with its reason), or is a compute
//! opcode still without semantics (`tools/missing.txt`). The per-instruction tests
//! (`tests/inst.rs`) ask it which opcodes need lines.

use crate::ops::{not_for_compute, op_of, Op};
use hsaemu_isa::{Gen, Opcode};
use std::collections::BTreeSet;

/// What the emulator does with one opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpcodeStatus {
    /// It has semantics.
    Executes,
    /// It is on the reviewed not-for-compute list; executing it faults with this reason.
    NotForCompute(&'static str),
    /// A compute opcode without semantics yet; executing it faults as unimplemented.
    Missing,
}

/// The status of an opcode (the same for every generation that has it).
pub fn opcode_status(o: Opcode) -> OpcodeStatus {
    match op_of(o) {
        Op::NotForCompute => OpcodeStatus::NotForCompute(not_for_compute(o).unwrap_or("")),
        Op::Missing => OpcodeStatus::Missing,
        _ => OpcodeStatus::Executes,
    }
}

/// The status of an opcode on `gen`: [`opcode_status`], except that a WMMA opcode executes
/// only where its generation's table has a row for it (GFX12's WMMA shares GFX11's names but
/// not their register layout: `exec::wmma` and `exec::wmma12` are separate tables),
/// and GFX12's transpose loads execute in wave32 only (`exec/vmem/global_tr.rs`: the wave64
/// lane map is unsourced). GFX12's images (VIMAGE/VSAMPLE) execute as MIMG (`exec::mimg`).
pub fn opcode_status_on(gen: Gen, o: Opcode) -> OpcodeStatus {
    let wave32_only = matches!(op_of(o), Op::GLOBAL_LOAD_TR_B128 | Op::GLOBAL_LOAD_TR_B64);
    match opcode_status(o) {
        OpcodeStatus::Executes if !crate::exec::wmma::defined_on(gen, op_of(o)) => {
            OpcodeStatus::Missing
        }
        OpcodeStatus::Executes if wave32_only && gen == Gen::Gfx12W64 => OpcodeStatus::Missing,
        s => s,
    }
}

/// Every opcode of `gen`'s tables (once, whatever its encodings), in `Opcode` order.
pub fn opcodes(gen: Gen) -> BTreeSet<Opcode> {
    hsaemu_isa::table_entries(gen)
        .into_iter()
        .map(|e| e.2)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaemu_isa::Encoding;

    /// Whether an opcode accesses memory (vector or scalar memory encodings): a missing one
    /// belongs to the memory work, not to the ALU semantics.
    fn is_memory(gen: Gen, o: Opcode) -> bool {
        hsaemu_isa::table_entries(gen).iter().any(|e| {
            e.2 == o
                && matches!(
                    e.0,
                    Encoding::Smem
                        | Encoding::Ds
                        | Encoding::Mubuf
                        | Encoding::Mtbuf
                        | Encoding::Mimg
                        | Encoding::Flat
                        | Encoding::Global
                        | Encoding::Scratch
                )
        })
    }

    /// The generated join agrees with the two reviewed lists it was generated from (a list
    /// edited without rerunning `tools/gen_ops.py` fails here), reasons included.
    #[test]
    fn the_reviewed_lists_match_the_generated_join() {
        let read = |text: &'static str| -> Vec<(&'static str, &'static str)> {
            text.lines()
                .map(|l| l.split('#').next().unwrap_or("").trim())
                .filter(|l| !l.is_empty())
                .map(|l| l.split_once(' ').unwrap_or((l, "")))
                .map(|(m, r)| (m, r.trim()))
                .collect()
        };
        let nfc = read(include_str!("../tools/not-for-compute.txt"));
        let missing = read(include_str!("../tools/missing.txt"));
        let opcode = |m: &str| {
            *Opcode::all()
                .iter()
                .find(|o| o.mnemonic() == m)
                .unwrap_or_else(|| panic!("{m}: not an opcode of isa's table"))
        };
        for (m, reason) in &nfc {
            assert!(!reason.is_empty(), "{m}: no reason");
            assert_eq!(
                opcode_status(opcode(m)),
                OpcodeStatus::NotForCompute(reason),
                "{m}"
            );
        }
        for (m, _) in &missing {
            assert_eq!(opcode_status(opcode(m)), OpcodeStatus::Missing, "{m}");
        }
        let listed = Opcode::all()
            .iter()
            .filter(|o| opcode_status(**o) != OpcodeStatus::Executes)
            .filter(|o| **o != Opcode::Unknown)
            .count();
        assert_eq!(listed, nfc.len() + missing.len());
    }

    /// Every opcode of isa's tables, per generation, lands on a handler, a compare, a memory
    /// descriptor or one of the two reviewed lists (the generated join guarantees it: an
    /// opcode on neither list without a handler does not compile). Prints the counts that
    /// docs/status.md quotes, and fails when a missing opcode is neither new in CDNA3 or GFX11
    /// (the CDNA3/RDNA3 work) nor a memory access (the memory work): every other compute
    /// opcode executes.
    #[test]
    fn every_opcode_of_every_generation_is_classified() {
        let gfx90a = opcodes(Gen::Gfx90a);
        let gfx1030 = opcodes(Gen::Gfx10);
        let mut unexplained = Vec::new();
        eprintln!(
            "{:<15} {:>7} {:>8} {:>16} {:>15} {:>15} {:>14}",
            "generation",
            "opcodes",
            "execute",
            "not for compute",
            "missing: new ISA",
            "missing: memory",
            "missing: other"
        );
        for (name, gen) in [
            ("gfx803", Gen::Gfx8),
            ("gfx900", Gen::Gfx900),
            ("gfx906/gfx908", Gen::Gfx9),
            ("gfx90a", Gen::Gfx90a),
            ("gfx940", Gen::Gfx940),
            ("gfx942", Gen::Gfx942),
            ("gfx950", Gen::Gfx950),
            ("gfx1030 wave32", Gen::Gfx10),
            ("gfx1030 wave64", Gen::Gfx10W64),
            ("gfx1100/gfx1151 wave32", Gen::Gfx11),
            ("gfx1100/gfx1151 wave64", Gen::Gfx11W64),
            ("gfx1200/gfx1201 wave32", Gen::Gfx12),
            ("gfx1200/gfx1201 wave64", Gen::Gfx12W64),
        ] {
            let ops = opcodes(gen);
            let (mut done, mut nfc, mut mem, mut cdna3, mut other) = (0, 0, 0, 0, 0);
            for &o in &ops {
                match opcode_status_on(gen, o) {
                    OpcodeStatus::NotForCompute(why) => {
                        assert!(!why.is_empty(), "{o:?} without a reason");
                        nfc += 1;
                    }
                    // Opcodes new in CDNA3 (not on gfx90a) or GFX11 (not on gfx1030): the
                    // CDNA3 and RDNA3 work (issues 11 and 12).
                    OpcodeStatus::Missing
                        if matches!(gen, Gen::Gfx940 | Gen::Gfx942 | Gen::Gfx950)
                            && !gfx90a.contains(&o)
                            || gen.is_gfx11() && !gfx1030.contains(&o) =>
                    {
                        cdna3 += 1
                    }
                    OpcodeStatus::Missing if is_memory(gen, o) => mem += 1,
                    OpcodeStatus::Missing => {
                        other += 1;
                        unexplained.push(format!("{name}: {}", o.mnemonic()));
                    }
                    OpcodeStatus::Executes => {
                        assert!(not_for_compute(o).is_none(), "{o:?}");
                        done += 1;
                    }
                }
            }
            eprintln!(
                "{name:<15} {:>7} {done:>8} {nfc:>16} {cdna3:>15} {mem:>15} {other:>14}",
                ops.len()
            );
            assert_eq!(done + nfc + mem + cdna3 + other, ops.len());
            assert!(done > 700, "{name}: {done}");
        }
        assert!(
            unexplained.is_empty(),
            "compute opcodes without semantics: {unexplained:#?}"
        );
    }
}
