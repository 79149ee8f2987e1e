//! How many runs a side would decide a comparison that `compare` leaves *undetermined*.
//!
//! An undetermined change has a CI that neither lies inside ±threshold (*same*) nor beyond it
//! (*slower*, *faster*, ...). Either answer needs the CI's half-width below the distance
//! between the observed change and the threshold's edge, in logs `m = | |d| − ln(1 + t) |`.
//! At the spread observed (the sample variances of the logs on each side), the half-width with
//! `n` runs a side is `t975(df) · √((v_a + v_b) / n)`, with Welch's degrees of freedom for
//! equal sides. The projection assumes the change and the spread stay as measured: it says
//! what a decision would cost, not which way it would go.

use crate::analyse::numbers::statistics::t975;

/// The most runs a side the projection looks at; beyond it a change is "out of reach".
pub const MAX_RUNS: usize = 1000;

/// The fewest runs a side (in all, not more) at which the CI of a change `d` (log of the
/// ratio) with per-run log variances `va` and `vb` would lie wholly inside or wholly beyond
/// ±`threshold` (a fraction); `None` when the change sits on the edge or needs more than
/// `MAX_RUNS`.
pub fn runs_a_side(d: f64, va: f64, vb: f64, threshold: f64) -> Option<usize> {
    let edge = (1.0 + threshold).ln();
    let margin = (d.abs() - edge).abs();
    let v = va + vb;
    if !(margin.is_finite() && v.is_finite()) || margin == 0.0 || va < 0.0 || vb < 0.0 {
        return None;
    }
    if v == 0.0 {
        return Some(2);
    }
    (2..=MAX_RUNS).find(|&n| {
        let nf = n as f64;
        // Welch–Satterthwaite with n a side: (va + vb)² (n − 1) / (va² + vb²).
        let df = v * v * (nf - 1.0) / (va * va + vb * vb);
        t975(df).is_some_and(|t| t * (v / nf).sqrt() < margin)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half_width(n: usize, va: f64, vb: f64) -> f64 {
        let (nf, v) = (n as f64, va + vb);
        let df = v * v * (nf - 1.0) / (va * va + vb * vb);
        t975(df).unwrap() * (v / nf).sqrt()
    }

    #[test]
    fn the_runs_found_are_the_fewest_that_clear_the_margin() {
        // No change at 5 % CV a side, threshold 10 %: the CI must shrink inside ±ln 1.1.
        let (va, vb) = (0.05f64.powi(2), 0.05f64.powi(2));
        let n = runs_a_side(0.0, va, vb, 0.10).unwrap();
        let m = 1.1f64.ln();
        assert!(
            half_width(n, va, vb) < m && half_width(n - 1, va, vb) >= m,
            "{n}"
        );
        // Closer to the edge costs more; further beyond it costs less.
        let near = runs_a_side(0.07, va, vb, 0.10).unwrap();
        let far = runs_a_side(0.40, va, vb, 0.10).unwrap();
        assert!(near > n && far < n, "{far} < {n} < {near}");
        // A slowdown of 48 % at 20 % CV, 3 runs a side today: about a dozen would decide it.
        let slow = runs_a_side((0.52f64).ln(), 0.04, 0.04, 0.10).unwrap();
        assert!((3..=20).contains(&slow), "{slow}");
    }

    #[test]
    fn on_the_edge_or_without_spread() {
        assert_eq!(runs_a_side(1.1f64.ln(), 0.01, 0.01, 0.10), None);
        assert_eq!(runs_a_side(0.0, 0.0, 0.0, 0.10), Some(2));
        assert_eq!(runs_a_side(f64::NAN, 0.01, 0.01, 0.10), None);
        // A huge spread a hair from the edge: out of reach.
        assert_eq!(runs_a_side(0.0953, 1.0, 1.0, 0.10), None);
    }
}
