//! The engines a plan names, and the command line each step becomes on each of them.
//!
//! Every run is a child process, so that its RSS, CPU and a crash belong to that run alone.
//! Options are checked against each engine before anything runs: a flag one engine lacks is an
//! error naming the engine and the flag, never a silent default that would compare unlike runs.

use super::boundaries;
pub use super::kind::Kind;
use crate::plan::matrix::{step_cell, Cell};
use crate::plan::spec::{Plan, Step, StepKind, Table};
use crate::plan::vocabulary::LEVELDB_BENCHMARKS;
use crate::text::value_text;
use lsmlab_drivers::engine::EngineKind;
use lsmlab_drivers::error::{CliError, CliResult};
use std::collections::BTreeSet;
use std::path::Path;

/// One resolved engine.
#[derive(Debug, Clone)]
pub struct Engine {
    /// The plan's name for it.
    pub name: String,
    /// Its command line.
    pub kind: Kind,
    /// For `lsmlab` runs, the engine of `--engine=` (lsmlab, or a library through lsmlab's
    /// driver); for db_bench, the library it links.
    pub driver: EngineKind,
    /// The program.
    pub binary: String,
    /// Flags the binary accepts (RocksDB: read from `--help`).
    known_flags: Option<BTreeSet<String>>,
}

/// The environment variable that names an engine's binary: `LSMLAB_ROCKSDB_BINARY` for
/// `rocksdb`, `LSMLAB_LSMLAB_LEVELDB_BINARY` for `lsmlab-leveldb`.
pub fn env_var(engine: &str) -> String {
    let name: String = engine
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("LSMLAB_{name}_BINARY")
}

/// The first `name` on PATH.
fn on_path(name: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}

impl Engine {
    /// Resolves `name` from the plan; `lsmlab_bin` is the lsmlab program the runs use, and
    /// `plan_dir` the directory relative paths of `[engine.X] binary` start from.
    pub fn resolve(
        plan: &Plan,
        name: &str,
        lsmlab_bin: &Path,
        plan_dir: &Path,
    ) -> CliResult<Engine> {
        let spec = plan.engine.get(name).cloned().unwrap_or_default();
        let kind_name = spec.kind.clone().unwrap_or_else(|| name.to_string());
        const KINDS: [&str; 7] = [
            "lsmlab",
            "lsmlab-rocksdb",
            "lsmlab-leveldb",
            "lsmlab-fjall",
            "rocksdb",
            "leveldb",
            "fjall",
        ];
        let (kind, driver) = Kind::parse(&kind_name).ok_or_else(|| {
            // A name with no [engine.X] is most likely a misspelt engine, not a new one.
            let hint = match (
                &spec.kind,
                lsmlab_drivers::suggest::closest(&kind_name, KINDS),
            ) {
                (None, Some(c)) if lsmlab_drivers::suggest::edit_distance(&kind_name, c) <= 2 => {
                    format!("; did you mean {c:?}?")
                }
                _ => format!(" (or configure it: [engine.{name}] kind = ..., binary = ...)"),
            };
            CliError::new(format!(
                "engine {name}: kind {kind_name:?}; allowed {}{hint}",
                KINDS.join(", ")
            ))
        })?;
        if kind == Kind::Lsmlab {
            EngineKind::parse("--engine", driver.name())
                .map_err(|e| CliError::new(format!("engine {name}: {e}")))?;
        }
        let binary = match (&spec.binary, kind) {
            // A bare name is looked up on PATH, as a shell would; a relative path starts at the
            // plan's directory, so a plan and the tools beside it work from any clone.
            (Some(b), _) if !b.contains('/') => on_path(b).ok_or_else(|| {
                CliError::new(format!(
                    "engine {name}: {b} is not on PATH; add its directory to PATH, or set {} or --binary {name}=PATH",
                    env_var(name)
                ))
            })?,
            (Some(b), _) if Path::new(b).is_relative() => plan_dir.join(b).display().to_string(),
            (Some(b), _) => b.clone(),
            (None, Kind::Lsmlab) => lsmlab_bin.display().to_string(),
            (None, Kind::RocksDb) => on_path("db_bench").ok_or_else(|| {
                CliError::new(format!(
                    "engine {name}: no db_bench on PATH; install it (Debian: apt-get install -y rocksdb-tools), or set {} or --binary {name}=PATH",
                    env_var(name)
                ))
            })?,
            (None, Kind::LevelDb) => {
                return Err(CliError::new(format!(
                    "engine {name}: LevelDB has no default binary; set [engine.{name}] binary, {} or --binary {name}=PATH",
                    env_var(name)
                )))
            }
        };
        if kind == Kind::Lsmlab && !Path::new(&binary).is_file() {
            return Err(CliError::new(match &spec.binary {
                Some(_) => format!(
                    "engine {name}: binary {binary} does not exist; set [engine.{name}] binary, {} or --binary {name}=PATH",
                    env_var(name)
                ),
                None => format!(
                    "engine {name}: binary {binary} does not exist; give the lsmlab program with --lsmlab PATH"
                ),
            }));
        }
        if kind != Kind::Lsmlab && !Path::new(&binary).is_file() {
            return Err(CliError::new(format!(
                "engine {name}: binary {binary} does not exist; set {} or --binary {name}=PATH",
                env_var(name)
            )));
        }
        let known_flags = match kind {
            Kind::RocksDb => Some(
                gflags_of(&binary)
                    .map_err(|e| CliError::new(format!("engine {name}: {binary} --help: {e}")))?,
            ),
            _ => None,
        };
        Ok(Engine {
            name: name.to_string(),
            kind,
            driver,
            binary,
            known_flags,
        })
    }

    /// The arguments of one step on this engine, or an error naming what the engine lacks.
    /// `flags` are db_bench flags (name, value); `flush` whether the step flushes before it
    /// exits (`Plan::flushes`).
    #[allow(clippy::too_many_arguments)]
    pub fn step_args(
        &self,
        step: &Step,
        i: usize,
        flush: bool,
        flags: &[(String, String)],
        props: &[(String, String)],
        db: &Path,
        json: &Path,
    ) -> CliResult<Vec<String>> {
        let kind = step.kind(i)?;
        let db = db.display().to_string();
        let first = i == 0;
        match kind {
            StepKind::Bench | StepKind::Settle => {
                let benches = boundaries::benchmarks(self.kind, step, kind, flush);
                let mut all: Vec<(String, String)> = Vec::new();
                // Every figure needs the histograms and statistics: on unless the plan says off.
                all.push(("histogram".into(), "1".into()));
                if self.kind != Kind::LevelDb {
                    all.push(("statistics".into(), "1".into()));
                }
                all.extend(flags.iter().cloned());
                if self.kind == Kind::Lsmlab && self.driver != EngineKind::Lsmlab {
                    all.push(("engine".into(), self.driver.name().into()));
                }
                all.push(("benchmarks".into(), benches));
                all.push(("db".into(), db));
                if !first {
                    all.push(("use_existing_db".into(), "1".into()));
                }
                let all = dedup_last(all);
                let mut args = Vec::new();
                if self.kind == Kind::Lsmlab {
                    args.push("bench".to_string());
                    all.iter()
                        .for_each(|(k, v)| args.push(format!("--{k}={v}")));
                    args.push(format!("--json={}", json.display()));
                    return Ok(args);
                }
                for (k, v) in &all {
                    if let Some(f) = self.map_flag(k, v, step, i)? {
                        args.push(f);
                    }
                }
                Ok(args)
            }
            StepKind::YcsbLoad | StepKind::YcsbRun => {
                if self.kind != Kind::Lsmlab {
                    return Err(CliError::new(format!(
                        "engine {}: steps[{i}] is a YCSB phase, which only lsmlab runs (db_bench has no YCSB driver; kind lsmlab-rocksdb or lsmlab-leveldb runs it on those libraries)",
                        self.name
                    )));
                }
                let phase = if kind == StepKind::YcsbLoad {
                    "load"
                } else {
                    "run"
                };
                let mut args = vec!["ycsb".to_string(), phase.to_string()];
                let workload = props
                    .iter()
                    .rev()
                    .find(|(k, _)| k == "workload")
                    .map(|(_, v)| v.clone())
                    .or_else(|| step.workload.clone())
                    .ok_or_else(|| {
                        CliError::new(format!(
                            "steps[{i}]: a YCSB step needs workload = \"...\" (or a workload axis)"
                        ))
                    })?;
                args.push("-P".into());
                args.push(workload);
                for (k, v) in dedup_last(props.to_vec()) {
                    if k != "workload" {
                        args.push("-p".into());
                        args.push(format!("{k}={v}"));
                    }
                }
                args.push(format!("--db={db}"));
                if self.driver != EngineKind::Lsmlab {
                    args.push(format!("--engine={}", self.driver.name()));
                }
                args.push(format!("--json={}", json.display()));
                Ok(args)
            }
        }
    }

    /// For lsmlab's driver on a library: the first flag (bench) or engine property (YCSB) of
    /// the step that the library cannot honour, as `lsmlab bench|ycsb --engine=` would refuse it.
    fn check_driver(
        &self,
        step: &Step,
        i: usize,
        flush: bool,
        flags: &[(String, String)],
        props: &[(String, String)],
    ) -> CliResult<()> {
        if self.kind != Kind::Lsmlab || self.driver == EngineKind::Lsmlab {
            return Ok(());
        }
        let (refusal, spell): (_, fn(&str) -> String) = match step.kind(i)? {
            StepKind::Bench | StepKind::Settle => {
                let mut f = lsmlab_drivers::flags::BenchFlags::default();
                let mut set = Vec::new();
                for (k, v) in flags {
                    f.set_raw(k, v)?;
                    set.push(k.clone());
                }
                f.benchmarks = boundaries::benchmarks(self.kind, step, step.kind(i)?, flush);
                let settings = f.settings()?;
                (f.engine_refusal(self.driver, &settings, &set), |n: &str| {
                    format!("--{n}")
                })
            }
            StepKind::YcsbLoad | StepKind::YcsbRun => {
                let mut p = lsmlab_drivers::ycsb::properties::Properties::default();
                for (k, v) in props.iter().filter(|(k, _)| k != "workload") {
                    p.set_pair(&format!("{k}={v}"))?;
                }
                let (settings, set) = lsmlab_drivers::ycsb::engine_options::settings(&p, "")?;
                (
                    lsmlab_drivers::engine::support::check(self.driver, &settings, &set),
                    |n: &str| lsmlab_drivers::ycsb::engine_options::property_name(n),
                )
            }
        };
        refusal.map_err(|(n, why)| {
            CliError::new(format!(
                "engine {}: {}: {why} (steps[{i}])",
                self.name,
                spell(&n)
            ))
        })
    }

    /// A flag as this engine spells it; `None` drops a flag that means "off" on an engine
    /// without the feature.
    fn map_flag(
        &self,
        name: &str,
        value: &str,
        step: &Step,
        i: usize,
    ) -> CliResult<Option<String>> {
        let lacks = |why: &str| {
            CliError::new(format!(
                "engine {}: --{name}={value}: {why} (steps[{i}] {})",
                self.name,
                step.bench.as_deref().unwrap_or("settle")
            ))
        };
        match self.kind {
            Kind::Lsmlab => Ok(Some(format!("--{name}={value}"))),
            Kind::RocksDb => match &self.known_flags {
                Some(known) if !known.contains(name) => {
                    Err(lacks("this db_bench has no such flag"))
                }
                _ => Ok(Some(format!("--{name}={value}"))),
            },
            Kind::LevelDb => {
                let same = [
                    "num",
                    "reads",
                    "threads",
                    "value_size",
                    "write_buffer_size",
                    "block_size",
                    "cache_size",
                    "open_files",
                    "compression_ratio",
                    "histogram",
                    "use_existing_db",
                    "db",
                    "reuse_logs",
                    "comparisons",
                ];
                if same.contains(&name) {
                    return Ok(Some(format!("--{name}={}", bool_as_int(value))));
                }
                match name {
                    "benchmarks" => {
                        for b in value.split(',').map(str::trim).filter(|b| !b.is_empty()) {
                            if !LEVELDB_BENCHMARKS.contains(&b) {
                                return Err(lacks(&format!(
                                    "LevelDB's db_bench has no benchmark {b:?}"
                                )));
                            }
                        }
                        Ok(Some(format!("--benchmarks={value}")))
                    }
                    "target_file_size_base" => Ok(Some(format!("--max_file_size={value}"))),
                    // LevelDB's keys are 16 bytes after a common prefix of --key_prefix bytes.
                    "key_size" => match value.parse::<i64>() {
                        Ok(k) if k >= 16 => Ok(Some(format!("--key_prefix={}", k - 16))),
                        _ => Err(lacks(
                            "LevelDB keys are 16 bytes plus --key_prefix; allowed 16 or more",
                        )),
                    },
                    "bloom_bits" => match value.parse::<f64>() {
                        Ok(b) if b.fract() == 0.0 => Ok(Some(format!("--bloom_bits={}", b as i64))),
                        _ => Err(lacks("LevelDB takes whole bits per key")),
                    },
                    "compression_type" => match value {
                        "none" => Ok(Some("--compression=0".into())),
                        "snappy" => Ok(Some("--compression=1".into())),
                        _ => Err(lacks("LevelDB compresses with snappy or not at all")),
                    },
                    "use_ribbon_filter" | "enable_blob_files"
                        if value == "false" || value == "0" =>
                    {
                        Ok(None)
                    }
                    // No statistics in LevelDB: the figures that need them are absent, not zero.
                    "statistics" => Ok(None),
                    _ => Err(lacks("LevelDB's db_bench has no such flag")),
                }
            }
        }
    }

    /// Checks every step of every cell on this engine before anything runs.
    pub fn check(&self, plan: &Plan, cells: &[Cell]) -> CliResult<()> {
        let tmp = Path::new("/nonexistent");
        for c in cells {
            for (i, step) in plan.steps.iter().enumerate() {
                let (flags, props) = step_settings(plan, step, &step_cell(plan, c, i));
                if self.kind == Kind::Lsmlab {
                    for (k, _) in &flags {
                        if step.kind(i)? != StepKind::Bench && step.kind(i)? != StepKind::Settle {
                            break;
                        }
                        if !lsmlab_drivers::flags::SUPPORTED.contains(&k.as_str()) {
                            return Err(CliError::new(format!(
                                "engine {}: --{k}: not a flag of lsmlab bench (cell {})",
                                self.name,
                                c.label()
                            )));
                        }
                    }
                }
                let args = self.step_args(step, i, plan.flushes(i), &flags, &props, tmp, tmp)?;
                if self.kind == Kind::Lsmlab {
                    // The values too, as `lsmlab bench` / `lsmlab ycsb` check them before they
                    // run: a cell every run of which would fail is refused here.
                    let checked = match step.kind(i)? {
                        // The values as lsmlab's driver checks them; what a library
                        // driver cannot honour is `check_driver`'s.
                        StepKind::Bench | StepKind::Settle => {
                            let args: Vec<String> = args[1..]
                                .iter()
                                .filter(|a| !a.starts_with("--engine="))
                                .cloned()
                                .collect();
                            lsmlab_drivers::flags::parse(&args).map(|_| ())
                        }
                        StepKind::YcsbLoad | StepKind::YcsbRun => {
                            lsmlab_drivers::ycsb::engine_options::check_properties(&props)
                        }
                    };
                    checked.map_err(|e| {
                        CliError::new(format!(
                            "engine {}: {e} (steps[{i}], cell {})",
                            self.name,
                            c.label()
                        ))
                    })?;
                }
                self.check_driver(step, i, plan.flushes(i), &flags, &props)?;
            }
        }
        Ok(())
    }
}

fn bool_as_int(v: &str) -> &str {
    match v {
        "true" => "1",
        "false" => "0",
        other => other,
    }
}

/// Keeps the last value of each name, in the order of first appearance.
fn dedup_last(items: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in items {
        match out.iter_mut().find(|(n, _)| *n == k) {
            Some(slot) => slot.1 = v,
            None => out.push((k, v)),
        }
    }
    out
}

fn pairs(t: &Table) -> impl Iterator<Item = (String, String)> + '_ {
    t.iter().map(|(k, v)| (k.clone(), value_text(v)))
}

/// (name, value) pairs, each name once.
pub type Settings = Vec<(String, String)>;

/// The flags and properties of `step` in `cell`: plan, then step, then the cell's axes
/// (an axis named `workload` only selects the YCSB workload).
pub fn step_settings(plan: &Plan, step: &Step, cell: &Cell) -> (Settings, Settings) {
    let axes = cell.values.iter().cloned();
    let flags: Vec<(String, String)> = pairs(&plan.flags)
        .chain(pairs(&step.flags))
        .chain(axes.clone().filter(|(k, _)| k != "workload"))
        .collect();
    let props: Vec<(String, String)> = pairs(&plan.properties)
        .chain(pairs(&step.properties))
        .chain(axes)
        .collect();
    (dedup_last(flags), dedup_last(props))
}

/// The flag names a gflags program lists in `--help` (lines `    -name (…`).
fn gflags_of(binary: &str) -> Result<BTreeSet<String>, String> {
    let out = std::process::Command::new(binary)
        .arg("--help")
        .output()
        .map_err(|e| e.to_string())?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let flags: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("    -"))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    if flags.is_empty() {
        return Err("lists no flags; is it db_bench?".into());
    }
    Ok(flags)
}

/// The version a binary reports (`--version`), for the environment record.
pub fn version_of(engine: &Engine) -> String {
    if engine.kind == Kind::Lsmlab && engine.driver != EngineKind::Lsmlab {
        return engine.driver.describe();
    }
    let arg = match engine.kind {
        Kind::Lsmlab | Kind::RocksDb => "--version",
        // LevelDB's db_bench has no --version; the header of each run names it.
        Kind::LevelDb => return "see run headers".to_string(),
    };
    std::process::Command::new(&engine.binary)
        .arg(arg)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::matrix::expand;

    /// The command line engine `e` gets for step `i` of the plan's first cell.
    fn args_of(e: &Engine, p: &Plan, cells: &[Cell], i: usize) -> Vec<String> {
        let (flags, props) = step_settings(p, &p.steps[i], &cells[0]);
        e.step_args(
            &p.steps[i],
            i,
            p.flushes(i),
            &flags,
            &props,
            Path::new("/d"),
            Path::new("/j"),
        )
        .unwrap()
    }

    fn leveldb() -> Engine {
        Engine {
            name: "leveldb".into(),
            kind: Kind::LevelDb,
            driver: EngineKind::LevelDb,
            binary: "db_bench".into(),
            known_flags: None,
        }
    }

    fn plan(text: &str) -> Plan {
        Plan::parse(text).unwrap()
    }

    #[test]
    fn binaries_are_found_on_path_beside_the_plan_or_named() {
        assert_eq!(env_var("rocksdb"), "LSMLAB_ROCKSDB_BINARY");
        assert_eq!(env_var("lsmlab-leveldb"), "LSMLAB_LSMLAB_LEVELDB_BINARY");
        let d = tempfile::tempdir().unwrap();
        let tool = d.path().join("tools").join("db");
        std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
        std::fs::write(&tool, "").unwrap();
        let p = plan("title = \"t\"\nengines = [\"old\"]\n[engine.old]\nbinary = \"tools/db\"\nkind = \"leveldb\"\n[[steps]]\nbench = \"fillseq\"\n");
        let e = Engine::resolve(&p, "old", Path::new("lsmlab"), d.path()).unwrap();
        assert_eq!(e.binary, tool.display().to_string(), "relative to the plan");
        let e = Engine::resolve(&p, "old", Path::new("lsmlab"), Path::new("/nowhere")).unwrap_err();
        assert!(
            e.0.contains("does not exist; set LSMLAB_OLD_BINARY or --binary old=PATH"),
            "{e}"
        );
        let p = plan("title = \"t\"\nengines = [\"old\"]\n[engine.old]\nbinary = \"no-such-tool-here\"\nkind = \"leveldb\"\n[[steps]]\nbench = \"fillseq\"\n");
        let e = Engine::resolve(&p, "old", Path::new("lsmlab"), d.path()).unwrap_err();
        assert!(e.0.contains("no-such-tool-here is not on PATH"), "{e}");
    }

    #[test]
    fn fjall_is_lsmlab_driven_and_needs_the_feature() {
        let p =
            plan("title = \"t\"\noptional_engines = [\"fjall\"]\n[[steps]]\nbench = \"fillseq\"\n");
        let r = Engine::resolve(&p, "fjall", Path::new("lsmlab"), Path::new("."));
        if EngineKind::Fjall.built_in() {
            let e = r.unwrap();
            assert_eq!((e.kind, e.driver), (Kind::Lsmlab, EngineKind::Fjall));
            assert_eq!(e.binary, "lsmlab");
            let cells = expand(&p);
            let args = args_of(&e, &p, &cells, 0);
            assert!(args.contains(&"--engine=fjall".to_string()), "{args:?}");
            let p = plan(
                "title = \"t\"\n[matrix]\ndisable_wal = [true]\n[[steps]]\nbench = \"fillseq\"\n",
            );
            let err = e.check(&p, &expand(&p)).unwrap_err();
            assert!(
                err.0
                    .starts_with("engine fjall: --disable_wal: fjall always writes its journal"),
                "{err}"
            );
        } else {
            let err = r.unwrap_err();
            assert!(
                err.0.starts_with("engine fjall: --engine: invalid value \"fjall\": this lsmlab was built without the fjall engine"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_misspelt_engine_gets_the_nearest_name() {
        let p = plan("title = \"t\"\nengines = [\"rockdb\"]\n[[steps]]\nbench = \"fillseq\"\n");
        let e = Engine::resolve(&p, "rockdb", Path::new("lsmlab"), Path::new(".")).unwrap_err();
        assert!(e.0.ends_with("did you mean \"rocksdb\"?"), "{e}");
        let e = Engine::resolve(&p, "mystore", Path::new("lsmlab"), Path::new(".")).unwrap_err();
        assert!(e.0.contains("[engine.mystore] kind"), "{e}");
    }

    #[test]
    fn leveldb_flags_are_mapped_or_refused() {
        let p = plan("title = \"t\"\n[flags]\nkey_size = 32\ntarget_file_size_base = 100\ncompression_type = \"none\"\nuse_ribbon_filter = false\n[[steps]]\nbench = \"fillseq\"\n[[steps]]\nbench = \"readrandom\"\n");
        let cells = expand(&p);
        let args = args_of(&leveldb(), &p, &cells, 1);
        assert_eq!(
            args,
            [
                "--histogram=1",
                "--key_prefix=16",
                "--max_file_size=100",
                "--compression=0",
                "--benchmarks=readrandom",
                "--db=/d",
                "--use_existing_db=1"
            ]
        );
        let p = plan("title = \"t\"\n[matrix]\nuse_ribbon_filter = [false, true]\n[[steps]]\nbench = \"fillseq\"\n");
        let e = leveldb().check(&p, &expand(&p)).unwrap_err();
        assert!(e.0.contains("--use_ribbon_filter=true"), "{e}");
        let p = plan("title = \"t\"\n[[steps]]\nbench = \"readwhilewriting,waitforcompaction\"\n");
        assert!(leveldb()
            .check(&p, &expand(&p))
            .unwrap_err()
            .0
            .contains("waitforcompaction"));
    }

    #[test]
    fn lsmlab_refuses_unknown_flags_and_ycsb_needs_lsmlab() {
        let lsm = Engine {
            name: "lsmlab".into(),
            kind: Kind::Lsmlab,
            driver: EngineKind::Lsmlab,
            binary: "lsmlab".into(),
            known_flags: None,
        };
        let p = plan("title = \"t\"\n[flags]\nvalu_size = 3\n[[steps]]\nbench = \"fillseq\"\n");
        assert!(lsm
            .check(&p, &expand(&p))
            .unwrap_err()
            .0
            .contains("--valu_size"));
        let p = plan("title = \"t\"\n[matrix]\nworkload = [\"workloada\"]\nlayout = [\"fslsm\"]\n[[steps]]\nycsb = \"load\"\n");
        let cells = expand(&p);
        let args = args_of(&lsm, &p, &cells, 0);
        assert_eq!(
            args,
            [
                "ycsb",
                "load",
                "-P",
                "workloada",
                "-p",
                "layout=fslsm",
                "--db=/d",
                "--json=/j"
            ]
        );
        let e = leveldb().check(&p, &cells).unwrap_err();
        assert!(e.0.contains("YCSB"), "{e}");
    }

    #[test]
    fn lsmlab_driver_on_a_library_passes_engine_and_refuses_what_it_cannot_honour() {
        let lib = Engine {
            name: "leveldb-lib".into(),
            kind: Kind::Lsmlab,
            driver: EngineKind::LevelDb,
            binary: "lsmlab".into(),
            known_flags: None,
        };
        let p = plan("title = \"t\"\n[matrix]\nworkload = [\"fslsm-workload3\"]\n[[steps]]\nycsb = \"load\"\n[[steps]]\nbench = \"readrandom\"\n");
        let cells = expand(&p);
        let args = args_of(&lib, &p, &cells, 0);
        assert!(args.contains(&"--engine=leveldb".to_string()), "{args:?}");
        let args = args_of(&lib, &p, &cells, 1);
        assert!(args.contains(&"--engine=leveldb".to_string()), "{args:?}");
        lib.check(&p, &cells).unwrap();
        let p = plan(
            "title = \"t\"\n[matrix]\nuse_ribbon_filter = [true]\n[[steps]]\nbench = \"fillseq\"\n",
        );
        let e = lib.check(&p, &expand(&p)).unwrap_err();
        assert!(
            e.0.starts_with("engine leveldb-lib: --use_ribbon_filter: LevelDB has Bloom"),
            "{e}"
        );
        let p = plan("title = \"t\"\n[properties]\nlayout = \"fslsm\"\n[[steps]]\nycsb = \"load\"\nworkload = \"workloada\"\n");
        let e = lib.check(&p, &expand(&p)).unwrap_err();
        assert!(e.0.starts_with("engine leveldb-lib: -p layout: "), "{e}");
    }
}
