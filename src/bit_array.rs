//! # The bit array
//!
//! [`BitArray`] owns the filter's bits: one zeroed allocation of 64-byte,
//! cache-line-aligned [`CacheLine`]s, each eight [`AtomicU64`] words. It knows
//! nothing of keys or hashes; the layouts (`probe.rs`) say which words and
//! masks a key touches, and this file turns those into atomic operations.
//! Every atomic operation of the crate is in this file, each with an
//! `// ORDERING:` note.
//!
//! ## Why the allocation is zeroed and fallible
//!
//! `bytemuck::try_zeroed_slice_box` asks the allocator for zeroed memory
//! (`calloc`), which for a large array maps fresh zero pages without writing
//! them: creating a 10 GiB filter takes microseconds and touches no page until
//! a key lands there. It reports failure as an error instead of aborting the
//! process, so an absurd size is a typed error for the caller. Alignment comes
//! from `CacheLine`'s `align(64)`, so a block of the `Blocked` layout is
//! exactly one cache line. No `unsafe` code of ours is involved.
//!
//! Under `cfg(loom)` the words are loom's atomics, which cannot be created by
//! zeroing memory; the model-checking build allocates them one by one.
//!
//! ## Test before set
//!
//! Every setter loads the words first and issues `fetch_or` only for bits that
//! are missing. A key that is already present therefore writes nothing: its
//! cache lines stay shared between cores instead of bouncing between them in
//! the exclusive state a locked read-modify-write needs. For a new key the
//! loads come first for all words (they overlap their cache misses), the
//! read-modify-writes after, on lines the loads have just brought in.

use crate::sync::{AtomicU64, Ordering::Relaxed};

/// Words in one 64-byte cache line.
pub(crate) const WORDS_PER_LINE: usize = 8;

/// One 64-byte, 64-byte-aligned group of eight words: the `Blocked` layout's
/// block, and the unit of allocation for every layout.
#[repr(C, align(64))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub(crate) struct CacheLine(pub(crate) [AtomicU64; WORDS_PER_LINE]);

/// A fixed-size array of atomically updated bits.
pub(crate) struct BitArray {
    lines: Box<[CacheLine]>,
    /// Words in use; the allocation is rounded up to whole lines and the
    /// padding words beyond `num_words` are never touched.
    num_words: usize,
}

impl BitArray {
    /// A zeroed array of `num_words` words, or `None` if the allocator
    /// refuses.
    pub(crate) fn zeroed(num_words: usize) -> Option<Self> {
        let num_lines = num_words.div_ceil(WORDS_PER_LINE);
        Some(BitArray {
            lines: alloc_zeroed_lines(num_lines)?,
            num_words,
        })
    }

    /// Number of 64-bit words in use.
    pub(crate) fn num_words(&self) -> usize {
        self.num_words
    }

    /// Bytes allocated, including padding to whole cache lines.
    pub(crate) fn memory_bytes(&self) -> usize {
        std::mem::size_of_val::<[CacheLine]>(&self.lines)
    }

    #[inline]
    fn word(&self, index: usize) -> &AtomicU64 {
        &self.lines[index / WORDS_PER_LINE].0[index % WORDS_PER_LINE]
    }

    fn words(&self) -> impl Iterator<Item = &AtomicU64> {
        self.lines
            .iter()
            .flat_map(|line| line.0.iter())
            .take(self.num_words)
    }

    /// The current value of every word in use, in order.
    pub(crate) fn load_words(&self) -> impl Iterator<Item = u64> + '_ {
        // ORDERING: Relaxed. A read of the whole array promises only that each
        // word is a value it held at some point during the read: every bit set
        // by an insert that happened-before the read is seen (coherence), an
        // insert running meanwhile may be seen in part. Checked by
        // loom-tests/tests/bulk.rs: `count_racing_inserts_is_monotone` and
        // `snapshot_racing_insert`.
        self.words().map(|word| word.load(Relaxed))
    }

    /// The number of set bits in each cache line, in order.
    pub(crate) fn line_ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.lines.iter().map(|line| {
            line.0
                .iter()
                // ORDERING: Relaxed, as in `load_words`.
                .map(|word| word.load(Relaxed).count_ones())
                .sum()
        })
    }

    /// Whether every bit of `mask` is set in word `index`.
    #[inline]
    pub(crate) fn test_word(&self, index: usize, mask: u64) -> bool {
        // ORDERING: Relaxed. Bits of a word only grow between clears, and
        // coherence makes a load return the newest value of its word or a
        // later one; every bit set by an insert that happened-before this load
        // is therefore seen (no false negative), and two successive loads never
        // see a bit disappear. Nothing else is read on the strength of this
        // value, so no acquire is needed. Checked by loom-tests/tests/read.rs:
        // `reader_after_release_acquire_handoff` and
        // `reader_concurrent_with_writer_is_monotone`.
        self.word(index).load(Relaxed) & mask == mask
    }

    /// Sets the bits of `mask` in word `index`; returns whether this call set
    /// at least one of them. One `fetch_or` sets them all, so among calls that
    /// race with the same mask exactly one returns `true` if any bit was
    /// missing before.
    #[inline]
    pub(crate) fn set_word(&self, index: usize, mask: u64) -> bool {
        let word = self.word(index);
        // ORDERING: Relaxed, as in `test_word`. If this load shows every bit,
        // some earlier fetch_or set them and a new one would change nothing.
        if word.load(Relaxed) & mask == mask {
            return false;
        }
        // ORDERING: Relaxed. A read-modify-write always acts on the newest
        // value of its word, so concurrent fetch_or's on one word never lose
        // each other's bits, whatever the ordering; the old value it returns
        // is the one it replaced, so exactly one racer sees a bit go from 0
        // to 1. Checked by loom-tests/tests/insert.rs:
        // `different_keys_sharing_a_word` and `same_key_two_inserters_word`.
        word.fetch_or(mask, Relaxed) & mask != mask
    }

    /// Whether every bit of `masks[i]` is set in word `i` of line `index`.
    #[inline]
    pub(crate) fn test_line(&self, index: usize, masks: &[u64; WORDS_PER_LINE]) -> bool {
        let line = &self.lines[index].0;
        let mut missing = 0;
        for (word, &mask) in line.iter().zip(masks) {
            // ORDERING: Relaxed, as in `test_word`. All eight words are loaded
            // without branching: they share one cache line, so the seven loads
            // after the first cost less than a mispredicted branch.
            missing |= mask & !word.load(Relaxed);
        }
        missing == 0
    }

    /// Sets the bits of `masks[i]` in word `i` of line `index`; returns
    /// whether this call set at least one bit.
    #[inline]
    pub(crate) fn set_line(&self, index: usize, masks: &[u64; WORDS_PER_LINE]) -> bool {
        let line = &self.lines[index].0;
        let mut missing = [0u64; WORDS_PER_LINE];
        let mut any_missing = 0;
        for ((word, &mask), missing) in line.iter().zip(masks).zip(&mut missing) {
            // ORDERING: Relaxed, as in `test_word`.
            *missing = mask & !word.load(Relaxed);
            any_missing |= *missing;
        }
        if any_missing == 0 {
            return false;
        }
        let mut changed = false;
        for (word, &missing) in line.iter().zip(&missing) {
            if missing != 0 {
                // ORDERING: Relaxed, as in `set_word`. Each word's fetch_or is
                // atomic on its own; a racing inserter of the same key may
                // set some of the words and this call others, and then both
                // return true. Checked by loom-tests/tests/insert.rs:
                // `same_key_two_inserters_blocked`.
                changed |= word.fetch_or(missing, Relaxed) & missing != missing;
            }
        }
        changed
    }

    /// Whether every probe's bit is set; stops at the first missing one.
    #[inline]
    pub(crate) fn test_bits(&self, probes: impl IntoIterator<Item = (usize, u64)>) -> bool {
        probes
            .into_iter()
            .all(|(index, mask)| self.test_word(index, mask))
    }

    /// Sets every probe's bit (each `(word index, one-bit mask)`); returns
    /// whether this call set at least one. Loads all words first so their
    /// cache misses overlap, then writes only the missing bits.
    #[inline]
    pub(crate) fn set_bits(&self, probes: &mut [(usize, u64)]) -> bool {
        let mut num_missing = 0;
        for i in 0..probes.len() {
            let (index, mask) = probes[i];
            if !self.test_word(index, mask) {
                probes[num_missing] = (index, mask);
                num_missing += 1;
            }
        }
        let mut changed = false;
        for &(index, mask) in &probes[..num_missing] {
            // ORDERING: Relaxed, as in `set_word`. Checked by
            // loom-tests/tests/insert.rs: `same_key_two_inserters_standard`.
            changed |= self.word(index).fetch_or(mask, Relaxed) & mask != mask;
        }
        changed
    }

    /// Zeroes every word.
    pub(crate) fn clear(&self) {
        for word in self.words() {
            // ORDERING: Relaxed. `clear` promises: bits set before it began
            // (happens-before) are gone when it returns, bits of inserts that
            // begin after it returns are kept, and an insert running meanwhile
            // may survive in part. Each word is zeroed by one atomic swap, so
            // a concurrent fetch_or lands either before it (and is cleared) or
            // after (and is kept), never in between. Zero words are skipped so
            // clearing a fresh filter touches no page. (`swap` rather than
            // `store`: loom 0.7 mis-models a plain store racing a fetch_or.)
            // Checked by loom-tests/tests/bulk.rs: `clear_racing_insert`.
            if word.load(Relaxed) != 0 {
                word.swap(0, Relaxed);
            }
        }
    }

    /// Sets every bit that is set in `other` (same length).
    pub(crate) fn union(&self, other: &BitArray) {
        debug_assert_eq!(self.num_words, other.num_words);
        for (word, theirs) in self.words().zip(other.load_words()) {
            // ORDERING: Relaxed, as in `set_word`: fetch_or never loses a bit
            // set concurrently in `self`, and each word of `other` read is one
            // it held during the call (bits it had when the union began are
            // included). Checked by loom-tests/tests/bulk.rs:
            // `union_racing_insert`.
            if theirs & !word.load(Relaxed) != 0 {
                word.fetch_or(theirs, Relaxed);
            }
        }
    }

    /// Clears every bit that is clear in `other` (same length).
    pub(crate) fn intersect(&self, other: &BitArray) {
        debug_assert_eq!(self.num_words, other.num_words);
        for (word, theirs) in self.words().zip(other.load_words()) {
            // ORDERING: Relaxed. fetch_and is atomic per word: a bit set in
            // `self` concurrently either lands before (and is masked) or after
            // (and is kept). Checked by loom-tests/tests/bulk.rs:
            // `intersect_racing_insert`.
            if word.load(Relaxed) & !theirs != 0 {
                word.fetch_and(theirs, Relaxed);
            }
        }
    }

    /// A copy of the current bits, or `None` if the allocator refuses.
    pub(crate) fn snapshot(&self) -> Option<BitArray> {
        let copy = BitArray::zeroed(self.num_words)?;
        for (dst, value) in copy.words().zip(self.load_words()) {
            if value != 0 {
                // ORDERING: Relaxed. `copy` is not shared with any thread yet;
                // whoever receives it does so through a move, which
                // synchronizes.
                dst.store(value, Relaxed);
            }
        }
        Some(copy)
    }
}

#[cfg(not(loom))]
fn alloc_zeroed_lines(num_lines: usize) -> Option<Box<[CacheLine]>> {
    bytemuck::try_zeroed_slice_box(num_lines).ok()
}

#[cfg(loom)]
fn alloc_zeroed_lines(num_lines: usize) -> Option<Box<[CacheLine]>> {
    Some(
        (0..num_lines)
            .map(|_| CacheLine(std::array::from_fn(|_| AtomicU64::new(0))))
            .collect(),
    )
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cache_aligned() {
        let bits = BitArray::zeroed(17).unwrap();
        assert_eq!(std::mem::align_of::<CacheLine>(), 64);
        assert_eq!(bits.lines.as_ptr() as usize % 64, 0);
        assert_eq!(bits.memory_bytes(), 3 * 64);
        assert_eq!(bits.load_words().count(), 17);
    }

    #[test]
    fn set_word_reports_only_new_bits() {
        let bits = BitArray::zeroed(2).unwrap();
        assert!(bits.set_word(1, 0b101));
        assert!(!bits.set_word(1, 0b001));
        assert!(bits.set_word(1, 0b011));
        assert!(bits.test_word(1, 0b111));
        assert!(!bits.test_word(0, 0b1));
    }

    #[test]
    fn union_and_intersect_are_bitwise() {
        let a = BitArray::zeroed(2).unwrap();
        let b = BitArray::zeroed(2).unwrap();
        a.set_word(0, 0b0011);
        b.set_word(0, 0b0110);
        b.set_word(1, 0b1000);
        a.union(&b);
        assert_eq!(a.load_words().collect::<Vec<_>>(), [0b0111, 0b1000]);
        let c = BitArray::zeroed(2).unwrap();
        c.set_word(0, 0b0101);
        a.intersect(&c);
        assert_eq!(a.load_words().collect::<Vec<_>>(), [0b0101, 0]);
    }

    #[test]
    fn impossible_allocation_is_none() {
        assert!(BitArray::zeroed(usize::MAX / 2).is_none());
    }
}
