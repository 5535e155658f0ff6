//! Batch and parallel operations give exactly the results and bits of
//! per-key, single-threaded calls.

use atomic_bloom::{AtomicBloom, Layout};

fn empty(layout: Layout) -> AtomicBloom {
    empty_with_k(layout, 7)
}

/// The numbers of bits per key the batch tests run with. Batches use a
/// `Blocked` probe with `k` a constant for 5 and 7 (the default rate's) and
/// one that asks `k` per key otherwise, such as 6: each path is checked.
const KS: [u32; 3] = [5, 6, 7];

/// `k`, or the one `layout` fixes (`SplitBlock`'s 8).
fn empty_with_k(layout: Layout, k: u32) -> AtomicBloom {
    // 2^23 bits: 131 072 words, so whole-array scans split into several tasks.
    AtomicBloom::builder()
        .bits(1 << 23, layout.fixed_num_hashes().unwrap_or(k))
        .layout(layout)
        .seed(5)
        .build()
        .unwrap()
}

/// 300 000 keys with every tenth one repeated, so batches meet duplicates.
fn keys() -> Vec<u64> {
    (0..300_000u64)
        .map(|i| if i % 10 == 9 { i - 5 } else { i })
        .collect()
}

#[test]
fn batches_match_per_key_calls() {
    for (layout, k) in Layout::ALL.into_iter().flat_map(|l| KS.map(|k| (l, k))) {
        let (batched, single) = (empty_with_k(layout, k), empty_with_k(layout, k));
        let case = format!("{layout}, k = {k}");
        let keys = keys();
        for chunk in keys.chunks(1000) {
            let expected = chunk.iter().filter(|k| single.insert(*k)).count();
            assert_eq!(batched.insert_batch(chunk), expected, "{case}");
        }
        assert!(batched.words().eq(single.words()), "{case}: bits differ");
        let queries: Vec<u64> = (0..20_000u64).map(|i| i * 37).collect();
        let expected: Vec<bool> = queries.iter().map(|q| single.contains(q)).collect();
        assert_eq!(batched.contains_batch(&queries), expected, "{case}");
        let hashes: Vec<u64> = queries.iter().map(|q| batched.hash(q)).collect();
        assert_eq!(batched.contains_hash_batch(hashes), expected, "{case}");
        // Batches shorter than the prefetch distance, and empty ones.
        assert_eq!(batched.contains_batch(&queries[..3]), expected[..3]);
        assert!(batched.contains_batch(std::iter::empty::<u64>()).is_empty());
        assert_eq!(batched.insert_batch(std::iter::empty::<u64>()), 0);
    }
}

#[test]
fn a_parallel_build_equals_the_sequential_build() {
    for (layout, k) in Layout::ALL.into_iter().flat_map(|l| KS.map(|k| (l, k))) {
        let (parallel, sequential) = (empty_with_k(layout, k), empty_with_k(layout, k));
        let case = format!("{layout}, k = {k}");
        let keys = keys();
        let new = parallel.par_insert(keys.as_slice());
        for key in &keys {
            sequential.insert(key);
        }
        assert!(
            parallel.words().eq(sequential.words()),
            "{case}: bits differ"
        );
        // Hashes computed beforehand go in the same.
        let by_hash = empty_with_k(layout, k);
        let hashes: Vec<u64> = keys.iter().map(|key| by_hash.hash(key)).collect();
        let new_by_hash = by_hash.par_insert_hash_batch(&hashes);
        assert!(
            by_hash.words().eq(sequential.words()),
            "{case}: bits differ by hash"
        );
        assert_eq!(by_hash.par_insert_hash_batch(&hashes), 0, "{case}");
        // How many inserts report "new" depends on the order (a key can be a
        // false positive when it arrives); racing duplicates may both count
        // with Standard and Blocked (Memory ordering, G4), never with Word.
        let distinct = 270_000;
        for new in [new, new_by_hash] {
            assert!(new >= distinct * 99 / 100, "{case}: only {new} new");
            if layout == Layout::Word {
                assert!(new <= distinct, "Word inserts are test-and-set: {new}");
            }
        }
        let queries: Vec<u64> = (0..50_000u64).map(|i| i * 13).collect();
        assert_eq!(
            parallel.par_contains(&queries),
            sequential.contains_batch(&queries),
            "{case}"
        );
        // Any indexed parallel iterator, in order.
        assert_eq!(
            parallel.par_contains(0..50_000u32),
            sequential.contains_batch(0..50_000u32),
            "{case}"
        );
        assert_eq!(parallel.par_count_ones(), sequential.count_ones());
    }
}

#[test]
fn parallel_union_intersect_and_clear_match_sequential() {
    for layout in Layout::ALL {
        let (a, b) = (empty(layout), empty(layout));
        a.par_insert(0..100_000u64);
        b.par_insert(50_000..200_000u64);
        let expected = a.clone();
        expected.union(&b).unwrap();
        a.par_union(&b).unwrap();
        assert_eq!(a, expected, "{layout}");
        assert!(
            a.par_union(&empty(
                Layout::ALL[(layout as usize + 1) % Layout::ALL.len()]
            ))
            .is_err()
        );
        let intersected = a.clone();
        intersected.intersect(&b).unwrap();
        let par_intersected = a.clone();
        par_intersected.par_intersect(&b).unwrap();
        assert_eq!(par_intersected, intersected, "{layout}");
        assert_ne!(intersected, a, "{layout}: the intersect changed nothing");
        a.par_clear();
        assert_eq!(a.par_count_ones(), 0);
        assert_eq!(a, empty(layout));
    }
}

/// `collect` and `extend`, sequential and parallel, and the builders that
/// collect, hold what a batch into a filter of the same size holds; the
/// counting filter's `extend` counts each repeat.
#[test]
fn collecting_and_extending_equal_the_batches() {
    use atomic_bloom::{AtomicCountingBloom, DEFAULT_FALSE_POSITIVE_RATE};
    use rayon::prelude::*;
    // Repeats far apart and near: 0..n, then every third key again.
    let keys: Vec<u64> = (0..100_000u64).chain((0..100_000).step_by(3)).collect();
    let sized = || {
        AtomicBloom::builder()
            .capacity(keys.len(), DEFAULT_FALSE_POSITIVE_RATE)
            .build()
            .unwrap()
    };
    let batched = sized();
    batched.insert_batch(&keys);
    let collected: AtomicBloom = keys.iter().collect();
    let par_collected: AtomicBloom = keys.par_iter().collect();
    let (mut extended, mut par_extended) = (sized(), sized());
    extended.extend(&keys);
    par_extended.par_extend(keys.par_iter());
    for (how, filter) in [
        ("collect", collected),
        ("par collect", par_collected),
        ("extend", extended),
        ("par_extend", par_extended),
    ] {
        assert_eq!(filter, batched, "{how}");
    }
    let mut counting = AtomicCountingBloom::new(10_000, 0.01).unwrap();
    counting.extend((0..3).flat_map(|_| 0..5_000u64));
    assert_eq!(counting.count_of(&42u64), 3);
}

/// The split that lets threads build a small filter without sharing cache
/// lines (module docs of `parallel.rs`): with `Blocked` and `Word`, hashes
/// below `1 << 63` set bits only in the lower half of the array, hashes at
/// or above it only in the upper half.
#[test]
fn hash_halves_are_array_halves() {
    for layout in [Layout::Blocked, Layout::Word] {
        let (low, high) = (empty(layout), empty(layout));
        let hashes = (0..10_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (below, above): (Vec<u64>, Vec<u64>) = hashes.partition(|&h| h < 1 << 63);
        low.insert_hash_batch(below);
        high.insert_hash_batch(above);
        // 2^17 words: the halves are whole blocks, and exact.
        let words = low.words().count();
        let half = words / 2;
        let ones = |f: &AtomicBloom, range: std::ops::Range<usize>| -> u32 {
            let len = range.len();
            f.words()
                .skip(range.start)
                .take(len)
                .map(u64::count_ones)
                .sum()
        };
        assert_eq!(ones(&low, half..words), 0, "{layout}");
        assert_eq!(ones(&high, 0..half), 0, "{layout}");
        assert!(
            ones(&low, 0..half) > 10_000 && ones(&high, half..words) > 10_000,
            "{layout}"
        );
    }
}
