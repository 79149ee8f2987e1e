//! Obsolete versions under a level that stays below its target (`compaction/obsolete.rs`): a
//! fill that overflows level 1 into level 2, then an overwrite of a share of the keys small
//! enough to leave level 1 under its target. Without the trigger the old versions stay in
//! level 2 for good; with it they are compacted away, the estimate survives a reopen, and
//! every read matches the model.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::filter::FilterOptions;
use lsmlab::{Db, Options, ReadOptions};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A prime, so that `i * STEP % KEYS` visits every key once in a scattered order.
const KEYS: u32 = 1201;
const STEP: u32 = 389;
const VALUE_LEN: usize = 200;

fn options(fs: &MemFs, max_obsolete_percent: u32) -> Options {
    Options {
        fs: Arc::new(fs.clone()),
        // The run is the same every time: flushes and compactions in the writing thread.
        deterministic_background: true,
        write_buffer_size: 16 << 10,
        target_file_size_base: 16 << 10,
        // About 250 KB of data: level 1 overflows into level 2 during the fill.
        max_bytes_for_level_base: 128 << 10,
        level0_file_num_compaction_trigger: 2,
        num_levels: 4,
        block_size: 1024,
        filter: FilterOptions {
            bits_per_key: 10.0,
            ..FilterOptions::default()
        },
        max_obsolete_percent,
        ..Options::default()
    }
}

fn entries(db: &Db) -> u64 {
    (0..4)
        .map(|l| {
            db.property_int(&format!("lsmlab.num-entries-at-level{l}"))
                .expect("entries property")
        })
        .sum()
}

/// Fills every key and compacts them below level 1, then overwrites two in five (about
/// 100 KB, under level 1's 128 KiB target): the model.
fn fill_then_overwrite(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    for i in 0..KEYS {
        let k = key(i * STEP % KEYS);
        let v = value(i, 0, VALUE_LEN);
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    }
    // Every key in the levels below 1, one version each.
    db.compact_range(None, None).unwrap();
    db.wait_for_background_work().unwrap();
    assert_eq!(entries(db), u64::from(KEYS));
    assert_eq!(
        db.property_int("lsmlab.num-entries-at-level1").unwrap(),
        0,
        "the fill should leave level 1 for the levels below"
    );
    for i in 0..KEYS {
        if i % 5 < 2 {
            let k = key(i * STEP % KEYS);
            let v = value(i, 1, VALUE_LEN);
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    model
}

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
    assert_eq!(&scan(db, &ReadOptions::default()), model);
}

#[test]
fn without_the_trigger_an_under_full_level_keeps_the_old_versions_below_it() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 0)).unwrap();
    let model = fill_then_overwrite(&db);
    check(&db, &model);
    let held = entries(&db);
    assert!(
        held >= u64::from(KEYS) * 13 / 10,
        "expected the overwritten keys' old versions kept: {held} entries for {KEYS} keys"
    );
    let estimate = db.property_int("lsmlab.estimate-obsolete-bytes").unwrap();
    assert!(estimate > 0, "the obsolete versions should be estimated");
    // The estimate is in the MANIFEST: a reopened database knows it without writing.
    db.close().unwrap();
    let db = Db::open(DIR, options(&fs, 0)).unwrap();
    assert_eq!(
        db.property_int("lsmlab.estimate-obsolete-bytes").unwrap(),
        estimate
    );
    check(&db, &model);
}

#[test]
fn with_the_trigger_the_old_versions_are_compacted_away() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 5)).unwrap();
    let model = fill_then_overwrite(&db);
    check(&db, &model);
    let held = entries(&db);
    // Within the 5 % allowance, with room for the estimate's sampling error and the
    // versions level 0 still holds.
    assert!(
        held <= u64::from(KEYS) * 11 / 10,
        "{held} entries for {KEYS} keys"
    );
    let live: u64 = db.property_int("rocksdb.live-sst-files-size").unwrap();
    let estimate = db.property_int("lsmlab.estimate-obsolete-bytes").unwrap();
    assert!(
        estimate * 100 <= live * 5,
        "estimate {estimate} of {live} bytes is past the allowance"
    );
    db.close().unwrap();
    let db = Db::open(DIR, options(&fs, 5)).unwrap();
    check(&db, &model);
}
