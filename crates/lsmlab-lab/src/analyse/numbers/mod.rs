//! Numbers of repeated runs: the 95 % interval of a set of runs (classic and anytime-valid),
//! Student's t, outlier flags, and the description of one cell's runs built from them.

pub mod anytime;
pub mod intervals;
pub mod outliers;
pub mod statistics;
pub mod student;
