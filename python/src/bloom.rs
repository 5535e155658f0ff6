//! # `BloomFilter`: the plain filter, for Python
//!
//! A `frozen` class around an `AtomicBloom`: every method takes `&self`,
//! as the library's do, so Python threads share one filter without a lock,
//! on the GIL build and the free-threaded one alike. Per-key calls hash
//! with the GIL held (a key costs less than releasing it would); the bulk
//! calls release it for each chunk of keys ([`crate::keys`]).

use crate::errors::{build_error, incompatible};
use crate::keys::{Order, for_each_chunk, hash_now};
use crate::params::builder;
use atomic_bloom::AtomicBloom;
use pyo3::prelude::*;

/// A Bloom filter that many threads share without a lock.
///
/// Sized for `expected_items` keys at `false_positive_rate`; keys are
/// `str`, `bytes`, `bytearray`, `memoryview` or `int` (any integer type,
/// `numpy.int64` too), hashed so that the same keys give the same answers
/// from the CLI and from Rust.
#[pyclass(module = "atomic_bloom", name = "BloomFilter", frozen)]
pub struct BloomFilter {
    pub(crate) inner: AtomicBloom,
}

filter_methods!(BloomFilter(AtomicBloom), "a filter", {
    #[new]
    #[pyo3(signature = (expected_items, false_positive_rate = 0.01, *, layout = None, seed = 0))]
    fn new(
        expected_items: i128,
        false_positive_rate: f64,
        layout: Option<&str>,
        seed: i128,
    ) -> PyResult<Self> {
        builder(expected_items, false_positive_rate, layout, seed)?
            .build()
            .map(Self::wrap)
            .map_err(build_error)
    }

    /// Adds `key`; returns whether it was new (no filter had all its bits).
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self
            .inner
            .insert_hash(hash_now(key.clone(), self.inner.hasher())?))
    }

    /// Adds every key of an iterable, with the GIL released while keys are
    /// hashed and inserted; returns how many were new. Every key is taken
    /// and checked first: a bad key (`None` in a pandas column) or an error
    /// from the iterable raises with nothing added.
    fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
        let counts = for_each_chunk(py, keys, self.inner.hasher(), Order::KeysFirst, |hashes| {
            self.inner.insert_hash_batch(hashes.iter().copied())
        })?;
        Ok(counts.into_iter().sum())
    }

    /// A new filter with the keys of both (`self | other`).
    fn __or__(&self, py: Python<'_>, other: &Self) -> PyResult<Self> {
        let union = self.copy(py)?;
        union.__ior__(py, other)?;
        Ok(union)
    }

    /// Adds the keys of `other` to this filter (`self |= other`), with the
    /// GIL released.
    fn __ior__(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        py.detach(|| self.inner.union(&other.inner))
            .map_err(incompatible)
    }

    /// A new filter with the bits both have (`self & other`).
    fn __and__(&self, py: Python<'_>, other: &Self) -> PyResult<Self> {
        let intersection = self.copy(py)?;
        intersection.__iand__(py, other)?;
        Ok(intersection)
    }

    /// Keeps only the bits `other` has too (`self &= other`), with the GIL
    /// released.
    fn __iand__(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        py.detach(|| self.inner.intersect(&other.inner))
            .map_err(incompatible)
    }

    /// Removes every key.
    fn clear(&self) {
        self.inner.clear();
    }

    /// About how many distinct keys were added, from the bits set (Swamidass
    /// and Baldi's estimate); `None` once every bit is set.
    fn estimated_len(&self) -> Option<u64> {
        self.inner.estimated_len()
    }

    /// The false-positive rate now, from the bits set.
    fn estimated_false_positive_rate(&self) -> f64 {
        self.inner.estimated_false_positive_rate()
    }

    /// Bits in the filter.
    #[getter]
    fn num_bits(&self) -> u64 {
        self.inner.num_bits()
    }

    /// Bits set per key.
    #[getter]
    fn num_hashes(&self) -> u32 {
        self.inner.num_hashes()
    }

    /// Bytes of memory the bits take.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    fn __repr__(&self) -> String {
        crate::methods::repr(
            "BloomFilter",
            &[
                ("num_bits", self.inner.num_bits().to_string()),
                ("num_hashes", self.inner.num_hashes().to_string()),
            ],
            self.inner.layout(),
            self.inner.hasher().seed(),
        )
    }
});
