//! # The probe: one key's bits in one filter
//!
//! A [`Probe`] is where one key's bits are in one filter, computed from the
//! key's hash and the filter's size by its layout's position math. Each
//! layout's file implements it: testing the key's bits
//! ([`contains`](Probe::contains)), setting them ([`insert`](Probe::insert)),
//! asking the CPU for their cache lines ([`prefetch`](Probe::prefetch)),
//! listing them for the counting filter ([`bits`](Probe::bits)), and the
//! layout's false-positive model. The per-key calls, the batch pipeline and
//! the parallel paths all go through it, so a batch prefetches exactly the
//! lines its operation then touches (`core/batch.rs`:
//! `batches_and_single_inserts_prefetch_the_lines_inserts_touch`;
//! `kinds/counting.rs`: `batches_prefetch_the_lines_inserts_touch`).
//!
//! ## Test before set
//!
//! Every insert loads the key's words first and writes only if a bit is
//! missing. A key that is already present therefore writes nothing: its
//! cache lines stay shared between cores instead of bouncing between them
//! in the exclusive state a locked read-modify-write needs. A key with a
//! bit missing is then written one bit per read-modify-write (`Blocked`,
//! `Standard`) or one per word (`Word`: one; `Sectorized`: two). The insert
//! reports what its test found, so no write's old value is used except
//! `Word`'s, which makes its one `fetch_or` a test-and-set; the
//! [`docs::layouts`](crate::docs::layouts) chapter says what this buys.

#[cfg(test)]
use super::Placement;
use super::block_model::BlockModel;
use crate::hints::Access;
use crate::storage::bit_array::BitArray;

/// Where one key's bits are in one filter, for one layout; its associated
/// constants are the layout's facts, which [`Layout`](super::Layout)'s
/// methods read through the one dispatch, `with_probe!`.
pub(crate) trait Probe: Copy {
    /// The layout's name, as `Layout`'s `Display` prints it, `FromStr`
    /// reads it and the CLI's `--layout` takes it.
    const NAME: &'static str;
    /// Bits of the unit a key's bits are confined to (`None`: the whole
    /// array).
    const BLOCK_BITS: Option<u64>;
    /// The multiple of bits the array is sized in.
    const GRANULE_BITS: u64;
    /// `k` where the layout fixes it.
    const FIXED_K: Option<u32> = None;
    /// The most bits a filter of the layout may have.
    const MAX_BITS: u64 = super::MAX_BITS;
    /// What to change when the layout cannot reach a rate within
    /// [`MAX_BITS`](Self::MAX_BITS) (a `BuildError`'s hint).
    const UNREACHABLE_HINT: &'static str;
    /// The placement this probe is for.
    #[cfg(test)]
    const PLACEMENT: Placement;
    /// `k` where the probe type fixes it, 0 where it asks the sizing.
    #[cfg(test)]
    const CONSTANT_K: u32 = 0;
    /// The probe of the key with 64-bit hash `hash` in a filter of this
    /// layout with `num_bits` bits and `k` bits per key.
    fn new(num_bits: u64, k: u32, hash: u64) -> Self;
    /// Whether every one of the key's bits is set.
    fn contains(&self, bits: &BitArray) -> bool;
    /// Sets the key's bits unless all are set; returns whether one was
    /// missing (`docs::memory_ordering`, G4).
    fn insert(&self, bits: &BitArray) -> bool;
    /// Asks the CPU to start fetching every line the key's bits are in.
    fn prefetch(&self, bits: &BitArray, access: Access);
    /// [`prefetch`](Self::prefetch) for reading, then
    /// [`insert`](Self::insert): a per-key insert. A layout whose positions
    /// cost more than a load (`Standard`'s `k`) computes them once for
    /// both.
    #[inline(always)]
    fn prefetch_and_insert(&self, bits: &BitArray) -> bool {
        self.prefetch(bits, Access::READ);
        self.insert(bits)
    }
    /// Calls `f` with the index of each of the key's bits in the whole
    /// array (`0..m`; a bit two probes share may come twice): what the
    /// counting filter keeps a counter for. Every layout's is always
    /// inlined: called, it costs every counting insert and query a call
    /// and the spills around it.
    fn bits(&self, f: impl FnMut(u64));
    /// Bits of the blocks whose [`BlockModel`] gives this layout's rate (0
    /// for a layout without blocks).
    const MODEL_BLOCK_BITS: u64;
    /// The model's false-positive rate with `items` keys in `num_bits` bits
    /// of `k` bits per key (the [sizing](crate::docs::sizing) chapter).
    fn model_rate(model: &mut BlockModel, num_bits: u64, k: u32, items: f64) -> f64;
    /// The expected number of distinct bits one key sets with `k` bits per
    /// key in `num_bits` bits.
    fn distinct_bits(k: u32, num_bits: u64) -> f64;
    /// The rate of a filter of `num_bits` bits whose words, in order, are
    /// `words`: the mean over its blocks of the chance that an absent key
    /// finds all its bits set.
    fn rate_of_words(num_bits: u64, k: u32, words: impl Iterator<Item = u64>) -> f64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{
        DEFAULT_RATE_KS, Layout, MAX_HASHES, Placement, with_probe, with_sized_probe,
    };
    use crate::sizing::Sizing;

    /// Numbers of bits per key the tests try: one, the two that `Blocked`
    /// compiles as constants (`DEFAULT_RATE_KS`), one between them that it
    /// does not, one above, and both sides of the 16 that a `Standard`
    /// insert keeps from its test for its sets (`BitArray::set_bits`), up
    /// to the most a filter may have.
    const KS: [u32; 8] = [1, 5, 6, 7, 9, 16, 17, MAX_HASHES];

    /// The `k` the tests try for `layout`: `KS`, or the one it fixes.
    fn ks_of(layout: Layout) -> Vec<u32> {
        layout.fixed_num_hashes().map_or(KS.to_vec(), |k| vec![k])
    }

    /// A 4096-bit sizing of every placement (every layout, and both ways
    /// `Standard` has had of placing bits) with each of its `k`, with its
    /// placement and `k` for the tests' messages.
    fn small_sizings() -> impl Iterator<Item = (Placement, u32, Sizing)> {
        Placement::ALL.into_iter().flat_map(|placement| {
            ks_of(placement.layout())
                .into_iter()
                .map(move |k| (placement, k, Sizing::placed(placement, 4096, k).unwrap()))
        })
    }

    /// The hash the tests give key `key`.
    fn hash_of(key: u64) -> u64 {
        key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key
    }

    /// Runs `$body` with `$probe` the probe of each key `0..200` in a
    /// 4096-bit filter of every layout and each of `KS`, which `$layout`,
    /// `$k` and `$key` name for the body's messages: once with the probe
    /// type `with_probe!` picks and once with `with_sized_probe!`'s (for
    /// `Blocked` at 5 and 7, a probe whose `k` is a constant).
    macro_rules! for_each_probe {
        (|$layout:ident, $k:ident, $key:ident, $probe:ident| $body:block) => {
            for ($layout, $k, sizing) in small_sizings() {
                for $key in 0..200u64 {
                    with_probe!($layout, P => {
                        let $probe = sizing.probe::<P>(hash_of($key));
                        $body
                    });
                    with_sized_probe!(sizing, P => {
                        let $probe = sizing.probe::<P>(hash_of($key));
                        $body
                    });
                }
            }
        };
    }

    /// The numbers of bits per key that `Blocked` compiles as constants are
    /// the ones its sizing gives at the default false-positive rate, from
    /// ten keys to ten billion.
    #[test]
    fn default_rate_ks_are_the_constant_ones() {
        for exponent in 1..=10 {
            let Ok(items) = usize::try_from(10u64.pow(exponent)) else {
                continue;
            };
            let sizing =
                Sizing::for_rate(Layout::Blocked, items, crate::DEFAULT_FALSE_POSITIVE_RATE)
                    .unwrap();
            let k = sizing.num_hashes();
            assert!(DEFAULT_RATE_KS.contains(&k), "{items} keys: k = {k}");
        }
    }

    /// A probe finds a key exactly when every one of its bits is set: with
    /// all of them set, and with each one missing, in every layout. Its
    /// insert then reports the key new exactly when a bit was missing.
    #[test]
    fn contains_needs_every_bit() {
        for_each_probe!(|layout, k, key, probe| {
            let mut bits = Vec::new();
            probe.bits(|bit| bits.push(bit));
            bits.sort_unstable();
            bits.dedup();
            for missing in std::iter::once(None).chain(bits.iter().copied().map(Some)) {
                let mut words = vec![0u64; 64];
                for &bit in bits.iter().filter(|&&bit| Some(bit) != missing) {
                    words[(bit / 64) as usize] |= 1 << (bit % 64);
                }
                let mut array = BitArray::zeroed(64).unwrap();
                array.fill(0, words.into_iter());
                assert_eq!(
                    probe.contains(&array),
                    missing.is_none(),
                    "{layout:?}, k = {k}, key {key}, bit {missing:?} missing"
                );
                // An insert reports what the query would have: new exactly
                // when a bit was missing (G4 on one thread), then has it.
                assert_eq!(
                    probe.insert(&array),
                    missing.is_some(),
                    "{layout:?}, k = {k}, key {key}, bit {missing:?} missing: insert's result"
                );
                assert!(probe.contains(&array), "{layout:?}, k = {k}, key {key}");
            }
        });
    }

    /// A key's bits, as `bits` lists them, are exactly the bits its insert
    /// sets in an empty array, in every layout.
    #[test]
    fn bits_lists_what_an_insert_sets() {
        for_each_probe!(|layout, k, key, probe| {
            let array = BitArray::zeroed(64).unwrap();
            probe.insert(&array);
            let mut listed = vec![0u64; 64];
            probe.bits(|bit| listed[(bit / 64) as usize] |= 1 << (bit % 64));
            let set: Vec<u64> = array.load_words(array.all()).collect();
            assert_eq!(listed, set, "{layout:?}, k = {k}, key {key}");
        });
    }

    /// An insert of a key that is present issues no read-modify-write (its
    /// cache lines stay shared), in every layout; the insert that added it
    /// issued at least one, so the count would show a write.
    #[test]
    #[cfg(not(loom))] // The count is kept outside loom's model.
    fn inserting_a_present_key_writes_nothing() {
        use crate::storage::bit_array::READ_MODIFY_WRITES;
        let writes = || READ_MODIFY_WRITES.with(|count| count.get());
        for layout in Placement::ALL {
            for k in ks_of(layout.layout()) {
                let sizing = Sizing::placed(layout, 1 << 16, k).unwrap();
                let array = BitArray::zeroed(1 << 10).unwrap();
                for key in 0..500u64 {
                    with_probe!(layout, P => {
                        let probe = sizing.probe::<P>(hash_of(key));
                        let before = writes();
                        if probe.insert(&array) {
                            assert!(writes() > before, "{layout:?}, k = {k}, key {key}: a new key wrote nothing");
                        }
                        let before = writes();
                        assert!(!probe.insert(&array), "{layout:?}, k = {k}, key {key}");
                        assert_eq!(writes(), before, "{layout:?}, k = {k}, key {key}: a present key wrote");
                    });
                }
            }
        }
    }

    /// `with_probe!` picks each placement's own probe type (it tests bits
    /// of the id, so a new placement must be added there too).
    #[test]
    fn with_probe_maps_every_placement() {
        for placement in Placement::ALL {
            assert_eq!(with_probe!(placement, P => P::PLACEMENT), placement);
        }
    }

    /// The probe `with_sized_probe!` picks sets and finds exactly the bits
    /// `with_probe!`'s does, for every layout and `k`: a probe whose `k` is
    /// a constant is the same probe.
    #[test]
    fn sized_probes_set_the_bits_layout_probes_set() {
        for (layout, k, sizing) in small_sizings() {
            let (by_layout, by_sizing) =
                (BitArray::zeroed(64).unwrap(), BitArray::zeroed(64).unwrap());
            for key in 0..200u64 {
                let new =
                    with_probe!(layout, P => sizing.probe::<P>(hash_of(key)).insert(&by_layout));
                let sized_new = with_sized_probe!(sizing, P => sizing.probe::<P>(hash_of(key)).insert(&by_sizing));
                assert_eq!(new, sized_new, "{layout:?}, k = {k}, key {key}");
            }
            assert!(
                by_layout
                    .load_words(by_layout.all())
                    .eq(by_sizing.load_words(by_sizing.all())),
                "{layout:?}, k = {k}"
            );
        }
    }

    /// `with_sized_probe!` picks the layout's probe type, and for `Blocked`
    /// one whose `k` is a constant exactly where `k` is one of
    /// `DEFAULT_RATE_KS` (`SplitBlock`'s is always a constant).
    #[test]
    fn with_sized_probe_maps_every_sizing() {
        for (layout, k, sizing) in small_sizings() {
            let (mapped, constant_k) =
                with_sized_probe!(sizing, P => (P::PLACEMENT, P::CONSTANT_K));
            assert_eq!(mapped, layout, "k = {k}");
            let constant = (layout == Placement::Blocked && DEFAULT_RATE_KS.contains(&k))
                || layout.layout().fixed_num_hashes() == Some(k);
            assert_eq!(
                constant_k,
                if constant { k } else { 0 },
                "{layout:?}, k = {k}"
            );
        }
    }
}
