//! Saves and loads a large filter and times each path:
//!
//! ```text
//! cargo run --release --example save_load [-- GIB]
//! ```
//!
//! Builds a filter of GIB gibibytes (default 1) with 10 million keys in it,
//! saves it atomically into the working directory (a 1 GiB file may not fit
//! a memory-backed `/tmp`) under a name with the process id, then
//! reads it back through `load` (the file fast path), `read_from` on a
//! buffered file (the generic stream path) and `from_bytes`, checking that
//! each copy equals the original. The file is removed at the end. It needs
//! nothing but this crate, so a copy runs in any project that depends on it.

use atomic_bloom::{AtomicBloom, Layout};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gib: u64 = std::env::args().nth(1).map_or(Ok(1), |a| a.parse())?;
    let filter = AtomicBloom::builder()
        .bits(gib << 33, 7)
        .layout(Layout::Blocked)
        .build()?;
    for i in 0..10_000_000u64 {
        filter.insert(&i);
    }
    let path = std::path::PathBuf::from(format!("save_load-{}.bloom", std::process::id()));
    // Removes the file however the run ends, as a temporary directory would.
    struct RemoveOnDrop<'a>(&'a std::path::Path);
    impl Drop for RemoveOnDrop<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _remove = RemoveOnDrop(&path);
    let mib = filter.memory_bytes() as f64 / (1 << 20) as f64;
    println!("filter: {mib:.0} MiB, {} bits", filter.num_bits());

    let report = |what: &str, start: Instant| {
        let secs = start.elapsed().as_secs_f64();
        println!("{what:<34} {secs:>6.3} s  {:>7.0} MiB/s", mib / secs);
    };
    let start = Instant::now();
    filter.save(&path)?;
    report("save (temp file, fsync, rename)", start);

    let start = Instant::now();
    let loaded = AtomicBloom::load(&path)?;
    report("load (file fast path)", start);
    assert!(loaded == filter, "loaded filter differs");
    drop(loaded);

    let start = Instant::now();
    let read = AtomicBloom::read_from(std::io::BufReader::new(std::fs::File::open(&path)?))?;
    report("read_from(BufReader<File>)", start);
    assert!(read == filter, "read filter differs");
    drop(read);

    let start = Instant::now();
    let decoded = AtomicBloom::from_bytes(&std::fs::read(&path)?)?;
    report("fs::read + from_bytes", start);
    assert!(decoded == filter, "decoded filter differs");
    println!("every copy equals the original");
    Ok(())
}
