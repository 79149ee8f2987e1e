//! The run stage. Takes a checked plan and its cells; gives a results directory: `plan.json`
//! (the plan as expanded), `environment.json`, and per run its steps' commands, outputs, time
//! series and `result.json` with the figures parsed from the outputs. Also joins the results
//! directories of shards into one.
//!
//! Beside the runner itself (`runner`, `steps`, `load`, `estimate`), five rooms: `executor`
//! (where a batch of runs executes: here, or as Slurm job arrays), `invoke` (the
//! command line of each step on each engine, and which engines can run a plan), `measure` (the
//! machine and the process figures of each step), `figures` (the figures parsed from each
//! engine's output and logs) and `records` (the results directory and what joins, shards and
//! checks it).

pub mod estimate;
pub mod executor;
pub mod figures;
pub mod invoke;
pub mod load;
pub mod measure;
pub mod records;
pub mod runner;
pub mod steps;
