//! Writing a filter, printing reports, and stopping cleanly on Ctrl-C or
//! SIGTERM.
//!
//! `-o -` writes the filter to stdout. Any other path goes through the
//! library's `atomic_write`: a regular file (or none) is replaced
//! atomically by a temporary file renamed over it, a symbolic link is
//! followed and its target replaced, a device or FIFO is written as a
//! stream, a directory is refused.
//!
//! A signal before the save begins ends the process at once: nothing has
//! been written, and the spooled inputs are anonymous files that vanish
//! with it. A signal during the save makes the next write fail, so the
//! save returns an error, the temporary file's own cleanup removes it, and
//! the old file (if any) stays: an interrupted build leaves nothing behind.
//! (A signal that arrives after the last byte is written finds the save
//! complete; the new file stands and the command finishes.) One atomic
//! state decides which case a signal is in, so a signal and the start of a
//! save cannot both believe they came first.

use crate::filter_file::Filter;
use anyhow::{Context, Result};
use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::SeqCst};

/// Where the process stands with respect to signals; one atomic, so that
/// a signal and the start of a save cannot both think they came first.
static STATE: AtomicU8 = AtomicU8::new(IDLE);
/// No save under way: a signal ends the process.
const IDLE: u8 = 0;
/// A save is under way: a signal stops it instead.
const SAVING: u8 = 1;
/// A signal arrived during the save: its next write fails.
const STOPPING: u8 = 2;
/// A signal is ending the process: no save may start.
const EXITING: u8 = 3;

/// The exit status of a process ended by SIGINT, by shell convention.
pub const INTERRUPTED_STATUS: u8 = 130;

/// Why a command stopped early on a signal.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; nothing was written")]
pub struct Interrupted;

/// Handles SIGINT and SIGTERM for the rest of the process.
pub fn handle_signals() -> Result<()> {
    ctrlc::set_handler(|| {
        // SeqCst throughout: one total order of the state's changes is
        // the whole argument, and none of this is on a hot path.
        if STATE
            .compare_exchange(IDLE, EXITING, SeqCst, SeqCst)
            .is_ok()
        {
            eprintln!("atomic-bloom: {Interrupted}");
            std::process::exit(i32::from(INTERRUPTED_STATUS));
        }
        // A save is under way (or already stopping): stop it.
        STATE.store(STOPPING, SeqCst);
    })
    .context("cannot install the signal handler")
}

/// Writes `filter` to `path` (`-`: stdout), as the module docs say.
pub fn save(filter: &Filter, path: &Path) -> Result<()> {
    if STATE
        .compare_exchange(IDLE, SAVING, SeqCst, SeqCst)
        .is_err()
    {
        // A signal is ending the process; start nothing it would leave.
        return Err(Interrupted.into());
    }
    let written = if crate::keys::is_stdio(path) {
        let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
        filter
            .write_to(&mut StopOnSignal(&mut out))
            .and_then(|()| out.flush())
    } else {
        atomic_bloom::atomic_write(path, |out| filter.write_to(&mut StopOnSignal(out)))
    };
    // A signal after the last write found the save complete: it stands.
    if STATE.swap(IDLE, SeqCst) == STOPPING && written.is_err() {
        return Err(Interrupted.into());
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}

/// A writer that fails once a signal has arrived.
struct StopOnSignal<W>(W);

impl<W: Write> Write for StopOnSignal<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if STATE.load(SeqCst) == STOPPING {
            // Not `ErrorKind::Interrupted`, which `write_all` retries.
            return Err(io::Error::other(Interrupted));
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// `n` and `noun`, plural unless `n` is 1: "1 key", "3 keys".
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What a failure to print to stdout says it failed at.
pub const CANNOT_WRITE_STDOUT: &str = "cannot write to stdout";

/// Prints a line of a report (`info`, `demo`, `bench`) to stdout, as
/// `println!` does, except that a stdout that cannot be written ends the
/// process rather than panicking: see [`print_line`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::print_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// Writes `line` and a newline to stdout. If stdout's reader has gone
/// (`atomic-bloom info f.abf | head -1`), the process ends quietly with
/// status 0, as ripgrep does: nothing more can be shown, and a report
/// leaves nothing behind to clean up. Any other failure (`> /dev/full`)
/// ends it with the usual one-line error and status 2.
pub fn print_line(line: fmt::Arguments<'_>) {
    if let Err(error) = writeln!(io::stdout().lock(), "{line}") {
        if error.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("atomic-bloom: error: {CANNOT_WRITE_STDOUT}: {error}");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plural_unless_one() {
        assert_eq!(counted(0, "key"), "0 keys");
        assert_eq!(counted(1, "key"), "1 key");
        assert_eq!(counted(2, "sub-filter"), "2 sub-filters");
    }
}
