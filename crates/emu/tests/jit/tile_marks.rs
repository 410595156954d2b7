//! Tile marks kept across region calls (`Wave::tile_marks`, `tiles.rs`' `tile_test`):
//! `asm/tile_marks.s` is a loop cut by an `s_barrier` into two regions, one wave per
//! work-group. The region at the loop's head loads through a 16-lane tile row (v9) it never
//! writes, so once its test passed it marks v9 and its next calls skip the test; the
//! region after the barrier adds `delta` to v9 in pass 14, so its entry must clear the mark,
//! or pass 15 takes v9 for the tile it was and loads the wrong dwords in the lanes `delta`
//! moved. Dispatched until both regions compile (in the background), then on data whose
//! `delta` is not zero in a few lanes of work-group 0 (lanes 0, 1 and 16, which give the
//! fact, left alone): each work-item's sum from the definition. Run last (background
//! compiles).

use super::common::{from_bytes_threads, Arg};
use hsaemu_emu::jit;

const GROUPS: usize = 64;
const PASSES: usize = 16;

/// Dword `k` of `in`.
fn word(k: usize) -> u32 {
    0x0100_0000u32.wrapping_mul(k as u32 + 3) ^ (k as u32 * 0x9e37)
}

pub(crate) fn a_kept_tile_mark_is_cleared_by_another_regions_write() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx90a", "gfx1030"] {
        let path = hsaemu_testkit::compile_asm("asm/tile_marks.s", target, 4);
        let bytes = std::fs::read(&path).expect("read the code object");
        let e = from_bytes_threads(&bytes, target, 4, 1);
        let lanes = if target == "gfx90a" { 64 } else { 32 };
        let items = GROUPS * lanes;
        let input: Vec<u32> = (0..1024).map(word).collect();
        let run = |moved: &[(usize, u32)]| {
            let mut delta = vec![0u32; items];
            for &(l, d) in moved {
                delta[l] = d;
            }
            let (out, inp, dl) = (e.zeros(4 * items), e.buf_u32(&input), e.buf_u32(&delta));
            e.run1(
                "tile_marks",
                &[Arg::Ptr(&out), Arg::Ptr(&inp), Arg::Ptr(&dl)],
                items as u32,
                lanes as u16,
            );
            (out.u32s(), delta)
        };
        let check = |round: usize, (out, delta): (Vec<u32>, Vec<u32>)| {
            for (k, &got) in out.iter().enumerate() {
                let l = k % lanes;
                let v9 = 4 * (l % 16) + 256 * (l / 16);
                let want = (0..PASSES).fold(0u32, |acc, p| {
                    let moved = if p == PASSES - 1 { delta[k] } else { 0 };
                    let a = v9 + moved as usize;
                    (0..4).fold(acc, |acc, j| acc.wrapping_add(input[(a + 64 * j) / 4]))
                });
                assert_eq!(got, want, "{target} round {round}: work-item {k}");
            }
        };
        let moved: Vec<(usize, u32)> = vec![(5, 4), (lanes - 3, 8), (20, 0x40)];
        let before = jit::stats();
        for round in 0..4 {
            check(round, run(&moved));
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{target}: its regions compiled within 60 s"
            );
        }
        let after = jit::stats();
        assert!(
            after.affine_blocks > before.affine_blocks,
            "{target}: a basic block tested v9 as a tile"
        );
        // Not recompiled without facts: the loop's region still tests (one miss per round).
        check(4, run(&moved));
        check(5, run(&[]));
    }
}

/// `asm/tile_kept.s`: the region at the loop's head writes its tile row v9 only by adding
/// a scalar (`tiles.rs`' `shape_kept`), so its entry keeps v9's mark under a full EXEC; in
/// pass 14 it runs under EXEC = the even lanes, whose add breaks the tile, so that entry must
/// clear the mark (else pass 15 computes v10 from a tile fact v9 no longer has and loads
/// the wrong dwords in the odd lanes). Each work-item's sum from the definition.
pub(crate) fn a_shape_kept_tile_mark_is_cleared_under_a_partial_exec() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx90a", "gfx1030"] {
        let path = hsaemu_testkit::compile_asm("asm/tile_kept.s", target, 4);
        let bytes = std::fs::read(&path).expect("read the code object");
        let e = from_bytes_threads(&bytes, target, 4, 1);
        let lanes = if target == "gfx90a" { 64 } else { 32 };
        let items = GROUPS * lanes;
        let input: Vec<u32> = (0..1024).map(word).collect();
        let run = || {
            let (out, inp) = (e.zeros(4 * items), e.buf_u32(&input));
            e.run1(
                "tile_kept",
                &[Arg::Ptr(&out), Arg::Ptr(&inp)],
                items as u32,
                lanes as u16,
            );
            out.u32s()
        };
        let check = |round: usize, out: Vec<u32>| {
            for (k, &got) in out.iter().enumerate() {
                let l = k % lanes;
                let mut v9 = 4 * (l % 16) + 256 * (l / 16);
                let mut want = 0u32;
                for p in 0..PASSES {
                    if p == 14 && l % 2 == 1 {
                        continue;
                    }
                    for j in 0..4 {
                        want = want.wrapping_add(input[(v9 + 64 * j) / 4]);
                    }
                    v9 += 4;
                }
                assert_eq!(got, want, "{target} round {round}: work-item {k}");
            }
        };
        let before = jit::stats();
        for round in 0..5 {
            check(round, run());
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{target}: its regions compiled within 60 s"
            );
        }
        assert!(
            jit::stats().affine_blocks > before.affine_blocks,
            "{target}: a basic block tested v9 as a tile"
        );
        check(5, run());
    }
}
