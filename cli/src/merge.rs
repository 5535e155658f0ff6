//! `merge`: compatible filter files into one. Plain filters are ORed (the
//! union of their keys); counting filters are added counter by counter (the
//! sum of their inserts, each counter saturating at 15), so the filters of a
//! partitioned build merge into the filter of all of it. Spark's and
//! Guava's filters merge too, and are written in their own format.

use crate::filter_file::{self, kind_name, name};
use crate::info::describe_len;
use crate::keys::is_stdio;
use crate::output::counted;
use anyhow::{Context, Result, bail};
use atomic_bloom::{AnyFilter, Membership, SavedFilter};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The filter files to merge, all plain, all counting, all Spark's or
    /// all Guava's: same size, k, layout and seed. One of them may be `-`,
    /// stdin.
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
fn load(path: &Path) -> Result<AnyFilter> {
    let filter = filter_file::load(path)?;
    match &filter {
        AnyFilter::Guava(_)
        | AnyFilter::Saved(
            SavedFilter::Bloom(_)
            | SavedFilter::Parquet(_)
            | SavedFilter::Spark(_)
            | SavedFilter::Counting(_),
        ) => Ok(filter),
        AnyFilter::Saved(other) => bail!(
            "{} holds a {} filter; merge takes plain or counting filters",
            name(path),
            kind_name(other.kind())
        ),
    }
}

/// What `merge` reports of the merged filter: its set cells and its
/// estimated keys.
fn summary(filter: &AnyFilter) -> String {
    let set = match filter {
        AnyFilter::Saved(SavedFilter::Bloom(f)) => format!("{} bits set", f.par_count_ones()),
        AnyFilter::Saved(SavedFilter::Parquet(f)) => format!("{} bits set", f.par_count_ones()),
        AnyFilter::Saved(SavedFilter::Spark(f)) => format!("{} bits set", f.par_count_ones()),
        AnyFilter::Saved(SavedFilter::Counting(f)) => {
            counted(f.nonzero_counters(), "counter") + " above 0"
        }
        // Guava's filter does not estimate its keys.
        AnyFilter::Guava(f) => return format!("{} bits set", f.count_ones()),
        AnyFilter::Saved(other) => unreachable!("merge loads no {} filter", other.kind()),
    };
    format!("{set}, {}", describe_len(rate_and_len(filter).1))
}

/// The filter's estimated false-positive rate and keys.
fn rate_and_len(filter: &AnyFilter) -> (f64, Option<u64>) {
    match filter {
        AnyFilter::Saved(f) => (f.estimated_false_positive_rate(), f.estimated_len()),
        AnyFilter::Guava(f) => (f.estimated_false_positive_rate(), None),
    }
}

/// The kind of filter `filter` is, as messages name it.
fn describe(filter: &AnyFilter) -> &'static str {
    match filter {
        AnyFilter::Saved(f) => kind_name(f.kind()),
        AnyFilter::Guava(_) => "Guava",
    }
}

/// Adds `from`'s keys to `into`, or says why they cannot be.
fn union(into: &AnyFilter, from: &AnyFilter, first: &Path, path: &Path) -> Result<()> {
    use AnyFilter::{Guava, Saved};
    let combined = match (into, from) {
        (Saved(SavedFilter::Bloom(into)), Saved(SavedFilter::Bloom(from))) => into.par_union(from),
        (Saved(SavedFilter::Parquet(into)), Saved(SavedFilter::Parquet(from))) => {
            into.par_union(from)
        }
        (Saved(SavedFilter::Spark(into)), Saved(SavedFilter::Spark(from))) => into.par_union(from),
        (Saved(SavedFilter::Counting(into)), Saved(SavedFilter::Counting(from))) => {
            into.par_union(from)
        }
        (Guava(into), Guava(from)) => into.union(from),
        (Saved(SavedFilter::Parquet(_)), Saved(SavedFilter::Bloom(_)))
        | (Saved(SavedFilter::Bloom(_)), Saved(SavedFilter::Parquet(_))) => bail!(
            "{} and {} hash keys differently (one as Parquet does, from a Parquet file, the \
             other by wyhash): merge takes filters of one hasher",
            name(first),
            name(path)
        ),
        _ => bail!(
            "{} holds a {} filter and {} a {} one; merge takes filters of one kind",
            name(first),
            describe(into),
            name(path),
            describe(from)
        ),
    };
    combined.with_context(|| {
        format!(
            "cannot merge {} into {} (build every filter to merge with the same --expected, \
             --fpp, --layout and --seed)",
            name(path),
            name(first)
        )
    })
}

/// Writes the merged filter: a filter of the JVM's in its own format
/// (Spark's `BloomFilter.readFrom` or Guava's reads it, as every command
/// here does), any other in this crate's.
fn save(filter: &AnyFilter, path: &Path) -> Result<()> {
    match filter {
        AnyFilter::Saved(SavedFilter::Spark(f)) if f.to_spark_bytes().is_ok() => {
            crate::output::save_with(path, |out| f.write_spark(out))
        }
        AnyFilter::Saved(f) => crate::output::save(f, path),
        AnyFilter::Guava(f) => crate::output::save_with(path, |out| f.write_guava(out)),
    }
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
    let mut input_rate = rate_and_len(&merged).0;
    for path in rest {
        let other = load(path)?;
        input_rate = input_rate.max(rate_and_len(&other).0);
        union(&merged, &other, first, path)?;
    }
    let rate = rate_and_len(&merged).0;
    let summary = summary(&merged);
    save(&merged, &args.output)?;
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
