//! Eight lanes in one AVX register, for x86-64 CPUs found at run time to have AVX. Built
//! for the baseline x86-64, `wide::f32x8` splits each operation over two SSE registers;
//! these are the same operations on one 256-bit register. The kernels that use them run
//! inside [`Lanes::run`], which compiles their bodies (every method here is inlined into
//! them) with AVX enabled. Each operation is the IEEE single-precision one per lane, with
//! the scalar rule for `min` and `max`, and no fused multiply-add: the same bits as the
//! other two instantiations.

use super::lanes::Lanes;
use std::arch::x86_64::{
    __m256, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LT_OQ, _mm256_add_ps, _mm256_and_ps, _mm256_blendv_ps,
    _mm256_cmp_ps, _mm256_div_ps, _mm256_loadu_ps, _mm256_max_ps, _mm256_min_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_storeu_ps, _mm256_sub_ps,
};
use std::ops::{Add, Div, Mul, Sub};

/// Eight `f32` lanes in an AVX register. Only made by the kernels that
/// [`Avx8::available`] chose, so every instruction below runs on a CPU that has AVX.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Avx8(__m256);

impl Avx8 {
    /// Whether this CPU has AVX: the kernels may be instantiated with [`Avx8`].
    pub(crate) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx")
    }
}

// SAFETY (every `unsafe` block in this file): the intrinsics need AVX, and an `Avx8` only
// exists in kernels drawn after `Avx8::available` said the CPU has it.

macro_rules! arithmetic {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl $trait for Avx8 {
            type Output = Avx8;
            #[inline(always)]
            fn $method(self, o: Avx8) -> Avx8 {
                Avx8(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}

arithmetic!(Add, add, _mm256_add_ps);
arithmetic!(Sub, sub, _mm256_sub_ps);
arithmetic!(Mul, mul, _mm256_mul_ps);
arithmetic!(Div, div, _mm256_div_ps);

impl Lanes for Avx8 {
    /// All ones in the lanes that hold, zeros elsewhere (a comparison's result).
    type Mask = __m256;
    const WIDTH: usize = 8;

    #[inline(always)]
    fn run<R>(f: impl FnOnce() -> R) -> R {
        /// `f` compiled with AVX enabled: everything it inlines, these lanes included, is
        /// one 256-bit instruction an operation.
        #[target_feature(enable = "avx")]
        fn with_avx<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: kernels in `Avx8` lanes are only drawn where the CPU has AVX.
        unsafe { with_avx(f) }
    }
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Avx8(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn load(v: &[f32]) -> Self {
        let v = &v[..8];
        // SAFETY: also, `v` holds the eight values read.
        Avx8(unsafe { _mm256_loadu_ps(v.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, out: &mut [f32]) {
        let out = &mut out[..8];
        // SAFETY: also, `out` has room for the eight values written.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), self.0) }
    }
    // Ordered comparisons: false where either side is NaN, as the scalar `>`, `>=`, `<`.
    #[inline(always)]
    fn gt(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __m256 {
        unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn and(a: __m256, b: __m256) -> __m256 {
        unsafe { _mm256_and_ps(a, b) }
    }
    #[inline(always)]
    fn select(m: __m256, a: Self, b: Self) -> Self {
        // `blendv` takes its second operand where the mask's sign bit is set: masks are
        // all ones or all zeros, so that is where `m` holds.
        Avx8(unsafe { _mm256_blendv_ps(b.0, a.0, m) })
    }
    // `vminps a, b` gives `a < b ? a : b` and `vmaxps a, b` gives `a > b ? a : b` (the
    // second operand on NaN): with `o` first, the scalar rule exactly.
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Avx8(unsafe { _mm256_min_ps(o.0, self.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Avx8(unsafe { _mm256_max_ps(o.0, self.0) })
    }
    #[inline(always)]
    fn all(m: __m256) -> bool {
        Self::bits(m) == 0xff
    }
    #[inline(always)]
    fn any(m: __m256) -> bool {
        Self::bits(m) != 0
    }
    #[inline(always)]
    fn bits(m: __m256) -> u32 {
        (unsafe { _mm256_movemask_ps(m) }) as u32
    }
}
