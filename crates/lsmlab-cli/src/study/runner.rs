//! Running a study's runs: each step a child process on a fresh database (or a copy of a loaded
//! one, see `load`), sampled once a second, its output kept, its figures parsed, and the run
//! marked done by a rename, last.

use super::engines::{step_settings, Engine, Kind};
use super::load::{self, Loads};
use super::matrix::{Cell, RunKey};
use super::metrics::{self, Metrics};
use super::parse;
use super::plan::{Plan, StepKind};
use super::results::{self, RunRecord};
use super::sampler::{Sample, Sampler};
use crate::error::{CliError, CliResult};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Everything a run needs.
pub struct Context<'a> {
    /// The results directory.
    pub dir: &'a Path,
    /// Where databases are made (one per run, removed after it).
    pub db_dir: &'a Path,
    /// The plan at its scale.
    pub plan: &'a Plan,
    /// The cells.
    pub cells: &'a [Cell],
    /// The engines, resolved.
    pub engines: &'a [Engine],
}

fn io_err(what: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", what.display()))
}

/// Runs one child to completion, sampling it; returns its exit status and samples.
fn run_child(
    binary: &str,
    args: &[String],
    stdout: &Path,
    stderr: &Path,
) -> CliResult<(std::process::ExitStatus, Vec<Sample>)> {
    let out = std::fs::File::create(stdout).map_err(|e| io_err(stdout, e))?;
    let err = std::fs::File::create(stderr).map_err(|e| io_err(stderr, e))?;
    let mut cmd = Command::new(binary);
    cmd.args(args).stdin(Stdio::null()).stdout(out).stderr(err);
    // A run must not outlive the study: if `lsmlab run` is killed, an orphaned run would go on
    // writing its database while `--resume` starts the same run again on the same path.
    // If the study died between fork and prctl, no signal will ever come: the child checks that
    // its parent is still the study after setting the flag, and gives up otherwise.
    let study = std::process::id() as libc::pid_t;
    // SAFETY: prctl with PR_SET_PDEATHSIG only sets a flag of the calling (child) process, and
    // getppid reads its parent; both are async-signal-safe, as pre_exec requires, and the error
    // path builds its value without allocating.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != study {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::new(format!("cannot start {binary}: {e}")))?;
    let mut sampler = Sampler::new(child.id());
    sampler.sample();
    let mut next = Instant::now() + Duration::from_secs(1);
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| CliError::new(format!("waiting for {binary}: {e}")))?
        {
            return Ok((status, sampler.samples));
        }
        if Instant::now() >= next {
            sampler.sample();
            next += Duration::from_secs(1);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_=./,:+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What running some of a run's steps produced.
pub struct StepsOutcome {
    /// Why a step failed; empty when all went well.
    pub error: String,
    /// The engine version the output printed.
    pub engine_version: String,
    /// What the output warned makes its timings slow.
    pub slow_build: Vec<String>,
    /// The figures of the steps.
    pub metrics: Metrics,
    /// The samples of each step.
    pub series: Vec<Vec<Sample>>,
    /// `timeseries.csv` rows (`step,t,cpu_pct,rss_bytes,read_bytes,write_bytes`).
    pub timeseries: String,
}

/// Header of `timeseries.csv`.
pub const TIMESERIES_HEADER: &str = "step,t,cpu_pct,rss_bytes,read_bytes,write_bytes\n";

/// Runs steps `steps` of the plan on `engine` with the settings of `cell`, on the database at
/// `db`, keeping each step's command, outputs and JSON in `out`. Stops at the first failure.
pub fn run_steps(
    plan: &Plan,
    engine: &Engine,
    cell: &Cell,
    steps: std::ops::Range<usize>,
    db: &Path,
    out: &Path,
) -> CliResult<StepsOutcome> {
    let mut o = StepsOutcome {
        error: String::new(),
        engine_version: String::new(),
        slow_build: Vec::new(),
        metrics: Metrics::new(),
        series: Vec::new(),
        timeseries: String::new(),
    };
    for i in steps {
        let step = &plan.steps[i];
        let (flags, props) = step_settings(plan, step, cell);
        let json = out.join(format!("step{i}.json"));
        let args = engine.step_args(step, i, &flags, &props, db, &json)?;
        let cmd = std::iter::once(engine.binary.as_str())
            .chain(args.iter().map(String::as_str))
            .map(shell_quote)
            .collect::<Vec<_>>()
            .join(" ");
        std::fs::write(out.join(format!("step{i}.cmd")), cmd + "\n").map_err(|e| io_err(out, e))?;
        let (so, se) = (
            out.join(format!("step{i}.stdout")),
            out.join(format!("step{i}.stderr")),
        );
        let (status, samples) = run_child(&engine.binary, &args, &so, &se)?;
        for s in &samples {
            o.timeseries.push_str(&format!(
                "{i},{:.3},{:.1},{},{},{}\n",
                s.t, s.cpu_pct, s.rss_bytes, s.read_bytes, s.write_bytes
            ));
        }
        o.series.push(samples);
        let stdout = std::fs::read_to_string(&so).unwrap_or_default();
        let stderr = std::fs::read_to_string(&se).unwrap_or_default();
        if !status.success() {
            let last = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            o.error = format!("step {i} exited with {status}: {last}");
            break;
        }
        let label = step_label(step, i);
        let parsed = parse::parse(&(stdout.clone() + "\n" + &stderr));
        if let Some((tool, v)) = &parsed.version {
            o.engine_version = format!("{tool} {v}");
        }
        // lsmlab's driver on a library: the library is the engine the study compares.
        if let Some(library) = &parsed.library {
            o.engine_version = if o.engine_version.is_empty() {
                library.clone()
            } else {
                format!("{library}, driven by {}", o.engine_version)
            };
        }
        for w in &parsed.slow_build {
            if !o.slow_build.contains(w) {
                o.slow_build.push(w.clone());
            }
        }
        let threads = flags
            .iter()
            .rev()
            .find(|(k, _)| k == "threads")
            .and_then(|(_, v)| v.parse::<f64>().ok())
            .unwrap_or(1.0);
        metrics::from_bench_output(&mut o.metrics, &label, &parsed, threads);
        if engine.kind == Kind::Lsmlab {
            if let Ok(text) = std::fs::read_to_string(&json) {
                if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) {
                    metrics::from_lsmlab_json(&mut o.metrics, &label, &doc);
                }
            }
        }
        if step.kind(i)? != StepKind::Settle
            && parsed.benchmarks.is_empty()
            && !matches!(step.kind(i)?, StepKind::YcsbLoad | StepKind::YcsbRun)
        {
            o.error = format!("step {i} printed no summary line; see its stdout");
            break;
        }
    }
    Ok(o)
}

/// The resolved engine named `name`.
pub fn engine_named<'e>(engines: &'e [Engine], name: &str) -> CliResult<&'e Engine> {
    engines
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| CliError::new(format!("engine {name} is not resolved")))
}

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
    rec.started = super::utc_stamp();
    let load_start = load_average();
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
        series: Vec::new(),
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
    rec.ended = super::utc_stamp();
    if let (Some(a), Some(b)) = (load_start, load_average()) {
        rec.load_average = Some((a, b));
    }
    rec.metrics = o.metrics;
    if rec.status == "ok" {
        rec.metrics.insert(
            "db_size_mb".into(),
            metrics::dir_bytes(&db) as f64 / (1024.0 * 1024.0),
        );
    }
    metrics::from_samples(&mut rec.metrics, &o.series, started.elapsed().as_secs_f64());
    std::fs::write(
        tmp.join("timeseries.csv"),
        String::from(TIMESERIES_HEADER) + &o.timeseries,
    )
    .map_err(|e| io_err(tmp, e))?;
    let _ = std::fs::remove_dir_all(&db);
    loads.done_with(ctx, key);
    Ok(rec)
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

/// The name a step's statistics carry: its `name`, else its benchmarks joined by `+`, else the
/// YCSB phase.
pub fn step_label(step: &super::plan::Step, i: usize) -> String {
    if let Some(n) = &step.name {
        return n.clone();
    }
    match step.kind(i) {
        Ok(StepKind::Bench) => step
            .bench
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("+"),
        Ok(StepKind::YcsbLoad) => "load".into(),
        Ok(StepKind::YcsbRun) => "run".into(),
        _ => format!("step{i}"),
    }
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
    let text = serde_json::to_string_pretty(&rec)
        .map_err(|e| CliError::new(format!("result of {}: {e}", key.id())))?;
    std::fs::write(tmp.join("result.json"), text).map_err(|e| io_err(&tmp, e))?;
    let _ = std::fs::remove_dir_all(&final_dir);
    std::fs::rename(&tmp, &final_dir).map_err(|e| io_err(&final_dir, e))?;
    Ok(rec)
}

/// Shows how far the study is: a bar with ETA on a terminal, a line per run otherwise.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    done: usize,
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
