//! # Layouts: where a key's bits go
//!
//! A key is hashed once to 64 bits. The layout turns that hash into the
//! positions of its `k` bits:
//!
//! - [`Layout::Standard`] spreads them over the whole array: each probe is a
//!   bit anywhere. Space-optimal, but a new key costs up to `k` cache misses.
//! - [`Layout::Blocked`] picks one 512-bit, cache-line-aligned block from the
//!   hash and puts all `k` bits in it: one cache miss per operation, for
//!   somewhat more bits at the same false-positive rate (the table of
//!   [`docs::layouts`](crate::docs::layouts)).
//! - [`Layout::Word`] picks one 64-bit word and puts all `k` bits in it: an
//!   insert is a single `fetch_or`, which makes it an atomic test-and-set
//!   (exactly one of several racing inserters of a new key gets `true`). The
//!   price is memory: 12 bits per key at 1%, 24 at 0.1%, 45 at 0.01%.
//! - [`Layout::Sectorized`] picks one block as `Blocked` does and, in it, one
//!   word from each half, and puts half of the `k` bits in each: an insert
//!   is two `fetch_or`s, a query two loads of one cache line, for 1.4% more
//!   memory than `Blocked` at 1% (the cache-sectorized blocked filter of
//!   Lang, Neumann, Kemper and Boncz, "Performance-Optimal Filtering: Bloom
//!   Overtakes Cuckoo at High Throughput", VLDB 2019, with two sectors).
//!
//! ## Deriving positions from one hash
//!
//! The word or block is `(h * count) >> 64` in 128-bit arithmetic (Lemire's
//! multiply-shift range reduction): no division, no bias worth measuring, and
//! correct for any count up to 2^64, so filters beyond 2^32 bits use all of
//! their bits. The bits inside it come from a splitmix64 stream seeded with
//! the hash: output `j` is `mix(h + (j+1) * GOLDEN)`, where `mix` is the
//! splitmix64 finalizer. A `Standard` probe reduces one output to a bit
//! position in the whole array; the `Blocked` layout cuts each output into
//! seven 9-bit offsets, the `Word` layout into ten 6-bit offsets, so a key's
//! `k` bits cost `k / 7` or `k / 10` mixes. The `Sectorized` layout cuts
//! 12-bit pairs of 6-bit offsets, one offset of each pair for the word it
//! picks in the block's first half and one for the word in its second half,
//! and picks those two words with the top four bits of output 0, which the
//! five pairs leave unused. A `Blocked` query tests the
//! offsets one by one (all in one cache line, so every load after the first
//! hits L1); only an insert that finds a bit missing goes over them again,
//! setting each bit with its own atomic OR (why, and what it costs:
//! [`docs::layouts`](crate::docs::layouts)).
//!
//! Plain double hashing (`h1 + i * h2`, which Kirsch and Mitzenmacher,
//! "Less Hashing, Same Performance", 2006, show keeps the rate of `k`
//! independent hashes asymptotically) is not fed straight into a
//! multiply-shift: its probes form an arithmetic progression, which the
//! reduction maps to evenly spaced positions, and on small filters that
//! structure raises the rate. The finalizer is nonlinear, which breaks
//! it; the false-positive tests in `tests/false_positive_rate.rs` check
//! the result against the model in `sizing.rs` for every layout.
//!
//! Probes are drawn with replacement: two probes of one key may hit the same
//! bit. The sizing model assumes exactly that, so the rate it promises is the
//! rate this code delivers.

use std::fmt;
use std::str::FromStr;

/// Where a key's bits go in the array; chosen when the filter is built.
///
/// Every layout has the same API and the same guarantees (no false
/// negatives, requested false-positive rate at the expected number of
/// items); they trade memory, speed and the meaning of `insert`'s result.
/// [`docs::layouts`](crate::docs::layouts) has a table of bits per key for
/// each.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Layout};
///
/// let urls = AtomicBloom::builder()
///     .capacity(10_000, 0.001)
///     .layout(Layout::Word)
///     .build()?;
/// assert!(urls.insert("https://example.com/")); // this thread claimed it
/// assert!(!urls.insert("https://example.com/")); // already claimed
/// assert_eq!(urls.layout(), Layout::Word);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Layout {
    /// `k` bits anywhere in the array: the least memory for a given rate, up
    /// to `k` cache misses per operation. Its false-positive rate is the
    /// textbook `(1 - e^(-kn/m))^k`.
    Standard = 0,
    /// All `k` bits in one 512-bit, 64-byte-aligned block: one cache line per
    /// operation. The default.
    #[default]
    Blocked = 1,
    /// All `k` bits in one 64-bit word: one atomic `fetch_or` per insert, so
    /// `insert` is an atomic test-and-set. Sensible for rates down to about
    /// 1e-3; below that its memory grows fast (45 bits per key at 1e-4).
    Word = 2,
    /// Half of the `k` bits in one word of a 512-bit block's first half,
    /// half in one word of its second half: two `fetch_or`s per insert, two
    /// loads per query, one cache line, for slightly more memory than
    /// `Blocked` (10.3 bits per key at 1% against 9.9).
    Sectorized = 3,
}

impl Layout {
    /// Every layout, in the order of their ids (the number a saved file
    /// records, which never changes: a new layout gets the next one).
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::ALL.len(), 4);
    /// ```
    pub const ALL: [Layout; 4] = [
        Layout::Standard,
        Layout::Blocked,
        Layout::Word,
        Layout::Sectorized,
    ];

    /// The layout's name, as [`Display`](fmt::Display) prints it and
    /// [`FromStr`] reads it (and the CLI's `--layout` takes it).
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::Word.name(), "word");
    /// assert_eq!("blocked".parse::<Layout>(), Ok(Layout::Blocked));
    /// assert!("fancy".parse::<Layout>().unwrap_err().to_string().contains("standard, blocked, word, sectorized"));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Standard => "standard",
            Layout::Blocked => "blocked",
            Layout::Word => "word",
            Layout::Sectorized => "sectorized",
        }
    }

    /// The id a saved file records for this layout.
    pub(crate) const fn id(self) -> u8 {
        self as u8
    }

    /// The layout a saved file's id names, if any.
    pub(crate) fn from_id(id: u8) -> Option<Layout> {
        Layout::ALL.get(usize::from(id)).copied()
    }

    /// Bits in the unit a key's bits are confined to: `None` for `Standard`
    /// (the whole array), 512 for `Blocked` and `Sectorized`, 64 for `Word`.
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::Blocked.block_bits(), Some(512));
    /// assert_eq!(Layout::Standard.block_bits(), None);
    /// ```
    pub const fn block_bits(self) -> Option<u64> {
        match self {
            Layout::Standard => None,
            Layout::Blocked | Layout::Sectorized => Some(512),
            Layout::Word => Some(64),
        }
    }

    /// The expected number of distinct bits one key sets with `k` hashes in
    /// an array of `num_bits`: its `k` draws with replacement from its
    /// block (the whole array for `Standard`), or from each of its two words
    /// for `Sectorized`.
    pub(crate) fn expected_distinct_bits(self, k: u32, num_bits: u64) -> f64 {
        // `B (1 - (1 - 1/B)^draws)`.
        let distinct =
            |block: f64, draws: u32| -(f64::from(draws) * (-1.0 / block).ln_1p()).exp_m1() * block;
        match self {
            Layout::Standard => distinct(num_bits as f64, k),
            Layout::Blocked => distinct(512.0, k),
            Layout::Word => distinct(64.0, k),
            Layout::Sectorized => distinct(64.0, k.div_ceil(2)) + distinct(64.0, k / 2),
        }
    }

    /// The granularity of the array's size in bits: sizes are rounded up to
    /// a multiple of this.
    pub(crate) const fn granule_bits(self) -> u64 {
        match self {
            Layout::Standard | Layout::Word => 64,
            Layout::Blocked | Layout::Sectorized => 512,
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a layout by its [`name`](Layout::name).
impl FromStr for Layout {
    type Err = ParseLayoutError;

    fn from_str(name: &str) -> Result<Layout, ParseLayoutError> {
        Layout::ALL
            .into_iter()
            .find(|layout| layout.name() == name)
            .ok_or_else(|| ParseLayoutError {
                name: name.to_string(),
            })
    }
}

/// A name that is no [`Layout`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLayoutError {
    name: String,
}

impl fmt::Display for ParseLayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown layout {:?}: expected one of ", self.name)?;
        for (i, layout) in Layout::ALL.into_iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{layout}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseLayoutError {}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 finalizer: a bijection on u64 whose every output bit
/// depends on every input bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Output `j` of the splitmix64 stream seeded with `hash`.
#[inline]
fn stream(hash: u64, j: u64) -> u64 {
    mix(hash.wrapping_add(j.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// Maps `hash` to `0..count` by 128-bit multiply-shift.
#[inline]
pub(crate) fn reduce(hash: u64, count: u64) -> u64 {
    ((u128::from(hash) * u128::from(count)) >> 64) as u64
}

/// Calls `f` with `num_hashes` (at least 1) offsets of `BITS` bits each,
/// cut from the stream seeded with `hash`: `64 / BITS` offsets per stream
/// output. Counted loops, so the common case (`k` offsets from one output)
/// compiles to a handful of shifts and masks per offset.
#[inline(always)]
pub(crate) fn for_each_offset<const BITS: u32>(hash: u64, num_hashes: u32, mut f: impl FnMut(u64)) {
    let per_output = 64 / BITS;
    let mut left = num_hashes;
    let mut j = 0;
    loop {
        let mut output = stream(hash, j);
        let n = left.min(per_output);
        for _ in 0..n {
            f(output & ((1 << BITS) - 1));
            output >>= BITS;
        }
        left -= n;
        if left == 0 {
            return;
        }
        j += 1;
    }
}

/// `Word` layout: the key's word.
#[inline]
pub(crate) fn word_index(hash: u64, num_words: u64) -> usize {
    reduce(hash, num_words) as usize
}

/// `Word` layout: the mask of the key's bits in its word.
#[inline]
pub(crate) fn word_mask(hash: u64, num_hashes: u32) -> u64 {
    let mut mask = 0u64;
    for_each_offset::<6>(hash, num_hashes, |bit| mask |= 1 << bit);
    mask
}

/// `Blocked` layout: the key's line.
#[inline]
pub(crate) fn block_line(hash: u64, num_lines: u64) -> usize {
    reduce(hash, num_lines) as usize
}

/// `Sectorized` layout: the key's two words in its block (one of words
/// `0..4`, one of `4..8`) and the mask of its bits in each. Offsets come in
/// 12-bit pairs, the low six bits for the first word and the high six for
/// the second (whose last pair's is unused when `k` is odd): five pairs per
/// stream output, whose top four bits pick the two words.
#[inline(always)]
pub(crate) fn sector_words(hash: u64, num_hashes: u32) -> [(usize, u64); 2] {
    const PAIRS_PER_OUTPUT: u32 = 5;
    let mut output = stream(hash, 0);
    let selector = output >> 60;
    let (mut first_mask, mut second_mask) = (0u64, 0u64);
    // The pairs `for_each_offset::<12>` would cut, cut here so that output
    // 0, which also gives the selector, is mixed once: `k / 2` whole pairs,
    // then the low half of one more if `k` is odd.
    let (mut j, mut left) = (0, PAIRS_PER_OUTPUT);
    let mut next_pair = || {
        if left == 0 {
            j += 1;
            output = stream(hash, j);
            left = PAIRS_PER_OUTPUT;
        }
        let pair = output;
        output >>= 12;
        left -= 1;
        pair
    };
    for _ in 0..num_hashes / 2 {
        let pair = next_pair();
        first_mask |= 1 << (pair & 63);
        second_mask |= 1 << ((pair >> 6) & 63);
    }
    if num_hashes % 2 == 1 {
        first_mask |= 1 << (next_pair() & 63);
    }
    [
        ((selector & 3) as usize, first_mask),
        (4 + (selector >> 2) as usize, second_mask),
    ]
}

/// `Standard` layout: probe `i`'s bit, as an index in the array.
#[inline]
pub(crate) fn standard_bit(hash: u64, i: u32, num_bits: u64) -> u64 {
    reduce(stream(hash, u64::from(i)), num_bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bit_array::WORDS_PER_LINE;

    /// `ALL` is in id order, and every layout's name reads back as it.
    #[test]
    fn ids_and_names_have_one_source() {
        for (i, layout) in Layout::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(layout.id()), i);
            assert_eq!(Layout::from_id(layout.id()), Some(layout));
            assert_eq!(layout.to_string().parse(), Ok(layout));
        }
        assert_eq!(Layout::from_id(Layout::ALL.len() as u8), None);
    }

    #[test]
    fn reduce_covers_ranges_beyond_32_bits() {
        let count = (1u64 << 40) + 12345;
        assert_eq!(reduce(0, count), 0);
        assert_eq!(reduce(u64::MAX, count), count - 1);
        assert!(reduce(u64::MAX / 2, count) > 1 << 38);
    }

    #[test]
    fn word_probe_sets_at_most_k_bits() {
        for h in 0..1000u64 {
            let h = h.wrapping_mul(GOLDEN);
            let (index, mask) = (word_index(h, 100), word_mask(h, 7));
            assert!(index < 100);
            assert!((1..=7).contains(&mask.count_ones()));
        }
    }

    #[test]
    fn block_probe_uses_all_eight_words() {
        let mut used = [0u32; WORDS_PER_LINE];
        for h in 0..1000u64 {
            assert!(block_line(mix(h), 3) < 3);
            let mut offsets = 0;
            for_each_offset::<9>(mix(h), 9, |bit| {
                assert!(bit < 512);
                used[(bit / 64) as usize] += 1;
                offsets += 1;
            });
            assert_eq!(offsets, 9);
        }
        // 9000 bits over 8 words: each gets about 1125.
        assert!(used.iter().all(|&n| (1000..1250).contains(&n)), "{used:?}");
    }

    #[test]
    fn sectorized_probe_splits_k_over_one_word_of_each_half() {
        let mut first_half = [0u32; 4];
        let mut second_half = [0u32; 4];
        for h in 0..4000u64 {
            let k = 1 + (h % 12) as u32;
            let [(a, mask_a), (b, mask_b)] = sector_words(mix(h), k);
            assert!(a < 4 && (4..8).contains(&b), "{a} {b}");
            assert!((1..=k.div_ceil(2)).contains(&mask_a.count_ones()));
            assert!(mask_b.count_ones() <= k / 2);
            assert_eq!(mask_b == 0, k == 1);
            first_half[a] += 1;
            second_half[b - 4] += 1;
        }
        // 4000 keys over 4 words: each gets about 1000.
        for used in [first_half, second_half] {
            assert!(used.iter().all(|&n| (880..1120).contains(&n)), "{used:?}");
        }
    }

    #[test]
    fn standard_probes_reach_the_top_of_a_huge_array() {
        let num_bits = 1u64 << 36;
        let top = (0..10_000u64)
            .map(|h| standard_bit(mix(h), 0, num_bits) / 64)
            .max()
            .unwrap();
        assert!(top > (num_bits / 64) * 99 / 100);
    }
}
