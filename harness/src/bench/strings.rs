//! `bench --string-keys`: the per-key insert targets again, with 32-byte
//! string keys (`baselines::str32_key`, the criterion grid's `str32` keys)
//! in place of `u64`s: the keys a crawler's seen-URL set or a blocklist
//! holds, whose hashing costs more than a `u64`'s and so weighs more
//! against the filter's own work.
//!
//! Ours (`Blocked`, p = 1%) against fastbloom 0.17's atomic filter and the
//! per-bit reference, each taking the `&str` through its `Hash` with the
//! same wyhash. As in `bench`: new keys into an empty filter, 1M keys into
//! the 1M filter and 2M into the 100M one, on 1 thread and split over 2;
//! each target measured as pairs. The keys are made before any timing, in
//! one buffer, so that no row times an allocation.

use super::{FPP, Ratio, Session, Table, target};
use atomic_bloom::AtomicBloom;
use baselines::{self, PerBitBlocked, STR32_KEY_BYTES as KEY_BYTES, str32_key};

const INSERT_1T: &str = "insert, per key, str32 keys, 1 thread";
const INSERT_2T: &str = "insert, per key, str32 keys, 2 threads";
const FASTBLOOM_1T: &str = "fastbloom insert, str32 keys, 1 thread";
const FASTBLOOM_2T: &str = "fastbloom insert, str32 keys, 2 threads";
const PER_BIT_1T: &str = "per-bit reference insert, str32 keys, 1 thread";
const PER_BIT_2T: &str = "per-bit reference insert, str32 keys, 2 threads";

const RATIOS: &[Ratio] = &[
    target(
        "str32: per-key insert 1T / fastbloom insert 1T",
        INSERT_1T,
        FASTBLOOM_1T,
        1.2,
    ),
    target(
        "str32: per-key insert 2T / fastbloom insert 2T",
        INSERT_2T,
        FASTBLOOM_2T,
        1.2,
    ),
    target(
        "str32: per-key insert 1T / per-bit reference insert 1T",
        INSERT_1T,
        PER_BIT_1T,
        1.0,
    ),
    target(
        "str32: per-key insert 2T / per-bit reference insert 2T",
        INSERT_2T,
        PER_BIT_2T,
        1.0,
    ),
];

/// Keys `0..count` (`baselines::str32_key`), back to back in one string.
struct StrKeys(String);

impl StrKeys {
    fn new(count: u64) -> Self {
        let keys: String = (0..count).map(str32_key).collect();
        assert_eq!(keys.len(), count as usize * KEY_BYTES);
        StrKeys(keys)
    }

    /// Key `i`.
    #[inline]
    fn get(&self, i: u64) -> &str {
        let start = i as usize * KEY_BYTES;
        &self.0[start..start + KEY_BYTES]
    }
}

pub fn run() -> anyhow::Result<()> {
    let mut session = Session::start();
    for (label, items, per_key) in [
        ("1M", 1_000_000u64, 1_000_000u64),
        ("100M", 100_000_000, 2_000_000),
    ] {
        let capacity = items as usize; // at most 100M: no truncation
        let keys = StrKeys::new(per_key);
        let keys = &keys;
        let ours = AtomicBloom::new(capacity, FPP)?;
        let fb = baselines::fastbloom(capacity, FPP);
        let per_bit = PerBitBlocked::new(capacity, FPP);
        let mut table = Table::new(label);
        table.per_key_inserts(
            [INSERT_1T, INSERT_2T],
            per_key,
            || ours.par_clear(),
            |i| {
                ours.insert(keys.get(i));
            },
        );
        table.per_key_inserts(
            [FASTBLOOM_1T, FASTBLOOM_2T],
            per_key,
            || fb.clear(),
            |i| {
                fb.insert(keys.get(i));
            },
        );
        table.per_key_inserts(
            [PER_BIT_1T, PER_BIT_2T],
            per_key,
            || per_bit.clear(),
            |i| {
                per_bit.insert(keys.get(i));
            },
        );
        session.report(&table, RATIOS);
    }
    session.conclude();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_i_is_str32_key_i() {
        let keys = StrKeys::new(3);
        assert!((0..3).all(|i| keys.get(i) == str32_key(i)));
        assert_eq!(keys.get(2), "https://example.com/000000000002");
    }
}
