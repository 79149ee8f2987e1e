//! What `lsmlab compare` checks of its two results directories before comparing: each run
//! record against its own `plan.json` (`run::audit`, so a damaged directory is refused by
//! file), whether the two studies ran the same plan (a warning naming the first difference),
//! and that `--csv` does not write inside either input.

use crate::run::records::audit;
use crate::run::records::expanded::Expanded;
use crate::run::records::results::{self, RunRecord};
use lsmlab_drivers::error::{CliError, CliResult};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A results directory read for a comparison: its plan, its runs checked against the plan, and
/// the plan's runs it lacks (compared without them, with a warning).
pub fn load(dir: &Path) -> CliResult<(Expanded, Vec<RunRecord>, Vec<String>)> {
    let file = dir.join("plan.json");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| CliError::new(format!("{}: not a results directory ({e})", file.display())))?;
    let x: Expanded = serde_json::from_str(&text)
        .map_err(|e| CliError::new(format!("{}: {e}", file.display())))?;
    let records = results::load_all(dir)?;
    let missing = audit::check(dir, &x, &records)?;
    Ok((x, records, missing))
}

/// Parts of a plan that do not change what a run measures: the engines' binaries (comparing
/// two builds is the point), the repetitions and the run order's seed, and the words and
/// pictures (title, question, figures, claims).
const NOT_COMPARED: &[&str] = &[
    "binary",
    "repetitions",
    "seed",
    "title",
    "question",
    "figure",
    "claim",
    "scale",
    "default_scale",
];

/// The first difference between the studies of two results directories that changes what
/// they measure (`scale`, the scaled plan's flags, properties, matrix, steps, engines...), as
/// `path: baseline vs candidate`; `None` when they ran one plan.
pub fn first_difference(base: &Expanded, cand: &Expanded) -> Option<String> {
    if base.scale != cand.scale {
        return Some(format!(
            "scale: {} vs {}",
            base.scale.as_deref().unwrap_or("none"),
            cand.scale.as_deref().unwrap_or("none")
        ));
    }
    let (a, b) = (
        serde_json::to_value(&base.plan).ok()?,
        serde_json::to_value(&cand.plan).ok()?,
    );
    differ("", &a, &b)
}

fn differ(path: &str, a: &Value, b: &Value) -> Option<String> {
    let at = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .filter(|k| !NOT_COMPARED.contains(&k.as_str()))
                .find_map(|k| {
                    differ(
                        &at(k),
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    )
                })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| differ(&format!("{path}[{i}]"), p, q)),
        _ if a == b => None,
        _ => Some(format!("{path}: {} vs {}", shown(a), shown(b))),
    }
}

fn shown(v: &Value) -> String {
    match v {
        Value::Null => "(none)".into(),
        _ => {
            let s = v.to_string();
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// The directory a path is in (or would be, when it does not exist yet), resolved.
fn resolved(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => resolved(parent).join(name),
        _ => abs,
    }
}

/// Refuses an output path (`flag`: `--csv`, `--out`) inside any input results directory: no
/// command writes into the results it reads (`compare --csv res/runs.csv res res` would
/// overwrite the baseline's own runs.csv). Also used by `merge --out`.
pub fn refuse_inside(flag: &str, path: &Path, inputs: &[&Path]) -> CliResult<()> {
    let target = resolved(path);
    for dir in inputs {
        if target.starts_with(resolved(dir)) {
            return Err(CliError::new(format!(
                "{flag} {}: inside the input results directory {}; write it elsewhere",
                path.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// `refuse_inside` for `--csv`.
pub fn check_csv_path(csv: &Path, inputs: &[&Path]) -> CliResult<()> {
    refuse_inside("--csv", csv, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_named_and_builds_are_not_one() {
        let a = json!({"flags": {"num": 1000, "value_size": 100}, "engine": {"lsmlab": {"binary": "/a"}}, "repetitions": 3});
        let b = json!({"flags": {"num": 1000, "value_size": 400}, "engine": {"lsmlab": {"binary": "/b"}}, "repetitions": 5});
        assert_eq!(
            differ("", &a, &b).as_deref(),
            Some("flags.value_size: 100 vs 400")
        );
        let c = json!({"flags": {"num": 1000, "value_size": 100}, "engine": {"lsmlab": {"binary": "/b"}}, "repetitions": 5});
        assert_eq!(differ("", &a, &c), None, "another build and more runs");
        let d = json!({"flags": {"num": 1000}, "steps": [{"bench": "fillrandom"}]});
        let e = json!({"flags": {"num": 1000, "bloom_bits": 10}, "steps": [{"bench": "fillseq"}]});
        assert_eq!(
            differ("", &d, &e).as_deref(),
            Some("flags.bloom_bits: (none) vs 10")
        );
        let f =
            json!({"flags": {"num": 1000, "bloom_bits": 10}, "steps": [{"bench": "fillrandom"}]});
        assert_eq!(
            differ("", &f, &e).as_deref(),
            Some("steps[0].bench: \"fillrandom\" vs \"fillseq\"")
        );
    }

    #[test]
    fn a_csv_inside_an_input_is_refused_even_before_it_exists() {
        let d = tempfile::tempdir().unwrap();
        let (base, cand) = (d.path().join("base"), d.path().join("cand"));
        std::fs::create_dir_all(&base).unwrap();
        std::fs::create_dir_all(&cand).unwrap();
        let inputs = [base.as_path(), cand.as_path()];
        let e = check_csv_path(&base.join("runs.csv"), &inputs).unwrap_err();
        assert!(
            e.0.starts_with("--csv ") && e.0.contains("inside the input"),
            "{e}"
        );
        // Through `..`, and a file not there yet in a new folder of the candidate.
        let sneaky = cand.join("x/../y/new.csv");
        assert!(check_csv_path(&sneaky, &inputs).is_err());
        check_csv_path(&d.path().join("c.csv"), &inputs).unwrap();
        // A sibling whose name starts like an input's is not inside it.
        check_csv_path(&d.path().join("base2.csv"), &inputs).unwrap();
    }
}
