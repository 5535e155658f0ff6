//! Does backing the bit array with huge pages pay? Times a 100M-key filter
//! under whatever transparent-huge-page mode the kernel is in:
//!
//! ```text
//! cat /sys/kernel/mm/transparent_hugepage/enabled      # usually [madvise]
//! cargo run --release --example huge_pages             # the array asks for huge pages
//! echo never > /sys/kernel/mm/transparent_hugepage/enabled
//! cargo run --release --example huge_pages             # 4 KiB pages only
//! echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
//! ```
//!
//! Linux only (it reads the mode and `AnonHugePages` from /proc and /sys).

use atomic_bloom::AtomicBloom;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")?;
    let items = 100_000_000u64;
    let ops = 10_000_000u64;
    let filter = AtomicBloom::new(items as usize, 0.01)?;
    filter.par_insert(0..items / 2); // half full: every page touched
    let huge = std::fs::read_to_string("/proc/meminfo")?
        .lines()
        .find(|l| l.starts_with("AnonHugePages"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        .unwrap_or_default();
    println!("THP mode: {} ; AnonHugePages: {huge} kB", mode.trim());
    let rate = |ops: u64, start: Instant| ops as f64 / start.elapsed().as_secs_f64() / 1e6;
    let start = Instant::now();
    let hits = filter
        .contains_batch(0..ops)
        .into_iter()
        .filter(|&hit| hit)
        .count();
    println!("contains_batch, 1 thread   {:>6.1} M/s", rate(ops, start));
    let start = Instant::now();
    let single = (0..ops / 4).filter(|k| filter.contains(k)).count();
    println!(
        "contains, 1 thread         {:>6.1} M/s",
        rate(ops / 4, start)
    );
    let start = Instant::now();
    filter.insert_batch(items..items + ops);
    println!("insert_batch, 1 thread     {:>6.1} M/s", rate(ops, start));
    let start = Instant::now();
    filter.par_insert(2 * items..2 * items + ops);
    println!("par_insert, 2 threads      {:>6.1} M/s", rate(ops, start));
    assert_eq!(
        (hits as u64, single as u64),
        (ops, ops / 4),
        "false negative"
    );
    Ok(())
}
