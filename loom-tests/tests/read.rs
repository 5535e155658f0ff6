//! Queries racing inserts: no false negative after happens-before, and reads
//! never go from true to false.
#![cfg(loom)]

use loom::sync::Arc;
use loom::sync::atomic::Ordering::{Acquire, Release};
use loom::thread;
use loom_tests::{CASES, Outcomes, handoff, model};

/// A writer inserts a key and then sets a flag with Release; a reader that
/// sees the flag with Acquire finds the key. Both "flag seen" and "not yet"
/// must be reached.
#[test]
fn reader_after_release_acquire_handoff() {
    for case in CASES {
        handoff(case, Release, Acquire).assert_reached(&[false, true]);
    }
}

/// A reader queries a key twice while a writer inserts it: never `true`
/// then `false`. Not-yet, seen-mid-way and already-there must all be reached.
#[test]
fn reader_concurrent_with_writer_is_monotone() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let filter = Arc::new(case.filter());
            let reader = {
                let filter = filter.clone();
                thread::spawn(move || {
                    let first = filter.contains_hash(case.a);
                    let second = filter.contains_hash(case.a);
                    (first, second)
                })
            };
            filter.insert_hash(case.a);
            let (first, second) = reader.join().unwrap();
            assert!(!first || second, "a read went from true to false");
            record.record((first, second));
        });
        outcomes.assert_reached(&[(false, false), (false, true), (true, true)]);
    }
}
