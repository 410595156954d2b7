//! DS load rows a later DS load of the same run writes again (`live.rs`'s
//! `reloaded_in_run`): gfx1030's matmul loop loads fourteen of its rows twice between its
//! two barriers, each first value read by a `v_fmac_f32` and then overwritten. Those first
//! values are not stored into the `Wave`; the later loads' are (here with no liveness at
//! all: `run_words` reads every register after the block). The rows: v[14:15] loaded twice
//! (the second read in the pass and left in the `Wave`), v[16:17] three times (the second
//! read in the pass, the third only left); a NaN in one lane of the first v16 load, so the
//! chain's recomputation loads that group's other lanes' first values again (the `Wave`
//! holds the registers' old values there). Expected registers from the definitions (lane
//! address + offset, `S0 * S1 + S2` fused, a NaN operand giving the first NaN quieted).
//! The four `v_fmac_f32`s are one chain across the DS loads between them; a DS load
//! writing a row the `Wave` holds a step's multiplicand in ends the chain before it
//! (`CHAIN_END`).

use super::fma_nan::fma;
use super::{assemble, want_compiled_run};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

const LDS: usize = 4096;

const PROGRAM: &str = "ds_read2_b32 v[14:15], v7 offset1:1
     ds_read2_b32 v[16:17], v8 offset1:16
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v14, v16
     v_fmac_f32 v5, v15, v17
     ds_read2_b32 v[14:15], v7 offset0:2 offset1:3
     ds_read2_b32 v[16:17], v8 offset0:32 offset1:48
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v14, v16
     v_fmac_f32 v5, v15, v17
     ds_read2_b32 v[16:17], v8 offset0:64 offset1:80
     s_waitcnt lgkmcnt(0)
     s_endpgm
";

/// LDS dword `k`: ordinary floats, a quiet NaN at dword 257 (v8's lane 1, 17, ... in the
/// first v16 load).
fn word(k: usize) -> u32 {
    match k {
        257 => 0x7fc0_0321,
        _ => (0.75 + (k % 89) as f32 * 0.5).to_bits(),
    }
}

/// Runs `words` on `r` over an LDS of [`word`]s, wanting a compiled run; the tier's counters
/// before it.
fn run_on_lds(gen: Gen, words: &[u32], r: &mut WaveRegs, what: &str) -> jit::Stats {
    let mut lds: Vec<u8> = (0..LDS / 4).flat_map(|k| word(k).to_le_bytes()).collect();
    let before = jit::stats();
    run_words_mem(gen, words, r, &mut lds, &mut [0; 64])
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, what);
    before
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, PROGRAM);
    let what = format!("{mcpu}{attr} rows loaded again");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        // v7 uniform per 16 lanes (a matmul A row), v8 contiguous (its B column).
        r.v[7][l] = 64 * (l as u32 / 16);
        r.v[8][l] = 0x400 + 4 * (l as u32 % 16);
        r.v[5][l] = (1.0 + l as f32).to_bits();
        for row in 14..18 {
            r.v[row][l] = (100.0 + row as f32 + l as f32 * 0.125).to_bits();
        }
    }
    let old = r.clone();
    let before = run_on_lds(gen, &words, &mut r, &what);
    if jit::checks_single_runs() {
        // The first v[14:15] and v[16:17] and the second v[16:17], in one run.
        let n = jit::stats().ds_dead_rows - before.ds_dead_rows;
        assert!(n >= 6, "{what}: {n} DS rows not stored");
        // The DS loads between the `v_fmac_f32`s leave their chain pending: one NaN test
        // per group.
        let n = jit::stats().fmac_chains - before.fmac_chains;
        assert_eq!(n as usize, lanes / 4, "{what}: chains compiled");
    }
    let mut nans = 0;
    for l in 0..lanes {
        let (a, b) = (old.v[7][l] as usize / 4, old.v[8][l] as usize / 4);
        let mut acc = old.v[5][l];
        for (x, y) in [
            (word(a), word(b)),
            (word(a + 1), word(b + 16)),
            (word(a + 2), word(b + 32)),
            (word(a + 3), word(b + 48)),
        ] {
            acc = fma(x, y, acc);
        }
        nans += usize::from(f32::from_bits(acc).is_nan());
        let want = [
            (5, acc),
            (14, word(a + 2)),
            (15, word(a + 3)),
            (16, word(b + 64)),
            (17, word(b + 80)),
        ];
        for (reg, x) in want {
            assert_eq!(r.v[reg][l], x, "{what}: v{reg} lane {l}");
        }
    }
    assert_eq!(nans, lanes / 16, "{what}: NaN lanes");
}

/// A chain's first multiplicand v14 read from the `Wave` (a NaN in some lanes), then a DS
/// load into v14 read by the next `v_fmac_f32` (so stored into the `Wave` at once): the
/// recomputation of the NaN lanes must read the first v14, so the load ends the chain.
const CHAIN_END: &str = "v_fmac_f32 v5, v14, v16
     ds_read2_b32 v[14:15], v7 offset1:1
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v14, v17
     s_endpgm
";

fn check_chain_end(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, CHAIN_END);
    let what = format!("{mcpu}{attr} chain ended by a DS load");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        r.v[7][l] = 64 * (l as u32 / 16);
        r.v[5][l] = (1.0 + l as f32).to_bits();
        r.v[14][l] = match l % 5 {
            2 => 0x7fc0_0100 | l as u32,
            _ => (3.0 + l as f32 * 0.25).to_bits(),
        };
        r.v[16][l] = (0.5 + l as f32).to_bits();
        r.v[17][l] = (2.0 - l as f32 * 0.125).to_bits();
    }
    let old = r.clone();
    let before = run_on_lds(gen, &words, &mut r, &what);
    if jit::checks_single_runs() {
        let n = jit::stats().fmac_chains - before.fmac_chains;
        assert_eq!(n as usize, 2 * lanes / 4, "{what}: chains compiled");
    }
    let mut nans = 0;
    for l in 0..lanes {
        let a = old.v[7][l] as usize / 4;
        let acc = fma(old.v[14][l], old.v[16][l], old.v[5][l]);
        let acc = fma(word(a), old.v[17][l], acc);
        nans += usize::from(f32::from_bits(acc).is_nan());
        for (reg, x) in [(5, acc), (14, word(a)), (15, word(a + 1))] {
            assert_eq!(r.v[reg][l], x, "{what}: v{reg} lane {l}");
        }
    }
    assert_eq!(nans, (0..lanes).filter(|l| l % 5 == 2).count(), "{what}");
}

/// Part of the one test in `jit.rs`.
pub(super) fn rows_loaded_again_in_a_run_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_chain_end(Gen::Gfx90a, "gfx90a", "", 64);
    check_chain_end(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_chain_end(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
