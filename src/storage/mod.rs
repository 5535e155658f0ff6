//! # Storage: the atomic arrays a filter keeps its cells in
//!
//! The bottom layer: arrays of `AtomicU64` words that know nothing of keys,
//! hashes or layouts. [`BitArray`] holds a plain filter's bits,
//! [`CounterArray`] a counting filter's 4-bit counters in the same kind of
//! allocation; `StripedCount` is the count of new keys that many threads
//! add to without sharing a line. Every atomic operation on a filter's memory is in the first two
//! files, each with its `// ORDERING:` note. `words.rs` says where an
//! array's words live: on the heap, or in a file other processes map.

pub(crate) mod bit_array;
pub(crate) mod counter_array;
pub(crate) mod striped_count;
pub(crate) mod words;

pub use bit_array::BitArray;
pub use counter_array::CounterArray;
pub(crate) use striped_count::StripedCount;

/// Shows the size, not the words.
impl std::fmt::Debug for BitArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitArray")
            .field("num_words", &self.num_words())
            .finish_non_exhaustive()
    }
}

/// Shows the size, not the counters.
impl std::fmt::Debug for CounterArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CounterArray")
            .field("num_words", &self.num_words())
            .finish_non_exhaustive()
    }
}
