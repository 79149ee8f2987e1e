//! Looking inside a database: `lsmlab check DB` verifies every file without writing;
//! `lsmlab dump FILE` prints a table, blob file, WAL or MANIFEST in readable form (what
//! `sst_dump`, `ldb manifest_dump` and `ldb dump_wal` do for RocksDB).

pub mod dump;

use crate::error::{CliError, CliResult};
use lsmlab::env::PosixFs;
use std::path::Path;
use std::sync::Arc;

/// Usage of `lsmlab check`.
pub const CHECK_USAGE: &str = "usage: lsmlab check DB
Reads every table, blob file, WAL and the MANIFEST of DB and verifies every checksum, key order
within and across tables, level invariants, blob indexes and garbage accounting. Never writes.
Exits 1 and names each problem with its file and offset.";

/// Runs `lsmlab check` with `args` (after `check`).
pub fn check_main(args: &[String]) -> CliResult<()> {
    let db = match args {
        [a] if a == "--help" || a == "-h" => {
            println!("{CHECK_USAGE}");
            return Ok(());
        }
        [db] if !db.starts_with('-') => db,
        _ => {
            return Err(CliError::new(
                "check: give one database directory: lsmlab check DB",
            ))
        }
    };
    let r = lsmlab::check::check_db(Path::new(db), Arc::new(PosixFs))
        .map_err(|e| CliError::new(format!("check: {e}")))?;
    for n in &r.notes {
        println!("note: {n}");
    }
    for p in &r.problems {
        println!("PROBLEM: {p}");
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
