//! # Software prefetch
//!
//! The batch operations (`batch.rs`) ask the CPU to start loading a key's
//! cache line a few keys before they use it, so that a filter far larger
//! than the cache overlaps its memory misses instead of taking them one at a
//! time. Prefetching matters most for inserts: `fetch_or` is a locked
//! instruction, which on x86 waits for every earlier load to complete, so
//! ordinary loads issued ahead would serialize on it; a prefetch does not.
//!
//! This is the crate's only `unsafe` code: `std` exposes the prefetch
//! instruction only as an `unsafe` intrinsic. Elsewhere, and under loom, it
//! is a no-op.

/// Hints that `value`'s cache line will soon be written.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    #[allow(unsafe_code)]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it is
    // part of the x86_64 baseline). It is a hint: it never faults, changes no
    // memory and no register, and has no effect the program can observe
    // except timing. The pointer comes from a live reference. `_MM_HINT_ET0`
    // (PREFETCHW) asks for the line in the exclusive state, ready for the
    // `fetch_or` that follows; CPUs without PREFETCHW treat it as a NOP.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_ET0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_ET0>((value as *const T).cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = value;
}
