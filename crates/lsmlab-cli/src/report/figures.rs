//! The lsmlab block of any engine: lsmlab's own figures ([`LsmFigures`]) or the figures a
//! library engine can give ([`ForeignFigures`]), and the counters they are computed from.

use super::engine::{EngineSnapshot, LsmFigures};
use super::foreign::ForeignFigures;
use super::process::{cpu_times, CpuTimes};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// An engine's counters at one instant.
#[derive(Clone)]
pub enum Snapshot {
    /// lsmlab's tickers, I/O counters and the process's CPU.
    Lsmlab(EngineSnapshot),
    /// A library engine's cumulative counters by name, and the process's CPU.
    Counters(CounterSnapshot),
}

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

/// The figures of one benchmark or phase: serialized as the JSON's `lsmlab` object, printed
/// as the lsmlab block.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Figures {
    /// lsmlab's.
    Lsmlab(Box<LsmFigures>),
    /// A library engine's; what it cannot give is `null` / `n/a`.
    Foreign(Box<ForeignFigures>),
}

impl Figures {
    /// The block printed after a benchmark.
    pub fn to_text(&self, title: &str) -> String {
        match self {
            Figures::Lsmlab(f) => f.to_text(title),
            Figures::Foreign(f) => f.to_text(title),
        }
    }

    /// lsmlab's figures, when the engine was lsmlab.
    pub fn lsmlab(&self) -> Option<&LsmFigures> {
        match self {
            Figures::Lsmlab(f) => Some(f),
            Figures::Foreign(_) => None,
        }
    }

    /// A library engine's figures, when the engine was one.
    pub fn foreign(&self) -> Option<&ForeignFigures> {
        match self {
            Figures::Foreign(f) => Some(f),
            Figures::Lsmlab(_) => None,
        }
    }

    /// Write amplification (table bytes written / user bytes written), if the engine gives it.
    pub fn write_amp(&self) -> Option<f64> {
        match self {
            Figures::Lsmlab(f) => f.write_amp,
            Figures::Foreign(f) => f.write_amp,
        }
    }

    /// Key + value bytes returned to the benchmark.
    pub fn bytes_returned(&self) -> u64 {
        match self {
            Figures::Lsmlab(f) => f.bytes_returned,
            Figures::Foreign(f) => f.bytes_returned,
        }
    }
}
