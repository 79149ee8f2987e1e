//! An engine run's readout, what both `bench` and `ycsb` print: latency histograms, process
//! resources, and the lsmlab block of engine figures (amplification, filters, compaction,
//! space, memory, CPU) for lsmlab and for the library engines.

pub mod block;
pub mod counters;
pub mod filter_levels;
pub mod foreign;
pub mod formulas;
pub mod latency;
pub mod logs;
pub mod lsm;
pub mod process;
pub mod shared;
pub mod sim;
