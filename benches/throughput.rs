//! The full benchmark grid, with criterion: every layout; filters sized for
//! 1M keys (in cache) and 100M keys (DRAM); `u64` keys and 32-byte string
//! keys; insert (result dropped, and used), contains hit and miss,
//! duplicate-heavy insert (each key inserted 10 times) and a 90/10
//! read/write mix; per-key calls on 1 and 2 threads and bulk calls;
//! against fastbloom 0.17's atomic filter, the plain atomic per-bit filter,
//! a Mutex-, RwLock- and shard-locked plain filter, and the physical-limit
//! probes (the `baselines/` crate); and the time to size a filter
//! (`sizing/`). Every row of `atomic-bloom-harness bench` has its row here.
//!
//! Ours and the peers meet the same keys in the same state (`KeySets`):
//! queries and duplicates on a filter filled to its capacity, inserts of
//! keys new to a filter that is emptied, untimed, before it would fill
//! past its capacity. Row names end in the thread count (`insert/2t`).
//!
//! ```text
//! cargo bench --bench throughput                 # everything (long)
//! cargo bench --bench throughput -- 'blocked/1M' # a slice of it
//! ```
//!
//! A slice fills only the filters its rows use. The side-by-side ratios
//! with their targets are `atomic-bloom-harness bench` (the CLI).

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, Key as FilterKey, Layout, Sizing};
use atomic_bloom_baselines::{
    Locked, MutexFilter, PerBitBlocked, PlainBlocked, Probe, RwLockFilter, Sharded,
};
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use rayon::prelude::*;
use std::hash::{BuildHasher, Hash};
use std::hint::black_box;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::LazyLock;
use std::time::Duration;

const FPP: f64 = 0.01;
/// Operations per measured iteration.
const OPS: u64 = 100_000;
const ABSENT: u64 = 1 << 48;

/// The keys of one benchmark: `u64`, or 32-byte strings.
trait Keys: Sync {
    type Key: Hash + FilterKey + Sync + Send;
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
        atomic_bloom_baselines::str32_key(i)
    }
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

/// The keys every contender meets, for one filter size and key type, so
/// that rows compare like with like (the same key sets `atomic-bloom-harness
/// bench` gives every contender):
///
/// - queries and duplicate inserts run on a filter holding keys
///   `0..items`, its capacity: `present` is `OPS` of those, `absent` `OPS`
///   keys none holds, and `dups` a tenth of `present`, each 10 times;
/// - inserts put keys none has seen ([`Fresh`]) into a filter of its own,
///   emptied (untimed) whenever it has taken `items` keys, so that it never
///   fills past its capacity, whatever rate the contender inserts at.
struct KeySets<K: Keys> {
    items: u64,
    present: Vec<K::Key>,
    absent: Vec<K::Key>,
    dups: Vec<K::Key>,
}

impl<K: Keys> KeySets<K> {
    fn new(items: u64) -> Self {
        let stride = (items / OPS).max(1);
        KeySets {
            items,
            present: (0..OPS).map(|i| K::key(i * stride)).collect(),
            absent: (0..OPS).map(|i| K::key(ABSENT + i)).collect(),
            dups: (0..OPS / 10)
                .flat_map(|i| (0..10).map(move |_| K::key(i * stride)))
                .collect(),
        }
    }

    /// Inserts keys `0..items` through `insert`, on every core. (Made on
    /// the fly: 100M string keys would need gigabytes as a `Vec`.)
    fn fill(&self, insert: impl Fn(&K::Key) + Sync + Send) {
        (0..self.items)
            .into_par_iter()
            .for_each(|i| insert(&K::key(i)));
    }

    /// New keys for insert rows into a filter that `clear` empties. The
    /// first `take` empties it, so the `Fresh` alone says how full it is.
    fn fresh<'a>(&self, clear: impl FnMut() + 'a) -> Fresh<'a, K> {
        Fresh {
            next: self.items,
            taken: self.items,
            items: self.items,
            clear: Box::new(clear),
            keys: PhantomData,
        }
    }
}

/// Keys new to one contender's filter, `OPS` per iteration.
struct Fresh<'a, K> {
    next: u64,
    /// Keys the filter has taken since it was last emptied.
    taken: u64,
    items: u64,
    clear: Box<dyn FnMut() + 'a>,
    keys: PhantomData<K>,
}

impl<K: Keys> Fresh<'_, K> {
    /// The next `OPS` keys, after emptying the filter if they would take it
    /// past its capacity. Untimed: criterion calls it as a setup.
    fn take(&mut self) -> Vec<K::Key> {
        if self.taken + OPS > self.items {
            (self.clear)();
            self.taken = 0;
        }
        self.taken += OPS;
        let keys = (self.next..self.next + OPS).map(K::key).collect();
        self.next += OPS;
        keys
    }
}

/// Runs `work` on all of `keys`, on one thread or, split in halves, on two.
fn on_threads<T: Sync>(threads: usize, keys: &[T], work: impl Fn(&[T]) + Sync) {
    if threads == 1 {
        return work(keys);
    }
    let (a, b) = keys.split_at(keys.len() / 2);
    std::thread::scope(|s| {
        let work = &work;
        s.spawn(move || work(a));
        work(b);
    });
}

/// Runs `op` on each of `keys` and counts the `true`s, as a caller that
/// acts on each answer does. (Passing each answer to `black_box` instead
/// costs a store per key: `Blocked` queries of present keys ran 12-13%
/// slower under it on 1 thread and 9-15% on 2, 1M `u64` keys, two runs of
/// the two forms side by side on AMD Zen 4.) An `op` that drops its call's
/// result returns `true`, and the count is free.
fn count<T>(keys: &[T], op: impl Fn(&T) -> bool) -> usize {
    keys.iter().filter(|k| op(k)).count()
}

/// Row `{name}/{threads}t`: `op` on each of `keys` (queries, inserts of
/// present keys). Generic, so each contender's call is made directly, as in
/// its own users' code.
fn bench_keys<T: Sync>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    threads: usize,
    keys: &[T],
    op: impl Fn(&T) -> bool + Sync,
) {
    group.bench_function(format!("{name}/{threads}t"), |b| {
        b.iter(|| {
            on_threads(threads, keys, |ks| {
                black_box(count(ks, &op));
            })
        })
    });
}

/// Row `{name}/{threads}t`: `op` on each of `OPS` new keys per iteration
/// (inserts). Making the keys and dropping them are not timed.
fn bench_fresh<K: Keys>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    threads: usize,
    fresh: &mut Fresh<'_, K>,
    op: impl Fn(&K::Key) -> bool + Sync,
) {
    group.bench_function(format!("{name}/{threads}t"), |b| {
        b.iter_batched(
            || fresh.take(),
            |keys| {
                on_threads(threads, &keys, |ks| {
                    black_box(count(ks, &op));
                });
                keys
            },
            BatchSize::LargeInput,
        )
    });
}

/// Row `{name}`: `op` on the whole of each iteration's `OPS` new keys
/// (bulk inserts).
fn bench_fresh_bulk<K: Keys>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    fresh: &mut Fresh<'_, K>,
    op: impl Fn(&[K::Key]),
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || fresh.take(),
            |keys| {
                op(&keys);
                keys
            },
            BatchSize::LargeInput,
        )
    });
}

fn bench_layout<K: Keys>(c: &mut Criterion, layout: Layout, label: &str, items: u64) {
    let keys = KeySets::<K>::new(items);
    let build = || {
        AtomicBloom::builder()
            .capacity(items as usize, FPP)
            .layout(layout)
            .build()
            .unwrap()
    };
    // Filled when a row first needs it (here and for the peers), so that a
    // run of a slice of the grid skips the fills it does not measure.
    let filled = LazyLock::new(|| {
        let filter = build();
        // A bulk insert fills it fastest; the bits are those `keys.fill` sets.
        filter.par_insert((0..items).into_par_iter().map(K::key));
        filter
    });
    let filter = build();
    let mut group = group(c, &format!("{layout}/{label}/{}", K::NAME));
    let g = &mut group;

    for threads in [1, 2] {
        bench_keys(g, "contains-hit", threads, &keys.present, |k| {
            filled.contains(k)
        });
        bench_keys(g, "contains-miss", threads, &keys.absent, |k| {
            filled.contains(k)
        });
        // After a key's first insert, only the test before set runs.
        bench_keys(g, "insert-dup10", threads, &keys.dups, |k| filled.insert(k));
    }
    g.bench_function("contains-hit/batch-1t", |b| {
        b.iter(|| filled.contains_batch(&keys.present))
    });
    g.bench_function("contains-hit/rayon", |b| {
        b.iter(|| filled.par_contains(&keys.present))
    });
    g.bench_function("contains-miss/batch-1t", |b| {
        b.iter(|| filled.contains_batch(&keys.absent))
    });

    let mut fresh = keys.fresh(|| filter.par_clear());
    for threads in [1, 2] {
        bench_fresh(g, "insert", threads, &mut fresh, |k| {
            filter.insert(k);
            true
        });
    }
    // As a service that acts on "was it new" calls it.
    bench_fresh(g, "insert-used", 1, &mut fresh, |k| filter.insert(k));
    bench_fresh_bulk(g, "insert/batch-1t", &mut fresh, |ks| {
        filter.insert_batch(ks);
    });
    bench_fresh_bulk(g, "insert/rayon", &mut fresh, |ks| {
        filter.par_insert(ks);
    });
    if layout == Layout::Blocked {
        // What the machine gives two threads that share no cache line.
        // First each fills a filter of its own with half the keys:
        let other = build();
        let mut own = keys.fresh(|| {
            filter.par_clear();
            other.par_clear();
        });
        bench_fresh_bulk(g, "insert/batch-2t-a-filter-each", &mut own, |ks| {
            let (a, b) = ks.split_at(ks.len() / 2);
            std::thread::scope(|s| {
                s.spawn(|| filter.insert_batch(a));
                other.insert_batch(b);
            })
        });
        // then each inserts the keys whose block is in its half of the
        // shared array, hashed and split untimed.
        let hasher = filter.hasher();
        let mut fresh = keys.fresh(|| filter.par_clear());
        g.bench_function("insert/batch-2t-halves", |b| {
            b.iter_batched(
                || -> (Vec<u64>, Vec<u64>) {
                    let ks = fresh.take();
                    ks.iter()
                        .map(|k| hasher.hash_one(k))
                        .partition(|&hash| hash < 1 << 63)
                },
                |(low, high)| {
                    std::thread::scope(|s| {
                        s.spawn(|| filter.insert_hash_batch(low.iter().copied()));
                        filter.insert_hash_batch(high.iter().copied());
                    });
                    (low, high)
                },
                BatchSize::LargeInput,
            )
        });
    }

    // 90% queries of present keys, 10% inserts of new keys, interleaved.
    // Last: its inserts go into the filled filter.
    let mut next = ABSENT * 2;
    let work: Vec<usize> = (0..OPS as usize).collect();
    group.bench_function("mix90-10/2t", |b| {
        b.iter_batched(
            || {
                let new: Vec<K::Key> = (next..next + OPS).map(K::key).collect();
                next += OPS;
                new
            },
            |new| {
                on_threads(2, &work, |ops| {
                    for &i in ops {
                        if i % 10 == 0 {
                            filled.insert(&new[i]);
                        } else {
                            black_box(filled.contains(&keys.present[i]));
                        }
                    }
                });
                new
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// The peers, in the state and with the keys `bench_layout` gives ours
/// (`KeySets`): fastbloom 0.17's atomic filter and the plain atomic
/// per-bit filter (`PerBitBlocked`), each as a filled filter for queries
/// and duplicates and an emptied one for inserts; and the lock-based
/// filters (a `Mutex`, an `RwLock`, 16 sharded `Mutex`es), for inserts
/// (and the `RwLock`'s read side, for queries).
fn bench_baselines<K: Keys>(c: &mut Criterion, label: &str, items: u64) {
    let keys = KeySets::<K>::new(items);
    let capacity = items as usize; // at most 100M: no truncation
    let fb_filled = LazyLock::new(|| {
        let filter = atomic_bloom_baselines::fastbloom(capacity, FPP);
        keys.fill(|k| {
            filter.insert(k);
        });
        filter
    });
    let per_bit_filled = LazyLock::new(|| {
        let filter = PerBitBlocked::new(capacity, FPP);
        keys.fill(|k| {
            filter.insert(k);
        });
        filter
    });
    let plain_filled = LazyLock::new(|| {
        // One thread: a plain filter takes its keys through `&mut`.
        let mut filter = PlainBlocked::new(capacity, FPP);
        (0..items).for_each(|i| {
            filter.insert(&K::key(i));
        });
        RwLockFilter::new(filter)
    });
    let fb = atomic_bloom_baselines::fastbloom(capacity, FPP);
    let per_bit = PerBitBlocked::new(capacity, FPP);
    let mutex = MutexFilter::new(PlainBlocked::new(capacity, FPP));
    let rwlock = RwLockFilter::new(PlainBlocked::new(capacity, FPP));
    let sharded = Sharded::new(capacity, FPP);

    let mut group = group(c, &format!("baselines/{label}/{}", K::NAME));
    let g = &mut group;
    for threads in [1, 2] {
        bench_keys(g, "fastbloom-contains-hit", threads, &keys.present, |k| {
            fb_filled.contains(k)
        });
        bench_keys(g, "fastbloom-contains-miss", threads, &keys.absent, |k| {
            fb_filled.contains(k)
        });
        bench_keys(g, "per-bit-contains-hit", threads, &keys.present, |k| {
            per_bit_filled.contains(k)
        });
        bench_keys(g, "per-bit-insert-dup10", threads, &keys.dups, |k| {
            per_bit_filled.insert(k)
        });
        bench_keys(g, "rwlock-contains-hit", threads, &keys.present, |k| {
            plain_filled.read().unwrap().contains(k)
        });
    }

    let mut fresh = keys.fresh(|| fb.clear());
    for threads in [1, 2] {
        bench_fresh(g, "fastbloom-insert", threads, &mut fresh, |k| {
            fb.insert(k);
            true
        });
    }
    bench_fresh(g, "fastbloom-insert-used", 1, &mut fresh, |k| fb.insert(k));
    let mut fresh = keys.fresh(|| per_bit.clear());
    for threads in [1, 2] {
        bench_fresh(g, "per-bit-insert", threads, &mut fresh, |k| {
            per_bit.insert(k);
            true
        });
    }
    bench_locked(g, "mutex-insert", &keys, &mutex);
    bench_locked(g, "rwlock-insert", &keys, &rwlock);
    bench_locked(g, "sharded-insert", &keys, &sharded);
    group.finish();
}

/// Inserts of new keys into a lock-based filter, on 1 and 2 threads.
fn bench_locked<K: Keys>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    keys: &KeySets<K>,
    filter: &impl Locked,
) {
    let mut fresh = keys.fresh(|| filter.clear());
    for threads in [1, 2] {
        bench_fresh(group, name, threads, &mut fresh, |k| {
            filter.insert(k);
            true
        });
    }
}

fn bench_probes(c: &mut Criterion, label: &str, bytes: usize) {
    let mut group = group(c, &format!("probes/{label}"));
    let g = &mut group;
    let probe = Probe::new(bytes);
    // Keys `0..OPS`, split by `on_threads` like every other row's; the
    // probes take each part as the range it is.
    let keys: Vec<u64> = (0..OPS).collect();
    let range = |ks: &[u64]| ks[0]..ks[0] + ks.len() as u64;
    let mut row = |name: &str, threads, work: &(dyn Fn(Range<u64>) -> u64 + Sync)| {
        g.bench_function(format!("{name}/{threads}t"), |b| {
            b.iter(|| {
                on_threads(threads, &keys, |ks| {
                    black_box(work(range(ks)));
                })
            })
        });
    };
    row("hash-only", 1, &|r| probe.hash_only(r));
    row("load", 1, &|r| probe.load(r));
    row("load-prefetched", 1, &|r| probe.load_prefetched(r));
    row("fetch_or", 1, &|r| probe.fetch_or(r));
    for threads in [1, 2] {
        row("fetch_or-prefetched", threads, &|r| {
            probe.fetch_or_prefetched(r)
        });
        // The locked operations a `Blocked` insert of a new key needs.
        row("4-fetch_ors-per-line-prefetched", threads, &|r| {
            probe.fetch_or_group_prefetched(r, 4)
        });
    }
    group.finish();
}

/// Sizing a filter, the part of construction independent of its memory:
/// the default rate at 1M keys; small filters, whose sizes tie over runs
/// of `k` (23 values of `k` give `Blocked` one size for 100 keys at
/// p = 0.001, and 23 give `Sectorized` one for a key at p = 1e-12); and
/// the slowest cases of `atomic-bloom-harness bench`'s grid (`Blocked` with 100
/// to 10^6 keys at p = 1e-12, `Sectorized` with 10^10 at p = 1e-9).
fn bench_sizing(c: &mut Criterion) {
    let mut group = c.benchmark_group("sizing");
    let cases = [
        (1_000_000, FPP),
        (100, 1e-3),
        (1, 1e-12),
        (100, 1e-12),
        (1_000_000, 1e-12),
        (10_000_000_000, 1e-9),
    ];
    for layout in Layout::ALL {
        for (n, p) in cases {
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
/// `atomic-bloom-harness bench --counting`.
fn bench_counting<K: Keys>(c: &mut Criterion, label: &str, items: u64) {
    let mut group = group(c, &format!("counting/{label}/{}", K::NAME));
    let filter = AtomicCountingBloom::builder()
        .capacity(items as usize, FPP)
        .build()
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
                filter.remove_unchecked(k);
            });
        })
    });
    group.bench_function("insert-then-remove/batch-1t", |b| {
        b.iter(|| {
            filter.insert_batch(&fresh);
            filter.remove_batch_unchecked(&fresh)
        })
    });
    group.bench_function("insert-then-remove/rayon", |b| {
        b.iter(|| {
            filter.par_insert(fresh.as_slice());
            filter.par_remove_unchecked(fresh.as_slice())
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
