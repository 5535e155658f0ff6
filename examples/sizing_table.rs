//! Prints bits per key and k for each layout and target rate (the table in
//! the crate and `Sizing` docs): `cargo run --release --example sizing_table`.
use atomic_bloom::{Layout, Sizing};

fn main() -> Result<(), atomic_bloom::BuildError> {
    let n = 1_000_000;
    let names: Vec<String> = Layout::ALL.iter().map(|l| format!("{l:?}")).collect();
    println!("| target p | {} |", names.join(" | "));
    println!("|---|{}", "---|".repeat(names.len()));
    for p in [0.1, 0.01, 0.001, 1e-4, 1e-5] {
        let mut row = format!("| {p} |");
        for layout in Layout::ALL {
            let s = Sizing::for_rate(layout, n, p)?;
            row += &format!(" {:.1} (k={}) |", s.bits_per_item(n), s.num_hashes());
        }
        println!("{row}");
    }
    Ok(())
}
