//! # Errors: the library's errors as Python exceptions
//!
//! | library error | Python exception |
//! |---|---|
//! | `BuildError` (bad parameters), `ParseLayoutError` | `ValueError` |
//! | `BuildError::AllocationFailed`, `WriteError` (no memory for the bytes) | `MemoryError` |
//! | `ReadError::BufferAllocationFailed` | `MemoryError` |
//! | `ReadError::Io` and `ReadError::File`, a failed save | `OSError` as `open()` raises it: the subclass its errno picks (e.g. `FileNotFoundError`), with `errno`, `strerror` and `filename` set |
//! | any other `ReadError`: the bytes are not a valid filter | `CorruptFilterError`, a `ValueError` |
//! | `ReadError::WrongKind` | `CorruptFilterError`, naming the class that reads the file |
//! | `IncompatibleError` | `IncompatibleFilterError`, a `ValueError` |
//! | `GrowthError` (a limit reached) | `FilterFullError` |
//! | `GrowthError::SubFilter` from `BuildError::AllocationFailed` | `MemoryError` |
//! | `SharedError::File` | `OSError`, as for a read |
//! | `SharedError::Invalid` | as the `ReadError` it holds |
//! | `SharedError::NotClosedCleanly` | `FileLeftOpenError`, an `OSError` |
//! | `SharedError::NotWritable`, `SharedError::InUse` | `OSError` with the library's message |
//! | `SharedError::Build` | as the `BuildError` |
//!
//! Each keeps the library's message, which says what to change.

use atomic_bloom::{
    BuildError, FilterKind, GrowthError, IncompatibleError, ReadError, SharedError, WriteError,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use std::io;
use std::path::Path;

create_exception!(
    atomic_bloom,
    CorruptFilterError,
    PyValueError,
    "The bytes or file given are not a valid saved filter of this class: bad magic, \
     unknown version, layout or kind, parameters out of range, truncated, or a checksum \
     mismatch."
);

create_exception!(
    atomic_bloom,
    IncompatibleFilterError,
    PyValueError,
    "Two filters cannot be combined: their sizes, numbers of hashes, layouts or seeds differ."
);

create_exception!(
    atomic_bloom,
    FileLeftOpenError,
    PyOSError,
    "A shared filter file that a process opened for writing and never closed (it was killed, \
     or its machine crashed): it holds every key whose add had returned, but its checksum no \
     longer vouches for it. Open it with recover=True to use it."
);

create_exception!(
    atomic_bloom,
    FilterFullError,
    PyException,
    "A growable filter may not grow to take a new key: it has as many sub-filters as \
     max_sub_filters allows, the next would pass memory_limit, or would be past the \
     largest filter the format holds. The key was not added."
);

/// The Python class that reads filters of `kind`.
pub fn class_name(kind: FilterKind) -> &'static str {
    match kind {
        FilterKind::Bloom => "BloomFilter",
        FilterKind::Counting => "CountingBloomFilter",
        FilterKind::Growable => "GrowableBloomFilter",
        _ => "atomic_bloom.load",
    }
}

/// `ValueError` for parameters no filter can be built from, `MemoryError`
/// for one this machine cannot hold.
pub fn build_error(err: BuildError) -> PyErr {
    match err {
        BuildError::AllocationFailed { .. } => PyMemoryError::new_err(err.to_string()),
        err => PyValueError::new_err(err.to_string()),
    }
}

/// `MemoryError`: the only reason a filter's bytes cannot be made.
pub fn write_error(err: WriteError) -> PyErr {
    PyMemoryError::new_err(err.to_string())
}

/// `OSError` for I/O, `CorruptFilterError` for everything the bytes got wrong.
pub fn read_error(err: ReadError) -> PyErr {
    match err {
        ReadError::Io(io) | ReadError::File { source: io, .. } => io.into(),
        ReadError::AllocationFailed(err) => build_error(err),
        err @ ReadError::BufferAllocationFailed { .. } => PyMemoryError::new_err(err.to_string()),
        ReadError::WrongKind { written, reading } => CorruptFilterError::new_err(format!(
            "the data holds {written}, not {reading}: read it with {}.load or \
             {}.from_bytes, or with atomic_bloom.load",
            class_name(written),
            class_name(written),
        )),
        err => CorruptFilterError::new_err(format!("not a valid filter: {err}")),
    }
}

/// A failed read or write of the file at `path`, raised as Python's own
/// file functions raise it: `OSError(errno, strerror, filename)`, which
/// Python turns into the subclass the errno picks, so the message reads
/// `[Errno 2] No such file or directory: 'f.abf'` and `filename` says which
/// file. An error with no OS code (or on Windows, whose codes are not
/// errnos) keeps the library's message and the subclass its kind picks.
pub fn file_error(py: Python<'_>, err: io::Error, path: &Path) -> PyErr {
    match err.raw_os_error() {
        Some(errno) if cfg!(unix) => os_error(py, errno, path).unwrap_or_else(|failed| failed),
        _ => err.into(),
    }
}

/// `OSError(errno, os.strerror(errno), path)`.
fn os_error(py: Python<'_>, errno: i32, path: &Path) -> PyResult<PyErr> {
    let strerror = py.import("os")?.getattr("strerror")?.call1((errno,))?;
    Ok(PyOSError::new_err((
        errno,
        strerror.unbind(),
        path.as_os_str().to_owned(),
    )))
}

/// [`read_error`] for a read of the file at `path`: its I/O errors name
/// the file ([`file_error`]).
pub fn read_file_error(py: Python<'_>, err: ReadError, path: &Path) -> PyErr {
    match err {
        ReadError::Io(io) | ReadError::File { source: io, .. } => file_error(py, io, path),
        err => read_error(err),
    }
}

/// `IncompatibleFilterError` with the library's reason.
pub fn incompatible(err: IncompatibleError) -> PyErr {
    IncompatibleFilterError::new_err(err.to_string())
}

/// `FilterFullError` for a limit, `MemoryError` if the allocator refused.
pub fn growth_error(err: GrowthError) -> PyErr {
    match err {
        GrowthError::SubFilter {
            source: BuildError::AllocationFailed { .. },
            ..
        } => PyMemoryError::new_err(err.to_string()),
        err => FilterFullError::new_err(err.to_string()),
    }
}

/// A shared file that could not be opened or created, as the table above
/// says.
pub fn shared_error(py: Python<'_>, err: SharedError) -> PyErr {
    match err {
        SharedError::File { source, path } => file_error(py, source, &path),
        SharedError::Invalid { source, path } => read_file_error(py, source, &path),
        SharedError::Build(err) => build_error(err),
        err @ SharedError::NotClosedCleanly { .. } => FileLeftOpenError::new_err(err.to_string()),
        err => PyOSError::new_err(err.to_string()),
    }
}
