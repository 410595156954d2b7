//! Compiled code does not multiply the process's memory mappings. Cranelift's default JIT
//! memory took each region's pages from the heap and made them executable there, two
//! mappings more per region; a process that loaded many code objects (the dispatch fuzzer,
//! after ~32 000 regions) reached the kernel's limit of 65 530 mappings, and every
//! allocation after that failed. The tier now puts its code in one reserved range
//! (`lower.rs`, `ARENA`), where neighbouring executable pages stay one mapping.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// Mappings of this process (`/proc/self/maps` lines).
fn mappings() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .expect("read /proc/self/maps")
        .lines()
        .count()
}

pub(crate) fn compiled_code_keeps_the_process_mappings_few() {
    // `s_add_u32 s1, s0, K`: a different literal K makes each program a region of its own.
    let words = assemble("gfx90a", "", "s_add_u32 s1, s0, 0x12345678\ns_endpgm\n");
    assert_eq!(words.len(), 3, "{words:x?}");
    assert_eq!(words[1], 0x1234_5678, "the literal follows the instruction");
    const REGIONS: u32 = 400;
    let (before, maps_before) = (jit::stats(), mappings());
    for k in 0..REGIONS {
        let literal = 0x9e37_79b9u32.wrapping_mul(k + 1);
        let mut program = words.clone();
        program[1] = literal;
        let mut r = WaveRegs::new(Gen::Gfx90a);
        r.s[0] = 0xffff_0000 + k;
        run_words(Gen::Gfx90a, &program, &mut r).unwrap_or_else(|e| panic!("K={k}: {e:?}"));
        // s_add_u32: D = S0 + S1 (mod 2^32), SCC = the carry out.
        let (sum, carry) = r.s[0].overflowing_add(literal);
        assert_eq!((r.s[1], r.scc), (sum, carry), "K={k}");
    }
    let (after, maps_after) = (jit::stats(), mappings());
    if jit::checks_single_runs() {
        assert!(
            after.blocks >= before.blocks + u64::from(REGIONS),
            "the programs were not compiled ({before:?} → {after:?})"
        );
        // Two per region with Cranelift's default (800 here); a few in all with the arena.
        assert!(
            maps_after < maps_before + 100,
            "{REGIONS} compiled regions took the process from {maps_before} to {maps_after} mappings"
        );
    } else {
        assert_eq!(
            after.blocks, before.blocks,
            "HSAEMU_JIT=0 compiled something"
        );
    }
}
