//! The report of a results directory: `report.md` and a self-contained `report.html` (inline SVG,
//! inline CSS, no JavaScript, no network), plus `plots/*.svg|png`. Built only from the files of
//! the directory, so `lsmlab report DIR` redraws it anywhere.

use super::panels::{self, Panel};
use super::plots::{self, Chart};
use crate::error::{CliError, CliResult};
use crate::study::analyse::findings::{self, Section, Sources};
use crate::study::analyse::summary::{CompareRow, SummaryRow, NOISY_CV};
use crate::study::analyse::verdicts::Outcome;
use crate::study::plan::spec::step_label;
use crate::study::run::environment::Environment;
use crate::study::run::expanded::Expanded;
use crate::study::run::merge::MergeRecord;
use crate::study::run::results::RunRecord;
use crate::study::text::{significant, value_text};
use std::fmt::Write as _;
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

/// `esc`, with `code` spans of markdown as <code>.
fn esc_code(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in esc(s).split('`').enumerate() {
        if i % 2 == 1 {
            out += &format!("<code>{part}</code>");
        } else {
            out += part;
        }
    }
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn ci(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!("[{}, {}]", significant(lo), significant(hi))
    } else {
        "– (one run)".into()
    }
}

/// A drawn figure: its file stem and panels or charts.
struct Drawn {
    stem: String,
    chart: Chart,
    svg: String,
    panel: Option<Panel>,
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
    let mut metrics: Vec<String> = Vec::new();
    let figure_metrics = x
        .plan
        .figure
        .iter()
        .filter(|f| f.kind != "timeseries")
        .flat_map(|f| f.metrics.iter());
    for m in figure_metrics.chain(x.plan.claim.iter().map(|c| &c.metric)) {
        if !metrics.contains(m) {
            metrics.push(m.clone());
        }
    }
    let sources = Sources {
        cells: &x.cells,
        axes: &x.axes,
        compare_axes: x.plan.compare.clone().unwrap_or_else(|| x.axes.clone()),
        engines: x.engines.iter().map(|e| e.name.clone()).collect(),
        metrics,
        summary: input.summary,
        compare: input.compare,
        crossovers: drawn.iter().flat_map(|d| d.crossovers.clone()).collect(),
        engine_notes: engine_notes(input),
    };
    findings::findings(&sources)
}

/// Notes that go wherever an engine's figures appear: what its output warned makes it slow
/// (a db_bench built with assertions, or without optimization).
fn engine_notes(input: &Input) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in &input.expanded.engines {
        let mut warned: Vec<&str> = Vec::new();
        for r in input.records.iter().filter(|r| r.engine == e.name) {
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
            "table" => {
                for p in panels::panels(
                    f,
                    input.summary,
                    &input.expanded.cells,
                    &input.expanded.axes,
                ) {
                    items.push((p.chart.clone(), Some(p)));
                }
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
            let (svg, is_table) = (String::new(), f.kind == "table");
            let svg = if is_table {
                svg
            } else {
                let s = plots::svg(&chart)?;
                std::fs::write(plots_dir.join(format!("{stem}.svg")), &s)
                    .map_err(|e| CliError::new(format!("plots: {e}")))?;
                plots::png(&chart, &plots_dir.join(format!("{stem}.png")))?;
                s
            };
            drawn.push(Drawn {
                stem,
                chart,
                svg,
                panel,
                crossovers: std::mem::take(&mut notes),
            });
        }
    }
    Ok(drawn)
}

fn table_rows(p: &Panel) -> Vec<[String; 8]> {
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
            if d.gmean.is_finite() {
                flags.push("geometric".to_string());
            }
            [
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
/// 95 % CI, the verdict. The claim's text and seed figure are on its first row only.
fn claim_rows(input: &Input) -> Vec<[String; 5]> {
    let claims = &input.expanded.plan.claim;
    let notes = engine_notes(input);
    let noted = |engine: &str| -> String {
        let extra: String = notes
            .iter()
            .filter(|(e, _)| engine.split(" / ").any(|x| x == e))
            .map(|(e, n)| format!(" [{e}: {n}]"))
            .collect();
        format!("{engine}{extra}")
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
            o.figure.clone(),
            o.verdict.text().to_string(),
        ]);
    }
    out
}

/// Which interval the figures and tables show.
const INTERVALS: &str = "a metric whose runs are all above 0 (flag geometric) shows its geometric mean and the 95 % CI of Student's t on the logs, back-transformed, so the interval never reaches below 0; any other metric its arithmetic mean and t CI. On a linear plot a whisker that runs past 2.5 times the largest mean is cut at the top; the table has its end";

/// How the verdicts are decided, under the claims table.
const CLAIMS_NOTE: &str = "Ratios are geometric means of paired runs (same repetition), pooled over the cells the claim leaves open, with the 95 % CI of the mean log-ratio (Student's t); metrics are means with their t CI. Verdicts follow from the CI alone: reproduced (the CI lies where the seed says), reversed (the CI lies on the other side of 1), not reproduced (on the wrong side of the seed's threshold, or inside the tolerance of no effect), inconclusive (the CI holds the threshold); n/a where an engine has no such figure. A greater or smaller claim tests the direction against its threshold (1 for a ratio unless the plan sets than); the seed's number beside it is shown, not tested. In a crossover, * marks a ratio whose CI excludes the threshold.";

const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}svg{max-width:100%;height:auto}
.q{font-size:1.15em;background:#f6f8fa;border-left:4px solid #0072b2;padding:.5em 1em}.small{color:#666;font-size:.85em}
td.v{font-weight:bold}td.reproduced{color:#1a7f37}td.reversed,td.not-reproduced{color:#b42318}td.inconclusive{color:#9a6700}";

/// Writes report.md, report.html and the plots; returns report.html's path.
pub fn write_all(input: &Input) -> CliResult<PathBuf> {
    let drawn = draw_all(input)?;
    let found = findings(input, &drawn);
    let x = input.expanded;
    let plan = &x.plan;
    let env = input.env;
    let ok = input.records.iter().filter(|r| r.status == "ok").count();
    let failed: Vec<&RunRecord> = input.records.iter().filter(|r| r.status != "ok").collect();
    let versions: Vec<String> = x
        .engines
        .iter()
        .map(|e| {
            let printed = input
                .records
                .iter()
                .find(|r| r.engine == e.name && !r.engine_version.is_empty())
                .map(|r| r.engine_version.clone());
            let warning = engine_notes(input)
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
    let setup: Vec<(String, String)> = vec![
        (
            "scale".into(),
            x.scale.clone().unwrap_or_else(|| "(none)".into()),
        ),
        ("repetitions".into(), x.repetitions.to_string()),
        (
            "runs".into(),
            format!("{ok} finished, {} failed", failed.len()),
        ),
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
    ];
    let mut setup = setup;
    // A merged study says how it was split, and what it lacks (`lsmlab merge`).
    if let Some(m) = std::fs::read_to_string(input.dir.join("merge.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<MergeRecord>(&t).ok())
    {
        setup.push((
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
        ));
    }
    if let Some(l) = &plan.load {
        let loads: std::collections::BTreeSet<&str> = input
            .records
            .iter()
            .map(|r| r.load.as_str())
            .filter(|k| !k.is_empty())
            .collect();
        setup.push((
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
        ));
    }
    let starts: Vec<&str> = input
        .records
        .iter()
        .map(|r| r.started.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let ends: Vec<&str> = input
        .records
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
    let loads: Vec<f64> = input
        .records
        .iter()
        .filter_map(|r| r.load_average)
        .flat_map(|(a, b)| [a, b])
        .collect();
    if !loads.is_empty() {
        let (lo, hi) = loads
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(*v), h.max(*v)));
        let busy = env.cores > 0 && hi > env.cores as f64;
        setup.push((
            "load average".into(),
            format!(
                "{lo:.2} to {hi:.2} at the runs' starts and ends ({} cores){}",
                env.cores,
                if busy {
                    " — WARNING: the machine was busier than its cores; timings are noisy"
                } else {
                    ""
                }
            ),
        ));
    }
    let machine: Vec<(String, String)> = vec![
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
    ];
    let head = [
        "x", "series", "engine", "n", "mean", "95 % CI", "CV", "flags",
    ];

    // Markdown.
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", plan.title);
    if !plan.question.is_empty() {
        let _ = writeln!(md, "> {}\n", plan.question);
    }
    let claims = claim_rows(input);
    if !claims.is_empty() {
        let _ = writeln!(
            md,
            "## Claims of the seed\n\n| claim | seed | engine | measured (95 % CI) | verdict |\n|---|---|---|---|---|"
        );
        for r in &claims {
            let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
            let _ = writeln!(md, "| {} |", r.join(" | "));
        }
        let _ = writeln!(md, "\n{CLAIMS_NOTE}\n");
    }
    let _ = writeln!(md, "## Findings\n");
    for sec in &found {
        let _ = writeln!(md, "**{}**\n", sec.title);
        for f in &sec.items {
            let _ = writeln!(md, "- {f}");
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "\n## Setup\n\n| | |\n|---|---|");
    for (k, v) in setup.iter().chain(machine.iter()) {
        let _ = writeln!(md, "| {k} | {} |", v.replace('|', "\\|"));
    }
    for d in &drawn {
        let _ = writeln!(md, "\n## {}\n", d.chart.title);
        if !d.svg.is_empty() {
            let _ = writeln!(md, "![{}](plots/{}.svg)\n", d.chart.title, d.stem);
        }
        if let Some(p) = &d.panel {
            let _ = writeln!(
                md,
                "`{}`: {INTERVALS}\n\n| {} |\n|{}",
                p.metric,
                head.join(" | "),
                "---|".repeat(head.len())
            );
            for r in table_rows(p) {
                let _ = writeln!(md, "| {} |", r.join(" | "));
            }
        }
    }
    if !failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for r in &failed {
            let _ = writeln!(md, "- {}: {}", r.id, r.error);
        }
    }
    let _ = writeln!(md, "\nAll numbers: `runs.csv` (one row per run and metric), `summary.csv`, `compare.csv`. Regenerate with `lsmlab report {}`.", input.dir.display());
    let md_path = input.dir.join("report.md");
    std::fs::write(&md_path, md)
        .map_err(|e| CliError::new(format!("{}: {e}", md_path.display())))?;

    // HTML.
    let mut h = String::new();
    let _ = write!(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n", esc(&plan.title), esc(&plan.title));
    if !plan.question.is_empty() {
        let _ = writeln!(h, "<p class=\"q\">{}</p>", esc(&plan.question));
    }
    if !claims.is_empty() {
        let _ = writeln!(h, "<h2>Claims of the seed</h2>\n<table>\n<tr><th>claim</th><th>seed</th><th>engine</th><th>measured (95 % CI)</th><th>verdict</th></tr>");
        for r in &claims {
            let class = r[4].replace(' ', "-").replace('/', "");
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"v {class}\">{}</td></tr>",
                esc_code(&r[0]),
                esc(&r[1]),
                esc(&r[2]),
                esc(&r[3]),
                esc(&r[4])
            );
        }
        let _ = writeln!(h, "</table>\n<p class=\"small\">{}</p>", esc(CLAIMS_NOTE));
    }
    let _ = writeln!(h, "<h2>Findings</h2>");
    for sec in &found {
        let _ = writeln!(h, "<h3>{}</h3>\n<ul>", esc(&sec.title));
        for f in &sec.items {
            let _ = writeln!(h, "<li>{}</li>", esc(f));
        }
        let _ = writeln!(h, "</ul>");
    }
    let _ = writeln!(h, "<h2>Setup and environment</h2>\n<table>");
    for (k, v) in setup.iter().chain(machine.iter()) {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    let _ = writeln!(h, "</table>");
    for d in &drawn {
        let _ = writeln!(h, "<h2>{}</h2>", esc(&d.chart.title));
        if !d.svg.is_empty() {
            let svg = d.svg.trim_start_matches(|c| c != '<');
            let svg = if svg.starts_with("<?xml") {
                svg.split_once("?>").map(|x| x.1).unwrap_or(svg)
            } else {
                svg
            };
            // Inline SVG in HTML needs no namespace; dropping it leaves no URL in the file.
            let svg = svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "");
            let _ = writeln!(h, "<figure>{svg}</figure>");
        }
        if let Some(p) = &d.panel {
            let _ = writeln!(
                h,
                "<p class=\"small\">metric <code>{}</code>; {}</p>\n<table>\n<tr>{}</tr>",
                esc(&p.metric),
                esc(INTERVALS),
                head.iter()
                    .map(|c| format!("<th>{}</th>", esc(c)))
                    .collect::<String>()
            );
            for r in table_rows(p) {
                let cells: String = r
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        if (3..7).contains(&i) {
                            format!("<td class=\"n\">{}</td>", esc(c))
                        } else {
                            format!("<td>{}</td>", esc(c))
                        }
                    })
                    .collect();
                let _ = writeln!(h, "<tr>{cells}</tr>");
            }
            let _ = writeln!(h, "</table>");
        }
    }
    if !failed.is_empty() {
        let _ = writeln!(h, "<h2>Failed runs</h2>\n<ul>");
        for r in &failed {
            let _ = writeln!(h, "<li>{}: {}</li>", esc(&r.id), esc(&r.error));
        }
        let _ = writeln!(h, "</ul>");
    }
    let _ = writeln!(h, "<p class=\"small\">All numbers: runs.csv (one row per run and metric), summary.csv, compare.csv in {}. Regenerate with <code>lsmlab report DIR</code>.</p>\n</body>\n</html>", esc(&input.dir.display().to_string()));
    let html_path = input.dir.join("report.html");
    std::fs::write(&html_path, h)
        .map_err(|e| CliError::new(format!("{}: {e}", html_path.display())))?;
    Ok(html_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_slugs() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(esc_code("a `m<1` b"), "a <code>m&lt;1</code> b");
        assert_eq!(slug("Reads: ops/s (bloom)"), "reads-ops-s-bloom");
    }
}
