//! The lab: the study runner behind `lsmlab run PLAN.toml`, `lsmlab report DIR`, `lsmlab merge`
//! and `lsmlab compare`. It expands a plan into runs, runs each as a child process, and turns
//! the results into statistics, plots and a report. See docs/studies.md.
//!
//! It may use `lsmlab-drivers` built without engine features, for the vocabulary the engines
//! share with it (engine kinds and which flags each supports, the db_bench flag table, YCSB
//! properties, the parsers of each engine's output and logs, the error type); it links no
//! engine library and never opens a database itself: an engine is a child process whose output
//! it reads. See docs/architecture.md.
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
//!
//! ```no_run
//! use lsmlab_lab::plan::spec::Plan;
//!
//! // Read and check a plan as `lsmlab run` does, then run it into a results directory.
//! let plan = Plan::parse(&std::fs::read_to_string("experiments/quick.toml")?)?;
//! println!("{}: {} repetitions of each cell", plan.title, plan.repetitions);
//! let args = lsmlab_lab::args::RunArgs {
//!     plan: Some("experiments/quick.toml".into()),
//!     scale: None,
//!     out: None,
//!     resume: None,
//!     dry_run: true,
//!     shard: None,
//!     repetitions: None,
//!     binaries: Vec::new(),
//!     lsmlab: None,
//!     check_claims: false,
//!     until_decided: false,
//!     budget: None,
//!     max_repetitions: None,
//!     executor: None,
//!     slurm_opts: None,
//!     run_ids: None,
//! };
//! lsmlab_lab::commands::run_main(&args)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analyse;
pub mod args;
pub mod commands;
pub mod plan;
pub mod render;
pub mod run;
pub mod text;
pub mod until_decided;

/// The git commit this lab was built from (`-dirty` when tracked files differed from it), as
/// `environment.json` records it; empty outside a git checkout.
pub const GIT_COMMIT: &str = env!("LSMLAB_GIT_COMMIT");
