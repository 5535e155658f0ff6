//! # Saving atomically
//!
//! [`atomic_write`]: a file is replaced whole or not at all, whatever
//! kind of filter it holds.

use super::constants::CHUNK;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes what `write` writes to `path`, the primitive under
/// every filter's `save` ([`Filter::save`](crate::Filter::save)). A regular file (or a new one) is replaced so that
/// a crash or an error at any point leaves either the old file or the
/// complete new one, never a torn one; a device or FIFO, which cannot be
/// replaced, is written as a stream. An error from `write` removes the
/// temporary file and leaves `path` as it was (the CLI, through the
/// `internals` feature, wraps the writer to stop on a signal).
///
/// What `path` names decides how it is written:
/// - nothing, or a regular file: `write` fills a temporary file in the same
///   directory, which is flushed, `fsync`ed, given the replaced file's
///   permissions (`0644` for a new file, on Unix), renamed over `path`, and
///   the directory `fsync`ed;
/// - a symbolic link: the link is followed to its final target (which may
///   not exist yet), and that is written as above, beside the target; the
///   link stays;
/// - a device, FIFO or socket (`/dev/stdout`, a named pipe): written in
///   place as a stream, since it cannot be replaced; a write error (such as
///   `/dev/full`'s) is returned;
/// - a directory: an error of kind [`io::ErrorKind::IsADirectory`] (on
///   Unix `EISDIR`, what `open` gives a directory opened to write, with
///   its code).
pub fn atomic_write(
    path: impl AsRef<Path>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    replace(
        path.as_ref(),
        |file| {
            let mut out = BufWriter::with_capacity(CHUNK, file);
            write(&mut out)?;
            out.flush()
        },
        |_| Ok(()),
    )
    .map(drop)
}

/// [`atomic_write`], for a writer that fills the file itself (`fill`,
/// given the temporary file, or the device) and may act on it once
/// filled, before it takes `path`'s place (`before`): returns the file
/// that is now at `path`, or `None` for a device or FIFO. A regular file
/// that processes have open for writing as a [shared filter](crate::docs::shared)
/// is not replaced: an error of kind [`io::ErrorKind::ResourceBusy`].
pub(crate) fn replace(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
    before: impl FnOnce(&File) -> io::Result<()>,
) -> io::Result<Option<File>> {
    // What the path names once the kernel has followed every link (the
    // magic links of `/proc` included, which cannot be followed by hand).
    let existing = match std::fs::metadata(path) {
        Ok(metadata) => Some(metadata),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(metadata) = &existing {
        if metadata.is_dir() {
            // On Unix, the error `open` gives a directory opened to write
            // (EISDIR), with its code as every other failure here has;
            // elsewhere, our own.
            #[cfg(unix)]
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
            #[cfg(not(unix))]
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("{} is a directory", path.display()),
            ));
        }
        if !metadata.is_file() {
            let mut device = std::fs::OpenOptions::new().write(true).open(path)?;
            fill(&mut device)?;
            return Ok(None);
        }
        refuse_if_shared(path)?;
    }
    // A regular file or nothing: replaced or created where the links lead.
    let path = follow_links(path)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // The temporary file is opened by our own `open` (tempfile names it,
    // retries on a clash and removes it on failure), so that a failure to
    // create it (a missing or read-only directory) is the OS's own error
    // with its code: tempfile's constructors wrap that error in a message
    // naming the temporary file, which the caller never asked for, and
    // keep only its kind.
    let mut temp = tempfile::Builder::new().make_in(dir, |path| {
        let mut options = File::options();
        // A new file only (O_EXCL): a path raced into place is a clash,
        // never opened. Readable too: a shared file is locked and mapped
        // through it (`replace`).
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(path)
    })?;
    fill(temp.as_file_mut())?;
    // A temporary file is created readable by its owner only; give the
    // result the permissions of the file it replaces, or the usual ones of
    // a data file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions =
            existing.map_or(std::fs::Permissions::from_mode(0o644), |m| m.permissions());
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    before(temp.as_file())?;
    let file = temp.persist(&path).map_err(|e| e.error)?;
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    Ok(Some(file))
}

/// An error if a process has the regular file at `path` open for writing
/// as a shared filter: replacing it would leave that process on the old
/// file, apart from every process that opens the new one.
fn refuse_if_shared(path: &Path) -> io::Result<()> {
    #[cfg(all(target_os = "linux", not(loom)))]
    if let Ok(file) = File::open(path)
        && super::lock::has_writers(&file)?
    {
        return Err(io::Error::new(
            io::ErrorKind::ResourceBusy,
            format!(
                "{} is a shared filter that a process has open for writing: close it before replacing it",
                path.display()
            ),
        ));
    }
    let _ = path;
    Ok(())
}

/// `path` with symbolic links in its last component followed to the final
/// target, which need not exist (up to 40 links, as Linux allows).
fn follow_links(path: &Path) -> io::Result<std::path::PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: too many levels of symbolic links", path.display()),
    ))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_file() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("data");
        atomic_write(&path, |out| out.write_all(b"hello"))?;
        assert_eq!(std::fs::read(&path)?, b"hello");
        let failed = atomic_write(&path, |out| {
            out.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path)?, b"hello");
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }
}
