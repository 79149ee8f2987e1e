//! From the summary to the figures a plan names: one chart per metric and per combination of
//! the axes that are neither on x nor the series, with the table of the same numbers.

use super::analysis::SummaryRow;
use super::matrix::Cell;
use super::plan::Figure;
use super::plots::{Chart, Point, Series};
use std::collections::BTreeMap;
use std::path::Path;

/// A row of a figure's table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// The other axes' values.
    pub rest: String,
    /// The x value.
    pub x: String,
    /// The series value.
    pub series: String,
    /// The summary row.
    pub row: SummaryRow,
}

/// One drawn panel of a figure.
#[derive(Debug, Clone)]
pub struct Panel {
    /// The chart.
    pub chart: Chart,
    /// Its numbers.
    pub table: Vec<TableRow>,
    /// The metric.
    pub metric: String,
}

/// The value of `axis` for a summary row: `engine`, or a cell's axis.
fn key(axis: &str, row: &SummaryRow, cells: &[Cell]) -> String {
    if axis == "engine" {
        return row.engine.clone();
    }
    cells
        .get(row.cell)
        .and_then(|c| c.get(axis))
        .unwrap_or("")
        .to_string()
}

/// The x axis and series axis of a figure, with defaults.
pub fn axes_of(f: &Figure, axes: &[String]) -> (String, String) {
    let x =
        f.x.clone()
            .unwrap_or_else(|| axes.first().cloned().unwrap_or_else(|| "engine".into()));
    let series = f.series.clone().unwrap_or_else(|| {
        if x == "engine" {
            axes.iter().find(|a| **a != x).cloned().unwrap_or_default()
        } else {
            "engine".into()
        }
    });
    (x, series)
}

/// Higher is better for throughput-like metrics; lower for latency, amplification, size, FPR.
pub fn higher_is_better(metric: &str) -> bool {
    metric.contains("ops_per_sec")
        || metric.contains("mb_per_sec")
        || metric.contains("found_fraction")
}

/// Panels of a bar or line figure.
pub fn panels(f: &Figure, summary: &[SummaryRow], cells: &[Cell], axes: &[String]) -> Vec<Panel> {
    let (x_axis, series_axis) = axes_of(f, axes);
    let rest_axes: Vec<&String> = axes
        .iter()
        .filter(|a| **a != x_axis && **a != series_axis)
        .collect();
    let mut out = Vec::new();
    for metric in &f.metrics {
        let rows: Vec<&SummaryRow> = summary.iter().filter(|r| &r.metric == metric).collect();
        // Group by the rest of the axes, keeping the cells' order.
        let mut groups: Vec<(String, Vec<&SummaryRow>)> = Vec::new();
        for r in &rows {
            let rest = rest_axes
                .iter()
                .map(|a| format!("{a}={}", key(a, r, cells)))
                .collect::<Vec<_>>()
                .join(" ");
            match groups.iter_mut().find(|(k, _)| *k == rest) {
                Some((_, v)) => v.push(r),
                None => groups.push((rest, vec![r])),
            }
        }
        for (rest, rows) in groups {
            let mut xs: Vec<String> = Vec::new();
            let mut ss: Vec<String> = Vec::new();
            for r in &rows {
                let (x, s) = (key(&x_axis, r, cells), key(&series_axis, r, cells));
                if !xs.contains(&x) {
                    xs.push(x);
                }
                if !ss.contains(&s) {
                    ss.push(s);
                }
            }
            let numeric = f.kind == "line" && xs.iter().all(|x| x.parse::<f64>().is_ok());
            let mut series: BTreeMap<usize, Series> = BTreeMap::new();
            let mut table = Vec::new();
            for r in &rows {
                let (x, s) = (key(&x_axis, r, cells), key(&series_axis, r, cells));
                let xi = xs.iter().position(|v| *v == x).unwrap_or(0);
                let si = ss.iter().position(|v| *v == s).unwrap_or(0);
                let name = if series_axis.is_empty() {
                    metric.clone()
                } else if series_axis == "engine" {
                    s.clone()
                } else {
                    format!("{series_axis}={s}")
                };
                let d = &r.stats;
                series
                    .entry(si)
                    .or_insert_with(|| Series {
                        name,
                        points: Vec::new(),
                    })
                    .points
                    .push(Point {
                        x: if numeric {
                            x.parse().unwrap_or(0.0)
                        } else {
                            xi as f64
                        },
                        y: d.mean,
                        lo: d.ci_lo,
                        hi: d.ci_hi,
                    });
                table.push(TableRow {
                    rest: rest.clone(),
                    x,
                    series: s,
                    row: (*r).clone(),
                });
            }
            let mut series: Vec<Series> = series.into_values().collect();
            for s in &mut series {
                s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
            }
            let mut title = f.title.clone();
            if f.metrics.len() > 1 {
                title = format!("{title}: {metric}");
            }
            if !rest.is_empty() {
                title = format!("{title} ({rest})");
            }
            out.push(Panel {
                chart: Chart {
                    title,
                    x_label: x_axis.clone(),
                    y_label: metric.clone(),
                    categories: (!numeric).then(|| xs.clone()),
                    series,
                    log_x: numeric && f.log_x,
                    log_y: f.log_y,
                    mark: None,
                },
                table,
                metric: metric.clone(),
            });
        }
    }
    out
}

/// A time series chart of `metric` (a column of timeseries.csv: cpu_pct, rss_bytes, read_bytes,
/// write_bytes) for repetition 0 of every cell and engine.
pub fn timeseries(f: &Figure, dir: &Path, ids: &[(String, String)]) -> Vec<Chart> {
    let mut out = Vec::new();
    for metric in &f.metrics {
        let mut series = Vec::new();
        for (id, label) in ids {
            let Ok(text) =
                std::fs::read_to_string(dir.join("runs").join(id).join("timeseries.csv"))
            else {
                continue;
            };
            let mut header = text.lines().next().unwrap_or("").split(',');
            let Some(col) = header.position(|h| h == metric) else {
                continue;
            };
            // Steps restart their clocks: lay them end to end.
            let (mut offset, mut last_t, mut last_step) = (0.0, 0.0, String::new());
            let mut points = Vec::new();
            for line in text.lines().skip(1) {
                let f: Vec<&str> = line.split(',').collect();
                let (Some(step), Some(t), Some(v)) = (
                    f.first(),
                    f.get(1).and_then(|t| t.parse::<f64>().ok()),
                    f.get(col).and_then(|v| v.parse::<f64>().ok()),
                ) else {
                    continue;
                };
                if *step != last_step {
                    offset = last_t;
                    last_step = step.to_string();
                    // A step's first CPU sample has no interval behind it.
                    if metric == "cpu_pct" {
                        continue;
                    }
                }
                last_t = offset + t;
                let v = if metric.ends_with("bytes") {
                    v / (1024.0 * 1024.0)
                } else {
                    v
                };
                points.push(Point {
                    x: offset + t,
                    y: v,
                    lo: f64::NAN,
                    hi: f64::NAN,
                });
            }
            if !points.is_empty() {
                series.push(Series {
                    name: label.clone(),
                    points,
                });
            }
        }
        let unit = if metric.ends_with("bytes") {
            format!("{} (MiB)", metric.trim_end_matches("_bytes"))
        } else {
            metric.clone()
        };
        out.push(Chart {
            title: format!("{} — {unit} over time (repetition 0)", f.title),
            x_label: "seconds".into(),
            y_label: unit,
            categories: None,
            series,
            log_x: false,
            log_y: false,
            mark: None,
        });
    }
    out
}

/// Where series A and B swap places with non-overlapping CIs along x: the first x where the
/// sign of (A − B), counting only non-overlapping CIs, differs from the first such sign.
pub fn crossover(a: &Series, b: &Series) -> Option<(f64, bool)> {
    let mut first: Option<bool> = None;
    for p in &a.points {
        let Some(q) = b.points.iter().find(|q| q.x == p.x) else {
            continue;
        };
        let above = if p.lo > q.hi {
            Some(true)
        } else if p.hi < q.lo {
            Some(false)
        } else {
            None
        };
        match (first, above) {
            (None, Some(s)) => first = Some(s),
            (Some(f), Some(s)) if f != s => return Some((p.x, s)),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str, pts: &[(f64, f64, f64)]) -> Series {
        Series {
            name: name.into(),
            points: pts
                .iter()
                .map(|&(x, y, h)| Point {
                    x,
                    y,
                    lo: y - h,
                    hi: y + h,
                })
                .collect(),
        }
    }

    #[test]
    fn crossover_needs_separated_intervals_on_both_sides() {
        let inline = s(
            "inline",
            &[
                (1024.0, 100.0, 5.0),
                (4096.0, 60.0, 5.0),
                (16384.0, 20.0, 2.0),
            ],
        );
        let blob = s(
            "blob",
            &[
                (1024.0, 80.0, 5.0),
                (4096.0, 62.0, 5.0),
                (16384.0, 40.0, 2.0),
            ],
        );
        // Overlap at 4 KiB does not count; blob is clearly above from 16 KiB.
        assert_eq!(crossover(&blob, &inline), Some((16384.0, true)));
        let flat = s("x", &[(1024.0, 100.0, 50.0), (4096.0, 60.0, 50.0)]);
        assert_eq!(crossover(&flat, &inline), None);
    }

    #[test]
    fn direction_of_metrics() {
        assert!(higher_is_better("readrandom.ops_per_sec"));
        assert!(!higher_is_better("readrandom.p99_us"));
        assert!(!higher_is_better("fillrandom.write_amp"));
    }
}
