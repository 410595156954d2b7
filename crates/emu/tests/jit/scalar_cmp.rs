//! `v_cmp_*` of an SGPR and a constant on scalars (`lower.rs`'s `scalar_cmp`, one compare
//! and its flag widened to the wave): signed and unsigned 64-, 32- and 16-bit integers on
//! values where the signedness decides (and 16-bit ones with other high halves), the
//! constant on either side, f32 with `neg` and `abs` and a NaN, conditions compared as their
//! complement (`ne`, unsigned `lt`/`gt`, signed `le`/`ge`) and the unordered ones (`neq`,
//! `nge`, `o`). In a run of compares and each alone (an SALU instruction between them),
//! under a full and a partial EXEC. Each mask from the definitions: EXEC where the
//! condition holds, else 0; in wave32 the next SGPR is kept.

use super::{assemble, mask_reg, want_compiled_run};
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// One round's scalars: s[20:21] `a` (64 bits), s24 `x` (32 bits), s26 `f` (f32 bits).
/// Each compare reads one of them and a constant (GFX9's VOP3 reads one SGPR).
struct Round {
    a: u64,
    x: u32,
    f: u32,
}

const ROUNDS: [Round; 4] = [
    // Negative signed values (large unsigned ones); a 16-bit half unlike its word.
    Round {
        a: 0xffff_ffff_ffff_fffe,
        x: 0xffff_0005,
        f: 0xbf00_0000, // -0.5
    },
    // A high half that decides; a NaN.
    Round {
        a: 0x1_0000_0002,
        x: 7,
        f: 0x7fc0_0000,
    },
    // The sign bit alone; a negative 16-bit half of a positive word; -0.0.
    Round {
        a: 0x8000_0000_0000_0000,
        x: 0x0001_fffd,
        f: 0x8000_0000,
    },
    Round {
        a: 2,
        x: 0xffff_fffd,
        f: 0x3f00_0000, // 0.5
    },
];

/// The compares, each with its condition on a round (the definition).
#[allow(clippy::type_complexity)]
fn compares() -> Vec<(&'static str, fn(&Round) -> bool)> {
    vec![
        ("v_cmp_lt_i64_e64 {d}, s[20:21], 3", |r| (r.a as i64) < 3),
        ("v_cmp_lt_u64_e64 {d}, s[20:21], 3", |r| r.a < 3),
        ("v_cmp_ge_i64_e64 {d}, s[20:21], -1", |r| r.a as i64 >= -1),
        ("v_cmp_gt_u64_e64 {d}, s[20:21], 64", |r| r.a > 64),
        ("v_cmp_ne_u64_e64 {d}, 2, s[20:21]", |r| r.a != 2),
        ("v_cmp_le_i64_e64 {d}, -2, s[20:21]", |r| -2 <= r.a as i64),
        ("v_cmp_le_i32_e64 {d}, s24, -3", |r| r.x as i32 <= -3),
        ("v_cmp_gt_u32_e64 {d}, s24, 7", |r| r.x > 7),
        ("v_cmp_ge_i32_e64 {d}, 1, s24", |r| 1 >= r.x as i32),
        ("v_cmp_lt_i16_e64 {d}, s24, 5", |r| (r.x as u16 as i16) < 5),
        ("v_cmp_ge_u16_e64 {d}, s24, 7", |r| r.x as u16 >= 7),
        ("v_cmp_lt_f32_e64 {d}, -s26, 1.0", |r| {
            -f32::from_bits(r.f) < 1.0
        }),
        ("v_cmp_neq_f32_e64 {d}, |s26|, 0.5", |r| {
            f32::from_bits(r.f).abs() != 0.5
        }),
        ("v_cmp_nge_f32_e64 {d}, -|s26|, -1.0", |r| {
            // `nge`: not greater or equal, so true when unordered.
            (-f32::from_bits(r.f).abs()).partial_cmp(&-1.0) == Some(std::cmp::Ordering::Less)
                || f32::from_bits(r.f).is_nan()
        }),
        ("v_cmp_o_f32_e64 {d}, s26, 1.0", |r| {
            !f32::from_bits(r.f).is_nan()
        }),
        ("v_cmp_eq_f32_e64 {d}, s26, 0", |r| {
            f32::from_bits(r.f) == 0.0
        }),
    ]
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let what = format!("{mcpu}{attr}");
    let list = compares();
    // Destinations s30, s32, …
    let dst = |k: usize| 30 + 2 * k;
    let lines: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(k, (t, _))| t.replace("{d}", &mask_reg(dst(k), wave32)))
        .collect();
    let run = format!("{}\ns_endpgm\n", lines.join("\n"));
    let alone = format!("{}\ns_endpgm\n", lines.join("\ns_mov_b32 s99, s98\n"));
    for (text, form) in [(run, "run"), (alone, "alone")] {
        let words = assemble(mcpu, attr, &text);
        for exec in [u64::MAX, 0x0f0f_3c3c_a5a5_6996] {
            let lanes_mask = if wave32 { 0xffff_ffff } else { u64::MAX };
            let exec = exec & lanes_mask;
            for (n, round) in ROUNDS.iter().enumerate() {
                let mut r = WaveRegs::new(gen);
                r.set_exec(exec);
                (r.s[20], r.s[21]) = (round.a as u32, (round.a >> 32) as u32);
                (r.s[24], r.s[26]) = (round.x, round.f);
                for k in 30..64 {
                    r.s[k] = 0xdead_0000 | k as u32;
                }
                let old = r.clone();
                let before = jit::stats();
                run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
                want_compiled_run(&before, &what);
                for (k, (t, def)) in list.iter().enumerate() {
                    let d = dst(k);
                    let want = if def(round) { exec } else { 0 };
                    let got = if wave32 {
                        u64::from(r.s[d])
                    } else {
                        u64::from(r.s[d]) | u64::from(r.s[d + 1]) << 32
                    };
                    let ctx = format!("{what} {form} round {n} exec {exec:#x}: {t}");
                    assert_eq!(got, want, "{ctx}");
                    if wave32 {
                        assert_eq!(r.s[d + 1], old.s[d + 1], "{ctx}: s{} kept", d + 1);
                    }
                }
            }
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn scalar_compares_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
