//! What `AtomicBloom` is measured against: a plain (non-atomic) filter of
//! the same layout behind a `Mutex`, an `RwLock` and 16 sharded mutexes;
//! fastbloom's `AtomicBloomFilter` with the same hasher; and physical-limit
//! probes that do the least any filter must do per key. Shared by
//! `benches/throughput.rs` and the CLI (`bench`, `demo`).
//!
//! The crate's only `unsafe` code is in `hints.rs` (a prefetch and a
//! huge-page request), each block with its safety argument.

mod hints;

use atomic_bloom::{Layout, Sizing, WyBuildHasher};
use hints::{advise_huge_pages, prefetch};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, RwLock};

/// A plain Bloom filter with the `Blocked` layout's access pattern (one
/// 512-bit block per key, `k` bits in it), for the lock-based baselines.
/// Its blocks are cache lines, as the atomic filter's are, so a key costs
/// both the same one line.
pub struct PlainBlocked {
    lines: Vec<Line>,
    num_hashes: u32,
    hasher: WyBuildHasher,
}

impl PlainBlocked {
    /// Sized for `items` keys at rate `fpp`, as `AtomicBloom`'s `Blocked`
    /// layout would be.
    pub fn new(items: usize, fpp: f64) -> Self {
        let sizing = Sizing::for_rate(Layout::Blocked, items, fpp).unwrap();
        PlainBlocked {
            lines: vec![Line([0; 8]); (sizing.num_bits() / 512) as usize],
            num_hashes: sizing.num_hashes(),
            hasher: WyBuildHasher::default(),
        }
    }

    fn locate(&self, key: &(impl Hash + ?Sized)) -> (usize, [u64; 8]) {
        let hash = self.hasher.hash_one(key);
        let lines = self.lines.len() as u64;
        let line = ((u128::from(hash) * u128::from(lines)) >> 64) as usize;
        let mut masks = [0u64; 8];
        let mut r = hash;
        for i in 0..self.num_hashes {
            if i % 7 == 0 {
                r = mix(hash.wrapping_add(u64::from(i / 7 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            }
            let bit = r & 511;
            masks[(bit >> 6) as usize] |= 1 << (bit & 63);
            r >>= 9;
        }
        (line, masks)
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.lines.fill(Line([0; 8]));
    }

    /// Inserts `key`; whether a bit was new.
    pub fn insert(&mut self, key: &(impl Hash + ?Sized)) -> bool {
        let (line, masks) = self.locate(key);
        let mut new = false;
        for (word, mask) in self.lines[line].0.iter_mut().zip(masks) {
            new |= *word & mask != mask;
            *word |= mask;
        }
        new
    }

    /// Whether `key` may be in.
    pub fn contains(&self, key: &(impl Hash + ?Sized)) -> bool {
        let (line, masks) = self.locate(key);
        self.lines[line]
            .0
            .iter()
            .zip(masks)
            .all(|(w, m)| w & m == m)
    }
}

/// 64 bytes on a 64-byte boundary: one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// The splitmix64 finalizer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 16 plain filters, each behind its own mutex; a key's shard comes from
/// its hash, so threads contend only when they hit the same shard.
pub struct Sharded {
    shards: Vec<Mutex<PlainBlocked>>,
    hasher: WyBuildHasher,
}

impl Sharded {
    /// 16 shards, each sized for a sixteenth of `items`.
    pub fn new(items: usize, fpp: f64) -> Self {
        let shards = (0..16)
            .map(|_| Mutex::new(PlainBlocked::new(items / 16 + 1, fpp)))
            .collect();
        Sharded {
            shards,
            hasher: WyBuildHasher::with_seed(1),
        }
    }

    fn shard(&self, key: &(impl Hash + ?Sized)) -> &Mutex<PlainBlocked> {
        &self.shards[(self.hasher.hash_one(key) >> 60) as usize]
    }
}

/// The plain filter behind one `Mutex`.
pub type MutexFilter = Mutex<PlainBlocked>;
/// The plain filter behind one `RwLock`.
pub type RwLockFilter = RwLock<PlainBlocked>;

/// What the lock-based baselines share: a plain filter's insert and clear
/// through `&self`, each taking its lock (a `Mutex`, an `RwLock`'s write
/// lock, or one of 16 shards' mutexes). Generic callers keep the calls
/// static, so no baseline pays for dynamic dispatch the filter does not.
pub trait Locked: Sync {
    /// Inserts `key` under the lock; whether a bit was new.
    fn insert(&self, key: &(impl Hash + ?Sized)) -> bool;
    /// Removes every key, under the lock(s).
    fn clear(&self);
}

impl Locked for MutexFilter {
    fn insert(&self, key: &(impl Hash + ?Sized)) -> bool {
        self.lock().unwrap().insert(key)
    }

    fn clear(&self) {
        self.lock().unwrap().clear();
    }
}

impl Locked for RwLockFilter {
    fn insert(&self, key: &(impl Hash + ?Sized)) -> bool {
        self.write().unwrap().insert(key)
    }

    fn clear(&self) {
        self.write().unwrap().clear();
    }
}

impl Locked for Sharded {
    fn insert(&self, key: &(impl Hash + ?Sized)) -> bool {
        self.shard(key).lock().unwrap().insert(key)
    }

    fn clear(&self) {
        self.shards
            .iter()
            .for_each(|shard| shard.lock().unwrap().clear());
    }
}

/// fastbloom 0.17's atomic filter, hashed with the same wyhash.
pub fn fastbloom(items: usize, fpp: f64) -> fastbloom::AtomicBloomFilter<WyBuildHasher> {
    fastbloom::AtomicBloomFilter::with_false_pos(fpp)
        .hasher(WyBuildHasher::default())
        .expected_items(items)
}

/// The physical-limit probes: an atomic array of the filter's size, and
/// the least work any filter does per key on it.
pub struct Probe {
    /// `start` words of padding, then `len` words from a 64-byte boundary,
    /// so that 8-word groups are cache lines as the filter's blocks are.
    words: Vec<AtomicU64>,
    start: usize,
    len: usize,
    hasher: WyBuildHasher,
}

impl Probe {
    /// An array of `bytes` bytes, on huge pages where the filters are
    /// (Linux), every page written once so that it is mapped. (An array
    /// of zeros would come from `calloc`, and loads from its untouched pages
    /// all read the kernel's one zero page, a cache hit: a "DRAM" load
    /// probe measured that way ran 3x too fast.)
    pub fn new(bytes: usize) -> Self {
        let len = bytes / 8;
        let mut words = Vec::with_capacity(len + 7);
        advise_huge_pages(words.spare_capacity_mut());
        words.extend((0..len as u64 + 7).map(AtomicU64::new));
        let start = (64 - words.as_ptr() as usize % 64) % 64 / 8;
        Probe {
            words,
            start,
            len,
            hasher: WyBuildHasher::default(),
        }
    }

    /// Word `i` of the aligned array.
    fn at(&self, i: usize) -> &AtomicU64 {
        &self.words[self.start + i]
    }

    /// A random word for `key`, and a bit in it.
    fn word(&self, key: u64) -> (usize, u64) {
        let hash = self.hasher.hash_one(key);
        let index = ((u128::from(hash) * self.len as u128) >> 64) as usize;
        (index, 1 << (hash & 63))
    }

    /// The first word of a random 8-word group for `key`, and a bit.
    fn line(&self, key: u64) -> (usize, u64) {
        let (index, bit) = self.word(key);
        (index & !7, bit)
    }

    /// Hash each key, nothing else.
    pub fn hash_only(&self, keys: std::ops::Range<u64>) -> u64 {
        keys.map(|k| self.hasher.hash_one(k)).fold(0, |a, h| a ^ h)
    }

    /// One random atomic `fetch_or` per key.
    pub fn fetch_or(&self, keys: std::ops::Range<u64>) -> u64 {
        keys.map(|k| {
            let (i, bit) = self.word(k);
            self.at(i).fetch_or(bit, Relaxed) & 1
        })
        .sum()
    }

    /// One random atomic `fetch_or` per key, prefetched 16 keys ahead.
    pub fn fetch_or_prefetched(&self, keys: std::ops::Range<u64>) -> u64 {
        self.pipelined(keys, Self::word, |i, bit| {
            self.at(i).fetch_or(bit, Relaxed) & 1
        })
    }

    /// `n` atomic `fetch_or`s on the words of one random 8-word group per
    /// key, prefetched 16 keys ahead: the locked operations a `Blocked`
    /// insert of a new key needs (its k = 6 bits fall in about 4.4 of the
    /// 8 words of its block).
    pub fn fetch_or_group_prefetched(&self, keys: std::ops::Range<u64>, n: usize) -> u64 {
        self.pipelined(keys, Self::line, |i, bit| {
            (0..n)
                .map(|j| self.at(i + j).fetch_or(bit, Relaxed) & 1)
                .sum()
        })
    }

    /// One random load per key.
    pub fn load(&self, keys: std::ops::Range<u64>) -> u64 {
        keys.map(|k| {
            let (i, bit) = self.word(k);
            self.at(i).load(Relaxed) & bit
        })
        .fold(0, |a, b| a | b)
    }

    /// One random load per key, prefetched 16 keys ahead.
    pub fn load_prefetched(&self, keys: std::ops::Range<u64>) -> u64 {
        self.pipelined(keys, Self::word, |i, bit| self.at(i).load(Relaxed) & bit)
    }

    /// Like the filter's batches: hash once, prefetch, act 16 keys later.
    fn pipelined(
        &self,
        keys: std::ops::Range<u64>,
        locate: fn(&Self, u64) -> (usize, u64),
        op: impl Fn(usize, u64) -> u64,
    ) -> u64 {
        const AHEAD: usize = 16;
        let mut window = [(0usize, 0u64); AHEAD];
        let mut acc = 0;
        let count = keys.end.saturating_sub(keys.start) as usize;
        for (n, k) in keys.enumerate() {
            let (i, bit) = locate(self, k);
            prefetch(self.at(i));
            if n >= AHEAD {
                let (i, bit) = window[n % AHEAD];
                acc ^= op(i, bit);
            }
            window[n % AHEAD] = (i, bit);
        }
        for &(i, bit) in &window[..count.min(AHEAD)] {
            acc ^= op(i, bit);
        }
        acc
    }
}
