//! What a file names and why it may be refused: the kind of filter it
//! holds ([`FilterKind`]), the hasher it records ([`HasherId`]), and
//! [`ReadError`], whose variants name both.

use super::constants::{
    FORMAT_VERSION, HASHER_CUSTOM, HASHER_PARQUET, HASHER_SPARK, HASHER_WYHASH,
};
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::layout::Layout;
use crate::parquet_hasher::ParquetHasher;
use crate::spark_hasher::SparkHasher;
use std::any::Any;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a filter could not be read.
///
/// ```
/// use atomic_bloom::{AtomicBloom, ReadError};
///
/// let mut bytes = AtomicBloom::new(100, 0.01)?.to_bytes()?;
/// bytes.truncate(50);
/// assert!(matches!(AtomicBloom::from_bytes(&bytes), Err(ReadError::Truncated { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the input failed (the I/O error is the [`source`](std::error::Error::source)).
    #[error("cannot read the filter")]
    Io(#[from] io::Error),
    /// Opening or reading the file at `path` failed (`load`); the I/O
    /// error is the [`source`](std::error::Error::source), its reason
    /// printed where the chain is (`{:#}` with anyhow), not repeated here.
    #[error("cannot read the filter file {}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
    /// The input does not start with [`MAGIC`](crate::MAGIC): it is not a filter file.
    #[error("not an atomic-bloom filter (bad magic bytes)")]
    BadMagic,
    /// The input starts as a file of Google Guava's format does (its
    /// `BloomFilter.writeTo`: a strategy byte, 0 or 1, then `k`, not 0):
    /// [`GuavaBloom`](crate::GuavaBloom) reads it
    /// ([`read_guava`](crate::GuavaBloom::read_guava)), since its keys'
    /// positions need 128 bits of hash, which this crate's filters do not
    /// carry.
    #[error(
        "a Bloom filter in Google Guava's format, not atomic-bloom's: read it as a Guava filter \
         (GuavaBloom::read_guava in Rust, GuavaBloomFilter.from_guava in Python)"
    )]
    GuavaFormat,
    /// The input starts as a file of Apache Spark's format does (version 1
    /// or 2 as a big-endian 32-bit integer), read by a reader of this
    /// crate's own format with a hasher other than Spark's: read it with
    /// [`from_spark_bytes`](crate::Filter::from_spark_bytes) or
    /// [`SavedFilter`](crate::SavedFilter), which take Spark's format.
    #[error(
        "a Bloom filter in Apache Spark's format, not atomic-bloom's: read it as a Spark filter \
         (AtomicBloom::read_spark or SavedFilter in Rust, atomic_bloom.load in Python)"
    )]
    SparkFormat,
    /// Written by a newer (or unknown) format version.
    #[error("unsupported format version {0}; this build reads versions 1 to {FORMAT_VERSION}")]
    UnsupportedVersion(u16),
    /// The version 2 filter-kind id is not one this build knows (0 among
    /// them: plain filters are version 1 files).
    #[error("unknown filter kind id {0}")]
    UnknownKind(u8),
    /// The file holds another kind of filter than the reader's type: read
    /// it with the reader of the kind it names.
    #[error("the file holds {written}, not {reading}: read it with {}::load or from_bytes", written.type_name())]
    WrongKind {
        /// The kind the file holds.
        written: FilterKind,
        /// The kind of the type reading it.
        reading: FilterKind,
    },
    /// A version 2 header's reserved bytes (41 to 47) are not zero: no
    /// writer produces such a header.
    #[error("the header's reserved bytes are not zero")]
    ReservedBytes,
    /// A version 3 header's writer-state byte is neither sealed (0) nor
    /// open for writing (1).
    #[error("unknown writer state {0}")]
    UnknownWriterState(u8),
    /// A [shared](crate::docs::shared) file that a process had open for
    /// writing when it was read, so its checksum does not cover it: read
    /// it once its writers have closed it, or, if a writer was killed,
    /// recover it ([`SharedOptions::recover`](crate::SharedOptions::recover)).
    #[error(
        "the file is a shared filter open for writing (or left open by a writer that did not close it): \
         its checksum does not cover it; open it shared, or recover it if its writer was killed"
    )]
    OpenForWriting,
    /// Guava's strategy ordinal (its first byte) is neither 0 nor 1
    /// ([`GuavaBloom::from_guava_bytes`](crate::GuavaBloom::from_guava_bytes)).
    #[error("not a Guava Bloom filter this build reads: strategy {0}, where Guava writes 0 or 1")]
    UnknownGuavaStrategy(u8),
    /// Spark's format version (its first four bytes) is neither 1 nor 2
    /// ([`from_spark_bytes`](crate::Filter::from_spark_bytes)).
    #[error("not a Spark Bloom filter this build reads: version {0}, where Spark writes 1 or 2")]
    UnsupportedSparkVersion(i32),
    /// The layout id is not one this build knows.
    #[error("unknown layout id {0}")]
    UnknownLayout(u8),
    /// The hasher id is not one this build knows.
    #[error("unknown hasher id {0}")]
    UnknownHasher(u8),
    /// `k` or `m` is out of range.
    #[error("invalid filter parameters: {0}")]
    InvalidParameters(BuildError),
    /// `m` is not a whole number of the layout's words (blocks for
    /// `Blocked`): no writer produces such a header.
    #[error(
        "invalid filter parameters: {num_bits} bits is not a multiple of {granule}, the {layout} layout's unit"
    )]
    UnalignedBits {
        /// The header's `m`.
        num_bits: u64,
        /// The header's layout.
        layout: Layout,
        /// The multiple of bits the layout sizes its array in.
        granule: u64,
    },
    /// The input ends before the filter does.
    #[error("truncated: the filter needs {expected} bytes, the input has {actual}")]
    Truncated {
        /// Bytes the header implies.
        expected: u64,
        /// Bytes the input has.
        actual: u64,
    },
    /// The input goes on after the filter ends.
    #[error("trailing bytes: the filter is {expected} bytes, the input is longer")]
    TrailingBytes {
        /// Bytes the header implies.
        expected: u64,
    },
    /// The checksum does not match: the bytes were changed or damaged.
    #[error("checksum mismatch: stored {stored:#018x}, computed {computed:#018x}")]
    ChecksumMismatch {
        /// The checksum in the file.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// The file records another hasher or seed than the reader's.
    #[error(
        "the filter was written with {written}, and is being read with {reading}{}",
        reread_hint(written)
    )]
    HasherMismatch {
        /// The hasher the file records.
        written: HasherId,
        /// The hasher the reader was given.
        reading: HasherId,
    },
    /// The header records a custom hasher with a seed other than 0, which
    /// no writer produces: a custom hasher's state is not in the file.
    #[error(
        "the header records seed {0} for a hasher that takes none (a custom hasher or Parquet's); writers record 0"
    )]
    CustomHasherSeed(u64),
    /// The file records the same kind of hasher as the reader's, but its
    /// fingerprint (the hasher's hash of a fixed string) differs: another
    /// custom hasher type, or one in another state.
    #[error(
        "the filter's hasher fingerprint is {written:#018x}, the reader's hasher gives \
         {reading:#018x}: read it with the hasher it was written with"
    )]
    FingerprintMismatch {
        /// The fingerprint the file records.
        written: u64,
        /// The reader's hasher's fingerprint.
        reading: u64,
    },
    /// The allocator refused the filter's array.
    #[error("could not allocate the filter's array: {0}")]
    AllocationFailed(BuildError),
    /// The allocator refused to grow the buffer that holds a stream's bytes
    /// as they arrive (a stream has no length to check first).
    #[error("could not allocate {bytes} bytes to buffer the input read so far")]
    BufferAllocationFailed {
        /// Bytes the buffer needed: what had arrived.
        bytes: u64,
    },
    /// A growable filter's chain does not hold together. No writer
    /// produces such a file.
    #[error("invalid growable filter: {0}")]
    InvalidChain(ChainDefect),
    /// A windowed filter's state does not hold together. No writer
    /// produces such a file.
    #[error("invalid windowed filter: {0}")]
    InvalidWindow(WindowDefect),
}

/// What does not hold together in a growable filter's file
/// ([`ReadError::InvalidChain`]).
///
/// ```
/// use atomic_bloom::{AtomicGrowableBloom, ChainDefect, ReadError};
/// let mut bytes = AtomicGrowableBloom::new(100, 0.01)?.to_bytes()?;
/// bytes[92] = 0; // the number of sub-filters
/// assert!(matches!(
///     AtomicGrowableBloom::from_bytes(&bytes),
///     Err(ReadError::InvalidChain(ChainDefect::SubFilterCount { count: 0, .. }))
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum ChainDefect {
    /// No sub-filters, or more than any filter may have (or than its own
    /// maximum).
    #[error("{count} sub-filters; this filter has 1 to {max}")]
    SubFilterCount {
        /// The count the file records.
        count: u32,
        /// The most it may be.
        max: u32,
    },
    /// An initial capacity this platform cannot address.
    #[error("an initial capacity of {0} keys, past this platform's address space")]
    InitialCapacity(u64),
    /// A sub-filter's capacity is not the one the growth parameters give
    /// it, or its reserved field is not zero.
    #[error(
        "sub-filter {depth} records capacity {recorded} (reserved {reserved}); the parameters give {}",
        .expected.map_or("none".to_string(), |c| c.to_string())
    )]
    Capacity {
        /// Its place in the chain, oldest first.
        depth: u32,
        /// The capacity it records.
        recorded: u64,
        /// Its reserved field.
        reserved: u32,
        /// The capacity the parameters give (`None`: past any capacity).
        expected: Option<u64>,
    },
    /// A sub-filter's size is far from the one its growth parameters give
    /// it (a forged schedule would size the next sub-filter from them).
    #[error("sub-filter {depth} has {bits} bits; its growth parameters size it at {planned}")]
    Schedule {
        /// Its place in the chain, oldest first.
        depth: u32,
        /// Its `m`.
        bits: u64,
        /// The `m` the parameters give.
        planned: u64,
    },
    /// A sub-filter counts more new keys than its bits could have taken.
    #[error(
        "sub-filter {depth} records {inserted} keys inserted, more than its {bits} bits could have taken"
    )]
    Inserted {
        /// Its place in the chain, oldest first.
        depth: u32,
        /// The count it records.
        inserted: u64,
        /// Its `m`.
        bits: u64,
    },
}

/// What does not hold together in a windowed filter's file
/// ([`ReadError::InvalidWindow`]).
///
/// ```
/// use atomic_bloom::{AtomicWindowedBloom, ReadError, WindowDefect};
/// let mut bytes = AtomicWindowedBloom::new(100, 0.01)?.to_bytes()?;
/// bytes[48 + 24] = 9; // the window's kind
/// let end = bytes.len() - 8;
/// let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
/// bytes[end..].copy_from_slice(&sum.to_le_bytes());
/// assert!(matches!(
///     AtomicWindowedBloom::from_bytes(&bytes),
///     Err(ReadError::InvalidWindow(WindowDefect::UnknownWindowKind(9)))
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum WindowDefect {
    /// A window of 0 keys: writers record at least 1.
    #[error("a window of 0 keys; writers record at least 1")]
    NoKeys,
    /// A key count this platform cannot address.
    #[error("a window of {0} keys, past this platform's address space")]
    KeysPastAddressSpace(u64),
    /// A window kind this build does not know.
    #[error("unknown window kind {0}")]
    UnknownWindowKind(u8),
    /// A choice of what to do when a generation fills that this build does
    /// not know.
    #[error("unknown when-full choice {0}")]
    UnknownWhenFull(u8),
    /// More rotations than a file may record.
    #[error("{recorded} rotations, above the {max} a file may record")]
    Rotations {
        /// The count the file records.
        recorded: u64,
        /// The most it may be.
        max: u64,
    },
    /// A window of keys that records a time (a save time, a generation's
    /// age, or generations filled early).
    #[error("a window of keys records no time and fills no generation early")]
    TimeInKeyWindow,
    /// A generation older than the first ever made holds keys or a time.
    #[error(
        "generation {age} back was never made ({rotations} rotations), yet holds keys or a time"
    )]
    NeverMade {
        /// How many generations back it is.
        age: u64,
        /// The rotations the file records.
        rotations: u64,
    },
    /// A generation counts more new keys than its bits could have taken.
    #[error("generation {age} back records {inserted} keys, more than its {bits} bits could take")]
    Inserted {
        /// How many generations back it is.
        age: u64,
        /// The count it records.
        inserted: u64,
        /// Its `m`.
        bits: u64,
    },
}

/// Why a filter could not be written out as bytes (`to_bytes`): writing
/// to a file or stream reports an [`io::Error`] instead.
///
/// ```
/// use atomic_bloom::{AtomicBloom, WriteError};
/// let bytes: Result<Vec<u8>, WriteError> = AtomicBloom::new(100, 0.01)?.to_bytes();
/// assert!(bytes.is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteError {
    /// The allocator refused the buffer for the filter's bytes.
    #[error("could not allocate {bytes} bytes for the filter's bytes")]
    AllocationFailed {
        /// Bytes the buffer needed.
        bytes: u64,
    },
    /// Spark's format holds a filter of [`Layout::Spark`](crate::Layout::Spark),
    /// or of [`Layout::SparkV1`](crate::Layout::SparkV1) with seed 0, of
    /// fewer than 2^31 words ([`to_spark_bytes`](crate::Filter::to_spark_bytes)).
    #[error(
        "Spark's format holds the spark layout, or spark-v1 with seed 0, under 2^31 words; \
         this filter has the {layout} layout and seed {seed}"
    )]
    NotSpark {
        /// The filter's layout.
        layout: Layout,
        /// Its [`SparkHasher`](crate::SparkHasher)'s seed.
        seed: i32,
    },
}

/// What a filter file holds: which filter type reads it.
///
/// ```
/// use atomic_bloom::{AtomicBloom, AtomicCountingBloom, FilterKind, ReadError};
/// let counting = AtomicCountingBloom::new(100, 0.01)?;
/// let err = AtomicBloom::from_bytes(&counting.to_bytes()?).unwrap_err();
/// assert!(matches!(err, ReadError::WrongKind { written: FilterKind::Counting, .. }));
/// assert_eq!(FilterKind::Counting.format_version(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FilterKind {
    /// An [`AtomicBloom`](crate::AtomicBloom): a bit per cell.
    Bloom,
    /// An [`AtomicCountingBloom`](crate::AtomicCountingBloom): a 4-bit
    /// counter per cell.
    Counting,
    /// An [`AtomicGrowableBloom`](crate::AtomicGrowableBloom): a chain of
    /// plain filters.
    Growable,
    /// An [`AtomicWindowedBloom`](crate::AtomicWindowedBloom): a ring of
    /// generations of plain filters.
    Windowed,
}

impl FilterKind {
    /// The id a version 2 header records, or `None` for a kind written as
    /// version 1 (plain filters). Id 0 is never written, and read as
    /// unknown: a plain filter has one encoding, version 1, so that every
    /// file a reader accepts writes back byte for byte.
    pub(crate) fn v2_id(self) -> Option<u8> {
        match self {
            FilterKind::Bloom => None,
            FilterKind::Counting => Some(1),
            FilterKind::Growable => Some(2),
            FilterKind::Windowed => Some(3),
        }
    }

    /// The kind a version 2 header's id names.
    pub(crate) fn from_v2_id(id: u8) -> Option<FilterKind> {
        match id {
            1 => Some(FilterKind::Counting),
            2 => Some(FilterKind::Growable),
            3 => Some(FilterKind::Windowed),
            _ => None,
        }
    }

    /// Bits of the body per cell (per bit of `m`); `None` for a kind whose
    /// body is not one array (a growable filter's chain).
    pub(crate) fn cell_bits(self) -> Option<u64> {
        match self {
            FilterKind::Bloom => Some(1),
            FilterKind::Counting => Some(4),
            FilterKind::Growable | FilterKind::Windowed => None,
        }
    }

    /// The format version files of this kind are written in: the oldest
    /// that can hold them.
    pub fn format_version(self) -> u16 {
        match self.v2_id() {
            None => 1,
            Some(_) => 2,
        }
    }

    pub(crate) fn type_name(self) -> &'static str {
        match self {
            FilterKind::Bloom => "AtomicBloom",
            FilterKind::Counting => "AtomicCountingBloom",
            FilterKind::Growable => "AtomicGrowableBloom",
            FilterKind::Windowed => "AtomicWindowedBloom",
        }
    }
}

impl std::fmt::Display for FilterKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FilterKind::Bloom => "a Bloom filter",
            FilterKind::Counting => "a counting Bloom filter",
            FilterKind::Growable => "a growable Bloom filter",
            FilterKind::Windowed => "a windowed Bloom filter",
        })
    }
}

impl ReadError {
    /// This error as a reader of the file at `path` reports it: an I/O
    /// error names the file.
    pub(crate) fn in_file(self, path: &Path) -> ReadError {
        match self {
            ReadError::Io(source) => ReadError::File {
                path: path.to_path_buf(),
                source,
            },
            other => other,
        }
    }
}

/// A hasher as a file header records it: its id and seed.
///
/// ```
/// use atomic_bloom::HasherId;
/// assert_eq!(HasherId::Default { seed: 7 }.to_string(), "the default hasher (wyhash, seed 7)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HasherId {
    /// [`WyBuildHasher`] with this seed.
    Default {
        /// The seed.
        seed: u64,
    },
    /// A hasher of the caller's (its seed field is 0).
    Custom,
    /// [`ParquetHasher`]: XXH64, seed 0, of Parquet's plain encoding, the
    /// hasher of a filter whose bits a Parquet writer set (its seed field
    /// is 0).
    Parquet,
    /// [`SparkHasher`] with this seed: Spark's two Murmur3 hashes (the
    /// seed field holds the seed's 32 bits).
    Spark {
        /// The seed of `h1`.
        seed: i32,
    },
}

impl std::fmt::Display for HasherId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HasherId::Default { seed } => write!(f, "the default hasher (wyhash, seed {seed})"),
            HasherId::Custom => f.write_str("a custom hasher"),
            HasherId::Parquet => f.write_str("Parquet's hasher (XXH64 of the plain encoding)"),
            HasherId::Spark { seed } => write!(f, "Spark's hasher (Murmur3, seed {seed})"),
        }
    }
}

impl HasherId {
    /// The id and seed a header records for `hasher`: the default hasher's
    /// seed, or `Custom`. Told by type through `Any` rather than by a trait
    /// the hasher implements: without specialization, a trait would make
    /// every caller's hasher implement it before its filter could be saved,
    /// where any `BuildHasher + 'static` is saveable now.
    pub(crate) fn of<S: 'static>(hasher: &S) -> HasherId {
        let hasher = hasher as &dyn Any;
        if let Some(wyhash) = hasher.downcast_ref::<WyBuildHasher>() {
            HasherId::Default {
                seed: wyhash.seed(),
            }
        } else if hasher.is::<ParquetHasher>() {
            HasherId::Parquet
        } else if let Some(spark) = hasher.downcast_ref::<SparkHasher>() {
            HasherId::Spark { seed: spark.seed() }
        } else {
            HasherId::Custom
        }
    }

    /// Decodes the header's hasher id and seed fields.
    pub(crate) fn decode(id: u8, seed: u64) -> Result<HasherId, ReadError> {
        match (id, seed) {
            (HASHER_WYHASH, seed) => Ok(HasherId::Default { seed }),
            (HASHER_CUSTOM, 0) => Ok(HasherId::Custom),
            (HASHER_CUSTOM, seed) => Err(ReadError::CustomHasherSeed(seed)),
            (HASHER_PARQUET, 0) => Ok(HasherId::Parquet),
            (HASHER_PARQUET, seed) => Err(ReadError::CustomHasherSeed(seed)),
            (HASHER_SPARK, seed) => match u32::try_from(seed) {
                Ok(seed) => Ok(HasherId::Spark { seed: seed as i32 }),
                Err(_) => Err(ReadError::CustomHasherSeed(seed)),
            },
            (id, _) => Err(ReadError::UnknownHasher(id)),
        }
    }

    /// The default hasher this id records, for the default readers; a
    /// custom hasher's file needs its `_with_hasher` reader.
    pub(crate) fn wyhash(self) -> Result<WyBuildHasher, ReadError> {
        match self {
            HasherId::Default { seed } => Ok(WyBuildHasher::with_seed(seed)),
            written @ (HasherId::Custom | HasherId::Parquet | HasherId::Spark { .. }) => {
                Err(ReadError::HasherMismatch {
                    written,
                    reading: HasherId::Default { seed: 0 },
                })
            }
        }
    }

    pub(crate) fn encode(self) -> (u8, u64) {
        match self {
            HasherId::Default { seed } => (HASHER_WYHASH, seed),
            HasherId::Custom => (HASHER_CUSTOM, 0),
            HasherId::Parquet => (HASHER_PARQUET, 0),
            HasherId::Spark { seed } => (HASHER_SPARK, u64::from(seed as u32)),
        }
    }
}

/// What to do when a file's hasher is not the reader's.
pub(crate) fn reread_hint(written: &HasherId) -> &'static str {
    match written {
        HasherId::Custom => {
            "; read it with the *_with_hasher functions and the hasher it was written with \
             (a custom hasher's file records 0 as its seed)"
        }
        HasherId::Parquet => {
            "; read it with the *_with_hasher functions and atomic_bloom::ParquetHasher, \
             or as a SavedFilter"
        }
        HasherId::Default { .. } => "; read it with from_bytes, read_from or load",
        HasherId::Spark { .. } => {
            "; read it with the *_with_hasher functions and atomic_bloom::SparkHasher with its seed, \
             or as a SavedFilter"
        }
    }
}
