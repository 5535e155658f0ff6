//! # Persistence: a versioned file format that never trusts its input
//!
//! A batch loader builds a filter in one process and serves it from
//! another, on another machine, years later. The format is fixed-size
//! header, the bit array as little-endian words, and a checksum:
//!
//! | offset | bytes | field | value |
//! |---|---|---|---|
//! | 0  | 8 | magic | `89 41 42 4C 4F 4F 4D 0A` (`\x89ABLOOM\n`: the high byte catches 7-bit channels, the `\n` newline mangling) |
//! | 8  | 2 | format version | `1`, u16 LE |
//! | 10 | 1 | layout id | `0` Standard, `1` Blocked, `2` Word |
//! | 11 | 1 | hasher id | `0` custom, `1` [`WyBuildHasher`] (wyhash v1, integers as little-endian bytes) |
//! | 12 | 4 | `k` | u32 LE, `1..=MAX_HASHES` |
//! | 16 | 8 | `m` | u64 LE, bits: `1..=MAX_BITS`, a multiple of 64 (512 for Blocked) |
//! | 24 | 8 | seed | u64 LE: the `WyBuildHasher` seed; 0 for custom hashers |
//! | 32 | 8 | hasher fingerprint | u64 LE: the hasher's hash of a fixed string, to tell hashers apart |
//! | 40 | `m / 8` | bits | word `i` (bits `64i..64i+63`) as u64 LE |
//! | 40 + `m / 8` | 8 | checksum | xxh3-64 of everything before it, u64 LE |
//!
//! Ids are append-only: a new layout or hasher gets a new number, and a
//! reader rejects numbers it does not know. A change to the meaning of any
//! field, or to how keys map to bits, bumps the format version; the golden
//! files in `tests/golden/` fail CI if that happens by accident.
//!
//! ## Validation before allocation
//!
//! A reader decodes and checks the header (magic, version, ids, `k` and `m`
//! ranges), then checks that the input holds exactly the bytes `m` implies,
//! and only then allocates. A forged `m` therefore costs nothing: from a
//! byte slice or a file the reader never allocates more than the input's
//! length (plus alignment padding); from a generic [`Read`] it first
//! buffers what the stream actually supplies, growing as bytes arrive (at
//! most twice what was sent), then builds the filter from the buffer.
//! `tests/hostile_input.rs` caps the process's allocations to prove both
//! bounds on a million mutated and forged inputs. The checksum is verified before the filter is
//! built from a slice or stream, and before a file's load returns.
//! Each failure is its own [`ReadError`].
//!
//! ## What must stay the same for a file to mean anything
//!
//! The file holds bits, not keys: a key is found only if it hashes to the
//! same bits as when it was inserted. Keep the hasher and its seed (both are
//! recorded and checked: a filter written with a custom hasher will not read
//! back as a `WyBuildHasher` one, nor with a different custom hasher), and
//! keep the key encoding: `42u32`, `42u64` and `"42"` are different keys.
//! The default hasher hashes integers as little-endian bytes and `usize` as
//! 64-bit, so the same keys give the same bits on every platform.
//!
//! ## Writing while others insert
//!
//! `write_to`, `to_bytes` and `save` read each word once, as a snapshot
//! does (Memory ordering, G9): the file holds every key inserted before the
//! write began, and a key inserted meanwhile whole, in part or not at all.
//! The checksum covers the bytes actually written, so the file is valid.

use crate::filter::FINGERPRINT_KEY;
use crate::{AtomicBloom, BuildError, Layout, Sizing, WyBuildHasher};
use std::any::Any;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use thiserror::Error;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The first eight bytes of every filter file.
pub const MAGIC: [u8; 8] = *b"\x89ABLOOM\n";
/// The format version this crate writes and reads.
pub const FORMAT_VERSION: u16 = 1;

const HEADER_LEN: usize = 40;
const CHECKSUM_LEN: usize = 8;
/// Bytes read at a time when streaming a body.
const CHUNK: usize = 1 << 20;

const HASHER_CUSTOM: u8 = 0;
const HASHER_WYHASH: u8 = 1;

/// Why a filter could not be read.
///
/// ```
/// use atomic_bloom::{AtomicBloom, ReadError};
///
/// let mut bytes = AtomicBloom::new(100, 0.01)?.to_bytes();
/// bytes.truncate(50);
/// assert!(matches!(AtomicBloom::from_bytes(&bytes), Err(ReadError::Truncated { .. })));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the input failed.
    #[error("reading the filter failed: {0}")]
    Io(#[from] io::Error),
    /// The input does not start with [`MAGIC`]: it is not a filter file.
    #[error("not an atomic-bloom filter (bad magic bytes)")]
    BadMagic,
    /// Written by a newer (or unknown) format version.
    #[error("unsupported format version {0}; this build reads version {FORMAT_VERSION}")]
    UnsupportedVersion(u16),
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
    /// The file was written with another hasher or seed than the one it is
    /// being read with.
    #[error(
        "the filter was written with a different hasher or seed; read it with the same hasher ({0})"
    )]
    HasherMismatch(&'static str),
    /// The allocator refused the bit array.
    #[error("could not allocate the bit array: {0}")]
    AllocationFailed(BuildError),
}

/// The fixed-size header, decoded and validated.
struct Header {
    sizing: Sizing,
    hasher_id: u8,
    seed: u64,
    fingerprint: u64,
}

impl Header {
    fn of<S: BuildHasher + 'static>(filter: &AtomicBloom<S>) -> Header {
        let wyhash = (filter.hasher() as &dyn Any).downcast_ref::<WyBuildHasher>();
        Header {
            sizing: filter.sizing(),
            hasher_id: wyhash.map_or(HASHER_CUSTOM, |_| HASHER_WYHASH),
            seed: wyhash.map_or(0, WyBuildHasher::seed),
            fingerprint: filter.fingerprint(),
        }
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        out[10] = layout_id(self.sizing.layout());
        out[11] = self.hasher_id;
        out[12..16].copy_from_slice(&self.sizing.num_hashes().to_le_bytes());
        out[16..24].copy_from_slice(&self.sizing.num_bits().to_le_bytes());
        out[24..32].copy_from_slice(&self.seed.to_le_bytes());
        out[32..40].copy_from_slice(&self.fingerprint.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8; HEADER_LEN]) -> Result<Header, ReadError> {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        if bytes[0..8] != MAGIC {
            return Err(ReadError::BadMagic);
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != FORMAT_VERSION {
            return Err(ReadError::UnsupportedVersion(version));
        }
        let layout = layout_from_id(bytes[10]).ok_or(ReadError::UnknownLayout(bytes[10]))?;
        let hasher_id = bytes[11];
        if hasher_id != HASHER_CUSTOM && hasher_id != HASHER_WYHASH {
            return Err(ReadError::UnknownHasher(hasher_id));
        }
        let num_hashes = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        let num_bits = u64_at(16);
        let sizing =
            Sizing::for_bits(layout, num_bits, num_hashes).map_err(ReadError::InvalidParameters)?;
        if sizing.num_bits() != num_bits {
            // `for_bits` rounds up to whole words or blocks, as writers do:
            // a header that needed rounding is forged.
            return Err(ReadError::UnalignedBits {
                num_bits,
                layout,
                granule: layout.granule_bits(),
            });
        }
        Ok(Header {
            sizing,
            hasher_id,
            seed: u64_at(24),
            fingerprint: u64_at(32),
        })
    }

    fn body_len(&self) -> u64 {
        self.sizing.num_bits() / 8
    }

    /// Bytes of the whole file (at most 2^40 + 48: no overflow).
    fn file_len(&self) -> u64 {
        HEADER_LEN as u64 + self.body_len() + CHECKSUM_LEN as u64
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

    /// The default hasher this header names, if it names one.
    fn wyhash(&self) -> Result<WyBuildHasher, ReadError> {
        if self.hasher_id == HASHER_WYHASH {
            Ok(WyBuildHasher::with_seed(self.seed))
        } else {
            Err(ReadError::HasherMismatch(
                "it was written with a custom hasher: use the *_with_hasher functions",
            ))
        }
    }

    /// An empty filter with this header's parameters and `hasher`, after
    /// checking that `hasher` is the one the file was written with.
    fn empty_filter<S: BuildHasher>(&self, hasher: S) -> Result<AtomicBloom<S>, ReadError> {
        if hasher.hash_one(FINGERPRINT_KEY) != self.fingerprint {
            return Err(ReadError::HasherMismatch("its fingerprint differs"));
        }
        AtomicBloom::with_sizing(self.sizing, hasher).map_err(ReadError::AllocationFailed)
    }
}

fn layout_id(layout: Layout) -> u8 {
    match layout {
        Layout::Standard => 0,
        Layout::Blocked => 1,
        Layout::Word => 2,
    }
}

fn layout_from_id(id: u8) -> Option<Layout> {
    Some(match id {
        0 => Layout::Standard,
        1 => Layout::Blocked,
        2 => Layout::Word,
        _ => return None,
    })
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

/// Reads and validates the header at the start of `input`; returns its raw
/// bytes (for the checksum) with it.
fn read_header(input: impl Read) -> Result<([u8; HEADER_LEN], Header), ReadError> {
    let mut bytes = [0u8; HEADER_LEN];
    let got = read_full(input, &mut bytes)?;
    if got < HEADER_LEN {
        return Err(short_header(&bytes[..got]));
    }
    Ok((bytes, Header::decode(&bytes)?))
}

/// The error for an input that ended inside the header: not a filter at
/// all if what there is does not start like [`MAGIC`], else truncated.
fn short_header(prefix: &[u8]) -> ReadError {
    if prefix.iter().zip(&MAGIC).any(|(a, b)| a != b) {
        ReadError::BadMagic
    } else {
        ReadError::Truncated {
            expected: HEADER_LEN as u64,
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

/// Decodes a whole file held in memory; `hasher` picks the hasher from the
/// validated header.
fn decode<S: BuildHasher>(
    bytes: &[u8],
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let header_bytes: &[u8; HEADER_LEN] = bytes.first_chunk().ok_or_else(|| short_header(bytes))?;
    let header = Header::decode(header_bytes)?;
    header.check_len(bytes.len() as u64)?;
    let (covered, stored) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    check_sum(stored, xxh3_64(covered))?;
    let mut filter = header.empty_filter(hasher(&header)?)?;
    filter.bit_array_mut().fill_le(0, &covered[HEADER_LEN..]);
    Ok(filter)
}

/// Reads a whole file from a stream into memory, growing the buffer only as
/// bytes arrive (never by what the header claims), then decodes it.
fn read_stream<S: BuildHasher>(
    mut input: impl Read,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let (header_bytes, header) = read_header(&mut input)?;
    let expected = header.file_len();
    let mut bytes = header_bytes.to_vec();
    // A stack buffer: nothing is allocated until bytes actually arrive.
    let mut chunk = [0u8; 8192];
    // One byte past the end tells trailing garbage from a clean end.
    let mut remaining = expected + 1 - HEADER_LEN as u64;
    while remaining > 0 {
        let want = chunk
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        let n = read_full(&mut input, &mut chunk[..want])?;
        bytes.extend_from_slice(&chunk[..n]);
        remaining -= n as u64;
        if n < want {
            break;
        }
    }
    decode(&bytes, hasher)
}

/// Loads a file: its length is checked against the header before the bit
/// array is allocated, then the body streams straight into the array.
fn load_file<S: BuildHasher>(
    path: &Path,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let mut file = File::open(path)?;
    let actual = file.metadata()?.len();
    let (header_bytes, header) = read_header(&mut file)?;
    header.check_len(actual)?;
    let expected = header.file_len();
    let mut filter = header.empty_filter(hasher(&header)?)?;
    let mut digest = Xxh3::new();
    digest.update(&header_bytes);
    let mut chunk = vec![0u8; CHUNK.min(header.body_len() as usize)];
    let mut word = 0;
    let mut remaining = header.body_len();
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
        filter.bit_array_mut().fill_le(word, &chunk[..n]);
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
    Ok(filter)
}

impl<S: BuildHasher + 'static> AtomicBloom<S> {
    /// Writes the filter in the format above. Other threads may insert
    /// meanwhile: the output holds every key inserted before the call began.
    /// Writes in 1 MiB pieces; wrap an unbuffered writer in a `BufWriter`
    /// only if it is slow with large writes.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let f = AtomicBloom::new(1000, 0.01)?;
    /// f.insert("saved");
    /// let mut out = Vec::new();
    /// f.write_to(&mut out)?;
    /// let back = AtomicBloom::read_from(out.as_slice())?;
    /// assert!(back.contains("saved"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to(&self, mut output: impl Write) -> io::Result<()> {
        let header = Header::of(self).encode();
        let mut digest = Xxh3::new();
        digest.update(&header);
        output.write_all(&header)?;
        let mut chunk = Vec::with_capacity(CHUNK.min(self.memory_bytes()));
        let mut flush = |chunk: &mut Vec<u8>| {
            digest.update(chunk);
            let written = output.write_all(chunk);
            chunk.clear();
            written
        };
        for word in self.words() {
            chunk.extend_from_slice(&word.to_le_bytes());
            if chunk.len() >= CHUNK {
                flush(&mut chunk)?;
            }
        }
        flush(&mut chunk)?;
        output.write_all(&digest.digest().to_le_bytes())
    }

    /// The filter in the format above, as bytes.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, MAGIC};
    /// let bytes = AtomicBloom::with_bits(1024, 3)?.to_bytes();
    /// assert_eq!(bytes.len(), 40 + 128 + 8);
    /// assert_eq!(bytes[..8], MAGIC);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Header::of(self).file_len() as usize);
        if let Err(e) = self.write_to(&mut out) {
            unreachable!("writing to a Vec cannot fail: {e}");
        }
        out
    }

    /// Saves to `path` atomically: writes a temporary file in the same
    /// directory, `fsync`s it, renames it over `path`, and `fsync`s the
    /// directory. On Unix the file gets mode `0644`. A crash at any point leaves either the old file or the new
    /// one under `path`, never a truncated one.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("seen.bloom");
    /// let f = AtomicBloom::new(1000, 0.01)?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// assert!(AtomicBloom::load(&path)?.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        let mut writer = BufWriter::with_capacity(CHUNK, temp.as_file_mut());
        self.write_to(&mut writer)?;
        writer.flush()?;
        drop(writer);
        // A temporary file is created readable by its owner only; give the
        // saved filter the usual permissions of a data file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))?;
        }
        temp.as_file().sync_all()?;
        temp.persist(path).map_err(|e| e.error)?;
        #[cfg(unix)]
        File::open(dir)?.sync_all()?;
        Ok(())
    }

    /// Reads a filter written with a custom hasher, which must be the same
    /// hasher (it is checked by fingerprint).
    ///
    /// ```
    /// use std::hash::BuildHasherDefault;
    /// use std::collections::hash_map::DefaultHasher;
    /// use atomic_bloom::{AtomicBloom, ReadError};
    ///
    /// let hasher = BuildHasherDefault::<DefaultHasher>::default();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build()?;
    /// f.insert("k");
    /// let bytes = f.to_bytes();
    /// assert!(AtomicBloom::from_bytes_with_hasher(&bytes, hasher)?.contains("k"));
    /// // Not readable as a default-hasher filter.
    /// assert!(matches!(AtomicBloom::from_bytes(&bytes), Err(ReadError::HasherMismatch(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, ReadError> {
        decode(bytes, |_| Ok(hasher))
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// stream.
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::AtomicBloom;
    /// let hasher = RandomState::new();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build()?;
    /// let back = AtomicBloom::read_from_with_hasher(f.to_bytes().as_slice(), hasher)?;
    /// assert_eq!(back.num_bits(), 4096);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from_with_hasher(input: impl Read, hasher: S) -> Result<Self, ReadError> {
        read_stream(input, |_| Ok(hasher))
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// file, by the fast path of [`load`](AtomicBloom::load).
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::AtomicBloom;
    /// let dir = tempfile::tempdir()?;
    /// let hasher = RandomState::new();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build()?;
    /// f.save(dir.path().join("f"))?;
    /// assert!(AtomicBloom::load_with_hasher(dir.path().join("f"), hasher).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_with_hasher(path: impl AsRef<Path>, hasher: S) -> Result<Self, ReadError> {
        load_file(path.as_ref(), |_| Ok(hasher))
    }
}

impl AtomicBloom {
    /// Reads a filter written with the default hasher from bytes. Validates
    /// everything before allocating; see the module docs.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let f = AtomicBloom::builder().capacity(100, 0.01).seed(7).build()?;
    /// f.insert(&1u64);
    /// let back = AtomicBloom::from_bytes(&f.to_bytes())?;
    /// assert_eq!(back, f);
    /// assert_eq!(back.hasher().seed(), 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        decode(bytes, Header::wyhash)
    }

    /// Reads a filter written with the default hasher from a stream that
    /// holds exactly one filter (bytes after it are an error). Buffers the
    /// input before building the filter; for files, [`load`](Self::load)
    /// needs half the memory.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, ReadError};
    /// assert!(matches!(AtomicBloom::read_from(&b"not a filter"[..]), Err(ReadError::BadMagic)));
    /// ```
    pub fn read_from(input: impl Read) -> Result<Self, ReadError> {
        read_stream(input, Header::wyhash)
    }

    /// Loads a filter file written with the default hasher: checks the
    /// header against the file's length, allocates the bit array once and
    /// reads the body straight into it, verifying the checksum as it goes.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, ReadError};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// let f = AtomicBloom::new(1000, 0.01)?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// assert_eq!(AtomicBloom::load(&path)?, f);
    /// assert!(matches!(AtomicBloom::load(dir.path().join("missing")), Err(ReadError::Io(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        load_file(path.as_ref(), Header::wyhash)
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! `serde` support: a filter serializes as one byte string holding the
    //! format above, and deserializes through the same validation.

    use super::AtomicBloom;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::{Deserialize, Serialize, Serializer};
    use std::hash::BuildHasher;

    impl<S: BuildHasher + 'static> Serialize for AtomicBloom<S> {
        fn serialize<T: Serializer>(&self, serializer: T) -> Result<T::Ok, T::Error> {
            serializer.serialize_bytes(&self.to_bytes())
        }
    }

    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = AtomicBloom;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an atomic-bloom filter as bytes")
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<AtomicBloom, E> {
            AtomicBloom::from_bytes(bytes).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AtomicBloom, A::Error> {
            // The length hint may be forged: grow with the elements that come.
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(byte) = seq.next_element()? {
                bytes.push(byte);
            }
            self.visit_bytes(&bytes)
        }
    }

    impl<'de> Deserialize<'de> for AtomicBloom {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor)
        }
    }
}
