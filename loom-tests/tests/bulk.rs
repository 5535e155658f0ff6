//! Whole-array operations racing inserts: clear, union, intersect, counts
//! and snapshots.
#![cfg(loom)]

use atomic_bloom::{AtomicBloom, Layout};
use loom::sync::Arc;
use loom::thread;
use loom_tests::{CASES, Case, Outcomes, covers, model, union_scenario, words};

/// How much of `key` a filter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Held {
    None,
    Part,
    All,
}

fn held(case: &Case, filter: &AtomicBloom, key: u64) -> Held {
    let key_words = words(&case.filter_with(&[key]));
    let have = words(filter);
    if covers(&have, &key_words) {
        Held::All
    } else if have.iter().zip(&key_words).any(|(h, k)| h & k != 0) {
        Held::Part
    } else {
        Held::None
    }
}

/// The states of an in-flight key that must be reachable: part of it only
/// where its bits span two words.
fn in_flight_states(case: &Case) -> Vec<Held> {
    if case.layout == Layout::Word {
        vec![Held::None, Held::All]
    } else {
        vec![Held::None, Held::Part, Held::All]
    }
}

/// `b` is in before `clear`; one thread clears and then inserts `y`, another
/// inserts `a` meanwhile. Afterwards `b` is gone, `y` is in, and `a` may be
/// in, out, or (spanning two words) in part.
#[test]
fn clear_racing_insert() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let filter = Arc::new(case.filter_with(&[case.b]));
            let clearer = {
                let filter = filter.clone();
                thread::spawn(move || {
                    filter.clear();
                    filter.insert_hash(case.y);
                })
            };
            filter.insert_hash(case.a);
            clearer.join().unwrap();
            assert!(
                !filter.contains_hash(case.b),
                "a key from before clear survived"
            );
            assert!(
                filter.contains_hash(case.y),
                "a key inserted after clear is missing"
            );
            assert!(covers(
                &words(&case.filter_with(&[case.a, case.y])),
                &words(&filter)
            ));
            record.record(held(&case, &filter, case.a));
        });
        outcomes.assert_reached(&in_flight_states(&case));
    }
}

/// `union` into a filter another thread is inserting into keeps both the
/// source's keys and the concurrent insert.
#[test]
fn union_racing_insert() {
    for case in CASES {
        union_scenario(case, AtomicBloom::union);
    }
}

/// `union` from a source another thread is inserting into: the source's
/// keys from before always come across, the one inserted meanwhile may or
/// may not (both reached).
#[test]
fn union_from_a_changing_source() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let src = Arc::new(case.filter_with(&[case.b]));
            let unioner = {
                let src = src.clone();
                thread::spawn(move || {
                    let dst = case.filter();
                    dst.union(&src).unwrap();
                    dst
                })
            };
            src.insert_hash(case.y);
            let dst = unioner.join().unwrap();
            assert!(
                dst.contains_hash(case.b),
                "union lost a key the source held before"
            );
            assert!(covers(&words(&src), &words(&dst)), "union invented bits");
            record.record(dst.contains_hash(case.y));
        });
        outcomes.assert_reached(&[false, true]);
    }
}

/// `intersect` with a filter holding `a` keeps `a` and drops `b`; a key
/// inserted meanwhile (`y`) may be kept or lost, and both are reached.
#[test]
fn intersect_racing_insert() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let filter = Arc::new(case.filter_with(&[case.a, case.b]));
            let mask = case.filter_with(&[case.a]);
            let intersecter = {
                let filter = filter.clone();
                thread::spawn(move || filter.intersect(&mask).unwrap())
            };
            filter.insert_hash(case.y);
            intersecter.join().unwrap();
            assert!(
                filter.contains_hash(case.a),
                "intersect lost a key both filters held"
            );
            assert!(
                !filter.contains_hash(case.b),
                "intersect kept a key only one filter held"
            );
            record.record(filter.contains_hash(case.y));
        });
        outcomes.assert_reached(&[false, true]);
    }
}

/// Counting the bits twice while another thread inserts two keys: the counts
/// never decrease, and lie between the counts before and after.
#[test]
fn count_racing_inserts_is_monotone() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let after = case.filter_with(&[case.x, case.y]).count_ones();
            let filter = Arc::new(case.filter());
            let counter = {
                let filter = filter.clone();
                thread::spawn(move || {
                    let counts = (filter.count_ones(), filter.count_ones());
                    let estimates = (filter.estimated_len(), filter.estimated_len());
                    (counts, estimates)
                })
            };
            filter.insert_hash(case.x);
            filter.insert_hash(case.y);
            let ((first, second), estimated) = counter.join().unwrap();
            assert!(
                first <= second && second <= after,
                "counts {first}, {second} of {after}"
            );
            assert!(
                estimated.0 <= estimated.1,
                "estimated_len decreased: {estimated:?}"
            );
            assert_eq!(filter.count_ones(), after);
            record.record((first == 0, first == after));
        });
        // Nothing yet, everything already, and something in between.
        outcomes.assert_reached(&[(true, false), (false, true), (false, false)]);
    }
}

/// A snapshot (`try_clone`) taken while a key is inserted holds every key
/// from before, and the in-flight key in full, in part or not at all.
#[test]
fn snapshot_racing_insert() {
    for case in CASES {
        let outcomes = Outcomes::new();
        let record = outcomes.clone();
        model(move || {
            let filter = Arc::new(case.filter_with(&[case.b]));
            let snapshotter = {
                let filter = filter.clone();
                thread::spawn(move || filter.try_clone().unwrap())
            };
            filter.insert_hash(case.a);
            let copy = snapshotter.join().unwrap();
            assert!(
                copy.contains_hash(case.b),
                "snapshot lost a key from before"
            );
            assert!(
                covers(&words(&filter), &words(&copy)),
                "snapshot holds bits never set"
            );
            record.record(held(&case, &copy, case.a));
        });
        outcomes.assert_reached(&in_flight_states(&case));
    }
}
