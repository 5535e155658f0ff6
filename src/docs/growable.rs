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
//!   `r` the tightening ratio (default 0.9) and `p` the target rate;
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
//! `p / (1 - r)`; here `p` itself is the promise.
//!
//! Each sub-filter is sized for its *fill limit*, 1/32 more keys than its
//! capacity, and grows at its capacity. The 1/32 is the room for inserts
//! that race its growth (next section); with no race it is a margin, for
//! one filter's rate differs from its model by the chance of its fill (a
//! few percent for the small first sub-filters). With one thread, a
//! million keys from 1000 measured 0.83 p (`Standard`) and 0.70 p
//! (`Blocked`): `cargo test --release --test all -- --nocapture growable::rate`.
//! The margin costs about 3% more bits than sizing for the capacity.
//!
//! The price: a query of an absent key probes every sub-filter, and an
//! insert of a new key first asks every older one. With `s = 2` there are
//! about `log2(n / n0)` of them, each a cache line of its own; a query asks
//! the CPU for all of them before probing any, so that their misses
//! overlap rather than follow one another. A batch (`insert_batch`,
//! `contains_batch`, their `_hash` forms and the `par_` ones) asks for a
//! key's lines 8 keys before it probes them, through the plain filter's
//! pipeline, so that the misses of several keys overlap as well.
//!
//! The memory is the sum of the sub-filters: with the standard layout,
//! sub-filter `i` needs `1.44 log2(1 / (p (1 - r) r^i))` bits per key of
//! its fill limit, `1.44 i log2(1/r)` more than the first, and the newest
//! may be up to `1 - 1/s` empty.
//!
//! Measured side by side by `cargo run --release -p atomic-bloom-harness --
//! bench --growable` (filling to 1M and 10M keys; BENCHMARKS.md has the
//! runs): the growable filter is several times slower than an
//! `AtomicBloom` pre-sized for the final count, absent keys most, since
//! every sub-filter is probed, and takes several times its memory; against
//! growable-bloom-filter on the same schedule behind an `RwLock` (the way
//! to share it) it is faster at every call, most on two threads. Pre-size
//! when the count is known.
//!
//! ## Growth without a lock
//!
//! Each sub-filter counts the inserts it reported new with a `Relaxed`
//! counter. An insert that finds the newest sub-filter full asks the chain
//! (`chain.rs`) to grow from it: exactly one thread wins the claim (a
//! compare-and-swap), allocates the next sub-filter and publishes it with
//! a `Release` compare-and-swap of the newest pointer; readers load that
//! pointer with `Acquire`. The other threads never wait: an insert that
//! loses the claim while the winner is still allocating inserts into the
//! full sub-filter.
//!
//! **How far a sub-filter overfills.** Up to its fill limit, and no
//! further, however long the winner takes: an insert that finds the
//! sub-filter at its fill limit stops waiting for the winner, allocates a
//! successor itself and tries to publish it with the same compare-and-swap.
//! One publication succeeds, the winner's or one of these; the others drop
//! the sub-filter they built, which no other thread has seen. So a
//! descheduled winner costs at worst some extra allocations, never an
//! unbounded overfill. The count is read before the insert, so inserts
//! already past that check go in too: one per other thread inserting at
//! that moment. That is the whole overfill: a sub-filter holds at most its
//! fill limit plus one key per other thread, and the rate bound holds up to
//! the fill limit. Growth sizes the new sub-filter (a model search:
//! microseconds for `Standard`, up to a few hundred for the blocked
//! layouts) and allocates it (a zeroed `calloc`, which maps fresh pages
//! without touching them). Sizing at growth rather than for every depth
//! when the filter is built or read keeps building and loading cheap; the
//! fill limit bounds what the search costs in overfill.
//!
//! Checked with a winner stopped in mid-growth (a hasher whose clone
//! waits at a gate, as growth clones the hasher into the new sub-filter)
//! while another thread inserts 50 000 keys and finishes: the full
//! sub-filter of 1000 ends within a key of its limit, 1032, and every key
//! is found (`tests/all/growable.rs`, `a_stalled_grower_is_overtaken_at_the_fill_limit`).
//! Four threads on two cores, five rounds of 350 000 keys from 100: the
//! largest overfill was 801 keys on a sub-filter of 25 600 (fill limit
//! 26 400), and the bound read at most 0.44 p
//! (`cargo test --release --test all -- --nocapture growable::threads`). Each
//! sub-filter's actual count is kept, and
//! [`false_positive_rate_bound`](crate::AtomicGrowableBloom::false_positive_rate_bound)
//! evaluates the layout's model at the actual counts.
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
