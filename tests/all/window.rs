//! The windowed filter keeps every key for its window and forgets it within
//! a third more (four generations), by keys and by time, and loses no key
//! within its window while threads insert, query and rotate at once.

use atomic_bloom::{AtomicWindowedBloom, BuildError, ManualClock, WhenFull, Window};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common;

/// A window of the last `n` keys keeps each of them, and has forgotten a
/// key once `n * g / (g - 1)` more have come.
#[test]
fn a_window_of_keys_keeps_the_last_n() {
    for g in [2u32, 4, 8] {
        let n = 3_000u64;
        let f = AtomicWindowedBloom::builder()
            .capacity(n as usize, 1e-4)
            .generations(g)
            .build()
            .unwrap();
        let per = n.div_ceil(u64::from(g - 1));
        for i in 0..20_000u64 {
            f.insert(&i);
            // The last `n` keys, at every step (sampled for speed).
            if i % 97 == 0 {
                let first = i.saturating_sub(n - 1);
                assert!(
                    (first..=i).all(|k| f.contains(&k)),
                    "g={g}: a key of the last {n} is gone at {i}"
                );
            }
        }
        // Keys older than a full ring of generations are gone (up to false
        // positives, at 1e-4 none expected among these).
        let last = 19_999u64;
        let forgotten = last - per * u64::from(g) - 1;
        let kept_old = (0..forgotten).filter(|k| f.contains(k)).count();
        assert!(
            kept_old <= 5,
            "g={g}: {kept_old} keys older than the ring still answer present"
        );
    }
}

/// A window of a duration keeps a key for the duration and forgets it
/// within `g / (g - 1)` of it, by the injected clock; an idle filter
/// forgets on time too.
#[test]
fn a_window_of_time_keeps_a_key_for_its_duration() {
    let clock = Arc::new(ManualClock::new());
    let window = Duration::from_secs(90);
    let f = AtomicWindowedBloom::builder()
        .capacity(10_000, 0.001)
        .window(Window::Duration(window))
        .generations(4)
        .clock(clock.clone())
        .build()
        .unwrap();
    // A key at each second for five minutes; check every key's fate.
    let step = Duration::from_secs(1);
    for second in 0..300u64 {
        f.insert(&second);
        for earlier in 0..=second {
            let age = second - earlier;
            let present = f.contains(&earlier);
            if age < 90 {
                assert!(
                    present,
                    "key of second {earlier} gone at {second} (age {age})"
                );
            } else if age > 120 {
                assert!(
                    !present,
                    "key of second {earlier} kept at {second} (age {age})"
                );
            }
        }
        clock.advance(step);
    }
    // Idle for a long while: everything is forgotten at the next call.
    clock.advance(Duration::from_secs(3_600));
    assert!((0..300u64).all(|k| !f.contains(&k)));
    assert!(f.insert(&1u64));
}

/// With `WhenFull::Rotate`, a time window whose generation takes more keys
/// than it was sized for rotates early, keeping the rate; with
/// `KeepFilling` it does not rotate until its time is up. Both count the
/// generations that filled early.
#[test]
fn a_time_window_that_fills_early_rotates_or_keeps_filling() {
    for (when_full, rotates) in [(WhenFull::Rotate, true), (WhenFull::KeepFilling, false)] {
        let clock = Arc::new(ManualClock::new());
        let f = AtomicWindowedBloom::builder()
            .capacity(3_000, 0.01)
            .window(Window::Duration(Duration::from_secs(60)))
            .when_full(when_full)
            .clock(clock.clone())
            .build()
            .unwrap();
        f.insert_batch(0..10_000u64);
        assert_eq!(f.rotations() > 0, rotates, "{when_full:?}");
        // Reported either way: every generation it rotated early, or the
        // one it kept filling.
        let early = f.generations_filled_early();
        assert_eq!(
            early,
            if rotates { f.rotations() } else { 1 },
            "{when_full:?}"
        );
        // The newest keys are in either way.
        assert!((9_000..10_000u64).all(|k| f.contains(&k)));
    }
}

/// Explicit rotations retire the oldest generation, and are refused while
/// another thread's rotation from the same epoch wins (W3 is loom's; here
/// the sequential contract).
/// `insert` answers whether the key was absent from the whole window, not
/// from the current generation alone: a key an older live generation holds
/// is "seen", across a rotation, in a time window and in a window of keys.
#[test]
fn insert_says_new_only_for_a_key_absent_from_the_whole_window() {
    let clock = Arc::new(ManualClock::new());
    let hour = AtomicWindowedBloom::builder()
        .capacity(1_000, 0.001)
        .window(Window::Duration(Duration::from_secs(3600)))
        .clock(clock.clone())
        .build()
        .unwrap();
    let (mut answers, mut now) = (Vec::new(), 0);
    for minute in [0, 10, 25, 45, 70, 150, 151] {
        clock.advance(Duration::from_secs((minute - now) * 60));
        now = minute;
        answers.push((minute, hour.insert("a")));
    }
    // Generations of 20 minutes. At 25 and 45 minutes "a" is in an older
    // generation; at 70, within an hour of 45; at 150 its last generation
    // (60 to 80 minutes) has left the four live ones.
    assert_eq!(
        answers,
        [
            (0, true),
            (10, false),
            (25, false),
            (45, false),
            (70, false),
            (150, true),
            (151, false)
        ]
    );
    assert!(hour.rotations() >= 3);

    // The last 9 keys in four generations of 3: "a" comes back within 9
    // keys each time.
    let keys = AtomicWindowedBloom::builder()
        .capacity(9, 0.001)
        .build()
        .unwrap();
    let printed: Vec<&str> = "a b c d a e f a g h a"
        .split(' ')
        .filter(|k| keys.insert(*k))
        .collect();
    assert_eq!(printed, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert!(keys.rotations() >= 2);
}

#[test]
fn explicit_rotations_retire_the_oldest_generation() {
    let f = AtomicWindowedBloom::builder()
        .capacity(1_000, 0.01)
        .generations(3)
        .build()
        .unwrap();
    f.insert("a");
    assert!(f.rotate());
    f.insert("b");
    assert!(f.rotate());
    assert!(f.contains("a") && f.contains("b"));
    assert!(f.rotate());
    assert!(!f.contains("a") && f.contains("b"));
    assert_eq!(f.rotations(), 3);
}

/// Every bad parameter is a typed error.
#[test]
fn bad_parameters_are_typed_errors() {
    let err = |b: atomic_bloom::WindowedBuilder| b.build().unwrap_err();
    assert!(matches!(
        err(AtomicWindowedBloom::builder()
            .capacity(100, 0.01)
            .generations(65)),
        BuildError::InvalidGenerations { got: 65, max: 64 }
    ));
    assert!(matches!(
        err(AtomicWindowedBloom::builder().capacity(100, 1.0)),
        BuildError::InvalidFalsePositiveRate(_)
    ));
    assert_eq!(
        err(AtomicWindowedBloom::builder().capacity(0, 0.01)),
        BuildError::ZeroItems
    );
    assert_eq!(
        err(AtomicWindowedBloom::builder()
            .capacity(100, 0.01)
            .window(Window::Duration(Duration::ZERO))),
        BuildError::ZeroWindow
    );
    assert_eq!(
        err(AtomicWindowedBloom::builder()
            .capacity(100, 0.01)
            .window(Window::Keys(0))),
        BuildError::ZeroItems
    );
}

/// Threads insert and query while another rotates every millisecond or
/// so: every key is found by every query whose generation it is still in,
/// that is while fewer than `g` rotations have come since its insert
/// began. `checks` queries in all, over at least 40 rotations.
fn no_key_lost_while_rotating(checks: u64) {
    const G: u64 = 4;
    const MIN_ROTATIONS: u64 = 40;
    let f = Arc::new(
        AtomicWindowedBloom::builder()
            .capacity(1 << 20, 0.01)
            .generations(G as u32)
            .build()
            .unwrap(),
    );
    let done = Arc::new(AtomicBool::new(false));
    let rotator = {
        let (f, done) = (f.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_micros(500));
                f.rotate();
            }
        })
    };
    let per_thread = checks / 2;
    let workers: Vec<_> = (0..2u64)
        .map(|t| {
            let f = f.clone();
            std::thread::spawn(move || {
                // (key, rotations seen before its insert began), recent ones.
                let mut recent: std::collections::VecDeque<(u64, u64)> = Default::default();
                let (mut checked, mut key) = (0u64, t << 48);
                // Until both enough checks and enough rotations are in.
                while checked < per_thread || f.rotations() < MIN_ROTATIONS {
                    let before = f.rotations();
                    f.insert(&key);
                    recent.push_back((key, before));
                    if recent.len() > 64 {
                        recent.pop_front();
                    }
                    for &(k, began) in &recent {
                        let found = f.contains(&k);
                        let after = f.rotations();
                        if after < began + G {
                            assert!(
                                found,
                                "key {k} lost: inserted from rotation {began}, queried by {after}"
                            );
                        }
                        checked += 1;
                    }
                    key += 1;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    rotator.join().unwrap();
    assert!(f.rotations() >= MIN_ROTATIONS);
}

#[test]
fn no_key_is_lost_while_rotating() {
    no_key_lost_while_rotating(200_000);
}

#[test]
#[ignore = "10M checks: run with -- --ignored"]
fn no_key_is_lost_while_rotating_over_ten_million_checks() {
    no_key_lost_while_rotating(10_000_000);
}

/// At the worst point of its cycle, every generation full, a window of 1M
/// keys answers absent keys at its target rate (within 5%).
#[test]
fn the_rate_holds_at_the_worst_point_of_the_cycle() {
    for p in [0.01, 0.001] {
        let n = 1_000_000u64;
        let f = AtomicWindowedBloom::builder()
            .capacity(n as usize, p)
            .build()
            .unwrap();
        let per = f.keys_per_generation();
        let g = u64::from(f.generations());
        // Fill g - 1 generations and the current one but its last key.
        let keys = per * g - 1;
        f.insert_batch(0..keys);
        assert_eq!(f.rotations(), g - 1, "the cycle is not at its worst point");
        let queries = (10_000.0 / p) as u64;
        let hits = (0..queries).filter(|q| f.contains(&(u64::MAX - q))).count();
        let measured = hits as f64 / queries as f64;
        eprintln!("p = {p}: measured {measured:.3e} ({:.3} p)", measured / p);
        assert!(measured <= 1.05 * p, "p = {p}: measured {measured}");
        assert!(
            measured >= 0.8 * p,
            "p = {p}: measured {measured}: the worst point is not full"
        );
    }
}

/// The `par_` forms answer as per-key calls: every key inserted on
/// rayon's threads is found, in order, and keys never inserted mostly are
/// not.
#[cfg(feature = "rayon")]
#[test]
fn parallel_forms_answer_as_per_key_calls() {
    let f = AtomicWindowedBloom::new(100_000, 0.001).unwrap();
    let new = f.par_insert(0..50_000u64);
    assert!((49_900..=50_000).contains(&new), "{new}");
    let keys: Vec<u64> = (0..50_000).chain(1 << 40..(1 << 40) + 50_000).collect();
    let found = f.par_contains(keys.clone());
    let expected: Vec<bool> = keys.iter().map(|k| f.contains(k)).collect();
    assert_eq!(found, expected);
    assert!(found[..50_000].iter().all(|&hit| hit));
    assert!(found[50_000..].iter().filter(|&&hit| hit).count() < 200);
}

mod persistence {
    //! Saving and loading: a window of keys reads back as it was, byte for
    //! byte; a time window goes on by its schedule from where it stopped.

    use atomic_bloom::{
        AtomicBloom, AtomicWindowedBloom, FilterKind, ManualClock, ReadError, SavedFilter,
        WhenFull, Window,
    };
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    /// A window of the last 1000 keys in four generations, seed 11, the
    /// keys `window-0` to `window-1499`: two rotations past the first.
    fn sample() -> AtomicWindowedBloom {
        let f = AtomicWindowedBloom::builder()
            .capacity(1_000, 0.01)
            .hasher(atomic_bloom::WyBuildHasher::with_seed(11))
            .build()
            .unwrap();
        for i in 0..1_500 {
            f.insert(&format!("window-{i}"));
        }
        f
    }

    #[test]
    fn a_window_of_keys_reads_back_byte_for_byte_and_goes_on_alike() {
        let f = sample();
        assert_eq!(f.rotations(), 4);
        let bytes = f.to_bytes().unwrap();
        let back = AtomicWindowedBloom::from_bytes(&bytes).unwrap();
        assert_eq!(back, f);
        assert_eq!(back.to_bytes().unwrap(), bytes);
        assert_eq!(back.estimated_len(), f.estimated_len());
        for i in 0..1_500 {
            let key = format!("window-{i}");
            assert_eq!(back.contains(&key), f.contains(&key), "{key}");
        }
        // The same keys after the load rotate both the same way.
        for i in 1_500..4_000 {
            let key = format!("window-{i}");
            assert_eq!(back.insert(&key), f.insert(&key), "{key}");
        }
        assert_eq!(back, f);
        assert_eq!(back.rotations(), f.rotations());
    }

    #[test]
    fn a_new_window_reads_back_too() {
        for g in [2, 3, 64] {
            let f = AtomicWindowedBloom::builder()
                .capacity(500, 0.01)
                .generations(g)
                .build()
                .unwrap();
            let back = AtomicWindowedBloom::from_bytes(&f.to_bytes().unwrap()).unwrap();
            assert_eq!(back, f);
            assert_eq!(back.generations(), g);
            back.insert("first");
            assert!(back.contains("first"));
        }
    }

    #[test]
    fn a_time_window_resumes_its_schedule_after_a_load() {
        // A minute in four generations of 20 s. "old" goes in at 0 s, in
        // the generation of 0-20 s, which retires at 80 s; "new" at 30 s,
        // in that of 20-40 s, which retires at 100 s. Saved at 30 s.
        let clock = Arc::new(ManualClock::new());
        let minute = Window::Duration(Duration::from_secs(60));
        let f = AtomicWindowedBloom::builder()
            .capacity(1_000, 0.01)
            .window(minute)
            .when_full(WhenFull::KeepFilling)
            .clock(clock.clone())
            .build()
            .unwrap();
        f.insert("old");
        clock.advance(Duration::from_secs(30));
        f.insert("new");
        let bytes = f.to_bytes().unwrap();

        // Read back at 1000 s of another clock: each generation began as
        // long before that as it had before the save.
        let replay = Arc::new(ManualClock::new());
        replay.advance(Duration::from_secs(1_000));
        let back = AtomicWindowedBloom::from_bytes_with_clock(&bytes, replay.clone()).unwrap();
        assert_eq!(back.window(), minute);
        assert_eq!(back.when_full(), WhenFull::KeepFilling);
        assert_eq!(back.rotations(), 1);
        let at = |seconds_since_old: u64| {
            let now = replay.elapsed().as_secs() - 1_000 + 30;
            replay.advance(Duration::from_secs(seconds_since_old - now));
            (back.contains("old"), back.contains("new"))
        };
        assert_eq!(at(75), (true, true)); // 3 s of wall time would not change this
        assert_eq!(at(85), (false, true));
        assert_eq!(at(95), (false, true));
        assert_eq!(at(105), (false, false));
    }

    #[test]
    fn a_time_window_loaded_on_the_system_clock_keeps_its_keys() {
        let minute = Window::Duration(Duration::from_secs(60));
        let f = AtomicWindowedBloom::builder()
            .capacity(1_000, 0.01)
            .window(minute)
            .build()
            .unwrap();
        f.insert_batch(0..500u32);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recent.abf");
        f.save(&path).unwrap();
        let back = AtomicWindowedBloom::load(&path).unwrap();
        assert_eq!(back, f);
        assert!((0..500u32).all(|i| back.contains(&i)));
        assert!(matches!(SavedFilter::load(&path).unwrap(), SavedFilter::Windowed(g) if *g == f));
    }

    #[test]
    fn other_kinds_and_damage_are_typed_errors() {
        let plain = AtomicBloom::new(100, 0.01).unwrap().to_bytes().unwrap();
        let err = AtomicWindowedBloom::from_bytes(&plain).unwrap_err();
        assert!(
            matches!(
                err,
                ReadError::WrongKind {
                    written: FilterKind::Bloom,
                    ..
                }
            ),
            "{err}"
        );
        let windowed = sample().to_bytes().unwrap();
        let err = AtomicBloom::from_bytes(&windowed).unwrap_err();
        assert!(
            matches!(
                err,
                ReadError::WrongKind {
                    written: FilterKind::Windowed,
                    ..
                }
            ),
            "{err}"
        );
        let mut damaged = windowed.clone();
        damaged[200] ^= 1;
        assert!(matches!(
            AtomicWindowedBloom::from_bytes(&damaged),
            Err(ReadError::ChecksumMismatch { .. })
        ));
        let err = AtomicWindowedBloom::from_bytes(&windowed[..windowed.len() - 1]).unwrap_err();
        assert!(matches!(err, ReadError::Truncated { .. }), "{err}");
        let streamed = AtomicWindowedBloom::read_from(windowed.as_slice()).unwrap();
        assert_eq!(streamed, sample());
    }

    /// Forged fields, the checksum made to match: each is refused.
    #[test]
    fn forged_state_is_refused() {
        let bytes = sample().to_bytes().unwrap();
        let forge = |at: usize, value: &[u8]| {
            let mut forged = bytes.clone();
            forged[at..at + value.len()].copy_from_slice(value);
            let end = forged.len() - 8;
            let sum = xxhash_rust::xxh3::xxh3_64(&forged[..end]);
            forged[end..].copy_from_slice(&sum.to_le_bytes());
            AtomicWindowedBloom::from_bytes(&forged)
                .unwrap_err()
                .to_string()
        };
        assert!(forge(72, &[7]).contains("unknown window kind 7"));
        assert!(forge(73, &[2]).contains("when-full"));
        assert!(forge(76, &1u32.to_le_bytes()).contains("generations"));
        assert!(forge(80, &u64::MAX.to_le_bytes()).contains("rotations"));
        assert!(forge(96, &1u64.to_le_bytes()).contains("records no time"));
        assert!(forge(56, &2.0f64.to_le_bytes()).contains("false-positive rate"));
        // The newest generation's record: a count past its bits.
        assert!(forge(112, &u64::MAX.to_le_bytes()).contains("more than its"));
        assert!(forge(120, &5u64.to_le_bytes()).contains("records no time"));
    }

    fn golden_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v2-windowed-blocked.abf")
    }

    /// Today's writer gives the committed bytes, and they read back to the
    /// same filter and answers.
    #[test]
    fn golden_file_is_what_the_writer_gives() {
        let golden = std::fs::read(golden_path()).unwrap();
        assert_eq!(
            sample().to_bytes().unwrap(),
            golden,
            "the windowed encoding changed"
        );
        let back = AtomicWindowedBloom::from_bytes(&golden).unwrap();
        assert_eq!(back, sample());
        assert!((500..1_500).all(|i| back.contains(&format!("window-{i}"))));
    }

    #[test]
    #[ignore = "rewrites the golden file: only for a new format version"]
    fn write_golden_file() {
        std::fs::write(golden_path(), sample().to_bytes().unwrap()).unwrap();
    }
}

/// Files at the edges of what the format records: each is read, or refused
/// with a typed error, and a file the reader accepts can be used and saved
/// and read again.
mod forged_files {
    use super::*;
    use atomic_bloom::ReadError;

    /// Offsets in a windowed file (the format chapter's table).
    const KEYS_PER_WINDOW: usize = 48;
    const EPOCH: usize = 80;
    const FIRST_RECORD: usize = 112;

    fn word(bytes: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
    }

    fn put(bytes: &mut [u8], at: usize, value: u64) {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    fn time_window(window: Duration) -> AtomicWindowedBloom {
        AtomicWindowedBloom::builder()
            .capacity(1_000, 0.01)
            .window(Window::Duration(window))
            .build()
            .unwrap()
    }

    /// A generation aged about 2^64 ns (584 years) used to start the
    /// reloaded filter's clock there, saturated: time stood still, and no
    /// key inserted after the load ever left the window.
    #[test]
    fn a_generation_aged_near_two_to_the_64_still_lets_keys_expire() {
        let f = time_window(Duration::from_millis(30));
        f.insert("old");
        let mut bytes = f.to_bytes().unwrap();
        put(&mut bytes, FIRST_RECORD + 8, u64::MAX - 1);
        super::common::reseal(&mut bytes);
        let back = AtomicWindowedBloom::from_bytes(&bytes).unwrap();
        assert!(
            !back.contains("old"),
            "a generation 584 years old is past the window"
        );
        back.insert("new");
        assert!(back.contains("new"));
        // Four generations of 10 ms keep a key at most 40 ms.
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !back.contains("new"),
            "the clock stood still: keys never expire"
        );
    }

    /// A file at the reader's limits (a generation holding as many keys as
    /// it has bits, the most rotations a file records) is read, used past
    /// those limits, saved, and read again.
    #[test]
    fn a_file_at_the_readers_limits_can_be_used_and_saved_again() {
        let f = AtomicWindowedBloom::new(100, 0.01).unwrap();
        f.insert_batch(0..150u32);
        let mut bytes = f.to_bytes().unwrap();
        let num_bits = word(&bytes, 16);
        put(&mut bytes, EPOCH, 1 << 60);
        put(&mut bytes, FIRST_RECORD, num_bits);
        super::common::reseal(&mut bytes);
        let back = AtomicWindowedBloom::from_bytes(&bytes).unwrap();
        assert_eq!(back.rotations(), 1 << 60);
        back.insert_batch(1_000..1_400u32);
        assert!(back.rotate());
        assert!(back.rotations() > 1 << 60);
        let again = AtomicWindowedBloom::from_bytes(&back.to_bytes().unwrap()).unwrap();
        assert_eq!(again.rotations(), 1 << 60, "the count saturates");
        // After the explicit rotation the last three generations of 34 hold
        // at least the last 68 keys.
        assert!((1_332..1_400u32).all(|k| again.contains(&k)));
    }

    #[test]
    fn a_window_of_zero_keys_is_refused() {
        let mut bytes = AtomicWindowedBloom::new(100, 0.01)
            .unwrap()
            .to_bytes()
            .unwrap();
        put(&mut bytes, KEYS_PER_WINDOW, 0);
        super::common::reseal(&mut bytes);
        let err = AtomicWindowedBloom::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, ReadError::InvalidWindow(_)), "{err}");
        assert!(err.to_string().contains("0 keys"), "{err}");
    }
}

/// A batch answers and writes as the same keys inserted one by one, also
/// when generations fill and rotate within it: a key the current
/// generation held when the batch began, and an older one holds once the
/// batch has rotated, is still refreshed into the new current generation
/// (skipping it would drop it a window early: a false negative).
#[test]
fn insert_batches_are_the_per_key_inserts_across_rotations() {
    for per_generation in [3usize, 50, 1_000] {
        let keys_per_window = per_generation * 3;
        let build = || {
            AtomicWindowedBloom::builder()
                .capacity(keys_per_window, 0.01)
                .build()
                .unwrap()
        };
        let (batched, one_by_one) = (build(), build());
        // Keys that repeat within and across batches, so that refreshes
        // land on both sides of rotations.
        let stream: Vec<u64> = (0..20_000u64).map(|i| (i * 7) % 2_003).collect();
        for batch in stream.chunks(37) {
            let per_key = batch.iter().filter(|k| one_by_one.insert(*k)).count();
            assert_eq!(batched.insert_batch(batch), per_key, "{per_generation}");
            assert_eq!(
                batched, one_by_one,
                "{per_generation}: the generations differ"
            );
        }
        assert!(
            batched.rotations() > 10,
            "{per_generation}: too few rotations"
        );
    }
}
