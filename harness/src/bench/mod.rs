//! `bench`: the headline benchmark in under two minutes, one table of
//! throughputs and the ratios the project's targets are stated in.
//!
//! Everything runs in one process, side by side. "2 threads" means two OS
//! threads sharing one filter (or rayon's pool for the bulk calls); keys are
//! `u64`, hashed with the same wyhash everywhere. Filters use the Blocked
//! layout at p = 1%. The full grid (every layout, string keys) is
//! `cargo bench --bench throughput`.
//!
//! ## How figures are taken on a noisy machine
//!
//! Each row is the best of three runs (more for short workloads, until
//! half a second has been spent on it). The machine this project runs on is
//! shared, and rows measured seconds apart drift by 20-40% against each
//! other, so a ratio of two rows can swing a verdict. The ratios that carry
//! a target are therefore measured again as **pairs**: numerator and
//! denominator run alternately, five times each (more for short
//! workloads), and the ratio reported is the median of the per-round
//! ratios, with their range. Other ratios
//! are quotients of the rows above them.
//!
//! A target ratio measured while other processes or the hypervisor took
//! more than 5% of the machine's CPU time (`load.rs`) that misses its target
//! is printed UNRELIABLE rather than MISSED, and the run ends by saying how
//! much of the machine others took.
//!
//! Per-key inserts put new keys into an empty filter: ours, fastbloom's and
//! the per-bit reference's alike, 1M keys into the 1M filter and 2M into
//! the 100M one (each key there is a cache miss, and a paired target runs
//! its rows ten times). Bulk inserts fill to the capacity (1M) or 10M keys.
//! The lock-based contenders insert a tenth of that (they are 3-15x
//! slower, and would otherwise take most of the time); their cost per key
//! does not depend on the fill. Queries and duplicate inserts ask filters
//! that hold their capacity's keys (1M, 100M), as a service's filter
//! would: in a sparser filter an absent key finds a clear bit sooner, which
//! favours a query that returns at the first one (fastbloom's) over one
//! that tests a whole block.
//!
//! The `Sectorized` layout's per-key rows come last in each size, and its
//! ratios to the same `Blocked` rows are measured as pairs too (with no
//! target: they say whether it wins), beside both layouts' bits per key at
//! the same target rate. Then the `SplitBlock` layout's per-key inserts
//! and queries and its `contains_batch`, with their own targets against
//! fastbloom and the load probes, and paired against `Blocked`. Then
//! `Standard`'s per-key inserts and hits, against fastbloom's (whose bits
//! go anywhere in the array too), with their targets.
//!
//! Last come the "sizing" lines: how long `Sizing::for_rate` takes for
//! each layout over a grid of item counts and rates, against a target of
//! 100 µs for the slowest, each case the best of its timings in three
//! passes spread over the run (`SizingTimes` says why).
//!
//! `bench --counting` runs the counting filter's comparison instead
//! (`counting.rs`), `bench --growable` the growable filter's
//! (`growable.rs`), `bench --window` the windowed filter's (`window.rs`),
//! and `bench --string-keys` the per-key insert targets with 32-byte
//! string keys (`strings.rs`), with the same measurement machinery.

/// The comparison is fixed so runs compare; a flag picks another one
/// instead of the plain filter's.
#[derive(clap::Args)]
pub struct Args {
    /// Compare the counting filter (`AtomicCountingBloom`) with a
    /// Mutex-wrapped counting filter and with the plain `AtomicBloom`:
    /// insert, remove and contains, per key and in bulk, 1 and 2 threads,
    /// 1M and 100M keys (about 1.5 GB of memory).
    #[arg(long, conflicts_with = "growable")]
    counting: bool,
    /// Compare the growable filter (`AtomicGrowableBloom`) with an
    /// `AtomicBloom` pre-sized for the final count and with
    /// growable-bloom-filter behind an `RwLock`: insert and contains, per
    /// key, 1 and 2 threads, 1M and 10M keys.
    #[arg(long, conflicts_with = "string_keys")]
    growable: bool,
    /// Measure the per-key insert targets with 32-byte string keys instead
    /// of u64s: ours, fastbloom and the per-bit reference, 1 and 2
    /// threads, 1M and 100M keys.
    #[arg(long, conflicts_with = "counting")]
    string_keys: bool,
    /// Compare the windowed filter (`AtomicWindowedBloom`, a window of 1M
    /// keys over four generations) with a plain `AtomicBloom` holding as
    /// many keys and with the same ring behind a `Mutex`: insert and
    /// contains, per key, 1 and 2 threads.
    #[arg(long, conflicts_with_all = ["counting", "growable", "string_keys"])]
    window: bool,
    /// Compare a shared filter (a file processes map) with the same filter
    /// in memory, per key, and one worker process with two inserting into
    /// one file; then time opening a 1 GiB saved filter against loading it
    /// (Linux; 1 GiB of temporary disk).
    #[arg(long, conflicts_with_all = ["counting", "growable", "string_keys", "window"])]
    shared: bool,
}

mod counting;
mod growable;
#[cfg(target_os = "linux")]
pub(crate) mod shared;
mod strings;
mod window;

use crate::load::{MAX_OTHERS_SHARE, Sample};
use crate::say;
use atomic_bloom::{AtomicBloom, Layout};
use baselines::{
    self, Locked, MutexFilter, PerBitBlocked, PlainBlocked, Probe, RwLockFilter, Sharded,
};
use std::hash::BuildHasher;
use std::ops::Range;
use std::time::Instant;

const FPP: f64 = 0.01;
/// Keys that were never inserted start here.
const ABSENT: u64 = 1 << 48;
/// Rounds of a paired measurement, at least.
const PAIRED_ROUNDS: usize = 5;
/// The least time spent measuring one row or one pair.
const MIN_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// One measured workload: `run` does `ops` operations; `reset` runs,
/// untimed, before each timing (to empty a filter, so every run inserts new
/// keys into an empty filter with its pages already mapped).
struct Work<'a> {
    what: &'static str,
    ops: u64,
    reset: Box<dyn Fn() + 'a>,
    run: Box<dyn Fn() + 'a>,
}

impl<'a> Work<'a> {
    fn new(what: &'static str, ops: u64, run: impl Fn() + 'a) -> Self {
        Work::after(what, ops, || {}, run)
    }

    fn after(what: &'static str, ops: u64, reset: impl Fn() + 'a, run: impl Fn() + 'a) -> Self {
        Work {
            what,
            ops,
            reset: Box::new(reset),
            run: Box::new(run),
        }
    }

    /// Inserting keys `0..ops` with `insert`, split over two threads.
    fn inserts_2t(
        what: &'static str,
        ops: u64,
        reset: impl Fn() + 'a,
        insert: impl Fn(u64) + Sync + 'a,
    ) -> Self {
        Work::after(what, ops, reset, move || {
            two_threads(0..ops, |keys| keys.for_each(&insert))
        })
    }

    /// Millions of operations per second in one run.
    fn mops(&self) -> f64 {
        (self.reset)();
        let start = Instant::now();
        (self.run)();
        self.ops as f64 / start.elapsed().as_secs_f64() / 1e6
    }
}

/// New keys inserted into a lock-based baseline on two threads.
fn locked_inserts_2t<'a>(what: &'static str, ops: u64, filter: &'a impl Locked) -> Work<'a> {
    Work::inserts_2t(
        what,
        ops,
        || filter.clear(),
        |k| {
            filter.insert(&k);
        },
    )
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

/// The workloads of one filter size, and their best-of-three throughputs.
struct Table<'a> {
    label: &'static str,
    works: Vec<Work<'a>>,
    best: Vec<f64>,
}

impl<'a> Table<'a> {
    /// A table with no rows yet, for the filters of size `label`.
    fn new(label: &'static str) -> Self {
        Table {
            label,
            works: Vec::new(),
            best: Vec::new(),
        }
    }

    /// Measures `work` (best of three runs, or of as many as fill
    /// `MIN_TIME`) and prints its row.
    fn row(&mut self, work: Work<'a>) {
        let best = repeat(3, || work.mops()).into_iter().fold(0.0, f64::max);
        say!("{:>5} {:<52} {best:>8.1} M/s", self.label, work.what);
        self.works.push(work);
        self.best.push(best);
    }

    /// Two rows: new keys `0..ops` inserted one call per key with
    /// `insert`, on one thread and split over two, after `reset`.
    fn per_key_inserts(
        &mut self,
        [one, two]: [&'static str; 2],
        ops: u64,
        reset: impl Fn() + Copy + 'a,
        insert: impl Fn(u64) + Copy + Sync + 'a,
    ) {
        self.row(Work::after(one, ops, reset, move || {
            (0..ops).for_each(insert)
        }));
        self.row(Work::inserts_2t(two, ops, reset, insert));
    }

    /// Two rows: present keys `0..ops` asked one call per key with
    /// `contains`, on one thread and split over two; every one must hit.
    fn per_key_hits(
        &mut self,
        [one, two]: [&'static str; 2],
        ops: u64,
        contains: impl Fn(u64) -> bool + Copy + Sync + 'a,
    ) {
        self.row(Work::new(one, ops, move || {
            assert!((0..ops).all(contains));
        }));
        self.row(Work::new(two, ops, move || {
            two_threads(0..ops, |keys| assert!(keys.into_iter().all(contains)));
        }));
    }

    /// Two rows: absent keys asked one call per key with `contains`, on
    /// one thread and split over two.
    fn per_key_misses(
        &mut self,
        [one, two]: [&'static str; 2],
        ops: u64,
        contains: impl Fn(u64) -> bool + Copy + Sync + 'a,
    ) {
        self.row(Work::new(one, ops, move || {
            std::hint::black_box((ABSENT..ABSENT + ops).filter(|&k| contains(k)).count());
        }));
        self.row(Work::new(two, ops, move || {
            two_threads(ABSENT..ABSENT + ops, |keys| {
                std::hint::black_box(keys.filter(|&k| contains(k)).count());
            });
        }));
    }

    fn index(&self, what: &str) -> usize {
        self.works
            .iter()
            .position(|work| work.what == what)
            .unwrap_or_else(|| panic!("no row {what:?}"))
    }

    /// The quotient of two rows' best throughputs.
    fn quotient(&self, num: &str, den: &str) -> f64 {
        self.best[self.index(num)] / self.best[self.index(den)]
    }

    /// Runs rows `num` and `den` alternately; the median and range of the
    /// per-round ratios.
    fn paired(&self, num: &str, den: &str) -> (f64, f64, f64) {
        let (num, den) = (&self.works[self.index(num)], &self.works[self.index(den)]);
        let mut ratios = repeat(PAIRED_ROUNDS, || num.mops() / den.mops());
        ratios.sort_by(f64::total_cmp);
        (
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1],
        )
    }
}

/// The results of `measure`, run `times` times and then, for short
/// workloads, again until `MIN_TIME` has passed (at most 30 runs): a run of
/// 50 ms on a shared machine is noisier than one of 500 ms.
fn repeat(times: usize, mut measure: impl FnMut() -> f64) -> Vec<f64> {
    let start = Instant::now();
    let mut results = Vec::new();
    while results.len() < times || (start.elapsed() < MIN_TIME && results.len() < 30) {
        results.push(measure());
    }
    results
}

/// A ratio of two rows; `target` marks the ones with a target, which
/// are measured as pairs, as are the `paired` ones.
struct Ratio {
    what: &'static str,
    num: &'static str,
    den: &'static str,
    paired: bool,
    target: Option<f64>,
}

const fn ratio(what: &'static str, num: &'static str, den: &'static str) -> Ratio {
    Ratio {
        what,
        num,
        den,
        paired: false,
        target: None,
    }
}

/// A ratio measured as pairs, with no target: a comparison that decides
/// something (a layout against another) rather than a goal.
const fn paired(what: &'static str, num: &'static str, den: &'static str) -> Ratio {
    Ratio {
        paired: true,
        ..ratio(what, num, den)
    }
}

const fn target(what: &'static str, num: &'static str, den: &'static str, at_least: f64) -> Ratio {
    Ratio {
        paired: true,
        target: Some(at_least),
        ..ratio(what, num, den)
    }
}

// Row names, shared by the rows and the ratios.
const INSERT_1T: &str = "insert, per key, 1 thread";
const INSERT_2T: &str = "insert, per key, 2 threads";
const INSERT_USED_1T: &str = "insert, per key, result used, 1 thread";
const FB_INSERT_USED_1T: &str = "fastbloom insert, result used, 1 thread";
const BATCH_1T: &str = "insert_batch, 1 thread";
const BULK_2T: &str = "par_insert (rayon bulk), 2 threads";
const UNSHARED_2T: &str = "insert_batch, 2 threads, a filter each";
const HALVES_2T: &str = "insert_hash_batch, 2 threads, a half of the array each";
const MUTEX_2T: &str = "Mutex<plain filter> insert, 2 threads";
const RWLOCK_2T: &str = "RwLock<plain filter> insert, 2 threads";
const SHARDED_2T: &str = "16 sharded mutexes insert, 2 threads";
const FASTBLOOM_1T: &str = "fastbloom 0.17 AtomicBloomFilter insert, 1 thread";
const FASTBLOOM_2T: &str = "fastbloom 0.17 AtomicBloomFilter insert, 2 threads";
const PER_BIT_1T: &str = "plain atomic blocked, fetch_or per bit, insert, 1 thread";
const PER_BIT_2T: &str = "plain atomic blocked, fetch_or per bit, insert, 2 threads";
const PER_BIT_DUP_1T: &str = "plain atomic blocked, fetch_or per bit, duplicates, 1 thread";
const CONTAINS_1T: &str = "contains hit, per key, 1 thread";
const CONTAINS_2T: &str = "contains hit, per key, 2 threads";
const FB_CONTAINS_1T: &str = "fastbloom contains hit, 1 thread";
const FB_CONTAINS_2T: &str = "fastbloom contains hit, 2 threads";
const FB_MISS_1T: &str = "fastbloom contains miss, 1 thread";
const FB_MISS_2T: &str = "fastbloom contains miss, 2 threads";
const CONTAINS_BATCH_1T: &str = "contains_batch hit, 1 thread";
const MISS_1T: &str = "contains miss, per key, 1 thread";
const MISS_2T: &str = "contains miss, per key, 2 threads";
const DUP_1T: &str = "insert of present keys (duplicates), 1 thread";
const PAR_CONTAINS_2T: &str = "par_contains hit, 2 threads";
const HASH_1T: &str = "probe: hash only, 1 thread";
const LOAD_1T: &str = "probe: one random load, 1 thread";
const LOAD_PF_1T: &str = "probe: one random load, prefetched, 1 thread";
const FETCH_OR_1T: &str = "probe: one random fetch_or, 1 thread";
const FETCH_OR_PF_1T: &str = "probe: one random fetch_or, prefetched, 1 thread";
const FETCH_OR_PF_2T: &str = "probe: one random fetch_or, prefetched, 2 threads";
const GROUP_PF_1T: &str = "probe: 4 fetch_ors in one line, prefetched, 1 thread";
const GROUP_PF_2T: &str = "probe: 4 fetch_ors in one line, prefetched, 2 threads";
const WORD_BULK_2T: &str = "Word layout par_insert, 2 threads";
const SECTOR_INSERT_1T: &str = "Sectorized layout insert, per key, 1 thread";
const SECTOR_INSERT_2T: &str = "Sectorized layout insert, per key, 2 threads";
const SECTOR_CONTAINS_1T: &str = "Sectorized layout contains hit, per key, 1 thread";
const SECTOR_MISS_1T: &str = "Sectorized layout contains miss, per key, 1 thread";
const SPLIT_INSERT_1T: &str = "SplitBlock layout insert, per key, 1 thread";
const SPLIT_INSERT_2T: &str = "SplitBlock layout insert, per key, 2 threads";
const SPLIT_CONTAINS_1T: &str = "SplitBlock layout contains hit, per key, 1 thread";
const SPLIT_CONTAINS_2T: &str = "SplitBlock layout contains hit, per key, 2 threads";
const SPLIT_MISS_1T: &str = "SplitBlock layout contains miss, per key, 1 thread";
const SPLIT_MISS_2T: &str = "SplitBlock layout contains miss, per key, 2 threads";
const SPLIT_BATCH_1T: &str = "SplitBlock layout contains_batch hit, 1 thread";
const STANDARD_INSERT_1T: &str = "Standard layout insert, per key, 1 thread";
const STANDARD_INSERT_2T: &str = "Standard layout insert, per key, 2 threads";
const STANDARD_CONTAINS_1T: &str = "Standard layout contains hit, per key, 1 thread";
const STANDARD_CONTAINS_2T: &str = "Standard layout contains hit, per key, 2 threads";

/// The per-key targets, the same for both sizes: inserts of new keys
/// against fastbloom and the per-bit reference, duplicates against
/// queries, queries against fastbloom.
const RATIOS_PER_KEY: &[Ratio] = &[
    target(
        "per-key insert 1T / fastbloom insert 1T",
        INSERT_1T,
        FASTBLOOM_1T,
        1.2,
    ),
    target(
        "per-key insert 2T / fastbloom insert 2T",
        INSERT_2T,
        FASTBLOOM_2T,
        1.2,
    ),
    target(
        "per-key insert 1T / per-bit reference insert 1T",
        INSERT_1T,
        PER_BIT_1T,
        1.0,
    ),
    target(
        "per-key insert 2T / per-bit reference insert 2T",
        INSERT_2T,
        PER_BIT_2T,
        1.0,
    ),
    target(
        "duplicate insert / contains of present keys",
        DUP_1T,
        CONTAINS_1T,
        0.9,
    ),
    target(
        "per-key contains hit 1T / fastbloom 1T",
        CONTAINS_1T,
        FB_CONTAINS_1T,
        1.2,
    ),
    target(
        "per-key contains hit 2T / fastbloom 2T",
        CONTAINS_2T,
        FB_CONTAINS_2T,
        1.2,
    ),
    target(
        "per-key contains miss 1T / fastbloom 1T",
        MISS_1T,
        FB_MISS_1T,
        1.2,
    ),
    target(
        "per-key contains miss 2T / fastbloom 2T",
        MISS_2T,
        FB_MISS_2T,
        1.2,
    ),
];
/// The bulk targets, and the query-to-load target where the filter is in
/// cache.
const RATIOS_100M: &[Ratio] = &[
    target(
        "bulk insert 2T / prefetched fetch_or probe 2T",
        BULK_2T,
        FETCH_OR_PF_2T,
        0.6,
    ),
    target(
        "contains_batch 1T / prefetched load probe 1T",
        CONTAINS_BATCH_1T,
        LOAD_PF_1T,
        0.7,
    ),
];
const RATIOS_1M: &[Ratio] = &[
    target(
        "per-key contains 1T / load probe 1T",
        CONTAINS_1T,
        LOAD_1T,
        0.5,
    ),
    target(
        "bulk insert 2T / fastbloom insert 2T",
        BULK_2T,
        FASTBLOOM_2T,
        1.5,
    ),
];
/// What explains the targets: the same for both sizes.
const RATIOS_BOTH: &[Ratio] = &[
    ratio("bulk insert 2T / Mutex insert 2T", BULK_2T, MUTEX_2T),
    ratio("bulk insert 2T / RwLock insert 2T", BULK_2T, RWLOCK_2T),
    ratio("bulk insert 2T / sharded insert 2T", BULK_2T, SHARDED_2T),
    ratio(
        "bulk insert 2T / fastbloom insert 2T",
        BULK_2T,
        FASTBLOOM_2T,
    ),
    ratio("per-key insert 2T / 1T", INSERT_2T, INSERT_1T),
    ratio(
        "per-key insert, result used, 1T / fastbloom's",
        INSERT_USED_1T,
        FB_INSERT_USED_1T,
    ),
    ratio(
        "per-key insert 1T: result used / result dropped",
        INSERT_USED_1T,
        INSERT_1T,
    ),
    ratio(
        "per-bit reference duplicates / contains of present keys",
        PER_BIT_DUP_1T,
        CONTAINS_1T,
    ),
    ratio(
        "machine: insert_batch 2T on a filter each / 1T",
        UNSHARED_2T,
        BATCH_1T,
    ),
    ratio(
        "machine: insert_hash_batch 2T on a half each / 1T",
        HALVES_2T,
        BATCH_1T,
    ),
    ratio(
        "machine: prefetched fetch_or probe 2T / 1T",
        FETCH_OR_PF_2T,
        FETCH_OR_PF_1T,
    ),
    ratio(
        "machine: 4-fetch_or-per-line probe 2T / 1T",
        GROUP_PF_2T,
        GROUP_PF_1T,
    ),
    ratio(
        "machine: 4-fetch_or-per-line probe 2T / prefetched fetch_or probe 2T",
        GROUP_PF_2T,
        FETCH_OR_PF_2T,
    ),
    ratio(
        "bulk insert 2T / 4-fetch_or-per-line probe 2T",
        BULK_2T,
        GROUP_PF_2T,
    ),
    ratio(
        "Word layout bulk insert 2T / prefetched fetch_or probe 2T",
        WORD_BULK_2T,
        FETCH_OR_PF_2T,
    ),
    ratio(
        "contains_batch 1T / prefetched load probe 1T",
        CONTAINS_BATCH_1T,
        LOAD_PF_1T,
    ),
    ratio(
        "par_contains 2T / contains_batch 1T",
        PAR_CONTAINS_2T,
        CONTAINS_BATCH_1T,
    ),
    ratio("per-key contains 1T / load probe 1T", CONTAINS_1T, LOAD_1T),
];

/// The `Sectorized` layout against the default, `Blocked`, at the same
/// target rate: whether it wins on per-key inserts and queries.
const RATIOS_LAYOUTS: &[Ratio] = &[
    paired(
        "Sectorized / Blocked: per-key insert 1T",
        SECTOR_INSERT_1T,
        INSERT_1T,
    ),
    paired(
        "Sectorized / Blocked: per-key insert 2T",
        SECTOR_INSERT_2T,
        INSERT_2T,
    ),
    paired(
        "Sectorized / Blocked: per-key contains hit 1T",
        SECTOR_CONTAINS_1T,
        CONTAINS_1T,
    ),
    // Unpaired, to keep the run under 90 s: misses cost what hits cost.
    ratio(
        "Sectorized / Blocked: per-key contains miss 1T",
        SECTOR_MISS_1T,
        MISS_1T,
    ),
    // Against the peers of the per-key insert targets, unpaired likewise.
    ratio(
        "Sectorized insert 1T / fastbloom insert 1T",
        SECTOR_INSERT_1T,
        FASTBLOOM_1T,
    ),
    ratio(
        "Sectorized insert 2T / fastbloom insert 2T",
        SECTOR_INSERT_2T,
        FASTBLOOM_2T,
    ),
    ratio(
        "Sectorized insert 1T / per-bit reference insert 1T",
        SECTOR_INSERT_1T,
        PER_BIT_1T,
    ),
    ratio(
        "Sectorized insert 2T / per-bit reference insert 2T",
        SECTOR_INSERT_2T,
        PER_BIT_2T,
    ),
];

/// The `SplitBlock` layout's targets at both sizes: per-key inserts of new
/// keys against fastbloom; then, paired with no target, against `Blocked`
/// (which it would replace as the default if it won on both vendors at
/// the same rate and memory).
const RATIOS_SPLIT: &[Ratio] = &[
    target(
        "SplitBlock insert 1T / fastbloom insert 1T",
        SPLIT_INSERT_1T,
        FASTBLOOM_1T,
        1.3,
    ),
    target(
        "SplitBlock insert 2T / fastbloom insert 2T",
        SPLIT_INSERT_2T,
        FASTBLOOM_2T,
        1.3,
    ),
    paired(
        "SplitBlock / Blocked: per-key insert 1T",
        SPLIT_INSERT_1T,
        INSERT_1T,
    ),
    paired(
        "SplitBlock / Blocked: per-key contains hit 1T",
        SPLIT_CONTAINS_1T,
        CONTAINS_1T,
    ),
    paired(
        "SplitBlock / Blocked: per-key contains miss 1T",
        SPLIT_MISS_1T,
        MISS_1T,
    ),
];
/// The `SplitBlock` layout's batch query against the prefetched load, out
/// of cache (100M keys), as `Blocked`'s.
const RATIOS_SPLIT_100M: &[Ratio] = &[target(
    "SplitBlock contains_batch 1T / prefetched load probe 1T",
    SPLIT_BATCH_1T,
    LOAD_PF_1T,
    0.7,
)];
/// The `SplitBlock` layout's query targets, where the filter is in cache
/// (1M keys): against fastbloom, and against one random load.
const RATIOS_SPLIT_1M: &[Ratio] = &[
    target(
        "SplitBlock contains hit 1T / fastbloom 1T",
        SPLIT_CONTAINS_1T,
        FB_CONTAINS_1T,
        1.5,
    ),
    target(
        "SplitBlock contains hit 2T / fastbloom 2T",
        SPLIT_CONTAINS_2T,
        FB_CONTAINS_2T,
        1.5,
    ),
    target(
        "SplitBlock contains miss 1T / fastbloom 1T",
        SPLIT_MISS_1T,
        FB_MISS_1T,
        1.5,
    ),
    target(
        "SplitBlock contains miss 2T / fastbloom 2T",
        SPLIT_MISS_2T,
        FB_MISS_2T,
        1.5,
    ),
    target(
        "SplitBlock per-key contains 1T / load probe 1T",
        SPLIT_CONTAINS_1T,
        LOAD_1T,
        0.5,
    ),
];

/// `Standard` against fastbloom, whose bits go anywhere in the array too
/// (the same class of layout), per key, at both sizes.
const RATIOS_STANDARD: &[Ratio] = &[
    target(
        "Standard insert 1T / fastbloom insert 1T",
        STANDARD_INSERT_1T,
        FASTBLOOM_1T,
        1.0,
    ),
    target(
        "Standard insert 2T / fastbloom insert 2T",
        STANDARD_INSERT_2T,
        FASTBLOOM_2T,
        1.0,
    ),
    target(
        "Standard contains hit 1T / fastbloom 1T",
        STANDARD_CONTAINS_1T,
        FB_CONTAINS_1T,
        1.0,
    ),
    target(
        "Standard contains hit 2T / fastbloom 2T",
        STANDARD_CONTAINS_2T,
        FB_CONTAINS_2T,
        1.0,
    ),
];

/// Item counts and rates `SizingTimes` sizes filters for.
const SIZING_ITEMS: [usize; 6] = [1, 100, 10_000, 1_000_000, 100_000_000, 10_000_000_000];
const SIZING_RATES: [f64; 8] = [0.5, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12];
/// The target for sizing a filter, in microseconds: the cost the sizing
/// search may have as a plain walk over `k` with a bisection per `k` (it
/// was 50 while the search carried heuristics to go faster).
const SIZING_TARGET_US: f64 = 100.0;

/// How long `Sizing::for_rate` takes, the part of `AtomicBloom::new` that
/// does not depend on the filter's size in memory: for each layout, the
/// mean, median and worst over `SIZING_ITEMS` x `SIZING_RATES`, each case
/// the best of five timings in a row (which keep the measure warm, as a
/// caller sizing filters one after another finds it) in each of three
/// passes over the grid.
///
/// The passes are spread over the run, one before the first table and one
/// after each, because a pass is short (about 15 ms) and the machine's
/// slow spells are not. On the shared machine this project runs on, a
/// program that timed `Blocked` sizing for n = 100, p = 1e-12 (best of 15
/// in a row, three times per process) read 38-40 µs in eight of ten
/// processes and 69-72 µs in the other two, every time within each; the
/// CPU time others took stayed near zero, so the bench's load check cannot
/// tell such a spell. Three back-to-back passes all fell in one such spell
/// in two bench runs that day; passes a run's length apart seldom do.
struct SizingTimes {
    cases: Vec<(Layout, usize, f64)>,
    best: Vec<f64>,
}

impl SizingTimes {
    fn new() -> Self {
        let cases: Vec<(Layout, usize, f64)> = Layout::ALL
            .into_iter()
            .flat_map(|layout| {
                SIZING_ITEMS
                    .into_iter()
                    .flat_map(move |n| SIZING_RATES.map(|p| (layout, n, p)))
            })
            .collect();
        let best = vec![f64::INFINITY; cases.len()];
        SizingTimes { cases, best }
    }

    /// One pass over the grid.
    fn pass(&mut self) {
        for (best, &(layout, n, p)) in self.best.iter_mut().zip(&self.cases) {
            for _ in 0..5 {
                let start = Instant::now();
                let sizing = atomic_bloom::Sizing::for_rate(layout, n, p);
                std::hint::black_box(sizing).ok();
                *best = best.min(start.elapsed().as_secs_f64() * 1e6);
            }
        }
    }

    /// The "sizing" lines, from the passes so far.
    fn report(&self) {
        say!(
            "\nsizing (Sizing::for_rate), microseconds over n in {SIZING_ITEMS:?} x p in {SIZING_RATES:?}:"
        );
        for layout in Layout::ALL {
            let mut times: Vec<(f64, usize, f64)> = self
                .cases
                .iter()
                .zip(&self.best)
                .filter(|((of, _, _), _)| *of == layout)
                .map(|(&(_, n, p), &time)| (time, n, p))
                .collect();
            times.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mean = times.iter().map(|t| t.0).sum::<f64>() / times.len() as f64;
            let median = times[times.len() / 2].0;
            let (worst, n, p) = times[times.len() - 1];
            let verdict = if worst <= SIZING_TARGET_US {
                "met"
            } else {
                "MISSED"
            };
            say!(
                "{:>9}: mean {mean:6.1}, median {median:6.1}, worst {worst:6.1} (n = {n}, p = {p}); \
                 worst <= {SIZING_TARGET_US} {verdict}",
                layout.to_string()
            );
        }
    }
}

/// One run of a comparison: its tables' ratios, gathered to be printed
/// together at the end, and what is needed to say how long it took and
/// how loaded the machine was.
struct Session {
    started: Instant,
    first: Option<Sample>,
    /// Rows measured, over every table.
    rows: usize,
    /// The lines of the ratios, in order.
    results: Vec<String>,
    /// Targets missed while others loaded the machine.
    unreliable: usize,
}

impl Session {
    fn start() -> Self {
        Session {
            started: Instant::now(),
            first: Sample::now(),
            rows: 0,
            results: Vec::new(),
            unreliable: 0,
        }
    }

    /// Counts `table`'s rows and adds the lines of `ratios` over them:
    /// pairs measured now (with a verdict for targets), quotients of the
    /// rows' best figures otherwise.
    fn report<'r>(&mut self, table: &Table<'_>, ratios: impl IntoIterator<Item = &'r Ratio>) {
        self.rows += table.works.len();
        for ratio in ratios {
            let line = self.ratio_line(table, ratio);
            self.results.push(line);
        }
    }

    /// The line of one ratio over `table`'s rows.
    fn ratio_line(&mut self, table: &Table<'_>, ratio: &Ratio) -> String {
        let line = match ratio.target {
            None if ratio.paired => {
                let (median, low, high) = table.paired(ratio.num, ratio.den);
                format!("{median:>7.3} {:>13}", format!("{low:.2}-{high:.2}"))
            }
            Some(at_least) => {
                let before = Sample::now();
                let (median, low, high) = table.paired(ratio.num, ratio.den);
                let others = before
                    .zip(Sample::now())
                    .map(|(a, b)| b.others_share_since(&a));
                let loaded = others.is_some_and(|share| share > MAX_OTHERS_SHARE);
                self.unreliable += usize::from(loaded && median < at_least);
                let verdict = match (median >= at_least, loaded) {
                    (true, _) => "met".to_string(),
                    (false, false) => "MISSED".to_string(),
                    (false, true) => format!(
                        "UNRELIABLE (others took {:.0}% of the CPUs)",
                        100.0 * others.unwrap_or(0.0)
                    ),
                };
                format!(
                    "{median:>7.3} {:>13} >= {at_least:.2} {verdict}",
                    format!("{low:.2}-{high:.2}")
                )
            }
            None => format!("{:>7.3}", table.quotient(ratio.num, ratio.den)),
        };
        format!("{:<72} {line}", format!("{}: {}", table.label, ratio.what))
    }

    /// Prints the ratios, how long the run took and how loaded the machine
    /// was.
    fn conclude(self) {
        let Session {
            started,
            first,
            rows,
            results,
            unreliable,
        } = self;
        say!(
            "\n{:<72} {:>7} {:>13} target",
            "ratio (targets: median of paired rounds, and range)",
            "value",
            "range"
        );
        for line in results {
            say!("{line}");
        }
        say!("\n{rows} rows in {:.0} s", started.elapsed().as_secs_f64());
        match first.zip(Sample::now()) {
            Some((a, b)) => say!(
                "others (other processes and the hypervisor) took {:.1}% of the CPUs during the run",
                100.0 * b.others_share_since(&a)
            ),
            None => say!("this system does not say how loaded it was (no /proc/stat)"),
        }
        if unreliable > 0 {
            eprintln!(
                "atomic-bloom: warning: {unreliable} target(s) missed while others took more than \
             {:.0}% of the CPUs: those verdicts say little; run again on an idle machine",
                100.0 * MAX_OTHERS_SHARE
            );
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.counting {
        return counting::run();
    }
    if args.growable {
        return growable::run();
    }
    if args.string_keys {
        return strings::run();
    }
    if args.window {
        return window::run();
    }
    if args.shared {
        #[cfg(target_os = "linux")]
        return shared::run();
        #[cfg(not(target_os = "linux"))]
        anyhow::bail!("shared filters are Linux-only");
    }
    let mut session = Session::start();
    let mut sizing = SizingTimes::new();
    sizing.pass();
    for (label, items, ops) in [
        ("1M", 1_000_000u64, 4_000_000u64),
        ("100M", 100_000_000, 10_000_000),
    ] {
        // Inserts stop at the filter's capacity (1M of 1M, 10M of 100M): past
        // it, most "new" keys would find their bits set and cost what a
        // duplicate costs.
        let inserts = ops.min(items);
        // Per-key calls, ours and the peers' alike: the filter's capacity
        // at 1M, a fifth of `ops` at 100M (each key there is a cache miss,
        // and the pairs below run every such row ten times).
        let per_key = (ops / 5).min(items);
        let slow_inserts = inserts / 10;
        let capacity = items as usize; // at most 100M: no truncation
        let fresh = |layout| {
            AtomicBloom::builder()
                .capacity(capacity, FPP)
                .layout(layout)
                .build()
                .unwrap()
        };
        // Inserts of new keys into an empty filter sized for `items`.
        let f = fresh(Layout::Blocked);
        let g = fresh(Layout::Blocked);
        let word = fresh(Layout::Word);
        let sectorized = fresh(Layout::Sectorized);
        let standard = fresh(Layout::Standard);
        let split = fresh(Layout::SplitBlock);
        say!(
            "{label:>5} bits per key at p = {FPP}: Blocked {:.2}, Sectorized {:.2}, SplitBlock {:.2}",
            f.num_bits() as f64 / items as f64,
            sectorized.num_bits() as f64 / items as f64,
            split.num_bits() as f64 / items as f64
        );
        let mutex = MutexFilter::new(PlainBlocked::new(capacity, FPP));
        let rwlock = RwLockFilter::new(PlainBlocked::new(capacity, FPP));
        let sharded = Sharded::new(capacity, FPP);
        let fb = baselines::fastbloom(capacity, FPP);
        let per_bit = PerBitBlocked::new(capacity, FPP);
        // Queries and duplicate inserts on filters holding their capacity
        // (the module's doc says why).
        let filled = fresh(Layout::Blocked);
        filled.par_insert(0..items);
        let sectorized_filled = fresh(Layout::Sectorized);
        sectorized_filled.par_insert(0..items);
        let split_filled = fresh(Layout::SplitBlock);
        split_filled.par_insert(0..items);
        let standard_filled = fresh(Layout::Standard);
        standard_filled.par_insert(0..items);
        let q = ops.min(items);
        let keys: Vec<u64> = (0..q).collect();
        // fastbloom holds the same keys, for its queries.
        let fb_filled = baselines::fastbloom(capacity, FPP);
        two_threads(0..items, |keys| {
            keys.for_each(|k| {
                fb_filled.insert(&k);
            })
        });
        // The per-bit reference holds them too, for its duplicate inserts:
        // the same bits, copied (its row checks that every key is present).
        let per_bit_filled = PerBitBlocked::copy_of(&filled);
        let pq = per_key.min(q);
        // Physical-limit probes on an array of the filter's size.
        let probe = Probe::new(filled.memory_bytes());

        // Keys hashed and split by the half of the array their block is in
        // (untimed), for the row that shares no line.
        let (low, high): (Vec<u64>, Vec<u64>) = (0..inserts)
            .map(|k| f.hasher().hash_one(k))
            .partition(|&hash| hash < 1 << 63);
        let mut table = Table::new(label);
        let ours = || f.par_clear();
        table.per_key_inserts([INSERT_1T, INSERT_2T], per_key, ours, |k| {
            f.insert(&k);
        });
        table.per_key_inserts(
            [FASTBLOOM_1T, FASTBLOOM_2T],
            per_key,
            || fb.clear(),
            |k| {
                fb.insert(&k);
            },
        );
        table.per_key_inserts(
            [PER_BIT_1T, PER_BIT_2T],
            per_key,
            || per_bit.clear(),
            |k| {
                per_bit.insert(&k);
            },
        );
        // The same new keys with each insert's result used, as a service
        // that acts on "was it new" does. A dropped result lets the compiler
        // drop what computes it: fastbloom's comes from its `fetch_or`s' old
        // values (used, x86-64 needs a `lock bts` where a `lock or` would
        // do), ours from the test that every insert runs anyway.
        table.row(Work::after(INSERT_USED_1T, per_key, ours, || {
            std::hint::black_box((0..per_key).filter(|k| f.insert(k)).count());
        }));
        table.row(Work::after(
            FB_INSERT_USED_1T,
            per_key,
            || fb.clear(),
            || {
                std::hint::black_box((0..per_key).filter(|k| !fb.insert(k)).count());
            },
        ));
        table.row(Work::after(BATCH_1T, inserts, ours, || {
            f.insert_batch(0..inserts);
        }));
        table.row(Work::after(BULK_2T, inserts, ours, || {
            f.par_insert(0..inserts);
        }));
        // The same work with nothing shared: each thread fills its own
        // filter, so no cache line moves between the cores. What the
        // machine gives two threads, and the ceiling for the shared filter.
        table.row(Work::after(
            UNSHARED_2T,
            inserts,
            || {
                f.par_clear();
                g.par_clear();
            },
            || {
                two_threads(0..inserts, |keys| {
                    let own = if keys.start == 0 { &f } else { &g };
                    own.insert_batch(keys);
                })
            },
        ));
        // The shared filter again, but each thread inserts only the keys
        // whose block is in its half of the array: the threads share the
        // filter and no cache line.
        table.row(Work::after(HALVES_2T, inserts, ours, || {
            std::thread::scope(|s| {
                s.spawn(|| f.insert_hash_batch(low.iter().copied()));
                f.insert_hash_batch(high.iter().copied());
            })
        }));
        table.row(locked_inserts_2t(MUTEX_2T, slow_inserts, &mutex));
        table.row(locked_inserts_2t(RWLOCK_2T, slow_inserts, &rwlock));
        table.row(locked_inserts_2t(SHARDED_2T, slow_inserts, &sharded));

        table.per_key_hits([CONTAINS_1T, CONTAINS_2T], pq, |k| filled.contains(&k));
        table.per_key_hits([FB_CONTAINS_1T, FB_CONTAINS_2T], pq, |k| {
            fb_filled.contains(&k)
        });
        table.per_key_misses([FB_MISS_1T, FB_MISS_2T], pq, |k| fb_filled.contains(&k));
        table.row(Work::new(CONTAINS_BATCH_1T, q, || {
            assert!(filled.contains_batch(0..q).into_iter().all(|hit| hit));
        }));
        table.per_key_misses([MISS_1T, MISS_2T], pq, |k| filled.contains(&k));
        table.row(Work::new(DUP_1T, pq, || {
            assert_eq!((0..pq).filter(|k| filled.insert(k)).count(), 0);
        }));
        table.row(Work::new(PER_BIT_DUP_1T, pq, || {
            assert_eq!((0..pq).filter(|k| per_bit_filled.insert(k)).count(), 0);
        }));
        table.row(Work::new(PAR_CONTAINS_2T, q, || {
            assert!(filled.par_contains(&keys).into_iter().all(|hit| hit));
        }));

        table.row(Work::new(HASH_1T, ops, || {
            std::hint::black_box(probe.hash_only(0..ops));
        }));
        table.row(Work::new(LOAD_1T, ops, || {
            std::hint::black_box(probe.load(0..ops));
        }));
        table.row(Work::new(LOAD_PF_1T, ops, || {
            std::hint::black_box(probe.load_prefetched(0..ops));
        }));
        table.row(Work::new(FETCH_OR_1T, ops, || {
            std::hint::black_box(probe.fetch_or(0..ops));
        }));
        table.row(Work::new(FETCH_OR_PF_1T, ops, || {
            std::hint::black_box(probe.fetch_or_prefetched(0..ops));
        }));
        table.row(Work::new(FETCH_OR_PF_2T, ops, || {
            two_threads(0..ops, |r| {
                std::hint::black_box(probe.fetch_or_prefetched(r));
            });
        }));
        table.row(Work::new(GROUP_PF_1T, ops, || {
            std::hint::black_box(probe.fetch_or_group_prefetched(0..ops, 4));
        }));
        table.row(Work::new(GROUP_PF_2T, ops, || {
            two_threads(0..ops, |r| {
                std::hint::black_box(probe.fetch_or_group_prefetched(r, 4));
            });
        }));
        table.row(Work::after(
            WORD_BULK_2T,
            inserts,
            || word.par_clear(),
            || {
                word.par_insert(0..inserts);
            },
        ));
        table.per_key_inserts(
            [SECTOR_INSERT_1T, SECTOR_INSERT_2T],
            per_key,
            || sectorized.par_clear(),
            |k| {
                sectorized.insert(&k);
            },
        );
        table.row(Work::new(SECTOR_CONTAINS_1T, pq, || {
            assert!((0..pq).all(|k| sectorized_filled.contains(&k)));
        }));
        table.row(Work::new(SECTOR_MISS_1T, pq, || {
            std::hint::black_box(
                (ABSENT..ABSENT + pq)
                    .filter(|k| sectorized_filled.contains(k))
                    .count(),
            );
        }));
        table.per_key_inserts(
            [SPLIT_INSERT_1T, SPLIT_INSERT_2T],
            per_key,
            || split.par_clear(),
            |k| {
                split.insert(&k);
            },
        );
        table.per_key_hits([SPLIT_CONTAINS_1T, SPLIT_CONTAINS_2T], pq, |k| {
            split_filled.contains(&k)
        });
        table.per_key_misses([SPLIT_MISS_1T, SPLIT_MISS_2T], pq, |k| {
            split_filled.contains(&k)
        });
        table.row(Work::new(SPLIT_BATCH_1T, q, || {
            assert!(split_filled.contains_batch(0..q).into_iter().all(|hit| hit));
        }));
        table.per_key_inserts(
            [STANDARD_INSERT_1T, STANDARD_INSERT_2T],
            per_key,
            || standard.par_clear(),
            |k| {
                standard.insert(&k);
            },
        );
        table.per_key_hits([STANDARD_CONTAINS_1T, STANDARD_CONTAINS_2T], pq, |k| {
            standard_filled.contains(&k)
        });
        let (sized, split_sized) = if label == "1M" {
            (RATIOS_1M, RATIOS_SPLIT_1M)
        } else {
            (RATIOS_100M, RATIOS_SPLIT_100M)
        };
        let targets: Vec<&Ratio> = RATIOS_PER_KEY
            .iter()
            .chain(sized)
            .chain(RATIOS_SPLIT)
            .chain(split_sized)
            .chain(RATIOS_STANDARD)
            .collect();
        // A ratio already measured as a target is not repeated as a quotient.
        let untargeted = RATIOS_BOTH
            .iter()
            .filter(|r| !targets.iter().any(|t| (t.num, t.den) == (r.num, r.den)));
        let ratios = targets
            .iter()
            .copied()
            .chain(RATIOS_LAYOUTS)
            .chain(untargeted);
        session.report(&table, ratios);
        sizing.pass();
    }
    sizing.report();
    session.conclude();
    Ok(())
}
