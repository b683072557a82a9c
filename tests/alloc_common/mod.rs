//! A global allocator that counts the bytes held and their peak, for tests that bound what
//! a call allocates. A test binary installs it with
//! `#[global_allocator] static ALLOC: alloc_common::Counting = alloc_common::Counting;`
//! and measures with [`peak_of`] while it holds [`alone`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Mutex, MutexGuard};

/// The system allocator, counted.
pub struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new) };
        if !p.is_null() {
            // Counted as if the new block were allocated before the old one is freed.
            let now = NOW.fetch_add(new, Relaxed) + new;
            PEAK.fetch_max(now, Relaxed);
            NOW.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

/// The counters see every thread's allocations: a test holds this lock while it
/// measures, so no other test of the binary allocates meanwhile.
static ALONE: Mutex<()> = Mutex::new(());

/// Takes [`ALONE`] (a test that panicked while holding it poisons nothing here).
pub fn alone() -> MutexGuard<'static, ()> {
    ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f` and returns its result and the most bytes it held at once beyond what was
/// held before. `_alone` proves the caller holds [`alone`]'s lock.
pub fn peak_of<T>(_alone: &MutexGuard<'static, ()>, f: impl FnOnce() -> T) -> (T, usize) {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}
