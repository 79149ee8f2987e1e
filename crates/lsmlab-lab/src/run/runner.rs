//! Running a study's runs: each run on a fresh database (or a copy of a loaded one, see `load`),
//! its steps run as child processes (`steps`), and the run marked done by a rename, last; and
//! the progress shown while they run.

use super::load::{self, Loads};
use super::steps::{engine_named, io_err, run_steps, Context, StepsOutcome, TIMESERIES_HEADER};
use crate::plan::matrix::RunKey;
use crate::plan::spec::Plan;
use crate::run::figures::metrics::{self, Metrics};
use crate::run::measure::outside_load;
use crate::run::measure::process;
use crate::run::measure::quiet_device::{self, QuietWait};
use crate::run::records::results::{self, RunRecord};
use crate::run::records::utc::utc_stamp;
use lsmlab_drivers::error::{CliError, CliResult};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs `key` in `tmp`; returns its record (failed runs included, with their error). With a
/// load, the run starts from a copy of the loaded database and runs the steps after the load.
fn execute(
    ctx: &Context,
    loads: &mut Loads,
    key: &RunKey,
    order: usize,
    tmp: &Path,
) -> CliResult<RunRecord> {
    let cell = &ctx.cells[key.cell];
    let engine = engine_named(ctx.engines, &key.engine)?;
    // A database of its own for each attempt: a run of a killed study may still be dying (its
    // last system call finishing) when `--resume` starts the same run again.
    let db = ctx
        .db_dir
        .join(format!("{}.{}", key.id(), std::process::id()));
    let _ = std::fs::remove_dir_all(&db);
    std::fs::create_dir_all(ctx.db_dir).map_err(|e| io_err(ctx.db_dir, e))?;
    let mut rec = RunRecord::starting(key, cell.values.clone(), order);
    let bound = quiet_bound(ctx.plan);
    rec.quiet_wait = quiet_device::wait(ctx.db_dir, bound);
    rec.started = utc_stamp();
    let load_start = load_average();
    let probe_start = outside_load::probe();
    let mut first = 0;
    if let Some(n) = loads.steps() {
        first = n;
        match loads.prepare(ctx, key)? {
            Ok(loaded) => {
                rec.load = loaded.key.clone();
                rec.engine_version = loaded.engine_version.clone();
                std::fs::write(tmp.join("load.txt"), loaded.note(n)).map_err(|e| io_err(tmp, e))?;
                if let Err(e) = load::copy_dir(&loaded.db, &db) {
                    rec.status = "failed".into();
                    rec.error = format!("copying load {}: {e}", loaded.key);
                }
                // The copy's own writeback is not the run's to pay for either.
                let after_copy = quiet_device::wait(ctx.db_dir, bound);
                rec.quiet_wait = both(rec.quiet_wait, after_copy);
            }
            Err(e) => {
                rec.status = "failed".into();
                rec.error = e;
            }
        }
    }
    let started = Instant::now();
    let mut o = StepsOutcome {
        error: rec.error.clone(),
        engine_version: String::new(),
        slow_build: Vec::new(),
        metrics: Metrics::new(),
        usage: Vec::new(),
        timeseries: String::new(),
    };
    if rec.status == "ok" {
        o = run_steps(
            ctx.plan,
            engine,
            cell,
            first..ctx.plan.steps.len(),
            &db,
            tmp,
        )?;
    }
    if !o.error.is_empty() {
        rec.status = "failed".into();
        rec.error = o.error;
    }
    if !o.engine_version.is_empty() {
        rec.engine_version = o.engine_version;
    }
    rec.slow_build = o.slow_build;
    rec.ended = utc_stamp();
    if let (Some(a), Some(b)) = (load_start, load_average()) {
        rec.load_average = Some((a, b));
    }
    if let (Some(a), Some(b)) = (probe_start, outside_load::probe()) {
        rec.outside_load = outside_load::between(&a, &b);
    }
    rec.metrics = o.metrics;
    if rec.status == "ok" {
        rec.metrics.insert(
            "db_size_mb".into(),
            metrics::dir_bytes(&db) as f64 / (1024.0 * 1024.0),
        );
    }
    process::from_run(&mut rec.metrics, &o.usage, started.elapsed().as_secs_f64());
    std::fs::write(
        tmp.join("timeseries.csv"),
        String::from(TIMESERIES_HEADER) + &o.timeseries,
    )
    .map_err(|e| io_err(tmp, e))?;
    let _ = std::fs::remove_dir_all(&db);
    loads.done_with(ctx, key);
    Ok(rec)
}

/// The plan's bound on the wait for a quiet device (`quiet_device_secs`, default 30 s).
fn quiet_bound(plan: &Plan) -> std::time::Duration {
    let secs = plan
        .quiet_device_secs
        .unwrap_or(quiet_device::DEFAULT_BOUND_SECS);
    std::time::Duration::from_secs_f64(secs.max(0.0))
}

/// Two waits of one run as one: their times added, quiet when both were.
fn both(a: Option<QuietWait>, b: Option<QuietWait>) -> Option<QuietWait> {
    match (a, b) {
        (Some(a), Some(b)) => Some(QuietWait {
            waited_s: a.waited_s + b.waited_s,
            quiet: a.quiet && b.quiet,
        }),
        (a, b) => a.or(b),
    }
}

/// The 1-minute load average (/proc/loadavg), when the kernel gives it.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Removes the databases that runs of an earlier, killed attempt at this study left in
/// `db_dir` (`ID.PID` of a run id of `order`, and loads it did not finish, `load-KEY.PID`);
/// anything else there is not the study's to touch.
pub fn clear_stale_databases(db_dir: &Path, order: &[RunKey]) {
    let Ok(rd) = std::fs::read_dir(db_dir) else {
        return;
    };
    let ids: std::collections::HashSet<String> = order.iter().map(RunKey::id).collect();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if load::is_partial_load(&name) {
            let _ = std::fs::remove_dir_all(e.path());
            continue;
        }
        if load::attempt_of(&name).is_some_and(|id| ids.contains(id)) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Runs and records `key`: built in `ID.partial`, renamed to `ID` when whole.
pub fn run_one(
    ctx: &Context,
    loads: &mut Loads,
    key: &RunKey,
    order: usize,
) -> CliResult<RunRecord> {
    let final_dir = results::run_dir(ctx.dir, &key.id());
    let tmp = final_dir.with_extension("partial");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| io_err(&tmp, e))?;
    let rec = execute(ctx, loads, key, order, &tmp)?;
    record(&tmp, &final_dir, &rec)?;
    Ok(rec)
}

/// Writes `rec` as `result.json` into the run's `ID.partial` directory `tmp` and renames it to
/// `final_dir`, last: the run is whole once it has its name.
pub fn record(tmp: &Path, final_dir: &Path, rec: &RunRecord) -> CliResult<()> {
    let text = serde_json::to_string_pretty(rec)
        .map_err(|e| CliError::new(format!("result of {}: {e}", rec.id)))?;
    std::fs::write(tmp.join("result.json"), text).map_err(|e| io_err(tmp, e))?;
    let _ = std::fs::remove_dir_all(final_dir);
    std::fs::rename(tmp, final_dir).map_err(|e| io_err(final_dir, e))
}

/// Shows how far the study is: a bar with ETA on a terminal, a line per run otherwise.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    done: usize,
}

impl crate::run::executor::Progress for Progress {
    fn start(&mut self, id: &str) {
        Progress::start(self, id);
    }

    fn finish(&mut self, rec: &RunRecord, seconds: f64) {
        Progress::finish(self, rec, seconds);
    }
}

impl Progress {
    /// Progress over `total` runs, `skipped` of them already done.
    pub fn new(total: usize, skipped: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} runs  {elapsed_precise} elapsed, ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b.set_position(skipped as u64);
            b.reset_eta();
            b
        });
        Progress {
            bar,
            total,
            done: skipped,
        }
    }

    /// A run is starting.
    pub fn start(&self, id: &str) {
        if let Some(b) = &self.bar {
            b.set_message(id.to_string());
        }
    }

    /// A run finished.
    pub fn finish(&mut self, rec: &RunRecord, seconds: f64) {
        self.done += 1;
        let line = if rec.status == "ok" {
            format!(
                "[{}/{}] {} ok in {seconds:.1} s",
                self.done, self.total, rec.id
            )
        } else {
            format!(
                "[{}/{}] {} FAILED: {}",
                self.done, self.total, rec.id, rec.error
            )
        };
        match &self.bar {
            Some(b) => {
                if rec.status != "ok" {
                    b.println(line);
                }
                b.inc(1);
            }
            None => eprintln!("{line}"),
        }
    }

    /// All runs are done.
    pub fn close(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The database directory of a study: the plan's `db_dir`, else `db/` in the results.
pub fn db_dir(plan: &Plan, dir: &Path) -> PathBuf {
    plan.db_dir
        .as_ref()
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("db"))
}
