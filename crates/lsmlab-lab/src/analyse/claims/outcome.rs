//! A claim's verdict and its outcome on one engine: what `verdicts` decides and every later
//! stage reads.

use serde::{Deserialize, Serialize};

/// A verdict, decided from a CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The CI lies where the seed says: the direction beyond the smallest effect that
    /// matters and, for a size claim, meeting the seed's size band.
    Reproduced,
    /// The direction holds, but the CI lies below the seed's size band: a smaller effect.
    Smaller,
    /// The direction holds, but the CI lies above the seed's size band: a larger effect.
    Larger,
    /// The CI lies inside the smallest effect that matters around the threshold.
    NoEffect,
    /// The CI lies on the wrong side of the threshold, or of a bound or band.
    NotReproduced,
    /// The effect goes the other way.
    Reversed,
    /// The CI straddles the threshold (or there is no CI).
    Inconclusive,
    /// This engine produced no such figure, or no cell of this scale matches.
    NoData,
    /// Every run the claim reads failed: no figure, and more runs of the same kind would fail.
    RunsFailed,
}

impl Verdict {
    /// As the report prints it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Smaller => "same direction, smaller",
            Verdict::Larger => "same direction, larger",
            Verdict::NoEffect => "no effect",
            Verdict::RunsFailed => "runs failed",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoData => "n/a",
        }
    }

    /// Decided: any verdict but inconclusive, n/a and runs failed.
    pub fn decided(self) -> bool {
        !matches!(
            self,
            Verdict::Inconclusive | Verdict::NoData | Verdict::RunsFailed
        )
    }
}

/// A claim's outcome on one engine (or one pair of engines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Index of the claim in the plan.
    pub claim: usize,
    /// The engine, or `a / b` for a ratio of engines.
    pub engine: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The measured figure with its 95 % CI, or why there is none.
    pub figure: String,
    /// Estimate and CI (NaN when none).
    pub estimate: f64,
    /// CI low.
    pub ci_lo: f64,
    /// CI high.
    pub ci_hi: f64,
    /// Pairs (ratios) or runs (metrics) behind it.
    pub n: usize,
    /// On an inconclusive verdict: what its CI already excludes and what deciding it would
    /// take (`open_claims::annotate`); empty otherwise.
    #[serde(default)]
    pub note: String,
    /// On an inconclusive verdict: the further repetitions of the claim's cells projected to
    /// decide it at the observed spread (`None`: decided, or out of reach).
    #[serde(default)]
    pub more_repetitions: Option<usize>,
    /// On an inconclusive verdict: the further repetitions at the low end of the spread's
    /// chi-square 90 % range (`open_claims`); a study stops "out of reach" only when even these
    /// do not fit. Derived from the runs each time, so never written.
    #[serde(skip)]
    pub fewest_repetitions: Option<usize>,
    /// On an "in every case" claim still open: the cells of its open cases, the only ones a
    /// sequential round need repeat (a decided case stays decided: its CI is anytime-valid).
    /// Empty otherwise. Derived from the runs each time, so never written.
    #[serde(skip)]
    pub open_cells: Vec<usize>,
}
