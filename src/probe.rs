//! # Probes: one key's bits, and the operations on them
//!
//! A [`Probe`] is where one key's bits are in one filter: computed from the
//! key's hash and the filter's [`Sizing`], by the position math of
//! `layout.rs`. This file is the only place that turns a layout into
//! operations on the bit array: testing the key's bits
//! ([`contains`](Probe::contains)), setting them ([`insert`](Probe::insert)),
//! and asking the CPU for the cache lines they live in
//! ([`prefetch`](Probe::prefetch)). The per-key calls, the batch pipeline
//! and the parallel paths all go through it, so a batch prefetches exactly
//! the lines its operation then touches (`batch.rs`:
//! `batches_prefetch_the_lines_inserts_touch`).
//!
//! Each layout has a probe type of its own, and [`with_probe!`] is the one
//! `match` from a [`Layout`] to it. A caller writes its code once, generic
//! over the probe type, and the macro instantiates it per layout: a batch
//! picks its layout once (with [`with_sized_probe!`], which for `Blocked`
//! at the default rate picks `k` too), and its loop over keys has no branch
//! on either.
//!
//! ## Test before set
//!
//! Every insert loads the key's words first and writes only if a bit is
//! missing. A key that is already present therefore writes nothing: its
//! cache lines stay shared between cores instead of bouncing between them
//! in the exclusive state a locked read-modify-write needs. A key with a bit
//! missing is then written one bit per read-modify-write (every bit of the
//! key: for `Blocked` the line is exclusive after the first; a loop over
//! only the missing bits mispredicts its exit, `BitArray::set_bits` has
//! the figures), each a single `lock or` on x86-64, or one
//! read-modify-write per word (`Word`: one; `Sectorized`: two). The
//! insert reports what its test found, so no write's old value is used
//! except `Word`'s, which makes its one `fetch_or` a test-and-set; the
//! [`docs::layouts`](crate::docs::layouts) chapter has the measurements
//! behind this.

use crate::bit_array::{BitArray, WORDS_PER_LINE};
use crate::hints::Access;
#[cfg(test)]
use crate::layout::Layout;
use crate::layout::{
    block_line, for_each_offset, sector_words, standard_bit, word_index, word_mask,
};
use crate::sizing::Sizing;

/// Runs `$body` with `$P` naming the probe type of `$layout`: the one
/// place a layout is mapped to its probe type (which
/// [`with_sized_probe!`] narrows by `k` for `Blocked`).
///
/// The choice is two tests of the layout's id, not a `match`: LLVM lowers a
/// `match` of four layouts to a jump table, an indirect jump per key, which
/// slowed `Blocked` inserts of new keys at 100M keys (compare a build with
/// `-C llvm-args=-min-jump-table-entries=8` under `cargo run --release -p
/// atomic-bloom-harness -- bench`). Tests of two bits stay direct branches;
/// `probe.rs`'s test `with_probe_maps_every_layout` checks the mapping.
macro_rules! with_probe {
    ($layout:expr, $P:ident => $body:expr) => {{
        let layout: $crate::layout::Layout = $layout;
        let id = layout.id();
        // Ids: Standard 0, Blocked 1, Word 2, Sectorized 3.
        if id & 1 == 1 {
            if id & 2 == 0 {
                type $P = $crate::probe::BlockedProbe;
                $body
            } else {
                type $P = $crate::probe::SectorizedProbe;
                $body
            }
        } else if id & 2 == 0 {
            type $P = $crate::probe::StandardProbe;
            $body
        } else {
            type $P = $crate::probe::WordProbe;
            $body
        }
    }};
}
pub(crate) use with_probe;

/// Runs `$body` with `$P` naming the probe type of a filter of sizing
/// `$sizing`: [`with_probe!`]'s, except that for `Blocked` with `k` one of
/// [`DEFAULT_RATE_KS`] it is a probe whose `k` is that constant, so that
/// nothing asks which `k` it is per key. For code that chooses once for
/// many keys (the batches), or whose calls cost far more than the choice
/// (the counting filter's, each a loop of compare-and-swaps).
///
/// In a batch loop, `with_probe!`'s probe asking per key costs more than
/// its two compares: with `k` a constant LLVM compiles the loop without
/// the other `k`'s code in it, fewer instructions for each key of every
/// batch call. The plain filter's per-key calls keep `with_probe!`:
/// inlined into a caller's loop, a per-key call made by this macro takes
/// more, the other `k`'s code and all. `examples/insert_loop.rs` and
/// `examples/query_loop.rs` say how to count them (BENCHMARKS.md has the
/// counts).
macro_rules! with_sized_probe {
    ($sizing:expr, $P:ident => $body:expr) => {{
        let sizing: $crate::sizing::Sizing = $sizing;
        let (layout, k) = (sizing.layout(), sizing.num_hashes());
        const KS: [u32; 2] = $crate::probe::DEFAULT_RATE_KS;
        if layout == $crate::layout::Layout::Blocked && k == KS[0] {
            type $P = $crate::probe::BlockedProbe<{ KS[0] }>;
            $body
        } else if layout == $crate::layout::Layout::Blocked && k == KS[1] {
            type $P = $crate::probe::BlockedProbe<{ KS[1] }>;
            $body
        } else {
            $crate::probe::with_probe!(layout, $P => $body)
        }
    }};
}
pub(crate) use with_sized_probe;

/// Where one key's bits are in one filter, for one layout.
pub(crate) trait Probe: Copy {
    /// The layout this probe is for.
    #[cfg(test)]
    const LAYOUT: Layout;
    /// `k` where the probe type fixes it, 0 where it asks the sizing.
    #[cfg(test)]
    const CONSTANT_K: u32 = 0;
    /// The probe of the key with 64-bit hash `hash` in a filter of `sizing`
    /// (whose layout is this probe's).
    fn new(sizing: &Sizing, hash: u64) -> Self;
    /// Whether every one of the key's bits is set.
    fn contains(&self, bits: &BitArray) -> bool;
    /// Sets the key's bits unless all are set; returns whether one was
    /// missing (`docs::memory_ordering`, G4).
    fn insert(&self, bits: &BitArray) -> bool;
    /// Asks the CPU to start fetching every line the key's bits are in.
    fn prefetch(&self, bits: &BitArray, access: Access);
    /// Calls `f` with the index of each of the key's bits in the whole
    /// array (`0..m`; a bit two probes share may come twice): what the
    /// counting filter keeps a counter for. Every layout's is always
    /// inlined: called, it costs every counting insert and query a call
    /// and the spills around it.
    fn bits(&self, f: impl FnMut(u64));
}

/// `Standard`: `k` bits anywhere, re-derived from the hash when used
/// (keeping `k` positions would make the probe 64 words long).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StandardProbe {
    hash: u64,
    num_bits: u64,
    k: u32,
}

impl Probe for StandardProbe {
    #[cfg(test)]
    const LAYOUT: Layout = Layout::Standard;

    #[inline(always)]
    fn new(sizing: &Sizing, hash: u64) -> Self {
        StandardProbe {
            hash,
            num_bits: sizing.num_bits(),
            k: sizing.num_hashes(),
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        let StandardProbe { hash, num_bits, k } = *self;
        bits.test_bits((0..k).map(|i| standard_bit(hash, i, num_bits)))
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        set_standard(bits, self.hash, self.num_bits, self.k)
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        for i in 0..self.k {
            let bit = standard_bit(self.hash, i, self.num_bits);
            bits.prefetch_word((bit / 64) as usize, access);
        }
    }

    #[inline(always)]
    fn bits(&self, mut f: impl FnMut(u64)) {
        for i in 0..self.k {
            f(standard_bit(self.hash, i, self.num_bits));
        }
    }
}

/// The numbers of bits per key that `Blocked` sizing gives at
/// [`DEFAULT_FALSE_POSITIVE_RATE`](crate::DEFAULT_FALSE_POSITIVE_RATE): 7
/// below about 2,000 keys, 5 from about 10,000 on (the test
/// `default_rate_ks_are_the_constant_ones` checks ten keys to ten
/// billion), and 5 or 6 in between as sizes round to whole blocks; 6
/// runs the loop below.
///
/// A `Blocked` probe tests and sets a key's bits with `k` as a constant
/// where it is one of these, and LLVM compiles them as a straight line of
/// loads and shifts. With `k` known only at run time, the unrolled loop
/// tests after each bit whether it is over: a compare and branch per bit
/// and the loop's bookkeeping, a sixth of a query's instructions. That
/// matters beyond the instructions themselves, because a key whose line is
/// not in cache overlaps its miss only with the keys behind it in the
/// core's window, and a shorter key leaves room for more of them.
///
/// Constant `k` speeds up new-key inserts and queries of present keys,
/// most at 100M keys, where a shorter key leaves room for more misses in
/// flight (`cargo run --release -p atomic-bloom-harness -- bench`; the runs
/// are in BENCHMARKS.md). The insert of a present key pays a little for
/// it: LLVM keeps the bit offsets the test computed for the sets that
/// follow, and stores some of them to the stack before the test's branch.
/// Letting the sets recompute them instead (behind an optimisation
/// barrier) won back duplicates but cost new keys more, on AMD and Intel
/// alike, and the new-key insert is the call services make most: so the
/// sets keep the test's offsets. Any other `k` runs the loop. A `match` of
/// every `k` up to 16 (a jump table) kept the insert's gain but lost the
/// query's: LLVM merged the copies' common tails and spilled registers.
pub(crate) const DEFAULT_RATE_KS: [u32; 2] = [5, 7];

/// `Blocked`: `k` bits in line `line`, their offsets re-derived from the
/// hash. `K` is `k` where [`with_sized_probe!`] made it a constant, and 0
/// where `k` is asked per call (the `k` field).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockedProbe<const K: u32 = 0> {
    line: usize,
    hash: u64,
    k: u32,
}

impl<const K: u32> BlockedProbe<K> {
    /// `k`: the constant `K`, or the sizing's where `K` is 0.
    #[inline(always)]
    fn k(&self) -> u32 {
        if K == 0 { self.k } else { K }
    }
}

impl<const K: u32> Probe for BlockedProbe<K> {
    #[cfg(test)]
    const LAYOUT: Layout = Layout::Blocked;
    #[cfg(test)]
    const CONSTANT_K: u32 = K;

    #[inline(always)]
    fn new(sizing: &Sizing, hash: u64) -> Self {
        debug_assert!(K == 0 || K == sizing.num_hashes());
        let num_lines = sizing.num_bits() / 64 / WORDS_PER_LINE as u64;
        BlockedProbe {
            line: block_line(hash, num_lines),
            hash,
            k: sizing.num_hashes(),
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        // `k` as a constant where it is one of `DEFAULT_RATE_KS` (where `K`
        // is one, the match is decided at compile time).
        let (line, hash) = (self.line, self.hash);
        match self.k() {
            k if k == DEFAULT_RATE_KS[0] => block_contains(bits, line, hash, DEFAULT_RATE_KS[0]),
            k if k == DEFAULT_RATE_KS[1] => block_contains(bits, line, hash, DEFAULT_RATE_KS[1]),
            k => block_contains(bits, line, hash, k),
        }
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        // `k` as a constant, as in `contains` (`DEFAULT_RATE_KS` says what
        // that costs a duplicate).
        let (line, hash) = (self.line, self.hash);
        match self.k() {
            k if k == DEFAULT_RATE_KS[0] => block_insert(bits, line, hash, DEFAULT_RATE_KS[0]),
            k if k == DEFAULT_RATE_KS[1] => block_insert(bits, line, hash, DEFAULT_RATE_KS[1]),
            k => block_insert(bits, line, hash, k),
        }
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        bits.prefetch_line(self.line, access);
    }

    #[inline(always)]
    fn bits(&self, mut f: impl FnMut(u64)) {
        let first = self.line as u64 * LINE_BITS;
        for_each_offset::<9>(self.hash, self.k(), |bit| f(first + bit));
    }
}

/// `Word`: `k` bits in word `word`, their mask re-derived from the hash
/// (so that a probe made only to prefetch costs one multiply).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WordProbe {
    word: usize,
    hash: u64,
    k: u32,
}

impl Probe for WordProbe {
    #[cfg(test)]
    const LAYOUT: Layout = Layout::Word;

    #[inline(always)]
    fn new(sizing: &Sizing, hash: u64) -> Self {
        WordProbe {
            word: word_index(hash, sizing.num_bits() / 64),
            hash,
            k: sizing.num_hashes(),
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        bits.test_word(self.word, word_mask(self.hash, self.k))
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        bits.set_word(self.word, word_mask(self.hash, self.k))
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        bits.prefetch_word(self.word, access);
    }

    #[inline(always)]
    fn bits(&self, f: impl FnMut(u64)) {
        for_each_bit(self.word, word_mask(self.hash, self.k), f);
    }
}

/// `Sectorized`: `k` bits in two words of line `line`, their masks
/// computed up front (two words, so the probe stays small).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SectorizedProbe {
    line: usize,
    words: [(usize, u64); 2],
}

impl Probe for SectorizedProbe {
    #[cfg(test)]
    const LAYOUT: Layout = Layout::Sectorized;

    #[inline(always)]
    fn new(sizing: &Sizing, hash: u64) -> Self {
        let num_lines = sizing.num_bits() / 64 / WORDS_PER_LINE as u64;
        let line = block_line(hash, num_lines);
        let words = sector_words(hash, sizing.num_hashes())
            .map(|(word, mask)| (line * WORDS_PER_LINE + word, mask));
        SectorizedProbe { line, words }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        let [(a, mask_a), (b, mask_b)] = self.words;
        // Both loads, no early exit: they are in one line.
        bits.test_word(a, mask_a) & bits.test_word(b, mask_b)
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        // Test before set, as `Blocked` does; then one `fetch_or` per word,
        // both words whatever the test found in each (a branch per word
        // would mispredict), and the test's result is the insert's.
        let [(a, mask_a), (b, mask_b)] = self.words;
        let missing = !self.contains(bits);
        if missing {
            bits.or_word(a, mask_a);
            bits.or_word(b, mask_b);
        }
        missing
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        bits.prefetch_line(self.line, access);
    }

    #[inline(always)]
    fn bits(&self, mut f: impl FnMut(u64)) {
        for (word, mask) in self.words {
            for_each_bit(word, mask, &mut f);
        }
    }
}

/// Bits in one line.
const LINE_BITS: u64 = 64 * WORDS_PER_LINE as u64;

/// Calls `f` with the array index of each bit of `mask` in word `word`.
fn for_each_bit(word: usize, mut mask: u64, mut f: impl FnMut(u64)) {
    while mask != 0 {
        f(word as u64 * 64 + u64::from(mask.trailing_zeros()));
        mask &= mask - 1;
    }
}

/// Whether all of `hash`'s `k` bits are set in `line` (`Blocked`).
#[inline(always)]
fn block_contains(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let mut line = bits.line_reader(line);
    for_each_offset::<9>(hash, k, |bit| line.test(bit));
    line.all_set()
}

/// The `Blocked` insert. Test before set: a key that is present (a
/// duplicate) costs about what a query costs and writes nothing; a key
/// with a bit missing has all its bits set, and the test's result is the
/// insert's.
#[inline(always)]
fn block_insert(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let missing = !block_contains(bits, line, hash, k);
    if missing {
        set_block(bits, line, hash, k);
    }
    missing
}

/// The `Blocked` insert of a key with a bit missing.
///
/// Always inlined. The paths that do not reach it (a query, a duplicate
/// insert) are forced inline themselves (`AtomicBloom::insert_hash`), so a
/// call here would only cost the inserts that do reach it: every new key.
#[inline(always)]
fn set_block(bits: &BitArray, line: usize, hash: u64, k: u32) {
    let line = bits.line_writer(line);
    for_each_offset::<9>(hash, k, |bit| line.set(bit));
}

/// The `Standard` insert of a key with a bit missing: out of line, which
/// keeps the inlined per-key calls smaller; inlining it measured no faster
/// (`cargo run --release -p atomic-bloom-harness -- bench`).
#[inline(never)]
fn set_standard(bits: &BitArray, hash: u64, num_bits: u64, k: u32) -> bool {
    bits.set_bits(k, |i| standard_bit(hash, i, num_bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers of bits per key the tests try: one, the two that `Blocked`
    /// compiles as constants (`DEFAULT_RATE_KS`), one between them that it
    /// does not, one above, and both sides of the 16 that a `Standard`
    /// insert keeps from its test for its sets (`BitArray::set_bits`), up
    /// to the most a filter may have.
    const KS: [u32; 8] = [1, 5, 6, 7, 9, 16, 17, crate::sizing::MAX_HASHES];

    /// A 4096-bit sizing of every layout with each of `KS`, with its layout
    /// and `k` for the tests' messages.
    fn small_sizings() -> impl Iterator<Item = (Layout, u32, Sizing)> {
        Layout::ALL
            .into_iter()
            .flat_map(|layout| KS.map(|k| (layout, k, Sizing::for_bits(layout, 4096, k).unwrap())))
    }

    /// The hash the tests give key `key`.
    fn hash_of(key: u64) -> u64 {
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key
    }

    /// Runs `$body` with `$probe` the probe of each key `0..200` in a
    /// 4096-bit filter of every layout and each of `KS`, which `$layout`,
    /// `$k` and `$key` name for the body's messages: once with the probe
    /// type `with_probe!` picks and once with `with_sized_probe!`'s (for
    /// `Blocked` at 5 and 7, a probe whose `k` is a constant).
    macro_rules! for_each_probe {
        (|$layout:ident, $k:ident, $key:ident, $probe:ident| $body:block) => {
            for ($layout, $k, sizing) in small_sizings() {
                for $key in 0..200u64 {
                    with_probe!($layout, P => {
                        let $probe = P::new(&sizing, hash_of($key));
                        $body
                    });
                    with_sized_probe!(sizing, P => {
                        let $probe = P::new(&sizing, hash_of($key));
                        $body
                    });
                }
            }
        };
    }

    /// The numbers of bits per key that `Blocked` compiles as constants are
    /// the ones its sizing gives at the default false-positive rate, from
    /// ten keys to ten billion.
    #[test]
    fn default_rate_ks_are_the_constant_ones() {
        for exponent in 1..=10 {
            let Ok(items) = usize::try_from(10u64.pow(exponent)) else {
                continue;
            };
            let sizing = Sizing::for_rate(
                Layout::Blocked,
                items,
                crate::filter::DEFAULT_FALSE_POSITIVE_RATE,
            )
            .unwrap();
            let k = sizing.num_hashes();
            assert!(DEFAULT_RATE_KS.contains(&k), "{items} keys: k = {k}");
        }
    }

    /// A probe finds a key exactly when every one of its bits is set: with
    /// all of them set, and with each one missing, in every layout. Its
    /// insert then reports the key new exactly when a bit was missing.
    #[test]
    fn contains_needs_every_bit() {
        for_each_probe!(|layout, k, key, probe| {
            let mut bits = Vec::new();
            probe.bits(|bit| bits.push(bit));
            bits.sort_unstable();
            bits.dedup();
            for missing in std::iter::once(None).chain(bits.iter().copied().map(Some)) {
                let mut words = vec![0u64; 64];
                for &bit in bits.iter().filter(|&&bit| Some(bit) != missing) {
                    words[(bit / 64) as usize] |= 1 << (bit % 64);
                }
                let mut array = BitArray::zeroed(64).unwrap();
                array.fill(0, words.into_iter());
                assert_eq!(
                    probe.contains(&array),
                    missing.is_none(),
                    "{layout}, k = {k}, key {key}, bit {missing:?} missing"
                );
                // An insert reports what the query would have: new exactly
                // when a bit was missing (G4 on one thread), then has it.
                assert_eq!(
                    probe.insert(&array),
                    missing.is_some(),
                    "{layout}, k = {k}, key {key}, bit {missing:?} missing: insert's result"
                );
                assert!(probe.contains(&array), "{layout}, k = {k}, key {key}");
            }
        });
    }

    /// A key's bits, as `bits` lists them, are exactly the bits its insert
    /// sets in an empty array, in every layout.
    #[test]
    fn bits_lists_what_an_insert_sets() {
        for_each_probe!(|layout, k, key, probe| {
            let array = BitArray::zeroed(64).unwrap();
            probe.insert(&array);
            let mut listed = vec![0u64; 64];
            probe.bits(|bit| listed[(bit / 64) as usize] |= 1 << (bit % 64));
            let set: Vec<u64> = array.load_words(array.all()).collect();
            assert_eq!(listed, set, "{layout}, k = {k}, key {key}");
        });
    }

    /// An insert of a key that is present issues no read-modify-write (its
    /// cache lines stay shared), in every layout; the insert that added it
    /// issued at least one, so the count would show a write.
    #[test]
    #[cfg(not(loom))] // The count is kept outside loom's model.
    fn inserting_a_present_key_writes_nothing() {
        use crate::bit_array::READ_MODIFY_WRITES;
        let writes = || READ_MODIFY_WRITES.with(|count| count.get());
        for layout in Layout::ALL {
            for k in KS {
                let sizing = Sizing::for_bits(layout, 1 << 16, k).unwrap();
                let array = BitArray::zeroed(1 << 10).unwrap();
                for key in 0..500u64 {
                    with_probe!(layout, P => {
                        let probe = P::new(&sizing, hash_of(key));
                        let before = writes();
                        if probe.insert(&array) {
                            assert!(writes() > before, "{layout}, k = {k}, key {key}: a new key wrote nothing");
                        }
                        let before = writes();
                        assert!(!probe.insert(&array), "{layout}, k = {k}, key {key}");
                        assert_eq!(writes(), before, "{layout}, k = {k}, key {key}: a present key wrote");
                    });
                }
            }
        }
    }

    /// `with_probe!` picks each layout's own probe type (it tests bits of
    /// the id, so a new layout must be added there too).
    #[test]
    fn with_probe_maps_every_layout() {
        for layout in Layout::ALL {
            assert_eq!(with_probe!(layout, P => P::LAYOUT), layout);
        }
    }

    /// The probe `with_sized_probe!` picks sets and finds exactly the bits
    /// `with_probe!`'s does, for every layout and `k`: a probe whose `k` is
    /// a constant is the same probe.
    #[test]
    fn sized_probes_set_the_bits_layout_probes_set() {
        for (layout, k, sizing) in small_sizings() {
            let (by_layout, by_sizing) =
                (BitArray::zeroed(64).unwrap(), BitArray::zeroed(64).unwrap());
            for key in 0..200u64 {
                let new =
                    with_probe!(layout, P => P::new(&sizing, hash_of(key)).insert(&by_layout));
                let sized_new = with_sized_probe!(sizing, P => P::new(&sizing, hash_of(key)).insert(&by_sizing));
                assert_eq!(new, sized_new, "{layout}, k = {k}, key {key}");
            }
            assert!(
                by_layout
                    .load_words(by_layout.all())
                    .eq(by_sizing.load_words(by_sizing.all())),
                "{layout}, k = {k}"
            );
        }
    }

    /// `with_sized_probe!` picks the layout's probe type, and for `Blocked`
    /// one whose `k` is a constant exactly where `k` is one of
    /// `DEFAULT_RATE_KS`.
    #[test]
    fn with_sized_probe_maps_every_sizing() {
        for (layout, k, sizing) in small_sizings() {
            let (mapped, constant_k) = with_sized_probe!(sizing, P => (P::LAYOUT, P::CONSTANT_K));
            assert_eq!(mapped, layout, "k = {k}");
            let constant = layout == Layout::Blocked && DEFAULT_RATE_KS.contains(&k);
            assert_eq!(
                constant_k,
                if constant { k } else { 0 },
                "{layout}, k = {k}"
            );
        }
    }
}
