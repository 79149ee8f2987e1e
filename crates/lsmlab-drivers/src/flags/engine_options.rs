//! The engine options any front end can set by flag name: `lsmlab ycsb -p lsmlab.<name>=value`
//! takes every flag of `lsmlab bench` that configures the engine, with its parsing and checks.

use super::table::{BenchFlags, SUPPORTED};
use crate::error::{CliError, CliResult};
use crate::suggest::closest;

/// Bench flags that describe the benchmark, not the engine: `-p lsmlab.<name>` refuses them.
const NOT_ENGINE: &[&str] = &[
    "benchmarks",
    "num",
    "reads",
    "writes",
    "deletes",
    "key_size",
    "value_size",
    "compression_ratio",
    "threads",
    "seed",
    "db",
    "use_existing_db",
    "histogram",
    "report_bg_io_stats",
    "readwritepercent",
    "sync",
    "disable_wal",
    "batch_size",
    "seek_nexts",
    "json",
    "engine",
];

/// Names of the engine options settable by flag name.
pub fn engine_option_names() -> impl Iterator<Item = &'static str> {
    SUPPORTED
        .iter()
        .copied()
        .filter(|n| !NOT_ENGINE.contains(n))
}

/// Sets engine option `name` (a bench flag name) from `raw`; `what` is how the caller names
/// it in errors (e.g. `-p lsmlab.`). Unknown names get the closest known one.
pub fn set_engine_option(
    flags: &mut BenchFlags,
    what: &str,
    name: &str,
    raw: &str,
) -> CliResult<()> {
    if !engine_option_names().any(|n| n == name) {
        let hint = closest(name, engine_option_names())
            .map(|c| format!("; did you mean {what}{c}?"))
            .unwrap_or_default();
        return Err(CliError::new(format!(
            "{what}{name}: unknown engine option{hint} (options are lsmlab bench's flag names)"
        )));
    }
    flags.set_raw(name, raw).map_err(|e| {
        CliError::new(
            e.to_string()
                .replacen(&format!("--{name}"), &format!("{what}{name}"), 1),
        )
    })
}
