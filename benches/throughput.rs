//! The full benchmark grid, with criterion: every layout; filters sized for
//! 1M keys (in cache) and 100M keys (DRAM); `u64` keys and 32-byte string
//! keys; insert, contains hit, contains miss, duplicate-heavy insert (each
//! key inserted 10 times) and a 90/10 read/write mix; per-key calls on 1
//! and 2 threads and rayon bulk calls; against a Mutex-, RwLock- and
//! shard-locked plain filter, fastbloom 0.17's atomic filter, and the
//! physical-limit probes (the `baselines/` crate); and the time to size a
//! filter (`sizing/`).
//!
//! ```text
//! cargo bench --bench throughput                 # everything (long)
//! cargo bench --bench throughput -- 'blocked/1M' # a slice of it
//! ```
//!
//! The two-minute headline table is `atomic-bloom bench` (the CLI).

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, Layout, Sizing};
use atomic_bloom_baselines::{
    Locked, MutexFilter, PerBitBlocked, PlainBlocked, Probe, RwLockFilter, Sharded,
};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use rayon::prelude::*;
use std::hash::Hash;
use std::hint::black_box;
use std::time::Duration;

const FPP: f64 = 0.01;
/// Operations per measured iteration.
const OPS: u64 = 100_000;
const ABSENT: u64 = 1 << 48;

/// The keys of one benchmark: `u64`, or 32-byte strings.
trait Keys: Sync {
    type Key: Hash + Sync + Send;
    const NAME: &'static str;
    fn key(i: u64) -> Self::Key;
}

struct U64Keys;
impl Keys for U64Keys {
    type Key = u64;
    const NAME: &'static str = "u64";
    fn key(i: u64) -> u64 {
        i
    }
}

struct StrKeys;
impl Keys for StrKeys {
    type Key = String;
    const NAME: &'static str = "str32";
    fn key(i: u64) -> String {
        format!("https://example.com/{i:012}")
    }
}

fn two_threads<T: Sync>(keys: &[T], work: impl Fn(&[T]) + Sync) {
    let (a, b) = keys.split_at(keys.len() / 2);
    std::thread::scope(|s| {
        let work = &work;
        s.spawn(move || work(a));
        work(b);
    });
}

/// A group of `OPS`-operation benchmarks, short enough for the whole grid.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(OPS));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    group
}

fn bench_layout<K: Keys>(c: &mut Criterion, layout: Layout, label: &str, items: u64) {
    let name = format!("{layout}/{label}/{}", K::NAME);
    let mut group = group(c, &name);

    let filter = AtomicBloom::builder()
        .capacity(items as usize, FPP)
        .layout(layout)
        .build()
        .unwrap();
    // Fill to capacity so queries and duplicates meet a realistic filter.
    // Keys made on the fly: 100M string keys would need gigabytes as a Vec.
    filter.par_insert((0..items).into_par_iter().map(K::key));
    let present: Vec<K::Key> = (0..OPS).map(|i| K::key(i * (items / OPS).max(1))).collect();
    let absent: Vec<K::Key> = (0..OPS).map(|i| K::key(ABSENT + i)).collect();
    let mut next = items;
    let mut fresh_keys = || {
        // New keys each iteration, so inserts keep setting bits.
        let keys: Vec<K::Key> = (next..next + OPS).map(K::key).collect();
        next += OPS;
        keys
    };

    group.bench_function("insert/1t", |b| {
        b.iter_batched(
            &mut fresh_keys,
            |keys| {
                keys.iter().for_each(|k| {
                    filter.insert(k);
                })
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("insert/2t", |b| {
        b.iter_batched(
            &mut fresh_keys,
            |keys| {
                two_threads(&keys, |ks| {
                    ks.iter().for_each(|k| {
                        filter.insert(k);
                    })
                })
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("insert/batch-1t", |b| {
        b.iter_batched(
            &mut fresh_keys,
            |keys| filter.insert_batch(&keys),
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("insert/rayon", |b| {
        b.iter_batched(
            &mut fresh_keys,
            |keys| filter.par_insert(keys.as_slice()),
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("contains-hit/1t", |b| {
        b.iter(|| present.iter().filter(|k| filter.contains(*k)).count())
    });
    group.bench_function("contains-hit/2t", |b| {
        b.iter(|| {
            two_threads(&present, |ks| {
                black_box(ks.iter().filter(|k| filter.contains(*k)).count());
            })
        })
    });
    group.bench_function("contains-hit/batch-1t", |b| {
        b.iter(|| filter.contains_batch(&present))
    });
    group.bench_function("contains-hit/rayon", |b| {
        b.iter(|| filter.par_contains(&present))
    });
    group.bench_function("contains-miss/1t", |b| {
        b.iter(|| absent.iter().filter(|k| filter.contains(*k)).count())
    });
    group.bench_function("contains-miss/batch-1t", |b| {
        b.iter(|| filter.contains_batch(&absent))
    });
    // Each key inserted 10 times: after the first, only the test before set runs.
    let dups: Vec<&K::Key> = present
        .iter()
        .take(OPS as usize / 10)
        .flat_map(|k| std::iter::repeat_n(k, 10))
        .collect();
    group.bench_function("insert-dup10/1t", |b| {
        b.iter(|| dups.iter().filter(|k| filter.insert(**k)).count())
    });
    group.bench_function("insert-dup10/2t", |b| {
        b.iter(|| {
            two_threads(&dups, |ks| {
                black_box(ks.iter().filter(|k| filter.insert(**k)).count());
            })
        })
    });
    // 90% queries, 10% inserts of new keys, interleaved.
    group.bench_function("mix90-10/2t", |b| {
        b.iter_batched(
            &mut fresh_keys,
            |new| {
                let work: Vec<(bool, usize)> =
                    (0..OPS as usize).map(|i| (i % 10 == 0, i)).collect();
                two_threads(&work, |ops| {
                    for &(write, i) in ops {
                        if write {
                            filter.insert(&new[i]);
                        } else {
                            black_box(filter.contains(&present[i]));
                        }
                    }
                });
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// Benchmarks `op` on every key, on `threads` (1 or 2) threads. Generic,
/// so each contender's operation is called directly, as in its own code.
fn bench_each<T: Sync>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    threads: usize,
    keys: &[T],
    op: impl Fn(&T) + Sync,
) {
    let work = |ks: &[T]| ks.iter().for_each(&op);
    group.bench_function(BenchmarkId::new(name, threads), |b| {
        b.iter(|| {
            if threads == 1 {
                work(keys)
            } else {
                two_threads(keys, work)
            }
        })
    });
}

fn bench_baselines<K: Keys>(c: &mut Criterion, label: &str, items: u64) {
    let capacity = items as usize; // at most 100M: no truncation
    let mut group = group(c, &format!("baselines/{label}/{}", K::NAME));
    let keys: Vec<K::Key> = (0..OPS).map(K::key).collect();
    let mutex = MutexFilter::new(PlainBlocked::new(capacity, FPP));
    let rwlock = RwLockFilter::new(PlainBlocked::new(capacity, FPP));
    let sharded = Sharded::new(capacity, FPP);
    let fb = atomic_bloom_baselines::fastbloom(capacity, FPP);
    let per_bit = PerBitBlocked::new(capacity, FPP);
    for threads in [1, 2] {
        let g = &mut group;
        bench_each(g, "mutex-insert", threads, &keys, |k| {
            mutex.insert(k);
        });
        bench_each(g, "rwlock-insert", threads, &keys, |k| {
            rwlock.insert(k);
        });
        bench_each(g, "rwlock-contains", threads, &keys, |k| {
            black_box(rwlock.read().unwrap().contains(k));
        });
        bench_each(g, "sharded-insert", threads, &keys, |k| {
            sharded.insert(k);
        });
        bench_each(g, "fastbloom-insert", threads, &keys, |k| {
            fb.insert(k);
        });
        bench_each(g, "fastbloom-contains", threads, &keys, |k| {
            black_box(fb.contains(k));
        });
        bench_each(g, "per-bit-insert", threads, &keys, |k| {
            per_bit.insert(k);
        });
        bench_each(g, "per-bit-contains", threads, &keys, |k| {
            black_box(per_bit.contains(k));
        });
    }
    group.finish();
}

fn bench_probes(c: &mut Criterion, label: &str, bytes: usize) {
    let mut group = group(c, &format!("probes/{label}"));
    let probe = Probe::new(bytes);
    group.bench_function("hash-only", |b| b.iter(|| probe.hash_only(0..OPS)));
    group.bench_function("fetch_or", |b| b.iter(|| probe.fetch_or(0..OPS)));
    group.bench_function("fetch_or-prefetched", |b| {
        b.iter(|| probe.fetch_or_prefetched(0..OPS))
    });
    group.bench_function("load", |b| b.iter(|| probe.load(0..OPS)));
    group.bench_function("load-prefetched", |b| {
        b.iter(|| probe.load_prefetched(0..OPS))
    });
    group.finish();
}

/// Sizing a filter, the part of construction independent of its memory:
/// the default rate at 1M keys, 100 keys at p = 0.001 (where 20 values of
/// `k` give one size), and the slowest `Blocked` case `atomic-bloom bench`
/// finds (100 keys at p = 1e-12).
fn bench_sizing(c: &mut Criterion) {
    let mut group = c.benchmark_group("sizing");
    for layout in Layout::ALL {
        for (n, p) in [(1_000_000, FPP), (100, 1e-3), (100, 1e-12), (1, 1e-12)] {
            let id = BenchmarkId::new(layout.name(), format!("n={n},p={p}"));
            group.bench_function(id, |b| {
                b.iter(|| Sizing::for_rate(layout, black_box(n), black_box(p)))
            });
        }
    }
    group.finish();
}

/// The counting filter (Blocked) filled to `items / 2` keys: insert of new
/// keys and its remove (each iteration inserts fresh keys, then removes
/// them, so the fill stays put; a key inserted and removed counts as one
/// element), and queries of present keys, per key and in bulk. Side-by-side ratios against a Mutex and the plain filter are
/// `atomic-bloom bench --counting`.
fn bench_counting<K: Keys>(c: &mut Criterion, label: &str, items: u64) {
    let mut group = group(c, &format!("counting/{label}/{}", K::NAME));
    let filter = AtomicCountingBloom::builder()
        .capacity(items as usize, FPP)
        .build_counting()
        .unwrap();
    filter.par_insert((0..items / 2).into_par_iter().map(K::key));
    let present: Vec<K::Key> = (0..OPS)
        .map(|i| K::key(i * (items / 2 / OPS).max(1)))
        .collect();
    let fresh: Vec<K::Key> = (ABSENT..ABSENT + OPS).map(K::key).collect();
    group.bench_function("insert-then-remove/1t", |b| {
        b.iter(|| {
            fresh.iter().for_each(|k| {
                filter.insert(k);
            });
            fresh.iter().for_each(|k| {
                filter.remove(k);
            });
        })
    });
    group.bench_function("insert-then-remove/batch-1t", |b| {
        b.iter(|| {
            filter.insert_batch(&fresh);
            filter.remove_batch(&fresh)
        })
    });
    group.bench_function("insert-then-remove/rayon", |b| {
        b.iter(|| {
            filter.par_insert(fresh.as_slice());
            filter.par_remove(fresh.as_slice())
        })
    });
    group.bench_function("contains-hit/1t", |b| {
        b.iter(|| present.iter().filter(|k| filter.contains(k)).count())
    });
    group.bench_function("contains-hit/batch-1t", |b| {
        b.iter(|| filter.contains_batch(&present))
    });
    group.finish();
}

fn throughput(c: &mut Criterion) {
    bench_sizing(c);
    for (label, items) in [("1M", 1_000_000u64), ("100M", 100_000_000)] {
        for layout in Layout::ALL {
            bench_layout::<U64Keys>(c, layout, label, items);
            bench_layout::<StrKeys>(c, layout, label, items);
        }
        bench_baselines::<U64Keys>(c, label, items);
        bench_baselines::<StrKeys>(c, label, items);
        bench_counting::<U64Keys>(c, label, items);
        bench_counting::<StrKeys>(c, label, items);
        let bytes = AtomicBloom::new(items as usize, FPP)
            .unwrap()
            .memory_bytes();
        bench_probes(c, label, bytes);
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
