//! Spark's own filters, bit for bit: files Spark wrote (`tests/golden/spark-*`,
//! written by `tests/jvm/SparkFilters.java` with the spark-sketch jar of
//! PySpark's wheel) read here answer every key as Spark's `mightContain`
//! did, and write back byte for byte; a filter written here reads in Spark
//! with the same answers (`written_here_reads_in_spark_with_the_same_answers`,
//! which runs Java: CI runs it by name).

use atomic_bloom::{AtomicBloom, Layout, ReadError, SavedFilter, SparkHasher, WriteError};
use std::path::PathBuf;

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The keys `SparkFilters.java` puts for `i`: a string, a long, bytes.
fn insert_keys(f: &AtomicBloom<SparkHasher>, count: u64) {
    for i in 0..count {
        f.insert(format!("spark-{i}").as_str());
        f.insert(&(i as i64 * 7919));
        f.insert(i.to_string().as_bytes());
    }
}

/// Which absent keys (strings, then longs) `f` reports present, as
/// `SparkFilters.java` prints them.
fn answers(f: &AtomicBloom<SparkHasher>) -> String {
    let strings: String = (0..100_000)
        .filter(|i| f.contains(format!("absent-{i}").as_str()))
        .map(|i| format!(" {i}"))
        .collect();
    let longs: String = (0..100_000i64)
        .filter(|i| f.contains(&(1_000_000_000_000 + i)))
        .map(|i| format!(" {i}"))
        .collect();
    format!("strings{strings}\nlongs{longs}\n")
}

const GOLDEN: [(&str, Layout, i32, u64); 3] = [
    ("spark-v1-1000-p03", Layout::SparkV1, 0, 1000),
    ("spark-v2-1000-p03", Layout::Spark, 0, 1000),
    ("spark-v2-5000-p001-seed7", Layout::Spark, 7, 5000),
];

#[test]
fn filters_spark_wrote_answer_as_spark_and_write_back_byte_for_byte() {
    for (name, layout, seed, count) in GOLDEN {
        let bytes = std::fs::read(golden(&format!("{name}.bin"))).unwrap();
        let f = AtomicBloom::from_spark_bytes(&bytes).unwrap();
        assert_eq!((f.layout(), f.hasher().seed()), (layout, seed), "{name}");
        // Every key Spark put is present, and inserting it again sets nothing.
        let copy = f.try_clone().unwrap();
        insert_keys(&copy, count);
        assert_eq!(copy, f, "{name}: a key Spark put is missing");
        // Absent keys: exactly Spark's answers, false positives included.
        let spark = std::fs::read_to_string(golden(&format!("{name}.answers"))).unwrap();
        assert_eq!(answers(&f), spark, "{name}");
        assert_eq!(f.to_spark_bytes().unwrap(), bytes, "{name}");
        // The same filter built here from the same keys is Spark's.
        let built = AtomicBloom::builder()
            .bits(f.num_bits(), f.num_hashes())
            .layout(layout)
            .hasher(SparkHasher::with_seed(seed))
            .build()
            .unwrap();
        insert_keys(&built, count);
        assert_eq!(built, f, "{name}");
        // And it travels through this crate's own format too.
        let ours =
            AtomicBloom::from_bytes_with_hasher(&f.to_bytes().unwrap(), *f.hasher()).unwrap();
        assert_eq!(ours, f, "{name}");
    }
}

#[test]
fn a_filter_sized_as_spark_sizes_fills_to_sparks_bytes() {
    // `SparkFilters.java` made this one with `BloomFilter.create(3000, 0.03)`.
    let bytes = std::fs::read(golden("spark-v2-1000-p03.bin")).unwrap();
    let f = AtomicBloom::spark(3000, 0.03).unwrap();
    insert_keys(&f, 1000);
    assert_eq!(f.to_spark_bytes().unwrap(), bytes);
    assert!(matches!(
        AtomicBloom::spark(10, 1.0),
        Err(atomic_bloom::BuildError::InvalidFalsePositiveRate(_))
    ));
}

#[test]
fn forged_and_truncated_spark_files_are_refused() {
    let bytes = std::fs::read(golden("spark-v2-1000-p03.bin")).unwrap();
    let read = |b: &[u8]| AtomicBloom::from_spark_bytes(b).unwrap_err();
    assert!(matches!(
        read(&bytes[..bytes.len() - 1]),
        ReadError::Truncated { .. }
    ));
    assert!(matches!(read(&bytes[..10]), ReadError::Truncated { .. }));
    assert!(matches!(read(&[]), ReadError::Truncated { .. }));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(read(&long), ReadError::TrailingBytes { .. }));
    let with = |at: usize, value: i32| {
        let mut forged = bytes.clone();
        forged[at..at + 4].copy_from_slice(&value.to_be_bytes());
        read(&forged)
    };
    assert!(matches!(with(0, 3), ReadError::UnsupportedSparkVersion(3)));
    assert!(matches!(with(4, 0), ReadError::InvalidParameters(_)));
    assert!(matches!(with(4, 65), ReadError::InvalidParameters(_)));
    assert!(matches!(with(12, 0), ReadError::InvalidParameters(_)));
    // A word count of 2^31 - 1: refused for the input's length, with
    // nothing allocated for it.
    assert!(matches!(with(12, i32::MAX), ReadError::Truncated { .. }));
    assert!(matches!(
        AtomicBloom::read_spark(&bytes[..]).map(|f| f.num_bits()),
        Ok(n) if n == (bytes.len() as u64 - 16) * 8
    ));
}

/// Spark's golden filters saved in this crate's own format, Spark's
/// hasher and seed recorded in the header: `tests/golden/v1-spark-*.abf`.
const SAVED_GOLDEN: [(&str, &str); 2] = [
    ("spark-v1-1000-p03", "v1-spark-v1.abf"),
    ("spark-v2-5000-p001-seed7", "v1-spark-v2-seed7.abf"),
];

#[test]
fn spark_hashed_golden_files_of_this_crates_format_answer_as_spark() {
    for (spark, file) in SAVED_GOLDEN {
        let from_spark =
            AtomicBloom::from_spark_bytes(&std::fs::read(golden(&format!("{spark}.bin"))).unwrap())
                .unwrap();
        let bytes = std::fs::read(golden(file)).unwrap();
        // Written today, the same filter gives the same bytes.
        assert_eq!(from_spark.to_bytes().unwrap(), bytes, "{file}");
        // Read by the reader of any file, it hashes as Spark, with the seed
        // the header records, and answers absent keys as Spark did.
        let SavedFilter::Spark(f) = SavedFilter::from_bytes(&bytes).unwrap() else {
            panic!("{file}: not read as a Spark filter");
        };
        assert_eq!(f, from_spark, "{file}");
        let spark_answers = std::fs::read_to_string(golden(&format!("{spark}.answers"))).unwrap();
        assert_eq!(answers(&f), spark_answers, "{file}");
        // The default reader refuses it: wyhash would answer other keys.
        assert!(matches!(
            AtomicBloom::from_bytes(&bytes),
            Err(ReadError::HasherMismatch { .. })
        ));
    }
}

#[test]
#[ignore = "rewrites tests/golden/v1-spark-*.abf: only for a new format version"]
fn regenerate_spark_hashed_golden_files() {
    for (spark, file) in SAVED_GOLDEN {
        let bytes = std::fs::read(golden(&format!("{spark}.bin"))).unwrap();
        AtomicBloom::from_spark_bytes(&bytes)
            .unwrap()
            .save(golden(file))
            .unwrap();
    }
}

#[test]
fn readers_of_this_crates_format_name_spark_and_guava_files() {
    let spark = std::fs::read(golden("spark-v2-1000-p03.bin")).unwrap();
    assert!(matches!(
        AtomicBloom::from_bytes(&spark),
        Err(ReadError::SparkFormat)
    ));
    let guava = std::fs::read(golden("guava-strings-1000-p3.bin")).unwrap();
    assert!(matches!(
        SavedFilter::from_bytes(&guava),
        Err(ReadError::GuavaFormat)
    ));
    assert!(matches!(
        SavedFilter::read_from(&guava[..]),
        Err(ReadError::GuavaFormat)
    ));
    assert!(matches!(
        AtomicBloom::from_bytes(&guava),
        Err(ReadError::GuavaFormat)
    ));
    // Neither: still no filter.
    assert!(matches!(
        SavedFilter::from_bytes(b"\x02\x03 text"),
        Err(ReadError::BadMagic)
    ));
}

#[test]
fn only_spark_layouts_write_spark_files() {
    let f = AtomicBloom::builder()
        .bits(1024, 3)
        .hasher(SparkHasher::with_seed(1))
        .build()
        .unwrap();
    assert!(matches!(
        f.to_spark_bytes(),
        Err(WriteError::NotSpark { .. })
    ));
    let v1 = AtomicBloom::builder()
        .bits(1024, 3)
        .layout(Layout::SparkV1)
        .hasher(SparkHasher::with_seed(1))
        .build()
        .unwrap();
    // V1 records no seed: only seed 0 is Spark's.
    assert!(matches!(
        v1.to_spark_bytes(),
        Err(WriteError::NotSpark { seed: 1, .. })
    ));
}

/// Runs Java: `SPARK_SKETCH_JAR` names the spark-sketch jar (in PySpark's
/// wheel, `pyspark/jars/`); `.ci/run` sets it after installing PySpark.
#[test]
#[ignore = "runs Java with Spark's jar (SPARK_SKETCH_JAR); CI runs it by name"]
fn written_here_reads_in_spark_with_the_same_answers() {
    let jar = std::env::var("SPARK_SKETCH_JAR").expect("SPARK_SKETCH_JAR names spark-sketch's jar");
    let dir = tempfile::tempdir().unwrap();
    let java = crate::java::Java::compile(&jar, "SparkFilters", dir.path());
    for (layout, seed, bits, k) in [
        (Layout::SparkV1, 0, 20_000, 4),
        (Layout::Spark, 0, 30_016, 6),
        (Layout::Spark, -9, 1 << 20, 10),
    ] {
        let f = AtomicBloom::builder()
            .bits(bits, k)
            .layout(layout)
            .hasher(SparkHasher::with_seed(seed))
            .build()
            .unwrap();
        insert_keys(&f, 2000);
        let file = dir.path().join("ours.bin");
        std::fs::write(&file, f.to_spark_bytes().unwrap()).unwrap();
        let spark = java.run(&["answer".as_ref(), file.as_os_str(), "2000".as_ref()]);
        assert_eq!(
            spark,
            format!("missing 0\n{}", answers(&f)),
            "{layout} seed {seed}"
        );
    }
}
