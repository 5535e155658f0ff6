//! # `SparkBloomFilter`: a filter Apache Spark built, for Python
//!
//! A `frozen` class around an `AtomicBloom<SparkHasher>` with Spark's
//! positions: what `df.stat.bloomFilter` (Scala, Java) and Spark's
//! `BloomFilter.create` build and `writeTo` writes. Read here
//! (`from_spark`, or `atomic_bloom.load` of such a file), it answers every
//! key as Spark's `mightContain` does, with the GIL released in the bulk
//! calls and from any number of threads at once; `to_spark` writes it back
//! for Spark's `readFrom`. Keys as Spark's `put` takes them: `str` as
//! `putString` (UTF-8), `bytes` as `putBinary`, `int` as `putLong`.

use atomic_bloom::{AtomicBloom, Layout, SparkHasher};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A Bloom filter Apache Spark built (`org.apache.spark.util.sketch`):
/// keys are hashed and placed as Spark does, so it answers exactly as
/// Spark's `mightContain`, and takes new keys from many threads.
///
/// `SparkBloomFilter.from_spark(data)` reads what Spark's `writeTo` wrote
/// (format V1 or V2); `to_spark()` gives bytes Spark's `readFrom` reads.
/// `atomic_bloom.spark.from_java` takes a PySpark JVM object directly.
#[pyclass(module = "atomic_bloom", name = "SparkBloomFilter", frozen)]
pub struct SparkBloomFilter {
    pub(crate) inner: AtomicBloom<SparkHasher>,
}

filter_methods!(
    bits SparkBloomFilter(AtomicBloom<SparkHasher>),
    "a Spark filter",
    {
        /// An empty filter as Spark's `BloomFilter.create(expected_items,
        /// fpp)` makes it (V2, seed 0), sized as Spark sizes it.
        #[new]
        #[pyo3(signature = (expected_items, false_positive_rate = 0.03))]
        fn new(expected_items: u64, false_positive_rate: f64) -> PyResult<Self> {
            AtomicBloom::spark(expected_items, false_positive_rate)
                .map(Self::wrap)
                .map_err(crate::errors::build_error)
        }

        /// Reads the bytes Spark's `BloomFilter.writeTo` wrote (format V1
        /// or V2), checked before anything is allocated.
        #[classmethod]
        fn from_spark(
            _cls: &Bound<'_, pyo3::types::PyType>,
            py: Python<'_>,
            data: &Bound<'_, PyAny>,
        ) -> PyResult<Self> {
            let Some(bytes) = crate::keys::Buffer::extract(data)? else {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "Spark's filter is bytes, bytearray or memoryview",
                ));
            };
            py.detach(|| AtomicBloom::from_spark_bytes(&bytes))
                .map(Self::wrap)
                .map_err(crate::errors::read_error)
        }

        /// The filter in Spark's format, for Spark's `BloomFilter.readFrom`.
        fn to_spark<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            let bytes = py
                .detach(|| self.inner.to_spark_bytes())
                .map_err(crate::errors::write_error)?;
            Ok(PyBytes::new(py, &bytes))
        }

        /// Adds `key` as Spark's `put` does (`str`: `putString`, `bytes`:
        /// `putBinary`, `int`: `putLong`); returns whether it was new.
        fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
            crate::adds::add(&self.inner, key)
        }

        /// Adds every key of an iterable, with the GIL released while keys
        /// are inserted; returns how many were new. Every key is taken and
        /// checked first: a bad key raises with nothing added.
        fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
            crate::adds::add_many(py, &self.inner, keys)
        }

        /// Spark's format version of the filter: 2, or 1 for a filter of
        /// Spark 4.0 or older.
        #[getter]
        fn version(&self) -> u8 {
            if self.inner.layout() == Layout::SparkV1 {
                1
            } else {
                2
            }
        }

        fn __repr__(&self) -> String {
            crate::methods::repr(
                "SparkBloomFilter",
                &[
                    ("version", self.version().to_string()),
                    ("num_bits", self.inner.num_bits().to_string()),
                    ("num_hashes", self.inner.num_hashes().to_string()),
                ],
                self.inner.layout(),
                self.inner.hasher().seed(),
            )
        }
    }
);
