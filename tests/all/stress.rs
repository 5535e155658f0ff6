//! The concurrency contract with real threads, more of them than cores.
//! Every loop ends by itself: by a count, or by waiting on progress that
//! the other threads are sure to make. The interleavings themselves are
//! model-checked in `loom-tests/`.

use atomic_bloom::{AtomicBloom, Layout};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};

const WRITERS: u64 = 6;
const READERS: u64 = 2;
const PER_WRITER: u64 = 40_000;
const BATCH: u64 = 1_000;

fn build(layout: Layout) -> AtomicBloom {
    AtomicBloom::builder()
        .capacity(300_000, 0.01)
        .layout(layout)
        .build()
        .unwrap()
}

/// Three writers insert `keys` (every third key each) into `filter` while
/// two other threads run `op` `rounds` times each.
fn writers_racing(
    filter: &AtomicBloom,
    keys: std::ops::Range<u64>,
    rounds: usize,
    op: impl Fn() + Sync,
) {
    std::thread::scope(|s| {
        for t in 0..3u64 {
            let keys = keys.clone();
            s.spawn(move || filter.insert_batch(keys.filter(|k| k % 3 == t)));
        }
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..rounds {
                    op();
                }
            });
        }
    });
}

/// Writer `t` inserts `t * PER_WRITER / 2 ..` for `PER_WRITER` keys, so
/// neighbouring writers overlap by half (every key but the first and last
/// halves is inserted twice, by different threads).
fn writer_keys(t: u64) -> std::ops::Range<u64> {
    let start = t * PER_WRITER / 2;
    start..start + PER_WRITER
}

/// Writers insert overlapping key ranges in batches and publish each batch
/// with a Release store; readers load the progress with Acquire and must
/// find every published key (no false negative after happens-before), and a
/// key once seen is seen again. After join the bits equal, word for word, a
/// sequential build of the same keys: concurrent writes converge to one
/// state.
///
/// The overlap of reads and writes is forced, not left to the scheduler: a
/// writer publishes the first half of its keys, then waits until the readers
/// have checked some published key before it inserts the second half. (A
/// first version let the readers run a fixed number of rounds; on a loaded
/// 2-core CI machine they sometimes finished before any writer had
/// published, and the test checked nothing.)
#[test]
fn concurrent_writers_and_readers_converge_to_the_sequential_build() {
    for layout in Layout::ALL {
        let filter = build(layout);
        let published: Vec<AtomicU64> = (0..WRITERS).map(|_| AtomicU64::new(0)).collect();
        // Checks made by the readers, and writers that have finished.
        let checked = AtomicU64::new(0);
        let finished = AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..WRITERS {
                let (filter, published, checked, finished) =
                    (&filter, &published, &checked, &finished);
                s.spawn(move || {
                    for (i, key) in writer_keys(t).enumerate() {
                        let i = i as u64;
                        if i == PER_WRITER / 2 {
                            // Ends: this writer's first half is published,
                            // and readers run until every writer finishes.
                            while checked.load(Ordering::Relaxed) == 0 {
                                std::thread::yield_now();
                            }
                        }
                        filter.insert(&key);
                        if (i + 1).is_multiple_of(BATCH) {
                            published[t as usize].store(i + 1, Ordering::Release);
                        }
                    }
                    // Relaxed: it only ends the readers' loop; what they
                    // check is ordered by `published`.
                    finished.fetch_add(1, Ordering::Relaxed);
                });
            }
            for r in 0..READERS {
                let (filter, published, checked, finished) =
                    (&filter, &published, &checked, &finished);
                s.spawn(move || {
                    // Ends: the writers finish once any key has been checked.
                    let mut round = r;
                    while finished.load(Ordering::Relaxed) < WRITERS {
                        let t = round % WRITERS;
                        round += 1;
                        let done = published[t as usize].load(Ordering::Acquire);
                        let keys = writer_keys(t);
                        // A sample of the published prefix: the newest batch
                        // and a stride through the rest.
                        let newest = done.saturating_sub(BATCH)..done;
                        let stride = (0..done).step_by(97);
                        for i in newest.chain(stride) {
                            let key = keys.start + i;
                            // Counted before the assert, so that a failing
                            // check releases the waiting writers too.
                            checked.fetch_add(1, Ordering::Relaxed);
                            assert!(
                                filter.contains(&key),
                                "{layout}: published key {key} missing"
                            );
                        }
                    }
                });
            }
        });
        // Cannot fail vacuously: the writers only finished after a check.
        assert!(checked.load(Ordering::Relaxed) > 0);
        let sequential = build(layout);
        for t in 0..WRITERS {
            for key in writer_keys(t) {
                sequential.insert(&key);
            }
        }
        assert!(
            filter.words().eq(sequential.words()),
            "{layout}: bits differ from the sequential build"
        );
        assert!(
            (0..WRITERS)
                .flat_map(writer_keys)
                .all(|key| filter.contains(&key))
        );
    }
}

/// Of eight threads racing to insert the same new key, at least one is
/// told it inserted it (each bit is set by exactly one `fetch_or`, whose
/// caller returns `true`), and with the `Word` layout exactly one (one
/// `fetch_or` sets all the bits: a test-and-set); a key already present
/// has no winner. 1 000 trials per layout.
#[test]
fn racing_inserters_of_a_new_key_are_told_it_was_new() {
    const RACERS: usize = 8;
    for layout in Layout::ALL {
        let filter = build(layout);
        let barrier = Barrier::new(RACERS);
        for key in 0..1_000u64 {
            // A key that is already a false positive has no winner.
            let absent = !filter.contains(&key);
            let winners: usize = std::thread::scope(|s| {
                let handles: Vec<_> = (0..RACERS)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            usize::from(filter.insert(&key))
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            match (layout, absent) {
                (_, false) => assert_eq!(winners, 0, "{layout} key {key}"),
                (Layout::Word, true) => assert_eq!(winners, 1, "{layout} key {key}"),
                (_, true) => assert!(winners >= 1, "{layout} key {key}: nobody won"),
            }
        }
    }
}

/// `union` racing inserts into its destination: afterwards the destination
/// holds every key of the source and every key the writers inserted (G6).
#[test]
fn union_racing_inserts_keeps_both() {
    for layout in Layout::ALL {
        let (dst, src) = (build(layout), build(layout));
        src.insert_batch(0..50_000u64);
        writers_racing(&dst, 1_000_000..1_150_000, 20, || dst.union(&src).unwrap());
        let missing = (0..50_000u64)
            .chain(1_000_000..1_150_000)
            .filter(|key| !dst.contains(key))
            .count();
        assert_eq!(missing, 0, "{layout}: union lost keys");
    }
}

/// `intersect` racing inserts of keys the other filter also holds: every
/// such key survives (intersect never clears a bit `other` holds), and
/// afterwards the filter's bits lie within `other`'s (G7).
#[test]
fn intersect_racing_inserts_of_shared_keys_keeps_them() {
    for layout in Layout::ALL {
        let (filter, other) = (build(layout), build(layout));
        let shared = 0..60_000u64; // in `other`; inserted into `filter` during the race
        let only_mine = 500_000..560_000u64; // in `filter` only, before the race
        other.insert_batch(shared.clone());
        filter.insert_batch(only_mine.clone());
        writers_racing(&filter, shared.clone(), 20, || {
            filter.intersect(&other).unwrap()
        });
        // One more intersect after the race, then the promises.
        filter.intersect(&other).unwrap();
        let lost = shared.clone().filter(|k| !filter.contains(k)).count();
        assert_eq!(lost, 0, "{layout}: intersect lost keys both filters hold");
        assert!(
            filter
                .words()
                .zip(other.words())
                .all(|(mine, theirs)| mine & !theirs == 0),
            "{layout}: bits outside `other` survived"
        );
    }
}

/// `clear` racing inserts and other clears: nothing appears that no writer
/// inserted, two clears racing each other leave nothing set, and a key
/// inserted after a clear returned is found (G5).
#[test]
fn clears_racing_inserts_and_each_other() {
    for layout in Layout::ALL {
        let filter = build(layout);
        let keys = 0..120_000u64;
        writers_racing(&filter, keys.clone(), 50, || filter.clear());
        let all = build(layout);
        all.insert_batch(keys.clone());
        assert!(
            filter.words().zip(all.words()).all(|(w, a)| w & !a == 0),
            "{layout}: a bit no writer set"
        );
        // Clears racing only each other: nothing survives.
        filter.insert_batch(keys.clone());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| filter.clear());
            }
        });
        assert_eq!(filter.count_ones(), 0, "{layout}");
        assert!(filter.insert(&7u64) && filter.contains(&7u64));
    }
}

/// A thread that panics halfway through a batch leaves the filter
/// consistent and usable: there is no lock to poison, every key it inserted
/// is present, and other threads go on. A `Mutex`-guarded set, by contrast,
/// is poisoned by the same panic.
#[test]
fn a_panicking_inserter_leaves_the_filter_usable() {
    let filter = build(Layout::Blocked);
    let locked = Mutex::new(HashSet::new());
    std::thread::scope(|s| {
        let bloom = s.spawn(|| {
            for key in 0..10_000u64 {
                if key == 5_000 {
                    panic!("worker dies mid-batch");
                }
                filter.insert(&key);
            }
        });
        assert!(bloom.join().is_err());
        let set = s.spawn(|| {
            let mut guard = locked.lock().unwrap();
            for key in 0..10_000u64 {
                if key == 5_000 {
                    panic!("worker dies mid-batch");
                }
                guard.insert(key);
            }
        });
        assert!(set.join().is_err());
    });
    assert!((0..5_000u64).all(|key| filter.contains(&key)));
    assert!(filter.insert(&10_000u64) && filter.contains(&10_000u64));
    assert!(locked.lock().is_err(), "the mutex should be poisoned");
}
