//! `bloom_build` and `bloom_contains` against DataFusion's own ways to
//! build and probe the same set, side by side on one `SessionContext`.
//!
//!     cd datafusion && cargo run --release --example bench            # 2M and 20M rows
//!     cd datafusion && cargo run --release --example bench -- 2000000 # one size
//!
//! A table of `n` rows (`id BIGINT`, distinct, and `url VARCHAR`) in 8
//! partitions, queried with as many target partitions as the machine has
//! cores. Build: `bloom_build(col, n, 0.01)` against `count(DISTINCT col)`,
//! the hash set of the same keys. Probe: the rows of a table of `n` ids,
//! half of them in the set, kept by `bloom_contains` of the built filter
//! (a scalar subquery, and one of the same keys in Spark's format; a
//! constant in the plan, bound at planning; its bytes, bound at once)
//! against the same rows kept by an `IN (subquery)` semi-join (which
//! builds its hash table each time). Rounds alternate
//! between the ways; each figure is the median of 5, in million rows per
//! second.

use atomic_bloom::AtomicBloom;
use atomic_bloom_datafusion::{bloom_contains_saved, bloom_contains_udf, register};
use datafusion::arrow::array::{ArrayRef, BinaryArray, RecordBatch};
use datafusion::datasource::MemTable;
use datafusion::functions_aggregate::expr_fn::count;
use datafusion::prelude::*;
use std::sync::Arc;
use std::time::Instant;

const ROUNDS: usize = 5;

#[path = "common/tables.rs"]
mod tables;
use tables::{median, partitions};

fn table(n: usize, ids: impl Fn(usize) -> i64) -> MemTable {
    let (schema, partitions) = partitions(n, ids);
    MemTable::try_new(schema, partitions).unwrap()
}

async fn seconds(ctx: &SessionContext, sql: &str) -> (f64, Vec<RecordBatch>) {
    let start = Instant::now();
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    (start.elapsed().as_secs_f64(), batches)
}

/// A query in SQL, or a DataFrame (whose constants SQL text would spell
/// out byte by byte).
enum Query {
    Sql(String),
    Frame(DataFrame),
}

fn sql(text: &str) -> Query {
    Query::Sql(text.to_string())
}

impl Query {
    /// Seconds to plan and run it.
    async fn seconds(&self, ctx: &SessionContext) -> f64 {
        match self {
            Query::Sql(text) => seconds(ctx, text).await.0,
            Query::Frame(frame) => {
                let start = Instant::now();
                frame.clone().collect().await.unwrap();
                start.elapsed().as_secs_f64()
            }
        }
    }
}

#[tokio::main]
async fn main() {
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().expect("a row count")],
        None => vec![2_000_000, 20_000_000],
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("| rows | what | M rows/s | ratio |");
    println!("|---|---|---|---|");
    for n in sizes {
        let ctx =
            SessionContext::new_with_config(SessionConfig::new().with_target_partitions(cores));
        register(&ctx);
        ctx.register_table("t", Arc::new(table(n, |i| i as i64)))
            .unwrap();
        // Every other id of twice the range: half are in `t`.
        ctx.register_table("probe", Arc::new(table(n, |i| 2 * i as i64)))
            .unwrap();
        let build = format!("SELECT bloom_build(id, {n}, 0.01) FROM t");
        let (_, built) = seconds(&ctx, &build).await;
        // The filter as a one-row table, read by a scalar subquery.
        let filter: &BinaryArray = built[0].column(0).as_any().downcast_ref().unwrap();
        let one =
            RecordBatch::try_from_iter([("f", Arc::new(filter.clone()) as ArrayRef)]).unwrap();
        ctx.register_batch("filter", one).unwrap();
        let bytes = filter.value(0).to_vec();
        // The same keys in a filter of Spark's format, which has no
        // checksum to name it by.
        let spark = AtomicBloom::spark(n as u64, 0.01).unwrap();
        (0..n).for_each(|i| _ = spark.insert(&(i as u64)));
        let spark = BinaryArray::from_vec(vec![spark.to_spark_bytes().unwrap().as_slice()]);
        let spark = RecordBatch::try_from_iter([("f", Arc::new(spark) as ArrayRef)]).unwrap();
        ctx.register_batch("spark_filter", spark).unwrap();
        let probe = ctx.table("probe").await.unwrap();
        let count_where = |condition: Expr| {
            let kept = probe.clone().filter(condition).unwrap();
            Query::Frame(kept.aggregate(vec![], vec![count(lit(1))]).unwrap())
        };
        let saved = count_where(bloom_contains_saved(&bytes, col("id")).unwrap());
        // A constant in the plan, as SQL text would give it: bound at
        // planning. (`bloom_contains(lit(bytes), key)` binds at once, as
        // `bloom_contains_saved` does.)
        let literal = count_where(bloom_contains_udf().call(vec![lit(bytes.clone()), col("id")]));
        // (what, the query, the row of DataFusion's own way it is set against)
        let ways: [(&str, Query, Option<usize>); 9] = [
            ("build: bloom_build(id)", Query::Sql(build.clone()), Some(1)),
            (
                "build: count(DISTINCT id)",
                sql("SELECT count(DISTINCT id) FROM t"),
                None,
            ),
            (
                "build: bloom_build(url)",
                Query::Sql(format!("SELECT bloom_build(url, {n}, 0.01) FROM t")),
                Some(3),
            ),
            (
                "build: count(DISTINCT url)",
                sql("SELECT count(DISTINCT url) FROM t"),
                None,
            ),
            (
                "probe: bloom_contains((SELECT f FROM filter), id)",
                sql("SELECT count(*) FROM probe WHERE bloom_contains((SELECT f FROM filter), id)"),
                Some(8),
            ),
            (
                "probe: bloom_contains((SELECT f FROM spark_filter), id)",
                sql(
                    "SELECT count(*) FROM probe WHERE bloom_contains((SELECT f FROM spark_filter), id)",
                ),
                Some(8),
            ),
            ("probe: bloom_contains_saved(filter, id)", saved, Some(8)),
            (
                "probe: bloom_contains(<constant in the plan>, id)",
                literal,
                Some(8),
            ),
            (
                "probe: id IN (SELECT id FROM t)",
                sql("SELECT count(*) FROM probe WHERE id IN (SELECT id FROM t)"),
                None,
            ),
        ];
        let mut times = vec![Vec::new(); ways.len()];
        for _ in 0..ROUNDS {
            for (i, (_, query, _)) in ways.iter().enumerate() {
                times[i].push(query.seconds(&ctx).await);
            }
        }
        let rates: Vec<f64> = times
            .into_iter()
            .map(|t| n as f64 / median(t) / 1e6)
            .collect();
        for (i, (name, _, against)) in ways.iter().enumerate() {
            let ratio = against.map_or(String::new(), |j| format!("{:.2}", rates[i] / rates[j]));
            println!("| {n} | {name} | {:.1} | {ratio} |", rates[i]);
        }
    }
}
