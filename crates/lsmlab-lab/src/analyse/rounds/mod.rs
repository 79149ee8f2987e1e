//! The rounds of a sequential study (`lsmlab run --until-decided`): which runs the next round
//! adds and when to stop, and how many runs a side would decide an undetermined comparison.

pub mod runs_to_decide;
pub mod sequential;
