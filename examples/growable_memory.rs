//! What a growable filter costs in memory: bits per key, sub-filters and
//! the measured false-positive rate after `n` keys, for initial capacities
//! and tightening ratios side by side (growth factor 2, `Blocked`, target
//! rate 1%):
//!
//! ```text
//! cargo run --release --example growable_memory -- 1000000 1000,100000 0.5,0.9
//! cargo run --release --example growable_memory -- 100000000 1000,100000 0.5,0.9
//! ```
//!
//! Bits per key rise and fall as keys arrive: just after a growth the
//! newest sub-filter, as large as all the others together, is nearly empty.

use atomic_bloom::AtomicGrowableBloom;

fn list<T: std::str::FromStr>(arg: Option<String>, default: &str) -> Vec<T> {
    arg.as_deref()
        .unwrap_or(default)
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let keys: u64 = args.next().map_or(Ok(1_000_000), |n| n.parse())?;
    let capacities: Vec<usize> = list(args.next(), "1000,100000");
    let ratios: Vec<f64> = list(args.next(), "0.5,0.9");
    const PROBES: u64 = 1_000_000;
    println!("keys {keys}, target rate 0.01, growth factor 2, Blocked");
    println!("initial  ratio  bits/key  sub-filters  rate bound  measured rate");
    for &initial in &capacities {
        for &ratio in &ratios {
            let f = AtomicGrowableBloom::builder()
                .capacity(initial, 0.01)
                .tightening_ratio(ratio)
                .build()?;
            f.par_insert(0..keys)?;
            // Keys never inserted: the top of the u64 range.
            let false_positives = (0..PROBES).filter(|i| f.contains(&(u64::MAX - i))).count();
            println!(
                "{initial:>7}  {ratio:>5}  {:>8.2}  {:>11}  {:>10.4}  {:>13.4}",
                f.memory_bytes() as f64 * 8.0 / keys as f64,
                f.sub_filters(),
                f.false_positive_rate_bound(),
                false_positives as f64 / PROBES as f64,
            );
        }
    }
    Ok(())
}
