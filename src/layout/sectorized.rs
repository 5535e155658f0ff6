//! # `Sectorized`: `k` bits in two words of one cache line
//!
//! A key picks one 512-bit block as `Blocked` does and, in it, one word of
//! the first four and one of the last four, and puts `ceil(k/2)` of its
//! bits in the first and `floor(k/2)` in the second: an insert is two
//! `fetch_or`s, a query two loads of one cache line (the cache-sectorized
//! blocked filter of Lang, Neumann, Kemper and Boncz, "Performance-Optimal
//! Filtering: Bloom Overtakes Cuckoo at High Throughput", VLDB 2019, with
//! two sectors). Offsets come in 12-bit pairs of 6-bit offsets, one for
//! each word; the top four bits of the stream's output 0, which its five
//! pairs leave unused, pick the two words.

#[cfg(test)]
use super::Placement;
use super::block_model::{
    BlockModel, LEFT_OUT, dot, expected_distinct, lines, mean, poisson, poisson_lowest,
    poisson_mix, poisson_support,
};
use super::blocked::{LINE_BITS, block_line};
use super::positions::{for_each_bit, stream};
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::{BitArray, WORDS_PER_LINE};

/// Words a key picks each of its two words from.
const SECTOR_CHOICES: f64 = 4.0;

/// The probe: `k` bits in two words of line `line`, their masks computed
/// up front (two words, so the probe stays small).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SectorizedProbe {
    line: usize,
    words: [(usize, u64); 2],
}

/// The key's two words in its block (one of words `0..4`, one of `4..8`)
/// and the mask of its bits in each. Offsets come in 12-bit pairs, the low
/// six bits for the first word and the high six for the second (whose last
/// pair's is unused when `k` is odd): five pairs per stream output, whose
/// top four bits pick the two words.
#[inline(always)]
fn sector_words(hash: u64, num_hashes: u32) -> [(usize, u64); 2] {
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

impl Probe for SectorizedProbe {
    const NAME: &'static str = "sectorized";
    const BLOCK_BITS: Option<u64> = Some(512);
    const GRANULE_BITS: u64 = 512;
    const UNREACHABLE_HINT: &'static str =
        "use the blocked or standard layout, fewer items, or a higher rate";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::Sectorized;
    const MODEL_BLOCK_BITS: u64 = 64;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        let line = block_line(hash, num_bits / LINE_BITS);
        let words = sector_words(hash, k).map(|(word, mask)| (line * WORDS_PER_LINE + word, mask));
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

    /// Each word is a block of 64 bits for the keys that pick it: a
    /// quarter of the block's keys pick the absent key's first word, a
    /// quarter its second, and a sixteenth both. So `s ~ Poisson(λ/16)`
    /// keys pick both, `x, y ~ Poisson(3λ/16)` one each, independently, and
    /// the rate is `Σ_s P(s) A(s) B(s)` with `A(s) = Σ_x P(x) first[s + x]`,
    /// `first` and `second` the rates of a word of that many keys with
    /// `ceil(k/2)` and `floor(k/2)` bits.
    fn model_rate(model: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64 {
        let word_load = LINE_BITS as f64 * items / num_bits as f64 / SECTOR_CHOICES;
        let (first, second) = (k.div_ceil(2), k / 2);
        if BlockModel::saturates(64, first, word_load) {
            return 1.0;
        }
        let first_word = model.rate(first, word_load);
        if second == 0 {
            return first_word;
        }
        // Both words' rates grow with `s`, so they are positively
        // associated and the rate is at least the product of their means:
        // what the sums below may leave out is measured against that.
        let tail = (first_word * model.rate(second, word_load) * LEFT_OUT).max(f64::MIN_POSITIVE);
        let keys = poisson_support(word_load, tail);
        let second_rates = model.per_keys(second, keys).to_vec();
        let first_rates = model.per_keys(first, keys);
        let (both, one) = (word_load / 4.0, word_load * 0.75);
        // The weights of `x` (and `y`), from where they matter to where
        // their tail is negligible.
        let lowest = poisson_lowest(one);
        let mut weight = poisson(lowest, one);
        let mut weights = Vec::new();
        for x in lowest..keys {
            weights.push(weight);
            let step = one / (x + 1) as f64;
            weight *= step;
            if step < 1.0 && weight < tail * (1.0 - step) {
                break;
            }
        }
        let given_shared =
            |rates: &[f64], s: usize| dot(&weights, rates.get(s + lowest..).unwrap_or(&[]));
        poisson_mix(both, keys, |s| {
            let first = given_shared(first_rates, s);
            // An even `k` splits evenly: the two words' sums are the same.
            first
                * if k.is_multiple_of(2) {
                    first
                } else {
                    given_shared(&second_rates, s)
                }
        })
    }

    fn distinct_bits(k: u32, _: u64) -> f64 {
        expected_distinct(64.0, k.div_ceil(2)) + expected_distinct(64.0, k / 2)
    }

    /// Per block, the product of the mean rates of its two halves.
    fn rate_of_words(_: u64, k: u32, words: impl Iterator<Item = u64>) -> f64 {
        let half = |words: &[u64], k: u32| {
            mean(
                words
                    .iter()
                    .map(|w| (f64::from(w.count_ones()) / 64.0).powi(k as i32)),
            )
        };
        mean(lines(words).map(|line| {
            let (first, second) = line.split_at(WORDS_PER_LINE / 2);
            half(first, k.div_ceil(2)) * half(second, k / 2)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::positions::mix;
    use super::*;

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

    /// The model's sums against the triple sum over `s`, `x` and `y` they
    /// stand for.
    #[test]
    fn the_model_matches_a_direct_sum() {
        let mut words = BlockModel::new(64);
        for (k, load) in [(1u32, 40.0), (6, 50.0), (7, 30.0), (12, 16.0)] {
            let word_load = load / 4.0;
            let first = words.per_keys(k.div_ceil(2), 120).to_vec();
            let second = match k {
                1 => vec![1.0; 120],
                _ => words.per_keys(k / 2, 120).to_vec(),
            };
            let mut direct = 0.0;
            for s in 0..40 {
                for x in 0..80 {
                    for y in 0..80 {
                        let weight = poisson(s, word_load / 4.0)
                            * poisson(x, word_load * 0.75)
                            * poisson(y, word_load * 0.75);
                        direct += weight * first[s + x] * second[s + y];
                    }
                }
            }
            let model = SectorizedProbe::model_rate(&mut BlockModel::new(64), 512, k, load);
            assert!(
                (model / direct - 1.0).abs() < 1e-9,
                "k = {k}: {model} against {direct}"
            );
        }
    }
}
