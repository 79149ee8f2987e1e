//! The analyse stage. Takes the run records of a results directory with its expanded plan; gives
//! numbers and words: summaries with confidence intervals, paired ratios between variants, the
//! verdict on each of the plan's claims, the findings the report opens with, and the comparison
//! of two results directories. Draws nothing and writes no report.

pub mod anytime;
pub mod carried_work;
pub mod compare_inputs;
pub mod digest;
pub mod effect;
pub mod every_case;
pub mod failed;
pub mod findings;
pub mod intervals;
pub mod open_claims;
pub mod outcome;
pub mod outliers;
pub mod pooled;
pub mod regression;
pub mod runs_to_decide;
pub mod sequential;
pub mod statistics;
pub mod student;
pub mod summary;
pub mod verdicts;

#[cfg(test)]
mod study_cases;
