//! One million inserts of new keys into a small filter, for counting
//! instructions and branch mispredictions per insert with callgrind (the VM
//! this project runs on has no hardware counters, so `perf stat` cannot):
//!
//! ```text
//! cargo build --release --example insert_loop
//! valgrind --tool=callgrind --branch-sim=yes target/release/examples/insert_loop blocked    # or word, standard
//! valgrind --tool=callgrind --branch-sim=yes target/release/examples/insert_loop blocked 0  # the same without inserts
//! ```
//!
//! The difference of the two `I refs` (or `Mispredicts`) totals, divided
//! by 1 000 000, is the count per insert (hash included). Callgrind's
//! branch predictor is a simple model, so read mispredictions as a
//! comparison between versions, not as what the CPU does.
//!
//! A third argument inserts the keys that many times over, the passes
//! after the first finding every key present: less one pass's count, a
//! million duplicate inserts.
//!
//! ```text
//! valgrind --tool=callgrind target/release/examples/insert_loop blocked 1000000 2
//! ```

use atomic_bloom::{AtomicBloom, Layout};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let layout: Layout = args
        .next()
        .map_or(Ok(Layout::default()), |name| name.parse())?;
    let inserts: u64 = args.next().map_or(Ok(1_000_000), |a| a.parse())?;
    let passes: u64 = args.next().map_or(Ok(1), |a| a.parse())?;
    let filter = AtomicBloom::builder()
        .capacity(1_000_000, 0.01)
        .layout(layout)
        .build()?;
    for pass in 0..passes {
        let new = (0..inserts).filter(|k| filter.insert(k)).count();
        println!("{layout}, pass {pass}: {new} of {inserts} inserts were new");
    }
    Ok(())
}
