//! # A plain filter and its count of new keys
//!
//! Both composite kinds are made of plain filters that each count the
//! inserts that found their key new: a growable filter's sub-filter grows
//! when its count reaches its capacity, and a windowed filter's generation
//! rotates out when it has taken the keys it was sized for. [`Counted`] is
//! that pair, written once: the filter, and a count of the kind's
//! choosing ([`NewKeys`]).
//!
//! The two counts differ for a reason. The growable filter counts exactly,
//! one atomic add per new key ([`ExactCount`]): its count is read before
//! every insert to decide whether to grow, and bounds the sub-filter's
//! rate (G10, G15 of `docs::memory_ordering`). The ring stripes its count
//! over threads ([`StripedCount`]): every insert of a new key goes to the
//! one current generation, whose single counter would be a line that every
//! inserting core writes, and a rotation tolerates a count that lags by
//! less than a 1024th of a generation.

use crate::error::BuildError;
use crate::kinds::bloom::AtomicBloom;
use crate::storage::StripedCount;
#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crate::sync::{AtomicU64, Ordering::Relaxed};

/// A count of new keys, as a composite kind keeps it.
pub(crate) trait NewKeys {
    /// A count at `value` that waits for `target` keys (a striped count
    /// picks its step from it).
    fn starting_at(value: u64, target: u64) -> Self;
    /// Adds `n`; the count before and after if the total this count
    /// decides by moved (on every add, for an exact count).
    fn add(&self, n: u64) -> Option<(u64, u64)>;
    /// The exact count.
    fn sum(&self) -> u64;
    /// Restarts the count at `value`.
    fn set(&self, value: u64);
}

/// A count of one atomic word: exact, each add one `fetch_add`.
pub(crate) struct ExactCount(AtomicU64);

impl NewKeys for ExactCount {
    fn starting_at(value: u64, _: u64) -> Self {
        ExactCount(AtomicU64::new(value))
    }

    #[inline]
    fn add(&self, n: u64) -> Option<(u64, u64)> {
        #[cfg(loom)]
        if fault::active(Fault::SplitInsertCount) {
            // The negative control: a load and a separate write.
            // ORDERING: irrelevant; `swap` rather than `store`, as in the
            // other split faults (loom 0.7's modelling of a store racing a
            // read-modify-write).
            let count = self.0.load(Relaxed);
            self.0.swap(count + n, Relaxed);
            return Some((count, count + n));
        }
        // ORDERING (G10, G15): Relaxed; the atomicity of the add keeps
        // every count (two racing inserts add two), and the count only
        // decides when to grow. `growable.rs:
        // threads_crossing_the_threshold_add_one_sub_filter`,
        // `racing_counted_inserts_both_count`; negative control
        // `split_insert_count_loses_a_count`.
        let before = self.0.fetch_add(n, Relaxed);
        Some((before, before + n))
    }

    fn sum(&self) -> u64 {
        // ORDERING (G10): Relaxed; a count, publishing nothing (G8's
        // argument: it lies between the counts before and after racing
        // inserts). `growable.rs:
        // threads_crossing_the_threshold_add_one_sub_filter`.
        self.0.load(Relaxed)
    }

    fn set(&self, value: u64) {
        // ORDERING: Relaxed; whoever sets a count publishes it with the
        // release that follows (the filter's construction, or `clear`'s
        // `&mut self`). `swap` as `clear` zeroes words (G5).
        self.0.swap(value, Relaxed);
    }
}

impl NewKeys for StripedCount {
    fn starting_at(value: u64, target: u64) -> Self {
        StripedCount::new(value, StripedCount::step_for(target))
    }

    #[inline]
    fn add(&self, n: u64) -> Option<(u64, u64)> {
        StripedCount::add(self, n)
    }

    fn sum(&self) -> u64 {
        StripedCount::sum(self)
    }

    fn set(&self, value: u64) {
        StripedCount::set(self, value);
    }
}

/// A plain filter and the count of inserts that found their key new in it.
pub(crate) struct Counted<S, N> {
    filter: AtomicBloom<S>,
    new_keys: N,
}

impl<S, N: NewKeys> Counted<S, N> {
    /// `filter`, whose inserts counted `new_keys` so far, waiting for
    /// `target` keys.
    pub(crate) fn new(filter: AtomicBloom<S>, new_keys: u64, target: u64) -> Self {
        Counted {
            filter,
            new_keys: N::starting_at(new_keys, target),
        }
    }

    /// The filter.
    #[inline]
    pub(crate) fn filter(&self) -> &AtomicBloom<S> {
        &self.filter
    }

    /// Keys its inserts counted new: the exact count.
    pub(crate) fn new_keys(&self) -> u64 {
        self.new_keys.sum()
    }

    /// Counts `n` more new keys; the count before and after, if the total
    /// moved ([`NewKeys::add`]).
    #[inline]
    pub(crate) fn count_new(&self, n: u64) -> Option<(u64, u64)> {
        self.new_keys.add(n)
    }

    /// Inserts the key of hash `hash` into the filter, counting it if it
    /// was new there; whether it was.
    #[inline]
    pub(crate) fn insert_hash(&self, hash: u64) -> bool {
        // `AtomicBloom::insert_hash` prefetches the line again, after a
        // composite asked for every filter's: an insert that skipped it ran
        // no faster, so there is one insert path.
        let new = self.filter.insert_hash(hash);
        if new {
            self.count_new(1);
        }
        new
    }

    /// Removes every key and restarts the count at 0 (the ring's clear of
    /// a retired generation; the growable filter's `clear`).
    pub(crate) fn clear(&self) {
        self.filter.clear();
        self.new_keys.set(0);
    }

    /// A copy of the filter and the count, waiting for `target`.
    pub(crate) fn try_clone(&self, target: u64) -> Result<Self, BuildError>
    where
        S: Clone,
    {
        Ok(Counted::new(
            self.filter.try_clone()?,
            self.new_keys(),
            target,
        ))
    }
}
