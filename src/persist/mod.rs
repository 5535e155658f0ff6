//! # Persistence: readers and writers of the file format
//!
//! The format, byte by byte, and the order in which readers check it, are
//! the [`format`](crate::docs::format) chapter. Here, from the bottom up:
//!
//! - `constants.rs`: the magic, the versions, the header sizes;
//! - `errors.rs`: what a file names (`FilterKind`, `HasherId`) and why it
//!   may be refused (`ReadError`);
//! - `bytes.rs`: inputs read to their end or a limit, the summed output,
//!   little-endian helpers;
//! - `header.rs`: the header and its frame, encoded and decoded once for
//!   every kind and version;
//! - `stored.rs`: the three readers (bytes, stream, file) and the writer
//!   of every kind whose body is one array (`Stored`);
//! - `composite.rs`: the framing of the kinds whose body is a run of
//!   records (`Composite`), read whole and checked before their meaning;
//! - the kinds' own parameters and records: `filter.rs` (plain and
//!   counting filters, once for both), `growable.rs`, `window.rs`;
//! - `saved_filter.rs`: a file of whichever kind its header names;
//!   `any_filter.rs`: a file of any format, Guava's too;
//!   `atomic_write.rs`: the atomic save under every `save`;
//! - `guava.rs`: Google Guava's own format (`BloomFilter.writeTo`), for
//!   [`GuavaBloom`](crate::GuavaBloom);
//! - `spark.rs`: Apache Spark's own format (`BloomFilter.writeTo`), read
//!   into a filter and written from one;
//! - `lock.rs`: the advisory locks of a [shared](crate::docs::shared)
//!   file, which `atomic_write` asks before replacing one.

mod any_filter;
pub(crate) mod atomic_write;
mod bytes;
mod composite;
pub(crate) mod constants;
pub(crate) mod errors;
mod filter;
mod growable;
mod guava;
pub(crate) mod header;
#[cfg(all(target_os = "linux", not(loom)))]
pub(crate) mod lock;
pub(crate) mod saved_filter;
mod spark;
pub(crate) mod stored;
mod window;

pub use any_filter::AnyFilter;
pub use atomic_write::atomic_write;
pub use saved_filter::SavedFilter;

pub use constants::{FORMAT_VERSION, MAGIC};
pub use errors::{ChainDefect, FilterKind, HasherId, ReadError, WindowDefect, WriteError};
