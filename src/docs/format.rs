//! # The file format: versioned, and never trusted
//!
//! A batch loader builds a filter in one process and serves it from
//! another, on another machine, years later. The format is fixed-size
//! header, the bit array as little-endian words, and a checksum:
//!
//! | offset | bytes | field | value |
//! |---|---|---|---|
//! | 0  | 8 | magic | `89 41 42 4C 4F 4F 4D 0A` (`\x89ABLOOM\n`: the high byte catches 7-bit channels, the `\n` newline mangling) |
//! | 8  | 2 | format version | `1`, u16 LE |
//! | 10 | 1 | layout id | `0` Standard, `1` Blocked, `2` Word, `3` Sectorized |
//! | 11 | 1 | hasher id | `0` custom, `1` [`WyBuildHasher`](crate::WyBuildHasher) (wyhash v1, integers as little-endian bytes) |
//! | 12 | 4 | `k` | u32 LE, `1..=MAX_HASHES` |
//! | 16 | 8 | `m` | u64 LE, bits: `1..=MAX_BITS`, a multiple of 64 (512 for Blocked and Sectorized) |
//! | 24 | 8 | seed | u64 LE: the `WyBuildHasher` seed; 0 for custom hashers (readers refuse another) |
//! | 32 | 8 | hasher fingerprint | u64 LE: the hasher's hash of a fixed string, to tell hashers apart |
//! | 40 | `m / 8` | bits | word `i` (bits `64i..64i+63`) as u64 LE |
//! | 40 + `m / 8` | 8 | checksum | xxh3-64 of everything before it, u64 LE |
//!
//! Ids are append-only: a new layout or hasher gets a new number, and a
//! reader rejects numbers it does not know. A change to the meaning of any
//! field, or to how keys map to bits, bumps the format version; the golden
//! files in `tests/golden/` fail CI if that happens by accident.
//!
//! ## Validation before allocation, checksum before meaning
//!
//! A reader first checks the *frame*: magic, version, layout and `m` (its
//! range, and a whole number of the layout's words or blocks). Those fix
//! the input's length and so where the checksum is. It then checks that
//! the input holds exactly the bytes `m` implies, and only then allocates.
//! A forged `m` therefore costs nothing: from a byte slice or a file the
//! reader never allocates more than the input's length (plus alignment
//! padding); from a generic [`Read`](std::io::Read) it first buffers what the stream
//! actually supplies, growing as bytes arrive (at most twice what was
//! sent, and as an error, never an abort, if the allocator refuses), then
//! builds the filter from the buffer. `tests/hostile_input.rs` caps the
//! process's allocations to prove both bounds on a million mutated and
//! forged inputs, and `tests/out_of_memory.rs` that a refusal is an error.
//!
//! Everything else the header says (`k`, hasher id, seed, fingerprint) is
//! interpreted only after the checksum over the whole file has matched, in
//! every reader: a damaged byte anywhere under the checksum is reported as
//! a checksum mismatch, the same way by `from_bytes`, `read_from` and
//! `load`. Each failure is its own [`ReadError`](crate::ReadError).
//!
//! ## What must stay the same for a file to mean anything
//!
//! The file holds bits, not keys: a key is found only if it hashes to the
//! same bits as when it was inserted. Keep the hasher and its seed: both
//! are recorded, and every reader checks them. The default readers take
//! the seed from the file and refuse a custom hasher's file; the
//! `*_with_hasher` readers require the hasher id and seed the file records
//! (so that the filter writes back byte for byte) and the same
//! fingerprint, the hasher's hash of a fixed string, which is all a file
//! can say about a custom hasher (its state is not in the file). And keep
//! the key encoding: the [`keys`](super::keys) chapter fixes one for bytes
//! and strings (`insert_bytes`, [`Bytes`](crate::Bytes), every CLI line)
//! and one for integers, both the same on every platform; keys passed
//! through other `Hash` impls mean what those impls write.

//! ## Writing while others insert
//!
//! `write_to`, `to_bytes` and `save` read each word once, as a snapshot
//! does (Memory ordering, G9): the file holds every key inserted before the
//! write began, and a key inserted meanwhile whole, in part or not at all.
//! The checksum covers the bytes actually written, so the file is valid.
