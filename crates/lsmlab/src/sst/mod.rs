//! Block-based tables: the immutable sorted files of the tree.
//!
//! Layout (see `docs/formats.md`): data blocks, a filter block, a properties block, an index
//! block, and a fixed-size footer with the magic number and format version. Every block is
//! followed by a 5-byte trailer: compression type and CRC32C of block + type.

use crate::cache::BlockCache;
use crate::env::{CountedRandom, CountedWritable, IoCategory};
use crate::error::Result;
use crate::filter::FilterPolicy;
use crate::iter::InternalIterator;
use crate::options::Compression;
use crate::stats::Statistics;
use std::path::PathBuf;
use std::sync::Arc;

/// How a table is written.
#[derive(Clone)]
pub struct TableOptions {
    /// Uncompressed bytes per data block before it is cut.
    pub block_size: usize,
    /// Keys between restart points.
    pub block_restart_interval: usize,
    /// Block compression.
    pub compression: Compression,
    /// Filter to build, if any.
    pub filter: Option<Arc<dyn FilterPolicy>>,
}

/// Facts about a table, stored in its properties block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableProperties {
    /// Entries (all kinds).
    pub num_entries: u64,
    /// Deletion entries.
    pub num_deletions: u64,
    /// Sum of internal key lengths.
    pub raw_key_size: u64,
    /// Sum of value lengths.
    pub raw_value_size: u64,
    /// Bytes of data blocks on disk.
    pub data_size: u64,
    /// Bytes of the index block on disk.
    pub index_size: u64,
    /// Bytes of the filter block on disk (0 without filter).
    pub filter_size: u64,
    /// Data blocks.
    pub num_data_blocks: u64,
    /// Name of the filter policy, empty without filter.
    pub filter_policy: String,
}

/// What a finished table holds.
#[derive(Debug, Clone)]
pub struct TableSummary {
    /// Bytes of the file.
    pub file_size: u64,
    /// Smallest internal key.
    pub smallest: Vec<u8>,
    /// Largest internal key.
    pub largest: Vec<u8>,
    /// The properties written.
    pub properties: TableProperties,
}

/// Writes one table.
pub struct TableBuilder {}

impl TableBuilder {
    /// A builder writing to `file` (at `path`, for error messages).
    pub fn new(_file: CountedWritable, _path: PathBuf, _opts: TableOptions) -> TableBuilder {
        todo!()
    }
    /// Adds an entry; internal keys must come in strictly increasing order.
    pub fn add(&mut self, _ikey: &[u8], _value: &[u8]) -> Result<()> {
        todo!()
    }
    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        todo!()
    }
    /// Bytes the file will have if finished now (estimate).
    pub fn estimated_size(&self) -> u64 {
        todo!()
    }
    /// Writes filter, properties, index and footer, and syncs the file.
    pub fn finish(self) -> Result<TableSummary> {
        todo!()
    }
}

/// The outcome of a point lookup in one table.
#[derive(Debug, PartialEq, Eq)]
pub enum TableGet {
    /// The filter said the key is absent; no data block was read.
    FilteredOut,
    /// No entry of this user key at or before the lookup sequence.
    NotFound,
    /// The newest entry of the user key with sequence ≤ the lookup's.
    Found {
        /// Its internal key.
        ikey: Vec<u8>,
        /// Its value.
        value: Vec<u8>,
    },
}

/// An open table: index and filter held in memory, data blocks read on demand.
pub struct TableReader {}

impl TableReader {
    /// Opens a table and reads its footer, index, filter and properties.
    pub fn open(
        _file: CountedRandom,
        _path: PathBuf,
        _file_number: u64,
        _cache: Option<Arc<BlockCache>>,
        _stats: Arc<Statistics>,
    ) -> Result<TableReader> {
        todo!()
    }
    /// Looks up `lookup`, an internal key `(user_key, seq, SEEK_KIND)`.
    pub fn get(&self, _lookup: &[u8], _cat: IoCategory) -> Result<TableGet> {
        todo!()
    }
    /// A cursor over every entry.
    pub fn iter(
        self: &Arc<Self>,
        _cat: IoCategory,
        _fill_cache: bool,
    ) -> Box<dyn InternalIterator> {
        todo!()
    }
    /// The table's properties.
    pub fn properties(&self) -> &TableProperties {
        todo!()
    }
    /// Bytes of memory held by the reader (index and filter).
    pub fn memory_usage(&self) -> usize {
        todo!()
    }
    /// Bytes of memory held by the filter.
    pub fn filter_memory(&self) -> usize {
        todo!()
    }
}
