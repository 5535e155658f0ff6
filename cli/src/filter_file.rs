//! Filter files of every kind: a plain filter (`build`), a counting filter
//! (`build --counting`), a growable one (`build --growable`) or a windowed
//! one (`dedup --state`), told apart by the file's header. A filter to read
//! may come from stdin (`-`).

use crate::keys::{Inputs, is_stdio};
use anyhow::{Result, bail};
use atomic_bloom::{FilterKind, ReadError, SavedFilter};
use std::io;
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

/// Loads a file of any kind (a FIFO or `<(...)` too; `-` reads stdin),
/// naming the file in the error. Commands use it through
/// [`Membership`](atomic_bloom::Membership), whatever its kind, and match
/// the kind only for what one kind alone does.
pub fn load(path: &Path) -> Result<SavedFilter> {
    let saved = if is_stdio(path) {
        SavedFilter::read_from(io::stdin().lock())
    } else {
        SavedFilter::load(path)
    };
    saved.map_err(|e| load_error(path, e))
}

/// [`load`] for a command that also reads keys from `inputs`: stdin can
/// hold the filter or the keys, not both.
pub fn load_beside(path: &Path, inputs: &Inputs) -> Result<SavedFilter> {
    if is_stdio(path) && inputs.reads_stdin() {
        bail!("the filter is read from stdin (`-`), so the keys cannot be: give them as files");
    }
    load(path)
}
