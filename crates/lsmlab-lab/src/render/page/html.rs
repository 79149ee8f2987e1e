//! The report as one self-contained HTML page (`report.html`): the sections of
//! `sections::Sections` with inline SVG and inline CSS, no JavaScript, no network.

use super::sections::{
    FigureTable, Sections, ANSWER_NOTE, CLAIMS_NOTE, FOREST_NOTE, INTERVALS, SLOW_MARK, SLOW_NOTE,
};
use std::fmt::Write as _;

const CSS: &str = "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;overflow-wrap:break-word}
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}svg{max-width:100%;height:auto}
.answer li{margin:.25em 0}.q{font-size:1.15em;background:#f6f8fa;border-left:4px solid #0072b2;padding:.5em 1em}.small{color:#666;font-size:.85em}
td.v{font-weight:bold;overflow-wrap:normal}.ci{color:#555;font-size:.85em;white-space:nowrap}.scroll{overflow-x:auto}.wide{margin:0 min(0px,calc(500px - 50vw + 1em))}table.many{font-size:.76em}table.many td,table.many th{padding:.2em .35em}td.reproduced{color:#1a7f37}td.reversed,td.not-reproduced{color:#b42318}td.inconclusive{color:#9a6700}";

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

/// `esc`, with a break opportunity after each dot or plus followed by a letter, so
/// that a long metric name (`fillrandom+readrandom.filter_bits_per_key`) wraps in a narrow
/// column instead of widening the table; numbers never break.
pub fn esc_wrap(s: &str) -> String {
    let text = esc(s);
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if matches!(c, '.' | '+') && chars.peek().is_some_and(|n| n.is_alphabetic()) {
            out.push_str("<wbr>");
        }
    }
    out
}

/// A number cell: its figure, and its interval (from ` [`) on a line of its own in small type.
fn number_cell(s: &str) -> String {
    match s.split_once(" [") {
        Some((v, ci)) => format!("{}<br><span class=\"ci\">[{}</span>", esc_wrap(v), esc(ci)),
        None => esc_wrap(s),
    }
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
    if !s.answer.is_empty() {
        let _ = writeln!(h, "<h2>Answer</h2>\n<ul class=\"answer\">");
        for a in &s.answer {
            let _ = writeln!(h, "<li>{}</li>", esc(a));
        }
        let _ = writeln!(h, "</ul>\n<p class=\"small\">{}</p>", esc(ANSWER_NOTE));
    }
    if !s.claims.is_empty() {
        let _ = writeln!(h, "<h2>Claims of the seed</h2>");
        if let Some(f) = &s.forest {
            let _ = writeln!(
                h,
                "<figure id=\"{}\">{}</figure>\n<p class=\"small\">{}</p>",
                esc(&f.stem),
                inline_svg(&f.svg),
                esc(FOREST_NOTE)
            );
        }
        let _ = writeln!(h, "<table>\n<tr><th>claim</th><th>seed</th><th>engine</th><th>measured (95 % CI)</th><th>verdict</th></tr>");
        for r in &s.claims {
            let class = r[4].replace(' ', "-").replace('/', "");
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"v {class}\">{}</td></tr>",
                esc_code(&r[0]),
                esc(&r[1]),
                esc_wrap(&r[2]),
                esc_wrap(&r[3]),
                esc(&r[4])
            );
        }
        let _ = writeln!(h, "</table>");
        if s.claims.iter().any(|r| r[2].contains(SLOW_MARK)) {
            let _ = writeln!(h, "<p class=\"small\">{}</p>", esc(SLOW_NOTE));
        }
        let _ = writeln!(h, "<p class=\"small\">{}</p>", esc(CLAIMS_NOTE));
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
    if !s.figures.is_empty() {
        let _ = writeln!(h, "<p class=\"small\">{}</p>", esc(INTERVALS));
    }
    for d in &s.figures {
        // Each figure has an anchor, so that a link can point at it.
        let _ = writeln!(h, "<h2 id=\"{}\">{}</h2>", esc(&d.stem), esc(&d.title));
        if !d.svg.is_empty() {
            let _ = writeln!(h, "<figure>{}</figure>", inline_svg(&d.svg));
        }
        if let Some(t) = &d.table {
            h.push_str(&table(t));
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

/// An SVG document as inline SVG: no XML declaration, no namespace (inline SVG in HTML needs
/// none; dropping it leaves no URL in the file).
fn inline_svg(svg: &str) -> String {
    let svg = svg.trim_start_matches(|c| c != '<');
    let svg = if svg.starts_with("<?xml") {
        svg.split_once("?>").map(|x| x.1).unwrap_or(svg)
    } else {
        svg
    };
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
}

/// A figure's table.
fn table(t: &FigureTable) -> String {
    let mut h = String::new();
    if !t.caption.is_empty() {
        let _ = writeln!(h, "<p class=\"small\">{}</p>", esc_code(&t.caption));
    }
    if t.head.is_empty() {
        return h;
    }
    let head: String = t
        .head
        .iter()
        .map(|c| format!("<th>{}</th>", esc_wrap(c)))
        .collect();
    // A table wider than the page scrolls inside its box; the page itself never does.
    // Many columns take smaller type and the window's width, so that ten metrics still fit.
    let (div, class) = if t.head.len() > 7 {
        ("scroll wide", " class=\"many\"")
    } else {
        ("scroll", "")
    };
    let _ = writeln!(h, "<div class=\"{div}\"><table{class}>\n<tr>{head}</tr>");
    for r in &t.rows {
        let cells: String = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if (t.numbers_from..t.numbers_to).contains(&i) {
                    format!("<td class=\"n\">{}</td>", number_cell(c))
                } else {
                    format!("<td>{}</td>", esc_wrap(c))
                }
            })
            .collect();
        let _ = writeln!(h, "<tr>{cells}</tr>");
    }
    let _ = writeln!(h, "</table></div>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(esc_code("a `m<1` b"), "a <code>m&lt;1</code> b");
        assert_eq!(
            esc_wrap("fill+read.fpr_x 0.5"),
            "fill+<wbr>read.<wbr>fpr_x 0.5"
        );
        assert_eq!(
            number_cell("1.5 [1.2, 1.8]"),
            "1.5<br><span class=\"ci\">[1.2, 1.8]</span>"
        );
    }
}
