//! Step figures the libraries write to their own info logs (RocksDB's and LevelDB's `LOG`),
//! read back for the runs whose output lacks them. `testdata/` holds a sample of each.

pub mod leveldb_log;
pub mod rocksdb_log;
