//! The lsmlab engine behind the driver's interface: `lsmlab::Db` in process, with the
//! settings mapped onto `lsmlab::Options` (its names are db_bench's, so the mapping is
//! mostly one to one; the layout preset and the shape are applied over it).

use super::settings::EngineSettings;
use super::{EngineKind, Found, Store, StoreIter, Writer};
use crate::error::{CliError, CliResult};
use crate::readout::block::{Figures, Snapshot};
use crate::readout::lsm::{ClientCounts, EngineSnapshot, LsmFigures};
use lsmlab::filename::FileKind;
use lsmlab::filter::{FilterKind, FilterOptions};
use lsmlab::{Compression, Db, DbIterator, Layout, Options, ReadOptions, WriteBatch, WriteOptions};
use std::path::Path;

/// The error for a command that needs an existing database at `path` and finds no CURRENT
/// file: if the directory holds database files, it is a damaged database and the advice is
/// `lsmlab check`; only a directory without any is told how to make one (`load`), since making
/// one deletes what is there.
pub fn no_database(what: &str, path: &str, load: &str) -> CliError {
    let owned = std::fs::read_dir(path).map_or(Vec::new(), |d| {
        d.filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| lsmlab::filename::parse(n).is_some_and(|(k, _)| k != FileKind::Lock))
            .collect()
    });
    match owned.first() {
        Some(n) => CliError::new(format!(
            "{what}: {path} holds database files ({n}, {} in all) but no CURRENT file: a damaged database; run `lsmlab check {path}` and keep the directory until it is understood",
            owned.len()
        )),
        None => CliError::new(format!(
            "{what}: no database at {path} (no CURRENT file); {load}"
        )),
    }
}

/// lsmlab's options for `s`. Range checks are `Options::validate`'s.
pub fn options(s: &EngineSettings) -> Options {
    let mut o = Options {
        write_buffer_size: s.write_buffer_size,
        max_write_buffer_number: s.max_write_buffer_number,
        db_write_buffer_size: s.db_write_buffer_size,
        level0_file_num_compaction_trigger: s.level0_file_num_compaction_trigger,
        level0_slowdown_writes_trigger: s.level0_slowdown_writes_trigger,
        level0_stop_writes_trigger: s.level0_stop_writes_trigger,
        delayed_write_rate: s.delayed_write_rate,
        bytes_per_sync: s.bytes_per_sync,
        allow_mmap_reads: s.mmap_read,
        max_bytes_for_level_base: s.max_bytes_for_level_base,
        max_bytes_for_level_multiplier: s.max_bytes_for_level_multiplier,
        level_compaction_dynamic_level_bytes: s.level_compaction_dynamic_level_bytes,
        target_file_size_base: s.target_file_size_base,
        num_levels: s.num_levels,
        max_background_jobs: s.max_background_jobs,
        block_size: s.block_size,
        block_restart_interval: s.block_restart_interval,
        compression: s.compression_type,
        compression_per_level: match s.min_level_to_compress {
            // As db_bench: levels below the minimum uncompressed, the rest as asked.
            Some(min) => (0..s.num_levels)
                .map(|l| {
                    if l < min {
                        Compression::None
                    } else {
                        s.compression_type
                    }
                })
                .collect(),
            None => Vec::new(),
        },
        wal_dir: s.wal_dir.clone().map(Into::into),
        block_cache_size: s.cache_size,
        filter: FilterOptions {
            bits_per_key: s.bloom_bits.max(0.0),
            kind: if s.use_ribbon_filter {
                FilterKind::Ribbon
            } else {
                FilterKind::Bloom
            },
            bloom_before_level: s.bloom_before_level,
            optimize_filters_for_hits: s.optimize_filters_for_hits,
            bits_per_key_per_level: s.lsmlab.bloom_bits_per_level.clone(),
            allocation: s.lsmlab.bloom_allocation,
            ..FilterOptions::default()
        },
        statistics: s.statistics,
        disable_auto_compactions: s.disable_auto_compactions,
        enable_blob_files: s.enable_blob_files,
        min_blob_size: s.min_blob_size,
        blob_file_size: s.blob_file_size,
        blob_compression_type: s.blob_compression_type,
        enable_blob_garbage_collection: s.enable_blob_garbage_collection,
        blob_garbage_collection_age_cutoff: s.blob_garbage_collection_age_cutoff,
        blob_garbage_collection_force_threshold: s.blob_garbage_collection_force_threshold,
        max_files_for_level_base: s.lsmlab.max_files_for_level_base,
        max_obsolete_percent: s.lsmlab.max_obsolete_percent,
        deterministic_background: s.lsmlab.deterministic_background,
        compaction_victims: s.lsmlab.compaction_victims,
        ..Options::default()
    };
    let l = &s.lsmlab;
    o.fslsm = l.fslsm.clone();
    o.universal = l.universal.clone();
    if l.universal_compaction {
        o.layout = Layout::Universal;
    }
    if !l.layout.is_empty() {
        // The preset overrides the blob settings (wisckey and fslsm separate every value) and,
        // for an ablation (`fslsm-nostretch`, `fslsm-nofloat`), one FSLSM field: so it comes
        // after the FSLSM settings. A name the engine does not know leaves the options as the
        // other settings made them; the drivers refuse it before opening.
        let _ = o.apply_layout_preset(&l.layout);
    }
    if !l.shape.is_empty() {
        // The settings a shape sets may not be given with it (`support::check`), so it
        // overrides only their defaults.
        let _ = o.apply_shape(&l.shape);
    }
    o
}

/// The options of every write.
pub fn write_options(s: &EngineSettings) -> WriteOptions {
    WriteOptions {
        sync: s.sync,
        disable_wal: s.disable_wal,
    }
}

/// An open lsmlab database.
pub struct LsmlabStore {
    db: Db,
    path: String,
    write_options: WriteOptions,
}

fn err(what: &str, e: lsmlab::Error) -> CliError {
    CliError::new(format!("{what}: {e}"))
}

/// Removes the lsmlab database at `s.path` (and its WALs, wherever `s` puts them).
pub fn destroy(s: &EngineSettings) -> CliResult<()> {
    let path = &s.path;
    Db::destroy(path, &options(s)).map_err(|e| CliError::new(format!("destroy {path}: {e}")))
}

impl LsmlabStore {
    /// Opens (or with `create_if_missing` creates) the database at `s.path`.
    pub fn open(s: &EngineSettings, create_if_missing: bool) -> CliResult<LsmlabStore> {
        let path = &s.path;
        let opts = Options {
            create_if_missing,
            ..options(s)
        };
        let db = Db::open(path, opts).map_err(|e| CliError::new(format!("open {path}: {e}")))?;
        Ok(LsmlabStore {
            db,
            path: path.to_string(),
            write_options: write_options(s),
        })
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.db
    }
}

struct LsmlabWriter<'a> {
    store: &'a LsmlabStore,
    batch: WriteBatch,
}

impl Writer for LsmlabWriter<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) {
        self.batch.put(key, value);
    }

    fn delete(&mut self, key: &[u8]) {
        self.batch.delete(key);
    }

    fn commit(&mut self) -> CliResult<()> {
        // The next batch is allocated once at this one's size (a write batch that grows
        // reallocates, and calloc skips glibc's thread cache).
        let size = self.batch.approximate_size();
        let batch = std::mem::replace(&mut self.batch, WriteBatch::with_capacity(size));
        self.store
            .db
            .write(&self.store.write_options, batch)
            .map_err(|e| err("write error", e))
    }
}

struct LsmlabIter(DbIterator);

super::pass_through::pass_through_iter!(LsmlabIter);

/// The `--statistics` dump: the engine's tickers and histograms (float-ups among them), plus
/// lsmlab's filter lines and the layout's state: read ratio (per mille), level 0's trigger and
/// each level's target bytes now.
pub fn statistics_text(db: &Db) -> String {
    let mut s = db.statistics().to_rocksdb_string();
    let levels = db.options().num_levels.saturating_sub(1);
    let mut names = vec![
        "lsmlab.filter.bytes".to_string(),
        "lsmlab.filter.keys".to_string(),
        "lsmlab.read-ratio-permille".to_string(),
        "lsmlab.level0-compaction-trigger".to_string(),
    ];
    names.extend((1..levels).map(|l| format!("lsmlab.max-bytes-for-level{l}")));
    for name in &names {
        let v = db
            .property_int(name)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "n/a".to_string());
        s.push_str(&format!("{name} COUNT : {v}\n"));
    }
    s
}

impl Store for LsmlabStore {
    fn kind(&self) -> EngineKind {
        EngineKind::Lsmlab
    }

    fn writer(&self) -> Box<dyn Writer + '_> {
        Box::new(LsmlabWriter {
            store: self,
            batch: WriteBatch::new(),
        })
    }

    fn get(&self, key: &[u8], value: &mut Vec<u8>) -> CliResult<Found> {
        // Into the caller's buffer, reused from get to get, as the RocksDB engine copies out of
        // its pinned slice: no allocation per get.
        match self
            .db
            .get_pinned(&ReadOptions::default(), key)
            .map_err(|e| err("get error", e))?
        {
            Some(v) => {
                super::copy_value(value, &v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn get_len(&self, key: &[u8]) -> CliResult<Option<usize>> {
        let v = self
            .db
            .get_pinned(&ReadOptions::default(), key)
            .map_err(|e| err("get error", e))?;
        Ok(v.map(|v| v.len()))
    }

    fn iter(&self) -> CliResult<Box<dyn StoreIter + '_>> {
        let it = self
            .db
            .iter(&ReadOptions::default())
            .map_err(|e| err("iterator error", e))?;
        Ok(Box::new(LsmlabIter(it)))
    }

    fn flush(&self) -> CliResult<()> {
        self.db.flush().map_err(|e| err("flush error", e))
    }

    fn compact_all(&self) -> CliResult<()> {
        self.db
            .compact_range(None, None)
            .map_err(|e| err("compact error", e))
    }

    fn wait_for_background_work(&self) -> CliResult<()> {
        self.db
            .wait_for_background_work()
            .map_err(|e| err("waitforcompaction", e))
    }

    fn property(&self, name: &str) -> Option<String> {
        self.db.property(name)
    }

    fn statistics_text(&self) -> String {
        statistics_text(&self.db)
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot::Lsmlab(EngineSnapshot::take(&self.db))
    }

    fn figures(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        db_path: &Path,
        client: ClientCounts,
    ) -> Figures {
        let (Snapshot::Lsmlab(b), Snapshot::Lsmlab(a)) = (before, after) else {
            // Snapshots of another engine: nothing to compare, so nothing measured.
            return Figures::Lsmlab(Box::default());
        };
        Figures::Lsmlab(Box::new(LsmFigures::between(
            b, a, &self.db, db_path, client,
        )))
    }

    fn close(self: Box<Self>) -> CliResult<()> {
        let path = self.path.clone();
        self.db
            .close()
            .map_err(|e| CliError::new(format!("close {path}: {e}")))
    }

    fn reopen_fresh(self: Box<Self>, s: &EngineSettings) -> CliResult<Box<dyn Store>> {
        self.close()?;
        destroy(s)?;
        Ok(Box::new(LsmlabStore::open(s, true)?))
    }
}
