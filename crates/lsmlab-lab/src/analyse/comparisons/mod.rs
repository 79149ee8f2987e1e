//! Comparisons: `summary.csv` and paired ratios between variants, the findings a report opens
//! with (and their digest, and the work a step carried for an earlier one), and `lsmlab compare`
//! of two results directories with the checks of its inputs and the runs a side that would
//! decide what it leaves undetermined.

pub mod carried_work;
pub mod compare_inputs;
pub mod digest;
pub mod findings;
pub mod regression;
pub mod runs_to_decide;
pub mod summary;
