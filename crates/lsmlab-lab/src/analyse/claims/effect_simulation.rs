//! Simulated sequential studies of the verdict rule (`Rule`) on anytime-valid intervals: each
//! study draws paired log-ratios N(ln ρ, σ²), σ = 0.15 (a per-run spread of 15 % in the ratio
//! of a run to its pair), one repetition at a time, reads the verdict after every repetition
//! from the second up to the budget's default cap (100), and stops at the first decision, as
//! `lsmlab run --until-decided` does. Closed form: a running mean and sum of squares per study,
//! the interval's half-width from `anytime::half_width` — no runs, no records — so 10,000
//! studies a scenario take milliseconds.

use super::{Rule, Verdict};
use crate::analyse::numbers::anytime::half_width;
use crate::analyse::numbers::anytime::simulation::Rng;
use crate::analyse::numbers::student::t975;
use crate::plan::claims::{Claim, Relation};

const STUDIES: usize = 10_000;
const SIGMA: f64 = 0.15;
const CAP: usize = 100;

/// How the interval of the mean log-ratio is formed after each repetition.
#[derive(Clone, Copy)]
enum Interval {
    /// The claims' anytime-valid confidence sequence.
    Anytime,
    /// A fixed-n Student t interval, read after every repetition (peeking).
    Student,
}

fn half(i: Interval, n: usize, ss: f64) -> Option<f64> {
    match i {
        Interval::Anytime => half_width(n, ss),
        Interval::Student => {
            let df = (n - 1) as f64;
            Some(t975(df)? * (ss / df / n as f64).sqrt())
        }
    }
}

/// The first decision of one study (repetition, verdict), `None` when open at the cap.
fn study(rng: &mut Rng, rule: &Rule, log_ratio: f64, i: Interval) -> Option<(usize, Verdict)> {
    let (mut mean, mut ss) = (0.0f64, 0.0f64);
    for n in 1..=CAP {
        let x = log_ratio + SIGMA * rng.normal();
        let d = x - mean;
        mean += d / n as f64;
        ss += d * (x - mean);
        if n < 2 {
            continue;
        }
        let Some(h) = half(i, n, ss) else {
            continue;
        };
        let v = rule.verdict((mean - h).exp(), (mean + h).exp());
        if v != Verdict::Inconclusive {
            return Some((n, v));
        }
    }
    None
}

fn run(seed: u64, rule: &Rule, ratio: f64, i: Interval) -> Vec<Option<(usize, Verdict)>> {
    let mut rng = Rng(seed);
    (0..STUDIES)
        .map(|_| study(&mut rng, rule, ratio.ln(), i))
        .collect()
}

/// Repetitions a fixed-n equivalence design (two one-sided t-tests at α = 5 %, Schuirmann) needs
/// for 80 % power to show a true ratio of 1 within ±ln(1 + tol) at spread σ: the fewest n with
/// (t(1−α, n−1) + t(1−β/2, n−1)) σ / √n ≤ ln(1 + tol).
fn fixed_n_equivalence(tol: f64, sigma: f64) -> usize {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let margin = (1.0 + tol).ln();
    (3..10_000)
        .find(|&n| {
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).unwrap();
            (t.inverse_cdf(0.95) + t.inverse_cdf(0.90)) * sigma / (n as f64).sqrt() <= margin
        })
        .unwrap()
}

fn share(out: &[Option<(usize, Verdict)>], f: impl Fn(usize, Verdict) -> bool) -> f64 {
    out.iter()
        .filter(|o| o.is_some_and(|(n, v)| f(n, v)))
        .count() as f64
        / out.len() as f64
}

/// The repetition by which `q` of the studies reached verdict `v` (`None`: never within the cap).
fn quantile_of(out: &[Option<(usize, Verdict)>], v: Verdict, q: f64) -> Option<usize> {
    let mut ns: Vec<usize> = out
        .iter()
        .filter_map(|o| o.filter(|(_, w)| *w == v).map(|(n, _)| n))
        .collect();
    ns.sort_unstable();
    let k = (q * out.len() as f64).ceil() as usize;
    ns.get(k.checked_sub(1)?).copied()
}

#[test]
fn sequential_verdicts_at_a_spread_of_15_percent() {
    // (a) A true ratio of 1, a claim "about 1 ± 10 %".
    let about: Claim = toml::from_str(
        "quote = \"q\"\nmetric = \"ops\"\nrelation = \"about\"\nratio = { axis = \"a\", a = 1, b = 2 }\ntolerance = 0.10\n",
    )
    .unwrap();
    let rule = Rule::of(&about);
    let fixed = fixed_n_equivalence(0.10, SIGMA);
    assert_eq!(fixed, 23, "the fixed-n design this is measured against");
    let a = run(1, &rule, 1.0, Interval::Anytime);
    let by_fixed = share(&a, |n, v| v == Verdict::Reproduced && n <= fixed);
    let by_cap = share(&a, |_, v| v == Verdict::Reproduced);
    let wrong = share(&a, |_, v| v != Verdict::Reproduced);
    let n80 = quantile_of(&a, Verdict::Reproduced, 0.8);
    eprintln!(
        "(a) about ±10 %, true 1: decided equal in {:.1} % by {fixed} repetitions (fixed-n TOST, 80 % power), {:.1} % by {CAP}; 80 % decided by {n80:?}; decided otherwise {:.2} %",
        100.0 * by_fixed,
        100.0 * by_cap,
        100.0 * wrong
    );
    // What holds: the anytime-valid rule decides a nil effect equal in 80 % of studies, well
    // within the cap, at most 3× the fixed-n design (whose 23 cannot be peeked at), and never
    // decides it otherwise beyond the 5 % error.
    assert!(by_cap >= 0.80, "{by_cap}");
    assert!(n80.is_some_and(|n| n <= 3 * fixed), "{n80:?}");
    assert!(wrong <= 0.05, "{wrong}");

    // (b) A false difference claim: "greater, the seed's 1.3×", the true ratio 1.
    let greater: Claim = toml::from_str(
        "quote = \"q\"\nmetric = \"ops\"\nrelation = \"greater\"\nseed_value = 1.3\nratio = { axis = \"a\", a = 1, b = 2 }\n",
    )
    .unwrap();
    let rule = Rule::of(&greater);
    assert_eq!(rule.e, 0.03, "a timing's smallest effect");
    let b = run(2, &rule, 1.0, Interval::Anytime);
    let reproduced = share(&b, |_, v| v == Verdict::Reproduced);
    let refuted = share(&b, |_, v| {
        matches!(v, Verdict::NotReproduced | Verdict::NoEffect)
    });
    eprintln!(
        "(b) greater, true 1: reproduced in {:.2} %, refuted (not reproduced or no effect) in {:.1} %",
        100.0 * reproduced,
        100.0 * refuted
    );
    assert!(reproduced <= 0.05, "{reproduced}");
    // Inside the smallest effect (a true 1.02×) it is no more a difference.
    let inside = run(3, &rule, 1.02, Interval::Anytime);
    let inside_rep = share(&inside, |_, v| v == Verdict::Reproduced);
    eprintln!(
        "(b) greater, true 1.02: reproduced in {:.2} %",
        100.0 * inside_rep
    );
    assert!(inside_rep <= 0.05, "{inside_rep}");

    // (c) The same claim read after every repetition from fixed-n Student intervals: fails (b).
    let c = run(2, &rule, 1.0, Interval::Student);
    let peeked = share(&c, |_, v| v == Verdict::Reproduced);
    eprintln!(
        "(c) greater, true 1, Student intervals peeked at: reproduced in {:.1} %",
        100.0 * peeked
    );
    assert!(peeked > 0.05, "{peeked}");
}

#[test]
fn the_fixed_n_design_grows_with_the_spread() {
    assert!(fixed_n_equivalence(0.10, 0.05) < fixed_n_equivalence(0.10, 0.15));
    let _ = Relation::About;
}
