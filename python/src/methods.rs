//! # The methods every filter class shares
//!
//! Each class wraps one of the library's filters in a field `inner` and
//! has its own constructor, inserts and statistics. Membership (`in`,
//! `contains_many`), `update`, equality, truth (empty or not), copying,
//! the layout and seed, saving, loading and pickling are the same for all
//! of them, and are written once here:
//! [`filter_methods!`] makes a class's `#[pymethods]` block from its own
//! methods and these.
//!
//! It also makes `wrap` (a filter into the class, which
//! `atomic_bloom.load` calls). Among its own methods a class defines
//! `add` and `add_many(&self, py, keys) -> PyResult<usize>` (which `update`
//! calls), each with its own docstring and the shared body of `adds.rs`.

/// A filter's `repr`: `<atomic_bloom.BloomFilter num_bits=1024 ...>`, the
/// class's own fields, then the layout and seed every class has.
///
/// Python's data model asks `repr` for an expression that recreates the
/// object where there is one, and otherwise for `<...>` with a useful
/// description. No call recreates a filter, whose bits are part of its
/// value, so every class takes the second form, as rbloom's
/// `<Bloom size_in_bits=960 approx_items=0.0>` does. Values are written as
/// Python writes them: the layout's name in single quotes (names are plain
/// lower-case words, which need no escapes), floats by [`py_float`].
pub(crate) fn repr(
    class: &str,
    own: &[(&str, String)],
    layout: atomic_bloom::Layout,
    seed: impl std::fmt::Display,
) -> String {
    let own: String = own
        .iter()
        .map(|(name, value)| format!(" {name}={value}"))
        .collect();
    format!(
        "<atomic_bloom.{class}{own} layout='{}' seed={seed}>",
        layout.name()
    )
}

/// A float as Python's `repr` writes it (`2.0` and `1e-05`, where Rust
/// writes `2` and `1e-5`), by asking Python.
pub(crate) fn py_float(py: pyo3::Python<'_>, x: f64) -> pyo3::PyResult<String> {
    use pyo3::types::PyAnyMethods;
    pyo3::types::PyFloat::new(py, x).repr()?.extract()
}

/// The `#[pymethods]` block of `$class`, which wraps an `$inner` in its
/// field `inner`: the methods given, then the shared ones. `$what` names
/// the class's filters in docstrings ("a counting filter"). A class whose
/// readers take options of their own (the growable filter's
/// `memory_limit`) gives its `load` and `from_bytes` as `readers: { ... }`;
/// the others get the shared ones.
macro_rules! filter_methods {
    // A fixed-size filter (`BloomFilter`, `CountingBloomFilter`): the
    // library's one `Filter` type, so adding, clearing and the estimates
    // are the same calls too.
    (fixed $class:ident($inner:ty), $what:literal, { $($own:tt)* }) => {
        filter_methods!(cells $class($inner), $what, {
            $($own)*

            #[new]
            #[pyo3(signature = (expected_items, false_positive_rate = 0.01, *, layout = None, seed = 0))]
            fn new(
                expected_items: i128,
                false_positive_rate: f64,
                layout: Option<&str>,
                seed: i128,
            ) -> PyResult<Self> {
                $crate::params::builder(expected_items, false_positive_rate, layout, seed)?
                    .build()
                    .map(Self::wrap)
                    .map_err($crate::errors::build_error)
            }

            /// A new filter holding every key of `keys`, sized for
            /// `expected_items` (by default, `len(keys)`), inserted by a
            /// helper thread with the GIL released while the next keys are
            /// taken; the same bits as `add_many` on a new filter.
            #[classmethod]
            #[pyo3(signature = (keys, false_positive_rate = 0.01, *, expected_items = None, layout = None, seed = 0))]
            fn from_keys(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                keys: &Bound<'_, PyAny>,
                false_positive_rate: f64,
                expected_items: Option<i128>,
                layout: Option<&str>,
                seed: i128,
            ) -> PyResult<Self> {
                // No keys make an empty filter, as `set([])` is an empty
                // set: sized for one key, the least a filter holds.
                let expected = match expected_items {
                    Some(n) => n,
                    None => keys.len().map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(
                            "from_keys needs expected_items for keys without a len() (an iterator or generator)",
                        )
                    })?.max(1) as i128,
                };
                let filter: $inner =
                    $crate::params::builder(expected, false_positive_rate, layout, seed)?
                        .build()
                        .map_err($crate::errors::build_error)?;
                let hasher = filter.hasher().clone();
                // A bad key leaves no filter behind, so keys need not be
                // taken first: a helper thread inserts while keys are taken.
                let order = $crate::keys::Order::Pipelined;
                $crate::keys::for_each_chunk(py, keys, &hasher, order, |hashes| {
                    filter.insert_hash_batch(hashes.iter().copied())
                })?;
                Ok(Self::wrap(filter))
            }

            /// Adds `key` (one more occurrence of it, for a counting filter);
            /// returns whether it was absent before.
            fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                $crate::adds::add(&self.inner, key)
            }

            /// Adds every key of an iterable; returns how many were absent
            /// before. Every key is taken and checked first: a bad key
            /// (`None` in a pandas column) or an error from the iterable
            /// raises with nothing added, so a call retried after the input
            /// is mended counts no key twice. Then the keys are inserted with
            /// the GIL released, spread over the machine's cores when there
            /// are many, or (a plain filter, a batch large against it)
            /// inserted into a private stage by a helper thread while the
            /// keys are taken, and merged in.
            fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
                $crate::adds::add_many(py, &self.inner, keys)
            }

            #[doc = concat!("Creates ", $what, " in a shared file at `path` that other \
                processes open with `open_shared` and add to at once, sized as the \
                constructor sizes one (a sparse file: no page is written until a key lands \
                there); opened to add to. A file another process has open for writing is \
                never replaced. Linux only. The file is sealed (its checksum written) when \
                the last filter object open for writing on it is freed.")]
            #[classmethod]
            #[pyo3(signature = (path, expected_items, false_positive_rate = 0.01, *, layout = None, seed = 0))]
            fn create_shared(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                path: std::path::PathBuf,
                expected_items: i128,
                false_positive_rate: f64,
                layout: Option<&str>,
                seed: i128,
            ) -> PyResult<Self> {
                let builder = $crate::params::builder(expected_items, false_positive_rate, layout, seed)?;
                py.detach(|| builder.build_shared(&path))
                    .map(Self::wrap)
                    .map_err(|e| $crate::errors::shared_error(py, e))
            }

            #[doc = concat!("Opens ", $what, " in the shared file at `path`, mapping it \
                rather than reading it, so that this process adds to and queries the same \
                filter as every process that has it open. `read_only` opens any saved \
                file for queries (keys added through it stay in this process). A file a \
                writer left open by ending without closing it raises `FileLeftOpenError` \
                unless `recover`. Pickles as its path, so a `multiprocessing` pool's \
                workers open the same file.")]
            #[classmethod]
            #[pyo3(signature = (path, *, read_only = false, recover = false))]
            fn open_shared(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                path: std::path::PathBuf,
                read_only: bool,
                recover: bool,
            ) -> PyResult<Self> {
                let options = if read_only {
                    atomic_bloom::SharedOptions::read_only()
                } else {
                    atomic_bloom::SharedOptions::read_write()
                }
                .recover(recover);
                py.detach(|| <$inner>::open_shared(&path, options))
                    .map(Self::wrap)
                    .map_err(|e| $crate::errors::shared_error(py, e))
            }

            /// The shared file this filter maps, or None for a filter in memory.
            #[getter]
            fn shared_path(&self) -> Option<std::path::PathBuf> {
                self.inner.shared_path().map(std::path::Path::to_path_buf)
            }

            /// Writes a shared filter's added keys to its file (msync), so
            /// that a crash of the machine loses none of them; a crash of
            /// the process loses nothing in any case. In memory: nothing.
            fn flush(&self, py: Python<'_>) -> PyResult<()> {
                py.detach(|| self.inner.flush()).map_err(pyo3::PyErr::from)
            }

            /// Closes this object's hold on its shared file: flushes it and,
            /// if no other process has it open for writing, seals it (writes
            /// its checksum), as freeing the object does. The filter goes on
            /// answering from what the file held; keys added afterwards stay
            /// in this process. Closing again, a read-only or in-memory
            /// filter: nothing to do. `with` closes the filter at the end of
            /// its block.
            fn close(&self, py: Python<'_>) -> PyResult<()> {
                py.detach(|| self.inner.close())
                    .map_err(|e| $crate::errors::shared_error(py, e))
            }

            fn __enter__(slf: Py<Self>) -> Py<Self> {
                slf
            }

            fn __exit__(
                &self,
                py: Python<'_>,
                _exc_type: &Bound<'_, PyAny>,
                _exc_value: &Bound<'_, PyAny>,
                _traceback: &Bound<'_, PyAny>,
            ) -> PyResult<bool> {
                self.close(py)?;
                Ok(false)
            }
        });
    };
    // A filter of the library's one `Filter` type, of bits with any hasher
    // (`ParquetBloomFilter`, `SparkBloomFilter`): its size in bits, and
    // what every `Filter` has.
    (bits $class:ident($inner:ty), $what:literal, { $($own:tt)* }) => {
        filter_methods!(cells $class($inner), $what, {
            $($own)*

            /// Bits in the filter.
            #[getter]
            fn num_bits(&self) -> u64 {
                self.inner.num_bits()
            }
        });
    };
    // What every `Filter` has, of bits or of counters: clearing, its
    // shape and the estimates.
    (cells $class:ident($inner:ty), $what:literal, { $($own:tt)* }) => {
        filter_methods!($class($inner), $what, {
            $($own)*

            /// Removes every key.
            fn clear(&self) {
                self.inner.clear();
            }

            /// About how many distinct keys are in the filter, from its cells
            /// above zero (Swamidass and Baldi's estimate); `None` once every
            /// cell is.
            fn estimated_len(&self) -> Option<u64> {
                self.inner.estimated_len()
            }

            /// The false-positive rate now, from the cells above zero.
            fn estimated_false_positive_rate(&self) -> f64 {
                self.inner.estimated_false_positive_rate()
            }

            /// Bits (or counters) set per key.
            #[getter]
            fn num_hashes(&self) -> u32 {
                self.inner.num_hashes()
            }

            /// Bytes of memory the bits (or counters) take.
            #[getter]
            fn memory_bytes(&self) -> usize {
                self.inner.memory_bytes()
            }
        });
    };
    ($class:ident($inner:ty), $what:literal, { $($own:tt)* }) => {
        filter_methods!(@block $class($inner), $what, { $($own)* }, {
            #[doc = concat!("Reads ", $what, " written by `save`, the CLI or Rust, from a path \
                             or from a binary file object (read to its end).")]
            #[classmethod]
            fn load(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                path: $crate::saved::File<'_>,
            ) -> PyResult<Self> {
                $crate::saved::load::<$inner>(py, path).map(Self::wrap)
            }

            #[doc = concat!("Reads ", $what, " from `to_bytes`'s output (or a file's bytes).")]
            #[classmethod]
            fn from_bytes(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
            ) -> PyResult<Self> {
                $crate::saved::from_bytes(py, data).map(Self::wrap)
            }
        });
    };
    ($class:ident($inner:ty), $what:literal, readers: { $($readers:tt)* }, { $($own:tt)* }) => {
        filter_methods!(@block $class($inner), $what, { $($own)* }, { $($readers)* });
    };
    (@block $class:ident($inner:ty), $what:literal, { $($own:tt)* }, { $($readers:tt)* }) => {
        impl $class {
            pub(crate) fn wrap(inner: $inner) -> Self {
                $class { inner }
            }
        }

        #[pymethods]
        impl $class {
            $($own)*

            fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                let hash = $crate::keys::hash_now(key, self.inner.hasher())?;
                Ok(self.inner.contains_hash(hash))
            }

            /// Whether each key of an iterable may be in the filter, in order,
            /// with the GIL released while keys are hashed and looked up.
            fn contains_many<'py>(
                &self,
                py: Python<'py>,
                keys: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, pyo3::types::PyList>> {
                let answers = $crate::keys::for_each_chunk(py, keys, self.inner.hasher(), $crate::keys::Order::Pipelined, |hashes| {
                    self.inner.contains_hash_batch(hashes.iter().copied())
                })?;
                pyo3::types::PyList::new(py, answers.into_iter().flatten())
            }

            /// Adds the keys of every iterable given, like `set.update`.
            #[pyo3(signature = (*iterables))]
            fn update(
                &self,
                py: Python<'_>,
                iterables: &Bound<'_, pyo3::types::PyTuple>,
            ) -> PyResult<()> {
                for keys in iterables {
                    self.add_many(py, &keys)?;
                }
                Ok(())
            }

            fn __eq__(&self, other: &Self) -> bool {
                self.inner == other.inner
            }

            /// False while nothing is added (or everything is cleared or
            /// removed), as an empty set is false: a scan, with the GIL
            /// released, that stops at the first key's bits.
            fn __bool__(&self, py: Python<'_>) -> bool {
                !py.detach(|| self.inner.is_empty())
            }

            /// The object's size with the memory of its bits, so that
            /// `sys.getsizeof` counts what the filter holds.
            fn __sizeof__(&self) -> u64 {
                std::mem::size_of::<Self>() as u64 + self.inner.memory_bytes() as u64
            }

            #[doc = concat!("A copy of ", $what, ": its parameters and what it holds now (a \
                             snapshot, taken with the GIL released).")]
            fn copy(&self, py: Python<'_>) -> PyResult<Self> {
                py.detach(|| self.inner.try_clone())
                    .map(Self::wrap)
                    .map_err($crate::errors::build_error)
            }

            /// A copy, as `copy` makes (`copy.copy`).
            fn __copy__(&self, py: Python<'_>) -> PyResult<Self> {
                self.copy(py)
            }

            /// A copy, as `copy` makes (`copy.deepcopy`: a filter holds no
            /// Python objects).
            fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<Self> {
                self.copy(py)
            }

            /// How bits are placed: "standard", "blocked", "word", "sectorized" or
            /// "split-block".
            #[getter]
            fn layout(&self) -> &'static str {
                self.inner.layout().name()
            }

            /// The hash seed; filters combine only if their seeds are equal.
            #[getter]
            fn seed(&self) -> i128 {
                i128::from(self.inner.hasher().seed())
            }

            /// Writes the filter in the library's format to `path` (a path,
            /// replaced atomically) or to a binary file object.
            fn save(&self, py: Python<'_>, path: $crate::saved::File<'_>) -> PyResult<()> {
                $crate::saved::save(py, &self.inner, path)
            }

            /// The filter in the library's format.
            fn to_bytes<'py>(
                &self,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                $crate::saved::to_bytes(py, &self.inner)
            }

            $($readers)*

            /// Pickles as `from_bytes(to_bytes())`, the validated format; a
            /// shared filter as its path and mode, so that it unpickles as
            /// the same file, not a copy.
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                use pyo3::types::PyTuple;
                let py = slf.py();
                if let Some((path, writable)) = $crate::saved::Saved::shared(&slf.get().inner) {
                    let open = py.import("atomic_bloom")?.getattr("_open_shared")?;
                    let args = (slf.get_type(), path.to_path_buf(), !writable).into_pyobject(py)?;
                    return PyTuple::new(py, [open, args.into_any()]);
                }
                let from_bytes = slf.get_type().getattr("from_bytes")?;
                let args = (slf.get().to_bytes(py)?,).into_pyobject(py)?;
                PyTuple::new(py, [from_bytes, args.into_any()])
            }
        }
    };
}
