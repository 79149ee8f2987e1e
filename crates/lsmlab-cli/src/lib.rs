//! The `lsmlab` command as a library, so that tests drive the same code the binary runs: its
//! command line (`cli`), the reliability tools it holds itself (`stress`, and `inspect` for
//! `check` and `dump`), the fuzzing entry points, and `run`, which hands each command to the
//! crate that does it: `bench` and `ycsb` to `lsmlab-drivers`, `run`, `report`, `merge` and
//! `compare` to `lsmlab-lab`.
//!
//! It may use every crate of the workspace; none uses it. Its cargo features `rocksdb`,
//! `leveldb`, `fjall` and `rocksdb-bundled` forward to `lsmlab-drivers`.
//!
//! ```no_run
//! // `lsmlab run experiments/quick.toml --dry-run`, as the binary runs it.
//! let args: Vec<String> = ["run", "experiments/quick.toml", "--dry-run"]
//!     .iter()
//!     .map(|s| s.to_string())
//!     .collect();
//! lsmlab_cli::run(&args)?;
//! # Ok::<(), lsmlab_cli::CliError>(())
//! ```

pub mod cli;
#[doc(hidden)]
pub mod fuzzing;
pub mod inspect;
pub mod stress;

pub use lsmlab_drivers::error::{CliError, CliResult};
use lsmlab_drivers::{bench, ycsb};
use lsmlab_lab::{analyse, commands, run::records::merge};

/// Runs the command line `args` (without the program name).
pub fn run(args: &[String]) -> CliResult<()> {
    use cli::Command;
    let Some(parsed) = cli::parse(args)? else {
        return Ok(());
    };
    match parsed.command {
        Command::Bench(p) => bench::main(&p.args),
        Command::Ycsb(p) => ycsb::main(&p.args),
        Command::Stress(p) => stress::main(&p.args),
        Command::Check(p) => inspect::check_main(&p.args),
        Command::Dump(p) => inspect::dump::main(&p.args),
        Command::Run(a) => commands::run_main(&a),
        Command::Report {
            dir,
            check_claims,
            allow_missing,
            plan,
        } => commands::report_main(&dir, check_claims, allow_missing, plan.as_deref()),
        Command::Compare {
            baseline,
            candidate,
            threshold,
            csv,
        } => analyse::comparisons::regression::compare_main(
            &baseline,
            &candidate,
            threshold,
            csv.as_deref(),
        ),
        Command::Merge {
            dirs,
            out,
            allow_missing,
        } => commands::merge_main(&dirs, &out, merge::MergeOptions { allow_missing }),
    }
}
