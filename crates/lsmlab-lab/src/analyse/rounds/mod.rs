//! The rounds of a sequential study (`lsmlab run --until-decided`): after the runs so far, which
//! runs the next round adds, or why the study stops; tested on synthetic runs
//! (`sequential_tests.rs`).

pub mod sequential;
