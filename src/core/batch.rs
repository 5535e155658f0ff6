//! # Batches: hash ahead, prefetch, then operate
//!
//! A single `insert` or `contains` on a filter much larger than the cache
//! spends most of its time waiting for one cache miss. A batch hides that
//! wait: it hashes each key as it arrives, asks the CPU to prefetch the
//! key's block (or word, or `k` words for `Standard`), and operates on the
//! key a fixed number of keys later, when its line has had time to arrive
//! (`PREFETCH_DISTANCE`, 32). Up to that many misses are then in flight
//! at once.
//! (polars' `insert_many` does the same in groups of 64 keys; a sliding
//! window keeps the distance constant and works on any iterator.)
//!
//! In cache there is no miss to hide, and the window costs a few
//! instructions for each key: a loop of per-key `insert`s beats
//! `insert_batch` on filters of a megabyte or so, and the batch wins by
//! more and more from a few megabytes on (BENCHMARKS.md). The batch methods
//! keep one path for every size rather than guess the cache's.
//!
//! Results are exactly those of per-key calls in the same order: each key
//! goes through the same `insert_hash` or `contains_hash`, so a key repeated
//! within a batch is reported new only the first time, and under races a
//! batch insert returns per key what `insert` would (`docs::memory_ordering`, G4).
//! The prefetch is only a hint: it changes timing, never results.
//!
//! The pipeline serves every kind: a [`Stage`] says what to prefetch and do
//! for a key, and a [`CellOp`] what a fixed-size filter's stage does to a
//! key's cells (insert and query here; the counting filter's removes in
//! `kinds/counting.rs`). A batch picks its probe type once, with
//! `with_sized_probe!`, so its loop over keys has no branch on the layout.

use crate::core::cells::Cells;
use crate::core::filter::Filter;
use crate::hints::Access;
use crate::key::Key;
use crate::layout::{Probe, with_sized_probe};
use crate::sizing::Sizing;
use std::hash::BuildHasher;
use std::marker::PhantomData;

/// Keys between a key's prefetch and its operation. The lead a line gets is
/// this times the time a key takes, and a cached `Blocked` query is quick:
/// 16 keys ahead, a line's lead can be shorter than the DRAM miss of a
/// large filter, and twice the keys restore it. A counting key takes
/// longer, and its batches ran level at 16 and 32 (`cargo run --release -p
/// atomic-bloom-harness -- bench` and `-- bench --counting`; BENCHMARKS.md).
pub(crate) const PREFETCH_DISTANCE: usize = 32;

/// What a stage does to a key's cells, given its probe: generic over the
/// probe type, which the batch picks once.
pub(crate) trait CellOp<C>: Copy {
    /// How the op's prefetch asks for lines. Updates ask for them
    /// exclusively, because a new key's write needs them so; a line no
    /// other core holds arrives exclusive either way, so this costs a
    /// duplicate only when another core shares its line. Queries ask for a
    /// shared copy: an exclusive fetch would invalidate every other core's
    /// copy of the line, turning reads into coherence traffic.
    fn access(self) -> Access;
    /// Operates on the key; the result is the per-key call's.
    fn apply<P: Probe>(self, cells: &C, sizing: &Sizing, probe: &P) -> bool;
}

/// Defines `$name`, a [`CellOp`] on cells `$cells` (with the impl's
/// generics in brackets) that asks for lines with `$access` and does
/// `$apply`, a closure of the cells, the sizing and the probe.
macro_rules! cell_op {
    ($(#[$doc:meta])* $name:ident on [$($gen:tt)*] $cells:ty, $access:expr,
     |$c:ident, $s:ident, $p:ident| $apply:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub(crate) struct $name;

        impl<$($gen)*> $crate::core::batch::CellOp<$cells> for $name {
            fn access(self) -> $crate::hints::Access {
                $access
            }

            #[inline(always)]
            fn apply<P: $crate::layout::Probe>(
                self,
                $c: &$cells,
                $s: &$crate::sizing::Sizing,
                $p: &P,
            ) -> bool {
                $apply
            }
        }
    };
}
pub(crate) use cell_op;

cell_op!(
    /// Insert the key (`insert_hash`).
    Insert on [C: Cells] C, Access::write(), |cells, sizing, probe| cells.insert(sizing, probe)
);
cell_op!(
    /// Query the key (`contains_hash`).
    Contains on [C: Cells] C, Access::READ, |cells, sizing, probe| cells.contains(sizing, probe)
);

/// What a pipeline does with a key's hash: asks for its lines when the key
/// enters the window, and operates on it when the key leaves.
pub(crate) trait Stage {
    /// Asks the CPU to start fetching the lines the key's operation touches.
    fn prefetch(&self, hash: u64);
    /// Operates on the key; the result is the per-key call's.
    fn apply(&self, hash: u64) -> bool;
}

/// A fixed-size filter's stage: `op` on the cells of filters whose probes
/// are of type `P`.
pub(crate) struct CellStage<'a, C, S, P, O> {
    filter: &'a Filter<C, S>,
    op: O,
    /// `op.access()`, asked once per stage.
    access: Access,
    probe: PhantomData<P>,
}

impl<'a, C: Cells, S, P: Probe, O: CellOp<C>> CellStage<'a, C, S, P, O> {
    /// A stage over `filter`, whose layout's probe type must be `P` (pick
    /// it with `with_sized_probe!`).
    pub(crate) fn new(filter: &'a Filter<C, S>, op: O) -> Self {
        CellStage {
            filter,
            op,
            access: op.access(),
            probe: PhantomData,
        }
    }

    /// A pipeline of this stage, [`PREFETCH_DISTANCE`] keys long.
    pub(crate) fn pipeline(self) -> Pipeline<Self, PREFETCH_DISTANCE> {
        Pipeline::new(self)
    }

    /// The probe of the key with hash `hash`. It is derived again when the
    /// key's turn comes rather than queued: a hash is 8 bytes and a probe
    /// 24, and queueing probes took more instructions than deriving them
    /// twice (a multiply for the line).
    #[inline(always)]
    fn probe(&self, hash: u64) -> P {
        self.filter.sizing().probe::<P>(hash)
    }
}

impl<C: Cells, S, P: Probe, O: CellOp<C>> Stage for CellStage<'_, C, S, P, O> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        let sizing = self.filter.sizing();
        self.filter
            .cells()
            .prefetch(&sizing, &self.probe(hash), self.access);
    }

    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        let sizing = self.filter.sizing();
        self.op
            .apply(self.filter.cells(), &sizing, &self.probe(hash))
    }
}

/// A sliding window of hashes whose lines have been prefetched and that
/// wait their turn.
pub(crate) struct Pipeline<T, const D: usize> {
    stage: T,
    window: [u64; D],
    pushed: usize,
}

impl<T: Stage, const D: usize> Pipeline<T, D> {
    /// A pipeline `D` keys long: a key is operated on `D` pushes after its
    /// prefetch.
    pub(crate) fn new(stage: T) -> Self {
        Pipeline {
            stage,
            window: [0; D],
            pushed: 0,
        }
    }

    /// Prefetches `hash`'s lines and queues it; returns the result for the
    /// hash pushed `D` pushes ago, if any.
    // Always inlined: it holds the probe, and LLVM kept it out of line, a
    // call per key, in the Python extension's bulk calls (`python
    // python/bench/peers.py` measures them); the Rust batch paths inlined
    // it already.
    #[cfg(feature = "rayon")]
    #[inline(always)]
    pub(crate) fn push(&mut self, hash: u64) -> Option<bool> {
        self.stage.prefetch(hash);
        let slot = self.pushed % D;
        let result = (self.pushed >= D).then(|| self.stage.apply(self.window[slot]));
        self.window[slot] = hash;
        self.pushed += 1;
        result
    }

    /// The results for the hashes still queued, in order.
    #[cfg(feature = "rayon")]
    pub(crate) fn finish(self) -> impl Iterator<Item = bool> {
        let queued = self.pushed.saturating_sub(D)..self.pushed;
        queued.map(move |i| self.stage.apply(self.window[i % D]))
    }

    /// How many of `hashes` the stage reports `true` for (new keys, for an
    /// insert), in order.
    // Always inlined, as `collect` is, into the batch method that builds
    // the stage. Out of line, LLVM could not tell that the pipeline's
    // stores (the window, the results) leave the filter alone, so it
    // loaded the array's address, the sizing and the op again for every
    // key. Inlined they stay in registers.
    #[inline(always)]
    pub(crate) fn count(self, hashes: impl IntoIterator<Item = u64>) -> usize {
        let mut hits = 0;
        self.for_each_round(hashes, |results| {
            hits += results.iter().filter(|&&hit| hit).count();
        });
        hits
    }

    /// The stage's result for each of `hashes`, in order.
    #[inline(always)]
    pub(crate) fn collect(self, hashes: impl IntoIterator<Item = u64>) -> Vec<bool> {
        let hashes = hashes.into_iter();
        let mut out = Vec::with_capacity(hashes.size_hint().0);
        self.for_each_round(hashes, |results| out.extend_from_slice(results));
        out
    }

    /// Calls `f` with the stage's results for `hashes`, in order, a round
    /// of the window (`D` keys) at a time: what pushing each hash and then
    /// finishing would give, each key still operated on `D` keys after its
    /// prefetch.
    // The loop walks the window's slots in order, so a key costs no test
    // of whether the window is full yet or of where it wraps, and a
    // round's results go to the caller together: one `extend_from_slice`
    // per round instead of a `Vec::push` per key, whose length and capacity
    // LLVM kept in memory. Issuing a round's prefetches together and then
    // operating on the round before took fewer instructions still, but ran
    // slower on large filters: the prefetches came in bursts.
    #[inline(always)]
    fn for_each_round(self, hashes: impl IntoIterator<Item = u64>, mut f: impl FnMut(&[bool])) {
        debug_assert_eq!(self.pushed, 0, "a round starts at slot 0");
        let mut hashes = hashes.into_iter();
        let mut window = self.window;
        // The first round only fills the window.
        let mut filled = 0;
        for slot in &mut window {
            let Some(hash) = hashes.next() else { break };
            self.stage.prefetch(hash);
            *slot = hash;
            filled += 1;
        }
        // Each later round operates on each slot's key and queues a new one
        // in its place, until the keys run out.
        let mut results = [false; D];
        while filled == D {
            let mut replaced = 0;
            for (slot, result) in window.iter_mut().zip(results.iter_mut()) {
                let Some(hash) = hashes.next() else { break };
                self.stage.prefetch(hash);
                *result = self.stage.apply(*slot);
                *slot = hash;
                replaced += 1;
            }
            if replaced < D {
                // They ran out at slot `replaced`: the slots from there on
                // still hold keys of the round before, which come first.
                for (slot, result) in window[replaced..]
                    .iter()
                    .zip(results[replaced..].iter_mut())
                {
                    *result = self.stage.apply(*slot);
                }
                f(&results);
                filled = replaced;
                break;
            }
            f(&results);
        }
        for (slot, result) in window[..filled].iter().zip(results.iter_mut()) {
            *result = self.stage.apply(*slot);
        }
        f(&results[..filled]);
    }
}

impl<C: Cells, S> Filter<C, S> {
    /// How many of `hashes` `op` reports `true` for, in order, through the
    /// pipeline.
    pub(crate) fn batch_count<O: CellOp<C>>(
        &self,
        op: O,
        hashes: impl IntoIterator<Item = u64>,
    ) -> usize {
        with_sized_probe!(self.sizing(), P => {
            CellStage::<C, S, P, O>::new(self, op).pipeline().count(hashes)
        })
    }

    /// [`insert_batch`](Self::insert_batch) for callers that hold 64-bit
    /// hashes, as [`insert_hash`](Self::insert_hash) is to `insert`.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// let (a, b) = (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321);
    /// assert_eq!(f.insert_hash_batch([a, b, a]), 2);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        self.batch_count(Insert, hashes)
    }

    /// [`contains_batch`](Self::contains_batch) for callers that hold 64-bit
    /// hashes, as [`contains_hash`](Self::contains_hash) is to `contains`.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(100, 0.01)?;
    /// f.insert_hash(0x1234_5678_9abc_def0);
    /// assert_eq!(f.contains_hash_batch([0x1234_5678_9abc_def0, 7]), [true, false]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> Vec<bool> {
        with_sized_probe!(self.sizing(), P => {
            CellStage::<C, S, P, Contains>::new(self, Contains).pipeline().collect(hashes)
        })
    }
}

impl<C: Cells, S: BuildHasher> Filter<C, S> {
    /// Each key's hash, as the key arrives.
    pub(crate) fn hashes<I>(&self, keys: I) -> impl Iterator<Item = u64>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        keys.into_iter().map(|key| self.hash(&key))
    }

    /// Inserts every key, prefetching ahead (see the `batch` module's
    /// chapter in the source); returns how many keys this call reported
    /// new, that is how many of the per-key [`insert`](Self::insert) calls
    /// it stands for would have returned `true`. Much faster than a loop of
    /// `insert` once the filter outgrows the cache.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// let urls = ["a.example", "b.example", "a.example"];
    /// assert_eq!(f.insert_batch(urls), 2); // the repeat is not new
    /// assert_eq!(f.insert_batch(&urls[..2]), 0);
    ///
    /// let counting = atomic_bloom::AtomicCountingBloom::new(1_000, 0.01)?;
    /// assert_eq!(counting.insert_batch(urls), 2); // the repeat counts, but is not new
    /// assert_eq!(counting.count_of("a.example"), 2);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.insert_hash_batch(self.hashes(keys))
    }

    /// Queries every key, prefetching ahead; returns [`contains`](Self::contains)
    /// for each, in order.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..10u32);
    /// assert_eq!(f.contains_batch([3u32, 1_000, 9]), [true, false, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains_batch<I>(&self, keys: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.contains_hash_batch(self.hashes(keys))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::hints::recorded_prefetches;
    use crate::layout::Layout;
    use crate::storage::bit_array::WORDS_PER_LINE;
    use std::collections::BTreeSet;

    /// The plain filter.
    type AtomicBloom = Filter<crate::storage::BitArray>;

    /// The cache lines (as addresses / 64) whose words differ between two
    /// snapshots of one array.
    fn changed_lines(filter: &AtomicBloom, before: &[u64]) -> BTreeSet<usize> {
        let base = filter.cells().line_address(0);
        filter
            .words()
            .zip(before)
            .enumerate()
            .filter(|(_, (now, was))| now != *was)
            .map(|(i, _)| base + i / WORDS_PER_LINE)
            .collect()
    }

    /// For every layout, the lines the batch pipeline prefetches for a key,
    /// and those a single insert prefetches before its test, are exactly
    /// the lines inserting that key into an empty filter writes: a prefetch
    /// to the wrong line changes only timing, so nothing else would notice.
    #[test]
    fn batches_and_single_inserts_prefetch_the_lines_inserts_touch() {
        for layout in Layout::ALL {
            let filter = AtomicBloom::builder()
                .capacity(100_000, 0.001)
                .layout(layout)
                .build()
                .unwrap();
            for key in 0..500u64 {
                let hash = filter.hash(&key);
                let prefetched: BTreeSet<usize> = recorded_prefetches(|| {
                    with_sized_probe!(filter.sizing(), P => {
                        let pipeline = CellStage::<_, _, P, _>::new(&filter, Insert).pipeline();
                        pipeline.count(std::iter::repeat_n(hash, PREFETCH_DISTANCE));
                    })
                })
                .into_iter()
                .map(|address| address / 64)
                .collect();
                filter.clear();
                let before: Vec<u64> = filter.words().collect();
                let single: BTreeSet<usize> =
                    recorded_prefetches(|| assert!(filter.insert_hash(hash)))
                        .into_iter()
                        .map(|address| address / 64)
                        .collect();
                let written = changed_lines(&filter, &before);
                assert_eq!(prefetched, written, "{layout}: key {key}, batch");
                assert_eq!(single, written, "{layout}: key {key}, single insert");
            }
        }
    }

    /// Every batch length, shorter and longer than the prefetch window,
    /// gets exactly the results per-key calls would.
    #[test]
    fn batches_of_every_length_return_what_per_key_calls_would() {
        for len in 0..2 * PREFETCH_DISTANCE as u64 + 2 {
            let batched = AtomicBloom::new(1000, 0.01).unwrap();
            let single = AtomicBloom::new(1000, 0.01).unwrap();
            // Each key twice: the repeat is not new.
            let keys: Vec<u64> = (0..len).chain(0..len).collect();
            let per_key: Vec<bool> = keys.iter().map(|k| single.contains(k)).collect();
            assert_eq!(batched.contains_batch(&keys), per_key, "len {len}");
            let new = keys.iter().filter(|k| single.insert(k)).count();
            assert_eq!(batched.insert_batch(&keys), new, "len {len}");
            assert!(new <= len as usize, "len {len}: a repeat counted as new");
            assert_eq!(batched.contains_batch(&keys), vec![true; keys.len()]);
            // Present and absent keys in an order with no period (whether
            // the index has an even number of ones), so that an answer out
            // of place shows.
            let queries: Vec<u64> = (0..len)
                .map(|i| {
                    if i.count_ones() % 2 == 0 {
                        i / 2
                    } else {
                        1_000_000 + i
                    }
                })
                .collect();
            let per_key: Vec<bool> = queries.iter().map(|q| single.contains(q)).collect();
            assert_eq!(batched.contains_batch(&queries), per_key, "len {len}");
        }
    }
}
