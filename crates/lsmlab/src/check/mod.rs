//! `check`: reads every file of a database and verifies it, never writing anything (what
//! `lsmlab check DB` runs, and what tests run after a crash).
//!
//! It replays the MANIFEST into a plain description of the tree (no `VersionSet`, so no file
//! can be deleted), then verifies every live table (checksums of every block, internal-key order,
//! bounds and counts against the MANIFEST), the level invariants, every blob index (it must name
//! a live blob file and a record whose checksum, key and lengths match), the garbage accounting
//! of every blob file, and every WAL still needed.

mod files;
mod tree;

use crate::env::{Env, FileSystem};
use crate::error::Error;
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
    /// WALs read, and the records in them.
    pub wals: u64,
    /// Records in those WALs.
    pub wal_records: u64,
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

/// Checks the database in `dir` on `fs` without writing to it. Problems go into the report; an
/// error is returned only when `dir` is not a database at all.
pub fn check_db(dir: &Path, fs: Arc<dyn FileSystem>) -> crate::Result<CheckReport> {
    check_db_with_wal_dir(dir, dir, fs)
}

/// As [`check_db`], for a database whose WALs are in `wal_dir` (`Options::wal_dir`).
pub fn check_db_with_wal_dir(
    dir: &Path,
    wal_dir: &Path,
    fs: Arc<dyn FileSystem>,
) -> crate::Result<CheckReport> {
    let env = Env::new(fs);
    if !env.fs.exists(&crate::filename::current_path(dir)) {
        return Err(Error::NotADatabase(format!(
            "{} is not a database (no CURRENT file)",
            dir.display()
        )));
    }
    let mut report = CheckReport::default();
    let Some(tree) = tree::Tree::read(&env, dir, &mut report) else {
        return Ok(report);
    };
    files::check_tables(&env, dir, &tree, &mut report);
    files::check_wals(&env, wal_dir, &tree, &mut report);
    files::note_orphans(&env, dir, &tree, &mut report);
    Ok(report)
}
