//! # Keys: which calls see the same key
//!
//! A filter stores no keys, only the bits their hashes select, so a saved
//! filter means something only as long as every program that queries it
//! hashes each key to the same 64 bits. This chapter fixes that mapping.
//!
//! ## The byte encoding: for anything saved or shared
//!
//! [`insert_bytes`](crate::AtomicBloom::insert_bytes) and
//! [`contains_bytes`](crate::AtomicBloom::contains_bytes) take a key as
//! bytes, and the [`Bytes`](crate::Bytes) wrapper carries such a key through every other
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
