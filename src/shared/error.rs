//! Why a shared file could not be opened or created.

use crate::error::BuildError;
use crate::persist::errors::ReadError;
use std::io;
use std::path::PathBuf;
use thiserror::Error;

/// Why a [shared filter](crate::docs::shared) could not be opened,
/// created or closed.
///
/// ```
/// use atomic_bloom::{AtomicBloom, SharedError, SharedOptions};
/// let dir = tempfile::tempdir()?;
/// let missing = AtomicBloom::open_shared(dir.path().join("none"), SharedOptions::read_only());
/// assert!(matches!(missing, Err(SharedError::File { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SharedError {
    /// Opening, locking, mapping or writing the file failed (the I/O error
    /// is the [`source`](std::error::Error::source)).
    #[error("cannot use the shared filter file {}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The file is not a filter of this kind, or its header or length do
    /// not hold together: refused before anything was mapped.
    #[error("{} is not a filter this type can open", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: ReadError,
    },
    /// A process opened the file for writing and ended without closing it
    /// (killed, or its machine crashed): every insert that returned there
    /// is in the file, but its checksum no longer vouches for it. Open it
    /// with [`SharedOptions::recover`](crate::SharedOptions::recover) to use it; the next writer to close
    /// it seals it again.
    #[error(
        "{} was left open for writing by a process that did not close it (killed or crashed): \
         open it with recover to use it",
        path.display()
    )]
    NotClosedCleanly {
        /// The file.
        path: PathBuf,
    },
    /// A version 1 or 2 file (what `save` writes) opens shared read-only;
    /// to write to it from several processes, make a shared copy once
    /// ([`Filter::to_shared`](crate::Filter::to_shared)).
    #[error(
        "{} is a version {version} file, which processes can only read shared: \
         make a shared copy to write to it (to_shared, or the CLI's `build --shared`)",
        path.display()
    )]
    NotWritable {
        /// The file.
        path: PathBuf,
        /// Its format version.
        version: u16,
    },
    /// The builder's parameters do not make a filter
    /// ([`build_shared`](crate::Builder::build_shared)).
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A process has the file open for writing as a shared filter: it is
    /// not replaced, since that process would go on with the old file,
    /// apart from the others.
    #[error("{} is a shared filter that a process has open for writing: close it before replacing it", path.display())]
    InUse {
        /// The file.
        path: PathBuf,
    },
}
