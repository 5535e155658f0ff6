//! # Keys: which calls see the same key
//!
//! A filter stores no keys, only the bits their hashes select, so a saved
//! filter means something only as long as every program that queries it
//! hashes each key to the same 64 bits. This chapter fixes that mapping.
//!
//! ## One encoding per kind of key, whichever call takes it
//!
//! Every call that takes a key takes a [`Key`](crate::Key), and the key's
//! type decides how it is hashed:
//!
//! - **Strings and byte strings** (`str`, `String`, `[u8]`, `Vec<u8>`,
//!   `[u8; N]`, and [`Bytes`](crate::Bytes) around any of them) hash by the
//!   byte encoding below. `insert("x")`, `insert(&String::from("x"))`,
//!   `insert(b"x")`, `insert(&vec)`, `insert(&Bytes("x"))`, a CLI line `x`
//!   and a Python `"x"` or `b"x"` are one key.
//! - **Integers** (and `bool`, `char`) hash as their little-endian bytes in
//!   one write, with no length (`usize`/`isize` as 64-bit), because
//!   [`WyHasher`](crate::WyHasher) defines it so: `insert(&7u64)` is a
//!   Python `7`. The type counts: `7u32` and `7u64` differ.
//! - **Anything else** that implements `Hash` (a tuple, a struct) is a key
//!   only through [`Hashed`](crate::Hashed), which hashes what its `Hash`
//!   impl writes. That is always consistent within one program, but Rust
//!   does not promise its own `Hash` impls stay the same across versions:
//!   for anything saved, give the type a canonical byte form and insert
//!   that, or implement [`Key`](crate::Key) for it.
//!
//! ## The byte encoding
//!
//! With the default hasher, the 64-bit hash of a key of `len` bytes is
//!
//! ```text
//! h = WyHash::with_seed(seed)        (wyhash v1, the `wyhash` crate 0.6)
//! h.write(len as u64, little-endian: 8 bytes)
//! h.write(key bytes)
//! hash = h.finish()
//! ```
//!
//! a fixed function of the bytes and the seed on every platform, pointer
//! width and Rust version. `tests/golden/key-hashes.tsv` pins it with test
//! vectors (seed, key, hash) for any other implementation to check itself
//! against.
//!
//! | key | what is hashed | calls that see the same key |
//! |---|---|---|
//! | a CLI input line | length, then the line without its `\n` or `\r\n` | `contains(line)` from Rust |
//! | a `&str` / `String` | length, then its UTF-8 bytes | `insert(s)`, `insert(s.as_bytes())`, `insert(&Bytes(s))` |
//! | a `&[u8]` / `Vec<u8>` / `[u8; N]` | length, then the bytes | `insert(b)`, `insert(&Bytes(b))` |
//! | an integer `n` | its little-endian bytes, no length | `insert(&n)` (the same type) |
//! | any other `T: Hash` | what `T`'s `Hash` impl writes | `insert(&Hashed(t))` |
//!
//! So `insert(&7u64.to_le_bytes())` (bytes, with the length) and
//! `insert(&7u64)` (without) are different keys: pick one per filter.
//!
//! ## Other systems' hashers
//!
//! A filter another system built answers only for keys hashed as that
//! system hashes them, so its hasher comes with it:
//! [`ParquetHasher`](crate::ParquetHasher) (a Parquet column's filter) and
//! [`SparkHasher`](crate::SparkHasher) (Apache Spark's
//! `org.apache.spark.util.sketch.BloomFilter`). Both take the byte keys
//! without the byte encoding's length. Spark's, key by key:
//!
//! | Spark | Rust | Python | CLI |
//! |---|---|---|---|
//! | `putString(s)`: the UTF-8 bytes | `&str`, `String` | `str` | a line |
//! | `putBinary(b)` | `&[u8]`, `Vec<u8>`, `[u8; N]`, `Bytes` | `bytes`, `bytearray`, `memoryview` | |
//! | `putLong(v)`, and `put` of a `Byte`, `Short`, `Integer`, `Long` | `i64`, `i32`, `i16`, `i8`; `u64` (its bits), `u32`, `u16`, `u8` | `int` | |
//!
//! Guava's filter, [`GuavaBloom`](crate::GuavaBloom), hashes 128 bits of
//! a key where the hashers above give 64, so it takes its keys through
//! [`GuavaKey`](crate::GuavaKey): a `str` as `Funnels.stringFunnel(UTF_8)`
//! feeds it (its UTF-8 bytes), bytes as `byteArrayFunnel`, an `i64` or
//! `u64` as `longFunnel` (8 little-endian bytes), an `i32` or `u32` as
//! `integerFunnel` (4); a key type with no funnel does not compile.
//! Elsewhere, a Guava filter is asked as Guava's funnels feed keys:
//!
//! | Guava funnel | Python (`GuavaBloomFilter`) | CLI | DataFusion |
//! |---|---|---|---|
//! | `stringFunnel(UTF_8)` | `str` | a line | `Utf8` and its kin |
//! | `byteArrayFunnel()` | `bytes`, `bytearray`, `memoryview` | a line (its bytes) | `Binary` and its kin |
//! | `longFunnel()` | `int` | | any integer column, as 64 bits |
//!
//! A filter Guava filled through `integerFunnel()` (4 bytes a key) is asked
//! from Rust with `i32` keys; Python and SQL integers are 64-bit, so they
//! do not find its keys: a Guava filter does not record its funnel.
//!
//! Spark has no key for a `bool`, `char` or 128-bit integer; such a key
//! hashes as the integer of its value, which Spark never asks (Python's
//! `bool` is an `int` there, as in Python). `tests/golden/spark-*` pin the
//! mapping: files Spark wrote, with Spark's answers for absent keys.
//!
//! ## Files written before strings were byte keys
//!
//! `insert(&str)` used to hash what `str`'s `Hash` writes (its bytes and a
//! `0xff` byte). A filter built that way and saved still loads, and its
//! keys are found through the same encoding: `contains(&Hashed(s))`
//! (`tests/all/golden.rs` keeps such files, built in that encoding). The file
//! format, the byte encoding and the integer encoding did not change; only
//! which calls use the byte encoding did.
