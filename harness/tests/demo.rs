//! The demo end to end, on a workload small enough for a test: it
//! reports the rate and the Mutex comparison, and its bad inputs are
//! one-line errors, never an abort.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atomic-bloom-harness"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn demo_runs_on_a_small_workload() {
    let out = run(&["demo", "--urls", "200000", "--distinct", "100000"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("false-positive rate"), "{text}");
    assert!(text.contains("behind a Mutex"), "{text}");
    // No requests is refused; pages past the memory are an error, not an
    // abort.
    let out = run(&["demo", "--urls", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["demo", "--urls", "10", "--distinct", &u64::MAX.to_string()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("atomic-bloom-harness: error: "), "{err}");
    assert!(err.contains("cannot allocate"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
