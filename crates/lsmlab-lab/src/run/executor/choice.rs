//! Which executor a study runs with: the command line's `--executor`, else the one the study
//! was started with (`executor.json` in its results directory), else `local`; and what a
//! Slurm study cannot be.

use super::slurm::{ExecutorSpec, Slurm};
use super::{Executor, ExecutorKind, Local};
use crate::plan::spec::Plan;
use crate::run::records::results;
use crate::run::records::shard::Shard;
use lsmlab_drivers::error::{CliError, CliResult};
use std::path::{Path, PathBuf};

const FILE: &str = "executor.json";

/// What the command line asked for.
pub struct Asked<'a> {
    /// `--executor`.
    pub kind: Option<ExecutorKind>,
    /// `--slurm-opts`.
    pub slurm_opts: Option<&'a str>,
    /// Arguments a Slurm task passes on to its `lsmlab run` (`--lsmlab`, `--binary`).
    pub pass_on: Vec<String>,
}

/// The executor of the study in `dir`, recorded there when it is Slurm's.
pub fn choose(
    asked: Asked,
    dir: &Path,
    plan: &Plan,
    shard: Option<Shard>,
) -> CliResult<Box<dyn Executor>> {
    let recorded: Option<ExecutorSpec> = std::fs::read_to_string(dir.join(FILE))
        .ok()
        .map(|t| serde_json::from_str(&t))
        .transpose()
        .map_err(|e| CliError::new(format!("{}: {e}", dir.join(FILE).display())))?;
    let kind = match asked.kind {
        Some(k) => k,
        None if recorded.as_ref().is_some_and(|r| r.kind == "slurm") => ExecutorKind::Slurm,
        None => ExecutorKind::Local,
    };
    if asked.slurm_opts.is_some() && kind != ExecutorKind::Slurm {
        return Err(CliError::new("--slurm-opts: only with --executor slurm"));
    }
    if kind == ExecutorKind::Local {
        return Ok(Box::new(Local));
    }
    if let Some(s) = shard {
        return Err(CliError::new(format!(
            "--executor slurm: not with shard {}/{}; the executor runs every run of the study as Slurm jobs itself (shards are for experiments/slurm/submit.sh)",
            s.index, s.count
        )));
    }
    if plan.load.is_some() {
        return Err(CliError::new(
            "--executor slurm: not for a plan with [load] (a load is built once on one node and copied to its runs; tasks on several nodes cannot share it); run it locally or in shards",
        ));
    }
    let ok = std::process::Command::new("sbatch")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        return Err(CliError::new(
            "--executor slurm: no sbatch on PATH; run on a Slurm login node, or use --executor local",
        ));
    }
    let opts: Vec<String> = match asked.slurm_opts {
        Some(o) => o.split_whitespace().map(String::from).collect(),
        None => recorded.map(|r| r.slurm_opts).unwrap_or_default(),
    };
    let spec = ExecutorSpec {
        kind: "slurm".into(),
        slurm_opts: opts.clone(),
    };
    let text =
        serde_json::to_string_pretty(&spec).map_err(|e| CliError::new(format!("{FILE}: {e}")))?;
    // The results directory is made here, after every refusal.
    std::fs::create_dir_all(dir).map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
    results::write_atomic(&dir.join(FILE), &text)?;
    let program: PathBuf = std::env::current_exe()
        .map_err(|e| CliError::new(format!("cannot find the lsmlab program: {e}")))?;
    Ok(Box::new(Slurm::new(opts, program, asked.pass_on)))
}
