//! The header and its frame, encoded and decoded in one place for every
//! kind and version: checked as far as the frame goes before the checksum,
//! interpreted only after it.

use super::bytes::{read_full, truncated};
use super::constants::{
    CHECKSUM_LEN, MAGIC, STATE_OPEN, STATE_SEALED, V1_HEADER_LEN, V2_HEADER_LEN, V3_HEADER_LEN,
    WRITER_STATE_AT,
};
use super::errors::{FilterKind, HasherId, ReadError};
use crate::core::filter::FINGERPRINT_KEY;
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::layout::Placement;
use crate::sizing::Sizing;
use crate::storage::bit_array::BitArray;
use std::hash::BuildHasher;
use std::io::Read;
use xxhash_rust::xxh3::xxh3_64;

impl FilterKind {
    /// The kind of filter a file holds, from its first bytes (the first 48
    /// suffice; a shorter file gives what its bytes allow). A program that
    /// reads files of any kind reads them as a [`SavedFilter`](crate::SavedFilter), which asks
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
                kind_of(id, header_len)
            }
        }
    }
}

/// The bytes of a header, as long as the longest version's; a version 1
/// header uses the first [`V1_HEADER_LEN`], version 2 the first
/// [`V2_HEADER_LEN`].
pub(crate) type HeaderBytes = [u8; V3_HEADER_LEN];

/// The fixed-size header of every kind and version, as its fields say.
pub(crate) struct Header {
    pub(crate) kind: FilterKind,
    pub(crate) placement: Placement,
    /// `k` and `m` of the kind's array: a plain or counting filter's, every
    /// generation's of a windowed filter; 0 and 0 for a growable filter,
    /// whose sub-filters record their own.
    pub(crate) num_hashes: u32,
    pub(crate) num_bits: u64,
    pub(crate) hasher: HasherId,
    /// The hasher's hash of [`FINGERPRINT_KEY`]: tells two custom hashers
    /// (or states of one) apart.
    pub(crate) fingerprint: u64,
    /// A shared file's (version 3) writer state: whether it was open for
    /// writing when read. `None`: a version 1 or 2 file, always sealed.
    pub(crate) open_for_writing: Option<bool>,
}

/// What a reader checks before the checksum: the magic and version (is
/// this a filter at all), and the kind, layout and `m`, which fix the
/// input's length and so where the checksum is. Everything else in the
/// header is interpreted only once the checksum has vouched for it.
pub(crate) struct Frame {
    pub(crate) header_len: usize,
    /// Bits of the body per cell.
    pub(crate) cell_bits: u64,
    pub(crate) num_bits: u64,
}

impl Frame {
    /// The header's length, from the magic and version at its start.
    pub(crate) fn header_len(start: &[u8; V1_HEADER_LEN]) -> Result<usize, ReadError> {
        if start[0..8] != MAGIC {
            return Err(not_ours(start));
        }
        match u16::from_le_bytes([start[8], start[9]]) {
            1 => Ok(V1_HEADER_LEN),
            2 => Ok(V2_HEADER_LEN),
            3 => Ok(V3_HEADER_LEN),
            version => Err(ReadError::UnsupportedVersion(version)),
        }
    }

    /// The frame of a whole header (`header_len` bytes of `bytes`), for a
    /// reader of `reading`. A file of a kind whose body is not one array
    /// has no such frame: it is the wrong kind for this reader, which can
    /// say so before the checksum, since it could not find the checksum.
    pub(crate) fn of(
        bytes: &HeaderBytes,
        header_len: usize,
        reading: FilterKind,
    ) -> Result<Frame, ReadError> {
        let kind = if header_len == V1_HEADER_LEN {
            FilterKind::Bloom
        } else {
            kind_of(bytes[40], header_len)?
        };
        let cell_bits = kind.cell_bits().ok_or(ReadError::WrongKind {
            written: kind,
            reading,
        })?;
        if header_len == V3_HEADER_LEN && bytes[WRITER_STATE_AT] == STATE_OPEN {
            // Its checksum is stale: say why rather than that it mismatches.
            return Err(ReadError::OpenForWriting);
        }
        let placement = Placement::from_id(bytes[10]).ok_or(ReadError::UnknownLayout(bytes[10]))?;
        let num_bits = u64_at(bytes, 16);
        check_num_bits(placement, num_bits)?;
        Ok(Frame {
            header_len,
            cell_bits,
            num_bits,
        })
    }

    /// Bytes of the body: `m` cells of the kind's width (`m` is a multiple
    /// of 64 and at most 2^43, so a whole number of words, with no overflow).
    pub(crate) fn body_len(&self) -> u64 {
        self.num_bits * self.cell_bits / 8
    }

    /// Bytes of the whole file.
    pub(crate) fn file_len(&self) -> u64 {
        self.header_len as u64 + self.body_len() + CHECKSUM_LEN as u64
    }

    /// Whether an input of `actual` bytes holds exactly this filter.
    pub(crate) fn check_len(&self, actual: u64) -> Result<(), ReadError> {
        check_len(actual, self.file_len())
    }

    /// Zeroed words for the body.
    pub(crate) fn words(&self) -> Result<BitArray, ReadError> {
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
pub(crate) fn v2_head(
    bytes: &[u8],
    len: usize,
    expected: FilterKind,
    reading: FilterKind,
) -> Result<(&[u8], Placement), ReadError> {
    let start = bytes.first_chunk().ok_or_else(|| short_header(bytes, 0))?;
    let header_len = Frame::header_len(start)?;
    if header_len == V1_HEADER_LEN {
        return Err(ReadError::WrongKind {
            written: FilterKind::Bloom,
            reading,
        });
    }
    let head = bytes
        .get(..len)
        .ok_or_else(|| truncated(len as u64, bytes))?;
    let kind = kind_of(head[40], header_len)?;
    if kind != expected {
        return Err(ReadError::WrongKind {
            written: kind,
            reading,
        });
    }
    if header_len != V2_HEADER_LEN {
        // Version 3 holds only the kinds a process can share.
        return Err(ReadError::UnsupportedVersion(3));
    }
    let placement = Placement::from_id(head[10]).ok_or(ReadError::UnknownLayout(head[10]))?;
    Ok((head, placement))
}

/// The kind a version 2 or 3 header's kind byte names: in version 2 a
/// plain filter has no id (it is a version 1 file), in version 3 it is 0.
fn kind_of(id: u8, header_len: usize) -> Result<FilterKind, ReadError> {
    match id {
        0 if header_len == V3_HEADER_LEN => Ok(FilterKind::Bloom),
        _ => FilterKind::from_v2_id(id).ok_or(ReadError::UnknownKind(id)),
    }
}

/// Checks a recorded `m`: in range, and a whole number of the layout's
/// words or blocks.
pub(crate) fn check_num_bits(placement: Placement, num_bits: u64) -> Result<(), ReadError> {
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

pub(crate) fn u64_at(bytes: &HeaderBytes, at: usize) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(le)
}

impl Header {
    /// The header of a filter of `kind` whose keys `hasher` hashes.
    pub(crate) fn new<S: BuildHasher + 'static>(
        kind: FilterKind,
        placement: Placement,
        num_hashes: u32,
        num_bits: u64,
        hasher: &S,
    ) -> Header {
        Header {
            kind,
            placement,
            num_hashes,
            num_bits,
            hasher: HasherId::of(hasher),
            fingerprint: hasher.hash_one(FINGERPRINT_KEY),
            open_for_writing: None,
        }
    }

    /// The header of the same filter as a shared file's (version 3), open
    /// for writing or sealed.
    #[cfg_attr(any(loom, not(target_os = "linux")), allow(dead_code))] // Used by `shared/`.
    pub(crate) fn shared(self, open_for_writing: bool) -> Header {
        Header {
            open_for_writing: Some(open_for_writing),
            ..self
        }
    }

    /// The header's bytes and how many of them the version has: 40 in
    /// version 1, 48 in version 2, all 64 in version 3.
    pub(crate) fn encode(&self) -> (HeaderBytes, usize) {
        let mut out = [0u8; V3_HEADER_LEN];
        let version = match self.open_for_writing {
            Some(_) => 3,
            None => self.kind.format_version(),
        };
        out[0..8].copy_from_slice(&MAGIC);
        out[8..10].copy_from_slice(&version.to_le_bytes());
        let (hasher_id, seed) = self.hasher.encode();
        out[10] = self.placement.id();
        out[11] = hasher_id;
        out[12..16].copy_from_slice(&self.num_hashes.to_le_bytes());
        out[16..24].copy_from_slice(&self.num_bits.to_le_bytes());
        out[24..32].copy_from_slice(&seed.to_le_bytes());
        out[32..40].copy_from_slice(&self.fingerprint.to_le_bytes());
        if version == 1 {
            return (out, V1_HEADER_LEN);
        }
        out[40] = self.kind.v2_id().unwrap_or(0);
        match self.open_for_writing {
            None => (out, V2_HEADER_LEN),
            Some(open) => {
                out[WRITER_STATE_AT] = if open { STATE_OPEN } else { STATE_SEALED };
                (out, V3_HEADER_LEN)
            }
        }
    }

    /// Interprets the first bytes of a whole file whose checksum has been
    /// verified; the frame (magic, version, kind, layout, `m`) was checked
    /// before the checksum, so only the rest can be refused here.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Header, ReadError> {
        let start = bytes.first_chunk().ok_or_else(|| short_header(bytes, 0))?;
        let header_len = Frame::header_len(start)?;
        let head = bytes
            .get(..header_len)
            .ok_or_else(|| short_header(bytes, header_len))?;
        let mut all: HeaderBytes = [0; V3_HEADER_LEN];
        all[..header_len].copy_from_slice(head);
        let bytes = &all;
        let kind = if header_len == V1_HEADER_LEN {
            FilterKind::Bloom
        } else {
            let state = bytes[WRITER_STATE_AT];
            if bytes[41..WRITER_STATE_AT].iter().any(|&b| b != 0)
                || bytes[WRITER_STATE_AT + 1..].iter().any(|&b| b != 0)
            {
                return Err(ReadError::ReservedBytes);
            }
            if state > STATE_OPEN {
                return Err(ReadError::UnknownWriterState(state));
            }
            kind_of(bytes[40], header_len)?
        };
        let open_for_writing =
            (header_len == V3_HEADER_LEN).then_some(bytes[WRITER_STATE_AT] == STATE_OPEN);
        if open_for_writing.is_some() && kind.cell_bits().is_none() {
            return Err(ReadError::UnsupportedVersion(3));
        }
        Ok(Header {
            kind,
            placement: Placement::from_id(bytes[10]).ok_or(ReadError::UnknownLayout(bytes[10]))?,
            num_hashes: u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]),
            num_bits: u64_at(bytes, 16),
            hasher: HasherId::decode(bytes[11], u64_at(bytes, 24))?,
            fingerprint: u64_at(bytes, 32),
            open_for_writing,
        })
    }

    /// The sizing of the kind's array (its `k` and `m` in range).
    pub(crate) fn sizing(&self) -> Result<Sizing, ReadError> {
        Sizing::placed(self.placement, self.num_bits, self.num_hashes)
            .map_err(ReadError::InvalidParameters)
    }

    /// The default hasher this header names, if it names one.
    pub(crate) fn wyhash(&self) -> Result<WyBuildHasher, ReadError> {
        self.hasher.wyhash()
    }

    /// Checks that `hasher` is the one the file records: the same id and
    /// seed (so that writing the filter back gives the same bytes) and the
    /// same fingerprint (so that keys map to the same cells).
    pub(crate) fn check_hasher<S: BuildHasher + 'static>(
        &self,
        hasher: &S,
    ) -> Result<(), ReadError> {
        let reading = HasherId::of(hasher);
        if reading != self.hasher {
            return Err(ReadError::HasherMismatch {
                written: self.hasher,
                reading,
            });
        }
        let computed = hasher.hash_one(FINGERPRINT_KEY);
        if computed != self.fingerprint {
            return Err(ReadError::FingerprintMismatch {
                written: self.fingerprint,
                reading: computed,
            });
        }
        Ok(())
    }
}

/// Reads the header at the start of `input` and checks its frame; returns
/// its raw bytes (for the checksum, and to decode once it is verified).
pub(crate) fn read_header(
    mut input: impl Read,
    reading: FilterKind,
) -> Result<(HeaderBytes, Frame), ReadError> {
    let mut bytes = [0u8; V3_HEADER_LEN];
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
pub(crate) fn short_header(prefix: &[u8], header_len: usize) -> ReadError {
    if prefix.iter().zip(&MAGIC).any(|(a, b)| a != b) {
        not_ours(prefix)
    } else {
        ReadError::Truncated {
            expected: header_len.max(V1_HEADER_LEN) as u64,
            actual: prefix.len() as u64,
        }
    }
}

/// The error for an input that does not start with [`MAGIC`]: which of
/// the JVM's formats it is, if it starts as one does, so that the error
/// says which reader takes it.
fn not_ours(start: &[u8]) -> ReadError {
    if spark_format(start) {
        ReadError::SparkFormat
    } else if guava_format(start) {
        ReadError::GuavaFormat
    } else {
        ReadError::BadMagic
    }
}

/// Whether `start` begins as a file in Spark's format does: version 1 or 2
/// as a big-endian 32-bit integer (a file of this crate's begins with
/// `0x89`).
pub(crate) fn spark_format(start: &[u8]) -> bool {
    matches!(start.get(..4), Some([0, 0, 0, 1 | 2]))
}

/// Whether `start` begins as a file in Guava's format does: a strategy
/// ordinal (0 or 1), then `k`, which is never 0 (a file of Spark's has 0
/// there, one of this crate's `0x89` first).
pub(crate) fn guava_format(start: &[u8]) -> bool {
    matches!(start.get(..2), Some([0 | 1, 1..=u8::MAX]))
}

/// Whether an input of `actual` bytes is exactly the `expected` bytes its
/// frame declares.
pub(crate) fn check_len(actual: u64, expected: u64) -> Result<(), ReadError> {
    match actual.cmp(&expected) {
        std::cmp::Ordering::Less => Err(ReadError::Truncated { expected, actual }),
        std::cmp::Ordering::Greater => Err(ReadError::TrailingBytes { expected }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The checks a whole input held in memory gets after its frame, in the
/// format's order: its length is the `expected` one its frame declares,
/// then its checksum matches. Returns the header, decoded only now, and
/// the bytes the checksum covers, from which the kind reads its meaning.
pub(crate) fn verified(bytes: &[u8], expected: u64) -> Result<(Header, &[u8]), ReadError> {
    check_len(bytes.len() as u64, expected)?;
    let (covered, stored) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    check_sum(stored, xxh3_64(covered))?;
    Ok((Header::decode(covered)?, covered))
}

/// Compares the stored checksum (8 little-endian bytes) with the computed one.
pub(crate) fn check_sum(stored: &[u8], computed: u64) -> Result<(), ReadError> {
    let stored = u64::from_le_bytes(stored.try_into().unwrap_or([0; 8]));
    if stored == computed {
        Ok(())
    } else {
        Err(ReadError::ChecksumMismatch { stored, computed })
    }
}
