//! `build`: keys in, filter file out, every core inserting.

use crate::filter_file::Filter;
use crate::keys::Inputs;
use crate::{keys, output};
use anyhow::{Context, Result};
use atomic_bloom::{AtomicBloom, Layout};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Files of newline-delimited keys, `-` for stdin, in any mix; none
    /// reads stdin.
    inputs: Vec<PathBuf>,
    /// Where to write the filter: a file (replaced atomically: a crash
    /// leaves no torn file; a symlink is followed), a device or FIFO
    /// (written as a stream), or `-` for stdout.
    #[arg(short, long)]
    output: PathBuf,
    /// Target false-positive rate at the expected number of keys, in (0, 1).
    #[arg(long, default_value_t = 0.01)]
    fpp: f64,
    /// Keys the filter is sized for; by default the input's keys are counted
    /// first (stdin and pipes are copied to a temporary file to do so).
    #[arg(long)]
    expected: Option<usize>,
    /// Where each key's bits go: standard, blocked, word or sectorized.
    #[arg(long, default_value_t = Layout::default())]
    layout: Layout,
    /// Seed of the key hasher; readers need not know it (it is in the file).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Build a counting filter, from which `remove` can take keys again:
    /// a 4-bit counter per bit, four times the size of a plain filter, with
    /// the same false-positive rate.
    #[arg(long)]
    counting: bool,
}

pub fn run(args: Args) -> Result<()> {
    let start = Instant::now();
    let mut inputs = Inputs::new(&args.inputs);
    let expected = match args.expected {
        Some(n) => n,
        None => usize::try_from(inputs.count_keys()?)
            .unwrap_or(usize::MAX)
            .max(1),
    };
    let builder = AtomicBloom::builder()
        .capacity(expected, args.fpp)
        .layout(args.layout)
        .seed(args.seed);
    let filter = if args.counting {
        builder.build_counting().map(Filter::Counting)
    } else {
        builder.build().map(Filter::Plain)
    }
    .context("invalid filter parameters")?;
    let bar = keys::progress(inputs.total_bytes(), "inserting");
    let mut new = 0;
    let read = inputs.for_each_chunk(&bar, |chunk| {
        new += match &filter {
            Filter::Plain(f) => f.par_insert(chunk.par_iter()),
            Filter::Counting(f) => f.par_insert(chunk.par_iter()),
        };
        Ok(())
    })?;
    bar.finish_and_clear();
    output::save(&filter, &args.output)?;
    let (kind, sizing, estimated_false_positive_rate) = match &filter {
        Filter::Plain(f) => ("", f.sizing(), f.estimated_false_positive_rate()),
        Filter::Counting(f) => ("counting, ", f.sizing(), f.estimated_false_positive_rate()),
    };
    eprintln!(
        "built {}: {read} keys read, {new} new; {kind}{} layout, {} {} ({:.2} per expected key), k = {}; \
         estimated false-positive rate now {estimated_false_positive_rate:.3e}; {:.1} s{}",
        args.output.display(),
        sizing.layout(),
        sizing.num_bits(),
        if args.counting { "counters" } else { "bits" },
        sizing.num_bits() as f64 / expected as f64,
        sizing.num_hashes(),
        start.elapsed().as_secs_f64(),
        peak_memory()
            .map(|kib| format!(", peak memory {} MiB", kib / 1024))
            .unwrap_or_default(),
    );
    if new > expected {
        // `new` counts distinct keys (less the false positives), so the
        // filter certainly holds more keys than it was sized for.
        eprintln!(
            "atomic-bloom: warning: over capacity: {new} distinct keys, more than the {expected} \
             the filter was sized for (--expected); its estimated false-positive rate is \
             {estimated_false_positive_rate:.3e} against the target {}; rebuild with --expected {new} or more",
            args.fpp
        );
    }
    Ok(())
}

/// The process's peak resident memory in KiB (Linux `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
