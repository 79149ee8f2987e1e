//! Key-value separation: blob files written at flush and compaction, read back by gets,
//! iterators and snapshots, tracked in the MANIFEST, removed when orphaned or all garbage.

mod common;

use common::*;
use lsmlab::env::{IoCategory, MemFs};
use lsmlab::{Db, Error, Options, ReadOptions, Ticker};
use std::path::PathBuf;

fn blob_options(fs: &MemFs, min_blob_size: u64) -> Options {
    Options {
        enable_blob_files: true,
        min_blob_size,
        blob_file_size: 4096,
        ..small_options(fs)
    }
}

fn blob_files(fs: &MemFs) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs
        .files()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.extension().is_some_and(|e| e == "blob"))
        .collect();
    v.sort();
    v
}

#[test]
fn values_from_min_blob_size_go_to_blob_files_and_read_back() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 50)).unwrap();
    for i in 0..200u32 {
        // Half the values are below min_blob_size (stay inline), half at or above it.
        db.put(&key(i), &value(i, 1, 40 + (i as usize % 2) * 20))
            .unwrap();
    }
    db.flush().unwrap();
    assert!(!blob_files(&fs).is_empty());
    let st = db.statistics();
    let written = st.ticker(Ticker::BlobFileBytesWritten);
    let on_disk: u64 = blob_files(&fs)
        .iter()
        .map(|p| fs.read_file_for_test(p).len() as u64)
        .sum();
    assert_eq!(written, on_disk);
    assert_eq!(db.io_stats().get(IoCategory::Blob).bytes_written, on_disk);
    assert!(
        st.ticker(Ticker::FlushWriteBytes) > on_disk,
        "flush bytes include blob bytes"
    );
    assert_eq!(
        db.property_int("rocksdb.total-blob-file-size"),
        Some(on_disk)
    );
    // Only the 100 values of 60 bytes were separated: blob bytes are about 100 × 60.
    let live = db.property_int("rocksdb.live-blob-file-size").unwrap();
    assert_eq!(live, on_disk);
    assert_eq!(
        db.property_int("rocksdb.live-blob-file-garbage-size"),
        Some(0)
    );
    assert!(
        (100 * 60..100 * 90).contains(&live),
        "live blob bytes {live}"
    );
    for i in 0..200u32 {
        let want = value(i, 1, 40 + (i as usize % 2) * 20);
        assert_eq!(db.get(&key(i)).unwrap(), Some(want));
    }
    assert!(st.ticker(Ticker::BlobFileBytesRead) > 0);
    let n = db.property_int("rocksdb.num-blob-files").unwrap();
    drop(db);
    let db = Db::open(DIR, blob_options(&fs, 50)).unwrap();
    assert_eq!(db.property_int("rocksdb.num-blob-files"), Some(n));
    let all = scan(&db, &ReadOptions::default());
    assert_eq!(all.len(), 200);
    for (i, (k, v)) in all.iter().enumerate() {
        assert_eq!(k, &key(i as u32));
        assert_eq!(v, &value(i as u32, 1, 40 + (i % 2) * 20));
    }
}

#[test]
fn blob_files_written_earlier_read_back_with_separation_off() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    db.put(b"k", &[7u8; 300]).unwrap();
    db.flush().unwrap();
    drop(db);
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(vec![7u8; 300]));
    assert_eq!(db.property_int("rocksdb.num-blob-files"), Some(1));
}

#[test]
fn snapshots_read_old_values_from_blob_files() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 10)).unwrap();
    db.put(b"k", b"first value, long enough").unwrap();
    db.flush().unwrap();
    let snap = db.snapshot();
    db.put(b"k", b"second value, long enough").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let ro = ReadOptions {
        snapshot: Some(snap),
        ..Default::default()
    };
    assert_eq!(
        db.get_with(&ro, b"k").unwrap().as_deref(),
        Some(&b"first value, long enough"[..])
    );
    assert_eq!(
        db.get(b"k").unwrap().as_deref(),
        Some(&b"second value, long enough"[..])
    );
}

#[test]
fn orphan_blob_files_are_removed_at_open() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    db.put(b"k", b"value").unwrap();
    db.flush().unwrap();
    drop(db);
    let live = blob_files(&fs);
    assert_eq!(live.len(), 1);
    // A blob file of a flush that crashed before its MANIFEST edit.
    let orphan = PathBuf::from(DIR).join("999999.blob");
    {
        use lsmlab::env::FileSystem;
        let mut f = fs.create_file(&orphan).unwrap();
        f.append(b"partial").unwrap();
        f.sync().unwrap();
    }
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    assert_eq!(blob_files(&fs), live);
    assert_eq!(db.get(b"k").unwrap(), Some(b"value".to_vec()));
}

#[test]
fn a_flipped_bit_in_a_blob_file_is_corruption_naming_it() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    for i in 0..20u32 {
        db.put(&key(i), &value(i, 0, 100)).unwrap();
    }
    db.flush().unwrap();
    let files = blob_files(&fs);
    assert_eq!(files.len(), 1);
    // A bit in the middle of the records area (past the 12-byte header).
    let len = fs.read_file_for_test(&files[0]).len();
    fs.flip_bit(&files[0], len / 2, 3);
    let mut corrupt = 0;
    for i in 0..20u32 {
        match db.get(&key(i)) {
            Ok(v) => assert_eq!(v, Some(value(i, 0, 100))),
            Err(Error::Corruption { file, offset, .. }) => {
                assert_eq!(file, files[0]);
                assert!(offset > 0 && (offset as usize) < len);
                corrupt += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(corrupt, 1);
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    assert!(it.status().unwrap_err().is_corruption());
}

#[test]
fn blob_options_are_validated_by_name() {
    let fs = MemFs::new();
    for (opts, name) in [
        (
            Options {
                blob_file_size: 10,
                ..blob_options(&fs, 0)
            },
            "blob_file_size",
        ),
        (
            Options {
                blob_garbage_collection_age_cutoff: 1.5,
                ..blob_options(&fs, 0)
            },
            "blob_garbage_collection_age_cutoff",
        ),
        (
            Options {
                blob_garbage_collection_force_threshold: -0.1,
                ..blob_options(&fs, 0)
            },
            "blob_garbage_collection_force_threshold",
        ),
    ] {
        let e = Db::open(DIR, opts).unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
    }
}

/// (file, records, bytes, garbage records, garbage bytes) of each live blob file.
fn blob_garbage(db: &Db) -> Vec<[u64; 5]> {
    db.property("lsmlab.blob-files")
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<u64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3], v[4]]
        })
        .collect()
}

#[test]
fn compaction_separates_inline_values_of_at_least_min_blob_size() {
    let fs = MemFs::new();
    let opts = Options {
        // Keep the tables in level 0 so that compact_range rewrites them.
        disable_auto_compactions: true,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    for i in 0..50u32 {
        db.put(&key(i), &value(i, 0, 80)).unwrap();
    }
    db.flush().unwrap();
    drop(db);
    assert!(blob_files(&fs).is_empty());
    let db = Db::open(DIR, blob_options(&fs, 50)).unwrap();
    db.compact_range(None, None).unwrap();
    assert!(db.property_int("rocksdb.num-blob-files").unwrap() > 0);
    let blob_bytes: u64 = blob_files(&fs)
        .iter()
        .map(|p| fs.read_file_for_test(p).len() as u64)
        .sum();
    let st = db.statistics();
    assert_eq!(st.ticker(Ticker::BlobFileBytesWritten), blob_bytes);
    assert!(
        // Counted from the open on: a background compaction may have run before compact_range.
        st.ticker(Ticker::CompactWriteBytes) > blob_bytes,
        "compaction write bytes include the blob files it wrote"
    );
    for i in 0..50u32 {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i, 0, 80)));
    }
}

#[test]
fn dropped_blob_indexes_become_garbage_and_all_garbage_files_are_deleted() {
    let fs = MemFs::new();
    let db = Db::open(
        DIR,
        Options {
            disable_auto_compactions: true,
            ..blob_options(&fs, 0)
        },
    )
    .unwrap();
    for i in 0..20u32 {
        db.put(&key(i), &value(i, 0, 100)).unwrap();
    }
    db.flush().unwrap();
    let first = blob_files(&fs);
    assert_eq!(first.len(), 1);
    let g = blob_garbage(&db);
    assert_eq!((g[0][1], g[0][3]), (20, 0));
    // Overwrite half: after compaction half the first file's records are garbage.
    for i in 0..10u32 {
        db.put(&key(i), &value(i, 1, 100)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let g = blob_garbage(&db);
    let old = g.iter().find(|f| f[0] == g[0][0]).unwrap();
    assert_eq!(old[3], 10, "garbage records of the first file: {g:?}");
    assert!(old[4] > 0 && old[4] < old[2]);
    let garbage = db
        .property_int("rocksdb.live-blob-file-garbage-size")
        .unwrap();
    assert_eq!(garbage, old[4]);
    // A snapshot keeps the old versions (and the file) readable.
    let snap = db.snapshot();
    for i in 10..20u32 {
        db.delete(&key(i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    assert!(first.iter().all(|p| blob_files(&fs).contains(p)));
    let ro = ReadOptions {
        snapshot: Some(snap),
        ..Default::default()
    };
    assert_eq!(db.get_with(&ro, &key(15)).unwrap(), Some(value(15, 0, 100)));
    drop(ro);
    // With the snapshot gone, the next compaction drops the rest: the file is all garbage.
    db.put(&key(0), b"x").unwrap();
    db.compact_range(None, None).unwrap();
    assert!(
        first.iter().all(|p| !blob_files(&fs).contains(p)),
        "an all-garbage blob file is deleted: {:?}",
        blob_garbage(&db)
    );
    for i in 1..10u32 {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i, 1, 100)));
    }
    assert_eq!(db.get(&key(15)).unwrap(), None);
    drop(db);
    // The garbage was recorded in the MANIFEST: the file stays gone and the rest reads back.
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    assert!(first.iter().all(|p| !blob_files(&fs).contains(p)));
    assert_eq!(db.get(&key(5)).unwrap(), Some(value(5, 1, 100)));
}

#[test]
fn an_open_iterator_keeps_a_deleted_blob_file_readable() {
    let fs = MemFs::new();
    let db = Db::open(DIR, blob_options(&fs, 0)).unwrap();
    for i in 0..10u32 {
        db.put(&key(i), &value(i, 0, 100)).unwrap();
    }
    db.flush().unwrap();
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    for i in 0..10u32 {
        db.delete(&key(i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        assert_eq!(it.value(), &value(n, 0, 100)[..]);
        n += 1;
        it.next();
    }
    it.status().unwrap();
    assert_eq!(n, 10);
    // The iterator's version still lists the deleted file: total counts it, live does not.
    let total = db.property_int("rocksdb.total-blob-file-size").unwrap();
    let live = db.property_int("rocksdb.live-blob-file-size").unwrap();
    assert!(total > live, "total {total} live {live}");
    drop(it);
    db.put(b"z", b"1").unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.property_int("rocksdb.num-blob-files"), Some(1));
    assert_eq!(
        db.property_int("rocksdb.total-blob-file-size"),
        db.property_int("rocksdb.live-blob-file-size")
    );
}

/// Bytes of every file of the database.
fn db_size(fs: &MemFs) -> u64 {
    fs.files().iter().map(|(_, n)| *n as u64).sum()
}

/// Overwrites 2,000 hot keys 10 times, with one key written once and never again after every
/// 100 puts, so that every blob file keeps a few live records among its garbage (without GC a
/// blob file is deleted only when all of its records are dead). The live data spans many
/// memtables, as in any real database, so that the versions still waiting in level 0 for
/// compaction are a small part of it. Returns the database size after a reopen, the live user
/// bytes and the bytes GC relocated.
fn overwrite_rounds(gc: bool) -> (u64, u64, u64) {
    const HOT: u32 = 1000;
    const ROUNDS: u32 = 10;
    const COLD_EVERY: u32 = 50;
    const LEN: usize = 1000;
    let fs = MemFs::new();
    let opts = Options {
        enable_blob_garbage_collection: gc,
        // RocksDB's default cutoff (the oldest quarter of blob files); compactions are forced
        // once those files are half garbage (RocksDB's default 1.0 never forces).
        blob_garbage_collection_age_cutoff: 0.25,
        blob_garbage_collection_force_threshold: 0.5,
        max_bytes_for_level_multiplier: 10.0,
        blob_file_size: 32 << 10,
        write_buffer_size: 32 << 10,
        ..blob_options(&fs, 0)
    };
    let db = Db::open(DIR, opts.clone()).unwrap();
    let mut cold = 0u32;
    let mut cold_keys = Vec::new();
    for round in 0..ROUNDS {
        for i in 0..HOT {
            db.put(&key(i), &value(i, round, LEN)).unwrap();
            if i % COLD_EVERY == 0 {
                let k = 100_000 + cold;
                db.put(&key(k), &value(k, round, LEN)).unwrap();
                cold_keys.push((k, round));
                cold += 1;
            }
        }
    }
    db.wait_for_background_work().unwrap();
    // Old versions still referenced from upper levels keep their blobs alive in any LSM; one
    // full compaction drops them, so that what remains measures blob garbage collection.
    db.compact_range(None, None).unwrap();
    db.wait_for_background_work().unwrap();
    for i in (0..HOT).step_by(7) {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i, ROUNDS - 1, LEN)));
    }
    let relocated = db.statistics().ticker(Ticker::BlobGcBytesRelocated);
    drop(db);
    // Every value survived its relocations, also after a reopen.
    let reopened = Db::open(DIR, opts.clone()).unwrap();
    for &(k, round) in &cold_keys {
        assert_eq!(reopened.get(&key(k)).unwrap(), Some(value(k, round, LEN)));
    }
    drop(reopened);
    // Reopening writes a fresh MANIFEST (one record of the whole state), so what is measured is
    // the data, not the history of edits.
    Db::open(DIR, opts).unwrap().close().unwrap();
    let keys = u64::from(HOT + cold);
    // Live user data: each live key (8 bytes) and its value.
    (db_size(&fs), keys * (LEN as u64 + 8), relocated)
}

#[test]
fn garbage_collection_keeps_space_near_live_data_and_without_it_space_grows() {
    let (with_gc, live, relocated) = overwrite_rounds(true);
    assert!(relocated > 0, "GC relocated nothing");
    assert!(
        (with_gc as f64) <= 1.5 * live as f64,
        "with GC: {with_gc} bytes for {live} live"
    );
    let (without_gc, _, relocated) = overwrite_rounds(false);
    assert_eq!(relocated, 0);
    assert!(
        without_gc > 3 * live,
        "without GC: {without_gc} bytes for {live} live"
    );
}
