//! What both `bench` and `ycsb` report: latency histograms, process resources, and the lsmlab
//! block of engine figures (amplification, filters, compaction, space, memory, CPU).

pub mod engine;
pub mod figures;
pub mod filter_levels;
pub mod foreign;
pub mod formulas;
pub mod latency;
pub mod process;
pub mod sim;
