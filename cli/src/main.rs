//! `atomic-bloom`: build, query, inspect and merge Bloom filter files from
//! the shell (the benchmark and the demo are `harness/`).
//!
//! Every failure prints one line, `atomic-bloom: error: ...`, and exits with
//! status 2; `query` exits 0 when every key is present and 1 when some key
//! is absent, like `grep`. Output to a reader that has gone (`| head`) ends
//! a command quietly (`output::print_line`, and `query`'s own writer).

mod build;
mod dedup;
mod filter_file;
mod info;
mod keys;
mod merge;
mod output;
mod query;
mod remove;
// Compiled into the loom model `loom-tests/tests/cli_signals.rs` too,
// whose negative control alone uses its `fault` switch.
#[cfg_attr(loom, allow(dead_code))]
mod save_state;
mod stream;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Lock-free concurrent Bloom filters: build them from key files on every
/// core, query them in pipelines, inspect and merge them; counting filters
/// (`build --counting`) can have keys removed.
///
/// A key is one line of input, without its line ending (`\n` or `\r\n`),
/// hashed by the library's byte encoding (`contains(line)` from Rust
/// finds it); empty lines are skipped, and a line may be at most 16 MiB. Filter files use the versioned format
/// of the atomic-bloom library and are written atomically (temporary file,
/// fsync, rename); Ctrl-C or SIGTERM leaves nothing behind, and says
/// whether the filter was saved. SIGKILL cannot be caught: during a save
/// to a file it leaves the old file intact and a `.tmpXXXXXX` file beside
/// it, to delete.
#[derive(Parser)]
#[command(name = "atomic-bloom", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a filter from newline-delimited keys (files, or stdin).
    Build(build::Args),
    /// Remove keys from a counting filter (built with `build --counting`).
    Remove(remove::Args),
    /// Test keys against a filter; exit 0 if all are present, 1 if not.
    Query(query::Args),
    /// Describe a filter file: parameters, fill and estimated contents.
    Info(info::Args),
    /// Merge compatible filter files into one: plain ones by union, counting ones by adding their counts.
    Merge(merge::Args),
    /// Print each line not seen within a window of time or of keys (a
    /// streaming `uniq` with memory); `--state` keeps the window across runs.
    Dedup(dedup::Args),
}

fn main() -> ExitCode {
    // A bug must still fail in one line, without a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string().replace('\n', " ");
        eprintln!("atomic-bloom: error: internal error: {message}");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    if let Err(error) = output::handle_signals() {
        eprintln!("atomic-bloom: error: {error:#}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Build(args) => build::run(args).map(|()| ExitCode::SUCCESS),
        Command::Remove(args) => remove::run(args).map(|()| ExitCode::SUCCESS),
        Command::Query(args) => query::run(args),
        Command::Info(args) => info::run(args).map(|()| ExitCode::SUCCESS),
        Command::Merge(args) => merge::run(args).map(|()| ExitCode::SUCCESS),
        Command::Dedup(args) => dedup::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(error) if error.is::<save_state::Interrupted>() => {
            eprintln!("atomic-bloom: {error}");
            ExitCode::from(output::interrupted_status())
        }
        Err(error) => {
            eprintln!("atomic-bloom: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// A command line clap refused, as every failure here is told: one line,
/// `atomic-bloom: error: ...`, status 2. Help and the version print as
/// clap prints them, status 0.
fn usage_error(error: &clap::Error) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = error.print();
        return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
    }
    // clap's first paragraph is "error: <what>" (a list of missing
    // arguments on lines of their own); usage and a tip follow it.
    let rendered = error.render().to_string();
    let what: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let what = what.join(" ");
    let what = what.trim_start_matches("error: ");
    eprintln!("atomic-bloom: error: {what} (--help says more)");
    ExitCode::from(2)
}
