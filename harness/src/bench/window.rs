//! `bench --window`: what forgetting costs, side by side in one run.
//! `AtomicWindowedBloom` (a window of 1M keys, four generations, p = 1%)
//! against a plain `AtomicBloom` that holds as many keys as the window at
//! its fullest (the cost of asking four generations and of rotating), and
//! against the same ring of generations behind one `Mutex` (what a service
//! would otherwise write). Per-key inserts of new keys, which rotate the
//! ring as they go, and queries of present and absent keys, on 1 and 2
//! threads; u64 keys. Ratios to the plain filter and to the `Mutex` are
//! measured as pairs, and so is a time window's insert against the window
//! of keys' (what reading the clock per call costs); batches
//! (`insert_batch`, `par_insert`) against the plain filter's. A floor row
//! does the memory work a windowed insert of a new key cannot avoid, with
//! no ring: a plain insert into a filter of one generation's size, then a
//! query of each of the `g - 1` older ones (filled), all by one hash; the
//! windowed insert against it is what the ring itself costs; a second
//! floor does the same work in batches. Two rows time one read of each
//! clock a time window may read per call.

use super::{Ratio, Session, Table, Work, paired, ratio, two_threads};
use crate::say;
use atomic_bloom::{AtomicBloom, AtomicWindowedBloom, Clock, MonotonicClock, Window};
use baselines::MutexRing;

const KEYS: usize = 1_000_000;
const GENERATIONS: u32 = 4;
const FPP: f64 = 0.01;

const W_INSERT_1T: &str = "windowed insert, per key, 1 thread";
const W_INSERT_2T: &str = "windowed insert, per key, 2 threads";
const T_INSERT_1T: &str = "time window insert, per key, 1 thread";
const CLOCK_PRECISE: &str = "clock read: MonotonicClock (Instant)";
const CLOCK_COARSE: &str = "clock read: MonotonicClock::coarse";
const W_BATCH_1T: &str = "windowed insert_batch, 1 thread";
const W_PAR: &str = "windowed par_insert, 2 threads";
const P_BATCH_1T: &str = "plain AtomicBloom insert_batch, 1 thread";
const P_PAR: &str = "plain AtomicBloom par_insert, 2 threads";
const W_HIT_1T: &str = "windowed contains hit, per key, 1 thread";
const W_HIT_2T: &str = "windowed contains hit, per key, 2 threads";
const W_MISS_1T: &str = "windowed contains miss, per key, 1 thread";
const W_MISS_2T: &str = "windowed contains miss, per key, 2 threads";
const P_INSERT_1T: &str = "plain AtomicBloom insert, 1 thread";
const P_INSERT_2T: &str = "plain AtomicBloom insert, 2 threads";
const P_HIT_1T: &str = "plain AtomicBloom contains hit, 1 thread";
const P_HIT_2T: &str = "plain AtomicBloom contains hit, 2 threads";
const P_MISS_1T: &str = "plain AtomicBloom contains miss, 1 thread";
const P_MISS_2T: &str = "plain AtomicBloom contains miss, 2 threads";
const F_INSERT_1T: &str = "floor: 1 plain insert + 3 plain queries, 1 thread";
const F_BATCH_1T: &str = "floor: plain insert_batch + 3 contains_batch, 1 thread";
const M_INSERT_1T: &str = "Mutex ring insert, 1 thread";
const M_INSERT_2T: &str = "Mutex ring insert, 2 threads";
const M_HIT_1T: &str = "Mutex ring contains hit, 1 thread";
const M_HIT_2T: &str = "Mutex ring contains hit, 2 threads";
const M_MISS_1T: &str = "Mutex ring contains miss, 1 thread";
const M_MISS_2T: &str = "Mutex ring contains miss, 2 threads";

const RATIOS: &[Ratio] = &[
    paired("windowed / plain: insert, 1T", W_INSERT_1T, P_INSERT_1T),
    paired("windowed / plain: insert, 2T", W_INSERT_2T, P_INSERT_2T),
    paired("windowed / plain: contains hit, 1T", W_HIT_1T, P_HIT_1T),
    ratio("windowed / plain: contains hit, 2T", W_HIT_2T, P_HIT_2T),
    paired("windowed / plain: contains miss, 1T", W_MISS_1T, P_MISS_1T),
    ratio("windowed / plain: contains miss, 2T", W_MISS_2T, P_MISS_2T),
    paired(
        "windowed / Mutex ring: insert, 1T",
        W_INSERT_1T,
        M_INSERT_1T,
    ),
    paired(
        "windowed / Mutex ring: insert, 2T",
        W_INSERT_2T,
        M_INSERT_2T,
    ),
    paired(
        "windowed / Mutex ring: contains hit, 1T",
        W_HIT_1T,
        M_HIT_1T,
    ),
    paired(
        "windowed / Mutex ring: contains hit, 2T",
        W_HIT_2T,
        M_HIT_2T,
    ),
    paired(
        "windowed / Mutex ring: contains miss, 1T",
        W_MISS_1T,
        M_MISS_1T,
    ),
    ratio(
        "windowed / Mutex ring: contains miss, 2T",
        W_MISS_2T,
        M_MISS_2T,
    ),
    paired(
        "time window / window of keys: insert, 1T",
        T_INSERT_1T,
        W_INSERT_1T,
    ),
    paired("windowed / plain: insert_batch, 1T", W_BATCH_1T, P_BATCH_1T),
    paired("windowed / plain: par_insert, 2T", W_PAR, P_PAR),
    paired("windowed / floor: insert, 1T", W_INSERT_1T, F_INSERT_1T),
    paired("plain / floor: insert, 1T", P_INSERT_1T, F_INSERT_1T),
    paired("windowed / floor: insert_batch, 1T", W_BATCH_1T, F_BATCH_1T),
    paired("clock reads: coarse / precise", CLOCK_COARSE, CLOCK_PRECISE),
    ratio("windowed: insert 2T / 1T", W_INSERT_2T, W_INSERT_1T),
    ratio("Mutex ring: insert 2T / 1T", M_INSERT_2T, M_INSERT_1T),
];

fn windowed() -> AtomicWindowedBloom {
    AtomicWindowedBloom::builder()
        .capacity(KEYS, FPP)
        .generations(GENERATIONS)
        .build()
        .expect("valid parameters")
}

/// A time window of an hour sized for the same keys: the bench's keys
/// arrive far faster, so its generations fill early and rotate as the
/// window of keys does (`WhenFull::Rotate`), and what differs is the
/// clock each call reads.
fn time_window() -> AtomicWindowedBloom {
    AtomicWindowedBloom::builder()
        .capacity(KEYS, FPP)
        .generations(GENERATIONS)
        .window(Window::Duration(std::time::Duration::from_secs(3600)))
        .build()
        .expect("valid parameters")
}

pub fn run() -> anyhow::Result<()> {
    let mut session = Session::start();
    let count = KEYS as u64;
    // The window at its fullest holds g / (g - 1) windows of keys.
    let fullest = KEYS * GENERATIONS as usize / (GENERATIONS as usize - 1);
    let ours = std::sync::RwLock::new(windowed());
    let timed = std::sync::RwLock::new(time_window());
    let keys: Vec<u64> = (0..count).collect();
    let plain = AtomicBloom::new(fullest, FPP)?;
    let ring = MutexRing::new(KEYS, FPP, GENERATIONS as usize);
    // Filled filters for the queries: the window's last `count` keys.
    let filled = windowed();
    (0..count).for_each(|k| {
        filled.insert(&k);
    });
    let filled_plain = AtomicBloom::new(fullest, FPP)?;
    filled_plain.par_insert(0..count);
    let filled_ring = MutexRing::new(KEYS, FPP, GENERATIONS as usize);
    (0..count).for_each(|k| {
        filled_ring.insert(&k);
    });
    say!(
        "  1M memory: windowed {} KiB over {} generations and a spare, plain {} KiB",
        filled.memory_bytes() >> 10,
        filled.generations(),
        filled_plain.memory_bytes() >> 10
    );
    // The floor: four filters of a generation's size, the three older
    // ones filled with a generation of other keys each.
    let generation = || AtomicBloom::with_sizing(filled.sizing(), *filled.hasher());
    let floor = [generation()?, generation()?, generation()?, generation()?];
    for (i, older) in floor[1..].iter().enumerate() {
        let from = (i as u64 + 2) << 40;
        older.insert_batch(from..from + filled.keys_per_generation());
    }
    // What a time window's per-key call pays for its clock, by the clock
    // it reads (generations under a second, and a second or more).
    let (precise, coarse) = (MonotonicClock::new(), MonotonicClock::new().coarse());
    let mut table = Table::new("1M");
    let fresh_ours = || *ours.write().unwrap_or_else(|e| e.into_inner()) = windowed();
    table.row(Work::after(W_INSERT_1T, count, fresh_ours, || {
        let f = ours.read().unwrap_or_else(|e| e.into_inner());
        (0..count).for_each(|k| {
            f.insert(&k);
        });
    }));
    table.row(Work::after(W_INSERT_2T, count, fresh_ours, || {
        let f = ours.read().unwrap_or_else(|e| e.into_inner());
        let f = &*f;
        two_threads(0..count, |keys| {
            keys.for_each(|k| {
                f.insert(&k);
            })
        });
    }));
    let fresh_timed = || *timed.write().unwrap_or_else(|e| e.into_inner()) = time_window();
    table.row(Work::after(T_INSERT_1T, count, fresh_timed, || {
        let f = timed.read().unwrap_or_else(|e| e.into_inner());
        (0..count).for_each(|k| {
            f.insert(&k);
        });
    }));
    // Batches of the same keys, into a new window and a cleared filter.
    for (what, clock) in [(CLOCK_PRECISE, &precise), (CLOCK_COARSE, &coarse)] {
        table.row(Work::new(what, count, move || {
            (0..count).for_each(|_| {
                std::hint::black_box(clock.now_nanos());
            });
        }));
    }
    table.row(Work::after(W_BATCH_1T, count, fresh_ours, || {
        let f = ours.read().unwrap_or_else(|e| e.into_inner());
        f.insert_batch(&keys);
    }));
    table.row(Work::after(W_PAR, count, fresh_ours, || {
        let f = ours.read().unwrap_or_else(|e| e.into_inner());
        f.par_insert(&keys);
    }));
    table.row(Work::after(
        P_BATCH_1T,
        count,
        || plain.clear(),
        || {
            plain.insert_batch(&keys);
        },
    ));
    table.row(Work::after(
        P_PAR,
        count,
        || plain.clear(),
        || {
            plain.par_insert(&keys);
        },
    ));
    table.per_key_inserts(
        [P_INSERT_1T, P_INSERT_2T],
        count,
        || plain.clear(),
        |k| {
            plain.insert(&k);
        },
    );
    table.row(Work::after(
        F_INSERT_1T,
        count,
        || floor[0].clear(),
        || {
            (0..count).for_each(|k| {
                let hash = floor[0].hash(&k);
                if floor[0].insert_hash(hash) {
                    std::hint::black_box(floor[1..].iter().any(|f| f.contains_hash(hash)));
                }
            });
        },
    ));
    table.row(Work::after(
        F_BATCH_1T,
        count,
        || floor[0].clear(),
        || {
            let hashes: Vec<u64> = keys.iter().map(|k| floor[0].hash(k)).collect();
            floor[0].insert_hash_batch(hashes.iter().copied());
            for older in &floor[1..] {
                std::hint::black_box(older.contains_hash_batch(hashes.iter().copied()));
            }
        },
    ));
    table.per_key_inserts(
        [M_INSERT_1T, M_INSERT_2T],
        count,
        || ring.clear(),
        |k| {
            ring.insert(&k);
        },
    );
    table.per_key_hits([W_HIT_1T, W_HIT_2T], count, |k| filled.contains(&k));
    table.per_key_hits([P_HIT_1T, P_HIT_2T], count, |k| filled_plain.contains(&k));
    table.per_key_hits([M_HIT_1T, M_HIT_2T], count, |k| filled_ring.contains(&k));
    table.per_key_misses([W_MISS_1T, W_MISS_2T], count, |k| filled.contains(&k));
    table.per_key_misses([P_MISS_1T, P_MISS_2T], count, |k| filled_plain.contains(&k));
    table.per_key_misses([M_MISS_1T, M_MISS_2T], count, |k| filled_ring.contains(&k));
    session.report(&table, RATIOS);
    session.conclude();
    Ok(())
}
