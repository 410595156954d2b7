//! Pending SGPRs (`src/jit/lower.rs`' `spend`): a region holds its SGPR writes back and
//! stores them on every way out and at its basic blocks' ends. `pending_sgprs` (asm, gfx1030,
//! work-groups of one pair of wave32s, one host thread) writes SGPRs in its pair region and
//! then leaves it twice where the interpreter reads them: at a store whose range check fails
//! (the fault's address is computed from the base pair the region wrote) and at a branch the
//! two waves disagree on (each wave then stores an SGPR the region wrote, through a base an
//! SMEM load of the region wrote). `pending_sgprs64` is the same as one wave64 (a single-wave
//! region, where the writes are held back): the fault, and SGPRs read in the basic block after
//! the branch. Every value from the ISA's definitions of the instructions.

use hsaemu_emu::{jit, FaultKind};

pub(crate) fn pending_sgprs_are_stored_where_a_region_leaves() {
    if !jit::enabled() {
        return;
    }
    let path = hsaemu_testkit::compile_asm("asm/pending_sgprs.s", "gfx1030", 4);
    let bytes = std::fs::read(&path).expect("read the code object");
    let e = super::common::from_bytes_threads(&bytes, "gfx1030", 4, 1);
    check(&e, "pending_sgprs", true);
    check(&e, "pending_sgprs64", false);
}

/// Kernel `kernel` of `e`: as pairs of wave32s (`pair`) or as wave64s.
fn check(e: &super::common::Emu, kernel: &str, pair: bool) {
    use super::common::Arg;
    let groups = 256u32;
    let n = 64 * groups;
    // s6 = s2 << 6 (`s_lshl_b32`), s10 = s6 + 0x55 (`s_add_u32`), s11 = s10 · 3 (`s_mul_i32`,
    // the low 32 bits); wave A (IDs 0–31) has every lane of VCC_LO set (`32 > v0`) and
    // falls through to store s10, B none and takes `s_cbranch_vccz` to store s11. A wave64's
    // VCC has lanes 0–31 set: it falls through.
    let want2 = |i: u32| {
        let s10 = (i / 64 * 64).wrapping_add(0x55);
        if i % 64 < 32 || !pair {
            s10
        } else {
            s10.wrapping_mul(3)
        }
    };
    // The region compiles after the first dispatch, its pair variant after the second.
    for round in 0..4 {
        assert!(
            jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{kernel}, round {round}: compiled within 60 s"
        );
        let before = jit::stats();
        let out = e.zeros(4 * n as usize);
        let out2 = e.zeros(4 * n as usize);
        let args = [Arg::Ptr(&out), Arg::U32(0), Arg::Ptr(&out2)];
        if let Err(f) = e.try_run(kernel, &args, [n, 1, 1], [64, 1, 1], 0) {
            panic!("{kernel}, round {round}: {f}");
        }
        // Through s[8:9] = out + (0 << 32): each work-item's global ID (s6 + v0).
        for (i, &x) in out.u32s().iter().enumerate() {
            assert_eq!(x, i as u32, "{kernel}, round {round}: out[{i}]");
        }
        for (i, &x) in out2.u32s().iter().enumerate() {
            assert_eq!(x, want2(i as u32), "{kernel}, round {round}: out2[{i}]");
        }
        if pair && round == 3 && jit::pairs_used() && jit::dispatches_compile_memory() {
            assert!(
                jit::stats().pair_runs >= before.pair_runs + u64::from(groups),
                "each group ran as a pair ({before:?} → {:?})",
                jit::stats()
            );
        }
    }
    // `shift` 0x100: s9 = hi(out) + 0x100 (`s_add_u32`), so every lane's store address is
    // s[8:9] + v2 = out + 2^40 + 4 · global ID, outside any allocation. The first group (one
    // host thread) faults first, in wave 0's lane 0: at out + 2^40.
    let before = jit::stats();
    let out = e.zeros(4 * n as usize);
    let out2 = e.zeros(4 * n as usize);
    let args = [Arg::Ptr(&out), Arg::U32(0x100), Arg::Ptr(&out2)];
    let f = e
        .try_run(kernel, &args, [n, 1, 1], [64, 1, 1], 0)
        .expect_err("the store through s[8:9] faults");
    assert!(
        f.instruction
            .as_deref()
            .is_some_and(|t| t.contains("global_store_dword v2, v1, s[8:9]")),
        "{f}"
    );
    assert_eq!(f.workgroup_id, [0, 0, 0], "{f}");
    assert_eq!((f.wave, f.lane), (0, Some(0)), "{f}");
    let hi = ((out.addr() >> 32) as u32).wrapping_add(0x100);
    let address = u64::from(hi) << 32 | (out.addr() & 0xffff_ffff);
    assert_eq!(
        f.kind,
        FaultKind::MemoryViolation {
            address,
            write: true,
            size: 4,
        },
        "{f}"
    );
    if pair && jit::pairs_used() && jit::dispatches_compile_memory() {
        assert!(
            jit::stats().pair_runs > before.pair_runs,
            "the faulting group ran as a pair"
        );
    }
}
