//! Golden files: small filters committed under `tests/golden/`, plain ones
//! in format version 1 and counting ones in version 2. Reading them checks that old files stay readable
//! and mean the same keys; writing the same filters today must give the
//! same bytes. A change that breaks either fails here: it needs a new
//! format version, not an edited golden file.
//!
//! `cargo test --test golden -- --ignored` rewrites them (only for a new
//! format version, kept beside the old ones).
//!
//! Their keys were inserted as `&str` when `insert` hashed a `str` by its
//! `Hash` impl; `Hashed` is that encoding's explicit path now, so the same
//! keys reach the same bits (a `&str` itself is the byte encoding today).

use atomic_bloom::{AtomicBloom, AtomicCountingBloom, Hashed, Layout};
use std::path::PathBuf;

struct Golden {
    file: &'static str,
    layout: Layout,
    fpp: f64,
    seed: u64,
    num_bits: u64,
    num_hashes: u32,
}

const GOLDEN: [Golden; 6] = [
    Golden {
        file: "v1-standard.abf",
        layout: Layout::Standard,
        fpp: 0.01,
        seed: 0,
        num_bits: 960,
        num_hashes: 7,
    },
    Golden {
        file: "v1-blocked.abf",
        layout: Layout::Blocked,
        fpp: 0.01,
        seed: 0,
        num_bits: 1024,
        num_hashes: 7,
    },
    Golden {
        file: "v1-word.abf",
        layout: Layout::Word,
        fpp: 0.01,
        seed: 0,
        num_bits: 1216,
        num_hashes: 6,
    },
    Golden {
        file: "v1-blocked-seeded.abf",
        layout: Layout::Blocked,
        fpp: 0.001,
        seed: 0xC0FFEE,
        num_bits: 2048,
        num_hashes: 10,
    },
    Golden {
        file: "v1-sectorized.abf",
        layout: Layout::Sectorized,
        fpp: 0.01,
        seed: 0,
        num_bits: 1536,
        num_hashes: 7,
    },
    Golden {
        file: "v1-split-block.abf",
        layout: Layout::SplitBlock,
        fpp: 0.01,
        seed: 0,
        num_bits: 1280,
        num_hashes: 8,
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
        // Keys map to the same bits as when the file was written.
        assert_eq!(f, build(g), "{}: bits differ from today's build", g.file);
        // And today's writer produces the same bytes.
        assert_eq!(
            build(g).to_bytes().unwrap(),
            bytes,
            "{}: writer output changed",
            g.file
        );
    }
}

/// Counting filters at p = 1%, seed 0, one per layout.
const COUNTING_GOLDEN: [(&str, Layout); 5] = [
    ("v2-counting-standard.abf", Layout::Standard),
    ("v2-counting-blocked.abf", Layout::Blocked),
    ("v2-counting-word.abf", Layout::Word),
    ("v2-counting-sectorized.abf", Layout::Sectorized),
    ("v2-counting-split-block.abf", Layout::SplitBlock),
];

/// Keys `golden-0..100` inserted, `golden-0..10` a second time, and
/// `golden-90..100` removed: counters of 0, 1, 2 and more.
fn build_counting(layout: Layout) -> AtomicCountingBloom {
    let f = AtomicCountingBloom::builder()
        .capacity(KEYS, 0.01)
        .layout(layout)
        .build()
        .unwrap();
    for i in (0..KEYS).chain(0..10) {
        f.insert(&Hashed(format!("golden-{i}").as_str()));
    }
    for i in 90..KEYS {
        assert!(f.remove(&Hashed(format!("golden-{i}").as_str())));
    }
    f
}

#[test]
fn counting_golden_files_read_back_with_their_counts() {
    for (file, layout) in COUNTING_GOLDEN {
        let bytes = std::fs::read(path(file)).unwrap();
        let f = AtomicCountingBloom::from_bytes(&bytes).unwrap();
        let plain = AtomicBloom::builder()
            .capacity(KEYS, 0.01)
            .layout(layout)
            .build()
            .unwrap();
        assert_eq!(f.sizing(), plain.sizing(), "{file}");
        assert!(
            (0..10).all(|i| f.count_of(&Hashed(format!("golden-{i}").as_str())) >= 2),
            "{file}: a count is missing"
        );
        assert!(
            (0..90).all(|i| f.contains(&Hashed(format!("golden-{i}").as_str()))),
            "{file}: key missing"
        );
        // Keys map to the same counters as when the file was written, and
        // today's writer produces the same bytes.
        assert_eq!(f, build_counting(layout), "{file}: counters differ");
        assert_eq!(
            build_counting(layout).to_bytes().unwrap(),
            bytes,
            "{file}: writer output changed"
        );
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

#[test]
#[ignore = "rewrites tests/golden/: only for a new format version"]
fn regenerate_golden_files() {
    for g in &GOLDEN {
        build(g).save(path(g.file)).unwrap();
    }
    for (file, layout) in COUNTING_GOLDEN {
        build_counting(layout).save(path(file)).unwrap();
    }
    build_mixed().save(path("v1-mixed-keys.abf")).unwrap();
}
