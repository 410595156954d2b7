//! Pair calls (`src/jit/pair.rs`, `dispatch.rs`'s `enter_pair`): a work-group's two wave32s
//! run by one call of the region compiled as wave64, lanes 0–31 wave A's and 32–63 wave B's.
//! gfx1030 (wave32), work-groups of 64 (one pair each), every value from a CPU reference:
//! - every group but the last in range (the pair path taken: `Stats::pair_runs`);
//! - the last group with wave B partly in range (EXEC full in A, partial in B: the pair's
//!   general variant, its stores under each wave's EXEC);
//! - the last group with wave A partly in range and B not at all: the two disagree at the
//!   `s_cbranch_execz` after the bounds test, and the pair leaves before it (B then stores
//!   `K` through the SGPRs the pair loaded for both);
//! - a scatter with a wild index in one lane of wave B: the fault names wave 1, its lane
//!   within B and the lane's address, as the interpreter reports it (the pair leaves
//!   before the store), and the other lanes' stores are done.
//!
//! Dispatches whose regions compile in the background: run last.

use hsaemu_emu::{jit, FaultKind};

/// What `pair_add` stores out of range (from a kernel argument: wave B, leaving the pair
/// at the branch its waves disagree on, stores it through SGPRs the pair loaded).
const K: i32 = -77;

pub(crate) fn pairs_of_wave32s_match_their_cpu_results() {
    use super::common::emu;
    if !jit::enabled() {
        return;
    }
    let e = emu("cl/pair32.cl", "gfx1030");
    let groups = 2048u32;
    let full = 64 * groups;
    let pa = PairAdd::new(&e, full, 64);
    let add = |n: u32| {
        let (c, stats) = pa.run(n);
        (c, stats.wave_instructions)
    };
    // Enough starts to compile the region (in the background); its pair variant is asked
    // for when the dispatcher first finds a pair (in the next dispatch), also in the
    // background.
    for _ in 0..2 {
        add(full);
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "the regions compiled within 60 s"
        );
    }
    // The last group: both waves in range, B's lanes 0–7 only, A's lanes 0–19 only.
    let mut ran = Vec::new();
    for tail in [64, 40, 20] {
        let n = full - 64 + tail;
        let before = jit::stats();
        let (c, instructions) = add(n);
        ran.push(instructions);
        pa.check(&c, n);
        let after = jit::stats();
        if jit::pairs_used() {
            assert!(
                after.pair_runs >= before.pair_runs + u64::from(groups - 1),
                "n = {n}: a pair call per work-group ({before:?} → {after:?})"
            );
        }
    }
    if jit::pairs_used() {
        assert!(jit::stats().pair_blocks > 0, "a pair region compiled");
    }
    // Every wave of the whole range runs each instruction once, `s_endpgm` included (a
    // pair call that ends both waves' turns counts it for B too).
    let (skipped, endpgm) = bounds_branch_and_endpgm();
    assert_eq!(
        ran[0],
        u64::from(full / 32) * endpgm,
        "instructions per wave"
    );
    // Only the wave with no lane in range takes the bounds test's branch past its block,
    // each wave its own way: the pair leaves before the branch its waves disagree on
    // rather than running B through the block under its empty EXEC.
    assert_eq!(ran[0], ran[1], "B partly in range runs the block");
    assert_eq!(
        ran[0] - ran[2],
        skipped,
        "B wholly out of range skips the block"
    );

    // The scatter: each lane stores its index + 7 at `idx[i]` (a permutation within the
    // group), but lane 5 of the last group's wave B at a wild index. On one host thread, so
    // every group before the last has run when it faults (on two, a group the other thread
    // claimed may not have run its slice when the fault stops the dispatch: `c` keeps -1).
    let e = super::common::emu_threads("cl/pair32.cl", "gfx1030", 1);
    let sc = Scatter {
        e: &e,
        kernel: "pair_scatter",
        full,
        wg: 64,
    };
    sc.warm();
    let before = jit::stats();
    // Every group before the last stored all its lanes (a pair each).
    sc.wild_lane_faults(groups - 1, 1, 5);
    if jit::pairs_used() {
        assert!(
            jit::stats().pair_runs > before.pair_runs,
            "the scatter ran as pairs"
        );
    }
}

/// A scatter (`pair_scatter`, `stream_scatter`: work-item `i` stores `i + 7` at `idx[i]`, a
/// permutation within its work-group, `i ^ 33`) over `full` work-items in work-groups of `wg`,
/// on one host thread, so every work-group before a faulting one has run when it faults (on
/// two, one the other thread claimed may not have run its slice when the fault stops the
/// dispatch).
pub(crate) struct Scatter<'e> {
    pub(crate) e: &'e super::common::Emu,
    pub(crate) kernel: &'static str,
    pub(crate) full: u32,
    pub(crate) wg: u16,
}

impl Scatter<'_> {
    /// A run with a wild index at work-item `wild`: its result, `c` and `c`'s address.
    fn run(
        &self,
        wild: Option<u32>,
    ) -> (
        Result<hsaemu_emu::DispatchStats, hsaemu_emu::Fault>,
        Vec<i32>,
        u64,
    ) {
        use super::common::Arg;
        let idx: Vec<u32> = (0..self.full)
            .map(|i| if Some(i) == wild { 0x4000_0000 } else { i ^ 33 })
            .collect();
        let bi = self.e.buf_u32(&idx);
        let bc = self.e.buf_i32(&vec![-1; self.full as usize]);
        let args = [Arg::Ptr(&bi), Arg::Ptr(&bc), Arg::U32(self.full)];
        let wg = [self.wg, 1, 1];
        let r = self.e.try_run(self.kernel, &args, [self.full, 1, 1], wg, 0);
        (r, bc.i32s(), bc.addr())
    }

    /// Two runs without a wild index, each checked and followed by the background compiles:
    /// the regions, then their pair variants.
    pub(crate) fn warm(&self) {
        for _ in 0..2 {
            let (r, c, _) = self.run(None);
            r.unwrap_or_else(|f| panic!("scatter: {f}"));
            for (i, &x) in c.iter().enumerate() {
                assert_eq!(x, (i as i32 ^ 33) + 7, "scatter: c[{i}]");
            }
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "the scatter's regions compiled within 60 s"
            );
        }
    }

    /// A run whose lane `lane` of wave `wave` of work-group `group` stores at a wild index:
    /// the fault names them and the lane's address as the interpreter does, and every
    /// work-group before it stored all its lanes.
    pub(crate) fn wild_lane_faults(&self, group: u32, wave: u32, lane: u32) {
        let size = u32::from(self.wg);
        let (r, c, base) = self.run(Some(group * size + wave * 32 + lane));
        let f = r.expect_err("a wild lane faults");
        assert_eq!(f.kernel.as_deref(), Some(self.kernel));
        assert_eq!(f.workgroup_id, [group, 0, 0], "{f}");
        assert_eq!((f.wave, f.lane), (wave, Some(lane)), "{f}");
        assert_eq!(
            f.kind,
            FaultKind::MemoryViolation {
                address: base + 4 * 0x4000_0000,
                write: true,
                size: 4,
            },
            "{f}"
        );
        assert!(
            f.instruction
                .as_deref()
                .is_some_and(|t| t.contains("global_store")),
            "{f}"
        );
        for (i, &x) in c[..(group * size) as usize].iter().enumerate() {
            assert_eq!(
                x,
                (i as i32 ^ 33) + 7,
                "wild scatter in group {group}: c[{i}]"
            );
        }
    }
}

/// `pair_add` (`cl/pair32.cl`) on `full` work-items in work-groups of `wg`: its inputs, its
/// runs over a range of `n` (the rest storing `K`) and the check of their output.
pub(crate) struct PairAdd<'e> {
    e: &'e super::common::Emu,
    a: Vec<i32>,
    b: Vec<i32>,
    bufs: [super::common::Buf; 2],
    full: u32,
    wg: u16,
}

impl<'e> PairAdd<'e> {
    pub(crate) fn new(e: &'e super::common::Emu, full: u32, wg: u16) -> PairAdd<'e> {
        let a: Vec<i32> = (0..full as i32)
            .map(|i| i.wrapping_mul(7919) % 10007)
            .collect();
        let b: Vec<i32> = (0..full as i32).map(|i| (i % 1013) - 500).collect();
        let bufs = [e.buf_i32(&a), e.buf_i32(&b)];
        PairAdd {
            e,
            a,
            b,
            bufs,
            full,
            wg,
        }
    }

    /// The output of a run over a range of `n`, and the dispatch's counts.
    pub(crate) fn run(&self, n: u32) -> (Vec<i32>, hsaemu_emu::DispatchStats) {
        use super::common::Arg;
        let bc = self.e.buf_i32(&vec![-1; self.full as usize]);
        let args = [
            Arg::Ptr(&self.bufs[0]),
            Arg::Ptr(&self.bufs[1]),
            Arg::Ptr(&bc),
            Arg::U32(n),
            Arg::I32(K),
        ];
        let stats = self
            .e
            .run("pair_add", &args, [self.full, 1, 1], [self.wg, 1, 1]);
        (bc.i32s(), stats)
    }

    /// `c` against the definition: `a + 3b` in range, `K` past it.
    pub(crate) fn check(&self, c: &[i32], n: u32) {
        for (i, &got) in c.iter().enumerate() {
            let want = if (i as u32) < n {
                self.a[i] + 3 * self.b[i]
            } else {
                K
            };
            assert_eq!(got, want, "n = {n}: c[{i}]");
        }
    }
}

/// How many instructions `pair_add`'s `s_cbranch_execz` (its bounds test's) skips, from the
/// code object's disassembly: from the branch to its target. A wave whose lanes are all out
/// of range takes it (the branch's definition: taken when EXEC is 0), the others run them.
/// And how many instructions the kernel has up to its `s_endpgm`, which it has one of after
/// that branch's target: what a wave that does not take the branch runs.
pub(crate) fn bounds_branch_and_endpgm() -> (u64, u64) {
    use super::common::{code_object_version, compile_target};
    let (processor, extra) = compile_target("gfx1030");
    let cov = code_object_version("gfx1030");
    let path = hsaemu_testkit::compile_cl_with("cl/pair32.cl", processor, cov, extra);
    let text = super::common::objdump(&path, "gfx1030");
    // `\ts_cbranch_execz 15   // 000000001E8C: BF88000F <pair_add+0xcc>`: its address,
    // and the target's offset from the kernel's first instruction.
    let hex = |t: &str| u64::from_str_radix(t.trim_start_matches("0x"), 16).expect("hex");
    let at = |l: &str| {
        l.split("// ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .map(hex)
    };
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.ends_with("<pair_add>:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let start = at(body[0]).expect("the first instruction's address");
    let branches: Vec<&&str> = body
        .iter()
        .filter(|l| l.contains("s_cbranch_execz"))
        .collect();
    assert_eq!(
        branches.len(),
        1,
        "pair_add has one bounds branch:\n{}",
        body.join("\n")
    );
    let from = at(branches[0]).expect("the branch's address");
    let off = branches[0]
        .split("<pair_add+")
        .nth(1)
        .and_then(|r| r.split('>').next())
        .map(hex)
        .expect("the branch's target");
    let to = start + off;
    assert!(to > from + 4, "the bounds branch skips a block");
    let skipped = body
        .iter()
        .filter_map(|l| at(l))
        .filter(|&a| a > from && a < to)
        .count() as u64;
    let ends: Vec<usize> = (0..body.len())
        .filter(|&k| body[k].contains("s_endpgm"))
        .collect();
    assert_eq!(
        ends.len(),
        1,
        "pair_add has one s_endpgm:\n{}",
        body.join("\n")
    );
    let end = at(body[ends[0]]).expect("the s_endpgm's address");
    assert!(end > to, "the s_endpgm follows the bounds branch's target");
    let to_endpgm = body[..=ends[0]].iter().filter(|l| at(l).is_some()).count() as u64;
    (skipped, to_endpgm)
}

/// Fresh pairs (`dispatch.rs`'s `FreshPair`: a pair of waves that have run nothing enters the
/// pair block the dispatch's first fresh pair entered, without comparing SGPRs). `pair_info`
/// (asm) stores each wave's work-group info SGPR, whose bit 31 only a work-group's first wave
/// has (LLVM's AMDGPUUsage, "Work-Group Info"), in work-groups of four wave32s, on one host
/// thread: each group's first pair differs in it and runs one wave at a time, its second
/// pair runs as a pair. The pair block found by the first group's second pair compares that
/// SGPR, so it must not let the next group's first pair in uncompared (wave 1 would store
/// wave 0's info).
pub(crate) fn fresh_pairs_compare_sgprs_set_per_wave() {
    use super::common::{from_bytes_threads, Arg};
    if !jit::enabled() {
        return;
    }
    let path = hsaemu_testkit::compile_asm("asm/pair_info.s", "gfx1030", 4);
    let bytes = std::fs::read(&path).expect("read the code object");
    let e = from_bytes_threads(&bytes, "gfx1030", 4, 1);
    let groups = 256u32;
    // The region compiles after the first dispatch, its pair variant after the second.
    for round in 0..4 {
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "round {round}: compiled within 60 s"
        );
        let before = jit::stats();
        let out = e.zeros(4 * 128 * groups as usize);
        e.run1("pair_info", &[Arg::Ptr(&out)], 128 * groups, 128);
        for (i, &x) in out.u32s().iter().enumerate() {
            let wave = i % 128 / 32;
            let want = u32::from(wave == 0) << 31 | 4;
            assert_eq!(
                x, want,
                "round {round}: work-item {i}, wave {wave} of its group"
            );
        }
        // Under `verify` the region stops before the kernel argument's load.
        if round == 3 && jit::pairs_used() && jit::dispatches_compile_memory() {
            assert!(
                jit::stats().pair_runs >= before.pair_runs + u64::from(groups),
                "each group's second pair ran as a pair ({before:?} → {:?})",
                jit::stats()
            );
        }
    }
}

/// A fresh pair's ID rows, which the dispatcher may write in lanes 0–3 alone for the pair
/// block that takes them from there (`dispatch.rs`' `launch`, `Block::lazy_ids`), are
/// whole wherever something else reads them: `lazy_ids` (asm) reads v0 after its pair
/// region leaves at a branch its waves disagree on (the exit stores the pending rows), and
/// in work-groups of 96 a third wave runs alone (the round fills its rows first). Each wave
/// leaves -1 in v0, which a lane left unwritten in the next group would store. `lazy_ids`'
/// pair block takes v0 from lane 0, `lazy_ids_y`'s v0 and v1.
pub(crate) fn lazy_id_rows_are_whole_where_read() {
    use super::common::{from_bytes_threads, Arg};
    if !jit::enabled() {
        return;
    }
    let path = hsaemu_testkit::compile_asm("asm/lazy_ids.s", "gfx1030", 4);
    let bytes = std::fs::read(&path).expect("read the code object");
    let e = from_bytes_threads(&bytes, "gfx1030", 4, 1);
    let groups = 256u32;
    for (kernel, size) in [("lazy_ids", 64u32), ("lazy_ids", 96), ("lazy_ids_y", 64)] {
        // The region compiles after the first dispatch, its pair variant after the second.
        for round in 0..4 {
            assert!(
                jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{kernel} {size}, round {round}: compiled within 60 s"
            );
            let before = jit::stats();
            let out = e.zeros(4 * (size * groups) as usize);
            e.run1(
                kernel,
                &[Arg::Ptr(&out), Arg::U32(size)],
                size * groups,
                size as u16,
            );
            for (i, &x) in out.u32s().iter().enumerate() {
                let id = i as u32 % size;
                let want = if id < 32 { id } else { id | 0x10000 };
                assert_eq!(x, want, "{kernel} {size}, round {round}: work-item {i}");
            }
            if round == 3 && jit::pairs_used() && jit::dispatches_compile_memory() {
                assert!(
                    jit::stats().pair_runs >= before.pair_runs + u64::from(groups),
                    "{kernel} {size}: each group's first pair ran as a pair ({before:?} → {:?})",
                    jit::stats()
                );
            }
        }
    }
}
