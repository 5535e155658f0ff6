//! # `Standard`: `k` bits anywhere
//!
//! Each of a key's `k` bits is anywhere in the array: probe `i` of the
//! key's double hashing, whose steps rotate, reduced to a bit position
//! ([`DoubleHashing`]); files written before it have each bit from its own
//! splitmix64 output ([`Stream`]), and keep it. Space-optimal, but a new
//! key costs up to `k` cache misses. Its rate is the textbook one, `(1 - (1 -
//! 1/m)^(kn))^k` (Bloom, "Space/Time Trade-offs in Hash Coding with
//! Allowable Errors", CACM 1970; Broder and Mitzenmacher, "Network
//! Applications of Bloom Filters: A Survey", 2004), exact for positions
//! drawn with replacement, as these are.

#[cfg(test)]
use super::Placement;
use super::block_model::BlockModel;
use super::positions::{GOLDEN, reduce, stream};
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::BitArray;
use std::marker::PhantomData;

/// How a key's `k` positions are derived from its hash: the one
/// difference between the two `Standard` placements.
pub(crate) trait Positions: Copy {
    /// The layout's name (`Probe::NAME`).
    const NAME: &'static str = "standard";
    /// The placement whose positions these are.
    #[cfg(test)]
    const PLACEMENT: Placement;
    /// The key's positions, in `0..num_bits`.
    fn positions(hash: u64, k: u32, num_bits: u64) -> impl Iterator<Item = u64> + Clone;
}

/// Double hashing with a rotation (Kirsch and Mitzenmacher, "Less
/// Hashing, Same Performance", 2006, show double hashing keeps the rate of
/// independent hashes; fastbloom steps the same way): `x` starts at the
/// hash and `y` is a second hash made from it; each probe steps
/// `x = rotl(x, 5) + y`. Plain steps `x += y` (or Dillinger and Manolios's
/// enhanced `y += i` on top, too small to reach them) move the top bits,
/// which a multiply-shift reduction keeps, almost evenly, and small
/// filters measured well above the rate of independent positions; the
/// rotation carries the low bits into the top ones each step, which
/// breaks that (`small_filters_have_the_rate_of_independent_positions`
/// fails for plain steps). A probe costs a rotate, an add and the
/// reduction's multiply, against the stream's four multiplies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DoubleHashing;

impl Positions for DoubleHashing {
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::Standard;

    #[inline(always)]
    fn positions(hash: u64, k: u32, num_bits: u64) -> impl Iterator<Item = u64> + Clone {
        let (mut x, y) = (hash, hash.wrapping_mul(GOLDEN) | 1);
        (0..k).map(move |_| {
            let bit = reduce(x, num_bits);
            x = x.rotate_left(5).wrapping_add(y);
            bit
        })
    }
}

/// Each position its own output of the splitmix64 stream seeded with the
/// hash (`positions.rs`): the `Standard` of files written before double
/// hashing, kept so that they answer as they did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stream;

impl Positions for Stream {
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::StandardStream;

    #[inline(always)]
    fn positions(hash: u64, k: u32, num_bits: u64) -> impl Iterator<Item = u64> + Clone {
        (0..u64::from(k)).map(move |i| reduce(stream(hash, i), num_bits))
    }
}

/// The probe, re-derived from the hash when used (keeping `k` positions
/// would make the probe 64 words long), its positions `D`'s.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StandardProbe<D: Positions = DoubleHashing> {
    hash: u64,
    num_bits: u64,
    k: u32,
    positions: PhantomData<D>,
}

/// The probe of the `Standard` files written before double hashing.
pub(crate) type StandardStreamProbe = StandardProbe<Stream>;

impl<D: Positions> StandardProbe<D> {
    /// The key's positions.
    #[inline(always)]
    fn bits_of(&self) -> impl Iterator<Item = u64> + Clone {
        D::positions(self.hash, self.k, self.num_bits)
    }
}

impl<D: Positions> Probe for StandardProbe<D> {
    const NAME: &'static str = D::NAME;
    const BLOCK_BITS: Option<u64> = None;
    const GRANULE_BITS: u64 = 64;
    const UNREACHABLE_HINT: &'static str = "use fewer items or a higher rate";
    #[cfg(test)]
    const PLACEMENT: Placement = D::PLACEMENT;
    const MODEL_BLOCK_BITS: u64 = 0;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        StandardProbe {
            hash,
            num_bits,
            k,
            positions: PhantomData,
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        bits.test_bits(self.bits_of())
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        set_standard(bits, self.k, self.bits_of(), false)
    }

    #[inline(always)]
    fn prefetch_and_insert(&self, bits: &BitArray) -> bool {
        set_standard(bits, self.k, self.bits_of(), true)
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        for bit in self.bits_of() {
            bits.prefetch_word((bit / 64) as usize, access);
        }
    }

    #[inline(always)]
    fn bits(&self, f: impl FnMut(u64)) {
        self.bits_of().for_each(f);
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

/// The insert: out of line, which keeps the inlined per-key calls
/// smaller; inlining it measured no faster (`cargo run --release -p
/// atomic-bloom-harness -- bench`).
#[inline(never)]
fn set_standard(
    bits: &BitArray,
    k: u32,
    positions: impl Iterator<Item = u64> + Clone,
    prefetch: bool,
) -> bool {
    bits.set_bits(k, positions, prefetch)
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
            .flat_map(|h| {
                DoubleHashing::positions(mix(h), 3, num_bits).chain(Stream::positions(
                    mix(h),
                    1,
                    num_bits,
                ))
            })
            .map(|bit| bit / 64)
            .max()
            .unwrap();
        assert!(top > (num_bits / 64) * 99 / 100);
    }

    /// The textbook table: k = 10 at 20 bits per item gives 0.0000889.
    #[test]
    fn the_rate_is_the_textbook_one() {
        let rate = StandardProbe::<DoubleHashing>::model_rate(
            &mut BlockModel::new(0),
            20_000_000,
            10,
            1e6,
        );
        assert!((rate - 0.0000889).abs() < 1e-7, "{rate}");
        let bits = standard_bits(10, 1e6, rate);
        assert!((bits - 20e6).abs() < 1.0, "{bits}");
    }
}

#[cfg(test)]
mod small_filters {
    use super::super::positions::mix;
    use super::*;

    /// The false-positive rate of many small filters (128 bits, 12 keys,
    /// `k` = 7: 10.7 bits per key) built with `D`'s positions, over
    /// 4 000 000 queries in all.
    fn measured<D: Positions>() -> f64 {
        let (num_bits, keys, k) = (128u64, 12u64, 7);
        let (mut hits, mut queries) = (0u64, 0u64);
        for filter in 0..20_000u64 {
            let mut set = vec![false; num_bits as usize];
            for key in 0..keys {
                let hash = mix(filter << 32 | key);
                D::positions(hash, k, num_bits).for_each(|bit| set[bit as usize] = true);
            }
            for query in 0..200u64 {
                let hash = mix(filter << 32 | 1 << 31 | query);
                hits += u64::from(D::positions(hash, k, num_bits).all(|bit| set[bit as usize]));
                queries += 1;
            }
        }
        hits as f64 / queries as f64
    }

    /// Double hashing gives small filters the rate of independent
    /// positions (the stream's, within 5%), where a progression fed to the
    /// reduction unremixed shows its structure: far more on these
    /// filters (`DoubleHashing`'s docs). Both sit a few percent above the
    /// textbook formula, which is exact only for large filters.
    #[test]
    fn small_filters_have_the_rate_of_independent_positions() {
        let (ours, independent) = (measured::<DoubleHashing>(), measured::<Stream>());
        assert!(
            (ours / independent - 1.0).abs() < 0.05,
            "double hashing {ours}, independent positions {independent}"
        );
    }
}
