//! # Arrow values as keys
//!
//! A filter built in DataFusion must answer like one built from the same
//! keys by the CLI, Rust or Python, so every Arrow value maps onto one of
//! the library's two stable encodings (its `docs::keys` chapter):
//!
//! | Arrow type | hashed as | same key as |
//! |---|---|---|
//! | `Utf8`, `LargeUtf8`, `Utf8View` | the string's UTF-8 bytes, by the byte encoding | `insert("...")`, a CLI line, a Python `str` |
//! | `Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary` | the bytes, by the byte encoding | `insert(b"...")`, a Python `bytes` |
//! | `Int8` to `Int64`, `UInt8` to `UInt64` | the value's 64-bit two's complement | `insert(&(n as u64))`, a Python `int` |
//! | a dictionary of any of these | its values | as the values |
//!
//! A null is no key: the aggregate skips it, and membership of a null is
//! null (SQL's answer about an unknown value), which a `WHERE` drops.
//!
//! A filter read from a Parquet file ([`ParquetHasher`](atomic_bloom::ParquetHasher)) was filled by a
//! Parquet writer, which hashes the plain encoding of the column's
//! physical type: its keys are hashed that way instead. Strings and
//! binaries are their bytes as above; integers are Parquet's `INT32` (4
//! little-endian bytes: `Int8` to `Int32`, `UInt8` to `UInt32`, as Parquet
//! stores them) or `INT64` (8 bytes: `Int64`, `UInt64`).
//!
//! A filter Google Guava wrote is asked keys, not hashes ([`for_each_key`]):
//! strings and binaries as their bytes (`stringFunnel(UTF_8)`,
//! `byteArrayFunnel`), integers as 64-bit (`longFunnel`).

use atomic_bloom::{Bytes, Membership};
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
    UInt64Type,
};
use datafusion::common::{Result, plan_err};

/// Whether values of `data_type` are keys.
pub fn is_key_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, values) => is_key_type(values),
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_)
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => true,
        _ => false,
    }
}

/// The planning error for a column whose values are not keys.
pub fn check_key_type(function: &str, data_type: &DataType) -> Result<()> {
    if is_key_type(data_type) {
        return Ok(());
    }
    plan_err!(
        "{function} takes strings, binaries or integers as keys, not {data_type}: \
         cast the column as a join would compare it"
    )
}

/// A non-null Arrow value as a key, before it is hashed.
#[derive(Clone, Copy)]
pub enum ArrowKey<'a> {
    /// A string's UTF-8 bytes, or a binary's bytes.
    Bytes(&'a [u8]),
    /// An integer of 32 bits or fewer as Parquet's `INT32` (only when
    /// asked for physical types).
    Int32(i32),
    /// An integer as 64-bit two's complement (sign-extended, or as Parquet's
    /// `INT64`).
    Int64(u64),
}

/// Calls `each(row, key)` for every non-null value of `array`; `physical`
/// takes integers as Parquet's physical types ([`ArrowKey::Int32`] for
/// 32 bits and fewer), as a filter that hashes as Parquet does needs.
pub fn for_each_key(
    array: &ArrayRef,
    physical: bool,
    mut each: impl FnMut(usize, ArrowKey<'_>),
) -> Result<()> {
    macro_rules! ints {
        ($t:ty, $narrow:expr) => {{
            let values = array.as_primitive::<$t>();
            for (row, value) in values.iter().enumerate() {
                if let Some(value) = value {
                    let key = if physical && $narrow {
                        // Parquet's `INT32`, bit for bit (an unsigned
                        // value's bits as the signed type).
                        ArrowKey::Int32(value as i32)
                    } else {
                        // Sign-extended to 64 bits, as every integer key.
                        ArrowKey::Int64(i128::from(value) as u64)
                    };
                    each(row, key);
                }
            }
        }};
    }
    macro_rules! bytes {
        ($values:expr) => {{
            for (row, value) in $values.enumerate() {
                if let Some(value) = value {
                    each(row, ArrowKey::Bytes(value.as_ref()));
                }
            }
        }};
    }
    match array.data_type() {
        DataType::Dictionary(_, values) => {
            // The values, decoded: a dictionary is an encoding, not a key.
            let decoded = cast(array, values)?;
            return for_each_key(&decoded, physical, each);
        }
        DataType::Utf8 => bytes!(array.as_string::<i32>().iter()),
        DataType::LargeUtf8 => bytes!(array.as_string::<i64>().iter()),
        DataType::Utf8View => bytes!(array.as_string_view().iter()),
        DataType::Binary => bytes!(array.as_binary::<i32>().iter()),
        DataType::LargeBinary => bytes!(array.as_binary::<i64>().iter()),
        DataType::BinaryView => bytes!(array.as_binary_view().iter()),
        DataType::FixedSizeBinary(_) => bytes!(array.as_fixed_size_binary().iter()),
        DataType::Int8 => ints!(Int8Type, true),
        DataType::Int16 => ints!(Int16Type, true),
        DataType::Int32 => ints!(Int32Type, true),
        DataType::Int64 => ints!(Int64Type, false),
        DataType::UInt8 => ints!(UInt8Type, true),
        DataType::UInt16 => ints!(UInt16Type, true),
        DataType::UInt32 => ints!(UInt32Type, true),
        DataType::UInt64 => ints!(UInt64Type, false),
        other => return plan_err!("not a key type: {other}"),
    }
    Ok(())
}

/// Calls `each(row, hash)` for every non-null value of `array`, hashed by
/// `filter` as the library hashes the same key; `parquet` if the filter
/// hashes as Parquet does ([`ParquetHasher`](atomic_bloom::ParquetHasher)), which takes integers as
/// their physical type.
pub fn for_each_hash<M: Membership>(
    array: &ArrayRef,
    filter: &M,
    parquet: bool,
    mut each: impl FnMut(usize, u64),
) -> Result<()> {
    for_each_key(array, parquet, |row, key| {
        let hash = match key {
            ArrowKey::Bytes(bytes) => filter.hash(&Bytes(bytes)),
            ArrowKey::Int32(value) => filter.hash(&value),
            ArrowKey::Int64(value) => filter.hash(&value),
        };
        each(row, hash);
    })
}
