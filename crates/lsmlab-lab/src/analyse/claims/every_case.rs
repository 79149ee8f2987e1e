//! "In every case" claims (`every = true`, or `each = "AXIS"`): decided case by case, not on
//! the pooled mean. A seed that says "better than LevelDB in every case" is not reproduced by
//! a geometric mean of 0.67× over fifteen mixes when one mix is 8× the other way.
//!
//! A case is a cell of the claim's `where` (`every`; cells that differ only in the ratio's axis
//! are one case, the two sides of the ratio), or a value of the `each` axis with the other axes
//! pooled. Each case gets the verdict the claim would get on that case alone; then
//!
//! - one case *not reproduced* or *reversed* (its CI on the wrong side, or inside "no effect")
//!   makes the claim *not reproduced*, naming the case;
//! - every case *reproduced* makes it *reproduced*;
//! - otherwise it is open (*inconclusive*), naming the cases still open.
//!
//! The outcome's estimate and CI are the deciding case's: the case against, the open case
//! nearest its boundary, or, when reproduced, the weakest case. The figure gives that case and
//! the pooled mean. Each case's CI is anytime-valid like every claim's, and a claim over K cases
//! is decided only when all K are, so a case that reads "reproduced" at 95 % by chance cannot
//! carry the claim alone; a case against it can, at the 5 % of that one interval.

use super::effect::Rule;
use super::outcome::{Outcome, Verdict};
use super::pooled::{pooled, Scope};
use crate::plan::claims::Claim;
use crate::plan::matrix::Cell;

/// The claim's cases among its cells `chosen`, named (`workload=w13`, or the cell's axes
/// but the ratio's), in the plan's order.
pub fn cases<'a>(claim: &Claim, chosen: &[&'a Cell]) -> Vec<(String, Vec<&'a Cell>)> {
    let ratio_axis = claim.ratio.as_ref().map(|r| r.axis.as_str());
    let mut out: Vec<(String, Vec<&'a Cell>)> = Vec::new();
    for c in chosen {
        let name = match &claim.each {
            Some(axis) => format!("{axis}={}", c.get(axis).unwrap_or("")),
            None => c
                .values
                .iter()
                .filter(|(k, _)| Some(k.as_str()) != ratio_axis)
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let name = if name.is_empty() {
            "the only cell".to_string()
        } else {
            name
        };
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, cells)) => cells.push(c),
            None => out.push((name, vec![c])),
        }
    }
    out
}

/// The claim of `scope` decided case by case, one outcome per engine (or pair of engines).
pub(super) fn decide(scope: &Scope) -> Vec<Outcome> {
    let per_case: Vec<Case> = cases(scope.claim, scope.chosen)
        .into_iter()
        .map(|(name, cells)| {
            let sub = Scope {
                chosen: &cells,
                ..*scope
            };
            Case {
                cells: cells.iter().map(|c| c.index).collect(),
                outcomes: pooled(&sub),
                name,
            }
        })
        .collect();
    pooled(scope)
        .into_iter()
        .map(|all| combine(scope.claim, all, &per_case))
        .collect()
}

/// One case of a claim: its name, its cells, and its outcome per engine.
struct Case {
    name: String,
    cells: Vec<usize>,
    outcomes: Vec<Outcome>,
}

/// How clear of its nearest decision edge (`effect::Rule::edges`: the smallest effect around
/// the threshold, a bound, a band, the seed's size band) an outcome's CI lies, on the claim's
/// scale (logs for a ratio): the distance from the edge to the CI's near end, negative when the
/// CI holds the edge. Small is weak, or open; an exact case is as clear as its distance, not
/// infinitely so; an outcome without a CI is the least clear.
fn clearance(claim: &Claim, o: &Outcome) -> f64 {
    let f = |x: f64| if claim.ratio.is_some() { x.ln() } else { x };
    let (lo, hi) = (f(o.ci_lo), f(o.ci_hi));
    if !(lo.is_finite() && hi.is_finite()) {
        return f64::NEG_INFINITY;
    }
    Rule::of(claim)
        .edges(o.estimate)
        .iter()
        .map(|e| {
            let e = f(*e);
            if e < lo {
                lo - e
            } else if e > hi {
                e - hi
            } else {
                -(e - lo).min(hi - e)
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// Up to three names, then how many more.
fn names(list: &[&(&str, &Outcome)]) -> String {
    let shown: Vec<&str> = list.iter().take(3).map(|(n, _)| *n).collect();
    let more = list.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join("; "))
    } else {
        shown.join("; ")
    }
}

fn combine(claim: &Claim, all: Outcome, per_case: &[Case]) -> Outcome {
    let mine: Vec<(&str, &Outcome)> = per_case
        .iter()
        .filter_map(|c| {
            c.outcomes
                .iter()
                .find(|o| o.engine == all.engine)
                .map(|o| (c.name.as_str(), o))
        })
        .collect();
    let k = mine.len();
    if all.verdict == Verdict::NoData || k == 0 {
        return all;
    }
    let against: Vec<&(&str, &Outcome)> = mine
        .iter()
        .filter(|(_, o)| {
            matches!(
                o.verdict,
                Verdict::NotReproduced | Verdict::Reversed | Verdict::NoEffect
            )
        })
        .collect();
    let mut open: Vec<&(&str, &Outcome)> =
        mine.iter().filter(|(_, o)| !o.verdict.decided()).collect();
    // Decided, the direction right everywhere, but a case off the seed's size.
    let off_size: Vec<&(&str, &Outcome)> = mine
        .iter()
        .filter(|(_, o)| matches!(o.verdict, Verdict::Smaller | Verdict::Larger))
        .collect();
    let by_clearance = |a: &&(&str, &Outcome), b: &&(&str, &Outcome)| {
        clearance(claim, a.1).total_cmp(&clearance(claim, b.1))
    };
    let pooled_text = format!("pooled {}", all.figure);
    let (verdict, (_, case), figure) = if let Some(first) = against.first() {
        let others = if against.len() > 1 {
            format!(
                " (against in {} of {k} cases: {})",
                against.len(),
                names(&against)
            )
        } else {
            String::new()
        };
        let figure = format!(
            "not in every case: {}: {} {}{others}; {pooled_text}",
            first.0,
            first.1.figure,
            first.1.verdict.text()
        );
        (Verdict::NotReproduced, **first, figure)
    } else if let (true, Some(first)) = (open.is_empty(), off_size.first()) {
        let figure = format!(
            "all {k} cases the seed's direction; off its size in {}: {}: {} {}; {pooled_text}",
            off_size.len(),
            first.0,
            first.1.figure,
            first.1.verdict.text()
        );
        (first.1.verdict, **first, figure)
    } else if open.is_empty() {
        let weakest = *mine.iter().min_by(by_clearance).unwrap_or(&mine[0]);
        let figure = format!(
            "all {k} cases; weakest {}: {}; {pooled_text}",
            weakest.0, weakest.1.figure
        );
        (Verdict::Reproduced, weakest, figure)
    } else {
        open.sort_by(by_clearance);
        let figure = format!(
            "{} of {k} cases decided, open: {}; nearest its boundary {}: {}; {pooled_text}",
            k - open.len(),
            names(&open),
            open[0].0,
            open[0].1.figure
        );
        (Verdict::Inconclusive, *open[0], figure)
    };
    Outcome {
        verdict,
        figure,
        estimate: case.estimate,
        ci_lo: case.ci_lo,
        ci_hi: case.ci_hi,
        n: case.n,
        // While open, the cells a further repetition helps: those of the cases still open.
        open_cells: if verdict == Verdict::Inconclusive {
            per_case
                .iter()
                .filter(|c| open.iter().any(|(n, _)| *n == c.name))
                .flat_map(|c| c.cells.iter().copied())
                .collect()
        } else {
            Vec::new()
        },
        ..all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::claims::open_claims::annotate;
    use crate::analyse::claims::verdicts::evaluate;
    use crate::run::records::results::RunRecord;

    fn cells() -> Vec<Cell> {
        let mut out = Vec::new();
        for w in ["w1", "w2"] {
            for l in ["new", "old"] {
                out.push(Cell {
                    index: out.len(),
                    values: vec![("workload".into(), w.into()), ("layout".into(), l.into())],
                });
            }
        }
        out
    }

    fn claim(extra: &str) -> Claim {
        toml::from_str(&format!(
            "quote = \"q\"\nmetric = \"t\"\nrelation = \"smaller\"\nratio = {{ axis = \"layout\", a = \"new\", b = \"old\" }}\n{extra}"
        ))
        .unwrap()
    }

    #[test]
    fn cases_are_cells_but_the_ratio_axis_or_values_of_each() {
        let cs = cells();
        let chosen: Vec<&Cell> = cs.iter().collect();
        let every = cases(&claim("every = true"), &chosen);
        let names: Vec<&str> = every.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["workload=w1", "workload=w2"]);
        assert!(
            every.iter().all(|(_, c)| c.len() == 2),
            "both sides of the ratio"
        );
        let each = cases(&claim("each = \"layout\""), &chosen);
        let names: Vec<&str> = each.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["layout=new", "layout=old"]);
    }

    #[test]
    fn an_open_case_is_costed_by_its_own_share_of_a_repetition() {
        // w1: new/old = 0.5 exactly; w2: new/old about 0.9 with 10 % noise, 4 repetitions.
        let cs = cells();
        let mut rs = Vec::new();
        for rep in 0..4u32 {
            let e = [1.0, 1.1, 0.92, 1.05][rep as usize];
            for (c, v) in [(0, 5.0), (1, 10.0), (2, 9.0 * e), (3, 10.0)] {
                let mut r = RunRecord::ok_for_test(c, cs[c].values.clone(), "e", rep, "t", v);
                r.metrics.insert("process.wall_s".into(), 10.0);
                rs.push(r);
            }
        }
        let claims = [claim("every = true")];
        let mut o = evaluate(&claims, &cs, &["e".to_string()], &rs);
        assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
        assert!(
            o[0].figure.starts_with(
                "1 of 2 cases decided, open: workload=w2; nearest its boundary workload=w2: "
            ),
            "{}",
            o[0].figure
        );
        assert_eq!(o[0].n, 4, "the open case's pairs, not the pooled 8");
        annotate(&claims, &cs, &rs, &mut o);
        let every = o[0].more_repetitions.expect("within reach");
        // The same open case as a claim of its own: one pair a repetition, the same cost.
        let mut alone = claim("");
        alone.cells = toml::from_str("workload = \"w2\"").unwrap();
        let mut a = evaluate(std::slice::from_ref(&alone), &cs, &["e".to_string()], &rs);
        annotate(std::slice::from_ref(&alone), &cs, &rs, &mut a);
        assert_eq!(
            Some(every),
            a[0].more_repetitions,
            "{} vs {}",
            o[0].note,
            a[0].note
        );
    }

    #[test]
    fn the_weakest_case_is_the_one_nearest_its_edge_not_the_noisiest() {
        // w1: new/old = 0.96 exactly, just clear of a timing's 3 % edge at 0.971; w2: 0.5 with
        // noise, far from it. An exact case is as clear as its distance, not infinitely.
        let cs = cells();
        let mut rs = Vec::new();
        for rep in 0..6u32 {
            let e = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0][rep as usize];
            for (c, v) in [(0, 4.8), (1, 5.0), (2, 5.0 * e), (3, 10.0)] {
                rs.push(RunRecord::ok_for_test(
                    c,
                    cs[c].values.clone(),
                    "e",
                    rep,
                    "t",
                    v,
                ));
            }
        }
        let o = evaluate(&[claim("every = true")], &cs, &["e".to_string()], &rs);
        assert_eq!(o[0].verdict, Verdict::Reproduced, "{:?}", o[0]);
        assert!(
            o[0].figure
                .starts_with("all 2 cases; weakest workload=w1: "),
            "{}",
            o[0].figure
        );
    }
}
