//! # A signal against a save: who reports, and what
//!
//! Ctrl-C or SIGTERM reaches the process on a thread of its own (the
//! `ctrlc` crate's) while the main thread may be about to save a filter,
//! saving it, or done. Whatever the moment, the process must end with
//! status 130 (SIGINT) or 143 (SIGTERM) and one line that says truthfully what became of the filter,
//! and a save to a file must leave either the old file or the whole new
//! one. [`SaveState`] is the one word both threads decide on:
//!
//! | state | a signal | the end of the save |
//! |---|---|---|
//! | `IDLE` (no save begun) | ends the process: nothing saved | |
//! | `SAVING_FILE` | `STOPPING`: the save's next write fails, which removes its temporary file | `SAVED`, or `IDLE` if it failed |
//! | `SAVING_STREAM` (stdout, a FIFO) | ends the process: the stream holds an incomplete filter (a write blocked on a stalled reader must not hold it up) | `SAVED`, or `IDLE` |
//! | `STOPPING` | already in hand | the save reports: nothing saved, or saved (the signal came after its last write) |
//! | `SAVED` | ends the process: the filter was saved first | (another save may begin) |
//! | `EXITING` | already in hand | |
//!
//! Every change is a compare-and-swap from the state it was decided on,
//! retried on the state found instead. So a signal and the start or end of
//! a save never both act on one state: exactly one of the two threads
//! reports, and it reports what happened. A first version wrote `STOPPING`
//! with a plain store after its compare-and-swap from `IDLE` failed: a save
//! that ended between the two left `STOPPING` behind, nobody reported the
//! signal, and every later signal was ignored as "already in hand". The
//! loom model `loom-tests/tests/cli_signals.rs` checks every interleaving
//! of a signal with a save, and its negative control, that first version,
//! fails it.
//!
//! This file is also compiled into that loom test (by `#[path]`), so it
//! names nothing else of the CLI.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU8, Ordering::Relaxed};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

const IDLE: u8 = 0;
const SAVING_FILE: u8 = 1;
const SAVING_STREAM: u8 = 2;
const STOPPING: u8 = 3;
const SAVED: u8 = 4;
const EXITING: u8 = 5;

/// Where a process stands between its signals and its save.
#[derive(Debug)]
pub struct SaveState(AtomicU8);

/// What a save writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// A file, replaced whole or not at all: a signal stops the save,
    /// which then cleans up.
    File,
    /// A stream (stdout, a device, a FIFO), which cannot be taken back: a
    /// signal ends the process at once.
    Stream,
}

/// What became of the filter when a signal ended the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Interrupted {
    /// No filter was saved (any old file is as it was).
    NothingSaved,
    /// The filter went out in part to a stream.
    StreamCutShort,
    /// The filter was saved before the signal came.
    Saved,
}

/// What the signal thread does about a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OnSignal {
    /// Report this and end the process now.
    Exit(Interrupted),
    /// A save to a file is under way: it stops at its next write and
    /// reports.
    StopSave,
    /// An earlier signal is already being handled.
    Ignore,
}

/// What the saving thread does at the start or end of its save.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// No signal concerns this save: carry on, and report the save's own
    /// result.
    Go,
    /// A signal stopped this save: report this and end with the signal's status (130 or 143).
    Report(Interrupted),
    /// The signal thread is reporting a signal and ending the process:
    /// report nothing.
    Ending,
}

impl SaveState {
    /// No save begun, no signal.
    #[cfg(not(loom))]
    pub const fn new() -> SaveState {
        SaveState(AtomicU8::new(IDLE))
    }

    /// No save begun, no signal.
    #[cfg(loom)]
    pub fn new() -> SaveState {
        SaveState(AtomicU8::new(IDLE))
    }

    /// Moves from the current state to the one `decide` picks for it
    /// (`Ok`), and returns what `decide` said with it; an `Err` from
    /// `decide` leaves the state as it is.
    fn transition<T>(&self, decide: impl Fn(u8) -> Result<(u8, T), T>) -> T {
        // ORDERING: Relaxed throughout. The state is one word that
        // publishes no other memory (the filter's bytes go to the kernel,
        // not through it), and every read-modify-write of one word reads
        // the latest value in its modification order, so each transition
        // is decided on the state it replaces. Checked by the loom models
        // in `loom-tests/tests/cli_signals.rs` (`a_signal_racing_a_save_is_
        // reported_once_and_truly`, for files and for streams).
        let mut state = self.0.load(Relaxed);
        loop {
            let (next, said) = match decide(state) {
                Ok(change) => change,
                Err(said) => return said,
            };
            // ORDERING: as above.
            match self.0.compare_exchange(state, next, Relaxed, Relaxed) {
                Ok(_) => return said,
                Err(now) => state = now,
            }
        }
    }

    /// Called on the signal thread for each signal.
    pub fn on_signal(&self) -> OnSignal {
        #[cfg(loom)]
        if fault::blind_stop() {
            return self.on_signal_by_store();
        }
        self.transition(|state| match state {
            IDLE => Ok((EXITING, OnSignal::Exit(Interrupted::NothingSaved))),
            SAVING_FILE => Ok((STOPPING, OnSignal::StopSave)),
            SAVING_STREAM => Ok((EXITING, OnSignal::Exit(Interrupted::StreamCutShort))),
            SAVED => Ok((EXITING, OnSignal::Exit(Interrupted::Saved))),
            _ => Err(OnSignal::Ignore),
        })
    }

    /// Called before a save's first write.
    pub fn begin_save(&self, target: Target) -> Step {
        let saving = match target {
            Target::File => SAVING_FILE,
            Target::Stream => SAVING_STREAM,
        };
        self.transition(|state| match state {
            IDLE | SAVED => Ok((saving, Step::Go)),
            // A signal came first.
            EXITING => Err(Step::Ending),
            _ => unreachable!("a save began while another was under way"),
        })
    }

    /// Whether a signal asks the save under way to stop; checked before
    /// each write.
    pub fn stopping(&self) -> bool {
        // ORDERING: Relaxed, as in `transition`: a load that reads an
        // older state only makes the save stop one write later; the end
        // of the save decides on the latest state.
        self.0.load(Relaxed) == STOPPING
    }

    /// Called once the save has returned, `saved` if it wrote the whole
    /// filter.
    pub fn end_save(&self, saved: bool) -> Step {
        let done = if saved { SAVED } else { IDLE };
        self.transition(|state| match state {
            SAVING_FILE | SAVING_STREAM => Ok((done, Step::Go)),
            STOPPING if saved => Ok((EXITING, Step::Report(Interrupted::Saved))),
            STOPPING => Ok((EXITING, Step::Report(Interrupted::NothingSaved))),
            // The signal thread took a signal during a save to a stream
            // and is ending the process.
            EXITING => Err(Step::Ending),
            _ => unreachable!("a save ended that had not begun"),
        })
    }

    /// The first version of [`on_signal`](Self::on_signal), which the
    /// negative control runs: `STOPPING` written with a plain store after
    /// the compare-and-swap from `IDLE` fails, whatever the state is by
    /// then.
    #[cfg(loom)]
    fn on_signal_by_store(&self) -> OnSignal {
        // ORDERING: Relaxed, as in `transition`; the fault is the store,
        // not the ordering (the negative control in
        // `loom-tests/tests/cli_signals.rs` fails on the store alone).
        if self
            .0
            .compare_exchange(IDLE, EXITING, Relaxed, Relaxed)
            .is_ok()
        {
            return OnSignal::Exit(Interrupted::NothingSaved);
        }
        // ORDERING: as above.
        self.0.store(STOPPING, Relaxed);
        OnSignal::StopSave
    }
}

/// The negative control's switch, compiled only under `cfg(loom)`.
#[cfg(loom)]
pub mod fault {
    use std::cell::Cell;

    std::thread_local! {
        static BLIND_STOP: Cell<bool> = const { Cell::new(false) };
    }

    /// Makes [`SaveState::on_signal`](super::SaveState::on_signal) run its
    /// first version on this thread (loom runs a model's threads on the
    /// thread that calls it).
    pub fn inject_blind_stop(on: bool) {
        BLIND_STOP.with(|b| b.set(on));
    }

    pub(super) fn blind_stop() -> bool {
        BLIND_STOP.with(Cell::get)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A state reached by the given calls.
    fn after(calls: impl FnOnce(&SaveState)) -> SaveState {
        let state = SaveState::new();
        calls(&state);
        state
    }

    #[test]
    fn a_signal_with_no_save_begun_ends_the_process_with_nothing_saved() {
        let state = SaveState::new();
        assert_eq!(state.on_signal(), OnSignal::Exit(Interrupted::NothingSaved));
        assert_eq!(state.begin_save(Target::File), Step::Ending);
        assert_eq!(state.on_signal(), OnSignal::Ignore);
    }

    #[test]
    fn a_signal_during_a_file_save_stops_it_and_the_save_reports() {
        for (saved, report) in [
            (false, Interrupted::NothingSaved),
            (true, Interrupted::Saved),
        ] {
            let state = after(|s| assert_eq!(s.begin_save(Target::File), Step::Go));
            assert!(!state.stopping());
            assert_eq!(state.on_signal(), OnSignal::StopSave);
            assert!(state.stopping());
            // A second signal while it stops is in hand already.
            assert_eq!(state.on_signal(), OnSignal::Ignore);
            assert_eq!(state.end_save(saved), Step::Report(report));
            assert_eq!(state.on_signal(), OnSignal::Ignore);
        }
    }

    #[test]
    fn a_signal_during_a_stream_save_ends_the_process_at_once() {
        let state = after(|s| assert_eq!(s.begin_save(Target::Stream), Step::Go));
        assert_eq!(
            state.on_signal(),
            OnSignal::Exit(Interrupted::StreamCutShort)
        );
        assert!(!state.stopping());
        assert_eq!(state.end_save(true), Step::Ending);
    }

    #[test]
    fn a_signal_after_a_save_says_the_filter_was_saved() {
        for target in [Target::File, Target::Stream] {
            let state = after(|s| {
                assert_eq!(s.begin_save(target), Step::Go);
                assert_eq!(s.end_save(true), Step::Go);
            });
            assert_eq!(state.on_signal(), OnSignal::Exit(Interrupted::Saved));
        }
    }

    #[test]
    fn a_save_may_follow_a_save() {
        let state = after(|s| {
            assert_eq!(s.begin_save(Target::File), Step::Go);
            assert_eq!(s.end_save(true), Step::Go);
        });
        assert_eq!(state.begin_save(Target::Stream), Step::Go);
        assert_eq!(
            state.on_signal(),
            OnSignal::Exit(Interrupted::StreamCutShort)
        );
    }

    #[test]
    fn a_signal_after_a_failed_save_says_nothing_was_saved() {
        let state = after(|s| {
            assert_eq!(s.begin_save(Target::File), Step::Go);
            assert_eq!(s.end_save(false), Step::Go);
        });
        assert_eq!(state.on_signal(), OnSignal::Exit(Interrupted::NothingSaved));
    }
}
