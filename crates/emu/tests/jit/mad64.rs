//! `v_mad_u64_u32`/`v_mad_i64_i32` with scalar factors (vectorized on the 32-bit halves):
//! `D = S0 * S1 + S2` and the overflow lanes in the SGPR destination under EXEC, from the
//! definition (the sum does not fit 64 bits, unsigned or signed), in a run of several and
//! alone, under a full and a partial EXEC.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// Lane `l`'s 64-bit addend: near the unsigned and signed limits in turn.
fn addend(l: usize) -> u64 {
    let l64 = l as u64;
    match l % 4 {
        0 => u64::MAX - l64 * 0x1_0000_0001,
        1 => 0x7fff_ffff_0000_0000 + l64 * 0x3_0000_0001,
        2 => 0x8000_0000_0000_0000 - l64,
        _ => (l64 << 32) | 0xffff_fff0,
    }
}

/// The definition: the 64-bit result and whether the sum overflowed.
fn mad(signed: bool, x: u32, y: u32, z: u64) -> (u64, bool) {
    if signed {
        let p = i128::from(x as i32) * i128::from(y as i32) + i128::from(z as i64);
        (p as u64, p != i128::from(p as i64))
    } else {
        let p = u128::from(x) * u128::from(y) + u128::from(z);
        (p as u64, p >> 64 != 0)
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let pair = |k: usize| {
        if lanes == 64 {
            format!("s[{k}:{}]", k + 1)
        } else {
            format!("s{k}")
        }
    };
    let (m0, m1, m2) = (pair(10), pair(12), pair(16));
    // GFX9 reads one SGPR per instruction: the second factor is then an inline constant.
    let gfx9 = attr.is_empty();
    let (y1, y1v) = if gfx9 {
        ("-3", 0xffff_fffd)
    } else {
        ("s5", 0xffff_ff00)
    };
    let (y2, y2v) = if gfx9 {
        ("64", 64)
    } else {
        ("s7", 0x8000_0001)
    };
    // (destination row, mask SGPR, signed, first factor's SGPR, second factor)
    let ops = [
        (4, 10, false, 4, y1v),
        (6, 12, true, 4, y1v),
        (8, 16, false, 6, y2v),
    ];
    let run = format!(
        "v_mad_u64_u32 v[4:5], {m0}, s4, {y1}, v[14:15]
         v_mad_i64_i32 v[6:7], {m1}, s4, {y1}, v[14:15]
         v_mad_u64_u32 v[8:9], {m2}, s6, {y2}, v[14:15]
         s_endpgm
"
    );
    let alone = format!("v_mad_u64_u32 v[4:5], {m0}, s4, {y1}, v[14:15]\ns_endpgm\n");
    for (text, n) in [(run, 3), (alone, 1)] {
        let words = assemble(mcpu, attr, &text);
        for exec in [u64::MAX, 0x5a5a_5a5a_f0f0_3c3c] {
            let exec = if lanes == 32 {
                exec & 0xffff_ffff
            } else {
                exec
            };
            let mut r = WaveRegs::new(gen);
            r.set_exec(exec);
            r.s[4] = 0xffff_fff0;
            r.s[5] = 0xffff_ff00;
            r.s[6] = 3;
            r.s[7] = 0x8000_0001;
            for k in [10, 11, 12, 13, 16, 17] {
                r.s[k] = 0xdead_0000 | k as u32;
            }
            for l in 0..64 {
                let z = addend(l);
                (r.v[14][l], r.v[15][l]) = (z as u32, (z >> 32) as u32);
            }
            let old = r.clone();
            let before = jit::stats();
            run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            if jit::checks_single_runs() {
                assert!(jit::stats().runs > before.runs, "{what}: not compiled");
            }
            for &(row, sd, signed, sx, y) in &ops[..n] {
                let mut ov = 0u64;
                for l in 0..lanes {
                    let (v, o) = mad(signed, r.s[sx], y, addend(l));
                    let got = u64::from(r.v[row][l]) | u64::from(r.v[row + 1][l]) << 32;
                    let want = if exec >> l & 1 != 0 {
                        v
                    } else {
                        u64::from(old.v[row][l]) | u64::from(old.v[row + 1][l]) << 32
                    };
                    assert_eq!(got, want, "{what} v{row} lane {l} exec {exec:#x}");
                    ov |= u64::from(o) << l;
                }
                let old_mask = u64::from(old.s[sd]) | u64::from(old.s[sd + 1]) << 32;
                let mut want = old_mask & !exec | ov & exec;
                if lanes == 32 {
                    want = want & 0xffff_ffff | old_mask & !0xffff_ffff;
                }
                let got = u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32;
                assert_eq!(got, want, "{what} s{sd} exec {exec:#x}");
                assert!(ov != 0 && ov != u64::MAX, "{what}: some lanes overflow");
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn mad64_with_scalar_factors_matches_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
