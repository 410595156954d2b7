//! Per-instruction tests of GFX12 (RDNA4) opcodes (a module of `tests/inst.rs`): lines
//! assembled by llvm-mc-22 for gfx1200/gfx1201 (wave32 and wave64), run on one wave, and
//! compared with references written here from the RDNA4 ISA guide's pseudo-code.

use super::gfx11::{asm22, exec_of, mix, prefetch22, run1, vector_case_on};
use hsaemu_emu::{run_words, run_words_mem, run_words_scratch, FaultKind, Gen, WaveRegs};

/// The GFX12 waves the tests run: (llvm-mc cpu, wave64, emulator generation).
const WAVES: [(&str, bool, Gen); 2] = [
    ("gfx1200", false, Gen::Gfx12),
    ("gfx1201", true, Gen::Gfx12W64),
];

fn set_exec(r: &mut WaveRegs, e: u64) {
    r.s[WaveRegs::EXEC] = e as u32;
    r.s[WaveRegs::EXEC + 1] = (e >> 32) as u32;
}

// ---------------------------------------------------------------------------------------
// IEEE 754-2019 minimum/maximum and minimumNumber/maximumNumber, from the pseudo-code.

/// A float format's bit layout: (exponent mask, quiet bit, sign bit).
#[derive(Clone, Copy, Debug)]
struct Fmt(u64, u64, u64);
const F16: Fmt = Fmt(0x7c00, 0x200, 0x8000);
const F32: Fmt = Fmt(0x7f80_0000, 0x40_0000, 0x8000_0000);
const F64: Fmt = Fmt(0x7ff0 << 48, 1 << 51, 1 << 63);

impl Fmt {
    fn nan(self, x: u64) -> bool {
        x & self.0 == self.0 && x & (self.1 | (self.1 - 1)) != 0
    }
    fn signaling(self, x: u64) -> bool {
        self.nan(x) && x & self.1 == 0
    }
    fn value(self, x: u64) -> f64 {
        match self.2 {
            0x8000 => f64::from(half::f16::from_bits(x as u16)),
            0x8000_0000 => f64::from(f32::from_bits(x as u32)),
            _ => f64::from_bits(x),
        }
    }
    fn zero(self, x: u64) -> bool {
        x & !self.2 == 0
    }
}

/// `V_MINIMUM_*` (`number` false) / `S_MIN_NUM_*` (`number` true), `max` for the maximums:
///   minimum: if isSignalNAN(S0) → quiet(S0) elif isSignalNAN(S1) → quiet(S1)
///            elif isQuietNAN(S0) → S0 elif isQuietNAN(S1) → S1
///   number:  if isNAN(S0) && isNAN(S1) → quiet(S0) elif isNAN(S0) → S1 elif isNAN(S1) → S0
///   then:    S0 < S1 (−0 < +0 counts) → S0, else S1 (mirrored for the maximum).
fn ieee_ref(t: Fmt, s0: u64, s1: u64, max: bool, number: bool) -> u64 {
    if number {
        if t.nan(s0) && t.nan(s1) {
            return s0 | t.1;
        }
        if t.nan(s0) {
            return s1;
        }
        if t.nan(s1) {
            return s0;
        }
    } else {
        for x in [s0, s1] {
            if t.signaling(x) {
                return x | t.1;
            }
        }
        for x in [s0, s1] {
            if t.nan(x) {
                return x;
            }
        }
    }
    let (a, b) = (t.value(s0), t.value(s1));
    let less = a < b || (t.zero(s0) && t.zero(s1) && s0 & t.2 != 0 && s1 & t.2 == 0);
    let greater = a > b || (t.zero(s0) && t.zero(s1) && s0 & t.2 == 0 && s1 & t.2 != 0);
    if (max && greater) || (!max && less) {
        s0
    } else {
        s1
    }
}

/// Interesting operands of a format: ±0, ±1, ±2.5, ±inf, a denormal, quiet and signaling
/// NaNs of both signs with payloads.
fn specials(t: Fmt) -> Vec<u64> {
    let one = |v: f64| match t.2 {
        0x8000 => u64::from(half::f16::from_f64(v).to_bits()),
        0x8000_0000 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    };
    vec![
        0,
        t.2,
        one(1.0),
        one(-1.0),
        one(2.5),
        one(-2.5),
        t.0,
        t.0 | t.2,
        1,
        t.0 | t.1 | 3,
        t.0 | t.1 | t.2,
        t.0 | 5,
        t.0 | 1 | t.2,
    ]
}

/// Operand pairs (every special against every special), lane by lane.
fn pairs(t: Fmt) -> Vec<(u64, u64)> {
    let s = specials(t);
    let mut v = Vec::new();
    for &a in &s {
        for &b in &s {
            v.push((a, b));
        }
    }
    v
}

#[test]
fn salu_minimum_maximum_and_num() {
    for (mcpu, wave64, gen) in WAVES {
        for (name, t, max, number) in [
            ("s_min_num_f32", F32, false, true),
            ("s_max_num_f32", F32, true, true),
            ("s_minimum_f32", F32, false, false),
            ("s_maximum_f32", F32, true, false),
            ("s_min_num_f16", F16, false, true),
            ("s_max_num_f16", F16, true, true),
            ("s_minimum_f16", F16, false, false),
            ("s_maximum_f16", F16, true, false),
        ] {
            let w = asm22(mcpu, wave64, &[format!("{name} s2, s0, s1")]).remove(0);
            for (a, b) in pairs(t) {
                let mut r = WaveRegs::new(gen);
                r.s[0] = a as u32;
                r.s[1] = b as u32;
                r.s[2] = 0xdead_beef;
                run_words(gen, &w, &mut r).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                // A 16-bit result is zero-extended in its SGPR.
                let want = ieee_ref(t, a, b, max, number) as u32;
                assert_eq!(r.s[2], want, "{name} {a:#x}, {b:#x} [{mcpu}]");
            }
        }
    }
}

/// Runs `asm` on both GFX12 wave sizes with v0–v15 scrambled, EXEC without lane 5, and
/// `setup`; `check(before, after, lanes)`.
fn vector_case(
    asm: &str,
    setup: &dyn Fn(&mut WaveRegs),
    check: &dyn Fn(&WaveRegs, &WaveRegs, usize),
) {
    vector_case_on(&WAVES, asm, setup, check);
}

/// Lane `l`'s operand pair (cycling through [`pairs`], offset by `k` for more coverage).
fn pair_at(t: Fmt, l: usize, k: usize) -> (u64, u64) {
    let p = pairs(t);
    p[(l + 64 * k) % p.len()]
}

#[test]
fn valu_minimum_maximum() {
    // Two-operand f32/f16 forms, every pair over a few runs.
    for (name, t, max) in [
        ("v_minimum_f32", F32, false),
        ("v_maximum_f32", F32, true),
        ("v_minimum_f16", F16, false),
        ("v_maximum_f16", F16, true),
    ] {
        for k in 0..3 {
            vector_case(
                &format!("{name} v2, v0, v1"),
                &|r| {
                    for l in 0..64 {
                        let (a, b) = pair_at(t, l, k);
                        r.v[0][l] = a as u32;
                        r.v[1][l] = b as u32;
                    }
                },
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let want = if l == 5 {
                            b.v[2][l]
                        } else {
                            let (x, y) = pair_at(t, l, k);
                            let m = ieee_ref(t, x, y, max, false) as u32;
                            // A 16-bit result keeps the register's high half (GFX12).
                            if t.2 == 0x8000 {
                                b.v[2][l] & 0xffff_0000 | m
                            } else {
                                m
                            }
                        };
                        assert_eq!(a.v[2][l], want, "{name} w{lanes} lane {l} k{k}");
                    }
                },
            );
        }
    }
    // f64.
    for (name, max) in [("v_minimum_f64", false), ("v_maximum_f64", true)] {
        for k in 0..3 {
            vector_case(
                &format!("{name} v[4:5], v[0:1], v[2:3]"),
                &|r| {
                    for l in 0..64 {
                        let (a, b) = pair_at(F64, l, k);
                        (r.v[0][l], r.v[1][l]) = (a as u32, (a >> 32) as u32);
                        (r.v[2][l], r.v[3][l]) = (b as u32, (b >> 32) as u32);
                    }
                },
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let got = u64::from(a.v[4][l]) | u64::from(a.v[5][l]) << 32;
                        let want = if l == 5 {
                            u64::from(b.v[4][l]) | u64::from(b.v[5][l]) << 32
                        } else {
                            let (x, y) = pair_at(F64, l, k);
                            ieee_ref(F64, x, y, max, false)
                        };
                        assert_eq!(got, want, "{name} w{lanes} lane {l} k{k}");
                    }
                },
            );
        }
    }
}

#[test]
fn valu_minimum_maximum_three_operands() {
    // (mnemonic, format, first is a maximum, second is a maximum): minimum3 = min(min(S0,
    // S1), S2); minimummaximum = maximum(minimum(S0, S1), S2); maximumminimum the converse.
    for (name, t, m1, m2) in [
        ("v_minimum3_f16", F16, false, false),
        ("v_maximum3_f16", F16, true, true),
        ("v_minimummaximum_f32", F32, false, true),
        ("v_maximumminimum_f32", F32, true, false),
        ("v_minimummaximum_f16", F16, false, true),
        ("v_maximumminimum_f16", F16, true, false),
    ] {
        let s = specials(t);
        let third = |l: usize| s[(l * 7 + 3) % s.len()];
        for k in 0..3 {
            vector_case(
                &format!("{name} v3, v0, v1, v2"),
                &|r| {
                    for l in 0..64 {
                        let (a, b) = pair_at(t, l, k);
                        r.v[0][l] = a as u32;
                        r.v[1][l] = b as u32;
                        r.v[2][l] = third(l + k) as u32;
                    }
                },
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let want = if l == 5 {
                            b.v[3][l]
                        } else {
                            let (x, y) = pair_at(t, l, k);
                            let first = ieee_ref(t, x, y, m1, false);
                            let m = ieee_ref(t, first, third(l + k), m2, false) as u32;
                            if t.2 == 0x8000 {
                                b.v[3][l] & 0xffff_0000 | m
                            } else {
                                m
                            }
                        };
                        assert_eq!(a.v[3][l], want, "{name} w{lanes} lane {l} k{k}");
                    }
                },
            );
        }
    }
}

#[test]
fn packed_minimum_maximum() {
    for (name, max) in [("v_pk_minimum_f16", false), ("v_pk_maximum_f16", true)] {
        for k in 0..3 {
            // Low halves pair k, high halves pair k + 1 (different pairs per half).
            vector_case(
                &format!("{name} v2, v0, v1"),
                &|r| {
                    for l in 0..64 {
                        let (a, b) = pair_at(F16, l, k);
                        let (c, d) = pair_at(F16, l, k + 1);
                        r.v[0][l] = (a | c << 16) as u32;
                        r.v[1][l] = (b | d << 16) as u32;
                    }
                },
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let want = if l == 5 {
                            b.v[2][l]
                        } else {
                            let (x, y) = pair_at(F16, l, k);
                            let (z, q) = pair_at(F16, l, k + 1);
                            (ieee_ref(F16, x, y, max, false)
                                | ieee_ref(F16, z, q, max, false) << 16)
                                as u32
                        };
                        assert_eq!(a.v[2][l], want, "{name} w{lanes} lane {l} k{k}");
                    }
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Transcendentals on a scalar.

/// `v_s_*`: D.sgpr = op(S0) with the VALU operation's definition; written whatever EXEC is
/// (here EXEC = 0), f16 results zero-extended; VOP3 neg and clamp apply.
#[test]
fn scalar_transcendentals() {
    let h = |x: f64| u32::from(half::f16::from_f64(x).to_bits());
    let s = |x: f32| x.to_bits();
    // (line, S0, expected D)
    let cases: Vec<(&str, u32, u32)> = vec![
        ("v_s_exp_f32 s2, s0", s(3.0), s(8.0)),
        ("v_s_exp_f32 s2, s0", s(-1.5), s(2f32.powf(-1.5))),
        ("v_s_exp_f32 s2, -s0", s(2.0), s(0.25)),
        ("v_s_exp_f32 s2, s0 clamp", s(3.0), s(1.0)),
        ("v_s_log_f32 s2, s0", s(8.0), s(3.0)),
        ("v_s_log_f32 s2, s0", s(0.0), s(f32::NEG_INFINITY)),
        ("v_s_rcp_f32 s2, s0", s(4.0), s(0.25)),
        ("v_s_rcp_f32 s2, s0", s(-0.0), s(f32::NEG_INFINITY)),
        ("v_s_rsq_f32 s2, s0", s(16.0), s(0.25)),
        ("v_s_sqrt_f32 s2, s0", s(2.25), s(1.5)),
        ("v_s_sqrt_f32 s2, |s0|", s(-6.25), s(2.5)),
        ("v_s_exp_f16 s2, s0", h(3.0), h(8.0)),
        ("v_s_log_f16 s2, s0", h(0.25), h(-2.0)),
        ("v_s_rcp_f16 s2, s0", 0xffff_0000 | h(8.0), h(0.125)),
        ("v_s_rsq_f16 s2, s0", h(4.0), h(0.5)),
        ("v_s_sqrt_f16 s2, s0", h(9.0), h(3.0)),
        ("v_s_rcp_f16 s2, -s0", h(8.0), h(-0.125)),
        ("v_s_exp_f16 s2, s0 clamp", h(-1.0), h(0.5)),
        ("v_s_exp_f16 s2, s0 clamp", h(1.0), h(1.0)),
    ];
    let lines: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    for (mcpu, wave64, gen) in WAVES {
        prefetch22(mcpu, wave64, &lines);
        for &(line, x, want) in &cases {
            let r = run1(mcpu, wave64, gen, line, |r| {
                r.s[0] = x;
                r.s[2] = 0xdead_beef;
                set_exec(r, 0);
            });
            assert_eq!(r.s[2], want, "{line} of {x:#x} [{mcpu}]");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Lane permutes with a per-lane select.

/// `v_permlane16_var_b32` / `v_permlanex16_var_b32 vdst, vsrc, vsel`: lane l reads lane
/// `row + vsel[l][3:0]` of vsrc, `row` its own row of 16 (x16: the other row of its 32-lane
/// half). An inactive source lane leaves the lane unwritten, unless `fi` (op_sel[0]) reads it
/// anyway or `bound_ctrl` (op_sel[1]) writes 0.
#[test]
fn permlane_var() {
    for (op, cross) in [
        ("v_permlane16_var_b32", false),
        ("v_permlanex16_var_b32", true),
    ] {
        for (mods, fi, bound) in [
            ("", false, false),
            (" op_sel:[1,0]", true, false),
            (" op_sel:[0,1]", false, true),
        ] {
            vector_case(
                &format!("{op} v1, v0, v2{mods}"),
                &|_| {},
                &|b, a, lanes| {
                    for l in 0..lanes {
                        let row = if cross { (l ^ 16) & !15 } else { l & !15 };
                        let src = row + (b.v[2][l] & 15) as usize;
                        let want = if l == 5 {
                            b.v[1][l]
                        } else if src != 5 || fi {
                            b.v[0][src]
                        } else if bound {
                            0
                        } else {
                            b.v[1][l]
                        };
                        assert_eq!(a.v[1][l], want, "{op}{mods} w{lanes} lane {l} from {src}");
                    }
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// fp8/bf8 dot products.

/// The value of an OCP 8-bit float: E4M3 (`fp8`: bias 7, S.1111.111 the NaN, no
/// infinities) or E5M2 (`bf8`: bias 15, IEEE-like infinities and NaNs).
fn ocp8(b: u8, bf8: bool) -> f32 {
    let (man, bias) = if bf8 { (2, 15) } else { (3, 7) };
    let e = i32::from(b & 0x7f) >> man;
    let m = i32::from(b) & ((1 << man) - 1);
    let sign: f64 = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let top = if bf8 { 31 } else { 15 };
    if e == top && (bf8 || m == 7) {
        return if bf8 && m == 0 {
            (sign as f32) * f32::INFINITY
        } else {
            f32::NAN
        };
    }
    let v = if e == 0 {
        f64::from(m) * 2f64.powi(1 - bias - man)
    } else {
        (1.0 + f64::from(m) / f64::from(1 << man)) * 2f64.powi(e - bias)
    };
    (sign * v) as f32
}

/// `v_dot4_f32_{a}_{b}`: tmp = S2.f32; tmp += A[k]·B[k] for k = 0..3 (f32 steps); D = tmp.
/// S2 may carry abs (neg_hi[2]) and neg (neg_lo[2]).
#[test]
fn dot4_f32_f8() {
    for (name, abf, bbf, mods, abs, neg) in [
        ("v_dot4_f32_fp8_bf8", false, true, "", false, false),
        (
            "v_dot4_f32_bf8_fp8",
            true,
            false,
            " neg_lo:[0,0,1]",
            false,
            true,
        ),
        (
            "v_dot4_f32_fp8_fp8",
            false,
            false,
            " neg_hi:[0,0,1]",
            true,
            false,
        ),
        (
            "v_dot4_f32_bf8_bf8",
            true,
            true,
            " neg_lo:[0,0,1] neg_hi:[0,0,1]",
            true,
            true,
        ),
    ] {
        dot4_case(name, abf, bbf, mods, abs, neg);
    }
}

fn dot4_case(name: &str, abf: bool, bbf: bool, mods: &str, abs: bool, neg: bool) {
    {
        // Finite bytes (the NaN/inf encodings left out but for lane 7's).
        let byte = |x: u64, bf: bool| {
            let v = x as u8;
            if (bf && v & 0x7c == 0x7c) || (!bf && v & 0x7f == 0x7f) {
                v & 0xbb
            } else {
                v
            }
        };
        let word = |l: usize, k: u64, bf: bool| -> u32 {
            (0..4)
                .map(|j| u32::from(byte(mix(l as u64 * 8 + j + k * 1000), bf)) << (8 * j))
                .fold(0, |a, b| a | b)
        };
        vector_case(
            &format!("{name} v3, v0, v1, v2{mods}"),
            &|r| {
                for l in 0..64 {
                    r.v[0][l] = word(l, 1, abf);
                    r.v[1][l] = word(l, 2, bbf);
                    r.v[2][l] = ((l as f32 - 20.0) * 0.375).to_bits();
                }
                // Lane 7: a NaN element (fp8 0x7f, bf8 0x7e) makes the sum NaN.
                r.v[0][7] = if abf { 0x7e } else { 0x7f };
            },
            &|b, a, lanes| {
                for l in 0..lanes {
                    let want = if l == 5 {
                        b.v[3][l]
                    } else {
                        let mut acc = f32::from_bits(b.v[2][l]);
                        if abs {
                            acc = acc.abs();
                        }
                        if neg {
                            acc = -acc;
                        }
                        for k in 0..4 {
                            acc += ocp8((b.v[0][l] >> (8 * k)) as u8, abf)
                                * ocp8((b.v[1][l] >> (8 * k)) as u8, bbf);
                        }
                        acc.to_bits()
                    };
                    if l == 7 {
                        assert!(f32::from_bits(a.v[3][l]).is_nan(), "{name} lane 7");
                        continue;
                    }
                    assert_eq!(a.v[3][l], want, "{name} w{lanes} lane {l}");
                }
            },
        );
    }
}

// ---------------------------------------------------------------------------------------
// Atomics new in GFX12.

/// What an atomic does to (old, data): the pseudo-code's new memory value.
#[derive(Clone, Copy, Debug)]
enum Atom {
    /// `cond_sub`: old >= data ? old − data : old.
    CondSub,
    /// `sub_clamp`: old >= data ? old − data : 0.
    SubClamp,
    /// `min_num`/`max_num` (f32, or f64 for DS `_f64`): minimumNumber/maximumNumber with the
    /// data as S0.
    Num { max: bool, t: Fmt },
}

impl Atom {
    fn apply(self, old: u64, data: u64) -> u64 {
        match self {
            Atom::CondSub => {
                if old >= data {
                    old - data
                } else {
                    old
                }
            }
            // The pseudo-code: old < data ? 0 : old − data.
            Atom::SubClamp => old.saturating_sub(data),
            Atom::Num { max, t } => ieee_ref(t, data, old, max, true),
        }
    }
}

/// Lane operands of the atomics: (old, data) per lane, from a type's edge cases.
fn atomic_operands(a: Atom) -> Vec<(u64, u64)> {
    match a {
        Atom::Num { t, .. } => pairs(t),
        _ => {
            let v = [0u64, 1, 5, 7, 100, 0x8000_0000, 0xffff_ffff];
            let mut out = Vec::new();
            for &x in &v {
                for &y in &v {
                    out.push((x, y));
                }
            }
            out
        }
    }
}

/// Every segment's form of an atomic (global, flat, buffer, DS), returning and not: each
/// lane works on its own element.
#[test]
fn atomics_cond_sub_sub_clamp_min_max_num() {
    let f32_max = Atom::Num { max: true, t: F32 };
    let f32_min = Atom::Num { max: false, t: F32 };
    let table: [(&str, Atom); 4] = [
        ("cond_sub_u32", Atom::CondSub),
        ("sub_clamp_u32", Atom::SubClamp),
        ("min_num_f32", f32_min),
        ("max_num_f32", f32_max),
    ];
    for (mcpu, wave64, gen) in WAVES {
        let lanes = if wave64 { 64 } else { 32 };
        let mut lines: Vec<(String, Atom, &str, bool, usize)> = Vec::new();
        for (op, a) in table {
            for ret in [false, true] {
                let th = if ret { " th:TH_ATOMIC_RETURN" } else { "" };
                let d = if ret { "v3, " } else { "" };
                lines.push((
                    format!("global_atomic_{op} {d}v1, v4, s[0:1]{th}"),
                    a,
                    "global",
                    ret,
                    4,
                ));
                lines.push((
                    format!("flat_atomic_{op} {d}v[6:7], v4{th}"),
                    a,
                    "flat",
                    ret,
                    4,
                ));
                lines.push((
                    format!("buffer_atomic_{op} v4, v1, s[8:11], null offen{th}"),
                    a,
                    "buffer",
                    ret,
                    4,
                ));
                let rtn = if ret { "_rtn" } else { "" };
                lines.push((format!("ds_{}", ds_name(op, rtn, d)), a, "ds", ret, 4));
            }
        }
        // DS f64 min/max_num.
        for (op, max) in [("min_num", false), ("max_num", true)] {
            for ret in [false, true] {
                let (rtn, d) = if ret { ("_rtn", "v[2:3], ") } else { ("", "") };
                lines.push((
                    format!("ds_{op}{rtn}_f64 {d}v1, v[4:5]"),
                    Atom::Num { max, t: F64 },
                    "ds",
                    ret,
                    8,
                ));
            }
        }
        let asms: Vec<String> = lines.iter().map(|l| l.0.clone()).collect();
        prefetch22(mcpu, wave64, &asms);
        for (asm, atom, seg, ret, bytes) in lines {
            let w = asm22(mcpu, wave64, std::slice::from_ref(&asm)).remove(0);
            let ops = atomic_operands(atom);
            for k in 0..ops.len().div_ceil(63) {
                let pick = |l: usize| ops[(l + 63 * k) % ops.len()];
                let mut store = vec![0u8; 64 * 8 + 8];
                let o = store.as_ptr().align_offset(8);
                let mem = &mut store[o..o + 64 * 8];
                let mut lds = vec![0u8; 65536];
                let addr = mem.as_ptr() as u64;
                let mut r = WaveRegs::new(gen);
                (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
                (r.s[8], r.s[9], r.s[10], r.s[11]) =
                    (addr as u32, (addr >> 32) as u32, 512, 3 << 28);
                set_exec(&mut r, exec_of(wave64));
                for l in 0..64 {
                    let (old, data) = pick(l);
                    let at = bytes * l;
                    let buf: &mut [u8] = if seg == "ds" { &mut lds } else { mem };
                    buf[at..at + bytes].copy_from_slice(&old.to_le_bytes()[..bytes]);
                    r.v[1][l] = at as u32;
                    r.v[4][l] = data as u32;
                    r.v[5][l] = (data >> 32) as u32;
                    let a = addr + at as u64;
                    (r.v[6][l], r.v[7][l]) = (a as u32, (a >> 32) as u32);
                    (r.v[2][l], r.v[3][l]) = (0xdead_beef, 0xdead_beef);
                }
                let before = r.clone();
                run_words_mem(gen, &w, &mut r, &mut lds, mem)
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                for l in 0..lanes {
                    let (old, data) = pick(l);
                    let at = bytes * l;
                    let buf: &[u8] = if seg == "ds" { &lds } else { mem };
                    let mut b8 = [0u8; 8];
                    b8[..bytes].copy_from_slice(&buf[at..at + bytes]);
                    let got = u64::from_le_bytes(b8);
                    let want = if l == 5 { old } else { atom.apply(old, data) };
                    let ctx = format!("{asm} w{lanes} lane {l}: old {old:#x} data {data:#x}");
                    assert_eq!(got, want, "{ctx}");
                    // The old value comes back only from a returning form (buffer: in the
                    // data VGPR; f64 DS: in v[2:3]).
                    let (lo, hi) = match (seg, bytes) {
                        ("buffer", _) => (4, 5),
                        (_, 8) => (2, 3),
                        _ => (3, 2),
                    };
                    let back = if bytes == 8 {
                        u64::from(r.v[lo][l]) | u64::from(r.v[hi][l]) << 32
                    } else {
                        u64::from(r.v[lo][l])
                    };
                    let expect_back = if ret && l != 5 {
                        old
                    } else if bytes == 8 {
                        u64::from(before.v[lo][l]) | u64::from(before.v[hi][l]) << 32
                    } else {
                        u64::from(before.v[lo][l])
                    };
                    assert_eq!(back, expect_back, "{ctx} returned");
                }
            }
        }
    }
}

/// The DS spelling of a 32-bit atomic: `ds_cond_sub_rtn_u32 v3, v1, v4`.
fn ds_name(op: &str, rtn: &str, d: &str) -> String {
    let (base, ty) = op.rsplit_once('_').expect("type suffix");
    format!("{base}{rtn}_{ty} {d}v1, v4")
}

// ---------------------------------------------------------------------------------------
// Prefetches and s_sleep_var.

/// The prefetches are hints: nothing changes, and an unmapped address does not fault.
#[test]
fn prefetches_are_hints() {
    for (mcpu, wave64, gen) in WAVES {
        for line in [
            "s_prefetch_inst s[0:1], 0x100, null, 7",
            "s_prefetch_data s[0:1], 0x0, m0, 31",
            "s_prefetch_inst_pc_rel 0x40, null, 3",
            "s_prefetch_data_pc_rel 0x40, s4, 3",
            "s_buffer_prefetch_data s[8:11], 0x20, null, 1",
            "s_sleep_var s4",
        ] {
            let r = run1(mcpu, wave64, gen, line, |r| {
                // A null address and descriptor: a load from them would fault.
                r.s[4] = 2;
                r.s[20] = 0x1234;
            });
            assert_eq!(
                (r.s[0], r.s[1], r.s[4], r.s[20]),
                (0, 0, 2, 0x1234),
                "{line}"
            );
        }
    }
}

/// `ds_bpermute_fi_b32 vdst, vaddr, vdata`: lane l reads vdata of lane (vaddr[l] + offset) / 4
/// (modulo the wave size), an inactive lane too (`fi`: fetch inactive); `ds_bpermute_b32`
/// reads 0 from an inactive lane.
#[test]
fn bpermute_fetch_inactive() {
    for (op, fi) in [("ds_bpermute_fi_b32", true), ("ds_bpermute_b32", false)] {
        vector_case(
            &format!("ds_bpermute{} v3, v1, v2 offset:8", &op[11..]),
            &|r| {
                for l in 0..64 {
                    // Every fourth lane reads lane 5 (inactive); the rest read around.
                    r.v[1][l] = if l % 4 == 0 {
                        5 * 4 - 8
                    } else {
                        r.v[1][l] & 0x3fc
                    };
                }
            },
            &|b, a, lanes| {
                for l in 0..lanes {
                    let s = ((b.v[1][l].wrapping_add(8) / 4) as usize) % lanes;
                    let want = if l == 5 {
                        b.v[3][l]
                    } else if s == 5 && !fi {
                        0
                    } else {
                        b.v[2][s]
                    };
                    assert_eq!(a.v[3][l], want, "{op} w{lanes} lane {l} from {s}");
                }
            },
        );
    }
}

// ---------------------------------------------------------------------------------------
// Barriers (one wave: the work-group barrier's only member; several waves: tests/gfx12.rs).

/// `s_barrier_signal_isfirst -1` sets SCC on the first signal of a phase; id 0 is a no-op
/// that clears SCC. `s_get_barrier_state` returns {signalCnt[22:16], memberCnt[10:4],
/// valid[0]}. The named-barrier operations RDNA4 does not have and `s_alloc_vgpr` (dynamic
/// VGPRs off) are illegal instructions.
#[test]
fn barrier_state_and_illegal_barrier_operations() {
    for (mcpu, wave64, gen) in WAVES {
        let r = run1(mcpu, wave64, gen, "s_barrier_signal_isfirst -1", |r| {
            r.scc = false
        });
        assert!(r.scc, "isfirst -1 [{mcpu}]");
        let r = run1(mcpu, wave64, gen, "s_barrier_signal_isfirst 0", |r| {
            r.scc = true
        });
        assert!(!r.scc, "isfirst 0 [{mcpu}]");
        let r = run1(mcpu, wave64, gen, "s_get_barrier_state s2, -1", |_| {});
        assert_eq!(r.s[2], 1 << 4 | 1, "barrier state [{mcpu}]");
        for line in [
            "s_barrier_init -1",
            "s_barrier_join -1",
            "s_barrier_leave",
            "s_alloc_vgpr 64",
        ] {
            let w = asm22(mcpu, wave64, &[line.to_string()]).remove(0);
            let e = run_words(gen, &w, &mut WaveRegs::new(gen)).expect_err(line);
            assert!(
                matches!(e, hsaemu_emu::FaultKind::IllegalInstruction { word } if word == w[0]),
                "{line}: {e:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Block loads and stores.

/// `global_load_block`/`global_store_block` and the scratch forms: for each set bit n of M0,
/// VGPR vdata+n moves to or from the lane's address + IOFFSET + 4·n; the offset advances
/// over skipped registers too (RDNA4 ISA §11.5). EXEC leaves lane 5 out.
#[test]
fn block_loads_and_stores() {
    let m0 = 0x8000_4c05u32;
    for (mcpu, wave64, gen) in WAVES {
        let lanes = if wave64 { 64 } else { 32 };
        for (asm, load, scratch) in [
            (
                "global_load_block v[8:39], v1, s[0:1] offset:16",
                true,
                false,
            ),
            (
                "global_store_block v1, v[8:39], s[0:1] offset:16",
                false,
                false,
            ),
            ("scratch_load_block v[8:39], v1, off offset:8", true, true),
            ("scratch_store_block v1, v[8:39], off offset:8", false, true),
        ] {
            let off = if scratch { 8 } else { 16 };
            let w = asm22(mcpu, wave64, &[asm.to_string()]).remove(0);
            let mut store = vec![0u8; 64 * 256 + 8];
            let o = store.as_ptr().align_offset(8);
            let mem = &mut store[o..o + 64 * 256];
            for (k, b) in mem.iter_mut().enumerate() {
                *b = mix(k as u64 + 77) as u8;
            }
            let before_mem = mem.to_vec();
            let addr = mem.as_ptr() as u64;
            let mut r = WaveRegs::new(gen);
            (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
            r.s[WaveRegs::M0] = m0;
            set_exec(&mut r, exec_of(wave64));
            for l in 0..64 {
                // Global: each lane its own 256 bytes; scratch: a per-lane offset.
                r.v[1][l] = if scratch {
                    4 * (l as u32 % 3)
                } else {
                    256 * l as u32
                };
                for n in 0..32 {
                    r.v[8 + n][l] = mix((l * 32 + n) as u64) as u32;
                }
            }
            let before = r.clone();
            let mut lds = vec![0u8; 65536];
            let res = if scratch {
                run_words_scratch(gen, &w, &mut r, &mut lds, mem, 256)
            } else {
                run_words_mem(gen, &w, &mut r, &mut lds, mem)
            };
            res.unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            // Byte index of lane l's dword n.
            let at = |l: usize, n: usize| -> usize {
                let p = before.v[1][l] as usize + off + 4 * n;
                if scratch {
                    (p / 4) * 4 * lanes + 4 * l
                } else {
                    p
                }
            };
            let word = |m: &[u8], k: usize| u32::from_le_bytes(m[k..k + 4].try_into().expect("4"));
            for l in 0..lanes {
                for n in 0..32 {
                    let moved = l != 5 && m0 >> n & 1 != 0;
                    let (got, want) = if load {
                        let w = if moved {
                            word(&before_mem, at(l, n))
                        } else {
                            before.v[8 + n][l]
                        };
                        (r.v[8 + n][l], w)
                    } else {
                        let w = if moved {
                            before.v[8 + n][l]
                        } else {
                            word(&before_mem, at(l, n))
                        };
                        (word(mem, at(l, n)), w)
                    };
                    assert_eq!(got, want, "{asm} w{lanes} lane {l} dword {n}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sub-dword scalar loads.

/// `s_load_u8/i8/u16/i16` and the `s_buffer_load_` forms: D.u32 = the byte or short at
/// base + offset, zero- or sign-extended (RDNA4 SMEM pseudo-code); the buffer forms take the
/// base from the V#'s low 48 bits.
#[test]
fn sub_dword_scalar_loads() {
    let mut store = [0u8; 64 + 8];
    let o = store.as_ptr().align_offset(8);
    let mem = &mut store[o..o + 64];
    for (k, b) in mem.iter_mut().enumerate() {
        *b = (k as u8).wrapping_mul(37) ^ 0x80;
    }
    let addr = mem.as_ptr() as u64;
    const OPS: [(&str, usize, bool); 4] = [
        ("u8", 1, false),
        ("i8", 1, true),
        ("u16", 2, false),
        ("i16", 2, true),
    ];
    const FORMS: [(&str, &str); 2] = [("s_load", "s[0:1]"), ("s_buffer_load", "s[8:11]")];
    const OFFSETS: [usize; 4] = [0, 2, 6, 12];
    let line = |form: &str, op: &str, base_s: &str, off: usize| {
        format!("{form}_{op} s2, {base_s}, {off:#x}")
    };
    let all: Vec<String> = OPS
        .iter()
        .flat_map(|&(op, _, _)| FORMS.map(|(f, b)| OFFSETS.map(|off| line(f, op, b, off))))
        .flatten()
        .collect();
    for (mcpu, wave64, gen) in WAVES {
        prefetch22(mcpu, wave64, &all);
        for (op, bytes, signed) in OPS {
            for (form, base_s) in FORMS {
                for off in OFFSETS {
                    let line = line(form, op, base_s, off);
                    let w = asm22(mcpu, wave64, std::slice::from_ref(&line)).remove(0);
                    let mut r = WaveRegs::new(gen);
                    (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
                    // V#: base 47:0 (a stride in 61:48 that must not leak into the address).
                    (r.s[8], r.s[9], r.s[10], r.s[11]) =
                        (addr as u32, (addr >> 32) as u32 | 0x0010_0000, 64, 3 << 28);
                    r.s[2] = 0xdead_beef;
                    run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
                        .unwrap_or_else(|e| panic!("{line}: {e:?}"));
                    let mut raw = [0u8; 4];
                    raw[..bytes].copy_from_slice(&mem[off..off + bytes]);
                    let v = u32::from_le_bytes(raw);
                    let want = match (bytes, signed) {
                        (1, true) => v as u8 as i8 as i32 as u32,
                        (2, true) => v as u16 as i16 as i32 as u32,
                        _ => v,
                    };
                    assert_eq!(r.s[2], want, "{line} [{mcpu}]");
                }
            }
        }
        // Each address component drops its low bits before the sum (RDNA4 ISA §8.1.1): a
        // base and an offset of 2 each read the dword at 0, not at 4; a 16-bit load from
        // base + 1 and offset 1 reads the short at 0, not at 2.
        for (line, base_off, want) in [
            (
                "s_load_b32 s2, s[0:1], 0x2",
                2u64,
                u32::from_le_bytes([mem[0], mem[1], mem[2], mem[3]]),
            ),
            (
                "s_load_u16 s2, s[0:1], 0x1",
                1,
                u32::from_le_bytes([mem[0], mem[1], 0, 0]),
            ),
            (
                "s_load_b32 s2, s[0:1], s4 offset:0x1",
                3,
                u32::from_le_bytes([mem[4], mem[5], mem[6], mem[7]]),
            ),
        ] {
            let w = asm22(mcpu, wave64, &[line.to_string()]).remove(0);
            let mut r = WaveRegs::new(gen);
            let a = addr + base_off;
            (r.s[0], r.s[1]) = (a as u32, (a >> 32) as u32);
            r.s[4] = 7;
            run_words_mem(gen, &w, &mut r, &mut vec![0; 65536], mem)
                .unwrap_or_else(|e| panic!("{line}: {e:?}"));
            assert_eq!(r.s[2], want, "{line} from base + {base_off} [{mcpu}]");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Transpose loads.

/// `global_load_tr_b128` (16-bit elements) and `global_load_tr_b64` (8-bit), wave32: every
/// lane reads 8 elements at its address; in each block of 8 lanes, lane j receives as its
/// element e element j of the block's lane e (an 8×8 transpose per block: Triton's gfx1200
/// address/result layouts, after RDNA4 ISA §11.6.2, and a hardware-checked gfx1250 formula).
/// Lanes read scattered addresses, so a lane's own address and its element order both show.
/// An inactive lane keeps its registers and reads nothing; its elements arrive as zero.
#[test]
fn global_transpose_loads() {
    const SENTINEL: u32 = 0xdead_beef;
    let mut store = vec![0u8; 4096 + 16];
    let o = store.as_ptr().align_offset(16);
    let mem = &mut store[o..o + 4096];
    for (k, b) in mem.iter_mut().enumerate() {
        *b = mix(k as u64 + 1234) as u8;
    }
    let addr = mem.as_ptr() as u64;
    // Lane l's byte offset: a scramble of the lanes, 48 bytes apart.
    let lane_off = |l: usize| 48 * ((l * 13 + 7) % 32) as u32;
    for (line, elem_bytes, dwords) in [
        (
            "global_load_tr_b128 v[4:7], v1, s[0:1] offset:16",
            2usize,
            4usize,
        ),
        ("global_load_tr_b64 v[4:5], v1, s[0:1] offset:16", 1, 2),
        ("global_load_tr_b128 v[4:7], v[2:3], off offset:16", 2, 4),
        ("global_load_tr_b64 v[4:5], v[2:3], off offset:16", 1, 2),
    ] {
        let w = asm22("gfx1200", false, &[line.to_string()]).remove(0);
        for exec in [0xffff_ffffu64, 0xffff_ffff & !(1 << 5) & !(1 << 30)] {
            let mut r = WaveRegs::new(Gen::Gfx12);
            (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
            set_exec(&mut r, exec);
            for l in 0..64 {
                r.v[1][l] = lane_off(l);
                let a = addr + u64::from(lane_off(l));
                (r.v[2][l], r.v[3][l]) = (a as u32, (a >> 32) as u32);
                for k in 0..4 {
                    r.v[4 + k][l] = SENTINEL;
                }
            }
            run_words_mem(Gen::Gfx12, &w, &mut r, &mut vec![0; 65536], mem)
                .unwrap_or_else(|e| panic!("{line}: {e:?}"));
            // Element `j` of lane `src`'s load: the bytes at its address + 16 + j·size.
            let loaded = |src: usize, j: usize| -> u32 {
                if exec >> src & 1 == 0 {
                    return 0;
                }
                let at = lane_off(src) as usize + 16 + j * elem_bytes;
                let mut b = [0u8; 4];
                b[..elem_bytes].copy_from_slice(&mem[at..at + elem_bytes]);
                u32::from_le_bytes(b)
            };
            for l in 0..32 {
                let mut want = [0u32; 4];
                for e in 0..8 {
                    let v = loaded(8 * (l / 8) + e, l % 8);
                    let bit = 8 * elem_bytes * e;
                    want[bit / 32] |= v << (bit % 32);
                }
                for (k, &want) in want.iter().enumerate().take(dwords) {
                    let w = if exec >> l & 1 == 0 { SENTINEL } else { want };
                    assert_eq!(r.v[4 + k][l], w, "{line} exec {exec:#x} lane {l} dword {k}");
                }
            }
        }
    }
    // A lane past the buffer faults like any global load: at its first unmapped dword.
    let w = asm22(
        "gfx1200",
        false,
        &["global_load_tr_b128 v[4:7], v1, s[0:1]".to_string()],
    )
    .remove(0);
    let mut r = WaveRegs::new(Gen::Gfx12);
    (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
    set_exec(&mut r, 0xffff_ffff);
    for l in 0..32 {
        r.v[1][l] = 16 * l as u32;
    }
    r.v[1][9] = 4096 - 8;
    let got = run_words_mem(Gen::Gfx12, &w, &mut r, &mut vec![0; 65536], mem);
    assert_eq!(
        got,
        Err(FaultKind::MemoryViolation {
            address: addr + 4096,
            write: false,
            size: 4
        })
    );
    // Wave64 (4 elements per lane) has no sourced lane map: it faults as unimplemented.
    for line in [
        "global_load_tr_b128 v[4:5], v1, s[0:1]",
        "global_load_tr_b64 v4, v1, s[0:1]",
    ] {
        let w = asm22("gfx1201", true, &[line.to_string()]).remove(0);
        let mut r = WaveRegs::new(Gen::Gfx12W64);
        (r.s[0], r.s[1]) = (addr as u32, (addr >> 32) as u32);
        set_exec(&mut r, u64::MAX);
        let got = run_words_mem(Gen::Gfx12W64, &w, &mut r, &mut vec![0; 65536], mem);
        assert!(
            matches!(got, Err(FaultKind::Unimplemented { ref mnemonic }) if mnemonic.contains("wave64")),
            "{line}: {got:?}"
        );
    }
}

/// GFX9's VOP3P prefix (`0xd3a0…`–`0xd3a2…`, which llvm-objdump decodes on gfx1030, GFX11 and
/// GFX12 too) executes as the target's `v_fma_mix*` (and natively on gfx906). Words written by hand (GFX10+ VOP3P fields after
/// the prefix) and checked against the RDNA3/RDNA4 guides' definition: each source is an f32,
/// or with op_sel_hi set the f16 half op_sel picks, widened; neg applies to the widened value;
/// D = fma(S0, S1, S2) in f32, `mixlo`/`mixhi` round it to f16 into the low/high half and keep
/// the other half.
#[test]
fn gfx9_prefixed_fma_mix() {
    use half::f16;
    let words: [u32; 8] = [
        0xd3a0_0804,
        0x0c0a_0300, // v_fma_mix_f32 v4, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]
        0xd3a1_0805,
        0x0c0a_0300, // v_fma_mixlo_f16 v5, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]
        0xd3a2_4006,
        0x140e_0101, // v_fma_mixhi_f16 v6, v1, v0, v3 op_sel_hi:[0,1,1]
        0xd3a0_0007,
        0x23d2_0300, // v_fma_mix_f32 v7, -v0, v1, 2.0
    ];
    let lo = |x: u32| f32::from(f16::from_bits(x as u16));
    let hi = |x: u32| f32::from(f16::from_bits((x >> 16) as u16));
    let f = f32::from_bits;
    let to16 = |x: f32| u32::from(f16::from_f32(x).to_bits());
    // gfx906's own encoding; gfx1030 (GFX10 numbers), GFX11 and GFX12 through the prefix.
    for (gen, lanes) in [
        (Gen::Gfx9, 64),
        (Gen::Gfx10, 32),
        (Gen::Gfx10W64, 64),
        (Gen::Gfx11, 32),
        (Gen::Gfx11W64, 64),
        (Gen::Gfx12, 32),
        (Gen::Gfx12W64, 64),
    ] {
        let mut r = WaveRegs::new(gen);
        set_exec(&mut r, exec_of(lanes == 64));
        for l in 0..lanes {
            let x = l as f32;
            r.v[0][l] = u32::from(f16::from_f32(0.5 * x - 7.0).to_bits()) << 16
                | u32::from(f16::from_f32(x * 0.25).to_bits());
            r.v[1][l] = (1.5 + x).to_bits();
            r.v[2][l] = (-3.0f32 - x * 0.125).to_bits();
            r.v[3][l] = 0xdead_0000 | u32::from(f16::from_f32(1.0 - x).to_bits());
            for v in 4..8 {
                r.v[v][l] = 0x1234_5678 + v as u32;
            }
        }
        let before = r.clone();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{gen:?}: {e:?}"));
        for l in 0..lanes {
            let b = |v: usize| before.v[v][l];
            if l == 5 {
                for v in 4..8 {
                    assert_eq!(r.v[v][l], b(v), "{gen:?} inactive lane v{v}");
                }
                continue;
            }
            let d4 = hi(b(0)).mul_add(f(b(1)), f(b(2)));
            let d6 = f(b(1)).mul_add(lo(b(0)), lo(b(3)));
            let d7 = (-f(b(0))).mul_add(f(b(1)), 2.0);
            assert_eq!(r.v[4][l], d4.to_bits(), "{gen:?} mix_f32 lane {l}");
            assert_eq!(
                r.v[5][l],
                b(5) & 0xffff_0000 | to16(d4),
                "{gen:?} mixlo lane {l}"
            );
            assert_eq!(
                r.v[6][l],
                b(6) & 0xffff | to16(d6) << 16,
                "{gen:?} mixhi lane {l}"
            );
            assert_eq!(r.v[7][l], d7.to_bits(), "{gen:?} f32 neg lane {l}");
        }
    }
}

/// The mnemonics this module's lines run (for `completeness`).
pub(super) fn mnemonics() -> Vec<String> {
    let mut v: Vec<String> = [
        "ds_bpermute_b32",
        "ds_bpermute_fi_b32",
        "global_load_block",
        "global_store_block",
        "scratch_load_block",
        "scratch_store_block",
        "global_load_tr_b64",
        "global_load_tr_b128",
        "s_alloc_vgpr",
        "s_barrier_init",
        "s_barrier_join",
        "s_barrier_leave",
        "s_barrier_signal_isfirst",
        "s_get_barrier_state",
        "s_prefetch_data",
        "s_prefetch_data_pc_rel",
        "s_prefetch_inst",
        "s_prefetch_inst_pc_rel",
        "s_buffer_prefetch_data",
        "s_sleep_var",
        "v_permlane16_var_b32",
        "v_permlanex16_var_b32",
        "v_fma_mix_f32",
        "v_fma_mixlo_f16",
        "v_fma_mixhi_f16",
        "s_add_co_u32",
        "s_sub_co_u32",
        "s_add_co_i32",
        "s_sub_co_i32",
        "s_and_not1_b32",
        "s_or_not1_b32",
        "s_add_nc_u64",
        "s_sub_nc_u64",
        "s_mul_u64",
        "s_and_not1_b64",
        "s_or_not1_b64",
        "s_clz_i32_u32",
        "s_ctz_i32_b32",
        "s_cls_i32",
    ]
    .map(String::from)
    .to_vec();
    for t in ["f16", "f32"] {
        for op in ["min_num", "max_num", "minimum", "maximum"] {
            v.push(format!("s_{op}_{t}"));
        }
        for op in ["exp", "log", "rcp", "rsq", "sqrt"] {
            v.push(format!("v_s_{op}_{t}"));
        }
        for op in ["minimum", "maximum", "minimummaximum", "maximumminimum"] {
            v.push(format!("v_{op}_{t}"));
        }
    }
    v.extend(
        [
            "v_minimum_f64",
            "v_maximum_f64",
            "v_minimum3_f16",
            "v_maximum3_f16",
        ]
        .map(String::from),
    );
    v.extend(["v_pk_minimum_f16", "v_pk_maximum_f16"].map(String::from));
    for a in ["fp8", "bf8"] {
        for b in ["fp8", "bf8"] {
            v.push(format!("v_dot4_f32_{a}_{b}"));
        }
    }
    for op in ["u8", "i8", "u16", "i16"] {
        v.push(format!("s_load_{op}"));
        v.push(format!("s_buffer_load_{op}"));
    }
    for op in [
        "cond_sub_u32",
        "sub_clamp_u32",
        "min_num_f32",
        "max_num_f32",
    ] {
        for seg in ["global", "flat", "buffer"] {
            v.push(format!("{seg}_atomic_{op}"));
        }
        let (base, ty) = op.rsplit_once('_').expect("type suffix");
        v.push(format!("ds_{base}_{ty}"));
        v.push(format!("ds_{base}_rtn_{ty}"));
    }
    for op in ["min_num", "max_num"] {
        v.push(format!("ds_{op}_f64"));
        v.push(format!("ds_{op}_rtn_f64"));
    }
    v
}

/// GFX12's integer SALU names, from the RDNA4 guide's pseudo-code: `s_add_co_u32`/
/// `s_sub_co_u32` (SCC = carry / borrow), `s_add_co_i32`/`s_sub_co_i32` (SCC = signed
/// overflow), `s_and_not1`/`s_or_not1` (D = S0 & ~S1 / S0 | ~S1, SCC = D != 0),
/// `s_add_nc_u64`/`s_sub_nc_u64`/`s_mul_u64` (low 64 bits, SCC kept) and the bit counts
/// `s_clz_i32_u32`/`s_ctz_i32_b32`/`s_cls_i32` (−1 when no bit qualifies; SCC kept).
#[test]
fn salu_integer_names() {
    type Op32 = fn(u32, u32) -> (u32, Option<bool>);
    let ops32: [(&str, Op32); 6] = [
        ("s_add_co_u32", |a, b| {
            let (d, c) = a.overflowing_add(b);
            (d, Some(c))
        }),
        ("s_sub_co_u32", |a, b| (a.wrapping_sub(b), Some(b > a))),
        ("s_add_co_i32", |a, b| {
            let (d, o) = (a as i32).overflowing_add(b as i32);
            (d as u32, Some(o))
        }),
        ("s_sub_co_i32", |a, b| {
            let (d, o) = (a as i32).overflowing_sub(b as i32);
            (d as u32, Some(o))
        }),
        ("s_and_not1_b32", |a, b| (a & !b, Some(a & !b != 0))),
        ("s_or_not1_b32", |a, b| (a | !b, Some(a | !b != 0))),
    ];
    type Op64 = fn(u64, u64) -> (u64, Option<bool>);
    let ops64: [(&str, Op64); 5] = [
        ("s_add_nc_u64", |a, b| (a.wrapping_add(b), None)),
        ("s_sub_nc_u64", |a, b| (a.wrapping_sub(b), None)),
        ("s_mul_u64", |a, b| (a.wrapping_mul(b), None)),
        ("s_and_not1_b64", |a, b| (a & !b, Some(a & !b != 0))),
        ("s_or_not1_b64", |a, b| (a | !b, Some(a | !b != 0))),
    ];
    fn count(n: u32) -> u32 {
        if n == 32 {
            u32::MAX
        } else {
            n
        }
    }
    type Op1 = fn(u32) -> u32;
    let ops1: [(&str, Op1); 3] = [
        ("s_clz_i32_u32", |x| count(x.leading_zeros())),
        ("s_ctz_i32_b32", |x| count(x.trailing_zeros())),
        // D = −1; the first i from 1 with S0[31 − i] != S0[31] (sign bit included).
        ("s_cls_i32", |x| {
            (1..32)
                .find(|i| (x >> (31 - i)) & 1 != x >> 31)
                .unwrap_or(u32::MAX)
        }),
    ];
    let vals32 = [
        0u32,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1234_5678,
        0x00f0_0000,
    ];
    let vals64 = [
        0u64,
        1,
        u64::MAX,
        0x8000_0000_0000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        0x1234_5678_9abc_def0,
    ];
    let line32 = |name: &str| format!("{name} s2, s0, s1");
    let line64 = |name: &str| format!("{name} s[4:5], s[0:1], s[2:3]");
    let line1 = |name: &str| format!("{name} s2, s0");
    // Every line on each wave size with one llvm-mc-22 run, not one per line.
    let lines: Vec<String> = (ops32.iter().map(|o| line32(o.0)))
        .chain(ops64.iter().map(|o| line64(o.0)))
        .chain(ops1.iter().map(|o| line1(o.0)))
        .collect();
    for (mcpu, wave64, _) in WAVES {
        prefetch22(mcpu, wave64, &lines);
    }
    for (mcpu, wave64, gen) in WAVES {
        for (name, f) in ops32 {
            let w = asm22(mcpu, wave64, &[line32(name)]).remove(0);
            for a in vals32 {
                for b in vals32 {
                    for scc in [false, true] {
                        let mut r = WaveRegs::new(gen);
                        (r.s[0], r.s[1], r.s[2], r.scc) = (a, b, 0xdead_beef, scc);
                        run_words(gen, &w, &mut r).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                        let (d, c) = f(a, b);
                        assert_eq!(
                            (r.s[2], r.scc),
                            (d, c.unwrap_or(scc)),
                            "{name} {a:#x}, {b:#x} [{mcpu}]"
                        );
                    }
                }
            }
        }
        for (name, f) in ops64 {
            let w = asm22(mcpu, wave64, &[line64(name)]).remove(0);
            for a in vals64 {
                for b in vals64 {
                    for scc in [false, true] {
                        let mut r = WaveRegs::new(gen);
                        (r.s[0], r.s[1]) = (a as u32, (a >> 32) as u32);
                        (r.s[2], r.s[3]) = (b as u32, (b >> 32) as u32);
                        r.scc = scc;
                        run_words(gen, &w, &mut r).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                        let (d, c) = f(a, b);
                        let got = u64::from(r.s[4]) | u64::from(r.s[5]) << 32;
                        assert_eq!(
                            (got, r.scc),
                            (d, c.unwrap_or(scc)),
                            "{name} {a:#x}, {b:#x} [{mcpu}]"
                        );
                    }
                }
            }
        }
        for (name, f) in ops1 {
            let w = asm22(mcpu, wave64, &[line1(name)]).remove(0);
            for a in vals32.into_iter().chain([0xffff_fffe, 0x4000_0000, 0x100]) {
                for scc in [false, true] {
                    let mut r = WaveRegs::new(gen);
                    (r.s[0], r.s[2], r.scc) = (a, 0xdead_beef, scc);
                    run_words(gen, &w, &mut r).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                    assert_eq!((r.s[2], r.scc), (f(a), scc), "{name} {a:#x} [{mcpu}]");
                }
            }
        }
    }
}
