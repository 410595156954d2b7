//! NaN segments (`src/jit/nan_seg.rs`): float operations in a run's group pass whose NaN
//! tests wait for one test at the segment's end, and whose cold block generates the segment
//! again with each step's NaN rule. Chains that read their own results (mixbench's
//! `x = x * x + s`), gfx90a's packed f32 on row pairs and f64 FMAs, with NaNs of distinct
//! payloads, signalling NaNs and an infinity times zero in some lanes of some groups and none
//! in others, under a full and a partial EXEC; an integer add after the segment reads its
//! results, and a second segment follows. Expected values from the definitions: IEEE-754
//! binary32/binary64 fused multiply-add, multiplication and addition rounded to nearest even
//! (the host's `mul_add`, `*`, `+`), and where an operand is a NaN the first NaN operand,
//! quieted.

use super::assemble;
use super::fma_nan::fma;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

const PROGRAM: &str = "v_pk_fma_f32 v[4:5], v[4:5], v[6:7], v[8:9]
     v_fma_f32 v10, v10, v10, v11
     v_fma_f32 v10, v10, v10, v11
     v_pk_mul_f32 v[12:13], v[4:5], v[6:7]
     v_pk_add_f32 v[14:15], v[12:13], v[4:5] neg_lo:[1,0]
     v_fma_f64 v[16:17], v[18:19], v[16:17], v[22:23]
     v_add_u32 v20, v10, v4
     v_fma_f32 v21, v4, v10, v5
     v_fma_f32 v21, v21, v21, v11
     s_endpgm";

/// The first NaN of `ops`, quieted, else `f` of them.
fn first_nan_or(ops: &[u32], f: impl Fn(&[f32]) -> f32) -> u32 {
    match ops.iter().find(|&&v| f32::from_bits(v).is_nan()) {
        Some(&n) => n | 0x40_0000,
        None => f(&ops.iter().map(|&v| f32::from_bits(v)).collect::<Vec<_>>()).to_bits(),
    }
}

fn fma64(x: u64, y: u64, z: u64) -> u64 {
    match [x, y, z].iter().find(|&&v| f64::from_bits(v).is_nan()) {
        Some(&n) => n | 1 << 51,
        None => f64::from_bits(x)
            .mul_add(f64::from_bits(y), f64::from_bits(z))
            .to_bits(),
    }
}

/// Lane `l`'s f32 bits for input `k`: ordinary values (some that overflow to infinity in
/// the chain), and in lanes outside 16–31 now and then a quiet NaN, a signalling NaN (each
/// with a payload naming its input), an infinity or a zero.
fn value(k: usize, l: usize) -> u32 {
    let ordinary = (0.75 + l as f32 * 0.0625 - k as f32 * 0.5).to_bits();
    if (16..32).contains(&l) {
        return ordinary;
    }
    match (l * 5 + k * 3) % 13 {
        0 => 0x7fc0_0100 | k as u32,
        1 => 0xff80_0200 | k as u32,
        2 => 0x7f80_0000,
        3 => 0,
        4 => 1.0e30f32.to_bits(),
        _ => ordinary,
    }
}

/// Lane `l`'s f64 bits for input `k` (as `value`).
fn value64(k: usize, l: usize) -> u64 {
    let ordinary = (1.5 + l as f64 * 0.03125 - k as f64).to_bits();
    if (16..32).contains(&l) {
        return ordinary;
    }
    match (l % 6, k) {
        (0, _) => 0x7ff8_0000_0000_0100 | k as u64,
        (1, 1) => 0xfff0_0000_0000_0200 | k as u64,
        (1, 2) => 0x7ff8_0000_0000_0300 | k as u64,
        (2, 0) => f64::INFINITY.to_bits(),
        (2, 1) => 0,
        _ => ordinary,
    }
}

fn check(exec: u64) {
    let words = assemble("gfx90a", "", PROGRAM);
    let mut r = WaveRegs::new(Gen::Gfx90a);
    r.set_exec(exec);
    for l in 0..64 {
        for k in 0..12 {
            r.v[4 + k][l] = value(k, l);
        }
        let d = |k: usize| value64(k, l);
        for (row, bits) in [(16, d(0)), (18, d(1)), (22, d(2))] {
            (r.v[row][l], r.v[row + 1][l]) = (bits as u32, (bits >> 32) as u32);
        }
    }
    let old = r.clone();
    let before = jit::stats();
    let what = format!("gfx90a exec {exec:#x}");
    run_words(Gen::Gfx90a, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if jit::checks_single_runs() {
        // One segment per group up to the add and one after it, in each variant generated.
        let n = jit::stats().nan_segments - before.nan_segments;
        assert!(n >= 2 * 16, "{what}: {n} NaN segments compiled");
    }
    let mut nans = 0;
    for l in 0..64 {
        let v = |row: usize| old.v[row][l];
        if exec >> l & 1 == 0 {
            for row in 4..24 {
                assert_eq!(r.v[row][l], v(row), "{what}: v{row} lane {l} (inactive)");
            }
            continue;
        }
        let lo = fma(v(4), v(6), v(8));
        let hi = fma(v(5), v(7), v(9));
        let c1 = fma(v(10), v(10), v(11));
        let c2 = fma(c1, c1, v(11));
        let m = |x, y| first_nan_or(&[x, y], |a| a[0] * a[1]);
        let a = |x, y| first_nan_or(&[x, y], |a| a[0] + a[1]);
        let (m_lo, m_hi) = (m(lo, v(6)), m(hi, v(7)));
        let (a_lo, a_hi) = (a(m_lo ^ 0x8000_0000, lo), a(m_hi, hi));
        let pair = |row: usize| u64::from(v(row)) | u64::from(v(row + 1)) << 32;
        let f = fma64(pair(18), pair(16), pair(22));
        let sum = c2.wrapping_add(lo);
        let e1 = fma(lo, c2, hi);
        let e2 = fma(e1, e1, v(11));
        nans += usize::from(f32::from_bits(e2).is_nan() || f32::from_bits(c2).is_nan());
        let want = [
            (4, lo),
            (5, hi),
            (10, c2),
            (12, m_lo),
            (13, m_hi),
            (14, a_lo),
            (15, a_hi),
            (16, f as u32),
            (17, (f >> 32) as u32),
            (20, sum),
            (21, e2),
        ];
        for (row, w) in want {
            assert_eq!(r.v[row][l], w, "{what}: v{row} lane {l}");
        }
    }
    assert!(nans > 4, "{what}: {nans} lanes with NaNs");
}

/// Part of the one test in `jit.rs`.
pub(super) fn nan_segments_match_the_definitions() {
    check(u64::MAX);
    check(0x5a5a_5a5a_f0f0_3c3c);
}
