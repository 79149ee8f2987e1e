//! The report of a results directory: `report.md` and a self-contained `report.html` (inline SVG,
//! inline CSS, no JavaScript, no network), plus `plots/*.svg|png`. Built only from the files of
//! the directory, so `lsmlab report DIR` redraws it anywhere: the figures drawn, the claims
//! table and the findings made into `sections::Sections`, written by `markdown` and `html`.

use super::metric_table::metric_table;
use super::page::html::html;
use super::page::markdown::markdown;
use super::page::sections::{FigureTable, Sections, Shown, SLOW_MARK, TABLE_HEAD};
use super::panels::{self, Panel};
use super::plots::{self, Chart};
use super::setup::{engine_notes, setup_rows};
use super::{answer, forest, heatmap, heatmap_plot};
use crate::analyse::claims::verdicts::Outcome;
use crate::analyse::comparisons::carried_work;
use crate::analyse::comparisons::findings::{self, Section, Sources};
use crate::analyse::comparisons::summary::{CompareRow, SummaryRow, NOISY_CV};
use crate::analyse::numbers::intervals::Method;
use crate::run::measure::environment::Environment;
use crate::run::records::expanded::Expanded;
use crate::run::records::results::RunRecord;
use crate::text::significant;
use lsmlab_drivers::error::{CliError, CliResult};
use std::path::{Path, PathBuf};

/// What the report is made from.
pub struct Input<'a> {
    /// The results directory.
    pub dir: &'a Path,
    /// The expanded plan.
    pub expanded: &'a Expanded,
    /// The machine.
    pub env: &'a Environment,
    /// Every run.
    pub records: &'a [RunRecord],
    /// Per cell, engine and metric.
    pub summary: &'a [SummaryRow],
    /// Ratios.
    pub compare: &'a [CompareRow],
    /// The plan's claims on each engine.
    pub claims: &'a [Outcome],
}

fn ci(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!("[{}, {}]", significant(lo), significant(hi))
    } else {
        "– (one run)".into()
    }
}

/// A drawn figure: its heading, file stem, plot and table.
struct Drawn {
    title: String,
    stem: String,
    svg: String,
    table: Option<FigureTable>,
    /// What the crossover search found on this chart, one line per engine.
    crossovers: Vec<String>,
}

/// Marks the crossovers of `chart` (series B against series A of each engine) and says, per
/// engine, where the series cross with CIs apart, or that they do not.
fn crossovers(chart: &mut Chart) -> Vec<String> {
    // Series are named "ENGINE, axis=value" when engines are apart, else "axis=value".
    let engine_of = |name: &str| {
        name.split_once(", ")
            .map(|x| x.0.to_string())
            .unwrap_or_default()
    };
    let mut engines: Vec<String> = Vec::new();
    for s in &chart.series {
        let e = engine_of(&s.name);
        if !engines.contains(&e) {
            engines.push(e);
        }
    }
    let mut notes = Vec::new();
    for e in engines {
        let of: Vec<&plots::Series> = chart
            .series
            .iter()
            .filter(|s| engine_of(&s.name) == e)
            .collect();
        if of.len() < 2 {
            continue;
        }
        let (a, b) = (of[0], of[1]);
        let who = if e.is_empty() {
            String::new()
        } else {
            format!(" on {e}")
        };
        match panels::crossover(b, a) {
            Some((x, b_above)) => {
                let label = chart
                    .categories
                    .as_ref()
                    .and_then(|c| c.get(x as usize).cloned())
                    .unwrap_or_else(|| significant(x));
                let winner = if b_above { &b.name } else { &a.name };
                let text = format!("from {label}: {winner} ahead (CIs apart)");
                notes.push(format!("{}{who}: {text}", chart.title));
                chart.marks.push((x, text));
            }
            None => notes.push(format!(
                "{}{who}: no crossover of {} and {} with CIs apart",
                chart.title, a.name, b.name
            )),
        }
    }
    notes
}

fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').chars().take(60).collect()
}

/// The findings of the report (see `findings`).
fn findings(input: &Input, drawn: &[Drawn]) -> Vec<Section> {
    let x = input.expanded;
    let metrics = findings::metrics_of(&x.plan);
    let sources = Sources {
        cells: &x.cells,
        axes: &x.axes,
        compare_axes: x.plan.compare.clone().unwrap_or_else(|| x.axes.clone()),
        engines: x.engines.iter().map(|e| e.name.clone()).collect(),
        metrics,
        summary: input.summary,
        compare: input.compare,
        crossovers: drawn.iter().flat_map(|d| d.crossovers.clone()).collect(),
        engine_notes: engine_notes(input.expanded, input.records)
            .into_iter()
            .map(|(e, _)| (e, SLOW_MARK.to_string()))
            .collect(),
    };
    let mut out: Vec<Section> = carried_work::section(&x.plan, input.summary)
        .into_iter()
        .collect();
    out.extend(findings::findings(&sources));
    out
}

/// What a heat map with nothing to divide says in its place.
const NO_RATIO: &str =
    "No ratio to draw: no cell has paired runs of the baseline and another series value.";

/// The heat maps of figure `fi` (`heatmap`), each drawn to `plots_dir` with its table; a note
/// in their place when there is no ratio to draw.
fn draw_heatmaps(input: &Input, fi: usize, plots_dir: &Path) -> CliResult<Vec<Drawn>> {
    let Some(f) = input.expanded.plan.figure.get(fi) else {
        return Ok(Vec::new());
    };
    let mut drawn = Vec::new();
    let engines: Vec<String> = input
        .expanded
        .engines
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let maps = heatmap::heatmaps(
        f,
        &input.expanded.cells,
        &input.expanded.axes,
        &engines,
        input.records,
    );
    if maps.is_empty() {
        // Said, not left out: e.g. an optional engine that did not run.
        drawn.push(Drawn {
            title: f.title.clone(),
            stem: format!("{:02}-{}-0", fi + 1, slug(&f.title)),
            svg: String::new(),
            table: Some(FigureTable {
                caption: NO_RATIO.into(),
                head: Vec::new(),
                rows: Vec::new(),
                numbers_from: 0,
                numbers_to: 0,
            }),
            crossovers: Vec::new(),
        });
    }
    for (pi, h) in maps.iter().enumerate() {
        let stem = format!("{:02}-{}-{pi}", fi + 1, slug(&f.title));
        let svg = heatmap_plot::svg(h)?;
        std::fs::write(plots_dir.join(format!("{stem}.svg")), &svg)
            .map_err(|e| CliError::new(format!("plots: {e}")))?;
        heatmap_plot::png(h, &plots_dir.join(format!("{stem}.png")))?;
        drawn.push(Drawn {
            title: h.title.clone(),
            stem,
            svg,
            table: Some(heatmap::table(h)),
            crossovers: Vec::new(),
        });
    }
    Ok(drawn)
}

fn draw_all(input: &Input) -> CliResult<Vec<Drawn>> {
    let plots_dir = input.dir.join("plots");
    std::fs::create_dir_all(&plots_dir)
        .map_err(|e| CliError::new(format!("{}: {e}", plots_dir.display())))?;
    let plan = &input.expanded.plan;
    let mut drawn = Vec::new();
    for (fi, f) in plan.figure.iter().enumerate() {
        let mut items: Vec<(Chart, Option<Panel>)> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        match f.kind.as_str() {
            "timeseries" => {
                let ids: Vec<(String, String)> = input
                    .records
                    .iter()
                    .filter(|r| r.rep == 0)
                    .map(|r| {
                        let label = input
                            .expanded
                            .cells
                            .get(r.cell)
                            .map(|c| c.label())
                            .unwrap_or_default();
                        (r.id.clone(), format!("{} {label}", r.engine))
                    })
                    .collect();
                items.extend(
                    panels::timeseries(f, input.dir, &ids)
                        .into_iter()
                        .map(|c| (c, None)),
                );
            }
            "heatmap" => drawn.extend(draw_heatmaps(input, fi, &plots_dir)?),
            "table" => {
                let (x, series) = panels::axes_of(f, &input.expanded.axes);
                let all = panels::panels(
                    f,
                    input.summary,
                    &input.expanded.cells,
                    &input.expanded.axes,
                );
                drawn.push(Drawn {
                    title: f.title.clone(),
                    stem: format!("{:02}-{}-0", fi + 1, slug(&f.title)),
                    svg: String::new(),
                    table: Some(metric_table(&x, &series, &all)),
                    crossovers: Vec::new(),
                });
            }
            _ => {
                for mut p in panels::panels(
                    f,
                    input.summary,
                    &input.expanded.cells,
                    &input.expanded.axes,
                ) {
                    if f.crossover {
                        notes.extend(crossovers(&mut p.chart));
                    }
                    items.push((p.chart.clone(), Some(p)));
                }
            }
        }
        for (pi, (chart, panel)) in items.into_iter().enumerate() {
            let stem = format!("{:02}-{}-{pi}", fi + 1, slug(&f.title));
            let svg = plots::svg(&chart)?;
            std::fs::write(plots_dir.join(format!("{stem}.svg")), &svg)
                .map_err(|e| CliError::new(format!("plots: {e}")))?;
            plots::png(&chart, &plots_dir.join(format!("{stem}.png")))?;
            drawn.push(Drawn {
                title: chart.title,
                stem,
                svg,
                table: panel.as_ref().map(panel_table),
                crossovers: std::mem::take(&mut notes),
            });
        }
    }
    Ok(drawn)
}

/// The table under a bar or line panel: one row per point, `TABLE_HEAD`'s columns.
fn panel_table(p: &Panel) -> FigureTable {
    FigureTable {
        caption: format!("`{}`", p.metric),
        head: TABLE_HEAD.iter().map(|h| h.to_string()).collect(),
        rows: table_rows(p),
        numbers_from: 3,
        numbers_to: 7,
    }
}

fn table_rows(p: &Panel) -> Vec<Vec<String>> {
    p.table
        .iter()
        .map(|t| {
            let d = &t.row.stats;
            let mut flags = Vec::new();
            if d.cv >= NOISY_CV {
                flags.push("noisy".to_string());
            }
            if !t.row.outlier_runs.is_empty() {
                flags.push(format!("outliers: {}", t.row.outlier_runs.join(" ")));
            }
            let (y, lo, hi) = panels::point_of(d);
            if d.interval != Method::Student {
                flags.push(d.interval.name().to_string());
            }
            vec![
                t.x.clone(),
                t.series.clone(),
                t.engine.clone(),
                d.n.to_string(),
                significant(y),
                ci(lo, hi),
                if d.cv.is_finite() {
                    format!("{:.1} %", d.cv * 100.0)
                } else {
                    "–".into()
                },
                flags.join("; "),
            ]
        })
        .collect()
}

/// The claims table: the claim, the seed's figure, the engine, the measured figure with its
/// anytime-valid 95 % CI, the verdict. The claim's text and seed figure are on its first row only.
fn claim_rows(input: &Input) -> Vec<[String; 5]> {
    let claims = &input.expanded.plan.claim;
    let notes = engine_notes(input.expanded, input.records);
    // The warning itself is in the setup, once; here a mark.
    let noted = |engine: &str| -> String {
        let slow = notes
            .iter()
            .any(|(e, _)| engine.split(" / ").any(|x| x == e));
        if slow {
            format!("{engine}\u{a0}{SLOW_MARK}")
        } else {
            engine.to_string()
        }
    };
    let mut out = Vec::new();
    let mut last = usize::MAX;
    for o in input.claims {
        let Some(c) = claims.get(o.claim) else {
            continue;
        };
        let first = o.claim != last;
        last = o.claim;
        out.push([
            if first {
                format!("{}. “{}” — {}", o.claim + 1, c.quote, c.describe())
            } else {
                String::new()
            },
            if first { c.seed_text() } else { String::new() },
            noted(&o.engine),
            if o.note.is_empty() {
                o.figure.clone()
            } else {
                format!("{}; {}", o.figure, o.note)
            },
            o.verdict.text().to_string(),
        ]);
    }
    out
}

/// The file stem of the claims at a glance in `plots/` (before every figure's `01-…`).
pub const FOREST_STEM: &str = "00-claims-at-a-glance";

/// The claims at a glance (`forest`), drawn to `plots/` as SVG and PNG; none when no claim is
/// a ratio with a figure.
fn draw_forest(input: &Input) -> CliResult<Option<Shown>> {
    let rows = forest::rows(&input.expanded.plan.claim, input.claims);
    if rows.is_empty() {
        return Ok(None);
    }
    let plots_dir = input.dir.join("plots");
    let svg = forest::svg(&rows)?;
    std::fs::write(plots_dir.join(format!("{FOREST_STEM}.svg")), &svg)
        .map_err(|e| CliError::new(format!("plots: {e}")))?;
    forest::png(&rows, &plots_dir.join(format!("{FOREST_STEM}.png")))?;
    Ok(Some(Shown {
        title: "Claims at a glance".into(),
        stem: FOREST_STEM.into(),
        svg,
        table: None,
    }))
}

/// Writes report.md, report.html and the plots; returns report.html's path.
pub fn write_all(input: &Input) -> CliResult<PathBuf> {
    let drawn = draw_all(input)?;
    let sections = Sections {
        title: input.expanded.plan.title.clone(),
        question: input.expanded.plan.question.clone(),
        answer: answer::answer(&input.expanded.plan.claim, input.claims),
        forest: draw_forest(input)?,
        claims: claim_rows(input),
        findings: findings(input, &drawn),
        setup: setup_rows(input.dir, input.expanded, input.env, input.records),
        figures: drawn
            .into_iter()
            .map(|d| Shown {
                title: d.title,
                stem: d.stem,
                svg: d.svg,
                table: d.table,
            })
            .collect(),
        failed: input
            .records
            .iter()
            .filter(|r| r.status != "ok")
            .map(|r| (r.id.clone(), r.error.clone()))
            .collect(),
        dir: input.dir.display().to_string(),
    };
    let md_path = input.dir.join("report.md");
    std::fs::write(&md_path, markdown(&sections))
        .map_err(|e| CliError::new(format!("{}: {e}", md_path.display())))?;
    let html_path = input.dir.join("report.html");
    std::fs::write(&html_path, html(&sections))
        .map_err(|e| CliError::new(format!("{}: {e}", html_path.display())))?;
    Ok(html_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Reads: ops/s (bloom)"), "reads-ops-s-bloom");
    }
}
