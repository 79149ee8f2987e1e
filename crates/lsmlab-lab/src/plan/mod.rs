//! The plan stage. Takes the TOML a user writes; gives a checked `Plan` (its steps, engines,
//! axes, scales, figures and claims), the cells its axes expand into and the order of its runs.
//! Runs nothing and reads no results: every check here is one the plan alone allows.

pub mod budget;
pub mod claims;
pub mod effect_defaults;
pub mod heatmap_check;
pub mod limits;
pub mod matrix;
pub mod read;
pub mod revision;
pub mod spec;
pub mod vocabulary;
