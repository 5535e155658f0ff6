//! The baselines' hardware hints, the crate's only `unsafe` code: a
//! prefetch, as the filter's batches issue, and a huge-page request, as the
//! filter's bit array makes, so that the probes run under the same
//! conditions as the filters they bound.
#![allow(unsafe_code)]

pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults and changes nothing the
    // program can observe; the pointer comes from a live reference; SSE is
    // part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_ET0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_ET0>((value as *const T).cast());
    }
}

/// Asks Linux for transparent huge pages on `memory`, as the filter's bit
/// array does for arrays of 4 MiB or more. Best effort.
pub(crate) fn advise_huge_pages<T>(memory: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = memory.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + std::mem::size_of_val(memory)).saturating_sub(aligned) / PAGE * PAGE;
        // SAFETY: `[aligned, aligned + len)` lies inside `memory`, a live
        // allocation; MADV_HUGEPAGE changes only how the kernel backs those
        // pages, never their contents or addresses.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}
