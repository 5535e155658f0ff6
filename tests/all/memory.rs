//! The bit array is one zeroed allocation: creating a huge filter maps
//! fresh zero pages and touches none of them (calloc), so it costs neither
//! time nor resident memory until keys land; then each touched page becomes
//! resident (2 MiB pages on Linux, which the array asks for).

/// Resident set size of this process in bytes (Linux).
#[cfg(target_os = "linux")]
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[cfg(target_os = "linux")]
#[test]
fn a_ten_gib_filter_touches_no_page_until_used() {
    use atomic_bloom::{AtomicBloom, Layout};
    for layout in Layout::ALL {
        let before = resident_bytes();
        let f = AtomicBloom::builder()
            .bits(10 << 33, layout.fixed_num_hashes().unwrap_or(7))
            .layout(layout)
            .build()
            .unwrap();
        assert_eq!(f.memory_bytes(), 10 << 30);
        // Other test threads allocate too: allow 64 MiB of noise, far below
        // the 10 GiB a zero-filling allocation would make resident.
        let created = resident_bytes().saturating_sub(before);
        assert!(
            created < 64 << 20,
            "{layout}: creating made {created} bytes resident"
        );
        // A few keys touch a few pages: each of a key's lines (k for
        // Standard, one otherwise) makes at most one page resident, 2 MiB
        // where the kernel grants the huge pages the array asks for.
        for i in 0..100u32 {
            f.insert(&i);
        }
        assert!((0..100u32).all(|i| f.contains(&i)));
        let lines_per_key = if layout == Layout::Standard { 7 } else { 1 };
        let used = resident_bytes().saturating_sub(before);
        let bound = (64 << 20) + 100 * lines_per_key * (2 << 20);
        assert!(
            used < bound,
            "{layout}: 100 keys made {used} bytes resident"
        );
    }
}
