//! The counting filter in the file format: version 2, filter kind 1. It
//! round-trips through every reader with its counts, each kind of damage
//! the version adds has its own error, and the two kinds never read as
//! each other. (What both kinds share, the frame, checksum and hasher
//! checks, is `tests/all/persist.rs`; a million mutated counting files are in
//! `tests/hostile_input.rs`.)

use crate::common;

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, CounterArray, FilterKind, Layout, MAGIC, ReadError,
    WyBuildHasher,
};

/// A counting filter of `layout` holding keys `0..2000` once, `0..100` a
/// second time, with `1000..1500` removed again: counts of 0, 1 and 2.
fn sample(layout: Layout, seed: u64) -> AtomicCountingBloom {
    let f = AtomicCountingBloom::builder()
        .capacity(2_000, 0.01)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap();
    for key in (0..2_000u64).chain(0..100) {
        f.insert(&key);
    }
    for key in 1_000..1_500u64 {
        assert!(f.remove_unchecked(&key));
    }
    f
}

#[test]
fn counting_filters_round_trip_with_their_counts_through_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    for layout in Layout::ALL {
        for seed in [0, 0xDEAD_BEEF] {
            let f = sample(layout, seed);
            let bytes = f.to_bytes().unwrap();
            assert_eq!(&bytes[..8], &MAGIC);
            assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2, "version");
            assert_eq!(bytes[40], 1, "filter kind: counting");
            assert_eq!(bytes[41..48], [0; 7], "reserved");
            assert_eq!(bytes.len() as u64, 48 + f.num_bits() / 2 + 8);
            let path = dir.path().join(format!("{layout}-{seed}.bloom"));
            f.save(&path).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
            let readers = [
                AtomicCountingBloom::from_bytes(&bytes).unwrap(),
                AtomicCountingBloom::read_from(bytes.as_slice()).unwrap(),
                AtomicCountingBloom::load(&path).unwrap(),
            ];
            for back in readers {
                assert_eq!(back, f, "{layout}");
                assert_eq!(back.hasher().seed(), seed);
                assert_eq!(
                    back.to_bytes().unwrap(),
                    bytes,
                    "written back byte for byte"
                );
                // The counts came back, not only presence: a key inserted
                // twice survives one remove, and removing the rest leaves
                // every other key found.
                assert!((0..100u64).all(|k| back.count_of(&k) >= 2));
                assert!((0..100u64).all(|k| back.remove_unchecked(&k) && back.contains(&k)));
                assert!((1_500..2_000u64).all(|k| back.remove_unchecked(&k)));
                assert!((0..1_000u64).all(|k| back.contains(&k)));
            }
        }
    }
}

#[test]
fn the_kinds_never_read_as_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let counting = sample(Layout::Blocked, 0).to_bytes().unwrap();
    let plain = AtomicBloom::new(2_000, 0.01).unwrap().to_bytes().unwrap();
    let path = dir.path().join("counting");
    std::fs::write(&path, &counting).unwrap();
    for err in [
        AtomicBloom::from_bytes(&counting).unwrap_err(),
        AtomicBloom::read_from(counting.as_slice()).unwrap_err(),
        AtomicBloom::load(&path).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                ReadError::WrongKind {
                    written: FilterKind::Counting,
                    reading: FilterKind::Bloom
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string().contains("AtomicCountingBloom::load"),
            "{err}"
        );
    }
    for err in common::every_reader::<CounterArray>(dir.path(), "plain", &plain) {
        assert!(
            matches!(
                err,
                ReadError::WrongKind {
                    written: FilterKind::Bloom,
                    reading: FilterKind::Counting
                }
            ),
            "{err}"
        );
    }
    // A plain filter dressed as version 2 (kind 0, the header grown by the
    // eight bytes, resealed) is a second encoding no writer produces, and
    // refused: every accepted file writes back byte for byte.
    let mut dressed = plain[..40].to_vec();
    dressed[8] = 2;
    dressed.extend_from_slice(&[0; 8]);
    dressed.extend_from_slice(&plain[40..]);
    common::reseal(&mut dressed);
    assert!(matches!(
        AtomicBloom::from_bytes(&dressed),
        Err(ReadError::UnknownKind(0))
    ));
    assert!(matches!(
        FilterKind::of_header(&dressed),
        Err(ReadError::UnknownKind(0))
    ));
    // A damaged file of the other kind is damaged first: the kind is
    // judged only once the checksum vouches for the header.
    let mut damaged = counting.clone();
    damaged[100] ^= 1;
    assert!(matches!(
        AtomicBloom::from_bytes(&damaged),
        Err(ReadError::ChecksumMismatch { .. })
    ));
}

/// What a case's error must be.
type Expected = fn(&ReadError) -> bool;

#[test]
fn each_kind_of_damage_to_a_counting_file_has_its_own_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = sample(Layout::Word, 3).to_bytes().unwrap();
    let resealed = |at: usize, field: &[u8]| {
        let mut bytes = good.clone();
        bytes[at..at + field.len()].copy_from_slice(field);
        common::reseal(&mut bytes);
        bytes
    };
    let cases: Vec<(&str, Vec<u8>, Expected)> = vec![
        ("unknown kind", resealed(40, &[7]), |e| {
            matches!(e, ReadError::UnknownKind(7))
        }),
        ("reserved byte", resealed(45, &[1]), |e| {
            matches!(e, ReadError::ReservedBytes)
        }),
        // The kind byte set to 0: not a version 2 kind (plain filters are
        // version 1), said before anything is allocated.
        ("kind relabelled", resealed(40, &[0]), |e| {
            matches!(e, ReadError::UnknownKind(0))
        }),
        // Version 2 relabelled 1: a plain header, far too short a body.
        ("version relabelled", resealed(8, &[1]), |e| {
            matches!(e, ReadError::TrailingBytes { .. })
        }),
        ("cut in the kind header", good[..44].to_vec(), |e| {
            matches!(
                e,
                ReadError::Truncated {
                    expected: 48,
                    actual: 44
                }
            )
        }),
        ("cut in the body", good[..good.len() - 20].to_vec(), |e| {
            matches!(e, ReadError::Truncated { .. })
        }),
        ("trailing", [good.as_slice(), b"x"].concat(), |e| {
            matches!(e, ReadError::TrailingBytes { .. })
        }),
        (
            "reserved byte damaged",
            {
                let mut b = good.clone();
                b[41] ^= 2;
                b
            },
            |e| matches!(e, ReadError::ChecksumMismatch { .. }),
        ),
        (
            "counter damaged",
            {
                let mut b = good.clone();
                b[200] ^= 0x10;
                b
            },
            |e| matches!(e, ReadError::ChecksumMismatch { .. }),
        ),
    ];
    for (what, bytes, expected) in cases {
        for err in common::every_reader::<CounterArray>(dir.path(), what, &bytes) {
            assert!(expected(&err), "{what}: {err}");
        }
    }
}

#[test]
fn a_custom_hashers_counting_file_needs_that_hasher() {
    use std::hash::{BuildHasherDefault, DefaultHasher};
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let f = AtomicCountingBloom::builder()
        .bits(4096, 4)
        .hasher(hasher.clone())
        .build()
        .unwrap();
    f.insert("k");
    let bytes = f.to_bytes().unwrap();
    assert!(matches!(
        AtomicCountingBloom::from_bytes(&bytes),
        Err(ReadError::HasherMismatch { .. })
    ));
    assert!(matches!(
        AtomicCountingBloom::from_bytes_with_hasher(&bytes, WyBuildHasher::with_seed(0)),
        Err(ReadError::HasherMismatch { .. })
    ));
    let back = AtomicCountingBloom::from_bytes_with_hasher(&bytes, hasher).unwrap();
    assert_eq!(back.count_of("k"), 1);
}

/// A file written while other threads insert and remove is valid, and
/// holds every count that stood before the write began and was not
/// removed meanwhile.
#[test]
fn writes_racing_updates_give_valid_files() {
    let f = AtomicCountingBloom::new(100_000, 0.01).unwrap();
    for key in 0..10_000u64 {
        f.insert(&key);
    }
    let bytes = std::thread::scope(|s| {
        s.spawn(|| {
            for key in 10_000..60_000u64 {
                f.insert(&key);
                f.remove_unchecked(&(key - 5_000));
            }
        });
        f.to_bytes().unwrap()
    });
    let back = AtomicCountingBloom::from_bytes(&bytes).unwrap();
    assert!((0..5_000u64).all(|k| back.contains(&k)));
}
