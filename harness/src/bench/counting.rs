//! `bench --counting`: what the counting filter costs, side by side in one
//! run. `AtomicCountingBloom` (Blocked, p = 1%) against a plain counting
//! filter of the same layout behind a `Mutex` (what a service would write
//! without this crate), and against the plain `AtomicBloom` of the same
//! sizing (what being able to remove costs). Insert, remove and contains,
//! per key on 1 and 2 threads and in bulk (`*_batch` on 1 thread, `par_*`
//! on 2), at 1M and 100M keys of capacity; u64 keys.
//!
//! Inserts put new keys into an empty filter; removes take keys out of a
//! filter holding them (refilled, untimed, before each run); queries ask
//! for keys present. Per-key rows use the capacity's keys at 1M and 2M
//! keys at 100M (each a cache miss); bulk rows 1M and 4M. The `Mutex`
//! rows do a tenth as many keys (their cost per key does not depend on
//! the fill). Ratios against the `Mutex` and against the plain filter's
//! per-key inserts and queries are measured as pairs; the rest are
//! quotients of rows.

use super::{FPP, Ratio, Session, Table, Work, paired, ratio, two_threads};
use crate::say;
use atomic_bloom::{AtomicBloom, AtomicCountingBloom, Builder, Cells, Layout};
use baselines::{MutexCounting, PlainCounting};

const C_INSERT_1T: &str = "counting insert, per key, 1 thread";
const C_INSERT_2T: &str = "counting insert, per key, 2 threads";
const C_REMOVE_1T: &str = "counting remove, per key, 1 thread";
const C_REMOVE_2T: &str = "counting remove, per key, 2 threads";
const C_CONTAINS_1T: &str = "counting contains hit, per key, 1 thread";
const C_CONTAINS_2T: &str = "counting contains hit, per key, 2 threads";
const C_INSERT_BATCH: &str = "counting insert_batch, 1 thread";
const C_INSERT_PAR: &str = "counting par_insert, 2 threads";
const C_REMOVE_BATCH: &str = "counting remove_batch_unchecked, 1 thread";
const C_REMOVE_PAR: &str = "counting par_remove_unchecked, 2 threads";
const C_CONTAINS_BATCH: &str = "counting contains_batch hit, 1 thread";
const C_CONTAINS_PAR: &str = "counting par_contains hit, 2 threads";
const M_INSERT_1T: &str = "Mutex<plain counting> insert, 1 thread";
const M_INSERT_2T: &str = "Mutex<plain counting> insert, 2 threads";
const M_REMOVE_1T: &str = "Mutex<plain counting> remove, 1 thread";
const M_REMOVE_2T: &str = "Mutex<plain counting> remove, 2 threads";
const M_CONTAINS_1T: &str = "Mutex<plain counting> contains hit, 1 thread";
const M_CONTAINS_2T: &str = "Mutex<plain counting> contains hit, 2 threads";
const P_INSERT_1T: &str = "AtomicBloom insert, per key, 1 thread";
const P_INSERT_2T: &str = "AtomicBloom insert, per key, 2 threads";
const P_CONTAINS_1T: &str = "AtomicBloom contains hit, per key, 1 thread";
const P_CONTAINS_2T: &str = "AtomicBloom contains hit, per key, 2 threads";
const P_INSERT_BATCH: &str = "AtomicBloom insert_batch, 1 thread";
const P_INSERT_PAR: &str = "AtomicBloom par_insert, 2 threads";
const P_CONTAINS_BATCH: &str = "AtomicBloom contains_batch hit, 1 thread";
const P_CONTAINS_PAR: &str = "AtomicBloom par_contains hit, 2 threads";

const RATIOS: &[Ratio] = &[
    paired(
        "counting / Mutex: insert, per key, 1T",
        C_INSERT_1T,
        M_INSERT_1T,
    ),
    paired(
        "counting / Mutex: insert, per key, 2T",
        C_INSERT_2T,
        M_INSERT_2T,
    ),
    paired(
        "counting / Mutex: remove, per key, 1T",
        C_REMOVE_1T,
        M_REMOVE_1T,
    ),
    paired(
        "counting / Mutex: remove, per key, 2T",
        C_REMOVE_2T,
        M_REMOVE_2T,
    ),
    paired(
        "counting / Mutex: contains, per key, 1T",
        C_CONTAINS_1T,
        M_CONTAINS_1T,
    ),
    paired(
        "counting / Mutex: contains, per key, 2T",
        C_CONTAINS_2T,
        M_CONTAINS_2T,
    ),
    ratio(
        "counting / Mutex per key: insert bulk, 2T",
        C_INSERT_PAR,
        M_INSERT_2T,
    ),
    ratio(
        "counting / Mutex per key: remove bulk, 2T",
        C_REMOVE_PAR,
        M_REMOVE_2T,
    ),
    paired(
        "counting / AtomicBloom: insert, per key, 1T",
        C_INSERT_1T,
        P_INSERT_1T,
    ),
    paired(
        "counting / AtomicBloom: insert, per key, 2T",
        C_INSERT_2T,
        P_INSERT_2T,
    ),
    paired(
        "counting / AtomicBloom: contains, per key, 1T",
        C_CONTAINS_1T,
        P_CONTAINS_1T,
    ),
    ratio(
        "counting / AtomicBloom: contains, per key, 2T",
        C_CONTAINS_2T,
        P_CONTAINS_2T,
    ),
    ratio(
        "counting / AtomicBloom: insert_batch, 1T",
        C_INSERT_BATCH,
        P_INSERT_BATCH,
    ),
    ratio(
        "counting / AtomicBloom: par_insert, 2T",
        C_INSERT_PAR,
        P_INSERT_PAR,
    ),
    ratio(
        "counting / AtomicBloom: contains_batch, 1T",
        C_CONTAINS_BATCH,
        P_CONTAINS_BATCH,
    ),
    ratio(
        "counting / AtomicBloom: par_contains, 2T",
        C_CONTAINS_PAR,
        P_CONTAINS_PAR,
    ),
    ratio(
        "counting remove / counting insert, per key, 1T",
        C_REMOVE_1T,
        C_INSERT_1T,
    ),
    ratio("counting: per-key insert 2T / 1T", C_INSERT_2T, C_INSERT_1T),
    ratio("counting: per-key remove 2T / 1T", C_REMOVE_2T, C_REMOVE_1T),
    ratio(
        "counting: par_insert 2T / insert_batch 1T",
        C_INSERT_PAR,
        C_INSERT_BATCH,
    ),
    ratio(
        "counting: par_remove_unchecked 2T / remove_batch_unchecked 1T",
        C_REMOVE_PAR,
        C_REMOVE_BATCH,
    ),
    ratio("Mutex: insert 2T / 1T", M_INSERT_2T, M_INSERT_1T),
];

pub fn run() -> anyhow::Result<()> {
    let mut session = Session::start();
    for (label, items, per_key, bulk) in [
        ("1M", 1_000_000u64, 1_000_000u64, 1_000_000u64),
        ("100M", 100_000_000, 2_000_000, 4_000_000),
    ] {
        let capacity = items as usize; // at most 100M: no truncation
        let slow = per_key / 10;
        fn builder<C: Cells>(capacity: usize) -> Builder<C> {
            Builder::default()
                .capacity(capacity, FPP)
                .layout(Layout::Blocked)
        }
        let counting: AtomicCountingBloom = builder(capacity).build()?;
        let plain: AtomicBloom = builder(capacity).build()?;
        let mutex = MutexCounting::new(PlainCounting::new(capacity, FPP));
        // Filled filters, for queries: the same keys in each.
        let filled_counting: AtomicCountingBloom = builder(capacity).build()?;
        let filled_plain: AtomicBloom = builder(capacity).build()?;
        let fill = bulk.max(per_key);
        filled_counting.par_insert(0..fill);
        filled_plain.par_insert(0..fill);
        let filled_mutex = MutexCounting::new(PlainCounting::new(capacity, FPP));
        two_threads(0..slow, |keys| {
            keys.for_each(|k| {
                filled_mutex.lock().unwrap().insert(&k);
            })
        });
        say!(
            "{label:>5} memory: counting {} MiB, plain {} MiB",
            counting.memory_bytes() >> 20,
            plain.memory_bytes() >> 20
        );
        let keys: Vec<u64> = (0..bulk).collect();
        let mut table = Table::new(label);
        let empty_counting = || counting.clear();
        // The keys to remove, put back before each timed remove.
        let holding = |n: u64| {
            let counting = &counting;
            move || {
                counting.clear();
                counting.par_insert(0..n);
            }
        };
        let mutex_holding = |n: u64| {
            let mutex = &mutex;
            move || {
                let mut f = mutex.lock().unwrap();
                f.clear();
                (0..n).for_each(|k| {
                    f.insert(&k);
                });
            }
        };

        table.per_key_inserts([C_INSERT_1T, C_INSERT_2T], per_key, empty_counting, |k| {
            counting.insert(&k);
        });
        table.per_key_inserts(
            [P_INSERT_1T, P_INSERT_2T],
            per_key,
            || plain.clear(),
            |k| {
                plain.insert(&k);
            },
        );
        table.per_key_inserts(
            [M_INSERT_1T, M_INSERT_2T],
            slow,
            || mutex.lock().unwrap().clear(),
            |k| {
                mutex.lock().unwrap().insert(&k);
            },
        );
        table.row(Work::after(C_REMOVE_1T, per_key, holding(per_key), || {
            assert!((0..per_key).all(|k| counting.remove_unchecked(&k)));
        }));
        table.row(Work::after(C_REMOVE_2T, per_key, holding(per_key), || {
            two_threads(0..per_key, |keys| {
                assert!(keys.into_iter().all(|k| counting.remove_unchecked(&k)))
            })
        }));
        table.row(Work::after(M_REMOVE_1T, slow, mutex_holding(slow), || {
            assert!((0..slow).all(|k| mutex.lock().unwrap().remove(&k)));
        }));
        table.row(Work::after(M_REMOVE_2T, slow, mutex_holding(slow), || {
            two_threads(0..slow, |keys| {
                assert!(keys.into_iter().all(|k| mutex.lock().unwrap().remove(&k)))
            })
        }));
        table.row(Work::new(C_CONTAINS_1T, per_key, || {
            assert!((0..per_key).all(|k| filled_counting.contains(&k)));
        }));
        table.row(Work::new(C_CONTAINS_2T, per_key, || {
            two_threads(0..per_key, |keys| {
                assert!(keys.into_iter().all(|k| filled_counting.contains(&k)))
            })
        }));
        table.row(Work::new(P_CONTAINS_1T, per_key, || {
            assert!((0..per_key).all(|k| filled_plain.contains(&k)));
        }));
        table.row(Work::new(P_CONTAINS_2T, per_key, || {
            two_threads(0..per_key, |keys| {
                assert!(keys.into_iter().all(|k| filled_plain.contains(&k)))
            })
        }));
        table.row(Work::new(M_CONTAINS_1T, slow, || {
            assert!((0..slow).all(|k| filled_mutex.lock().unwrap().contains(&k)));
        }));
        table.row(Work::new(M_CONTAINS_2T, slow, || {
            two_threads(0..slow, |keys| {
                assert!(
                    keys.into_iter()
                        .all(|k| filled_mutex.lock().unwrap().contains(&k))
                )
            })
        }));
        table.row(Work::after(C_INSERT_BATCH, bulk, empty_counting, || {
            counting.insert_batch(0..bulk);
        }));
        table.row(Work::after(C_INSERT_PAR, bulk, empty_counting, || {
            counting.par_insert(0..bulk);
        }));
        table.row(Work::after(
            P_INSERT_BATCH,
            bulk,
            || plain.clear(),
            || {
                plain.insert_batch(0..bulk);
            },
        ));
        table.row(Work::after(
            P_INSERT_PAR,
            bulk,
            || plain.clear(),
            || {
                plain.par_insert(0..bulk);
            },
        ));
        table.row(Work::after(C_REMOVE_BATCH, bulk, holding(bulk), || {
            assert_eq!(counting.remove_batch_unchecked(0..bulk), bulk as usize);
        }));
        table.row(Work::after(C_REMOVE_PAR, bulk, holding(bulk), || {
            assert_eq!(counting.par_remove_unchecked(0..bulk), bulk as usize);
        }));
        table.row(Work::new(C_CONTAINS_BATCH, bulk, || {
            assert!(
                filled_counting
                    .contains_batch(0..bulk)
                    .into_iter()
                    .all(|hit| hit)
            );
        }));
        table.row(Work::new(C_CONTAINS_PAR, bulk, || {
            assert!(
                filled_counting
                    .par_contains(&keys)
                    .into_iter()
                    .all(|hit| hit)
            );
        }));
        table.row(Work::new(P_CONTAINS_BATCH, bulk, || {
            assert!(
                filled_plain
                    .contains_batch(0..bulk)
                    .into_iter()
                    .all(|hit| hit)
            );
        }));
        table.row(Work::new(P_CONTAINS_PAR, bulk, || {
            assert!(filled_plain.par_contains(&keys).into_iter().all(|hit| hit));
        }));
        session.report(&table, RATIOS);
    }
    session.conclude();
    Ok(())
}
