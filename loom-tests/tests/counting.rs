//! The counting filter's contract (C1-C6 in `docs::memory_ordering`), and
//! negative controls: a counter update split into a load and a write, and
//! a decrement that wraps below zero, each of which loom must catch.
#![cfg(loom)]

use atomic_bloom::AtomicCountingBloom;
use atomic_bloom::fault::Fault;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom_tests::{
    COUNTING_A as A, COUNTING_B as B, COUNTING_ONE_WORD as W, COUNTING_SHARES_ONE_OF_A as P,
    counting_filter as filter, explore, model, race, with_fault,
};

/// `filter` after `inserts` on one thread.
fn filter_with(inserts: &[u64]) -> AtomicCountingBloom {
    let f = filter();
    for &h in inserts {
        f.insert_hash(h);
    }
    f
}

/// Two inserts of keys whose counters share a word: both count (C1).
fn inserts_sharing_a_word() {
    model(|| {
        let (f, _, _) = race(filter(), |f| f.insert_hash(B), |f| f.insert_hash(A));
        assert!(
            f.count_of_hash(A) == 1 && f.count_of_hash(B) == 1,
            "lost a count: A {}, B {}",
            f.count_of_hash(A),
            f.count_of_hash(B)
        );
        assert_eq!(
            f.to_bloom().unwrap(),
            filter_with(&[A, B]).to_bloom().unwrap()
        );
    });
}

#[test]
fn inserts_sharing_a_word_both_count() {
    inserts_sharing_a_word();
}

/// A remove of one key races an insert of another in the same word: the
/// remove takes exactly its own count, the insert adds exactly its own,
/// and every counter, not only the smallest of each key's (`count_of`),
/// ends as a sequential run leaves it (C1). Where a compare-and-swap loses
/// to the other thread's update of the word, it retries.
fn insert_racing_remove_in_one_word() {
    model(|| {
        let (f, removed, _) = race(
            filter_with(&[A]),
            |f| f.remove_hash_unchecked(A),
            |f| f.insert_hash(B),
        );
        assert!(removed, "A was present when removed");
        assert_eq!((f.count_of_hash(A), f.count_of_hash(B)), (0, 1));
        assert!(!f.contains_hash(A) && f.contains_hash(B));
        assert!(
            *f == filter_with(&[B]),
            "the counters differ from a sequential run"
        );
    });
}

#[test]
fn insert_and_remove_sharing_a_word() {
    insert_racing_remove_in_one_word();
}

/// Negative control: a counter update that gives up when its
/// compare-and-swap loses leaves `A`'s counter in the shared word one too
/// high; `count_of(A)` still reads 0 (its other counter is), so only the
/// whole-counter comparison sees it.
#[test]
#[should_panic(expected = "the counters differ from a sequential run")]
fn an_abandoned_update_leaves_a_counter_too_high() {
    with_fault(
        Fault::AbandonContendedUpdate,
        insert_racing_remove_in_one_word,
    );
}

/// Two inserts of one new key race (C6): at least one reports it new, and
/// both can (its counters lie in two words, and each insert can find one
/// of them at zero); neither reporting it is never reached. Both counts
/// land.
#[test]
fn racing_inserts_of_a_new_key_report_it_new_at_least_once() {
    explore(&[(false, true), (true, false), (true, true)], || {
        let (f, theirs, mine) = race(filter(), |f| f.insert_hash(A), |f| f.insert_hash(A));
        assert!(
            theirs || mine,
            "neither insert of a new key reported it new"
        );
        assert_eq!(f.count_of_hash(A), 2);
        (theirs, mine)
    });
}

/// Two inserts of a new key whose counters share one word race (C6): one
/// compare-and-swap updates both counters, so the word's order has one
/// first update, which sees them at zero: exactly one insert reports the
/// key new, either one, and both counts land. Unlike the model above this
/// needs no exploration artefact: each side is one update of one word.
fn racing_inserts_of_a_one_word_key() {
    explore(&[(false, true), (true, false)], || {
        let (f, theirs, mine) = race(filter(), |f| f.insert_hash(W), |f| f.insert_hash(W));
        assert!(
            theirs != mine,
            "racing inserts of a new key did not report it new exactly once: {theirs}, {mine}"
        );
        assert_eq!(f.count_of_hash(W), 2);
        (theirs, mine)
    });
}

#[test]
fn racing_inserts_of_a_one_word_key_report_it_new_exactly_once() {
    racing_inserts_of_a_one_word_key();
}

/// Negative control: a counter update split into a load and a write lets
/// both inserts see the counters at zero and both report the key new.
#[test]
#[should_panic(expected = "did not report it new exactly once")]
fn split_counter_updates_report_a_new_key_new_twice() {
    with_fault(Fault::SplitCounterUpdate, racing_inserts_of_a_one_word_key);
}

/// Two inserts race on a key whose counters stand at 14: the counters end
/// at exactly 15, saturated, and nothing carries into the neighbouring
/// lane, which is `B`'s (C3).
#[test]
fn racing_increments_saturate_exactly() {
    let mut start = vec![A; 14];
    start.push(B);
    model(move || {
        let (f, _, _) = race(
            filter_with(&start),
            |f| f.insert_hash(A),
            |f| f.insert_hash(A),
        );
        assert_eq!(f.count_of_hash(A), 15);
        assert_eq!(f.count_of_hash(B), 1, "a carry reached the next lane");
        assert_eq!(f.saturated_counters(), 2);
    });
}

/// An insert that happens-before a query (here through a Release/Acquire
/// flag) is seen (C2).
#[test]
fn insert_then_query_after_handoff() {
    explore(&[false, true], || {
        let ready = Arc::new(AtomicBool::new(false));
        let flag = ready.clone();
        let (_, (), saw_flag) = race(
            filter(),
            move |f| {
                f.insert_hash(A);
                flag.store(true, Ordering::Release);
            },
            |f| {
                let saw_flag = ready.load(Ordering::Acquire);
                if saw_flag {
                    assert!(f.contains_hash(A), "false negative after the handoff");
                }
                saw_flag
            },
        );
        saw_flag
    });
}

/// Two threads remove the last insert of `A` with `remove`: both
/// can pass the check (it is not atomic with the decrement), and the second
/// decrement then finds `A`'s counters at zero. Zero counters are spared,
/// so `B`, whose counter is the next lane up, stays present (C3, C4), and
/// each remove reports whether it found all of `A`'s counters above zero.
fn double_checked_remove() {
    explore(&[1, 0], || {
        let (f, theirs, mine) = race(
            filter_with(&[A, B]),
            |f| f.remove_hash(A),
            |f| f.remove_hash(A),
        );
        assert!(f.contains_hash(B), "a false negative for B");
        assert!(!f.contains_hash(A));
        // How many removes found every counter above zero: one, or none
        // when both passed the check and each then found one of `A`'s two
        // counters already taken by the other.
        assert!(!(theirs && mine), "both removes took a count");
        usize::from(theirs) + usize::from(mine)
    });
}

#[test]
fn racing_checked_removes_spare_zero_counters() {
    double_checked_remove();
}

/// C4's hazard, exactly: `A`, inserted once, shares one of its two
/// counters with `P`. Two `remove(A)` race. Removed one after the
/// other, the second fails its check and `P` stays; racing, both can pass
/// the check, and the second then takes `P`'s count in the shared counter
/// (its other counter, at zero, is spared), so `P` becomes a false
/// negative. Both outcomes are reached; in every one exactly one call
/// reports that it removed `A`, so a caller that sees `false` knows a
/// count may have been taken from another key.
fn double_checked_remove_of_a_partly_shared_key() {
    explore(&[false, true], || {
        let (f, theirs, mine) = race(
            filter_with(&[A, P]),
            |f| f.remove_hash(A),
            |f| f.remove_hash(A),
        );
        assert!(theirs != mine, "not exactly one remove reported A removed");
        assert!(!f.contains_hash(A), "A survived its remove");
        let p_lost = !f.contains_hash(P);
        // P's own counter is never touched, and A's own one ends at zero:
        // the counters above zero are P's two, or its own alone.
        assert_eq!(
            f.nonzero_counters(),
            if p_lost { 1 } else { 2 },
            "a counter went below zero or lost a count"
        );
        assert_eq!(f.count_of_hash(P), u8::from(!p_lost));
        p_lost
    });
}

#[test]
fn racing_checked_removes_can_take_a_count_of_a_partly_sharing_key() {
    double_checked_remove_of_a_partly_shared_key();
}

/// Negative control: decrements that do not spare zero counters wrap
/// `A`'s unshared counter in the second remove, from 0 to 15.
#[test]
#[should_panic(expected = "a counter went below zero or lost a count")]
fn wrapping_decrement_in_a_double_remove_wraps_a_counter() {
    with_fault(
        Fault::WrappingDecrement,
        double_checked_remove_of_a_partly_shared_key,
    );
}

/// `clear` racing an insert: `B`, in before the clear, is gone; `A`'s
/// insert may survive whole or not at all (or, with counters in two words,
/// in part), and never counts twice (C4).
#[test]
fn clear_racing_insert() {
    explore(&[false, true], || {
        let (f, (), _) = race(filter_with(&[B]), |f| f.clear(), |f| f.insert_hash(A));
        assert_eq!(f.count_of_hash(B), 0, "a key from before clear survived");
        assert!(f.count_of_hash(A) <= 1);
        f.contains_hash(A)
    });
}

/// A merge racing an insert whose counters share a word with the merged
/// key's: both counts land (C5).
fn merge_racing_insert() {
    model(|| {
        let other = filter_with(&[A]);
        let (f, _, ()) = race(
            filter(),
            |f| f.insert_hash(B),
            move |f| f.union(&other).unwrap(),
        );
        assert!(
            f.count_of_hash(A) == 1 && f.count_of_hash(B) == 1,
            "lost a count: A {}, B {}",
            f.count_of_hash(A),
            f.count_of_hash(B)
        );
    });
}

#[test]
fn merge_racing_insert_both_count() {
    merge_racing_insert();
}

/// Negative control: counter updates split into a load and a write lose a
/// count when both inserts load the shared word before either writes.
#[test]
#[should_panic(expected = "lost a count")]
fn split_counter_update_loses_a_count() {
    with_fault(Fault::SplitCounterUpdate, inserts_sharing_a_word);
}

/// Negative control: the same split update loses a count when the merge
/// and the insert load the shared word before either writes.
#[test]
#[should_panic(expected = "lost a count")]
fn split_counter_update_in_a_merge_loses_a_count() {
    with_fault(Fault::SplitCounterUpdate, merge_racing_insert);
}

/// Negative control: a decrement that does not spare zero counters
/// borrows from the next lane when both checked removes pass: `B` becomes
/// a false negative.
#[test]
#[should_panic(expected = "a false negative for B")]
fn wrapping_decrement_creates_a_false_negative() {
    with_fault(Fault::WrappingDecrement, double_checked_remove);
}
