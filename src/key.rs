//! # Keys
//!
//! [`Bytes`], the key wrapper whose hash is the crate's byte encoding. What
//! exactly is hashed, and which calls see the same key, is the
//! [`keys`](crate::docs::keys) chapter.

use std::hash::{Hash, Hasher};

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
