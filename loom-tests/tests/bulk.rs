//! Whole-array operations racing inserts: clear (G5), union (G6), intersect
//! (G7), counts (G8) and snapshots (G9).
#![cfg(loom)]

use atomic_bloom::{AtomicBloom, Layout};
use loom_tests::{
    BULK_CASES, Case, clear_scenario, covers, explore, intersect_scenario, race, union_scenario,
    words,
};

/// How much of a key a filter holds.
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

/// The states of a racing key that must be reachable: part of it only where
/// its bits span two words.
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
    for case in BULK_CASES {
        explore(&in_flight_states(&case), move || {
            let (filter, _, _) = race(
                case.filter_with(&[case.b]),
                move |f| {
                    f.clear();
                    f.insert_hash(case.y)
                },
                |f| f.insert_hash(case.a),
            );
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
            held(&case, &filter, case.a)
        });
    }
}

/// Two clears racing each other leave every bit clear (a clear that undid
/// the value it loaded, instead of zeroing, would bring bits back).
#[test]
fn clear_racing_clear() {
    for case in BULK_CASES {
        clear_scenario(case);
    }
}

/// A batch insert racing `clear`: the key from before is gone, nothing the
/// batch did not insert appears, and each batch key is whole, in part or
/// absent (all reached for `a`), as for single inserts.
#[test]
fn batch_racing_clear() {
    for case in BULK_CASES {
        explore(&in_flight_states(&case), move || {
            let (filter, (), _) = race(
                case.filter_with(&[case.b]),
                |f| f.clear(),
                move |f| f.insert_hash_batch([case.a, case.y]),
            );
            assert!(
                !filter.contains_hash(case.b),
                "a key from before clear survived"
            );
            assert!(covers(
                &words(&case.filter_with(&[case.a, case.y])),
                &words(&filter)
            ));
            held(&case, &filter, case.a)
        });
    }
}

/// `union` into a filter another thread is inserting into keeps both the
/// source's keys and the concurrent insert.
#[test]
fn union_racing_insert() {
    for case in BULK_CASES {
        union_scenario(case);
    }
}

/// `union` from a source another thread is inserting into: the source's
/// keys from before always come across, the one inserted meanwhile may or
/// may not (both reached).
#[test]
fn union_from_a_changing_source() {
    for case in BULK_CASES {
        explore(&[false, true], move || {
            let (src, dst, _) = race(
                case.filter_with(&[case.b]),
                move |src| {
                    let dst = case.filter();
                    dst.union(src).unwrap();
                    dst
                },
                |src| src.insert_hash(case.y),
            );
            assert!(
                dst.contains_hash(case.b),
                "union lost a key the source held before"
            );
            assert!(covers(&words(&src), &words(&dst)), "union invented bits");
            dst.contains_hash(case.y)
        });
    }
}

/// `intersect` racing an insert of a key the other filter also holds:
/// the key is found afterwards, whichever ran first (an intersect that
/// loaded a word and wrote back `old & other` would erase it).
#[test]
fn intersect_racing_an_insert_of_a_shared_key() {
    for case in BULK_CASES {
        intersect_scenario(case);
    }
}

/// `intersect` with a filter holding `a` keeps `a` and drops `b`; a key
/// inserted meanwhile (`y`) may be kept or lost, and both are reached.
#[test]
fn intersect_racing_insert() {
    for case in BULK_CASES {
        explore(&[false, true], move || {
            let mask = case.filter_with(&[case.a]);
            let (filter, (), _) = race(
                case.filter_with(&[case.a, case.b]),
                move |f| f.intersect(&mask).unwrap(),
                |f| f.insert_hash(case.y),
            );
            assert!(
                filter.contains_hash(case.a),
                "intersect lost a key both filters held"
            );
            assert!(
                !filter.contains_hash(case.b),
                "intersect kept a key only one filter held"
            );
            filter.contains_hash(case.y)
        });
    }
}

/// Counting the bits twice while another thread inserts two keys: the counts
/// never decrease, and lie between the counts before and after. Nothing yet,
/// everything already, and something in between are all reached.
#[test]
fn count_racing_inserts_is_monotone() {
    for case in BULK_CASES {
        explore(&[(true, false), (false, true), (false, false)], move || {
            let after = case.filter_with(&[case.x, case.y]).count_ones();
            let (filter, ((first, second), estimated), _) = race(
                case.filter(),
                |f| {
                    (
                        (f.count_ones(), f.count_ones()),
                        // None (every bit set) is the largest estimate.
                        (
                            f.estimated_len().unwrap_or(u64::MAX),
                            f.estimated_len().unwrap_or(u64::MAX),
                        ),
                    )
                },
                |f| {
                    f.insert_hash(case.x);
                    f.insert_hash(case.y);
                },
            );
            assert!(
                first <= second && second <= after,
                "counts {first}, {second} of {after}"
            );
            assert!(
                estimated.0 <= estimated.1,
                "estimated_len decreased: {estimated:?}"
            );
            assert_eq!(filter.count_ones(), after);
            (first == 0, first == after)
        });
    }
}

/// A snapshot (`try_clone`) taken while a key is inserted holds every key
/// from before, and the racing key whole, in part or not at all.
#[test]
fn snapshot_racing_insert() {
    for case in BULK_CASES {
        explore(&in_flight_states(&case), move || {
            let (filter, copy, _) = race(
                case.filter_with(&[case.b]),
                |f| f.try_clone().unwrap(),
                |f| f.insert_hash(case.a),
            );
            assert!(
                copy.contains_hash(case.b),
                "snapshot lost a key from before"
            );
            assert!(
                covers(&words(&filter), &words(&copy)),
                "snapshot holds bits never set"
            );
            held(&case, &copy, case.a)
        });
    }
}
