//! # Errors
//!
//! Every constructor validates its input and returns [`BuildError`] rather
//! than panicking or allocating something absurd; set operations between two
//! filters return [`IncompatibleError`] when the filters do not hash keys to
//! the same bits. Each message says what to change.

use crate::Layout;
use thiserror::Error;

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
    #[error("false-positive rate must be strictly between 0 and 1, got {0}")]
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
    /// The layout cannot reach the rate within [`MAX_BITS`](crate::MAX_BITS).
    #[error(
        "the {layout} layout cannot reach a false-positive rate of {fpp} for {items} items within {max_bits} bits; use the blocked or standard layout"
    )]
    RateUnreachable {
        /// The layout asked for.
        layout: Layout,
        /// The rate asked for.
        fpp: f64,
        /// The expected items asked for.
        items: u64,
        /// The largest supported size.
        max_bits: u64,
    },
    /// The allocator refused the bit array.
    #[error("could not allocate {bytes} bytes for the bit array")]
    AllocationFailed {
        /// Bytes requested.
        bytes: u64,
    },
    /// [`Builder::build`](crate::Builder::build) was called without a size.
    #[error(
        "no size given: call capacity(items, fpp) or bits(num_bits, num_hashes) on the builder"
    )]
    MissingSize,
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
}
