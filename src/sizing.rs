//! # Sizing: bits and hashes for a target false-positive rate
//!
//! [`Sizing::for_rate`] picks the smallest array, and the `k` that makes it
//! smallest, for which the layout's model stays at or below the requested
//! rate; for `Blocked`, a smaller `k` where it costs at most 2.5% more
//! bits. The models, the choice of `k` and the limits are the
//! [`sizing`](crate::docs::sizing) chapter.

use crate::error::BuildError;
pub use crate::layout::MAX_BITS;
use crate::layout::{BlockModel, Layout, MAX_HASHES, Placement, Probe, standard_bits};

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
    placement: Placement,
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
        let fpp = check_rate(false_positive_rate)?;
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
        let best = Search::new(layout, items, target).sizing();
        let (num_bits, num_hashes) = best.ok_or(match layout.block_bits() {
            Some(_) => BuildError::RateUnreachable {
                layout,
                false_positive_rate,
                items: expected_items,
                max_bits: layout.max_bits(),
            },
            None => BuildError::TooLarge {
                requested_bits: fewest_standard_bits(items, target),
                max_bits: layout.max_bits(),
            },
        })?;
        Ok(Sizing {
            placement: layout.placement(),
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
        Sizing::placed(layout.placement(), num_bits, num_hashes)
    }

    /// [`for_bits`](Self::for_bits) with the placement a saved file names.
    pub(crate) fn placed(
        placement: Placement,
        num_bits: u64,
        num_hashes: u32,
    ) -> Result<Sizing, BuildError> {
        let layout = placement.layout();
        if num_hashes == 0 || num_hashes > MAX_HASHES {
            return Err(BuildError::InvalidNumHashes {
                got: num_hashes,
                max: MAX_HASHES,
            });
        }
        if let Some(required) = layout.fixed_num_hashes()
            && num_hashes != required
        {
            return Err(BuildError::NumHashesFixedByLayout {
                layout,
                required,
                got: num_hashes,
            });
        }
        if num_bits == 0 {
            return Err(BuildError::ZeroBits);
        }
        if num_bits > layout.max_bits() {
            return Err(BuildError::TooLarge {
                requested_bits: u128::from(num_bits),
                max_bits: layout.max_bits(),
            });
        }
        Ok(Sizing {
            placement,
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
        self.placement.layout()
    }

    /// Where its bits go, as a saved file records it.
    pub(crate) fn placement(&self) -> Placement {
        self.placement
    }

    /// This sizing with `placement`, a placement of the same layout (a
    /// loaded growable filter's next sub-filter, placed as its others).
    pub(crate) fn placed_as(self, placement: Placement) -> Sizing {
        debug_assert_eq!(placement.layout(), self.layout());
        Sizing { placement, ..self }
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
        let layout = self.layout();
        let mut model = layout.block_model();
        let rate = layout.model_rate(&mut model, self.num_bits, self.num_hashes, items as f64);
        (rate + hash_floor(items)).min(1.0)
    }
}

impl Sizing {
    /// The probe of the key with hash `hash` in a filter of this sizing,
    /// whose layout's probe type must be `P` (picked by `with_probe!`).
    #[inline(always)]
    pub(crate) fn probe<P: Probe>(&self, hash: u64) -> P {
        P::new(self.num_bits, self.num_hashes, hash)
    }
}

/// `rate` if it is a false-positive rate every kind can be sized for: in
/// (0, 1), which NaN is not.
pub(crate) fn check_rate(rate: f64) -> Result<f64, BuildError> {
    if rate > 0.0 && rate < 1.0 {
        Ok(rate)
    } else {
        Err(BuildError::InvalidFalsePositiveRate(rate))
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

/// Where a search over `k` starts, and of several `k` with the fewest bits
/// the one it keeps (the nearest): `round(log2(1/target))`, the textbook
/// optimum for `Standard`.
fn start_k(target: f64) -> u32 {
    ((1.0 / target).log2().round() as u32).clamp(1, MAX_HASHES)
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

/// Visits `start - 1`, `start - 2`, ... while `visit` returns true, then
/// `start + 1`, `start + 2`, ... likewise, within `1..=MAX_HASHES`.
fn walk_out(start: u32, mut visit: impl FnMut(u32) -> bool) {
    for direction in [-1i64, 1] {
        let mut k = i64::from(start) + direction;
        while (1..=i64::from(MAX_HASHES)).contains(&k) && visit(k as u32) {
            k += direction;
        }
    }
}

/// One sizing search: a layout, its item count and target rate, and the
/// model of its blocks, which keeps what it computed between rates.
struct Search {
    layout: Layout,
    items: f64,
    target: f64,
    granule: u64,
    model: BlockModel,
}

impl Search {
    fn new(layout: Layout, items: f64, target: f64) -> Self {
        Search {
            layout,
            items,
            target,
            granule: layout.granule_bits(),
            model: layout.block_model(),
        }
    }

    /// The sizing `Sizing::for_rate` gives, as `(bits, k)`: the fewest bits
    /// of any `k`, and of several `k` with that many the one nearest
    /// [`start_k`]; for a layout that [takes fewer
    /// hashes](takes_fewer_hashes), then the smallest `k` whose fewest bits
    /// are within the tolerance. `None` if no size up to `MAX_BITS` meets
    /// the target.
    ///
    /// At any one size, rates are unimodal in `k`, so a walk out from a `k`
    /// while they fall finds the lowest. The search takes the `k` with the
    /// lowest rate at the `Standard` size and finds its fewest bits; then,
    /// while the `k` with the lowest rate one granule smaller meets the
    /// target there, it moves to that `k` and its fewest bits. When none
    /// does, no `k` has fewer bits, and the `k` that meet the target at
    /// that size are a run about the last one, which the search walks
    /// towards `start`.
    fn sizing(&mut self) -> Option<(u64, u32)> {
        if let Some(k) = self.layout.fixed_num_hashes() {
            return Some((self.min_bits(k)?, k));
        }
        let (start, granule) = (start_k(self.target), self.granule);
        let max = self.max_granules();
        let mut k = self.lowest_rate(start, self.standard_granules(start).unwrap_or(max), true);
        let mut bits = match self.min_bits(k) {
            Some(bits) => bits,
            None => {
                // Then the `k` with the lowest rate at the largest size: if
                // even that misses the target, no `k` meets it at any size.
                k = self.lowest_rate(k, max, true);
                self.min_bits(k)?
            }
        };
        while bits > granule {
            let smaller = bits / granule - 1;
            let better = self.lowest_rate(k, smaller, false);
            if !self.meets(better, smaller) {
                break;
            }
            (bits, k) = (self.min_bits(better).expect("meets the target"), better);
        }
        while k != start {
            let nearer = if k > start { k - 1 } else { k + 1 };
            if !self.meets(nearer, bits / granule) {
                break;
            }
            k = nearer;
        }
        let tolerated = tolerated_bits(bits, granule);
        if !takes_fewer_hashes(self.layout) || tolerated == bits {
            return Some((bits, k));
        }
        // Sizes are unimodal in `k`, so the `k` within the tolerance are a
        // run that ends at the best one.
        let fewer = (1..k)
            .rev()
            .take_while(|&smaller| self.meets(smaller, tolerated / granule))
            .last()
            .unwrap_or(k);
        Some(match fewer {
            _ if fewer == k => (bits, k),
            _ => (self.min_bits(fewer).expect("meets the target"), fewer),
        })
    }

    /// The `k` with the lowest rate at `granules` granules, walking out
    /// from `from` while rates fall; with `until_met`, only until one meets
    /// the target (at the `Standard` size, such a `k` has the fewest bits
    /// there can be, and small filters' rates fall for every `k` there).
    fn lowest_rate(&mut self, from: u32, granules: u64, until_met: bool) -> u32 {
        let mut best = (self.rate(from, granules), from);
        walk_out(from, |k| {
            if until_met && best.0 <= self.target {
                return false;
            }
            let rate = self.rate(k, granules);
            let falls = rate < best.0;
            if falls {
                best = (rate, k);
            }
            falls
        });
        best.1
    }

    /// The `Standard` size for `k` in granules, at least one: a lower bound
    /// of every layout's (blocks only ever raise the rate); `None` if it is
    /// not below `MAX_BITS`.
    fn standard_granules(&self, k: u32) -> Option<u64> {
        let bound = standard_bits(k, self.items, self.target) / self.granule as f64;
        (bound.is_finite() && bound < self.max_granules() as f64)
            .then(|| (bound.ceil() as u64).max(1))
    }

    /// The most granules the layout allows.
    fn max_granules(&self) -> u64 {
        self.layout.max_bits() / self.granule
    }

    /// The model's rate with `k` bits per key in `granules` granules.
    fn rate(&mut self, k: u32, granules: u64) -> f64 {
        let num_bits = granules * self.granule;
        self.layout
            .model_rate(&mut self.model, num_bits, k, self.items)
    }

    /// Whether a filter of `granules` granules and `k` bits per key meets
    /// the target.
    fn meets(&mut self, k: u32, granules: u64) -> bool {
        self.rate(k, granules) <= self.target
    }

    /// The fewest bits with `k` bits per key whose rate meets the target,
    /// or `None` if even `MAX_BITS` misses it. Rates fall as sizes grow:
    /// from the `Standard` size, which bounds every layout's from below,
    /// the search gallops up by steps that double (from a 32nd of the
    /// bound: sizes are rarely far above it), then bisects.
    fn min_bits(&mut self, k: u32) -> Option<u64> {
        let max = self.max_granules();
        let mut below = self.standard_granules(k)?;
        if !self.meets(k, max) {
            return None;
        }
        if self.meets(k, below) {
            return Some(below * self.granule);
        }
        let mut step = (below / 32).max(1);
        let mut meets = loop {
            let next = below.saturating_add(step).min(max);
            if self.meets(k, next) {
                break next;
            }
            (below, step) = (next, step.saturating_mul(2));
        };
        // `below` misses the target, `meets` meets it.
        while meets - below > 1 {
            let mid = below + (meets - below) / 2;
            if self.meets(k, mid) {
                meets = mid;
            } else {
                below = mid;
            }
        }
        Some(meets * self.granule)
    }
}

/// The bits and `k` the JVM's filters take for `expected_items` at `fpp`:
/// Guava's and Spark's `BloomFilter.create` both size by
/// `optimalNumOfBits` (`-n ln p / ln² 2`, truncated) and
/// `optimalNumOfHashFunctions` (`round(m / n ln 2)`, at least 1), `n` being
/// at least 1. Their arrays then round the bits up to whole words. An
/// error for a rate outside (0, 1).
pub(crate) fn jvm_sizing(expected_items: u64, fpp: f64) -> Result<(u64, u32), BuildError> {
    check_rate(fpp)?;
    let n = expected_items.max(1) as f64;
    let ln2 = std::f64::consts::LN_2;
    let bits = (-n * fpp.ln() / (ln2 * ln2)) as u64;
    let k = ((bits as f64 / n * ln2).round() as u32).max(1);
    Ok((bits.max(1), k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest bits of each `k` that has a size meeting `p` with `n`
    /// keys, found one `k` at a time.
    fn every_k(layout: Layout, n: usize, p: f64) -> Vec<(u64, u32)> {
        let mut search = Search::new(layout, n as f64, p - hash_floor(n));
        let ks = layout.fixed_num_hashes().map_or(1..=MAX_HASHES, |k| k..=k);
        ks.filter_map(|k| search.min_bits(k).map(|m| (m, k)))
            .collect()
    }

    /// The fewest bits of any `k`, and of the `k` with that many, the one
    /// nearest `round(log2(1/p))`.
    fn fewest_of_every_k(layout: Layout, n: usize, p: f64) -> (u64, u32) {
        let every = every_k(layout, n, p);
        let start = start_k(p - hash_floor(n));
        let fewest = every.iter().map(|&(m, _)| m).min().unwrap();
        let k = every
            .iter()
            .filter(|&&(m, _)| m == fewest)
            .map(|&(_, k)| k)
            .min_by_key(|&k| (k.abs_diff(start), k))
            .unwrap();
        (fewest, k)
    }

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
            let (fewest, best_k) = fewest_of_every_k(Layout::Blocked, n, p);
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

    /// Every bits-per-key table (the sizing chapter's, with every rate, and
    /// the layouts chapter's) shows what
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
        }
        for (layout, name) in Layout::ALL.into_iter().zip([
            "`Standard`",
            "`Blocked` (default)",
            "`Word`",
            "`Sectorized`",
            "`SplitBlock`",
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

    /// Against a search of every `k`: the fewest bits of any `k`, and of
    /// `k` with that many, the nearest `round(log2(1/p))`; then, for a
    /// layout that takes fewer hashes, the smallest `k` whose fewest bits
    /// are within the tolerance of those, rounded down to whole granules.
    #[test]
    fn the_search_finds_what_trying_every_k_finds() {
        for layout in Layout::ALL {
            for p in [0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-9, 1e-12] {
                for n in [1, 7, 100, 5000, 1_000_000] {
                    let every = every_k(layout, n, p);
                    let (fewest, k) = fewest_of_every_k(layout, n, p);
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

    /// A target no size reaches is found by the mean-fill rates at the
    /// largest size, not by a walk over every `k`: it must agree with asking
    /// every `k`.
    #[test]
    fn unreachable_targets_are_those_no_k_reaches() {
        for layout in [
            Layout::Blocked,
            Layout::Word,
            Layout::Sectorized,
            Layout::SplitBlock,
        ] {
            for n in [1_000_000_000usize, 10_000_000_000, 100_000_000_000, 1 << 40] {
                for p in [1e-3, 1e-5, 1e-7, 1e-9] {
                    if p <= hash_floor(n) {
                        continue;
                    }
                    let reachable = !every_k(layout, n, p).is_empty();
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
    fn extreme_item_counts_do_not_blow_up() {
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
