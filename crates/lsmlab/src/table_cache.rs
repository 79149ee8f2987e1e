//! Open table readers, one per live table, kept open for the life of the table (as RocksDB's
//! `max_open_files = -1`): their index and filter blocks stay in memory.

use crate::cache::BlockCache;
use crate::env::Env;
use crate::error::Result;
use crate::filename::table_path;
use crate::sst::TableReader;
use crate::stats::Statistics;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The open tables of a database.
pub struct TableCache {
    env: Env,
    dir: PathBuf,
    block_cache: Option<Arc<BlockCache>>,
    stats: Arc<Statistics>,
    readers: RwLock<HashMap<u64, Arc<TableReader>>>,
}

impl TableCache {
    /// An empty cache for the tables of `dir`.
    pub fn new(
        env: Env,
        dir: PathBuf,
        block_cache: Option<Arc<BlockCache>>,
        stats: Arc<Statistics>,
    ) -> TableCache {
        TableCache {
            env,
            dir,
            block_cache,
            stats,
            readers: RwLock::new(HashMap::new()),
        }
    }

    /// The reader of table `number`, opening it on first use.
    pub fn get(&self, number: u64) -> Result<Arc<TableReader>> {
        if let Some(r) = self.readers.read().get(&number) {
            return Ok(r.clone());
        }
        let path = table_path(&self.dir, number);
        let file = self.env.open_random(&path)?;
        let reader = Arc::new(TableReader::open(
            file,
            path,
            number,
            self.block_cache.clone(),
            self.stats.clone(),
        )?);
        Ok(self.readers.write().entry(number).or_insert(reader).clone())
    }

    /// Path of table `number`.
    pub fn path_of(&self, number: u64) -> PathBuf {
        table_path(&self.dir, number)
    }

    /// Forgets table `number` (its file is being deleted).
    pub fn evict(&self, number: u64) {
        self.readers.write().remove(&number);
    }

    /// Sums `f` over the open readers.
    pub fn sum(&self, f: impl Fn(&TableReader) -> u64) -> u64 {
        self.readers.read().values().map(|r| f(r)).sum()
    }

    /// The block cache, if any.
    pub fn block_cache(&self) -> Option<&Arc<BlockCache>> {
        self.block_cache.as_ref()
    }
}
