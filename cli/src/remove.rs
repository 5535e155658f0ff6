//! `remove`: take keys out of a counting filter.

use crate::filter_file::{self, Filter};
use crate::keys::{self, Inputs, is_stdio};
use crate::output;
use anyhow::{Result, bail};
use rayon::prelude::*;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The counting filter file (from `build --counting`), `-` for stdin
    /// (then the keys come from files, and `--output` says where the result
    /// goes).
    filter: PathBuf,
    /// Files of newline-delimited keys to remove, `-` for stdin; none
    /// reads stdin.
    inputs: Vec<PathBuf>,
    /// Where to write the result, as `build --output`; by default the
    /// filter file itself is replaced (atomically).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Remove every key without checking that it is present. A key that
    /// was never inserted then takes counts from other keys, which may
    /// vanish (false negatives); only for inputs known to hold inserted
    /// keys.
    #[arg(long)]
    unchecked: bool,
}

/// By default each key is removed only if the filter reports it present
/// when it is checked, and every occurrence of a key is checked and removed
/// in input order (`par_remove_checked`), so a key listed more often than
/// it was inserted is not removed again once it is gone. The check cannot
/// tell a false positive from a key: a never-inserted key that is one (at
/// the filter's rate) is removed, taking counts from other keys, so the
/// input should list only keys that were inserted.
pub fn run(args: Args) -> Result<()> {
    if is_stdio(&args.filter) && args.output.is_none() {
        bail!("a filter read from stdin cannot be replaced: give --output (`-o -` for stdout)");
    }
    let inputs = Inputs::new(&args.inputs);
    let filter = match Filter::load_beside(&args.filter, &inputs)? {
        Filter::Counting(filter) => filter,
        other => bail!(
            "{} holds a {} filter, whose keys cannot be removed; build a counting \
             filter with `build --counting`",
            filter_file::name(&args.filter),
            other.kind_name()
        ),
    };
    let bar = keys::progress(inputs.total_bytes(), "removing");
    let mut removed = 0;
    let read = inputs.for_each_chunk(&bar, |chunk| {
        removed += if args.unchecked {
            filter.par_remove(chunk.par_iter())
        } else {
            filter.par_remove_checked(chunk.par_iter())
        };
        Ok(())
    })?;
    bar.finish_and_clear();
    let output = args.output.as_ref().unwrap_or(&args.filter);
    let saturated = filter.saturated_counters();
    let filter = Filter::Counting(filter);
    output::save(&filter, output)?;
    let absent = read - removed as u64;
    eprintln!(
        "removed from {}: {} read, {removed} removed, {absent} not present{}",
        output.display(),
        output::counted(read, "key"),
        if args.unchecked && absent > 0 {
            " (their counters were decremented all the same: other keys may now be missing)"
        } else if absent > 0 {
            " (left alone; a key never inserted but reported present, at the filter's \
             false-positive rate, is removed all the same and takes counts from other keys)"
        } else {
            ""
        }
    );
    if saturated > 0 {
        eprintln!(
            "atomic-bloom: warning: {saturated} counters are saturated (at 15); keys on them \
             are never removed and stay present"
        );
    }
    Ok(())
}
