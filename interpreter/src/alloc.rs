//! Accounting for the script sandbox: a global allocator wrapper that counts, per thread, the
//! bytes live and the bytes ever allocated, and a per-thread count of engine work. A script call compares the counts at
//! its start with the counts while it runs ([`crate::script`]'s progress check) and is ended
//! with an error when it keeps or churns more than its budget, whatever the script did to get
//! there (long strings, maps of strings, values captured in curried function pointers).
//!
//! The `rulebook` binary and the integration tests install it
//! (`#[global_allocator] static A: Counting<mimalloc::MiMalloc> = Counting(mimalloc::MiMalloc);`).
//! A program that embeds the library without it keeps every other limit, but not the memory
//! budget: [`installed`] tells which.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static TOTAL: Cell<u64> = const { Cell::new(0) };
    static WORK: Cell<u64> = const { Cell::new(0) };
}

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts this thread's allocations, then defers to `A`.
pub struct Counting<A>(pub A);

#[inline]
fn count(grow: usize, shrink: usize) {
    // `try_with`: allocations during thread teardown are not counted (and must not panic).
    let _ = LIVE.try_with(|l| l.set(l.get() + grow as i64 - shrink as i64));
    let _ = TOTAL.try_with(|t| t.set(t.get().wrapping_add(grow as u64)));
}

unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        self.0.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        self.0.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(0, layout.size());
        self.0.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size, layout.size());
        self.0.realloc(ptr, layout, new_size)
    }
}

/// This thread's counters: `(bytes live, bytes ever allocated)`. Live bytes may be negative
/// when memory allocated on another thread is freed here; only differences are meaningful.
pub fn counters() -> (i64, u64) {
    (LIVE.try_with(Cell::get).unwrap_or(0), TOTAL.try_with(Cell::get).unwrap_or(0))
}

/// Counts engine-side work done on this thread (elements moved, shuffled, listed, scanned),
/// which [`crate::script`] charges to the operation budget of the call in progress. Kept here,
/// beside the byte counters, so that every layer may count without depending on the scripts.
pub fn charge(elements: usize) {
    let _ = WORK.try_with(|w| w.set(w.get().saturating_add(elements as u64)));
}

/// This thread's engine work counted so far (see [`charge`]); only differences are meaningful.
pub fn work() -> u64 {
    WORK.try_with(Cell::get).unwrap_or(0)
}

/// Whether [`Counting`] is the global allocator (it has counted an allocation).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}
