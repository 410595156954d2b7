//! SMEM loads from one base pair in a basic block share one range check (`inline_mem.rs`'s
//! `smem_groups`): the first load checks the group's whole range and the later ones skip
//! their own check when it held. Values from the definition (each load's dwords at its
//! base plus offset), and the interpreter's fault where a later load's address is outside
//! the registered memory: after a load that overwrote the base pair (its group ended there),
//! and where the group's whole range is not mapped though the first load's is.

use super::{assemble, want_compiled_run, word};
use hsaemu_emu::{jit, run_words_mem, FaultKind, Gen, WaveRegs};

/// Twice (the second pass finds the windows the first filled): four loads from s[2:3] (the
/// last one, past a conditional branch never taken, in the next basic block, overwrites it
/// with the pointer at byte 16), two from the new s[2:3], and a store of v[12:13] over that
/// pointer for the second pass.
const PROGRAM: &str = "s_mov_b32 s20, 0
     s_mov_b64 s[2:3], s[0:1]
     s_load_dword s4, s[2:3], 0x2c
     s_load_dwordx2 s[6:7], s[2:3], 0x48
     s_load_dword s5, s[2:3], 0x18
     s_cmp_eq_u32 s20, 7
     s_cbranch_scc1 13
     s_load_dwordx2 s[2:3], s[2:3], 0x10
     s_waitcnt lgkmcnt(0)
     s_load_dword s8, s[2:3], 0x4
     s_load_dword s9, s[2:3], 0xc
     s_waitcnt lgkmcnt(0)
     global_store_dwordx2 v10, v[12:13], s[0:1] offset:16
     s_add_u32 s20, s20, 1
     s_cmp_lt_u32 s20, 2
     s_cbranch_scc1 -22
     s_endpgm
";

/// A load at a branch target after a load from the same base pair: a path from elsewhere
/// reaches it with another base (the third pass: s[2:3] from s[12:13]), so its check is its
/// own. Passes: s[2:3] = s[0:1], then s[10:11], then s[12:13] at the second load alone.
const TARGET: &str = "s_mov_b32 s20, 0
     s_mov_b64 s[2:3], s[0:1]
     s_load_dword s4, s[2:3], 0x0
     s_load_dword s6, s[2:3], 0x10
     s_waitcnt lgkmcnt(0)
     s_mov_b64 s[2:3], s[10:11]
     s_mov_b64 s[10:11], s[12:13]
     s_add_u32 s20, s20, 1
     s_cmp_eq_u32 s20, 1
     s_cbranch_scc1 -10
     s_cmp_eq_u32 s20, 2
     s_cbranch_scc1 -10
     s_endpgm
";

/// A 32-bit scalar write into the base pair between two loads: twice, the second pass
/// moving its low half past the registered bytes; the second load's check is its own.
const SALU: &str = "s_mov_b32 s20, 0
     s_mov_b32 s14, 0
     s_mov_b64 s[2:3], s[0:1]
     s_load_dword s4, s[2:3], 0x0
     s_add_u32 s2, s2, s14
     s_load_dword s5, s[2:3], 0x4
     s_waitcnt lgkmcnt(0)
     s_movk_i32 s14, 0x1000
     s_add_u32 s20, s20, 1
     s_cmp_lt_u32 s20, 2
     s_cbranch_scc1 -11
     s_endpgm
";

/// Registered memory: 4096 bytes of words (`word`), at the start of a host buffer twice
/// that size (a load the check let through past the registered bytes would read the rest
/// without faulting).
const MAPPED: usize = 4096;

/// Runs `PROGRAM` with the pointer at byte 16 `first` bytes into the buffer and then
/// `second` bytes: the registers, or the fault and its address's offset in the buffer.
fn run(
    gen: Gen,
    words: &[u32],
    lanes: usize,
    first: u64,
    second: u64,
) -> Result<WaveRegs, (FaultKind, u64)> {
    run_with(gen, words, lanes, first, second, [0, 0])
}

/// `run`, with s[10:11] and s[12:13] `pairs[0]` and `pairs[1]` bytes into the buffer.
fn run_with(
    gen: Gen,
    words: &[u32],
    lanes: usize,
    first: u64,
    second: u64,
    pairs: [u64; 2],
) -> Result<WaveRegs, (FaultKind, u64)> {
    let mut host = vec![0u8; 2 * MAPPED];
    for k in 0..MAPPED / 4 {
        host[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = host.as_ptr() as u64;
    let p1 = base + first;
    host[16..24].copy_from_slice(&p1.to_le_bytes());
    let p2 = base + second;
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for (k, p) in pairs.iter().enumerate() {
        let a = base + p;
        (r.s[10 + 2 * k], r.s[11 + 2 * k]) = (a as u32, (a >> 32) as u32);
    }
    for l in 0..64 {
        r.v[10][l] = 0;
        (r.v[12][l], r.v[13][l]) = (p2 as u32, (p2 >> 32) as u32);
    }
    match run_words_mem(gen, words, &mut r, &mut [], &mut host[..MAPPED]) {
        Ok(_) => Ok(r),
        Err(e @ FaultKind::MemoryViolation { address, .. }) => Err((e, address.wrapping_sub(base))),
        Err(e) => Err((e, u64::MAX)),
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let words = assemble(mcpu, attr, PROGRAM);
    // Both pointers inside: every value from the definition.
    let before = jit::stats();
    let r = run(gen, &words, lanes, 1024, 2048).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    assert_eq!(r.s[20], 2, "{what}: the loop's count");
    assert_eq!(r.s[4], word(0x2c / 4), "{what}: s4");
    assert_eq!([r.s[6], r.s[7]], [word(18), word(19)], "{what}: s[6:7]");
    assert_eq!(r.s[5], word(6), "{what}: s5");
    assert_eq!(
        r.s[8],
        word((2048 + 4) / 4),
        "{what}: s8 from the second pointer"
    );
    assert_eq!(
        r.s[9],
        word((2048 + 12) / 4),
        "{what}: s9 from the second pointer"
    );
    // The second pass's pointer at the end of the registered bytes: s8's load, whose base
    // the group's last load wrote, faults (its check is its own).
    let e = run(gen, &words, lanes, 1024, MAPPED as u64).expect_err("past the mapping");
    assert!(
        matches!(e.0, FaultKind::MemoryViolation { write: false, .. }),
        "{what}: {e:?}"
    );
    assert_eq!(e.1, MAPPED as u64 + 4, "{what}: s8's address");
    // The first pointer 8 bytes before the end: s8's dword is mapped, s9's is not, so the
    // pair's whole range is not; s9 checks its own and faults.
    let e = run(gen, &words, lanes, MAPPED as u64 - 8, 2048).expect_err("s9 past the end");
    assert!(
        matches!(e.0, FaultKind::MemoryViolation { write: false, .. }),
        "{what}: {e:?}"
    );
    assert_eq!(e.1, MAPPED as u64 + 4, "{what}: s9's address");
    // The load at a branch target: values from the definition, then its third pass's base
    // 8 bytes before the end (its dword past it).
    let words = assemble(mcpu, attr, TARGET);
    let r = run_with(gen, &words, lanes, 0, 0, [1024, 2048])
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(r.s[20], 3, "{what}: the passes");
    assert_eq!(r.s[4], word(1024 / 4), "{what}: s4 in the second pass");
    assert_eq!(
        r.s[6],
        word((2048 + 16) / 4),
        "{what}: s6 in the third pass"
    );
    let e = run_with(gen, &words, lanes, 0, 0, [1024, MAPPED as u64 - 8])
        .expect_err("a branch target's own check");
    assert!(
        matches!(e.0, FaultKind::MemoryViolation { write: false, .. }),
        "{what}: {e:?}"
    );
    assert_eq!(e.1, MAPPED as u64 + 8, "{what}: s6's address");
    let words = assemble(mcpu, attr, SALU);
    let e = run(gen, &words, lanes, 0, 0).expect_err("a base moved by s_add_u32");
    assert!(
        matches!(e.0, FaultKind::MemoryViolation { write: false, .. }),
        "{what}: {e:?}"
    );
    // (The low half's carry is lost when the buffer sits below a 4 GiB line.)
    if e.1 < 1 << 32 {
        assert_eq!(e.1, MAPPED as u64 + 4, "{what}: s5's address");
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn smem_loads_sharing_a_check_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
