//! `bench`: the headline benchmark in under two minutes, one table of
//! throughputs and the ratios the project's targets are stated in.
//!
//! Everything runs in one process, side by side, so the ratios hold even on
//! a shared, noisy machine whose absolute figures drift. Each figure is the
//! best of three runs. "2 threads" means two OS threads sharing one filter
//! (or rayon's pool for the bulk calls); keys are `u64`, hashed with the
//! same wyhash everywhere. Filters use the Blocked layout at p = 1%. The
//! full grid (every layout, string keys) is `cargo bench --bench throughput`.

/// Takes no options: the comparison is fixed so runs compare.
#[derive(clap::Args)]
pub struct Args {}

use crate::baselines::{self, MutexFilter, PlainBlocked, Probe, RwLockFilter, Sharded};
use atomic_bloom::{AtomicBloom, Layout};
use std::ops::Range;
use std::time::Instant;

const FPP: f64 = 0.01;
/// Keys that were never inserted start here.
const ABSENT: u64 = 1 << 48;

/// Millions of operations per second for `ops` operations that `run` does,
/// best of three.
fn mops(ops: u64, run: impl FnMut()) -> f64 {
    mops_after(ops, || {}, run)
}

/// As `mops`, running `reset` untimed before each run (to empty a filter,
/// so every run inserts new keys into an empty filter with its pages
/// already mapped).
fn mops_after(ops: u64, mut reset: impl FnMut(), mut run: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            reset();
            let start = Instant::now();
            run();
            ops as f64 / start.elapsed().as_secs_f64() / 1e6
        })
        .fold(0.0, f64::max)
}

/// `mops_after` for inserting keys `0..ops` with `insert` on two threads.
fn inserts_2t(ops: u64, reset: impl FnMut(), insert: impl Fn(u64) + Sync) -> f64 {
    mops_after(ops, reset, || {
        two_threads(0..ops, |keys| keys.for_each(&insert))
    })
}

/// Runs `work` on two threads over the two halves of `keys`.
fn two_threads(keys: Range<u64>, work: impl Fn(Range<u64>) + Sync) {
    let mid = keys.start + (keys.end - keys.start) / 2;
    std::thread::scope(|s| {
        let work = &work;
        s.spawn(move || work(keys.start..mid));
        work(mid..keys.end);
    });
}

pub fn run(_args: Args) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut rows = 0;
    let mut ratios: Vec<(String, f64, f64)> = Vec::new();
    for (label, items, ops) in [
        ("1M", 1_000_000u64, 4_000_000u64),
        ("100M", 100_000_000, 10_000_000),
    ] {
        let mut row = |what: &str, mops: f64| {
            println!("{label:>5} {what:<52} {mops:>8.1} M/s");
            rows += 1;
            mops
        };
        let fresh = || {
            AtomicBloom::builder()
                .capacity(items, FPP)
                .layout(Layout::Blocked)
                .build()
                .unwrap()
        };

        // Inserts of new keys into an empty filter sized for `items`: each
        // contender is emptied, untimed, before each run.
        let f = fresh();
        let ours = || f.par_clear();
        let single_1t = row(
            "insert, per key, 1 thread",
            mops_after(ops, ours, || {
                (0..ops).for_each(|k| {
                    f.insert(&k);
                })
            }),
        );
        let single_2t = row(
            "insert, per key, 2 threads",
            inserts_2t(ops, ours, |k| {
                f.insert(&k);
            }),
        );
        let bulk_1t = row(
            "insert_batch, 1 thread",
            mops_after(ops, ours, || {
                f.insert_batch(0..ops);
            }),
        );
        let bulk_2t = row(
            "par_insert (rayon bulk), 2 threads",
            mops_after(ops, ours, || {
                f.par_insert(0..ops);
            }),
        );
        let mutex = MutexFilter::new(PlainBlocked::new(items, FPP));
        let mutex_2t = row(
            "Mutex<plain filter> insert, 2 threads",
            inserts_2t(
                ops,
                || mutex.lock().unwrap().clear(),
                |k| {
                    mutex.lock().unwrap().insert(&k);
                },
            ),
        );
        let rwlock = RwLockFilter::new(PlainBlocked::new(items, FPP));
        let rwlock_2t = row(
            "RwLock<plain filter> insert, 2 threads",
            inserts_2t(
                ops,
                || rwlock.write().unwrap().clear(),
                |k| {
                    rwlock.write().unwrap().insert(&k);
                },
            ),
        );
        let sharded = Sharded::new(items, FPP);
        let sharded_2t = row(
            "16 sharded mutexes insert, 2 threads",
            inserts_2t(
                ops,
                || sharded.clear(),
                |k| {
                    sharded.insert(&k);
                },
            ),
        );
        let fb = baselines::fastbloom(items, FPP);
        let fastbloom_2t = row(
            "fastbloom 0.17 AtomicBloomFilter insert, 2 threads",
            inserts_2t(
                ops,
                || fb.clear(),
                |k| {
                    fb.insert(&k);
                },
            ),
        );

        // Queries and duplicate inserts on a filter holding `fill` keys.
        let fill = items.min(20_000_000);
        let filled = fresh();
        filled.par_insert(0..fill);
        let q = ops.min(fill);
        let contains_1t = row(
            "contains hit, per key, 1 thread",
            mops(q, || {
                assert!((0..q).all(|k| filled.contains(&k)));
            }),
        );
        let contains_batch_1t = row(
            "contains_batch hit, 1 thread",
            mops(q, || {
                assert!(filled.contains_batch(0..q).into_iter().all(|hit| hit));
            }),
        );
        row(
            "contains miss, per key, 1 thread",
            mops(q, || {
                std::hint::black_box((ABSENT..ABSENT + q).filter(|k| filled.contains(k)).count());
            }),
        );
        let dup_1t = row(
            "insert of present keys (duplicates), 1 thread",
            mops(q, || {
                assert_eq!((0..q).filter(|k| filled.insert(k)).count(), 0);
            }),
        );
        let keys: Vec<u64> = (0..q).collect();
        let par_contains_2t = row(
            "par_contains hit, 2 threads",
            mops(q, || {
                assert!(filled.par_contains(&keys).into_iter().all(|hit| hit));
            }),
        );

        // Physical-limit probes on an array of the filter's size.
        let probe = Probe::new(filled.memory_bytes());
        row(
            "probe: hash only, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.hash_only(0..ops));
            }),
        );
        let load_1t = row(
            "probe: one random load, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.load(0..ops));
            }),
        );
        let load_pf_1t = row(
            "probe: one random load, prefetched, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.load_prefetched(0..ops));
            }),
        );
        row(
            "probe: one random fetch_or, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.fetch_or(0..ops));
            }),
        );
        let fetch_or_pf_1t = row(
            "probe: one random fetch_or, prefetched, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.fetch_or_prefetched(0..ops));
            }),
        );
        let fetch_or_pf_2t = row(
            "probe: one random fetch_or, prefetched, 2 threads",
            mops(ops, || {
                two_threads(0..ops, |r| {
                    std::hint::black_box(probe.fetch_or_prefetched(r));
                });
            }),
        );
        let group_pf_1t = row(
            "probe: 4 fetch_ors in one line, prefetched, 1 thread",
            mops(ops, || {
                std::hint::black_box(probe.fetch_or_group_prefetched(0..ops, 4));
            }),
        );
        let group_pf_2t = row(
            "probe: 4 fetch_ors in one line, prefetched, 2 threads",
            mops(ops, || {
                two_threads(0..ops, |r| {
                    std::hint::black_box(probe.fetch_or_group_prefetched(r, 4));
                });
            }),
        );
        let word = AtomicBloom::builder()
            .capacity(items, FPP)
            .layout(Layout::Word)
            .build()
            .unwrap();
        let word_bulk_2t = row(
            "Word layout par_insert, 2 threads",
            mops_after(
                ops,
                || word.par_clear(),
                || {
                    word.par_insert(0..ops);
                },
            ),
        );

        // Issue #5's targets: bulk inserts and batched queries on 100M keys,
        // single queries on 1M, scaling and duplicates on both.
        let (dram, cache) = (label == "100M", label == "1M");
        let at = |applies: bool, target: f64| if applies { target } else { 0.0 };
        let mut ratio = |what: &str, value: f64, target: f64| {
            ratios.push((format!("{label}: {what}"), value, target))
        };
        ratio(
            "bulk insert 2T / prefetched fetch_or probe 2T",
            bulk_2t / fetch_or_pf_2t,
            at(dram, 0.7),
        );
        ratio(
            "bulk insert 2T / fastbloom insert 2T",
            bulk_2t / fastbloom_2t,
            at(dram, 4.0),
        );
        ratio(
            "bulk insert 2T / Mutex insert 2T",
            bulk_2t / mutex_2t,
            at(dram, 10.0),
        );
        ratio(
            "bulk insert 2T / RwLock insert 2T",
            bulk_2t / rwlock_2t,
            0.0,
        );
        ratio(
            "bulk insert 2T / sharded insert 2T",
            bulk_2t / sharded_2t,
            0.0,
        );
        ratio(
            "per-key insert 2T / fastbloom insert 2T",
            single_2t / fastbloom_2t,
            0.0,
        );
        ratio("per-key insert 2T / 1T", single_2t / single_1t, 0.0);
        ratio("bulk insert 2T / 1T", bulk_2t / bulk_1t, 1.8);
        ratio(
            "machine: prefetched fetch_or probe 2T / 1T",
            fetch_or_pf_2t / fetch_or_pf_1t,
            0.0,
        );
        ratio(
            "machine: 4-fetch_or-per-line probe 2T / 1T",
            group_pf_2t / group_pf_1t,
            0.0,
        );
        ratio(
            "bulk insert 2T / 4-fetch_or-per-line probe 2T",
            bulk_2t / group_pf_2t,
            0.0,
        );
        ratio(
            "Word layout bulk insert 2T / prefetched fetch_or probe 2T",
            word_bulk_2t / fetch_or_pf_2t,
            0.0,
        );
        ratio(
            "contains_batch 1T / prefetched load probe 1T",
            contains_batch_1t / load_pf_1t,
            at(dram, 0.7),
        );
        ratio(
            "par_contains 2T / contains_batch 1T",
            par_contains_2t / contains_batch_1t,
            0.0,
        );
        ratio(
            "per-key contains 1T / load probe 1T",
            contains_1t / load_1t,
            at(cache, 1.0 / 1.5),
        );
        ratio(
            "duplicate insert / contains of present keys",
            dup_1t / contains_1t,
            1.0,
        );
    }
    println!("\n{:<62} {:>7} {:>8}", "ratio", "value", "target");
    for (what, value, target) in &ratios {
        let verdict = match *target {
            0.0 => String::new(),
            t if *value >= t => format!(">= {t:.2} met"),
            t => format!(">= {t:.2} MISSED"),
        };
        println!("{what:<62} {value:>7.3} {verdict:>8}");
    }
    println!("\n{rows} rows in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
