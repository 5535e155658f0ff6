//! Queries of a filter the JVM built, here and on the JVM, in one run:
//! Guava's `mightContain` and Spark's `mightContainLong` against this
//! crate's `contains` on the same filter (the bytes the Java side wrote),
//! the same 10M keys (longs `i * 7919`, a tenth present), one thread each.
//!
//! ```sh
//! GUAVA_JAR=/usr/share/java/guava.jar \
//! SPARK_SKETCH_JAR=$(ls target/venv/lib/python3*/site-packages/pyspark/jars/spark-sketch_*.jar) \
//!   cargo run --release --example jvm_speed
//! ```
//!
//! Java compiles and runs `tests/jvm/*Filters.java time`: its loop warmed
//! by two rounds, the best of five after. Here, the best of five rounds.

use atomic_bloom::{AtomicBloom, GuavaBloom};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const QUERIES: i64 = 10_000_000;

/// Compiles `source` against `jar` and runs its `time` mode in `dir`:
/// Java's best ns a query, and its hits.
fn java(jar: &str, class: &str, dir: &Path) -> (f64, u64) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/jvm/{class}.java"));
    let classes = dir.join("classes");
    let javac = Command::new("javac")
        .args(["-cp", jar, "-d"])
        .arg(&classes)
        .arg(source)
        .status();
    assert!(javac.expect("javac runs").success());
    let out = Command::new("java")
        .arg("-cp")
        .arg(format!("{jar}:{}", classes.display()))
        .args([class, "time"])
        .arg(dir)
        .output()
        .expect("java runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut fields = text.split_whitespace();
    let ns = fields.next().unwrap().parse().unwrap();
    let hits: u64 = fields.next().unwrap().parse().unwrap();
    (ns, hits / 7)
}

/// The best of five rounds of `contains` over the keys, in ns a query,
/// and one round's hits.
fn ours(contains: impl Fn(i64) -> bool) -> (f64, u64) {
    let mut best = f64::MAX;
    let mut hits = 0;
    for _ in 0..5 {
        let start = Instant::now();
        hits = (0..QUERIES)
            .filter(|&i| contains(std::hint::black_box(i * 7919)))
            .count() as u64;
        best = best.min(start.elapsed().as_nanos() as f64 / QUERIES as f64);
    }
    (best, hits)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    println!(
        "{:<44} {:>12} {:>12} {:>8}",
        "filter (1M longs, 1%), 10M queries", "JVM ns/q", "ours ns/q", "JVM/ours"
    );
    if let Ok(jar) = std::env::var("GUAVA_JAR") {
        let (jvm, jvm_hits) = java(&jar, "GuavaFilters", dir.path());
        let f = GuavaBloom::from_guava_bytes(&std::fs::read(dir.path().join("timed.bin")).unwrap())
            .unwrap();
        let (rust, hits) = ours(|k| f.contains(&k));
        assert_eq!(hits, jvm_hits, "the same answers");
        println!(
            "{:<44} {jvm:>12.2} {rust:>12.2} {:>8.2}",
            "Guava mightContain / GuavaBloom::contains",
            jvm / rust
        );
    }
    if let Ok(jar) = std::env::var("SPARK_SKETCH_JAR") {
        let (jvm, jvm_hits) = java(&jar, "SparkFilters", dir.path());
        let f =
            AtomicBloom::from_spark_bytes(&std::fs::read(dir.path().join("timed.bin")).unwrap())
                .unwrap();
        let (rust, hits) = ours(|k| f.contains(&k));
        assert_eq!(hits, jvm_hits, "the same answers");
        println!(
            "{:<44} {jvm:>12.2} {rust:>12.2} {:>8.2}",
            "Spark mightContainLong / from_spark_bytes",
            jvm / rust
        );
    }
}
