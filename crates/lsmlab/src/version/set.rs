//! The version set: the current version, the file-number and sequence counters, and the
//! MANIFEST that makes them durable.
//!
//! Each open writes a fresh MANIFEST holding the whole state as one edit and points CURRENT at
//! it (write a temporary file, sync, rename), so a MANIFEST never grows across many sessions.

use super::{BlobGarbage, FileReaper, Version, VersionEdit};
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::{blob_path, current_path, manifest_path, table_path, temp_path, wal_path};
use crate::wal::{LogReader, LogWriter, ReadOutcome};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The durable state of the tree.
pub struct VersionSet {
    env: Env,
    dir: PathBuf,
    /// Where the WALs are (the database directory unless `Options::wal_dir` says otherwise).
    wal_dir: PathBuf,
    reaper: Arc<FileReaper>,
    current: Arc<Version>,
    /// The next file number to hand out.
    pub next_file_number: u64,
    /// The newest sequence number held by a table (flushes advance it; compactions keep it).
    /// Recovery replays WAL records from the one after it; later writes in WALs lost with a
    /// crash may have their numbers reused, which is harmless since no file holds them.
    pub last_sequence: u64,
    /// WALs numbered below this hold nothing that is not in a table.
    pub log_number: u64,
    manifest: Option<LogWriter>,
    /// Why the MANIFEST writer was dropped, for the refusal of every later edit: whatever
    /// refuses the writes should name the fault, not only that there was one.
    manifest_failure: Option<Error>,
    manifest_number: u64,
}

impl VersionSet {
    /// A new, empty tree in `dir` (no CURRENT yet; call [`VersionSet::write_new_manifest`]).
    pub fn create(env: Env, dir: &Path, num_levels: usize, reaper: Arc<FileReaper>) -> VersionSet {
        VersionSet {
            env,
            dir: dir.to_path_buf(),
            wal_dir: dir.to_path_buf(),
            reaper,
            current: Arc::new(Version::empty(num_levels)),
            next_file_number: 2,
            last_sequence: 0,
            log_number: 0,
            manifest: None,
            manifest_failure: None,
            manifest_number: 0,
        }
    }

    /// Puts the WALs of this tree in `wal_dir` instead of the database directory.
    pub fn set_wal_dir(&mut self, wal_dir: &Path) {
        self.wal_dir = wal_dir.to_path_buf();
    }

    /// Rebuilds the tree from CURRENT and the MANIFEST it names.
    pub fn recover(
        env: Env,
        dir: &Path,
        num_levels: usize,
        reaper: Arc<FileReaper>,
    ) -> Result<VersionSet> {
        Self::recover_with_wal_dir(env, dir, dir, num_levels, reaper)
    }

    /// As [`VersionSet::recover`], for a database whose WALs are in `wal_dir`.
    pub fn recover_with_wal_dir(
        env: Env,
        dir: &Path,
        wal_dir: &Path,
        num_levels: usize,
        reaper: Arc<FileReaper>,
    ) -> Result<VersionSet> {
        let cur_path = current_path(dir);
        let current = env.read_file(&cur_path, IoCategory::Manifest)?;
        let name = std::str::from_utf8(&current)
            .ok()
            .and_then(|s| s.strip_suffix('\n'))
            .filter(|s| s.starts_with("MANIFEST-") && !s.contains('/'))
            .ok_or_else(|| Error::corruption(&cur_path, 0, "CURRENT does not name a MANIFEST"))?;
        let mpath = dir.join(name);
        if !env.fs.exists(&mpath) {
            return Err(Error::corruption(
                &cur_path,
                0,
                format!("CURRENT names {name}, which does not exist"),
            ));
        }
        let data = env.read_file(&mpath, IoCategory::Manifest)?;
        let mut vs = VersionSet::create(env, dir, num_levels, reaper);
        vs.wal_dir = wal_dir.to_path_buf();
        let mut reader = LogReader::new(&data, &mpath);
        let mut version = Version::empty(num_levels);
        let mut records = 0;
        loop {
            let at = reader.position();
            let Some(rec) = reader.next_record() else {
                break;
            };
            let edit = VersionEdit::decode(rec).map_err(|m| Error::corruption(&mpath, at, m))?;
            if let Some(&(level, _)) = edit.added.iter().find(|(l, _)| *l >= num_levels) {
                return Err(Error::corruption(
                    &mpath,
                    at,
                    format!("table at level {level}, but num_levels is {num_levels}"),
                ));
            }
            if let Some(n) = edit.log_number {
                vs.log_number = n;
            }
            if let Some(n) = edit.next_file_number {
                vs.next_file_number = n;
            }
            if let Some(n) = edit.last_sequence {
                vs.last_sequence = n;
            }
            version = version.apply(&edit, &vs.reaper);
            records += 1;
        }
        match reader.outcome() {
            ReadOutcome::Corruption {
                file,
                offset,
                message,
            } => return Err(Error::corruption(file, offset, message)),
            // A last edit cut short by a crash was never acknowledged: its outputs are orphans,
            // deleted at open. A complete edit that fails its checksum was synced and acted on
            // (its inputs may be deleted already), so dropping it would lose tables.
            ReadOutcome::TornTail {
                offset,
                truncated: false,
            } => {
                return Err(Error::corruption(
                    &mpath,
                    offset,
                    "MANIFEST record fails its checksum",
                ))
            }
            ReadOutcome::TornTail { .. } | ReadOutcome::Clean => {}
        }
        if records == 0 {
            return Err(Error::corruption(&mpath, 0, "MANIFEST holds no version"));
        }
        version
            .check_invariants()
            .map_err(|m| Error::corruption(&mpath, 0, m))?;
        vs.check_files_exist(&version, &mpath, reader.position())?;
        for (_, f) in version.files() {
            vs.next_file_number = vs.next_file_number.max(f.number + 1);
        }
        for &n in version.blobs.keys() {
            vs.next_file_number = vs.next_file_number.max(n + 1);
        }
        vs.current = Arc::new(version);
        Ok(vs)
    }

    /// Checks what a lost MANIFEST edit would leave behind. An edit acts on files only once it
    /// is synced: a flush edit retires WALs, which are then deleted; a compaction edit retires
    /// its inputs, which are then deleted. So if damage or truncation (which a checksum cannot
    /// see at a record boundary) lost a synced edit, the recovered state names a WAL or table
    /// that is gone; opening it would silently lose the writes it held and delete the lost
    /// edit's outputs as orphans. Every file the state names must be there, whole.
    fn check_files_exist(&self, version: &Version, mpath: &Path, end: u64) -> Result<()> {
        let fs = &self.env.fs;
        let lost_edit = |what: String| {
            Error::corruption(
                mpath,
                end,
                format!("{what}: a later MANIFEST edit was lost, or the file was removed"),
            )
        };
        for (level, f) in version.files() {
            let path = table_path(&self.dir, f.number);
            match fs.file_size(&path) {
                Ok(n) if n == f.size => {}
                Ok(n) => {
                    return Err(Error::corruption(
                        &path,
                        n,
                        format!(
                            "table is {n} bytes, but the MANIFEST ({}) records {} at level {level}",
                            mpath.display(),
                            f.size
                        ),
                    ))
                }
                Err(_) => {
                    return Err(lost_edit(format!(
                        "table {} at level {level} is missing",
                        path.display()
                    )))
                }
            }
        }
        for b in version.blobs.values() {
            let path = blob_path(&self.dir, b.meta.file.number);
            match fs.file_size(&path) {
                Ok(n) if n == b.meta.file.file_size() => {}
                Ok(n) => {
                    return Err(Error::corruption(
                        &path,
                        n,
                        format!(
                            "blob file is {n} bytes, but the MANIFEST ({}) records {}",
                            mpath.display(),
                            b.meta.file.file_size()
                        ),
                    ))
                }
                Err(_) => {
                    return Err(lost_edit(format!(
                        "blob file {} is missing",
                        path.display()
                    )))
                }
            }
        }
        // The WAL a flush edit names as the oldest needed was created before the edit and is
        // deleted only after a later edit retires it.
        let wal = wal_path(&self.wal_dir, self.log_number);
        if self.log_number > 0 && !fs.exists(&wal) {
            return Err(lost_edit(format!(
                "WAL {} holds the newest writes but is missing",
                wal.display()
            )));
        }
        Ok(())
    }

    /// Starts a new MANIFEST holding the whole current state and points CURRENT at it.
    pub fn write_new_manifest(&mut self) -> Result<()> {
        let number = self.new_file_number();
        let path = manifest_path(&self.dir, number);
        let mut w = LogWriter::new(self.env.create(&path, IoCategory::Manifest)?);
        let snapshot = VersionEdit {
            log_number: Some(self.log_number),
            next_file_number: Some(self.next_file_number),
            last_sequence: Some(self.last_sequence),
            deleted: Vec::new(),
            added: self
                .current
                .files()
                .map(|(l, f)| (l, f.to_new_file()))
                .collect(),
            blob_added: self.current.blobs.values().map(|b| b.meta.file).collect(),
            blob_garbage: self
                .current
                .blobs
                .values()
                .filter(|b| b.garbage_count > 0)
                .map(|b| BlobGarbage {
                    number: b.meta.file.number,
                    count: b.garbage_count,
                    bytes: b.garbage_bytes,
                })
                .collect(),
        };
        w.add_record(&snapshot.encode())?;
        w.sync()?;
        let tmp = temp_path(&self.dir, number);
        let mut t = self.env.create(&tmp, IoCategory::Manifest)?;
        t.append(format!("MANIFEST-{number:06}\n").as_bytes())?;
        t.sync()?;
        drop(t);
        self.env.fs.rename(&tmp, &current_path(&self.dir))?;
        self.env.fs.sync_dir(&self.dir)?;
        let old = std::mem::replace(&mut self.manifest_number, number);
        self.manifest = Some(w);
        if old != 0 {
            let _ = self.env.fs.remove_file(&manifest_path(&self.dir, old));
        }
        Ok(())
    }

    /// Number of the live MANIFEST.
    pub fn manifest_number(&self) -> u64 {
        self.manifest_number
    }

    /// Hands out a file number.
    pub fn new_file_number(&mut self) -> u64 {
        let n = self.next_file_number;
        self.next_file_number += 1;
        n
    }

    /// The current version.
    pub fn current(&self) -> Arc<Version> {
        self.current.clone()
    }

    /// Installs the tables recovery wrote from the WALs; they become durable with the next
    /// [`VersionSet::write_new_manifest`].
    pub fn apply_recovered(&mut self, edit: &VersionEdit) {
        self.current = Arc::new(self.current.apply(edit, &self.reaper));
    }

    /// Makes `edit` durable in the MANIFEST, then installs the version it yields.
    pub fn log_and_apply(&mut self, mut edit: VersionEdit) -> Result<Arc<Version>> {
        edit.next_file_number = Some(self.next_file_number);
        edit.last_sequence = Some(self.last_sequence);
        let Some(w) = self.manifest.as_mut() else {
            let cause = match &self.manifest_failure {
                Some(e) => format!("the MANIFEST failed earlier ({e})"),
                None => "no MANIFEST is open".to_string(),
            };
            return Err(Error::InvalidRequest(format!(
                "{cause}; reopen the database"
            )));
        };
        if let Err(e) = w.add_record(&edit.encode()).and_then(|_| w.sync()) {
            // The MANIFEST may now end in part of a record: nothing more may be appended to it
            // (the next open writes a fresh one).
            self.manifest = None;
            self.manifest_failure = Some(e.clone());
            return Err(e);
        }
        if let Some(n) = edit.log_number {
            self.log_number = n;
        }
        self.current = Arc::new(self.current.apply(&edit, &self.reaper));
        Ok(self.current.clone())
    }
}
