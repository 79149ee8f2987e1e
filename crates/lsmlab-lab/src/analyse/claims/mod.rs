//! The claims of a plan decided against the runs: per cell, pooled over cells or case by case,
//! each verdict with its outcome on every engine, and what a claim still open would take.
//! `testdata/` holds the data-driven cases of the analyse stage (`study_cases`).

pub mod effect;
pub mod every_case;
pub mod failed;
pub mod open_claims;
pub mod outcome;
pub mod pooled;
pub mod verdicts;

#[cfg(test)]
mod study_cases;
