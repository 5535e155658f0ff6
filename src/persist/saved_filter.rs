//! [`SavedFilter`]: a saved filter of whichever kind its header names.

use super::constants::{HASHER_PARQUET, HASHER_SPARK, V3_HEADER_LEN};
use super::errors::{FilterKind, ReadError};
use super::header::spark_format;
use crate::error::GrowthError;
use crate::key::Key;
use crate::kinds::bloom::AtomicBloom;
use crate::kinds::counting::AtomicCountingBloom;
use crate::kinds::growable::AtomicGrowableBloom;
use crate::kinds::window::AtomicWindowedBloom;
use crate::membership::Membership;
use crate::parquet_hasher::ParquetHasher;
use crate::spark_hasher::SparkHasher;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// A filter of whichever kind a saved file holds, as its header says: what
/// a program that reads any filter file it is given loads (the
/// `atomic-bloom` CLI, Python's `atomic_bloom.load`). Filters written with
/// the default hasher, and plain filters written with [`ParquetHasher`]
/// (imported from Parquet files), which keep answering with Parquet's hash;
/// a program that knows the kind it expects reads it with that kind's own
/// reader.
///
/// ```
/// use atomic_bloom::{AtomicCountingBloom, FilterKind, SavedFilter};
/// let counting = AtomicCountingBloom::new(100, 0.01)?;
/// counting.insert("k");
/// let read = SavedFilter::from_bytes(&counting.to_bytes()?)?;
/// assert_eq!(read.kind(), FilterKind::Counting);
/// assert_eq!(read, SavedFilter::Counting(counting));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub enum SavedFilter {
    /// A plain filter ([`FilterKind::Bloom`]).
    Bloom(AtomicBloom),
    /// A counting filter ([`FilterKind::Counting`]).
    Counting(AtomicCountingBloom),
    /// A growable filter ([`FilterKind::Growable`]).
    Growable(AtomicGrowableBloom),
    /// A windowed filter ([`FilterKind::Windowed`]), boxed: its ring's
    /// counters each have a cache line of their own.
    Windowed(Box<AtomicWindowedBloom>),
    /// A plain filter whose keys are hashed as Apache Parquet hashes them
    /// ([`ParquetHasher`]): a filter a Parquet writer built.
    Parquet(AtomicBloom<ParquetHasher>),
    /// A plain filter whose keys are hashed and placed as Apache Spark's
    /// ([`SparkHasher`], [`Layout::Spark`](crate::Layout::Spark) or
    /// [`Layout::SparkV1`](crate::Layout::SparkV1)): a file Spark's
    /// `BloomFilter.writeTo` wrote, which the readers here take as they take
    /// this crate's files, or one of this crate's files of such a filter.
    Spark(AtomicBloom<SparkHasher>),
}

impl SavedFilter {
    /// The filter in `bytes`, of the kind its header names (or Spark's
    /// format, which begins with its version, 1 or 2, as a big-endian
    /// 32-bit integer, where this crate's files begin with [`MAGIC`](crate::MAGIC)).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        if spark_format(bytes) {
            return AtomicBloom::from_spark_bytes(bytes).map(Self::Spark);
        }
        if let Some(hasher) = spark_hashed(bytes) {
            return AtomicBloom::from_bytes_with_hasher(bytes, hasher).map(Self::Spark);
        }
        if parquet_hashed(bytes) {
            return AtomicBloom::from_bytes_with_hasher(bytes, ParquetHasher).map(Self::Parquet);
        }
        Ok(match FilterKind::of_header(bytes)? {
            FilterKind::Bloom => SavedFilter::Bloom(AtomicBloom::from_bytes(bytes)?),
            FilterKind::Counting => SavedFilter::Counting(AtomicCountingBloom::from_bytes(bytes)?),
            FilterKind::Growable => SavedFilter::Growable(AtomicGrowableBloom::from_bytes(bytes)?),
            FilterKind::Windowed => {
                SavedFilter::Windowed(Box::new(AtomicWindowedBloom::from_bytes(bytes)?))
            }
        })
    }

    /// Reads the one filter a stream holds, of the kind its header names.
    /// The header is read once: the kind's reader continues from it.
    pub fn read_from(mut input: impl Read) -> Result<Self, ReadError> {
        let start = read_start(&mut input)?;
        if spark_format(&start) {
            return AtomicBloom::read_spark(start.as_slice().chain(input)).map(Self::Spark);
        }
        let kind = FilterKind::of_header(&start)?;
        let parquet = parquet_hashed(&start);
        let spark = spark_hashed(&start);
        let input = start.as_slice().chain(input);
        if let Some(hasher) = spark {
            return AtomicBloom::read_from_with_hasher(input, hasher).map(Self::Spark);
        }
        if parquet {
            return AtomicBloom::read_from_with_hasher(input, ParquetHasher).map(Self::Parquet);
        }
        Ok(match kind {
            FilterKind::Bloom => SavedFilter::Bloom(AtomicBloom::read_from(input)?),
            FilterKind::Counting => SavedFilter::Counting(AtomicCountingBloom::read_from(input)?),
            FilterKind::Growable => SavedFilter::Growable(AtomicGrowableBloom::read_from(input)?),
            FilterKind::Windowed => {
                SavedFilter::Windowed(Box::new(AtomicWindowedBloom::read_from(input)?))
            }
        })
    }

    /// Loads the filter file at `path`, of the kind its header names. A
    /// regular file is loaded by its kind's `load`, which reads the body
    /// straight into the filter; anything else (a FIFO, `/dev/stdin` on a
    /// pipe) can be read only once, and is read as a stream
    /// ([`read_from`](Self::read_from)).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        Self::load_file(path).map_err(|e| e.in_file(path))
    }

    /// [`load`](Self::load), its I/O errors not yet naming the file.
    fn load_file(path: &Path) -> Result<Self, ReadError> {
        let mut file = File::open(path)?;
        if !file.metadata()?.is_file() {
            return Self::read_from(file);
        }
        let start = read_start(&mut file)?;
        if spark_format(&start) {
            return AtomicBloom::read_spark(start.as_slice().chain(file)).map(Self::Spark);
        }
        let kind = FilterKind::of_header(&start)?;
        if let Some(hasher) = spark_hashed(&start) {
            return AtomicBloom::load_with_hasher(path, hasher).map(Self::Spark);
        }
        if parquet_hashed(&start) {
            return AtomicBloom::load_with_hasher(path, ParquetHasher).map(Self::Parquet);
        }
        Ok(match kind {
            FilterKind::Bloom => SavedFilter::Bloom(AtomicBloom::load(path)?),
            FilterKind::Counting => SavedFilter::Counting(AtomicCountingBloom::load(path)?),
            FilterKind::Growable => SavedFilter::Growable(AtomicGrowableBloom::load(path)?),
            FilterKind::Windowed => {
                SavedFilter::Windowed(Box::new(AtomicWindowedBloom::load(path)?))
            }
        })
    }

    /// The kind of filter this is.
    pub fn kind(&self) -> FilterKind {
        match self {
            SavedFilter::Bloom(_) => FilterKind::Bloom,
            SavedFilter::Counting(_) => FilterKind::Counting,
            SavedFilter::Growable(_) => FilterKind::Growable,
            SavedFilter::Windowed(_) => FilterKind::Windowed,
            SavedFilter::Parquet(_) | SavedFilter::Spark(_) => FilterKind::Bloom,
        }
    }

    /// Writes the filter in its kind's format, as its `write_to` does.
    pub fn write_to(&self, output: impl Write) -> std::io::Result<()> {
        match self {
            SavedFilter::Bloom(filter) => filter.write_to(output),
            SavedFilter::Counting(filter) => filter.write_to(output),
            SavedFilter::Growable(filter) => filter.write_to(output),
            SavedFilter::Windowed(filter) => filter.write_to(output),
            SavedFilter::Parquet(filter) => filter.write_to(output),
            SavedFilter::Spark(filter) => filter.write_to(output),
        }
    }
}

/// Whether a header (or the start of one) records [`ParquetHasher`]: its
/// hasher id, byte 11, is Parquet's. The kind's reader checks the rest.
pub(crate) fn parquet_hashed(start: &[u8]) -> bool {
    start.get(11) == Some(&HASHER_PARQUET)
}

/// The first bytes of `input`: a header's worth, or all of a shorter input.
pub(crate) fn read_start(input: &mut impl Read) -> Result<Vec<u8>, ReadError> {
    let mut start = Vec::with_capacity(V3_HEADER_LEN);
    input.take(V3_HEADER_LEN as u64).read_to_end(&mut start)?;
    Ok(start)
}

/// The [`SparkHasher`] a header of this crate's format records, if it
/// records Spark's (its id, byte 11; its seed, bytes 24 to 27).
pub(crate) fn spark_hashed(start: &[u8]) -> Option<SparkHasher> {
    if start.get(11) != Some(&HASHER_SPARK) {
        return None;
    }
    let seed = start.get(24..28)?;
    Some(SparkHasher::with_seed(i32::from_le_bytes(
        seed.try_into().ok()?,
    )))
}

/// `$call` on the filter inside `$saved`, whichever kind it is: the one
/// place that matches the kinds for [`Membership`].
macro_rules! on_kind {
    ($saved:expr, $filter:ident => $call:expr) => {
        match $saved {
            SavedFilter::Bloom($filter) => $call,
            SavedFilter::Counting($filter) => $call,
            SavedFilter::Growable($filter) => $call,
            SavedFilter::Windowed($filter) => {
                let $filter = &**$filter;
                $call
            }
            SavedFilter::Parquet($filter) => $call,
            SavedFilter::Spark($filter) => $call,
        }
    };
}

impl crate::membership::sealed::Sealed for SavedFilter {}

/// Every call goes to the filter the file held, as its kind's own
/// implementation answers it.
impl Membership for SavedFilter {
    // The choice is of the hasher, not of the kind: every kind but
    // Parquet's hashes with wyhash, so a caller's per-key loop (DataFusion's
    // `bloom_contains`) holds one copy of the hashing code, not one per arm.
    #[inline]
    fn hash<K: Key + ?Sized>(&self, key: &K) -> u64 {
        let hasher = match self {
            SavedFilter::Bloom(f) => f.hasher(),
            SavedFilter::Counting(f) => f.hasher(),
            SavedFilter::Growable(f) => f.hasher(),
            SavedFilter::Windowed(f) => f.hasher(),
            SavedFilter::Parquet(f) => return f.hash(key),
            SavedFilter::Spark(f) => return f.hash(key),
        };
        key.hash_with(hasher)
    }

    fn try_insert_hash(&self, hash: u64) -> Result<bool, GrowthError> {
        on_kind!(self, f => f.try_insert_hash(hash))
    }

    fn contains_hash(&self, hash: u64) -> bool {
        on_kind!(self, f => Membership::contains_hash(f, hash))
    }

    fn try_insert_hash_batch(&self, hashes: &[u64]) -> Result<usize, GrowthError> {
        on_kind!(self, f => f.try_insert_hash_batch(hashes))
    }

    fn contains_hash_batch(&self, hashes: &[u64]) -> Vec<bool> {
        on_kind!(self, f => Membership::contains_hash_batch(f, hashes))
    }

    fn estimated_len(&self) -> Option<u64> {
        on_kind!(self, f => Membership::estimated_len(f))
    }

    fn estimated_false_positive_rate(&self) -> f64 {
        on_kind!(self, f => Membership::estimated_false_positive_rate(f))
    }

    fn is_empty(&self) -> bool {
        on_kind!(self, f => Membership::is_empty(f))
    }

    fn memory_bytes(&self) -> u64 {
        on_kind!(self, f => Membership::memory_bytes(f))
    }
}
