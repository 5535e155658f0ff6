//! # The file format: versioned, and never trusted
//!
//! A batch loader builds a filter in one process and serves it from
//! another, on another machine, years later. The format is a fixed-size
//! header, the filter's array as little-endian words, and a checksum:
//!
//! | offset | bytes | field | value |
//! |---|---|---|---|
//! | 0  | 8 | magic | `89 41 42 4C 4F 4F 4D 0A` (`\x89ABLOOM\n`: the high byte catches 7-bit channels, the `\n` newline mangling) |
//! | 8  | 2 | format version | `1`, `2` or `3`, u16 LE (below) |
//! | 10 | 1 | placement id | where bits go: `0` Standard with each bit its own splitmix64 output (files written before double hashing; read, never written for new filters), `1` Blocked, `2` Word, `3` Sectorized, `4` SplitBlock, `5` Standard by double hashing, `6` Spark V1, `7` Spark V2 (`4` to `7` added after 0.1.0, whose readers refuse them) |
//! | 11 | 1 | hasher id | `0` custom, `1` [`WyBuildHasher`](crate::WyBuildHasher) (wyhash v1, integers as little-endian bytes), `2` [`ParquetHasher`](crate::ParquetHasher) (XXH64 seed 0 of Parquet's plain encoding: a filter a Parquet writer built), `3` [`SparkHasher`](crate::SparkHasher) (Spark's two Murmur3 hashes; its 32-bit seed in the seed field) (`2` and `3` added after 0.1.0, whose readers refuse them) |
//! | 12 | 4 | `k` | u32 LE, `1..=MAX_HASHES`; `8` for SplitBlock |
//! | 16 | 8 | `m` | u64 LE, cells (bits, or counters): `1..=MAX_BITS` (`2^40` for SplitBlock), a multiple of 64 (512 for Blocked and Sectorized, 256 for SplitBlock) |
//! | 24 | 8 | seed | u64 LE: the `WyBuildHasher` seed; 0 for custom hashers and Parquet's (readers refuse another) |
//! | 32 | 8 | hasher fingerprint | u64 LE: the hasher's hash of a fixed string, to tell hashers apart |
//! | 40 | 1 | filter kind (versions 2 and 3) | `1` counting ([`AtomicCountingBloom`](crate::AtomicCountingBloom)), `2` growable, `3` windowed (below); `0` is a plain filter ([`AtomicBloom`](crate::AtomicBloom)) in version 3 only (plain files are otherwise version 1) |
//! | 41 | 7 | reserved (versions 2 and 3) | zero (readers refuse another) |
//! | 48 | 1 | writer state (version 3 only) | `0` sealed, `1` open for writing (below) |
//! | 49 | 15 | reserved (version 3 only) | zero |
//! | `h` = 40, 48 or 64 | `m w / 8` | cells | word `i` as u64 LE; a cell is `w` bits: 1 for plain, 4 for counting |
//! | `h + m w / 8` | 8 | checksum | xxh3-64 of everything before it, u64 LE |
//!
//! Cell `i` of a plain filter is bit `i % 64` of word `i / 64`; counter `i`
//! of a counting filter is bits `4 (i % 16)` to `4 (i % 16) + 3` of word
//! `i / 16`, a count from 0 to 15 (15: saturated). A key's cells are the
//! same in both kinds, so a counting file and the plain file of the same
//! keys agree on every key.
//!
//! **Versions.** Version 1 holds plain filters only: its header ends at
//! byte 40. Version 2 adds the filter-kind byte and seven reserved bytes.
//! A writer uses the oldest version that holds its filter
//! ([`FilterKind::format_version`](crate::FilterKind::format_version)), so
//! plain filters are still written as version 1, byte for byte what
//! earlier releases wrote and read; readers take every version. Each
//! filter has one encoding in versions 1 and 2 (a version 2 header naming
//! a plain filter is refused), so every such file a reader accepts writes
//! back byte for byte. Version 3 is the
//! [shared](super::shared) file: version 2's header, a writer-state byte
//! and reserved bytes up to 64, so that the cells start on a cache line of
//! a page-aligned mapping; plain and counting filters only. A reader of one
//! kind given a file of the other says so
//! ([`ReadError::WrongKind`](crate::ReadError::WrongKind)), once the
//! checksum has matched; [`SavedFilter`](crate::SavedFilter) reads a file
//! of whichever kind its kind byte names.
//!
//! Ids are append-only: a new layout, hasher or filter kind gets a new
//! number, and a reader rejects numbers it does not know. A change to the
//! meaning of any field, or to how keys map to cells, bumps the format
//! version; the golden files in `tests/golden/` (`v1-*` plain, `v2-counting-*`
//! counting, `v2-growable-*` growable, `v2-windowed-*` windowed, `v3-shared-*`
//! shared) fail CI if
//! that happens by accident.
//!
//! ## Shared files (version 3)
//!
//! A file processes map and insert into together (the
//! [`shared`](super::shared) chapter). Its checksum cannot hold while they
//! write, so the header says whether it does. A process that opens it for
//! writing sets the writer state to `1` (durably) before it changes a
//! word; the last writer to close it writes the checksum over the header
//! with the state `0` and the words, makes that durable, then sets the
//! state to `0`. A reader of bytes (`load`, `from_bytes`, `read_from`)
//! refuses a file marked open before its checksum
//! ([`ReadError::OpenForWriting`](crate::ReadError::OpenForWriting)): it
//! would not match, and the reason is not damage. Opening it shared tells
//! a file live writers have open (they hold its writer lock) from one a
//! writer left open by ending without closing it
//! ([`SharedError::NotClosedCleanly`](crate::SharedError::NotClosedCleanly)).
//! Loaded into memory, a version 3 file is the same filter as the version 1
//! or 2 file of the same cells; `save` writes it as that, and
//! [`to_shared`](crate::Filter::to_shared) as version 3 again, byte for
//! byte (`tests/golden/v3-shared-*`).
//!
//! ## Spark's own format
//!
//! [`SavedFilter`](crate::SavedFilter)'s readers, and so the CLI's and
//! Python's `load`, also take a file in Apache Spark's format (what
//! `BloomFilter.writeTo` writes: a big-endian version, 1 or 2, where this
//! format's magic begins with `0x89`), through
//! [`from_spark_bytes`](crate::Filter::from_spark_bytes), whose docs give
//! its layout; [`to_spark_bytes`](crate::Filter::to_spark_bytes) writes one.
//! It has no checksum; its words are big-endian, so it is read, not mapped.
//! Google Guava's format (`BloomFilter.writeTo`: a strategy byte, `k`, a
//! big-endian word count and words) is read and written by
//! [`GuavaBloom`](crate::GuavaBloom), whose module docs give it.
//!
//! ## The growable filter (version 2, kind 2)
//!
//! An [`AtomicGrowableBloom`](crate::AtomicGrowableBloom) is a chain of plain
//! filters, stored oldest first after its growth parameters:
//!
//! | offset | bytes | field | value |
//! |---|---|---|---|
//! | 0 | 48 | header | as above, with kind `2`; `k` and `m` (bytes 12 to 23) are zero, since each sub-filter has its own |
//! | 48 | 8 | initial capacity `n0` | u64 LE, at least 1 |
//! | 56 | 8 | target rate `p` | f64 LE, strictly between 0 and 1 |
//! | 64 | 8 | growth factor `s` | f64 LE, finite, above 1 |
//! | 72 | 8 | tightening ratio `r` | f64 LE, strictly between 0 and 1 |
//! | 80 | 8 | memory limit | u64 LE bytes; `u64::MAX` for none |
//! | 88 | 4 | maximum sub-filters | u32 LE, 1 to the deepest the parameters allow |
//! | 92 | 4 | sub-filters `L` | u32 LE, 1 to the maximum |
//! | 96 | 32 + `m_i / 8` each | sub-filter `i = 0 .. L` | capacity `ceil(n0 s^i)` (u64 LE), keys it reported new (u64 LE), `m_i` (u64 LE), `k_i` (u32 LE), 4 zero bytes; then its `m_i / 8` bytes of words, as a plain filter's body |
//! | end | 8 | checksum | xxh3-64 of everything before it, u64 LE |
//!
//! Each sub-filter records its own `m` and `k`, so a file does not depend on
//! how a later release would size it. The frame a reader walks before the
//! checksum is the header, `L` and each record's `m`, over the bytes
//! present; the rest is checked after it. `tests/golden/v2-growable-blocked.abf`
//! pins the encoding.
//!
//! ## The windowed filter (version 2, kind 3)
//!
//! An [`AtomicWindowedBloom`](crate::AtomicWindowedBloom) is `g` live
//! generations of one size, stored newest first after the window's
//! parameters and state (the spare generation, always clear, is not
//! stored):
//!
//! | offset | bytes | field | value |
//! |---|---|---|---|
//! | 0 | 48 | header | as above, with kind `3`; `k` and `m` are every generation's |
//! | 48 | 8 | keys per window | u64 LE, at least 1 (for a time window, about how many arrive in it) |
//! | 56 | 8 | target rate `p` | f64 LE, strictly between 0 and 1, over all `g` generations |
//! | 64 | 8 | window | u64 LE: keys, or nanoseconds; at least 1 |
//! | 72 | 1 | window kind | `0` keys, `1` duration |
//! | 73 | 1 | when full | `0` rotate early, `1` keep filling |
//! | 74 | 2 | reserved | zero |
//! | 76 | 4 | generations `g` | u32 LE, 2 to 64 |
//! | 80 | 8 | rotations | u64 LE, at most `2^60` (a writer records a larger count as `2^60`) |
//! | 88 | 8 | generations filled early | u64 LE; 0 for a window of keys |
//! | 96 | 8 | saved at | u64 LE, nanoseconds since the Unix epoch by the writer's system clock; 0 for a window of keys |
//! | 104 | 8 | reserved | zero |
//! | 112 | 16 + `m / 8` each | generation of age `a = 0 .. g` | keys it reported new (u64 LE, at most `m`; a writer records a larger count as `m`); how long before the save it began, in nanoseconds (u64 LE: 0 for a window of keys, `2^64 - 1` if not recorded; a reader takes an age past twice the window, or past `2^62`, as that: such a generation has left the window either way, and the reloaded clock must have room to run); then its `m / 8` bytes of words, as a plain filter's body |
//! | end | 8 | checksum | xxh3-64 of everything before it, u64 LE |
//!
//! A generation older than the first (`a` above the rotations) never
//! existed: its count and words are zero and its age `2^64 - 1`. The frame
//! is the header and `g`. A reader checks the parameters as the builder
//! does, keeps each generation's recorded `m` and `k`, and resumes a time
//! window where it stopped: each generation began its recorded age, plus
//! the system clock's time since the save, before now.
//! `tests/golden/v2-windowed-blocked.abf` pins the encoding of a window of
//! keys; a time window's file differs with the time it was written.
//!
//! ## Validation before allocation, checksum before meaning
//!
//! A reader first checks the *frame*: magic, version, filter kind, layout
//! and `m` (its range, and a whole number of the layout's words or
//! blocks). Those fix
//! the input's length and so where the checksum is. It then checks that
//! the input holds exactly the bytes `m` implies, and only then allocates.
//! A forged `m` therefore costs nothing: what a reader allocates is
//! bounded by the input's length, never by what a header claims. The
//! bounds, beyond the input itself where the caller holds it:
//!
//! - a plain or counting filter, from a byte slice or a file: the filter,
//!   at most the input's length (plus alignment padding); a file's body is
//!   read straight into it;
//! - a growable filter from a byte slice: its sub-filters, at most the
//!   input's length, plus up to 36 KiB of bookkeeping (the chain's nodes,
//!   the sizing of up to 64 sub-filters); a windowed filter: its
//!   generations and the spare, at most 1.5 times the input (a file holds
//!   at least two generations), plus up to 70 KiB (up to 65 slots);
//! - a growable or windowed filter from a file (`load`): the file's bytes
//!   in one buffer of exactly its length, read only as far as the frame
//!   declares (a file followed by a gigabyte of zeros is refused having
//!   read one byte past the frame), then the filter as from a slice: at
//!   most twice the file (growable) or 2.5 times (windowed), plus the same
//!   bookkeeping;
//! - from a generic [`Read`](std::io::Read): what the stream actually
//!   supplies, buffered as bytes arrive (at most twice what was sent, and
//!   as an error, never an abort, if the allocator refuses), then the
//!   filter from the buffer.
//!
//! `tests/hostile_input.rs` caps the process's allocations to prove the
//! slice and stream bounds on a million mutated and forged inputs,
//! `tests/load_memory.rs` the file bounds, and `tests/out_of_memory.rs`
//! that a refusal is an error.
//!
//! Everything else the header says (`k`, hasher id, seed, fingerprint,
//! reserved bytes, and whether the kind is the reader's) is
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
//! and strings (`insert("x")`, `insert(b"x")`, [`Bytes`](crate::Bytes),
//! every CLI line) and one for integers, both the same on every platform;
//! keys passed through [`Hashed`](crate::Hashed) mean what their `Hash`
//! impls write.

//! ## Writing while others insert
//!
//! `write_to`, `to_bytes` and `save` read each word once, as a snapshot
//! does (Memory ordering, G9): the file holds every key inserted before the
//! write began, and a key inserted meanwhile whole, in part or not at all.
//! The checksum covers the bytes actually written, so the file is valid.
//! A counting filter's file likewise holds every count that stood before
//! the write began and was not removed meanwhile.
