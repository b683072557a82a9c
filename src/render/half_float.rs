//! Half-precision floats for textures the host writes (the light's deep opacity from the
//! native hair path, the environment map): one rounding rule for all of them, by the
//! `half` crate.

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use rayon::prelude::*;

/// The largest finite half-precision float.
const MAX_HALF: f32 = 65504.0;

/// Each of `values` as an IEEE half-precision float's bits, rounded to the nearest (ties to
/// even), converted over every core (a light map holds millions). Past ±65504 a value
/// saturates instead of becoming infinite: a texel of infinity would spoil every filtered
/// lookup that touches it, and no light or density that large shows differently. NaN stays
/// NaN.
pub fn f16_slice(values: &[f32]) -> Vec<u16> {
    let mut bits = Vec::new();
    f16_slice_into(values, &mut bits);
    bits
}

/// Values converted by one task, clamped into a buffer on its stack first.
const CHUNK: usize = 1024;

/// [`f16_slice`] written over `bits` (kept by the caller from frame to frame, so a map's
/// megabytes are not allocated again). Eight values an instruction where the CPU converts
/// halves itself (`half`'s slice conversion picks F16C at run time, the same rounding as
/// its one-value conversion).
pub fn f16_slice_into(values: &[f32], bits: &mut Vec<u16>) {
    bits.resize(values.len(), 0);
    bits.par_chunks_mut(CHUNK)
        .zip(values.par_chunks(CHUNK))
        .for_each(|(bits, values)| {
            let mut clamped = [0.0f32; CHUNK];
            let clamped = &mut clamped[..values.len()];
            for (c, &v) in clamped.iter_mut().zip(values) {
                *c = v.clamp(-MAX_HALF, MAX_HALF);
            }
            bits.reinterpret_cast_mut::<half::f16>()
                .convert_from_f32_slice(clamped);
        });
}

#[cfg(test)]
mod tests {
    use super::{MAX_HALF, f16_slice, f16_slice_into};

    /// One value as the slices must convert it: `half`'s one-value conversion, saturated.
    fn f16_bits(v: f32) -> u16 {
        half::f16::from_f32(v.clamp(-MAX_HALF, MAX_HALF)).to_bits()
    }

    /// One value converted as a slice of one.
    fn one(v: f32) -> u16 {
        f16_slice(&[v])[0]
    }

    #[test]
    fn halves_are_the_ieee_bits() {
        assert_eq!(one(0.0), 0);
        assert_eq!(one(1.0), 0x3c00);
        assert_eq!(one(-2.0), 0xc000);
        assert_eq!(one(0.5), 0x3800);
        assert_eq!(one(0.333_333_3), 0x3555);
        // 1 + 2^-10 is the next half after 1; 1 + 2^-11 is the tie, rounded to even.
        assert_eq!(one(1.000_976_6), 0x3c01);
        assert_eq!(one(1.000_488_3), 0x3c00);
        // The smallest subnormal, 2^-24, and a value that rounds to it.
        assert_eq!(one(5.960_464_5e-8), 1);
        assert_eq!(one(6.0e-8), 1);
        assert!(one(f32::NAN) & 0x7c00 == 0x7c00 && one(f32::NAN) & 0x3ff != 0);
    }

    #[test]
    fn a_slice_converts_each_value_as_one_does() {
        // Edge cases (ties, subnormals, saturation, signed zero, NaN) and a sweep of bit
        // patterns over the whole float range, in a length that leaves a partial chunk.
        let mut values = vec![
            0.0,
            -0.0,
            1.000_488_3,
            1.001_464_8,
            5.960_464_5e-8,
            2.980_232_2e-8,
            65504.0,
            65519.0,
            65520.0,
            -1e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            0.333_333_3,
        ];
        values.extend((0..40_000u32).map(|i| f32::from_bits(i.wrapping_mul(107_374_183))));
        let bits = f16_slice(&values);
        assert_eq!(bits.len(), values.len());
        for (&v, &b) in values.iter().zip(&bits) {
            if v.is_nan() {
                assert!(b & 0x7c00 == 0x7c00 && b & 0x3ff != 0, "{v} became {b:#x}");
            } else {
                assert_eq!(b, f16_bits(v), "{v:e} ({:#x})", v.to_bits());
            }
        }
        // Written over a longer buffer, the buffer takes the values' length.
        let mut kept = vec![0xffff; values.len() + 5];
        f16_slice_into(&values[..3], &mut kept);
        assert_eq!(kept, bits[..3]);
    }

    #[test]
    fn past_the_largest_half_it_saturates() {
        assert_eq!(one(65504.0), 0x7bff);
        assert_eq!(one(1e6), 0x7bff);
        assert_eq!(one(f32::INFINITY), 0x7bff);
        assert_eq!(one(-1e9), 0xfbff);
        assert_eq!(f16_slice(&[1.0, 1e9, -0.5]), vec![0x3c00, 0x7bff, 0xb800]);
    }
}
