//! # Parquet's split block Bloom filters
//!
//! A Parquet column chunk may carry a split block Bloom filter (SBBF), which
//! DataFusion, Spark, DuckDB and Trino read to skip row groups (the
//! parquet-format specification, `BloomFilter.md`). The library's
//! [`Layout::SplitBlock`] puts a 64-bit hash's bits where Parquet does, and
//! Parquet hashes a value with XXH64 (seed 0) of its plain encoding
//! ([`parquet_hash`], the library's [`ParquetHasher`]): a filter of that
//! layout and hasher ([`split_block_filter`]), built by many threads at
//! once, is a Parquet filter, bit for bit, and [`to_sbbf`] hands it to the
//! `parquet` crate to check or to write (a column writer's
//! `ColumnCloseResult::bloom_filter`). The other way, [`from_sbbf`] takes a
//! filter the `parquet` crate read, and [`read_parquet_filters`] a file's
//! filters of one column, one per row group. Each carries
//! [`ParquetHasher`], so `contains("bob")` hashes `"bob"` as Parquet did,
//! and a filter saved from it records that hasher: the CLI, Python and
//! `bloom_contains` read it back and answer with Parquet's hash too. A key
//! is given as its Parquet physical type's plain encoding: `&str` or bytes
//! for `BYTE_ARRAY` and `FIXED_LEN_BYTE_ARRAY`, `i32` for `INT32`, `i64`
//! for `INT64`, `x.to_le_bytes()` for `FLOAT` and `DOUBLE`.
//!
//! `tests/parquet.rs` checks each claim against the `parquet` crate: its
//! check agrees with ours on every key and on absent ones, DataFusion skips
//! row groups by filters built here, and the filters its writer wrote load
//! as ours, bit for bit.
//!
//! ```
//! use atomic_bloom_datafusion::parquet::{parquet_hash, split_block_filter, to_sbbf};
//! let filter = split_block_filter(1_000, 0.01)?;
//! for name in ["alice", "bob"] {
//!     filter.insert(name); // as insert_hash(parquet_hash(name.as_bytes()))
//! }
//! let sbbf = to_sbbf(&filter)?;
//! assert!(sbbf.check(&"alice") && sbbf.check(&"bob"));
//! assert!(filter.contains_hash(parquet_hash(b"bob")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use atomic_bloom::{AtomicBloom, BuildError, Layout, ParquetHasher, Sizing};
use datafusion::common::{DataFusionError, Result};
use datafusion::parquet::bloom_filter::Sbbf;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
use std::fs::File;
use std::path::Path;
use twox_hash::XxHash64;

/// Parquet's Bloom filter hash of a value, given its plain encoding: a
/// string's or binary's bytes, an `INT32` or `INT64` as its little-endian
/// bytes.
pub fn parquet_hash(plain: &[u8]) -> u64 {
    XxHash64::oneshot(0, plain)
}

/// An empty filter of Parquet's layout and hasher for `expected_items`
/// values at `false_positive_rate`: `insert(value)` hashes the value as
/// Parquet does, as `insert_hash(parquet_hash(plain))` does.
pub fn split_block_filter(
    expected_items: usize,
    false_positive_rate: f64,
) -> Result<AtomicBloom<ParquetHasher>, BuildError> {
    AtomicBloom::builder()
        .capacity(expected_items, false_positive_rate)
        .layout(Layout::SplitBlock)
        .hasher(ParquetHasher)
        .build()
}

/// `filter`'s bits as the `parquet` crate's filter: its blocks are
/// Parquet's, word for word. An error for another layout.
pub fn to_sbbf<S>(filter: &AtomicBloom<S>) -> Result<Sbbf> {
    if filter.layout() != Layout::SplitBlock {
        return Err(DataFusionError::Plan(format!(
            "a Parquet Bloom filter has the split-block layout, not {}",
            filter.layout()
        )));
    }
    let bitset: Vec<u8> = filter.words().flat_map(u64::to_le_bytes).collect();
    Ok(Sbbf::new(&bitset))
}

/// The `parquet` crate's filter as one of ours, of the split-block layout,
/// bit for bit, hashing keys as Parquet does ([`ParquetHasher`]):
/// `contains("bob")` finds the string value `"bob"`, `contains(&7i32)`
/// an `INT32` 7.
pub fn from_sbbf(sbbf: &Sbbf) -> Result<AtomicBloom<ParquetHasher>> {
    let mut bitset = Vec::new();
    sbbf.write_bitset(&mut bitset)?;
    let words = bitset
        .chunks_exact(8)
        .map(|le| u64::from_le_bytes(le.try_into().expect("chunks of 8")));
    let sizing = Sizing::for_bits(Layout::SplitBlock, bitset.len() as u64 * 8, 8)
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    AtomicBloom::from_words(sizing, ParquetHasher, words)
        .map_err(|e| DataFusionError::External(Box::new(e)))
}

/// The Bloom filters of `column` (its dotted path, e.g. `"key"` or
/// `"a.b"`) in the Parquet file at `path`, one per row group in order,
/// `None` for a row group whose writer wrote none. An error if the file
/// is not Parquet, has no such column, or a filter is damaged.
pub fn read_parquet_filters(
    path: impl AsRef<Path>,
    column: &str,
) -> Result<Vec<Option<AtomicBloom<ParquetHasher>>>> {
    let file = File::open(path.as_ref())?;
    let reader = SerializedFileReader::new(file.try_clone()?)?;
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr();
    let index = (0..schema.num_columns())
        .find(|&i| schema.column(i).path().string() == column)
        .ok_or_else(|| {
            DataFusionError::Plan(format!(
                "{} has no column {column:?}",
                path.as_ref().display()
            ))
        })?;
    metadata
        .row_groups()
        .iter()
        .map(|row_group| {
            Sbbf::read_from_column_chunk(row_group.column(index), &file)?
                .map(|sbbf| from_sbbf(&sbbf))
                .transpose()
        })
        .collect()
}
