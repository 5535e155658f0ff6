//! # Positions from one hash
//!
//! Every layout derives a key's bits from its 64-bit hash the same two
//! ways. The word, block or bit is `(h * count) >> 64` in 128-bit
//! arithmetic ([`reduce`]: Lemire's multiply-shift range reduction, "Fast
//! Random Integer Generation in an Interval", 2019): no division, no bias
//! worth measuring, and correct for any count up to 2^64, so filters beyond
//! 2^32 bits use all of their bits. The bits inside a block come from a
//! splitmix64 stream seeded with the hash ([`stream`]): output `j` is
//! `mix(h + (j+1) * GOLDEN)`, `mix` being the splitmix64 finalizer (Steele,
//! Lea and Flood, "Fast Splittable Pseudorandom Number Generators", 2014),
//! cut into offsets of a block's width by [`for_each_offset`].

/// The splitmix64 increment, `2^64 / φ`.
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 finalizer: a bijection on u64 whose every output bit
/// depends on every input bit.
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Output `j` of the splitmix64 stream seeded with `hash`.
#[inline]
pub(crate) fn stream(hash: u64, j: u64) -> u64 {
    mix(hash.wrapping_add(j.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// Maps `hash` to `0..count` by 128-bit multiply-shift.
#[inline]
pub(crate) fn reduce(hash: u64, count: u64) -> u64 {
    ((u128::from(hash) * u128::from(count)) >> 64) as u64
}

/// Calls `f` with `num_hashes` (at least 1) offsets of `BITS` bits each,
/// cut from the stream seeded with `hash`: `64 / BITS` offsets per stream
/// output. Counted loops, so the common case (`k` offsets from one output)
/// compiles to a handful of shifts and masks per offset.
#[inline(always)]
pub(crate) fn for_each_offset<const BITS: u32>(hash: u64, num_hashes: u32, mut f: impl FnMut(u64)) {
    let per_output = 64 / BITS;
    let mut left = num_hashes;
    let mut j = 0;
    loop {
        let mut output = stream(hash, j);
        let n = left.min(per_output);
        for _ in 0..n {
            f(output & ((1 << BITS) - 1));
            output >>= BITS;
        }
        left -= n;
        if left == 0 {
            return;
        }
        j += 1;
    }
}

/// Calls `f` with the array index of each bit of `mask` in word `word`.
#[inline(always)]
pub(crate) fn for_each_bit(word: usize, mut mask: u64, mut f: impl FnMut(u64)) {
    while mask != 0 {
        f(word as u64 * 64 + u64::from(mask.trailing_zeros()));
        mask &= mask - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_covers_ranges_beyond_32_bits() {
        let count = (1u64 << 40) + 12345;
        assert_eq!(reduce(0, count), 0);
        assert_eq!(reduce(u64::MAX, count), count - 1);
        assert!(reduce(u64::MAX / 2, count) > 1 << 38);
    }

    #[test]
    fn offsets_come_k_at_a_time_whatever_k() {
        for k in [1, 6, 7, 8, 15, 64] {
            let mut offsets = Vec::new();
            for_each_offset::<9>(mix(u64::from(k)), k, |bit| offsets.push(bit));
            assert_eq!(offsets.len(), k as usize);
            assert!(offsets.iter().all(|&bit| bit < 512));
        }
    }
}
