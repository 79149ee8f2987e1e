//! Bit flips in every kind of file give errors (or the right data), never a panic or a wrong
//! value.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Error, ReadOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// A database with tables on several levels, a MANIFEST and an unflushed WAL; each key is
/// written exactly once, so any value a read returns must be that one.
fn build() -> (MemFs, BTreeMap<Vec<u8>, Vec<u8>>) {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..600u32 {
        let k = (i * 7919) % 600;
        let v = value(k, 0, 60);
        db.put(&key(k), &v).unwrap();
        model.insert(key(k), v);
        if i == 450 {
            db.wait_for_background_work().unwrap();
        }
    }
    db.close().unwrap();
    (fs, model)
}

fn kind_of(p: &Path) -> &'static str {
    let n = p.file_name().unwrap().to_str().unwrap();
    if n.ends_with(".sst") {
        "table"
    } else if n.ends_with(".log") {
        "wal"
    } else if n.starts_with("MANIFEST") {
        "manifest"
    } else {
        "other"
    }
}

/// Opens and reads everything; checks that nothing read is wrong. Returns whether an error was
/// reported.
fn read_back(fs: &MemFs, model: &BTreeMap<Vec<u8>, Vec<u8>>) -> bool {
    let db = match Db::open(DIR, small_options(fs)) {
        Ok(db) => db,
        Err(Error::Corruption { .. }) => return true,
        Err(e) => panic!("open failed with a non-corruption error: {e}"),
    };
    let mut errored = false;
    for (k, v) in model {
        match db.get(k) {
            Ok(Some(got)) => assert_eq!(&got, v, "wrong value for {k:?}"),
            Ok(None) => {} // lost with a damaged WAL tail: allowed, never a wrong value
            Err(e) => {
                assert!(
                    e.is_corruption(),
                    "get failed with a non-corruption error: {e}"
                );
                errored = true;
            }
        }
    }
    let mut it = match db.iter(&ReadOptions::default()) {
        Ok(it) => it,
        Err(e) => {
            assert!(
                e.is_corruption(),
                "iterator creation failed with a non-corruption error: {e}"
            );
            return true;
        }
    };
    it.seek_to_first();
    while it.valid() {
        assert_eq!(
            model.get(it.key()),
            Some(&it.value().to_vec()),
            "scan returned a wrong entry"
        );
        it.next();
    }
    if let Err(e) = it.status() {
        assert!(
            e.is_corruption(),
            "scan failed with a non-corruption error: {e}"
        );
        errored = true;
    }
    errored
}

#[test]
fn bit_flips_in_every_file_type_never_give_wrong_data() {
    let (fs, model) = build();
    let files = fs.files();
    let mut seen = BTreeMap::new();
    let mut detected = BTreeMap::new();
    let mut rng = 0x9e3779b97f4a7c15u64;
    for (path, len) in &files {
        let kind = kind_of(path);
        if kind == "other" || *len == 0 {
            continue;
        }
        for _ in 0..12 {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1);
            let offset = (rng >> 16) as usize % len;
            let bit = (rng >> 8) as u8 % 8;
            let image = fs.crash_image(|_, n| n);
            image.flip_bit(path, offset, bit);
            *seen.entry(kind).or_insert(0) += 1;
            if read_back(&image, &model) {
                *detected.entry(kind).or_insert(0) += 1;
            }
        }
    }
    for kind in ["table", "wal", "manifest"] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} file was damaged"
        );
    }
    // Table and MANIFEST flips are all checksummed: most must be reported, not silently ignored.
    assert!(
        detected.get("table").copied().unwrap_or(0) * 2 >= seen["table"],
        "{detected:?} of {seen:?}"
    );
    assert!(
        detected.get("manifest").copied().unwrap_or(0) > 0,
        "{detected:?} of {seen:?}"
    );
}

#[test]
fn corruption_errors_name_the_file_and_offset() {
    let (fs, model) = build();
    let (table, len) = fs
        .files()
        .into_iter()
        .find(|(p, _)| kind_of(p) == "table")
        .unwrap();
    // The middle of the first data block.
    fs.flip_bit(&table, (len / 4).min(100), 3);
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    let mut found = None;
    for k in model.keys() {
        if let Err(e) = db.get(k) {
            found = Some(e);
            break;
        }
    }
    match found {
        Some(Error::Corruption { file, .. }) => assert_eq!(file, table),
        other => panic!("expected a corruption error naming {table:?}, got {other:?}"),
    }
}
