//! The analyse stage. Takes the run records of a results directory with its expanded plan; gives
//! numbers and words: summaries with confidence intervals, paired ratios between variants, the
//! verdict on each of the plan's claims, the findings the report opens with, and the comparison
//! of two results directories. Draws nothing and writes no report.
//!
//! Four rooms: `numbers` (intervals and statistics of repeated runs), `claims` (the verdict on
//! each claim, from `numbers`), and from both of them `comparisons` (summaries, paired ratios,
//! findings, `lsmlab compare`) and `rounds` (the round planner of a sequential study). Only
//! tests reach the other way: the verdict simulation in `numbers::anytime` and the data-driven
//! cases in `claims::study_cases`.

pub mod claims;
pub mod comparisons;
pub mod numbers;
pub mod rounds;
