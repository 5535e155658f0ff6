//! # The design, in chapters
//!
//! Long-form documentation, with no code: what each part of the crate
//! promises and why, for users who need the details and for readers who
//! want to learn how the crate reasons about lock-free code. Each chapter
//! names the tests that check its claims.
//!
//! - [`keys`]: which calls see the same key; the byte encoding that makes
//!   a saved filter mean the same in every program and language.
//! - [`layouts`]: choosing a layout: bits per key, memory touched per
//!   operation, what `insert` promises under races.
//! - [`sizing`]: the false-positive model each layout is sized with, and
//!   the limits (size, `k`, the hash floor).
//! - [`growable`]: the growable filter: how a chain of filters keeps a
//!   rate bound however many keys arrive, how it grows without a lock, its
//!   limits.
//! - [`memory_ordering`]: the concurrency contract, guarantee by guarantee
//!   (G1-G16, W1-W6), why the ordering of each is enough, and the loom model that
//!   checks it.
//! - [`format`](mod@format): the file format byte by byte, and how readers validate it
//!   before they allocate or believe it.
//! - [`shared`]: one filter that many processes map and insert into; what
//!   holds across processes and what a crash leaves.

pub mod format;
pub mod growable;
pub mod keys;
pub mod layouts;
pub mod memory_ordering;
pub mod shared;
pub mod sizing;
