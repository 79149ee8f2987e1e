//! Splitting a study across machines (`--shard i/N`, Slurm job arrays, Kubernetes Indexed Jobs);
//! `merge.rs` joins the pieces.
//!
//! A cell goes to shard `cell % N`, so every repetition and engine of a cell runs on one machine
//! and its paired comparisons never mix machines.

use lsmlab_drivers::error::{CliError, CliResult};

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
