//! # The filter kinds
//!
//! What each kind adds to the shared core (`core/`): the plain filter's
//! bits and what only bits do (`bloom.rs`), the counting filter's counters
//! and removes (`counting.rs`), the growable filter, a chain of plain
//! filters that adds one when the last fills (`growable/`), and the
//! windowed filter, a ring of plain filters that forgets the oldest
//! (`window/`); the two composites' plain filter with its count of new
//! keys (`counted.rs`); and Google Guava's filter, hashed and laid out as
//! Guava's (`guava.rs`).

pub(crate) mod bloom;
pub(crate) mod counted;
pub(crate) mod counting;
pub(crate) mod growable;
pub(crate) mod guava;
pub(crate) mod window;

pub use bloom::AtomicBloom;
pub use counting::AtomicCountingBloom;
pub use growable::{
    AtomicGrowableBloom, DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, GrowableBuilder,
    MAX_SUB_FILTERS, SubFilterStats,
};
pub use guava::{GuavaBloom, GuavaKey, GuavaStrategy};
pub use window::{
    AtomicWindowedBloom, Clock, DEFAULT_GENERATIONS, MAX_GENERATIONS, ManualClock, MonotonicClock,
    WhenFull, Window, WindowedBuilder,
};
