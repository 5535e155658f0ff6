//! # `Word`: `k` bits in one 64-bit word
//!
//! A key's `k` bits are in one word, picked by reducing its hash; each
//! output of the key's stream gives ten 6-bit offsets in it. An insert is a
//! single `fetch_or`, which makes it an atomic test-and-set: exactly one of
//! several racing inserters of a new key gets `true`. The price is memory
//! (the table of [`docs::layouts`](crate::docs::layouts)). The rate is the
//! exact block model ([`BlockModel`]) with blocks of 64 bits.

#[cfg(test)]
use super::Placement;
use super::block_model::{BlockModel, expected_distinct, mean_fill_rate};
use super::positions::{for_each_bit, for_each_offset, reduce};
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::BitArray;

/// The probe: `k` bits in word `word`, their mask re-derived from the hash
/// (so that a probe made only to prefetch costs one multiply).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WordProbe {
    word: usize,
    hash: u64,
    k: u32,
}

/// The mask of the key's bits in its word.
#[inline]
fn word_mask(hash: u64, num_hashes: u32) -> u64 {
    let mut mask = 0u64;
    for_each_offset::<6>(hash, num_hashes, |bit| mask |= 1 << bit);
    mask
}

impl Probe for WordProbe {
    const NAME: &'static str = "word";
    const BLOCK_BITS: Option<u64> = Some(64);
    const GRANULE_BITS: u64 = 64;
    const UNREACHABLE_HINT: &'static str = "use the blocked or standard layout, or raise the rate";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::Word;
    const MODEL_BLOCK_BITS: u64 = 64;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        WordProbe {
            word: reduce(hash, num_bits / 64) as usize,
            hash,
            k,
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

    fn model_rate(model: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64 {
        model.rate(k, 64.0 * items / num_bits as f64)
    }

    fn distinct_bits(k: u32, _: u64) -> f64 {
        expected_distinct(64.0, k)
    }

    fn rate_of_words(_: u64, k: u32, words: impl Iterator<Item = u64>) -> f64 {
        mean_fill_rate(words.map(|w| u64::from(w.count_ones())), 64, k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::positions::GOLDEN;
    use super::*;

    #[test]
    fn word_probe_sets_at_most_k_bits() {
        for h in 0..1000u64 {
            let probe = WordProbe::new(6400, 7, h.wrapping_mul(GOLDEN));
            assert!(probe.word < 100);
            assert!((1..=7).contains(&word_mask(probe.hash, 7).count_ones()));
        }
    }
}
