//! # The filter, written once
//!
//! [`Filter`] is every filter of fixed size: its cells (bits or counters,
//! `cells.rs`) plus what maps a key to them (layout, `k`, hasher). Every
//! operation takes `&self`; share a filter between threads by reference
//! (scoped threads), `Arc`, or a `static`. The plain filter,
//! [`AtomicBloom`](crate::AtomicBloom), is `Filter<BitArray>`; the counting
//! filter, [`AtomicCountingBloom`](crate::AtomicCountingBloom), is
//! `Filter<CounterArray>`. What only one of them does is in its own file
//! under `kinds/`.

use crate::core::cells::{Cells, Storage};
use crate::error::{BuildError, IncompatibleError};
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::key::Key;
use crate::layout::{Layout, with_probe, with_sized_probe};
use crate::sizing::Sizing;
use std::fmt;
use std::hash::BuildHasher;

/// Hashed by every filter's hasher when it is built; two filters whose
/// hashers give different values here hash keys differently.
pub(crate) const FINGERPRINT_KEY: &str = "atomic-bloom hasher fingerprint";

/// The false-positive rate [`FromIterator`] sizes for.
///
/// ```
/// use atomic_bloom::{AtomicBloom, DEFAULT_FALSE_POSITIVE_RATE};
/// let f: AtomicBloom = (0..100u8).collect();
/// assert!(f.sizing().false_positive_rate(100) <= DEFAULT_FALSE_POSITIVE_RATE);
/// ```
pub const DEFAULT_FALSE_POSITIVE_RATE: f64 = 0.01;

/// A Bloom filter of fixed size that any number of threads insert into and
/// query at once, without a lock: the plain filter
/// [`AtomicBloom`](crate::AtomicBloom) (`C` = [`BitArray`](crate::BitArray))
/// and the counting filter [`AtomicCountingBloom`](crate::AtomicCountingBloom)
/// (`C` = [`CounterArray`](crate::CounterArray)). Use those names; the
/// methods here are theirs, the same on both, and each kind adds its own
/// (the crate docs have the table).
///
/// A key that was inserted is always reported present once its insert
/// happened-before the query (no false negatives); a key never inserted is
/// reported present with about the false-positive rate the filter was
/// sized for. See [`docs::layouts`](crate::docs::layouts) for choosing a
/// layout and [`docs::memory_ordering`](crate::docs::memory_ordering) for
/// the concurrency contract.
pub struct Filter<C, S = WyBuildHasher> {
    cells: C,
    sizing: Sizing,
    hasher: S,
    /// `hasher.hash_one(FINGERPRINT_KEY)`, compared by `is_compatible`.
    fingerprint: u64,
}

impl<C: Cells, S: BuildHasher> Filter<C, S> {
    /// A filter of the given size hashing with `hasher`.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout, Sizing, WyBuildHasher};
    /// let sizing = Sizing::for_rate(Layout::Word, 1000, 0.01)?;
    /// let f = AtomicBloom::with_sizing(sizing, WyBuildHasher::with_seed(1))?;
    /// assert_eq!(f.sizing(), sizing);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn with_sizing(sizing: Sizing, hasher: S) -> Result<Self, BuildError> {
        Ok(Self::from_parts(C::zeroed(&sizing)?, sizing, hasher))
    }

    /// A filter over `cells`, which must be `sizing`'s.
    pub(crate) fn from_parts(cells: C, sizing: Sizing, hasher: S) -> Self {
        Filter {
            cells,
            sizing,
            fingerprint: hasher.hash_one(FINGERPRINT_KEY),
            hasher,
        }
    }

    /// Inserts `key`; returns `true` if this call found one of the key's
    /// bits clear (and set them all), `false` if all were already set (it was
    /// present or a false positive). A string or byte string is hashed by
    /// the crate's [byte encoding](crate::docs::keys), an integer by its
    /// own; any other type through [`Hashed`](crate::Hashed).
    ///
    /// On one thread, `insert(x)` returns `!contains(x)` as it was just
    /// before. When threads race to insert the same key that was absent:
    /// with [`Layout::Word`] exactly one of them gets `true` (one `fetch_or`
    /// sets all bits, an atomic test-and-set); with the other layouts
    /// at least one gets `true`, and several may, since each can find a bit
    /// clear before the others have set it.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// assert!(f.insert("apple"));
    /// assert!(!f.insert("apple"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    #[inline]
    pub fn insert<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(key.hash_with(&self.hasher))
    }

    /// Whether `key` may have been inserted: `false` means it certainly was
    /// not (before this call began); `true` means it was, or is a false
    /// positive.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// f.insert(b"bytes".as_slice());
    /// assert!(f.contains(b"bytes".as_slice()));
    /// assert!(!f.contains(b"other".as_slice()));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    #[inline]
    pub fn contains<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(key.hash_with(&self.hasher))
    }

    /// The hash [`insert`](Self::insert) and [`contains`](Self::contains)
    /// compute for `key`, for use with [`insert_hash`](Self::insert_hash).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// f.insert_hash(f.hash("k"));
    /// assert!(f.contains("k"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    #[inline]
    pub fn hash<T: Key + ?Sized>(&self, key: &T) -> u64 {
        key.hash_with(&self.hasher)
    }
}

/// Runs `$body` with `$P` the probe type of a per-key call of cells `$C`
/// in a filter of sizing `$sizing`: the one place a per-key call picks it,
/// by layout alone or by `k` too as the cells ask (`Storage::SIZED_PER_KEY`;
/// the test is of a constant, so each cell type compiles one of the two).
macro_rules! with_key_probe {
    ($C:ty, $sizing:expr, $P:ident => $body:expr) => {
        if <$C as Storage>::SIZED_PER_KEY {
            with_sized_probe!(*$sizing, $P => $body)
        } else {
            with_probe!($sizing.placement(), $P => $body)
        }
    };
}

impl<C: Cells, S> Filter<C, S> {
    /// Inserts a key by its 64-bit hash (for callers that already hold one);
    /// returns what [`insert`](Self::insert) returns. The hash should be
    /// well mixed: every bit matters.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// assert!(f.insert_hash(0x9E37_79B9_7F4A_7C15));
    /// assert!(f.contains_hash(0x9E37_79B9_7F4A_7C15));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    // Always inlined, as `contains_hash` is (which says why): out of line,
    // in-cache inserts measured slower, new keys and duplicates alike
    // (`cargo run --release -p atomic-bloom-harness -- bench`).
    #[inline(always)]
    pub fn insert_hash(&self, hash: u64) -> bool {
        let sizing = &self.sizing;
        with_key_probe!(C, sizing, P => self.cells.insert_one(sizing, &sizing.probe::<P>(hash)))
    }

    /// Whether a key with this 64-bit hash may have been inserted.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// assert!(!f.contains_hash(7));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    // Always inlined: it holds every layout's probe, and LLVM kept it out
    // of line in callers' loops, where the call and its register saves
    // are a good part of a query whose line is in cache (`cargo run
    // --release -p atomic-bloom-harness -- bench`, hits and misses at 1M).
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let sizing = &self.sizing;
        with_key_probe!(C, sizing, P => self.cells.contains(sizing, &sizing.probe::<P>(hash)))
    }

    /// Asks the CPU to start loading the lines a key with this hash
    /// touches, for `access`: a hint, changing timing only. The growable
    /// filter asks for every sub-filter's lines before probing any, so that
    /// their misses overlap.
    #[inline]
    pub(crate) fn prefetch_hash(&self, hash: u64, access: Access) {
        let sizing = &self.sizing;
        with_key_probe!(C, sizing, P => self.cells.prefetch(sizing, &sizing.probe::<P>(hash), access));
    }

    /// Removes every key. Keys inserted before the call began are gone when
    /// it returns; keys inserted after it returns are kept; a key inserted
    /// while it runs may be kept in part (some of its bits), so it may or may
    /// not be reported present afterwards. Skips words that are already zero,
    /// so clearing an empty filter touches no memory.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// f.insert("a");
    /// f.clear();
    /// assert!(!f.contains("a"));
    /// assert_eq!(f.count_ones(), 0);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn clear(&self) {
        self.cells.clear(self.all_words());
    }

    /// Every word of the cells.
    pub(crate) fn all_words(&self) -> std::ops::Range<usize> {
        0..self.cells.num_words()
    }

    /// Whether `other` maps keys to the same bits: same size, hashes, layout,
    /// and hasher (compared by hashing a fixed key, so two hashers of one
    /// type with different seeds differ).
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let a = AtomicBloom::builder().capacity(100, 0.01).seed(1).build()?;
    /// let b = AtomicBloom::builder().capacity(100, 0.01).seed(1).build()?;
    /// let c = AtomicBloom::builder().capacity(100, 0.01).seed(2).build()?;
    /// assert!(a.is_compatible(&b));
    /// assert!(!a.is_compatible(&c));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn is_compatible(&self, other: &Self) -> bool {
        self.check_compatible(other).is_ok()
    }

    pub(crate) fn check_compatible(&self, other: &Self) -> Result<(), IncompatibleError> {
        check_compatible(
            (self.sizing, self.fingerprint),
            (other.sizing, other.fingerprint),
        )
    }

    /// Adds every key of `other` to `self` (bitwise OR). Afterwards `self`
    /// contains every key that `other` held when the call began and every key
    /// inserted into `self` before or during it. `other` may be changing
    /// meanwhile; keys inserted into it during the call may or may not come
    /// across.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let a = AtomicBloom::new(100, 0.01)?;
    /// let b = AtomicBloom::new(100, 0.01)?;
    /// a.insert("a");
    /// b.insert("b");
    /// a.union(&b)?;
    /// assert!(a.contains("a") && a.contains("b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&self, other: &Self) -> Result<(), IncompatibleError> {
        self.check_compatible(other)?;
        self.cells.union(&other.cells, self.all_words());
        Ok(())
    }

    /// Whether no bit is set: no key was inserted since the filter was made
    /// or last cleared (or an intersection left nothing). A scan that stops
    /// at the first set bit; like [`words`](Self::words), it sees every key
    /// inserted before the call began, and an insert racing it may or may
    /// not be seen.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// assert!(f.is_empty());
    /// f.insert("a");
    /// assert!(!f.is_empty());
    /// f.clear();
    /// assert!(f.is_empty());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.cells.words(self.all_words()).all(|word| word == 0)
    }

    /// Estimated number of distinct keys inserted, from the number of set
    /// bits `X`; `None` once every bit is set. A key sets a given bit with
    /// probability `q = (1 - (1 - 1/B)^k) B / m` (its block of `B` bits is
    /// hit with odds `B/m`, then `k` draws in it; `B = m` for `Standard`), so
    /// `n` keys leave `E[X] = m (1 - (1 - q)^n)` bits set, and the estimate
    /// is `ln(1 - X/m) / ln(1 - q)`. For `Standard` that is Guava's
    /// `-m/k ln(1 - X/m)`; for `Word` the layout's own `q` matters, since a
    /// key's probes often collide inside one 64-bit word (`Sectorized` has
    /// two words of `k/2` draws each, and `q` is their mean over the array).
    /// Within 2% up to the
    /// filter's capacity (`tests/all/estimates.rs`); far beyond it the estimate
    /// grows coarse, and a filter whose every bit is set cannot tell how
    /// many keys it holds (every query answers "present"): `None`.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(10_000, 0.01)?;
    /// for i in 0..5_000u64 { f.insert(&i); }
    /// let n = f.estimated_len().unwrap();
    /// assert!((4_900..5_100).contains(&n), "{n}");
    ///
    /// let full = atomic_bloom::AtomicBloom::with_bits(64, 4)?;
    /// for i in 0..1_000u64 { full.insert(&i); }
    /// assert_eq!(full.estimated_len(), None);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_len(&self) -> Option<u64> {
        estimate_len(&self.sizing, self.cells.nonzero_cells(self.all_words()))
    }

    /// The false-positive rate of the filter as it is now: the probability
    /// that a key never inserted is reported present, computed exactly from
    /// the bits set (per block for `Blocked`, `Word` and `Sectorized`). A
    /// scan of the array.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(10_000, 0.01)?;
    /// assert_eq!(f.estimated_false_positive_rate(), 0.0);
    /// for i in 0..10_000u64 { f.insert(&i); }
    /// let p = f.estimated_false_positive_rate();
    /// assert!((0.008..0.0105).contains(&p), "{p}");
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_false_positive_rate(&self) -> f64 {
        rate_of_words(&self.sizing, self.cells.bit_words())
    }

    /// Bits in the array (`m`).
    ///
    /// ```
    /// assert_eq!(atomic_bloom::AtomicBloom::with_bits(4096, 3)?.num_bits(), 4096);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn num_bits(&self) -> u64 {
        self.sizing.num_bits()
    }

    /// Bits set per key (`k`).
    ///
    /// ```
    /// assert_eq!(atomic_bloom::AtomicBloom::with_bits(4096, 3)?.num_hashes(), 3);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn num_hashes(&self) -> u32 {
        self.sizing.num_hashes()
    }

    /// The layout.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout};
    /// assert_eq!(AtomicBloom::with_bits(4096, 3)?.layout(), Layout::Blocked);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.sizing.layout()
    }

    /// The layout, bits and hashes together.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(1000, 0.01)?;
    /// assert!(f.sizing().false_positive_rate(1000) <= 0.01);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn sizing(&self) -> Sizing {
        self.sizing
    }

    /// Bytes of memory the bit array occupies (whole 64-byte lines).
    ///
    /// ```
    /// assert_eq!(atomic_bloom::AtomicBloom::with_bits(1 << 23, 3)?.memory_bytes(), 1 << 20);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn memory_bytes(&self) -> usize {
        self.cells.memory_bytes()
    }

    /// The hasher.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder().bits(64, 1).seed(3).build()?;
    /// assert_eq!(f.hasher().seed(), 3);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }
}

/// Whether filters of these sizings and hasher fingerprints map keys to the
/// same cells (plain or counting), or why not.
pub(crate) fn check_compatible(
    (a, a_fingerprint): (Sizing, u64),
    (b, b_fingerprint): (Sizing, u64),
) -> Result<(), IncompatibleError> {
    // The layout first: filters of different layouts usually differ in
    // size too, and the layout is the cause to name.
    if a.layout() != b.layout() {
        Err(IncompatibleError::Layout {
            left: a.layout(),
            right: b.layout(),
        })
    } else if a.num_bits() != b.num_bits() {
        Err(IncompatibleError::NumBits {
            left: a.num_bits(),
            right: b.num_bits(),
        })
    } else if a.num_hashes() != b.num_hashes() {
        Err(IncompatibleError::NumHashes {
            left: a.num_hashes(),
            right: b.num_hashes(),
        })
    } else if a_fingerprint != b_fingerprint {
        Err(IncompatibleError::Hasher)
    } else if a.placement() != b.placement() {
        Err(IncompatibleError::Positions)
    } else {
        Ok(())
    }
}

/// What the kinds, the file format (`persist/`) and batches (`batch.rs`)
/// need to see of a filter.
impl<C, S> Filter<C, S> {
    pub(crate) fn cells(&self) -> &C {
        &self.cells
    }

    /// The cells, through `&mut self`: no other thread can see them.
    pub(crate) fn cells_mut_ref(&mut self) -> &mut C {
        &mut self.cells
    }
}

impl<C: Cells, S: Clone> Filter<C, S> {
    /// A copy of the filter, or an error if the allocator refuses. The copy
    /// holds every key inserted before the call began; a key inserted while
    /// it runs may be copied in part.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// f.insert("a");
    /// let copy = f.try_clone()?;
    /// f.insert("b");
    /// assert!(copy.contains("a"));
    /// assert!(!copy.contains("b"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn try_clone(&self) -> Result<Self, BuildError> {
        Ok(Filter {
            cells: self.cells.snapshot().ok_or(BuildError::AllocationFailed {
                bytes: self.memory_bytes() as u64,
            })?,
            sizing: self.sizing,
            hasher: self.hasher.clone(),
            fingerprint: self.fingerprint,
        })
    }
}

/// A snapshot copy, as [`try_clone`](Filter::try_clone); panics if the
/// allocator refuses (like `Vec::clone`).
///
/// ```
/// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
/// f.insert("a");
/// assert_eq!(f.clone(), f);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<C: Cells, S: Clone> Clone for Filter<C, S> {
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(copy) => copy,
            Err(e) => panic!("cloning {}: {e}", C::NAME),
        }
    }
}

/// Equal when compatible and every word is equal (compared word by word, so
/// meaningful only when neither filter is being written).
///
/// ```
/// let a = atomic_bloom::AtomicBloom::new(100, 0.01)?;
/// let b = atomic_bloom::AtomicBloom::new(100, 0.01)?;
/// assert_eq!(a, b);
/// a.insert("x");
/// assert_ne!(a, b);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<C: Cells, S> PartialEq for Filter<C, S> {
    fn eq(&self, other: &Self) -> bool {
        self.is_compatible(other)
            && (self.cells.words(self.all_words())).eq(other.cells.words(other.all_words()))
    }
}

/// Shows the parameters, not the bits.
///
/// ```
/// let f = atomic_bloom::AtomicBloom::with_bits(1024, 3)?;
/// assert!(format!("{f:?}").contains("num_bits: 1024"));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<C: Cells, S> fmt::Debug for Filter<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(C::NAME)
            .field("layout", &self.sizing.layout())
            .field("num_bits", &self.sizing.num_bits())
            .field("num_hashes", &self.sizing.num_hashes())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Inserts every key as [`insert_batch`](Filter::insert_batch) does.
///
/// ```
/// let mut f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
/// f.extend(["a", "b"]);
/// assert!(f.contains("b"));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<T: Key, C: Cells, S: BuildHasher> Extend<T> for Filter<C, S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, keys: I) {
        self.insert_batch(keys);
    }
}

/// The estimated number of distinct keys in a filter of `sizing` with
/// `ones` bits set (see [`AtomicBloom::estimated_len`]); `None` when every
/// bit is set.
pub(crate) fn estimate_len(sizing: &Sizing, ones: u64) -> Option<u64> {
    let m = sizing.num_bits() as f64;
    let per_key = sizing
        .layout()
        .expected_distinct_bits(sizing.num_hashes(), sizing.num_bits())
        / m;
    let n = (-(ones as f64) / m).ln_1p() / (-per_key).ln_1p();
    // Infinite exactly when every bit is set.
    n.is_finite().then(|| n.round() as u64)
}

/// The false-positive rate of a filter of `sizing` whose words, in order,
/// are `words` (see [`AtomicBloom::estimated_false_positive_rate`]).
pub(crate) fn rate_of_words(sizing: &Sizing, words: impl Iterator<Item = u64>) -> f64 {
    let layout = sizing.layout();
    layout.rate_of_words(sizing.num_bits(), sizing.num_hashes(), words)
}
