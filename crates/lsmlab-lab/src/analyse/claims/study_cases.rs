//! Data-driven tests of the analyse stage, in the style of the engine's `compaction/testdata`:
//! each folder under `analyse/claims/testdata/` is a small study without an engine — `plan.toml` (a
//! plan, with its claims and figures) and `runs.csv` (the runs, in the format `lsmlab run`
//! writes) — and `expected.txt`, what the analysis makes of them: `claims.csv` under a
//! `claims` line, then the findings under a `findings` line (`## TITLE`, then `- ITEM` lines).
//!
//! `runs.csv` may hold `#` comment lines; its fields are never quoted. With
//! `LSMLAB_REWRITE=1` in the environment the test writes `expected.txt` from what the code
//! gives instead of comparing: review the diff before committing it.

use super::verdicts::{claims_csv, evaluate};
use crate::analyse::comparisons::findings::{findings, metrics_of, Sources};
use crate::analyse::comparisons::summary::{compare, summarize};
use crate::plan::matrix::{expand, RunKey};
use crate::plan::spec::Plan;
use crate::run::records::results::RunRecord;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The runs of `runs.csv`: one record per run id, every metric of its rows.
fn read_runs(path: &Path, text: &str) -> Vec<RunRecord> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let (_, header) = lines.next().expect("runs.csv: a header line");
    let header: Vec<&str> = header.split(',').collect();
    let fixed = ["schema_version", "run", "cell", "engine", "rep", "order"];
    assert_eq!(header[..6], fixed, "{}: header", path.display());
    assert_eq!(header[header.len() - 2..], ["metric", "value"]);
    // Schema 2 has the run's outside load before the axes.
    let first_axis = if header.get(6..8) == Some(&["outside_cpu_pct", "steal_pct"][..]) {
        8
    } else {
        6
    };
    let axes = &header[first_axis..header.len() - 2];
    let mut runs: BTreeMap<String, RunRecord> = BTreeMap::new();
    for (i, line) in lines {
        let at = || format!("{}:{}", path.display(), i + 1);
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), header.len(), "{}: fields", at());
        let num = |s: &str| {
            s.parse::<usize>()
                .unwrap_or_else(|_| panic!("{}: {s:?}", at()))
        };
        let key = RunKey {
            cell: num(f[2]),
            engine: f[3].to_string(),
            rep: num(f[4]) as u32,
        };
        assert_eq!(key.id(), f[1], "{}: run id", at());
        let values: Vec<(String, String)> = axes
            .iter()
            .zip(&f[first_axis..f.len() - 2])
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect();
        let value: f64 = f[f.len() - 1]
            .parse()
            .unwrap_or_else(|_| panic!("{}: value", at()));
        runs.entry(key.id())
            .or_insert_with(|| RunRecord::starting(&key, values, num(f[5])))
            .metrics
            .insert(f[f.len() - 2].to_string(), value);
    }
    runs.into_values().collect()
}

/// What the analysis makes of one case folder.
fn analyse(dir: &Path) -> String {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()))
    };
    let plan = Plan::parse(&read("plan.toml")).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let cells = expand(&plan);
    let axes: Vec<String> = plan.matrix.keys().cloned().collect();
    let records = read_runs(&dir.join("runs.csv"), &read("runs.csv"));
    for r in &records {
        let cell = cells.get(r.cell).expect("runs.csv: a cell of the plan");
        assert_eq!(cell.values, r.axes, "{}: axes of {}", dir.display(), r.id);
    }
    let engines = plan.engines.clone();
    let summary = summarize(&records);
    let ratios = compare(
        &records,
        &cells,
        &engines,
        &summary,
        plan.compare.as_deref(),
    );
    let outcomes = evaluate(&plan.claim, &cells, &engines, &records);
    let mut out = String::from("claims\n");
    out += &claims_csv(&plan.claim, &outcomes);
    out += "findings\n";
    let sources = Sources {
        cells: &cells,
        axes: &axes,
        compare_axes: plan.compare.clone().unwrap_or_else(|| axes.clone()),
        engines,
        metrics: metrics_of(&plan),
        summary: &summary,
        compare: &ratios,
        crossovers: Vec::new(),
        engine_notes: Vec::new(),
    };
    for s in findings(&sources) {
        let _ = writeln!(out, "## {}", s.title);
        for item in s.items {
            let _ = writeln!(out, "- {item}");
        }
    }
    out
}

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analyse/claims/testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.expect("testdata entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn testdata_cases() {
    let rewrite = std::env::var_os("LSMLAB_REWRITE").is_some();
    let mut all = String::new();
    for dir in cases() {
        let got = analyse(&dir);
        let path = dir.join("expected.txt");
        if rewrite {
            std::fs::write(&path, &got).expect("write expected.txt");
        }
        let want =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            got,
            want,
            "{}: the analysis differs from expected.txt",
            dir.display()
        );
        all += &got;
    }
    // The cases together keep every verdict and every relation covered.
    for verdict in [
        "reproduced",
        "not reproduced",
        "reversed",
        "inconclusive",
        "n/a",
    ] {
        assert!(
            all.contains(&format!(",{verdict},")),
            "no case has the verdict {verdict}"
        );
    }
    for relation in [" > ", " < ", " ≈ ", " crosses "] {
        assert!(all.contains(relation), "no claim with {relation:?}");
    }
}
