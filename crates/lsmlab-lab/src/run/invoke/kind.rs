//! The command line an engine speaks (lsmlab's, RocksDB's db_bench or LevelDB's), and for
//! lsmlab the library its driver runs on: what both the step builder (`boundaries`) and the
//! engine checks (`engines`) need, kept apart from either.

use lsmlab_drivers::engine::EngineKind;

/// The command line an engine speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `lsmlab bench` / `lsmlab ycsb`.
    Lsmlab,
    /// RocksDB's db_bench (gflags: every flag listed by `--help`).
    RocksDb,
    /// LevelDB's db_bench (1.23): a fixed set of flags with other names.
    LevelDb,
}

impl Kind {
    /// The command line, and for lsmlab the engine `--engine=` selects: `lsmlab-rocksdb` and
    /// `lsmlab-leveldb` are lsmlab's driver on the RocksDB and LevelDB libraries, `fjall` (or
    /// `lsmlab-fjall`) on the fjall crate, which has no db_bench of its own.
    pub fn parse(s: &str) -> Option<(Kind, EngineKind)> {
        match s {
            "lsmlab" => Some((Kind::Lsmlab, EngineKind::Lsmlab)),
            "lsmlab-rocksdb" => Some((Kind::Lsmlab, EngineKind::RocksDb)),
            "lsmlab-leveldb" => Some((Kind::Lsmlab, EngineKind::LevelDb)),
            "fjall" | "lsmlab-fjall" => Some((Kind::Lsmlab, EngineKind::Fjall)),
            "rocksdb" | "db_bench" => Some((Kind::RocksDb, EngineKind::RocksDb)),
            "leveldb" => Some((Kind::LevelDb, EngineKind::LevelDb)),
            _ => None,
        }
    }
}
