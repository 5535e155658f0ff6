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
    for round in 1..=5 {
        let (one, batch, parallel) = (
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
            AtomicWindowedBloom::new(1_000_000, 0.01)?,
        );
        let (new, per_key) = timed(|| inserted.iter().filter(|key| one.insert(*key)).count());
        let (batch_new, batched) = timed(|| batch.insert_batch(&inserted));
        let (_, par) = timed(|| parallel.par_insert(&inserted));
        assert_eq!(batch_new, new);
        assert_eq!(
            batch, one,
            "a batch wrote other bits than the per-key inserts"
        );
        report(round, "insert", inserted.len(), [per_key, batched, par]);

        let (found, per_key) = timed(|| asked.iter().filter(|key| one.contains(*key)).count());
        let (answers, batched) = timed(|| one.contains_batch(&asked));
        let (par_answers, par) = timed(|| one.par_contains(&asked));
        assert_eq!(answers.iter().filter(|&&hit| hit).count(), found);
        assert_eq!(answers, par_answers);
        report(round, "contains", asked.len(), [per_key, batched, par]);
    }
    Ok(())
}

/// What `f` returns, and the seconds it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64())
}

/// One line: the per-key calls' rate, then the batch's and the parallel
/// call's, each with its ratio to the per-key calls.
fn report(round: u32, call: &str, keys: usize, [per_key, batched, par]: [f64; 3]) {
    let rate = |secs: f64| keys as f64 / secs / 1e6;
    println!(
        "round {round}: {call} {:.1} M keys/s; {call}_batch {:.1} ({:.2}x); par_{call} on {} threads {:.1} ({:.2}x)",
        rate(per_key),
        rate(batched),
        per_key / batched,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        rate(par),
        per_key / par
    );
}
