//! `Layout::SplitBlock` puts a hash's bits where Apache Parquet's split
//! block Bloom filter puts them, so that a filter built from Parquet's
//! hashes (XXH64, seed 0, of a value's plain encoding) is a Parquet filter.

use atomic_bloom::{AtomicBloom, BuildError, Layout, Sizing, WyBuildHasher};
use xxhash_rust::xxh64::xxh64;

/// A one-block bitset that parquet-mr (through Spark) wrote for the
/// strings `"a0"` to `"a9"`; arrow-rs reads it in its test
/// `test_with_fixture` (`parquet/src/bloom_filter/mod.rs`).
const PARQUET_MR_BITSET: [u8; 32] = [
    200, 1, 80, 20, 64, 68, 8, 109, 6, 37, 4, 67, 144, 80, 96, 32, 8, 132, 43, 33, 0, 5, 99, 65, 2,
    0, 224, 44, 64, 78, 96, 4,
];

fn split_block(num_bits: u64) -> AtomicBloom {
    AtomicBloom::builder()
        .bits(num_bits, 8)
        .layout(Layout::SplitBlock)
        .build()
        .unwrap()
}

fn bytes(filter: &AtomicBloom) -> Vec<u8> {
    filter.words().flat_map(u64::to_le_bytes).collect()
}

#[test]
fn parquet_writers_bits_for_the_same_hashes() {
    let filter = split_block(256);
    for i in 0..10 {
        filter.insert_hash(xxh64(format!("a{i}").as_bytes(), 0));
    }
    assert_eq!(bytes(&filter), PARQUET_MR_BITSET);
}

/// With more blocks, each hash lands in the block Parquet's
/// `((h >> 32) * blocks) >> 32` names, with the same bits as in one block.
#[test]
fn the_high_half_of_the_hash_picks_the_block() {
    let blocks = 1000u64;
    let filter = split_block(256 * blocks);
    for i in 0..200u64 {
        let hash = xxh64(&i.to_le_bytes(), 0);
        let alone = split_block(256);
        alone.insert_hash(hash);
        filter.clear();
        filter.insert_hash(hash);
        let block = (((hash >> 32) * blocks) >> 32) as usize;
        let words: Vec<u64> = filter.words().collect();
        assert!(
            words
                .iter()
                .enumerate()
                .all(|(w, &v)| (v != 0) == (w / 4 == block))
        );
        assert!(
            words[block * 4..block * 4 + 4]
                .iter()
                .copied()
                .eq(alone.words())
        );
    }
}

/// A bitset Parquet wrote loads, as words, into a filter that answers as
/// Parquet's: it finds the written values by their Parquet hashes.
#[test]
fn a_parquet_writers_bitset_loads_as_words() {
    let words = PARQUET_MR_BITSET
        .chunks_exact(8)
        .map(|le| u64::from_le_bytes(le.try_into().unwrap()));
    let sizing = Sizing::for_bits(Layout::SplitBlock, 256, 8).unwrap();
    let filter = AtomicBloom::from_words(sizing, WyBuildHasher::default(), words).unwrap();
    assert_eq!(bytes(&filter), PARQUET_MR_BITSET);
    for i in 0..10 {
        assert!(
            filter.contains_hash(xxh64(format!("a{i}").as_bytes(), 0)),
            "a{i}"
        );
    }
    assert!(!filter.contains_hash(xxh64(b"b0", 0)));
}

/// Too few or too many words are a typed error, and an endless source is
/// read no further than one word past the sizing.
#[test]
fn words_of_another_count_are_typed_errors() {
    let sizing = Sizing::for_bits(Layout::SplitBlock, 512, 8).unwrap();
    let load = |words: Vec<u64>| AtomicBloom::from_words(sizing, WyBuildHasher::default(), words);
    assert_eq!(
        load(vec![0; 7]).unwrap_err(),
        BuildError::WordCount {
            expected: 8,
            got: 7
        }
    );
    assert_eq!(
        load(vec![0; 9]).unwrap_err(),
        BuildError::WordCount {
            expected: 8,
            got: 9
        }
    );
    assert!(load(vec![u64::MAX; 8]).unwrap().contains_hash(1));
    let endless = AtomicBloom::from_words(sizing, WyBuildHasher::default(), std::iter::repeat(1));
    assert_eq!(
        endless.unwrap_err(),
        BuildError::WordCount {
            expected: 8,
            got: 9
        }
    );
}

/// `k` is always 8, and at most 2^32 blocks.
#[test]
fn other_sizes_are_typed_errors() {
    let build = |bits, k| {
        AtomicBloom::builder()
            .bits(bits, k)
            .layout(Layout::SplitBlock)
            .build()
    };
    assert!(matches!(
        build(256, 7),
        Err(BuildError::NumHashesFixedByLayout {
            required: 8,
            got: 7,
            ..
        })
    ));
    assert!(matches!(
        build((1 << 40) + 256, 8),
        Err(BuildError::TooLarge { max_bits, .. }) if max_bits == 1 << 40
    ));
    // Sized for a rate, it takes 8 whatever the rate.
    for p in [0.3, 0.01, 1e-6] {
        let f = AtomicBloom::builder()
            .capacity(1000, p)
            .layout(Layout::SplitBlock)
            .build()
            .unwrap();
        assert_eq!(f.num_hashes(), 8);
        assert_eq!(f.num_bits() % 256, 0);
    }
}
