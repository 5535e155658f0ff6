//! `remove`: take keys out of a counting filter.
//!
//! A counting filter cannot tell a key it holds from a false positive, nor
//! a key removed already from one never inserted: removing either takes
//! counts that belong to other keys, which may then be reported absent (a
//! false negative). The one sign the filter gives is a key it reports
//! absent, or counts fewer times than it is listed: such a list was not
//! inserted as given (a retried job, whose keys are already gone, is the
//! common case). So by default every key is checked before any is removed,
//! and one failed check refuses the whole list, leaving the file as it was.

use crate::filter_file;
use crate::keys::{self, Inputs, is_stdio};
use crate::output;
use anyhow::{Result, bail};
use atomic_bloom::AtomicCountingBloom;
use atomic_bloom::SavedFilter;
use rayon::prelude::*;
use std::hash::BuildHasher;
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
    /// Remove the keys the filter reports present and skip the others,
    /// instead of refusing the whole list. A key already removed or never
    /// inserted that the filter reports present all the same (a false
    /// positive) is removed too, and takes counts from other keys, which
    /// may then be reported absent.
    #[arg(long, conflicts_with = "unchecked_risking_false_negatives")]
    skip_absent_risking_false_negatives: bool,
    /// Remove every key without checking anything: a key already removed or
    /// never inserted takes counts from other keys, which may then be
    /// reported absent. Only for a list known to hold inserted keys.
    #[arg(long, alias = "unchecked")]
    unchecked_risking_false_negatives: bool,
}

/// What the keys' check found: keys the filter reports absent, and keys
/// listed more times than the filter counts them.
#[derive(Default)]
struct Check {
    absent: u64,
    over_listed: u64,
}

pub fn run(args: Args) -> Result<()> {
    if is_stdio(&args.filter) && args.output.is_none() {
        bail!("a filter read from stdin cannot be replaced: give --output (`-o -` for stdout)");
    }
    // The filter itself is the output by design (an in-place update); a
    // key input is never.
    let output = args.output.as_ref().unwrap_or(&args.filter);
    output::refuse_output_among_inputs(output, "--output", &args.inputs)?;
    let inputs = Inputs::new(&args.inputs);
    let loaded = filter_file::load_beside(&args.filter, &inputs, true)?;
    let filter = match filter_file::saved(loaded, &args.filter, "remove")? {
        SavedFilter::Counting(filter) => filter,
        other => bail!(
            "{} holds a {} filter, whose keys cannot be removed; build a counting \
             filter with `build --counting`",
            filter_file::name(&args.filter),
            filter_file::kind_name(other.kind())
        ),
    };
    // Every key's hash, 8 bytes a key: the list is checked whole before
    // anything changes, and the input may be a stream read once.
    let bar = keys::progress(inputs.total_bytes(), "reading keys");
    let mut hashes = Vec::new();
    let read = inputs.for_each_chunk(&bar, |chunk| {
        hashes.par_extend(chunk.par_iter().map(|key| filter.hasher().hash_one(key)));
        Ok(())
    })?;
    bar.finish_and_clear();
    // Every occurrence of a key side by side: one task checks or removes
    // them all, so no two threads ever remove the same key at once.
    hashes.par_sort_unstable();
    if !args.unchecked_risking_false_negatives && !args.skip_absent_risking_false_negatives {
        let check = check(&filter, &hashes);
        if check.absent + check.over_listed > 0 {
            bail!(
                "nothing removed from {}: of {} read, {} the filter reports absent and {} listed \
                 more often than it counts; such a list was not inserted as given (run before, \
                 or never inserted), and removing it would take counts from other keys, which \
                 could then be reported absent. Pass --skip-absent-risking-false-negatives to \
                 remove only the keys it reports present",
                filter_file::name(&args.filter),
                output::counted(read, "key"),
                output::counted(check.absent, "key"),
                output::counted(check.over_listed, "key"),
            );
        }
    }
    // Checked (skipping absent keys) only with the risky flag: after the
    // whole list passed its check, every key is known present.
    let removed = if args.skip_absent_risking_false_negatives {
        hashes
            .par_chunk_by(|a, b| a == b)
            .map(|same| same.iter().filter(|&&h| filter.remove_hash(h)).count())
            .sum::<usize>() as u64
    } else {
        hashes
            .par_chunks(1 << 16)
            .map(|chunk| filter.remove_hash_batch_unchecked(chunk.iter().copied()))
            .sum::<usize>() as u64
    };
    let saturated = filter.saturated_counters();
    let filter = SavedFilter::Counting(filter);
    output::save(&filter, output)?;
    let absent = read - removed;
    // Named by where the keys were removed from, and where that went when
    // it is not the same file.
    let written = if args.output.is_some() {
        format!(" (saved as {})", output.display())
    } else {
        String::new()
    };
    eprintln!(
        "removed from {}{written}: {} read, {removed} removed, {absent} not present{}",
        filter_file::name(&args.filter),
        output::counted(read, "key"),
        if absent == 0 {
            ""
        } else if args.unchecked_risking_false_negatives {
            " (their counters were decremented all the same: other keys may now be missing)"
        } else {
            " (left alone; any of them the filter reported present, at its false-positive \
             rate, was removed all the same and took counts from other keys)"
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

/// A counter's highest count: it stands for that many or more, and is
/// never decremented (the library's counting-filter chapter).
const SATURATED: u8 = 15;

/// Checks sorted `hashes` against `filter`: each key must be counted at
/// least as often as it is listed (a saturated count, 15, stands for 15 or
/// more and is never decremented, so it passes any number).
fn check(filter: &AtomicCountingBloom, hashes: &[u64]) -> Check {
    hashes
        .par_chunk_by(|a, b| a == b)
        .map(|same| {
            let count = filter.count_of_hash(same[0]);
            let listed = same.len();
            match count {
                0 => Check {
                    absent: listed as u64,
                    over_listed: 0,
                },
                SATURATED => Check::default(),
                n if usize::from(n) < listed => Check {
                    absent: 0,
                    over_listed: 1,
                },
                _ => Check::default(),
            }
        })
        .reduce(Check::default, |a, b| Check {
            absent: a.absent + b.absent,
            over_listed: a.over_listed + b.over_listed,
        })
}
