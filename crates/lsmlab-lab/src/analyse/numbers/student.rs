//! Student's t distribution (95 % quantiles, two-sided p-values) and sample quantiles: the
//! pieces every interval of the analyse stage is built from.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Two-sided 95 % Student-t quantile with `df` degrees of freedom.
pub fn t975(df: f64) -> Option<f64> {
    StudentsT::new(0.0, 1.0, df)
        .ok()
        .map(|t| t.inverse_cdf(0.975))
}

/// Two-sided p-value of a t statistic with `df` degrees of freedom.
pub fn p_two_sided(t: f64, df: f64) -> Option<f64> {
    if t.is_infinite() {
        return Some(0.0);
    }
    StudentsT::new(0.0, 1.0, df)
        .ok()
        .map(|d| (2.0 * (1.0 - d.cdf(t.abs()))).clamp(0.0, 1.0))
}

/// Quantile `q` (0–1) by linear interpolation between order statistics (R's type 7).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_tables() {
        // Student's t table, two-sided 95 %.
        assert!(close(t975(1.0).unwrap(), 12.7062, 1e-3));
        assert!(close(t975(2.0).unwrap(), 4.3027, 1e-3));
        assert!(close(t975(4.0).unwrap(), 2.7764, 1e-3));
        assert!(close(t975(9.0).unwrap(), 2.2622, 1e-3));
        assert!(close(t975(1e6).unwrap(), 1.9600, 1e-3));
    }
}
