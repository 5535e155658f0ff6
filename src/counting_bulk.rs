//! # The counting filter's bulk operations
//!
//! Batches of inserts, removes and queries run through the plain filter's
//! prefetch pipeline (`batch.rs`): a key's counter lines are requested
//! when it enters the window and its counters updated
//! `COUNTING_PREFETCH_DISTANCE` keys later. Results are exactly those of
//! the per-key calls in the same order. With the `rayon` feature, `par_*`
//! forms split the keys over rayon's threads, each running a pipeline,
//! with the same guarantees as threads calling the per-key methods
//! (memory ordering, C1-C4).

use crate::batch::{Pipeline, Stage};
use crate::counting::AtomicCountingBloom;
use crate::hints::Access;
use crate::key::Key;
use std::hash::BuildHasher;

/// Keys between a key's prefetch and its operation in the counting
/// filter's batches, measured on its own rather than taken from the plain
/// filter's `PREFETCH_DISTANCE`: a counting key takes longer, so fewer
/// keys give its lines the same lead; twice as many ran no faster
/// (`cargo run --release -p atomic-bloom-harness -- bench --counting`).
const COUNTING_PREFETCH_DISTANCE: usize = 16;

/// What a pipeline does to each key of a counting filter.
#[derive(Clone, Copy)]
enum CountingOp {
    Insert,
    Remove,
    RemoveChecked,
    Contains,
}

/// A counting filter's stage of the batch pipeline.
struct CountingStage<'a, S> {
    filter: &'a AtomicCountingBloom<S>,
    op: CountingOp,
    /// How `op` asks for its lines, asked once per stage.
    access: Access,
}

impl<'a, S> CountingStage<'a, S> {
    fn new(filter: &'a AtomicCountingBloom<S>, op: CountingOp) -> Self {
        // Updates need the lines exclusively, queries a shared copy (as
        // the plain filter's `Op::access` explains).
        let access = match op {
            CountingOp::Insert | CountingOp::Remove | CountingOp::RemoveChecked => Access::write(),
            CountingOp::Contains => Access::READ,
        };
        CountingStage { filter, op, access }
    }
}

impl<S: BuildHasher> Stage for CountingStage<'_, S> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.filter.prefetch_hash(hash, self.access);
    }

    /// The per-key update asks for its lines again, which the pipeline has
    /// already asked for. Skipping that was measured no faster: three
    /// alternating runs each of `cargo bench --bench throughput --
    /// counting/100M/u64/insert-then-remove/batch-1t` gave 4.62, 5.16 and
    /// 5.50 Melem/s with it, 4.74, 4.77 and 4.89 without.
    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        match self.op {
            CountingOp::Insert => self.filter.insert_hash(hash),
            CountingOp::Remove => self.filter.remove_hash(hash),
            CountingOp::RemoveChecked => self.filter.remove_checked_hash(hash),
            CountingOp::Contains => self.filter.contains_hash(hash),
        }
    }
}

impl<S: BuildHasher> AtomicCountingBloom<S> {
    fn pipeline(
        &self,
        op: CountingOp,
    ) -> Pipeline<CountingStage<'_, S>, COUNTING_PREFETCH_DISTANCE> {
        Pipeline::new(CountingStage::new(self, op))
    }

    /// Each key's hash, as the key arrives.
    fn hashes<I>(&self, keys: I) -> impl Iterator<Item = u64>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        keys.into_iter().map(|key| key.hash_with(self.hasher()))
    }

    /// Inserts every key, prefetching ahead; returns how many of the
    /// per-key [`insert`](Self::insert) calls it stands for would have
    /// returned `true` (made their key present).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// assert_eq!(f.insert_batch(["a", "b", "a"]), 2); // the repeat counts, but is not new
    /// assert_eq!(f.count_of("a"), 2);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.insert_hash_batch(self.hashes(keys))
    }

    /// Removes one insert of every key, prefetching ahead; returns how many
    /// of the per-key [`remove`](Self::remove) calls it stands for would
    /// have returned `true` (found every counter above zero). As with
    /// `remove`, remove only keys that were inserted.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..100u32);
    /// assert_eq!(f.remove_batch(0..50u32), 50);
    /// assert_eq!(f.contains_batch([10u32, 60]), [false, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.remove_hash_batch(self.hashes(keys))
    }

    /// [`remove_checked`](Self::remove_checked) of every key, in order,
    /// prefetching ahead; returns how many keys were present and removed.
    /// A key repeated in the batch is checked again before each remove, so
    /// it is never removed more often than it is present.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert("a");
    /// assert_eq!(f.remove_checked_batch(["a", "a", "never inserted"]), 1);
    /// assert!(!f.contains("a"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_checked_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.remove_checked_hash_batch(self.hashes(keys))
    }

    /// Queries every key, prefetching ahead; returns
    /// [`contains`](Self::contains) for each, in order.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..10u32);
    /// assert_eq!(f.contains_batch([3u32, 1_000, 9]), [true, false, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains_batch<I>(&self, keys: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.contains_hash_batch(self.hashes(keys))
    }

    /// [`insert_batch`](Self::insert_batch) for callers that hold 64-bit
    /// hashes, as [`insert_hash`](Self::insert_hash) is to `insert`.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// let a = f.hash("a");
    /// assert_eq!(f.insert_hash_batch([a, a]), 1);
    /// assert_eq!(f.count_of("a"), 2);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.pipeline(CountingOp::Insert).count(hashes)
    }

    /// [`remove_batch`](Self::remove_batch) by hash.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// let a = f.hash("a");
    /// f.insert_hash_batch([a, a]);
    /// assert_eq!(f.remove_hash_batch([a]), 1);
    /// assert_eq!(f.count_of("a"), 1);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.pipeline(CountingOp::Remove).count(hashes)
    }

    /// [`remove_checked_batch`](Self::remove_checked_batch) by hash.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// let a = f.hash("a");
    /// f.insert_hash(a);
    /// assert_eq!(f.remove_checked_hash_batch([a, a]), 1);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_checked_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.pipeline(CountingOp::RemoveChecked).count(hashes)
    }

    /// [`contains_batch`](Self::contains_batch) by hash.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert("a");
    /// let hashes = ["a", "b"].map(|k| f.hash(k));
    /// assert_eq!(f.contains_hash_batch(hashes), [true, false]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> Vec<bool> {
        self.pipeline(CountingOp::Contains).collect(hashes)
    }
}

/// Hashes split into tasks for threads, so that every occurrence of a key
/// is in one task, in input order: the checked removes of one call never
/// race each other on a key (memory ordering, C4).
#[cfg(feature = "rayon")]
pub(crate) struct KeyTasks {
    /// The hashes, grouped by task.
    hashes: Vec<u64>,
    /// Where each task's hashes start in `hashes`, and where the last ends.
    bounds: Vec<usize>,
}

#[cfg(feature = "rayon")]
impl KeyTasks {
    /// Splits `hashes` into a few tasks per thread by the hash's top bits.
    /// A stable sort by task keeps each task's hashes in input order and
    /// puts every occurrence of a hash in one task.
    pub(crate) fn split(mut hashes: Vec<u64>, threads: usize) -> KeyTasks {
        use rayon::slice::ParallelSliceMut;
        let tasks = (4 * threads.max(1)).next_power_of_two() as u64;
        let task_of = |hash: u64| ((u128::from(hash) * u128::from(tasks)) >> 64) as u64;
        hashes.par_sort_by_key(|&hash| task_of(hash));
        let bounds = (0..=tasks)
            .map(|task| hashes.partition_point(|&h| task_of(h) < task))
            .collect();
        KeyTasks { hashes, bounds }
    }

    /// Each task's hashes, for rayon's threads.
    pub(crate) fn par_iter(&self) -> impl rayon::iter::IndexedParallelIterator<Item = &[u64]> {
        use rayon::iter::ParallelIterator;
        use rayon::slice::ParallelSlice;
        self.bounds.par_windows(2).map(|w| &self.hashes[w[0]..w[1]])
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::{CountingOp, KeyTasks};
    use crate::counting::AtomicCountingBloom;
    use crate::error::IncompatibleError;
    use crate::key::Key;
    use crate::parallel::{par_chunked, par_pipeline_count, word_tasks};
    use rayon::prelude::*;
    use std::hash::BuildHasher;

    #[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
    impl<S: BuildHasher + Sync> AtomicCountingBloom<S> {
        /// Runs `op` over `keys` on all of rayon's threads; returns how
        /// many keys it reported `true` for.
        fn par_count<I>(&self, keys: I, op: CountingOp) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            par_pipeline_count(
                keys,
                |key| key.hash_with(self.hasher()),
                || self.pipeline(op),
            )
        }

        /// [`insert_batch`](Self::insert_batch) on all of rayon's threads.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(100_000, 0.01)?;
        /// let new = f.par_insert(0..50_000u64);
        /// assert!((49_900..=50_000).contains(&new)); // false positives are not new
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_insert<I>(&self, keys: I) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            self.par_count(keys, CountingOp::Insert)
        }

        /// [`remove_batch`](Self::remove_batch) on all of rayon's threads.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(100_000, 0.01)?;
        /// f.par_insert(0..50_000u64);
        /// assert_eq!(f.par_remove(0..25_000u64), 25_000);
        /// assert!(f.contains(&30_000u64));
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_remove<I>(&self, keys: I) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            self.par_count(keys, CountingOp::Remove)
        }

        /// [`remove_checked_batch`](Self::remove_checked_batch) on all of
        /// rayon's threads; returns how many keys were present and removed.
        ///
        /// The keys are hashed in parallel and split by hash, so that every
        /// occurrence of a key goes to the same task, which checks and
        /// removes them one after another in input order: a key listed
        /// twice but inserted once is removed once, however the work is
        /// split (two `remove_checked` calls racing on other threads could
        /// both pass the check). Buffers the hashes, 8 bytes per key.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(100_000, 0.01)?;
        /// f.par_insert(0..10_000u64);
        /// let twice: Vec<u64> = (0..10_000).chain(0..10_000).collect();
        /// assert_eq!(f.par_remove_checked(&twice), 10_000);
        /// assert_eq!(f.estimated_len(), Some(0));
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_remove_checked<I>(&self, keys: I) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            let hashes: Vec<u64> = keys
                .into_par_iter()
                .map(|key| key.hash_with(self.hasher()))
                .collect();
            let tasks = KeyTasks::split(hashes, rayon::current_num_threads());
            tasks
                .par_iter()
                .map(|task| {
                    self.pipeline(CountingOp::RemoveChecked)
                        .count(task.iter().copied())
                })
                .sum()
        }

        /// [`contains_batch`](Self::contains_batch) on all of rayon's
        /// threads, in the keys' order. Takes any indexed parallel iterator.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
        /// f.par_insert(0..100u32);
        /// assert_eq!(f.par_contains(&[5u32, 99, 5_000]), [true, true, false]);
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_contains<I>(&self, keys: I) -> Vec<bool>
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            I::Item: Key,
        {
            par_chunked(keys, |chunk| self.contains_batch(chunk))
        }

        /// [`merge`](Self::merge) on all of rayon's threads, with the same
        /// guarantees.
        ///
        /// ```
        /// let a = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
        /// let b = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
        /// a.insert("x");
        /// b.insert("x");
        /// a.par_merge(&b)?;
        /// assert_eq!(a.count_of("x"), 2);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_merge(&self, other: &Self) -> Result<(), IncompatibleError> {
            self.check_compatible(other)?;
            let (into, from) = (self.counter_array(), other.counter_array());
            word_tasks(into.num_words()).for_each(|range| into.merge(from, range));
            Ok(())
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::COUNTING_PREFETCH_DISTANCE;
    use super::{CountingOp, CountingStage};
    use crate::batch::Stage;
    use crate::counting::AtomicCountingBloom;
    use crate::hints::recorded_prefetches;
    use crate::layout::Layout;
    use std::collections::BTreeSet;
    use std::hash::BuildHasher;

    /// For every layout, the lines a counting batch prefetches for a key
    /// are exactly the lines inserting that key into an empty filter
    /// writes: a prefetch of the wrong line changes only timing, so nothing
    /// else would notice.
    #[test]
    fn batches_prefetch_the_lines_inserts_touch() {
        for layout in Layout::ALL {
            let filter = AtomicCountingBloom::builder()
                .capacity(20_000, 0.001)
                .layout(layout)
                .build()
                .unwrap();
            let counters = filter.counter_array();
            for key in 0..300u64 {
                let hash = filter.hasher().hash_one(key);
                let stage = CountingStage::new(&filter, CountingOp::Insert);
                let prefetched: BTreeSet<usize> = recorded_prefetches(|| stage.prefetch(hash))
                    .into_iter()
                    .map(|address| address / 64)
                    .collect();
                filter.clear();
                let before: Vec<u64> = counters.words().collect();
                assert!(filter.insert_hash(hash));
                let written: BTreeSet<usize> = counters
                    .words()
                    .zip(&before)
                    .enumerate()
                    .filter(|(_, (now, was))| now != *was)
                    .map(|(i, _)| counters.line_address(i))
                    .collect();
                assert_eq!(prefetched, written, "{layout}: key {key}");
            }
        }
    }

    /// Every batch length, shorter and longer than the prefetch window, and
    /// every layout, gets exactly the results and the counters per-key
    /// calls would.
    #[test]
    fn batches_do_what_per_key_calls_would() {
        for layout in Layout::ALL {
            for len in [
                0,
                1,
                COUNTING_PREFETCH_DISTANCE as u64,
                2 * COUNTING_PREFETCH_DISTANCE as u64 + 3,
            ] {
                let build = || {
                    AtomicCountingBloom::builder()
                        .capacity(1000, 0.01)
                        .layout(layout)
                        .build()
                        .unwrap()
                };
                let (batched, single) = (build(), build());
                // Each key twice: the repeat counts, but is not new.
                let keys: Vec<u64> = (0..len).chain(0..len).collect();
                let new = keys.iter().filter(|k| single.insert(k)).count();
                assert_eq!(batched.insert_batch(&keys), new, "{layout} len {len}");
                let halves: Vec<u64> = (0..len / 2).collect();
                let removed = halves.iter().filter(|k| single.remove(k)).count();
                assert_eq!(batched.remove_batch(&halves), removed, "{layout} len {len}");
                let per_key: Vec<bool> = keys.iter().map(|k| single.contains(k)).collect();
                assert_eq!(batched.contains_batch(&keys), per_key, "{layout} len {len}");
                assert_eq!(batched, single, "{layout} len {len}");
            }
        }
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_forms_end_where_sequential_ones_do() {
        for layout in Layout::ALL {
            let build = || {
                AtomicCountingBloom::builder()
                    .capacity(50_000, 0.01)
                    .layout(layout)
                    .build()
                    .unwrap()
            };
            let (parallel, sequential) = (build(), build());
            let keys: Vec<u64> = (0..50_000).chain(0..5_000).collect();
            parallel.par_insert(&keys);
            sequential.insert_batch(&keys);
            assert_eq!(
                parallel.par_remove(0..20_000u64),
                sequential.remove_batch(0..20_000u64),
                "{layout}"
            );
            assert_eq!(parallel, sequential, "{layout}");
            assert_eq!(
                parallel.par_contains(&keys),
                sequential.contains_batch(&keys),
                "{layout}"
            );
            assert!((20_000..50_000u64).all(|k| parallel.contains(&k)));
        }
    }

    /// The split `par_remove_checked` runs its tasks by: every occurrence
    /// of a key in one task, in input order, whatever the thread count;
    /// every hash in exactly one task. Without it, two threads could check
    /// and remove one key's last copy at once (C4).
    #[cfg(feature = "rayon")]
    #[test]
    fn checked_remove_tasks_hold_every_occurrence_of_a_key_in_input_order() {
        use super::KeyTasks;
        use rayon::iter::ParallelIterator;
        use std::collections::HashMap;
        // Hashes spread over every task, each listed 1 to 4 times, the
        // repeats far apart in the input.
        let distinct: Vec<u64> = (0..5_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let input: Vec<u64> = (0..4)
            .flat_map(|round| distinct.iter().copied().skip(round * 1_000))
            .collect();
        for threads in [1, 2, 3, 8, 64] {
            let tasks = KeyTasks::split(input.clone(), threads);
            let tasks: Vec<&[u64]> = tasks.par_iter().collect();
            assert!(tasks.len() >= 4 * threads, "{threads} threads");
            let mut task_of = HashMap::new();
            let mut all: Vec<u64> = Vec::new();
            for (t, task) in tasks.iter().enumerate() {
                for &h in *task {
                    let first = *task_of.entry(h).or_insert(t);
                    assert_eq!(first, t, "hash {h:x} in tasks {first} and {t}");
                }
                // Input order within the task: the task's hashes appear in
                // the input in this order.
                let mut in_input = input.iter().filter(|h| task.contains(h));
                assert!(task.iter().all(|h| in_input.next() == Some(h)));
                all.extend_from_slice(task);
            }
            all.sort_unstable();
            let mut expected = input.clone();
            expected.sort_unstable();
            assert_eq!(all, expected, "{threads} threads: a hash lost or repeated");
        }
    }

    /// Checked removes, batched or parallel, remove a key as often as it is
    /// present and no more, however often it is listed: the counters end
    /// as the sequential per-key calls leave them.
    #[cfg(feature = "rayon")]
    #[test]
    fn checked_removes_never_remove_a_key_more_often_than_it_is_present() {
        for layout in Layout::ALL {
            let build = || {
                let f = AtomicCountingBloom::builder()
                    .capacity(20_000, 0.01)
                    .layout(layout)
                    .build()
                    .unwrap();
                f.insert_batch((0..20_000u64).chain(0..1_000));
                f
            };
            let (batched, parallel, single) = (build(), build(), build());
            // Keys 0..1000 are in twice and listed twice, 1000..3000 in
            // once and listed once: each is present when checked, in any
            // order of the removes.
            let keys: Vec<u64> = (0..1_000).chain(0..3_000).collect();
            let removed = keys.iter().filter(|k| single.remove_checked(k)).count();
            assert_eq!(removed, 4_000);
            assert_eq!(parallel.par_remove_checked(&keys), removed, "{layout}");
            assert_eq!(parallel, single, "{layout}");
            // In input order, the batch is the per-key calls exactly, with
            // keys listed more often than inserted and keys never inserted
            // (whose checks pass when they are false positives).
            let keys: Vec<u64> = (0..1_000)
                .chain(0..3_000)
                .chain(0..1_000)
                .chain(30_000..31_000)
                .collect();
            let single = build();
            let removed = keys.iter().filter(|k| single.remove_checked(k)).count();
            assert_eq!(batched.remove_checked_batch(&keys), removed, "{layout}");
            assert_eq!(batched, single, "{layout}");
            // In a sparse filter, where false positives are all but
            // impossible, keys listed three times but inserted once are
            // removed once each, however the parallel work is split.
            let sparse = AtomicCountingBloom::builder()
                .capacity(1_000_000, 0.001)
                .layout(layout)
                .build()
                .unwrap();
            sparse.insert_batch(0..1_000u64);
            let thrice: Vec<u64> = (0..3_000).map(|i| i % 1_000).collect();
            assert_eq!(sparse.par_remove_checked(&thrice), 1_000, "{layout}");
            assert_eq!(sparse.saturated_counters(), 0);
            assert_eq!(sparse.estimated_len(), Some(0), "{layout}");
            assert!(
                (3_000..20_000u64).all(|k| parallel.contains(&k)),
                "{layout}"
            );
        }
    }
}
