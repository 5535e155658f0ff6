//! `dedup`: a streaming `uniq` with a memory of a window. Each input line
//! whose key was not seen within the window is printed as it arrives; the
//! window is a duration (`--window 1h`) or a number of keys
//! (`--window-keys`), kept by the library's windowed filter, and `--state`
//! carries it across restarts.
//!
//! A line repeated within the window is dropped (or, as any Bloom filter
//! answers, a new line is dropped with the filter's false-positive rate);
//! each occurrence, printed or not, starts the key's window again, so a
//! key that keeps coming back within the window is printed once.
//!
//! Lines arrive as they are read ([`stream`]), so a line is printed as
//! soon as it is read. Ctrl-C and SIGTERM reach the main thread as one
//! more event after the lines read before them: those are processed and
//! printed, the state saved, and the process ends with status 130 (143 for SIGTERM). Every
//! line printed is in the saved state and every line in it was printed.

use crate::keys::is_stdio;
use crate::output::{self, counted};
use crate::stream::{self, Event};
use anyhow::{Context, Result, bail};
use atomic_bloom::{AtomicWindowedBloom, Clock, ManualClock, WhenFull, Window};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Files of lines, `-` for stdin; none reads stdin.
    inputs: Vec<PathBuf>,
    /// Drop a line seen within this long: `90s`, `15m`, `1h`, `1h 30m`,
    /// `7days`.
    #[arg(long, value_parser = humantime::parse_duration, conflicts_with = "window_keys")]
    window: Option<Duration>,
    /// Drop a line seen within the last this many distinct lines.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    window_keys: Option<u64>,
    /// How many distinct lines may arrive within one `--window` of time,
    /// at most [default: 1000000]. The window is kept in g - 1 generations
    /// of `--window / (g - 1)` each, each sized for `--expected / (g - 1)`
    /// lines: when more than that arrive within a generation's time (a
    /// burst, or a whole file read without `--timestamps`), the generation
    /// fills early, and `--when-full` says what then happens.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    expected: Option<u64>,
    /// What a generation of a `--window` does when it fills before its
    /// time is up. `rotate`: start the next one early, so the rate holds
    /// and no new line is dropped for it, but lines may leave the window
    /// early and print again. `keep-filling`: keep the window whole, at the
    /// cost of the rate, which rises and drops new lines as seen. Applies to
    /// a loaded `--state` too. Either way a warning goes to stderr the
    /// moment a generation fills early.
    #[arg(long, value_enum, default_value_t = WhenFullArg::Rotate)]
    when_full: WhenFullArg,
    /// The false-positive rate over the window: new lines dropped as seen.
    #[arg(long, default_value_t = 0.01, allow_negative_numbers = true)]
    rate: f64,
    /// Generations the window is kept in (2 to 64): a key is kept at least
    /// the window and at most g / (g - 1) of it.
    #[arg(long)]
    generations: Option<u32>,
    /// Keep the window in this file: read at the start if it exists, saved
    /// (atomically) at the end of the input and on Ctrl-C or SIGTERM.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Each line starts with its time, in seconds since the Unix epoch
    /// (fractions allowed), and a tab; the rest is the key. A time window
    /// goes by these times (a replay), never backwards.
    #[arg(long)]
    timestamps: bool,
}

/// `--when-full`: the library's [`WhenFull`], as the flag spells it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum WhenFullArg {
    Rotate,
    KeepFilling,
}

impl From<WhenFullArg> for WhenFull {
    fn from(arg: WhenFullArg) -> WhenFull {
        match arg {
            WhenFullArg::Rotate => WhenFull::Rotate,
            WhenFullArg::KeepFilling => WhenFull::KeepFilling,
        }
    }
}

/// Counts for the closing line.
#[derive(Default)]
struct Tally {
    lines: u64,
    printed: u64,
    /// Generations filled early when stderr was last told.
    filled_early: u64,
}

pub fn run(args: Args) -> Result<()> {
    if args.window.is_none() && args.window_keys.is_none() && args.state.is_none() {
        bail!(
            "dedup needs a window: --window DURATION (of time, e.g. 1h) or --window-keys N (the \
             last N distinct lines), or the --state FILE of an earlier run"
        );
    }
    if !(args.rate > 0.0 && args.rate < 1.0) {
        bail!("--rate must be strictly between 0 and 1, not {}", args.rate);
    }
    if let Some(path) = &args.state {
        if is_stdio(path) {
            bail!("--state must be a file: it is read at the start and written at the end");
        }
        output::refuse_output_among_inputs(path, "--state", &args.inputs)?;
    }
    let incoming = stream::lines_and_signals(args.inputs.clone());
    Dedup::new(args).run(incoming)
}

/// The main thread's state: the window (made when the first key arrives,
/// for a replay, whose clock starts at that key's time), the output.
struct Dedup {
    args: Args,
    filter: Option<AtomicWindowedBloom>,
    /// A replay's clock, at the latest line's time.
    replay: Option<Arc<ManualClock>>,
    out: BufWriter<io::StdoutLock<'static>>,
    tally: Tally,
    /// The reader of the output has gone (`| head`): read no further.
    closed: bool,
}

impl Dedup {
    fn new(args: Args) -> Dedup {
        let replay = args.timestamps.then(|| Arc::new(ManualClock::new()));
        Dedup {
            args,
            filter: None,
            replay,
            out: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
            tally: Tally::default(),
            closed: false,
        }
    }

    fn run(mut self, incoming: Receiver<Event>) -> Result<()> {
        if self.replay.is_none() {
            self.filter = Some(self.open(None)?);
        }
        for event in incoming {
            match event {
                Event::Lines(chunk) => {
                    self.lines(&chunk)?;
                    if self.closed {
                        break;
                    }
                }
                Event::End(result) => {
                    result?;
                    break;
                }
                Event::Signal => {
                    self.flush();
                    let saved = self.save()?;
                    let state = match (&self.args.state, saved) {
                        (Some(path), true) => format!("; state saved to {}", path.display()),
                        (Some(_), false) => "; no line read, state unchanged".to_string(),
                        (None, _) => String::new(),
                    };
                    eprintln!("atomic-bloom: interrupted{state}");
                    std::process::exit(i32::from(output::interrupted_status()));
                }
            }
        }
        self.flush();
        let saved = self.save()?;
        self.summary(saved);
        Ok(())
    }

    /// The window: the state file's if it exists, else a new one from the
    /// flags. A replay's `clock` stands at the first line's time.
    fn open(&self, clock: Option<Arc<dyn Clock>>) -> Result<AtomicWindowedBloom> {
        let args = &self.args;
        if let Some(path) = args.state.as_ref().filter(|p| p.exists()) {
            let loaded = match &clock {
                Some(clock) => AtomicWindowedBloom::load_with_clock(path, clock.clone()),
                None => AtomicWindowedBloom::load(path),
            };
            let mut filter = match loaded {
                Ok(filter) => filter,
                Err(atomic_bloom::ReadError::WrongKind { written, .. }) => bail!(
                    "--state {} holds {written}, not the window dedup keeps",
                    path.display()
                ),
                Err(e) => return Err(crate::filter_file::load_error(path, e)),
            };
            self.check_state(path, &filter)?;
            filter.set_when_full(args.when_full.into());
            return Ok(filter);
        }
        let (window, keys) = match (args.window, args.window_keys) {
            (Some(d), _) => (Window::Duration(d), args.expected.unwrap_or(1_000_000)),
            (None, Some(n)) => (Window::Keys(n), args.expected.unwrap_or(n)),
            (None, None) => bail!(
                "--state {} does not exist yet: give --window or --window-keys to start it",
                args.state
                    .as_deref()
                    .map_or("-".into(), |p| p.display().to_string())
            ),
        };
        let keys = usize::try_from(keys).context("--expected is past this platform's memory")?;
        let mut builder = AtomicWindowedBloom::builder()
            .capacity(keys, args.rate)
            .window(window)
            .when_full(args.when_full.into());
        if let Some(g) = args.generations {
            builder = builder.generations(g);
        }
        if let Some(clock) = clock {
            builder = builder.clock(clock);
        }
        builder.build().context("cannot make the window")
    }

    /// Refuses flags that contradict the state file's window.
    fn check_state(&self, path: &Path, filter: &AtomicWindowedBloom) -> Result<()> {
        let args = &self.args;
        let asked = match (args.window, args.window_keys) {
            (Some(d), _) => Some(Window::Duration(d)),
            (None, Some(n)) => Some(Window::Keys(n)),
            (None, None) => None,
        };
        if let Some(asked) = asked.filter(|&w| w != filter.window()) {
            bail!(
                "--state {} keeps a window of {}, not {}: drop the flag, or start a new state file",
                path.display(),
                describe(filter.window()),
                describe(asked)
            );
        }
        if let Some(g) = args.generations.filter(|&g| g != filter.generations()) {
            bail!(
                "--state {} keeps {} generations, not {g}",
                path.display(),
                filter.generations()
            );
        }
        Ok(())
    }

    /// Prints the lines of `chunk` whose keys the window has not seen, and
    /// adds every key to it.
    fn lines(&mut self, chunk: &[u8]) -> Result<()> {
        for line in chunk.split_inclusive(|&b| b == b'\n') {
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            self.tally.lines += 1;
            let key = match &self.replay {
                Some(clock) => {
                    let (time, key) = split_time(text).with_context(|| {
                        format!(
                            "line {}: --timestamps expects seconds since the Unix epoch, a tab, \
                             then the key",
                            self.tally.lines
                        )
                    })?;
                    if time > clock.now_nanos() {
                        clock.advance(Duration::from_nanos(time - clock.now_nanos()));
                    }
                    key
                }
                None => text,
            };
            if key.is_empty() {
                continue;
            }
            let window = match self.filter.take() {
                Some(window) => window,
                None => {
                    let clock = self.replay.clone().map(|c| c as Arc<dyn Clock>);
                    self.open(clock)?
                }
            };
            let window = self.filter.insert(window);
            // New to the whole window; a seen key is renewed all the same.
            if window.insert(key) {
                self.tally.printed += 1;
                if let Err(e) = self.out.write_all(line) {
                    return self.write_failed(e);
                }
                if !line.ends_with(b"\n")
                    && let Err(e) = self.out.write_all(b"\n")
                {
                    return self.write_failed(e);
                }
            }
        }
        if let Err(e) = self.out.flush() {
            return self.write_failed(e);
        }
        self.warn_if_filled_early();
        Ok(())
    }

    /// Says on stderr, as soon as a chunk of lines made it happen, that
    /// generations filled before their time: lines come faster than
    /// `--expected` says, and `--when-full` is costing the window or the
    /// rate.
    fn warn_if_filled_early(&mut self) {
        let Some(window) = &self.filter else {
            return;
        };
        // The first time, then each time the count doubles: a long stream
        // that keeps outrunning --expected is told so without a line for
        // every generation.
        let early = window.generations_filled_early();
        if early == 0 || early < 2 * self.tally.filled_early {
            return;
        }
        self.tally.filled_early = early;
        let cost = match window.when_full() {
            WhenFull::KeepFilling => format!(
                "the false-positive rate is now about {:.2e} (target {}): new lines are \
                 dropped as seen",
                window.estimated_false_positive_rate(),
                window.target_false_positive_rate()
            ),
            _ => "generations rotate early, so lines leave the window before it ends and \
                  may print again"
                .to_string(),
        };
        eprintln!(
            "atomic-bloom: warning: {} filled early (each sized for {}): lines arrive \
             faster than --expected allows; {cost}; raise --expected",
            counted(early, "generation"),
            counted(window.keys_per_generation(), "line")
        );
    }

    /// A reader that stopped early (`| head`) ends the run quietly; other
    /// write errors fail it.
    fn write_failed(&mut self, error: io::Error) -> Result<()> {
        if error.kind() == io::ErrorKind::BrokenPipe {
            self.closed = true;
            return Ok(());
        }
        Err(error).context(output::CANNOT_WRITE_STDOUT)
    }

    fn flush(&mut self) {
        // Only a reader that has gone fails a flush here: nothing to tell.
        let _ = self.out.flush();
    }

    /// Saves the window to `--state`; whether there was one to save.
    fn save(&self) -> Result<bool> {
        match (&self.args.state, &self.filter) {
            (Some(path), Some(filter)) => {
                // The CLI's one save path: atomic.
                output::save_with(path, |out| filter.write_to(out))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn summary(&self, saved: bool) {
        let Tally { lines, printed, .. } = self.tally;
        let state = match (&self.args.state, saved) {
            (Some(path), true) => format!("; state saved to {}", path.display()),
            _ => String::new(),
        };
        let early = self
            .filter
            .as_ref()
            .map_or(0, AtomicWindowedBloom::generations_filled_early);
        let warning = if early > 0 {
            format!(
                "; {} filled early (raise --expected)",
                counted(early, "generation")
            )
        } else {
            String::new()
        };
        eprintln!(
            "dedup: {} read, {printed} printed{state}{warning}",
            counted(lines, "line")
        );
    }
}

/// The window as messages name it.
fn describe(window: Window) -> String {
    match window {
        Window::Keys(n) => counted(n, "key"),
        Window::Duration(d) => humantime::format_duration(d).to_string(),
        _ => "an unknown kind".to_string(),
    }
}

/// A `--timestamps` line's time, in nanoseconds since the Unix epoch, and
/// its key.
fn split_time(line: &[u8]) -> Option<(u64, &[u8])> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (time, key) = (std::str::from_utf8(&line[..tab]).ok()?, &line[tab + 1..]);
    let (seconds, fraction) = time.split_once('.').unwrap_or((time, ""));
    if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: u64 = seconds.parse().ok()?;
    let nanos: u64 = if fraction.is_empty() {
        0
    } else {
        fraction.parse::<u64>().ok()? * 10u64.pow(9 - fraction.len() as u32)
    };
    Some((seconds.checked_mul(1_000_000_000)?.checked_add(nanos)?, key))
}
