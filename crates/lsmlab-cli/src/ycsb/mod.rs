//! `lsmlab ycsb`: YCSB's CoreWorkload on the lsmlab engine.

use crate::error::{CliError, CliResult};

/// Entry point of `lsmlab ycsb ARGS`.
pub fn main(_args: &[String]) -> CliResult<()> {
    Err(CliError::new("ycsb: not implemented yet"))
}
