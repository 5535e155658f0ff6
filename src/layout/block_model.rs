//! # The exact model of a block's false-positive rate
//!
//! `Blocked`, `Word` and `Sectorized` confine a key's bits to a block of
//! `B` bits (512, 64, and a 64-bit word of a 512-bit block). The number of
//! keys in the absent key's block is Poisson with mean `λ = B n / m` (the
//! load), so the rate is the Poisson mix over `i` of the rate of a block
//! that holds `i` keys (Putze, Sanders and Singler, "Cache-, Hash- and
//! Space-Efficient Bloom Filters", 2007). That rate is taken exactly, not
//! from the block's mean fill (which underestimates it, by Jensen's
//! inequality); this is why every layout honours the requested rate.
//!
//! The exact rate follows the absent key instead of the block. Its `k`
//! probes land on `J` distinct bits, distributed as `k` draws with
//! replacement from `B` bits, and it is a false positive iff the block's
//! `i k` insert draws cover all `J`:
//!
//! ```text
//! rate(i keys) = Σ_j P(J = j) · C_j(i k)
//! ```
//!
//! with `C_j(T)` the chance that `T` draws cover `j` given bits. A draw
//! covers one of them with probability `j / B`, so `C_j(T + 1) = C_j(T) +
//! (j/B) (C_(j-1)(T) - C_j(T))` from `C_j(0) = [j = 0]`. Each step adds a
//! term that is never negative, so nothing cancels (as it does in the
//! inclusion-exclusion closed form), and `C` does not depend on `k`: one
//! pass over the draws serves every `k`, each reading its rate off at every
//! `k`-th draw. The test `coverage_model_matches_the_fill_chain` checks it
//! against the chain over the block's set bits that it replaces.

use super::MAX_HASHES;
use crate::storage::bit_array::WORDS_PER_LINE;
use std::ops::RangeInclusive;

/// The rates of blocks of one size, for every `k`, built as far as asked.
pub(crate) struct BlockModel {
    /// Bits per block (0 for a layout without blocks, which never asks).
    block: u64,
    /// The `k` the pass over the draws serves (none before the first ask).
    ks: RangeInclusive<u32>,
    /// `C_j` after the draws so far, `j` up to `min(B, largest k)`, and the
    /// next draw's.
    covered: Vec<f64>,
    next: Vec<f64>,
    /// `j / B`, the chance that a draw covers one of `j` given bits.
    hit: Vec<f64>,
    /// The draws so far.
    draws: usize,
    /// A timing wheel: slot `d % WHEEL` lists the `k` (by their place in
    /// `ks`) whose next key draw `d` makes whole, so that a draw visits
    /// only those; `spare` is the list a draw empties into.
    due: Vec<Vec<u8>>,
    spare: Vec<u8>,
    /// For each `k` served, in order: `P(J = j)` for `j <= k`, and the rate
    /// of a block of `i` keys for each `i` the draws so far made whole.
    distinct: Vec<Vec<f64>>,
    per_keys: Vec<Vec<f64>>,
}

impl BlockModel {
    /// Slots of the timing wheel: more than any `k`, so that a `k` due
    /// again never lands in the slot being emptied.
    const WHEEL: usize = MAX_HASHES as usize + 1;

    /// A block is saturated (every bit set but for odds below e^-30) once
    /// its expected draws exceed 30 B: the rate is then 1.
    const SATURATED_DRAWS_PER_BIT: f64 = 30.0;

    /// The model of blocks of `block` bits, with nothing built yet (nor
    /// any memory taken).
    pub(crate) fn new(block: u64) -> Self {
        BlockModel {
            block,
            ks: RangeInclusive::new(1, 0),
            covered: Vec::new(),
            next: Vec::new(),
            hit: Vec::new(),
            draws: 0,
            due: Vec::new(),
            spare: Vec::new(),
            distinct: Vec::new(),
            per_keys: Vec::new(),
        }
    }

    /// Whether a block of `block` bits holding `load` keys of `k` bits is
    /// saturated.
    pub(crate) fn saturates(block: u64, k: u32, load: f64) -> bool {
        load * f64::from(k) > Self::SATURATED_DRAWS_PER_BIT * block as f64
    }

    /// The rate with `k` bits per key at `load` keys per block.
    pub(crate) fn rate(&mut self, k: u32, load: f64) -> f64 {
        if Self::saturates(self.block, k, load) {
            return 1.0;
        }
        poisson_mix(load, usize::MAX, |i| self.per_keys(k, i + 1)[i])
    }

    /// The rates of blocks of `0..keys` keys with `k` bits per key.
    pub(crate) fn per_keys(&mut self, k: u32, keys: usize) -> &[f64] {
        if !self.ks.contains(&k) {
            self.serve(k);
        }
        let at = (k - self.ks.start()) as usize;
        while self.per_keys[at].len() < keys {
            self.draw();
        }
        &self.per_keys[at][..keys]
    }

    /// Starts a pass over the draws (again) that serves `k`, the `k` served
    /// so far, and those a search is likely to ask next: from a third of `k`
    /// to two above it (searches start at the textbook `k`, and a blocked
    /// layout's best is below it, its fewer-hashes `k` by up to about
    /// two thirds), and twice that
    /// high once a search has asked above them (a small filter's sizes tie
    /// over long runs of `k`). Each `k` served costs the pass a dot product
    /// per key, and the largest sets its number of states.
    fn serve(&mut self, k: u32) {
        let (mut first, mut last) = ((k / 3).max(1), k + 2);
        if !self.ks.is_empty() {
            first = first.min(*self.ks.start());
            last = last.max(*self.ks.end()).max(2 * k + 2);
        }
        let last = last.min(MAX_HASHES);
        self.ks = first..=last;
        let states = self.block.min(u64::from(last)) as usize + 1;
        self.covered = vec![0.0; states];
        self.covered[0] = 1.0;
        self.next = self.covered.clone();
        self.hit = (0..states).map(|j| j as f64 / self.block as f64).collect();
        self.draws = 0;
        self.due = vec![Vec::new(); Self::WHEEL];
        for (at, k) in self.ks.clone().enumerate() {
            self.due[k as usize].push(at as u8);
        }
        self.per_keys = vec![vec![0.0]; self.ks.clone().count()];
        // The distinct bits among the absent key's probes: a chain that
        // moves from j to j + 1 when a probe misses the j drawn already.
        let mut law = vec![0.0; states];
        law[0] = 1.0;
        self.distinct.clear();
        for probe in 1..=last as usize {
            for j in (1..=probe.min(states - 1)).rev() {
                law[j] = law[j] * self.hit[j] + law[j - 1] * (1.0 - self.hit[j - 1]);
            }
            law[0] = 0.0;
            if self.ks.contains(&(probe as u32)) {
                self.distinct.push(law[..=probe.min(states - 1)].to_vec());
            }
        }
    }

    /// One more draw; every `k` that it completes a key for gains a rate.
    fn draw(&mut self) {
        // Into the other buffer, from the last draw's: a loop the compiler
        // vectorises, where updating in place would chain each state to the
        // one below it.
        let states = self.covered.len();
        let (last, next, hit) = (
            &self.covered[..states],
            &mut self.next[..states],
            &self.hit[..states],
        );
        for j in 1..states {
            next[j] = last[j] + (last[j - 1] - last[j]) * hit[j];
        }
        std::mem::swap(&mut self.covered, &mut self.next);
        self.draws += 1;
        let first = *self.ks.start() as usize;
        std::mem::swap(&mut self.spare, &mut self.due[self.draws % Self::WHEEL]);
        for &at in &self.spare {
            let at = usize::from(at);
            self.per_keys[at].push(dot(&self.distinct[at], &self.covered));
            self.due[(self.draws + first + at) % Self::WHEEL].push(at as u8);
        }
        self.spare.clear();
    }
}

/// `Σ a[i] b[i]` over the shorter, in four lanes: a sum in one lane waits
/// for each add before the next, and the model's dot products are half of
/// its work.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
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

/// The expected number of distinct bits among `draws` draws with
/// replacement from `block` bits: `B (1 - (1 - 1/B)^draws)`.
pub(crate) fn expected_distinct(block: f64, draws: u32) -> f64 {
    -(f64::from(draws) * (-1.0 / block).ln_1p()).exp_m1() * block
}

/// The mean of `(ones / bits)^k` over blocks of `bits` bits, from the
/// count of set bits of each: what a filter of those blocks answers an
/// absent key, on average (0 for no blocks).
pub(crate) fn mean_fill_rate(blocks: impl Iterator<Item = u64>, bits: u64, k: u32) -> f64 {
    mean(blocks.map(|ones| (ones as f64 / bits as f64).powi(k as i32)))
}

/// `words` in lines of eight (the sizes of `Blocked` and `Sectorized` are
/// whole lines).
pub(crate) fn lines(
    mut words: impl Iterator<Item = u64>,
) -> impl Iterator<Item = [u64; WORDS_PER_LINE]> {
    std::iter::from_fn(move || {
        let first = words.next()?;
        Some(std::array::from_fn(|i| {
            if i == 0 {
                first
            } else {
                words.next().unwrap_or(0)
            }
        }))
    })
}

/// The mean of `values` (0 for none).
pub(crate) fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u64), |(sum, n), v| (sum + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// `Σ_i Poisson(i; load) · rate(i)` over `i < len`, for rates in `[0, 1]`
/// that never fall as `i` grows, summed where the terms matter: it stops
/// once what the Poisson tail could add is below [`LEFT_OUT`] of the sum.
pub(crate) fn poisson_mix(load: f64, len: usize, mut rate: impl FnMut(usize) -> f64) -> f64 {
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
pub(crate) const LEFT_OUT: f64 = 1e-15;

/// Where the terms of a sum over a Poisson(λ) count `i` of rates that only
/// grow with `i` start to matter: below λ - 12√λ the weights sum to under
/// e^-72.
pub(crate) fn poisson_lowest(load: f64) -> usize {
    (load - 12.0 * load.sqrt()).max(0.0) as usize
}

/// Keys per block beyond which the Poisson(λ) tail is below `tail`.
pub(crate) fn poisson_support(load: f64, tail: f64) -> usize {
    if load <= 0.0 {
        return 1;
    }
    // Past the mode each weight is at most λ / (i + 1) of the last, so the
    // tail past i is under w_i / (1 - λ / (i + 1)).
    let mut i = load as usize;
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
pub(crate) fn poisson(i: usize, load: f64) -> f64 {
    if i == 0 {
        return (-load).exp();
    }
    (i as f64 * load.ln() - load - ln_factorial(i)).exp()
}

/// `ln(i!)`: of the product below 23 (whose factorials a double holds
/// exactly), Stirling's series above.
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
            let mut model = BlockModel::new(block);
            for k in [1, 2, 3, 7, 16, 33, 64] {
                let keys = poisson_support(20.0, 1e-20);
                let fast = model.per_keys(k, keys).to_vec();
                assert!(fast.len() > 50, "B={block} k={k}: {} keys", fast.len());
                let fill = fill_chain(block, k, fast.len());
                for (i, (fill, fast)) in fill.iter().zip(&fast).enumerate() {
                    let error = (fill - fast).abs() / fill.max(f64::MIN_POSITIVE);
                    assert!(
                        error < 1e-12 || (fill - fast).abs() < 1e-300,
                        "B={block} k={k} i={i}: {fill} vs {fast}"
                    );
                }
            }
        }
    }

    /// A rate does not depend on what was asked of the model before.
    #[test]
    fn a_rate_does_not_depend_on_what_was_asked_before() {
        let asks = [(7, 40.0), (3, 200.0), (12, 9.5), (7, 40.0), (1, 900.0)];
        let mut shared = BlockModel::new(512);
        for (k, load) in asks {
            let alone = BlockModel::new(512).rate(k, load);
            assert_eq!(shared.rate(k, load), alone, "k = {k}, load = {load}");
        }
    }

    #[test]
    fn ln_factorial_matches_the_sum_of_logs() {
        let mut sum = 0.0;
        for i in 1..2000usize {
            sum += (i as f64).ln();
            assert!(
                (ln_factorial(i) - sum).abs() < 1e-13 * sum.max(1.0),
                "i = {i}"
            );
        }
    }

    #[test]
    fn extreme_loads_do_not_blow_up() {
        let mut model = BlockModel::new(512);
        for load in [1e-300, 1e-9, 0.5, 1e3, 1e5] {
            let rate = model.rate(1, load);
            assert!((0.0..=1.0).contains(&rate), "load {load}: {rate}");
        }
        assert_eq!(model.rate(64, 1e6), 1.0);
    }
}
