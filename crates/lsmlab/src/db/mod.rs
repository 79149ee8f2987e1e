//! PLACEHOLDER for the helpers' worktrees: the public API of the database with an in-memory map
//! behind it. The real engine replaces this file; the signatures stay.

use crate::env::{Env, IoStats};
use crate::error::Result;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::stats::Statistics;
use crate::WriteBatch;
use parking_lot::RwLock;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A consistent read view.
#[derive(Clone)]
pub struct Snapshot {
    seq: u64,
}

impl Snapshot {
    /// The sequence number the snapshot reads at.
    pub fn sequence(&self) -> u64 {
        self.seq
    }
}

/// An open database; share it between threads (it is `Send + Sync`).
pub struct Db {
    map: RwLock<BTreeMap<Vec<u8>, Vec<u8>>>,
    stats: Arc<Statistics>,
    env: Env,
}

impl Db {
    /// Opens (creating if allowed) the database at `path`.
    pub fn open(_path: impl AsRef<Path>, options: Options) -> Result<Db> {
        options.validate()?;
        Ok(Db {
            map: RwLock::new(BTreeMap::new()),
            stats: Arc::new(Statistics::new()),
            env: Env::new(options.fs.clone()),
        })
    }
    /// Deletes every file of the database at `path`.
    pub fn destroy(_path: impl AsRef<Path>, _options: &Options) -> Result<()> {
        Ok(())
    }
    /// Sets `key` to `value`.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.map.write().insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    /// Deletes `key`.
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.map.write().remove(key);
        Ok(())
    }
    /// Applies a batch atomically.
    pub fn write(&self, _opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let mut m = self.map.write();
        for r in batch.records() {
            match r.kind {
                crate::key::ValueKind::Deletion => m.remove(r.key),
                _ => m.insert(r.key.to_vec(), r.value.to_vec()),
            };
        }
        Ok(())
    }
    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.map.read().get(key).cloned())
    }
    /// The value of `key` with read options (snapshot).
    pub fn get_with(&self, _opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get(key)
    }
    /// A cursor over the database.
    pub fn iter(&self, _opts: &ReadOptions) -> Result<DbIterator> {
        Ok(DbIterator {
            items: self
                .map
                .read()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            pos: None,
        })
    }
    /// A snapshot of the current state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { seq: 0 }
    }
    /// Flushes the memtable to a table.
    pub fn flush(&self) -> Result<()> {
        Ok(())
    }
    /// Compacts the key range (all with `None, None`).
    pub fn compact_range(&self, _begin: Option<&[u8]>, _end: Option<&[u8]>) -> Result<()> {
        Ok(())
    }
    /// Waits until no flush or compaction is pending or running.
    pub fn wait_for_background_work(&self) -> Result<()> {
        Ok(())
    }
    /// A RocksDB-named property (`rocksdb.stats`, `rocksdb.num-files-at-level0`, …).
    pub fn property(&self, _name: &str) -> Option<String> {
        None
    }
    /// A numeric property.
    pub fn property_int(&self, _name: &str) -> Option<u64> {
        None
    }
    /// Tickers and histograms.
    pub fn statistics(&self) -> Arc<Statistics> {
        self.stats.clone()
    }
    /// Bytes and pages per I/O category.
    pub fn io_stats(&self) -> Arc<IoStats> {
        self.env.io.clone()
    }
    /// Flushes nothing, stops background work and releases the lock.
    pub fn close(self) -> Result<()> {
        Ok(())
    }
}

/// A bidirectional cursor over user keys.
pub struct DbIterator {
    items: Vec<(Vec<u8>, Vec<u8>)>,
    pos: Option<usize>,
}

impl DbIterator {
    /// True when positioned at an entry.
    pub fn valid(&self) -> bool {
        self.pos.is_some()
    }
    /// To the first key.
    pub fn seek_to_first(&mut self) {
        self.pos = if self.items.is_empty() { None } else { Some(0) };
    }
    /// To the last key.
    pub fn seek_to_last(&mut self) {
        self.pos = self.items.len().checked_sub(1);
    }
    /// To the first key ≥ `key`.
    pub fn seek(&mut self, key: &[u8]) {
        let i = self.items.partition_point(|(k, _)| k.as_slice() < key);
        self.pos = (i < self.items.len()).then_some(i);
    }
    /// To the last key ≤ `key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        let i = self.items.partition_point(|(k, _)| k.as_slice() <= key);
        self.pos = i.checked_sub(1);
    }
    /// To the next key.
    pub fn next(&mut self) {
        self.pos = self
            .pos
            .and_then(|p| (p + 1 < self.items.len()).then_some(p + 1));
    }
    /// To the previous key.
    pub fn prev(&mut self) {
        self.pos = self.pos.and_then(|p| p.checked_sub(1));
    }
    /// The current key.
    pub fn key(&self) -> &[u8] {
        &self.items[self.pos.unwrap_or(0)].0
    }
    /// The current value.
    pub fn value(&self) -> &[u8] {
        &self.items[self.pos.unwrap_or(0)].1
    }
    /// The first error met.
    pub fn status(&self) -> Result<()> {
        Ok(())
    }
}
