//! Filter files of every kind: a plain filter (`build`), a counting filter
//! (`build --counting`), a growable one (`build --growable`) or a windowed
//! one (`dedup --state`), told apart by the file's header; and the JVM's,
//! which `build --format` writes too: Apache Spark's `BloomFilter.writeTo`
//! form and Google Guava's. A filter to read may come from stdin (`-`).

use crate::keys::{Inputs, is_stdio};
use anyhow::{Result, bail};
use atomic_bloom::{
    AnyFilter, FilterKind, ReadError, SavedFilter, SharedError, SharedOptions, SharedState,
};
use std::io;
use std::path::Path;

/// The saved filter in `filter`, for `command`, which takes this crate's
/// and Spark's filters and not Guava's.
pub fn saved(filter: AnyFilter, path: &Path, command: &str) -> Result<SavedFilter> {
    match filter {
        AnyFilter::Saved(filter) => Ok(filter),
        AnyFilter::Guava(_) => bail!(
            "{} holds a filter in Google Guava's format; {command} takes atomic-bloom's \
             filters (Guava's take info, query and merge)",
            name(path)
        ),
    }
}

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
        // A kind newer than this build.
        _ => "unknown",
    }
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

/// Opens a file of any kind (a FIFO or `<(...)` too; `-` reads stdin),
/// naming the file in the error. Commands use it through
/// [`Membership`](atomic_bloom::Membership), whatever its kind, and match
/// the kind only for what one kind alone does.
///
/// A regular file holding a plain or counting filter is mapped read-only
/// rather than read (`SavedFilter::open_shared`). What a command changes
/// stays in its private copy of the pages it touched until it saves. A
/// shared file that a writer left open (killed, or its machine crashed)
/// is read as it is, with a warning: it holds every key whose insert had
/// returned.
///
/// The checksum is verified (every word read once, through the mapping),
/// as `info`, `merge` and `remove` need: they report on a file or write
/// one from it. `query` skips it ([`load_beside`]): a 1 GiB filter answers
/// its first key having read one page of it.
///
/// A file in Guava's format is read into a [`GuavaBloom`](atomic_bloom::GuavaBloom).
pub fn load(path: &Path) -> Result<AnyFilter> {
    open(path, true)
}

fn open(path: &Path, verify: bool) -> Result<AnyFilter> {
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if is_stdio(path) {
        return AnyFilter::read_from(io::stdin().lock()).map_err(|e| load_error(path, e));
    }
    if !regular {
        return AnyFilter::load(path).map_err(|e| load_error(path, e));
    }
    let options = SharedOptions::read_only().recover(true).verify(verify);
    let saved = match SavedFilter::open_shared(path, options) {
        Ok(saved) => saved,
        Err(SharedError::Invalid {
            source: ReadError::GuavaFormat,
            ..
        }) => return AnyFilter::load(path).map_err(|e| load_error(path, e)),
        Err(e) => return Err(open_error(path, e)),
    };
    if shared_state(&saved) == Some(SharedState::LeftOpen) {
        eprintln!("atomic-bloom: warning: {}", left_open(path));
    }
    Ok(AnyFilter::Saved(saved))
}

/// What the CLI says of a shared file a writer left open.
pub fn left_open(path: &Path) -> String {
    format!(
        "{} was left open for writing by a process that did not close it (killed, or its \
         machine crashed); it is read as it is, and holds every key whose insert had returned \
         there, but its checksum does not vouch for it",
        name(path)
    )
}

/// A shared file's writer state when it was opened, if it was mapped.
pub fn shared_state(filter: &SavedFilter) -> Option<SharedState> {
    match filter {
        SavedFilter::Bloom(f) => f.shared_state(),
        SavedFilter::Counting(f) => f.shared_state(),
        SavedFilter::Parquet(f) => f.shared_state(),
        _ => None,
    }
}

/// Why the filter file at `path` could not be opened, as [`load_error`].
fn open_error(path: &Path, error: SharedError) -> anyhow::Error {
    let context = format!("cannot load {}", name(path));
    match error {
        SharedError::File { source, .. } => anyhow::Error::new(source).context(context),
        SharedError::Invalid { source, .. } => anyhow::Error::new(source).context(context),
        other => anyhow::Error::new(other).context(context),
    }
}

/// [`load`] (verifying the checksum if `verify`) for a command that also
/// reads keys from `inputs`: stdin can hold the filter or the keys, not
/// both.
pub fn load_beside(path: &Path, inputs: &Inputs, verify: bool) -> Result<AnyFilter> {
    if is_stdio(path) && inputs.reads_stdin() {
        bail!("the filter is read from stdin (`-`), so the keys cannot be: give them as files");
    }
    open(path, verify)
}
