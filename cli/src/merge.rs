//! `merge`: the union of compatible filter files.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The filter files to merge: same size, k, layout and seed.
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
    let union = crate::load(first)?;
    for path in rest {
        let other = crate::load(path)?;
        union.par_union(&other).with_context(|| {
            format!(
                "cannot merge {} into {} (build every filter to merge with the same --expected, \
                 --fpp, --layout and --seed)",
                path.display(),
                first.display()
            )
        })?;
    }
    crate::output::save(&union, &args.output)?;
    eprintln!(
        "merged {} filters into {}: {} bits set, {}",
        args.inputs.len(),
        args.output.display(),
        union.par_count_ones(),
        crate::info::describe_len(&union)
    );
    Ok(())
}
