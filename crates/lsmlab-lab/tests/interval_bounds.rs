//! No interval of a metric that cannot be negative reaches below 0, in any output: for each seed
//! plan at its quick scale, synthetic runs of every metric its steps produce (all zeros, zeros
//! mixed with positive values, tiny n, values spread over orders of magnitude) go through the
//! real `lsmlab report` writer, and summary.csv, summary.json, claims.csv and the figures' points
//! are read back.

use lsmlab_lab::analyse::comparisons::summary::{summarize, SummaryRow};
use lsmlab_lab::commands::finish;
use lsmlab_lab::plan::matrix::{expand, RunKey};
use lsmlab_lab::plan::spec::Plan;
use lsmlab_lab::plan::vocabulary;
use lsmlab_lab::render::panels::panels;
use lsmlab_lab::run::records::expanded::{EngineRecord, Expanded};
use lsmlab_lab::run::records::results::{load_all, RunRecord};
use std::path::Path;

const REPETITIONS: u32 = 3;

/// The value of metric number `k` in repetition `rep` of cell `cell`, or none (the run lacks it).
fn value(k: usize, cell: usize, rep: u32) -> Option<f64> {
    let scale = (1 + k % 7) as f64;
    match k % 6 {
        // Nothing flushed or compacted in any run.
        0 => Some(0.0),
        // Some runs compact, some do not: the compact_write_mb [−8.9, 20.2].
        1 => Some(if (rep as usize + cell).is_multiple_of(3) {
            20.0 * scale
        } else {
            0.0
        }),
        // A noisy positive figure: Student's t reaches below 0.
        2 => Some([2000.0, 40000.0, 90000.0][rep as usize % 3] * scale),
        // One run only.
        3 => (rep == 0).then_some(scale),
        // Two runs, one of them 0.
        4 => (rep < 2).then_some(if rep == 0 { 0.0 } else { 5.0 * scale }),
        // Positive, over nine orders of magnitude.
        _ => Some([1e-6, 1.0, 1e3][rep as usize % 3]),
    }
}

fn write_study(dir: &Path, plan_path: &Path) -> Vec<String> {
    let (plan, text) = Plan::load(plan_path).unwrap();
    let mut plan = plan.scaled(Some("quick"));
    plan.repetitions = REPETITIONS;
    let cells = expand(&plan);
    let metrics = vocabulary::metrics(&plan).0;
    let engines: Vec<String> = plan
        .engines
        .iter()
        .chain(&plan.optional_engines)
        .cloned()
        .collect();
    let mut order = Vec::new();
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    for cell in &cells {
        for engine in &engines {
            for rep in 0..REPETITIONS {
                let key = RunKey {
                    cell: cell.index,
                    engine: engine.clone(),
                    rep,
                };
                let mut r = RunRecord::starting(&key, cell.values.clone(), order.len());
                for (k, m) in metrics.iter().enumerate() {
                    if let Some(v) = value(k, cell.index, rep) {
                        r.metrics.insert(m.clone(), v);
                    }
                }
                let run = dir.join("runs").join(key.id());
                std::fs::create_dir_all(&run).unwrap();
                std::fs::write(run.join("result.json"), serde_json::to_string(&r).unwrap())
                    .unwrap();
                order.push(key.id());
            }
        }
    }
    plan.engines = engines.clone();
    plan.optional_engines.clear();
    let expanded = Expanded {
        plan_hash: "test".into(),
        title: plan.title.clone(),
        scale: Some("quick".into()),
        seed: 1,
        repetitions: REPETITIONS,
        engines: engines
            .iter()
            .map(|e| EngineRecord {
                name: e.clone(),
                binary: "none".into(),
            })
            .collect(),
        axes: plan.matrix.keys().cloned().collect(),
        cells,
        shard: None,
        order,
        plan,
        plan_dir: String::new(),
    };
    std::fs::write(dir.join("plan.toml"), text).unwrap();
    std::fs::write(
        dir.join("plan.json"),
        serde_json::to_string(&expanded).unwrap(),
    )
    .unwrap();
    metrics
}

/// Every lower bound of a CSV file's `lo` columns: (line, column, value).
fn csv_lows(text: &str, columns: &[&str]) -> Vec<(usize, String, f64)> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at: Vec<usize> = columns
        .iter()
        .map(|c| header.iter().position(|h| h == c).unwrap())
        .collect();
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        // Quoted fields (claims' texts) hold commas: read the row from its end when needed.
        let f: Vec<&str> = line.split(',').collect();
        for (&j, c) in at.iter().zip(columns) {
            let field = if f.len() == header.len() {
                f[j]
            } else {
                continue;
            };
            if !field.is_empty() {
                out.push((i + 2, c.to_string(), field.parse().unwrap()));
            }
        }
    }
    out
}

fn json_lows(v: &serde_json::Value, out: &mut Vec<(String, f64)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if k.ends_with("lo") {
                    if let Some(f) = x.as_f64() {
                        out.push((k.clone(), f));
                    }
                }
                json_lows(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_lows(x, out)),
        _ => {}
    }
}

#[test]
fn seed_plans_show_no_interval_below_zero() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    for seed in 0..5 {
        let plan = root.join(format!("seed00{seed}.toml"));
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let metrics = write_study(dir, &plan);
        finish(dir).unwrap_or_else(|e| panic!("{}: {e}", plan.display()));

        let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
        let lows = csv_lows(&summary, &["ci95_lo", "estimate", "ci95_hi"]);
        assert!(
            lows.len() > metrics.len(),
            "seed {seed}: {} bounds",
            lows.len()
        );
        for (line, col, v) in &lows {
            assert!(*v >= 0.0, "seed {seed}: summary.csv:{line} {col} = {v}");
        }
        // Each kind of metric got the interval meant for it.
        for (want, kind) in [(0, "bootstrap"), (1, "bootstrap"), (2, "geometric")] {
            let m = &metrics[want];
            assert!(
                summary
                    .lines()
                    .any(|l| l.contains(&format!(",{m},")) && l.contains(&format!(",{kind},"))),
                "seed {seed}: {m} is not {kind}"
            );
        }

        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        let mut lows = Vec::new();
        json_lows(&json, &mut lows);
        assert!(!lows.is_empty());
        for (k, v) in &lows {
            assert!(*v >= 0.0, "seed {seed}: summary.json {k} = {v}");
        }

        if let Ok(claims) = std::fs::read_to_string(dir.join("claims.csv")) {
            for (line, col, v) in csv_lows(&claims, &["ci95_lo"]) {
                assert!(v >= 0.0, "seed {seed}: claims.csv:{line} {col} = {v}");
            }
        }

        // The rows the report drew from (summary.json writes n/a as null, which is no f64).
        let rows: Vec<SummaryRow> = summarize(&load_all(dir).unwrap());
        let x: Expanded =
            serde_json::from_str(&std::fs::read_to_string(dir.join("plan.json")).unwrap()).unwrap();
        let mut points = 0;
        for f in x.plan.figure.iter().filter(|f| f.kind != "timeseries") {
            for p in panels(f, &rows, &x.cells, &x.axes) {
                for s in &p.chart.series {
                    for pt in &s.points {
                        points += 1;
                        assert!(
                            (pt.lo.is_nan() || pt.lo >= 0.0) && pt.y >= 0.0,
                            "seed {seed}: figure {:?} {} at x={}: [{}, {}]",
                            f.title,
                            s.name,
                            pt.x,
                            pt.lo,
                            pt.hi
                        );
                    }
                }
            }
        }
        assert!(points > 0, "seed {seed}: no figure drawn");
    }
}
