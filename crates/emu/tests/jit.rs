//! The compiling tier (`src/jit`): `run_words` compiles every block start at once and checks
//! each compiled run against the interpreter bit for bit (`HSAEMU_JIT=verify`'s check), so a
//! block here passes only when the compiled code, the interpreter and the values written
//! below from the ISA's definitions all agree. One test, run in order, because the tier's
//! counters are per process.

use hsaemu_emu::{
    jit, run_words, run_words_mem, run_words_mem_read_only, FaultKind, Gen, WaveRegs,
};

#[path = "jit/lds.rs"]
mod lds;

#[path = "jit/atomics.rs"]
mod atomics;

#[path = "jit/narrow.rs"]
mod narrow;
#[path = "jit/stencil.rs"]
mod stencil;

#[path = "jit/dse.rs"]
mod dse;

#[path = "jit/f64.rs"]
mod f64;

#[path = "jit/mad64.rs"]
mod mad64;

#[path = "jit/uniform_cmp.rs"]
mod uniform_cmp;

#[path = "jit/row_cmp.rs"]
mod row_cmp;

#[path = "jit/carry_chain.rs"]
mod carry_chain;

#[path = "jit/fma_nan.rs"]
mod fma_nan;

#[path = "jit/nan_seg.rs"]
mod nan_seg;

#[path = "jit/minmax.rs"]
mod minmax;

#[path = "jit/class.rs"]
mod class;

#[path = "jit/div.rs"]
mod div;

#[path = "jit/affine.rs"]
mod affine;

#[path = "jit/lds_fmac.rs"]
mod lds_fmac;

#[path = "jit/lds_run.rs"]
mod lds_run;

#[path = "jit/pending_rows.rs"]
mod pending_rows;

#[path = "jit/rounds.rs"]
mod rounds;

#[path = "jit/global_rows.rs"]
mod global_rows;

#[path = "jit/one_address.rs"]
mod one_address;

#[path = "jit/scalar_cmp.rs"]
mod scalar_cmp;

#[path = "jit/lds_live.rs"]
mod lds_live;

#[path = "jit/grid2d.rs"]
mod grid2d;

#[path = "jit/lds_reload.rs"]
mod lds_reload;

#[path = "jit/smem_share.rs"]
mod smem_share;

#[path = "jit/sgprs.rs"]
mod sgprs;

#[path = "jit/park_pc.rs"]
mod park_pc;
#[path = "jit/perf_map.rs"]
mod perf_map;
#[path = "jit/tiles.rs"]
mod tiles;

#[path = "jit/tile_marks.rs"]
mod tile_marks;

#[path = "jit/pairs.rs"]
mod pairs;

#[path = "jit/barrier_tail.rs"]
mod barrier_tail;

#[path = "jit/mask_value.rs"]
mod mask_value;
#[path = "jit/pending_sgprs.rs"]
mod pending_sgprs;

#[path = "jit/code_memory.rs"]
mod code_memory;

#[path = "jit/overrun.rs"]
mod overrun;
#[path = "jit/streams.rs"]
mod streams;

mod common;

/// Machine words of `text` for `mcpu` (llvm-mc-15), cached in the kernel cache by the text:
/// the test assembles ~200 programs, and an llvm-mc process costs ~30 ms of CPU, in each of
/// `scripts/test.sh`'s two runs of this binary (docs/notes/ci-time.md, "Round 15").
pub(crate) fn assemble(mcpu: &str, attr: &str, text: &str) -> Vec<u32> {
    // FNV-1a of the processor, the attributes and the text.
    let key = format!("{mcpu}{attr}\n{text}");
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    // "jit2": the words of a text with a label were wrong before (`run_mc`).
    let path = hsaemu_testkit::cache_dir().join(format!("jit2-{mcpu}-{hash:016x}.txt"));
    let cached = std::fs::read_to_string(&path).ok().map(|s| {
        s.lines()
            .map(|w| u32::from_str_radix(w, 16).expect("a cached word"))
            .collect()
    });
    if let Some(words) = cached {
        return words;
    }
    // Parallel tests may assemble the same text: each writes its own files.
    let words = run_mc(mcpu, attr, text, &hsaemu_testkit::temp_beside(&path, "s"));
    let tmp = hsaemu_testkit::temp_beside(&path, "txt");
    let lines: String = words.iter().map(|w| format!("{w:08x}\n")).collect();
    std::fs::write(&tmp, lines).expect("write the assembly cache");
    std::fs::rename(&tmp, &path).expect("rename into the assembly cache");
    words
}

/// Machine words of `text` for `mcpu`: llvm-mc-15 run on it, written to `src`. A branch to a
/// label is a fixup in `-show-encoding`'s listing (its bytes print as `A`), so a text with
/// one is assembled into an object instead, whose `.text` has the offsets resolved.
fn run_mc(mcpu: &str, attr: &str, text: &str, src: &std::path::Path) -> Vec<u32> {
    std::fs::write(src, text).expect("write asm");
    let mc = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = std::process::Command::new(hsaemu_testkit::tool("llvm-mc-15"));
        cmd.args(["-arch=amdgcn", &format!("-mcpu={mcpu}")]);
        if !attr.is_empty() {
            cmd.arg(format!("-mattr={attr}"));
        }
        let o = cmd.args(extra).arg(src).output().expect("run llvm-mc-15");
        assert!(
            o.status.success(),
            "llvm-mc: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o.stdout
    };
    let listing = mc(&["-show-encoding".as_ref()]);
    let listing = String::from_utf8_lossy(&listing);
    let bytes = if listing.contains("fixup") {
        let obj = src.with_extension("o");
        let bin = src.with_extension("bin");
        mc(&["-filetype=obj".as_ref(), "-o".as_ref(), obj.as_os_str()]);
        let copy = hsaemu_testkit::tool("llvm-objcopy-15");
        let (o, b) = (obj.to_string_lossy(), bin.to_string_lossy());
        hsaemu_testkit::run_tool(&copy, &["-O", "binary", "--only-section=.text", &o, &b]);
        let bytes = std::fs::read(&bin).expect("read the assembled .text");
        let _ = (std::fs::remove_file(&obj), std::fs::remove_file(&bin));
        bytes
    } else {
        let mut bytes = Vec::new();
        for l in listing.lines() {
            if let Some((_, e)) = l.split_once("encoding: [") {
                for b in e.trim_end_matches(']').split(',') {
                    let b = b.trim().trim_start_matches("0x");
                    bytes.push(u8::from_str_radix(b, 16).expect("encoding byte"));
                }
            }
        }
        bytes
    };
    let _ = std::fs::remove_file(src);
    assert!(bytes.len() % 4 == 0, "llvm-mc: {} bytes", bytes.len());
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The 32-bit vector add without carry: `v_add_u32` (GFX9), `v_add_nc_u32` (GFX10+).
pub(crate) fn v_add_u32(gfx10: bool) -> &'static str {
    if gfx10 {
        "v_add_nc_u32"
    } else {
        "v_add_u32"
    }
}

/// The add with carry in and out (VOP2 with VCC), renamed on GFX10 too.
pub(crate) fn v_addc_u32(gfx10: bool) -> &'static str {
    if gfx10 {
        "v_add_co_ci_u32"
    } else {
        "v_addc_co_u32"
    }
}

/// The address that faults in the wild-lane tests.
pub(crate) const WILD: u64 = 0xdead_beef_0000;

/// Lane numbers in v20 and, in the pair v[4:5], lane l's dword of `base` (`base + 4l`),
/// but [`WILD`] in lane `wild`.
pub(crate) fn wild_lane_pairs(r: &mut WaveRegs, base: u64, wild: usize) {
    for l in 0..64 {
        r.v[20][l] = l as u32;
        let a = if l == wild { WILD } else { base + 4 * l as u64 };
        (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
    }
}

/// A block of integer, float, compare, lane-read and scalar operations, for one target.
fn program(gfx10: bool, wave32: bool) -> String {
    let add = v_add_u32(gfx10);
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

/// Lane `l` of the row pair `v`, `v + 1` holds the f32s `new` (its old values when `new` is
/// `None`, an inactive lane): the same bits, or any NaN for a NaN.
fn want_f32_pair(
    r: &WaveRegs,
    old: &WaveRegs,
    v: usize,
    l: usize,
    new: Option<[f32; 2]>,
    what: &str,
) {
    for h in 0..2 {
        let got = f32::from_bits(r.v[v + h][l]);
        let expect = new.map_or(f32::from_bits(old.v[v + h][l]), |n| n[h]);
        assert!(
            got.to_bits() == expect.to_bits() || (got.is_nan() && expect.is_nan()),
            "{what}: v{} lane {l}: {got} vs {expect}",
            v + h
        );
    }
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
            let want_f = |r0: usize, new: [f32; 2]| {
                want_f32_pair(
                    &r,
                    &old,
                    r0,
                    l,
                    active.then_some(new),
                    &format!("{mcpu}{attr}"),
                );
            };
            want_f(32, [a + 1.0, b + 1.0]);
            want_f(34, [a * -3.0, b * 2.0]);
            want_f(36, [a.mul_add(a, c), b.mul_add(b, d)]);
            want(38, [old.v[9][l], old.v[12][l]]);
        }
    }
}

/// 64-bit values for the compares and shifts: both signs, equal high halves with different
/// low ones, the 32-bit boundaries.
const E64: [u64; 16] = [
    0,
    1,
    u64::MAX,
    1 << 63,
    (1 << 63) - 1,
    0xffff_ffff,
    0x1_0000_0000,
    0x8000_0000,
    0x1234_5678_9abc_def0,
    4,
    3,
    0x8000_0000_0000_0001,
    0xffff_ffff_0000_0000,
    0x1_0000_0001,
    0xfedc_ba98_7654_3210,
    5,
];
/// 16-bit values (a different high half in every lane, which the 16-bit compares ignore).
const E16: [u32; 16] = [
    0, 1, 2, 3, 0x7fff, 0x8000, 0xffff, 0xfffe, 0x100, 0x80, 0x1234, 0xabcd, 0x7ffe, 0x8001, 5,
    0xff,
];
/// Integers for the conversions to f32: ties at 2^24 and above, the 32-bit extremes.
const CVT_INT: [u32; 16] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
    0x0100_0001,
    0x0100_0003,
    0xffff_ff80,
    0xffff_ffc0,
    0x7fff_ffc0,
    0x1234_5678,
    3,
    0xfeed_beef,
    0x7fff_ff80,
    0x0300_0002,
];
/// f32 bits for the conversions to integers: fractions, the bounds of i32 and u32 and just
/// inside them, infinities, NaNs of both signs, a denormal.
const CVT_F32: [u32; 20] = [
    0,
    0x8000_0000,
    0x3fc0_0000, // 1.5
    0xbfc0_0000, // -1.5
    0x3f00_0000, // 0.5
    0xbf7d_70a4, // -0.99
    0x4020_0000, // 2.5
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x4f80_0000, // 2^32
    0x4f7f_ffff, // 4294967040
    0x4eff_ffff, // 2147483520
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x0000_0001,
    0xd015_02f9, // -1e10
    0x5015_02f9, // 1e10
    0xcf00_0001, // just below -2^31
];

/// The lane mask SGPR operand of a VOP3 compare: one SGPR in wave32, a pair in wave64.
pub(crate) fn mask_reg(n: usize, wave32: bool) -> String {
    if wave32 {
        format!("s{n}")
    } else {
        format!("s[{n}:{}]", n + 1)
    }
}

/// 64- and 16-bit compares (VOPC into VCC, VOP3 into SGPRs, a constant operand, `v_cmpx`),
/// the f32 ↔ 32-bit integer conversions, 64-bit shifts by constants (vector and scalar
/// values), the cache invalidates and, on gfx90a, packed f32 with op_sel and neg: all in one
/// compiled block, values from the ISA's definitions.
fn check_compares_and_conversions(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let wave32 = lanes == 32;
    let gfx90a = mcpu == "gfx90a";
    let gfx10 = mcpu == "gfx1030";
    let vcc = if wave32 { "vcc_lo" } else { "vcc" };
    let save_vcc = if wave32 {
        "s_mov_b32 s34, vcc_lo"
    } else {
        "s_mov_b64 s[34:35], vcc"
    };
    let m = |n| mask_reg(n, wave32);
    let mut text = format!(
        "v_cmp_gt_u64_e32 {vcc}, s[20:21], v[40:41]
         {save_vcc}
         v_cmp_le_u64_e64 {}, s[22:23], v[42:43]
         v_cmp_lt_u64_e64 {}, s[20:21], 4
         v_cmp_lt_i64_e64 {}, v[40:41], v[42:43]
         v_cmp_ne_u64_e64 {}, v[40:41], v[42:43]
         v_cmp_ge_i64_e64 {}, v[42:43], -2
         v_cmp_gt_u16_e32 {vcc}, 2, v44
         v_cmp_lt_i16_e64 {}, v44, v47
         v_cmp_ge_u16_e64 {}, v44, v47
         v_cvt_f32_u32 v50, v45
         v_cvt_f32_i32 v51, v45
         v_cvt_u32_f32 v52, v46
         v_cvt_i32_f32 v53, v46
         v_cvt_i32_f32_e64 v48, -|v46|
         v_lshlrev_b64 v[54:55], 0, v[40:41]
         v_lshlrev_b64 v[56:57], 31, v[40:41]
         v_lshlrev_b64 v[58:59], 32, v[40:41]
         v_lshlrev_b64 v[60:61], 63, v[40:41]
         v_lshrrev_b64 v[62:63], 1, v[40:41]
         v_lshrrev_b64 v[64:65], 32, v[40:41]
         v_lshrrev_b64 v[66:67], 45, v[40:41]
         v_ashrrev_i64 v[68:69], 7, v[40:41]
         v_ashrrev_i64 v[70:71], 32, v[40:41]
         v_ashrrev_i64 v[72:73], 63, v[40:41]
         v_ashrrev_i64 v[74:75], -1, v[40:41]
         v_lshlrev_b64 v[76:77], 5, s[22:23]
         v_bfe_u32 v92, v45, 10, 10
         v_bfe_i32 v93, v45, 10, 10
         v_bfe_u32 v94, v45, 0, 31
         v_bfe_i32 v95, v45, 31, 1
         v_bfe_i32 v96, v45, 4, 0
         v_bfe_u32 v97, v45, s40, 25
         v_bfe_i32 v98, v45, 7, s41
         v_bfe_u32 v99, v45, 3, s42
         v_readlane_b32 s44, v45, 5
         v_readlane_b32 s45, v46, s46
         v_readlane_b32 s47, v45, 37
         v_mbcnt_lo_u32_b32 v100, -1, 0
         v_mbcnt_hi_u32_b32 v101, -1, v100
         v_mbcnt_lo_u32_b32 v102, s23, v45
         v_mbcnt_hi_u32_b32 v103, s23, 3
",
        m(24),
        m(26),
        m(28),
        m(30),
        m(32),
        m(36),
        m(38)
    );
    if gfx10 {
        text.push_str(
            "buffer_gl0_inv
             buffer_gl1_inv
             v_ashrrev_i64 v[78:79], 0x61, v[40:41]
",
        );
    } else {
        text.push_str("buffer_wbinvl1_vol\n");
    }
    if gfx90a {
        text.push_str(
            "buffer_wbl2
             buffer_invl2
             v_pk_add_f32 v[80:81], v[84:85], v[86:87] neg_lo:[0,1] neg_hi:[0,1]
             v_pk_mul_f32 v[82:83], v[84:85], v[86:87] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]
             v_pk_fma_f32 v[88:89], v[84:85], v[86:87], v[84:85] op_sel_hi:[1,0,1] neg_hi:[1,1,0]
             v_pk_add_f32 v[90:91], v[84:85], 1.0 op_sel:[1,1] neg_lo:[1,1]
",
        );
    }
    // Last: v_cmpx (EXEC changes).
    text.push_str(if gfx10 {
        "v_cmpx_gt_u64_e64 s[20:21], v[40:41]\n"
    } else {
        "v_cmpx_gt_u64_e64 s[2:3], s[20:21], v[40:41]\n"
    });
    let n = text.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    text.push_str("s_endpgm\n");
    let words = assemble(mcpu, attr, &text);
    let mut r = setup(gen);
    // Lanes 48–63 compare equal values.
    let a64 = |l: usize| E64[l % 16];
    let b64 = |l: usize| {
        if l >= 48 {
            E64[l % 16]
        } else {
            E64[(5 * l + 3) % 16]
        }
    };
    let pair = |r: &mut WaveRegs, v: usize, l: usize, x: u64| {
        r.v[v][l] = x as u32;
        r.v[v + 1][l] = (x >> 32) as u32;
    };
    for l in 0..64 {
        pair(&mut r, 40, l, a64(l));
        pair(&mut r, 42, l, b64(l));
        r.v[44][l] = (l as u32 * 0x1111) << 16 | E16[l % 16];
        r.v[47][l] = (l as u32 * 0x0707) << 16 | E16[(3 * l + 5) % 16];
        r.v[45][l] = CVT_INT[l % 16];
        r.v[46][l] = CVT_F32[l % 20];
        r.v[84][l] = (l as f32 * 0.25).to_bits();
        r.v[85][l] = (l as f32 - 20.0).to_bits();
        r.v[86][l] = if l == 9 {
            0x7fa0_0000
        } else {
            (3.5 - l as f32).to_bits()
        };
        r.v[87][l] = (l as f32 * -1.5).to_bits();
    }
    r.s[20] = 0x8000_0000;
    r.s[21] = 0;
    r.s[22] = 0x0000_0001;
    r.s[23] = 0x8000_0001;
    // v_bfe's offset and widths: only bits 4:0 count (7, 25 and 0).
    r.s[40] = 0xffff_ffe7;
    r.s[41] = 0x39;
    r.s[42] = 0x20;
    // v_readlane's lane: modulo the wave size (61 in wave64, 29 in wave32).
    r.s[46] = 0x3d;
    let old = r.clone();
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(
            after.instructions >= before.instructions + n,
            "{mcpu}{attr}: not compiled ({before:?} → {after:?}, {n} instructions)"
        );
    }
    let exec = old.exec();
    let s20 = 0x8000_0000u64;
    let s22 = 0x8000_0001_0000_0001u64;
    let mut masks = [0u64; 8];
    let mut cmpx = 0u64;
    for l in 0..lanes {
        let active = exec >> l & 1 != 0;
        let (a, b) = (a64(l), b64(l));
        let (h, k) = (old.v[44][l] as u16, old.v[47][l] as u16);
        if active {
            let flags = [
                s20 > a,
                s22 <= b,
                s20 < 4,
                (a as i64) < b as i64,
                a != b,
                b as i64 >= -2,
                (h as i16) < k as i16,
                h >= k,
            ];
            for (m, f) in masks.iter_mut().zip(flags) {
                *m |= u64::from(f) << l;
            }
            if s20 > a {
                cmpx |= 1 << l;
            }
        }
        let want = |v: usize, new: u32| {
            let expect = if active { new } else { old.v[v][l] };
            assert_eq!(r.v[v][l], expect, "{mcpu}{attr}: v{v} lane {l}");
        };
        let (x, y) = (old.v[45][l], f32::from_bits(old.v[46][l]));
        // Rust's `as` is the ISA's definition: to nearest even from integers; toward zero
        // from f32, out-of-range values clamped, NaN to 0.
        want(50, (x as f32).to_bits());
        want(51, (x as i32 as f32).to_bits());
        want(52, y as u32);
        want(53, y as i32 as u32);
        want(48, -y.abs() as i32 as u32);
        // v_bfe: S0 >> offset, its low `width` bits (none for 0), sign-extended for _i32.
        let bfe = |off: u32, width: u32, signed: bool| -> u32 {
            if width == 0 {
                0
            } else if signed {
                (((x as i32) >> off) << (32 - width) >> (32 - width)) as u32
            } else {
                (x >> off) & ((1 << width) - 1)
            }
        };
        want(92, bfe(10, 10, false));
        want(93, bfe(10, 10, true));
        want(94, bfe(0, 31, false));
        want(95, bfe(31, 1, true));
        want(96, 0);
        want(97, bfe(7, 25, false));
        want(98, bfe(7, 25, true));
        want(99, 0);
        // v_mbcnt: the bits of S0 below the lane's in the low (high) half, plus S1.
        let below = |m: u32, k: usize| (m & ((1u64 << k.min(32)) - 1) as u32).count_ones();
        want(100, below(u32::MAX, l));
        want(101, l as u32);
        want(102, below(0x8000_0001, l).wrapping_add(x));
        want(103, below(0x8000_0001, l.saturating_sub(32)) + 3);
        let want64 = |v: usize, new: u64| {
            want(v, new as u32);
            want(v + 1, (new >> 32) as u32);
        };
        want64(54, a);
        want64(56, a << 31);
        want64(58, a << 32);
        want64(60, a << 63);
        want64(62, a >> 1);
        want64(64, a >> 32);
        want64(66, a >> 45);
        want64(68, ((a as i64) >> 7) as u64);
        want64(70, ((a as i64) >> 32) as u64);
        want64(72, ((a as i64) >> 63) as u64);
        want64(74, ((a as i64) >> 63) as u64);
        want64(76, s22 << 5);
        if gfx10 {
            want64(78, ((a as i64) >> 33) as u64);
        }
        if gfx90a {
            let f = f32::from_bits;
            let (p, q) = (f(old.v[84][l]), f(old.v[85][l]));
            let (s, t) = (f(old.v[86][l]), f(old.v[87][l]));
            let want_f = |v: usize, new: [f32; 2]| {
                want_f32_pair(&r, &old, v, l, active.then_some(new), mcpu);
            };
            // Result half h reads source k's half op_sel[k] (op_sel_hi[k] for the high
            // result), negated by neg_lo[k] (neg_hi[k]).
            want_f(80, [p + -s, q + -t]);
            want_f(82, [-q * s, p * t]);
            want_f(88, [p.mul_add(s, p), (-q).mul_add(-s, q)]);
            want_f(90, [-q + -1.0, q + 1.0]);
        }
    }
    let get = |n: usize| {
        if wave32 {
            u64::from(r.s[n])
        } else {
            u64::from(r.s[n]) | u64::from(r.s[n + 1]) << 32
        }
    };
    assert_eq!(get(34), masks[0], "{mcpu}{attr}: v_cmp_gt_u64 (VCC)");
    // v_readlane reads its lane whatever EXEC says (lane 5 is inactive).
    assert_eq!(r.s[44], old.v[45][5], "{mcpu}{attr}: v_readlane_b32 lane 5");
    assert_eq!(
        r.s[45],
        old.v[46][0x3d & (lanes - 1)],
        "{mcpu}{attr}: by s46"
    );
    assert_eq!(
        r.s[47],
        old.v[45][37 & (lanes - 1)],
        "{mcpu}{attr}: lane 37"
    );
    for (k, n) in [24, 26, 28, 30, 32, 36, 38].into_iter().enumerate() {
        assert_eq!(get(n), masks[k + 1], "{mcpu}{attr}: compare into s{n}");
    }
    let mut vcc16 = 0u64;
    for l in 0..lanes {
        if exec >> l & 1 != 0 && 2 > old.v[44][l] as u16 {
            vcc16 |= 1 << l;
        }
    }
    assert_eq!(
        get(WaveRegs::VCC),
        vcc16,
        "{mcpu}{attr}: v_cmp_gt_u16 (VCC)"
    );
    // v_cmpx writes EXEC (and on GFX9 the SGPR pair too).
    assert_eq!(r.exec(), cmpx, "{mcpu}{attr}: v_cmpx_gt_u64 EXEC");
    if !gfx10 {
        assert_eq!(get(2), cmpx, "{mcpu}{attr}: v_cmpx_gt_u64 s[2:3]");
    }
}

/// The scalar 64-bit shifts, the 64- and 32-bit logic forms, `s_not`, `s_lshlN_add_u32`,
/// `s_bfe` and `s_bfm`, with SCC after each (`s_cselect_b32`), for several inputs: each run
/// compiled and checked against the interpreter and the definitions.
fn check_salu(gen: Gen, mcpu: &str, attr: &str) {
    let text = "s_lshl_b64 s[40:41], s[20:21], s24
                s_cselect_b32 s60, 1, 0
                s_lshr_b64 s[42:43], s[20:21], s24
                s_cselect_b32 s61, 1, 0
                s_ashr_i64 s[44:45], s[20:21], s24
                s_cselect_b32 s62, 1, 0
                s_not_b64 s[46:47], s[20:21]
                s_cselect_b32 s63, 1, 0
                s_orn2_b64 s[48:49], s[20:21], s[22:23]
                s_cselect_b32 s64, 1, 0
                s_nand_b64 s[50:51], s[20:21], s[22:23]
                s_cselect_b32 s65, 1, 0
                s_nor_b64 s[52:53], s[20:21], s[22:23]
                s_cselect_b32 s66, 1, 0
                s_xnor_b64 s[54:55], s[20:21], s[22:23]
                s_cselect_b32 s67, 1, 0
                s_lshl1_add_u32 s56, s20, s25
                s_cselect_b32 s68, 1, 0
                s_lshl4_add_u32 s57, s20, s25
                s_cselect_b32 s69, 1, 0
                s_bfe_u32 s58, s20, s26
                s_cselect_b32 s70, 1, 0
                s_bfe_i32 s59, s20, s26
                s_cselect_b32 s71, 1, 0
                s_orn2_b32 s72, s20, s22
                s_cselect_b32 s73, 1, 0
                s_nand_b32 s74, s20, s22
                s_cselect_b32 s75, 1, 0
                s_nor_b32 s76, s20, s22
                s_cselect_b32 s77, 1, 0
                s_xnor_b32 s78, s20, s22
                s_cselect_b32 s79, 1, 0
                s_not_b32 s80, s20
                s_cselect_b32 s81, 1, 0
                s_bfm_b32 s82, s24, s25
                s_lshl_b64 s[84:85], s[20:21], 32
                s_lshr_b64 s[86:87], s[20:21], 0x41
                s_cmpk_lt_i32 s20, 0x8000
                s_cselect_b32 s89, 1, 0
                s_cmpk_gt_u32 s20, 0xfff0
                s_cselect_b32 s90, 1, 0
                s_cmpk_eq_u32 s25, 0x7
                s_cselect_b32 s91, 1, 0
                s_cmpk_le_i32 s25, 0xffff
                s_cselect_b32 s92, 1, 0
                s_cmpk_ge_u32 s25, 0xffff
                s_cselect_b32 s93, 1, 0
                s_cmpk_lg_i32 s24, 63
                s_cselect_b32 s94, 1, 0
                s_cmp_lg_u64 s[20:21], 0
                s_cselect_b32 s96, 1, 0
                s_cmp_eq_u64 s[20:21], s[22:23]
                s_brev_b32 s97, s20
                s_ff1_i32_b32 s98, s22
                s_cselect_b32 s95, 1, 0
                s_lshl3_add_u32 s88, s20, 7
                s_endpgm
";
    let words = assemble(mcpu, attr, text);
    // Every instruction but s_endpgm compiles.
    let n = text.lines().filter(|l| !l.trim().is_empty()).count() as u64 - 1;
    // (S0 64-bit, S1 64-bit, shift amount / bfm width, addend / bfm offset, bfe control).
    let inputs: [(u64, u64, u32, u32, u32); 8] = [
        (
            0x8000_0000_0000_0001,
            0x0f0f_f0f0_1234_5678,
            1,
            0xffff_ffff,
            4 | 8 << 16,
        ),
        (0xffff_ffff_ffff_ffff, 0, 63, 1, 31 | 1 << 16),
        (1, u64::MAX, 64, 0, 0),
        (
            0x1234_5678_9abc_def0,
            0xffff_0000_ffff_0000,
            32,
            0x8000_0000,
            8 | 32 << 16,
        ),
        (0, 0, 0, 0, 3 | 40 << 16),
        (
            0xf000_0000_8000_0000,
            0x8000_0000_0000_0000,
            97,
            0x7fff_ffff,
            16 | 16 << 16,
        ),
        (
            0x7fff_ffff_ffff_ffff,
            0xfedc_ba98_7654_3210,
            33,
            5,
            0x7f_0000,
        ),
        (
            0x0000_0001_1000_0000,
            0x1_0000_0000,
            31,
            0xf000_0000,
            28 | 4 << 16,
        ),
    ];
    for (a, b, sh, add, ctl) in inputs {
        let mut r = WaveRegs::new(gen);
        r.s[20] = a as u32;
        r.s[21] = (a >> 32) as u32;
        r.s[22] = b as u32;
        r.s[23] = (b >> 32) as u32;
        r.s[24] = sh;
        r.s[25] = add;
        r.s[26] = ctl;
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
        if jit::checks_single_runs() {
            let after = jit::stats();
            assert!(
                after.instructions >= before.instructions + n,
                "{mcpu}{attr}: not compiled ({before:?} → {after:?})"
            );
        }
        let s64 = |n: usize| u64::from(r.s[n]) | u64::from(r.s[n + 1]) << 32;
        let what = format!("{mcpu}{attr} {a:#x} {b:#x} {sh} {add:#x} {ctl:#x}");
        let (a32, b32) = (a as u32, b as u32);
        // 64-bit results with SCC = result non-zero.
        let k = sh & 63;
        for (n, scc, want) in [
            (40, 60, a << k),
            (42, 61, a >> k),
            (44, 62, ((a as i64) >> k) as u64),
            (46, 63, !a),
            (48, 64, a | !b),
            (50, 65, !(a & b)),
            (52, 66, !(a | b)),
            (54, 67, !(a ^ b)),
        ] {
            assert_eq!(s64(n), want, "{what}: s[{n}]");
            assert_eq!(r.s[scc], u32::from(want != 0), "{what}: SCC into s{scc}");
        }
        // D = (S0 << n) + S1 in 64 bits, SCC = bits above 31.
        for (n, scc, shift) in [(56, 68, 1), (57, 69, 4)] {
            let v = (u64::from(a32) << shift) + u64::from(add);
            assert_eq!(r.s[n], v as u32, "{what}: s_lshl{shift}_add_u32");
            assert_eq!(r.s[scc], u32::from(v >> 32 != 0), "{what}: its SCC");
        }
        // s_bfe: offset S1[4:0], width S1[22:16] (0: zero, 32 and up: everything above the
        // offset).
        let (off, width) = (ctl & 31, ctl >> 16 & 0x7f);
        let bfe_u = if width == 0 {
            0
        } else if width >= 32 {
            a32 >> off
        } else {
            (a32 >> off) & ((1 << width) - 1)
        };
        let bfe_i = if width == 0 {
            0
        } else if width >= 32 {
            ((a32 as i32) >> off) as u32
        } else {
            ((((a32 as i32) >> off) << (32 - width)) >> (32 - width)) as u32
        };
        for (n, scc, want) in [
            (58, 70, bfe_u),
            (59, 71, bfe_i),
            (72, 73, a32 | !b32),
            (74, 75, !(a32 & b32)),
            (76, 77, !(a32 | b32)),
            (78, 79, !(a32 ^ b32)),
            (80, 81, !a32),
        ] {
            assert_eq!(r.s[n], want, "{what}: s{n}");
            assert_eq!(r.s[scc], u32::from(want != 0), "{what}: SCC into s{scc}");
        }
        let bfm = ((1u64 << (sh & 31)) - 1) as u32;
        assert_eq!(r.s[82], bfm.wrapping_shl(add & 31), "{what}: s_bfm_b32");
        assert_eq!(s64(84), a << 32, "{what}: s_lshl_b64 by 32");
        assert_eq!(s64(86), a >> 1, "{what}: s_lshr_b64 by 0x41");
        // s_cmpk: the SGPR against simm16, sign-extended for _i32, zero-extended for _u32.
        for (n, want) in [
            (89, (a32 as i32) < -0x8000),
            (90, a32 > 0xfff0),
            (91, add == 7),
            (92, add as i32 <= -1),
            (93, add >= 0xffff),
            (94, sh != 63),
            (96, a != 0),
            // s_brev_b32 and s_ff1_i32_b32 leave SCC (of s_cmp_eq_u64) alone.
            (95, a == b),
        ] {
            assert_eq!(r.s[n], u32::from(want), "{what}: SCC into s{n}");
        }
        assert_eq!(r.s[97], a32.reverse_bits(), "{what}: s_brev_b32");
        let ff1 = if b32 == 0 {
            u32::MAX
        } else {
            b32.trailing_zeros()
        };
        assert_eq!(r.s[98], ff1, "{what}: s_ff1_i32_b32");
        assert_eq!(r.s[88], a32.wrapping_shl(3).wrapping_add(7), "{what}");
        assert_eq!(
            r.scc,
            (u64::from(a32) << 3) + 7 > 0xffff_ffff,
            "{what}: SCC"
        );
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

/// A branch to a label assembles to its offset (SOPP `s_branch`: 0xbf82 and SIMM16, the
/// distance in dwords from the next instruction), not to the listing's fixup placeholder.
#[test]
fn labels_assemble_to_their_offsets() {
    let words = assemble(
        "gfx90a",
        "",
        "s_branch skip\ns_nop 0\ns_nop 0\nskip:\ns_endpgm\n",
    );
    assert_eq!(words, [0xbf82_0002, 0xbf80_0000, 0xbf80_0000, 0xbf81_0000]);
}

#[test]
fn compiled_blocks_match_the_interpreter_and_the_definitions() {
    check_compares_and_conversions(Gen::Gfx90a, "gfx90a", "", 64);
    check_compares_and_conversions(Gen::Gfx9, "gfx906", "", 64);
    check_compares_and_conversions(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_compares_and_conversions(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_salu(Gen::Gfx90a, "gfx90a", "");
    check_salu(Gen::Gfx10, "gfx1030", "+wavefrontsize32");
    check_cache_ops_in_a_loop(Gen::Gfx90a, "gfx90a", "");
    check_cache_ops_in_a_loop(Gen::Gfx10, "gfx1030", "+wavefrontsize32");
    compiled_memory_instructions_match_the_interpreter_and_the_definitions();
    lds::inline_ds_accesses_match_the_definitions();
    atomics::atomics_and_barriers_match_the_definitions();
    narrow::compiled_narrow_loads_match_the_interpreter_and_the_definitions();
    stencil::overlapping_dword_loads_match_the_definition();
    dse::overwritten_rows_are_stored_where_read();
    mad64::mad64_with_scalar_factors_matches_the_definition();
    f64::f64_chains_match_the_definitions();
    uniform_cmp::uniform_compares_match_the_definitions();
    mask_value::masks_read_as_values_match_the_definitions();
    scalar_cmp::scalar_compares_match_the_definitions();
    row_cmp::compares_of_kept_rows_match_the_definitions();
    carry_chain::carry_chains_match_the_64_bit_definitions();
    fma_nan::fma_nans_in_a_run_match_the_definition();
    nan_seg::nan_segments_match_the_definitions();
    minmax::max_min_match_the_definitions();
    class::class_compares_match_the_definition();
    div::division_steps_match_the_definition();
    lds_fmac::lds_rows_feeding_fmac_chains_match_the_definitions();
    lds_run::lds_loads_in_group_passes_match_the_definitions();
    lds_reload::rows_loaded_again_in_a_run_match_the_definitions();
    pending_rows::pending_rows_are_stored_where_they_are_read();
    global_rows::global_loads_in_runs_shorter_than_the_wave_match_the_definition();
    one_address::loads_of_one_address_match_the_definition();
    tiles::tile_rows_on_facts_match_the_definitions();
    smem_share::smem_loads_sharing_a_check_match_the_definition();

    sgprs::sgprs_written_in_regions_reach_the_wave();
    code_memory::compiled_code_keeps_the_process_mappings_few();
    affine::lane_affine_address_arithmetic_matches_the_definitions();
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
    // Last: its dispatches compile in the background, which the counters above would see.
    affine::fresh_waves_take_their_id_rows_from_the_dispatch();
    rounds::a_rounds_waves_run_with_their_own_state();
    lds_live::dead_ds_rows_are_not_stored_and_live_ones_are();
    barrier_tail::barrier_tails_run_before_the_wave_parks();
    grid2d::tile_rows_kept_as_values_match_the_definition();
    tile_marks::a_kept_tile_mark_is_cleared_by_another_regions_write();
    tile_marks::a_shape_kept_tile_mark_is_cleared_under_a_partial_exec();
    pairs::pairs_of_wave32s_match_their_cpu_results();
    pairs::fresh_pairs_compare_sgprs_set_per_wave();
    pairs::lazy_id_rows_are_whole_where_read();
    streams::streamed_work_groups_match_their_cpu_results();
    streams::streamed_faults_name_their_wave();
    streams::streamed_loops_match_their_cpu_results();
    streams::verify_checks_streamed_pairs();
    pending_sgprs::pending_sgprs_are_stored_where_a_region_leaves();
    overrun::long_blocks_run_compiled_at_a_turns_end();
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
    let add = v_add_u32(gfx10);
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
    let add = v_add_u32(!attr.is_empty());
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
    wild_lane_pairs(&mut r, base, 17);
    let before = jit::stats();
    let e =
        run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild pointer");
    want_dword_fault(e, WILD, false, &format!("{mcpu}{attr}"));
    want_compiled_run(&before, &format!("{mcpu}{attr}"));
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

/// The interpreter's fault for a dword access at `address` (a store when `write`).
pub(crate) fn want_dword_fault(e: FaultKind, address: u64, write: bool, what: &str) {
    let want = FaultKind::MemoryViolation {
        address,
        write,
        size: 4,
    };
    assert_eq!(e, want, "{what}");
}

/// Compiled code ran since `before` (when single runs check the tier).
pub(crate) fn want_compiled_run(before: &jit::Stats, what: &str) {
    if jit::checks_single_runs() {
        assert!(jit::stats().runs > before.runs, "{what}: no compiled run");
    }
}

/// Entry (`row`, `col`) of the `n` × `n` product `a · b` (row-major), summed in `j` order as
/// `cl/matmul.cl` does.
pub(crate) fn product_entry(a: &[f32], b: &[f32], n: usize, row: usize, col: usize) -> f32 {
    (0..n).map(|j| a[row * n + j] * b[j * n + col]).sum()
}

/// [`want_compiled_run`], and no call into the interpreter since `before`: every memory
/// access generated inline.
pub(crate) fn want_inline_run(before: &jit::Stats, what: &str) {
    want_compiled_run(before, what);
    if jit::checks_single_runs() {
        assert_eq!(
            jit::stats().calls,
            before.calls,
            "{what}: every access inline, no call into the interpreter"
        );
    }
}

/// Loads and stores under a full EXEC, generated inline (no call into the interpreter):
/// consecutive lanes (16-byte moves), runs of four lanes (a 16-byte move each), scattered
/// lanes (one access each), dwordx2 at 8-byte
/// aligned addresses, dwordx4, FLAT, SMEM, and the wait after the stores. With `exec` first
/// (an EXEC write), the region has no full-EXEC variant: its stores test EXEC at run time.
fn inline_program(gfx10: bool, exec: &str) -> String {
    let add = v_add_u32(gfx10);
    let wait = if gfx10 {
        "s_waitcnt_vscnt null, 0x0"
    } else {
        "s_waitcnt vmcnt(0)"
    };
    format!(
        "{exec}
         s_load_dwordx4 s[4:7], s[0:1], 0x10
         s_load_dword s8, s[0:1], 0x24
         v_lshlrev_b32 v10, 2, v20
         global_load_dword v1, v10, s[0:1]
         global_load_dword v2, v[4:5], off
         global_load_dwordx2 v[6:7], v[4:5], off offset:8
         global_load_dwordx4 v[12:15], v[22:23], off
         flat_load_dword v8, v[24:25]
         {add} v3, v1, v2
         global_store_dword v10, v3, s[0:1] offset:1024
         global_store_dword v[26:27], v1, off
         flat_store_dwordx2 v[28:29], v[6:7]
         global_load_dword v16, v[30:31], off
         global_store_dword v[32:33], v16, off
         {wait}
         global_load_dword v9, v10, s[0:1] offset:1024
         s_endpgm
"
    )
}

fn check_inline_memory(gen: Gen, mcpu: &str, attr: &str, lanes: usize, write_exec: bool) {
    let exec = match (write_exec, lanes) {
        (false, _) => "s_nop 0",
        (true, 32) => "s_mov_b32 exec_lo, s10",
        (true, _) => "s_mov_b64 exec, s[10:11]",
    };
    let words = assemble(mcpu, attr, &inline_program(!attr.is_empty(), exec));
    let mut global = vec![0u8; 4096];
    for k in 0..1024 {
        global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
    }
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    (r.s[10], r.s[11]) = (u32::MAX, if lanes == 32 { 0 } else { u32::MAX });
    // A permutation of the lanes, for the scattered dwordx4 loads.
    let perm = |l: usize| (7 * l + 3) % lanes;
    // Runs of four lanes in reverse order, for a store.
    let quad_back = |l: usize| (lanes / 4 - 1).wrapping_sub(l / 4) % 16;
    for l in 0..64 {
        r.v[20][l] = l as u32;
        for (v, a) in [
            (4, base + 8 * l as u64),
            (22, base + 16 * perm(l) as u64),
            (24, base + 512 + 4 * l as u64),
            (26, base + 1536 + 4 * (lanes - 1 - l % lanes) as u64),
            (28, base + 2048 + 8 * l as u64),
            (30, base + 64 * (l / 4) as u64 + 4 * (l % 4) as u64),
            (
                32,
                base + 3072 + 16 * quad_back(l) as u64 + 4 * (l % 4) as u64,
            ),
        ] {
            (r.v[v][l], r.v[v + 1][l]) = (a as u32, (a >> 32) as u32);
        }
    }
    assert_eq!(r.exec().count_ones() as usize, lanes, "a full EXEC");
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut [], &mut global)
        .unwrap_or_else(|e| panic!("{mcpu}{attr}: {e:?}"));
    let after = jit::stats();
    if jit::checks_single_runs() {
        assert!(
            after.instructions >= before.instructions + 17 && after.runs > before.runs,
            "{mcpu}{attr}: not compiled whole ({before:?} → {after:?})"
        );
        assert_eq!(
            after.calls, before.calls,
            "{mcpu}{attr}: every access inline, no call into the interpreter"
        );
    }
    assert_eq!(r.s[4..9], [4, 5, 6, 7, 9].map(word), "{mcpu}{attr}: s_load");
    let mem = |k: usize| u32::from_le_bytes(global[4 * k..4 * k + 4].try_into().expect("4"));
    for l in 0..lanes {
        let ctx = format!("{mcpu}{attr} lane {l}");
        let sum = word(l).wrapping_add(word(2 * l));
        assert_eq!(r.v[1][l], word(l), "{ctx}: consecutive");
        assert_eq!(r.v[2][l], word(2 * l), "{ctx}: scattered");
        assert_eq!(
            [r.v[6][l], r.v[7][l]],
            [word(2 * l + 2), word(2 * l + 3)],
            "{ctx}: x2"
        );
        let p = perm(l);
        assert_eq!(
            [r.v[12][l], r.v[13][l], r.v[14][l], r.v[15][l]],
            [
                word(4 * p),
                word(4 * p + 1),
                word(4 * p + 2),
                word(4 * p + 3)
            ],
            "{ctx}: x4"
        );
        assert_eq!(r.v[8][l], word(128 + l), "{ctx}: flat");
        let quad = word(16 * (l / 4) + l % 4);
        assert_eq!(r.v[16][l], quad, "{ctx}: runs of four");
        assert_eq!(
            mem(768 + 4 * quad_back(l) + l % 4),
            quad,
            "{ctx}: runs of four"
        );
        assert_eq!(
            (mem(256 + l), r.v[9][l]),
            (sum, sum),
            "{ctx}: stored, loaded"
        );
        assert_eq!(mem(384 + lanes - 1 - l), word(l), "{ctx}: scattered store");
        assert_eq!(
            [mem(512 + 2 * l), mem(513 + 2 * l)],
            [word(2 * l + 2), word(2 * l + 3)],
            "{ctx}: flat x2 store"
        );
    }
}

/// A load at `s[0:1] + 4·v20`, then a store of it at the 64-bit addresses in `v[4:5]`.
const LOAD_THEN_STORE: &str = "v_lshlrev_b32 v10, 2, v20
         global_load_dword v1, v10, s[0:1]
         global_store_dword v[4:5], v1, off
         s_endpgm
";

/// Inline accesses that cannot stay inline: a wild address in one lane of a store, and a
/// store to a read-only range. The compiled block takes the call, which declines; the
/// interpreter reports the fault (the same address and kind), after the compiled
/// instructions before it.
fn check_inline_memory_faults(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, LOAD_THEN_STORE);
    let mut global = vec![0u8; 1024];
    let base = global.as_ptr() as u64;
    let mut r = WaveRegs::new(gen);
    (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
    wild_lane_pairs(&mut r, base, lanes / 2 + 1);
    let e = run_words_mem(gen, &words, &mut r.clone(), &mut [], &mut global).expect_err("wild");
    want_dword_fault(e, WILD, true, &format!("{mcpu}{attr}"));
    // Every lane in range, but the range is read-only: the load runs, the store faults at
    // its lowest address.
    for l in 0..64 {
        let a = base + 4 * l as u64;
        (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
    }
    let before = jit::stats();
    let e = run_words_mem_read_only(gen, &words, &mut r, &mut global).expect_err("read-only");
    want_dword_fault(e, base, true, &format!("{mcpu}{attr}"));
    want_compiled_run(&before, &format!("{mcpu}{attr}"));
    if jit::checks_single_runs() {
        assert!(
            jit::stats().calls > before.calls,
            "{mcpu}{attr}: the store's call"
        );
    }
}

/// Stores whose lanes look consecutive but are not all in one range: the one-pass shape
/// test (low halves `V0 + 4·lane`, high halves equal) must send them to the checked path,
/// and the interpreter reports the fault at the right lane, after the lanes before it
/// stored (its own order). (1) Consecutive low halves, the last lane's high half one more:
/// that lane's address, 4 GiB away, is unmapped. (2) Consecutive lanes whose last one is
/// the first dword past the end of the mapping.
fn check_consecutive_shape_faults(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, LOAD_THEN_STORE);
    let what = format!("{mcpu}{attr}");
    let last = lanes - 1;
    // The lanes at `start + 4·lane` from `base + start`, with `global`'s words.
    let setup = |global: &mut Vec<u8>, start: u64| {
        for k in 0..256 {
            global[4 * k..4 * k + 4].copy_from_slice(&word(k).to_le_bytes());
        }
        let base = global.as_ptr() as u64;
        let mut r = WaveRegs::new(gen);
        (r.s[0], r.s[1]) = (base as u32, (base >> 32) as u32);
        for l in 0..64 {
            r.v[20][l] = l as u32;
            let a = base + start + 4 * l as u64;
            (r.v[4][l], r.v[5][l]) = (a as u32, (a >> 32) as u32);
        }
        (base, r)
    };
    // (1) The high half of the last lane differs.
    let mut g1 = vec![0u8; 1024];
    let (_, mut r1) = setup(&mut g1, 512);
    r1.v[5][last] = r1.v[5][last].wrapping_add(1);
    let far = (u64::from(r1.v[5][last]) << 32) | u64::from(r1.v[4][last]);
    let e = run_words_mem(gen, &words, &mut r1, &mut [], &mut g1).expect_err("high half");
    want_dword_fault(e, far, true, &format!("{what}: lane {last}'s high half"));
    // (2) The last lane one dword past the end.
    let start = 1024 - 4 * last as u64;
    let mut g2 = vec![0u8; 1024];
    let (base, mut r2) = setup(&mut g2, start);
    let e = run_words_mem(gen, &words, &mut r2, &mut [], &mut g2).expect_err("past the end");
    want_dword_fault(e, base + 1024, true, &format!("{what}: past the end"));
    // Which lanes stored before the fault is the interpreter's order (the same with the
    // tier off, which CI's `HSAEMU_JIT=0` run checks); here every lane before the faulting
    // one either stored its value or left memory as it was.
    for l in 0..last {
        let k = start as usize / 4 + l;
        let got = u32::from_le_bytes(g2[4 * k..4 * k + 4].try_into().expect("4"));
        assert!(
            got == word(l) || got == word(k),
            "{what}: lane {l} stored {got:#x}"
        );
    }
}

/// Part of the one test (the assembler's files and the tier's counters are per process).
fn compiled_memory_instructions_match_the_interpreter_and_the_definitions() {
    check_consecutive_shape_faults(Gen::Gfx90a, "gfx90a", "", 64);
    check_consecutive_shape_faults(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    for write_exec in [false, true] {
        check_inline_memory(Gen::Gfx90a, "gfx90a", "", 64, write_exec);
        check_inline_memory(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32, write_exec);
        check_inline_memory(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, write_exec);
    }
    check_inline_memory_faults(Gen::Gfx90a, "gfx90a", "", 64);
    check_inline_memory_faults(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_memory(Gen::Gfx90a, "gfx90a", "", 64);
    check_memory(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_memory(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
    check_memory_faults(Gen::Gfx90a, "gfx90a", "", 64);
    check_memory_faults(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
