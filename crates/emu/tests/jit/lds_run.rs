//! DS loads inside a run's group passes (`lower.rs`'s `group_major`), as in matmul's loop:
//! address rows set before the block (uniform per 4 lanes, contiguous, and contiguous by
//! 8 bytes for `ds_read_b64`), so the region is compiled on the shapes the wave holds,
//! their loads go group by group straight into a `v_fmac_f32` chain with waits in it.
//! Also rows the run's `v_mul_f32`s write and a `ds_read2` then overwrites in the same
//! pass (the load's value must be left; one read after, one not), NaNs from the LDS in some lanes (the chain's
//! recomputation reads the loaded rows back), and an address past the LDS (the region
//! leaves before the run and the interpreter reports the fault). Expected registers from
//! the definitions (lane address + offset, `S0 * S1 + S2` fused, a NaN operand giving the
//! first NaN quieted), run here on the LDS words.

use super::fma_nan::fma;
use super::{assemble, want_compiled_run};
use hsaemu_emu::{jit, run_words_mem, FaultKind, Gen, WaveRegs};

const LDS: usize = 4096;

const PROGRAM: &str = "ds_read2_b32 v[12:13], v7 offset0:6 offset1:7
     ds_read2_b32 v[20:21], v9 offset1:16
     v_mul_f32 v30, v12, v13
     ds_read2_b32 v[30:31], v9 offset0:32 offset1:48
     v_mul_f32 v32, v12, v13
     ds_read2_b32 v[32:33], v9 offset0:64 offset1:80
     ds_read_b64 v[40:41], v7 offset:8
     ds_read_b64 v[42:43], v10 offset:16
     s_waitcnt lgkmcnt(2)
     v_fmac_f32 v5, v12, v20
     v_fmac_f32 v5, v13, v21
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v30, v31
     v_fmac_f32 v5, v40, v42
     v_fmac_f32 v5, v41, v43
     s_endpgm
";

/// LDS dword `k`: ordinary floats, a quiet and a signalling NaN among v9's (dword 256 + l).
fn word(k: usize) -> u32 {
    match k {
        259 => 0x7fc0_0123,
        277 => 0xff80_0042,
        _ => (0.5 + (k % 97) as f32 * 0.25).to_bits(),
    }
}

/// The address rows: v7 uniform per 16 lanes (a matmul row), v9 contiguous (its
/// column), v10 contiguous by 8 bytes.
fn setup(gen: Gen, lanes: usize) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        r.v[7][l] = 64 * (l as u32 / 16);
        r.v[9][l] = 0x400 + 4 * (l as u32 % 16);
        r.v[10][l] = 0x600 + 8 * l as u32;
        r.v[5][l] = (1.0 + l as f32).to_bits();
    }
    r
}

/// The LDS: dword `k` is `word(k)`.
fn lds() -> Vec<u8> {
    (0..LDS / 4).flat_map(|k| word(k).to_le_bytes()).collect()
}

/// Runs `words` on `r` with the LDS of `word`s, compiled (checked against the interpreter
/// where `run_words` checks); returns the tier's counters from before.
fn run(gen: Gen, words: &[u32], r: &mut WaveRegs, what: &str) -> jit::Stats {
    let before = jit::stats();
    run_words_mem(gen, words, r, &mut lds(), &mut [0; 64])
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, what);
    before
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, PROGRAM);
    let what = format!("{mcpu}{attr}");
    let mut r = setup(gen, lanes);
    let old = r.clone();
    let before = run(gen, &words, &mut r, &what);
    if jit::checks_single_runs() {
        let n = jit::stats().ds_run_loads - before.ds_run_loads;
        assert!(n >= 5, "{what}: {n} DS loads in group passes");
    }
    let mut nans = 0;
    for l in 0..lanes {
        let mut want = old.v.clone();
        let v = &mut want;
        let (a, b, c) = (
            v[7][l] as usize / 4,
            v[9][l] as usize / 4,
            v[10][l] as usize / 4,
        );
        (v[12][l], v[13][l]) = (word(a + 6), word(a + 7));
        (v[20][l], v[21][l]) = (word(b), word(b + 16));
        (v[30][l], v[31][l]) = (word(b + 32), word(b + 48));
        (v[32][l], v[33][l]) = (word(b + 64), word(b + 80));
        (v[40][l], v[41][l]) = (word(a + 2), word(a + 3));
        (v[42][l], v[43][l]) = (word(c + 4), word(c + 5));
        let mut acc = v[5][l];
        for (x, y) in [(12, 20), (13, 21), (30, 31), (40, 42), (41, 43)] {
            acc = fma(v[x][l], v[y][l], acc);
        }
        v[5][l] = acc;
        nans += usize::from(f32::from_bits(acc).is_nan());
        for reg in [5, 12, 13, 20, 21, 30, 31, 32, 33, 40, 41, 42, 43] {
            assert_eq!(r.v[reg][l], want[reg][l], "{what}: v{reg} lane {l}");
        }
    }
    // Lanes 3, 19, 35, 51 read the quiet NaN, 5, 21, ... the signalling one.
    assert_eq!(nans, 2 * lanes / 16, "{what}: NaN lanes");

    // Lanes 60–63 (12–15 in wave32) at the LDS's last 16 bytes: the first load's dword at
    // offset 24 is past it, and the interpreter reports it.
    let mut r = setup(gen, lanes);
    for l in lanes - 4..lanes {
        r.v[7][l] = LDS as u32 - 16;
    }
    let e = run_words_mem(gen, &words, &mut r, &mut lds(), &mut [0; 64]).expect_err("LDS");
    assert_eq!(
        e,
        FaultKind::LdsOutOfRange {
            offset: LDS as u64 + 8,
            size: 4,
            lds_size: LDS as u32
        },
        "{what}"
    );
}

/// A DS load into rows the block wrote on lane-affine facts (`v12 = v0 << 2`, pending,
/// not stored: `affine.rs`), its rows read by a `v_fmac_f32` chain: the loaded dwords must
/// win over the fact, in the chain and in the `Wave` after the region.
const OVER_PENDING: &str = "v_lshlrev_b32 v12, 2, v0
     v_lshlrev_b32 v13, 2, v0
     v_lshlrev_b32 v14, 3, v0
     ds_read2_b32 v[12:13], v7 offset0:6 offset1:7
     ds_read2_b32 v[20:21], v9 offset1:16
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v12, v20
     v_fmac_f32 v5, v13, v21
     s_endpgm
";

fn check_over_pending(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, OVER_PENDING);
    let what = format!("{mcpu}{attr} over a pending row");
    let mut r = setup(gen, lanes);
    for l in 0..64 {
        r.v[0][l] = l as u32;
    }
    let old = r.clone();
    run(gen, &words, &mut r, &what);
    for l in 0..lanes {
        let (a, b) = (old.v[7][l] as usize / 4, old.v[9][l] as usize / 4);
        let (x0, x1) = (word(a + 6), word(a + 7));
        let (y0, y1) = (word(b), word(b + 16));
        let acc = fma(x1, y1, fma(x0, y0, old.v[5][l]));
        assert_eq!(
            [r.v[12][l], r.v[13][l]],
            [x0, x1],
            "{what}: v[12:13] lane {l}"
        );
        assert_eq!(r.v[5][l], acc, "{what}: v5 lane {l}");
        assert_eq!(r.v[14][l], 8 * l as u32, "{what}: v14 lane {l}");
    }
}

/// Part of the one test in `jit.rs`.
pub(super) fn lds_loads_in_group_passes_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_over_pending(Gen::Gfx90a, "gfx90a", "", 64);
    check_over_pending(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
