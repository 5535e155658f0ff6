//! # Staged adds: a large batch built aside, then merged in one pass
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

use crate::keys::{HashChunk, Order, for_each_chunk};
use atomic_bloom::{AtomicBloom, AtomicCountingBloom};
use pyo3::prelude::*;

/// Staging pays for itself once a batch sets this many bits per word of
/// the filter: the stage costs an array the filter's size, zeroed, and the
/// merge a load and a compare per word (and a locked write per word that
/// gains bits), which a batch of few keys against a large filter would not
/// win back by the overlap.
pub const BITS_PER_WORD: u64 = 4;

/// A filter whose `add_many` may stage.
pub trait Staged {
    /// `add_many` of `keys` through a staged build; `None` where this
    /// filter does not stage, or the batch is too small, or has no `len`,
    /// or the stage cannot be allocated: then the caller inserts directly.
    fn add_many_staged(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Option<usize>>;
}

impl Staged for AtomicBloom {
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

impl Staged for AtomicCountingBloom {
    fn add_many_staged(&self, _: Python<'_>, _: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        Ok(None)
    }
}
