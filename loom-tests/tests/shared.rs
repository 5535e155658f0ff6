//! Shared files (G16): the writer that closes last seals the file, and its
//! seal holds every insert of every writer.
//!
//! Processes sharing a file are threads here: their words are the same
//! atomics either way (`src/storage/words.rs`), and the file's locks
//! (`src/shared/lock.rs`: open-file-description locks, which the kernel
//! orders like any lock) are loom's: the writer lock, which every writer
//! holds shared and which can be taken exclusive only when no one holds
//! it, is the count of its holders behind a `Mutex`; the state lock a
//! `Mutex`. The seal reads the words
//! as the real one does, through the whole-array read every copy uses
//! (`load_each`, here through `try_clone`).
#![cfg(loom)]

use atomic_bloom::Layout;
use loom::sync::{Arc, Mutex};
use loom_tests::{case, model, words};

/// Two writers, each opening the file (the writer lock, shared),
/// inserting its key and closing: under the state lock, it lets go of the
/// writer lock and, if it can take it exclusive, seals. `upgrade_in_place`
/// is the bug that protocol replaced: asking for the writer lock exclusive
/// while still holding it shared.
fn two_writers_close(upgrade_in_place: bool) {
    let case = case(Layout::Blocked);
    model(move || {
        let filter = Arc::new(case.filter());
        let writing = Arc::new(Mutex::new(0usize));
        let state = Arc::new(Mutex::new(Vec::new()));
        let seals = Arc::new(Mutex::new(Vec::new()));
        let writer = |key: u64| {
            let (filter, writing, state, seals) = (
                filter.clone(),
                writing.clone(),
                state.clone(),
                seals.clone(),
            );
            move || {
                *writing.lock().unwrap() += 1;
                filter.insert_hash(key);
                // The state lock guards the list of writers that closed.
                let mut closed = state.lock().unwrap();
                let mut holders = writing.lock().unwrap();
                if !upgrade_in_place {
                    *holders -= 1;
                }
                closed.push(key);
                // Exclusive only if no one holds it: no other writer.
                if *holders == 0 {
                    let seal = filter.try_clone().unwrap();
                    seals.lock().unwrap().push((closed.clone(), seal));
                }
            }
        };
        let other = loom::thread::spawn(writer(case.a));
        writer(case.b)();
        other.join().unwrap();
        let seals = seals.lock().unwrap();
        // Every seal holds the keys of the writers that had closed.
        for (closed, seal) in seals.iter() {
            assert!(
                closed.iter().all(|&key| seal.contains_hash(key)),
                "the seal lost an insert"
            );
        }
        // The last writer to close sealed, with both keys.
        let (closed, seal) = seals.last().expect("no writer sealed the file");
        assert_eq!(closed.len(), 2, "no writer sealed the file");
        assert_eq!(words(seal), words(&case.filter_with(&[case.a, case.b])));
    });
}

/// G16: one of the writers seals, and the seal holds both keys.
#[test]
fn seal_after_writers_close() {
    two_writers_close(false);
}

/// Negative control: a writer that asks for the writer lock exclusive
/// while holding it shared always sees a holder (itself, or the other
/// writer), so no writer seals.
#[test]
#[should_panic(expected = "no writer sealed the file")]
fn upgrade_in_place_leaves_the_file_unsealed() {
    two_writers_close(true);
}
