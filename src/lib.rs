//! A Bloom filter that many threads share without a lock.
//!
//! [`AtomicBloom`] keeps its bits in `AtomicU64` words and sets them with
//! `fetch_or`, so inserts from every thread run in parallel while every query
//! stays valid. All operations take `&self`.
//!
//! ```
//! use atomic_bloom::AtomicBloom;
//!
//! // A crawler's seen-URL set, shared by every worker thread.
//! let seen = AtomicBloom::new(1_000_000, 0.001)?;
//! std::thread::scope(|s| {
//!     for worker in 0..4 {
//!         let seen = &seen;
//!         s.spawn(move || {
//!             for page in 0..1000 {
//!                 let url = format!("https://example.com/{worker}/{page}");
//!                 if seen.insert(url.as_str()) {
//!                     // first time this filter saw the URL: crawl it
//!                 }
//!             }
//!         });
//!     }
//! });
//! assert!(seen.contains("https://example.com/3/999"));
//! # Ok::<(), atomic_bloom::BuildError>(())
//! ```
//!
//! # What a Bloom filter answers
//!
//! "Have I seen this key?" with one-sided error. `contains` returning `false`
//! is certain: the key was never inserted. `true` means it was inserted, or
//! it is a *false positive*, which happens for a fraction `p` of the keys
//! never inserted, `p` being the rate the filter was sized for at its
//! expected number of items (more items, higher rate). Keys cannot be
//! removed one by one: [`AtomicCountingBloom`] can, for four times the
//! memory; [`clear`](AtomicBloom::clear) removes all. The filter stores no keys, only about `1.44 log2(1/p)` bits
//! per key for the standard layout, which is why it is used as a cheap
//! "surely absent" check in front of something expensive.
//!
//! # The fixed, counting and growable kinds at a glance
//!
//! The plain and counting filters are one type, [`Filter`], over their
//! cells (a bit, or a 4-bit counter, per position): every operation they
//! share is written once and has one name, argument shape and return type.
//! The growable filter is a chain of plain filters with the same surface
//! where it applies; its inserts can fail (a memory or sub-filter limit),
//! so they return a `Result`. Every kind is built the same way:
//! `Kind::new(n, p)`, or `Kind::builder()`, its size by `.capacity(n, p)`,
//! any options, then `.build()`.
//!
//! | operation | [`AtomicBloom`] | [`AtomicCountingBloom`] | [`AtomicGrowableBloom`] | [`AtomicWindowedBloom`] |
//! |---|---|---|---|---|
//! | build | `new(n, p)`, `with_bits`, `with_sizing`, `builder()` | the same | `new(n0, p)`, `builder()` | `new(n, p)`, `builder()` |
//! | builder | `.capacity(n, p)` or `.bits(m, k)`, `.layout`, `.seed`, `.hasher`, `.build()` | the same | `.capacity(n0, p)` (the first sub-filter's keys), `.layout`, `.seed`, `.hasher`, growth and limits, `.build()` | `.capacity(n, p)` (keys per window), `.layout`, `.seed`, `.hasher`, window, generations, clock, `.build()` |
//! | insert | `insert` -> `bool` | `insert` -> `bool` | `insert` -> `Result<bool, GrowthError>` | `insert` -> `bool` (absent from the whole window) |
//! | query | `contains` | `contains`, `count_of` | `contains` | `contains` |
//! | remove | no | `remove` (checked), `remove_unchecked` | no | no (keys leave with their generation) |
//! | by hash | `hash`, `*_hash` | the same | the same | the same |
//! | keys | any [`Key`]: strings and bytes by the byte encoding, integers, [`Hashed`] | the same | the same | the same |
//! | batches | `*_batch`, `*_hash_batch` | the same, and `remove_*_batch` | `*_batch`, `*_hash_batch` | `*_batch`, `*_hash_batch` |
//! | from an iterator, sized for the keys | `collect`, `build_from_iter`, `build_from_par_iter`; `extend`, `par_extend` | the same | no | no |
//! | every core (`rayon`) | `par_insert`, `par_insert_hash_batch`, `par_contains`, `par_union`, `par_clear`, `par_intersect`, `par_count_ones` | `par_insert`, `par_insert_hash_batch`, `par_contains`, `par_union`, `par_clear`, `par_remove_unchecked`, `par_remove` | `par_insert`, `par_contains` | `par_insert`, `par_contains` |
//! | combine | `union` (bits OR-ed), `intersect` | `union` (counts added) | no | no (generations differ in time) |
//! | empty it | `clear(&self)`, `is_empty` | the same | `clear(&mut self)` (drops sub-filters), `is_empty` | `rotate` (the oldest leaves), `is_empty` |
//! | estimates | `estimated_len` -> `Option<u64>`, `estimated_false_positive_rate`, `count_ones` | `estimated_len`, `estimated_false_positive_rate`, `nonzero_counters`, `saturated_counters` | `estimated_len` (counted: always `Some`), `false_positive_rate_bound`, `sub_filter_stats` | `estimated_len` (counted: always `Some`), `estimated_false_positive_rate`, `target_false_positive_rate`, `generations_filled_early`, `keys_per_second` |
//! | size | `num_bits`, `num_hashes`, `layout`, `sizing`, `memory_bytes` | the same (a counter per bit) | `layout`, `memory_bytes`, `sub_filters` | `layout`, `sizing` (each generation's), `generations`, `memory_bytes` |
//! | copy | `try_clone`, `Clone` | the same, and `to_bloom` | `try_clone`, `Clone` | `try_clone`, `Clone` |
//! | files | `save`, `load`, `to_bytes`, `from_bytes`, `write_to`, `read_from`, the `_with_hasher` readers | the same | the same | the same, and `_with_clock` readers (a replay's clock) |
//! | shared by processes (Linux) | `builder().build_shared`, `open_shared`, `to_shared`, `flush`, `close`, `shared_state` | the same | no (saved and loaded) | no (saved and loaded) |
//!
//! [`SavedFilter`] reads a file of any kind.
//!
//! # Only the recent keys
//!
//! [`AtomicWindowedBloom`] holds the keys inserted within a window, of
//! time or of keys, in a lock-free ring of plain filters: older keys
//! leave, so a service that never stops never fills it. Its surface is the
//! plain filter's where it applies (`insert`, `contains`, the `*_hash`,
//! `*_batch` and `par_*` forms, `estimated_len`, `memory_bytes`,
//! `try_clone`, `is_empty`, and the file readers and writers), with
//! `rotate` and the window's own measures.
//!
//! ```
//! use atomic_bloom::{AtomicWindowedBloom, ManualClock, Window};
//! use std::{sync::Arc, time::Duration};
//!
//! // Drop events seen within the last minute (about 10,000 of them).
//! let clock = Arc::new(ManualClock::new()); // the system's clock by default
//! let recent = AtomicWindowedBloom::builder().capacity(10_000, 0.01)
//!     .window(Window::Duration(Duration::from_secs(60)))
//!     .clock(clock.clone())
//!     .build()?;
//! assert!(!recent.contains("event-1"));
//! recent.insert("event-1");
//! clock.advance(Duration::from_secs(59));
//! assert!(recent.contains("event-1")); // within the minute
//! clock.advance(Duration::from_secs(60));
//! assert!(!recent.contains("event-1")); // gone
//! # Ok::<(), atomic_bloom::BuildError>(())
//! ```
//!
//! # Where to read on
//!
//! - A program that takes a filter of any kind (one read from a file of
//!   unknown kind is a [`SavedFilter`]) calls it through [`Membership`],
//!   the surface the four kinds share.
//! - Which calls see the same key, and how to save a filter that every
//!   program reads the same: [`docs::keys`], [`docs::format`].
//! - Which layout to choose: [`docs::layouts`]; what the sizes rest on and
//!   the limits: [`docs::sizing`].
//! - What each operation promises while other threads run, and the model
//!   check behind each promise: [`docs::memory_ordering`].
//! - One filter that several processes map and insert into, and what a
//!   crash leaves: [`docs::shared`].
//! - Filters the JVM built: Spark's ([`Layout::Spark`], [`SparkHasher`],
//!   [`Filter::from_spark_bytes`]) and Guava's ([`GuavaBloom`]), read and
//!   written bit for bit.
//! - Many keys at once: [`insert_batch`](AtomicBloom::insert_batch) and,
//!   with the default `rayon` feature, `par_insert` and friends; `collect`
//!   sizes a filter for the keys it is given.
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod core;
pub mod docs;
mod error;
mod hasher;
mod hints;
mod key;
mod kinds;
mod layout;
mod membership;
mod parquet_hasher;
mod persist;
#[cfg(all(target_os = "linux", not(loom)))]
mod shared;
mod sizing;
mod spark_hasher;
mod storage;
mod sync;

pub use crate::core::{Builder, Cells, DEFAULT_FALSE_POSITIVE_RATE, Filter};
pub use error::{BuildError, GrowthError, IncompatibleError};
pub use hasher::{WyBuildHasher, WyHasher};
pub use key::{Bytes, Hashed, Key};
pub use kinds::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, Clock,
    DEFAULT_GENERATIONS, DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, GrowableBuilder,
    GuavaBloom, GuavaKey, GuavaStrategy, MAX_GENERATIONS, MAX_SUB_FILTERS, ManualClock,
    MonotonicClock, SubFilterStats, WhenFull, Window, WindowedBuilder,
};
pub use layout::{Layout, MAX_HASHES, ParseLayoutError};
pub use membership::Membership;
pub use parquet_hasher::{ParquetHasher, ParquetKeyHasher};
pub use persist::{
    AnyFilter, ChainDefect, FORMAT_VERSION, FilterKind, HasherId, MAGIC, ReadError, SavedFilter,
    WindowDefect, WriteError,
};
#[cfg(all(target_os = "linux", not(loom)))]
pub use shared::{SharedError, SharedOptions, SharedState};
pub use sizing::{MAX_BITS, Sizing, hash_floor};
pub use spark_hasher::{SparkHasher, SparkKeyHasher};
pub use storage::{BitArray, CounterArray};
#[cfg(loom)]
#[doc(hidden)]
pub use sync::fault;

/// Not part of the API, and only with the `internals` feature: the atomic
/// save under every `save` (for the workspace's CLI, whose saves stop on a
/// signal), and the prefetch and huge-page hints the filter issues (for
/// the benchmark baselines, whose probes must run under the same
/// conditions). Free to change in any release.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::hints::{Access, advise_huge_pages, prefetch};
    pub use crate::persist::atomic_write;
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
