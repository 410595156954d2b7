//! Pending rows (`src/jit/affine.rs`): a row written on lane-affine facts is stored in the
//! `Wave` only where something reads it there. Each read below is of another kind: a vector
//! ALU instruction not lowered on facts (`vgroup`), a group-major run that reads a pending
//! row in one group after writing it in another, DS accesses whose address row is pending
//! (the inline path and the call), `v_readlane_b32` at a lane known only at run time (read
//! from the `Wave`), and the interpreter after the region leaves before an instruction it
//! does not compile (`v_writelane_b32`), and after the region's `s_endpgm` (`run_words`
//! reads the registers). Every value from the instructions' definitions, lane by lane.

use super::{assemble, v_add_u32, v_addc_u32};
use hsaemu_emu::{jit, run_words, run_words_mem, Gen, WaveRegs};

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}");
    let w32 = lanes == 32;
    let vcc = if w32 { "vcc_lo" } else { "vcc" };
    let gfx10 = mcpu.starts_with("gfx10");
    let (addc, add) = (v_addc_u32(gfx10), v_add_u32(gfx10));
    let text = format!(
        "v_add_co_u32 v2, {vcc}, s2, v0
         v_mov_b32 v3, s3
         {addc} v3, {vcc}, v3, v1, {vcc}
         v_lshlrev_b64 v[4:5], 2, v[2:3]
         v_lshlrev_b32 v6, 2, v0
         v_xor_b32 v12, v2, v3
         v_not_b32 v2, v12
         ds_write_b32 v6, v12
         ds_add_u32 v6, v16
         ds_read_b32 v15, v6
         v_readlane_b32 s20, v4, s21
         v_writelane_b32 v13, s20, 5
         {add} v14, v5, v4
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let lane_bits = if w32 { 0xffff_ffff } else { u64::MAX };
    // Lane 0's ID, s2 and s3: no lane carries (`base + lane + s2` stays below 2^32); then
    // every lane carries.
    // `run_words` runs the DS accesses through the interpreter (the region leaves before
    // them: its stores are journalled), `run_words_mem` in the region.
    let cases = [(0x100u32, 0x1000u32, 7u32), (0x200, 0xffff_f000, 0x11)];
    for ((base, s2, s3), mem) in cases.into_iter().flat_map(|c| [(c, false), (c, true)]) {
        let mut r = WaveRegs::new(gen);
        r.set_exec(lane_bits);
        for l in 0..64 {
            r.v[0][l] = base + l as u32;
            r.v[1][l] = 0;
            for row in 2..16 {
                r.v[row][l] = 0x5555_0000 | (row << 8) as u32 | l as u32;
            }
            r.v[16][l] = 3 * l as u32 + 1;
        }
        (r.s[2], r.s[3], r.s[21]) = (s2, s3, 37);
        // M0: the LDS limit of GFX9's DS accesses (all of it).
        r.s[124] = u32::MAX;
        let old = r.clone();
        let before = jit::stats();
        let ran = if mem {
            let (mut lds, mut global) = (vec![0u8; 65536], vec![0u8; 64]);
            run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        } else {
            run_words(gen, &words, &mut r)
        };
        ran.unwrap_or_else(|e| panic!("{what} (memory {mem}): {e:?}"));
        if jit::checks_single_runs() {
            assert!(
                jit::stats().affine_blocks > before.affine_blocks,
                "{what}: not compiled on lane-affine facts"
            );
        }
        let addr = |l: usize| {
            let (lo, c) = s2.overflowing_add(base + l as u32);
            u64::from(s3 + u32::from(c)) << 32 | u64::from(lo)
        };
        let shifted = |l: usize| addr(l) << 2;
        let read_lane = 37 % lanes;
        let s20 = shifted(read_lane) as u32;
        assert_eq!(r.s[20], s20, "{what}: v_readlane_b32 of v4");
        for l in 0..lanes {
            let a = addr(l);
            let xor = a as u32 ^ (a >> 32) as u32;
            let sh = shifted(l);
            let v13 = if l == 5 { s20 } else { old.v[13][l] };
            let want = [
                (2, !xor),
                (3, (a >> 32) as u32),
                (4, sh as u32),
                (5, (sh >> 32) as u32),
                (6, (base + l as u32) << 2),
                (12, xor),
                (13, v13),
                (14, ((sh >> 32) as u32).wrapping_add(sh as u32)),
                (15, xor.wrapping_add(3 * l as u32 + 1)),
            ];
            for (row, v) in want {
                assert_eq!(r.v[row][l], v, "{what} {base:#x} {mem}: v{row} lane {l}");
            }
        }
    }
}

/// A GLOBAL load into its own pending address row (`global_load_dword v2, v[2:3]`, as
/// gfx1030's vector add does), its window cold: the lanes' addresses are taken from the facts
/// on the general path too, which is generated after the inline path that writes v2 (the
/// `Wave`'s v2, an address 64 bytes further into the buffer, must not be used). Then a
/// GLOBAL atomic at the same pending addresses: a call, which reads them from the `Wave`.
fn check_load_into_address_row(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr} (load)");
    let vcc = if lanes == 32 { "vcc_lo" } else { "vcc" };
    let addc = v_addc_u32(mcpu.starts_with("gfx10"));
    // Then a GLOBAL atomic at the same addresses, a call into the interpreter, which reads
    // its address rows from the `Wave` (where v2 is again 64 bytes further).
    for atomic in [false, true] {
        let access = if atomic {
            "global_atomic_add v[2:3], v4, off"
        } else {
            "global_load_dword v2, v[2:3], off"
        };
        let text = format!(
            "v_lshlrev_b32 v2, 2, v0
             v_add_co_u32 v2, {vcc}, s2, v2
             v_mov_b32 v3, s3
             {addc} v3, {vcc}, v3, v1, {vcc}
             {access}
             s_waitcnt vmcnt(0)
             s_endpgm
"
        );
        let words = assemble(mcpu, attr, &text);
        let word = |k: u32| 0x1000 + 7 * k;
        let mut global: Vec<u8> = (0..80u32).flat_map(|k| word(k).to_le_bytes()).collect();
        let at = global.as_ptr() as u64;
        let mut r = regs_at(gen, lanes, at, |l| l + 1);
        run_words_mem(gen, &words, &mut r, &mut [], &mut global)
            .unwrap_or_else(|e| panic!("{what} (atomic {atomic}): {e:?}"));
        for k in 0..80u32 {
            let l = k as usize;
            let got = u32::from_le_bytes(global[4 * l..4 * l + 4].try_into().expect("a word"));
            let want = if atomic && l < lanes {
                word(k) + k + 1
            } else {
                word(k)
            };
            assert_eq!(got, want, "{what} (atomic {atomic}): word {k}");
            if !atomic && l < lanes {
                assert_eq!(r.v[2][l], word(k), "{what}: v2 lane {l}");
            }
        }
    }
}

/// A GLOBAL load into its own pending address row whose row the next vector instruction
/// reads (`inline_mem.rs`'s `kept_loads`: the loaded groups reach it as values of the
/// access's join): with the addresses aligned (the inline path) and 2 bytes off (the call of
/// the interpreter's fast path, which takes unaligned dwords, and goes on: the join must
/// take v2 from the `Wave`, where the call wrote it, not from v2's fact, the addresses).
fn check_kept_load(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr} (kept load)");
    let vcc = if lanes == 32 { "vcc_lo" } else { "vcc" };
    let gfx10 = mcpu.starts_with("gfx10");
    let (addc, add) = (v_addc_u32(gfx10), v_add_u32(gfx10));
    let text = format!(
        "v_lshlrev_b32 v2, 2, v0
         v_add_co_u32 v2, {vcc}, s2, v2
         v_mov_b32 v3, s3
         {addc} v3, {vcc}, v3, v1, {vcc}
         global_load_dword v2, v[2:3], off
         s_waitcnt vmcnt(0)
         {add} v5, v2, v4
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    for skew in [0u64, 2] {
        let global: Vec<u8> = (0..81u32)
            .flat_map(|k| (0x1000_0000 + 0x0101_0101 * k).to_le_bytes())
            .collect();
        let mut global = global;
        let at = global.as_ptr() as u64 + skew;
        let word = |g: &[u8], l: usize| {
            let o = skew as usize + 4 * l;
            u32::from_le_bytes(g[o..o + 4].try_into().expect("a word"))
        };
        let mut r = regs_at(gen, lanes, at, |l| 3 * l + 1);
        r.v[5] = [0x5555_0000; 64];
        run_words_mem(gen, &words, &mut r, &mut [], &mut global)
            .unwrap_or_else(|e| panic!("{what} (skew {skew}): {e:?}"));
        for l in 0..lanes {
            let x = word(&global, l);
            assert_eq!(r.v[2][l], x, "{what} (skew {skew}): v2 lane {l}");
            let want = x.wrapping_add(3 * l as u32 + 1);
            assert_eq!(r.v[5][l], want, "{what} (skew {skew}): v5 lane {l}");
        }
    }
}

/// Carry-outs to VCC on lane-affine facts (`src/jit/affine.rs`'s `carry_out`): held back
/// while only the next carry-in reads them, stored before a GLOBAL load, and where something
/// else reads VCC: a vector ALU instruction (`v_cndmask_b32`), a scalar one, the interpreter
/// after the region leaves before an instruction it does not compile (`v_writelane_b32`),
/// after the `s_endpgm` (`run_words` reads the registers), and before the carry-in of an
/// add whose lanes do not carry alike (the region leaves before it: the interpreter reads
/// the held carry from VCC). Every value from the definitions, lane by lane.
fn check_carry_reads(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let w32 = lanes == 32;
    let vcc = if w32 { "vcc_lo" } else { "vcc" };
    let addc = v_addc_u32(mcpu.starts_with("gfx10"));
    let readers = [
        format!("v_cndmask_b32 v6, v12, v13, {vcc}"),
        "s_mov_b32 s20, vcc_lo".to_string(),
        format!("v_writelane_b32 v14, s21, 5\nv_cndmask_b32 v6, v12, v13, {vcc}"),
        String::new(),
    ];
    // (s2, s3, s4, s5) and lane 0's ID: the first add carries in every lane or none, the
    // second's lanes carry alike or (the last case) from lane 10 on.
    let base = 0x100u32;
    let cases = [
        (0xffff_ff00u32, 0x7000_0000u32, 0x10u32, 0xffff_ffffu32),
        (0x10, 5, 0xffff_ff00, 0xffff_ffff),
        (
            0xffff_ff00,
            0xffff_ffff - base - 10,
            0xffff_ff00,
            0xffff_fffe,
        ),
    ];
    for (n, reader) in readers.iter().enumerate() {
        let what = format!("{mcpu}{attr} (carries, reader {n})");
        let text = format!(
            "v_add_co_u32 v2, {vcc}, s2, v0
             v_mov_b32 v3, s3
             {addc} v3, {vcc}, v3, v0, {vcc}
             v_add_co_u32 v4, {vcc}, s4, v0
             v_mov_b32 v5, s5
             global_load_dword v8, v[10:11], off
             {addc} v5, {vcc}, v5, v1, {vcc}
             {reader}
             s_endpgm
"
        );
        let words = assemble(mcpu, attr, &text);
        for &(s2, s3, s4, s5) in &cases {
            let mut global: Vec<u8> = (0..64u32).flat_map(|k| (0x700 + k).to_le_bytes()).collect();
            let at = global.as_ptr() as u64;
            let mut r = WaveRegs::new(gen);
            r.set_exec(if w32 { 0xffff_ffff } else { u64::MAX });
            for l in 0..64 {
                r.v[0][l] = base + l as u32;
                r.v[1][l] = 0;
                r.v[10][l] = (at + 4 * l as u64) as u32;
                r.v[11][l] = (at >> 32) as u32;
                r.v[12][l] = 0x1200 + l as u32;
                r.v[13][l] = 0x1300 + l as u32;
            }
            (r.s[2], r.s[3], r.s[4], r.s[5], r.s[21]) = (s2, s3, s4, s5, 9);
            (r.s[106], r.s[107]) = (0x1234_5678, 0x9abc_def0);
            let old = r.clone();
            let before = jit::stats();
            run_words_mem(gen, &words, &mut r, &mut [], &mut global)
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            if jit::checks_single_runs() {
                assert!(
                    jit::stats().affine_blocks > before.affine_blocks,
                    "{what}: not compiled on lane-affine facts"
                );
            }
            let add = |a: u32, b: u32, c: u32| u64::from(a) + u64::from(b) + u64::from(c);
            let mut vcc_want = 0u64;
            for l in 0..lanes {
                let v0 = base + l as u32;
                let a = add(s2, v0, 0);
                let b = add(s3, v0, (a >> 32) as u32);
                let c = add(s4, v0, 0);
                let d = add(s5, 0, (c >> 32) as u32);
                let carry = (d >> 32) as u32;
                vcc_want |= u64::from(carry) << l;
                let v6 = match n {
                    0 | 2 if carry != 0 => 0x1300 + l as u32,
                    0 | 2 => 0x1200 + l as u32,
                    _ => old.v[6][l],
                };
                let want = [
                    (2, a as u32),
                    (3, b as u32),
                    (4, c as u32),
                    (5, d as u32),
                    (6, v6),
                    (8, 0x700 + l as u32),
                ];
                for (row, v) in want {
                    assert_eq!(r.v[row][l], v, "{what} {s2:#x}: v{row} lane {l}");
                }
            }
            assert_eq!(r.s[106], vcc_want as u32, "{what} {s2:#x}: vcc_lo");
            let hi = if w32 {
                old.s[107]
            } else {
                (vcc_want >> 32) as u32
            };
            assert_eq!(r.s[107], hi, "{what} {s2:#x}: vcc_hi");
            let s20 = if n == 1 { vcc_want as u32 } else { old.s[20] };
            assert_eq!(r.s[20], s20, "{what} {s2:#x}: s20");
        }
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn pending_rows_are_stored_where_they_are_read() {
    check_carry_reads(Gen::Gfx90a, "gfx90a", "", 64);
    check_carry_reads(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_carry_reads(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_load_into_address_row(Gen::Gfx90a, "gfx90a", "", 64);
    check_load_into_address_row(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_kept_load(Gen::Gfx90a, "gfx90a", "", 64);
    check_kept_load(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}

/// The registers of the accesses above: EXEC full, v0 the lane, v1 0, v[2:3] lane `l`'s
/// address `at + 4·(l + 16)`, v4 `v4(l)`, s[2:3] `at`.
fn regs_at(gen: Gen, lanes: usize, at: u64, v4: impl Fn(u32) -> u32) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 32 { 0xffff_ffff } else { u64::MAX });
    for l in 0..64 {
        r.v[0][l] = l as u32;
        r.v[1][l] = 0;
        r.v[2][l] = (at + 4 * (l as u64 + 16)) as u32;
        r.v[3][l] = (at >> 32) as u32;
        r.v[4][l] = v4(l as u32);
    }
    (r.s[2], r.s[3]) = (at as u32, (at >> 32) as u32);
    r
}
