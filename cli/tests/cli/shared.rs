use super::*;

/// Processes running `build --shared` into one file at once build what one
/// `build` of all their keys builds, bit for bit; `info`, `query` and
/// `merge` read the shared file (mapping it).
#[test]
fn processes_building_into_one_shared_file_build_the_filter_of_all_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let a = keys_file(dir.path(), "a", (0..60_000).map(|i| format!("k{i}")));
    let b = keys_file(dir.path(), "b", (30_000..90_000).map(|i| format!("k{i}")));
    let all = keys_file(dir.path(), "all", (0..90_000).map(|i| format!("k{i}")));
    let (shared, plain) = (
        dir.path().join("shared.bloom"),
        dir.path().join("plain.bloom"),
    );
    let created = run(&[
        "build",
        "--shared",
        "--expected",
        "90000",
        "-o",
        s(&shared),
        s(&a),
    ]);
    assert!(created.status.success(), "{created:?}");
    let children: Vec<_> = [&a, &b]
        .iter()
        .map(|keys| {
            bin()
                .args(["build", "--shared", "-o", s(&shared), s(keys)])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    assert!(
        run(&["build", "--expected", "90000", "-o", s(&plain), s(&all)])
            .status
            .success()
    );
    let (shared_bytes, plain_bytes) = (
        std::fs::read(&shared).unwrap(),
        std::fs::read(&plain).unwrap(),
    );
    // The same words: after a version 3 header (64 bytes) and a version 1
    // one (40), up to the checksum.
    assert_eq!(
        shared_bytes[64..shared_bytes.len() - 8],
        plain_bytes[40..plain_bytes.len() - 8]
    );

    let info = stdout(&run(&["info", s(&shared)]));
    assert!(info.contains("format version:     3"), "{info}");
    assert!(!info.contains("writer state"), "{info}");
    let found = run_with_stdin(&["query", s(&shared)], b"k0\nk89999\n");
    assert_eq!(stdout(&found), "present\tk0\npresent\tk89999\n");
    let merged = dir.path().join("merged.bloom");
    assert!(
        run(&["merge", s(&shared), s(&plain), "-o", s(&merged)])
            .status
            .success()
    );
    assert_eq!(std::fs::read(&merged).unwrap(), plain_bytes);
}

/// A shared file a writer left open: `info` says so, `query` answers with
/// a warning, and `build --shared` refuses to insert into it.
#[test]
fn a_shared_file_left_open_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "keys", (0..1000).map(|i| format!("k{i}")));
    let shared = dir.path().join("shared.bloom");
    assert!(
        run(&["build", "--shared", "-o", s(&shared), s(&keys)])
            .status
            .success()
    );
    // What a writer killed mid-build leaves: the state byte says open, and
    // no process holds the file.
    let mut bytes = std::fs::read(&shared).unwrap();
    bytes[48] = 1;
    std::fs::write(&shared, &bytes).unwrap();
    let info = stdout(&run(&["info", s(&shared)]));
    assert!(
        info.contains("writer state:       left open by a writer that did not close it"),
        "{info}"
    );
    let query = run_with_stdin(&["query", s(&shared)], b"k1\n");
    assert_eq!(stdout(&query), "present\tk1\n");
    assert!(String::from_utf8_lossy(&query.stderr).contains("was left open for writing"));
    assert_fails(
        &run(&["build", "--shared", "-o", s(&shared), s(&keys)]),
        "left open for writing by a process that did not close it",
    );
}

/// `build --shared` writes a file, never a stream.
#[test]
fn build_shared_needs_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "keys", (0..10).map(|i| format!("k{i}")));
    assert_fails(
        &run(&["build", "--shared", "-o", "-", s(&keys)]),
        "give --output a file path",
    );
}
