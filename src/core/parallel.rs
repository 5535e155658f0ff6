//! # Parallel bulk operations (feature `rayon`, on by default)
//!
//! Every method here splits the work over rayon's thread pool and runs the
//! batch pipeline of `batch.rs` on each piece, so each core keeps
//! a prefetch window's worth of misses in flight. The
//! filter needs no lock for this: the threads share it through `&self`
//! exactly as user threads would, with the same guarantees (Memory
//! ordering). A parallel build therefore ends with the same bits as a
//! sequential one (`tests/all/parallel.rs`).
//!
//! ## Scaling
//!
//! Out of cache, a second thread nearly doubles a bulk insert (the 100M
//! rows of `cargo run --release -p atomic-bloom-harness -- bench`). A
//! filter that fits in the cores' caches scales much less (its 1M rows):
//! every new key writes its line, and the line is usually in the other
//! core's cache, so the cores spend their time passing lines to each
//! other. Splitting the keys by the part of the array their block lies in
//! removes that: two threads each inserting, with
//! [`insert_hash_batch`](crate::AtomicBloom::insert_hash_batch), the hashes
//! below and above `1 << 63` scale as well as out of cache. With the `Blocked` and `Word`
//! layouts those are the lower and upper half of the array, because the
//! block or word is the hash scaled to the array (multiply-shift), which
//! keeps order (`tests/all/parallel.rs`: `hash_halves_are_array_halves`).

use crate::core::batch::{CellOp, CellStage, Insert, Pipeline, Stage};
use crate::core::builder::Builder;
use crate::core::cells::Cells;
use crate::core::filter::Filter;
use crate::error::{BuildError, IncompatibleError};
use crate::key::Key;
use crate::layout::with_sized_probe;
use rayon::prelude::*;
use std::hash::BuildHasher;
use std::ops::Range;

/// Keys per parallel task for slices: large enough to amortize a task,
/// small enough to balance two to a few dozen cores.
pub(crate) const KEYS_PER_TASK: usize = 1 << 14;
/// Words per parallel task for whole-array scans (512 KiB).
const WORDS_PER_TASK: usize = 1 << 16;

/// Runs `keys` through batch pipelines on all of rayon's threads, one
/// pipeline per split of the work, each built by `pipeline` and fed `hash`
/// of each key; returns how many keys the stage reported `true` for. Shared
/// by every kind's bulk calls that count (`par_insert`, `par_remove_unchecked`).
pub(crate) fn par_pipeline_count<I, T, const D: usize>(
    keys: I,
    hash: impl Fn(&I::Item) -> u64 + Sync + Send,
    pipeline: impl Fn() -> Pipeline<T, D> + Sync + Send,
) -> usize
where
    I: IntoParallelIterator,
    T: Stage + Send,
{
    // Boxed, because `fold` moves its state through every step and the
    // pipeline's window is `D` hashes.
    keys.into_par_iter()
        .fold(
            || (Box::new(pipeline()), 0usize),
            |(mut pipeline, hits), key| {
                let now = usize::from(pipeline.push(hash(&key)) == Some(true));
                (pipeline, hits + now)
            },
        )
        .map(|(pipeline, hits)| hits + pipeline.finish().filter(|&hit| hit).count())
        .sum()
}

/// `batch` over chunks of `KEYS_PER_TASK` keys on all of rayon's threads,
/// the results in the keys' order: every kind's `par_contains`.
pub(crate) fn par_chunked<I>(
    keys: I,
    batch: impl Fn(Vec<I::Item>) -> Vec<bool> + Sync + Send,
) -> Vec<bool>
where
    I: IntoParallelIterator,
    I::Iter: IndexedParallelIterator,
{
    keys.into_par_iter()
        .chunks(KEYS_PER_TASK)
        .flat_map_iter(batch)
        .collect()
}

#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<C: Cells, S: BuildHasher + Sync> Filter<C, S> {
    /// How many of `keys` `op` reports `true` for, on all of rayon's
    /// threads.
    pub(crate) fn par_count<I, O>(&self, keys: I, op: O) -> usize
    where
        I: IntoParallelIterator,
        I::Item: Key,
        O: CellOp<C> + Send + Sync,
    {
        with_sized_probe!(self.sizing(), P => par_pipeline_count(
            keys,
            |key| self.hash(key),
            || CellStage::<C, S, P, O>::new(self, op).pipeline(),
        ))
    }

    /// Inserts every key on all of rayon's threads; returns how many were
    /// reported new (see [`insert_batch`](Self::insert_batch)). Takes any
    /// parallel iterator: a slice's `par_iter()`, a range, `par_lines()`.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// let f = atomic_bloom::AtomicBloom::new(100_000, 0.01)?;
    /// let new = f.par_insert(0..50_000u64);
    /// assert!((49_900..=50_000).contains(&new)); // false positives are not new
    /// let words = vec!["a", "b", "a"];
    /// f.par_insert(words.par_iter());
    /// assert!(f.contains("a") && f.contains("b"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn par_insert<I>(&self, keys: I) -> usize
    where
        I: IntoParallelIterator,
        I::Item: Key,
    {
        self.par_count(keys, Insert)
    }

    /// [`insert_hash_batch`](Self::insert_hash_batch) on all of rayon's
    /// threads, for hashes computed beforehand (a build that counts its keys
    /// before it sizes the filter, a hash sent from elsewhere); returns how
    /// many were reported new.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(10_000, 0.01)?;
    /// let hashes: Vec<u64> = (0..1_000u64).map(|k| f.hash(&k)).collect();
    /// assert!((990..=1_000).contains(&f.par_insert_hash_batch(&hashes)));
    /// assert!(f.contains(&999u64));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn par_insert_hash_batch(&self, hashes: &[u64]) -> usize {
        with_sized_probe!(self.sizing(), P => par_pipeline_count(
            hashes.par_iter().copied(),
            |&hash| hash,
            || CellStage::<C, S, P, Insert>::new(self, Insert).pipeline(),
        ))
    }

    /// Queries every key on all of rayon's threads; returns
    /// [`contains`](Self::contains) for each, in order. Takes any indexed
    /// parallel iterator: a slice or `Vec` (or its `par_iter()`), a range of
    /// `u32` or narrower (rayon does not index `u64` ranges).
    ///
    /// ```
    /// use rayon::prelude::*;
    /// let f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// f.par_insert(0..100u32);
    /// assert_eq!(f.par_contains(&[5u32, 99, 5_000]), [true, true, false]);
    /// assert!(f.par_contains(0..100u32).into_iter().all(|hit| hit));
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
}

/// `0..words` cut into ranges of [`WORDS_PER_TASK`], one rayon task each:
/// how parallel scans and merges of a filter's words split them.
pub(crate) fn word_tasks(words: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    (0..words.div_ceil(WORDS_PER_TASK))
        .into_par_iter()
        .map(move |t| t * WORDS_PER_TASK..((t + 1) * WORDS_PER_TASK).min(words))
}

#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<C: Cells, S: Sync> Filter<C, S> {
    /// Word ranges for parallel scans.
    pub(crate) fn word_tasks(&self) -> impl IndexedParallelIterator<Item = Range<usize>> {
        word_tasks(self.cells().num_words())
    }

    /// [`clear`](Self::clear) on all of rayon's threads, with the same
    /// guarantees.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// f.insert("x");
    /// f.par_clear();
    /// assert!(f.is_empty());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn par_clear(&self) {
        self.word_tasks()
            .for_each(|range| self.cells().clear(range));
    }

    /// [`union`](Self::union) on all of rayon's threads, with the same
    /// guarantees.
    ///
    /// ```
    /// let a = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// let b = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// b.insert("from b");
    /// a.par_union(&b)?;
    /// assert!(a.contains("from b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn par_union(&self, other: &Self) -> Result<(), IncompatibleError> {
        self.par_combine(other, C::union)
    }

    /// Combines `other`'s words into this filter's with `op`, a range of
    /// words per task, once the filters are known to be compatible.
    pub(crate) fn par_combine(
        &self,
        other: &Self,
        op: impl Fn(&C, &C, Range<usize>) + Sync,
    ) -> Result<(), IncompatibleError> {
        self.check_compatible(other)?;
        self.word_tasks()
            .for_each(|range| op(self.cells(), other.cells(), range));
        Ok(())
    }
}

/// Inserts every key as [`par_insert`](Filter::par_insert) does.
///
/// ```
/// use rayon::prelude::*;
/// let mut f = atomic_bloom::AtomicBloom::new(10_000, 0.01)?;
/// f.par_extend((0..1000u64).into_par_iter());
/// assert!(f.contains(&999u64));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<T: Key + Send, C: Cells, S: BuildHasher + Sync> ParallelExtend<T> for Filter<C, S> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, keys: I) {
        self.par_insert(keys);
    }
}

/// A `Blocked` filter holding every key, sized for their number at
/// [`DEFAULT_FALSE_POSITIVE_RATE`](crate::DEFAULT_FALSE_POSITIVE_RATE),
/// built in parallel: [`Builder::build_from_par_iter`] with the defaults.
/// Panics only if the allocator refuses.
///
/// ```
/// use rayon::prelude::*;
/// use atomic_bloom::AtomicBloom;
/// let f: AtomicBloom = (0..100_000u64).into_par_iter().collect();
/// assert!(f.par_contains(&[0u64, 99_999]).iter().all(|&hit| hit));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<T: Key + Send, C: Cells> FromParallelIterator<T> for Filter<C> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(keys: I) -> Self {
        match Filter::builder().build_from_par_iter(keys) {
            Ok(filter) => filter,
            Err(e) => panic!("collecting into {}: {e}", C::NAME),
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<C: Cells, S: BuildHasher + Sync> Builder<C, S> {
    /// [`build_from_iter`](Builder::build_from_iter) on all of rayon's
    /// threads: hashes the keys in parallel, sizes the filter for their
    /// number, and inserts them in parallel.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// let f = atomic_bloom::AtomicBloom::builder()
    ///     .false_positive_rate(0.001)
    ///     .build_from_par_iter((0..100_000u64).into_par_iter())?;
    /// assert!(f.sizing().false_positive_rate(100_000) <= 0.001);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn build_from_par_iter<I>(self, keys: I) -> Result<Filter<C, S>, BuildError>
    where
        I: IntoParallelIterator,
        I::Item: Key,
    {
        let hasher = self.hasher_ref();
        let hashes: Vec<u64> = keys.into_par_iter().map(|k| k.hash_with(hasher)).collect();
        let filter = self.build_for(Some(hashes.len()))?;
        filter.par_insert_hash_batch(&hashes);
        Ok(filter)
    }
}
