//! The windowed filter's ring (`src/kinds/window/ring.rs`): W1-W6 of
//! `docs::memory_ordering`, each with a negative control that injects a
//! fault into the real code and must fail.
#![cfg(loom)]

use atomic_bloom::fault::Fault;
use atomic_bloom::{AtomicWindowedBloom, Layout, ManualClock, Window};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering::Acquire, Ordering::Release};
use loom_tests::{explore, model, race, with_fault};
use std::time::Duration;

/// Keys of the models: any two hashes (the window's generations are
/// one-word `Word` filters, so every key shares the word with the others).
const X: u64 = 0x9E37_79B9_7F4A_7C15;
const Y: u64 = 0x2545_F491_4F6C_DD1D;

/// A window of two generations (three slots with the spare) of one-word
/// filters, rotated only by the models (its eight keys per generation are
/// never reached).
fn window() -> AtomicWindowedBloom {
    AtomicWindowedBloom::builder()
        .capacity(8, 0.5)
        .generations(2)
        .layout(Layout::Word)
        .build()
        .expect("a tiny window")
}

/// W3: of two rotations racing from the same epoch, exactly one wins each
/// epoch: the rotations counted equal the calls that report one, and both
/// "one won" and "both won, one after the other" are reached.
fn racing_rotations() {
    explore(&[1u64, 2], || {
        let (f, first, second) = race(window(), |f| f.rotate(), |f| f.rotate());
        let won = u64::from(first) + u64::from(second);
        assert_eq!(f.rotations(), won, "a rotation was counted twice or lost");
        won
    });
}

#[test]
fn racing_rotations_retire_once() {
    racing_rotations();
}

#[test]
#[should_panic(expected = "a rotation was counted twice or lost")]
fn racing_rotations_by_store_both_win() {
    with_fault(Fault::WindowRotateByStore, racing_rotations);
}

/// W1: a key whose insert happened-before a query (a Release/Acquire flag)
/// is found by it while a rotation races both: one rotation leaves the
/// key's generation live. Flag seen and not seen are both reached.
fn query_after_insert_across_a_rotation() {
    explore(&[false, true], || {
        let f = Arc::new(window());
        let inserted = Arc::new(AtomicBool::new(false));
        let writer = {
            let (f, inserted) = (f.clone(), inserted.clone());
            loom::thread::spawn(move || {
                f.insert_hash(X);
                inserted.store(true, Release);
            })
        };
        let rotator = {
            let f = f.clone();
            loom::thread::spawn(move || f.rotate())
        };
        let seen = inserted.load(Acquire);
        if seen {
            assert!(
                f.contains_hash(X),
                "a key inserted before the query was missed"
            );
        }
        writer.join().unwrap();
        rotator.join().unwrap();
        seen
    });
}

#[test]
fn a_key_inserted_before_a_query_is_found_across_a_rotation() {
    query_after_insert_across_a_rotation();
}

#[test]
#[should_panic(expected = "a key inserted before the query was missed")]
fn a_query_of_the_current_generation_only_misses_it() {
    with_fault(
        Fault::WindowQueryCurrentOnly,
        query_after_insert_across_a_rotation,
    );
}

/// W4: a query racing the rotation that retires (and clears) the oldest
/// generation finds a key of the younger one: the clear never reaches a
/// generation still in the window.
fn query_racing_retirement() {
    model(|| {
        let f = window();
        f.insert_hash(Y); // generation 0
        assert!(f.rotate());
        f.insert_hash(X); // generation 1, live at epochs 1 and 2
        // The rotation on the model's own thread: it loads and then
        // writes, which loom needs there to explore (`loom_tests::model`).
        let (_, found, _) = race(f, |f| f.contains_hash(X), |f| f.rotate());
        assert!(found, "a key still in its window was missed");
    });
}

#[test]
fn a_query_racing_a_retirement_finds_the_live_keys() {
    query_racing_retirement();
}

#[test]
#[should_panic(expected = "a key still in its window was missed")]
fn retiring_the_wrong_generation_loses_a_live_key() {
    with_fault(Fault::WindowRetireOffByOne, query_racing_retirement);
}

/// A time window of two one-minute generations on a manual clock, after
/// two rotations at one and two minutes: epoch 2, its generation begun
/// at two minutes and not due; generation 1's slot still records its
/// start, one minute, until the next rotation retires it.
fn time_window_at_two_minutes() -> AtomicWindowedBloom {
    let clock = std::sync::Arc::new(ManualClock::new());
    let f = AtomicWindowedBloom::builder()
        .capacity(8, 0.5)
        .window(Window::Duration(Duration::from_secs(60)))
        .generations(2)
        .layout(Layout::Word)
        .clock(clock.clone())
        .build()
        .expect("a tiny window");
    for _ in 0..2 {
        clock.advance(Duration::from_secs(60));
        assert!(f.rotate());
    }
    f
}

/// W5: a time window's check of its current generation's start (every
/// query and insert makes it) racing two rotations, which retire the
/// generation whose slot the second reuses: the check sees the new epoch
/// only with the slot's new state, never the start its slot recorded in
/// its previous life, so no generation that has just begun is rotated by
/// time. The clock stands still: exactly the two explicit rotations.
fn time_check_racing_rotations(insert: bool) {
    model(move || {
        let (f, _, ()) = race(
            time_window_at_two_minutes(),
            move |f| {
                if insert {
                    f.insert_hash(X)
                } else {
                    f.contains_hash(X)
                }
            },
            |f| {
                f.rotate();
                f.rotate();
            },
        );
        assert_eq!(
            f.rotations(),
            4,
            "a generation that had just begun was rotated by time"
        );
    });
}

#[test]
fn a_time_check_racing_a_rotation_keeps_the_new_generation() {
    time_check_racing_rotations(false);
}

#[test]
#[should_panic(expected = "a generation that had just begun was rotated by time")]
fn a_relaxed_epoch_read_rotates_a_generation_that_has_just_begun() {
    with_fault(Fault::WindowEpochRelaxed, || {
        time_check_racing_rotations(false)
    });
}

/// W5 for an insert, whose check of the time comes before its write.
#[test]
fn an_inserts_time_check_racing_a_rotation_keeps_the_new_generation() {
    time_check_racing_rotations(true);
}

#[test]
#[should_panic(expected = "a generation that had just begun was rotated by time")]
fn a_relaxed_epoch_read_in_an_insert_rotates_a_generation_that_has_just_begun() {
    with_fault(Fault::WindowEpochRelaxed, || {
        time_check_racing_rotations(true)
    });
}

/// W2: an insert held at one point while the model's thread rotates twice,
/// retiring the generation it read the epoch of and clearing its slot, has
/// the key in the window once it returns. Held after its write, the clear
/// erases what it wrote; held before its write, it writes into the cleared
/// slot, now the spare, which no query asks. Either way the check after
/// the write sees the epoch moved and writes the key into the current
/// generation.
fn insert_held_across_two_rotations(before_write: bool) {
    model(move || {
        let f = Arc::new(window());
        let rotated = Arc::new(AtomicBool::new(false));
        let inserter = {
            let (f, rotated) = (f.clone(), rotated.clone());
            loom::thread::spawn(move || {
                f.insert_hash_pausing(X, before_write, || {
                    while !rotated.load(Acquire) {
                        loom::thread::yield_now();
                    }
                });
            })
        };
        assert!(
            f.rotate() && f.rotate(),
            "the model's rotations did not happen"
        );
        rotated.store(true, Release);
        inserter.join().unwrap();
        assert!(
            f.contains_hash(X),
            "an insert whose generation retired around it left the key in no generation"
        );
    });
}

#[test]
fn an_insert_whose_generation_retires_inside_it_inserts_again() {
    insert_held_across_two_rotations(false);
}

#[test]
#[should_panic(expected = "left the key in no generation")]
fn an_insert_that_does_not_check_again_loses_its_key() {
    with_fault(Fault::WindowSkipReinsert, || {
        insert_held_across_two_rotations(false);
    });
}

#[test]
fn a_late_write_into_a_cleared_slot_is_written_again() {
    insert_held_across_two_rotations(true);
}

#[test]
#[should_panic(expected = "left the key in no generation")]
fn a_late_write_not_checked_after_is_lost_in_the_spare() {
    with_fault(Fault::WindowSkipReinsert, || {
        insert_held_across_two_rotations(true);
    });
}

/// `insert` answers whether the key was absent from the whole window, and
/// racing inserts of a new key still give it to one at least: one inserts
/// while the other rotates and then inserts, so the first insert's bits
/// may be in an older generation by the time the second asks, which then
/// rightly answers `false`, but the first asks the generations older than
/// the one it wrote into, never its own.
fn racing_inserts_across_a_rotation() {
    model(|| {
        let (_, theirs, mine) = race(
            window(),
            |f| f.insert_hash(X),
            |f| {
                f.rotate();
                f.insert_hash(X)
            },
        );
        assert!(
            theirs || mine,
            "neither insert of a new key reported it new"
        );
    });
}

#[test]
fn racing_inserts_of_a_new_key_across_a_rotation_report_it_new_once_at_least() {
    racing_inserts_across_a_rotation();
}

#[test]
#[should_panic(expected = "neither insert of a new key reported it new")]
fn asking_by_the_epoch_after_the_write_reports_a_new_key_new_to_no_one() {
    with_fault(Fault::WindowAskByNewEpoch, racing_inserts_across_a_rotation);
}
