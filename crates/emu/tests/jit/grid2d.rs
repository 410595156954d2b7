//! An elementwise kernel on a 2-D grid in 16×16 work-groups (`cl/scale_add_2d.cl`): its
//! addresses are rows of 16 lanes (`tiles.rs`'s facts, base + sx·(l mod 16) + sy·(l / 16))
//! and each loaded row is read by an ALU instruction right after its load (`kept_loads`,
//! whose join takes the loaded groups as values from every path, the tile path's among
//! them). Dispatched until its regions compile, then on new data and on a wider grid (a
//! new row stride sy), every element against the definition: `a·2 + b`, exact for these
//! quarters and halves whether or not clang contracts it into an fma; the same with a
//! bounds test (compares on the tile rows) on a grid wider than the data.
//! Run last (background compiles).

use super::common::{emu, Arg, GFX1030_W64};
use hsaemu_emu::jit;

pub(crate) fn tile_rows_kept_as_values_match_the_definition() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx90a", "gfx1030", GFX1030_W64] {
        let e = emu("cl/scale_add_2d.cl", target);
        let run = |w: u32, h: u32, shift: u32| {
            let n = (w * h) as usize;
            let a: Vec<f32> = (0..n as u32)
                .map(|i| ((i + shift) % 29) as f32 * 0.25)
                .collect();
            let b: Vec<f32> = (0..n as u32)
                .map(|i| ((i * 3 + shift) % 31) as f32 * 0.5 - 4.0)
                .collect();
            let (ba, bb, bc) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * n));
            let args = [Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::U32(w)];
            e.run("scale_add_2d", &args, [w, h, 1], [16, 16, 1]);
            let c = bc.f32s();
            // The guarded kernel on a grid one work-group wider and taller than the data.
            let bg = e.zeros(4 * n);
            let args = [
                Arg::Ptr(&ba),
                Arg::Ptr(&bb),
                Arg::Ptr(&bg),
                Arg::U32(w),
                Arg::U32(h),
            ];
            e.run(
                "scale_add_2d_guarded",
                &args,
                [w + 16, h + 16, 1],
                [16, 16, 1],
            );
            assert_eq!(bg.f32s(), c, "{target}: {w}x{h}, the guarded kernel");
            for i in 0..n {
                assert_eq!(
                    c[i].to_bits(),
                    (a[i] * 2.0 + b[i]).to_bits(),
                    "{target}: {w}x{h}, c[{i}] (x {}, y {})",
                    i % w as usize,
                    i / w as usize
                );
            }
        };
        let (before, failed) = (jit::stats().blocks, jit::stats().failed);
        run(1024, 64, 0);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        assert!(
            jit::stats().blocks > before,
            "{target}: scale_add_2d compiled"
        );
        run(1024, 64, 1);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled again within 60 s"
        );
        run(1024, 64, 2);
        // 65 work-groups across: the rows' stride is another run-time value.
        run(1040, 64, 3);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        // Every region compiled: none refused (a compare on tile rows once panicked
        // `tiles.rs`'s plan, which cost the region).
        assert_eq!(
            jit::stats().failed,
            failed,
            "{target}: regions not compiled"
        );
    }
}
