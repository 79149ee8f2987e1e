//! Where a study's runs run: an executor takes a batch of runs (the plan's, or a round's) and
//! returns when each has its record in the results directory, failed runs included. The runner
//! and the sequential rounds hand every batch to one, so that where runs execute is a setting:
//! - `local` (the default): each run a child process of `lsmlab run`, one after another;
//! - `slurm`: each batch a Slurm job array whose tasks run groups of the batch's runs
//!   (`groups`), on nodes that share the results directory.

pub mod choice;
pub mod groups;
pub mod slurm;

use crate::plan::matrix::RunKey;
use crate::run::load;
use crate::run::records::results::RunRecord;
use crate::run::runner;
use crate::run::steps::Context;
use lsmlab_drivers::error::CliResult;

/// What is told of the runs of a batch as they finish.
pub trait Progress {
    /// A run is starting (an executor that cannot see runs start does not call it).
    fn start(&mut self, id: &str);
    /// A run finished, well or not, after `seconds`.
    fn finish(&mut self, rec: &RunRecord, seconds: f64);
}

/// Runs batches of a study's runs.
pub trait Executor {
    /// Waits for runs of the study in `dir` that still execute elsewhere (the jobs of a killed
    /// controller), before anything looks at which runs are done or removes their databases.
    fn settle(&mut self, _dir: &std::path::Path) -> CliResult<()> {
        Ok(())
    }

    /// Runs `batch` (each run with its position in the study's order) and returns when each
    /// has a record in the results directory; an error only when the study cannot go on.
    fn run(
        &mut self,
        ctx: &Context,
        batch: &[(usize, RunKey)],
        progress: &mut dyn Progress,
    ) -> CliResult<()>;
}

/// Each run a child process of this one, in the batch's order.
pub struct Local;

impl Executor for Local {
    fn run(
        &mut self,
        ctx: &Context,
        batch: &[(usize, RunKey)],
        progress: &mut dyn Progress,
    ) -> CliResult<()> {
        let keys: Vec<RunKey> = batch.iter().map(|(_, k)| k.clone()).collect();
        runner::clear_stale_databases(ctx.db_dir, &keys);
        let mut loads = load::Loads::new(ctx.plan, ctx.cells, ctx.engines, &keys)?;
        for (pos, key) in batch {
            progress.start(&key.id());
            let t = std::time::Instant::now();
            let rec = runner::run_one(ctx, &mut loads, key, *pos)?;
            progress.finish(&rec, t.elapsed().as_secs_f64());
        }
        loads.remove_all(ctx.db_dir);
        Ok(())
    }
}

/// Where a study's runs execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExecutorKind {
    /// Child processes of `lsmlab run`, one after another.
    Local,
    /// Slurm job arrays.
    Slurm,
}
