//! Splitting a study across machines (`--shard i/N`, Slurm job arrays, Kubernetes Indexed Jobs)
//! and joining the pieces (`lsmlab merge`).
//!
//! A cell goes to shard `cell % N`, so every repetition and engine of a cell runs on one machine
//! and its paired comparisons never mix machines.

use super::environment::Environment;
use super::Expanded;
use crate::error::{CliError, CliResult};
use std::path::Path;

/// Shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// From 0.
    pub index: usize,
    /// Shards in all.
    pub count: usize,
}

impl Shard {
    /// Whether `cell` belongs to this shard.
    pub fn has(&self, cell: usize) -> bool {
        cell % self.count == self.index
    }
}

fn env_usize(get: &dyn Fn(&str) -> Option<String>, name: &str) -> CliResult<Option<usize>> {
    match get(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| CliError::new(format!("{name}: {v:?} is not a whole number"))),
    }
}

/// The shard from `--shard` (`i/N`, or `/N` to take i from the scheduler), else from Slurm's
/// array variables; `get` reads the environment.
pub fn resolve(
    arg: Option<&str>,
    get: &dyn Fn(&str) -> Option<String>,
) -> CliResult<Option<Shard>> {
    let from_env = || -> CliResult<Option<usize>> {
        if let Some(id) = env_usize(get, "SLURM_ARRAY_TASK_ID")? {
            let min = env_usize(get, "SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            return Ok(Some(id.saturating_sub(min)));
        }
        env_usize(get, "JOB_COMPLETION_INDEX")
    };
    let shard = match arg {
        Some(text) => {
            let bad = || {
                CliError::new(format!(
                    "--shard: {text:?}; expected I/N with 0 <= I < N (e.g. 2/8), or /N to read I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX"
                ))
            };
            let (i, n) = text.split_once('/').ok_or_else(bad)?;
            let count: usize = n.trim().parse().map_err(|_| bad())?;
            let index = if i.trim().is_empty() {
                from_env()?.ok_or_else(|| {
                    CliError::new(
                        "--shard /N: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set",
                    )
                })?
            } else {
                i.trim().parse().map_err(|_| bad())?
            };
            Shard { index, count }
        }
        None => match env_usize(get, "SLURM_ARRAY_TASK_COUNT")? {
            Some(count) => Shard {
                index: from_env()?.unwrap_or(0),
                count,
            },
            None => return Ok(None),
        },
    };
    if shard.count == 0 || shard.index >= shard.count {
        return Err(CliError::new(format!(
            "--shard: {}/{}: the index must be below the count",
            shard.index, shard.count
        )));
    }
    Ok(Some(shard))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> CliResult<T> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))
}

fn copy_dir(from: &Path, to: &Path) -> CliResult<()> {
    super::load::copy_dir(from, to).map_err(CliError::new)
}

/// Joins shard directories into `out`; returns warnings (shards from different machines).
pub fn merge(dirs: &[std::path::PathBuf], out: &Path) -> CliResult<Vec<String>> {
    let mut warnings = Vec::new();
    let first = dirs
        .first()
        .ok_or_else(|| CliError::new("merge: name at least one results directory"))?;
    let mut expanded: Expanded = read_json(&first.join("plan.json"))?;
    let env0: Environment = read_json(&first.join("environment.json"))?;
    let mut envs = vec![env0.clone()];
    for d in &dirs[1..] {
        let e: Expanded = read_json(&d.join("plan.json"))?;
        if e.plan_hash != expanded.plan_hash {
            return Err(CliError::new(format!(
                "merge: {} ran another plan or scale (hash {} vs {} of {}); merge only shards of one plan",
                d.display(),
                e.plan_hash,
                expanded.plan_hash,
                first.display()
            )));
        }
        let env: Environment = read_json(&d.join("environment.json"))?;
        if !env.same_machine(&env0) {
            warnings.push(format!(
                "{} ran on another machine ({} {}, {} cores) than {} ({} {}, {} cores): compare across shards with care",
                d.display(), env.hostname, env.cpu_model, env.cores,
                first.display(), env0.hostname, env0.cpu_model, env0.cores
            ));
        }
        envs.push(env);
        expanded.order.extend(e.order);
    }
    if out.join("runs").exists() {
        return Err(CliError::new(format!(
            "merge: {} already holds runs; give a new directory to --out",
            out.display()
        )));
    }
    // A run in two shards is the same run twice (a shard merged twice, or two shards that
    // overlap): refused, as it would count twice in every statistic.
    let mut from: std::collections::BTreeMap<String, &Path> = std::collections::BTreeMap::new();
    for d in dirs {
        let runs = d.join("runs");
        if let Ok(rd) = std::fs::read_dir(&runs) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".partial") {
                    continue;
                }
                if let Some(other) = from.insert(name.clone(), d.as_path()) {
                    return Err(CliError::new(format!(
                        "merge: run {name} is in both {} and {}; merge each shard once",
                        other.display(),
                        d.display()
                    )));
                }
            }
        }
    }
    for (name, d) in &from {
        copy_dir(&d.join("runs").join(name), &out.join("runs").join(name))?;
    }
    // One order for the merged study: each run's position in the shards' orders laid end to
    // end, so `order` in result.json and runs.csv is unique again.
    let position: std::collections::HashMap<&str, usize> = expanded
        .order
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    for name in from.keys() {
        let path = out.join("runs").join(name).join("result.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if let Some(i) = position.get(name.as_str()) {
            doc["order"] = serde_json::json!(i);
            std::fs::write(&path, doc.to_string())
                .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        }
    }
    // Cells no shard ran: a shard left out of the merge, or one that has not finished.
    let missing: Vec<String> = expanded
        .cells
        .iter()
        .map(|c| c.id())
        .filter(|id| !from.keys().any(|r| r.starts_with(&format!("{id}-"))))
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "{} of {} cells have no runs in these shards ({}{}): is a shard missing?",
            missing.len(),
            expanded.cells.len(),
            missing
                .iter()
                .take(8)
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            if missing.len() > 8 { " …" } else { "" }
        ));
    }
    let err = |p: &Path, e: std::io::Error| CliError::new(format!("{}: {e}", p.display()));
    // Loads: each shard built those of its own cells (two shards may have built the same one:
    // the first copy is kept, and built.log keeps every build).
    let mut built = String::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d.join("loads")) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let target = out.join("loads").join(&name);
            if name == "built.log" {
                built += &std::fs::read_to_string(e.path()).map_err(|x| err(&e.path(), x))?;
            } else if !name.ends_with(".partial") && !target.exists() {
                copy_dir(&e.path(), &target)?;
            }
        }
    }
    if !built.is_empty() {
        let log = out.join("loads").join("built.log");
        std::fs::write(&log, built).map_err(|e| err(&log, e))?;
    }
    expanded.shard = None;
    std::fs::copy(first.join("plan.toml"), out.join("plan.toml")).map_err(|e| err(out, e))?;
    let text = serde_json::to_string_pretty(&expanded).map_err(|e| CliError::new(e.to_string()))?;
    std::fs::write(out.join("plan.json"), text).map_err(|e| err(out, e))?;
    let text = serde_json::to_string_pretty(&env0).map_err(|e| CliError::new(e.to_string()))?;
    std::fs::write(out.join("environment.json"), text).map_err(|e| err(out, e))?;
    let text = serde_json::to_string_pretty(&envs).map_err(|e| CliError::new(e.to_string()))?;
    std::fs::write(out.join("environments.json"), text).map_err(|e| err(out, e))?;
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn shard_from_flag_and_schedulers() {
        let none = env(&[]);
        assert_eq!(
            resolve(Some("2/8"), &none).unwrap(),
            Some(Shard { index: 2, count: 8 })
        );
        assert_eq!(resolve(None, &none).unwrap(), None);
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            resolve(None, &slurm).unwrap(),
            Some(Shard { index: 3, count: 4 })
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(
            resolve(Some("/4"), &k8s).unwrap(),
            Some(Shard { index: 3, count: 4 })
        );
        for bad in ["8/8", "x/2", "3", "1/0"] {
            let e = resolve(Some(bad), &none).unwrap_err();
            assert!(e.0.starts_with("--shard"), "{bad}: {e}");
        }
        assert!(resolve(Some("/4"), &none).is_err());
    }

    #[test]
    fn cells_spread_round_robin() {
        let s = Shard { index: 1, count: 3 };
        let mine: Vec<usize> = (0..9).filter(|&c| s.has(c)).collect();
        assert_eq!(mine, [1, 4, 7]);
    }
}
