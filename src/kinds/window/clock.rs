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

/// The system's monotonic clock ([`Instant`]), from when it was made.
#[derive(Debug)]
pub struct MonotonicClock {
    origin: Instant,
    /// What it read at `origin`, in nanoseconds.
    start: u64,
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
            origin: Instant::now(),
            start: u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl Clock for MonotonicClock {
    fn now_nanos(&self) -> u64 {
        // Saturates after 584 years.
        let since = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
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
