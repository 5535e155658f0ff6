//! `merge`: the union of compatible filter files.

use anyhow::{Context, Result, bail};
use atomic_bloom::AtomicBloom;
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
    let load = |path: &PathBuf| {
        AtomicBloom::load(path).with_context(|| format!("cannot load {}", path.display()))
    };
    let Some((first, rest)) = args.inputs.split_first() else {
        bail!("no input files");
    };
    let union = load(first)?;
    for path in rest {
        let other = load(path)?;
        union
            .par_union(&other)
            .with_context(|| format!("cannot merge {} into {}", path.display(), first.display()))?;
    }
    union
        .save(&args.output)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    eprintln!(
        "merged {} filters into {}: {} bits set, about {} keys",
        args.inputs.len(),
        args.output.display(),
        union.par_count_ones(),
        union.estimated_len()
    );
    Ok(())
}
