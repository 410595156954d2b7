//! The semantics census over isa's tables (`hsaemu_emu::census`): for gfx803, gfx900, gfx906,
//! gfx908, gfx90a, gfx940 and gfx1030 (wave32 and wave64), every opcode executes or is on the
//! reviewed not-for-compute list. Prints the counts that docs/status.md shows.

use hsaemu_emu::{census, is_vector_memory, not_for_compute, RowStatus, NOT_FOR_COMPUTE};
use hsaemu_isa::Gen;

/// The generations the census covers (gfx906 and gfx908 share one table, as do gfx1030's
/// two wave sizes).
const GENS: [(&str, Gen); 7] = [
    ("gfx803", Gen::Gfx8),
    ("gfx900", Gen::Gfx900),
    ("gfx906/gfx908", Gen::Gfx9),
    ("gfx90a", Gen::Gfx90a),
    ("gfx940", Gen::Gfx940),
    ("gfx1030 wave32", Gen::Gfx10),
    ("gfx1030 wave64", Gen::Gfx10),
];

/// Missing scalar-memory opcodes (SMEM atomics, scalar scratch, cache discard): memory
/// instructions, owned by the memory-model work. Listed so that the census fails on any
/// other missing opcode; this list may only shrink.
fn is_scalar_memory(m: &str) -> bool {
    m.starts_with("s_atomic_")
        || m.starts_with("s_buffer_atomic_")
        || m.starts_with("s_scratch_")
        || m.starts_with("s_dcache_discard")
}

#[test]
fn every_opcode_executes_or_is_not_for_compute() {
    let mut missing = Vec::new();
    eprintln!(
        "{:<16} {:>7} {:>9} {:>16} {:>15} {:>7} {:>8}",
        "generation",
        "opcodes",
        "executes",
        "not for compute",
        "missing memory",
        "CDNA3",
        "missing"
    );
    for (name, gen) in GENS {
        let rows = census(gen);
        assert!(rows.len() > 500, "{name}: {} rows", rows.len());
        let (mut run, mut nfc, mut mem, mut cdna3, mut miss) = (0, 0, 0, 0, 0);
        for r in &rows {
            let memory =
                r.encodings.iter().any(|e| is_vector_memory(*e)) || is_scalar_memory(r.mnemonic);
            match r.status {
                RowStatus::Executes => run += 1,
                RowStatus::NotForCompute(_) => nfc += 1,
                RowStatus::Cdna3 => cdna3 += 1,
                RowStatus::Missing if memory => mem += 1,
                RowStatus::Missing => {
                    miss += 1;
                    missing.push(format!("{name}: {}", r.mnemonic));
                }
            }
        }
        eprintln!(
            "{name:<16} {:>7} {run:>9} {nfc:>16} {mem:>15} {cdna3:>7} {miss:>8}",
            rows.len()
        );
    }
    assert!(
        missing.is_empty(),
        "opcodes without semantics: {missing:#?}"
    );
}

/// Every entry of the not-for-compute list matches an opcode that does not execute (so the
/// list names nothing the emulator implements), and a not-for-compute fault names the reason.
#[test]
fn not_for_compute_list_is_minimal() {
    let mut unused = Vec::new();
    for (pattern, reason) in NOT_FOR_COMPUTE {
        assert!(!reason.is_empty());
        let used = GENS.iter().any(|(_, gen)| {
            census(*gen).iter().any(|r| {
                matches!(r.status, RowStatus::NotForCompute(x) if x == *reason)
                    && not_for_compute(r.mnemonic) == Some(*reason)
            })
        });
        if !used {
            unused.push(*pattern);
        }
    }
    assert!(
        unused.is_empty(),
        "match no non-executing opcode: {unused:?}"
    );
    let shown = hsaemu_emu::FaultKind::Unimplemented {
        mnemonic: "v_mullit_f32".into(),
    };
    let text = hsaemu_emu::Fault {
        kind: shown,
        kernel: None,
        workgroup_id: [0; 3],
        wave: 0,
        lane: None,
        pc: 0,
        pc_address: 0,
        instruction: None,
    }
    .to_string();
    assert!(text.contains("not for compute"), "{text}");
    assert!(text.contains("lighting"), "{text}");
}
