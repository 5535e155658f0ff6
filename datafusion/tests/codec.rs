//! Plans that call `bloom_build` and `bloom_contains` survive
//! `datafusion-proto`, logical and physical, as a distributed engine sends
//! them: a receiver that never registered the functions decodes and runs
//! them with `BloomCodec`, and gets the sender's answers bit for bit.
#![cfg(feature = "proto")]

use atomic_bloom::AtomicBloom;
use atomic_bloom_datafusion::codec::{BloomCodec, VERSION};
use atomic_bloom_datafusion::register;
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::*;
use datafusion_proto::bytes::{
    logical_plan_from_bytes, logical_plan_from_bytes_with_extension_codec,
    logical_plan_to_bytes_with_extension_codec, physical_plan_from_bytes_with_extension_codec,
    physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use std::path::Path;
use std::sync::Arc;

mod common;
use common::the_binary;

const FILES: usize = 4;
const ROWS_PER_FILE: usize = 50_000;

fn key(i: usize) -> String {
    format!("user-{i}")
}

/// `FILES` Parquet files of `ROWS_PER_FILE` keys each, in `dir`.
fn write_table(dir: &Path) {
    for f in 0..FILES {
        let keys = (f * ROWS_PER_FILE..(f + 1) * ROWS_PER_FILE).map(key);
        let column: ArrayRef = Arc::new(StringArray::from_iter_values(keys));
        let batch = RecordBatch::try_from_iter([("k", column)]).unwrap();
        let file = std::fs::File::create(dir.join(format!("part-{f}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }
}

/// A context reading the table from `dir`, with the functions registered
/// or not.
async fn context(dir: &Path, registered: bool) -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    if registered {
        register(&ctx);
    }
    ctx.register_parquet("t", dir.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    ctx
}

/// The table in a temporary folder (kept while the value lives), read by
/// a sender that registered the functions and a receiver that did not.
async fn sender_and_receiver() -> (tempfile::TempDir, SessionContext, SessionContext) {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path());
    let sender = context(dir.path(), true).await;
    let receiver = context(dir.path(), false).await;
    (dir, sender, receiver)
}

/// The physical plan of `sql` in `ctx`.
async fn physical_plan(ctx: &SessionContext, sql: &str) -> Arc<dyn ExecutionPlan> {
    ctx.sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

const BUILD: &str = "SELECT bloom_build(k, 200000, 0.01) FROM t";

/// What one process builds from the same keys.
fn single_build() -> Vec<u8> {
    let filter = AtomicBloom::new(200_000, 0.01).unwrap();
    for i in 0..FILES * ROWS_PER_FILE {
        filter.insert(key(i).as_str());
    }
    filter.to_bytes().unwrap()
}

#[tokio::test]
async fn a_logical_plan_round_trips_to_a_receiver_without_the_functions() {
    let (_dir, sender, receiver) = sender_and_receiver().await;
    let plan = sender
        .sql(BUILD)
        .await
        .unwrap()
        .into_optimized_plan()
        .unwrap();
    let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &BloomCodec::default()).unwrap();

    let codec = BloomCodec::default();
    let received =
        logical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &codec).unwrap();
    assert_eq!(format!("{received}"), format!("{plan}"));
    let rows = receiver.execute_logical_plan(received).await.unwrap();
    assert_eq!(the_binary(&rows.collect().await.unwrap()), single_build());

    // Without the codec, the receiver cannot name the aggregate.
    let err = logical_plan_from_bytes(&bytes, &receiver.task_ctx()).unwrap_err();
    assert!(err.to_string().contains("bloom_build"), "{err}");
}

#[tokio::test]
async fn a_physical_plan_round_trips_and_builds_the_same_filter() {
    let (_dir, sender, receiver) = sender_and_receiver().await;
    let plan = physical_plan(&sender, BUILD).await;
    let codec = BloomCodec::default();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan.clone(), &codec).unwrap();

    let received: Arc<dyn ExecutionPlan> =
        physical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &codec)
            .unwrap();
    let shown = |p: &Arc<dyn ExecutionPlan>| displayable(p.as_ref()).indent(true).to_string();
    assert_eq!(shown(&received), shown(&plan));
    let rows = collect(received, receiver.task_ctx()).await.unwrap();
    assert_eq!(the_binary(&rows), single_build());
}

/// The pre-filter: `bloom_contains` of a literal filter in a physical
/// plan, sent and run elsewhere, keeps the same rows.
#[tokio::test]
async fn a_prefilter_plan_round_trips_and_keeps_the_same_rows() {
    let filter = AtomicBloom::new(1_000, 0.01).unwrap();
    for i in (0..FILES * ROWS_PER_FILE).step_by(1_000) {
        filter.insert(key(i).as_str());
    }
    prefilter_round_trip(&filter.to_bytes().unwrap()).await;
}

/// The same with a filter of Guava's format, which the codec sends in it.
#[tokio::test]
async fn a_prefilter_plan_of_a_guava_filter_round_trips_and_keeps_the_same_rows() {
    let filter = atomic_bloom::GuavaBloom::new(1_000, 0.01).unwrap();
    for i in (0..FILES * ROWS_PER_FILE).step_by(1_000) {
        filter.insert(key(i).as_str());
    }
    prefilter_round_trip(&filter.to_guava_bytes().unwrap()).await;
}

/// Runs `bloom_contains` of the filter in `bytes`, which holds every
/// 1000th key, here and, through the codec, at a receiver.
async fn prefilter_round_trip(bytes: &[u8]) {
    let (_dir, sender, receiver) = sender_and_receiver().await;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let sql = format!("SELECT k FROM t WHERE bloom_contains(X'{hex}', k) ORDER BY k");

    let plan = physical_plan(&sender, &sql).await;
    let codec = BloomCodec::default();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan.clone(), &codec).unwrap();
    let received =
        physical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &codec)
            .unwrap();
    // The constant filter was bound at planning, and travels in the
    // function's definition.
    let shown = displayable(received.as_ref()).indent(true).to_string();
    assert!(shown.contains("bloom_contains(k@0)"), "{shown}");

    let keys = |batches: Vec<RecordBatch>| -> Vec<String> {
        let keys = batches.iter().flat_map(|b| {
            // Parquet strings are read as views.
            let column = cast(b.column(0), &DataType::Utf8).unwrap();
            let column = column.as_any().downcast_ref::<StringArray>().unwrap();
            column
                .iter()
                .map(|k| k.unwrap().to_string())
                .collect::<Vec<_>>()
        });
        keys.collect()
    };
    let here = keys(collect(plan, sender.task_ctx()).await.unwrap());
    let there = keys(collect(received, receiver.task_ctx()).await.unwrap());
    assert_eq!(here, there);
    // Every inserted key, and a few false positives at 1%.
    assert!(
        here.len() >= 200 && here.len() < 200 + 6_000,
        "{}",
        here.len()
    );
    for i in (0..FILES * ROWS_PER_FILE).step_by(1_000) {
        assert!(here.binary_search(&key(i)).is_ok(), "{}", key(i));
    }
}

/// A definition of another version is an error that says so; names that
/// are not this crate's go to the wrapped codec.
#[test]
fn other_definitions_and_other_functions() {
    let codec = BloomCodec::default();
    let logical: &dyn LogicalExtensionCodec = &codec;
    let physical: &dyn PhysicalExtensionCodec = &codec;
    let err = logical
        .try_decode_udaf("bloom_build", &[VERSION + 1])
        .unwrap_err()
        .to_string();
    assert!(err.contains("another version"), "{err}");
    let err = physical
        .try_decode_udf("bloom_contains", &[VERSION + 1])
        .unwrap_err()
        .to_string();
    assert!(err.contains("another version"), "{err}");
    // After the version, only a bound filter's saved bytes.
    let err = logical
        .try_decode_udaf("bloom_build", &[VERSION, 0])
        .unwrap_err()
        .to_string();
    assert!(err.contains("one byte"), "{err}");
    let err = physical
        .try_decode_udf("bloom_contains", &[VERSION, 0])
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a saved filter"), "{err}");
    assert_eq!(
        logical
            .try_decode_udaf("bloom_build", &[VERSION])
            .unwrap()
            .name(),
        "bloom_build"
    );
    assert_eq!(
        physical
            .try_decode_udf("bloom_contains", &[])
            .unwrap()
            .name(),
        "bloom_contains"
    );
    assert!(logical.try_decode_udaf("sum", &[VERSION]).is_err());

    // What it writes: one byte for ours, nothing for others.
    let mut buf = Vec::new();
    physical
        .try_encode_udaf(&atomic_bloom_datafusion::bloom_build_udaf(), &mut buf)
        .unwrap();
    assert_eq!(buf, [VERSION]);
    let mut buf = Vec::new();
    let other = datafusion::functions_aggregate::count::count_udaf();
    logical.try_encode_udaf(&other, &mut buf).unwrap();
    assert!(buf.is_empty());
}
