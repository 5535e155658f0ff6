//! Concurrent inserts: no lost bits (G1), and what `insert` returns under
//! races (G4).
#![cfg(loom)]

use atomic_bloom::Layout;
use loom::sync::Arc;
use loom_tests::{BULK_CASES, CASES, case, explore, model, race, words};
use std::collections::BTreeSet;

/// Two threads insert different keys whose bits share a word. Both keys are
/// present afterwards and the words equal a sequential build: fetch_or on
/// one word never loses the other's bits, whatever the interleaving.
#[test]
fn different_keys_sharing_a_word() {
    for case in CASES {
        model(move || {
            let (filter, theirs, mine) = race(
                case.filter(),
                move |f| f.insert_hash(case.b),
                |f| f.insert_hash(case.a),
            );
            assert!(mine && theirs, "each key was new");
            assert_eq!(
                words(&filter),
                words(&case.filter_with(&[case.a, case.b])),
                "lost bits"
            );
        });
    }
}

/// Two threads insert the same new key; returns the pairs of results
/// reached. At least one must be told it inserted the key, and each must
/// be the one in some execution.
///
/// The model runs twice, the second time with the main thread yielding
/// before its insert, and the outcomes of both count. An insert reports
/// what its test found, so the main thread is told `false` only where its
/// test's loads follow the other thread's writes. loom 0.7's DPOR keeps only
/// the last access per atomic (tokio-rs/loom#392): the main thread's
/// `fetch_or` hides its earlier load of the same word, and that order is
/// never tried. Yielding first lets the other thread run ahead.
fn same_key_two_inserters(layout: Layout) -> BTreeSet<(bool, bool)> {
    let case = case(layout);
    let run = |main_yields: bool| {
        explore(&[], move || {
            let (filter, theirs, mine) = race(
                case.filter(),
                move |f| f.insert_hash(case.a),
                |f| {
                    if main_yields {
                        loom::thread::yield_now();
                    }
                    f.insert_hash(case.a)
                },
            );
            assert!(mine || theirs, "neither inserter saw the new key as new");
            assert!(filter.contains_hash(case.a));
            if layout == Layout::Word {
                assert!(!(mine && theirs), "two winners of a Word-layout insert");
            }
            (mine, theirs)
        })
    };
    let reached: BTreeSet<_> = run(false).union(&run(true)).copied().collect();
    for sole_winner in [(true, false), (false, true)] {
        assert!(
            reached.contains(&sole_winner),
            "{layout}: outcome {sole_winner:?} never reached; reached only {reached:?}"
        );
    }
    reached
}

/// Standard, Blocked, Sectorized and SplitBlock: the key's bits are in two
/// words or more, so each racer can be first to set one of them and both
/// get `true`.
#[test]
fn same_key_two_inserters_spanning_two_words() {
    for layout in [
        Layout::Standard,
        Layout::Blocked,
        Layout::Sectorized,
        Layout::SplitBlock,
    ] {
        let reached = same_key_two_inserters(layout);
        assert!(
            reached.contains(&(true, true)),
            "{layout}: both-true not reached: {reached:?}"
        );
    }
}

/// Word: one fetch_or sets all of the key's bits, so exactly one racer wins
/// (asserted inside the model for every execution).
#[test]
fn same_key_two_inserters_word() {
    let reached = same_key_two_inserters(Layout::Word);
    assert!(!reached.contains(&(true, true)));
}

/// Three threads race to insert the same new key into a `Word` filter:
/// exactly one wins in every execution, and each of them wins in some.
#[test]
fn same_key_three_inserters_word() {
    let case = case(Layout::Word);
    explore(&[0, 1, 2], move || {
        let filter = Arc::new(case.filter());
        let others: Vec<_> = (0..2)
            .map(|_| {
                let filter = filter.clone();
                loom::thread::spawn(move || filter.insert_hash(case.a))
            })
            .collect();
        let mine = filter.insert_hash(case.a);
        let results: Vec<bool> = std::iter::once(mine)
            .chain(others.into_iter().map(|t| t.join().unwrap()))
            .collect();
        assert_eq!(
            results.iter().filter(|won| **won).count(),
            1,
            "winners: {results:?}"
        );
        results.iter().position(|won| *won).unwrap()
    });
}

/// Batch inserts race as per-key inserts do: two threads insert the same
/// two new keys in opposite orders; each key is reported new by at least
/// one of them (Word: exactly one), and the bits equal a sequential build.
/// The batch pipeline is the same code for every layout, so the cases of
/// the whole-array models do (`BULK_CASES`: with `SplitBlock`'s sixteen
/// `fetch_or`s a run, exhaustive exploration ran past four minutes).
#[test]
fn batch_inserts_race_like_single_inserts() {
    for case in BULK_CASES {
        explore(&[], move || {
            let (filter, theirs, mine) = race(
                case.filter(),
                move |f| f.insert_hash_batch([case.b, case.a]),
                |f| f.insert_hash_batch([case.a, case.b]),
            );
            let total = theirs + mine;
            assert!((2..=4).contains(&total), "{total} new");
            if case.layout == Layout::Word {
                assert_eq!(total, 2, "Word batch inserts are test-and-set per key");
            }
            assert_eq!(words(&filter), words(&case.filter_with(&[case.a, case.b])));
            total
        });
    }
}
