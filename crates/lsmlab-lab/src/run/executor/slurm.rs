//! The Slurm executor: each batch of runs a job array. Task T of a batch runs line T of the
//! batch's tasks file, one group of runs that must run together (`groups`), by calling
//! `lsmlab run --resume DIR --run-ids POS:ID,…` on its node; the controller (this process)
//! waits for the array with `squeue`, then reads the runs' records from the shared results
//! directory.
//!
//! - **Shared results.** Before its first job the controller writes a token into the results
//!   directory and has a Slurm job copy it: a directory the nodes do not share is refused.
//! - **Faults.** A run left without a record (its task failed, was cancelled or its node died)
//!   is submitted again, in a job of its own, up to [`MAX_ATTEMPTS`] in all; then it is
//!   recorded as failed, naming the jobs and their output files, and the study goes on. A run
//!   that ran and failed (the engine's exit) has its record and is not resubmitted, as locally.
//! - **A controller that dies.** Every job is recorded in `slurm/jobs.json` before it is
//!   waited for. `lsmlab run --resume DIR` first waits for the recorded jobs still in the
//!   queue, then submits only the runs that have no record, so no run is lost or run twice.

use super::groups::{groups, links};
use super::{Executor, Progress};
use crate::plan::matrix::RunKey;
use crate::run::records::results::{self, RunRecord};
use crate::run::records::utc::utc_stamp;
use crate::run::steps::Context;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Submissions of a run, its first included: two resubmissions ride out a cancelled task and a
/// node lost once, while a run that kills its task every time stops costing jobs.
pub const MAX_ATTEMPTS: u32 = 3;

/// How often `squeue` is asked: a second and a half, quicker than any run and rarely enough
/// for a scheduler with many users.
const POLL: Duration = Duration::from_millis(1500);

/// The executor's files in the results directory.
const SUBDIR: &str = "slurm";

/// How the study's runs are executed, kept in `executor.json` so that `--resume` goes on the
/// same way.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ExecutorSpec {
    /// `local` or `slurm`.
    pub kind: String,
    /// Options given to every `sbatch` (`--partition=… --time=…`).
    #[serde(default)]
    pub slurm_opts: Vec<String>,
}

/// One submitted job array.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// Slurm's job id.
    pub id: String,
    /// What the batch was (`the plan's runs`, `round 3`).
    pub label: String,
    /// 1 for a batch's first submission.
    pub attempt: u32,
    /// The runs of each task, `POS:ID`.
    pub tasks: Vec<Vec<String>>,
}

fn dir_of(results: &Path) -> PathBuf {
    results.join(SUBDIR)
}

fn jobs_path(results: &Path) -> PathBuf {
    dir_of(results).join("jobs.json")
}

/// The jobs recorded in `DIR/slurm/jobs.json`.
pub fn recorded_jobs(results: &Path) -> CliResult<Vec<Job>> {
    let path = jobs_path(results);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(CliError::new(format!("{}: {e}", path.display()))),
    }
}

fn record_job(results: &Path, job: &Job) -> CliResult<()> {
    let mut jobs = recorded_jobs(results)?;
    jobs.push(job.clone());
    let text = serde_json::to_string_pretty(&jobs)
        .map_err(|e| CliError::new(format!("slurm/jobs.json: {e}")))?;
    results::write_atomic(&jobs_path(results), &text)
}

/// `--run-ids` of a task: `POS:ID,POS:ID`.
pub fn task_arg(group: &[(usize, RunKey)]) -> String {
    group
        .iter()
        .map(|(pos, k)| format!("{pos}:{}", k.id()))
        .collect::<Vec<_>>()
        .join(",")
}

/// The runs a task's `--run-ids` names, with their positions.
pub fn parse_task_arg(text: &str) -> CliResult<Vec<(usize, RunKey)>> {
    text.split(',')
        .map(|item| {
            let bad = || {
                CliError::new(format!(
                    "--run-ids: {item:?}; expected POS:ID (e.g. 12:c003-lsmlab-r2), comma-separated"
                ))
            };
            let (pos, id) = item.split_once(':').ok_or_else(bad)?;
            let pos = pos.parse().map_err(|_| bad())?;
            let key = crate::run::records::sequential::key_of(id).ok_or_else(bad)?;
            Ok((pos, key))
        })
        .collect()
}

/// The states of a job's tasks from `squeue -h -r -o '%i %T'`: state → count.
pub fn parse_squeue(text: &str) -> BTreeMap<String, usize> {
    let mut states = BTreeMap::new();
    for line in text.lines() {
        if let Some(state) = line.split_whitespace().nth(1) {
            *states.entry(state.to_string()).or_default() += 1;
        }
    }
    states
}

fn states_text(states: &BTreeMap<String, usize>) -> String {
    states
        .iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A study's runs as Slurm job arrays.
pub struct Slurm {
    /// Options for every `sbatch`.
    pub opts: Vec<String>,
    /// The `lsmlab` program a task runs (this one, at a path the nodes share).
    pub program: PathBuf,
    /// Arguments every task passes on (`--lsmlab`, `--binary`).
    pub pass_on: Vec<String>,
    checked: bool,
}

impl Slurm {
    /// An executor submitting with `opts`, its tasks running `program`.
    pub fn new(opts: Vec<String>, program: PathBuf, pass_on: Vec<String>) -> Slurm {
        Slurm {
            opts,
            program,
            pass_on,
            checked: false,
        }
    }

    /// Waits for the jobs a killed controller left in the queue, then refuses a results
    /// directory the nodes do not share; once per study.
    fn prepare(&mut self, results: &Path) -> CliResult<()> {
        if self.checked {
            return Ok(());
        }
        std::fs::create_dir_all(dir_of(results))
            .map_err(|e| CliError::new(format!("{}: {e}", dir_of(results).display())))?;
        self.settle(results)?;
        self.check_shared(results)?;
        self.checked = true;
        Ok(())
    }

    fn check_shared(&self, results: &Path) -> CliResult<()> {
        let results = &std::fs::canonicalize(results)
            .map_err(|e| CliError::new(format!("{}: {e}", results.display())))?;
        let dir = dir_of(results);
        let (token, seen) = (dir.join("token"), dir.join("token.seen"));
        let value = format!("{} {}", std::process::id(), utc_stamp());
        std::fs::write(&token, &value)
            .map_err(|e| CliError::new(format!("{}: {e}", token.display())))?;
        let _ = std::fs::remove_file(&seen);
        eprintln!(
            "slurm: checking that {} is shared with the nodes (a job reads a token back)",
            results.display()
        );
        let out = Command::new("sbatch")
            .arg("--parsable")
            .arg("--wait")
            .arg("--job-name=lsmlab-shared-check")
            .arg("--output=/dev/null")
            .args(&self.opts)
            .arg(format!(
                "--wrap=cat '{}' > '{}'",
                token.display(),
                seen.display()
            ))
            .output()
            .map_err(|e| CliError::new(format!("--executor slurm: cannot run sbatch: {e}")))?;
        let back = std::fs::read_to_string(&seen).unwrap_or_default();
        if back != value {
            return Err(CliError::new(format!(
                "--executor slurm: {} is not shared with the nodes: a job could not read back the token written there ({}); put --out on a file system every node mounts",
                results.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Submits `tasks` as one job array; returns its id.
    fn submit(&self, results: &Path, label: &str, tasks: &[String]) -> CliResult<String> {
        // The tasks start in another directory, maybe on another node: absolute paths only.
        let results = &std::fs::canonicalize(results)
            .map_err(|e| CliError::new(format!("{}: {e}", results.display())))?;
        let dir = dir_of(results);
        let n = recorded_jobs(results)?.len();
        let tasks_file = dir.join(format!("batch{n:03}.tasks"));
        std::fs::write(&tasks_file, tasks.join("\n") + "\n")
            .map_err(|e| CliError::new(format!("{}: {e}", tasks_file.display())))?;
        let script = dir.join("task.sh");
        let quoted: Vec<String> = self.pass_on.iter().map(|a| shell_quote(a)).collect();
        let text = format!(
            "#!/bin/sh\n# One task of a batch of the study in {results}: line SLURM_ARRAY_TASK_ID + 1 of the\n# tasks file ($1) names its runs, which run one after another on this node.\nruns=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$1\")\nexec {program} run --resume {dir} --run-ids \"$runs\" {pass_on}\n",
            results = results.display(),
            program = shell_quote(&self.program.to_string_lossy()),
            dir = shell_quote(&results.to_string_lossy()),
            pass_on = quoted.join(" "),
        );
        std::fs::write(&script, text)
            .map_err(|e| CliError::new(format!("{}: {e}", script.display())))?;
        let name: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let name = format!("--job-name=lsmlab-{name}");
        let out = Command::new("sbatch")
            .arg("--parsable")
            .arg(format!("--array=0-{}", tasks.len() - 1))
            .arg(name)
            .arg(format!("--output={}/%A_%a.out", dir.display()))
            .args(&self.opts)
            .arg(&script)
            .arg(&tasks_file)
            .output()
            .map_err(|e| CliError::new(format!("--executor slurm: cannot run sbatch: {e}")))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let id = stdout.trim().split(';').next().unwrap_or("").to_string();
        if !out.status.success() || id.is_empty() {
            return Err(CliError::new(format!(
                "--executor slurm: sbatch refused {label}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(id)
    }
}

/// `text` quoted for sh.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The states of job `id`'s tasks in the queue: empty when it has left it, `None` when `squeue`
/// could not say (the controller unreachable for a moment), which is never taken for "ended":
/// a job taken for ended has its runs without a record submitted again.
fn queue_states(id: &str) -> Option<BTreeMap<String, usize>> {
    let o = Command::new("squeue")
        .args(["-h", "-r", "-j", id, "-o", "%i %T"])
        .output()
        .ok()?;
    if o.status.success() {
        return Some(parse_squeue(&String::from_utf8_lossy(&o.stdout)));
    }
    // Once a finished job is purged, squeue says so.
    String::from_utf8_lossy(&o.stderr)
        .contains("Invalid job id")
        .then(BTreeMap::new)
}

/// How long `squeue` may fail in a row before the controller gives up waiting: ten minutes,
/// longer than a controller restart of Slurm's own.
const SQUEUE_PATIENCE: Duration = Duration::from_secs(600);

/// Waits until job `id` has left the queue, printing its tasks' states when they change.
fn wait_for(id: &str) -> CliResult<()> {
    let mut last = String::new();
    let mut failing_since: Option<std::time::Instant> = None;
    loop {
        match queue_states(id) {
            Some(states) if states.is_empty() => return Ok(()),
            Some(states) => {
                failing_since = None;
                let now = states_text(&states);
                if now != last {
                    eprintln!("slurm: job {id}: {now}");
                    last = now;
                }
            }
            None => {
                let since = *failing_since.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() >= SQUEUE_PATIENCE {
                    return Err(CliError::new(format!(
                        "--executor slurm: squeue has not answered about job {id} for {} s; the job may still run: `lsmlab run --resume` waits for it",
                        SQUEUE_PATIENCE.as_secs()
                    )));
                }
            }
        }
        std::thread::sleep(POLL);
    }
}

/// The final states of job `id`'s tasks from Slurm's accounting (`sacct`), or from its job
/// completion log (`sacct --completion`) where accounting is off; empty when neither answers.
fn final_states(id: &str) -> BTreeMap<String, usize> {
    for completion in [false, true] {
        let mut cmd = Command::new("sacct");
        cmd.args(["-n", "-P", "-X", "-j", id, "-o", "JobID,State"]);
        if completion {
            cmd.arg("--completion");
        }
        if let Ok(o) = cmd.output() {
            let text = String::from_utf8_lossy(&o.stdout).replace('|', " ");
            let states = parse_squeue(&text);
            if o.status.success() && !states.is_empty() {
                return states;
            }
        }
    }
    BTreeMap::new()
}

/// `id`'s record, if it has one (a failed run's included).
fn read_record(results: &Path, id: &str) -> Option<RunRecord> {
    let text = std::fs::read_to_string(results::run_dir(results, id).join("result.json")).ok()?;
    serde_json::from_str(&text).ok()
}

impl Executor for Slurm {
    fn settle(&mut self, results: &Path) -> CliResult<()> {
        for job in recorded_jobs(results)? {
            if queue_states(&job.id).is_none_or(|s| !s.is_empty()) {
                eprintln!(
                    "slurm: job {} ({}, attempt {}) of an earlier controller is still in the queue: waiting for it",
                    job.id, job.label, job.attempt
                );
                wait_for(&job.id)?;
            }
        }
        Ok(())
    }

    fn run(
        &mut self,
        ctx: &Context,
        batch: &[(usize, RunKey)],
        progress: &mut dyn Progress,
    ) -> CliResult<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.prepare(ctx.dir)?;
        // Runs that a killed controller's jobs finished while `prepare` waited are done.
        let batch: Vec<(usize, RunKey)> = batch
            .iter()
            .filter(|(_, k)| results::finished(ctx.dir, &k.id()).is_none())
            .cloned()
            .collect();
        let batch = batch.as_slice();
        if batch.is_empty() {
            return Ok(());
        }
        let label = if batch.iter().all(|(_, k)| k.rep == batch[0].1.rep) {
            format!("repetition {}", batch[0].1.rep + 1)
        } else {
            "plan runs".to_string()
        };
        // A run's record from before this batch (an earlier failure being run again) does not
        // count as this batch's.
        let before: BTreeMap<String, Option<String>> = batch
            .iter()
            .map(|(_, k)| (k.id(), read_record(ctx.dir, &k.id()).map(|r| r.started)))
            .collect();
        let links = links(ctx.plan);
        let mut todo: Vec<(usize, RunKey)> = batch.to_vec();
        let mut jobs: Vec<String> = Vec::new();
        for attempt in 1..=MAX_ATTEMPTS {
            let tasks: Vec<String> = groups(&todo, ctx.cells, &links)
                .iter()
                .map(|g| task_arg(g))
                .collect();
            let id = self.submit(ctx.dir, &label, &tasks)?;
            record_job(
                ctx.dir,
                &Job {
                    id: id.clone(),
                    label: label.clone(),
                    attempt,
                    tasks: tasks
                        .iter()
                        .map(|t| t.split(',').map(String::from).collect())
                        .collect(),
                },
            )?;
            eprintln!(
                "slurm: job {id} ({label}, attempt {attempt}): {} runs in {} tasks",
                todo.len(),
                tasks.len()
            );
            jobs.push(id.clone());
            wait_for(&id)?;
            let states = final_states(&id);
            if !states.is_empty() {
                eprintln!("slurm: job {id} ended (sacct): {}", states_text(&states));
            }
            let mut left = Vec::new();
            for (pos, k) in todo {
                let id = k.id();
                match read_record(ctx.dir, &id) {
                    Some(rec) if Some(&rec.started) != before[&id].as_ref() => {
                        progress.finish(&rec, seconds_of(&rec));
                    }
                    _ => left.push((pos, k)),
                }
            }
            todo = left;
            if todo.is_empty() {
                return Ok(());
            }
            eprintln!(
                "slurm: job {id}: {} runs have no record (their task failed or was cancelled; {}/%A_%a.out): {}",
                todo.len(),
                dir_of(ctx.dir).display(),
                if attempt < MAX_ATTEMPTS { "submitting them again" } else { "counted as failed" }
            );
        }
        for (pos, key) in &todo {
            let cell = &ctx.cells[key.cell];
            let mut rec = RunRecord::starting(key, cell.values.clone(), *pos);
            rec.status = "failed".into();
            rec.error = format!(
                "slurm: no task recorded this run in {MAX_ATTEMPTS} submissions (jobs {}; their output: {}/JOB_TASK.out)",
                jobs.join(", "),
                dir_of(ctx.dir).display()
            );
            write_record(ctx.dir, &rec)?;
            progress.finish(&rec, 0.0);
        }
        Ok(())
    }
}

/// A run's wall time as its record has it (`process.wall_s`), 0 without one.
fn seconds_of(rec: &RunRecord) -> f64 {
    rec.metrics.get("process.wall_s").copied().unwrap_or(0.0)
}

/// Writes `rec` as the run's record, through `ID.partial` and a rename as every run's.
fn write_record(dir: &Path, rec: &RunRecord) -> CliResult<()> {
    let final_dir = results::run_dir(dir, &rec.id);
    let tmp = final_dir.with_extension("partial");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| CliError::new(format!("{}: {e}", tmp.display())))?;
    crate::run::runner::record(&tmp, &final_dir, rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tasks_runs_go_to_the_task_and_back_with_their_positions() {
        let group = vec![
            (
                12,
                RunKey {
                    cell: 3,
                    engine: "lsmlab".into(),
                    rep: 2,
                },
            ),
            (
                13,
                RunKey {
                    cell: 2,
                    engine: "rocksdb".into(),
                    rep: 2,
                },
            ),
        ];
        let arg = task_arg(&group);
        assert_eq!(arg, "12:c003-lsmlab-r2,13:c002-rocksdb-r2");
        assert_eq!(parse_task_arg(&arg).unwrap(), group);
        for bad in ["12", "x:c003-lsmlab-r2", "1:c3-lsmlab", ""] {
            let e = parse_task_arg(bad).unwrap_err();
            assert!(e.0.starts_with("--run-ids: "), "{bad}: {e}");
        }
    }

    #[test]
    fn squeue_lines_count_by_state() {
        let s = parse_squeue("123_0 RUNNING\n123_1 RUNNING\n123_2 PENDING\n\n");
        assert_eq!(states_text(&s), "1 PENDING, 2 RUNNING");
        assert!(parse_squeue("").is_empty());
    }

    #[test]
    fn shell_quoting_keeps_a_quote_inside() {
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
    }
}
