//! The OCP Microscaling (MX) element formats below eight bits and the E8M0 scale (OCP MX
//! spec v1.0 §5): FP4 E2M1 (bias 1), FP6 E2M3 (bias 1), BF6 E3M2 (bias 3), none of them with
//! infinities or NaNs; E8M0 is an exponent alone (2^(bits − 127), 0xFF is NaN). gfx950's
//! scaled conversions (`exec::mxcvt`) and its f8f6f4 MFMAs read and write them. Element `i` of
//! a packed operand sits at bits `[w·i, w·i + w)` (little-endian, `w` = 4 or 6).
//!
//! The 8-bit OCP formats (E4M3, E5M2) live in `exec::cdna3` ([`super::cdna3::F8`]).

use super::cdna3::Rounding;

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

// Decoding

/// The value of an `fmt` pattern (sign, exponent and mantissa in the low bits); exact in f32.
fn decode(fmt: Mx, bits: u8) -> f32 {
    let neg = bits & fmt.sign_bit() != 0;
    let e = u32::from(bits >> fmt.man) & ((1 << fmt.exp) - 1);
    let m = u32::from(bits) & ((1 << fmt.man) - 1);
    let v = if e == 0 {
        m as f32 * 2f32.powi(1 - fmt.bias - fmt.man as i32)
    } else {
        (1.0 + m as f32 / (1u32 << fmt.man) as f32) * 2f32.powi(e as i32 - fmt.bias)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// FP4 E2M1 (the low 4 bits) to f32.
pub fn e2m1_to_f32(bits: u8) -> f32 {
    decode(E2M1, bits & 0xf)
}

/// FP6 E2M3 (the low 6 bits) to f32.
pub fn e2m3_to_f32(bits: u8) -> f32 {
    decode(E2M3, bits & 0x3f)
}

/// BF6 E3M2 (the low 6 bits) to f32.
pub fn e3m2_to_f32(bits: u8) -> f32 {
    decode(E3M2, bits & 0x3f)
}

/// An E8M0 scale to f32: 2^(bits − 127), exact (2^-127 is an f32 subnormal); 0xFF is NaN.
pub fn e8m0_to_f32(bits: u8) -> f32 {
    match bits {
        0xff => f32::NAN,
        0 => f32::from_bits(0x0040_0000),
        b => f32::from_bits(u32::from(b) << 23),
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

// Encoding

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
    if v > f64::from(decode(fmt, fmt.max_bits())) {
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
mod tests {
    use super::*;

    #[test]
    fn formats_have_their_documented_extremes() {
        assert_eq!(e2m1_to_f32(0x7), 6.0);
        assert_eq!(e2m1_to_f32(0x1), 0.5);
        assert_eq!(e2m1_to_f32(0xf), -6.0);
        assert_eq!(e2m3_to_f32(0x1f), 7.5);
        assert_eq!(e2m3_to_f32(0x01), 0.125);
        assert_eq!(e3m2_to_f32(0x1f), 28.0);
        assert_eq!(e3m2_to_f32(0x01), 0.0625);
        assert_eq!(e3m2_to_f32(0x04), 0.25);
        assert!(e2m1_to_f32(0x8).is_sign_negative());
        assert_eq!(e8m0_to_f32(127), 1.0);
        assert_eq!(e8m0_to_f32(0), 2f32.powi(-127));
        assert_eq!(e8m0_to_f32(254), 2f32.powi(127));
        assert!(e8m0_to_f32(255).is_nan());
    }

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
