//! The counting filter's batches: `insert_batch` then `remove_batch_unchecked` of
//! fresh keys, and `contains_batch` of present ones, on filters sized for
//! 1M and 100M keys and half full (best of five). BENCHMARKS.md compares
//! builds with two prefetch windows (`PREFETCH_DISTANCE` in
//! `src/core/batch.rs`): `cargo run --release --example counting_batches`.

use atomic_bloom::AtomicCountingBloom;
use std::time::Instant;

fn main() -> Result<(), atomic_bloom::BuildError> {
    for (items, ops) in [(1_000_000u64, 1_000_000u64), (100_000_000, 4_000_000)] {
        let filter = AtomicCountingBloom::new(items as usize, 0.01)?;
        filter.par_insert(0..items / 2);
        let fresh: Vec<u64> = (1 << 40..(1 << 40) + ops).collect();
        let present: Vec<u64> = (0..ops).map(|i| i * (items / 2 / ops).max(1)).collect();
        let (mut updates, mut queries) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let start = Instant::now();
            filter.insert_batch(&fresh);
            filter.remove_batch_unchecked(&fresh);
            updates = updates.min(start.elapsed().as_secs_f64());
            let start = Instant::now();
            std::hint::black_box(filter.contains_batch(&present));
            queries = queries.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{items} keys: insert_batch + remove_batch_unchecked {:.2} M keys/s, contains_batch {:.1} M keys/s",
            ops as f64 / updates / 1e6,
            ops as f64 / queries / 1e6
        );
    }
    Ok(())
}
