//! Opening a database: lock, MANIFEST, WAL replay, a fresh MANIFEST and WAL, orphan removal.

use super::background::delete_obsolete_wals;
use super::info_log::InfoLog;
use super::replay::{replay_wals, RecoveryReport};
use super::{DbInner, LevelStats, State, SuperVersion, WalState};
use crate::blob::BlobCache;
use crate::cache::BlockCache;
use crate::compaction::LayoutPolicy;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::{self, current_path, lock_path, lost_dir, wal_path, FileKind};
use crate::memtable::{BlockPool, MemTable};
use crate::options::Options;
use crate::stats::{Statistics, Ticker};
use crate::table_cache::TableCache;
use crate::version::{VersionEdit, VersionSet};
use crate::wal::LogWriter;
use arc_swap::ArcSwap;
use parking_lot::{Condvar, Mutex};
use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::Arc;

pub(crate) fn open(dir: &Path, opts: Options, policy: Box<dyn LayoutPolicy>) -> Result<DbInner> {
    opts.validate()?;
    let mut env = Env::new(opts.fs.clone());
    env.bytes_per_sync = opts.bytes_per_sync;
    env.mmap_reads = opts.allow_mmap_reads;
    refuse_early(&env, dir, &opts)?;
    env.fs.create_dir_all(dir)?;
    let wal_dir = opts.wal_dir_for(dir);
    env.fs.create_dir_all(&wal_dir)?;
    let lock = env.fs.lock_file(&lock_path(dir))?;
    let info_log = InfoLog::open(env.fs.as_ref(), dir)?;
    let stats = Arc::new(Statistics::with_timing(opts.statistics));
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
    let mut names = env.fs.list_dir(dir)?;
    let mut wal_names = list_wals(&env, dir, &wal_dir, &names)?;
    let mut versions = if env.fs.exists(&current_path(dir)) {
        if opts.error_if_exists {
            return Err(Error::InvalidRequest(format!(
                "{} exists and error_if_exists is set",
                dir.display()
            )));
        }
        VersionSet::recover_with_wal_dir(env.clone(), dir, &wal_dir, opts.num_levels, reaper)?
    } else {
        create_fresh(
            &env,
            dir,
            &wal_dir,
            &opts,
            &mut names,
            &mut wal_names,
            reaper,
        )?
    };

    let (mut edit, report, last_seq) = replay_needed(
        &env,
        dir,
        &wal_dir,
        &opts,
        &mut versions,
        &names,
        &wal_names,
        true,
    )?;
    versions.last_sequence = last_seq;
    let wal_number = versions.new_file_number();
    edit.log_number = Some(wal_number);
    versions.log_number = wal_number;
    versions.apply_recovered(&edit);
    let log = LogWriter::new(env.create(&wal_path(&wal_dir, wal_number), IoCategory::Wal)?);
    versions.write_new_manifest()?;
    remove_orphans(&env, dir, &versions)?;
    log_recovery(&info_log, dir, &report);
    keep_aside(&env, &wal_dir, &report, &info_log)?;
    stats.add(Ticker::FlushWriteBytes, report.flush_bytes);
    stats.add(Ticker::Flushes, report.flushes);
    if wal_dir != dir {
        // The new WAL's directory entry must be durable before a write is acknowledged in it.
        env.fs.sync_dir(&wal_dir)?;
    }

    let memtable_blocks =
        BlockPool::with_filler(opts.write_buffer_size, opts.max_write_buffer_number);
    let mem = Arc::new(MemTable::with_pool(wal_number, &memtable_blocks));
    let version = versions.current();
    super::publish_live_levels(&opts, policy.as_ref(), &version);
    let l0 = version.levels[0].len();
    let num_levels = opts.num_levels;
    let inner = DbInner {
        dir: dir.to_path_buf(),
        wal_dir,
        opened: std::time::Instant::now(),
        last_stats_dump: Mutex::new(Default::default()),
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
            running: Default::default(),
            bg_error: None,
            level_stats: recovered_level_stats(num_levels, &report),
        }),
        bg_cv: Condvar::new(),
        super_version: ArcSwap::new(Arc::new(SuperVersion {
            mem: mem.clone(),
            imms: Vec::new(),
            version,
        })),
        queue: Default::default(),
        memtable_blocks,
        wal: Mutex::new(WalState {
            log: Some(log),
            number: wal_number,
            mem,
            last_seq_logged: last_seq,
            pacer: Default::default(),
            unsynced: Vec::new(),
            // The directory is synced when the new MANIFEST is installed, after this WAL exists.
            dir_synced: true,
        }),
        memtable_turn: Mutex::new(()),
        last_seq: AtomicU64::new(last_seq),
        snapshots: Default::default(),
        shutting_down: AtomicBool::new(false),
        l0_files: AtomicUsize::new(l0),
        longest_inline: Default::default(),
        pending_compaction_bytes: AtomicU64::new(0),
        bg_failed: AtomicBool::new(false),
        unlogged_writes: AtomicBool::new(false),
        _lock: lock,
        info_log,
        recovery: report,
        opts,
    };
    delete_obsolete_wals(&inner, wal_number);
    Ok(inner)
}

/// The per-level figures a new process starts from: level 0 holds the flushes replay did, so
/// that `stats` and write amplification count them as the flushes they are.
fn recovered_level_stats(num_levels: usize, r: &RecoveryReport) -> Vec<LevelStats> {
    let mut levels = vec![LevelStats::default(); num_levels];
    if let Some(l0) = levels.first_mut() {
        l0.written = r.flush_bytes;
        l0.blob_written = r.flush_blob_bytes;
        l0.count = r.flushes;
    }
    levels
}

/// Refuses, before anything is created, a path that is a file, and a missing database when
/// `create_if_missing` is false: a missing database stays missing (no directory, no LOCK left
/// behind). The latter is checked again under the lock, where it counts.
fn refuse_early(env: &Env, dir: &Path, opts: &Options) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(dir) {
        if !meta.is_dir() && env.fs.exists(dir) {
            return Err(Error::NotADatabase(format!(
                "{} is not a database: it is a file, not a directory",
                dir.display()
            )));
        }
    }
    if !opts.create_if_missing && !env.fs.exists(&current_path(dir)) {
        return Err(Error::NotADatabase(format!(
            "{} is not a database (no CURRENT file) and create_if_missing is false",
            dir.display()
        )));
    }
    Ok(())
}

/// The versions of a new database in `dir`, which has no CURRENT: clears what a creation that
/// failed part-way left (WALs, MANIFESTs and temporary files, removed from `names` and
/// `wal_names` too), and refuses a directory whose files hold data.
fn create_fresh(
    env: &Env,
    dir: &Path,
    wal_dir: &Path,
    opts: &Options,
    names: &mut Vec<String>,
    wal_names: &mut Vec<String>,
    reaper: Arc<crate::version::FileReaper>,
) -> Result<VersionSet> {
    if !opts.create_if_missing {
        return Err(Error::NotADatabase(format!(
            "{} is not a database (no CURRENT file) and create_if_missing is false",
            dir.display()
        )));
    }
    // No write is acknowledged before open returns, and open returns only once CURRENT
    // exists: a directory without CURRENT whose files hold no data (no table, no blob
    // file, only empty WALs) is what a creation that failed part-way leaves, and is
    // cleared. Anything more is a database that lost its CURRENT, and is left alone.
    let kind = |n: &String| filename::parse(n).map(|(k, _)| k);
    let holds_data = |n: &String| match kind(n) {
        Some(FileKind::Table | FileKind::Blob) => true,
        Some(FileKind::Wal) => env
            .fs
            .file_size(&wal_dir.join(n))
            .map_or(true, |len| len > 0),
        _ => false,
    };
    if let Some(n) = names.iter().chain(wal_names.iter()).find(|n| holds_data(n)) {
        return Err(Error::NotADatabase(format!(
            "{} holds database files ({n}) but no CURRENT file: refusing to overwrite a damaged database",
            dir.display()
        )));
    }
    let leftover = |n: &String| {
        matches!(
            kind(n),
            Some(FileKind::Wal | FileKind::Manifest | FileKind::Temp)
        )
    };
    for n in names.iter().filter(|n| leftover(n)) {
        env.fs.remove_file(&dir.join(n))?;
    }
    // WALs in a separate directory (in the database directory they went above).
    if wal_dir != dir {
        for n in wal_names.iter() {
            env.fs.remove_file(&wal_dir.join(n))?;
        }
    }
    names.retain(|n| !leftover(n));
    wal_names.clear();
    let mut vs = VersionSet::create(env.clone(), dir, opts.num_levels, reaper);
    vs.set_wal_dir(wal_dir);
    Ok(vs)
}

/// The names of the WALs, wherever they are; with a separate WAL directory only its WALs
/// count (it may be shared with other files).
fn list_wals(env: &Env, dir: &Path, wal_dir: &Path, names: &[String]) -> Result<Vec<String>> {
    let mut wal_names: Vec<String> = if wal_dir == dir {
        names.to_vec()
    } else {
        env.fs.list_dir(wal_dir)?
    };
    wal_names.retain(|n| matches!(filename::parse(n), Some((FileKind::Wal, _))));
    Ok(wal_names)
}

/// Replays every WAL the recovered `versions` still needs, oldest first, into level-0 tables
/// (with `write`; without it, a dry run that judges every record and writes nothing). Returns
/// the edit adding the tables, what replay did, and the newest sequence number replayed.
#[allow(clippy::too_many_arguments)]
fn replay_needed(
    env: &Env,
    dir: &Path,
    wal_dir: &Path,
    opts: &Options,
    versions: &mut VersionSet,
    names: &[String],
    wal_names: &[String],
    write: bool,
) -> Result<(VersionEdit, RecoveryReport, u64)> {
    // A WAL created after the last MANIFEST edit has a number the MANIFEST does not know of;
    // no number in the directory may be handed out again (a new WAL would truncate it).
    for name in names.iter().chain(wal_names) {
        if let Some((_, n)) = filename::parse(name) {
            versions.next_file_number = versions.next_file_number.max(n + 1);
        }
    }
    let wals = filename::wals_from(wal_names, versions.log_number);
    let mut edit = VersionEdit::default();
    let mut report = RecoveryReport::default();
    let last_seq = replay_wals(
        env,
        dir,
        wal_dir,
        opts,
        versions,
        &mut edit,
        &wals,
        &mut report,
        write,
    )?;
    Ok((edit, report, last_seq))
}

/// What open would do with the database in `dir`, without writing anything: the same MANIFEST
/// replay and checks of the files it names, the same WAL scan judged by the same recovery
/// mode. `check` runs it, so that it passes exactly when open succeeds. The error is the one
/// open would give.
pub(crate) fn dry_run(dir: &Path, opts: &Options) -> Result<RecoveryReport> {
    opts.validate()?;
    let env = Env::new(opts.fs.clone());
    if !env.fs.exists(&current_path(dir)) {
        return Err(Error::NotADatabase(format!(
            "{} is not a database (no CURRENT file)",
            dir.display()
        )));
    }
    let wal_dir = opts.wal_dir_for(dir);
    let stats = Arc::new(Statistics::new());
    let tables = Arc::new(TableCache::new(
        env.clone(),
        dir.to_path_buf(),
        None,
        stats.clone(),
    ));
    let blobs = Arc::new(BlobCache::new(env.clone(), dir.to_path_buf(), stats));
    // The reaper only deletes when purged, which a dry run never does.
    let reaper = DbInner::reaper_for(&env, dir, &tables, &blobs);
    let names = env.fs.list_dir(dir)?;
    let wal_names = list_wals(&env, dir, &wal_dir, &names)?;
    let mut versions =
        VersionSet::recover_with_wal_dir(env.clone(), dir, &wal_dir, opts.num_levels, reaper)?;
    let (_, report, _) = replay_needed(
        &env,
        dir,
        &wal_dir,
        opts,
        &mut versions,
        &names,
        &wal_names,
        false,
    )?;
    Ok(report)
}

fn log_recovery(log: &InfoLog, dir: &Path, r: &RecoveryReport) {
    log.log(&format!(
        "Recovered {}: replayed {} records from {} WALs",
        dir.display(),
        r.records,
        r.wals
    ));
    for (file, offset) in &r.failed_last_records {
        log.log(&format!(
            "Dropped the last record of {} at offset {offset}: it is whole but fails its checksum",
            file.display()
        ));
    }
    if let Some(why) = &r.stopped {
        log.log(&format!(
            "WAL replay stopped: {why}; dropped {} records after it",
            r.dropped_after_stop()
        ));
    }
    if r.damaged_regions > 0 {
        log.log(&format!(
            "Skipped {} damaged WAL regions",
            r.damaged_regions
        ));
    }
}

/// Moves the WALs that hold records recovery did not replay (or damage) to `lost/` beside them
/// (in the WAL directory), where a person or a repair tool can still read them; recovery never
/// deletes them.
fn keep_aside(env: &Env, dir: &Path, r: &RecoveryReport, log: &InfoLog) -> Result<()> {
    if r.keep_aside.is_empty() {
        return Ok(());
    }
    let lost = lost_dir(dir);
    env.fs.create_dir_all(&lost)?;
    for &n in &r.keep_aside {
        let from = wal_path(dir, n);
        let to = wal_path(&lost, n);
        env.fs.rename(&from, &to)?;
        log.log(&format!(
            "Kept {} aside as {}: it holds records not replayed",
            from.display(),
            to.display()
        ));
    }
    env.fs.sync_dir(dir)
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
    let wal_dir = opts.wal_dir_for(dir);
    if wal_dir != dir && fs.exists(&wal_dir) {
        for name in fs.list_dir(&wal_dir)? {
            if matches!(filename::parse(&name), Some((FileKind::Wal, _))) {
                fs.remove_file(&wal_dir.join(&name))?;
            }
        }
    }
    // WALs that recovery kept aside are part of the database too.
    for lost in [lost_dir(dir), lost_dir(&wal_dir)] {
        if fs.exists(&lost) {
            for name in fs.list_dir(&lost)? {
                fs.remove_file(&lost.join(&name))?;
            }
            let _ = std::fs::remove_dir(&lost);
        }
    }
    if wal_dir != dir {
        let _ = std::fs::remove_dir(&wal_dir);
    }
    let _ = fs.remove_file(&lock_path(dir));
    let _ = std::fs::remove_dir(dir);
    Ok(())
}
