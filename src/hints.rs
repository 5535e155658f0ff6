//! # Hardware hints: prefetch and huge pages
//!
//! Two requests to the hardware and the kernel that change how fast the
//! filter runs, never what it does. Both are `unsafe` calls, because `std`
//! and `libc` expose them only as `unsafe` functions; `grep -rn "unsafe"
//! src` lists every `unsafe` site of the crate, each with its `SAFETY:`
//! argument.
//!
//! ## Prefetch
//!
//! The batch operations (`core/batch.rs`) ask the CPU to start loading a key's
//! cache line a few keys before they use it, so that a filter far larger
//! than the cache overlaps its memory misses instead of taking them one at a
//! time. Prefetching matters most for inserts: `fetch_or` is a locked
//! instruction, which on x86 orders every load around it, so ordinary loads
//! issued ahead would serialize on it; a prefetch is not ordered with locked
//! instructions (Intel SDM, PREFETCHh and PREFETCHW). For the same reason a
//! single insert prefetches its key's lines before testing them
//! (`AtomicBloom::insert_hash`): its miss then overlaps the previous
//! insert's locked instructions instead of waiting for them.
//!
//! Batched inserts prefetch for writing and queries for reading
//! ([`Access`]), so that threads querying a shared filter in cache keep
//! their copies. Prefetching for writing is PREFETCHW, which takes the line
//! exclusive at once where a load would fetch it shared and the `fetch_or`
//! would then have to take it from the other cores a second time: two
//! threads' `par_insert` gained from it (`cargo run --release -p
//! atomic-bloom-harness -- bench`; BENCHMARKS.md has the runs). A
//! single insert prefetches for reading: it cannot know yet whether the key
//! is present, and a present key's line should stay shared.
//!
//! Elsewhere than x86_64, and under loom, it is a no-op.
//!
//! The workspace's benchmark baselines issue the same hints through
//! `atomic_bloom::internals` (a feature outside the API), so that their
//! physical-limit probes run as the filter does.
//!
//! ## Huge pages
//!
//! A filter far larger than the cache takes a TLB miss on almost every
//! operation with 4 KiB pages; with 2 MiB pages the page tables of a
//! gigabyte filter fit in the TLB's reach. Linux gives an anonymous mapping
//! transparent huge pages when asked with `madvise(MADV_HUGEPAGE)` (the
//! default `madvise` mode of `/sys/kernel/mm/transparent_hugepage/enabled`).
//! Every operation on a 100M-key filter and the load of a large file
//! measured faster with THP `madvise` than `never` (`cargo run --release
//! --example huge_pages`; BENCHMARKS.md has the figures). The price: a
//! page is 2 MiB once touched, so a sparse filter becomes resident in
//! larger pieces (creating one still touches nothing). Arrays under 4 MiB
//! are left alone. Other systems: a no-op.

/// What the code that follows a prefetch will do with the line, and so how
/// to ask for it.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    /// Whether to ask for the line exclusively (PREFETCHW).
    exclusive: bool,
}

impl Access {
    /// Only load it: fetch a shared copy, which other cores may keep too.
    pub const READ: Access = Access { exclusive: false };

    /// `fetch_or` it: fetch it in the exclusive state, which takes it from
    /// every other core's cache (PREFETCHW; a read prefetch on CPUs
    /// without it). The CPU is asked once per process, but a loop should
    /// still keep the value rather than call this per key: the check is
    /// measurable in batched inserts.
    pub fn write() -> Access {
        Access {
            exclusive: cpu_has_prefetchw(),
        }
    }
}

/// Whether this CPU has PREFETCHW.
#[cfg(all(target_arch = "x86_64", not(loom)))]
fn cpu_has_prefetchw() -> bool {
    x86::has_prefetchw()
}

#[cfg(not(all(target_arch = "x86_64", not(loom))))]
fn cpu_has_prefetchw() -> bool {
    false
}

/// Hints that `value`'s cache line will soon be accessed as `access` says.
///
/// The distinction matters when threads share a filter that fits in cache:
/// a query that fetched lines exclusively would take them from the other
/// cores' caches, and concurrent queries would bounce lines between cores
/// as if they were writing.
#[inline(always)]
pub fn prefetch<T>(value: &T, access: Access) {
    #[cfg(all(test, not(loom)))]
    RECORDED.with(|r| {
        r.borrow_mut()
            .as_mut()
            .map(|r| r.push(value as *const T as usize))
    });
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    {
        let line: *const T = value;
        if access.exclusive {
            x86::prefetchw(line.cast());
        } else {
            x86::prefetcht0(line.cast());
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = (value, access.exclusive);
}

/// The x86_64 prefetch instructions.
///
/// `_mm_prefetch::<_MM_HINT_ET0>` would be the obvious way to ask for
/// PREFETCHW, but the compiler emits PREFETCHW for it only when the whole
/// program is built for a CPU that has it (`-C target-feature=+prfchw`);
/// on the x86_64 baseline it silently emits PREFETCHT0, a read prefetch.
/// So the instruction is written out, and run only where CPUID reports it:
/// every AMD64 CPU from AMD, Intel's since Broadwell (2014). The Linux
/// kernel's `prefetchw()` makes the same check (`X86_FEATURE_3DNOWPREFETCH`).
#[cfg(all(target_arch = "x86_64", not(loom)))]
mod x86 {
    use std::sync::LazyLock;

    /// Whether this CPU has PREFETCHW: CPUID leaf 8000_0001h, ECX bit 8
    /// (Intel's PRFCHW, AMD's 3DNowPrefetch). Asked once per process.
    pub(super) fn has_prefetchw() -> bool {
        static HAS_PREFETCHW: LazyLock<bool> = LazyLock::new(|| {
            use std::arch::x86_64::__cpuid;
            #[allow(unsafe_code, unused_unsafe)]
            // SAFETY: CPUID exists on every x86_64 CPU and only reads
            // identification registers; leaf 8000_0001h is asked only if
            // leaf 8000_0000h says it exists. (`__cpuid` is a safe function
            // in recent Rust and `unsafe` in the oldest this crate supports.)
            unsafe {
                __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0
            }
        });
        *HAS_PREFETCHW
    }

    /// PREFETCHW: fetch `line` in the exclusive state, ready to be written.
    #[inline(always)]
    pub(super) fn prefetchw(line: *const u8) {
        #[allow(unsafe_code)]
        // SAFETY: run only where CPUID reports PREFETCHW (an `Access` asks
        // for it only if `has_prefetchw` said so), so it is never an
        // undefined opcode. A prefetch is a hint: it never faults, whatever
        // the address, writes no memory and no register, and has no effect
        // the program can observe but timing. `line` comes from a live
        // reference.
        unsafe {
            std::arch::asm!("prefetchw [{line}]", line = in(reg) line, options(nostack, preserves_flags, readonly));
        }
    }

    /// PREFETCHT0: fetch `line` into every cache level, shared.
    #[inline(always)]
    pub(super) fn prefetcht0(line: *const u8) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        #[allow(unsafe_code)]
        // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it
        // is part of the x86_64 baseline). A hint, as above: it never
        // faults and changes nothing the program can observe but timing.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(line.cast());
        }
    }
}

/// Asks Linux to back the pages of `memory` with transparent huge pages.
/// Best effort: a refusal (old kernel, THP disabled) changes nothing.
pub fn advise_huge_pages<T>(memory: &[T]) {
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
