//! `query`: which keys may be in a filter, as text for pipelines.

use crate::filter_file;
use crate::keys::{self, Inputs};
use crate::output;
use anyhow::{Context, Result};
use atomic_bloom::{AnyFilter, Membership};
use rayon::prelude::*;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The filter file (of any kind), `-` for stdin (then the keys come
    /// from files).
    filter: PathBuf,
    /// Files of newline-delimited keys, `-` for stdin; none reads stdin.
    inputs: Vec<PathBuf>,
    /// Print only the keys that may be present, one per line.
    #[arg(long, conflicts_with = "absent")]
    present: bool,
    /// Print only the keys that are certainly absent, one per line.
    #[arg(long)]
    absent: bool,
    /// Print nothing; only the exit status tells (0: all present, 1: not).
    #[arg(short, long, conflicts_with_all = ["present", "absent"])]
    quiet: bool,
}

/// Without `--present`, `--absent` or `--quiet`, each key is printed as
/// `present<TAB>key` or `absent<TAB>key`.
pub fn run(args: Args) -> Result<ExitCode> {
    let inputs = Inputs::new(&args.inputs);
    let filter = filter_file::load_beside(&args.filter, &inputs, false)?;
    let bar = keys::progress(inputs.total_bytes(), "querying");
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut all_present = true;
    let written = inputs
        .for_each_chunk(&bar, |chunk| {
            let hits = match &filter {
                AnyFilter::Saved(filter) => filter.par_contains(chunk),
                // A line is its bytes, as Guava's `stringFunnel(UTF_8)`
                // and `byteArrayFunnel` feed them.
                AnyFilter::Guava(filter) => {
                    chunk.par_iter().map(|key| filter.contains(key)).collect()
                }
            };
            all_present &= hits.iter().all(|&hit| hit);
            if args.quiet {
                return Ok(());
            }
            for (key, hit) in chunk.iter().zip(hits) {
                print_key(&mut out, key.0, hit, &args).context(output::CANNOT_WRITE_STDOUT)?;
            }
            Ok(())
        })
        .and_then(|_| out.flush().context(output::CANNOT_WRITE_STDOUT));
    bar.finish_and_clear();
    match written {
        // A reader that stopped early (`| head`) is not an error.
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) => {}
        other => other?,
    }
    Ok(if all_present {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Prints `key`'s line, if the flags ask for it.
fn print_key(out: &mut impl Write, key: &[u8], hit: bool, args: &Args) -> io::Result<()> {
    match (hit, args.present, args.absent) {
        (true, true, _) | (false, _, true) => out.write_all(key)?,
        (_, false, false) => {
            out.write_all(if hit { b"present\t" } else { b"absent\t" })?;
            out.write_all(key)?;
        }
        _ => return Ok(()),
    }
    out.write_all(b"\n")
}
