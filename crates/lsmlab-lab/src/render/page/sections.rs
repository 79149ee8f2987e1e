//! The report as one model of sections — the answer, the claims at a glance, claims, findings, setup, figures with their tables,
//! failed runs — that `markdown` and `html` each write out, so the two say the same.

use crate::analyse::comparisons::findings::Section;

/// The report's sections, in the order they appear.
pub struct Sections {
    /// The plan's title.
    pub title: String,
    /// The question the study answers (may be empty).
    pub question: String,
    /// The answer: one sentence per claim (`answer`), empty when the plan has no claims.
    pub answer: Vec<String>,
    /// The claims at a glance (`forest`), above the claims table; none without a ratio claim.
    pub forest: Option<Shown>,
    /// The claims table: claim, seed's figure, engine, measured figure, verdict.
    pub claims: Vec<[String; 5]>,
    /// The findings, by section.
    pub findings: Vec<Section>,
    /// The setup table: the study's rows, then the machine's.
    pub setup: Vec<(String, String)>,
    /// The figures, in the plan's order.
    pub figures: Vec<Shown>,
    /// Failed runs: id and error.
    pub failed: Vec<(String, String)>,
    /// The results directory, as the last line names it.
    pub dir: String,
}

/// A figure as the report shows it.
pub struct Shown {
    /// Its heading.
    pub title: String,
    /// The file stem of its plot in `plots/`.
    pub stem: String,
    /// The SVG drawn (empty for a table-only figure).
    pub svg: String,
    /// The table under it, if it is a panel of summary rows.
    pub table: Option<FigureTable>,
}

/// A figure's table: a line above it, its columns, and its rows.
pub struct FigureTable {
    /// What the table shows, above it (e.g. the metric); may be empty.
    pub caption: String,
    /// The column heads.
    pub head: Vec<String>,
    /// The rows, as many cells as heads.
    pub rows: Vec<Vec<String>>,
    /// Columns from this one on are numbers (set right-aligned in HTML).
    pub numbers_from: usize,
    /// Columns from this one on are figures, not flags (set right-aligned up to it).
    pub numbers_to: usize,
}

/// The columns of a figure's table.
pub const TABLE_HEAD: [&str; 8] = [
    "x", "series", "engine", "n", "mean", "95 % CI", "CV", "flags",
];

/// Marks an engine whose own output warned that its build is slow; the warning is in the setup.
pub const SLOW_MARK: &str = "†";

/// Under the claims table, what `SLOW_MARK` means.
pub const SLOW_NOTE: &str = "† an engine whose own output warned that its timings are slow (a build with assertions or without optimization); the warning is in the setup.";

/// Under the answer: what its ranges are.
pub const ANSWER_NOTE: &str = "Each range is the claim's anytime-valid 95 % interval (a ratio: the first value against the second, the seed's side first); the claims table below has the figures and the rules are in docs/verdicts.md.";

/// Under the plot: how to read it.
pub const FOREST_NOTE: &str = "One row per ratio claim and engine, on a log scale: the bar is the anytime-valid 95 % interval and the dot the estimate, in the engine's colour; the black diamond is the seed's value; the grey zone around the threshold is the smallest effect that matters (an interval inside it is no effect); an about claim's band is outlined. Claims on a metric's own value, not a ratio, are in the table only.";

/// Which interval the figures and tables show.
pub const INTERVALS: &str = "Figures and tables: a metric whose runs are all above 0 (flag geometric) shows its geometric mean and the 95 % CI of Student's t on the logs, back-transformed; one whose runs are 0 or above, some 0 (flag bootstrap), its mean and a seeded percentile bootstrap of the mean, which stays between the smallest and largest run; so no interval of a metric that cannot be negative reaches below 0. Only a metric with a run below 0 shows its mean with Student's t. On a linear plot a whisker that runs past 2.5 times the largest mean is cut at the top; the table has its end.";

/// How the verdicts are decided, under the claims table.
pub const CLAIMS_NOTE: &str = "Ratios pair runs of the same repetition; over the cells the claim leaves open, a ratio is the geometric mean of each cell's own, every cell weighted alike (the claim is about those cells: their differences are part of the answer, not noise), with the anytime-valid 95 % CI of that mean log-ratio from the run-to-run spread within the cells (Lai's t-mixture confidence sequence: it holds at every number of runs, so runs may be added and the verdict read again; one run per cell shows no spread, so no CI); metrics are means over the cells with the same kind of CI, cut at 0 for a metric whose runs are all 0 or above. Verdicts follow from the CI alone (docs/verdicts.md): reproduced (beyond the smallest effect that matters on the seed's side and, for a claim on the seed's size, meeting the band around it), same direction, smaller or larger (beyond the smallest effect, but clear of the seed's size band), no effect (inside the smallest effect around the threshold), reversed (beyond it on the other side of 1), not reproduced (refuted otherwise: a bound exceeded, outside an about band), inconclusive (none yet); runs failed where the runs failed, n/a where an engine has no such figure. Bounds (at most, at least) allow the smallest effect as slack. In a crossover, * marks a ratio whose CI excludes the threshold.";
