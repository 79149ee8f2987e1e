//! `lsmlab merge`: joining the results directories of the shards of one study.
//!
//! A merge is trusted only if it says what it holds: every run of the plan once. So it refuses
//! shards of another plan or scale, shards split another way (`/2` beside `/3`), the same shard
//! twice and a run found in two directories; and it refuses missing runs (a shard not given, or
//! runs a shard has not finished) unless told to go on without them, naming each. The run order
//! is renumbered over the merged study (shard by shard), and `merge.json` records the shards,
//! the machines and anything missing, for the report.

use super::audit;
use super::expanded::Expanded;
use super::shard::Shard;
use crate::plan::matrix::RunKey;
use crate::run::load::copy_dir;
use crate::run::measure::environment::Environment;
use lsmlab_drivers::error::{CliError, CliResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a merge joined (`merge.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MergeRecord {
    /// Shards the study was split into.
    pub shards: usize,
    /// The directories merged, by shard index.
    pub dirs: Vec<String>,
    /// Distinct machines among them.
    pub machines: usize,
    /// Finished runs merged.
    pub runs: usize,
    /// Runs of the plan that no directory finished (merged with `--allow-missing` only).
    pub missing: Vec<String>,
}

/// Options of a merge.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergeOptions {
    /// Merge even when runs are missing (they are named in warnings and `merge.json`).
    pub allow_missing: bool,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> CliResult<T> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))
}

fn io_err(p: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", p.display()))
}

/// A shard directory as read: its plan, environment and finished runs.
struct ShardDir {
    dir: PathBuf,
    plan: Expanded,
    env: Environment,
    shard: Shard,
    finished: BTreeSet<String>,
}

fn read_shard(dir: &Path) -> CliResult<ShardDir> {
    let plan: Expanded = read_json(&dir.join("plan.json")).map_err(|e| {
        CliError::new(format!(
            "merge: {}: not a results directory ({e})",
            dir.display()
        ))
    })?;
    let env: Environment = read_json(&dir.join("environment.json"))?;
    // Each record checked where it lies, so an error names the shard's file, not its copy.
    audit::check(dir, &plan, &super::results::load_all(dir)?)?;
    let shard = plan.shard.unwrap_or(Shard { index: 0, count: 1 });
    let mut finished = BTreeSet::new();
    if let Ok(rd) = std::fs::read_dir(dir.join("runs")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            // A run is done when its directory was renamed into place with its result.
            if !name.ends_with(".partial") && e.path().join("result.json").is_file() {
                finished.insert(name);
            }
        }
    }
    Ok(ShardDir {
        dir: dir.to_path_buf(),
        plan,
        env,
        shard,
        finished,
    })
}

/// Every run of the plan: each cell on each engine that any shard ran, in each repetition.
fn all_runs(shards: &[ShardDir]) -> Vec<RunKey> {
    let plan = &shards[0].plan;
    let mut engines: Vec<&str> = Vec::new();
    for e in shards.iter().flat_map(|s| &s.plan.engines) {
        if !engines.contains(&e.name.as_str()) {
            engines.push(&e.name);
        }
    }
    // `--resume --repetitions N` may have given a shard more repetitions than the others: the
    // merged study has the most, and the others' are missing.
    let repetitions = shards.iter().map(|s| s.plan.repetitions).max().unwrap_or(0);
    let mut keys = Vec::new();
    for cell in &plan.cells {
        for engine in &engines {
            for rep in 0..repetitions {
                keys.push(RunKey {
                    cell: cell.index,
                    engine: engine.to_string(),
                    rep,
                });
            }
        }
    }
    keys
}

/// Joins shard directories into `out`; returns the record and warnings (other machines,
/// missing runs when allowed).
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    opts: MergeOptions,
) -> CliResult<(MergeRecord, Vec<String>)> {
    if dirs.is_empty() {
        return Err(CliError::new("merge: name at least one results directory"));
    }
    let mut shards = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<CliResult<Vec<_>>>()?;
    shards.sort_by_key(|s| s.shard.index);
    let by_index = check_split(&shards)?;
    let count = shards[0].shard.count;
    let owner = owners(&shards)?;
    let expected = all_runs(&shards);
    let (missing, reasons) = missing_runs(&expected, &owner, &by_index, count);
    let mut warnings = Vec::new();
    if !missing.is_empty() {
        let what = format!(
            "{} of {} runs missing: {}",
            missing.len(),
            expected.len(),
            reasons.join("; ")
        );
        if !opts.allow_missing {
            return Err(CliError::new(format!(
                "merge: {what}; finish them (lsmlab run --resume SHARD_DIR) or merge with --allow-missing"
            )));
        }
        warnings.push(format!("merged without them: {what}"));
    }
    if out.join("runs").exists() {
        return Err(CliError::new(format!(
            "merge: {} already holds runs; give a new directory to --out",
            out.display()
        )));
    }
    let (env0, machines) = machines(&shards, &mut warnings);
    let order = merged_order(&shards);
    let position: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    for s in &shards {
        for run in &s.finished {
            let to = out.join("runs").join(run);
            let from = s.dir.join("runs").join(run);
            copy_dir(&from, &to).map_err(CliError::new)?;
            renumber(
                &from.join("result.json"),
                &to.join("result.json"),
                position[run.as_str()],
            )?;
        }
    }
    copy_loads(&shards, out)?;
    let mut expanded = shards[0].plan.clone();
    expanded.shard = None;
    expanded.order = order;
    let plan_toml = shards[0].dir.join("plan.toml");
    std::fs::copy(&plan_toml, out.join("plan.toml")).map_err(|e| io_err(&plan_toml, e))?;
    let record = MergeRecord {
        shards: count,
        dirs: shards.iter().map(|s| s.dir.display().to_string()).collect(),
        machines,
        runs: owner.len(),
        missing,
    };
    let envs: Vec<&Environment> = shards.iter().map(|s| &s.env).collect();
    write_json(&out.join("plan.json"), &expanded)?;
    write_json(&out.join("environment.json"), &env0)?;
    write_json(&out.join("environments.json"), &envs)?;
    write_json(&out.join("merge.json"), &record)?;
    Ok((record, warnings))
}

/// The shards are of one plan and one split, each given once; returns them by index.
fn check_split(shards: &[ShardDir]) -> CliResult<BTreeMap<usize, &Path>> {
    let first = &shards[0];
    let (hash, count) = (first.plan.plan_hash.clone(), first.shard.count);
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for s in shards {
        if s.plan.plan_hash != hash {
            return Err(CliError::new(format!(
                "merge: {} ran another plan or scale (hash {} vs {} of {}); merge only shards of one plan",
                s.dir.display(), s.plan.plan_hash, hash, first.dir.display()
            )));
        }
        if s.shard.count != count {
            return Err(CliError::new(format!(
                "merge: {} is shard {}/{} but {} is of {count} shards; merge shards of one split",
                s.dir.display(),
                s.shard.index,
                s.shard.count,
                first.dir.display()
            )));
        }
        if let Some(other) = by_index.insert(s.shard.index, &s.dir) {
            return Err(CliError::new(format!(
                "merge: shard {}/{count} given twice: {} and {}",
                s.shard.index,
                other.display(),
                s.dir.display()
            )));
        }
    }
    Ok(by_index)
}

/// The shard each finished run comes from; a run finished in two shards is an error.
fn owners(shards: &[ShardDir]) -> CliResult<BTreeMap<&str, &Path>> {
    let mut owner: BTreeMap<&str, &Path> = BTreeMap::new();
    for s in shards {
        for run in &s.finished {
            if let Some(other) = owner.insert(run, &s.dir) {
                return Err(CliError::new(format!(
                    "merge: run {run} is in both {} and {}; a run must come from one shard",
                    other.display(),
                    s.dir.display()
                )));
            }
        }
    }
    Ok(owner)
}

/// What is missing, named by shard: a shard not given, or runs it did not finish. Returns the
/// missing run ids and one reason per shard.
fn missing_runs(
    expected: &[RunKey],
    owner: &BTreeMap<&str, &Path>,
    by_index: &BTreeMap<usize, &Path>,
    count: usize,
) -> (Vec<String>, Vec<String>) {
    let mut missing = Vec::new();
    let mut reasons = Vec::new();
    for index in 0..count {
        let shard = Shard { index, count };
        let mine: Vec<String> = expected
            .iter()
            .filter(|k| shard.has(k.cell))
            .map(RunKey::id)
            .filter(|id| !owner.contains_key(id.as_str()))
            .collect();
        if mine.is_empty() {
            continue;
        }
        if by_index.contains_key(&index) {
            reasons.push(format!(
                "shard {index}/{count} did not finish {} runs ({})",
                mine.len(),
                mine.join(", ")
            ));
        } else {
            let cells: BTreeSet<usize> = expected
                .iter()
                .filter(|k| shard.has(k.cell))
                .map(|k| k.cell)
                .collect();
            let cells: Vec<String> = cells.iter().map(|c| format!("c{c:03}")).collect();
            reasons.push(format!(
                "shard {index}/{count} was not given ({} runs of cells {})",
                mine.len(),
                cells.join(", ")
            ));
        }
        missing.extend(mine);
    }
    (missing, reasons)
}

/// The first shard's machine and how many machines ran the shards; a warning per shard that
/// ran on another machine than the first.
fn machines(shards: &[ShardDir], warnings: &mut Vec<String>) -> (Environment, usize) {
    let env0 = shards[0].env.clone();
    let mut machines: Vec<&Environment> = Vec::new();
    for s in shards {
        if !machines.iter().any(|m| m.same_machine(&s.env)) {
            machines.push(&s.env);
        }
        if !s.env.same_machine(&env0) {
            warnings.push(format!(
                "{} ran on another machine ({} {}, {} cores) than {} ({} {}, {} cores): compare across shards with care",
                s.dir.display(), s.env.hostname, s.env.cpu_model, s.env.cores,
                shards[0].dir.display(), env0.hostname, env0.cpu_model, env0.cores
            ));
        }
    }
    (env0, machines.len())
}

/// The merged order: shard by shard, each in the order it ran.
fn merged_order(shards: &[ShardDir]) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for s in shards {
        order.extend(
            s.plan
                .order
                .iter()
                .filter(|id| s.finished.contains(*id))
                .cloned(),
        );
        order.extend(
            s.finished
                .iter()
                .filter(|id| !s.plan.order.contains(id))
                .cloned(),
        );
    }
    order
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> CliResult<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::new(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| io_err(path, e))
}

/// Writes the shard's record `from` to its copy `to` with `order` set to its place in the
/// merged study (read from the shard, so an error names the shard's file).
fn renumber(from: &Path, to: &Path, order: usize) -> CliResult<()> {
    let mut v: serde_json::Value = read_json(from)?;
    if let Some(o) = v.get_mut("order") {
        *o = serde_json::Value::from(order);
    }
    write_json(to, &v)
}

/// Loads: each shard built those of its own cells (two shards may have built the same one: the
/// first copy is kept, and built.log keeps every build).
fn copy_loads(shards: &[ShardDir], out: &Path) -> CliResult<()> {
    let mut built = String::new();
    for s in shards {
        let Ok(rd) = std::fs::read_dir(s.dir.join("loads")) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let target = out.join("loads").join(&name);
            if name == "built.log" {
                built += &std::fs::read_to_string(e.path()).map_err(|x| io_err(&e.path(), x))?;
            } else if !name.ends_with(".partial") && !target.exists() {
                copy_dir(&e.path(), &target).map_err(CliError::new)?;
            }
        }
    }
    if !built.is_empty() {
        let log = out.join("loads").join("built.log");
        std::fs::write(&log, built).map_err(|e| io_err(&log, e))?;
    }
    Ok(())
}
