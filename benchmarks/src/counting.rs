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

/// Fixes glibc malloc's mmap and trim thresholds for the rest of the process, so that the time of a
/// routine does not depend on what earlier routines allocated.
///
/// Why: by default glibc serves a block of 128 KB or more with its own `mmap` (page faults on every
/// touch, `munmap` on free) until a freed mmapped block raises the threshold, and gives the top of the
/// heap back to the OS past a trim threshold that moves with it. The harness keeps a sub-batch of
/// outputs (~100 one-shot messages of ~100 KB each) alive and frees them together, so which formats ran
/// before decided whether the next sub-batch page-faulted its whole heap again: in one
/// `bench-table --quick` process, 72,538 page faults with the defaults against 3,416 with fixed
/// thresholds, and one-shot rows at 1–3 GB/s for formats that parse at ~12 GB/s alone (same
/// instruction count). A long-running server reaches the raised thresholds anyway; the bench should
/// measure the parser, not the allocator's warm-up. No effect on other C libraries.
pub fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // glibc's `mallopt` parameters (malloc.h).
        const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        unsafe extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        // SAFETY: `mallopt` only sets allocator parameters; called with glibc's documented parameter
        // numbers and in-range values (the mmap threshold at most HEAP_MAX / 2 = 32 MB on 64-bit).
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, 1 << 30);
        }
    }
}
