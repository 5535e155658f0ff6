//! Bytes apart from what they mean: inputs read to their end or a limit
//! without trusting a header's sizes, the summed output every writer
//! writes through, and little-endian helpers.

use super::constants::CHUNK;
use super::errors::{ReadError, WriteError};
use std::fs::File;
use std::io;
use std::io::{Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full(mut input: impl Read, buf: &mut [u8]) -> io::Result<usize> {
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
pub(crate) fn read_growing(
    mut input: impl Read,
    bytes: &mut Vec<u8>,
    limit: u64,
) -> Result<(), ReadError> {
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

/// An output of the format that sums what it is given into the trailing
/// checksum, the one writer of every kind.
pub(crate) struct Summed<W> {
    output: W,
    digest: Xxh3,
    /// Words as little-endian bytes, written `CHUNK` at a time.
    chunk: Vec<u8>,
}

impl<W: Write> Summed<W> {
    pub(crate) fn new(output: W) -> Self {
        Summed {
            output,
            digest: Xxh3::new(),
            chunk: Vec::new(),
        }
    }

    /// Writes `bytes` (a header or a record).
    pub(crate) fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.digest.update(bytes);
        self.output.write_all(bytes)
    }

    /// Writes `words` little-endian, in pieces of `CHUNK` bytes.
    pub(crate) fn put_words(&mut self, words: impl Iterator<Item = u64>) -> io::Result<()> {
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
    pub(crate) fn finish(mut self) -> io::Result<()> {
        let sum = self.digest.digest();
        self.output.write_all(&sum.to_le_bytes())
    }
}

/// What `write` writes, as bytes, in a buffer of `len` bytes reserved
/// first (a hint: a growable chain may grow meanwhile); an error only if
/// the allocator refuses it.
pub(crate) fn written_bytes(
    len: u64,
    write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| WriteError::AllocationFailed { bytes: len })?;
    if let Err(e) = write(&mut out) {
        unreachable!("writing to a Vec cannot fail: {e}");
    }
    Ok(out)
}

/// The little-endian `u64` of 8 bytes (0 if fewer: callers slice 8).
pub(crate) fn u64_le(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

/// The little-endian `u32` of 4 bytes (0 if fewer: callers slice 4).
pub(crate) fn u32_le(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().unwrap_or([0; 4]))
}

/// The little-endian `f64` of 8 bytes (0 if fewer: callers slice 8).
pub(crate) fn f64_le(bytes: &[u8]) -> f64 {
    f64::from_bits(u64_le(bytes))
}

/// An input of `bytes` that ends before the `expected` bytes its frame
/// declares.
pub(crate) fn truncated(expected: u64, bytes: &[u8]) -> ReadError {
    ReadError::Truncated {
        expected,
        actual: bytes.len() as u64,
    }
}

/// Writes `words` big-endian, as Java's `DataOutputStream.writeLong` does,
/// in pieces of [`CHUNK`](super::constants::CHUNK) bytes: the body of the
/// JVM's formats (Spark's, Guava's).
pub(crate) fn write_be_words(
    mut output: impl io::Write,
    words: impl Iterator<Item = u64>,
) -> io::Result<()> {
    let mut chunk = Vec::with_capacity(super::constants::CHUNK);
    let mut words = words.peekable();
    while words.peek().is_some() {
        chunk.clear();
        for word in words.by_ref().take(super::constants::CHUNK / 8) {
            chunk.extend_from_slice(&word.to_be_bytes());
        }
        output.write_all(&chunk)?;
    }
    Ok(())
}

/// The big-endian words of `bytes` (a whole number of them): what
/// [`write_be_words`] wrote.
pub(crate) fn be_words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|word| u64::from_be_bytes(word.try_into().unwrap_or_default()))
}
