//! `load` of a growable or windowed file reads it at its length: one
//! buffer of exactly the bytes the frame declares (never more than the
//! file holds), then the filter built from it. The bound the readers keep,
//! and `docs::format` states: a windowed load at most 2.5 times the file
//! (the buffer, the generations, and the spare, half of them at most) and a
//! growable load at most twice the file, each plus a fixed overhead (the
//! per-slot or per-sub-filter bookkeeping). A file followed by a gigabyte
//! of zeros is refused having read the file and one byte. Checked under a
//! capped allocator, in a test binary of its own, one test, so that no
//! other test allocates meanwhile.

#[path = "common/mod.rs"]
mod common;

use atomic_bloom::{AtomicGrowableBloom, AtomicWindowedBloom, ReadError, SavedFilter};
use cap::Cap;
use std::alloc::System;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Per slot (at most 65) the bit array's padding, the slot and the list of
/// records: as `hostile_input.rs`'s windowed budget.
const WINDOWED_OVERHEAD: usize = 65 * 1024 + 4096;
/// Per sub-filter (at most 64) the bit array's padding and the chain's
/// node, and the list of where records start: as `hostile_input.rs`.
const GROWABLE_OVERHEAD: usize = 64 * 512 + 4096;

#[test]
fn loads_read_files_at_their_length_within_the_stated_bound() {
    let dir = tempfile::tempdir().unwrap();

    // A window of 1M keys a window, 4 generations: about 5 MiB.
    let window = AtomicWindowedBloom::new(1_000_000, 0.01).unwrap();
    window.insert_batch(0..1_500_000u64);
    let path = dir.path().join("window.abf");
    window.save(&path).unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let loaded = common::capped(&ALLOCATOR, len * 5 / 2 + WINDOWED_OVERHEAD, || {
        AtomicWindowedBloom::load(&path)
    });
    assert_eq!(loaded.unwrap(), window);
    let any = common::capped(&ALLOCATOR, len * 5 / 2 + WINDOWED_OVERHEAD, || {
        SavedFilter::load(&path)
    });
    assert!(matches!(any.unwrap(), SavedFilter::Windowed(_)));

    // A growable filter of several sub-filters.
    let growable = AtomicGrowableBloom::builder()
        .capacity(100_000, 0.01)
        .build()
        .unwrap();
    for i in 0..1_500_000u64 {
        growable.insert(&i).unwrap();
    }
    assert!(growable.sub_filters() >= 4);
    let path = dir.path().join("growable.abf");
    growable.save(&path).unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let loaded = common::capped(&ALLOCATOR, len * 2 + GROWABLE_OVERHEAD, || {
        AtomicGrowableBloom::load(&path)
    });
    assert_eq!(loaded.unwrap(), growable);

    // The same files followed by a gigabyte of zeros (a sparse file): each
    // is refused as trailing data, having buffered the file and one byte.
    for name in ["window.abf", "growable.abf"] {
        let path = dir.path().join(name);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len + (1 << 30))
            .unwrap();
        let budget = len as usize * 5 / 2 + WINDOWED_OVERHEAD;
        let err = common::capped(&ALLOCATOR, budget, || SavedFilter::load(&path)).unwrap_err();
        assert!(
            matches!(err, ReadError::TrailingBytes { .. }),
            "{name}: {err}"
        );
    }
}
