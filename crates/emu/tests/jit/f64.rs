//! `v_add_f64`/`v_mul_f64`/`v_fma_f64` (and gfx90a's `v_fmac_f64`) compiled on row pairs
//! (`src/jit/lower.rs`'s `f64_op`): a chain in one region whose results feed the next
//! instructions (a pair written, then read as a source, then overwritten by an FMA that
//! reads it), with abs/neg, an SGPR pair and an inline constant as sources, under a full
//! and a partial EXEC. Expected values
//! from the definitions: IEEE-754 binary64 addition, multiplication and fused multiply-add,
//! rounded to nearest even (the host's `f64` arithmetic and `mul_add`).

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// The chain; `fmac` adds gfx90a's `v_fmac_f64` into `v[8:9]` at its end.
fn program(fmac: bool) -> String {
    let last = if fmac {
        "v_fmac_f64 v[8:9], v[4:5], v[6:7]\n"
    } else {
        ""
    };
    format!(
        "v_add_f64 v[4:5], v[0:1], v[2:3]
         v_mul_f64 v[6:7], v[4:5], -v[0:1]
         v_fma_f64 v[4:5], v[6:7], |v[2:3]|, v[4:5]
         v_add_f64 v[2:3], v[4:5], s[4:5]
         v_mul_f64 v[8:9], 0.5, v[2:3]
         {last}s_endpgm
"
    )
}

/// Lane `l`'s inputs: ordinary values, a subnormal, signed zeros, large and small
/// magnitudes whose sums round.
fn inputs(l: usize) -> (f64, f64) {
    let x = l as f64;
    match l % 8 {
        0 => (1.0 + x * 0.125, -3.5 + x),
        1 => (f64::from_bits(0x0000_0000_0000_0f00), 2.0f64.powi(-1060)),
        2 => (-0.0, 0.0),
        3 => (1e300 * (1.0 + x), 1e-300),
        4 => (0.1 * x, 0.2 * x),
        5 => (-(2.0f64.powi(52)) - x, 0.75),
        6 => (std::f64::consts::PI * x, -std::f64::consts::E),
        _ => (1.0 / 3.0, x / 7.0),
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let fmac = mcpu == "gfx90a";
    let words = assemble(mcpu, attr, &program(fmac));
    let s45 = -1.25e-3f64;
    for exec in [u64::MAX, 0x5a5a_5a5a_f0f0_3c3c] {
        let exec = if lanes == 32 {
            exec & 0xffff_ffff
        } else {
            exec
        };
        let mut r = WaveRegs::new(gen);
        r.set_exec(exec);
        let bits = s45.to_bits();
        (r.s[4], r.s[5]) = (bits as u32, (bits >> 32) as u32);
        for l in 0..64 {
            let (a, b) = inputs(l);
            (r.v[0][l], r.v[1][l]) = (a.to_bits() as u32, (a.to_bits() >> 32) as u32);
            (r.v[2][l], r.v[3][l]) = (b.to_bits() as u32, (b.to_bits() >> 32) as u32);
            for k in 4..10 {
                r.v[k][l] = 0xdead_0000 | (k as u32) << 8 | l as u32;
            }
        }
        let old = r.clone();
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        if jit::checks_single_runs() {
            let after = jit::stats();
            assert!(
                after.runs > before.runs && after.calls == before.calls,
                "{what}: the f64 chain is not one compiled region ({before:?} → {after:?})"
            );
        }
        let pair = |r: &WaveRegs, k: usize, l: usize| {
            u64::from(r.v[k][l]) | u64::from(r.v[k + 1][l]) << 32
        };
        for l in 0..lanes {
            let (a, b) = inputs(l);
            let sum = a + b;
            let m = sum * -a;
            let f = m.mul_add(b.abs(), sum);
            let t = f + s45;
            let mut h = 0.5 * t;
            if fmac {
                h = f.mul_add(m, h);
            }
            let on = exec >> l & 1 != 0;
            for (k, want) in [(2, t), (4, f), (6, m), (8, h)] {
                let want = if on { want.to_bits() } else { pair(&old, k, l) };
                assert_eq!(
                    pair(&r, k, l),
                    want,
                    "{what}: v[{k}:{}] lane {l} exec {exec:#x}",
                    k + 1
                );
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn f64_chains_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
