//! `Membership`, the surface every kind shares: through it, each kind and
//! a `SavedFilter` of it answer as the kind's own methods do, one key at a
//! time, in batches and on every core; a growable filter's limit is the
//! error it is.

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, FilterKind,
    GrowthError, Membership, SavedFilter,
};

/// The keys inserted, and the keys asked: half of them inserted.
fn keys() -> (Vec<String>, Vec<String>) {
    let inserted: Vec<String> = (0..20_000).map(|i| format!("k{i}")).collect();
    let asked = (10_000..30_000).map(|i| format!("k{i}")).collect();
    (inserted, asked)
}

/// Two empty filters of one kind, one filled through the trait's batch and
/// one through its parallel insert: the batch-filled one answers the
/// trait's batch and parallel queries as its per-key calls do, the other
/// holds every key; saved and read back as a `SavedFilter`, the first
/// answers the same and takes inserts.
fn answers_alike<M: Membership>(
    kind: FilterKind,
    make: impl Fn() -> M,
    to_bytes: impl Fn(&M) -> Vec<u8>,
) {
    let (inserted, asked) = keys();
    let (batched, parallel) = (make(), make());
    assert!(Membership::is_empty(&batched));
    let new = batched.try_insert_batch(&inserted).unwrap();
    let par_new = parallel.try_par_insert(inserted.as_slice()).unwrap();
    // A false positive at its arrival is not new: within 1% of the keys.
    for new in [new, par_new] {
        assert!((19_800..=20_000).contains(&new), "{kind}: {new} new");
    }
    let per_key: Vec<bool> = asked
        .iter()
        .map(|k| Membership::contains(&batched, k))
        .collect();
    assert!(
        per_key[..10_000].iter().all(|&hit| hit),
        "{kind}: a key inserted is missed"
    );
    assert_eq!(
        Membership::contains_batch(&batched, &asked),
        per_key,
        "{kind}"
    );
    assert_eq!(
        Membership::par_contains(&batched, asked.as_slice()),
        per_key,
        "{kind}"
    );
    let found = Membership::par_contains(&parallel, inserted.as_slice());
    assert!(
        found.iter().all(|&hit| hit),
        "{kind}: a key inserted in parallel is missed"
    );
    assert!(
        Membership::estimated_len(&batched).is_some_and(|n| n > 15_000),
        "{kind}"
    );
    assert!(
        Membership::estimated_false_positive_rate(&batched) < 0.05,
        "{kind}"
    );
    assert!(Membership::memory_bytes(&batched) > 0);

    let saved = SavedFilter::from_bytes(&to_bytes(&batched)).unwrap();
    assert_eq!(saved.kind(), kind);
    assert_eq!(saved.contains_batch(&asked), per_key, "{kind}, saved");
    assert_eq!(saved.hash("k1"), batched.hash("k1"), "{kind}, saved");
    // Inserts go to the filter the file held.
    assert!(saved.try_insert("new key").unwrap());
    assert!(saved.contains("new key"));
}

#[test]
fn every_kind_answers_through_membership_as_it_does_itself() {
    answers_alike(
        FilterKind::Bloom,
        || AtomicBloom::new(20_000, 0.01).unwrap(),
        |f| f.to_bytes().unwrap(),
    );
    answers_alike(
        FilterKind::Counting,
        || AtomicCountingBloom::new(20_000, 0.01).unwrap(),
        |f| f.to_bytes().unwrap(),
    );
    answers_alike(
        FilterKind::Growable,
        || AtomicGrowableBloom::new(1_000, 0.01).unwrap(),
        |f| f.to_bytes().unwrap(),
    );
    answers_alike(
        FilterKind::Windowed,
        // A window larger than the keys: none leaves it.
        || AtomicWindowedBloom::new(100_000, 0.01).unwrap(),
        |f| f.to_bytes().unwrap(),
    );
}

/// A growable filter that may not grow again fails through the trait
/// with its own error, per key, in a batch and in parallel.
#[test]
fn a_growable_limit_is_an_error_through_membership() {
    let full = || {
        let f = AtomicGrowableBloom::builder()
            .capacity(100, 0.01)
            .max_sub_filters(1)
            .build()
            .unwrap();
        f.insert_batch(0..100u32).unwrap();
        f
    };
    let limit = GrowthError::SubFilterLimit { max: 1 };
    assert_eq!(
        Membership::try_insert_batch(&full(), 1_000..2_000u32),
        Err(limit.clone())
    );
    assert_eq!(
        Membership::try_par_insert(&full(), 1_000..2_000u32),
        Err(limit.clone())
    );
    let one = full();
    let first_refused = (1_000..2_000u32)
        .map(|k| one.try_insert(&k))
        .find(Result::is_err);
    assert_eq!(first_refused, Some(Err(limit)));
}
