//! # Layouts: where a key's bits go
//!
//! A key is hashed once to 64 bits; its layout turns that hash into the
//! positions of its `k` bits. Each layout is one file, which holds all
//! there is to it: its positions, its [`Probe`] (test and set), and its
//! false-positive model.
//!
//! - [`Layout::Standard`] (`standard.rs`) spreads them over the whole
//!   array: space-optimal, but a new key costs up to `k` cache misses.
//! - [`Layout::Blocked`] (`blocked.rs`) puts all `k` in one 512-bit,
//!   cache-line-aligned block: one cache miss per operation.
//! - [`Layout::Word`] (`word.rs`) puts all `k` in one 64-bit word: an insert
//!   is a single `fetch_or`, an atomic test-and-set.
//! - [`Layout::Sectorized`] (`sectorized.rs`) puts half in one word of a
//!   block's first half and half in one of its second: two `fetch_or`s.
//! - [`Layout::SplitBlock`] (`split_block.rs`) is Apache Parquet's split
//!   block filter: one bit in each 32-bit lane of a 256-bit block, `k` = 8,
//!   tested and set without a loop or a branch.
//! - [`Layout::Spark`] and [`Layout::SparkV1`] (`spark.rs`) are Apache
//!   Spark's positions, `Standard`'s probe fed Spark's double hashing: for
//!   filters that Spark reads or wrote ([`COMPATIBLE`](Layout::COMPATIBLE)).
//!
//! They share the position math of `positions.rs` and the exact block
//! model of `block_model.rs`. This file is the one `match` from a
//! [`Placement`] (a layout, and for `Standard` which of its two position
//! schemes, as a saved file records it) to its probe type
//! ([`with_probe!`]), through which every operation reaches a layout: a
//! caller writes its code once, generic over the probe type, and the macro
//! instantiates it per placement. A layout's facts (its name, block and
//! granule, fixed `k`, size limit, the hint its errors give) are
//! associated constants of its probe type, read through the same macro,
//! so that [`Layout`]'s methods hold no table of them. Adding a layout
//! means a file of its own, a variant of both enums below, and a branch
//! there.
//!
//! Probes are drawn with replacement: two probes of one key may hit the
//! same bit. The models assume exactly that, so the rate they promise is
//! the rate this code delivers (`tests/all/false_positive_rate.rs` checks it
//! for every layout). Double hashing (`h1 + i * h2`, Kirsch and
//! Mitzenmacher, "Less Hashing, Same Performance", 2006), which `Standard`
//! uses, is not fed straight into a multiply-shift: its probes form a
//! progression, which the reduction maps to evenly spaced positions, and
//! on small filters that structure raises the rate; each step rotates
//! first (`standard.rs`). The blocked layouts cut their bits from the
//! splitmix64 stream of `positions.rs`, which is nonlinear.

mod block_model;
mod blocked;
mod positions;
mod probe;
mod sectorized;
mod spark;
mod split_block;
mod standard;
mod word;

pub(crate) use block_model::BlockModel;
pub(crate) use blocked::{BlockedProbe, DEFAULT_RATE_KS};
pub(crate) use probe::Probe;
pub(crate) use sectorized::SectorizedProbe;
pub(crate) use spark::{SparkProbe, SparkV1Probe};
pub(crate) use split_block::SplitBlockProbe;
pub(crate) use standard::{StandardProbe, StandardStreamProbe, standard_bits};
pub(crate) use word::WordProbe;

use std::fmt;
use std::str::FromStr;

/// The largest bit array a filter may have: 2^43 bits, 1 TiB (2^40 bits,
/// 128 GiB, for [`Layout::SplitBlock`]: [`Layout::max_bits`]).
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

/// Where a key's bits go in the array; chosen when the filter is built.
///
/// Every layout has the same API and the same guarantees (no false
/// negatives, requested false-positive rate at the expected number of
/// items); they trade memory, speed and the meaning of `insert`'s result.
/// [`docs::layouts`](crate::docs::layouts) has a table of bits per key for
/// each.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Layout};
///
/// let urls = AtomicBloom::builder()
///     .capacity(10_000, 0.001)
///     .layout(Layout::Word)
///     .build()?;
/// assert!(urls.insert("https://example.com/")); // this thread claimed it
/// assert!(!urls.insert("https://example.com/")); // already claimed
/// assert_eq!(urls.layout(), Layout::Word);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Layout {
    /// `k` bits anywhere in the array: the least memory for a given rate, up
    /// to `k` cache misses per operation. Its false-positive rate is the
    /// textbook `(1 - e^(-kn/m))^k`.
    Standard = 0,
    /// All `k` bits in one 512-bit, 64-byte-aligned block: one cache line per
    /// operation. The default.
    #[default]
    Blocked = 1,
    /// All `k` bits in one 64-bit word: one atomic `fetch_or` per insert, so
    /// `insert` is an atomic test-and-set. Sensible for rates down to about
    /// 1e-3; below that its memory grows fast (45 bits per key at 1e-4).
    Word = 2,
    /// Half of the `k` bits in one word of a 512-bit block's first half,
    /// half in one word of its second half: two `fetch_or`s per insert, two
    /// loads per query, one cache line, for slightly more memory than
    /// `Blocked` (10.3 bits per key at 1% against 10.1).
    Sectorized = 3,
    /// Apache Parquet's split block filter: eight bits per key, one in
    /// each 32-bit lane of a 256-bit block, at Parquet's positions for the
    /// same 64-bit hash. A query is four loads from one cache line tested
    /// against masks computed without a loop or a branch; an insert, one
    /// `fetch_or` for each of the four words that lacks a bit of the key.
    /// `k` is always 8, so it needs more memory than `Blocked` (10.5 bits
    /// per key at 1% against 10.1, 16.9 at 0.1% against 15.7). At most
    /// 2^32 blocks (128 GiB).
    SplitBlock = 4,
    /// Apache Spark's positions, format V2 (Spark 4.1 and later): `k` bits
    /// anywhere, by Spark's double hashing of the two 32-bit hashes of
    /// [`SparkHasher`](crate::SparkHasher). With that hasher a filter sets
    /// and tests exactly Spark's bits ([`Filter::from_spark_bytes`](crate::Filter::from_spark_bytes)).
    Spark = 5,
    /// Apache Spark's positions, format V1 (Spark 4.0 and older), which
    /// reach only the first 2^31 bits of a larger filter.
    SparkV1 = 6,
}

impl Layout {
    /// Every layout, in the order they were added (a saved file records
    /// a number for where its bits go, which never changes: `docs::format`).
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::ALL.len(), 5);
    /// ```
    pub const ALL: [Layout; 5] = [
        Layout::Standard,
        Layout::Blocked,
        Layout::Word,
        Layout::Sectorized,
        Layout::SplitBlock,
    ];

    /// The layouts of other systems' filters, kept so that their files
    /// answer here as they do there: Spark's two. Built with their own
    /// hasher ([`SparkHasher`](crate::SparkHasher)); their rate is
    /// `Standard`'s at best (V1's double hashing without a remix repeats
    /// positions for some keys).
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!("spark".parse::<Layout>(), Ok(Layout::Spark));
    /// assert_eq!(Layout::COMPATIBLE, [Layout::Spark, Layout::SparkV1]);
    /// ```
    pub const COMPATIBLE: [Layout; 2] = [Layout::Spark, Layout::SparkV1];

    /// The layout's name, as [`Display`](fmt::Display) prints it and
    /// [`FromStr`] reads it (and the CLI's `--layout` takes it).
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::Word.name(), "word");
    /// assert_eq!("blocked".parse::<Layout>(), Ok(Layout::Blocked));
    /// assert!("fancy".parse::<Layout>().unwrap_err().to_string().contains("standard, blocked, word, sectorized, split-block"));
    /// ```
    pub const fn name(self) -> &'static str {
        with_probe!(self.placement(), P => P::NAME)
    }

    /// The placement a filter of this layout built today has.
    pub(crate) const fn placement(self) -> Placement {
        match self {
            Layout::Standard => Placement::Standard,
            Layout::Blocked => Placement::Blocked,
            Layout::Word => Placement::Word,
            Layout::Sectorized => Placement::Sectorized,
            Layout::SplitBlock => Placement::SplitBlock,
            Layout::Spark => Placement::Spark,
            Layout::SparkV1 => Placement::SparkV1,
        }
    }

    /// Bits in the unit a key's bits are confined to: `None` for `Standard`
    /// (the whole array), 512 for `Blocked` and `Sectorized`, 64 for `Word`,
    /// 256 for `SplitBlock`.
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::Blocked.block_bits(), Some(512));
    /// assert_eq!(Layout::Standard.block_bits(), None);
    /// ```
    pub const fn block_bits(self) -> Option<u64> {
        with_probe!(self.placement(), P => P::BLOCK_BITS)
    }

    /// The `k` this layout always has, if it fixes one: 8 for
    /// `SplitBlock`, whose key sets one bit in each of eight lanes.
    ///
    /// ```
    /// use atomic_bloom::Layout;
    /// assert_eq!(Layout::SplitBlock.fixed_num_hashes(), Some(8));
    /// assert_eq!(Layout::Blocked.fixed_num_hashes(), None);
    /// ```
    pub const fn fixed_num_hashes(self) -> Option<u32> {
        with_probe!(self.placement(), P => P::FIXED_K)
    }

    /// The most bits a filter of this layout may have:
    /// [`MAX_BITS`](crate::MAX_BITS), or 2^40 (128 GiB) for `SplitBlock`,
    /// whose blocks are picked by 32 bits of the hash.
    ///
    /// ```
    /// use atomic_bloom::{Layout, MAX_BITS};
    /// assert_eq!(Layout::Blocked.max_bits(), MAX_BITS);
    /// assert_eq!(Layout::SplitBlock.max_bits(), 1 << 40);
    /// ```
    pub const fn max_bits(self) -> u64 {
        with_probe!(self.placement(), P => P::MAX_BITS)
    }

    /// The expected number of distinct bits one key sets with `k` hashes in
    /// an array of `num_bits`.
    pub(crate) fn expected_distinct_bits(self, k: u32, num_bits: u64) -> f64 {
        with_probe!(self.placement(), P => P::distinct_bits(k, num_bits))
    }

    /// The model's false-positive rate of a filter of this layout with
    /// `num_bits` bits, `k` bits per key and `items` keys; `model` is a
    /// [`BlockModel`] made by [`block_model`](Self::block_model), which
    /// keeps what it computed for the next rate.
    pub(crate) fn model_rate(
        self,
        model: &mut BlockModel,
        num_bits: u64,
        k: u32,
        items: f64,
    ) -> f64 {
        with_probe!(self.placement(), P => P::model_rate(model, num_bits, k, items))
    }

    /// An empty model of this layout's blocks, for [`model_rate`](Self::model_rate).
    pub(crate) fn block_model(self) -> BlockModel {
        BlockModel::new(with_probe!(self.placement(), P => P::MODEL_BLOCK_BITS))
    }

    /// The rate of a filter of this layout whose words, in order, are
    /// `words`, from how full its blocks are.
    pub(crate) fn rate_of_words(
        self,
        num_bits: u64,
        k: u32,
        words: impl Iterator<Item = u64>,
    ) -> f64 {
        with_probe!(self.placement(), P => P::rate_of_words(num_bits, k, words))
    }

    /// The granularity of the array's size in bits: sizes are rounded up to
    /// a multiple of this.
    pub(crate) const fn granule_bits(self) -> u64 {
        with_probe!(self.placement(), P => P::GRANULE_BITS)
    }

    /// What to change when the layout cannot reach a rate within
    /// [`max_bits`](Self::max_bits).
    pub(crate) const fn unreachable_hint(self) -> &'static str {
        with_probe!(self.placement(), P => P::UNREACHABLE_HINT)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a layout by its [`name`](Layout::name).
impl FromStr for Layout {
    type Err = ParseLayoutError;

    fn from_str(name: &str) -> Result<Layout, ParseLayoutError> {
        Layout::ALL
            .into_iter()
            .chain(Layout::COMPATIBLE)
            .find(|layout| layout.name() == name)
            .ok_or_else(|| ParseLayoutError {
                name: name.to_string(),
            })
    }
}

/// A name that is no [`Layout`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLayoutError {
    name: String,
}

impl fmt::Display for ParseLayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown layout {:?}: expected one of ", self.name)?;
        for (i, layout) in Layout::ALL
            .into_iter()
            .chain(Layout::COMPATIBLE)
            .enumerate()
        {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{layout}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseLayoutError {}

/// Where a filter's bits go, as its saved file records it (byte 10 of the
/// header, `docs::format`): its layout, and for `Standard` which of the two
/// ways of deriving positions it has. Filters built today have their
/// layout's [`placement`](Layout::placement); a file keeps the one it was
/// written with, so that its keys keep their bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Placement {
    /// `Standard` with each bit its own splitmix64 output: what files
    /// before double hashing hold.
    StandardStream = 0,
    Blocked = 1,
    Word = 2,
    Sectorized = 3,
    SplitBlock = 4,
    /// `Standard` by double hashing (`standard.rs`).
    Standard = 5,
    /// Spark's V1 positions (`spark.rs`).
    SparkV1 = 6,
    /// Spark's V2 positions (`spark.rs`).
    Spark = 7,
}

impl Placement {
    /// Every placement, in the order of their ids.
    #[cfg(test)]
    pub(crate) const ALL: [Placement; 8] = [
        Placement::StandardStream,
        Placement::Blocked,
        Placement::Word,
        Placement::Sectorized,
        Placement::SplitBlock,
        Placement::Standard,
        Placement::SparkV1,
        Placement::Spark,
    ];

    /// The layout it places bits of.
    pub(crate) const fn layout(self) -> Layout {
        match self {
            Placement::StandardStream | Placement::Standard => Layout::Standard,
            Placement::Blocked => Layout::Blocked,
            Placement::Word => Layout::Word,
            Placement::Sectorized => Layout::Sectorized,
            Placement::SplitBlock => Layout::SplitBlock,
            Placement::Spark => Layout::Spark,
            Placement::SparkV1 => Layout::SparkV1,
        }
    }

    /// The id a saved file records.
    pub(crate) const fn id(self) -> u8 {
        self as u8
    }

    /// The placement a saved file's id names, if any.
    pub(crate) const fn from_id(id: u8) -> Option<Placement> {
        Some(match id {
            0 => Placement::StandardStream,
            1 => Placement::Blocked,
            2 => Placement::Word,
            3 => Placement::Sectorized,
            4 => Placement::SplitBlock,
            5 => Placement::Standard,
            6 => Placement::SparkV1,
            7 => Placement::Spark,
            _ => return None,
        })
    }
}

/// Runs `$body` with `$P` naming the probe type of `$placement`: the one
/// place a placement is mapped to its probe type (which
/// [`with_sized_probe!`] narrows by `k` for `Blocked`).
///
/// The choice is tests of bits of the id, not a `match`: LLVM lowers a
/// `match` of six placements to a jump table, an indirect jump per key,
/// which slowed `Blocked` inserts of new keys at 100M keys (compare a
/// build with `-C llvm-args=-min-jump-table-entries=8` under `cargo run
/// --release -p atomic-bloom-harness -- bench`). Tests of bits stay
/// direct branches; `probe.rs`'s test `with_probe_maps_every_placement`
/// checks the mapping.
macro_rules! with_probe {
    ($placement:expr, $P:ident => $body:expr) => {{
        let placement: $crate::layout::Placement = $placement;
        let id = placement.id();
        // Ids: Standard (stream) 0, Blocked 1, Word 2, Sectorized 3,
        // SplitBlock 4, Standard 5, SparkV1 6, Spark 7.
        match id & 7 {
            1 => {
                type $P = $crate::layout::BlockedProbe;
                $body
            }
            2 => {
                type $P = $crate::layout::WordProbe;
                $body
            }
            3 => {
                type $P = $crate::layout::SectorizedProbe;
                $body
            }
            4 => {
                type $P = $crate::layout::SplitBlockProbe;
                $body
            }
            5 => {
                type $P = $crate::layout::StandardProbe;
                $body
            }
            6 => {
                type $P = $crate::layout::SparkV1Probe;
                $body
            }
            7 => {
                type $P = $crate::layout::SparkProbe;
                $body
            }
            _ => {
                type $P = $crate::layout::StandardStreamProbe;
                $body
            }
        }
    }};
}
pub(crate) use with_probe;

/// Runs `$body` with `$P` naming the probe type of a filter of sizing
/// `$sizing`: [`with_probe!`]'s, except that for `Blocked` with `k` one of
/// [`DEFAULT_RATE_KS`] it is a probe whose `k` is that constant, so that
/// nothing asks which `k` it is per key. For code that chooses once for
/// many keys (the batches), or whose calls cost far more than the choice
/// (the counting filter's, each a loop of compare-and-swaps).
///
/// In a batch loop, `with_probe!`'s probe asking per key costs more than
/// its two compares: with `k` a constant LLVM compiles the loop without
/// the other `k`'s code in it, fewer instructions for each key of every
/// batch call. The plain filter's per-key calls keep `with_probe!`:
/// inlined into a caller's loop, a per-key call made by this macro takes
/// more, the other `k`'s code and all. `examples/insert_loop.rs` and
/// `examples/query_loop.rs` say how to count them (BENCHMARKS.md has the
/// counts).
macro_rules! with_sized_probe {
    ($sizing:expr, $P:ident => $body:expr) => {{
        let sizing = $sizing;
        let (placement, k): ($crate::layout::Placement, u32) =
            (sizing.placement(), sizing.num_hashes());
        const KS: [u32; 2] = $crate::layout::DEFAULT_RATE_KS;
        if placement == $crate::layout::Placement::Blocked && k == KS[0] {
            type $P = $crate::layout::BlockedProbe<{ KS[0] }>;
            $body
        } else if placement == $crate::layout::Placement::Blocked && k == KS[1] {
            type $P = $crate::layout::BlockedProbe<{ KS[1] }>;
            $body
        } else {
            $crate::layout::with_probe!(placement, $P => $body)
        }
    }};
}
pub(crate) use with_sized_probe;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout's name reads back as it, and its placement places its
    /// bits.
    #[test]
    fn names_read_back_and_placements_match() {
        for layout in Layout::ALL.into_iter().chain(Layout::COMPATIBLE) {
            assert_eq!(layout.to_string().parse(), Ok(layout));
            assert_eq!(layout.placement().layout(), layout);
        }
    }

    /// `Placement::ALL` is in id order, each id reads back, and no other
    /// does.
    #[test]
    fn placement_ids_read_back() {
        for (i, placement) in Placement::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(placement.id()), i);
            assert_eq!(Placement::from_id(placement.id()), Some(placement));
        }
        assert!((8..=u8::MAX).all(|id| Placement::from_id(id).is_none()));
    }
}
