//! # Guava's format: what `BloomFilter.writeTo` writes
//!
//! Google Guava's `com.google.common.hash.BloomFilter.writeTo` writes,
//! big-endian as Java's `DataOutputStream` does: the strategy's ordinal
//! (one signed byte: 0 `MURMUR128_MITZ_32`, 1 `MURMUR128_MITZ_64`), `k`
//! (one unsigned byte), the word count `w` (i32), then `w` words (i64).
//! Bit `i` is bit `i % 64` of word `i / 64`; `m = 64 w`. No checksum. A
//! reader here checks the strategy, `k` and that the input holds exactly
//! the declared words before it allocates.

use super::bytes::{be_words, read_growing, write_be_words, written_bytes};
use super::errors::{ReadError, WriteError};
use crate::error::BuildError;
use crate::kinds::guava::{GuavaBloom, GuavaStrategy};
use std::io::{self, Read, Write};

/// Bytes before the words.
const HEAD: usize = 6;

impl GuavaBloom {
    /// Reads a filter Guava's `BloomFilter.writeTo` wrote: it answers every
    /// key exactly as Guava's `mightContain` does (for keys of the funnel
    /// its Java side used: [`GuavaKey`](crate::GuavaKey)), and takes new
    /// keys from any number of threads.
    pub fn from_guava_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        let head = bytes.first_chunk::<HEAD>().ok_or(ReadError::Truncated {
            expected: HEAD as u64,
            actual: bytes.len() as u64,
        })?;
        let strategy =
            GuavaStrategy::from_ordinal(head[0]).ok_or(ReadError::UnknownGuavaStrategy(head[0]))?;
        let k = u32::from(head[1]);
        let words = i32::from_be_bytes([head[2], head[3], head[4], head[5]]);
        let words = u64::try_from(words)
            .ok()
            .filter(|&w| w > 0)
            .ok_or(ReadError::InvalidParameters(BuildError::ZeroBits))?;
        super::header::check_len(bytes.len() as u64, HEAD as u64 + words * 8)?;
        let mut filter = GuavaBloom::with_bits(words * 64, k, strategy).map_err(|e| match e {
            e @ BuildError::AllocationFailed { .. } => ReadError::AllocationFailed(e),
            e => ReadError::InvalidParameters(e),
        })?;
        filter.bits.fill(0, be_words(&bytes[HEAD..]));
        Ok(filter)
    }

    /// As [`from_guava_bytes`](Self::from_guava_bytes), from a stream that
    /// holds exactly one filter, buffered as its bytes arrive.
    pub fn read_guava(mut input: impl Read) -> Result<Self, ReadError> {
        let mut bytes = Vec::new();
        read_growing(
            &mut input,
            &mut bytes,
            HEAD as u64 + (i32::MAX as u64) * 8 + 1,
        )?;
        Self::from_guava_bytes(&bytes)
    }

    /// The filter in Guava's format, as `BloomFilter.readFrom` reads it.
    /// Other threads may insert meanwhile: each word is read once.
    pub fn to_guava_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let len = HEAD as u64 + self.num_bits / 8;
        written_bytes(len, |out| self.write_guava(out))
    }

    /// [`to_guava_bytes`](Self::to_guava_bytes), to `output`.
    pub fn write_guava(&self, mut output: impl Write) -> io::Result<()> {
        let mut head = [0u8; HEAD];
        head[0] = self.strategy.ordinal();
        // `k` is at most 255 (`with_bits`).
        head[1] = self.num_hashes as u8;
        head[2..].copy_from_slice(&((self.num_bits / 64) as i32).to_be_bytes());
        output.write_all(&head)?;
        write_be_words(output, self.bits.load_words(self.bits.all()))
    }
}
