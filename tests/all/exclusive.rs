//! Exclusive builds (`insert_hash_batch_mut`, `insert_batch_mut`, and what
//! builds through them: `extend`, `collect`, the builders' `build_from_*`)
//! end exactly where the shared, lock-free path ends with the same keys:
//! the same cells, bit for bit and count for count, and the same number of
//! new keys, for every layout and both kinds.

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, Builder, Cells, Filter, Layout};

/// Keys with repeats far apart and near: 0..n, then every third key again.
fn keys(n: u64) -> Vec<u64> {
    (0..n).chain((0..n).step_by(3)).collect()
}

/// A filter of cells `C` in `layout` sized for `n` keys at `p`.
fn filter<C: Cells>(layout: Layout, n: usize, p: f64) -> Filter<C> {
    Builder::default()
        .capacity(n, p)
        .layout(layout)
        .build()
        .unwrap()
}

/// For each layout, and sizes from a handful of parts to thousands (and
/// more keys than a chunk): the exclusive insert of the keys' hashes
/// leaves what the shared batch leaves, and counts the same keys new.
fn same_as_shared<C: Cells>() {
    for layout in Layout::ALL {
        for (n, p) in [(1_000usize, 0.01), (200_000, 0.01), (50_000, 1e-6)] {
            let keys = keys(n as u64 * 2);
            let (mut exclusive, shared) = (filter::<C>(layout, n, p), filter::<C>(layout, n, p));
            let hashes: Vec<u64> = keys.iter().map(|k| shared.hash(k)).collect();
            let new = exclusive.insert_hash_batch_mut(&hashes);
            assert_eq!(
                new,
                shared.insert_hash_batch(hashes.iter().copied()),
                "{layout} n={n}"
            );
            assert!(exclusive == shared, "{layout} n={n}: the cells differ");
            // Again: every key present now, none new, nothing changes.
            assert_eq!(
                exclusive.insert_batch_mut(&keys[..n]),
                shared.insert_batch(&keys[..n])
            );
            assert!(
                exclusive == shared,
                "{layout} n={n}: the cells differ on the repeat"
            );
        }
    }
}

#[test]
fn an_exclusive_plain_build_equals_the_shared_one() {
    same_as_shared::<atomic_bloom::BitArray>();
}

#[test]
fn an_exclusive_counting_build_equals_the_shared_one() {
    same_as_shared::<atomic_bloom::CounterArray>();
}

/// The counts of a counting filter built exclusively are those of the
/// shared build: a key inserted three times counts three, and removes
/// take them back alike.
#[test]
fn exclusive_counts_are_the_shared_counts() {
    let mut exclusive = AtomicCountingBloom::new(10_000, 0.01).unwrap();
    let shared = AtomicCountingBloom::new(10_000, 0.01).unwrap();
    let thrice: Vec<u64> = (0..3).flat_map(|_| 0..5_000u64).collect();
    exclusive.insert_batch_mut(&thrice);
    shared.insert_batch(&thrice);
    assert_eq!(exclusive, shared);
    assert_eq!(exclusive.count_of(&42u64), 3);
    assert_eq!(
        exclusive.remove_batch_unchecked(0..5_000u64),
        shared.remove_batch_unchecked(0..5_000u64)
    );
    assert_eq!(exclusive, shared);
}

/// What builds through the exclusive path (`collect`, `extend`, the
/// builders) holds what the shared path holds.
#[test]
fn builds_and_extends_equal_the_shared_path() {
    let keys = keys(100_000);
    let collected: AtomicBloom = keys.iter().collect();
    let shared = AtomicBloom::builder()
        .capacity(keys.len(), atomic_bloom::DEFAULT_FALSE_POSITIVE_RATE)
        .build()
        .unwrap();
    shared.insert_batch(&keys);
    assert_eq!(collected, shared);
    let mut extended = AtomicBloom::builder()
        .capacity(keys.len(), atomic_bloom::DEFAULT_FALSE_POSITIVE_RATE)
        .build()
        .unwrap();
    extended.extend(&keys);
    assert_eq!(extended, shared);
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let parallel: AtomicBloom = keys.par_iter().collect();
        assert_eq!(parallel, shared);
        let mut par_extended = AtomicBloom::builder()
            .capacity(keys.len(), atomic_bloom::DEFAULT_FALSE_POSITIVE_RATE)
            .build()
            .unwrap();
        par_extended.par_extend(keys.par_iter());
        assert_eq!(par_extended, shared);
    }
}

/// A growable filter filled through `&mut` ends as the per-key inserts in
/// the same order leave it: the same sub-filters, bits and counts, and the
/// same keys reported new, in every layout, from a first sub-filter far
/// smaller than the keys (so the batch grows the chain many times).
#[test]
fn growable_batches_through_mut_match_per_key_inserts() {
    use atomic_bloom::AtomicGrowableBloom;
    for layout in Layout::ALL {
        for initial in [10usize, 1_000] {
            let build = || {
                AtomicGrowableBloom::builder(initial, 0.01)
                    .layout(layout)
                    .build()
                    .unwrap()
            };
            let (mut exclusive, shared) = (build(), build());
            let keys = keys(20_000);
            let hashes: Vec<u64> = keys.iter().map(|k| shared.hash(k)).collect();
            let per_key = hashes
                .iter()
                .filter(|&&h| shared.insert_hash(h).unwrap())
                .count();
            assert_eq!(
                exclusive.insert_hash_batch_mut(&hashes),
                Ok(per_key),
                "{layout}"
            );
            assert_eq!(
                exclusive.sub_filter_stats(),
                shared.sub_filter_stats(),
                "{layout}"
            );
            assert!(
                exclusive == shared,
                "{layout} from {initial}: the bits differ"
            );
            assert!(
                keys.iter().all(|k| exclusive.contains(k)),
                "{layout}: a key is missing"
            );
        }
    }
}

/// A growable batch through `&mut` that needs a sub-filter it may not add
/// stops there, as the shared batch does: the keys before it are in.
#[test]
fn a_growable_batch_through_mut_stops_at_its_limit() {
    use atomic_bloom::{AtomicGrowableBloom, GrowthError};
    let build = || {
        AtomicGrowableBloom::builder(100, 0.01)
            .max_sub_filters(2)
            .build()
            .unwrap()
    };
    let (mut exclusive, shared) = (build(), build());
    let keys: Vec<u64> = (0..10_000).collect();
    let expected = shared.insert_batch(keys.iter().copied());
    assert!(matches!(
        expected,
        Err(GrowthError::SubFilterLimit { max: 2 })
    ));
    assert_eq!(exclusive.insert_batch_mut(keys.iter().copied()), expected);
    assert!(exclusive == shared, "the bits differ");
    assert_eq!(exclusive.sub_filter_stats(), shared.sub_filter_stats());
}
