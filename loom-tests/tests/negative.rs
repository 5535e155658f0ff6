//! Negative controls: the crate's real operations with a bug injected
//! (`atomic_bloom::fault`, compiled only under loom), each of which loom
//! must catch. If one of these stops failing, the models have stopped
//! exploring the interleaving that matters. `expected` pins the failure to
//! the property, not to loom failing to start.
#![cfg(loom)]

use atomic_bloom::Layout;
use atomic_bloom::fault::Fault;
use loom::sync::atomic::Ordering::Relaxed;
use loom_tests::{
    case, clear_scenario, handoff, intersect_scenario, model, race, union_scenario, with_fault,
    words,
};

/// `insert` with its `fetch_or` split into a load and a write loses the
/// other thread's bits when both load before either writes (G1): the
/// default layout's real insert path (`LineWriter::commit`).
#[test]
#[should_panic(expected = "lost bits")]
fn split_fetch_or_loses_bits() {
    let case = case(Layout::Blocked);
    with_fault(Fault::SplitFetchOr, || {
        model(move || {
            let (filter, _, _) = race(
                case.filter(),
                move |f| f.insert_hash(case.b),
                |f| f.insert_hash(case.a),
            );
            assert_eq!(
                words(&filter),
                words(&case.filter_with(&[case.a, case.b])),
                "lost bits"
            );
        });
    });
}

/// `union` with its `fetch_or` split overwrites a key inserted between its
/// load and its write, or the insert's split write overwrites the union's
/// bits (G6): loom finds one or the other.
#[test]
#[should_panic(expected = "union lost")]
fn split_fetch_or_union_loses_an_insert() {
    with_fault(Fault::SplitFetchOr, || union_scenario(case(Layout::Word)));
}

/// `intersect` with its `fetch_and` split erases a key both filters hold
/// when its insert lands between the load and the write (G7).
#[test]
#[should_panic(expected = "intersect lost a key both filters hold")]
fn split_fetch_and_loses_a_shared_key() {
    with_fault(Fault::SplitFetchAnd, || {
        intersect_scenario(case(Layout::Blocked))
    });
}

/// `clear` undoing the value it loaded with `fetch_xor`: when two clears
/// load the same value, the second brings the bits back (G5).
#[test]
#[should_panic(expected = "two clears left bits set")]
fn clear_by_xor_brings_bits_back() {
    with_fault(Fault::ClearByXor, || clear_scenario(case(Layout::Standard)));
}

/// With a Relaxed flag the reader may see the flag but not the key's bits:
/// the filter orders nothing by itself (G2).
#[test]
#[should_panic(expected = "false negative after the handoff")]
fn relaxed_handoff_can_miss_the_insert() {
    handoff(case(Layout::Standard), Relaxed, Relaxed);
}
