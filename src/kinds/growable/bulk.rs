//! # The growable filter's bulk operations
//!
//! Batches run through the plain filter's prefetch pipeline (`core/batch.rs`).
//! When a key enters the window, its line in every sub-filter is asked
//! for, since a query of an absent key probes them all; the key is queried
//! or inserted `GROWABLE_PREFETCH_DISTANCE` keys later, by the per-key
//! call without its own prefetch, which reads the chain when the key's
//! turn comes. Results are therefore exactly those of the per-key calls in
//! the same order (`tests/all/growable.rs`: `batches_do_what_per_key_calls_would`),
//! and a batch racing growth keeps their guarantees (memory ordering, G11
//! and G12; `racing_batches_lose_no_key`). An insert that fails (a limit,
//! the allocator) stops its batch: the keys before it are in, it and the
//! keys after it are not (`a_batch_stops_at_its_first_failure`). With the
//! `rayon` feature, `par_*` forms split the keys over rayon's threads,
//! each running a pipeline.

use crate::core::batch::{Pipeline, Stage};
use crate::error::GrowthError;
use crate::key::Key;
use crate::kinds::growable::AtomicGrowableBloom;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Keys between a key's prefetch and its operation in the growable
/// filter's batches. A key asks for a line per sub-filter, so fewer keys
/// than the plain filter's `PREFETCH_DISTANCE` keep as many lines in
/// flight. Of 4, 8, 16 and 32, 8 read the most queries at 5 and at 14
/// sub-filters, hits and misses (`cargo run --release -p
/// atomic-bloom-harness -- bench --growable` compares the batch with a
/// loop of `contains`).
pub(super) const GROWABLE_PREFETCH_DISTANCE: usize = 8;

/// A growable filter's queries.
struct Queries<'a, S>(&'a AtomicGrowableBloom<S>);

impl<S> Stage for Queries<'_, S> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.0.prefetch_hash(hash);
    }

    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        self.0.contains_hash_prefetched(hash)
    }
}

/// A growable filter's inserts, up to the first that fails.
struct Inserts<'a, S> {
    filter: &'a AtomicGrowableBloom<S>,
    /// The first failed insert's error. Once it is set, the inserts still
    /// queued are skipped: a batch stops at its first failure.
    failed: &'a OnceLock<GrowthError>,
}

impl<S: BuildHasher + Clone> Stage for Inserts<'_, S> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.filter.prefetch_hash(hash);
    }

    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        if self.failed.get().is_some() {
            return false;
        }
        self.filter
            .insert_hash_prefetched(hash)
            .unwrap_or_else(|error| {
                // The first failure's error is kept: one racing it on another
                // of `par_insert`'s threads is dropped.
                let _ = self.failed.set(error);
                false
            })
    }
}

/// `Ok(new)`, or the error that stopped the batch.
fn outcome(new: usize, failed: OnceLock<GrowthError>) -> Result<usize, GrowthError> {
    failed.into_inner().map_or(Ok(new), Err)
}

impl<S: BuildHasher + Clone> AtomicGrowableBloom<S> {
    /// Inserts every key in order, prefetching ahead; returns how many
    /// were reported new. On an error the keys before the one that failed
    /// are inserted, that one and the rest are not (a few keys after it
    /// may have been read and hashed).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// assert_eq!(f.insert_batch(["a", "b", "a"])?, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_batch<I>(&self, keys: I) -> Result<usize, GrowthError>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.insert_hash_batch(keys.into_iter().map(|key| self.hash(&key)))
    }

    /// [`insert_batch`](Self::insert_batch) of keys given by their 64-bit
    /// hashes, as [`AtomicBloom::insert_hash_batch`](crate::AtomicBloom::insert_hash_batch).
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, GrowthError};
    /// let f = AtomicGrowableBloom::builder().capacity(2, 0.01).max_sub_filters(1).build()?;
    /// assert_eq!(f.insert_hash_batch([1, 2, 1]), Ok(2));
    /// let full = f.insert_hash_batch([3, 4]);
    /// assert_eq!(full, Err(GrowthError::SubFilterLimit { max: 1 }));
    /// assert_eq!(f.contains_hash_batch([3, 4]), [false, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_hash_batch(
        &self,
        hashes: impl IntoIterator<Item = u64>,
    ) -> Result<usize, GrowthError> {
        let failed = OnceLock::new();
        let inserts = Inserts {
            filter: self,
            failed: &failed,
        };
        // Stop reading keys at a failure rather than skip all the rest.
        let hashes = hashes.into_iter().take_while(|_| failed.get().is_none());
        let new = Pipeline::<_, GROWABLE_PREFETCH_DISTANCE>::new(inserts).count(hashes);
        outcome(new, failed)
    }
}

impl<S: BuildHasher> AtomicGrowableBloom<S> {
    /// Queries every key, prefetching ahead; returns
    /// [`contains`](Self::contains) for each, in order.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert_batch(0..1000u32)?;
    /// assert_eq!(f.contains_batch([3u32, 5000, 999]), [true, false, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<I>(&self, keys: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.contains_hash_batch(keys.into_iter().map(|key| self.hash(&key)))
    }
}

impl<S> AtomicGrowableBloom<S> {
    /// [`contains_batch`](Self::contains_batch) of keys given by their
    /// 64-bit hashes, as [`AtomicBloom::contains_hash_batch`](crate::AtomicBloom::contains_hash_batch).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
    /// f.insert_hash(0x1234_5678_9abc_def0)?;
    /// assert_eq!(f.contains_hash_batch([0x1234_5678_9abc_def0, 7]), [true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> Vec<bool> {
        Pipeline::<_, GROWABLE_PREFETCH_DISTANCE>::new(Queries(self)).collect(hashes)
    }
}

#[cfg(feature = "rayon")]
mod parallel {
    use super::{GROWABLE_PREFETCH_DISTANCE, Inserts, outcome};
    use crate::core::batch::Pipeline;
    use crate::core::parallel::{par_chunked, par_pipeline_count};
    use crate::error::GrowthError;
    use crate::key::Key;
    use crate::kinds::growable::AtomicGrowableBloom;
    use rayon::prelude::*;
    use std::hash::BuildHasher;
    use std::sync::OnceLock;

    #[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
    impl<S: BuildHasher + Clone + Send + Sync> AtomicGrowableBloom<S> {
        /// Inserts every key on all of rayon's threads; returns how many
        /// were reported new. On an error, some keys may not have been
        /// inserted (which ones depends on the threads' timing); the
        /// filter still holds every key some call reported inserted.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicGrowableBloom::new(1_000, 0.01)?;
        /// assert!(f.par_insert(0..100_000u64)? > 99_000);
        /// assert!(f.contains(&77_777u64));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_insert<I>(&self, keys: I) -> Result<usize, GrowthError>
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            let failed = OnceLock::new();
            let keys = keys
                .into_par_iter()
                .take_any_while(|_| failed.get().is_none());
            let new = par_pipeline_count(
                keys,
                |key| self.hash(key),
                || {
                    Pipeline::<_, GROWABLE_PREFETCH_DISTANCE>::new(Inserts {
                        filter: self,
                        failed: &failed,
                    })
                },
            );
            outcome(new, failed)
        }

        /// Queries every key on all of rayon's threads; returns
        /// [`contains`](Self::contains) for each, in order.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicGrowableBloom::new(1_000, 0.01)?;
        /// f.par_insert(0..10_000u32)?;
        /// assert_eq!(f.par_contains(&[5u32, 9_999, 20_000]), [true, true, false]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn par_contains<I>(&self, keys: I) -> Vec<bool>
        where
            I: IntoParallelIterator,
            I::Iter: IndexedParallelIterator,
            I::Item: Key,
        {
            par_chunked(keys, |chunk| self.contains_batch(chunk))
        }
    }
}
