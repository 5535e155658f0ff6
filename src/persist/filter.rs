//! # A fixed-size filter's readers and writers
//!
//! [`Filter`] in the format, written once for both kinds: a plain filter
//! ([`AtomicBloom`](crate::AtomicBloom)) as version 1, a bit per cell; a
//! counting filter ([`AtomicCountingBloom`](crate::AtomicCountingBloom)) as
//! version 2 with filter kind 1, a 4-bit counter per cell, sixteen to a
//! word as the counter array keeps them. The readers check the same things
//! in the same order for both; a file of the other kind is a
//! [`ReadError::WrongKind`].

use super::atomic_write;
use super::errors::{FilterKind, ReadError, WriteError};
use super::header::Header;
use super::stored::{Stored, decode, load_file, read_stream, stored_bytes, write_stored};
use crate::core::cells::Cells;
use crate::core::filter::Filter;
use crate::hasher::WyBuildHasher;
use crate::sizing::Sizing;
use crate::storage::BitArray;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::Path;

impl<C: Cells, S: BuildHasher> Stored<S> for Filter<C, S> {
    const KIND: FilterKind = if C::CELL_BITS == 1 {
        FilterKind::Bloom
    } else {
        FilterKind::Counting
    };

    fn from_stored(words: BitArray, sizing: Sizing, hasher: S) -> Self {
        Filter::from_parts(C::from_words(words), sizing, hasher)
    }

    fn sizing(&self) -> Sizing {
        Filter::sizing(self)
    }

    fn hasher(&self) -> &S {
        Filter::hasher(self)
    }

    fn stored_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.cells().words(self.all_words())
    }

    fn num_stored_words(&self) -> usize {
        self.cells().num_words()
    }
}

impl<C: Cells, S: BuildHasher + 'static> Filter<C, S> {
    /// Writes the filter in the [format](crate::docs::format). Other threads may
    /// update it meanwhile: each word is read once, so the output holds
    /// every key inserted (and not removed) before the call began, and an
    /// update racing the call whole, in part or not at all.
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
    pub fn write_to(&self, output: impl Write) -> io::Result<()> {
        write_stored(self, output)
    }

    /// The filter in the [format](crate::docs::format), as bytes; an error only if the
    /// allocator refuses the buffer.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, MAGIC};
    /// let bytes = AtomicBloom::with_bits(1024, 3)?.to_bytes()?;
    /// assert_eq!(bytes.len(), 40 + 128 + 8);
    /// assert_eq!(bytes[..8], MAGIC);
    /// // A counting filter: 48 bytes of header, half a byte per counter.
    /// let bytes = atomic_bloom::AtomicCountingBloom::with_bits(1024, 3)?.to_bytes()?;
    /// assert_eq!(bytes.len(), 48 + 512 + 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        stored_bytes(self)
    }

    /// Saves to `path` atomically: a crash at any point leaves
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
    /// file, by the fast path of [`load`](Filter::load).
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
        let path = path.as_ref();
        load_file(path, |_| Ok(hasher)).map_err(|e| e.in_file(path))
    }
}

impl<C: Cells> Filter<C, WyBuildHasher> {
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
    /// let missing = AtomicBloom::load(dir.path().join("missing")).unwrap_err();
    /// assert!(matches!(missing, ReadError::File { .. }));
    /// assert!(missing.to_string().ends_with("missing")); // the reason is its source
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        load_file(path, Header::wyhash).map_err(|e| e.in_file(path))
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! `serde` support: a filter serializes as one byte string holding the
    //! format above, and deserializes through the same validation.

    use super::{Cells, Filter};
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::{Deserialize, Serialize, Serializer};
    use std::hash::BuildHasher;
    use std::marker::PhantomData;

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<C: Cells, S: BuildHasher + 'static> Serialize for Filter<C, S> {
        fn serialize<T: Serializer>(&self, serializer: T) -> Result<T::Ok, T::Error> {
            let bytes = self.to_bytes().map_err(serde::ser::Error::custom)?;
            serializer.serialize_bytes(&bytes)
        }
    }

    struct BytesVisitor<C>(PhantomData<C>);

    impl<'de, C: Cells> Visitor<'de> for BytesVisitor<C> {
        type Value = Filter<C>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an atomic-bloom filter as bytes")
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Filter<C>, E> {
            Filter::from_bytes(bytes).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Filter<C>, A::Error> {
            // The length hint may be forged: grow with the elements that come.
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(byte) = seq.next_element()? {
                bytes.push(byte);
            }
            self.visit_bytes(&bytes)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de, C: Cells> Deserialize<'de> for Filter<C> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor(PhantomData))
        }
    }
}
