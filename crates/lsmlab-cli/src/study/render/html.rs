//! The report as one self-contained HTML page (`report.html`): the sections of
//! `sections::Sections` with inline SVG and inline CSS, no JavaScript, no network.

use super::sections::{Sections, CLAIMS_NOTE, INTERVALS, TABLE_HEAD};
use std::fmt::Write as _;

const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}svg{max-width:100%;height:auto}
.q{font-size:1.15em;background:#f6f8fa;border-left:4px solid #0072b2;padding:.5em 1em}.small{color:#666;font-size:.85em}
td.v{font-weight:bold}td.reproduced{color:#1a7f37}td.reversed,td.not-reproduced{color:#b42318}td.inconclusive{color:#9a6700}";

/// `esc`, with `code` spans of markdown as <code>.
pub fn esc_code(s: &str) -> String {
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

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `report.html`.
pub fn html(s: &Sections) -> String {
    let mut h = String::new();
    let _ = write!(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n", esc(&s.title), esc(&s.title));
    if !s.question.is_empty() {
        let _ = writeln!(h, "<p class=\"q\">{}</p>", esc(&s.question));
    }
    if !s.claims.is_empty() {
        let _ = writeln!(h, "<h2>Claims of the seed</h2>\n<table>\n<tr><th>claim</th><th>seed</th><th>engine</th><th>measured (95 % CI)</th><th>verdict</th></tr>");
        for r in &s.claims {
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
    for sec in &s.findings {
        let _ = writeln!(h, "<h3>{}</h3>\n<ul>", esc(&sec.title));
        for f in &sec.items {
            let _ = writeln!(h, "<li>{}</li>", esc(f));
        }
        let _ = writeln!(h, "</ul>");
    }
    let _ = writeln!(h, "<h2>Setup and environment</h2>\n<table>");
    for (k, v) in &s.setup {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    let _ = writeln!(h, "</table>");
    for d in &s.figures {
        let _ = writeln!(h, "<h2>{}</h2>", esc(&d.title));
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
        if let Some(t) = &d.table {
            let _ = writeln!(
                h,
                "<p class=\"small\">metric <code>{}</code>; {}</p>\n<table>\n<tr>{}</tr>",
                esc(&t.metric),
                esc(INTERVALS),
                TABLE_HEAD
                    .iter()
                    .map(|c| format!("<th>{}</th>", esc(c)))
                    .collect::<String>()
            );
            for r in &t.rows {
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
    if !s.failed.is_empty() {
        let _ = writeln!(h, "<h2>Failed runs</h2>\n<ul>");
        for (id, error) in &s.failed {
            let _ = writeln!(h, "<li>{}: {}</li>", esc(id), esc(error));
        }
        let _ = writeln!(h, "</ul>");
    }
    let _ = writeln!(h, "<p class=\"small\">All numbers: runs.csv (one row per run and metric), summary.csv, compare.csv in {}. Regenerate with <code>lsmlab report DIR</code>.</p>\n</body>\n</html>", esc(&s.dir));
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(esc_code("a `m<1` b"), "a <code>m&lt;1</code> b");
    }
}
