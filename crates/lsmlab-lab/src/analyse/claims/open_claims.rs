//! What a claim still open would take, and what its interval already rules out.
//!
//! An *inconclusive* verdict alone lumps a CI of [0.97, 1.03] against a seed's 1.048 with one of
//! [0.5, 2.0]. Each open outcome gets a note: whether its CI already excludes the seed's own
//! figure ("direction open; the seed's 4.8 % excluded"), and the repetitions that would decide
//! it at the spread observed so far: the smallest number of further repetitions of the cells the
//! claim reads after which the anytime-valid interval (`anytime::half_width`) would be narrower
//! than the distance from the estimate to the nearest decision boundary, were the estimate and
//! spread to stay as they are. A projection, not a promise: a true effect smaller than the
//! estimate needs more.

use super::effect::Rule;
use super::every_case;
use super::verdicts::{matches, Outcome, Verdict};
use crate::analyse::numbers::anytime::half_width;
use crate::plan::claims::Claim;
use crate::plan::matrix::Cell;
use crate::run::records::results::RunRecord;
use crate::text::{significant, value_text};

/// Beyond this many more repetitions the note says "out of reach".
const REACH: usize = 10_000;

/// How the note of a claim beyond `REACH` begins (what a sequential study reads it by).
pub const OUT_OF_REACH: &str = "out of reach";

/// The sum of squared deviations behind a finite interval of half-width `h` over `n` values:
/// `anytime::half_width` solved for it (by bisection: it increases with the sum).
fn spread_behind(n: usize, h: f64) -> Option<f64> {
    if !(h.is_finite() && h > 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while half_width(n, hi)? < h {
        hi *= 4.0;
        if hi > 1e300 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if half_width(n, mid)? < h {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// More values (beyond `n`) after which the interval at the same variance is narrower than
/// `gap`, `per_round` values per repetition; `None` when out of reach.
pub fn more_needed(n: usize, ss: f64, gap: f64, per_round: usize) -> Option<usize> {
    if n < 2 || gap <= 0.0 || per_round == 0 {
        return None;
    }
    let var = ss / (n - 1) as f64;
    (1..=REACH).find(|r| {
        let m = n + r * per_round;
        half_width(m, var * (m - 1) as f64).is_some_and(|h| h < gap)
    })
}

/// Where the outcome's estimate is measured (logs for a ratio) and its decision boundaries.
fn scale(claim: &Claim, x: f64) -> f64 {
    if claim.ratio.is_some() {
        x.ln()
    } else {
        x
    }
}

/// Pairs (or runs) before a projection is trusted enough to stop a study as out of reach: from
/// 10 values the chi-square 90 % range of the variance is 0.53 to 2.7 times the sample's (a
/// factor of 5 in repetitions), where from 3 it is 0.33 to 19.5 (a factor of 58).
pub const TRUSTED_N: usize = 10;

/// The chi-square 90 % range of a variance estimated with `df` degrees of freedom, as factors of
/// the sample variance: (low, high).
pub fn variance_range(df: usize) -> Option<(f64, f64)> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let chi = ChiSquared::new(df as f64).ok()?;
    let d = df as f64;
    Some((d / chi.inverse_cdf(0.95), d / chi.inverse_cdf(0.05)))
}

/// "direction open; the seed's 4.8 % excluded" when the CI holds neither the seed's figure nor
/// a decision.
fn seed_excluded(claim: &Claim, o: &Outcome) -> Option<String> {
    let s = claim.seed_value?;
    // A size claim's seed is its band; otherwise its point.
    let (a, b) = if claim.judges_size() {
        (s / claim.size_band(), s * claim.size_band())
    } else {
        (s, s)
    };
    if !(o.ci_lo.is_finite() && o.ci_hi.is_finite()) || (o.ci_lo <= b && a <= o.ci_hi) {
        return None;
    }
    let size = if claim.ratio.is_some() {
        format!("{:.1} %", (s - 1.0) * 100.0)
    } else {
        significant(s)
    };
    Some(format!("direction open; the seed's {size} excluded"))
}

/// Cells a claim reads (both sides of a ratio) and the mean wall time of their runs on the
/// outcome's engines (another engine's runs of the same cells may take much longer).
fn cells_and_time(
    claim: &Claim,
    o: &Outcome,
    cells: &[Cell],
    records: &[RunRecord],
) -> (usize, usize, f64) {
    let chosen: Vec<&Cell> = cells.iter().filter(|c| matches(c, &claim.cells)).collect();
    let (read, per_round) = match &claim.ratio {
        Some(r) if r.axis == "engine" => (chosen.len(), chosen.len()),
        Some(r) if claim.cells.contains_key(&r.axis) => (2 * chosen.len(), chosen.len()),
        Some(_) => (chosen.len(), chosen.len() / 2),
        None => (chosen.len(), chosen.len()),
    };
    // Decided case by case: the open case's interval grows by its own share of a repetition.
    let per_round = if claim.every || claim.each.is_some() {
        per_round / every_case::cases(claim, &chosen).len().max(1)
    } else {
        per_round
    };
    let idx: Vec<usize> = chosen.iter().map(|c| c.index).collect();
    let walls: Vec<f64> = records
        .iter()
        .filter(|r| r.status == "ok" && idx.contains(&r.cell))
        .filter(|r| match &claim.ratio {
            Some(q) if q.axis == "engine" => {
                r.engine == value_text(&q.a) || r.engine == value_text(&q.b)
            }
            _ => r.engine == o.engine,
        })
        .filter_map(|r| r.metrics.get("process.wall_s").copied())
        .collect();
    let wall = if walls.is_empty() {
        f64::NAN
    } else {
        walls.iter().sum::<f64>() / walls.len() as f64
    };
    (read, per_round.max(1), wall)
}

fn duration_text(seconds: f64) -> String {
    if !seconds.is_finite() {
        return String::new();
    }
    let text = if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    };
    format!(" (≈ {text} at the measured run time)")
}

/// The cost of deciding one open outcome, as a sentence; with the number of further
/// repetitions when within reach at the spread measured, and at the low end of the spread's
/// chi-square 90 % range (what a stop for "out of reach" reads).
fn cost(
    claim: &Claim,
    o: &Outcome,
    cells: &[Cell],
    records: &[RunRecord],
) -> (String, Option<usize>, Option<usize>) {
    let (read, per_round, wall) = cells_and_time(claim, o, cells, records);
    let h = (scale(claim, o.ci_hi) - scale(claim, o.ci_lo)) / 2.0;
    let Some(ss) = spread_behind(o.n, h) else {
        return (
            "needs more runs: too few to measure the spread".into(),
            None,
            None,
        );
    };
    let est = scale(claim, o.estimate);
    // The edges a verdict needs cleared: the smallest effect around the threshold (never the
    // threshold itself, which would price calling a difference inside it a direction).
    let gap = Rule::of(claim)
        .edges(o.estimate)
        .iter()
        .map(|b| (scale(claim, *b) - est).abs())
        .fold(f64::INFINITY, f64::min);
    let engines = if claim.ratio.as_ref().is_some_and(|r| r.axis == "engine") {
        2.0
    } else {
        1.0
    };
    let at = |factor: f64| more_needed(o.n, ss * factor, gap, per_round);
    let (lo_f, hi_f) = variance_range(o.n.saturating_sub(1).max(1)).unwrap_or((1.0, 1.0));
    let (point, fewest, most) = (at(1.0), at(lo_f), at(hi_f));
    let range = match (fewest, most) {
        (Some(a), Some(b)) if a != b => format!(" ({a} to {b} over the spread's 90 % range)"),
        (Some(a), None) => format!(" ({a} to over {REACH} over the spread's 90 % range)"),
        _ => String::new(),
    };
    let young = if o.n < TRUSTED_N {
        format!(
            "; a projection from {} values, trusted from {TRUSTED_N}",
            o.n
        )
    } else {
        String::new()
    };
    match (point, fewest) {
        (Some(r), _) => {
            let t = r as f64 * read as f64 * engines * wall;
            (
                format!(
                    "needs ≈ {r} more repetitions of {read} cells{}{range}{young}",
                    duration_text(t)
                ),
                Some(r),
                fewest,
            )
        }
        (None, Some(a)) => (
            format!("needs over {REACH} more repetitions at the spread measured, {a} at the low end of its 90 % range{young}"),
            None,
            Some(a),
        ),
        (None, None) => (
            format!("{OUT_OF_REACH}: over {REACH} more repetitions at this spread{young}"),
            None,
            None,
        ),
    }
}

/// Notes on every inconclusive outcome: the seed's figure excluded, and the cost of deciding.
pub fn annotate(claims: &[Claim], cells: &[Cell], records: &[RunRecord], outcomes: &mut [Outcome]) {
    for o in outcomes
        .iter_mut()
        .filter(|o| o.verdict == Verdict::Inconclusive)
    {
        let Some(claim) = claims.get(o.claim) else {
            continue;
        };
        let (text, more, fewest) = cost(claim, o, cells, records);
        o.more_repetitions = more;
        o.fewest_repetitions = fewest;
        o.note = match seed_excluded(claim, o) {
            Some(s) => format!("{s}; {text}"),
            None => text,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::claims::verdicts::evaluate;

    #[test]
    fn the_spread_behind_an_interval_is_recovered() {
        let h = half_width(6, 3.7).unwrap();
        let ss = spread_behind(6, h).unwrap();
        assert!((ss - 3.7).abs() < 1e-9, "{ss}");
        assert!(spread_behind(6, f64::NAN).is_none());
    }

    #[test]
    fn the_projection_is_the_first_repetition_count_that_decides() {
        // Sample variance 1, a gap of 0.5, two values per repetition.
        let r = more_needed(5, 4.0, 0.5, 2).unwrap();
        let at = |r: usize| half_width(5 + 2 * r, (4 + 2 * r) as f64).unwrap();
        assert!(at(r) < 0.5 && at(r - 1) >= 0.5, "{r}");
        assert!(
            more_needed(5, 4.0, 0.0, 2).is_none(),
            "on the boundary: never"
        );
    }

    fn cell(index: usize, blocks: &str) -> Cell {
        Cell {
            index,
            values: vec![("filter_blocks".into(), blocks.into())],
        }
    }

    #[test]
    fn an_open_claim_says_what_it_excludes_and_what_deciding_it_costs() {
        // The seed says 2×; the runs show 1.00× ± 5 %: direction open (the interval reaches past
        // the 3 % smallest effect of a timing), the seed's size band [1.33, 3] out.
        let cells = vec![cell(0, "false"), cell(1, "true")];
        let mut rs = Vec::new();
        for rep in 0..8u32 {
            let e = [0.01, -0.01, 0.005, -0.004, 0.0, 0.008, -0.007, 0.002][rep as usize];
            for (c, v) in [(&cells[0], 100.0), (&cells[1], 100.0 * (1.0f64 + 5.0 * e))] {
                let mut r = RunRecord::ok_for_test(c.index, c.values.clone(), "e", rep, "ops", v);
                r.metrics.insert("process.wall_s".into(), 30.0);
                rs.push(r);
                // Another engine's runs of the same cells, ten times slower: not e's time.
                let mut slow = RunRecord::ok_for_test(c.index, c.values.clone(), "f", rep, "x", v);
                slow.metrics.insert("process.wall_s".into(), 300.0);
                rs.push(slow);
            }
        }
        let claim: Claim = toml::from_str(
            "quote = \"q\"\nmetric = \"ops\"\nrelation = \"greater\"\nseed_value = 2.0\nratio = { axis = \"filter_blocks\", a = true, b = false }\n",
        )
        .unwrap();
        let claims = [claim];
        let mut o = evaluate(&claims, &cells, &["e".to_string()], &rs);
        assert_eq!(o[0].verdict, Verdict::Inconclusive, "{:?}", o[0]);
        annotate(&claims, &cells, &rs, &mut o);
        assert!(
            o[0].note
                .starts_with("direction open; the seed's 100.0 % excluded; needs ≈ "),
            "{}",
            o[0].note
        );
        assert!(
            o[0].note.contains(" more repetitions of 2 cells (≈ "),
            "{}",
            o[0].note
        );
        let r = o[0].more_repetitions.unwrap();
        assert!(r > 0, "{r}");
        // At e's 30 s a run, not the mean over both engines' runs of those cells.
        let time = duration_text(r as f64 * 2.0 * 30.0);
        assert!(o[0].note.contains(&time), "{} vs {time}", o[0].note);
        // From 8 pairs the note gives the spread's range and says the projection is young.
        assert!(
            o[0].note.contains("over the spread's 90 % range"),
            "{}",
            o[0].note
        );
        assert!(
            o[0].note
                .ends_with("a projection from 8 values, trusted from 10"),
            "{}",
            o[0].note
        );
        let csv = crate::analyse::claims::verdicts::claims_csv(&claims, &o);
        assert!(csv
            .lines()
            .next()
            .unwrap()
            .ends_with(",more_repetitions,note"));
        assert!(csv.contains(&format!(",{r},\"direction open")), "{csv}");
    }

    #[test]
    fn the_spreads_range_from_three_and_from_ten_values() {
        let (lo, hi) = variance_range(2).unwrap();
        assert!(
            (lo - 0.334).abs() < 0.001 && (hi - 19.5).abs() < 0.05,
            "{lo} {hi}"
        );
        let (lo, hi) = variance_range(TRUSTED_N - 1).unwrap();
        assert!(
            (lo - 0.532).abs() < 0.001 && (hi - 2.707).abs() < 0.002,
            "{lo} {hi}"
        );
    }
}
