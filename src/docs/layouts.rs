//! # Choosing a layout
//!
//! Bits per key at the requested rate (many items; `k` = bits set per key)
//! and memory touched per operation. Every layout meets the rate it is sized
//! for; the model each is sized with is the [`sizing`](super::sizing) chapter.
//!
//! | [`Layout`](crate::Layout) | 1% | 0.1% | 0.01% | 1e-5 | per operation | `insert` under races |
//! |---|---|---|---|---|---|---|
//! | `Standard` | 9.6 | 14.4 | 19.2 | 24.0 | `k` cache lines | at least one racer gets `true` |
//! | `Blocked` (default) | 9.9 | 15.5 | 22.0 | 29.7 | 1 cache line | at least one racer gets `true` |
//! | `Word` | 12.1 | 24.0 | 45.5 | 86.6 | 1 word, 1 `fetch_or` | exactly one racer gets `true` |
//!
//! - **`Blocked`** is the default: all `k` bits in one 64-byte block, so an
//!   operation costs one cache miss however large the filter, for 1-24% more
//!   memory than `Standard` (more at lower rates).
//! - **`Standard`** uses the least memory and is the textbook filter whose
//!   rate is the classic table by `m/n` and `k` (Fan, Cao, Almeida and
//!   Broder, "Summary Cache", 2000); each operation touches up to `k`
//!   cache lines, which is slow once the filter is larger than the cache.
//! - **`Word`** is for claiming: its `insert` is a single `fetch_or`, so when
//!   threads race to insert a new key exactly one gets `true` (a crawler's
//!   "claim this URL"). It is sensible down to about `p = 1e-3`; below that
//!   its memory grows fast.
//!
//!
//! How a key's hash becomes its positions in each layout is in the source,
//! `src/layout.rs`; how those positions become atomic operations,
//! `src/probe.rs`.
