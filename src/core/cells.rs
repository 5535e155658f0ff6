//! # Cells: what a filter keeps for each bit position
//!
//! A filter is one [`Filter`](crate::Filter) whatever it keeps per bit
//! position; its cells are the one thing that differs. A plain filter keeps
//! a bit ([`BitArray`](crate::BitArray)), a counting filter a 4-bit counter
//! ([`CounterArray`](crate::CounterArray)). Everything else (sizing,
//! hashing, probes, batches, the parallel forms, estimates, copies, the
//! file format) is written once, over the [`Cells`] trait, and each cell
//! type says how a key's probe tests, sets or prefetches its cells. The
//! plain filter's cells are implemented in `kinds/bloom.rs`, the counting
//! filter's in `kinds/counting.rs`.
//!
//! The trait is sealed: its methods are the crate's own, and no other type
//! can be a filter's cells.

use crate::error::BuildError;
use crate::hints::Access;
use crate::layout::Probe;
use crate::sizing::Sizing;
use crate::storage::BitArray;
use std::ops::Range;

/// The cells of a filter: [`BitArray`](crate::BitArray) (a plain filter,
/// [`AtomicBloom`](crate::AtomicBloom)) or
/// [`CounterArray`](crate::CounterArray) (a counting filter,
/// [`AtomicCountingBloom`](crate::AtomicCountingBloom)). Sealed: it names
/// the two, and no other type implements it.
#[allow(private_bounds)] // The seal: `Storage` is the crate's own.
pub trait Cells: Storage {}

impl<T: Storage> Cells for T {}

/// What a filter needs of its cells. Each method that takes a probe is
/// always inlined: it is the body of every per-key call and batch loop.
pub(crate) trait Storage: Sized + Send + Sync {
    /// Bits per cell: 1 for a bit, 4 for a counter (what a file records).
    const CELL_BITS: u64;
    /// The filter's type name, for `Debug` and for panics.
    const NAME: &'static str;

    /// Zeroed cells for a filter of `sizing`, one per bit position.
    fn zeroed(sizing: &Sizing) -> Result<Self, BuildError>;
    /// The cells whose words are `words` (a file's body).
    fn from_words(words: BitArray) -> Self;

    /// Whether a per-key call picks its probe type by `k` as well as by
    /// layout (`with_sized_probe!` rather than `with_probe!`; the filter's
    /// per-key calls are the one place that picks, `core/filter.rs`).
    const SIZED_PER_KEY: bool;

    /// Inserts the key of probe `probe`: whether it made the key present
    /// (a cell of it was zero).
    fn insert<P: Probe>(&self, sizing: &Sizing, probe: &P) -> bool;
    /// Whether every cell of the key of probe `probe` is above zero.
    fn contains<P: Probe>(&self, sizing: &Sizing, probe: &P) -> bool;
    /// Asks the CPU for the lines of the key's cells.
    fn prefetch<P: Probe>(&self, sizing: &Sizing, probe: &P, access: Access);
    /// A per-key insert (no batch asked for its lines ahead):
    /// [`insert`](Self::insert), unless the cells ask for the lines first.
    #[inline(always)]
    fn insert_one<P: Probe>(&self, sizing: &Sizing, probe: &P) -> bool {
        self.insert(sizing, probe)
    }

    /// Words in use.
    fn num_words(&self) -> usize;
    /// The current value of each word of `range`, each read once.
    fn words(&self, range: Range<usize>) -> impl Iterator<Item = u64> + '_;
    /// The words a plain filter of the same keys would hold: bit `i` set iff
    /// cell `i` is above zero.
    fn bit_words(&self) -> impl Iterator<Item = u64> + '_;
    /// How many cells are above zero.
    fn nonzero_cells(&self, range: Range<usize>) -> u64;
    /// Sets every cell of `range` to zero.
    fn clear(&self, range: Range<usize>);
    /// Adds `other`'s cells of `range` to these: an OR of bits, a saturating
    /// sum of counts.
    fn union(&self, other: &Self, range: Range<usize>);
    /// A copy, or `None` if the allocator refuses.
    fn snapshot(&self) -> Option<Self>;
    /// Bytes of memory the cells take.
    fn memory_bytes(&self) -> usize;
    /// The words the cells are kept in (where they live: `shared/`).
    #[cfg_attr(any(loom, not(target_os = "linux")), allow(dead_code))] // Used by `shared/`.
    fn bit_array(&self) -> &BitArray;
}
