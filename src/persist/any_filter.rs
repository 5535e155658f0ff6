//! [`AnyFilter`]: a filter file of any format the readers here take.

use super::errors::ReadError;
use super::header::guava_format;
use super::saved_filter::{SavedFilter, read_start};
use crate::kinds::guava::GuavaBloom;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// A filter file of any format the readers here take, told apart by its
/// first bytes: this crate's or Apache Spark's, read into a
/// [`SavedFilter`], or Google Guava's, read into a [`GuavaBloom`]. What a
/// program that reads any filter it is given loads (the `atomic-bloom`
/// CLI, Python's `atomic_bloom.load`, DataFusion's `bloom_contains`).
///
/// They are two variants, not one, because a Guava filter's keys' positions
/// need the 128-bit hash only [`GuavaBloom`] carries: it answers keys,
/// where a [`SavedFilter`] answers [`Membership`](crate::Membership)'s
/// hashes too. A format added later that answers hashes joins
/// [`SavedFilter`] (whose variants are open to additions), so this enum's
/// two are all a `match` needs.
///
/// ```
/// use atomic_bloom::{AnyFilter, AtomicBloom, GuavaBloom};
/// let ours = AtomicBloom::new(100, 0.01)?;
/// assert!(matches!(AnyFilter::from_bytes(&ours.to_bytes()?)?, AnyFilter::Saved(_)));
/// let guava = GuavaBloom::new(100, 0.01)?;
/// assert!(matches!(AnyFilter::from_bytes(&guava.to_guava_bytes()?)?, AnyFilter::Guava(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, PartialEq)]
pub enum AnyFilter {
    /// A filter of this crate's format or Spark's.
    Saved(SavedFilter),
    /// A filter of Guava's `BloomFilter.writeTo` format.
    Guava(GuavaBloom),
}

impl AnyFilter {
    /// The filter in `bytes`, of whichever format they begin as.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        if guava_format(bytes) {
            GuavaBloom::from_guava_bytes(bytes).map(Self::Guava)
        } else {
            SavedFilter::from_bytes(bytes).map(Self::Saved)
        }
    }

    /// Reads the one filter a stream holds, which can be read once: its
    /// start tells the format, and that format's reader continues from it.
    pub fn read_from(mut input: impl Read) -> Result<Self, ReadError> {
        let start = read_start(&mut input)?;
        let input = start.as_slice().chain(input);
        if guava_format(&start) {
            GuavaBloom::read_guava(input).map(Self::Guava)
        } else {
            SavedFilter::read_from(input).map(Self::Saved)
        }
    }

    /// Loads the filter file at `path`, of whichever format it holds: a
    /// regular file of this crate's by [`SavedFilter::load`], anything
    /// else (Guava's, a FIFO, `/dev/stdin` on a pipe) as a stream
    /// ([`read_from`](Self::read_from)).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        Self::load_file(path).map_err(|e| e.in_file(path))
    }

    /// [`load`](Self::load), its I/O errors not yet naming the file.
    fn load_file(path: &Path) -> Result<Self, ReadError> {
        let mut file = File::open(path)?;
        if !file.metadata()?.is_file() {
            return Self::read_from(file);
        }
        let start = read_start(&mut file)?;
        if guava_format(&start) {
            return GuavaBloom::read_guava(start.as_slice().chain(file)).map(Self::Guava);
        }
        SavedFilter::load(path).map(Self::Saved)
    }
}
