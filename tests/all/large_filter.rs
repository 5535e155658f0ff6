//! A filter of more than 2^32 bits (about 520 MiB) uses all of them: index
//! and size math is 64-bit, range reduction 128-bit. (fastbloom 0.14-0.15
//! never set a bit past 2^32; Guava had four 32-bit overflow bugs.)

use atomic_bloom::{AtomicBloom, Layout};

const BITS: u64 = (1 << 32) + (1 << 26);

#[test]
fn filters_beyond_four_billion_bits_work_in_every_layout() {
    // One layout at a time: three half-gigabyte arrays at once would be
    // needlessly heavy for CI.
    for layout in Layout::ALL {
        let f = AtomicBloom::builder()
            .bits(BITS, layout.fixed_num_hashes().unwrap_or(3))
            .layout(layout)
            .build()
            .unwrap();
        assert_eq!(f.num_bits(), BITS);
        assert_eq!(f.memory_bytes() as u64, BITS / 8);
        // 300 000 keys set ~900 000 bits (2.4M with `SplitBlock`'s 8); the
        // 2^26 bits past 2^32 are 1.5% of the array, so about 14 000 of
        // them should be set (36 000).
        let keys = 300_000u64;
        for i in 0..keys {
            f.insert(&i);
        }
        assert!(
            (0..keys).all(|i| f.contains(&i)),
            "{layout}: false negative"
        );
        let ones = f.count_ones();
        let above: u64 = f
            .words()
            .skip(1 << 26)
            .map(|w| u64::from(w.count_ones()))
            .sum();
        let expected = ones as f64 * (1 << 26) as f64 / BITS as f64;
        assert!(
            (above as f64 - expected).abs() < 6.0 * expected.sqrt(),
            "{layout}: {above} bits set above 2^32, expected about {expected:.0}"
        );
        // And the estimates still hold at this size.
        let est = f.estimated_len().unwrap() as f64 / keys as f64;
        assert!(
            (est - 1.0).abs() < 0.02,
            "{layout}: estimated_len off by {est}"
        );
    }
}
