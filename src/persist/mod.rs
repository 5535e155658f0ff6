//! # Persistence: readers and writers of the file format
//!
//! The format, byte by byte, and the order in which readers check it, are
//! the [`format`](crate::docs::format) chapter. Here: the header and its
//! frame, and the three readers (bytes, stream, file) and the writer, each
//! written once for every filter kind ([`Stored`]). The public methods
//! are in `filter.rs` (plain and counting filters, once for both) and
//! `growable.rs`; a file of
//! whichever kind its header names is read as a [`SavedFilter`]
//! (`saved_filter.rs`); `atomic_write`, the atomic save under every
//! `save`, is in `atomic_write.rs`.

mod atomic_write;
mod filter;
mod growable;
mod saved_filter;
mod window;

pub use atomic_write::atomic_write;
pub use saved_filter::SavedFilter;

use crate::core::filter::FINGERPRINT_KEY;
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::layout::{Layout, Placement};
use crate::parquet_hasher::ParquetHasher;
use crate::sizing::Sizing;
use crate::storage::bit_array::BitArray;
use std::any::Any;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The first eight bytes of every filter file.
pub const MAGIC: [u8; 8] = *b"\x89ABLOOM\n";
/// The newest format version this crate reads and writes. Each file is
/// written in the oldest version that can hold it ([`FilterKind::format_version`]):
/// a plain filter in version 1, which every release reads, a counting
/// filter in version 2, which adds the filter-kind byte.
pub const FORMAT_VERSION: u16 = 2;

/// Header bytes of version 1 (plain filters only).
const V1_HEADER_LEN: usize = 40;
/// Header bytes of version 2: version 1's, a filter-kind byte and seven
/// reserved zero bytes.
const V2_HEADER_LEN: usize = 48;
const CHECKSUM_LEN: usize = 8;
/// Bytes read or written at a time when streaming a body.
const CHUNK: usize = 1 << 20;

const HASHER_CUSTOM: u8 = 0;
const HASHER_WYHASH: u8 = 1;
pub(crate) const HASHER_PARQUET: u8 = 2;

/// Why a filter could not be read.
///
/// ```
/// use atomic_bloom::{AtomicBloom, ReadError};
///
/// let mut bytes = AtomicBloom::new(100, 0.01)?.to_bytes()?;
/// bytes.truncate(50);
/// assert!(matches!(AtomicBloom::from_bytes(&bytes), Err(ReadError::Truncated { .. })));
/// # Ok::<(), atomic_bloom::BuildError>(())
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
    /// The input does not start with [`MAGIC`]: it is not a filter file.
    #[error("not an atomic-bloom filter (bad magic bytes)")]
    BadMagic,
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
    /// A growable filter's chain does not hold together: no sub-filters,
    /// more than its maximum, or a sub-filter whose capacity is not the one
    /// its parameters give. No writer produces such a file.
    #[error("invalid growable filter: {0}")]
    InvalidChain(String),
    /// A windowed filter's state does not hold together: an unknown window
    /// kind, a generation older than the first that holds keys, a window
    /// of keys that records a time. No writer produces such a file.
    #[error("invalid windowed filter: {0}")]
    InvalidWindow(String),
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
    fn v2_id(self) -> Option<u8> {
        match self {
            FilterKind::Bloom => None,
            FilterKind::Counting => Some(1),
            FilterKind::Growable => Some(2),
            FilterKind::Windowed => Some(3),
        }
    }

    /// The kind a version 2 header's id names.
    fn from_v2_id(id: u8) -> Option<FilterKind> {
        match id {
            1 => Some(FilterKind::Counting),
            2 => Some(FilterKind::Growable),
            3 => Some(FilterKind::Windowed),
            _ => None,
        }
    }

    /// The kind of filter a file holds, from its first bytes (the first 48
    /// suffice; a shorter file gives what its bytes allow). A program that
    /// reads files of any kind reads them as a [`SavedFilter`], which asks
    /// this and then reads the rest of the same stream. Only
    /// the magic, the version and the kind byte are checked: whether the
    /// rest of the file is intact, the kind's reader says.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom, FilterKind, ReadError};
    /// let plain = AtomicBloom::new(100, 0.01)?.to_bytes()?;
    /// let counting = AtomicCountingBloom::new(100, 0.01)?.to_bytes()?;
    /// assert_eq!(FilterKind::of_header(&plain)?, FilterKind::Bloom);
    /// assert_eq!(FilterKind::of_header(&counting[..48])?, FilterKind::Counting);
    /// assert!(matches!(FilterKind::of_header(b"text"), Err(ReadError::BadMagic)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of_header(start: &[u8]) -> Result<FilterKind, ReadError> {
        let first = start.first_chunk().ok_or_else(|| short_header(start, 0))?;
        match Frame::header_len(first)? {
            V1_HEADER_LEN => Ok(FilterKind::Bloom),
            header_len => {
                let id = *start
                    .get(V1_HEADER_LEN)
                    .ok_or_else(|| short_header(start, header_len))?;
                FilterKind::from_v2_id(id).ok_or(ReadError::UnknownKind(id))
            }
        }
    }

    /// Bits of the body per cell (per bit of `m`); `None` for a kind whose
    /// body is not one array (a growable filter's chain).
    fn cell_bits(self) -> Option<u64> {
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

    fn type_name(self) -> &'static str {
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
}

impl std::fmt::Display for HasherId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HasherId::Default { seed } => write!(f, "the default hasher (wyhash, seed {seed})"),
            HasherId::Custom => f.write_str("a custom hasher"),
            HasherId::Parquet => f.write_str("Parquet's hasher (XXH64 of the plain encoding)"),
        }
    }
}

impl HasherId {
    /// The id and seed a header records for `hasher`: the default hasher's
    /// seed, or `Custom`. Told by type through `Any` rather than by a trait
    /// the hasher implements: without specialization, a trait would make
    /// every caller's hasher implement it before its filter could be saved,
    /// where any `BuildHasher + 'static` is saveable now.
    fn of<S: 'static>(hasher: &S) -> HasherId {
        let hasher = hasher as &dyn Any;
        if let Some(wyhash) = hasher.downcast_ref::<WyBuildHasher>() {
            HasherId::Default {
                seed: wyhash.seed(),
            }
        } else if hasher.is::<ParquetHasher>() {
            HasherId::Parquet
        } else {
            HasherId::Custom
        }
    }

    /// Decodes the header's hasher id and seed fields.
    fn decode(id: u8, seed: u64) -> Result<HasherId, ReadError> {
        match (id, seed) {
            (HASHER_WYHASH, seed) => Ok(HasherId::Default { seed }),
            (HASHER_CUSTOM, 0) => Ok(HasherId::Custom),
            (HASHER_CUSTOM, seed) => Err(ReadError::CustomHasherSeed(seed)),
            (HASHER_PARQUET, 0) => Ok(HasherId::Parquet),
            (HASHER_PARQUET, seed) => Err(ReadError::CustomHasherSeed(seed)),
            (id, _) => Err(ReadError::UnknownHasher(id)),
        }
    }

    /// The default hasher this id records, for the default readers; a
    /// custom hasher's file needs its `_with_hasher` reader.
    fn wyhash(self) -> Result<WyBuildHasher, ReadError> {
        match self {
            HasherId::Default { seed } => Ok(WyBuildHasher::with_seed(seed)),
            written @ (HasherId::Custom | HasherId::Parquet) => Err(ReadError::HasherMismatch {
                written,
                reading: HasherId::Default { seed: 0 },
            }),
        }
    }

    fn encode(self) -> (u8, u64) {
        match self {
            HasherId::Default { seed } => (HASHER_WYHASH, seed),
            HasherId::Custom => (HASHER_CUSTOM, 0),
            HasherId::Parquet => (HASHER_PARQUET, 0),
        }
    }
}

/// What to do when a file's hasher is not the reader's.
fn reread_hint(written: &HasherId) -> &'static str {
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
    }
}

/// The bytes of a header, as long as the longest version's; a version 1
/// header uses the first [`V1_HEADER_LEN`].
type HeaderBytes = [u8; V2_HEADER_LEN];

/// The fixed-size header, decoded and validated.
struct Header {
    kind: FilterKind,
    sizing: Sizing,
    hasher: HasherId,
    fingerprint: u64,
}

/// What a reader checks before the checksum: the magic and version (is
/// this a filter at all), and the kind, layout and `m`, which fix the
/// input's length and so where the checksum is. Everything else in the
/// header is interpreted only once the checksum has vouched for it.
struct Frame {
    header_len: usize,
    kind: FilterKind,
    /// Bits of the body per cell.
    cell_bits: u64,
    placement: Placement,
    num_bits: u64,
}

impl Frame {
    /// The header's length, from the magic and version at its start.
    fn header_len(start: &[u8; V1_HEADER_LEN]) -> Result<usize, ReadError> {
        if start[0..8] != MAGIC {
            return Err(ReadError::BadMagic);
        }
        match u16::from_le_bytes([start[8], start[9]]) {
            1 => Ok(V1_HEADER_LEN),
            2 => Ok(V2_HEADER_LEN),
            version => Err(ReadError::UnsupportedVersion(version)),
        }
    }

    /// The frame of a whole header (`header_len` bytes of `bytes`), for a
    /// reader of `reading`. A file of a kind whose body is not one array
    /// has no such frame: it is the wrong kind for this reader, which can
    /// say so before the checksum, since it could not find the checksum.
    fn of(bytes: &HeaderBytes, header_len: usize, reading: FilterKind) -> Result<Frame, ReadError> {
        let kind = if header_len == V1_HEADER_LEN {
            FilterKind::Bloom
        } else {
            FilterKind::from_v2_id(bytes[40]).ok_or(ReadError::UnknownKind(bytes[40]))?
        };
        let cell_bits = kind.cell_bits().ok_or(ReadError::WrongKind {
            written: kind,
            reading,
        })?;
        let placement = Placement::from_id(bytes[10]).ok_or(ReadError::UnknownLayout(bytes[10]))?;
        let num_bits = u64_at(bytes, 16);
        check_num_bits(placement, num_bits)?;
        Ok(Frame {
            header_len,
            kind,
            cell_bits,
            placement,
            num_bits,
        })
    }

    /// Bytes of the body: `m` cells of the kind's width (`m` is a multiple
    /// of 64 and at most 2^43, so a whole number of words, with no overflow).
    fn body_len(&self) -> u64 {
        self.num_bits * self.cell_bits / 8
    }

    /// Bytes of the whole file.
    fn file_len(&self) -> u64 {
        self.header_len as u64 + self.body_len() + CHECKSUM_LEN as u64
    }

    /// Whether an input of `actual` bytes holds exactly this filter.
    fn check_len(&self, actual: u64) -> Result<(), ReadError> {
        let expected = self.file_len();
        match actual.cmp(&expected) {
            std::cmp::Ordering::Less => Err(ReadError::Truncated { expected, actual }),
            std::cmp::Ordering::Greater => Err(ReadError::TrailingBytes { expected }),
            std::cmp::Ordering::Equal => Ok(()),
        }
    }

    /// Zeroed words for the body.
    fn words(&self) -> Result<BitArray, ReadError> {
        let words = usize::try_from(self.body_len() / 8).ok();
        words
            .and_then(BitArray::zeroed)
            .ok_or(ReadError::AllocationFailed(BuildError::AllocationFailed {
                bytes: self.body_len(),
            }))
    }
}

/// The first `len` bytes of a version-2 file of the `expected` kind (its
/// header and parameters) and its layout, checked as far as they go: a
/// version-1 file or another kind is [`ReadError::WrongKind`] for a
/// reader of `reading`.
fn v2_head(
    bytes: &[u8],
    len: usize,
    expected: FilterKind,
    reading: FilterKind,
) -> Result<(&[u8], Placement), ReadError> {
    let start = bytes.first_chunk().ok_or_else(|| short_header(bytes, 0))?;
    if Frame::header_len(start)? == V1_HEADER_LEN {
        return Err(ReadError::WrongKind {
            written: FilterKind::Bloom,
            reading,
        });
    }
    let head = bytes
        .get(..len)
        .ok_or_else(|| truncated(len as u64, bytes))?;
    let kind = FilterKind::from_v2_id(head[40]).ok_or(ReadError::UnknownKind(head[40]))?;
    if kind != expected {
        return Err(ReadError::WrongKind {
            written: kind,
            reading,
        });
    }
    let placement = Placement::from_id(head[10]).ok_or(ReadError::UnknownLayout(head[10]))?;
    Ok((head, placement))
}

/// Checks a recorded `m`: in range, and a whole number of the layout's
/// words or blocks.
fn check_num_bits(placement: Placement, num_bits: u64) -> Result<(), ReadError> {
    let layout = placement.layout();
    // Any valid k will do here: only m is checked.
    let any_k = layout.fixed_num_hashes().unwrap_or(1);
    let sizing = Sizing::for_bits(layout, num_bits, any_k).map_err(ReadError::InvalidParameters)?;
    if sizing.num_bits() != num_bits {
        // `for_bits` rounds up to whole words or blocks, as writers do: a
        // header that needed rounding is forged.
        return Err(ReadError::UnalignedBits {
            num_bits,
            layout,
            granule: layout.granule_bits(),
        });
    }
    Ok(())
}

fn u64_at(bytes: &HeaderBytes, at: usize) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(le)
}

impl Header {
    fn of<F: Stored<S>, S: BuildHasher + 'static>(filter: &F) -> Header {
        let hasher = filter.hasher();
        Header {
            kind: F::KIND,
            sizing: filter.sizing(),
            hasher: HasherId::of(hasher),
            fingerprint: hasher.hash_one(FINGERPRINT_KEY),
        }
    }

    /// The header's bytes: all of them in version 2, the first
    /// [`V1_HEADER_LEN`] in version 1.
    fn encode(&self) -> (HeaderBytes, usize) {
        let mut out = [0u8; V2_HEADER_LEN];
        let version = self.kind.format_version();
        out[0..8].copy_from_slice(&MAGIC);
        out[8..10].copy_from_slice(&version.to_le_bytes());
        let (hasher_id, seed) = self.hasher.encode();
        out[10] = self.sizing.placement().id();
        out[11] = hasher_id;
        out[12..16].copy_from_slice(&self.sizing.num_hashes().to_le_bytes());
        out[16..24].copy_from_slice(&self.sizing.num_bits().to_le_bytes());
        out[24..32].copy_from_slice(&seed.to_le_bytes());
        out[32..40].copy_from_slice(&self.fingerprint.to_le_bytes());
        match self.kind.v2_id() {
            None => (out, V1_HEADER_LEN),
            Some(id) => {
                out[40] = id;
                (out, V2_HEADER_LEN)
            }
        }
    }

    /// Interprets a header whose checksum has been verified (its frame
    /// already checked).
    fn decode(bytes: &HeaderBytes, frame: &Frame) -> Result<Header, ReadError> {
        if frame.header_len == V2_HEADER_LEN && bytes[41..].iter().any(|&b| b != 0) {
            return Err(ReadError::ReservedBytes);
        }
        let num_hashes = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        let sizing = Sizing::placed(frame.placement, frame.num_bits, num_hashes)
            .map_err(ReadError::InvalidParameters)?;
        Ok(Header {
            kind: frame.kind,
            sizing,
            hasher: HasherId::decode(bytes[11], u64_at(bytes, 24))?,
            fingerprint: u64_at(bytes, 32),
        })
    }

    /// The default hasher this header names, if it names one.
    fn wyhash(&self) -> Result<WyBuildHasher, ReadError> {
        self.hasher.wyhash()
    }

    /// The filter of type `F` with this header's parameters holding
    /// `words`, hashing with `hasher`, after checking that the file holds
    /// that kind of filter and that `hasher` is the one the file records:
    /// the same id and seed (so that writing the filter back gives the same
    /// bytes) and the same fingerprint (so that keys map to the same cells).
    fn filter<F: Stored<S>, S: BuildHasher + 'static>(
        &self,
        words: BitArray,
        hasher: S,
    ) -> Result<F, ReadError> {
        if self.kind != F::KIND {
            return Err(ReadError::WrongKind {
                written: self.kind,
                reading: F::KIND,
            });
        }
        check_hasher(self.hasher, self.fingerprint, &hasher)?;
        Ok(F::from_stored(words, self.sizing, hasher))
    }
}

/// Checks that `hasher` is the one a file records: the same id and seed
/// (so that writing the filter back gives the same bytes) and the same
/// fingerprint (so that keys map to the same cells).
fn check_hasher<S: BuildHasher + 'static>(
    written: HasherId,
    fingerprint: u64,
    hasher: &S,
) -> Result<(), ReadError> {
    let reading = HasherId::of(hasher);
    if reading != written {
        return Err(ReadError::HasherMismatch { written, reading });
    }
    let computed = hasher.hash_one(FINGERPRINT_KEY);
    if computed != fingerprint {
        return Err(ReadError::FingerprintMismatch {
            written: fingerprint,
            reading: computed,
        });
    }
    Ok(())
}

/// A filter kind the format stores: its kind id, its parameters, and its
/// words (the body, in order, as the file holds them).
pub(crate) trait Stored<S>: Sized {
    /// What the header records.
    const KIND: FilterKind;
    /// The filter of `sizing` and `hasher` holding `words`, the body of a
    /// verified file (as many words as the frame implies).
    fn from_stored(words: BitArray, sizing: Sizing, hasher: S) -> Self;
    /// The sizing the header records.
    fn sizing(&self) -> Sizing;
    /// The hasher the header records.
    fn hasher(&self) -> &S;
    /// The body's words, each read once.
    fn stored_words(&self) -> impl Iterator<Item = u64> + '_;
    /// How many words the body has.
    fn num_stored_words(&self) -> usize;
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(mut input: impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads the header at the start of `input` and checks its frame; returns
/// its raw bytes (for the checksum, and to decode once it is verified).
fn read_header(
    mut input: impl Read,
    reading: FilterKind,
) -> Result<(HeaderBytes, Frame), ReadError> {
    let mut bytes = [0u8; V2_HEADER_LEN];
    let got = read_full(&mut input, &mut bytes[..V1_HEADER_LEN])?;
    let start = bytes.first_chunk().filter(|_| got == V1_HEADER_LEN);
    let header_len = Frame::header_len(start.ok_or_else(|| short_header(&bytes[..got], 0))?)?;
    let got = got + read_full(&mut input, &mut bytes[V1_HEADER_LEN..header_len])?;
    if got < header_len {
        return Err(short_header(&bytes[..got], header_len));
    }
    Ok((bytes, Frame::of(&bytes, header_len, reading)?))
}

/// The error for an input that ended inside a header of `header_len`
/// bytes (0 if the version was not reached): not a filter at all if what
/// there is does not start like [`MAGIC`], else truncated.
fn short_header(prefix: &[u8], header_len: usize) -> ReadError {
    if prefix.iter().zip(&MAGIC).any(|(a, b)| a != b) {
        ReadError::BadMagic
    } else {
        ReadError::Truncated {
            expected: header_len.max(V1_HEADER_LEN) as u64,
            actual: prefix.len() as u64,
        }
    }
}

/// Compares the stored checksum (8 little-endian bytes) with the computed one.
fn check_sum(stored: &[u8], computed: u64) -> Result<(), ReadError> {
    let stored = u64::from_le_bytes(stored.try_into().unwrap_or([0; 8]));
    if stored == computed {
        Ok(())
    } else {
        Err(ReadError::ChecksumMismatch { stored, computed })
    }
}

/// Decodes a whole file held in memory: frame, length, checksum, and only
/// then the header's meaning; `hasher` picks the hasher from it.
fn decode<F: Stored<S>, S: BuildHasher + 'static>(
    bytes: &[u8],
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<F, ReadError> {
    let start = bytes.first_chunk().ok_or_else(|| short_header(bytes, 0))?;
    let header_len = Frame::header_len(start)?;
    let mut header_bytes = [0u8; V2_HEADER_LEN];
    let head = bytes
        .get(..header_len)
        .ok_or_else(|| short_header(bytes, header_len))?;
    header_bytes[..header_len].copy_from_slice(head);
    let frame = Frame::of(&header_bytes, header_len, F::KIND)?;
    frame.check_len(bytes.len() as u64)?;
    let (covered, stored) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    check_sum(stored, xxh3_64(covered))?;
    let header = Header::decode(&header_bytes, &frame)?;
    let mut words = frame.words()?;
    words.fill_le(0, &covered[header_len..]);
    header.filter(words, hasher(&header)?)
}

/// Reads a whole file from a stream into memory, growing the buffer only as
/// bytes arrive (never by what the header claims, and never past what the
/// allocator grants), then decodes it.
fn read_stream<F: Stored<S>, S: BuildHasher + 'static>(
    mut input: impl Read,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<F, ReadError> {
    let (header_bytes, frame) = read_header(&mut input, F::KIND)?;
    let expected = frame.file_len();
    let mut bytes = header_bytes[..frame.header_len].to_vec();
    // One byte past the end tells trailing garbage from a clean end.
    read_growing(input, &mut bytes, expected + 1 - frame.header_len as u64)?;
    decode(&bytes, hasher)
}

/// What a growable or windowed reader reads its whole input from: a stream,
/// or a regular file, whose length is known. From a file, the buffer is
/// reserved at the size each step reads (what the frame declares, never
/// more than the file has left) instead of grown by doubling as bytes
/// arrive, so it ends exactly as long as the bytes it holds.
pub(crate) struct Source<R> {
    input: R,
    /// Bytes a regular file has left; `None` for a stream.
    left: Option<u64>,
}

impl<R: Read> Source<R> {
    /// A stream, read as bytes arrive.
    pub(crate) fn stream(input: R) -> Source<R> {
        Source { input, left: None }
    }

    /// Appends to `bytes` what the input holds, up to `limit` bytes.
    pub(crate) fn append(&mut self, bytes: &mut Vec<u8>, limit: u64) -> Result<(), ReadError> {
        if let Some(left) = self.left {
            let exact = usize::try_from(limit.min(left)).unwrap_or(usize::MAX);
            bytes
                .try_reserve_exact(exact)
                .map_err(|_| ReadError::BufferAllocationFailed {
                    bytes: (bytes.len() as u64).saturating_add(exact as u64),
                })?;
        }
        let before = bytes.len();
        read_growing(&mut self.input, bytes, limit)?;
        if let Some(left) = &mut self.left {
            *left = left.saturating_sub((bytes.len() - before) as u64);
        }
        Ok(())
    }
}

impl Source<File> {
    /// The file at `path`: a regular file by its length, anything else (a
    /// FIFO, `/dev/stdin`) as a stream.
    pub(crate) fn file(path: &Path) -> Result<Source<File>, ReadError> {
        let input = File::open(path)?;
        let metadata = input.metadata()?;
        let left = metadata.is_file().then_some(metadata.len());
        Ok(Source { input, left })
    }
}

/// Appends to `bytes` what `input` holds, up to `limit` bytes, growing the
/// buffer only as bytes arrive (never by what a header claims, and as an
/// error, not an abort, if the allocator refuses).
fn read_growing(mut input: impl Read, bytes: &mut Vec<u8>, limit: u64) -> Result<(), ReadError> {
    // A stack buffer: nothing is allocated until bytes actually arrive.
    let mut chunk = [0u8; 8192];
    let mut remaining = limit;
    while remaining > 0 {
        let want = chunk
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        let n = read_full(&mut input, &mut chunk[..want])?;
        bytes
            .try_reserve(n)
            .map_err(|_| ReadError::BufferAllocationFailed {
                bytes: (bytes.len() + n) as u64,
            })?;
        bytes.extend_from_slice(&chunk[..n]);
        remaining -= n as u64;
        if n < want {
            break;
        }
    }
    Ok(())
}

/// Loads a file: its length is checked against the frame before the array
/// is allocated, then the body streams straight into the array, and the
/// header is interpreted once the checksum over it all has matched.
///
/// A path that is not a regular file (a FIFO, `/dev/stdin` on a pipe, a
/// process substitution) has no length to check and can be read only
/// once: it is read as a stream, as `save` writes one (`atomic_write`).
fn load_file<F: Stored<S>, S: BuildHasher + 'static>(
    path: &Path,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<F, ReadError> {
    let mut file = File::open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return read_stream(file, hasher);
    }
    let actual = metadata.len();
    let (header_bytes, frame) = read_header(&mut file, F::KIND)?;
    frame.check_len(actual)?;
    let expected = frame.file_len();
    let mut words = frame.words()?;
    let mut digest = Xxh3::new();
    digest.update(&header_bytes[..frame.header_len]);
    let mut chunk = vec![0u8; CHUNK.min(frame.body_len() as usize)];
    let mut word = 0;
    let mut remaining = frame.body_len();
    while remaining > 0 {
        let want = chunk.len().min(remaining as usize);
        let n = read_full(&mut file, &mut chunk[..want])?;
        if n < want {
            // The file shrank after we measured it.
            return Err(ReadError::Truncated {
                expected,
                actual: expected - remaining + n as u64,
            });
        }
        digest.update(&chunk[..n]);
        words.fill_le(word, &chunk[..n]);
        word += n / 8;
        remaining -= n as u64;
    }
    let mut trailer = [0u8; CHECKSUM_LEN + 1];
    match read_full(&mut file, &mut trailer)? {
        CHECKSUM_LEN => {}
        n if n < CHECKSUM_LEN => {
            return Err(ReadError::Truncated {
                expected,
                actual: expected - (CHECKSUM_LEN - n) as u64,
            });
        }
        _ => return Err(ReadError::TrailingBytes { expected }),
    }
    check_sum(&trailer[..CHECKSUM_LEN], digest.digest())?;
    let header = Header::decode(&header_bytes, &frame)?;
    header.filter(words, hasher(&header)?)
}

/// Writes `filter` in the format: header, words, checksum, in 1 MiB pieces.
/// Each word is read once, as a snapshot reads it.
fn write_stored<F: Stored<S>, S: BuildHasher + 'static>(
    filter: &F,
    output: impl Write,
) -> io::Result<()> {
    let (header, header_len) = Header::of(filter).encode();
    let mut out = Summed::new(output);
    out.put(&header[..header_len])?;
    out.put_words(filter.stored_words())?;
    out.finish()
}

/// An output of the format that sums what it is given into the trailing
/// checksum, the one writer of every kind.
struct Summed<W> {
    output: W,
    digest: Xxh3,
    /// Words as little-endian bytes, written `CHUNK` at a time.
    chunk: Vec<u8>,
}

impl<W: Write> Summed<W> {
    fn new(output: W) -> Self {
        Summed {
            output,
            digest: Xxh3::new(),
            chunk: Vec::new(),
        }
    }

    /// Writes `bytes` (a header or a record).
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.digest.update(bytes);
        self.output.write_all(bytes)
    }

    /// Writes `words` little-endian, in pieces of `CHUNK` bytes.
    fn put_words(&mut self, words: impl Iterator<Item = u64>) -> io::Result<()> {
        let mut chunk = std::mem::take(&mut self.chunk);
        chunk.reserve(CHUNK.min(words.size_hint().0.saturating_mul(8)));
        for word in words {
            chunk.extend_from_slice(&word.to_le_bytes());
            if chunk.len() >= CHUNK {
                self.put(&chunk)?;
                chunk.clear();
            }
        }
        self.put(&chunk)?;
        chunk.clear();
        self.chunk = chunk;
        Ok(())
    }

    /// Writes the checksum of all that came before.
    fn finish(mut self) -> io::Result<()> {
        let sum = self.digest.digest();
        self.output.write_all(&sum.to_le_bytes())
    }
}

/// `filter` in the format, as bytes; an error only if the allocator
/// refuses the buffer.
fn stored_bytes<F: Stored<S>, S: BuildHasher + 'static>(filter: &F) -> Result<Vec<u8>, BuildError> {
    let (_, header_len) = Header::of(filter).encode();
    let len = header_len + filter.num_stored_words() * 8 + CHECKSUM_LEN;
    written_bytes(len as u64, |out| write_stored(filter, out))
}

/// What `write` writes, as bytes, in a buffer of `len` bytes reserved
/// first (a hint: a growable chain may grow meanwhile); an error only if
/// the allocator refuses it.
fn written_bytes(
    len: u64,
    write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
) -> Result<Vec<u8>, BuildError> {
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| BuildError::AllocationFailed { bytes: len })?;
    if let Err(e) = write(&mut out) {
        unreachable!("writing to a Vec cannot fail: {e}");
    }
    Ok(out)
}

/// The little-endian `u64` of 8 bytes (0 if fewer: callers slice 8).
fn u64_le(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

/// The little-endian `u32` of 4 bytes (0 if fewer: callers slice 4).
fn u32_le(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().unwrap_or([0; 4]))
}

/// The little-endian `f64` of 8 bytes (0 if fewer: callers slice 8).
fn f64_le(bytes: &[u8]) -> f64 {
    f64::from_bits(u64_le(bytes))
}

/// An input of `bytes` that ends before the `expected` bytes its frame
/// declares.
fn truncated(expected: u64, bytes: &[u8]) -> ReadError {
    ReadError::Truncated {
        expected,
        actual: bytes.len() as u64,
    }
}
