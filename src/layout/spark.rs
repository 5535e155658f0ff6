//! # `Spark` and `SparkV1`: Apache Spark's bit positions
//!
//! The positions of Spark's `org.apache.spark.util.sketch.BloomFilter`
//! (`DataFrame.stat.bloomFilter`), from the two 32-bit hashes
//! [`SparkHasher`](crate::SparkHasher) carries in one 64-bit hash (`h1`
//! high, `h2` low): `k` bits anywhere in the array, as `Standard` places
//! them (`standard.rs` holds the probe; this file only the positions), so
//! a Spark filter read into this crate answers exactly as Spark does, and
//! one written from it reads in Spark with the same bits.
//!
//! - **V2**, Spark's default since 4.1 (`BloomFilterImplV2`): a 64-bit
//!   `combined = h1 * (2^31 - 1)`; for each of the `k` bits, `combined +=
//!   h2` (wrapping), and the bit is `combined`, or `!combined` where that is
//!   negative, modulo `m`.
//! - **V1**, Spark 4.0 and older (`BloomFilterImpl`): for `i` in `1..=k`,
//!   the 32-bit `h1 + i * h2` (wrapping), or its complement where negative,
//!   modulo `m`: only the first 2^31 bits of a larger filter are reachable,
//!   which is why Spark made V2.
//!
//! The rate is the textbook one of `k` independent positions (Spark sizes
//! its filters by it: `optimalNumOfBits`, `optimalNumOfHashFunctions`).
//! The steps are read off the classes of the spark-sketch jar in PySpark's
//! wheel (`javap -c`), and pinned by the files Spark wrote,
//! `tests/golden/spark-*`.

#[cfg(test)]
use super::Placement;
use super::standard::{Positions, StandardProbe};

/// The probe of Spark's V2 positions.
pub(crate) type SparkProbe = StandardProbe<SparkV2>;

/// The probe of Spark's V1 positions.
pub(crate) type SparkV1Probe = StandardProbe<SparkV1>;

/// Spark's V2 positions (`Layout::Spark`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SparkV2;

impl Positions for SparkV2 {
    const NAME: &'static str = "spark";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::Spark;

    #[inline(always)]
    fn positions(hash: u64, k: u32, num_bits: u64) -> impl Iterator<Item = u64> + Clone {
        let (h1, h2) = halves(hash);
        let mut combined = i64::from(h1).wrapping_mul(i64::from(i32::MAX));
        (0..k).map(move |_| {
            combined = combined.wrapping_add(i64::from(h2));
            let index = if combined < 0 { !combined } else { combined };
            index as u64 % num_bits
        })
    }
}

/// Spark's V1 positions (`Layout::SparkV1`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SparkV1;

impl Positions for SparkV1 {
    const NAME: &'static str = "spark-v1";
    #[cfg(test)]
    const PLACEMENT: Placement = Placement::SparkV1;

    #[inline(always)]
    fn positions(hash: u64, k: u32, num_bits: u64) -> impl Iterator<Item = u64> + Clone {
        let (h1, h2) = halves(hash);
        (1..=k as i32).map(move |i| {
            let combined = h1.wrapping_add(i.wrapping_mul(h2));
            let index = if combined < 0 { !combined } else { combined };
            index as u64 % num_bits
        })
    }
}

/// `h1` and `h2` of a [`SparkHasher`](crate::SparkHasher) hash.
#[inline(always)]
fn halves(hash: u64) -> (i32, i32) {
    ((hash >> 32) as i32, hash as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// V2 steps from `h1 * (2^31 - 1)`; the complement of a negative
    /// `combined` is taken for the bit, not kept for the next step.
    #[test]
    fn v2_steps_as_spark_does() {
        let (h1, h2) = (-5i32, 123_456_789i32);
        let hash = (u64::from(h1 as u32) << 32) | u64::from(h2 as u32);
        let got: Vec<u64> = SparkV2::positions(hash, 3, 1000).collect();
        let mut combined = -5i64 * 2_147_483_647;
        let want: Vec<u64> = (0..3)
            .map(|_| {
                combined += 123_456_789;
                (if combined < 0 { !combined } else { combined }) as u64 % 1000
            })
            .collect();
        assert_eq!(got, want);
        let v1: Vec<u64> = SparkV1::positions(hash, 2, 1000).collect();
        assert_eq!(
            v1,
            [
                (-5i32 + 123_456_789) as u64 % 1000,
                (-5i32 + 246_913_578) as u64 % 1000
            ]
        );
    }
}
