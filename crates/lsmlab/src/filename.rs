//! Names of the files in a database directory.

use std::path::{Path, PathBuf};

/// What a file in the database directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `NNNNNN.log`: a write-ahead log.
    Wal,
    /// `NNNNNN.sst`: a table.
    Table,
    /// `MANIFEST-NNNNNN`: the log of version edits.
    Manifest,
    /// `CURRENT`: names the live MANIFEST.
    Current,
    /// `LOCK`: held while the database is open.
    Lock,
    /// `NNNNNN.dbtmp`: a temporary file (a CURRENT being replaced).
    Temp,
    /// `NNNNNN.blob`: a blob file (values separated from their keys).
    Blob,
    /// `LOG` and `LOG.old`: the text log of what the engine did.
    InfoLog,
}

/// Path of WAL `n`.
pub fn wal_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("{n:06}.log"))
}

/// Path of table `n`.
pub fn table_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("{n:06}.sst"))
}

/// Path of blob file `n`.
pub fn blob_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("{n:06}.blob"))
}

/// Path of MANIFEST `n`.
pub fn manifest_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("MANIFEST-{n:06}"))
}

/// Path of a temporary file numbered `n`.
pub fn temp_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("{n:06}.dbtmp"))
}

/// Path of CURRENT.
pub fn current_path(dir: &Path) -> PathBuf {
    dir.join("CURRENT")
}

/// Path of LOG, the text log of the current open.
pub fn info_log_path(dir: &Path) -> PathBuf {
    dir.join("LOG")
}

/// Path of LOG.old, the text log of the previous open.
pub fn old_info_log_path(dir: &Path) -> PathBuf {
    dir.join("LOG.old")
}

/// The folder where recovery keeps files it will not delete but cannot use (a WAL holding
/// records that recovery did not replay).
pub fn lost_dir(dir: &Path) -> PathBuf {
    dir.join("lost")
}

/// Path of LOCK.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join("LOCK")
}

/// Numbers of the WALs among `names` numbered `from` or above, oldest first: those recovery
/// replays when the MANIFEST's log number is `from`.
pub fn wals_from(names: &[String], from: u64) -> Vec<u64> {
    let mut wals: Vec<u64> = names
        .iter()
        .filter_map(|n| match parse(n) {
            Some((FileKind::Wal, num)) if num >= from => Some(num),
            _ => None,
        })
        .collect();
    wals.sort_unstable();
    wals
}

/// Kind and number of a file name; `None` for names the database does not own.
pub fn parse(name: &str) -> Option<(FileKind, u64)> {
    match name {
        "CURRENT" => return Some((FileKind::Current, 0)),
        "LOCK" => return Some((FileKind::Lock, 0)),
        "LOG" | "LOG.old" => return Some((FileKind::InfoLog, 0)),
        _ => {}
    }
    if let Some(n) = name.strip_prefix("MANIFEST-") {
        return n.parse().ok().map(|n| (FileKind::Manifest, n));
    }
    let (stem, ext) = name.split_once('.')?;
    let n: u64 = stem.parse().ok()?;
    let kind = match ext {
        "log" => FileKind::Wal,
        "sst" => FileKind::Table,
        "dbtmp" => FileKind::Temp,
        "blob" => FileKind::Blob,
        _ => return None,
    };
    Some((kind, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_kind_and_number() {
        let d = Path::new("/d");
        for (p, k, n) in [
            (wal_path(d, 7), FileKind::Wal, 7),
            (table_path(d, 1234567), FileKind::Table, 1234567),
            (manifest_path(d, 3), FileKind::Manifest, 3),
            (blob_path(d, 12), FileKind::Blob, 12),
        ] {
            let name = p.file_name().unwrap().to_str().unwrap();
            assert_eq!(parse(name), Some((k, n)));
        }
        assert_eq!(parse("notes.txt"), None);
        assert_eq!(parse("MANIFEST-x"), None);
    }
}
