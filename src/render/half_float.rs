//! Half-precision floats for textures the host writes (the light's deep opacity from the
//! native hair path, the environment map): one rounding rule for all of them, by the
//! `half` crate.

use rayon::prelude::*;

/// The largest finite half-precision float.
const MAX_HALF: f32 = 65504.0;

/// `v` as an IEEE half-precision float's bits, rounded to the nearest (ties to even). Past
/// ±65504 it saturates instead of becoming infinite: a texel of infinity would spoil every
/// filtered lookup that touches it, and no light or density that large shows differently.
/// NaN stays NaN.
pub fn f16_bits(v: f32) -> u16 {
    half::f16::from_f32(v.clamp(-MAX_HALF, MAX_HALF)).to_bits()
}

/// Each of `values` as [`f16_bits`], converted over every core (a light map holds millions).
pub fn f16_slice(values: &[f32]) -> Vec<u16> {
    values.par_iter().map(|&v| f16_bits(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::{f16_bits, f16_slice};

    #[test]
    fn halves_are_the_ieee_bits() {
        assert_eq!(f16_bits(0.0), 0);
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(0.5), 0x3800);
        assert_eq!(f16_bits(0.333_333_3), 0x3555);
        // 1 + 2^-10 is the next half after 1; 1 + 2^-11 is the tie, rounded to even.
        assert_eq!(f16_bits(1.000_976_6), 0x3c01);
        assert_eq!(f16_bits(1.000_488_3), 0x3c00);
        // The smallest subnormal, 2^-24, and a value that rounds to it.
        assert_eq!(f16_bits(5.960_464_5e-8), 1);
        assert_eq!(f16_bits(6.0e-8), 1);
        assert!(f16_bits(f32::NAN) & 0x7c00 == 0x7c00 && f16_bits(f32::NAN) & 0x3ff != 0);
    }

    #[test]
    fn past_the_largest_half_it_saturates() {
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(1e6), 0x7bff);
        assert_eq!(f16_bits(f32::INFINITY), 0x7bff);
        assert_eq!(f16_bits(-1e9), 0xfbff);
        assert_eq!(f16_slice(&[1.0, 1e9, -0.5]), vec![0x3c00, 0x7bff, 0xb800]);
    }
}
