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
//! `AtomicU64` (`counter_array.rs`). A key's counters are exactly the bits
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
//! [`remove_checked`](AtomicCountingBloom::remove_checked) refuses a key
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

use crate::bit_array::BitArray;
use crate::counter_array::{
    ALL_LANES, COUNTERS_PER_WORD, CounterArray, MAX_COUNT, count, saturated_lanes, zero_lanes,
};
use crate::error::{BuildError, IncompatibleError};
use crate::filter::{
    AtomicBloom, Builder, FINGERPRINT_KEY, check_compatible, estimate_len, rate_of_words,
};
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::key::Key;
use crate::layout::Layout;
use crate::layout::MAX_HASHES;
use crate::layout::{Probe, with_sized_probe};
use crate::sizing::Sizing;
use std::fmt;
use std::hash::BuildHasher;

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
pub struct AtomicCountingBloom<S = WyBuildHasher> {
    counters: CounterArray,
    sizing: Sizing,
    hasher: S,
    /// `hasher.hash_one(FINGERPRINT_KEY)`, compared by `eq`.
    fingerprint: u64,
}

impl AtomicCountingBloom {
    /// A counting filter for `expected_items` keys at `false_positive_rate`,
    /// in the default layout, hashed with wyhash (seed 0): the same sizes
    /// as [`AtomicBloom::new`], with four bits per counter.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom};
    /// let counting = AtomicCountingBloom::new(1_000, 0.01)?;
    /// let plain = AtomicBloom::new(1_000, 0.01)?;
    /// assert_eq!(counting.sizing(), plain.sizing());
    /// assert_eq!(counting.memory_bytes(), 4 * plain.memory_bytes());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn new(expected_items: usize, false_positive_rate: f64) -> Result<Self, BuildError> {
        let sizing = Sizing::for_rate(Layout::default(), expected_items, false_positive_rate)?;
        Self::with_sizing(sizing, WyBuildHasher::default())
    }

    /// A counting filter of `num_counters` counters (rounded up as
    /// [`AtomicBloom::with_bits`] rounds bits) and `num_hashes` counters per
    /// key, in the default layout.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::with_counters(1000, 5)?;
    /// assert_eq!((f.num_counters(), f.num_hashes()), (1024, 5));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn with_counters(num_counters: u64, num_hashes: u32) -> Result<Self, BuildError> {
        Self::builder().bits(num_counters, num_hashes).build()
    }

    /// A [`Builder`] of counting filters: size, layout and hasher are
    /// chosen as for the plain filter (`bits` there means counters), and
    /// [`build`](Builder::build) builds an `AtomicCountingBloom`.
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, Layout};
    /// let f: AtomicCountingBloom = AtomicCountingBloom::builder()
    ///     .capacity(10_000, 0.001)
    ///     .layout(Layout::Word)
    ///     .seed(7)
    ///     .build()?;
    /// assert_eq!(f.layout(), Layout::Word);
    /// assert_eq!(f.hasher().seed(), 7);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn builder() -> Builder<WyBuildHasher, AtomicCountingBloom> {
        Builder::default()
    }
}

impl<S: BuildHasher> Builder<S, AtomicCountingBloom> {
    /// Validates the parameters and allocates a zeroed
    /// [`AtomicCountingBloom`].
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, BuildError};
    /// let f = AtomicCountingBloom::builder().capacity(1_000, 0.01).build()?;
    /// assert!(f.is_empty());
    /// assert_eq!(AtomicCountingBloom::builder().build().unwrap_err(), BuildError::MissingSize);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn build(self) -> Result<AtomicCountingBloom<S>, BuildError> {
        let sizing = self.sizing_for(None)?;
        AtomicCountingBloom::with_sizing(sizing, self.into_hasher())
    }
}

impl<S: BuildHasher> Builder<S> {
    /// Validates the parameters and allocates a zeroed
    /// [`AtomicCountingBloom`]: a counter for each bit the plain filter
    /// [`build`](Builder::build) would give.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, BuildError};
    /// let f = AtomicBloom::builder().capacity(1_000, 0.01).build_counting()?;
    /// assert_eq!(f.sizing(), AtomicBloom::new(1_000, 0.01)?.sizing());
    /// assert_eq!(AtomicBloom::builder().build_counting().unwrap_err(), BuildError::MissingSize);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn build_counting(self) -> Result<AtomicCountingBloom<S>, BuildError> {
        let sizing = self.sizing_for(None)?;
        AtomicCountingBloom::with_sizing(sizing, self.into_hasher())
    }
}

impl<S: BuildHasher> AtomicCountingBloom<S> {
    /// A counting filter of the given size (a counter per bit of `sizing`)
    /// hashing with `hasher`.
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, Layout, Sizing, WyBuildHasher};
    /// let sizing = Sizing::for_rate(Layout::Word, 1_000, 0.01)?;
    /// let f = AtomicCountingBloom::with_sizing(sizing, WyBuildHasher::with_seed(7))?;
    /// assert_eq!(f.layout(), Layout::Word);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn with_sizing(sizing: Sizing, hasher: S) -> Result<Self, BuildError> {
        let num_words = usize::try_from(sizing.num_bits() / COUNTERS_PER_WORD).map_err(|_| {
            BuildError::TooLarge {
                requested_bits: u128::from(sizing.num_bits()) * 4,
                max_bits: usize::MAX as u64,
            }
        })?;
        let counters = CounterArray::zeroed(num_words).ok_or(BuildError::AllocationFailed {
            bytes: sizing.num_bits() / 2,
        })?;
        Ok(Self::from_parts(counters, sizing, hasher))
    }

    /// The filter of `sizing` and `hasher` holding `counters` (a counter
    /// per bit of `sizing`).
    pub(crate) fn from_parts(counters: CounterArray, sizing: Sizing, hasher: S) -> Self {
        AtomicCountingBloom {
            counters,
            sizing,
            fingerprint: hasher.hash_one(FINGERPRINT_KEY),
            hasher,
        }
    }

    /// Inserts `key`: adds one to each of its counters (those not
    /// saturated). Returns `true` if one of them was zero, which is what
    /// [`AtomicBloom::insert`] returns: this call made the key present.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// assert!(f.insert("apple"));
    /// assert!(!f.insert("apple")); // counted twice now
    /// assert_eq!(f.count_of("apple"), 2);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(key.hash_with(&self.hasher))
    }

    /// [`insert`](Self::insert) for a key whose 64-bit hash the caller
    /// holds, as [`AtomicBloom::insert_hash`].
    pub fn insert_hash(&self, hash: u64) -> bool {
        let mut was_zero = false;
        self.for_each_word(hash, |word, lanes| {
            let old = self.counters.increment(word, lanes);
            was_zero |= zero_lanes(old) & lanes != 0;
        });
        was_zero
    }

    /// Removes one insert of `key`: takes one from each of its counters
    /// (those neither zero nor saturated). Returns `true` if every one of
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
    /// [`remove_checked`](Self::remove_checked) narrows it, and does not
    /// remove it.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("apple");
    /// f.insert("apple");
    /// assert!(f.remove("apple"));
    /// assert!(f.contains("apple")); // inserted twice, removed once
    /// assert!(f.remove("apple"));
    /// assert!(!f.contains("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.remove_hash(key.hash_with(&self.hasher))
    }

    /// Removes one insert of `key` if it is present; returns whether it
    /// was. A key reported absent is left alone, so most keys that were
    /// never inserted (or were removed already) take nothing from other
    /// keys. **But the check cannot tell a key from a false positive**: a
    /// key not inserted that the filter reports present (a fraction `p` of
    /// them, the current [rate](Self::estimated_false_positive_rate))
    /// passes it, and its decrement takes counts from other keys as
    /// [`remove`](Self::remove) would, which can make them false negatives.
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
    /// [`par_remove_checked`](Self::par_remove_checked) call (which puts
    /// every occurrence of a key on one task) are safe.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("apple");
    /// assert!(!f.remove_checked("pear")); // reported absent: nothing changes
    /// assert!(f.remove_checked("apple"));
    /// assert!(!f.remove_checked("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn remove_checked<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.remove_checked_hash(key.hash_with(&self.hasher))
    }

    /// The hash [`insert`](Self::insert) and [`contains`](Self::contains)
    /// compute for `key`, for the `_hash` calls and batches.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert_hash(f.hash("k"));
    /// assert!(f.contains("k"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn hash<T: Key + ?Sized>(&self, key: &T) -> u64 {
        key.hash_with(&self.hasher)
    }

    /// [`remove_checked`](Self::remove_checked) by hash.
    pub fn remove_checked_hash(&self, hash: u64) -> bool {
        self.contains_hash(hash) && self.remove_hash(hash)
    }

    /// Whether `key` may be present: all of its counters are above zero.
    /// `false` is certain for a key inserted more often than removed.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert(&42u64);
    /// assert!(f.contains(&42u64));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(key.hash_with(&self.hasher))
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
        self.count_of_hash(key.hash_with(&self.hasher))
    }

    /// [`count_of`](Self::count_of) by hash.
    pub fn count_of_hash(&self, hash: u64) -> u8 {
        let mut least = MAX_COUNT;
        self.for_each_counter(hash, |word, lane| {
            least = least.min(count(word, lane));
        });
        least
    }

    /// [`remove`](Self::remove) by hash.
    pub fn remove_hash(&self, hash: u64) -> bool {
        let mut all_present = true;
        self.for_each_word(hash, |word, lanes| {
            let old = self.counters.decrement(word, lanes);
            all_present &= zero_lanes(old) & lanes == 0;
        });
        all_present
    }

    /// [`contains`](Self::contains) by hash.
    pub fn contains_hash(&self, hash: u64) -> bool {
        let mut present = true;
        self.for_each_counter(hash, |word, lane| {
            present &= count(word, lane) != 0;
        });
        present
    }

    /// Calls `f(word, lane)` with the current value of the word holding
    /// each of the key's counters and the counter's lane in it (a counter
    /// two probes share may come twice). For queries: each load stands
    /// alone, so nothing is grouped, sorted or buffered.
    #[inline]
    fn for_each_counter(&self, hash: u64, mut f: impl FnMut(u64, u64)) {
        with_sized_probe!(self.sizing, P => self.sizing.probe::<P>(hash).bits(|counter| {
            let word = self.counters.load((counter / COUNTERS_PER_WORD) as usize);
            f(word, counter % COUNTERS_PER_WORD);
        }));
    }

    /// Asks the CPU to start fetching the lines of the key's counters (for
    /// the batch pipeline, `counting_bulk.rs`).
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64, access: Access) {
        with_sized_probe!(self.sizing, P => self.sizing.probe::<P>(hash).bits(|counter| {
            self.counters.prefetch((counter / COUNTERS_PER_WORD) as usize, access);
        }));
    }

    /// Calls `f(word, lanes)` for each counter word holding some of the
    /// key's counters, once, with the lane mask of those counters, having
    /// asked for all of their lines first (for updates). The words come in
    /// the order the key's counters first reach them.
    fn for_each_word(&self, hash: u64, f: impl FnMut(usize, u64)) {
        // Room for `k` words on the stack, zeroed per call: 16 covers the
        // `k` of every rate down to about 1e-5 (of far lower ones with
        // `Blocked`, whose `k` is 13 at 1e-6) in 256 bytes; the most `k`
        // can be takes 1 KiB.
        const FEW: u32 = 16;
        if self.sizing.num_hashes() <= FEW {
            self.for_each_word_within::<{ FEW as usize }>(hash, f);
        } else {
            self.for_each_word_within::<{ MAX_HASHES as usize }>(hash, f);
        }
    }

    /// [`for_each_word`](Self::for_each_word) for `k` up to `N`.
    ///
    /// Each counter's lane joins the word it lies in, found by a scan of
    /// the words seen so far, so a counter two probes share comes once.
    /// Sorting the counters to bring a word's lanes together needed an
    /// array of `MAX_HASHES` zeroed by a `memset` call per key, and measured
    /// slower for every update (`cargo run --release -p
    /// atomic-bloom-harness -- bench --counting`; BENCHMARKS.md, "The
    /// counting filter").
    #[inline(always)]
    fn for_each_word_within<const N: usize>(&self, hash: u64, mut f: impl FnMut(usize, u64)) {
        let (mut words, mut lanes) = ([0u64; N], [0u64; N]);
        let mut len = 0;
        // Asked per key, where `hints.rs` advises keeping it for a loop: in
        // a per-key update the check is lost in the compare-and-swaps (one
        // check per key or three measured alike).
        let access = Access::write();
        with_sized_probe!(self.sizing, P => self.sizing.probe::<P>(hash).bits(|counter| {
            let word = counter / COUNTERS_PER_WORD;
            // Ask for the line now: the compare-and-swaps below are locked
            // instructions, which take their lines one after another, so a
            // key's counters in several lines (a Blocked key's 512 counters
            // span four) would wait for each miss in turn. Per-key inserts
            // and removes at 100M keys measured faster with it (`cargo bench
            // --bench throughput -- counting/100M/u64/insert-then-remove/1t`).
            self.counters.prefetch(word as usize, access);
            let lane = 1 << (4 * (counter % COUNTERS_PER_WORD));
            match words[..len].iter().position(|&seen| seen == word) {
                Some(i) => lanes[i] |= lane,
                None => {
                    words[len] = word;
                    lanes[len] = lane;
                    len += 1;
                }
            }
        }));
        for (&word, &lanes) in words[..len].iter().zip(&lanes[..len]) {
            f(word as usize, lanes);
        }
    }
}

impl<S> AtomicCountingBloom<S> {
    /// Sets every counter to zero, word by word: keys inserted before the
    /// call began are gone when it returns, keys inserted after it returns
    /// are kept, and an insert or remove racing it may be kept in part.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("apple");
    /// f.clear();
    /// assert!(!f.contains("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn clear(&self) {
        self.counters.clear();
    }

    /// Adds `other`'s counts to this filter's, counter by counter, each sum
    /// saturating at 15: afterwards it holds every key either held, as many
    /// times as the two together, as if `other`'s inserts had been made
    /// here too (the filters of a partitioned build merge into the filter
    /// of the whole; `tests/counting.rs`:
    /// `a_merge_is_the_filter_of_both_inserts`). Each of `other`'s words is
    /// read once; an update of `other` racing the call may come across in
    /// part. Racing updates of this filter keep their counts (memory
    /// ordering, C5).
    ///
    /// # Errors
    ///
    /// [`IncompatibleError`] unless both filters have the same layout,
    /// counters, `k` and hasher.
    ///
    /// ```
    /// let a = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// let b = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// a.insert("x");
    /// b.insert("x");
    /// b.insert("y");
    /// a.merge(&b)?;
    /// assert_eq!((a.count_of("x"), a.count_of("y")), (2, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge(&self, other: &Self) -> Result<(), IncompatibleError> {
        self.check_compatible(other)?;
        let words = 0..self.counters.num_words();
        self.counters.merge(&other.counters, words);
        Ok(())
    }

    /// Whether `other` maps keys to the same counters, or why not.
    pub(crate) fn check_compatible(&self, other: &Self) -> Result<(), IncompatibleError> {
        check_compatible(
            (self.sizing, self.fingerprint),
            (other.sizing, other.fingerprint),
        )
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
        self.counters
            .words()
            .map(|w| u64::from(saturated_lanes(w).count_ones()))
            .sum()
    }

    /// The plain-filter words of the counters: bit `i` set iff counter `i`
    /// is above zero.
    fn bit_words(&self) -> impl Iterator<Item = u64> + '_ {
        let mut words = self.counters.words();
        (0..self.sizing.num_bits() / 64).map(move |_| {
            (0..4).fold(0u64, |bits, quarter| {
                let nonzero = !zero_lanes(words.next().unwrap_or(0));
                (0..16).fold(bits, |bits, lane| {
                    bits | ((nonzero >> (4 * lane)) & 1) << (16 * quarter + lane)
                })
            })
        })
    }

    /// Estimated number of distinct keys present, from the number of
    /// counters above zero, as [`AtomicBloom::estimated_len`] estimates it
    /// from set bits; `None` once every counter is above zero.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(10_000, 0.01)?;
    /// for i in 0..5_000u64 { f.insert(&i); }
    /// for i in 0..1_000u64 { f.remove(&i); }
    /// let n = f.estimated_len().unwrap();
    /// assert!((3_900..4_100).contains(&n), "{n}");
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_len(&self) -> Option<u64> {
        estimate_len(&self.sizing, self.nonzero_counters())
    }

    /// How many counters are above zero: the bits the plain filter of the
    /// same keys would have set ([`AtomicBloom::count_ones`]).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::with_counters(1024, 3)?;
    /// f.insert("a");
    /// f.insert("a");
    /// assert!((1..=3).contains(&f.nonzero_counters()));
    /// assert_eq!(f.nonzero_counters(), f.to_bloom()?.count_ones());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn nonzero_counters(&self) -> u64 {
        self.counters
            .words()
            .map(|w| u64::from((!zero_lanes(w) & ALL_LANES).count_ones()))
            .sum()
    }

    /// Whether every counter is zero: nothing was inserted since the filter
    /// was made or last cleared, or every key inserted was removed again (a
    /// saturated counter never goes back down). A scan that stops at the
    /// first counter above zero, seeing every update made before the call
    /// began; one racing it may or may not be seen.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// assert!(f.is_empty());
    /// f.insert("a");
    /// assert!(!f.is_empty());
    /// f.remove("a");
    /// assert!(f.is_empty());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.counters.words().all(|word| word == 0)
    }

    /// The false-positive rate as the counters stand now, as
    /// [`AtomicBloom::estimated_false_positive_rate`] computes it from set
    /// bits (a counter above zero is a set bit).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(10_000, 0.01)?;
    /// for i in 0..10_000u64 { f.insert(&i); }
    /// let p = f.estimated_false_positive_rate();
    /// assert!((0.008..0.0105).contains(&p), "{p}");
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_false_positive_rate(&self) -> f64 {
        rate_of_words(&self.sizing, self.bit_words())
    }

    /// Counters in the array (`m`): one per bit of the plain filter.
    pub fn num_counters(&self) -> u64 {
        self.sizing.num_bits()
    }

    /// Counters per key (`k`).
    pub fn num_hashes(&self) -> u32 {
        self.sizing.num_hashes()
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.sizing.layout()
    }

    /// The sizing: the plain filter's, a counter for each of its bits.
    pub fn sizing(&self) -> Sizing {
        self.sizing
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of memory the counters take: four bits each, rounded up to
    /// whole cache lines.
    pub fn memory_bytes(&self) -> usize {
        self.counters.memory_bytes()
    }
}

impl<S: BuildHasher + Clone> AtomicCountingBloom<S> {
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
        let num_words = self.counters.num_words() / 4;
        let mut bits = BitArray::zeroed(num_words).ok_or(BuildError::AllocationFailed {
            bytes: self.sizing.num_bits() / 8,
        })?;
        bits.fill(0, self.bit_words());
        Ok(AtomicBloom::from_parts(
            bits,
            self.sizing,
            self.hasher.clone(),
        ))
    }
}

impl<S: Clone> AtomicCountingBloom<S> {
    /// A copy of the filter, or an error if the allocator refuses. The copy
    /// holds every key inserted (and not removed) before the call began; an
    /// insert or remove racing the call may be copied in part.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert("a");
    /// let copy = f.try_clone()?;
    /// f.remove("a");
    /// assert!(copy.contains("a"));
    /// assert!(!f.contains("a"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn try_clone(&self) -> Result<Self, BuildError> {
        Ok(AtomicCountingBloom {
            counters: self
                .counters
                .snapshot()
                .ok_or(BuildError::AllocationFailed {
                    bytes: self.memory_bytes() as u64,
                })?,
            sizing: self.sizing,
            hasher: self.hasher.clone(),
            fingerprint: self.fingerprint,
        })
    }
}

/// A snapshot copy, as [`try_clone`](AtomicCountingBloom::try_clone);
/// panics if the allocator refuses (like `Vec::clone`).
///
/// ```
/// let f = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
/// f.insert("a");
/// assert_eq!(f.clone(), f);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<S: Clone> Clone for AtomicCountingBloom<S> {
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(copy) => copy,
            Err(e) => panic!("cloning AtomicCountingBloom: {e}"),
        }
    }
}

/// What the file format (`persist/`) needs to see of a counting filter.
impl<S> AtomicCountingBloom<S> {
    pub(crate) fn counter_array(&self) -> &CounterArray {
        &self.counters
    }
}

/// Equal when the parameters, the hashers (by fingerprint) and every
/// counter are equal. Meant for filters no thread is changing: each
/// counter word is read once.
///
/// ```
/// let a = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
/// let b = atomic_bloom::AtomicCountingBloom::new(100, 0.01)?;
/// a.insert("x");
/// assert_ne!(a, b);
/// b.insert("x");
/// assert_eq!(a, b);
/// b.insert("x"); // counted twice in b
/// assert_ne!(a, b);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<S> PartialEq for AtomicCountingBloom<S> {
    fn eq(&self, other: &Self) -> bool {
        self.sizing == other.sizing
            && self.fingerprint == other.fingerprint
            && self.counters.words().eq(other.counters.words())
    }
}

impl<S> fmt::Debug for AtomicCountingBloom<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicCountingBloom")
            .field("layout", &self.layout())
            .field("num_counters", &self.num_counters())
            .field("num_hashes", &self.num_hashes())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// For every layout, and for `k` on both sides of the 16 that
    /// `for_each_word` keeps room for on the stack: an insert adds one to
    /// each counter the key maps to, once however many of its probes share
    /// it, reaching each word once with the lanes of its counters there;
    /// a remove takes them back.
    #[test]
    fn an_insert_counts_each_of_the_keys_counters_once() {
        for layout in Layout::ALL {
            for k in [1, 5, 7, 16, 17, 40, MAX_HASHES] {
                // Few counters, so that probes share counters and words.
                let sizing = Sizing::for_bits(layout, 1024, k).unwrap();
                let f = AtomicCountingBloom::with_sizing(sizing, WyBuildHasher::default()).unwrap();
                for key in 0..50u32 {
                    let case = format!("{layout}, k = {k}, key {key}");
                    let hash = f.hasher().hash_one(key);
                    let mut counters = BTreeSet::new();
                    with_sized_probe!(f.sizing, P => f.sizing.probe::<P>(hash).bits(|c| {
                        counters.insert(c);
                    }));
                    let mut expected = BTreeMap::new();
                    for &c in &counters {
                        *expected.entry(c / COUNTERS_PER_WORD).or_insert(0) |=
                            1u64 << (4 * (c % COUNTERS_PER_WORD));
                    }
                    let mut reached = Vec::new();
                    f.for_each_word(hash, |word, lanes| reached.push((word as u64, lanes)));
                    reached.sort_unstable();
                    assert!(reached.iter().copied().eq(expected.clone()), "{case}");

                    assert!(f.insert_hash(hash), "{case}");
                    let words: Vec<u64> = f.counters.words().collect();
                    for (word, &value) in (0u64..).zip(&words) {
                        // Each of the key's counters at 1, every other at 0.
                        let lanes = expected.get(&word).copied().unwrap_or(0);
                        assert_eq!(value, lanes, "{case}: word {word}");
                    }
                    assert!(f.remove_hash(hash), "{case}");
                    assert!(f.counters.words().all(|w| w == 0), "{case}");
                }
            }
        }
    }
}
