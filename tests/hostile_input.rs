//! A million mutated and forged inputs to the reader: it never panics,
//! never allocates beyond what the input holds, and returns either an error
//! or exactly the filter the bytes describe.
//!
//! The process's allocator is capped (`cap`) around each read: from a byte
//! slice the reader may allocate at most the input's length plus 256 bytes
//! (the bit array's alignment padding); from a stream, three times the
//! input (the buffer, grown as bytes arrive, and then the filter). A read
//! that asked for more would fail: the bit array with `AllocationFailed`,
//! which is asserted never to happen, any other allocation by aborting the
//! test. This file holds a single test so no other test allocates meanwhile.

mod common;

use atomic_bloom::{AtomicBloom, Layout, ReadError};
use cap::Cap;
use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::alloc::System;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Runs `read` with at most `budget` more bytes of heap.
fn capped<T>(budget: usize, read: impl FnOnce() -> T) -> T {
    common::capped(&ALLOCATOR, budget, read)
}

/// Values a forger would put in a header field.
const EDGES: [u64; 10] = [
    0,
    1,
    63,
    64,
    512,
    u32::MAX as u64,
    1 << 40,
    1 << 43,
    (1 << 43) + 512,
    u64::MAX,
];

fn mutate(rng: &mut TestRng, original: &[u8]) -> (Vec<u8>, bool) {
    let mut bytes = original.to_vec();
    let mut resealed = false;
    match rng.random_range(0..6u8) {
        // Bit flips anywhere.
        0 => {
            for _ in 0..=rng.random_range(0..4u8) {
                let bit = rng.random_range(0..bytes.len() * 8);
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
        }
        // Truncation.
        1 => bytes.truncate(rng.random_range(0..bytes.len())),
        // Trailing garbage.
        2 => bytes.extend((0..=rng.random_range(0..16u8)).map(|_| rng.random::<u8>())),
        // A forged header field, checksum recomputed: the header checks
        // must stop it, or the result must be the filter it describes.
        3 => {
            let value = if rng.random_range(0..2u8) == 0 {
                EDGES[rng.random_range(0..EDGES.len())]
            } else {
                rng.random::<u64>()
            };
            let (at, width) = [(8, 2), (10, 1), (11, 1), (12, 4), (16, 8), (24, 8), (32, 8)]
                [rng.random_range(0..7usize)];
            bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            common::reseal(&mut bytes);
            resealed = true;
        }
        // Random bytes, sometimes behind a valid magic.
        4 => {
            bytes = (0..rng.random_range(0..300usize))
                .map(|_| rng.random::<u8>())
                .collect();
            if rng.random_range(0..2u8) == 0 && bytes.len() >= 8 {
                bytes[..8].copy_from_slice(&atomic_bloom::MAGIC);
            }
        }
        // Changed bits, checksum recomputed: a valid, different filter.
        _ => {
            let at = 40 + rng.random_range(0..bytes.len() - 48);
            bytes[at] ^= 1 << rng.random_range(0..8u8);
            common::reseal(&mut bytes);
            resealed = true;
        }
    }
    (bytes, resealed)
}

fn originals() -> Vec<AtomicBloom> {
    let sizes = [(50, 0), (2_000, 9)];
    Layout::ALL
        .into_iter()
        .flat_map(|layout| sizes.map(|(items, seed)| common::filled(layout, items, 0.01, seed)))
        .collect()
}

#[test]
fn a_million_hostile_inputs() {
    const INPUTS: usize = 1_000_000;
    let originals = originals();
    let encoded: Vec<Vec<u8>> = originals.iter().map(|f| f.to_bytes().unwrap()).collect();
    // The cap bites: a valid filter given too small a budget fails.
    let starved = capped(64, || AtomicBloom::from_bytes(&encoded[1]));
    assert!(
        matches!(starved, Err(ReadError::AllocationFailed(_))),
        "the allocation cap does not work"
    );
    // A fixed seed: every run mutates the same way.
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::XorShift);
    let (mut rejected, mut accepted) = (0usize, 0usize);
    for n in 0..INPUTS {
        let which = rng.random_range(0..originals.len());
        let (input, resealed) = mutate(&mut rng, &encoded[which]);
        let result = capped(input.len() + 256, || AtomicBloom::from_bytes(&input));
        if n % 16 == 0 {
            let streamed = capped(3 * input.len() + 256, || {
                AtomicBloom::read_from(input.as_slice())
            });
            assert_eq!(
                streamed.is_ok(),
                result.is_ok(),
                "stream and slice disagree on input {n}"
            );
        }
        match result {
            Err(ReadError::AllocationFailed(e)) => {
                panic!("input {n}: tried to allocate more than it holds: {e}")
            }
            Err(_) => rejected += 1,
            Ok(filter) => {
                accepted += 1;
                if resealed {
                    // A consistent forgery is a valid file: it must describe
                    // exactly this filter.
                    assert_eq!(
                        filter.to_bytes().unwrap(),
                        input,
                        "input {n}: accepted bytes do not round-trip"
                    );
                } else {
                    assert_eq!(input, encoded[which], "input {n}: damaged input accepted");
                    assert_eq!(filter, originals[which]);
                }
            }
        }
    }
    assert_eq!(rejected + accepted, INPUTS);
    // Most mutations break the file; body flips with a new checksum (a sixth)
    // and harmless header changes are accepted.
    assert!(rejected > INPUTS / 2, "only {rejected} rejected");
    assert!(accepted > INPUTS / 10, "only {accepted} accepted");
}
