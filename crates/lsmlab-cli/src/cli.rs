//! The top-level command line on clap: one subcommand per tool.
//!
//! `bench` and `ycsb` keep their own syntax (db_bench's and YCSB's flags, which clap cannot
//! express: `--flag=value` with hundreds of names, `-P FILE`, `-threads N`), so clap hands them
//! every argument untouched, `--help` included. `stress`, `check` and `dump` parse theirs with
//! clap too, in their own modules. The study commands are clap's own.

use clap::{Args, Parser, Subcommand};
use lsmlab_drivers::error::{CliError, CliResult};
pub use lsmlab_lab::args::RunArgs;
use std::path::PathBuf;

/// Names of the subcommands, in the order errors list them.
pub const COMMANDS: &[&str] = &[
    "bench", "ycsb", "run", "report", "merge", "compare", "stress", "check", "dump",
];

/// `lsmlab`: an LSM-tree engine and the lab that studies it.
#[derive(Debug, Parser)]
#[command(
    name = "lsmlab",
    version,
    about = "An LSM-tree engine and the lab that studies it",
    disable_help_subcommand = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Arguments passed through to a tool that parses its own syntax.
#[derive(Debug, Args)]
pub struct PassThrough {
    /// The tool's arguments, as typed.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// db_bench-compatible benchmarks (lsmlab bench --help)
    #[command(disable_help_flag = true)]
    Bench(PassThrough),
    /// YCSB CoreWorkload: ycsb load|run -P FILE [-p key=value]... --db=DIR (lsmlab ycsb --help)
    #[command(disable_help_flag = true)]
    Ycsb(PassThrough),
    /// Run a study plan: engines x matrix x repetitions -> results, statistics, report
    Run(RunArgs),
    /// Rebuild statistics, plots and the report of a results directory without running anything
    Report {
        /// The results directory of `lsmlab run`.
        dir: PathBuf,
        /// Exit non-zero when a claim of the plan is not reproduced.
        #[arg(long)]
        check_claims: bool,
        /// Draw the report even when runs of the plan are missing (they are named in its
        /// setup); without it a directory with missing runs is refused, naming them.
        #[arg(long)]
        allow_missing: bool,
        /// Report with this edited plan: its figures, claims, title, question and compared
        /// axes; its engines, matrix, flags, properties, steps and load must be those the
        /// runs had (a difference is refused, named). It replaces the directory's plan.
        #[arg(long, value_name = "EDITED.toml")]
        plan: Option<PathBuf>,
    },
    /// Join the result directories of the shards of one plan
    Merge {
        /// The shards' result directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged results go.
        #[arg(long, short)]
        out: PathBuf,
        /// Merge even when runs of the plan are missing (they are named, and listed in
        /// merge.json); without it a merge with missing runs is refused.
        #[arg(long)]
        allow_missing: bool,
    },
    /// Compare two results directories: change, CI and verdict per cell, engine and metric
    Compare {
        /// The baseline's results directory.
        baseline: PathBuf,
        /// The candidate's results directory.
        candidate: PathBuf,
        /// Smallest change, in percent, that counts for every metric (its whole 95 % CI must
        /// lie beyond it); default: each metric's smallest effect that matters (timings 3 %,
        /// work and sizes 1 %, rates 5 %)
        #[arg(long)]
        threshold: Option<f64>,
        /// Also write every comparison to this CSV file.
        #[arg(long)]
        csv: Option<PathBuf>,
    },
    /// Random operations verified against an expected state (lsmlab stress --help)
    #[command(disable_help_flag = true)]
    Stress(PassThrough),
    /// Verify every file of a database, never writing: check DB
    #[command(disable_help_flag = true)]
    Check(PassThrough),
    /// Print a table, blob file, WAL or MANIFEST: dump FILE [--limit=N]
    #[command(disable_help_flag = true)]
    Dump(PassThrough),
}

/// Parses `args` (without the program name). `Ok(None)` means help or version was printed.
pub fn parse(args: &[String]) -> CliResult<Option<Cli>> {
    // Name the commands on a typo, in one line, before clap's multi-line message.
    if let Some(first) = args.first() {
        if !first.starts_with('-') && !COMMANDS.contains(&first.as_str()) {
            return Err(CliError::new(format!(
                "unknown command {first:?}; commands: {}",
                COMMANDS.join(", ")
            )));
        }
    }
    let argv = std::iter::once("lsmlab".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(cli) => Ok(Some(cli)),
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    print!("{}", e.render());
                    Ok(None)
                }
                _ => Err(CliError::new(clap_error_line(&e))),
            }
        }
    }
}

/// Parses the arguments of tool `tool` (`check`, `dump`, `stress`: after its name) with clap;
/// an error is one line starting with the tool's name.
pub fn parse_tool<T: clap::Parser>(tool: &str, args: &[String]) -> CliResult<T> {
    let argv = std::iter::once(format!("lsmlab {tool}")).chain(args.iter().cloned());
    T::try_parse_from(argv).map_err(|e| CliError::new(format!("{tool}: {}", clap_error_line(&e))))
}

/// True when `args` ask for help: the tools print their own usage text.
pub fn asks_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help" || a == "-h")
}

/// A clap error in one line: its first line without the `error: ` prefix, and clap's tip (a
/// similar flag's name) after a semicolon when it gives one.
pub fn clap_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = one_line(&text);
    // What is allowed, where clap knows it ("[possible values: local, slurm]").
    let first = match text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values:"))
    {
        Some(values) => format!(
            "{first}; allowed: {}",
            values
                .trim_start_matches("[possible values:")
                .trim_end_matches(']')
                .trim()
        ),
        None => first,
    };
    match text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("tip: a similar"))
    {
        Some(tip) => format!("{first}; {tip}"),
        None => first,
    }
}

/// clap's first line, without its `error: ` prefix: errors stay one line.
fn one_line(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.trim_start_matches("error: ").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bench_arguments_pass_through_untouched() {
        let cli = parse(&args(&["bench", "--num=5", "--help", "-x", "y"]))
            .unwrap()
            .unwrap();
        match cli.command {
            Command::Bench(p) => assert_eq!(p.args, args(&["--num=5", "--help", "-x", "y"])),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ycsb_keeps_its_short_flags() {
        let cli = parse(&args(&["ycsb", "run", "-P", "workloada", "-threads", "2"]))
            .unwrap()
            .unwrap();
        match cli.command {
            Command::Ycsb(p) => {
                assert_eq!(p.args, args(&["run", "-P", "workloada", "-threads", "2"]))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn run_errors_are_one_line() {
        let e = parse(&args(&["run", "p.toml", "--bogus"])).unwrap_err();
        assert!(!e.0.contains('\n'), "{e}");
        assert!(e.0.contains("--bogus"), "{e}");
        let e = parse(&args(&["run", "--resume", "d", "p.toml"])).unwrap_err();
        assert!(!e.0.contains('\n'), "{e}");
    }

    #[test]
    fn unknown_commands_list_the_known_ones() {
        let e = parse(&args(&["frob"])).unwrap_err();
        assert_eq!(
            e.0,
            "unknown command \"frob\"; commands: bench, ycsb, run, report, merge, compare, stress, check, dump"
        );
    }
}
