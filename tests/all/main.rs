//! The library's integration tests, one module a subject, in one test
//! binary: each binary links the library and the test dependencies anew,
//! so one binary of modules builds far faster than a binary a file.
//!
//! The statistical and stress runs that take minutes are `#[ignore]`d here;
//! CI runs them by name (`.ci/run`), as it must not run the other ignored
//! tests, which rewrite the golden files.
//! The tests that cap the process's allocator (`tests/hostile_input.rs`,
//! `tests/hostile_growable_stream.rs`, `tests/out_of_memory.rs`) keep a
//! binary each: a cap is process-wide, and no other test may allocate
//! while one is set.

#[path = "../common/mod.rs"]
mod common;

mod counting;
mod errors;
mod estimates;
mod false_positive_rate;
mod golden;
mod growable;
mod guava;
mod java;
mod large_filter;
mod membership;
mod memory;
mod model;
#[cfg(feature = "rayon")]
mod parallel;
mod persist;
mod persist_counting;
mod shared;
mod spark;
mod split_block;
mod stress;
mod window;
