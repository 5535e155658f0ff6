//! # `bloom_contains`: membership, a batch at a time
//!
//! `bloom_contains(filter, key)` is whether `key` may be in `filter`, a
//! saved filter (`bloom_build`'s value, a literal, or a scalar subquery):
//! `true` for every key that was added, and for about the filter's
//! false-positive rate of the others; null for a null key. Used as a
//! semi-join pre-filter, it keeps every row that can join and drops most of
//! the rest before the join:
//!
//! ```sql
//! SELECT e.* FROM events e JOIN users u ON e.user_id = u.id
//! WHERE bloom_contains((SELECT bloom_build(id, 2000000, 0.01) FROM users), e.user_id)
//! ```
//!
//! Each batch's keys are hashed into one buffer and looked up together
//! (`contains_hash_batch`, which prefetches ahead); nothing is allocated
//! per row. The filter is read from its bytes once and kept while the
//! same bytes arrive: their checksum (the last 8 bytes of the format)
//! tells them apart.

use crate::keys::{check_key_type, for_each_hash};
use atomic_bloom::AtomicBloom;
use datafusion::arrow::array::{ArrayRef, BooleanArray};
use datafusion::arrow::buffer::BooleanBuffer;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The function `bloom_contains` (see the module's chapter).
#[derive(Debug)]
pub struct BloomContains {
    signature: Signature,
    /// The filter last read, by its bytes' length and checksum. A lock,
    /// taken once per batch (never per key) to swap the filter a query
    /// reads; the filter itself is lock-free.
    last: Mutex<Option<(usize, u64, Arc<AtomicBloom>)>>,
}

impl Default for BloomContains {
    fn default() -> Self {
        BloomContains {
            signature: Signature::any(2, Volatility::Immutable),
            last: Mutex::new(None),
        }
    }
}

/// Every `BloomContains` computes the same function: the cache is not
/// part of what it is.
impl PartialEq for BloomContains {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for BloomContains {}

impl Hash for BloomContains {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl BloomContains {
    /// The filter in `bytes`, read once while the same bytes come again.
    fn filter(&self, bytes: &[u8]) -> Result<Arc<AtomicBloom>> {
        let checksum = bytes
            .last_chunk::<8>()
            .map_or(0, |last| u64::from_le_bytes(*last));
        let key = (bytes.len(), checksum);
        // A poisoned lock only means a reader panicked: the cache is still
        // a filter or nothing.
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((len, sum, filter)) = last.as_ref()
            && (*len, *sum) == key
        {
            return Ok(filter.clone());
        }
        let filter = Arc::new(AtomicBloom::from_bytes(bytes).map_err(|e| {
            DataFusionError::Execution(format!("bloom_contains: not a saved filter: {e}"))
        })?);
        *last = Some((key.0, key.1, filter.clone()));
        Ok(filter)
    }
}

impl ScalarUDFImpl for BloomContains {
    fn name(&self) -> &str {
        "bloom_contains"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if !matches!(
            arg_types[0],
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView | DataType::Null
        ) {
            return plan_err!(
                "bloom_contains' first argument is a saved filter (BINARY, as bloom_build \
                 gives it), not {}",
                arg_types[0]
            );
        }
        check_key_type("bloom_contains", &arg_types[1])?;
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let bytes = match &args.args[0] {
            ColumnarValue::Scalar(
                ScalarValue::Binary(Some(b))
                | ScalarValue::LargeBinary(Some(b))
                | ScalarValue::BinaryView(Some(b)),
            ) => b,
            // No filter: nothing is known to be in it.
            ColumnarValue::Scalar(_) => {
                return Ok(ColumnarValue::Scalar(ScalarValue::Boolean(None)));
            }
            ColumnarValue::Array(_) => {
                return exec_err!(
                    "bloom_contains takes one filter per query (a constant or a scalar \
                     subquery), not one per row"
                );
            }
        };
        let filter = self.filter(bytes)?;
        let keys: ArrayRef = args.args[1].to_array(rows)?;
        let (mut at, mut hashes) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
        for_each_hash(&keys, filter.hasher(), |row, hash| {
            at.push(row);
            hashes.push(hash);
        })?;
        let mut answers = vec![false; keys.len()];
        for (row, hit) in at.into_iter().zip(filter.contains_hash_batch(hashes)) {
            answers[row] = hit;
        }
        let answers = BooleanArray::new(BooleanBuffer::from(answers), keys.logical_nulls());
        Ok(ColumnarValue::Array(Arc::new(answers)))
    }
}
