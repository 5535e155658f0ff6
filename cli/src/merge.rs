//! `merge`: compatible filter files into one. Plain filters are ORed (the
//! union of their keys); counting filters are added counter by counter (the
//! sum of their inserts, each counter saturating at 15), so the filters of a
//! partitioned build merge into the filter of all of it.

use crate::filter_file::{self, kind_name, name};
use crate::info::describe_len;
use crate::keys::is_stdio;
use crate::output::counted;
use anyhow::{Context, Result, bail};
use atomic_bloom::{Membership, SavedFilter};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The filter files to merge, all plain or all counting: same size, k,
    /// layout and seed. One of them may be `-`, stdin.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the result, as `build --output`.
    #[arg(short, long)]
    output: PathBuf,
}

/// How far the merged filter's estimated rate may exceed the highest
/// input's before `merge` warns: merging a filter with itself, or with one
/// of the same keys, changes nothing.
const RATE_SLACK: f64 = 1.1;

/// The filter file at `path`, if of a kind that merges.
fn load(path: &Path) -> Result<SavedFilter> {
    let filter = filter_file::load(path)?;
    match filter {
        SavedFilter::Bloom(_)
        | SavedFilter::Parquet(_)
        | SavedFilter::Spark(_)
        | SavedFilter::Counting(_) => Ok(filter),
        other => bail!(
            "{} holds a {} filter; merge takes plain or counting filters",
            name(path),
            kind_name(other.kind())
        ),
    }
}

/// What `merge` reports of the merged filter: its set cells and its
/// estimated keys.
fn summary(filter: &SavedFilter) -> String {
    let set = match filter {
        SavedFilter::Bloom(f) => format!("{} bits set", f.par_count_ones()),
        SavedFilter::Parquet(f) => format!("{} bits set", f.par_count_ones()),
        SavedFilter::Spark(f) => format!("{} bits set", f.par_count_ones()),
        SavedFilter::Counting(f) => counted(f.nonzero_counters(), "counter") + " above 0",
        other => unreachable!("merge loads no {} filter", other.kind()),
    };
    format!("{set}, {}", describe_len(filter.estimated_len()))
}

pub fn run(args: Args) -> Result<()> {
    let Some((first, rest)) = args.inputs.split_first() else {
        bail!("no input files");
    };
    if args.inputs.iter().filter(|path| is_stdio(path)).count() > 1 {
        bail!("stdin holds one filter: give the others as files");
    }
    let merged = load(first)?;
    // The highest rate among the inputs: a file does not record the rate
    // it was sized for, so each input's estimate stands for its target.
    let mut input_rate = merged.estimated_false_positive_rate();
    for path in rest {
        let other = load(path)?;
        input_rate = input_rate.max(other.estimated_false_positive_rate());
        let combined = match (&merged, &other) {
            (SavedFilter::Bloom(into), SavedFilter::Bloom(from)) => into.par_union(from),
            (SavedFilter::Parquet(into), SavedFilter::Parquet(from)) => into.par_union(from),
            (SavedFilter::Spark(into), SavedFilter::Spark(from)) => into.par_union(from),
            (SavedFilter::Counting(into), SavedFilter::Counting(from)) => into.par_union(from),
            (SavedFilter::Parquet(_), SavedFilter::Bloom(_))
            | (SavedFilter::Bloom(_), SavedFilter::Parquet(_)) => bail!(
                "{} and {} hash keys differently (one as Parquet does, from a Parquet file, the \
                 other by wyhash): merge takes filters of one hasher",
                name(first),
                name(path)
            ),
            _ => bail!(
                "{} holds a {} filter and {} a {} one; merge takes filters of one kind",
                name(first),
                kind_name(merged.kind()),
                name(path),
                kind_name(other.kind())
            ),
        };
        combined.with_context(|| {
            format!(
                "cannot merge {} into {} (build every filter to merge with the same --expected, \
                 --fpp, --layout and --seed)",
                name(path),
                name(first)
            )
        })?;
    }
    let rate = merged.estimated_false_positive_rate();
    let summary = summary(&merged);
    crate::output::save(&merged, &args.output)?;
    eprintln!(
        "merged {} into {}: {summary}; estimated false-positive rate {rate:.3e}",
        counted(args.inputs.len() as u64, "filter"),
        args.output.display(),
    );
    // Merging filters of different keys adds their keys into one array of
    // the same size: its rate rises above each input's. Past a tenth more
    // (estimates of one filter's rate vary by less), say so.
    if rate > input_rate * RATE_SLACK {
        eprintln!(
            "atomic-bloom: warning: the merged filter's estimated false-positive rate, \
             {rate:.3e}, is above every input's (at most {input_rate:.3e}): it holds more keys \
             than the inputs were sized for; to keep their rate, build one filter from all the \
             keys with a larger --expected"
        );
    }
    Ok(())
}
