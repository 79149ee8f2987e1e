//! Versions: immutable snapshots of which tables make up each level.
//!
//! A [`Version`] is shared (`Arc`) by readers and iterators; a flush or compaction installs a new
//! one. A table file is deleted when the last version that lists it is dropped (see
//! [`FileMeta`]'s `Drop`), so a reader never loses a file under its feet.

mod edit;
mod key_shares;
mod set;
#[cfg(test)]
mod tests;

pub use edit::{BlobGarbage, NewBlobFile, NewFile, VersionEdit};
pub use set::VersionSet;

use crate::blob::BlobCache;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::{blob_path, table_path};
use crate::key::{compare_internal, parse_internal_key, user_key, SequenceNumber};
use crate::memtable::Lookup;
use crate::pinned::PinnedValue;
use crate::sst::{TableGet, TableReader};
use crate::stats::{FilterProbe, HistogramKind, Statistics, Ticker};
use crate::table_cache::TableCache;
use parking_lot::Mutex;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, OnceLock};

/// Deletes table and blob files once no version references them.
///
/// The last reference to a version may be dropped by any thread — a writer publishing a new
/// memtable, a reader finishing a get — so dropping only queues the file; background threads
/// delete queued files with [`FileReaper::purge`], keeping `unlink` off the foreground paths.
pub struct FileReaper {
    env: Env,
    dir: PathBuf,
    tables: Arc<TableCache>,
    blobs: Arc<BlobCache>,
    queued: Mutex<Vec<u64>>,
    queued_blobs: Mutex<Vec<u64>>,
    /// Bytes of the blob files some version still lists (RocksDB's total-blob-file-size).
    blob_bytes: AtomicU64,
}

impl FileReaper {
    /// A reaper for the tables and blob files of `dir`.
    pub fn new(
        env: Env,
        dir: PathBuf,
        tables: Arc<TableCache>,
        blobs: Arc<BlobCache>,
    ) -> Arc<FileReaper> {
        Arc::new(FileReaper {
            env,
            dir,
            tables,
            blobs,
            queued: Mutex::new(Vec::new()),
            queued_blobs: Mutex::new(Vec::new()),
            blob_bytes: AtomicU64::new(0),
        })
    }
    /// Bytes of every blob file that any version (current or held by a reader) lists.
    pub fn blob_file_bytes(&self) -> u64 {
        self.blob_bytes.load(AtomicOrdering::Relaxed)
    }
    /// True if some table or blob file waits for [`FileReaper::purge`].
    pub fn has_queued(&self) -> bool {
        !self.queued.lock().is_empty() || !self.queued_blobs.lock().is_empty()
    }
    fn queue(&self, number: u64) {
        self.queued.lock().push(number);
    }
    /// Deletes every queued table and blob file.
    pub fn purge(&self) {
        let numbers = std::mem::take(&mut *self.queued.lock());
        for number in numbers {
            self.tables.evict(number);
            // Best effort: a file left behind is an orphan that the next open deletes.
            let _ = self.env.fs.remove_file(&table_path(&self.dir, number));
        }
        let numbers = std::mem::take(&mut *self.queued_blobs.lock());
        for number in numbers {
            self.blobs.evict(number);
            let _ = self.env.fs.remove_file(&blob_path(&self.dir, number));
        }
    }
}

/// A live table as versions see it.
pub struct FileMeta {
    /// What the MANIFEST records of the table (fields read through `Deref`).
    record: NewFile,
    /// A compaction has picked this file.
    pub being_compacted: AtomicBool,
    obsolete: AtomicBool,
    reaper: Arc<FileReaper>,
    /// The open reader, kept once a read has asked the table cache for it (see
    /// [`FileMeta::reader`]).
    reader: OnceLock<Arc<TableReader>>,
}

impl std::ops::Deref for FileMeta {
    type Target = NewFile;
    fn deref(&self) -> &NewFile {
        &self.record
    }
}

impl FileMeta {
    /// The live form of a MANIFEST record.
    pub fn new(record: NewFile, reaper: Arc<FileReaper>) -> FileMeta {
        FileMeta {
            record,
            being_compacted: AtomicBool::new(false),
            obsolete: AtomicBool::new(false),
            reaper,
            reader: OnceLock::new(),
        }
    }
    /// The table's open reader, the one way gets, iterators and compactions reach it. The
    /// table cache is asked once; the reader is then kept with the file, so that a get reaches
    /// it without the cache's lock or a reference-count update. Both write a cache line that
    /// every reading thread shares: with two threads probing tables, the cache's lookup was
    /// 40 % of a `readmissing` profile. The reader lives as long as the file's metadata, which
    /// is as long as a version lists the file.
    pub fn reader(&self, tables: &TableCache) -> Result<&Arc<TableReader>> {
        if let Some(r) = self.reader.get() {
            return Ok(r);
        }
        let r = tables.get(self.number)?;
        Ok(self.reader.get_or_init(|| r))
    }
    /// The MANIFEST record of this table.
    pub fn to_new_file(&self) -> NewFile {
        self.record.clone()
    }
    /// Smallest user key.
    pub fn smallest_user(&self) -> &[u8] {
        user_key(&self.smallest)
    }
    /// Largest user key.
    pub fn largest_user(&self) -> &[u8] {
        user_key(&self.largest)
    }
    /// True if `key` lies within the table's user-key range.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.smallest_user() <= key && key <= self.largest_user()
    }
    /// True if the table's range meets `[lo, hi]` (user keys, `None` = unbounded).
    pub fn overlaps(&self, lo: Option<&[u8]>, hi: Option<&[u8]>) -> bool {
        lo.is_none_or(|lo| self.largest_user() >= lo)
            && hi.is_none_or(|hi| self.smallest_user() <= hi)
    }
}

impl Drop for FileMeta {
    fn drop(&mut self) {
        if self.obsolete.load(AtomicOrdering::Relaxed) {
            self.reaper.queue(self.number);
        }
    }
}

/// A live blob file: shared by every version that lists it; deleted once the last is dropped
/// after a version dropped it (all its records garbage).
pub struct BlobFileMeta {
    /// What the MANIFEST recorded when the file was added.
    pub file: NewBlobFile,
    obsolete: AtomicBool,
    reaper: Arc<FileReaper>,
}

impl Drop for BlobFileMeta {
    fn drop(&mut self) {
        self.reaper
            .blob_bytes
            .fetch_sub(self.file.file_size(), AtomicOrdering::Relaxed);
        if self.obsolete.load(AtomicOrdering::Relaxed) {
            self.reaper.queued_blobs.lock().push(self.file.number);
        }
    }
}

/// A blob file as one version sees it: the file plus the garbage recorded so far.
#[derive(Clone)]
pub struct BlobFileState {
    /// The file.
    pub meta: Arc<BlobFileMeta>,
    /// Records no table references any more.
    pub garbage_count: u64,
    /// Bytes of those records.
    pub garbage_bytes: u64,
}

impl BlobFileState {
    /// Bytes of the whole file.
    pub fn file_size(&self) -> u64 {
        self.meta.file.file_size()
    }
    /// Bytes of records some table still references.
    pub fn live_bytes(&self) -> u64 {
        self.meta.file.bytes.saturating_sub(self.garbage_bytes)
    }
}

/// The tables of each level at one point in time, and the blob files they reference.
#[derive(Clone, Default)]
pub struct Version {
    /// Level 0 newest first (by largest sequence); other levels by key, disjoint.
    pub levels: Vec<Vec<Arc<FileMeta>>>,
    /// Blob files by number (so oldest first).
    pub blobs: BTreeMap<u64, BlobFileState>,
}

/// Where a get found its key on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitLocation {
    /// Level of the table.
    pub level: usize,
    /// Table number.
    pub file: u64,
}

/// The order of tables within `level`: level 0 newest first (largest sequence number, then
/// table number, descending), the others by smallest key.
/// A get's lookup in one table of `level`, its filter's answer counted for that level.
fn probe(
    f: &FileMeta,
    tables: &TableCache,
    stats: &Statistics,
    level: usize,
    lookup: &[u8],
) -> Result<TableGet> {
    let reader = f.reader(tables)?;
    let got = reader.get(lookup, IoCategory::UserRead)?;
    if reader.filter_memory() > 0 {
        stats.record_filter_probe(
            level,
            match got {
                TableGet::FilteredOut => FilterProbe::Useful,
                TableGet::NotFound => FilterProbe::FalsePositive,
                TableGet::Found { .. } => FilterProbe::TruePositive,
            },
        );
    }
    Ok(got)
}

fn level_order(level: usize, a: &FileMeta, b: &FileMeta) -> Ordering {
    if level == 0 {
        b.largest_seq
            .cmp(&a.largest_seq)
            .then(b.number.cmp(&a.number))
    } else {
        compare_internal(&a.smallest, &b.smallest)
    }
}

impl Version {
    /// An empty version with `n` levels.
    pub fn empty(n: usize) -> Version {
        Version {
            levels: vec![Vec::new(); n],
            blobs: BTreeMap::new(),
        }
    }

    /// Bytes of the tables of `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels[level].iter().map(|f| f.size).sum()
    }

    /// Every table, with its level.
    pub fn files(&self) -> impl Iterator<Item = (usize, &Arc<FileMeta>)> {
        self.levels
            .iter()
            .enumerate()
            .flat_map(|(l, fs)| fs.iter().map(move |f| (l, f)))
    }

    /// Tables of `level` that meet the user-key range `[lo, hi]`.
    pub fn overlapping(
        &self,
        level: usize,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> Vec<Arc<FileMeta>> {
        let files = &self.levels[level];
        if level == 0 {
            return files
                .iter()
                .filter(|f| f.overlaps(lo, hi))
                .cloned()
                .collect();
        }
        // Levels below 0 are sorted by key and do not overlap: the tables that meet the range
        // are one run, found by binary search. A picker asks this once per candidate table,
        // and a tree of the study's 8 KiB tables holds thousands per level, so a linear scan
        // made each pick quadratic in the level's size.
        let start = lo.map_or(0, |lo| files.partition_point(|f| f.largest_user() < lo));
        files[start..]
            .iter()
            .take_while(|f| hi.is_none_or(|hi| f.smallest_user() <= hi))
            .cloned()
            .collect()
    }

    /// Tables of `level` that meet `[lo, hi]`; for level 0 the range grows with every table
    /// taken until no other level-0 table meets it. Level-0 tables overlap one another, and
    /// moving a newer one down while an older one holding the same key stays above would let the
    /// older version shadow the newer.
    pub fn compaction_inputs(
        &self,
        level: usize,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> Vec<Arc<FileMeta>> {
        let mut inputs = self.overlapping(level, lo, hi);
        if level != 0 || inputs.is_empty() {
            return inputs;
        }
        loop {
            let lo = inputs
                .iter()
                .map(|f| f.smallest_user())
                .min()
                .unwrap_or_default()
                .to_vec();
            let hi = inputs
                .iter()
                .map(|f| f.largest_user())
                .max()
                .unwrap_or_default()
                .to_vec();
            let grown = self.overlapping(0, Some(&lo), Some(&hi));
            if grown.len() == inputs.len() {
                return inputs;
            }
            inputs = grown;
        }
    }

    /// The newest version of a user key visible at a sequence in the tables, for its
    /// [`lookup_key`](crate::key::lookup_key) (built once by the caller for the memtables and the tables), counting every
    /// table probed.
    pub fn get(
        &self,
        tables: &TableCache,
        stats: &Statistics,
        lookup: &[u8],
    ) -> Result<(Lookup, Option<HitLocation>)> {
        let key = user_key(lookup);
        let mut checked = 0u64;
        // Level 0 tables may overlap and, once FSLSM floats tables up, their sequence ranges may
        // interleave: keep the newest hit and skip tables that cannot hold anything newer.
        let mut best: Option<(SequenceNumber, Vec<u8>, PinnedValue, u64)> = None;
        for f in &self.levels[0] {
            if best.as_ref().is_some_and(|b| f.largest_seq <= b.0) {
                break;
            }
            if !f.contains(key) {
                continue;
            }
            checked += 1;
            if let TableGet::Found { ikey, value } = probe(f, tables, stats, 0, lookup)? {
                let s = parse_internal_key(&ikey).map(|p| p.seq).unwrap_or(0);
                if best.as_ref().is_none_or(|b| s > b.0) {
                    best = Some((s, ikey, value, f.number));
                }
            }
        }
        let mut hit =
            best.map(|(_, ikey, value, file)| (ikey, value, HitLocation { level: 0, file }));
        if hit.is_none() {
            for (level, files) in self.levels.iter().enumerate().skip(1) {
                let i = files.partition_point(|f| f.largest_user() < key);
                let Some(f) = files.get(i).filter(|f| f.smallest_user() <= key) else {
                    continue;
                };
                checked += 1;
                if let TableGet::Found { ikey, value } = probe(f, tables, stats, level, lookup)? {
                    hit = Some((
                        ikey,
                        value,
                        HitLocation {
                            level,
                            file: f.number,
                        },
                    ));
                    break;
                }
            }
        }
        stats.add(Ticker::FilesProbed, checked);
        // A histogram takes a lock: per get, only when statistics were asked for.
        if stats.timing() {
            stats.record(HistogramKind::FilesProbedPerGet, checked);
        }
        let Some((ikey, value, at)) = hit else {
            return Ok((Lookup::Absent, None));
        };
        stats.add(Ticker::GetsFoundOnDisk, 1);
        stats.add(Ticker::FilesCheckedFound, checked);
        stats.add(
            match at.level {
                0 => Ticker::GetHitL0,
                1 => Ticker::GetHitL1,
                _ => Ticker::GetHitL2AndUp,
            },
            1,
        );
        let parsed = parse_internal_key(&ikey).ok_or_else(|| {
            Error::corruption(
                tables.path_of(at.file),
                0,
                "table returned a malformed internal key",
            )
        })?;
        let result = match parsed.kind {
            crate::key::ValueKind::Deletion => Lookup::Deleted,
            k => Lookup::Found(k, value),
        };
        Ok((result, Some(at)))
    }

    /// The version after `edit`. Tables the edit removes (and does not re-add elsewhere, as a
    /// trivial move does) are marked for deletion once unreferenced, and so are blob files whose
    /// every record became garbage: each record is referenced by exactly one table entry, and
    /// garbage is counted when a compaction drops that entry, so no table references them.
    pub fn apply(&self, edit: &VersionEdit, reaper: &Arc<FileReaper>) -> Version {
        let mut blobs = self.blobs.clone();
        for f in &edit.blob_added {
            blobs.entry(f.number).or_insert_with(|| {
                reaper
                    .blob_bytes
                    .fetch_add(f.file_size(), AtomicOrdering::Relaxed);
                BlobFileState {
                    meta: Arc::new(BlobFileMeta {
                        file: *f,
                        obsolete: AtomicBool::new(false),
                        reaper: reaper.clone(),
                    }),
                    garbage_count: 0,
                    garbage_bytes: 0,
                }
            });
        }
        for g in &edit.blob_garbage {
            if let Some(b) = blobs.get_mut(&g.number) {
                b.garbage_count = b.garbage_count.saturating_add(g.count);
                b.garbage_bytes = b.garbage_bytes.saturating_add(g.bytes);
                if b.garbage_count >= b.meta.file.count {
                    b.meta.obsolete.store(true, AtomicOrdering::Relaxed);
                    blobs.remove(&g.number);
                }
            }
        }
        let mut levels = self.levels.clone();
        while levels.len() < edit.added.iter().map(|(l, _)| l + 1).max().unwrap_or(0) {
            levels.push(Vec::new());
        }
        let mut removed: HashMap<u64, Arc<FileMeta>> = HashMap::new();
        for &(level, number) in &edit.deleted {
            if let Some(files) = levels.get_mut(level) {
                if let Some(i) = files.iter().position(|f| f.number == number) {
                    removed.insert(number, files.remove(i));
                }
            }
        }
        // Every level of a version is in its order (level 0 newest first, the others by
        // smallest key), and removing tables keeps it: each added table is inserted at its
        // place, after any equal, as a stable sort of the level would put it. Re-sorting every
        // level on every edit cost a write-heavy run on thousands of 8 KiB tables a third of
        // its CPU.
        for (level, nf) in &edit.added {
            let meta = match removed.remove(&nf.number) {
                Some(m) => m,
                None => Arc::new(FileMeta::new(nf.clone(), reaper.clone())),
            };
            let files = &mut levels[*level];
            let at = files.partition_point(|f| level_order(*level, f, &meta) != Ordering::Greater);
            files.insert(at, meta);
        }
        for f in removed.values() {
            f.obsolete.store(true, AtomicOrdering::Relaxed);
        }
        debug_assert!(levels.iter().enumerate().all(|(level, files)| files
            .windows(2)
            .all(|w| level_order(level, &w[0], &w[1]) != Ordering::Greater)));
        Version { levels, blobs }
    }

    /// Checks that levels ≥ 1 hold disjoint, ordered tables.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (level, files) in self.levels.iter().enumerate().skip(1) {
            for w in files.windows(2) {
                if w[0].largest_user().cmp(w[1].smallest_user()) != Ordering::Less {
                    return Err(format!(
                        "level {level}: tables {} and {} overlap",
                        w[0].number, w[1].number
                    ));
                }
            }
        }
        Ok(())
    }
}
