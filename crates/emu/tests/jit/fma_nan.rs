//! `v_fmac_f32`/`v_fma_f32` in a run of vector instructions (group by group), with NaNs in
//! some lanes of some groups and none in others: the compiled code looks at the operands
//! only where a lane of the result is a NaN (a branch around the selects in the middle of
//! the run), so a NaN operand must still give the first NaN of (S0, S1, S2), quieted, and
//! the instructions after the branch must still see the run's values. Expected values from
//! the definition `S0 * S1 + S2` fused (the host's `mul_add`, as `inst.rs` takes it).

use super::{assemble, v_add_u32};
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// Lane `l`'s f32 bits for source `k`: ordinary values, and a quiet NaN, a signalling NaN
/// and an infinity in a few lanes (none in lanes 8–15, so some groups have no NaN).
fn value(k: usize, l: usize) -> u32 {
    let ordinary = (1.0 + l as f32 * 0.25 - k as f32).to_bits();
    match (l + 3 * k) % 23 {
        _ if (8..16).contains(&l) => ordinary,
        0 => 0x7fc0_1234,
        5 => 0xff80_0042,
        9 => 0x7f80_0000,
        _ => ordinary,
    }
}

/// The first NaN of `ops`, quieted, else the fused result (`lds_fmac.rs` uses it too).
pub(crate) fn fma(x: u32, y: u32, z: u32) -> u32 {
    if let Some(&n) = [x, y, z].iter().find(|&&v| f32::from_bits(v).is_nan()) {
        return n | 0x40_0000;
    }
    f32::from_bits(x)
        .mul_add(f32::from_bits(y), f32::from_bits(z))
        .to_bits()
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let add = v_add_u32(!attr.is_empty());
    let text = format!(
        "v_fmac_f32 v20, v21, v22
         v_fmac_f32 v20, v23, v22
         {add} v24, v21, v22
         v_fma_f32 v25, v20, v23, v21
         v_fmac_f32 v20, v20, v23
         s_endpgm"
    );
    let words = assemble(mcpu, attr, &text);
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        for (k, row) in [20, 21, 22, 23].into_iter().enumerate() {
            r.v[row][l] = value(k, l);
        }
    }
    let old = r.clone();
    let before = jit::stats();
    let what = format!("{mcpu}{attr}");
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(
            after.instructions >= before.instructions + 5,
            "{what}: not compiled ({before:?} → {after:?})"
        );
    }
    let mut nans = 0;
    for l in 0..lanes {
        let v = |row: usize| old.v[row][l];
        let d1 = fma(v(21), v(22), v(20));
        let d2 = fma(v(23), v(22), d1);
        let sum = v(21).wrapping_add(v(22));
        let e = fma(d2, v(23), v(21));
        let d3 = fma(d2, v(23), d2);
        nans += usize::from(f32::from_bits(d3).is_nan());
        assert_eq!(r.v[24][l], sum, "{what}: v24 lane {l}");
        assert_eq!(r.v[25][l], e, "{what}: v25 lane {l}");
        assert_eq!(r.v[20][l], d3, "{what}: v20 lane {l}");
    }
    assert!(nans > 0 && nans < lanes - 8, "{what}: {nans} NaN lanes");
}

/// Part of the one test in `jit.rs`.
pub(super) fn fma_nans_in_a_run_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_chain(Gen::Gfx90a, "gfx90a", "", 64);
    check_chain(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_chain_over_wait(Gen::Gfx90a, "gfx90a", "", 64);
    check_chain_over_wait(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_chain_over_wait(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}

/// gfx1030 matmul's loop after its second barrier: a `v_fmac_f32`, a wait that generates
/// code (`s_waitcnt_vscnt null, 0x0`; on gfx90a `s_waitcnt vmcnt(0)`), then more
/// `v_fmac_f32`s into the same row. The wait's code is in group 0's pass alone, so only
/// there does it end the chain: the run compiles one chain per group and one more (a
/// second NaN test in every group before), and a NaN in the step before the wait is still
/// each lane's first NaN.
fn check_chain_over_wait(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wait = if attr.is_empty() {
        "s_waitcnt vmcnt(0)"
    } else {
        "s_waitcnt_vscnt null, 0x0"
    };
    let text = format!(
        "v_fmac_f32 v30, v31, v32
         {wait}
         v_fmac_f32 v30, v33, v34
         v_fmac_f32 v30, v35, v36
         v_fmac_f32 v30, v37, v38
         s_endpgm"
    );
    let words = assemble(mcpu, attr, &text);
    let mut r = chain_regs(gen, lanes);
    let old = r.clone();
    let what = format!("{mcpu}{attr} chain over a wait");
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if jit::checks_single_runs() {
        let n = jit::stats().fmac_chains - before.fmac_chains;
        assert_eq!(n as usize, lanes / 4 + 1, "{what}: chains compiled");
    }
    let mut nans = 0;
    for l in 0..lanes {
        let v = |row: usize| old.v[row][l];
        let mut acc = v(30);
        for (x, y) in [(31, 32), (33, 34), (35, 36), (37, 38)] {
            acc = fma(v(x), v(y), acc);
        }
        nans += usize::from(f32::from_bits(acc).is_nan());
        assert_eq!(r.v[30][l], acc, "{what}: v30 lane {l}");
    }
    assert!(nans > 0 && nans <= lanes - 8, "{what}: {nans} NaN lanes");
}

/// Lane `l`'s f32 bits for row `k` of a chain: ordinary values, and NaNs of distinct
/// payloads (and an infinity times a zero) in different steps' operands of some lanes, so a
/// chain whose NaN test waits for its end must still give each step's first NaN.
fn chain_value(k: usize, l: usize) -> u32 {
    let ordinary = (0.5 + l as f32 * 0.125 + k as f32).to_bits();
    if (16..24).contains(&l) {
        return ordinary;
    }
    match (l * 7 + k * 3) % 11 {
        0 => 0x7fc0_0100 | k as u32,
        1 => 0xff80_0200 | k as u32,
        2 => 0x7f80_0000,
        3 => 0,
        _ => ordinary,
    }
}

/// A chain of `v_fmac_f32`s into one row (the NaN test of each deferred to the chain's
/// end in the compiled code), then an instruction reading the chain's result.
fn check_chain(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let text = "v_fmac_f32 v30, v31, v32
         v_fmac_f32 v30, v33, v34
         v_fmac_f32 v30, v35, v36
         v_fmac_f32 v30, v37, v38
         v_fmac_f32 v30, v32, v38
         v_fma_f32 v39, v31, v33, v30
         s_endpgm";
    let words = assemble(mcpu, attr, text);
    let mut r = chain_regs(gen, lanes);
    let old = r.clone();
    let what = format!("{mcpu}{attr} chain");
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let mut nans = 0;
    for l in 0..lanes {
        let v = |row: usize| old.v[row][l];
        let mut acc = v(30);
        for (x, y) in [(31, 32), (33, 34), (35, 36), (37, 38), (32, 38)] {
            acc = fma(v(x), v(y), acc);
        }
        let e = fma(v(31), v(33), acc);
        nans += usize::from(f32::from_bits(acc).is_nan());
        assert_eq!(r.v[30][l], acc, "{what}: v30 lane {l}");
        assert_eq!(r.v[39][l], e, "{what}: v39 lane {l}");
    }
    assert!(nans > 0 && nans <= lanes - 8, "{what}: {nans} NaN lanes");
}

/// EXEC full for `lanes` and v30–v38 holding `chain_value`s: the chains' registers.
fn chain_regs(gen: Gen, lanes: usize) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        for k in 0..9 {
            r.v[30 + k][l] = chain_value(k, l);
        }
    }
    r
}
