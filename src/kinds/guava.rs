//! # `GuavaBloom`: Google Guava's Bloom filter, lock-free
//!
//! The filter of Guava's `com.google.common.hash.BloomFilter`, the one
//! Java services use, bit for bit: the same positions for the same keys,
//! read from and written to Guava's `writeTo` form, so that a Java service
//! and a Rust or Python one share a filter. Its bits are this crate's
//! [`BitArray`], set with the same `fetch_or`s (Guava's own
//! `LockFreeBitArray` sets them with a compare-and-swap loop), so any
//! number of threads insert and query at once, with the guarantees of the
//! [memory ordering](crate::docs::memory_ordering) chapter (G1-G3: each
//! bit set by one atomic read-modify-write, tests by loads).
//!
//! ## Why a type of its own
//!
//! Guava's strategies take two 64-bit halves of a 128-bit Murmur3 hash of
//! the key, and its positions depend on all 128 bits: the 64-bit hash every
//! other filter here carries (the [`Membership`](crate::Membership)
//! surface, `*_hash` calls) cannot hold them. Rather than widen the hash
//! of every filter, which would cost the default path, this type hashes
//! its keys itself, as Guava's funnels feed them ([`GuavaKey`]).
//!
//! ## Positions
//!
//! - `MURMUR128_MITZ_64` (Guava's default, ordinal 1): `h1`, `h2` the low
//!   and high 64 bits of Murmur3 x64 128 (seed 0) of the key's bytes;
//!   `combined = h1`, and for each of the `k` bits, bit `(combined &
//!   i64::MAX) % m`, then `combined += h2` (wrapping).
//! - `MURMUR128_MITZ_32` (ordinal 0, Guava before 11.0): `h1`, `h2` the low
//!   and high 32 bits of `h1` above; for `i` in `1..=k`, the 32-bit `h1 + i
//!   * h2`, complemented where negative, `% m`.
//!
//! `m` is 64 times the word count. `tests/golden/guava-*` are filters Guava
//! wrote, with Guava's answers for absent keys.

use crate::error::{BuildError, IncompatibleError};
use crate::key::Bytes;
use crate::storage::BitArray;

/// Guava's hashing strategy: how a key's 128-bit hash becomes positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum GuavaStrategy {
    /// `MURMUR128_MITZ_32` (ordinal 0): Guava before 11.0.
    Murmur128Mitz32,
    /// `MURMUR128_MITZ_64` (ordinal 1): Guava's default since 11.0.
    #[default]
    Murmur128Mitz64,
}

impl GuavaStrategy {
    /// The ordinal Guava's `writeTo` records.
    pub const fn ordinal(self) -> u8 {
        match self {
            GuavaStrategy::Murmur128Mitz32 => 0,
            GuavaStrategy::Murmur128Mitz64 => 1,
        }
    }

    /// The strategy of `ordinal`, if Guava has one.
    pub const fn from_ordinal(ordinal: u8) -> Option<Self> {
        match ordinal {
            0 => Some(GuavaStrategy::Murmur128Mitz32),
            1 => Some(GuavaStrategy::Murmur128Mitz64),
            _ => None,
        }
    }
}

/// A key as Guava's funnels feed it to the hash: the bytes hashed.
///
/// | Guava funnel | key |
/// |---|---|
/// | `Funnels.stringFunnel(UTF_8)`, `unencodedCharsFunnel` excluded | `str`, `String`: its UTF-8 bytes |
/// | `Funnels.byteArrayFunnel()` | `[u8]`, `Vec<u8>`, `[u8; N]`, [`Bytes`] |
/// | `Funnels.longFunnel()` | `i64`, `u64`: 8 little-endian bytes |
/// | `Funnels.integerFunnel()` | `i32`, `u32`: 4 little-endian bytes |
///
/// A Guava filter is typed by its funnel: ask it with keys of the type its
/// Java side put. Types with no Guava funnel (`bool`, `i8`, `u128`...) do
/// not implement this trait: a compile-time error, not a silent mismatch.
pub trait GuavaKey {
    /// Calls `f` with the bytes Guava's funnel writes for this key.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

macro_rules! byte_keys {
    ($($t:ty),*) => {$(
        impl GuavaKey for $t {
            #[inline]
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(AsRef::<[u8]>::as_ref(self))
            }
        }
    )*};
}
byte_keys!(str, String, [u8], Vec<u8>);

/// The bytes as they are: how a CLI line or an Arrow string or binary
/// value reaches a Guava filter.
impl<T: AsRef<[u8]>> GuavaKey for Bytes<T> {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.0.as_ref())
    }
}

impl<const N: usize> GuavaKey for [u8; N] {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

macro_rules! integer_keys {
    ($($t:ty),*) => {$(
        impl GuavaKey for $t {
            #[inline]
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(&self.to_le_bytes())
            }
        }
    )*};
}
integer_keys!(i64, u64, i32, u32);

impl<K: GuavaKey + ?Sized> GuavaKey for &K {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (**self).with_bytes(f)
    }
}

/// A Bloom filter laid out and hashed as Guava's, that any number of
/// threads insert into and query at once, through `&self`.
///
/// ```
/// use atomic_bloom::GuavaBloom;
/// // As Guava's BloomFilter.create(Funnels.stringFunnel(UTF_8), 1000, 0.01).
/// let f = GuavaBloom::new(1000, 0.01)?;
/// assert!(f.insert("alice"));
/// assert!(f.contains("alice") && !f.contains("bob"));
/// let bytes = f.to_guava_bytes()?; // what Guava's BloomFilter.readFrom reads
/// assert_eq!(GuavaBloom::from_guava_bytes(&bytes)?, f);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GuavaBloom {
    pub(crate) bits: BitArray,
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
    pub(crate) strategy: GuavaStrategy,
}

impl GuavaBloom {
    /// A filter sized as Guava's `BloomFilter.create(funnel,
    /// expected_insertions, fpp)` sizes it (`optimalNumOfBits`,
    /// `optimalNumOfHashFunctions`), with its default strategy.
    pub fn new(expected_insertions: u64, fpp: f64) -> Result<Self, BuildError> {
        let (bits, k) = crate::sizing::jvm_sizing(expected_insertions, fpp)?;
        Self::with_bits(bits, k, GuavaStrategy::default())
    }

    /// A filter of `num_bits` bits (rounded up to whole words, as Guava's
    /// `LockFreeBitArray` does) and `num_hashes` bits per key (1 to 255:
    /// Guava records it in a byte).
    pub fn with_bits(
        num_bits: u64,
        num_hashes: u32,
        strategy: GuavaStrategy,
    ) -> Result<Self, BuildError> {
        if num_hashes == 0 || num_hashes > u32::from(u8::MAX) {
            return Err(BuildError::InvalidNumHashes {
                got: num_hashes,
                max: u32::from(u8::MAX),
            });
        }
        if num_bits == 0 {
            return Err(BuildError::ZeroBits);
        }
        // Guava's word count is a Java int.
        let words = num_bits.div_ceil(64);
        let max_words = i32::MAX as u64;
        if words > max_words {
            return Err(BuildError::TooLarge {
                requested_bits: u128::from(num_bits),
                max_bits: max_words * 64,
            });
        }
        let bits = usize::try_from(words)
            .ok()
            .and_then(BitArray::zeroed)
            .ok_or(BuildError::AllocationFailed { bytes: words * 8 })?;
        Ok(GuavaBloom {
            bits,
            num_bits: words * 64,
            num_hashes,
            strategy,
        })
    }

    /// Inserts `key`; returns `true` if one of its bits was clear (it was
    /// absent), as Guava's `put` does.
    #[inline]
    pub fn insert<K: GuavaKey + ?Sized>(&self, key: &K) -> bool {
        let (h1, h2) = key.with_bytes(murmur3_128);
        match self.strategy {
            GuavaStrategy::Murmur128Mitz64 => self.bits.set_bits(
                self.num_hashes,
                mitz64(h1, h2, self.num_hashes, self.num_bits),
                true,
            ),
            GuavaStrategy::Murmur128Mitz32 => self.bits.set_bits(
                self.num_hashes,
                mitz32(h1, self.num_hashes, self.num_bits),
                true,
            ),
        }
    }

    /// Whether `key` may have been inserted, as Guava's `mightContain`
    /// answers.
    #[inline]
    pub fn contains<K: GuavaKey + ?Sized>(&self, key: &K) -> bool {
        let (h1, h2) = key.with_bytes(murmur3_128);
        match self.strategy {
            GuavaStrategy::Murmur128Mitz64 => {
                self.bits
                    .test_bits(mitz64(h1, h2, self.num_hashes, self.num_bits))
            }
            GuavaStrategy::Murmur128Mitz32 => {
                self.bits
                    .test_bits(mitz32(h1, self.num_hashes, self.num_bits))
            }
        }
    }

    /// Bits in the filter (`m`, 64 per word).
    pub fn num_bits(&self) -> u64 {
        self.num_bits
    }

    /// Bits set per key (`k`).
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Guava's strategy for this filter.
    pub fn strategy(&self) -> GuavaStrategy {
        self.strategy
    }

    /// How many bits are set.
    pub fn count_ones(&self) -> u64 {
        self.bits.count_ones(self.bits.all())
    }

    /// The false-positive rate now, from the bits set (as Guava's
    /// `expectedFpp`).
    pub fn estimated_false_positive_rate(&self) -> f64 {
        (self.count_ones() as f64 / self.num_bits as f64).powi(self.num_hashes as i32)
    }

    /// Adds every key of `other` to this filter (ORs its bits in), as
    /// Guava's `putAll`: the filters must have the same size, `k` and
    /// strategy. Inserts into either may run meanwhile; each is kept.
    ///
    /// ```
    /// use atomic_bloom::GuavaBloom;
    /// let (a, b) = (GuavaBloom::new(1000, 0.01)?, GuavaBloom::new(1000, 0.01)?);
    /// a.insert("a");
    /// b.insert("b");
    /// a.union(&b)?;
    /// assert!(a.contains("a") && a.contains("b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn union(&self, other: &GuavaBloom) -> Result<(), IncompatibleError> {
        if self.num_bits != other.num_bits {
            return Err(IncompatibleError::NumBits {
                left: self.num_bits,
                right: other.num_bits,
            });
        }
        if self.num_hashes != other.num_hashes {
            return Err(IncompatibleError::NumHashes {
                left: self.num_hashes,
                right: other.num_hashes,
            });
        }
        if self.strategy != other.strategy {
            return Err(IncompatibleError::Hasher);
        }
        self.bits.union(&other.bits, self.bits.all());
        Ok(())
    }

    /// A copy of what the filter holds now, or an error if the allocator
    /// refuses.
    pub fn try_clone(&self) -> Result<Self, BuildError> {
        Ok(GuavaBloom {
            bits: self.bits.snapshot().ok_or(BuildError::AllocationFailed {
                bytes: self.num_bits / 8,
            })?,
            ..*self
        })
    }
}

/// Shows the parameters, not the bits.
impl std::fmt::Debug for GuavaBloom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuavaBloom")
            .field("num_bits", &self.num_bits)
            .field("num_hashes", &self.num_hashes)
            .field("strategy", &self.strategy)
            .finish_non_exhaustive()
    }
}

/// Equal parameters and bits (each word read once).
impl PartialEq for GuavaBloom {
    fn eq(&self, other: &Self) -> bool {
        (self.num_bits, self.num_hashes, self.strategy)
            == (other.num_bits, other.num_hashes, other.strategy)
            && self
                .bits
                .load_words(self.bits.all())
                .eq(other.bits.load_words(other.bits.all()))
    }
}

/// Murmur3 x64 128 with seed 0, as Guava's `Hashing.murmur3_128()`: its
/// low and high 64 bits (Guava's `HashCode.asLong` is the low).
#[inline]
fn murmur3_128(bytes: &[u8]) -> (u64, u64) {
    // The crate returns the two halves as one u128 in native byte order.
    let both = fastmurmur3::murmur3_x64_128(bytes, 0).to_ne_bytes();
    let (low, high) = both.split_at(8);
    (
        u64::from_ne_bytes(low.try_into().unwrap_or_default()),
        u64::from_ne_bytes(high.try_into().unwrap_or_default()),
    )
}

/// `MURMUR128_MITZ_64`'s positions.
#[inline]
fn mitz64(h1: u64, h2: u64, k: u32, m: u64) -> impl Iterator<Item = u64> + Clone {
    let mut combined = h1;
    (0..k).map(move |_| {
        let bit = (combined & i64::MAX as u64) % m;
        combined = combined.wrapping_add(h2);
        bit
    })
}

/// `MURMUR128_MITZ_32`'s positions, from the low 64 bits of the hash.
#[inline]
fn mitz32(h: u64, k: u32, m: u64) -> impl Iterator<Item = u64> + Clone {
    let (h1, h2) = (h as i32, (h >> 32) as i32);
    (1..=k as i32).map(move |i| {
        let combined = h1.wrapping_add(i.wrapping_mul(h2));
        let index = if combined < 0 { !combined } else { combined };
        index as u64 % m
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Murmur3 x64 128 of "The quick brown fox jumps over the lazy dog",
    /// seed 0: the halves of the reference implementation's output
    /// (`MurmurHash3_x64_128`, as Guava's tests use it).
    #[test]
    fn murmur_halves_are_the_references() {
        let (h1, h2) = murmur3_128(b"The quick brown fox jumps over the lazy dog");
        assert_eq!((h1, h2), (0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347));
    }

    /// A key's bits are found, and an insert of a present key reports it
    /// present, with either strategy.
    #[test]
    fn inserted_keys_are_found() {
        for strategy in [
            GuavaStrategy::Murmur128Mitz32,
            GuavaStrategy::Murmur128Mitz64,
        ] {
            let f = GuavaBloom::with_bits(10_000, 7, strategy).unwrap();
            for i in 0..500i64 {
                assert!(f.insert(&i) || f.contains(&i));
                assert!(!f.insert(&i));
            }
            assert!((0..500i64).all(|i| f.contains(&i)));
        }
    }
}
