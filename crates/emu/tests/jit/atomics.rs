//! Atomics and `s_barrier` in compiled regions (`src/jit/lower_mem.rs` calls of the
//! interpreter's paths, `inline_lds.rs`'s inline DS atomics, `Lower::Barrier`): LDS atomics with and without return, GLOBAL
//! atomics with and without return (lanes hitting the same word, so their order shows), a
//! compare-swap of each kind, under a full and a partial EXEC; a small histogram kernel (a
//! loop of `ds_add_u32`, a barrier, one `global_atomic_add` per bin) against a CPU reference;
//! the faults (a wild address in one lane of a global atomic, an LDS atomic past the
//! allocation) reported as the interpreter reports them; and a reduction's tree step under
//! a partial EXEC. Expected values come from the
//! instructions' definitions run here lane by lane in ascending order (what the ISA leaves
//! to the hardware, the interpreter fixes that way); the tier's own check compares each
//! compiled run with the interpreter, registers, LDS and the buffer included.

use super::{assemble, v_add_u32, want_compiled_run, want_dword_fault, wild_lane_pairs, WILD};
use hsaemu_emu::{jit, run_words_mem, FaultKind, Gen, WaveRegs};

const LDS: usize = 1024;

/// One of each atomic, then `s_barrier` in the middle of the straight-line code.
fn program() -> &'static str {
    "v_lshlrev_b32 v10, 2, v20
     v_and_b32 v11, 7, v20
     v_lshlrev_b32 v11, 2, v11
     ds_write_b32 v10, v21
     ds_add_u32 v11, v22
     ds_add_rtn_u32 v1, v11, v22 offset:256
     ds_max_rtn_u32 v2, v11, v20 offset:512
     ds_cmpst_rtn_b32 v3, v11, v23, v20 offset:768
     ds_xor_b32 v11, v20 offset:256
     s_barrier
     global_atomic_add v4, v11, v22, s[0:1] glc
     global_atomic_add v11, v22, s[0:1] offset:128
     global_atomic_cmpswap v5, v11, v[24:25], s[0:1] offset:256 glc
     global_atomic_umin v11, v20, s[0:1] offset:384
     s_endpgm
"
}

fn word(k: usize) -> u32 {
    0x1000_0000 | ((k as u32) * 0x0101)
}

fn load(m: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(m[at..at + 4].try_into().expect("4 bytes"))
}

fn store(m: &mut [u8], at: usize, x: u32) {
    m[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

/// One atomic on the model: per active lane in ascending order, `old` = the dword at `off` +
/// the lane's v11, the dword = `f(old, registers, lane)`, and `dst` (if any) gets `old`.
fn atomic(
    mem: &mut [u8],
    r: &mut WaveRegs,
    active: &[usize],
    off: usize,
    dst: Option<usize>,
    f: &dyn Fn(u32, &WaveRegs, usize) -> u32,
) {
    for &l in active {
        let at = off + r.v[11][l] as usize;
        let old = load(mem, at);
        store(mem, at, f(old, r, l));
        if let Some(d) = dst {
            r.v[d][l] = old;
        }
    }
}

/// The program on a model: registers, LDS and buffer after it.
fn model(r: &WaveRegs, lanes: usize, exec: u64, global: &[u8]) -> (WaveRegs, Vec<u8>, Vec<u8>) {
    let (mut r, mut lds, mut g) = (r.clone(), vec![0u8; LDS], global.to_vec());
    let active: Vec<usize> = (0..lanes).filter(|&l| exec >> l & 1 != 0).collect();
    for &l in &active {
        r.v[10][l] = 4 * l as u32;
        r.v[11][l] = 4 * (l as u32 & 7);
    }
    let v = |r: &WaveRegs, k: usize, l: usize| r.v[k][l];
    for &l in &active {
        store(&mut lds, 4 * l, v(&r, 21, l));
    }
    // Each atomic: per lane, old = cell; cell = f(old, lane); the destination gets old.
    atomic(&mut lds, &mut r, &active, 0, None, &|o, r, l| {
        o.wrapping_add(r.v[22][l])
    });
    atomic(&mut lds, &mut r, &active, 256, Some(1), &|o, r, l| {
        o.wrapping_add(r.v[22][l])
    });
    atomic(&mut lds, &mut r, &active, 512, Some(2), &|o, r, l| {
        o.max(r.v[20][l])
    });
    // DS_CMPST_B32: data0 is the compare value, data1 the new one.
    atomic(&mut lds, &mut r, &active, 768, Some(3), &|o, r, l| {
        if o == r.v[23][l] {
            r.v[20][l]
        } else {
            o
        }
    });
    atomic(&mut lds, &mut r, &active, 256, None, &|o, r, l| {
        o ^ r.v[20][l]
    });
    atomic(&mut g, &mut r, &active, 0, Some(4), &|o, r, l| {
        o.wrapping_add(r.v[22][l])
    });
    atomic(&mut g, &mut r, &active, 128, None, &|o, r, l| {
        o.wrapping_add(r.v[22][l])
    });
    // GLOBAL_ATOMIC_CMPSWAP: data[0] the new value, data[1] the compare value.
    atomic(&mut g, &mut r, &active, 256, Some(5), &|o, r, l| {
        if o == r.v[25][l] {
            r.v[24][l]
        } else {
            o
        }
    });
    atomic(&mut g, &mut r, &active, 384, None, &|o, r, l| {
        o.min(r.v[20][l])
    });
    (r, lds, g)
}

fn setup(gen: Gen, base: u64) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        r.v[21][l] = 1000 + l as u32;
        r.v[22][l] = l as u32 + 1;
        // The compare values: some lanes find their cell as they want it.
        r.v[23][l] = (l as u32 >> 3) & 1;
        r.v[24][l] = 0x7000 + l as u32;
        r.v[25][l] = if l % 3 == 0 {
            word(64 + (l & 7))
        } else {
            0x7000 + l as u32 - 8
        };
        for d in 1..=5 {
            r.v[d][l] = 0xdead_0000 | d as u32;
        }
    }
    r
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64) {
    let words = assemble(mcpu, attr, program());
    let mut global = vec![0u8; 1024];
    for k in 0..256 {
        store(&mut global, 4 * k, word(k));
    }
    let base = global.as_ptr() as u64;
    let mut r = setup(gen, base);
    r.set_exec(exec);
    let (want, want_lds, want_global) = model(&r, lanes, exec, &global);
    let mut lds = vec![0u8; LDS];
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    let after = jit::stats();
    let what = format!("{mcpu}{attr} exec {exec:#x}");
    if jit::checks_single_runs() {
        // Two regions (before and after the barrier), every instruction compiled but
        // `s_endpgm`; the global atomics are calls (the DS atomics too under a partial
        // EXEC, not its `ds_write_b32`: `inline_ds_partial`).
        assert!(
            after.instructions >= before.instructions + 14 && after.runs >= before.runs + 2,
            "{what}: not compiled whole ({before:?} → {after:?})"
        );
        let calls = if exec.count_ones() as usize == lanes {
            4
        } else {
            9
        };
        assert!(
            after.calls >= before.calls + calls,
            "{what}: the atomics' calls ({before:?} → {after:?})"
        );
    }
    for l in 0..lanes {
        for d in 1..=5 {
            assert_eq!(r.v[d][l], want.v[d][l], "{what} lane {l}: v{d}");
        }
    }
    for k in 0..LDS / 4 {
        assert_eq!(
            load(&lds, 4 * k),
            load(&want_lds, 4 * k),
            "{what}: LDS dword {k}"
        );
    }
    for k in 0..256 {
        assert_eq!(
            load(&global, 4 * k),
            load(&want_global, 4 * k),
            "{what}: buffer dword {k}"
        );
    }
}

/// A histogram of `ITERS × lanes` bytes into 32 LDS bins (a loop of `ds_add_u32`), then a
/// barrier, then each lane adds its bin to the buffer's bins with a returning
/// `global_atomic_add` (in wave64 lanes 32–63 add their empty bins to the same words, and
/// see the first 32 lanes' sums). The loop's branch goes back 11 dwords (to the
/// `global_load_ubyte`; `assemble` takes no labels).
fn histogram(gfx10: bool) -> String {
    let add = v_add_u32(gfx10);
    format!(
        "v_lshlrev_b32 v10, 2, v20
         v_mov_b32 v1, 0
         ds_write_b32 v10, v1
         s_mov_b32 s4, 0
         v_mov_b32 v2, v20
         v_mov_b32 v3, 1
         global_load_ubyte v4, v2, s[0:1]
         s_waitcnt vmcnt(0)
         v_and_b32 v4, 31, v4
         v_lshlrev_b32 v4, 2, v4
         ds_add_u32 v4, v3
         {add} v2, s3, v2
         s_add_u32 s4, s4, 1
         s_cmp_lt_u32 s4, s2
         s_cbranch_scc1 65525
         s_waitcnt lgkmcnt(0)
         s_barrier
         ds_read_b32 v5, v10
         v_and_b32 v6, 31, v20
         v_lshlrev_b32 v6, 2, v6
         s_waitcnt lgkmcnt(0)
         global_atomic_add v7, v6, v5, s[0:1] offset:1024 glc
         s_endpgm
"
    )
}

const ITERS: usize = 8;

fn check_histogram(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64) {
    let words = assemble(mcpu, attr, &histogram(!attr.is_empty()));
    let mut global = vec![0u8; 2048];
    let mut x = 12345u32;
    for b in &mut global[..1024] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        *b = (x >> 16) as u8;
    }
    for k in 0..32 {
        store(&mut global, 1024 + 4 * k, 100 * k as u32);
    }
    let data = global[..1024].to_vec();
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[2], r.s[3]) = (ITERS as u32, lanes as u32);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        r.v[5][l] = 0xdead;
        r.v[7][l] = 0xbeef;
    }
    r.set_exec(exec);
    // The CPU reference: the active lanes' bytes binned, then added lane by lane.
    let active = |l: usize| exec >> l & 1 != 0;
    let mut bins = [0u32; 64];
    for it in 0..ITERS {
        for l in (0..lanes).filter(|&l| active(l)) {
            bins[usize::from(data[it * lanes + l] & 31)] += 1;
        }
    }
    let mut sums: Vec<u32> = (0..32).map(|k| 100 * k as u32).collect();
    let mut old = [0xbeefu32; 64];
    for l in (0..lanes).filter(|&l| active(l)) {
        old[l] = sums[l & 31];
        sums[l & 31] += bins[l];
    }
    let mut lds = vec![0u8; 256];
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    let what = format!("{mcpu}{attr} exec {exec:#x}");
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(
            after.instructions >= before.instructions + 22,
            "{what}: not compiled whole ({before:?} → {after:?})"
        );
    }
    for l in 0..lanes {
        let want5 = if active(l) { bins[l] } else { 0xdead };
        assert_eq!(r.v[5][l], want5, "{what} lane {l}: bin");
        assert_eq!(r.v[7][l], old[l], "{what} lane {l}: returned");
    }
    for (k, &sum) in sums.iter().enumerate() {
        assert_eq!(load(&global, 1024 + 4 * k), sum, "{what}: bin {k}");
    }
}

/// A wild address in one lane of a global atomic and an LDS atomic past the allocation:
/// the region runs up to it, and the interpreter reports the fault as always.
fn check_faults(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let add = v_add_u32(!attr.is_empty());
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_lshlrev_b32 v10, 2, v20
             {add} v11, v10, v20
             global_atomic_add v1, v[4:5], v20, off glc
             s_endpgm
"
        ),
    );
    let mut global = vec![0u8; 1024];
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    wild_lane_pairs(&mut r, base, lanes / 2 + 3);
    let what = format!("{mcpu}{attr}");
    let before = jit::stats();
    let e = run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild");
    want_dword_fault(e, WILD, true, &what);
    want_compiled_run(&before, &what);
    // The lanes before the faulting one ran (the interpreter's order), the others did not.
    for l in 0..lanes {
        let want = if l < lanes / 2 + 3 { l as u32 } else { 0 };
        assert_eq!(load(&global, 4 * l), want, "{what}: lane {l}");
    }
    // A misaligned address faults too (atomics need natural alignment).
    for l in 0..64 {
        let a = base + 4 * l as u64 + u64::from(l == 1) * 2;
        (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
    }
    let e = run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("align");
    want_dword_fault(e, base + 6, true, &what);
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_lshlrev_b32 v10, 2, v20
             {add} v11, v10, v20
             ds_add_rtn_u32 v1, v10, v20 offset:4
             s_endpgm
"
        ),
    );
    let mut lds = vec![0u8; 4 * lanes];
    let before = jit::stats();
    let e = run_words_mem(gen, &words, &mut r, &mut lds, &mut global).expect_err("LDS");
    assert_eq!(
        e,
        FaultKind::LdsOutOfRange {
            offset: 4 * lanes as u64,
            size: 4,
            lds_size: 4 * lanes as u32
        },
        "{what}"
    );
    want_compiled_run(&before, &what);
}

/// A reduction's tree step under a partial EXEC (lanes below 16 active): `ds_read_b32` at
/// `lane + 16` from an address register whose inactive lanes hold garbage, `ds_read_b32` and
/// `ds_write_b32` at the lane, each compiled inline (`inline_ds_partial`: the range of the
/// active lanes alone, no call), in LDS with room for the whole row and without. Expected
/// values: the step on a model.
fn check_tree_step(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let add = v_add_u32(!attr.is_empty());
    let exec = if lanes == 32 {
        "s_mov_b32 exec_lo, s10"
    } else {
        "s_mov_b64 exec, s[10:11]"
    };
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_lshlrev_b32 v10, 2, v20
             ds_write_b32 v10, v21
             {exec}
             {add} v11, 64, v10
             ds_read_b32 v12, v11
             ds_read_b32 v13, v10
             s_waitcnt lgkmcnt(0)
             {add} v12, v13, v12
             ds_write_b32 v10, v12
             s_endpgm
"
        ),
    );
    for size in [4 * lanes + 64, 4 * lanes] {
        let mut r = WaveRegs::new(gen);
        (r.s[10], r.s[11]) = (0xffff, 0);
        for l in 0..64 {
            r.v[20][l] = l as u32;
            r.v[21][l] = 1000 * l as u32 + 7;
            r.v[11][l] = 0xdead_beef;
            r.v[12][l] = 0x1200 + l as u32;
            r.v[13][l] = 0x1300 + l as u32;
        }
        let mut lds = vec![0u8; size];
        let mut global = vec![0u8; 16];
        let before = jit::stats();
        run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
            .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
        let what = format!("{mcpu}{attr} LDS {size}");
        if jit::checks_single_runs() {
            let after = jit::stats();
            assert!(
                after.instructions >= before.instructions + 9,
                "{what}: not compiled whole ({before:?} → {after:?})"
            );
            assert_eq!(
                after.calls, before.calls,
                "{what}: a DS call ({before:?} → {after:?})"
            );
        }
        let v21 = |l: usize| 1000 * l as u32 + 7;
        for l in 0..lanes {
            let (v12, v13, mem) = if l < 16 {
                (v21(l) + v21(l + 16), v21(l), v21(l) + v21(l + 16))
            } else {
                (0x1200 + l as u32, 0x1300 + l as u32, v21(l))
            };
            assert_eq!((r.v[12][l], r.v[13][l]), (v12, v13), "{what} lane {l}");
            assert_eq!(load(&lds, 4 * l), mem, "{what}: LDS dword {l}");
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(super) fn atomics_and_barriers_match_the_definitions() {
    let partial = !(1u64 << 5 | 1 << 17 | 1 << 37);
    for exec in [u64::MAX, partial] {
        check(Gen::Gfx90a, "gfx90a", "", 64, exec);
        check(
            Gen::Gfx10,
            "gfx1030",
            "+wavefrontsize32",
            32,
            exec & 0xffff_ffff,
        );
        check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, exec);
        check_histogram(Gen::Gfx90a, "gfx90a", "", 64, exec);
        check_histogram(
            Gen::Gfx10,
            "gfx1030",
            "+wavefrontsize32",
            32,
            exec & 0xffff_ffff,
        );
        check_histogram(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, exec);
    }
    check_faults(Gen::Gfx90a, "gfx90a", "", 64);
    check_faults(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_tree_step(Gen::Gfx90a, "gfx90a", "", 64);
    check_tree_step(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_tree_step(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
