//! `check`: reads every file of a database and verifies it, never writing anything (what
//! `lsmlab check DB` runs, and what tests run after a crash).
//!
//! It first runs open's own recovery as a dry run (the same MANIFEST replay and checks of the
//! files it names, the same WAL scan judged by the same recovery mode, nothing written): a
//! database that open would refuse fails `check` with open's error, and one that open accepts
//! passes that part. Then it replays the MANIFEST into a plain description of the tree (no
//! `VersionSet`, so no file can be deleted) and verifies what open does not read: every live
//! table (checksums of every block, internal-key order, bounds and counts against the
//! MANIFEST), the level invariants, every blob index (it must name a live blob file and a
//! record whose checksum, key and lengths match) and the garbage accounting of every blob file.

mod files;
mod tree;

use crate::env::{Env, FileSystem};
use crate::error::Error;
use crate::options::Options;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Something wrong, with the file and byte offset it is at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub file: PathBuf,
    /// Byte offset in it (0 when the problem is the file as a whole).
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at offset {}: {}",
            self.file.display(),
            self.offset,
            self.message
        )
    }
}

impl From<Error> for Problem {
    fn from(e: Error) -> Problem {
        match e {
            Error::Corruption {
                file,
                offset,
                message,
            } => Problem {
                file,
                offset,
                message,
            },
            Error::Io {
                path, op, message, ..
            } => Problem {
                file: path,
                offset: 0,
                message: format!("{op}: {message}"),
            },
            other => Problem {
                file: PathBuf::new(),
                offset: 0,
                message: other.to_string(),
            },
        }
    }
}

/// What [`check_db`] found.
#[derive(Debug, Default, Clone)]
pub struct CheckReport {
    /// MANIFEST edits read.
    pub manifest_edits: u64,
    /// Live tables checked, per level.
    pub tables_per_level: Vec<u64>,
    /// Entries read from the live tables.
    pub entries: u64,
    /// Live blob files.
    pub blob_files: u64,
    /// Blob records read through their indexes.
    pub blob_records: u64,
    /// WALs open would read.
    pub wals: u64,
    /// Whole records in those WALs that open would replay.
    pub wal_records: u64,
    /// Whole records open would not replay (after a point-in-time stop, or a last record that
    /// fails its checksum), kept in `lost/`.
    pub wal_records_dropped: u64,
    /// The error open gives on this database, if it refuses it (also among `problems`).
    pub open_refused: Option<Problem>,
    /// Facts worth knowing that are not damage: a torn WAL tail (a crash's trace), files no
    /// version references (deleted at the next open).
    pub notes: Vec<String>,
    /// Damage and broken invariants.
    pub problems: Vec<Problem>,
}

impl CheckReport {
    /// True if nothing is wrong.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    fn problem(&mut self, file: &Path, offset: u64, message: impl Into<String>) {
        self.problems.push(Problem {
            file: file.to_path_buf(),
            offset,
            message: message.into(),
        });
    }
}

/// Checks the database in `dir` on `fs` as open with default options would see it. Problems
/// go into the report; an error is returned only when `dir` is not a database at all.
pub fn check_db(dir: &Path, fs: Arc<dyn FileSystem>) -> crate::Result<CheckReport> {
    check_db_with_options(
        dir,
        &Options {
            fs,
            ..Options::default()
        },
    )
}

/// As [`check_db`], for a database whose WALs are in `wal_dir` (`Options::wal_dir`).
pub fn check_db_with_wal_dir(
    dir: &Path,
    wal_dir: &Path,
    fs: Arc<dyn FileSystem>,
) -> crate::Result<CheckReport> {
    check_db_with_options(
        dir,
        &Options {
            fs,
            wal_dir: Some(wal_dir.to_path_buf()),
            ..Options::default()
        },
    )
}

/// As [`check_db`], judged as an open with `opts` would judge it (its `fs`, `wal_dir`,
/// `num_levels`, `wal_recovery_mode` and `paranoid_checks` matter).
pub fn check_db_with_options(dir: &Path, opts: &Options) -> crate::Result<CheckReport> {
    let env = Env::new(opts.fs.clone());
    if !env.fs.exists(&crate::filename::current_path(dir)) {
        return Err(Error::NotADatabase(format!(
            "{} is not a database (no CURRENT file)",
            dir.display()
        )));
    }
    let mut report = CheckReport::default();
    match crate::db::dry_run(dir, opts) {
        Ok(r) => note_recovery(&mut report, &r),
        Err(e) => {
            let p = Problem::from(e);
            report.open_refused = Some(p.clone());
            report.problems.push(p);
        }
    }
    let Some(tree) = tree::Tree::read(&env, dir, &mut report) else {
        dedup_open_error(&mut report);
        return Ok(report);
    };
    files::check_tables(&env, dir, &tree, &mut report);
    files::note_orphans(&env, dir, &tree, &mut report);
    dedup_open_error(&mut report);
    Ok(report)
}

/// What the dry run of recovery says open would do with the WALs.
fn note_recovery(report: &mut CheckReport, r: &crate::db::RecoveryReport) {
    report.wals = r.wals;
    report.wal_records = r.records;
    report.wal_records_dropped = r.dropped_records;
    for (file, offset) in &r.failed_last_records {
        report.problem(
            file,
            *offset,
            "the last record is whole but fails its checksum: open drops it (counted in dropped-records) and keeps the WAL in lost/",
        );
    }
    if let Some(why) = &r.stopped {
        report.notes.push(format!(
            "open stops WAL replay: {why}; {} whole records after it are not replayed{}",
            r.dropped_after_stop(),
            if r.keep_aside.is_empty() {
                String::new()
            } else {
                format!(
                    "; WAL(s) {:?} are kept aside in lost/, never deleted",
                    r.keep_aside
                )
            }
        ));
    }
    if r.damaged_regions > 0 {
        report.notes.push(format!(
            "open finds {} damaged WAL regions (skipped under skip-any; a point-in-time stop at the first)",
            r.damaged_regions
        ));
    }
}

/// The MANIFEST read below may meet the damage open refused: it is reported once.
fn dedup_open_error(report: &mut CheckReport) {
    let Some(open) = report.open_refused.clone() else {
        return;
    };
    let mut first = true;
    report.problems.retain(|p| {
        let same = p.file == open.file && p.offset == open.offset;
        !same || std::mem::take(&mut first)
    });
}
