//! # Keys
//!
//! [`Key`], what every filter call takes as a key, and how each kind of
//! key becomes its 64-bit hash: strings and byte strings by the crate's
//! byte encoding ([`Bytes`]), integers by their own stable encoding, and
//! any other `Hash` type only through the explicit [`Hashed`] wrapper.
//! What exactly is hashed, and which calls see the same key, is the
//! [`keys`](crate::docs::keys) chapter.

use std::hash::{BuildHasher, Hash, Hasher};

/// A key a filter can take: it says how it becomes the 64-bit hash whose
/// bits the filter sets.
///
/// Strings and byte strings (`str`, `String`, `[u8]`, `Vec<u8>`,
/// `[u8; N]`, [`Bytes`]) hash by the crate's byte encoding, so
/// `insert("x")`, `insert(&String::from("x"))`, `insert(b"x")` and a CLI
/// line `x` are one key, in every program that reads the filter. Integers
/// hash as their little-endian bytes, as [`WyHasher`](crate::WyHasher)
/// writes them. Any other type that implements `Hash` is a key through
/// [`Hashed`], which says that its hash is whatever its `Hash` impl writes:
/// stable only as long as that impl is, which Rust does not promise for
/// its own types. A type of yours may implement `Key` to give itself a
/// stable encoding (hash through a [`Bytes`] of its canonical form).
///
/// ```
/// use atomic_bloom::{AtomicBloom, Bytes, Hashed};
///
/// let f = AtomicBloom::new(1000, 0.01)?;
/// f.insert("/usr/bin/ls");
/// assert!(f.contains(b"/usr/bin/ls")); // the same key as bytes
/// assert!(f.contains(&String::from("/usr/bin/ls")));
/// f.insert(&Hashed(("user", 7u32))); // a tuple, by its Hash impl
/// assert!(f.contains(&Hashed(("user", 7u32))));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
pub trait Key {
    /// The key's 64-bit hash under `hasher`.
    fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64;
}

impl<K: Key + ?Sized> Key for &K {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
        (**self).hash_with(hasher)
    }
}

/// Strings and byte strings: the byte encoding.
macro_rules! byte_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline]
            fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
                hasher.hash_one(Bytes(AsRef::<[u8]>::as_ref(self)))
            }
        }
    )*};
}
byte_keys!(str, String, [u8], Vec<u8>);

impl<const N: usize> Key for [u8; N] {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
        hasher.hash_one(Bytes(self.as_slice()))
    }
}

impl<T: AsRef<[u8]>> Key for Bytes<T> {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
        hasher.hash_one(self)
    }
}

/// Integers (and `bool`, `char`): what their `Hash` writes, one integer
/// write, which [`WyHasher`](crate::WyHasher) turns into the integer's
/// little-endian bytes with no length (`usize` and `isize` as 64-bit).
macro_rules! integer_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline]
            fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
                hasher.hash_one(self)
            }
        }
    )*};
}
integer_keys!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool, char
);

/// Any `Hash` type as a key, hashed by what its `Hash` impl writes: the
/// explicit path for tuples, structs and other types with no stable
/// encoding of their own. Within one program that is always consistent;
/// across programs and Rust versions it holds only as long as the impl
/// does not change, which Rust does not promise for its own types (`str`'s
/// changed form is why strings are not keys through it).
///
/// ```
/// use atomic_bloom::{AtomicBloom, Hashed};
/// let f = AtomicBloom::new(100, 0.01)?;
/// f.insert(&Hashed((1u8, "a")));
/// assert!(f.contains(&Hashed((1u8, "a"))));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hashed<T>(pub T);

impl<T: Hash> Key for Hashed<T> {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, hasher: &S) -> u64 {
        hasher.hash_one(&self.0)
    }
}

/// A key given as bytes, hashed by the byte encoding of the
/// [keys](crate::docs::keys) chapter: its length as 8 little-endian bytes, then the
/// bytes. The same key whether it arrives as a `&str`, `String`, `&[u8]`,
/// `Vec<u8>` or array, and the same key as a CLI line with those bytes.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Bytes};
///
/// let f = AtomicBloom::new(1000, 0.01)?;
/// f.insert_batch(["/usr/bin/ls", "/usr/bin/cat"].map(Bytes));
/// assert!(f.contains(b"/usr/bin/ls"));
/// assert!(f.contains(&Bytes(String::from("/usr/bin/cat"))));
/// assert!(f.contains("/usr/bin/ls")); // a `&str` is the same key
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes<T>(pub T);

impl<T: AsRef<[u8]>> Hash for Bytes<T> {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        let bytes = self.0.as_ref();
        // Written out rather than left to `[u8]`'s `Hash`, which could
        // change: the length as u64 LE whatever the hasher, then the bytes.
        state.write(&(bytes.len() as u64).to_le_bytes());
        state.write(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hasher::WyBuildHasher;
    use std::hash::BuildHasher;

    /// The test vectors other implementations check themselves against.
    #[test]
    fn golden_key_hashes() {
        let vectors = include_str!("../tests/golden/key-hashes.tsv");
        let mut checked = 0;
        for line in vectors.lines().filter(|l| !l.starts_with('#')) {
            let [seed, key_hex, hash] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("malformed line {line:?}");
            };
            let seed: u64 = seed.parse().unwrap();
            let key: Vec<u8> = (0..key_hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&key_hex[i..i + 2], 16).unwrap())
                .collect();
            let hash = u64::from_str_radix(hash.trim_start_matches("0x"), 16).unwrap();
            let hasher = WyBuildHasher::with_seed(seed);
            assert_eq!(
                hasher.hash_one(Bytes(&key)),
                hash,
                "seed {seed} key {key_hex}"
            );
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} vectors");
    }

    #[test]
    fn every_byte_container_is_the_same_key() {
        let h = WyBuildHasher::with_seed(3);
        let want = h.hash_one(Bytes(b"abc"));
        assert_eq!(h.hash_one(Bytes("abc")), want);
        assert_eq!(h.hash_one(Bytes(String::from("abc"))), want);
        assert_eq!(h.hash_one(Bytes(vec![b'a', b'b', b'c'])), want);
        assert_eq!(h.hash_one(Bytes(&b"abc"[..])), want);
        // `[u8]`'s Hash (length, then bytes) agrees today under WyHasher;
        // `str`'s (bytes, then 0xff) does not.
        assert_eq!(h.hash_one(b"abc".as_slice()), want);
        assert_ne!(h.hash_one("abc"), want);
    }

    #[test]
    fn integers_hash_as_their_little_endian_bytes_without_a_length() {
        let h = WyBuildHasher::with_seed(0);
        let mut bytes = h.build_hasher();
        bytes.write(&0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(h.hash_one(0x0102_0304_0506_0708u64), bytes.finish());
    }
}
