//! Property tests against a `HashSet` model: whatever keys go in, the filter
//! behaves as a set with one-sided error.

use crate::common;

use atomic_bloom::{AtomicBloom, IncompatibleError, Layout};
use proptest::prelude::*;
use std::collections::HashSet;

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::Standard),
        Just(Layout::Blocked),
        Just(Layout::Word)
    ]
}

/// Small filters, so that the sets below fill them and false positives occur.
fn filter(layout: Layout, num_bits: u64, k: u32) -> AtomicBloom {
    AtomicBloom::builder()
        .bits(num_bits, k)
        .layout(layout)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every inserted key is reported present; insert's result on one thread
    /// is exactly "was not reported present before".
    #[test]
    fn never_a_false_negative(
        layout in layout(),
        bits in 64u64..4096,
        k in 1u32..12,
        keys in prop::collection::vec(any::<u64>(), 0..300),
    ) {
        let f = filter(layout, bits, k);
        let mut model = HashSet::new();
        for key in &keys {
            let before = f.contains(key);
            prop_assert_eq!(f.insert(key), !before);
            // A key new to the model may still be a false positive, but a
            // repeated key must already be present.
            if !model.insert(*key) {
                prop_assert!(before);
            }
            prop_assert!(f.contains(key));
        }
        prop_assert!(model.iter().all(|key| f.contains(key)));
    }

    /// Keys of every shape hash through `Hash`, including unsized ones, and
    /// owned keys find what their borrowed form inserted.
    #[test]
    fn strings_and_byte_slices(layout in layout(), keys in prop::collection::vec(".{0,40}", 1..100)) {
        let build = || AtomicBloom::builder().capacity(keys.len(), 0.01).layout(layout).build().unwrap();
        let (strs, bytes) = (build(), build());
        for key in &keys {
            strs.insert(key.as_str());
            bytes.insert(key.as_bytes());
        }
        for key in &keys {
            prop_assert!(strs.contains(key.as_str()));
            prop_assert!(strs.contains(key)); // String hashes as str
            prop_assert!(bytes.contains(key.as_bytes()));
            prop_assert!(bytes.contains(&key.as_bytes().to_vec())); // Vec<u8> hashes as [u8]
        }
    }

    /// The union holds every key of both filters; the intersection every key
    /// of both at once.
    #[test]
    fn union_is_a_superset_and_intersection_keeps_common_keys(
        layout in layout(),
        a_keys in prop::collection::hash_set(any::<u32>(), 0..200),
        b_keys in prop::collection::hash_set(any::<u32>(), 0..200),
    ) {
        let a = filter(layout, 8192, 5);
        let b = filter(layout, 8192, 5);
        a.insert_batch(&a_keys);
        b.insert_batch(&b_keys);
        let union = a.clone();
        union.union(&b).unwrap();
        prop_assert!(a_keys.iter().chain(&b_keys).all(|k| union.contains(k)));
        prop_assert!(union.count_ones() >= a.count_ones().max(b.count_ones()));
        let both = a.clone();
        both.intersect(&b).unwrap();
        prop_assert!(a_keys.intersection(&b_keys).all(|k| both.contains(k)));
        prop_assert!(both.count_ones() <= a.count_ones().min(b.count_ones()));
    }

    /// `clear` leaves no bit and no key behind, and the filter works after.
    #[test]
    fn clear_empties(layout in layout(), keys in prop::collection::vec(any::<u64>(), 1..200)) {
        let f = filter(layout, 2048, 4);
        for key in &keys {
            f.insert(key);
        }
        f.clear();
        prop_assert_eq!(f.count_ones(), 0);
        prop_assert!(keys.iter().all(|k| !f.contains(k)));
        prop_assert_eq!(&f, &filter(layout, 2048, 4));
        prop_assert!(f.insert(&keys[0]));
        prop_assert!(f.contains(&keys[0]));
    }

    /// A clone is an equal, independent copy.
    #[test]
    fn clone_is_a_snapshot(layout in layout(), keys in prop::collection::vec(any::<u64>(), 1..100)) {
        let f = filter(layout, 4096, 3);
        for key in &keys {
            f.insert(key);
        }
        let copy = f.clone();
        prop_assert_eq!(&copy, &f);
        f.clear();
        prop_assert!(keys.iter().all(|k| copy.contains(k)));
    }
}

#[test]
fn incompatible_filters_are_refused_with_the_reason() {
    let base = || AtomicBloom::builder().bits(1024, 4);
    let a = base().build().unwrap();
    let cases = [
        (
            base().bits(2048, 4).build().unwrap(),
            IncompatibleError::NumBits {
                left: 1024,
                right: 2048,
            },
        ),
        (
            base().bits(1024, 5).build().unwrap(),
            IncompatibleError::NumHashes { left: 4, right: 5 },
        ),
        (
            base().layout(Layout::Word).build().unwrap(),
            IncompatibleError::Layout {
                left: Layout::Blocked,
                right: Layout::Word,
            },
        ),
        (base().seed(1).build().unwrap(), IncompatibleError::Hasher),
    ];
    for (b, reason) in cases {
        assert!(!a.is_compatible(&b));
        assert_eq!(a.union(&b), Err(reason.clone()));
        assert_eq!(a.intersect(&b), Err(reason));
    }
    assert!(a.is_compatible(&base().build().unwrap()));
}

#[test]
fn random_state_hashers_are_never_compatible() {
    let build = || {
        AtomicBloom::builder()
            .bits(1024, 4)
            .hasher(std::hash::RandomState::new())
            .build()
            .unwrap()
    };
    assert_eq!(build().union(&build()), Err(IncompatibleError::Hasher));
}

#[test]
fn extend_and_collect() {
    let mut f = AtomicBloom::new(100, 0.01).unwrap();
    f.extend(["a", "b", "c"]);
    assert!(["a", "b", "c"].iter().all(|k| f.contains(k)));
    let collected: AtomicBloom = (0..10_000u64).collect();
    assert!((0..10_000u64).all(|i| collected.contains(&i)));
    assert!(collected.sizing().false_positive_rate(10_000) <= 0.01);
    let empty: AtomicBloom = std::iter::empty::<u8>().collect();
    assert_eq!(empty.count_ones(), 0);
}

#[test]
fn same_seed_same_bits_across_filters() {
    for layout in Layout::ALL {
        let build = || common::filled(layout, 1000, 0.01, 77);
        assert_eq!(build(), build());
    }
}

#[test]
fn filters_are_send_and_sync_and_debug() {
    fn shared_across_threads<T: Send + Sync + std::fmt::Debug>() {}
    shared_across_threads::<AtomicBloom>();
    shared_across_threads::<AtomicBloom<std::hash::RandomState>>();
    shared_across_threads::<atomic_bloom::Builder<atomic_bloom::BitArray>>();
    shared_across_threads::<atomic_bloom::Sizing>();
    shared_across_threads::<atomic_bloom::ReadError>();
}
