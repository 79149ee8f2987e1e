//! Universal compaction end to end (`compaction/universal/`): the tree stays a handful of
//! sorted runs, the oldest in the last level, every answer matches the model across reopens,
//! and a random fill rewrites fewer bytes than leveled compaction does on the same writes.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::options::Layout;
use lsmlab::{Db, Options, ReadOptions, Ticker};
use std::collections::BTreeMap;

fn options(fs: &MemFs, layout: Layout) -> Options {
    Options {
        layout,
        // Work at fixed points in the calling thread, so that both layouts see the same
        // sequence of flushes and the byte counts compared below are the same on every run.
        deterministic_background: true,
        level0_file_num_compaction_trigger: 4,
        level0_slowdown_writes_trigger: 20,
        level0_stop_writes_trigger: 30,
        num_levels: 7,
        ..small_options(fs)
    }
}

/// Sorted runs of `db`: level-0 tables plus non-empty levels; and the deepest non-empty level.
fn runs(db: &Db) -> (u64, usize) {
    let files = |l: usize| {
        db.property_int(&format!("rocksdb.num-files-at-level{l}"))
            .unwrap()
    };
    let deeper = (1..7).filter(|&l| files(l) > 0).count() as u64;
    let deepest = (0..7).rev().find(|&l| files(l) > 0).unwrap_or(0);
    (files(0) + deeper, deepest)
}

/// A random fill of 3000 keys over 1500 distinct ones (overwrites included), checked against
/// a model after a reopen; returns the bytes compactions wrote.
fn fill(layout: Layout) -> u64 {
    let fs = MemFs::new();
    let opts = options(&fs, layout);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let mut model = BTreeMap::new();
    let mut x = 12345u64;
    for i in 0..3000u32 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = ((x >> 33) % 1500) as u32;
        let v = value(k, i, 100);
        db.put(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    let written = db.statistics().ticker(Ticker::CompactWriteBytes);
    if layout == Layout::Universal {
        assert_eq!(db.layout().policy, "universal");
        let (runs, deepest) = runs(&db);
        assert!(runs <= 4, "{runs} sorted runs, trigger 4");
        assert_eq!(deepest, 6, "the oldest run lies in the last level");
    }
    db.close().unwrap();
    let db = Db::open(DIR, opts).unwrap();
    assert_eq!(scan(&db, &ReadOptions::default()), model);
    for k in (0..1500).step_by(7) {
        assert_eq!(db.get(&key(k)).unwrap(), model.get(&key(k)).cloned());
    }
    written
}

#[test]
fn universal_keeps_few_sorted_runs_and_rewrites_less_than_leveled() {
    let universal = fill(Layout::Universal);
    let leveled = fill(Layout::Leveled);
    assert!(universal > 0, "universal compaction ran");
    assert!(
        universal < leveled,
        "compaction bytes written: universal {universal}, leveled {leveled}"
    );
}
