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
use std::time::Instant;

// The tests' runner of `tests/jvm/` (javac, then java), shared.
#[path = "../tests/all/java.rs"]
mod java_runner;
use java_runner::Java;

const QUERIES: i64 = 10_000_000;

/// Compiles `tests/jvm/<class>.java` against `jar` and runs its `time`
/// mode in `dir`: Java's best ns a query, and its hits.
fn java(jar: &str, class: &'static str, dir: &Path) -> (f64, u64) {
    let text = Java::compile(jar, class, dir).run(&["time".as_ref(), dir.as_os_str()]);
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
