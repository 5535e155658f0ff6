//! The hand-picked keys have the bits the loom models assume. Runs in the
//! normal build (`cargo test --workspace`), not under loom.
#![cfg(not(loom))]

use atomic_bloom::{AtomicBloom, Layout, WyBuildHasher};
use loom_tests::{
    CASES, COUNTING_A, COUNTING_B, COUNTING_ONE_WORD, COUNTING_SHARES_ONE_OF_A, GROWABLE_A,
    GROWABLE_B, GROWABLE_C, GROWABLE_FULL, counting_filter, growable_filter, roomy_growable_filter,
    sub_filters_allocated, words,
};

fn nonzero_words(v: &[u64]) -> Vec<usize> {
    v.iter()
        .enumerate()
        .filter(|(_, w)| **w != 0)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn hand_picked_keys_have_the_assumed_bits() {
    for case in CASES {
        let a = words(&case.filter_with(&[case.a]));
        let b = words(&case.filter_with(&[case.b]));
        let x = words(&case.filter_with(&[case.x]));
        let y = words(&case.filter_with(&[case.y]));
        let layout = case.layout;
        // a spans two words, except in the Word layout (one) and the
        // SplitBlock layout (its block's four).
        let expected_span = match layout {
            Layout::Word => 1,
            Layout::SplitBlock => 4,
            _ => 2,
        };
        assert_eq!(nonzero_words(&a).len(), expected_span, "{layout}: a");
        // a and b share a word, and each has a bit there the other lacks.
        let shared = a
            .iter()
            .zip(&b)
            .any(|(p, q)| *p != 0 && *q != 0 && p & !q != 0 && q & !p != 0);
        assert!(shared, "{layout}: a {a:x?} and b {b:x?} share no word");
        // x and y have no word in common.
        assert!(
            x.iter().zip(&y).all(|(p, q)| *p == 0 || *q == 0),
            "{layout}: x {x:x?} y {y:x?}"
        );
        // The whole-array models race y against a and b: a clear followed
        // by y leaves b gone and a untouched (`clear_racing_insert`), and
        // y is new to a filter of a and b, so inserting it writes
        // (`intersect_racing_insert`, `union_from_a_changing_source`).
        let covered = |key: &[u64], by: &[u64]| key.iter().zip(by).all(|(k, h)| k & !h == 0);
        assert!(
            !covered(&b, &words(&case.filter_with(&[case.a, case.y]))),
            "{layout}: b under a, y"
        );
        assert!(
            !covered(&y, &words(&case.filter_with(&[case.a, case.b]))),
            "{layout}: y under a, b"
        );
        assert!(
            a.iter().zip(&y).all(|(p, q)| p & q == 0),
            "{layout}: a and y share a bit"
        );
    }
}

/// The counters each of `hashes` has, alone in the counting models' filter.
fn counters(hash: u64) -> Vec<u64> {
    let f = counting_filter();
    f.insert_hash(hash);
    let bits = f.to_bloom().unwrap();
    let mut found = Vec::new();
    for (i, mut word) in bits.words().enumerate() {
        while word != 0 {
            found.push(i as u64 * 64 + u64::from(word.trailing_zeros()));
            word &= word - 1;
        }
    }
    found
}

#[test]
fn counting_keys_are_neighbours_in_one_word() {
    let (a, b) = (counters(COUNTING_A), counters(COUNTING_B));
    assert!(a.contains(&230) && b.contains(&231), "{a:?} {b:?}");
    assert!(a.iter().all(|c| !b.contains(c)), "{a:?} {b:?}");
    // `COUNTING_A`'s two counters lie in two words (so two racing inserts
    // can each find one of them at zero).
    assert_eq!(a.iter().map(|c| c / 16).collect::<Vec<_>>(), [14, 26]);
}

#[test]
fn the_partly_sharing_key_shares_one_counter_of_a() {
    let (a, p) = (counters(COUNTING_A), counters(COUNTING_SHARES_ONE_OF_A));
    assert_eq!(p, [230, 370]);
    assert_eq!(p.iter().filter(|c| a.contains(c)).count(), 1, "{a:?} {p:?}");
}

/// `GROWABLE_A` and `GROWABLE_B` each have a bit of their own in the roomy
/// filter's first sub-filter, which holds both without growing.
#[test]
fn the_roomy_growable_filter_takes_a_and_b_as_new_keys() {
    let f = roomy_growable_filter();
    assert_eq!(f.insert_hash(GROWABLE_A), Ok(true));
    assert_eq!(f.insert_hash(GROWABLE_B), Ok(true));
    assert_eq!(f.sub_filters(), 1);
    assert_eq!(f.sub_filter_stats()[0].inserted, 2);
}

/// Each of `GROWABLE_A`, `GROWABLE_B` and `GROWABLE_C` has, in each of the
/// first three sub-filters' sizings, a bit that none of the other three
/// keys (with `GROWABLE_FULL`) has: each is new in any sub-filter holding
/// any set of the others.
#[test]
fn growable_keys_each_have_a_bit_of_their_own() {
    let grown = growable_filter(None);
    let mut key = 100;
    while grown.sub_filters() < 3 {
        grown.insert_hash(key).unwrap();
        key += 1;
    }
    let all = [GROWABLE_FULL, GROWABLE_A, GROWABLE_B, GROWABLE_C];
    for stats in &grown.sub_filter_stats()[..3] {
        let bits = |key: u64| {
            let f = AtomicBloom::with_sizing(stats.sizing, WyBuildHasher::default()).unwrap();
            f.insert_hash(key);
            words(&f)
        };
        for key in [GROWABLE_A, GROWABLE_B, GROWABLE_C] {
            let others = all
                .iter()
                .filter(|&&k| k != key)
                .map(|&k| bits(k))
                .fold(vec![0u64; bits(key).len()], |acc, w| {
                    acc.iter().zip(&w).map(|(a, b)| a | b).collect()
                });
            assert!(
                bits(key).iter().zip(&others).any(|(k, o)| k & !o != 0),
                "key {key} has no bit of its own at {stats:?}"
            );
        }
    }
}

#[test]
fn growable_filter_grows_after_its_first_key_and_counts_allocations() {
    let filter = growable_filter(None);
    assert_eq!(filter.sub_filters(), 1);
    assert_eq!(sub_filters_allocated(&filter), 0);
    assert_eq!(filter.insert_hash(GROWABLE_A), Ok(true));
    assert_eq!(
        filter.sub_filters(),
        2,
        "the first sub-filter holds one key"
    );
    assert_eq!(sub_filters_allocated(&filter), 1);
    assert_eq!(filter.sub_filter_stats()[0].fill_limit, 2);
    // One 64-byte line per sub-filter: a limit of 64 bytes stops growth.
    let limited = growable_filter(Some(64));
    assert!(limited.insert_hash(GROWABLE_A).is_err());
}

#[test]
fn the_one_word_counting_key_has_both_counters_in_one_word() {
    let found = counters(COUNTING_ONE_WORD);
    assert_eq!(found, [131, 138]);
    assert_eq!(found[0] / 16, found[1] / 16, "{found:?}");
}
