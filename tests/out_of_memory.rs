//! When the allocator refuses, every allocation sized by the input or by
//! the filter is a typed error, never an abort: the process's allocator is
//! capped (`cap`) so that it refuses, in a test binary of its own so that
//! no other test allocates meanwhile.

mod common;

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, BuildError, Layout, ReadError, WriteError};
use cap::Cap;
use std::alloc::System;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Runs `f` with at most `budget` more bytes allocatable.
fn capped<T>(budget: usize, f: impl FnOnce() -> T) -> T {
    common::capped(&ALLOCATOR, budget, f)
}

#[test]
fn refused_allocations_are_errors() {
    let filter = common::filled(Layout::Blocked, 1_000_000, 0.01, 0); // 1.2 MiB
    let bytes = filter.to_bytes().unwrap();
    let file_len = 40 + filter.num_bits() / 8 + 8;

    // to_bytes: its buffer is the filter's size.
    let refused = capped(64 << 10, || filter.to_bytes());
    assert!(
        matches!(refused, Err(WriteError::AllocationFailed { bytes }) if bytes == file_len),
        "{refused:?}"
    );
    // read_from: its buffer grows with the stream; it once grew with an
    // infallible extend, which aborted the process. The error names the
    // buffer, not the filter's array, which was never asked for.
    let refused = capped(256 << 10, || AtomicBloom::read_from(bytes.as_slice()));
    assert!(
        matches!(refused, Err(ReadError::BufferAllocationFailed { .. })),
        "{refused:?}"
    );
    let message = refused.unwrap_err().to_string();
    assert!(
        message.contains("to buffer the input read so far"),
        "{message}"
    );
    // from_bytes: the bit array.
    let refused = capped(64 << 10, || AtomicBloom::from_bytes(&bytes));
    assert!(
        matches!(refused, Err(ReadError::AllocationFailed(_))),
        "{refused:?}"
    );
    // try_clone: the copy.
    let refused = capped(64 << 10, || filter.try_clone());
    assert!(
        matches!(refused, Err(BuildError::AllocationFailed { .. })),
        "{refused:?}"
    );

    // With room, each works: the cap, not the code, refused.
    assert_eq!(AtomicBloom::read_from(bytes.as_slice()).unwrap(), filter);
    assert_eq!(filter.to_bytes().unwrap(), bytes);

    // The counting filter: building, copying to a plain filter, writing and
    // reading are each refused as errors.
    let refused = capped(64 << 10, || AtomicCountingBloom::new(1_000_000, 0.01));
    assert!(
        matches!(refused, Err(BuildError::AllocationFailed { .. })),
        "{refused:?}"
    );
    let counting = AtomicCountingBloom::new(1_000_000, 0.01).unwrap(); // 4.8 MiB
    counting.insert("k");
    let refused = capped(64 << 10, || counting.to_bloom());
    assert!(
        matches!(refused, Err(BuildError::AllocationFailed { .. })),
        "{refused:?}"
    );
    let refused = capped(64 << 10, || counting.to_bytes());
    assert!(
        matches!(refused, Err(WriteError::AllocationFailed { .. })),
        "{refused:?}"
    );
    let counting_bytes = counting.to_bytes().unwrap();
    let refused = capped(64 << 10, || {
        AtomicCountingBloom::from_bytes(&counting_bytes)
    });
    assert!(
        matches!(refused, Err(ReadError::AllocationFailed(_))),
        "{refused:?}"
    );
    assert_eq!(
        AtomicCountingBloom::from_bytes(&counting_bytes).unwrap(),
        counting
    );
}
