//! The arguments of `lsmlab run`, parsed by the `lsmlab` command's clap parser and taken by
//! [`commands::run_main`](crate::commands::run_main).

use crate::run::executor::ExecutorKind;
use clap::Args;
use std::path::PathBuf;

/// `lsmlab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The plan (TOML); not needed with --resume.
    #[arg(required_unless_present = "resume")]
    pub plan: Option<PathBuf>,
    /// Which scale of the plan to run (each plan names its own, e.g. quick, paper).
    #[arg(long)]
    pub scale: Option<String>,
    /// Results directory (default: results/<plan name>-<scale>-<UTC time>).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Continue the study in this results directory, skipping finished runs.
    #[arg(long, conflicts_with_all = ["plan", "out", "scale"])]
    pub resume: Option<PathBuf>,
    /// Print the expanded cells, their order and an estimate of the time; run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Run only shard I of N (I from 0), e.g. 2/8; /N reads I from SLURM_ARRAY_TASK_ID or
    /// JOB_COMPLETION_INDEX; without the flag, a Slurm array task (SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT set) runs its shard.
    #[arg(long)]
    pub shard: Option<String>,
    /// Repetitions, overriding the plan's.
    #[arg(long)]
    pub repetitions: Option<u32>,
    /// An engine's binary, overriding the plan's: ENGINE=PATH (repeatable), e.g.
    /// rocksdb=/opt/rocksdb/db_bench.
    #[arg(long = "binary", value_name = "ENGINE=PATH")]
    pub binaries: Vec<String>,
    /// The lsmlab binary the runs use (default: this one).
    #[arg(long)]
    pub lsmlab: Option<PathBuf>,
    /// Exit non-zero when a claim of the plan is not reproduced (after writing the report).
    #[arg(long)]
    pub check_claims: bool,
    /// After the plan's repetitions, add rounds of one repetition of the cells whose claims
    /// are still open, until every claim is decided or the budget is spent (as a plan's
    /// `[budget]`; see docs/statistics.md).
    #[arg(long)]
    pub until_decided: bool,
    /// The wall time the study's runs may take in all, e.g. 10m, 4h, 1h30m (implies
    /// --until-decided).
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// The most repetitions any cell gets in a sequential study (default 100; implies
    /// --until-decided).
    #[arg(long, value_name = "N")]
    pub max_repetitions: Option<u32>,
    /// Where the runs execute: here, one after another (local, the default), or as Slurm job
    /// arrays on nodes that share the results directory (slurm; docs/run.md "Executors").
    /// A resumed study keeps the executor it was started with unless this is given.
    #[arg(long, value_enum)]
    pub executor: Option<ExecutorKind>,
    /// Options for every sbatch of --executor slurm, as one string, e.g.
    /// "--partition=batch --time=30:00".
    #[arg(long, value_name = "OPTS", allow_hyphen_values = true)]
    pub slurm_opts: Option<String>,
    /// A task of --executor slurm: run these runs of the study in --resume DIR (POS:ID,…)
    /// and nothing else.
    #[arg(long, hide = true, requires = "resume", value_name = "POS:ID,...")]
    pub run_ids: Option<String>,
}
