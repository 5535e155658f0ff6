//! `bloom_build` and `bloom_contains` on a Ballista cluster of this
//! machine (a scheduler and two executor processes, on loopback) against
//! one process, and against DataFusion's own ways on each: `examples/bench.rs`'s
//! questions, on Parquet files, which both engines read.
//!
//!     cd datafusion
//!     cargo build --release --features ballista --examples
//!     target/release/examples/ballista_bench            # 2M rows
//!     target/release/examples/ballista_bench 20000000   # another size
//!
//! A table `t` of `n` rows (`id BIGINT`, distinct, and `url VARCHAR`) in 8
//! Parquet files (`examples/bench.rs`'s rows), and `probe`, `n` ids of which half are in `t`. Build:
//! `bloom_build(col, n, 0.01)` against `count(DISTINCT col)`. Probe: the
//! rows of `probe` kept by the built filter, bound as a constant
//! (`bloom_contains_saved`, the way a filter reaches a Ballista cluster),
//! against `id IN (SELECT id FROM t)`. The cluster's executors are the
//! example binaries beside this one, on as many cores as this machine
//! has: two executors on one machine share its cores, so the cluster's
//! ratio to one process is what its stages, shuffles and gRPC cost, not
//! what more machines would give. Rounds alternate between the ways and
//! the engines; each figure is the median of 5, in million rows per
//! second.

use atomic_bloom_datafusion::{ballista, bloom_contains_saved, register};
use datafusion::arrow::array::BinaryArray;
use datafusion::functions_aggregate::expr_fn::count;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../tests/common/cluster.rs"]
mod cluster;
use cluster::Cluster;

const ROUNDS: usize = 5;

#[path = "common/tables.rs"]
mod tables;
use tables::{median, partitions};

/// `dir/name/part-*.parquet`: the rows of [`partitions`], a file each.
fn write_table(dir: &Path, name: &str, n: usize, ids: impl Fn(usize) -> i64) {
    let dir = dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (schema, partitions) = partitions(n, ids);
    for (f, batches) in partitions.iter().enumerate() {
        let file = std::fs::File::create(dir.join(format!("part-{f}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
        batches
            .iter()
            .for_each(|batch| writer.write(batch).unwrap());
        writer.close().unwrap();
    }
}

/// A scheduler and `executors` executors, the example binaries beside
/// this one.
fn start_cluster(executors: usize) -> Cluster {
    let here = std::env::current_exe().unwrap();
    let sibling = |name: &str| -> PathBuf {
        let path = here.with_file_name(name);
        assert!(
            path.exists(),
            "no {} (cargo build --release --features ballista --examples)",
            path.display()
        );
        path
    };
    let scheduler = sibling("ballista_scheduler");
    Cluster::start(&scheduler, &sibling("ballista_executor"), executors, false)
}

/// Seconds to plan and run `query`.
async fn seconds(query: DataFrame) -> f64 {
    let start = Instant::now();
    query.collect().await.unwrap();
    start.elapsed().as_secs_f64()
}

/// The queries, in `ctx`: (what, the query, the row of DataFusion's own
/// way it is set against).
async fn ways(ctx: &SessionContext, n: usize) -> Vec<(&'static str, DataFrame, Option<usize>)> {
    let build = format!("SELECT bloom_build(id, {n}, 0.01) FROM t");
    let built = ctx.sql(&build).await.unwrap().collect().await.unwrap();
    let filter: &BinaryArray = built[0].column(0).as_any().downcast_ref().unwrap();
    let bound = bloom_contains_saved(filter.value(0), col("id")).unwrap();
    let probe = ctx.table("probe").await.unwrap();
    let kept = probe.filter(bound).unwrap();
    let sql = |text: String| async move { ctx.sql(&text).await.unwrap() };
    vec![
        ("build: bloom_build(id)", sql(build.clone()).await, Some(1)),
        (
            "build: count(DISTINCT id)",
            sql("SELECT count(DISTINCT id) FROM t".into()).await,
            None,
        ),
        (
            "build: bloom_build(url)",
            sql(format!("SELECT bloom_build(url, {n}, 0.01) FROM t")).await,
            Some(3),
        ),
        (
            "build: count(DISTINCT url)",
            sql("SELECT count(DISTINCT url) FROM t".into()).await,
            None,
        ),
        (
            "probe: bloom_contains_saved(filter, id)",
            kept.aggregate(vec![], vec![count(lit(1))]).unwrap(),
            Some(5),
        ),
        (
            "probe: id IN (SELECT id FROM t)",
            sql("SELECT count(*) FROM probe WHERE id IN (SELECT id FROM t)".into()).await,
            None,
        ),
    ]
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(2_000_000, |n| n.parse().expect("a row count"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), "t", n, |i| i as i64);
    // Every other id of twice the range: half are in `t`.
    write_table(dir.path(), "probe", n, |i| 2 * i as i64);
    let nodes = start_cluster(2);
    let config = || SessionConfig::new().with_target_partitions(cores);
    let one = SessionContext::new_with_config(config());
    register(&one);
    let cluster = ballista::remote(&nodes.url(), config()).await.unwrap();
    for ctx in [&one, &cluster] {
        for table in ["t", "probe"] {
            let path = dir.path().join(table);
            ctx.register_parquet(table, path.to_str().unwrap(), ParquetReadOptions::default())
                .await
                .unwrap();
        }
    }
    let engines = [ways(&one, n).await, ways(&cluster, n).await];
    let mut times = vec![vec![Vec::new(); engines[0].len()]; 2];
    for _ in 0..ROUNDS {
        for (e, ways) in engines.iter().enumerate() {
            for (i, (_, query, _)) in ways.iter().enumerate() {
                times[e][i].push(seconds(query.clone()).await);
            }
        }
    }
    let rates: Vec<Vec<f64>> = times
        .into_iter()
        .map(|t| t.into_iter().map(|t| n as f64 / median(t) / 1e6).collect())
        .collect();
    println!(
        "| rows | what | one process, M rows/s | ratio | cluster, M rows/s | ratio | cluster / one process |"
    );
    println!("|---|---|---|---|---|---|---|");
    let ratio = |rates: &[f64], i: usize, against: Option<usize>| {
        against.map_or(String::new(), |j| format!("{:.2}", rates[i] / rates[j]))
    };
    for (i, (name, _, against)) in engines[0].iter().enumerate() {
        println!(
            "| {n} | {name} | {:.1} | {} | {:.1} | {} | {:.2} |",
            rates[0][i],
            ratio(&rates[0], i, *against),
            rates[1][i],
            ratio(&rates[1], i, *against),
            rates[1][i] / rates[0][i],
        );
    }
}
