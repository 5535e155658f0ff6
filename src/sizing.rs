//! # Sizing: bits and hashes for a target false-positive rate
//!
//! [`Sizing::for_rate`] picks the smallest array, and the `k` that makes it
//! smallest, for which the layout's model stays at or below the requested
//! rate; the models and the limits are the [`sizing`](crate::docs::sizing)
//! chapter.

use crate::error::BuildError;
use crate::layout::Layout;

/// The largest bit array a filter may have: 2^43 bits, 1 TiB.
///
/// ```
/// use atomic_bloom::{AtomicBloom, BuildError, MAX_BITS};
/// assert!(matches!(AtomicBloom::with_bits(MAX_BITS + 1, 3), Err(BuildError::TooLarge { .. })));
/// ```
pub const MAX_BITS: u64 = 1 << 43;

/// The most bits a key may set (`k`).
///
/// ```
/// use atomic_bloom::{AtomicBloom, BuildError, MAX_HASHES};
/// assert!(matches!(
///     AtomicBloom::with_bits(1024, MAX_HASHES + 1),
///     Err(BuildError::InvalidNumHashes { .. })
/// ));
/// ```
pub const MAX_HASHES: u32 = 64;

/// The loosest rate a filter is sized for: a rate above it is sized as
/// it. Closer to 1, the model's rates differ from 1 by less than its
/// floating-point error (about 1e-13), and sizes would jitter instead of
/// growing steadily as the rate tightens; a filter sized for this rate
/// meets any looser one.
const LOOSEST_TARGET: f64 = 1.0 - 1e-6;

/// The size of a filter: its layout, bits and hashes per key.
///
/// ```
/// use atomic_bloom::{Layout, Sizing};
///
/// let sizing = Sizing::for_rate(Layout::Standard, 1_000_000, 0.01)?;
/// assert_eq!(sizing.num_hashes(), 7);
/// assert!((9.5..9.7).contains(&sizing.bits_per_item(1_000_000)));
/// assert!(sizing.false_positive_rate(1_000_000) <= 0.01);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sizing {
    layout: Layout,
    num_bits: u64,
    num_hashes: u32,
}

impl Sizing {
    /// The smallest sizing of `layout` whose false-positive rate with
    /// `expected_items` items is at most `false_positive_rate`, with the best
    /// `k` for it.
    ///
    /// ```
    /// use atomic_bloom::{BuildError, Layout, Sizing};
    ///
    /// let word = Sizing::for_rate(Layout::Word, 1_000, 0.001)?;
    /// let blocked = Sizing::for_rate(Layout::Blocked, 1_000, 0.001)?;
    /// assert!(word.num_bits() > blocked.num_bits());
    /// assert_eq!(Sizing::for_rate(Layout::Word, 0, 0.01), Err(BuildError::ZeroItems));
    /// # Ok::<(), BuildError>(())
    /// ```
    pub fn for_rate(
        layout: Layout,
        expected_items: usize,
        false_positive_rate: f64,
    ) -> Result<Sizing, BuildError> {
        let fpp = false_positive_rate;
        if !(fpp > 0.0 && fpp < 1.0) {
            return Err(BuildError::InvalidFalsePositiveRate(fpp));
        }
        if expected_items == 0 {
            return Err(BuildError::ZeroItems);
        }
        let floor = hash_floor(expected_items);
        if fpp <= floor {
            return Err(BuildError::RateBelowHashFloor {
                false_positive_rate,
                items: expected_items,
                floor,
            });
        }
        // The bits must bring the model's rate to what the floor leaves,
        // and no closer to 1 than the model can resolve.
        let target = (fpp - floor).min(LOOSEST_TARGET);
        let items = expected_items as f64;
        // The best k is near log2(1/p) for `Standard`, and lower for the
        // blocked layouts.
        let start = ((1.0 / target).log2().round() as u32).clamp(1, MAX_HASHES);
        let granule = layout.granule_bits();
        let exact_bits = |k| min_bits(layout, k, items, target, Model::Exact);
        let best = match layout.block_bits() {
            None => fewest_bits(start, start, granule, |k, _| exact_bits(k)),
            Some(block) => {
                // An exact block model costs far more than a mean-fill one,
                // so start the exact search where the mean-fill model is
                // best: the `k` with its lowest rate at the size it needs
                // for `start`. The two agree to within a `k` or so.
                let near = match min_bits(layout, start, items, target, Model::MeanFill) {
                    // One granule is the least any `k` needs.
                    Some(bits) if bits > granule => lowest(start, |k| {
                        model_fpr(layout, bits, k, items, Model::MeanFill)
                    }),
                    _ => start,
                };
                let load = |bits: u64| block as f64 * items / bits as f64;
                fewest_bits(near, start, granule, |k, best| {
                    let Some((best, best_k)) = best else {
                        return exact_bits(k);
                    };
                    // Beside a best size, two rates settle how `k` compares
                    // with it; only a smaller size needs a search. The
                    // mean-fill rate, at most the exact one, may settle
                    // them without an exact model: above the target at the
                    // best size, `k` needs more; above it one granule
                    // smaller, `k` needs at least the best, which is all the
                    // search must know of a `k` that could not win a tie.
                    let more = Some(best + granule);
                    let mean_fill_above =
                        |bits| model_fpr(layout, bits, k, items, Model::MeanFill) > target;
                    if mean_fill_above(best) {
                        return more;
                    }
                    let smaller = (best - granule).max(granule);
                    let wins_ties = (k.abs_diff(start), k) < (best_k.abs_diff(start), best_k);
                    if !wins_ties && (best == granule || mean_fill_above(smaller)) {
                        return Some(best);
                    }
                    let model = RateModel::new(layout, k, load(smaller), Model::Exact);
                    if model.fpr(load(best)) > target {
                        more
                    } else if best == granule || model.fpr(load(smaller)) > target {
                        Some(best)
                    } else {
                        exact_bits(k)
                    }
                })
            }
        };
        let (num_bits, num_hashes) = best.ok_or(match layout.block_bits() {
            Some(_) => BuildError::RateUnreachable {
                layout,
                false_positive_rate,
                items: expected_items,
                max_bits: MAX_BITS,
            },
            None => BuildError::TooLarge {
                requested_bits: fewest_standard_bits(items, target),
                max_bits: MAX_BITS,
            },
        })?;
        Ok(Sizing {
            layout,
            num_bits,
            num_hashes,
        })
    }

    /// A sizing with `num_bits` (rounded up to the layout's granularity: 64
    /// bits, or 512 for `Blocked`) and `num_hashes` hashes, validated.
    ///
    /// ```
    /// use atomic_bloom::{BuildError, Layout, Sizing, MAX_HASHES};
    ///
    /// assert_eq!(Sizing::for_bits(Layout::Blocked, 1000, 7)?.num_bits(), 1024);
    /// assert_eq!(Sizing::for_bits(Layout::Standard, 1000, 7)?.num_bits(), 1024);
    /// assert_eq!(Sizing::for_bits(Layout::Word, 100, 7)?.num_bits(), 128);
    /// assert_eq!(
    ///     Sizing::for_bits(Layout::Word, 64, 0),
    ///     Err(BuildError::InvalidNumHashes { got: 0, max: MAX_HASHES })
    /// );
    /// # Ok::<(), BuildError>(())
    /// ```
    pub fn for_bits(layout: Layout, num_bits: u64, num_hashes: u32) -> Result<Sizing, BuildError> {
        if num_hashes == 0 || num_hashes > MAX_HASHES {
            return Err(BuildError::InvalidNumHashes {
                got: num_hashes,
                max: MAX_HASHES,
            });
        }
        if num_bits == 0 {
            return Err(BuildError::ZeroBits);
        }
        if num_bits > MAX_BITS {
            return Err(BuildError::TooLarge {
                requested_bits: u128::from(num_bits),
                max_bits: MAX_BITS,
            });
        }
        Ok(Sizing {
            layout,
            num_bits: num_bits.next_multiple_of(layout.granule_bits()),
            num_hashes,
        })
    }

    /// The layout.
    ///
    /// ```
    /// # use atomic_bloom::{Layout, Sizing};
    /// assert_eq!(Sizing::for_bits(Layout::Word, 64, 3)?.layout(), Layout::Word);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Bits in the array (`m`).
    ///
    /// ```
    /// # use atomic_bloom::{Layout, Sizing};
    /// assert_eq!(Sizing::for_bits(Layout::Word, 64, 3)?.num_bits(), 64);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn num_bits(&self) -> u64 {
        self.num_bits
    }

    /// Bits set per key (`k`).
    ///
    /// ```
    /// # use atomic_bloom::{Layout, Sizing};
    /// assert_eq!(Sizing::for_bits(Layout::Word, 64, 3)?.num_hashes(), 3);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Bits of memory per item when holding `items` items.
    ///
    /// ```
    /// # use atomic_bloom::{Layout, Sizing};
    /// assert_eq!(Sizing::for_bits(Layout::Word, 640, 3)?.bits_per_item(64), 10.0);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn bits_per_item(&self, items: usize) -> f64 {
        self.num_bits as f64 / items as f64
    }

    /// The expected false-positive rate once `items` distinct items are in
    /// (the layout's model, see the [sizing](crate::docs::sizing) chapter).
    ///
    /// ```
    /// # use atomic_bloom::{Layout, Sizing};
    /// // The textbook table: k = 10 at 20 bits per item gives 0.0000889.
    /// let s = Sizing::for_bits(Layout::Standard, 20 * 1_000_000, 10)?;
    /// assert!((s.false_positive_rate(1_000_000) - 0.0000889).abs() < 1e-7);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn false_positive_rate(&self, items: usize) -> f64 {
        let model = model_fpr(
            self.layout,
            self.num_bits,
            self.num_hashes,
            items as f64,
            Model::Exact,
        );
        (model + hash_floor(items)).min(1.0)
    }
}

/// The hash floor: the probability that a key never inserted has the same
/// 64-bit hash as one of `items` inserted keys, `items / 2^64`. Every bit a
/// key touches is derived from its 64-bit hash, so such a key is always
/// reported present, whatever the filter's size: no sizing reaches a rate
/// at or below this floor, and [`Sizing::for_rate`] refuses one with
/// [`BuildError::RateBelowHashFloor`]. It is 5.4e-14 for a million keys and
/// 5.4e-11 for a billion.
///
/// ```
/// use atomic_bloom::{BuildError, Layout, Sizing, hash_floor};
///
/// assert_eq!(hash_floor(1 << 20), 2f64.powi(-44));
/// let err = Sizing::for_rate(Layout::Standard, 1_000_000_000, 1e-12).unwrap_err();
/// assert!(matches!(err, BuildError::RateBelowHashFloor { .. }));
/// ```
pub fn hash_floor(items: usize) -> f64 {
    items as f64 * 2f64.powi(-64)
}

/// Visits `start - 1`, `start - 2`, ... while `visit` returns true, then
/// `start + 1`, `start + 2`, ... likewise, within `1..=MAX_HASHES`: the
/// walk of a search over `k` for the best of a unimodal measure.
fn walk_out(start: u32, mut visit: impl FnMut(u32) -> bool) {
    for direction in [-1i64, 1] {
        let mut k = i64::from(start) + direction;
        while (1..=i64::from(MAX_HASHES)).contains(&k) && visit(k as u32) {
            k += direction;
        }
    }
}

/// The `k` with the fewest bits, walking out from `from` while sizes do
/// not grow (they are unimodal in `k`, with runs of equal sizes in small
/// filters, whose sizes are a few granules); of `k` with the same size, the
/// one nearest `start`. `bits_for(k, best)` is the fewest bits for `k`, or
/// `None` if no size reaches the target. Given the best size so far and its
/// `k`, it may answer any size above the best for a `k` that needs more,
/// and the best size itself for a `k` that needs at least as much and is
/// no nearer `start` (which could not replace the best): the walk then
/// goes on past that `k` rather than stopping, and finds what it would
/// have. `least` is the least size any `k` can have (one granule).
fn fewest_bits(
    from: u32,
    start: u32,
    least: u64,
    bits_for: impl Fn(u32, Option<(u64, u32)>) -> Option<u64>,
) -> Option<(u64, u32)> {
    let mut best = bits_for(from, None).map(|m| (m, from));
    walk_out(from, |k| match (bits_for(k, best), best) {
        (Some(m), Some((best_m, _))) if m > best_m => false,
        (Some(m), Some((best_m, best_k))) if m == best_m => {
            let nearer = (k.abs_diff(start), k) < (best_k.abs_diff(start), best_k);
            if nearer {
                best = Some((m, k));
            }
            // At the least size no `k` can do better: walk on only towards
            // `start`.
            m > least || nearer
        }
        (Some(m), _) => {
            best = Some((m, k));
            true
        }
        (None, Some(_)) => false,
        (None, None) => true,
    });
    best
}

/// The `k` with the lowest `rate(k)`, walking out from `start` while it
/// falls.
fn lowest(start: u32, rate: impl Fn(u32) -> f64) -> u32 {
    let mut best = (rate(start), start);
    walk_out(start, |k| {
        let r = rate(k);
        let falls = r < best.0;
        if falls {
            best = (r, k);
        }
        falls
    });
    best.1
}

/// Which model of a blocked layout's rate to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    /// The exact model: what sizes are chosen by and rates reported with.
    Exact,
    /// The mean-fill shortcut `(1 - (1 - 1/B)^(ik))^k` per block: never
    /// above the exact model (Jensen's inequality), and cheap, so it bounds
    /// the search.
    MeanFill,
}

/// The layout's model false-positive rate with `items` keys.
fn model_fpr(layout: Layout, num_bits: u64, k: u32, items: f64, model: Model) -> f64 {
    match layout.block_bits() {
        None => standard_fpr(num_bits, k, items),
        Some(block) => {
            let load = block as f64 * items / num_bits as f64;
            RateModel::new(layout, k, load, model).fpr(load)
        }
    }
}

fn standard_fpr(num_bits: u64, k: u32, items: f64) -> f64 {
    // P(bit clear) = (1 - 1/m)^(kn), via ln_1p/exp_m1 to keep precision.
    let clear_ln = f64::from(k) * items * (-1.0 / num_bits as f64).ln_1p();
    (-clear_ln.exp_m1()).powi(k as i32)
}

/// Closed-form bits for the `Standard` model: `m = -k n / ln(1 - p^(1/k))`.
/// Not finite, or 0, where `p^(1/k)` rounds to 1 (p very close to 1 and
/// large `k`).
fn standard_bits(k: u32, items: f64, fpp: f64) -> f64 {
    -f64::from(k) * items / (-fpp.powf(1.0 / f64::from(k))).ln_1p()
}

/// The fewest bits any `k` needs under the `Standard` model, the least any
/// layout needs (saturated at `u128::MAX`): what a `TooLarge` error reports.
fn fewest_standard_bits(items: f64, fpp: f64) -> u128 {
    (1..=MAX_HASHES)
        .map(|k| standard_bits(k, items, fpp))
        .filter(|&bits| bits.is_finite() && bits > 0.0)
        .fold(f64::INFINITY, f64::min)
        .ceil() as u128 // saturates; +inf (no finite size) becomes u128::MAX
}

/// The smallest size (in the layout's granules) with `k` hashes whose model
/// rate is at most `fpp`, or `None` above `MAX_BITS`.
fn min_bits(layout: Layout, k: u32, items: f64, fpp: f64, model: Model) -> Option<u64> {
    let granule = layout.granule_bits();
    let max_granules = MAX_BITS / granule;
    let mut lower = match (layout.block_bits(), model) {
        // The exact size is at least the mean-fill one, whose rate is at
        // most the exact rate; without a mean-fill size there is no exact
        // one either.
        (Some(_), Model::Exact) => min_bits(layout, k, items, fpp, Model::MeanFill)? / granule,
        _ => {
            // Blocking only ever raises the exact rate, so the Standard
            // size is a lower bound of every exact size; a mean-fill size
            // found above it is a lower bound too.
            let lower = standard_bits(k, items, fpp) / granule as f64;
            if !lower.is_finite() || lower >= max_granules as f64 {
                return None;
            }
            (lower.ceil() as u64).max(1)
        }
    };
    let fpr: Box<dyn Fn(u64) -> f64> = match layout.block_bits() {
        None => Box::new(|g: u64| standard_fpr(g * granule, k, items)),
        Some(block) => {
            let load_at = move |g: u64| block as f64 * items / (g * granule) as f64;
            // Sizes whose blocks are saturated have rate 1 (above any
            // `fpp`): start past them, so that the model, built for the
            // largest load it is asked about, holds every smaller one.
            let unsaturated = RateModel::saturated_below(layout, k, items);
            if unsaturated >= max_granules as f64 {
                return None;
            }
            lower = lower.max(unsaturated as u64);
            while RateModel::saturates(layout, k, load_at(lower)) {
                lower += 1;
            }
            let model = RateModel::new(layout, k, load_at(lower), model);
            Box::new(move |g| model.fpr(load_at(g)))
        }
    };
    // Work with the log of the rate, which is close to linear in the log of
    // the size.
    let ln_fpr = |g: u64| fpr(g).ln();
    let ln_fpp = fpp.ln();
    let mut ln_lo = ln_fpr(lower);
    if ln_lo <= ln_fpp {
        return Some(lower * granule);
    }
    // Gallop to an upper bound in steps from a 32nd of the lower bound up,
    // since the size is rarely far above it: fpr(lo) > fpp >= fpr(hi).
    // A gallop that has not arrived within eight doublings asks first
    // whether the largest size reaches the target at all: a rate no size
    // reaches (a `k` far from the best, or a target the layout cannot meet)
    // then costs one rate instead of a gallop to the limit.
    let (mut lo, mut hi) = (lower, lower);
    let mut step = (lower / 32).max(1);
    let mut doublings = 0;
    let mut ln_hi = loop {
        hi = hi.saturating_add(step).min(max_granules);
        let ln_hi = ln_fpr(hi);
        if ln_hi <= ln_fpp {
            break ln_hi;
        }
        if hi == max_granules {
            return None;
        }
        (lo, ln_lo) = (hi, ln_hi);
        step = step.saturating_mul(2);
        doublings += 1;
        if doublings == 8 && ln_fpr(max_granules) > ln_fpp {
            return None;
        }
    };
    // Then narrow it by interpolation, halving instead whenever a guess
    // leaves more than half of the interval.
    while hi - lo > 1 {
        let width = hi - lo;
        let (x_lo, x_hi) = ((lo as f64).ln(), (hi as f64).ln());
        let guess = (x_lo + (x_hi - x_lo) * (ln_lo - ln_fpp) / (ln_lo - ln_hi)).exp();
        let mut mid = if guess.is_finite() {
            (guess.round() as u64).clamp(lo + 1, hi - 1)
        } else {
            lo + width / 2
        };
        loop {
            let ln_mid = ln_fpr(mid);
            if ln_mid <= ln_fpp {
                (hi, ln_hi) = (mid, ln_mid);
            } else {
                (lo, ln_lo) = (mid, ln_mid);
            }
            if hi - lo <= width / 2 || hi - lo <= 1 {
                break;
            }
            mid = lo + (hi - lo) / 2;
        }
    }
    Some(hi * granule)
}

/// The rate model of a layout that confines a key to a block, built for
/// loads (keys per block) up to a maximum.
enum RateModel {
    /// `Blocked` and `Word`: the key's `k` bits are drawn from its block.
    Block(BlockModel),
    /// `Sectorized`: `ceil(k/2)` bits are drawn from one of the block's
    /// first four words and `floor(k/2)` from one of its last four. Each
    /// word is a block of 64 bits for the keys that pick it; `second` is
    /// `None` for `k = 1`, whose second word is tested for nothing.
    Sectors {
        first: BlockModel,
        second: Option<BlockModel>,
    },
}

impl RateModel {
    /// Words a `Sectorized` key picks each of its two words from.
    const SECTOR_CHOICES: f64 = 4.0;

    fn new(layout: Layout, k: u32, max_load: f64, model: Model) -> Self {
        match layout {
            Layout::Sectorized => {
                let word_load = max_load / Self::SECTOR_CHOICES;
                let word = |k| BlockModel::new(64, k, word_load, model);
                RateModel::Sectors {
                    first: word(k.div_ceil(2)),
                    second: (k >= 2).then(|| word(k / 2)),
                }
            }
            _ => {
                let block = layout.block_bits().expect("a blocked layout");
                RateModel::Block(BlockModel::new(block, k, max_load, model))
            }
        }
    }

    /// Whether a block of `load` keys is saturated: the rate is then 1.
    fn saturates(layout: Layout, k: u32, load: f64) -> bool {
        match layout {
            Layout::Sectorized => {
                BlockModel::saturates(64, k.div_ceil(2), load / Self::SECTOR_CHOICES)
            }
            _ => BlockModel::saturates(layout.block_bits().expect("a blocked layout"), k, load),
        }
    }

    /// The granules below which a filter of `items` keys is saturated
    /// (`saturates` at every smaller size): `items · draws / (30 granule)`,
    /// with `draws` the bits a key draws per block (`k`), or twice those it
    /// draws in its fuller word (`Sectorized`, whose granule is 8 words).
    fn saturated_below(layout: Layout, k: u32, items: f64) -> f64 {
        let draws = match layout {
            Layout::Sectorized => 2 * k.div_ceil(2),
            _ => k,
        };
        items * f64::from(draws)
            / (BlockModel::SATURATED_DRAWS_PER_BIT * layout.granule_bits() as f64)
    }

    /// The rate at `load` keys per block, at most the `max_load` the model
    /// was built for.
    fn fpr(&self, load: f64) -> f64 {
        match self {
            RateModel::Block(model) => model.fpr(load),
            RateModel::Sectors { first, second } => {
                let word_load = load / Self::SECTOR_CHOICES;
                if first.is_saturated(word_load) {
                    return 1.0;
                }
                // Of the keys in the block, a quarter pick the key's first
                // word, a quarter its second, and a sixteenth both:
                // `s ~ Poisson(λ/16)` pick both, `x, y ~ Poisson(3λ/16)` one
                // each, independently, and the rate is
                // `Σ_s P(s) A(s) B(s)` with `A(s) = Σ_x P(x) first[s + x]`.
                let (both, one) = (word_load / 4.0, word_load * 0.75);
                // The weights of `x` (and `y`), from where they matter.
                let keys = first.per_keys.len();
                let lowest = poisson_lowest(one);
                let mut weight = poisson(lowest, one);
                let weights: Vec<f64> = (lowest..keys)
                    .map(|x| {
                        let w = weight;
                        weight *= one / (x + 1) as f64;
                        w
                    })
                    .collect();
                let given_shared = |model: &BlockModel, s: usize| {
                    dot(&weights, model.per_keys.get(s + lowest..).unwrap_or(&[]))
                };
                poisson_mix(both, keys, |s| {
                    let b = second
                        .as_ref()
                        .map_or(1.0, |second| given_shared(second, s));
                    given_shared(first, s) * b
                })
            }
        }
    }
}

/// The false-positive rate of a block that holds `i` keys, for every `i`
/// up to where the Poisson tail of the largest load asked about is
/// negligible, mixed over the Poisson number of keys per block.
///
/// An absent key's `k` probes land on `J` distinct bits of its block,
/// distributed as `k` draws with replacement from `B` bits; it is a false
/// positive iff the block's `i k` insert draws covered all `J`. Follow
/// `U`, the number of those `J` bits no insert draw has covered yet: each
/// insert draw covers one of them with probability `U / B`, so `U` is a
/// pure-death chain on `0..=k` started at `U = J`, and
/// `E[(X/B)^k | i keys] = P(U = 0 after i k draws)`, where `X` is the
/// block's set-bit count. The chain has `k + 1` states where one over `X`
/// has `B + 1`, and one key's `k` draws are applied as one triangular
/// matrix: about `(k + 1)^2 / 2` operations per key, against `k (B + 1)`.
/// Its weights are sums of non-negative terms, so there is no
/// cancellation, as there is in the inclusion-exclusion
/// closed form `Σ_l (-1)^l C(J, l) (1 - l/B)^(ik)`. The test
/// `death_chain_matches_the_fill_chain` checks it against the chain over
/// `X` that it replaces.
struct BlockModel {
    /// Bits per block.
    block: u64,
    k: u32,
    /// `per_keys[i] = E[(X/B)^k | i keys]`.
    per_keys: Vec<f64>,
}

impl BlockModel {
    /// A block is saturated (every bit set but for odds below e^-30) once
    /// its expected draws exceed 30 B: the rate is then 1.
    const SATURATED_DRAWS_PER_BIT: f64 = 30.0;

    fn new(block: u64, k: u32, max_load: f64, model: Model) -> Self {
        let mut built = BlockModel {
            block,
            k,
            per_keys: vec![0.0],
        };
        if built.is_saturated(max_load) {
            return built;
        }
        let keys = poisson_support(max_load);
        match model {
            Model::Exact => built.per_keys.extend(Self::exact(block, k, keys)),
            Model::MeanFill => {
                // 1 - (1 - 1/B)^(ik), the mean fill with i keys.
                let clear_per_key = (1.0 - 1.0 / block as f64).powi(k as i32);
                let mut clear = 1.0;
                built.per_keys.extend((1..keys).map(|_| {
                    clear *= clear_per_key;
                    (1.0 - clear).powi(k as i32)
                }));
            }
        }
        built
    }

    /// `E[(X/B)^k | i keys]` for `i` in `1..keys`, by the chain over `U`.
    fn exact(block: u64, k: u32, keys: usize) -> impl Iterator<Item = f64> {
        // A draw covers one of `u` particular bits with probability u / B.
        let states = (k as usize).min(block as usize) + 1;
        let hit: Vec<f64> = (0..states).map(|u| u as f64 / block as f64).collect();
        let miss: Vec<f64> = (0..states)
            .map(|u| (block - u as u64) as f64 / block as f64)
            .collect();
        // The distinct bits among the absent key's k probes: a chain that
        // moves from j to j + 1 when a probe misses the j already drawn.
        let mut uncovered = vec![0.0; states];
        uncovered[0] = 1.0;
        for probe in 0..k as usize {
            for j in (1..=(probe + 1).min(states - 1)).rev() {
                uncovered[j] = uncovered[j] * hit[j] + uncovered[j - 1] * miss[j - 1];
            }
            uncovered[0] = 0.0;
        }
        // Then the insert draws cover them: U moves from u to u - 1 with
        // probability u / B. One key's k draws, as a matrix: column c holds
        // where U goes from c (row u, for u <= c, in `per_key[u][c - u]`).
        // It starts as the identity and takes one draw at a time, every
        // column at once: row u becomes `miss[u]` times itself plus
        // `hit[u + 1]` times row u + 1, a loop along a row that the
        // compiler vectorises. (In place, upwards: row u + 1 is still the
        // previous draw's when row u reads it.)
        let mut per_key: Vec<Vec<f64>> = (0..states)
            .map(|u| {
                let mut row = vec![0.0; states - u];
                row[0] = 1.0;
                row
            })
            .collect();
        for _ in 0..k {
            for u in 0..states {
                let (this, below) = per_key.split_at_mut(u + 1);
                let row = &mut this[u];
                row[0] *= miss[u];
                if let Some(next) = below.first() {
                    let (stay, come) = (miss[u], hit[u + 1]);
                    for (x, y) in row[1..].iter_mut().zip(next) {
                        *x = *x * stay + y * come;
                    }
                }
            }
        }
        // Then apply it key by key, in place upwards again.
        (1..keys).map(move |_| {
            for (u, row) in per_key.iter().enumerate() {
                uncovered[u] = dot(row, &uncovered[u..]);
            }
            uncovered[0]
        })
    }

    fn is_saturated(&self, load: f64) -> bool {
        Self::saturates(self.block, self.k, load)
    }

    fn saturates(block: u64, k: u32, load: f64) -> bool {
        load * f64::from(k) > Self::SATURATED_DRAWS_PER_BIT * block as f64
    }

    /// `Σ_i Poisson(i; load) · per_keys[i]`; `load` at most the `max_load`
    /// the model was built for.
    fn fpr(&self, load: f64) -> f64 {
        if self.is_saturated(load) {
            return 1.0;
        }
        if load <= 0.0 {
            return 0.0;
        }
        debug_assert!(self.per_keys.len() >= poisson_support(load));
        poisson_mix(load, self.per_keys.len(), |i| self.per_keys[i])
    }
}

/// `Σ_i Poisson(i; load) · rate(i)` over `i < len`, for rates in `[0, 1]`
/// that never fall as `i` grows, summed over `i` where the terms matter.
fn poisson_mix(load: f64, len: usize, rate: impl Fn(usize) -> f64) -> f64 {
    if load <= 0.0 {
        return if len > 0 { rate(0) } else { 0.0 };
    }
    let first = poisson_lowest(load);
    let mut weight = poisson(first, load);
    let mut total = 0.0;
    for i in first..len {
        total += weight * rate(i);
        weight *= load / (i + 1) as f64;
        // Past 2λ each weight is under half the last, so with every rate at
        // most 1 the rest adds under 2 · weight.
        if (i + 1) as f64 > 2.0 * load && 2.0 * weight < total * 1e-17 {
            break;
        }
    }
    total.min(1.0)
}

/// Where the terms of a sum over a Poisson(λ) count `i` of rates that only
/// grow with `i` start to matter: below λ - 12√λ the weights sum to under
/// e^-72, so those terms are below e^-72 of the total. From there a sum
/// steps the weights by λ / i.
fn poisson_lowest(load: f64) -> usize {
    (load - 12.0 * load.sqrt()).floor().max(0.0) as usize
}

/// `Σ a[i] b[i]` over the shorter, in four lanes the compiler can
/// vectorise.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a4.zip(b4) {
        for lane in 0..4 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) + tail
}

/// Keys per block beyond which the Poisson(λ) tail is below 1e-20: a
/// rate sums no further.
fn poisson_support(load: f64) -> usize {
    if load <= 0.0 {
        return 1;
    }
    // Past the mode each weight is at most λ / (i + 1) of the last, so the
    // tail past i is under w_i / (1 - λ / (i + 1)).
    let mut i = load.floor() as usize;
    let mut weight = poisson(i, load);
    loop {
        i += 1;
        weight *= load / i as f64;
        let ratio = load / (i + 1) as f64;
        if ratio < 1.0 && weight / (1.0 - ratio) < 1e-20 {
            return i + 1;
        }
    }
}

/// `Poisson(i; λ)`, through logs: `e^-λ` alone underflows for large `λ`.
fn poisson(i: usize, load: f64) -> f64 {
    (i as f64 * load.ln() - load - ln_factorial(i)).exp()
}

/// `ln(i!)`: summed below 20, Stirling's series above (within 1e-13 of
/// the sum: `ln_factorial_matches_the_sum_of_logs`).
fn ln_factorial(i: usize) -> f64 {
    if i < 20 {
        return (2..=i).map(|j| (j as f64).ln()).sum();
    }
    let x = i as f64;
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    x * x.ln() - x
        + 0.5 * (std::f64::consts::TAU * x).ln()
        + inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of the table row starting with `start` in `doc` (a
    /// Markdown file or Rust source whose docs hold the table).
    fn row<'a>(doc: &'a str, start: &str) -> Vec<&'a str> {
        let line = doc
            .lines()
            .map(|l| l.trim_start_matches("//! "))
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no row {start:?}"));
        line.split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect()
    }

    /// Every bits-per-key table (this module's docs, the README, the crate
    /// docs) shows what `Sizing::for_rate` computes, so none can drift.
    #[test]
    fn bits_per_key_tables_match_the_model() {
        let n = 1_000_000;
        let rates = [
            ("0.1", 0.1),
            ("0.01", 0.01),
            ("0.001", 1e-3),
            ("1e-4", 1e-4),
            ("1e-5", 1e-5),
        ];
        let sizing = |layout, p| Sizing::for_rate(layout, n, p).unwrap();
        for (label, p) in rates {
            let expected: Vec<String> = Layout::ALL
                .map(|layout| {
                    let s = sizing(layout, p);
                    format!("{:.1} (k={})", s.bits_per_item(n), s.num_hashes())
                })
                .into();
            for doc in [include_str!("docs/sizing.rs"), include_str!("../README.md")] {
                assert_eq!(
                    row(doc, &format!("| {label} "))[1..],
                    expected,
                    "row {label}"
                );
            }
        }
        for (layout, name) in Layout::ALL.into_iter().zip([
            "`Standard`",
            "`Blocked` (default)",
            "`Word`",
            "`Sectorized`",
        ]) {
            let expected: Vec<String> = rates[1..]
                .iter()
                .map(|&(_, p)| format!("{:.1}", sizing(layout, p).bits_per_item(n)))
                .collect();
            assert_eq!(
                row(include_str!("docs/layouts.rs"), &format!("| {name} "))[1..5],
                expected,
                "docs::layouts, {layout}"
            );
        }
    }

    #[test]
    fn sizing_meets_the_target_and_is_minimal() {
        for layout in Layout::ALL {
            for p in [0.3, 0.01, 1e-4, 1e-6] {
                for n in [1, 10, 1000, 123_457] {
                    let s = Sizing::for_rate(layout, n, p).unwrap();
                    assert!(s.false_positive_rate(n) <= p, "{layout} n={n} p={p}");
                    let smaller = Sizing {
                        num_bits: s.num_bits - layout.granule_bits(),
                        ..s
                    };
                    if smaller.num_bits > 0 {
                        assert!(
                            smaller.false_positive_rate(n) > p,
                            "{layout} n={n} p={p} not minimal"
                        );
                    }
                }
            }
        }
    }

    /// The exact model as first written: a chain over the block's set-bit
    /// count `X` (`B + 1` states), `E[(X/B)^k | i keys]` for `i < keys`.
    fn fill_chain(block: u64, k: u32, keys: usize) -> Vec<f64> {
        let b = block as usize;
        let bf = block as f64;
        let pow_k: Vec<f64> = (0..=b).map(|x| (x as f64 / bf).powi(k as i32)).collect();
        let mut dist = vec![0.0; b + 1];
        dist[0] = 1.0;
        let mut per_keys = vec![0.0];
        for _ in 1..keys {
            for _ in 0..k {
                for x in (1..=b).rev() {
                    dist[x] = dist[x] * (x as f64 / bf) + dist[x - 1] * ((b - x + 1) as f64 / bf);
                }
                dist[0] = 0.0;
            }
            per_keys.push(dist.iter().zip(&pow_k).map(|(p, f)| p * f).sum());
        }
        per_keys
    }

    #[test]
    fn death_chain_matches_the_fill_chain() {
        for block in [64, 512] {
            for k in [1, 2, 3, 7, 16, 33, 64] {
                let fast = BlockModel::new(block, k, 20.0, Model::Exact).per_keys;
                assert!(fast.len() > 50, "B={block} k={k}: {} keys", fast.len());
                let fill = fill_chain(block, k, fast.len());
                for (i, (fill, death)) in fill.iter().zip(&fast).enumerate() {
                    let error = (fill - death).abs() / fill.max(f64::MIN_POSITIVE);
                    assert!(
                        error < 1e-12 || (fill - death).abs() < 1e-300,
                        "B={block} k={k} i={i}: {fill} vs {death}"
                    );
                }
            }
        }
    }

    /// Against a search of every `k`: the fewest bits of any `k`, and of
    /// `k` with that many, the nearest `round(log2(1/p))`.
    #[test]
    fn the_search_finds_what_trying_every_k_finds() {
        for layout in Layout::ALL {
            for p in [0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-9, 1e-12] {
                for n in [1, 7, 100, 5000, 1_000_000] {
                    let items = n as f64;
                    let target = p - hash_floor(n);
                    let start = ((1.0 / target).log2().round() as u32).clamp(1, MAX_HASHES);
                    let every: Vec<(u64, u32)> = (1..=MAX_HASHES)
                        .filter_map(|k| {
                            min_bits(layout, k, items, target, Model::Exact).map(|m| (m, k))
                        })
                        .collect();
                    let fewest = every.iter().map(|&(m, _)| m).min().unwrap();
                    let k = every
                        .iter()
                        .filter(|&&(m, _)| m == fewest)
                        .map(|&(_, k)| k)
                        .min_by_key(|&k| (k.abs_diff(start), k))
                        .unwrap();
                    let s = Sizing::for_rate(layout, n, p).unwrap();
                    assert_eq!(
                        (s.num_bits, s.num_hashes),
                        (fewest, k),
                        "{layout} n={n} p={p}"
                    );
                }
            }
        }
    }

    #[test]
    fn block_model_against_the_mean_fill_shortcut() {
        // The shortcut underestimates (Jensen's inequality): the exact model
        // must sit above it, by 0.5-6% for B = 512 and 4-35% for B = 64 here.
        for (layout, low, high) in [(Layout::Blocked, 1.005, 1.06), (Layout::Word, 1.04, 1.35)] {
            let b = layout.block_bits().unwrap() as f64;
            let s = Sizing::for_rate(layout, 1_000_000, 0.01).unwrap();
            let load = b * 1e6 / s.num_bits as f64;
            let k = s.num_hashes as i32;
            let shortcut: f64 = (0..400)
                .map(|i| poisson(i as usize, load) * (1.0 - (1.0 - 1.0 / b).powi(i * k)).powi(k))
                .sum();
            let ratio = s.false_positive_rate(1_000_000) / shortcut;
            assert!((low..high).contains(&ratio), "{layout}: {ratio}");
            // The search's mean-fill model is this shortcut.
            let mean_fill = model_fpr(layout, s.num_bits, s.num_hashes, 1e6, Model::MeanFill);
            assert!(
                (mean_fill / shortcut - 1.0).abs() < 1e-9,
                "{layout}: {mean_fill}"
            );
        }
    }

    /// Small filters have runs of `k` with equal sizes: a walk that stops
    /// at the first `k` whose size does not shrink can stop on a run that is
    /// not the least.
    /// The `Sectorized` model against a plain triple sum over the keys that
    /// picked both of an absent key's words (`s`) and each alone (`x`,
    /// `y`), with the fill chain for each word: the mixing's truncations
    /// and shifts lose nothing. With 2-4 words' worth of keys per word,
    /// and with `k = 1`, whose second word is tested for nothing.
    #[test]
    fn sectorized_model_matches_a_direct_sum() {
        for (k, load) in [(1u32, 40.0), (6, 50.0), (7, 30.0), (12, 16.0)] {
            let word_load = load / 4.0;
            let first = fill_chain(64, k.div_ceil(2), 120);
            let second = fill_chain(64, k / 2, 120);
            let rate_second = |i: usize| if k == 1 { 1.0 } else { second[i] };
            let mut direct = 0.0;
            for s in 0..40 {
                for x in 0..80 {
                    for y in 0..80 {
                        let weight = poisson(s, word_load / 4.0)
                            * poisson(x, word_load * 0.75)
                            * poisson(y, word_load * 0.75);
                        direct += weight * first[s + x] * rate_second(s + y);
                    }
                }
            }
            let model = model_fpr(Layout::Sectorized, 512, k, load, Model::Exact);
            assert!(
                (model / direct - 1.0).abs() < 1e-9,
                "k = {k}: {model} against {direct}"
            );
            // Mean fill stays a lower bound.
            let mean_fill = model_fpr(Layout::Sectorized, 512, k, load, Model::MeanFill);
            assert!(mean_fill <= model, "k = {k}: {mean_fill} > {model}");
        }
    }

    #[test]
    fn a_run_of_equal_sizes_does_not_stop_the_search() {
        let target = 1e-9 - hash_floor(100);
        let bits = |k| min_bits(Layout::Blocked, k, 100.0, target, Model::Exact);
        // From round(log2(1e9)) = 30 down, the sizes stay at 8704 to k = 27,
        // and only then fall.
        assert!((27..=30).all(|k| bits(k) == Some(8704)));
        assert_eq!(bits(26), Some(8192));
        let s = Sizing::for_rate(Layout::Blocked, 100, 1e-9).unwrap();
        assert_eq!((s.num_bits(), s.num_hashes()), (8192, 26));
        assert_eq!(
            Sizing::for_rate(Layout::Word, 1, 1e-6).unwrap().num_bits(),
            192
        );
    }

    #[test]
    fn ln_factorial_matches_the_sum_of_logs() {
        let mut sum = 0.0;
        for i in 1..2000 {
            sum += (i as f64).ln();
            let error = (ln_factorial(i) - sum).abs() / sum.max(1.0);
            assert!(error < 1e-13, "ln({i}!): {} vs {sum}", ln_factorial(i));
        }
    }

    #[test]
    fn extreme_loads_do_not_blow_up() {
        let tiny = Sizing::for_bits(Layout::Blocked, 512, 7).unwrap();
        assert_eq!(tiny.false_positive_rate(usize::MAX), 1.0);
        assert_eq!(tiny.false_positive_rate(0), 0.0);
        let word = Sizing::for_bits(Layout::Word, 64, 64).unwrap();
        assert!(word.false_positive_rate(1) > 0.0);
    }

    #[test]
    fn unreachable_and_oversized_rates_are_errors() {
        assert!(matches!(
            Sizing::for_rate(Layout::Word, 1 << 40, 1e-6),
            Err(BuildError::RateUnreachable { .. })
        ));
        // Needs 1/ln 2 = 1.44 bits per item (k = 1), 2^50.5 bits: the
        // fewest any k needs, not 0 as it once said.
        let Err(BuildError::TooLarge { requested_bits, .. }) =
            Sizing::for_rate(Layout::Standard, 1 << 50, 0.5)
        else {
            panic!("not TooLarge");
        };
        let per_item = requested_bits as f64 / 2f64.powi(50);
        assert!((1.44..1.45).contains(&per_item), "{per_item}");
    }
}
