//! # `BloomFilter`: the plain filter, for Python
//!
//! A `frozen` class around an `AtomicBloom`: every method takes `&self`,
//! as the library's do, so Python threads share one filter without a lock,
//! on the GIL build and the free-threaded one alike. Per-key calls hash
//! with the GIL held (a key costs less than releasing it would); the bulk
//! calls release it for each chunk of keys ([`crate::keys`]).

use crate::errors::incompatible;
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

filter_methods!(fixed BloomFilter(AtomicBloom), "a filter", {
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

    /// Bits in the filter.
    #[getter]
    fn num_bits(&self) -> u64 {
        self.inner.num_bits()
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
