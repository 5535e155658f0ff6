//! # `GuavaBloomFilter`: Google Guava's Bloom filter, for Python
//!
//! A `frozen` class around a [`GuavaBloom`]: Guava's positions and hash,
//! read from and written to Guava's `writeTo` form, so that a Java
//! service's filter answers here as `mightContain` does. Keys as Guava's
//! funnels feed them: `str` as `Funnels.stringFunnel(UTF_8)`, bytes-like as
//! `byteArrayFunnel`, `int` as `longFunnel` (8 little-endian bytes). A
//! Guava filter is typed by its funnel: ask it with the kind of key its
//! Java side put.

use crate::errors::{build_error, read_error, write_error};
use crate::keys::{Buffer, Key};
use atomic_bloom::{GuavaBloom, GuavaKey, GuavaStrategy};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// Guava's funnels, for the keys a Python call takes.
struct Funnelled(Key);

impl GuavaKey for Funnelled {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        match &self.0 {
            Key::Str(s) => f(s.as_bytes()),
            Key::Bytes(b) => f(b),
            Key::Int(n) => f(&n.to_le_bytes()),
        }
    }
}

/// Google Guava's Bloom filter (`com.google.common.hash.BloomFilter`),
/// bit for bit, shared by threads without a lock.
///
/// Sized as Guava's `BloomFilter.create(funnel, expected_insertions,
/// fpp)`; `GuavaBloomFilter.from_guava(data)` reads what Guava's `writeTo`
/// wrote, `to_guava()` writes what its `readFrom` reads.
#[pyclass(module = "atomic_bloom", name = "GuavaBloomFilter", frozen)]
pub struct GuavaBloomFilter {
    inner: GuavaBloom,
}

impl GuavaBloomFilter {
    pub fn wrap(inner: GuavaBloom) -> Self {
        GuavaBloomFilter { inner }
    }

    fn key(object: &Bound<'_, PyAny>) -> PyResult<Funnelled> {
        Key::extract(object.clone()).map(Funnelled)
    }

    /// Every key of an iterable, taken with the GIL held.
    fn keys(keys: &Bound<'_, PyAny>) -> PyResult<Vec<Funnelled>> {
        keys.try_iter()?.map(|key| Self::key(&key?)).collect()
    }
}

#[pymethods]
impl GuavaBloomFilter {
    #[new]
    #[pyo3(signature = (expected_insertions, false_positive_rate = 0.03))]
    fn new(expected_insertions: u64, false_positive_rate: f64) -> PyResult<Self> {
        GuavaBloom::new(expected_insertions, false_positive_rate)
            .map(|inner| GuavaBloomFilter { inner })
            .map_err(build_error)
    }

    /// Reads the bytes Guava's `BloomFilter.writeTo` wrote.
    #[classmethod]
    fn from_guava(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let Some(bytes) = Buffer::extract(data)? else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "Guava's filter is bytes, bytearray or memoryview",
            ));
        };
        py.detach(|| GuavaBloom::from_guava_bytes(&bytes))
            .map(|inner| GuavaBloomFilter { inner })
            .map_err(read_error)
    }

    /// The filter in Guava's format, for Guava's `BloomFilter.readFrom`.
    fn to_guava<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| self.inner.to_guava_bytes())
            .map_err(write_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Adds `key`; returns whether it was absent (Guava's `put`).
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.insert(&Self::key(key)?))
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains(&Self::key(key)?))
    }

    /// Adds every key of an iterable (taken first, with the GIL held: a
    /// bad key raises with nothing added), then inserts them with the GIL
    /// released; returns how many were absent.
    fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
        let keys = Self::keys(keys)?;
        Ok(py.detach(|| keys.iter().filter(|key| self.inner.insert(*key)).count()))
    }

    /// Whether each key of an iterable may be in the filter, in order,
    /// asked with the GIL released.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let keys = Self::keys(keys)?;
        let answers: Vec<bool> =
            py.detach(|| keys.iter().map(|key| self.inner.contains(key)).collect());
        PyList::new(py, answers)
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

    /// Guava's strategy: "MURMUR128_MITZ_64" (its default) or
    /// "MURMUR128_MITZ_32".
    #[getter]
    fn strategy(&self) -> &'static str {
        match self.inner.strategy() {
            GuavaStrategy::Murmur128Mitz32 => "MURMUR128_MITZ_32",
            _ => "MURMUR128_MITZ_64",
        }
    }

    /// The false-positive rate now, from the bits set (Guava's
    /// `expectedFpp`).
    fn estimated_false_positive_rate(&self) -> f64 {
        self.inner.estimated_false_positive_rate()
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.inner == other.inner
    }

    fn __repr__(&self) -> String {
        format!(
            "<atomic_bloom.GuavaBloomFilter num_bits={} num_hashes={} strategy='{}'>",
            self.inner.num_bits(),
            self.inner.num_hashes(),
            self.strategy()
        )
    }

    /// Pickles as `from_guava(to_guava())`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let from_guava = slf.get_type().getattr("from_guava")?;
        let args = (slf.get().to_guava(py)?,).into_pyobject(py)?;
        PyTuple::new(py, [from_guava, args.into_any()])
    }
}
