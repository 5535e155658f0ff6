//! [`SparkHasher`]: keys hashed as Apache Spark's Bloom filters hash them.

use std::hash::{BuildHasher, Hasher};

/// Hashes keys as Apache Spark's `org.apache.spark.util.sketch.BloomFilter`
/// does (what `DataFrame.stat.bloomFilter` builds): two 32-bit Murmur3
/// hashes of the key, `h1` with the filter's seed and `h2` with `h1` as its
/// seed, carried as one 64-bit hash, `h1` in the high half. The
/// [`Layout::Spark`](crate::Layout::Spark) and
/// [`Layout::SparkV1`](crate::Layout::SparkV1) layouts turn them into
/// Spark's bit positions, so a filter with this hasher and one of those
/// layouts sets and tests exactly the bits Spark's does
/// ([`from_spark_bytes`](crate::Filter::from_spark_bytes) reads one Spark
/// wrote).
///
/// How keys map to Spark's `put` methods:
///
/// | Spark | key |
/// |---|---|
/// | `putString(s)`: the UTF-8 bytes | `&str`, `String`, a CLI line |
/// | `putBinary(b)` | `&[u8]`, `Vec<u8>`, `[u8; N]`, [`Bytes`](crate::Bytes) |
/// | `putLong(v)`, and `put` of a `Byte`, `Short`, `Integer` or `Long` | `i64`, `i32`, `i16`, `i8` (sign-extended); `u64` (its bits), `u32`, `u16`, `u8` (zero-extended) |
///
/// Spark has no key for a `bool`, `char` or 128-bit integer: this hasher
/// takes them as the integer of their value (`u128` as its 16 bytes),
/// which Spark never asks; do not insert them into a filter meant for
/// Spark. Spark's 32-bit Murmur3 reads a key's last `len % 4` bytes one at a
/// time, each sign-extended, where the reference Murmur3 packs them into
/// one word (`Murmur3_x86_32.hashUnsafeBytes` in Spark's `common/sketch`):
/// this hasher does as Spark does.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Layout, SparkHasher};
/// let f = AtomicBloom::builder()
///     .capacity(1000, 0.01)
///     .layout(Layout::Spark)
///     .hasher(SparkHasher::with_seed(0))
///     .build()?;
/// f.insert("alice");
/// f.insert(&42i64); // Spark's putLong(42)
/// assert!(f.contains("alice") && f.contains(&42i64) && f.contains(&42i32));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SparkHasher {
    seed: i32,
}

impl SparkHasher {
    /// The hasher of a Spark filter made with `seed` (Spark's default, and
    /// its only choice in format V1, is 0).
    pub const fn with_seed(seed: i32) -> Self {
        SparkHasher { seed }
    }

    /// The seed of `h1`.
    ///
    /// ```
    /// assert_eq!(atomic_bloom::SparkHasher::with_seed(7).seed(), 7);
    /// ```
    pub const fn seed(&self) -> i32 {
        self.seed
    }
}

impl BuildHasher for SparkHasher {
    type Hasher = SparkKeyHasher;

    fn build_hasher(&self) -> SparkKeyHasher {
        SparkKeyHasher {
            seed: self.seed,
            inline: [0; INLINE],
            len: 0,
            spill: Vec::new(),
            first_len: None,
            writes: 0,
        }
    }
}

/// Bytes a key's writes may take before they spill to the heap: a length
/// prefix and 64 bytes of key, so that the usual key hashes with no
/// allocation.
const INLINE: usize = 72;

/// The [`Hasher`] of [`SparkHasher`]: the bytes written, less the byte
/// encoding's length prefix (as [`ParquetHasher`](crate::ParquetHasher)
/// drops it), integers widened to Spark's `long`; both hashes at `finish`.
#[derive(Clone, Debug)]
pub struct SparkKeyHasher {
    seed: i32,
    /// The bytes written, in order, while they fit; then all of them in
    /// `spill`.
    inline: [u8; INLINE],
    len: usize,
    spill: Vec<u8>,
    /// A first write of eight bytes, read as the length it would be.
    first_len: Option<u64>,
    writes: u32,
}

impl SparkKeyHasher {
    /// Every byte written.
    fn written(&self) -> &[u8] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }

    /// The key's bytes: a first write of eight bytes is a length prefix,
    /// and dropped, when the one write after it is that long.
    fn key(&self) -> &[u8] {
        let written = self.written();
        match self.first_len {
            Some(len) if self.writes == 2 && len == written.len() as u64 - 8 => &written[8..],
            _ => written,
        }
    }
}

impl Hasher for SparkKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        if self.writes == 0 && bytes.len() == 8 {
            self.first_len = Some(u64::from_le_bytes(bytes.try_into().unwrap_or_default()));
        }
        self.writes += 1;
        let end = self.len + bytes.len();
        if self.spill.is_empty() && end <= INLINE {
            self.inline[self.len..end].copy_from_slice(bytes);
        } else {
            if self.spill.is_empty() {
                self.spill.extend_from_slice(&self.inline[..self.len]);
            }
            self.spill.extend_from_slice(bytes);
        }
        self.len = end;
    }

    fn finish(&self) -> u64 {
        let key = self.key();
        let h1 = murmur3_spark(key, self.seed);
        let h2 = murmur3_spark(key, h1);
        (u64::from(h1 as u32) << 32) | u64::from(h2 as u32)
    }

    // Spark hashes every integer as its 64-bit `long`, little-endian.
    fn write_i8(&mut self, value: i8) {
        self.write_i64(i64::from(value));
    }
    fn write_i16(&mut self, value: i16) {
        self.write_i64(i64::from(value));
    }
    fn write_i32(&mut self, value: i32) {
        self.write_i64(i64::from(value));
    }
    fn write_i64(&mut self, value: i64) {
        self.write(&value.to_le_bytes());
        // A lone integer is the whole key, never a length prefix.
        if self.writes == 1 {
            self.first_len = None;
        }
    }
    fn write_isize(&mut self, value: isize) {
        self.write_i64(value as i64);
    }
    fn write_u8(&mut self, value: u8) {
        self.write_i64(i64::from(value));
    }
    fn write_u16(&mut self, value: u16) {
        self.write_i64(i64::from(value));
    }
    fn write_u32(&mut self, value: u32) {
        self.write_i64(i64::from(value));
    }
    fn write_u64(&mut self, value: u64) {
        self.write_i64(value as i64);
    }
    fn write_usize(&mut self, value: usize) {
        self.write_i64(value as i64);
    }
    fn write_u128(&mut self, value: u128) {
        self.write(&value.to_le_bytes());
    }
    fn write_i128(&mut self, value: i128) {
        self.write(&value.to_le_bytes());
    }
}

/// Spark's 32-bit Murmur3 of `bytes` with `seed`: the reference algorithm
/// (Appleby's `MurmurHash3_x86_32`) over the whole 4-byte words, then each
/// remaining byte, sign-extended, mixed in as a word of its own, then the
/// finalization with the length. No crate computes this variant; the
/// steps are Spark's `Murmur3_x86_32.hashUnsafeBytes`, pinned by the files
/// Spark wrote in `tests/golden/spark-*`.
pub(crate) fn murmur3_spark(bytes: &[u8], seed: i32) -> i32 {
    let (words, tail) = bytes.as_chunks::<4>();
    let mut h1 = seed as u32;
    for word in words {
        h1 = mix_h1(h1, mix_k1(u32::from_le_bytes(*word)));
    }
    for &byte in tail {
        h1 = mix_h1(h1, mix_k1(byte as i8 as i32 as u32));
    }
    fmix(h1, bytes.len() as u32) as i32
}

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(0xcc9e_2d51)
        .rotate_left(15)
        .wrapping_mul(0x1b87_3593)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h1: u32, len: u32) -> u32 {
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^ (h1 >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Bytes;

    /// The reference Murmur3 (x86, 32-bit) where Spark's agrees with it:
    /// keys whose length is a multiple of four (SMHasher's verification
    /// values for the empty key and seeds; "abcd" from the reference C).
    #[test]
    fn whole_words_hash_as_the_reference_murmur3() {
        assert_eq!(murmur3_spark(b"", 0), 0);
        assert_eq!(murmur3_spark(b"", 1) as u32, 0x514e_28b7);
        assert_eq!(murmur3_spark(b"", -1) as u32, 0x81f1_6f39);
        assert_eq!(murmur3_spark(&[0, 0, 0, 0], 0) as u32, 0x2362_f9de);
    }

    /// A byte key and a string key of the same bytes are one key, without
    /// the byte encoding's length prefix; an integer is its `long`.
    #[test]
    fn keys_hash_as_spark_puts_them() {
        let spark = SparkHasher::with_seed(3);
        let bytes = b"abcdefgh";
        let expected = {
            let h1 = murmur3_spark(bytes, 3);
            (u64::from(h1 as u32) << 32) | u64::from(murmur3_spark(bytes, h1) as u32)
        };
        assert_eq!(spark.hash_one(Bytes(bytes)), expected);
        assert_eq!(spark.hash_one(Bytes("abcdefgh")), expected);
        let long = |v: i64| {
            let h1 = murmur3_spark(&v.to_le_bytes(), 3);
            (u64::from(h1 as u32) << 32) | u64::from(murmur3_spark(&v.to_le_bytes(), h1) as u32)
        };
        assert_eq!(spark.hash_one(7i32), long(7));
        assert_eq!(spark.hash_one(-7i8), long(-7));
        assert_eq!(spark.hash_one(u64::MAX), long(-1));
        assert_eq!(spark.hash_one(3_000_000_000u32), long(3_000_000_000));
        // An eight-byte integer is a key, not a length prefix.
        assert_eq!(spark.hash_one(0i64), long(0));
    }
}
