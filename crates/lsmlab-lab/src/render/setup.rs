//! The report's setup table: what ran (scale, repetitions, engines and their versions, matrix,
//! steps, flags, shards, load, when) and on what machine.

use crate::plan::spec::step_label;
use crate::run::measure::environment::Environment;
use crate::run::records::expanded::Expanded;
use crate::run::records::merge::MergeRecord;
use crate::run::records::results::RunRecord;
use crate::text::value_text;
use std::path::Path;

/// The setup table's rows, the study's first and the machine's after.
pub fn setup_rows(
    dir: &Path,
    x: &Expanded,
    env: &Environment,
    records: &[RunRecord],
) -> Vec<(String, String)> {
    let mut setup = study_rows(x, env, records);
    setup.extend(merge_row(dir));
    setup.extend(crate::run::records::sequential::setup_row(dir));
    setup.extend(missing_row(dir, x, records));
    setup.extend(load_row(x, records));
    setup.extend(time_rows(env, records));
    setup.extend(machine_rows(env));
    setup
}

/// Scale, repetitions, runs, order, engines, matrix, steps and flags.
fn study_rows(x: &Expanded, env: &Environment, records: &[RunRecord]) -> Vec<(String, String)> {
    let plan = &x.plan;
    let ok = records.iter().filter(|r| r.status == "ok").count();
    let failed = records.iter().filter(|r| r.status != "ok").count();
    let versions: Vec<String> = x
        .engines
        .iter()
        .map(|e| {
            let printed = records
                .iter()
                .find(|r| r.engine == e.name && !r.engine_version.is_empty())
                .map(|r| r.engine_version.clone());
            let warning = engine_notes(x, records)
                .into_iter()
                .find(|(n, _)| *n == e.name)
                .map(|(_, w)| format!(" — WARNING: {w} (not a release build)"))
                .unwrap_or_default();
            format!(
                "{}: {} ({}){warning}",
                e.name,
                printed
                    .or_else(|| env.engines.get(&e.name).cloned())
                    .unwrap_or_default(),
                e.binary
            )
        })
        .collect();
    let flags: Vec<String> = plan
        .flags
        .iter()
        .map(|(k, v)| format!("--{k}={}", value_text(v)))
        .collect();
    vec![
        (
            "scale".into(),
            x.scale.clone().unwrap_or_else(|| "(none)".into()),
        ),
        ("repetitions".into(), x.repetitions.to_string()),
        ("runs".into(), format!("{ok} finished, {failed} failed")),
        (
            "order".into(),
            format!("shuffled within each repetition, seed {}", x.seed),
        ),
        ("engines".into(), versions.join("; ")),
        (
            "matrix".into(),
            if x.axes.is_empty() {
                "(none)".into()
            } else {
                plan.matrix
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            },
        ),
        (
            "steps".into(),
            plan.steps
                .iter()
                .enumerate()
                .map(|(i, s)| step_label(s, i))
                .collect::<Vec<_>>()
                .join(" → "),
        ),
        ("flags".into(), flags.join(" ")),
    ]
}

/// The plan's runs that have no record, when `report --allow-missing` draws without them (a
/// merged study names its own in the shards row).
fn missing_row(dir: &Path, x: &Expanded, records: &[RunRecord]) -> Option<(String, String)> {
    if dir.join("merge.json").is_file() {
        return None;
    }
    let present: std::collections::BTreeSet<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let missing: Vec<&str> = x
        .order
        .iter()
        .map(String::as_str)
        .filter(|id| !present.contains(id))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some((
        "missing runs".into(),
        format!(
            "{} of {} runs of the plan missing (drawn with --allow-missing): {}",
            missing.len(),
            x.order.len(),
            missing.join(", ")
        ),
    ))
}

/// A merged study says how it was split, and what it lacks (`lsmlab merge`).
fn merge_row(dir: &Path) -> Option<(String, String)> {
    let m = std::fs::read_to_string(dir.join("merge.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<MergeRecord>(&t).ok())?;
    Some((
        "shards".into(),
        format!(
            "merged from {} of {} shards, run on {} machine{}{}",
            m.dirs.len(),
            m.shards,
            m.machines,
            if m.machines == 1 { "" } else { "s" },
            if m.missing.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} runs missing (merged with --allow-missing): {}",
                    m.missing.len(),
                    m.missing.join(", ")
                )
            }
        ),
    ))
}

/// How the load was built, when the plan has one.
fn load_row(x: &Expanded, records: &[RunRecord]) -> Option<(String, String)> {
    let l = x.plan.load.as_ref()?;
    let loads: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r.load.as_str())
        .filter(|k| !k.is_empty())
        .collect();
    Some((
        "load".into(),
            format!(
                "steps 0 to {} built once per distinct load ({} loads, in loads/){}; each run starts from a copy of its load and its figures are those of the later steps",
                l.steps - 1,
                loads.len(),
                if l.skip_axes.is_empty() {
                    String::new()
                } else {
                    format!(", leaving out {}", l.skip_axes.join(", "))
                }
            ),
    ))
}

/// When the runs ran, and how busy the machine was.
fn time_rows(env: &Environment, records: &[RunRecord]) -> Vec<(String, String)> {
    let mut setup = Vec::new();
    let starts: Vec<&str> = records
        .iter()
        .map(|r| r.started.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let ends: Vec<&str> = records
        .iter()
        .map(|r| r.ended.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    if let (Some(a), Some(b)) = (starts.iter().min(), ends.iter().max()) {
        setup.push((
            "time (UTC)".into(),
            format!("first run started {a}, last ended {b}"),
        ));
    }
    let loads: Vec<f64> = records
        .iter()
        .filter_map(|r| r.load_average)
        .flat_map(|(a, b)| [a, b])
        .collect();
    if !loads.is_empty() {
        let (lo, hi) = loads
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(*v), h.max(*v)));
        // The load average counts the study's own threads too: the outside load below, not
        // this, tells a shared machine from a busy study.
        setup.push((
            "load average".into(),
            format!(
                "{lo:.2} to {hi:.2} at the runs' starts and ends ({} cores)",
                env.cores
            ),
        ));
    }
    let outside: Vec<_> = records.iter().filter_map(|r| r.outside_load).collect();
    if let Some(line) = crate::run::measure::outside_load::summary(&outside) {
        setup.push(("outside load".into(), line));
    }
    let waits: Vec<_> = records.iter().filter_map(|r| r.quiet_wait).collect();
    if let Some(line) = crate::run::measure::quiet_device::summary(&waits) {
        setup.push(("quiet device".into(), line));
    }
    setup
}

/// The machine.
fn machine_rows(env: &Environment) -> Vec<(String, String)> {
    vec![
        ("host".into(), env.hostname.clone()),
        (
            "CPU".into(),
            format!("{} ({} logical cores)", env.cpu_model, env.cores),
        ),
        (
            "memory".into(),
            format!("{:.1} GiB", env.memory_bytes as f64 / (1u64 << 30) as f64),
        ),
        ("kernel".into(), env.kernel.clone()),
        (
            "governor".into(),
            if env.governor.is_empty() {
                "(not exposed)".into()
            } else {
                env.governor.clone()
            },
        ),
        ("DB file system".into(), env.db_filesystem.clone()),
        (
            "lsmlab".into(),
            format!(
                "{} (git {})",
                env.lsmlab_version,
                if env.git_commit.is_empty() {
                    "unknown"
                } else {
                    &env.git_commit
                }
            ),
        ),
    ]
}

/// Notes that go wherever an engine's figures appear: what its output warned makes it slow
/// (a db_bench built with assertions, or without optimization).
pub fn engine_notes(x: &Expanded, records: &[RunRecord]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in &x.engines {
        let mut warned: Vec<&str> = Vec::new();
        for r in records.iter().filter(|r| r.engine == e.name) {
            for w in &r.slow_build {
                if !warned.contains(&w.as_str()) {
                    warned.push(w);
                }
            }
        }
        if !warned.is_empty() {
            out.push((
                e.name.clone(),
                format!("{}: its timings are slow", warned.join(", ")),
            ));
        }
    }
    out
}
