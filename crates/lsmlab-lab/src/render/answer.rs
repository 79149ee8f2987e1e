//! The answer at the top of the report: one sentence per claim, in words, of what the runs
//! found on each engine and how sure it is, written from the outcomes alone — the verdict, the
//! interval as a percentage (or a ratio's × range), the seed's figure where the runs differ
//! from it, and what an open claim would take to decide. Engines whose verdicts agree share a
//! clause.

use crate::analyse::claims::effect::Rule;
use crate::analyse::claims::open_claims::OUT_OF_REACH;
use crate::analyse::claims::outcome::{Outcome, Verdict};
use crate::plan::claims::{Claim, Relation};
use crate::text::{significant, value_text};

/// The metric as the answer names it: a combined step's metric (`a+b+c.fpr`) by its own name
/// (`fpr`), any other in full (`fillrandom.ops_per_sec`).
pub fn short_metric(metric: &str) -> &str {
    match metric.rsplit_once('.') {
        Some((steps, m)) if steps.contains('+') => m,
        _ => metric,
    }
}

/// A percentage: one decimal under 10, whole above.
fn pct(v: f64) -> String {
    let a = v.abs();
    if a < 10.0 {
        let s = format!("{a:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    } else {
        format!("{a:.0}")
    }
}

/// A factor with two significant digits (0.48, 1.6, 12), whole from 100.
fn times(v: f64) -> String {
    if !(v.is_finite() && v > 0.0) {
        return "–".into();
    }
    let digits = (1 - v.log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

/// A range in words: a ratio as "16–18 % lower", "between 5 % lower and 8 % higher" or
/// "2.1–2.5×" when it reaches beyond halving or doubling; a metric's own value as "12.3–14.1".
pub fn range_words(ratio: bool, est: f64, lo: f64, hi: f64) -> String {
    if !est.is_finite() {
        return "no figure".into();
    }
    if !ratio {
        return if lo.is_finite() && hi.is_finite() {
            if significant(lo) == significant(hi) {
                significant(est)
            } else {
                format!("{}–{}", significant(lo), significant(hi))
            }
        } else {
            format!("{} (one run, no interval)", significant(est))
        };
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return format!("{}× (one run, no interval)", significant(est));
    }
    if lo < 0.5 || hi > 2.0 {
        return if times(lo) == times(hi) {
            format!("{}×", times(est))
        } else if lo < 1.0 && hi > 1.0 {
            format!("{}× to {}×", times(lo), times(hi))
        } else {
            format!("{}–{}×", times(lo), times(hi))
        };
    }
    let (a, b) = ((lo - 1.0) * 100.0, (hi - 1.0) * 100.0);
    let one = |v: f64, word: &str| format!("{} % {word}", pct(v));
    if hi < 1.0 {
        if pct(a) == pct(b) {
            one(b, "lower")
        } else {
            format!("{}–{} % lower", pct(b), pct(a))
        }
    } else if lo > 1.0 {
        if pct(a) == pct(b) {
            one(a, "higher")
        } else {
            format!("{}–{} % higher", pct(a), pct(b))
        }
    } else if pct(a) == "0" && pct(b) == "0" {
        "the same".into()
    } else {
        format!("between {} and {}", one(a, "lower"), one(b, "higher"))
    }
}

/// What deciding an open outcome would take, from its note.
fn open_words(o: &Outcome) -> String {
    match o.more_repetitions {
        Some(1) => "one more repetition would decide it".into(),
        Some(r) => format!("≈ {r} more repetitions would decide it"),
        None if o.note.contains(OUT_OF_REACH) || o.note.contains("needs over") => {
            "out of reach at the spread measured".into()
        }
        None => "too few runs yet to tell what would decide it".into(),
    }
}

/// How the verdict reads at the head of its clause.
fn verdict_words(v: Verdict) -> &'static str {
    match v {
        Verdict::Reproduced => "reproduced",
        Verdict::Smaller => "the same direction but a smaller effect",
        Verdict::Larger => "the same direction but a larger effect",
        Verdict::NoEffect => "no effect",
        Verdict::NotReproduced => "not reproduced",
        Verdict::Reversed => "reversed",
        Verdict::Inconclusive => "undecided",
        Verdict::NoData => "no such figure",
        Verdict::RunsFailed => "runs failed",
    }
}

/// The words after one engine's name: its range and what the verdict adds to it.
fn detail(claim: &Claim, o: &Outcome) -> String {
    let rule = Rule::of(claim);
    let range = range_words(claim.ratio.is_some(), o.estimate, o.ci_lo, o.ci_hi);
    let seed = claim.seed_text();
    match o.verdict {
        Verdict::NoData | Verdict::RunsFailed => String::new(),
        Verdict::Reproduced if claim.relation() == Relation::About => {
            format!("{range}, inside ±{} %", pct(rule.tol * 100.0))
        }
        Verdict::Reproduced => range,
        Verdict::NoEffect => format!(
            "{range}, inside the ±{} % that matters",
            pct(rule.e * 100.0)
        ),
        Verdict::Smaller | Verdict::Larger | Verdict::NotReproduced | Verdict::Reversed => {
            if seed == "–" {
                range
            } else {
                format!("{range}, where the seed has {seed}")
            }
        }
        Verdict::Inconclusive => format!("{range}; {}", open_words(o)),
    }
}

/// The claim as the sentence names it: its number, metric and what it compares.
fn subject(i: usize, claim: &Claim) -> String {
    let mut s = format!("Claim {} ({}", i + 1, short_metric(&claim.metric));
    if let Some(r) = &claim.ratio {
        s += &format!(
            ", {} {} against {}",
            r.axis,
            value_text(&r.a),
            value_text(&r.b)
        );
    }
    s + ")"
}

/// One sentence per claim that has outcomes, in the plan's order.
pub fn answer(claims: &[Claim], outcomes: &[Outcome]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, claim) in claims.iter().enumerate() {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| o.claim == i).collect();
        if of.is_empty() {
            continue;
        }
        // Engines by verdict, in the order they first appear.
        let mut groups: Vec<(Verdict, Vec<&Outcome>)> = Vec::new();
        for o in of {
            match groups.iter_mut().find(|g| g.0 == o.verdict) {
                Some(g) => g.1.push(o),
                None => groups.push((o.verdict, vec![o])),
            }
        }
        let clauses: Vec<String> = groups
            .iter()
            .map(|(v, os)| {
                let names: Vec<&str> = os.iter().map(|o| o.engine.as_str()).collect();
                let details: Vec<String> = os.iter().map(|o| detail(claim, o)).collect();
                let head = format!("{} on {}", verdict_words(*v), join(&names));
                if details.iter().all(|d| d.is_empty()) {
                    head
                } else if details.iter().all(|d| *d == details[0]) {
                    format!("{head}, {}", details[0])
                } else {
                    let each: Vec<String> = names
                        .iter()
                        .zip(&details)
                        .map(|(n, d)| format!("{n} ({d})"))
                        .collect();
                    format!("{} on {}", verdict_words(*v), join_owned(&each))
                }
            })
            .collect();
        out.push(format!("{}: {}.", subject(i, claim), clauses.join("; ")));
    }
    out
}

fn join(names: &[&str]) -> String {
    join_owned(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

/// "a", "a and b", "a, b and c".
fn join_owned(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(text: &str) -> Claim {
        toml::from_str(&format!("quote = \"q\"\n{text}\n")).unwrap()
    }

    fn outcome(claim: usize, engine: &str, v: Verdict, est: f64, lo: f64, hi: f64) -> Outcome {
        Outcome {
            claim,
            engine: engine.into(),
            verdict: v,
            figure: String::new(),
            estimate: est,
            ci_lo: lo,
            ci_hi: hi,
            n: 6,
            note: String::new(),
            more_repetitions: None,
            fewest_repetitions: None,
            open_cells: Vec::new(),
        }
    }

    const RIBBON: &str = "ratio = { axis = \"use_ribbon_filter\", a = true, b = false }";

    #[test]
    fn the_answer_says_per_claim_what_was_found_and_how_sure() {
        let claims = [
            claim(&format!("metric = \"fill+read.filter_bits_per_key\"\nrelation = \"smaller\"\nseed_value = 0.7\nseed_figure = \"0.7×\"\n{RIBBON}")),
            claim(&format!("metric = \"fillrandom.ops_per_sec\"\nrelation = \"about\"\nseed_value = 0.994\ntolerance = 0.05\n{RIBBON}")),
            claim(&format!("metric = \"readrandom.ops_per_sec\"\nrelation = \"greater\"\nseed_value = 1.3\n{RIBBON}")),
        ];
        let mut open = outcome(1, "lsmlab", Verdict::Inconclusive, 1.01, 0.95, 1.08);
        open.more_repetitions = Some(60);
        open.note = "needs ≈ 60 more repetitions of 2 cells".into();
        let outcomes = vec![
            outcome(0, "lsmlab", Verdict::Reproduced, 0.83, 0.82, 0.84),
            outcome(0, "rocksdb", Verdict::Reproduced, 0.83, 0.82, 0.84),
            open,
            outcome(2, "lsmlab", Verdict::NoEffect, 1.002, 0.99, 1.01),
        ];
        let a = answer(&claims, &outcomes);
        assert_eq!(a.len(), 3, "{a:?}");
        // Reproduced on both engines alike: one clause, the range as a percentage.
        assert_eq!(
            a[0],
            "Claim 1 (filter_bits_per_key, use_ribbon_filter true against false): reproduced on lsmlab and rocksdb, 16–18 % lower."
        );
        // Open: the interval either way, and the projection.
        assert!(
            a[1].starts_with("Claim 2 (fillrandom.ops_per_sec, "),
            "{}",
            a[1]
        );
        assert!(
            a[1].contains(
                "undecided on lsmlab, between 5 % lower and 8 % higher; ≈ 60 more repetitions would decide it."
            ),
            "{}",
            a[1]
        );
        // No effect: inside the smallest effect of a timing (3 %).
        assert!(
            a[2].contains("no effect on lsmlab, between 1 % lower and 1 % higher, inside the ±3 % that matters"),
            "{}",
            a[2]
        );
    }

    #[test]
    fn engines_that_disagree_get_a_clause_each_and_the_seed_is_named_where_it_differs() {
        let claims = [claim(&format!(
            "metric = \"m.ops_per_sec\"\nrelation = \"smaller\"\nseed_value = 0.2\nseed_figure = \"0.2×\"\n{RIBBON}"
        ))];
        let outcomes = vec![
            outcome(0, "lsmlab", Verdict::Smaller, 0.9, 0.88, 0.92),
            outcome(0, "rocksdb", Verdict::Inconclusive, 1.0, 0.9, 1.1),
            outcome(0, "lsmlab-rocksdb", Verdict::Smaller, 0.8, 0.78, 0.82),
        ];
        let a = answer(&claims, &outcomes);
        assert!(a[0].contains("the same direction but a smaller effect on lsmlab (8–12 % lower, where the seed has 0.2×) and lsmlab-rocksdb (18–22 % lower, where the seed has 0.2×)"), "{}", a[0]);
        assert!(
            a[0].contains(
                "; undecided on rocksdb, between 10 % lower and 10 % higher; too few runs yet"
            ),
            "{}",
            a[0]
        );
    }

    #[test]
    fn ranges_in_words() {
        assert_eq!(range_words(true, 2.3, 2.1, 2.5), "2.1–2.5×");
        assert_eq!(range_words(true, 0.88, 0.478, 1.605), "0.48× to 1.6×");
        assert_eq!(range_words(true, 0.8, 0.0842, 7.612), "0.084× to 7.6×");
        assert_eq!(range_words(true, 1.1, 1.05, 1.15), "5–15 % higher");
        assert_eq!(range_words(true, 1.0, 1.0, 1.0), "the same");
        assert_eq!(
            range_words(true, 0.9, f64::NAN, f64::NAN),
            "0.900× (one run, no interval)"
        );
        assert_eq!(range_words(false, 13.0, 12.3, 14.1), "12.3–14.1");
        assert_eq!(short_metric("a+b.fpr"), "fpr");
        assert_eq!(
            short_metric("fillrandom.ops_per_sec"),
            "fillrandom.ops_per_sec"
        );
    }
}
