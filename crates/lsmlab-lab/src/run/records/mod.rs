//! The results directory: `plan.json` as expanded, one directory per finished run and
//! `runs.csv`, built beside its final place and renamed into it; the record of a sequential
//! study's rounds; the shards of a study and their merge; the audit of a directory before it is
//! drawn; and the time of day results record.

pub mod audit;
pub mod expanded;
pub mod merge;
pub mod results;
pub mod sequential;
pub mod shard;
pub mod staged_dir;
pub mod utc;
