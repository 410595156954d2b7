//! `v_max_f32`/`v_min_f32` compiled (`src/jit/lower.rs`'s `min_max`), for IEEE mode (the
//! compute default; the region's MODE test asks for it). Every pair of a set of edge values
//! (±0, ±1, ±∞, a denormal, quiet and signalling NaNs of both signs), and the same row
//! against itself negated (`-v0`: ±0 against ∓0). Expected values from the ISA's definition
//! in IEEE mode: a signalling NaN operand gives itself quieted (source 0 first); else a NaN
//! operand gives the other operand; else the larger (smaller) value, −0 below +0.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

const EDGES: [u32; 8] = [
    0,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0x0000_0001,
    0x7fc0_0123,
    0xff80_0456,
];

fn is_nan(v: u32) -> bool {
    f32::from_bits(v).is_nan()
}

fn is_snan(v: u32) -> bool {
    is_nan(v) && v & 0x40_0000 == 0
}

/// The definition of `v_max_f32` (`max`) / `v_min_f32` in IEEE mode.
fn min_max(x: u32, y: u32, max: bool) -> u32 {
    if is_snan(x) {
        return x | 0x40_0000;
    }
    if is_snan(y) {
        return y | 0x40_0000;
    }
    if is_nan(x) {
        return y;
    }
    if is_nan(y) {
        return x;
    }
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    if a == b {
        // ±0: max is +0 unless both are −0, min is −0 unless both are +0.
        let neg = if max {
            x & y & 0x8000_0000
        } else {
            (x | y) & 0x8000_0000
        };
        return x & 0x7fff_ffff | neg;
    }
    if (a > b) == max {
        x
    } else {
        y
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let text = "v_max_f32_e32 v2, v0, v1
         v_min_f32_e32 v3, v0, v1
         v_max_f32_e64 v4, v0, -v0
         v_min_f32_e64 v5, v0, -v0
         s_endpgm";
    let words = assemble(mcpu, attr, text);
    let what = format!("{mcpu}{attr}");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        r.v[0][l] = EDGES[l % 8];
        r.v[1][l] = EDGES[l / 8 % 8];
    }
    let old = r.clone();
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if jit::checks_single_runs() {
        let n = jit::stats().instructions - before.instructions;
        assert!(n >= 4, "{what}: {n} instructions compiled");
    }
    for l in 0..lanes {
        let (x, y) = (old.v[0][l], old.v[1][l]);
        let neg = x ^ 0x8000_0000;
        for (row, want) in [
            (2, min_max(x, y, true)),
            (3, min_max(x, y, false)),
            (4, min_max(x, neg, true)),
            (5, min_max(x, neg, false)),
        ] {
            assert_eq!(
                r.v[row][l], want,
                "{what}: v{row} lane {l} ({x:#x}, {y:#x})"
            );
        }
    }

    // IEEE mode off: the region does not run (the interpreter's other NaN rule applies).
    let mut r = old.clone();
    r.mode &= !(1 << 9);
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(jit::stats().runs, before.runs, "{what}: ran with IEEE off");
    // A signalling NaN against a number gives the number then.
    let l = 7;
    assert_eq!((old.v[0][l], old.v[1][l]), (0xff80_0456, 0));
    assert_eq!(r.v[2][l], 0, "{what}: IEEE off, v2 lane {l}");
}

/// Part of the one test in `jit.rs`.
pub(super) fn max_min_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
