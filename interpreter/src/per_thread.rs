//! One copy per group of threads of what every game of a run reads and reference-counts.
//!
//! A compiled program (its string constants and function pointers are cloned on every run), a
//! game's initial state (its components are shared by every state and component handle of the
//! games started from it), the data tables and graphs as script values (their strings are
//! shared by every copy handed to a script): threads sharing one copy contend for those
//! counts, so the threads of `simulate --jobs N` each take their own. Making one takes
//! milliseconds; the copies are equal, so results do not depend on the copy.

/// How many copies a [`PerThread`] holds; threads beyond that share them in turn.
pub(crate) const THREAD_COPIES: usize = 16;

/// One value per group of threads (see [`THREAD_COPIES`]), each made on first use.
pub(crate) type PerThread<T> = [std::sync::OnceLock<T>; THREAD_COPIES];

thread_local! {
    /// The copy this thread uses: threads take copies in turn.
    static THREAD_COPY: usize = {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % THREAD_COPIES
    };
}

/// This thread's copy among `copies`.
pub(crate) fn this_thread<T>(copies: &PerThread<T>) -> &std::sync::OnceLock<T> {
    &copies[THREAD_COPY.with(|c| *c)]
}
