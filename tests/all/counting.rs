//! The counting filter against a multiset: never a false negative for a key
//! inserted more often than removed, counts that bound the multiset's, the
//! rate it was sized for, and threads inserting and removing overlapping
//! keys ending where one thread would.

use atomic_bloom::{AtomicCountingBloom, Layout, Sizing, WyBuildHasher};
use proptest::prelude::*;
use std::collections::HashMap;

fn counting(layout: Layout, items: usize, fpp: f64) -> AtomicCountingBloom {
    let sizing = Sizing::for_rate(layout, items, fpp).unwrap();
    AtomicCountingBloom::with_sizing(sizing, WyBuildHasher::default()).unwrap()
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u16),
    Remove(u16),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    // Few distinct keys, so keys repeat and are removed often.
    let op = prop_oneof![
        (0u16..40).prop_map(Op::Insert),
        (0u16..40).prop_map(Op::Remove),
    ];
    prop::collection::vec(op, 0..300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Removes of keys the multiset holds, in any order with inserts: every
    /// key it holds is present, with `count_of` at least its multiplicity
    /// (or saturated), the filter is empty when the multiset is, and
    /// `to_bloom` answers as the counting filter does.
    #[test]
    fn agrees_with_a_multiset(ops in ops(), layout in prop::sample::select(Layout::ALL.to_vec())) {
        // Small, so keys share counters and some saturate.
        let f = counting(layout, 20, 0.05);
        let mut multiset: HashMap<u16, u32> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(k) => {
                    let was_absent = !f.contains(&k);
                    prop_assert_eq!(f.insert(&k), was_absent);
                    *multiset.entry(k).or_default() += 1;
                }
                Op::Remove(k) => {
                    // Only keys the multiset holds: the filter's contract.
                    if let Some(n) = multiset.get_mut(&k).filter(|n| **n > 0) {
                        prop_assert!(f.remove_unchecked(&k), "{} was present", k);
                        *n -= 1;
                    }
                }
            }
            for (&k, &n) in &multiset {
                if n > 0 {
                    prop_assert!(f.contains(&k), "false negative for {} ({} inserts left)", k, n);
                    prop_assert!(u32::from(f.count_of(&k)) >= n.min(15), "count of {}", k);
                }
            }
            // Empty exactly when the multiset is, unless a saturated
            // counter kept counts that removes cannot take back.
            let held = multiset.values().any(|&n| n > 0);
            if held || f.saturated_counters() == 0 {
                prop_assert_eq!(f.is_empty(), !held);
            }
        }
        let plain = f.to_bloom().unwrap();
        for k in 0u16..40 {
            prop_assert_eq!(plain.contains(&k), f.contains(&k));
        }
    }

    /// Two filters built from two lists of keys, merged, are the filter of
    /// both lists: counter for counter, saturated ones included (a sum
    /// saturates at 15 as that many inserts do).
    #[test]
    fn a_merge_is_the_filter_of_both_inserts(
        left in prop::collection::vec(0u16..40, 0..300),
        right in prop::collection::vec(0u16..40, 0..300),
        layout in prop::sample::select(Layout::ALL.to_vec()),
    ) {
        let (a, b, both) = (counting(layout, 20, 0.05), counting(layout, 20, 0.05), counting(layout, 20, 0.05));
        a.insert_batch(&left);
        b.insert_batch(&right);
        both.insert_batch(left.iter().chain(&right));
        let in_parallel = a.clone();
        a.union(&b).unwrap();
        prop_assert!(a == both);
        in_parallel.par_union(&b).unwrap();
        prop_assert!(in_parallel == both);
        // Removing the right list's keys leaves the left list's filter.
        a.remove_batch_unchecked(&right);
        let only_left = counting(layout, 20, 0.05);
        only_left.insert_batch(&left);
        if both.saturated_counters() == 0 {
            prop_assert!(a == only_left);
        }
    }
}

#[test]
fn filters_that_map_keys_differently_do_not_merge() {
    let a = counting(Layout::Blocked, 1_000, 0.01);
    for other in [
        counting(Layout::Blocked, 2_000, 0.01),
        counting(Layout::Standard, 1_000, 0.01),
        AtomicCountingBloom::builder()
            .capacity(1_000, 0.01)
            .seed(1)
            .build()
            .unwrap(),
    ] {
        assert!(a.union(&other).is_err());
    }
    assert!(a.union(&counting(Layout::Blocked, 1_000, 0.01)).is_ok());
}

/// A merge racing inserts and removes of other keys on other threads: every
/// count lands, so the filter ends where one thread doing all of it would.
#[test]
fn a_merge_racing_updates_loses_no_count() {
    let f = counting(Layout::Blocked, 100_000, 0.01);
    let other = counting(Layout::Blocked, 100_000, 0.01);
    other.insert_batch(0..50_000u64);
    f.insert_batch(100_000..120_000u64);
    std::thread::scope(|s| {
        s.spawn(|| f.insert_batch(50_000..100_000u64));
        s.spawn(|| f.remove_batch_unchecked(100_000..110_000u64));
        f.union(&other).unwrap();
    });
    let expected = counting(Layout::Blocked, 100_000, 0.01);
    expected.insert_batch((0..100_000u64).chain(110_000..120_000));
    assert!(f == expected);
}

#[test]
fn remove_leaves_absent_keys_alone() {
    let f = counting(Layout::Blocked, 1_000, 0.01);
    for k in 0..1_000u64 {
        f.insert(&k);
    }
    // None of these were inserted; those the filter reports present (false
    // positives) are the only ones a checked remove may touch.
    let false_positives: Vec<u64> = (1 << 40..(1 << 40) + 10_000)
        .filter(|k| f.contains(k))
        .collect();
    for k in 1 << 40..(1 << 40) + 10_000u64 {
        let present = f.contains(&k);
        assert_eq!(f.remove(&k), present);
        if present {
            // Put back what the false positive took.
            f.insert(&k);
        }
    }
    assert!(false_positives.len() < 200, "{}", false_positives.len());
    assert!((0..1_000u64).all(|k| f.contains(&k)));
}

#[test]
fn overflow_never_makes_a_key_vanish() {
    let f = counting(Layout::Standard, 100, 0.01);
    for _ in 0..40 {
        f.insert("hot");
    }
    assert_eq!(f.count_of("hot"), 15);
    assert_eq!(f.saturated_counters(), u64::from(f.num_hashes()));
    for _ in 0..40 {
        f.remove_unchecked("hot");
    }
    // Saturated counters are never decremented: the key lingers.
    assert!(f.contains("hot"));
}

/// The measured rate at `items` keys, on about 10 000 expected false
/// positives, and again after inserting as many more and removing them.
fn assert_honours(layout: Layout, fpp: f64) {
    let items = 200_000u64;
    let f = counting(layout, items as usize, fpp);
    let measure = |f: &AtomicCountingBloom| {
        let queries = (10_000.0 / fpp) as u64;
        let hits = (1u64 << 40..(1 << 40) + queries)
            .filter(|k| f.contains(k))
            .count();
        hits as f64 / queries as f64
    };
    for k in 0..items {
        f.insert(&k);
    }
    let fresh = measure(&f);
    assert!(fresh <= 1.05 * fpp, "{layout} at {fpp}: {fresh}");
    // A mixed sequence back to `items` live keys.
    for k in items..2 * items {
        f.insert(&k);
    }
    for k in (items / 2..items + items / 2).rev() {
        assert!(f.remove_unchecked(&k));
    }
    let live: Vec<u64> = (0..items / 2).chain(items + items / 2..2 * items).collect();
    assert!(live.iter().all(|k| f.contains(k)));
    let mixed = measure(&f);
    assert!(
        mixed <= 1.05 * fpp,
        "{layout} at {fpp} after removes: {mixed}"
    );
    eprintln!("{layout:>10} p={fpp}: fresh {fresh:.3e}, after removes {mixed:.3e}");
}

#[test]
fn every_layout_honours_its_rate_before_and_after_removes() {
    for layout in Layout::ALL {
        for fpp in [0.05, 0.01, 0.001] {
            assert_honours(layout, fpp);
        }
    }
}

/// Four threads each insert their own keys and a shared set, then remove
/// half of their own and the shared set once each but for one thread: the
/// counters end as one thread doing the same work would leave them.
#[test]
fn threads_inserting_and_removing_overlapping_keys_converge() {
    let threads = 4u64;
    let per_thread = 20_000u64;
    let shared: Vec<u64> = (1_000_000..1_000_200).collect();
    for layout in Layout::ALL {
        let f = counting(layout, 100_000, 0.01);
        std::thread::scope(|s| {
            for t in 0..threads {
                let (f, shared) = (&f, &shared);
                s.spawn(move || {
                    let own = t * per_thread..(t + 1) * per_thread;
                    for k in own.clone() {
                        f.insert(&k);
                    }
                    for k in shared {
                        f.insert(k);
                    }
                    for k in own.step_by(2) {
                        assert!(f.remove_unchecked(&k), "{layout}: own key {k}");
                    }
                    if t > 0 {
                        for k in shared {
                            assert!(f.remove_unchecked(k), "{layout}: shared key {k}");
                        }
                    }
                });
            }
        });
        let sequential = counting(layout, 100_000, 0.01);
        for k in 0..threads * per_thread {
            if k % 2 == 1 {
                sequential.insert(&k);
            }
        }
        for k in &shared {
            sequential.insert(k);
        }
        assert_eq!(
            f.to_bloom().unwrap(),
            sequential.to_bloom().unwrap(),
            "{layout}"
        );
        for k in (0..threads * per_thread).chain(shared.iter().copied()) {
            assert_eq!(f.count_of(&k), sequential.count_of(&k), "{layout}: key {k}");
        }
    }
}

#[test]
fn a_clone_is_a_snapshot_that_goes_its_own_way() {
    let f = counting(Layout::Blocked, 1_000, 0.01);
    f.insert_batch(0..500u64);
    f.insert(&7u64);
    let copy = f.clone();
    assert_eq!(copy, f);
    assert_eq!(copy.count_of(&7u64), 2);
    let untouched = f.try_clone().unwrap();
    f.remove_unchecked(&7u64);
    f.remove_unchecked(&7u64);
    assert!(!f.contains(&7u64));
    assert_eq!(copy.count_of(&7u64), 2);
    copy.insert_batch(500..1000u64);
    assert_eq!(copy.count_of(&7u64), 2);
    assert_ne!(f, untouched);
    f.insert(&7u64);
    f.insert(&7u64);
    assert_eq!(f, untouched); // the copy's inserts did not reach it
}

/// A clone taken while other threads insert and remove other keys holds
/// every key inserted before it began.
#[test]
fn a_clone_racing_updates_holds_every_key_inserted_before_it() {
    let f = counting(Layout::Blocked, 100_000, 0.01);
    f.insert_batch(0..50_000u64);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 50_000..100_000u64 {
                f.insert(&i);
                f.remove_unchecked(&i);
            }
        });
        for _ in 0..20 {
            let copy = f.clone();
            assert!((0..50_000u64).all(|i| copy.contains(&i)));
        }
    });
}

#[test]
fn is_send_and_sync() {
    fn shared_across_threads<T: Send + Sync>() {}
    shared_across_threads::<AtomicCountingBloom>();
}
