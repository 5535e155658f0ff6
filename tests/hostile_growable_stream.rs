//! A growable filter read from a stream stops at the end its frame
//! declares, one byte past it at most, however much follows: a valid file
//! followed by a gigabyte of zeros is refused as trailing data having read
//! the file and one byte, under the same allocation cap as every other
//! stream read (`hostile_input.rs`: three times the input, plus the
//! growable reader's fixed overhead). Forged counts and growth schedules
//! are refused under the same cap. This file holds a single test so
//! that no other test allocates meanwhile.

mod common;

use atomic_bloom::{AtomicGrowableBloom, ReadError, SavedFilter};
use cap::Cap;
use std::alloc::System;
use std::io::Read;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// As `hostile_input.rs`'s `GROWABLE_OVERHEAD`.
const GROWABLE_OVERHEAD: usize = 64 * 512 + 4096;

/// A reader that counts the bytes taken from it.
struct Counted<R> {
    inner: R,
    taken: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken += n as u64;
        Ok(n)
    }
}

#[test]
fn a_growable_stream_is_read_to_its_declared_end_and_one_byte_more() {
    let f = AtomicGrowableBloom::new(20, 0.01).unwrap();
    f.insert_batch(0..300u32).unwrap();
    let bytes = f.to_bytes().unwrap();
    let end = bytes.len() as u64;
    let budget = 3 * bytes.len() + GROWABLE_OVERHEAD;
    let endless = || Counted {
        inner: bytes.as_slice().chain(std::io::repeat(0).take(1 << 30)),
        taken: 0,
    };

    let mut input = endless();
    let result = common::capped(&ALLOCATOR, budget, || {
        AtomicGrowableBloom::read_from(&mut input)
    });
    assert!(
        matches!(result, Err(ReadError::TrailingBytes { expected }) if expected == end),
        "{result:?}"
    );
    assert_eq!(input.taken, end + 1, "read past the filter's end");

    let mut input = endless();
    let result = common::capped(&ALLOCATOR, budget, || SavedFilter::read_from(&mut input));
    assert!(
        matches!(result, Err(ReadError::TrailingBytes { expected }) if expected == end),
        "{result:?}"
    );
    assert_eq!(input.taken, end + 1, "read past the filter's end");

    // Forged with a valid checksum, under the same cap: counts no
    // sub-filter could hold, and growth parameters that would size the
    // next sub-filter at gigabytes over a first one of a few words.
    let mut counts = bytes.clone();
    counts[96 + 8..96 + 16].copy_from_slice(&u64::MAX.to_le_bytes());
    common::reseal(&mut counts);
    let small = AtomicGrowableBloom::builder()
        .capacity(1, 0.01)
        .layout(atomic_bloom::Layout::Standard)
        .build()
        .unwrap();
    let mut schedule = small.to_bytes().unwrap();
    schedule[48..56].copy_from_slice(&(1u64 << 30).to_le_bytes());
    schedule[64..72].copy_from_slice(&10f64.to_le_bytes());
    schedule[88..92].copy_from_slice(&2u32.to_le_bytes());
    schedule[96..104].copy_from_slice(&(1u64 << 30).to_le_bytes());
    common::reseal(&mut schedule);
    for forged in [&counts, &schedule] {
        let budget = 3 * forged.len() + GROWABLE_OVERHEAD;
        let sliced = common::capped(&ALLOCATOR, budget, || {
            AtomicGrowableBloom::from_bytes(forged)
        });
        assert!(
            matches!(sliced, Err(ReadError::InvalidChain(_))),
            "{sliced:?}"
        );
        let streamed = common::capped(&ALLOCATOR, budget, || {
            AtomicGrowableBloom::read_from(forged.as_slice())
        });
        assert!(
            matches!(streamed, Err(ReadError::InvalidChain(_))),
            "{streamed:?}"
        );
    }

    // The clean file reads back within the same budget.
    let back = common::capped(&ALLOCATOR, budget, || {
        AtomicGrowableBloom::read_from(bytes.as_slice())
    });
    assert_eq!(back.unwrap(), f);
}
