//! `merge`: the union of compatible filter files.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The filter files to merge: same size, k, layout and seed.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the union (atomically).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let Some((first, rest)) = args.inputs.split_first() else {
        bail!("no input files");
    };
    let union = crate::load(first)?;
    for path in rest {
        let other = crate::load(path)?;
        union
            .par_union(&other)
            .with_context(|| format!("cannot merge {} into {}", path.display(), first.display()))?;
    }
    crate::save(&union, &args.output)?;
    eprintln!(
        "merged {} filters into {}: {} bits set, about {} keys",
        args.inputs.len(),
        args.output.display(),
        union.par_count_ones(),
        union.estimated_len()
    );
    Ok(())
}
