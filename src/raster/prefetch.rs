//! Asking the memory system for data a few steps before it is read. The rasteriser reads
//! its big buffers out of order (a tile's segments in depth order jump about the projected
//! points; the strands are projected in screen order, not in the order they are stored),
//! and each such read misses the caches; asked for a few items ahead, those reads overlap
//! the work instead of stalling it.

/// Items ahead of the one being worked on that are asked for: far enough that they arrive
/// before they are read, near enough that they are still cached then.
pub(crate) const AHEAD: usize = 8;

/// Asks for the cache line holding `items[at]` without waiting for it; nothing when `at`
/// lies outside `items`. A hint only: nothing is read, nothing can fault, and it does
/// nothing on targets without one.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(at) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads nothing and never faults; the address is an item's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, at);
}
