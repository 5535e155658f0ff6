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
//! removed one by one (that needs a counting filter); [`clear`](AtomicBloom::clear)
//! removes all. The filter stores no keys, only about `1.44 log2(1/p)` bits
//! per key for the standard layout, which is why it is used as a cheap
//! "surely absent" check in front of something expensive.
//!
//! # Choosing a layout
//!
//! Bits per key at the requested rate (many items; `k` = bits set per key)
//! and memory touched per operation. Every layout meets the rate it is sized
//! for; the model each is sized with is in the [`Sizing`] docs.
//!
//! | [`Layout`] | 1% | 0.1% | 0.01% | 1e-5 | per operation | `insert` under races |
//! |---|---|---|---|---|---|---|
//! | `Standard` | 9.6 | 14.4 | 19.2 | 24.0 | `k` cache lines | at least one racer gets `true` |
//! | `Blocked` (default) | 9.9 | 15.5 | 22.0 | 29.7 | 1 cache line | at least one racer gets `true` |
//! | `Word` | 12.1 | 24.0 | 45.5 | 86.6 | 1 word, 1 `fetch_or` | exactly one racer gets `true` |
//!
//! - **`Blocked`** is the default: all `k` bits in one 64-byte block, so an
//!   operation costs one cache miss however large the filter, for 3-24% more
//!   memory than `Standard` (more at lower rates).
//! - **`Standard`** uses the least memory and is the textbook filter whose
//!   rate is seed 004's `m/n × k` table; each operation touches up to `k`
//!   cache lines, which is slow once the filter is larger than the cache.
//! - **`Word`** is for claiming: its `insert` is a single `fetch_or`, so when
//!   threads race to insert a new key exactly one gets `true` (a crawler's
//!   "claim this URL"). It is sensible down to about `p = 1e-3`; below that
//!   its memory grows fast.
//!
//! # Concurrency contract
//!
//! Any number of threads may call any mix of operations on one filter.
//!
//! - **No lost inserts.** Concurrent inserts of different keys never undo
//!   each other's bits, even in the same word; after all of them finish the
//!   bit array is the same as if they had run one after another.
//! - **No false negatives across happens-before.** If an insert of `x`
//!   happens-before a `contains(x)` (same thread, `join`, a channel, a
//!   mutex, a Release/Acquire flag), `contains(x)` is `true`. A `contains`
//!   racing with the insert may see the key or not, and once a thread has
//!   seen `true` its later queries of that key see `true` (until a `clear`).
//! - **`insert`'s result** is `true` iff the call set a bit: see
//!   [`AtomicBloom::insert`] for what that means per layout under races.
//! - **`clear`, `union`, `intersect`, counts and clones** act word by word:
//!   what they promise about inserts running at the same time is on each
//!   method.
//! - **Not a synchronization primitive.** Every bit operation is `Relaxed`:
//!   the filter orders nothing but its own bits. A `true` from `contains`
//!   may be a false positive, so it can never tell a thread that some other
//!   data is ready.
//!
//! # Limits
//!
//! Index and size arithmetic is 64-bit (128-bit for range reduction), so a
//! filter may exceed 2^32 bits; the maximum is [`MAX_BITS`] and at most
//! [`MAX_HASHES`] bits per key. Every constructor returns a [`BuildError`]
//! for input it cannot honour, including a size the allocator refuses.
#![warn(missing_docs)]

mod bit_array;
mod error;
mod filter;
mod hasher;
mod layout;
mod sizing;
mod sync;

pub use error::{BuildError, IncompatibleError};
pub use filter::{AtomicBloom, Builder, DEFAULT_FALSE_POSITIVE_RATE};
pub use hasher::{WyBuildHasher, WyHasher};
pub use layout::Layout;
pub use sizing::Sizing;

/// The largest bit array a filter may have: 2^43 bits, 1 TiB.
///
/// ```
/// use atomic_bloom::{AtomicBloom, BuildError, MAX_BITS};
/// assert!(matches!(AtomicBloom::with_bits(MAX_BITS + 1, 3), Err(BuildError::TooLarge { .. })));
/// ```
pub const MAX_BITS: u64 = 1 << 43;

/// The most bits a key may set (`k`).
///
/// ```
/// use atomic_bloom::{AtomicBloom, BuildError, MAX_HASHES};
/// assert!(matches!(
///     AtomicBloom::with_bits(1024, MAX_HASHES + 1),
///     Err(BuildError::InvalidNumHashes { .. })
/// ));
/// ```
pub const MAX_HASHES: u32 = 64;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
