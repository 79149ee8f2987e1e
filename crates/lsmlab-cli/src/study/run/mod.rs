//! The run stage. Takes a checked plan and its cells; gives a results directory: `plan.json`
//! (the plan as expanded), `environment.json`, and per run its steps' commands, outputs, time
//! series and `result.json` with the figures parsed from the outputs. Also joins the results
//! directories of shards into one.

pub mod audit;
pub mod boundaries;
pub mod engines;
pub mod environment;
pub mod estimate;
pub mod expanded;
pub mod kind;
pub mod library_logs;
pub mod load;
pub mod merge;
pub mod metrics;
pub mod output;
pub mod outside_load;
pub mod process;
pub mod results;
pub mod runnable;
pub mod runner;
pub mod rusage;
pub mod sampler;
pub mod sequential;
pub mod shard;
pub mod staged_dir;
pub mod steps;
pub mod utc;
