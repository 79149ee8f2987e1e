//! The findings of a report, computed from the data and ordered by the plan's question: first
//! the crossovers, then each compared axis (`compare`, or every axis) per engine, then the best
//! setting of each metric, then engine against engine. Only what the 95 % CIs separate is
//! stated as a finding; the rest is counted, or listed as "not separated" when few.

use super::digest::{digest, Entry, LINES};
use super::summary::{higher_is_better, CompareRow, SummaryRow, NOISY_CV};
use crate::plan::matrix::Cell;
use crate::plan::spec::Plan;
use crate::text::significant;

/// A titled group of findings.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// One line each.
    pub items: Vec<String>,
}

/// What the findings are made from.
pub struct Sources<'a> {
    /// The cells.
    pub cells: &'a [Cell],
    /// Axis names in plan order.
    pub axes: &'a [String],
    /// The axes compared value against value (the plan's `compare`, else every axis).
    pub compare_axes: Vec<String>,
    /// Engine names in plan order.
    pub engines: Vec<String>,
    /// The metrics of the plan's figures and claims, in plan order.
    pub metrics: Vec<String>,
    /// Per cell, engine and metric.
    pub summary: &'a [SummaryRow],
    /// Every ratio.
    pub compare: &'a [CompareRow],
    /// Crossovers found on the figures, one line each.
    pub crossovers: Vec<String>,
    /// A mark per engine to add wherever it appears (e.g. "†" for a slow build).
    pub engine_notes: Vec<(String, String)>,
}

/// Most "not separated" ratios listed by name in one section; more are only counted.
const LIST_UNSEPARATED: usize = 12;

fn separated(r: &CompareRow) -> bool {
    r.ratio.ci_lo > 1.0 || r.ratio.ci_hi < 1.0
}

fn ratio_text(r: &CompareRow) -> String {
    let ci = if r.ratio.ci_lo.is_finite() {
        format!(
            " [{}, {}] p={}",
            significant(r.ratio.ci_lo),
            significant(r.ratio.ci_hi),
            significant(r.ratio.p)
        )
    } else {
        " (one pair, no CI)".to_string()
    };
    let flags = if r.flags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", r.flags.join(", "))
    };
    format!("{}×{ci}{flags}", significant(r.ratio.ratio))
}

impl Sources<'_> {
    fn note(&self, engine: &str) -> String {
        self.engine_notes
            .iter()
            .filter(|(e, _)| engine.split(" / ").any(|x| x == e))
            .map(|(_, n)| format!(" {n}"))
            .collect()
    }

    /// The other axes of a variant comparison's cell: `bloom_bits=10`.
    fn rest_of(&self, r: &CompareRow, axis: &str) -> String {
        self.cells
            .iter()
            .find(|c| c.id() == r.a)
            .map(|c| {
                c.values
                    .iter()
                    .filter(|(k, _)| k != axis)
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    }

    fn metric_rank(&self, m: &str) -> usize {
        self.metrics
            .iter()
            .position(|x| x == m)
            .unwrap_or(usize::MAX)
    }
}

/// The metrics the findings speak of: those of the plan's figures (time series aside), then
/// those of its claims, each once.
pub fn metrics_of(plan: &Plan) -> Vec<String> {
    let mut metrics: Vec<String> = Vec::new();
    let figure_metrics = plan
        .figure
        .iter()
        .filter(|f| f.kind != "timeseries")
        .flat_map(|f| f.metrics.iter());
    for m in figure_metrics.chain(plan.claim.iter().map(|c| &c.metric)) {
        if !metrics.contains(m) {
            metrics.push(m.clone());
        }
    }
    metrics
}

/// Ratios tested and ratios listed (their CI excludes 1), for the closing count.
#[derive(Default)]
struct Tally {
    tested: usize,
    listed: usize,
}

/// The findings, in the order the report shows them.
pub fn findings(s: &Sources) -> Vec<Section> {
    let mut out = Vec::new();
    if !s.crossovers.is_empty() {
        out.push(Section {
            title: "Crossovers".into(),
            items: s.crossovers.clone(),
        });
    }
    let mut tally = Tally::default();
    out.extend(variant_sections(s, &mut tally));
    let (best, unclear_best) = best_settings(s);
    if !best.is_empty() {
        let more = best.len().saturating_sub(LINES);
        let mut items: Vec<String> = best.into_iter().take(LINES).collect();
        if more > 0 {
            items.push(format!("and {more} more in summary.csv"));
        }
        out.push(Section {
            title: "Best setting, its CI clear of the runner-up".into(),
            items,
        });
    }
    out.extend(engine_sections(s, &mut tally));
    let tail = counted(s, &tally, unclear_best);
    if !tail.is_empty() {
        out.push(Section {
            title: "Counted, not listed".into(),
            items: tail,
        });
    }
    out
}

fn in_scope(s: &Sources, r: &CompareRow) -> bool {
    s.metrics.contains(&r.metric)
}

/// The plan's question: each compared axis, per engine.
fn variant_sections(s: &Sources, tally: &mut Tally) -> Vec<Section> {
    let mut out = Vec::new();
    let in_scope = |r: &&CompareRow| in_scope(s, r);
    for axis in &s.compare_axes {
        let prefix = format!("{axis}: ");
        for e in &s.engines {
            let mut rows: Vec<&CompareRow> = s
                .compare
                .iter()
                .filter(in_scope)
                .filter(|r| r.kind == "variant" && &r.context == e && r.axis.starts_with(&prefix))
                .collect();
            if rows.is_empty() {
                continue;
            }
            rows.sort_by_key(|r| (s.metric_rank(&r.metric), r.a.clone()));
            tally.tested += rows.len();
            let mut entries = Vec::new();
            let mut quiet = Vec::new();
            for r in &rows {
                let rest = s.rest_of(r, axis);
                let pair = r.axis.trim_start_matches(&prefix);
                let what = format!(
                    "{} ({pair}{})",
                    r.metric,
                    if rest.is_empty() {
                        String::new()
                    } else {
                        format!(", {rest}")
                    }
                );
                if !separated(r) {
                    quiet.push(format!("{what} {}", ratio_text(r)));
                }
                entries.push(Entry {
                    group: format!("{} ({pair})", r.metric),
                    line: format!("{what}: {}", ratio_text(r)),
                    ratio: r.ratio.ratio,
                    separated: separated(r),
                });
            }
            tally.listed += entries.iter().filter(|e| e.separated).count();
            let other: Vec<&String> = s.axes.iter().filter(|a| *a != axis).collect();
            let unit = match other.as_slice() {
                [one] => format!("{one} values"),
                _ => "cells".to_string(),
            };
            let mut items = digest(&entries, &unit);
            if items.is_empty() {
                items.push("nothing separated by the 95 % CIs".into());
            }
            if !quiet.is_empty() {
                items.push(if quiet.len() <= LIST_UNSEPARATED {
                    format!("not separated: {}", quiet.join("; "))
                } else {
                    format!("{} more ratios not separated (compare.csv)", quiet.len())
                });
            }
            out.push(Section {
                title: format!("{axis} on {e}{}", s.note(e)),
                items,
            });
        }
    }
    out
}

/// Best setting of each metric, per engine, when its CI is clear of the runner-up's; and how
/// many metric and engine pairs have none.
fn best_settings(s: &Sources) -> (Vec<String>, usize) {
    let mut best = Vec::new();
    let mut unclear_best = 0;
    if !s.axes.is_empty() {
        for m in &s.metrics {
            for e in &s.engines {
                let rows: Vec<&SummaryRow> = s
                    .summary
                    .iter()
                    .filter(|r| &r.metric == m && &r.engine == e)
                    .collect();
                if rows.len() < 2 {
                    continue;
                }
                let hi = higher_is_better(m);
                let better = |a: &&&SummaryRow, b: &&&SummaryRow| {
                    if hi {
                        a.stats.estimate.total_cmp(&b.stats.estimate)
                    } else {
                        b.stats.estimate.total_cmp(&a.stats.estimate)
                    }
                };
                let Some(b) = rows.iter().max_by(better) else {
                    continue;
                };
                let runner = rows.iter().filter(|r| r.cell != b.cell).max_by(better);
                let clear = runner.is_some_and(|r| {
                    if hi {
                        b.stats.ci_lo > r.stats.ci_hi
                    } else {
                        b.stats.ci_hi < r.stats.ci_lo
                    }
                });
                if !clear {
                    unclear_best += 1;
                    continue;
                }
                let label = s.cells.get(b.cell).map(|c| c.label()).unwrap_or_default();
                best.push(format!(
                    "{m} on {e}: {label} ({} [{}, {}]), {} than every other setting{}",
                    significant(b.stats.estimate),
                    significant(b.stats.ci_lo),
                    significant(b.stats.ci_hi),
                    if hi { "higher" } else { "lower" },
                    s.note(e)
                ));
            }
        }
    }
    (best, unclear_best)
}

/// Engine against engine, after the question: the separated ratios by pair of engines.
fn engine_sections(s: &Sources, tally: &mut Tally) -> Vec<Section> {
    let mut out = Vec::new();
    let in_scope = |r: &&CompareRow| in_scope(s, r);
    let engine_rows: Vec<&CompareRow> = s
        .compare
        .iter()
        .filter(in_scope)
        .filter(|r| r.kind == "engine")
        .collect();
    tally.tested += engine_rows.len();
    let mut by_pair: Vec<(String, Vec<Entry>)> = Vec::new();
    let mut rows = engine_rows.clone();
    rows.sort_by_key(|r| (r.a.clone(), s.metric_rank(&r.metric)));
    for r in &rows {
        let pair = format!("{} / {}", r.a, r.b);
        let entry = Entry {
            group: r.metric.clone(),
            line: format!("{} ({}): {}", r.metric, r.context, ratio_text(r)),
            ratio: r.ratio.ratio,
            separated: separated(r),
        };
        match by_pair.iter_mut().find(|(p, _)| *p == pair) {
            Some((_, v)) => v.push(entry),
            None => by_pair.push((pair, vec![entry])),
        }
    }
    for (pair, entries) in by_pair {
        tally.listed += entries.iter().filter(|e| e.separated).count();
        let items = digest(&entries, "cells");
        if items.is_empty() {
            continue;
        }
        out.push(Section {
            title: format!("{pair}{}", s.note(&pair)),
            items,
        });
    }
    out
}

/// What the findings counted but do not list: chance separations, unclear bests, noise.
fn counted(s: &Sources, tally: &Tally, unclear_best: usize) -> Vec<String> {
    let mut tail = Vec::new();
    if tally.tested > 0 {
        tail.push(format!(
            "{} of {} ratios have a 95 % CI that excludes 1; about {:.1} would by chance alone at p < 0.05. Every ratio is in compare.csv.",
            tally.listed,
            tally.tested,
            tally.tested as f64 * 0.05
        ));
    }
    if unclear_best > 0 {
        tail.push(format!(
            "{unclear_best} metric and engine pairs have no best setting clear of the runner-up."
        ));
    }
    let noisy = s
        .summary
        .iter()
        .filter(|r| r.stats.cv >= NOISY_CV && s.metrics.contains(&r.metric))
        .count();
    let outliers: usize = s
        .summary
        .iter()
        .filter(|r| s.metrics.contains(&r.metric))
        .map(|r| r.outlier_runs.len())
        .sum();
    if noisy > 0 || outliers > 0 {
        tail.push(format!(
            "{noisy} cells of these metrics have CV ≥ {:.0} % and {outliers} runs are flagged as outliers (kept in every number).",
            NOISY_CV * 100.0
        ));
    }
    tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::numbers::statistics::{describe, Ratio};

    /// `kind, metric, a, b, context, axis` and the ratio with its CI.
    fn row(t: [&str; 6], r: f64, lo: f64, hi: f64) -> CompareRow {
        CompareRow {
            kind: t[0].into(),
            metric: t[1].into(),
            a: t[2].into(),
            b: t[3].into(),
            context: t[4].into(),
            axis: t[5].into(),
            ratio: Ratio {
                n: 3,
                ratio: r,
                ci_lo: lo,
                ci_hi: hi,
                p: 0.01,
            },
            flags: Vec::new(),
        }
    }

    #[test]
    fn the_question_comes_first_per_engine_then_engines() {
        let cells = vec![
            Cell {
                index: 0,
                values: vec![("ribbon".into(), "false".into())],
            },
            Cell {
                index: 1,
                values: vec![("ribbon".into(), "true".into())],
            },
        ];
        let compare = vec![
            row(
                [
                    "engine",
                    "fill.ops",
                    "rocksdb",
                    "lsmlab",
                    "ribbon=false",
                    "",
                ],
                0.6,
                0.5,
                0.7,
            ),
            row(
                [
                    "variant",
                    "filter_mb",
                    "c001",
                    "c000",
                    "lsmlab",
                    "ribbon: true vs false",
                ],
                0.79,
                0.63,
                0.98,
            ),
            row(
                [
                    "variant",
                    "fill.ops",
                    "c001",
                    "c000",
                    "lsmlab",
                    "ribbon: true vs false",
                ],
                0.98,
                0.9,
                1.07,
            ),
            row(
                [
                    "variant",
                    "fill.ops",
                    "c001",
                    "c000",
                    "rocksdb",
                    "ribbon: true vs false",
                ],
                1.0,
                0.95,
                1.05,
            ),
        ];
        let summary = vec![SummaryRow {
            cell: 0,
            engine: "lsmlab".into(),
            metric: "fill.ops".into(),
            stats: describe(&[1.0, 2.0, 3.0]).unwrap(),
            outlier_runs: Vec::new(),
        }];
        let axes = vec!["ribbon".to_string()];
        let s = Sources {
            cells: &cells,
            axes: &axes,
            compare_axes: axes.clone(),
            engines: vec!["lsmlab".into(), "rocksdb".into()],
            metrics: vec!["fill.ops".into(), "filter_mb".into()],
            summary: &summary,
            compare: &compare,
            crossovers: Vec::new(),
            engine_notes: vec![("rocksdb".into(), "†".into())],
        };
        let f = findings(&s);
        let titles: Vec<&str> = f.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "ribbon on lsmlab",
                "ribbon on rocksdb †",
                "rocksdb / lsmlab †",
                "Counted, not listed"
            ]
        );
        assert!(
            f[0].items[0].starts_with("filter_mb (true vs false): 0.790× [0.630, 0.980]"),
            "{:?}",
            f[0].items
        );
        assert!(
            f[0].items[1].starts_with("not separated: fill.ops (true vs false) 0.980×"),
            "{:?}",
            f[0].items
        );
        assert_eq!(f[1].items[0], "nothing separated by the 95 % CIs");
        assert!(
            f[3].items[0].starts_with("2 of 4 ratios"),
            "{:?}",
            f[3].items
        );
    }
}
