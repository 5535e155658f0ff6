//! The CLI's signal handling (`cli/src/save_state.rs`, compiled in here
//! as it is): a signal racing a save is reported exactly once, by one of
//! the two threads, and what is reported is what happened to the filter.
#![cfg(loom)]

#[allow(dead_code)]
#[path = "../../cli/src/save_state.rs"]
mod save_state;

use loom::sync::Arc;
use loom_tests::explore;
use save_state::{Interrupted, OnSignal, SaveState, Step, Target};

/// Writes a save makes; the signal may land before, between or after them.
const WRITES: usize = 2;

/// What one execution saw: the signal thread's action, and the saving
/// thread's start, whether it wrote the whole filter (if it began), and
/// its end (if it began).
type Seen = (OnSignal, Step, Option<bool>, Option<Step>);

/// One signal on its own thread, racing a save of `target` on the model's.
fn signal_racing_a_save(target: Target) -> Seen {
    let state = Arc::new(SaveState::new());
    let signal = {
        let state = state.clone();
        loom::thread::spawn(move || state.on_signal())
    };
    let begin = state.begin_save(target);
    let (mut saved, mut end) = (None, None);
    if begin == Step::Go {
        let whole = (0..WRITES).all(|_| !state.stopping());
        saved = Some(whole);
        end = Some(state.end_save(whole));
    }
    (signal.join().unwrap(), begin, saved, end)
}

/// The contract, for one execution.
fn check(target: Target, (signal, begin, saved, end): Seen) {
    let from_signal = match signal {
        OnSignal::Exit(interrupted) => Some(interrupted),
        _ => None,
    };
    let from_save = match end {
        Some(Step::Report(interrupted)) => Some(interrupted),
        _ => None,
    };
    let reported = match (from_signal, from_save) {
        (Some(r), None) | (None, Some(r)) => r,
        (None, None) => panic!("nobody reported the signal: {signal:?}, {begin:?}, {end:?}"),
        (Some(_), Some(_)) => panic!("both threads reported the signal"),
    };
    // The saving thread stands aside only for a signal thread that reports.
    if begin == Step::Ending || end == Some(Step::Ending) {
        assert!(from_signal.is_some(), "the save stood aside for nobody");
    }
    // What is reported is what happened.
    match reported {
        Interrupted::NothingSaved => {
            assert_ne!(saved, Some(true), "a saved filter reported unsaved")
        }
        Interrupted::Saved => assert_eq!(saved, Some(true), "an unsaved filter reported saved"),
        Interrupted::StreamCutShort => {
            assert_eq!(target, Target::Stream, "a file reported cut short");
            assert_eq!(
                end,
                Some(Step::Ending),
                "a finished save reported cut short"
            );
        }
    }
    // A file is never left half written: its save, once begun, ends with
    // the whole filter or reports that it stopped.
    if target == Target::File && saved == Some(false) {
        assert_eq!(from_save, Some(Interrupted::NothingSaved));
    }
}

/// Runs the race for `target` under loom, checks every execution, and
/// returns the outcomes reached, which must include `expected`.
fn explore_target(target: Target, expected: &[Seen]) {
    explore(expected, move || {
        let seen = signal_racing_a_save(target);
        check(target, seen);
        seen
    });
}

#[test]
fn a_signal_racing_a_save_is_reported_once_and_truly_for_a_file() {
    use Interrupted::*;
    explore_target(
        Target::File,
        &[
            // Before the save: the signal thread reports, nothing saved.
            (OnSignal::Exit(NothingSaved), Step::Ending, None, None),
            // During it: the save stops and reports.
            (
                OnSignal::StopSave,
                Step::Go,
                Some(false),
                Some(Step::Report(NothingSaved)),
            ),
            // After its last write, before its end: saved, and said so.
            (
                OnSignal::StopSave,
                Step::Go,
                Some(true),
                Some(Step::Report(Saved)),
            ),
            // After it: the signal thread reports the filter saved.
            (OnSignal::Exit(Saved), Step::Go, Some(true), Some(Step::Go)),
        ],
    );
}

#[test]
fn a_signal_racing_a_save_is_reported_once_and_truly_for_a_stream() {
    use Interrupted::*;
    explore_target(
        Target::Stream,
        &[
            (OnSignal::Exit(NothingSaved), Step::Ending, None, None),
            // During it, the signal thread ends the process at once.
            (
                OnSignal::Exit(StreamCutShort),
                Step::Go,
                Some(true),
                Some(Step::Ending),
            ),
            (OnSignal::Exit(Saved), Step::Go, Some(true), Some(Step::Go)),
        ],
    );
}

/// Negative control: the first version, which stored `STOPPING` after its
/// compare-and-swap from `IDLE` failed. A save that ends between the two
/// is left with `STOPPING` and nobody reports the signal.
#[test]
#[should_panic(expected = "nobody reported the signal")]
fn a_stop_written_by_a_store_loses_the_signal() {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            save_state::fault::inject_blind_stop(false);
        }
    }
    let _reset = Reset;
    save_state::fault::inject_blind_stop(true);
    explore_target(Target::File, &[]);
}
