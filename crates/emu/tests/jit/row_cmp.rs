//! Unsigned compares of a row against a scalar, on its kept mark (`row_cmp.rs`): the
//! reduction's `lid < s` as `v_cmp_gt_u64 s[4:5], v[0:1]`. In a loop of three passes, so the
//! first pass tests the rows and marks them (`Wave::tile_marks`) and the later ones take the
//! prefix or suffix from the marks; 64- and 32-bit, `lt`/`le`/`gt`/`ge`, the row on either
//! side, a scalar below, inside and past the lanes, the largest value, high halves that differ,
//! rows whose last lane is 2^32 − 1 or that wrap (lanes compared), a row off its shape in one
//! lane (lanes compared) and a `v_cmpx` after the loop; full and partial EXEC; values from the
//! definitions.

use super::{assemble, mask_reg, want_compiled_run};
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// One round's rows and scalars.
struct Round {
    /// Lane 0 of v0 (v0 = base + lane, modulo 2^32) and v2 (the same but lane 5).
    base: u32,
    /// v1 and v3: one value.
    hi: u32,
    s20: u64,
    s22: u64,
    s24: u32,
    s25: u32,
}

fn rounds(lanes: u32) -> Vec<Round> {
    vec![
        Round {
            base: 0,
            hi: 0,
            s20: 7,
            s22: 20,
            s24: 3,
            s25: 40,
        },
        Round {
            base: 1000,
            hi: 5,
            s20: 5 << 32 | (1000 + u64::from(lanes) + 3),
            s22: u64::MAX,
            s24: 999,
            s25: 1000 + lanes / 2,
        },
        // The last lane at 2^32 − 1: still no wrap.
        Round {
            base: u32::MAX - (lanes - 1),
            hi: 2,
            s20: 3 << 32,
            s22: 2 << 32 | u64::from(u32::MAX - 4),
            s24: u32::MAX,
            s25: u32::MAX - 1,
        },
        // The lanes wrap past 2^32: compared lane by lane.
        Round {
            base: u32::MAX - 10,
            hi: 1,
            s20: 1 << 32 | 5,
            s22: 1 << 32 | u64::from(u32::MAX - 3),
            s24: 4,
            s25: u32::MAX - 2,
        },
    ]
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let what = format!("{mcpu}{attr}");
    let m = |n| mask_reg(n, wave32);
    let mov = if wave32 { "s_mov_b32" } else { "s_mov_b64" };
    // Each compare's mask read by a scalar move, which ends a group-major run: the compares
    // are lowered one at a time, as the reduction's is. The loop's body is 24 dwords (seven
    // VOP3 compares and seven moves, the add, the compare and the branch).
    // GFX10's v_cmpx writes EXEC alone.
    let cmpx = if mcpu == "gfx1030" {
        "v_cmpx_gt_u64_e64 s[20:21], v[0:1]".to_string()
    } else {
        format!("v_cmpx_gt_u64_e64 {}, s[20:21], v[0:1]", m(60))
    };
    let text = format!(
        "s_mov_b32 s30, 0
         v_cmp_gt_u64_e64 {m10}, s[20:21], v[0:1]
         {mov} {m40}, {m10}
         v_cmp_le_u64_e64 {m12}, v[0:1], s[22:23]
         {mov} {m42}, {m12}
         v_cmp_lt_u32_e64 {m14}, v0, s24
         {mov} {m44}, {m14}
         v_cmp_ge_u32_e64 {m16}, s25, v0
         {mov} {m46}, {m16}
         v_cmp_gt_u64_e64 {m18}, s[20:21], v[2:3]
         {mov} {m48}, {m18}
         v_cmp_lt_u32_e64 {m34}, s24, v0
         {mov} {m50}, {m34}
         v_cmp_le_u64_e64 {m36}, s[22:23], v[0:1]
         {mov} {m52}, {m36}
         s_add_u32 s30, s30, 1
         s_cmp_lt_u32 s30, 3
         s_cbranch_scc1 -24
         {cmpx}
         s_endpgm
",
        m10 = m(10),
        m12 = m(12),
        m14 = m(14),
        m16 = m(16),
        m18 = m(18),
        m34 = m(34),
        m36 = m(36),
        m40 = m(40),
        m42 = m(42),
        m44 = m(44),
        m46 = m(46),
        m48 = m(48),
        m50 = m(50),
        m52 = m(52),
    );
    let words = assemble(mcpu, attr, &text);
    let all_lanes = if wave32 { 0xffff_ffffu64 } else { u64::MAX };
    for exec in [u64::MAX, 0xf0f0_0ff0_3c3c_a5a5] {
        let exec = exec & all_lanes;
        for (n, round) in rounds(lanes as u32).iter().enumerate() {
            let mut r = WaveRegs::new(gen);
            r.set_exec(exec);
            for l in 0..64 {
                r.v[0][l] = round.base.wrapping_add(l as u32);
                r.v[1][l] = round.hi;
                r.v[2][l] = r.v[0][l].wrapping_add(if l == 5 { 100 } else { 0 });
                r.v[3][l] = round.hi;
            }
            (r.s[20], r.s[21]) = (round.s20 as u32, (round.s20 >> 32) as u32);
            (r.s[22], r.s[23]) = (round.s22 as u32, (round.s22 >> 32) as u32);
            (r.s[24], r.s[25]) = (round.s24, round.s25);
            let old = r.clone();
            let before = jit::stats();
            run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            want_compiled_run(&before, &what);
            // The definitions: each lane's flag under EXEC.
            let v64 =
                |v: usize, l: usize| u64::from(old.v[v][l]) | u64::from(old.v[v + 1][l]) << 32;
            let mask = |f: &dyn Fn(usize) -> bool| {
                (0..lanes).fold(0u64, |acc, l| acc | u64::from(f(l)) << l) & exec
            };
            let want = [
                (40, mask(&|l| round.s20 > v64(0, l))),
                (42, mask(&|l| v64(0, l) <= round.s22)),
                (44, mask(&|l| old.v[0][l] < round.s24)),
                (46, mask(&|l| round.s25 >= old.v[0][l])),
                (48, mask(&|l| round.s20 > v64(2, l))),
                (50, mask(&|l| round.s24 < old.v[0][l])),
                (52, mask(&|l| round.s22 <= v64(0, l))),
            ];
            for (sd, mask) in want {
                let got = if wave32 {
                    u64::from(r.s[sd])
                } else {
                    u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32
                };
                assert_eq!(got, mask, "{what} round {n} s{sd} exec {exec:#x}");
            }
            let cmpx = mask(&|l| round.s20 > v64(0, l));
            assert_eq!(r.s[30], 3, "{what}: the loop's passes");
            assert_eq!(
                r.exec(),
                cmpx,
                "{what} round {n}: v_cmpx's EXEC, exec {exec:#x}"
            );
        }
    }
}

/// The compared row written between two loops that compare it (in lane 5 only: lanes 0, 1
/// and 16 keep their steps): the first loop's compare tests the rows and marks them, so the
/// write must clear the mark (the region's entry leaves it, `cmp_rows`), and the second
/// loop compares the lanes.
fn check_written(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let what = format!("{mcpu}{attr} (written)");
    let mov = if wave32 { "s_mov_b32" } else { "s_mov_b64" };
    let add = if mcpu == "gfx1030" {
        "v_add_nc_u32_e32"
    } else {
        "v_add_u32_e32"
    };
    // Each loop's body is 6 dwords.
    let text = format!(
        "s_mov_b32 s30, 0
         v_cmp_gt_u64_e64 {m10}, s[20:21], v[0:1]
         {mov} {m40}, {m10}
         s_add_u32 s30, s30, 1
         s_cmp_lt_u32 s30, 2
         s_cbranch_scc1 -6
         {add} v0, v0, v7
         s_mov_b32 s30, 0
         v_cmp_gt_u64_e64 {m12}, s[20:21], v[0:1]
         {mov} {m42}, {m12}
         s_add_u32 s30, s30, 1
         s_cmp_lt_u32 s30, 2
         s_cbranch_scc1 -6
         s_endpgm
",
        m10 = mask_reg(10, wave32),
        m12 = mask_reg(12, wave32),
        m40 = mask_reg(40, wave32),
        m42 = mask_reg(42, wave32),
    );
    let words = assemble(mcpu, attr, &text);
    let all_lanes = if wave32 { 0xffff_ffffu64 } else { u64::MAX };
    for exec in [u64::MAX, 0xf0f0_0ff0_3c3c_a5a5] {
        let exec = exec & all_lanes;
        let mut r = WaveRegs::new(gen);
        r.set_exec(exec);
        for l in 0..64 {
            r.v[0][l] = 100 + l as u32;
            r.v[7][l] = if l == 5 { 40 } else { 0 };
        }
        // After the write lane 5 holds 145 (past the scalar), the others 100 + lane.
        (r.s[20], r.s[21]) = (110, 0);
        let old = r.clone();
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        want_compiled_run(&before, &what);
        let mask = |moved: u32| {
            (0..lanes).fold(0u64, |m, l| {
                let v = old.v[0][l] + moved * old.v[7][l];
                m | u64::from(110 > v) << l
            }) & exec
        };
        let get = |sd: usize| {
            if wave32 {
                u64::from(r.s[sd])
            } else {
                u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32
            }
        };
        assert_eq!(
            get(40),
            mask(0),
            "{what}: the first loop's mask, exec {exec:#x}"
        );
        assert_eq!(
            get(42),
            mask(1),
            "{what}: the second loop's mask, exec {exec:#x}"
        );
        assert_eq!(
            get(40) >> 5 & 1,
            exec >> 5 & 1,
            "{what}: lane 5 before the write"
        );
        assert_eq!(get(42) >> 5 & 1, 0, "{what}: lane 5 moved past the scalar");
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn compares_of_kept_rows_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_written(Gen::Gfx90a, "gfx90a", "", 64);
    check_written(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
