//! # `SplitBlock`: one bit in each 32-bit lane of a 256-bit block
//!
//! The split block Bloom filter of Apache Parquet's specification
//! (parquet-format, `BloomFilter.md`; Boost.Bloom's `fast_multiblock32<8>`
//! is the same idea). The array is a run of 256-bit blocks, each eight
//! 32-bit lanes; a key picks one block and sets exactly one bit in each
//! lane, so `k` is always 8. A key's bit in lane `i` is the top five bits
//! of the low half of its hash times the lane's odd salt: eight multiplies
//! and shifts, which need no stream of hashes, no loop and no branch. LLVM
//! compiles them to a few vector instructions where the target has them
//! (a 32-bit lane multiply, `pmulld`, is SSE4.1), and to eight scalar
//! multiplies elsewhere.
//!
//! A query loads the block's four words (one cache line) and tests them
//! against the key's four masks, without an early exit; an insert tests
//! each word and ORs the key's mask into each that lacks a bit of it, one
//! `fetch_or` per such word. The positions are Parquet's exactly, given the
//! hash: the block is `((h >> 32) * blocks) >> 32`, lane `i`'s bit is
//! `(lo32(h) * SALT[i]) >> 27`, and lane `i` is the `i`th little-endian
//! 32-bit word of the block, which is how this crate's words save (the test
//! `parquet_writers_bits_for_the_same_hashes` checks a filter that
//! parquet-mr wrote). Parquet hashes a value with XXH64 (seed 0) of its
//! plain encoding, this crate with its own hasher, so the same keys give
//! the same bits only through the same 64-bit hashes.
//!
//! Taking the block from the hash's high 32 bits caps a filter at 2^32
//! blocks ([`MAX_SPLIT_BLOCK_BITS`], 128 GiB).
//!
//! ## The rate
//!
//! A block holds `i ~ Poisson(λ)` keys, `λ = 256 n / m`. Each lane of it
//! has its bits from `i` draws with replacement out of 32, so an absent
//! key's bit there is set with probability `q_i = 1 - (31/32)^i`, and its
//! eight lanes, whose bits come from eight different salts, are taken as
//! independent: the key is a false positive with probability `q_i^8`. One
//! more case: an absent key whose low 32 hash bits equal an inserted key's
//! in its block has all that key's bits, with probability `1 - (1 -
//! 2^-32)^i`; at rates near 1e-9 this term matters. The rate is
//! `Σ_i P(i) (q_i^8 + (1 - q_i^8)(1 - (1 - 2^-32)^i))`, which
//! `tests/all/false_positive_rate.rs` checks against measured rates.

#[cfg(test)]
use super::Placement;
use super::block_model::{BlockModel, mean, poisson_mix};
use super::positions::for_each_bit;
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::BitArray;

/// Bits in one block: eight 32-bit lanes.
pub(crate) const BLOCK_BITS: u64 = 256;

/// Words in one block.
const BLOCK_WORDS: usize = 4;

/// Bits a key sets, one per lane: `k` for this layout, always.
pub(crate) const SPLIT_BLOCK_HASHES: u32 = 8;

/// The most bits a `SplitBlock` filter may have: 2^32 blocks, as many as
/// the high 32 bits of a hash can pick.
pub(crate) const MAX_SPLIT_BLOCK_BITS: u64 = BLOCK_BITS << 32;

/// The odd constants that pick each lane's bit, from the Parquet
/// specification (`BloomFilter.md`, "Technical Approach").
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The probe: the block's first word and the hash's low half, from which
/// the masks are re-derived (so that a probe made only to prefetch costs
/// one multiply).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitBlockProbe {
    first_word: usize,
    low: u32,
}

/// The key's bit in each lane, as four word masks: lanes `2j` (low half)
/// and `2j + 1` (high half) make word `j`. Written lane by lane so that
/// LLVM can do the eight multiplies and shifts as vector operations.
#[inline(always)]
fn block_masks(low: u32) -> [u64; BLOCK_WORDS] {
    let lanes: [u32; 8] = SALT.map(|salt| 1 << (low.wrapping_mul(salt) >> 27));
    std::array::from_fn(|j| u64::from(lanes[2 * j]) | u64::from(lanes[2 * j + 1]) << 32)
}

/// Whether the block at `first_word` has every bit of the key whose hash
/// has low half `low`: all four words tested, no early exit (they are in
/// one line, and a branch per word would mispredict).
///
/// Compiled twice, and the CPU's features pick one at run time (through
/// `multiversion`'s direct dispatch: a cached flag and a direct call):
/// with AVX2, LLVM does the eight multiplies and shifts as one vector
/// each (`vpmulld`, `vpsrld`, `vpsllvd`); without it, in scalar
/// instructions. Where the build's target already has AVX2 (`-C
/// target-cpu=x86-64-v3` or `native`), there is no dispatch and the test
/// is inlined. The test `dispatched_and_scalar_tests_agree` checks the
/// version this CPU runs against the scalar code.
#[multiversion::multiversion(targets("x86_64+avx2"), dispatcher = "direct")]
fn block_has(bits: &BitArray, first_word: usize, low: u32) -> bool {
    bits.test_words(first_word, block_masks(low))
}

/// The key's block among `num_blocks` (at most 2^32): Parquet's
/// multiply-shift of the hash's high half.
#[inline(always)]
fn block_index(hash: u64, num_blocks: u64) -> u64 {
    debug_assert!(num_blocks <= 1 << 32);
    ((hash >> 32) * num_blocks) >> 32
}

impl Probe for SplitBlockProbe {
    const NAME: &'static str = "split-block";
    const BLOCK_BITS: Option<u64> = Some(BLOCK_BITS);
    const GRANULE_BITS: u64 = BLOCK_BITS;
    const FIXED_K: Option<u32> = Some(SPLIT_BLOCK_HASHES);
    const MAX_BITS: u64 = MAX_SPLIT_BLOCK_BITS;
    const UNREACHABLE_HINT: &'static str =
        "use the blocked or standard layout, fewer items, or a higher rate";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::SplitBlock;
    #[cfg(test)]
    const CONSTANT_K: u32 = SPLIT_BLOCK_HASHES;
    const MODEL_BLOCK_BITS: u64 = 0;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        debug_assert_eq!(k, SPLIT_BLOCK_HASHES);
        let block = block_index(hash, num_bits / BLOCK_BITS);
        SplitBlockProbe {
            first_word: block as usize * BLOCK_WORDS,
            low: hash as u32,
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        block_has(bits, self.first_word, self.low)
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        // Test before set (the probe chapter), word by word: a word that
        // already has both of the key's bits in it is not written. In a
        // filter filling up, a quarter or more of a new key's words are
        // complete, and each write skipped is a locked instruction saved:
        // per-key inserts of new keys ran faster in cache than with a
        // whole-block test and four unconditional `fetch_or`s, and level
        // out of it (`cargo run --release -p atomic-bloom-harness --
        // bench`, the `SplitBlock` rows). RocksDB's concurrent insert
        // (`DynamicBloom::AddConcurrently`) tests its words the same way.
        let masks = block_masks(self.low);
        let mut any = false;
        for (j, mask) in masks.into_iter().enumerate() {
            if !bits.test_word(self.first_word + j, mask) {
                bits.or_word(self.first_word + j, mask);
                any = true;
            }
        }
        any
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        // A block is half of a line, never across two.
        bits.prefetch_word(self.first_word, access);
    }

    #[inline(always)]
    fn bits(&self, mut f: impl FnMut(u64)) {
        for (j, mask) in block_masks(self.low).into_iter().enumerate() {
            for_each_bit(self.first_word + j, mask, &mut f);
        }
    }

    fn model_rate(_: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64 {
        debug_assert_eq!(k, SPLIT_BLOCK_HASHES);
        let load = BLOCK_BITS as f64 * items / num_bits as f64;
        poisson_mix(load, usize::MAX, rate_of_keys)
    }

    fn distinct_bits(_: u32, _: u64) -> f64 {
        f64::from(SPLIT_BLOCK_HASHES)
    }

    fn rate_of_words(_: u64, _: u32, words: impl Iterator<Item = u64>) -> f64 {
        let mut words = words.peekable();
        let blocks = std::iter::from_fn(move || {
            words.peek()?;
            Some(std::array::from_fn::<u64, BLOCK_WORDS, _>(|_| {
                words.next().unwrap_or(0)
            }))
        });
        mean(blocks.map(|block| {
            block
                .iter()
                .flat_map(|&word| [word as u32, (word >> 32) as u32])
                .map(|lane| f64::from(lane.count_ones()) / 32.0)
                .product()
        }))
    }
}

/// The rate of a block holding `keys` keys (the module's docs).
fn rate_of_keys(keys: usize) -> f64 {
    let keys = keys as f64;
    let lanes = (-(keys * (-1.0f64 / 32.0).ln_1p()).exp_m1()).powi(SPLIT_BLOCK_HASHES as i32);
    let same_low_half = -(keys * (-(2f64.powi(-32))).ln_1p()).exp_m1();
    lanes + (1.0 - lanes) * same_low_half
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key sets exactly one bit in each lane of one block.
    #[test]
    fn one_bit_in_each_lane_of_one_block() {
        for key in 0..1000u64 {
            let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let probe = SplitBlockProbe::new(BLOCK_BITS * 3, SPLIT_BLOCK_HASHES, hash);
            assert!(probe.first_word < 3 * BLOCK_WORDS && probe.first_word % BLOCK_WORDS == 0);
            for mask in block_masks(probe.low) {
                assert_eq!((mask as u32).count_ones(), 1);
                assert_eq!(((mask >> 32) as u32).count_ones(), 1);
            }
        }
    }

    /// The block comes from the hash's high half alone, in order: the
    /// lowest high halves pick block 0, the highest the last block, even
    /// with 2^32 blocks.
    #[test]
    fn the_high_half_picks_the_block() {
        assert_eq!(block_index(u64::from(u32::MAX), 7), 0);
        assert_eq!(block_index(u64::MAX, 7), 6);
        assert_eq!(block_index(u64::MAX, 1 << 32), (1 << 32) - 1);
        assert_eq!(block_index(5 << 32, 1 << 32), 5);
    }

    /// Each lane's bit is the top five bits of the low half times its
    /// salt, spelled out for one hash: lane 0 of low half 1 is bit
    /// `0x47b6137b >> 27 = 8`.
    #[test]
    fn lane_bits_are_the_salted_products() {
        assert_eq!(block_masks(1)[0] as u32, 1 << 8);
        assert_eq!(
            (block_masks(1)[3] >> 32) as u32,
            1 << (0x5c6b_fb31u32 >> 27)
        );
        assert_eq!(block_masks(0), [1 | 1 << 32; BLOCK_WORDS]);
    }

    /// The test the CPU's features pick (AVX2 on most x86-64 machines)
    /// answers as the scalar code does, for blocks from empty to full,
    /// with and without the key's bits.
    #[test]
    fn dispatched_and_scalar_tests_agree() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state = super::super::positions::mix(state);
            state
        };
        let (mut hits, mut misses) = (0, 0);
        for round in 0..64u32 {
            // 64 blocks, each word given `4 round` random bits: from empty
            // to nearly full.
            let blocks = BitArray::zeroed(64 * BLOCK_WORDS).unwrap();
            for i in blocks.all() {
                for _ in 0..4 * round {
                    blocks.or_word(i, 1 << (next() % 64));
                }
            }
            for _ in 0..200 {
                let probe = SplitBlockProbe::new(64 * BLOCK_BITS, SPLIT_BLOCK_HASHES, next());
                let scalar = blocks.test_words(probe.first_word, block_masks(probe.low));
                assert_eq!(block_has(&blocks, probe.first_word, probe.low), scalar);
                if scalar { hits += 1 } else { misses += 1 }
            }
        }
        // Both answers came up often.
        assert!(hits > 1000 && misses > 1000, "{hits} hits, {misses} misses");
    }

    /// The rate of a block of keys grows with them, from 0 for none to
    /// nearly 1 for many; one key gives `2^-40 + 2^-32` (its exact bits,
    /// or its low half).
    #[test]
    fn block_rates_grow_with_keys() {
        assert_eq!(rate_of_keys(0), 0.0);
        let one = rate_of_keys(1);
        assert!(
            (one - (2f64.powi(-40) + 2f64.powi(-32))).abs() < 1e-20,
            "{one:e}"
        );
        let rates: Vec<f64> = (0..400).map(rate_of_keys).collect();
        assert!(rates.windows(2).all(|w| w[0] < w[1]));
        assert!(rates[399] > 0.999);
    }
}
