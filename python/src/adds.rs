//! # Adding keys: one `add` and one `add_many` for every class
//!
//! [`Adds`] is what a class's filter needs to add keys; [`add`] and
//! [`add_many`] are the bodies of every class's methods of those names.
//!
//! ## Staged adds: a large batch built aside, then merged in one pass
//!
//! `add_many` promises that nothing reaches the filter before every key is
//! taken, so a bad key, an error from the iterable or Ctrl-C leaves it
//! unchanged. Inserting into the filter itself must then wait for the last
//! key, and taking keys (one core, the GIL held) and inserting them run one
//! after the other. A batch large against the filter is instead inserted
//! into a private filter of the same parameters by a helper thread while
//! the caller takes the next chunk of keys, then merged in with one
//! `union`: the two overlap, which `python python/bench/peers.py` measures
//! (its `add_many` rows). Keys the shared filter already holds are not
//! staged.
//! Readers see the batch's keys once the merge has
//! passed their words: when `add_many` returns, all of them.
//!
//! Staging pays an array the filter's size and a pass over it, so it is
//! taken when the batch sets at least [`BITS_PER_WORD`] bits per word of
//! the filter; only the plain filter stages (a counting filter's counts
//! would add up the same way, but its `add_many` counts keys already in the
//! filter as not new, which needs a per-key answer the staged build does
//! not give).

use crate::errors::growth_error;
use crate::keys::{
    HashChunk, Order, for_each_chunk, hash_now, spread_keys_first, try_for_each_chunk,
};
use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, Membership,
    ParquetHasher, SparkHasher, WyBuildHasher,
};
use pyo3::prelude::*;
use std::hash::BuildHasher;

/// Staging pays for itself once a batch sets this many bits per word of
/// the filter: the stage costs an array the filter's size, zeroed, and the
/// merge a load and a compare per word (and a locked write per word that
/// gains bits), which a batch of few keys against a large filter would not
/// win back by the overlap.
pub const BITS_PER_WORD: u64 = 4;

/// A filter's `add` and `add_many`, written once for every class over the
/// library's [`Membership`]: what differs by kind is only whether a batch
/// may stage ([`add_many_staged`](Self::add_many_staged)) and whether it
/// may spread over the cores ([`SPREADS`](Self::SPREADS)).
pub trait Adds: Membership {
    /// The hasher a key's bytes go through.
    type Hasher: BuildHasher + Sync;

    /// Whether `add_many` may insert its chunks on several cores at once:
    /// not where an insert can fail (a growable filter at a limit), since
    /// then the keys before the failing one must be in, and no later one.
    const SPREADS: bool = true;

    /// The filter's hasher.
    fn key_hasher(&self) -> &Self::Hasher;

    /// `add_many` of `keys` through a staged build; `None` where this
    /// filter does not stage, or the batch is too small, or has no `len`,
    /// or the stage cannot be allocated: then the caller inserts directly.
    fn add_many_staged(&self, _: Python<'_>, _: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        Ok(None)
    }
}

/// Adds `key` to `filter`; whether it was absent. A growable filter at a
/// limit raises `FilterFullError`, the key not added.
pub fn add<F: Adds>(filter: &F, key: &Bound<'_, PyAny>) -> PyResult<bool> {
    let hash = hash_now(key, filter.key_hasher())?;
    filter.try_insert_hash(hash).map_err(growth_error)
}

/// Adds every key of `keys` to `filter`; how many were absent. Every key
/// is taken and checked first, so a bad key or an error from the iterable
/// raises with nothing added; then the keys go in staged, spread over the
/// cores, or (a filter that does not spread) in order, where a
/// `FilterFullError` leaves the keys before the one that did not fit.
pub fn add_many<F: Adds>(py: Python<'_>, filter: &F, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Some(new) = filter.add_many_staged(py, keys)? {
        return Ok(new);
    }
    let counts = if F::SPREADS {
        spread_keys_first(py, keys, filter.key_hasher(), |hashes| {
            filter.try_insert_hash_batch(hashes)
        })?
        .into_iter()
        .collect::<Result<Vec<usize>, _>>()
        .map_err(growth_error)?
    } else {
        try_for_each_chunk(py, keys, filter.key_hasher(), Order::KeysFirst, |hashes| {
            filter.try_insert_hash_batch(hashes).map_err(growth_error)
        })?
    };
    Ok(counts.into_iter().sum())
}

impl Adds for AtomicBloom {
    type Hasher = WyBuildHasher;

    fn key_hasher(&self) -> &WyBuildHasher {
        self.hasher()
    }

    fn add_many_staged(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        // An iterable without a length (a generator) is not staged: its
        // size is known only at its end.
        let Ok(len) = keys.len() else {
            return Ok(None);
        };
        // Beside another bulk call, each would build and merge a stage the
        // filter's size: inserting directly shares the work instead.
        if crate::keys::bulk_calls_in_progress() {
            return Ok(None);
        }
        let bits = len as u64 * u64::from(self.num_hashes());
        if len <= HashChunk::KEYS || bits < BITS_PER_WORD * self.num_bits().div_ceil(64) {
            return Ok(None);
        }
        let Ok(stage) = AtomicBloom::with_sizing(self.sizing(), *self.hasher()) else {
            return Ok(None);
        };
        let counts = for_each_chunk(py, keys, self.hasher(), Order::Pipelined, |hashes| {
            let present = self.contains_hash_batch(hashes.iter().copied());
            let absent: Vec<u64> = hashes
                .iter()
                .zip(present)
                .filter_map(|(&hash, present)| (!present).then_some(hash))
                .collect();
            stage.insert_hash_batch(absent)
        })?;
        py.detach(|| self.union(&stage))
            .map_err(crate::errors::incompatible)?;
        Ok(Some(counts.into_iter().sum()))
    }
}

/// The kinds that add as their `Membership` does, with their hashers.
macro_rules! adds {
    ($($kind:ty => $hasher:ty $(, spreads: $spreads:literal)?;)*) => {$(
        impl Adds for $kind {
            type Hasher = $hasher;
            $(const SPREADS: bool = $spreads;)?

            fn key_hasher(&self) -> &$hasher {
                self.hasher()
            }
        }
    )*};
}

adds! {
    AtomicCountingBloom => WyBuildHasher;
    AtomicBloom<ParquetHasher> => ParquetHasher;
    AtomicBloom<SparkHasher> => SparkHasher;
    AtomicWindowedBloom => WyBuildHasher;
    AtomicGrowableBloom => WyBuildHasher, spreads: false;
}
