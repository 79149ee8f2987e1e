//! Intra-L0 compactions (`compaction/leveled/intra_l0.rs`): with two compaction threads, level-0 tables
//! merge within level 0 while another compaction holds level 1. Writes, overwrites and deletes
//! go on until some have run; every read then matches the model, before and after reopening.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, ReadOptions, Ticker};
use std::collections::BTreeMap;

const KEYS: u32 = 3000;
/// Rounds of writes at most; intra-L0 compactions start within the first few on this shape.
const MAX_ROUNDS: u32 = 40;

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>, rounds: u32) {
    for i in 0..rounds * KEYS {
        let k = key(i);
        assert_eq!(db.get(&k).unwrap(), model.get(&k).cloned(), "key {i}");
    }
    assert_eq!(&scan(db, &ReadOptions::default()), model);
}

#[test]
fn intra_level0_compactions_keep_every_version_in_order() {
    let fs = MemFs::new();
    let opts = intra_l0_options(&fs);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let mut model = BTreeMap::new();
    let mut round = 0;
    // Rounds since the first intra-L0 compaction: a few more give a dropped deletion more
    // chances to show.
    let mut after_first = 0;
    while round < MAX_ROUNDS && after_first < 8 {
        if db.statistics().ticker(Ticker::IntraL0Compactions) > 0 {
            after_first += 1;
        }
        for i in 0..KEYS {
            // Each round writes a new stretch of keys and deletes a third of the last round's,
            // whose puts are still in level 0 (or in the level-0 compaction running): a merge
            // within level 0 must keep those deletions, which level 1's key ranges do not
            // cover yet.
            let (k, v) = (key(round * KEYS + i), value(i, round, 40));
            db.put(&k, &v).unwrap();
            model.insert(k, v);
            if round > 0 && i % 3 == 0 {
                let old = key((round - 1) * KEYS + i);
                db.delete(&old).unwrap();
                model.remove(&old);
            }
        }
        round += 1;
    }
    let intra = db.statistics().ticker(Ticker::IntraL0Compactions);
    assert!(
        intra > 0,
        "no intra-L0 compaction in {round} rounds of {KEYS} writes"
    );
    check(&db, &model, round);
    db.wait_for_background_work().unwrap();
    check(&db, &model, round);
    drop(db);
    let db = Db::open(DIR, opts).unwrap();
    check(&db, &model, round);
}
