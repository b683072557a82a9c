//! Which lanes a draw's kernels run in: one pixel at a time (the reference), eight in
//! `wide::f32x8` (any CPU), or eight in one AVX register (x86-64 CPUs that have AVX,
//! checked at run time). All three give the same bits.

use super::RasterOptions;
#[cfg(target_arch = "x86_64")]
use super::avx::Avx8;

/// Which lanes a draw's kernels use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneChoice {
    /// One pixel at a time: the reference.
    Scalar,
    /// `wide::f32x8`, on any CPU.
    Wide,
    /// One AVX register, on an x86-64 CPU that has AVX.
    #[cfg(target_arch = "x86_64")]
    Avx,
}

impl LaneChoice {
    /// The lanes `options` ask for on this CPU (all three give the same bits).
    pub(crate) fn for_options(options: &RasterOptions) -> LaneChoice {
        #[cfg(target_arch = "x86_64")]
        if options.simd && options.avx && Avx8::available() {
            return LaneChoice::Avx;
        }
        if options.simd {
            LaneChoice::Wide
        } else {
            LaneChoice::Scalar
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::raster::lanes::Lanes;

    /// Every operation against the scalar one, lane by lane, bit for bit, on values with
    /// signed zeros, NaN, infinities and ordinary numbers; on a CPU without AVX, that these
    /// lanes are never chosen there.
    #[test]
    fn each_operation_gives_the_scalar_bits_in_every_lane() {
        let chosen = LaneChoice::for_options(&RasterOptions::default());
        if !Avx8::available() {
            assert_eq!(
                chosen,
                LaneChoice::Wide,
                "AVX lanes chosen on a CPU without AVX"
            );
            return;
        }
        assert_eq!(
            chosen,
            LaneChoice::Avx,
            "a CPU with AVX draws in the AVX lanes"
        );
        let nan = f32::NAN;
        let a = [0.0, -0.0, nan, 1.0, nan, f32::INFINITY, 2.5, -1.0e-3];
        let b = [-0.0, 0.0, 1.0, nan, nan, -3.0, 2.5, 7.0];
        Avx8::run(|| {
            let (wa, wb) = (Avx8::load(&a), Avx8::load(&b));
            let lanes = |v: Avx8| {
                let mut out = [0.0f32; 8];
                v.store(&mut out);
                out
            };
            type Op = fn(f32, f32) -> f32;
            let ops: [(&str, Avx8, Op); 6] = [
                ("add", wa + wb, |x, y| x + y),
                ("sub", wa - wb, |x, y| x - y),
                ("mul", wa * wb, |x, y| x * y),
                ("div", wa / wb, |x, y| x / y),
                ("min", wa.min(wb), Lanes::min),
                ("max", wa.max(wb), Lanes::max),
            ];
            for (name, got, want) in ops {
                let got = lanes(got);
                for i in 0..8 {
                    let w = want(a[i], b[i]);
                    assert_eq!(got[i].to_bits(), w.to_bits(), "{name}, lane {i}");
                }
            }
            let masks = [
                (
                    "gt",
                    Avx8::bits(wa.gt(wb)),
                    (|x, y| x > y) as fn(f32, f32) -> bool,
                ),
                ("ge", Avx8::bits(wa.ge(wb)), |x, y| x >= y),
                ("lt", Avx8::bits(wa.lt(wb)), |x, y| x < y),
            ];
            for (name, got, want) in masks {
                let expected = (0..8)
                    .filter(|&i| want(a[i], b[i]))
                    .map(|i| 1u32 << i)
                    .sum::<u32>();
                assert_eq!(got, expected, "{name}");
            }
            let picked = lanes(Avx8::select(wa.lt(wb), Avx8::splat(1.0), Avx8::splat(2.0)));
            for i in 0..8 {
                assert_eq!(
                    picked[i],
                    if a[i] < b[i] { 1.0 } else { 2.0 },
                    "select, lane {i}"
                );
            }
            assert!(Avx8::any(wa.ge(wb)) && !Avx8::all(wa.ge(wb)));
            assert!(Avx8::all(Avx8::splat(1.0).gt(Avx8::splat(0.0))));
            assert!(!Avx8::any(Avx8::splat(0.0).gt(Avx8::splat(1.0))));
            let both = Avx8::and(wa.ge(wb), wa.lt(Avx8::splat(2.0)));
            let expected = (0..8)
                .filter(|&i| a[i] >= b[i] && a[i] < 2.0)
                .map(|i| 1u32 << i);
            assert_eq!(Avx8::bits(both), expected.sum::<u32>(), "and");
        });
    }
}
