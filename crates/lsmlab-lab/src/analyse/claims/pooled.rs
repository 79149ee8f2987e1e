//! A claim decided on the pooled runs of its cells: the paired log-ratio (between two values of
//! an axis, or two engines), a crossover along an axis, or a metric's own value, each with its
//! anytime-valid CI and the verdict where that CI lies (see `verdicts` for the table).

use super::effect::{size_words, Rule};
use super::outcome::{Outcome, Verdict};
use crate::analyse::numbers::anytime::{grouped_describe, grouped_paired_ratio};
use crate::analyse::numbers::statistics::Ratio;
use crate::plan::claims::{Claim, RatioOf, Relation};
use crate::plan::matrix::Cell;
use crate::text::{significant, value_text};
use std::collections::BTreeMap;

/// Values of (cell, engine, metric) by repetition.
pub(super) type Values = BTreeMap<(usize, String, String), BTreeMap<u32, f64>>;

/// The cell equal to `c` but for `axis` = `value`.
fn partner<'c>(cells: &'c [Cell], c: &Cell, axis: &str, value: &str) -> Option<&'c Cell> {
    cells.iter().find(|o| {
        o.values
            .iter()
            .zip(&c.values)
            .all(|((k, x), (_, y))| if k == axis { x == value } else { x == y })
    })
}

/// The verdict of an interval for a direction-only claim whose `tol` is its smallest effect
/// (greater, smaller) or its band (about); see `effect::Rule` for the full rule. The tests'
/// and simulations' shorthand.
#[cfg(test)]
pub(crate) fn verdict_of(
    rel: Relation,
    lo: f64,
    hi: f64,
    t: f64,
    tol: Option<f64>,
    ratio: bool,
) -> Verdict {
    let mut rule = Rule::direction(rel, t, tol.unwrap_or(0.0), ratio);
    rule.tol = tol.unwrap_or(crate::plan::claims::DEFAULT_TOLERANCE);
    rule.verdict(lo, hi)
}

/// A claim's verdict of an interval and the figure's words on the seed's size.
fn judged(claim: &Claim, lo: f64, hi: f64) -> (Verdict, String) {
    let rule = Rule::of(claim);
    let v = rule.verdict(lo, hi);
    let words = size_words(&rule, v)
        .map(|w| format!("; {w}"))
        .unwrap_or_default();
    (v, words)
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

pub(super) fn no_data(claim: usize, engine: &str, why: String) -> Outcome {
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
        fewest_repetitions: None,
        open_cells: Vec::new(),
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
        fewest_repetitions: None,
        open_cells: Vec::new(),
    }
}

/// Paired runs of a ratio: the `a` and `b` values of the same repetition, and the cell each
/// pair belongs to (the claim's estimate averages cells: `anytime::grouped_paired_ratio`).
#[derive(Default)]
struct Pairs {
    a: Vec<f64>,
    b: Vec<f64>,
    cells: Vec<usize>,
}

impl Pairs {
    /// Adds the repetitions `va` and `vb` have in common, as pairs of `cell`.
    fn add(&mut self, cell: usize, va: &BTreeMap<u32, f64>, vb: &BTreeMap<u32, f64>) {
        for (rep, x) in va {
            if let Some(y) = vb.get(rep) {
                self.a.push(*x);
                self.b.push(*y);
                self.cells.push(cell);
            }
        }
    }

    fn ratio(&self) -> Option<Ratio> {
        grouped_paired_ratio(&self.a, &self.b, &self.cells)
    }

    /// Why there is no ratio when the runs paired but none gave a positive pair: "0/0" when
    /// both sides are 0 in every pair, the side that is 0 otherwise; `None` without pairs.
    fn why_none(&self, metric: &str) -> Option<String> {
        let n = self.a.len();
        if n == 0 {
            return None;
        }
        let zero = |v: &[f64]| v.iter().all(|x| *x == 0.0);
        Some(match (zero(&self.a), zero(&self.b)) {
            (true, true) => format!("0/0: {metric} is 0 on both sides in all {n} pairs"),
            (true, false) => format!("{metric} is 0 on the numerator's side in all {n} pairs"),
            (false, true) => format!("{metric} is 0 on the denominator's side in all {n} pairs"),
            _ => format!("{metric} is not positive on both sides in any of {n} pairs"),
        })
    }
}

/// Paired values of `metric` between the cells with `axis` = a and their partners with
/// `axis` = b, among `cells`, on `engine`.
fn axis_pairs(
    vals: &Values,
    all: &[Cell],
    cells: &[&Cell],
    engine: &str,
    metric: &str,
    r: &RatioOf,
) -> Pairs {
    let (a, b) = (value_text(&r.a), value_text(&r.b));
    let mut pairs = Pairs::default();
    for c in cells.iter().filter(|c| c.get(&r.axis) == Some(a.as_str())) {
        let Some(p) = partner(all, c, &r.axis, &b) else {
            continue;
        };
        let key = |cell: usize| (cell, engine.to_string(), metric.to_string());
        if let (Some(va), Some(vb)) = (vals.get(&key(c.index)), vals.get(&key(p.index))) {
            pairs.add(c.index, va, vb);
        }
    }
    pairs
}

/// The outcome of a ratio claim on `label` (an engine, or `a / b`), or `no_data` with `why`.
fn ratio_outcome(scope: &Scope, label: &str, q: Option<Ratio>, why: String) -> Outcome {
    let c = scope.claim;
    match q {
        Some(q) => {
            let (v, words) = judged(c, q.ci_lo, q.ci_hi);
            let f = format!("{}{words}", ratio_text(&q));
            from_ratio(scope.ci, label, q, v, f)
        }
        None => no_data(scope.ci, label, why),
    }
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
    let (c, vals) = (scope.claim, scope.vals);
    let (a, b) = (value_text(&r.a), value_text(&r.b));
    let mut pairs = Pairs::default();
    for cell in scope.chosen {
        let key = |e: &str| (cell.index, e.to_string(), c.metric.clone());
        if let (Some(va), Some(vb)) = (vals.get(&key(&a)), vals.get(&key(&b))) {
            pairs.add(cell.index, va, vb);
        }
    }
    let why = pairs
        .why_none(&c.metric)
        .unwrap_or_else(|| format!("no paired runs with {} on both", c.metric));
    vec![ratio_outcome(
        scope,
        &format!("{a} / {b}"),
        pairs.ratio(),
        why,
    )]
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
            let pairs = axis_pairs(vals, cells, &here, e, &c.metric, r);
            per_x.push((xv.clone(), pairs.ratio()));
        }
        if per_x.iter().all(|(_, q)| q.is_none()) {
            out.push(no_data(ci, e, format!("{e} produced no {}", c.metric)));
            continue;
        }
        // Above or below only beyond the smallest effect that matters around the threshold.
        let (r0, r1) = Rule::of(c).rope();
        let above = |q: &Option<Ratio>| q.as_ref().is_some_and(|q| q.ci_lo > r1);
        let below = |q: &Option<Ratio>| q.as_ref().is_some_and(|q| q.ci_hi < r0);
        let nil = |q: &Option<Ratio>| q.as_ref().is_some_and(|q| q.ci_lo >= r0 && q.ci_hi <= r1);
        let verdict = if per_x[at_i..].iter().any(|(_, q)| below(q)) {
            Verdict::Reversed
        } else if per_x[..at_i].iter().any(|(_, q)| above(q)) {
            Verdict::NotReproduced
        } else if above(&per_x[at_i].1) {
            Verdict::Reproduced
        } else if nil(&per_x[at_i].1) {
            Verdict::NoEffect
        } else {
            Verdict::Inconclusive
        };
        let figure = per_x
            .iter()
            .map(|(xv, q)| match q {
                Some(q) => format!(
                    "{xv}: {}{}",
                    ratio_text(q),
                    if q.ci_lo > r1 || q.ci_hi < r0 {
                        " *"
                    } else {
                        ""
                    }
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
            fewest_repetitions: None,
            open_cells: Vec::new(),
        });
    }
    out
}

/// A ratio between two values of an axis, per engine.
fn axis_ratio(scope: &Scope, r: &RatioOf) -> Vec<Outcome> {
    let c = scope.claim;
    scope
        .of_claim
        .iter()
        .map(|e| {
            let pairs = axis_pairs(scope.vals, scope.cells, scope.chosen, e, &c.metric, r);
            let why = pairs
                .why_none(&c.metric)
                .unwrap_or_else(|| format!("{e} produced no {}", c.metric));
            ratio_outcome(scope, e, pairs.ratio(), why)
        })
        .collect()
}

/// A metric's own value, per engine.
fn metric_value(scope: &Scope) -> Vec<Outcome> {
    let Scope {
        ci,
        claim: c,
        chosen,
        of_claim,
        vals,
        ..
    } = *scope;
    let mut out = Vec::new();
    for e in of_claim {
        let (xs, gs): (Vec<f64>, Vec<usize>) = chosen
            .iter()
            .filter_map(|cell| {
                vals.get(&(cell.index, e.to_string(), c.metric.clone()))
                    .map(|m| (cell.index, m))
            })
            .flat_map(|(i, m)| m.values().map(move |v| (*v, i)))
            .unzip();
        match grouped_describe(&xs, &gs) {
            Some(d) => {
                let (v, words) = judged(c, d.ci_lo, d.ci_hi);
                let figure = if d.ci_lo.is_finite() {
                    format!(
                        "{} [{}, {}] (n={})",
                        significant(d.estimate),
                        significant(d.ci_lo),
                        significant(d.ci_hi),
                        d.n
                    )
                } else {
                    format!("{} (n={}, no CI)", significant(d.estimate), d.n)
                } + &words;
                out.push(Outcome {
                    claim: ci,
                    engine: e.to_string(),
                    verdict: v,
                    figure,
                    estimate: d.estimate,
                    ci_lo: d.ci_lo,
                    ci_hi: d.ci_hi,
                    n: d.n,
                    note: String::new(),
                    more_repetitions: None,
                    fewest_repetitions: None,
                    open_cells: Vec::new(),
                });
            }
            None => out.push(no_data(ci, e, format!("{e} produced no {}", c.metric))),
        }
    }
    out
}
