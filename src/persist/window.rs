//! # The windowed filter's readers and writers
//!
//! [`AtomicWindowedBloom`] in the format: a version 2 header of filter kind
//! 3 (its `k` and `m` are every generation's), the window's parameters and
//! state, and each live generation, newest first, as a record and its
//! words; one checksum over it all. The byte layout is in the
//! [format](crate::docs::format) chapter.
//!
//! A time window records when it was saved, by the system's clock, and how
//! long before that each generation began, so that a reloaded filter goes
//! on where it stopped: a generation begun 10 minutes before a save that
//! is read an hour later began 70 minutes ago, and rotates as its schedule
//! says (the first call rotates as often as the time gone by requires). A
//! reader given a clock of its own (a replay) takes that clock as the
//! whole timeline. A window of keys keeps no time and records none.
//!
//! The checks keep the other readers' order: the frame (magic, version,
//! kind, layout, `m` and `g`, which fix the length) over the bytes present,
//! then the length, then the checksum, and only then is anything else
//! interpreted or allocated. The filter takes the file's generations and
//! one spare of the same size, so a reader allocates at most one and a half
//! times its input (`g` is at least 2).

use super::atomic_write;
use super::bytes::{Source, Summed, f64_le, u32_le, u64_le, written_bytes};
use super::composite::{Composite, Walk, read_file, read_framed, verified_whole};
use super::constants::{CHECKSUM_LEN, V2_HEADER_LEN};
use super::errors::{FilterKind, HasherId, ReadError, WindowDefect, WriteError};
use super::header::{Header, check_num_bits, v2_head};
use crate::error::BuildError;
use crate::kinds::bloom::AtomicBloom;
use crate::kinds::window::ring::{NOT_STARTED, Ring};
use crate::kinds::window::{
    AtomicWindowedBloom, Clock, MAX_GENERATIONS, WhenFull, Window, default_clock,
};
use crate::storage::bit_array::BitArray;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bytes of the window's parameters and state after the header.
const PARAMS_LEN: usize = 64;
/// Bytes of a generation's record before its words.
const RECORD_LEN: usize = 16;
/// Where the first generation's record starts.
const FIRST_RECORD: usize = V2_HEADER_LEN + PARAMS_LEN;

/// The most rotations a file may record: far past any real count (one a
/// nanosecond for 36 years), and low enough that generation numbers, with
/// room for the ring's state bits, never overflow.
const MAX_EPOCH: u64 = 1 << 60;

/// The oldest a generation is taken to be, in nanoseconds (2^62, about 146
/// years): a recorded age past it reads as it. A reloaded filter's
/// monotonic clock starts at its oldest generation's age, and must have
/// room to run on (2^62 more nanoseconds before it saturates at `u64::MAX`,
/// after which time would stand still and no generation would expire).
const MAX_AGE: u64 = 1 << 62;

/// A generation's age field when it has no start to record: it never
/// existed (older than generation 0), or its rotation had not yet read
/// the clock when the filter was written.
const NO_AGE: u64 = u64::MAX;

const WINDOW_KEYS: u8 = 0;
const WINDOW_DURATION: u8 = 1;

/// Nanoseconds since the Unix epoch by the system clock (0 before it).
fn wall_clock_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl<S: BuildHasher + 'static> AtomicWindowedBloom<S> {
    /// Writes the filter in the [format](crate::docs::format). Other
    /// threads may insert and rotate meanwhile: the epoch is read once
    /// when the call begins and each word once, so the output holds every
    /// key inserted before the call began that was still in the window,
    /// and a racing insert whole, in part or not at all.
    ///
    /// ```
    /// use atomic_bloom::AtomicWindowedBloom;
    /// let f = AtomicWindowedBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..1_500u32);
    /// let mut out = Vec::new();
    /// f.write_to(&mut out)?;
    /// let back = AtomicWindowedBloom::read_from(out.as_slice())?;
    /// assert_eq!(back, f);
    /// assert!(back.contains(&1_499u32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to(&self, output: impl Write) -> io::Result<()> {
        let (epoch, generations) = self.snapshot();
        let timed = self.period.is_some();
        let now = self.clock.now_nanos();
        let mut out = Summed::new(output);
        out.put(&self.encode_head(epoch, timed.then(wall_clock_nanos)))?;
        for generation in generations {
            let Some(filter) = generation.filter else {
                // A generation that never existed is written as zeros, not
                // read: its slot may be the one a rotation is clearing.
                let mut record = [0u8; RECORD_LEN];
                record[8..16].copy_from_slice(&NO_AGE.to_le_bytes());
                out.put(&record)?;
                let words = self.sizing().num_bits() / 64;
                out.put_words((0..words).map(|_| 0))?;
                continue;
            };
            let age_nanos = match (timed, generation.started) {
                (false, _) => 0,
                (true, NOT_STARTED) => NO_AGE,
                (true, started) => now.saturating_sub(started),
            };
            // A count past `m` (a filter read from a file at that limit,
            // then used) is written as `m`, the most a reader accepts: each
            // counted key set a bit, so `m` is as many as the bits show.
            let inserted = generation.new_keys.min(self.sizing().num_bits());
            let mut record = [0u8; RECORD_LEN];
            record[0..8].copy_from_slice(&inserted.to_le_bytes());
            record[8..16].copy_from_slice(&age_nanos.to_le_bytes());
            out.put(&record)?;
            out.put_words(filter.words())?;
        }
        out.finish()
    }

    /// The header and the window's parameters and state.
    fn encode_head(&self, epoch: u64, saved_at: Option<u64>) -> [u8; FIRST_RECORD] {
        let sizing = self.sizing();
        let mut out = [0u8; FIRST_RECORD];
        let header = Header::new(
            FilterKind::Windowed,
            sizing.placement(),
            sizing.num_hashes(),
            sizing.num_bits(),
            self.hasher(),
        );
        out[..V2_HEADER_LEN].copy_from_slice(&header.encode().0[..V2_HEADER_LEN]);
        let params = &mut out[V2_HEADER_LEN..];
        params[0..8].copy_from_slice(&self.keys_per_window.to_le_bytes());
        params[8..16].copy_from_slice(&self.target_false_positive_rate().to_le_bytes());
        let (kind, amount) = match self.window() {
            Window::Keys(n) => (WINDOW_KEYS, n),
            Window::Duration(d) => (
                WINDOW_DURATION,
                u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            ),
        };
        params[16..24].copy_from_slice(&amount.to_le_bytes());
        params[24] = kind;
        params[25] = match self.when_full {
            WhenFull::Rotate => 0,
            WhenFull::KeepFilling => 1,
        };
        params[28..32].copy_from_slice(&self.generations().to_le_bytes());
        // Past `MAX_EPOCH` (a filter read at that limit, then rotated) the
        // count saturates: every generation exists either way, which is all
        // the reader takes from it besides `rotations()`.
        params[32..40].copy_from_slice(&epoch.min(MAX_EPOCH).to_le_bytes());
        params[40..48].copy_from_slice(&self.generations_filled_early().to_le_bytes());
        params[48..56].copy_from_slice(&saved_at.unwrap_or(0).to_le_bytes());
        out
    }

    /// The filter in the format, as bytes; an error only if the allocator
    /// refuses the buffer.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, FilterKind};
    /// let bytes = AtomicWindowedBloom::new(100, 0.01)?.to_bytes()?;
    /// assert_eq!(FilterKind::of_header(&bytes)?, FilterKind::Windowed);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let len = file_len(self.sizing().num_bits(), self.generations());
        written_bytes(len, |out| self.write_to(out))
    }

    /// Saves to `path` atomically, as the other kinds do: a crash at any
    /// point leaves the old file or the new one.
    ///
    /// ```
    /// use atomic_bloom::AtomicWindowedBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("recent.abf");
    /// let f = AtomicWindowedBloom::new(1_000, 0.01)?;
    /// f.insert("event-1");
    /// f.save(&path)?;
    /// assert!(AtomicWindowedBloom::load(&path)?.contains("event-1"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        atomic_write(path, |out| self.write_to(out))
    }
}

impl AtomicWindowedBloom {
    /// Reads a windowed filter written with the default hasher from bytes,
    /// validating everything before allocating. A time window resumes by
    /// the system clock: each generation began as long before now as it
    /// had before the save, plus the time since the save.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicWindowedBloom, FilterKind, ReadError};
    /// let plain = AtomicBloom::new(100, 0.01)?.to_bytes()?;
    /// let err = AtomicWindowedBloom::from_bytes(&plain).unwrap_err();
    /// assert!(matches!(err, ReadError::WrongKind { written: FilterKind::Bloom, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        decode(bytes, HasherId::wyhash, None)
    }

    /// As [`from_bytes`](Self::from_bytes), the window's time read from
    /// `clock` (a [`ManualClock`](crate::ManualClock) that replays a
    /// stream by its events' times, say), which is the window's whole
    /// timeline: each generation began as long before `clock`'s now as it
    /// had before the save (or at `clock`'s zero if that is later), and
    /// the system clock's time since the save is not added.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, ManualClock, Window};
    /// use std::{sync::Arc, time::Duration};
    /// let minute = Window::Duration(Duration::from_secs(60));
    /// let f = AtomicWindowedBloom::builder().capacity(1_000, 0.01).window(minute).build()?;
    /// f.insert("k");
    /// let replay = Arc::new(ManualClock::new());
    /// replay.advance(Duration::from_secs(1_000));
    /// let back = AtomicWindowedBloom::from_bytes_with_clock(&f.to_bytes()?, replay.clone())?;
    /// assert!(back.contains("k"));
    /// replay.advance(Duration::from_secs(90));
    /// assert!(!back.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes_with_clock(bytes: &[u8], clock: Arc<dyn Clock>) -> Result<Self, ReadError> {
        decode(bytes, HasherId::wyhash, Some(clock))
    }

    /// Reads a windowed filter from a stream that holds exactly one,
    /// buffering the input as it arrives (never by what a header claims),
    /// then decodes it as [`from_bytes`](Self::from_bytes) does.
    pub fn read_from(input: impl Read) -> Result<Self, ReadError> {
        Self::from_bytes(&read_framed::<Self>(Source::stream(input))?)
    }

    /// Loads a windowed filter file written with the default hasher (read
    /// as [`read_from`](Self::read_from) reads).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        Self::from_bytes(&read_file::<Self>(path.as_ref())?)
    }

    /// As [`load`](Self::load), the window's time read from `clock`
    /// ([`from_bytes_with_clock`](Self::from_bytes_with_clock)).
    pub fn load_with_clock(
        path: impl AsRef<Path>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, ReadError> {
        decode(
            &read_file::<Self>(path.as_ref())?,
            HasherId::wyhash,
            Some(clock),
        )
    }
}

impl<S: BuildHasher + Clone + 'static> AtomicWindowedBloom<S> {
    /// Reads a windowed filter written with a custom hasher, which must be
    /// the same hasher (checked by fingerprint).
    pub fn from_bytes_with_hasher(bytes: &[u8], hasher: S) -> Result<Self, ReadError> {
        decode(bytes, |_| Ok(hasher), None)
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// stream that holds exactly one filter (read as
    /// [`read_from`](AtomicWindowedBloom::read_from) reads).
    pub fn read_from_with_hasher(input: impl Read, hasher: S) -> Result<Self, ReadError> {
        Self::from_bytes_with_hasher(&read_framed::<Self>(Source::stream(input))?, hasher)
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// file, read as [`load`](AtomicWindowedBloom::load) reads.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, ParquetHasher};
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("w.abf");
    /// let f = AtomicWindowedBloom::builder().capacity(100, 0.01).hasher(ParquetHasher).build()?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// assert!(AtomicWindowedBloom::load_with_hasher(&path, ParquetHasher)?.contains("k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_with_hasher(path: impl AsRef<Path>, hasher: S) -> Result<Self, ReadError> {
        Self::from_bytes_with_hasher(&read_file::<Self>(path.as_ref())?, hasher)
    }
}

/// Bytes of a file of `g` generations of `m` bits.
fn file_len(num_bits: u64, generations: u32) -> u64 {
    // At most 64 generations of at most 2^40 bits: no overflow.
    FIRST_RECORD as u64
        + u64::from(generations) * (RECORD_LEN as u64 + num_bits / 8)
        + CHECKSUM_LEN as u64
}

/// The frame: the header, and `m` and `g` in the parameters, fix the
/// length.
impl<S> Composite for AtomicWindowedBloom<S> {
    const KIND: FilterKind = FilterKind::Windowed;
    const HEAD_LEN: usize = FIRST_RECORD;

    fn walk(bytes: &[u8], reading: FilterKind) -> Result<Walk, ReadError> {
        let (head, placement) = v2_head(bytes, FIRST_RECORD, FilterKind::Windowed, reading)?;
        let num_bits = u64_le(&head[16..24]);
        check_num_bits(placement, num_bits)?;
        let generations = u32_le(&head[V2_HEADER_LEN + 28..V2_HEADER_LEN + 32]);
        if !(2..=MAX_GENERATIONS).contains(&generations) {
            return Err(ReadError::InvalidParameters(
                BuildError::InvalidGenerations {
                    got: generations,
                    max: MAX_GENERATIONS,
                },
            ));
        }
        Ok(Walk::Whole(file_len(num_bits, generations)))
    }
}

fn invalid(defect: WindowDefect) -> ReadError {
    ReadError::InvalidWindow(defect)
}

/// Decodes a whole windowed file: frame, length, checksum, then meaning.
fn decode<S: BuildHasher + Clone + 'static>(
    bytes: &[u8],
    hasher: impl FnOnce(HasherId) -> Result<S, ReadError>,
    clock: Option<Arc<dyn Clock>>,
) -> Result<AtomicWindowedBloom<S>, ReadError> {
    let (header, bytes) = verified_whole::<AtomicWindowedBloom<S>>(bytes)?;
    let params = &bytes[V2_HEADER_LEN..FIRST_RECORD];
    if params[26..28]
        .iter()
        .chain(&params[56..64])
        .any(|&b| b != 0)
    {
        return Err(ReadError::ReservedBytes);
    }
    let hasher = hasher(header.hasher)?;
    header.check_hasher(&hasher)?;
    let placement = header.placement;
    let sizing = header.sizing()?;

    let recorded_keys = u64_le(&params[0..8]);
    let keys_per_window = match usize::try_from(recorded_keys) {
        Ok(0) => return Err(invalid(WindowDefect::NoKeys)),
        Ok(keys) => keys,
        Err(_) => return Err(invalid(WindowDefect::KeysPastAddressSpace(recorded_keys))),
    };
    let amount = u64_le(&params[16..24]);
    let window = match params[24] {
        WINDOW_KEYS => Window::Keys(amount),
        WINDOW_DURATION => Window::Duration(Duration::from_nanos(amount)),
        other => return Err(invalid(WindowDefect::UnknownWindowKind(other))),
    };
    let when_full = match params[25] {
        0 => WhenFull::Rotate,
        1 => WhenFull::KeepFilling,
        other => return Err(invalid(WindowDefect::UnknownWhenFull(other))),
    };
    let generations = u32_le(&params[28..32]);
    let epoch = u64_le(&params[32..40]);
    if epoch > MAX_EPOCH {
        return Err(invalid(WindowDefect::Rotations {
            recorded: epoch,
            max: MAX_EPOCH,
        }));
    }
    let filled_early = u64_le(&params[40..48]);
    let saved_at = u64_le(&params[48..56]);
    let timed = matches!(window, Window::Duration(_));
    if !timed && (saved_at != 0 || filled_early != 0) {
        return Err(invalid(WindowDefect::TimeInKeyWindow));
    }
    let builder = AtomicWindowedBloom::builder()
        .capacity(keys_per_window, f64_le(&params[8..16]))
        .window(window)
        .generations(generations)
        .when_full(when_full)
        .layout(placement.layout())
        .hasher(hasher.clone());
    // The parameters are checked as the builder checks them; each
    // generation keeps the file's `k` and `m`, so a file does not depend on
    // how a later release would size it.
    let (schedule, _) = builder.schedule().map_err(ReadError::InvalidParameters)?;

    // The clock the window goes on by: the caller's, or a monotonic one
    // that has been running as long as the oldest generation has lived.
    // A caller's clock is the whole timeline; the default clock resumes
    // the system's, which went on while the file lay on disk.
    let since_save = if timed && clock.is_none() {
        wall_clock_nanos().saturating_sub(saved_at)
    } else {
        0
    };
    // A generation older than the whole ring's span has left the window
    // however much older it is: its age is read as that span (and never as
    // more than `MAX_AGE`), so that the clock a reloaded filter goes on by
    // has room to run and generations keep expiring.
    let span = match window {
        Window::Duration(d) => u64::try_from(d.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_mul(2)
            .min(MAX_AGE),
        _ => 0,
    };
    let age_now = |recorded: u64| recorded.saturating_add(since_save).min(span);
    let mut records = Vec::with_capacity(generations as usize);
    let mut oldest = 0u64;
    for age in 0..u64::from(generations) {
        let at = FIRST_RECORD + age as usize * (RECORD_LEN + (sizing.num_bits() / 8) as usize);
        let inserted = u64_le(&bytes[at..at + 8]);
        let age_nanos = u64_le(&bytes[at + 8..at + 16]);
        let body = &bytes[at + RECORD_LEN..at + RECORD_LEN + (sizing.num_bits() / 8) as usize];
        if age > epoch {
            if inserted != 0 || age_nanos != NO_AGE || body.iter().any(|&b| b != 0) {
                return Err(invalid(WindowDefect::NeverMade {
                    age,
                    rotations: epoch,
                }));
            }
        } else {
            if !timed && age_nanos != 0 {
                return Err(invalid(WindowDefect::TimeInKeyWindow));
            }
            // As for a growable filter's sub-filters: a count is of keys
            // that set a bit, at most `m`; more is forged.
            if inserted > sizing.num_bits() {
                return Err(invalid(WindowDefect::Inserted {
                    age,
                    inserted,
                    bits: sizing.num_bits(),
                }));
            }
            if age_nanos != NO_AGE {
                oldest = oldest.max(age_now(age_nanos));
            }
        }
        records.push((inserted, age_nanos, body));
    }
    let clock: Arc<dyn Clock> =
        clock.unwrap_or_else(|| default_clock(schedule.period, Duration::from_nanos(oldest)));
    let now = clock.now_nanos();
    let new_words = || {
        BitArray::zeroed((sizing.num_bits() / 64) as usize).ok_or(ReadError::AllocationFailed(
            BuildError::AllocationFailed {
                bytes: sizing.num_bits() / 8,
            },
        ))
    };
    let mut restored = Vec::with_capacity(records.len());
    for (inserted, age_nanos, body) in records {
        let mut words = new_words()?;
        words.fill_le(0, body);
        // A generation whose start was not recorded (its rotation had not
        // read the clock yet) begins now.
        let started = if age_nanos == NO_AGE {
            now
        } else {
            now.saturating_sub(age_now(age_nanos))
        };
        restored.push((
            AtomicBloom::from_parts(words, sizing, hasher.clone()),
            inserted,
            started,
        ));
    }
    let spare = AtomicBloom::from_parts(new_words()?, sizing, hasher);
    let ring = Ring::restore(epoch, restored, spare, schedule.per_generation);
    Ok(builder.assemble(schedule, ring, clock, filled_early))
}
