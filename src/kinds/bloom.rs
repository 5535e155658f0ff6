//! # The plain filter: a bit per position
//!
//! [`AtomicBloom`] is the [`Filter`] whose cells are bits, in a
//! [`BitArray`]: what a key's probe does to them (`Storage` below) and what
//! only bits can do (intersection, the count and words of set bits).

use crate::core::cells::Storage;
use crate::core::filter::Filter;
use crate::error::{BuildError, IncompatibleError};
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::layout::Probe;
use crate::sizing::Sizing;
use crate::storage::BitArray;
#[cfg(feature = "rayon")]
use rayon::iter::ParallelIterator;
use std::hash::BuildHasher;
use std::ops::Range;

/// A Bloom filter that any number of threads insert into and query at once,
/// without a lock.
///
/// Bits live in 64-bit atomic words and are set with `fetch_or`; queries are
/// plain atomic loads. A key that was inserted is always reported present
/// once its insert happened-before the query (no false negatives); a key
/// never inserted is reported present with about the false-positive rate the
/// filter was sized for. See [`docs::layouts`](crate::docs::layouts) for choosing a layout and
/// [`docs::memory_ordering`](crate::docs::memory_ordering) for the
/// concurrency contract.
///
/// ```
/// use atomic_bloom::AtomicBloom;
///
/// let seen = AtomicBloom::new(1_000_000, 0.001)?;
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let seen = &seen;
///         s.spawn(move || {
///             for i in 0..1000u64 {
///                 seen.insert(&(t * 1000 + i));
///             }
///         });
///     }
/// });
/// assert!((0..4000u64).all(|i| seen.contains(&i)));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
pub type AtomicBloom<S = WyBuildHasher> = Filter<BitArray, S>;

impl Storage for BitArray {
    const CELL_BITS: u64 = 1;
    const NAME: &'static str = "AtomicBloom";
    // Inlined into a caller's loop, a per-key call whose probe is picked by
    // `k` too takes more instructions, the other `k`'s code and all
    // (`layout/mod.rs`, `with_sized_probe!`).
    const SIZED_PER_KEY: bool = false;

    fn zeroed(sizing: &Sizing) -> Result<Self, BuildError> {
        let num_words =
            usize::try_from(sizing.num_bits() / 64).map_err(|_| BuildError::TooLarge {
                requested_bits: u128::from(sizing.num_bits()),
                max_bits: usize::MAX as u64,
            })?;
        BitArray::zeroed(num_words).ok_or(BuildError::AllocationFailed {
            bytes: sizing.num_bits() / 8,
        })
    }

    fn from_words(words: BitArray) -> Self {
        words
    }

    #[inline(always)]
    fn insert<P: Probe>(&self, _: &Sizing, probe: &P) -> bool {
        probe.insert(self)
    }

    #[inline(always)]
    fn contains<P: Probe>(&self, _: &Sizing, probe: &P) -> bool {
        probe.contains(self)
    }

    #[inline(always)]
    fn prefetch<P: Probe>(&self, _: &Sizing, probe: &P, access: Access) {
        probe.prefetch(self, access);
    }

    #[inline(always)]
    fn insert_one<P: Probe>(&self, _: &Sizing, probe: &P) -> bool {
        // Ask for the key's lines before testing them. The test's loads
        // wait for the previous insert's locked instructions to complete
        // (a locked instruction orders every load after it), so one key's
        // cache miss would begin only when the last key's writes end; a
        // prefetch is not ordered with locked instructions (Intel SDM,
        // PREFETCHh), so the miss overlaps them instead. For reading: a
        // present key's insert writes nothing and leaves the line shared
        // (`docs::layouts`, "How an insert writes").
        probe.prefetch_and_insert(self)
    }

    fn num_words(&self) -> usize {
        BitArray::num_words(self)
    }

    fn words(&self, range: Range<usize>) -> impl Iterator<Item = u64> + '_ {
        self.load_words(range)
    }

    fn bit_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.load_words(self.all())
    }

    fn nonzero_cells(&self, range: Range<usize>) -> u64 {
        self.count_ones(range)
    }

    fn clear(&self, range: Range<usize>) {
        BitArray::clear(self, range);
    }

    fn union(&self, other: &Self, range: Range<usize>) {
        BitArray::union(self, other, range);
    }

    fn snapshot(&self) -> Option<Self> {
        BitArray::snapshot(self)
    }

    fn bit_array(&self) -> &BitArray {
        self
    }

    fn memory_bytes(&self) -> usize {
        BitArray::memory_bytes(self)
    }
}

/// A plain filter's bits can be set from words another program wrote.
impl<S: BuildHasher> Filter<BitArray, S> {
    /// A filter of `sizing` hashing with `hasher` whose bits are `words`, in
    /// the order [`words`](Self::words) reads them out: bit `i` is bit `i %
    /// 64` of word `i / 64`. This takes a bit array another program wrote
    /// with the same layout and hash, such as a Parquet column chunk's split
    /// block filter (whose bytes, read as little-endian `u64`s, are
    /// [`Layout::SplitBlock`](crate::Layout::SplitBlock)'s words). A
    /// [`BuildError::WordCount`] if `words` has more or fewer words than
    /// `sizing`; reads at most one word more than it needs.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout, Sizing, WyBuildHasher};
    /// let a = AtomicBloom::builder().bits(4096, 3).build()?;
    /// a.insert("x");
    /// let b = AtomicBloom::from_words(a.sizing(), WyBuildHasher::default(), a.words())?;
    /// assert!(b.contains("x") && b == a);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn from_words(
        sizing: Sizing,
        hasher: S,
        words: impl IntoIterator<Item = u64>,
    ) -> Result<Self, BuildError> {
        let expected = sizing.num_bits() / 64;
        let mut given = words.into_iter().take(
            usize::try_from(expected)
                .unwrap_or(usize::MAX)
                .saturating_add(1),
        );
        let mut filter = Self::with_sizing(sizing, hasher)?;
        let mut got = 0u64;
        filter
            .cells_mut_ref()
            .fill(0, given.by_ref().inspect(|_| got += 1));
        got += given.count() as u64;
        if got != expected {
            return Err(BuildError::WordCount { expected, got });
        }
        Ok(filter)
    }
}

/// What only a plain filter does: bits can be intersected, counted and
/// read out.
impl<S> Filter<BitArray, S> {
    /// Keeps only the bits also set in `other` (bitwise AND): afterwards
    /// `self` contains every key that both held, and its false-positive rate
    /// is at most that of either. It never clears a bit `other` holds, so a
    /// key `other` holds is kept even if it is inserted into `self` during
    /// the call; a key `other` lacks that is inserted meanwhile may be lost.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let a = AtomicBloom::new(100, 0.01)?;
    /// let b = AtomicBloom::new(100, 0.01)?;
    /// for k in ["both", "only a"] { a.insert(k); }
    /// b.insert("both");
    /// a.intersect(&b)?;
    /// assert!(a.contains("both"));
    /// assert!(!a.contains("only a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn intersect(&self, other: &Self) -> Result<(), IncompatibleError> {
        self.check_compatible(other)?;
        self.cells().intersect(other.cells(), self.all_words());
        Ok(())
    }

    /// Number of set bits: a scan of the whole array.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder().bits(512, 3).build()?;
    /// f.insert("x");
    /// assert!((1..=3).contains(&f.count_ones()));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn count_ones(&self) -> u64 {
        self.cells().count_ones(self.all_words())
    }

    /// The current value of each 64-bit word of the bit array, in order:
    /// bit `i` of the filter is bit `i % 64` of word `i / 64`. Each word is
    /// read once, atomically; like [`try_clone`](Self::try_clone), the
    /// sequence holds every key inserted before the call began and possibly
    /// part of one inserted meanwhile.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::with_bits(1024, 3)?;
    /// f.insert("x");
    /// assert_eq!(f.words().count(), 16);
    /// assert_eq!(f.words().map(u64::count_ones).sum::<u32>() as u64, f.count_ones());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.cells().load_words(self.all_words())
    }
}

#[cfg(feature = "rayon")]
#[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
impl<S: Sync> Filter<BitArray, S> {
    /// [`count_ones`](Self::count_ones) on all of rayon's threads.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::with_bits(1 << 20, 3)?;
    /// f.par_insert(0..1000u32);
    /// assert_eq!(f.par_count_ones(), f.count_ones());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn par_count_ones(&self) -> u64 {
        self.word_tasks()
            .map(|range| self.cells().count_ones(range))
            .sum()
    }

    /// [`intersect`](Self::intersect) on all of rayon's threads, with the
    /// same guarantees.
    ///
    /// ```
    /// let a = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// let b = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// for key in ["both", "only a"] { a.insert(key); }
    /// b.insert("both");
    /// a.par_intersect(&b)?;
    /// assert!(a.contains("both") && !a.contains("only a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn par_intersect(&self, other: &Self) -> Result<(), IncompatibleError> {
        self.par_combine(other, BitArray::intersect)
    }
}
