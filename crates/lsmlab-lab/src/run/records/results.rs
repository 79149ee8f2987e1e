//! A results directory: one directory per finished run, and `runs.csv`, the tidy table of every
//! run and metric that the statistics, the report and anyone's notebook read.
//!
//! A run is built in `runs/ID.partial/` and renamed to `runs/ID/` last, so a killed study leaves
//! either a whole run or a partial one that `--resume` discards and runs again.

use crate::plan::matrix::RunKey;
use crate::run::figures::metrics::Metrics;
use crate::run::measure::outside_load::OutsideLoad;
use crate::run::measure::quiet_device::QuietWait;
use crate::text::csv_line;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of the `runs.csv` columns; bumped when they change (2: `outside_cpu_pct` and
/// `steal_pct` after `order`).
pub const SCHEMA_VERSION: u32 = 2;

/// What `result.json` holds for one run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// `runs.csv` schema version.
    pub schema: u32,
    /// Run id (`c003-rocksdb-r2`).
    pub id: String,
    /// Cell index.
    pub cell: usize,
    /// The cell's axis values.
    pub axes: Vec<(String, String)>,
    /// Engine name.
    pub engine: String,
    /// Repetition, from 0.
    pub rep: u32,
    /// Position in the study's run order.
    pub order: usize,
    /// `ok` or `failed`.
    pub status: String,
    /// Why it failed.
    #[serde(default)]
    pub error: String,
    /// The engine version its output printed.
    #[serde(default)]
    pub engine_version: String,
    /// The load it started from a copy of (`loads/KEY/` holds its steps' outputs); empty when
    /// the run built its database itself.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub load: String,
    /// When the run started and ended (UTC, `20261123T121500Z`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub started: String,
    /// When it ended.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ended: String,
    /// The machine's 1-minute load average at the start and the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<(f64, f64)>,
    /// What other processes and the hypervisor took of the machine during the run
    /// (outside_load.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_load: Option<OutsideLoad>,
    /// How long the run waited for a quiet device before it started (quiet_device.rs); absent
    /// when it did not wait (no block device, or the plan's `quiet_device_secs` is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_wait: Option<QuietWait>,
    /// What the engine's output warned makes its timings slow (`Assertions are enabled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slow_build: Vec<String>,
    /// Every figure.
    pub metrics: Metrics,
}

/// The run directory of `id`.
pub fn run_dir(dir: &Path, id: &str) -> PathBuf {
    dir.join("runs").join(id)
}

/// The finished record of `id`, if it finished well.
pub fn finished(dir: &Path, id: &str) -> Option<RunRecord> {
    let text = std::fs::read_to_string(run_dir(dir, id).join("result.json")).ok()?;
    let rec: RunRecord = serde_json::from_str(&text).ok()?;
    (rec.status == "ok").then_some(rec)
}

/// Every run record of the directory, sorted by id. A run still being built
/// (`runs/ID.partial/`) is not a run; a `result.json` that cannot be read (not UTF-8 included)
/// or parsed, or whose id is not its directory's name, is refused by name.
pub fn load_all(dir: &Path) -> CliResult<Vec<RunRecord>> {
    let runs = dir.join("runs");
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(&runs) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(CliError::new(format!("{}: {e}", runs.display()))),
    };
    for e in rd {
        let e = e.map_err(|e| CliError::new(format!("{}: {e}", runs.display())))?;
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            return Err(CliError::new(format!(
                "{}: not a run directory name (not UTF-8)",
                e.path().display()
            )));
        };
        if name.ends_with(".partial") {
            continue;
        }
        let p = e.path().join("result.json");
        let text = match std::fs::read(&p) {
            Ok(bytes) => String::from_utf8(bytes)
                .map_err(|_| CliError::new(format!("{}: not UTF-8", p.display())))?,
            // A run that failed before its record was written has none.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(CliError::new(format!("{}: {e}", p.display()))),
        };
        let rec: RunRecord = serde_json::from_str(&text)
            .map_err(|e| CliError::new(format!("{}: {e}", p.display())))?;
        if rec.id != name {
            return Err(CliError::new(format!(
                "{}: id {:?} is not its directory's name {name:?}",
                p.display(),
                rec.id
            )));
        }
        // A duration below 0 is no measurement (projections of time would read it as one).
        if let Some((m, v)) = rec
            .metrics
            .iter()
            .find(|(m, v)| m.ends_with("wall_s") && (v.is_nan() || **v < 0.0))
        {
            return Err(CliError::new(format!(
                "{}: metrics.{m} is {v}; allowed 0 or more (seconds)",
                p.display()
            )));
        }
        out.push(rec);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// Writes `text` to `path` through a temporary file and a rename, so readers never see half.
pub fn write_atomic(path: &Path, text: &str) -> CliResult<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| CliError::new(format!("writing {}: {e}", path.display())))
}

/// The columns of `runs.csv` before the axes.
pub const RUN_COLUMNS: [&str; 8] = [
    "schema_version",
    "run",
    "cell",
    "engine",
    "rep",
    "order",
    "outside_cpu_pct",
    "steal_pct",
];

/// `runs.csv`: schema_version, run, cell, engine, rep, order, outside_cpu_pct, steal_pct
/// (empty when not measured), one column per axis, metric, value — one row per run and metric,
/// successful runs only.
pub fn runs_csv(records: &[RunRecord], axes: &[String]) -> String {
    let mut header: Vec<String> = RUN_COLUMNS.iter().map(|s| s.to_string()).collect();
    header.extend(axes.iter().cloned());
    header.push("metric".into());
    header.push("value".into());
    let mut out = csv_line(&header) + "\n";
    for r in records.iter().filter(|r| r.status == "ok") {
        for (metric, value) in &r.metrics {
            let mut row = vec![
                SCHEMA_VERSION.to_string(),
                r.id.clone(),
                format!("c{:03}", r.cell),
                r.engine.clone(),
                r.rep.to_string(),
                r.order.to_string(),
            ];
            let pct = |f: fn(&OutsideLoad) -> f64| {
                r.outside_load
                    .as_ref()
                    .map(|l| format!("{:.2}", f(l)))
                    .unwrap_or_default()
            };
            row.push(pct(|l| l.outside_cpu_pct));
            row.push(pct(|l| l.steal_pct));
            for a in axes {
                row.push(
                    r.axes
                        .iter()
                        .find(|(k, _)| k == a)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default(),
                );
            }
            row.push(metric.clone());
            row.push(format!("{value}"));
            out.push_str(&csv_line(&row));
            out.push('\n');
        }
    }
    out
}

impl RunRecord {
    /// A run about to start: `ok` until it fails, no metrics yet.
    pub fn starting(key: &RunKey, axes: Vec<(String, String)>, order: usize) -> RunRecord {
        RunRecord {
            schema: SCHEMA_VERSION,
            id: key.id(),
            cell: key.cell,
            axes,
            engine: key.engine.clone(),
            rep: key.rep,
            order,
            status: "ok".into(),
            error: String::new(),
            engine_version: String::new(),
            load: String::new(),
            slow_build: Vec::new(),
            started: String::new(),
            ended: String::new(),
            load_average: None,
            outside_load: None,
            quiet_wait: None,
            metrics: Metrics::new(),
        }
    }

    /// A finished run of `cell` (with its `axes`) on `engine` in repetition `rep`, holding one
    /// metric: what the statistics' tests build their studies from.
    #[cfg(test)]
    pub fn ok_for_test(
        cell: usize,
        axes: Vec<(String, String)>,
        engine: &str,
        rep: u32,
        metric: &str,
        v: f64,
    ) -> RunRecord {
        let key = RunKey {
            cell,
            engine: engine.into(),
            rep,
        };
        let mut r = RunRecord::starting(&key, axes, 0);
        r.metrics.insert(metric.to_string(), v);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_csv_has_one_row_per_metric_of_ok_runs() {
        let key = RunKey {
            cell: 1,
            engine: "lsmlab".into(),
            rep: 0,
        };
        let mut rec = RunRecord::starting(&key, vec![("bloom_bits".into(), "10".into())], 4);
        rec.metrics = [("a.x".to_string(), 1.5), ("b.y".to_string(), 2.0)]
            .into_iter()
            .collect();
        let mut failed = rec.clone();
        failed.status = "failed".into();
        failed.id = "c001-lsmlab-r1".into();
        let text = runs_csv(&[rec.clone(), failed], &["bloom_bits".into()]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "schema_version,run,cell,engine,rep,order,outside_cpu_pct,steal_pct,bloom_bits,metric,value"
        );
        assert_eq!(lines[1], "2,c001-lsmlab-r0,c001,lsmlab,0,4,,,10,a.x,1.5");
        assert_eq!(lines.len(), 3);
        rec.outside_load = Some(OutsideLoad {
            outside_cpu_pct: 31.25,
            steal_pct: 0.5,
        });
        let text = runs_csv(&[rec.clone()], &["bloom_bits".into()]);
        assert_eq!(
            text.lines().nth(1),
            Some("2,c001-lsmlab-r0,c001,lsmlab,0,4,31.25,0.50,10,a.x,1.5")
        );
        rec.metrics.clear();
        assert_eq!(runs_csv(&[rec], &[]).lines().count(), 1);
    }

    #[test]
    fn finished_needs_an_ok_result() {
        let d = tempfile::tempdir().unwrap();
        assert!(finished(d.path(), "x").is_none());
        std::fs::create_dir_all(run_dir(d.path(), "x")).unwrap();
        std::fs::write(run_dir(d.path(), "x").join("result.json"), "{").unwrap();
        assert!(finished(d.path(), "x").is_none());
        assert!(load_all(d.path()).is_err());
    }

    #[test]
    fn partial_runs_are_not_runs_and_damaged_records_are_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        let rec = RunRecord {
            schema: SCHEMA_VERSION,
            id: "c000-lsmlab-r0".into(),
            cell: 0,
            axes: Vec::new(),
            engine: "lsmlab".into(),
            rep: 0,
            order: 0,
            status: "ok".into(),
            error: String::new(),
            engine_version: String::new(),
            load: String::new(),
            started: String::new(),
            ended: String::new(),
            load_average: None,
            outside_load: None,
            quiet_wait: None,
            slow_build: Vec::new(),
            metrics: Metrics::new(),
        };
        let text = serde_json::to_string(&rec).unwrap();
        for id in ["c000-lsmlab-r0", "c000-lsmlab-r1.partial"] {
            std::fs::create_dir_all(run_dir(d.path(), id)).unwrap();
            std::fs::write(run_dir(d.path(), id).join("result.json"), &text).unwrap();
        }
        let all = load_all(d.path()).unwrap();
        assert_eq!(all.len(), 1, "a .partial run is never counted");
        // A record under another run's name.
        std::fs::create_dir_all(run_dir(d.path(), "c000-lsmlab-r2")).unwrap();
        let other = run_dir(d.path(), "c000-lsmlab-r2").join("result.json");
        std::fs::write(&other, &text).unwrap();
        let e = load_all(d.path()).unwrap_err();
        assert!(
            e.0.contains("c000-lsmlab-r2/result.json") && e.0.contains("not its directory"),
            "{e}"
        );
        // Not UTF-8.
        std::fs::write(&other, b"{\"id\": \"\xff\"}").unwrap();
        let e = load_all(d.path()).unwrap_err();
        assert!(e.0.contains("c000-lsmlab-r2/result.json: not UTF-8"), "{e}");
    }
}
