//! The separated ratios of one findings section cut to what reads at a glance: listed one by
//! one when they fit the section's budget of lines; else one line per comparison (a metric and
//! a pair of values) saying in how many cells it went which way and how far, and past the
//! budget a count of the rest, which compare.csv holds.

use crate::text::significant;

/// Most lines a findings section lists; the rest are counted.
pub const LINES: usize = 10;

/// One ratio of a section.
pub struct Entry {
    /// The comparison it belongs to, as a line starts: `metric (a vs b)`.
    pub group: String,
    /// The ratio's own line, when listed alone.
    pub line: String,
    /// The ratio.
    pub ratio: f64,
    /// Whether its 95 % CI excludes 1.
    pub separated: bool,
}

/// The range of some ratios: `1.79×` or `1.79× to 2.98×`.
fn range(rs: &[f64]) -> String {
    let lo = rs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if (hi - lo).abs() < 1e-12 {
        format!("{}×", significant(lo))
    } else {
        format!("{}× to {}×", significant(lo), significant(hi))
    }
}

/// One comparison over its cells: `metric (a vs b): higher in 12 (1.79× to 2.98×), lower in 1
/// (0.134×) of 15 workload values; 2 not separated`.
fn group_line(group: &str, entries: &[&Entry], unit: &str) -> String {
    let up: Vec<f64> = entries
        .iter()
        .filter(|e| e.separated && e.ratio > 1.0)
        .map(|e| e.ratio)
        .collect();
    let down: Vec<f64> = entries
        .iter()
        .filter(|e| e.separated && e.ratio < 1.0)
        .map(|e| e.ratio)
        .collect();
    let mut parts = Vec::new();
    if !up.is_empty() {
        parts.push(format!("higher in {} ({})", up.len(), range(&up)));
    }
    if !down.is_empty() {
        parts.push(format!("lower in {} ({})", down.len(), range(&down)));
    }
    let quiet = entries.len() - up.len() - down.len();
    let mut line = format!("{group}: {} of {} {unit}", parts.join(", "), entries.len());
    if quiet > 0 {
        line += &format!("; {quiet} not separated");
    }
    line
}

/// The lines of a section of `entries` (in the order to list them), at most `LINES` of them
/// and a count of the rest; `unit` names the cells a comparison spans (`workload values`).
pub fn digest(entries: &[Entry], unit: &str) -> Vec<String> {
    let separated: Vec<&Entry> = entries.iter().filter(|e| e.separated).collect();
    if separated.len() <= LINES {
        return separated.iter().map(|e| e.line.clone()).collect();
    }
    // Comparisons with a separated ratio, in the order of their first entry.
    let mut groups: Vec<&str> = Vec::new();
    for e in &separated {
        if !groups.contains(&e.group.as_str()) {
            groups.push(&e.group);
        }
    }
    let of = |g: &str| -> Vec<&Entry> { entries.iter().filter(|e| e.group == g).collect() };
    let mut lines: Vec<String> = groups
        .iter()
        .take(LINES)
        .map(|g| {
            let all = of(g);
            if all.len() == 1 {
                all[0].line.clone()
            } else {
                group_line(g, &all, unit)
            }
        })
        .collect();
    if groups.len() > LINES {
        let rest = &groups[LINES..];
        let ratios: usize = rest
            .iter()
            .map(|g| of(g).iter().filter(|e| e.separated).count())
            .sum();
        lines.push(format!(
            "and {} more comparisons with {ratios} separated ratios in compare.csv",
            rest.len()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(group: &str, ratio: f64, separated: bool) -> Entry {
        Entry {
            group: group.into(),
            line: format!("{group} {ratio}"),
            ratio,
            separated,
        }
    }

    #[test]
    fn few_ratios_are_listed_one_by_one() {
        let v = vec![e("m (b vs a)", 1.5, true), e("m (c vs a)", 1.0, false)];
        assert_eq!(digest(&v, "cells"), ["m (b vs a) 1.5"]);
    }

    #[test]
    fn many_are_summarised_per_comparison_then_counted() {
        let mut v = Vec::new();
        for g in 0..12 {
            for w in 0..15 {
                let r = if w < 12 { 2.0 + w as f64 / 10.0 } else { 0.5 };
                v.push(e(&format!("m{g} (b vs a)"), r, w != 14));
            }
        }
        let d = digest(&v, "workload values");
        assert_eq!(d.len(), LINES + 1, "{d:?}");
        assert_eq!(
            d[0],
            "m0 (b vs a): higher in 12 (2.000× to 3.100×), lower in 2 (0.500×) of 15 workload values; 1 not separated"
        );
        assert_eq!(
            d[LINES],
            "and 2 more comparisons with 28 separated ratios in compare.csv"
        );
    }
}
