//! # The growable filter: growing without knowing the number of keys
//!
//! [`AtomicGrowableBloom`](crate::AtomicGrowableBloom) answers the question every other constructor
//! asks, "how many keys?", by not needing it. It is Almeida, Baquero,
//! Preguiça and Hutchison's *scalable Bloom filter* ("Scalable Bloom
//! Filters", Information Processing Letters 101(6), 2007), the design
//! RedisBloom's `BF.RESERVE ... EXPANSION` uses, built from [`AtomicBloom`](crate::AtomicBloom)s
//! without a lock:
//!
//! - a chain of sub-filters, each an [`AtomicBloom`](crate::AtomicBloom). Sub-filter `i` (the
//!   first is 0) is sized for `n0 · s^i` keys at rate `p · (1 - r) · r^i`,
//!   where `n0` is the initial capacity, `s` the growth factor (default 2),
//!   `r` the tightening ratio (default 0.5) and `p` the target rate;
//! - inserts go to the newest sub-filter. When it has taken its capacity of
//!   new keys, the next insert adds a sub-filter;
//! - a query asks every sub-filter, newest (largest) first.
//!
//! A key is a false positive of the chain only if it is one of some
//! sub-filter, so the chain's expected rate is at most the sum of theirs:
//! `p (1 - r) (1 + r + r^2 + ...) = p (1 - r^L) < p` with `L` sub-filters,
//! *however many keys arrive* (the union bound needs no independence, so
//! every sub-filter hashes a key with the same 64-bit hash, computed once).
//! The paper and RedisBloom give the first sub-filter rate `p` and promise
//! `p / (1 - r)`; here `p` itself is the promise. It bounds the expected
//! rate: one filter's rate differs from its model by the chance of its
//! fill, a few percent for small sub-filters, and the series leaves no
//! margin for that (a million keys from 1000 measured 1.006 p with
//! `Standard`, `tests/growable.rs`).
//!
//! The price: a query of an absent key probes every sub-filter, and an
//! insert of a new key first asks every older one. With `s = 2` there are
//! about `log2(n / n0)` of them, but the older ones are small (half the
//! bits of the next), so most of them stay in cache. The memory is the sum
//! of the sub-filters: with the standard layout, sub-filter `i` needs
//! `1.44 log2(1 / (p (1 - r) r^i))` bits per key, `1.44 i log2(1/r)` more
//! than the first, and the newest may be up to `1 - 1/s` empty.
//!
//! ## Growth without a lock
//!
//! Each sub-filter counts the inserts it reported new with a `Relaxed`
//! counter. An insert that finds the newest sub-filter full asks the chain
//! (`chain.rs`) to grow from it: exactly one thread wins the claim (a
//! compare-and-swap), allocates the next sub-filter and publishes it with a
//! `Release` store; readers load the newest pointer with `Acquire`. The
//! other threads never wait: an insert that loses the claim while the
//! winner is still allocating inserts into the full sub-filter.
//!
//! **How far a sub-filter overfills.** By the inserts that race its
//! growth: those that checked it before it filled, one per thread, and
//! those that lost the claim while the winner allocated. Every sizing is
//! computed when the filter is built (a model search per sub-filter), so
//! growth only allocates: a zeroed `calloc`, which maps fresh
//! pages without touching them. On a machine with a core per thread the
//! overfill is then a sliver of a sub-filter. **It is not bounded when the
//! growing thread is descheduled**: the others insert into the full
//! sub-filter for as long as it sleeps. Four threads on two cores
//! (`cargo test --release --test growable -- --nocapture`, `threads`)
//! overfilled a sub-filter of 25 600 keys by 31 302 in one round of five,
//! and the bound then read 1.16 p; the other rounds stayed below p. Each
//! sub-filter's actual count is kept, and
//! [`false_positive_rate_bound`](crate::AtomicGrowableBloom::false_positive_rate_bound)
//! evaluates the layout's model at the actual counts, so the bound a caller
//! reads accounts for any overfill; but the promise "below p" holds only
//! while no growth is delayed so. Bounding it without a lock means letting
//! a thread that finds the sub-filter far past its capacity allocate a
//! successor too, and publishing by compare-and-swap of the newest pointer:
//! not done yet.
//!
//! ## Limits
//!
//! The chain stops at [`max_sub_filters`](crate::GrowableBuilder::max_sub_filters),
//! at most [`MAX_SUB_FILTERS`](crate::MAX_SUB_FILTERS), and by default the deepest sub-filter whose
//! tightened rate is still above the [hash floor](crate::hash_floor) of its
//! capacity; and at an optional [memory
//! limit](crate::GrowableBuilder::memory_limit). Past either, an insert of a new
//! key returns [`GrowthError`](crate::GrowthError) and inserts nothing; queries and inserts of
//! keys already present go on working.
//!
//! ## What `clear` costs
//!
//! [`clear`](crate::AtomicGrowableBloom::clear) takes `&mut self`. A concurrent
//! clear would free sub-filters other threads may be reading, which needs
//! a reclamation scheme (epochs, hazard pointers) on every query; keeping
//! them all instead would leave a long chain of small sub-filters to probe
//! forever. A growable filter shared through an `Arc` is cleared by
//! building a new one and swapping it in, as one swaps any other value.
