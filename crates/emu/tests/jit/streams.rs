//! Streamed work-groups (`dispatch.rs`'s `stream_pairs`): a work-group of wave32s whose pairs
//! each end both waves at `s_endpgm` in one pair call runs them one after the other in its
//! first two waves, and on one host thread the next whole work-group goes on in the same two.
//! gfx1030, work-groups of 256 (eight pairs), one host thread (every work-group chained from
//! the one before), values from a CPU reference and counts from the code object's
//! disassembly (`pairs::bounds_branch_and_endpgm`):
//! - every work-group in range: all streamed but the first (`Stats::streamed_groups`; the
//!   first finds the pair block the others enter, `FreshPair`), each wave counting
//!   every instruction up to its `s_endpgm` and 32 lane-ops for each vector one;
//! - the last work-group's range ending in wave 6 or 4: that pair's waves disagree at the
//!   bounds branch and its call leaves early, after three or two pairs streamed: it goes on
//!   in its own waves, the waves after it set up then (the first pairs' counts kept, the
//!   wholly out-of-range waves' skipped block not counted); ending in wave 1, the first pair
//!   leaves early too (B's partial EXEC, which the region's full-EXEC variant leaves for);
//! - a scatter with a wild index in one lane of the last work-group's wave 5, or of work-group
//!   3's wave 2: the fault names that work-group (chained to: its ID), wave and lane, and the
//!   lane's address, as the interpreter reports it, and every work-group before it stored all
//!   its lanes.
//!
//! - a loop of a trip count per work-item, where a pair's waves disagree at the loop's branch
//!   or loop past a quantum mid-work-group: results against the CPU's.
//!
//! Dispatches whose regions compile in the background: run last.

use hsaemu_emu::jit;

/// Whether this process streams work-groups (the tier on and compiling memory accesses,
/// pairs and streams not turned off).
fn streams() -> bool {
    jit::pairs_used() && jit::dispatches_compile_memory() && jit::streams_used()
}

pub(crate) fn streamed_work_groups_match_their_cpu_results() {
    if !jit::enabled() {
        return;
    }
    let e = super::common::emu_threads("cl/pair32.cl", "gfx1030", 1);
    let groups = 512u32;
    let full = 256 * groups;
    let pa = super::pairs::PairAdd::new(&e, full, 256);
    let add = |n: u32| pa.run(n);
    // The region compiles after the first dispatch, its pair variant after the second.
    for _ in 0..2 {
        add(full);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "the regions compiled within 60 s"
        );
    }
    let (skipped, endpgm) = super::pairs::bounds_branch_and_endpgm();
    let vector = vector_instructions_to_endpgm();
    // The last work-group's range ends in wave 7 (none out), 6, 4 and 1.
    for tail in [256u32, 200, 136, 40] {
        let n = full - 256 + tail;
        let before = jit::stats();
        let (c, stats) = add(n);
        pa.check(&c, n);
        // Every wave runs each instruction once up to its `s_endpgm`, but those with no lane
        // in range, which skip the bounds test's block.
        let out = u64::from(8 - tail.div_ceil(32));
        assert_eq!(
            stats.wave_instructions,
            u64::from(full / 32) * endpgm - out * skipped,
            "n = {n}: instructions"
        );
        if tail == 256 {
            // EXEC full throughout: 32 lanes for each vector instruction of each wave.
            assert_eq!(
                stats.lane_ops,
                u64::from(full) * vector,
                "n = {n}: lane-ops"
            );
        }
        let after = jit::stats();
        if streams() {
            // All of them streamed but the worker's first (whose first pair finds the pair
            // block the others enter, `FreshPair`) and a last one whose range ends inside
            // it, where a pair leaves its call early.
            let streamed = u64::from(groups) - 1 - u64::from(tail < 256);
            assert_eq!(
                after.streamed_groups - before.streamed_groups,
                streamed,
                "n = {n}: streamed work-groups ({before:?} → {after:?})"
            );
        }
    }
}

/// A loop of a trip count per work-item (`stream_loop`, `cl/stream32.cl`), in work-groups of
/// 256: in most the count is the work-group's (every pair ends in one call: streamed); in
/// every seventh wave 5's lanes loop once more than the rest (that pair's waves disagree at
/// the loop's branch and leave their call: it goes on in its own waves after two streamed
/// pairs), and in work-group 40 wave 2 loops 2000 times (past a quantum: its pair's call
/// ends before the loop does). Every result against the CPU's, and the dispatch's
/// instructions and lane-ops against the same dispatch's run one wave at a time
/// (`--deterministic`, which neither pairs nor streams).
pub(crate) fn streamed_loops_match_their_cpu_results() {
    use super::common::Arg;
    if !jit::enabled() {
        return;
    }
    let e = super::common::emu_threads("cl/stream32.cl", "gfx1030", 1);
    let groups = 256u32;
    let full = 256 * groups;
    let trips: Vec<u32> = (0..full)
        .map(|i| {
            let (group, wave) = (i / 256, i % 256 / 32);
            match (group, wave) {
                (40, 2) => 2000,
                (g, 5) if g % 7 == 3 => g % 5 + 2,
                (g, _) => g % 5 + 1,
            }
        })
        .collect();
    let want: Vec<u32> = (0..full)
        .map(|i| (0..trips[i as usize]).fold(i, |acc, k| acc.wrapping_mul(3).wrapping_add(k)))
        .collect();
    let bn = e.buf_u32(&trips);
    // Disagreeing work-groups: every seventh (from 3) and group 40.
    let split = u64::from((0..groups).filter(|g| g % 7 == 3 || *g == 40).count() as u32);
    // The region compiles after the first dispatch, its pair variant after the second.
    for round in 0..4 {
        let before = jit::stats();
        let out = e.zeros(4 * full as usize);
        let stats = e.run1("stream_loop", &[Arg::Ptr(&bn), Arg::Ptr(&out)], full, 256);
        for (i, (&got, &want)) in out.u32s().iter().zip(&want).enumerate() {
            assert_eq!(got, want, "round {round}: out[{i}] ({} trips)", trips[i]);
        }
        let after = jit::stats();
        if round == 3 && streams() {
            // All but the worker's first and those where a pair leaves its call.
            assert_eq!(
                after.streamed_groups - before.streamed_groups,
                u64::from(groups) - 1 - split,
                "streamed work-groups"
            );
            // The same dispatch one wave at a time: the same counts.
            e.gpu.set_deterministic(true);
            let out = e.zeros(4 * full as usize);
            let alone = e.run1("stream_loop", &[Arg::Ptr(&bn), Arg::Ptr(&out)], full, 256);
            e.gpu.set_deterministic(false);
            assert_eq!(out.u32s(), want, "--deterministic");
            assert_eq!(
                (stats.wave_instructions, stats.lane_ops),
                (alone.wave_instructions, alone.lane_ops),
                "instructions and lane-ops streamed and one wave at a time"
            );
        }
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "round {round}: compiled within 60 s"
        );
    }
}

/// Faults in streamed work-groups name the work-group, wave and lane the interpreter names.
pub(crate) fn streamed_faults_name_their_wave() {
    if !jit::enabled() {
        return;
    }
    let e = super::common::emu_threads("cl/stream32.cl", "gfx1030", 1);
    // Enough waves for the region to be compiled after the first dispatch (`THRESHOLD`).
    let groups = 256u32;
    let full = 256 * groups;
    let sc = super::pairs::Scatter {
        e: &e,
        kernel: "stream_scatter",
        full,
        wg: 256,
    };
    sc.warm();
    // (work-group, wave, lane): B of the last group's third pair, A of group 3's second.
    for (group, wave, lane) in [(groups - 1, 5u32, 5u32), (3, 2, 7)] {
        let before = jit::stats();
        sc.wild_lane_faults(group, wave, lane);
        if streams() {
            assert!(
                jit::stats().streamed_groups >= before.streamed_groups + u64::from(group) - 1,
                "group {group}: the groups before it streamed ({before:?} → {:?})",
                jit::stats()
            );
        }
    }
}

/// How many of `pair_add`'s instructions up to its `s_endpgm` are vector ones (VALU, VMEM):
/// what a wave whose lanes are all in range counts lane-ops for, from the disassembly.
fn vector_instructions_to_endpgm() -> u64 {
    use super::common::{code_object_version, compile_target};
    let (processor, extra) = compile_target("gfx1030");
    let cov = code_object_version("gfx1030");
    let path = hsaemu_testkit::compile_cl_with("cl/pair32.cl", processor, cov, extra);
    let text = super::common::objdump(&path, "gfx1030");
    let mnemonics: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.ends_with("<pair_add>:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let end = mnemonics
        .iter()
        .position(|m| *m == "s_endpgm")
        .expect("pair_add's s_endpgm");
    mnemonics[..end]
        .iter()
        .filter(|m| m.starts_with("v_") || m.starts_with("global_"))
        .count() as u64
}

/// `HSAEMU_JIT=verify` streams work-groups too, each streamed pair call checked against the
/// interpreter and each relaunched wave against its launch (`dispatch.rs`' `Checked`).
/// `HSAEMU_JIT` is read once per process: a copy of this binary under `verify` runs
/// [`verify_child`], which must pass.
pub(crate) fn verify_checks_streamed_pairs() {
    if !jit::enabled() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(&exe)
        .args([
            "--exact",
            "streams::verify_child",
            "--ignored",
            "--nocapture",
        ])
        .env("HSAEMU_JIT", "verify")
        .env("STREAMS_VERIFY_CHILD", "1")
        .output()
        .expect("run the test binary");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "the copy with HSAEMU_JIT=verify failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The copy's side, under `verify`: `asm/stream_verify.s` (its kernels load nothing, so
/// their regions from the entry reach `s_endpgm` under `verify` too) in work-groups of 256
/// (four pairs) on one host thread. Every work-group but the worker's first (whose first pair
/// finds the pair block, `FreshPair`) streams, and each of their pairs is a checked run
/// (`jit::Stats::runs`): `stream_verify` with the grid whole and ending in a work-group of six
/// waves (which `chain` leaves for `run_worker` to launch, streamed); `stream_split`, where
/// work-group 5's third pair leaves its call at a branch its waves disagree at, so that
/// work-group falls back after two streamed pairs. Results, instructions and lane-ops from
/// the kernels' definitions.
#[test]
#[ignore = "run by the jit test's streams::verify_checks_streamed_pairs"]
fn verify_child() {
    use hsaemu_emu::Dispatch;
    if std::env::var_os("STREAMS_VERIFY_CHILD").is_none() {
        return;
    }
    assert!(
        jit::enabled() && !jit::dispatches_compile_memory(),
        "run under HSAEMU_JIT=verify"
    );
    let path = hsaemu_testkit::compile_asm("asm/stream_verify.s", "gfx1030", 4);
    let bytes = std::fs::read(&path).expect("read the code object");
    let e = super::common::from_bytes_threads(&bytes, "gfx1030", 4, 1);
    let groups = 64u32;
    // stream_split's work-item whose wave adds 7 more (work-group 5, wave 4).
    let split = 0x583u32;
    let runs = [
        ("stream_verify", 256 * groups),
        ("stream_verify", 256 * groups - 64),
        ("stream_split", 256 * groups),
    ];
    for (kernel, n) in runs {
        let k = e.code.kernel(kernel).expect("the kernel");
        let is_split = kernel == "stream_split";
        // The output is the kernel argument segment (the kernels read no argument).
        let out = e.zeros(4 * n as usize);
        let before = jit::stats();
        let stats = e
            .gpu
            .dispatch(&Dispatch {
                kernel_object: k.kernel_object,
                kernarg_address: out.addr(),
                grid_size: [n, 1, 1],
                workgroup_size: [256, 1, 1],
                ..Dispatch::default()
            })
            .unwrap_or_else(|f| panic!("{kernel}, n = {n}: {f}"));
        let after = jit::stats();
        let want: Vec<u32> = (0..n)
            .map(|i| {
                3 * i
                    + 1
                    + if is_split && i / 32 == split / 32 {
                        7
                    } else {
                        0
                    }
            })
            .collect();
        assert_eq!(out.u32s(), want, "{kernel}, n = {n}: results");
        // stream_verify: nine instructions to `s_endpgm` a wave, five of them vector ones
        // on 32 lanes; stream_split: eleven and six (skipping the add), and the split wave's
        // add.
        let (insts, vector, extra) = if is_split { (11, 6, 1) } else { (9, 5, 0) };
        assert_eq!(
            stats.wave_instructions,
            u64::from(n / 32) * insts + extra,
            "{kernel}, n = {n}: instructions"
        );
        assert_eq!(
            stats.lane_ops,
            u64::from(n) * vector + 32 * extra,
            "{kernel}, n = {n}: lane-ops"
        );
        if jit::streams_used() {
            let streamed = after.streamed_groups - before.streamed_groups;
            // All but the worker's first, and stream_split's work-group 5.
            assert_eq!(
                streamed,
                u64::from(groups) - 1 - extra,
                "{kernel}, n = {n}: streamed work-groups ({before:?} → {after:?})"
            );
            // Each streamed pair's call checked against the interpreter.
            assert!(
                after.runs - before.runs >= 4 * streamed,
                "{kernel}, n = {n}: checked runs ({before:?} → {after:?})"
            );
        }
    }
}
