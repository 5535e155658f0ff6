//! The functions on a real Ballista cluster, started and stopped here on
//! 127.0.0.1: Ballista's standalone mode (scheduler and executor in this
//! process), then a scheduler and two executors as processes of their own
//! (`examples/ballista_scheduler.rs`, `examples/ballista_executor.rs`).
//! `bloom_build` over a Parquet table of 2M rows in 8 files equals the
//! single-process build bit for bit; a pre-filtered join returns exactly
//! the join; a filter bound as a constant reaches the executors through
//! the codec; an executor without the functions fails the query, naming
//! them, rather than hang.
#![cfg(feature = "ballista")]

use atomic_bloom::AtomicBloom;
use atomic_bloom_datafusion::{ballista, bloom_contains_saved};
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch};
use datafusion::common::JoinType;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::cluster::Cluster;
use common::{count, run, the_binary};

const USERS: i64 = 2_000_000;
const FILES: i64 = 8;
/// Events: every 10th id up to twice the users', so half are users'.
const EVENTS: i64 = 400_000;

/// `users/part-*.parquet` (ids 0 to `USERS`) and `events/part-*.parquet`
/// (ids `10 i`), `FILES` files each, under `dir`.
fn write_tables(dir: &Path) {
    let write = |table: &str, ids: &mut dyn Iterator<Item = i64>, per_file: i64| {
        std::fs::create_dir_all(dir.join(table)).unwrap();
        for f in 0..FILES {
            let column: ArrayRef = Arc::new(Int64Array::from_iter_values(
                ids.take(per_file as usize).collect::<Vec<_>>(),
            ));
            let batch = RecordBatch::try_from_iter([("id", column)]).unwrap();
            let file = std::fs::File::create(dir.join(table).join(format!("part-{f}.parquet")));
            let mut writer = ArrowWriter::try_new(file.unwrap(), batch.schema(), None).unwrap();
            writer.write(&batch).unwrap();
            writer.close().unwrap();
        }
    };
    write("users", &mut (0..USERS), USERS / FILES);
    write("events", &mut (0..EVENTS).map(|i| i * 10), EVENTS / FILES);
}

async fn register_tables(ctx: &SessionContext, dir: &Path) {
    for table in ["users", "events"] {
        let path = dir.join(table);
        ctx.register_parquet(table, path.to_str().unwrap(), ParquetReadOptions::default())
            .await
            .unwrap();
    }
}

/// What one process builds from the users' ids.
fn single_build() -> Vec<u8> {
    let filter = AtomicBloom::new(USERS as usize, 0.01).unwrap();
    for id in 0..USERS {
        filter.insert(&(id as u64));
    }
    filter.to_bytes().unwrap()
}

const BUILD: &str = "SELECT bloom_build(id, 2000000, 0.01) FROM users";
const JOIN: &str = "SELECT count(*) FROM events e JOIN users u ON e.id = u.id";

/// Every check of the cluster `ctx` is a client of; its pre-filter is
/// built at `rate` (its size: 2.5 MB at 1%, 0.8 MB at 20%).
async fn the_cluster_answers_as_one_process(ctx: &SessionContext, dir: &Path, rate: f64) {
    register_tables(ctx, dir).await;
    let filter = the_binary(&run(ctx, BUILD).await);
    assert_eq!(filter, single_build(), "bloom_build");
    let join = count(ctx, JOIN).await;
    assert_eq!(join, EVENTS / 2);
    // The pre-filter: a filter of the users bound as a constant, which
    // travels in every task's plan, through the codec, to the executors.
    let prefilter = format!("SELECT bloom_build(id, 2000000, {rate}) FROM users");
    let users_filter = the_binary(&run(ctx, &prefilter).await);
    let events = ctx.table("events").await.unwrap();
    let kept = events
        .filter(bloom_contains_saved(&users_filter, col("id")).unwrap())
        .unwrap();
    let users = ctx
        .table("users")
        .await
        .unwrap()
        .select(vec![col("id").alias("user_id")])
        .unwrap();
    let prefiltered = kept
        .clone()
        .join(users, JoinType::Inner, &["id"], &["user_id"], None)
        .unwrap();
    assert_eq!(prefiltered.count().await.unwrap() as i64, join, "the join");
    // Every user's event, and about `rate` of the others.
    let kept = kept.count().await.unwrap() as i64;
    let others = (EVENTS - join) as f64;
    assert!(
        kept >= join && ((kept - join) as f64) < others * rate * 1.5,
        "kept {kept}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_cluster_builds_the_same_filter_and_keeps_the_join() {
    let dir = tempfile::tempdir().unwrap();
    write_tables(dir.path());
    let ctx = ballista::standalone(SessionConfig::new().with_target_partitions(4))
        .await
        .unwrap();
    // Standalone mode keeps Ballista's 16 MiB message cap (its scheduler's
    // configuration is Ballista's): a smaller filter.
    the_cluster_answers_as_one_process(&ctx, dir.path(), 0.2).await;
}

/// The example binaries, built (or brought up to date) once per test
/// process, with the flags the tests themselves were built with.
fn examples() -> (PathBuf, PathBuf) {
    static BUILT: std::sync::OnceLock<(PathBuf, PathBuf)> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
            let example = |name| {
                common::built(
                    &manifest,
                    &["--features", "ballista", "--example", name],
                    name,
                )
            };
            (example("ballista_scheduler"), example("ballista_executor"))
        })
        .clone()
}

/// A scheduler and executors (`--plain` ones if `plain`), each a process.
fn start_cluster(executors: usize, plain: bool) -> Cluster {
    let (scheduler, executor) = examples();
    Cluster::start(&scheduler, &executor, executors, plain)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduler_and_two_executor_processes_build_the_same_filter() {
    let dir = tempfile::tempdir().unwrap();
    write_tables(dir.path());
    let cluster = start_cluster(2, false);
    let config = SessionConfig::new().with_target_partitions(4);
    let ctx = ballista::remote(&cluster.url(), config).await.unwrap();
    // `scheduler_config` and `executor_config` raise the cap: the filter of
    // a 1% rate, 2.5 MB, too large for standalone mode's.
    the_cluster_answers_as_one_process(&ctx, dir.path(), 0.01).await;
}

/// Ballista reports the executor's refusal without its cause; the client
/// adds which of the crate's functions the plan calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_executor_without_the_functions_fails_the_query_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    write_tables(dir.path());
    let cluster = start_cluster(1, true);
    let ctx = ballista::remote(&cluster.url(), SessionConfig::new())
        .await
        .unwrap();
    register_tables(&ctx, dir.path()).await;
    // The executor runs what it has: the query without the functions.
    assert_eq!(count(&ctx, JOIN).await, EVENTS / 2);
    let failure = |query: DataFrame| async {
        let error = tokio::time::timeout(Duration::from_secs(120), query.collect())
            .await
            .expect("the query hung")
            .expect_err("an executor without the functions ran them");
        error.to_string()
    };
    let error = failure(ctx.sql(BUILD).await.unwrap()).await;
    assert!(
        error.contains("rejected by executor")
            && error.contains("a plan that calls bloom_build:")
            && error.contains("executor_config"),
        "{error}"
    );
    let filter = AtomicBloom::new(100, 0.01).unwrap().to_bytes().unwrap();
    let kept = ctx.table("events").await.unwrap();
    let kept = kept.filter(bloom_contains_saved(&filter, col("id")).unwrap());
    let error = failure(kept.unwrap()).await;
    assert!(
        error.contains("a plan that calls bloom_contains:"),
        "{error}"
    );
}
