//! A study plan: the TOML file a user writes (see docs/studies.md for every key).
//!
//! Unknown keys are errors that name the key (`deny_unknown_fields`), because a misspelt axis or
//! flag that is silently ignored would produce a study that measured something else.

use crate::error::{CliError, CliResult};
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
    /// The seed's claims, checked against the runs (see `claims`).
    #[serde(default)]
    pub claim: Vec<super::claims::Claim>,
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
    /// `bar` (categories), `line` (numeric x), `timeseries` (CPU/RSS/disk over time) or `table`.
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Metric names (see docs/studies.md), e.g. `readrandom.ops_per_sec`.
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
}

fn default_kind() -> String {
    "bar".to_string()
}

impl Plan {
    /// Parses and checks a plan's text.
    pub fn parse(text: &str) -> CliResult<Plan> {
        let plan: Plan = toml::from_str(text).map_err(|e| {
            // toml's message spans lines (a snippet of the file); keep the first and the line number.
            let msg = e.message().trim().replace('\n', " ");
            match e.span() {
                Some(span) => {
                    let before = text.get(..span.start).unwrap_or(text);
                    let line = before.lines().count().max(1);
                    CliError::new(format!("plan: line {line}: {msg}"))
                }
                None => CliError::new(format!("plan: {msg}")),
            }
        })?;
        // Parsed once more as a plain table: every value's size and finiteness, by key.
        let table: toml::Table = toml::from_str(text).unwrap_or_default();
        super::limits::check_values(&table).map_err(|e| {
            let key = e.0.split(':').next().unwrap_or("");
            let last = key.rsplit('.').next().unwrap_or(key);
            let last = last.split('[').next().unwrap_or(last);
            match super::vocabulary::line_of(text, "", 0, last) {
                Some(l) => CliError::new(format!("plan: line {l}: {e}")),
                None => CliError::new(format!("plan: {e}")),
            }
        })?;
        plan.check()?;
        super::vocabulary::check(&plan, text)?;
        Ok(plan)
    }

    /// Reads and checks a plan file.
    pub fn load(path: &std::path::Path) -> CliResult<(Plan, String)> {
        let text = super::limits::read_plan(path)?;
        let plan =
            Plan::parse(&text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        Ok((plan, text))
    }

    fn check(&self) -> CliResult<()> {
        if self.engines.is_empty() && self.optional_engines.is_empty() {
            return Err(CliError::new(
                "engines: empty; name at least one, e.g. [\"lsmlab\"]",
            ));
        }
        if self.steps.is_empty() {
            return Err(CliError::new(
                "steps: empty; add [[steps]] bench = \"fillrandom\"",
            ));
        }
        if self.repetitions == 0 {
            return Err(CliError::new("repetitions: 0; allowed 1 or more"));
        }
        for (i, s) in self.steps.iter().enumerate() {
            s.kind(i)?;
        }
        check_axes(&self.matrix, "matrix")?;
        super::limits::check_cells(&self.matrix, "matrix")?;
        for name in self.scale.keys() {
            let scaled = self.scaled(Some(name));
            super::limits::check_cells(&scaled.matrix, &format!("scale.{name}: matrix"))?;
        }
        for (name, s) in &self.scale {
            check_axes(&s.matrix, &format!("scale.{name}.matrix"))?;
            if s.repetitions == Some(0) {
                return Err(CliError::new(format!(
                    "scale.{name}.repetitions: 0; allowed 1 or more"
                )));
            }
        }
        if let Some(d) = &self.default_scale {
            if !self.scale.contains_key(d) {
                return Err(CliError::new(format!(
                    "default_scale: {d:?} is not a [scale.X] of the plan"
                )));
            }
        }
        if let Some(l) = &self.load {
            if self.steps.len() < 2 {
                return Err(CliError::new(
                    "load.steps: the plan has one step; a load needs at least two (the load, then steps that run on its copy); remove [load] or add a step",
                ));
            }
            if l.steps == 0 || l.steps >= self.steps.len() {
                return Err(CliError::new(format!(
                    "load.steps: {}; allowed 1 to {} (the load is the first steps, and at least one step must run on its copy)",
                    l.steps,
                    self.steps.len().saturating_sub(1)
                )));
            }
            for a in &l.skip_axes {
                if !self.matrix.contains_key(a) {
                    return Err(CliError::new(format!(
                        "load.skip_axes: {a:?} is not an axis of [matrix]"
                    )));
                }
            }
        }
        for a in self.compare.iter().flatten() {
            if !self.matrix.contains_key(a) {
                return Err(CliError::new(format!(
                    "compare: {a:?} is not an axis of [matrix]"
                )));
            }
        }
        let engines: Vec<String> = self
            .engines
            .iter()
            .chain(&self.optional_engines)
            .cloned()
            .collect();
        let axes = self.axis_values();
        for (i, c) in self.claim.iter().enumerate() {
            c.check(i, &axes, &engines)?;
        }
        for f in &self.figure {
            if !["bar", "line", "timeseries", "table"].contains(&f.kind.as_str()) {
                return Err(CliError::new(format!(
                    "figure {:?}: kind {:?}; allowed bar, line, timeseries, table",
                    f.title, f.kind
                )));
            }
        }
        Ok(())
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
                crate::suggest::closest(n, self.scale.keys().map(String::as_str))
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

fn check_axes(matrix: &Table, what: &str) -> CliResult<()> {
    for (name, values) in matrix {
        let arr = values.as_array().ok_or_else(|| {
            CliError::new(format!(
                "{what}.{name}: expected a list of values, e.g. [1, 2]"
            ))
        })?;
        if arr.is_empty() {
            return Err(CliError::new(format!("{what}.{name}: empty list")));
        }
        for v in arr {
            if v.is_table() || v.is_array() {
                return Err(CliError::new(format!(
                    "{what}.{name}: values must be numbers, strings or booleans"
                )));
            }
        }
    }
    Ok(())
}

/// A TOML value as a command-line value: strings bare, booleans `true`/`false`.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
title = "t"
[[steps]]
bench = "fillseq"
"#;

    #[test]
    fn defaults_fill_in() {
        let p = Plan::parse(MINIMAL).unwrap();
        assert_eq!(p.engines, ["lsmlab"]);
        assert_eq!(p.repetitions, 5);
        assert_eq!(p.steps[0].kind(0).unwrap(), StepKind::Bench);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = Plan::parse(&format!("{MINIMAL}\nrepetitons = 3\n")).unwrap_err();
        assert!(e.0.contains("repetitons"), "{e}");
        assert!(!e.0.contains('\n'), "{e}");
        let e = Plan::parse("title = \"t\"\n[[steps]]\nbench = \"x\"\nflag = {}\n").unwrap_err();
        assert!(e.0.contains("flag"), "{e}");
    }

    #[test]
    fn bad_steps_and_axes_are_refused() {
        let e =
            Plan::parse("title = \"t\"\n[[steps]]\nbench = \"a\"\nsettle = true\n").unwrap_err();
        assert!(e.0.contains("steps[0]"), "{e}");
        let e = Plan::parse(&format!("{MINIMAL}[matrix]\nbloom_bits = 5\n")).unwrap_err();
        assert!(e.0.contains("matrix.bloom_bits"), "{e}");
        let e = Plan::parse(&format!("{MINIMAL}[matrix]\nbloom_bits = []\n")).unwrap_err();
        assert!(e.0.contains("empty"), "{e}");
    }

    #[test]
    fn damaged_plans_give_errors_not_panics() {
        // Every prefix and every single-byte change of a real plan: parse or a one-line error.
        let text = include_str!("../../../../experiments/seed002.toml");
        let bytes = text.as_bytes();
        let check = |t: &str| {
            if let Err(e) = Plan::parse(t) {
                assert!(!e.0.contains('\n'), "{e}");
            }
        };
        for end in (0..bytes.len()).step_by(7) {
            if let Ok(t) = std::str::from_utf8(&bytes[..end]) {
                check(t);
            }
        }
        for (i, b) in [b'"', b'[', b'=', b'\n', b'x', b'1', 0xC3]
            .iter()
            .cycle()
            .take(400)
            .enumerate()
        {
            let mut v = bytes.to_vec();
            let at = (i * 104_729) % v.len();
            v[at] = *b;
            check(&String::from_utf8_lossy(&v));
        }
    }

    #[test]
    fn loads_are_leading_steps_and_skip_only_axes() {
        let two = format!("{MINIMAL}[[steps]]\nbench = \"readrandom\"\n[matrix]\nreads = [1, 2]\n");
        let p = Plan::parse(&format!(
            "{two}[load]\nsteps = 1\nskip_axes = [\"reads\"]\n"
        ))
        .unwrap();
        assert_eq!(p.load.unwrap().steps, 1);
        for (load, expect) in [
            ("steps = 0", "load.steps: 0; allowed 1 to 1"),
            ("steps = 2", "load.steps: 2"),
            (
                "steps = 1\nskip_axes = [\"cache\"]",
                "\"cache\" is not an axis",
            ),
            ("steps = 1\nstep = 1", "step"),
        ] {
            let e = Plan::parse(&format!("{two}[load]\n{load}\n")).unwrap_err();
            assert!(e.0.contains(expect), "{load}: {e}");
        }
    }

    #[test]
    fn hostile_plans_are_one_line_errors() {
        let one_step_load = format!("{MINIMAL}[load]\nsteps = 1\n");
        let nan = format!("{MINIMAL}[flags]\ncompression_ratio = nan\n");
        let mut twelve = MINIMAL.to_string() + "[matrix]\n";
        for i in 0..12 {
            twelve += &format!("axis{i} = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n");
        }
        let scaled = format!(
            "{MINIMAL}[matrix]\na = [1]\n[scale.big]\nmatrix = {{ a = [{}] }}\n",
            (0..10_001)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (text, expect) in [
            (one_step_load, "load.steps: the plan has one step"),
            (
                nan,
                "plan: line 6: flags.compression_ratio: NaN is not a finite number",
            ),
            (twelve, "matrix: 1000000000000 cells"),
            (
                scaled,
                "scale.big: matrix: 10001 cells (a 10001); the limit is 10000",
            ),
        ] {
            let e = Plan::parse(&text).unwrap_err();
            assert!(
                e.0.starts_with(expect) || e.0.contains(expect),
                "{expect}: {e}"
            );
            assert!(!e.0.contains('\n'));
        }
    }

    #[test]
    fn scales_override_by_name() {
        let p = Plan::parse(&format!(
            "{MINIMAL}[flags]\nnum = 10\nkey_size = 32\n[matrix]\nbloom_bits = [1, 2]\n[scale.quick]\nflags = {{ num = 5 }}\nrepetitions = 2\nmatrix = {{ bloom_bits = [3] }}\n"
        ))
        .unwrap();
        assert_eq!(p.pick_scale(None).unwrap().as_deref(), Some("quick"));
        let s = p.scaled(Some("quick"));
        assert_eq!(s.flags["num"].as_integer(), Some(5));
        assert_eq!(s.flags["key_size"].as_integer(), Some(32));
        assert_eq!(s.repetitions, 2);
        assert_eq!(s.matrix["bloom_bits"].as_array().unwrap().len(), 1);
        assert!(p.pick_scale(Some("paper")).unwrap_err().0.contains("paper"));
        let e = p.pick_scale(Some("quik")).unwrap_err();
        assert!(
            e.0.contains("allowed: quick; did you mean \"quick\"?"),
            "{e}"
        );
        let e = Plan::parse(MINIMAL)
            .unwrap()
            .pick_scale(Some("nope"))
            .unwrap_err();
        assert!(e.0.contains("the plan has no [scale.NAME] sections"), "{e}");
    }
}
