//! The compiling tier (`src/jit`): `run_words` compiles every block start at once and checks
//! each compiled run against the interpreter bit for bit (`HSAEMU_JIT=verify`'s check), so a
//! block here passes only when the compiled code, the interpreter and the values written
//! below from the ISA's definitions all agree. One test, run in order, because the tier's
//! counters are per process.

use hsaemu_emu::{jit, run_words, run_words_mem, FaultKind, Gen, WaveRegs};

/// Machine words of `text` for `mcpu` (llvm-mc-15).
fn assemble(mcpu: &str, attr: &str, text: &str) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!("hsaemu-jit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join(format!("{mcpu}{attr}.s"));
    std::fs::write(&src, text).expect("write asm");
    let mut cmd = std::process::Command::new(hsaemu_testkit::tool("llvm-mc-15"));
    cmd.args(["-arch=amdgcn", &format!("-mcpu={mcpu}"), "-show-encoding"]);
    if !attr.is_empty() {
        cmd.arg(format!("-mattr={attr}"));
    }
    let o = cmd.arg(&src).output().expect("run llvm-mc-15");
    assert!(
        o.status.success(),
        "llvm-mc: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut bytes = Vec::new();
    for l in String::from_utf8_lossy(&o.stdout).lines() {
        if let Some((_, e)) = l.split_once("encoding: [") {
            for b in e.trim_end_matches(']').split(',') {
                let b = b.trim().trim_start_matches("0x");
                bytes.push(u8::from_str_radix(b, 16).expect("encoding byte"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A block of integer, float, compare, lane-read and scalar operations, for one target.
fn program(gfx10: bool, wave32: bool) -> String {
    let add = if gfx10 { "v_add_nc_u32" } else { "v_add_u32" };
    let (vcc, mask) = if wave32 {
        ("vcc_lo", "s4")
    } else {
        ("vcc", "s[4:5]")
    };
    format!(
        "v_mov_b32 v1, s0
         {add} v2, v0, v1
         v_mul_lo_u32 v3, v2, v0
         v_lshlrev_b32 v4, 2, v0
         v_lshl_add_u32 v5, v0, 3, v1
         v_xor_b32 v6, 0x12345678, v0
         v_cmp_gt_u32 {vcc}, 32, v0
         v_cndmask_b32 v7, v0, v1, {vcc}
         v_lshrrev_b32 v11, v0, v12
         v_add_f32 v8, 1.0, v9
         v_fma_f32 v10, v9, v9, 0.5
         v_mul_f32 v13, v9, v12
         v_cmp_lt_f32 {mask}, v9, v12
         v_readfirstlane_b32 s1, v0
         s_add_u32 s2, s0, 5
         s_cmp_eq_u32 s2, 12
         s_cselect_b32 s3, 1, 2
         s_lshl_b32 s6, s0, 30
         v_add3_u32 v18, v0, v12, 5
         v_bfi_b32 v19, v12, v0, v2
         v_mul_u32_u24 v20, v12, v0
         v_max_i32 v21, v12, v0
         v_not_b32 v22, v12
         s_endpgm
"
    )
}

/// Lane `l`'s inputs: v0 = l, v9 = l as f32 (then −0, a denormal, NaN), v12 = a pattern.
fn setup(gen: Gen) -> WaveRegs {
    let mut r = WaveRegs::new(gen);
    r.s[0] = 7;
    for l in 0..64 {
        r.v[0][l] = l as u32;
        r.v[9][l] = match l {
            60 => 0x8000_0000,
            61 => 1,
            62 => 0x7fc0_0001,
            _ => (l as f32).to_bits(),
        };
        r.v[12][l] = 0x9e37_79b9u32.rotate_left(l as u32);
    }
    // Lanes 5 and 37 inactive: they keep their old values.
    let exec = r.exec() & !(1 << 5 | 1 << 37);
    r.set_exec(exec);
    r
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, &program(!attr.is_empty(), lanes == 32));
    let before = jit::stats();
    let mut r = setup(gen);
    let old = r.clone();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    let after = jit::stats();
    if jit::checks_single_runs() {
        assert!(
            after.instructions >= before.instructions + 23,
            "{mcpu}{attr}: the block was not compiled ({before:?} → {after:?})"
        );
        assert!(after.runs > before.runs, "{mcpu}{attr}: no compiled run");
    }
    let exec = old.exec();
    let mut vcc = 0u64;
    let mut flt = 0u64;
    for l in 0..lanes {
        let active = exec >> l & 1 != 0;
        let x = l as u32;
        let v9 = f32::from_bits(old.v[9][l]);
        let v12 = old.v[12][l];
        let want = |v: usize, new: u32| {
            let expect = if active { new } else { old.v[v][l] };
            assert_eq!(r.v[v][l], expect, "{mcpu}{attr}: v{v} lane {l}");
        };
        want(1, 7);
        want(2, x + 7);
        want(3, (x + 7).wrapping_mul(x));
        want(4, x << 2);
        want(5, (x << 3) + 7);
        want(6, x ^ 0x1234_5678);
        want(7, if 32 > x { 7 } else { x });
        want(11, v12 >> (x & 31));
        want(8, (1.0 + v9).to_bits());
        want(10, v9.mul_add(v9, 0.5).to_bits());
        want(13, (v9 * f32::from_bits(v12)).to_bits());
        want(18, x.wrapping_add(v12).wrapping_add(5));
        want(19, (v12 & x) | (!v12 & (x + 7)));
        want(20, (v12 & 0xff_ffff).wrapping_mul(x));
        want(21, (v12 as i32).max(x as i32) as u32);
        want(22, !v12);
        if active && 32 > x {
            vcc |= 1 << l;
        }
        if active && v9 < f32::from_bits(v12) {
            flt |= 1 << l;
        }
    }
    // The compares write one SGPR in wave32, a pair in wave64.
    assert_eq!(r.s[106], vcc as u32, "{mcpu}{attr}: vcc_lo");
    assert_eq!(r.s[4], flt as u32, "{mcpu}{attr}: s4");
    if lanes == 64 {
        assert_eq!(r.s[107], (vcc >> 32) as u32, "{mcpu}{attr}: vcc_hi");
        assert_eq!(r.s[5], (flt >> 32) as u32, "{mcpu}{attr}: s5");
    }
    assert_eq!(r.s[1], 0, "{mcpu}{attr}: first active lane's v0");
    assert_eq!(r.s[2], 12);
    assert_eq!(r.s[3], 1, "s_cselect after s_cmp_eq");
    assert_eq!(r.s[6], 7 << 30);
    assert!(r.scc, "s_lshl_b32's SCC: result non-zero");
}

/// Carries, a float modifier, scalar carries and `s_and_saveexec`, for one target.
fn check_carries(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let text = if wave32 {
        "v_add_co_u32 v14, vcc_lo, v12, v0
         v_add_co_ci_u32_e64 v15, s8, v0, v12, vcc_lo
         v_fma_f32 v16, -v9, v9, |v12|
         s_add_u32 s10, s0, -1
         s_addc_u32 s11, s0, 0
         s_and_saveexec_b32 s12, s14
         v_mov_b32 v17, 5
         s_endpgm"
    } else {
        "v_add_co_u32 v14, vcc, v12, v0
         v_addc_co_u32 v15, s[8:9], v0, v12, vcc
         v_fma_f32 v16, -v9, v9, |v12|
         s_add_u32 s10, s0, -1
         s_addc_u32 s11, s0, 0
         s_and_saveexec_b64 s[12:13], s[14:15]
         v_mov_b32 v17, 5
         s_endpgm"
    };
    let words = assemble(mcpu, attr, text);
    let mut r = setup(gen);
    r.s[14] = 0x0000_ffff;
    r.s[15] = if wave32 { 0 } else { 0xffff_0000 };
    let old = r.clone();
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(
            after.instructions >= before.instructions + 7,
            "{mcpu}{attr}: not compiled ({before:?} → {after:?})"
        );
    }
    let exec = old.exec();
    let new_exec = exec & (u64::from(old.s[14]) | u64::from(old.s[15]) << 32);
    let (mut vcc, mut co) = (0u64, 0u64);
    for l in 0..lanes {
        let active = exec >> l & 1 != 0;
        let (x, y) = (l as u32, old.v[12][l]);
        let (sum, c) = y.overflowing_add(x);
        let (s2, c2) = x.overflowing_add(y);
        let (s3, c3) = s2.overflowing_add(u32::from(c));
        let keep = |v: usize| old.v[v][l];
        assert_eq!(
            r.v[14][l],
            if active { sum } else { keep(14) },
            "v14 lane {l}"
        );
        assert_eq!(
            r.v[15][l],
            if active { s3 } else { keep(15) },
            "v15 lane {l}"
        );
        let a = f32::from_bits(old.v[9][l]);
        let fma = (-a).mul_add(a, f32::from_bits(y).abs());
        let got = f32::from_bits(r.v[16][l]);
        if active {
            assert!(
                got.to_bits() == fma.to_bits() || (got.is_nan() && fma.is_nan()),
                "{mcpu}{attr}: v16 lane {l}: {got} vs {fma}"
            );
        } else {
            assert_eq!(r.v[16][l], keep(16));
        }
        let v17 = if new_exec >> l & 1 != 0 { 5 } else { keep(17) };
        assert_eq!(r.v[17][l], v17, "{mcpu}{attr}: v17 lane {l}");
        if active {
            vcc |= u64::from(c) << l;
            co |= u64::from(c2 | c3) << l;
        }
    }
    assert_eq!(r.s[106], vcc as u32, "{mcpu}{attr}: vcc_lo");
    assert_eq!(r.s[8], co as u32, "{mcpu}{attr}: carry out");
    if !wave32 {
        assert_eq!(r.s[107], (vcc >> 32) as u32);
        assert_eq!(r.s[9], (co >> 32) as u32);
        assert_eq!(r.s[13], (exec >> 32) as u32, "saved exec_hi");
    }
    assert_eq!(
        (r.s[10], r.s[11]),
        (6, 8),
        "s_add_u32 carry into s_addc_u32"
    );
    assert_eq!(r.s[12], exec as u32, "saved exec");
    assert_eq!(r.exec(), new_exec);
    assert!(r.scc, "s_and_saveexec: EXEC non-zero");
}

/// The 64-bit shifts (and, on gfx90a, packed f32) compile: values from the definitions
/// (`D.u64 = S1.u64 << S0[5:0]`…; each f32 half on its own half; a constant is one f32 for
/// both halves).
fn check_wide(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let gfx90a = mcpu == "gfx90a";
    let mut text = String::from(
        "v_lshlrev_b64 v[24:25], v0, v[12:13]
         v_lshrrev_b64 v[26:27], 33, v[12:13]
         v_ashrrev_i64 v[28:29], v0, v[12:13]
         v_lshlrev_b64 v[30:31], v0, s[0:1]
",
    );
    if lanes == 64 {
        text.push_str("v_mad_u64_u32 v[40:41], s[10:11], v12, v0, -1\n");
    }
    if gfx90a {
        text.push_str(
            "v_pk_add_f32 v[32:33], v[8:9], 1.0
             v_pk_mul_f32 v[34:35], v[8:9], s[0:1]
             v_pk_fma_f32 v[36:37], v[8:9], v[8:9], v[12:13]
             v_pk_mov_b32 v[38:39], v[8:9], v[12:13] op_sel:[1,0]
",
        );
    }
    text.push_str("s_endpgm\n");
    let words = assemble(mcpu, attr, &text);
    let mut r = setup(gen);
    r.s[0] = 0xc040_0000; // -3.0
    r.s[1] = 0x4000_0000; // 2.0
    for l in 0..64 {
        r.v[8][l] = (l as f32 * 0.25).to_bits();
        r.v[9][l] = (l as f32 - 20.0).to_bits();
        r.v[13][l] = 0x8000_0000u32.rotate_right(l as u32) | l as u32;
    }
    let old = r.clone();
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    if jit::checks_single_runs() {
        let after = jit::stats();
        let n = if gfx90a { 9 } else { 4 + lanes as u64 / 64 };
        assert!(
            after.instructions >= before.instructions + n,
            "{mcpu}{attr}: not compiled ({before:?} → {after:?})"
        );
    }
    let exec = old.exec();
    let f = f32::from_bits;
    for l in 0..lanes {
        let active = exec >> l & 1 != 0;
        let pair = |v: &WaveRegs, r0: usize| [v.v[r0][l], v.v[r0 + 1][l]];
        let want = |r0: usize, new: [u32; 2]| {
            let expect = if active { new } else { pair(&old, r0) };
            assert_eq!(pair(&r, r0), expect, "{mcpu}{attr}: v[{r0}] lane {l}");
        };
        let split = |x: u64| [x as u32, (x >> 32) as u32];
        let (s, x) = (
            l as u32 & 63,
            u64::from(old.v[12][l]) | u64::from(old.v[13][l]) << 32,
        );
        want(24, split(x << s));
        want(26, split(x >> 33));
        want(28, split(((x as i64) >> s) as u64));
        want(30, split(0x4000_0000_c040_0000u64 << s));
        if lanes == 64 {
            // D = S0 * S1 + S2 in 64 bits; the lanes whose sum overflows set their bit.
            let p = u128::from(old.v[12][l]) * l as u128 + u128::from(u64::MAX);
            want(40, split(p as u64));
            let sbit = |v: &WaveRegs| v.s[10 + l / 32] >> (l % 32) & 1;
            let bit = if active {
                u32::from(p >> 64 != 0)
            } else {
                sbit(&old)
            };
            assert_eq!(sbit(&r), bit, "{mcpu}: s[10:11] lane {l}");
        }
        if gfx90a {
            let (a, b) = (f(old.v[8][l]), f(old.v[9][l]));
            let (c, d) = (f(old.v[12][l]), f(old.v[13][l]));
            // Floats: the bits, or any NaN for a NaN.
            let want_f = |r0: usize, new: [f32; 2]| {
                for (h, &n) in new.iter().enumerate() {
                    let got = f(r.v[r0 + h][l]);
                    let expect = if active { n } else { f(old.v[r0 + h][l]) };
                    assert!(
                        got.to_bits() == expect.to_bits() || (got.is_nan() && expect.is_nan()),
                        "{mcpu}{attr}: v{} lane {l}: {got} vs {expect}",
                        r0 + h
                    );
                }
            };
            want_f(32, [a + 1.0, b + 1.0]);
            want_f(34, [a * -3.0, b * 2.0]);
            want_f(36, [a.mul_add(a, c), b.mul_add(b, d)]);
            want(38, [old.v[9][l], old.v[12][l]]);
        }
    }
}

/// A loop holding the cache invalidates a fence compiles to (`buffer_wbinvl1_vol` on GFX9,
/// `buffer_gl0_inv` and `buffer_gl1_inv` on GFX10), as every acquire spin loop does, runs as
/// one compiled call: they are no-ops, as in the interpreter. (They once ended a region, so a
/// spin loop left compiled code at every iteration and ran 5× slower than interpreted.)
fn check_cache_ops_in_a_loop(gen: Gen, mcpu: &str, attr: &str) {
    let (invalidate, back) = if mcpu == "gfx90a" {
        ("buffer_wbinvl1_vol", -5)
    } else {
        ("buffer_gl0_inv\nbuffer_gl1_inv", -7)
    };
    let text = format!(
        "s_mov_b32 s20, 0
         s_add_u32 s20, s20, 1
         {invalidate}
         s_cmp_lt_u32 s20, 10
         s_cbranch_scc1 {back}
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let mut r = setup(gen);
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    assert_eq!(r.s[20], 10, "{mcpu}{attr}: the loop's count");
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert_eq!(
            after.runs - before.runs,
            1,
            "{mcpu}{attr}: the loop is not one compiled call ({before:?} → {after:?})"
        );
    }
}

#[test]
fn compiled_blocks_match_the_interpreter_and_the_definitions() {
    check_cache_ops_in_a_loop(Gen::Gfx90a, "gfx90a", "");
    check_cache_ops_in_a_loop(Gen::Gfx10, "gfx1030", "+wavefrontsize32");
    compiled_memory_instructions_match_the_interpreter_and_the_definitions();
    check_wide(Gen::Gfx90a, "gfx90a", "", 64);
    check_wide(Gen::Gfx9, "gfx906", "", 64);
    check_wide(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_carries(Gen::Gfx90a, "gfx90a", "", 64);
    check_carries(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx9, "gfx906", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);

    // Another MODE (round toward zero): the block is interpreted, with MODE's rounding.
    let words = assemble("gfx90a", "", "v_add_f32 v2, v0, v1\ns_endpgm\n");
    let mut r = WaveRegs::new(Gen::Gfx90a);
    r.mode = WaveRegs::DEFAULT_MODE | 0xf; // FP_ROUND: toward zero
    for l in 0..64 {
        r.v[0][l] = 1.0f32.to_bits();
        r.v[1][l] = 0x3380_0001; // just above half an ulp of 1.0
    }
    let before = jit::stats();
    run_words(Gen::Gfx90a, &words, &mut r).expect("run");
    assert!(r.v[2].iter().all(|&x| x == 0x3f80_0000), "toward zero");
    assert_eq!(
        jit::stats().runs,
        before.runs,
        "compiled code ran under another MODE"
    );
    r.mode = WaveRegs::DEFAULT_MODE;
    run_words(Gen::Gfx90a, &words, &mut r).expect("run");
    assert!(r.v[2].iter().all(|&x| x == 0x3f80_0001), "to nearest even");
    if jit::checks_single_runs() {
        assert!(
            jit::stats().runs > before.runs,
            "the default MODE ran compiled code"
        );
    }
}

/// Global buffer word `k`: `(0x8000 + k) << 16 | (0x1000 + k)` (a negative high half, so the
/// signed short load sign-extends).
fn word(k: usize) -> u32 {
    (0x8000 + k as u32) << 16 | (0x1000 + k as u32)
}

/// A block of loads, stores, LDS accesses and waits between ALU instructions (the
/// `global_*` forms with an SGPR base and with a 64-bit VGPR address, `flat_*`, DS with
/// offsets, an SMEM load).
fn mem_program(gfx10: bool) -> String {
    let add = if gfx10 { "v_add_nc_u32" } else { "v_add_u32" };
    format!(
        "s_load_dwordx2 s[2:3], s[0:1], 0x8
         v_lshlrev_b32 v10, 2, v20
         global_load_dword v1, v10, s[0:1]
         global_load_dwordx2 v[2:3], v[4:5], off
         global_load_dwordx4 v[6:9], v10, s[0:1] offset:256
         {add} v11, v1, v2
         global_store_dword v10, v11, s[0:1] offset:1024
         global_store_dwordx2 v10, v[6:7], s[0:1] offset:1536
         ds_write_b32 v10, v11 offset:16
         ds_read_b64 v[12:13], v10 offset:16
         global_load_ubyte v14, v20, s[0:1] offset:3
         global_load_sshort v15, v10, s[0:1] offset:2
         flat_load_dword v17, v[4:5] offset:4
         s_waitcnt vmcnt(0) lgkmcnt(0)
         {add} v16, v12, v13
         global_load_dword v18, v10, s[0:1] offset:1024
         s_endpgm
"
    )
}

fn check_memory(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, &mem_program(!attr.is_empty()));
    let mut global = vec![0u8; 4096];
    for k in 0..1024 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut lds = vec![0u8; 1024];
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        let a = base + 8 * l as u64;
        (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
        for v in [1, 2, 3, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18] {
            r.v[v][l] = 0xdead_0000 | v as u32;
        }
    }
    // Lanes 5 and 37 inactive: they load and store nothing.
    let exec = r.exec() & !(1 << 5 | 1 << 37);
    r.set_exec(exec);
    let old = r.clone();
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    let after = jit::stats();
    if jit::checks_single_runs() {
        assert!(
            after.instructions >= before.instructions + 16,
            "{mcpu}{attr}: the block with memory instructions was not compiled whole \
             ({before:?} → {after:?})"
        );
    }
    assert_eq!((r.s[2], r.s[3]), (word(2), word(3)), "{mcpu}{attr}: s_load");
    let active = |l: usize| exec >> l & 1 != 0;
    let sum = |l: usize| word(l).wrapping_add(word(2 * l));
    for l in 0..lanes {
        let (a, o) = (active(l), &old.v);
        let want = |v: usize, x: u32| if a { x } else { o[v][l] };
        let ctx = format!("{mcpu}{attr} lane {l}");
        assert_eq!(r.v[1][l], want(1, word(l)), "{ctx}: load dword");
        assert_eq!(r.v[2][l], want(2, word(2 * l)), "{ctx}: load x2 lo");
        assert_eq!(r.v[3][l], want(3, word(2 * l + 1)), "{ctx}: load x2 hi");
        for k in 0..4 {
            assert_eq!(
                r.v[6 + k][l],
                want(6 + k, word(64 + l + k)),
                "{ctx}: x4 {k}"
            );
        }
        assert_eq!(r.v[11][l], want(11, sum(l)), "{ctx}: add");
        // The store: word 256 + l is the sum (active lanes), else untouched.
        let stored = if a { sum(l) } else { word(256 + l) };
        assert_eq!(r.v[18][l], want(18, stored), "{ctx}: stored then loaded");
        let m = &global[4 * (256 + l)..4 * (256 + l) + 4];
        assert_eq!(
            u32::from_le_bytes(m.try_into().expect("4 bytes")),
            stored,
            "{ctx}"
        );
        // dwordx2 store at byte 1536 + 4l: later lanes overwrite the high dword of earlier
        // ones; the final word 384 + l is lane l's low dword when lane l is active.
        let w2 = &global[1536 + 4 * l..1536 + 4 * l + 4];
        if a {
            assert_eq!(
                u32::from_le_bytes(w2.try_into().expect("4 bytes")),
                word(64 + l),
                "{ctx}"
            );
        }
        // LDS: ds_write_b32 wrote the sum at 16 + 4l; ds_read_b64 reads lanes l and l + 1.
        let lds_at = |k: usize| if k < lanes && active(k) { sum(k) } else { 0 };
        assert_eq!(r.v[12][l], want(12, lds_at(l)), "{ctx}: ds_read lo");
        assert_eq!(r.v[13][l], want(13, lds_at(l + 1)), "{ctx}: ds_read hi");
        assert_eq!(
            r.v[16][l],
            want(16, lds_at(l).wrapping_add(lds_at(l + 1))),
            "{ctx}"
        );
        let at = 3 + l; // byte offset 3 + l
        let byte = word(at / 4).to_le_bytes()[at % 4];
        assert_eq!(r.v[14][l], want(14, u32::from(byte)), "{ctx}: ubyte");
        let short = (word(l) >> 16) as u16 as i16 as i32 as u32;
        assert_eq!(r.v[15][l], want(15, short), "{ctx}: sshort");
        assert_eq!(r.v[17][l], want(17, word(2 * l + 1)), "{ctx}: flat");
    }
}

/// A wild address in one lane and an LDS offset past the allocation: the compiled block ends
/// before the access and the interpreter reports the fault (its address, offset), after the
/// compiled instructions before it (checked against the interpreter by `run_words_mem`).
fn check_memory_faults(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let add = if attr.is_empty() {
        "v_add_u32"
    } else {
        "v_add_nc_u32"
    };
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_lshlrev_b32 v10, 2, v20
             {add} v11, v10, v20
             global_load_dword v1, v[4:5], off
             s_endpgm
"
        ),
    );
    let mut global = vec![0u8; 1024];
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        let a = if l == 17 {
            0xdead_beef_0000
        } else {
            base + 4 * l as u64
        };
        (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
    }
    let before = jit::stats();
    let e =
        run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild pointer");
    assert_eq!(
        e,
        FaultKind::MemoryViolation {
            address: 0xdead_beef_0000,
            write: false,
            size: 4
        },
        "{mcpu}{attr}"
    );
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(after.runs > before.runs, "{mcpu}{attr}: no compiled run");
    }
    // LDS of 4 bytes per lane: the last lane's dword at 4·lanes is past it (offset 4).
    let words = assemble(
        mcpu,
        attr,
        &format!(
            "v_lshlrev_b32 v10, 2, v20
             {add} v11, v10, v20
             ds_read_b32 v1, v10 offset:4
             s_endpgm
"
        ),
    );
    let mut lds = vec![0u8; 4 * lanes];
    let res = run_words_mem(gen, &words, &mut r, &mut lds, &mut global);
    let e = res.expect_err("LDS");
    assert_eq!(
        e,
        FaultKind::LdsOutOfRange {
            offset: 4 * lanes as u64,
            size: 4,
            lds_size: 4 * lanes as u32
        },
        "{mcpu}{attr}"
    );
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
fn compiled_memory_instructions_match_the_interpreter_and_the_definitions() {
    check_memory(Gen::Gfx90a, "gfx90a", "", 64);
    check_memory(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_memory(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_memory_faults(Gen::Gfx90a, "gfx90a", "", 64);
    check_memory_faults(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
