//! One million queries on a small filter, for counting instructions per
//! query with callgrind (the VM this project runs on has no hardware
//! counters, so `perf stat` cannot):
//!
//! ```text
//! cargo build --release --example query_loop
//! valgrind --tool=callgrind target/release/examples/query_loop blocked      # or word, standard
//! valgrind --tool=callgrind target/release/examples/query_loop blocked 0    # the same without queries
//! valgrind --tool=callgrind target/release/examples/query_loop probe        # hash + one load
//! valgrind --tool=callgrind target/release/examples/query_loop fastbloom    # fastbloom's filter
//! ```
//!
//! The difference of the two `I refs` totals, divided by 1 000 000, is the
//! instructions per query (hash included).

use atomic_bloom::{AtomicBloom, Layout, WyBuildHasher};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let which = args.next();
    let queries: u64 = args.next().map_or(Ok(1_000_000), |a| a.parse())?;
    let layout: Layout = match which.as_deref() {
        Some("probe") => return probe(queries),
        Some("fastbloom") => return fastbloom(queries),
        Some(name) => name.parse()?,
        None => Layout::default(),
    };
    let filter = AtomicBloom::builder()
        .capacity(100_000, 0.01)
        .layout(layout)
        .build()?;
    filter.insert_batch(0..100_000u64);
    let hits = (0..queries).filter(|k| filter.contains(k)).count();
    println!("{layout}: {hits} of {queries} queries hit");
    Ok(())
}

/// The load probe of the benchmarks: hash the key, load one random word.
fn probe(queries: u64) -> Result<(), Box<dyn std::error::Error>> {
    let words: Vec<AtomicU64> = (0..16_384).map(AtomicU64::new).collect();
    let hasher = WyBuildHasher::default();
    let sum = (0..queries).fold(0u64, |acc, k| {
        let hash = hasher.hash_one(k);
        let i = ((u128::from(hash) * words.len() as u128) >> 64) as usize;
        acc ^ words[i].load(Relaxed)
    });
    println!("probe: {queries} loads ({sum})");
    Ok(())
}

/// fastbloom's filter (its bits anywhere, as `Standard`'s), the same keys
/// and queries.
fn fastbloom(queries: u64) -> Result<(), Box<dyn std::error::Error>> {
    let filter = atomic_bloom_baselines::fastbloom(100_000, 0.01);
    (0..100_000u64).for_each(|k| {
        filter.insert(&k);
    });
    let hits = (0..queries).filter(|k| filter.contains(k)).count();
    println!("fastbloom: {hits} of {queries} queries hit");
    Ok(())
}
