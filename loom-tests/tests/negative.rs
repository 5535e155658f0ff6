//! Negative controls: deliberately broken variants that a weaker
//! implementation would be, each of which loom must catch. If one of these
//! stops failing, the models above have stopped exploring the interleaving
//! that matters. `expected` pins the failure to the property, not to loom
//! failing to start.
#![cfg(loom)]

use atomic_bloom::{AtomicBloom, Layout};
use loom::sync::Arc;
use loom::sync::atomic::Ordering::Relaxed;
use loom::thread;
use loom_tests::{case, handoff, model, union_scenario, words};

/// An insert that loads the word and writes back `old | mask` loses the
/// other thread's bits when both load before either writes.
#[test]
#[should_panic(expected = "lost bits")]
fn load_store_insert_loses_bits() {
    let case = case(Layout::Word);
    model(move || {
        let filter = Arc::new(case.filter());
        let other = {
            let filter = filter.clone();
            thread::spawn(move || filter.broken_insert_hash(case.b))
        };
        filter.broken_insert_hash(case.a);
        other.join().unwrap();
        assert_eq!(
            words(&filter),
            words(&case.filter_with(&[case.a, case.b])),
            "lost bits"
        );
    });
}

/// A union that loads and writes back each word overwrites a key inserted
/// between its load and its write.
#[test]
#[should_panic(expected = "union lost a concurrent insert")]
fn load_store_union_loses_an_insert() {
    union_scenario(case(Layout::Word), AtomicBloom::broken_union);
}

/// With a Relaxed flag the reader may see the flag but not the key's bits:
/// the filter orders nothing by itself.
#[test]
#[should_panic(expected = "false negative after the handoff")]
fn relaxed_handoff_can_miss_the_insert() {
    handoff(case(Layout::Standard), Relaxed, Relaxed);
}
