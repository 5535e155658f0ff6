//! # The windowed filter
//!
//! [`AtomicWindowedBloom`] answers "was this key inserted within the
//! window?", where the window is a duration or a number of keys, for a
//! service that never stops: keys older than the window leave, so the
//! filter never fills. It keeps `g` generations of plain filters in a
//! lock-free ring (`ring.rs`, whose chapter has the design and the
//! concurrency argument; guarantees W1-W4 of `docs::memory_ordering`).
//!
//! ## The window
//!
//! Inserts go to the current generation; queries ask all `g`. A window of
//! `N` keys rotates when the current generation has taken `N / (g - 1)`
//! new keys (counted on a stripe per thread, `storage/striped_count.rs`,
//! so up to 1/1024 of a generation late); a window of duration `T` every
//! `T / (g - 1)` (a clock tick late with the coarse clock). A key is
//! therefore kept for at least the window (`g - 1` whole generations come
//! after its own) and at most `g / (g - 1)` of it. More generations keep
//! the window tighter and cost each query of an absent key more filters to
//! ask; the default, 4, keeps keys between `T` and `4T/3` for four
//! lookups, and memory for `5/3` of a window's keys (one spare
//! generation, `ring.rs`).
//!
//! ## Sizing
//!
//! Each generation is a plain filter sized for `N / (g - 1)` keys at rate
//! `1 - (1 - p)^(1/g)`, so that a query of an absent key, which passes if
//! any of the `g` generations passes it, is a false positive with
//! probability at most `p` when every generation is full: the worst point
//! of the cycle.

mod clock;
pub(crate) mod ring;

pub use clock::{Clock, ManualClock, MonotonicClock};

use crate::core::batch::{PREFETCH_DISTANCE, Pipeline, Stage};
use crate::core::cells::Storage;
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::hints::Access;
use crate::key::Key;
use crate::kinds::bloom::AtomicBloom;
use crate::layout::Layout;
use crate::layout::{Probe, with_sized_probe};
use crate::sizing::Sizing;
use crate::sync::{AtomicU64, Ordering::Relaxed};
use ring::{Generation, Inserted, Live, NOT_STARTED, Pause, Ring, Rotation};
use std::fmt;
use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

/// Generations a windowed filter keeps unless told otherwise.
pub const DEFAULT_GENERATIONS: u32 = 4;

/// The most generations a windowed filter may keep.
pub const MAX_GENERATIONS: u32 = 64;

/// What a windowed filter's window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Window {
    /// The last this many new keys.
    Keys(u64),
    /// The keys inserted within this long.
    Duration(Duration),
}

/// What a time window does when a generation takes more keys than it was
/// sized for before its time is up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum WhenFull {
    /// Rotate early: the rate bound holds, and keys may leave before the
    /// window's duration.
    #[default]
    Rotate,
    /// Keep filling until the time is up: the window holds, and the rate
    /// rises above the target.
    KeepFilling,
}

/// Builds an [`AtomicWindowedBloom`].
///
/// ```
/// use atomic_bloom::{AtomicWindowedBloom, Window};
/// use std::time::Duration;
///
/// // Drop duplicate events seen within the last hour (about 1M of them).
/// let seen = AtomicWindowedBloom::builder().capacity(1_000_000, 0.001)
///     .window(Window::Duration(Duration::from_secs(3600)))
///     .build()?;
/// assert!(seen.insert("event-1"));
/// assert!(!seen.insert("event-1"));
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Debug)]
#[must_use]
pub struct WindowedBuilder<S = WyBuildHasher> {
    /// Keys per window and the rate over the window: required.
    capacity: Option<(usize, f64)>,
    window: Option<Window>,
    generations: u32,
    when_full: WhenFull,
    layout: Layout,
    clock: Option<Arc<dyn Clock>>,
    hasher: S,
}

impl WindowedBuilder {
    /// Hash with the default hasher started from `seed` (default 0), as
    /// the other kinds' builders do.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::builder().capacity(100, 0.01).seed(7).build()?;
    /// assert_eq!(f.hasher().seed(), 7);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn seed(self, seed: u64) -> Self {
        self.hasher(WyBuildHasher::with_seed(seed))
    }
}

impl<S: BuildHasher + Clone> WindowedBuilder<S> {
    /// Size for `keys_per_window` keys in a window (of keys, by default;
    /// of a duration in which about that many arrive, with
    /// [`window`](Self::window)) at `false_positive_rate` over the whole
    /// window. Required, as every kind's builder requires a size.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, BuildError};
    /// let f = AtomicWindowedBloom::builder().capacity(1_000, 0.01).build()?;
    /// assert_eq!(f.keys_per_generation(), 334); // 1000 over 3 generations
    /// let err = AtomicWindowedBloom::builder().build().unwrap_err();
    /// assert_eq!(err, BuildError::MissingSize);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn capacity(mut self, keys_per_window: usize, false_positive_rate: f64) -> Self {
        self.capacity = Some((keys_per_window, false_positive_rate));
        self
    }

    /// The window: [`Window::Keys`] of the keys per window by default.
    pub fn window(mut self, window: Window) -> Self {
        self.window = Some(window);
        self
    }

    /// Generations kept, 2 to [`MAX_GENERATIONS`]; default
    /// [`DEFAULT_GENERATIONS`] (the module docs say what it trades).
    pub fn generations(mut self, generations: u32) -> Self {
        self.generations = generations;
        self
    }

    /// What a time window does with a generation that fills early.
    pub fn when_full(mut self, when_full: WhenFull) -> Self {
        self.when_full = when_full;
        self
    }

    /// Where each generation puts a key's bits; default [`Layout::Blocked`].
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// The clock a time window rotates by; default a [`MonotonicClock`],
    /// [coarse](MonotonicClock::coarse) for generations of a second or more.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Hash keys with `hasher`.
    pub fn hasher<T>(self, hasher: T) -> WindowedBuilder<T> {
        WindowedBuilder {
            capacity: self.capacity,
            window: self.window,
            generations: self.generations,
            when_full: self.when_full,
            layout: self.layout,
            clock: self.clock,
            hasher,
        }
    }

    /// The filter, or why not.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for a rate outside `(0, 1)`, no keys, generations
    /// outside `2..=MAX_GENERATIONS`, an empty window, or a size the
    /// allocator refuses.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, BuildError};
    /// let err = AtomicWindowedBloom::builder().capacity(1_000, 0.01).generations(1).build().unwrap_err();
    /// assert!(matches!(err, BuildError::InvalidGenerations { got: 1, .. }));
    /// ```
    pub fn build(self) -> Result<AtomicWindowedBloom<S>, BuildError> {
        let plan = self.plan()?;
        let filters = (0..=self.generations)
            .map(|_| AtomicBloom::with_sizing(plan.sizing, self.hasher.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let clock = self
            .clock
            .clone()
            .unwrap_or_else(|| default_clock(plan.schedule.period, Duration::ZERO));
        let ring = Ring::new(filters, clock.now_nanos(), plan.schedule.per_generation);
        Ok(self.assemble(plan.schedule, ring, clock, 0))
    }

    /// The filter of these parameters around `ring`.
    pub(crate) fn assemble(
        self,
        plan: Schedule,
        ring: Ring<S>,
        clock: Arc<dyn Clock>,
        filled_early: u64,
    ) -> AtomicWindowedBloom<S> {
        AtomicWindowedBloom {
            ring,
            keys_per_window: plan.keys_per_window,
            window: plan.window,
            period: plan.period,
            per_generation: plan.per_generation,
            when_full: self.when_full,
            filled_early: AtomicU64::new(filled_early),
            false_positive_rate: plan.false_positive_rate,
            clock,
            hasher: self.hasher,
        }
    }

    /// What the parameters give, checked, before anything is allocated.
    pub(crate) fn plan(&self) -> Result<Plan, BuildError> {
        let (schedule, generation_rate) = self.schedule()?;
        let items = usize::try_from(schedule.per_generation).map_err(|_| BuildError::TooLarge {
            requested_bits: u128::MAX,
            max_bits: self.layout.max_bits(),
        })?;
        Ok(Plan {
            sizing: Sizing::for_rate(self.layout, items, generation_rate)?,
            schedule,
        })
    }

    /// The parameters checked and the schedule they give, with each
    /// generation's rate but not its sizing (a loaded filter has its own):
    /// nothing allocated, not even the sizing model's tables.
    pub(crate) fn schedule(&self) -> Result<(Schedule, f64), BuildError> {
        let g = self.generations;
        if !(2..=MAX_GENERATIONS).contains(&g) {
            return Err(BuildError::InvalidGenerations {
                got: g,
                max: MAX_GENERATIONS,
            });
        }
        let (keys_per_window, p) = self.capacity.ok_or(BuildError::MissingSize)?;
        crate::sizing::check_rate(p)?;
        let keys_per_window = keys_per_window as u64;
        let window = self.window.unwrap_or(Window::Keys(keys_per_window));
        let (keys, period) = match window {
            Window::Keys(0) => return Err(BuildError::ZeroItems),
            Window::Keys(n) => (n, None),
            Window::Duration(d) if d.is_zero() => return Err(BuildError::ZeroWindow),
            Window::Duration(d) => (keys_per_window, Some(d / (g - 1))),
        };
        if keys == 0 {
            return Err(BuildError::ZeroItems);
        }
        let per_generation = keys.div_ceil(u64::from(g - 1));
        // 1 - (1 - p)^(1/g), kept precise for small p.
        let generation_rate = -((-p).ln_1p() / f64::from(g)).exp_m1();
        let schedule = Schedule {
            keys_per_window,
            false_positive_rate: p,
            window,
            period,
            per_generation,
        };
        Ok((schedule, generation_rate))
    }
}

/// Generations at least this long read the coarse clock by default
/// ([`MonotonicClock::coarse`]): a tick (at most 10 ms) is then at most 1%
/// of a generation.
const COARSE_CLOCK_FROM: Duration = Duration::from_secs(1);

/// The clock a time window of generations `period` long reads unless
/// given one, reading `elapsed` now.
pub(crate) fn default_clock(period: Option<Duration>, elapsed: Duration) -> Arc<dyn Clock> {
    let clock = MonotonicClock::starting_at(elapsed);
    if period.is_some_and(|p| p >= COARSE_CLOCK_FROM) {
        Arc::new(clock.coarse())
    } else {
        Arc::new(clock)
    }
}

/// When a window rotates, from a [`WindowedBuilder`]'s parameters.
pub(crate) struct Schedule {
    /// The builder's size.
    pub(crate) keys_per_window: u64,
    pub(crate) false_positive_rate: f64,
    pub(crate) window: Window,
    pub(crate) period: Option<Duration>,
    pub(crate) per_generation: u64,
}

/// What a [`WindowedBuilder`]'s parameters give.
pub(crate) struct Plan {
    pub(crate) schedule: Schedule,
    /// Each generation's.
    pub(crate) sizing: Sizing,
}

/// A Bloom filter of the keys inserted within a window, a duration or a
/// number of keys, shared by any number of threads without a lock: keys
/// older than the window leave, so it never fills. No false negative for a
/// key inserted within the window (W1 of `docs::memory_ordering`); a key
/// may stay up to a third of a window longer with the default four
/// generations (the `window` module's chapter in the source).
///
/// ```
/// use atomic_bloom::{AtomicWindowedBloom, ManualClock, Window};
/// use std::{sync::Arc, time::Duration};
///
/// let clock = Arc::new(ManualClock::new());
/// let recent = AtomicWindowedBloom::builder().capacity(10_000, 0.01)
///     .window(Window::Duration(Duration::from_secs(60)))
///     .clock(clock.clone())
///     .build()?;
/// recent.insert("client-7");
/// clock.advance(Duration::from_secs(59));
/// assert!(recent.contains("client-7")); // within the minute
/// clock.advance(Duration::from_secs(30));
/// assert!(!recent.contains("client-7")); // past the minute and its slack
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
pub struct AtomicWindowedBloom<S = WyBuildHasher> {
    ring: Ring<S>,
    /// The builder's count of keys per window (for a time window, about
    /// how many arrive in it).
    pub(crate) keys_per_window: u64,
    window: Window,
    /// A time window's generation length.
    pub(crate) period: Option<Duration>,
    /// New keys a generation is sized for, after which a window of keys
    /// rotates.
    per_generation: u64,
    pub(crate) when_full: WhenFull,
    /// Generations of a time window that took the keys they were sized
    /// for before their time was up.
    filled_early: AtomicU64,
    false_positive_rate: f64,
    pub(crate) clock: Arc<dyn Clock>,
    hasher: S,
}

impl AtomicWindowedBloom {
    /// A builder: its [`capacity`](WindowedBuilder::capacity) (keys per
    /// window and rate) is required, the window, generations, layout,
    /// clock and hasher have defaults.
    pub fn builder() -> WindowedBuilder {
        WindowedBuilder {
            capacity: None,
            window: None,
            generations: DEFAULT_GENERATIONS,
            when_full: WhenFull::default(),
            layout: Layout::default(),
            clock: None,
            hasher: WyBuildHasher::default(),
        }
    }

    /// A filter of the last `keys` new keys at `false_positive_rate`.
    ///
    /// ```
    /// let last = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// for i in 0..3_000u32 {
    ///     last.insert(&i);
    /// }
    /// assert!(last.contains(&2_999u32));
    /// assert!(!last.contains(&0u32)); // more than a window ago
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn new(keys: usize, false_positive_rate: f64) -> Result<Self, BuildError> {
        AtomicWindowedBloom::builder()
            .capacity(keys, false_positive_rate)
            .build()
    }
}

impl<S: BuildHasher> AtomicWindowedBloom<S> {
    /// Inserts `key`; returns whether it was absent from the whole window
    /// (no live generation held it), as a plain filter's `insert` returns
    /// whether the key was absent from it: `false` once seen within the
    /// window, which is what deduplication asks. A key that only an older
    /// generation holds is inserted again into the current one, so that it
    /// stays a whole window from this sighting, and still returns `false`.
    /// Racing inserts of one new key: at least one returns `true`.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, ManualClock, Window};
    /// use std::{sync::Arc, time::Duration};
    /// let clock = Arc::new(ManualClock::new());
    /// let hour = AtomicWindowedBloom::builder().capacity(1_000, 0.01)
    ///     .window(Window::Duration(Duration::from_secs(3600)))
    ///     .clock(clock.clone())
    ///     .build()?;
    /// assert!(hour.insert("a"));
    /// clock.advance(Duration::from_secs(25 * 60)); // a rotation: "a" is in an older generation
    /// assert!(!hour.insert("a")); // seen within the hour
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// Whether `key` was inserted within the window (or is a false
    /// positive).
    pub fn contains<T: Key + ?Sized>(&self, key: &T) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// The 64-bit hash the filter uses for `key`.
    pub fn hash<T: Key + ?Sized>(&self, key: &T) -> u64 {
        key.hash_with(&self.hasher)
    }

    /// [`insert`](Self::insert) by the key's 64-bit hash.
    pub fn insert_hash(&self, hash: u64) -> bool {
        self.rotate_if_due();
        self.insert_hash_now(hash, |_| {})
    }

    /// [`insert_hash`](Self::insert_hash) once the window is rotated:
    /// the key's line asked for in every live generation, then the ring's insert
    /// (`ring.rs`: write, ask the older generations if the write found the
    /// key new, check), with the key's probe derived once for all of them.
    #[inline]
    fn insert_hash_now(&self, hash: u64, pause: impl FnMut(Pause)) -> bool {
        let sizing = self.sizing();
        with_sized_probe!(sizing, P => {
            let probe = sizing.probe::<P>(hash);
            let live = self.ring.live_at(self.ring.epoch());
            // The current generation's line asked for too (for reading: the
            // key may be there already); asking only for the older ones'
            // ran slower (`bench --window`).
            live.prefetch(&sizing, &probe, Access::READ);
            let inserted = self.ring.insert_with(
                live,
                |f| f.cells().insert(&sizing, &probe),
                |f| f.cells().contains(&sizing, &probe),
                pause,
            );
            self.counted(inserted)
        })
    }

    /// What an insert's count means for the window: a time window whose
    /// generation just took the keys it was sized for counts it as filled
    /// early, and a full generation rotates (a time window's only if it
    /// rotates when full). Returns whether the key was new to the window.
    #[inline]
    fn counted(&self, inserted: Inserted) -> bool {
        if let Some((before, after)) = inserted.count {
            self.on_count(inserted.generation, before, after);
        }
        inserted.new
    }

    /// [`counted`](Self::counted) when a generation's count moved from
    /// `before` to `after` (a stripe passed keys on, `StripedCount::add`).
    #[cold]
    fn on_count(&self, generation: u64, before: u64, after: u64) {
        let full = self.per_generation;
        if after < full {
            return;
        }
        if before < full && self.period.is_some() {
            // ORDERING: Relaxed; a count for the caller, publishing nothing.
            self.filled_early.fetch_add(1, Relaxed);
        }
        if self.period.is_none() || self.when_full == WhenFull::Rotate {
            self.rotate_if_full(generation);
        }
    }

    /// [`insert_hash`](Self::insert_hash) that calls `pause` at one point
    /// of the insert (before its write, or after its write and before its
    /// check), for the loom models of inserts that race the rotations
    /// retiring their generation (W2). Not part of the API.
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn insert_hash_pausing(
        &self,
        hash: u64,
        before_write: bool,
        mut pause: impl FnMut(),
    ) -> bool {
        let at = if before_write {
            Pause::BeforeWrite
        } else {
            Pause::AfterWrite
        };
        self.insert_hash_now(hash, |point| {
            if point == at {
                pause();
            }
        })
    }

    /// [`contains`](Self::contains) by the key's 64-bit hash.
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.rotate_if_due();
        let sizing = self.sizing();
        with_sized_probe!(sizing, P => {
            let probe = sizing.probe::<P>(hash);
            let live = self.ring.live_at(self.ring.epoch());
            live.prefetch(&sizing, &probe, Access::READ);
            live.slots().any(|slot| slot.filter().cells().contains(&sizing, &probe))
        })
    }

    /// [`insert`](Self::insert) of each hash, in order; returns how many
    /// were absent from the window. Keys go 256 at a time through the
    /// plain filter's prefetching pipeline (`core/batch.rs`), each key's
    /// line asked for in every live generation a few dozen keys ahead, and
    /// the window's handshake is made once a chunk: the clock read (a time
    /// window's rotation may come one chunk late), the epoch read before
    /// the chunk's writes and checked after them. A rotation during the
    /// chunk makes each of its keys be written again into the generation
    /// now current, as a per-key insert whose check finds the epoch moved.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// let (a, b) = (f.hash("a"), f.hash("b"));
    /// f.insert_hash(a);
    /// assert_eq!(f.insert_hash_batch([a, b, b]), 1); // b, once
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> usize {
        let mut hashes = hashes.into_iter();
        let mut chunk = Vec::with_capacity(BATCH_CHUNK);
        let mut new = 0;
        loop {
            chunk.clear();
            chunk.extend(hashes.by_ref().take(self.room()));
            if chunk.is_empty() {
                return new;
            }
            new += self.insert_chunk(&chunk);
        }
    }

    /// Keys the next chunk of an insert batch may take: [`BATCH_CHUNK`],
    /// or fewer when the current generation rotates when full and has
    /// room for fewer new keys, so that a chunk never fills it past what
    /// it was sized for and rotates where the per-key inserts would (at
    /// least 1: a generation full but not yet rotated takes keys one by
    /// one, as per-key inserts do until their rotation lands).
    fn room(&self) -> usize {
        if self.period.is_some() && self.when_full == WhenFull::KeepFilling {
            return BATCH_CHUNK;
        }
        let taken = self.ring.slot(self.ring.epoch()).new_keys();
        let room = self.per_generation.saturating_sub(taken);
        usize::try_from(room).map_or(BATCH_CHUNK, |room| room.clamp(1, BATCH_CHUNK))
    }

    /// [`insert_hash_batch`](Self::insert_hash_batch) of one chunk.
    fn insert_chunk(&self, hashes: &[u64]) -> usize {
        self.rotate_if_due();
        let sizing = self.sizing();
        let live = self.ring.live_at(self.ring.epoch());
        let epoch = live.epoch;
        let (new, fresh) = with_sized_probe!(sizing, P => {
            let stage = InsertStage::<S, P> {
                sizing,
                live,
                fresh: std::cell::Cell::new(0),
                probe: PhantomData,
            };
            let new = Pipeline::<_, PREFETCH_DISTANCE>::new(&stage).count(hashes.iter().copied());
            (new, stage.fresh.get())
        });
        if self.ring.epoch() == epoch {
            if let Some((before, after)) = live.current().count_new(fresh) {
                self.on_count(epoch, before, after);
            }
        } else {
            // A rotation during the chunk: each key again, into the
            // generation current now, counted there if new to it.
            for &hash in hashes {
                let again = with_sized_probe!(sizing, P => {
                    let probe = sizing.probe::<P>(hash);
                    self.ring.settle((epoch, live.current()), false, true, |f| {
                        f.cells().insert(&sizing, &probe)
                    })
                });
                self.counted(again);
            }
        }
        new
    }

    /// [`contains`](Self::contains) of each hash, in order: the clock and
    /// the epoch read once for the batch, and each key's line asked for in
    /// every live generation a few dozen keys ahead of its query (the
    /// plain filter's pipeline, `core/batch.rs`). A key found in the
    /// window when the call began is found, but for one whose generation a
    /// rotation during the call retires (it left the window meanwhile), as
    /// per key (W1, W4).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// let (a, b) = (f.hash("a"), f.hash("b"));
    /// f.insert_hash(a);
    /// assert_eq!(f.contains_hash_batch([a, b, a]), [true, false, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: impl IntoIterator<Item = u64>) -> Vec<bool> {
        self.rotate_if_due();
        let sizing = self.sizing();
        let live = self.ring.live_at(self.ring.epoch());
        with_sized_probe!(sizing, P => {
            let stage = ContainsStage::<S, P> { sizing, live, probe: PhantomData };
            Pipeline::<_, PREFETCH_DISTANCE>::new(&stage).collect(hashes)
        })
    }

    /// Inserts every key; returns how many were absent from the window.
    pub fn insert_batch<I>(&self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.insert_hash_batch(keys.into_iter().map(|key| self.hash(&key)))
    }

    /// Whether each key was inserted within the window.
    pub fn contains_batch<I>(&self, keys: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        self.contains_hash_batch(keys.into_iter().map(|key| self.hash(&key)))
    }

    /// [`insert_batch`](Self::insert_batch) on all of rayon's threads.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(100_000, 0.01)?;
    /// assert!(f.par_insert(0..10_000u64) > 9_900);
    /// assert!(f.contains(&7_777u64));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_insert<I>(&self, keys: I) -> usize
    where
        I: rayon::iter::IntoParallelIterator,
        I::Item: Key,
        S: Sync,
    {
        use rayon::iter::ParallelIterator;
        use rayon::slice::ParallelSlice;
        let hashes: Vec<u64> = keys.into_par_iter().map(|key| self.hash(&key)).collect();
        hashes
            .par_chunks(PAR_CHUNK)
            .map(|chunk| self.insert_hash_batch(chunk.iter().copied()))
            .sum()
    }

    /// [`contains_batch`](Self::contains_batch) on all of rayon's threads,
    /// in order.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(100_000, 0.01)?;
    /// f.par_insert(0..1_000u32);
    /// assert_eq!(f.par_contains(vec![5u32, 999]), [true, true]);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    #[cfg(feature = "rayon")]
    pub fn par_contains<I>(&self, keys: I) -> Vec<bool>
    where
        I: rayon::iter::IntoParallelIterator,
        I::Iter: rayon::iter::IndexedParallelIterator,
        I::Item: Key,
        S: Sync,
    {
        crate::core::par_chunked(keys, |chunk| self.contains_batch(chunk))
    }
}

/// A windowed insert batch's stage: the key's line asked for in every
/// live generation; then written into the current one and, if new there,
/// asked of the older ones, as `Ring::insert_with` does for one key.
struct InsertStage<'a, S, P> {
    sizing: Sizing,
    live: Live<'a, S>,
    /// Keys the batch's writes found new to the current generation.
    fresh: std::cell::Cell<u64>,
    probe: PhantomData<P>,
}

impl<S, P: Probe> Stage for &InsertStage<'_, S, P> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        // The current generation's line for writing, as the plain filter's
        // insert batch asks: reading it ran the batch slower (`bench
        // --window`, insert_batch and par_insert rows).
        let probe = self.sizing.probe::<P>(hash);
        self.live.prefetch(&self.sizing, &probe, Access::write());
    }

    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        let probe = self.sizing.probe::<P>(hash);
        let cells = |age| self.live.at(age).filter().cells();
        if !cells(0).insert(&self.sizing, &probe) {
            return false;
        }
        self.fresh.set(self.fresh.get() + 1);
        !(1..self.live.count).any(|age| cells(age).contains(&self.sizing, &probe))
    }
}

/// A windowed query batch's stage: the key's line asked for in every live
/// generation, then each asked until one holds it.
struct ContainsStage<'a, S, P> {
    sizing: Sizing,
    live: Live<'a, S>,
    probe: PhantomData<P>,
}

impl<S, P: Probe> Stage for &ContainsStage<'_, S, P> {
    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        self.live
            .prefetch(&self.sizing, &self.sizing.probe::<P>(hash), Access::READ);
    }

    #[inline(always)]
    fn apply(&self, hash: u64) -> bool {
        let probe = self.sizing.probe::<P>(hash);
        self.live
            .slots()
            .any(|slot| slot.filter().cells().contains(&self.sizing, &probe))
    }
}

/// Keys a `par_insert` task takes at once.
#[cfg(feature = "rayon")]
const PAR_CHUNK: usize = 4096;

/// Keys an insert batch asks the window about at once: enough for the
/// plain filter's prefetching to run ahead, few enough that a rotation by
/// count (every keys-per-generation new keys) rarely falls inside one and
/// that a time window's rotation comes at most this many keys late.
const BATCH_CHUNK: usize = 256;

impl<S> AtomicWindowedBloom<S> {
    /// Starts a new generation now, retiring the oldest (its keys leave):
    /// for a caller that rotates by its own schedule. Returns `false` if
    /// the rotation could not happen yet (another thread's rotation won,
    /// or an insert that began before the spare generation was retired is
    /// still writing to it).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::builder().capacity(1_000, 0.01).generations(2).build()?;
    /// f.insert("a");
    /// assert!(f.rotate());
    /// assert!(f.contains("a")); // one generation back
    /// assert!(f.rotate());
    /// assert!(!f.contains("a")); // retired
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn rotate(&self) -> bool {
        let epoch = self.ring.epoch();
        self.ring.rotate_from(epoch, || self.clock.now_nanos()) == Rotation::Rotated
    }

    /// The window.
    pub fn window(&self) -> Window {
        self.window
    }

    /// What a time window does with a generation that fills early.
    pub fn when_full(&self) -> WhenFull {
        self.when_full
    }

    /// The layout of each generation's filter.
    pub fn layout(&self) -> Layout {
        self.ring.slot(0).filter().layout()
    }

    /// Each generation's filter's sizing.
    pub fn sizing(&self) -> Sizing {
        self.ring.slot(0).filter().sizing()
    }

    /// The hasher keys are hashed with.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Generations kept (`g`).
    pub fn generations(&self) -> u32 {
        self.ring.live() as u32
    }

    /// Whether no live generation holds a key: nothing was inserted, or
    /// everything inserted has left the window (a scan of the live
    /// generations that stops at the first key's bits).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::builder().capacity(100, 0.01).generations(2).build()?;
    /// assert!(f.is_empty());
    /// f.insert("a");
    /// assert!(!f.is_empty());
    /// f.rotate();
    /// f.rotate();
    /// assert!(f.is_empty());
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.live_generations()
            .all(|generation| generation.filter.is_none_or(AtomicBloom::is_empty))
    }

    /// Rotations so far.
    pub fn rotations(&self) -> u64 {
        self.ring.epoch()
    }

    /// The live generations now, newest first, as the ring's snapshot
    /// reads them (`ring.rs`).
    pub(crate) fn live_generations(&self) -> impl Iterator<Item = Generation<'_, S>> + '_ {
        self.snapshot().1
    }

    /// The epoch, read once, and the live generations at it.
    pub(crate) fn snapshot(&self) -> (u64, impl Iterator<Item = Generation<'_, S>> + '_) {
        let epoch = self.ring.epoch();
        (epoch, self.ring.snapshot(epoch))
    }

    /// The rate the window was built for: the most a query of an absent
    /// key passes when every generation is full (the growable filter's
    /// name for its target; [`estimated_false_positive_rate`] is the rate
    /// now, as on every kind).
    ///
    /// [`estimated_false_positive_rate`]: Self::estimated_false_positive_rate
    pub fn target_false_positive_rate(&self) -> f64 {
        self.false_positive_rate
    }

    /// The false-positive rate now, estimated from each live generation's
    /// fill: a query of an absent key passes if any generation passes it,
    /// so `1 - Π(1 - pᵢ)` over the live generations' estimates. Above
    /// [`target_false_positive_rate`](Self::target_false_positive_rate), when
    /// generations took more keys than they were sized for
    /// ([`WhenFull::KeepFilling`]).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// assert_eq!(f.estimated_false_positive_rate(), 0.0);
    /// f.insert_batch(0..1_000u32);
    /// assert!(f.estimated_false_positive_rate() < 0.012);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_false_positive_rate(&self) -> f64 {
        let passes_none: f64 = self
            .live_generations()
            .filter_map(|generation| generation.filter)
            .map(|filter| 1.0 - filter.estimated_false_positive_rate())
            .product();
        1.0 - passes_none
    }

    /// Sets what a time window does when a generation takes the keys it
    /// was sized for before its time is up: for a filter read from a file,
    /// which records the choice it was built with. Set to
    /// [`WhenFull::Rotate`], a current generation that already holds more
    /// than it was sized for rotates at once: while it answers `true` for
    /// almost every key, inserts would find their keys there and write
    /// nothing, and it would never fill again.
    pub fn set_when_full(&mut self, when_full: WhenFull) {
        self.when_full = when_full;
        if when_full == WhenFull::Rotate {
            self.rotate_if_full(self.ring.epoch());
        }
    }

    /// How many generations of a time window took the keys they were
    /// sized for before their time was up: keys arrive faster than the
    /// window was built for ([`WhenFull`] says what it then did). Always 0
    /// for a window of keys.
    ///
    /// ```
    /// use atomic_bloom::{AtomicWindowedBloom, ManualClock, WhenFull, Window};
    /// use std::{sync::Arc, time::Duration};
    /// let clock = Arc::new(ManualClock::new());
    /// let f = AtomicWindowedBloom::builder().capacity(300, 0.01)
    ///     .window(Window::Duration(Duration::from_secs(60)))
    ///     .when_full(WhenFull::KeepFilling)
    ///     .clock(clock.clone())
    ///     .build()?;
    /// // Sized for 100 keys per 20-second generation; 150 arrive at once.
    /// f.insert_batch(0..150u32);
    /// assert_eq!(f.generations_filled_early(), 1);
    /// clock.advance(Duration::from_secs(10));
    /// assert!(f.keys_per_second().unwrap() > 10.0); // about 15 a second
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn generations_filled_early(&self) -> u64 {
        // ORDERING: Relaxed, as where it is counted.
        self.filled_early.load(Relaxed)
    }

    /// New keys per second into the current generation since it began, by
    /// the filter's clock: the rate keys arrive at, to compare with what a
    /// time window was built for. `None` until time has gone by in it.
    pub fn keys_per_second(&self) -> Option<f64> {
        let slot = self.ring.slot(self.ring.epoch());
        let (started, inserted) = (slot.started(), slot.new_keys());
        let elapsed = self.clock.now_nanos().checked_sub(started)?;
        (started != NOT_STARTED && elapsed > 0).then(|| inserted as f64 * 1e9 / elapsed as f64)
    }

    /// New keys each generation is sized for.
    pub fn keys_per_generation(&self) -> u64 {
        self.per_generation
    }

    /// About how many keys the live generations hold: the keys each
    /// reported new to its generation (a key in two generations counts
    /// twice). Counted, so always `Some`: the type is every kind's.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// f.insert_batch(0..10u32);
    /// assert_eq!(f.estimated_len(), Some(10));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn estimated_len(&self) -> Option<u64> {
        Some(
            self.live_generations()
                .map(|generation| generation.new_keys)
                .sum(),
        )
    }

    /// Bytes of memory the generations take, the spare included.
    pub fn memory_bytes(&self) -> usize {
        self.ring.filters().map(AtomicBloom::memory_bytes).sum()
    }

    /// Rotates a time window once for each generation length that went by
    /// since the current generation started, so that a filter left idle
    /// forgets on time. Each new generation starts one length after the
    /// last (on schedule, however late the call), so that a key's
    /// generation is followed by `g - 1` whole lengths before it retires;
    /// after `g` rotations every old key is gone, and one more starts the
    /// current generation now.
    #[inline]
    fn rotate_if_due(&self) {
        if let Some(period) = self.period {
            self.rotate_if_past(period);
        }
    }

    /// [`rotate_if_due`](Self::rotate_if_due) of a time window.
    fn rotate_if_past(&self, period: Duration) {
        let period = u64::try_from(period.as_nanos()).unwrap_or(u64::MAX);
        for round in 0..=self.ring.live() {
            let epoch = self.ring.epoch();
            // A stale start rotates late, never early (`ring.rs`,
            // `rotate_from`).
            let started = self.ring.slot(epoch).started();
            if started == NOT_STARTED {
                return;
            }
            let now = self.clock.now_nanos();
            if now.saturating_sub(started) < period {
                return;
            }
            let next_start = if round < self.ring.live() {
                started.saturating_add(period)
            } else {
                now
            };
            if self.ring.rotate_from(epoch, || next_start) == Rotation::SpareBusy {
                return;
            }
        }
    }

    /// Rotates when generation `generation`, still current, has taken the
    /// keys it was sized for.
    fn rotate_if_full(&self, generation: u64) {
        let inserted = self.ring.slot(generation).new_keys();
        if inserted >= self.per_generation && self.ring.epoch() == generation {
            self.ring.rotate_from(generation, || self.clock.now_nanos());
        }
    }
}

/// Equal when built alike and holding the same generations: the same
/// parameters, rotations and counts, and each live generation the same
/// bits and count of new keys. When each generation began is not compared
/// (a reloaded filter's clock is a new one).
impl<S> PartialEq for AtomicWindowedBloom<S> {
    fn eq(&self, other: &Self) -> bool {
        let epoch = self.rotations();
        let same_generations = || {
            self.ring
                .snapshot(epoch)
                .zip(other.ring.snapshot(epoch))
                .all(|(a, b)| a.filter == b.filter && a.new_keys == b.new_keys)
        };
        self.keys_per_window == other.keys_per_window
            && self.window == other.window
            && self.when_full == other.when_full
            && self.false_positive_rate.to_bits() == other.false_positive_rate.to_bits()
            && self.ring.live() == other.ring.live()
            && epoch == other.rotations()
            && self.generations_filled_early() == other.generations_filled_early()
            && same_generations()
    }
}

impl<S: BuildHasher + Clone> AtomicWindowedBloom<S> {
    /// A copy: the same parameters and clock, and what each live
    /// generation holds now (a snapshot of each, as
    /// [`write_to`](Self::write_to) takes one).
    ///
    /// # Errors
    ///
    /// [`BuildError::AllocationFailed`] if the allocator refuses the
    /// copy's generations.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicWindowedBloom::new(1_000, 0.01)?;
    /// f.insert("a");
    /// let copy = f.try_clone()?;
    /// f.insert("b");
    /// assert!(copy.contains("a") && !copy.contains("b"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn try_clone(&self) -> Result<Self, BuildError> {
        let epoch = self.ring.epoch();
        let sizing = self.sizing();
        let empty = || AtomicBloom::with_sizing(sizing, self.hasher.clone());
        let generations = self
            .ring
            .snapshot(epoch)
            .map(|generation| {
                let Some(filter) = generation.filter else {
                    return Ok((empty()?, 0, NOT_STARTED));
                };
                let started = match generation.started {
                    // Its rotation has not read the clock yet.
                    NOT_STARTED => self.clock.now_nanos(),
                    started => started,
                };
                Ok((filter.try_clone()?, generation.new_keys, started))
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        Ok(AtomicWindowedBloom {
            ring: Ring::restore(epoch, generations, empty()?, self.per_generation),
            keys_per_window: self.keys_per_window,
            window: self.window,
            period: self.period,
            per_generation: self.per_generation,
            when_full: self.when_full,
            filled_early: AtomicU64::new(self.generations_filled_early()),
            false_positive_rate: self.false_positive_rate,
            clock: self.clock.clone(),
            hasher: self.hasher.clone(),
        })
    }
}

impl<S> fmt::Debug for AtomicWindowedBloom<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicWindowedBloom")
            .field("window", &self.window)
            .field("generations", &self.generations())
            .field("keys_per_generation", &self.per_generation)
            .field("false_positive_rate", &self.false_positive_rate)
            .field("rotations", &self.rotations())
            .finish_non_exhaustive()
    }
}

/// A copy, as [`try_clone`](AtomicWindowedBloom::try_clone) makes it;
/// panics if the allocator refuses it, as the other kinds' `Clone` does.
///
/// ```
/// let f = atomic_bloom::AtomicWindowedBloom::new(100, 0.01)?;
/// f.insert("a");
/// assert_eq!(f.clone(), f);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
impl<S: BuildHasher + Clone> Clone for AtomicWindowedBloom<S> {
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(copy) => copy,
            Err(e) => panic!("cloning AtomicWindowedBloom: {e}"),
        }
    }
}
