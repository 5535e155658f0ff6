//! `info`: what a filter file holds.

use crate::filter_file::{self, name};
use crate::output::{counted, say};
use anyhow::{Result, bail};
use atomic_bloom::{
    AnyFilter, AtomicGrowableBloom, AtomicWindowedBloom, Cells, GuavaBloom, GuavaStrategy, Layout,
    SavedFilter, SharedState, WhenFull, Window,
};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The filter file, `-` for stdin.
    filter: PathBuf,
}

/// The largest fraction of its bits that any filter of `layout` sized
/// for a false-positive rate of 0.1 or below has set once it holds its
/// expected number of keys (this module's test checks it against the
/// sizing model): `SplitBlock`, whose `k` is always 8, fills more at high
/// rates than the layouts whose `k` shrinks with the rate. A file records
/// its bits, not the count it was sized for, so a fill above this is how
/// `info` tells that a filter holds more keys than any such sizing meant.
pub fn fullest_at_capacity(layout: Layout) -> f64 {
    match layout {
        Layout::SplitBlock => 0.74,
        _ => 0.56,
    }
}

/// The file's format version, from its header: a shared file is version
/// 3 whatever its kind's oldest version is. A stream (a FIFO, stdin) was
/// read once already: its filter's kind says.
fn format_version(path: &std::path::Path, filter: &SavedFilter) -> u16 {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return filter.kind().format_version();
    }
    let mut start = [0u8; 10];
    let read =
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut start));
    match read {
        Ok(()) => u16::from_le_bytes([start[8], start[9]]),
        Err(_) => filter.kind().format_version(),
    }
}

/// The version of a file in Spark's own format (`BloomFilter.writeTo`):
/// its first four bytes, big-endian.
fn spark_version(path: &std::path::Path) -> Option<u8> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut start = [0u8; 4];
    let mut file = std::fs::File::open(path).ok()?;
    std::io::Read::read_exact(&mut file, &mut start).ok()?;
    match start {
        [0, 0, 0, version @ (1 | 2)] => Some(version),
        _ => None,
    }
}

pub fn run(args: Args) -> Result<()> {
    let filter = match filter_file::load(&args.filter)? {
        AnyFilter::Saved(filter) => filter,
        AnyFilter::Guava(filter) => {
            say!("file:               {}", name(&args.filter));
            describe_guava(&filter);
            return Ok(());
        }
    };
    say!("file:               {}", name(&args.filter));
    match spark_version(&args.filter) {
        Some(version) => say!("format:             Spark's BloomFilter.writeTo, V{version}"),
        None => say!(
            "format version:     {}",
            format_version(&args.filter, &filter)
        ),
    }
    match filter_file::shared_state(&filter) {
        Some(SharedState::Open) => say!("writer state:       open for writing by another process"),
        Some(SharedState::LeftOpen) => say!(
            "writer state:       left open by a writer that did not close it (killed or crashed)"
        ),
        _ => {}
    }
    let (fill, cells, layout) = match &filter {
        SavedFilter::Bloom(f) => {
            let labels = ["bits (m)", "hashes per key (k)", "bits set"];
            (
                describe_fixed(f, "plain", labels, f.par_count_ones()),
                "bits",
                f.layout(),
            )
        }
        SavedFilter::Parquet(f) => {
            let labels = ["bits (m)", "hashes per key (k)", "bits set"];
            (
                describe_fixed(f, "plain, from Parquet", labels, f.par_count_ones()),
                "bits",
                f.layout(),
            )
        }
        SavedFilter::Spark(f) => {
            let labels = ["bits (m)", "hashes per key (k)", "bits set"];
            (
                describe_fixed(f, "plain, Spark's", labels, f.par_count_ones()),
                "bits",
                f.layout(),
            )
        }
        SavedFilter::Counting(f) => {
            let labels = ["counters (m)", "counters per key", "counters above 0"];
            let kind = "counting (4-bit counters)";
            let fill = describe_fixed(f, kind, labels, f.nonzero_counters());
            let saturated = f.saturated_counters();
            say!(
                "saturated counters: {saturated}{}",
                if saturated > 0 {
                    " (stuck at 15: keys on them are never removed)"
                } else {
                    ""
                }
            );
            (fill, "counters", f.layout())
        }
        SavedFilter::Growable(f) => {
            describe_growable(f);
            return Ok(());
        }
        SavedFilter::Windowed(f) => {
            describe_windowed(f);
            return Ok(());
        }
        other => bail!(
            "{} holds {}, which this build cannot describe",
            name(&args.filter),
            other.kind()
        ),
    };
    let fullest = fullest_at_capacity(layout);
    if fill > fullest {
        say!(
            "capacity:           OVER: {:.0}% of the {} are set, more than any filter sized for a \
             false-positive rate of 0.1 or below has at its expected keys ({:.0}%); rebuild it with a \
             larger --expected",
            100.0 * fill,
            cells,
            100.0 * fullest
        );
    }
    Ok(())
}

/// `info` of a plain or counting filter after the file's name and version,
/// but for the counting filter's saturated counters; `labels` name its
/// cells, its `k` and its cells above zero (`ones`). Returns the fraction
/// of cells above zero.
fn describe_fixed<C: Cells, S: std::hash::BuildHasher + 'static>(
    f: &atomic_bloom::Filter<C, S>,
    kind: &str,
    labels: [&str; 3],
    ones: u64,
) -> f64 {
    let [cells, per_key, set] = labels.map(|label| format!("{label}:"));
    say!("kind:               {kind}");
    say!("layout:             {}", f.layout());
    say!("{cells:<20}{}", f.num_bits());
    say!("{per_key:<20}{}", f.num_hashes());
    say!("hasher:             {}", hasher_name(f.hasher()));
    say!("memory:             {} bytes", f.memory_bytes());
    let fill = ones as f64 / f.num_bits() as f64;
    say!("{set:<20}{ones} ({:.2}%)", 100.0 * fill);
    say!("estimated keys:     {}", describe_len(f.estimated_len()));
    say!(
        "estimated fpr:      {:.3e}",
        f.estimated_false_positive_rate()
    );
    fill
}

/// The hasher as `info` names it: wyhash and its seed, Parquet's or
/// Spark's.
fn hasher_name<S: 'static>(hasher: &S) -> String {
    let hasher = hasher as &dyn std::any::Any;
    if let Some(spark) = hasher.downcast_ref::<atomic_bloom::SparkHasher>() {
        return format!(
            "Spark's (two Murmur3 hashes, seed {}): a line is a string (putString)",
            spark.seed()
        );
    }
    match hasher.downcast_ref::<atomic_bloom::WyBuildHasher>() {
        Some(wyhash) => format!("wyhash, seed {}", wyhash.seed()),
        None if hasher.is::<atomic_bloom::ParquetHasher>() => {
            "Parquet's (XXH64 of the plain encoding, seed 0): a line is a string value".to_string()
        }
        None => "custom".to_string(),
    }
}

/// `info` of a filter in Guava's format, after the file's name.
fn describe_guava(f: &GuavaBloom) {
    let strategy = match f.strategy() {
        GuavaStrategy::Murmur128Mitz32 => "MURMUR128_MITZ_32",
        _ => "MURMUR128_MITZ_64",
    };
    say!("format:             Guava's BloomFilter.writeTo, strategy {strategy}");
    say!("kind:               plain, Guava's");
    say!("bits (m):           {}", f.num_bits());
    say!("hashes per key (k): {}", f.num_hashes());
    say!("hasher:             Guava's (Murmur3 x64 128): a line is a string (stringFunnel(UTF_8))");
    let ones = f.count_ones();
    say!(
        "bits set:           {ones} ({:.2}%)",
        100.0 * ones as f64 / f.num_bits() as f64
    );
    say!(
        "estimated fpr:      {:.3e}",
        f.estimated_false_positive_rate()
    );
}

/// `info` of a windowed filter (`dedup --state`) after the file's name and
/// version: its window and generations.
fn describe_windowed(f: &AtomicWindowedBloom) {
    say!(
        "kind:               windowed ({} generations)",
        f.generations()
    );
    say!(
        "window:             {}",
        match f.window() {
            Window::Keys(n) => format!("the last {}", counted(n, "key")),
            Window::Duration(d) => humantime::format_duration(d).to_string(),
            _ => "of an unknown kind".to_string(),
        }
    );
    say!("layout:             {}", f.layout());
    say!("hasher:             {}", hasher_name(f.hasher()));
    say!(
        "each generation:    {} bits, k = {}, sized for {}",
        f.sizing().num_bits(),
        f.sizing().num_hashes(),
        counted(f.keys_per_generation(), "key")
    );
    say!("target fpr:         {}", f.target_false_positive_rate());
    say!(
        "when full:          {}",
        match f.when_full() {
            WhenFull::KeepFilling => "keep filling",
            _ => "rotate",
        }
    );
    say!("rotations:          {}", f.rotations());
    say!(
        "keys in window:     about {}",
        f.estimated_len().unwrap_or(0)
    );
    let estimate = f.estimated_false_positive_rate();
    say!("estimated fpr:      {estimate:.3e}");
    say!("generations full early: {}", f.generations_filled_early());
    say!("memory:             {} bytes", f.memory_bytes());
    // The target holds with every generation full; an estimate past it by
    // more than estimates of a full window vary means generations took
    // more keys than they were sized for.
    if estimate > f.target_false_positive_rate() * WINDOW_RATE_SLACK {
        say!(
            "capacity:           OVER: the estimated false-positive rate is {:.1}x the target; \
             generations took more lines than they were sized for: raise --expected (or use \
             --when-full rotate)",
            estimate / f.target_false_positive_rate()
        );
    }
}

/// How far past its target a windowed filter's estimated rate may be
/// before `info` calls it over: a full window estimates within a few
/// percent of the target (`tests/all/window.rs`,
/// `the_rate_holds_at_the_worst_point_of_the_cycle`).
const WINDOW_RATE_SLACK: f64 = 1.25;

/// `info` of a growable filter after the file's name and version: its
/// parameters, then one line per sub-filter, oldest first.
fn describe_growable(f: &AtomicGrowableBloom) {
    let stats = f.sub_filter_stats();
    say!(
        "kind:               growable ({} of at most {} sub-filters)",
        stats.len(),
        f.max_sub_filters()
    );
    say!("layout:             {}", f.layout());
    say!("hasher:             {}", hasher_name(f.hasher()));
    say!("target fpr:         {}", f.target_false_positive_rate());
    say!(
        "initial capacity:   {}",
        counted(f.initial_capacity(), "key")
    );
    say!(
        "growth:             each sub-filter {}x the keys of the one before, at {}x its rate",
        f.growth_factor(),
        f.tightening_ratio()
    );
    match f.memory_limit() {
        Some(limit) => say!(
            "memory:             {} bytes, limit {limit}",
            f.memory_bytes()
        ),
        None => say!("memory:             {} bytes, no limit", f.memory_bytes()),
    }
    say!("estimated keys:     {}", describe_len(f.estimated_len()));
    say!("fpr bound:          {:.3e}", f.false_positive_rate_bound());
    say!("sub-filters:");
    say!(
        "  {:>3} {:>14} {:>14} {:>14} {:>16} {:>3} {:>10}",
        "#",
        "capacity",
        "fill limit",
        "inserted",
        "bits",
        "k",
        "rate"
    );
    for (i, s) in stats.iter().enumerate() {
        say!(
            "  {i:>3} {:>14} {:>14} {:>14} {:>16} {:>3} {:>10.3e}",
            s.capacity,
            s.fill_limit,
            s.inserted,
            s.sizing.num_bits(),
            s.sizing.num_hashes(),
            s.false_positive_rate
        );
    }
    let newest = stats.last();
    if stats.len() as u32 == f.max_sub_filters() && newest.is_some_and(|s| s.inserted >= s.capacity)
    {
        say!(
            "capacity:           FULL: the last sub-filter the filter may have is full; new keys are refused"
        );
    }
}

/// The estimated number of keys, or why there is none.
pub fn describe_len(estimated_len: Option<u64>) -> String {
    match estimated_len {
        Some(n) => format!("about {}", counted(n, "key")),
        None => "unknown: every bit is set (saturated: every query answers present)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomic_bloom::Sizing;

    /// The expected fraction of bits set once `n` keys are in: each bit is
    /// set by a key with probability `q = s / m`, where a key's `k` draws
    /// from a block of `B` bits set `s = B (1 - (1 - 1/B)^k)` distinct
    /// ones (`Sectorized`: `ceil(k/2)` and `floor(k/2)` draws from two
    /// words of 64).
    fn expected_fill(s: Sizing, n: usize) -> f64 {
        let m = s.num_bits() as f64;
        let k = s.num_hashes();
        let distinct = |b: f64, draws: u32| -(f64::from(draws) * (-1.0 / b).ln_1p()).exp_m1() * b;
        let per_key = match s.layout() {
            Layout::Sectorized => distinct(64.0, k.div_ceil(2)) + distinct(64.0, k / 2),
            // One bit in each of eight lanes: always eight distinct bits.
            Layout::SplitBlock => f64::from(k),
            layout => distinct(layout.block_bits().map_or(m, |b| b as f64), k),
        };
        -(n as f64 * (-per_key / m).ln_1p()).exp_m1()
    }

    /// The largest expected fill of any sizing of `layout` for a million
    /// keys at a rate from 0.1 down to 1e-6 (log-spaced).
    fn fullest_fill(layout: Layout) -> f64 {
        let n = 1_000_000;
        (0..=400)
            .map(|step| 0.1 * 10f64.powf(-f64::from(step) * 5.0 / 400.0))
            .map(|p| expected_fill(Sizing::for_rate(layout, n, p).unwrap(), n))
            .fold(0.0, f64::max)
    }

    #[test]
    fn no_sizing_at_a_tenth_or_below_fills_more_than_the_over_capacity_threshold() {
        let fills: Vec<(Layout, f64)> = Layout::ALL.map(|l| (l, fullest_fill(l))).into();
        for &(layout, fill) in &fills {
            assert!(fill <= fullest_at_capacity(layout), "{layout}: {fill}");
        }
        // And no threshold is loose: for each, some layout's sizing comes
        // within 2 points of it.
        for &(layout, _) in &fills {
            let threshold = fullest_at_capacity(layout);
            let nearest = fills
                .iter()
                .filter(|&&(other, _)| fullest_at_capacity(other) == threshold)
                .map(|&(_, fill)| fill)
                .fold(0.0, f64::max);
            assert!(nearest > threshold - 0.02, "{layout}: {nearest}");
        }
    }
}
