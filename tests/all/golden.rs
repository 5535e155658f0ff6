//! Golden files: small filters committed under `tests/golden/`, plain ones
//! in format version 1, counting ones in version 2, shared files of both in
//! version 3. Reading them checks that old files stay readable
//! and mean the same keys; writing the same filters today must give the
//! same bytes. A change that breaks either fails here: it needs a new
//! format version, not an edited golden file.
//!
//! `cargo test --test all golden:: -- --ignored` rewrites them (only for a new
//! format version, kept beside the old ones).
//!
//! Their keys were inserted as `&str` when `insert` hashed a `str` by its
//! `Hash` impl; `Hashed` is that encoding's explicit path now, so the same
//! keys reach the same bits (a `&str` itself is the byte encoding today).

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, Hashed, HasherId, IncompatibleError, Layout, ParquetHasher,
    ReadError, SavedFilter,
};
use std::path::PathBuf;
use xxhash_rust::xxh64::xxh64;

struct Golden {
    file: &'static str,
    layout: Layout,
    fpp: f64,
    seed: u64,
    num_bits: u64,
    num_hashes: u32,
    /// Whether a filter built today places its bits as the file does: not
    /// so for `Standard` files written before enhanced double hashing.
    today: bool,
}

const GOLDEN: [Golden; 7] = [
    Golden {
        file: "v1-standard.abf",
        layout: Layout::Standard,
        fpp: 0.01,
        seed: 0,
        num_bits: 960,
        num_hashes: 7,
        today: false,
    },
    Golden {
        file: "v1-blocked.abf",
        layout: Layout::Blocked,
        fpp: 0.01,
        seed: 0,
        num_bits: 1024,
        num_hashes: 7,
        today: true,
    },
    Golden {
        file: "v1-word.abf",
        layout: Layout::Word,
        fpp: 0.01,
        seed: 0,
        num_bits: 1216,
        num_hashes: 6,
        today: true,
    },
    Golden {
        file: "v1-blocked-seeded.abf",
        layout: Layout::Blocked,
        fpp: 0.001,
        seed: 0xC0FFEE,
        num_bits: 2048,
        num_hashes: 10,
        today: true,
    },
    Golden {
        file: "v1-sectorized.abf",
        layout: Layout::Sectorized,
        fpp: 0.01,
        seed: 0,
        num_bits: 1536,
        num_hashes: 7,
        today: true,
    },
    Golden {
        file: "v1-split-block.abf",
        layout: Layout::SplitBlock,
        fpp: 0.01,
        seed: 0,
        num_bits: 1280,
        num_hashes: 8,
        today: true,
    },
    Golden {
        file: "v1-standard-double-hashing.abf",
        layout: Layout::Standard,
        fpp: 0.01,
        seed: 0,
        num_bits: 960,
        num_hashes: 7,
        today: true,
    },
];

const KEYS: usize = 100;

fn path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

fn build(g: &Golden) -> AtomicBloom {
    let f = AtomicBloom::builder()
        .capacity(KEYS, g.fpp)
        .layout(g.layout)
        .seed(g.seed)
        .build()
        .unwrap();
    for i in 0..KEYS {
        f.insert(&Hashed(format!("golden-{i}").as_str()));
    }
    f
}

#[test]
fn golden_files_read_back_with_their_parameters_and_keys() {
    for g in &GOLDEN {
        let bytes = std::fs::read(path(g.file)).unwrap();
        let f = AtomicBloom::from_bytes(&bytes).unwrap();
        assert_eq!(
            (f.layout(), f.num_bits(), f.num_hashes()),
            (g.layout, g.num_bits, g.num_hashes),
            "{}",
            g.file
        );
        assert_eq!(f.hasher().seed(), g.seed, "{}", g.file);
        assert!(
            (0..KEYS).all(|i| f.contains(&Hashed(format!("golden-{i}").as_str()))),
            "{}: key missing",
            g.file
        );
        // Keys map to the same bits as when the file was written: the
        // filter emptied and filled again is the file's.
        let again = f.try_clone().unwrap();
        again.clear();
        for i in 0..KEYS {
            again.insert(&Hashed(format!("golden-{i}").as_str()));
        }
        assert_eq!(again, f, "{}: keys moved", g.file);
        // It writes back byte for byte.
        assert_eq!(
            f.to_bytes().unwrap(),
            bytes,
            "{}: write-back differs",
            g.file
        );
        // And a filter built today from the same keys is the file, where
        // today's placement is the file's.
        if g.today {
            assert_eq!(build(g), f, "{}: bits differ from today's build", g.file);
        } else {
            // Its keys' bits are elsewhere: combining the two would lose
            // keys, so it is refused with the reason.
            assert_eq!(
                f.union(&build(g)),
                Err(IncompatibleError::Positions),
                "{}",
                g.file
            );
        }
    }
}

/// Counting filters at p = 1%, seed 0, one per layout, and whether a
/// filter built today places its counters as the file does (not so for
/// `Standard` files written before enhanced double hashing).
const COUNTING_GOLDEN: [(&str, Layout, bool); 6] = [
    ("v2-counting-standard.abf", Layout::Standard, false),
    ("v2-counting-blocked.abf", Layout::Blocked, true),
    ("v2-counting-word.abf", Layout::Word, true),
    ("v2-counting-sectorized.abf", Layout::Sectorized, true),
    ("v2-counting-split-block.abf", Layout::SplitBlock, true),
    (
        "v2-counting-standard-double-hashing.abf",
        Layout::Standard,
        true,
    ),
];

/// Keys `golden-0..100` inserted, `golden-0..10` a second time, and
/// `golden-90..100` removed: counters of 0, 1, 2 and more.
fn build_counting(layout: Layout) -> AtomicCountingBloom {
    let f = AtomicCountingBloom::builder()
        .capacity(KEYS, 0.01)
        .layout(layout)
        .build()
        .unwrap();
    fill_counting(f)
}

/// `f` with the keys of [`build_counting`] inserted and removed.
fn fill_counting(f: AtomicCountingBloom) -> AtomicCountingBloom {
    for i in (0..KEYS).chain(0..10) {
        f.insert(&Hashed(format!("golden-{i}").as_str()));
    }
    for i in 90..KEYS {
        assert!(f.remove_unchecked(&Hashed(format!("golden-{i}").as_str())));
    }
    f
}

#[test]
fn counting_golden_files_read_back_with_their_counts() {
    for (file, layout, today) in COUNTING_GOLDEN {
        let bytes = std::fs::read(path(file)).unwrap();
        let f = AtomicCountingBloom::from_bytes(&bytes).unwrap();
        let plain = AtomicBloom::builder()
            .capacity(KEYS, 0.01)
            .layout(layout)
            .build()
            .unwrap();
        assert_eq!(
            (f.layout(), f.num_bits(), f.num_hashes()),
            (layout, plain.num_bits(), plain.num_hashes()),
            "{file}"
        );
        assert!(
            (0..10).all(|i| f.count_of(&Hashed(format!("golden-{i}").as_str())) >= 2),
            "{file}: a count is missing"
        );
        assert!(
            (0..90).all(|i| f.contains(&Hashed(format!("golden-{i}").as_str()))),
            "{file}: key missing"
        );
        // Keys map to the same counters as when the file was written: the
        // filter emptied and filled again is the file's, and it writes
        // back byte for byte.
        let again = f.try_clone().unwrap();
        again.clear();
        assert_eq!(fill_counting(again), f, "{file}: counters moved");
        assert_eq!(f.to_bytes().unwrap(), bytes, "{file}: write-back differs");
        // A filter built today is the file, where today's placement is
        // the file's.
        if today {
            assert_eq!(
                build_counting(layout),
                f,
                "{file}: counters differ from today's"
            );
        } else {
            assert!(!f.is_compatible(&build_counting(layout)), "{file}");
        }
    }
}

/// Every kind of key another language hands over, in the library's two
/// stable encodings: strings as bytes (`insert` of a `String`), and 64-bit
/// integers, unsigned ones past `i64::MAX` and negative ones among them
/// (`insert(&n)`). The Python package's tests build the same filter from
/// `str` and `int` keys and compare bytes with `v1-mixed-keys.abf`.
fn build_mixed() -> AtomicBloom {
    let f = AtomicBloom::builder()
        .capacity(300, 0.01)
        .seed(42)
        .build()
        .unwrap();
    for i in 0..100u64 {
        f.insert(&format!("key-{i}"));
        f.insert(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        f.insert(&(-(i as i64) - 1));
    }
    f
}

#[test]
fn mixed_keys_golden_file_is_what_the_encodings_give() {
    let bytes = std::fs::read(path("v1-mixed-keys.abf")).unwrap();
    assert_eq!(build_mixed().to_bytes().unwrap(), bytes);
    let f = AtomicBloom::from_bytes(&bytes).unwrap();
    assert!(f.contains("key-99"));
    assert!(f.contains(&99u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    // An i64 and the u64 of the same 64 bits are one key.
    assert!(f.contains(&(-100i64)) && f.contains(&(-100i64 as u64)));
}

/// A split block filter as a Parquet writer fills it: string, INT32 and
/// INT64 values hashed by `ParquetHasher` (XXH64, seed 0, of the plain
/// encoding), as a filter imported from a Parquet file is saved.
fn build_parquet() -> AtomicBloom<ParquetHasher> {
    let f = AtomicBloom::builder()
        .capacity(300, 0.01)
        .layout(Layout::SplitBlock)
        .hasher(ParquetHasher)
        .build()
        .unwrap();
    for i in 0..100i32 {
        f.insert(&format!("key-{i}"));
        f.insert(&i);
        f.insert(&(-i64::from(i) - 1));
    }
    f
}

#[test]
fn parquet_hashed_golden_file_answers_with_parquets_hash() {
    let bytes = std::fs::read(path("v1-split-block-parquet.abf")).unwrap();
    assert_eq!(build_parquet().to_bytes().unwrap(), bytes);
    let SavedFilter::Parquet(f) = SavedFilter::from_bytes(&bytes).unwrap() else {
        panic!("not read as a Parquet-hashed filter");
    };
    for i in 0..100i32 {
        let key = format!("key-{i}");
        assert!(f.contains(&key));
        assert!(f.contains_hash(xxh64(key.as_bytes(), 0)), "{key}");
        assert!(f.contains_hash(xxh64(&i.to_le_bytes(), 0)));
        assert!(f.contains_hash(xxh64(&(-i64::from(i) - 1).to_le_bytes(), 0)));
    }
    // The default reader never answers it with wyhash.
    assert!(matches!(
        AtomicBloom::from_bytes(&bytes),
        Err(ReadError::HasherMismatch {
            written: HasherId::Parquet,
            ..
        })
    ));
}

#[test]
#[ignore = "rewrites tests/golden/: only for a new format version"]
fn regenerate_golden_files() {
    for g in GOLDEN.iter().filter(|g| g.today) {
        build(g).save(path(g.file)).unwrap();
    }
    for (file, layout, _) in COUNTING_GOLDEN.iter().filter(|g| g.2) {
        build_counting(*layout).save(path(file)).unwrap();
    }
    build_mixed().save(path("v1-mixed-keys.abf")).unwrap();
    build_parquet()
        .save(path("v1-split-block-parquet.abf"))
        .unwrap();
    #[cfg(target_os = "linux")]
    {
        let (plain, counting) = shared_golden();
        plain
            .to_shared(path(SHARED_GOLDEN.0))
            .unwrap()
            .close()
            .unwrap();
        counting
            .to_shared(path(SHARED_GOLDEN.1))
            .unwrap()
            .close()
            .unwrap();
    }
}

/// Shared files (version 3), sealed: the filters of `v1-blocked.abf` and
/// `v2-counting-blocked.abf`, as `to_shared` writes them and their last
/// writer's close seals them.
const SHARED_GOLDEN: (&str, &str) = ("v3-shared-blocked.abf", "v3-shared-counting-blocked.abf");

fn shared_golden() -> (AtomicBloom, AtomicCountingBloom) {
    (build(&GOLDEN[1]), build_counting(Layout::Blocked))
}

#[test]
#[cfg(target_os = "linux")]
fn shared_golden_files_load_open_and_are_what_a_shared_copy_seals() {
    use atomic_bloom::SharedOptions;
    let (plain, counting) = shared_golden();
    let dir = tempfile::tempdir().unwrap();
    let (golden, copy) = (path(SHARED_GOLDEN.0), dir.path().join("plain"));
    assert_eq!(AtomicBloom::load(&golden).unwrap(), plain);
    assert_eq!(
        AtomicBloom::open_shared(&golden, SharedOptions::read_only()).unwrap(),
        plain
    );
    plain.to_shared(&copy).unwrap().close().unwrap();
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&golden).unwrap()
    );
    let (golden, copy) = (path(SHARED_GOLDEN.1), dir.path().join("counting"));
    assert_eq!(AtomicCountingBloom::load(&golden).unwrap(), counting);
    assert_eq!(
        AtomicCountingBloom::open_shared(&golden, SharedOptions::read_only()).unwrap(),
        counting
    );
    counting.to_shared(&copy).unwrap().close().unwrap();
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&golden).unwrap()
    );
}
