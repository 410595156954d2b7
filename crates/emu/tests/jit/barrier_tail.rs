//! A barrier's tail runs in the region call that parks the wave (`jit::after_barrier`):
//! gfx1030's clang puts eight of `cl/matmul.cl`'s sixteen `v_fmac_f32`s per loop pass after
//! the loop's second `s_barrier`, reading rows its `ds_read2_b32`s loaded before it. The
//! region between the barriers runs them before the wave parks; after the release the
//! other waves write the next tiles into the LDS, so a tail that took in the next pass's
//! LDS accesses, or a wave not parked after its tail, reads or writes tiles out of turn.
//! Eight wave32s per work-group (16 × 16). Dispatched until the regions compile (in the
//! background), then on new data: C from a CPU product (exact: quarters times halves,
//! sums far below 2^24 quarters; one NaN in B, so its column's `v_fmac_f32` chains are
//! computed again from their multiplicands, read from the LDS after the barrier too).
//! Run last (background compiles).

use super::common::{emu, Arg, GFX1030_W64};
use hsaemu_emu::jit;

pub(crate) fn barrier_tails_run_before_the_wave_parks() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx1030", GFX1030_W64, "gfx90a"] {
        let e = emu("cl/matmul.cl", target);
        let n = 128u32;
        let run = |shift: u32| {
            let m = (n * n) as usize;
            let a: Vec<f32> = (0..m as u32)
                .map(|i| ((i * 7 + shift) % 19) as f32 * 0.25)
                .collect();
            let mut b: Vec<f32> = (0..m as u32)
                .map(|i| ((i + 5 * shift) % 11) as f32 * 0.5)
                .collect();
            b[9 * n as usize + 70] = f32::NAN;
            let (ba, bb, bc) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * m));
            let args = [Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::U32(n)];
            e.run("matmul_tiled", &args, [n, n, 1], [16, 16, 1]);
            (a, b, bc.f32s())
        };
        let before = jit::stats();
        for shift in 0..2 {
            run(shift);
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{target}: its regions compiled within 60 s"
            );
        }
        let tails = jit::stats().barrier_tails - before.barrier_tails;
        if target == "gfx1030" {
            assert!(tails > 0, "{target}: no barrier tail compiled");
        }
        for shift in [3, 8] {
            let (a, b, c) = run(shift);
            let n = n as usize;
            for row in 0..n {
                for col in 0..n {
                    let want = super::product_entry(&a, &b, n, row, col);
                    let got = c[row * n + col];
                    let same = got == want || got.is_nan() && want.is_nan();
                    assert!(
                        same,
                        "{target} (shift {shift}, {tails} tails): C[{row}][{col}] {got}, want {want}"
                    );
                }
            }
        }
    }
}
