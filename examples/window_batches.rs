//! The windowed filter's calls three ways, side by side: per key
//! (`insert`, `contains`), as a batch (`insert_batch`, `contains_batch`:
//! the clock read once, the generations asked through the plain filter's
//! prefetching batch), and on every core (`par_insert`, `par_contains`).
//! A window of 1M keys over four generations at 1%: 3M new keys inserted
//! into a new window each way, then 4M keys asked, a quarter of them in
//! it. Five rounds, each way's ratio to the per-key calls:
//! `cargo run --release --example window_batches`.

use atomic_bloom::AtomicWindowedBloom;
use std::time::Instant;

fn main() -> Result<(), atomic_bloom::BuildError> {
    let inserted: Vec<u64> = (0..3_000_000u64).collect();
    let asked: Vec<u64> = (2_000_000..6_000_000u64).collect();
    let threads = rayon::current_num_threads();
    let rate = |keys: &[u64], secs: f64| keys.len() as f64 / secs / 1e6;
    for round in 1..=5 {
        let (one, batch, parallel) = (
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
        );
        let start = Instant::now();
        let new = inserted.iter().filter(|key| one.insert(*key)).count();
        let per_key = start.elapsed().as_secs_f64();
        let start = Instant::now();
        assert_eq!(batch.insert_batch(&inserted), new);
        let batched = start.elapsed().as_secs_f64();
        let start = Instant::now();
        parallel.par_insert(&inserted);
        let par = start.elapsed().as_secs_f64();
        assert_eq!(
            batch, one,
            "a batch wrote other bits than the per-key inserts"
        );
        println!(
            "round {round}: insert {:.1} M keys/s; insert_batch {:.1} ({:.2}x); par_insert on {threads} threads {:.1} ({:.2}x)",
            rate(&inserted, per_key),
            rate(&inserted, batched),
            per_key / batched,
            rate(&inserted, par),
            per_key / par
        );

        let start = Instant::now();
        let found = asked.iter().filter(|key| one.contains(*key)).count();
        let per_key = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let answers = one.contains_batch(&asked);
        let batched = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let par_answers = one.par_contains(&asked);
        let par = start.elapsed().as_secs_f64();
        assert_eq!(answers.iter().filter(|&&hit| hit).count(), found);
        assert_eq!(answers, par_answers);
        println!(
            "round {round}: contains {:.1} M keys/s; contains_batch {:.1} ({:.2}x); par_contains on {threads} threads {:.1} ({:.2}x)",
            rate(&asked, per_key),
            rate(&asked, batched),
            per_key / batched,
            rate(&asked, par),
            per_key / par
        );
    }
    Ok(())
}
