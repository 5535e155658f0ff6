//! Queries racing inserts: no false negative after happens-before (G2), and
//! reads never go from true to false (G3).
#![cfg(loom)]

use loom::sync::atomic::Ordering::{Acquire, Release};
use loom_tests::{CASES, explore, handoff, race};

/// A writer inserts a key and then sets a flag with Release; a reader that
/// sees the flag with Acquire finds the key. Both "flag seen" and "not yet"
/// are reached.
#[test]
fn reader_after_release_acquire_handoff() {
    for case in CASES {
        handoff(case, Release, Acquire);
    }
}

/// A reader queries a key twice while a writer inserts it: never `true`
/// then `false`. Not-yet, seen-mid-way and already-there are all reached.
#[test]
fn reader_concurrent_with_writer_is_monotone() {
    for case in CASES {
        explore(&[(false, false), (false, true), (true, true)], move || {
            let (filter, (first, second), _) = race(
                case.filter(),
                move |f| (f.contains_hash(case.a), f.contains_hash(case.a)),
                |f| f.insert_hash(case.a),
            );
            assert!(!first || second, "a read went from true to false");
            assert!(filter.contains_hash(case.a));
            (first, second)
        });
    }
}
