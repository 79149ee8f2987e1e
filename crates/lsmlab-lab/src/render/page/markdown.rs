//! The report as Markdown (`report.md`): the sections of `sections::Sections`, figures as links
//! to `plots/`.

use super::sections::{
    Sections, ANSWER_NOTE, CLAIMS_NOTE, FOREST_NOTE, INTERVALS, SLOW_MARK, SLOW_NOTE,
};
use std::fmt::Write as _;

/// `report.md`.
pub fn markdown(s: &Sections) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", s.title);
    if !s.question.is_empty() {
        let _ = writeln!(md, "> {}\n", s.question);
    }
    if !s.answer.is_empty() {
        let _ = writeln!(md, "## Answer\n");
        for a in &s.answer {
            let _ = writeln!(md, "- {a}");
        }
        let _ = writeln!(md, "\n{ANSWER_NOTE}\n");
    }
    if !s.claims.is_empty() {
        let _ = writeln!(md, "## Claims of the seed\n");
        if let Some(f) = &s.forest {
            let _ = writeln!(
                md,
                "![{}](plots/{}.svg)\n\n{FOREST_NOTE}\n",
                f.title, f.stem
            );
        }
        let _ = writeln!(
            md,
            "| claim | seed | engine | measured (95 % CI) | verdict |\n|---|---|---|---|---|"
        );
        for r in &s.claims {
            let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
            let _ = writeln!(md, "| {} |", r.join(" | "));
        }
        if s.claims.iter().any(|r| r[2].contains(SLOW_MARK)) {
            let _ = writeln!(md, "\n{SLOW_NOTE}");
        }
        let _ = writeln!(md, "\n{CLAIMS_NOTE}\n");
    }
    let _ = writeln!(md, "## Findings\n");
    for sec in &s.findings {
        let _ = writeln!(md, "**{}**\n", sec.title);
        for f in &sec.items {
            let _ = writeln!(md, "- {f}");
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "\n## Setup\n\n| | |\n|---|---|");
    for (k, v) in &s.setup {
        let _ = writeln!(md, "| {k} | {} |", v.replace('|', "\\|"));
    }
    if !s.figures.is_empty() {
        let _ = writeln!(md, "\n{INTERVALS}");
    }
    for d in &s.figures {
        let _ = writeln!(md, "\n## {}\n", d.title);
        if !d.svg.is_empty() {
            let _ = writeln!(md, "![{}](plots/{}.svg)\n", d.title, d.stem);
        }
        if let Some(t) = &d.table {
            if !t.caption.is_empty() {
                let _ = writeln!(md, "{}\n", t.caption);
            }
            if t.head.is_empty() {
                continue;
            }
            let _ = writeln!(
                md,
                "| {} |\n|{}",
                t.head.join(" | "),
                "---|".repeat(t.head.len())
            );
            for r in &t.rows {
                let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
                let _ = writeln!(md, "| {} |", r.join(" | "));
            }
        }
    }
    if !s.failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for (id, error) in &s.failed {
            let _ = writeln!(md, "- {}: {}", id, error);
        }
    }
    let _ = writeln!(md, "\nAll numbers: `runs.csv` (one row per run and metric), `summary.csv`, `compare.csv`. Regenerate with `lsmlab report {}`.", s.dir);
    md
}
