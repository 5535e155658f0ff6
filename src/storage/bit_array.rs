//! # The bit array
//!
//! [`BitArray`] owns the filter's bits: one zeroed allocation of
//! [`AtomicU64`] words whose lines of eight start on 64-byte boundaries. It knows
//! nothing of keys or hashes; the layouts (`src/layout/`) say which words and
//! masks a key touches, and this file turns those into atomic operations.
//! Every atomic operation on bits is in this file (the counting filter's
//! counters, which live in the same kind of array, are updated in
//! `counter_array.rs`), each with an
//! `// ORDERING:` note naming the guarantee it serves (G1-G9 in the crate
//! docs' `docs::memory_ordering` chapter) and the loom test that checks it.
//!
//! ## Why the allocation is zeroed, fallible, and aligned by hand
//!
//! `bytemuck::try_zeroed_slice_box` asks the allocator for zeroed memory
//! (`calloc`), which for a large array maps fresh zero pages without writing
//! them: creating a 10 GiB filter takes microseconds and touches no page until
//! a key lands there (`tests/all/memory.rs`). It reports failure as an error
//! instead of aborting the process, so an absurd size is a typed error for
//! the caller. No `unsafe` code of ours is involved.
//!
//! The obvious way to get 64-byte alignment, an `align(64)` element type,
//! defeats this: Rust's system allocator serves zeroed requests aligned
//! above 16 bytes with `posix_memalign` plus a `memset` that writes every
//! page (measured: 8 s and 10 GiB resident for a 10 GiB filter). So the array
//! is allocated as plain words, seven more than needed, and the first
//! `offset` words are skipped so that word `offset` starts a cache line;
//! every line of eight words after it is then one cache line, which is what
//! the `Blocked` layout's one-miss promise rests on.
//!
//! Large arrays are then offered to Linux for transparent huge pages
//! (`hints.rs`).
//!
//! Under `cfg(loom)` the words are loom's atomics, which cannot be created by
//! zeroing memory; the model-checking build allocates them one by one.
//!
//! ## Words that live in a file
//!
//! The words may instead be a file that several processes map
//! (`words.rs`, `shared/`): the same `[AtomicU64]`, so every operation
//! below, and every `// ORDERING:` argument, holds for them unchanged.
//! Their array is never filled with plain stores (`fill`, which needs
//! `&mut`, is only ever given a fresh heap array).
//!
use crate::hints::{Access, advise_huge_pages, prefetch};
use crate::storage::words::Words;
#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crate::sync::{AtomicU64, Ordering::Relaxed, set_unshared};
use std::ops::Range;

/// Words in one 64-byte cache line.
pub(crate) const WORDS_PER_LINE: usize = 8;

/// A fixed-size array of atomically updated bits: the cells of a plain
/// filter, [`AtomicBloom`](crate::AtomicBloom) (`Filter<BitArray, S>`).
/// It has no public methods; the filter is its interface.
pub struct BitArray {
    /// `offset` words of padding, then `num_words` words in use starting on a
    /// 64-byte boundary, then padding to the end of the last line (a heap
    /// array); or a file's body, at offset 0 (a mapped array).
    words: Words,
    offset: usize,
    num_words: usize,
}

impl BitArray {
    /// A zeroed array of `num_words` words whose lines of eight are
    /// cache-line aligned, or `None` if the allocator refuses.
    pub(crate) fn zeroed(num_words: usize) -> Option<Self> {
        let padded = num_words
            .checked_next_multiple_of(WORDS_PER_LINE)?
            .checked_add(WORDS_PER_LINE - 1)?;
        let words = alloc_zeroed_words(padded)?;
        advise_huge_pages(&words);
        let misalignment = words.as_ptr() as usize % 64;
        let offset = (64 - misalignment) % 64 / std::mem::size_of::<AtomicU64>();
        Some(BitArray {
            words: Words::heap(words),
            offset,
            num_words,
        })
    }

    /// The array whose words are `words` (a mapped file's body, all of it
    /// in use).
    #[cfg_attr(any(loom, not(target_os = "linux")), allow(dead_code))] // Used by `shared/`.
    pub(crate) fn over(words: Words) -> Self {
        BitArray {
            num_words: words.len(),
            words,
            offset: 0,
        }
    }

    /// Where the words live.
    #[cfg_attr(any(loom, not(target_os = "linux")), allow(dead_code))] // Used by `shared/`.
    pub(crate) fn storage(&self) -> &Words {
        &self.words
    }

    /// Number of 64-bit words in use.
    pub(crate) fn num_words(&self) -> usize {
        self.num_words
    }

    /// Bytes of the words in use, rounded up to whole cache lines (the
    /// allocation holds up to 56 bytes more, for alignment).
    pub(crate) fn memory_bytes(&self) -> usize {
        Self::bytes_for(self.num_words)
    }

    /// [`memory_bytes`](Self::memory_bytes) of an array of `num_words`
    /// words, before it is allocated.
    pub(crate) fn bytes_for(num_words: usize) -> usize {
        num_words.next_multiple_of(WORDS_PER_LINE) * std::mem::size_of::<AtomicU64>()
    }

    // The hot-path accessors index from `offset` with one bounds check;
    // callers derive indices from the array's size, so they stay in use.
    // `counter_array.rs` updates words through it too.
    #[inline]
    pub(crate) fn word(&self, index: usize) -> &AtomicU64 {
        &self.words[self.offset + index]
    }

    /// Line `index`: eight words in one cache line.
    #[inline]
    fn line(&self, index: usize) -> &[AtomicU64; WORDS_PER_LINE] {
        &self.words[self.offset..].as_chunks().0[index]
    }

    /// The words in use.
    fn words(&self) -> &[AtomicU64] {
        &self.words[self.offset..][..self.num_words]
    }

    /// The words in use, of a heap array no other thread can see yet
    /// (`&mut`): written with plain stores, no atomic instruction. A mapped
    /// array has none: other processes may see it whatever we hold.
    fn words_mut(&mut self) -> impl Iterator<Item = &mut AtomicU64> {
        let (offset, len) = (self.offset, self.num_words);
        self.words
            .heap_mut()
            .into_iter()
            .flat_map(move |words| words[offset..offset + len].iter_mut())
    }

    /// `0..num_words`: every word.
    pub(crate) fn all(&self) -> Range<usize> {
        0..self.num_words
    }

    /// The address of line `index`, divided by 64 (tests compare it with
    /// the addresses prefetched).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn line_address(&self, index: usize) -> usize {
        self.line(index).as_ptr() as usize / 64
    }

    /// Asks the CPU to start fetching word `index`'s cache line.
    #[inline]
    pub(crate) fn prefetch_word(&self, index: usize, access: Access) {
        prefetch(self.word(index), access);
    }

    /// Asks the CPU to start fetching line `index`.
    #[inline]
    pub(crate) fn prefetch_line(&self, index: usize, access: Access) {
        prefetch(self.line(index), access);
    }

    /// The current value of words `range`, in order. Every whole-array read
    /// (counts, estimates, snapshots, files, union's source) goes through
    /// here.
    pub(crate) fn load_words(&self, range: Range<usize>) -> impl Iterator<Item = u64> + '_ {
        // ORDERING: Relaxed (docs::memory_ordering, G8 and G9). A read of
        // the whole array promises only that each word is a value it held at
        // some point during the read: every bit set by an insert that
        // happened-before the read is seen (coherence), an insert running
        // meanwhile may be seen in part. Checked by loom-tests/tests/bulk.rs:
        // `count_racing_inserts_is_monotone` and `snapshot_racing_insert`.
        self.words()[range].iter().map(|word| word.load(Relaxed))
    }

    /// The number of set bits in words `range`.
    pub(crate) fn count_ones(&self, range: Range<usize>) -> u64 {
        self.load_words(range)
            .map(|word| u64::from(word.count_ones()))
            .sum()
    }

    /// Whether every bit of `mask` is set in word `index`.
    #[inline]
    pub(crate) fn test_word(&self, index: usize, mask: u64) -> bool {
        // ORDERING: Relaxed (G2, G3). Bits of a word only grow between clears,
        // and coherence makes a load return the newest value of its word or a
        // later one; every bit set by an insert that happened-before this load
        // is therefore seen (no false negative), and two successive loads never
        // see a bit disappear. Nothing else is read on the strength of this
        // value, so no acquire is needed. Checked by loom-tests/tests/read.rs:
        // `reader_after_release_acquire_handoff` and
        // `reader_concurrent_with_writer_is_monotone`.
        self.word(index).load(Relaxed) & mask == mask
    }

    /// Whether every bit of `masks[j]` is set in word `first + j`, for each
    /// `j`: all `N` words loaded, without an early exit, behind one bounds
    /// check (`SplitBlock`'s test of a block's four words).
    #[inline(always)]
    pub(crate) fn test_words<const N: usize>(&self, first: usize, masks: [u64; N]) -> bool {
        let words = &self.words[self.offset + first..][..N];
        let mut missing = 0;
        for (word, mask) in words.iter().zip(masks) {
            // ORDERING: Relaxed, as in `test_word` (G2, G3), each word on
            // its own: a bit an earlier insert set is seen in whichever
            // word holds it. Checked by loom-tests/tests/read.rs, as there.
            missing |= mask & !word.load(Relaxed);
        }
        missing == 0
    }

    /// Sets the bits of `mask` in word `index`; returns whether this call set
    /// at least one of them. One `fetch_or` sets them all, so among calls that
    /// race with the same mask exactly one returns `true` if any bit was
    /// missing before.
    #[inline]
    pub(crate) fn set_word(&self, index: usize, mask: u64) -> bool {
        let word = self.word(index);
        // ORDERING: Relaxed, as in `test_word` (G2, G4). If this load shows
        // every bit, some earlier fetch_or set them and a new one would change
        // nothing.
        if word.load(Relaxed) & mask == mask {
            return false;
        }
        // One fetch_or for all of the key's bits: exactly one racer sees
        // them go from missing to set (G4, `same_key_two_inserters_word`,
        // `same_key_three_inserters_word`).
        fetch_or(word, mask) & mask != mask
    }

    /// Sets the bits of `mask` in word `index`, reporting nothing. With the
    /// old value unused, x86-64 compiles it to one `lock or` rather than a
    /// `lock cmpxchg` loop (`docs::layouts`, "How an insert writes").
    #[inline(always)]
    pub(crate) fn or_word(&self, index: usize, mask: u64) {
        // G1: `different_keys_sharing_a_word`.
        fetch_or(self.word(index), mask);
    }

    /// Line `index`, for testing single bits.
    #[inline]
    pub(crate) fn line_reader(&self, index: usize) -> LineReader<'_> {
        LineReader {
            line: self.line(index),
            all: 1,
        }
    }

    /// Line `index`, for setting single bits.
    #[inline]
    pub(crate) fn line_writer(&self, index: usize) -> LineWriter<'_> {
        LineWriter {
            line: self.line(index),
        }
    }

    /// Whether every bit `bits` lists (by its index in the array) is set;
    /// stops at the first missing one.
    #[inline]
    pub(crate) fn test_bits(&self, bits: impl IntoIterator<Item = u64>) -> bool {
        bits.into_iter().all(|bit| self.test_bit(bit))
    }

    /// Whether bit `bit` (an index in the array) is set.
    #[inline(always)]
    fn test_bit(&self, bit: u64) -> bool {
        self.test_word((bit / 64) as usize, 1 << (bit % 64))
    }

    /// Sets the `count` bits `bits` lists (indices in the array) unless all
    /// of them are set, after prefetching their lines if `prefetch` (a
    /// per-key insert: `Probe::prefetch_and_insert`); returns whether one was missing (and so
    /// this call set them). Loads all words first so their cache misses
    /// overlap, and writes nothing if every bit is set (a duplicate insert).
    /// Otherwise it sets all `count` bits, one `set_bit` each.
    ///
    /// Setting every bit rather than only those the test found clear keeps
    /// the second loop's trip count fixed: looping over the clear ones ends
    /// on a branch that mispredicts about once per key, which measured
    /// slower for `Standard` inserts of new keys in and out of cache.
    ///
    /// The test keeps the bits it computed for the sets, up to
    /// [`KEPT_BITS`] of them; beyond that (`k` over 16, rates below about
    /// 1e-5) the sets walk `bits` again. Walking it twice made a new key's
    /// insert longer by the bits' cost, duplicates unchanged. An array of
    /// 64, zeroed whatever `k`, cost duplicates at 100M keys the zeroing.
    #[inline]
    pub(crate) fn set_bits(
        &self,
        count: u32,
        bits: impl Iterator<Item = u64> + Clone,
        prefetch: bool,
    ) -> bool {
        // Every bit tested, without a branch per bit, whose outcome is a
        // coin toss in a filter half full.
        let mut kept = [0; KEPT_BITS];
        if let Some(kept) = kept.get_mut(..count as usize) {
            kept.iter_mut()
                .zip(bits)
                .for_each(|(slot, bit)| *slot = bit);
            if prefetch {
                for &bit in kept.iter() {
                    self.prefetch_word((bit / 64) as usize, Access::READ);
                }
            }
            let mut complete = true;
            for &bit in kept.iter() {
                complete &= self.test_bit(bit);
            }
            if !complete {
                kept.iter().for_each(|&bit| self.set_bit(bit));
            }
            !complete
        } else {
            if prefetch {
                for bit in bits.clone() {
                    self.prefetch_word((bit / 64) as usize, Access::READ);
                }
            }
            let complete = bits.clone().fold(true, |all, bit| all & self.test_bit(bit));
            if !complete {
                bits.for_each(|bit| self.set_bit(bit));
            }
            !complete
        }
    }

    /// Sets bit `bit` (an index in the array).
    #[inline(always)]
    fn set_bit(&self, bit: u64) {
        // G1: `different_keys_sharing_a_word`.
        set_bit(self.word((bit / 64) as usize), bit as u32);
    }

    /// Zeroes words `range`.
    pub(crate) fn clear(&self, range: Range<usize>) {
        for word in &self.words()[range] {
            // ORDERING: Relaxed (G5). A word that loads as zero has nothing
            // set before the clear began (coherence), so it is skipped: clearing
            // a fresh filter touches no page. A bit set after this load belongs
            // to an insert racing the clear, which may survive.
            let seen = word.load(Relaxed);
            if seen != 0 {
                zero(word, seen);
            }
        }
    }

    /// Sets every bit of words `range` that is set in `other` (same length).
    pub(crate) fn union(&self, other: &BitArray, range: Range<usize>) {
        debug_assert_eq!(self.num_words, other.num_words);
        let theirs = other.load_words(range.clone());
        for (word, theirs) in self.words()[range].iter().zip(theirs) {
            // ORDERING: Relaxed (G6), as in `test_word`: skip words that
            // already hold every bit of `theirs`. (`theirs` comes from
            // `load_words`: a value `other`'s word held during the call, so
            // the bits it had when the union began are included.)
            if theirs & !word.load(Relaxed) != 0 {
                // G1, G6: never loses a bit set concurrently in `self`
                // (`union_racing_insert`, `union_from_a_changing_source`).
                fetch_or(word, theirs);
            }
        }
    }

    /// Clears every bit of words `range` that is clear in `other` (same
    /// length).
    pub(crate) fn intersect(&self, other: &BitArray, range: Range<usize>) {
        debug_assert_eq!(self.num_words, other.num_words);
        let theirs = other.load_words(range.clone());
        for (word, theirs) in self.words()[range].iter().zip(theirs) {
            // ORDERING: Relaxed (G7): skip words with nothing to clear.
            if word.load(Relaxed) & !theirs != 0 {
                fetch_and(word, theirs);
            }
        }
    }

    /// Overwrites words `first..` with `bytes` read as little-endian u64s
    /// (`bytes.len()` a multiple of 8, within the array). Takes `&mut self`:
    /// only an array no other thread can see yet is filled this way.
    pub(crate) fn fill_le(&mut self, first: usize, bytes: &[u8]) {
        self.fill(
            first,
            bytes.chunks_exact(8).map(|chunk| {
                let mut le = [0u8; 8];
                le.copy_from_slice(chunk);
                u64::from_le_bytes(le)
            }),
        );
    }

    /// Overwrites words `first..` with `values` (at most to the end of the
    /// array), as `fill_le` does.
    pub(crate) fn fill(&mut self, first: usize, values: impl Iterator<Item = u64>) {
        for (word, value) in self.words_mut().skip(first).zip(values) {
            set_unshared(word, value);
        }
    }

    /// A copy of the current bits, or `None` if the allocator refuses.
    pub(crate) fn snapshot(&self) -> Option<BitArray> {
        let mut copy = BitArray::zeroed(self.num_words)?;
        // Zero words are left alone, so a sparse copy touches few pages.
        let values = self.load_words(self.all());
        for (dst, value) in copy
            .words_mut()
            .zip(values)
            .filter(|(_, value)| *value != 0)
        {
            set_unshared(dst, value);
        }
        Some(copy)
    }
}

/// Tests bits of one cache line: [`test`](Self::test) each bit of a key,
/// then ask [`all_set`](Self::all_set). No masks are built and no branch is
/// taken per bit.
pub(crate) struct LineReader<'a> {
    line: &'a [AtomicU64; WORDS_PER_LINE],
    /// Bit 0 stays 1 while every bit tested so far was set.
    all: u64,
}

impl LineReader<'_> {
    /// Tests bit `offset` (`0..512`) of the line.
    #[inline(always)]
    pub(crate) fn test(&mut self, offset: u64) {
        // ORDERING: Relaxed, as in `test_word` (G2, G3). Callers test every
        // bit without an early exit: the loads after the first hit L1 (one
        // line), and a branch per bit would cost more in mispredictions than
        // it saves.
        self.all &= self.line[word_of(offset)].load(Relaxed) >> (offset & 63);
    }

    /// Whether every bit tested was set.
    #[inline(always)]
    pub(crate) fn all_set(&self) -> bool {
        self.all & 1 == 1
    }
}

/// How many bits [`BitArray::set_bits`] keeps from its test for its sets.
const KEPT_BITS: usize = 16;

/// Sets bits of one cache line, one atomic OR per bit. Callers test the
/// key first (a key that is present writes nothing), so this runs only for
/// a key with a bit missing, and what the insert reports is that test's
/// result (`docs::memory_ordering`, G4).
pub(crate) struct LineWriter<'a> {
    line: &'a [AtomicU64; WORDS_PER_LINE],
}

impl LineWriter<'_> {
    /// Sets bit `offset` (`0..512`) of the line.
    #[inline(always)]
    pub(crate) fn set(&self, offset: u64) {
        // G1: `different_keys_sharing_a_word`.
        set_bit(&self.line[word_of(offset)], offset as u32);
    }
}

/// Sets bit `bit % 64` of `word`. Its old value is not used, so x86-64
/// compiles it to one `lock or` (`cargo build --release --example
/// insert_loop`, then `objdump -d` its `main`, where every layout's insert
/// is inlined). Used, the old bit would make it a `lock bts`, and a wider
/// mask's old value a `lock cmpxchg` retry loop, both slower
/// (`docs::layouts`, "How an insert writes").
///
/// The mask is 1 rotated by `bit`, which takes the amount modulo 64 as
/// x86-64's `rol` does, so a caller passes a bit's whole offset and no
/// `& 63` is needed. The test before the set shifts its word by the same
/// offset, which x86-64's `shr` masks too: with the mask written `1 <<
/// (bit & 63)`, LLVM computed that `& 63` once for both and kept it live
/// across the test's branch, an instruction per bit of every `Blocked`
/// insert, present key or not (`examples/insert_loop.rs` says how to count
/// them).
#[inline(always)]
fn set_bit(word: &AtomicU64, bit: u32) {
    fetch_or(word, 1u64.rotate_left(bit));
}

/// Sets the bits of `mask` in `word`; returns the value it replaced. Every
/// setter (`set_word`, `set_bits`, `LineWriter`, `union`) writes through
/// here, and nowhere else.
#[inline(always)]
fn fetch_or(word: &AtomicU64, mask: u64) -> u64 {
    #[cfg(loom)]
    if fault::active(Fault::SplitFetchOr) {
        // ORDERING: irrelevant; the injected bug is the split read-modify-write.
        let old = word.load(Relaxed);
        // ORDERING: irrelevant, as above. (`swap` rather than `store`, to
        // stay clear of loom 0.7's mis-modelling of a store racing a
        // `fetch_or`; it is just as wrong.)
        word.swap(old | mask, Relaxed);
        return old;
    }
    #[cfg(all(test, not(loom)))]
    READ_MODIFY_WRITES.with(|count| count.set(count.get() + 1));
    // ORDERING: Relaxed (G1, G4, G6). A read-modify-write always acts on the
    // newest value of its word, so concurrent fetch_or's on one word never
    // lose each other's bits, whatever the ordering; the old value it
    // returns is the one it replaced, so exactly one racer sees a given bit
    // go from 0 to 1 (what `set_word` reports for `Word`; the other setters
    // drop it). Checked by loom-tests/tests/insert.rs:
    // `different_keys_sharing_a_word`, `same_key_two_inserters_word`,
    // `same_key_three_inserters_word`; bulk.rs: `union_racing_insert`;
    // negative control negative.rs: `split_fetch_or_loses_bits` (this
    // function, with the fault injected).
    word.fetch_or(mask, Relaxed)
}

#[cfg(all(test, not(loom)))]
thread_local! {
    /// How many read-modify-writes this thread has issued through
    /// `fetch_or`, the one funnel every setter writes through: what the
    /// tests count to show that an insert of a present key writes nothing.
    pub(crate) static READ_MODIFY_WRITES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Clears the bits of `word` that are clear in `mask` (`intersect`).
#[inline(always)]
fn fetch_and(word: &AtomicU64, mask: u64) {
    #[cfg(loom)]
    if fault::active(Fault::SplitFetchAnd) {
        // ORDERING: irrelevant; the injected bug is the split read-modify-write.
        let old = word.load(Relaxed);
        // ORDERING: irrelevant, as above.
        word.swap(old & mask, Relaxed);
        return;
    }
    // ORDERING: Relaxed (G7). fetch_and is atomic per word: it never clears
    // a bit that `mask` holds, so a key the other filter holds survives an
    // insert racing the intersect, and a bit set concurrently that `mask`
    // lacks lands either before (and is cleared) or after (and is kept).
    // Checked by loom-tests/tests/bulk.rs: `intersect_racing_insert` and
    // `intersect_racing_an_insert_of_a_shared_key`; negative control
    // negative.rs: `split_fetch_and_loses_a_shared_key`.
    word.fetch_and(mask, Relaxed);
}

/// Zeroes `word`, which held `seen` when loaded (`clear`).
#[inline(always)]
fn zero(word: &AtomicU64, seen: u64) {
    #[cfg(loom)]
    if fault::active(Fault::ClearByXor) {
        // ORDERING: irrelevant; the injected bug is undoing `seen` rather
        // than zeroing.
        word.fetch_xor(seen, Relaxed);
        return;
    }
    let _ = seen;
    // ORDERING: Relaxed (G5). One atomic swap per word: a concurrent
    // fetch_or lands either before it (and is cleared) or after (and is
    // kept), never in between, and two clears racing each other both leave
    // zero. (`swap` rather than `store`: loom 0.7 mis-models a plain store
    // racing a fetch_or.) Checked by loom-tests/tests/bulk.rs:
    // `clear_racing_insert`, `clear_racing_clear`, `batch_racing_clear`;
    // negative control negative.rs: `clear_by_xor_brings_bits_back`.
    word.swap(0, Relaxed);
}

/// The word of a line that bit `offset` (`0..512`) is in.
#[inline(always)]
fn word_of(offset: u64) -> usize {
    (offset >> 6) as usize & (WORDS_PER_LINE - 1)
}

#[cfg(not(loom))]
fn alloc_zeroed_words(len: usize) -> Option<Box<[AtomicU64]>> {
    bytemuck::try_zeroed_slice_box(len).ok()
}

#[cfg(loom)]
fn alloc_zeroed_words(len: usize) -> Option<Box<[AtomicU64]>> {
    Some((0..len).map(|_| AtomicU64::new(0)).collect())
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cache_aligned() {
        for num_words in [1, 8, 17, 1 << 20] {
            let bits = BitArray::zeroed(num_words).unwrap();
            for line in 0..num_words.div_ceil(WORDS_PER_LINE) {
                assert_eq!(bits.line(line).as_ptr() as usize % 64, 0);
            }
            assert_eq!(bits.memory_bytes(), num_words.div_ceil(8) * 64);
            assert_eq!(bits.load_words(bits.all()).count(), num_words);
        }
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
        a.union(&b, 0..2);
        assert_eq!(a.load_words(a.all()).collect::<Vec<_>>(), [0b0111, 0b1000]);
        let c = BitArray::zeroed(2).unwrap();
        c.set_word(0, 0b0101);
        a.intersect(&c, 0..2);
        assert_eq!(a.load_words(a.all()).collect::<Vec<_>>(), [0b0101, 0]);
    }

    #[test]
    fn impossible_allocation_is_none() {
        assert!(BitArray::zeroed(usize::MAX / 2).is_none());
    }
}
