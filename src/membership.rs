//! [`Membership`]: the surface every filter kind shares (its docs are the
//! chapter).

use crate::error::GrowthError;
use crate::key::Key;
use std::hash::BuildHasher;

/// Hashes taken at a time by the provided batch forms: large enough for a
/// batch pipeline to keep its prefetches in flight, small enough to stay
/// in the L1 cache (2 KiB).
const HASHES_AT_A_TIME: usize = 256;

pub(crate) mod sealed {
    /// Implemented by the crate's filter kinds only.
    pub trait Sealed {}
}

/// One membership surface for every kind.
///
/// [`Membership`] is what the four kinds and [`SavedFilter`](crate::SavedFilter) have in common:
/// hashing a key, inserting and asking, by key or by hash, one at a time,
/// in batches and on every core, and the estimates. A program that takes
/// "any filter" (the CLI, which loads whatever a file holds; DataFusion's
/// `bloom_contains`) is written once against it, with no `match` on the
/// kind.
///
/// Each kind implements a small required core from its own inherent
/// methods (its per-key and batch pipelines, which differ: a windowed
/// filter asks every live generation, a growable one every sub-filter);
/// the key-taking forms are provided once here, over that core. Inserts
/// are fallible because a growable filter's may be: the other kinds
/// always return `Ok`. The kinds' inherent methods keep their natural
/// types (`AtomicBloom::insert` returns `bool`), and take precedence in
/// method calls on a concrete kind; the trait's apply where the kind is
/// generic or unknown.
///
/// The trait is sealed: its methods may grow as the kinds do.
///
/// ```
/// use atomic_bloom::{AtomicBloom, AtomicGrowableBloom, Membership, SavedFilter};
///
/// /// How many of `keys` a filter of any kind may hold.
/// fn hits(filter: &impl Membership, keys: &[&str]) -> usize {
///     filter.contains_batch(keys).into_iter().filter(|&hit| hit).count()
/// }
///
/// let plain = AtomicBloom::new(1_000, 0.01)?;
/// plain.insert("a");
/// let growable = AtomicGrowableBloom::new(1_000, 0.01)?;
/// growable.insert("a")?;
/// let saved = SavedFilter::from_bytes(&growable.to_bytes()?)?;
/// assert_eq!(hits(&plain, &["a", "b"]), 1);
/// assert_eq!(hits(&growable, &["a", "b"]), 1);
/// assert_eq!(hits(&saved, &["a", "b"]), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Membership: sealed::Sealed + Sync {
    /// The hash every call of this filter derives a key's positions from.
    fn hash<K: Key + ?Sized>(&self, key: &K) -> u64;

    /// Inserts a key by its hash; whether it was absent (for a windowed
    /// filter: from the whole window). An error only where growth can fail
    /// (the growable filter at a limit).
    fn try_insert_hash(&self, hash: u64) -> Result<bool, GrowthError>;

    /// Whether a key, by its hash, may have been inserted.
    fn contains_hash(&self, hash: u64) -> bool;

    /// Inserts keys by their hashes, as the kind's own batch does; how many
    /// were absent. At an error, the hashes before the failing one are in.
    fn try_insert_hash_batch(&self, hashes: &[u64]) -> Result<usize, GrowthError>;

    /// [`contains_hash`](Self::contains_hash) of each hash, in order, as the
    /// kind's own batch asks.
    fn contains_hash_batch(&self, hashes: &[u64]) -> Vec<bool>;

    /// An estimate of the distinct keys inserted (`None` where the filter
    /// cannot tell, as a full plain filter).
    fn estimated_len(&self) -> Option<u64>;

    /// The false-positive rate the filter shows now, estimated from the
    /// cells it has set.
    fn estimated_false_positive_rate(&self) -> f64;

    /// Whether no key was inserted (since the last clear or rotation out).
    fn is_empty(&self) -> bool;

    /// The memory the filter's cells take, in bytes.
    fn memory_bytes(&self) -> u64;

    /// Inserts a key; whether it was absent.
    fn try_insert<K: Key + ?Sized>(&self, key: &K) -> Result<bool, GrowthError> {
        self.try_insert_hash(self.hash(key))
    }

    /// Whether a key may have been inserted.
    fn contains<K: Key + ?Sized>(&self, key: &K) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// Inserts every key through the kind's batch, a few hundred at a time;
    /// how many were absent.
    fn try_insert_batch<I>(&self, keys: I) -> Result<usize, GrowthError>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut new = 0;
        for_each_run(self, keys, |hashes| {
            new += self.try_insert_hash_batch(hashes)?;
            Ok(())
        })?;
        Ok(new)
    }

    /// [`contains`](Self::contains) of every key, in order, through the
    /// kind's batch.
    fn contains_batch<I>(&self, keys: I) -> Vec<bool>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut answers = Vec::new();
        let _ = for_each_run(self, keys, |hashes| {
            answers.extend(self.contains_hash_batch(hashes));
            Ok(())
        });
        answers
    }

    /// [`try_insert_batch`](Self::try_insert_batch) on all of rayon's
    /// threads: each takes runs of keys and inserts them through the
    /// kind's batch. At an error, some keys may not be in.
    #[cfg(feature = "rayon")]
    fn try_par_insert<I>(&self, keys: I) -> Result<usize, GrowthError>
    where
        I: rayon::iter::IntoParallelIterator,
        I::Item: Key,
    {
        use rayon::prelude::*;
        // The first failure stops every thread from taking more keys (as
        // the growable filter's own `par_insert` does), rather than hashing
        // the rest for nothing.
        let failed = std::sync::OnceLock::new();
        let insert = |run: &[u64]| {
            self.try_insert_hash_batch(run).unwrap_or_else(|e| {
                let _ = failed.set(e);
                0
            })
        };
        let new = keys
            .into_par_iter()
            .take_any_while(|_| failed.get().is_none())
            .fold(
                || (Vec::with_capacity(HASHES_AT_A_TIME), 0),
                |(mut run, new): (Vec<u64>, usize), key| {
                    run.push(self.hash(&key));
                    if run.len() < HASHES_AT_A_TIME {
                        return (run, new);
                    }
                    let added = insert(&run);
                    run.clear();
                    (run, new + added)
                },
            )
            .map(|(run, new)| new + insert(&run))
            .sum();
        match failed.into_inner() {
            Some(error) => Err(error),
            None => Ok(new),
        }
    }

    /// [`contains_batch`](Self::contains_batch) on all of rayon's threads,
    /// the answers in the keys' order.
    #[cfg(feature = "rayon")]
    fn par_contains<I>(&self, keys: I) -> Vec<bool>
    where
        I: rayon::iter::IntoParallelIterator,
        I::Iter: rayon::iter::IndexedParallelIterator,
        I::Item: Key,
    {
        crate::core::par_chunked(keys, |chunk| {
            let hashes: Vec<u64> = chunk.iter().map(|key| self.hash(key)).collect();
            self.contains_hash_batch(&hashes)
        })
    }
}

/// Calls `run` with the hashes of `keys`, [`HASHES_AT_A_TIME`] at a time,
/// until the keys end or `run` fails.
fn for_each_run<M: Membership + ?Sized, I>(
    filter: &M,
    keys: I,
    mut run: impl FnMut(&[u64]) -> Result<(), GrowthError>,
) -> Result<(), GrowthError>
where
    I: IntoIterator,
    I::Item: Key,
{
    let mut hashes = Vec::with_capacity(HASHES_AT_A_TIME);
    for key in keys {
        hashes.push(filter.hash(&key));
        if hashes.len() == HASHES_AT_A_TIME {
            run(&hashes)?;
            hashes.clear();
        }
    }
    if hashes.is_empty() {
        Ok(())
    } else {
        run(&hashes)
    }
}

/// `Membership` for a kind from its inherent methods of the same names:
/// how its inserts become fallible, and its memory as `u64`, are the
/// arguments; the rest delegates as written.
macro_rules! membership_from_inherent {
    (
        impl[$($generics:tt)*] $kind:ty;
        insert_hash($f:ident, $hash:ident) => $insert:expr;
        insert_hash_batch($fb:ident, $hashes:ident) => $batch:expr;
        memory_bytes($fm:ident) => $memory:expr;
    ) => {
        impl<$($generics)*> sealed::Sealed for $kind {}

        impl<$($generics)*> Membership for $kind {
            fn hash<K: Key + ?Sized>(&self, key: &K) -> u64 {
                Self::hash(self, key)
            }

            fn try_insert_hash(&self, $hash: u64) -> Result<bool, GrowthError> {
                let $f = self;
                $insert
            }

            fn contains_hash(&self, hash: u64) -> bool {
                Self::contains_hash(self, hash)
            }

            fn try_insert_hash_batch(&self, $hashes: &[u64]) -> Result<usize, GrowthError> {
                let $fb = self;
                $batch
            }

            fn contains_hash_batch(&self, hashes: &[u64]) -> Vec<bool> {
                Self::contains_hash_batch(self, hashes.iter().copied())
            }

            fn estimated_len(&self) -> Option<u64> {
                Self::estimated_len(self)
            }

            fn estimated_false_positive_rate(&self) -> f64 {
                Self::estimated_false_positive_rate(self)
            }

            fn is_empty(&self) -> bool {
                Self::is_empty(self)
            }

            fn memory_bytes(&self) -> u64 {
                let $fm = self;
                $memory
            }
        }
    };
}

// The plain and counting filters, of any hasher.
membership_from_inherent! {
    impl[C: crate::core::Cells, S: BuildHasher + Sync] crate::core::Filter<C, S>;
    insert_hash(f, hash) => Ok(f.insert_hash(hash));
    insert_hash_batch(f, hashes) => Ok(f.insert_hash_batch(hashes.iter().copied()));
    memory_bytes(f) => f.memory_bytes() as u64;
}

membership_from_inherent! {
    impl[S: BuildHasher + Clone + Send + Sync] crate::kinds::growable::AtomicGrowableBloom<S>;
    insert_hash(f, hash) => f.insert_hash(hash);
    insert_hash_batch(f, hashes) => f.insert_hash_batch(hashes.iter().copied());
    memory_bytes(f) => f.memory_bytes();
}

membership_from_inherent! {
    impl[S: BuildHasher + Sync] crate::kinds::window::AtomicWindowedBloom<S>;
    insert_hash(f, hash) => Ok(f.insert_hash(hash));
    insert_hash_batch(f, hashes) => Ok(f.insert_hash_batch(hashes.iter().copied()));
    memory_bytes(f) => f.memory_bytes() as u64;
}
