//! # The default hasher
//!
//! [`WyBuildHasher`] is a seeded [wyhash] whose output depends only on the
//! key's bytes and the seed: the same key gives the same hash on every run,
//! every platform and every pointer width, which a filter saved in one
//! process and loaded in another needs.
//!
//! Two details make that so. Rust's `Hash` impls feed integers to the hasher
//! as native-endian bytes and slice lengths as `usize`; [`WyHasher`] rewrites
//! every integer as little-endian bytes and every `usize`/`isize` as 64-bit.
//! And it wraps wyhash's `v1` hasher, which chains successive `write` calls
//! into one state. (The crate's `final3` hasher keeps only the last write's
//! bytes when writes are short, so every `&str` up to 16 bytes, which `Hash`
//! writes as its bytes and then a `0xff` byte, would get the same hash.)
//!
//! [wyhash]: https://docs.rs/wyhash

use std::hash::{BuildHasher, Hasher};

/// Builds [`WyHasher`]s with a fixed seed; the filter's default hasher.
///
/// Two filters are compatible only if they hash with the same seed.
///
/// ```
/// use std::hash::BuildHasher;
/// use atomic_bloom::WyBuildHasher;
///
/// let a = WyBuildHasher::with_seed(7);
/// assert_eq!(a.hash_one("key"), WyBuildHasher::with_seed(7).hash_one("key"));
/// assert_ne!(a.hash_one("key"), WyBuildHasher::with_seed(8).hash_one("key"));
/// assert_eq!(a.seed(), 7);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WyBuildHasher {
    seed: u64,
}

impl WyBuildHasher {
    /// A builder whose hashers start from `seed`.
    ///
    /// ```
    /// let hasher = atomic_bloom::WyBuildHasher::with_seed(42);
    /// assert_eq!(hasher.seed(), 42);
    /// ```
    pub const fn with_seed(seed: u64) -> Self {
        WyBuildHasher { seed }
    }

    /// The seed.
    ///
    /// ```
    /// assert_eq!(atomic_bloom::WyBuildHasher::default().seed(), 0);
    /// ```
    pub const fn seed(&self) -> u64 {
        self.seed
    }
}

impl BuildHasher for WyBuildHasher {
    type Hasher = WyHasher;

    fn build_hasher(&self) -> WyHasher {
        WyHasher(wyhash::WyHash::with_seed(self.seed))
    }
}

/// A portable wyhash [`Hasher`]: integers are hashed as little-endian bytes,
/// `usize` and `isize` as 64-bit, so a key hashes the same everywhere.
///
/// ```
/// use std::hash::{BuildHasher, Hasher};
/// use atomic_bloom::WyBuildHasher;
///
/// let mut hasher = WyBuildHasher::default().build_hasher();
/// hasher.write_u32(1);
/// let mut bytes = WyBuildHasher::default().build_hasher();
/// bytes.write(&[1, 0, 0, 0]);
/// assert_eq!(hasher.finish(), bytes.finish());
/// ```
#[derive(Clone, Debug)]
pub struct WyHasher(wyhash::WyHash);

macro_rules! write_le {
    ($($method:ident($ty:ty) as $as:ty;)*) => {$(
        #[inline]
        fn $method(&mut self, value: $ty) {
            self.0.write(&(value as $as).to_le_bytes());
        }
    )*};
}

impl Hasher for WyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    write_le! {
        write_u16(u16) as u16;
        write_u32(u32) as u32;
        write_u64(u64) as u64;
        write_u128(u128) as u128;
        write_usize(usize) as u64;
        write_i16(i16) as i16;
        write_i32(i32) as i32;
        write_i64(i64) as i64;
        write_i128(i128) as i128;
        write_isize(isize) as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_strings_do_not_collide() {
        let s = WyBuildHasher::default();
        let hashes: std::collections::HashSet<u64> = ["", "a", "b", "abc", "xyz", "ab", "ba"]
            .iter()
            .map(|k| s.hash_one(k))
            .collect();
        assert_eq!(hashes.len(), 7);
    }

    #[test]
    fn hashes_are_pinned() {
        // Saved filters depend on these values: a change here is a format
        // change. Integers and usize are hashed as little-endian u64 bytes.
        let s = WyBuildHasher::with_seed(1);
        assert_eq!(s.hash_one(42u64), 0x502c_f94d_98e6_5f35);
        assert_eq!(s.hash_one("atomic-bloom"), 0x2f60_dae5_cbdd_3321);
        assert_eq!(s.hash_one(b"bytes".as_slice()), 0xdff7_48c7_baeb_fd2e);
        assert_eq!(s.hash_one(7usize), s.hash_one(7u64));
        assert_eq!(s.hash_one(-7isize), s.hash_one(-7i64));
    }
}
