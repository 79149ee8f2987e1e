//! Verdicts: the claims of a plan (`plan::claims`) decided against the runs by the statistics,
//! never by hand.
//!
//! A claim names a metric, or the ratio of a metric between two values of an axis (or two
//! engines), the relation the seed reports (greater, smaller, about equal within a tolerance,
//! a crossover along an axis) and the seed's number. Ratios are the paired log-ratios of
//! `anytime::paired_ratio` (runs of the same repetition paired), pooled over every cell the
//! claim's `where` leaves open, so a claim about "every value size" is one geometric-mean ratio
//! with one CI. Every CI here is anytime-valid (`anytime`): a verdict may be read after any
//! number of repetitions, and more added, without raising its 5 % error. The verdict follows
//! from where that CI lies:
//!
//! | relation | reproduced | reversed | not reproduced | inconclusive |
//! |---|---|---|---|---|
//! | greater than t | CI above t | CI below 1 (ratios, t ≥ 1) | CI below t, or inside t ± tolerance | CI holds t |
//! | smaller than t | CI below t | CI above 1 (ratios, t ≤ 1) | CI above t, or inside t ± tolerance | CI holds t |
//! | about t ± tol | CI inside the band | – | CI outside the band | CI across an edge |
//! | crossover at x | a above b (CI) at x, never before | b above a at or after x | a above b before x | otherwise |

use crate::study::analyse::anytime::{describe, paired_ratio};
use crate::study::analyse::every_case;
use crate::study::analyse::statistics::Ratio;
use crate::study::plan::claims::{Claim, RatioOf, Relation, DEFAULT_TOLERANCE};
use crate::study::plan::matrix::Cell;
use crate::study::run::results::RunRecord;
use crate::study::text::{csv_line, csv_number, significant, value_text};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Table;

/// A verdict, decided from a CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The CI lies where the seed says.
    Reproduced,
    /// The CI lies on the wrong side of the threshold, or inside "no effect".
    NotReproduced,
    /// The effect goes the other way.
    Reversed,
    /// The CI straddles the threshold (or there is no CI).
    Inconclusive,
    /// This engine produced no such figure, or no cell of this scale matches.
    NoData,
}

impl Verdict {
    /// As the report prints it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoData => "n/a",
        }
    }
}

/// A claim's outcome on one engine (or one pair of engines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Index of the claim in the plan.
    pub claim: usize,
    /// The engine, or `a / b` for a ratio of engines.
    pub engine: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The measured figure with its 95 % CI, or why there is none.
    pub figure: String,
    /// Estimate and CI (NaN when none).
    pub estimate: f64,
    /// CI low.
    pub ci_lo: f64,
    /// CI high.
    pub ci_hi: f64,
    /// Pairs (ratios) or runs (metrics) behind it.
    pub n: usize,
    /// On an inconclusive verdict: what its CI already excludes and what deciding it would
    /// take (`open_claims::annotate`); empty otherwise.
    #[serde(default)]
    pub note: String,
    /// On an inconclusive verdict: the further repetitions of the claim's cells projected to
    /// decide it at the observed spread (`None`: decided, or out of reach).
    #[serde(default)]
    pub more_repetitions: Option<usize>,
}

/// Values of (cell, engine, metric) by repetition.
pub(super) type Values = BTreeMap<(usize, String, String), BTreeMap<u32, f64>>;

fn values(records: &[RunRecord]) -> Values {
    let mut out: Values = BTreeMap::new();
    for r in records.iter().filter(|r| r.status == "ok") {
        for (m, v) in &r.metrics {
            out.entry((r.cell, r.engine.clone(), m.clone()))
                .or_default()
                .insert(r.rep, *v);
        }
    }
    out
}

pub(crate) fn matches(cell: &Cell, r#where: &Table) -> bool {
    r#where.iter().all(|(k, v)| {
        let have = cell.get(k).unwrap_or("");
        match v.as_array() {
            Some(list) => list.iter().any(|v| value_text(v) == have),
            None => value_text(v) == have,
        }
    })
}

/// The cell equal to `c` but for `axis` = `value`.
fn partner<'c>(cells: &'c [Cell], c: &Cell, axis: &str, value: &str) -> Option<&'c Cell> {
    cells.iter().find(|o| {
        o.values
            .iter()
            .zip(&c.values)
            .all(|((k, x), (_, y))| if k == axis { x == value } else { x == y })
    })
}

pub(crate) fn verdict_of(
    rel: Relation,
    lo: f64,
    hi: f64,
    t: f64,
    tol: Option<f64>,
    ratio: bool,
) -> Verdict {
    if !(lo.is_finite() && hi.is_finite()) {
        return Verdict::Inconclusive;
    }
    let band = tol.map(|tol| (t / (1.0 + tol), t * (1.0 + tol)));
    let in_band = band.is_some_and(|(a, b)| lo >= a && hi <= b);
    match rel {
        Relation::Greater => {
            if lo > t {
                Verdict::Reproduced
            } else if ratio && t >= 1.0 && hi < 1.0 {
                Verdict::Reversed
            } else if hi < t || in_band {
                Verdict::NotReproduced
            } else {
                Verdict::Inconclusive
            }
        }
        Relation::Smaller => {
            if hi < t {
                Verdict::Reproduced
            } else if ratio && t <= 1.0 && lo > 1.0 {
                Verdict::Reversed
            } else if lo > t || in_band {
                Verdict::NotReproduced
            } else {
                Verdict::Inconclusive
            }
        }
        Relation::About | Relation::Crossover => {
            let (a, b) =
                band.unwrap_or((t / (1.0 + DEFAULT_TOLERANCE), t * (1.0 + DEFAULT_TOLERANCE)));
            if lo >= a && hi <= b {
                Verdict::Reproduced
            } else if hi < a || lo > b {
                Verdict::NotReproduced
            } else {
                Verdict::Inconclusive
            }
        }
    }
}

pub(super) fn ratio_text(r: &Ratio) -> String {
    if r.ci_lo.is_finite() {
        format!(
            "{}× [{}, {}] (n={})",
            significant(r.ratio),
            significant(r.ci_lo),
            significant(r.ci_hi),
            r.n
        )
    } else {
        format!("{}× (n={}, no CI)", significant(r.ratio), r.n)
    }
}

fn no_data(claim: usize, engine: &str, why: String) -> Outcome {
    Outcome {
        claim,
        engine: engine.to_string(),
        verdict: Verdict::NoData,
        figure: why,
        estimate: f64::NAN,
        ci_lo: f64::NAN,
        ci_hi: f64::NAN,
        n: 0,
        note: String::new(),
        more_repetitions: None,
    }
}

fn from_ratio(claim: usize, engine: &str, r: Ratio, v: Verdict, figure: String) -> Outcome {
    Outcome {
        claim,
        engine: engine.to_string(),
        verdict: v,
        figure,
        estimate: r.ratio,
        ci_lo: r.ci_lo,
        ci_hi: r.ci_hi,
        n: r.n,
        note: String::new(),
        more_repetitions: None,
    }
}

/// Paired (a, b) values of `metric` between the cells with `axis` = a and their partners with
/// `axis` = b, among `cells`, on `engine`.
fn axis_pairs(
    vals: &Values,
    all: &[Cell],
    cells: &[&Cell],
    engine: &str,
    metric: &str,
    r: &RatioOf,
) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (value_text(&r.a), value_text(&r.b));
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for c in cells.iter().filter(|c| c.get(&r.axis) == Some(a.as_str())) {
        let Some(p) = partner(all, c, &r.axis, &b) else {
            continue;
        };
        let key = |cell: usize| (cell, engine.to_string(), metric.to_string());
        let (Some(va), Some(vb)) = (vals.get(&key(c.index)), vals.get(&key(p.index))) else {
            continue;
        };
        for (rep, x) in va {
            if let Some(y) = vb.get(rep) {
                xs.push(*x);
                ys.push(*y);
            }
        }
    }
    (xs, ys)
}

/// What one claim is decided on: its cells, its engines, the runs' values.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    /// Index of the claim in the plan.
    pub(super) ci: usize,
    pub(super) claim: &'a Claim,
    /// The cells its `where` selects (never empty).
    pub(super) chosen: &'a [&'a Cell],
    /// The engines it is decided on.
    pub(super) of_claim: &'a [&'a String],
    /// Every cell of the study.
    pub(super) cells: &'a [Cell],
    pub(super) vals: &'a Values,
    pub(super) rel: Relation,
    pub(super) t: f64,
}

/// Every claim on every engine of the study.
pub fn evaluate(
    claims: &[Claim],
    cells: &[Cell],
    engines: &[String],
    records: &[RunRecord],
) -> Vec<Outcome> {
    let vals = values(records);
    let mut out = Vec::new();
    for (ci, c) in claims.iter().enumerate() {
        let chosen: Vec<&Cell> = cells
            .iter()
            .filter(|cell| matches(cell, &c.cells))
            .collect();
        let of_claim: Vec<&String> = engines
            .iter()
            .filter(|e| c.engines.is_empty() || c.engines.contains(e))
            .collect();
        if chosen.is_empty() {
            out.push(no_data(
                ci,
                "–",
                "no cell of this scale matches where".into(),
            ));
            continue;
        }
        let scope = Scope {
            ci,
            claim: c,
            chosen: &chosen,
            of_claim: &of_claim,
            cells,
            vals: &vals,
            rel: c.relation(),
            t: c.threshold(),
        };
        out.extend(if c.every || c.each.is_some() {
            every_case::decide(&scope)
        } else {
            pooled(&scope)
        });
    }
    out
}

/// One claim decided on the pooled runs of every cell of `scope`.
pub(super) fn pooled(scope: &Scope) -> Vec<Outcome> {
    match &scope.claim.ratio {
        Some(r) if r.axis == "engine" => engine_ratio(scope, r),
        Some(r) if scope.rel == Relation::Crossover => crossover(scope, r),
        Some(r) => axis_ratio(scope, r),
        None => metric_value(scope),
    }
}

/// A ratio between two engines, paired by cell and repetition: one outcome, `a / b`.
fn engine_ratio(scope: &Scope, r: &RatioOf) -> Vec<Outcome> {
    let Scope {
        ci,
        claim: c,
        chosen,
        vals,
        rel,
        t,
        ..
    } = *scope;
    let mut out = Vec::new();
    let (a, b) = (value_text(&r.a), value_text(&r.b));
    let label = format!("{a} / {b}");
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for cell in chosen {
        let key = |e: &str| (cell.index, e.to_string(), c.metric.clone());
        if let (Some(va), Some(vb)) = (vals.get(&key(&a)), vals.get(&key(&b))) {
            for (rep, x) in va {
                if let Some(y) = vb.get(rep) {
                    xs.push(*x);
                    ys.push(*y);
                }
            }
        }
    }
    match paired_ratio(&xs, &ys) {
        Some(q) => {
            let v = verdict_of(rel, q.ci_lo, q.ci_hi, t, c.tolerance, true);
            let f = ratio_text(&q);
            out.push(from_ratio(ci, &label, q, v, f));
        }
        None => out.push(no_data(
            ci,
            &label,
            format!("no paired runs with {} on both", c.metric),
        )),
    }
    out
}

/// A crossover: the ratio at every value of `x`, clear of the threshold from `at` on and not
/// before.
fn crossover(scope: &Scope, r: &RatioOf) -> Vec<Outcome> {
    let Scope {
        ci,
        claim: c,
        chosen,
        of_claim,
        cells,
        vals,
        t,
        ..
    } = *scope;
    let mut out = Vec::new();
    let x = c.x.clone().unwrap_or_default();
    let at = c.at.as_ref().map(value_text).unwrap_or_default();
    // The x values in the plan's order.
    let mut xs: Vec<String> = Vec::new();
    for cell in chosen {
        if let Some(v) = cell.get(&x) {
            if !xs.iter().any(|s| s == v) {
                xs.push(v.to_string());
            }
        }
    }
    let Some(at_i) = xs.iter().position(|v| *v == at) else {
        for e in of_claim {
            out.push(no_data(
                ci,
                e,
                format!("{x}={at} is not in this scale's matrix"),
            ));
        }
        return out;
    };
    for e in of_claim {
        let mut per_x: Vec<(String, Option<Ratio>)> = Vec::new();
        for xv in &xs {
            let here: Vec<&Cell> = chosen
                .iter()
                .copied()
                .filter(|cell| cell.get(&x) == Some(xv.as_str()))
                .collect();
            let (a, b) = axis_pairs(vals, cells, &here, e, &c.metric, r);
            per_x.push((xv.clone(), paired_ratio(&a, &b)));
        }
        if per_x.iter().all(|(_, q)| q.is_none()) {
            out.push(no_data(ci, e, format!("{e} produced no {}", c.metric)));
            continue;
        }
        let above = |q: &Option<Ratio>| q.as_ref().is_some_and(|q| q.ci_lo > t);
        let below = |q: &Option<Ratio>| q.as_ref().is_some_and(|q| q.ci_hi < t);
        let verdict = if per_x[at_i..].iter().any(|(_, q)| below(q)) {
            Verdict::Reversed
        } else if per_x[..at_i].iter().any(|(_, q)| above(q)) {
            Verdict::NotReproduced
        } else if above(&per_x[at_i].1) {
            Verdict::Reproduced
        } else {
            Verdict::Inconclusive
        };
        let figure = per_x
            .iter()
            .map(|(xv, q)| match q {
                Some(q) => format!(
                    "{xv}: {}{}",
                    ratio_text(q),
                    if q.ci_lo > t || q.ci_hi < t { " *" } else { "" }
                ),
                None => format!("{xv}: –"),
            })
            .collect::<Vec<_>>()
            .join("; ");
        let q = per_x[at_i].1.clone();
        out.push(Outcome {
            claim: ci,
            engine: e.to_string(),
            verdict,
            figure,
            estimate: q.as_ref().map_or(f64::NAN, |q| q.ratio),
            ci_lo: q.as_ref().map_or(f64::NAN, |q| q.ci_lo),
            ci_hi: q.as_ref().map_or(f64::NAN, |q| q.ci_hi),
            n: q.as_ref().map_or(0, |q| q.n),
            note: String::new(),
            more_repetitions: None,
        });
    }
    out
}

/// A ratio between two values of an axis, per engine.
fn axis_ratio(scope: &Scope, r: &RatioOf) -> Vec<Outcome> {
    let Scope {
        ci,
        claim: c,
        chosen,
        of_claim,
        cells,
        vals,
        rel,
        t,
        ..
    } = *scope;
    let mut out = Vec::new();
    for e in of_claim {
        let (a, b) = axis_pairs(vals, cells, chosen, e, &c.metric, r);
        match paired_ratio(&a, &b) {
            Some(q) => {
                let v = verdict_of(rel, q.ci_lo, q.ci_hi, t, c.tolerance, true);
                let f = ratio_text(&q);
                out.push(from_ratio(ci, e, q, v, f));
            }
            None => out.push(no_data(ci, e, format!("{e} produced no {}", c.metric))),
        }
    }
    out
}

/// A metric's own value, per engine.
fn metric_value(scope: &Scope) -> Vec<Outcome> {
    let Scope {
        ci,
        claim: c,
        chosen,
        of_claim,
        vals,
        rel,
        t,
        ..
    } = *scope;
    let mut out = Vec::new();
    for e in of_claim {
        let xs: Vec<f64> = chosen
            .iter()
            .filter_map(|cell| vals.get(&(cell.index, e.to_string(), c.metric.clone())))
            .flat_map(|m| m.values().copied())
            .collect();
        match describe(&xs) {
            Some(d) => {
                let v = verdict_of(rel, d.ci_lo, d.ci_hi, t, c.tolerance, false);
                let figure = if d.ci_lo.is_finite() {
                    format!(
                        "{} [{}, {}] (n={})",
                        significant(d.mean),
                        significant(d.ci_lo),
                        significant(d.ci_hi),
                        d.n
                    )
                } else {
                    format!("{} (n={}, no CI)", significant(d.mean), d.n)
                };
                out.push(Outcome {
                    claim: ci,
                    engine: e.to_string(),
                    verdict: v,
                    figure,
                    estimate: d.mean,
                    ci_lo: d.ci_lo,
                    ci_hi: d.ci_hi,
                    n: d.n,
                    note: String::new(),
                    more_repetitions: None,
                });
            }
            None => out.push(no_data(ci, e, format!("{e} produced no {}", c.metric))),
        }
    }
    out
}

/// Claims that fail a gate: any verdict but "reproduced" (n/a rows aside), or a claim with no
/// verdict on any engine. Returns one line per failing claim.
pub fn failures(claims: &[Claim], outcomes: &[Outcome]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let rows: Vec<&Outcome> = outcomes.iter().filter(|o| o.claim == i).collect();
        let decided: Vec<&&Outcome> = rows
            .iter()
            .filter(|o| o.verdict != Verdict::NoData)
            .collect();
        if decided.is_empty() {
            out.push(format!("claim {}: not checked (no data)", i + 1));
            continue;
        }
        let bad: Vec<String> = decided
            .iter()
            .filter(|o| o.verdict != Verdict::Reproduced)
            .map(|o| format!("{} {}", o.engine, o.verdict.text()))
            .collect();
        if !bad.is_empty() {
            out.push(format!(
                "claim {} ({}): {}",
                i + 1,
                c.metric,
                bad.join(", ")
            ));
        }
    }
    out
}

/// `claims.csv`: one row per claim and engine.
pub fn claims_csv(claims: &[Claim], outcomes: &[Outcome]) -> String {
    let mut out = "claim,metric,claim_text,seed,engine,estimate,ci95_lo,ci95_hi,n,verdict,figure,more_repetitions,note\n"
        .to_string();
    for o in outcomes {
        let Some(c) = claims.get(o.claim) else {
            continue;
        };
        out.push_str(&csv_line(&[
            (o.claim + 1).to_string(),
            c.metric.clone(),
            c.describe(),
            c.seed_text(),
            o.engine.clone(),
            csv_number(o.estimate),
            csv_number(o.ci_lo),
            csv_number(o.ci_hi),
            o.n.to_string(),
            o.verdict.text().to_string(),
            o.figure.clone(),
            o.more_repetitions.map_or(String::new(), |r| r.to_string()),
            o.note.clone(),
        ]));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(index: usize, v: &[(&str, &str)]) -> Cell {
        Cell {
            index,
            values: v
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }

    fn rec(c: &Cell, engine: &str, rep: u32, metric: &str, v: f64) -> RunRecord {
        RunRecord::ok_for_test(c.index, c.values.clone(), engine, rep, metric, v)
    }

    fn claim(text: &str) -> Claim {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn verdicts_follow_the_interval() {
        use Relation::*;
        use Verdict::*;
        assert_eq!(verdict_of(Smaller, 0.6, 0.9, 1.0, None, true), Reproduced);
        assert_eq!(verdict_of(Smaller, 1.1, 1.3, 1.0, None, true), Reversed);
        assert_eq!(verdict_of(Smaller, 0.9, 1.1, 1.0, None, true), Inconclusive);
        assert_eq!(
            verdict_of(Smaller, 0.99, 1.01, 1.0, Some(0.05), true),
            NotReproduced
        );
        assert_eq!(verdict_of(Greater, 1.1, 1.2, 1.0, None, true), Reproduced);
        assert_eq!(verdict_of(Greater, 0.8, 0.9, 1.0, None, true), Reversed);
        // Above 1 but below the seed's 100×: not reproduced, not reversed.
        assert_eq!(
            verdict_of(Greater, 3.0, 9.0, 100.0, None, true),
            NotReproduced
        );
        assert_eq!(
            verdict_of(About, 0.97, 1.03, 1.0, Some(0.05), true),
            Reproduced
        );
        assert_eq!(
            verdict_of(About, 0.90, 1.03, 1.0, Some(0.05), true),
            Inconclusive
        );
        assert_eq!(
            verdict_of(About, 1.2, 1.3, 1.0, Some(0.05), true),
            NotReproduced
        );
        assert_eq!(
            verdict_of(About, f64::NAN, f64::NAN, 1.0, None, true),
            Inconclusive
        );
        // A metric (not a ratio) below the threshold is not "reversed".
        assert_eq!(
            verdict_of(Greater, 0.1, 0.2, 0.5, None, false),
            NotReproduced
        );
    }

    #[test]
    fn a_ratio_between_settings_is_paired_by_repetition_and_pooled_over_where() {
        let cells = vec![
            cell(0, &[("bits", "5"), ("ribbon", "false")]),
            cell(1, &[("bits", "5"), ("ribbon", "true")]),
            cell(2, &[("bits", "10"), ("ribbon", "false")]),
            cell(3, &[("bits", "10"), ("ribbon", "true")]),
        ];
        let mut rs = Vec::new();
        for rep in 0..3 {
            // Drift by repetition cancels in the pairs: ribbon/bloom is 0.7 exactly at 10 bits.
            let d = 1.0 + rep as f64;
            rs.push(rec(&cells[2], "lsmlab", rep, "m", 10.0 * d));
            rs.push(rec(&cells[3], "lsmlab", rep, "m", 7.0 * d));
            rs.push(rec(&cells[0], "lsmlab", rep, "m", 5.0 * d));
            rs.push(rec(&cells[1], "lsmlab", rep, "m", 6.0 * d));
        }
        let c = claim("quote = \"q\"\nmetric = \"m\"\nrelation = \"smaller\"\nratio = { axis = \"ribbon\", a = true, b = false }\nwhere = { bits = 10 }\nseed_value = 0.7\n");
        let engines = vec!["lsmlab".to_string(), "rocksdb".to_string()];
        let o = evaluate(std::slice::from_ref(&c), &cells, &engines, &rs);
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
        assert!((o[0].estimate - 0.7).abs() < 1e-12 && o[0].n == 3);
        assert_eq!(o[1].verdict, Verdict::NoData, "{:?}", o[1]);
        assert!(failures(std::slice::from_ref(&c), &o).is_empty());
        // Over both bit settings: 0.7 and 1.2 pooled, a CI that holds 1.
        let mut wide = c.clone();
        wide.cells.clear();
        let o = evaluate(&[wide.clone()], &cells, &engines, &rs);
        assert_eq!(o[0].n, 6);
        assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
        assert_eq!(failures(&[wide], &o).len(), 1);
    }

    #[test]
    fn a_crossover_needs_the_ratio_clear_from_its_value_on_and_not_before() {
        let sizes = ["1024", "4096", "16384"];
        let mut cells = Vec::new();
        for (i, s) in sizes.iter().enumerate() {
            cells.push(cell(2 * i, &[("size", s), ("blob", "false")]));
            cells.push(cell(2 * i + 1, &[("size", s), ("blob", "true")]));
        }
        let run = |ratios: [f64; 3]| {
            let mut rs = Vec::new();
            for rep in 0..3u32 {
                let jitter = [1.0, 1.01, 0.99][rep as usize];
                for i in 0..3 {
                    rs.push(rec(&cells[2 * i], "e", rep, "ops", 100.0));
                    rs.push(rec(
                        &cells[2 * i + 1],
                        "e",
                        rep,
                        "ops",
                        100.0 * ratios[i] * jitter,
                    ));
                }
            }
            let c = claim("quote = \"q\"\nmetric = \"ops\"\nrelation = \"crossover\"\nratio = { axis = \"blob\", a = true, b = false }\nx = \"size\"\nat = 4096\n");
            evaluate(&[c], &cells, &["e".to_string()], &rs)[0].verdict
        };
        assert_eq!(run([1.0, 2.0, 3.0]), Verdict::Reproduced);
        assert_eq!(
            run([1.5, 2.0, 3.0]),
            Verdict::NotReproduced,
            "ahead before 4096"
        );
        assert_eq!(run([1.0, 0.5, 3.0]), Verdict::Reversed);
        assert_eq!(run([1.0, 1.0, 3.0]), Verdict::Inconclusive);
    }

    #[test]
    fn engine_ratios_and_metric_values() {
        let cells = vec![cell(0, &[])];
        let mut rs = Vec::new();
        for rep in 0..4 {
            rs.push(rec(&cells[0], "a", rep, "fpr", 0.0094 + rep as f64 * 1e-5));
            rs.push(rec(&cells[0], "b", rep, "fpr", 0.0188 + rep as f64 * 2e-5));
        }
        let engines = vec!["a".to_string(), "b".to_string()];
        let c = claim("quote = \"q\"\nmetric = \"fpr\"\nrelation = \"about\"\nseed_value = 0.0094\ntolerance = 0.2\n");
        let o = evaluate(std::slice::from_ref(&c), &cells, &engines, &rs);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
        assert_eq!(o[1].verdict, Verdict::NotReproduced);
        let c = claim("quote = \"q\"\nmetric = \"fpr\"\nrelation = \"greater\"\nratio = { axis = \"engine\", a = \"b\", b = \"a\" }\n");
        let o = evaluate(&[c], &cells, &engines, &rs);
        assert_eq!((o.len(), o[0].engine.as_str()), (1, "b / a"));
        assert!((o[0].estimate - 2.0).abs() < 1e-9);
        assert_eq!(o[0].verdict, Verdict::Reproduced);
    }
}
