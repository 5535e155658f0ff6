//! # Saving: the library's format, with the GIL released
//!
//! `save`, `load`, `to_bytes`, `from_bytes` and pickling of every class
//! go through here, in the library's validated format (its `docs::format`
//! chapter), so a file written from Python is read by the CLI and by Rust
//! and the other way round. Writing and checking a large filter is
//! memory-bound work that needs no interpreter: it runs with the GIL
//! released.

use crate::errors::{build_error, file_error, read_error, read_file_error};
use crate::keys::Buffer;
use atomic_bloom::{AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, BuildError, ReadError};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyBytes;
use std::io;
use std::path::{Path, PathBuf};

/// A path argument, taken as Python's file functions take one: `str`,
/// `bytes` or any `os.PathLike` (pyo3's own `PathBuf` takes no `bytes`).
/// `os.fsdecode` makes a `str` of it, which the file system's encoding
/// turns back into the same bytes (undecodable ones by `surrogateescape`).
pub struct FsPath(pub PathBuf);

impl FromPyObject<'_, '_> for FsPath {
    type Error = PyErr;

    fn extract(object: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        static FSDECODE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let fsdecode = FSDECODE.import(object.py(), "os", "fsdecode")?;
        Ok(FsPath(fsdecode.call1((object,))?.extract()?))
    }
}

/// A filter type the format holds.
pub trait Saved: Sized + Send + Sync {
    fn to_bytes(&self) -> Result<Vec<u8>, BuildError>;
    fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError>;
    fn save(&self, path: &Path) -> io::Result<()>;
    fn load(path: &Path) -> Result<Self, ReadError>;
}

macro_rules! saved {
    ($($filter:ty),*) => {$(
        impl Saved for $filter {
            fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
                <$filter>::to_bytes(self)
            }
            fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
                <$filter>::from_bytes(bytes)
            }
            fn save(&self, path: &Path) -> io::Result<()> {
                <$filter>::save(self, path)
            }
            fn load(path: &Path) -> Result<Self, ReadError> {
                <$filter>::load(path)
            }
        }
    )*};
}

saved!(AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom);

/// The filter's bytes as a Python `bytes` object.
pub fn to_bytes<'py, F: Saved>(py: Python<'py>, filter: &F) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| filter.to_bytes()).map_err(build_error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// A filter from any bytes-like object (`bytes`, `bytearray`, `memoryview`).
pub fn from_bytes<F: Saved>(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<F> {
    let Some(bytes) = Buffer::extract(data)? else {
        return Err(PyTypeError::new_err(format!(
            "a saved filter is bytes, bytearray or memoryview, not {}",
            data.get_type().name()?
        )));
    };
    py.detach(|| F::from_bytes(&bytes)).map_err(read_error)
}

/// Writes the filter to `path` atomically (a temporary file, then a
/// rename: a crash leaves the old file or the new one).
pub fn save<F: Saved>(py: Python<'_>, filter: &F, FsPath(path): FsPath) -> PyResult<()> {
    py.detach(|| filter.save(&path))
        .map_err(|err| file_error(py, err, &path))
}

/// Reads a filter from `path` with `load` (a kind's `load`, or
/// `SavedFilter::load` for any kind), with the GIL released.
pub fn load<T: Send>(
    py: Python<'_>,
    FsPath(path): FsPath,
    load: impl FnOnce(&Path) -> Result<T, ReadError> + Send,
) -> PyResult<T> {
    py.detach(|| load(&path))
        .map_err(|err| read_file_error(py, err, &path))
}
