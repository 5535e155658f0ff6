//! # Errors
//!
//! Every constructor validates its input and returns [`BuildError`] rather
//! than panicking or allocating something absurd; set operations between two
//! filters return [`IncompatibleError`] when the filters do not hash keys to
//! the same bits. Each message says what to change.

use crate::layout::Layout;
use std::fmt;
use thiserror::Error;

/// A number (a rate, a ratio, a factor) as people write it: `0.01`,
/// `0.999`, `2`, and the invalid `0`, `1` or `-0.5` as such, but `1e-80`
/// rather than 80 digits.
struct Number(f64);

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.0.abs();
        if magnitude == 0.0 || !magnitude.is_finite() || (1e-4..1e16).contains(&magnitude) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// Why a filter could not be built.
///
/// ```
/// use atomic_bloom::{AtomicBloom, BuildError};
///
/// let err = AtomicBloom::new(1_000, 1.5).unwrap_err();
/// assert!(matches!(err, BuildError::InvalidFalsePositiveRate(_)));
/// assert!(err.to_string().contains("between 0 and 1"));
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// The false-positive rate is not strictly between 0 and 1 (or is NaN).
    #[error("false-positive rate must be strictly between 0 and 1, got {}", Number(*.0))]
    InvalidFalsePositiveRate(f64),
    /// The expected number of items is zero.
    #[error("expected number of items must be at least 1")]
    ZeroItems,
    /// The number of bits is zero.
    #[error("number of bits must be at least 1")]
    ZeroBits,
    /// The number of hashes is zero or above [`MAX_HASHES`](crate::MAX_HASHES).
    #[error("number of hashes must be between 1 and {max}, got {got}")]
    InvalidNumHashes {
        /// What was asked for.
        got: u32,
        /// The largest supported value.
        max: u32,
    },
    /// The layout fixes `k` and another was asked for:
    /// [`Layout::SplitBlock`] always sets 8 bits per key
    /// ([`Layout::fixed_num_hashes`]).
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, BuildError, Layout};
    ///
    /// let err = AtomicBloom::builder().bits(4096, 7).layout(Layout::SplitBlock).build().unwrap_err();
    /// assert_eq!(err, BuildError::NumHashesFixedByLayout { layout: Layout::SplitBlock, required: 8, got: 7 });
    /// assert!(err.to_string().contains("always sets 8"));
    /// ```
    #[error("the {layout} layout always sets {required} bits per key, got {got} hashes")]
    NumHashesFixedByLayout {
        /// The layout asked for.
        layout: Layout,
        /// The number of hashes it always has.
        required: u32,
        /// What was asked for.
        got: u32,
    },
    /// [`AtomicBloom::from_words`](crate::AtomicBloom::from_words) was given
    /// more or fewer words than its sizing has.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, BuildError, Layout, Sizing, WyBuildHasher};
    /// let sizing = Sizing::for_bits(Layout::Word, 128, 3)?;
    /// let err = AtomicBloom::from_words(sizing, WyBuildHasher::default(), [0u64; 3]).unwrap_err();
    /// assert_eq!(err, BuildError::WordCount { expected: 2, got: 3 });
    /// # Ok::<(), BuildError>(())
    /// ```
    #[error("a filter of this sizing has {expected} words of bits, got {got}")]
    WordCount {
        /// The sizing's words: its bits divided by 64.
        expected: u64,
        /// The words given (counted up to one more than expected).
        got: u64,
    },
    /// A windowed filter's generations are fewer than 2 or more than
    /// [`MAX_GENERATIONS`](crate::MAX_GENERATIONS).
    #[error("a windowed filter keeps 2 to {max} generations, got {got}")]
    InvalidGenerations {
        /// What was asked for.
        got: u32,
        /// The largest supported value.
        max: u32,
    },
    /// A windowed filter's window is a duration of zero.
    #[error("a window must last longer than zero")]
    ZeroWindow,
    /// The filter would need more than [`MAX_BITS`](crate::MAX_BITS) bits
    /// (or more than this platform can address).
    #[error(
        "filter would need {requested_bits} bits, above the maximum of {max_bits}; lower the expected items or raise the false-positive rate"
    )]
    TooLarge {
        /// Bits the request needs (saturated at `u128::MAX`).
        requested_bits: u128,
        /// The largest supported size.
        max_bits: u64,
    },
    /// The rate is at or below the [hash floor](crate::hash_floor)
    /// for this many items: the chance that a key never inserted shares its
    /// 64-bit hash with an inserted one, which no number of bits lowers.
    #[error(
        "a false-positive rate of {} is below what a 64-bit hash can give for {items} items: \
         an absent key shares the hash of an inserted one with probability {:.3e}; \
         raise the rate, or split the keys over several filters",
        Number(*false_positive_rate), floor
    )]
    RateBelowHashFloor {
        /// The rate asked for.
        false_positive_rate: f64,
        /// The expected items asked for.
        items: usize,
        /// `items / 2^64`.
        floor: f64,
    },
    /// The layout cannot reach the rate within [`MAX_BITS`](crate::MAX_BITS).
    #[error(
        "the {layout} layout cannot reach a false-positive rate of {} for {items} items within {max_bits} bits; {}",
        Number(*false_positive_rate), layout.unreachable_hint()
    )]
    RateUnreachable {
        /// The layout asked for.
        layout: Layout,
        /// The rate asked for.
        false_positive_rate: f64,
        /// The expected items asked for.
        items: usize,
        /// The largest supported size.
        max_bits: u64,
    },
    /// The allocator refused the memory (the bit array, or a buffer sized
    /// by the filter).
    #[error("could not allocate {bytes} bytes")]
    AllocationFailed {
        /// Bytes requested.
        bytes: u64,
    },
    /// [`Builder::build`](crate::Builder::build) was called without a size.
    #[error(
        "no size given: call capacity(items, false_positive_rate) or bits(num_bits, num_hashes) on the builder, or collect keys with build_from_iter"
    )]
    MissingSize,
    /// A growable filter's initial capacity is zero.
    #[error("a growable filter's initial capacity must be at least 1")]
    ZeroInitialCapacity,
    /// A growable filter's growth factor is not finite and above 1.
    #[error("growth factor must be a finite number above 1, got {}", Number(*.0))]
    InvalidGrowthFactor(f64),
    /// A growable filter's tightening ratio is not strictly between 0 and 1.
    #[error("tightening ratio must be strictly between 0 and 1, got {}", Number(*.0))]
    InvalidTighteningRatio(f64),
    /// A growable filter's maximum number of sub-filters is 0, or deeper
    /// than its parameters allow: past `max`, a sub-filter's tightened rate
    /// would be at or below the [hash floor](crate::hash_floor) of its
    /// capacity (or its capacity would not fit in 64 bits).
    #[error(
        "the maximum number of sub-filters must be between 1 and {max} for these parameters, got {got}; \
         past {max}, the tightened rate of a sub-filter is below what a 64-bit hash can give for its \
         capacity: raise the tightening ratio or the false-positive rate"
    )]
    InvalidMaxSubFilters {
        /// What was asked for.
        got: u32,
        /// The deepest the parameters allow.
        max: u32,
    },
    /// A growable filter's memory limit is below what its first sub-filter
    /// needs.
    #[error(
        "the memory limit of {limit} bytes is below the {needed} bytes the first sub-filter needs"
    )]
    MemoryLimitTooSmall {
        /// Bytes of the first sub-filter.
        needed: u64,
        /// The limit asked for.
        limit: u64,
    },
}

/// Why an [`AtomicGrowableBloom`](crate::AtomicGrowableBloom) could not take
/// a new key: its newest sub-filter is full and no other may be added. The
/// key was not inserted; queries and inserts of present keys still work.
///
/// ```
/// use atomic_bloom::{AtomicGrowableBloom, GrowthError};
/// let f = AtomicGrowableBloom::builder().capacity(1, 0.01).max_sub_filters(2).build()?;
/// // Room for 1 + 2 keys in two sub-filters.
/// for key in ["a", "b", "c"] {
///     assert!(f.insert(key)?);
/// }
/// let err = f.insert("d").unwrap_err();
/// assert_eq!(err, GrowthError::SubFilterLimit { max: 2 });
/// assert!(err.to_string().contains("2 sub-filters"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum GrowthError {
    /// The filter has as many sub-filters as it may.
    #[error(
        "the filter is full: it has {max} sub-filters, the most it may have; build it with a larger initial capacity or growth factor"
    )]
    SubFilterLimit {
        /// The filter's maximum.
        max: u32,
    },
    /// The next sub-filter would take the filter past its memory limit.
    #[error(
        "the filter is full: its sub-filters take {in_use} bytes, and the next needs {needed} more, past the memory limit of {limit}"
    )]
    MemoryLimit {
        /// Bytes the sub-filters take now.
        in_use: u64,
        /// Bytes the next sub-filter needs.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// The next sub-filter could not be built (the allocator refused, or
    /// its size is past [`MAX_BITS`](crate::MAX_BITS)).
    #[error("could not add sub-filter {sub_filter}: {source}")]
    SubFilter {
        /// Which sub-filter (the first is 0).
        sub_filter: u32,
        /// Why.
        source: BuildError,
    },
}

/// Why two filters cannot be combined with `union` or `intersect`: they do
/// not map keys to the same bits.
///
/// ```
/// use atomic_bloom::{AtomicBloom, IncompatibleError};
///
/// let a = AtomicBloom::new(1_000, 0.01)?;
/// let b = AtomicBloom::new(2_000, 0.01)?;
/// assert!(matches!(a.union(&b), Err(IncompatibleError::NumBits { .. })));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum IncompatibleError {
    /// The bit arrays differ in size.
    #[error("filters have different sizes ({left} and {right} bits)")]
    NumBits {
        /// This filter's bits.
        left: u64,
        /// The other filter's bits.
        right: u64,
    },
    /// The filters set different numbers of bits per key.
    #[error("filters use different numbers of hashes ({left} and {right})")]
    NumHashes {
        /// This filter's hashes.
        left: u32,
        /// The other filter's hashes.
        right: u32,
    },
    /// The filters place bits differently.
    #[error("filters have different layouts ({left} and {right})")]
    Layout {
        /// This filter's layout.
        left: Layout,
        /// The other filter's layout.
        right: Layout,
    },
    /// The filters hash keys differently (another hasher or seed).
    #[error("filters hash keys differently (different hasher or seed)")]
    Hasher,
    /// Both are `Standard` filters, but one was read from a file written
    /// before double hashing, whose keys' bits are elsewhere
    /// (`docs::format`): rebuild it from its keys to combine the two.
    #[error(
        "filters place bits differently: one is a Standard filter from a file written before \
         double hashing; rebuild it from its keys to combine them"
    )]
    Positions,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number in a message reads as it would be written: in decimal where
    /// that is short, in exponent form where it would run to many digits.
    #[test]
    fn numbers_print_as_people_write_them() {
        for (rate, printed) in [
            (0.01, "0.01"),
            (0.999, "0.999"),
            (1e-4, "0.0001"),
            (0.0, "0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (-0.5, "-0.5"),
            (1e-5, "1e-5"),
            (1e-80, "1e-80"),
            (1e300, "1e300"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(Number(rate).to_string(), printed, "{rate:?}");
        }
    }
}
