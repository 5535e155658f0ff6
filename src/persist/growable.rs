//! # The growable filter's readers and writers
//!
//! [`AtomicGrowableBloom`] in the format: a version 2 header of filter kind
//! 2, the growth parameters, and each sub-filter, oldest first, as a record
//! and its words; one checksum over it all. The byte layout is in the
//! [format](crate::docs::format) chapter.
//!
//! The checks keep the plain readers' order: the frame (magic, version,
//! kind, and each record's `m`, which fix the length) is walked over the
//! bytes actually present, then the length, then the checksum, and only
//! then is anything else interpreted or allocated. Every allocation is a
//! sub-filter's words, copied from bytes the input holds, so a forged file
//! costs at most its own length.

use super::atomic_write;
use super::bytes::{Source, Summed, f64_le, u32_le, u64_le, written_bytes};
use super::composite::{Composite, Walk, read_file, read_framed, verified_whole};
use super::constants::{CHECKSUM_LEN, V2_HEADER_LEN};
use super::errors::{ChainDefect, FilterKind, HasherId, ReadError, WriteError};
use super::header::{Header, check_num_bits, v2_head};
use crate::error::BuildError;
use crate::kinds::bloom::AtomicBloom;
use crate::kinds::growable::{AtomicGrowableBloom, Config, MAX_SUB_FILTERS, SubFilter};
use crate::layout::Placement;
use crate::sizing::Sizing;
use crate::storage::bit_array::BitArray;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::Path;

/// Bytes of the growth parameters after the header.
const PARAMS_LEN: usize = 48;
/// Bytes of a sub-filter's record before its words.
const RECORD_LEN: usize = 32;
/// Where the first record starts.
const FIRST_RECORD: usize = V2_HEADER_LEN + PARAMS_LEN;

/// A sub-filter's record: what precedes its words.
struct Record {
    capacity: u64,
    inserted: u64,
    num_bits: u64,
    num_hashes: u32,
    reserved: u32,
}

impl Record {
    fn encode(&self) -> [u8; RECORD_LEN] {
        let mut out = [0u8; RECORD_LEN];
        out[0..8].copy_from_slice(&self.capacity.to_le_bytes());
        out[8..16].copy_from_slice(&self.inserted.to_le_bytes());
        out[16..24].copy_from_slice(&self.num_bits.to_le_bytes());
        out[24..28].copy_from_slice(&self.num_hashes.to_le_bytes());
        out[28..32].copy_from_slice(&self.reserved.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Record {
        Record {
            capacity: u64_le(&bytes[0..8]),
            inserted: u64_le(&bytes[8..16]),
            num_bits: u64_le(&bytes[16..24]),
            num_hashes: u32_le(&bytes[24..28]),
            reserved: u32_le(&bytes[28..32]),
        }
    }
}

/// The header and parameters of `filter`.
fn encode_head<S: BuildHasher + 'static>(
    filter: &AtomicGrowableBloom<S>,
    num_sub_filters: u32,
) -> [u8; FIRST_RECORD] {
    let config = filter.config();
    let mut out = [0u8; FIRST_RECORD];
    // `k` and `m` are per sub-filter: 0 in the header.
    let header = Header::new(
        FilterKind::Growable,
        config.placement,
        0,
        0,
        filter.hasher(),
    );
    out[..V2_HEADER_LEN].copy_from_slice(&header.encode().0[..V2_HEADER_LEN]);
    let params = &mut out[V2_HEADER_LEN..];
    params[0..8].copy_from_slice(&config.initial_capacity.to_le_bytes());
    params[8..16].copy_from_slice(&config.false_positive_rate.to_le_bytes());
    params[16..24].copy_from_slice(&config.growth_factor.to_le_bytes());
    params[24..32].copy_from_slice(&config.tightening_ratio.to_le_bytes());
    params[32..40].copy_from_slice(&config.memory_limit.to_le_bytes());
    params[40..44].copy_from_slice(&config.max_sub_filters.to_le_bytes());
    params[44..48].copy_from_slice(&num_sub_filters.to_le_bytes());
    out
}

impl<S: BuildHasher + 'static> AtomicGrowableBloom<S> {
    /// Writes the filter in the [format](crate::docs::format). Other
    /// threads may insert meanwhile: the sub-filters are listed once when
    /// the call begins and each word is read once, so the output holds
    /// every key inserted before the call began, and a racing insert whole,
    /// in part or not at all (a sub-filter added meanwhile is not written).
    ///
    /// ```
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let f = AtomicGrowableBloom::new(100, 0.01)?;
    /// f.insert_batch(0..1000u32)?;
    /// let mut out = Vec::new();
    /// f.write_to(&mut out)?;
    /// let back = AtomicGrowableBloom::read_from(out.as_slice())?;
    /// assert_eq!(back.sub_filters(), f.sub_filters());
    /// assert!((0..1000u32).all(|i| back.contains(&i)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to(&self, output: impl Write) -> io::Result<()> {
        let subs = self.sub_filters_oldest_first();
        let head = encode_head(self, subs.len() as u32);
        let mut out = Summed::new(output);
        out.put(&head)?;
        for sub in subs {
            let sizing = sub.filter().sizing();
            let record = Record {
                capacity: sub.capacity(),
                inserted: sub.inserted(),
                num_bits: sizing.num_bits(),
                num_hashes: sizing.num_hashes(),
                reserved: 0,
            };
            out.put(&record.encode())?;
            out.put_words(sub.filter().words())?;
        }
        out.finish()
    }

    /// The filter in the format, as bytes; an error only if the allocator
    /// refuses the buffer.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicGrowableBloom::new(100, 0.01)?;
    /// let bytes = f.to_bytes()?;
    /// assert_eq!(atomic_bloom::FilterKind::of_header(&bytes)?, atomic_bloom::FilterKind::Growable);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        // The size may change if the chain grows meanwhile: a hint only.
        let len = FIRST_RECORD as u64
            + self
                .sub_filter_stats()
                .iter()
                .map(|s| RECORD_LEN as u64 + s.sizing.num_bits() / 8)
                .sum::<u64>()
            + CHECKSUM_LEN as u64;
        written_bytes(len, |out| self.write_to(out))
    }

    /// Saves to `path` atomically, as the fixed-size filters do: a crash
    /// at any point leaves the old file or the new one.
    ///
    /// ```
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("seen.bloom");
    /// let f = AtomicGrowableBloom::new(10, 0.01)?;
    /// f.insert_batch(0..100u32)?;
    /// f.save(&path)?;
    /// assert!(AtomicGrowableBloom::load(&path)?.contains(&99u32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        atomic_write(path, |out| self.write_to(out))
    }
}

impl<S: BuildHasher + Clone + 'static> AtomicGrowableBloom<S> {
    /// Reads a growable filter written with a custom hasher, which must be
    /// the same hasher (checked by fingerprint).
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let hasher = RandomState::new();
    /// let f = AtomicGrowableBloom::builder().capacity(10, 0.01).hasher(hasher.clone()).build()?;
    /// f.insert("k")?;
    /// let back = AtomicGrowableBloom::from_bytes_with_hasher(&f.to_bytes()?, hasher)?;
    /// assert!(back.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, ReadError> {
        decode(bytes, |_| Ok(hasher))
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// stream, read as [`read_from`](AtomicGrowableBloom::read_from) reads.
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let hasher = RandomState::new();
    /// let f = AtomicGrowableBloom::builder().capacity(10, 0.01).hasher(hasher.clone()).build()?;
    /// f.insert("k")?;
    /// let bytes = f.to_bytes()?;
    /// let back = AtomicGrowableBloom::read_from_with_hasher(bytes.as_slice(), hasher)?;
    /// assert!(back.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from_with_hasher(input: impl Read, hasher: S) -> Result<Self, ReadError> {
        Self::from_bytes_with_hasher(&read_framed::<Self>(Source::stream(input))?, hasher)
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// file, read as [`load`](AtomicGrowableBloom::load) reads.
    pub fn load_with_hasher(path: impl AsRef<Path>, hasher: S) -> Result<Self, ReadError> {
        let path = path.as_ref();
        Self::from_bytes_with_hasher(&read_file::<Self>(path)?, hasher)
    }
}

impl AtomicGrowableBloom {
    /// Reads a growable filter written with the default hasher from bytes,
    /// validating everything before allocating.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicGrowableBloom, FilterKind, ReadError};
    /// let plain = AtomicBloom::new(100, 0.01)?.to_bytes()?;
    /// let err = AtomicGrowableBloom::from_bytes(&plain).unwrap_err();
    /// assert!(matches!(err, ReadError::WrongKind { written: FilterKind::Bloom, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        decode(bytes, HasherId::wyhash)
    }

    /// Reads a growable filter from a stream that holds exactly one,
    /// buffering the input as it arrives (never by what a header claims)
    /// and reading no further than the filter's declared end, and one byte
    /// more to tell trailing data from a clean end.
    ///
    /// ```
    /// use atomic_bloom::{AtomicGrowableBloom, ReadError};
    /// use std::io::Read;
    /// let bytes = AtomicGrowableBloom::new(100, 0.01)?.to_bytes()?;
    /// let end = bytes.len() as u64;
    /// // However much follows, the reader stops one byte past the end.
    /// let endless = bytes.as_slice().chain(std::io::repeat(0));
    /// let err = AtomicGrowableBloom::read_from(endless).unwrap_err();
    /// assert!(matches!(err, ReadError::TrailingBytes { expected } if expected == end));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from(input: impl Read) -> Result<Self, ReadError> {
        Self::from_bytes(&read_framed::<Self>(Source::stream(input))?)
    }

    /// Loads a growable filter file written with the default hasher (read
    /// as [`read_from`](Self::read_from) reads, then decoded as
    /// [`from_bytes`](Self::from_bytes)).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        Self::from_bytes(&read_file::<Self>(path)?)
    }
}

/// The number of sub-filters of a growable header and its parameters,
/// checked as far as they go, and its placement.
fn head(bytes: &[u8], reading: FilterKind) -> Result<(Placement, u32), ReadError> {
    let (head, placement) = v2_head(bytes, FIRST_RECORD, FilterKind::Growable, reading)?;
    let count = u32_le(&head[92..96]);
    if count == 0 || count > MAX_SUB_FILTERS {
        return Err(ReadError::InvalidChain(ChainDefect::SubFilterCount {
            count,
            max: MAX_SUB_FILTERS,
        }));
    }
    Ok((placement, count))
}

/// The frame: the header and parameters, then each sub-filter's record,
/// whose `m` says where the next one starts.
impl<S> Composite for AtomicGrowableBloom<S> {
    const KIND: FilterKind = FilterKind::Growable;
    const HEAD_LEN: usize = FIRST_RECORD;

    fn walk(bytes: &[u8], reading: FilterKind) -> Result<Walk, ReadError> {
        let (placement, count) = head(bytes, reading)?;
        let mut at = FIRST_RECORD as u64;
        for _ in 0..count {
            let record_end = at + RECORD_LEN as u64;
            let Some(record) = bytes.get(at as usize..record_end as usize) else {
                return Ok(Walk::Needs(record_end));
            };
            let num_bits = Record::decode(record).num_bits;
            check_num_bits(placement, num_bits)?;
            // At most 64 records of at most 2^40 bytes each: no overflow.
            at = record_end + num_bits / 8;
        }
        Ok(Walk::Whole(at + CHECKSUM_LEN as u64))
    }
}

/// Decodes a whole growable file: frame, length, checksum, then meaning.
fn decode<S: BuildHasher + Clone + 'static>(
    bytes: &[u8],
    hasher: impl FnOnce(HasherId) -> Result<S, ReadError>,
) -> Result<AtomicGrowableBloom<S>, ReadError> {
    let (header, covered) = verified_whole::<AtomicGrowableBloom<S>>(bytes)?;
    if header.num_hashes != 0 || header.num_bits != 0 {
        return Err(ReadError::ReservedBytes);
    }
    let hasher = hasher(header.hasher)?;
    header.check_hasher(&hasher)?;
    let (_, count) = head(covered, FilterKind::Growable)?;
    let config = read_config(covered, header.placement, count)?;
    let mut subs = Vec::with_capacity(count as usize);
    let mut at = FIRST_RECORD;
    for depth in 0..count {
        let record = Record::decode(&covered[at..at + RECORD_LEN]);
        let expected = config.capacity(depth);
        if Some(record.capacity) != expected || record.reserved != 0 {
            return Err(ReadError::InvalidChain(ChainDefect::Capacity {
                depth,
                recorded: record.capacity,
                reserved: record.reserved,
                expected,
            }));
        }
        let sizing = Sizing::placed(config.placement, record.num_bits, record.num_hashes)
            .map_err(ReadError::InvalidParameters)?;
        check_schedule(&config, depth, &sizing)?;
        let num_words = (record.num_bits / 64) as usize;
        let mut words = BitArray::zeroed(num_words).ok_or(ReadError::AllocationFailed(
            BuildError::AllocationFailed {
                bytes: record.num_bits / 8,
            },
        ))?;
        let body = at + RECORD_LEN;
        words.fill_le(0, &covered[body..body + num_words * 8]);
        at = body + num_words * 8;
        let filter = AtomicBloom::from_parts(words, sizing, hasher.clone());
        // An insert is counted new when it found one of the key's bits
        // clear, so the count follows the bits that went from 0 to 1, at
        // most `m`; only racing inserts of one key, each finding a bit
        // clear, count a transition twice, and a sub-filter grows long
        // before its count nears `m` (its capacity is a small fraction of
        // it). A count above `m` is forged, and summed it could overflow.
        if record.inserted > record.num_bits {
            return Err(ReadError::InvalidChain(ChainDefect::Inserted {
                depth,
                inserted: record.inserted,
                bits: record.num_bits,
            }));
        }
        subs.push(SubFilter::from_parts(
            filter,
            record.capacity,
            record.inserted,
        ));
    }
    AtomicGrowableBloom::from_parts(config, subs, hasher).ok_or(ReadError::InvalidChain(
        ChainDefect::SubFilterCount {
            count: 0,
            max: MAX_SUB_FILTERS,
        },
    ))
}

/// How far a recorded sub-filter's bits may stray from those its growth
/// parameters give today, either way: room for a sizing search refined
/// since the file was written (sizes chosen never grow), none for a forged
/// schedule whose next sub-filter, sized from the parameters, would dwarf
/// every one the file holds.
const SCHEDULE_SLACK: u64 = 2;

/// Refuses sub-filter `depth` unless its bits are about what the growth
/// parameters give it: the parameters size every later sub-filter, so a
/// file whose parameters say 2^30 keys over a 64-bit sub-filter would
/// allocate gigabytes on its first new key.
fn check_schedule(config: &Config, depth: u32, recorded: &Sizing) -> Result<(), ReadError> {
    let planned = config.sizing(depth).map_err(ReadError::InvalidParameters)?;
    let (got, want) = (recorded.num_bits(), planned.num_bits());
    if got.saturating_mul(SCHEDULE_SLACK) < want || want.saturating_mul(SCHEDULE_SLACK) < got {
        return Err(ReadError::InvalidChain(ChainDefect::Schedule {
            depth,
            bits: got,
            planned: want,
        }));
    }
    Ok(())
}

/// The growth parameters, validated as the builder validates them, and
/// the number of sub-filters against the maximum.
fn read_config(bytes: &[u8], placement: Placement, count: u32) -> Result<Config, ReadError> {
    let params = &bytes[V2_HEADER_LEN..FIRST_RECORD];
    let recorded = u64_le(&params[0..8]);
    let initial = usize::try_from(recorded)
        .map_err(|_| ReadError::InvalidChain(ChainDefect::InitialCapacity(recorded)))?;
    let mut builder = AtomicGrowableBloom::builder()
        .capacity(initial, f64_le(&params[8..16]))
        .growth_factor(f64_le(&params[16..24]))
        .tightening_ratio(f64_le(&params[24..32]))
        .layout(placement.layout())
        .max_sub_filters(u32_le(&params[40..44]));
    let limit = u64_le(&params[32..40]);
    if limit != u64::MAX {
        builder = builder.memory_limit(limit);
    }
    let config = Config {
        placement,
        ..builder.config().map_err(ReadError::InvalidParameters)?
    };
    if count > config.max_sub_filters {
        return Err(ReadError::InvalidChain(ChainDefect::SubFilterCount {
            count,
            max: config.max_sub_filters,
        }));
    }
    Ok(config)
}
