//! # The atomics facade
//!
//! Every atomic this crate touches is named here and nowhere else. In a normal
//! build these are `std`'s atomics; under `RUSTFLAGS="--cfg loom"` they are
//! [loom]'s, which record each access so that the model checker in
//! `loom-tests/` can explore every interleaving of the operations that use
//! them. Code elsewhere in the crate imports `crate::sync::*` and so cannot
//! bypass the checker by accident.
//!
//! Only [`AtomicU64`] and [`Ordering`] are needed: the filter is an array of
//! 64-bit words whose bits only ever go from 0 to 1 (except by `clear` and
//! `intersect`), and every operation on it is a load, `fetch_or`, `fetch_and`
//! or `swap` of one word. Why `Relaxed` is enough for each of them is argued
//! where they are used (`bit_array.rs`) and collected in the crate docs'
//! "Memory ordering" chapter.
//!
//! [loom]: https://docs.rs/loom

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};

/// Sets a word that no other thread can see (the caller holds `&mut`): a
/// plain write, no atomic instruction. Used to fill a freshly allocated
/// array from a file.
#[cfg(not(loom))]
#[inline]
pub(crate) fn set_unshared(word: &mut AtomicU64, value: u64) {
    *word.get_mut() = value;
}

/// Loom's atomics have `with_mut` where std's have `get_mut`.
#[cfg(loom)]
pub(crate) fn set_unshared(word: &mut AtomicU64, value: u64) {
    word.with_mut(|w| *w = value);
}
