//! `v_cmp_class_f32` compiled (`src/jit/lower.rs`'s `class32`) with a constant mask (the
//! classes with a clear bit are not tested at all), an SGPR mask (every class tested against
//! it), a literal (GFX10) and an `abs` on the value: edge values of every class in every
//! lane. Expected values from the ISA's definition: bit N of the mask for the value's class,
//! N = 0 signalling NaN, 1 quiet NaN, 2 −∞, 3 −normal, 4 −denormal, 5 −0, 6 +0,
//! 7 +denormal, 8 +normal, 9 +∞.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

const EDGES: [u32; 16] = [
    0x7f80_0001,
    0xffa0_0000,
    0x7fc0_0000,
    0xffc0_0123,
    0xff80_0000,
    0xbf80_0000,
    0xff7f_ffff,
    0x807f_ffff,
    0x8000_0001,
    0x8000_0000,
    0,
    1,
    0x007f_ffff,
    0x0080_0000,
    0x3f80_0000,
    0x7f80_0000,
];

/// The class number of f32 bits `v` (the module's numbering).
fn class(v: u32) -> u32 {
    let (neg, abs) = (v >> 31 == 1, v & 0x7fff_ffff);
    let side = |n: u32, p: u32| if neg { n } else { p };
    match abs {
        0x7f80_0001.. if v & 0x40_0000 == 0 => 0,
        0x7f80_0001.. => 1,
        0x7f80_0000 => side(2, 9),
        0 => side(5, 6),
        1..=0x007f_ffff => side(4, 7),
        _ => side(3, 8),
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let literal = !attr.is_empty();
    let d = |n: usize| {
        if lanes == 32 {
            format!("s{n}")
        } else {
            format!("s[{n}:{}]", n + 1)
        }
    };
    let mut text = format!(
        "v_cmp_class_f32_e64 {}, v0, 3
         v_cmp_class_f32_e64 {}, v0, 60
         v_cmp_class_f32_e64 {}, |v0|, 64
         v_cmp_class_f32_e64 {}, v0, s4
",
        d(10),
        d(12),
        d(14),
        d(16)
    );
    if literal {
        text += &format!("v_cmp_class_f32_e64 {}, v0, 0x260\n", d(18));
    }
    text += "s_endpgm\n";
    let words = assemble(mcpu, attr, &text);
    let what = format!("{mcpu}{attr}");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    r.s[4] = 0x2a5;
    for l in 0..64 {
        r.v[0][l] = EDGES[l % 16];
    }
    let before = jit::stats();
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    if jit::checks_single_runs() {
        let n = jit::stats().instructions - before.instructions;
        assert!(n >= 4, "{what}: {n} instructions compiled");
    }
    let mut checks: Vec<(usize, u32, bool)> = vec![
        (10, 3, false),
        (12, 60, false),
        (14, 64, true),
        (16, 0x2a5, false),
    ];
    if literal {
        checks.push((18, 0x260, false));
    }
    for (sgpr, mask, abs) in checks {
        let mut want = 0u64;
        for l in 0..lanes {
            let v = EDGES[l % 16] & if abs { 0x7fff_ffff } else { !0 };
            want |= u64::from(mask >> class(v) & 1) << l;
        }
        let got = if lanes == 32 {
            u64::from(r.s[sgpr])
        } else {
            u64::from(r.s[sgpr]) | u64::from(r.s[sgpr + 1]) << 32
        };
        assert_eq!(got, want, "{what}: s{sgpr} (mask {mask:#x})");
    }
}

/// Part of the one test in `jit.rs`.
pub(super) fn class_compares_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
