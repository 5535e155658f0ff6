//! # `Standard`: `k` bits anywhere
//!
//! Each of a key's `k` bits is anywhere in the array: output `i` of the
//! key's stream, reduced to a bit position. Space-optimal, but a new key
//! costs up to `k` cache misses. Its rate is the textbook one, `(1 - (1 -
//! 1/m)^(kn))^k` (Bloom, "Space/Time Trade-offs in Hash Coding with
//! Allowable Errors", CACM 1970; Broder and Mitzenmacher, "Network
//! Applications of Bloom Filters: A Survey", 2004), exact for positions
//! drawn with replacement, as these are.

#[cfg(test)]
use super::Layout;
use super::block_model::BlockModel;
use super::positions::{reduce, stream};
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::BitArray;

/// The probe, re-derived from the hash when used (keeping `k` positions
/// would make the probe 64 words long).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StandardProbe {
    hash: u64,
    num_bits: u64,
    k: u32,
}

/// Probe `i`'s bit, as an index in the array.
#[inline]
fn standard_bit(hash: u64, i: u32, num_bits: u64) -> u64 {
    reduce(stream(hash, u64::from(i)), num_bits)
}

impl Probe for StandardProbe {
    #[cfg(test)]
    const LAYOUT: Layout = Layout::Standard;
    const MODEL_BLOCK_BITS: u64 = 0;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        StandardProbe { hash, num_bits, k }
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

    fn model_rate(_: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64 {
        // P(bit clear) = (1 - 1/m)^(kn), via ln_1p/exp_m1 to keep precision.
        let clear_ln = f64::from(k) * items * (-1.0 / num_bits as f64).ln_1p();
        (-clear_ln.exp_m1()).powi(k as i32)
    }

    fn distinct_bits(k: u32, num_bits: u64) -> f64 {
        super::block_model::expected_distinct(num_bits as f64, k)
    }

    fn rate_of_words(num_bits: u64, k: u32, words: impl Iterator<Item = u64>) -> f64 {
        let ones: u64 = words.map(|w| u64::from(w.count_ones())).sum();
        (ones as f64 / num_bits as f64).powi(k as i32)
    }
}

/// The insert of a key with a bit missing: out of line, which keeps the
/// inlined per-key calls smaller; inlining it measured no faster (`cargo
/// run --release -p atomic-bloom-harness -- bench`).
#[inline(never)]
fn set_standard(bits: &BitArray, hash: u64, num_bits: u64, k: u32) -> bool {
    bits.set_bits(k, |i| standard_bit(hash, i, num_bits))
}

/// The fewest bits the model needs for `items` keys at rate `fpp` with `k`
/// bits per key, in closed form: `m = -k n / ln(1 - p^(1/k))`. Blocks only
/// ever raise the rate, so this bounds every layout's size from below. Not
/// finite, or 0, where `p^(1/k)` rounds to 1 (p very close to 1, large `k`).
pub(crate) fn standard_bits(k: u32, items: f64, fpp: f64) -> f64 {
    -f64::from(k) * items / (-fpp.powf(1.0 / f64::from(k))).ln_1p()
}

#[cfg(test)]
mod tests {
    use super::super::positions::mix;
    use super::*;

    #[test]
    fn standard_probes_reach_the_top_of_a_huge_array() {
        let num_bits = 1u64 << 36;
        let top = (0..10_000u64)
            .map(|h| standard_bit(mix(h), 0, num_bits) / 64)
            .max()
            .unwrap();
        assert!(top > (num_bits / 64) * 99 / 100);
    }

    /// The textbook table: k = 10 at 20 bits per item gives 0.0000889.
    #[test]
    fn the_rate_is_the_textbook_one() {
        let rate = StandardProbe::model_rate(&mut BlockModel::new(0), 20_000_000, 10, 1e6);
        assert!((rate - 0.0000889).abs() < 1e-7, "{rate}");
        let bits = standard_bits(10, 1e6, rate);
        assert!((bits - 20e6).abs() < 1.0, "{bits}");
    }
}
