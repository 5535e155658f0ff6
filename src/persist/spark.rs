//! # Spark's format: what `BloomFilter.writeTo` writes
//!
//! Apache Spark's `org.apache.spark.util.sketch.BloomFilter.writeTo`
//! (`DataFrame.stat.bloomFilter`'s result) writes, big-endian as Java's
//! `DataOutputStream` does:
//!
//! | version | bytes |
//! |---|---|
//! | V1 (Spark 4.0 and older) | version `1` (i32), `k` (i32), word count `w` (i32), `w` words (i64) |
//! | V2 (Spark 4.1 and later) | version `2` (i32), `k` (i32), seed (i32), word count `w` (i32), `w` words (i64) |
//!
//! Bit `i` is bit `i % 64` of word `i / 64`, as in this crate's arrays, and
//! `m = 64 w`. The format has no checksum. A reader here checks, before it
//! allocates, that the input holds exactly the words it declares, and that
//! `k` and `m` are ones a filter may have; the filter it gives has
//! [`SparkHasher`] with the file's seed and [`Layout::Spark`] (V2) or
//! [`Layout::SparkV1`], so that it answers as Spark's, keeps taking keys
//! from any number of threads, and writes back byte for byte.
//!
//! [`Layout::Spark`]: crate::Layout::Spark
//! [`Layout::SparkV1`]: crate::Layout::SparkV1

use super::bytes::{be_words, read_growing, write_be_words, written_bytes};
use super::errors::{ReadError, WriteError};
use crate::core::filter::Filter;
use crate::error::BuildError;
use crate::layout::{Layout, Placement};
use crate::sizing::Sizing;
use crate::spark_hasher::SparkHasher;
use crate::storage::BitArray;
use std::io::{self, Read, Write};

/// Bytes before the words: V1's three fields, V2's four.
const V1_HEAD: usize = 12;
const V2_HEAD: usize = 16;

impl Filter<BitArray, SparkHasher> {
    /// An empty filter as Spark's `BloomFilter.create(expected_items, fpp)`
    /// makes it (Spark 4.1 and later: V2 positions, seed 0), sized as Spark
    /// sizes it, so that the same keys give the same bytes Spark's would.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout};
    /// let f = AtomicBloom::spark(1000, 0.03)?;
    /// assert_eq!((f.layout(), f.num_bits(), f.num_hashes()), (Layout::Spark, 7360, 5));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn spark(expected_items: u64, fpp: f64) -> Result<Self, BuildError> {
        let (bits, k) = crate::sizing::jvm_sizing(expected_items, fpp)?;
        Filter::builder()
            .bits(bits.div_ceil(64) * 64, k)
            .layout(Layout::Spark)
            .hasher(SparkHasher::with_seed(0))
            .build()
    }

    /// Reads a filter Spark's `BloomFilter.writeTo` wrote (format V1 or
    /// V2): it answers every key exactly as Spark's `mightContain` does,
    /// and takes new keys from any number of threads. Checked before
    /// anything is allocated: the version, `k` (1 to
    /// [`MAX_HASHES`](crate::MAX_HASHES)), and a word count the input holds
    /// exactly.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout, SparkHasher};
    /// let f = AtomicBloom::builder().bits(1024, 3).layout(Layout::Spark)
    ///     .hasher(SparkHasher::with_seed(0)).build()?;
    /// f.insert("from Rust");
    /// let bytes = f.to_spark_bytes()?; // what Spark's readFrom reads
    /// let back = AtomicBloom::from_spark_bytes(&bytes)?;
    /// assert!(back.contains("from Rust"));
    /// assert_eq!(back.to_spark_bytes()?, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_spark_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        let (placement, k, seed, head, declared) = spark_head(bytes)?;
        let words = &bytes[head..];
        let expected = head as u64 + declared * 8;
        super::header::check_len(bytes.len() as u64, expected)?;
        let num_bits = declared * 64;
        let sizing =
            Sizing::placed(placement, num_bits, k).map_err(ReadError::InvalidParameters)?;
        let num_words = usize::try_from(declared).map_err(|_| {
            ReadError::InvalidParameters(BuildError::TooLarge {
                requested_bits: u128::from(num_bits),
                max_bits: usize::MAX as u64,
            })
        })?;
        let mut array = BitArray::zeroed(num_words).ok_or(ReadError::AllocationFailed(
            BuildError::AllocationFailed {
                bytes: declared * 8,
            },
        ))?;
        array.fill(0, be_words(words));
        Ok(Filter::from_parts(
            array,
            sizing,
            SparkHasher::with_seed(seed),
        ))
    }

    /// As [`from_spark_bytes`](Self::from_spark_bytes), from a stream that
    /// holds exactly one filter, buffered as its bytes arrive (never by
    /// what the input claims).
    pub fn read_spark(mut input: impl Read) -> Result<Self, ReadError> {
        let mut bytes = Vec::new();
        // Spark's largest filter: 2^31 - 1 words after a 16-byte head, and
        // one byte past it to tell trailing bytes from a clean end.
        read_growing(
            &mut input,
            &mut bytes,
            V2_HEAD as u64 + (u64::from(u32::MAX) >> 1) * 8 + 1,
        )?;
        Self::from_spark_bytes(&bytes)
    }

    /// The filter in Spark's format, as Spark's `BloomFilter.readFrom`
    /// reads it: V2 for [`Layout::Spark`], V1 for [`Layout::SparkV1`] (whose
    /// seed must be 0: V1 records none). Other threads may insert
    /// meanwhile; each word is read once, as [`to_bytes`](Filter::to_bytes)
    /// reads it.
    pub fn to_spark_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let (head, words) = self.spark_head()?;
        written_bytes(head.len() as u64 + words * 8, |out| self.write_spark(out))
    }

    /// [`to_spark_bytes`](Self::to_spark_bytes), to `output`.
    pub fn write_spark(&self, mut output: impl Write) -> io::Result<()> {
        let (head, _) = self.spark_head().map_err(io::Error::other)?;
        output.write_all(&head)?;
        write_be_words(output, self.cells().load_words(self.all_words()))
    }

    /// The bytes before the words, and the number of words.
    fn spark_head(&self) -> Result<(Vec<u8>, u64), WriteError> {
        let sizing = self.sizing();
        let words = sizing.num_bits() / 64;
        let not_spark = || WriteError::NotSpark {
            layout: sizing.layout(),
            seed: self.hasher().seed(),
        };
        let count = i32::try_from(words).map_err(|_| not_spark())?;
        let k = sizing.num_hashes() as i32;
        let mut head = Vec::with_capacity(V2_HEAD);
        match sizing.layout() {
            Layout::Spark => {
                head.extend_from_slice(&2i32.to_be_bytes());
                head.extend_from_slice(&k.to_be_bytes());
                head.extend_from_slice(&self.hasher().seed().to_be_bytes());
            }
            Layout::SparkV1 if self.hasher().seed() == 0 => {
                head.extend_from_slice(&1i32.to_be_bytes());
                head.extend_from_slice(&k.to_be_bytes());
            }
            _ => return Err(not_spark()),
        }
        head.extend_from_slice(&count.to_be_bytes());
        Ok((head, words))
    }
}

/// A Spark file's placement, `k`, seed, where its words start and how many
/// it declares (at least 1); the input must hold the head.
fn spark_head(bytes: &[u8]) -> Result<(Placement, u32, i32, usize, u64), ReadError> {
    let int = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| i32::from_be_bytes(b.try_into().unwrap_or_default()))
    };
    let truncated = |head: usize| ReadError::Truncated {
        expected: head as u64,
        actual: bytes.len() as u64,
    };
    let version = int(0).ok_or_else(|| truncated(V1_HEAD))?;
    let (placement, seed, head) = match version {
        1 => (Placement::SparkV1, 0, V1_HEAD),
        2 => (
            Placement::Spark,
            int(8).ok_or_else(|| truncated(V2_HEAD))?,
            V2_HEAD,
        ),
        other => return Err(ReadError::UnsupportedSparkVersion(other)),
    };
    if bytes.len() < head {
        return Err(truncated(head));
    }
    let k = int(4).unwrap_or(0);
    let count = int(head - 4).unwrap_or(0);
    if k < 1 || count < 1 {
        return Err(ReadError::InvalidParameters(if k < 1 {
            BuildError::InvalidNumHashes {
                got: k.max(0) as u32,
                max: crate::layout::MAX_HASHES,
            }
        } else {
            BuildError::ZeroBits
        }));
    }
    Ok((placement, k as u32, seed, head, count as u64))
}
