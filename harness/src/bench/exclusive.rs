//! `bench --exclusive`: whether building a filter through `&mut` with plain
//! writes (`par_extend`) pays against inserting into it as a shared filter
//! (`par_insert`, a `fetch_or` per word), in the call shapes a build takes.
//! Both on all of rayon's threads, into an empty `Blocked` filter at
//! p = 1%, u64 keys: 1M keys into a filter sized for 1M in one call, 100M
//! into one sized for 100M in one call, and the same 100M in calls of 5M
//! keys (a build fed batch by batch). Each pair runs alternately, and the
//! ratio is the median of the rounds.

use super::{Session, Table, Work, target};
use atomic_bloom::{AtomicBloom, Layout};
use rayon::iter::{IntoParallelIterator, ParallelExtend};
use std::sync::Mutex;

const FPP: f64 = 0.01;
/// The calls a batch-by-batch build makes, in keys.
const CALL: u64 = 5_000_000;

const SHARED_1M: &str = "par_insert, 1M keys, one call";
const EXCLUSIVE_1M: &str = "par_extend (&mut), 1M keys, one call";
const SHARED_100M: &str = "par_insert, 100M keys, one call";
const EXCLUSIVE_100M: &str = "par_extend (&mut), 100M keys, one call";
const SHARED_CALLS: &str = "par_insert, 100M keys in 5M-key calls";
const EXCLUSIVE_CALLS: &str = "par_extend (&mut), 100M keys in 5M-key calls";

pub fn run() -> anyhow::Result<()> {
    let mut session = Session::start();
    for (label, keys) in [("1M", 1_000_000u64), ("100M", 100_000_000)] {
        let fresh = || {
            AtomicBloom::builder()
                .capacity(keys as usize, FPP)
                .layout(Layout::Blocked)
                .build()
        };
        let shared = fresh()?;
        // Behind a mutex only to lend the closures `&mut`; a run locks it once.
        let exclusive = Mutex::new(fresh()?);
        let mut table = Table::new(label);
        let (one_call, in_calls) = if keys == 1_000_000 {
            ([EXCLUSIVE_1M, SHARED_1M], None)
        } else {
            (
                [EXCLUSIVE_100M, SHARED_100M],
                Some([EXCLUSIVE_CALLS, SHARED_CALLS]),
            )
        };
        let clear_exclusive = || exclusive.lock().unwrap().par_clear();
        table.row(Work::after(one_call[0], keys, clear_exclusive, || {
            exclusive
                .lock()
                .unwrap()
                .par_extend((0..keys).into_par_iter());
        }));
        table.row(Work::after(
            one_call[1],
            keys,
            || shared.par_clear(),
            || {
                shared.par_insert(0..keys);
            },
        ));
        let mut ratios = vec![target(
            "par_extend / par_insert, one call",
            one_call[0],
            one_call[1],
            1.2,
        )];
        if let Some(calls) = in_calls {
            table.row(Work::after(calls[0], keys, clear_exclusive, || {
                let mut filter = exclusive.lock().unwrap();
                for start in (0..keys).step_by(CALL as usize) {
                    filter.par_extend((start..start + CALL).into_par_iter());
                }
            }));
            table.row(Work::after(
                calls[1],
                keys,
                || shared.par_clear(),
                || {
                    for start in (0..keys).step_by(CALL as usize) {
                        shared.par_insert(start..start + CALL);
                    }
                },
            ));
            ratios.push(target(
                "par_extend / par_insert, 5M-key calls",
                calls[0],
                calls[1],
                1.2,
            ));
        }
        session.report(&table, &ratios);
    }
    session.conclude();
    Ok(())
}
