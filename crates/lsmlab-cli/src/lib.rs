//! The `lsmlab` command as a library: `bench` (db_bench-compatible) and `ycsb` (YCSB's
//! CoreWorkload), so that tests drive the same code the binary runs.

pub mod bench;
pub mod error;
pub mod inspect;
pub mod report;
pub mod stress;
pub mod suggest;
pub mod ycsb;

pub use error::{CliError, CliResult};

/// Usage of the top-level command.
pub const USAGE: &str = "usage: lsmlab <command> [args]
commands:
  bench [--flag=value]...                      db_bench-compatible benchmarks (lsmlab bench --help)
  ycsb load|run -P FILE [-p key=value]... --db=DIR [--json=FILE]
                                               YCSB CoreWorkload (lsmlab ycsb --help)
  check DB                                     verify every file of a database, never writing
  dump FILE [--limit=N]                        print a table, blob file, WAL or MANIFEST
  stress --db=DIR [--crash] [flags]            random operations verified against an expected
                                               state, optionally killed and reopened (lsmlab stress --help)";

/// Runs the command line `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> CliResult<()> {
    match args.first().map(String::as_str) {
        Some("bench") => bench::main(&args[1..]),
        Some("ycsb") => ycsb::main(&args[1..]),
        Some("stress") => stress::main(&args[1..]),
        Some("check") => inspect::check_main(&args[1..]),
        Some("dump") => inspect::dump::main(&args[1..]),
        Some("-h") | Some("--help") | Some("help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(CliError::new(format!(
            "unknown command {other:?}; commands: bench, ycsb, stress, check, dump"
        ))),
    }
}
