//! Loads (`[load]` in a plan): the leading steps of every run, run once per distinct load; each
//! run then starts from a copy of the loaded database.
//!
//! Runs share a load when they run on the same engine (name and binary) and the load steps'
//! command lines are the same; the load's key is a fingerprint of those. The axes of
//! `load.skip_axes` are left out of the load steps, so cells that differ only in them share one.
//!
//! On disk: the database in the study's db directory as `load-KEY`, built as `load-KEY.PID` and
//! renamed when whole (last: a killed study leaves a partial load that `--resume` rebuilds, never
//! reuses); the load steps' commands, outputs, figures and time series in `loads/KEY/` of the
//! results directory (built as `loads/KEY.partial/`); one line per load built in
//! `loads/built.log`. A load's database is removed after the last run that needs it.

use super::steps::{engine_named, run_steps, Context, TIMESERIES_HEADER};
use crate::plan::matrix::{load_cell, Cell, RunKey};
use crate::plan::spec::Plan;
use crate::run::figures::metrics::Metrics;
use crate::run::invoke::engines::{step_settings, Engine};
use crate::run::records::expanded::fingerprint;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `loads/KEY/load.json`: what a load was and what its steps measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadRecord {
    /// The load's key.
    pub key: String,
    /// The engine it ran on.
    pub engine: String,
    /// It ran steps `0..steps` of the plan.
    pub steps: usize,
    /// The axis values its steps ran with (the cell's, without `load.skip_axes`).
    pub axes: Vec<(String, String)>,
    /// The run it was first built for.
    pub built_for: String,
    /// The engine version its output printed.
    pub engine_version: String,
    /// Wall seconds of its steps.
    pub seconds: f64,
    /// The figures of its steps (measured once, so not part of any run's figures).
    pub metrics: Metrics,
}

/// A load ready to copy.
pub struct Loaded {
    /// Its key.
    pub key: String,
    /// Its database.
    pub db: PathBuf,
    /// The engine version its steps printed.
    pub engine_version: String,
}

impl Loaded {
    /// The note a run that started from it keeps (`load.txt`).
    pub fn note(&self, steps: usize) -> String {
        format!(
            "This run started from a copy of load {key}: steps 0 to {last} ran once for every run \
             with the same load, in loads/{key}/ (their commands, outputs and figures: \
             loads/{key}/step*.cmd, step*.stdout, load.json). This run's figures are those of \
             steps {steps} and later.\n",
            key = self.key,
            last = steps - 1
        )
    }
}

/// The key of the load of `cell` on `engine`, if the plan has a load: a fingerprint of the
/// engine and of every load step's arguments (with a placeholder database path).
pub fn key(plan: &Plan, cell: &Cell, engine: &Engine) -> CliResult<Option<String>> {
    let Some(l) = &plan.load else {
        return Ok(None);
    };
    let lc = load_cell(plan, cell);
    let placeholder = Path::new("/load");
    let mut parts = vec![engine.name.clone(), engine.binary.clone()];
    for (i, step) in plan.steps.iter().enumerate().take(l.steps) {
        let (flags, props) = step_settings(plan, step, &lc);
        let args = engine.step_args(
            step,
            i,
            plan.flushes(i),
            &flags,
            &props,
            placeholder,
            placeholder,
        )?;
        parts.push(args.join("\u{1f}"));
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    Ok(Some(fingerprint(&parts)))
}

/// Copies the directory `from` to `to` (created), files and subdirectories.
pub fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    std::fs::create_dir_all(to).map_err(|e| err(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| err(from, e))? {
        let entry = entry.map_err(|e| err(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| err(&src, e))?;
        if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&src).map_err(|e| err(&src, e))?;
            std::os::unix::fs::symlink(target, &dst).map_err(|e| err(&dst, e))?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| err(&src, e))?;
        }
    }
    Ok(())
}

/// The loads of a study's remaining runs.
pub struct Loads {
    /// Steps of the load (`None`: the plan has none).
    steps: Option<usize>,
    /// Key of each (cell, engine).
    keys: HashMap<(usize, String), String>,
    /// Runs still to start from each load in this invocation.
    remaining: HashMap<String, usize>,
    /// Loads that failed in this invocation, with the error their runs report.
    failed: HashMap<String, String>,
}

impl Loads {
    /// The loads of `pending` runs (those the study still has to run).
    pub fn new<'k>(
        plan: &Plan,
        cells: &[Cell],
        engines: &[Engine],
        pending: impl IntoIterator<Item = &'k RunKey>,
    ) -> CliResult<Loads> {
        let mut loads = Loads {
            steps: plan.load.as_ref().map(|l| l.steps),
            keys: HashMap::new(),
            remaining: HashMap::new(),
            failed: HashMap::new(),
        };
        if loads.steps.is_none() {
            return Ok(loads);
        }
        for run in pending {
            let slot = (run.cell, run.engine.clone());
            let k = match loads.keys.get(&slot) {
                Some(k) => k.clone(),
                None => {
                    let engine = engine_named(engines, &run.engine)?;
                    let k = key(plan, &cells[run.cell], engine)?.unwrap_or_default();
                    loads.keys.insert(slot, k.clone());
                    k
                }
            };
            *loads.remaining.entry(k).or_default() += 1;
        }
        Ok(loads)
    }

    /// Steps of the load, if the plan has one.
    pub fn steps(&self) -> Option<usize> {
        self.steps
    }

    /// The load key of (cell, engine), if known.
    pub fn key_of(&self, cell: usize, engine: &str) -> Option<&str> {
        self.keys
            .get(&(cell, engine.to_string()))
            .map(String::as_str)
    }

    /// Distinct loads, each with the runs that start from it.
    pub fn count(&self) -> usize {
        self.remaining.len()
    }

    /// The load of `run`, built now unless a whole one is on disk; `Err` with the reason its
    /// runs fail when the load failed.
    pub fn prepare(&mut self, ctx: &Context, run: &RunKey) -> CliResult<Result<Loaded, String>> {
        let (Some(steps), Some(key)) = (self.steps, self.key_of(run.cell, &run.engine)) else {
            return Err(CliError::new(format!("run {}: no load planned", run.id())));
        };
        let key = key.to_string();
        if let Some(e) = self.failed.get(&key) {
            return Ok(Err(e.clone()));
        }
        let db = ctx.db_dir.join(format!("load-{key}"));
        let loads_dir = ctx.dir.join("loads");
        let records = loads_dir.join(&key);
        if db.is_dir() {
            let rec = std::fs::read_to_string(records.join("load.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<LoadRecord>(&t).ok());
            if let Some(rec) = rec {
                return Ok(Ok(Loaded {
                    key,
                    db,
                    engine_version: rec.engine_version,
                }));
            }
        }
        let io = |p: &Path, e: std::io::Error| CliError::new(format!("{}: {e}", p.display()));
        let _ = std::fs::remove_dir_all(&db);
        let partial_db = ctx
            .db_dir
            .join(format!("load-{key}.{}", std::process::id()));
        let partial = loads_dir.join(format!("{key}.partial"));
        let _ = std::fs::remove_dir_all(&partial_db);
        let _ = std::fs::remove_dir_all(&partial);
        std::fs::create_dir_all(&partial).map_err(|e| io(&partial, e))?;
        std::fs::create_dir_all(ctx.db_dir).map_err(|e| io(ctx.db_dir, e))?;
        let cell = load_cell(ctx.plan, &ctx.cells[run.cell]);
        let engine = engine_named(ctx.engines, &run.engine)?;
        let started = Instant::now();
        let o = run_steps(ctx.plan, engine, &cell, 0..steps, &partial_db, &partial)?;
        let seconds = started.elapsed().as_secs_f64();
        std::fs::write(
            partial.join("timeseries.csv"),
            String::from(TIMESERIES_HEADER) + &o.timeseries,
        )
        .map_err(|e| io(&partial, e))?;
        if !o.error.is_empty() {
            let _ = std::fs::remove_dir_all(&partial_db);
            let e = format!("load {key} failed: {}; see loads/{key}.partial/", o.error);
            self.failed.insert(key, e.clone());
            return Ok(Err(e));
        }
        let rec = LoadRecord {
            key: key.clone(),
            engine: run.engine.clone(),
            steps,
            axes: cell.values.clone(),
            built_for: run.id(),
            engine_version: o.engine_version.clone(),
            seconds,
            metrics: o.metrics,
        };
        let text = serde_json::to_string_pretty(&rec)
            .map_err(|e| CliError::new(format!("load {key}: {e}")))?;
        std::fs::write(partial.join("load.json"), text).map_err(|e| io(&partial, e))?;
        let _ = std::fs::remove_dir_all(&records);
        std::fs::rename(&partial, &records).map_err(|e| io(&records, e))?;
        // Last: the database is whole once it has its name.
        std::fs::rename(&partial_db, &db).map_err(|e| io(&db, e))?;
        let log = loads_dir.join("built.log");
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| {
                writeln!(
                    f,
                    "{key} {} steps 0-{} for {} in {seconds:.1} s",
                    run.engine,
                    steps - 1,
                    run.id()
                )
            })
            .map_err(|e| io(&log, e))?;
        Ok(Ok(Loaded {
            key,
            db,
            engine_version: o.engine_version,
        }))
    }

    /// `run` is done with its load: the load's database goes once no remaining run needs it.
    pub fn done_with(&mut self, ctx: &Context, run: &RunKey) {
        let Some(key) = self.key_of(run.cell, &run.engine).map(str::to_string) else {
            return;
        };
        if let Some(n) = self.remaining.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                let _ = std::fs::remove_dir_all(ctx.db_dir.join(format!("load-{key}")));
            }
        }
    }

    /// Removes every load database of the study (at its end).
    pub fn remove_all(&self, db_dir: &Path) {
        for key in self.remaining.keys() {
            let _ = std::fs::remove_dir_all(db_dir.join(format!("load-{key}")));
        }
    }
}

/// True for the name of a load built by an attempt that did not finish it (`load-KEY.PID`).
pub fn is_partial_load(name: &str) -> bool {
    attempt_of(name).is_some_and(|stem| stem.starts_with("load-"))
}

/// The stem of an attempt's directory name `STEM.PID` (a run's or a load's database built by
/// process PID), or `None` for any other name.
pub fn attempt_of(name: &str) -> Option<&str> {
    let (stem, pid) = name.rsplit_once('.')?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_loads_are_recognised_by_name() {
        assert!(is_partial_load("load-0123456789abcdef.4242"));
        assert!(!is_partial_load("load-0123456789abcdef"));
        assert!(!is_partial_load("c000-lsmlab-r0.4242"));
        assert!(!is_partial_load("load-x.pid"));
    }

    #[test]
    fn directories_copy_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let from = tmp.path().join("a");
        std::fs::create_dir_all(from.join("sub")).unwrap();
        std::fs::write(from.join("CURRENT"), "MANIFEST-000001\n").unwrap();
        std::fs::write(from.join("sub").join("x"), vec![7u8; 10_000]).unwrap();
        let to = tmp.path().join("b");
        copy_dir(&from, &to).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("CURRENT")).unwrap(),
            "MANIFEST-000001\n"
        );
        assert_eq!(
            std::fs::read(to.join("sub").join("x")).unwrap(),
            vec![7u8; 10_000]
        );
        let e = copy_dir(&tmp.path().join("missing"), &tmp.path().join("c")).unwrap_err();
        assert!(e.contains("missing"), "{e}");
    }
}
