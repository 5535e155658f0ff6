//! Helpers shared by the integration tests.

use atomic_bloom::{AtomicBloom, Layout};

/// A filter of `layout` sized for `items` keys at `fpp`, hashed with `seed`,
/// holding the keys `0..items` (as `u64`).
#[allow(dead_code)] // not every test crate that includes this module needs it
pub fn filled(layout: Layout, items: usize, fpp: f64, seed: u64) -> AtomicBloom {
    let filter = AtomicBloom::builder()
        .capacity(items, fpp)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap();
    for key in 0..items as u64 {
        filter.insert(&key);
    }
    filter
}

/// What each reader of a fixed-size filter of cells `C` makes of `bytes`:
/// from a slice, from a stream, and from a file (written to `dir/name`),
/// all expected to fail.
#[allow(dead_code)] // not every test crate that includes this module reads files
pub fn every_reader<C: atomic_bloom::Cells>(
    dir: &std::path::Path,
    name: &str,
    bytes: &[u8],
) -> [atomic_bloom::ReadError; 3] {
    use atomic_bloom::Filter;
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    [
        Filter::<C>::from_bytes(bytes).unwrap_err(),
        Filter::<C>::read_from(bytes).unwrap_err(),
        Filter::<C>::load(&path).unwrap_err(),
    ]
}

/// Recomputes a file's trailing checksum after a deliberate change, so that
/// the reader's other checks, not the checksum, must judge it.
#[allow(dead_code)] // not every test crate that includes this module forges files
pub fn reseal(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}

/// Runs `f` while `allocator` grants at most `budget` more bytes of heap,
/// then lifts the cap. The caller's test binary installs `allocator` as its
/// global allocator and runs nothing else meanwhile.
#[allow(dead_code)] // only the test crates that cap their allocator use it
pub fn capped<T>(
    allocator: &cap::Cap<std::alloc::System>,
    budget: usize,
    f: impl FnOnce() -> T,
) -> T {
    allocator.set_limit(allocator.allocated() + budget).unwrap();
    let out = f();
    allocator.set_limit(usize::MAX).unwrap();
    out
}
