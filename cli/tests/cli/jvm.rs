//! The JVM's filters: `build --format spark|guava` writes the bytes Spark's
//! and Guava's `BloomFilter.create` would hold for the same lines (the
//! library's writers, which the JVM reads in the library's tests), and
//! `info`, `query` and `merge` take files Spark and Guava wrote
//! (`tests/golden/spark-*`, `guava-*`, with the JVM's own answers).

use super::{assert_fails, keys_file, run, run_with_stdin, s, stdout};
use atomic_bloom::{AtomicBloom, GuavaBloom};
use std::path::{Path, PathBuf};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden")
        .join(name)
}

fn ok(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn key(i: u32) -> String {
    format!("line-{i}")
}

#[test]
fn build_writes_the_bytes_spark_and_guava_would_hold() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "keys.txt", (0..3000).map(key));
    let (spark, guava) = (dir.path().join("s.bin"), dir.path().join("g.bin"));
    ok(&run(&[
        "build",
        "--format",
        "spark",
        "--fpp",
        "0.02",
        s(&keys),
        "-o",
        s(&spark),
    ]));
    ok(&run(&[
        "build",
        "--format",
        "guava",
        "--fpp",
        "0.02",
        s(&keys),
        "-o",
        s(&guava),
    ]));
    // Sized for the 3000 lines counted, as `BloomFilter.create(3000, 0.02)`.
    let expected_spark = AtomicBloom::spark(3000, 0.02).unwrap();
    let expected_guava = GuavaBloom::new(3000, 0.02).unwrap();
    for i in 0..3000 {
        expected_spark.insert(key(i).as_str());
        expected_guava.insert(key(i).as_str());
    }
    assert_eq!(
        std::fs::read(&spark).unwrap(),
        expected_spark.to_spark_bytes().unwrap()
    );
    assert_eq!(
        std::fs::read(&guava).unwrap(),
        expected_guava.to_guava_bytes().unwrap()
    );
    // Every command reads them back: all present, from a file or stdin.
    for file in [&spark, &guava] {
        ok(&run(&["query", "-q", s(file), s(&keys)]));
        let piped = run_with_stdin(
            &["query", "-q", "-", s(&keys)],
            &std::fs::read(file).unwrap(),
        );
        ok(&piped);
    }
    let info = stdout(&run(&["info", s(&guava)]));
    assert!(
        info.contains("Guava's BloomFilter.writeTo, strategy MURMUR128_MITZ_64"),
        "{info}"
    );
    assert!(info.contains(&format!(
        "bits (m):           {}",
        expected_guava.num_bits()
    )));
    let info = stdout(&run(&["info", s(&spark)]));
    assert!(info.contains("Spark's BloomFilter.writeTo, V2"), "{info}");
}

#[test]
fn halves_merge_into_the_file_of_all_in_the_jvms_format() {
    let dir = tempfile::tempdir().unwrap();
    let all = keys_file(dir.path(), "all.txt", (0..2000).map(key));
    let even = keys_file(dir.path(), "even.txt", (0..2000).step_by(2).map(key));
    let odd = keys_file(dir.path(), "odd.txt", (1..2000).step_by(2).map(key));
    for format in ["spark", "guava"] {
        let path = |name: &str| dir.path().join(format!("{format}-{name}"));
        for (keys, name) in [(&all, "all"), (&even, "even"), (&odd, "odd")] {
            let build = [
                "build",
                "--format",
                format,
                "--expected",
                "2000",
                s(keys),
                "-o",
            ];
            ok(&run(&[&build[..], &[s(&path(name))]].concat()));
        }
        let merged = path("merged");
        ok(&run(&[
            "merge",
            s(&path("even")),
            s(&path("odd")),
            "-o",
            s(&merged),
        ]));
        assert_eq!(
            std::fs::read(&merged).unwrap(),
            std::fs::read(path("all")).unwrap(),
            "{format}"
        );
    }
    assert_fails(
        &run(&[
            "merge",
            s(&dir.path().join("guava-all")),
            s(&dir.path().join("spark-all")),
            "-o",
            s(&dir.path().join("mixed")),
        ]),
        "holds a Guava filter and",
    );
    assert_fails(
        &run(&["remove", s(&dir.path().join("guava-all")), s(&all)]),
        "in Google Guava's format; remove takes",
    );
}

/// Guava's own files: every key `GuavaFilters.java` put is present, and
/// the absent keys the CLI reports present are exactly Guava's false
/// positives (its `.answers` file).
#[test]
fn files_guava_wrote_answer_as_guava() {
    let dir = tempfile::tempdir().unwrap();
    for (file, count) in [
        ("guava-strings-1000-p3", 1000),
        ("guava-strings-20000-p1", 20_000),
    ] {
        let filter = golden(&format!("{file}.bin"));
        let put = keys_file(
            dir.path(),
            "put.txt",
            (0..count).map(|i| format!("guava-{i}")),
        );
        ok(&run(&["query", "-q", s(&filter), s(&put)]));
        let absent = keys_file(
            dir.path(),
            "absent.txt",
            (0..100_000).map(|i| format!("absent-{i}")),
        );
        let present = stdout(&run(&["query", "--present", s(&filter), s(&absent)]));
        let ours: String = present
            .lines()
            .map(|line| format!(" {}", line.trim_start_matches("absent-")))
            .collect();
        let guava = std::fs::read_to_string(golden(&format!("{file}.answers"))).unwrap();
        assert_eq!(format!("strings{ours}\n"), guava, "{file}");
    }
}
