//! gfx950's OCP microscaling ("MX") element and scale formats: FP4 (E2M1), FP6 (E2M3), BF6
//! (E3M2) and the E8M0 scale, as the OCP Microscaling Formats (MX) v1.0 specification defines
//! them (§5.3.3 for the FP6/FP4 elements, §5.4.1 for E8M0). The 8-bit elements (OCP E4M3 and
//! E5M2) are `cdna3::F8`.
//!
//! - **FP4, FP6, BF6**: sign, exponent, mantissa, from the top bit down; an exponent field of 0
//!   is subnormal (`2^(1-bias) · 0.M`), any other is normal (`2^(E-bias) · 1.M`). Biases 1
//!   (E2M1, E2M3) and 3 (E3M2). They have no infinities and no NaNs: every code is a number.
//! - **E8M0**: an unsigned exponent, `2^(E-127)` for E = 0..254 (2^-127 is an f32 denormal,
//!   exact), and NaN for 0xFF. No sign, no zero.
//!
//! Every value of these formats is exact in f32. Encoding (f32/f16/bf16 values to these
//! formats, saturating, to nearest even or stochastically) serves gfx950's scaled conversions
//! (`exec::mxcvt`). Element `i` of a packed operand sits at bits `[w·i, w·i + w)`
//! (little-endian, `w` = 4 or 6).

use super::cdna3::Rounding;

// Decoding

/// The value of a sign/exponent/mantissa code of a format without infinities or NaNs
/// (`exp` and `man` field widths, `bias`), built as f32 bits.
fn no_inf_nan_to_f32(code: u8, exp: u32, man: u32, bias: i32) -> f32 {
    let code = u32::from(code);
    let e = (code >> man) & ((1 << exp) - 1);
    let m = code & ((1 << man) - 1);
    let magnitude = if e == 0 {
        // Subnormal: M units of 2^(1 - bias - man) (a small integer times a power of two).
        m as f32 * f32::from_bits(((128 - bias - man as i32) as u32) << 23)
    } else {
        f32::from_bits(((e as i32 - bias + 127) as u32) << 23 | m << (23 - man))
    };
    if code >> (exp + man) & 1 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// FP4 (E2M1, bias 1) in the low 4 bits of `code`: 0, ±0.5 … ±6.
pub(crate) fn e2m1_to_f32(code: u8) -> f32 {
    no_inf_nan_to_f32(code & 0xf, 2, 1, 1)
}

/// FP6 (E2M3, bias 1) in the low 6 bits of `code`: 0, ±0.125 … ±7.5.
pub(crate) fn e2m3_to_f32(code: u8) -> f32 {
    no_inf_nan_to_f32(code & 0x3f, 2, 3, 1)
}

/// BF6 (E3M2, bias 3) in the low 6 bits of `code`: 0, ±0.0625 … ±28.
pub(crate) fn e3m2_to_f32(code: u8) -> f32 {
    no_inf_nan_to_f32(code & 0x3f, 3, 2, 3)
}

/// The E8M0 scale `2^(code-127)`, NaN for 0xFF.
pub(crate) fn e8m0_to_f32(code: u8) -> f32 {
    match code {
        0xff => f32::NAN,
        // 2^-127: the f32 denormal with only mantissa bit 22 set.
        0 => f32::from_bits(1 << 22),
        e => f32::from_bits(u32::from(e) << 23),
    }
}

#[cfg(test)]
mod decoding_tests {
    use super::*;

    /// The MX specification's definition of an element code: (-1)^S · 2^(E-bias) · (1 + M/2^m)
    /// for E > 0, (-1)^S · 2^(1-bias) · (M/2^m) for E = 0.
    fn by_definition(code: u32, exp: u32, man: u32, bias: i32) -> f64 {
        let s = code >> (exp + man) & 1;
        let e = (code >> man) & ((1 << exp) - 1);
        let m = f64::from(code & ((1 << man) - 1)) / f64::from(1u32 << man);
        let v = if e == 0 {
            2f64.powi(1 - bias) * m
        } else {
            2f64.powi(e as i32 - bias) * (1.0 + m)
        };
        if s == 1 {
            -v
        } else {
            v
        }
    }

    #[test]
    fn every_element_code_has_its_defined_value() {
        type Decode = fn(u8) -> f32;
        let formats: [(&str, Decode, u32, u32, i32); 3] = [
            ("e2m1", e2m1_to_f32, 2, 1, 1),
            ("e2m3", e2m3_to_f32, 2, 3, 1),
            ("e3m2", e3m2_to_f32, 3, 2, 3),
        ];
        for (name, decode, exp, man, bias) in formats {
            let width = 1 + exp + man;
            for code in 0..1u32 << width {
                let want = by_definition(code, exp, man, bias);
                let got = decode(code as u8);
                assert_eq!(f64::from(got), want, "{name} {code:#x}");
                assert_eq!(
                    got.is_sign_negative(),
                    code >> (width - 1) == 1,
                    "{name} {code:#x}"
                );
                // Bits above the format are ignored.
                assert_eq!(decode(code as u8 | !0u8 << width).to_bits(), got.to_bits());
            }
        }
    }

    /// The extremes the MX specification tabulates (Table 4: FP6 and FP4 formats).
    #[test]
    fn element_formats_have_their_tabulated_extremes() {
        let max = |f: fn(u8) -> f32, n: u8| (0..n).map(f).fold(0.0f32, f32::max);
        assert_eq!(max(e2m1_to_f32, 16), 6.0);
        assert_eq!(max(e2m3_to_f32, 64), 7.5);
        assert_eq!(max(e3m2_to_f32, 64), 28.0);
        // Smallest subnormals and normals.
        assert_eq!((e2m1_to_f32(0b0001), e2m1_to_f32(0b0010)), (0.5, 1.0));
        assert_eq!((e2m3_to_f32(0b000001), e2m3_to_f32(0b001000)), (0.125, 1.0));
        assert_eq!(
            (e3m2_to_f32(0b000001), e3m2_to_f32(0b000100)),
            (0.0625, 0.25)
        );
        assert_eq!(e2m1_to_f32(0b1111), -6.0);
    }

    #[test]
    fn every_scale_code_is_its_power_of_two() {
        for code in 0..=254u8 {
            let got = e8m0_to_f32(code);
            assert_eq!(f64::from(got), 2f64.powi(i32::from(code) - 127), "{code}");
        }
        assert!(e8m0_to_f32(0xff).is_nan());
        assert_eq!(e8m0_to_f32(127), 1.0);
        assert_eq!(e8m0_to_f32(254), 2f32.powi(127));
    }
}

// Encoding

/// A floating-point format of at most 6 bits without infinities or NaNs (sign, exponent,
/// mantissa; subnormals at exponent 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mx {
    pub exp: u32,
    pub man: u32,
    pub bias: i32,
}

/// FP4 E2M1: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
pub(crate) const E2M1: Mx = Mx {
    exp: 2,
    man: 1,
    bias: 1,
};
/// FP6 E2M3: largest 7.5, smallest subnormal 0.125.
pub(crate) const E2M3: Mx = Mx {
    exp: 2,
    man: 3,
    bias: 1,
};
/// BF6 E3M2: largest 28, smallest subnormal 0.0625.
pub(crate) const E3M2: Mx = Mx {
    exp: 3,
    man: 2,
    bias: 3,
};

impl Mx {
    /// The largest magnitude's bits (every exponent is finite).
    fn max_bits(self) -> u8 {
        ((1u32 << (self.exp + self.man)) - 1) as u8
    }

    fn sign_bit(self) -> u8 {
        1 << (self.exp + self.man)
    }
}

/// The decoder of a format, for callers that hold an [`Mx`].
pub(crate) fn mx_to_f32(fmt: Mx, bits: u8) -> f32 {
    match fmt {
        E2M1 => e2m1_to_f32(bits),
        E2M3 => e2m3_to_f32(bits),
        _ => e3m2_to_f32(bits),
    }
}

/// `x` converted to `fmt`, saturating: a magnitude that rounds above the largest finite
/// value, an infinity and a NaN give the largest magnitude with `x`'s sign (the formats have
/// no infinity or NaN; the OCP MX spec's conversion saturates, and AMD's host models of the
/// gfx950 conversions, HIP's `amd_hip_ocp_host.hpp` and Composable Kernel's
/// `sat_convert_to_type`, map NaN to the signed maximum too). Zero keeps its sign.
///
/// Rounding is to nearest even, or stochastic as in [`super::cdna3::F8::encode`]: with
/// `d = 23 − man`, the magnitude in units of the result's last place is truncated to `d`
/// fraction bits, the low `d` bits of the random value are added, and the sum is truncated.
/// `x` must be exact in 24 significant bits (any f32, f16 or bf16 value times a power of two).
pub(crate) fn encode(fmt: Mx, x: f64, rounding: Rounding) -> u8 {
    let sign = if x.is_sign_negative() {
        fmt.sign_bit()
    } else {
        0
    };
    let max = sign | fmt.max_bits();
    if x.is_nan() || x.is_infinite() {
        return max;
    }
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let man = fmt.man as i32;
    let emin = 1 - fmt.bias;
    // The value of the result's last place at a's exponent, at least the subnormal one.
    let e = exponent(a).max(emin);
    let q = 2f64.powi(e - man);
    let n = a / q; // exact
    let r = match rounding {
        Rounding::NearestEven => n.round_ties_even(),
        Rounding::Stochastic(rnd) => {
            let d = 23 - fmt.man;
            let kept = (n * f64::from(1u32 << d)).floor();
            ((kept + f64::from(rnd & ((1u32 << d) - 1))) / f64::from(1u32 << d)).floor()
        }
    };
    let v = r * q;
    if v > f64::from(mx_to_f32(fmt, fmt.max_bits())) {
        return max;
    }
    if r == 0.0 {
        return sign;
    }
    // v is representable: its bits.
    let bits = if v < 2f64.powi(emin) {
        (v / 2f64.powi(emin - man)) as u32
    } else {
        let e = exponent(v);
        let m = ((v / 2f64.powi(e) - 1.0) * f64::from(1u32 << fmt.man)) as u32;
        ((e + fmt.bias) as u32) << fmt.man | m
    };
    sign | bits as u8
}

/// The unbiased exponent of a positive normal f64.
fn exponent(x: f64) -> i32 {
    (x.to_bits() >> 52) as i32 - 1023
}

/// The power of two a scale operand stands for: its exponent field (bits 30:23) read as an
/// E8M0 scale (the CDNA4 ISA: "scale … using the exponent provided by" the f32 input; sign
/// and mantissa are not read). NaN for exponent 0xFF, the E8M0 NaN.
pub(crate) fn scale_value(scale: u32) -> f64 {
    f64::from(e8m0_to_f32((scale >> 23) as u8))
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    #[test]
    fn encode_inverts_decode_on_every_pattern() {
        for fmt in [E2M1, E2M3, E3M2] {
            for b in 0..1u8 << (1 + fmt.exp + fmt.man) {
                let x = f64::from(mx_to_f32(fmt, b));
                assert_eq!(encode(fmt, x, Rounding::NearestEven), b, "{fmt:?} {b:#x}");
                assert_eq!(encode(fmt, x, Rounding::Stochastic(u32::MAX)), b);
            }
        }
    }
}
