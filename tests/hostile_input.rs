//! A million mutated and forged inputs to the readers of every filter
//! kind: they never panic, never allocate beyond what the input holds,
//! and return either an error or exactly the filter the bytes describe.
//!
//! The process's allocator is capped (`cap`) around each read: from a byte
//! slice the reader may allocate at most the input's length plus 256 bytes
//! (the bit array's alignment padding), and for a growable filter
//! [`GROWABLE_OVERHEAD`] (each of at most 64 sub-filters' padding, node and
//! record); from a stream, three times the input more (the buffer, grown
//! as bytes arrive, and then the filter). A read
//! that asked for more would fail: the bit array with `AllocationFailed`,
//! which is asserted never to happen, any other allocation by aborting the
//! test. This file holds a single test so no other test allocates meanwhile.

mod common;

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, AtomicWindowedBloom, Layout, ReadError,
};
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

/// Heap a growable filter's reader may take beyond its input: per
/// sub-filter (at most 64) the bit array's padding and the chain's node,
/// and the list of where the records start.
const GROWABLE_OVERHEAD: usize = 64 * 512 + 4096;

/// Heap a windowed filter's reader may take beyond its input: the spare
/// generation, which the file does not hold (at most half of it, as a
/// file holds at least two generations), and per slot (at most 65) the bit
/// array's padding, the slot and the list of records.
fn windowed_budget(input: usize) -> usize {
    input / 2 + 65 * 1024 + 4096
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
            // Version 2's kind byte and reserved bytes too (in a version 1
            // file, the body's first bytes).
            let fields = [
                (8, 2),
                (10, 1),
                (11, 1),
                (12, 4),
                (16, 8),
                (24, 8),
                (32, 8),
                (40, 1),
                (41, 7),
            ];
            // A growable file's parameters and first record.
            let growable = [
                (48, 8),
                (56, 8),
                (64, 8),
                (72, 8),
                (80, 8),
                (88, 4),
                (92, 4),
                (96, 8),
                (104, 8),
                (112, 8),
                (120, 4),
                (124, 4),
            ];
            // A windowed file's parameters and state, and its newest
            // generation's record.
            let windowed = [
                (48, 8),
                (56, 8),
                (64, 8),
                (72, 1),
                (73, 1),
                (74, 2),
                (76, 4),
                (80, 8),
                (88, 8),
                (96, 8),
                (104, 8),
                (112, 8),
                (120, 8),
            ];
            let is_growable = original[8] == 2 && original[40] == 2;
            let is_windowed = original[8] == 2 && original[40] == 3;
            let (at, width) = if is_growable && rng.random_range(0..2u8) == 0 {
                growable[rng.random_range(0..growable.len())]
            } else if is_windowed && rng.random_range(0..2u8) == 0 {
                windowed[rng.random_range(0..windowed.len())]
            } else {
                fields[rng.random_range(0..fields.len())]
            };
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
            let header = if original[8] == 2 { 48 } else { 40 };
            let at = header + rng.random_range(0..bytes.len() - header - 8);
            bytes[at] ^= 1 << rng.random_range(0..8u8);
            common::reseal(&mut bytes);
            resealed = true;
        }
    }
    (bytes, resealed)
}

/// A filter the readers are given damaged copies of.
enum Original {
    Plain(AtomicBloom),
    Counting(AtomicCountingBloom),
    Growable(AtomicGrowableBloom),
    Windowed(Box<AtomicWindowedBloom>),
}

fn originals() -> Vec<Original> {
    let sizes = [(50, 0), (2_000, 9)];
    let plain = Layout::ALL.into_iter().flat_map(|layout| {
        sizes.map(|(items, seed)| Original::Plain(common::filled(layout, items, 0.01, seed)))
    });
    let counting = Layout::ALL.into_iter().map(|layout| {
        let f = AtomicCountingBloom::builder()
            .capacity(300, 0.01)
            .layout(layout)
            .seed(3)
            .build()
            .unwrap();
        for key in (0..300u64).chain(0..30) {
            f.insert(&key);
        }
        Original::Counting(f)
    });
    // Four sub-filters, and one (read back, it can still grow).
    let growable =
        [(Layout::Blocked, 20, 200), (Layout::Standard, 100, 50)].map(|(layout, n0, n)| {
            let f = AtomicGrowableBloom::builder()
                .capacity(n0, 0.01)
                .layout(layout)
                .seed(5)
                .build()
                .unwrap();
            f.insert_batch(0..n as u64).unwrap();
            Original::Growable(f)
        });
    // Windows of keys (a time window records the time it was written, so
    // it writes back other bytes): one new, one rotated past its first
    // generations.
    let windowed = [(Layout::Blocked, 0u32, 4), (Layout::Sectorized, 700, 2)].map(
        |(layout, keys, generations)| {
            let f = AtomicWindowedBloom::builder()
                .capacity(300, 0.01)
                .layout(layout)
                .generations(generations)
                .build()
                .unwrap();
            f.insert_batch(0..keys);
            Original::Windowed(Box::new(f))
        },
    );
    plain
        .chain(counting)
        .chain(growable)
        .chain(windowed)
        .collect()
}

/// What reading a mutated input gave.
enum Outcome {
    Rejected,
    Accepted,
}

/// One filter kind's readers and writer, and the heap its reader may take
/// beyond the input.
struct Reader<F> {
    from_bytes: fn(&[u8]) -> Result<F, ReadError>,
    read_from: fn(&[u8]) -> Result<F, ReadError>,
    to_bytes: fn(&F) -> Vec<u8>,
    /// Heap the reader may take beyond an input of this length.
    overhead: fn(usize) -> usize,
    /// The bytes a file must write back as: itself, but for a time
    /// window's times, which a rewrite measures anew.
    timeless: fn(&[u8]) -> Vec<u8>,
}

const PLAIN: Reader<AtomicBloom> = Reader {
    from_bytes: AtomicBloom::from_bytes,
    read_from: |b| AtomicBloom::read_from(b),
    to_bytes: |f| f.to_bytes().unwrap(),
    overhead: |_| 256,
    timeless: <[u8]>::to_vec,
};

const COUNTING: Reader<AtomicCountingBloom> = Reader {
    from_bytes: AtomicCountingBloom::from_bytes,
    read_from: |b| AtomicCountingBloom::read_from(b),
    to_bytes: |f| f.to_bytes().unwrap(),
    overhead: |_| 256,
    timeless: <[u8]>::to_vec,
};

const GROWABLE: Reader<AtomicGrowableBloom> = Reader {
    from_bytes: AtomicGrowableBloom::from_bytes,
    read_from: |b| AtomicGrowableBloom::read_from(b),
    to_bytes: |f| f.to_bytes().unwrap(),
    overhead: |_| GROWABLE_OVERHEAD,
    timeless: <[u8]>::to_vec,
};

const WINDOWED: Reader<AtomicWindowedBloom> = Reader {
    from_bytes: AtomicWindowedBloom::from_bytes,
    read_from: |b| AtomicWindowedBloom::read_from(b),
    to_bytes: |f| f.to_bytes().unwrap(),
    overhead: windowed_budget,
    timeless: windowed_timeless,
};

/// A windowed file with its times (when it was saved, each generation's
/// age) and checksum zeroed.
fn windowed_timeless(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let (num_bits, generations) = (word(16), word(76) as u32 as u64);
    out[96..104].fill(0);
    for age in 0..generations {
        let at = 112 + (age * (16 + num_bits / 8)) as usize;
        out[at + 8..at + 16].fill(0);
    }
    let end = out.len() - 8;
    out[end..].fill(0);
    out
}

/// Reads `input` with the slice reader of `F` (and, for one input in
/// sixteen, the stream reader) under the allocation caps, and checks the
/// result against the original it was mutated from.
fn judge<F: PartialEq + std::fmt::Debug>(
    n: usize,
    input: &[u8],
    resealed: bool,
    (original, encoded): (&F, &[u8]),
    reader: Reader<F>,
) -> Outcome {
    let Reader {
        from_bytes,
        read_from,
        to_bytes,
        overhead,
        timeless,
    } = reader;
    let result = capped(input.len() + overhead(input.len()), || from_bytes(input));
    if n.is_multiple_of(16) {
        let streamed = capped(3 * input.len() + overhead(input.len()), || read_from(input));
        if let Err(e @ ReadError::BufferAllocationFailed { .. }) = &streamed {
            panic!("input {n}: the stream reader buffered more than it holds: {e}")
        }
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
        Err(_) => Outcome::Rejected,
        Ok(filter) => {
            if resealed {
                // A consistent forgery is a valid file: it must describe
                // exactly this filter.
                assert_eq!(
                    timeless(&to_bytes(&filter)),
                    timeless(input),
                    "input {n}: accepted bytes do not round-trip"
                );
            } else {
                assert_eq!(input, encoded, "input {n}: damaged input accepted");
                assert_eq!(&filter, original);
            }
            Outcome::Accepted
        }
    }
}

#[test]
fn a_million_hostile_inputs() {
    const INPUTS: usize = 1_000_000;
    let originals = originals();
    let encoded: Vec<Vec<u8>> = originals
        .iter()
        .map(|f| match f {
            Original::Plain(f) => f.to_bytes().unwrap(),
            Original::Counting(f) => f.to_bytes().unwrap(),
            Original::Growable(f) => f.to_bytes().unwrap(),
            Original::Windowed(f) => f.to_bytes().unwrap(),
        })
        .collect();
    // The cap bites: a valid filter given too small a budget fails.
    let starved = capped(64, || AtomicBloom::from_bytes(&encoded[1]));
    assert!(
        matches!(starved, Err(ReadError::AllocationFailed(_))),
        "the allocation cap does not work"
    );
    // A fixed seed: every run mutates the same way.
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::XorShift);
    let (mut rejected, mut accepted) = (0usize, 0usize);
    let mut counting_accepted = 0usize;
    let mut growable_accepted = 0usize;
    let mut windowed_accepted = 0usize;
    for n in 0..INPUTS {
        let which = rng.random_range(0..originals.len());
        let (input, resealed) = mutate(&mut rng, &encoded[which]);
        let outcome = match &originals[which] {
            Original::Plain(f) => judge(n, &input, resealed, (f, &encoded[which]), PLAIN),
            Original::Counting(f) => judge(n, &input, resealed, (f, &encoded[which]), COUNTING),
            Original::Growable(f) => judge(n, &input, resealed, (f, &encoded[which]), GROWABLE),
            Original::Windowed(f) => judge(n, &input, resealed, (&**f, &encoded[which]), WINDOWED),
        };
        match outcome {
            Outcome::Rejected => rejected += 1,
            Outcome::Accepted => {
                accepted += 1;
                counting_accepted += usize::from(matches!(originals[which], Original::Counting(_)));
                growable_accepted += usize::from(matches!(originals[which], Original::Growable(_)));
                windowed_accepted += usize::from(matches!(originals[which], Original::Windowed(_)));
            }
        }
    }
    assert_eq!(rejected + accepted, INPUTS);
    // Most mutations break the file; body flips with a new checksum (a sixth)
    // and harmless header changes are accepted.
    assert!(rejected > INPUTS / 2, "only {rejected} rejected");
    assert!(accepted > INPUTS / 10, "only {accepted} accepted");
    assert!(
        counting_accepted > INPUTS / 40,
        "only {counting_accepted} counting files accepted"
    );
    assert!(
        growable_accepted > INPUTS / 200,
        "only {growable_accepted} growable files accepted"
    );
    assert!(
        windowed_accepted > INPUTS / 200,
        "only {windowed_accepted} windowed files accepted"
    );
}
