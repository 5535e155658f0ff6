//! Filter files of every kind: a plain filter (`build`), a counting filter
//! (`build --counting`), a growable one (`build --growable`) or a windowed
//! one (`dedup --state`), told apart by the file's header. A filter to read
//! may come from stdin (`-`).

use crate::keys::{Inputs, is_stdio};
use anyhow::{Result, bail};
use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, FilterKind,
    GrowthError, ParquetHasher, ReadError, SavedFilter,
};
use std::io::{self, Write};
use std::path::Path;

/// How messages name the filter file at `path`: `-` is stdin.
pub fn name(path: &Path) -> String {
    if is_stdio(path) {
        "stdin".to_string()
    } else {
        path.display().to_string()
    }
}

/// A kind as the CLI's messages name it: plain, counting or growable, as
/// `build`, `build --counting` and `build --growable` make them, or
/// windowed, as `dedup --state` saves it.
pub fn kind_name(kind: FilterKind) -> &'static str {
    match kind {
        FilterKind::Bloom => "plain",
        FilterKind::Counting => "counting",
        FilterKind::Growable => "growable",
        FilterKind::Windowed => "windowed",
        // A kind newer than this build (`Filter::load` refuses it).
        _ => "unknown",
    }
}

/// A loaded filter file.
pub enum Filter {
    Plain(AtomicBloom),
    /// A plain filter imported from a Parquet file: keys are hashed as
    /// Parquet hashes them (a line as a string value).
    Parquet(AtomicBloom<ParquetHasher>),
    Counting(AtomicCountingBloom),
    Growable(AtomicGrowableBloom),
    Windowed(Box<AtomicWindowedBloom>),
}

/// Why the filter file at `path` could not be loaded, naming it once (the
/// library's error for a file names it too) with the reason after it.
pub fn load_error(path: &Path, error: ReadError) -> anyhow::Error {
    match error {
        ReadError::File { source, .. } => {
            anyhow::Error::new(source).context(format!("cannot load {}", name(path)))
        }
        other => anyhow::Error::new(other).context(format!("cannot load {}", name(path))),
    }
}

impl Filter {
    /// Loads a file of any kind (a FIFO or `<(...)` too; `-` reads stdin),
    /// naming the file in the error.
    pub fn load(path: &Path) -> Result<Filter> {
        let saved = match if is_stdio(path) {
            SavedFilter::read_from(io::stdin().lock())
        } else {
            SavedFilter::load(path)
        } {
            Ok(saved) => saved,
            Err(e) => return Err(load_error(path, e)),
        };
        Ok(match saved {
            SavedFilter::Counting(filter) => Filter::Counting(filter),
            SavedFilter::Growable(filter) => Filter::Growable(filter),
            SavedFilter::Bloom(filter) => Filter::Plain(filter),
            SavedFilter::Windowed(filter) => Filter::Windowed(filter),
            SavedFilter::Parquet(filter) => Filter::Parquet(filter),
            // The library's name for the kind reads "a counting Bloom
            // filter": a kind this build does not know has no short name.
            other => bail!(
                "{} holds {}, which this build cannot use",
                name(path),
                other.kind()
            ),
        })
    }

    /// [`load`](Self::load) for a command that also reads keys from
    /// `inputs`: stdin can hold the filter or the keys, not both.
    pub fn load_beside(path: &Path, inputs: &Inputs) -> Result<Filter> {
        if is_stdio(path) && inputs.reads_stdin() {
            bail!("the filter is read from stdin (`-`), so the keys cannot be: give them as files");
        }
        Filter::load(path)
    }

    /// The kind the file holds.
    pub fn kind(&self) -> FilterKind {
        match self {
            Filter::Plain(_) | Filter::Parquet(_) => FilterKind::Bloom,
            Filter::Counting(_) => FilterKind::Counting,
            Filter::Growable(_) => FilterKind::Growable,
            Filter::Windowed(_) => FilterKind::Windowed,
        }
    }

    /// The kind as the CLI's messages name it ([`kind_name`]).
    pub fn kind_name(&self) -> &'static str {
        kind_name(self.kind())
    }

    /// Inserts the keys on every core; returns how many were new. An error
    /// only from a growable filter at a limit, when some keys may not have
    /// been inserted.
    pub fn par_insert(&self, keys: &[crate::keys::Key<'_>]) -> Result<usize, GrowthError> {
        Ok(match self {
            Filter::Plain(f) => f.par_insert(keys),
            Filter::Parquet(f) => f.par_insert(keys),
            Filter::Counting(f) => f.par_insert(keys),
            Filter::Growable(f) => f.par_insert(keys)?,
            Filter::Windowed(f) => f.par_insert(keys),
        })
    }

    /// Which keys may be present, in order, on every core.
    pub fn par_contains(&self, keys: &[crate::keys::Key<'_>]) -> Vec<bool> {
        match self {
            Filter::Plain(f) => f.par_contains(keys),
            Filter::Parquet(f) => f.par_contains(keys),
            Filter::Counting(f) => f.par_contains(keys),
            Filter::Growable(f) => f.par_contains(keys),
            Filter::Windowed(f) => f.par_contains(keys),
        }
    }

    /// Writes the file.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Filter::Plain(f) => f.write_to(out),
            Filter::Parquet(f) => f.write_to(out),
            Filter::Counting(f) => f.write_to(out),
            Filter::Growable(f) => f.write_to(out),
            Filter::Windowed(f) => f.write_to(out),
        }
    }
}
