//! Byte and short loads in a compiled region (`src/jit/inline_mem.rs`: lane groups at
//! consecutive elements as one load each, else the lane loop):
//! `global_load_{u,s}{byte,short}` with an SGPR base and a 64-bit VGPR address and their FLAT
//! forms, consecutive lanes, runs of four at scattered places and scattered lanes, under a
//! full and a partial EXEC, then a wild address in one lane. Expected values
//! come from the instructions' definitions (the byte or little-endian short at the lane's
//! address, zero- or sign-extended to 32 bits; inactive lanes keep their VGPR); the tier's
//! own check compares each compiled run with the interpreter.

use super::{assemble, want_inline_run};
use hsaemu_emu::{jit, run_words_mem, FaultKind, Gen, WaveRegs};

/// Global byte `k` (every value of the top bit occurs, so the signed loads extend both ways).
fn byte(k: usize) -> u8 {
    (k as u32 * 0x9d + 0x41) as u8
}

/// The loads; `exec` first (an EXEC write, or a no-op for the full-EXEC variant).
fn program(exec: &str) -> String {
    format!(
        "{exec}
         v_lshlrev_b32 v10, 1, v20
         global_load_ubyte v1, v20, s[0:1]
         global_load_sbyte v2, v20, s[0:1] offset:128
         global_load_ushort v3, v10, s[0:1] offset:256
         global_load_sshort v4, v[24:25], off
         flat_load_ubyte v5, v[26:27]
         flat_load_sshort v6, v[24:25] offset:2
         global_load_sbyte v7, v[26:27], off offset:1
         flat_load_ushort v8, v[24:25]
         global_load_ubyte v9, v12, s[0:1] offset:896
         global_load_sshort v11, v13, s[0:1] offset:768
         s_endpgm
"
    )
}

/// A permutation of the lanes (scattered addresses).
fn perm(l: usize, lanes: usize) -> usize {
    (7 * l + 3) % lanes
}

/// Lane `l`'s element in runs of four lanes, the runs' groups permuted (runs of four
/// consecutive bytes or shorts, not one run for the wave: the group loads at scattered
/// places).
fn runs(l: usize, lanes: usize) -> usize {
    4 * ((5 * (l / 4) + 3) % (lanes / 4)) + l % 4
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64) {
    let write = match (exec == u64::MAX >> (64 - lanes), lanes) {
        (true, _) => "s_nop 0",
        (false, 32) => "s_mov_b32 exec_lo, s10",
        (false, _) => "s_mov_b64 exec, s[10:11]",
    };
    let words = assemble(mcpu, attr, &program(write));
    let mut global: Vec<u8> = (0..1024).map(byte).collect();
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[10], r.s[11]) = (exec as u32, (exec >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        for (v, a) in [
            (24, base + 512 + 2 * perm(l, lanes) as u64),
            (26, base + 768 + perm(l, lanes) as u64),
        ] {
            (r.v[v][l], r.v[v + 1][l]) = (a as u32, (a >> 32) as u32);
        }
        for v in (1..=9).chain([11]) {
            r.v[v][l] = 0xcafe_0000 | (v << 8 | l) as u32;
        }
        r.v[12][l] = runs(l, lanes) as u32;
        r.v[13][l] = 2 * runs(l, lanes) as u32;
    }
    let old = r.clone();
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    want_inline_run(&before, &format!("{mcpu}{attr}"));
    let u8_at = |k: usize| u32::from(byte(k));
    let i8_at = |k: usize| byte(k) as i8 as u32;
    let u16_at = |k: usize| u32::from(u16::from_le_bytes([byte(k), byte(k + 1)]));
    let i16_at = |k: usize| u16_at(k) as u16 as i16 as u32;
    for l in 0..lanes {
        let ctx = format!("{mcpu}{attr} exec {exec:#x} lane {l}");
        let p = perm(l, lanes);
        let want = [
            u8_at(l),
            i8_at(128 + l),
            u16_at(256 + 2 * l),
            i16_at(512 + 2 * p),
            u8_at(768 + p),
            i16_at(514 + 2 * p),
            i8_at(769 + p),
            u16_at(512 + 2 * p),
            u8_at(896 + runs(l, lanes)),
            0,
            i16_at(768 + 2 * runs(l, lanes)),
        ];
        for (k, &w) in want.iter().enumerate() {
            let v = k + 1;
            if v == 10 {
                continue; // the address of the ushort load
            }
            let w = if exec >> l & 1 != 0 { w } else { old.v[v][l] };
            assert_eq!(r.v[v][l], w, "{ctx}: v{v}");
        }
    }
}

/// A wild address in one lane: the check fails, the call runs the interpreter, which
/// reports the fault (its address and size) as it would without the tier. With that lane
/// inactive the interpreter's path loads the others (its range is the active lanes').
fn check_fault(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(
        mcpu,
        attr,
        "v_lshlrev_b32 v10, 1, v20
         global_load_ushort v1, v10, s[0:1]
         global_load_ubyte v2, v[24:25], off
         s_endpgm
",
    );
    let mut global: Vec<u8> = (0..1024).map(byte).collect();
    let base = global.as_ptr() as u64;
    let wild = lanes / 2 + 1;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        let a = if l == wild {
            0xdead_beef_0003
        } else {
            base + 3 * l as u64
        };
        (r.v[24][l], r.v[25][l]) = (a as u32, (a >> 32) as u32);
    }
    let before = jit::stats();
    let e = run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild");
    let want = FaultKind::MemoryViolation {
        address: 0xdead_beef_0003,
        write: false,
        size: 1,
    };
    assert_eq!(e, want, "{mcpu}{attr}");
    if jit::checks_single_runs() {
        assert!(
            jit::stats().runs > before.runs,
            "{mcpu}{attr}: no compiled run"
        );
    }
    // The wild lane inactive: no fault, the active lanes loaded.
    r.set_exec(u64::MAX >> (64 - lanes) & !(1 << wild));
    r.v[2][wild] = 7;
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    for l in 0..lanes {
        let want = if l == wild { 7 } else { u32::from(byte(3 * l)) };
        assert_eq!(r.v[2][l], want, "{mcpu}{attr} lane {l}");
        let lo = u16::from_le_bytes([byte(2 * l), byte(2 * l + 1)]);
        let want = if l == wild { 0 } else { u32::from(lo) };
        assert_eq!(r.v[1][l], want, "{mcpu}{attr} lane {l}: ushort");
    }
    // Consecutive bytes but for one wild lane (the shape of the group loads, whose range
    // check comes first): the interpreter's fault.
    let words = assemble(mcpu, attr, "global_load_ubyte v1, v20, s[0:1]\ns_endpgm\n");
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = if l == wild { 0x7000_0000 } else { l as u32 };
    }
    let e = run_words_mem(gen, &words, &mut r, &mut [], &mut global).expect_err("wild");
    let want = FaultKind::MemoryViolation {
        address: base + 0x7000_0000,
        write: false,
        size: 1,
    };
    assert_eq!(e, want, "{mcpu}{attr}: consecutive bytes");
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(super) fn compiled_narrow_loads_match_the_interpreter_and_the_definitions() {
    let partial = 0x5a5a_0ff0_f00f_a5a5u64;
    check(Gen::Gfx90a, "gfx90a", "", 64, u64::MAX);
    check(Gen::Gfx90a, "gfx90a", "", 64, partial);
    check(
        Gen::Gfx10,
        "gfx1030",
        "+wavefrontsize32",
        32,
        u32::MAX.into(),
    );
    check(
        Gen::Gfx10,
        "gfx1030",
        "+wavefrontsize32",
        32,
        partial & 0xffff_ffff,
    );
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, partial);
    check_fault(Gen::Gfx90a, "gfx90a", "", 64);
    check_fault(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
