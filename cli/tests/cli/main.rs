//! End to end: the built `atomic-bloom` binary on generated files, through
//! build -> query -> info -> merge, and every error path: one line on
//! stderr, a non-zero exit, never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Inputs that cannot be read twice, output paths of every kind, signals,
/// over-full filters and the key encoding.
mod trust;

/// `dedup`: windows of time and of keys, state across runs, signals.
mod dedup;

/// Spark's and Guava's filters: `build --format`, and `info`, `query`,
/// `merge` on files the JVM wrote.
mod jvm;

/// `build --shared`: processes building into one file; `info`, `query`
/// and `merge` on shared files (Linux).
#[cfg(target_os = "linux")]
mod shared;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_atomic-bloom"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// The tool running with `args`, its stdin, stdout and stderr piped.
fn spawn_piped(args: &[&str]) -> std::process::Child {
    bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn_piped(args);
    // Written from a thread of its own while the output is read: a tool
    // that prints as it reads (dedup) would otherwise block on a full
    // stdout pipe while this blocks on a full stdin one. The tool may exit
    // without reading (an error before input): a broken pipe is ignored
    // here, the exit status tells.
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn keys_file(dir: &Path, name: &str, keys: impl Iterator<Item = String>) -> PathBuf {
    let path = dir.join(name);
    let text: String = keys.map(|k| k + "\n").collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A failure: exit 2, one line on stderr naming the problem, no panic.
fn assert_fails(out: &Output, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("atomic-bloom: error: "), "{err}");
    assert!(err.contains(says), "expected {says:?} in {err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn build_query_info_merge() {
    let dir = tempfile::tempdir().unwrap();
    let a_keys = keys_file(
        dir.path(),
        "a.txt",
        (0..20_000).map(|i| format!("user-{i}")),
    );
    let b_keys = keys_file(
        dir.path(),
        "b.txt",
        (20_000..30_000).map(|i| format!("user-{i}")),
    );
    let (a, b, both) = (
        dir.path().join("a.bloom"),
        dir.path().join("b.bloom"),
        dir.path().join("both.bloom"),
    );

    // Both filters alike, so they can be merged.
    let sizing = ["--expected", "30000", "--fpp", "0.001", "--seed", "3"];
    let out = run(&[&["build", s(&a_keys), "-o", s(&a)][..], &sizing].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("20000 keys read"));
    // From stdin, with CRLF line endings and empty lines.
    let crlf: String = (20_000..30_000)
        .map(|i| format!("user-{i}\r\n\n"))
        .collect();
    let out = run_with_stdin(
        &[&["build", "-o", s(&b)][..], &sizing].concat(),
        crlf.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Every key of a is present: exit 0, `present<TAB>key` lines.
    let out = run(&["query", s(&a), s(&a_keys)]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 20_000);
    assert!(text.lines().all(|l| l.starts_with("present\tuser-")));
    // Keys of b against a: mostly absent, exit 1; --absent prints just those.
    let out = run(&["query", s(&a), s(&b_keys), "--absent"]);
    assert_eq!(out.status.code(), Some(1));
    let absent = stdout(&out).lines().count();
    assert!(
        (9_950..=10_000).contains(&absent),
        "{absent} absent at p = 0.001"
    );
    let out = run(&["query", "--quiet", s(&a), "-"]);
    assert_eq!(out.status.code(), Some(0), "no keys: all (none) present");
    let out = run_with_stdin(
        &["query", "--present", s(&b)],
        b"user-25000\nuser-99999999\n",
    );
    assert_eq!(stdout(&out), "user-25000\n");
    assert_eq!(out.status.code(), Some(1));

    let out = run(&["info", s(&a)]);
    assert!(out.status.success());
    let info = stdout(&out);
    assert!(info.contains("layout:             blocked"), "{info}");
    assert!(
        info.contains("hasher:             wyhash, seed 3"),
        "{info}"
    );
    // "estimated keys:     about N keys"
    let estimated: u64 = info
        .lines()
        .find(|l| l.starts_with("estimated keys:"))
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    assert!(!info.contains("OVER"), "{info}");
    assert!((19_600..20_400).contains(&estimated), "{estimated}");

    let out = run(&["merge", s(&a), s(&b), "-o", s(&both)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["query", "--quiet", s(&both), s(&a_keys), s(&b_keys)]);
    assert_eq!(out.status.code(), Some(0), "the union holds every key");
}

/// Every layout `--layout` names builds a file whose keys all come back
/// present, and `info` names the layout.
#[test]
fn every_layout_builds_and_finds_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "k.txt", (0..2_000).map(|i| format!("k-{i}")));
    for layout in ["standard", "blocked", "word", "sectorized", "split-block"] {
        let filter = dir.path().join(format!("{layout}.bloom"));
        let out = run(&["build", s(&keys), "-o", s(&filter), "--layout", layout]);
        assert!(
            out.status.success(),
            "{layout}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run(&["query", "--quiet", s(&filter), s(&keys)]);
        assert_eq!(out.status.code(), Some(0), "{layout}: a key went missing");
        let info = stdout(&run(&["info", s(&filter)]));
        assert!(
            info.contains(&format!("layout:             {layout}")),
            "{info}"
        );
    }
}

/// `build --growable` reads input of unknown length once (stdin here),
/// grows as it goes, and finds every key; `info` lists the sub-filters; a
/// memory limit the keys need more than stops the build with nothing
/// written; the commands that need another kind name this one.
#[test]
fn growable_filters_build_from_a_stream_and_describe_their_sub_filters() {
    let dir = tempfile::tempdir().unwrap();
    let keys: String = (0..50_000).map(|i| format!("g-{i}\n")).collect();
    let filter = dir.path().join("g.bloom");
    let out = run_with_stdin(
        &[
            "build",
            "--growable",
            "--initial-capacity",
            "1000",
            "-o",
            s(&filter),
        ],
        keys.as_bytes(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("50000 keys read")
            && err.contains("growable")
            && err.contains("6 sub-filters"),
        "{err}"
    );
    let bytes = std::fs::read(&filter).unwrap();
    assert_eq!((bytes[8], bytes[40]), (2, 2), "version 2, growable kind");
    let out = run_with_stdin(&["query", "--quiet", s(&filter)], keys.as_bytes());
    assert_eq!(out.status.code(), Some(0), "a key went missing");
    // The rate is at most p = 1% by design (the sub-filters' rates sum to
    // less), but which keys land in which sub-filter depends on how the
    // build's threads raced each growth, so the count varies from run to
    // run. Of 100 000 absent keys, at most 1000 are expected (deviation 32);
    // four deviations above that fails only when the bound is broken.
    let absent: String = (0..100_000).map(|i| format!("never-{i}\n")).collect();
    let out = run_with_stdin(&["query", "--present", s(&filter)], absent.as_bytes());
    let false_positives = stdout(&out).lines().count();
    let allowed = 1000.0 + 4.0 * 1000f64.sqrt();
    assert!(
        (false_positives as f64) < allowed,
        "{false_positives} of 100 000 at p = 1%, more than {allowed:.0}"
    );

    let out = run(&["info", s(&filter)]);
    let info = stdout(&out);
    assert!(out.status.success(), "{info}");
    assert!(info.contains("growable (6 of at most"), "{info}");
    // One row per sub-filter, capacities 1000 to 32 000.
    let rows: Vec<Vec<&str>> = info
        .lines()
        .skip_while(|l| !l.starts_with("sub-filters:"))
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let capacities: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(
        capacities,
        ["1000", "2000", "4000", "8000", "16000", "32000"]
    );
    // Fill limit 1032; inserted: the capacity, and what raced its growth,
    // past the limit by at most one insert per thread but the one at it.
    assert_eq!(rows[0][2], "1032", "{info}");
    let inserted: u64 = rows[0][3].parse().unwrap();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert!((1000..=1032 + threads - 1).contains(&inserted), "{info}");

    // 100 kB holds the first sub-filters, not 50 000 keys: nothing written.
    let limited = dir.path().join("limited.bloom");
    let out = run_with_stdin(
        &[
            "build",
            "--growable",
            "--initial-capacity",
            "1000",
            "--memory-limit",
            "100000",
            "-o",
            s(&limited),
        ],
        keys.as_bytes(),
    );
    assert_fails(
        &out,
        "the filter cannot take every key, so nothing was written",
    );
    assert_fails(&out, "memory limit of 100000");
    assert!(!limited.exists());
    // A limit may have a unit; a size that is none is refused by name.
    let out = run_with_stdin(
        &[
            "build",
            "--growable",
            "--memory-limit",
            "1MiB",
            "-o",
            s(&limited),
        ],
        b"k\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&run(&["info", s(&limited)])).contains("limit 1048576"));
    let out = run(&[
        "build",
        "--growable",
        "--memory-limit",
        "lots",
        "-o",
        s(&limited),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a size in bytes"));

    let out = run(&["remove", s(&filter), s(&filter), "-o", s(&limited)]);
    assert_fails(
        &out,
        "holds a growable filter, whose keys cannot be removed",
    );
    let out = run(&["merge", s(&filter), s(&filter), "-o", s(&limited)]);
    assert_fails(
        &out,
        "holds a growable filter; merge takes plain or counting filters",
    );
    let out = run(&["build", "--growable", "--fpp", "1e-300", "-o", s(&limited)]);
    assert_fails(&out, "invalid filter parameters");
    let out = run_with_stdin(
        &[
            "build",
            "--growable",
            "--initial-capacity",
            "0",
            "-o",
            s(&limited),
        ],
        b"k\n",
    );
    assert_fails(&out, "initial capacity must be at least 1");
    // --expected sizes a fixed filter; with --growable it is refused.
    let out = run(&["build", "--growable", "--expected", "5", "-o", s(&limited)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

/// A counting filter: built with `--counting`, queried like a plain one,
/// keys removed (checked by default: keys reported absent are left alone),
/// `info` showing its counters, and plain and counting files each refused
/// where they do not fit.
#[test]
fn counting_filters_build_query_remove_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let all = keys_file(dir.path(), "all.txt", (0..20_000).map(|i| format!("s-{i}")));
    let gone = keys_file(dir.path(), "gone.txt", (0..5_000).map(|i| format!("s-{i}")));
    let kept = keys_file(
        dir.path(),
        "kept.txt",
        (5_000..20_000).map(|i| format!("s-{i}")),
    );
    let filter = dir.path().join("c.bloom");
    let out = run(&[
        "build",
        "--counting",
        s(&all),
        "-o",
        s(&filter),
        "--fpp",
        "0.001",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("20000 keys read") && err.contains("counting"),
        "{err}"
    );
    let bytes = std::fs::read(&filter).unwrap();
    assert_eq!((bytes[8], bytes[40]), (2, 1), "version 2, counting kind");
    let out = run(&["query", "--quiet", s(&filter), s(&all)]);
    assert_eq!(out.status.code(), Some(0));

    // Removing inserted keys loses no other key.
    let out = run(&["remove", s(&filter), s(&gone)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("5000 keys read, 5000 removed, 0 not present"),
        "{err}"
    );
    let out = run(&["query", "--quiet", s(&filter), s(&kept)]);
    assert_eq!(out.status.code(), Some(0), "a kept key went missing");
    let out = run(&["query", "--present", s(&filter), s(&gone)]);
    let still = stdout(&out).lines().count();
    assert!(
        still < 30,
        "{still} removed keys still present at p = 0.001"
    );

    // Removed keys listed again, and keys never inserted: by default the
    // whole list is refused and the file left as it was; with the flag that
    // names the risk, all but the false positives are skipped, and each of
    // those loses at most k keys.
    let again = keys_file(
        dir.path(),
        "again.txt",
        (0..5_000)
            .map(|i| format!("s-{i}"))
            .chain((0..5_000).map(|i| format!("never-{i}"))),
    );
    let before = std::fs::read(&filter).unwrap();
    assert_fails(
        &run(&["remove", s(&filter), s(&again)]),
        "--skip-absent-risking-false-negatives",
    );
    assert_eq!(
        std::fs::read(&filter).unwrap(),
        before,
        "a refused remove changed the file"
    );
    let out = run(&[
        "remove",
        "--skip-absent-risking-false-negatives",
        s(&filter),
        s(&again),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let removed: usize = err
        .split(", ")
        .find(|part| part.ends_with(" removed"))
        .and_then(|part| part.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {err}"));
    assert!(
        removed < 50,
        "{removed} of 10000 absent keys removed at p = 0.001: {err}"
    );
    assert!(err.contains("false-positive rate"), "{err}");
    let out = run(&["query", "--absent", s(&filter), s(&kept)]);
    let lost = stdout(&out).lines().count();
    let info = stdout(&run(&["info", s(&filter)]));
    let k: usize = info
        .lines()
        .find(|l| l.starts_with("counters per key:"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{info}"));
    assert!(
        lost <= k * removed,
        "{lost} kept keys lost to {removed} false positives"
    );

    let info = stdout(&run(&["info", s(&filter)]));
    assert!(info.contains("kind:               counting"), "{info}");
    assert!(info.contains("format version:     2"), "{info}");
    assert!(info.contains("saturated counters: 0\n"), "{info}");
    let estimated: u64 = info
        .lines()
        .find(|l| l.starts_with("estimated keys:"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{info}"));
    assert!((14_600..15_400).contains(&estimated), "{estimated}");
    // A key inserted 20 times saturates its counters: info says so.
    let hot = keys_file(dir.path(), "hot.txt", (0..20).map(|_| "hot".to_string()));
    let hot_filter = dir.path().join("hot.bloom");
    let out = run(&[
        "build",
        "--counting",
        "--expected",
        "100",
        s(&hot),
        "-o",
        s(&hot_filter),
    ]);
    assert!(out.status.success());
    let info = stdout(&run(&["info", s(&hot_filter)]));
    assert!(info.contains("(stuck at 15"), "{info}");

    // --unchecked with -o: the original stays, the output lacks the keys.
    let copy = dir.path().join("copy.bloom");
    let before = std::fs::read(&filter).unwrap();
    let out = run(&[
        "remove",
        "--unchecked",
        s(&filter),
        s(&kept),
        "-o",
        s(&copy),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&filter).unwrap(), before);
    let out = run(&["info", s(&copy)]);
    assert!(
        stdout(&out).contains("counters above 0:   0 "),
        "{}",
        stdout(&out)
    );

    // Plain files cannot lose keys, nor merge with counting ones.
    let plain = dir.path().join("plain.bloom");
    assert!(run(&["build", s(&all), "-o", s(&plain)]).status.success());
    assert_fails(&run(&["remove", s(&plain), s(&gone)]), "build --counting");
    assert_fails(
        &run(&["merge", s(&plain), s(&filter), "-o", s(&copy)]),
        "holds a plain filter and",
    );
    assert_fails(
        &run(&["merge", s(&plain), s(&filter), "-o", s(&copy)]),
        "merge takes filters of one kind",
    );
}

/// Counting files built from two parts of the keys merge into the file
/// built from all of them, byte for byte: counts add up, keys in both
/// parts count twice, and removing one part's keys leaves the other's.
#[test]
fn counting_files_merge_into_the_file_of_all_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let part = |name: &str, range: std::ops::Range<u32>| {
        keys_file(dir.path(), name, range.map(|i| format!("key-{i}")))
    };
    let (a, b) = (part("a.txt", 0..3000), part("b.txt", 2000..5000));
    let build = |inputs: &[&PathBuf], out: &str| {
        let out = dir.path().join(out);
        let mut args = vec!["build", "--counting", "--expected", "5000", "-o", s(&out)];
        args.extend(inputs.iter().map(|p| s(p)));
        let built = run(&args);
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        out
    };
    let (filter_a, filter_b) = (build(&[&a], "a.bloom"), build(&[&b], "b.bloom"));
    let whole = build(&[&a, &b], "whole.bloom");
    let merged = dir.path().join("merged.bloom");
    let out = run(&["merge", s(&filter_a), s(&filter_b), "-o", s(&merged)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("counters above 0"));
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );

    let removed = run(&["remove", s(&merged), s(&b)]);
    assert!(
        removed.status.success(),
        "{}",
        String::from_utf8_lossy(&removed.stderr)
    );
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&filter_a).unwrap()
    );
}

#[test]
fn every_failure_is_one_line_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "k.txt", (0..100).map(|i| i.to_string()));
    let out_path = dir.path().join("f.bloom");
    let missing = dir.path().join("missing.txt");
    assert_fails(
        &run(&["build", s(&missing), "-o", s(&out_path)]),
        "cannot open",
    );
    assert_fails(
        &run(&["build", s(&keys), "-o", s(&out_path), "--fpp", "1.5"]),
        "false-positive rate",
    );
    assert_fails(
        &run(&["build", s(&keys), "-o", s(&out_path), "--fpp", "NaN"]),
        "false-positive rate",
    );
    // A negative rate is a rate out of range, not an unknown flag `-0`.
    assert_fails(
        &run(&["build", s(&keys), "-o", s(&out_path), "--fpp", "-0.1"]),
        "strictly between 0 and 1, got -0.1",
    );
    // What clap refuses is one line too, with the tool's prefix.
    for (args, says) in [
        (&["bogus"][..], "unrecognized subcommand 'bogus'"),
        (
            &["query"][..],
            "required arguments were not provided: <FILTER>",
        ),
        (
            &["build", "-o", "x", "--expected", "abc"][..],
            "invalid value 'abc'",
        ),
        (
            &["dedup", "--window", "1h", "--rate", "-1"][..],
            "--rate must be strictly",
        ),
    ] {
        assert_fails(&run(args), says);
    }
    // dedup without a window names both kinds of window.
    assert_fails(
        &run_with_stdin(&["dedup"], b"a\n"),
        "--window DURATION (of time, e.g. 1h) or --window-keys N",
    );
    assert_fails(
        &run(&["build", s(&keys), "-o", s(&out_path), "--expected", "0"]),
        "at least 1",
    );
    // A directory is not a readable key file.
    assert_fails(
        &run(&[
            "build",
            s(dir.path()),
            "-o",
            s(&out_path),
            "--expected",
            "10",
        ]),
        "cannot read",
    );
    // Writing into a directory that does not exist.
    let nowhere = dir.path().join("no/such/dir/f.bloom");
    assert_fails(
        &run(&["build", s(&keys), "-o", s(&nowhere)]),
        "cannot write",
    );

    let out = run(&["build", s(&keys), "-o", s(&out_path)]);
    assert!(out.status.success());
    // Corrupt, truncated and non-filter files.
    let mut bytes = std::fs::read(&out_path).unwrap();
    let corrupt = dir.path().join("corrupt.bloom");
    bytes[60] ^= 1;
    std::fs::write(&corrupt, &bytes).unwrap();
    assert_fails(&run(&["info", s(&corrupt)]), "checksum mismatch");
    let truncated = dir.path().join("truncated.bloom");
    std::fs::write(&truncated, &bytes[..50]).unwrap();
    assert_fails(&run(&["query", s(&truncated), s(&keys)]), "truncated");
    assert_fails(&run(&["info", s(&keys)]), "not an atomic-bloom filter");
    assert_fails(&run(&["info", s(&missing)]), "cannot load");
    // Incompatible filters: another size, another seed, another layout;
    // each named, with the flags to rebuild them alike.
    let merged = dir.path().join("m.bloom");
    for (flags, says) in [
        (["--expected", "5000"], "different sizes"),
        (["--seed", "9"], "hash keys differently"),
        (["--layout", "word"], "different layouts (blocked and word)"),
    ] {
        let other = dir.path().join("other.bloom");
        assert!(
            run(&["build", s(&keys), "-o", s(&other), flags[0], flags[1]])
                .status
                .success()
        );
        let out = run(&["merge", s(&out_path), s(&other), "-o", s(&merged)]);
        assert_fails(&out, says);
        assert_fails(&out, "the same --expected, --fpp, --layout and --seed");
    }
    // An I/O error says its cause once.
    let out = run(&["info", s(dir.path())]);
    assert_fails(&out, "Is a directory");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("Is a directory").count(), 1, "{err}");
    // Usage errors are clap's: exit 2 with a usage message, no panic.
    let out = run(&["build"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

/// Output to a reader that has gone (`| head`) ends a command quietly, as
/// it would end `grep`: no panic, no error line. `info` then exits 0, and
/// `query` with the status of the keys it had looked up (all present
/// here). A stdout that refuses writes for another reason is an error
/// like any other.
#[test]
fn output_to_a_closed_pipe_or_a_full_device() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "k.txt", (0..20_000).map(|i| format!("k-{i}")));
    let filter = dir.path().join("k.bloom");
    assert!(run(&["build", s(&keys), "-o", s(&filter)]).status.success());
    for (args, status) in [
        (vec!["info", s(&filter)], 0),
        (vec!["query", s(&filter), s(&keys)], 0),
    ] {
        // The read end is closed before the command starts, so its first
        // write finds no reader.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = bin().args(&args).stdout(writer).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    if Path::new("/dev/full").exists() {
        for args in [
            vec!["info", s(&filter)],
            vec!["query", s(&filter), s(&keys)],
        ] {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = bin().args(&args).stdout(full).output().unwrap();
            assert_fails(&out, "cannot write to stdout: No space left on device");
        }
    }
}

/// A filter read from a Parquet file (`tests/golden/v1-split-block-parquet.abf`
/// holds the strings "key-0".."key-99" as Parquet hashed them) answers
/// with Parquet's hash: every line is found, `info` names the hasher, and
/// merging it with a filter of another hasher is refused.
#[test]
fn a_filter_from_parquet_answers_with_parquets_hash() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let parquet = golden.join("v1-split-block-parquet.abf");
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "keys.txt", (0..100).map(|i| format!("key-{i}")));
    let found = run(&["query", "-q", s(&parquet), s(&keys)]);
    assert_eq!(
        found.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    let absent = keys_file(
        dir.path(),
        "absent.txt",
        (0..1000).map(|i| format!("other-{i}")),
    );
    let out = run(&["query", "--absent", s(&parquet), s(&absent)]);
    assert!(stdout(&out).lines().count() > 950);
    let info = stdout(&run(&["info", s(&parquet)]));
    assert!(info.contains("Parquet's (XXH64"), "{info}");
    // Merged with itself it stays Parquet's; with a wyhash filter, refused.
    let merged = dir.path().join("merged.abf");
    let out = run(&["merge", s(&parquet), s(&parquet), "-o", s(&merged)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&parquet).unwrap()
    );
    let other = golden.join("v1-split-block.abf");
    assert_fails(
        &run(&["merge", s(&parquet), s(&other), "-o", s(&merged)]),
        "hash keys differently",
    );
}
