//! # `CountingBloomFilter`: the filter that removes keys, for Python
//!
//! A `frozen` class around an `AtomicCountingBloom` (4-bit counters), built
//! like [`crate::bloom`]'s: `&self` methods, the GIL released per chunk in
//! bulk calls, the library's format for saving and pickling.

use crate::bloom::BloomFilter;
use crate::errors::{build_error, incompatible};
use crate::keys::{Order, for_each_chunk, hash_now};
use atomic_bloom::AtomicCountingBloom;
use pyo3::prelude::*;

/// A Bloom filter with 4-bit counters, so that keys can be removed; many
/// threads share it without a lock.
///
/// Remove only keys that were added: removing another key that happens to
/// share its counters makes a key that was added disappear. `remove`
/// checks first by default, which prevents that for keys the filter
/// reports absent.
#[pyclass(module = "atomic_bloom", name = "CountingBloomFilter", frozen)]
pub struct CountingBloomFilter {
    inner: AtomicCountingBloom,
}

filter_methods!(
    fixed CountingBloomFilter(AtomicCountingBloom),
    "a counting filter",
    {
        /// Removes one occurrence of `key`; returns whether it was removed.
        ///
        /// With `checked` (the default) a key the filter reports absent is left
        /// alone; `checked=False` decrements its counters regardless, which is
        /// faster and right only for keys known to have been added.
        #[pyo3(signature = (key, *, checked = true))]
        fn remove(&self, key: &Bound<'_, PyAny>, checked: bool) -> PyResult<bool> {
            let hash = hash_now(key, self.inner.hasher())?;
            Ok(if checked {
                self.inner.remove_hash(hash)
            } else {
                self.inner.remove_hash_unchecked(hash)
            })
        }

        /// At most how many times `key` was added and not removed: its smallest
        /// counter, 15 standing for 15 or more.
        fn count(&self, key: &Bound<'_, PyAny>) -> PyResult<u8> {
            Ok(self
                .inner
                .count_of_hash(hash_now(key, self.inner.hasher())?))
        }

        /// Removes one occurrence of every key of an iterable, in order, with
        /// the GIL released; returns how many were removed. `checked` as for
        /// `remove`: a key repeated in the iterable is checked before each
        /// removal. Every key is taken and checked first: a bad key raises
        /// with nothing removed, so a retried call removes no key twice.
        #[pyo3(signature = (keys, *, checked = true))]
        fn remove_many(
            &self,
            py: Python<'_>,
            keys: &Bound<'_, PyAny>,
            checked: bool,
        ) -> PyResult<usize> {
            let counts =
                for_each_chunk(py, keys, self.inner.hasher(), Order::KeysFirst, |hashes| {
                    if checked {
                        self.inner.remove_hash_batch(hashes.iter().copied())
                    } else {
                        self.inner.remove_hash_batch_unchecked(hashes.iter().copied())
                    }
                })?;
            Ok(counts.into_iter().sum())
        }

        /// A new filter with the counts of both added (`self + other`), as
        /// `collections.Counter` adds: the filter of both filters' adds.
        fn __add__(&self, py: Python<'_>, other: &Self) -> PyResult<Self> {
            let sum = self.copy(py)?;
            sum.__iadd__(py, other)?;
            Ok(sum)
        }

        /// Adds `other`'s counts to this filter's (`self += other`), each
        /// counter's sum stopping at 15; the filters of a partitioned build
        /// add up to the filter of all of it.
        fn __iadd__(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
            py.detach(|| self.inner.union(&other.inner))
                .map_err(incompatible)
        }

        /// A plain `BloomFilter` of the same parameters with a bit set where a
        /// counter is above zero: the same answers, in a quarter of the memory.
        fn to_bloom(&self) -> PyResult<BloomFilter> {
            self.inner
                .to_bloom()
                .map(|inner| BloomFilter { inner })
                .map_err(build_error)
        }

        /// Counters stuck at 15. They are never decremented (that could make a
        /// key disappear); with the sizes the constructor picks, expect none.
        fn saturated_counters(&self) -> u64 {
            self.inner.saturated_counters()
        }

        /// Counters in the filter.
        #[getter]
        fn num_counters(&self) -> u64 {
            self.inner.num_bits()
        }

        fn __repr__(&self) -> String {
            crate::methods::repr(
                "CountingBloomFilter",
                &[
                    ("num_counters", self.inner.num_bits().to_string()),
                    ("num_hashes", self.inner.num_hashes().to_string()),
                ],
                self.inner.layout(),
                self.inner.hasher().seed(),
            )
        }
    }
);
