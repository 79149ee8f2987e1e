//! A library engine's counters at one instant: what its block is computed from.

use super::process::{cpu_times, CpuTimes};
use std::collections::BTreeMap;
use std::time::Instant;

/// Cumulative counters of a library engine (RocksDB's tickers, LevelDB's compaction table).
#[derive(Debug, Clone)]
pub struct CounterSnapshot {
    /// Counter name → cumulative value.
    pub counters: BTreeMap<String, f64>,
    /// CPU of the process.
    pub cpu: CpuTimes,
    /// When.
    pub at: Instant,
}

impl CounterSnapshot {
    /// `counters` now, with the process's CPU and the time.
    pub fn now(counters: BTreeMap<String, f64>) -> CounterSnapshot {
        CounterSnapshot {
            counters,
            cpu: cpu_times(),
            at: Instant::now(),
        }
    }

    /// `name`'s growth since `before`; `None` if either snapshot lacks it.
    pub fn delta(&self, before: &CounterSnapshot, name: &str) -> Option<f64> {
        let (a, b) = (self.counters.get(name)?, before.counters.get(name)?);
        Some((a - b).max(0.0))
    }
}
