//! A round's waves entering a compiled region one after another through the slice's one
//! prepared call context (`dispatch.rs`'s `enter`, `jit::CallCtx::new`): each wave must run
//! with its own registers, MODE and barrier state. Dispatches whose regions compile in the
//! background: run last.

use hsaemu_emu::jit;

pub(crate) fn a_rounds_waves_run_with_their_own_state() {
    waves_under_another_mode_stay_interpreted();
    reductions_match_their_cpu_sums();
}

/// The work-group sum reduction (`cl/reduce.cl`: LDS, a barrier after each of its 8 or 9
/// halvings) dispatched until its regions compile, then again on new data: every wave of a
/// work-group resumes after each barrier at the same PC, so all but the round's first enter
/// the region through `enter`. Each group's sum from a CPU sum of its inputs; wave32
/// (gfx1030) and wave64 (gfx1030 in wave64, gfx90a), on one host thread and on two (each
/// worker with its own context), work-groups of 256 and of 64 with a partial last one.
fn reductions_match_their_cpu_sums() {
    use super::common::{
        code_object_version, compile_target, from_bytes_threads, Arg, GFX1030_W64,
    };
    if !jit::dispatches_compile_memory() {
        return;
    }
    for target in ["gfx1030", GFX1030_W64, "gfx90a"] {
        let (processor, extra) = compile_target(target);
        let cov = code_object_version(target);
        let path = hsaemu_testkit::compile_cl_with("cl/reduce.cl", processor, cov, extra);
        let bytes = std::fs::read(path).expect("read compiled kernel");
        for threads in [1, 2] {
            let e = from_bytes_threads(&bytes, processor, cov, threads);
            let lds = e
                .code
                .kernel("reduce_sum")
                .expect("kernel")
                .group_segment_size;
            let run = |input: &[i32], wg: u16| {
                let n = input.len() as u32;
                let groups = n.div_ceil(u32::from(wg));
                let (bi, bp) = (
                    e.buf_i32(input),
                    e.buf_i32(&vec![i32::MIN; groups as usize]),
                );
                let args = [Arg::Ptr(&bi), Arg::Ptr(&bp), Arg::U32(lds), Arg::U32(n)];
                let grid = [groups * u32::from(wg), 1, 1];
                e.try_run("reduce_sum", &args, grid, [wg, 1, 1], 4 * u32::from(wg))
                    .unwrap_or_else(|f| panic!("{target}: {f}"));
                bp.i32s()
            };
            // Enough waves for the starts after the barriers to reach the tier's threshold;
            // the regions compile in the background.
            let warm: Vec<i32> = (0..256 * 64).map(|i| i % 7).collect();
            let before = jit::stats().blocks;
            run(&warm, 256);
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{target}: its regions compiled within 60 s"
            );
            assert!(
                jit::stats().blocks > before,
                "{target}: the reduction compiled"
            );
            for wg in [256u16, 64] {
                let n = 97 * u32::from(wg) + 41;
                let input: Vec<i32> = (0..n as i32)
                    .map(|i| (i.wrapping_mul(40_503) >> 3) % 2001 - 1000)
                    .collect();
                let got = run(&input, wg);
                for (g, items) in input.chunks(usize::from(wg)).enumerate() {
                    assert_eq!(
                        got[g],
                        items.iter().sum::<i32>(),
                        "{target}, {threads} threads, work-groups of {wg}: group {g}"
                    );
                }
            }
        }
    }
}

/// `add_after_barrier` (`cl/emu_mode.cl`): every wave writes MODE (single precision rounded
/// toward zero) and waits at a barrier, then adds; its region after the barrier is compiled
/// (the start is counted whatever the MODE) but must not run under that MODE (`Block::runs`),
/// for the round's first wave or the ones that follow it at the same PC. Each element is the
/// exact sum (in f64) rounded toward zero; gfx1030 in wave32 and gfx90a.
fn waves_under_another_mode_stay_interpreted() {
    use super::common::{emu, Arg};
    if !jit::dispatches_compile_memory() {
        return;
    }
    // MODE's low 10 bits: rounding toward zero (f32 and f64/f16), denormals kept,
    // DX10_CLAMP and IEEE on.
    const TOWARD_ZERO: u32 = 0x3ff;
    for target in ["gfx1030", "gfx90a"] {
        let e = emu("cl/emu_mode.cl", target);
        let n = 64 * 2048u32;
        let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 0.3 + (i % 5) as f32 * 0.125).collect();
        let (ba, bb) = (e.buf_f32(&a), e.buf_f32(&b));
        let run = || {
            let bc = e.zeros(4 * n as usize);
            let args = [
                Arg::Ptr(&ba),
                Arg::Ptr(&bb),
                Arg::Ptr(&bc),
                Arg::U32(TOWARD_ZERO),
                Arg::U32(0),
            ];
            e.run("add_after_barrier", &args, [n, 1, 1], [256, 1, 1]);
            bc.f32s()
        };
        let before = jit::stats().blocks;
        run();
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        assert!(jit::stats().blocks > before, "{target}: the add compiled");
        let c = run();
        for i in 0..n as usize {
            // Both are single precision and positive: their sum is exact in f64.
            let exact = f64::from(a[i]) + f64::from(b[i]);
            let mut want = exact as f32;
            if f64::from(want) > exact {
                want = f32::from_bits(want.to_bits() - 1);
            }
            assert_eq!(c[i].to_bits(), want.to_bits(), "{target}: c[{i}]");
        }
    }
}
