//! The windowed filter's queries three ways, side by side: per key
//! (`contains`), as a batch (`contains_batch`: the epoch and clock read
//! once, each generation asked through the plain filter's prefetching
//! batch), and on every core (`par_contains`). A window of 1M keys over
//! four generations at 1%, asked 4M keys of which a quarter are in it;
//! five alternating rounds, each way's ratio to the per-key calls:
//! `cargo run --release --example window_queries`.

use atomic_bloom::AtomicWindowedBloom;
use std::time::Instant;

fn main() -> Result<(), atomic_bloom::BuildError> {
    let window = AtomicWindowedBloom::new(1_000_000, 0.01)?;
    window.insert_batch(0..3_000_000u64);
    let asked: Vec<u64> = (2_000_000..6_000_000u64).collect();
    let millions = asked.len() as f64 / 1e6;
    for round in 1..=5 {
        let start = Instant::now();
        let per_key = asked.iter().filter(|key| window.contains(*key)).count();
        let per_key_secs = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let batch = window.contains_batch(&asked);
        let batch_secs = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let parallel = window.par_contains(&asked);
        let parallel_secs = start.elapsed().as_secs_f64();
        // The same answers every way.
        assert_eq!(batch.iter().filter(|&&hit| hit).count(), per_key);
        assert_eq!(batch, parallel);
        println!(
            "round {round}: contains {:.1} M keys/s; contains_batch {:.1} M keys/s ({:.2}x); \
             par_contains on {} threads {:.1} M keys/s ({:.2}x)",
            millions / per_key_secs,
            millions / batch_secs,
            per_key_secs / batch_secs,
            rayon::current_num_threads(),
            millions / parallel_secs,
            per_key_secs / parallel_secs
        );
    }
    Ok(())
}
