//! A counting global allocator: how many bytes the current thread holds, and the most it held
//! during one fuzz case.
//!
//! "Never allocates beyond the configured limits" is a property of every target (a line reader
//! with a 1 KiB limit must not buffer a 1 MiB line; a decoder must not turn 10 KB of JSON into
//! 100 MB of values), and it can only be checked by counting allocations. The counts are kept
//! per thread: the fuzz cases run on one thread (async ones on a current-thread runtime), and
//! `cargo test` runs other tests on other threads at the same time, whose allocations must not
//! land in a case's peak. Bytes freed on another thread than the one that allocated them make
//! that thread's count go down (it may go negative); the peak of the thread that runs the case
//! is still right.
//!
//! This module is the only `unsafe` code of the workspace outside the standard library's: a
//! `GlobalAlloc` implementation is an `unsafe impl` by definition (the compiler cannot check
//! that it returns valid memory). It holds nothing but forwarding calls to [`System`] and two
//! thread-local counters; the library crates stay `unsafe`-free, and this crate is a dev-only
//! test harness that is never published or linked into them.

#![allow(
    unsafe_code,
    reason = "a #[global_allocator] implements the unsafe GlobalAlloc trait; it forwards to System"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The allocator of every binary that links this crate: [`System`], counted.
#[derive(Debug)]
pub struct CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

thread_local! {
    // Const-initialized and without a destructor: reading them never allocates, and they stay
    // usable while a thread is being torn down (an allocator must work then too).
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grew(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = CURRENT.try_with(|current| {
        let now = current.get().saturating_add(bytes);
        current.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrank(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = CURRENT.try_with(|current| current.set(current.get().saturating_sub(bytes)));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and returns
// what `System` returned; the counting around it touches only thread-local integers.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `alloc`'s contract.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `alloc_zeroed`'s contract.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received; the caller upholds `dealloc`'s contract.
        unsafe { System.dealloc(pointer, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `realloc`'s contract.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

/// Runs `work` and returns what it returned with the most bytes this thread held at once
/// during it, above what it held when `work` started.
pub fn peak_during<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let start = CURRENT.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let value = work();
    let peak = PEAK.with(Cell::get);
    (value, usize::try_from(peak - start).unwrap_or(0))
}

/// Whether this allocator is the one in use (it is unless a binary installs another): a bound
/// on a peak that is always 0 would check nothing.
pub fn is_counting() -> bool {
    let ((), peak) = peak_during(|| drop(std::hint::black_box(vec![0u8; 4096])));
    peak >= 4096
}
