//! The windowed filter keeps every key for its window and forgets it within
//! a third more (four generations), by keys and by time, and loses no key
//! within its window while threads insert, query and rotate at once.

use atomic_bloom::{AtomicWindowedBloom, BuildError, ManualClock, WhenFull, Window};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A window of the last `n` keys keeps each of them, and has forgotten a
/// key once `n * g / (g - 1)` more have come.
#[test]
fn a_window_of_keys_keeps_the_last_n() {
    for g in [2u32, 4, 8] {
        let n = 3_000u64;
        let f = AtomicWindowedBloom::builder(n as usize, 1e-4)
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
    let f = AtomicWindowedBloom::builder(10_000, 0.001)
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
        let f = AtomicWindowedBloom::builder(3_000, 0.01)
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
#[test]
fn explicit_rotations_retire_the_oldest_generation() {
    let f = AtomicWindowedBloom::builder(1_000, 0.01)
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
        err(AtomicWindowedBloom::builder(100, 0.01).generations(65)),
        BuildError::InvalidGenerations { got: 65, max: 64 }
    ));
    assert!(matches!(
        err(AtomicWindowedBloom::builder(100, 1.0)),
        BuildError::InvalidFalsePositiveRate(_)
    ));
    assert_eq!(
        err(AtomicWindowedBloom::builder(0, 0.01)),
        BuildError::ZeroItems
    );
    assert_eq!(
        err(AtomicWindowedBloom::builder(100, 0.01).window(Window::Duration(Duration::ZERO))),
        BuildError::ZeroWindow
    );
    assert_eq!(
        err(AtomicWindowedBloom::builder(100, 0.01).window(Window::Keys(0))),
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
        AtomicWindowedBloom::builder(1 << 20, 0.01)
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
#[ignore = "10M checks: run with --release -- --ignored"]
fn no_key_is_lost_while_rotating_over_ten_million_checks() {
    no_key_lost_while_rotating(10_000_000);
}

/// At the worst point of its cycle, every generation full, a window of 1M
/// keys answers absent keys at its target rate (within 5%).
#[test]
fn the_rate_holds_at_the_worst_point_of_the_cycle() {
    for p in [0.01, 0.001] {
        let n = 1_000_000u64;
        let f = AtomicWindowedBloom::builder(n as usize, p).build().unwrap();
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
