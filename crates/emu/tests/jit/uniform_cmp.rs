//! `v_cmp_*` whose sources are all SGPRs or constants (one compare for the whole wave, the
//! mask EXEC or 0): 64-bit, 32-bit and f32 forms (a NaN, source modifiers), a condition
//! compared as its complement, a mask read later in the same run and a mask beside a lane-wise
//! compare, in a run and alone, under a full and a partial EXEC, both results; values from
//! the definitions.

use super::{assemble, mask_reg, want_compiled_run};
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// The scalar inputs of one round: s[20:21] (u64), s22 (u32), s23 (f32 bits).
struct Round {
    s20: u64,
    s22: u32,
    s23: u32,
}

const ROUNDS: [Round; 2] = [
    // Every uniform compare true.
    Round {
        s20: 3,
        s22: 9,
        s23: 0xc000_0000, // -2.0: -|x| < 0.5
    },
    // Every uniform compare false.
    Round {
        s20: 0x1_0000_0002,
        s22: 5,
        s23: 0x7fc0_0001, // a NaN: unordered, so `lt` is false
    },
];

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let what = format!("{mcpu}{attr}");
    let m = |n| mask_reg(n, wave32);
    let vcc = if wave32 { "vcc_lo" } else { "vcc" };
    // A run: the uniform compares, a `v_cndmask` reading one of them (forwarded within the
    // run) and a lane-wise compare of a row against s22.
    let run = format!(
        "v_cmp_lt_u64_e64 {}, s[20:21], 4
         v_cmp_gt_u32_e64 {}, s22, 7
         v_cmp_lt_f32_e64 {}, -|s23|, 0.5
         v_cndmask_b32_e64 v2, v3, v4, {}
         v_cmp_ne_u32_e64 {}, 5, s22
         v_cmp_gt_u32_e32 {vcc}, s22, v5
         v_cndmask_b32_e32 v6, v3, v4, {vcc}
         s_endpgm
",
        m(10),
        m(12),
        m(14),
        m(12),
        m(16)
    );
    let alone = format!("v_cmp_lt_u64_e64 {}, s[20:21], 4\ns_endpgm\n", m(10));
    for (text, whole) in [(run, true), (alone, false)] {
        let words = assemble(mcpu, attr, &text);
        for exec in [u64::MAX, 0x0f0f_3c3c_a5a5_6996] {
            let exec = if wave32 { exec & 0xffff_ffff } else { exec };
            for round in &ROUNDS {
                let mut r = WaveRegs::new(gen);
                r.set_exec(exec);
                (r.s[20], r.s[21]) = (round.s20 as u32, (round.s20 >> 32) as u32);
                r.s[22] = round.s22;
                r.s[23] = round.s23;
                for k in 10..18 {
                    r.s[k] = 0xdead_0000 | k as u32;
                }
                for l in 0..64 {
                    r.v[3][l] = 0x300 + l as u32;
                    r.v[4][l] = 0x400 + l as u32;
                    r.v[5][l] = (l as u32 * 7) % 13;
                    r.v[2][l] = 0x2222_0000 | l as u32;
                    r.v[6][l] = 0x6666_0000 | l as u32;
                }
                let old = r.clone();
                let before = jit::stats();
                run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
                want_compiled_run(&before, &what);
                let lanes_mask = if wave32 { 0xffff_ffff } else { u64::MAX };
                let all = |f: bool| if f { exec & lanes_mask } else { 0 };
                // The definitions: each lane's flag under EXEC, 0 outside it.
                let mut want = vec![(10, all(round.s20 < 4))];
                if whole {
                    let x = f32::from_bits(round.s23);
                    want.push((12, all(round.s22 > 7)));
                    want.push((14, all(-x.abs() < 0.5)));
                    want.push((16, all(round.s22 != 5)));
                }
                for (sd, mask) in want {
                    let got = if wave32 {
                        u64::from(r.s[sd])
                    } else {
                        u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32
                    };
                    assert_eq!(
                        got, mask,
                        "{what} s{sd} exec {exec:#x} s20 {:#x}",
                        round.s20
                    );
                    if wave32 {
                        assert_eq!(r.s[sd + 1], old.s[sd + 1], "{what}: s{} kept", sd + 1);
                    }
                }
                if !whole {
                    continue;
                }
                let sel12 = round.s22 > 7;
                for l in 0..lanes {
                    let active = exec >> l & 1 != 0;
                    let pick = |f: bool| if f { old.v[4][l] } else { old.v[3][l] };
                    let (v2, v6) = if active {
                        (pick(sel12), pick(round.s22 > old.v[5][l]))
                    } else {
                        (old.v[2][l], old.v[6][l])
                    };
                    assert_eq!(r.v[2][l], v2, "{what} v2 lane {l} exec {exec:#x}");
                    assert_eq!(r.v[6][l], v6, "{what} v6 lane {l} exec {exec:#x}");
                }
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn uniform_compares_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
