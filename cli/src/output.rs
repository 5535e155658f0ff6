//! Writing a filter, printing reports, and stopping cleanly on Ctrl-C or
//! SIGTERM.
//!
//! `-o -` writes the filter to stdout. Any other path goes through the
//! library's `atomic_write`: a regular file (or none) is replaced
//! atomically by a temporary file renamed over it, a symbolic link is
//! followed and its target replaced, a device or FIFO is written as a
//! stream, a directory is refused.
//!
//! A signal ends the process with status 130 (SIGINT) or 143 (SIGTERM)
//! and a line that says what
//! became of the filter (`save_state.rs` has the cases and why exactly one
//! thread reports). Before a save begins, nothing has been written, and
//! the spooled inputs are anonymous files that vanish with the process.
//! During a save to a file, the save's next write fails, so the save
//! returns an error, the temporary file's own cleanup removes it, and the
//! old file (if any) stays: an interrupted build leaves nothing behind. A
//! signal that arrives after the last byte is written finds the file
//! complete, and says so. A stream cannot be taken back, so a signal
//! during a save to one ends the process at once, even if a write is
//! blocked on a reader that has stopped reading.

use crate::save_state::{Interrupted, OnSignal, SaveState, Step, Target};
use anyhow::{Context, Result};
use atomic_bloom::SavedFilter;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::AtomicI32;
use std::sync::atomic::Ordering::Relaxed;

#[cfg(not(loom))]
static STATE: SaveState = SaveState::new();
// Under loom the CLI is only compiled (for its lints), never run.
#[cfg(loom)]
loom::lazy_static! {
    static ref STATE: SaveState = SaveState::new();
}

/// The signal that interrupted the process (SIGINT's number until one
/// comes), for its exit status.
static SIGNAL: AtomicI32 = AtomicI32::new(SIGINT);
const SIGINT: i32 = 2;

/// The exit status of a process a signal ended: 128 plus the signal's
/// number, as shells report it (130 for SIGINT, 143 for SIGTERM).
pub fn interrupted_status() -> u8 {
    // ORDERING: Relaxed; the signal thread stores the number before it
    // acts on the signal, and every reader is that thread or a thread that
    // learned of the signal through a channel (`stream.rs`), which orders
    // the store before the load. Not model-checked: a number, no protocol.
    let signal = SIGNAL.load(Relaxed);
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interrupted::NothingSaved => "interrupted; no filter was saved",
            Interrupted::StreamCutShort => {
                "interrupted; the filter being written out is incomplete"
            }
            Interrupted::Saved => "interrupted after the filter was saved",
        })
    }
}

impl std::error::Error for Interrupted {}

/// Where a command that handles its own signals (`dedup`, which saves its
/// state on Ctrl-C) has them sent, set once.
static SIGNAL_ROUTE: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

/// Sends every later SIGINT and SIGTERM to `route` instead of ending the
/// process: for a command that must finish what it has read and save
/// before it ends (and then ends with [`interrupted_status`] itself).
pub fn route_signals(route: Box<dyn Fn() + Send + Sync>) {
    // Set once per process, by the one command that runs.
    let _ = SIGNAL_ROUTE.set(route);
}

/// What a signal does: goes where a command routed it, or ends the process.
fn signalled(signal: i32) {
    // ORDERING: Relaxed, as `interrupted_status` says.
    SIGNAL.store(signal, Relaxed);
    match SIGNAL_ROUTE.get() {
        Some(route) => route(),
        None => on_signal(),
    }
}

/// Handles SIGINT and SIGTERM for the rest of the process, on a thread of
/// their own (the handler itself only wakes it).
#[cfg(unix)]
pub fn handle_signals() -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .context("cannot install the signal handler")?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            signalled(signal);
        }
    });
    Ok(())
}

/// Handles Ctrl-C (and termination) for the rest of the process.
#[cfg(not(unix))]
pub fn handle_signals() -> Result<()> {
    ctrlc::set_handler(|| signalled(SIGINT)).context("cannot install the signal handler")
}

/// What a signal does when no command has routed it: ends the process,
/// or stops the save in progress, as the save state decides.
fn on_signal() {
    match STATE.on_signal() {
        OnSignal::Exit(interrupted) => {
            eprintln!("atomic-bloom: {interrupted}");
            std::process::exit(i32::from(interrupted_status()));
        }
        // The save reports when it stops; an earlier signal is in hand.
        OnSignal::StopSave | OnSignal::Ignore => {}
    }
}

/// Refuses an `output` (given by `flag`, which the message names) that is
/// one of `inputs` (the same file by another
/// name too: a hard link, a symlink, `./keys.txt`), before anything is
/// read or written: replacing it would destroy an input (`build keys.txt
/// -o keys.txt` would leave a filter where the keys were). `-` (stdio),
/// paths that do not exist yet, and what is not a regular file (a FIFO, a
/// device: written as a stream, never replaced) are never compared.
pub fn refuse_output_among_inputs<'a>(
    output: &Path,
    flag: &str,
    inputs: impl IntoIterator<Item = &'a PathBuf>,
) -> Result<()> {
    // Only a regular file can be replaced, and only one can be compared
    // by opening it: opening a FIFO to compare it would block until a
    // writer came (or take bytes meant for the command). `metadata`
    // follows symlinks without opening anything.
    let regular = |path: &Path| std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if crate::keys::is_stdio(output) || !regular(output) {
        return Ok(());
    }
    for input in inputs {
        if crate::keys::is_stdio(input) || !regular(input) {
            continue;
        }
        if same_file::is_same_file(output, input).unwrap_or(false) {
            anyhow::bail!(
                "the output {} is the same file as the key input {}: writing it would destroy \
                 an input; choose another {flag}",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Writes `filter` to `path` (`-`: stdout), as the module docs say.
pub fn save(filter: &SavedFilter, path: &Path) -> Result<()> {
    save_with(path, |out| filter.write_to(out))
}

/// [`save`] of whatever `write` writes (a filter's `write_to`).
pub fn save_with(path: &Path, write: impl Fn(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let stdout = crate::keys::is_stdio(path);
    // What `atomic_write` writes in place: whatever exists and is neither
    // a regular file nor a directory (which it refuses).
    let in_place = || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let target = if stdout || in_place() {
        Target::Stream
    } else {
        Target::File
    };
    go_on(STATE.begin_save(target))?;
    let written = if stdout {
        // A stream: a signal ends the process, so nothing here stops.
        let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
        write(&mut out).and_then(|()| out.flush())
    } else {
        atomic_bloom::internals::atomic_write(path, |out| write(&mut StopOnSignal(out)))
    };
    go_on(STATE.end_save(written.is_ok()))?;
    written.with_context(|| format!("cannot write {}", path.display()))
}

/// `Ok` to carry on; the interruption to report; or, when the signal
/// thread is reporting and ending the process, no return.
fn go_on(step: Step) -> Result<(), Interrupted> {
    match step {
        Step::Go => Ok(()),
        Step::Report(interrupted) => Err(interrupted),
        // Its `exit` ends this thread too; reporting here as well would
        // print the line twice.
        Step::Ending => loop {
            std::thread::park();
        },
    }
}

/// A writer that fails once a signal asks the save to stop (only a save to
/// a file is asked; `atomic_write`'s streams are wrapped too, as the call
/// does not say which it writes, and never see a stop).
struct StopOnSignal<W>(W);

impl<W: Write> Write for StopOnSignal<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if STATE.stopping() {
            // Not `ErrorKind::Interrupted`, which `write_all` retries.
            return Err(io::Error::other("interrupted"));
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
