//! # The ring of generations
//!
//! A windowed filter keeps `g` live generations in a ring of `g + 1`
//! plain filters (slots) that share one sizing and hasher. Generation `e`
//! lives in slot `e mod (g + 1)`; the newest, `epoch`, takes inserts; the
//! `g` newest answer queries; the one slot left over is the *spare*,
//! cleared to become the next current generation. Inserts and queries
//! never wait; a rotation that finds the spare still being cleared by
//! another rotation says so and returns.
//!
//! ## Rotation (W3)
//!
//! A rotation from epoch `e` is one compare-and-swap of `epoch` from `e`
//! to `e + 1`: of racing rotations exactly one wins. Before it, the spare
//! (slot of `e + 1`) must be cleared for generation `e + 1`; the winner
//! then retires generation `e + 1 - g` (the oldest live one, which stops
//! answering queries), clears its slot and marks it ready for generation
//! `e + 2`, whose spare it is.
//!
//! ## Inserts: write, then check (W1, W2)
//!
//! An insert reads the epoch, writes the key into that generation, and
//! reads the epoch again. If it has not moved, the key went in while its
//! generation was current, and it stays for the `g - 1` rotations the
//! window promises. If it moved, the insert writes the key again into the
//! generation now current and checks again. So an insert takes effect at
//! its last check, and its only writes to shared memory are the filter's
//! own bits and the count of new keys (on a stripe of its own thread,
//! `storage/striped_count.rs`): no announcement, no read-modify-write of
//! a word that other threads write on their fast path.
//!
//! A write can reach a generation after it was retired: its insert read
//! the epoch, and before it wrote, rotations retired the generation and
//! cleared the slot (or a clear was running). Such a write is not lost:
//! the check after it sees the epoch moved and writes the key again into
//! the current generation. What it leaves behind is harmless: either the
//! clear erases it, or it stays in the slot's next generation (the spare,
//! or a generation begun since), where the key is kept one generation
//! longer than its window. That is the design of age-partitioned Bloom
//! filters (Shtul, Baquero and Almeida, <https://arxiv.org/abs/2001.03147>):
//! a delayed insert may only make a key older or younger, never lose it,
//! as long as the writer looks again after writing. The alternative, a
//! handshake that keeps every late write out of a cleared slot
//! (crossbeam-epoch's pinning, or a count of writers inside each slot),
//! costs each insert a fence or read-modify-writes of shared words, and
//! buys only the absence of those few extra bits.
//!
//! The check after the write needs no fence. If the write lands before a
//! clear that erases it while the check still reads the old epoch, the
//! whole insert precedes the rotation that moved the epoch from its
//! generation in that rotation's order (the check read the value before
//! it): the key was written while its generation was current, and left
//! with it `g` rotations later, on schedule. Reads of the epoch are
//! `Acquire`, pairing with the rotation's compare-and-swap, so that an
//! insert that sees a new generation writes after its clear (the clear
//! happens-before the rotation's `Acquire` of the spare's `ready_for`,
//! whose compare-and-swap the insert reads from).
//!
//! ## Queries (W4)
//!
//! A query loads the epoch and asks the `g` generations up to it. A
//! rotation may retire and clear the oldest of them while the query reads
//! it; its keys are then out of the window, so no query needs it, and the
//! query's answer for keys still in the window comes from the younger
//! generations, which no one clears.

use crate::core::cells::Storage;
use crate::hints::Access;
use crate::kinds::bloom::AtomicBloom;
use crate::kinds::counted::Counted;
use crate::layout::Probe;
use crate::sizing::Sizing;
use crate::storage::StripedCount;
#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crate::sync::{
    AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use crossbeam_utils::CachePadded;

/// A slot's start time before its rotation has read the clock: a window
/// never rotates on it.
pub(crate) const NOT_STARTED: u64 = u64::MAX;

/// One slot of the ring: a generation's filter and its count of new keys
/// (count rotation, estimates), striped over threads (`kinds/counted.rs`
/// says why), and the slot's state.
pub(crate) struct Slot<S> {
    counted: Counted<S, StripedCount>,
    /// The generation the slot was last cleared for: the spare may become
    /// generation `e` only once this is `e`. Set when the clear is done, so
    /// a slot being cleared still names the generation it held.
    ready_for: AtomicU64,
    /// When it became current, in the clock's nanoseconds;
    /// [`NOT_STARTED`] from its clear until the rotation that makes it
    /// current has read the clock.
    started: AtomicU64,
}

impl<S> Slot<S> {
    /// The generation's filter.
    #[inline]
    pub(crate) fn filter(&self) -> &AtomicBloom<S> {
        self.counted.filter()
    }

    /// Keys its inserts reported new, every stripe summed.
    pub(crate) fn new_keys(&self) -> u64 {
        self.counted.new_keys()
    }

    /// Counts `n` keys new to it; the total before and after, if this add
    /// passed steps on to it (`StripedCount::add`).
    #[inline]
    pub(crate) fn count_new(&self, n: u64) -> Option<(u64, u64)> {
        self.counted.count_new(n)
    }

    /// When it became current, or [`NOT_STARTED`].
    pub(crate) fn started(&self) -> u64 {
        // ORDERING: Relaxed; a start publishes nothing: a stale one makes a
        // time check rotate late, never early (`rotate_from`), and a copy
        // or a file takes whichever value it reads, as it takes a racing
        // insert's bits (G8 of `docs::memory_ordering`). Loom: window.rs,
        // `a_time_check_racing_a_rotation_keeps_the_new_generation`.
        self.started.load(Relaxed)
    }
}

/// A live generation as [`Ring::snapshot`] reads it.
pub(crate) struct Generation<'a, S> {
    /// Its filter; `None` for one older than generation 0, never made.
    pub(crate) filter: Option<&'a AtomicBloom<S>>,
    /// Keys its inserts reported new (0 for one never made).
    pub(crate) new_keys: u64,
    /// When it became current, or [`NOT_STARTED`] (never made, or its
    /// rotation has not read the clock yet).
    pub(crate) started: u64,
}

/// What [`Ring::rotate_from`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rotation {
    /// This call rotated.
    Rotated,
    /// Another call rotated from this epoch first.
    Lost,
    /// The spare is not cleared yet (the rotation that retired it is still
    /// clearing it): nothing changed.
    SpareBusy,
}

/// What [`Ring::insert_with`] did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inserted {
    /// A write reported the key new to its generation, and no generation
    /// older than the first one written held it: it was absent from the
    /// window.
    pub(crate) new: bool,
    /// The generation the insert took effect in.
    pub(crate) generation: u64,
    /// That generation's count of new keys before and after this insert,
    /// when this insert passed a step of it on (`StripedCount::add`).
    pub(crate) count: Option<(u64, u64)>,
}

/// The live generations at one epoch ([`Ring::live_at`]).
pub(crate) struct Live<'a, S> {
    slots: &'a [Slot<S>],
    /// The epoch they are live at.
    pub(crate) epoch: u64,
    /// The current generation's slot.
    newest: usize,
    /// How many: `g`, or fewer while fewer generations have existed.
    pub(crate) count: usize,
}

impl<S> Clone for Live<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Live<'_, S> {}

impl<'a, S> Live<'a, S> {
    /// The current generation's slot.
    #[inline]
    pub(crate) fn current(&self) -> &'a Slot<S> {
        &self.slots[self.newest]
    }

    /// The live generations' slots, newest first.
    #[inline]
    pub(crate) fn slots(&self) -> impl Iterator<Item = &'a Slot<S>> + use<'a, S> {
        let live = *self;
        (0..self.count).map(move |age| live.at(age))
    }

    /// Asks for the lines of the key with probe `probe` in every live
    /// generation, so that their misses overlap (a query of an absent key,
    /// or an insert of a new one, reads them all): the current one's for
    /// `current`, the older ones' for reading.
    #[inline]
    pub(crate) fn prefetch<P: Probe>(&self, sizing: &Sizing, probe: &P, current: Access) {
        for (age, slot) in self.slots().enumerate() {
            let access = if age == 0 { current } else { Access::READ };
            slot.filter().cells().prefetch(sizing, probe, access);
        }
    }

    /// The slot of the generation `age` generations older than the current
    /// one (less than `g`).
    #[inline]
    pub(crate) fn at(&self, age: usize) -> &'a Slot<S> {
        let index = if age <= self.newest {
            self.newest - age
        } else {
            self.newest + self.slots.len() - age
        };
        &self.slots[index]
    }
}

/// Where a loom model may hold an insert (`Ring::insert_with`'s `pause`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pause {
    /// The epoch is read, nothing written.
    BeforeWrite,
    /// The first write is done, not yet checked.
    AfterWrite,
}

/// The ring: `g + 1` slots and the current epoch.
pub(crate) struct Ring<S> {
    slots: Box<[Slot<S>]>,
    /// The current generation's number; only grows. Every operation reads
    /// it and only rotations write it, so it has a cache line of its own,
    /// which stays shared in every core's cache between rotations.
    epoch: CachePadded<AtomicU64>,
    /// Live generations, `g` (at least 2).
    live: u64,
}

impl<S> Ring<S> {
    /// A ring of `filters.len() - 1` live generations, generation 0 current
    /// from `now`, each counting new keys toward `full`.
    pub(crate) fn new(filters: Vec<AtomicBloom<S>>, now: u64, full: u64) -> Ring<S> {
        let live = filters.len() as u64 - 1;
        let slots = filters
            .into_iter()
            .enumerate()
            .map(|(i, filter)| Slot {
                counted: Counted::new(filter, 0, full),
                ready_for: AtomicU64::new(i as u64),
                started: AtomicU64::new(if i == 0 { now } else { NOT_STARTED }),
            })
            .collect();
        Ring {
            slots,
            epoch: CachePadded::new(AtomicU64::new(0)),
            live,
        }
    }

    /// A ring at epoch `epoch` whose live generations are `generations`,
    /// newest first (`g` of them; those older than generation 0, which
    /// never existed, empty), each with its filter, the keys it reported
    /// new and its start; `spare` becomes the next generation. Every slot
    /// is in the state the rotations that reached `epoch` would have left
    /// it in: ready for the generation it holds, or, cleared, for the next
    /// one it will hold.
    pub(crate) fn restore(
        epoch: u64,
        generations: Vec<(AtomicBloom<S>, u64, u64)>,
        spare: AtomicBloom<S>,
        full: u64,
    ) -> Ring<S> {
        let live = generations.len() as u64;
        let len = live + 1;
        let mut slots: Vec<Option<Slot<S>>> = (0..len).map(|_| None).collect();
        let fresh = |filter, generation, inserted, started| Slot {
            counted: Counted::new(filter, inserted, full),
            ready_for: AtomicU64::new(generation),
            started: AtomicU64::new(started),
        };
        for (age, (filter, inserted, started)) in (0..).zip(generations) {
            // A generation older than 0 never existed: its slot waits,
            // ready, for the first generation that will use it.
            let (generation, slot) = match epoch.checked_sub(age) {
                Some(generation) => (generation, fresh(filter, generation, inserted, started)),
                None => {
                    let generation = epoch + len - age;
                    (generation, fresh(filter, generation, 0, NOT_STARTED))
                }
            };
            slots[(generation % len) as usize] = Some(slot);
        }
        let next = epoch + 1;
        slots[(next % len) as usize] = Some(fresh(spare, next, 0, NOT_STARTED));
        Ring {
            slots: slots
                .into_iter()
                .map(|s| s.expect("every slot is filled"))
                .collect(),
            epoch: CachePadded::new(AtomicU64::new(epoch)),
            live,
        }
    }

    /// Live generations (`g`).
    pub(crate) fn live(&self) -> u64 {
        self.live
    }

    /// The `g` live generations at epoch `epoch`, newest first, each count
    /// and start read once: the one view of the generations that copies,
    /// files, comparisons and estimates take. A generation that rotations
    /// retire meanwhile reads as whatever its slot holds, as a racing
    /// insert's bits do.
    pub(crate) fn snapshot(&self, epoch: u64) -> impl Iterator<Item = Generation<'_, S>> + '_ {
        (0..self.live).map(move |age| match epoch.checked_sub(age) {
            None => Generation {
                filter: None,
                new_keys: 0,
                started: NOT_STARTED,
            },
            Some(generation) => {
                let slot = self.slot(generation);
                Generation {
                    filter: Some(slot.filter()),
                    new_keys: slot.new_keys(),
                    started: slot.started(),
                }
            }
        })
    }

    /// Every slot's filter, the spare's included.
    pub(crate) fn filters(&self) -> impl Iterator<Item = &AtomicBloom<S>> + '_ {
        self.slots.iter().map(Slot::filter)
    }

    /// The current generation's number.
    #[inline]
    pub(crate) fn epoch(&self) -> u64 {
        // ORDERING: Acquire, pairing with the rotation's `AcqRel`
        // compare-and-swap: a query or insert that sees an epoch sees the
        // slot's clear and start the rotation saw or wrote before it,
        // so an insert's write into a new generation lands after its
        // clear. A stale epoch only makes a query ask one older generation,
        // which W1 allows, and an insert write into a generation that the
        // check after its write finds moved (module docs). Loom: window.rs,
        // `a_key_inserted_before_a_query_is_found_across_a_rotation`, and
        // for a time window, whose check reads the new slot's start,
        // `a_time_check_racing_a_rotation_keeps_the_new_generation`.
        #[cfg(loom)]
        if fault::active(Fault::WindowEpochRelaxed) {
            // ORDERING: the fault: too weak, on purpose.
            return self.epoch.load(crate::sync::Ordering::Relaxed);
        }
        self.epoch.load(Acquire)
    }

    /// The slot of generation `generation`.
    #[inline]
    pub(crate) fn slot(&self, generation: u64) -> &Slot<S> {
        &self.slots[(generation % self.slots.len() as u64) as usize]
    }

    /// The live generations at epoch `epoch`: the newest one's slot found
    /// with one division, the older ones a step back around the ring each.
    #[inline]
    pub(crate) fn live_at(&self, epoch: u64) -> Live<'_, S> {
        #[cfg(loom)]
        let live = if fault::active(Fault::WindowQueryCurrentOnly) {
            1
        } else {
            self.live
        };
        #[cfg(not(loom))]
        let live = self.live;
        Live {
            slots: &self.slots,
            epoch,
            newest: (epoch % self.slots.len() as u64) as usize,
            count: live.min(epoch + 1) as usize,
        }
    }

    /// Inserts a key (W1, W2, W6): `write`s it into the current generation,
    /// asks the generations older than that one whether they held it
    /// (`holds`, only if the write found it new), and then checks the
    /// epoch; while the epoch has moved since the last write, writes it
    /// again into the generation now current, and checks again. Counts the
    /// key in the generation it took effect in if the last write found it
    /// new there. `pause` is called at the points a loom model holds an
    /// insert; every other caller passes a closure that does nothing.
    ///
    /// The older generations are asked after the write, but by their
    /// numbers as of the first epoch read, so a rotation in between never
    /// makes this call's own bits count against it: of racing inserts of a
    /// new key, at least one reports it new (W6). Loom: window.rs,
    /// `racing_inserts_of_a_new_key_across_a_rotation_report_it_new_once_at_least`.
    #[inline]
    pub(crate) fn insert_with(
        &self,
        live: Live<'_, S>,
        write: impl Fn(&AtomicBloom<S>) -> bool,
        holds: impl Fn(&AtomicBloom<S>) -> bool,
        mut pause: impl FnMut(Pause),
    ) -> Inserted {
        pause(Pause::BeforeWrite);
        let current = live.current();
        let fresh = write(current.filter());
        pause(Pause::AfterWrite);
        #[cfg(loom)]
        let live = if fault::active(Fault::WindowAskByNewEpoch) {
            self.live_at(self.epoch())
        } else {
            live
        };
        // Whether the window held the key: its generation did (the write
        // found nothing new) or an older one does.
        let held = !fresh || (1..live.count).any(|age| holds(live.at(age).filter()));
        self.settle((live.epoch, current), fresh, held, write)
    }

    /// The check after a write of a key into `generation` (`fresh`: the
    /// write found it new there; `held`: the window held it before): while
    /// the epoch has moved since the last write, writes it again into the
    /// generation now current with `write`, and checks again; then counts
    /// the key in the generation it took effect in if the last write found
    /// it new there (module docs). Loom: window.rs,
    /// `an_insert_whose_generation_retires_inside_it_inserts_again` and
    /// `a_late_write_into_a_cleared_slot_is_written_again`.
    #[inline]
    pub(crate) fn settle(
        &self,
        (mut generation, mut slot): (u64, &Slot<S>),
        mut fresh: bool,
        held: bool,
        write: impl Fn(&AtomicBloom<S>) -> bool,
    ) -> Inserted {
        let mut new = fresh && !held;
        loop {
            #[cfg(loom)]
            if fault::active(Fault::WindowSkipReinsert) {
                break;
            }
            let now = self.epoch();
            if now == generation {
                break;
            }
            generation = now;
            slot = self.slot(generation);
            fresh = write(slot.filter());
            new |= fresh && !held;
        }
        let count = if fresh { slot.count_new(1) } else { None };
        Inserted {
            new,
            generation,
            count,
        }
    }

    /// Rotates from epoch `from` to `from + 1` (W3): the spare becomes
    /// current, starting at `now()` (read once it is), and the oldest live
    /// generation retires and is cleared to be the next spare.
    pub(crate) fn rotate_from(&self, from: u64, now: impl FnOnce() -> u64) -> Rotation {
        let next = from + 1;
        let spare = self.slot(next);
        // ORDERING: Acquire, pairing with the clear's `Release` of
        // `ready_for`: the clear happens-before this rotation, and so before
        // every insert that reads the epoch it writes. Loom: window.rs,
        // `a_query_racing_a_retirement_finds_the_live_keys`.
        if spare.ready_for.load(Acquire) != next {
            // Not ready: either another rotation already made it current,
            // or the rotation that retired it is still clearing it.
            return if self.epoch() != from {
                Rotation::Lost
            } else {
                Rotation::SpareBusy
            };
        }
        // ORDERING: AcqRel; its atomicity makes one rotation win, its
        // Release publishes the spare's clear to every reader of the new
        // epoch, its Acquire takes the previous rotation's. Loom: window.rs,
        // `racing_rotations_retire_once`.
        #[cfg(loom)]
        let won = if fault::active(Fault::WindowRotateByStore) {
            // ORDERING: irrelevant; the injected bug is the split update.
            let seen = self.epoch.load(Acquire) == from;
            if seen {
                // ORDERING: irrelevant, as above (`swap`, as the other
                // split faults).
                self.epoch.swap(next, AcqRel);
            }
            seen
        } else {
            self.epoch
                .compare_exchange(from, next, AcqRel, Acquire)
                .is_ok()
        };
        #[cfg(not(loom))]
        let won = self
            .epoch
            .compare_exchange(from, next, AcqRel, Acquire)
            .is_ok();
        if !won {
            return Rotation::Lost;
        }
        // ORDERING: Relaxed; until it lands, checks read `NOT_STARTED` and
        // do not rotate, and a check that reads it late rotates late, never
        // early (the clock is read after the generation became current).
        spare.started.store(now(), Relaxed);
        #[cfg(loom)]
        let live = self.live - u64::from(fault::active(Fault::WindowRetireOffByOne));
        #[cfg(not(loom))]
        let live = self.live;
        if let Some(retiring) = next.checked_sub(live) {
            self.clear(self.slot(retiring), retiring);
        }
        Rotation::Rotated
    }

    /// Clears `slot`, which held the retired generation `retiring`, and
    /// marks it ready for the next generation it will hold.
    fn clear(&self, slot: &Slot<S>, retiring: u64) {
        slot.counted.clear();
        // ORDERING: Relaxed; the `Release` below publishes it.
        slot.started.store(NOT_STARTED, Relaxed);
        let next = retiring + self.slots.len() as u64;
        // ORDERING: Release; a rotation that sees the slot ready (Acquire)
        // sees it clear: the clear's stores happen-before this one. Loom:
        // window.rs, `a_query_racing_a_retirement_finds_the_live_keys`.
        slot.ready_for.store(next, Release);
    }
}
