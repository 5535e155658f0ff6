//! The main job on its embedded default: build a filter from 10 million
//! generated keys on every core, then measure what it answers.
//!
//! ```text
//! cargo run --release --example demo [-- ITEMS [FPP [standard|blocked|word]]]
//! ```
//!
//! Prints insert and query throughput, checks that no inserted key is
//! missing, and measures the false-positive rate on as many keys that were
//! never inserted, against the target.

use atomic_bloom::{AtomicBloom, Layout};
use std::time::Instant;

/// Keys that were never inserted start here.
const ABSENT: u64 = 1 << 48;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let items: u64 = args.next().map_or(Ok(10_000_000), |a| a.parse())?;
    let fpp: f64 = args.next().map_or(Ok(0.01), |a| a.parse())?;
    let layout = match args.next().as_deref() {
        None | Some("blocked") => Layout::Blocked,
        Some("standard") => Layout::Standard,
        Some("word") => Layout::Word,
        Some(other) => {
            return Err(format!("unknown layout {other:?}: standard, blocked or word").into());
        }
    };
    let threads = std::thread::available_parallelism()?.get() as u64;

    let filter = AtomicBloom::builder()
        .capacity(items, fpp)
        .layout(layout)
        .build()?;
    println!(
        "{layout} filter for {items} keys at p = {fpp}: {:.1} MiB, {:.2} bits/key, k = {}, {threads} threads",
        filter.memory_bytes() as f64 / (1 << 20) as f64,
        filter.num_bits() as f64 / items as f64,
        filter.num_hashes(),
    );

    // Every thread inserts its own slice of the keys into the one filter.
    let (inserted, secs) = on_all_threads(threads, items, |range| {
        range.filter(|i| filter.insert(i)).count() as u64
    });
    println!(
        "insert:   {:>7.1} M keys/s ({} of {items} reported new)",
        items as f64 / secs / 1e6,
        inserted
    );

    let (present, secs) = on_all_threads(threads, items, |range| {
        range.filter(|i| filter.contains(i)).count() as u64
    });
    println!(
        "contains: {:>7.1} M keys/s (hits)",
        items as f64 / secs / 1e6
    );
    if present != items {
        return Err(format!(
            "{} inserted keys missing: a false negative",
            items - present
        )
        .into());
    }

    let (false_pos, secs) = on_all_threads(threads, items, |range| {
        range.filter(|i| filter.contains(&(ABSENT + i))).count() as u64
    });
    let measured = false_pos as f64 / items as f64;
    println!(
        "contains: {:>7.1} M keys/s (misses)",
        items as f64 / secs / 1e6
    );
    println!(
        "false-positive rate: {measured:.3e} measured on {items} absent keys, target {fpp:e} ({:.3} of target), \
         estimated from the bits {:.3e}",
        measured / fpp,
        filter.estimated_fpr()
    );
    println!(
        "estimated keys held: {} (inserted {items})",
        filter.estimated_len()
    );
    Ok(())
}

/// Splits `0..items` among `threads` scoped threads running `work`; returns
/// the sum of their results and the wall time in seconds.
fn on_all_threads(
    threads: u64,
    items: u64,
    work: impl Fn(std::ops::Range<u64>) -> u64 + Sync,
) -> (u64, f64) {
    let start = Instant::now();
    let total = std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || work((items * t / threads)..(items * (t + 1) / threads))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker panicked"))
            .sum()
    });
    (total, start.elapsed().as_secs_f64())
}
