//! Statistics of repeated runs: description with the 95 % interval of `intervals`, outlier flags
//! (`outliers`: flagged, never dropped), and paired ratios from log-ratios with their CI and p-value.
//!
//! Ratios are computed on logs because throughput ratios are multiplicative: the mean of
//! log(a/b) back-transformed is the geometric mean ratio, and its CI is symmetric in log space,
//! so A vs B and B vs A give reciprocal answers.

use super::intervals::{self, Method};
pub use super::student::{p_two_sided, quantile, t975};
use serde::{Deserialize, Serialize};

/// n, mean, sd, CV, 95 % CI, median, min, max and outliers of one set of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Describe {
    /// Runs.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1).
    pub sd: f64,
    /// sd / mean.
    pub cv: f64,
    /// The point the interval is around: the geometric mean when every run is above 0, else
    /// the mean (see `intervals`).
    #[serde(default = "nan")]
    pub estimate: f64,
    /// How `ci_lo`/`ci_hi` were computed.
    #[serde(default)]
    pub interval: Method,
    /// 95 % interval of `estimate`, low (NaN with one run): from `intervals::interval`, so it
    /// never leaves the range of a metric whose runs are all ≥ 0.
    pub ci_lo: f64,
    /// High end of that interval.
    pub ci_hi: f64,
    /// Median.
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// Indices (into the input) of outliers by Grubbs' test (see `outliers`).
    pub outliers: Vec<usize>,
    /// The finite values themselves, in run order: figures draw each run as a point.
    #[serde(default)]
    pub values: Vec<f64>,
}

fn nan() -> f64 {
    f64::NAN
}

/// Describes `xs` (NaNs ignored); `None` when nothing is left.
pub fn describe(xs: &[f64]) -> Option<Describe> {
    let idx: Vec<usize> = (0..xs.len()).filter(|&i| xs[i].is_finite()).collect();
    let n = idx.len();
    if n == 0 {
        return None;
    }
    let vals: Vec<f64> = idx.iter().map(|&i| xs[i]).collect();
    let mean = vals.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 {
        (vals.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        f64::NAN
    };
    let interval = intervals::interval(&vals);
    let mut sorted = vals.clone();
    sorted.sort_by(f64::total_cmp);
    let median = quantile(&sorted, 0.5);
    let outliers = super::outliers::flagged(&idx, xs);
    let min = sorted[0];
    let max = sorted[n - 1];
    Some(Describe {
        estimate: interval.estimate,
        interval: interval.method,
        n,
        mean,
        sd,
        cv: if mean != 0.0 {
            sd / mean.abs()
        } else {
            f64::NAN
        },
        ci_lo: interval.lo,
        ci_hi: interval.hi,
        median,
        min,
        max,
        outliers,
        values: vals,
    })
}

/// The ratio a/b of paired runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Pairs used (both values positive and finite).
    pub n: usize,
    /// Geometric mean of a_i / b_i.
    pub ratio: f64,
    /// 95 % CI, low (NaN with one pair).
    pub ci_lo: f64,
    /// 95 % CI, high.
    pub ci_hi: f64,
    /// Two-sided p-value of "the ratio is 1" (paired t-test on log-ratios).
    pub p: f64,
}

/// The paired ratio of `a` to `b` (pairs by position).
pub fn paired_ratio(a: &[f64], b: &[f64]) -> Option<Ratio> {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
        .map(|(x, y)| (x / y).ln())
        .collect();
    let n = d.len();
    if n == 0 {
        return None;
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some(Ratio {
            n,
            ratio: mean.exp(),
            ci_lo: f64::NAN,
            ci_hi: f64::NAN,
            p: f64::NAN,
        });
    }
    let df = (n - 1) as f64;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / df).sqrt();
    let se = sd / (n as f64).sqrt();
    let t = t975(df).unwrap_or(f64::NAN);
    let p = if se > 0.0 {
        p_two_sided(mean / se, df).unwrap_or(f64::NAN)
    } else if mean == 0.0 {
        1.0
    } else {
        0.0
    };
    Some(Ratio {
        n,
        ratio: mean.exp(),
        ci_lo: (mean - t * se).exp(),
        ci_hi: (mean + t * se).exp(),
        p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn describe_by_hand() {
        // Runs below 0: the mean and Student's t.
        let d = describe(&[-1.0, 0.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            (d.n, d.mean, d.median, d.min, d.max),
            (5, 1.0, 1.0, -1.0, 3.0)
        );
        assert!(close(d.sd, 2.5f64.sqrt(), 1e-12));
        // 1 ± 2.7764 · 1.5811 / √5 = 1 ± 1.9632
        assert!(close(d.ci_lo, -0.9632, 1e-3) && close(d.ci_hi, 2.9632, 1e-3));
        assert!(close(d.cv, 1.5811, 1e-3));
        assert!(d.outliers.is_empty());
    }

    #[test]
    fn outliers_are_flagged_not_dropped() {
        let d = describe(&[10.0, 11.0, 10.5, 10.2, 30.0]).unwrap();
        assert_eq!(d.outliers, vec![4]);
        assert_eq!(d.n, 5);
        assert_eq!(d.max, 30.0);
        // Five ordinary noisy runs: nothing flagged.
        let d = describe(&[92.2, 103.1, 103.7, 109.0, 119.9]).unwrap();
        assert!(d.outliers.is_empty(), "{:?}", d.outliers);
        let d = describe(&[5.0, 5.0, 5.0, 5.0, 5.0, 9.0]).unwrap();
        assert_eq!(d.outliers, vec![5]);
        assert!(describe(&[1.0, 2.0, 10.0]).unwrap().outliers.is_empty());
    }

    #[test]
    fn the_interval_is_the_one_of_intervals() {
        for xs in [
            &[2000.0, 40000.0, 90000.0][..],
            &[0.0, 3.0, 0.0, 9.0],
            &[-2.0, 1.0, 4.0],
        ] {
            let d = describe(xs).unwrap();
            let i = intervals::interval(xs);
            assert_eq!(
                (d.estimate, d.interval, d.ci_lo, d.ci_hi),
                (i.estimate, i.method, i.lo, i.hi)
            );
            assert!(d.ci_lo >= 0.0 || xs.iter().any(|x| *x < 0.0), "{xs:?}");
        }
    }

    #[test]
    fn one_run_has_no_interval() {
        let d = describe(&[7.0, f64::NAN]).unwrap();
        assert_eq!(d.n, 1);
        assert!(d.ci_lo.is_nan() && d.sd.is_nan());
        assert!(describe(&[]).is_none());
    }

    #[test]
    fn paired_ratios_by_hand() {
        // Constant ratio 2: no spread, certain.
        let r = paired_ratio(&[2.0, 4.0, 8.0], &[1.0, 2.0, 4.0]).unwrap();
        assert!(close(r.ratio, 2.0, 1e-12) && close(r.ci_lo, 2.0, 1e-12) && r.p == 0.0);
        // log-ratios 0.1, 0.2, 0.3: mean 0.2, sd 0.1, se 0.0577, t(2) = 4.3027.
        let b = [1.0, 1.0, 1.0];
        let a = [0.1f64.exp(), 0.2f64.exp(), 0.3f64.exp()];
        let r = paired_ratio(&a, &b).unwrap();
        assert!(close(r.ratio, 0.2f64.exp(), 1e-12));
        assert!(close(
            r.ci_lo,
            (0.2f64 - 4.3027 * 0.1 / 3f64.sqrt()).exp(),
            1e-3
        ));
        assert!(close(
            r.ci_hi,
            (0.2f64 + 4.3027 * 0.1 / 3f64.sqrt()).exp(),
            1e-3
        ));
        // df = 2: p = 1 − t/√(t² + 2) with t = 2√3.
        let t = 0.2 / (0.1 / 3f64.sqrt());
        assert!(close(r.p, 1.0 - t / (t * t + 2.0).sqrt(), 1e-6));
        // Reversed: the reciprocal.
        let s = paired_ratio(&b, &a).unwrap();
        assert!(close(s.ratio * r.ratio, 1.0, 1e-12));
        assert!(close(s.ci_lo * r.ci_hi, 1.0, 1e-9));
        assert!(paired_ratio(&[0.0], &[1.0]).is_none());
    }
}
