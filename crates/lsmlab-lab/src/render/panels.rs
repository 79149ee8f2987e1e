//! From the summary to the figures a plan names: one chart per metric and per combination of
//! the axes that are neither on x nor the series, with the table of the same numbers.

use super::plots::{Chart, Point, Series};
use super::units::{axis_label, byte_axis, metric_bytes};
use crate::analyse::comparisons::summary::SummaryRow;
use crate::analyse::numbers::statistics::Describe;
use crate::plan::matrix::Cell;
use crate::plan::spec::Figure;
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
    /// The engine.
    pub engine: String,
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

/// The point a panel draws for a summary row: its estimate and 95 % interval, as
/// `analyse::intervals` chose them (the same numbers as `summary.csv`).
pub fn point_of(d: &Describe) -> (f64, f64, f64) {
    (d.estimate, d.ci_lo, d.ci_hi)
}

/// Labels without the prefix they all share (`fslsm-workload0` … → `0` …), and that prefix.
/// The prefix never ends inside a number, and no label may become empty.
pub fn strip_common_prefix(labels: &[String]) -> (Vec<String>, String) {
    let Some(first) = labels.first() else {
        return (Vec::new(), String::new());
    };
    let mut n = first.len();
    for l in labels {
        n = n.min(
            first
                .char_indices()
                .zip(l.chars())
                .take_while(|((_, a), b)| a == b)
                .map(|((i, a), _)| i + a.len_utf8())
                .last()
                .unwrap_or(0),
        );
    }
    while n > 0
        && first[..n].ends_with(|c: char| {
            c.is_ascii_digit() || c == '.' || c == '-' && first[..n].len() == 1
        })
    {
        n -= 1;
    }
    if labels.len() < 2 || n == 0 || labels.iter().any(|l| l.len() <= n) {
        return (labels.to_vec(), String::new());
    }
    (
        labels.iter().map(|l| l[n..].to_string()).collect(),
        first[..n].to_string(),
    )
}

/// A bar panel whose largest mean exceeds its smallest by this factor gets a log axis.
const DWARFS: f64 = 30.0;

/// Panels of a bar or line figure. Engine is always part of the series (or the x axis), so
/// no line or bar mixes two engines.
pub fn panels(f: &Figure, summary: &[SummaryRow], cells: &[Cell], axes: &[String]) -> Vec<Panel> {
    let (x_axis, series_axis) = axes_of(f, axes);
    let rest_axes: Vec<&String> = axes
        .iter()
        .filter(|a| **a != x_axis && **a != series_axis)
        .collect();
    let engine_apart = x_axis != "engine" && series_axis != "engine";
    let mut out = Vec::new();
    for metric in &f.metrics {
        let rows: Vec<&SummaryRow> = summary.iter().filter(|r| &r.metric == metric).collect();
        let engines: Vec<&str> = {
            let mut v: Vec<&str> = Vec::new();
            for r in &rows {
                if !v.contains(&r.engine.as_str()) {
                    v.push(&r.engine);
                }
            }
            v
        };
        // The series of a row: its series axis value, and its engine unless engine is drawn.
        let series_of = |r: &SummaryRow| -> (String, String) {
            let s = key(&series_axis, r, cells);
            let name = if series_axis.is_empty() {
                metric.clone()
            } else if series_axis == "engine" {
                s.clone()
            } else {
                format!("{series_axis}={}", axis_label(&series_axis, &s))
            };
            if engine_apart && engines.len() > 1 {
                (
                    format!("{}\u{1}{s}", r.engine),
                    format!("{}, {name}", r.engine),
                )
            } else {
                (s, name)
            }
        };
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
            let mut ss: Vec<(String, String)> = Vec::new();
            for r in &rows {
                let x = key(&x_axis, r, cells);
                if !xs.contains(&x) {
                    xs.push(x);
                }
                let s = series_of(r);
                if !ss.contains(&s) {
                    ss.push(s);
                }
            }
            let all_numeric = xs.iter().all(|x| x.parse::<f64>().is_ok());
            if all_numeric {
                xs.sort_by(|a, b| {
                    let (a, b): (f64, f64) = (a.parse().unwrap_or(0.0), b.parse().unwrap_or(0.0));
                    a.total_cmp(&b)
                });
            }
            let numeric = f.kind == "line" && all_numeric;
            let mut series: Vec<Series> = ss
                .iter()
                .map(|(_, name)| Series {
                    name: name.clone(),
                    points: Vec::new(),
                })
                .collect();
            let mut table = Vec::new();
            for r in &rows {
                let x = key(&x_axis, r, cells);
                let s = series_of(r);
                let xi = xs.iter().position(|v| *v == x).unwrap_or(0);
                let si = ss.iter().position(|v| *v == s).unwrap_or(0);
                let (y, lo, hi) = point_of(&r.stats);
                series[si].points.push(Point {
                    x: if numeric {
                        x.parse().unwrap_or(0.0)
                    } else {
                        xi as f64
                    },
                    y,
                    lo,
                    hi,
                    runs: r.stats.values.clone(),
                });
                table.push(TableRow {
                    rest: rest.clone(),
                    x,
                    series: key(&series_axis, r, cells),
                    engine: r.engine.clone(),
                    row: (*r).clone(),
                });
            }
            for s in &mut series {
                s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
            }
            let shown: Vec<String> = xs.iter().map(|x| axis_label(&x_axis, x)).collect();
            let (labels, prefix) = strip_common_prefix(&shown);
            let (title, log_y) = title_and_scale(f, metric, &rest, &series);
            out.push(Panel {
                chart: Chart {
                    title,
                    x_label: if prefix.is_empty() {
                        x_axis.clone()
                    } else {
                        format!("{x_axis} ({prefix}…)")
                    },
                    y_label: metric.clone(),
                    categories: (!numeric).then_some(labels),
                    series,
                    log_x: numeric && f.log_x,
                    log_y,
                    marks: Vec::new(),
                    x_bytes: numeric && byte_axis(&x_axis),
                    y_bytes: metric_bytes(metric),
                },
                table,
                metric: metric.clone(),
            });
        }
    }
    out
}

/// A panel's title, and whether its y axis is logarithmic: as the figure says, or because a
/// bar panel's largest mean dwarfs its smallest (the title then says so).
fn title_and_scale(f: &Figure, metric: &str, rest: &str, series: &[Series]) -> (String, bool) {
    let mut title = f.title.clone();
    if f.metrics.len() > 1 {
        title = format!("{title}: {metric}");
    }
    if !rest.is_empty() {
        title = format!("{title} ({rest})");
    }
    let mut log_y = f.log_y;
    if f.kind == "bar" && !log_y {
        let ys: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.y))
            .collect();
        let (lo, hi) = ys
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), y| (a.min(*y), b.max(*y)));
        if lo > 0.0 && hi / lo > DWARFS {
            log_y = true;
            title = format!(
                "{title} — log scale: the largest is {:.0}× the smallest",
                hi / lo
            );
        }
    }
    (title, log_y)
}

/// Fewer once-a-second samples than this make no line worth reading (a run of a few seconds).
const MIN_SERIES_SAMPLES: usize = 5;

fn short_note(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => format!("; 1 run with fewer than {MIN_SERIES_SAMPLES} samples not drawn"),
        n => format!("; {n} runs with fewer than {MIN_SERIES_SAMPLES} samples not drawn"),
    }
}

/// A time series chart of `metric` (a column of timeseries.csv: cpu_pct, rss_bytes, read_bytes,
/// write_bytes) for repetition 0 of every cell and engine.
pub fn timeseries(f: &Figure, dir: &Path, ids: &[(String, String)]) -> Vec<Chart> {
    let mut out = Vec::new();
    for metric in &f.metrics {
        let mut series = Vec::new();
        let mut too_short = 0;
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
                    runs: Vec::new(),
                });
            }
            if points.len() < MIN_SERIES_SAMPLES {
                too_short += 1;
                continue;
            }
            series.push(Series {
                name: label.clone(),
                points,
            });
        }
        let bytes = metric.ends_with("bytes");
        let unit = if bytes {
            metric.trim_end_matches("_bytes").to_string()
        } else {
            metric.clone()
        };
        out.push(Chart {
            title: format!(
                "{} — {unit} over time (repetition 0){}",
                f.title,
                short_note(too_short)
            ),
            x_label: "seconds".into(),
            y_label: unit,
            categories: None,
            series,
            log_x: false,
            log_y: false,
            marks: Vec::new(),
            x_bytes: false,
            // Sampled bytes are drawn in MiB.
            y_bytes: bytes.then_some(1024.0 * 1024.0),
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
                    runs: Vec::new(),
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
    fn labels_lose_their_common_prefix_but_not_inside_numbers() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (l, p) = strip_common_prefix(&v(&[
            "fslsm-workload0",
            "fslsm-workload1",
            "fslsm-workload14",
        ]));
        assert_eq!((l, p.as_str()), (v(&["0", "1", "14"]), "fslsm-workload"));
        let (l, p) = strip_common_prefix(&v(&["10", "15", "12"]));
        assert_eq!((l, p.as_str()), (v(&["10", "15", "12"]), ""));
        let (l, _) = strip_common_prefix(&v(&["false", "true"]));
        assert_eq!(l, v(&["false", "true"]));
        let (l, _) = strip_common_prefix(&v(&["ab", "abc"]));
        assert_eq!(l, v(&["ab", "abc"]), "no label may become empty");
    }

    #[test]
    fn engines_are_never_mixed_in_a_series() {
        use crate::analyse::numbers::statistics::describe;
        let cells: Vec<Cell> = [
            ("5", "false"),
            ("5", "true"),
            ("10", "false"),
            ("10", "true"),
        ]
        .iter()
        .enumerate()
        .map(|(i, (b, r))| Cell {
            index: i,
            values: vec![
                ("bits".into(), b.to_string()),
                ("ribbon".into(), r.to_string()),
            ],
        })
        .collect();
        let mut summary = Vec::new();
        for c in &cells {
            for (e, base) in [("lsmlab", 100.0), ("rocksdb", 50.0)] {
                summary.push(SummaryRow {
                    cell: c.index,
                    engine: e.into(),
                    metric: "m".into(),
                    stats: describe(&[base, base * 1.1, base * 0.9]).unwrap(),
                    outlier_runs: Vec::new(),
                });
            }
        }
        let f: Figure = toml::from_str("title = \"t\"\nkind = \"line\"\nmetrics = [\"m\"]\nx = \"bits\"\nseries = \"ribbon\"\n").unwrap();
        let axes = vec!["bits".to_string(), "ribbon".to_string()];
        let p = panels(&f, &summary, &cells, &axes);
        assert_eq!(p.len(), 1);
        let names: Vec<&str> = p[0].chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "lsmlab, ribbon=false",
                "rocksdb, ribbon=false",
                "lsmlab, ribbon=true",
                "rocksdb, ribbon=true"
            ]
        );
        for s in &p[0].chart.series {
            // One point per x: a line never zig-zags between engines.
            let xs: Vec<f64> = s.points.iter().map(|p| p.x).collect();
            assert_eq!(xs, [5.0, 10.0], "{}", s.name);
            assert!(s.points.iter().all(|p| p.lo > 0.0));
        }
        assert_eq!(
            p[0].table.iter().filter(|t| t.engine == "rocksdb").count(),
            4
        );
    }

    #[test]
    fn a_bar_that_dwarfs_the_others_gets_a_log_axis() {
        use crate::analyse::numbers::statistics::describe;
        let cells: Vec<Cell> = (0..3)
            .map(|i| Cell {
                index: i,
                values: vec![("w".into(), format!("w{i}"))],
            })
            .collect();
        let summary: Vec<SummaryRow> = [1.0, 2.0, 300.0]
            .iter()
            .enumerate()
            .map(|(i, v)| SummaryRow {
                cell: i,
                engine: "lsmlab".into(),
                metric: "t".into(),
                stats: describe(&[*v, v * 1.01]).unwrap(),
                outlier_runs: Vec::new(),
            })
            .collect();
        let f: Figure = toml::from_str("title = \"t\"\nmetrics = [\"t\"]\n").unwrap();
        let p = panels(&f, &summary, &cells, &["w".to_string()]);
        assert!(p[0].chart.log_y && p[0].chart.title.contains("log scale"));
        assert_eq!(
            p[0].chart.categories.as_deref(),
            Some(&["0".to_string(), "1".into(), "2".into()][..])
        );
    }

    #[test]
    fn a_time_series_of_fewer_than_five_samples_is_not_a_line() {
        let dir = tempfile::tempdir().unwrap();
        for (id, samples) in [("short", 2), ("long", 6)] {
            let run = dir.path().join("runs").join(id);
            std::fs::create_dir_all(&run).unwrap();
            let mut text = String::from("step,t,cpu_pct,rss_bytes,read_bytes,write_bytes\n");
            for t in 0..samples {
                text.push_str(&format!("0,{t}.0,50.0,{},0,0\n", (t + 1) << 20));
            }
            std::fs::write(run.join("timeseries.csv"), text).unwrap();
        }
        let f: Figure =
            toml::from_str("title = \"t\"\nkind = \"timeseries\"\nmetrics = [\"rss_bytes\"]\n")
                .unwrap();
        let ids = [
            ("short".to_string(), "a".to_string()),
            ("long".to_string(), "b".to_string()),
        ];
        let charts = timeseries(&f, dir.path(), &ids);
        assert_eq!(charts.len(), 1);
        let names: Vec<&str> = charts[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["b"]);
        assert_eq!(charts[0].series[0].points.len(), 6);
        assert!(
            charts[0].title.contains("1 run with fewer than 5 samples"),
            "{}",
            charts[0].title
        );
    }
}
