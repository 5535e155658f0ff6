//! # Sizing: bits and hashes for a target false-positive rate
//!
//! [`Sizing::for_rate`](crate::Sizing::for_rate) picks the smallest array, and the number of hashes
//! `k` that makes it smallest, for which the layout's false-positive model
//! stays at or below the requested rate with the expected number of items;
//! for `Blocked`, a smaller `k` where that costs at most 2.5% more bits
//! ([Fewer hashes for `Blocked`](#fewer-hashes-for-blocked)).
//! Sizes are whole 64-bit words (`Standard`, `Word`) or 512-bit blocks
//! (`Blocked`, `Sectorized`).
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
//! drawn with replacement; with `X` its set bits, an absent key's `k`
//! probes all land on set bits with probability `E[(X/B)^k | i]`, so that
//!
//! ```text
//! FPR = Σ_i Poisson(i; λ) · E[(X/B)^k | i keys]
//! ```
//!
//! The sizing code computes `E[(X/B)^k | i]` exactly, without
//! approximation, by following the absent key rather than the block: its
//! `k` probes hit `J` distinct bits (a chain over the probes gives the law
//! of `J`), and it is a false positive iff the `i k` insert draws cover all
//! `J`. With `C_j(T)` the chance that `T` draws cover `j` given bits, a
//! first draw covers one of them with probability `j / B`, so
//!
//! ```text
//! C_j(T + 1) = (j/B) C_(j-1)(T) + (1 - j/B) C_j(T),    E[(X/B)^k | i] = Σ_j P(J = j) C_j(i k)
//! ```
//!
//! a recurrence over `k + 1` states where a chain over `X` needs `B + 1`,
//! and a sum of non-negative terms throughout (computed as `C_j + (j/B)
//! (C_(j-1) - C_j)`, whose difference is never negative: covering fewer
//! given bits is likelier), unlike the inclusion-exclusion closed form `Σ_l (-1)^l C(J, l) (1 - l/B)^(ik)`,
//! which cancels catastrophically for large `k`. `C` does not depend on
//! `k`, so one pass over the draws serves every `k` near where a search
//! starts, each adding a dot product per key. The sums over the keys per
//! block stop where what they leave out is below 1e-15 of the rate, under
//! their own rounding error, whatever more a model holds, so that a rate
//! does not depend on what a search asked before
//! (`a_rate_does_not_depend_on_what_was_asked_before`, to the bit). A test
//! checks the model against the chain over `X` to 1e-12
//! (`coverage_model_matches_the_fill_chain`).
//!
//! `Sectorized` draws `ceil(k/2)` bits in one of a block's first four words
//! and `floor(k/2)` in one of its last four, so each word is a 64-bit block
//! of its own for the keys that pick it, with the chain above for its rate
//! given how many did. Those counts are not independent for the two words
//! an absent key tests: with `λ` keys in the block, `s ~ Poisson(λ/16)`
//! keys picked both words and `x, y ~ Poisson(3λ/16)` one of them each, so
//!
//! ```text
//! FPR = Σ_s P(s) · (Σ_x P(x) E_first[s + x]) · (Σ_y P(y) E_second[s + y])
//! ```
//!
//! with `E_first[i] = E[(X/64)^ceil(k/2) | i keys]` and `E_second` likewise
//! for `floor(k/2)`. For `k = 1` it is one word's rate with `s + x ~
//! Poisson(λ/4)` keys. Both words' rates grow with `s`, so they are
//! positively associated and the rate is at least the product of the two
//! words' own rates.
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
//! | target p | Standard | Blocked | Word | Sectorized | SplitBlock |
//! |---|---|---|---|---|---|
//! | 0.1   |  4.8 (k=3)  |  4.8 (k=3)  |  5.0 (k=3)  |  4.9 (k=4)  |  6.0 (k=8) |
//! | 0.01  |  9.6 (k=7)  | 10.1 (k=5)  | 12.1 (k=5)  | 10.3 (k=6)  | 10.5 (k=8) |
//! | 0.001 | 14.4 (k=10) | 15.7 (k=8)  | 24.0 (k=7)  | 17.0 (k=8)  | 16.9 (k=8) |
//! | 1e-4  | 19.2 (k=13) | 22.3 (k=10) | 45.5 (k=9)  | 26.0 (k=10) | 26.3 (k=8) |
//! | 1e-5  | 24.0 (k=17) | 30.0 (k=12) | 86.6 (k=10) | 38.3 (k=12) | 41.0 (k=8) |
//!
//! (`cargo run --release --example sizing_table` prints it.)
//!
//! ## Choosing `k`
//!
//! Two facts about the models carry the search: at one size, rates are
//! unimodal in `k`, so a walk out from any `k` while they fall finds the
//! lowest; and for one `k`, rates fall as sizes grow, so a bisection finds
//! its fewest bits. The `Standard` size bounds every layout's from below
//! (blocks only ever raise the rate), so a `k`'s search gallops up from it
//! by doubling steps and then bisects, each step one exact rate.
//!
//! The search takes the `k` with the lowest rate at the `Standard` size of
//! `round(log2(1/p))`, the textbook optimum, and finds its fewest bits.
//! Then, while the `k` with the lowest rate one granule smaller meets the
//! target there, it moves to that `k` and its fewest bits. When none does,
//! no `k` has fewer bits; the `k` that meet the target at that size are a
//! run (small filters, whose sizes are a few blocks, have runs of a dozen
//! `k` or more), and of them the search takes the one nearest
//! `round(log2(1/p))`, walking towards it. If no `k` meets the target at
//! the largest size, the search says so. The exact block models are built
//! once per search and serve every `k` it asks (`src/layout/block_model.rs`
//! says how).
//!
//! The tests check the choice against trying every `k`
//! (`the_search_finds_what_trying_every_k_finds`, filters of 1 to 10^6
//! keys), that each size meets its target and is minimal, and the targets
//! no size reaches (`unreachable_targets_are_those_no_k_reaches`). `cargo
//! run --release -p atomic-bloom-harness -- bench` times the search (the
//! "sizing" lines) over n from 1 to 10^10 and p from 0.5 to 1e-12, each
//! layout's mean and worst case; BENCHMARKS.md has the runs.
//!
//! ## Fewer hashes for `Blocked`
//!
//! The fewest bits are not all a filter costs. A `Blocked` insert sets
//! each of a key's `k` bits with its own locked instruction, and those
//! bound its speed (the harness's bench measures a locked write on each
//! machine; BENCHMARKS.md); a query tests each bit. Near the best `k`
//! sizes are flat, so for `Blocked`, `for_rate` takes the smallest `k`
//! whose fewest bits are within a 40th (2.5%) of the fewest of any `k`,
//! rounded down to whole blocks, with its own fewest bits. For 1M keys
//! (checked by the sizing code's tests, as the table above):
//!
//! | target | fewest bits per key | taken | more bits |
//! |---|---|---|---|
//! | p = 0.01  | 9.92 (k=6)   | 10.12 (k=5)  | 2.0% |
//! | p = 0.001 | 15.55 (k=9)  | 15.66 (k=8)  | 0.7% |
//! | p = 1e-4  | 22.03 (k=12) | 22.27 (k=10) | 1.1% |
//! | p = 1e-6  | 38.82 (k=16) | 39.77 (k=13) | 2.4% |
//! | p = 1e-9  | 80.18 (k=22) | 82.04 (k=18) | 2.3% |
//!
//! A filter under 40
//! blocks (about 2,000 keys at 1%) has no whole block to spare and keeps
//! the fewest bits; up to about 10,000 keys at 1%, `k` is 5 or 6 as sizes
//! round to whole blocks. The other layouts keep the fewest bits:
//! `Standard` the textbook optimum that Guava and other libraries share,
//! so that its sizes and `k` stay theirs, and `Word` and `Sectorized`
//! write one or two words whatever `k` is.
//!
//! Against the code that took the fewest bits, fewer hashes sped up
//! new-key inserts and queries of present keys, with 1M keys and with
//! 100M; duplicate inserts at 100M did not speed up with the queries, so
//! their ratio to a query fell (`cargo run --release -p
//! atomic-bloom-harness -- bench`; BENCHMARKS.md has every row, and why).
//!
//! After the search for the fewest bits, the walk goes down from their
//! `k` while the next `k` meets the target at the tolerated size (at one
//! size, rates rise as `k` falls below the best), and the last such `k`
//! gets its own fewest bits. The test
//! `the_search_finds_what_trying_every_k_finds` checks the choice against
//! the fewest bits of every `k`.
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
//! target (`tests/all/errors.rs`: `rates_at_or_below_the_hash_floor_are_refused_with_the_floor`;
//! every rate in (0, 1), down to 1e-300, gets a filter whose model meets it
//! or a typed error: `every_rate_in_the_open_interval_gets_a_correct_filter_or_a_typed_error`).
