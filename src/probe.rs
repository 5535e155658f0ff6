//! # Probes: one key's bits, and the operations on them
//!
//! A [`Probe`] is where one key's bits are in one filter: computed once
//! from the key's hash and the filter's [`Sizing`], by the position math of
//! `layout.rs`. It is the only place that turns a layout into operations on
//! the bit array: testing the key's bits ([`contains`](Probe::contains)),
//! setting them ([`insert`](Probe::insert)), and asking the CPU for the
//! cache lines they live in ([`prefetch`](Probe::prefetch)). The per-key
//! calls, the batch pipeline and the parallel paths all go through it, so
//! a batch prefetches exactly the lines its operation then touches
//! (`batch.rs`: `batches_prefetch_the_lines_inserts_touch`).
//!
//! ## Test before set
//!
//! Every insert loads the key's words first and issues `fetch_or` only for
//! bits that are missing. A key that is already present therefore writes
//! nothing: its cache lines stay shared between cores instead of bouncing
//! between them in the exclusive state a locked read-modify-write needs.

use crate::bit_array::{BitArray, WORDS_PER_LINE};
use crate::hints::Access;
use crate::layout::{Layout, block_line, for_each_offset, standard_probe, word_probe};
use crate::sizing::{MAX_HASHES, Sizing};

/// Where one key's bits are in one filter.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Probe {
    /// `k` bits anywhere, re-derived from the hash when used (keeping `k`
    /// positions would make the probe 64 words long).
    Standard { hash: u64, num_bits: u64, k: u32 },
    /// `k` bits in line `line`, their offsets re-derived from the hash.
    Blocked { line: usize, hash: u64, k: u32 },
    /// The bits of `mask` in word `word`.
    Word { word: usize, mask: u64 },
}

impl Probe {
    /// The probe of the key with 64-bit hash `hash` in a filter of `sizing`.
    #[inline(always)]
    pub(crate) fn new(sizing: &Sizing, hash: u64) -> Probe {
        let (num_bits, k) = (sizing.num_bits(), sizing.num_hashes());
        let num_words = num_bits / 64;
        match sizing.layout() {
            Layout::Standard => Probe::Standard { hash, num_bits, k },
            Layout::Blocked => Probe::Blocked {
                line: block_line(hash, num_words / WORDS_PER_LINE as u64),
                hash,
                k,
            },
            Layout::Word => {
                let (word, mask) = word_probe(hash, k, num_words);
                Probe::Word { word, mask }
            }
        }
    }

    /// Whether every one of the key's bits is set.
    #[inline(always)]
    pub(crate) fn contains(&self, bits: &BitArray) -> bool {
        match *self {
            Probe::Standard { hash, num_bits, k } => {
                bits.test_bits((0..k).map(|i| standard_probe(hash, i, num_bits)))
            }
            Probe::Blocked { line, hash, k } => block_contains(bits, line, hash, k),
            Probe::Word { word, mask } => bits.test_word(word, mask),
        }
    }

    /// Sets the key's bits; returns whether this call set at least one.
    #[inline(always)]
    pub(crate) fn insert(&self, bits: &BitArray) -> bool {
        match *self {
            Probe::Standard { hash, num_bits, k } => set_standard(bits, hash, num_bits, k),
            Probe::Blocked { line, hash, k } => {
                // Test before set, without building masks: a key that is
                // present (a duplicate) costs what a query costs.
                !block_contains(bits, line, hash, k) && set_block(bits, line, hash, k)
            }
            Probe::Word { word, mask } => bits.set_word(word, mask),
        }
    }

    /// Asks the CPU to start fetching every line the key's bits are in.
    #[inline(always)]
    pub(crate) fn prefetch(&self, bits: &BitArray, access: Access) {
        match *self {
            Probe::Standard { hash, num_bits, k } => {
                for i in 0..k {
                    bits.prefetch_word(standard_probe(hash, i, num_bits).0, access);
                }
            }
            Probe::Blocked { line, .. } => bits.prefetch_line(line, access),
            Probe::Word { word, .. } => bits.prefetch_word(word, access),
        }
    }
}

/// Whether all of `hash`'s `k` bits are set in `line` (`Blocked`).
#[inline(always)]
fn block_contains(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let mut line = bits.line_reader(line);
    for_each_offset::<9>(hash, k, |bit| line.test(bit));
    line.all_set()
}

/// The `Blocked` insert of a key with a bit missing: out of line, so the
/// common paths (a query, a duplicate insert) stay small enough to inline.
#[inline(never)]
fn set_block(bits: &BitArray, line: usize, hash: u64, k: u32) -> bool {
    let mut line = bits.line_writer(line);
    for_each_offset::<9>(hash, k, |bit| line.want(bit));
    line.commit()
}

/// The `Standard` insert: out of line for the same reason.
#[inline(never)]
fn set_standard(bits: &BitArray, hash: u64, num_bits: u64, k: u32) -> bool {
    let mut probes = [(0usize, 0u64); MAX_HASHES as usize];
    let probes = &mut probes[..k as usize];
    for (i, probe) in (0..k).zip(probes.iter_mut()) {
        *probe = standard_probe(hash, i, num_bits);
    }
    bits.set_bits(probes)
}
