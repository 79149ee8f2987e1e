//! A study plan: the TOML file a user writes (see docs/plan.md for every key).
//!
//! Unknown keys are errors that name the key (`deny_unknown_fields`), because a misspelt axis or
//! flag that is silently ignored would produce a study that measured something else.

use super::budget::BudgetSpec;
use super::claims::Claim;
use crate::text::value_text;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A TOML table kept in the order the user wrote it (axes and flags print in that order).
pub type Table = toml::Table;

/// The whole plan.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// One line naming the study.
    pub title: String,
    /// The question the study answers; the report opens with it.
    #[serde(default)]
    pub question: String,
    /// Engines every cell runs on, by name: `lsmlab`, `rocksdb`, `leveldb`, `fjall` or one of
    /// `[engine.X]`.
    #[serde(default = "default_engines")]
    pub engines: Vec<String>,
    /// Engines that run when they can be found and are skipped, with a note, when not (e.g.
    /// `rocksdb` on a machine without db_bench).
    #[serde(default)]
    pub optional_engines: Vec<String>,
    /// Engine settings by name (binary, kind).
    #[serde(default)]
    pub engine: BTreeMap<String, EngineSpec>,
    /// db_bench flags of every bench step (without the dashes).
    #[serde(default)]
    pub flags: Table,
    /// YCSB properties of every ycsb step.
    #[serde(default)]
    pub properties: Table,
    /// Axes: name = [values]. Each cell is one point of their product.
    #[serde(default)]
    pub matrix: Table,
    /// What each run does, in order, on one fresh database.
    pub steps: Vec<Step>,
    /// Leading steps that build the database once per distinct load; each run then starts from
    /// a copy of it and runs the remaining steps.
    #[serde(default)]
    pub load: Option<Load>,
    /// Runs of each cell and engine (default 5).
    #[serde(default = "default_repetitions")]
    pub repetitions: u32,
    /// Seed of the run order (0: drawn from the clock and recorded).
    #[serde(default)]
    pub seed: u64,
    /// Scales by name (e.g. quick, paper): overrides of flags, properties, axes, repetitions.
    #[serde(default)]
    pub scale: BTreeMap<String, Scale>,
    /// The scale used when the command line names none (default: the first of quick, then any).
    #[serde(default)]
    pub default_scale: Option<String>,
    /// Axes whose values are compared with each other (variant vs variant); default: every
    /// axis. Leave out axes whose values are different questions (e.g. YCSB workloads).
    #[serde(default)]
    pub compare: Option<Vec<String>>,
    /// Figures (tables and plots) the report shows.
    #[serde(default)]
    pub figure: Vec<Figure>,
    /// Where the databases live (default: `db/` in the results directory).
    #[serde(default)]
    pub db_dir: Option<String>,
    /// The most a run waits, before it starts, for the device of `db_dir` to go quiet: the
    /// last run's writeback and the discards of its deleted files done (seconds; default 30;
    /// 0: start at once). Lower it only on a device no other run shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_device_secs: Option<f64>,
    /// The seed's claims, checked against the runs (see `claims`; the verdicts are
    /// `analyse::verdicts`).
    #[serde(default)]
    pub claim: Vec<Claim>,
    /// Every claim's size band unless it sets its own (docs/verdicts.md; default 1.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_band: Option<f64>,
    /// Every claim's smallest effect that matters unless it sets its own (docs/verdicts.md;
    /// default by the kind of its metric).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smallest_effect: Option<f64>,
    /// `[budget]`: repetitions added where claims are still open, within these limits (see
    /// `budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSpec>,
}

fn default_engines() -> Vec<String> {
    vec!["lsmlab".to_string()]
}

fn default_repetitions() -> u32 {
    5
}

/// How to run one engine.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// The binary (rocksdb default: `db_bench` on PATH; lsmlab default: this program).
    #[serde(default)]
    pub binary: Option<String>,
    /// Which command line it speaks: `lsmlab`, `rocksdb` (db_bench) or `leveldb` (LevelDB's
    /// db_bench), or lsmlab's driver on another engine (`lsmlab-rocksdb`, `lsmlab-leveldb`,
    /// `fjall` alias `lsmlab-fjall`). Default: the engine's name when it is one of those.
    #[serde(default)]
    pub kind: Option<String>,
}

/// The load: leading steps run once per (engine, effective settings of those steps), whose
/// database every run with the same load starts from a copy of.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Load {
    /// How many leading steps build the database: at least 1, fewer than all steps.
    pub steps: usize,
    /// Axes the load steps leave out (read-side settings such as `cache_size`): cells that
    /// differ only in them share one load.
    #[serde(default)]
    pub skip_axes: Vec<String>,
}

/// Overrides for one scale.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    /// Flags that replace or add to the plan's.
    #[serde(default)]
    pub flags: Table,
    /// Properties that replace or add to the plan's.
    #[serde(default)]
    pub properties: Table,
    /// Axes that replace the plan's of the same name.
    #[serde(default)]
    pub matrix: Table,
    /// Repetitions at this scale.
    #[serde(default)]
    pub repetitions: Option<u32>,
    /// Seconds one run takes, for `--dry-run`'s estimate (default: guessed from the op counts).
    #[serde(default)]
    pub seconds_per_run: Option<f64>,
}

/// One step of a run.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Name used in metric names when two steps run the same benchmark (default: none).
    #[serde(default)]
    pub name: Option<String>,
    /// db_bench benchmarks, comma-separated (`fillrandom,readrandom`).
    #[serde(default)]
    pub bench: Option<String>,
    /// A YCSB phase: `load` or `run`.
    #[serde(default)]
    pub ycsb: Option<String>,
    /// The YCSB workload (-P): a file or a built-in name; an axis named `workload` overrides it.
    #[serde(default)]
    pub workload: Option<String>,
    /// Flags of this step only.
    #[serde(default)]
    pub flags: Table,
    /// Properties of this step only.
    #[serde(default)]
    pub properties: Table,
    /// Wait until background compactions are done.
    #[serde(default)]
    pub settle: bool,
    /// Flush the memtable to a table before the step's process exits, so that the next step
    /// does not write this step's data at its open (WAL replay) and the step's figures hold the
    /// whole of its work. Default: on for a step followed by another, off for the last. Turn
    /// it off to measure a step as an application that stops without flushing sees it. A YCSB
    /// step cannot flush.
    #[serde(default)]
    pub flush: Option<bool>,
}

/// What kind of step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// db_bench benchmarks.
    Bench,
    /// YCSB load.
    YcsbLoad,
    /// YCSB run.
    YcsbRun,
    /// Wait for compactions.
    Settle,
}

impl Step {
    /// The kind, checked: exactly one of bench, ycsb, settle.
    pub fn kind(&self, i: usize) -> CliResult<StepKind> {
        let n = usize::from(self.bench.is_some())
            + usize::from(self.ycsb.is_some())
            + usize::from(self.settle);
        if n != 1 {
            return Err(CliError::new(format!(
                "steps[{i}]: give exactly one of bench = \"...\", ycsb = \"load\"|\"run\", settle = true"
            )));
        }
        if self.settle {
            return Ok(StepKind::Settle);
        }
        if let Some(b) = &self.bench {
            if b.split(',').all(|s| s.trim().is_empty()) {
                return Err(CliError::new(format!("steps[{i}].bench: empty")));
            }
            return Ok(StepKind::Bench);
        }
        match self.ycsb.as_deref() {
            Some("load") => Ok(StepKind::YcsbLoad),
            Some("run") => Ok(StepKind::YcsbRun),
            other => Err(CliError::new(format!(
                "steps[{i}].ycsb: {other:?}; allowed: \"load\", \"run\""
            ))),
        }
    }
}

/// A figure of the report.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// Title above the figure.
    pub title: String,
    /// `bar` (categories), `line` (numeric x), `timeseries` (CPU/RSS/disk over time), `table`
    /// (a column per metric) or `heatmap` (x × series, each cell its ratio to `baseline`).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Metric names (see docs/metrics.md), e.g. `readrandom.ops_per_sec`.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// The axis on x (default: the first axis of the matrix).
    #[serde(default)]
    pub x: Option<String>,
    /// The axis that makes separate lines or bars (`engine` or an axis; default `engine`).
    #[serde(default)]
    pub series: Option<String>,
    /// Logarithmic x axis (line plots).
    #[serde(default)]
    pub log_x: bool,
    /// Logarithmic y axis.
    #[serde(default)]
    pub log_y: bool,
    /// Mark where the series cross with non-overlapping CIs (the "golden cross").
    #[serde(default)]
    pub crossover: bool,
    /// A heat map's denominator: the series value every other is divided by (default: the
    /// series axis' first value). Set it to the value the question compares against.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "baseline_value"
    )]
    pub baseline: Option<String>,
}

/// A heat map's `baseline`: a series value as the matrix writes it (`true`, `10`, `"fslsm"`),
/// read as the text a cell's value is; a table or list is refused naming the key.
fn baseline_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<toml::Value>::deserialize(d)? {
        None => Ok(None),
        Some(v @ (toml::Value::Array(_) | toml::Value::Table(_) | toml::Value::Datetime(_))) => {
            Err(serde::de::Error::custom(format!(
                "figure.baseline: {v}; allowed one value of the series axis, e.g. \"fslsm\", 10 or true"
            )))
        }
        Some(v) => Ok(Some(value_text(&v))),
    }
}

fn default_kind() -> String {
    "bar".to_string()
}

impl Plan {
    /// Whether step `i` flushes before its process exits (see `Step::flush`): YCSB steps never.
    pub fn flushes(&self, i: usize) -> bool {
        let Some(step) = self.steps.get(i) else {
            return false;
        };
        match step.kind(i) {
            Ok(StepKind::Bench | StepKind::Settle) => {
                step.flush.unwrap_or(i + 1 < self.steps.len())
            }
            _ => false,
        }
    }

    /// Every axis with every value the plan or any of its scales gives it.
    pub fn axis_values(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let tables = std::iter::once(&self.matrix).chain(self.scale.values().map(|s| &s.matrix));
        for t in tables {
            for (k, v) in t {
                let list = out.entry(k.clone()).or_default();
                for v in v.as_array().into_iter().flatten() {
                    let text = value_text(v);
                    if !list.contains(&text) {
                        list.push(text);
                    }
                }
            }
        }
        out
    }

    /// The scale to run: `name`, else `default_scale`, else `quick` when present, else none.
    pub fn pick_scale(&self, name: Option<&str>) -> CliResult<Option<String>> {
        match name.or(self.default_scale.as_deref()) {
            Some(n) if self.scale.contains_key(n) => Ok(Some(n.to_string())),
            Some(n) if self.scale.is_empty() => Err(CliError::new(format!(
                "--scale: {n:?}, but the plan has no [scale.NAME] sections; leave --scale out"
            ))),
            Some(n) => Err(CliError::new(format!(
                "--scale: {n:?} is not in the plan; allowed: {}{}",
                self.scale.keys().cloned().collect::<Vec<_>>().join(", "),
                lsmlab_drivers::suggest::closest(n, self.scale.keys().map(String::as_str))
                    .map(|c| format!("; did you mean {c:?}?"))
                    .unwrap_or_default()
            ))),
            None if self.scale.contains_key("quick") => Ok(Some("quick".to_string())),
            None => Ok(None),
        }
    }

    /// The plan with a scale's overrides applied (flags, properties and axes replaced by name).
    pub fn scaled(&self, scale: Option<&str>) -> Plan {
        let mut p = self.clone();
        if let Some(s) = scale.and_then(|n| self.scale.get(n)) {
            for (k, v) in &s.flags {
                p.flags.insert(k.clone(), v.clone());
            }
            for (k, v) in &s.properties {
                p.properties.insert(k.clone(), v.clone());
            }
            for (k, v) in &s.matrix {
                p.matrix.insert(k.clone(), v.clone());
            }
            if let Some(r) = s.repetitions {
                p.repetitions = r;
            }
        }
        p
    }
}

/// The name a step's statistics carry: its `name`, else its benchmarks joined by `+`, else the
/// YCSB phase.
pub fn step_label(step: &Step, i: usize) -> String {
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
