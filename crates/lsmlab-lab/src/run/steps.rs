//! Running a run's steps: each step a child process of the engine's program with the step's
//! settings, sampled once a second, its command and outputs kept, its figures parsed.

use crate::plan::matrix::Cell;
use crate::plan::spec::{step_label, Plan, StepKind};
use crate::run::figures::library_logs;
use crate::run::figures::metrics::{self, Metrics};
use crate::run::figures::output;
use crate::run::invoke::engines::{step_settings, Engine, Kind};
use crate::run::measure::process;
use crate::run::measure::rusage::{self, Usage};
use crate::run::measure::sampler::{Sample, Sampler};
use lsmlab_drivers::error::{CliError, CliResult};
use std::path::Path;
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

pub(crate) fn io_err(what: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", what.display()))
}

/// Runs one child to completion, sampling it; returns its exit status, samples and the
/// kernel's figures of it.
pub(crate) fn run_child(
    binary: &str,
    args: &[String],
    stdout: &Path,
    stderr: &Path,
) -> CliResult<(std::process::ExitStatus, Vec<Sample>, Usage)> {
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
    let child = cmd
        .spawn()
        .map_err(|e| CliError::new(format!("cannot start {binary}: {e}")))?;
    let mut sampler = Sampler::new(child.id());
    sampler.sample();
    let mut next = Instant::now() + Duration::from_secs(1);
    loop {
        if let Some((status, usage)) = rusage::try_wait(&child)
            .map_err(|e| CliError::new(format!("waiting for {binary}: {e}")))?
        {
            return Ok((status, sampler.samples, usage));
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
    /// The kernel's figures of each step's process.
    pub usage: Vec<Usage>,
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
        usage: Vec::new(),
        timeseries: String::new(),
    };
    for i in steps {
        let step = &plan.steps[i];
        let (flags, props) = step_settings(plan, step, cell);
        let json = out.join(format!("step{i}.json"));
        let args = engine.step_args(step, i, plan.flushes(i), &flags, &props, db, &json)?;
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
        let (status, samples, usage) = run_child(&engine.binary, &args, &so, &se)?;
        for s in &samples {
            o.timeseries.push_str(&format!(
                "{i},{:.3},{:.1},{},{},{}\n",
                s.t, s.cpu_pct, s.rss_bytes, s.read_bytes, s.write_bytes
            ));
        }
        o.usage.push(usage);
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
        let parsed = output::parse(&(stdout.clone() + "\n" + &stderr));
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
        let doc = std::fs::read_to_string(&json)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
        if let (Kind::Lsmlab, Some(doc)) = (engine.kind, &doc) {
            metrics::from_lsmlab_json(&mut o.metrics, &label, doc);
        }
        let benches = step.bench.as_deref().unwrap_or("");
        library_logs::add(
            &mut o.metrics,
            &label,
            engine,
            benches,
            &flags,
            db,
            doc.as_ref(),
        );
        let ops = process::operations(&parsed, doc.as_ref());
        process::from_step(&mut o.metrics, &label, &usage, ops);
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
