//! # Saving: the library's format, with the GIL released
//!
//! `save`, `load`, `to_bytes`, `from_bytes` and pickling of every class
//! go through here, in the library's validated format (its `docs::format`
//! chapter), so a file written from Python is read by the CLI and by Rust
//! and the other way round. Writing and checking a large filter is
//! memory-bound work that needs no interpreter: it runs with the GIL
//! released, except a save to a file object, whose `write` is Python code
//! called once per 1 MiB piece.

use crate::errors::{file_error, read_error, read_file_error, write_error};
use crate::keys::Buffer;
use atomic_bloom::{
    AnyFilter, AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, Cells,
    Filter, ParquetHasher, ReadError, SavedFilter, SparkHasher, WriteError,
};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString, PyType};
use std::hash::BuildHasher;
use std::io;
use std::path::{Path, PathBuf};

/// Where `save` writes or `load` reads: a path, taken as Python's file
/// functions take one (`str`, `bytes` or any `os.PathLike`; pyo3's own
/// `PathBuf` takes no `bytes`), or a binary file object (anything else,
/// used through its `write` or `read`), as `pickle.dump` and `numpy.save`
/// take them. `os.fsdecode` makes a `str` of a path, which the file
/// system's encoding turns back into the same bytes (undecodable ones by
/// `surrogateescape`).
pub enum File<'py> {
    Path(PathBuf),
    Object(Bound<'py, PyAny>),
}

impl<'py> FromPyObject<'_, 'py> for File<'py> {
    type Error = PyErr;

    fn extract(object: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let py = object.py();
        if !(object.is_instance_of::<PyString>()
            || object.is_instance_of::<PyBytes>()
            || object.hasattr(intern!(py, "__fspath__"))?)
        {
            return Ok(File::Object(object.to_owned()));
        }
        static FSDECODE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let fsdecode = FSDECODE.import(py, "os", "fsdecode")?;
        Ok(File::Path(fsdecode.call1((object,))?.extract()?))
    }
}

impl<'py> File<'py> {
    /// The object's `method` (`write` or `read`), or the `TypeError` of an
    /// argument that is neither a path nor a file object.
    fn method(
        object: &Bound<'py, PyAny>,
        method: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        object.getattr(method).map_err(|_| {
            let name = object
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string());
            PyTypeError::new_err(format!(
                "expected a path (str, bytes or os.PathLike) or a binary file object with \
                 {method}(), not {name}"
            ))
        })
    }
}

/// A binary file object's `write`, as an [`io::Write`]: each call writes
/// `bytes`, again for the rest if a raw file took less. A `write` that
/// returns `None` took it all: file-like objects written in Python often
/// return nothing. (A non-blocking raw file's `None`, "nothing written",
/// would be misread; a filter is not saved to one.) The file object's own
/// exception is kept to be raised as it was.
struct PyWriter<'py> {
    write: Bound<'py, PyAny>,
    failed: Option<PyErr>,
}

impl io::Write for PyWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let py = self.write.py();
        let written = self.write.call1((PyBytes::new(py, buf),)).and_then(|n| {
            if n.is_none() {
                Ok(buf.len())
            } else {
                n.extract::<usize>()
            }
        });
        match written {
            Ok(n) => Ok(n.min(buf.len())),
            Err(error) => {
                self.failed = Some(text_file_hint(py, error));
                Err(io::Error::other("the file object's write() failed"))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A text file's `write` refuses `bytes` with a `TypeError` that names
/// neither the filter nor the fix: say both.
fn text_file_hint(py: Python<'_>, error: PyErr) -> PyErr {
    if !error.is_instance_of::<PyTypeError>(py) {
        return error;
    }
    let hint = PyTypeError::new_err("a filter is written to a binary file (open it with \"wb\")");
    hint.set_cause(py, Some(error));
    hint
}

/// A filter type the format holds.
pub trait Saved: Sized + Send + Sync {
    fn to_bytes(&self) -> Result<Vec<u8>, WriteError>;
    fn save(&self, path: &Path) -> io::Result<()>;
    fn write_to(&self, out: &mut dyn io::Write) -> io::Result<()>;
    /// A shared filter's file and whether this handle writes to it (what
    /// it pickles as); `None` for a filter in memory.
    fn shared(&self) -> Option<(&Path, bool)>;
}

/// What reads a saved filter: a filter type, or `SavedFilter` for any kind.
pub trait Readable: Sized + Send {
    /// From a path, opened once (a named pipe too).
    fn load(path: &Path) -> Result<Self, ReadError>;
    /// From bytes that hold the filter and nothing else.
    fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError>;
}

macro_rules! saved {
    ($($filter:ty => $shared:path),*) => {$(
        impl Saved for $filter {
            fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
                <$filter>::to_bytes(self)
            }
            fn save(&self, path: &Path) -> io::Result<()> {
                <$filter>::save(self, path)
            }
            fn write_to(&self, out: &mut dyn io::Write) -> io::Result<()> {
                <$filter>::write_to(self, out)
            }
            fn shared(&self) -> Option<(&Path, bool)> {
                $shared(self)
            }
        }
    )*};
}

/// A fixed-size filter's shared file, if it maps one.
fn shared_file<C: Cells, S: BuildHasher + 'static>(filter: &Filter<C, S>) -> Option<(&Path, bool)> {
    Some((filter.shared_path()?, filter.shared_writable()?))
}

/// A kind that is never shared.
fn never<T>(_: &T) -> Option<(&Path, bool)> {
    None
}

saved!(
    AtomicBloom => shared_file,
    AtomicBloom<ParquetHasher> => shared_file,
    AtomicBloom<SparkHasher> => shared_file,
    AtomicCountingBloom => shared_file,
    AtomicGrowableBloom => never,
    AtomicWindowedBloom => never
);

macro_rules! readable {
    ($($filter:ty),*) => {$(
        impl Readable for $filter {
            fn load(path: &Path) -> Result<Self, ReadError> {
                <$filter>::load(path)
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
                <$filter>::from_bytes(bytes)
            }
        }
    )*};
}

/// A Spark filter: Spark's own format, or this crate's with Spark's
/// hasher (whose seed the reader takes from the file).
impl Readable for AtomicBloom<SparkHasher> {
    fn load(path: &Path) -> Result<Self, ReadError> {
        spark_of(SavedFilter::load(path)?)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        spark_of(SavedFilter::from_bytes(bytes)?)
    }
}

/// The Spark filter a file held, or the error a reader of Spark's filters
/// gives for a file of another kind.
fn spark_of(saved: SavedFilter) -> Result<AtomicBloom<SparkHasher>, ReadError> {
    match saved {
        SavedFilter::Spark(filter) => Ok(filter),
        other => Err(ReadError::WrongKind {
            written: other.kind(),
            reading: atomic_bloom::FilterKind::Bloom,
        }),
    }
}

/// A Parquet filter's file records Parquet's hasher, which its readers
/// are given.
impl Readable for AtomicBloom<ParquetHasher> {
    fn load(path: &Path) -> Result<Self, ReadError> {
        AtomicBloom::load_with_hasher(path, ParquetHasher)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        AtomicBloom::from_bytes_with_hasher(bytes, ParquetHasher)
    }
}

/// A filter file of any format: the library's [`AnyFilter`] reads it.
impl Readable for AnyFilter {
    fn load(path: &Path) -> Result<Self, ReadError> {
        AnyFilter::load(path)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        AnyFilter::from_bytes(bytes)
    }
}

readable!(
    AtomicBloom,
    AtomicCountingBloom,
    AtomicGrowableBloom,
    AtomicWindowedBloom,
    SavedFilter
);

/// The filter's bytes as a Python `bytes` object.
pub fn to_bytes<'py, F: Saved>(py: Python<'py>, filter: &F) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| filter.to_bytes()).map_err(write_error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// A filter from any bytes-like object (`bytes`, `bytearray`, `memoryview`).
pub fn from_bytes<F: Readable>(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<F> {
    let Some(bytes) = Buffer::extract(data)? else {
        return Err(PyTypeError::new_err(format!(
            "a saved filter is bytes, bytearray or memoryview, not {}",
            data.get_type().name()?
        )));
    };
    py.detach(|| F::from_bytes(&bytes)).map_err(read_error)
}

/// Writes the filter to a path atomically (a temporary file, then a
/// rename: a crash leaves the old file or the new one), with the GIL
/// released; or to a file object, through its `write`, with the GIL held.
pub fn save<F: Saved>(py: Python<'_>, filter: &F, file: File<'_>) -> PyResult<()> {
    match file {
        File::Path(path) => py
            .detach(|| filter.save(&path))
            .map_err(|err| file_error(py, err, &path)),
        File::Object(object) => {
            let write = File::method(&object, intern!(py, "write"))?;
            let mut out = PyWriter {
                write,
                failed: None,
            };
            let written = filter.write_to(&mut out);
            match (written, out.failed) {
                (Ok(()), _) => Ok(()),
                (Err(_), Some(failed)) => Err(failed),
                (Err(err), None) => Err(err.into()),
            }
        }
    }
}

/// Reads a filter (of a kind, or `SavedFilter` for any): from a path with
/// the GIL released; or from a file object, whose `read()` gives all it
/// holds, which must be the filter, checked with the GIL released.
pub fn load<T: Readable>(py: Python<'_>, file: File<'_>) -> PyResult<T> {
    match file {
        File::Path(path) => py
            .detach(|| T::load(&path))
            .map_err(|err| read_file_error(py, err, &path)),
        File::Object(object) => {
            // A text file's `read()` would decode the filter's bytes and
            // raise `UnicodeDecodeError`, which names neither the filter
            // nor the fix: a text file is refused before it is read.
            static TEXT_IO: PyOnceLock<Py<PyType>> = PyOnceLock::new();
            if object.is_instance(TEXT_IO.import(py, "io", "TextIOBase")?)? {
                return Err(PyTypeError::new_err(
                    "a filter is read from a binary file (open it with \"rb\"), not a text file",
                ));
            }
            let data = File::method(&object, intern!(py, "read"))?.call0()?;
            if !data.is_instance_of::<PyBytes>() {
                return Err(PyTypeError::new_err(format!(
                    "a filter is read from a binary file (open it with \"rb\"): read() gave {}",
                    data.get_type().name()?
                )));
            }
            from_bytes(py, &data)
        }
    }
}
