//! `atomic-bloom-harness`: the lab beside the product. `bench` measures
//! the filters side by side with their peers (fastbloom, lock-wrapped
//! filters) and the machine's limits, in the ratios `BENCHMARKS.md`
//! records; `demo` deduplicates synthetic URLs on every core and reports
//! accuracy and speed. The user's command-line tool (`cli/`) carries
//! neither, nor their dependencies.
//!
//! Every failure prints one line, `atomic-bloom-harness: error: ...`, and
//! exits with status 2.

mod bench;
mod demo;
mod load;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// atomic-bloom's benchmark and demo.
#[derive(Parser)]
#[command(name = "atomic-bloom-harness", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Deduplicate 10M synthetic URLs on every core and report accuracy and speed.
    Demo(demo::Args),
    /// The headline benchmark: this filter against locks, fastbloom and hardware limits.
    Bench(bench::Args),
    /// A worker process of `bench --shared` (started by it).
    #[cfg(target_os = "linux")]
    #[command(hide = true)]
    SharedWorker(bench::shared::WorkerArgs),
}

/// Prints a line of a report to stdout; a reader that has gone (`| head`)
/// ends the process quietly, as nothing more can be shown.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}
pub(crate) use say;

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Demo(args) => demo::run(args),
        Command::Bench(args) => bench::run(args),
        #[cfg(target_os = "linux")]
        Command::SharedWorker(args) => bench::shared::worker(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("atomic-bloom-harness: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
