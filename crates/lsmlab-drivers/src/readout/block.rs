//! The lsmlab block of any engine: lsmlab's own figures ([`LsmFigures`]) or the figures a
//! library engine can give ([`ForeignFigures`]), and the snapshots they are computed from.

use super::counters::CounterSnapshot;
use super::foreign::ForeignFigures;
use super::lsm::{EngineSnapshot, LsmFigures};
use super::shared::EngineFigures;
use serde::Serialize;

/// An engine's counters at one instant.
#[derive(Clone)]
pub enum Snapshot {
    /// lsmlab's tickers, I/O counters and the process's CPU.
    Lsmlab(EngineSnapshot),
    /// A library engine's cumulative counters by name, and the process's CPU.
    Counters(CounterSnapshot),
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
    /// The figures, whichever engine gave them.
    pub fn engine(&self) -> &dyn EngineFigures {
        match self {
            Figures::Lsmlab(f) => f.as_ref(),
            Figures::Foreign(f) => f.as_ref(),
        }
    }

    /// The block printed after a benchmark.
    pub fn to_text(&self, title: &str) -> String {
        self.engine().to_text(title)
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
        self.engine().write_amp()
    }

    /// Key + value bytes returned to the benchmark.
    pub fn bytes_returned(&self) -> u64 {
        self.engine().bytes_returned()
    }
}
