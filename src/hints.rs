//! # Hardware hints: prefetch and huge pages
//!
//! Two requests to the hardware and the kernel that change how fast the
//! filter runs, never what it does. They are the crate's only `unsafe`
//! code, because `std` and `libc` expose them only as `unsafe` functions.
//!
//! ## Prefetch
//!
//! The batch operations (`batch.rs`) ask the CPU to start loading a key's
//! cache line a few keys before they use it, so that a filter far larger
//! than the cache overlaps its memory misses instead of taking them one at a
//! time. Prefetching matters most for inserts: `fetch_or` is a locked
//! instruction, which on x86 waits for every earlier load to complete, so
//! ordinary loads issued ahead would serialize on it; a prefetch does not.
//! Inserts prefetch for writing and queries for reading ([`Access`]), so
//! that threads querying a shared filter in cache keep their copies.
//!
//! Elsewhere than x86_64, and under loom, it is a no-op.
//!
//! ## Huge pages
//!
//! A filter far larger than the cache takes a TLB miss on almost every
//! operation with 4 KiB pages; with 2 MiB pages the page tables of a
//! gigabyte filter fit in the TLB's reach. Linux gives an anonymous mapping
//! transparent huge pages when asked with `madvise(MADV_HUGEPAGE)` (the
//! default `madvise` mode of `/sys/kernel/mm/transparent_hugepage/enabled`).
//! Measured on a 100M-key filter, five alternating runs each with THP
//! `never` and `madvise` (`cargo run --release --example huge_pages`,
//! README "Huge pages"), medians: batched queries 1.38x as fast, single
//! queries 1.11x, batched inserts 1.07x, parallel inserts 1.21x; loading a
//! 1 GiB file went from 0.83 s to 0.49 s. The price: a
//! page is 2 MiB once touched, so a sparse filter becomes resident in
//! larger pieces (creating one still touches nothing). Arrays under 4 MiB
//! are left alone. Other systems: a no-op.

/// What the code that follows a prefetch will do with the line.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Access {
    /// Only load it: fetch a shared copy, which other cores may keep too.
    Read,
    /// `fetch_or` it: fetch it in the exclusive state, which takes it from
    /// every other core's cache.
    Write,
}

/// Hints that `value`'s cache line will soon be accessed as `access` says.
///
/// The distinction matters when threads share a filter that fits in cache:
/// a query that fetched lines exclusively would take them from the other
/// cores' caches, and concurrent queries would bounce lines between cores
/// as if they were writing.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T, access: Access) {
    #[cfg(all(test, not(loom)))]
    RECORDED.with(|r| {
        r.borrow_mut()
            .as_mut()
            .map(|r| r.push(value as *const T as usize))
    });
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    #[allow(unsafe_code)]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it is
    // part of the x86_64 baseline). It is a hint: it never faults, changes no
    // memory and no register, and has no effect the program can observe
    // except timing. The pointer comes from a live reference. `_MM_HINT_T0`
    // fetches a shared copy into every cache level; `_MM_HINT_ET0`
    // (PREFETCHW) asks for the line in the exclusive state, ready for the
    // `fetch_or` that follows, and CPUs without PREFETCHW treat it as a NOP.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_ET0, _MM_HINT_T0, _mm_prefetch};
        let line = (value as *const T).cast();
        match access {
            Access::Read => _mm_prefetch::<_MM_HINT_T0>(line),
            Access::Write => _mm_prefetch::<_MM_HINT_ET0>(line),
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = (value, access);
}

/// Asks Linux to back the pages of `memory` with transparent huge pages.
/// Best effort: a refusal (old kernel, THP disabled) changes nothing.
pub(crate) fn advise_huge_pages<T>(memory: &[T]) {
    #[cfg(all(target_os = "linux", not(loom)))]
    {
        /// Arrays smaller than this are not worth a huge-page request.
        const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;
        const PAGE: usize = 4096;
        let bytes = std::mem::size_of_val(memory);
        if bytes < HUGE_PAGE_MIN_BYTES {
            return;
        }
        // madvise wants a page-aligned start: advise the whole pages inside.
        let start = memory.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + bytes - aligned) / PAGE * PAGE;
        #[allow(unsafe_code)]
        // SAFETY: `[aligned, aligned + len)` lies inside `memory`, a live
        // allocation we own. MADV_HUGEPAGE only changes how the kernel backs
        // those pages (it may merge them into 2 MiB pages); their contents,
        // permissions and addresses stay the same, so no Rust reference is
        // affected. The return value only says whether the hint was taken.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(all(target_os = "linux", not(loom))))]
    let _ = memory;
}

#[cfg(all(test, not(loom)))]
std::thread_local! {
    /// The addresses `prefetch` was asked for, while recording.
    static RECORDED: std::cell::RefCell<Option<Vec<usize>>> = const { std::cell::RefCell::new(None) };
}

/// The addresses this thread asked to prefetch while running `f`.
#[cfg(all(test, not(loom)))]
pub(crate) fn recorded_prefetches(f: impl FnOnce()) -> Vec<usize> {
    RECORDED.with(|r| *r.borrow_mut() = Some(Vec::new()));
    f();
    RECORDED.with(|r| r.borrow_mut().take().unwrap_or_default())
}
