//! # Keys: what exactly is hashed
//!
//! A filter stores no keys, only the bits their hashes select, so a saved
//! filter means something only as long as every program that queries it
//! hashes each key to the same 64 bits. This chapter fixes that mapping.
//!
//! ## The byte encoding: for anything saved or shared
//!
//! [`insert_bytes`](crate::AtomicBloom::insert_bytes) and
//! [`contains_bytes`](crate::AtomicBloom::contains_bytes) take a key as
//! bytes, and the [`Bytes`] wrapper carries such a key through every other
//! call (batches, `par_insert`, `insert`). With the default hasher, the
//! 64-bit hash of a key of `len` bytes is
//!
//! ```text
//! h = WyHash::with_seed(seed)        (wyhash v1, the `wyhash` crate 0.6)
//! h.write(len as u64, little-endian: 8 bytes)
//! h.write(key bytes)
//! hash = h.finish()
//! ```
//!
//! a fixed function of the bytes and the seed on every platform, pointer
//! width and Rust version. (It is also what `[u8]`'s `Hash` writes today,
//! so `insert(b.as_slice())` sees the same key, but only `Bytes` promises
//! it.) `tests/golden/key-hashes.tsv` pins it with test vectors (seed, key,
//! hash) for any other implementation to check itself against.
//!
//! Integers have an encoding of their own: with the default hasher,
//! `insert(&n)` hashes `n`'s little-endian bytes in one write, with no
//! length (`usize`/`isize` as 64-bit), because [`WyHasher`](crate::WyHasher)
//! defines it so; that is stable too.
//!
//! | key | what is hashed | calls that see the same key |
//! |---|---|---|
//! | a CLI input line | length, then the line without its `\n` or `\r\n` | `contains_bytes(line)` from Rust |
//! | a `&str` / `String` | length, then its UTF-8 bytes | `insert_bytes(s)`, `insert(&Bytes(s))`, `insert(s.as_bytes())` |
//! | a `&[u8]` / `Vec<u8>` / `[u8; N]` | length, then the bytes | `insert_bytes(b)`, `insert(&Bytes(b))`, `insert(b.as_slice())` |
//! | an integer `n` | its little-endian bytes, no length | `insert(&n)` (the same type: `7u32` and `7u64` differ) |
//!
//! So `insert_bytes(7u64.to_le_bytes())` (with the length) and
//! `insert(&7u64)` (without) are different keys: pick one per filter.
//!
//! ## `insert(&key)`: Rust's `Hash`
//!
//! [`insert`](crate::AtomicBloom::insert) and
//! [`contains`](crate::AtomicBloom::contains) accept any `T: Hash` and hash
//! what `T`'s `Hash` impl writes. That is convenient within one program,
//! but `Hash` impls are free to change between Rust versions, and they
//! differ between types that look alike: `str` writes its bytes and then a
//! `0xff` byte, while `[u8]` writes its length and then its bytes, so
//! `insert("ls")` and `contains_bytes("ls")` are different keys. Two cases
//! are stable because this crate's [`WyHasher`](crate::WyHasher) defines
//! them itself: integers hash as their little-endian bytes with no length
//! (`insert(&7u64)` hashes the 8 bytes of `7u64.to_le_bytes()`), and
//! `usize`/`isize` as 64-bit. For anything saved to a file, sent to another
//! process, or queried from the CLI or another language, use the byte
//! encoding above.

use std::hash::{Hash, Hasher};

/// A key given as bytes, hashed by the byte encoding of the
/// [module docs](self): its length as 8 little-endian bytes, then the
/// bytes. The same key whether it arrives as a `&str`, `String`, `&[u8]`,
/// `Vec<u8>` or array, and the same key as a CLI line with those bytes.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Bytes};
///
/// let f = AtomicBloom::new(1000, 0.01)?;
/// f.insert_batch(["/usr/bin/ls", "/usr/bin/cat"].map(Bytes));
/// assert!(f.contains_bytes(b"/usr/bin/ls"));
/// assert!(f.contains(&Bytes(String::from("/usr/bin/cat"))));
/// assert!(!f.contains("/usr/bin/ls")); // `str`'s own Hash: another key
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
    use crate::WyBuildHasher;
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
