//! A database-wide write-buffer budget (`db_write_buffer_size`, RocksDB's write buffer
//! manager): memtables are switched for flush before `write_buffer_size` when all of them
//! together reach the budget, and nothing written is lost.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, ReadOptions, Ticker};
use std::collections::BTreeMap;
use std::sync::Arc;

const WRITE_BUFFER: usize = 256 << 10;
const BUDGET: usize = 64 << 10;

fn options(fs: &MemFs, budget: usize) -> Options {
    Options {
        fs: Arc::new(fs.clone()),
        deterministic_background: true,
        write_buffer_size: WRITE_BUFFER,
        max_write_buffer_number: 4,
        db_write_buffer_size: budget,
        ..Options::default()
    }
}

/// Writes about 1 MB; returns the model, the flushes and the most the memtables held.
fn write(db: &Db) -> (BTreeMap<Vec<u8>, Vec<u8>>, u64, u64) {
    let mut model = BTreeMap::new();
    let mut most = 0;
    for i in 0..4000u32 {
        let (k, v) = (key(i), value(i, 0, 240));
        db.put(&k, &v).unwrap();
        model.insert(k, v);
        most = most.max(db.property_int("rocksdb.cur-size-all-mem-tables").unwrap());
    }
    (model, db.statistics().ticker(Ticker::Flushes), most)
}

#[test]
fn a_budget_below_the_write_buffer_flushes_at_the_budget() {
    let (fs, fs_budget) = (MemFs::new(), MemFs::new());
    let unlimited = Db::open(DIR, options(&fs, 0)).unwrap();
    let (model, flushes, most) = write(&unlimited);
    let limited = Db::open(DIR, options(&fs_budget, BUDGET)).unwrap();
    let (_, flushes_limited, most_limited) = write(&limited);
    // About 1 MB in 256 KiB memtables without the budget, in 56 KiB ones (7/8 of 64 KiB)
    // with it.
    assert!(
        most > BUDGET as u64 * 2,
        "without a budget the memtable grows to its write buffer ({most} bytes)"
    );
    assert!(
        most_limited <= BUDGET as u64 + 1024,
        "the memtables held {most_limited} bytes against a budget of {BUDGET}"
    );
    assert!(
        flushes_limited >= flushes * 3,
        "{flushes_limited} flushes with the budget against {flushes} without"
    );
    for k in model.keys() {
        assert_eq!(limited.get(k).unwrap().as_ref(), model.get(k));
    }
    limited.close().unwrap();
    let reopened = Db::open(DIR, options(&fs_budget, BUDGET)).unwrap();
    assert_eq!(scan(&reopened, &ReadOptions::default()), model);
}

#[test]
fn a_budget_above_the_write_buffers_changes_nothing() {
    let (fs, fs_budget) = (MemFs::new(), MemFs::new());
    let unlimited = Db::open(DIR, options(&fs, 0)).unwrap();
    let (_, flushes, _) = write(&unlimited);
    let roomy = Db::open(DIR, options(&fs_budget, WRITE_BUFFER * 8)).unwrap();
    let (_, flushes_roomy, _) = write(&roomy);
    assert_eq!(flushes, flushes_roomy);
}
