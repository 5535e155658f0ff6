//! # `bloom_build`: the aggregate
//!
//! `bloom_build(key [, expected_items [, false_positive_rate]])` builds a
//! plain [`AtomicBloom`] (the default layout and seed) from the non-null
//! values of `key`, sized for `expected_items` (default 1,000,000) at
//! `false_positive_rate` (default 0.01), both constants. Its value is the
//! filter in the library's format, as `BINARY`: the bytes `save` writes,
//! which the CLI, Rust and Python read.
//!
//! Each partition's accumulator inserts its batches on its own thread
//! (the partitions are what spread the work over the cores); its state is the
//! filter's bytes, and merging is the union, associative, commutative and
//! idempotent over filters of one size, so any partitioning, and any order
//! of merges, gives the bits one process would build.

use crate::keys::{check_key_type, for_each_hash};
use atomic_bloom::AtomicBloom;
use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, Signature, TypeSignature, Volatility,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Literal;
use std::sync::Arc;

/// The aggregate's name in SQL.
pub const NAME: &str = "bloom_build";

/// The default of `expected_items`.
pub const DEFAULT_EXPECTED_ITEMS: u64 = 1_000_000;
/// The default of `false_positive_rate`.
pub const DEFAULT_FALSE_POSITIVE_RATE: f64 = 0.01;

/// The aggregate `bloom_build` (see the module's chapter).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BloomBuild {
    signature: Signature,
}

impl Default for BloomBuild {
    fn default() -> Self {
        BloomBuild {
            signature: Signature::one_of(
                vec![
                    TypeSignature::Any(1),
                    TypeSignature::Any(2),
                    TypeSignature::Any(3),
                ],
                Volatility::Immutable,
            ),
        }
    }
}

impl AggregateUDFImpl for BloomBuild {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_key_type("bloom_build", &arg_types[0])?;
        Ok(DataType::Binary)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            format_state_name(args.name, "filter"),
            DataType::Binary,
            true,
        ))])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let expected = match args.exprs.get(1) {
            Some(expr) => constant(expr, "expected_items", &DataType::UInt64)?,
            None => ScalarValue::UInt64(Some(DEFAULT_EXPECTED_ITEMS)),
        };
        let rate = match args.exprs.get(2) {
            Some(expr) => constant(expr, "false_positive_rate", &DataType::Float64)?,
            None => ScalarValue::Float64(Some(DEFAULT_FALSE_POSITIVE_RATE)),
        };
        let (ScalarValue::UInt64(Some(expected)), ScalarValue::Float64(Some(rate))) =
            (expected, rate)
        else {
            return plan_err!(
                "bloom_build's expected_items and false_positive_rate must not be null"
            );
        };
        let expected = usize::try_from(expected).map_err(|_| {
            DataFusionError::Plan(format!("expected_items {expected} is too large"))
        })?;
        let filter = AtomicBloom::builder()
            .capacity(expected, rate)
            .build()
            .map_err(|e| DataFusionError::Plan(format!("bloom_build: {e}")))?;
        Ok(Box::new(BuildAccumulator {
            filter,
            hashes: Vec::new(),
        }))
    }
}

/// The constant value of `expr`, a literal, as `data_type`.
fn constant(expr: &Arc<dyn PhysicalExpr>, name: &str, data_type: &DataType) -> Result<ScalarValue> {
    let Some(literal) = expr.downcast_ref::<Literal>() else {
        return plan_err!("bloom_build's {name} must be a constant");
    };
    literal.value().cast_to(data_type).map_err(|_| {
        DataFusionError::Plan(format!(
            "bloom_build's {name} must be a {data_type}, not {}",
            literal.value()
        ))
    })
}

/// One partition's (or group's) filter.
#[derive(Debug)]
struct BuildAccumulator {
    filter: AtomicBloom,
    /// A batch's hashes, reused.
    hashes: Vec<u64>,
}

impl BuildAccumulator {
    fn bytes(&self) -> Result<ScalarValue> {
        let bytes = self
            .filter
            .to_bytes()
            .map_err(|e| DataFusionError::ResourcesExhausted(format!("bloom_build: {e}")))?;
        Ok(ScalarValue::Binary(Some(bytes)))
    }
}

impl Accumulator for BuildAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.hashes.clear();
        let hashes = &mut self.hashes;
        for_each_hash(&values[0], &self.filter, false, |_, hash| hashes.push(hash))?;
        self.filter.insert_hash_batch(self.hashes.iter().copied());
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for bytes in states[0].as_binary::<i32>().iter().flatten() {
            let other = AtomicBloom::from_bytes(bytes)
                .map_err(|e| DataFusionError::Execution(format!("bloom_build's state: {e}")))?;
            self.filter
                .union(&other)
                .map_err(|e| DataFusionError::Execution(format!("bloom_build: {e}")))?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.bytes()?])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.bytes()
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.filter.memory_bytes() + self.hashes.capacity() * 8
    }
}
