//! A region call may run past the end of the wave's scheduler turn by less than a basic
//! block (`dispatch.rs`'s `OVERRUN`), outside `--deterministic`. `cl/overrun.cl`'s loop body
//! is one basic block of ~200 instructions, and each wave runs ~12 800 instructions (three
//! turns of 4096). Without the overrun, the block would not fit what is left of a turn at
//! its end: the interpreter would run that rest, and the rest of the body at the next turn's
//! start (~200 instructions a turn). With it the interpreter runs next to nothing once the
//! regions are compiled (`jit::Stats::interpreted`: none measured; a few per wave allowed);
//! under `--deterministic`, which keeps the interpreter's turns, it runs the body's rest at
//! every turn's end. Results against the definition (xorshift32). Run last (background
//! compiles).

use super::common::{emu_threads, Arg};
use hsaemu_emu::jit;

/// `x` after `rounds` × 32 xorshift32 steps.
fn xorshift(mut x: u32, rounds: u32) -> u32 {
    for _ in 0..rounds * 32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    x
}

pub(crate) fn long_blocks_run_compiled_at_a_turns_end() {
    if !jit::dispatches_compile_memory() {
        return;
    }
    let (rounds, n) = (64u32, 64 * 256u32);
    for (target, lanes) in [("gfx90a", 64u64), ("gfx1030", 32)] {
        let e = emu_threads("cl/overrun.cl", target, 1);
        // Returns the wave-instructions the interpreter ran.
        let run = |seed: u32| {
            let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) ^ seed).collect();
            let b = e.buf_u32(&x);
            let before = jit::stats().interpreted;
            let stats = e.run1("xorshift_rounds", &[Arg::Ptr(&b), Arg::U32(rounds)], n, 256);
            let interpreted = jit::stats().interpreted - before;
            for (i, (&got, &x)) in b.u32s().iter().zip(&x).enumerate() {
                assert_eq!(got, xorshift(x, rounds), "{target}: x[{i}]");
            }
            assert!(
                stats.wave_instructions > 3 * 4096 * (u64::from(n) / lanes),
                "{target}: every wave runs three turns and more"
            );
            interpreted
        };
        // A block start compiles after `jit::THRESHOLD` (1000) executions: the kernel's entry
        // after 1000 waves (four dispatches of gfx90a's 256).
        for seed in 0..5 {
            run(seed);
        }
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{target}: its regions compiled within 60 s"
        );
        let waves = u64::from(n) / lanes;
        let interpreted = run(5);
        assert!(
            interpreted <= 4 * waves,
            "{target}: {interpreted} wave-instructions interpreted for {waves} waves"
        );
        // The interpreter's turns: the body's rest at each of them.
        e.gpu.set_deterministic(true);
        let interpreted = run(6);
        e.gpu.set_deterministic(false);
        assert!(
            interpreted >= 100 * waves,
            "{target}, --deterministic: {interpreted} wave-instructions interpreted for \
             {waves} waves"
        );
    }
}
