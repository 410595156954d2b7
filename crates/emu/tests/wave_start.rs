//! A wave's start state through the dispatcher, which sets up each host slot's `Wave` again
//! for the next work-group's wave instead of making a new one: the SGPRs past the user and
//! system ones are zero (`Wave::start`), whatever the wave before it left in them
//! (`Wave::start` clears only the groups of four SGPRs that something may have written,
//! `Wave::sgpr_dirty`, and that hold something).

use crate::common::*;

/// `sgpr_start` dispatched `rounds` times on `t` in `groups` work-groups of two waves with
/// one host thread (every work-group after the first runs in the first's waves), waiting
/// before each round for the regions the rounds before made hot: every wave must read zeros
/// in s20, s63, s100 and VCC_LO.
fn check_sgprs_start_zero(t: &str, groups: u32, rounds: u32) {
    let path = hsaemu_testkit::compile_asm("asm/sgpr_start.s", t, 4);
    let bytes = std::fs::read(&path).expect("read the code object");
    let e = from_bytes_threads(&bytes, t, 4, 1);
    let lanes = wave_size(t) as u32;
    for round in 0..rounds {
        assert!(
            hsaemu_emu::jit::wait_compiled(std::time::Duration::from_secs(60)),
            "{t}: compiled within 60 s"
        );
        let out = e.zeros(16 * 2 * groups as usize);
        let seen = e.zeros(16 * 2 * groups as usize);
        let stats = e.run1(
            "sgpr_start",
            &[Arg::Ptr(&out), Arg::Ptr(&seen)],
            2 * lanes * groups,
            2 * lanes as u16,
        );
        assert_eq!(stats.waves, u64::from(2 * groups), "{t}");
        let got = out.u32s();
        for w in 0..2 * groups as usize {
            assert_eq!(
                &got[4 * w..4 * w + 4],
                &[0, 0, 0, 0],
                "{t} round {round}: wave {w}'s s20, s63, s100, VCC_LO"
            );
        }
    }
}

#[test]
fn sgprs_start_zero_in_a_reused_wave() {
    for t in ["gfx90a", "gfx1030"] {
        check_sgprs_start_zero(t, 8, 1);
    }
}

/// The same once the kernel's region is compiled (its start is hot after 1000 waves, the
/// 8th round): a wave that ran only compiled code
/// (no interpreter step, which marks every SGPR) leaves the SGPRs its region's
/// instructions name as written, VCC too (`jit::written_sgpr_groups`), and the next wave
/// in its slot must find them zero again.
#[test]
fn sgprs_start_zero_after_a_compiled_wave() {
    for t in ["gfx90a", "gfx1030"] {
        check_sgprs_start_zero(t, 64, 20);
    }
}

/// Every wave's turn stops in two places: before `s_getreg_b32` (which the compiling tier
/// does not lower) and at `s_endpgm`. The dispatcher remembers the `s_endpgm` PC a region
/// stopped at for the rest of the work-group's slice (`Tier::is_endpgm`): the next wave's
/// stop before `s_getreg_b32` must not end it there. Dispatched again and again so compiled
/// regions run (compiles are asynchronous outside `HSAEMU_JIT=verify`: each round waits
/// for those the rounds before asked for).
#[test]
fn a_region_stop_is_not_taken_for_the_last_s_endpgm() {
    for t in ["gfx90a", "gfx1030"] {
        let path = hsaemu_testkit::compile_asm("asm/endpgm_memo.s", t, 4);
        let bytes = std::fs::read(&path).expect("read the code object");
        let e = from_bytes_threads(&bytes, t, 4, 1);
        let lanes = wave_size(t) as u32;
        let groups = 8u32;
        for round in 0..100 {
            // The regions the rounds before made hot are in place: they run in this one.
            assert!(
                hsaemu_emu::jit::wait_compiled(std::time::Duration::from_secs(60)),
                "{t}: compiled within 60 s"
            );
            let out = e.zeros(4 * 2 * groups as usize);
            e.run1(
                "endpgm_memo",
                &[Arg::Ptr(&out)],
                2 * lanes * groups,
                2 * lanes as u16,
            );
            assert_eq!(
                out.u32s(),
                vec![7; 2 * groups as usize],
                "{t} round {round}"
            );
        }
    }
}
