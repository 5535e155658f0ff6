//! # Sizing: bits and hashes for a target false-positive rate
//!
//! [`Sizing::for_rate`] picks the smallest array, and the `k` that makes it
//! smallest, for which the layout's model stays at or below the requested
//! rate; for `Blocked`, a smaller `k` where it costs at most 2.5% more
//! bits. The models, the choice of `k` and the limits are the
//! [`sizing`](crate::docs::sizing) chapter.

use crate::error::BuildError;
use crate::layout::Layout;
use std::ops::RangeInclusive;

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

/// How many more bits a layout that [takes fewer
/// hashes](takes_fewer_hashes) accepts for them: up to a 40th (2.5%) of
/// the fewest.
const HASH_TOLERANCE: u64 = 40;

/// The most bits a layout that takes fewer hashes accepts, given the
/// fewest bits of any `k`: a [`HASH_TOLERANCE`]th more, rounded down to
/// whole granules (so no more than `bits` in a filter of fewer than
/// `HASH_TOLERANCE` granules).
fn tolerated_bits(bits: u64, granule: u64) -> u64 {
    (bits + bits / HASH_TOLERANCE) / granule * granule
}

/// Whether `layout`'s sizing takes fewer hashes for up to a
/// [`HASH_TOLERANCE`]th more bits: `Blocked`, whose insert writes each bit
/// with its own locked instruction, the bound on its speed. `Word` and
/// `Sectorized` write one or two words whatever `k` is; `Standard` keeps
/// the textbook optimum, which other libraries share.
fn takes_fewer_hashes(layout: Layout) -> bool {
    layout == Layout::Blocked
}

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
    /// `k` for it; for `Blocked`, whose insert writes each of a key's bits
    /// with its own locked instruction, the smallest `k` whose size is
    /// within 2.5% of that (rounded down to whole blocks), at its own
    /// smallest size (the [sizing](crate::docs::sizing) chapter, "Fewer
    /// hashes for `Blocked`").
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
        let start = start_k(target);
        let best = Search::new(layout, items, target).sizing(start);
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

/// Where a search over `k` for a model rate of `target` starts, and of
/// several `k` with the fewest bits the one it keeps (the nearest):
/// `round(log2(1/target))`, the textbook optimum for `Standard`. The
/// blocked layouts' best is lower, and their search starts from the best
/// of a cheap model, which it finds from here.
fn start_k(target: f64) -> u32 {
    ((1.0 / target).log2().round() as u32).clamp(1, MAX_HASHES)
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
    mut bits_for: impl FnMut(u32, Option<(u64, u32)>) -> Option<u64>,
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
fn lowest(start: u32, mut rate: impl FnMut(u32) -> f64) -> u32 {
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
    /// The mean-fill shortcut `(1 - (1 - 1/B)^(ik))^k` per block (for
    /// `Sectorized`, the product of its two words' mean-fill rates, as if
    /// independent): never above the exact model (Jensen's inequality, and
    /// the words' positive association), and cheap, so it bounds the
    /// search.
    MeanFill,
}

/// The layout's model false-positive rate with `items` keys.
fn model_fpr(layout: Layout, num_bits: u64, k: u32, items: f64, model: Model) -> f64 {
    Rates::new(layout, items, model).fpr(k, num_bits)
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

/// One sizing search: a layout, its item count and target rate, and the
/// exact and mean-fill models of each `k` it has asked about, each built
/// once and extended as the search asks about fuller blocks.
struct Search {
    layout: Layout,
    items: f64,
    target: f64,
    exact: Rates,
    mean_fill: Rates,
    /// Of the last two exact sizes found, by `k`: the exact size over the
    /// mean-fill one, which moves slowly and steadily with `k` (see
    /// `guess`).
    exact_over_mean_fill: [Option<(u32, f64)>; 2],
}

impl Search {
    /// How far either side of a guessed size its bracket reaches: a
    /// 1024th of it. The ratio `guess` extrapolates was off by a 10,000th
    /// to a 1,000th (`Sectorized`, n = 10^10, p = 1e-9), and a secant
    /// closes a bracket this narrow in two or three rates: a `k`'s search
    /// there takes five or six exact rates, against eight from the
    /// mean-fill size, a third below.
    const GUESS_REACH: u64 = 1024;

    fn new(layout: Layout, items: f64, target: f64) -> Self {
        Search {
            layout,
            items,
            target,
            exact: Rates::new(layout, items, Model::Exact),
            mean_fill: Rates::new(layout, items, Model::MeanFill),
            exact_over_mean_fill: [None; 2],
        }
    }

    /// A guess at the exact size for `k`, in granules, from its mean-fill
    /// size: that times the ratio of the two that the last exact sizes
    /// found had, extrapolated linearly in `k` when there are two of them.
    fn guess(&self, k: u32, mean_fill: u64) -> Option<u64> {
        let ratio = match self.exact_over_mean_fill {
            [_, None] => return None,
            [Some((k1, r1)), Some((k2, r2))] if k1 != k2 => {
                r2 + (r2 - r1) * (f64::from(k) - f64::from(k2)) / (f64::from(k2) - f64::from(k1))
            }
            [_, Some((_, r))] => r,
        };
        let guess = (mean_fill as f64 * ratio).round();
        (guess.is_finite() && guess >= 1.0).then_some(guess as u64)
    }

    /// The sizing `Sizing::for_rate` gives: the fewest bits and their `k`
    /// (`fewest_bits`), or for a layout that takes fewer hashes for a few
    /// more bits, the smallest `k` within the tolerance (`fewer_hashes`).
    fn sizing(&mut self, start: u32) -> Option<(u64, u32)> {
        let best = self.fewest_bits(start)?;
        Some(if takes_fewer_hashes(self.layout) {
            self.fewer_hashes(best)
        } else {
            best
        })
    }

    /// The fewest bits whose exact rate meets the target and the `k` that
    /// needs them (of several, the one nearest `start`), or `None` if no
    /// size up to `MAX_BITS` meets it.
    fn fewest_bits(&mut self, start: u32) -> Option<(u64, u32)> {
        let (layout, target) = (self.layout, self.target);
        let granule = layout.granule_bits();
        if layout.block_bits().is_none() {
            return fewest_bits(start, start, granule, |k, _| self.min_bits(k, Model::Exact));
        }
        // An exact block model costs far more than a mean-fill one, so
        // start the exact search where the mean-fill model is best: the `k`
        // with its lowest rate at the size it needs for `start`. The two
        // agree to within a `k` or so.
        let near = match self.min_bits(start, Model::MeanFill) {
            // One granule is the least any `k` needs.
            Some(bits) if bits > granule => {
                // The exact size is at least this one: when the tolerance of
                // `fewer_hashes` spans a granule there, that walk will look
                // below the best `k`, and the passes should reach it.
                if takes_fewer_hashes(layout) && tolerated_bits(bits, granule) > bits {
                    self.exact.blocks.window = Window::Downwards;
                }
                lowest(start, |k| self.mean_fill.fpr(k, bits))
            }
            Some(_) => start,
            None => {
                // The mean-fill rate is at most the exact one, and rates
                // fall as sizes grow: if its lowest at the largest size
                // misses the target, no `k` reaches it at any size, which a
                // walk over every `k` would find out one `k` at a time.
                let largest = MAX_BITS / granule * granule;
                let best = lowest(start, |k| self.mean_fill.fpr(k, largest));
                if self.mean_fill.fpr(best, largest) > target {
                    return None;
                }
                start
            }
        };
        // Of the best size so far: how many `k` have asked whether they meet
        // the target one granule smaller (by exact rates, and by mean-fill
        // ones for a `k` that cannot win a tie), and whether none does,
        // once asked of every `k` at once.
        let (mut run_size, mut run_asked, mut far_asked) = (0, 0, 0);
        let (mut none_smaller, mut none_smaller_by_mean_fill) = (None, None);
        fewest_bits(near, start, granule, |k, best| {
            let Some((best, best_k)) = best else {
                return self.min_bits(k, Model::Exact);
            };
            // Beside a best size, two rates settle how `k` compares with
            // it; only a smaller size needs a search. The mean-fill rate, at
            // most the exact one, may settle them without an exact model:
            // above the target at the best size, `k` needs more; above it
            // one granule smaller, `k` needs at least the best, which is all
            // the search must know of a `k` that could not win a tie. A `k`
            // that could needs its exact rate at the best size anyway (the
            // mean-fill one there would settle only the last of a run).
            let more = Some(best + granule);
            let smaller = (best - granule).max(granule);
            if run_size != best {
                (run_size, run_asked, far_asked) = (best, 0, 0);
                (none_smaller, none_smaller_by_mean_fill) = (None, None);
            }
            let wins_ties = (k.abs_diff(start), k) < (best_k.abs_diff(start), best_k);
            if !wins_ties {
                if self.mean_fill.fpr(k, best) > target {
                    return more;
                }
                if best == granule {
                    return Some(best);
                }
                // No `k` past this one in the walk wins a tie either: they
                // are farther from `start` (the walk goes out from where it
                // began, and a `k` nearer `start` than the best would win
                // it). Once none meets the target one granule smaller, none
                // of them can change the best, and answering "more" ends
                // the walk this way, instead of asking each of a long run
                // of equal sizes (a small filter, a few granules, has runs
                // of a dozen `k` or more). That is known from the exact
                // rates if a run has asked them already, or else, from the
                // second such `k` of a run on (most walks end at the first),
                // from the mean-fill ones: the exact ones would cost more
                // than the run, where it is short.
                far_asked += 1;
                if none_smaller == Some(true) {
                    return more;
                }
                if far_asked >= 2
                    && *none_smaller_by_mean_fill
                        .get_or_insert_with(|| self.lowest_mean_fill_misses(k, smaller).0)
                {
                    return more;
                }
                if self.mean_fill.fpr(k, smaller) > target {
                    return Some(best);
                }
            }
            if self.exact.fpr(k, best) > target {
                return more;
            }
            if best == granule {
                return Some(best);
            }
            // In a run of equal sizes, every `k` would ask whether it meets
            // the target one granule smaller. Rates are unimodal in `k`, so
            // once the lowest rate there misses it, none does: from the
            // second `k` of a best size on, ask that once instead.
            run_asked += 1;
            if run_asked >= 2 && none_smaller.is_none() {
                none_smaller = Some(self.none_meets(k, smaller));
            }
            if none_smaller == Some(true) || self.exact.fpr(k, smaller) > target {
                Some(best)
            } else {
                self.min_bits(k, Model::Exact)
            }
        })
    }

    /// Of the `k` below `best`'s whose fewest bits are at most
    /// `tolerated_bits` of `best`'s, the smallest, with its fewest bits;
    /// `best` if there is none (as in a filter too small for the tolerance
    /// to reach a granule).
    ///
    /// At a given size, rates rise as `k` falls below the best `k` (they
    /// are unimodal in `k`), so the walk down stops at the first `k` that
    /// misses the target at the tolerated size. Each `k` is asked its
    /// mean-fill rate first: it is at most the exact one, and settles the
    /// last `k` of most walks without an exact model.
    fn fewer_hashes(&mut self, best: (u64, u32)) -> (u64, u32) {
        let (bits, k) = best;
        let granule = self.layout.granule_bits();
        let tolerated = tolerated_bits(bits, granule);
        if tolerated == bits {
            return best;
        }
        let target = self.target;
        let meets = |rates: &mut Rates, k: u32| rates.fpr(k, tolerated) <= target;
        let mut fewer = k;
        while fewer > 1
            && meets(&mut self.mean_fill, fewer - 1)
            && meets(&mut self.exact, fewer - 1)
        {
            fewer -= 1;
        }
        if fewer == k {
            return best;
        }
        // `fewer`'s size lies between the best size, one granule below
        // which no `k` meets the target, and the tolerated size.
        let mut excess = |g: u64| (self.exact.fpr(fewer, g * granule) / target).ln();
        let (below, above) = (bits / granule - 1, tolerated / granule);
        let ends = ((below, excess(below)), (above, excess(above)));
        (narrow(ends.0, ends.1, excess) * granule, fewer)
    }

    /// Whether the lowest mean-fill rate with `num_bits` bits, found by
    /// walking out from `from` (rates are unimodal in `k`), is above the
    /// target: then no `k` meets it there, since exact rates are at least
    /// the mean-fill ones. Returns that and the `k` of the lowest.
    fn lowest_mean_fill_misses(&mut self, from: u32, num_bits: u64) -> (bool, u32) {
        let below = lowest(from, |k| self.mean_fill.fpr(k, num_bits));
        (self.mean_fill.fpr(below, num_bits) > self.target, below)
    }

    /// Whether no `k` meets the target with `num_bits` bits: whether the
    /// lowest exact rate there, found by walking out from `from` (rates are
    /// unimodal in `k`), is above it. The mean-fill rates are walked first,
    /// and settle it when their lowest is above the target too.
    fn none_meets(&mut self, from: u32, num_bits: u64) -> bool {
        let (misses, below) = self.lowest_mean_fill_misses(from, num_bits);
        misses || {
            let below = lowest(below, |k| self.exact.fpr(k, num_bits));
            self.exact.fpr(below, num_bits) > self.target
        }
    }

    /// The smallest size with `k` hashes whose rate under `model` is at most
    /// the target, or `None` above `MAX_BITS`.
    fn min_bits(&mut self, k: u32, model: Model) -> Option<u64> {
        let (layout, items, target) = (self.layout, self.items, self.target);
        let granule = layout.granule_bits();
        let max_granules = MAX_BITS / granule;
        let mut lower = match (layout.block_bits(), model) {
            // The exact size is at least the mean-fill one, whose rate is at
            // most the exact rate; without a mean-fill size there is no exact
            // one either.
            (Some(_), Model::Exact) => self.min_bits(k, Model::MeanFill)? / granule,
            _ => {
                // Blocking only ever raises the exact rate, so the Standard
                // size is a lower bound of every exact size; a mean-fill size
                // found above it is a lower bound too.
                let lower = standard_bits(k, items, target) / granule as f64;
                if !lower.is_finite() || lower >= max_granules as f64 {
                    return None;
                }
                (lower.ceil() as u64).max(1)
            }
        };
        if let Some(block) = layout.block_bits() {
            // Sizes whose blocks are saturated have rate 1, above any
            // target: start past them.
            let unsaturated = Rates::saturated_below(layout, k, items);
            if unsaturated >= max_granules as f64 {
                return None;
            }
            lower = lower.max(unsaturated as u64);
            while Rates::saturates(layout, k, block as f64 * items / (lower * granule) as f64) {
                lower += 1;
            }
        }
        let guess = match (layout.block_bits(), model) {
            (Some(_), Model::Exact) => self.guess(k, lower),
            _ => None,
        };
        let rates = match model {
            Model::Exact => &mut self.exact,
            Model::MeanFill => &mut self.mean_fill,
        };
        let mut ln_fpr = |g: u64| rates.fpr(k, g * granule).ln();
        let ln_fpp = target.ln();
        // Where the search starts: below the size, from the lower bound; or
        // with a guess (only ever a guess: the search finds the same size
        // wherever it starts), from just below it, and with a size known to
        // meet the target as soon as that is found.
        let mut step = (lower / 32).max(1);
        let (mut start, mut meets) = (None, None);
        if let Some(guess) = guess.filter(|&g| g > lower + 1 && g < max_granules) {
            let reach = (guess / Self::GUESS_REACH).max(1);
            let below = (guess - reach).max(lower + 1);
            let ln_below = ln_fpr(below);
            if ln_below > ln_fpp {
                // Then by a step to just above the guess.
                (start, step) = (Some((below, ln_below)), 2 * reach);
            } else {
                meets = Some((below, ln_below));
            }
        }
        let (mut lo, mut ln_lo) = start.unwrap_or_else(|| (lower, ln_fpr(lower)));
        if ln_lo <= ln_fpp {
            return Some(lower * granule);
        }
        // Sizes and rates are compared on the log-log line, where the rate
        // is nearly straight: a secant through two sizes meets the target
        // near where the rate does, a little short or a little past.
        let over = |ln: f64| ln - ln_fpp;
        // Gallop to an upper bound: one step of a 32nd of the lower bound
        // (the size is rarely far above it), then to where the secant
        // through the last two sizes meets the target, or by a step doubled
        // each time if that is further: fpr(lo) > fpp >= fpr(hi). A gallop
        // that has not arrived within eight steps asks first whether the
        // largest size reaches the target at all: a rate no size reaches (a
        // `k` far from the best, or a target the layout cannot meet) then
        // costs one rate instead of a gallop to the limit. A size below a
        // guess that meets the target already bounds it: no gallop.
        let mut doublings = 0;
        let mut before_lo = None;
        let (hi, ln_hi) = match meets {
            Some(known) => known,
            None => loop {
                let lo_point = ((lo as f64).ln(), over(ln_lo));
                let crossing = before_lo
                    .map(|before| secant(before, lo_point).exp().ceil())
                    .filter(|x: &f64| x.is_finite())
                    .map_or(0, |x| x.min(max_granules as f64) as u64);
                let next = lo.saturating_add(step).max(crossing).min(max_granules);
                let ln_next = ln_fpr(next);
                if ln_next <= ln_fpp {
                    break (next, ln_next);
                }
                if next == max_granules {
                    return None;
                }
                before_lo = Some(lo_point);
                (lo, ln_lo) = (next, ln_next);
                step = step.saturating_mul(2);
                doublings += 1;
                if doublings == 8 && ln_fpr(max_granules) > ln_fpp {
                    return None;
                }
            },
        };
        let hi = narrow((lo, over(ln_lo)), (hi, over(ln_hi)), |g| over(ln_fpr(g)));
        if model == Model::Exact && layout.block_bits().is_some() {
            let [_, last] = self.exact_over_mean_fill;
            self.exact_over_mean_fill = [last, Some((k, hi as f64 / lower as f64))];
        }
        Some(hi * granule)
    }
}

/// Where the line through two points `(x, y)` crosses `y = 0`.
fn secant((x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> f64 {
    x1 - y1 * (x2 - x1) / (y2 - y1)
}

/// The least size in granules in `lo + 1..=hi` at which a rate meets the
/// target, given `(size, excess)` at both ends, where `excess(g)` is the
/// log of the ratio of the rate at `g` granules to the target: above 0 at
/// `lo`, at most 0 at `hi`, and falling as sizes grow.
///
/// It narrows the interval by the secant through the last two sizes tried
/// on the log-log line, where the rate is nearly straight. That closes in
/// faster than interpolating between the ends of the interval (the rate
/// bends, so those guesses tend to land on one side and the far end stays
/// put); it falls back to the ends when the secant leaves the interval, and
/// halves after two steps that did not halve it.
fn narrow(lo: (u64, f64), hi: (u64, f64), mut excess: impl FnMut(u64) -> f64) -> u64 {
    let point = |(size, excess): (u64, f64)| ((size as f64).ln(), excess);
    let (mut lo_point, mut hi_point) = (point(lo), point(hi));
    let (mut lo, mut hi) = (lo.0, hi.0);
    let (mut last, mut newest) = (lo_point, hi_point);
    let mut slow = 0;
    while hi - lo > 1 {
        let width = hi - lo;
        let inside = |x: f64| x.is_finite() && x > lo_point.0 && x < hi_point.0;
        let guess = [secant(last, newest), secant(lo_point, hi_point)]
            .into_iter()
            .find(|&x| inside(x));
        let mid = match guess {
            Some(x) if slow < 2 => (x.exp().round() as u64).clamp(lo + 1, hi - 1),
            _ => lo + width / 2,
        };
        let at_mid = point((mid, excess(mid)));
        if at_mid.1 <= 0.0 {
            (hi, hi_point) = (mid, at_mid);
        } else {
            (lo, lo_point) = (mid, at_mid);
        }
        (last, newest) = (newest, at_mid);
        slow = if hi - lo > width / 2 { slow + 1 } else { 0 };
    }
    hi
}

/// The rates of one layout with a number of keys, under one model, for any
/// `k` and size: closed-form for `Standard`, from [`BlockModels`] for the
/// blocked layouts, which build each `k`'s model on first use and extend
/// it as fuller blocks are asked about.
struct Rates {
    layout: Layout,
    items: f64,
    /// The models of the layout's blocks, or of a `Sectorized` block's
    /// words.
    blocks: BlockModels,
    /// `sectors_fpr`'s Poisson weights, kept between rates so that a
    /// search allocates them once, not once per rate.
    weights: Vec<f64>,
}

impl Rates {
    /// Words a `Sectorized` key picks each of its two words from.
    const SECTOR_CHOICES: f64 = 4.0;

    fn new(layout: Layout, items: f64, model: Model) -> Self {
        let block = match layout {
            Layout::Sectorized => 64,
            _ => layout.block_bits().unwrap_or(64),
        };
        Rates {
            layout,
            items,
            blocks: BlockModels::new(block, model),
            weights: Vec::new(),
        }
    }

    /// The rate with `k` hashes and `num_bits` bits.
    ///
    /// `Blocked` and `Word` draw a key's `k` bits from its block.
    /// `Sectorized` draws `ceil(k/2)` bits from one of the block's first
    /// four words and `floor(k/2)` from one of its last four; each word is
    /// a block of 64 bits for the keys that pick it (for `k = 1` the second
    /// word is tested for nothing).
    fn fpr(&mut self, k: u32, num_bits: u64) -> f64 {
        let Some(block) = self.layout.block_bits() else {
            return standard_fpr(num_bits, k, self.items);
        };
        let load = block as f64 * self.items / num_bits as f64;
        if self.layout != Layout::Sectorized {
            return self.blocks.fpr(k, load);
        }
        let word_load = load / Self::SECTOR_CHOICES;
        let (first, second) = (k.div_ceil(2), k / 2);
        if Self::saturates(self.layout, k, load) {
            return 1.0;
        }
        // The keys that picked the absent key's word, `s + x`, are
        // Poisson(λ/4): for `k = 1` that mix is the rate.
        let first_word = self.blocks.fpr(first, word_load);
        if second == 0 {
            return first_word;
        }
        // Both words' rates grow with `s`, so they are positively
        // associated and the rate is at least the product of their means.
        // That bound is the mean-fill model, which need only bound the
        // exact one from below; for the exact model, what the sums below may
        // leave out is measured against it.
        let lower = first_word * self.blocks.fpr(second, word_load);
        if matches!(self.blocks.growth, Growth::MeanFill { .. }) {
            return lower;
        }
        let tail = (lower * LEFT_OUT).max(f64::MIN_POSITIVE);
        let keys = poisson_support(word_load, tail);
        self.blocks.extend(first, keys);
        self.blocks.extend(second, keys);
        let per_keys = &self.blocks.per_keys;
        let (first, second) = (&per_keys[first as usize], &per_keys[second as usize]);
        sectors_fpr(
            &first[..keys],
            &second[..keys],
            word_load,
            tail,
            &mut self.weights,
        )
    }

    /// Whether a block of `load` keys is saturated: the rate is then 1.
    fn saturates(layout: Layout, k: u32, load: f64) -> bool {
        match layout {
            Layout::Sectorized => {
                BlockModels::saturates(64, k.div_ceil(2), load / Self::SECTOR_CHOICES)
            }
            _ => BlockModels::saturates(layout.block_bits().expect("a blocked layout"), k, load),
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
            / (BlockModels::SATURATED_DRAWS_PER_BIT * layout.granule_bits() as f64)
    }
}

/// The rate of a `Sectorized` block whose words hold `word_load` keys each
/// on average, given `per_keys` of the absent key's first word and of its
/// second, both to the support of `word_load` for a tail of `tail`, the
/// most the sums may leave out.
///
/// Of the keys in the block, a quarter pick the key's first word, a quarter
/// its second, and a sixteenth both: `s ~ Poisson(λ/16)` pick both,
/// `x, y ~ Poisson(3λ/16)` one each, independently, and the rate is
/// `Σ_s P(s) A(s) B(s)` with `A(s) = Σ_x P(x) first[s + x]`. The weights
/// `P(x)` are computed into `weights`, whatever it held.
fn sectors_fpr(
    first: &[f64],
    second: &[f64],
    word_load: f64,
    tail: f64,
    weights: &mut Vec<f64>,
) -> f64 {
    let (both, one) = (word_load / 4.0, word_load * 0.75);
    // The weights of `x` (and `y`), from where they matter to where their
    // tail is negligible.
    let lowest = poisson_lowest(one);
    let mut weight = poisson(lowest, one);
    weights.clear();
    for x in lowest..first.len() {
        weights.push(weight);
        let step = one / (x + 1) as f64;
        weight *= step;
        if step < 1.0 && weight < tail * (1.0 - step) {
            break;
        }
    }
    let given_shared =
        |per_keys: &[f64], s: usize| dot(weights, per_keys.get(s + lowest..).unwrap_or(&[]));
    poisson_mix(both, first.len(), |s| {
        given_shared(first, s) * given_shared(second, s)
    })
}

/// The rate of a block that holds `i` keys, `per_keys[k][i] = E[(X/B)^k |
/// i keys]` with `X` the block's set bits, for each `k` asked about and
/// every `i` up to where the Poisson mix of the loads asked about stops.
///
/// The exact model follows an absent key instead of the block. Its `k`
/// probes land on `J` distinct bits, distributed as `k` draws with
/// replacement from `B` bits, and it is a false positive iff the block's
/// `i k` insert draws cover all `J`, so that
///
/// ```text
/// E[(X/B)^k | i keys] = Σ_j P(J = j) · C_j(i k)
/// ```
///
/// with `C_j(T)` the chance that `T` draws cover `j` given bits. A first
/// draw covers one of them with probability `j / B`, so
/// `C_j(T + 1) = (j/B) C_(j-1)(T) + (1 - j/B) C_j(T)` from `C_j(0) = [j =
/// 0]`, computed as `C_j + (j/B) (C_(j-1) - C_j)` (one product, not two):
/// each draw adds to `C_j` a term that is never negative (covering fewer
/// given bits is likelier), so nothing cancels, as it does in the
/// inclusion-exclusion closed form `Σ_l (-1)^l C(J, l) (1 - l/B)^(ik)`;
/// and over `j <= k`, where a chain over `X` has `B + 1` states. `C` does
/// not depend on `k`: one pass over the draws serves a window of `k` about
/// where a search starts, each adding a dot product per key, where a
/// model built per `k` would repeat the chain. The test
/// `coverage_model_matches_the_fill_chain` checks it against the chain
/// over `X` that it replaces.
struct BlockModels {
    /// Bits per block.
    block: u64,
    /// `per_keys[k]`, empty for a `k` not asked about yet.
    per_keys: Vec<Vec<f64>>,
    growth: Growth,
    /// The `k` a new pass serves.
    window: Window,
    /// The last rates asked, by `k` and load: a search asks the same again
    /// (`Sectorized` neighbours `2w - 1`, `2w` and `2w + 1` all ask word
    /// `w`'s, and a walk over `k` asks each at the best size twice).
    recent: Vec<((u32, u64), f64)>,
}

/// How a [`BlockModels`]' `per_keys` grow.
enum Growth {
    /// The mean-fill shortcut `(1 - (1 - 1/B)^(ik))^k`, with the chance
    /// `(1 - 1/B)^(ik)` that a bit is still clear after the keys so far,
    /// by `k`.
    MeanFill { clear: Vec<f64> },
    /// The exact model, by passes over the draws, each for a window of
    /// `k`.
    Exact { passes: Vec<DrawPass> },
}

impl BlockModels {
    /// A block is saturated (every bit set but for odds below e^-30) once
    /// its expected draws exceed 30 B: the rate is then 1.
    const SATURATED_DRAWS_PER_BIT: f64 = 30.0;
    /// How many recent rates are kept.
    const RECENT: usize = 8;

    /// No models yet (nor memory for them: a `Standard` search has none).
    fn new(block: u64, model: Model) -> Self {
        BlockModels {
            block,
            per_keys: Vec::new(),
            growth: match model {
                Model::Exact => Growth::Exact { passes: Vec::new() },
                Model::MeanFill => Growth::MeanFill { clear: Vec::new() },
            },
            window: Window::AboutK,
            recent: Vec::new(),
        }
    }

    fn saturates(block: u64, k: u32, load: f64) -> bool {
        load * f64::from(k) > Self::SATURATED_DRAWS_PER_BIT * block as f64
    }

    /// The rate with `k` hashes at `load` keys per block, mixed over the
    /// Poisson number of keys as far as its terms matter (extending the
    /// model that far), whatever more the model holds: a rate does not
    /// depend on what was asked before.
    fn fpr(&mut self, k: u32, load: f64) -> f64 {
        if Self::saturates(self.block, k, load) {
            return 1.0;
        }
        let asked = (k, load.to_bits());
        if let Some(&(_, rate)) = self.recent.iter().find(|(key, _)| *key == asked) {
            return rate;
        }
        let rate = poisson_mix(load, usize::MAX, |i| {
            match self
                .per_keys
                .get(k as usize)
                .and_then(|per_keys| per_keys.get(i))
            {
                Some(&rate) => rate,
                None => {
                    self.extend(k, i + 1);
                    self.per_keys[k as usize][i]
                }
            }
        });
        if self.recent.len() == Self::RECENT {
            self.recent.remove(0);
        }
        self.recent.push((asked, rate));
        rate
    }

    /// Extends `per_keys[k]` to at least `keys` keys.
    fn extend(&mut self, k: u32, keys: usize) {
        let index = k as usize;
        if self.per_keys.len() <= index {
            self.per_keys.resize(MAX_HASHES as usize + 1, Vec::new());
        }
        let per_keys = &mut self.per_keys[index];
        if per_keys.len() >= keys {
            return;
        }
        match &mut self.growth {
            Growth::MeanFill { clear } => {
                // Cheap keys, asked for one at a time by a Poisson mix:
                // grow by doubling rather than by one.
                let keys = keys.max(2 * per_keys.len());
                clear.resize(MAX_HASHES as usize + 1, 1.0);
                let clear_per_key = (1.0 - 1.0 / self.block as f64).powi(k as i32);
                if per_keys.is_empty() {
                    per_keys.push(0.0);
                }
                // The bases `1 - clear` first, then their powers all at
                // once: a chain of one multiply per key, then independent
                // multiplies the compiler vectorises.
                let from = per_keys.len();
                let mut still_clear = clear[index];
                per_keys.extend((from..keys).map(|_| {
                    still_clear *= clear_per_key;
                    1.0 - still_clear
                }));
                clear[index] = still_clear;
                raise(&mut per_keys[from..], k);
            }
            Growth::Exact { passes } => {
                let pass = match passes.iter().position(|p| p.ks.contains(&k)) {
                    Some(at) => &mut passes[at],
                    None => {
                        // A window about `k` that leaves out the `k` of the
                        // passes already made.
                        let (mut first, mut last) = self.window.about(k).into_inner();
                        for made in passes.iter() {
                            if *made.ks.end() < k {
                                first = first.max(made.ks.end() + 1);
                            } else {
                                last = last.min(made.ks.start() - 1);
                            }
                        }
                        passes.push(DrawPass::new(self.block, first..=last, &mut self.per_keys));
                        passes.last_mut().expect("pushed")
                    }
                };
                while self.per_keys[index].len() < keys {
                    pass.draw(&mut self.per_keys);
                }
            }
        }
    }
}

/// Which `k` a new pass of the draws serves besides the one that starts it
/// (the passes already made aside). Each `k` of a window costs a dot
/// product per key, and its largest `k` sets the chain's length; a `k`
/// outside every window costs a pass of its own, from the first draw.
#[derive(Clone, Copy, Debug)]
enum Window {
    /// `k / 6` below and `k / 6 + 1` above: a search over `k` rarely goes
    /// further (runs of equal sizes are longer for larger `k`), and mostly
    /// upwards, towards `round(log2(1/p))`.
    AboutK,
    /// `k / 4` below and one above, for a search that then looks for fewer
    /// hashes (`Search::fewer_hashes`): that walk goes down by up to about
    /// a sixth of `k` (from 27 to 23 for `Blocked` at p = 1e-12, 1M keys),
    /// and the sizes of a filter large enough for it have no runs that
    /// lead the search upwards.
    Downwards,
}

impl Window {
    /// The window of a pass started by `k`.
    fn about(self, k: u32) -> RangeInclusive<u32> {
        let (below, above) = match self {
            Window::AboutK => (k / 6, k / 6 + 1),
            Window::Downwards => (k / 4, 1),
        };
        k.saturating_sub(below).max(1)..=(k + above).min(MAX_HASHES)
    }
}

/// One pass over a block's insert draws, keeping `C_j` for the last draw
/// only and giving each `k` of a window its next key whenever its draws
/// make one: the memory of a few rows, whatever the draws.
struct DrawPass {
    ks: RangeInclusive<u32>,
    /// `P(J = j)` for `j <= min(k, B)`, for each `k` of the window in order.
    distinct: Vec<Vec<f64>>,
    /// For each `k` of the window, the draws until its next key is whole,
    /// as of the last draw that made a key.
    until_key: Vec<u32>,
    /// Draws until the next that makes a key for some `k`.
    until_any: u32,
    /// `C_j` after the draws so far, for `j` up to the window's largest `k`
    /// (and `B`), and the next draw's.
    covered: Vec<f64>,
    next: Vec<f64>,
    /// `j / B`: the chance that a draw covers one of `j` given bits.
    hit: Vec<f64>,
}

impl DrawPass {
    /// The pass before any draw, with `per_keys[k] = [0]` (no keys, no
    /// false positive) for each `k` of `ks`.
    fn new(block: u64, ks: RangeInclusive<u32>, per_keys: &mut [Vec<f64>]) -> Self {
        let states = (*ks.end() as usize).min(block as usize) + 1;
        let hit: Vec<f64> = (0..states).map(|j| j as f64 / block as f64).collect();
        let miss: Vec<f64> = (0..states)
            .map(|j| (block - j as u64) as f64 / block as f64)
            .collect();
        // The distinct bits among the absent key's probes: a chain that
        // moves from j to j + 1 when a probe misses the j already drawn,
        // taken at each `k` of the window.
        let mut law = vec![0.0; states];
        law[0] = 1.0;
        let mut distinct = Vec::new();
        for probe in 1..=*ks.end() as usize {
            for j in (1..=probe.min(states - 1)).rev() {
                law[j] = law[j] * hit[j] + law[j - 1] * miss[j - 1];
            }
            law[0] = 0.0;
            if ks.contains(&(probe as u32)) {
                // Only `j <= k` can be drawn; a law of the window's length
                // would group the dot product's terms by the window, and a
                // rate would depend on which pass computed it.
                distinct.push(law[..=probe.min(states - 1)].to_vec());
                // Room for the keys a search usually asks of one `k` (a
                // few dozen), so that the draws do not reallocate it
                // key by key as it grows.
                per_keys[probe] = Vec::with_capacity(64);
                per_keys[probe].push(0.0);
            }
        }
        let mut covered = vec![0.0; states];
        covered[0] = 1.0;
        DrawPass {
            distinct,
            until_key: ks.clone().collect(),
            until_any: *ks.start(),
            ks,
            next: covered.clone(),
            covered,
            hit,
        }
    }

    /// One more draw, `C_j + (j/B) (C_(j-1) - C_j)` for each `C_j` (into
    /// the other buffer, a loop the compiler vectorises: three loads a
    /// state, which bound it, where the form with two products takes four);
    /// then `per_keys[k]` gains a key for each `k` whose draws make one
    /// (counted down to the next such draw, not per `k` at every draw).
    fn draw(&mut self, per_keys: &mut [Vec<f64>]) {
        let states = self.covered.len();
        let (last, next) = (&self.covered[..states], &mut self.next[..states]);
        let hit = &self.hit[..states];
        for j in 1..states {
            next[j] = last[j] + (last[j - 1] - last[j]) * hit[j];
        }
        std::mem::swap(&mut self.covered, &mut self.next);
        self.until_any -= 1;
        if self.until_any > 0 {
            return;
        }
        let (first, mut next_any) = (*self.ks.start(), u32::MAX);
        let gap = self.until_key.iter().min().copied().unwrap_or(0);
        for (w, until) in self.until_key.iter_mut().enumerate() {
            *until -= gap;
            if *until == 0 {
                let k = first + w as u32;
                *until = k;
                per_keys[k as usize].push(dot(&self.distinct[w], &self.covered));
            }
            next_any = next_any.min(*until);
        }
        self.until_any = next_any;
    }
}

/// `Σ_i Poisson(i; load) · rate(i)` over `i < len`, for rates in `[0, 1]`
/// that never fall as `i` grows, summed over `i` where the terms matter: it
/// stops once what the Poisson tail could add is below [`LEFT_OUT`] of the
/// sum, so a model need only reach that far.
fn poisson_mix(load: f64, len: usize, mut rate: impl FnMut(usize) -> f64) -> f64 {
    if load <= 0.0 {
        return if len > 0 { rate(0) } else { 0.0 };
    }
    let first = poisson_lowest(load);
    let mut weight = poisson(first, load);
    let mut total = 0.0;
    for i in first..len {
        total += weight * rate(i);
        let step = load / (i + 1) as f64;
        weight *= step;
        // Past the mode each weight is at most `step` times the last, so
        // with every rate at most 1 the rest adds under
        // `weight / (1 - step)`.
        if step < 1.0 && (weight < total * LEFT_OUT * (1.0 - step) || weight == 0.0) {
            break;
        }
    }
    total.min(1.0)
}

/// The most a rate's sums leave out, relative to the rate: below the
/// rounding error of the sums themselves (about 1e-14 for a hundred terms),
/// so that a rate does not depend on where they stop.
const LEFT_OUT: f64 = 1e-15;

/// Each `x` to `x^k` by squaring, in place: for each `x` the
/// multiplications `f64::powi` makes, in the same order (so the same
/// result: `raise_gives_what_powi_gives`), taken a bit of `k` at a time
/// over a chunk of values, a loop the compiler vectorises where one
/// value's chain of squarings would wait on each multiply.
fn raise(values: &mut [f64], k: u32) {
    const CHUNK: usize = 32;
    for chunk in values.chunks_mut(CHUNK) {
        // The squares take the values' place; the powers build up beside
        // them.
        let mut powers = [1.0; CHUNK];
        let powers = &mut powers[..chunk.len()];
        let mut bits = k;
        loop {
            if bits & 1 != 0 {
                for (power, square) in powers.iter_mut().zip(chunk.iter()) {
                    *power *= square;
                }
            }
            bits >>= 1;
            if bits == 0 {
                break;
            }
            for square in chunk.iter_mut() {
                *square *= *square;
            }
        }
        chunk.copy_from_slice(powers);
    }
}

/// Where the terms of a sum over a Poisson(λ) count `i` of rates that only
/// grow with `i` start to matter: below λ - 12√λ the weights sum to under
/// e^-72, so those terms are below e^-72 of the total. From there a sum
/// steps the weights by λ / i.
fn poisson_lowest(load: f64) -> usize {
    // The cast truncates, which is the floor of what `max` leaves (a
    // call to `floor` on the baseline x86-64 target).
    (load - 12.0 * load.sqrt()).max(0.0) as usize
}

/// `Σ a[i] b[i]` over the shorter, in four lanes the compiler can
/// vectorise.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let len = a.len().min(b.len());
    let (a4, b4) = (a[..len].chunks_exact(4), b[..len].chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut lanes = [0.0; 4];
    for (x, y) in a4.zip(b4) {
        for lane in 0..4 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) + tail
}

/// Keys per block beyond which the Poisson(λ) tail is below `tail`.
fn poisson_support(load: f64, tail: f64) -> usize {
    if load <= 0.0 {
        return 1;
    }
    // Past the mode each weight is at most λ / (i + 1) of the last, so the
    // tail past i is under w_i / (1 - λ / (i + 1)).
    let mut i = load as usize; // the floor: `load` is positive
    let mut weight = poisson(i, load);
    let mut ratio = load / (i + 1) as f64;
    loop {
        i += 1;
        weight *= ratio;
        ratio = load / (i + 1) as f64;
        if ratio < 1.0 && weight < tail * (1.0 - ratio) {
            return i + 1;
        }
    }
}

/// `Poisson(i; λ)`, through logs: `e^-λ` alone underflows for large `λ`.
fn poisson(i: usize, load: f64) -> f64 {
    if i == 0 {
        return (-load).exp(); // the same terms, without two logarithms
    }
    (i as f64 * load.ln() - load - ln_factorial(i)).exp()
}

/// `ln(i!)`: of the product below 23 (whose factorials a double holds
/// exactly), Stirling's series above (within 1e-13 of the sum of logs:
/// `ln_factorial_matches_the_sum_of_logs`).
fn ln_factorial(i: usize) -> f64 {
    if i < 23 {
        return (2..=i).map(|j| j as f64).product::<f64>().ln();
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

    /// The sizing chapter's table of what `Blocked` takes for fewer hashes
    /// shows the fewest bits of any `k` and what `Sizing::for_rate` takes.
    #[test]
    fn fewer_hashes_table_matches_the_model() {
        let n = 1_000_000;
        let doc = include_str!("docs/sizing.rs");
        for (label, p) in [
            ("0.01", 0.01),
            ("0.001", 1e-3),
            ("1e-4", 1e-4),
            ("1e-6", 1e-6),
            ("1e-9", 1e-9),
        ] {
            let target = p - hash_floor(n);
            let start = start_k(target);
            let (fewest, best_k) = Search::new(Layout::Blocked, n as f64, target)
                .fewest_bits(start)
                .unwrap();
            let taken = Sizing::for_rate(Layout::Blocked, n, p).unwrap();
            let per_key = |bits: u64| bits as f64 / n as f64;
            let expected = [
                format!("{:.2} (k={best_k})", per_key(fewest)),
                format!(
                    "{:.2} (k={})",
                    per_key(taken.num_bits()),
                    taken.num_hashes()
                ),
                format!(
                    "{:.1}%",
                    (taken.num_bits() as f64 / fewest as f64 - 1.0) * 100.0
                ),
            ];
            assert_eq!(
                row(doc, &format!("| p = {label} "))[1..],
                expected,
                "p = {label}"
            );
        }
    }

    /// Every bits-per-key table (the sizing chapter's, with every rate; the
    /// README's, with some; the layouts chapter's) shows what
    /// `Sizing::for_rate` computes, so none can drift.
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
            assert_eq!(
                row(include_str!("docs/sizing.rs"), &format!("| {label} "))[1..],
                expected,
                "docs::sizing, row {label}"
            );
            if ["0.01", "0.001"].contains(&label) {
                assert_eq!(
                    row(include_str!("../README.md"), &format!("| {label} "))[1..],
                    expected,
                    "README, row {label}"
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
    fn coverage_model_matches_the_fill_chain() {
        for block in [64, 512] {
            for k in [1, 2, 3, 7, 16, 33, 64] {
                let mut models = BlockModels::new(block, Model::Exact);
                models.extend(k, poisson_support(20.0, 1e-20));
                let fast = std::mem::take(&mut models.per_keys[k as usize]);
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
    /// `k` with that many, the nearest `round(log2(1/p))`; then, for a
    /// layout that takes fewer hashes, the smallest `k` whose fewest bits
    /// are within the tolerance of those, rounded down to whole granules.
    #[test]
    fn the_search_finds_what_trying_every_k_finds() {
        for layout in Layout::ALL {
            for p in [0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-9, 1e-12] {
                for n in [1, 7, 100, 5000, 1_000_000] {
                    let items = n as f64;
                    let target = p - hash_floor(n);
                    let start = start_k(target);
                    let every: Vec<(u64, u32)> = (1..=MAX_HASHES)
                        .filter_map(|k| {
                            Search::new(layout, items, target)
                                .min_bits(k, Model::Exact)
                                .map(|m| (m, k))
                        })
                        .collect();
                    let fewest = every.iter().map(|&(m, _)| m).min().unwrap();
                    let k = every
                        .iter()
                        .filter(|&&(m, _)| m == fewest)
                        .map(|&(_, k)| k)
                        .min_by_key(|&k| (k.abs_diff(start), k))
                        .unwrap();
                    let tolerated = tolerated_bits(fewest, layout.granule_bits());
                    let expected = match takes_fewer_hashes(layout) && tolerated > fewest {
                        true => *every.iter().find(|&&(m, _)| m <= tolerated).unwrap(),
                        false => (fewest, k),
                    };
                    let s = Sizing::for_rate(layout, n, p).unwrap();
                    assert_eq!((s.num_bits, s.num_hashes), expected, "{layout} n={n} p={p}");
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

    /// Small filters have runs of `k` with equal sizes: a walk that stops
    /// at the first `k` whose size does not shrink can stop on a run that is
    /// not the least.
    #[test]
    fn a_run_of_equal_sizes_does_not_stop_the_search() {
        let target = 1e-9 - hash_floor(100);
        let mut search = Search::new(Layout::Blocked, 100.0, target);
        let mut bits = |k| search.min_bits(k, Model::Exact);
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

    /// `raise` gives, to the bit, what `powi` does, for every `k` and
    /// chunk lengths shorter and longer than its chunk.
    #[test]
    fn raise_gives_what_powi_gives() {
        for k in 1..=MAX_HASHES {
            for len in [1, 5, 32, 77] {
                let bases: Vec<f64> = (1..=len).map(|i| 1.0 - 0.9 / i as f64).collect();
                let mut raised = bases.clone();
                raise(&mut raised, k);
                for (base, raised) in bases.iter().zip(&raised) {
                    assert_eq!(
                        raised.to_bits(),
                        base.powi(k as i32).to_bits(),
                        "k={k} x={base}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_guess_decides_where_a_search_starts_not_what_it_finds() {
        for layout in [Layout::Blocked, Layout::Word, Layout::Sectorized] {
            for (n, p) in [(100, 1e-12), (1_000_000, 1e-6), (10_000_000_000, 1e-9)] {
                let (items, target) = (n as f64, p - hash_floor(n));
                for k in [6, 17, 30] {
                    let mut search = Search::new(layout, items, target);
                    let Some(exact) = search.min_bits(k, Model::Exact) else {
                        continue;
                    };
                    let mean_fill = search.min_bits(k, Model::MeanFill).unwrap();
                    let right = exact as f64 / mean_fill as f64;
                    // Guesses between the lower bound and the size, right,
                    // a little and far too large, and extrapolated from two
                    // other `k`.
                    let ratios = [
                        [None, Some((k, (1.0 + right) / 2.0))],
                        [None, Some((k, right))],
                        [None, Some((k, right * 1.0005))],
                        [None, Some((k, right * 1.01))],
                        [None, Some((k, 3.0))],
                        [Some((k - 2, right * 1.002)), Some((k - 1, right * 1.001))],
                    ];
                    for ratios in ratios {
                        let mut search = Search::new(layout, items, target);
                        search.exact_over_mean_fill = ratios;
                        assert_eq!(
                            search.min_bits(k, Model::Exact),
                            Some(exact),
                            "{layout} n={n} p={p} k={k} {ratios:?}"
                        );
                    }
                }
            }
        }
    }

    /// Models are shared by a search and extended as it asks: a rate must
    /// come out the same, to the bit, whatever was asked before it (or the
    /// search and the rate a filter reports could disagree).
    #[test]
    fn a_rate_does_not_depend_on_what_was_asked_before() {
        for layout in [Layout::Blocked, Layout::Word, Layout::Sectorized] {
            for model in [Model::Exact, Model::MeanFill] {
                let items = 1000.0;
                let asked = [
                    (3, 20_480u64),
                    (40, 512),
                    (17, 4096),
                    (9, 65_536),
                    (28, 8192),
                ];
                let mut used = Rates::new(layout, items, model);
                for (k, bits) in asked {
                    used.fpr(k, bits.next_multiple_of(layout.granule_bits()));
                }
                for k in [2, 9, 10, 16, 17, 18, 27, 33, 40] {
                    for bits in [1024u64, 6144, 20_480, 131_072] {
                        let bits = bits.next_multiple_of(layout.granule_bits());
                        let fresh = Rates::new(layout, items, model).fpr(k, bits);
                        assert_eq!(
                            used.fpr(k, bits).to_bits(),
                            fresh.to_bits(),
                            "{layout} {model:?} k={k} bits={bits}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn dot_pairs_terms_by_index_over_the_shorter() {
        let a: Vec<f64> = (1..=11).map(f64::from).collect();
        let b = [1.0; 6];
        assert_eq!(dot(&a, &b), 21.0);
        assert_eq!(dot(&b, &a), 21.0);
        assert_eq!(dot(&a, &a[..9]), (1..=9).map(|x| f64::from(x * x)).sum());
    }

    /// A target no size reaches is found by the mean-fill rates at the
    /// largest size, not by a walk over every `k`: it must agree with asking
    /// every `k`.
    #[test]
    fn unreachable_targets_are_those_no_k_reaches() {
        for layout in [Layout::Blocked, Layout::Word, Layout::Sectorized] {
            for n in [1_000_000_000usize, 10_000_000_000, 100_000_000_000, 1 << 40] {
                for p in [1e-3, 1e-5, 1e-7, 1e-9] {
                    if p <= hash_floor(n) {
                        continue;
                    }
                    let target = p - hash_floor(n);
                    let reachable = (1..=MAX_HASHES).any(|k| {
                        Search::new(layout, n as f64, target)
                            .min_bits(k, Model::Exact)
                            .is_some()
                    });
                    let sized = Sizing::for_rate(layout, n, p);
                    assert_eq!(sized.is_ok(), reachable, "{layout} n={n} p={p}: {sized:?}");
                    if !reachable {
                        assert!(matches!(sized, Err(BuildError::RateUnreachable { .. })));
                    }
                }
            }
        }
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
