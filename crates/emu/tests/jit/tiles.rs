//! Rows in 16-lane tiles (`tiles.rs`): lane `l` holds `base + sx·(l mod 16) + sy·(l / 16)`,
//! as a 16×16 work-group's IDs and the addresses made from them (gfx90a's matmul loop:
//! four rows of 16 on wave64, two on wave32). The loop below is that loop's address
//! arithmetic (a 32-bit add, `v_lshlrev_b64`, `v_add_co`/`v_addc_co` of an SGPR pair) and
//! its two tile loads, run twice; the region is compiled with the rows' shapes as the wave
//! holds them and tests them at the loop's start; two DS stores through tile addresses
//! (their range from the corners). Near misses: a lane of the second (or
//! third) tile row off the shape (the test must look at every row), rows in descending
//! order (`sy` negative, still a tile), carries and a 64-bit shift that differ between the
//! corner lanes (the region leaves before the instruction), and a tile whose last lane is
//! one dword past the end of the buffer (in the first pass and in the second) or of the LDS (the fault the interpreter reports:
//! that lane's address). Expected values from the definitions (each lane's dword at its address,
//! 64-bit sums), and `run_words` compares every register with the interpreter's.

use super::fma_nan::fma;
use super::{assemble, v_add_u32, v_addc_u32, want_compiled_run, want_dword_fault, word};
use hsaemu_emu::{jit, run_words, run_words_mem, FaultKind, Gen, WaveRegs};
use std::ops::Range;

/// Words per matrix row of the tiles.
const N: usize = 32;

/// The loop (its last add breaks v11's shape when v21 is not uniform, `setup`).
fn program(gfx10: bool, wave32: bool) -> String {
    // Back to the loop's first instruction: 25 dwords (27 on GFX10, whose `v_add_co_u32`
    // is VOP3 only) and the branch.
    let back = if gfx10 { -28 } else { -26 };
    let v11 = format!("{} v11, v11, v21", v_add_u32(gfx10));
    address_loop(gfx10, wave32, "", &v11, 2, back)
}

/// The address arithmetic and tile loads of `program`'s loop, `passes` times, with `head`
/// before the loop and `v11` (v11's update) in it; `back` jumps to the loop's start.
fn address_loop(
    gfx10: bool,
    wave32: bool,
    head: &str,
    v11: &str,
    passes: u32,
    back: i32,
) -> String {
    let add = v_add_u32(gfx10);
    let addc = v_addc_u32(gfx10);
    let vcc = if wave32 { "vcc_lo" } else { "vcc" };
    format!(
        "s_mov_b32 s20, 0
         {head}
         {add} v2, s5, v11
         v_lshlrev_b64 v[12:13], 2, v[2:3]
         v_mov_b32 v16, s1
         v_mov_b32 v1, v3
         v_add_co_u32 v12, {vcc}, s0, v12
         v_lshlrev_b64 v[14:15], 2, v[0:1]
         {addc} v13, {vcc}, v16, v13, {vcc}
         v_mov_b32 v17, s3
         v_add_co_u32 v14, {vcc}, s2, v14
         {addc} v15, {vcc}, v17, v15, {vcc}
         global_load_dword v1, v[12:13], off
         global_load_dword v2, v[14:15], off
         s_waitcnt vmcnt(0)
         ds_write_b32 v8, v1
         ds_write_b32 v10, v2
         {add} v0, s7, v0
         {v11}
         s_add_u32 s20, s20, 1
         s_cmp_lt_u32 s20, {passes}
         s_cbranch_scc1 {back}
         s_endpgm
"
    )
}

/// Lane `l`'s tile index: column `l mod 16` of row `l / 16`, rows `N` words apart (or
/// descending from row 3 when `down`).
fn tile(l: usize, down: bool) -> usize {
    let y = if down { 3 - l / 16 } else { l / 16 };
    l % 16 + N * y
}

/// The wave: v11 = the tile index, v0 = it plus 1, v3 = 0, s5 = 3, s7 = 16, s[0:1] =
/// s[2:3] = `base`; v21 = 1 in lanes `broken` (a range), else 0: the loop's end adds it to v11, so the
/// second pass finds that lane off the tile (the region was compiled for the first pass's
/// tile: its test at the loop's start must see the lane).
fn setup(gen: Gen, base: u64, down: bool, broken: Option<Range<usize>>) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    for l in 0..64 {
        let t = tile(l, down) as u32;
        r.v[11][l] = t;
        r.v[21][l] = u32::from(broken.as_ref().is_some_and(|b| b.contains(&l)));
        // LDS addresses: a 16×16 tile of dwords and a second one after it.
        r.v[8][l] = (64 * (l / 16) + 4 * (l % 16)) as u32;
        r.v[10][l] = r.v[8][l] + 0x400;
        r.v[0][l] = t + 1;
        r.v[3][l] = 0;
        // Data, not a shape.
        r.v[1][l] = 0x9e37_79b9u32.rotate_left(l as u32);
    }
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[2], r.s[3]) = (r.s[0], r.s[1]);
    r.s[5] = 3;
    r.s[7] = 16;
    r
}

fn check_loads(
    gen: Gen,
    mcpu: &str,
    attr: &str,
    lanes: usize,
    down: bool,
    broken: Option<Range<usize>>,
) {
    let what = format!("{mcpu}{attr} down {down} broken {broken:?}");
    let words = assemble(mcpu, attr, &program(!attr.is_empty(), lanes == 32));
    let mut global = vec![0u8; 4 * 512];
    for k in 0..512 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = setup(gen, base, down, broken.clone());
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    let mut lds = vec![0u8; 2048];
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    if jit::checks_single_runs() {
        assert!(
            jit::stats().affine_blocks > before.affine_blocks,
            "{what}: no block on facts"
        );
    }
    assert_eq!(r.s[20], 2, "{what}: the loop's count");
    for l in 0..lanes {
        let ctx = format!("{what} lane {l}");
        let a = tile(l, down) + 3 + usize::from(broken.as_ref().is_some_and(|b| b.contains(&l)));
        let b = tile(l, down) + 1 + 16;
        assert_eq!(r.v[1][l], word(a), "{ctx}: v1, the first load");
        let lds_at = |k: usize| u32::from_le_bytes(lds[k..k + 4].try_into().expect("4 bytes"));
        let d = 64 * (l / 16) + 4 * (l % 16);
        assert_eq!(lds_at(d), word(a), "{ctx}: the first DS store");
        assert_eq!(lds_at(0x400 + d), word(b), "{ctx}: the second DS store");
        assert_eq!(r.v[2][l], word(b), "{ctx}: v2, the second load");
        assert_eq!(r.v[0][l], tile(l, down) as u32 + 1 + 32, "{ctx}: v0");
        let a12 = base + 4 * a as u64;
        let a14 = base + 4 * b as u64;
        assert_eq!(
            (r.v[12][l], r.v[13][l]),
            (a12 as u32, (a12 >> 32) as u32),
            "{ctx}: v[12:13]"
        );
        assert_eq!(
            (r.v[14][l], r.v[15][l]),
            (a14 as u32, (a14 >> 32) as u32),
            "{ctx}: v[14:15]"
        );
    }
}

/// The first load's last lane one dword past the end of the buffer (the first pass, whose
/// window is empty), or the second load's in the second pass (`second`; the window filled
/// by the first): the fault is that lane's address, as the interpreter reports it.
fn check_fault(gen: Gen, mcpu: &str, attr: &str, lanes: usize, second: bool) {
    let what = format!("{mcpu}{attr}: past the end, second {second}");
    let words = assemble(mcpu, attr, &program(!attr.is_empty(), lanes == 32));
    let last = tile(lanes - 1, false) + if second { 1 + 16 } else { 3 };
    let mut global = vec![0u8; 4 * last];
    for k in 0..last {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = setup(gen, base, false, None);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    let mut lds = vec![0u8; 2048];
    let e = run_words_mem(gen, &words, &mut r, &mut lds, &mut global).expect_err("past the end");
    want_dword_fault(e, base + 4 * last as u64, false, &what);
}

/// The second DS store's last lane one dword past the end of the LDS (its range from the
/// tile's corners): the fault is that lane's offset, as the interpreter reports it.
fn check_ds_fault(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let what = format!("{mcpu}{attr}: DS past the end");
    let words = assemble(mcpu, attr, &program(!attr.is_empty(), lanes == 32));
    let mut global = vec![0u8; 4 * 512];
    let base = global.as_ptr() as u64;
    let mut r = setup(gen, base, false, None);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    let last = 0x400 + 64 * ((lanes - 1) / 16) + 4 * 15;
    let mut lds = vec![0u8; last];
    let e = run_words_mem(gen, &words, &mut r, &mut lds, &mut global).expect_err("DS past the end");
    want_lds_end_fault(e, last, &what);
}

/// The fault of a dword DS access at `last`, the end of an LDS of `last` bytes.
fn want_lds_end_fault(e: FaultKind, last: usize, what: &str) {
    let want = FaultKind::LdsOutOfRange {
        offset: last as u64,
        size: 4,
        lds_size: last as u32,
    };
    assert_eq!(e, want, "{what}");
}

/// The address arithmetic alone with `s[0:1]` a carry line inside the tile's range (some
/// lanes carry into the high half, others not), v2's lanes on both sides of 2^30 (the
/// 64-bit shift moves different bits into the high halves) or of 2^32 (the tile wraps):
/// the corner tests fail and the interpreter runs those instructions; then the same with
/// uniform carries. Then a second `v_add_co_u32` of v12 and s8 (0), whose corners come
/// from the first's (exact, so it makes no range test of its own): its carry in v19. Last
/// v2 plus s9 (2^32 − 1), which carries in every lane but where v2 is 0: the carry-out
/// VCC every lane's (`tiles.rs`' mask from the carry), read into v22.
fn alu_program(gfx10: bool, wave32: bool) -> String {
    let add = v_add_u32(gfx10);
    let addc = v_addc_u32(gfx10);
    let vcc = if wave32 { "vcc_lo" } else { "vcc" };
    format!(
        "{add} v2, s5, v11
         v_lshlrev_b64 v[12:13], 2, v[2:3]
         v_mov_b32 v16, s1
         v_add_co_u32 v12, {vcc}, s0, v12
         {addc} v13, {vcc}, v16, v13, {vcc}
         {add} v4, v2, v2
         v_lshl_add_u32 v5, v11, 4, v2
         v_add3_u32 v6, v11, s5, v2
         v_add_co_u32 v18, {vcc}, s8, v12
         v_cndmask_b32_e64 v19, 0, 1, {vcc}
         v_add_co_u32 v20, {vcc}, s9, v2
         v_cndmask_b32_e64 v22, 0, 1, {vcc}
         s_endpgm
"
    )
}

fn check_alu(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, &alu_program(!attr.is_empty(), lanes == 32));
    // (s0, v11's lane 0, its column step): a carry line crossed inside the tile (the lanes
    // from 16·4 bytes on carry), v2 crossing 2^30 inside the tile, the tile itself wrapping
    // at 2^32, none of these; then a wrap the corners' 32-bit values hide: `sx` is
    // (32 - 2^32) / 15, so lane 15 is lane 0 plus 32 modulo 2^32 (the same top bits, no
    // carry) while lane 1 is 0xeeee_ef00 (the shift moves 3 into its high half). And
    // two whose corners the next tests take from the one before: v2's top bits 01 in
    // every lane (the shifted corners are modulo 2^32), and every lane of v12 carrying
    // (its corners are the sums less 2^32: the second add carries in none).
    let hidden = 0u32.wrapping_sub(286_331_152);
    for (s0, t0, sx) in [
        (0xffff_ff00u32, 0u32, 1u32),
        (0, 0x3fff_fff0, 1),
        (0x1000, 0xffff_ffd0, 1),
        (0x1000, 0x100, 1),
        (0x1000, 0xd, hidden),
        (0x1000, 0x4000_0100, 1),
        (0xf000_0000, 0x0800_0000, 1),
    ] {
        let what = format!("{mcpu}{attr} s0 {s0:#x} v11 {t0:#x} sx {sx:#x}");
        // Rows N apart as `tile`'s.
        let v11_at = |l: usize| {
            t0.wrapping_add(sx.wrapping_mul((l % 16) as u32))
                .wrapping_add((N * (l / 16)) as u32)
        };
        let mut r = WaveRegs::new(gen);
        for l in 0..64 {
            r.v[11][l] = v11_at(l);
            r.v[3][l] = 0;
        }
        (r.s[0], r.s[1], r.s[5], r.s[8], r.s[9]) = (s0, 7, 3, 0, u32::MAX);
        r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        want_compiled_run(&before, &what);
        for l in 0..lanes {
            let ctx = format!("{what} lane {l}");
            let v11 = v11_at(l);
            let v2 = v11.wrapping_add(3);
            let sum = ((7u64 << 32) | u64::from(s0)).wrapping_add(u64::from(v2) << 2);
            assert_eq!(r.v[2][l], v2, "{ctx}: v2");
            assert_eq!(
                (r.v[12][l], r.v[13][l]),
                (sum as u32, (sum >> 32) as u32),
                "{ctx}: v[12:13]"
            );
            assert_eq!(r.v[4][l], v2.wrapping_add(v2), "{ctx}: v4");
            assert_eq!(r.v[5][l], (v11 << 4).wrapping_add(v2), "{ctx}: v5");
            assert_eq!(r.v[6][l], v11.wrapping_add(3).wrapping_add(v2), "{ctx}: v6");
            assert_eq!(r.v[18][l], sum as u32, "{ctx}: v18 (s8 is 0)");
            assert_eq!(r.v[19][l], 0, "{ctx}: v19, v18's carry");
            let (v20, carry) = v2.overflowing_add(u32::MAX);
            assert_eq!(r.v[20][l], v20, "{ctx}: v20");
            assert_eq!(r.v[22][l], u32::from(carry), "{ctx}: v22, v20's carry");
        }
    }
}

/// A DS/FMA block alone (matmul's loop between its barriers: `ds_read2_b32`s through an
/// A row `v7 = 64·y` and a B column `v9 = 0x400 + 4·x`, both tiles, and `v_fmac_f32`s),
/// run twice. Such a block has too few instructions on tiles for a tile plan, so its DS
/// loads keep their shape and range passes (a plan testing the two rows as tiles instead
/// cost more: docs/architecture-emu.md, jitmm10); this pins the values and faults for
/// whichever way they are checked. With `move_a` the loop's end adds 64 to v7 (the next
/// A row, still a tile; v7's loads are then not in a run: the region writes it), from
/// s21, or with `broken` from v21, which has 4 more in one lane (the second pass finds
/// that lane off the shape). Without it every load is in the run (`ds_run_checks`).
fn ds_program(gfx10: bool, move_a: bool, broken: bool) -> String {
    let add = v_add_u32(gfx10);
    let (step, back) = match (move_a, broken) {
        (false, _) => (String::new(), -17),
        (true, false) => (format!("{add} v7, s21, v7"), -18),
        (true, true) => (format!("{add} v7, v7, v21"), -18),
    };
    format!(
        "s_mov_b32 s20, 0
         ds_read2_b32 v[12:13], v7 offset1:1
         ds_read2_b32 v[14:15], v9 offset1:16
         s_waitcnt lgkmcnt(0)
         v_fmac_f32 v5, v12, v14
         v_fmac_f32 v5, v13, v15
         ds_read2_b32 v[12:13], v7 offset0:2 offset1:3
         ds_read2_b32 v[14:15], v9 offset0:32 offset1:48
         s_waitcnt lgkmcnt(0)
         v_fmac_f32 v5, v12, v14
         v_fmac_f32 v5, v13, v15
         {step}
         s_add_u32 s20, s20, 1
         s_cmp_lt_u32 s20, 2
         s_cbranch_scc1 {back}
         s_endpgm
"
    )
}

/// LDS dword `k`: ordinary floats.
fn lds_word(k: usize) -> u32 {
    (0.75 + (k % 89) as f32 * 0.5).to_bits()
}

fn ds_setup(gen: Gen, lanes: usize, broken: Option<usize>) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        r.v[7][l] = 64 * (l as u32 / 16);
        r.v[9][l] = 0x400 + 4 * (l as u32 % 16);
        r.v[5][l] = (1.0 + l as f32).to_bits();
        r.v[21][l] = 64 + 4 * u32::from(broken == Some(l));
    }
    r.s[21] = 64;
    r
}

fn check_ds_rows(
    gen: Gen,
    mcpu: &str,
    attr: &str,
    lanes: usize,
    move_a: bool,
    broken: Option<usize>,
) {
    let what = format!("{mcpu}{attr} DS rows as tiles, move {move_a} broken {broken:?}");
    let words = assemble(
        mcpu,
        attr,
        &ds_program(!attr.is_empty(), move_a, broken.is_some()),
    );
    let mut r = ds_setup(gen, lanes, broken);
    let old = r.clone();
    let mut lds: Vec<u8> = (0..512).flat_map(|k| lds_word(k).to_le_bytes()).collect();
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut [0; 64])
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    assert_eq!(r.s[20], 2, "{what}: the loop's count");
    for l in 0..lanes {
        let b = old.v[9][l] as usize / 4;
        let mut a = old.v[7][l] as usize / 4;
        let mut acc = old.v[5][l];
        let mut last = [0; 4];
        for _pass in 0..2 {
            last = [
                lds_word(a),
                lds_word(a + 1),
                lds_word(a + 2),
                lds_word(a + 3),
            ];
            for (k, &x) in last.iter().enumerate() {
                acc = fma(x, lds_word(b + 16 * k), acc);
            }
            if move_a {
                a += old.v[21][l] as usize / 4;
            }
        }
        let want = [
            (5, acc),
            (12, last[2]),
            (13, last[3]),
            (14, lds_word(b + 32)),
            (15, lds_word(b + 48)),
            (7, 4 * a as u32),
        ];
        for (reg, x) in want {
            assert_eq!(r.v[reg][l], x, "{what}: v{reg} lane {l}");
        }
    }
}

/// The same with the LDS one dword short of v9's last element (`offset1:48`) in the last
/// column's lanes: the interpreter's fault, the first such lane's address (the tier's
/// range check before the run must see it).
fn check_ds_rows_fault(gen: Gen, mcpu: &str, attr: &str, lanes: usize, move_a: bool) {
    let what = format!("{mcpu}{attr} DS rows as tiles past the end, move {move_a}");
    let words = assemble(mcpu, attr, &ds_program(!attr.is_empty(), move_a, false));
    let mut r = ds_setup(gen, lanes, None);
    let last = 0x400 + 4 * 15 + 4 * 48;
    let mut lds: Vec<u8> = (0..last / 4)
        .flat_map(|k| lds_word(k).to_le_bytes())
        .collect();
    let e =
        run_words_mem(gen, &words, &mut r, &mut lds, &mut [0; 64]).expect_err("DS past the end");
    want_lds_end_fault(e, last, &what);
}

/// `program`'s loop with the row it tests as a tile (v11) rewritten by the interpreter
/// between the loop region's calls (`v_bcnt_u32_b32`, which has no lowering, adds the bits
/// of v21; v21 is 0 in the first pass, v22 from the second on): the region at the loop's
/// head writes no v11, so it marks v11 once tested (`Wave::tile_marks`) and the next call
/// skips the test while the mark holds; the interpreter's write must clear it, so the third
/// pass tests v11 again, misses and runs the general variant. Three passes: the region is
/// compiled in the second (with v11 a tile), marks in it, and the third sees the broken
/// lanes.
fn marks_program(gfx10: bool, wave32: bool) -> String {
    // Back to the loop's first instruction: `program`'s 25 dwords (27 on GFX10) less its
    // one-dword add of v11, plus the two-dword `v_bcnt_u32_b32` and a `v_mov_b32`.
    let back = if gfx10 { -30 } else { -28 };
    address_loop(
        gfx10,
        wave32,
        "v_mov_b32 v21, 0",
        "v_bcnt_u32_b32 v11, v21, v11
         v_mov_b32 v21, v22",
        3,
        back,
    )
}

/// [`marks_program`] with lanes `broken` of v22 one (so v11 is off the tile there in the
/// third pass), or none.
fn check_marks(gen: Gen, mcpu: &str, attr: &str, lanes: usize, broken: Option<Range<usize>>) {
    let what = format!("{mcpu}{attr}: tile marks, v11 rewritten in lanes {broken:?}");
    let words = assemble(mcpu, attr, &marks_program(!attr.is_empty(), lanes == 32));
    let mut global = vec![0u8; 4 * 512];
    for k in 0..512 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = setup(gen, base, false, None);
    let off = |l: usize| usize::from(broken.as_ref().is_some_and(|b| b.contains(&l)));
    for l in 0..64 {
        r.v[22][l] = off(l) as u32;
    }
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    let mut lds = vec![0u8; 2048];
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    assert_eq!(r.s[20], 3, "{what}: the loop's count");
    for l in 0..lanes {
        let ctx = format!("{what} lane {l}");
        let t = tile(l, false);
        // The third pass loads through v11 as the second pass's end left it.
        assert_eq!(r.v[1][l], word(t + 3 + off(l)), "{ctx}: v1, the first load");
        assert_eq!(r.v[11][l], (t + 2 * off(l)) as u32, "{ctx}: v11");
        assert_eq!(r.v[2][l], word(t + 1 + 32), "{ctx}: v2, the second load");
    }
}

/// `ds_program`'s loop (without a move) with its uniform DS address row v7 rewritten by the
/// interpreter between the loop region's calls (`v_bcnt_u32_b32` adds the bits of v21: 0
/// in the first pass, v22 from the second on): the region at the loop's head writes no v7,
/// so its run check keeps v7's shape and highest lane (`Wave::ds_marks`, `ds_tops`) and the
/// next call skips the pass over its lanes; the interpreter's write must clear the mark,
/// so the third pass finds the lanes v22 moved off the shape and leaves the run to the
/// interpreter. Three passes, as in `marks_program`.
fn ds_marks_program(gfx10: bool) -> String {
    let _ = gfx10;
    // Back to the loop's first instruction: `ds_program`'s 16 dwords, the two-dword
    // `v_bcnt_u32_b32`, a `v_mov_b32` and the branch.
    "s_mov_b32 s20, 0
     v_mov_b32 v21, 0
     ds_read2_b32 v[12:13], v7 offset1:1
     ds_read2_b32 v[14:15], v9 offset1:16
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v12, v14
     v_fmac_f32 v5, v13, v15
     ds_read2_b32 v[12:13], v7 offset0:2 offset1:3
     ds_read2_b32 v[14:15], v9 offset0:32 offset1:48
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v5, v12, v14
     v_fmac_f32 v5, v13, v15
     v_bcnt_u32_b32 v7, v21, v7
     v_mov_b32 v21, v22
     s_add_u32 s20, s20, 1
     s_cmp_lt_u32 s20, 3
     s_cbranch_scc1 -20
     s_endpgm
"
    .to_string()
}

/// [`ds_marks_program`] with v7 one dword on in lane `broken` from the third pass (v22 =
/// 0xf there), or nowhere.
fn check_ds_marks(gen: Gen, mcpu: &str, attr: &str, lanes: usize, broken: Option<usize>) {
    let what = format!("{mcpu}{attr}: DS marks, v7 rewritten in lane {broken:?}");
    let words = assemble(mcpu, attr, &ds_marks_program(!attr.is_empty()));
    let mut r = ds_setup(gen, lanes, None);
    for l in 0..64 {
        r.v[22][l] = if broken == Some(l) { 0xf } else { 0 };
    }
    let old = r.clone();
    let mut lds: Vec<u8> = (0..512).flat_map(|k| lds_word(k).to_le_bytes()).collect();
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut [0; 64])
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    assert_eq!(r.s[20], 3, "{what}: the loop's count");
    for l in 0..lanes {
        let off = usize::from(broken == Some(l));
        let b = old.v[9][l] as usize / 4;
        let mut acc = old.v[5][l];
        for pass in 0..3 {
            let a = old.v[7][l] as usize / 4 + if pass == 2 { off } else { 0 };
            for k in 0..4 {
                acc = fma(lds_word(a + k), lds_word(b + 16 * k), acc);
            }
        }
        assert_eq!(r.v[5][l], acc, "{what}: v5 lane {l}");
        assert_eq!(
            r.v[7][l],
            old.v[7][l] + 8 * off as u32,
            "{what}: v7 lane {l}"
        );
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
pub(crate) fn tile_rows_on_facts_match_the_definitions() {
    for (gen, mcpu, attr, lanes) in [
        (Gen::Gfx90a, "gfx90a", "", 64),
        (Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32),
        (Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64),
    ] {
        check_loads(gen, mcpu, attr, lanes, false, None);
        check_loads(gen, mcpu, attr, lanes, true, None);
        // A lane of the last row off the shape (row 1 on wave32, 3 on wave64), and on
        // wave64 that whole row one off (every group of it as the one before plus 4·sx:
        // only its first group against the row above sees it).
        check_loads(gen, mcpu, attr, lanes, false, Some(lanes - 11..lanes - 10));
        check_loads(gen, mcpu, attr, lanes, false, Some(lanes - 16..lanes));
        check_fault(gen, mcpu, attr, lanes, false);
        check_fault(gen, mcpu, attr, lanes, true);
        check_ds_fault(gen, mcpu, attr, lanes);
        check_alu(gen, mcpu, attr, lanes);
        for move_a in [false, true] {
            check_ds_rows(gen, mcpu, attr, lanes, move_a, None);
            check_ds_rows_fault(gen, mcpu, attr, lanes, move_a);
        }
        // A lane of the last tile row off the shape in the second pass.
        check_ds_rows(gen, mcpu, attr, lanes, true, Some(lanes - 3));
        // v11 rewritten by the interpreter between two calls of a region that marked it.
        check_marks(gen, mcpu, attr, lanes, None);
        check_marks(gen, mcpu, attr, lanes, Some(lanes - 11..lanes - 10));
        check_marks(gen, mcpu, attr, lanes, Some(5..6));
        // v7, a DS run's address row, rewritten the same way.
        check_ds_marks(gen, mcpu, attr, lanes, None);
        check_ds_marks(gen, mcpu, attr, lanes, Some(5));
        check_ds_marks(gen, mcpu, attr, lanes, Some(lanes - 2));
    }
}
