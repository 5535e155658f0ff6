//! # Memory ordering: the concurrency contract and its proof
//!
//! Any number of threads may call any mix of operations on one filter; none
//! blocks, none takes a lock. What each promises when others run at the
//! same time is this chapter.
//!
//! The whole concurrency argument, in one place. The filter is an array of
//! 64-bit atomic words (`src/storage/bit_array.rs` holds every atomic operation on
//! bits, `src/storage/counter_array.rs` those on the counting filter's counters,
//! through the facade `src/sync.rs` that swaps in loom's atomics for model
//! checking). Between clears a word's bits only ever go from 0 to 1, and
//! every operation is a load, `fetch_or`, `fetch_and` or `swap` of one word
//! with `Ordering::Relaxed`. Two facts of the C++/Rust memory model carry
//! every guarantee:
//!
//! - **RMW atomicity**: a read-modify-write (`fetch_or`, `fetch_and`,
//!   `swap`) always reads the last value in its word's modification order,
//!   whatever its ordering. Two `fetch_or`s on one word cannot both read the
//!   same old value, so neither loses the other's bits.
//! - **Coherence**: all threads agree on one modification order per word; a
//!   load that happens-after a write reads that write or a later one, and a
//!   thread's later load of a word never reads an older value than its
//!   earlier one.
//!
//! Ordering arguments (`Acquire`, `Release`) only matter when one memory
//! location is used to make *other* locations' contents visible. A filter's
//! words never do that, so `Relaxed` is enough for every bit and counter;
//! stronger orderings would add fences on weakly ordered CPUs and buy
//! nothing. The one exception is the growable filter's chain, below.
//!
//! | # | guarantee | why `Relaxed` is enough | checked by |
//! |---|---|---|---|
//! | G1 | **No lost bits.** Concurrent inserts of any keys, in the same word or not, never undo each other; after they finish the bits equal a sequential build. | RMW atomicity of `fetch_or`. | `loom-tests/tests/insert.rs`: `different_keys_sharing_a_word`; negative control `negative.rs`: `split_fetch_or_loses_bits`; `tests/all/stress.rs`: `concurrent_writers_and_readers_converge_to_the_sequential_build` |
//! | G2 | **No false negative after happens-before.** If `insert(x)` happens-before `contains(x)` (program order, `join`, a channel, a mutex, a Release/Acquire flag), `contains(x)` is `true`. | Coherence: the load reads the `fetch_or`'s value or a later one, and later values keep the bits. The happens-before edge must come from outside. | `read.rs`: `reader_after_release_acquire_handoff`; negative control `negative.rs`: `relaxed_handoff_can_miss_the_insert`; `tests/all/stress.rs` |
//! | G3 | **Monotone reads.** A thread's successive `contains(x)` never go from `true` to `false` (without a `clear`/`intersect`). A `contains` racing the insert of `x` may return either. | Read-read coherence per word. | `read.rs`: `reader_concurrent_with_writer_is_monotone` |
//! | G4 | **`insert`'s result.** `Word`: `true` iff the call's `fetch_or` set a bit. `Standard`, `Blocked`, `Sectorized`: `true` iff the call's test found a bit clear, after which it sets them all. For a key absent before the race: with `Word` exactly one racer gets `true`; with the others at least one, and several can. | `Word` sets all bits in one `fetch_or`, and exactly one RMW in the word's order sees them missing. Otherwise, where only the racers write the key's bits: a test that shows every bit set read values written by the `fetch_or`s of a racer, which wrote only because its own test found a bit clear, and so returned `true` (coherence per word); the writes' old values are not needed. | `insert.rs`: `same_key_two_inserters_word`, `same_key_three_inserters_word`, `same_key_two_inserters_spanning_two_words` (both `true` reached), `batch_inserts_race_like_single_inserts` (batches return per key what `insert` would); `tests/all/stress.rs`: `racing_inserters_of_a_new_key_are_told_it_was_new` |
//! | G5 | **`clear`.** Keys whose inserts happened-before it are gone when it returns; inserts that begin after it returns are kept; an insert (single or batch) racing it may survive whole, in part, or not at all; clears racing each other leave nothing set. | Each word is zeroed by one `swap`, ordered against every `fetch_or` and `swap` on that word. | `bulk.rs`: `clear_racing_insert` (all three outcomes reached), `batch_racing_clear`, `clear_racing_clear`; negative control `negative.rs`: `clear_by_xor_brings_bits_back` |
//! | G6 | **`union`.** `dst` gains every key `src` held when the call began and keeps every key inserted into `dst` meanwhile; a key inserted into `src` meanwhile may or may not come across. | RMW atomicity of `fetch_or` on `dst`; coherence of the loads of `src`. | `bulk.rs`: `union_racing_insert`, `union_from_a_changing_source`; negative control `negative.rs`: `split_fetch_or_union_loses_an_insert` |
//! | G7 | **`intersect`.** It never clears a bit that `other` holds: every key both filters hold when it returns is kept, whether it was inserted into `self` before, during or after the call. A key `other` lacks that is inserted into `self` meanwhile may be kept or lost. | `fetch_and` per word with `other`'s bits: a racing `fetch_or` of bits `other` holds lands before (and is kept by the mask) or after. | `bulk.rs`: `intersect_racing_insert`, `intersect_racing_an_insert_of_a_shared_key`; negative control `negative.rs`: `split_fetch_and_loses_a_shared_key` |
//! | G8 | **Counts** (`count_ones`, `estimated_len`, `estimated_false_positive_rate`, `words`, `==`) read each word once: they lie between the values before and after the inserts racing them, and successive counts never decrease. | Coherence per word; bits only grow. | `bulk.rs`: `count_racing_inserts_is_monotone` |
//! | G9 | **Snapshots** (`try_clone`, `Clone`) hold every key inserted before the call began, and a racing insert whole, in part or not at all. | As G8. | `bulk.rs`: `snapshot_racing_insert` |
//!
//! ## The counting filter
//!
//! [`AtomicCountingBloom`](crate::AtomicCountingBloom) keeps 4-bit counters,
//! sixteen to a word (`src/storage/counter_array.rs`). Every change to a word is one
//! `compare_exchange_weak` from the value it was computed from, retried
//! (with `crossbeam_utils::Backoff`) when another thread changed the word
//! first; a key's counters in one word change together, its words one
//! after another. All `Relaxed`, for the reasons above: each update is a
//! read-modify-write of one word, and no other memory is published through
//! the counters.
//!
//! | # | guarantee | why `Relaxed` is enough | checked by |
//! |---|---|---|---|
//! | C1 | **No lost counts.** Concurrent inserts and removes of any keys, sharing words or not, each change exactly their own counts; once they finish the counters equal a sequential run of the same operations (if no counter saturated or was asked to go below zero). | A compare-and-swap succeeds only on the value its new value was computed from, so each update lands once in the word's modification order. A compare-and-swap that loses to another thread's update of the word retries from the value it found, never gives up. | `loom-tests/tests/counting.rs`: `inserts_sharing_a_word_both_count`, `insert_and_remove_sharing_a_word` (every counter against the sequential run, not only `count_of`); negative controls `split_counter_update_loses_a_count`, `an_abandoned_update_leaves_a_counter_too_high`; `tests/all/counting.rs`: `threads_inserting_and_removing_overlapping_keys_converge` |
//! | C2 | **No false negative after happens-before.** A key whose inserts outnumber its removes, all happening-before a `contains` (or `count_of`), is found. | Coherence, as G2: the load reads the last update ordered before it or a later one; counters of a key with more inserts than removes stay above zero in every later value, since other keys' removes take only their own counts. | `counting.rs`: `insert_then_query_after_handoff`; `tests/all/counting.rs`: `agrees_with_a_multiset` |
//! | C3 | **Saturation and zero are exact.** A counter stops at 15 and is never decremented from there; a counter at zero is never decremented; neither carries into nor borrows from its neighbour, however updates race. | The lanes that may change are computed from the value the compare-and-swap then checks. | `counting.rs`: `racing_increments_saturate_exactly`, `racing_checked_removes_spare_zero_counters`; negative control `wrapping_decrement_creates_a_false_negative` |
//! | C4 | **`remove`, `clear` and conversion.** `remove` is not linearizable: its check and its decrement are separate steps. Two removes of a key's last insert can both pass the check; the second then spares the key's counters already at zero and returns `false`, but takes a count from every one of them that another key shares, and that key may become a false negative. Exactly one of the two returns `true`. So callers must not race checked removes of one key: within one `remove_batch` or `par_remove` call, every occurrence of a key runs on one task in input order, so the call never races itself; the command-line tool checks every key before removing any, in one process; Python's `remove_many` works through its keys in order. `clear` zeroes word by word (as G5): a racing insert survives whole, in part or not at all. `to_bloom`, copies (`try_clone`, `Clone`), counts, estimates and files read each word once (as G8, G9). | As G5 and G8. | `counting.rs`: `racing_checked_removes_spare_zero_counters`, `racing_checked_removes_can_take_a_count_of_a_partly_sharing_key` (the other key kept and lost both reached); negative control `wrapping_decrement_in_a_double_remove_wraps_a_counter`; `clear_racing_insert`; `src/kinds/counting.rs`: `checked_remove_tasks_hold_every_occurrence_of_a_key_in_input_order`, `par_remove_runs_every_copy_of_a_key_in_one_task` (from the tasks the call ran, whatever the race did) |
//! | C5 | **`union` loses no count.** A union of counting filters (`union`, `par_union`) adds each of the other filter's words to this filter's with one compare-and-swap per word (sums saturating at 15, lane by lane, as C3): inserts and removes racing it on this filter keep their counts, as C1. The other filter's words are read once each (as G9). | As C1. | `counting.rs`: `merge_racing_insert_both_count`; negative control `split_counter_update_in_a_merge_loses_a_count`; `tests/all/counting.rs`: `a_merge_racing_updates_loses_no_count`, `a_merge_is_the_filter_of_both_inserts` |
//! | C6 | **What `insert` returns under races.** As G4 for the plain filter: an insert returns `true` when one of the key's counters was zero when its compare-and-swap changed that word. Of racing inserts of a key none of whose counters was above zero, at least one returns `true`, and more than one can (each may find a different counter at zero, in different words); every insert's count lands (C1). | Each word's updates are ordered; the first update of each of the key's words sees its counters at zero. | `counting.rs`: `racing_inserts_of_a_new_key_report_it_new_at_least_once` (one, the other and both reached); for a key whose counters share one word, exactly one reports it new: `racing_inserts_of_a_one_word_key_report_it_new_exactly_once`, negative control `split_counter_updates_report_a_new_key_new_twice` |
//!
//! ## The growable filter: the one Release/Acquire pair
//!
//! [`AtomicGrowableBloom`](crate::AtomicGrowableBloom) is a chain of plain
//! filters (`src/kinds/growable/`). Its sub-filters' bits obey
//! G1-G9. What is new is *growth*: a thread allocates a sub-filter and
//! other threads must be able to use it. This is the first place where one
//! atomic makes other memory visible, so it is the first non-`Relaxed`
//! ordering in the crate. The newest sub-filter's pointer is stored with
//! `Release` once the sub-filter is built, and every reader loads it with
//! `Acquire`: everything the grower wrote before the store (the sub-filter's
//! zeroed words, its counter, its link to the older ones) happens-before
//! every read through the pointer. With `Relaxed` a reader could follow the
//! pointer to memory it is not guaranteed to see initialised. Who grows is
//! decided by a compare-and-swap on the full sub-filter's claim word
//! (`Relaxed`: only its atomicity matters), so the next sub-filter is
//! allocated exactly once; the per-sub-filter count of new keys is a
//! `Relaxed` `fetch_add` (it only decides when to grow).
//!
//! | # | guarantee | why the ordering is enough | checked by |
//! |---|---|---|---|
//! | G10 | **One allocation per crossing.** Threads that find the newest sub-filter full at once allocate one sub-filter between them; the others insert into the full one meanwhile (never wait), up to its fill limit, or into the new one if they see it. | The claim's compare-and-swap has one winner per sub-filter, and the claim stays taken after growth; a failed growth (a limit, the allocator) reopens it, so the next insert tries again. | `loom-tests/tests/growable.rs`: `threads_crossing_the_threshold_add_one_sub_filter` (both the overfill and the handover reached), `growth_failure_reopens_the_claim`; negative controls `split_growth_claim_is_caught`, `a_claim_kept_after_a_failed_growth_is_caught` |
//! | G11 | **No key lost to growth.** A key inserted while the chain grows, into the old newest sub-filter or the new one, is found by every query that happens after the insert. | Sub-filters are only added (until `clear`, which takes `&mut self`), every query walks the whole chain, and each sub-filter keeps G2. | `growable.rs`: `threads_crossing_the_threshold_add_one_sub_filter`, `insert_during_growth_is_found_after_a_handoff`; `tests/all/growable.rs`: `racing_threads_lose_no_key` |
//! | G12 | **Queries and copies racing growth.** A query, or a copy (`try_clone`, `Clone`: each sub-filter copied as G9), that starts after a key's insert happened-before it finds the key, whether it sees the chain before or after a racing growth. | As G11: the sub-filter holding the key is reachable from every newest pointer published since, and a copy walks the chain from one load of that pointer, as a query does. | `growable.rs`: `reader_racing_growth_sees_an_initialised_sub_filter` (both chain lengths reached); `tests/all/growable.rs`: `a_clone_racing_growth_holds_every_key_inserted_before_it` |
//! | G13 | **Publication.** A thread that sees the new sub-filter's pointer sees the sub-filter initialised. | `Release` on the compare-and-swap that publishes the pointer, `Acquire` loads of it. | `growable.rs`: `reader_racing_growth_sees_an_initialised_sub_filter`; negative control `relaxed_publish_is_caught` (loom reports the read of a word whose creation does not happen-before it) |
//! | G14 | **Bounded overfill, one successor.** A sub-filter takes at most its fill limit (1/32 past its capacity) and one insert per other thread, however long the claimant of its growth is descheduled; however many threads build a successor, one is published and no key inserted into it is lost. | An insert that finds the sub-filter at its fill limit stops waiting and builds a successor itself; every publication is a compare-and-swap of the newest pointer from the full sub-filter, so one succeeds and the others drop their sub-filter, which no other thread has seen. | `growable.rs`: `a_stalled_grower_is_overtaken` (claimant alone and overtaken both reached); negative control `publish_by_store_is_caught`; `tests/all/growable.rs`: `a_stalled_grower_is_overtaken_at_the_fill_limit`, `racing_threads_lose_no_key_and_overfill_within_the_limit` |
//! | G15 | **Counts of new keys.** A sub-filter's count of keys it reported new (what decides its growth, bounds its rate, and sums to `estimated_len`) is exactly the number of its inserts that returned `true`, however they race. | One `fetch_add` per such insert: atomic, so no increment is lost; `Relaxed`, as the count publishes nothing. | `growable.rs`: `racing_counted_inserts_both_count`; negative control `split_insert_count_loses_a_count`; `tests/all/growable.rs`: `racing_threads_lose_no_key_and_overfill_within_the_limit` (the counts against each thread's own tally of `true` returns) |
//!
//! ## Across processes: shared files
//!
//! A [shared](super::shared) filter's words are a file that several
//! processes map; an atomic operation on a mapped word acts on the one
//! physical word every process sees, so G1-G9 hold between processes as
//! between threads. One guarantee is new:
//!
//! | # | guarantee | why the ordering is enough | checked by |
//! |---|---|---|---|
//! | G16 | **The seal holds every writer's inserts.** Of writers closing a shared file, the last seals it; the checksum it writes covers every insert of every writer that closed before it. | Every writer holds the file's writer lock shared; a closer, under the state lock, lets go of it and seals only if it can then take it exclusive. Another writer's inserts precede its release of the lock (its close, or its death: the kernel releases a dead process's locks), which the kernel orders before the sealer's acquisition; the sealer reads the words through the file descriptor, from the page cache, which is the memory every process's mapping stores to. | `loom-tests/tests/shared.rs`: `seal_after_writers_close` (the locks modelled as loom's); negative control `upgrade_in_place_leaves_the_file_unsealed`; `tests/all/shared.rs`: `the_last_writer_to_close_seals_the_file`, `processes_inserting_overlapping_keys_build_the_sequential_filter_bit_for_bit` (the file `load`s, so its checksum matched) |
//!
//! ## The windowed filter: a ring of generations
//!
//! [`AtomicWindowedBloom`](crate::AtomicWindowedBloom) keeps `g` live
//! generations of plain filters and one spare in a ring
//! (`src/kinds/window/ring.rs`, which has the design); each generation's
//! bits obey G1-G9. What is new is *rotation*: a new generation becomes
//! current and the oldest is retired and cleared, while other threads
//! insert and query. An insert reads the epoch, writes into that
//! generation, and reads the epoch again; if it moved, it writes again into
//! the generation now current, and checks again. It announces nothing: its
//! only writes are the bits and a count on its own thread's stripe, so
//! inserts on different cores share no written word but the filter's. A
//! write that reaches a generation after its retirement is either erased
//! by the clear or left in the slot's next generation (the key kept one
//! generation longer), and the check after it writes the key where it
//! belongs: late writes cost false positives, never a key. The window's
//! promises count rotations: a key is kept for
//! `g - 1` rotations after its insert takes effect, which the rotation
//! schedule turns into the window's duration or number of keys.
//!
//! | # | guarantee | why the ordering is enough | checked by |
//! |---|---|---|---|
//! | W1 | **No false negative within the window.** A key whose insert happened-before a query is found by it until the key's generation is retired, `g` rotations after the generation the insert took effect in, which was current during the insert. | The insert takes effect at its last check of the epoch, when its generation was current; a query reads the epoch (`Acquire`) at least that new and asks the `g` generations up to it. | `loom-tests/tests/window.rs`: `a_key_inserted_before_a_query_is_found_across_a_rotation`; negative control `a_query_of_the_current_generation_only_misses_it`; `tests/all/window.rs`: `no_key_is_lost_while_rotating`, `a_window_of_keys_keeps_the_last_n`, `a_window_of_time_keeps_a_key_for_its_duration` |
//! | W2 | **Rotations lose no insert.** An insert whose generation is retired before or while it writes (its write erased by the clear, or left in the cleared slot, now the spare) writes the key again into the current generation before returning. | The check after the write: the epoch is read again after every write, and a moved epoch means another write into the generation it names (`Acquire`, so after that generation's clear). No fence is needed: a check that reads the old epoch though the write was erased places the whole insert before the rotation it missed, and the key then left on schedule. | `window.rs`: `an_insert_whose_generation_retires_inside_it_inserts_again` (held after its write), `a_late_write_into_a_cleared_slot_is_written_again` (held before it); negative controls `an_insert_that_does_not_check_again_loses_its_key`, `a_late_write_not_checked_after_is_lost_in_the_spare`; `tests/all/window.rs`: `no_key_is_lost_while_rotating` |
//! | W3 | **One rotation per epoch.** Of rotations racing from one epoch exactly one happens; each retires one generation, once. | A compare-and-swap of the epoch: one winner per value; only the winner retires and makes the spare current. | `window.rs`: `racing_rotations_retire_once` (one and two rotations reached); negative control `racing_rotations_by_store_both_win` |
//! | W4 | **Clears never reach the window.** A query racing the rotation that retires and clears the oldest generation finds every key of the younger ones; the generation being cleared holds only keys already out of the window, so a query that still reads it needs none of them. | Only the retired generation's slot is cleared, after the epoch moved past it; the younger generations are not written but by inserts. | `window.rs`: `a_query_racing_a_retirement_finds_the_live_keys`; negative control `retiring_the_wrong_generation_loses_a_live_key` |
//! | W5 | **A time window rotates by the new generation's start.** A check of whether the current generation's time is up (every query and insert of a time window makes it) never pairs a new epoch with the start its slot recorded in its previous life, so no generation that has just begun is rotated by time. | The epoch is read `Acquire`, pairing with the rotation's `AcqRel` compare-and-swap, which comes after the retirement that reset the slot's start: a check that sees the new epoch sees the reset start (and does not rotate) or the new one. | `window.rs`: `a_time_check_racing_a_rotation_keeps_the_new_generation` (a query), `an_inserts_time_check_racing_a_rotation_keeps_the_new_generation`; negative controls `a_relaxed_epoch_read_rotates_a_generation_that_has_just_begun`, `a_relaxed_epoch_read_in_an_insert_rotates_a_generation_that_has_just_begun` |
//! | W6 | **What `insert` returns.** `true` when the key was absent from every live generation: of racing inserts of a new key at least one returns `true`, also when a rotation moves one racer's bits into an older generation before the other asks. | An insert asks only if its write found the key new, and asks the generations older than the one it wrote into, by number, so its own bits never count against it; the write's answer is the plain filter's (G4). | `window.rs`: `racing_inserts_of_a_new_key_across_a_rotation_report_it_new_once_at_least`; negative control `asking_by_the_epoch_after_the_write_reports_a_new_key_new_to_no_one`; `tests/all/window.rs`: `insert_says_new_only_for_a_key_absent_from_the_whole_window` |
//!
//! Every atomic operation in `src/` carries an `// ORDERING:` comment naming
//! the guarantee above it serves. The loom suite and its run time are
//! described in `loom-tests/README.md`. Its negative controls run the real
//! operations with a bug injected under `cfg(loom)` (a read-modify-write
//! split into a load and a write, a clear that undoes what it loaded), so
//! each shows the models catching that bug in the production code path.
//!
//! **What the filter does not promise.** It is not a synchronization
//! primitive: a `true` from `contains` may be a false positive, so it can
//! never tell a thread that some other data is ready, and the filter creates
//! no happens-before edge between threads. Operations on several words
//! (`Standard` and `Blocked` inserts, `clear`, `union`, scans) are not atomic
//! as a whole: another thread may observe them half done, within the bounds
//! stated above.
//!
