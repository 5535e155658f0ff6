//! How much of the machine others took while `bench` measured: other
//! processes' CPU time and the hypervisor's steal time, from Linux's
//! `/proc/stat` (the whole machine) and `/proc/self/stat` (this process),
//! both in clock ticks. A ratio measured while others took a noticeable
//! share of the CPUs says more about them than about the filter, so
//! `bench` marks such a verdict unreliable instead of met or missed.
//! Elsewhere than Linux nothing is read and nothing is marked.

/// The share of the machine's CPU time that others may take during a
/// measurement before its verdict is marked unreliable.
pub const MAX_OTHERS_SHARE: f64 = 0.05;

/// CPU accounting at one instant, in clock ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Ticks of every CPU, busy or not.
    total: u64,
    /// Ticks some process (or the kernel) ran, every CPU.
    busy: u64,
    /// Ticks the hypervisor ran another guest instead.
    steal: u64,
    /// Ticks this process and its live children ran (user and system):
    /// `bench --shared`'s worker processes are ours.
    ours: u64,
}

impl Sample {
    /// The accounting now, or `None` where `/proc` cannot tell.
    pub fn now() -> Option<Sample> {
        let machine = std::fs::read_to_string("/proc/stat").ok()?;
        let process = std::fs::read_to_string("/proc/self/stat").ok()?;
        let mut sample = Sample::parse(&machine, &process)?;
        sample.ours += children_ticks();
        Some(sample)
    }

    /// Reads the `cpu` line of `/proc/stat` and fields 14-15 (utime,
    /// stime) of `/proc/<pid>/stat`.
    fn parse(machine: &str, process: &str) -> Option<Sample> {
        let cpu: Vec<u64> = machine
            .lines()
            .find(|line| line.starts_with("cpu "))?
            .split_whitespace()
            .skip(1)
            .map(|field| field.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal [guest guest_nice],
        // where guest time is already counted in user.
        let field = |i: usize| cpu.get(i).copied().unwrap_or(0);
        let (idle, iowait, steal) = (field(3), field(4), field(7));
        let busy = field(0) + field(1) + field(2) + field(5) + field(6);
        // The command name (field 2) may hold spaces: count from its ')'.
        let after_name = &process[process.rfind(')')? + 1..];
        let mut fields = after_name.split_whitespace().skip(11);
        let utime: u64 = fields.next()?.parse().ok()?;
        let stime: u64 = fields.next()?.parse().ok()?;
        Some(Sample {
            total: busy + idle + iowait + steal,
            busy,
            steal,
            ours: utime + stime,
        })
    }

    /// The share of all CPU time since `earlier` that others took: other
    /// processes' busy time plus the hypervisor's steal.
    pub fn others_share_since(&self, earlier: &Sample) -> f64 {
        let total = self.total.saturating_sub(earlier.total);
        if total == 0 {
            return 0.0;
        }
        let busy = self.busy.saturating_sub(earlier.busy);
        let ours = self.ours.saturating_sub(earlier.ours);
        let steal = self.steal.saturating_sub(earlier.steal);
        (busy.saturating_sub(ours) + steal) as f64 / total as f64
    }
}

/// Ticks this process's live children ran: every `/proc/<pid>/stat`
/// whose parent (field 4) is this process.
fn children_ticks() -> u64 {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name();
            name.to_str()?.parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", name.to_str()?)).ok()?;
            let after_name = &stat[stat.rfind(')')? + 1..];
            let mut fields = after_name.split_whitespace();
            // Field 3 is the state, 4 the parent.
            (fields.nth(1)? == me).then_some(())?;
            let mut times = after_name.split_whitespace().skip(11);
            let utime: u64 = times.next()?.parse().ok()?;
            let stime: u64 = times.next()?.parse().ok()?;
            Some(utime + stime)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(user: u64, idle: u64, steal: u64) -> String {
        format!("cpu  {user} 0 0 {idle} 0 0 0 {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    }

    fn process(utime: u64) -> String {
        format!("4242 (bench (x) y) R 1 2 3 4 5 6 7 8 9 10 {utime} 0 0 0")
    }

    #[test]
    fn others_share_counts_other_processes_and_steal_not_ours() {
        let before = Sample::parse(&stat(100, 1000, 0), &process(50)).unwrap();
        // 200 ticks passed: we ran 100, the rest idle: nobody else.
        let alone = Sample::parse(&stat(200, 1100, 0), &process(150)).unwrap();
        assert_eq!(alone.others_share_since(&before), 0.0);
        // We ran 100, another process 60, the hypervisor stole 20, 20 idle.
        let loaded = Sample::parse(&stat(260, 1020, 20), &process(150)).unwrap();
        assert!((loaded.others_share_since(&before) - 80.0 / 200.0).abs() < 1e-12);
    }

    #[test]
    fn malformed_input_is_no_sample() {
        assert_eq!(Sample::parse("intr 1 2", &process(1)), None);
        assert_eq!(Sample::parse(&stat(1, 1, 1), "no fields"), None);
        assert_eq!(Sample::parse("cpu  x y", &process(1)), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_can_be_sampled() {
        let a = Sample::now().expect("Linux has /proc/stat");
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(50) {}
        let b = Sample::now().unwrap();
        assert!(b.ours >= a.ours && b.total >= a.total);
        assert!((0.0..=1.0).contains(&b.others_share_since(&a)));
    }
}
