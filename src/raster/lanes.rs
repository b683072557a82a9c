//! The arithmetic the tile kernels are written in, for one pixel at a time (`f32`, the
//! scalar reference) or a row of eight (`wide::f32x8`, the fast path on any CPU; the AVX
//! lanes of `avx.rs` where the CPU has AVX). Every operation is
//! IEEE single precision per lane with no fused multiply-add, so both instantiations of a
//! kernel give the same bits.

use std::ops::{Add, Div, Mul, Sub};
use wide::f32x8;

/// Pixels side by side in one value.
pub(crate) trait Lanes:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// A per-lane condition.
    type Mask: Copy;
    /// Lanes in one value.
    const WIDTH: usize;
    fn splat(v: f32) -> Self;
    /// The first `WIDTH` values of `v`.
    fn load(v: &[f32]) -> Self;
    /// Writes the lanes to the first `WIDTH` values of `out`.
    fn store(self, out: &mut [f32]);
    fn gt(self, o: Self) -> Self::Mask;
    fn ge(self, o: Self) -> Self::Mask;
    fn lt(self, o: Self) -> Self::Mask;
    fn and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// `a` where `m` holds, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    #[inline(always)]
    fn abs(self) -> Self {
        self.max(Self::splat(0.0) - self)
    }
    #[inline(always)]
    fn clamp01(self) -> Self {
        self.max(Self::splat(0.0)).min(Self::splat(1.0))
    }
    /// Whether `m` holds in every lane.
    fn all(m: Self::Mask) -> bool;
    /// Whether `m` holds in any lane.
    fn any(m: Self::Mask) -> bool;
    /// The lanes where `m` holds, lane `i` as bit `i`.
    fn bits(m: Self::Mask) -> u32;
    /// Runs `f`, a kernel's work in these lanes, with the CPU features the lanes need
    /// enabled for everything it inlines (AVX for the AVX lanes); the other lanes need none.
    #[inline(always)]
    fn run<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

impl Lanes for f32 {
    type Mask = bool;
    const WIDTH: usize = 1;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn load(v: &[f32]) -> Self {
        v[0]
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        out[0] = self;
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn ge(self, o: Self) -> bool {
        self >= o
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn and(a: bool, b: bool) -> bool {
        a && b
    }
    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        if o < self { o } else { self }
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if o > self { o } else { self }
    }
    #[inline(always)]
    fn all(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn any(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn bits(m: bool) -> u32 {
        u32::from(m)
    }
}

impl Lanes for f32x8 {
    type Mask = f32x8;
    const WIDTH: usize = 8;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        f32x8::splat(v)
    }
    #[inline(always)]
    fn load(v: &[f32]) -> Self {
        let mut a = [0.0; 8];
        a.copy_from_slice(&v[..8]);
        f32x8::from(a)
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        out[..8].copy_from_slice(&self.to_array());
    }
    #[inline(always)]
    fn gt(self, o: Self) -> f32x8 {
        self.simd_gt(o)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> f32x8 {
        self.simd_ge(o)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> f32x8 {
        self.simd_lt(o)
    }
    #[inline(always)]
    fn and(a: f32x8, b: f32x8) -> f32x8 {
        a & b
    }
    #[inline(always)]
    fn select(m: f32x8, a: Self, b: Self) -> Self {
        m.select(a, b)
    }
    // The same rule as the scalar one (`o` when it is strictly less, or greater), so that
    // the two agree bit for bit whatever the zeros' signs or NaN. On x86 that rule is the
    // hardware's own with SSE: `minps a, b` gives `a < b ? a : b` and `maxps a, b` gives
    // `a > b ? a : b`, one instruction (wide's `fast_min` and `fast_max` there); without
    // SSE it is a comparison and a select.
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        #[cfg(target_feature = "sse")]
        return o.fast_min(self);
        #[cfg(not(target_feature = "sse"))]
        return o.simd_lt(self).select(o, self);
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        #[cfg(target_feature = "sse")]
        return o.fast_max(self);
        #[cfg(not(target_feature = "sse"))]
        return o.simd_gt(self).select(o, self);
    }
    #[inline(always)]
    fn all(m: f32x8) -> bool {
        m.all()
    }
    #[inline(always)]
    fn any(m: f32x8) -> bool {
        m.any()
    }
    #[inline(always)]
    fn bits(m: f32x8) -> u32 {
        m.to_bitmask()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_and_max_keep_the_scalar_rule_for_signed_zeros_and_nan() {
        let nan = f32::NAN;
        let a = [0.0, -0.0, nan, 1.0, nan, -0.0, 2.0, -1.0];
        let b = [-0.0, 0.0, 1.0, nan, nan, -0.0, 2.0, 3.0];
        let (wa, wb) = (f32x8::load(&a), f32x8::load(&b));
        let (mut lo, mut hi) = ([0.0; 8], [0.0; 8]);
        <f32x8 as Lanes>::min(wa, wb).store(&mut lo);
        <f32x8 as Lanes>::max(wa, wb).store(&mut hi);
        for i in 0..8 {
            let (want_lo, want_hi) = (Lanes::min(a[i], b[i]), Lanes::max(a[i], b[i]));
            assert_eq!(lo[i].to_bits(), want_lo.to_bits(), "min, lane {i}");
            assert_eq!(hi[i].to_bits(), want_hi.to_bits(), "max, lane {i}");
        }
    }

    #[test]
    fn both_widths_select_and_clamp_alike() {
        let v = [-0.5, 0.25, 1.5, 0.0, 1.0, 0.75, -2.0, 3.0];
        let wide = f32x8::load(&v).clamp01();
        let mut out = [0.0; 8];
        wide.store(&mut out);
        for (i, x) in v.iter().enumerate() {
            assert_eq!(out[i].to_bits(), x.clamp01().to_bits(), "lane {i}");
        }
        let m = f32x8::load(&v).gt(f32x8::splat(0.5));
        let picked = <f32x8 as Lanes>::select(m, f32x8::splat(1.0), f32x8::splat(2.0)).to_array();
        for (i, x) in v.iter().enumerate() {
            assert_eq!(picked[i], f32::select(*x > 0.5, 1.0, 2.0), "lane {i}");
        }
        assert!(!f32x8::all(m));
        assert!(f32x8::any(m));
        let want = v.iter().enumerate().filter(|(_, x)| **x > 0.5);
        assert_eq!(f32x8::bits(m), want.map(|(i, _)| 1u32 << i).sum::<u32>());
        assert!(!f32x8::any(f32x8::splat(0.0).gt(f32x8::splat(1.0))));
        assert!(f32x8::all(f32x8::splat(1.0).gt(f32x8::splat(0.0))));
    }
}
