//! Looking inside a database: `lsmlab check DB` verifies every file without writing;
//! `lsmlab dump FILE` prints a table, blob file, WAL or MANIFEST in readable form (what
//! `sst_dump`, `ldb manifest_dump` and `ldb dump_wal` do for RocksDB).

pub mod dump;

use lsmlab::env::PosixFs;
use lsmlab_drivers::error::{CliError, CliResult};
use std::path::Path;
use std::sync::Arc;

/// Usage of `lsmlab check`.
pub const CHECK_USAGE: &str = "usage: lsmlab check DB [--wal_dir=DIR] [--num_levels=N] [--wal_recovery_mode=0..3] [--paranoid_checks=0|1]
First runs open's own recovery without writing (the MANIFEST and the files it names, the WALs
judged by the recovery mode): says whether open would succeed, and if not, gives open's error.
Then reads every table, blob file and the MANIFEST of DB and verifies every checksum, key order
within and across tables, level invariants, blob indexes and garbage accounting. The flags are
the options open would be given (defaults: the engine's). Never writes. Exits 1 and names each
problem with its file and offset.";

/// The arguments of `lsmlab check`: the database and the options open would be given.
#[derive(Debug, clap::Parser)]
#[command(
    name = "lsmlab check",
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true
)]
struct CheckArgs {
    /// The database directory.
    db: Option<String>,
    #[arg(long = "wal_dir")]
    wal_dir: Option<std::path::PathBuf>,
    #[arg(long = "num_levels", value_parser = clap::value_parser!(u64).range(1..=1000))]
    num_levels: Option<u64>,
    #[arg(long = "wal_recovery_mode", value_parser = clap::value_parser!(u64).range(0..=3))]
    wal_recovery_mode: Option<u64>,
    #[arg(long = "paranoid_checks", value_parser = zero_or_one)]
    paranoid_checks: Option<bool>,
}

fn zero_or_one(v: &str) -> Result<bool, String> {
    match v {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err("allowed: 0, 1, false, true".into()),
    }
}

/// Runs `lsmlab check` with `args` (after `check`).
pub fn check_main(args: &[String]) -> CliResult<()> {
    if crate::cli::asks_help(args) {
        println!("{CHECK_USAGE}");
        return Ok(());
    }
    let a: CheckArgs = crate::cli::parse_tool("check", args)?;
    let mut opts = lsmlab::Options {
        fs: Arc::new(PosixFs),
        ..lsmlab::Options::default()
    };
    if let Some(d) = a.wal_dir {
        opts.wal_dir = Some(d);
    }
    if let Some(n) = a.num_levels {
        opts.num_levels = n as usize;
    }
    if let Some(m) = a.wal_recovery_mode {
        opts.wal_recovery_mode = lsmlab::WalRecoveryMode::from_number(m)
            .map_err(|e| CliError::new(format!("--wal_recovery_mode={m}: {e}")))?;
    }
    if let Some(p) = a.paranoid_checks {
        opts.paranoid_checks = p;
    }
    let Some(db) = a.db.as_deref() else {
        return Err(CliError::new(
            "check: give one database directory: lsmlab check DB",
        ));
    };
    let r = lsmlab::check::check_db_with_options(Path::new(db), &opts)
        .map_err(|e| CliError::new(format!("check: {e}")))?;
    for n in &r.notes {
        println!("note: {n}");
    }
    for p in &r.problems {
        println!("PROBLEM: {p}");
    }
    match &r.open_refused {
        Some(p) => println!("open: REFUSED: {p}"),
        None => println!(
            "open: succeeds, replaying {} WAL records{}",
            r.wal_records,
            if r.wal_records_dropped > 0 {
                format!(" and dropping {} (kept in lost/)", r.wal_records_dropped)
            } else {
                String::new()
            }
        ),
    }
    let levels: Vec<String> = r
        .tables_per_level
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(l, n)| format!("L{l}:{n}"))
        .collect();
    println!(
        "check {db}: {} MANIFEST edits; tables {} ({} entries); {} blob files ({} records read through indexes); {} WALs ({} records); {} problems",
        r.manifest_edits,
        if levels.is_empty() { "none".to_string() } else { levels.join(" ") },
        r.entries,
        r.blob_files,
        r.blob_records,
        r.wals,
        r.wal_records,
        r.problems.len()
    );
    if r.ok() {
        Ok(())
    } else {
        Err(CliError::new(format!(
            "check: {} problems in {db}",
            r.problems.len()
        )))
    }
}
