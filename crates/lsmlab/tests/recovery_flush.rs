//! The flush that open does for a WAL's data is counted as a flush of the opening process, as
//! RocksDB counts its recovery flush: a process that finds a full WAL owns that write, so its
//! flush bytes and write amplification include it, and no write goes uncounted between two
//! processes.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::stats::Ticker;
use lsmlab::{Db, Options};

const DIR: &str = "/db";

fn opts(fs: &MemFs) -> Options {
    Options {
        statistics: true,
        // Large enough that the writes below stay in the memtable and its WAL.
        write_buffer_size: 1 << 20,
        ..small_options(fs)
    }
}

#[test]
fn a_reopen_that_flushes_the_wal_counts_the_flush() {
    let fs = MemFs::new();
    {
        let db = Db::open(DIR, opts(&fs)).unwrap();
        for i in 0..500 {
            db.put(&key(i), &value(i, 0, 100)).unwrap();
        }
        // Nothing reached a table in this process.
        assert_eq!(db.statistics().ticker(Ticker::FlushWriteBytes), 0);
        assert_eq!(db.property_int("rocksdb.num-files-at-level0"), Some(0));
    }
    let db = Db::open(DIR, opts(&fs)).unwrap();
    let stats = db.statistics();
    let tables = db.property_int("rocksdb.num-files-at-level0").unwrap();
    assert!(tables >= 1, "the reopen wrote the WAL's data to level 0");
    let bytes = stats.ticker(Ticker::FlushWriteBytes);
    // 500 records of 100-byte values: the table holds at least the values.
    assert!(bytes >= 50_000, "recovery flush bytes counted: {bytes}");
    assert_eq!(stats.ticker(Ticker::Flushes), tables);
    for i in 0..500 {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i, 0, 100)));
    }
}
