//! # Exclusive builds: inserting without a locked write
//!
//! A filter that no other thread can see (the caller holds `&mut`, or the
//! filter is still being built) needs none of the atomic read-modify-writes
//! that make `insert` safe to race: a locked instruction per bit is what
//! bounds a shared filter's bulk inserts. The `_mut` batches here insert
//! with plain loads and stores, and end with the cells the shared path
//! would give the same keys, bit for bit and count for count
//! (`tests/all/exclusive.rs`).
//!
//! ## How the work is split
//!
//! A key of a blocked layout (`Blocked`, `Word`, `Sectorized`) touches one
//! block, and its block is its hash scaled to the number of blocks
//! (multiply-shift), which keeps order: the keys of a range of blocks are
//! those whose hashes lie in a range. So each of rayon's threads takes a
//! region of consecutive blocks, a slice of the array of its own
//! (`split_at_mut`, no `unsafe`), reads every hash and inserts those in its
//! range, in input order, asking for each key's lines a window of keys
//! ahead as the shared batches do (`batch.rs`). A key's newness depends
//! only on the keys before it in its block, so the number of new keys is
//! what the per-key calls in input order would report.
//!
//! A `Standard` key's bits are anywhere in the array, so its keys are
//! inserted by one thread, in input order, with plain writes.
//!
//! ## Memory
//!
//! Nothing beyond the hashes: each thread reads them where they are.
//! [`insert_batch_mut`](Filter::insert_batch_mut) hashes its keys
//! [`CHUNK`] at a time (512 KiB of hashes), or an eighth of the filter's
//! size in hashes if that is more.

use crate::core::batch::PREFETCH_DISTANCE;
use crate::core::cells::Cells;
use crate::core::filter::Filter;
use crate::hints::{Access, prefetch};
use crate::key::Key;
use crate::layout::{Probe, with_sized_probe};
use crate::sizing::Sizing;
use crate::storage::bit_array::WORDS_PER_LINE;
use crate::sync::AtomicU64;
use std::hash::BuildHasher;

/// The fewest hashes taken at a time: 512 KiB of buffer.
const CHUNK: usize = 1 << 16;

impl<C: Cells, S> Filter<C, S> {
    /// [`insert_hash_batch`](Self::insert_hash_batch) for a filter no other
    /// thread can see: with plain writes instead of locked ones, and for a
    /// blocked layout on all of rayon's threads (with the `rayon` feature),
    /// each over a region of the array of its own (the `exclusive` module's
    /// chapter in the source says how). Returns how many hashes were new,
    /// as the per-key calls in order would report; the cells end as
    /// `insert_hash_batch` would leave them.
    ///
    /// ```
    /// let mut f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// let hashes: Vec<u64> = (0..100u64).map(|k| f.hash(&k)).collect();
    /// assert_eq!(f.insert_hash_batch_mut(&hashes), 100);
    /// assert!(f.contains(&7u64));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_hash_batch_mut(&mut self, hashes: &[u64]) -> usize {
        let sizing = self.sizing();
        let words = self.cells_mut_ref().unshared_words();
        let Some(block_bits) = sizing.layout().block_bits() else {
            // `Standard`: every bit anywhere, one thread.
            return with_sized_probe!(sizing, P => hashes
                .iter()
                .filter(|&&hash| C::insert_unshared(words, 0, &sizing, &sizing.probe::<P>(hash)))
                .count());
        };
        let blocks = sizing.num_bits() / block_bits;
        let words_per_block = (block_bits / C::PER_WORD) as usize;
        let regions = regions(blocks);
        let mut pieces = Vec::with_capacity(regions.len());
        let mut rest = words;
        for region in regions {
            let word = |block: u64| block as usize * words_per_block;
            let (piece, tail) = rest.split_at_mut(word(region.end) - word(region.start));
            pieces.push(Region {
                words: piece,
                first_word: word(region.start),
                hashes: first_hash(region.start, blocks)..first_hash(region.end, blocks),
            });
            rest = tail;
        }
        let shape = Shape {
            blocks,
            words_per_block,
        };
        with_sized_probe!(sizing, P => {
            let insert = |region: Region<'_>| region.insert::<C, P>(hashes, &sizing, shape);
            #[cfg(feature = "rayon")]
            let new = {
                use rayon::prelude::*;
                pieces.into_par_iter().map(insert).sum()
            };
            #[cfg(not(feature = "rayon"))]
            let new = pieces.into_iter().map(insert).sum();
            new
        })
    }
}

impl<C: Cells, S: BuildHasher> Filter<C, S> {
    /// [`insert_batch`](Self::insert_batch) for a filter no other thread
    /// can see, through [`insert_hash_batch_mut`](Self::insert_hash_batch_mut):
    /// the keys are hashed a chunk at a time, so the buffer stays bounded
    /// whatever their number.
    ///
    /// ```
    /// let mut f = atomic_bloom::AtomicBloom::new(1_000, 0.01)?;
    /// assert_eq!(f.insert_batch_mut(["a", "b", "a"]), 2);
    /// assert!(f.contains("b"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn insert_batch_mut<I>(&mut self, keys: I) -> usize
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let mut keys = keys.into_iter();
        let chunk = CHUNK.max(self.cells().num_words() * 8 / 64);
        let mut hashes = Vec::with_capacity(chunk.min(keys.size_hint().0.max(1)));
        let mut new = 0;
        loop {
            hashes.clear();
            hashes.extend(self.hashes(keys.by_ref().take(chunk)));
            if hashes.is_empty() {
                return new;
            }
            new += self.insert_hash_batch_mut(&hashes);
        }
    }
}

/// Hashes a thread reads before inserting the ones in its region.
const PICK_RUN: usize = 1024;

/// How a filter's blocks lie in its words.
#[derive(Clone, Copy)]
struct Shape {
    blocks: u64,
    words_per_block: usize,
}

/// A thread's part of an exclusive build: the words of a range of blocks,
/// which hold the cells of every key whose hash is in `hashes`.
struct Region<'a> {
    words: &'a mut [AtomicU64],
    /// The index in the whole array of `words[0]`.
    first_word: usize,
    hashes: std::ops::Range<u128>,
}

impl Region<'_> {
    /// Inserts the keys of `all` that fall in this region, in order, each
    /// [`PREFETCH_DISTANCE`] keys after asking for its block's lines;
    /// returns how many were new.
    fn insert<C: Cells, P: Probe>(self, all: &[u64], sizing: &Sizing, shape: Shape) -> usize {
        let Region {
            words,
            first_word,
            hashes: range,
        } = self;
        let access = Access::write();
        let mut window = [0u64; PREFETCH_DISTANCE];
        let (mut queued, mut new) = (0usize, 0usize);
        let insert = |words: &mut [AtomicU64], hash: u64| {
            usize::from(C::insert_unshared(
                words,
                first_word,
                sizing,
                &sizing.probe::<P>(hash),
            ))
        };
        // The region's hashes are picked out a run at a time without a
        // branch per hash (half of a run's hashes are another region's, at
        // random, and a branch on each would mispredict half the time).
        let mut mine = [0u64; PICK_RUN];
        for run in all.chunks(PICK_RUN) {
            let mut picked = 0;
            for &hash in run {
                mine[picked] = hash;
                picked += usize::from(range.contains(&u128::from(hash)));
            }
            for &hash in &mine[..picked] {
                let block = crate::layout::reduce(hash, shape.blocks) as usize;
                let word = block * shape.words_per_block - first_word;
                for line in (word..word + shape.words_per_block).step_by(WORDS_PER_LINE) {
                    prefetch(&words[line], access);
                }
                let slot = queued % PREFETCH_DISTANCE;
                if queued >= PREFETCH_DISTANCE {
                    new += insert(words, window[slot]);
                }
                window[slot] = hash;
                queued += 1;
            }
        }
        for i in queued.saturating_sub(PREFETCH_DISTANCE)..queued {
            new += insert(words, window[i % PREFETCH_DISTANCE]);
        }
        new
    }
}

/// The least hash whose block is `block` or later, of `blocks`: the inverse
/// of `reduce(hash, blocks) = hash * blocks >> 64`, which keeps order.
fn first_hash(block: u64, blocks: u64) -> u128 {
    (u128::from(block) << 64).div_ceil(u128::from(blocks))
}

/// The ranges of blocks the threads take, one each.
fn regions(blocks: u64) -> Vec<std::ops::Range<u64>> {
    #[cfg(feature = "rayon")]
    let threads = rayon::current_num_threads() as u64;
    #[cfg(not(feature = "rayon"))]
    let threads = 1;
    let count = threads.clamp(1, blocks);
    (0..count)
        .map(|r| r * blocks / count..(r + 1) * blocks / count)
        .collect()
}
