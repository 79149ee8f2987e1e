//! The `lsmlab` command as a library: `bench` (db_bench-compatible), `ycsb` (YCSB's
//! CoreWorkload), the study runner (`run`, `report`, `merge`) and the reliability tools, so that
//! tests drive the same code the binary runs.

pub mod bench;
pub mod cli;
pub mod engine;
pub mod error;
pub mod flags;
#[doc(hidden)]
pub mod fuzzing;
pub mod inspect;
pub mod readout;
pub mod stress;
pub mod study;
pub mod suggest;
pub mod ycsb;

pub use error::{CliError, CliResult};

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
        Command::Run(a) => study::commands::run_main(&a),
        Command::Report {
            dir,
            check_claims,
            allow_missing,
            plan,
        } => study::commands::report_main(&dir, check_claims, allow_missing, plan.as_deref()),
        Command::Compare {
            baseline,
            candidate,
            threshold,
            csv,
        } => study::analyse::regression::compare_main(
            &baseline,
            &candidate,
            threshold,
            csv.as_deref(),
        ),
        Command::Merge {
            dirs,
            out,
            allow_missing,
        } => study::commands::merge_main(
            &dirs,
            &out,
            study::run::merge::MergeOptions { allow_missing },
        ),
    }
}
