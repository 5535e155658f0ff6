//! The split-block layout filled with Parquet's hashes is Parquet's own
//! filter: the `parquet` crate's check agrees with ours on every key and on
//! absent ones, for a filter built by several threads at once; DataFusion
//! prunes by filters we built; the filters a Parquet writer wrote load as
//! ours.

use atomic_bloom_datafusion::parquet::{
    from_sbbf, parquet_hash, read_parquet_filters, split_block_filter, to_sbbf,
};
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use std::path::Path;
use std::sync::Arc;

mod common;
use common::{cli, run};

/// Writes `groups` row groups of `rows` string keys `key(group, i)` to
/// `path` as one column "key", with `props` (plus the row group size).
fn write_keys(
    path: &Path,
    groups: usize,
    rows: usize,
    key: impl Fn(usize, usize) -> String,
    props: datafusion::parquet::file::properties::WriterPropertiesBuilder,
) {
    let keys: Vec<String> = (0..groups)
        .flat_map(|g| (0..rows).map(move |i| (g, i)))
        .map(|(g, i)| key(g, i))
        .collect();
    let column: ArrayRef = Arc::new(StringArray::from_iter_values(keys));
    let batch = RecordBatch::try_from_iter([("key", column)]).unwrap();
    let props = props.set_max_row_group_row_count(Some(rows)).build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn parquets_check_agrees_with_ours_on_every_key_and_absent_ones() {
    let filter = split_block_filter(100_000, 0.01).unwrap();
    // Built lock-free by four threads at once.
    std::thread::scope(|s| {
        for t in 0..4 {
            let filter = &filter;
            s.spawn(move || {
                for i in (t..100_000).step_by(4) {
                    filter.insert_hash(parquet_hash(format!("key-{i}").as_bytes()));
                }
            });
        }
    });
    let sbbf = to_sbbf(&filter).unwrap();
    for i in 0..100_000 {
        assert!(sbbf.check(&format!("key-{i}").as_str()), "key-{i}");
    }
    let mut false_positives = 0;
    for i in 0..100_000 {
        let absent = format!("absent-{i}");
        let ours = filter.contains_hash(parquet_hash(absent.as_bytes()));
        assert_eq!(sbbf.check(&absent.as_str()), ours, "{absent}");
        false_positives += usize::from(ours);
    }
    // About 1% (binomial: mean 1000, sd 31).
    assert!((700..1_400).contains(&false_positives), "{false_positives}");
    // Integers: their plain encoding is little-endian.
    let ints = split_block_filter(1_000, 0.01).unwrap();
    ints.insert_hash(parquet_hash(&42i64.to_le_bytes()));
    assert!(to_sbbf(&ints).unwrap().check(&42i64));
}

#[test]
fn another_layout_is_not_a_parquet_filter() {
    let blocked = atomic_bloom::AtomicBloom::new(100, 0.01).unwrap();
    let err = to_sbbf(&blocked).unwrap_err().to_string();
    assert!(err.contains("split-block layout"), "{err}");
}

/// A Parquet file whose row groups carry the filters we built (spliced in
/// as each column chunk's Bloom filter, with no statistics to prune by):
/// DataFusion skips the row groups whose filter says a value is absent.
#[tokio::test]
async fn datafusion_prunes_row_groups_by_filters_we_built() {
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::parquet::column::writer::ColumnCloseResult;
    use datafusion::parquet::file::properties::EnabledStatistics;
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
    use datafusion::parquet::file::writer::SerializedFileWriter;
    use datafusion::prelude::*;

    const GROUPS: usize = 4;
    const ROWS: usize = 10_000;
    let key = |group: usize, i: usize| format!("rg{group}-k{i}");
    let dir = tempfile::tempdir().unwrap();

    // The data, without filters or statistics, a row group per 10000 keys.
    let plain = dir.path().join("plain.parquet");
    let props = WriterProperties::builder().set_statistics_enabled(EnabledStatistics::None);
    write_keys(&plain, GROUPS, ROWS, key, props);

    // The same column chunks, each with the filter of its keys, built by
    // threads at once.
    let source = std::fs::File::open(&plain).unwrap();
    let reader = SerializedFileReader::new(source.try_clone().unwrap()).unwrap();
    let metadata = reader.metadata();
    assert_eq!(metadata.num_row_groups(), GROUPS);
    let filtered = dir.path().join("filtered.parquet");
    let schema = metadata.file_metadata().schema_descr().root_schema_ptr();
    let mut writer = SerializedFileWriter::new(
        std::fs::File::create(&filtered).unwrap(),
        schema,
        Arc::new(WriterProperties::builder().build()),
    )
    .unwrap();
    for g in 0..GROUPS {
        let filter = split_block_filter(ROWS, 0.01).unwrap();
        std::thread::scope(|s| {
            for t in 0..2 {
                let filter = &filter;
                s.spawn(move || {
                    for i in (t..ROWS).step_by(2) {
                        filter.insert_hash(parquet_hash(key(g, i).as_bytes()));
                    }
                });
            }
        });
        let row_group = metadata.row_group(g);
        let chunk = row_group.column(0).clone();
        let close = ColumnCloseResult {
            bytes_written: chunk.compressed_size() as u64,
            rows_written: row_group.num_rows() as u64,
            metadata: chunk,
            bloom_filter: Some(to_sbbf(&filter).unwrap()),
            column_index: None,
            offset_index: None,
        };
        let mut group = writer.next_row_group().unwrap();
        group.append_column(&source, close).unwrap();
        group.close().unwrap();
    }
    writer.close().unwrap();

    let ctx = SessionContext::new();
    ctx.register_parquet(
        "t",
        filtered.to_str().unwrap(),
        ParquetReadOptions::default(),
    )
    .await
    .unwrap();
    let plan = |sql: &str| {
        let ctx = ctx.clone();
        let sql = sql.to_string();
        async move {
            pretty_format_batches(&run(&ctx, &sql).await)
                .unwrap()
                .to_string()
        }
    };
    // A key of row group 1: the other three are skipped by their filters.
    let present = plan("EXPLAIN ANALYZE SELECT count(*) FROM t WHERE key = 'rg1-k777'").await;
    assert!(
        present.contains("row_groups_pruned_bloom_filter=4 total → 1 matched"),
        "{present}"
    );
    // An absent key: every row group is skipped (at this rate, nearly always;
    // this key's four answers are fixed by the bits, so the test is too).
    let absent = plan("EXPLAIN ANALYZE SELECT count(*) FROM t WHERE key = 'nobody'").await;
    assert!(
        absent.contains("row_groups_pruned_bloom_filter=4 total → 0 matched"),
        "{absent}"
    );
    // And the answers are right.
    let count = plan("SELECT count(*) AS n FROM t WHERE key = 'rg1-k777'").await;
    assert!(count.contains("| 1 "), "{count}");
}

/// The filters the `parquet` crate's writer wrote, one per row group, load
/// as ours: each finds every key of its row group and answers absent keys
/// as Parquet's own check does; all of one size, they union into a filter
/// of the whole file.
#[test]
fn a_parquet_writers_filters_load_as_ours() {
    use datafusion::parquet::file::properties::ReaderProperties;
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
    use datafusion::parquet::file::serialized_reader::ReadOptionsBuilder;

    const GROUPS: usize = 3;
    const ROWS: usize = 5_000;
    let key = |group: usize, i: usize| format!("g{group}-{i}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("written.parquet");
    let props = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_max_ndv(ROWS as u64)
        .set_bloom_filter_fpp(0.01);
    write_keys(&path, GROUPS, ROWS, key, props);

    let ours = read_parquet_filters(&path, "key").unwrap();
    assert_eq!(ours.len(), GROUPS);
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let file = std::fs::File::open(&path).unwrap();
    let reader = SerializedFileReader::new_with_options(file, options).unwrap();
    for (g, filter) in ours.iter().enumerate() {
        let filter = filter
            .as_ref()
            .expect("the writer wrote a filter per row group");
        let row_group = reader.get_row_group(g).unwrap();
        let theirs = row_group.get_column_bloom_filter(0).unwrap();
        assert_eq!(from_sbbf(theirs).unwrap(), *filter);
        for i in 0..ROWS {
            assert!(
                filter.contains_hash(parquet_hash(key(g, i).as_bytes())),
                "{}",
                key(g, i)
            );
        }
        let mut false_positives = 0;
        for i in 0..20_000 {
            let absent = format!("absent-{i}");
            let answer = filter.contains_hash(parquet_hash(absent.as_bytes()));
            assert_eq!(answer, theirs.check(&absent.as_str()), "{absent}");
            false_positives += usize::from(answer);
        }
        // The writer sized it for 1% (rounding its bytes up to a power of
        // two, so lower): about 200 of 20000 at most.
        assert!(false_positives < 300, "{false_positives}");
    }
    let file_filter = ours[0].as_ref().unwrap().try_clone().unwrap();
    for filter in &ours[1..] {
        file_filter.union(filter.as_ref().unwrap()).unwrap();
    }
    for g in 0..GROUPS {
        for i in 0..ROWS {
            assert!(file_filter.contains_hash(parquet_hash(key(g, i).as_bytes())));
        }
    }
}

/// A file without filters gives `None` per row group; a missing column, a
/// file that is not Parquet and a missing file are errors that say so.
#[test]
fn files_without_filters_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.parquet");
    write_keys(
        &path,
        2,
        100,
        |g, i| format!("{g}-{i}"),
        WriterProperties::builder(),
    );
    let filters = read_parquet_filters(&path, "key").unwrap();
    assert_eq!(filters.len(), 2);
    assert!(filters.iter().all(Option::is_none));

    let err = read_parquet_filters(&path, "nope").unwrap_err().to_string();
    assert!(err.contains("no column \"nope\""), "{err}");
    let text = dir.path().join("text.parquet");
    std::fs::write(&text, "not parquet at all").unwrap();
    let err = read_parquet_filters(&text, "key").unwrap_err().to_string();
    assert!(err.to_lowercase().contains("parquet"), "{err}");
    let err = read_parquet_filters(dir.path().join("missing"), "key")
        .unwrap_err()
        .to_string();
    assert!(err.contains("No such file"), "{err}");
}

/// A filter read from a Parquet file answers with Parquet's hash, for a key
/// of each physical type given as that type's plain encoding; saved, the
/// file records Parquet's hasher, so the library's reader of any file and
/// the CLI ask it the same way (a line is a string value).
#[test]
fn filters_read_from_parquet_answer_with_parquets_hash_everywhere() {
    use datafusion::arrow::array::{
        FixedSizeBinaryArray, Float32Array, Float64Array, Int32Array, Int64Array,
    };
    let rows = 1_000;
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("name-{i}")),
    ));
    let int32: ArrayRef = Arc::new(Int32Array::from_iter_values((0..rows).map(|i| i * 3)));
    let int64: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..rows).map(|i| i64::from(i) << 40),
    ));
    let float: ArrayRef = Arc::new(Float32Array::from_iter_values(
        (0..rows).map(|i| i as f32 / 4.0),
    ));
    let double: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..rows).map(|i| f64::from(i) / 8.0),
    ));
    let fixed: ArrayRef =
        Arc::new(FixedSizeBinaryArray::try_from_iter((0..rows).map(|i| i.to_be_bytes())).unwrap());
    let batch = RecordBatch::try_from_iter([
        ("name", names),
        ("int32", int32),
        ("int64", int64),
        ("float", float),
        ("double", double),
        ("fixed", fixed),
    ])
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.parquet");
    let props = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.001)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();

    let filter = |column: &str| {
        let mut filters = read_parquet_filters(&path, column).unwrap();
        assert_eq!(filters.len(), 1);
        filters.pop().unwrap().expect("the writer wrote a filter")
    };
    let (name, int32, int64) = (filter("name"), filter("int32"), filter("int64"));
    let (float, double, fixed) = (filter("float"), filter("double"), filter("fixed"));
    for i in 0..rows {
        assert!(name.contains(&format!("name-{i}")), "name-{i}");
        assert!(int32.contains(&(i * 3)), "{}", i * 3);
        assert!(int64.contains(&(i64::from(i) << 40)));
        assert!(float.contains(&(i as f32 / 4.0).to_le_bytes()));
        assert!(double.contains(&(f64::from(i) / 8.0).to_le_bytes()));
        assert!(fixed.contains(&i.to_be_bytes()));
    }
    let absent = (0..10_000)
        .filter(|i| name.contains(&format!("other-{i}")))
        .count();
    assert!(absent < 50, "{absent} of 10000 absent names found");

    // Saved, the file records Parquet's hasher: the reader of any file
    // answers with it, and the CLI finds every name.
    let saved = dir.path().join("names.abf");
    name.save(&saved).unwrap();
    match atomic_bloom::SavedFilter::load(&saved).unwrap() {
        atomic_bloom::SavedFilter::Parquet(back) => assert_eq!(back, name),
        other => panic!("read as {:?}", other.kind()),
    }
    let keys = dir.path().join("keys.txt");
    let lines: String = (0..rows).map(|i| format!("name-{i}\n")).collect();
    std::fs::write(&keys, lines).unwrap();
    let query = std::process::Command::new(cli())
        .args(["query", "-q"])
        .arg(&saved)
        .arg(&keys)
        .output()
        .unwrap();
    assert!(
        query.status.success(),
        "the CLI missed a name: {}",
        String::from_utf8_lossy(&query.stderr)
    );
    // bloom_contains asks it with Parquet's hashing of each type, a
    // constant (bound) or a column of the filter's bytes alike.
    let ctx = datafusion::prelude::SessionContext::new();
    atomic_bloom_datafusion::register(&ctx);
    let df = ctx.read_batch(batch.clone()).unwrap();
    for (column, filter) in [("name", &name), ("int32", &int32), ("int64", &int64)] {
        let bytes = filter.to_bytes().unwrap();
        let found = df
            .clone()
            .filter(
                atomic_bloom_datafusion::bloom_contains_saved(
                    &bytes,
                    datafusion::prelude::col(column),
                )
                .unwrap(),
            )
            .unwrap();
        let found = futures_count(found);
        assert_eq!(
            found, rows as usize,
            "{column}: a value Parquet wrote was missed"
        );
    }
    let info = std::process::Command::new(cli())
        .arg("info")
        .arg(&saved)
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("hasher:             Parquet's"), "{info}");
}

/// The rows of a DataFrame, counted on a runtime of its own.
fn futures_count(frame: datafusion::prelude::DataFrame) -> usize {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(frame.count())
        .unwrap()
}
