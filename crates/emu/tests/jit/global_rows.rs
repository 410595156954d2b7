//! GLOBAL dword loads whose lanes are consecutive in runs shorter than the wave, as
//! matmul's tile loads on wave32 (16 lanes per matrix row): the whole-wave test
//! (`inline_mem.rs`'s `consecutive`) looks at the last lane first and leaves for the
//! general test when it is not where lane 0 implies; the general test then loads each
//! group of four lanes at once. Also lanes whose last one is where lane 0 implies but
//! two in the middle are swapped (the last-lane test passes, the whole pass must not),
//! with a 64-bit VGPR address and with an SGPR base. The 16-lane runs' own test
//! (`tile_rows`) also meets rows in descending order (the lowest address not lane 0's) and
//! two lanes swapped within the second row (its test must look at every row). Expected
//! registers from the definition (each lane's dword at its address), and no call into the
//! interpreter.

use super::{assemble, want_inline_run, word};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

/// The loads twice, in a loop (the first pass through a load finds its window empty and
/// goes to the general test, which fills it; the second takes the whole-wave test).
const PROGRAM: &str = "s_mov_b32 s20, 0
     global_load_dword v1, v[4:5], off
     global_load_dword v2, v[6:7], off
     global_load_dword v3, v10, s[0:1]
     global_load_dword v8, v11, s[0:1] offset:16
     global_load_dword v9, v[12:13], off
     global_load_dword v14, v15, s[0:1]
     s_add_u32 s20, s20, 1
     s_cmp_lt_u32 s20, 2
     s_cbranch_scc1 -15
     s_endpgm
";

/// Lane `l`'s word index in the 16-lane runs: row `l / 16` of 64 words, column `l % 16`.
fn tile(l: usize) -> usize {
    64 * (l / 16) + l % 16
}

/// Lane `l`'s word index in 16-lane runs whose rows descend: row `l / 16` at word
/// `64·(3 − l / 16)`.
fn tile_down(l: usize) -> usize {
    64 * (3 - l / 16) + l % 16
}

/// Lane `l`'s word index in the 16-lane runs from word 256 with lanes 20 and 21 (the
/// second row's) swapped.
fn tile_swapped(l: usize) -> usize {
    256 + tile(match l {
        20 => 21,
        21 => 20,
        _ => l,
    })
}

/// Lane `l`'s word index in the consecutive lanes from word 256 with lanes 5 and 6 swapped.
fn swapped(l: usize) -> usize {
    256 + match l {
        5 => 6,
        6 => 5,
        _ => l,
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let words = assemble(mcpu, attr, PROGRAM);
    let mut global = vec![0u8; 4 * 512];
    for k in 0..512 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for l in 0..64 {
        for (v, k) in [(4, tile(l)), (6, swapped(l)), (12, tile_down(l))] {
            let a = base + 4 * k as u64;
            (r.v[v][l], r.v[v + 1][l]) = (a as u32, (a >> 32) as u32);
        }
        r.v[10][l] = 4 * tile(l) as u32;
        r.v[11][l] = 4 * swapped(l) as u32;
        r.v[15][l] = 4 * tile_swapped(l) as u32;
    }
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_inline_run(&before, &what);
    assert_eq!(r.s[20], 2, "{what}: the loop's count");
    for l in 0..lanes {
        let ctx = format!("{what} lane {l}");
        assert_eq!(r.v[1][l], word(tile(l)), "{ctx}: 16-lane runs");
        assert_eq!(r.v[2][l], word(swapped(l)), "{ctx}: two lanes swapped");
        assert_eq!(r.v[3][l], word(tile(l)), "{ctx}: 16-lane runs, SGPR base");
        assert_eq!(
            r.v[8][l],
            word(swapped(l) + 4),
            "{ctx}: two lanes swapped, SGPR base"
        );
        assert_eq!(r.v[9][l], word(tile_down(l)), "{ctx}: descending rows");
        assert_eq!(
            r.v[14][l],
            word(tile_swapped(l)),
            "{ctx}: two lanes swapped in the second row, SGPR base"
        );
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn global_loads_in_runs_shorter_than_the_wave_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
