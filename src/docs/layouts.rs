//! # Choosing a layout
//!
//! Bits per key at the requested rate (many items; `k` = bits set per key)
//! and memory touched per operation. Every layout meets the rate it is sized
//! for; the model each is sized with is the [`sizing`](super::sizing) chapter.
//!
//! | [`Layout`](crate::Layout) | 1% | 0.1% | 0.01% | 1e-5 | per operation | `insert` under races |
//! |---|---|---|---|---|---|---|
//! | `Standard` | 9.6 | 14.4 | 19.2 | 24.0 | `k` cache lines | at least one racer gets `true` |
//! | `Blocked` (default) | 10.1 | 15.7 | 22.3 | 30.0 | 1 cache line | at least one racer gets `true` |
//! | `Word` | 12.1 | 24.0 | 45.5 | 86.6 | 1 word, 1 `fetch_or` | exactly one racer gets `true` |
//! | `Sectorized` | 10.3 | 17.0 | 26.0 | 38.3 | 1 cache line, 2 `fetch_or`s | at least one racer gets `true` |
//! | `SplitBlock` | 10.5 | 16.9 | 26.3 | 41.0 | 1 cache line, up to 4 `fetch_or`s | at least one racer gets `true` |
//!
//! - **`Blocked`** is the default: all `k` bits in one 64-byte block, so an
//!   operation costs one cache miss however large the filter, for 1-25% more
//!   memory than `Standard` (more at lower rates). Each of its bits is set
//!   with its own locked instruction, so it takes a `k` below the one with
//!   the fewest bits where that costs at most 2.5% more memory
//!   ([sizing](super::sizing#fewer-hashes-for-blocked)).
//! - **`Standard`** uses the least memory and is the textbook filter whose
//!   rate is the classic table by `m/n` and `k` (Fan, Cao, Almeida and
//!   Broder, "Summary Cache", 2000); each operation touches up to `k`
//!   cache lines, which is slow once the filter is larger than the cache.
//! - **`Word`** is for claiming: its `insert` is a single `fetch_or`, so when
//!   threads race to insert a new key exactly one gets `true` (a crawler's
//!   "claim this URL"). It is sensible down to about `p = 1e-3`; below that
//!   its memory grows fast.
//! - **`Sectorized`** puts half of the `k` bits in one word of the block's
//!   first half and half in one word of its second half: a new key costs
//!   two read-modify-writes instead of up to `k`, a query two loads, for 1.4%
//!   more memory than `Blocked` at 1% and 8.8% more at 0.1%. This is the
//!   cache-sectorized blocked filter of Lang, Neumann, Kemper and Boncz,
//!   "Performance-Optimal Filtering: Bloom Overtakes Cuckoo at High
//!   Throughput" (VLDB 2019), with two sectors of four words. Against
//!   `Blocked` it inserts new keys faster and answers queries at about the
//!   same speed, one cache miss either way (`cargo run --release -p
//!   atomic-bloom-harness -- bench` pairs them; BENCHMARKS.md has the
//!   runs). It is not the default because queries do not win; choose it
//!   for insert-heavy work.
//! - **`SplitBlock`** is Apache Parquet's split block Bloom filter
//!   (parquet-format, `BloomFilter.md`): a 256-bit block of eight 32-bit
//!   lanes, one bit per lane picked by a salted multiply of the hash's low
//!   half, so `k` is always 8. Its masks need no loop and no branch, eight
//!   multiplies and shifts that LLVM vectorises where the target has a
//!   32-bit lane multiply; a query tests four words of one line, an insert
//!   ORs into those of the four that lack a bit. Its bits for a given 64-bit hash are Parquet's, which is
//!   what lets such a filter be written into a Parquet file. It takes 4%
//!   more memory than `Blocked` at 1% and 8% more at 0.1%, and its fixed
//!   `k` costs more still at lower rates.
//!
//! ## How an insert writes
//!
//! Every insert first loads the key's words and returns `false` at once if
//! every bit is set: a key already present writes nothing, so its cache line
//! stays shared between the cores that read it, and a duplicate insert
//! costs what a query costs. Only a key with a bit missing writes:
//!
//! - `Blocked` and `Standard` set each bit with its own one-bit `fetch_or`
//!   whose old value is not used, which x86-64 compiles to one `lock or`.
//!   The insert's result is its test's: `true` if a bit was clear
//!   (`docs::memory_ordering`, G4). Returning instead whether a `fetch_or`
//!   changed its bit, as inserts used to, needs the old value, which
//!   x86-64 gives for one bit with a `lock bts` (slower than a `lock or`),
//!   and for a wider mask only with a `lock cmpxchg` retry loop (slower
//!   again; AArch64 with LSE atomics has `ldset` for both). Taking the
//!   result from the test sped up new-key inserts in and out of cache, on
//!   one thread and in `par_insert` (BENCHMARKS.md, with the commands).
//!   Where the result was dropped, the compiler had already made the
//!   `lock bts` a `lock or`.
//! - `Word` sets all bits with one `fetch_or` of the key's mask and uses
//!   its old value: that one read-modify-write is what makes it an atomic
//!   test-and-set, so that exactly one racer is told a key is new.
//! - `Sectorized` sets each of its two words with one `fetch_or` of the
//!   key's mask in it, old values unused: two `lock or` on x86-64, against
//!   up to `k` for `Blocked`; `SplitBlock` likewise each of its four
//!   that lacks a bit of the key.
//!
//! Before its test, every insert prefetches the key's lines for reading.
//! The test's loads would otherwise wait for the previous insert's locked
//! instructions to complete, so that one key's miss began only when the
//! last key's writes ended; a prefetch is not ordered with locked
//! instructions, and the miss overlaps them: `Blocked` inserts of new
//! keys gained most with 100M keys on two threads (BENCHMARKS.md).
//!
//! The test is what keeps duplicates cheap, and it costs new keys little.
//! A filter with the same bit positions that tests nothing first
//! (`baselines::PerBitBlocked`) inserts new keys at about our speed, but
//! writes every duplicate's line, at about half the speed of our query,
//! where our duplicates run at a query's speed (`cargo run --release -p
//! atomic-bloom-harness -- bench` pairs them; BENCHMARKS.md has the runs).
//!
//! ## How a query reads
//!
//! A query loads the key's words and tests every one of its bits, with no
//! branch per bit and no early exit: in a filter near its capacity about
//! half the bits are set, and a branch on each would mispredict for about
//! half of absent keys. Returning at the first clear bit was measured both
//! ways: it slowed hits and misses in a filter near its capacity, and
//! sped up misses only in a sparse one (the runs are in BENCHMARKS.md's
//! git history).
//! With the filter in cache, a query's cost is its instructions, so the
//! per-key calls are always inlined (`contains_hash` and `insert_hash`
//! say what that gained).
//!
//! Each layout is one file of the source, `src/layout/`: how a key's hash
//! becomes its positions, how those become atomic operations, and its
//! false-positive model.
