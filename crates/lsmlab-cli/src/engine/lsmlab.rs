//! The lsmlab engine behind the driver's interface: `lsmlab::Db` in process.

use super::{EngineKind, Found, Store, StoreIter, Writer};
use crate::bench::flags::BenchFlags;
use crate::error::{CliError, CliResult};
use crate::report::engine::{ClientCounts, EngineSnapshot, LsmFigures};
use crate::report::figures::{Figures, Snapshot};
use lsmlab::{Db, DbIterator, ReadOptions, WriteBatch, WriteOptions};
use std::path::Path;

/// An open lsmlab database.
pub struct LsmlabStore {
    db: Db,
    path: String,
    write_options: WriteOptions,
}

fn err(what: &str, e: lsmlab::Error) -> CliError {
    CliError::new(format!("{what}: {e}"))
}

/// Removes the lsmlab database at `path`.
pub fn destroy(path: &str, flags: &BenchFlags) -> CliResult<()> {
    Db::destroy(path, &flags.options()).map_err(|e| CliError::new(format!("destroy {path}: {e}")))
}

impl LsmlabStore {
    /// Opens (or with `create_if_missing` creates) the database at `path`.
    pub fn open(path: &str, flags: &BenchFlags, create_if_missing: bool) -> CliResult<LsmlabStore> {
        let opts = lsmlab::Options {
            create_if_missing,
            ..flags.options()
        };
        let db = Db::open(path, opts).map_err(|e| CliError::new(format!("open {path}: {e}")))?;
        Ok(LsmlabStore {
            db,
            path: path.to_string(),
            write_options: flags.write_options(),
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

impl StoreIter for LsmlabIter {
    fn seek_to_first(&mut self) {
        self.0.seek_to_first();
    }
    fn seek_to_last(&mut self) {
        self.0.seek_to_last();
    }
    fn seek(&mut self, key: &[u8]) {
        self.0.seek(key);
    }
    fn seek_for_prev(&mut self, key: &[u8]) {
        self.0.seek_for_prev(key);
    }
    fn next(&mut self) {
        self.0.next();
    }
    fn prev(&mut self) {
        self.0.prev();
    }
    fn valid(&self) -> bool {
        self.0.valid()
    }
    fn key(&self) -> &[u8] {
        self.0.key()
    }
    fn value(&self) -> &[u8] {
        self.0.value()
    }
    fn status(&self) -> CliResult<()> {
        self.0.status().map_err(|e| err("iterator error", e))
    }
}

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

    fn reopen_fresh(self: Box<Self>, path: &str, flags: &BenchFlags) -> CliResult<Box<dyn Store>> {
        self.close()?;
        destroy(path, flags)?;
        Ok(Box::new(LsmlabStore::open(path, flags, true)?))
    }
}
