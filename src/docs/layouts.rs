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
//!   `Blocked` at 1% on AMD Zen 4 it inserts new keys 1.4-1.5x faster and
//!   answers queries at about the same speed (hits 1.00-1.07x, misses
//!   0.96-1.06x, one cache miss either way; `atomic-bloom-harness bench`, three
//!   runs, in BENCHMARKS.md). It is not the default because queries do not
//!   win; choose it for insert-heavy work.
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
//!   again; AArch64 with LSE atomics has `ldset` for both). On AMD Zen 4,
//!   new keys went from 57.0-57.3 to 66.2-66.6 M/s with 1M keys and from
//!   10.1-10.5 to 14.4-15.1 with 100M (1 thread, each result used),
//!   `par_insert` from 98.7-100.7 to 110.3-113.5 and from 65.5-79.5 to
//!   90.6-97.9 M/s, and `Standard` inserts from 26.3-26.5 to 28.2-28.4
//!   with 1M keys (three alternating runs of `atomic-bloom-harness bench` each).
//!   Where the result was dropped, the compiler had already made the
//!   `lock bts` a `lock or`: those rows did not move. The `lock cmpxchg`
//!   loop, one per word, had cost a new-key insert 1.3-1.6x against the
//!   `lock bts` (1M keys, 1 thread: 29.6 M/s then, 47.7 with `lock bts`).
//! - `Word` sets all bits with one `fetch_or` of the key's mask and uses
//!   its old value: that one read-modify-write is what makes it an atomic
//!   test-and-set, so that exactly one racer is told a key is new.
//! - `Sectorized` sets each of its two words with one `fetch_or` of the
//!   key's mask in it, old values unused: two `lock or` on x86-64, against
//!   up to `k` for `Blocked`.
//!
//! Before its test, every insert prefetches the key's lines for reading.
//! The test's loads would otherwise wait for the previous insert's locked
//! instructions to complete, so that one key's miss began only when the
//! last key's writes ended; a prefetch is not ordered with locked
//! instructions, and the miss overlaps them. On AMD Zen 4 `Blocked`
//! inserts of new keys went from 47.4-47.7 to 50.0-50.3 M/s with 1M keys on
//! 1 thread, and from 13.0-13.7 to 14.9-21.0 with 100M keys on 2
//! (`atomic-bloom-harness bench`, best-of-three rows, two runs before and three
//! after; BENCHMARKS.md has the ratios).
//!
//! The test is what keeps duplicates cheap, and it costs new keys little.
//! A filter with the same bit positions that tests nothing first
//! (`baselines::PerBitBlocked`) inserts new keys at our speed on Zen 4 on
//! one thread (ours 0.99-1.03x its speed with 1M keys, 1.02-1.04x with
//! 100M) and 1.00-1.11x ours on two, but writes every duplicate's line, at
//! 0.43-0.44x the speed of our query (0.60-0.63x with 100M keys), where
//! our duplicates run at a query's speed (`atomic-bloom-harness bench`, three
//! runs). The README's benchmark section has the current ratios.
//!
//! ## How a query reads
//!
//! A query loads the key's words and tests every one of its bits, with no
//! branch per bit and no early exit: in a filter near its capacity about
//! half the bits are set, and a branch on each would mispredict for about
//! half of absent keys. Returning at the first clear bit was measured both
//! ways on Zen 4: with 1M keys, hits fell from 111 to 94 M/s and misses
//! from 106 to 71; only in a sparse filter (20M keys in one sized for
//! 100M) did misses gain, from 16.1 to 28.6 M/s (a harness outside the
//! repository; BENCHMARKS.md's "What bounds the misses" has the details).
//! With the filter in cache, a query's cost is its instructions, so the
//! per-key calls are always inlined (`contains_hash` and `insert_hash`
//! say what that gained).
//!
//! How a key's hash becomes its positions in each layout is in the source,
//! `src/layout.rs`; how those positions become atomic operations,
//! `src/probe.rs`.
