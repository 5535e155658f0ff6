//! `merge`: the union of compatible filter files.

use crate::filter_file::{Filter, name};
use crate::keys::is_stdio;
use anyhow::{Context, Result, bail};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The filter files to merge: same size, k, layout and seed. One of
    /// them may be `-`, stdin.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the union, as `build --output`.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let Some((first, rest)) = args.inputs.split_first() else {
        bail!("no input files");
    };
    if args.inputs.iter().filter(|path| is_stdio(path)).count() > 1 {
        bail!("stdin holds one filter: give the others as files");
    }
    let union = Filter::load_plain(first, "merge")?;
    for path in rest {
        let other = Filter::load_plain(path, "merge")?;
        union.par_union(&other).with_context(|| {
            format!(
                "cannot merge {} into {} (build every filter to merge with the same --expected, \
                 --fpp, --layout and --seed)",
                name(path),
                name(first)
            )
        })?;
    }
    let summary = format!(
        "{} bits set, {}",
        union.par_count_ones(),
        crate::info::describe_len(union.estimated_len())
    );
    crate::output::save(&Filter::Plain(union), &args.output)?;
    eprintln!(
        "merged {} into {}: {summary}",
        crate::output::counted(args.inputs.len() as u64, "filter"),
        args.output.display(),
    );
    Ok(())
}
