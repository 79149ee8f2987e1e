//! A heat map figure (`kind = "heatmap"`): the ratios of each series value to a baseline value
//! (`baseline`, default the series axis' first value), one cell per x value and series value,
//! from the paired runs of the two cells (same repetition), as compare.csv computes them. A
//! many-bar chart (15 workloads × 5 layouts) reads at a glance this way: the colour says which
//! way and how far, the mark says whether the 95 % CI excludes 1.

use super::page::sections::FigureTable;
use super::panels::{axes_of, strip_common_prefix};
use super::units::axis_label;
use crate::analyse::numbers::statistics::{paired_ratio, Ratio};
use crate::plan::matrix::Cell;
use crate::plan::spec::Figure;
use crate::run::records::results::RunRecord;
use crate::text::significant;
use std::collections::BTreeMap;

/// One heat map: a metric (on one engine, unless engine is the series), rows of x values,
/// columns of series values other than the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    /// Caption.
    pub title: String,
    /// The metric.
    pub metric: String,
    /// The x axis, as the rows are labelled (with the prefix its values share).
    pub row_label: String,
    /// Row labels (x values, without their common prefix).
    pub rows: Vec<String>,
    /// The series axis.
    pub series: String,
    /// Column labels (series values but the baseline).
    pub cols: Vec<String>,
    /// The series value every ratio divides by.
    pub baseline: String,
    /// `cells[row][col]`: the ratio, none where a cell lacks paired runs.
    pub cells: Vec<Vec<Option<Ratio>>>,
}

/// Whether a ratio's 95 % CI excludes 1.
pub fn decided(r: &Ratio) -> bool {
    r.ci_lo > 1.0 || r.ci_hi < 1.0
}

/// The value of `axis` for a run: its engine, or its cell's value.
fn key(axis: &str, engine: &str, cell: Option<&Cell>) -> String {
    if axis == "engine" {
        return engine.to_string();
    }
    cell.and_then(|c| c.get(axis)).unwrap_or("").to_string()
}

/// The values of `axis` in the plan's order.
fn values(axis: &str, engines: &[String], cells: &[Cell]) -> Vec<String> {
    if axis == "engine" {
        return engines.to_vec();
    }
    let mut out: Vec<String> = Vec::new();
    for c in cells {
        let v = c.get(axis).unwrap_or("").to_string();
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The heat maps of figure `f`: one per metric, engine (unless engine is the series) and
/// combination of the other axes.
pub fn heatmaps(
    f: &Figure,
    cells: &[Cell],
    axes: &[String],
    engines: &[String],
    records: &[RunRecord],
) -> Vec<HeatMap> {
    let (x_axis, s_axis) = axes_of(f, axes);
    let xs = values(&x_axis, engines, cells);
    let ss = values(&s_axis, engines, cells);
    let baseline = f
        .baseline
        .clone()
        .unwrap_or_else(|| ss.first().cloned().unwrap_or_default());
    let cols: Vec<String> = ss.iter().filter(|s| **s != baseline).cloned().collect();
    let rest: Vec<&String> = axes
        .iter()
        .filter(|a| **a != x_axis && **a != s_axis)
        .collect();
    // Engines apart (each its own map), named only when there are several.
    let per_engine = x_axis != "engine" && s_axis != "engine" && engines.len() > 1;
    // Every run's value of each metric, by (group, x, series) and repetition.
    type Runs = BTreeMap<u32, f64>;
    let mut by: BTreeMap<(String, String, String, String), Runs> = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == "ok") {
        let cell = cells.get(r.cell);
        let group = rest
            .iter()
            .map(|a| format!("{a}={}", key(a, &r.engine, cell)))
            .chain(per_engine.then(|| r.engine.clone()))
            .collect::<Vec<_>>()
            .join(" ");
        for m in &f.metrics {
            if let Some(v) = r.metrics.get(m) {
                let k = (
                    m.clone(),
                    group.clone(),
                    key(&x_axis, &r.engine, cell),
                    key(&s_axis, &r.engine, cell),
                );
                by.entry(k).or_default().insert(r.rep, *v);
            }
        }
    }
    let mut groups: Vec<String> = Vec::new();
    for k in by.keys() {
        if !groups.contains(&k.1) {
            groups.push(k.1.clone());
        }
    }
    let shown: Vec<String> = xs.iter().map(|x| axis_label(&x_axis, x)).collect();
    let (labels, prefix) = strip_common_prefix(&shown);
    let row_label = if prefix.is_empty() {
        x_axis.clone()
    } else {
        format!("{x_axis} ({prefix}…)")
    };
    let mut out = Vec::new();
    for m in &f.metrics {
        for g in &groups {
            let runs = |x: &str, s: &str| by.get(&(m.clone(), g.clone(), x.into(), s.into()));
            let grid: Vec<Vec<Option<Ratio>>> = xs
                .iter()
                .map(|x| {
                    cols.iter()
                        .map(|s| {
                            let (a, b) = (runs(x, s)?, runs(x, &baseline)?);
                            let reps: Vec<&u32> = a.keys().filter(|r| b.contains_key(r)).collect();
                            let av: Vec<f64> = reps.iter().map(|r| a[*r]).collect();
                            let bv: Vec<f64> = reps.iter().map(|r| b[*r]).collect();
                            paired_ratio(&av, &bv)
                        })
                        .collect()
                })
                .collect();
            if grid.iter().flatten().all(Option::is_none) {
                continue;
            }
            let mut title = format!("{}: {m}", f.title);
            if !g.is_empty() {
                title += &format!(" ({})", g.replace(' ', ", "));
            }
            out.push(HeatMap {
                title,
                metric: m.clone(),
                row_label: row_label.clone(),
                rows: labels.clone(),
                series: s_axis.clone(),
                cols: cols.iter().map(|c| axis_label(&s_axis, c)).collect(),
                baseline: baseline.clone(),
                cells: grid,
            });
        }
    }
    out
}

/// A cell as text: `0.580× * [0.510, 0.660]`, the mark when its CI excludes 1.
fn cell_text(r: &Option<Ratio>) -> String {
    let Some(r) = r else {
        return "–".into();
    };
    let mut t = format!("{}×", significant(r.ratio));
    if decided(r) {
        t += " *";
    }
    if r.ci_lo.is_finite() && r.ci_hi.is_finite() {
        t += &format!(" [{}, {}]", significant(r.ci_lo), significant(r.ci_hi));
    }
    t
}

/// The heat map as a table: a row per x value, a column per series value.
pub fn table(h: &HeatMap) -> FigureTable {
    let mut head = vec![h.row_label.clone()];
    head.extend(h.cols.iter().cloned());
    let rows = h
        .rows
        .iter()
        .zip(&h.cells)
        .map(|(label, cells)| {
            std::iter::once(label.clone())
                .chain(cells.iter().map(cell_text))
                .collect()
        })
        .collect();
    FigureTable {
        caption: format!(
            "`{}`: each cell the ratio of its {} to {}={} (geometric mean of paired runs, 95 % CI); * the CI excludes 1.",
            h.metric, h.series, h.series, h.baseline
        ),
        numbers_to: head.len(),
        head,
        rows,
        numbers_from: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::figures::metrics::Metrics;

    fn record(cell: usize, rep: u32, v: f64) -> RunRecord {
        let mut metrics = Metrics::new();
        metrics.insert("t".into(), v);
        let mut r: RunRecord = serde_json::from_str(&format!(
            "{{\"schema\":1,\"id\":\"c{cell:03}-lsmlab-r{rep}\",\"cell\":{cell},\"axes\":[],\"engine\":\"lsmlab\",\"rep\":{rep},\"order\":0,\"status\":\"ok\",\"metrics\":{{}}}}"
        ))
        .unwrap();
        r.metrics = metrics;
        r
    }

    #[test]
    fn each_cell_is_the_paired_ratio_to_the_baseline() {
        // Two workloads × three layouts; layout b takes half of a's time, c the same.
        let mut cells = Vec::new();
        for w in ["w0", "w1"] {
            for l in ["a", "b", "c"] {
                cells.push(Cell {
                    index: cells.len(),
                    values: vec![("workload".into(), w.into()), ("layout".into(), l.into())],
                });
            }
        }
        let mut records = Vec::new();
        for c in &cells {
            let base = if c.get("workload") == Some("w0") {
                10.0
            } else {
                20.0
            };
            for rep in 0..3 {
                let noise = 1.0 + 0.01 * rep as f64;
                let v = match c.get("layout") {
                    Some("b") => base * 0.5 * noise,
                    Some("c") => base * [1.0, 1.3, 0.8][rep as usize],
                    _ => base * noise,
                };
                records.push(record(c.index, rep, v));
            }
        }
        let f: Figure = toml::from_str(
            "title = \"T\"\nkind = \"heatmap\"\nmetrics = [\"t\"]\nx = \"workload\"\nseries = \"layout\"\n",
        )
        .unwrap();
        let axes = vec!["workload".to_string(), "layout".to_string()];
        let maps = heatmaps(&f, &cells, &axes, &["lsmlab".into()], &records);
        assert_eq!(maps.len(), 1);
        let h = &maps[0];
        assert_eq!(
            (h.baseline.as_str(), h.cols.clone()),
            ("a", vec!["b".to_string(), "c".into()])
        );
        assert_eq!(h.rows, ["0", "1"], "the shared prefix goes to the label");
        let b = h.cells[0][0].as_ref().unwrap();
        assert!((b.ratio - 0.5).abs() < 1e-9 && decided(b), "{b:?}");
        let c = h.cells[1][1].as_ref().unwrap();
        assert!(!decided(c), "a noisy ratio is not marked: {c:?}");
        let t = table(h);
        assert_eq!(t.head, ["workload (w…)", "b", "c"]);
        assert!(t.rows[0][1].starts_with("0.500× * ["), "{:?}", t.rows[0]);
        assert!(!t.rows[1][2].contains('*'), "{:?}", t.rows[1]);
        // Another baseline divides by its runs instead.
        let f2: Figure = toml::from_str(
            "title = \"T\"\nkind = \"heatmap\"\nmetrics = [\"t\"]\nx = \"workload\"\nseries = \"layout\"\nbaseline = \"b\"\n",
        )
        .unwrap();
        let h2 = &heatmaps(&f2, &cells, &axes, &["lsmlab".into()], &records)[0];
        assert_eq!(h2.cols, ["a", "c"]);
        assert!((h2.cells[0][0].as_ref().unwrap().ratio - 2.0).abs() < 1e-9);
    }
}
