//! temporary
use atomic_bloom::AtomicGrowableBloom;
fn main() {
    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let n0s: Vec<usize> = std::env::args()
        .nth(2)
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    for &n0 in &n0s {
        for (s, r) in std::env::args()
            .nth(3)
            .unwrap()
            .split(",")
            .map(|x| (2.0f64, x.parse::<f64>().unwrap()))
            .collect::<Vec<_>>()
        {
            let f = AtomicGrowableBloom::builder(n0, 0.01)
                .growth_factor(s)
                .tightening_ratio(r)
                .build()
                .unwrap();
            let t = std::time::Instant::now();
            f.par_insert(0..n).unwrap();
            let took = t.elapsed().as_secs_f64();
            let probes = 1_000_000u64;
            let t = std::time::Instant::now();
            let fp = (0..probes).filter(|i| f.contains(&(u64::MAX - i))).count();
            let q = t.elapsed().as_secs_f64();
            println!(
                "n={n} n0={n0} s={s} r={r}: {:.2} bits/key, subs {}, bound {:.4}, measured {:.4}, insert {:.1} M/s, miss-query {:.1} M/s",
                f.memory_bytes() as f64 * 8.0 / n as f64,
                f.sub_filters(),
                f.false_positive_rate_bound(),
                fp as f64 / probes as f64,
                n as f64 / took / 1e6,
                probes as f64 / q / 1e6
            );
        }
    }
}
