//! The `--json=FILE` document: every figure of a run, for the lab and notebooks.

use crate::flags::BenchFlags;
use crate::readout::block::Figures;
use crate::readout::latency::LatencySummary;
use serde::Serialize;
use std::collections::BTreeMap;

/// One benchmark's figures.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkRecord {
    /// Benchmark name.
    pub name: String,
    /// Threads that ran it (readwhilewriting: readers, plus one writer).
    pub threads: usize,
    /// Operations of the summary line.
    pub ops: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// Microseconds per operation (threads' busy time / ops).
    pub micros_per_op: f64,
    /// Operations per wall second.
    pub ops_per_sec: f64,
    /// MB/s, when the benchmark counts bytes.
    pub mb_per_sec: Option<f64>,
    /// db_bench's message (first thread), e.g. `(10 of 10 found)`.
    pub message: String,
    /// Reads issued by all reader threads.
    pub reads: u64,
    /// Reads that found their key, all reader threads.
    pub found: u64,
    /// Operations of the writer that readwhilewriting leaves out of `ops`.
    pub writer_ops: u64,
    /// Latency per operation type (`read`, `write`, `delete`, `seek`), microseconds.
    pub latency_us: BTreeMap<String, LatencySummary>,
    /// The lsmlab block (with every ticker's delta).
    pub lsmlab: Figures,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    /// `lsmlab bench`.
    pub tool: &'static str,
    /// lsmlab's version.
    pub version: &'static str,
    /// The engine the benchmarks ran on: name, version and how it was built.
    pub engine: String,
    /// Seconds since the Unix epoch at the start.
    pub started_unix: u64,
    /// The database directory.
    pub db: String,
    /// The seed used (derived from the clock when `--seed=0`).
    pub seed: u64,
    /// Every flag's value.
    pub flags: BenchFlags,
    /// The flags the command line set.
    pub flags_set: Vec<String>,
    /// Per benchmark.
    pub benchmarks: Vec<BenchmarkRecord>,
}
