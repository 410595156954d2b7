//! SGPRs in compiled regions: loaded where a basic block first reads them and stored into
//! the `Wave` as they are written, so nothing is loaded at the region's entry or stored at
//! its exits. A loop whose counters live in SGPRs across its back edge, their sum read in
//! the next basic block, moved to a VGPR and stored to memory; once with every lane in
//! range (the registers and the stored words from the definitions) and once with a wild
//! lane, where the region leaves before the store and the interpreter reports the fault
//! (the SGPRs written in that basic block must already be in the `Wave` there: `run_words`
//! compares the state with the interpreter's). Under a full and a partial EXEC.

use super::{assemble, want_compiled_run, want_dword_fault, wild_lane_pairs, word, WILD};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

/// s10 counts 0, 3, 6, 9, 12; s11 doubles from 7 each pass (112 after four); s12 their sum.
const PROGRAM: &str = "s_mov_b32 s10, 0
     s_mov_b32 s11, 7
     s_add_u32 s10, s10, 3
     s_lshl_b32 s11, s11, 1
     s_cmp_lt_u32 s10, 12
     s_cbranch_scc1 -4
     s_add_u32 s12, s10, s11
     s_sub_u32 s13, s12, 100
     v_mov_b32 v6, s12
     v_mov_b32 v7, s13
     global_store_dword v[4:5], v6, off
     global_store_dword v[4:5], v7, off offset:256
     s_endpgm
";

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64) {
    let what = format!("{mcpu}{attr} exec {exec:#x}");
    let words = assemble(mcpu, attr, PROGRAM);
    let mut global = vec![0u8; 4 * 128];
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    r.set_exec(exec);
    // What a store the region left out would leave in the `Wave`.
    (r.s[10], r.s[11], r.s[12], r.s[13]) = (0xdead, 0xbeef, 0xf00d, 0xcafe);
    wild_lane_pairs(&mut r, base, 64);
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    let s = (r.s[10], r.s[11], r.s[12], r.s[13]);
    assert_eq!(s, (12, 112, 124, 24), "{what}: s10..s13");
    for l in 0..lanes {
        let word =
            |k: usize| u32::from_le_bytes(global[4 * k..4 * k + 4].try_into().expect("dword"));
        let want = if exec >> l & 1 == 1 {
            (124, 24)
        } else {
            (0, 0)
        };
        assert_eq!((word(l), word(64 + l)), want, "{what} lane {l}");
    }

    // A wild lane: the region leaves before the first store, and the interpreter reports
    // its fault at lane 9's address.
    let mut r = WaveRegs::new(gen);
    r.set_exec(exec | 1 << 9);
    (r.s[10], r.s[11], r.s[12], r.s[13]) = (0xdead, 0xbeef, 0xf00d, 0xcafe);
    wild_lane_pairs(&mut r, base, 9);
    let before = jit::stats();
    let e = run_words_mem(gen, &words, &mut r, &mut [], &mut global).expect_err("wild");
    want_dword_fault(e, WILD, true, &what);
    want_compiled_run(&before, &what);
}

/// An SMEM load in a loop, its SGPRs summed after it in the same basic block: the first
/// pass finds the load's window empty and takes the call (its results read back from the
/// `Wave`), the second the inline load (its results passed on in registers).
const SMEM_PROGRAM: &str = "s_mov_b32 s20, 0
     s_mov_b32 s9, 0
     s_load_dwordx2 s[10:11], s[0:1], 0x4
     s_waitcnt lgkmcnt(0)
     s_add_u32 s9, s9, s10
     s_add_u32 s9, s9, s11
     s_add_u32 s20, s20, 1
     s_cmp_lt_u32 s20, 2
     s_cbranch_scc1 -8
     s_endpgm
";

fn check_smem(gen: Gen, mcpu: &str, attr: &str) {
    let what = format!("{mcpu}{attr} SMEM");
    let words = assemble(mcpu, attr, SMEM_PROGRAM);
    let mut global = vec![0u8; 4 * 16];
    for k in 0..16 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    let sum = word(1).wrapping_add(word(2)).wrapping_mul(2);
    assert_eq!(
        (r.s[9], r.s[10], r.s[11], r.s[20]),
        (sum, word(1), word(2), 2),
        "{what}"
    );
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn sgprs_written_in_regions_reach_the_wave() {
    let full32 = 0xffff_ffff;
    check(Gen::Gfx90a, "gfx90a", "", 64, u64::MAX);
    check(Gen::Gfx90a, "gfx90a", "", 64, 0x0f0f_f0f0_3c3c_a5a5);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32, full32);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32, 0x3c3c_a5a5);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, u64::MAX);
    check_smem(Gen::Gfx90a, "gfx90a", "");
    check_smem(Gen::Gfx10, "gfx1030", "+wavefrontsize32");
}
