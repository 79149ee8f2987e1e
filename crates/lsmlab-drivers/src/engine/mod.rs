//! The driver's engine interface: what `lsmlab bench` and `lsmlab ycsb` ask of a key-value
//! store, so that the same workload — the same keys in the same order, the same clocks — runs on
//! lsmlab, on RocksDB, on LevelDB and on fjall.
//!
//! `--engine=lsmlab` (the default) runs the engine of this workspace in process;
//! `--engine=rocksdb` and `--engine=leveldb` run the real libraries through their C APIs
//! (cargo features `rocksdb` and `leveldb`; see docs/engines.md). The FFI of each library is
//! in one module with safe wrappers; nothing else here is `unsafe`. `--engine=fjall` runs the
//! fjall crate in process (cargo feature `fjall`).
//!
//! The drivers fill one engine-neutral [`EngineSettings`] (db_bench's names, typed values) and
//! every adapter maps it onto its engine's options — lsmlab's in `lsmlab.rs`, RocksDB's in
//! `rocksdb.rs`, LevelDB's in `leveldb.rs`, fjall's in `fjall.rs` — side by side behind [`Store`]. A setting the
//! command line gave that an engine cannot honour is refused by name before anything runs
//! ([`check_flags`], with the tables of `support.rs`).
//!
//! Nothing here knows a driver: `flags/`, `bench/` and `ycsb/` import this module, never the
//! reverse.
#![deny(missing_docs)]

#[cfg(any(feature = "leveldb", feature = "rocksdb"))]
mod c_api;
pub mod lsmlab;
mod pass_through;
pub mod settings;
pub mod support;

#[cfg(feature = "fjall")]
pub mod fjall;
#[cfg(feature = "leveldb")]
pub mod leveldb;
#[cfg(feature = "leveldb")]
mod leveldb_ffi;
#[cfg(feature = "leveldb")]
mod leveldb_settle;
#[cfg(feature = "rocksdb")]
pub mod rocksdb;
#[cfg(feature = "rocksdb")]
mod rocksdb_ffi;
// The bundled build's static RocksDB provides the C API `rocksdb_ffi` declares; naming the
// crate links it.
#[cfg(feature = "rocksdb-bundled")]
use librocksdb_sys as _;

use crate::error::{CliError, CliResult};
use crate::readout::block::{Figures, Snapshot};
use crate::readout::lsm::ClientCounts;
use std::path::Path;

pub use settings::{EngineSettings, LsmlabSettings};

/// The engines the driver knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// lsmlab, in process.
    Lsmlab,
    /// RocksDB through `rocksdb/c.h` (feature `rocksdb`).
    RocksDb,
    /// LevelDB through `leveldb/c.h` (feature `leveldb`).
    LevelDb,
    /// The fjall crate, in process (feature `fjall`).
    Fjall,
}

/// Every engine's name, as `--engine` takes it.
pub const ENGINE_NAMES: &[&str] = &["lsmlab", "rocksdb", "leveldb", "fjall"];

impl EngineKind {
    /// The engine named `name` (`lsmlab`, `rocksdb`, `leveldb`, `fjall`); the error names `flag`, what is
    /// allowed, and says so when this program was built without the engine.
    pub fn parse(flag: &str, name: &str) -> CliResult<EngineKind> {
        let kind = match name {
            "lsmlab" => EngineKind::Lsmlab,
            "rocksdb" => EngineKind::RocksDb,
            "leveldb" => EngineKind::LevelDb,
            "fjall" => EngineKind::Fjall,
            other => {
                return Err(CliError::new(format!(
                    "{flag}: invalid value {other:?}: allowed lsmlab, rocksdb, leveldb, fjall"
                )))
            }
        };
        if !kind.built_in() {
            return Err(CliError::new(format!(
                "{flag}: invalid value {name:?}: this lsmlab was built without the {name} engine; rebuild with `cargo build --release -p lsmlab-cli --features {name}` (docs/engines.md)"
            )));
        }
        Ok(kind)
    }

    /// The name `--engine` takes.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Lsmlab => "lsmlab",
            EngineKind::RocksDb => "rocksdb",
            EngineKind::LevelDb => "leveldb",
            EngineKind::Fjall => "fjall",
        }
    }

    /// True if this program was built with the engine.
    pub fn built_in(self) -> bool {
        match self {
            EngineKind::Lsmlab => true,
            EngineKind::RocksDb => cfg!(feature = "rocksdb"),
            EngineKind::LevelDb => cfg!(feature = "leveldb"),
            EngineKind::Fjall => cfg!(feature = "fjall"),
        }
    }

    /// The engine, its version and how it was built, for the report header
    /// (`rocksdb 7.8.3 (librocksdb.so, Debian package librocksdb-dev 7.8.3-2, C API)`).
    pub fn describe(self) -> String {
        match self {
            EngineKind::Lsmlab => format!(
                "lsmlab {} (this program's own engine, in process)",
                env!("CARGO_PKG_VERSION")
            ),
            #[cfg(feature = "rocksdb")]
            EngineKind::RocksDb => rocksdb::describe(),
            #[cfg(feature = "leveldb")]
            EngineKind::LevelDb => leveldb::describe(),
            #[cfg(feature = "fjall")]
            EngineKind::Fjall => fjall::describe(),
            #[allow(unreachable_patterns)]
            other => format!("{} (not built in)", other.name()),
        }
    }
}

/// What a store returns for one key.
pub type Found = bool;

/// One thread's batch of writes, reused from write to write (as db_bench reuses its
/// `WriteBatch`): entries are added, then [`Writer::commit`] writes them atomically and empties
/// the batch.
pub trait Writer {
    /// Adds a put of `key` → `value`.
    fn put(&mut self, key: &[u8], value: &[u8]);
    /// Adds a delete of `key`.
    fn delete(&mut self, key: &[u8]);
    /// Writes the batch (with the store's write options) and empties it.
    fn commit(&mut self) -> CliResult<()>;
}

/// A forward and backward iterator over the whole key space.
pub trait StoreIter {
    /// Positions at the first key.
    fn seek_to_first(&mut self);
    /// Positions at the last key.
    fn seek_to_last(&mut self);
    /// Positions at the first key ≥ `key`.
    fn seek(&mut self, key: &[u8]);
    /// Positions at the last key ≤ `key`.
    fn seek_for_prev(&mut self, key: &[u8]);
    /// Steps to the next key.
    fn next(&mut self);
    /// Steps to the previous key.
    fn prev(&mut self);
    /// True while positioned at an entry.
    fn valid(&self) -> bool;
    /// The key at the position (valid only while [`StoreIter::valid`]).
    fn key(&self) -> &[u8];
    /// The value at the position (valid only while [`StoreIter::valid`]).
    fn value(&self) -> &[u8];
    /// The error that ended the iteration, if any.
    fn status(&self) -> CliResult<()>;
}

/// Replaces `out`'s contents with `value`: a get into a buffer its caller reuses.
pub(crate) fn copy_value(out: &mut Vec<u8>, value: &[u8]) {
    out.clear();
    out.extend_from_slice(value);
}

/// An open key-value store, shared by every thread of a benchmark.
pub trait Store: Send + Sync {
    /// The engine.
    fn kind(&self) -> EngineKind;
    /// A batch writer with `sync` / `disable_wal` as the flags said at open.
    fn writer(&self) -> Box<dyn Writer + '_>;
    /// Looks up `key`; on a hit its value replaces `value`'s contents.
    fn get(&self, key: &[u8], value: &mut Vec<u8>) -> CliResult<Found>;
    /// Looks up `key` and gives the length of its value, leaving the value where the engine
    /// holds it (db_bench's `readrandom` pins it and lets it go unread): `None` when absent.
    fn get_len(&self, key: &[u8]) -> CliResult<Option<usize>>;
    /// A new iterator over the current state.
    fn iter(&self) -> CliResult<Box<dyn StoreIter + '_>>;
    /// Flushes the memtable to a table.
    fn flush(&self) -> CliResult<()>;
    /// Compacts the whole key range.
    fn compact_all(&self) -> CliResult<()>;
    /// Waits until no flush or compaction is pending or running.
    fn wait_for_background_work(&self) -> CliResult<()>;
    /// A property by RocksDB's name (`rocksdb.stats`, `rocksdb.levelstats`, `rocksdb.sstables`);
    /// `None` when the engine has no answer.
    fn property(&self, name: &str) -> Option<String>;
    /// The `--statistics` dump.
    fn statistics_text(&self) -> String;
    /// The counters the lsmlab block is computed from, now.
    fn snapshot(&self) -> Snapshot;
    /// The lsmlab block between two snapshots.
    fn figures(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        db_path: &Path,
        client: ClientCounts,
    ) -> Figures;
    /// Closes the store, reporting an error the close met.
    fn close(self: Box<Self>) -> CliResult<()>;
    /// Closes the store, removes its database and opens a new, empty one at `settings.path`
    /// with the same options — and, as db_bench, the same statistics object, so that
    /// `--statistics` accumulates over the whole run.
    fn reopen_fresh(self: Box<Self>, settings: &EngineSettings) -> CliResult<Box<dyn Store>>;
}

/// Checks every setting the command line set (`explicit`, by name) against what `kind` can
/// honour; the error names the first one it cannot as the caller spells it (`spell("num_levels")`
/// is `--num_levels` for bench, `-p lsmlab.num_levels` for YCSB).
pub fn check_flags(
    kind: EngineKind,
    settings: &EngineSettings,
    explicit: &[String],
    spell: impl Fn(&str) -> String,
) -> CliResult<()> {
    support::check(kind, settings, explicit)
        .map_err(|(name, why)| refused(kind, &spell(&name), &why))
}

/// The error of a setting `kind` cannot honour, `what` naming it as the user typed it.
pub fn refused(kind: EngineKind, what: &str, why: &str) -> CliError {
    CliError::new(format!(
        "{what}: {why}; the {} engine cannot honour it (docs/engines.md)",
        kind.name()
    ))
}

/// Opens the store at `settings.path` with the options `settings` describe.
pub fn open(
    kind: EngineKind,
    settings: &EngineSettings,
    create_if_missing: bool,
) -> CliResult<Box<dyn Store>> {
    match kind {
        EngineKind::Lsmlab => Ok(Box::new(lsmlab::LsmlabStore::open(
            settings,
            create_if_missing,
        )?)),
        #[cfg(feature = "rocksdb")]
        EngineKind::RocksDb => Ok(Box::new(rocksdb::RocksDbStore::open(
            settings,
            create_if_missing,
        )?)),
        #[cfg(feature = "leveldb")]
        EngineKind::LevelDb => Ok(Box::new(leveldb::LevelDbStore::open(
            settings,
            create_if_missing,
        )?)),
        #[cfg(feature = "fjall")]
        EngineKind::Fjall => Ok(Box::new(fjall::FjallStore::open(
            settings,
            create_if_missing,
        )?)),
        #[allow(unreachable_patterns)]
        other => Err(not_built(other)),
    }
}

/// Removes the database at `settings.path` (nothing if there is none).
pub fn destroy(kind: EngineKind, settings: &EngineSettings) -> CliResult<()> {
    match kind {
        EngineKind::Lsmlab => lsmlab::destroy(settings),
        #[cfg(feature = "rocksdb")]
        EngineKind::RocksDb => rocksdb::destroy(&settings.path),
        #[cfg(feature = "leveldb")]
        EngineKind::LevelDb => leveldb::destroy(&settings.path),
        #[cfg(feature = "fjall")]
        EngineKind::Fjall => fjall::destroy(&settings.path),
        #[allow(unreachable_patterns)]
        other => Err(not_built(other)),
    }
}

/// True if a database of `kind` is at `path`: lsmlab, RocksDB and LevelDB write `CURRENT`,
/// fjall its `version` file. Checked before opening, since an engine may make the directory
/// (and its lock) before it refuses.
pub fn database_exists(kind: EngineKind, path: &str) -> bool {
    let marker = match kind {
        EngineKind::Fjall => "version",
        _ => "CURRENT",
    };
    Path::new(path).join(marker).exists()
}

/// The error of `what` (`--use_existing_db`, `ycsb run`) finding no database of `kind` at
/// `path`; `load` says how to make one.
pub fn no_database(kind: EngineKind, what: &str, path: &str, load: &str) -> CliError {
    match kind {
        EngineKind::Fjall => CliError::new(format!(
            "{what}: no fjall database at {path} (no version file); {load}"
        )),
        _ => self::lsmlab::no_database(what, path, load),
    }
}

#[allow(dead_code)]
fn not_built(kind: EngineKind) -> CliError {
    CliError::new(format!(
        "--engine={}: this lsmlab was built without it (cargo feature {})",
        kind.name(),
        kind.name()
    ))
}
