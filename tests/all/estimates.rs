//! The filter's own estimates of how many keys it holds and of its current
//! false-positive rate are accurate.

use atomic_bloom::{AtomicBloom, Layout};

#[test]
fn estimated_len_is_within_two_percent_up_to_capacity() {
    let capacity = 200_000usize;
    for layout in Layout::ALL {
        for fpp in [0.1, 0.01, 1e-4] {
            let f = AtomicBloom::builder()
                .capacity(capacity, fpp)
                .layout(layout)
                .build()
                .unwrap();
            let mut inserted = 0;
            for fraction in [0.1, 0.5, 1.0] {
                let target = (capacity as f64 * fraction) as u64;
                for i in inserted..target {
                    f.insert(&i);
                }
                inserted = target;
                let estimate = f.estimated_len().unwrap() as f64;
                let error = estimate / target as f64 - 1.0;
                assert!(
                    error.abs() < 0.02,
                    "{layout} p={fpp} at {target}: estimate {estimate} ({error:+.3})"
                );
            }
        }
    }
}

#[test]
fn estimated_len_is_monotone_and_none_once_saturated() {
    let f = AtomicBloom::with_bits(512, 2).unwrap();
    // None, "every bit set", is the largest estimate.
    let estimate = |f: &AtomicBloom| f.estimated_len().unwrap_or(u64::MAX);
    let mut last = estimate(&f);
    assert_eq!(last, 0);
    for i in 0..100_000u32 {
        f.insert(&i);
        let now = estimate(&f);
        assert!(now >= last);
        assert_eq!(f.estimated_len().is_none(), f.count_ones() == 512);
        last = now;
    }
    assert_eq!(f.count_ones(), 512);
    assert_eq!(f.estimated_len(), None);
    assert_eq!(f.estimated_false_positive_rate(), 1.0);
}

#[test]
fn estimated_false_positive_rate_tracks_the_model_while_filling() {
    for layout in Layout::ALL {
        let f = AtomicBloom::builder()
            .capacity(100_000, 0.01)
            .layout(layout)
            .build()
            .unwrap();
        for i in 0..50_000u64 {
            f.insert(&i);
        }
        let model = f.sizing().false_positive_rate(50_000);
        let now = f.estimated_false_positive_rate();
        assert!(
            (now / model - 1.0).abs() < 0.05,
            "{layout}: {now} vs model {model}"
        );
        assert!(now < 0.01);
    }
}
