//! What a user must be able to trust: every key of every input is
//! inserted, whatever mix of files, stdin and pipes; an output path is
//! written as what it is (file, link, device, pipe, stdout) and never
//! replaced by something else; a signal during a save leaves nothing
//! behind; an over-full filter says so; and a CLI line is the same key as
//! the library's byte encoding of it.

use super::*;
use atomic_bloom::AtomicBloom;
use std::os::unix::fs::FileTypeExt;
use std::time::{Duration, Instant};

fn lines(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

fn text(keys: &[String]) -> String {
    keys.iter().map(|k| format!("{k}\n")).collect()
}

/// Runs `args` with `stdin` and asserts success; returns the output.
fn ok(args: &[&str], stdin: &[u8]) -> Output {
    let out = run_with_stdin(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The filter at `path` holds every one of `keys`, as the library sees it.
fn assert_holds(path: &Path, keys: &[String], context: &str) {
    let filter = AtomicBloom::load(path).unwrap();
    let missing = keys.iter().filter(|k| !filter.contains(k)).count();
    assert_eq!(
        missing,
        0,
        "{context}: {missing} of {} keys lost",
        keys.len()
    );
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn every_mix_of_files_and_stdin_inserts_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (lines("a", 3000), lines("b", 5000), lines("c", 2000));
    let a_file = keys_file(dir.path(), "a.txt", a.iter().cloned());
    let c_file = keys_file(dir.path(), "c.txt", c.iter().cloned());
    let out = dir.path().join("f.bloom");
    let mixes: [&[&str]; 7] = [
        &[s(&a_file), "-"],
        &["-", s(&a_file)],
        &[s(&a_file), "-", s(&c_file)],
        &["-"],
        &[],
        // stdin twice: read once, its keys once.
        &["-", s(&a_file), "-"],
        &[s(&a_file), s(&c_file)],
    ];
    for inputs in mixes {
        let has_file = |f: &PathBuf| inputs.contains(&s(f));
        let mut expected: Vec<String> = b.clone();
        if has_file(&a_file) {
            expected.extend(a.iter().cloned());
        }
        if has_file(&c_file) {
            expected.extend(c.iter().cloned());
        }
        let reads_stdin = inputs.is_empty() || inputs.contains(&"-");
        if !reads_stdin {
            expected.retain(|k| !k.starts_with("b-"));
        }
        for sizing in [&[][..], &["--expected", "20000"][..]] {
            let args = [&["build", "-o", s(&out)][..], sizing, inputs].concat();
            let result = ok(&args, text(&b).as_bytes());
            let stderr = String::from_utf8_lossy(&result.stderr);
            assert!(
                stderr.contains(&format!("{} keys read", expected.len())),
                "{args:?}: {stderr}"
            );
            assert_holds(&out, &expected, &format!("{args:?}"));
        }
    }
}

#[test]
fn a_named_pipe_is_read_once_and_every_key_inserted() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("keys.fifo");
    mkfifo(&fifo);
    let keys = lines("piped", 10_000);
    let writer = {
        let (fifo, body) = (fifo.clone(), text(&keys));
        std::thread::spawn(move || std::fs::write(fifo, body).unwrap())
    };
    let out = dir.path().join("f.bloom");
    ok(&["build", s(&fifo), "-o", s(&out)], b"");
    writer.join().unwrap();
    assert_holds(&out, &keys, "fifo");
}

/// A filter read from a named pipe (or `<(...)`, or `/dev/stdin` on a
/// pipe), which can be read only once, is read whole: its header is not
/// read a second time from where the first read left off.
#[test]
fn a_filter_is_read_from_a_named_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let keys = lines("k", 5000);
    let keys_path = keys_file(dir.path(), "k.txt", keys.iter().cloned());
    let fifo = dir.path().join("filter.fifo");
    mkfifo(&fifo);
    for kind in [&[][..], &["--counting"], &["--growable"]] {
        let saved = dir.path().join("f.bloom");
        let mut build = vec!["build", s(&keys_path), "-o", s(&saved)];
        build.extend_from_slice(kind);
        ok(&build, b"");
        for args in [
            vec!["query", "--quiet", s(&fifo), s(&keys_path)],
            vec!["info", s(&fifo)],
        ] {
            let writer = {
                let (fifo, bytes) = (fifo.clone(), std::fs::read(&saved).unwrap());
                std::thread::spawn(move || std::fs::write(fifo, bytes))
            };
            let mut child = bin()
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // A reader that opened the pipe a second time would wait for
            // another writer forever.
            let deadline = Instant::now() + Duration::from_secs(60);
            while child.try_wait().unwrap().is_none() {
                if Instant::now() > deadline {
                    child.kill().unwrap();
                    panic!("{kind:?} {args:?}: still waiting after 60 s");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{kind:?} {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            // The writer may have been cut off by a failed reader: its
            // result is not the test's.
            let _ = writer.join();
        }
    }
}

/// `-` reads a filter from stdin, as `-o -` writes one to stdout; stdin
/// then cannot hold the keys too, nor two filters.
#[test]
fn a_filter_is_read_from_stdin_as_dash() {
    let dir = tempfile::tempdir().unwrap();
    let keys = lines("k", 5000);
    let keys_path = keys_file(dir.path(), "k.txt", keys.iter().cloned());
    let plain = dir.path().join("plain.bloom");
    let counting = dir.path().join("counting.bloom");
    ok(&["build", s(&keys_path), "-o", s(&plain)], b"");
    ok(
        &["build", "--counting", s(&keys_path), "-o", s(&counting)],
        b"",
    );
    let (plain_bytes, counting_bytes) = (
        std::fs::read(&plain).unwrap(),
        std::fs::read(&counting).unwrap(),
    );

    let info = ok(&["info", "-"], &plain_bytes);
    assert!(stdout(&info).starts_with("file:               stdin\n"));
    let query = ok(&["query", "--absent", "-", s(&keys_path)], &plain_bytes);
    assert_eq!(stdout(&query), "", "keys lost through stdin");

    // The union of a filter from stdin and one from a file is the filter.
    let merged = dir.path().join("merged.bloom");
    ok(&["merge", "-", s(&plain), "-o", s(&merged)], &plain_bytes);
    assert_eq!(std::fs::read(&merged).unwrap(), plain_bytes);

    // Removing every key from a counting filter read from stdin, written
    // to stdout, leaves it empty; the file it came from is untouched.
    let removed = ok(&["remove", "-", s(&keys_path), "-o", "-"], &counting_bytes);
    let emptied = atomic_bloom::AtomicCountingBloom::from_bytes(&removed.stdout).unwrap();
    assert_eq!(
        keys.iter()
            .filter(|k| emptied.contains(&atomic_bloom::Bytes(k.as_bytes())))
            .count(),
        0
    );
    assert_eq!(std::fs::read(&counting).unwrap(), counting_bytes);

    for (args, stdin, says) in [
        (vec!["query", "-"], &plain_bytes, "so the keys cannot be"),
        (
            vec!["query", "-", s(&keys_path), "-"],
            &plain_bytes,
            "so the keys cannot be",
        ),
        (
            vec!["remove", "-", s(&keys_path)],
            &counting_bytes,
            "give --output",
        ),
        (
            vec!["remove", "-", "-o", "-"],
            &counting_bytes,
            "so the keys cannot be",
        ),
        (
            vec!["merge", "-", "-", "-o", s(&merged)],
            &plain_bytes,
            "stdin holds one filter",
        ),
        (
            vec!["merge", "-", s(&plain), "-o", s(&merged)],
            &counting_bytes,
            "stdin holds a counting filter",
        ),
        (
            vec!["info", "-"],
            &b"not a filter".to_vec(),
            "cannot load stdin",
        ),
    ] {
        assert_fails(&run_with_stdin(&args, stdin), says);
    }
}

#[test]
fn every_kind_of_output_path_is_written_as_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let keys = lines("k", 1000);
    let input = keys_file(dir.path(), "k.txt", keys.iter().cloned());
    let build_to =
        |out: &str| run_with_stdin(&["build", s(&input), "--expected", "1000", "-o", out], b"");
    let reference = dir.path().join("reference.bloom");
    assert!(build_to(s(&reference)).status.success());
    let want = std::fs::read(&reference).unwrap();

    // `-` is stdout, and no file named `-` appears.
    let out = build_to("-");
    assert!(out.status.success());
    assert_eq!(out.stdout, want);
    assert!(!Path::new("-").exists() && !dir.path().join("-").exists());
    // /dev/stdout (a pipe here) is written as a stream.
    let out = build_to("/dev/stdout");
    assert!(out.status.success());
    assert_eq!(out.stdout, want);

    // A symlink is followed: the target is replaced, the link stays.
    let target = dir.path().join("target.bloom");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.bloom");
    std::os::unix::fs::symlink("target.bloom", &link).unwrap();
    assert!(build_to(s(&link)).status.success());
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), want);
    // A dangling link creates its target.
    let dangling = dir.path().join("dangling.bloom");
    std::os::unix::fs::symlink("sub/new.bloom", &dangling).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert!(build_to(s(&dangling)).status.success());
    assert_eq!(
        std::fs::read(dir.path().join("sub/new.bloom")).unwrap(),
        want
    );

    // A device is written as a stream: /dev/full's error is reported,
    // /dev/null takes the bytes, and both stay devices.
    assert_fails(&build_to("/dev/full"), "No space left on device");
    assert!(build_to("/dev/null").status.success());
    for device in ["/dev/full", "/dev/null"] {
        let kind = std::fs::metadata(device).unwrap().file_type();
        assert!(kind.is_char_device(), "{device} was replaced");
    }

    // A FIFO is written as a stream to whoever reads it.
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    assert!(build_to(s(&fifo)).status.success());
    assert_eq!(reader.join().unwrap(), want);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // A directory is refused, and left alone.
    let sub = dir.path().join("sub");
    assert_fails(&build_to(s(&sub)), "Is a directory");
    assert!(sub.is_dir());
}

/// Spawns a build of `input` to `output` whose save writes about 1.2 GB,
/// its stderr piped.
fn spawn_large_build(input: &Path, output: &Path) -> std::process::Child {
    bin()
        .args([
            "build",
            s(input),
            "--expected",
            "1000000000",
            "-o",
            s(output),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The exit status a process ended by `signal` reports, as shells do:
/// 128 plus the signal's number.
pub(super) fn status(signal: &str) -> i32 {
    match signal {
        "-INT" => 130,
        "-TERM" => 143,
        other => panic!("no status for {other}"),
    }
}

/// Sends `signal` (`-INT`, `-TERM`) to `child`.
pub(super) fn send(signal: &str, child: &std::process::Child) {
    let kill = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
}

/// Spawns [`spawn_large_build`], waits until its temporary file appears,
/// sends `signal`, and returns the exit status and stderr.
fn interrupt_mid_save(
    dir: &Path,
    input: &Path,
    output: &Path,
    signal: &str,
) -> (Option<i32>, String) {
    let before: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    let child = spawn_large_build(input, output);
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_dir(dir).unwrap().count() == before.len() {
        assert!(Instant::now() < deadline, "the save never started");
        std::thread::sleep(Duration::from_millis(1));
    }
    send(signal, &child);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_signal_during_a_save_leaves_nothing_behind() {
    let keys_dir = tempfile::tempdir().unwrap();
    let input = keys_file(keys_dir.path(), "k.txt", lines("k", 100).into_iter());
    for (signal, existing) in [("-INT", Some(&b"the old filter"[..])), ("-TERM", None)] {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("f.bloom");
        if let Some(old) = existing {
            std::fs::write(&output, old).unwrap();
        }
        let (code, stderr) = interrupt_mid_save(dir.path(), &input, &output, signal);
        assert_eq!(code, Some(status(signal)), "{signal}: {stderr}");
        assert!(
            stderr.contains("interrupted; no filter was saved"),
            "{stderr}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        match existing {
            // The old file, untouched, and nothing else.
            Some(old) => {
                assert_eq!(left, ["f.bloom"], "{signal}");
                assert_eq!(std::fs::read(&output).unwrap(), old);
            }
            None => assert!(left.is_empty(), "{signal} left {left:?}"),
        }
    }
}

/// A stream cannot be taken back, so a signal during a save to one ends
/// the process at once, even when its write is blocked on a reader that
/// has stopped reading, and says the filter is incomplete.
#[test]
fn a_signal_during_a_save_to_a_stalled_stream_ends_the_process_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = keys_file(dir.path(), "k.txt", lines("k", 100).into_iter());
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    // Opened for reading, never read: the writer blocks once the pipe's
    // buffer is full.
    let (opened, reader_open) = std::sync::mpsc::channel();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let file = std::fs::File::open(fifo).unwrap();
            opened.send(()).unwrap();
            file
        })
    };
    let mut child = spawn_large_build(&input, &fifo);
    // The FIFO opens for reading once the save has opened it to write.
    reader_open.recv_timeout(Duration::from_secs(120)).unwrap();
    let _held_open = reader.join().unwrap();
    // Time to fill the pipe's buffer and block (the signal ends the
    // process blocked or not; this makes the test see the blocked case).
    std::thread::sleep(Duration::from_millis(200));
    send("-INT", &child);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the signal did not end a save blocked on its stream");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted; the filter being written out is incomplete"),
        "{stderr}"
    );
}

#[test]
fn an_over_full_build_warns_and_info_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = keys_file(dir.path(), "k.txt", lines("k", 111_000).into_iter());
    let out = dir.path().join("f.bloom");
    let info_of = |expected: &str| {
        let built = ok(
            &["build", s(&input), "--expected", expected, "-o", s(&out)],
            b"",
        );
        let info = run(&["info", s(&out)]);
        assert!(info.status.success());
        (
            String::from_utf8_lossy(&built.stderr).into_owned(),
            stdout(&info),
        )
    };

    let (warning, info) = info_of("1000");
    assert!(warning.contains("warning: over capacity"), "{warning}");
    assert!(warning.contains(", above the target 0.01"), "{warning}");
    assert!(warning.contains("rebuild with --expected"), "{warning}");
    assert!(info.contains("capacity:           OVER"), "{info}");

    // Over its count, but a filter's smallest size (512 bits) has room to
    // spare: the warning says the rate still holds.
    let few = keys_file(dir.path(), "few.txt", lines("k", 3).into_iter());
    let built = ok(&["build", s(&few), "--expected", "1", "-o", s(&out)], b"");
    let warning = String::from_utf8_lossy(&built.stderr);
    assert!(
        warning.contains("over capacity: 3 keys read (3 reported new)"),
        "{warning}"
    );
    assert!(
        warning.contains(", still within the target 0.01"),
        "{warning}"
    );

    // So full that every bit is set: no estimate, said in words.
    let (_, info) = info_of("10");
    assert!(info.contains("unknown: every bit is set"), "{info}");
    assert!(!info.contains("18446744073709551615"), "{info}");

    // Sized right: no warning, no OVER.
    let (quiet, info) = info_of("111000");
    assert!(!quiet.contains("warning"), "{quiet}");
    assert!(!info.contains("OVER"), "{info}");
}

/// The over-full warning's advice is enough in one step: an over-full
/// filter reports many new keys present, so a count of keys reported new
/// falls short; rebuilt with the advised `--expected`, the filter is
/// within its target and says nothing.
#[test]
fn one_rebuild_with_the_advised_size_is_within_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let input = keys_file(dir.path(), "k.txt", lines("k", 200_000).into_iter());
    let out = dir.path().join("f.bloom");
    let build = |expected: &str| {
        let built = ok(
            &["build", s(&input), "--expected", expected, "-o", s(&out)],
            b"",
        );
        String::from_utf8_lossy(&built.stderr).into_owned()
    };
    let warning = build("20000");
    assert!(warning.contains("warning: over capacity"), "{warning}");
    let advised = warning
        .split("rebuild with --expected ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no advice in {warning}"));
    assert_eq!(advised, "200000", "{warning}");
    let quiet = build(advised);
    assert!(!quiet.contains("warning"), "{quiet}");
    let filter = AtomicBloom::load(&out).unwrap();
    let rate = filter.estimated_false_positive_rate();
    assert!(rate <= 0.01, "{rate}");
}

/// Two filters each at their target, merged: the result is over it, and
/// both `merge` and `info` say so, with the rate; merging a filter with
/// itself changes nothing and warns of nothing.
#[test]
fn a_merge_past_the_inputs_rate_warns() {
    let dir = tempfile::tempdir().unwrap();
    let a = keys_file(dir.path(), "a.txt", lines("a", 20_000).into_iter());
    let b = keys_file(dir.path(), "b.txt", lines("b", 20_000).into_iter());
    let (fa, fb, merged) = (
        dir.path().join("a.bloom"),
        dir.path().join("b.bloom"),
        dir.path().join("m.bloom"),
    );
    ok(&["build", s(&a), "-o", s(&fa)], b"");
    ok(&["build", s(&b), "-o", s(&fb)], b"");
    let out = ok(&["merge", s(&fa), s(&fb), "-o", s(&merged)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("estimated false-positive rate"), "{err}");
    assert!(
        err.contains("warning: the merged filter's estimated"),
        "{err}"
    );
    let info = stdout(&run(&["info", s(&merged)]));
    assert!(info.contains("OVER"), "{info}");

    let out = ok(&["merge", s(&fa), s(&fa), "-o", s(&merged)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("warning"), "{err}");
}

/// The golden file `tests/golden/v1-cli-lines.abf` is what
/// `atomic-bloom build --expected 100 --seed 7` makes of the lines
/// `line-0` .. `line-99`: the CLI must still make it, and the library's
/// byte encoding must make the same filter from the same keys.
#[test]
fn cli_lines_are_the_library_byte_encoding() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/v1-cli-lines.abf");
    let golden = std::fs::read(golden).unwrap();
    let keys = lines("line", 100);
    let out = ok(
        &["build", "--expected", "100", "--seed", "7", "-o", "-"],
        text(&keys).as_bytes(),
    );
    assert_eq!(out.stdout, golden, "the CLI's bytes changed");

    let library = AtomicBloom::builder()
        .capacity(100, 0.01)
        .seed(7)
        .build()
        .unwrap();
    for key in &keys {
        library.insert(key);
    }
    assert_eq!(library.to_bytes().unwrap(), golden);
    let loaded = AtomicBloom::from_bytes(&golden).unwrap();
    assert!(keys.iter().all(|k| loaded.contains(k.as_bytes())));
    // The natural call sees the same key: a `&str`, a `String` and bytes
    // all hash by the byte encoding. Only `str`'s own `Hash`, through the
    // explicit `Hashed`, is another key.
    assert!(keys.iter().all(|k| loaded.contains(k.as_str())));
    assert!(keys.iter().all(|k| loaded.contains(k)));
    let found_by_hash = keys
        .iter()
        .filter(|k| loaded.contains(&atomic_bloom::Hashed(k.as_str())))
        .count();
    assert!(found_by_hash < 10, "{found_by_hash}");
}

/// An output that is one of the inputs, by any name (the same path, a hard
/// link, a symlink), is refused before anything is written; the input is
/// left byte for byte. `merge a b -o a` is an in-place update and stays.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "keys.txt", lines("k", 100).into_iter());
    let original = std::fs::read(&keys).unwrap();
    let hard = dir.path().join("hard.txt");
    std::fs::hard_link(&keys, &hard).unwrap();
    let soft = dir.path().join("soft.txt");
    std::os::unix::fs::symlink(&keys, &soft).unwrap();
    let dotted = format!("{}/./keys.txt", s(dir.path()));
    for output in [s(&keys), s(&hard), s(&soft), dotted.as_str()] {
        for extra in [&[][..], &["--counting"][..], &["--growable"][..]] {
            let args = [&["build", s(&keys), "-o", output][..], extra].concat();
            assert_fails(&run(&args), "is the same file as the key input");
            assert_eq!(std::fs::read(&keys).unwrap(), original, "{args:?}");
        }
    }
    // `remove`: the filter is its own output, a key input never is.
    let filter = dir.path().join("c.bloom");
    ok(&["build", "--counting", s(&keys), "-o", s(&filter)], b"");
    let filter_bytes = std::fs::read(&filter).unwrap();
    assert_fails(
        &run(&["remove", s(&filter), s(&keys), "-o", s(&hard)]),
        "is the same file as the key input",
    );
    assert_fails(
        &run(&["remove", s(&filter), s(&filter)]),
        "is the same file as the key input",
    );
    assert_eq!(std::fs::read(&keys).unwrap(), original);
    assert_eq!(std::fs::read(&filter).unwrap(), filter_bytes);
    // `merge a b -o a` updates `a` in place.
    let other = dir.path().join("o.bloom");
    ok(&["build", "--counting", s(&keys), "-o", s(&other)], b"");
    ok(&["merge", s(&filter), s(&other), "-o", s(&filter)], b"");
    let merged = atomic_bloom::AtomicCountingBloom::load(&filter).unwrap();
    assert!(
        lines("k", 100)
            .iter()
            .all(|k| merged.count_of(&atomic_bloom::Bytes(k.as_bytes())) >= 2)
    );
}

/// A retried `remove` (the same list twice) is refused the second time and
/// changes nothing, so no key still in the filter goes missing; the first
/// run's keys were all present, so it removed them all.
#[test]
fn a_retried_remove_is_refused_and_loses_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let kept = lines("kept", 50_000);
    let gone = lines("gone", 1_000);
    let all = keys_file(dir.path(), "all.txt", kept.iter().chain(&gone).cloned());
    let gone_file = keys_file(dir.path(), "gone.txt", gone.iter().cloned());
    let filter = dir.path().join("c.bloom");
    ok(&["build", "--counting", s(&all), "-o", s(&filter)], b"");
    let err = String::from_utf8_lossy(&ok(&["remove", s(&filter), s(&gone_file)], b"").stderr)
        .into_owned();
    assert!(err.contains("1000 removed, 0 not present"), "{err}");
    let after_first = std::fs::read(&filter).unwrap();
    let out = run(&["remove", s(&filter), s(&gone_file)]);
    assert_fails(&out, "nothing removed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reports absent"), "{err}");
    assert_eq!(std::fs::read(&filter).unwrap(), after_first);
    let reloaded = atomic_bloom::AtomicCountingBloom::load(&filter).unwrap();
    let lost = kept
        .iter()
        .filter(|k| !reloaded.contains(&atomic_bloom::Bytes(k.as_bytes())))
        .count();
    assert_eq!(lost, 0, "keys lost to a retried remove");
    // A key listed twice but inserted once is refused too.
    let twice = keys_file(
        dir.path(),
        "twice.txt",
        ["kept-1", "kept-1"].map(String::from).into_iter(),
    );
    assert_fails(
        &run(&["remove", s(&filter), s(&twice)]),
        "more often than it counts",
    );
    assert_eq!(std::fs::read(&filter).unwrap(), after_first);
}

/// What a signal that cannot be caught leaves behind is said where the
/// other signals are: `--help` names SIGKILL and the temporary file.
#[test]
fn help_says_what_sigkill_leaves_behind() {
    let help = stdout(&run(&["--help"]));
    assert!(help.contains("SIGKILL"), "{help}");
    assert!(help.contains(".tmpXXXXXX"), "{help}");
}

/// Bytes `pid` has read so far (`/proc/PID/io`'s `rchar`).
fn bytes_read(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `tail -f access.log | atomic-bloom build --growable -o urls.bloom`
/// never ends by itself: Ctrl-C or SIGTERM ends its input, and the keys
/// read until then are saved (atomically), said so, status 130 or 143.
#[test]
fn a_signal_ends_a_streaming_growable_build_and_saves_what_was_read() {
    for signal in ["-INT", "-TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("urls.bloom");
        let mut child = spawn_piped(&[
            "build",
            "--growable",
            "--initial-capacity",
            "1000",
            "-o",
            s(&output),
        ]);
        let mut input = child.stdin.take().unwrap();
        let keys: String = (0..50_000)
            .map(|i| format!("https://example.com/{i}\n"))
            .collect();
        input.write_all(keys.as_bytes()).unwrap();
        input.flush().unwrap();
        // The input stays open, as `tail -f`'s does; once the process has
        // read every byte written, the signal comes after those lines.
        let deadline = Instant::now() + Duration::from_secs(60);
        while bytes_read(child.id()) < keys.len() as u64 {
            assert!(Instant::now() < deadline, "the build never read its input");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(200));
        send(signal, &child);
        let out = child.wait_with_output().unwrap();
        drop(input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(status(signal)),
            "{signal}: {stderr}"
        );
        assert!(
            stderr.contains("interrupted; the 50000 keys read before it saved to"),
            "{signal}: {stderr}"
        );
        let queried = keys_file(
            dir.path(),
            "keys.txt",
            (0..50_000).map(|i| format!("https://example.com/{i}")),
        );
        let found = run(&["query", "-q", s(&output), s(&queried)]);
        assert_eq!(
            found.status.code(),
            Some(0),
            "{signal}: a key read was not saved"
        );
        let info = stdout(&run(&["info", s(&output)]));
        assert!(info.contains("growable"), "{info}");
    }
}

/// A line of exactly 16 MiB is a key for every command; one byte more is
/// refused by every command with the same words.
#[test]
fn the_line_limit_is_16_mib_without_the_newline_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("f.bloom");
    let mut at_limit = vec![b'x'; 16 << 20];
    at_limit.push(b'\n');
    let mut over = vec![b'y'; (16 << 20) + 1];
    over.push(b'\n');
    for args in [
        &["build", "-o", s(&output)][..],
        &["build", "--growable", "-o", s(&output)][..],
        &["dedup", "--window-keys", "10"][..],
    ] {
        let out = run_with_stdin(args, &at_limit);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_fails(
            &run_with_stdin(args, &over),
            "a line is longer than 16 MiB (16777216 bytes, its newline not counted)",
        );
    }
}

/// Messages name what they are about: the file keys were removed from,
/// the flag that named a clashing output.
#[test]
fn messages_name_the_file_and_the_flag_concerned() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path(), "day1.txt", lines("k", 100).into_iter());
    let counting = dir.path().join("cnt.bloom");
    let copy = dir.path().join("cnt2.bloom");
    run(&["build", "--counting", s(&keys), "-o", s(&counting)]);
    let out = run(&["remove", s(&counting), s(&keys), "-o", s(&copy)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "removed from {} (saved as {})",
            s(&counting),
            s(&copy)
        )),
        "{err}"
    );
    let state = dir.path().join("s.txt");
    std::fs::write(&state, "a\n").unwrap();
    assert_fails(
        &run(&["dedup", "--state", s(&state), s(&state)]),
        "choose another --state",
    );
    // An empty input builds an empty filter, and says so; the growable
    // build reports no bits per key for no key.
    for growable in [false, true] {
        let mut args = vec!["build", "-o", s(&copy)];
        args.extend(growable.then_some("--growable"));
        let out = run_with_stdin(&args, b"\n\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("warning: the input held no keys"), "{err}");
        assert!(!err.contains("per new key"), "{err}");
    }
}
