//! The readers (bytes, stream, file) and the writer of every kind whose
//! body is one array of words, written once for them all ([`Stored`]).

use super::bytes::{Summed, read_full, read_growing, written_bytes};
use super::constants::{CHECKSUM_LEN, CHUNK, V3_HEADER_LEN};
use super::errors::{FilterKind, ReadError, WriteError};
use super::header::{Frame, Header, check_sum, read_header, short_header, verified};
use crate::sizing::Sizing;
use crate::storage::bit_array::BitArray;
use std::fs::File;
use std::hash::BuildHasher;
use std::io;
use std::io::{Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// The header of a stored filter, and the filter of a verified file's
/// header: what ties the header to the kinds it stores.
impl Header {
    pub(crate) fn of<F: Stored<S>, S: BuildHasher + 'static>(filter: &F) -> Header {
        let sizing = filter.sizing();
        Header::new(
            F::KIND,
            sizing.placement(),
            sizing.num_hashes(),
            sizing.num_bits(),
            filter.hasher(),
        )
    }

    /// The filter of type `F` with this header's parameters holding
    /// `words`, hashing with `hasher`, after checking that the file holds
    /// that kind of filter and that `hasher` is the one the file records:
    /// the same id and seed (so that writing the filter back gives the same
    /// bytes) and the same fingerprint (so that keys map to the same cells).
    pub(crate) fn filter<F: Stored<S>, S: BuildHasher + 'static>(
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
        self.check_hasher(&hasher)?;
        Ok(F::from_stored(words, self.sizing()?, hasher))
    }
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

/// Decodes a whole file held in memory: frame, length, checksum, and only
/// then the header's meaning; `hasher` picks the hasher from it.
pub(crate) fn decode<F: Stored<S>, S: BuildHasher + 'static>(
    bytes: &[u8],
    hasher: impl FnOnce(&Header) -> Result<S, ReadError>,
) -> Result<F, ReadError> {
    let start = bytes.first_chunk().ok_or_else(|| short_header(bytes, 0))?;
    let header_len = Frame::header_len(start)?;
    let mut header_bytes = [0u8; V3_HEADER_LEN];
    let head = bytes
        .get(..header_len)
        .ok_or_else(|| short_header(bytes, header_len))?;
    header_bytes[..header_len].copy_from_slice(head);
    let frame = Frame::of(&header_bytes, header_len, F::KIND)?;
    let (header, covered) = verified(bytes, frame.file_len())?;
    let mut words = frame.words()?;
    words.fill_le(0, &covered[header_len..]);
    header.filter(words, hasher(&header)?)
}

/// Reads a whole file from a stream into memory, growing the buffer only as
/// bytes arrive (never by what the header claims, and never past what the
/// allocator grants), then decodes it.
pub(crate) fn read_stream<F: Stored<S>, S: BuildHasher + 'static>(
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

/// Loads a file: its length is checked against the frame before the array
/// is allocated, then the body streams straight into the array, and the
/// header is interpreted once the checksum over it all has matched.
///
/// A path that is not a regular file (a FIFO, `/dev/stdin` on a pipe, a
/// process substitution) has no length to check and can be read only
/// once: it is read as a stream, as `save` writes one (`atomic_write`).
pub(crate) fn load_file<F: Stored<S>, S: BuildHasher + 'static>(
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
    let header = Header::decode(&header_bytes[..frame.header_len])?;
    header.filter(words, hasher(&header)?)
}

/// Writes `filter` in the format: header, words, checksum, in 1 MiB pieces.
/// Each word is read once, as a snapshot reads it.
pub(crate) fn write_stored<F: Stored<S>, S: BuildHasher + 'static>(
    filter: &F,
    output: impl Write,
) -> io::Result<()> {
    let (header, header_len) = Header::of(filter).encode();
    let mut out = Summed::new(output);
    out.put(&header[..header_len])?;
    out.put_words(filter.stored_words())?;
    out.finish()
}

/// `filter` in the format, as bytes; an error only if the allocator
/// refuses the buffer.
pub(crate) fn stored_bytes<F: Stored<S>, S: BuildHasher + 'static>(
    filter: &F,
) -> Result<Vec<u8>, WriteError> {
    let (_, header_len) = Header::of(filter).encode();
    let len = header_len + filter.num_stored_words() * 8 + CHECKSUM_LEN;
    written_bytes(len as u64, |out| write_stored(filter, out))
}
