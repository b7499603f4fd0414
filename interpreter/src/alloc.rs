//! Accounting for the script sandbox: a global allocator wrapper that counts, per thread, the
//! bytes live and the bytes ever allocated, and a per-thread count of engine work. A script call compares the counts at
//! its start with the counts while it runs ([`crate::script`]'s progress check) and is ended
//! with an error when it keeps or churns more than its budget, whatever the script did to get
//! there (long strings, maps of strings, values captured in curried function pointers).
//!
//! The `rulebook` binary and the integration tests install it
//! (`#[global_allocator] static A: Counting<Mimalloc> = Counting(Mimalloc);`, [`Mimalloc`] below).
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

/// mimalloc called the way a C program calls it: `mi_malloc` (and `mi_realloc`, `mi_zalloc`)
/// for every layout whose alignment it always gives (at most 16 bytes, and no more than the
/// size, as Rust's own system allocator decides), its aligned entry points only for the rest.
/// The `mimalloc` crate's allocator takes the aligned path for every allocation, about 40
/// instructions more each: 4% of the instructions of a simulation whose transactions allocate
/// option lists and flow frames per decision.
pub struct Mimalloc;

/// The alignment `mi_malloc` gives every block of at least that size.
const MIMALLOC_ALIGN: usize = 16;

#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= MIMALLOC_ALIGN && align <= size
}

unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        if plain(layout.align(), layout.size()) {
            mi_malloc(layout.size()).cast()
        } else {
            mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        if plain(layout.align(), layout.size()) {
            mi_zalloc(layout.size()).cast()
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        libmimalloc_sys::mi_free(ptr.cast());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        if plain(layout.align(), new_size) {
            mi_realloc(ptr.cast(), new_size).cast()
        } else {
            mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size and alignment gets a block aligned as asked, zeroed when asked, and keeps its
    /// contents through growing and shrinking (plain and aligned paths, in both directions).
    #[test]
    fn mimalloc_gives_every_layout_its_alignment_and_keeps_contents() {
        let a = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 8, 15, 16, 17, 100, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let zeroed = a.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} bytes aligned {align}");
                    assert!(std::slice::from_raw_parts(zeroed, size).iter().all(|b| *b == 0));
                    a.dealloc(zeroed, layout);
                    let p = a.alloc(layout);
                    assert_eq!(p as usize % align, 0, "{size} bytes aligned {align}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let mut current = (p, layout);
                    for new_size in [size * 3 + 1, (size / 2).max(1)] {
                        let q = a.realloc(current.0, current.1, new_size);
                        assert_eq!(q as usize % align, 0, "{size} -> {new_size} bytes aligned {align}");
                        let kept = current.1.size().min(new_size);
                        assert!((0..kept).all(|i| *q.add(i) == i as u8), "{size} -> {new_size} bytes");
                        current = (q, Layout::from_size_align(new_size, align).unwrap());
                    }
                    a.dealloc(current.0, current.1);
                }
            }
        }
    }
}
