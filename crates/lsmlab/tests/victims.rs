//! Compaction victims by access frequency and level limits in tables (`compaction_victims`,
//! `max_files_for_level_base`): level 0 keeps the tables gets hit, and no answer changes.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{CompactionVictims, Db, Options, ReadOptions};
use std::collections::BTreeMap;

fn options(fs: &MemFs, victims: CompactionVictims) -> Options {
    Options {
        level0_file_num_compaction_trigger: 4,
        level0_slowdown_writes_trigger: 20,
        level0_stop_writes_trigger: 30,
        write_buffer_size: 1 << 20,
        max_files_for_level_base: 4,
        compaction_victims: victims,
        ..small_options(fs)
    }
}

/// Eight flushes, each over every key (newer versions each time), with gets between them;
/// returns the database, the model and the level-0 table count at the end.
fn run(victims: CompactionVictims) -> (Db, BTreeMap<Vec<u8>, Vec<u8>>, u64) {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, victims)).unwrap();
    let mut model = BTreeMap::new();
    for round in 0..8u32 {
        for k in (round % 3..300).step_by(3) {
            let v = value(k, round, 30);
            db.put(&key(k), &v).unwrap();
            model.insert(key(k), v);
        }
        db.flush().unwrap();
        db.wait_for_background_work().unwrap();
        for k in 0..300 {
            assert_eq!(
                db.get(&key(k)).unwrap(),
                model.get(&key(k)).cloned(),
                "get {k}"
            );
        }
    }
    let l0 = db.property_int("rocksdb.num-files-at-level0").unwrap();
    (db, model, l0)
}

#[test]
fn frequency_victims_keep_level0_populated_and_every_answer_right() {
    let (db, model, l0) = run(CompactionVictims::LowestFrequency);
    // Level 0 compacts at 4 tables, giving up the coldest only: 3 stay after each compaction.
    assert_eq!(l0, 3, "{}", db.property("rocksdb.sstables").unwrap());
    let layout = db.property("lsmlab.layout").unwrap();
    assert!(layout.contains("; L1 4 tables; L2 16 tables"), "{layout}");
    assert_eq!(scan(&db, &ReadOptions::default()), model);
    let rev: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(scan_reverse(&db, &ReadOptions::default()), rev);
    db.close().unwrap();
    // The default compacts all of level 0 at its trigger.
    let (_, model_default, l0_default) = run(CompactionVictims::MinOverlap);
    assert_eq!(model_default, model);
    assert!(
        l0_default < 3,
        "the default left {l0_default} level-0 tables"
    );
}
