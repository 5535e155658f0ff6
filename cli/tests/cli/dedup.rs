//! `dedup`: a streaming `uniq` with the memory of a window, replayed by
//! the lines' own times (`--timestamps`, the simulated clock), carried
//! across runs by `--state`, and saved on a signal.

use super::{assert_fails, bin, run, run_with_stdin, s, spawn_piped, stdout};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

/// Lines `time<TAB>key`, at the given seconds.
fn timed(lines: &[(u64, &str)]) -> Vec<u8> {
    lines
        .iter()
        .map(|(t, k)| format!("{t}\t{k}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn a_key_repeated_within_the_window_is_dropped_and_after_it_printed_again() {
    // A one-hour window in the default four generations keeps a key at
    // least an hour and at most 80 minutes after its last occurrence.
    let input = timed(&[
        (0, "a"),
        (10, "b"),
        (1_800, "a"),  // 30 min after a: within, dropped (and a renewed)
        (3_000, "b"),  // 50 min after b: within, dropped
        (5_300, "a"),  // 58 min after a's renewal: within, dropped
        (10_300, "a"), // 83 min after the last a: past the window, printed
        (10_301, "a"), // and dropped again
        (10_400, "c"),
    ]);
    let out = run_with_stdin(&["dedup", "--window", "1h", "--timestamps"], &input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "0\ta\n10\tb\n10300\ta\n10400\tc\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("8 lines read, 4 printed"), "{err}");
}

#[test]
fn a_window_of_keys_forgets_a_key_after_that_many_others() {
    // The last 30 distinct lines in three generations of 15: a key is kept
    // for at least 30 and at most 45 new keys after it.
    let mut input = String::from("x\n");
    input.extend((0..29).map(|i| format!("k{i}\nx\n")));
    input.extend((100..160).map(|i| format!("k{i}\n")));
    input.push_str("x\n");
    let out = run_with_stdin(
        &[
            "dedup",
            "--window-keys",
            "30",
            "--generations",
            "3",
            "--rate",
            "0.0001",
        ],
        input.as_bytes(),
    );
    let printed = stdout(&out);
    // x comes back within 30 keys each time, then after 60: printed twice.
    assert_eq!(
        printed.lines().filter(|l| *l == "x").count(),
        2,
        "{printed}"
    );
    assert_eq!(printed.lines().count(), 29 + 60 + 2);
}

#[test]
fn the_state_carries_the_window_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("seen.abf");
    let first = run_with_stdin(
        &[
            "dedup",
            "--window",
            "1h",
            "--timestamps",
            "--state",
            s(&state),
        ],
        &timed(&[(0, "a"), (60, "b")]),
    );
    assert_eq!(stdout(&first), "0\ta\n60\tb\n");
    assert!(String::from_utf8_lossy(&first.stderr).contains("state saved to"));
    // The next run resumes: within the hour a and b are dropped; a line
    // more than the window after them prints.
    let second = run_with_stdin(
        &["dedup", "--timestamps", "--state", s(&state)],
        &timed(&[(1_000, "a"), (1_100, "c"), (9_000, "b")]),
    );
    assert_eq!(stdout(&second), "1100\tc\n9000\tb\n");
    // `info` describes it; a contradicting flag is refused.
    let info = stdout(&run(&["info", s(&state)]));
    assert!(
        info.contains("windowed (4 generations)") && info.contains("1h"),
        "{info}"
    );
    let out = run_with_stdin(&["dedup", "--window", "2h", "--state", s(&state)], b"a\n");
    assert_fails(&out, "keeps a window of 1h, not 2h");
    // The state of another kind is refused too.
    let plain = dir.path().join("plain.abf");
    std::fs::write(dir.path().join("k.txt"), "a\n").unwrap();
    run(&["build", s(&dir.path().join("k.txt")), "-o", s(&plain)]);
    let out = run_with_stdin(&["dedup", "--state", s(&plain)], b"a\n");
    assert_fails(&out, "holds a Bloom filter, not the window dedup keeps");
}

#[test]
fn bad_flags_and_lines_are_one_line_errors() {
    // Flags clap refuses: its usage message, status 2.
    let out = run_with_stdin(&["dedup", "--window", "soon"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'soon' for '--window"));
    assert_fails(
        &run_with_stdin(&["dedup", "--window", "1h", "--rate", "2"], b""),
        "--rate",
    );
    assert_fails(
        &run_with_stdin(&["dedup", "--window", "1h", "--generations", "1"], b"a\n"),
        "generations",
    );
    assert_fails(
        &run_with_stdin(
            &["dedup", "--window", "1h", "--timestamps"],
            b"no tab here\n",
        ),
        "line 1: --timestamps expects seconds since the Unix epoch",
    );
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("new.abf");
    assert_fails(
        &run_with_stdin(&["dedup", "--state", s(&state)], b"a\n"),
        "does not exist yet: give --window or --window-keys",
    );
}

#[test]
fn a_signal_prints_what_was_read_saves_the_state_and_exits_143_for_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("live.abf");
    let mut child = spawn_piped(&["dedup", "--window", "1h", "--state", s(&state)]);
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    input.write_all(b"first\nsecond\nfirst\n").unwrap();
    input.flush().unwrap();
    // The lines print as they arrive, while the input stays open.
    let mut line = String::new();
    for expected in ["first\n", "second\n"] {
        line.clear();
        output.read_line(&mut line).unwrap();
        assert_eq!(line, expected);
    }
    super::trust::send("-TERM", &child);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted; state saved to"), "{stderr}");
    drop(input);
    // The saved window has both lines: a new run drops them.
    let out = run_with_stdin(&["dedup", "--state", s(&state)], b"first\nthird\nsecond\n");
    assert_eq!(stdout(&out), "third\n");
}

/// `n` distinct URL lines, as a crawler's log would hold them.
fn urls(n: u64) -> Vec<u8> {
    (0..n)
        .map(|i| format!("https://example.com/page/{i}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn a_burst_past_expected_drops_no_new_line_by_default() {
    // 100,000 distinct lines at once into a window sized for 10,000 an
    // hour: generations fill early and rotate, so every line is new to
    // the window but for the rate (0.1%). Kept filling, one generation
    // took them all and dropped most of them.
    let n = 100_000;
    let out = run_with_stdin(
        &[
            "dedup",
            "--window",
            "1h",
            "--expected",
            "10000",
            "--rate",
            "0.001",
        ],
        &urls(n),
    );
    let printed = stdout(&out).lines().count() as u64;
    assert!(printed >= n - n / 200, "{printed} of {n} printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("filled early (each sized for"), "{err}");
    assert!(err.contains("rotate early"), "{err}");
}

#[test]
fn keep_filling_warns_while_the_input_is_still_open_and_info_marks_the_state_over() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("seen.abf");
    let mut child = bin()
        .args([
            "dedup",
            "--window",
            "1h",
            "--expected",
            "3000",
            "--when-full",
        ])
        .args(["keep-filling", "--state", s(&state)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(&urls(20_000)).unwrap();
    input.flush().unwrap();
    // The warning arrives while the input is open: a `tail -f` sees it.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("filled early (each sized for"), "{line}");
    assert!(line.contains("false-positive rate is now"), "{line}");
    drop(input);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let info = run(&["info", s(&state)]);
    let text = stdout(&info);
    assert!(text.contains("estimated fpr:"), "{text}");
    assert!(text.contains("OVER"), "{text}");
    assert!(text.contains("when full:          keep filling"), "{text}");
    // The same state, used with the default, rotates from now on: the
    // over-full generation at once, then one per 1,000 new lines, so that
    // after three more (the window's other generations) it has left and
    // new lines print again.
    let fresh: Vec<u8> = (0..5_000)
        .map(|i| format!("brand-new-{i}\n"))
        .collect::<String>()
        .into_bytes();
    let out = run_with_stdin(&["dedup", "--state", s(&state)], &fresh);
    let printed = stdout(&out);
    let count = printed.lines().count();
    assert!((1_950..=2_050).contains(&count), "{count}");
    assert!(printed.lines().all(|l| {
        l.strip_prefix("brand-new-")
            .and_then(|i| i.parse::<u32>().ok())
            .is_some_and(|i| i >= 2_990)
    }));
}

#[test]
fn a_key_an_older_generation_holds_is_not_printed_again() {
    // A one-hour window in four generations of 20 minutes: "a" at 0 is in
    // an older generation at 25 and 45 minutes, still within the window.
    let input = timed(&[
        (0, "a"),
        (600, "a"),
        (1_500, "a"),
        (2_700, "a"),
        (2_701, "b"),
    ]);
    let out = run_with_stdin(&["dedup", "--window", "1h", "--timestamps"], &input);
    assert_eq!(stdout(&out), "0\ta\n2701\tb\n");
}
