//! # The counter array
//!
//! [`CounterArray`] holds a counting filter's counters: 4-bit counters,
//! sixteen to an `AtomicU64` word, in the allocation the bit array uses
//! ([`BitArray`]: zeroed, fallible, cache-line aligned). Counter `i` is
//! bits `4 (i % 16)` to `4 (i % 16) + 3` of word `i / 16`.
//!
//! A key's counters are updated a word at a time: [`increment`] and
//! [`decrement`] take a word and a *lane mask* (`0x1` at bit `4 j` for each
//! counter `j` of the word to change) and change all of those counters in one
//! compare-and-swap of the word. The arithmetic is done on the whole word
//! at once, branch-free:
//!
//! - a counter at [`MAX_COUNT`] (15) is *saturated*: it is never incremented
//!   (which would carry into its neighbour) nor decremented (it may stand
//!   for more keys than 15, so taking one away could create a false
//!   negative); see Fan, Cao, Almeida and Broder, "Summary Cache" (2000);
//! - a counter at zero is never decremented (which would borrow from its
//!   neighbour).
//!
//! So adding the mask of the lanes that may grow never carries, and
//! subtracting the mask of those that may shrink never borrows. A word
//! whose counters would not change is not written.
//!
//! [`increment`]: CounterArray::increment
//! [`decrement`]: CounterArray::decrement

use crate::hints::Access;
use crate::storage::bit_array::BitArray;
use crate::sync::Ordering::Relaxed;
#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crossbeam_utils::Backoff;
use std::ops::Range;

/// Counters in one 64-bit word.
pub(crate) const COUNTERS_PER_WORD: u64 = 16;

/// The largest count a counter holds; a counter there is saturated.
pub(crate) const MAX_COUNT: u8 = 15;

/// `0x1` in every lane: the lane mask of a whole word.
pub(crate) const ALL_LANES: u64 = 0x1111_1111_1111_1111;

/// The lanes of `word` whose counter is saturated (15).
#[inline]
pub(crate) fn saturated_lanes(word: u64) -> u64 {
    word & (word >> 1) & (word >> 2) & (word >> 3) & ALL_LANES
}

/// The lanes of `word` whose counter is zero.
#[inline]
pub(crate) fn zero_lanes(word: u64) -> u64 {
    !(word | (word >> 1) | (word >> 2) | (word >> 3)) & ALL_LANES
}

/// `a` and `b` added lane by lane, each sum saturating at [`MAX_COUNT`]:
/// sixteen 4-bit additions at once, none carrying into its neighbour.
///
/// The low three bits of each lane add without leaving it (7 + 7 = 14);
/// the top bit is then the sum of the two top bits and that carry, and a
/// lane whose sum passes 15 (a carry out of its top bit) is set to 15.
#[inline]
pub(crate) fn saturating_add(a: u64, b: u64) -> u64 {
    const LOW: u64 = 0x7777_7777_7777_7777;
    const TOP: u64 = 0x8888_8888_8888_8888;
    let low = (a & LOW) + (b & LOW);
    let sum = low ^ ((a ^ b) & TOP);
    let carried = ((a & b) | (low & (a ^ b))) & TOP;
    sum | ((carried >> 3) * 0xF)
}

/// Counter `lane` (`0..16`) of `word`.
#[inline]
pub(crate) fn count(word: u64, lane: u64) -> u8 {
    ((word >> (4 * lane)) & 0xF) as u8
}

/// `word` with one added to each counter in `lanes` that is not saturated:
/// lanes below 15 take +1 without a carry.
#[inline(always)]
pub(crate) fn incremented(word: u64, lanes: u64) -> u64 {
    word + (lanes & !saturated_lanes(word))
}

/// A fixed-size array of atomically updated 4-bit counters: the cells of a
/// counting filter, [`AtomicCountingBloom`](crate::AtomicCountingBloom)
/// (`Filter<CounterArray, S>`). It has no public methods; the filter is its
/// interface.
pub struct CounterArray {
    words: BitArray,
}

impl CounterArray {
    /// `num_words` words of zeroed counters, or `None` if the allocator
    /// refuses.
    pub(crate) fn zeroed(num_words: usize) -> Option<Self> {
        BitArray::zeroed(num_words).map(|words| CounterArray { words })
    }

    /// Counters held in `words` (sixteen to a word, as this array keeps
    /// them): how a file's body becomes an array.
    pub(crate) fn from_words(words: BitArray) -> Self {
        CounterArray { words }
    }

    /// Words in use.
    pub(crate) fn num_words(&self) -> usize {
        self.words.num_words()
    }

    /// The words the counters are kept in.
    pub(crate) fn array(&self) -> &BitArray {
        &self.words
    }

    /// Bytes of the words in use, rounded up to whole cache lines.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.memory_bytes()
    }

    /// Asks the CPU to start fetching word `index`'s cache line.
    #[inline]
    pub(crate) fn prefetch(&self, index: usize, access: Access) {
        self.words.prefetch_word(index, access);
    }

    /// The address of word `index`'s line, divided by 64 (tests compare it
    /// with the addresses prefetched).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn line_address(&self, index: usize) -> usize {
        self.words
            .line_address(index / crate::storage::bit_array::WORDS_PER_LINE)
    }

    /// The current value of word `index`.
    #[inline]
    pub(crate) fn load(&self, index: usize) -> u64 {
        // ORDERING: Relaxed (C2). Every update of a word is a read-modify-
        // write, so its modification order holds every update; a load that
        // happens-after an update reads it or a later value, which (for a
        // key not removed meanwhile) still holds the key's counts. Nothing
        // else is read on the strength of this value. Checked by
        // loom-tests/tests/counting.rs: `insert_then_query_after_handoff`.
        self.words.word(index).load(Relaxed)
    }

    /// A copy of the current counters, or `None` if the allocator refuses.
    pub(crate) fn snapshot(&self) -> Option<CounterArray> {
        self.words.snapshot().map(CounterArray::from_words)
    }

    /// The current value of each word of `range`, in order (each read
    /// once, as `BitArray::load_words` reads them).
    pub(crate) fn load_words(&self, range: Range<usize>) -> impl Iterator<Item = u64> + '_ {
        self.words.load_words(range)
    }

    /// Adds one to each counter of word `index` in `lanes` that is not
    /// saturated, in one compare-and-swap; returns the word it replaced
    /// (or found, if nothing changed).
    #[inline]
    pub(crate) fn increment(&self, index: usize, lanes: u64) -> u64 {
        self.update(index, |old| incremented(old, lanes))
    }

    /// Takes one from each counter of word `index` in `lanes` that is
    /// neither zero nor saturated, in one compare-and-swap; returns the
    /// word it replaced (or found, if nothing changed).
    #[inline]
    pub(crate) fn decrement(&self, index: usize, lanes: u64) -> u64 {
        self.update(index, |old| {
            #[cfg(loom)]
            if fault::active(Fault::WrappingDecrement) {
                // The injected bug: zero counters are not spared, and wrap.
                return old.wrapping_sub(lanes & !saturated_lanes(old));
            }
            // Lanes above 0 take -1 without a borrow.
            old - (lanes & !saturated_lanes(old) & !zero_lanes(old))
        })
    }

    /// Adds the counters of `counts` to those of word `index`, each sum
    /// saturating at 15, in one compare-and-swap; returns the word it
    /// replaced (or found, if nothing changed).
    #[inline]
    pub(crate) fn add(&self, index: usize, counts: u64) -> u64 {
        self.update(index, |old| saturating_add(old, counts))
    }

    /// Adds every counter of `other` (same length) to this array's, word by
    /// word; each of `other`'s words is read once (as a snapshot reads it).
    pub(crate) fn merge(&self, other: &CounterArray, range: Range<usize>) {
        debug_assert_eq!(self.num_words(), other.num_words());
        let theirs = other.words.load_words(range.clone());
        for (index, counts) in range.zip(theirs) {
            if counts != 0 {
                self.add(index, counts);
            }
        }
    }

    /// Replaces word `index` with `new(old)` atomically: a compare-and-swap
    /// loop that backs off while other threads win the word. It is
    /// lock-free, since a swap fails only when another thread's update of
    /// the word succeeded. Returns the word replaced or, when `new` changes
    /// nothing, the word found (and writes nothing).
    #[inline]
    fn update(&self, index: usize, new: impl Fn(u64) -> u64) -> u64 {
        let word = self.words.word(index);
        let backoff = Backoff::new();
        // ORDERING: Relaxed (C1, C3): the compare-and-swap below checks this
        // value, so a stale one costs a retry, never a lost update or a
        // wrong lane. Checked by loom-tests/tests/counting.rs:
        // `inserts_sharing_a_word_both_count`, `racing_increments_saturate_exactly`.
        let mut old = word.load(Relaxed);
        loop {
            let next = new(old);
            if next == old {
                return old;
            }
            #[cfg(loom)]
            if fault::active(Fault::SplitCounterUpdate) {
                // ORDERING: irrelevant; the injected bug is the split
                // update (`swap` rather than `store`, as in `fetch_or`'s
                // fault, to stay clear of loom 0.7's mis-modelling of a
                // store racing a read-modify-write; it is just as wrong).
                word.swap(next, Relaxed);
                return old;
            }
            // ORDERING: Relaxed on success and failure (C1, C5). The swap
            // succeeds only if the word still holds `old`, the value `next`
            // was computed from, so concurrent updates of a word's counters
            // never lose one another (each lands once in the word's
            // modification order), whatever the ordering; no other memory
            // is published through the counters. Checked by
            // loom-tests/tests/counting.rs: `inserts_sharing_a_word_both_count`,
            // `insert_and_remove_sharing_a_word`, `racing_increments_saturate_exactly`,
            // `racing_checked_removes_spare_zero_counters`,
            // `racing_inserts_of_a_new_key_report_it_new_at_least_once`,
            // `merge_racing_insert_both_count`; negative controls
            // `split_counter_update_loses_a_count`,
            // `an_abandoned_update_leaves_a_counter_too_high`,
            // `split_counter_update_in_a_merge_loses_a_count`,
            // `wrapping_decrement_creates_a_false_negative`.
            match word.compare_exchange_weak(old, next, Relaxed, Relaxed) {
                Ok(_) => return old,
                Err(now) => {
                    #[cfg(loom)]
                    if fault::active(Fault::AbandonContendedUpdate) {
                        // The injected bug: the update is dropped.
                        return now;
                    }
                    old = now;
                    backoff.spin();
                }
            }
        }
    }

    /// Zeroes every counter of words `range` (word by word; see
    /// `BitArray::clear`).
    pub(crate) fn clear(&self, range: Range<usize>) {
        self.words.clear(range);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn lanes_find_saturated_and_zero_counters() {
        let word = 0xF0F1_0000_0000_00F0u64;
        assert_eq!(count(word, 1), 15);
        assert_eq!(count(word, 12), 1);
        assert_eq!(saturated_lanes(word), 0x1010_0000_0000_0010);
        assert_eq!(zero_lanes(word) & 0x1111, 0x1101);
        assert_eq!(zero_lanes(0), ALL_LANES);
        assert_eq!(saturated_lanes(u64::MAX), ALL_LANES);
    }

    /// Every pair of counts, in every lane, beside neighbours of every
    /// count: each sum is `min(a + b, 15)`, and no lane disturbs another.
    #[test]
    fn saturating_add_adds_every_pair_of_counts_in_every_lane() {
        for a in 0..16u64 {
            for b in 0..16u64 {
                for lane in 0..16 {
                    // The other lanes hold counts that cycle through 0..16.
                    let others = |seed: u64| {
                        (0..16)
                            .filter(|&l| l != lane)
                            .fold(0, |w, l| w | (((seed + l) % 16) << (4 * l)))
                    };
                    let (x, y) = (others(a) | a << (4 * lane), others(b + 7) | b << (4 * lane));
                    let sum = saturating_add(x, y);
                    for l in 0..16 {
                        let want = (count(x, l) + count(y, l)).min(MAX_COUNT);
                        assert_eq!(count(sum, l), want, "lane {l} of {x:#x} + {y:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn increments_stick_at_fifteen_and_decrements_stop_at_zero() {
        let counters = CounterArray::zeroed(1).unwrap();
        let lanes = 0x0000_0000_0000_1011; // counters 0, 1 and 3
        for _ in 0..20 {
            counters.increment(0, lanes);
        }
        // Saturated, without carrying into counters 2 and 4.
        assert_eq!(counters.load(0), 0x0000_0000_0000_F0FF);
        // Saturated counters are never decremented.
        counters.decrement(0, lanes);
        assert_eq!(counters.load(0), 0x0000_0000_0000_F0FF);
        // Counters at zero do not borrow from their neighbours.
        let other = CounterArray::zeroed(1).unwrap();
        other.increment(0, 0x10);
        other.decrement(0, 0x11);
        other.decrement(0, 0x11);
        assert_eq!(other.load(0), 0);
    }

    #[test]
    fn an_update_that_changes_nothing_returns_the_word_found() {
        let counters = CounterArray::zeroed(1).unwrap();
        assert_eq!(counters.decrement(0, ALL_LANES), 0);
        assert_eq!(counters.increment(0, 0x1), 0);
        assert_eq!(counters.increment(0, 0x1), 1);
    }
}
