//! A counting global allocator for tests that show a per-frame path allocates nothing. A test
//! binary installs it with
//! `#[global_allocator] static GLOBAL: odori_testkit::alloc::Counting = odori_testkit::alloc::Counting;`
//! and reads [`allocations`] around the code under test. The count is process-wide, so such a
//! binary holds one test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting allocations and reallocations.
pub struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Allocations and reallocations so far in this process (with [`Counting`] installed).
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::SeqCst)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
