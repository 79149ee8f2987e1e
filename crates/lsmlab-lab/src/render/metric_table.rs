//! A table figure (`kind = "table"`): one table with a row per point (the other axes, x,
//! series, engine) and a column per metric, each cell the metric's mean and 95 % CI, so a
//! figure of four metrics reads as one table rather than one per metric and engine.

use super::page::sections::FigureTable;
use super::panels::{point_of, strip_common_prefix, Panel};
use super::units::axis_label;
use crate::analyse::comparisons::summary::NOISY_CV;
use crate::text::significant;

/// The table of a figure whose panels are `panels` (one or more per metric), with the figure's
/// `x` and `series` axes.
pub fn metric_table(x_axis: &str, series_axis: &str, panels: &[Panel]) -> FigureTable {
    let mut metrics: Vec<&str> = Vec::new();
    // Rows keyed by (other axes, x, series, engine), in the order they first appear.
    let mut keys: Vec<[String; 4]> = Vec::new();
    for p in panels {
        if !metrics.contains(&p.metric.as_str()) {
            metrics.push(&p.metric);
        }
        for t in &p.table {
            let k = [
                t.rest.clone(),
                t.x.clone(),
                t.series.clone(),
                t.engine.clone(),
            ];
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let with_rest = keys.iter().any(|k| !k[0].is_empty());
    let with_series = !series_axis.is_empty() && series_axis != "engine" && series_axis != x_axis;
    let one_engine = keys.iter().all(|k| k[3] == keys[0][3]);
    let with_engine = x_axis != "engine" && !one_engine;
    // The x values and the metrics lose the prefix they all share, said once above the table.
    let xs: Vec<String> = keys.iter().map(|k| axis_label(x_axis, &k[1])).collect();
    let (xs, x_prefix) = strip_common_prefix(&xs);
    let (heads, step) = common_step(&metrics);
    let mut head = Vec::new();
    if with_rest {
        head.push("other axes".to_string());
    }
    head.push(if x_prefix.is_empty() {
        x_axis.to_string()
    } else {
        format!("{x_axis} ({x_prefix}…)")
    });
    if with_series {
        head.push(series_axis.to_string());
    }
    if with_engine {
        head.push("engine".to_string());
    }
    let numbers_from = head.len();
    head.push("n".to_string());
    head.extend(heads);
    let (mut noisy, mut outliers) = (false, false);
    let mut rows = Vec::new();
    for (k, x) in keys.iter().zip(xs) {
        let mut row = Vec::new();
        if with_rest {
            row.push(k[0].clone());
        }
        row.push(x);
        if with_series {
            row.push(k[2].clone());
        }
        if with_engine {
            row.push(k[3].clone());
        }
        let mut n = None;
        let mut cells = Vec::new();
        for m in &metrics {
            let found = panels
                .iter()
                .filter(|p| p.metric == *m)
                .flat_map(|p| p.table.iter())
                .find(|t| [&t.rest, &t.x, &t.series, &t.engine] == [&k[0], &k[1], &k[2], &k[3]]);
            let Some(t) = found else {
                cells.push("–".to_string());
                continue;
            };
            let d = &t.row.stats;
            let n_here = *n.get_or_insert(d.n);
            let (y, lo, hi) = point_of(d);
            let mut text = significant(y);
            if d.n != n_here {
                text += &format!(" (n={})", d.n);
            }
            if d.cv >= NOISY_CV {
                text += " ~";
                noisy = true;
            }
            if !t.row.outlier_runs.is_empty() {
                text += " !";
                outliers = true;
            }
            if lo.is_finite() && hi.is_finite() {
                text += &format!(" [{}, {}]", significant(lo), significant(hi));
            }
            cells.push(text);
        }
        row.push(n.map(|n| n.to_string()).unwrap_or_default());
        row.extend(cells);
        rows.push(row);
    }
    // One n for the whole table goes above it.
    let n_col = numbers_from;
    let one_n = rows.iter().all(|r| r[n_col] == rows[0][n_col]);
    let mut caption = "Each cell: the mean and its 95 % CI".to_string();
    if one_n && !rows.is_empty() {
        caption += &format!(" of {} runs", rows[0][n_col]);
        head.remove(n_col);
        for r in &mut rows {
            r.remove(n_col);
        }
    }
    if !step.is_empty() {
        caption += &format!("; metrics of `{step}`");
    }
    if noisy {
        caption += &format!("; ~ CV ≥ {:.0} %", NOISY_CV * 100.0);
    }
    if outliers {
        caption += "; ! a run flagged as an outlier (kept in every number; summary.csv names it)";
    }
    caption.push('.');
    FigureTable {
        caption,
        numbers_to: head.len(),
        head,
        rows,
        numbers_from,
    }
}

/// The metrics without the step they all share (`run.sim.read_amp`, `run.compact_write_mb` →
/// `sim.read_amp`, `compact_write_mb` and `run`); as they are when they share none or are one.
fn common_step(metrics: &[&str]) -> (Vec<String>, String) {
    let step = metrics
        .first()
        .and_then(|m| m.split_once('.'))
        .map(|(s, _)| s)
        .unwrap_or("");
    let shared = !step.is_empty()
        && metrics.len() > 1
        && metrics.iter().all(|m| {
            m.strip_prefix(step)
                .is_some_and(|r| r.len() > 1 && r.starts_with('.'))
        });
    if !shared {
        return (
            metrics.iter().map(|m| m.to_string()).collect(),
            String::new(),
        );
    }
    (
        metrics
            .iter()
            .map(|m| m[step.len() + 1..].to_string())
            .collect(),
        step.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::comparisons::summary::SummaryRow;
    use crate::analyse::numbers::statistics::describe;
    use crate::plan::matrix::Cell;
    use crate::plan::spec::Figure;
    use crate::render::panels::panels;

    #[test]
    fn metrics_are_columns_and_each_point_one_row() {
        let cells: Vec<Cell> = ["false", "true"]
            .iter()
            .enumerate()
            .map(|(i, v)| Cell {
                index: i,
                values: vec![("ribbon".into(), v.to_string())],
            })
            .collect();
        let mut summary = Vec::new();
        for c in &cells {
            for e in ["lsmlab", "rocksdb"] {
                for (m, v) in [("a", 10.0), ("b", 2.0), ("c", 0.5)] {
                    summary.push(SummaryRow {
                        cell: c.index,
                        engine: e.into(),
                        metric: m.into(),
                        stats: describe(&[v, v * 1.01, v * 0.99]).unwrap(),
                        outlier_runs: Vec::new(),
                    });
                }
            }
        }
        let f: Figure = toml::from_str(
            "title = \"t\"\nkind = \"table\"\nmetrics = [\"a\", \"b\", \"c\"]\nx = \"ribbon\"\n",
        )
        .unwrap();
        let p = panels(&f, &summary, &cells, &["ribbon".to_string()]);
        let t = metric_table("ribbon", "engine", &p);
        assert_eq!(t.head, ["ribbon", "engine", "a", "b", "c"]);
        assert!(t.caption.contains("of 3 runs"), "{}", t.caption);
        assert_eq!(t.rows.len(), 4, "2 settings × 2 engines");
        assert_eq!(t.rows[0][..2], ["false", "lsmlab"]);
        assert!(t.rows[0][2].starts_with("10.0"), "{:?}", t.rows[0]);
        assert!(t.rows[0][2].contains(" ["), "the CI follows the mean");
        assert!(t.rows[0][4].starts_with("0.500 ["), "{:?}", t.rows[0]);
        assert_eq!(t.numbers_from, 2);
    }

    #[test]
    fn a_step_all_metrics_share_is_said_once() {
        let (heads, step) = common_step(&["run.sim.read_amp", "run.compact_write_mb"]);
        assert_eq!(
            (heads, step.as_str()),
            (
                vec!["sim.read_amp".to_string(), "compact_write_mb".into()],
                "run"
            )
        );
        let (heads, step) = common_step(&["fill.ops", "db_size_mb"]);
        assert_eq!(
            (heads, step.as_str()),
            (vec!["fill.ops".to_string(), "db_size_mb".into()], "")
        );
    }
}
