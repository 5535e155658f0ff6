//! # Shared filters: one filter, many processes
//!
//! A plain or counting filter whose words are a file that several
//! processes map (Linux). The filter is the same [`Filter`] type, so every
//! method works on it, batch and `par_` forms included: an insert is the
//! same `fetch_or` on a word that other processes' inserts and queries
//! reach too. The [`shared`](crate::docs::shared) chapter has the rules
//! (what holds across processes, what a crash leaves); here, from the
//! bottom up:
//!
//! - `file.rs`: opening (validated before mapping), creating, mapping and
//!   sealing a file;
//! - `error.rs`: [`SharedError`];
//! - this file: the API, [`SharedOptions`] and the filter's methods.

mod error;
mod file;

pub use crate::storage::words::SharedState;
pub use error::SharedError;

use crate::core::builder::Builder;
use crate::core::cells::Cells;
use crate::core::filter::Filter;
use crate::hasher::WyBuildHasher;
use crate::parquet_hasher::ParquetHasher;
use crate::persist::errors::{FilterKind, ReadError};
use crate::persist::header::{Header, spark_format};
use crate::persist::saved_filter::{SavedFilter, parquet_hashed, read_start, spark_hashed};
use crate::persist::stored::Stored;
use crate::storage::BitArray;
use file::Mode;
use std::hash::BuildHasher;
use std::io::{self, Write};
use std::path::Path;

/// How to open a shared filter file:
/// [`read_write`](Self::read_write) to insert into it with other
/// processes, [`read_only`](Self::read_only) to query it, and whether to
/// [`recover`](Self::recover) a file a killed writer left open.
///
/// ```
/// use atomic_bloom::{AtomicBloom, SharedOptions};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("seen.bloom");
/// let writer = AtomicBloom::builder().capacity(10_000, 0.01).build_shared(&path)?;
/// writer.insert("https://example.com/");
/// // Another process (here, another handle) opens the same file.
/// let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only())?;
/// assert!(reader.contains("https://example.com/"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SharedOptions {
    mode: Mode,
}

impl SharedOptions {
    /// Open to insert: every insert reaches the file and every process
    /// that maps it. Needs a shared (version 3) file.
    pub fn read_write() -> Self {
        SharedOptions {
            mode: Mode {
                write: true,
                recover: false,
                verify: false,
            },
        }
    }

    /// Open to query. The file is never written; an insert through this
    /// handle stays in this process (its copy of the page it touched).
    /// Opens any version of the format, a file `save` wrote included.
    pub fn read_only() -> Self {
        SharedOptions {
            mode: Mode {
                write: false,
                recover: false,
                verify: false,
            },
        }
    }

    /// Whether to open a file that a writer left open, having ended
    /// without closing it ([`SharedError::NotClosedCleanly`] otherwise).
    /// It holds every key whose insert had returned in that writer (the
    /// pages are the kernel's, not the process's); opened read-write, the
    /// next writer to close it seals it again.
    pub fn recover(mut self, recover: bool) -> Self {
        self.mode.recover = recover;
        self
    }

    /// Whether a read-only open verifies a sealed file's checksum, reading
    /// every word once through the mapping (no copy), as `load` would: for
    /// a tool that reports on a file or copies it, rather than one that
    /// answers queries at once. A file writers have open has no checksum
    /// to verify, nor does a read-write open check one.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, ReadError, SharedError, SharedOptions};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// AtomicBloom::new(100, 0.01)?.save(&path)?;
    /// let mut bytes = std::fs::read(&path)?;
    /// bytes[45] ^= 1; // a damaged word
    /// std::fs::write(&path, &bytes)?;
    /// assert!(AtomicBloom::open_shared(&path, SharedOptions::read_only()).is_ok());
    /// assert!(matches!(
    ///     AtomicBloom::open_shared(&path, SharedOptions::read_only().verify(true)),
    ///     Err(SharedError::Invalid { source: ReadError::ChecksumMismatch { .. }, .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn verify(mut self, verify: bool) -> Self {
        self.mode.verify = verify;
        self
    }
}

impl<C: Cells, S: BuildHasher + 'static> Filter<C, S> {
    /// Opens the shared filter file at `path`, written with `hasher`
    /// (checked by fingerprint, as [`load_with_hasher`](Filter::load_with_hasher)
    /// checks it). The header, the sizes and the file's length are
    /// validated before anything is mapped; the checksum is not read (that
    /// would read the whole file, which mapping avoids): a sealed file's
    /// checksum is [`load`](Filter::load)'s to verify.
    pub fn open_shared_with_hasher(
        path: impl AsRef<Path>,
        options: SharedOptions,
        hasher: S,
    ) -> Result<Self, SharedError> {
        let path = path.as_ref();
        let opened = file::open(path, <Self as Stored<S>>::KIND, options.mode)?;
        opened
            .header
            .filter(BitArray::over(opened.words), hasher)
            .map_err(|source| SharedError::Invalid {
                path: path.to_path_buf(),
                source,
            })
    }

    /// A shared copy of this filter: writes its cells to a new shared
    /// file at `path` (replacing a file no process has open) and opens it
    /// read-write. How a filter built in memory, or a file `save` wrote,
    /// becomes one that processes insert into together.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, SharedOptions};
    /// let dir = tempfile::tempdir()?;
    /// let f = AtomicBloom::new(1000, 0.01)?;
    /// f.insert("kept");
    /// let shared = f.to_shared(dir.path().join("f.bloom"))?;
    /// assert!(shared.contains("kept"));
    /// assert_eq!(shared, f);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_shared(&self, path: impl AsRef<Path>) -> Result<Self, SharedError>
    where
        S: Clone,
    {
        let header = Header::of(self).shared(true);
        let num_words = self.cells().num_words();
        let words = file::create(path.as_ref(), &header, num_words, |file| {
            let mut out = io::BufWriter::with_capacity(crate::persist::constants::CHUNK, file);
            let (_, header_len) = header.encode();
            std::io::Seek::seek(&mut out, io::SeekFrom::Start(header_len as u64))?;
            for word in self.cells().words(self.all_words()) {
                out.write_all(&word.to_le_bytes())?;
            }
            out.flush()
        })?;
        Ok(Filter::from_parts(
            C::from_words(BitArray::over(words)),
            self.sizing(),
            self.hasher().clone(),
        ))
    }

    /// Makes every insert that has returned through this handle durable:
    /// the mapped pages are written to the file (`msync`), so that a crash
    /// of the machine loses none of them (a crash of a process loses
    /// nothing in any case: its pages are the kernel's). The file stays
    /// marked open while a writer has it; [`close`](Self::close) seals it.
    /// A filter in memory, or opened read-only: nothing to do.
    pub fn flush(&self) -> io::Result<()> {
        match self.cells().bit_array().storage().mapping() {
            Some(mapping) => mapping.flush(),
            None => Ok(()),
        }
    }

    /// Closes this handle's hold on its shared file, reporting what a
    /// drop, which does the same, cannot: flushes it and, if this is the
    /// last handle open for writing, seals the file (records its checksum
    /// and marks it closed). The filter goes on answering from what the
    /// file held; keys inserted into it afterwards stay in this process
    /// (its mapping turns copy-on-write). Closing again, or a read-only
    /// handle or a filter in memory: nothing to do.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// let f = AtomicBloom::builder().capacity(100, 0.01).build_shared(&path)?;
    /// f.insert("in the file");
    /// f.close()?;
    /// f.insert("only here");
    /// let sealed = AtomicBloom::load(&path)?; // sealed: its checksum matches
    /// assert!(sealed.contains("in the file") && !sealed.contains("only here"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn close(&self) -> Result<(), SharedError> {
        let Some(mapping) = self.cells().bit_array().storage().mapping() else {
            return Ok(());
        };
        mapping.close().map_err(|source| SharedError::File {
            path: mapping.path().to_path_buf(),
            source,
        })
    }

    /// The file a shared filter maps (as it was opened), or `None` for a
    /// filter in memory.
    pub fn shared_path(&self) -> Option<&Path> {
        Some(self.cells().bit_array().storage().mapping()?.path())
    }

    /// The shared file's writer state when this handle opened it, or
    /// `None` for a filter in memory.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, SharedOptions, SharedState};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// let writer = AtomicBloom::builder().capacity(100, 0.01).build_shared(&path)?;
    /// let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only())?;
    /// assert_eq!(reader.shared_state(), Some(SharedState::Open));
    /// writer.close()?;
    /// let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only())?;
    /// assert_eq!(reader.shared_state(), Some(SharedState::Sealed));
    /// assert_eq!(AtomicBloom::new(100, 0.01)?.shared_state(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shared_state(&self) -> Option<SharedState> {
        Some(self.cells().bit_array().storage().mapping()?.found())
    }

    /// Whether inserts reach a shared file: `Some(true)` read-write,
    /// `Some(false)` read-only, `None` in memory.
    pub fn shared_writable(&self) -> Option<bool> {
        Some(self.cells().bit_array().storage().mapping()?.writable())
    }
}

impl<C: Cells> Filter<C, WyBuildHasher> {
    /// Opens the shared filter file at `path`, written with the default
    /// hasher, as `options` say; see
    /// [`open_shared_with_hasher`](Self::open_shared_with_hasher).
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, SharedError, SharedOptions};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// AtomicBloom::new(100, 0.01)?.save(&path)?; // version 1, what `save` writes
    /// assert!(AtomicBloom::open_shared(&path, SharedOptions::read_only()).is_ok());
    /// assert!(matches!(
    ///     AtomicBloom::open_shared(&path, SharedOptions::read_write()),
    ///     Err(SharedError::NotWritable { version: 1, .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_shared(
        path: impl AsRef<Path>,
        options: SharedOptions,
    ) -> Result<Self, SharedError> {
        let path = path.as_ref();
        let opened = file::open(path, <Self as Stored<WyBuildHasher>>::KIND, options.mode)?;
        let invalid = |source| SharedError::Invalid {
            path: path.to_path_buf(),
            source,
        };
        let hasher = opened.header.wyhash().map_err(invalid)?;
        opened
            .header
            .filter(BitArray::over(opened.words), hasher)
            .map_err(invalid)
    }
}

impl<C: Cells, S: BuildHasher + Clone + 'static> Builder<C, S> {
    /// Creates a shared filter file at `path` of the builder's size,
    /// zeroed (a sparse file: no page is written until a key lands there),
    /// replacing a file no process has open, and opens it read-write.
    /// Other processes open it with [`Filter::open_shared`].
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, SharedOptions};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("counts.bloom");
    /// let f = AtomicCountingBloom::builder().capacity(1000, 0.01).build_shared(&path)?;
    /// f.insert("k");
    /// let other = AtomicCountingBloom::open_shared(&path, SharedOptions::read_write())?;
    /// assert!(other.remove("k"));
    /// assert!(!f.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build_shared(self, path: impl AsRef<Path>) -> Result<Filter<C, S>, SharedError> {
        let path = path.as_ref();
        let sizing = self.sizing_for(None)?;
        let kind = <Filter<C, S> as Stored<S>>::KIND;
        let hasher = self.hasher_ref().clone();
        let header = Header::new(
            kind,
            sizing.placement(),
            sizing.num_hashes(),
            sizing.num_bits(),
            &hasher,
        )
        .shared(true);
        let num_words = usize::try_from(sizing.num_bits() / 64 * C::CELL_BITS).map_err(|_| {
            crate::error::BuildError::TooLarge {
                requested_bits: u128::from(sizing.num_bits()),
                max_bits: usize::MAX as u64,
            }
        })?;
        let words = file::create(path, &header, num_words, |_| Ok(()))?;
        Ok(Filter::from_parts(
            C::from_words(BitArray::over(words)),
            sizing,
            hasher,
        ))
    }
}

impl SavedFilter {
    /// Opens the filter file at `path` for queries, of the kind its header
    /// names, without reading it: a plain or counting filter (any format
    /// version) is mapped read-only, as
    /// [`open_shared`](Filter::open_shared) with `options` maps it, so a
    /// large file answers its first query having read one page; a growable
    /// or windowed filter, which cannot be mapped, is
    /// [`load`](SavedFilter::load)ed. `options` must be read-only (with or
    /// without [`recover`](SharedOptions::recover)): a saved filter of any
    /// kind is for reading.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, SavedFilter, SharedOptions};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// let f = AtomicBloom::new(100, 0.01)?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// let SavedFilter::Bloom(mapped) = SavedFilter::open_shared(&path, SharedOptions::read_only())? else {
    ///     unreachable!()
    /// };
    /// assert!(mapped.contains("k") && mapped.shared_path().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_shared(
        path: impl AsRef<Path>,
        options: SharedOptions,
    ) -> Result<Self, SharedError> {
        let path = path.as_ref();
        let invalid = |source: ReadError| match source {
            ReadError::Io(source) => SharedError::File {
                path: path.to_path_buf(),
                source,
            },
            source => SharedError::Invalid {
                path: path.to_path_buf(),
                source,
            },
        };
        if options.mode.write {
            return Err(SharedError::File {
                path: path.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "SavedFilter opens files read-only",
                ),
            });
        }
        let mut file = std::fs::File::open(path).map_err(|e| invalid(e.into()))?;
        let start = read_start(&mut file).map_err(invalid)?;
        let load = || {
            SavedFilter::load(path).map_err(|e| match e {
                ReadError::File { source, .. } => invalid(ReadError::Io(source)),
                e => invalid(e),
            })
        };
        if spark_format(&start) {
            // Big-endian words: read, not mapped.
            return load();
        }
        if let Some(hasher) = spark_hashed(&start) {
            return Filter::open_shared_with_hasher(path, options, hasher).map(Self::Spark);
        }
        if parquet_hashed(&start) {
            return Filter::open_shared_with_hasher(path, options, ParquetHasher)
                .map(Self::Parquet);
        }
        let kind = FilterKind::of_header(&start).map_err(invalid)?;
        Ok(match kind {
            FilterKind::Bloom => SavedFilter::Bloom(Filter::open_shared(path, options)?),
            FilterKind::Counting => SavedFilter::Counting(Filter::open_shared(path, options)?),
            _ => load()?,
        })
    }
}
