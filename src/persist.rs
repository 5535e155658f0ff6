//! # Persistence: readers and writers of the file format
//!
//! The format, byte by byte, and the order in which readers check it, are
//! the [`format`](crate::docs::format) chapter. Here: the header and its
//! frame, the three readers (bytes, stream, file) sharing one decoder, the
//! writer, and [`atomic_write`], the atomic save under
//! [`AtomicBloom::save`].

use crate::bit_array::BitArray;
use crate::error::BuildError;
use crate::filter::AtomicBloom;
use crate::hasher::WyBuildHasher;
use crate::layout::Layout;
use crate::sizing::Sizing;
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
        "the header records a custom hasher with seed {0}; writers record 0 for custom hashers"
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
    /// The allocator refused the bit array.
    #[error("could not allocate the bit array: {0}")]
    AllocationFailed(BuildError),
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
}

impl std::fmt::Display for HasherId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HasherId::Default { seed } => write!(f, "the default hasher (wyhash, seed {seed})"),
            HasherId::Custom => f.write_str("a custom hasher"),
        }
    }
}

impl HasherId {
    /// The id and seed a header records for `hasher`.
    fn of<S: 'static>(hasher: &S) -> HasherId {
        match (hasher as &dyn Any).downcast_ref::<WyBuildHasher>() {
            Some(wyhash) => HasherId::Default {
                seed: wyhash.seed(),
            },
            None => HasherId::Custom,
        }
    }

    /// Decodes the header's hasher id and seed fields.
    fn decode(id: u8, seed: u64) -> Result<HasherId, ReadError> {
        match (id, seed) {
            (HASHER_WYHASH, seed) => Ok(HasherId::Default { seed }),
            (HASHER_CUSTOM, 0) => Ok(HasherId::Custom),
            (HASHER_CUSTOM, seed) => Err(ReadError::CustomHasherSeed(seed)),
            (id, _) => Err(ReadError::UnknownHasher(id)),
        }
    }

    fn encode(self) -> (u8, u64) {
        match self {
            HasherId::Default { seed } => (HASHER_WYHASH, seed),
            HasherId::Custom => (HASHER_CUSTOM, 0),
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
        HasherId::Default { .. } => "; read it with from_bytes, read_from or load",
    }
}

/// The fixed-size header, decoded and validated.
struct Header {
    sizing: Sizing,
    hasher: HasherId,
    fingerprint: u64,
}

/// What a reader checks before the checksum: the magic and version (is
/// this a filter at all), and the layout and `m`, which fix the input's
/// length and so where the checksum is. Everything else in the header is
/// interpreted only once the checksum has vouched for it.
struct Frame {
    layout: Layout,
    num_bits: u64,
}

impl Frame {
    fn of(bytes: &[u8; HEADER_LEN]) -> Result<Frame, ReadError> {
        if bytes[0..8] != MAGIC {
            return Err(ReadError::BadMagic);
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != FORMAT_VERSION {
            return Err(ReadError::UnsupportedVersion(version));
        }
        let layout = Layout::from_id(bytes[10]).ok_or(ReadError::UnknownLayout(bytes[10]))?;
        let num_bits = u64_at(bytes, 16);
        // Any valid k will do here: only m is checked.
        let sizing = Sizing::for_bits(layout, num_bits, 1).map_err(ReadError::InvalidParameters)?;
        if sizing.num_bits() != num_bits {
            // `for_bits` rounds up to whole words or blocks, as writers do:
            // a header that needed rounding is forged.
            return Err(ReadError::UnalignedBits {
                num_bits,
                layout,
                granule: layout.granule_bits(),
            });
        }
        Ok(Frame { layout, num_bits })
    }

    fn body_len(&self) -> u64 {
        self.num_bits / 8
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

    /// A zeroed bit array for the body.
    fn bit_array(&self) -> Result<BitArray, ReadError> {
        let words = usize::try_from(self.num_bits / 64).ok();
        words
            .and_then(BitArray::zeroed)
            .ok_or(ReadError::AllocationFailed(BuildError::AllocationFailed {
                bytes: self.body_len(),
            }))
    }
}

fn u64_at(bytes: &[u8; HEADER_LEN], at: usize) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(le)
}

impl Header {
    fn of<S: BuildHasher + 'static>(filter: &AtomicBloom<S>) -> Header {
        Header {
            sizing: filter.sizing(),
            hasher: HasherId::of(filter.hasher()),
            fingerprint: filter.fingerprint(),
        }
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        let (hasher_id, seed) = self.hasher.encode();
        out[10] = self.sizing.layout().id();
        out[11] = hasher_id;
        out[12..16].copy_from_slice(&self.sizing.num_hashes().to_le_bytes());
        out[16..24].copy_from_slice(&self.sizing.num_bits().to_le_bytes());
        out[24..32].copy_from_slice(&seed.to_le_bytes());
        out[32..40].copy_from_slice(&self.fingerprint.to_le_bytes());
        out
    }

    /// Interprets a header whose checksum has been verified (its frame
    /// already checked).
    fn decode(bytes: &[u8; HEADER_LEN], frame: &Frame) -> Result<Header, ReadError> {
        let num_hashes = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        let sizing = Sizing::for_bits(frame.layout, frame.num_bits, num_hashes)
            .map_err(ReadError::InvalidParameters)?;
        Ok(Header {
            sizing,
            hasher: HasherId::decode(bytes[11], u64_at(bytes, 24))?,
            fingerprint: u64_at(bytes, 32),
        })
    }

    /// The default hasher this header names, if it names one.
    fn wyhash(&self) -> Result<WyBuildHasher, ReadError> {
        match self.hasher {
            HasherId::Default { seed } => Ok(WyBuildHasher::with_seed(seed)),
            HasherId::Custom => Err(ReadError::HasherMismatch {
                written: HasherId::Custom,
                reading: HasherId::Default { seed: 0 },
            }),
        }
    }

    /// The filter of this header's parameters holding `bits`, hashing with
    /// `hasher`, after checking that `hasher` is the one the file records:
    /// the same id and seed (so that writing the filter back gives the same
    /// bytes) and the same fingerprint (so that keys map to the same bits).
    fn filter<S: BuildHasher + 'static>(
        &self,
        bits: BitArray,
        hasher: S,
    ) -> Result<AtomicBloom<S>, ReadError> {
        let reading = HasherId::of(&hasher);
        if reading != self.hasher {
            return Err(ReadError::HasherMismatch {
                written: self.hasher,
                reading,
            });
        }
        let filter = AtomicBloom::from_parts(bits, self.sizing, hasher);
        if filter.fingerprint() != self.fingerprint {
            return Err(ReadError::FingerprintMismatch {
                written: self.fingerprint,
                reading: filter.fingerprint(),
            });
        }
        Ok(filter)
    }
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
fn read_header(input: impl Read) -> Result<([u8; HEADER_LEN], Frame), ReadError> {
    let mut bytes = [0u8; HEADER_LEN];
    let got = read_full(input, &mut bytes)?;
    if got < HEADER_LEN {
        return Err(short_header(&bytes[..got]));
    }
    Ok((bytes, Frame::of(&bytes)?))
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

/// Decodes a whole file held in memory: frame, length, checksum, and only
/// then the header's meaning; `hasher` picks the hasher from it.
fn decode<S: BuildHasher + 'static>(
    bytes: &[u8],
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let header_bytes: &[u8; HEADER_LEN] = bytes.first_chunk().ok_or_else(|| short_header(bytes))?;
    let frame = Frame::of(header_bytes)?;
    frame.check_len(bytes.len() as u64)?;
    let (covered, stored) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    check_sum(stored, xxh3_64(covered))?;
    let header = Header::decode(header_bytes, &frame)?;
    let mut bits = frame.bit_array()?;
    bits.fill_le(0, &covered[HEADER_LEN..]);
    header.filter(bits, hasher(&header)?)
}

/// Reads a whole file from a stream into memory, growing the buffer only as
/// bytes arrive (never by what the header claims, and never past what the
/// allocator grants), then decodes it.
fn read_stream<S: BuildHasher + 'static>(
    mut input: impl Read,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let (header_bytes, frame) = read_header(&mut input)?;
    let expected = frame.file_len();
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
        bytes.try_reserve(n).map_err(|_| {
            ReadError::AllocationFailed(BuildError::AllocationFailed {
                bytes: (bytes.len() + n) as u64,
            })
        })?;
        bytes.extend_from_slice(&chunk[..n]);
        remaining -= n as u64;
        if n < want {
            break;
        }
    }
    decode(&bytes, hasher)
}

/// Loads a file: its length is checked against the frame before the bit
/// array is allocated, then the body streams straight into the array, and
/// the header is interpreted once the checksum over it all has matched.
fn load_file<S: BuildHasher + 'static>(
    path: &Path,
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<AtomicBloom<S>, ReadError> {
    let mut file = File::open(path)?;
    let actual = file.metadata()?.len();
    let (header_bytes, frame) = read_header(&mut file)?;
    frame.check_len(actual)?;
    let expected = frame.file_len();
    let mut bits = frame.bit_array()?;
    let mut digest = Xxh3::new();
    digest.update(&header_bytes);
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
        bits.fill_le(word, &chunk[..n]);
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
    header.filter(bits, hasher(&header)?)
}

/// Writes what `write` writes to `path`, the primitive under
/// [`AtomicBloom::save`]. A regular file (or a new one) is replaced so that
/// a crash or an error at any point leaves either the old file or the
/// complete new one, never a torn one; a device or FIFO, which cannot be
/// replaced, is written as a stream. Public so that a caller can wrap the
/// writer (to report progress, or to stop on a signal: an error from
/// `write` removes the temporary file and leaves `path` as it was).
///
/// What `path` names decides how it is written:
/// - nothing, or a regular file: `write` fills a temporary file in the same
///   directory, which is flushed, `fsync`ed, given the replaced file's
///   permissions (`0644` for a new file, on Unix), renamed over `path`, and
///   the directory `fsync`ed;
/// - a symbolic link: the link is followed to its final target (which may
///   not exist yet), and that is written as above, beside the target; the
///   link stays;
/// - a device, FIFO or socket (`/dev/stdout`, a named pipe): written in
///   place as a stream, since it cannot be replaced; a write error (such as
///   `/dev/full`'s) is returned;
/// - a directory: an error of kind [`io::ErrorKind::IsADirectory`].
///
/// ```
/// use std::io::Write;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("data");
/// atomic_bloom::atomic_write(&path, |out| out.write_all(b"hello"))?;
/// assert_eq!(std::fs::read(&path)?, b"hello");
/// // A failed write leaves the old file and no temporary file.
/// let failed = atomic_bloom::atomic_write(&path, |out| {
///     out.write_all(b"half")?;
///     Err(std::io::Error::other("stopped"))
/// });
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read(&path)?, b"hello");
/// assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn atomic_write(
    path: impl AsRef<Path>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let path = path.as_ref();
    // What the path names once the kernel has followed every link (the
    // magic links of `/proc` included, which cannot be followed by hand).
    let existing = match std::fs::metadata(path) {
        Ok(metadata) => Some(metadata),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(metadata) = &existing {
        if metadata.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("{} is a directory", path.display()),
            ));
        }
        if !metadata.is_file() {
            let device = std::fs::OpenOptions::new().write(true).open(path)?;
            let mut out = BufWriter::with_capacity(CHUNK, device);
            write(&mut out)?;
            return out.flush();
        }
    }
    // A regular file or nothing: replaced or created where the links lead.
    let path = follow_links(path)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    let mut out = BufWriter::with_capacity(CHUNK, temp.as_file_mut());
    write(&mut out)?;
    out.flush()?;
    drop(out);
    // A temporary file is created readable by its owner only; give the
    // result the permissions of the file it replaces, or the usual ones of
    // a data file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions =
            existing.map_or(std::fs::Permissions::from_mode(0o644), |m| m.permissions());
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&path).map_err(|e| e.error)?;
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    Ok(())
}

/// `path` with symbolic links in its last component followed to the final
/// target, which need not exist (up to 40 links, as Linux allows).
fn follow_links(path: &Path) -> io::Result<std::path::PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: too many levels of symbolic links", path.display()),
    ))
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

    /// The filter in the format above, as bytes; an error only if the
    /// allocator refuses the buffer.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, MAGIC};
    /// let bytes = AtomicBloom::with_bits(1024, 3)?.to_bytes()?;
    /// assert_eq!(bytes.len(), 40 + 128 + 8);
    /// assert_eq!(bytes[..8], MAGIC);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
        let len = HEADER_LEN + self.bit_array().num_words() * 8 + CHECKSUM_LEN;
        let mut out = Vec::new();
        out.try_reserve_exact(len)
            .map_err(|_| BuildError::AllocationFailed { bytes: len as u64 })?;
        if let Err(e) = self.write_to(&mut out) {
            unreachable!("writing to a Vec with room cannot fail: {e}");
        }
        Ok(out)
    }

    /// Saves to `path` with [`atomic_write`]: a crash at any point leaves
    /// either the old file or the new one under `path`, never a torn one. A
    /// symbolic link at `path` is followed (its target is replaced, the link
    /// kept); a device or FIFO is written to as a stream; a directory is an
    /// error.
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
        atomic_write(path, |out| self.write_to(out))
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
    /// let bytes = f.to_bytes()?;
    /// assert!(AtomicBloom::from_bytes_with_hasher(&bytes, hasher)?.contains("k"));
    /// // Not readable as a default-hasher filter.
    /// assert!(matches!(AtomicBloom::from_bytes(&bytes), Err(ReadError::HasherMismatch { .. })));
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
    /// let back = AtomicBloom::read_from_with_hasher(f.to_bytes()?.as_slice(), hasher)?;
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
    /// everything before allocating; see [`docs::format`](crate::docs::format).
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let f = AtomicBloom::builder().capacity(100, 0.01).seed(7).build()?;
    /// f.insert(&1u64);
    /// let back = AtomicBloom::from_bytes(&f.to_bytes()?)?;
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

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<S: BuildHasher + 'static> Serialize for AtomicBloom<S> {
        fn serialize<T: Serializer>(&self, serializer: T) -> Result<T::Ok, T::Error> {
            let bytes = self.to_bytes().map_err(serde::ser::Error::custom)?;
            serializer.serialize_bytes(&bytes)
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

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for AtomicBloom {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor)
        }
    }
}
