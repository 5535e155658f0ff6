//! [`ParquetHasher`]: keys hashed as Apache Parquet's Bloom filters hash
//! them.

use std::hash::{BuildHasher, Hasher};
use xxhash_rust::xxh64::Xxh64;

/// Hashes keys as Apache Parquet's split block Bloom filters do: XXH64
/// with seed 0 of the value's plain encoding (the parquet-format
/// specification, `BloomFilter.md`). A filter whose bits a Parquet writer set answers correctly only when its
/// keys are hashed the same way, so a filter imported from Parquet carries
/// this hasher, and a file saved from it records the hasher's own id
/// ([`HasherId::Parquet`](crate::HasherId::Parquet)): every reader, the
/// CLI's and Python's included, then asks it with Parquet's hash.
///
/// The plain encoding of each physical type, and the key that gives it:
///
/// | Parquet type | plain encoding | key |
/// |---|---|---|
/// | `BYTE_ARRAY` (strings, binary) | the bytes, no length | `&str`, `&[u8]`, [`Bytes`](crate::Bytes), a CLI line |
/// | `FIXED_LEN_BYTE_ARRAY` | the bytes | `[u8; N]`, `&[u8]` |
/// | `INT32` | 4 little-endian bytes | `i32`, `u32` |
/// | `INT64` | 8 little-endian bytes | `i64`, `u64` |
/// | `FLOAT`, `DOUBLE` | IEEE 754 little-endian bytes | `x.to_le_bytes()` |
///
/// The crate's byte encoding writes a byte key as its length and then its
/// bytes ([`Bytes`](crate::Bytes)); Parquet hashes the bytes alone. The
/// hasher therefore holds back a first write of eight bytes and drops it
/// when the next write is exactly as long as those eight bytes say: that
/// pair is a length and its bytes. A single write (an integer key) is
/// hashed as it is.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Layout, ParquetHasher};
/// use std::hash::BuildHasher;
///
/// // xxhsum -H64 of the three bytes "abc": Parquet's hash of the string "abc".
/// assert_eq!(ParquetHasher.hash_one(atomic_bloom::Bytes("abc")), 0x44bc_2cf5_ad77_0999);
/// let names = AtomicBloom::builder()
///     .capacity(1000, 0.01)
///     .layout(Layout::SplitBlock)
///     .hasher(ParquetHasher)
///     .build()?;
/// names.insert("alice");
/// names.insert(&7i32); // an INT32 value
/// assert!(names.contains("alice") && names.contains(&7i32));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParquetHasher;

impl ParquetHasher {
    /// Parquet's XXH64 seed: 0, always (the specification fixes it).
    ///
    /// ```
    /// assert_eq!(atomic_bloom::ParquetHasher.seed(), 0);
    /// ```
    pub const fn seed(&self) -> u64 {
        0
    }
}

impl BuildHasher for ParquetHasher {
    type Hasher = ParquetKeyHasher;

    fn build_hasher(&self) -> ParquetKeyHasher {
        ParquetKeyHasher {
            state: Xxh64::new(0),
            held: Held::Nothing,
        }
    }
}

/// The [`Hasher`] of [`ParquetHasher`]: XXH64 of the bytes written, less
/// the byte encoding's length prefix; integers as little-endian bytes.
#[derive(Clone)]
pub struct ParquetKeyHasher {
    state: Xxh64,
    held: Held,
}

impl std::fmt::Debug for ParquetKeyHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetKeyHasher").finish_non_exhaustive()
    }
}

/// The first write, while it may still be a length prefix.
#[derive(Clone, Copy)]
enum Held {
    /// Nothing written yet.
    Nothing,
    /// Eight bytes written first: a length if the next write is that long.
    Eight([u8; 8]),
    /// Past the first write: everything goes to the state.
    Streaming,
}

impl Hasher for ParquetKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.held = match self.held {
            Held::Nothing => match <[u8; 8]>::try_from(bytes) {
                Ok(eight) => Held::Eight(eight),
                Err(_) => {
                    self.state.update(bytes);
                    Held::Streaming
                }
            },
            Held::Eight(first) => {
                // Compared as u64, whatever the width of usize.
                if u64::from_le_bytes(first) != bytes.len() as u64 {
                    self.state.update(&first);
                }
                self.state.update(bytes);
                Held::Streaming
            }
            Held::Streaming => {
                self.state.update(bytes);
                Held::Streaming
            }
        };
    }

    fn finish(&self) -> u64 {
        match self.held {
            Held::Eight(first) => {
                let mut state = self.state.clone();
                state.update(&first);
                state.digest()
            }
            Held::Nothing | Held::Streaming => self.state.digest(),
        }
    }

    // Parquet's plain encoding is little-endian; `Hasher`'s defaults write
    // native-endian bytes.
    fn write_u16(&mut self, value: u16) {
        self.write(&value.to_le_bytes());
    }
    fn write_u32(&mut self, value: u32) {
        self.write(&value.to_le_bytes());
    }
    fn write_u64(&mut self, value: u64) {
        self.write(&value.to_le_bytes());
    }
    fn write_u128(&mut self, value: u128) {
        self.write(&value.to_le_bytes());
    }
    fn write_usize(&mut self, value: usize) {
        self.write(&(value as u64).to_le_bytes());
    }
    fn write_i16(&mut self, value: i16) {
        self.write(&value.to_le_bytes());
    }
    fn write_i32(&mut self, value: i32) {
        self.write(&value.to_le_bytes());
    }
    fn write_i64(&mut self, value: i64) {
        self.write(&value.to_le_bytes());
    }
    fn write_i128(&mut self, value: i128) {
        self.write(&value.to_le_bytes());
    }
    fn write_isize(&mut self, value: isize) {
        self.write(&(value as i64).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Bytes, Key};
    use xxhash_rust::xxh64::xxh64;

    #[test]
    fn byte_keys_hash_as_xxh64_of_their_bytes_alone() {
        for key in [
            "",
            "a",
            "alice",
            "exactly8",
            "a longer key than sixteen bytes",
        ] {
            assert_eq!(
                key.hash_with(&ParquetHasher),
                xxh64(key.as_bytes(), 0),
                "{key:?}"
            );
            assert_eq!(
                Bytes(key.as_bytes()).hash_with(&ParquetHasher),
                xxh64(key.as_bytes(), 0)
            );
        }
    }

    #[test]
    fn integers_hash_as_their_plain_encoding() {
        assert_eq!(
            (-5i32).hash_with(&ParquetHasher),
            xxh64(&(-5i32).to_le_bytes(), 0)
        );
        assert_eq!(
            7i64.hash_with(&ParquetHasher),
            xxh64(&7i64.to_le_bytes(), 0)
        );
        assert_eq!(
            8u64.hash_with(&ParquetHasher),
            xxh64(&8u64.to_le_bytes(), 0)
        );
        let x = 2.5f64.to_le_bytes();
        assert_eq!(x.hash_with(&ParquetHasher), xxh64(&x, 0));
    }

    #[test]
    fn eight_bytes_not_followed_by_as_many_are_kept() {
        let mut h = ParquetHasher.build_hasher();
        h.write(&3u64.to_le_bytes());
        h.write(b"ab");
        let mut want = Vec::from(3u64.to_le_bytes());
        want.extend_from_slice(b"ab");
        assert_eq!(h.finish(), xxh64(&want, 0));
    }
}
