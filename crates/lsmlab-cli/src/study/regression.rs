//! `lsmlab compare BASELINE CANDIDATE`: two results directories (two builds, two machines, or
//! two runs of one plan), per cell, engine and metric: the change, its 95 % CI and p, and a
//! verdict. The runs of two studies are not paired, so the ratio is of geometric means with
//! Welch's t on the logs. A change counts only when its whole CI lies beyond the threshold
//! (e.g. below 1/1.10 for "slower" at 10 %): noise that merely excludes 1 is "same".

use super::results::{self, RunRecord};
use super::statistics::{p_two_sided, t975};
use super::Expanded;
use crate::error::{CliError, CliResult};
use std::collections::BTreeMap;
use std::path::Path;

/// Default threshold: 10 %.
pub const DEFAULT_THRESHOLD: f64 = 0.10;

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
    /// Candidate / baseline, of geometric means.
    pub ratio: f64,
    /// 95 % CI of the ratio (Welch on the logs).
    pub ci: (f64, f64),
    /// Two-sided p of "no change".
    pub p: f64,
    /// faster, slower, higher, lower or same.
    pub verdict: &'static str,
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

/// Ratio of geometric means of `b` to `a`, its Welch CI and p; `None` without two positive
/// values on each side.
fn welch_log_ratio(a: &[f64], b: &[f64]) -> Option<(f64, (f64, f64), f64)> {
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
        let p = if d == 0.0 { 1.0 } else { 0.0 };
        return Some((d.exp(), (d.exp(), d.exp()), p));
    }
    // Welch–Satterthwaite degrees of freedom.
    let df = se2 * se2 / ((va / na).powi(2) / (na - 1.0) + (vb / nb).powi(2) / (nb - 1.0));
    let se = se2.sqrt();
    let t = t975(df)?;
    let p = p_two_sided(d / se, df)?;
    Some((d.exp(), ((d - t * se).exp(), (d + t * se).exp()), p))
}

fn load(dir: &Path) -> CliResult<(Expanded, Vec<RunRecord>)> {
    let text = std::fs::read_to_string(dir.join("plan.json"))
        .map_err(|e| CliError::new(format!("{}: not a results directory ({e})", dir.display())))?;
    let x: Expanded = serde_json::from_str(&text)
        .map_err(|e| CliError::new(format!("{}/plan.json: {e}", dir.display())))?;
    Ok((x, results::load_all(dir)?))
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

/// Every (cell, engine, metric) both directories have, compared.
pub fn compare(base: &Values, cand: &Values, threshold: f64) -> Vec<Change> {
    let mut out = Vec::new();
    for (k, a) in base {
        let Some(b) = cand.get(k) else {
            continue;
        };
        let Some((ratio, ci, p)) = welch_log_ratio(a, b) else {
            continue;
        };
        let (up, down) = (ci.0 > 1.0 + threshold, ci.1 < 1.0 / (1.0 + threshold));
        let verdict = match (direction(&k.2), up, down) {
            (Some(true), true, _) | (Some(false), _, true) => "faster",
            (Some(true), _, true) | (Some(false), true, _) => "slower",
            (None, true, _) => "higher",
            (None, _, true) => "lower",
            _ => "same",
        };
        out.push(Change {
            cell: k.0.clone(),
            engine: k.1.clone(),
            metric: k.2.clone(),
            n: (a.len(), b.len()),
            ratio,
            ci,
            p,
            verdict,
        });
    }
    out
}

/// The CSV of every change.
pub fn csv(changes: &[Change]) -> String {
    let mut out =
        "cell,engine,metric,n_baseline,n_candidate,change_pct,ci95_lo_pct,ci95_hi_pct,p,verdict\n"
            .to_string();
    for c in changes {
        out.push_str(&results::csv_line(&[
            c.cell.clone(),
            c.engine.clone(),
            c.metric.clone(),
            c.n.0.to_string(),
            c.n.1.to_string(),
            format!("{:.3}", (c.ratio - 1.0) * 100.0),
            format!("{:.3}", (c.ci.0 - 1.0) * 100.0),
            format!("{:.3}", (c.ci.1 - 1.0) * 100.0),
            format!("{:.6}", c.p),
            c.verdict.to_string(),
        ]));
        out.push('\n');
    }
    out
}

/// The markdown summary: counts, then every change that is not "same".
pub fn markdown(base: &Path, cand: &Path, changes: &[Change], threshold: f64) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in changes {
        *counts.entry(c.verdict).or_default() += 1;
    }
    let mut md = format!(
        "# {} → {}\n\n{} cell, engine and metric triples compared; a change counts when its whole 95 % CI (Welch's t on the logs) lies beyond ±{:.0} %: {}\n",
        base.display(),
        cand.display(),
        changes.len(),
        threshold * 100.0,
        counts
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let moved: Vec<&Change> = changes.iter().filter(|c| c.verdict != "same").collect();
    if !moved.is_empty() {
        md += "\n| cell | engine | metric | change | 95 % CI | p | verdict |\n|---|---|---|---|---|---|---|\n";
        for c in moved {
            md += &format!(
                "| {} | {} | {} | {:+.1} % | [{:+.1} %, {:+.1} %] | {:.4} | {} |\n",
                c.cell,
                c.engine,
                c.metric,
                (c.ratio - 1.0) * 100.0,
                (c.ci.0 - 1.0) * 100.0,
                (c.ci.1 - 1.0) * 100.0,
                c.p,
                c.verdict
            );
        }
    }
    md
}

/// `lsmlab compare BASELINE CANDIDATE [--threshold PCT] [--csv FILE]`: prints the markdown,
/// writes the CSV, and fails when anything is slower.
pub fn compare_main(
    base: &Path,
    cand: &Path,
    threshold_pct: f64,
    csv_path: Option<&Path>,
) -> CliResult<()> {
    if !(threshold_pct.is_finite() && (0.0..=1000.0).contains(&threshold_pct)) {
        return Err(CliError::new(format!(
            "--threshold: {threshold_pct}; allowed 0 to 1000 (percent)"
        )));
    }
    let threshold = threshold_pct / 100.0;
    let (bx, br) = load(base)?;
    let (cx, cr) = load(cand)?;
    let changes = compare(&values(&bx, &br), &values(&cx, &cr), threshold);
    if changes.is_empty() {
        return Err(CliError::new(format!(
            "compare: {} and {} share no cell, engine and metric with two runs on each side",
            base.display(),
            cand.display()
        )));
    }
    if let Some(p) = csv_path {
        std::fs::write(p, csv(&changes))
            .map_err(|e| CliError::new(format!("--csv {}: {e}", p.display())))?;
    }
    print!("{}", markdown(base, cand, &changes, threshold));
    let slower = changes.iter().filter(|c| c.verdict == "slower").count();
    if slower > 0 {
        return Err(CliError::new(format!(
            "compare: {slower} of {} figures slower by more than {threshold_pct} %",
            changes.len()
        )));
    }
    Ok(())
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
            ("readrandom.p99_us", &[10.0, 10.5, 9.5]),
            ("x.write_amp", &[2.0, 2.0, 2.0]),
        ]);
        let same = vals(&[
            ("readrandom.ops_per_sec", &[95.0, 112.0, 101.0]),
            ("readrandom.p99_us", &[10.2, 9.9, 10.4]),
            ("x.write_amp", &[2.0, 2.0, 2.0]),
        ]);
        assert!(compare(&base, &same, 0.10)
            .iter()
            .all(|c| c.verdict == "same"));
        let slow = vals(&[
            ("readrandom.ops_per_sec", &[60.0, 62.0, 58.0]),
            ("readrandom.p99_us", &[16.0, 16.5, 15.5]),
            ("x.write_amp", &[3.0, 3.0, 3.0]),
        ]);
        let c = compare(&base, &slow, 0.10);
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
