//! The study runner: `lsmlab run PLAN.toml` expands a plan into runs, runs each as a child
//! process, and turns the results into statistics, plots and a report; `lsmlab report DIR`
//! rebuilds the report; `lsmlab merge` joins shards. See docs/studies.md.
//!
//! Four stages, each importing only from the stages before it (and the `text` leaf):
//!
//! ```text
//! plan ← run ← analyse ← render
//! ```
//!
//! `plan` reads and checks what the user wrote; `run` runs it and records the results
//! directory; `analyse` turns the results into statistics, verdicts and findings; `render` draws
//! them as figures and the report. `commands` drives the stages for each command.

pub mod analyse;
pub mod commands;
pub mod plan;
pub mod render;
pub mod run;
pub mod text;
pub mod until_decided;
