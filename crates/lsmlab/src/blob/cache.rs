//! Open blob-file readers, one per blob file read since it was created or the database opened.

use super::{BlobFileReader, BlobIndex};
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::blob_path;
use crate::pinned::PinnedValue;
use crate::stats::{Statistics, Ticker};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The open blob files of a database.
pub struct BlobCache {
    env: Env,
    dir: PathBuf,
    stats: Arc<Statistics>,
    readers: RwLock<HashMap<u64, Arc<BlobFileReader>>>,
}

impl BlobCache {
    /// An empty cache for the blob files of `dir`.
    pub fn new(env: Env, dir: PathBuf, stats: Arc<Statistics>) -> BlobCache {
        BlobCache {
            env,
            dir,
            stats,
            readers: RwLock::new(HashMap::new()),
        }
    }

    /// The reader of blob file `number`, opening it on first use.
    pub fn reader(&self, number: u64) -> Result<Arc<BlobFileReader>> {
        if let Some(r) = self.readers.read().get(&number) {
            return Ok(r.clone());
        }
        let path = blob_path(&self.dir, number);
        let reader = Arc::new(BlobFileReader::open(&self.env, &path)?);
        Ok(self.readers.write().entry(number).or_insert(reader).clone())
    }

    /// The value stored at `index` for `user_key`, read under `cat`.
    pub fn read(&self, index: &[u8], user_key: &[u8], cat: IoCategory) -> Result<Vec<u8>> {
        self.read_pinned(index, user_key, cat)
            .map(PinnedValue::into_vec)
    }

    /// As [`read`](Self::read), without moving the value to the front of its buffer.
    pub fn read_pinned(
        &self,
        index: &[u8],
        user_key: &[u8],
        cat: IoCategory,
    ) -> Result<PinnedValue> {
        let idx = BlobIndex::decode(index).ok_or_else(|| {
            Error::corruption(&self.dir, 0, "a table holds a malformed blob index")
        })?;
        let (value, n) = self
            .reader(idx.file_number)?
            .get_pinned(&idx, user_key, cat)?;
        self.stats.add(Ticker::BlobFileBytesRead, n);
        if cat == IoCategory::UserRead {
            self.stats.add(Ticker::GetReadBytes, n);
        }
        Ok(value)
    }

    /// Forgets blob file `number` (its file is being deleted).
    pub fn evict(&self, number: u64) {
        self.readers.write().remove(&number);
    }
}
