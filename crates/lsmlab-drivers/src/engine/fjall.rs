//! fjall behind the driver's interface: the fjall crate (a pure-Rust LSM-tree engine), built in
//! with the cargo feature `fjall`. The benchmark's data lives in one keyspace (fjall's column
//! family) of one database; the settings fjall can take are mapped onto the database and the
//! keyspace, the others refused (`support.rs`, table in docs/engines.md).

use super::settings::EngineSettings;
use super::support::{FJALL_BLOCK_SIZES, FJALL_LEVELS, FJALL_MIN_JOURNAL};
use super::{copy_value, EngineKind, Found, Store, StoreIter, Writer};
use crate::error::{CliError, CliResult};
use crate::readout::block::{Figures, Snapshot};
use crate::readout::counters::CounterSnapshot;
use crate::readout::foreign::ForeignFigures;
use crate::readout::lsm::ClientCounts;
use fjall::config::{
    BlockSizePolicy, BloomConstructionPolicy, CompressionPolicy, FilterPolicy, FilterPolicyEntry,
    RestartIntervalPolicy,
};
use fjall::{
    CompressionType, Database, Keyspace, KeyspaceCreateOptions, KvSeparationOptions, PersistMode,
    Readable, UserKey, UserValue,
};
use lsmlab::Compression;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

/// The keyspace the benchmarks write to.
const KEYSPACE: &str = "lsmlab";

/// The file fjall writes first into a database directory: its presence tells a fjall database
/// from any other directory.
const VERSION_MARKER: &str = "version";

/// `fjall 3.1.13 (the fjall crate from crates.io, pure Rust, built in)`.
pub fn describe() -> String {
    format!(
        "fjall {} (the fjall crate from crates.io, pure Rust, built in)",
        env!("LSMLAB_FJALL_VERSION")
    )
}

/// Removes the fjall database at `path` (nothing if there is none). A directory that holds
/// files but no fjall database is left alone, so that a mistyped `--db` removes nothing else.
pub fn destroy(path: &str) -> CliResult<()> {
    let dir = Path::new(path);
    let is_empty = |d: &Path| {
        d.read_dir()
            .map(|mut e| e.next().is_none())
            .unwrap_or(false)
    };
    if !dir.exists() || (!dir.join(VERSION_MARKER).exists() && is_empty(dir)) {
        return Ok(());
    }
    if !dir.join(VERSION_MARKER).exists() {
        return Err(CliError::new(format!(
            "destroy {path}: not a fjall database (no {VERSION_MARKER} file); remove it yourself"
        )));
    }
    std::fs::remove_dir_all(dir).map_err(|e| CliError::new(format!("destroy {path}: {e}")))
}

/// The error of `what` on the database at `path`.
fn fjall_err(what: &str, path: &str) -> impl Fn(fjall::Error) -> CliError {
    let (what, path) = (what.to_string(), path.to_string());
    move |e| CliError::new(format!("{what} {path}: {e}"))
}

/// fjall's compression for one of lsmlab's. `support.rs` lets only none and lz4 through when
/// given; the default, snappy (db_bench's), which fjall does not have, becomes lz4, fjall's
/// own codec, so that a command line without the flag compresses on every engine.
fn compression_of(c: Compression) -> CompressionType {
    match c {
        Compression::None => CompressionType::None,
        Compression::Lz4 | Compression::Snappy | Compression::Zstd => CompressionType::Lz4,
    }
}

/// The keyspace's options from the settings. fjall stores them when it creates the keyspace and
/// a reopened database recovers them, so they apply to a new database only.
fn keyspace_options(s: &EngineSettings) -> KeyspaceCreateOptions {
    let data = compression_of(s.compression_type);
    // Levels above `min_level_to_compress` are written as they are; fjall's policy is one
    // entry per level, its last entry standing for every level below.
    let compression = match s.min_level_to_compress {
        Some(n) if data != CompressionType::None => {
            let mut levels = vec![CompressionType::None; n.min(FJALL_LEVELS)];
            levels.push(data);
            CompressionPolicy::new(levels)
        }
        _ => CompressionPolicy::all(data),
    };
    let filter = if s.bloom_bits > 0.0 {
        FilterPolicy::all(FilterPolicyEntry::Bloom(
            BloomConstructionPolicy::BitsPerKey(s.bloom_bits as f32),
        ))
    } else {
        FilterPolicy::disabled()
    };
    let leveled = fjall::compaction::Leveled::default()
        .with_l0_threshold(u8::try_from(s.level0_file_num_compaction_trigger).unwrap_or(u8::MAX))
        .with_table_target_size(s.target_file_size_base)
        .with_level_ratio_policy(vec![s.max_bytes_for_level_multiplier as f32]);
    let mut o = KeyspaceCreateOptions::default()
        .max_memtable_size(s.write_buffer_size as u64)
        .data_block_size_policy(BlockSizePolicy::all(
            u32::try_from(
                s.block_size
                    .clamp(*FJALL_BLOCK_SIZES.start(), *FJALL_BLOCK_SIZES.end()),
            )
            .unwrap_or(u32::MAX),
        ))
        .data_block_restart_interval_policy(RestartIntervalPolicy::all(
            u8::try_from(s.block_restart_interval.max(1)).unwrap_or(u8::MAX),
        ))
        .data_block_compression_policy(compression)
        .filter_policy(filter)
        .compaction_strategy(Arc::new(leveled));
    if s.enable_blob_files {
        let kv = KvSeparationOptions::default()
            .compression(compression_of(s.blob_compression_type))
            .file_target_size(s.blob_file_size)
            .separation_threshold(u32::try_from(s.min_blob_size).unwrap_or(u32::MAX))
            // fjall's compactions relocate the live values of the oldest `age_cutoff` share of
            // the blob files (those over its staleness threshold): RocksDB's age cutoff. No
            // garbage collection is a cutoff of 0; blob files wholly dead are dropped either way.
            .age_cutoff(if s.enable_blob_garbage_collection {
                s.blob_garbage_collection_age_cutoff as f32
            } else {
                0.0
            });
        o = o.with_kv_separation(Some(kv));
    }
    o
}

/// An open fjall database and the keyspace the benchmarks use.
pub struct FjallStore {
    db: Database,
    ks: Keyspace,
    path: String,
    sync: bool,
}

impl FjallStore {
    /// Opens (or with `create_if_missing` creates) the database at `s.path`.
    pub fn open(s: &EngineSettings, create_if_missing: bool) -> CliResult<FjallStore> {
        let path = &s.path;
        if !create_if_missing && !Path::new(path).join(VERSION_MARKER).exists() {
            return Err(CliError::new(format!(
                "open {path}: no fjall database there (use_existing_db)"
            )));
        }
        let mut b = Database::builder(path)
            .cache_size(s.cache_size as u64)
            .worker_threads(s.max_background_jobs.max(1));
        // A database-wide budget holds fjall's journal, whose limit seals and flushes its
        // memtables, to the same bytes, at fjall's smallest journal of 64 MiB. fjall 3.1's own
        // write-buffer limit (`max_write_buffer_size`) is stored and never read.
        if s.db_write_buffer_size > 0 {
            b = b.max_journaling_size((s.db_write_buffer_size as u64).max(FJALL_MIN_JOURNAL));
        }
        // Without the WAL's sync the journal is written to the OS on every batch, as RocksDB's
        // WAL is; `--sync` asks for fdatasync per batch (`Writer::commit`).
        b = b.manual_journal_persist(false);
        let db = b.open().map_err(fjall_err("open", path))?;
        if !create_if_missing && !db.keyspace_exists(KEYSPACE) {
            return Err(CliError::new(format!(
                "open {path}: the fjall database has no keyspace {KEYSPACE:?} (use_existing_db)"
            )));
        }
        let ks = db
            .keyspace(KEYSPACE, || keyspace_options(s))
            .map_err(fjall_err("open keyspace of", path))?;
        Ok(FjallStore {
            db,
            ks,
            path: path.clone(),
            sync: s.sync,
        })
    }

    /// The counters the figures are deltas of.
    fn counters(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            (
                "fjall.compactions.completed".to_string(),
                self.db.compactions_completed() as f64,
            ),
            (
                "fjall.compaction.micros".to_string(),
                self.db.time_compacting().as_micros() as f64,
            ),
        ])
    }

    /// What fjall tells of itself, one `name : value` a line (the `rocksdb.stats` answer and
    /// the `--statistics` dump).
    fn stats_text(&self) -> String {
        let journal = self
            .db
            .journal_disk_space()
            .map_or_else(|e| format!("error: {e}"), |b| b.to_string());
        let lines = [
            ("fjall.tables", self.ks.table_count().to_string()),
            ("fjall.l0.tables", self.ks.l0_table_count().to_string()),
            ("fjall.blob.files", self.ks.blob_file_count().to_string()),
            ("fjall.keyspace.bytes", self.ks.disk_space().to_string()),
            ("fjall.journal.bytes", journal),
            ("fjall.journals", self.db.journal_count().to_string()),
            (
                "fjall.sealed.memtables",
                self.ks.sealed_memtable_count().to_string(),
            ),
            (
                "fjall.write.buffer.bytes",
                self.db.write_buffer_size().to_string(),
            ),
            ("fjall.cache.bytes", self.db.cache_size().to_string()),
            ("fjall.cache.capacity", self.db.cache_capacity().to_string()),
            (
                "fjall.compactions.completed",
                self.db.compactions_completed().to_string(),
            ),
            (
                "fjall.compactions.active",
                self.db.active_compactions().to_string(),
            ),
            (
                "fjall.compaction.micros",
                self.db.time_compacting().as_micros().to_string(),
            ),
        ];
        lines
            .iter()
            .map(|(n, v)| format!("{n} COUNT : {v}\n"))
            .collect()
    }
}

struct FjallWriter<'a> {
    store: &'a FjallStore,
    batch: Option<fjall::OwnedWriteBatch>,
}

impl FjallWriter<'_> {
    /// The batch being filled; fjall's batch is consumed by its commit, so a new one follows.
    fn batch(&mut self) -> &mut fjall::OwnedWriteBatch {
        let (db, sync) = (&self.store.db, self.store.sync);
        self.batch.get_or_insert_with(|| {
            let b = db.batch();
            if sync {
                b.durability(Some(PersistMode::SyncData))
            } else {
                b
            }
        })
    }
}

impl Writer for FjallWriter<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) {
        let ks = &self.store.ks;
        self.batch().insert(ks, key, value);
    }

    fn delete(&mut self, key: &[u8]) {
        let ks = &self.store.ks;
        self.batch().remove(ks, key);
    }

    fn commit(&mut self) -> CliResult<()> {
        match self.batch.take() {
            Some(b) => b
                .commit()
                .map_err(|e| CliError::new(format!("write error: {e}"))),
            None => Ok(()),
        }
    }
}

/// Which way the iterator last moved: the open range iterator runs that way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Backward,
}

/// A positioned iterator over one snapshot. fjall's iterators are ranges without a seek, so a
/// seek (or a turn) opens a new range at the position, on the same snapshot: every step sees
/// the state the iterator was created on.
struct FjallIter<'a> {
    snapshot: fjall::Snapshot,
    ks: &'a Keyspace,
    range: Option<fjall::Iter>,
    direction: Direction,
    current: Option<(UserKey, UserValue)>,
    error: Option<String>,
}

impl FjallIter<'_> {
    fn open(&mut self, from: Bound<Vec<u8>>, to: Bound<Vec<u8>>, direction: Direction) {
        self.range = Some(self.snapshot.range(self.ks, (from, to)));
        self.direction = direction;
        self.step();
    }

    /// Takes the next entry of the open range, the way it runs.
    fn step(&mut self) {
        let item = match (&mut self.range, self.direction) {
            (Some(r), Direction::Forward) => r.next(),
            (Some(r), Direction::Backward) => r.next_back(),
            (None, _) => None,
        };
        self.current = match item.map(fjall::Guard::into_inner) {
            Some(Ok(kv)) => Some(kv),
            Some(Err(e)) => {
                self.error = Some(e.to_string());
                None
            }
            None => None,
        };
    }
}

impl StoreIter for FjallIter<'_> {
    fn seek_to_first(&mut self) {
        self.open(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
    }
    fn seek_to_last(&mut self) {
        self.open(Bound::Unbounded, Bound::Unbounded, Direction::Backward);
    }
    fn seek(&mut self, key: &[u8]) {
        self.open(
            Bound::Included(key.to_vec()),
            Bound::Unbounded,
            Direction::Forward,
        );
    }
    fn seek_for_prev(&mut self, key: &[u8]) {
        self.open(
            Bound::Unbounded,
            Bound::Included(key.to_vec()),
            Direction::Backward,
        );
    }
    fn next(&mut self) {
        match (&self.current, self.direction) {
            (Some(_), Direction::Forward) => self.step(),
            (Some((k, _)), Direction::Backward) => {
                let from = Bound::Excluded(k.to_vec());
                self.open(from, Bound::Unbounded, Direction::Forward);
            }
            (None, _) => {}
        }
    }
    fn prev(&mut self) {
        match (&self.current, self.direction) {
            (Some(_), Direction::Backward) => self.step(),
            (Some((k, _)), Direction::Forward) => {
                let to = Bound::Excluded(k.to_vec());
                self.open(Bound::Unbounded, to, Direction::Backward);
            }
            (None, _) => {}
        }
    }
    fn valid(&self) -> bool {
        self.current.is_some()
    }
    fn key(&self) -> &[u8] {
        self.current.as_ref().map_or(&[], |(k, _)| k)
    }
    fn value(&self) -> &[u8] {
        self.current.as_ref().map_or(&[], |(_, v)| v)
    }
    fn status(&self) -> CliResult<()> {
        match &self.error {
            Some(e) => Err(CliError::new(format!("iterator error: {e}"))),
            None => Ok(()),
        }
    }
}

impl Store for FjallStore {
    fn kind(&self) -> EngineKind {
        EngineKind::Fjall
    }

    fn writer(&self) -> Box<dyn Writer + '_> {
        Box::new(FjallWriter {
            store: self,
            batch: None,
        })
    }

    fn get(&self, key: &[u8], value: &mut Vec<u8>) -> CliResult<Found> {
        match self.ks.get(key) {
            Ok(Some(v)) => {
                copy_value(value, &v);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(e) => Err(CliError::new(format!("get error: {e}"))),
        }
    }

    fn get_len(&self, key: &[u8]) -> CliResult<Option<usize>> {
        // A get, not fjall's `size_of`: on a key-value separated keyspace `size_of` answers from
        // the blob pointer without reading the blob, a lookup that skips the value read every
        // other engine pays. fjall hands the value out in a shared slice, left unread here.
        self.ks
            .get(key)
            .map(|v| v.map(|v| v.len()))
            .map_err(|e| CliError::new(format!("get error: {e}")))
    }

    fn iter(&self) -> CliResult<Box<dyn StoreIter + '_>> {
        Ok(Box::new(FjallIter {
            snapshot: self.db.snapshot(),
            ks: &self.ks,
            range: None,
            direction: Direction::Forward,
            current: None,
            error: None,
        }))
    }

    fn flush(&self) -> CliResult<()> {
        self.ks
            .rotate_memtable_and_wait()
            .map_err(|e| CliError::new(format!("flush {}: {e}", self.path)))
    }

    fn compact_all(&self) -> CliResult<()> {
        self.ks
            .major_compact()
            .map_err(|e| CliError::new(format!("compact {}: {e}", self.path)))
    }

    fn wait_for_background_work(&self) -> CliResult<()> {
        Err(CliError::new(format!(
            "waitforcompaction: {}",
            super::support::FJALL_CANNOT_WAIT
        )))
    }

    fn property(&self, name: &str) -> Option<String> {
        match name {
            "rocksdb.stats" => Some(self.stats_text()),
            "rocksdb.num-files-at-level0" => Some(self.ks.l0_table_count().to_string()),
            _ => None,
        }
    }

    fn statistics_text(&self) -> String {
        // fjall has no statistics object: what its database and keyspace report.
        self.stats_text()
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot::Counters(CounterSnapshot::now(self.counters()))
    }

    fn figures(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        db_path: &Path,
        client: ClientCounts,
    ) -> Figures {
        let (Snapshot::Counters(b), Snapshot::Counters(a)) = (before, after) else {
            return Figures::Foreign(Box::default());
        };
        let mut f = ForeignFigures::common("fjall", b, a, db_path, client);
        f.compactions = a
            .delta(b, "fjall.compactions.completed")
            .map(|v| v.round() as u64);
        f.compaction_seconds = a
            .delta(b, "fjall.compaction.micros")
            .map(|v| v / 1_000_000.0);
        // The keyspace's tables and blob files: fjall counts them together.
        f.sst_files_bytes = Some(self.ks.disk_space());
        f.memtable_bytes = Some(self.db.write_buffer_size());
        f.block_cache_bytes = Some(self.db.cache_size());
        // fjall tells level 0 apart and the total, not each level below: the counts go in the
        // layout line, and files per level stays n/a.
        f.layout = format!(
            "leveled (fjall: 7 levels, L1 = target_file_size_base x L0 trigger); {} tables, {} in L0",
            self.ks.table_count(),
            self.ks.l0_table_count()
        );
        Figures::Foreign(Box::new(f.finish()))
    }

    fn close(self: Box<Self>) -> CliResult<()> {
        let path = self.path.clone();
        self.db
            .persist(PersistMode::SyncAll)
            .map_err(fjall_err("close", &path))?;
        drop(self);
        Ok(())
    }

    fn reopen_fresh(self: Box<Self>, s: &EngineSettings) -> CliResult<Box<dyn Store>> {
        // fjall has no statistics object to keep: a new store.
        drop(self);
        destroy(&s.path)?;
        Ok(Box::new(FjallStore::open(s, true)?))
    }
}
