//! Shared filters: one file, many processes (Linux).
//!
//! The processes are this test binary run again as a child
//! ([`child_process`], which the tests start with its role in the
//! environment): real processes, each with its own mapping of the file.

#![cfg(target_os = "linux")]

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, ReadError, SharedError, SharedOptions};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const ROLE: &str = "ATOMIC_BLOOM_SHARED_CHILD";

/// Starts this binary as a child process with `role` and its arguments.
fn spawn(role: &str, path: &Path, args: &[u64]) -> Child {
    let args: Vec<String> = args.iter().map(u64::to_string).collect();
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "shared::child_process",
            "--include-ignored",
            "--nocapture",
            "--quiet",
        ])
        .env(
            ROLE,
            format!("{role} {} {}", path.display(), args.join(" ")),
        )
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_all(children: Vec<Child>) {
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "a child failed: {out:?}");
    }
}

/// The body of the child processes: what `ROLE` says. Run without it (as
/// `cargo test -- --ignored` would), it has nothing to do.
#[test]
#[ignore = "a child process of the tests in this file, which start it"]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let words: Vec<&str> = role.split_whitespace().collect();
    let path = PathBuf::from(words[1]);
    let n: Vec<u64> = words[2..].iter().map(|w| w.parse().unwrap()).collect();
    match words[0] {
        // Inserts keys n[0]..n[1] one at a time.
        "insert" => {
            let f = AtomicBloom::open_shared(&path, SharedOptions::read_write()).unwrap();
            for key in n[0]..n[1] {
                f.insert(&key);
            }
            f.close().unwrap();
        }
        // Inserts keys n[0]..n[1] in one parallel batch.
        "par_insert" => {
            let f = AtomicBloom::open_shared(&path, SharedOptions::read_write()).unwrap();
            let keys: Vec<u64> = (n[0]..n[1]).collect();
            f.par_insert(&keys);
            f.close().unwrap();
        }
        // Inserts every key below n[0], then removes those equal to n[1]
        // modulo n[2].
        "count" => {
            let f = AtomicCountingBloom::open_shared(&path, SharedOptions::read_write()).unwrap();
            for key in 0..n[0] {
                f.insert(&key);
            }
            for key in (0..n[0]).filter(|key| key % n[2] == n[1]) {
                assert!(f.remove(&key));
            }
            f.close().unwrap();
        }
        // Inserts 0, 1, 2, ... and prints how many have returned, every
        // thousand keys, until it is killed.
        "insert_until_killed" => {
            let f = AtomicBloom::open_shared(&path, SharedOptions::read_write()).unwrap();
            let mut out = std::io::stdout().lock();
            for key in 0u64.. {
                f.insert(&key);
                if (key + 1) % 1000 == 0 {
                    use std::io::Write;
                    writeln!(out, "{}", key + 1).unwrap();
                    out.flush().unwrap();
                }
            }
        }
        other => panic!("unknown role {other}"),
    }
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn processes_inserting_overlapping_keys_build_the_sequential_filter_bit_for_bit() {
    let dir = dir();
    let path = dir.path().join("f.bloom");
    let builder = AtomicBloom::builder().capacity(200_000, 0.01).seed(9);
    builder
        .clone()
        .build_shared(&path)
        .unwrap()
        .close()
        .unwrap();
    // Four processes, each with 50k keys, overlapping their neighbours'.
    let ranges: Vec<(u64, u64)> = (0..4).map(|p| (p * 30_000, p * 30_000 + 50_000)).collect();
    let children = ranges
        .iter()
        .enumerate()
        .map(|(i, &(from, to))| {
            spawn(
                if i % 2 == 0 { "insert" } else { "par_insert" },
                &path,
                &[from, to],
            )
        })
        .collect();
    wait_all(children);
    let sequential = builder.build().unwrap();
    for &(from, to) in &ranges {
        for key in from..to {
            sequential.insert(&key);
        }
    }
    // Every writer closed it: sealed, so `load` verifies its checksum.
    let loaded = AtomicBloom::load(&path).unwrap();
    assert_eq!(loaded, sequential);
    let shared = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap();
    assert_eq!(shared, sequential);
}

#[test]
fn processes_racing_inserts_and_removes_end_with_the_sequential_counters() {
    let dir = dir();
    let path = dir.path().join("c.bloom");
    let builder = AtomicCountingBloom::builder()
        .capacity(1_000_000, 0.01)
        .seed(3);
    builder
        .clone()
        .build_shared(&path)
        .unwrap()
        .close()
        .unwrap();
    const KEYS: u64 = 20_000;
    const PROCESSES: u64 = 3;
    let children = (0..PROCESSES)
        .map(|p| spawn("count", &path, &[KEYS, p, PROCESSES]))
        .collect();
    // Sequentially: every process's inserts, then every process's removes.
    let sequential = builder.build().unwrap();
    for _ in 0..PROCESSES {
        for key in 0..KEYS {
            sequential.insert(&key);
        }
    }
    // A saturated counter sticks, so its final value would depend on the
    // order; these sizes saturate none.
    assert_eq!(sequential.saturated_counters(), 0);
    for key in 0..KEYS {
        sequential.remove(&key);
    }
    wait_all(children);
    assert_eq!(AtomicCountingBloom::load(&path).unwrap(), sequential);
}

#[test]
fn a_writer_killed_mid_build_leaves_every_returned_insert_and_a_typed_signal() {
    let dir = dir();
    let path = dir.path().join("killed.bloom");
    AtomicBloom::builder()
        .capacity(10_000_000, 0.01)
        .build_shared(&path)
        .unwrap()
        .close()
        .unwrap();
    let mut child = spawn("insert_until_killed", &path, &[]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut returned = 0;
    // (The lines that do not parse are the test harness's own.)
    while returned < 20_000 {
        returned = lines
            .next()
            .unwrap()
            .unwrap()
            .parse::<u64>()
            .unwrap_or(returned);
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // Not opened as if sealed, by any reader.
    let refused = AtomicBloom::open_shared(&path, SharedOptions::read_write()).unwrap_err();
    assert!(
        matches!(refused, SharedError::NotClosedCleanly { .. }),
        "{refused}"
    );
    let refused = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap_err();
    assert!(matches!(refused, SharedError::NotClosedCleanly { .. }));
    assert!(matches!(
        AtomicBloom::load(&path),
        Err(ReadError::File { .. } | ReadError::OpenForWriting)
    ));
    assert!(matches!(
        AtomicBloom::from_bytes(&std::fs::read(&path).unwrap()),
        Err(ReadError::OpenForWriting)
    ));

    // Recovered, it holds every key whose insert had returned.
    let recovered =
        AtomicBloom::open_shared(&path, SharedOptions::read_write().recover(true)).unwrap();
    assert!((0..returned).all(|key| recovered.contains(&key)));
    // Closed by a writer, it is sealed again.
    recovered.close().unwrap();
    let loaded = AtomicBloom::load(&path).unwrap();
    assert!((0..returned).all(|key| loaded.contains(&key)));
}

#[test]
fn the_last_writer_to_close_seals_the_file() {
    let dir = dir();
    let path = dir.path().join("f.bloom");
    let first = AtomicBloom::builder()
        .capacity(1000, 0.01)
        .build_shared(&path)
        .unwrap();
    let second = AtomicBloom::open_shared(&path, SharedOptions::read_write()).unwrap();
    first.insert("a");
    second.insert("b");
    // A reader opens it while writers have it open: live, not unclean.
    let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap();
    assert!(reader.contains("a") && reader.contains("b"));
    first.close().unwrap();
    // One writer still has it: still marked open.
    assert!(matches!(
        AtomicBloom::from_bytes(&std::fs::read(&path).unwrap()),
        Err(ReadError::OpenForWriting)
    ));
    second.insert("c");
    assert!(reader.contains("c"));
    drop(second); // a drop closes as `close` does
    let loaded = AtomicBloom::load(&path).unwrap();
    assert!(["a", "b", "c"].iter().all(|key| loaded.contains(key)));
    assert_eq!(loaded, reader);
}

#[test]
fn a_read_only_handle_never_writes_the_file() {
    let dir = dir();
    let path = dir.path().join("f.bloom");
    let f = AtomicBloom::new(1000, 0.01).unwrap();
    f.insert("saved");
    f.to_shared(&path).unwrap().close().unwrap();
    let before = std::fs::read(&path).unwrap();
    let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap();
    assert_eq!(reader.shared_writable(), Some(false));
    assert!(reader.insert("local"));
    assert!(reader.contains("local"));
    reader.flush().unwrap();
    drop(reader);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let again = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap();
    assert!(again.contains("saved") && !again.contains("local"));
}

#[test]
fn a_saved_file_opens_shared_read_only_and_a_shared_file_loads() {
    let dir = dir();
    for counting in [false, true] {
        let (saved, shared) = (dir.path().join("saved"), dir.path().join("shared"));
        let keys = ["x", "y", "z"];
        if counting {
            let f = AtomicCountingBloom::new(100, 0.01).unwrap();
            keys.iter().for_each(|k| _ = f.insert(k));
            f.save(&saved).unwrap();
            let opened =
                AtomicCountingBloom::open_shared(&saved, SharedOptions::read_only()).unwrap();
            assert_eq!(opened, f);
            f.to_shared(&shared).unwrap().close().unwrap();
            assert_eq!(AtomicCountingBloom::load(&shared).unwrap(), f);
        } else {
            let f = AtomicBloom::new(100, 0.01).unwrap();
            keys.iter().for_each(|k| _ = f.insert(k));
            f.save(&saved).unwrap();
            let opened = AtomicBloom::open_shared(&saved, SharedOptions::read_only()).unwrap();
            assert_eq!(opened, f);
            assert!(matches!(
                AtomicBloom::open_shared(&saved, SharedOptions::read_write()),
                Err(SharedError::NotWritable { version: 1, .. })
            ));
            f.to_shared(&shared).unwrap().close().unwrap();
            assert_eq!(AtomicBloom::load(&shared).unwrap(), f);
            // The other kind's reader refuses it.
            assert!(matches!(
                AtomicCountingBloom::open_shared(&shared, SharedOptions::read_only()),
                Err(SharedError::Invalid {
                    source: ReadError::WrongKind { .. },
                    ..
                })
            ));
        }
    }
}

#[test]
fn a_file_in_use_is_never_replaced() {
    let dir = dir();
    let path = dir.path().join("f.bloom");
    let f = AtomicBloom::builder()
        .capacity(1000, 0.01)
        .build_shared(&path)
        .unwrap();
    f.insert("kept");
    let reader = AtomicBloom::open_shared(&path, SharedOptions::read_only()).unwrap();
    // Neither a new shared file nor a save takes its place while a writer
    // has it.
    let again = AtomicBloom::builder()
        .capacity(10, 0.01)
        .build_shared(&path);
    assert!(matches!(again, Err(SharedError::InUse { .. })));
    let saved = AtomicBloom::new(10, 0.01).unwrap().save(&path).unwrap_err();
    assert_eq!(saved.kind(), std::io::ErrorKind::ResourceBusy);
    assert!(f.contains("kept") && reader.contains("kept"));
    drop(f);
    // A reader does not hold it: the file is replaced, and the reader
    // keeps the one it mapped.
    AtomicBloom::new(10, 0.01).unwrap().save(&path).unwrap();
    assert!(reader.contains("kept"));
    assert!(!AtomicBloom::load(&path).unwrap().contains("kept"));
}

/// A valid shared file's bytes, and where its fields are.
fn shared_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("valid.bloom");
    let f = AtomicBloom::builder()
        .capacity(1000, 0.01)
        .build_shared(&path)
        .unwrap();
    f.insert("k");
    f.close().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 3);
    (path, bytes)
}

fn open_bytes(dir: &Path, bytes: &[u8]) -> Result<AtomicBloom, SharedError> {
    let path = dir.join("forged.bloom");
    std::fs::write(&path, bytes).unwrap();
    let read_only = AtomicBloom::open_shared(&path, SharedOptions::read_only().recover(true));
    let read_write = AtomicBloom::open_shared(&path, SharedOptions::read_write().recover(true));
    assert_eq!(read_only.is_ok(), read_write.is_ok());
    read_only
}

fn invalid(result: Result<AtomicBloom, SharedError>) -> ReadError {
    match result {
        Err(SharedError::Invalid { source, .. }) => source,
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn forged_truncated_and_oversized_files_are_refused_before_mapping() {
    let dir = dir();
    let (_, bytes) = shared_file(dir.path());
    assert!(open_bytes(dir.path(), &bytes).unwrap().contains("k"));

    let short = &bytes[..bytes.len() - 1];
    assert!(matches!(
        invalid(open_bytes(dir.path(), short)),
        ReadError::Truncated { .. }
    ));
    assert!(matches!(
        invalid(open_bytes(dir.path(), &bytes[..50])),
        ReadError::Truncated { .. }
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        invalid(open_bytes(dir.path(), &long)),
        ReadError::TrailingBytes { .. }
    ));

    // m forged to 2^40 bits: a length the file does not have, refused
    // without mapping (or allocating) anything.
    let mut huge = bytes.clone();
    huge[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(matches!(
        invalid(open_bytes(dir.path(), &huge)),
        ReadError::Truncated { .. }
    ));
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    assert!(matches!(
        invalid(open_bytes(dir.path(), &bad_magic)),
        ReadError::BadMagic
    ));
    let mut state = bytes.clone();
    state[48] = 7;
    assert!(matches!(
        invalid(open_bytes(dir.path(), &state)),
        ReadError::UnknownWriterState(7)
    ));
    let mut reserved = bytes.clone();
    reserved[60] = 1;
    assert!(matches!(
        invalid(open_bytes(dir.path(), &reserved)),
        ReadError::ReservedBytes
    ));
    let mut growable = bytes.clone();
    growable[40] = 2;
    assert!(matches!(
        invalid(open_bytes(dir.path(), &growable)),
        ReadError::WrongKind { .. }
    ));
    let mut no_k = bytes.clone();
    no_k[12..16].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        invalid(open_bytes(dir.path(), &no_k)),
        ReadError::InvalidParameters(_)
    ));

    // Every single-byte change of the header: a typed error or a filter,
    // never a crash.
    for at in 0..64 {
        for value in [0u8, 1, 0x80, 0xff] {
            let mut forged = bytes.clone();
            forged[at] = value;
            let _ = open_bytes(dir.path(), &forged);
        }
    }
}

#[test]
fn a_version_3_file_with_a_composite_kind_is_refused_by_every_reader() {
    let dir = dir();
    let (_, mut bytes) = shared_file(dir.path());
    bytes[40] = 2; // the growable kind
    assert!(atomic_bloom::AtomicGrowableBloom::from_bytes(&bytes).is_err());
    assert!(atomic_bloom::SavedFilter::from_bytes(&bytes).is_err());
}
