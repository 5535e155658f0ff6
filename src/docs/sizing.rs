//! # Sizing: bits and hashes for a target false-positive rate
//!
//! [`Sizing::for_rate`](crate::Sizing::for_rate) picks the smallest array, and the number of hashes
//! `k` that makes it smallest, for which the layout's false-positive model
//! stays at or below the requested rate with the expected number of items.
//! Sizes are whole 64-bit words (`Standard`, `Word`) or 512-bit blocks
//! (`Blocked`).
//!
//! ## The models
//!
//! `Standard`: each of the `k n` probes sets a uniformly random bit of `m`,
//! so a given bit is still clear with probability `(1 - 1/m)^(kn)` and an
//! absent key's `k` probes all land on set bits with probability
//! `(1 - (1 - 1/m)^(kn))^k`, the textbook `(1 - e^(-kn/m))^k` tabulated by
//! `m/n` and `k` in Fan, Cao, Almeida and Broder, "Summary Cache" (2000).
//!
//! `Blocked` and `Word` confine a key to one block of `B` bits (512 or 64).
//! The number of keys `i` in the queried block is Poisson with mean
//! `λ = B n / m`, and a block holding `i` keys has had `i k` random bits
//! drawn with replacement. Its set-bit count `X` follows a Markov chain
//! (each draw keeps `X` with probability `X / B`, else adds one), which the
//! sizing code runs exactly to get `E[(X/B)^k | i]`, so that
//!
//! ```text
//! FPR = Σ_i Poisson(i; λ) · E[(X/B)^k | i keys]
//! ```
//!
//! The often-quoted shortcut `(1 - (1 - 1/B)^(ik))^k` plugs in the mean fill
//! and, by Jensen's inequality, underestimates: by 1-4% for `B = 512` and
//! 6-25% for `B = 64`, enough for a `Word` filter sized with it to miss its
//! target by a quarter. Poisson rather than binomial key counts is slightly
//! pessimistic for tiny filters, which errs on the side of the user.
//!
//! ## Bits per key
//!
//! For many items, `Sizing::for_rate(layout, 1_000_000, p).bits_per_item(1_000_000)`
//! gives (checked by the sizing code's tests, so the table cannot drift):
//!
//! | target p | Standard | Blocked | Word |
//! |---|---|---|---|
//! | 0.1   |  4.8 (k=3)  |  4.8 (k=3)  |  5.0 (k=3)  |
//! | 0.01  |  9.6 (k=7)  |  9.9 (k=6)  | 12.1 (k=5)  |
//! | 0.001 | 14.4 (k=10) | 15.5 (k=9)  | 24.0 (k=7)  |
//! | 1e-4  | 19.2 (k=13) | 22.0 (k=12) | 45.5 (k=9)  |
//! | 1e-5  | 24.0 (k=17) | 29.7 (k=14) | 86.6 (k=10) |
//!
//! (`cargo run --release --example sizing_table` prints it.)
//!
//! ## Limits
//!
//! Index and size arithmetic is 64-bit (128-bit for range reduction), so a
//! filter may exceed 2^32 bits; the maximum is [`MAX_BITS`](crate::MAX_BITS) and at most
//! [`MAX_HASHES`](crate::MAX_HASHES) bits per key. Every constructor returns a [`BuildError`](crate::BuildError)
//! for input it cannot honour, including a size the allocator refuses.
//!
//! Every bit a key touches is derived from its 64-bit hash, so an absent
//! key whose hash equals an inserted key's is always a false positive: no
//! filter of `n` keys goes below the [hash floor](crate::hash_floor)
//! `n / 2^64` (5.4e-14 for a million keys, 5.4e-11 for a billion). A rate
//! at or below it is refused with [`BuildError::RateBelowHashFloor`](crate::BuildError::RateBelowHashFloor); above
//! it, filters are sized so that the model's rate plus the floor meets the
//! target (`tests/errors.rs`: `rates_at_or_below_the_hash_floor_are_refused_with_the_floor`;
//! every rate in (0, 1), down to 1e-300, gets a filter whose model meets it
//! or a typed error: `every_rate_in_the_open_interval_gets_a_correct_filter_or_a_typed_error`).
