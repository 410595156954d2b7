//! Exact IEEE 754 binary16/32/64 arithmetic on raw bit patterns with a chosen rounding
//! direction. The host rounds to nearest even only; the MODE register's other rounding modes
//! (FP_ROUND) and results that must be rounded once after a power-of-two scale
//! (`v_div_fmas`) come through here. Operands are unpacked to integer significands, combined
//! exactly in `u128` (an addend far below the other is folded into a sticky bit) and rounded
//! once by [`round`].

/// A rounding direction, in the MODE register's FP_ROUND encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    NearestEven,
    Up,
    Down,
    Zero,
}

impl Round {
    /// The direction of a 2-bit FP_ROUND field (0 nearest even, 1 +∞, 2 −∞, 3 toward 0).
    pub(crate) fn from_field(bits: u32) -> Round {
        match bits & 3 {
            0 => Round::NearestEven,
            1 => Round::Up,
            2 => Round::Down,
            _ => Round::Zero,
        }
    }
}

/// An IEEE 754 binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    /// Fraction (trailing significand) bits.
    frac: u32,
    /// Exponent bits.
    exp: u32,
}

pub(crate) const F16: Format = Format { frac: 10, exp: 5 };
pub(crate) const F32: Format = Format { frac: 23, exp: 8 };
pub(crate) const F64: Format = Format { frac: 52, exp: 11 };

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    pub(crate) fn sign_bit(self) -> u64 {
        1 << (self.frac + self.exp)
    }
    fn exp_field(self, b: u64) -> u64 {
        b >> self.frac & ((1 << self.exp) - 1)
    }
    fn frac_field(self, b: u64) -> u64 {
        b & ((1 << self.frac) - 1)
    }
    /// +∞.
    pub(crate) fn inf(self) -> u64 {
        ((1 << self.exp) - 1) << self.frac
    }
    /// The largest finite value.
    pub(crate) fn max_finite(self) -> u64 {
        self.inf() - 1
    }
    /// The quiet NaN the hardware generates (positive, only the quiet bit set).
    pub(crate) fn default_nan(self) -> u64 {
        self.inf() | 1 << (self.frac - 1)
    }
    /// A NaN with its quiet bit set.
    pub(crate) fn quiet(self, b: u64) -> u64 {
        b | 1 << (self.frac - 1)
    }
}

/// An unpacked operand.
#[derive(Clone, Copy, Debug)]
enum Val {
    Zero,
    /// `mant × 2^exp` (the sign is kept apart).
    Finite {
        mant: u128,
        exp: i32,
    },
    Inf,
    Nan,
}

fn unpack(f: Format, b: u64) -> (bool, Val) {
    let neg = b & f.sign_bit() != 0;
    let e = f.exp_field(b);
    let m = f.frac_field(b);
    let v = if e == (1 << f.exp) - 1 {
        if m == 0 {
            Val::Inf
        } else {
            Val::Nan
        }
    } else if e == 0 {
        if m == 0 {
            Val::Zero
        } else {
            Val::Finite {
                mant: u128::from(m),
                exp: 1 - f.bias() - f.frac as i32,
            }
        }
    } else {
        Val::Finite {
            mant: u128::from(m | 1 << f.frac),
            exp: e as i32 - f.bias() - f.frac as i32,
        }
    };
    (neg, v)
}

/// The result of an overflow: ∞ or the largest finite value, by direction.
fn overflow(f: Format, neg: bool, rm: Round) -> u64 {
    let to_inf = match rm {
        Round::NearestEven => true,
        Round::Up => !neg,
        Round::Down => neg,
        Round::Zero => false,
    };
    let sign = if neg { f.sign_bit() } else { 0 };
    sign | if to_inf { f.inf() } else { f.max_finite() }
}

/// Rounds `(-1)^neg × mant × 2^exp` to `f` in direction `rm` (denormal results are kept; the
/// caller flushes them if MODE says so). `mant`'s lowest bit may be a "sticky" bit standing for
/// anything nonzero below it, as long as it lies at least two bits below the rounding point.
pub(crate) fn round(f: Format, neg: bool, mant: u128, exp: i32, rm: Round) -> u64 {
    let sign = if neg { f.sign_bit() } else { 0 };
    if mant == 0 {
        return sign;
    }
    let prec = f.frac as i32 + 1;
    let emin = 1 - f.bias();
    // Exponent of the leading bit.
    let lead = 127 - mant.leading_zeros() as i32 + exp;
    if lead > f.bias() {
        return overflow(f, neg, rm);
    }
    // Exponent of the result's last significand bit (fixed below the normal range).
    let q = lead.max(emin) - (prec - 1);
    let shift = q - exp;
    let (kept, half, rest) = if shift <= 0 {
        (mant << (-shift) as u32, false, false)
    } else if shift > 128 {
        (0, false, true)
    } else if shift == 128 {
        (0, mant >> 127 != 0, mant << 1 != 0)
    } else {
        (
            mant >> shift,
            mant >> (shift - 1) & 1 != 0,
            mant & ((1u128 << (shift - 1)) - 1) != 0,
        )
    };
    let inexact = half || rest;
    let up = match rm {
        Round::NearestEven => half && (rest || kept & 1 != 0),
        Round::Up => !neg && inexact,
        Round::Down => neg && inexact,
        Round::Zero => false,
    };
    // `kept` holds the hidden bit for normal results, so adding it to the exponent field of
    // the result minus one gives the encoding (a carry out of the significand, or a denormal
    // rounding up to the smallest normal, moves into the exponent by itself).
    let field = (q + prec - 1 + f.bias() - 1) as u64;
    let bits = (field << f.frac) + kept as u64 + u64::from(up);
    if bits >= f.inf() {
        return overflow(f, neg, rm);
    }
    sign | bits
}

/// The sign of an exact zero sum: equal signs keep it, otherwise +0 (−0 rounding down).
fn zero_sum(f: Format, na: bool, nb: bool, rm: Round) -> u64 {
    if na == nb && na || na != nb && rm == Round::Down {
        f.sign_bit()
    } else {
        0
    }
}

/// A finite nonzero term of a sum.
#[derive(Clone, Copy)]
struct Term {
    neg: bool,
    mant: u128,
    exp: i32,
}

/// Rounds `(a + b) × 2^scale` (both finite and nonzero; `mant`s below 2^107).
fn sum(f: Format, a: Term, b: Term, rm: Round, scale: i32) -> u64 {
    let (big, small) = if a.exp >= b.exp { (a, b) } else { (b, a) };
    let d = (big.exp - small.exp) as u32;
    // Align on the smaller exponent when the wider operand then still fits in 126 bits;
    // otherwise the smaller one lies far below the rounding point and only its presence
    // matters, so it is shifted down with its lost bits folded into its lowest bit.
    let room = big.mant.leading_zeros() - 2;
    let (bm, sm, exp) = if d <= room {
        (big.mant << d, small.mant, small.exp)
    } else {
        let s = d - room;
        let sm = if s >= 128 {
            1
        } else {
            small.mant >> s | u128::from(small.mant & ((1u128 << s) - 1) != 0)
        };
        (big.mant << room, sm, big.exp - room as i32)
    };
    let (neg, mant) = if big.neg == small.neg {
        (big.neg, bm + sm)
    } else if bm >= sm {
        (big.neg, bm - sm)
    } else {
        (small.neg, sm - bm)
    };
    if mant == 0 {
        return zero_sum(f, false, true, rm);
    }
    round(f, neg, mant, exp + scale, rm)
}

/// `a + b`.
pub(crate) fn add(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    let (na, va) = unpack(f, a);
    let (nb, vb) = unpack(f, b);
    match (va, vb) {
        (Val::Nan, _) => f.quiet(a),
        (_, Val::Nan) => f.quiet(b),
        (Val::Inf, Val::Inf) if na != nb => f.default_nan(),
        (Val::Inf, _) => a,
        (_, Val::Inf) => b,
        (Val::Zero, Val::Zero) => zero_sum(f, na, nb, rm),
        (Val::Zero, _) => b,
        (_, Val::Zero) => a,
        (Val::Finite { mant: ma, exp: ea }, Val::Finite { mant: mb, exp: eb }) => sum(
            f,
            Term {
                neg: na,
                mant: ma,
                exp: ea,
            },
            Term {
                neg: nb,
                mant: mb,
                exp: eb,
            },
            rm,
            0,
        ),
    }
}

/// `a × b`.
pub(crate) fn mul(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    let (na, va) = unpack(f, a);
    let (nb, vb) = unpack(f, b);
    let sign = if na != nb { f.sign_bit() } else { 0 };
    match (va, vb) {
        (Val::Nan, _) => f.quiet(a),
        (_, Val::Nan) => f.quiet(b),
        (Val::Inf, Val::Zero) | (Val::Zero, Val::Inf) => f.default_nan(),
        (Val::Inf, _) | (_, Val::Inf) => sign | f.inf(),
        (Val::Zero, _) | (_, Val::Zero) => sign,
        (Val::Finite { mant: ma, exp: ea }, Val::Finite { mant: mb, exp: eb }) => {
            round(f, na != nb, ma * mb, ea + eb, rm)
        }
    }
}

/// `(a × b + c) × 2^scale`, rounded once.
pub(crate) fn fma(f: Format, a: u64, b: u64, c: u64, rm: Round, scale: i32) -> u64 {
    let (na, va) = unpack(f, a);
    let (nb, vb) = unpack(f, b);
    let (nc, vc) = unpack(f, c);
    let np = na != nb;
    match (va, vb, vc) {
        (Val::Nan, _, _) => return f.quiet(a),
        (_, Val::Nan, _) => return f.quiet(b),
        (_, _, Val::Nan) => return f.quiet(c),
        (Val::Inf, Val::Zero, _) | (Val::Zero, Val::Inf, _) => return f.default_nan(),
        (Val::Inf, _, _) | (_, Val::Inf, _) => {
            return match vc {
                Val::Inf if nc != np => f.default_nan(),
                _ => (if np { f.sign_bit() } else { 0 }) | f.inf(),
            };
        }
        (_, _, Val::Inf) => return c,
        _ => {}
    }
    let product = match (va, vb) {
        (Val::Finite { mant: ma, exp: ea }, Val::Finite { mant: mb, exp: eb }) => Some(Term {
            neg: np,
            mant: ma * mb,
            exp: ea + eb,
        }),
        _ => None,
    };
    match (product, vc) {
        (None, Val::Finite { mant, exp }) => round(f, nc, mant, exp + scale, rm),
        (None, _) => zero_sum(f, np, nc, rm),
        (Some(p), Val::Finite { mant, exp }) => sum(f, p, Term { neg: nc, mant, exp }, rm, scale),
        (Some(p), _) => round(f, p.neg, p.mant, p.exp + scale, rm),
    }
}

/// Converts `b` from format `from` to format `to` (NaNs keep their sign and top payload bits,
/// quieted).
pub(crate) fn convert(from: Format, to: Format, b: u64, rm: Round) -> u64 {
    let (neg, v) = unpack(from, b);
    let sign = if neg { to.sign_bit() } else { 0 };
    match v {
        Val::Nan => {
            let p = from.frac_field(b);
            let p = if to.frac < from.frac {
                p >> (from.frac - to.frac)
            } else {
                p << (to.frac - from.frac)
            };
            to.quiet(sign | to.inf() | p)
        }
        Val::Inf => sign | to.inf(),
        Val::Zero => sign,
        Val::Finite { mant, exp } => round(to, neg, mant, exp, rm),
    }
}

/// An integer `(-1)^neg × magnitude` in format `f`.
pub(crate) fn from_int(f: Format, neg: bool, magnitude: u64, rm: Round) -> u64 {
    if magnitude == 0 {
        return 0;
    }
    round(f, neg, u128::from(magnitude), 0, rm)
}

/// A correctly rounded value given as the nearest double `s` and the sign of the error
/// (`exact - s`, relative to the magnitude: +1 means the exact magnitude is above |s|), for
/// formats at most as wide as f64 (f64 itself is fine: the error is worth a quarter of an
/// f64 unit, which rounds like the exact value in every direction). `s` is finite and nonzero.
fn round_near_double(f: Format, s: f64, above: i32, scale: i32, rm: Round) -> u64 {
    let (neg, v) = unpack(F64, s.to_bits());
    let Val::Finite { mant, exp } = v else {
        return if neg { f.sign_bit() } else { 0 };
    };
    let m4 = match above {
        1 => mant << 2 | 1,
        -1 => (mant << 2) - 1,
        _ => mant << 2,
    };
    round(f, neg, m4, exp - 2 + scale, rm)
}

/// `sqrt(b)` in `f`, or `None` for zero, negative, infinite and NaN inputs (exact in every
/// rounding direction; the caller's host result is right).
pub(crate) fn sqrt(f: Format, b: u64, rm: Round) -> Option<u64> {
    let (neg, v) = unpack(f, b);
    let Val::Finite { mant, exp } = v else {
        return None;
    };
    if neg {
        return None;
    }
    // The operand as a double (exact: at most 53 bits); tiny doubles are scaled by an even
    // power of two so that the residual x − s² below is exact.
    let lead = exp + 127 - mant.leading_zeros() as i32;
    let (x, half_scale) = if lead < -900 {
        (exact_double(mant, exp + 256), -128)
    } else {
        (exact_double(mant, exp), 0)
    };
    let s = x.sqrt();
    // x − s² is exactly representable when s is the rounded square root, so its sign says on
    // which side of s the exact root lies.
    let r = (-s).mul_add(s, x);
    let above = if r > 0.0 {
        1
    } else if r < 0.0 {
        -1
    } else {
        0
    };
    Some(round_near_double(f, s, above, half_scale, rm))
}

/// `1 / b` for f32 `b`, or `None` for zero, infinite and NaN inputs.
pub(crate) fn rcp32(b: u32, rm: Round) -> Option<u32> {
    let (_, v) = unpack(F32, u64::from(b));
    if !matches!(v, Val::Finite { .. }) {
        return None;
    }
    let x = f64::from(f32::from_bits(b));
    let r = 1.0 / x;
    // r·x − 1 is exact (fewer than 53 significant bits); |1/x| > |r| exactly when it is < 0.
    let e = r.mul_add(x, -1.0);
    let above = if e < 0.0 {
        1
    } else if e > 0.0 {
        -1
    } else {
        0
    };
    Some(round_near_double(F32, r, above, 0, rm) as u32)
}

/// The double `mant × 2^exp` (exact for `mant` below 2^53 and `exp` in the normal range).
fn exact_double(mant: u128, exp: i32) -> f64 {
    f64::from_bits(round(F64, false, mant, exp, Round::NearestEven))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift, deterministic.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// f32 bit patterns, a quarter of them denormal (or zero), some near overflow.
        fn f32(&mut self) -> u32 {
            let r = self.next();
            let bits = (r >> 8) as u32;
            match r & 7 {
                0 | 1 => bits & 0x807f_ffff,
                2 => bits | 0x7e80_0000 & !0x0100_0000,
                3 => bits & 0x87ff_ffff | 0x3800_0000,
                _ => bits,
            }
        }
        /// f64 bit patterns, some denormal, some near overflow.
        fn f64(&mut self) -> u64 {
            let r = self.next();
            let b = self.next();
            match r & 7 {
                0 => b & 0x800f_ffff_ffff_ffff,
                1 => b | 0x7fd0_0000_0000_0000 & !0x0020_0000_0000_0000,
                2 => b & 0x83ff_ffff_ffff_ffff | 0x3c00_0000_0000_0000,
                _ => b,
            }
        }
    }

    fn same32(a: u64, b: f32) -> bool {
        a as u32 == b.to_bits() || f32::from_bits(a as u32).is_nan() && b.is_nan()
    }
    fn same64(a: u64, b: f64) -> bool {
        a == b.to_bits() || f64::from_bits(a).is_nan() && b.is_nan()
    }

    #[test]
    fn nearest_even_matches_the_host() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let ne = Round::NearestEven;
        for _ in 0..100_000 {
            let (a, b, c) = (rng.f32(), rng.f32(), rng.f32());
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let (a, b, c) = (u64::from(a), u64::from(b), u64::from(c));
            assert!(same32(add(F32, a, b, ne), x + y), "{x:e} + {y:e}");
            assert!(same32(mul(F32, a, b, ne), x * y), "{x:e} * {y:e}");
            assert!(
                same32(fma(F32, a, b, c, ne, 0), x.mul_add(y, z)),
                "fma({x:e}, {y:e}, {z:e})"
            );
            if let Some(s) = sqrt(F32, a, ne) {
                assert!(same32(s, x.sqrt()), "sqrt({x:e})");
            }
            if let Some(r) = rcp32(a as u32, ne) {
                assert!(same32(u64::from(r), 1.0 / x), "1/{x:e}");
            }
            let (p, q, r) = (rng.f64(), rng.f64(), rng.f64());
            let (u, v, t) = (f64::from_bits(p), f64::from_bits(q), f64::from_bits(r));
            assert!(same64(add(F64, p, q, ne), u + v), "{u:e} + {v:e}");
            assert!(same64(mul(F64, p, q, ne), u * v), "{u:e} * {v:e}");
            assert!(
                same64(fma(F64, p, q, r, ne, 0), u.mul_add(v, t)),
                "fma({u:e}, {v:e}, {t:e})"
            );
            assert!(same32(convert(F64, F32, p, ne), u as f32), "{u:e} as f32");
            if let Some(s) = sqrt(F64, p, ne) {
                assert!(same64(s, u.sqrt()), "sqrt({u:e})");
            }
        }
    }

    /// The f32 neighbours of a finite value, toward −∞ and +∞.
    fn below(x: f32) -> f32 {
        x.next_down()
    }
    fn above(x: f32) -> f32 {
        x.next_up()
    }

    /// `r` is `exact` rounded in direction `rm` (f32 results of operations exact in f64).
    fn brackets(r: f32, exact: f64, rm: Round) -> bool {
        let r64 = f64::from(r);
        match rm {
            Round::Up => r64 >= exact && f64::from(below(r)) < exact,
            Round::Down => r64 <= exact && f64::from(above(r)) > exact,
            Round::Zero if exact >= 0.0 => r64 <= exact && f64::from(above(r)) > exact,
            Round::Zero => r64 >= exact && f64::from(below(r)) < exact,
            Round::NearestEven => r == exact as f32,
        }
    }

    #[test]
    fn directed_results_bracket_the_exact_value() {
        let mut rng = Rng(77);
        for _ in 0..100_000 {
            // Finite operands within 2^±14: sums and products are exact in f64.
            let pick = |rng: &mut Rng| {
                let r = rng.next();
                let e = (r >> 32) % 28 + 113;
                f32::from_bits(((r as u32) & 0x807f_ffff) | (e as u32) << 23)
            };
            let (x, y) = (pick(&mut rng), pick(&mut rng));
            let d = f64::from_bits(rng.next() & 0x3fff_ffff_ffff_ffff | 0x3800_0000_0000_0000);
            for rm in [Round::NearestEven, Round::Up, Round::Down, Round::Zero] {
                let (a, b) = (u64::from(x.to_bits()), u64::from(y.to_bits()));
                let r = |v: u64| f32::from_bits(v as u32);
                let s = r(add(F32, a, b, rm));
                assert!(
                    brackets(s, f64::from(x) + f64::from(y), rm),
                    "{x:e} + {y:e} {rm:?} = {s:e}"
                );
                let p = r(mul(F32, a, b, rm));
                assert!(
                    brackets(p, f64::from(x) * f64::from(y), rm),
                    "{x:e} * {y:e} {rm:?} = {p:e}"
                );
                let c = r(convert(F64, F32, d.to_bits(), rm));
                assert!(brackets(c, d, rm), "{d:e} as f32 {rm:?} = {c:e}");
                let q = r(sqrt(F32, a & 0x7fff_ffff, rm).expect("positive finite"));
                let q64 = f64::from(q);
                let xa = f64::from(x.abs());
                // q² against x, exactly (q has 24 bits, so q² fits in f64).
                let ok = match rm {
                    Round::Up => q64 * q64 >= xa && f64::from(below(q)).powi(2) < xa,
                    Round::Down | Round::Zero => {
                        q64 * q64 <= xa && f64::from(above(q)).powi(2) > xa
                    }
                    Round::NearestEven => q == x.abs().sqrt(),
                };
                assert!(ok, "sqrt({xa:e}) {rm:?} = {q:e}");
            }
        }
    }

    #[test]
    fn directed_f64_results_are_ordered_neighbours() {
        let mut rng = Rng(99);
        for _ in 0..50_000 {
            let (p, q, r) = (rng.f64(), rng.f64(), rng.f64());
            let ops: [&dyn Fn(Round) -> u64; 3] =
                [&|rm| add(F64, p, q, rm), &|rm| mul(F64, p, q, rm), &|rm| {
                    fma(F64, p, q, r, rm, 0)
                }];
            for op in ops {
                let (ne, up, down, zero) = (
                    f64::from_bits(op(Round::NearestEven)),
                    f64::from_bits(op(Round::Up)),
                    f64::from_bits(op(Round::Down)),
                    f64::from_bits(op(Round::Zero)),
                );
                if ne.is_nan() {
                    assert!(up.is_nan() && down.is_nan() && zero.is_nan());
                    continue;
                }
                assert!(down <= ne && ne <= up, "{down:e} {ne:e} {up:e}");
                assert!(
                    down == up
                        || down.next_up() == up
                        || up.is_infinite() && down == f64::MAX
                        || down.is_infinite() && up == f64::MIN,
                    "{down:e} {up:e}"
                );
                assert_eq!(
                    zero.to_bits(),
                    if ne.is_sign_negative() { up } else { down }.to_bits()
                );
            }
        }
    }

    #[test]
    fn overflow_underflow_and_zero_signs() {
        let max = u64::from(f32::MAX.to_bits());
        let two = u64::from(2.0f32.to_bits());
        assert_eq!(mul(F32, max, two, Round::Zero), max);
        assert_eq!(mul(F32, max, two, Round::Down), max);
        assert_eq!(mul(F32, max, two, Round::Up), F32.inf());
        let tiny = u64::from(1e-30f32.to_bits());
        assert_eq!(mul(F32, tiny, tiny, Round::Up), 1);
        assert_eq!(mul(F32, tiny, tiny, Round::Down), 0);
        assert_eq!(mul(F32, tiny | 1 << 31, tiny, Round::Down), 1 << 31 | 1);
        let one = u64::from(1.0f32.to_bits());
        assert_eq!(add(F32, one, one | 1 << 31, Round::Down), 1 << 31);
        assert_eq!(add(F32, one, one | 1 << 31, Round::Up), 0);
        // The once-rounded scaled fma of v_div_fmas: 1.5 × 2^-149 ties to even at 2^-148.
        let three = u64::from(3.0f32.to_bits());
        let p = fma(F32, three, one, 0, Round::NearestEven, -150);
        assert_eq!(p, 2);
    }
}
