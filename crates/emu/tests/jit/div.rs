//! The f32 division steps compiled (`src/jit/div.rs`): clang's correctly rounded `a / b`
//! (`v_div_scale_f32` twice, `v_rcp_f32`, FMAs, `v_div_fmas_f32`, `v_div_fixup_f32`) on
//! ordinary quotients, then on the edges: denormal operands and quotients, huge and tiny
//! denominators, zeros, infinities, quiet and signalling NaNs. Every step is checked bit for
//! bit against the interpreter by `run_words`; the quotient against the definition, IEEE-754
//! binary32 division rounded to nearest even (the host's `/`; a NaN operand gives the first
//! NaN, the numerator's, quieted; an invalid quotient the GPU's default NaN, 0x7fc00000). With only ordinary quotients the whole sequence runs
//! compiled; a lane whose `v_div_fmas_f32` scales (VCC set) leaves the region before it.

use super::assemble;
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

fn program(wave32: bool) -> String {
    // GFX10 writes the denominator's flags nowhere (`null`), as clang does.
    let (s, vcc) = if wave32 {
        ("null", "vcc_lo")
    } else {
        ("s[0:1]", "vcc")
    };
    format!(
        "v_div_scale_f32 v3, {s}, v1, v1, v0
         v_div_scale_f32 v4, {vcc}, v0, v1, v0
         v_rcp_f32_e32 v5, v3
         v_fma_f32 v6, -v3, v5, 1.0
         v_fma_f32 v5, v6, v5, v5
         v_mul_f32_e32 v6, v4, v5
         v_fma_f32 v7, -v3, v6, v4
         v_fma_f32 v6, v7, v5, v6
         v_fma_f32 v3, -v3, v6, v4
         v_div_fmas_f32 v3, v3, v5, v6
         v_div_fixup_f32 v2, v3, v1, v0
         s_endpgm"
    )
}

/// (numerator, denominator) bits of lane `l`: ordinary quotients only, or the edges.
fn operands(l: usize, edges: bool) -> (u32, u32) {
    let x = l as f32;
    let ordinary = ((1.0 + x * 0.37).to_bits(), (3.0 - x * 0.11).to_bits());
    if !edges {
        return ordinary;
    }
    match l % 18 {
        0 => (0x0000_0123, 0x3f80_0000), // a denormal numerator
        1 => (0x3f80_0000, 0x0000_0456), // a denormal denominator
        2 => (0x0080_0000, 0x4b00_0000), // a denormal quotient
        3 => (0x3f80_0000, 0x7f00_0000), // a huge denominator
        4 => (0x7f7f_ffff, 0x3e80_0000), // an overflowing quotient
        5 => (0, 0x4000_0000),
        6 => (0x8000_0000, 0),
        7 => (0, 0),
        8 => (0x7f80_0000, 0xc000_0000),
        9 => (0x7f80_0000, 0xff80_0000),
        10 => (0x7fc0_0123, 0x4000_0000),
        11 => (0x4000_0000, 0x7f80_0456), // a signalling NaN denominator
        12 => (0xff80_0001, 0x7fc0_0777),
        13 => (0x1000_0000, 0x6f00_0000), // a quotient past 2^-126 the scalings handle
        14 => (0x1d80_0000, 0x0000_0456), // a denormal denominator, a small numerator
        15 => (0x0880_0000, 0x3580_0000), // a tiny numerator, a normal quotient
        16 => (0x7180_0000, 0x7f00_0000), // 1 / b denormal, the quotient normal
        _ => ordinary,
    }
}

fn quotient(a: u32, b: u32) -> u32 {
    match [a, b].iter().find(|&&v| f32::from_bits(v).is_nan()) {
        Some(&n) => n | 0x40_0000,
        None => {
            let q = f32::from_bits(a) / f32::from_bits(b);
            // An invalid quotient (0 / 0, ∞ / ∞) is the GPU's default NaN.
            if q.is_nan() {
                0x7fc0_0000
            } else {
                q.to_bits()
            }
        }
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, &program(lanes == 32));
    for edges in [false, true] {
        let what = format!("{mcpu}{attr} edges {edges}");
        let mut r = WaveRegs::new(gen);
        r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
        for l in 0..64 {
            (r.v[0][l], r.v[1][l]) = operands(l, edges);
        }
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        if jit::checks_single_runs() && !edges {
            let n = jit::stats().instructions - before.instructions;
            assert!(n >= 11, "{what}: {n} instructions compiled");
        }
        for l in 0..lanes {
            let (a, b) = operands(l, edges);
            assert_eq!(
                r.v[2][l],
                quotient(a, b),
                "{what}: lane {l}: {a:#x} / {b:#x}"
            );
        }
    }
}

/// The ISA's `v_div_fixup_f32 D, S0 (quotient), S1 (denominator), S2 (numerator)`: a NaN
/// operand (numerator first) quieted; 0/0 and ∞/∞ the default NaN; x/0 and ∞/x a signed
/// infinity; x/∞ and 0/x a signed zero; an exponent difference below −150 a signed zero
/// (underflow); a quotient with an all-ones exponent a signed infinity (overflow); else the
/// quotient's magnitude with the sign of S1 ^ S2.
fn fixup(q: u32, den: u32, num: u32) -> u32 {
    let (d, n) = (f32::from_bits(den), f32::from_bits(num));
    let sign = (den ^ num) & 0x8000_0000;
    let exp = |v: u32| (v >> 23 & 0xff) as i32;
    if n.is_nan() {
        num | 0x40_0000
    } else if d.is_nan() {
        den | 0x40_0000
    } else if (d == 0.0 && n == 0.0) || (d.is_infinite() && n.is_infinite()) {
        0x7fc0_0000
    } else if d == 0.0 || n.is_infinite() {
        sign | 0x7f80_0000
    } else if d.is_infinite() || n == 0.0 || exp(num) - exp(den) < -150 {
        sign
    } else if exp(q) == 255 {
        sign | 0x7f80_0000
    } else {
        sign | q & 0x7fff_ffff
    }
}

/// `v_div_fixup_f32` alone on (quotient, denominator, numerator) triples, the quotient not
/// the one the steps would give: each case must decide.
fn check_fixup(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, "v_div_fixup_f32 v2, v3, v1, v0\ns_endpgm\n");
    let triples = [
        (0x3f80_0000, 0x7f00_0000, 0x0000_0001), // underflow
        (0x7fc0_0000, 0x3f80_0000, 0x3f80_0000), // overflow: a NaN quotient
        (0xbf80_0000, 0x4000_0000, 0x4040_0000), // the quotient's magnitude, S1 ^ S2's sign
        (0x3f80_0000, 0x7f80_0000, 0x4000_0000), // x / ∞
        (0x3f80_0000, 0, 0x4000_0000),           // x / 0
        (0x3f80_0000, 0, 0),                     // 0 / 0
        (0x3f80_0000, 0x7f80_0001, 0x4000_0000), // a signalling NaN denominator
        (0x3f80_0000, 0x7f80_0001, 0xffa0_0000), // both NaN: the numerator's
    ];
    let what = format!("{mcpu}{attr} fixup");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        let (q, den, num) = triples[l % triples.len()];
        (r.v[3][l], r.v[1][l], r.v[0][l]) = (q, den, num);
    }
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    for l in 0..lanes {
        let (q, den, num) = triples[l % triples.len()];
        assert_eq!(r.v[2][l], fixup(q, den, num), "{what}: lane {l}");
    }
}

/// The ISA's `v_div_scale_f32 D, VCC, S0, S1 (denominator), S2 (numerator)`, the first case
/// that holds: a zero operand gives the default NaN; an exponent difference of 96 or more
/// sets the flag (S0 scaled up when it is the denominator); a denormal denominator scales
/// S0 up; a denormal reciprocal with a denormal quotient sets the flag (the denominator
/// scaled down: the reading that gives the correctly rounded quotient, `exec/valu_f32.rs`);
/// a denormal reciprocal alone scales down; a denormal quotient sets the flag (the
/// numerator scaled up); a numerator exponent of 23 or less scales up. Scaling is by 2^±64
/// with one rounding.
fn div_scale(s0: u32, s1: u32, s2: u32) -> (u32, bool) {
    let f = f32::from_bits;
    let exp = |v: u32| (v >> 23 & 0xff) as i32;
    let scale = |v: u32, up: bool| {
        (f64::from(f(v)) * if up { 2f64.powi(64) } else { 2f64.powi(-64) }) as f32
    };
    let sub = |x: f32| x != 0.0 && x.abs() < f32::MIN_POSITIVE;
    let (a, b, c) = (f(s0), f(s1), f(s2));
    let keep = |cond: bool, up: bool| if cond { scale(s0, up) } else { a };
    let (out, flag) = if b == 0.0 || c == 0.0 {
        (f32::NAN, false)
    } else if exp(s2) - exp(s1) >= 96 {
        (keep(a == b, true), true)
    } else if sub(b) {
        (scale(s0, true), false)
    } else if sub(1.0 / b) && sub(c / b) {
        (keep(a == b, false), true)
    } else if sub(1.0 / b) {
        (scale(s0, false), false)
    } else if sub(c / b) {
        (keep(a == c, true), true)
    } else if exp(s2) <= 23 {
        (scale(s0, true), false)
    } else {
        (a, false)
    };
    (out.to_bits(), flag)
}

/// `v_div_scale_f32` alone in both of clang's forms (S0 the denominator, its flags to an
/// SGPR pair or GFX10's `null`; S0 the numerator, its flags to VCC), on every operand pair of
/// the sequence's test.
fn check_scale(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let (s, vcc) = if lanes == 32 {
        ("s0", "vcc_lo")
    } else {
        ("s[0:1]", "vcc")
    };
    let text = format!(
        "v_div_scale_f32 v3, {s}, v1, v1, v0\nv_div_scale_f32 v4, {vcc}, v0, v1, v0\ns_endpgm\n"
    );
    let words = assemble(mcpu, attr, &text);
    let what = format!("{mcpu}{attr} scale");
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        (r.v[0][l], r.v[1][l]) = operands(l, true);
    }
    run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let mask = |lo: usize| {
        let hi = if lanes == 32 {
            0
        } else {
            u64::from(r.s[lo + 1]) << 32
        };
        u64::from(r.s[lo]) | hi
    };
    let (den_flags, num_flags) = (mask(0), mask(106));
    for l in 0..lanes {
        let (a, b) = operands(l, true);
        let (den, den_flag) = div_scale(b, b, a);
        let (num, num_flag) = div_scale(a, b, a);
        assert_eq!(
            r.v[3][l], den,
            "{what}: denominator lane {l}: {a:#x} / {b:#x}"
        );
        assert_eq!(
            r.v[4][l], num,
            "{what}: numerator lane {l}: {a:#x} / {b:#x}"
        );
        assert_eq!(den_flags >> l & 1 == 1, den_flag, "{what}: {s} lane {l}");
        assert_eq!(num_flags >> l & 1 == 1, num_flag, "{what}: VCC lane {l}");
    }
}

/// Part of the one test in `jit.rs`.
pub(super) fn division_steps_match_the_definition() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_fixup(Gen::Gfx90a, "gfx90a", "", 64);
    check_fixup(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check_scale(Gen::Gfx90a, "gfx90a", "", 64);
    check_scale(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
}
