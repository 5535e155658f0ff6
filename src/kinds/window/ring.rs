//! # The ring of generations
//!
//! A windowed filter keeps `g` live generations in a ring of `g + 1`
//! plain filters (slots) that share one sizing and hasher. Generation `e`
//! lives in slot `e mod (g + 1)`; the newest, `epoch`, takes inserts; the
//! `g` newest answer queries; the one slot left over is the *spare*,
//! cleared while no insert can reach it, to become the next current
//! generation. Everything here is lock-free: no operation waits for
//! another thread, and the one that cannot proceed (a rotation whose spare
//! is not clean yet, below) says so and returns.
//!
//! ## Rotation (W3)
//!
//! A rotation from epoch `e` is one compare-and-swap of `epoch` from `e`
//! to `e + 1`: of racing rotations exactly one wins. Before it, the spare
//! (slot of `e + 1`) must be clean; the winner then retires generation
//! `e + 1 - g` (the oldest live one, which stops answering queries and
//! becomes the next spare) and clears it unless an insert is still inside.
//!
//! ## Inserts that race a rotation (W1, W2)
//!
//! An insert announces itself in its slot's `writers` count, then checks
//! that its generation is still current, and only then writes; afterwards
//! it checks again, and if a rotation came in between it inserts again into
//! the new current generation. So an insert takes effect at its last check,
//! when its generation was current: it stays for the `g - 1` rotations the
//! window promises. A slot is cleared only once it is retired and no insert
//! is inside (its `writers` is zero): the retiring rotation and the last
//! insert to leave each look, and whichever sees both claims the clear. An
//! insert that announces itself after its generation was retired sees the
//! epoch moved and leaves without writing, so nothing is ever written into
//! a cleared slot before it is current again.
//!
//! The announcement and the retirement form a pair on each side: an
//! insert writes `writers` and then reads `epoch`; a rotation writes
//! `epoch` (and the slot's state) and then reads `writers`. At least one
//! side must see the other's write. `SeqCst` loads would give that, but
//! the model checker treats `SeqCst` as `AcqRel` and could not check it;
//! so each read in the pair is a read-modify-write (`fetch_add(0)`), which
//! always reads the newest value of its word. If the insert's read of
//! `epoch` comes first in that word's order, the rotation's
//! compare-and-swap reads from it (`AcqRel`), so the announcement
//! happens-before the rotation's read of `writers`, which therefore sees
//! it; otherwise the insert's read sees the rotation. The cost is two
//! more read-modify-writes of shared words per insert.
//!
//! ## Queries (W4)
//!
//! A query loads the epoch and asks the `g` generations up to it. A
//! rotation may retire and clear the oldest of them while the query reads
//! it; its keys are then out of the window, so no query needs it, and the
//! query's answer for keys still in the window comes from the younger
//! generations, which no one clears.

use crate::kinds::bloom::AtomicBloom;
#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crate::sync::{
    AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use crossbeam_utils::CachePadded;

/// Phases of a slot, the low two bits of its state; the rest is the
/// generation the phase is about.
const LIVE: u64 = 0;
const RETIRED: u64 = 1;
const CLEARING: u64 = 2;
const READY: u64 = 3;

/// A slot's start time before its rotation has read the clock: a window
/// never rotates on it.
pub(crate) const NOT_STARTED: u64 = u64::MAX;

/// A slot's state word: generation `gen` in `phase`.
const fn state(generation: u64, phase: u64) -> u64 {
    generation << 2 | phase
}

/// One slot of the ring. The words every insert writes (`writers`, and
/// `inserted` for a new key) have cache lines of their own, so that the
/// filter's fields, which every operation reads, do not bounce between
/// cores with them.
pub(crate) struct Slot<S> {
    pub(crate) filter: AtomicBloom<S>,
    /// Inserts inside this slot (announced, not yet left).
    writers: CachePadded<AtomicU64>,
    /// `state(generation, phase)`: live with, retired from, being cleared
    /// after, or ready for a generation.
    state: AtomicU64,
    /// Keys its inserts reported new while it was live (count rotation,
    /// estimates).
    pub(crate) inserted: CachePadded<AtomicU64>,
    /// When it became current, in the clock's nanoseconds;
    /// [`NOT_STARTED`] from its clear until the rotation that makes it
    /// current has read the clock.
    pub(crate) started: AtomicU64,
}

/// What [`Ring::rotate_from`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rotation {
    /// This call rotated.
    Rotated,
    /// Another call rotated from this epoch first.
    Lost,
    /// The spare is not clean yet (an insert that started before its
    /// generation was retired is still inside): nothing changed.
    SpareBusy,
}

/// The ring: `g + 1` slots and the current epoch.
pub(crate) struct Ring<S> {
    slots: Box<[Slot<S>]>,
    /// The current generation's number; only grows. Every insert reads it
    /// with a read-modify-write, so it has a cache line of its own.
    epoch: CachePadded<AtomicU64>,
    /// Live generations, `g` (at least 2).
    live: u64,
}

impl<S> Ring<S> {
    /// A ring of `filters.len() - 1` live generations, generation 0 current
    /// from `now`.
    pub(crate) fn new(filters: Vec<AtomicBloom<S>>, now: u64) -> Ring<S> {
        let live = filters.len() as u64 - 1;
        let slots = filters
            .into_iter()
            .enumerate()
            .map(|(i, filter)| Slot {
                filter,
                writers: CachePadded::new(AtomicU64::new(0)),
                state: AtomicU64::new(if i == 0 {
                    state(0, LIVE)
                } else {
                    state(i as u64, READY)
                }),
                inserted: CachePadded::new(AtomicU64::new(0)),
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
    /// it in: a live generation `LIVE`, every other slot cleared and
    /// `READY` for the next generation it will hold.
    pub(crate) fn restore(
        epoch: u64,
        generations: Vec<(AtomicBloom<S>, u64, u64)>,
        spare: AtomicBloom<S>,
    ) -> Ring<S> {
        let live = generations.len() as u64;
        let len = live + 1;
        let mut slots: Vec<Option<Slot<S>>> = (0..len).map(|_| None).collect();
        let fresh = |filter, generation, phase, inserted, started| Slot {
            filter,
            writers: CachePadded::new(AtomicU64::new(0)),
            state: AtomicU64::new(state(generation, phase)),
            inserted: CachePadded::new(AtomicU64::new(inserted)),
            started: AtomicU64::new(started),
        };
        for (age, (filter, inserted, started)) in (0..).zip(generations) {
            // A generation older than 0 never existed: its slot waits,
            // ready, for the first generation that will use it.
            let (generation, slot) = match epoch.checked_sub(age) {
                Some(generation) => (
                    generation,
                    fresh(filter, generation, LIVE, inserted, started),
                ),
                None => {
                    let generation = epoch + len - age;
                    (generation, fresh(filter, generation, READY, 0, NOT_STARTED))
                }
            };
            slots[(generation % len) as usize] = Some(slot);
        }
        let next = epoch + 1;
        slots[(next % len) as usize] = Some(fresh(spare, next, READY, 0, NOT_STARTED));
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

    /// The current generation's number.
    #[inline]
    pub(crate) fn epoch(&self) -> u64 {
        // ORDERING: Acquire, pairing with the rotation's `AcqRel`
        // compare-and-swap: a query or insert that sees an epoch sees the
        // slot state and start the rotation wrote before it. A stale epoch
        // only makes a query ask one older generation, which W1 allows;
        // inserts confirm it with `epoch_now`. Loom: window.rs,
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

    /// The newest epoch, by a read-modify-write: the insert's half of the
    /// announce/retire pair (module docs).
    #[inline]
    fn epoch_now(&self) -> u64 {
        // ORDERING: AcqRel read-modify-write: it reads the newest epoch,
        // and a rotation whose compare-and-swap comes after it in the
        // epoch's order reads from it and so sees this insert announced.
        // Loom: window.rs, `no_insert_lands_in_a_cleared_spare`.
        self.epoch.fetch_add(0, AcqRel)
    }

    /// The slot of generation `generation`.
    #[inline]
    pub(crate) fn slot(&self, generation: u64) -> &Slot<S> {
        &self.slots[(generation % self.slots.len() as u64) as usize]
    }

    /// The live generations' slots at epoch `epoch`, newest first.
    pub(crate) fn live_slots(&self, epoch: u64) -> impl Iterator<Item = &Slot<S>> + '_ {
        #[cfg(loom)]
        let live = if fault::active(Fault::WindowQueryCurrentOnly) {
            1
        } else {
            self.live
        };
        #[cfg(not(loom))]
        let live = self.live;
        (0..live.min(epoch + 1)).map(move |age| self.slot(epoch - age))
    }

    /// Whether the spare, if it is ready to become current, holds no bit:
    /// no insert wrote into it after its clear (W2). For the models.
    #[cfg(loom)]
    pub(crate) fn spare_is_clean_if_ready(&self) -> bool {
        let next = self.epoch() + 1;
        let spare = self.slot(next);
        // ORDERING: Acquire; read after the model's threads have joined.
        spare.state.load(Acquire) != state(next, READY) || spare.filter.is_empty()
    }

    /// Runs `write` on the current generation's filter, again on the next
    /// one if a rotation came meanwhile, until a check after the write
    /// finds its generation still current (W1, W2). Returns whether any
    /// write reported the key new, the generation it took effect in, and
    /// whether this call's count was that generation's `full`th new key.
    pub(crate) fn insert_with(
        &self,
        full: u64,
        mut write: impl FnMut(&AtomicBloom<S>) -> bool,
    ) -> (bool, u64, bool) {
        let (mut new, mut filled) = (false, false);
        loop {
            let epoch = self.epoch();
            let slot = self.slot(epoch);
            // ORDERING: AcqRel, the announce half of the pair (module docs):
            // a retirement that does not see this count is seen by the
            // check below. Loom: window.rs, `no_insert_lands_in_a_cleared_spare`.
            slot.writers.fetch_add(1, AcqRel);
            let still_current = self.epoch_now() == epoch;
            #[cfg(loom)]
            let still_current = still_current || fault::active(Fault::WindowWriteWithoutCheck);
            if still_current {
                let fresh = write(&slot.filter);
                if fresh {
                    // ORDERING: Relaxed; a count that decides when to
                    // rotate, publishing nothing (as the growable filter's);
                    // its atomicity gives each count to one insert, so one
                    // insert sees the generation fill.
                    filled |= slot.inserted.fetch_add(1, Relaxed) + 1 == full;
                }
                new |= fresh;
            }
            self.leave(slot);
            // The second check: a generation retired while this call wrote
            // into it is cleared once the call leaves, so the key goes
            // again into the current one (W2). Loom: window.rs,
            // `an_insert_whose_generation_retires_inside_it_inserts_again`.
            #[cfg(loom)]
            if still_current && fault::active(Fault::WindowSkipReinsert) {
                return (new, epoch, filled);
            }
            if still_current && self.epoch_now() == epoch {
                return (new, epoch, filled);
            }
        }
    }

    /// An insert leaves `slot`; the last to leave a retired slot clears it.
    fn leave(&self, slot: &Slot<S>) {
        // ORDERING: AcqRel, the second pair (module docs): the last insert
        // to leave writes `writers` and then reads the state; the
        // retirement writes the state and then reads `writers`. Its writes
        // to the filter happen-before whichever clear follows. Loom:
        // window.rs, `a_clear_that_ignores_inserts_inside_dirties_the_spare`
        // (its control) and `no_insert_lands_in_a_cleared_spare`.
        if slot.writers.fetch_sub(1, AcqRel) == 1 {
            self.try_clear(slot);
        }
    }

    /// Clears `slot` if it is retired and no insert is inside, once: the
    /// retiring rotation and the last insert to leave both try, and the
    /// compare-and-swap of the state picks one.
    fn try_clear(&self, slot: &Slot<S>) {
        // ORDERING: AcqRel read-modify-write, the read half of the second
        // pair: it reads the newest state. Loom: as in `leave`.
        let current = slot.state.fetch_add(0, AcqRel);
        if current & 3 != RETIRED {
            return;
        }
        #[cfg(loom)]
        let skip_writers = fault::active(Fault::WindowClearWithWriters);
        #[cfg(not(loom))]
        let skip_writers = false;
        // ORDERING: AcqRel read-modify-write, the rotation's read of the
        // first pair and the last insert's of the second: it reads the
        // newest count, and syncs with the inserts that left. Loom: as in
        // `leave`.
        if !skip_writers && slot.writers.fetch_add(0, AcqRel) != 0 {
            return;
        }
        let generation = current >> 2;
        // ORDERING: AcqRel; its atomicity picks one clearer. Loom:
        // window.rs, `no_insert_lands_in_a_cleared_spare`.
        if slot
            .state
            .compare_exchange(current, state(generation, CLEARING), AcqRel, Acquire)
            .is_err()
        {
            return;
        }
        slot.filter.clear();
        // ORDERING: Relaxed, both; the slot's next rotation publishes them
        // with its `AcqRel` compare-and-swap of the epoch, before any
        // insert or rotation check reads them for the new generation.
        slot.inserted.store(0, Relaxed);
        slot.started.store(NOT_STARTED, Relaxed);
        let next = generation + self.slots.len() as u64;
        // ORDERING: Release; a rotation that sees the slot ready (Acquire)
        // sees it clear: the clear's swaps happen-before this store. Loom:
        // window.rs, `a_query_racing_a_retirement_finds_the_live_keys`.
        slot.state.store(state(next, READY), Release);
    }

    /// Rotates from epoch `from` to `from + 1` (W3): the spare becomes
    /// current, starting at `now()` (read once it is), and the oldest live
    /// generation retires.
    pub(crate) fn rotate_from(&self, from: u64, now: impl FnOnce() -> u64) -> Rotation {
        let next = from + 1;
        let spare = self.slot(next);
        // ORDERING: Acquire, pairing with the clear's `Release` of `READY`.
        if spare.state.load(Acquire) != state(next, READY) {
            // Not ready: either another rotation already made it current,
            // or an insert from before its retirement is still inside.
            return if self.epoch() != from {
                Rotation::Lost
            } else {
                Rotation::SpareBusy
            };
        }
        // ORDERING: AcqRel, the rotation's write of the first pair (module
        // docs); its atomicity makes one rotation win, and its Release
        // publishes the spare's state. Loom: window.rs,
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
        // ORDERING: Release; only the winner writes a live slot's state,
        // read by the clear paths of later rotations.
        spare.state.store(state(next, LIVE), Release);
        #[cfg(loom)]
        let live = self.live - u64::from(fault::active(Fault::WindowRetireOffByOne));
        #[cfg(not(loom))]
        let live = self.live;
        if let Some(retiring) = next.checked_sub(live) {
            let slot = self.slot(retiring);
            // ORDERING: AcqRel read-modify-write, the rotation's write of the
            // second pair: the last insert to leave reads it, or this call
            // reads the inserts gone (`try_clear`). Loom: window.rs,
            // `no_insert_lands_in_a_cleared_spare`.
            slot.state.swap(state(retiring, RETIRED), AcqRel);
            self.try_clear(slot);
        }
        Rotation::Rotated
    }
}
