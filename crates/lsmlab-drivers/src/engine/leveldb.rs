//! LevelDB behind the driver's interface: the library Debian ships (`libleveldb-dev` 1.23),
//! through its C API. LevelDB's shape is fixed (7 levels, level 1 of 10 MiB, level-0 triggers
//! 4/8/12, one background thread); the settings it can take are mapped, the others refused
//! (`support.rs`).

use super::leveldb_ffi as ffi;
use super::settings::EngineSettings;
use super::{EngineKind, Store};
use crate::error::{CliError, CliResult};
use crate::readout::block::{Figures, Snapshot};
use crate::readout::counters::CounterSnapshot;
use crate::readout::foreign::ForeignFigures;
use crate::readout::logs::leveldb_log::LevelDbLog;
use crate::readout::lsm::ClientCounts;
use lsmlab::Compression;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `leveldb 1.23 (libleveldb through leveldb/c.h; Debian package libleveldb-dev 1.23-4)`.
pub fn describe() -> String {
    let package = env!("LSMLAB_LEVELDB_PACKAGE");
    let how = if package.is_empty() {
        "system library".to_string()
    } else {
        format!("Debian package libleveldb-dev {package}")
    };
    format!(
        "leveldb {} (libleveldb through leveldb/c.h, linked dynamically; {how})",
        ffi::version()
    )
}

/// Removes the LevelDB database at `path`.
pub fn destroy(path: &str) -> CliResult<()> {
    ffi::destroy_db(path).map_err(|e| CliError::new(format!("destroy {path}: {e}")))
}

/// An open LevelDB database.
pub struct LevelDbStore {
    // Declared first: closed before the options (cache, filter policy) it points at.
    db: ffi::Db,
    _options: ffi::Options,
    /// Where LevelDB keeps its info log, whose lines time and size every flush and compaction.
    path: PathBuf,
}

impl LevelDbStore {
    /// Opens (or with `create_if_missing` creates) the database at `s.path`.
    pub fn open(s: &EngineSettings, create_if_missing: bool) -> CliResult<LevelDbStore> {
        let path = &s.path;
        let mut o = ffi::Options::new();
        o.set_create_if_missing(create_if_missing);
        o.set_write_buffer_size(s.write_buffer_size);
        o.set_max_file_size(usize::try_from(s.target_file_size_base).unwrap_or(usize::MAX));
        o.set_block_size(s.block_size);
        o.set_block_restart_interval(i32::try_from(s.block_restart_interval).unwrap_or(i32::MAX));
        // support.rs lets only none and snappy through when given; a default it cannot honour
        // (none other exists today) would fall back to LevelDB's own, snappy.
        o.set_compression(match s.compression_type {
            Compression::None => ffi::NO_COMPRESSION,
            _ => ffi::SNAPPY_COMPRESSION,
        });
        if s.cache_size > 0 {
            o.set_lru_cache(s.cache_size);
        }
        if s.bloom_bits > 0.0 {
            o.set_bloom(s.bloom_bits as i32);
        }
        let db = ffi::Db::open(&o, path, s.sync)
            .map_err(|e| CliError::new(format!("open {path}: {e}")))?;
        Ok(LevelDbStore {
            db,
            _options: o,
            path: PathBuf::from(path),
        })
    }
}

/// Sums of LevelDB's compaction table (`leveldb.stats`): `Time(sec)`, `Read(MB)`, `Write(MB)`
/// over the levels, as counters `leveldb.compaction.seconds`, `leveldb.compaction.read.mb`,
/// `leveldb.compaction.write.mb`.
pub fn parse_stats(text: &str) -> BTreeMap<String, f64> {
    let (mut time, mut read, mut write) = (0.0, 0.0, 0.0);
    for line in text.lines() {
        let cols: Vec<f64> = line
            .split_whitespace()
            .map(|c| c.parse::<f64>())
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        if cols.len() == 6 {
            time += cols[3];
            read += cols[4];
            write += cols[5];
        }
    }
    BTreeMap::from([
        ("leveldb.compaction.seconds".to_string(), time),
        ("leveldb.compaction.read.mb".to_string(), read),
        ("leveldb.compaction.write.mb".to_string(), write),
    ])
}

/// The counters of LevelDB's info log (readout/leveldb_log.rs): exact bytes and microseconds
/// where `leveldb.stats` has whole megabytes and seconds.
fn log_counters(db: &Path) -> BTreeMap<String, f64> {
    let Some(log) = LevelDbLog::of_database(db) else {
        return BTreeMap::new();
    };
    BTreeMap::from([
        (
            "leveldb.log.flush.bytes".to_string(),
            log.flush_bytes as f64,
        ),
        (
            "leveldb.log.compaction.bytes".to_string(),
            log.compaction_bytes as f64,
        ),
        (
            "leveldb.log.compactions".to_string(),
            log.compactions as f64,
        ),
        (
            "leveldb.log.busy.micros".to_string(),
            log.busy_micros as f64,
        ),
    ])
}

super::pass_through::batch_writer!(LevelDbWriter, ffi);

struct LevelDbIter<'a>(ffi::Iter<'a>);

super::pass_through::pass_through_iter!(LevelDbIter<'_>);

/// LevelDB's name for a RocksDB property the driver asks for.
fn leveldb_name(name: &str) -> Option<String> {
    match name {
        "rocksdb.stats" => Some("leveldb.stats".into()),
        "rocksdb.sstables" => Some("leveldb.sstables".into()),
        n if n.starts_with("rocksdb.num-files-at-level") => {
            Some(n.replacen("rocksdb.", "leveldb.", 1))
        }
        n if n.starts_with("leveldb.") => Some(n.to_string()),
        _ => None,
    }
}

const MB: f64 = 1_048_576.0;

impl Store for LevelDbStore {
    fn kind(&self) -> EngineKind {
        EngineKind::LevelDb
    }

    super::pass_through::c_api_store_calls!(LevelDbWriter, LevelDbIter, ffi);

    fn flush(&self) -> CliResult<()> {
        // LevelDB has no Flush: CompactRange first writes the memtable out, and a range of the
        // empty key alone overlaps no table, so nothing else is compacted.
        self.db.compact_range(Some(b""), Some(b""));
        Ok(())
    }

    fn compact_all(&self) -> CliResult<()> {
        self.db.compact_range(None, None);
        Ok(())
    }

    fn wait_for_background_work(&self) -> CliResult<()> {
        // No API for it: read the tables LevelDB would compact (`leveldb_settle`). A memtable
        // being written out shows in no property, so it is written out first, and waited for.
        self.flush()?;
        super::leveldb_settle::wait_settled(&|name| self.db.property(name))
    }

    fn property(&self, name: &str) -> Option<String> {
        self.db.property(&leveldb_name(name)?)
    }

    fn statistics_text(&self) -> String {
        // LevelDB has no statistics object: what its properties give.
        let mut s = String::new();
        if let Some(m) = self.db.property("leveldb.approximate-memory-usage") {
            s.push_str(&format!("leveldb.approximate-memory-usage COUNT : {m}\n"));
        }
        for l in 0..super::support::LEVELDB_LEVELS {
            if let Some(n) = self.db.property(&format!("leveldb.num-files-at-level{l}")) {
                s.push_str(&format!("leveldb.num-files-at-level{l} COUNT : {n}\n"));
            }
        }
        for (name, v) in log_counters(&self.path) {
            s.push_str(&format!("{name} COUNT : {v}\n"));
        }
        s.push_str(&self.db.property("leveldb.stats").unwrap_or_default());
        s
    }

    fn snapshot(&self) -> Snapshot {
        let mut counters = parse_stats(&self.db.property("leveldb.stats").unwrap_or_default());
        counters.extend(log_counters(&self.path));
        Snapshot::Counters(CounterSnapshot::now(counters))
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
        let mut f = ForeignFigures::common("leveldb", b, a, db_path, client);
        // LevelDB's table is in whole MB and whole seconds, and counts flushes and compactions
        // together (a flush is a "memtable compaction"); under 1 MB or 1 s it says nothing.
        // Its info log has the same events exact: used when the database has one.
        let mb = |name: &str| {
            a.delta(b, name)
                .filter(|&v| v >= 1.0)
                .map(|v| (v * MB) as u64)
        };
        let log = |name: &str| a.delta(b, name).map(|v| v.round() as u64);
        f.compaction_read_bytes = mb("leveldb.compaction.read.mb");
        match (
            log("leveldb.log.flush.bytes"),
            log("leveldb.log.compaction.bytes"),
        ) {
            (Some(flush), Some(compaction)) => {
                f.flush_bytes = Some(flush);
                f.compaction_write_bytes = Some(compaction);
                f.compactions = log("leveldb.log.compactions");
                f.compaction_seconds = log("leveldb.log.busy.micros").map(|us| us as f64 / 1e6);
            }
            _ => {
                f.table_write_bytes = mb("leveldb.compaction.write.mb");
                f.compaction_seconds = a
                    .delta(b, "leveldb.compaction.seconds")
                    .filter(|&v| v >= 1.0);
            }
        }
        f.memtable_bytes = self
            .db
            .property("leveldb.approximate-memory-usage")
            .and_then(|v| v.trim().parse().ok());
        f.files_per_level = (0..super::support::LEVELDB_LEVELS)
            .map_while(|l| {
                self.db
                    .property(&format!("leveldb.num-files-at-level{l}"))?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect();
        f.layout = "leveled (LevelDB: 7 levels, L1 10 MiB, x10)".into();
        Figures::Foreign(Box::new(f.finish()))
    }

    fn close(self: Box<Self>) -> CliResult<()> {
        drop(self);
        Ok(())
    }

    fn reopen_fresh(self: Box<Self>, s: &EngineSettings) -> CliResult<Box<dyn Store>> {
        // LevelDB has no statistics object to keep: a new store.
        drop(self);
        destroy(&s.path)?;
        Ok(Box::new(LevelDbStore::open(s, true)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_table_sums() {
        let text = "                               Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n--------------------------------------------------\n  0        2        1         0        0         3\n  1        5        9         2       12        11\n";
        let c = parse_stats(text);
        assert_eq!(c["leveldb.compaction.write.mb"], 14.0);
        assert_eq!(c["leveldb.compaction.read.mb"], 12.0);
        assert_eq!(c["leveldb.compaction.seconds"], 2.0);
    }
}
