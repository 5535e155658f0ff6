//! `build`: keys in, filter file out, every core inserting.

use crate::{LayoutArg, keys};
use anyhow::{Context, Result};
use atomic_bloom::AtomicBloom;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Files of newline-delimited keys; none or `-` reads stdin.
    inputs: Vec<PathBuf>,
    /// Where to write the filter (atomically: a crash leaves no torn file).
    #[arg(short, long)]
    output: PathBuf,
    /// Target false-positive rate at the expected number of keys, in (0, 1).
    #[arg(long, default_value_t = 0.01)]
    fpp: f64,
    /// Keys the filter is sized for; by default the input's keys are counted
    /// first (files only: stdin needs this flag).
    #[arg(long)]
    expected: Option<u64>,
    /// Where each key's bits go.
    #[arg(long, value_enum, default_value_t = LayoutArg::Blocked)]
    layout: LayoutArg,
    /// Seed of the key hasher; readers need not know it (it is in the file).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: Args) -> Result<()> {
    let start = Instant::now();
    let expected = match args.expected {
        Some(n) => n,
        None => keys::count(&args.inputs)?.max(1),
    };
    let filter = AtomicBloom::builder()
        .capacity(expected, args.fpp)
        .layout(args.layout.into())
        .seed(args.seed)
        .build()
        .context("invalid filter parameters")?;
    let bar = keys::progress(keys::total_bytes(&args.inputs), "inserting");
    let mut new = 0;
    let read = keys::for_each_chunk(&args.inputs, &bar, |chunk| {
        new += filter.par_insert(chunk.par_iter());
        Ok(())
    })?;
    bar.finish_and_clear();
    crate::save(&filter, &args.output)?;
    eprintln!(
        "built {}: {read} keys read, {new} new; {} layout, {} bits ({:.2} per expected key), k = {}; \
         estimated false-positive rate now {:.3e}; {:.1} s{}",
        args.output.display(),
        filter.layout(),
        filter.num_bits(),
        filter.num_bits() as f64 / expected as f64,
        filter.num_hashes(),
        filter.estimated_fpr(),
        start.elapsed().as_secs_f64(),
        peak_memory()
            .map(|kib| format!(", peak memory {} MiB", kib / 1024))
            .unwrap_or_default(),
    );
    Ok(())
}

/// The process's peak resident memory in KiB (Linux `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
