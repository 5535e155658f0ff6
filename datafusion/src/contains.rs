//! # `bloom_contains`: membership, a batch at a time
//!
//! `bloom_contains(filter, key)` is whether `key` may be in `filter`, a
//! saved filter of any kind (`bloom_build`'s value, a literal, or a scalar
//! subquery; plain, counting, growable or windowed, answered through the
//! library's `Membership`):
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
//! same bytes arrive. A subquery's filter, which every batch shares (see
//! below), is told by where its bytes lie, its array held meanwhile, so
//! that nothing is read per batch; bytes copied into each batch, by their
//! checksum (the last 8 bytes of this crate's format; a hash of all the
//! bytes of the JVM's, which have none).
//!
//! DataFusion hands a constant argument to each batch as a copy of its
//! value (`Literal::evaluate`, and the scalar subquery's result alike),
//! and a copy of a large filter per batch of 8192 keys costs more than
//! looking them up. So no filter reaches a batch as bytes:
//!
//! - A constant filter is read once and bound to the function, which then
//!   takes only the key. `lit(bytes)` given to
//!   [`bloom_contains`](crate::bloom_contains), and
//!   [`bloom_contains_saved`](crate::bloom_contains_saved), bind when the
//!   expression is made; a literal in a plan is bound as planning begins
//!   ([`BloomContainsRewrite`]).
//! - A scalar subquery's filter is known only when the query runs. The
//!   same rewrite wraps it in a one-field struct, whose copy shares the
//!   bytes rather than copying them.
//!
//! `tests/sql.rs` (`a_filter_reaches_each_batch_without_a_copy_of_its_bytes`)
//! checks both hand-overs and that they keep the same rows;
//! `examples/bench.rs` measures each way.
//!
//! The column is named `bloom_contains(filter(<n> bytes, checksum <hex>),
//! key)`, bound or not: DataFusion's default would spell the filter out
//! byte by byte, megabytes of name.

use crate::keys::{ArrowKey, check_key_type, for_each_hash, for_each_key};
use atomic_bloom::{AnyFilter, MAGIC, Membership, SavedFilter, WyBuildHasher};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::buffer::BooleanBuffer;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{
    Column, DFSchema, DataFusionError, Result, ScalarValue, exec_err, plan_err,
};
use datafusion::functions::core::expr_fn::r#struct;
use datafusion::logical_expr::expr_rewriter::FunctionRewrite;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::logical_expr::{LogicalPlanBuilder, Subquery};
use std::hash::BuildHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The function's name in SQL.
pub const NAME: &str = "bloom_contains";

/// The function `bloom_contains` (see the module's chapter).
#[derive(Debug)]
pub struct BloomContains {
    signature: Signature,
    /// The constant filter bound at planning: then the function's one
    /// argument is the key.
    bound: Option<Bound>,
    /// The filter last read. A lock, taken once per batch (never per
    /// key) to swap the filter a query reads; the filter itself is
    /// lock-free.
    last: Mutex<Option<Last>>,
}

/// The filter `bloom_contains` read last, and what tells a batch whose
/// filter bytes are the same.
#[derive(Debug)]
struct Last {
    identity: Identity,
    /// The array the bytes lie in, for [`Identity::At`]: while it is held,
    /// its memory is neither freed nor changed (a shared Arrow buffer is
    /// not written: `Buffer::into_mutable` refuses one,
    /// <https://docs.rs/arrow-buffer/latest/arrow_buffer/buffer/struct.Buffer.html#method.into_mutable>),
    /// so bytes at the same address and of the same length are the same
    /// bytes, and nothing is read to tell. `tests/sql.rs`
    /// (`a_filter_kept_between_queries_answers_only_for_its_own_bytes`)
    /// asks two filters of one size in turn.
    _held: Option<ArrayRef>,
    filter: Arc<AnyFilter>,
}

/// What names a batch's filter bytes.
#[derive(Debug, PartialEq)]
enum Identity {
    /// Where they lie in an Arrow array (a subquery's filter, in its
    /// struct, which every batch shares), and their length.
    At(usize, usize),
    /// Their length and [`checksum`]: bytes copied into each batch.
    Summed(usize, u64),
}

/// A filter bound at planning, and what names it: the length and checksum
/// of the bytes it was read from.
#[derive(Debug)]
struct Bound {
    len: usize,
    sum: u64,
    filter: Arc<AnyFilter>,
}

impl Bound {
    fn name(&self) -> (usize, u64) {
        (self.len, self.sum)
    }
}

impl Default for BloomContains {
    fn default() -> Self {
        BloomContains {
            signature: Signature::any(2, Volatility::Immutable),
            bound: None,
            last: Mutex::new(None),
        }
    }
}

/// Functions are equal if they compute the same: unbound, or bound to the
/// same filter (by its checksum). The cache is not part of what it is.
impl PartialEq for BloomContains {
    fn eq(&self, other: &Self) -> bool {
        self.bound.as_ref().map(Bound::name) == other.bound.as_ref().map(Bound::name)
    }
}

impl Eq for BloomContains {}

impl Hash for BloomContains {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
        self.bound.as_ref().map(Bound::name).hash(state);
    }
}

/// What names a filter's bytes beside their length: the checksum a file
/// of this crate's format ends with, or, for the JVM's formats, which have
/// none, a hash of all the bytes (two filters of one size may well end
/// with the same word).
fn checksum(bytes: &[u8]) -> u64 {
    match bytes.last_chunk::<8>() {
        Some(last) if bytes.starts_with(&MAGIC) => u64::from_le_bytes(*last),
        _ => WyBuildHasher::default().hash_one(bytes),
    }
}

/// The bytes of a binary value, if it is one and not null.
fn binary_value(value: &ScalarValue) -> Option<&[u8]> {
    match value {
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b)) => Some(b),
        _ => None,
    }
}

/// The bytes of a binary literal: a constant filter.
pub(crate) fn binary_literal(expr: &Expr) -> Option<&[u8]> {
    match expr {
        Expr::Literal(value, _) => binary_value(value),
        _ => None,
    }
}

/// A constant filter and the keys after it, if `args` starts with one.
fn constant_filter(args: &[Expr]) -> Option<(&[u8], &[Expr])> {
    let (filter, keys) = args.split_first()?;
    Some((binary_literal(filter)?, keys))
}

/// `bloom_contains(key)` bound to the filter of unbound arguments
/// `(<constant filter>, key)`, or `None` for other arguments; an error if
/// the constant is not a saved filter.
fn bind_constant(args: &[Expr]) -> Result<Option<Expr>> {
    let Some((bytes, [key])) = constant_filter(args) else {
        return Ok(None);
    };
    // Bytes that are no filter stay unbound: the call then fails when it
    // runs, with `bloom_contains`'s own error, where failing here would
    // put the planner pass's name ("apply_function_rewrites") first.
    let Ok(bound) = BloomContains::bound(bytes) else {
        return Ok(None);
    };
    Ok(Some(ScalarUDF::from(bound).call(vec![key.clone()])))
}

/// How a column name spells a constant filter: by its size and checksum.
fn filter_name(len: usize, sum: u64) -> String {
    format!("filter({len} bytes, checksum {sum:016x})")
}

/// The filter saved in `bytes`, of any kind or format, or an error that
/// names the function.
fn read_filter(bytes: &[u8]) -> Result<AnyFilter> {
    AnyFilter::from_bytes(bytes)
        .map_err(|e| DataFusionError::Execution(format!("bloom_contains: not a saved filter: {e}")))
}

impl BloomContains {
    /// `bloom_contains(key)` of the filter saved in `bytes`, read now.
    pub fn bound(bytes: &[u8]) -> Result<Self> {
        Ok(BloomContains {
            signature: Signature::any(1, Volatility::Immutable),
            bound: Some(Bound {
                len: bytes.len(),
                sum: checksum(bytes),
                filter: Arc::new(read_filter(bytes)?),
            }),
            last: Mutex::new(None),
        })
    }

    /// The bound filter, if the function has one, of whichever kind.
    pub fn bound_filter(&self) -> Option<&AnyFilter> {
        Some(&*self.bound.as_ref()?.filter)
    }

    /// Appends the bound filter's saved bytes to `buf`, if the function has
    /// one (for the codec).
    #[cfg(feature = "proto")]
    pub(crate) fn write_bound(&self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        match self.bound.as_ref().map(|bound| &*bound.filter) {
            Some(AnyFilter::Saved(filter)) => filter.write_to(buf),
            Some(AnyFilter::Guava(filter)) => filter.write_guava(buf),
            None => Ok(()),
        }
    }

    /// The filter in `bytes` (which lie in `array`, if it is given), read
    /// once while the same bytes come again.
    fn filter(&self, bytes: &[u8], array: Option<&ArrayRef>) -> Result<Arc<AnyFilter>> {
        let identity = match array {
            Some(_) => Identity::At(bytes.as_ptr() as usize, bytes.len()),
            None => Identity::Summed(bytes.len(), checksum(bytes)),
        };
        // A poisoned lock only means a reader panicked: the cache is still
        // a filter or nothing.
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(last) = last.as_ref()
            && last.identity == identity
        {
            return Ok(last.filter.clone());
        }
        let filter = Arc::new(read_filter(bytes)?);
        *last = Some(Last {
            identity,
            _held: array.cloned(),
            filter: filter.clone(),
        });
        Ok(filter)
    }
}

impl ScalarUDFImpl for BloomContains {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// The column's name, with a constant filter named by its size and
    /// checksum rather than spelled out. DataFusion names an expression by
    /// printing its arguments, many times while planning, and printing a
    /// filter of megabytes byte by byte cost seconds per query
    /// (`examples/bench.rs`, the constant's row, before the rewrite). A
    /// bound filter is named as its literal was, so binding keeps the
    /// column's name.
    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        let (filter, keys) = match (&self.bound, constant_filter(args)) {
            (Some(bound), _) => (Some(filter_name(bound.len, bound.sum)), args),
            (None, Some((bytes, keys))) => (Some(filter_name(bytes.len(), checksum(bytes))), keys),
            (None, None) => (None, args),
        };
        let names: Vec<String> = filter
            .into_iter()
            .chain(keys.iter().map(|key| key.schema_name().to_string()))
            .collect();
        Ok(format!("{}({})", self.name(), names.join(",")))
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if self.bound.is_some() {
            check_key_type("bloom_contains", &arg_types[0])?;
            return Ok(DataType::Boolean);
        }
        let filter_type = match &arg_types[0] {
            // A subquery's filter as `BloomContainsRewrite` wraps it.
            DataType::Struct(fields) if fields.len() == 1 => fields[0].data_type(),
            other => other,
        };
        if !(is_binary(filter_type) || filter_type == &DataType::Null) {
            return plan_err!(
                "bloom_contains' first argument is a saved filter (BINARY, as bloom_build \
                 gives it), not {}",
                arg_types[0]
            );
        }
        check_key_type("bloom_contains", &arg_types[1])?;
        Ok(DataType::Boolean)
    }

    /// A constant filter is read now and bound (see the module's chapter).
    fn simplify(&self, args: Vec<Expr>, _: &SimplifyContext) -> Result<ExprSimplifyResult> {
        if self.bound.is_some() {
            return Ok(ExprSimplifyResult::Original(args));
        }
        Ok(match bind_constant(&args)? {
            Some(bound) => ExprSimplifyResult::Simplified(bound),
            None => ExprSimplifyResult::Original(args),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        if let Some(bound) = &self.bound {
            return contains(&bound.filter, &args.args[0], rows);
        }
        let (bytes, array) = match &args.args[0] {
            ColumnarValue::Scalar(ScalarValue::Struct(filter)) if !filter.is_null(0) => {
                (first_bytes(filter.column(0)), Some(filter.column(0)))
            }
            ColumnarValue::Scalar(value) => (binary_value(value), None),
            ColumnarValue::Array(_) => {
                return exec_err!(
                    "bloom_contains takes one filter per query (a constant or a scalar \
                     subquery), not one per row"
                );
            }
        };
        match bytes {
            Some(bytes) => contains(&*self.filter(bytes, array)?, &args.args[1], rows),
            // No filter: nothing is known to be in it.
            None => Ok(ColumnarValue::Scalar(ScalarValue::Boolean(None))),
        }
    }
}

/// The rewrite of `bloom_contains` calls, which the analyzer applies
/// before the rest of planning; [`register`](crate::register) adds it.
///
/// - `bloom_contains(<constant filter>, key)` is bound: every later step
///   that types the call (type coercion above all) would otherwise print
///   the constant into a field's name, byte by byte. Without the rewrite,
///   the optimizer binds the same filter later, when it simplifies.
/// - `bloom_contains((<subquery of a filter>), key)` takes the subquery's
///   filter wrapped in a one-field struct, `struct(filter)`: DataFusion
///   hands a scalar subquery's value to each batch as a copy, and a
///   struct's copy shares its column where a binary's copies its bytes.
#[derive(Debug, Default)]
pub struct BloomContainsRewrite;

impl FunctionRewrite for BloomContainsRewrite {
    fn name(&self) -> &str {
        "bloom_contains: bind constant filters, share subquery filters"
    }

    fn rewrite(&self, expr: Expr, _: &DFSchema, _: &ConfigOptions) -> Result<Transformed<Expr>> {
        let Expr::ScalarFunction(call) = &expr else {
            return Ok(Transformed::no(expr));
        };
        let unbound = call
            .func
            .inner()
            .downcast_ref::<BloomContains>()
            .is_some_and(|f| f.bound.is_none());
        if !unbound {
            return Ok(Transformed::no(expr));
        }
        if let Some(bound) = bind_constant(&call.args)? {
            return Ok(Transformed::yes(bound));
        }
        match call.args.as_slice() {
            [Expr::ScalarSubquery(filter), key]
                if is_binary(filter.subquery.schema().field(0).data_type()) =>
            {
                let plan = filter.subquery.as_ref().clone();
                let column = Expr::Column(Column::from(plan.schema().qualified_field(0)));
                let wrapped = LogicalPlanBuilder::from(plan)
                    .project(vec![r#struct(vec![column]).alias("filter")])?
                    .build()?;
                let filter = Subquery {
                    subquery: Arc::new(wrapped),
                    outer_ref_columns: filter.outer_ref_columns.clone(),
                    spans: filter.spans.clone(),
                };
                let args = vec![Expr::ScalarSubquery(filter), key.clone()];
                Ok(Transformed::yes(call.func.call(args)))
            }
            _ => Ok(Transformed::no(expr)),
        }
    }
}

/// Whether `data_type` holds saved filters: a binary type.
fn is_binary(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

/// The bytes in the first row of a binary array; `None` for a null.
fn first_bytes(array: &dyn Array) -> Option<&[u8]> {
    if array.is_empty() || array.is_null(0) {
        return None;
    }
    match array.data_type() {
        DataType::Binary => Some(array.as_binary::<i32>().value(0)),
        DataType::LargeBinary => Some(array.as_binary::<i64>().value(0)),
        DataType::BinaryView => Some(array.as_binary_view().value(0)),
        _ => None,
    }
}

/// Whether each of `keys` may be in `filter`, of any kind: null for a null
/// key.
fn contains(filter: &AnyFilter, keys: &ColumnarValue, rows: usize) -> Result<ColumnarValue> {
    let keys: ArrayRef = keys.to_array(rows)?;
    let mut answers = vec![false; keys.len()];
    match filter {
        AnyFilter::Saved(filter) => {
            let (mut at, mut hashes) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
            let parquet = matches!(filter, SavedFilter::Parquet(_));
            for_each_hash(&keys, filter, parquet, |row, hash| {
                at.push(row);
                hashes.push(hash);
            })?;
            for (row, hit) in at.into_iter().zip(filter.contains_hash_batch(&hashes)) {
                answers[row] = hit;
            }
        }
        // Strings and binaries as their bytes (Guava's `stringFunnel(UTF_8)`
        // and `byteArrayFunnel`), integers as 64-bit (`longFunnel`).
        AnyFilter::Guava(filter) => for_each_key(&keys, false, |row, key| {
            answers[row] = match key {
                ArrowKey::Bytes(bytes) => filter.contains(bytes),
                ArrowKey::Int64(value) => filter.contains(&value),
                ArrowKey::Int32(value) => filter.contains(&i64::from(value)),
            }
        })?,
    }
    let answers = BooleanArray::new(BooleanBuffer::from(answers), keys.logical_nulls());
    Ok(ColumnarValue::Array(Arc::new(answers)))
}
