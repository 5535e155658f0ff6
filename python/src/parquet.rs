//! # `ParquetBloomFilter`: a filter a Parquet writer built, for Python
//!
//! A `frozen` class around an `AtomicBloom<ParquetHasher>`: the split block
//! filter of a Parquet column, read by the library (the DataFusion crate's
//! `read_parquet_filters`) and saved in its format, which records Parquet's
//! hasher. Its keys are hashed as Parquet hashes a value, XXH64 of the
//! plain encoding, so a filter whose bits Parquet set answers for the
//! values Parquet wrote: `str` and `bytes` for `BYTE_ARRAY` and
//! `FIXED_LEN_BYTE_ARRAY` columns, `int` for `INT64` (8 little-endian
//! bytes); an `INT32`, `FLOAT` or `DOUBLE` value as its little-endian
//! bytes (`struct.pack('<i', v)`, `'<f'`, `'<d'`).

use atomic_bloom::{AtomicBloom, ParquetHasher};
use pyo3::prelude::*;

/// A Bloom filter read from a Parquet file: keys are hashed as Parquet
/// hashes them (XXH64 of the value's plain encoding), so it finds the
/// values the Parquet writer put in it.
///
/// `atomic_bloom.load` returns one for a file saved from a Parquet
/// column's filter; it has no constructor of its own.
#[pyclass(module = "atomic_bloom", name = "ParquetBloomFilter", frozen)]
pub struct ParquetBloomFilter {
    pub(crate) inner: AtomicBloom<ParquetHasher>,
}

filter_methods!(
    bits ParquetBloomFilter(AtomicBloom<ParquetHasher>),
    "a Parquet filter",
    {
        /// Adds `key`, hashed as Parquet hashes a value; returns whether it
        /// was new.
        fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
            crate::adds::add(&self.inner, key)
        }

        /// Adds every key of an iterable, with the GIL released while keys are
        /// inserted; returns how many were new. Every key is taken and checked
        /// first: a bad key or an error from the iterable raises with nothing
        /// added.
        fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
            crate::adds::add_many(py, &self.inner, keys)
        }

        fn __repr__(&self) -> String {
            crate::methods::repr(
                "ParquetBloomFilter",
                &[("num_bits", self.inner.num_bits().to_string())],
                self.inner.layout(),
                self.inner.hasher().seed(),
            )
        }
    }
);
