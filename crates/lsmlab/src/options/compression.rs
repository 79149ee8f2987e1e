//! The codec of table blocks and blob values, as `--compression_type` names it.
//!
//! Apart from the rest of the options because the table layer reads it too: the options build
//! a table's options from it, and a table needs nothing else of them.

use crate::error::{Error, Result};

/// How blocks are compressed on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Blocks are stored as they are. Default: the studies run with `--compression_type=none`.
    #[default]
    None,
    /// LZ4 block compression: fast, moderate ratio.
    Lz4,
    /// Zstandard at level 3: slower, better ratio.
    Zstd,
    /// Snappy (raw block format, as LevelDB and RocksDB store it): fast, moderate ratio;
    /// LevelDB's and `db_bench`'s default.
    Snappy,
}

impl Compression {
    /// Parses db_bench's `--compression_type` values: `none`, `snappy`, `lz4`, `zstd`.
    pub fn parse(s: &str) -> Result<Compression> {
        match s {
            "none" | "kNoCompression" => Ok(Compression::None),
            "lz4" | "kLZ4Compression" => Ok(Compression::Lz4),
            "zstd" | "kZSTD" => Ok(Compression::Zstd),
            "snappy" | "kSnappyCompression" => Ok(Compression::Snappy),
            other => Err(Error::invalid_option(
                "compression",
                format!("{other:?}"),
                "allowed: none, snappy, lz4, zstd",
            )),
        }
    }
}
