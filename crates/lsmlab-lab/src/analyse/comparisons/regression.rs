//! `lsmlab compare BASELINE CANDIDATE`: two results directories (two builds, two machines, or
//! two runs of one plan), per cell, engine and metric: the change, its 95 % CI and p, and a
//! verdict. The runs of two studies are not paired, so the ratio is of geometric means with
//! Welch's t on the logs. A change counts only when its whole CI lies beyond the threshold
//! (e.g. below 1/1.03 for "slower" at 3 %): by default each metric's smallest effect that
//! matters, the rule a claim's verdict uses (timings 3 %, work and sizes 1 %, rates 5 %;
//! docs/verdicts.md), or one `--threshold` for all. "Same" is a claim of equivalence: it is said only
//! when the whole CI lies inside ±threshold. A CI that is neither (too wide to tell, or across
//! an edge) is "undetermined", with the runs a side that would decide it at the spread observed
//! (`runs_to_decide`): three noisy runs a side cannot call a 48 % slowdown "same".
//!
//! A comparison tests hundreds of triples at once, and at 95 % some CIs of pure noise lie
//! beyond any threshold by chance (two of 304 did, for two runs of the quick study on one
//! build). So a change must also survive Benjamini–Hochberg at a 5 % false discovery rate,
//! applied to each triple's one-sided p of "the change is no larger than the threshold": a
//! real regression of many times the noise passes, a lone borderline interval among hundreds
//! does not.

use super::compare_inputs;
use super::runs_to_decide::{runs_a_side, MAX_RUNS};
use crate::analyse::numbers::statistics::{p_two_sided, t975};
use crate::plan::effect_defaults::metric_kind;
use crate::run::records::expanded::Expanded;
use crate::run::records::results::RunRecord;
use crate::text::csv_line;
use lsmlab_drivers::error::{CliError, CliResult};
use std::collections::BTreeMap;
use std::path::Path;

/// The threshold of `metric`: the one the user gave (`--threshold`), else the smallest effect
/// that matters for its kind (docs/verdicts.md: timings 3 %, work and sizes 1 %, rates 5 %), the
/// rule a claim's verdict uses, so that compare never calls *faster* what a claim calls no effect.
fn threshold_of(metric: &str, fixed: Option<f64>) -> f64 {
    fixed.unwrap_or_else(|| metric_kind(metric).smallest_effect())
}

/// One compared (cell, engine, metric).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The cell's axes (`bloom_bits=10`), matched by value, not index.
    pub cell: String,
    /// Engine.
    pub engine: String,
    /// Metric.
    pub metric: String,
    /// Runs on each side.
    pub n: (usize, usize),
    /// The smallest change that counts for this metric (a fraction: 0.03 = 3 %).
    pub threshold: f64,
    /// Candidate / baseline, of geometric means.
    pub ratio: f64,
    /// 95 % CI of the ratio (Welch on the logs).
    pub ci: (f64, f64),
    /// Two-sided p of "no change".
    pub p: f64,
    /// One-sided p of "the change is within the threshold" (the test the verdict rests on,
    /// before the false-discovery control over all triples).
    pub p_beyond: f64,
    /// faster, slower, higher, lower, same or undetermined.
    pub verdict: &'static str,
    /// Undetermined only: the runs a side (in all) that would decide it at the observed change
    /// and spread; `None` when decided, or out of reach (`runs_to_decide::MAX_RUNS`).
    pub runs_a_side: Option<usize>,
}

/// Whether a metric is a speed (higher is faster), a time (lower is faster), or neither.
fn direction(metric: &str) -> Option<bool> {
    if metric.ends_with("ops_per_sec") || metric.ends_with("mb_per_sec") {
        Some(true)
    } else if metric.ends_with("micros_per_op")
        || metric.ends_with("_us")
        || metric.ends_with("wall_s")
        || metric.ends_with("time_s")
    {
        Some(false)
    } else {
        None
    }
}

/// Welch's comparison of two samples on the logs.
struct Welch {
    /// Difference of the log means, candidate − baseline.
    d: f64,
    /// Its standard error (0 when neither side varies).
    se: f64,
    /// Welch–Satterthwaite degrees of freedom (infinite when `se` is 0).
    df: f64,
    /// Sample variances of the logs, baseline and candidate.
    va: f64,
    vb: f64,
}

impl Welch {
    /// Ratio of geometric means, its 95 % CI and the two-sided p of "no change".
    fn ratio(&self) -> Option<(f64, (f64, f64), f64)> {
        let r = self.d.exp();
        if self.se == 0.0 {
            let p = if self.d == 0.0 { 1.0 } else { 0.0 };
            return Some((r, (r, r), p));
        }
        let t = t975(self.df)?;
        let p = p_two_sided(self.d / self.se, self.df)?;
        Some((
            r,
            ((self.d - t * self.se).exp(), (self.d + t * self.se).exp()),
            p,
        ))
    }

    /// One-sided p that the true change is no larger than `threshold` (a fraction) in the
    /// direction observed.
    fn p_beyond(&self, threshold: f64) -> f64 {
        let margin = self.d.abs() - (1.0 + threshold).ln();
        if self.se == 0.0 {
            return if margin > 0.0 { 0.0 } else { 1.0 };
        }
        let t = margin / self.se;
        match p_two_sided(t, self.df) {
            Some(p2) if t > 0.0 => p2 / 2.0,
            Some(p2) => 1.0 - p2 / 2.0,
            None => 1.0,
        }
    }
}

/// Benjamini–Hochberg at false discovery rate `q`: which of `ps` are discoveries.
fn benjamini_hochberg(ps: &[f64], q: f64) -> Vec<bool> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    // The largest rank k whose p is at most k/m · q; every p up to it is a discovery.
    let cut = order
        .iter()
        .enumerate()
        .filter(|(k, &i)| ps[i] <= (k + 1) as f64 / m as f64 * q)
        .map(|(k, _)| k + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![false; m];
    for &i in &order[..cut] {
        out[i] = true;
    }
    out
}

/// The false discovery rate a comparison allows over all its triples.
const FDR: f64 = 0.05;

/// Welch's t on the logs of `a` and `b`; `None` without two positive values on each side.
fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let la: Vec<f64> = a
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect();
    let lb: Vec<f64> = b
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect();
    if la.len() < 2 || lb.len() < 2 {
        return None;
    }
    let stat = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, var, n)
    };
    let ((ma, va, na), (mb, vb, nb)) = (stat(&la), stat(&lb));
    let d = mb - ma;
    let se2 = va / na + vb / nb;
    if se2 <= 0.0 {
        return Some(Welch {
            d,
            se: 0.0,
            df: f64::INFINITY,
            va,
            vb,
        });
    }
    // Welch–Satterthwaite degrees of freedom.
    let df = se2 * se2 / ((va / na).powi(2) / (na - 1.0) + (vb / nb).powi(2) / (nb - 1.0));
    Some(Welch {
        d,
        se: se2.sqrt(),
        df,
        va,
        vb,
    })
}

/// Values by (cell label, engine, metric).
type Values = BTreeMap<(String, String, String), Vec<f64>>;

fn values(x: &Expanded, records: &[RunRecord]) -> Values {
    let mut out: Values = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == "ok") {
        let label = x.cells.get(r.cell).map(|c| c.label()).unwrap_or_default();
        for (m, v) in &r.metrics {
            out.entry((label.clone(), r.engine.clone(), m.clone()))
                .or_default()
                .push(*v);
        }
    }
    out
}

/// What `compare` could not compare, one line each: a cell and engine with failed runs or no
/// run on a side, a metric one side lacks, a metric with fewer than two positive values on a
/// side (a 0 on one side: `compactions 0 → 16`). Metrics 0 in every run on both sides are equal
/// and not listed.
pub fn not_compared(
    (bx, br, bmissing): (&Expanded, &[RunRecord], &[String]),
    (cx, cr, cmissing): (&Expanded, &[RunRecord], &[String]),
) -> Vec<NotCompared> {
    let mut out = Vec::new();
    // Runs by (cell, engine): (all, failed, missing ids) per side.
    type Side = (usize, usize, Vec<String>);
    let mut runs: BTreeMap<(String, String), [Side; 2]> = BTreeMap::new();
    for (side, (x, records, missing)) in [(bx, br, bmissing), (cx, cr, cmissing)]
        .into_iter()
        .enumerate()
    {
        for r in records {
            let label = x.cells.get(r.cell).map(|c| c.label()).unwrap_or_default();
            let e = runs.entry((label, r.engine.clone())).or_default();
            e[side].0 += 1;
            if r.status != "ok" {
                e[side].1 += 1;
            }
        }
        for id in missing {
            if let Some((cell, engine)) = cell_and_engine_of(x, id) {
                runs.entry((cell, engine)).or_default()[side]
                    .2
                    .push(id.clone());
            }
        }
    }
    let side_name = ["baseline", "candidate"];
    let mut whole_cell = Vec::new();
    let mut explained = Vec::new();
    for ((cell, engine), sides) in &runs {
        let mut why = Vec::new();
        for (i, (all, failed, missing)) in sides.iter().enumerate() {
            if !missing.is_empty() {
                why.push(format!(
                    "{} {} runs missing ({})",
                    missing.len(),
                    side_name[i],
                    missing.join(", ")
                ));
            }
            if *all == 0 && missing.is_empty() {
                why.push(format!("no run on the {} side", side_name[i]));
            } else if *failed > 0 {
                why.push(format!("{failed} of {all} {} runs failed", side_name[i]));
            }
        }
        if !why.is_empty() {
            explained.push((cell.clone(), engine.clone()));
            out.push(NotCompared {
                cell: cell.clone(),
                engine: engine.clone(),
                metric: None,
                why: why.join(", "),
                fails: true,
            });
        }
        if sides.iter().any(|(all, failed, _)| all == failed) {
            whole_cell.push((cell.clone(), engine.clone()));
        }
    }
    let (base, cand) = (values(bx, br), values(cx, cr));
    let positive = |v: &[f64]| v.iter().filter(|x| **x > 0.0 && x.is_finite()).count();
    let keys: std::collections::BTreeSet<_> = base.keys().chain(cand.keys()).collect();
    for k in keys {
        if whole_cell.iter().any(|(c, e)| *c == k.0 && *e == k.1) {
            continue;
        }
        let (a, b) = (base.get(k), cand.get(k));
        let mut fails = true;
        let why = match (a, b) {
            (Some(_), None) => "only in the baseline".to_string(),
            (None, Some(_)) => "only in the candidate".to_string(),
            (Some(a), Some(b)) => {
                let zero = |v: &[f64]| v.iter().all(|x| *x == 0.0);
                if zero(a) && zero(b) {
                    continue;
                }
                // Some runs 0 on both sides (a CPU time below the clock's tick) is too few
                // values to compare, and said, but no failure: only 0 on one side is a change.
                fails = zero(a) || zero(b);
                if positive(a) >= 2 && positive(b) >= 2 {
                    continue;
                }
                // Too few runs, already said of the cell: its failed or missing runs.
                if (a.len() < 2 || b.len() < 2)
                    && explained.iter().any(|(c, e)| *c == k.0 && *e == k.1)
                {
                    continue;
                }
                let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
                format!(
                    "{} → {} (mean of {} and {} runs): {}",
                    trim_number(mean(a)),
                    trim_number(mean(b)),
                    a.len(),
                    b.len(),
                    if fails {
                        "0 on one side"
                    } else {
                        "fewer than two values above 0 on a side"
                    }
                )
            }
            (None, None) => continue,
        };
        out.push(NotCompared {
            cell: k.0.clone(),
            engine: k.1.clone(),
            metric: Some(k.2.clone()),
            why,
            fails,
        });
    }
    out
}

/// A cell and engine, or one of its metrics, that `compare` could not compare, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotCompared {
    /// The cell's axes.
    pub cell: String,
    /// Engine.
    pub engine: String,
    /// The metric; `None` for the whole cell and engine.
    pub metric: Option<String>,
    /// Why.
    pub why: String,
    /// Whether it fails the comparison: failed or missing runs, a metric one side lacks or
    /// has as 0 in every run; not a metric 0 in some runs of both sides.
    pub fails: bool,
}

impl std::fmt::Display for NotCompared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cell {} engine {}", self.cell, self.engine)?;
        if let Some(m) = &self.metric {
            write!(f, " metric {m}")?;
        }
        write!(f, ": {}", self.why)
    }
}

/// The cell label and engine of run id `cNNN-ENGINE-rN` of study `x`.
fn cell_and_engine_of(x: &Expanded, id: &str) -> Option<(String, String)> {
    let rest = id.strip_prefix('c')?;
    let (cell, rest) = rest.split_once('-')?;
    let (engine, _) = rest.rsplit_once("-r")?;
    let cell: usize = cell.parse().ok()?;
    Some((x.cells.get(cell)?.label(), engine.to_string()))
}

fn trim_number(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Every (cell, engine, metric) both directories have, compared.
/// `fixed` is the `--threshold` for every metric; `None` takes each metric's smallest effect.
pub fn compare(base: &Values, cand: &Values, fixed: Option<f64>) -> Vec<Change> {
    let mut tested = Vec::new();
    for (k, a) in base {
        let Some(b) = cand.get(k) else {
            continue;
        };
        let Some(w) = welch(a, b) else {
            continue;
        };
        let Some(r) = w.ratio() else {
            continue;
        };
        let threshold = threshold_of(&k.2, fixed);
        tested.push((k, (a.len(), b.len()), r, w.p_beyond(threshold), w));
    }
    let ps: Vec<f64> = tested.iter().map(|t| t.3).collect();
    let discovered = benjamini_hochberg(&ps, FDR);
    let mut out = Vec::new();
    for ((k, n, (ratio, ci, p), p_beyond, w), found) in tested.into_iter().zip(discovered) {
        let threshold = threshold_of(&k.2, fixed);
        let (up, down) = (
            found && ci.0 > 1.0 + threshold,
            found && ci.1 < 1.0 / (1.0 + threshold),
        );
        let verdict = match (direction(&k.2), up, down) {
            (Some(true), true, _) | (Some(false), _, true) => "faster",
            (Some(true), _, true) | (Some(false), true, _) => "slower",
            (None, true, _) => "higher",
            (None, _, true) => "lower",
            _ if ci.0 >= 1.0 / (1.0 + threshold) && ci.1 <= 1.0 + threshold => "same",
            _ => "undetermined",
        };
        // Runs the candidate side has beyond the baseline's do not count twice: the
        // projection is of a side, so it is never below the larger side plus one.
        let runs_a_side = (verdict == "undetermined")
            .then(|| runs_a_side(w.d, w.va, w.vb, threshold).map(|r| r.max(n.0.max(n.1) + 1)))
            .flatten();
        out.push(Change {
            cell: k.0.clone(),
            engine: k.1.clone(),
            metric: k.2.clone(),
            n,
            threshold,
            ratio,
            ci,
            p,
            p_beyond,
            verdict,
            runs_a_side,
        });
    }
    out
}

/// The CSV of every change.
pub fn csv(changes: &[Change]) -> String {
    let mut out =
        "cell,engine,metric,n_baseline,n_candidate,change_pct,ci95_lo_pct,ci95_hi_pct,p,p_beyond,verdict,runs_a_side_to_decide\n"
            .to_string();
    for c in changes {
        out.push_str(&csv_line(&[
            c.cell.clone(),
            c.engine.clone(),
            c.metric.clone(),
            c.n.0.to_string(),
            c.n.1.to_string(),
            format!("{:.3}", (c.ratio - 1.0) * 100.0),
            format!("{:.3}", (c.ci.0 - 1.0) * 100.0),
            format!("{:.3}", (c.ci.1 - 1.0) * 100.0),
            format!("{:.6}", c.p),
            format!("{:.6}", c.p_beyond),
            c.verdict.to_string(),
            c.runs_a_side.map_or(String::new(), |r| r.to_string()),
        ]));
        out.push('\n');
    }
    out
}

/// The markdown summary: counts, every change that is not "same", then the undetermined ones
/// with the runs a side that would decide each.
pub fn markdown(base: &Path, cand: &Path, changes: &[Change], fixed: Option<f64>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in changes {
        *counts.entry(c.verdict).or_default() += 1;
    }
    let bound = match fixed {
        Some(t) => format!("±{} %", trim_number(t * 100.0)),
        None => "its metric's smallest effect (timings ±3 %, work and sizes ±1 %, rates ±5 %; docs/verdicts.md)".to_string(),
    };
    let mut md = format!(
        "# {} → {}\n\n{} cell, engine and metric triples compared; a change counts when its whole 95 % CI (Welch's t on the logs) lies beyond {bound} and it survives Benjamini–Hochberg at a 5 % false discovery rate over all triples; *same* when its whole CI lies inside it; *undetermined* otherwise: {}\n",
        base.display(),
        cand.display(),
        changes.len(),
        counts
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let row = |c: &Change| {
        format!(
            "| {} | {} | {} | {:+.1} % | [{:+.1} %, {:+.1} %] | {:.4} |",
            c.cell,
            c.engine,
            c.metric,
            (c.ratio - 1.0) * 100.0,
            (c.ci.0 - 1.0) * 100.0,
            (c.ci.1 - 1.0) * 100.0,
            c.p,
        )
    };
    let moved: Vec<&Change> = changes
        .iter()
        .filter(|c| c.verdict != "same" && c.verdict != "undetermined")
        .collect();
    if !moved.is_empty() {
        md += "\n| cell | engine | metric | change | 95 % CI | p | verdict |\n|---|---|---|---|---|---|---|\n";
        for c in moved {
            md += &format!("{} {} |\n", row(c), c.verdict);
        }
    }
    let mut open: Vec<&Change> = changes
        .iter()
        .filter(|c| c.verdict == "undetermined")
        .collect();
    if !open.is_empty() {
        // The cheapest to decide first; out of reach last.
        open.sort_by_key(|c| c.runs_a_side.unwrap_or(usize::MAX));
        md += &format!(
            "\n## Undetermined\n\nTheir CI is too wide to say *same* or a change beyond {bound}. The runs a side (in all) that would decide each, at the change and spread measured:\n\n| cell | engine | metric | change | 95 % CI | p | runs a side to decide |\n|---|---|---|---|---|---|---|\n"
        );
        for c in open {
            let need = match c.runs_a_side {
                Some(r) => format!("≈ {r}"),
                None => format!("more than {MAX_RUNS}"),
            };
            md += &format!("{} {need} |\n", row(c));
        }
    }
    md
}

/// `lsmlab compare BASELINE CANDIDATE [--threshold PCT] [--csv FILE]`: prints the markdown,
/// writes the CSV, and fails when anything is slower.
pub fn compare_main(
    base: &Path,
    cand: &Path,
    threshold_pct: Option<f64>,
    csv_path: Option<&Path>,
) -> CliResult<()> {
    if let Some(t) = threshold_pct {
        if !(t.is_finite() && (0.0..=1000.0).contains(&t)) {
            return Err(CliError::new(format!(
                "--threshold: {t}; allowed 0 to 1000 (percent)"
            )));
        }
    }
    let threshold = threshold_pct.map(|t| t / 100.0);
    if let Some(p) = csv_path {
        compare_inputs::check_csv_path(p, &[base, cand])?;
    }
    let (bx, br, bmissing) = compare_inputs::load(base)?;
    let (cx, cr, cmissing) = compare_inputs::load(cand)?;
    for (dir, missing) in [(base, &bmissing), (cand, &cmissing)] {
        if !missing.is_empty() {
            eprintln!(
                "warning: {}: {} runs of its plan missing (e.g. {}); compared without them",
                dir.display(),
                missing.len(),
                missing[0]
            );
        }
    }
    if let Some(d) = compare_inputs::first_difference(&bx, &cx) {
        eprintln!(
            "warning: {} and {} ran different plans (first difference: {d}); their changes mix the plan's with the build's",
            base.display(),
            cand.display()
        );
    }
    let changes = compare(&values(&bx, &br), &values(&cx, &cr), threshold);
    let skipped = not_compared((&bx, &br, &bmissing), (&cx, &cr, &cmissing));
    if changes.is_empty() {
        return Err(CliError::new(format!(
            "compare: {} and {} share no cell, engine and metric with two runs on each side{}",
            base.display(),
            cand.display(),
            match skipped.first() {
                Some(first) => format!(" ({} not compared, e.g. {first})", skipped.len()),
                None => String::new(),
            }
        )));
    }
    if let Some(p) = csv_path {
        let mut text = csv(&changes);
        for n in &skipped {
            text.push_str(&not_compared_csv_line(n));
        }
        std::fs::write(p, text)
            .map_err(|e| CliError::new(format!("--csv {}: {e}", p.display())))?;
    }
    print!("{}", markdown(base, cand, &changes, threshold));
    if !skipped.is_empty() {
        print!(
            "\n## Not compared\n\nFailed or missing runs, metrics one side lacks, metrics 0 on one side (these fail the comparison), and metrics with fewer than two values above 0 on a side have no change to measure:\n\n{}",
            skipped.iter().map(|l| format!("- {l}\n")).collect::<String>()
        );
    }
    let slower = changes.iter().filter(|c| c.verdict == "slower").count();
    let mut why = Vec::new();
    if slower > 0 {
        why.push(format!(
            "{slower} of {} figures slower by more than {}",
            changes.len(),
            match threshold_pct {
                Some(t) => format!("{t} %"),
                None => "their smallest effect".to_string(),
            }
        ));
    }
    let failing: Vec<&NotCompared> = skipped.iter().filter(|n| n.fails).collect();
    if let Some(first) = failing.first() {
        why.push(format!(
            "{} cells or metrics not compared (listed under \"Not compared\"; first: {first})",
            failing.len(),
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(CliError::new(format!("compare: {}", why.join("; "))))
    }
}

/// A `not_compared` entry as a compare.csv row: its cell, engine and metric (empty for a
/// whole cell), no figures, the verdict `not compared`.
fn not_compared_csv_line(n: &NotCompared) -> String {
    let mut fields = vec![
        n.cell.clone(),
        n.engine.clone(),
        n.metric.clone().unwrap_or_default(),
    ];
    fields.extend(std::iter::repeat_n(String::new(), 7));
    fields.push("not compared".to_string());
    fields.push(String::new());
    let mut row = csv_line(&fields);
    row.push('\n');
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(rows: &[(&str, &[f64])]) -> Values {
        rows.iter()
            .map(|(m, v)| {
                (
                    ("c".to_string(), "lsmlab".to_string(), m.to_string()),
                    v.to_vec(),
                )
            })
            .collect()
    }

    fn welch_log_ratio(a: &[f64], b: &[f64]) -> Option<(f64, (f64, f64), f64)> {
        welch(a, b)?.ratio()
    }

    #[test]
    fn without_a_threshold_each_metric_takes_its_smallest_effect() {
        // The same 4 % drop, well measured, of a timing and of a rate: beyond the timing's 3 %,
        // inside the rate's 5 % (the rule a claim's verdict uses).
        let mut base = Values::new();
        let mut cand = Values::new();
        for metric in ["readrandom.ops_per_sec", "readrandom.fpr"] {
            let k = ("c".to_string(), "lsmlab".to_string(), metric.to_string());
            base.insert(k.clone(), vec![100.0, 100.2, 99.8, 100.1, 99.9]);
            cand.insert(k, vec![96.0, 96.2, 95.8, 96.1, 95.9]);
        }
        let c = compare(&base, &cand, None);
        let of = |m: &str| c.iter().find(|c| c.metric == m).unwrap();
        assert_eq!(of("readrandom.ops_per_sec").verdict, "slower");
        assert_eq!(of("readrandom.ops_per_sec").threshold, 0.03);
        assert_eq!(of("readrandom.fpr").verdict, "same");
        assert_eq!(of("readrandom.fpr").threshold, 0.05);
        // One threshold for all: 10 % makes the timing's 4 % *same*.
        let c = compare(&base, &cand, Some(0.10));
        assert_eq!(
            c.iter()
                .find(|c| c.metric == "readrandom.ops_per_sec")
                .unwrap()
                .verdict,
            "same"
        );
    }

    #[test]
    fn benjamini_hochberg_by_hand() {
        // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. Sorted p 0.001, 0.015,
        // 0.035, 0.041, 0.9: the largest rank under its threshold is 2 (0.035 > 0.03,
        // 0.041 > 0.04), so the first two are discoveries.
        let ps = [0.9, 0.035, 0.001, 0.041, 0.015];
        assert_eq!(
            benjamini_hochberg(&ps, 0.05),
            [false, false, true, false, true]
        );
        // A step-up rule: a p over its own threshold is still in when a larger rank is under.
        assert_eq!(benjamini_hochberg(&[0.03, 0.04], 0.05), [true, true]);
        assert!(benjamini_hochberg(&[], 0.05).is_empty());
    }

    #[test]
    fn chance_intervals_among_hundreds_are_same_and_a_real_slowdown_is_not() {
        // 300 metrics of pure noise (±6 %, three runs each side) in which one interval lies
        // beyond 10 % by chance, and one metric genuinely 40 % slower.
        let noise = [1.0, 1.06, 0.94];
        let mut base = Values::new();
        let mut cand = Values::new();
        for i in 0..300 {
            let k = (
                "c".to_string(),
                "lsmlab".to_string(),
                format!("m{i:03}.p99_us"),
            );
            base.insert(k.clone(), noise.iter().map(|v| 100.0 * v).collect());
            let shift = if i == 7 {
                1.30
            } else {
                1.0 + (i % 5) as f64 * 0.01
            };
            cand.insert(k, noise.iter().rev().map(|v| 100.0 * v * shift).collect());
        }
        let k = (
            "c".to_string(),
            "lsmlab".to_string(),
            "r.ops_per_sec".to_string(),
        );
        base.insert(k.clone(), vec![100.0, 101.0, 99.0]);
        cand.insert(k, vec![60.0, 60.5, 59.5]);
        let c = compare(&base, &cand, Some(0.10));
        let chance = c.iter().find(|c| c.metric == "m007.p99_us").unwrap();
        assert!(
            chance.ci.0 > 1.10,
            "the chance interval lies beyond 10 %: {chance:?}"
        );
        // Not a change (Benjamini–Hochberg), and not "same" either: three runs at ±6 % cannot
        // place a change within ±10 %.
        assert_eq!(chance.verdict, "undetermined");
        let moved: Vec<(&str, &str)> = c
            .iter()
            .filter(|c| c.verdict != "same" && c.verdict != "undetermined")
            .map(|c| (c.metric.as_str(), c.verdict))
            .collect();
        assert_eq!(moved, [("r.ops_per_sec", "slower")]);
    }

    /// Normal noise from a fixed-seed generator: splitmix64 and Box–Muller.
    struct Noise(u64);

    impl Noise {
        fn uniform(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }

        fn normal(&mut self) -> f64 {
            let (u, v) = (self.uniform().max(1e-300), self.uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        }

        /// `n` runs around `mean` at coefficient of variation `cv` (log-normal).
        fn runs(&mut self, n: usize, mean: f64, cv: f64) -> Vec<f64> {
            (0..n).map(|_| mean * (cv * self.normal()).exp()).collect()
        }
    }

    #[test]
    fn a_slowdown_of_25_to_50_percent_is_never_same_at_three_runs_a_side() {
        // Every metric of a study slowed by 25–50 %, at spreads from 1 % to 40 %: a CI too wide
        // to place is undetermined, never "same", and says how many runs would decide it.
        let mut noise = Noise(38);
        let (mut base, mut cand) = (Values::new(), Values::new());
        for i in 0..400 {
            let cv = [0.01, 0.05, 0.1, 0.2, 0.4][i % 5];
            let slow = 0.50 + 0.25 * noise.uniform();
            let k = (
                "c".to_string(),
                "lsmlab".to_string(),
                format!("m{i:03}.ops_per_sec"),
            );
            base.insert(k.clone(), noise.runs(3, 1000.0, cv));
            cand.insert(k, noise.runs(3, 1000.0 * slow, cv));
        }
        let c = compare(&base, &cand, Some(0.10));
        assert_eq!(c.len(), 400);
        let same: Vec<&Change> = c.iter().filter(|c| c.verdict == "same").collect();
        assert!(same.is_empty(), "{same:?}");
        assert!(c
            .iter()
            .all(|c| matches!(c.verdict, "slower" | "undetermined")));
        let open: Vec<&Change> = c.iter().filter(|c| c.verdict == "undetermined").collect();
        assert!(
            !open.is_empty(),
            "the noisiest metrics cannot be placed with 3 runs"
        );
        assert!(open.iter().all(|c| c.runs_a_side.is_none_or(|r| r > 3)));
        assert!(open.iter().any(|c| c.runs_a_side.is_some()));
        // At 1 % spread (every fifth metric) every slowdown is seen as one.
        assert!(c
            .iter()
            .filter(|c| c.metric[1..4].parse::<usize>().unwrap() % 5 == 0)
            .all(|c| c.verdict == "slower"));
    }

    #[test]
    fn two_runs_of_one_plan_with_low_noise_are_all_same() {
        let mut noise = Noise(7);
        let (mut base, mut cand) = (Values::new(), Values::new());
        for i in 0..384 {
            let k = (
                "c".to_string(),
                "lsmlab".to_string(),
                format!("m{i:03}.ops_per_sec"),
            );
            let mean = 100.0 + i as f64;
            base.insert(k.clone(), noise.runs(3, mean, 0.01));
            cand.insert(k, noise.runs(3, mean, 0.01));
        }
        let c = compare(&base, &cand, Some(0.10));
        assert_eq!(c.len(), 384);
        assert!(c
            .iter()
            .all(|c| c.verdict == "same" && c.runs_a_side.is_none()));
    }

    #[test]
    fn a_wide_interval_is_undetermined_with_its_cost_in_the_csv_and_summary() {
        // The same runs in another order: no change, but ±10 % spread at three runs a side.
        let base = vals(&[("readrandom.ops_per_sec", &[100.0, 120.0, 85.0])]);
        let cand = vals(&[("readrandom.ops_per_sec", &[120.0, 85.0, 100.0])]);
        let c = compare(&base, &cand, Some(0.10));
        assert_eq!(c[0].verdict, "undetermined");
        let r = c[0].runs_a_side.expect("within reach");
        assert!(r > 3, "{r}");
        assert!(csv(&c)
            .lines()
            .nth(1)
            .unwrap()
            .ends_with(&format!(",undetermined,{r}")));
        let md = markdown(Path::new("a"), Path::new("b"), &c, Some(0.10));
        assert!(
            md.contains("1 undetermined") && md.contains(&format!("| ≈ {r} |")),
            "{md}"
        );
    }

    #[test]
    fn welch_by_hand() {
        // logs 0, 0.1, 0.2 against 0.3, 0.4, 0.5: difference 0.3, se = 0.1·√(2/3), df = 4.
        let a: Vec<f64> = [0.0f64, 0.1, 0.2].iter().map(|x| x.exp()).collect();
        let b: Vec<f64> = [0.3f64, 0.4, 0.5].iter().map(|x| x.exp()).collect();
        let (r, ci, p) = welch_log_ratio(&a, &b).unwrap();
        assert!((r - 0.3f64.exp()).abs() < 1e-12);
        let se = 0.1 * (2.0f64 / 3.0).sqrt();
        assert!((ci.0.ln() - (0.3 - 2.7764 * se)).abs() < 1e-3);
        assert!((ci.1.ln() - (0.3 + 2.7764 * se)).abs() < 1e-3);
        assert!(p < 0.05 && p > 0.001, "{p}");
    }

    #[test]
    fn noise_is_same_and_a_slowdown_beyond_the_threshold_is_slower() {
        let base = vals(&[
            ("readrandom.ops_per_sec", &[100.0, 110.0, 90.0]),
            ("readrandom.p99_us", &[10.0, 10.1, 9.9]),
            ("x.write_amp", &[2.0, 2.0, 2.0]),
        ]);
        // ±10 % noise on three runs: neither same nor a change.
        let noisy = vals(&[
            ("readrandom.ops_per_sec", &[95.0, 112.0, 101.0]),
            ("readrandom.p99_us", &[10.1, 9.95, 10.2]),
            ("x.write_amp", &[2.0, 2.0, 2.0]),
        ]);
        let v: Vec<&str> = compare(&base, &noisy, Some(0.10))
            .iter()
            .map(|c| c.verdict)
            .collect();
        assert_eq!(v, ["undetermined", "same", "same"]);
        let slow = vals(&[
            ("readrandom.ops_per_sec", &[60.0, 62.0, 58.0]),
            ("readrandom.p99_us", &[16.0, 16.5, 15.5]),
            ("x.write_amp", &[3.0, 3.0, 3.0]),
        ]);
        let c = compare(&base, &slow, Some(0.10));
        let v: Vec<&str> = c.iter().map(|c| c.verdict).collect();
        assert_eq!(v, ["slower", "slower", "higher"]);
        let csv = csv(&c);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with("c,lsmlab,readrandom.ops_per_sec,3,3,-39.8"),
            "{csv}"
        );
    }
}
