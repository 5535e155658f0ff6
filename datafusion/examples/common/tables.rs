//! The benches' tables and medians, shared by `examples/bench.rs` (in
//! memory) and `examples/ballista_bench.rs` (as Parquet files), so that
//! both ask the same questions of the same rows.

use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// Partitions of every table.
pub const PARTITIONS: usize = 8;

/// `n` rows (`id BIGINT`, `ids(i)`, and `url VARCHAR`, a URL of it) in
/// [`PARTITIONS`] partitions of batches of 65 536 rows.
pub fn partitions(n: usize, ids: impl Fn(usize) -> i64) -> (SchemaRef, Vec<Vec<RecordBatch>>) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("url", DataType::Utf8, false),
    ]));
    let per = n.div_ceil(PARTITIONS);
    let partitions = (0..PARTITIONS)
        .map(|p| {
            let rows = p * per..((p + 1) * per).min(n);
            rows.clone()
                .step_by(65_536)
                .map(|start| {
                    let batch = start..(start + 65_536).min(rows.end);
                    let id: ArrayRef =
                        Arc::new(Int64Array::from_iter_values(batch.clone().map(&ids)));
                    let url: ArrayRef = Arc::new(StringArray::from_iter_values(
                        batch.map(|i| format!("https://example.com/page/{}", ids(i))),
                    ));
                    RecordBatch::try_new(schema.clone(), vec![id, url]).unwrap()
                })
                .collect()
        })
        .collect();
    (schema, partitions)
}

/// The median of `xs`.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
