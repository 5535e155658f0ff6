//! `bloom_build` and `bloom_contains` on a real `SessionContext`: a
//! partitioned build equals the single-process build bit for bit, from
//! memory and from Parquet files; a pre-filtered join returns exactly the
//! join's rows and drops about the target rate of the rest; a constant
//! filter is bound and a subquery's is handed over in a struct, keeping
//! the same rows under a short column name; keys hash as
//! the library's encodings (a golden file); the bytes are a file the CLI
//! reads; `bloom_contains` answers for a filter of any kind; bad arguments
//! are plan or execution errors.

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, Bytes,
};
use atomic_bloom_datafusion::{
    bloom_build_udaf, bloom_contains, bloom_contains_saved, bloom_contains_udf, register,
};
use common::{binary, cli, count, run};
use datafusion::arrow::array::{
    ArrayRef, BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::datasource::MemTable;
use datafusion::logical_expr::LogicalPlan;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

mod common;

const ROWS: usize = 2_000_000;
const PARTITIONS: usize = 8;

fn url(i: usize) -> String {
    format!("https://example.com/page/{i}")
}

/// `ROWS` rows of (url, id) in `PARTITIONS` partitions of 4 batches each.
fn partitions() -> (Arc<Schema>, Vec<Vec<RecordBatch>>) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("id", DataType::Int64, false),
    ]));
    let per_batch = ROWS / PARTITIONS / 4;
    let batches = (0..PARTITIONS)
        .map(|p| {
            (0..4)
                .map(|b| {
                    let start = (p * 4 + b) * per_batch;
                    let rows = start..start + per_batch;
                    let urls: ArrayRef =
                        Arc::new(StringArray::from_iter_values(rows.clone().map(url)));
                    let ids: ArrayRef =
                        Arc::new(Int64Array::from_iter_values(rows.map(|i| i as i64)));
                    RecordBatch::try_new(schema.clone(), vec![urls, ids]).unwrap()
                })
                .collect()
        })
        .collect();
    (schema, batches)
}

fn context() -> SessionContext {
    let ctx =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(PARTITIONS));
    register(&ctx);
    ctx
}

/// What one process builds from the same keys with the same parameters.
fn single_build(keys: impl Iterator<Item = u64>) -> AtomicBloom {
    let f = AtomicBloom::builder().capacity(ROWS, 0.01).build().unwrap();
    f.insert_hash_batch(keys);
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_build_equals_the_single_process_build() {
    let (schema, batches) = partitions();
    let ctx = context();
    ctx.register_table("t", Arc::new(MemTable::try_new(schema, batches).unwrap()))
        .unwrap();
    let plain = AtomicBloom::builder().capacity(ROWS, 0.01).build().unwrap();
    let by_url = binary(
        &ctx,
        &format!("SELECT bloom_build(url, {ROWS}, 0.01) FROM t"),
    )
    .await;
    let expected = single_build((0..ROWS).map(|i| plain.hash(url(i).as_str())));
    assert_eq!(AtomicBloom::from_bytes(&by_url).unwrap(), expected);
    let by_id = binary(
        &ctx,
        &format!("SELECT bloom_build(id, {ROWS}, 0.01) FROM t"),
    )
    .await;
    let expected = single_build((0..ROWS).map(|i| plain.hash(&(i as u64))));
    assert_eq!(AtomicBloom::from_bytes(&by_id).unwrap(), expected);
    // The DataFrame API gives the same filter.
    let df = ctx
        .table("t")
        .await
        .unwrap()
        .aggregate(
            vec![],
            vec![atomic_bloom_datafusion::bloom_build(
                col("id"),
                ROWS as u64,
                0.01,
            )],
        )
        .unwrap();
    let batches = df.collect().await.unwrap();
    let column = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<BinaryArray>()
        .unwrap();
    assert_eq!(column.value(0), by_id.as_slice());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_from_parquet_files_equals_the_single_process_build() {
    let (schema, batches) = partitions();
    let dir = tempfile::tempdir().unwrap();
    for (p, partition) in batches.iter().enumerate() {
        let file = std::fs::File::create(dir.path().join(format!("part-{p}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
        for batch in partition {
            writer.write(batch).unwrap();
        }
        writer.close().unwrap();
    }
    let ctx = context();
    ctx.register_parquet(
        "t",
        dir.path().to_str().unwrap(),
        ParquetReadOptions::default(),
    )
    .await
    .unwrap();
    let bytes = binary(
        &ctx,
        &format!("SELECT bloom_build(url, {ROWS}, 0.01) FROM t"),
    )
    .await;
    let plain = AtomicBloom::builder().capacity(ROWS, 0.01).build().unwrap();
    let expected = single_build((0..ROWS).map(|i| plain.hash(url(i).as_str())));
    assert_eq!(AtomicBloom::from_bytes(&bytes).unwrap(), expected);
}

/// A context with `users` (ids 0, 2, 4, ... below 200000) and `events`
/// (user ids 0 .. 400000: a quarter join), and the filter of the users as
/// a scalar subquery.
async fn users_and_events() -> (SessionContext, &'static str) {
    let ctx = context();
    run(
        &ctx,
        "CREATE TABLE users AS SELECT value * 2 AS id FROM generate_series(0, 99999)",
    )
    .await;
    run(
        &ctx,
        "CREATE TABLE events AS SELECT value AS user_id FROM generate_series(0, 399999)",
    )
    .await;
    (ctx, "(SELECT bloom_build(id, 100000, 0.01) FROM users)")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prefiltered_join_returns_the_join_and_drops_most_of_the_rest() {
    let (ctx, filter) = users_and_events().await;
    let joined = "SELECT e.user_id FROM events e JOIN users u ON e.user_id = u.id";
    let prefiltered = format!(
        "SELECT e.user_id FROM events e JOIN users u ON e.user_id = u.id \
         WHERE bloom_contains({filter}, e.user_id)"
    );
    let sorted = |sql: String| {
        let ctx = ctx.clone();
        async move {
            let mut ids: Vec<i64> = ctx
                .sql(&sql)
                .await
                .unwrap()
                .collect()
                .await
                .unwrap()
                .iter()
                .flat_map(|b| {
                    b.column(0)
                        .as_any()
                        .downcast_ref::<Int64Array>()
                        .unwrap()
                        .values()
                        .to_vec()
                })
                .collect();
            ids.sort_unstable();
            ids
        }
    };
    let exact = sorted(joined.to_string()).await;
    assert_eq!(exact.len(), 100_000);
    assert_eq!(sorted(prefiltered).await, exact);
    // Alone, the pre-filter keeps every match and about 1% of the 300000
    // others (binomial: mean 3000, sd 54; 1.5x the target is 28 sd away).
    let kept = count(
        &ctx,
        &format!("SELECT count(*) FROM events WHERE bloom_contains({filter}, user_id)"),
    )
    .await;
    let false_positives = kept - 100_000;
    assert!((0..4_500).contains(&false_positives), "{false_positives}");
    assert!(false_positives > 1_500, "{false_positives}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_reaches_each_batch_without_a_copy_of_its_bytes() {
    let (ctx, filter) = users_and_events().await;
    let probe = format!("SELECT count(*) FROM events WHERE bloom_contains({filter}, user_id)");
    let kept = count(&ctx, &probe).await;

    // `register`'s rewrite hands the subquery's filter over in a struct
    // (whose copy per batch shares the bytes); a session with the two
    // functions alone, without it, keeps the same rows.
    let alone = SessionContext::new();
    alone.register_udaf(bloom_build_udaf());
    alone.register_udf(bloom_contains_udf());
    for table in ["users", "events"] {
        let provider = ctx.table_provider(table).await.unwrap();
        alone.register_table(table, provider).unwrap();
    }
    let state = ctx.state();
    let analyzed_sql = |ctx: SessionContext, sql: String| async move {
        let plan = ctx.sql(&sql).await.unwrap().into_unoptimized_plan();
        let state = ctx.state();
        let plan = (state.analyzer())
            .execute_and_check(plan, state.config_options(), |_, _| {})
            .unwrap();
        plan.display_indent().to_string()
    };
    let shared = analyzed_sql(ctx.clone(), probe.clone()).await;
    assert!(shared.contains("struct("), "{shared}");
    let copied = analyzed_sql(alone.clone(), probe.clone()).await;
    assert!(!copied.contains("struct("), "{copied}");
    assert_eq!(count(&alone, &probe).await, kept);

    // The same filter built first and passed as a constant is bound to
    // the function, which then takes the key alone, and keeps the same
    // rows: a constant in the plan (as SQL text gives it) at planning,
    // and one given to `bloom_contains` or `bloom_contains_saved` at once.
    let bytes = binary(&ctx, &format!("SELECT * FROM {filter}")).await;
    let events = ctx.table("events").await.unwrap();
    let in_plan = bloom_contains_udf().call(vec![lit(bytes.clone()), col("user_id")]);
    let bound = events.clone().filter(in_plan.clone()).unwrap();
    // (A plan that still holds the filter prints it byte by byte: the
    // checks say only whether it is bound.)
    let is_bound = |plan: &LogicalPlan| plan.to_string().contains("bloom_contains(events.user_id)");
    // `register`'s rewrite binds it as analysis begins, before type
    // coercion (which would print the constant into field names); the
    // optimizer binds it too, for a session with the function alone.
    let analyzed = (state.analyzer())
        .execute_and_check(
            bound.logical_plan().clone(),
            state.config_options(),
            |_, _| {},
        )
        .unwrap();
    assert!(is_bound(&analyzed), "not bound by the analyzer");
    let events_alone = alone.table("events").await.unwrap();
    let plan = events_alone.filter(in_plan.clone()).unwrap();
    assert!(
        is_bound(&plan.into_optimized_plan().unwrap()),
        "not bound by the optimizer"
    );
    assert_eq!(bound.count().await.unwrap() as i64, kept);
    let at_once = [
        bloom_contains(lit(bytes.clone()), col("user_id")),
        bloom_contains_saved(&bytes, col("user_id")).unwrap(),
    ];
    for expr in &at_once {
        let one_argument = matches!(expr, Expr::ScalarFunction(f) if f.args.len() == 1);
        assert!(one_argument, "not bound at once");
        let bound = events.clone().filter(expr.clone()).unwrap();
        assert_eq!(bound.count().await.unwrap() as i64, kept);
    }
    // Its column is named by the filter's size and checksum, bound or not,
    // rather than by its bytes spelled out.
    let name = |expr: &Expr| {
        let frame = events.clone().select(vec![expr.clone()]).unwrap();
        frame.schema().field(0).name().clone()
    };
    let sum = u64::from_le_bytes(*bytes.last_chunk::<8>().unwrap());
    let expected = format!(
        "bloom_contains(filter({} bytes, checksum {sum:016x}),events.user_id)",
        bytes.len()
    );
    assert_eq!(name(&in_plan), expected);
    for expr in &at_once {
        assert_eq!(name(expr), expected);
    }
    let err = bloom_contains_saved(b"not a filter", col("user_id")).unwrap_err();
    assert!(err.to_string().contains("not a saved filter"), "{err}");
}

/// The keys of `tests/golden/v1-datafusion-keys.abf`: strings, binaries,
/// and integers of several widths and signs, as a table.
fn golden_table() -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("s", DataType::Utf8, true),
        Field::new("b", DataType::Binary, true),
        Field::new("i", DataType::Int32, true),
        Field::new("u", DataType::UInt64, true),
    ]));
    let s: ArrayRef = Arc::new(StringArray::from_iter(
        (0..100).map(|i| (i % 10 != 3).then(|| format!("key-{i}"))),
    ));
    let b: ArrayRef = Arc::new(BinaryArray::from_iter(
        (0..100u8).map(|i| Some(vec![i, 0xff, i])),
    ));
    let i: ArrayRef = Arc::new(Int32Array::from_iter((0..100).map(|i| Some(-i - 1))));
    let u: ArrayRef = Arc::new(UInt64Array::from_iter(
        (0..100u64).map(|i| Some(u64::MAX - i)),
    ));
    RecordBatch::try_new(schema, vec![s, b, i, u]).unwrap()
}

/// The golden file's filter, built by the library from the same keys as
/// Rust callers insert them.
fn golden_rust_build() -> AtomicBloom {
    let f = AtomicBloom::builder()
        .capacity(1_000, 0.01)
        .build()
        .unwrap();
    for i in 0..100i64 {
        if i % 10 != 3 {
            f.insert(format!("key-{i}").as_str());
        }
        f.insert(&[i as u8, 0xff, i as u8][..]);
        f.insert(&(-i - 1)); // an i64, the same key as the Int32 value
        f.insert(&(u64::MAX - i as u64));
    }
    f
}

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/v1-datafusion-keys.abf")
}

async fn golden_build() -> Vec<u8> {
    let ctx = context();
    ctx.register_batch("k", golden_table()).unwrap();
    // One filter of every column's keys: the union of four builds.
    let union =
        AtomicBloom::from_bytes(&binary(&ctx, "SELECT bloom_build(s, 1000, 0.01) FROM k").await)
            .unwrap();
    for column in ["b", "i", "u"] {
        let part = binary(
            &ctx,
            &format!("SELECT bloom_build({column}, 1000, 0.01) FROM k"),
        )
        .await;
        union
            .union(&AtomicBloom::from_bytes(&part).unwrap())
            .unwrap();
    }
    union.to_bytes().unwrap()
}

#[tokio::test]
async fn keys_hash_as_the_library_encodes_them() {
    let built = golden_build().await;
    assert_eq!(
        AtomicBloom::from_bytes(&built).unwrap(),
        golden_rust_build()
    );
    assert_eq!(
        built,
        std::fs::read(golden_path()).unwrap(),
        "the DataFusion key encoding changed"
    );
    // Membership agrees, nulls answer null.
    let ctx = context();
    ctx.register_batch("k", golden_table()).unwrap();
    let filter = format!(
        "X'{}'",
        built.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let hits = count(
        &ctx,
        &format!(
            "SELECT count(*) FROM k WHERE bloom_contains({filter}, s) AND bloom_contains({filter}, b) \
             AND bloom_contains({filter}, i) AND bloom_contains({filter}, u)"
        ),
    )
    .await;
    assert_eq!(hits, 90); // the rows whose s is not null
    let nulls = count(
        &ctx,
        &format!("SELECT count(*) FROM k WHERE bloom_contains({filter}, s) IS NULL"),
    )
    .await;
    assert_eq!(nulls, 10);
    // No filter (a subquery of no rows) knows nothing: every answer null.
    let none = "(SELECT bloom_build(s, 100, 0.01) AS f FROM k GROUP BY s HAVING false)";
    let unknown = count(
        &ctx,
        &format!("SELECT count(*) FROM k WHERE bloom_contains({none}, s) IS NULL"),
    )
    .await;
    assert_eq!(unknown, 100);
}

#[tokio::test]
#[ignore = "rewrites the golden file: only for a new key encoding"]
async fn write_golden_file() {
    std::fs::write(golden_path(), golden_build().await).unwrap();
}

#[tokio::test]
async fn the_aggregate_bytes_saved_are_a_file_the_cli_reads() {
    let ctx = context();
    run(
        &ctx,
        "CREATE TABLE t (name VARCHAR) AS VALUES ('alice'), ('bob'), (NULL)",
    )
    .await;
    let bytes = binary(&ctx, "SELECT bloom_build(name, 100, 0.001) FROM t").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("names.abf");
    std::fs::write(&file, bytes).unwrap();
    let keys = dir.path().join("keys.txt");
    std::fs::write(&keys, "alice\nbob\n").unwrap();
    let query = std::process::Command::new(cli())
        .args(["query", "-q"])
        .arg(&file)
        .arg(&keys)
        .status()
        .unwrap();
    assert!(query.success(), "the CLI did not find every key");
    std::fs::write(&keys, "carol\n").unwrap();
    let absent = std::process::Command::new(cli())
        .args(["query", "-q"])
        .arg(&file)
        .arg(&keys)
        .status()
        .unwrap();
    assert_eq!(absent.code(), Some(1));
    // The same bytes as the library's own build of those keys.
    let f = AtomicBloom::builder().capacity(100, 0.001).build().unwrap();
    f.insert_batch([Bytes("alice"), Bytes("bob")]);
    assert_eq!(std::fs::read(&file).unwrap(), f.to_bytes().unwrap());
}

#[tokio::test]
async fn bad_arguments_are_errors_that_name_them() {
    let ctx = context();
    run(
        &ctx,
        "CREATE TABLE t (x DOUBLE, s VARCHAR) AS VALUES (1.5, 'a')",
    )
    .await;
    let error = |sql: &'static str| {
        let ctx = ctx.clone();
        async move {
            let result = match ctx.sql(sql).await {
                Ok(df) => df.collect().await.map(drop),
                Err(e) => Err(e),
            };
            let message = result.unwrap_err().to_string();
            // The error names what was wrong, not a pass of the planner.
            assert!(!message.contains("rewrite"), "{message}");
            message
        }
    };
    assert!(
        error("SELECT bloom_build(x) FROM t")
            .await
            .contains("strings, binaries or integers")
    );
    assert!(
        error("SELECT bloom_build(s, 0, 0.01) FROM t")
            .await
            .contains("bloom_build")
    );
    assert!(
        error("SELECT bloom_build(s, 10, 2.0) FROM t")
            .await
            .contains("false-positive rate")
    );
    assert!(
        error("SELECT bloom_build(s, 10, s) FROM t")
            .await
            .contains("constant")
    );
    assert!(
        error("SELECT bloom_contains('text', s) FROM t")
            .await
            .contains("saved filter")
    );
    assert!(
        error("SELECT bloom_contains(X'00', s) FROM t")
            .await
            .contains("not a saved filter")
    );
}

/// `bloom_contains` reads a filter of any kind from its bytes, bound as a
/// constant or not: a counting, growable (grown past its first sub-filter)
/// or windowed filter finds every key inserted, and its answer for each
/// row is the library's own for that key.
#[tokio::test]
async fn bloom_contains_answers_for_every_kind() {
    let ctx = context();
    run(
        &ctx,
        "CREATE TABLE t (s VARCHAR, n BIGINT) AS \
         SELECT concat('key-', CAST(value AS VARCHAR)), value FROM range(0, 20000)",
    )
    .await;
    let counting = AtomicCountingBloom::new(20_000, 0.01).unwrap();
    let growable = AtomicGrowableBloom::new(1_000, 0.01).unwrap();
    let windowed = AtomicWindowedBloom::new(20_000, 0.01).unwrap();
    for i in (0..20_000u64).step_by(2) {
        let key = format!("key-{i}");
        counting.insert(&key);
        growable.insert(&key).unwrap();
        windowed.insert(&key);
    }
    assert!(growable.sub_filters() > 1);
    let answers = |contains: &dyn Fn(&str) -> bool| -> i64 {
        (0..20_000u64)
            .filter(|i| contains(&format!("key-{i}")))
            .count() as i64
    };
    for (kind, bytes, expected) in [
        (
            "counting",
            counting.to_bytes().unwrap(),
            answers(&|k| counting.contains(k)),
        ),
        (
            "growable",
            growable.to_bytes().unwrap(),
            answers(&|k| growable.contains(k)),
        ),
        (
            "windowed",
            windowed.to_bytes().unwrap(),
            answers(&|k| windowed.contains(k)),
        ),
    ] {
        assert!(expected >= 10_000, "{kind}: every inserted key is found");
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let bound = format!("SELECT count(*) FROM t WHERE bloom_contains(X'{hex}', s)");
        assert_eq!(count(&ctx, &bound).await, expected, "{kind}, bound");
        let table = format!("CREATE TABLE f_{kind} (f BYTEA) AS VALUES (X'{hex}')");
        run(&ctx, &table).await;
        let unbound =
            format!("SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM f_{kind}), s)");
        assert_eq!(
            count(&ctx, &unbound).await,
            expected,
            "{kind}, from a subquery"
        );
        let missed =
            format!("SELECT count(*) FROM t WHERE n % 2 = 0 AND NOT bloom_contains(X'{hex}', s)");
        assert_eq!(
            count(&ctx, &missed).await,
            0,
            "{kind}: a key inserted is missed"
        );
    }
}

/// A filter Spark wrote (`df.stat.bloomFilter`'s bytes: the library's
/// `tests/golden/spark-*`, with Spark's answers) answers in `bloom_contains`
/// exactly as Spark's `mightContain`: every string Spark put, and Spark's
/// false positives among the absent ones, and longs as Spark's `putLong`.
#[tokio::test]
async fn a_filter_spark_wrote_answers_as_spark() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let bytes = std::fs::read(golden.join("spark-v2-1000-p03.bin")).unwrap();
    let answers = std::fs::read_to_string(golden.join("spark-v2-1000-p03.answers")).unwrap();
    let positives = |kind: &str| {
        let line = answers.lines().find(|l| l.starts_with(kind)).unwrap();
        line.split(' ').count() as i64 - 1
    };
    let names: Vec<String> = (0..1000)
        .map(|i| format!("spark-{i}"))
        .chain((0..100_000).map(|i| format!("absent-{i}")))
        .collect();
    let longs: Vec<i64> = (0..1000)
        .map(|i| i * 7919)
        .chain((0..100_000).map(|i| 1_000_000_000_000 + i))
        .collect();
    let ctx = context();
    let batch = RecordBatch::try_from_iter([
        ("name", Arc::new(StringArray::from(names)) as _),
        ("n", Arc::new(Int64Array::from(longs)) as _),
    ])
    .unwrap();
    ctx.register_batch("rows", batch).unwrap();
    let rows = ctx.table("rows").await.unwrap();
    for (column, kind) in [("name", "strings"), ("n", "longs")] {
        let kept = rows
            .clone()
            .filter(bloom_contains_saved(&bytes, col(column)).unwrap())
            .unwrap()
            .count()
            .await
            .unwrap() as i64;
        assert_eq!(kept, 1000 + positives(kind), "{column}");
    }
}

/// A filter Guava wrote (`writeTo`: the library's `tests/golden/guava-*`,
/// with Guava's answers) answers in `bloom_contains` exactly as Guava's
/// `mightContain`: strings as `stringFunnel(UTF_8)`, integers as
/// `longFunnel`.
#[tokio::test]
async fn a_filter_guava_wrote_answers_as_guava() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let ctx = context();
    for funnel in ["strings", "longs"] {
        let bytes = std::fs::read(golden.join(format!("guava-{funnel}-1000-p3.bin"))).unwrap();
        let answers =
            std::fs::read_to_string(golden.join(format!("guava-{funnel}-1000-p3.answers")))
                .unwrap();
        let positives = answers.trim_end().split(' ').count() as i64 - 1;
        let column: ArrayRef = if funnel == "strings" {
            let names = (0..1000)
                .map(|i| format!("guava-{i}"))
                .chain((0..100_000).map(|i| format!("absent-{i}")));
            Arc::new(StringArray::from_iter_values(names))
        } else {
            let longs = (0..1000)
                .map(|i| i * 7919)
                .chain((0..100_000).map(|i| 1_000_000_000_000 + i));
            Arc::new(Int64Array::from_iter_values(longs))
        };
        let rows = ctx
            .read_batch(RecordBatch::try_from_iter([("k", column)]).unwrap())
            .unwrap();
        let kept = rows
            .filter(bloom_contains_saved(&bytes, col("k")).unwrap())
            .unwrap()
            .count()
            .await
            .unwrap() as i64;
        assert_eq!(kept, 1000 + positives, "{funnel}");
    }
}

/// Two filters of the JVM's formats (which have no checksum) of one size,
/// ending with the same word, are two filters: each constant is bound to
/// its own and answers for its own keys.
#[tokio::test]
async fn filters_without_a_checksum_are_told_apart_by_their_bytes() {
    let filter = |key: &str| {
        let f = AtomicBloom::spark(1000, 0.01).unwrap();
        f.insert(key);
        f.to_spark_bytes().unwrap()
    };
    let (a, b) = (filter("a"), filter("b"));
    assert_eq!(a.len(), b.len());
    assert_eq!(
        a.last_chunk::<8>(),
        b.last_chunk::<8>(),
        "pick keys off the last word"
    );
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    // Two calls on one column: equal calls would be computed once.
    let sql = format!(
        "SELECT bloom_contains(X'{}', k) AS in_a, bloom_contains(X'{}', k) AS in_b \
         FROM (VALUES ('a')) AS t(k)",
        hex(&a),
        hex(&b)
    );
    let batches = run(&context(), &sql).await;
    let answer = |column: usize| {
        let values = batches[0].column(column).as_any();
        let values = values.downcast_ref::<datafusion::arrow::array::BooleanArray>();
        values.unwrap().value(0)
    };
    assert!(answer(0), "a's filter misses a");
    assert!(!answer(1), "b's filter answered as a's");
}

/// The function keeps the filter it read last, across batches and
/// queries: a subquery's (in `register`'s struct) by where its bytes lie,
/// bytes copied into each batch (a session with the function alone) by
/// their checksum. Two filters of one size, asked in turn, each answer for
/// themselves.
#[tokio::test]
async fn a_filter_kept_between_queries_answers_only_for_its_own_bytes() {
    let filter = |key: &str| {
        let f = AtomicBloom::spark(1000, 0.01).unwrap();
        f.insert(key);
        let bytes = f.to_spark_bytes().unwrap();
        RecordBatch::try_from_iter([(
            "f",
            Arc::new(BinaryArray::from_vec(vec![bytes.as_slice()])) as ArrayRef,
        )])
        .unwrap()
    };
    let alone = SessionContext::new();
    alone.register_udf(bloom_contains_udf());
    for ctx in [context(), alone] {
        ctx.register_batch("filter_a", filter("a")).unwrap();
        ctx.register_batch("filter_b", filter("b")).unwrap();
        for table in ["filter_a", "filter_b", "filter_a", "filter_b"] {
            let sql = format!(
                "SELECT k FROM (VALUES ('a'), ('b')) AS t(k) \
                 WHERE bloom_contains((SELECT f FROM {table}), k)"
            );
            let batches = run(&ctx, &sql).await;
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            assert_eq!(rows, 1, "{table}");
            let kept = array_value_to_string(batches[0].column(0), 0).unwrap();
            assert_eq!(format!("filter_{kept}"), table);
        }
    }
}
