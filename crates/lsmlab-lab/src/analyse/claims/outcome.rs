//! A claim's verdict and its outcome on one engine: what `verdicts` decides and every later
//! stage reads.

use serde::{Deserialize, Serialize};

/// A verdict, decided from a CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The CI lies where the seed says.
    Reproduced,
    /// The CI lies on the wrong side of the threshold, or inside "no effect".
    NotReproduced,
    /// The effect goes the other way.
    Reversed,
    /// The CI straddles the threshold (or there is no CI).
    Inconclusive,
    /// This engine produced no such figure, or no cell of this scale matches.
    NoData,
}

impl Verdict {
    /// As the report prints it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoData => "n/a",
        }
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
    /// On an "in every case" claim still open: the cells of its open cases, the only ones a
    /// sequential round need repeat (a decided case stays decided: its CI is anytime-valid).
    /// Empty otherwise. Derived from the runs each time, so never written.
    #[serde(skip)]
    pub open_cells: Vec<usize>,
}
