//! A user iterator over tables of large values (format 2: the index names each block's first
//! key) reads the data blocks of the entries it hands out, not one block per sorted run: a seek
//! positions every level-0 table from its index alone (docs/formats.md, "Index block").

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, ReadOptions, Ticker};

const TABLES: u32 = 6;
const KEYS: u32 = 60;
/// Larger than a 256-byte block: one entry a block.
const VALUE_LEN: usize = 400;

#[test]
fn a_seek_over_many_level0_tables_reads_only_the_blocks_it_returns() {
    let fs = MemFs::new();
    let o = Options {
        disable_auto_compactions: true,
        // Every block a read needs comes from the file, where it is counted.
        block_cache_size: 0,
        write_buffer_size: 1 << 20,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, o).unwrap();
    // Table t holds the keys k with k % TABLES == t: neighbouring keys lie in different tables.
    for t in 0..TABLES {
        for k in (t..KEYS).step_by(TABLES as usize) {
            db.put(&key(k), &value(k, 1, VALUE_LEN)).unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some(TABLES.to_string().as_str())
    );
    let stats = db.statistics();
    let read = || stats.ticker(Ticker::GetReadBytes);
    for k in 0..KEYS - 1 {
        // A fresh iterator per seek, as db_bench's seekrandom makes (a kept one may find the
        // block it needs still loaded).
        let mut it = db.iter(&ReadOptions::default()).unwrap();
        let before = read();
        it.seek(&key(k));
        for j in k..k + 2 {
            if j > k {
                it.next();
            }
            assert!(it.valid());
            assert_eq!(it.key(), key(j).as_slice());
            assert_eq!(it.value(), value(j, 1, VALUE_LEN).as_slice());
        }
        // The two values handed out, each in a block of its own (key, value, entry header,
        // restart array and trailer: under 512 bytes); positioning the other four tables read
        // nothing.
        let bytes = read() - before;
        assert!(
            (2 * VALUE_LEN as u64..=2 * 512).contains(&bytes),
            "seek to {k}: {bytes} bytes read"
        );
        it.status().unwrap();
    }
}
