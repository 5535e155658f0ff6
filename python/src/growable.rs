//! # `GrowableBloomFilter`: the filter that needs no key count, for Python
//!
//! A `frozen` class around an `AtomicGrowableBloom` (a scalable Bloom
//! filter: Almeida, Baquero, Preguiça and Hutchison, 2007), built like
//! [`crate::bloom`]'s: `&self` methods, the GIL released per chunk in bulk
//! calls, the library's format for saving and pickling.
//!
//! It has no `clear`: the library's takes `&mut self`, because dropping
//! sub-filters while another thread reads them would free memory under
//! it, and a frozen class shared between threads cannot prove it is alone.
//! A new filter does the same job.

use crate::errors::build_error;
use crate::params::{count, parse_layout, parse_seed, within};
use atomic_bloom::{AtomicGrowableBloom, MAX_SUB_FILTERS};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A Bloom filter that grows as keys arrive: no need to know how many.
///
/// It starts with room for `initial_capacity` keys and adds a sub-filter,
/// each `growth_factor` times larger and with a rate `tightening_ratio`
/// times tighter than the last, whenever the newest fills; the compound
/// false-positive rate stays below `false_positive_rate` however many keys
/// arrive. Threads share it without a lock, growth included. Adding a new
/// key raises `FilterFullError` once `max_sub_filters` or `memory_limit`
/// would be passed.
///
/// It has no `clear()`: clearing frees sub-filters that other threads may
/// be reading, which a shared object cannot rule out. Build a new one.
#[pyclass(module = "atomic_bloom", name = "GrowableBloomFilter", frozen)]
pub struct GrowableBloomFilter {
    inner: AtomicGrowableBloom,
}

/// A read filter with `memory_limit` (bytes) in place of the limit its
/// file records, if one is given: growth from a file is then bounded by
/// the reader, whatever the file says.
fn with_memory_limit(
    mut filter: AtomicGrowableBloom,
    memory_limit: Option<i128>,
) -> PyResult<GrowableBloomFilter> {
    if let Some(limit) = memory_limit {
        let limit = within("memory_limit", limit, 0, u64::MAX.into())?;
        filter.set_memory_limit(Some(limit));
    }
    Ok(GrowableBloomFilter::wrap(filter))
}

filter_methods!(
    GrowableBloomFilter(AtomicGrowableBloom),
    "a growable filter",
    readers: {
        /// Reads a growable filter written by `save`, the CLI or Rust, from a
        /// path or from a binary file object (read to its end). With
        /// `memory_limit` (bytes), growth from then on stops there, in place
        /// of the limit the file records: a file from elsewhere cannot make
        /// the first new key allocate more.
        #[classmethod]
        #[pyo3(signature = (path, *, memory_limit = None))]
        fn load(
            _cls: &Bound<'_, pyo3::types::PyType>,
            py: Python<'_>,
            path: crate::saved::File<'_>,
            memory_limit: Option<i128>,
        ) -> PyResult<Self> {
            with_memory_limit(crate::saved::load(py, path)?, memory_limit)
        }

        /// Reads a growable filter from `to_bytes`'s output (or a file's
        /// bytes); `memory_limit` as for `load`.
        #[classmethod]
        #[pyo3(signature = (data, *, memory_limit = None))]
        fn from_bytes(
            _cls: &Bound<'_, pyo3::types::PyType>,
            py: Python<'_>,
            data: &Bound<'_, PyAny>,
            memory_limit: Option<i128>,
        ) -> PyResult<Self> {
            with_memory_limit(crate::saved::from_bytes(py, data)?, memory_limit)
        }
    },
    {
        #[new]
        #[pyo3(signature = (
        initial_capacity = 1000,
        false_positive_rate = 0.01,
        *,
        growth_factor = 2.0,
        tightening_ratio = 0.9,
        layout = None,
        seed = 0,
        max_sub_filters = None,
        memory_limit = None,
    ))]
        #[allow(clippy::too_many_arguments)] // Python keyword arguments
        fn new(
            initial_capacity: i128,
            false_positive_rate: f64,
            growth_factor: f64,
            tightening_ratio: f64,
            layout: Option<&str>,
            seed: i128,
            max_sub_filters: Option<i128>,
            memory_limit: Option<i128>,
        ) -> PyResult<Self> {
            let mut builder = AtomicGrowableBloom::builder().capacity(
                count("initial_capacity", initial_capacity)?,
                false_positive_rate,
            )
            .growth_factor(growth_factor)
            .tightening_ratio(tightening_ratio)
            .layout(parse_layout(layout)?)
            .seed(parse_seed(seed)?);
            if let Some(max) = max_sub_filters {
                let max = within("max_sub_filters", max, 1, MAX_SUB_FILTERS.into())?;
                builder = builder.max_sub_filters(max);
            }
            if let Some(limit) = memory_limit {
                let limit = within("memory_limit", limit, 0, u64::MAX.into())?;
                builder = builder.memory_limit(limit);
            }
            builder.build().map(Self::wrap).map_err(build_error)
        }

        /// Adds `key`; returns whether it was new. Raises `FilterFullError`
        /// (the key not added) if it is new and the filter may not grow.
        fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
            crate::adds::add(&self.inner, key)
        }

        /// Adds every key of an iterable, in order, with the GIL released
        /// while keys are hashed and inserted; returns how many were new.
        /// Every key is taken and checked first: a bad key or an error from
        /// the iterable raises with nothing added. On `FilterFullError` the
        /// keys before the one that did not fit are in.
        fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
            crate::adds::add_many(py, &self.inner, keys)
        }

        /// How many keys were added: the adds each sub-filter reported new
        /// (never `None`, unlike the fixed-size filters' estimate).
        fn estimated_len(&self) -> Option<u64> {
            self.inner.estimated_len()
        }

        /// The compound false-positive rate at the current counts: the sum of
        /// the sub-filters' model rates. Below `false_positive_rate` unless a
        /// limit made the newest sub-filter overfill.
        fn false_positive_rate_bound(&self) -> f64 {
            self.inner.false_positive_rate_bound()
        }

        /// Each sub-filter, oldest first, as a dict: `capacity` (new keys
        /// after which it grows), `fill_limit` (new keys it is sized for),
        /// `inserted`, `num_bits`, `num_hashes` and `false_positive_rate` (its
        /// target at the fill limit).
        fn sub_filter_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            let rows = self.inner.sub_filter_stats().into_iter().map(|stats| {
                let row = PyDict::new(py);
                row.set_item("capacity", stats.capacity)?;
                row.set_item("fill_limit", stats.fill_limit)?;
                row.set_item("inserted", stats.inserted)?;
                row.set_item("num_bits", stats.sizing.num_bits())?;
                row.set_item("num_hashes", stats.sizing.num_hashes())?;
                row.set_item("false_positive_rate", stats.false_positive_rate)?;
                Ok(row)
            });
            PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
        }

        /// How many sub-filters there are now.
        #[getter]
        fn num_sub_filters(&self) -> usize {
            self.inner.sub_filters()
        }

        /// The first sub-filter's capacity.
        #[getter]
        fn initial_capacity(&self) -> u64 {
            self.inner.initial_capacity()
        }

        /// The target rate: the compound rate stays below it.
        #[getter]
        fn false_positive_rate(&self) -> f64 {
            self.inner.target_false_positive_rate()
        }

        /// How much larger each sub-filter is than the last.
        #[getter]
        fn growth_factor(&self) -> f64 {
            self.inner.growth_factor()
        }

        /// How much tighter each sub-filter's rate is than the last's.
        #[getter]
        fn tightening_ratio(&self) -> f64 {
            self.inner.tightening_ratio()
        }

        /// The most sub-filters it may have.
        #[getter]
        fn max_sub_filters(&self) -> u32 {
            self.inner.max_sub_filters()
        }

        /// The bytes its sub-filters may take in all, or `None` for no limit.
        #[getter]
        fn memory_limit(&self) -> Option<u64> {
            self.inner.memory_limit()
        }

        /// Bytes of memory the sub-filters' bits take.
        #[getter]
        fn memory_bytes(&self) -> u64 {
            self.inner.memory_bytes()
        }

        fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
            use crate::methods::py_float;
            let inner = &self.inner;
            Ok(crate::methods::repr(
                "GrowableBloomFilter",
                &[
                    ("initial_capacity", inner.initial_capacity().to_string()),
                    (
                        "false_positive_rate",
                        py_float(py, inner.target_false_positive_rate())?,
                    ),
                    ("growth_factor", py_float(py, inner.growth_factor())?),
                    ("tightening_ratio", py_float(py, inner.tightening_ratio())?),
                    ("num_sub_filters", inner.sub_filters().to_string()),
                ],
                inner.layout(),
                inner.hasher().seed(),
            ))
        }
    }
);
