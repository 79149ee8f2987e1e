//! The 95 % interval of one set of runs, chosen by what the runs can be: the single source of
//! every interval that `summary.csv`, `summary.json`, the figures and their tables show.
//!
//! - Every run above 0 (a throughput, a latency, a size): the geometric mean, with Student's t
//!   on the logs, back-transformed. A positive quantity's spread is multiplicative, and the
//!   interval cannot reach 0.
//! - Every run ≥ 0 and some exactly 0 (compaction bytes of a step that may compact or not): the
//!   mean, with a percentile bootstrap of the mean. Logs do not exist and the t interval leaves
//!   the range; bootstrap means lie between the smallest and largest run, so the interval
//!   never does. From a fixed seed, so the same runs always give the same interval.
//! - Some run below 0: the mean with Student's t (nothing bounds such a metric).
//!
//! One run has no interval (NaN, written empty).

use super::student::{quantile, t975};
use serde::{Deserialize, Serialize};

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Every run above 0: geometric mean, Student's t on the logs, back-transformed.
    Geometric,
    /// Every run ≥ 0, some 0: the mean, a seeded percentile bootstrap of the mean.
    Bootstrap,
    /// Some run below 0: the mean, Student's t.
    #[default]
    Student,
    /// A claim's anytime-valid interval of the mean, cut at 0 for a metric whose runs are all
    /// ≥ 0 (see `anytime`).
    Anytime,
}

impl Method {
    /// The name written in `summary.csv` and the figures' tables.
    pub fn name(self) -> &'static str {
        match self {
            Method::Geometric => "geometric",
            Method::Bootstrap => "bootstrap",
            Method::Student => "t",
            Method::Anytime => "anytime",
        }
    }
}

/// A point estimate with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Which method.
    pub method: Method,
    /// Geometric mean (`Geometric`), else the mean.
    pub estimate: f64,
    /// Low end (NaN with one run).
    pub lo: f64,
    /// High end (NaN with one run).
    pub hi: f64,
}

/// Bootstrap resamples: the 2.5 % and 97.5 % points of 4,000 means move by well under a
/// percent of the interval's width between seeds.
pub const RESAMPLES: usize = 4000;

/// The bootstrap's seed: fixed, so that a report rebuilt from the same runs is the same.
const SEED: u64 = 0x6c73_6d6c_6162_0039;

/// The interval of `vals`, all finite (the caller drops the rest).
pub fn interval(vals: &[f64]) -> Interval {
    let n = vals.len();
    let mean = vals.iter().sum::<f64>() / n as f64;
    if vals.iter().all(|v| *v > 0.0) {
        let logs: Vec<f64> = vals.iter().map(|v| v.ln()).collect();
        let (m, lo, hi) = student(&logs);
        return Interval {
            method: Method::Geometric,
            estimate: m.exp(),
            lo: lo.exp(),
            hi: hi.exp(),
        };
    }
    if vals.iter().all(|v| *v >= 0.0) {
        let (lo, hi) = bootstrap(vals);
        return Interval {
            method: Method::Bootstrap,
            estimate: mean,
            lo,
            hi,
        };
    }
    let (m, lo, hi) = student(vals);
    Interval {
        method: Method::Student,
        estimate: m,
        lo,
        hi,
    }
}

/// Mean and Student's t 95 % interval of `xs` (NaN ends with fewer than 2).
fn student(xs: &[f64]) -> (f64, f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, f64::NAN, f64::NAN);
    }
    let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    match t975(n - 1.0) {
        Some(t) => {
            let half = t * sd / n.sqrt();
            (m, m - half, m + half)
        }
        None => (m, f64::NAN, f64::NAN),
    }
}

/// splitmix64: a small, fixed generator, so the bootstrap needs no crate and no entropy.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 2.5 % and 97.5 % points of the means of `RESAMPLES` resamples of `vals` (NaN with
/// fewer than 2 runs).
fn bootstrap(vals: &[f64]) -> (f64, f64) {
    let n = vals.len();
    if n < 2 {
        return (f64::NAN, f64::NAN);
    }
    let mut state = SEED ^ n as u64;
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..n)
                .map(|_| vals[(splitmix64(&mut state) % n as u64) as usize])
                .sum();
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    (quantile(&means, 0.025), quantile(&means, 0.975))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn positive_runs_get_a_log_space_interval_above_zero() {
        // A noisy throughput: the t interval of the mean reaches below 0, this one cannot.
        let vals = [2000.0, 40000.0, 90000.0];
        assert!(student(&vals).1 < 0.0);
        let i = interval(&vals);
        assert_eq!(i.method, Method::Geometric);
        assert!(i.lo > 0.0 && i.lo < i.estimate && i.estimate < i.hi);
        // By hand: logs of 1, e, e² have mean 1 and sd 1; t(2) = 4.3027.
        let e = std::f64::consts::E;
        let i = interval(&[1.0, e, e * e]);
        assert!(close(i.estimate, e, 1e-12));
        assert!(close(i.lo.ln(), 1.0 - 4.3027 / 3f64.sqrt(), 1e-3));
        assert!(close(i.hi.ln(), 1.0 + 4.3027 / 3f64.sqrt(), 1e-3));
    }

    #[test]
    fn runs_with_zeros_stay_inside_their_range() {
        // The compaction bytes: t gives [−8.9, 20.2] for runs like these.
        let vals = [0.0, 0.0, 17.0, 0.0, 11.0];
        let (_, t_lo, _) = student(&vals);
        assert!(t_lo < 0.0, "{t_lo}");
        let i = interval(&vals);
        assert_eq!(i.method, Method::Bootstrap);
        assert!(close(i.estimate, 5.6, 1e-12));
        assert!(i.lo >= 0.0 && i.lo < i.estimate && i.estimate < i.hi && i.hi <= 17.0);
        // Two runs: the resampled means are 0, half and all of the larger, so the 95 % points
        // are the two runs themselves.
        let i = interval(&[0.0, 8.0]);
        assert_eq!((i.lo, i.hi), (0.0, 8.0));
        // Nothing but zeros: exactly 0.
        let i = interval(&[0.0; 4]);
        assert_eq!((i.estimate, i.lo, i.hi), (0.0, 0.0, 0.0));
        // Seeded: the same runs, the same interval.
        assert_eq!(interval(&vals), interval(&vals));
    }

    #[test]
    fn the_bootstrap_covers_the_mean_of_a_known_distribution() {
        // Half zeros, half uniform on [0, 2]: mean 0.5. Of 200 samples of 20 runs, about 95 %
        // of the intervals must hold it (a bootstrap undercovers a little at small n).
        let mut state = 7u64;
        let mut unit = || (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
        let mut held = 0;
        for _ in 0..200 {
            let vals: Vec<f64> = (0..20)
                .map(|_| if unit() < 0.5 { 0.0 } else { 2.0 * unit() })
                .collect();
            let i = interval(&vals);
            held += usize::from(i.lo <= 0.5 && 0.5 <= i.hi);
        }
        assert!((176..=200).contains(&held), "{held} of 200");
    }

    #[test]
    fn negative_runs_keep_students_t_and_one_run_has_no_interval() {
        // −1 … 3: mean 1, sd √2.5; 1 ± 2.7764 · 1.5811 / √5 = 1 ± 1.9632.
        let i = interval(&[-1.0, 0.0, 1.0, 2.0, 3.0]);
        assert_eq!(i.method, Method::Student);
        assert!(close(i.lo, -0.9632, 1e-3) && close(i.hi, 2.9632, 1e-3));
        for v in [0.0, 5.0, -5.0] {
            let i = interval(&[v]);
            assert!(close(i.estimate, v, 1e-12));
            assert!(i.lo.is_nan() && i.hi.is_nan());
        }
    }
}
