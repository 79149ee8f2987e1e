//! From run records to `summary.csv`/`summary.json` (per cell, engine and metric) and
//! `compare.csv` (engine vs engine and variant vs variant, paired by repetition).

use crate::analyse::numbers::statistics::{describe, paired_ratio, Describe, Ratio};
use crate::plan::matrix::Cell;
use crate::run::records::results::RunRecord;
use crate::text::{csv_line, csv_number};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// CV at and above which a row is flagged as noisy.
pub const NOISY_CV: f64 = 0.10;

/// One summary row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SummaryRow {
    /// Cell index.
    pub cell: usize,
    /// Engine.
    pub engine: String,
    /// Metric.
    pub metric: String,
    /// The statistics of its runs.
    pub stats: Describe,
    /// Run ids of the flagged outliers.
    pub outlier_runs: Vec<String>,
}

/// One comparison row: `a` / `b`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CompareRow {
    /// `engine` (same cell, two engines) or `variant` (same engine, cells differing in one axis).
    pub kind: String,
    /// Metric.
    pub metric: String,
    /// Which engine or cell is the numerator (`rocksdb`, or `c003`).
    pub a: String,
    /// The denominator.
    pub b: String,
    /// Engine of a variant comparison, cell label of an engine comparison.
    pub context: String,
    /// The axis a variant comparison varies.
    pub axis: String,
    /// The ratio.
    pub ratio: Ratio,
    /// `noisy` (CV ≥ 10 % on either side), `outlier` (a flagged run on either side).
    pub flags: Vec<String>,
}

/// Values of one (cell, engine, metric) by repetition.
type Series = BTreeMap<u32, (f64, String)>;

fn series(records: &[RunRecord]) -> BTreeMap<(usize, String, String), Series> {
    let mut out: BTreeMap<(usize, String, String), Series> = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == "ok") {
        for (m, v) in &r.metrics {
            out.entry((r.cell, r.engine.clone(), m.clone()))
                .or_default()
                .insert(r.rep, (*v, r.id.clone()));
        }
    }
    out
}

/// Per cell, engine and metric.
pub fn summarize(records: &[RunRecord]) -> Vec<SummaryRow> {
    series(records)
        .into_iter()
        .filter_map(|((cell, engine, metric), s)| {
            let vals: Vec<f64> = s.values().map(|v| v.0).collect();
            let ids: Vec<String> = s.values().map(|v| v.1.clone()).collect();
            let stats = describe(&vals)?;
            let outlier_runs = stats.outliers.iter().map(|&i| ids[i].clone()).collect();
            Some(SummaryRow {
                cell,
                engine,
                metric,
                stats,
                outlier_runs,
            })
        })
        .collect()
}

fn flags_of(
    summary: &BTreeMap<(usize, String, String), &SummaryRow>,
    keys: [(usize, &str); 2],
    metric: &str,
) -> Vec<String> {
    let mut f = BTreeSet::new();
    for (cell, engine) in keys {
        if let Some(row) = summary.get(&(cell, engine.to_string(), metric.to_string())) {
            if row.stats.cv >= NOISY_CV {
                f.insert("noisy".to_string());
            }
            if !row.outlier_runs.is_empty() {
                f.insert("outlier".to_string());
            }
        }
    }
    f.into_iter().collect()
}

fn paired(a: &Series, b: &Series) -> Option<Ratio> {
    let reps: Vec<u32> = a.keys().filter(|r| b.contains_key(r)).copied().collect();
    let x: Vec<f64> = reps.iter().map(|r| a[r].0).collect();
    let y: Vec<f64> = reps.iter().map(|r| b[r].0).collect();
    paired_ratio(&x, &y)
}

/// Engine vs the first engine in every cell, and each variant vs the first value of its axis
/// (only the axes `compare_axes` names, when given).
pub fn compare(
    records: &[RunRecord],
    cells: &[Cell],
    engines: &[String],
    rows: &[SummaryRow],
    compare_axes: Option<&[String]>,
) -> Vec<CompareRow> {
    let s = series(records);
    let summary: BTreeMap<(usize, String, String), &SummaryRow> = rows
        .iter()
        .map(|r| ((r.cell, r.engine.clone(), r.metric.clone()), r))
        .collect();
    let metrics: BTreeSet<String> = s.keys().map(|k| k.2.clone()).collect();
    let mut out = Vec::new();
    if let Some(base) = engines.first() {
        for c in cells {
            for e in engines.iter().skip(1) {
                for m in &metrics {
                    let (Some(a), Some(b)) = (
                        s.get(&(c.index, e.clone(), m.clone())),
                        s.get(&(c.index, base.clone(), m.clone())),
                    ) else {
                        continue;
                    };
                    if let Some(ratio) = paired(a, b) {
                        out.push(CompareRow {
                            kind: "engine".into(),
                            metric: m.clone(),
                            a: e.clone(),
                            b: base.clone(),
                            context: c.label(),
                            axis: String::new(),
                            ratio,
                            flags: flags_of(&summary, [(c.index, e), (c.index, base)], m),
                        });
                    }
                }
            }
        }
    }
    // Variant vs variant: cells equal but for one axis, against that axis's first value.
    let axes: Vec<String> = cells
        .first()
        .map(|c| c.values.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    for (ai, axis) in axes.iter().enumerate() {
        if compare_axes.is_some_and(|c| !c.contains(axis)) {
            continue;
        }
        let first = cells
            .first()
            .map(|c| c.values[ai].1.clone())
            .unwrap_or_default();
        for c in cells.iter().filter(|c| c.values[ai].1 != first) {
            let Some(base) = cells.iter().find(|b| {
                b.values[ai].1 == first
                    && b.values
                        .iter()
                        .zip(&c.values)
                        .enumerate()
                        .all(|(j, (x, y))| j == ai || x == y)
            }) else {
                continue;
            };
            for e in engines {
                for m in &metrics {
                    let (Some(a), Some(b)) = (
                        s.get(&(c.index, e.clone(), m.clone())),
                        s.get(&(base.index, e.clone(), m.clone())),
                    ) else {
                        continue;
                    };
                    if let Some(ratio) = paired(a, b) {
                        out.push(CompareRow {
                            kind: "variant".into(),
                            metric: m.clone(),
                            a: c.id(),
                            b: base.id(),
                            context: e.clone(),
                            axis: format!("{axis}: {} vs {first}", c.values[ai].1),
                            ratio,
                            flags: flags_of(&summary, [(c.index, e), (base.index, e)], m),
                        });
                    }
                }
            }
        }
    }
    out
}

/// Higher is better for throughput-like metrics; lower for latency, amplification, size, FPR.
pub fn higher_is_better(metric: &str) -> bool {
    metric.contains("ops_per_sec")
        || metric.contains("mb_per_sec")
        || metric.contains("found_fraction")
}

/// `summary.csv`.
pub fn summary_csv(rows: &[SummaryRow], cells: &[Cell]) -> String {
    let axes: Vec<String> = cells
        .first()
        .map(|c| c.values.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut header: Vec<String> = vec!["cell".into(), "engine".into()];
    header.extend(axes.iter().cloned());
    for h in [
        "metric", "n", "mean", "sd", "cv", "estimate", "interval", "ci95_lo", "ci95_hi", "median",
        "min", "max", "outliers",
    ] {
        header.push(h.into());
    }
    let mut out = csv_line(&header) + "\n";
    for r in rows {
        let mut row = vec![format!("c{:03}", r.cell), r.engine.clone()];
        for a in &axes {
            row.push(
                cells
                    .get(r.cell)
                    .and_then(|c| c.get(a))
                    .unwrap_or("")
                    .to_string(),
            );
        }
        let d = &r.stats;
        row.push(r.metric.clone());
        row.push(d.n.to_string());
        for x in [d.mean, d.sd, d.cv, d.estimate] {
            row.push(csv_number(x));
        }
        row.push(d.interval.name().to_string());
        for x in [d.ci_lo, d.ci_hi, d.median, d.min, d.max] {
            row.push(csv_number(x));
        }
        row.push(r.outlier_runs.join(" "));
        out.push_str(&csv_line(&row));
        out.push('\n');
    }
    out
}

/// `compare.csv`.
pub fn compare_csv(rows: &[CompareRow]) -> String {
    let mut out = "kind,metric,a,b,context,axis,n,ratio,ci95_lo,ci95_hi,p,flags\n".to_string();
    for r in rows {
        out.push_str(&csv_line(&[
            r.kind.clone(),
            r.metric.clone(),
            r.a.clone(),
            r.b.clone(),
            r.context.clone(),
            r.axis.clone(),
            r.ratio.n.to_string(),
            csv_number(r.ratio.ratio),
            csv_number(r.ratio.ci_lo),
            csv_number(r.ratio.ci_hi),
            csv_number(r.ratio.p),
            r.flags.join(" "),
        ]));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(cell: usize, axes: &[(&str, &str)], engine: &str, rep: u32, v: f64) -> RunRecord {
        let axes = axes
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        RunRecord::ok_for_test(cell, axes, engine, rep, "x.ops_per_sec", v)
    }

    #[test]
    fn engines_and_variants_compare_paired_by_repetition() {
        let cells = vec![
            Cell {
                index: 0,
                values: vec![("bits".into(), "5".into())],
            },
            Cell {
                index: 1,
                values: vec![("bits".into(), "10".into())],
            },
        ];
        let mut rs = Vec::new();
        for rep in 0..3 {
            let drift = 1.0 + rep as f64;
            rs.push(rec(0, &[("bits", "5")], "lsmlab", rep, 100.0 * drift));
            rs.push(rec(0, &[("bits", "5")], "rocksdb", rep, 200.0 * drift));
            rs.push(rec(1, &[("bits", "10")], "lsmlab", rep, 150.0 * drift));
        }
        let engines = vec!["lsmlab".to_string(), "rocksdb".to_string()];
        let summary = summarize(&rs);
        assert_eq!(summary.len(), 3);
        let cmp = compare(&rs, &cells, &engines, &summary, None);
        assert!(compare(&rs, &cells, &engines, &summary, Some(&[]))
            .iter()
            .all(|r| r.kind == "engine"));
        let e = cmp.iter().find(|r| r.kind == "engine").unwrap();
        // Drift cancels in the pairs: exactly 2 with no spread, though each side's CV is large.
        assert!((e.ratio.ratio - 2.0).abs() < 1e-12 && (e.ratio.ci_hi - 2.0).abs() < 1e-9);
        assert_eq!(e.flags, ["noisy"]);
        assert_eq!((e.a.as_str(), e.b.as_str()), ("rocksdb", "lsmlab"));
        let v = cmp.iter().find(|r| r.kind == "variant").unwrap();
        assert!((v.ratio.ratio - 1.5).abs() < 1e-12);
        assert_eq!(v.axis, "bits: 10 vs 5");
        assert_eq!(v.context, "lsmlab");
        let csv = compare_csv(&cmp);
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("engine,x.ops_per_sec,rocksdb,lsmlab,bits=5,,3,2.000000"));
        let s = summary_csv(&summary, &cells);
        assert!(s.starts_with("cell,engine,bits,metric,n,mean"));
        assert!(s.contains("c001,lsmlab,10,x.ops_per_sec,3,300.000000"));
    }

    #[test]
    fn direction_of_metrics() {
        assert!(higher_is_better("readrandom.ops_per_sec"));
        assert!(!higher_is_better("readrandom.p99_us"));
        assert!(!higher_is_better("fillrandom.write_amp"));
    }
}
