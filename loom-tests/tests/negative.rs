//! Negative controls: deliberately broken variants that a weaker
//! implementation would be, each of which loom must catch. If one of these
//! stops failing, the models above have stopped exploring the interleaving
//! that matters. `expected` pins the failure to the property, not to loom
//! failing to start.
#![cfg(loom)]

use atomic_bloom::{AtomicBloom, Layout};
use loom::sync::atomic::Ordering::Relaxed;
use loom_tests::{case, handoff, model, race, union_scenario, words};

/// An insert that loads the word and writes back `old | mask` loses the
/// other thread's bits when both load before either writes (G1).
#[test]
#[should_panic(expected = "lost bits")]
fn load_store_insert_loses_bits() {
    let case = case(Layout::Word);
    model(move || {
        let (filter, _, _) = race(
            case.filter(),
            move |f| f.broken_insert_hash(case.b),
            |f| f.broken_insert_hash(case.a),
        );
        assert_eq!(
            words(&filter),
            words(&case.filter_with(&[case.a, case.b])),
            "lost bits"
        );
    });
}

/// A union that loads and writes back each word overwrites a key inserted
/// between its load and its write (G6).
#[test]
#[should_panic(expected = "union lost a concurrent insert")]
fn load_store_union_loses_an_insert() {
    union_scenario(case(Layout::Word), AtomicBloom::broken_union);
}

/// With a Relaxed flag the reader may see the flag but not the key's bits:
/// the filter orders nothing by itself (G2).
#[test]
#[should_panic(expected = "false negative after the handoff")]
fn relaxed_handoff_can_miss_the_insert() {
    handoff(case(Layout::Standard), Relaxed, Relaxed);
}
