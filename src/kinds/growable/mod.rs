//! # The growable filter
//!
//! [`AtomicGrowableBloom`]: a chain of [`AtomicBloom`]s that grows as keys
//! arrive (the [growable](crate::docs::growable) chapter has the design,
//! the rate bound and the limits; `chain.rs` the lock-free chain,
//! `bulk.rs` the batches).

mod bulk;
mod chain;

use crate::error::{BuildError, GrowthError};
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::key::Key;
use crate::kinds::bloom::AtomicBloom;
use crate::kinds::counted::{Counted, ExactCount};
use crate::layout::{Layout, Placement};
use crate::sizing::{MAX_BITS, Sizing, hash_floor};
use crate::storage::bit_array::BitArray;
use chain::{Chain, Growth, Node};
use std::fmt;
use std::hash::BuildHasher;

/// The most sub-filters a growable filter may have.
pub const MAX_SUB_FILTERS: u32 = 64;

/// The default growth factor `s`: each sub-filter holds twice the keys of
/// the one before, as in RedisBloom.
pub const DEFAULT_GROWTH_FACTOR: f64 = 2.0;

/// The default tightening ratio `r`: each sub-filter's rate is 0.9 times
/// the one before's, as in python-bloomfilter's `ScalableBloomFilter`.
/// RedisBloom's 0.5 halves each rate, so every sub-filter costs about 1.44
/// bits per key more than the one before, which dominates the memory once
/// there are many (`cargo run --release --example growable_memory`
/// compares them). A smaller ratio still pays where few sub-filters are
/// expected.
pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.9;

/// A sub-filter is sized for `1/OVERFILL_SHARE` more keys than its
/// capacity: the room inserts racing its growth may take before the
/// racing threads stop waiting for the grower and add its successor
/// themselves (the [growable](crate::docs::growable) chapter).
const OVERFILL_SHARE: u64 = 32;

/// The keys a sub-filter of `capacity` is sized for, and past which
/// inserts no longer wait for its successor: `capacity` and
/// `ceil(capacity / 32)` more.
fn fill_limit(capacity: u64) -> u64 {
    capacity.saturating_add(capacity.div_ceil(OVERFILL_SHARE))
}

/// A Bloom filter that grows as keys arrive, shared by many threads
/// without a lock: Almeida et al.'s scalable Bloom filter over
/// [`AtomicBloom`]s. Its false-positive rate stays below the target however
/// many keys arrive; see the [growable](crate::docs::growable) chapter for how it grows.
///
/// ```
/// use atomic_bloom::AtomicGrowableBloom;
///
/// // A stream deduplicator that does not know how many keys will come.
/// let seen = AtomicGrowableBloom::new(1_000, 0.01)?;
/// std::thread::scope(|s| {
///     for worker in 0..4u64 {
///         let seen = &seen;
///         s.spawn(move || {
///             for i in 0..10_000u64 {
///                 seen.insert(&(worker * 10_000 + i)).expect("no limit was set");
///             }
///         });
///     }
/// });
/// assert!((0..40_000u64).all(|i| seen.contains(&i)));
/// assert!(seen.sub_filters() >= 5);
/// assert!(seen.false_positive_rate_bound() < 0.01);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
pub struct AtomicGrowableBloom<S = WyBuildHasher> {
    chain: Chain<SubFilter<S>>,
    hasher: S,
    config: Config,
}

/// One link of the chain: a filter and how many new keys it took, counted
/// exactly (`kinds/counted.rs` says why).
pub(crate) struct SubFilter<S> {
    counted: Counted<S, ExactCount>,
    /// New keys after which it grows.
    capacity: u64,
}

/// What the builder fixes: everything that decides a sub-filter's sizing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Config {
    pub(crate) initial_capacity: u64,
    pub(crate) false_positive_rate: f64,
    pub(crate) growth_factor: f64,
    pub(crate) tightening_ratio: f64,
    /// The sub-filters' placement: their layout's today, or the one a
    /// loaded file's sub-filters have.
    pub(crate) placement: Placement,
    pub(crate) max_sub_filters: u32,
    /// Bytes the sub-filters may take in all; `u64::MAX` for no limit.
    pub(crate) memory_limit: u64,
}

/// A snapshot of one sub-filter, from
/// [`AtomicGrowableBloom::sub_filter_stats`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SubFilterStats {
    /// New keys after which it grows: `ceil(n0 · s^i)`.
    pub capacity: u64,
    /// New keys it is sized for: `capacity` and 1/32 more, the room for
    /// inserts that race its growth.
    pub fill_limit: u64,
    /// Inserts it reported new: more than `capacity` if inserts raced its
    /// growth; more than `fill_limit` only by inserts that had checked the
    /// count before it reached the limit, one per thread.
    pub inserted: u64,
    /// Its target rate at `fill_limit`: `p · (1 - r) · r^i`.
    pub false_positive_rate: f64,
    /// Its bits, hashes and layout.
    pub sizing: Sizing,
}

/// Configures and builds an [`AtomicGrowableBloom`] (from
/// [`AtomicGrowableBloom::builder`]).
///
/// ```
/// use atomic_bloom::{AtomicGrowableBloom, Layout};
/// let f = AtomicGrowableBloom::builder().capacity(10_000, 0.001)
///     .growth_factor(4.0)
///     .tightening_ratio(0.8)
///     .layout(Layout::Standard)
///     .seed(7)
///     .memory_limit(1 << 30)
///     .build()?;
/// assert_eq!(f.sub_filters(), 1);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct GrowableBuilder<S = WyBuildHasher> {
    /// The first sub-filter's keys and the rate over all: required.
    capacity: Option<(usize, f64)>,
    growth_factor: f64,
    tightening_ratio: f64,
    layout: Layout,
    max_sub_filters: Option<u32>,
    memory_limit: Option<u64>,
    hasher: S,
}

impl GrowableBuilder {
    /// Hash with the default hasher started from `seed` (default 0).
    pub fn seed(self, seed: u64) -> Self {
        self.hasher(WyBuildHasher::with_seed(seed))
    }
}

impl<S> GrowableBuilder<S> {
    /// Size the first sub-filter for `initial_capacity` keys, and every
    /// sub-filter so that the whole chain's false-positive rate stays below
    /// `false_positive_rate` however many keys arrive. Required, as every
    /// kind's builder requires a size.
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, BuildError};
    /// let f = AtomicGrowableBloom::builder().capacity(1_000, 0.01).build()?;
    /// assert_eq!(f.initial_capacity(), 1_000);
    /// let err = AtomicGrowableBloom::builder().build().unwrap_err();
    /// assert_eq!(err, BuildError::MissingSize);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn capacity(mut self, initial_capacity: usize, false_positive_rate: f64) -> Self {
        self.capacity = Some((initial_capacity, false_positive_rate));
        self
    }

    /// Each sub-filter holds `factor` times the keys of the one before;
    /// finite and above 1, default [`DEFAULT_GROWTH_FACTOR`]. A larger
    /// factor means fewer sub-filters to probe and more memory reserved
    /// ahead of the keys.
    pub fn growth_factor(mut self, factor: f64) -> Self {
        self.growth_factor = factor;
        self
    }

    /// Each sub-filter's rate is `ratio` times the one before's; strictly
    /// between 0 and 1, default [`DEFAULT_TIGHTENING_RATIO`]. A smaller
    /// ratio leaves more of the target rate to the first sub-filters and
    /// costs the later ones more bits per key.
    pub fn tightening_ratio(mut self, ratio: f64) -> Self {
        self.tightening_ratio = ratio;
        self
    }

    /// The sub-filters' layout; default [`Layout::Blocked`].
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// At most this many sub-filters, between 1 (a filter that never grows,
    /// RedisBloom's `NONSCALING`) and the deepest the parameters allow (at
    /// most [`MAX_SUB_FILTERS`], the default).
    pub fn max_sub_filters(mut self, max: u32) -> Self {
        self.max_sub_filters = Some(max);
        self
    }

    /// At most `bytes` of sub-filters in all: an insert that would need a
    /// sub-filter past it returns [`GrowthError::MemoryLimit`]. No limit by
    /// default.
    pub fn memory_limit(mut self, bytes: u64) -> Self {
        self.memory_limit = Some(bytes);
        self
    }

    /// Hash keys with `hasher` (see [`Builder::hasher`](crate::Builder::hasher)).
    pub fn hasher<T>(self, hasher: T) -> GrowableBuilder<T> {
        GrowableBuilder {
            capacity: self.capacity,
            growth_factor: self.growth_factor,
            tightening_ratio: self.tightening_ratio,
            layout: self.layout,
            max_sub_filters: self.max_sub_filters,
            memory_limit: self.memory_limit,
            hasher,
        }
    }
}

impl<S> GrowableBuilder<S> {
    /// The parameters, validated.
    pub(crate) fn config(&self) -> Result<Config, BuildError> {
        let (initial_capacity, p) = self.capacity.ok_or(BuildError::MissingSize)?;
        crate::sizing::check_rate(p)?;
        if initial_capacity == 0 {
            return Err(BuildError::ZeroInitialCapacity);
        }
        let s = self.growth_factor;
        if !(s > 1.0 && s.is_finite()) {
            return Err(BuildError::InvalidGrowthFactor(s));
        }
        let r = self.tightening_ratio;
        if !(r > 0.0 && r < 1.0) {
            return Err(BuildError::InvalidTighteningRatio(r));
        }
        let mut config = Config {
            initial_capacity: initial_capacity as u64,
            false_positive_rate: p,
            growth_factor: s,
            tightening_ratio: r,
            placement: self.layout.placement(),
            max_sub_filters: MAX_SUB_FILTERS,
            memory_limit: self.memory_limit.unwrap_or(u64::MAX),
        };
        let deepest = config.deepest();
        config.max_sub_filters = match self.max_sub_filters {
            None => deepest,
            Some(max) if (1..=deepest).contains(&max) => max,
            Some(max) => {
                return Err(BuildError::InvalidMaxSubFilters {
                    got: max,
                    max: deepest,
                });
            }
        };
        Ok(config)
    }
}

impl<S: BuildHasher + Clone> GrowableBuilder<S> {
    /// Validates the parameters and allocates the first sub-filter.
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, BuildError};
    /// let err = AtomicGrowableBloom::builder().capacity(1000, 0.01).growth_factor(1.0).build().unwrap_err();
    /// assert_eq!(err, BuildError::InvalidGrowthFactor(1.0));
    /// let err = AtomicGrowableBloom::builder().capacity(1000, 0.01).tightening_ratio(1.0).build().unwrap_err();
    /// assert_eq!(err, BuildError::InvalidTighteningRatio(1.0));
    /// ```
    pub fn build(self) -> Result<AtomicGrowableBloom<S>, BuildError> {
        let config = self.config()?;
        let sizing = config.sizing(0)?;
        let needed = array_bytes(&sizing);
        if needed > config.memory_limit {
            return Err(BuildError::MemoryLimitTooSmall {
                needed,
                limit: config.memory_limit,
            });
        }
        let first = AtomicBloom::with_sizing(sizing, self.hasher.clone())?;
        let first = SubFilter::from_parts(first, config.initial_capacity, 0);
        Ok(AtomicGrowableBloom {
            chain: Chain::new(first),
            hasher: self.hasher,
            config,
        })
    }
}

/// Bytes a sub-filter of `sizing` takes: what [`AtomicBloom::memory_bytes`]
/// reports once it exists.
fn array_bytes(sizing: &Sizing) -> u64 {
    let words = usize::try_from(sizing.num_bits() / 64).unwrap_or(usize::MAX);
    BitArray::bytes_for(words) as u64
}

impl Config {
    /// Sub-filter `depth`'s capacity, `ceil(n0 · s^depth)`, if it fits.
    pub(crate) fn capacity(&self, depth: u32) -> Option<u64> {
        let items = (self.initial_capacity as f64 * self.growth_factor.powi(depth as i32)).ceil();
        // Below 2^63, so that totals of a few of them stay in range; exact
        // for the default factor up to 2^53.
        (items < 2f64.powi(63)).then_some(items as u64)
    }

    /// Sub-filter `depth`'s rate, `p · (1 - r) · r^depth`.
    pub(crate) fn rate(&self, depth: u32) -> f64 {
        let r = self.tightening_ratio;
        self.false_positive_rate * (1.0 - r) * r.powi(depth as i32)
    }

    /// How many sub-filters these parameters allow: the deepest whose
    /// capacity fits and whose rate is above the hash floor of its fill
    /// limit (no sizing can go below it), at most [`MAX_SUB_FILTERS`]. At
    /// least 1: if the first cannot be sized either, building it says why.
    fn deepest(&self) -> u32 {
        (1..MAX_SUB_FILTERS)
            .find(|&depth| {
                let items = self.sized_for(depth);
                items.is_none_or(|items| self.rate(depth) <= hash_floor(items))
            })
            .unwrap_or(MAX_SUB_FILTERS)
    }

    /// The keys sub-filter `depth` is sized for, its [`fill_limit`], if
    /// the platform can count them.
    fn sized_for(&self, depth: u32) -> Option<usize> {
        let capacity = self.capacity(depth)?;
        usize::try_from(fill_limit(capacity)).ok()
    }

    /// Sub-filter `depth`'s sizing: its rate at its fill limit.
    pub(crate) fn sizing(&self, depth: u32) -> Result<Sizing, BuildError> {
        let items = self.sized_for(depth).ok_or(BuildError::TooLarge {
            requested_bits: u128::MAX,
            max_bits: MAX_BITS,
        })?;
        Sizing::for_rate(self.placement.layout(), items, self.rate(depth))
            .map(|sizing| sizing.placed_as(self.placement))
    }
}

impl<S: Clone> SubFilter<S> {
    /// A copy of its filter and count.
    fn try_clone(&self) -> Result<Self, BuildError> {
        Ok(SubFilter {
            counted: self.counted.try_clone(self.capacity)?,
            capacity: self.capacity,
        })
    }
}

impl<S> SubFilter<S> {
    pub(crate) fn from_parts(filter: AtomicBloom<S>, capacity: u64, inserted: u64) -> Self {
        SubFilter {
            counted: Counted::new(filter, inserted, capacity),
            capacity,
        }
    }

    #[inline]
    pub(crate) fn filter(&self) -> &AtomicBloom<S> {
        self.counted.filter()
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Inserts it reported new.
    pub(crate) fn inserted(&self) -> u64 {
        self.counted.new_keys()
    }

    /// Inserts into this sub-filter's filter and counts the key if new.
    #[inline]
    fn insert_hash(&self, hash: u64) -> bool {
        self.counted.insert_hash(hash)
    }

    fn memory_bytes(&self) -> u64 {
        self.filter().memory_bytes() as u64
    }
}

impl AtomicGrowableBloom {
    /// A growable [`Layout::Blocked`] filter whose first sub-filter holds
    /// `initial_capacity` keys, with a false-positive rate below
    /// `false_positive_rate` however many keys arrive, hashed with
    /// [`WyBuildHasher`] seed 0.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// for i in 0..10_000u32 {
    ///     f.insert(&i)?;
    /// }
    /// assert!(f.contains(&1234u32));
    /// assert_eq!(f.sub_filters(), 7); // 100 + 200 + ... + 6400 >= 10 000
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(initial_capacity: usize, false_positive_rate: f64) -> Result<Self, BuildError> {
        Self::builder()
            .capacity(initial_capacity, false_positive_rate)
            .build()
    }

    /// A builder: its [`capacity`](GrowableBuilder::capacity) (first
    /// sub-filter and rate) is required, the growth factor, tightening
    /// ratio, layout, hasher and limits have defaults.
    pub fn builder() -> GrowableBuilder {
        GrowableBuilder {
            capacity: None,
            growth_factor: DEFAULT_GROWTH_FACTOR,
            tightening_ratio: DEFAULT_TIGHTENING_RATIO,
            layout: Layout::default(),
            max_sub_filters: None,
            memory_limit: None,
            hasher: WyBuildHasher::default(),
        }
    }
}

impl<S: BuildHasher + Clone> AtomicGrowableBloom<S> {
    /// Inserts `key`. `Ok(true)` if no sub-filter reported it present and
    /// this call found a bit clear; `Ok(false)` if it was present (or a false
    /// positive). Racing inserts of one new key behave as
    /// [`AtomicBloom::insert`]'s do: at least one gets `true`.
    ///
    /// # Errors
    ///
    /// [`GrowthError`] if the key is new, the newest sub-filter is full and
    /// no other may be added (a limit, or the allocator refused); the key
    /// was not inserted.
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, GrowthError};
    /// let f = AtomicGrowableBloom::builder().capacity(10, 0.01).max_sub_filters(1).build()?;
    /// for i in 0..10u32 {
    ///     assert!(f.insert(&i)?);
    /// }
    /// assert!(!f.insert(&3u32)?); // present: no growth needed
    /// assert_eq!(f.insert(&10u32), Err(GrowthError::SubFilterLimit { max: 1 }));
    /// assert!(!f.contains(&10u32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn insert<T: Key + ?Sized>(&self, key: &T) -> Result<bool, GrowthError> {
        self.insert_hash(key.hash_with(&self.hasher))
    }

    /// [`insert`](Self::insert) of a key by its 64-bit hash, as
    /// [`AtomicBloom::insert_hash`].
    pub fn insert_hash(&self, hash: u64) -> Result<bool, GrowthError> {
        self.prefetch_hash(hash);
        self.insert_hash_prefetched(hash)
    }

    /// [`insert_hash`](Self::insert_hash) once the key's lines have been
    /// asked for ([`prefetch_hash`](Self::prefetch_hash)).
    pub(crate) fn insert_hash_prefetched(&self, hash: u64) -> Result<bool, GrowthError> {
        let mut newest = self.chain.newest();
        loop {
            if newest
                .older()
                .any(|n| n.value().filter().contains_hash(hash))
            {
                return Ok(false);
            }
            let sub = newest.value();
            let inserted = sub.inserted();
            if inserted >= sub.capacity {
                // A present key needs no room: answer it before growing.
                if sub.filter().contains_hash(hash) {
                    return Ok(false);
                }
                let make = |from: &Node<SubFilter<S>>| self.next_sub_filter(from);
                let growth = if inserted < fill_limit(sub.capacity) {
                    self.chain.grow(newest, make)
                } else {
                    // The claimant has let the sub-filter fill to its limit:
                    // stop waiting for it (the overfill bound).
                    self.chain.grow_unclaimed(newest, make)
                };
                match growth {
                    Growth::Grown | Growth::Lost => {
                        newest = self.chain.newest();
                        continue;
                    }
                    Growth::Failed(error) => return Err(error),
                    Growth::Taken => {
                        let now = self.chain.newest();
                        if !std::ptr::eq(now, newest) {
                            newest = now;
                            continue;
                        }
                        // Another thread is adding the next sub-filter:
                        // insert here rather than wait, up to the fill limit.
                    }
                }
            }
            return Ok(sub.insert_hash(hash));
        }
    }

    /// The sub-filter after `from`, or why there is none.
    fn next_sub_filter(&self, from: &Node<SubFilter<S>>) -> Result<SubFilter<S>, GrowthError> {
        let depth = from.depth() as u32 + 1;
        if depth >= self.config.max_sub_filters {
            return Err(GrowthError::SubFilterLimit {
                max: self.config.max_sub_filters,
            });
        }
        let grow_error = |source| GrowthError::SubFilter {
            sub_filter: depth,
            source,
        };
        // A model search: microseconds for `Standard`, up to a few hundred
        // for the blocked layouts, paid by the thread that grows (inserts
        // racing it meanwhile fill the full sub-filter up to its limit).
        let sizing = self.config.sizing(depth).map_err(grow_error)?;
        let needed = array_bytes(&sizing);
        let in_use: u64 = from.and_older().map(|n| n.value().memory_bytes()).sum();
        if in_use.saturating_add(needed) > self.config.memory_limit {
            return Err(GrowthError::MemoryLimit {
                in_use,
                needed,
                limit: self.config.memory_limit,
            });
        }
        let filter = AtomicBloom::with_sizing(sizing, self.hasher.clone()).map_err(grow_error)?;
        Ok(SubFilter::from_parts(
            filter,
            self.config.capacity(depth).unwrap_or(u64::MAX),
            0,
        ))
    }
}

impl<S: BuildHasher> AtomicGrowableBloom<S> {
    /// Whether `key` may have been inserted: `false` means certainly not
    /// (before this call began); `true`, inserted or a false positive.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert("apple")?;
    /// assert!(f.contains("apple"));
    /// assert!(!f.contains("pear"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn contains<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(key.hash_with(&self.hasher))
    }

    /// The 64-bit hash of `key`, as [`insert`](Self::insert) and
    /// [`contains`](Self::contains) compute it.
    pub fn hash<T: Key + ?Sized>(&self, key: &T) -> u64 {
        key.hash_with(&self.hasher)
    }
}

impl<S> AtomicGrowableBloom<S> {
    /// Whether a key with this 64-bit hash may have been inserted.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // Each half loads the newest pointer, as `insert_hash`'s do: a
        // version that loaded it once and passed it on ran no faster, so
        // the simpler form stays.
        self.prefetch_hash(hash);
        self.contains_hash_prefetched(hash)
    }

    /// Asks the CPU to start fetching the key's line in every sub-filter:
    /// a query of an absent key probes them all, and asked one after
    /// another each would wait for the last one's miss. For reading,
    /// inserts too: an insert cannot know yet whether the key is present,
    /// and a present key's line should stay shared (as
    /// `AtomicBloom::insert_hash` asks for its line).
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64) {
        for node in self.chain.newest().and_older() {
            node.value().filter().prefetch_hash(hash, Access::READ);
        }
    }

    /// [`contains_hash`](Self::contains_hash) once the key's lines have
    /// been asked for ([`prefetch_hash`](Self::prefetch_hash)). A batch
    /// asks for them ahead; asking again as its turn came measured slower,
    /// hits and misses alike.
    #[inline]
    pub(crate) fn contains_hash_prefetched(&self, hash: u64) -> bool {
        self.chain
            .newest()
            .and_older()
            .any(|n| n.value().filter().contains_hash(hash))
    }

    /// Removes every key and every sub-filter but the first, which is
    /// cleared. `&mut self`: see the [growable](crate::docs::growable) chapter for why.
    ///
    /// ```
    /// let mut f = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
    /// f.insert_batch(0..100u32)?;
    /// f.clear();
    /// assert_eq!((f.sub_filters(), f.estimated_len()), (1, Some(0)));
    /// assert!(!f.contains(&5u32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clear(&mut self) {
        self.chain.retain_first();
        self.chain.newest().value().counted.clear();
    }

    /// How many keys were inserted: the inserts reported new, summed over
    /// the sub-filters. It misses keys that were false positives when
    /// inserted, and counts a new key twice when two racing inserts of it
    /// both reported it new (a rare race; see [`insert`](Self::insert)).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert_batch(0..1000u32)?;
    /// assert!((990..=1000).contains(&f.estimated_len().unwrap()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// An `Option`, as the fixed-size filters' estimate is, which is `None`
    /// once every bit is set; a growable filter counts rather than
    /// estimates, so it always has a number.
    pub fn estimated_len(&self) -> Option<u64> {
        Some(self.inserted())
    }

    /// The keys the sub-filters counted as new, summed.
    pub(crate) fn inserted(&self) -> u64 {
        self.chain
            .iter()
            .fold(0, |sum: u64, n| sum.saturating_add(n.value().inserted()))
    }

    /// Whether no bit of any sub-filter is set: no key was inserted since
    /// the filter was made or last cleared. Each sub-filter is scanned as
    /// [`AtomicBloom::is_empty`] scans, newest first, stopping at the first
    /// set bit.
    ///
    /// ```
    /// let mut f = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
    /// assert!(f.is_empty());
    /// f.insert_batch(0..100u32)?;
    /// assert!(!f.is_empty());
    /// f.clear();
    /// assert!(f.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.chain.iter().all(|n| n.value().filter().is_empty())
    }

    /// The chain's false-positive rate bound at its current counts: the
    /// sum over sub-filters of the layout's model rate at the keys each
    /// took. At most the target while no sub-filter overfilled; an
    /// overfilled sub-filter (inserts racing its growth, or a limit
    /// reached) counts at its actual fill. Costs a model evaluation per
    /// sub-filter (microseconds each for `Standard`, up to a few hundred
    /// for the blocked layouts).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert_batch(0..100_000u32)?;
    /// assert!(f.false_positive_rate_bound() < 0.01);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn false_positive_rate_bound(&self) -> f64 {
        let rates = self.chain.iter().map(|n| {
            let sub = n.value();
            let items = usize::try_from(sub.inserted()).unwrap_or(usize::MAX);
            sub.filter().sizing().false_positive_rate(items)
        });
        rates.sum::<f64>().min(1.0)
    }

    /// The rate the filter shows now, from the bits each sub-filter has set:
    /// a key absent from all of them is a false positive of any one, so
    /// `1 - Π(1 - p_i)` over their estimated rates.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// assert_eq!(f.estimated_false_positive_rate(), 0.0);
    /// f.insert_batch(0..100_000u32)?;
    /// assert!(f.estimated_false_positive_rate() < 0.01);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn estimated_false_positive_rate(&self) -> f64 {
        let misses: f64 = self
            .chain
            .iter()
            .map(|n| 1.0 - n.value().filter().estimated_false_positive_rate())
            .product();
        1.0 - misses
    }

    /// The target rate the filter was built for: the
    /// [bound](Self::false_positive_rate_bound) holds below it.
    pub fn target_false_positive_rate(&self) -> f64 {
        self.config.false_positive_rate
    }

    /// The first sub-filter's capacity, `n0`.
    pub fn initial_capacity(&self) -> u64 {
        self.config.initial_capacity
    }

    /// The growth factor `s`.
    pub fn growth_factor(&self) -> f64 {
        self.config.growth_factor
    }

    /// The tightening ratio `r`.
    pub fn tightening_ratio(&self) -> f64 {
        self.config.tightening_ratio
    }

    /// The sub-filters' layout.
    pub fn layout(&self) -> Layout {
        self.config.placement.layout()
    }

    /// The most sub-filters the filter may have.
    pub fn max_sub_filters(&self) -> u32 {
        self.config.max_sub_filters
    }

    /// Sets the memory limit (`None`: no limit), as
    /// [`GrowableBuilder::memory_limit`] does: an insert that would need a
    /// sub-filter past it returns [`GrowthError::MemoryLimit`]. For a
    /// filter read from a file, whose recorded limit (or lack of one) comes
    /// from whoever wrote it: set yours before inserting. Sub-filters that
    /// exist already are kept, whatever they take.
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, GrowthError};
    /// let saved = AtomicGrowableBloom::new(1_000, 0.01)?.to_bytes()?;
    /// let mut f = AtomicGrowableBloom::from_bytes(&saved)?;
    /// f.set_memory_limit(Some(f.memory_bytes()));
    /// let err = f.insert_batch(0..2_000u32).unwrap_err();
    /// assert!(matches!(err, GrowthError::MemoryLimit { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_memory_limit(&mut self, bytes: Option<u64>) {
        self.config.memory_limit = bytes.unwrap_or(u64::MAX);
    }

    /// The memory limit, if one was set.
    pub fn memory_limit(&self) -> Option<u64> {
        (self.config.memory_limit != u64::MAX).then_some(self.config.memory_limit)
    }

    /// How many sub-filters there are now.
    pub fn sub_filters(&self) -> usize {
        self.chain.len()
    }

    /// Each sub-filter's parameters and count, oldest first.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert_batch(0..250u32)?;
    /// let stats = f.sub_filter_stats();
    /// assert_eq!(stats.iter().map(|s| s.capacity).collect::<Vec<_>>(), [100, 200]);
    /// assert_eq!(stats[1].false_positive_rate, 0.01 * (1.0 - 0.9) * 0.9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sub_filter_stats(&self) -> Vec<SubFilterStats> {
        let mut stats: Vec<_> = self
            .chain
            .iter()
            .map(|n| {
                let sub = n.value();
                SubFilterStats {
                    capacity: sub.capacity,
                    fill_limit: fill_limit(sub.capacity),
                    inserted: sub.inserted(),
                    false_positive_rate: self.config.rate(n.depth() as u32),
                    sizing: sub.filter().sizing(),
                }
            })
            .collect();
        stats.reverse();
        stats
    }

    /// Bytes of the sub-filters' bits.
    pub fn memory_bytes(&self) -> u64 {
        self.chain.iter().map(|n| n.value().memory_bytes()).sum()
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The sub-filters, oldest first (for the file format).
    pub(crate) fn sub_filters_oldest_first(&self) -> Vec<&SubFilter<S>> {
        let mut subs: Vec<_> = self.chain.iter().map(|n| n.value()).collect();
        subs.reverse();
        subs
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// A filter of `config` holding `subs`, oldest first (a file read back);
    /// `None` if `subs` is empty.
    pub(crate) fn from_parts(config: Config, subs: Vec<SubFilter<S>>, hasher: S) -> Option<Self> {
        let mut subs = subs.into_iter();
        let first = subs.next()?;
        Some(AtomicGrowableBloom {
            chain: Chain::from_values(first, subs),
            hasher,
            config,
        })
    }
}

/// Equal when the parameters are equal and so is every sub-filter: its
/// bits, hasher, capacity and count (compared one after another, so
/// meaningful only when neither filter is being written).
///
/// ```
/// let a = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
/// let b = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
/// assert_eq!(a, b);
/// a.insert("x")?;
/// assert_ne!(a, b);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<S> PartialEq for AtomicGrowableBloom<S> {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
            && self.sub_filters() == other.sub_filters()
            && self.chain.iter().zip(other.chain.iter()).all(|(a, b)| {
                let (a, b) = (a.value(), b.value());
                a.capacity == b.capacity && a.inserted() == b.inserted() && a.filter() == b.filter()
            })
    }
}

impl<S: Clone> AtomicGrowableBloom<S> {
    /// A copy of the filter, or an error if the allocator refuses: the
    /// sub-filters, their counts and the configuration (its memory limit
    /// applies to the copy alone). The copy holds every key inserted before
    /// the call began; an insert racing the call may be copied in part, and
    /// a sub-filter added during it may be left out with its keys.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
    /// f.insert_batch(0..100u32)?;
    /// let copy = f.try_clone()?;
    /// f.insert(&100u32)?;
    /// assert_eq!(copy.sub_filters(), f.sub_filters());
    /// assert!((0..100u32).all(|i| copy.contains(&i)));
    /// assert!(!copy.contains(&100u32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_clone(&self) -> Result<Self, BuildError> {
        let subs = self.sub_filters_oldest_first().into_iter();
        let subs = subs.map(SubFilter::try_clone).collect::<Result<_, _>>()?;
        Ok(Self::from_parts(self.config, subs, self.hasher.clone())
            .expect("a chain holds at least its first sub-filter"))
    }
}

/// A snapshot copy, as [`try_clone`](AtomicGrowableBloom::try_clone);
/// panics if the allocator refuses (like `Vec::clone`).
///
/// ```
/// let f = atomic_bloom::AtomicGrowableBloom::new(10, 0.01)?;
/// f.insert_batch(0..100u32)?;
/// assert_eq!(f.clone(), f);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<S: Clone> Clone for AtomicGrowableBloom<S> {
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(copy) => copy,
            Err(e) => panic!("cloning AtomicGrowableBloom: {e}"),
        }
    }
}

/// Shows the parameters and the sub-filters' count, not the bits.
impl<S> fmt::Debug for AtomicGrowableBloom<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicGrowableBloom")
            .field("false_positive_rate", &self.config.false_positive_rate)
            .field("initial_capacity", &self.config.initial_capacity)
            .field("growth_factor", &self.config.growth_factor)
            .field("tightening_ratio", &self.config.tightening_ratio)
            .field("layout", &self.config.placement.layout())
            .field("sub_filters", &self.sub_filters())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}
