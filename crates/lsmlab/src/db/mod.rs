//! The database: open and recovery, the write path with group commit, the read path, and the
//! background flush and compaction threads.
//!
//! Locks, always taken in this order: `wal` (held by the group-commit leader) → `state`.
//! Readers take neither: they clone the current `SuperVersion` under a short read lock.

mod background;
mod info_log;
mod inline_work;
mod iter;
mod properties;
mod recovery;
mod replay;
mod snapshot;
mod stats_dump;
#[cfg(test)]
mod tests;
mod value;
mod write;
mod write_pacer;
mod write_queue;

pub use iter::DbIterator;
pub(crate) use recovery::dry_run;
pub(crate) use replay::RecoveryReport;
pub use snapshot::Snapshot;

use crate::blob::BlobCache;
use crate::cache::BlockCache;
use crate::compaction::{policy_for, LayoutPolicy};
use crate::env::{Env, FileLock, IoCategory, IoStats};
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{lookup_key, SequenceNumber};
use crate::memtable::{Lookup, MemTable, MemTableIter};
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::pinned::PinnedValue;
use crate::sst::BlockFetch;
use crate::stats::{HistogramKind, Statistics, Ticker};
use crate::table_cache::TableCache;
use crate::version::{FileReaper, Version, VersionSet};
use crate::wal::LogWriter;
use crate::WriteBatch;
use arc_swap::ArcSwap;
use parking_lot::{Condvar, Mutex};
use snapshot::SnapshotList;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// What a read needs: the memtables and the version, taken together.
pub(crate) struct SuperVersion {
    pub(crate) mem: Arc<MemTable>,
    /// Immutable memtables, newest first.
    pub(crate) imms: Vec<Arc<MemTable>>,
    pub(crate) version: Arc<Version>,
}

/// The write-ahead log and the memtable it feeds; only the group-commit leader touches them.
pub(crate) struct WalState {
    pub(crate) log: Option<LogWriter>,
    /// Older WALs handed to the OS but not yet synced; a `sync` write syncs them first, so a
    /// synced write is never durable while an earlier acknowledged one is lost.
    /// Each is (WAL number, writer).
    pub(crate) unsynced: Vec<(u64, LogWriter)>,
    /// The directory entry of the current WAL is durable.
    pub(crate) dir_synced: bool,
    pub(crate) number: u64,
    pub(crate) mem: Arc<MemTable>,
    /// The last sequence number written to the WAL: ahead of `DbInner::last_seq` while a group
    /// is going into the memtable.
    pub(crate) last_seq_logged: u64,
    /// The writers' pace while level 0 or the compaction debt is over its slowdown trigger.
    pub(crate) pacer: write_pacer::WritePacer,
}

/// Per-level compaction figures for `rocksdb.stats`, indexed by output level.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LevelStats {
    pub(crate) count: u64,
    pub(crate) read_level: u64,
    pub(crate) read_next: u64,
    pub(crate) written: u64,
    pub(crate) moved: u64,
    pub(crate) micros: u64,
    pub(crate) cpu_micros: u64,
    pub(crate) keys_in: u64,
    pub(crate) keys_dropped: u64,
    /// Bytes of those written that went to blob files.
    pub(crate) blob_written: u64,
    /// Bytes of blob records read to be relocated by garbage collection.
    pub(crate) blob_read: u64,
}

pub(crate) struct State {
    pub(crate) versions: VersionSet,
    /// Immutable memtables waiting for flush, oldest first.
    pub(crate) imms: VecDeque<Arc<MemTable>>,
    /// Number of the WAL the active memtable writes to.
    pub(crate) mem_wal_number: u64,
    pub(crate) flush_running: bool,
    /// Compactions running now (background and manual).
    pub(crate) compactions_running: usize,
    /// A manual compaction holds the tree exclusively.
    pub(crate) manual_running: bool,
    pub(crate) manual_compaction_waiting: usize,
    /// The jobs running now, which the layout policy sees when asked whether another may
    /// start (`LayoutPolicy::may_start`).
    pub(crate) running: crate::compaction::RunningJobs,
    pub(crate) bg_error: Option<Error>,
    pub(crate) level_stats: Vec<LevelStats>,
}

pub(crate) struct DbInner {
    pub(crate) dir: PathBuf,
    /// The directory of the WALs (`Options::wal_dir`, or `dir`).
    pub(crate) wal_dir: PathBuf,
    /// When open returned: `rocksdb.stats` reports uptime from it.
    pub(crate) opened: Instant,
    /// The cumulative figures of the previous `rocksdb.stats` dump, for its interval lines.
    pub(crate) last_stats_dump: Mutex<stats_dump::Cumulative>,
    /// The `LOG` text log.
    pub(crate) info_log: info_log::InfoLog,
    /// What WAL replay did at open.
    pub(crate) recovery: replay::RecoveryReport,
    pub(crate) opts: Options,
    pub(crate) env: Env,
    pub(crate) stats: Arc<Statistics>,
    pub(crate) tables: Arc<TableCache>,
    /// Open blob files.
    pub(crate) blobs: Arc<BlobCache>,
    /// Deletes tables once no version lists them.
    pub(crate) reaper: Arc<FileReaper>,
    pub(crate) policy: Box<dyn LayoutPolicy>,
    pub(crate) state: Mutex<State>,
    /// Signalled when background work finishes or is needed.
    pub(crate) bg_cv: Condvar,
    /// The current memtables and version. Swapped whole by flushes, compactions and memtable
    /// switches; gets borrow it without writing to any shared cache line (arc-swap).
    pub(crate) super_version: ArcSwap<SuperVersion>,
    /// Writes waiting for their group commit.
    pub(crate) queue: write_queue::WriteQueue,
    /// Memory of flushed memtables, reused by the next ones.
    pub(crate) memtable_blocks: Arc<crate::memtable::BlockPool>,
    pub(crate) wal: Mutex<WalState>,
    /// Held by the group inserting into the memtable; taken under the WAL lock, so groups
    /// insert in the order of their WAL records (see `write::LoggedGroup`).
    pub(crate) memtable_turn: Mutex<()>,
    /// The last sequence number visible to readers.
    pub(crate) last_seq: AtomicU64,
    pub(crate) snapshots: Arc<SnapshotList>,
    pub(crate) shutting_down: AtomicBool,
    /// Level-0 table count of the current version, read by writers without a lock.
    pub(crate) l0_files: AtomicUsize,
    /// The longest background work a user call ran inline (`deterministic_background`).
    pub(crate) longest_inline: inline_work::LongestInline,
    /// Estimated bytes compaction has to rewrite to bring every level under its target.
    pub(crate) pending_compaction_bytes: AtomicU64,
    /// Set with the background error, so writers check it without the state lock.
    pub(crate) bg_failed: AtomicBool,
    /// Some write skipped the WAL since open: close must flush the memtables.
    pub(crate) unlogged_writes: AtomicBool,
    pub(crate) _lock: Box<dyn FileLock>,
}

/// An open database. It is `Send + Sync`: share it between threads with an `Arc` or by
/// reference. Dropping it closes it.
pub struct Db {
    inner: Arc<DbInner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Db {
    /// Opens the database at `path`, creating it if `create_if_missing` allows, and recovers
    /// every write acknowledged before the last close or crash.
    pub fn open(path: impl AsRef<Path>, mut options: Options) -> Result<Db> {
        // Filters are sized for this database's tree, not for one opened from a clone of these
        // options: a record of its own, before the layout policy copies the options.
        options.filter.live = crate::filter::LiveLevels::default();
        let policy = policy_for(&options);
        let inner = Arc::new(recovery::open(path.as_ref(), options, policy)?);
        let db = Db {
            threads: Mutex::new(background::start(&inner)?),
            inner,
        };
        Ok(db)
    }

    /// Deletes the database at `path` (every file it owns, then the directory if empty).
    pub fn destroy(path: impl AsRef<Path>, options: &Options) -> Result<()> {
        recovery::destroy(path.as_ref(), options)
    }

    /// Sets `key` to `value`.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::with_capacity(key.len() + value.len() + 21);
        b.put(key, value);
        self.write(&WriteOptions::default(), b)
    }

    /// Deletes `key` (a no-op if absent).
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write(&WriteOptions::default(), b)
    }

    /// Applies every record of `batch` atomically.
    pub fn write(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let start = self.inner.opts.statistics.then(Instant::now);
        let mut r = write::write(&self.inner, opts, batch);
        if r.is_ok() && self.inner.opts.deterministic_background {
            r = background::run_inline(&self.inner);
        }
        if let Some(t) = start {
            self.inner
                .stats
                .record(HistogramKind::DbWrite, t.elapsed().as_micros() as u64);
        }
        r
    }

    /// The value of `key`, or `None` if absent.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_with(&ReadOptions::default(), key)
    }

    /// The value of `key` as of `opts.snapshot` (or now).
    pub fn get_with(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.get_pinned(opts, key)?.map(PinnedValue::into_vec))
    }

    /// As [`Db::get_with`], without copying the value out of the data block that holds it
    /// (RocksDB's `Get` into a `PinnableSlice`): for a reader that only looks at the bytes, or
    /// copies them into a buffer of its own, this saves an allocation and a copy per get.
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnedValue>> {
        let inner = &self.inner;
        let start = inner.opts.statistics.then(Instant::now);
        // The super version first: every version it holds was written at or below the sequence
        // read next, so compactions after it cannot drop what this read must see. A guard, not
        // a clone: a clone updates a reference count that every reading thread shares.
        let sv = inner.super_version.load();
        #[cfg(test)]
        test_pause_point();
        let seq = match &opts.snapshot {
            Some(s) => s.sequence(),
            None => inner.last_seq.load(Ordering::Acquire),
        };
        let lookup = lookup_key(key, seq);
        let mut found = Lookup::Absent;
        let mut wants_work = false;
        for mem in std::iter::once(&sv.mem).chain(sv.imms.iter()) {
            found = mem.get_lookup(&lookup);
            if found != Lookup::Absent {
                break;
            }
        }
        let stats = &inner.stats;
        inner.policy.on_read();
        if found == Lookup::Absent {
            stats.add(Ticker::MemtableMiss, 1);
            let (f, hit) = sv.version.get(&inner.tables, stats, &lookup)?;
            if let Some(hit) = hit {
                if inner.policy.on_get_hit(hit, &sv.version) {
                    // The policy wants work now (a float-up): wake a compaction thread
                    // rather than let it sleep out its poll.
                    inner.bg_cv.notify_all();
                    wants_work = inner.opts.deterministic_background;
                }
            }
            found = f;
        } else {
            stats.add(Ticker::MemtableHit, 1);
        }
        stats.add(Ticker::NumberKeysRead, 1);
        let result = match found {
            Lookup::Found(kind, raw) => {
                let v = value::resolve_pinned(kind, key, raw, &inner.blobs)?;
                stats.add(Ticker::NumberKeysFound, 1);
                stats.add(Ticker::BytesRead, (key.len() + v.len()) as u64);
                Some(v)
            }
            Lookup::Deleted | Lookup::Absent => None,
        };
        if let Some(t) = start {
            stats.record(HistogramKind::DbGet, t.elapsed().as_micros() as u64);
        }
        if wants_work {
            // Deterministic mode: the float-up the get asked for runs now, in this thread.
            drop(sv);
            background::run_inline(inner)?;
        }
        Ok(result)
    }

    /// A cursor over every key as of `opts.snapshot` (or now). Position it before use
    /// (`seek_to_first`, `seek`, `seek_to_last`).
    pub fn iter(&self, opts: &ReadOptions) -> Result<DbIterator> {
        let inner = &self.inner;
        // The super version first: every version it holds was written at or below the sequence
        // read next, so compactions after it cannot drop what this read must see.
        let sv = inner.super_version.load_full();
        let seq = match &opts.snapshot {
            Some(s) => s.sequence(),
            None => inner.last_seq.load(Ordering::Acquire),
        };
        inner.policy.on_read();
        let fetch = if opts.no_fill_cache {
            // A bulk scan reads its level-0 tables and one table per deeper level at a time.
            let deeper = sv.version.levels.iter().skip(1).filter(|f| !f.is_empty());
            BlockFetch::merged(sv.version.levels[0].len() + deeper.count())
        } else {
            BlockFetch::Cached
        };
        let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
        for mem in std::iter::once(&sv.mem).chain(sv.imms.iter()) {
            children.push(Box::new(MemTableIter::new(mem.clone())));
        }
        for f in &sv.version.levels[0] {
            children.push(f.reader(&inner.tables)?.iter(IoCategory::UserRead, fetch));
        }
        for (level, files) in sv.version.levels.iter().enumerate().skip(1) {
            if files.is_empty() {
                continue;
            }
            children.push(Box::new(LevelIterator::for_level(
                sv.version.clone(),
                level,
                inner.tables.clone(),
                IoCategory::UserRead,
                fetch,
            )));
        }
        Ok(DbIterator::new(
            MergingIterator::new(children),
            seq,
            inner.stats.clone(),
            inner.opts.statistics,
            inner.blobs.clone(),
            sv.version.clone(),
        ))
    }

    /// A snapshot of the current state; reads through it ignore later writes.
    pub fn snapshot(&self) -> Snapshot {
        self.inner.snapshots.acquire(&self.inner.last_seq)
    }

    /// Writes the memtable to a level-0 table and waits until it is durable.
    pub fn flush(&self) -> Result<()> {
        write::flush_memtable(&self.inner)
    }

    /// Compacts every table that meets `[begin, end]` (user keys; `None` = unbounded) down to
    /// the last level that holds data, after flushing the memtable.
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.flush()?;
        background::compact_range(&self.inner, begin, end)
    }

    /// Waits until no flush or compaction is pending or running (or one failed).
    pub fn wait_for_background_work(&self) -> Result<()> {
        background::wait_idle(&self.inner)
    }

    /// A RocksDB-named property (`rocksdb.stats`, `rocksdb.num-files-at-level0`, …); `None` for
    /// an unknown name.
    pub fn property(&self, name: &str) -> Option<String> {
        properties::property(&self.inner, name)
    }

    /// A numeric property; `None` for an unknown or non-numeric name.
    pub fn property_int(&self, name: &str) -> Option<u64> {
        properties::property_int(&self.inner, name)
    }

    /// Tickers and histograms.
    pub fn statistics(&self) -> Arc<Statistics> {
        self.inner.stats.clone()
    }

    /// The options the database was opened with.
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// The layout policy's name, adaptive state (read ratio, float-up requests) and current
    /// level limits.
    pub fn layout(&self) -> crate::compaction::LayoutReport {
        let version = self.inner.super_version.load().version.clone();
        crate::compaction::layout_report(self.inner.policy.as_ref(), &version, &self.inner.opts)
    }

    /// Bytes and pages read and written, per I/O category.
    pub fn io_stats(&self) -> Arc<IoStats> {
        self.inner.env.io.clone()
    }

    /// The last sequence number visible to readers.
    pub fn latest_sequence(&self) -> SequenceNumber {
        self.inner.last_seq.load(Ordering::Acquire)
    }

    /// Stops background work, syncs the WAL and releases the lock. Writes acknowledged before
    /// are recovered by the next open.
    pub fn close(self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&self) -> Result<()> {
        let inner = &self.inner;
        if inner.shutting_down.load(Ordering::Acquire) {
            return Ok(());
        }
        // Writes that skipped the WAL exist only in memtables: flush them while the background
        // threads still run. An error is reported after the threads are stopped.
        let flushed = if inner.unlogged_writes.load(Ordering::Acquire) {
            write::flush_memtable(inner)
        } else {
            Ok(())
        };
        if inner.shutting_down.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        {
            let _st = inner.state.lock();
            inner.bg_cv.notify_all();
        }
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
        let mut wal = inner.wal.lock();
        for (_, old) in wal.unsynced.iter_mut() {
            old.sync()?;
        }
        wal.unsynced.clear();
        if let Some(log) = wal.log.as_mut() {
            log.sync()?;
        }
        inner.reaper.purge();
        flushed
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("dir", &self.inner.dir)
            .finish_non_exhaustive()
    }
}

/// A test-only pause point: a test installs a closure for one thread, which runs it at the next
/// pause point it reaches (to pause it while the test does something in between). Keyed by
/// thread, so that other tests running meanwhile pass their pause points untouched.
#[cfg(test)]
#[allow(clippy::type_complexity)]
pub(crate) static TEST_PAUSE: parking_lot::Mutex<
    Option<(std::thread::ThreadId, Box<dyn FnOnce() + Send>)>,
> = parking_lot::Mutex::new(None);

#[cfg(test)]
pub(crate) fn test_pause_point() {
    let me = std::thread::current().id();
    let hook = {
        let mut slot = TEST_PAUSE.lock();
        match slot.take() {
            Some((id, hook)) if id == me => Some(hook),
            other => {
                *slot = other;
                None
            }
        }
    };
    if let Some(hook) = hook {
        hook()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Tells the filter options how many entries each level of `version` holds, how many of them
/// a level holds when compaction keeps up (`policy`'s steady level sizes), and the share of
/// the keys each covers: filters are sized by level from it (`optimize_filters_for_hits`,
/// Monkey's allocation).
pub(crate) fn publish_live_levels(opts: &Options, policy: &dyn LayoutPolicy, version: &Version) {
    let per_level: Vec<u64> = version
        .levels
        .iter()
        .map(|files| files.iter().map(|f| f.num_entries).sum())
        .collect();
    // Only Monkey's allocation reads the steady sizes and the key shares (a walk of the
    // deepest level per level at every new version): the other settings skip them.
    let (steady_entries, key_shares) =
        if opts.filter.allocation == crate::filter::FilterAllocation::Monkey {
            (
                steady_entries(opts, policy, version, &per_level),
                version.key_space_shares(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
    opts.filter.live.publish(crate::filter::TreeEntries {
        per_level,
        level0_tables: version.levels[0].len(),
        level0_steady_tables: opts.level0_file_num_compaction_trigger,
        key_shares,
        steady_entries,
    });
}

/// Each level's entries when compaction keeps up: its steady bytes (`policy`'s) at its own
/// bytes per entry. Level 0 (capped by its table count instead), the deepest level (it holds
/// what the tree holds), empty levels and every level of a layout without targets are not
/// bounded (`u64::MAX`).
fn steady_entries(
    opts: &Options,
    policy: &dyn LayoutPolicy,
    version: &Version,
    per_level: &[u64],
) -> Vec<u64> {
    let Some(target) = policy.steady_level_bytes(version, opts) else {
        return Vec::new();
    };
    let deepest = per_level.iter().rposition(|&n| n > 0);
    (0..per_level.len())
        .map(|l| {
            let bytes = version.level_bytes(l);
            if l == 0 || Some(l) == deepest || bytes == 0 {
                return u64::MAX;
            }
            let target = target.get(l).copied().unwrap_or(u64::MAX) as f64;
            (target * per_level[l] as f64 / bytes as f64).min(u64::MAX as f64) as u64
        })
        .collect()
}

impl DbInner {
    /// Publishes a new super version from the given parts.
    pub(crate) fn install_super_version(&self, st: &State, mem: Arc<MemTable>) {
        let version = st.versions.current();
        self.l0_files
            .store(version.levels[0].len(), Ordering::Relaxed);
        publish_live_levels(&self.opts, self.policy.as_ref(), &version);
        self.pending_compaction_bytes.store(
            self.estimate_pending_compaction_bytes(&version),
            Ordering::Relaxed,
        );
        let sv = SuperVersion {
            mem,
            imms: st.imms.iter().rev().cloned().collect(),
            version,
        };
        self.super_version.store(Arc::new(sv));
    }

    /// Bytes compaction must rewrite to bring every level under its target, estimated as
    /// RocksDB does: level 0 once it reaches its trigger, then each level's excess over its
    /// target, which also rewrites about `multiplier` times as much of the next level.
    fn estimate_pending_compaction_bytes(&self, v: &Version) -> u64 {
        let opts = &self.opts;
        let mut pending = 0u64;
        let mut carried = 0u64;
        if v.levels[0].len() >= self.policy.level0_triggers(opts).compaction {
            carried = v.level_bytes(0);
            pending += carried;
        }
        let targets = self.policy.level_targets(v, opts);
        for level in 1..v.levels.len().saturating_sub(1) {
            let bytes = v.level_bytes(level) + carried;
            let target = targets.max_bytes[level];
            carried = bytes.saturating_sub(target);
            let rewrite = carried as f64 * (opts.max_bytes_for_level_multiplier + 1.0);
            pending = pending.saturating_add(rewrite as u64);
        }
        pending
    }

    /// The current active memtable (as last published).
    pub(crate) fn current_mem(&self) -> Arc<MemTable> {
        self.super_version.load().mem.clone()
    }

    /// Records a background failure: writes are refused from now on.
    pub(crate) fn set_bg_error(&self, st: &mut State, e: Error) {
        if st.bg_error.is_none() {
            self.info_log.log(&format!(
                "Background error, writes stopped until reopen: {e}"
            ));
            st.bg_error = Some(e);
        }
        self.bg_failed.store(true, Ordering::Release);
        self.bg_cv.notify_all();
    }

    pub(crate) fn check_bg_error(st: &State) -> Result<()> {
        match &st.bg_error {
            Some(e) => Err(Error::Background(Box::new(e.clone()))),
            None => Ok(()),
        }
    }

    /// Applies a batch to a memtable at sequences `first..`.
    pub(crate) fn apply_batch(mem: &MemTable, batch: &WriteBatch, first: SequenceNumber) -> u64 {
        let mut user_bytes = 0u64;
        for (seq, r) in (first..).zip(batch.records()) {
            mem.add(seq, r.kind, r.key, r.value);
            user_bytes += (r.key.len() + r.value.len()) as u64;
        }
        user_bytes
    }

    /// The sequence below which compaction may drop shadowed versions.
    pub(crate) fn smallest_snapshot(&self) -> SequenceNumber {
        self.snapshots.smallest(&self.last_seq)
    }

    pub(crate) fn block_cache(&self) -> Option<&Arc<BlockCache>> {
        self.tables.block_cache()
    }

    pub(crate) fn reaper_for(
        env: &Env,
        dir: &Path,
        tables: &Arc<TableCache>,
        blobs: &Arc<BlobCache>,
    ) -> Arc<FileReaper> {
        FileReaper::new(
            env.clone(),
            dir.to_path_buf(),
            tables.clone(),
            blobs.clone(),
        )
    }
}
