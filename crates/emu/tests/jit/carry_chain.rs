//! 64-bit adds and subtracts as the compiler writes them: a carry (borrow) out of the low
//! halves into the high halves' `v_addc`/`v_subb`/`v_subbrev`, in a run (the carry-in
//! forwarded as a lane select) and alone (read from its SGPRs), under a full and a partial
//! EXEC. Every pair of 64-bit edge values is some lane's operands, so the carry-in meets a
//! high half that wraps to 0 (`0xffff_ffff + 0 + 1`) and a borrow-in meets a high half of 0;
//! the results and each carry-out mask (merged under EXEC) come from the definition of the
//! 64-bit operation.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

const EDGES: [u64; 8] = [
    0,
    1,
    0xffff_ffff,
    0x1_0000_0000,
    0x1_ffff_ffff,
    u64::MAX,
    0xffff_ffff_0000_0000,
    0x8000_0000_0000_0000,
];

/// Lane `l`'s operands: every pair of edges over 64 lanes.
fn operands(l: usize) -> (u64, u64) {
    (EDGES[l % 8], EDGES[l / 8 % 8])
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let w32 = lanes == 32;
    let (vcc, s10, s12) = if w32 {
        ("vcc_lo", "s10", "s12")
    } else {
        ("vcc", "s[10:11]", "s[12:13]")
    };
    let gfx10 = mcpu.starts_with("gfx10");
    let (addc, subb, subbrev, sub, subrev) = if gfx10 {
        (
            "v_add_co_ci_u32",
            "v_sub_co_ci_u32",
            "v_subrev_co_ci_u32",
            "v_sub_co_u32",
            "v_subrev_co_u32",
        )
    } else {
        (
            "v_addc_co_u32",
            "v_subb_co_u32",
            "v_subbrev_co_u32",
            "v_sub_co_u32",
            "v_subrev_co_u32",
        )
    };
    // a = v[1:0]... as (lo, hi): a in v0/v2, b in v1/v3.
    let run = format!(
        "v_add_co_u32 v4, {vcc}, v0, v1
         {addc} v5, {vcc}, v2, v3, {vcc}
         {sub} v6, {s10}, v0, v1
         {subb} v7, {s10}, v2, v3, {s10}
         {subrev} v8, {s12}, v0, v1
         {subbrev} v9, {s12}, v2, v3, {s12}
         s_endpgm
"
    );
    let alone = format!("{addc} v5, {vcc}, v2, v3, {vcc}\ns_endpgm\n");
    for (text, chained) in [(run, true), (alone, false)] {
        let words = assemble(mcpu, attr, &text);
        for exec in [u64::MAX, 0x6db6_db6d_b6db_6db6] {
            let exec = if w32 { exec & 0xffff_ffff } else { exec };
            let mut r = WaveRegs::new(gen);
            r.set_exec(exec);
            for l in 0..64 {
                let (a, b) = operands(l);
                r.v[0][l] = a as u32;
                r.v[2][l] = (a >> 32) as u32;
                r.v[1][l] = b as u32;
                r.v[3][l] = (b >> 32) as u32;
                r.v[4][l] = 0x4444_0000 | l as u32;
            }
            // Alone, the carry-in is the low halves' carry, written beforehand.
            let low_carry = (0..lanes).fold(0u64, |m, l| {
                let (a, b) = operands(l);
                m | u64::from((a as u32).overflowing_add(b as u32).1) << l
            });
            let vcc_old = if chained {
                0x1234_5678_9abc_def0
            } else {
                low_carry
            };
            r.s[106] = vcc_old as u32;
            r.s[107] = (vcc_old >> 32) as u32;
            for k in 10..14 {
                r.s[k] = 0xdead_0000 | k as u32;
            }
            let old = r.clone();
            let before = jit::stats();
            run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            if jit::checks_single_runs() {
                assert!(jit::stats().runs > before.runs, "{what}: not compiled");
            }
            let mut outs = [0u64; 3];
            for l in 0..lanes {
                let (a, b) = operands(l);
                let add = u128::from(a) + u128::from(b);
                let results = [
                    (4, add as u64, add >> 64 != 0),
                    (6, a.wrapping_sub(b), b > a),
                    (8, b.wrapping_sub(a), a > b),
                ];
                let active = exec >> l & 1 != 0;
                for (k, &(row, v, out)) in results.iter().enumerate() {
                    if !chained && row != 4 {
                        continue;
                    }
                    let got_hi = r.v[row + 1][l];
                    let want_hi = if active {
                        (v >> 32) as u32
                    } else {
                        old.v[row + 1][l]
                    };
                    assert_eq!(
                        got_hi,
                        want_hi,
                        "{what} v{} lane {l} exec {exec:#x}",
                        row + 1
                    );
                    if chained {
                        let want_lo = if active { v as u32 } else { old.v[row][l] };
                        assert_eq!(r.v[row][l], want_lo, "{what} v{row} lane {l}");
                    }
                    outs[k] |= u64::from(out) << l;
                }
            }
            let lane_bits = if w32 { 0xffff_ffff } else { u64::MAX };
            let sgprs = if chained {
                &[106, 10, 12][..]
            } else {
                &[106][..]
            };
            for (k, &sd) in sgprs.iter().enumerate() {
                let old_mask = u64::from(old.s[sd]) | u64::from(old.s[sd + 1]) << 32;
                let merged = old_mask & !exec | outs[k] & exec;
                // In wave32 the pair's second SGPR keeps its value.
                let want = merged & lane_bits | old_mask & !lane_bits;
                let got = u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32;
                assert_eq!(got, want, "{what} carry out to s{sd} exec {exec:#x}");
                assert!(outs[k] & lane_bits != 0, "{what}: some lanes carry");
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn carry_chains_match_the_64_bit_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
