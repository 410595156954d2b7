//! Loads of 3 and 4 dwords through lanes at consecutive dwords, each lane's dwords
//! overlapping the next lane's (a stencil's: rocm-examples' convolution reads five floats
//! per row so), in a compiled region (`src/jit/inline_mem.rs`: each component's lane groups
//! one 16-byte load, 4k bytes further for component k), and loads of 4 dwords through lanes
//! at consecutive 16-byte elements (a `float4` per work-item: four 16-byte loads per lane
//! group, transposed): with an SGPR base and a 32-bit offset and with a 64-bit VGPR address,
//! under a full and a partial EXEC, and lanes in runs of four at scattered places (the same
//! loads), then one lane out of its run (the lane loop). Expected values come from the
//! definition: component k of lane l is the dword at the lane's address plus 4k; inactive
//! lanes keep their VGPRs. The tier's own check
//! compares each compiled run with the interpreter.

use super::{assemble, want_inline_run};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

/// Global dword `k`.
fn dword(k: usize) -> u32 {
    (k as u32).wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995
}

/// The loads; `exec` first (an EXEC write, or a no-op for the full-EXEC variant).
fn program(exec: &str) -> String {
    format!(
        "{exec}
         global_load_dwordx4 v[2:5], v20, s[0:1] offset:16
         global_load_dwordx3 v[6:8], v[24:25], off offset:8
         global_load_dwordx4 v[12:15], v21, s[0:1]
         global_load_dwordx4 v[16:19], v22, s[0:1] offset:32
         global_load_dwordx4 v[28:31], v[26:27], off
         s_endpgm
"
    )
}

/// Lane `l`'s dword index for the third load: runs of four consecutive dwords, the runs at
/// scattered places, or with `odd` one lane out of its run.
fn runs(l: usize, lanes: usize, odd: bool) -> usize {
    if odd && l == lanes / 2 + 1 {
        return 700;
    }
    4 * ((5 * (l / 4) + 3) % (lanes / 4)) + l % 4
}

/// Lane `l`'s 16-byte element for the last load: as [`runs`], the odd lane at element 200.
fn elements(l: usize, lanes: usize, odd: bool) -> usize {
    match odd && l == lanes / 2 + 1 {
        true => 200,
        false => runs(l, lanes, false),
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64, odd: bool) {
    let write = match (exec == u64::MAX >> (64 - lanes), lanes) {
        (true, _) => "s_nop 0",
        (false, 32) => "s_mov_b32 exec_lo, s10",
        (false, _) => "s_mov_b64 exec, s[10:11]",
    };
    let words = assemble(mcpu, attr, &program(write));
    let mut global: Vec<u8> = (0..1024).flat_map(|k| dword(k).to_le_bytes()).collect();
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[10], r.s[11]) = (exec as u32, (exec >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = 4 * l as u32;
        r.v[21][l] = 4 * runs(l % lanes, lanes, odd) as u32;
        let a = base + 4 * (300 + l as u64);
        (r.v[24][l], r.v[25][l]) = (a as u32, (a >> 32) as u32);
        r.v[22][l] = 16 * l as u32;
        let a = base + 16 * elements(l % lanes, lanes, odd) as u64;
        (r.v[26][l], r.v[27][l]) = (a as u32, (a >> 32) as u32);
        for v in (2..=19).chain(28..=31) {
            r.v[v][l] = 0xcafe_0000 | (v << 8 | l) as u32;
        }
    }
    let old = r.clone();
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    want_inline_run(&before, &format!("{mcpu}{attr}"));
    for l in 0..lanes {
        let ctx = format!("{mcpu}{attr} exec {exec:#x} odd {odd} lane {l}");
        // (first VGPR, dwords, the lane's first dword index; gfx90a's tuples start even)
        for (v0, n, at) in [
            (2, 4, 4 + l),
            (6, 3, 302 + l),
            (12, 4, runs(l, lanes, odd)),
            (16, 4, 8 + 4 * l),
            (28, 4, 4 * elements(l, lanes, odd)),
        ] {
            for k in 0..n {
                let v = v0 + k;
                let want = if exec >> l & 1 != 0 {
                    dword(at + k)
                } else {
                    old.v[v][l]
                };
                assert_eq!(r.v[v][l], want, "{ctx}: v{v}");
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(super) fn overlapping_dword_loads_match_the_definition() {
    let partial = 0x5a5a_0ff0_f00f_a5a5u64;
    let targets = [
        (Gen::Gfx90a, "gfx90a", "", 64),
        (Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32),
    ];
    for odd in [false, true] {
        for (gen, mcpu, attr, lanes) in targets {
            let all = u64::MAX >> (64 - lanes);
            for exec in [all, partial & all] {
                check(gen, mcpu, attr, lanes, exec, odd);
            }
        }
    }
}
