//! Shared pieces of the loom models: the tiny filters and hand-picked keys
//! they run on, the model runner, and the outcome recorder that makes a
//! model fail when it explored too little.
//!
//! Keys are given as 64-bit hashes and inserted with `insert_hash`, so the
//! bits each sets are fixed and known; `tests/keys.rs` (a normal test, run
//! without loom) checks that every key has the bits the models rely on.

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, Layout, Sizing, WyBuildHasher,
};
#[cfg(loom)]
use std::{
    collections::BTreeSet,
    fmt::Debug,
    sync::{Arc, Mutex},
};

/// One layout's tiny filter and the keys whose bits the models rely on.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The layout under test.
    pub layout: Layout,
    /// Bits in the filter: two words (one 512-bit block for `Blocked` and
    /// `Sectorized`, two 256-bit blocks for `SplitBlock`).
    pub num_bits: u64,
    /// A key whose bits span two words (one word for `Word`, a block's four
    /// for `SplitBlock`).
    pub a: u64,
    /// A key sharing a word with `a`, each having a bit the other lacks.
    pub b: u64,
    /// Two keys with no word in common.
    pub x: u64,
    /// See `x`.
    pub y: u64,
}

/// The splitmix64 increment, `2^64 / φ`: its multiples spread over the
/// whole range of hashes.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Every layout, each with `k = 2` (`SplitBlock`, which fixes it, 8).
pub const CASES: [Case; 5] = [
    // Multiples of 2^64 / φ: `Standard`'s first bit is the hash's top
    // bits, which small hashes would all share.
    Case {
        layout: Layout::Standard,
        num_bits: 128,
        a: GOLDEN.wrapping_mul(4),
        b: GOLDEN,
        x: GOLDEN,
        y: GOLDEN.wrapping_mul(2),
    },
    Case {
        layout: Layout::Blocked,
        num_bits: 512,
        a: 0,
        b: 1,
        x: 0,
        y: 6,
    },
    Case {
        layout: Layout::Word,
        num_bits: 128,
        a: 0,
        b: 1,
        x: 0,
        y: 1 << 63,
    },
    Case {
        layout: Layout::Sectorized,
        num_bits: 512,
        a: 0,
        b: 4,
        x: 0,
        y: 1,
    },
    Case {
        layout: Layout::SplitBlock,
        num_bits: 512,
        a: 0,
        b: 1,
        x: 0,
        y: 1 << 63,
    },
];

/// The cases of the whole-array models (`tests/bulk.rs`) and of the
/// batch model (`tests/insert.rs`): every layout but `SplitBlock`. Counting, clearing, union and intersect go over the
/// array word by word whatever the layout, so a layout brings them no
/// interleaving of its own beyond its insert's, which `tests/insert.rs`
/// and `tests/read.rs` explore for every layout; and `SplitBlock`'s
/// smallest two-block filter has eight words and eight-bit keys, for which
/// exhaustive exploration of a count racing two inserts ran past six
/// minutes.
pub const BULK_CASES: [Case; 4] = [CASES[0], CASES[1], CASES[2], CASES[3]];

/// The case for `layout`.
pub fn case(layout: Layout) -> Case {
    CASES
        .into_iter()
        .find(|c| c.layout == layout)
        .expect("every layout has a case")
}

impl Case {
    /// A fresh, empty filter of this case.
    pub fn filter(&self) -> AtomicBloom {
        AtomicBloom::builder()
            .bits(self.num_bits, self.layout.fixed_num_hashes().unwrap_or(2))
            .layout(self.layout)
            .build()
            .expect("tiny filters build")
    }

    /// A filter holding exactly `hashes`, built on one thread.
    pub fn filter_with(&self, hashes: &[u64]) -> AtomicBloom {
        let f = self.filter();
        for &h in hashes {
            f.insert_hash(h);
        }
        f
    }
}

/// Two keys (hashes) of [`counting_filter`]: their counters share word 14,
/// `COUNTING_A`'s at lane 6 (counter 230) and `COUNTING_B`'s at lane 7
/// (counter 231), and they share no counter (`tests/keys.rs` checks it).
pub const COUNTING_A: u64 = 0;
/// See [`COUNTING_A`].
pub const COUNTING_B: u64 = 29;
/// A key of [`counting_filter`] that shares exactly one counter with
/// [`COUNTING_A`] (counter 230, in word 14) and has another of its own
/// (counter 370): a double remove of `COUNTING_A` can take its count there
/// (`tests/keys.rs` checks it).
pub const COUNTING_SHARES_ONE_OF_A: u64 = 185;

/// A key of [`counting_filter`] whose two counters (131 and 138) lie in
/// one word, word 8: one compare-and-swap updates both (`tests/keys.rs`
/// checks it).
pub const COUNTING_ONE_WORD: u64 = 27;

/// The counting models' filter: 512 counters, `Blocked`, `k = 2`.
pub fn counting_filter() -> AtomicCountingBloom {
    let sizing = Sizing::for_bits(Layout::Blocked, 512, 2).expect("a tiny sizing");
    AtomicCountingBloom::with_sizing(sizing, WyBuildHasher::default()).expect("a tiny filter")
}

/// Keys (hashes) of the growable models' filter ([`growable_filter`]):
/// `GROWABLE_FULL` fills its first sub-filter; `GROWABLE_A`, `GROWABLE_B`
/// and `GROWABLE_C` each have a bit no other of the four has, in the first
/// three sub-filters (`tests/keys.rs` checks it), so each insert of them is
/// new wherever the others went, and a lost one is seen missing.
pub const GROWABLE_FULL: u64 = 0;
/// See [`GROWABLE_FULL`].
pub const GROWABLE_A: u64 = 1;
/// See [`GROWABLE_FULL`].
pub const GROWABLE_B: u64 = 2;
/// See [`GROWABLE_FULL`].
pub const GROWABLE_C: u64 = 3;

/// The default hasher, counting its clones: the growable filter clones
/// its hasher once when built and once into each sub-filter it allocates,
/// so the count tells how many threads allocated a sub-filter.
#[derive(Debug)]
pub struct CountingHasher {
    inner: WyBuildHasher,
    clones: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Clone for CountingHasher {
    fn clone(&self) -> Self {
        // A std atomic, not loom's: loom runs one thread at a time, and
        // this counter is the models' instrument, not their subject.
        self.clones
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        CountingHasher {
            inner: self.inner,
            clones: self.clones.clone(),
        }
    }
}

impl std::hash::BuildHasher for CountingHasher {
    type Hasher = <WyBuildHasher as std::hash::BuildHasher>::Hasher;
    fn build_hasher(&self) -> Self::Hasher {
        self.inner.build_hasher()
    }
}

/// The growable models' filter type.
pub type GrowableModelFilter = AtomicGrowableBloom<CountingHasher>;

/// The growable models' filter: first sub-filter of capacity 1 (fill limit
/// 2), one 64-bit word per sub-filter (`Word`), holding [`GROWABLE_FULL`],
/// so the next new key makes it grow. `memory_limit` caps its bytes.
pub fn growable_filter(memory_limit: Option<u64>) -> GrowableModelFilter {
    let hasher = CountingHasher {
        inner: WyBuildHasher::default(),
        clones: Default::default(),
    };
    let mut builder = AtomicGrowableBloom::builder()
        .capacity(1, 0.5)
        .layout(Layout::Word)
        .hasher(hasher);
    if let Some(limit) = memory_limit {
        builder = builder.memory_limit(limit);
    }
    let filter = builder.build().expect("a tiny growable filter");
    assert_eq!(filter.insert_hash(GROWABLE_FULL), Ok(true));
    filter
}

/// A growable filter with room for [`GROWABLE_A`] and [`GROWABLE_B`] in its
/// first sub-filter (capacity 2, one 64-bit word, `Word`), empty: two
/// inserts race into one sub-filter without growing it.
pub fn roomy_growable_filter() -> AtomicGrowableBloom {
    AtomicGrowableBloom::builder()
        .capacity(2, 0.5)
        .layout(Layout::Word)
        .build()
        .expect("a tiny growable filter")
}

/// How many sub-filters were allocated after the first, published or not.
pub fn sub_filters_allocated(filter: &GrowableModelFilter) -> usize {
    // One clone when the filter was built.
    filter
        .hasher()
        .clones
        .load(std::sync::atomic::Ordering::SeqCst)
        - 1
}

/// The words of a filter.
pub fn words(f: &AtomicBloom) -> Vec<u64> {
    f.words().collect()
}

/// Whether every bit of `part` is set in `whole`.
pub fn covers(whole: &[u64], part: &[u64]) -> bool {
    whole.iter().zip(part).all(|(w, p)| w & p == *p)
}

/// Outcomes a model reached, gathered across all of its executions.
///
/// A model records what each execution observed; afterwards the test
/// asserts that every outcome it expects to be reachable was reached, so a
/// model that explores too few interleavings (a preemption bound set too
/// low, a scenario that serializes by accident) fails instead of passing
/// vacuously.
#[cfg(loom)]
#[derive(Clone, Debug)]
struct Outcomes<T: Ord>(Arc<Mutex<BTreeSet<T>>>);

#[cfg(loom)]
impl<T: Ord + Debug + Clone> Outcomes<T> {
    /// An empty record.
    pub fn new() -> Self {
        Outcomes(Arc::new(Mutex::new(BTreeSet::new())))
    }

    /// Records one execution's outcome.
    pub fn record(&self, outcome: T) {
        self.0.lock().unwrap().insert(outcome);
    }

    /// Panics unless every outcome in `expected` was reached; returns all
    /// that were.
    pub fn assert_reached(&self, expected: &[T]) -> BTreeSet<T> {
        let reached = self.0.lock().unwrap().clone();
        for e in expected {
            assert!(
                reached.contains(e),
                "outcome {e:?} never reached; reached only {reached:?}"
            );
        }
        reached
    }
}

/// The preemption bound the suite runs with unless `LOOM_MAX_PREEMPTIONS`
/// says otherwise: none. The models are small enough (two threads, two
/// words or one block) for loom to explore every interleaving its DPOR
/// distinguishes; `loom-tests/README.md` has the counts and times.
pub const PREEMPTION_BOUND: Option<usize> = None;

/// Runs `f` under loom with [`PREEMPTION_BOUND`] and returns how many
/// executions loom explored.
///
/// Every model here races two threads, so a model that ran once explored
/// nothing: loom 0.7.2 can stop exploring when a thread loads a word before
/// writing it (its DPOR keeps only the last access per object; tokio-rs/loom
/// #392), and the test-before-set in every insert does exactly that. Such a
/// run fails here instead of passing vacuously.
#[cfg(loom)]
pub fn model<F: Fn() + Sync + Send + 'static>(f: F) -> usize {
    let executions = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = executions.clone();
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        builder.preemption_bound = PREEMPTION_BOUND;
    }
    builder.check(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f();
    });
    let executions = executions.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        executions > 1,
        "loom explored a single execution: the model checks nothing"
    );
    if std::env::var_os("LOOM_REPORT").is_some() {
        eprintln!("loom explored {executions} executions");
    }
    executions
}

/// Runs `f` under [`model`], records what each execution returns, asserts
/// that every outcome in `expected` was reached, and returns all that were.
#[cfg(loom)]
pub fn explore<T, F>(expected: &[T], f: F) -> BTreeSet<T>
where
    T: Ord + Debug + Clone + Send + 'static,
    F: Fn() -> T + Sync + Send + 'static,
{
    let outcomes = Outcomes::new();
    let record = outcomes.clone();
    model(move || record.record(f()));
    outcomes.assert_reached(expected)
}

/// The intersect scenario: `self` holds `case.b`, `other` holds `case.a`;
/// one thread intersects while another inserts `a`, which both filters
/// then hold. `a` must survive: intersect never clears a bit `other` holds.
/// (`b` and `a` share a word, each with a bit the other lacks, so the
/// intersect really writes the word the insert writes.)
#[cfg(loom)]
pub fn intersect_scenario(case: Case) {
    model(move || {
        let other = case.filter_with(&[case.a]);
        let (filter, (), _) = race(
            case.filter_with(&[case.b]),
            move |f| f.intersect(&other).unwrap(),
            |f| f.insert_hash(case.a),
        );
        assert!(
            filter.contains_hash(case.a),
            "intersect lost a key both filters hold"
        );
    });
}

/// The clear scenario: two threads clear a filter holding `a` and `b`;
/// afterwards every bit is clear.
#[cfg(loom)]
pub fn clear_scenario(case: Case) {
    model(move || {
        let (filter, (), ()) = race(
            case.filter_with(&[case.a, case.b]),
            |f| f.clear(),
            |f| f.clear(),
        );
        assert_eq!(filter.count_ones(), 0, "two clears left bits set");
    });
}

/// Runs `scenario` with `fault` injected into the crate's real code, and
/// without it afterwards even if the scenario panics.
#[cfg(loom)]
pub fn with_fault(fault: atomic_bloom::fault::Fault, scenario: impl FnOnce()) {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            atomic_bloom::fault::inject(None);
        }
    }
    let _reset = Reset;
    atomic_bloom::fault::inject(Some(fault));
    scenario();
}

/// One race on one filter (plain or counting): `spawned` runs on a new
/// thread while `main` runs on the model's own; returns the filter once
/// both are done, with their results. Give `main` the side that loads a word and then writes it (an
/// insert) where the other side only reads: see [`model`] for the loom quirk
/// this avoids.
#[cfg(loom)]
pub fn race<F, A, B>(
    filter: F,
    spawned: impl FnOnce(&F) -> A + Send + 'static,
    main: impl FnOnce(&F) -> B,
) -> (loom::sync::Arc<F>, A, B)
where
    F: Send + Sync + 'static,
    A: Send + 'static,
{
    let filter = loom::sync::Arc::new(filter);
    let handle = {
        let filter = filter.clone();
        loom::thread::spawn(move || spawned(&filter))
    };
    let mine = main(&filter);
    let theirs = handle.join().unwrap();
    (filter, theirs, mine)
}

/// The handoff scenario: a writer inserts `case.a`, then raises a flag with
/// `store`; the reader checks the key if it sees the flag with `load`.
/// Returns whether the reader saw the flag, per execution reached.
#[cfg(loom)]
pub fn handoff(
    case: Case,
    store: loom::sync::atomic::Ordering,
    load: loom::sync::atomic::Ordering,
) -> BTreeSet<bool> {
    use loom::sync::{Arc, atomic::AtomicBool};
    explore(&[false, true], move || {
        let ready = Arc::new(AtomicBool::new(false));
        let flag = ready.clone();
        let (_, (), saw_flag) = race(
            case.filter(),
            move |filter| {
                filter.insert_hash(case.a);
                flag.store(true, store);
            },
            |filter| {
                let saw_flag = ready.load(load);
                if saw_flag {
                    assert!(
                        filter.contains_hash(case.a),
                        "false negative after the handoff"
                    );
                }
                saw_flag
            },
        );
        saw_flag
    })
}

/// The union scenario: `src` holds `case.b`; one thread unions it into an
/// empty `dst` while another inserts `case.a` into `dst`.
#[cfg(loom)]
pub fn union_scenario(case: Case) {
    model(move || {
        let src = case.filter_with(&[case.b]);
        let (dst, _, ()) = race(
            case.filter(),
            move |dst| dst.insert_hash(case.a),
            |dst| dst.union(&src).unwrap(),
        );
        assert!(dst.contains_hash(case.a), "union lost a concurrent insert");
        assert!(dst.contains_hash(case.b), "union lost the source's key");
        assert_eq!(words(&dst), words(&case.filter_with(&[case.a, case.b])));
    });
}
