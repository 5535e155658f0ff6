//! The baselines' hardware hints, the crate's only `unsafe` code: a
//! prefetch, as the filter's batches issue, and a huge-page request, as the
//! filter's bit array makes, so that the probes run under the same
//! conditions as the filters they bound.
#![allow(unsafe_code)]

/// What a probe does with a line it prefetches.
#[derive(Clone, Copy)]
pub(crate) enum Access {
    Read,
    Write,
}

/// Prefetches `value`'s line as the filter does: PREFETCHT0 to read, and
/// PREFETCHW to write where CPUID reports it (`_mm_prefetch::<_MM_HINT_ET0>`
/// compiles to PREFETCHT0 on the x86_64 baseline; the library's `hints.rs`
/// says why it writes the instruction out instead).
pub(crate) fn prefetch<T>(value: &T, access: Access) {
    #[cfg(target_arch = "x86_64")]
    {
        let line: *const T = value;
        match access {
            Access::Write if has_prefetchw() => {
                // SAFETY: run only where CPUID reports PREFETCHW; a prefetch
                // is a hint that never faults and changes nothing the
                // program can observe; the pointer comes from a live
                // reference.
                unsafe {
                    std::arch::asm!("prefetchw [{line}]", line = in(reg) line, options(nostack, preserves_flags, readonly));
                }
            }
            // SAFETY: as above; SSE is part of the x86_64 baseline.
            _ => unsafe {
                use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
                _mm_prefetch::<_MM_HINT_T0>(line.cast());
            },
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, access);
}

/// Whether this CPU has PREFETCHW (CPUID 8000_0001h, ECX bit 8).
#[cfg(target_arch = "x86_64")]
fn has_prefetchw() -> bool {
    static HAS_PREFETCHW: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        use std::arch::x86_64::__cpuid;
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86_64 CPU and only reads
        // identification registers; leaf 8000_0001h is asked only if it
        // exists.
        unsafe {
            __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0
        }
    });
    *HAS_PREFETCHW
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
