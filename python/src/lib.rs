//! # `atomic_bloom._atomic_bloom`: the Python extension module
//!
//! The classes and functions that `atomic_bloom` (the Python package in
//! `../atomic_bloom/`) re-exports. Chapters:
//!
//! - [`keys`]: which Python objects are keys, and how each is hashed so
//!   that Python, Rust and the CLI agree;
//! - [`bloom`], [`counting`], [`growable`]: the filter classes;
//! - [`methods`]: the methods every class shares (`in`, `update`,
//!   copying, saving, loading, pickling), written once;
//! - [`saved`]: saving, loading and pickling in the library's format;
//! - [`params`], [`errors`]: parameters in, exceptions out.
//!
//! The module declares itself safe without the GIL (`gil_used = false`):
//! its classes are `frozen` and wrap filters that are `Sync` and take
//! `&self` everywhere, so free-threaded CPython may call them from any
//! number of threads at once.

#[macro_use]
mod methods;

mod adds;
mod arrow;
mod bloom;
mod counting;
mod errors;
mod growable;
mod guava;
mod keys;
mod params;
mod parquet;
mod saved;
mod spark_filter;
mod windowed;

use atomic_bloom::{AnyFilter, SavedFilter, WyBuildHasher};
use pyo3::prelude::*;

/// The 64-bit hash of `key` under `seed`, as every filter of that seed
/// computes it: for checking another implementation against this one
/// (`tests/golden/key-hashes.tsv` holds test vectors).
#[pyfunction]
#[pyo3(signature = (key, seed = 0))]
fn key_hash(key: &Bound<'_, PyAny>, seed: u64) -> PyResult<u64> {
    keys::hash_now(key, &WyBuildHasher::with_seed(seed))
}

/// Reads a filter file of any kind: a `BloomFilter`, a
/// `CountingBloomFilter`, a `GrowableBloomFilter` or a
/// `WindowedBloomFilter`, as the file's header says, from a path (a named pipe too) or a binary file object.
#[pyfunction]
fn load(py: Python<'_>, path: saved::File<'_>) -> PyResult<Py<PyAny>> {
    let saved = match saved::load::<AnyFilter>(py, path)? {
        AnyFilter::Saved(saved) => saved,
        AnyFilter::Guava(filter) => {
            return Ok(guava::GuavaBloomFilter::wrap(filter)
                .into_pyobject(py)?
                .into_any()
                .unbind());
        }
    };
    let object = match saved {
        SavedFilter::Counting(filter) => counting::CountingBloomFilter::wrap(filter)
            .into_pyobject(py)?
            .into_any(),
        SavedFilter::Growable(filter) => growable::GrowableBloomFilter::wrap(filter)
            .into_pyobject(py)?
            .into_any(),
        SavedFilter::Bloom(filter) => bloom::BloomFilter::wrap(filter)
            .into_pyobject(py)?
            .into_any(),
        SavedFilter::Windowed(filter) => windowed::WindowedBloomFilter::wrap(*filter)
            .into_pyobject(py)?
            .into_any(),
        SavedFilter::Parquet(filter) => parquet::ParquetBloomFilter::wrap(filter)
            .into_pyobject(py)?
            .into_any(),
        SavedFilter::Spark(filter) => spark_filter::SparkBloomFilter::wrap(filter)
            .into_pyobject(py)?
            .into_any(),
        other => {
            return Err(errors::CorruptFilterError::new_err(format!(
                "the file holds a {} filter, which this build cannot read",
                other.kind()
            )));
        }
    };
    Ok(object.unbind())
}

#[pymodule(gil_used = false)]
fn _atomic_bloom(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<bloom::BloomFilter>()?;
    m.add_class::<counting::CountingBloomFilter>()?;
    m.add_class::<growable::GrowableBloomFilter>()?;
    m.add_class::<windowed::WindowedBloomFilter>()?;
    m.add_class::<parquet::ParquetBloomFilter>()?;
    m.add_class::<spark_filter::SparkBloomFilter>()?;
    m.add_class::<guava::GuavaBloomFilter>()?;
    m.add(
        "CorruptFilterError",
        py.get_type::<errors::CorruptFilterError>(),
    )?;
    m.add("FilterFullError", py.get_type::<errors::FilterFullError>())?;
    m.add(
        "FileLeftOpenError",
        py.get_type::<errors::FileLeftOpenError>(),
    )?;
    m.add(
        "IncompatibleFilterError",
        py.get_type::<errors::IncompatibleFilterError>(),
    )?;
    m.add_function(wrap_pyfunction!(key_hash, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    // The package's version is the crate's (pyproject.toml takes it from
    // Cargo.toml: `dynamic = ["version"]`).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FORMAT_VERSION", atomic_bloom::FORMAT_VERSION)?;
    Ok(())
}
