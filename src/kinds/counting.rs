//! # The counting filter: keys that can be removed
//!
//! A plain Bloom filter cannot forget a key: clearing its bits would erase
//! other keys that share them. A counting Bloom filter (Fan, Cao, Almeida
//! and Broder, "Summary Cache", 2000) keeps a small counter where the plain
//! filter keeps a bit: an insert adds one to each of the key's counters, a
//! remove takes one away, and a key is present while all of its counters
//! are above zero.
//!
//! [`AtomicCountingBloom`] keeps one 4-bit counter for each bit a plain
//! [`AtomicBloom`] of the same [`Sizing`] would have, packed sixteen to an
//! `AtomicU64` (`storage/counter_array.rs`). A key's counters are exactly the bits
//! it sets in the plain filter, in every layout, so the plain filter's
//! sizing model holds unchanged (a counter above zero is a set bit), and
//! [`to_bloom`](AtomicCountingBloom::to_bloom) turns a counting filter into
//! the plain one that answers every query the same, in a quarter of the
//! memory, for readers that never remove.
//!
//! ## Overflow and underflow
//!
//! A counter stops at 15 and is never decremented again: it may stand for
//! more than 15 keys, and taking one away could leave it at zero while a
//! key still needs it. So overflow can make a removed key linger (a false
//! positive), never make a present key vanish. With 4-bit counters and the
//! optimal `k`, the chance that any counter reaches 16 is at most
//! `1.37e-15 × m` (Fan et al.), so saturation signals misuse (far more keys
//! than sized for, or one key inserted over and over);
//! [`saturated_counters`](AtomicCountingBloom::saturated_counters) counts
//! them. A counter at zero is never decremented either.
//!
//! ## Removing what was never inserted
//!
//! [`remove`](AtomicCountingBloom::remove) trusts its caller: it
//! decrements the key's counters. If the key was never inserted, some of
//! those counts belong to other keys, and a key sharing them can become a
//! false negative, the one error a Bloom filter must not make.
//! [`remove`](AtomicCountingBloom::remove) refuses a key
//! the filter reports absent, which is every key never inserted except the
//! false positives: a fraction `p` of them (the filter's current rate)
//! passes the check and takes counts all the same, each zeroing at most `k`
//! counters and so losing at most `k` other keys. The check narrows the
//! hazard to that rate; only removing keys that were inserted removes it.
//! The check and the decrement are also separate steps, so a racing remove
//! of the same key can slip between them (see the contract below).
//!
//! ## Concurrency
//!
//! Every operation takes `&self`, with no lock. Each counter word is
//! updated by one compare-and-swap that changes all of the key's counters
//! in that word; a key's counters in different words are updated one word
//! after another. The `docs::memory_ordering` chapter (C1-C6) states what
//! that guarantees and names the loom model of each guarantee.

use crate::core::batch::cell_op;
use crate::core::cells::Storage;
use crate::core::filter::Filter;
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::key::Key;
use crate::kinds::bloom::AtomicBloom;
use crate::layout::{MAX_HASHES, Probe, with_sized_probe};
use crate::sizing::Sizing;
use crate::storage::counter_array::{
    ALL_LANES, COUNTERS_PER_WORD, MAX_COUNT, count, saturated_lanes, zero_lanes,
};
use crate::storage::{BitArray, CounterArray};
use std::hash::BuildHasher;
use std::ops::Range;

/// A counting Bloom filter that many threads share without a lock: keys
/// can be removed as well as inserted.
///
/// ```
/// use atomic_bloom::AtomicCountingBloom;
///
/// let sessions = AtomicCountingBloom::new(10_000, 0.01)?;
/// sessions.insert("alice");
/// sessions.insert("bob");
/// assert!(sessions.remove("alice"));
/// assert!(!sessions.contains("alice"));
/// assert!(sessions.contains("bob"));
/// // The plain filter of the same keys, for readers: a quarter of the memory.
/// let snapshot = sessions.to_bloom()?;
/// assert!(snapshot.contains("bob"));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
pub type AtomicCountingBloom<S = WyBuildHasher> = Filter<CounterArray, S>;

/// A key's counters: an insert adds one to each (those not saturated), a
/// query asks that each is above zero. Per-key calls choose the probe by
/// `k` too (`SIZED_PER_KEY`): a counting call is a loop of
/// compare-and-swaps, which costs far more than the choice.
impl Storage for CounterArray {
    const CELL_BITS: u64 = 4;
    const NAME: &'static str = "AtomicCountingBloom";
    const SIZED_PER_KEY: bool = true;

    fn zeroed(sizing: &Sizing) -> Result<Self, BuildError> {
        let num_words = usize::try_from(sizing.num_bits() / COUNTERS_PER_WORD).map_err(|_| {
            BuildError::TooLarge {
                requested_bits: u128::from(sizing.num_bits()) * 4,
                max_bits: usize::MAX as u64,
            }
        })?;
        CounterArray::zeroed(num_words).ok_or(BuildError::AllocationFailed {
            bytes: sizing.num_bits() / 2,
        })
    }

    fn from_words(words: BitArray) -> Self {
        CounterArray::from_words(words)
    }

    /// Returns `true` if one of the key's counters was zero, which is what
    /// the plain filter's insert returns: this call made the key present.
    #[inline(always)]
    fn insert<P: Probe>(&self, sizing: &Sizing, probe: &P) -> bool {
        let mut was_zero = false;
        self.for_each_word(sizing, probe, |word, lanes| {
            let old = self.increment(word, lanes);
            was_zero |= zero_lanes(old) & lanes != 0;
        });
        was_zero
    }

    #[inline(always)]
    fn contains<P: Probe>(&self, _: &Sizing, probe: &P) -> bool {
        let mut present = true;
        self.for_each_counter(probe, |word, lane| {
            present &= count(word, lane) != 0;
        });
        present
    }

    #[inline(always)]
    fn prefetch<P: Probe>(&self, _: &Sizing, probe: &P, access: Access) {
        probe.bits(|counter| {
            CounterArray::prefetch(self, (counter / COUNTERS_PER_WORD) as usize, access)
        });
    }

    fn num_words(&self) -> usize {
        CounterArray::num_words(self)
    }

    fn words(&self, range: Range<usize>) -> impl Iterator<Item = u64> + '_ {
        self.load_words(range)
    }

    /// Four counter words make a plain word: bit `i` set iff counter `i` is
    /// above zero.
    fn bit_words(&self) -> impl Iterator<Item = u64> + '_ {
        let mut words = self.load_words(0..CounterArray::num_words(self));
        (0..CounterArray::num_words(self) / 4).map(move |_| {
            (0..4).fold(0u64, |bits, quarter| {
                let nonzero = !zero_lanes(words.next().unwrap_or(0));
                (0..16).fold(bits, |bits, lane| {
                    bits | ((nonzero >> (4 * lane)) & 1) << (16 * quarter + lane)
                })
            })
        })
    }

    fn nonzero_cells(&self, range: Range<usize>) -> u64 {
        self.load_words(range)
            .map(|w| u64::from((!zero_lanes(w) & ALL_LANES).count_ones()))
            .sum()
    }

    fn clear(&self, range: Range<usize>) {
        CounterArray::clear(self, range);
    }

    /// Adds `other`'s counts, each sum saturating at 15 (memory ordering,
    /// C5).
    fn union(&self, other: &Self, range: Range<usize>) {
        self.merge(other, range);
    }

    fn snapshot(&self) -> Option<Self> {
        CounterArray::snapshot(self)
    }

    fn memory_bytes(&self) -> usize {
        CounterArray::memory_bytes(self)
    }

    fn bit_array(&self) -> &BitArray {
        self.array()
    }
}

/// How a key's probe reaches its counters.
impl CounterArray {
    /// Takes one from each of the key's counters (those neither zero nor
    /// saturated); whether every one was above zero.
    #[inline(always)]
    fn remove<P: Probe>(&self, sizing: &Sizing, probe: &P) -> bool {
        let mut all_present = true;
        self.for_each_word(sizing, probe, |word, lanes| {
            let old = self.decrement(word, lanes);
            all_present &= zero_lanes(old) & lanes == 0;
        });
        all_present
    }

    /// The smallest of the key's counters.
    #[inline(always)]
    fn count_of<P: Probe>(&self, probe: &P) -> u8 {
        let mut least = MAX_COUNT;
        self.for_each_counter(probe, |word, lane| {
            least = least.min(count(word, lane));
        });
        least
    }

    /// Calls `f(word, lane)` with the current value of the word holding
    /// each of the key's counters and the counter's lane in it (a counter
    /// two probes share may come twice). For queries: each load stands
    /// alone, so nothing is grouped, sorted or buffered.
    #[inline(always)]
    fn for_each_counter<P: Probe>(&self, probe: &P, mut f: impl FnMut(u64, u64)) {
        probe.bits(|counter| {
            let word = self.load((counter / COUNTERS_PER_WORD) as usize);
            f(word, counter % COUNTERS_PER_WORD);
        });
    }

    /// Calls `f(word, lanes)` for each counter word holding some of the
    /// key's counters, once, with the lane mask of those counters, having
    /// asked for all of their lines first (for updates).
    #[inline(always)]
    fn for_each_word<P: Probe>(&self, sizing: &Sizing, probe: &P, f: impl FnMut(usize, u64)) {
        // Asked per key, where `hints.rs` advises keeping it for a loop: in
        // a per-key update the check is lost in the compare-and-swaps (one
        // check per key or three measured alike).
        let access = Access::write();
        // Ask for each line as the key's counters reach it: the
        // compare-and-swaps that follow are locked instructions, which take
        // their lines one after another, so a key's counters in several
        // lines (a Blocked key's 512 counters span four) would wait for each
        // miss in turn. Per-key inserts and removes at 100M keys measured
        // faster with it (`cargo bench --bench throughput --
        // counting/100M/u64/insert-then-remove/1t`).
        let prefetch = |word| CounterArray::prefetch(self, word, access);
        key_words(sizing, probe, prefetch, f);
    }
}

/// Calls `reach(word)` as the key's counters reach each word, then
/// `f(word, lanes)` for each counter word holding some of them, once, with
/// the lane mask of those counters, in the order the counters first reach
/// the words: a counter two probes share is counted once.
#[inline(always)]
pub(crate) fn key_words<P: Probe>(
    sizing: &Sizing,
    probe: &P,
    reach: impl FnMut(usize),
    f: impl FnMut(usize, u64),
) {
    // Room for `k` words on the stack, zeroed per call: 16 covers the `k`
    // of every rate down to about 1e-5 (of far lower ones with `Blocked`,
    // whose `k` is 13 at 1e-6) in 256 bytes; the most `k` can be takes
    // 1 KiB.
    const FEW: u32 = 16;
    if sizing.num_hashes() <= FEW {
        key_words_within::<P, { FEW as usize }>(probe, reach, f);
    } else {
        key_words_within::<P, { MAX_HASHES as usize }>(probe, reach, f);
    }
}

/// [`key_words`] for `k` up to `N`.
///
/// Each counter's lane joins the word it lies in, found by a scan of the
/// words seen so far. Sorting the counters to bring a word's lanes together
/// needed an array of `MAX_HASHES` zeroed by a `memset` call per key, and
/// measured slower for every update (`cargo run --release -p
/// atomic-bloom-harness -- bench --counting`; BENCHMARKS.md, "The counting
/// filter").
#[inline(always)]
fn key_words_within<P: Probe, const N: usize>(
    probe: &P,
    mut reach: impl FnMut(usize),
    mut f: impl FnMut(usize, u64),
) {
    let (mut words, mut lanes) = ([0u64; N], [0u64; N]);
    let mut len = 0;
    probe.bits(|counter| {
        let word = counter / COUNTERS_PER_WORD;
        reach(word as usize);
        let lane = 1 << (4 * (counter % COUNTERS_PER_WORD));
        match words[..len].iter().position(|&seen| seen == word) {
            Some(i) => lanes[i] |= lane,
            None => {
                words[len] = word;
                lanes[len] = lane;
                len += 1;
            }
        }
    });
    for (&word, &lanes) in words[..len].iter().zip(&lanes[..len]) {
        f(word as usize, lanes);
    }
}

cell_op!(
    /// Take one insert of the key (`remove_hash_unchecked`).
    Remove on [] CounterArray, Access::write(), |cells, sizing, probe| cells.remove(sizing, probe)
);
cell_op!(
    /// Take one insert of the key if it is present (`remove_hash`).
    RemoveChecked on [] CounterArray, Access::write(),
    |cells, sizing, probe| cells.contains(sizing, probe) && cells.remove(sizing, probe)
);

/// What only a counting filter does: remove keys, count them, and give the
/// plain filter of its keys.
impl<S: BuildHasher> Filter<CounterArray, S> {
    /// Removes one insert of `key` if it is present; returns whether it
    /// was. A key reported absent is left alone, so most keys that were
    /// never inserted (or were removed already) take nothing from other
    /// keys. **But the check cannot tell a key from a false positive**: a
    /// key not inserted that the filter reports present (a fraction `p` of
    /// them, the current [rate](Self::estimated_false_positive_rate))
    /// passes it, and its decrement takes counts from other keys as
    /// [`remove_unchecked`](Self::remove_unchecked) would, which can make
    /// them false negatives. The plain name checks, in Rust as in Python
    /// (`CountingBloomFilter.remove`): the unchecked decrement is the
    /// exception, named so.
    /// A retried batch of removes is the common way to get there: its keys
    /// are gone, and its false positives are removed a second time.
    ///
    /// The check and the decrement are two steps, not one atomic action: if
    /// two threads remove the last insert of the same key at once, both can
    /// pass the check, and the second then takes a count from every one of
    /// the key's counters that another key shares (exactly one of the two
    /// calls returns `true`; memory ordering, C4). Do not race checked
    /// removes of one key: keys that each thread inserted itself, removes
    /// of a key serialized by the caller, and one
    /// [`par_remove`](Self::par_remove) call (which puts
    /// every occurrence of a key on one task) are safe.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("apple");
    /// assert!(!f.remove("pear")); // reported absent: nothing changes
    /// assert!(f.remove("apple"));
    /// assert!(!f.remove("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.remove_hash(self.hash(key))
    }

    /// Removes one insert of `key` without checking that it is present:
    /// takes one from each of its counters (those neither zero nor
    /// saturated), one step where [`remove`](Self::remove) takes two.
    /// Returns `true` if every one of
    /// them was above zero when this call took from it, as it is for a key
    /// that was inserted more often than removed.
    ///
    /// **Removing a key that was not inserted (or was removed already)
    /// takes counts that belong to other keys**: each of its counters above
    /// zero holds only other keys' counts, and taking one can bring a
    /// counter another key needs to zero, so that key is then reported
    /// absent, a false negative. `false` means this happened: the key was
    /// not present, and its counters above zero were decremented all the
    /// same. Remove only keys you inserted, once per insert; a retried
    /// remove of the same keys is exactly this mistake.
    /// [`remove`](Self::remove), which checks first, narrows it, and does
    /// not remove it.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("apple");
    /// f.insert("apple");
    /// assert!(f.remove_unchecked("apple"));
    /// assert!(f.contains("apple")); // inserted twice, removed once
    /// assert!(f.remove_unchecked("apple"));
    /// assert!(!f.contains("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_unchecked<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.remove_hash_unchecked(self.hash(key))
    }

    /// How many times `key` was inserted, at most: the smallest of its
    /// counters (0 if absent; 15 if saturated, which stands for 15 or
    /// more). Other keys that share every one of its counters raise it, so
    /// it is an upper bound of inserts minus removes, exact for most keys
    /// of a filter within its capacity.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// for _ in 0..3 { f.insert("apple"); }
    /// assert_eq!(f.count_of("apple"), 3);
    /// assert_eq!(f.count_of("pear"), 0);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn count_of<T: Key + ?Sized>(&self, key: &T) -> u8 {
        self.count_of_hash(self.hash(key))
    }

    /// Removes one insert of every key, prefetching ahead; returns how many
    /// of the per-key [`remove`](Self::remove) calls it stands for would
    /// have returned `true` (found every counter above zero). As with
    /// `remove`, remove only keys that were inserted.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..100u32);
    /// assert_eq!(f.remove_batch_unchecked(0..50u32), 50);
    /// assert_eq!(f.contains_batch([10u32, 60]), [false, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_batch_unchecked<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.remove_hash_batch_unchecked(self.hashes(keys))
    }

    /// [`remove`](Self::remove) of every key, in order,
    /// prefetching ahead; returns how many keys were present and removed.
    /// A key repeated in the batch is checked again before each remove, so
    /// it is never removed more often than it is present.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// f.insert("a");
    /// assert_eq!(f.remove_batch(["a", "a", "never inserted"]), 1);
    /// assert!(!f.contains("a"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.remove_hash_batch(self.hashes(keys))
    }
}

impl<S> Filter<CounterArray, S> {
    /// [`remove`](Self::remove) by hash.
    pub fn remove_hash_unchecked(&self, hash: u64) -> bool {
        let sizing = self.sizing();
        with_sized_probe!(sizing, P => self.cells().remove(&sizing, &sizing.probe::<P>(hash)))
    }

    /// [`remove`](Self::remove) by hash.
    pub fn remove_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash) && self.remove_hash_unchecked(hash)
    }

    /// [`count_of`](Self::count_of) by hash.
    pub fn count_of_hash(&self, hash: u64) -> u8 {
        let sizing = self.sizing();
        with_sized_probe!(sizing, P => self.cells().count_of(&sizing.probe::<P>(hash)))
    }

    /// [`remove_batch_unchecked`](Self::remove_batch_unchecked) by hash.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// let a = f.hash("a");
    /// f.insert_hash_batch([a, a]);
    /// assert_eq!(f.remove_hash_batch_unchecked([a]), 1);
    /// assert_eq!(f.count_of("a"), 1);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_hash_batch_unchecked(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.batch_count(Remove, hashes)
    }

    /// [`remove_batch`](Self::remove_batch) by hash.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// let a = f.hash("a");
    /// f.insert_hash(a);
    /// assert_eq!(f.remove_hash_batch([a, a]), 1);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.batch_count(RemoveChecked, hashes)
    }

    /// How many counters are saturated (at 15, stuck there). Above zero
    /// only when far more keys went in than the filter was sized for, or
    /// one key went in many times; each such counter may keep a removed key
    /// reported present.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// for _ in 0..20 { f.insert("hot key"); }
    /// assert_eq!(f.saturated_counters(), u64::from(f.num_hashes()));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn saturated_counters(&self) -> u64 {
        self.cells()
            .load_words(self.all_words())
            .map(|w| u64::from(saturated_lanes(w).count_ones()))
            .sum()
    }

    /// How many counters are above zero: the bits the plain filter of the
    /// same keys would have set ([`AtomicBloom::count_ones`]).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::with_bits(1024, 3)?;
    /// f.insert("a");
    /// f.insert("a");
    /// assert!((1..=3).contains(&f.nonzero_counters()));
    /// assert_eq!(f.nonzero_counters(), f.to_bloom()?.count_ones());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn nonzero_counters(&self) -> u64 {
        self.cells().nonzero_cells(self.all_words())
    }
}

impl<S: BuildHasher + Clone> Filter<CounterArray, S> {
    /// The plain filter of the same sizing and hasher whose bit `i` is set
    /// iff counter `i` is above zero: it answers `contains` as this filter
    /// does, in a quarter of the memory. Each counter word is read once; an
    /// insert or remove racing the call may be seen in part.
    ///
    /// ```
    /// let counting = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// counting.insert("a");
    /// counting.insert("b");
    /// counting.remove("a");
    /// let plain = counting.to_bloom()?;
    /// assert!(plain.contains("b"));
    /// assert_eq!(plain.contains("a"), counting.contains("a"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn to_bloom(&self) -> Result<AtomicBloom<S>, BuildError> {
        let mut bits =
            BitArray::zeroed(self.cells().num_words() / 4).ok_or(BuildError::AllocationFailed {
                bytes: self.num_bits() / 8,
            })?;
        bits.fill(0, self.cells().bit_words());
        Ok(Filter::from_parts(
            bits,
            self.sizing(),
            self.hasher().clone(),
        ))
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
    use super::{KeyTasks, Remove, RemoveChecked};
    use crate::core::filter::Filter;
    use crate::key::Key;
    use crate::storage::CounterArray;
    use rayon::prelude::*;
    use std::hash::BuildHasher;

    #[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
    impl<S: BuildHasher + Sync> Filter<CounterArray, S> {
        /// [`remove_batch_unchecked`](Self::remove_batch_unchecked) on all of rayon's threads.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(100_000, 0.01)?;
        /// f.par_insert(0..50_000u64);
        /// assert_eq!(f.par_remove_unchecked(0..25_000u64), 25_000);
        /// assert!(f.contains(&30_000u64));
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_remove_unchecked<I>(&self, keys: I) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            self.par_count(keys, Remove)
        }

        /// [`remove_batch`](Self::remove_batch) on all of
        /// rayon's threads; returns how many keys were present and removed.
        ///
        /// The keys are hashed in parallel and split by hash, so that every
        /// occurrence of a key goes to the same task, which checks and
        /// removes them one after another in input order: a key listed
        /// twice but inserted once is removed once, however the work is
        /// split (two `remove` calls racing on other threads could
        /// both pass the check). Buffers the hashes, 8 bytes per key.
        ///
        /// ```
        /// let f = atomic_bloom::AtomicCountingBloom::new(100_000, 0.01)?;
        /// f.par_insert(0..10_000u64);
        /// let twice: Vec<u64> = (0..10_000).chain(0..10_000).collect();
        /// assert_eq!(f.par_remove(&twice), 10_000);
        /// assert_eq!(f.estimated_len(), Some(0));
        /// # Ok::<(), atomic_bloom::BuildError>(())
        /// ```
        pub fn par_remove<I>(&self, keys: I) -> usize
        where
            I: IntoParallelIterator,
            I::Item: Key,
        {
            let hashes: Vec<u64> = keys.into_par_iter().map(|key| self.hash(&key)).collect();
            let tasks = KeyTasks::split(hashes, rayon::current_num_threads());
            tasks
                .par_iter()
                .map(|task| {
                    #[cfg(all(test, not(loom)))]
                    super::bulk_tests::log_task(task);
                    self.batch_count(RemoveChecked, task.iter().copied())
                })
                .sum()
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use std::collections::{BTreeMap, BTreeSet};

    /// For every layout, and for `k` on both sides of the 16 that
    /// `for_each_word` keeps room for on the stack: an insert adds one to
    /// each counter the key maps to, once however many of its probes share
    /// it, reaching each word once with the lanes of its counters there;
    /// a remove takes them back.
    #[test]
    fn an_insert_counts_each_of_the_keys_counters_once() {
        for layout in Layout::ALL {
            let ks = [1, 5, 7, 16, 17, 40, MAX_HASHES];
            for k in layout.fixed_num_hashes().map_or(ks.to_vec(), |k| vec![k]) {
                // Few counters, so that probes share counters and words.
                let sizing = Sizing::for_bits(layout, 1024, k).unwrap();
                let f = AtomicCountingBloom::with_sizing(sizing, WyBuildHasher::default()).unwrap();
                for key in 0..50u32 {
                    let case = format!("{layout}, k = {k}, key {key}");
                    let hash = f.hasher().hash_one(key);
                    let mut counters = BTreeSet::new();
                    let sizing = f.sizing();
                    with_sized_probe!(sizing, P => sizing.probe::<P>(hash).bits(|c| {
                        counters.insert(c);
                    }));
                    let mut expected = BTreeMap::new();
                    for &c in &counters {
                        *expected.entry(c / COUNTERS_PER_WORD).or_insert(0) |=
                            1u64 << (4 * (c % COUNTERS_PER_WORD));
                    }
                    let mut reached = Vec::new();
                    with_sized_probe!(sizing, P => f.cells().for_each_word(
                        &sizing,
                        &sizing.probe::<P>(hash),
                        |word, lanes| reached.push((word as u64, lanes)),
                    ));
                    reached.sort_unstable();
                    assert!(reached.iter().copied().eq(expected.clone()), "{case}");

                    assert!(f.insert_hash(hash), "{case}");
                    let words: Vec<u64> = f.cells().load_words(f.all_words()).collect();
                    for (word, &value) in (0u64..).zip(&words) {
                        // Each of the key's counters at 1, every other at 0.
                        let lanes = expected.get(&word).copied().unwrap_or(0);
                        assert_eq!(value, lanes, "{case}: word {word}");
                    }
                    assert!(f.remove_hash_unchecked(hash), "{case}");
                    assert!(
                        f.cells().load_words(f.all_words()).all(|w| w == 0),
                        "{case}"
                    );
                }
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod bulk_tests {
    use super::AtomicCountingBloom;
    use crate::core::batch::{CellStage, Insert, PREFETCH_DISTANCE, Stage};
    use crate::hints::recorded_prefetches;
    use crate::layout::Layout;
    use crate::layout::with_sized_probe;
    use std::collections::{BTreeMap, BTreeSet};
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
            let counters = filter.cells();
            for key in 0..300u64 {
                let hash = filter.hasher().hash_one(key);
                let sizing = filter.sizing();
                let prefetched: BTreeSet<usize> = recorded_prefetches(|| {
                    with_sized_probe!(sizing, P => {
                        CellStage::<_, _, P, _>::new(&filter, Insert).prefetch(hash)
                    })
                })
                .into_iter()
                .map(|address| address / 64)
                .collect();
                filter.clear();
                let before: Vec<u64> = counters.load_words(0..counters.num_words()).collect();
                assert!(filter.insert_hash(hash));
                let written: BTreeSet<usize> = counters
                    .load_words(0..counters.num_words())
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
                PREFETCH_DISTANCE as u64,
                2 * PREFETCH_DISTANCE as u64 + 3,
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
                let removed = halves.iter().filter(|k| single.remove_unchecked(k)).count();
                assert_eq!(
                    batched.remove_batch_unchecked(&halves),
                    removed,
                    "{layout} len {len}"
                );
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
                parallel.par_remove_unchecked(0..20_000u64),
                sequential.remove_batch_unchecked(0..20_000u64),
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

    /// The split `par_remove` runs its tasks by: every occurrence
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

    /// The hashes each task of a `par_remove` call checked and
    /// removed, for the test below (other tests' tasks too: it looks only
    /// at its own hashes).
    #[cfg(feature = "rayon")]
    static TASKS: std::sync::Mutex<Vec<Vec<u64>>> = std::sync::Mutex::new(Vec::new());

    #[cfg(feature = "rayon")]
    pub(super) fn log_task(task: &[u64]) {
        TASKS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(task.to_vec());
    }

    /// `par_remove` itself hands every occurrence of a key to one
    /// task, as `KeyTasks` splits them: decided from the tasks it ran, not
    /// from whether two copies happened to race.
    #[cfg(feature = "rayon")]
    #[test]
    fn par_remove_runs_every_copy_of_a_key_in_one_task() {
        // Hashes no other test uses: keys past 2^40, each listed 3 times.
        let keys: Vec<u64> = (0..20_000u64).map(|i| (1 << 40) + i).collect();
        let f = AtomicCountingBloom::new(100_000, 0.01).unwrap();
        f.insert_batch(keys.iter());
        let listed: Vec<u64> = (0..3).flat_map(|_| keys.iter().copied()).collect();
        assert_eq!(f.par_remove(&listed), keys.len());
        let ours: BTreeSet<u64> = keys.iter().map(|k| f.hash(k)).collect();
        let mut task_of = BTreeMap::new();
        for (t, task) in TASKS.lock().unwrap().iter().enumerate() {
            for h in task.iter().filter(|h| ours.contains(h)) {
                let first = *task_of.entry(*h).or_insert(t);
                assert_eq!(
                    first, t,
                    "copies of hash {h:x} ran in tasks {first} and {t}"
                );
            }
        }
        assert_eq!(
            task_of.len(),
            ours.len(),
            "a key's removal ran in no logged task"
        );
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
            let removed = keys.iter().filter(|k| single.remove(k)).count();
            assert_eq!(removed, 4_000);
            assert_eq!(parallel.par_remove(&keys), removed, "{layout}");
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
            let removed = keys.iter().filter(|k| single.remove(k)).count();
            assert_eq!(batched.remove_batch(&keys), removed, "{layout}");
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
            assert_eq!(sparse.par_remove(&thrice), 1_000, "{layout}");
            assert_eq!(sparse.saturated_counters(), 0);
            assert_eq!(sparse.estimated_len(), Some(0), "{layout}");
            assert!(
                (3_000..20_000u64).all(|k| parallel.contains(&k)),
                "{layout}"
            );
        }
    }
}
