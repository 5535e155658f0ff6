//! # The shared core: one filter, written once
//!
//! Every fixed-size filter is a [`Filter`] over its cells: construction
//! ([`Builder`], `filter.rs`), hashing, per-key inserts and queries, the
//! batch pipeline (`batch.rs`), the parallel forms (`parallel.rs`, with the
//! `rayon` feature), estimates, copies and compatibility. What a kind keeps
//! per bit position is its [`Cells`] (`cells.rs`); the kinds under
//! `kinds/` implement them and add only what is theirs. The growable filter
//! is a chain of plain filters.

pub(crate) mod batch;
pub(crate) mod builder;
pub(crate) mod cells;
pub(crate) mod filter;
#[cfg(feature = "rayon")]
pub(crate) mod parallel;

pub use builder::Builder;
pub use cells::Cells;
pub use filter::{DEFAULT_FALSE_POSITIVE_RATE, Filter};
#[cfg(feature = "rayon")]
pub(crate) use parallel::par_chunked;
