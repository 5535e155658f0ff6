//! # The growable filter's exclusive batches
//!
//! Through `&mut self`, no other thread can see the filter, so a batch
//! inserts into the newest sub-filter with the plain filter's exclusive
//! build (`core/exclusive.rs`): plain writes, no locked instruction. It
//! ends where the per-key inserts in the same order end, sub-filter for
//! sub-filter and count for count (`tests/all/exclusive.rs`), because it
//! keeps their rule for each key:
//!
//! - a key an older sub-filter holds is not new, and is not inserted;
//! - while the newest sub-filter has room, the key goes there, and counts
//!   if it was new;
//! - once it has none, a key it holds is not new, and any other adds the
//!   next sub-filter, which takes it.
//!
//! The batch takes, in order, at most as many keys absent from the older
//! sub-filters as the newest has room for, and inserts them at once: they
//! cannot be more new keys than the room, so the newest never passes its
//! capacity within them, and a key's newness depends only on the keys
//! before it. What room is left (their repeats and false positives) takes
//! the next keys, until none is left.
//!
//! Memory: the keys taken at once, at most [`CHUNK`] hashes (512 KiB).

use crate::error::GrowthError;
use crate::hints::Access;
use crate::key::Key;
use crate::kinds::growable::AtomicGrowableBloom;
use crate::kinds::growable::bulk::GROWABLE_PREFETCH_DISTANCE;
use crate::kinds::growable::chain::Growth;
use crate::sync::update_unshared;
use std::hash::BuildHasher;

/// The most hashes taken at once.
const CHUNK: usize = 1 << 16;

impl<S: BuildHasher + Clone> AtomicGrowableBloom<S> {
    /// [`insert_hash_batch`](Self::insert_hash_batch) for a filter no
    /// other thread can see: the newest sub-filter is filled with plain
    /// writes instead of locked ones. Returns how many hashes were new;
    /// the sub-filters and their counts end as the per-key inserts in
    /// order would leave them.
    ///
    /// # Errors
    ///
    /// [`GrowthError`] if a new key needs a sub-filter that may not be
    /// added: the hashes before it are in, it and those after it are not.
    ///
    /// ```
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let mut f = AtomicGrowableBloom::builder(1_000, 0.01).build()?;
    /// let hashes: Vec<u64> = (0..10_000u64).map(|k| f.hash(&k)).collect();
    /// // A few keys are false positives of the older sub-filters: not new.
    /// assert!((9_900..=10_000).contains(&f.insert_hash_batch_mut(&hashes)?));
    /// assert!(f.sub_filter_stats().len() > 1);
    /// assert!((0..10_000u64).all(|k| f.contains(&k)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_hash_batch_mut(&mut self, hashes: &[u64]) -> Result<usize, GrowthError> {
        let (mut rest, mut new) = (hashes, 0);
        let mut taken = Vec::new();
        while let Some(&next) = rest.first() {
            let sub = self.chain.newest();
            let room = sub.value().capacity.saturating_sub(sub.value().inserted());
            if room == 0 {
                // Full: the next key is not new if any sub-filter holds
                // it, else it grows the chain and goes to the new one.
                if !self.contains_hash(next) {
                    self.grow_exclusive()?;
                    continue;
                }
                rest = &rest[1..];
                continue;
            }
            let limit = usize::try_from(room).unwrap_or(usize::MAX).min(CHUNK);
            taken.clear();
            let newest = self.chain.newest();
            let mut used = 0;
            for (i, &hash) in rest.iter().enumerate() {
                if taken.len() == limit {
                    break;
                }
                // The older sub-filters' lines of a key some keys ahead,
                // as the shared batches ask for them (`bulk.rs`): out of
                // cache, every key's test is a miss in each.
                if let Some(&ahead) = rest.get(i + GROWABLE_PREFETCH_DISTANCE) {
                    for node in newest.older() {
                        node.value().filter.prefetch_hash(ahead, Access::READ);
                    }
                }
                used += 1;
                if !newest.older().any(|n| n.value().filter.contains_hash(hash)) {
                    taken.push(hash);
                }
            }
            rest = &rest[used..];
            let sub = self.chain.newest_mut();
            let added = sub.filter.insert_hash_batch_mut(&taken);
            update_unshared(&mut sub.inserted, |count| count + added as u64);
            new += added;
        }
        Ok(new)
    }

    /// [`insert_hash_batch_mut`](Self::insert_hash_batch_mut) of keys,
    /// hashed 65 536 at a time: [`insert_batch`](Self::insert_batch)
    /// with plain writes, for a filter no other thread can see.
    ///
    /// # Errors
    ///
    /// As [`insert_hash_batch_mut`](Self::insert_hash_batch_mut): the keys
    /// before the failing one are in.
    ///
    /// ```
    /// use atomic_bloom::AtomicGrowableBloom;
    /// let mut f = AtomicGrowableBloom::builder(100, 0.01).build()?;
    /// assert_eq!(f.insert_batch_mut(["a", "b", "a"])?, 2);
    /// assert!(f.contains("b"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert_batch_mut<I>(&mut self, keys: I) -> Result<usize, GrowthError>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut keys = keys.into_iter();
        let mut hashes = Vec::with_capacity(CHUNK.min(keys.size_hint().0.max(1)));
        let mut new = 0;
        loop {
            hashes.clear();
            hashes.extend(keys.by_ref().take(CHUNK).map(|key| self.hash(&key)));
            if hashes.is_empty() {
                return Ok(new);
            }
            new += self.insert_hash_batch_mut(&hashes)?;
        }
    }

    /// Adds the next sub-filter after the newest, with no other thread to
    /// race: the claim is always this call's.
    fn grow_exclusive(&mut self) -> Result<(), GrowthError> {
        let newest = self.chain.newest();
        match self.chain.grow(newest, |from| self.next_sub_filter(from)) {
            Growth::Grown => Ok(()),
            Growth::Failed(error) => Err(error),
            // Only another thread can take the newest node's claim (a
            // failed growth reopens it) or publish first, and none can
            // hold the filter while this call has `&mut`.
            Growth::Taken | Growth::Lost => unreachable!("no other thread holds a `&mut` filter"),
        }
    }
}
