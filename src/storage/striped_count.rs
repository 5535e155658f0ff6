//! # A count that many threads add to without sharing a cache line
//!
//! A windowed filter's generation counts the new keys written into it, to
//! know when it is full, and every insert of a new key adds one. One
//! shared counter makes each of those inserts a read-modify-write of a
//! line that every inserting core writes: the line moves between cores on
//! each add, and two threads insert slower than one (`cargo run --release
//! -p atomic-bloom-harness -- bench --window`, BENCHMARKS.md). So the
//! count is striped, as Java's `LongAdder` is
//! (<https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/util/concurrent/atomic/LongAdder.html>):
//! each thread adds to a stripe of its own (`sync::thread_stripe`), on a
//! cache line of its own, which stays in its core's cache.
//!
//! Deciding "full" needs the total, and summing every stripe on each add
//! would read every core's line. A stripe therefore passes its count on
//! to a shared total once every `step` keys, in one add of `step`: the
//! total is touched once per `step` keys, and is behind the true count by
//! less than `step` keys per stripe. The owner picks `step` so that this
//! lag is a small part of what it waits for ([`StripedCount::step_for`]);
//! a step of 1 keeps the total exact. [`sum`](StripedCount::sum) reads
//! every stripe, for the callers that need the exact count and can afford
//! it (estimates, saving).

use crate::sync::{self, AtomicU64, Ordering::Relaxed};
use crossbeam_utils::CachePadded;

/// A count added to from many threads, each thread on a stripe of its own.
pub(crate) struct StripedCount {
    stripes: Box<[CachePadded<AtomicU64>]>,
    /// What the stripes passed on: whole steps, so at most `step - 1` per
    /// stripe below the true count.
    total: CachePadded<AtomicU64>,
    step: u64,
}

impl StripedCount {
    /// A count at `value`, passing counts on every `step` (at least 1).
    pub(crate) fn new(value: u64, step: u64) -> StripedCount {
        let step = step.max(1);
        let stripes: Box<[CachePadded<AtomicU64>]> = (0..sync::stripe_count())
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect();
        let count = StripedCount {
            stripes,
            total: CachePadded::new(AtomicU64::new(0)),
            step,
        };
        count.set(value);
        count
    }

    /// The step for a count that waits for `target`: at most `target`'s
    /// 1/1024 of lag over all stripes, and no more than 64 keys a stripe
    /// (past that, adding to the total is rare enough to cost nothing).
    pub(crate) fn step_for(target: u64) -> u64 {
        (target / (1024 * sync::stripe_count() as u64)).clamp(1, 64)
    }

    /// The most the total lags the true count.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn max_lag(&self) -> u64 {
        (self.step - 1) * self.stripes.len() as u64
    }

    /// Adds `n` on this thread's stripe. Returns the total before and
    /// after this add if this add passed steps on to it, `None` if the
    /// total did not change.
    #[inline]
    pub(crate) fn add(&self, n: u64) -> Option<(u64, u64)> {
        // A mask, not a division: the stripes are a power of two.
        let stripe = &self.stripes[sync::thread_stripe() & (self.stripes.len() - 1)];
        // ORDERING: Relaxed, both adds: a count deciding when to rotate,
        // publishing nothing (as the growable filter's count, G8 of
        // `docs::memory_ordering`); the adds' atomicity loses no count.
        let old = stripe.fetch_add(n, Relaxed);
        let passed = (old + n) / self.step - old / self.step;
        if passed == 0 {
            return None;
        }
        let steps = passed * self.step;
        // ORDERING: Relaxed, as above.
        let before = self.total.fetch_add(steps, Relaxed);
        Some((before, before + steps))
    }

    /// The total as passed on (behind by at most `max_lag`).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn total(&self) -> u64 {
        // ORDERING: Relaxed, as in `add`.
        self.total.load(Relaxed)
    }

    /// The exact count: every stripe read.
    pub(crate) fn sum(&self) -> u64 {
        // ORDERING: Relaxed, as in `add`.
        self.stripes.iter().map(|s| s.load(Relaxed)).sum()
    }

    /// Sets the count to `value`, as if added on one stripe: for a clear
    /// (0) and a restore. Adds racing it may land before or after.
    pub(crate) fn set(&self, value: u64) {
        for (i, stripe) in self.stripes.iter().enumerate() {
            // ORDERING: Relaxed; whoever sets a count publishes it with
            // the release that follows (a rotation's compare-and-swap of the
            // epoch, or the filter's construction).
            stripe.store(if i == 0 { value } else { 0 }, Relaxed);
        }
        // ORDERING: Relaxed, as above.
        self.total.store(value / self.step * self.step, Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// The total moves in whole steps and never runs ahead of the count;
    /// the sum is exact.
    #[test]
    fn the_total_lags_the_sum_by_less_than_a_step_a_stripe() {
        let count = StripedCount::new(0, 8);
        let mut passed = Vec::new();
        for _ in 0..20 {
            passed.extend(count.add(1));
        }
        assert_eq!(passed, [(0, 8), (8, 16)]);
        assert_eq!((count.sum(), count.total()), (20, 16));
        assert!(count.sum() - count.total() <= count.max_lag());
    }

    /// Adds from many threads are all counted, and their stripes pass on
    /// all but less than a step each.
    #[test]
    fn adds_from_many_threads_are_all_counted() {
        let count = StripedCount::new(0, 16);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..10_000 {
                        count.add(1);
                    }
                });
            }
        });
        assert_eq!(count.sum(), 80_000);
        assert!(count.sum() - count.total() <= count.max_lag());
    }

    /// A set count restarts from its value, as if one stripe had added it.
    #[test]
    fn set_restarts_the_count() {
        let count = StripedCount::new(0, 4);
        (0..10).for_each(|_| {
            count.add(1);
        });
        count.set(0);
        assert_eq!((count.sum(), count.total()), (0, 0));
        let restored = StripedCount::new(10, 4);
        assert_eq!((restored.sum(), restored.total()), (10, 8));
    }

    /// The step a target gets keeps the total within 1/1024 of it, the lag
    /// the windowed filter's docs state for a window of keys.
    #[test]
    fn the_lag_is_at_most_a_1024th_of_the_target() {
        for target in [1, 100, 10_000, 333_334, 1 << 20, 1 << 40] {
            let count = StripedCount::new(0, StripedCount::step_for(target));
            assert!(count.max_lag() <= target / 1024, "{target}");
        }
    }

    /// A step of 1 keeps the total exact; a step is at least 1.
    #[test]
    fn a_step_of_one_is_exact() {
        let count = StripedCount::new(0, 0);
        assert_eq!(count.add(3), Some((0, 3)));
        assert_eq!(count.max_lag(), 0);
        assert_eq!(StripedCount::step_for(10), 1);
        assert_eq!(StripedCount::step_for(u64::MAX), 64);
    }
}
