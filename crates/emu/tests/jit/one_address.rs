//! GLOBAL loads whose lanes all address one place (the reduction's `global_load_ushort v4,
//! v1, s[0:1]` of the dispatch packet's work-group size, v1 = 0 in every lane): read once
//! (`inline_mem.rs`'s `one_address`), the value in every lane. Bytes and shorts zero- and
//! sign-extended, a dword through a 64-bit VGPR address, dwordx2 and dwordx4, and a dword
//! under a partial EXEC, whose inactive lanes keep their value. Expected registers from the
//! definition (each lane's element at its address), and no call into the interpreter.

use super::{assemble, want_inline_run, word};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

/// The loads twice, in a loop back over their 21 words (the first pass through a load finds its window empty and
/// fills it; the second runs from it).
fn program(wave32: bool) -> String {
    let (exec, part, all) = if wave32 {
        ("exec_lo", "s4", "s6")
    } else {
        ("exec", "s[4:5]", "s[6:7]")
    };
    format!(
        "s_mov_b32 s20, 0
         global_load_ushort v1, v2, s[0:1]
         global_load_sshort v3, v2, s[0:1] offset:2
         global_load_ubyte v4, v2, s[0:1] offset:1
         global_load_sbyte v5, v2, s[0:1] offset:3
         global_load_dword v6, v[8:9], off
         global_load_dwordx2 v[10:11], v2, s[0:1] offset:8
         global_load_dwordx4 v[12:15], v2, s[0:1] offset:16
         s_mov_b64 {exec}, {part}
         global_load_dword v16, v2, s[0:1] offset:32
         s_mov_b64 {exec}, {all}
         s_add_u32 s20, s20, 1
         s_cmp_lt_u32 s20, 2
         s_cbranch_scc1 -21
         s_endpgm
"
    )
    .replace("s_mov_b64 exec_lo", "s_mov_b32 exec_lo")
}

/// Byte `b` of the global words (`word(k)` at byte 4k, little-endian).
fn byte(b: usize) -> u8 {
    word(b / 4).to_le_bytes()[b % 4]
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let words = assemble(mcpu, attr, &program(lanes == 32));
    let mut global = vec![0u8; 4 * 128];
    for k in 0..128 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let full = if lanes == 64 { u64::MAX } else { 0xffff_ffff };
    // Every third lane, and lane 1.
    let part = 0x9249_2492_4924_9249u64 & full | 2;
    let mut r = WaveRegs::new(gen);
    r.set_exec(full);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[4], r.s[5]) = (part as u32, (part >> 32) as u32);
    (r.s[6], r.s[7]) = (full as u32, (full >> 32) as u32);
    let at = 4 * 40;
    let a41 = base + 4 * 41;
    for l in 0..64 {
        r.v[2][l] = at as u32;
        (r.v[8][l], r.v[9][l]) = (a41 as u32, (a41 >> 32) as u32);
        r.v[16][l] = 0xdead_0000 + l as u32;
    }
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_inline_run(&before, &what);
    assert_eq!(r.s[20], 2, "{what}: the loop's count");
    let short = |b: usize| u16::from_le_bytes([byte(b), byte(b + 1)]);
    for l in 0..lanes {
        let ctx = format!("{what} lane {l}");
        assert_eq!(r.v[1][l], u32::from(short(at)), "{ctx}: ushort");
        assert_eq!(r.v[3][l], short(at + 2) as i16 as u32, "{ctx}: sshort");
        assert_eq!(r.v[4][l], u32::from(byte(at + 1)), "{ctx}: ubyte");
        assert_eq!(r.v[5][l], byte(at + 3) as i8 as u32, "{ctx}: sbyte");
        assert_eq!(r.v[6][l], word(41), "{ctx}: dword, 64-bit address");
        assert_eq!(
            [r.v[10][l], r.v[11][l]],
            [word(42), word(43)],
            "{ctx}: dwordx2"
        );
        assert_eq!(
            [r.v[12][l], r.v[13][l], r.v[14][l], r.v[15][l]],
            [word(44), word(45), word(46), word(47)],
            "{ctx}: dwordx4"
        );
        let want = if part >> l & 1 != 0 {
            word(48)
        } else {
            0xdead_0000 + l as u32
        };
        assert_eq!(r.v[16][l], want, "{ctx}: dword under a partial EXEC");
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn loads_of_one_address_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
