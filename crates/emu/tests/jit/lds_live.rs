//! DS load rows dead after a run are not stored into the `Wave` (`lower.rs`'s `live.rs`):
//! `cl/matmul_keep.cl` is matmul with each work-item's last A-tile element of its row kept
//! past the loop, which clang leaves in the register its last `ds_read2_b32` wrote (gfx90a:
//! `v5`, read by a `v_fmac_f32` in the loop and by a `v_fma_f32` after it, K = keep × 2 +
//! 0.5). That row is live at the loop's exit and must be stored; the loop's other DS rows are
//! overwritten by the next iteration's loads before anything reads them, and are dead.
//! Dispatched until its regions compile (in the background), then on new data: C from a
//! CPU product (exact: quarters times halves, sums far below 2^24 quarters; one column
//! NaN) and K from A (exact too).
//! On gfx1030 the loop is cut at its second barrier: the rows its `v_fmac_f32`s read after
//! the barrier are live at the region's end and stored; those loaded twice before it die
//! in the run (`live.rs`'s `reloaded_in_run`).
//! Run last (background compiles).

use super::common::{emu, Arg, GFX1030_W64};
use hsaemu_emu::jit;

pub(crate) fn dead_ds_rows_are_not_stored_and_live_ones_are() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx90a", "gfx1030", GFX1030_W64] {
        let e = emu("cl/matmul_keep.cl", target);
        let n = 128u32;
        let run = |shift: u32| {
            let m = (n * n) as usize;
            let a: Vec<f32> = (0..m as u32)
                .map(|i| ((i + shift) % 17) as f32 * 0.25)
                .collect();
            let mut b: Vec<f32> = (0..m as u32)
                .map(|i| ((i + 3 * shift) % 13) as f32 * 0.5)
                .collect();
            // A NaN in one column: the v_fmac_f32 chain of its 4-lane group is computed
            // again, its three other lanes from the multiplicands it loads again.
            b[5 * n as usize + 37] = f32::NAN;
            let (ba, bb, bc, bk) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * m), e.zeros(4 * m));
            let args = [
                Arg::Ptr(&ba),
                Arg::Ptr(&bb),
                Arg::Ptr(&bc),
                Arg::Ptr(&bk),
                Arg::U32(n),
            ];
            e.run("matmul_keep", &args, [n, n, 1], [16, 16, 1]);
            (a, b, bc.f32s(), bk.f32s())
        };
        let before = jit::stats();
        run(0);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        // Once more: a region compiled again without lane facts (its misses) is in place.
        run(1);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled again within 60 s"
        );
        let after = jit::stats();
        assert!(
            after.blocks > before.blocks,
            "{target}: matmul_keep compiled"
        );
        let dead = after.ds_dead_rows - before.ds_dead_rows;
        if target == "gfx90a" {
            assert!(dead > 0, "{target}: the loop's DS rows compiled dead");
        } else {
            // gfx1030: the region between the barriers is one run whose fourteen rows
            // loaded twice die at their second load (`reloaded_in_run`), two at its end.
            assert!(
                dead >= 16,
                "{target}: {dead} of the loop's DS rows compiled dead"
            );
        }
        let (a, b, c, k) = run(7);
        let n = n as usize;
        for row in 0..n {
            for col in 0..n {
                let want = super::product_entry(&a, &b, n, row, col);
                let got = c[row * n + col];
                let same = got == want || got.is_nan() && want.is_nan();
                assert!(same, "{target}: C[{row}][{col}] {got}, want {want}");
                assert_eq!(
                    k[row * n + col],
                    a[row * n + n - 1] * 2.0 + 0.5,
                    "{target}: K[{row}][{col}]"
                );
            }
        }
    }
}
