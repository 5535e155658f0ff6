//! `info`: what a filter file holds.

use anyhow::Result;
use atomic_bloom::FORMAT_VERSION;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The filter file.
    filter: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let filter = crate::load(&args.filter)?;
    let ones = filter.par_count_ones();
    println!("file:               {}", args.filter.display());
    println!("format version:     {FORMAT_VERSION}");
    println!("layout:             {}", filter.layout());
    println!("bits (m):           {}", filter.num_bits());
    println!("hashes per key (k): {}", filter.num_hashes());
    println!(
        "hasher:             wyhash, seed {}",
        filter.hasher().seed()
    );
    println!("memory:             {} bytes", filter.memory_bytes());
    println!(
        "bits set:           {ones} ({:.2}%)",
        100.0 * ones as f64 / filter.num_bits() as f64
    );
    println!("estimated keys:     {}", filter.estimated_len());
    println!("estimated fpr:      {:.3e}", filter.estimated_fpr());
    Ok(())
}
