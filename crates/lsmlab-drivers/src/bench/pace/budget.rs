//! How long a benchmark thread runs: a number of operations, or with `--duration` a number of
//! seconds (db_bench's `Duration`), in which case the operation count no longer limits it.

use std::time::{Duration, Instant};

/// Operations between clock reads when running for a duration: a clock read per operation
/// would cost more than a small get, and 100 operations take well under a millisecond.
const OPS_PER_CLOCK_READ: u64 = 100;

/// One thread's budget.
pub struct OpBudget {
    max_ops: u64,
    deadline: Option<Instant>,
    ops: u64,
    since_clock: u64,
}

impl OpBudget {
    /// `max_ops` operations, or `duration_secs` seconds when that is above 0.
    pub fn new(max_ops: u64, duration_secs: u64) -> OpBudget {
        OpBudget {
            max_ops,
            deadline: (duration_secs > 0)
                .then(|| Instant::now() + Duration::from_secs(duration_secs)),
            ops: 0,
            since_clock: 0,
        }
    }

    /// Whether the thread may do `n` more operations (counted as done if so).
    pub fn take(&mut self, n: u64) -> bool {
        match self.deadline {
            None => {
                if self.ops + n > self.max_ops {
                    return false;
                }
            }
            Some(deadline) => {
                self.since_clock += n;
                if self.since_clock >= OPS_PER_CLOCK_READ || self.ops == 0 {
                    self.since_clock = 0;
                    if Instant::now() >= deadline {
                        return false;
                    }
                }
            }
        }
        self.ops += n;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_operations_in_whole_steps() {
        let mut b = OpBudget::new(10, 0);
        let mut steps = 0;
        while b.take(3) {
            steps += 1;
        }
        assert_eq!(steps, 3, "only whole batches that fit in 10");
    }

    #[test]
    fn a_duration_ignores_the_count_and_ends() {
        let mut b = OpBudget::new(5, 1);
        let mut ops = 0u64;
        while b.take(1) {
            ops += 1;
            if ops == 1000 {
                break;
            }
        }
        assert_eq!(ops, 1000, "the count of 5 does not stop a timed run");
        let mut b = OpBudget::new(5, 1);
        b.deadline = Some(Instant::now());
        b.take(1);
        assert!(
            (0..OPS_PER_CLOCK_READ + 1).any(|_| !b.take(1)),
            "a passed deadline stops the run"
        );
    }
}
