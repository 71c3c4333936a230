//! A counting global allocator: [`System`] plus a count of allocation calls, so that the benchmark
//! binaries (`bench-table`, and `peers/` against SGLang) report allocations per delta.
//!
//! The only unsafe code of the crate (`GlobalAlloc` is an unsafe trait). A binary installs it with
//! `#[global_allocator] static ALLOC: Counting = Counting;` and reads [`allocations`].
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// Allocator calls so far (`alloc`, `alloc_zeroed`, `realloc`; not `dealloc`).
pub static CALLS: AtomicU64 = AtomicU64::new(0);

/// [`System`], counting allocation calls in [`CALLS`].
pub struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees are ours; the only addition is a relaxed atomic increment, which neither allocates nor
// unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded; the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded; the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded; the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocation calls so far, on every thread (the installed [`Counting`] allocator's count).
pub fn allocations() -> u64 {
    CALLS.load(Ordering::Relaxed)
}
