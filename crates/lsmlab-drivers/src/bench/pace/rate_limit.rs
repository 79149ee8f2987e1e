//! `--benchmark_write_rate_limit` (bytes per second) and `--benchmark_read_rate_limit`
//! (operations per second): the client held to a rate, as db_bench holds it with a rate limiter
//! (0: unlimited).

use std::time::{Duration, Instant};

/// Sleeps shorter than this are batched: a sleep costs tens of microseconds to wake from.
const MIN_SLEEP: Duration = Duration::from_millis(1);

/// A per-thread limiter: each thread gets the whole rate divided by the threads that share it.
pub struct RateLimiter {
    units_per_sec: f64,
    start: Instant,
    units: u64,
}

impl RateLimiter {
    /// A limiter of `units_per_sec` (bytes or operations) shared by `threads`; `None` when
    /// unlimited.
    pub fn new(units_per_sec: u64, threads: usize) -> Option<RateLimiter> {
        (units_per_sec > 0).then(|| RateLimiter {
            units_per_sec: units_per_sec as f64 / threads.max(1) as f64,
            start: Instant::now(),
            units: 0,
        })
    }

    /// Accounts `units` about to be spent; sleeps while the thread is ahead of its rate.
    pub fn request(&mut self, units: u64) {
        self.units += units;
        let due = self.due();
        let elapsed = self.start.elapsed();
        if due > elapsed + MIN_SLEEP {
            std::thread::sleep(due - elapsed);
        }
    }

    /// When the thread may spend its next unit, from its start.
    fn due(&self) -> Duration {
        Duration::from_secs_f64(self.units as f64 / self.units_per_sec)
    }
}

/// Accounts one unit on `limiter` when there is one.
pub fn request(limiter: &mut Option<RateLimiter>, units: u64) {
    if let Some(l) = limiter.as_mut() {
        l.request(units);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_unlimited_and_the_rate_is_split_between_threads() {
        assert!(RateLimiter::new(0, 4).is_none());
        let mut l = RateLimiter::new(4_000_000, 4).unwrap();
        l.request(1_000);
        // 1 MB/s per thread: 1,000 bytes are due after 1 ms.
        assert_eq!(l.due(), Duration::from_millis(1));
        let t = Instant::now();
        l.request(20_000);
        assert!(
            t.elapsed() >= Duration::from_millis(15),
            "the writer was held back"
        );
    }

    #[test]
    fn operations_are_held_to_their_rate() {
        // 2,000 reads per second over 2 readers: 1,000 each, so 50 reads take 50 ms.
        let mut l = Some(RateLimiter::new(2_000, 2).unwrap());
        let t = Instant::now();
        for _ in 0..50 {
            request(&mut l, 1);
        }
        assert!(
            t.elapsed() >= Duration::from_millis(49),
            "{:?}",
            t.elapsed()
        );
    }
}
