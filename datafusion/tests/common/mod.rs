//! What the integration tests share: running SQL and reading a one-value
//! result.
#![allow(dead_code)] // each test file uses some of these

use datafusion::arrow::array::{BinaryArray, Int64Array, RecordBatch};
use datafusion::prelude::SessionContext;

/// The batches `sql` gives in `ctx`.
pub async fn run(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql).await.unwrap().collect().await.unwrap()
}

/// The single value of a one-row, one-column binary result.
pub fn the_binary(batches: &[RecordBatch]) -> Vec<u8> {
    let column = batches[0].column(0).as_any().downcast_ref::<BinaryArray>();
    column.unwrap().value(0).to_vec()
}

/// The single binary value `sql` gives in `ctx`.
pub async fn binary(ctx: &SessionContext, sql: &str) -> Vec<u8> {
    the_binary(&run(ctx, sql).await)
}

/// The single `BIGINT` value `sql` gives in `ctx` (a count).
pub async fn count(ctx: &SessionContext, sql: &str) -> i64 {
    let batches = run(ctx, sql).await;
    let column = batches[0].column(0).as_any().downcast_ref::<Int64Array>();
    column.unwrap().value(0)
}
