//! Lane-affine facts (`src/jit/affine.rs`): address arithmetic from the work-item ID, as
//! vector add's kernels do it, lowered on scalars. The region tests its rows at its start and
//! each carry, shift and compare tests its scalars; every case below is a lane's edge for one
//! of those tests (a carry in some lanes only, a row that wraps across the lanes, top bits
//! that differ, a row that is not `base + lane`, a compare at the largest value), and every
//! result comes from the instructions' definitions, computed lane by lane here (`run_words`
//! also checks the compiled run against the interpreter bit for bit).

use super::{assemble, v_add_u32, v_addc_u32};
use hsaemu_emu::{jit, run_words, run_words_mem, FaultKind, Gen, WaveRegs};

/// The scalar inputs and the ID rows of one case.
#[derive(Clone, Copy, Debug)]
struct Case {
    /// Lane 0's `v0` (each lane `base + lane`, 32-bit wrapping) and `v1` in every lane.
    base: u32,
    hi: u32,
    s2: u32,
    s3: u32,
    s4: u64,
    s6: u32,
    s10: u32,
    s11: u32,
    /// A lane whose `v0` is off by one (the row is then not `base + lane`).
    odd: Option<usize>,
}

const K: u64 = 7;

fn cases() -> Vec<Case> {
    let c = Case {
        base: 0x100,
        hi: 0,
        s2: 0x1000,
        s3: 0x10,
        s4: ((0x10u64 << 32) | (0x1100 + 20)) << 2,
        s6: 0x1000,
        s10: 5,
        s11: 8 * (5 + 0x100 + 10),
        odd: None,
    };
    vec![
        // Every fact holds: a prefix compare in the middle of the wave.
        c,
        // Every lane carries; the compares take all lanes and none.
        Case {
            s2: 0xffff_ff00,
            s4: u64::MAX,
            s11: 0,
            ..c
        },
        // Lanes 11 and up carry, the others not: the region leaves at the add.
        Case {
            s2: 0xffff_ffff - 0x100 - 10,
            ..c
        },
        // The ID row wraps across the lanes (still `base + lane` modulo 2^32).
        Case {
            base: 0xffff_fff0,
            s2: 0,
            s4: 0,
            s11: u32::MAX,
            ..c
        },
        // The ID row wraps across the lanes and the lanes before the wrap carry, those
        // after it not, while lane 0's sum plus the row's span (what the last lane would
        // add without the wrap) carries as lane 0's does: only the row's own wrap test
        // sees it.
        Case {
            base: 0xffff_fff0,
            s2: 0x20,
            s4: 0,
            s11: u32::MAX,
            ..c
        },
        // The low halves cross 2^30: the shifted-out top bits differ between lanes.
        Case {
            base: 0x3fff_fff0,
            s2: 0,
            hi: 3,
            ..c
        },
        // The product's low half plus the ID crosses 2^32 in the middle of the wave, and the
        // 64-bit sum overflows.
        Case {
            hi: 0xffff_ffff,
            s6: 0xdb6d_b6dc,
            ..c
        },
        // Lane 7 is not `base + 7`: the general variant runs.
        Case { odd: Some(7), ..c },
    ]
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let w32 = lanes == 32;
    let (vcc, s8, s12, s14, s18, s20) = if w32 {
        ("vcc_lo", "s8", "s12", "s14", "s18", "s20")
    } else {
        (
            "vcc", "s[8:9]", "s[12:13]", "s[14:15]", "s[18:19]", "s[20:21]",
        )
    };
    let gfx10 = mcpu.starts_with("gfx10");
    let (addc, add) = (v_addc_u32(gfx10), v_add_u32(gfx10));
    let text = format!(
        "v_add_co_u32 v2, {vcc}, s2, v0
         v_mov_b32 v3, s3
         {addc} v3, {vcc}, v3, v1, {vcc}
         v_lshlrev_b64 v[4:5], 2, v[2:3]
         v_cmp_gt_u64 {vcc}, s[4:5], v[4:5]
         v_mad_u64_u32 v[6:7], {s8}, s6, {K}, v[0:1]
         {add} v8, s10, v0
         v_lshlrev_b32 v9, 3, v8
         v_cmp_le_u32_e64 {s12}, v9, s11
         v_lshl_add_u32 v10, v0, 2, s10
         v_add3_u32 v11, v0, s2, v10
         v_cmp_lt_u32_e64 {s14}, v8, s16
         v_cmp_ge_u32_e64 {s18}, v11, s17
         v_add_co_u32 v12, {s20}, s2, v8
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let lane_bits = if w32 { 0xffff_ffff } else { u64::MAX };
    for case in cases() {
        let mut r = WaveRegs::new(gen);
        r.set_exec(lane_bits);
        let v0 = |l: usize| {
            let x = case.base.wrapping_add(l as u32);
            if case.odd == Some(l) {
                x.wrapping_add(1)
            } else {
                x
            }
        };
        for l in 0..64 {
            r.v[0][l] = v0(l);
            r.v[1][l] = case.hi;
            for row in 2..13 {
                r.v[row][l] = 0x5555_0000 | l as u32;
            }
        }
        r.s[2] = case.s2;
        r.s[3] = case.s3;
        r.s[4] = case.s4 as u32;
        r.s[5] = (case.s4 >> 32) as u32;
        r.s[6] = case.s6;
        // Compares of a stride-1 row (`v8`) and a stride-5 row (`v11`) ending mid-wave: the
        // lane counts' division by the stride (none for 1, a `udiv` for 5; `v9`'s 8: a
        // shift).
        r.s[16] = case.s10.wrapping_add(case.base).wrapping_add(13);
        r.s[17] = case
            .base
            .wrapping_mul(5)
            .wrapping_add(case.s2)
            .wrapping_add(case.s10)
            .wrapping_add(47);
        for k in [8, 9, 12, 13, 14, 15, 18, 19, 20, 21, 106, 107] {
            r.s[k] = 0xdead_0000 | k as u32;
        }
        r.s[10] = case.s10;
        r.s[11] = case.s11;
        let old = r.clone();
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what} {case:?}: {e:?}"));
        let after = jit::stats();
        if jit::checks_single_runs() {
            assert!(after.runs > before.runs, "{what}: not compiled");
            assert!(
                after.affine_blocks > before.affine_blocks,
                "{what}: not compiled on lane-affine facts"
            );
        }
        let (mut gt, mut ov, mut le, mut lt, mut ge) = (0u64, 0u64, 0u64, 0u64, 0u64);
        // The last add's carry-out (nothing overwrites it).
        let mut co = 0u64;
        for l in 0..lanes {
            let (x, h) = (v0(l), case.hi);
            let (lo, c) = case.s2.overflowing_add(x);
            let hi = case.s3.wrapping_add(h).wrapping_add(u32::from(c));
            let shifted = (u64::from(hi) << 32 | u64::from(lo)) << 2;
            let mad =
                u128::from(case.s6) * u128::from(K) + u128::from(u64::from(h) << 32 | u64::from(x));
            let v8 = case.s10.wrapping_add(x);
            let v9 = v8 << 3;
            let v10 = (x << 2).wrapping_add(case.s10);
            let v11 = x.wrapping_add(case.s2).wrapping_add(v10);
            let (v12, c12) = case.s2.overflowing_add(v8);
            co |= u64::from(c12) << l;
            let want = [
                (2, lo),
                (3, hi),
                (4, shifted as u32),
                (5, (shifted >> 32) as u32),
                (6, mad as u32),
                (7, (mad >> 32) as u32),
                (8, v8),
                (9, v9),
                (10, v10),
                (11, v11),
                (12, v12),
            ];
            for (row, v) in want {
                assert_eq!(r.v[row][l], v, "{what} {case:?}: v{row} lane {l}");
            }
            gt |= u64::from(case.s4 > shifted) << l;
            ov |= u64::from(mad >> 64 != 0) << l;
            le |= u64::from(v9 <= case.s11) << l;
            lt |= u64::from(v8 < old.s[16]) << l;
            ge |= u64::from(v11 >= old.s[17]) << l;
        }
        for (sd, bits) in [(106, gt), (8, ov), (12, le), (14, lt), (18, ge), (20, co)] {
            let old_mask = u64::from(old.s[sd]) | u64::from(old.s[sd + 1]) << 32;
            // In wave32 the pair's second SGPR keeps its value.
            let want = bits & lane_bits | old_mask & !lane_bits;
            let got = u64::from(r.s[sd]) | u64::from(r.s[sd + 1]) << 32;
            assert_eq!(got, want, "{what} {case:?}: mask in s{sd}");
        }
    }
}

/// Facts handed from one basic block to the next: the addresses made before an `if`
/// (`v_cmp`, `s_and_saveexec`, `s_cbranch_execz`) used inside it. The `if` runs for all lanes
/// (facts handed over), for a prefix (the general variant) and for none; with lane 7 off the
/// ID row, the first block runs as the general variant and hands nothing over.
fn check_handed_over(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr} (if)");
    let w32 = lanes == 32;
    let (vcc, save, and_saveexec) = if w32 {
        ("vcc_lo", "s14", "s_and_saveexec_b32")
    } else {
        ("vcc", "s[14:15]", "s_and_saveexec_b64")
    };
    let addc = v_addc_u32(mcpu.starts_with("gfx10"));
    let text = format!(
        "v_add_co_u32 v2, {vcc}, s2, v0
         v_mov_b32 v3, s3
         {addc} v3, {vcc}, v3, v1, {vcc}
         v_cmp_gt_u64 {vcc}, s[4:5], v[2:3]
         {and_saveexec} {save}, {vcc}
         s_cbranch_execz end
         v_lshlrev_b64 v[4:5], 2, v[2:3]
         v_add_co_u32 v6, {vcc}, s6, v4
         v_mov_b32 v7, s7
         {addc} v7, {vcc}, v7, v5, {vcc}
       end:
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let lane_bits = if w32 { 0xffff_ffff } else { u64::MAX };
    let (base, s2, s3, s6, s7) = (0x40u32, 0xffff_f000u32, 2u32, 0xffff_ff00u32, 9u32);
    let addr = |x: u32| {
        let (lo, c) = s2.overflowing_add(x);
        u64::from(s3 + u32::from(c)) << 32 | u64::from(lo)
    };
    let middle = addr(base + 10);
    for (limit, odd) in [
        (u64::MAX, None),
        (middle, None),
        (0, None),
        (u64::MAX, Some(7)),
    ] {
        let mut r = WaveRegs::new(gen);
        r.set_exec(lane_bits);
        let v0 = |l: usize| base + l as u32 + u32::from(odd == Some(l));
        for l in 0..64 {
            r.v[0][l] = v0(l);
            r.v[1][l] = 0;
            for row in 2..8 {
                r.v[row][l] = 0x5555_0000 | l as u32;
            }
        }
        (r.s[2], r.s[3], r.s[6], r.s[7]) = (s2, s3, s6, s7);
        r.s[4] = limit as u32;
        r.s[5] = (limit >> 32) as u32;
        let old = r.clone();
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what} {limit:#x}: {e:?}"));
        if jit::checks_single_runs() {
            assert!(
                jit::stats().affine_blocks > before.affine_blocks,
                "{what}: not compiled on lane-affine facts"
            );
        }
        let mut inside = 0u64;
        let mut carry = 0u64;
        for l in 0..lanes {
            let a = addr(v0(l));
            assert_eq!(r.v[2][l], a as u32, "{what} v2 lane {l}");
            assert_eq!(r.v[3][l], (a >> 32) as u32, "{what} v3 lane {l}");
            let active = limit > a;
            inside |= u64::from(active) << l;
            let shifted = a << 2;
            let (lo, c) = s6.overflowing_add(shifted as u32);
            let (hi, c2) = s7.overflowing_add((shifted >> 32) as u32 + u32::from(c));
            let want = [
                (4, shifted as u32),
                (5, (shifted >> 32) as u32),
                (6, lo),
                (7, hi),
            ];
            for (row, v) in want {
                let v = if active { v } else { old.v[row][l] };
                assert_eq!(r.v[row][l], v, "{what} {limit:#x}: v{row} lane {l}");
            }
            carry |= u64::from(active && c2) << l;
        }
        let exec = u64::from(r.s[126]) | u64::from(r.s[127]) << 32;
        assert_eq!(exec & lane_bits, inside, "{what} {limit:#x}: EXEC");
        // VCC: the compare's lanes, then the carry-out under that EXEC (when the if ran).
        let vcc = (u64::from(r.s[106]) | u64::from(r.s[107]) << 32) & lane_bits;
        let want = if inside == 0 { inside } else { carry };
        assert_eq!(vcc, want, "{what} {limit:#x}: VCC");
    }
}

/// A GLOBAL load whose address row is a fact of stride 4 made by a shift, which tests
/// nothing (`v0 << 2`): the access's own test that the row does not wrap across the lanes
/// must run (the carry tests that make it needless elsewhere, `unwrapped`, did not). A loop
/// of two passes, so the load's window holds the buffer in the second: the first from `v0`
/// = 0x100 + lane, the second from 0x3fff_fff8 + lane, whose lanes from 8 on wrap to offset
/// 0, 4 GiB below lane 0's address (the buffer's start both times), where nothing is mapped:
/// the interpreter's fault there, not the buffer's next words.
fn check_wrapping_address_row(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr} (wrapping address row)");
    let add = v_add_u32(mcpu.starts_with("gfx10"));
    // The branch goes back 10 dwords from the one after it, to the shift.
    let text = format!(
        "s_mov_b32 s6, 2
         v_lshlrev_b32 v2, 2, v0
         v_mov_b32 v4, s2
         {add} v5, s3, v0
         global_load_dword v3, v2, s[0:1]
         s_sub_u32 s6, s6, 1
         s_mov_b64 s[0:1], s[10:11]
         v_mov_b32 v0, v8
         s_cmp_lg_u32 s6, 0
         s_cbranch_scc1 -10
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let (first, second) = (0x100u32, 0x3fff_fff8u32);
    let mut global: Vec<u8> = (0..64u32)
        .flat_map(|k| (0x7000 + k).to_le_bytes())
        .collect();
    let at = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 32 { 0xffff_ffff } else { u64::MAX });
    for l in 0..64 {
        r.v[0][l] = first + l as u32;
        r.v[1][l] = 0;
        r.v[8][l] = second.wrapping_add(l as u32);
    }
    // Lane 0's address is the buffer's start in both passes.
    let (s0, s10) = (at - u64::from(first << 2), at - u64::from(second << 2));
    (r.s[0], r.s[1]) = (s0 as u32, (s0 >> 32) as u32);
    (r.s[10], r.s[11]) = (s10 as u32, (s10 >> 32) as u32);
    let e = run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .expect_err("lanes 8 on are not mapped in the second pass");
    assert!(
        matches!(e, FaultKind::MemoryViolation { address, write: false, .. } if address == s10),
        "{what}: not the interpreter's fault at lane 8's address {s10:#x}: {e:?}"
    );
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn lane_affine_address_arithmetic_matches_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_handed_over(Gen::Gfx90a, "gfx90a", "", 64);
    check_handed_over(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_wrapping_address_row(Gen::Gfx90a, "gfx90a", "", 64);
    check_wrapping_address_row(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}

/// Fresh waves (`Wave::id_rows`): a region entered at the kernel's first instruction on a
/// wave that has run nothing takes v0 (and v1 where the set-up filled it) as the dispatch's
/// set-up wrote them, without testing every lane. Vector add (`c[i] = a[i] + b[i]` for
/// `i < n`, `i = get_global_id(0)`) dispatched once so its region compiles, then 1-D, where
/// the set-up vouches for v0, and 2-D with work-groups 8 wide, where a wave spans several
/// rows of X (v0 is not `base + lane`; the set-up must not vouch, and only `c[0..8]` is
/// written), and before that 2-D with work-groups 32 wide, where a wave32 pair's A is
/// vouched for and B not (only `c[0..32]` is written). Each element from IEEE single
/// addition of the inputs; wave64 (gfx90a's packed IDs, gfx1030 in wave64) and wave32
/// (gfx1030).
pub(crate) fn fresh_waves_take_their_id_rows_from_the_dispatch() {
    use super::common::{emu, Arg, GFX1030_W64};
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx90a", "gfx1030", GFX1030_W64] {
        let e = emu("cl/vector_add.cl", target);
        let n = 64 * 2048u32;
        let a: Vec<f32> = (0..n).map(|i| 0.5 + i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 3.0 * i as f32 + 0.25).collect();
        let (ba, bb) = (e.buf_f32(&a), e.buf_f32(&b));
        let run = |grid: [u32; 3], wg: [u16; 3]| {
            let bc = e.zeros(4 * n as usize);
            let args = [Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::U32(n)];
            e.run("vector_add", &args, grid, wg);
            bc.f32s()
        };
        // Enough waves to reach the tier's threshold; the region compiles in the background.
        let before = jit::stats().blocks;
        run([n, 1, 1], [256, 1, 1]);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        assert!(
            jit::stats().blocks > before,
            "{target}: vector add compiled"
        );
        let c = run([n, 1, 1], [256, 1, 1]);
        for i in 0..n as usize {
            assert_eq!(
                c[i].to_bits(),
                (a[i] + b[i]).to_bits(),
                "{target} 1-D: c[{i}]"
            );
        }
        // Work-groups 32 wide: a wave32 pair's A lies in X's first row (vouched), B in the
        // second (X from 0 again, not vouched: B does not continue A's lanes). The pair
        // region, asked for by the 1-D dispatch's pairs, compiles in the background:
        // waited for. Before the 8-wide dispatch, whose misses compile the region again
        // without facts.
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its pair region compiled within 60 s"
        );
        let pair_runs = jit::stats().pair_runs;
        let c = run([32, n / 32, 1], [32, 2, 1]);
        for i in 0..n as usize {
            let want = if i < 32 { a[i] + b[i] } else { 0.0 };
            assert_eq!(c[i].to_bits(), want.to_bits(), "{target} 32 wide: c[{i}]");
        }
        if target == "gfx1030" && jit::pairs_used() {
            assert!(jit::stats().pair_runs > pair_runs, "{target}: pairs ran");
        }
        let c = run([8, n / 8, 1], [8, 32, 1]);
        for i in 0..n as usize {
            let want = if i < 8 { a[i] + b[i] } else { 0.0 };
            assert_eq!(c[i].to_bits(), want.to_bits(), "{target} 2-D: c[{i}]");
        }
    }
}
