//! # The counting filter's readers and writers
//!
//! [`AtomicCountingBloom`] in the format: a 4-bit counter per cell,
//! sixteen to a word as the counter array keeps them, written as version 2
//! with filter kind 1. The readers are the plain filter's, with the same
//! checks in the same order; a file of the other kind is a
//! [`ReadError::WrongKind`].

use super::{
    FilterKind, Header, ReadError, Stored, atomic_write, decode, load_file, read_stream,
    stored_bytes, write_stored,
};
use crate::bit_array::BitArray;
use crate::counter_array::CounterArray;
use crate::counting::AtomicCountingBloom;
use crate::error::BuildError;
use crate::sizing::Sizing;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::Path;

impl<S: BuildHasher> Stored<S> for AtomicCountingBloom<S> {
    const KIND: FilterKind = FilterKind::Counting;

    fn from_stored(words: BitArray, sizing: Sizing, hasher: S) -> Self {
        AtomicCountingBloom::from_parts(CounterArray::from_words(words), sizing, hasher)
    }

    fn sizing(&self) -> Sizing {
        AtomicCountingBloom::sizing(self)
    }

    fn hasher(&self) -> &S {
        AtomicCountingBloom::hasher(self)
    }

    fn stored_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.counter_array().words()
    }

    fn num_stored_words(&self) -> usize {
        self.counter_array().num_words()
    }
}

impl<S: BuildHasher + 'static> AtomicCountingBloom<S> {
    /// Writes the filter in the [format](crate::docs::format). Other
    /// threads may insert and remove meanwhile: each counter word is read
    /// once, so the output holds every count that stood before the call
    /// began and was not removed meanwhile, and a racing update whole, in
    /// part or not at all.
    ///
    /// ```
    /// use atomic_bloom::AtomicCountingBloom;
    /// let f = AtomicCountingBloom::new(1000, 0.01)?;
    /// f.insert("saved");
    /// let mut out = Vec::new();
    /// f.write_to(&mut out)?;
    /// let back = AtomicCountingBloom::read_from(out.as_slice())?;
    /// assert!(back.remove("saved"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to(&self, output: impl Write) -> io::Result<()> {
        write_stored(self, output)
    }

    /// The filter in the [format](crate::docs::format), as bytes (48 bytes
    /// of header, half a byte per counter, 8 of checksum); an error only if
    /// the allocator refuses the buffer.
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, MAGIC};
    /// let bytes = AtomicCountingBloom::with_counters(1024, 3)?.to_bytes()?;
    /// assert_eq!(bytes.len(), 48 + 512 + 8);
    /// assert_eq!(bytes[..8], MAGIC);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
        stored_bytes(self)
    }

    /// Saves to `path` with [`atomic_write`], as
    /// [`AtomicBloom::save`](crate::AtomicBloom::save) does: a crash at
    /// any point leaves the old file or the new one, never a torn one.
    ///
    /// ```
    /// use atomic_bloom::AtomicCountingBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("sessions.bloom");
    /// let f = AtomicCountingBloom::new(1000, 0.01)?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// assert_eq!(AtomicCountingBloom::load(&path)?.count_of("k"), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        atomic_write(path, |out| self.write_to(out))
    }

    /// Reads a counting filter written with a custom hasher, which must be
    /// the same hasher (checked by fingerprint), as
    /// [`AtomicBloom::from_bytes_with_hasher`](crate::AtomicBloom::from_bytes_with_hasher).
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom};
    /// let hasher = RandomState::new();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build_counting()?;
    /// f.insert("k");
    /// let back = AtomicCountingBloom::from_bytes_with_hasher(&f.to_bytes()?, hasher)?;
    /// assert!(back.contains("k"));
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
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom};
    /// let hasher = RandomState::new();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build_counting()?;
    /// let back = AtomicCountingBloom::read_from_with_hasher(f.to_bytes()?.as_slice(), hasher)?;
    /// assert_eq!(back.num_counters(), 4096);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from_with_hasher(input: impl Read, hasher: S) -> Result<Self, ReadError> {
        read_stream(input, |_| Ok(hasher))
    }

    /// As [`from_bytes_with_hasher`](Self::from_bytes_with_hasher), from a
    /// file, by the fast path of [`load`](AtomicCountingBloom::load).
    ///
    /// ```
    /// use std::hash::RandomState;
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom};
    /// let dir = tempfile::tempdir()?;
    /// let hasher = RandomState::new();
    /// let f = AtomicBloom::builder().bits(4096, 4).hasher(hasher.clone()).build_counting()?;
    /// f.save(dir.path().join("f"))?;
    /// assert!(AtomicCountingBloom::load_with_hasher(dir.path().join("f"), hasher).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_with_hasher(path: impl AsRef<Path>, hasher: S) -> Result<Self, ReadError> {
        load_file(path.as_ref(), |_| Ok(hasher))
    }
}

impl AtomicCountingBloom {
    /// Reads a counting filter written with the default hasher from bytes,
    /// validating everything before allocating, as
    /// [`AtomicBloom::from_bytes`](crate::AtomicBloom::from_bytes) does.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom, ReadError};
    /// let f = AtomicCountingBloom::new(100, 0.01)?;
    /// f.insert(&1u64);
    /// let back = AtomicCountingBloom::from_bytes(&f.to_bytes()?)?;
    /// assert_eq!(back, f);
    /// // A plain filter's file is another kind.
    /// let plain = AtomicBloom::new(100, 0.01)?.to_bytes()?;
    /// assert!(matches!(AtomicCountingBloom::from_bytes(&plain), Err(ReadError::WrongKind { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        decode(bytes, Header::wyhash)
    }

    /// Reads a counting filter written with the default hasher from a
    /// stream that holds exactly one filter, buffering it first (see
    /// [`AtomicBloom::read_from`](crate::AtomicBloom::read_from)).
    ///
    /// ```
    /// use atomic_bloom::{AtomicCountingBloom, ReadError};
    /// let err = AtomicCountingBloom::read_from(&b"not a filter"[..]).unwrap_err();
    /// assert!(matches!(err, ReadError::BadMagic));
    /// ```
    pub fn read_from(input: impl Read) -> Result<Self, ReadError> {
        read_stream(input, Header::wyhash)
    }

    /// Loads a counting filter file written with the default hasher,
    /// reading the body straight into the counters and verifying the
    /// checksum as it goes.
    ///
    /// ```
    /// use atomic_bloom::AtomicCountingBloom;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.bloom");
    /// let f = AtomicCountingBloom::new(1000, 0.01)?;
    /// f.insert("k");
    /// f.save(&path)?;
    /// assert_eq!(AtomicCountingBloom::load(&path)?, f);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        load_file(path.as_ref(), Header::wyhash)
    }
}
