//! How a step is started on each engine: the engines a plan names and the command line each
//! step becomes (lsmlab's, db_bench's or LevelDB's), what each engine does at a step's edges, and
//! which engines can run the plan at all.

pub mod boundaries;
pub mod engines;
pub mod kind;
pub mod runnable;
