//! Size as well as direction: the smallest effect that matters (SESOI) of every claim and the
//! size band its seed's number is judged in, and the verdict an interval gets from them.
//! docs/verdicts.md explains the rules and argues the defaults.
//!
//! Every claim has a region of practical equivalence around its threshold t,
//! [t / (1 + e), t · (1 + e)] with e its smallest effect (`smallest_effect`, else a
//! `greater`/`smaller` claim's `tolerance`, else the plan's, else the default of the metric's
//! kind below). A direction is decided only beyond it, and an interval inside it is *no effect*:
//! an exact counter that differs by 0.1 % does not decide a direction, and a nil effect is
//! decided nil instead of staying open for ever.
//!
//! A claim that carries the seed's number as a size (`greater`/`smaller` with a `seed_value`,
//! `kind = "size"`) is then judged on that size too: the seed's s is consistent with the runs
//! when their interval meets [s / B, s · B], B the size band (`size_band`, default
//! `DEFAULT_SIZE_BAND`). An interval beyond the direction's edge that misses the band is *same
//! direction, smaller* or *same direction, larger* (of the effect, the distance from t).
//! Bounds (`at_most`, `at_least`) are decided as bounds, with the SESOI as their slack; `about`
//! stays a band claim of its own tolerance.

use super::outcome::Verdict;
use crate::plan::claims::{Claim, Relation, DEFAULT_TOLERANCE};

pub use crate::plan::effect_defaults::{metric_kind, MetricKind, DEFAULT_SIZE_BAND};

/// What a claim is judged on once its direction holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Judged {
    /// Direction only (no seed number, or `kind = "direction"`).
    Direction,
    /// Direction and the seed's size s within the band [lo, hi].
    Size { seed: f64, lo: f64, hi: f64 },
}

/// Everything a claim's verdict is decided by, from the claim alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// The relation.
    pub rel: Relation,
    /// The threshold.
    pub t: f64,
    /// The smallest effect that matters (a fraction).
    pub e: f64,
    /// A ratio (a reversed direction exists) rather than a metric's own value.
    pub ratio: bool,
    /// Direction, or direction and size.
    pub judged: Judged,
    /// `about`'s tolerance.
    pub tol: f64,
}

impl Rule {
    /// The rule of `claim`.
    pub fn of(claim: &Claim) -> Rule {
        let rel = claim.relation();
        let t = claim.threshold();
        let band = claim.size_band();
        let judged = match (claim.judges_size(), claim.seed_value) {
            (true, Some(s)) => Judged::Size {
                seed: s,
                lo: s / band,
                hi: s * band,
            },
            _ => Judged::Direction,
        };
        let e = claim.smallest_effect();
        Rule {
            rel,
            t,
            e,
            ratio: claim.ratio.is_some(),
            judged,
            // A band narrower than the smallest effect cannot be told from it: the larger.
            tol: claim.tolerance.unwrap_or(DEFAULT_TOLERANCE).max(e),
        }
    }

    /// A rule of direction only, for a relation and threshold (tests, simulations).
    pub fn direction(rel: Relation, t: f64, e: f64, ratio: bool) -> Rule {
        Rule {
            rel,
            t,
            e,
            ratio,
            judged: Judged::Direction,
            tol: DEFAULT_TOLERANCE,
        }
    }

    /// The region of practical equivalence around the threshold.
    pub fn rope(&self) -> (f64, f64) {
        (self.t / (1.0 + self.e), self.t * (1.0 + self.e))
    }

    /// `about`'s band.
    pub fn band(&self) -> (f64, f64) {
        (self.t / (1.0 + self.tol), self.t * (1.0 + self.tol))
    }

    /// The verdict of an interval [lo, hi].
    pub fn verdict(&self, lo: f64, hi: f64) -> Verdict {
        if !(lo.is_finite() && hi.is_finite()) {
            return Verdict::Inconclusive;
        }
        let (r0, r1) = self.rope();
        let inside = lo >= r0 && hi <= r1;
        match self.rel {
            Relation::Greater | Relation::Smaller => {
                let up = self.rel == Relation::Greater;
                // Beyond the ROPE on the claim's side, and how far the claim is refuted.
                let (beyond, refuted, against) = if up {
                    (lo > r1, hi <= r1, hi < r0)
                } else {
                    (hi < r0, lo >= r0, lo > r1)
                };
                if beyond {
                    self.size(lo, hi)
                } else if inside {
                    Verdict::NoEffect
                } else if against {
                    // The other way beyond the ROPE: a ratio reversed when its threshold is on
                    // the claim's side of 1 (greater than t ≥ 1, smaller than t ≤ 1).
                    let past_one = if up {
                        self.t >= 1.0 && hi < 1.0 / (1.0 + self.e)
                    } else {
                        self.t <= 1.0 && lo > 1.0 + self.e
                    };
                    if self.ratio && past_one {
                        Verdict::Reversed
                    } else {
                        Verdict::NotReproduced
                    }
                } else if refuted {
                    // Partly inside the ROPE, partly the other way: not the claimed effect.
                    Verdict::NotReproduced
                } else {
                    Verdict::Inconclusive
                }
            }
            Relation::AtMost => {
                if hi <= r1 {
                    Verdict::Reproduced
                } else if lo > r1 {
                    Verdict::NotReproduced
                } else {
                    Verdict::Inconclusive
                }
            }
            Relation::AtLeast => {
                if lo >= r0 {
                    Verdict::Reproduced
                } else if hi < r0 {
                    Verdict::NotReproduced
                } else {
                    Verdict::Inconclusive
                }
            }
            Relation::About | Relation::Crossover => {
                let (a, b) = self.band();
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

    /// The direction holds: the seed's size against the interval.
    fn size(&self, lo: f64, hi: f64) -> Verdict {
        let Judged::Size { lo: s0, hi: s1, .. } = self.judged else {
            return Verdict::Reproduced;
        };
        let up = self.rel == Relation::Greater;
        if hi < s0 {
            // Below the seed's band: a smaller effect when the claim is "greater".
            if up {
                Verdict::Smaller
            } else {
                Verdict::Larger
            }
        } else if lo > s1 {
            if up {
                Verdict::Larger
            } else {
                Verdict::Smaller
            }
        } else {
            Verdict::Reproduced
        }
    }

    /// The edges an interval around `estimate` must clear for a verdict: the ROPE's (a
    /// direction, or no effect), a bound's slack, `about`'s band; and, for a size claim whose
    /// estimate lies beyond the ROPE but outside the seed's band, the band's near edge. On the
    /// metric's own scale (not logs).
    pub fn edges(&self, estimate: f64) -> Vec<f64> {
        let (r0, r1) = self.rope();
        match self.rel {
            Relation::Greater | Relation::Smaller => {
                let mut out = vec![r0, r1];
                if let Judged::Size { lo, hi, .. } = self.judged {
                    let beyond = if self.rel == Relation::Greater {
                        estimate > r1
                    } else {
                        estimate < r0
                    };
                    if beyond && estimate < lo {
                        out.push(lo);
                    } else if beyond && estimate > hi {
                        out.push(hi);
                    }
                }
                out
            }
            Relation::AtMost => vec![r1],
            Relation::AtLeast => vec![r0],
            Relation::About => {
                let (a, b) = self.band();
                vec![a, b]
            }
            Relation::Crossover => vec![r0, r1],
        }
    }
}

/// "seed 0.208×, measured 0.999× [0.999, 0.999] (n=3); the seed's size excluded" and the like:
/// the words a size verdict adds to a row's figure.
pub fn size_words(rule: &Rule, v: Verdict) -> Option<String> {
    let Judged::Size { seed, lo, hi } = rule.judged else {
        return None;
    };
    let s = crate::text::significant;
    match v {
        Verdict::Smaller | Verdict::Larger => Some(format!(
            "the seed's {} outside its band [{}, {}]",
            s(seed),
            s(lo),
            s(hi)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    fn claim(text: &str) -> Claim {
        toml::from_str(&format!("quote = \"q\"\n{text}\n")).unwrap()
    }

    #[test]
    fn kinds_of_the_plans_metrics() {
        for (m, k) in [
            ("readrandom.ops_per_sec", MetricKind::Timing),
            ("fillrandom.micros_per_op", MetricKind::Timing),
            ("case2.get.p99_us", MetricKind::Timing),
            ("process.cpu_mean_pct", MetricKind::Timing),
            ("run.lsmlab.device_time_s", MetricKind::Timing),
            ("fillseq.mb_per_sec", MetricKind::Timing),
            ("run.lsmlab.read_amp", MetricKind::Work),
            ("fill.write_amp", MetricKind::Work),
            ("run.compact_write_mb", MetricKind::Work),
            ("run.sim.major_mb", MetricKind::Work),
            ("readrandom.lsmlab.files_checked_per_get", MetricKind::Work),
            ("db_size_mb", MetricKind::Size),
            ("readmissing.lsmlab.filter_mb", MetricKind::Size),
            ("x.filter_bits_per_key", MetricKind::Size),
            ("readmissing.lsmlab.filter_fpr", MetricKind::Rate),
            ("x.fpr", MetricKind::Rate),
        ] {
            assert_eq!(metric_kind(m), k, "{m}");
        }
    }

    #[test]
    fn seed_003_claim_6_is_not_reproduced_by_a_sign() {
        // "read amplification 4.81 times lower": seed 0.208, measured 0.999 exactly.
        let c = claim("metric = \"run.lsmlab.read_amp\"\nrelation = \"smaller\"\nseed_value = 0.208\nratio = { axis = \"engine\", a = \"x\", b = \"y\" }");
        let r = Rule::of(&c);
        assert_eq!(r.e, 0.01);
        assert_eq!(r.verdict(0.999, 0.999), NoEffect);
        // With no smallest effect, the exact 0.1 % is a direction, but far from the seed's size.
        let mut zero = c.clone();
        zero.smallest_effect = Some(0.0);
        assert_eq!(Rule::of(&zero).verdict(0.999, 0.999), Smaller);
        // The seed's size, within the band: reproduced; a larger reduction: larger.
        assert_eq!(r.verdict(0.25, 0.3), Reproduced);
        assert_eq!(r.verdict(0.05, 0.1), Larger);
        assert_eq!(r.verdict(1.2, 1.3), Reversed);
    }

    #[test]
    fn an_exact_ratio_decides_at_once_against_the_smallest_effect() {
        let r = Rule::direction(Relation::Greater, 1.0, 0.01, true);
        assert_eq!(r.verdict(1.0, 1.0), NoEffect);
        assert_eq!(r.verdict(1.02, 1.02), Reproduced);
        assert_eq!(r.verdict(0.98, 0.98), Reversed);
        assert_eq!(r.verdict(1.005, 1.02), Inconclusive);
        assert_eq!(r.verdict(0.95, 1.005), NotReproduced, "not greater");
        // On the threshold with no smallest effect: no effect, not open for ever.
        let r0 = Rule::direction(Relation::Smaller, 1.0, 0.0, true);
        assert_eq!(r0.verdict(1.0, 1.0), NoEffect);
    }

    #[test]
    fn bounds_are_decided_as_bounds() {
        let c = claim("metric = \"m\"\nrelation = \"at_most\"\nthan = 2.04\nratio = { axis = \"a\", a = 1, b = 2 }\nsmallest_effect = 0.01");
        let r = Rule::of(&c);
        assert_eq!(r.verdict(1.2, 1.5), Reproduced);
        assert_eq!(r.verdict(2.05, 2.05), Reproduced, "within the slack");
        assert_eq!(r.verdict(2.3, 2.4), NotReproduced);
        assert_eq!(r.verdict(1.9, 2.3), Inconclusive);
        let c = claim("metric = \"m\"\nrelation = \"at_least\"\nthan = 10\nsmallest_effect = 0");
        let r = Rule::of(&c);
        assert_eq!(r.verdict(10.0, 12.0), Reproduced);
        assert_eq!(r.verdict(8.0, 9.0), NotReproduced);
        assert_eq!(r.verdict(8.0, 11.0), Inconclusive);
        assert!(matches!(r.judged, Judged::Direction), "a bound is no size");
    }

    #[test]
    fn a_size_claim_names_its_band_and_a_direction_claim_has_none() {
        let c = claim("metric = \"m\"\nrelation = \"greater\"\nseed_value = 2.0\nratio = { axis = \"a\", a = 1, b = 2 }\nsize_band = 1.25");
        let r = Rule::of(&c);
        assert_eq!(r.verdict(1.3, 1.5), Smaller);
        assert_eq!(r.verdict(1.7, 1.9), Reproduced);
        assert_eq!(r.verdict(2.6, 3.0), Larger);
        let words = size_words(&r, Smaller).unwrap();
        assert!(
            words.starts_with("the seed's 2") && words.contains("outside its band [1.6"),
            "{words}"
        );
        let mut d = c.clone();
        d.kind = Some("direction".into());
        assert_eq!(Rule::of(&d).verdict(1.3, 1.5), Reproduced);
        // Edges for pricing: the ROPE's, and the band's near edge when outside it.
        assert_eq!(r.edges(1.4).len(), 3);
        assert_eq!(r.edges(1.8).len(), 2);
    }
}

#[cfg(test)]
#[path = "effect_simulation.rs"]
mod simulation;

#[cfg(test)]
#[path = "effect_plans.rs"]
mod plans;
