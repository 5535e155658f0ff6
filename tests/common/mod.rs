//! Helpers shared by the integration tests.

use atomic_bloom::{AtomicBloom, Layout};

/// A filter of `layout` sized for `items` keys at `fpp`, hashed with `seed`,
/// holding the keys `0..items` (as `u64`).
pub fn filled(layout: Layout, items: u64, fpp: f64, seed: u64) -> AtomicBloom {
    let filter = AtomicBloom::builder()
        .capacity(items, fpp)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap();
    for key in 0..items {
        filter.insert(&key);
    }
    filter
}
