//! Opening a database: lock, MANIFEST, WAL replay, a fresh MANIFEST and WAL, orphan removal.

use super::background::{delete_obsolete_wals, write_level0_table};
use super::{DbInner, LevelStats, State, SuperVersion, WalState};
use crate::blob::BlobCache;
use crate::cache::BlockCache;
use crate::compaction::LayoutPolicy;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::{self, current_path, lock_path, wal_path, FileKind};
use crate::memtable::MemTable;
use crate::options::Options;
use crate::stats::Statistics;
use crate::table_cache::TableCache;
use crate::version::{VersionEdit, VersionSet};
use crate::wal::{LogReader, LogWriter, ReadOutcome};
use crate::WriteBatch;
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::Arc;

pub(crate) fn open(dir: &Path, opts: Options, policy: Box<dyn LayoutPolicy>) -> Result<DbInner> {
    opts.validate()?;
    let mut env = Env::new(opts.fs.clone());
    env.bytes_per_sync = opts.bytes_per_sync;
    if let Ok(meta) = std::fs::metadata(dir) {
        if !meta.is_dir() && env.fs.exists(dir) {
            return Err(Error::NotADatabase(format!(
                "{} is not a database: it is a file, not a directory",
                dir.display()
            )));
        }
    }
    env.fs.create_dir_all(dir)?;
    let lock = env.fs.lock_file(&lock_path(dir))?;
    let stats = Arc::new(Statistics::new());
    let block_cache =
        (opts.block_cache_size > 0).then(|| Arc::new(BlockCache::new(opts.block_cache_size)));
    let tables = Arc::new(TableCache::new(
        env.clone(),
        dir.to_path_buf(),
        block_cache,
        stats.clone(),
    ));
    let blobs = Arc::new(BlobCache::new(
        env.clone(),
        dir.to_path_buf(),
        stats.clone(),
    ));
    let reaper = DbInner::reaper_for(&env, dir, &tables, &blobs);
    let purger = reaper.clone();
    let names = env.fs.list_dir(dir)?;
    let mut versions = if env.fs.exists(&current_path(dir)) {
        if opts.error_if_exists {
            return Err(Error::InvalidArgument(format!(
                "{} exists and error_if_exists is set",
                dir.display()
            )));
        }
        VersionSet::recover(env.clone(), dir, opts.num_levels, reaper)?
    } else {
        if !opts.create_if_missing {
            return Err(Error::NotADatabase(format!(
                "{} is not a database (no CURRENT file) and create_if_missing is false",
                dir.display()
            )));
        }
        if let Some(n) = names.iter().find(|n| {
            matches!(
                filename::parse(n),
                Some((
                    FileKind::Table | FileKind::Manifest | FileKind::Wal | FileKind::Blob,
                    _
                ))
            )
        }) {
            return Err(Error::NotADatabase(format!(
                "{} holds database files ({n}) but no CURRENT file: refusing to overwrite a damaged database",
                dir.display()
            )));
        }
        VersionSet::create(env.clone(), dir, opts.num_levels, reaper)
    };

    // A WAL created after the last MANIFEST edit has a number the MANIFEST does not know of;
    // no number in the directory may be handed out again (a new WAL would truncate it).
    for name in &names {
        if let Some((_, n)) = filename::parse(name) {
            versions.next_file_number = versions.next_file_number.max(n + 1);
        }
    }

    // Replay every WAL not yet flushed, oldest first, into level-0 tables.
    let mut wals: Vec<u64> = names
        .iter()
        .filter_map(|n| match filename::parse(n) {
            Some((FileKind::Wal, num)) if num >= versions.log_number => Some(num),
            _ => None,
        })
        .collect();
    wals.sort_unstable();
    let mut edit = VersionEdit::default();
    let mut last_seq = versions.last_sequence;
    let mut mem = MemTable::new(0);
    // Batches are logged with consecutive sequence numbers. A gap means an older WAL lost its
    // unsynced tail at a record boundary (it reads as complete) while a newer one kept data:
    // replay stops at the gap, so the database is the state after a prefix of the writes, as
    // RocksDB's point-in-time recovery does. (Writes with `disable_wal` leave gaps too; they
    // are not durable, and neither is what follows them in the WAL until a flush.)
    let mut next_seq: Option<u64> = None;
    let mut gap = false;
    for &num in &wals {
        if gap {
            break;
        }
        let path = wal_path(dir, num);
        let data = env.read_file(&path, IoCategory::Other)?;
        let mut reader = LogReader::new(&data, &path);
        loop {
            let at = reader.position();
            let Some(rec) = reader.next_record() else {
                break;
            };
            let Some((seq, batch)) = WriteBatch::decode(rec) else {
                return Err(Error::corruption(
                    &path,
                    at,
                    "WAL record is not a valid write batch",
                ));
            };
            // The first record replayed must follow the newest write the tables hold: a later
            // one means an older WAL lost every record (its whole unsynced content) while a
            // newer one kept some, and replaying the newer alone would skip those writes.
            let expected = next_seq.unwrap_or(versions.last_sequence + 1);
            if seq > expected || (next_seq.is_some() && seq != expected) {
                gap = true;
                break;
            }
            next_seq = Some(seq + batch.len() as u64);
            DbInner::apply_batch(&mem, &batch, seq);
            last_seq = last_seq.max(seq + batch.len() as u64 - 1);
            if mem.approximate_size() >= opts.write_buffer_size {
                flush_recovered(&env, dir, &opts, &mut versions, &mut edit, &mem)?;
                mem = MemTable::new(0);
            }
        }
        if gap {
            break;
        }
        match reader.outcome() {
            ReadOutcome::Clean => {}
            // A crash leaves the end of any WAL not yet synced damaged — older WALs are synced
            // only by a later `sync` write, so they may be damaged too. Replay stops there and
            // skips later WALs, so that the database is the state after a prefix of the writes
            // (no later synced write can be lost this way: it synced the older WALs first).
            ReadOutcome::TornTail { .. } => break,
            ReadOutcome::Corruption {
                file,
                offset,
                message,
            } => {
                if opts.paranoid_checks {
                    return Err(Error::corruption(file, offset, message));
                }
                break;
            }
        }
    }
    if !mem.is_empty() {
        flush_recovered(&env, dir, &opts, &mut versions, &mut edit, &mem)?;
    }
    versions.last_sequence = last_seq;
    let wal_number = versions.new_file_number();
    edit.log_number = Some(wal_number);
    versions.log_number = wal_number;
    versions.apply_recovered(&edit);
    let log = LogWriter::new(env.create(&wal_path(dir, wal_number), IoCategory::Wal)?);
    versions.write_new_manifest()?;
    remove_orphans(&env, dir, &versions)?;

    let mem = Arc::new(MemTable::new(wal_number));
    let version = versions.current();
    let l0 = version.levels[0].len();
    let num_levels = opts.num_levels;
    let inner = DbInner {
        dir: dir.to_path_buf(),
        env,
        stats,
        tables,
        blobs,
        reaper: purger,
        policy,
        state: Mutex::new(State {
            versions,
            imms: VecDeque::new(),
            mem_wal_number: wal_number,
            flush_running: false,
            compactions_running: 0,
            manual_running: false,
            manual_compaction_waiting: 0,
            bg_error: None,
            level_stats: vec![LevelStats::default(); num_levels],
        }),
        bg_cv: Condvar::new(),
        super_version: RwLock::new(Arc::new(SuperVersion {
            mem: mem.clone(),
            imms: Vec::new(),
            version,
        })),
        queue: Mutex::new(VecDeque::new()),
        queue_cv: Condvar::new(),
        wal: Mutex::new(WalState {
            log: Some(log),
            number: wal_number,
            mem,
            delay_debt: 0,
            unsynced: Vec::new(),
            // The directory is synced when the new MANIFEST is installed, after this WAL exists.
            dir_synced: true,
        }),
        last_seq: AtomicU64::new(last_seq),
        snapshots: Default::default(),
        shutting_down: AtomicBool::new(false),
        l0_files: AtomicUsize::new(l0),
        pending_compaction_bytes: AtomicU64::new(0),
        bg_failed: AtomicBool::new(false),
        unlogged_writes: AtomicBool::new(false),
        _lock: lock,
        opts,
    };
    delete_obsolete_wals(&inner, wal_number);
    Ok(inner)
}

fn flush_recovered(
    env: &Env,
    dir: &Path,
    opts: &Options,
    versions: &mut VersionSet,
    edit: &mut VersionEdit,
    mem: &MemTable,
) -> Result<()> {
    let number = versions.new_file_number();
    let stats = Statistics::new();
    let out = write_level0_table(env, dir, opts, &stats, mem, number, &mut || {
        versions.new_file_number()
    })?;
    // Blob files before the table that references them, as in every edit.
    edit.blob_added.extend(out.blobs);
    if let Some(f) = out.table {
        edit.added.push((0, f));
    }
    Ok(())
}

/// Deletes files no version references: tables and blob files of interrupted flushes and
/// compactions, old MANIFESTs and temporary files.
fn remove_orphans(env: &Env, dir: &Path, versions: &VersionSet) -> Result<()> {
    let current = versions.current();
    let live: HashSet<u64> = current.files().map(|(_, f)| f.number).collect();
    for name in env.fs.list_dir(dir)? {
        let remove = match filename::parse(&name) {
            Some((FileKind::Table, n)) => !live.contains(&n),
            Some((FileKind::Blob, n)) => !current.blobs.contains_key(&n),
            Some((FileKind::Manifest, n)) => n != versions.manifest_number(),
            Some((FileKind::Temp, _)) => true,
            _ => false,
        };
        if remove {
            let _ = env.fs.remove_file(&dir.join(&name));
        }
    }
    Ok(())
}

pub(crate) fn destroy(dir: &Path, opts: &Options) -> Result<()> {
    let fs = &opts.fs;
    if !fs.exists(dir) {
        return Ok(());
    }
    let _lock = fs.lock_file(&lock_path(dir))?;
    for name in fs.list_dir(dir)? {
        if filename::parse(&name).is_some_and(|(k, _)| k != FileKind::Lock) {
            fs.remove_file(&dir.join(&name))?;
        }
    }
    let _ = fs.remove_file(&lock_path(dir));
    let _ = std::fs::remove_dir(dir);
    Ok(())
}
