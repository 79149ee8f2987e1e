//! lsmlab: a crash-safe LSM-tree key-value store with every knob LSM studies turn.
//!
//! ```no_run
//! use lsmlab::{Db, Options};
//! let db = Db::open("/tmp/lsmlab-example", Options::default())?;
//! db.put(b"key", b"value")?;
//! assert_eq!(db.get(b"key")?, Some(b"value".to_vec()));
//! # Ok::<(), lsmlab::Error>(())
//! ```
#![deny(missing_docs)]

pub mod batch;
pub mod blob;
pub mod cache;
pub mod check;
pub(crate) mod checksum;
pub mod coding;
pub mod compaction;
pub mod db;
pub mod env;
pub mod error;
pub mod filename;
pub mod filter;
#[doc(hidden)]
pub mod fuzzing;
pub mod iter;
pub mod key;
pub mod memtable;
pub mod options;
pub mod pinned;
pub mod sst;
pub mod stats;
pub mod table_cache;
#[cfg(test)]
mod test_tables;
pub mod version;
pub mod wal;

pub use batch::WriteBatch;
pub use db::{Db, DbIterator, Snapshot};
pub use error::{Error, Result};
pub use options::{
    CompactionVictims, Compression, FloatTarget, FslsmOptions, Layout, Options, ReadOptions,
    WalRecoveryMode, WriteOptions,
};
pub use pinned::PinnedValue;
pub use stats::{HistogramKind, StallCause, Statistics, Ticker};
