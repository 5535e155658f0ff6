//! Every bad input is a typed error that says what to change; none panics
//! or allocates what it asks for.

use atomic_bloom::{AtomicBloom, BuildError, Layout, MAX_BITS, MAX_HASHES, Sizing};

#[test]
fn false_positive_rate_must_be_strictly_between_zero_and_one() {
    for fpp in [
        0.0,
        1.0,
        -0.5,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        for layout in Layout::ALL {
            let err = AtomicBloom::builder()
                .capacity(100, fpp)
                .layout(layout)
                .build()
                .unwrap_err();
            assert!(
                matches!(err, BuildError::InvalidFalsePositiveRate(p) if p.to_bits() == fpp.to_bits())
            );
            assert!(err.to_string().contains("strictly between 0 and 1"));
        }
    }
    // The extremes that are allowed work.
    assert!(AtomicBloom::new(100, 0.999).is_ok());
    assert!(
        AtomicBloom::builder()
            .capacity(100, 1e-15)
            .layout(Layout::Standard)
            .build()
            .is_ok()
    );
}

#[test]
fn zero_items_is_an_error() {
    assert_eq!(
        AtomicBloom::new(0, 0.01).unwrap_err(),
        BuildError::ZeroItems
    );
}

#[test]
fn zero_bits_is_an_error() {
    assert_eq!(
        AtomicBloom::with_bits(0, 3).unwrap_err(),
        BuildError::ZeroBits
    );
}

#[test]
fn num_hashes_must_be_in_range() {
    for k in [0, MAX_HASHES + 1, u32::MAX] {
        assert_eq!(
            AtomicBloom::with_bits(1024, k).unwrap_err(),
            BuildError::InvalidNumHashes {
                got: k,
                max: MAX_HASHES
            }
        );
    }
    assert!(AtomicBloom::with_bits(1024, MAX_HASHES).is_ok());
}

#[test]
fn absurd_sizes_are_errors_not_allocations() {
    assert!(matches!(
        AtomicBloom::with_bits(MAX_BITS + 1, 3),
        Err(BuildError::TooLarge { .. })
    ));
    assert!(matches!(
        AtomicBloom::with_bits(u64::MAX, 3),
        Err(BuildError::TooLarge { .. })
    ));
    for layout in [Layout::Standard, Layout::Blocked] {
        let err = AtomicBloom::builder()
            .capacity(1 << 50, 1e-3)
            .layout(layout)
            .build()
            .unwrap_err();
        assert!(
            matches!(
                err,
                BuildError::TooLarge { .. } | BuildError::RateUnreachable { .. }
            ),
            "{err}"
        );
    }
    let err = Sizing::for_rate(Layout::Word, 1 << 40, 1e-6).unwrap_err();
    assert!(matches!(
        err,
        BuildError::RateUnreachable {
            layout: Layout::Word,
            ..
        }
    ));
    assert!(
        err.to_string()
            .contains("use the blocked or standard layout")
    );
}

#[test]
fn an_allocation_the_system_refuses_is_an_error() {
    // MAX_BITS is 1 TiB of bits: more than this machine will hand out
    // (24 GiB RAM; Linux's default heuristic overcommit refuses a request
    // larger than RAM plus swap).
    match AtomicBloom::with_bits(MAX_BITS, 1) {
        Err(BuildError::AllocationFailed { bytes }) => assert_eq!(bytes, MAX_BITS / 8),
        Ok(f) => panic!(
            "allocated {} bytes: expected the allocator to refuse",
            f.memory_bytes()
        ),
        Err(e) => panic!("unexpected {e}"),
    }
}

#[test]
fn missing_size_is_an_error() {
    let err = AtomicBloom::builder()
        .layout(Layout::Word)
        .build()
        .unwrap_err();
    assert_eq!(err, BuildError::MissingSize);
    assert!(
        err.to_string()
            .contains("capacity(items, false_positive_rate)")
    );
    // A rate alone sizes only a collect: build() says where it belongs.
    let err = AtomicBloom::builder()
        .false_positive_rate(0.01)
        .build()
        .unwrap_err();
    assert_eq!(err, BuildError::MissingSize);
    assert!(err.to_string().contains("build_from_iter"), "{err}");
}

#[test]
fn errors_are_std_errors() {
    fn is_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    is_error(&BuildError::ZeroItems);
    is_error(&atomic_bloom::IncompatibleError::Hasher);
}

/// Every p in (0, 1) gets a filter whose own model meets p, or a typed
/// error; none panics (these tests keep debug assertions on), and the size
/// never shrinks as p tightens. Near 1 the model once read a saturated
/// table at loads it was not built for and returned 0.
#[test]
fn every_rate_in_the_open_interval_gets_a_correct_filter_or_a_typed_error() {
    let near_one = (1..=16).map(|j| 1.0 - 10f64.powi(-j));
    let mut rates: Vec<f64> = near_one.chain([0.5, 0.1, 1e-3, 1e-6, 1e-9]).collect();
    rates.extend([1.0 - f64::EPSILON, f64::MIN_POSITIVE, 1e-300]);
    rates.sort_by(|a, b| b.total_cmp(a)); // loosest first
    for layout in Layout::ALL {
        for items in [1, 1000, 1_000_000] {
            let mut last_bits = 0;
            for &p in &rates {
                match Sizing::for_rate(layout, items, p) {
                    Ok(s) => {
                        let model = s.false_positive_rate(items);
                        assert!(model <= p, "{layout} n={items} p={p}: model {model}");
                        assert!(s.num_bits() >= last_bits, "{layout} n={items} p={p} shrank");
                        last_bits = s.num_bits();
                    }
                    Err(
                        BuildError::RateBelowHashFloor { .. }
                        | BuildError::RateUnreachable { .. }
                        | BuildError::TooLarge { .. },
                    ) => last_bits = u64::MAX,
                    Err(e) => panic!("{layout} n={items} p={p}: {e}"),
                }
            }
        }
    }
}

/// Every bit a key touches comes from its 64-bit hash, so an absent key
/// whose hash equals an inserted key's is always reported present: no
/// sizing beats `n / 2^64`, and a request below it is refused, saying so.
#[test]
fn rates_at_or_below_the_hash_floor_are_refused_with_the_floor() {
    let err = AtomicBloom::builder()
        .capacity(1000, 1e-80)
        .layout(Layout::Standard)
        .build()
        .unwrap_err();
    let BuildError::RateBelowHashFloor { floor, items, .. } = err else {
        panic!("{err}");
    };
    assert_eq!((floor, items), (1000.0 / 2f64.powi(64), 1000));
    let message = err.to_string();
    assert!(
        message.contains("1e-80") && message.contains("5.421e-17"),
        "{message}"
    );
    assert!(matches!(
        AtomicBloom::new(1_000_000_000, 1e-12),
        Err(BuildError::RateBelowHashFloor { .. })
    ));
    // Above the floor the model plus the floor meets the target.
    let s = Sizing::for_rate(Layout::Standard, 1_000_000_000, 1e-9).unwrap();
    assert!(s.false_positive_rate(1_000_000_000) <= 1e-9);
    assert!(s.false_positive_rate(1_000_000_000) >= 1e9 / 2f64.powi(64));
}

/// Messages name the right remedy, print rates as people write them, and
/// never claim a size of 0 bits.
#[test]
fn messages_say_what_to_change() {
    let blocked = Sizing::for_rate(Layout::Blocked, 1 << 40, 1e-7).unwrap_err();
    let text = blocked.to_string();
    assert!(
        matches!(blocked, BuildError::RateUnreachable { .. }),
        "{text}"
    );
    assert!(
        text.contains("use the standard layout") && !text.contains("blocked or"),
        "{text}"
    );
    assert!(text.contains("1e-7"), "{text}");
    for p in [1e-80, 1e-300] {
        let text = AtomicBloom::new(10, p).unwrap_err().to_string();
        assert!(!text.contains("0.0000"), "{text}");
    }
    let text = AtomicBloom::new(10, 2.0).unwrap_err().to_string();
    assert!(text.contains("got 2"), "{text}");
    for (items, p) in [(1usize << 50, 0.5), (1 << 50, 1.0 - 1e-15), (1 << 45, 1e-3)] {
        let err = Sizing::for_rate(Layout::Standard, items, p).unwrap_err();
        let BuildError::TooLarge { requested_bits, .. } = err else {
            panic!("{err}");
        };
        assert!(requested_bits > u128::from(MAX_BITS), "{err}");
    }
}
