//! # `Blocked`: `k` bits in one cache line
//!
//! A key's `k` bits are in one 512-bit, cache-line-aligned block, picked
//! by reducing its hash: one cache miss per operation, for somewhat more
//! bits at the same rate than `Standard` (Putze, Sanders and Singler,
//! "Cache-, Hash- and Space-Efficient Bloom Filters", 2007; the table of
//! [`docs::layouts`](crate::docs::layouts)). Each output of the key's
//! stream gives seven 9-bit offsets in the block. A query tests them one by
//! one (all in one line, so every load after the first hits L1); only an
//! insert that finds a bit missing goes over them again, setting each bit
//! with its own atomic OR. The rate is the exact block model
//! ([`BlockModel`]) with blocks of 512 bits.

#[cfg(test)]
use super::Placement;
use super::block_model::{BlockModel, expected_distinct, mean_fill_rate};
use super::positions::{for_each_offset, reduce};
use super::probe::Probe;
use crate::hints::Access;
use crate::storage::bit_array::{BitArray, WORDS_PER_LINE};

/// Bits in one block, a cache line.
pub(crate) const LINE_BITS: u64 = 64 * WORDS_PER_LINE as u64;

/// The numbers of bits per key that `Blocked` sizing gives at
/// [`DEFAULT_FALSE_POSITIVE_RATE`](crate::DEFAULT_FALSE_POSITIVE_RATE): 7
/// below about 2,000 keys, 5 from about 10,000 on (the test
/// `default_rate_ks_are_the_constant_ones` checks ten keys to ten
/// billion), and 5 or 6 in between as sizes round to whole blocks; 6
/// runs the loop below.
///
/// A `Blocked` probe tests and sets a key's bits with `k` as a constant
/// where it is one of these, and LLVM compiles them as a straight line of
/// loads and shifts. With `k` known only at run time, the unrolled loop
/// tests after each bit whether it is over: a compare and branch per bit
/// and the loop's bookkeeping, a sixth of a query's instructions. That
/// matters beyond the instructions themselves, because a key whose line is
/// not in cache overlaps its miss only with the keys behind it in the
/// core's window, and a shorter key leaves room for more of them.
///
/// Constant `k` speeds up new-key inserts and queries of present keys,
/// most at 100M keys, where a shorter key leaves room for more misses in
/// flight (`cargo run --release -p atomic-bloom-harness -- bench`; the runs
/// are in BENCHMARKS.md). The insert of a present key pays a little for
/// it: LLVM keeps the bit offsets the test computed for the sets that
/// follow, and stores some of them to the stack before the test's branch.
/// Letting the sets recompute them instead (behind an optimisation
/// barrier) won back duplicates but cost new keys more, on AMD and Intel
/// alike, and the new-key insert is the call services make most: so the
/// sets keep the test's offsets. Any other `k` runs the loop. A `match` of
/// every `k` up to 16 (a jump table) kept the insert's gain but lost the
/// query's: LLVM merged the copies' common tails and spilled registers.
pub(crate) const DEFAULT_RATE_KS: [u32; 2] = [5, 7];

/// Runs `$body` with `$k` bound to `$value`, a constant where it is one of
/// [`DEFAULT_RATE_KS`] (decided at compile time where the probe's `K` is
/// one), so that each of those `k` gets a copy of `$body` compiled for it.
macro_rules! with_rate_k {
    ($value:expr, $k:ident => $body:expr) => {
        match $value {
            k if k == DEFAULT_RATE_KS[0] => {
                let $k = DEFAULT_RATE_KS[0];
                $body
            }
            k if k == DEFAULT_RATE_KS[1] => {
                let $k = DEFAULT_RATE_KS[1];
                $body
            }
            $k => $body,
        }
    };
}

/// The probe: `k` bits in line `line`, their offsets re-derived from the
/// hash. `K` is `k` where [`with_sized_probe!`](super::with_sized_probe)
/// made it a constant, and 0 where `k` is asked per call (the `k` field).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockedProbe<const K: u32 = 0> {
    line: usize,
    hash: u64,
    k: u32,
}

impl<const K: u32> BlockedProbe<K> {
    /// `k`: the constant `K`, or the sizing's where `K` is 0.
    #[inline(always)]
    fn k(&self) -> u32 {
        if K == 0 { self.k } else { K }
    }
}

/// The key's line: its hash reduced to the number of lines.
#[inline]
pub(crate) fn block_line(hash: u64, num_lines: u64) -> usize {
    reduce(hash, num_lines) as usize
}

impl<const K: u32> Probe for BlockedProbe<K> {
    const NAME: &'static str = "blocked";
    const BLOCK_BITS: Option<u64> = Some(LINE_BITS);
    const GRANULE_BITS: u64 = LINE_BITS;
    const UNREACHABLE_HINT: &'static str = "use the standard layout, fewer items, or a higher rate";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::Blocked;
    #[cfg(test)]
    const CONSTANT_K: u32 = K;
    const MODEL_BLOCK_BITS: u64 = LINE_BITS;

    #[inline(always)]
    fn new(num_bits: u64, k: u32, hash: u64) -> Self {
        debug_assert!(K == 0 || K == k);
        BlockedProbe {
            line: block_line(hash, num_bits / LINE_BITS),
            hash,
            k,
        }
    }

    #[inline(always)]
    fn contains(&self, bits: &BitArray) -> bool {
        with_rate_k!(self.k(), k => block_contains(bits, self.line, self.hash, k))
    }

    #[inline(always)]
    fn insert(&self, bits: &BitArray) -> bool {
        // (`DEFAULT_RATE_KS` says what a constant `k` costs a duplicate.)
        with_rate_k!(self.k(), k => block_insert(bits, self.line, self.hash, k))
    }

    #[inline(always)]
    fn prefetch(&self, bits: &BitArray, access: Access) {
        bits.prefetch_line(self.line, access);
    }

    #[inline(always)]
    fn bits(&self, mut f: impl FnMut(u64)) {
        let first = self.line as u64 * LINE_BITS;
        for_each_offset::<9>(self.hash, self.k(), |bit| f(first + bit));
    }

    fn model_rate(model: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64 {
        model.rate(k, LINE_BITS as f64 * items / num_bits as f64)
    }

    fn distinct_bits(k: u32, _: u64) -> f64 {
        expected_distinct(LINE_BITS as f64, k)
    }

    fn rate_of_words(_: u64, k: u32, words: impl Iterator<Item = u64>) -> f64 {
        let ones = super::block_model::lines(words)
            .map(|line| line.iter().map(|w| u64::from(w.count_ones())).sum());
        mean_fill_rate(ones, LINE_BITS, k)
    }
}

/// Whether all of `hash`'s `k` bits are set in `line`.
#[inline(always)]
fn block_contains(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let mut line = bits.line_reader(line);
    for_each_offset::<9>(hash, k, |bit| line.test(bit));
    line.all_set()
}

/// The insert. Test before set: a key that is present (a duplicate) costs
/// about what a query costs and writes nothing; a key with a bit missing
/// has all its bits set, and the test's result is the insert's.
#[inline(always)]
fn block_insert(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let missing = !block_contains(bits, line, hash, k);
    if missing {
        set_block(bits, line, hash, k);
    }
    missing
}

/// The insert of a key with a bit missing.
///
/// Always inlined. The paths that do not reach it (a query, a duplicate
/// insert) are forced inline themselves (`AtomicBloom::insert_hash`), so a
/// call here would only cost the inserts that do reach it: every new key.
#[inline(always)]
fn set_block(bits: &BitArray, line: usize, hash: u64, k: u32) {
    let line = bits.line_writer(line);
    for_each_offset::<9>(hash, k, |bit| line.set(bit));
}

#[cfg(test)]
mod tests {
    use super::super::positions::mix;
    use super::*;

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
}
