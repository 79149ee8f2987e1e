//! Block-based tables: the immutable sorted files of the tree.
//!
//! Layout (see `docs/formats.md`): data blocks, a filter block, a properties block, an index
//! block, and a fixed-size footer with the magic number and format version. Every block is
//! followed by a 5-byte trailer: compression type and CRC32C of block + type.

pub mod block;
pub mod block_iter;
mod builder;
pub mod codec;
pub mod footer;
mod properties;
mod readahead;
mod reader;
mod table_iter;
#[cfg(test)]
mod tests;

pub use builder::{TableBuilder, MAX_ENTRY_BYTES};
pub use readahead::BlockFetch;
pub use reader::{IndexEntry, TableReader};

use crate::filter::FilterPolicy;
use crate::options::compression::Compression;
use crate::pinned::PinnedValue;
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
        /// Its value, in the data block that holds it.
        value: PinnedValue,
    },
}
