//! Writing a filter, and stopping cleanly on Ctrl-C or SIGTERM.
//!
//! `-o -` writes the filter to stdout. Any other path goes through the
//! library's `persist::atomic_write`: a regular file (or none) is replaced
//! atomically by a temporary file renamed over it, a symbolic link is
//! followed and its target replaced, a device or FIFO is written as a
//! stream, a directory is refused.
//!
//! A signal before the save begins ends the process at once: nothing has
//! been written, and the spooled inputs are anonymous files that vanish
//! with it. A signal during the save makes the next write fail, so the
//! save returns an error, the temporary file's own cleanup removes it, and
//! the old file (if any) stays: an interrupted build leaves nothing behind.

use anyhow::{Context, Result};
use atomic_bloom::AtomicBloom;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// Set while a save is under way: a signal then stops the save instead of
/// the process.
static SAVING: AtomicBool = AtomicBool::new(false);
/// Set by a signal that arrived during a save.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit status of a process ended by SIGINT, by shell convention.
pub const INTERRUPTED_STATUS: u8 = 130;

/// Why a command stopped early on a signal.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; nothing was written")]
pub struct Interrupted;

/// Handles SIGINT and SIGTERM for the rest of the process.
pub fn handle_signals() -> Result<()> {
    ctrlc::set_handler(|| {
        // SeqCst on both flags: a signal that finds SAVING clear ends the
        // process before the save can create its temporary file; one that
        // finds it set is seen by the save's next write.
        if SAVING.load(SeqCst) {
            INTERRUPTED.store(true, SeqCst);
        } else {
            eprintln!("atomic-bloom: {Interrupted}");
            std::process::exit(i32::from(INTERRUPTED_STATUS));
        }
    })
    .context("cannot install the signal handler")
}

/// Writes `filter` to `path` (`-`: stdout), as the module docs say.
pub fn save(filter: &AtomicBloom, path: &Path) -> Result<()> {
    SAVING.store(true, SeqCst);
    let written = if path.as_os_str() == "-" {
        let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
        filter
            .write_to(StopOnSignal(&mut out))
            .and_then(|()| out.flush())
    } else {
        atomic_bloom::persist::atomic_write(path, |out| filter.write_to(StopOnSignal(out)))
    };
    SAVING.store(false, SeqCst);
    if INTERRUPTED.load(SeqCst) && written.is_err() {
        return Err(Interrupted.into());
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}

/// A writer that fails once a signal has arrived.
struct StopOnSignal<W>(W);

impl<W: Write> Write for StopOnSignal<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if INTERRUPTED.load(SeqCst) {
            // Not `ErrorKind::Interrupted`, which `write_all` retries.
            return Err(io::Error::other(Interrupted));
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
