//! # The atomics facade
//!
//! Every atomic this crate touches is named here and nowhere else. In a normal
//! build these are `std`'s atomics; under `RUSTFLAGS="--cfg loom"` they are
//! [loom]'s, which record each access so that the model checker in
//! `loom-tests/` can explore every interleaving of the operations that use
//! them. Code elsewhere in the crate imports `crate::sync::*` and so cannot
//! bypass the checker by accident.
//!
//! Two types are needed. [`AtomicU64`]: the filters are arrays of 64-bit
//! words whose bits only ever go from 0 to 1 (except by `clear` and
//! `intersect`), and every operation on them is a load, `fetch_or`,
//! `fetch_and`, `swap` or compare-and-swap of one word, all `Relaxed`; the
//! windowed filter's epoch and slot states, and the counts, are `AtomicU64`
//! too. [`AtomicPtr`]: the growable filter's chain of sub-filters
//! (`kinds/growable/chain.rs`) publishes each new sub-filter through one.
//! Why each ordering is enough is argued where it is used, in an
//! `// ORDERING:` comment (`grep -rn "ORDERING:" src` lists them all), and
//! collected in the `docs::memory_ordering` chapter.
//!
//! [loom]: https://docs.rs/loom

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Sets a word that no other thread can see (the caller holds `&mut`): a
/// plain write, no atomic instruction. Used to fill a freshly allocated
/// array from a file.
#[cfg(not(loom))]
#[inline]
pub(crate) fn set_unshared(word: &mut AtomicU64, value: u64) {
    *word.get_mut() = value;
}

/// Loom's atomics have `with_mut` where std's have `get_mut`.
#[cfg(loom)]
pub(crate) fn set_unshared(word: &mut AtomicU64, value: u64) {
    word.with_mut(|w| *w = value);
}

/// This thread's stripe of a [striped count](crate::storage::StripedCount):
/// threads are numbered in the order they first ask, so that the first
/// [`stripe_count`] threads each have a stripe to themselves. Under loom
/// every thread has stripe 0 (the models have one stripe: a stripe only
/// spreads a count's cache lines, it changes no result).
#[cfg(not(loom))]
#[inline]
pub(crate) fn thread_stripe() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    std::thread_local! {
        // ORDERING: Relaxed; a ticket whose only use is to differ from
        // other threads' tickets, which the atomic add alone ensures. No
        // model: it publishes nothing and orders nothing.
        static STRIPE: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    STRIPE.with(|stripe| *stripe)
}

/// Under loom, one stripe for every thread.
#[cfg(loom)]
pub(crate) fn thread_stripe() -> usize {
    0
}

/// Stripes a striped count spreads over: twice the threads the machine
/// runs at once, rounded up to a power of two (at most 64), so that a pool
/// of one thread per core and a few threads of the caller's own rarely
/// share one. Under loom, 1.
pub(crate) fn stripe_count() -> usize {
    #[cfg(loom)]
    return 1;
    #[cfg(not(loom))]
    {
        static STRIPES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *STRIPES.get_or_init(|| {
            let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
            (2 * threads).next_power_of_two().min(64)
        })
    }
}

/// Faults that the model checker's negative controls inject into the real
/// code paths, so that each control shows loom catching a bug in the
/// production function itself rather than in a separate broken copy.
/// Compiled only under `cfg(loom)`; a normal build has no switch and no
/// branch.
///
/// A fault is set per OS thread: loom runs all of a model's threads on the
/// thread that called it, so [`inject`](fault::inject) before the model
/// reaches every thread of the model and no other test.
#[cfg(loom)]
#[doc(hidden)]
pub mod fault {
    use std::cell::Cell;

    /// A deliberately wrong implementation of one kind of update.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Fault {
        /// Every `fetch_or` (inserts, `union`) done as a load and a
        /// separate write of `old | mask`.
        SplitFetchOr,
        /// Every `fetch_and` (`intersect`) done as a load and a separate
        /// write of `old & mask`.
        SplitFetchAnd,
        /// `clear` zeroing a word with `fetch_xor` of the value it loaded:
        /// two racing clears bring the bits back.
        ClearByXor,
        /// Every counter update done as a load and a separate write of the
        /// new word, instead of a compare-and-swap.
        SplitCounterUpdate,
        /// Decrements that do not spare counters at zero: a zero counter
        /// wraps, borrowing from its neighbour.
        WrappingDecrement,
        /// A counter update whose compare-and-swap loses to another
        /// thread's update of the word gives up instead of retrying: its
        /// counts in that word are never made.
        AbandonContendedUpdate,
        /// A growth that fails (a limit, the allocator) leaves its claim
        /// taken instead of reopening it: no later insert tries to grow
        /// from that sub-filter again, and new keys pile into it.
        KeepClaimOnFailure,
        /// A growable sub-filter's count of new keys taken with a load and
        /// a separate write instead of an atomic add: two racing inserts
        /// count one.
        SplitInsertCount,
        /// A new sub-filter of a growable filter published with a
        /// `Relaxed` store instead of `Release`: a thread that sees the
        /// pointer may read the sub-filter before its initialisation.
        RelaxedPublish,
        /// The claim to grow a growable filter taken with a load and a
        /// separate write instead of a compare-and-swap: two threads can
        /// both claim, and both allocate a sub-filter.
        SplitGrowthClaim,
        /// A new sub-filter of a growable filter published with a store
        /// instead of a compare-and-swap of the newest pointer: a second
        /// publisher replaces the first one's sub-filter, with its keys.
        PublishByStore,
        /// A windowed filter's rotation advances the epoch with a load and
        /// a store instead of a compare-and-swap: two racing rotations both
        /// win.
        WindowRotateByStore,
        /// A windowed filter's query asks only the current generation: a
        /// key inserted before a rotation is missed after it.
        WindowQueryCurrentOnly,
        /// A windowed filter's rotation retires the generation after the
        /// oldest: a live generation is cleared under a query.
        WindowRetireOffByOne,
        /// A windowed filter's insert returns after its write without
        /// checking that its generation is still current: a write into a
        /// generation retired before or while it wrote is cleared or left
        /// in the spare, and the key is in no live generation though the
        /// insert has returned.
        WindowSkipReinsert,
        /// A windowed filter's insert asks the generations older than the
        /// epoch it reads after its write instead of older than the one
        /// it wrote into: a rotation between the two makes its own bits
        /// those of an older generation, and racing inserts of a new key
        /// all answer `false`.
        WindowAskByNewEpoch,
        /// A windowed filter reads its epoch `Relaxed` instead of
        /// `Acquire`: a time window's check can see a new generation's
        /// number with its slot's previous start, and rotate a generation
        /// that has just begun.
        WindowEpochRelaxed,
    }

    std::thread_local! {
        static ACTIVE: Cell<Option<Fault>> = const { Cell::new(None) };
    }

    /// Makes the real code carry `fault` (or none) on this thread.
    pub fn inject(fault: Option<Fault>) {
        ACTIVE.with(|active| active.set(fault));
    }

    /// Whether `fault` is injected.
    pub(crate) fn active(fault: Fault) -> bool {
        ACTIVE.with(|active| active.get() == Some(fault))
    }
}
