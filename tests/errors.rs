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
            .capacity(u64::MAX, 1e-9)
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
    let err = Sizing::for_rate(Layout::Word, u64::MAX / 64, 1e-12).unwrap_err();
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
    assert!(err.to_string().contains("capacity(items, fpp)"));
}

#[test]
fn errors_are_std_errors() {
    fn is_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    is_error(&BuildError::ZeroItems);
    is_error(&atomic_bloom::IncompatibleError::Hasher);
}
