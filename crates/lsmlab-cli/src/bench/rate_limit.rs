//! `--benchmark_write_rate_limit`: the client's writes held to a byte rate, as db_bench holds
//! them with a rate limiter (0: unlimited).

use std::time::{Duration, Instant};

/// Sleeps shorter than this are batched: a sleep costs tens of microseconds to wake from.
const MIN_SLEEP: Duration = Duration::from_millis(1);

/// A per-thread limiter: each thread gets the whole rate divided by the writing threads.
pub struct WriteRateLimiter {
    bytes_per_sec: f64,
    start: Instant,
    bytes: u64,
}

impl WriteRateLimiter {
    /// A limiter of `bytes_per_sec` shared by `threads` writers; `None` when unlimited.
    pub fn new(bytes_per_sec: u64, threads: usize) -> Option<WriteRateLimiter> {
        (bytes_per_sec > 0).then(|| WriteRateLimiter {
            bytes_per_sec: bytes_per_sec as f64 / threads.max(1) as f64,
            start: Instant::now(),
            bytes: 0,
        })
    }

    /// Accounts `bytes` about to be written; sleeps while the thread is ahead of its rate.
    pub fn request(&mut self, bytes: u64) {
        self.bytes += bytes;
        let due = Duration::from_secs_f64(self.bytes as f64 / self.bytes_per_sec);
        let elapsed = self.start.elapsed();
        if due > elapsed + MIN_SLEEP {
            std::thread::sleep(due - elapsed);
        }
    }

    /// When the thread may write its next byte (for tests).
    #[cfg(test)]
    fn due(&self) -> Duration {
        Duration::from_secs_f64(self.bytes as f64 / self.bytes_per_sec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_unlimited_and_the_rate_is_split_between_threads() {
        assert!(WriteRateLimiter::new(0, 4).is_none());
        let mut l = WriteRateLimiter::new(4_000_000, 4).unwrap();
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
}
