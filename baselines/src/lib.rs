//! What `AtomicBloom` is measured against: a plain (non-atomic) filter of
//! the same layout behind a `Mutex`, an `RwLock` and 16 sharded mutexes
//! (and, for `AtomicCountingBloom`, a plain counting filter behind a
//! `Mutex`);
//! fastbloom's `AtomicBloomFilter` with the same hasher; a plain atomic
//! blocked filter that sets each bit with its own `fetch_or`; and physical-limit
//! probes that do the least any filter must do per key. Shared by
//! `benches/throughput.rs` and the CLI (`bench`, `demo`).
//!
//! Its probes prefetch and ask for huge pages through the filter's own
//! hints (`atomic_bloom::internals`, a feature outside the API), so that they run as the filter does.

use atomic_bloom::internals::{Access, advise_huge_pages, prefetch};
use atomic_bloom::{AtomicBloom, Layout, Sizing, WyBuildHasher};
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

    fn locate_hash(&self, hash: u64) -> (usize, [u64; 8]) {
        locate_blocked(hash, self.lines.len() as u64, self.num_hashes)
    }

    /// The key's hash, as `insert` and `contains` compute it.
    pub fn hash(&self, key: &(impl Hash + ?Sized)) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.lines.fill(Line([0; 8]));
    }

    /// Inserts `key`; whether a bit was new.
    pub fn insert(&mut self, key: &(impl Hash + ?Sized)) -> bool {
        self.insert_hash(self.hash(key))
    }

    /// [`insert`](Self::insert) by the key's hash.
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let (line, masks) = self.locate_hash(hash);
        let mut new = false;
        for (word, mask) in self.lines[line].0.iter_mut().zip(masks) {
            new |= *word & mask != mask;
            *word |= mask;
        }
        new
    }

    /// Whether `key` may be in.
    pub fn contains(&self, key: &(impl Hash + ?Sized)) -> bool {
        self.contains_hash(self.hash(key))
    }

    /// [`contains`](Self::contains) by the key's hash.
    pub fn contains_hash(&self, hash: u64) -> bool {
        let (line, masks) = self.locate_hash(hash);
        self.lines[line]
            .0
            .iter()
            .zip(masks)
            .all(|(w, m)| w & m == m)
    }
}

/// The plain atomic reference: the `Blocked` layout's positions, each bit
/// set by its own `fetch_or` with no test first, as fastbloom and Guava
/// set theirs. The least a lock-free blocked filter can do for a new key;
/// a duplicate writes its line all the same.
pub struct PerBitBlocked {
    lines: Vec<AtomicLine>,
    num_hashes: u32,
    hasher: WyBuildHasher,
}

impl PerBitBlocked {
    /// Sized as `AtomicBloom`'s `Blocked` layout would be.
    pub fn new(items: usize, fpp: f64) -> Self {
        Self::with_sizing(Sizing::for_rate(Layout::Blocked, items, fpp).unwrap())
    }

    /// An empty reference of `sizing`'s bits and hash count.
    fn with_sizing(sizing: Sizing) -> Self {
        let lines = (sizing.num_bits() / 512) as usize;
        let mut vec = Vec::with_capacity(lines);
        advise_huge_pages(vec.spare_capacity_mut());
        vec.resize_with(lines, AtomicLine::default);
        PerBitBlocked {
            lines: vec,
            num_hashes: sizing.num_hashes(),
            hasher: WyBuildHasher::default(),
        }
    }

    /// A reference holding exactly the bits of `filter`, a `Blocked`
    /// filter with the default hasher: the keys `filter` holds, without
    /// inserting each one again (a fill of 100M keys takes seconds).
    ///
    /// # Panics
    ///
    /// If `filter` has another layout or hasher, whose bits would be other
    /// keys' here.
    pub fn copy_of(filter: &AtomicBloom) -> Self {
        assert_eq!(filter.layout(), Layout::Blocked, "a Blocked filter");
        assert_eq!(
            *filter.hasher(),
            WyBuildHasher::default(),
            "the default hasher"
        );
        let mut copy = PerBitBlocked::with_sizing(filter.sizing());
        let mut words = filter.words();
        for line in &mut copy.lines {
            for word in &mut line.0 {
                *word.get_mut() = words.next().expect("a Blocked filter is whole lines");
            }
        }
        copy
    }

    /// The key's line and its bits' offsets (`0..512`), as `Blocked` has them.
    #[inline]
    fn for_each_bit(&self, key: &(impl Hash + ?Sized), mut f: impl FnMut(&AtomicU64, u64)) {
        let hash = self.hasher.hash_one(key);
        let lines = self.lines.len() as u64;
        let line = &self.lines[((u128::from(hash) * u128::from(lines)) >> 64) as usize];
        let mut r = hash;
        for i in 0..self.num_hashes {
            if i % 7 == 0 {
                r = mix(hash.wrapping_add(u64::from(i / 7 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            }
            let bit = r & 511;
            f(&line.0[(bit >> 6) as usize], 1 << (bit & 63));
            r >>= 9;
        }
    }

    /// Sets every bit of `key`, one `fetch_or` each; whether one was new.
    #[inline]
    pub fn insert(&self, key: &(impl Hash + ?Sized)) -> bool {
        let mut new = false;
        self.for_each_bit(key, |word, bit| {
            new |= word.fetch_or(bit, Relaxed) & bit == 0
        });
        new
    }

    /// Whether `key` may be in.
    #[inline]
    pub fn contains(&self, key: &(impl Hash + ?Sized)) -> bool {
        let mut all = true;
        self.for_each_bit(key, |word, bit| all &= word.load(Relaxed) & bit != 0);
        all
    }

    /// Removes every key (not atomically with respect to inserts).
    pub fn clear(&self) {
        for line in &self.lines {
            line.0.iter().for_each(|word| word.store(0, Relaxed));
        }
    }
}

/// Eight atomic words on a 64-byte boundary: one cache line.
#[derive(Default)]
#[repr(C, align(64))]
struct AtomicLine([AtomicU64; 8]);

/// 64 bytes on a 64-byte boundary: one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// A key's block among `blocks` 512-bit blocks, and the masks of its `k`
/// bits in the block's eight words.
fn locate_blocked(hash: u64, blocks: u64, k: u32) -> (usize, [u64; 8]) {
    let block = ((u128::from(hash) * u128::from(blocks)) >> 64) as usize;
    let mut masks = [0u64; 8];
    let mut r = hash;
    for i in 0..k {
        if i % 7 == 0 {
            r = mix(hash.wrapping_add(u64::from(i / 7 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        let bit = r & 511;
        masks[(bit >> 6) as usize] |= 1 << (bit & 63);
        r >>= 9;
    }
    (block, masks)
}

/// A plain (non-atomic) counting filter with the `Blocked` layout's access
/// pattern: a key's `k` counters in one block of 512 4-bit counters (four
/// cache lines), sixteen counters to a `u64`, saturating at 15 and never
/// below zero, as `AtomicCountingBloom` keeps them. The lock-based
/// counting baseline, behind a `Mutex`.
pub struct PlainCounting {
    words: Vec<u64>,
    num_hashes: u32,
    hasher: WyBuildHasher,
}

/// The plain counting filter behind one `Mutex`.
pub type MutexCounting = Mutex<PlainCounting>;

impl PlainCounting {
    /// Sized for `items` keys at rate `fpp`: a counter per bit of the
    /// `Blocked` filter of that sizing.
    pub fn new(items: usize, fpp: f64) -> Self {
        let sizing = Sizing::for_rate(Layout::Blocked, items, fpp).unwrap();
        PlainCounting {
            words: vec![0; (sizing.num_bits() / 16) as usize],
            num_hashes: sizing.num_hashes(),
            hasher: WyBuildHasher::default(),
        }
    }

    /// Calls `f` with the word and lane (0..16) of each of the key's
    /// counters.
    fn for_each_counter(&self, key: &(impl Hash + ?Sized), mut f: impl FnMut(usize, u32)) {
        let blocks = self.words.len() as u64 / 32;
        let (block, masks) = locate_blocked(self.hasher.hash_one(key), blocks, self.num_hashes);
        for (w, mut mask) in masks.into_iter().enumerate() {
            while mask != 0 {
                let counter = block * 512 + w * 64 + mask.trailing_zeros() as usize;
                f(counter / 16, (counter % 16) as u32);
                mask &= mask - 1;
            }
        }
    }

    /// The word and lane of each of the key's counters (the first `n` of
    /// the array), gathered before an update changes the words.
    fn counters_of(&self, key: &(impl Hash + ?Sized)) -> ([(usize, u32); 64], usize) {
        let mut counters = [(0usize, 0u32); 64];
        let mut n = 0;
        self.for_each_counter(key, |word, lane| {
            counters[n] = (word, lane);
            n += 1;
        });
        (counters, n)
    }

    /// Adds one to each of the key's counters below 15; whether one was zero.
    pub fn insert(&mut self, key: &(impl Hash + ?Sized)) -> bool {
        let mut new = false;
        let (updates, n) = self.counters_of(key);
        for &(word, lane) in &updates[..n] {
            let count = (self.words[word] >> (4 * lane)) & 0xF;
            new |= count == 0;
            if count < 15 {
                self.words[word] += 1 << (4 * lane);
            }
        }
        new
    }

    /// Takes one from each of the key's counters between 1 and 14; whether
    /// all were above zero.
    pub fn remove(&mut self, key: &(impl Hash + ?Sized)) -> bool {
        let mut present = true;
        let (updates, n) = self.counters_of(key);
        for &(word, lane) in &updates[..n] {
            let count = (self.words[word] >> (4 * lane)) & 0xF;
            present &= count > 0;
            if count > 0 && count < 15 {
                self.words[word] -= 1 << (4 * lane);
            }
        }
        present
    }

    /// Whether all of the key's counters are above zero.
    pub fn contains(&self, key: &(impl Hash + ?Sized)) -> bool {
        let mut present = true;
        self.for_each_counter(key, |word, lane| {
            present &= (self.words[word] >> (4 * lane)) & 0xF != 0;
        });
        present
    }

    /// Zeroes every counter.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }
}

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

/// A windowed filter behind one `Mutex`, the obvious locked design: a ring
/// of `g + 1` plain blocked filters sized as `AtomicWindowedBloom` sizes
/// its generations; an insert goes to the current one and, once it has
/// taken its share of the window's keys, moves on to the next, clearing it;
/// a query asks the `g` newest.
pub struct MutexRing {
    ring: Mutex<RingState>,
}

struct RingState {
    generations: Vec<PlainBlocked>,
    current: usize,
    inserted: u64,
    per_generation: u64,
}

impl MutexRing {
    /// A window of `keys` keys at rate `fpp`, over `g` generations.
    pub fn new(keys: usize, fpp: f64, g: usize) -> Self {
        let per_generation = keys.div_ceil(g - 1);
        // As `AtomicWindowedBloom`: each generation at 1 - (1 - p)^(1/g).
        let rate = -((-fpp).ln_1p() / g as f64).exp_m1();
        MutexRing {
            ring: Mutex::new(RingState {
                generations: (0..=g)
                    .map(|_| PlainBlocked::new(per_generation, rate))
                    .collect(),
                current: 0,
                inserted: 0,
                per_generation: per_generation as u64,
            }),
        }
    }

    /// Inserts `key` under the lock; whether it was absent from the window,
    /// as `AtomicWindowedBloom::insert` answers: a key the current
    /// generation holds is not written again, one an older generation
    /// holds is written into the current one but was seen.
    pub fn insert(&self, key: &(impl Hash + ?Sized)) -> bool {
        // Hashed once, before the lock: every generation shares the hasher.
        let hash = WyBuildHasher::default().hash_one(key);
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let current = ring.current;
        if ring.generations[current].contains_hash(hash) {
            return false;
        }
        let slots = ring.generations.len();
        let seen = (1..slots - 1)
            .any(|age| ring.generations[(current + slots - age) % slots].contains_hash(hash));
        let new = ring.generations[current].insert_hash(hash);
        ring.inserted += u64::from(new);
        if ring.inserted >= ring.per_generation {
            let next = (current + 1) % ring.generations.len();
            ring.generations[next].clear();
            ring.current = next;
            ring.inserted = 0;
        }
        new && !seen
    }

    /// Whether `key` may be in the window, under the lock.
    pub fn contains(&self, key: &(impl Hash + ?Sized)) -> bool {
        let hash = WyBuildHasher::default().hash_one(key);
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let slots = ring.generations.len();
        (0..slots - 1)
            .any(|age| ring.generations[(ring.current + slots - age) % slots].contains_hash(hash))
    }

    /// Removes every key.
    pub fn clear(&self) {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.generations.iter_mut().for_each(PlainBlocked::clear);
        ring.current = 0;
        ring.inserted = 0;
    }
}
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

/// The length of every [`str32_key`], in bytes.
pub const STR32_KEY_BYTES: usize = 32;

/// String key `i` of the benchmarks (the criterion grid's `str32` rows and
/// `atomic-bloom-harness bench --string-keys`): a URL like a crawler's,
/// `https://example.com/000000000042`, [`STR32_KEY_BYTES`] long for
/// `i < 10^12`.
pub fn str32_key(i: u64) -> String {
    format!("https://example.com/{i:012}")
}

/// fastbloom 0.17's atomic filter, hashed with the same wyhash.
pub fn fastbloom(items: usize, fpp: f64) -> fastbloom::AtomicBloomFilter<WyBuildHasher> {
    fastbloom::AtomicBloomFilter::with_false_pos(fpp)
        .hasher(WyBuildHasher::default())
        .expected_items(items)
}

/// growable-bloom-filter 2's scalable filter (one `Vec` of sub-filters,
/// grown through `&mut self`), behind the `RwLock` a shared one needs:
/// queries take the read lock, inserts the write lock.
pub type RwLockGrowable = RwLock<GrowableBloom>;

pub use growable_bloom_filter::GrowableBloom;

/// growable-bloom-filter 2's filter on the growable filter's default
/// schedule: sub-filter `i` holds `initial · 2^i` keys at
/// `p (1 - r) r^i`, so that both promise `p` (it hashes with its own
/// stable hasher; the schedule is what can be matched).
pub fn growable_peer(initial: usize, p: f64, r: f64) -> GrowableBloom {
    growable_bloom_filter::GrowableBloomBuilder::new()
        .estimated_insertions(initial)
        .desired_error_ratio(p * (1.0 - r))
        .growth_factor(2)
        .tightening_ratio(r)
        .build()
}

/// Keys between a prefetch and its operation in the prefetched probes.
///
/// A probe is a limit, so it takes the lead at which it runs fastest. Its
/// one load or `fetch_or` per key is the shortest work a key can have, so
/// it needs more keys of lead than the filter's updates to cover a miss.
/// 32 keys ahead ran the probes faster than 16 on a 100M-key array (Intel
/// Xeon model 207, and the 100M probe rows of `cargo run --release -p
/// atomic-bloom-harness -- bench` before and after this constant), and 48
/// or 64 no faster.
pub const PROBE_AHEAD: usize = 32;

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

    /// One random atomic `fetch_or` per key, prefetched [`PROBE_AHEAD`] keys ahead.
    pub fn fetch_or_prefetched(&self, keys: std::ops::Range<u64>) -> u64 {
        self.pipelined(keys, Self::word, Access::write(), |i, bit| {
            self.at(i).fetch_or(bit, Relaxed) & 1
        })
    }

    /// `n` atomic `fetch_or`s on the words of one random 8-word group per
    /// key, prefetched [`PROBE_AHEAD`] keys ahead: the locked operations a `Blocked`
    /// insert of a new key needs (its k = 6 bits fall in about 4.4 of the
    /// 8 words of its block).
    pub fn fetch_or_group_prefetched(&self, keys: std::ops::Range<u64>, n: usize) -> u64 {
        self.pipelined(keys, Self::line, Access::write(), |i, bit| {
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

    /// One random load per key, prefetched [`PROBE_AHEAD`] keys ahead.
    pub fn load_prefetched(&self, keys: std::ops::Range<u64>) -> u64 {
        self.pipelined(keys, Self::word, Access::READ, |i, bit| {
            self.at(i).load(Relaxed) & bit
        })
    }

    /// Like the filter's batches: hash once, prefetch, act
    /// [`PROBE_AHEAD`] keys later.
    fn pipelined(
        &self,
        keys: std::ops::Range<u64>,
        locate: fn(&Self, u64) -> (usize, u64),
        access: Access,
        op: impl Fn(usize, u64) -> u64,
    ) -> u64 {
        let mut window = [(0usize, 0u64); PROBE_AHEAD];
        let mut acc = 0;
        let count = keys.end.saturating_sub(keys.start) as usize;
        for (n, k) in keys.enumerate() {
            let (i, bit) = locate(self, k);
            prefetch(self.at(i), access);
            if n >= PROBE_AHEAD {
                let (i, bit) = window[n % PROBE_AHEAD];
                acc ^= op(i, bit);
            }
            window[n % PROBE_AHEAD] = (i, bit);
        }
        for &(i, bit) in &window[..count.min(PROBE_AHEAD)] {
            acc ^= op(i, bit);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomic_bloom::AtomicBloom;

    #[test]
    fn str32_keys_are_32_byte_urls() {
        assert_eq!(str32_key(42), "https://example.com/000000000042");
        assert_eq!(str32_key(999_999_999_999).len(), STR32_KEY_BYTES);
    }

    /// The counting baseline counts: a key inserted twice survives one
    /// remove, removed keys go, the others stay, and a key's counters
    /// saturate rather than carry.
    #[test]
    fn the_counting_baseline_counts() {
        let mut f = PlainCounting::new(10_000, 0.01);
        for key in (0..10_000u64).chain(0..100) {
            f.insert(&key);
        }
        assert!((0..100u64).all(|k| f.remove(&k) && f.contains(&k)));
        assert!((0..100u64).all(|k| f.remove(&k)));
        assert!((100..10_000u64).all(|k| f.contains(&k)));
        let gone = (0..100u64).filter(|k| !f.contains(k)).count();
        assert!(gone > 80, "{gone}");
        let mut hot = PlainCounting::new(100, 0.01);
        for _ in 0..40 {
            hot.insert("hot");
        }
        // Every nonzero counter is at 15: nothing carried into a neighbour.
        let lanes = || {
            hot.words
                .iter()
                .flat_map(|w| (0..16).map(move |l| (w >> (4 * l)) & 0xF))
        };
        let nonzero = lanes().filter(|&c| c != 0).count();
        assert!(nonzero > 0);
        assert_eq!(lanes().filter(|&c| c == 15).count(), nonzero);
        assert!(hot.remove("hot") && hot.contains("hot"), "saturated: stays");
    }

    /// The per-bit reference puts a key's bits where `AtomicBloom`'s
    /// `Blocked` layout does, so the two answer every query alike: it
    /// measures a different way of setting the same bits.
    #[test]
    fn per_bit_reference_has_the_blocked_layouts_positions() {
        let ours = AtomicBloom::builder()
            .capacity(10_000, 0.01)
            .layout(Layout::Blocked)
            .build()
            .unwrap();
        let reference = PerBitBlocked::new(10_000, 0.01);
        for key in 0..10_000u64 {
            assert_eq!(ours.insert(&key), reference.insert(&key), "key {key}");
        }
        let (mut agreed, mut false_positives) = (0, 0);
        for key in 1_000_000..1_100_000u64 {
            assert_eq!(ours.contains(&key), reference.contains(&key), "key {key}");
            agreed += 1;
            false_positives += usize::from(reference.contains(&key));
        }
        assert_eq!(agreed, 100_000);
        // Same bits, same rate: near the 1% both are sized for.
        assert!((500..1500).contains(&false_positives), "{false_positives}");
        reference.clear();
        assert!(!reference.contains(&0u64));
    }

    /// A copy holds the filter's keys and no others: every key inserted
    /// is a duplicate to it, and an absent key is as rare as in the
    /// filter, whose bits it has.
    #[test]
    fn a_copy_of_a_blocked_filter_holds_its_keys() {
        let ours = AtomicBloom::new(10_000, 0.01).unwrap();
        ours.insert_batch(0..10_000u64);
        let copy = PerBitBlocked::copy_of(&ours);
        assert!((0..10_000u64).all(|key| !copy.insert(&key)));
        for key in 1_000_000..1_100_000u64 {
            assert_eq!(ours.contains(&key), copy.contains(&key), "key {key}");
        }
        let empty = PerBitBlocked::copy_of(&AtomicBloom::new(10_000, 0.01).unwrap());
        assert!((0..10_000u64).all(|key| !empty.contains(&key)));
    }
}
