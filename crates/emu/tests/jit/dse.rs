//! The stores a region leaves out: a row a run of lane-wise instructions writes and then
//! overwrites in the same group pass is stored once, with its last value. These blocks fail
//! when a store that is needed is dropped: a read of the row after a wait that starts a new
//! block inside the run, an exit before a faulting memory instruction right after the run,
//! and a store of the row to memory. Each run is also compared register for register with
//! the interpreter (`run_words`' check).

use super::{assemble, v_add_u32, want_compiled_run, want_dword_fault, wild_lane_pairs, WILD};
use hsaemu_emu::{jit, run_words, run_words_mem, Gen, WaveRegs};

/// Lane numbers in v0 and v20, 100 in v1 (what a dropped store would leave there).
fn regs(gen: Gen) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    for l in 0..64 {
        r.v[0][l] = l as u32;
        r.v[1][l] = 100;
        r.v[20][l] = l as u32;
    }
    r
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let add = v_add_u32(!attr.is_empty());
    // GFX9's `s_waitcnt vmcnt(0)` tests `Wave::stored` inline (new blocks in the run);
    // GFX10's vscnt wait likewise.
    let wait = if attr.is_empty() {
        "s_waitcnt vmcnt(0)"
    } else {
        "s_waitcnt_vscnt null, 0x0"
    };
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_mov_b32 v1, 5
             {wait}
             {add} v2, v1, v0
             v_mov_b32 v1, 7
             {add} v3, v1, v0
             s_endpgm
"
        ),
    );
    let mut r = regs(gen);
    let before = jit::stats();
    run_words(gen, &words, &mut r).expect("run");
    want_compiled_run(&before, &what);
    for l in 0..lanes {
        let got = (r.v[1][l], r.v[2][l], r.v[3][l]);
        assert_eq!(got, (7, l as u32 + 5, l as u32 + 7), "{what} lane {l}");
    }

    // The run overwrites v1, then the region exits before the load (a wild lane): the
    // `Wave` must hold the run's results there (compared with the interpreter's).
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_mov_b32 v1, 5
             {add} v2, v1, v20
             v_mov_b32 v1, 7
             {add} v3, v1, v20
             global_load_dword v6, v[4:5], off
             s_endpgm
"
        ),
    );
    let mut global = vec![0u8; 4 * 64];
    let base = global.as_ptr() as u64;
    let mut r = regs(gen);
    wild_lane_pairs(&mut r, base, 9);
    let before = jit::stats();
    let e = run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild");
    want_dword_fault(e, WILD, false, &what);
    want_compiled_run(&before, &what);

    // The overwritten row stored to memory: its last value.
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_mov_b32 v1, 5
             {add} v2, v1, v20
             v_mov_b32 v1, 7
             {add} v1, v1, v2
             global_store_dword v[4:5], v1, off
             s_endpgm
"
        ),
    );
    let mut r = regs(gen);
    wild_lane_pairs(&mut r, base, 64);
    run_words_mem(gen, &words, &mut r, &mut [], &mut global).expect("store");
    for l in 0..lanes {
        let got = u32::from_le_bytes(global[4 * l..4 * l + 4].try_into().expect("dword"));
        assert_eq!(got, l as u32 + 12, "{what} lane {l}");
    }
}

/// A compare and then a carry writing VCC in one run under a partial EXEC: the compare
/// writes 0 to the lanes outside EXEC and the carry keeps them, so the compare's write is
/// needed (`long_ops`' region left the old bits there). Then the reverse order, where the
/// carry's write is dead. VCC's value from the definitions.
fn check_masks(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let gfx10 = !attr.is_empty();
    let add = v_add_u32(gfx10);
    let (vcc, add_co) = if gfx10 {
        ("vcc_lo", "v_add_co_u32")
    } else {
        ("vcc", "v_add_co_u32")
    };
    let exec: u64 = 0x0f0f_f0f0_3c3c_a5a5 & if lanes == 32 { 0xffff_ffff } else { u64::MAX };
    let all = if lanes == 32 { 0xffff_ffff } else { u64::MAX };
    for cmp_first in [true, false] {
        let cmp = "v_cmp_gt_u32 vcc, v0, 20".replace("vcc", vcc);
        let carry = format!("{add_co} v3, {vcc}, v1, v0");
        let (first, second) = if cmp_first {
            (cmp, carry)
        } else {
            (carry, cmp)
        };
        let words = assemble(
            mcpu,
            attr,
            &format!(
                "{first}
                 {add} v2, v1, v0
                 {second}
                 s_endpgm
"
            ),
        );
        let mut r = regs(gen);
        for l in 0..64 {
            r.v[1][l] = 0xffff_ffe0 + l as u32 % 32;
        }
        r.set_exec(exec);
        r.s[106] = u32::MAX;
        r.s[107] = u32::MAX;
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        want_compiled_run(&before, &what);
        let (mut gt, mut co) = (0u64, 0u64);
        for l in 0..lanes {
            gt |= u64::from(l > 20) << l;
            co |= u64::from(0xffff_ffe0 + l as u64 % 32 + l as u64 > 0xffff_ffff) << l;
        }
        // The compare writes every lane of the wave (0 outside EXEC), the carry merges.
        let want = if cmp_first {
            (gt & exec) & !exec | co & exec
        } else {
            gt & exec
        };
        let got = u64::from(r.s[106]) | u64::from(r.s[107]) << 32;
        let got = if lanes == 32 { got & 0xffff_ffff } else { got };
        assert_eq!(got, want & all, "{what} compare first {cmp_first}");
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn overwritten_rows_are_stored_where_read() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_masks(Gen::Gfx90a, "gfx90a", "", 64);
    check_masks(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_masks(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
