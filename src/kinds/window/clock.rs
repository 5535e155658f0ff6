//! # Clocks for time windows
//!
//! A time window rotates by a [`Clock`]: the system's monotonic clock by
//! default ([`MonotonicClock`]), or one the caller drives
//! ([`ManualClock`]) to test a window or to replay a stream at the times
//! its events carry.

use crate::sync::{AtomicU64, Ordering::Relaxed};
use std::fmt;
use std::time::{Duration, Instant};

/// Where a windowed filter reads the time: a monotonic count of
/// nanoseconds from any origin.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Nanoseconds since this clock's origin; never decreases.
    fn now_nanos(&self) -> u64;
}

/// The system's monotonic clock, from when it was made: [`Instant`], or
/// with [`coarse`](Self::coarse) the kernel's coarse monotonic clock.
#[derive(Debug)]
pub struct MonotonicClock {
    source: Source,
    /// What it read at its origin, in nanoseconds.
    start: u64,
}

/// Where a [`MonotonicClock`] reads the time.
#[derive(Debug)]
enum Source {
    /// `Instant`, from this origin.
    Precise(Instant),
    /// `CLOCK_MONOTONIC_COARSE`, from this reading of it.
    #[cfg(target_os = "linux")]
    Coarse(u64),
}

impl MonotonicClock {
    /// A clock reading zero now.
    pub fn new() -> Self {
        MonotonicClock::starting_at(Duration::ZERO)
    }

    /// A clock reading `elapsed` now, as if made that long ago: a loaded
    /// windowed filter's default clock, under which the generations it
    /// restores began before now.
    ///
    /// ```
    /// use atomic_bloom::{Clock, MonotonicClock};
    /// use std::time::Duration;
    /// let clock = MonotonicClock::starting_at(Duration::from_secs(3600));
    /// assert!(clock.now_nanos() >= 3_600_000_000_000);
    /// ```
    pub fn starting_at(elapsed: Duration) -> Self {
        MonotonicClock {
            source: Source::Precise(Instant::now()),
            start: u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX),
        }
    }

    /// The same clock read from the kernel's coarse monotonic clock
    /// (`CLOCK_MONOTONIC_COARSE`, clock_gettime(2)) where there is one
    /// (Linux): it advances once a scheduler tick (1 to 10 ms; 4 ms at the
    /// usual 250 Hz) and costs a fraction of a precise read, which a time
    /// window makes on every call. A window whose generations last a second
    /// or more uses it by default: its rotations then come up to one tick
    /// late. Elsewhere, the precise clock.
    ///
    /// ```
    /// use atomic_bloom::{Clock, MonotonicClock};
    /// let clock = MonotonicClock::new().coarse();
    /// let before = clock.now_nanos();
    /// std::thread::sleep(std::time::Duration::from_millis(30));
    /// assert!(clock.now_nanos() >= before + 10_000_000);
    /// ```
    #[must_use]
    pub fn coarse(self) -> Self {
        #[cfg(target_os = "linux")]
        {
            let since = self.now_nanos().saturating_sub(self.start);
            MonotonicClock {
                source: Source::Coarse(coarse_nanos().saturating_sub(since)),
                start: self.start,
            }
        }
        #[cfg(not(target_os = "linux"))]
        self
    }
}

/// `CLOCK_MONOTONIC_COARSE` in nanoseconds (rustix reads it through the
/// vDSO, without a system call).
#[cfg(target_os = "linux")]
fn coarse_nanos() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::MonotonicCoarse);
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(now.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl Clock for MonotonicClock {
    fn now_nanos(&self) -> u64 {
        // Saturates after 584 years.
        let since = match self.source {
            Source::Precise(origin) => {
                u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
            }
            #[cfg(target_os = "linux")]
            Source::Coarse(origin) => coarse_nanos().saturating_sub(origin),
        };
        self.start.saturating_add(since)
    }
}

/// A clock that moves only when told to: for tests, and for replaying a
/// stream by the times its events carry. Shared between threads (it is
/// `Sync`); it never goes back.
///
/// ```
/// use atomic_bloom::ManualClock;
/// use std::time::Duration;
/// let clock = ManualClock::new();
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(clock.elapsed(), Duration::from_secs(2));
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: AtomicU64,
}

impl ManualClock {
    /// A clock at zero.
    pub fn new() -> Self {
        ManualClock::default()
    }

    /// Moves the clock forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // ORDERING: Relaxed; the clock publishes nothing: a window reads
        // it to decide when to rotate, and reading it late only rotates
        // late. Its atomicity keeps racing advances from losing one.
        let _ = self
            .nanos
            .fetch_update(Relaxed, Relaxed, |now| Some(now.saturating_add(by)));
    }

    /// Time since zero.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.now_nanos())
    }
}

impl Clock for ManualClock {
    fn now_nanos(&self) -> u64 {
        // ORDERING: Relaxed, as in `advance`.
        self.nanos.load(Relaxed)
    }
}
