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
//! Every value of these formats is exact in f32.

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
