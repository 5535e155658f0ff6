//! `bench --growable`: what not knowing the number of keys costs, side by
//! side in one run. `AtomicGrowableBloom` (Blocked, p = 1%, from 1000 keys,
//! growth 2, tightening 0.5) against an `AtomicBloom` pre-sized for the
//! final count (the price of not knowing `n`), and against
//! growable-bloom-filter 2 behind an `RwLock` on the same schedule (the
//! scalable filter a service would otherwise share). Insert, and contains
//! of present and of absent keys, per key on 1 and 2 threads and as
//! batches on 1 thread (and the insert batch through `&mut`, with plain
//! writes), at final counts of 1M and 10M keys; u64 keys.
//!
//! Inserts fill an empty filter with the final count of new keys, so the
//! growable filters grow through every sub-filter while timed (a fresh one
//! is swapped in, untimed, before each run). Queries ask a filled filter
//! for 1M present keys spread over it, or 1M absent ones: an absent key
//! probes every sub-filter, the growable filter's worst case. Ratios
//! against the pre-sized filter and the `RwLock` are measured as pairs;
//! the rest are quotients of rows.

use super::{ABSENT, FPP, Ratio, Session, Table, Work, paired, ratio, two_threads};
use crate::say;
use atomic_bloom::{AtomicBloom, AtomicGrowableBloom, Layout};
use baselines::{GrowableBloom, RwLockGrowable, growable_peer};
use std::sync::RwLock;

const INITIAL: usize = 1000;
const TIGHTENING: f64 = 0.5;
/// Queries per query row.
const QUERIES: u64 = 1_000_000;

const G_INSERT_1T: &str = "growable insert, per key, 1 thread";
const G_INSERT_2T: &str = "growable insert, per key, 2 threads";
const G_HIT_1T: &str = "growable contains hit, per key, 1 thread";
const G_HIT_2T: &str = "growable contains hit, per key, 2 threads";
const G_MISS_1T: &str = "growable contains miss, per key, 1 thread";
const G_MISS_2T: &str = "growable contains miss, per key, 2 threads";
const G_INSERT_BATCH_1T: &str = "growable insert_batch, 1 thread";
const G_HIT_BATCH_1T: &str = "growable contains_batch hit, 1 thread";
const G_MISS_BATCH_1T: &str = "growable contains_batch miss, 1 thread";
const P_INSERT_1T: &str = "pre-sized AtomicBloom insert, 1 thread";
const P_INSERT_2T: &str = "pre-sized AtomicBloom insert, 2 threads";
const P_HIT_1T: &str = "pre-sized AtomicBloom contains hit, 1 thread";
const P_HIT_2T: &str = "pre-sized AtomicBloom contains hit, 2 threads";
const P_MISS_1T: &str = "pre-sized AtomicBloom contains miss, 1 thread";
const P_MISS_2T: &str = "pre-sized AtomicBloom contains miss, 2 threads";
const R_INSERT_1T: &str = "RwLock<growable-bloom-filter> insert, 1 thread";
const R_INSERT_2T: &str = "RwLock<growable-bloom-filter> insert, 2 threads";
const R_HIT_1T: &str = "RwLock<growable-bloom-filter> hit, 1 thread";
const R_HIT_2T: &str = "RwLock<growable-bloom-filter> hit, 2 threads";
const R_MISS_1T: &str = "RwLock<growable-bloom-filter> miss, 1 thread";
const R_MISS_2T: &str = "RwLock<growable-bloom-filter> miss, 2 threads";

const RATIOS: &[Ratio] = &[
    paired("growable / pre-sized: insert, 1T", G_INSERT_1T, P_INSERT_1T),
    paired("growable / pre-sized: insert, 2T", G_INSERT_2T, P_INSERT_2T),
    paired("growable / pre-sized: contains hit, 1T", G_HIT_1T, P_HIT_1T),
    ratio("growable / pre-sized: contains hit, 2T", G_HIT_2T, P_HIT_2T),
    paired(
        "growable / pre-sized: contains miss, 1T",
        G_MISS_1T,
        P_MISS_1T,
    ),
    ratio(
        "growable / pre-sized: contains miss, 2T",
        G_MISS_2T,
        P_MISS_2T,
    ),
    paired(
        "growable / RwLock peer: insert, 1T",
        G_INSERT_1T,
        R_INSERT_1T,
    ),
    paired(
        "growable / RwLock peer: insert, 2T",
        G_INSERT_2T,
        R_INSERT_2T,
    ),
    paired(
        "growable / RwLock peer: contains hit, 1T",
        G_HIT_1T,
        R_HIT_1T,
    ),
    paired(
        "growable / RwLock peer: contains hit, 2T",
        G_HIT_2T,
        R_HIT_2T,
    ),
    paired(
        "growable / RwLock peer: contains miss, 1T",
        G_MISS_1T,
        R_MISS_1T,
    ),
    ratio(
        "growable / RwLock peer: contains miss, 2T",
        G_MISS_2T,
        R_MISS_2T,
    ),
    paired(
        "growable: insert_batch / per-key insert, 1T",
        G_INSERT_BATCH_1T,
        G_INSERT_1T,
    ),
    paired(
        "growable: contains_batch / per-key contains hit, 1T",
        G_HIT_BATCH_1T,
        G_HIT_1T,
    ),
    paired(
        "growable: contains_batch / per-key contains miss, 1T",
        G_MISS_BATCH_1T,
        G_MISS_1T,
    ),
    ratio("growable: insert 2T / 1T", G_INSERT_2T, G_INSERT_1T),
    ratio("growable: contains miss 2T / 1T", G_MISS_2T, G_MISS_1T),
    ratio("RwLock peer: insert 2T / 1T", R_INSERT_2T, R_INSERT_1T),
];

fn growable() -> AtomicGrowableBloom {
    AtomicGrowableBloom::builder()
        .capacity(INITIAL, FPP)
        .tightening_ratio(TIGHTENING)
        .layout(Layout::Blocked)
        .build()
        .expect("valid parameters")
}

fn peer() -> GrowableBloom {
    growable_peer(INITIAL, FPP, TIGHTENING)
}

/// The `i`-th of `QUERIES` present keys, spread evenly over `0..count`.
fn present(count: u64) -> impl Fn(u64) -> u64 + Copy + Sync {
    let step = (count / QUERIES).max(1);
    move |i| i * step
}

/// What a query row checks of its answers, so that none is optimised
/// away and a wrong one stops the run.
#[derive(Clone, Copy)]
enum Expect {
    /// Every key present: a `false` would be a false negative.
    AllFound,
    /// Keys never inserted: at p = 1%, fewer than 2% found.
    FewFound,
}

impl Expect {
    fn check(self, found: u64, asked: u64) {
        match self {
            Expect::AllFound => assert_eq!(found, asked, "a false negative"),
            Expect::FewFound => assert!(found < asked / 50, "{found} of {asked} absent keys found"),
        }
    }
}

impl<'a> Table<'a> {
    /// `query` of `QUERIES` keys (`key(i)` for each `i`), on one thread and
    /// on two; generic, so each contender's call is made directly.
    fn queries(
        &mut self,
        [one, two]: [&'static str; 2],
        key: impl Fn(u64) -> u64 + Copy + Sync + 'a,
        query: impl Fn(u64) -> bool + Copy + Sync + 'a,
        expect: Expect,
    ) {
        let found = move |keys: std::ops::Range<u64>| {
            let asked = keys.end - keys.start;
            expect.check(keys.filter(|&i| query(key(i))).count() as u64, asked);
        };
        self.row(Work::new(one, QUERIES, move || found(0..QUERIES)));
        self.row(Work::new(two, QUERIES, move || {
            two_threads(0..QUERIES, found)
        }));
    }

    /// `contains_batch` of `QUERIES` keys (`key(i)` for each `i`) on one
    /// thread.
    fn batch_queries(
        &mut self,
        what: &'static str,
        key: impl Fn(u64) -> u64 + 'a,
        filter: &'a AtomicGrowableBloom,
        expect: Expect,
    ) {
        self.row(Work::new(what, QUERIES, move || {
            let answers = filter.contains_batch((0..QUERIES).map(&key));
            expect.check(answers.iter().filter(|&&hit| hit).count() as u64, QUERIES);
        }));
    }
}

pub fn run() -> anyhow::Result<()> {
    let mut session = Session::start();
    for (label, count) in [("1M", 1_000_000u64), ("10M", 10_000_000)] {
        let at = present(count);
        // The filters inserts fill, swapped for fresh ones before each run.
        // The `RwLock` around ours is taken once per run, never per key.
        let ours = RwLock::new(growable());
        let sized = AtomicBloom::builder()
            .capacity(count as usize, FPP)
            .layout(Layout::Blocked)
            .build()?;
        let theirs: RwLock<RwLockGrowable> = RwLock::new(RwLock::new(peer()));
        // Filled filters, for queries: the same keys in each.
        let filled = growable();
        filled.par_insert(0..count)?;
        let filled_sized = AtomicBloom::builder()
            .capacity(count as usize, FPP)
            .layout(Layout::Blocked)
            .build()?;
        filled_sized.par_insert(0..count);
        let filled_peer: RwLockGrowable = RwLock::new(peer());
        {
            let mut peer = filled_peer.write().unwrap_or_else(|e| e.into_inner());
            (0..count).for_each(|k| {
                peer.insert(k);
            });
        }
        say!(
            "{label:>5} memory: growable {} KiB in {} sub-filters, pre-sized {} KiB",
            filled.memory_bytes() >> 10,
            filled.sub_filters(),
            sized.memory_bytes() >> 10
        );
        let g_query = |k: u64| filled.contains(&k);
        let p_query = |k: u64| filled_sized.contains(&k);
        let r_query = |k: u64| {
            filled_peer
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .contains(k)
        };
        let mut table = Table::new(label);
        let fresh_ours = || *ours.write().unwrap_or_else(|e| e.into_inner()) = growable();
        let fresh_theirs = || {
            *theirs.write().unwrap_or_else(|e| e.into_inner()) = RwLock::new(peer());
        };

        table.row(Work::after(G_INSERT_1T, count, fresh_ours, || {
            let f = ours.read().unwrap_or_else(|e| e.into_inner());
            (0..count).for_each(|k| {
                f.insert(&k).expect("no limit set");
            });
        }));
        table.row(Work::after(G_INSERT_2T, count, fresh_ours, || {
            let f = ours.read().unwrap_or_else(|e| e.into_inner());
            let f = &*f;
            two_threads(0..count, |keys| {
                keys.for_each(|k| {
                    f.insert(&k).expect("no limit set");
                })
            });
        }));
        table.row(Work::after(G_INSERT_BATCH_1T, count, fresh_ours, || {
            let f = ours.read().unwrap_or_else(|e| e.into_inner());
            f.insert_batch(0..count).expect("no limit set");
        }));
        table.per_key_inserts(
            [P_INSERT_1T, P_INSERT_2T],
            count,
            || sized.clear(),
            |k| {
                sized.insert(&k);
            },
        );
        table.row(Work::after(R_INSERT_1T, count, fresh_theirs, || {
            let f = theirs.read().unwrap_or_else(|e| e.into_inner());
            (0..count).for_each(|k| {
                f.write().unwrap_or_else(|e| e.into_inner()).insert(k);
            });
        }));
        table.row(Work::after(R_INSERT_2T, count, fresh_theirs, || {
            let f = theirs.read().unwrap_or_else(|e| e.into_inner());
            let f = &*f;
            two_threads(0..count, |keys| {
                keys.for_each(|k| {
                    f.write().unwrap_or_else(|e| e.into_inner()).insert(k);
                })
            });
        }));
        let absent = |i: u64| ABSENT + i;
        table.queries([G_HIT_1T, G_HIT_2T], at, g_query, Expect::AllFound);
        table.queries([P_HIT_1T, P_HIT_2T], at, p_query, Expect::AllFound);
        table.queries([R_HIT_1T, R_HIT_2T], at, r_query, Expect::AllFound);
        table.queries([G_MISS_1T, G_MISS_2T], absent, g_query, Expect::FewFound);
        table.batch_queries(G_HIT_BATCH_1T, at, &filled, Expect::AllFound);
        table.batch_queries(G_MISS_BATCH_1T, absent, &filled, Expect::FewFound);
        table.queries([P_MISS_1T, P_MISS_2T], absent, p_query, Expect::FewFound);
        table.queries([R_MISS_1T, R_MISS_2T], absent, r_query, Expect::FewFound);
        session.report(&table, RATIOS);
    }
    session.conclude();
    Ok(())
}
