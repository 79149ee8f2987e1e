//! The public API on the real file system: basic operations, reopen, open errors, properties.

mod common;

use common::*;
use lsmlab::{Db, Error, Options, ReadOptions, WriteBatch, WriteOptions};

fn opts() -> Options {
    Options {
        write_buffer_size: 64 * 1024,
        target_file_size_base: 32 * 1024,
        max_bytes_for_level_base: 128 * 1024,
        ..Options::default()
    }
}

#[test]
fn put_get_delete_batch_and_reopen_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"2").unwrap();
    db.delete(b"a").unwrap();
    let mut batch = WriteBatch::new();
    batch.put(b"c", b"3");
    batch.delete(b"b");
    db.write(
        &WriteOptions {
            sync: true,
            ..Default::default()
        },
        batch,
    )
    .unwrap();
    for i in 0..5000u32 {
        db.put(&key(i), &value(i, 1, 100)).unwrap();
    }
    assert_eq!(db.get(b"a").unwrap(), None);
    assert_eq!(db.get(b"b").unwrap(), None);
    assert_eq!(db.get(b"c").unwrap(), Some(b"3".to_vec()));
    db.close().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    assert_eq!(db.get(b"c").unwrap(), Some(b"3".to_vec()));
    assert_eq!(db.get(&key(4321)).unwrap(), Some(value(4321, 1, 100)));
    assert_eq!(scan(&db, &ReadOptions::default()).len(), 5001);
    let files: u64 = (0..7)
        .map(|l| {
            db.property_int(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
        })
        .sum();
    assert!(files > 0);
    assert!(db.property_int("rocksdb.total-sst-files-size").unwrap() > 0);
    assert!(db
        .property("rocksdb.stats")
        .unwrap()
        .contains("Compaction Stats"));
}

/// Tables and blob files read through memory maps give what `pread` gives, through
/// compactions (which delete mapped inputs) and a reopen.
#[test]
fn mapped_reads_match_a_model_through_compaction_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let o = || Options {
        allow_mmap_reads: true,
        enable_blob_files: true,
        min_blob_size: 150,
        ..opts()
    };
    let db = Db::open(dir.path(), o()).unwrap();
    let mut model = std::collections::BTreeMap::new();
    for round in 0..3u32 {
        for i in 0..3000u32 {
            let k = key(i * 7 % 2000);
            // Alternate small (inline) and large (blob file) values.
            let v = value(i, round, if i % 2 == 0 { 100 } else { 300 });
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        for (k, v) in &model {
            assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "round {round}");
        }
    }
    db.close().unwrap();
    let db = Db::open(dir.path(), o()).unwrap();
    let got = scan(&db, &ReadOptions::default());
    assert_eq!(got.len(), model.len());
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
}

#[test]
fn snapshots_ignore_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"k", b"old").unwrap();
    let snap = db.snapshot();
    db.put(b"k", b"new").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let ro = ReadOptions {
        snapshot: Some(snap),
        ..Default::default()
    };
    assert_eq!(db.get_with(&ro, b"k").unwrap(), Some(b"old".to_vec()));
    assert_eq!(db.get(b"k").unwrap(), Some(b"new".to_vec()));
}

#[test]
fn a_second_open_of_the_same_directory_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let _db = Db::open(dir.path(), opts()).unwrap();
    match Db::open(dir.path(), opts()) {
        Err(e @ Error::NotADatabase(_)) => assert!(e.to_string().contains("locked"), "{e}"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("second open succeeded"),
    }
}

#[test]
fn opening_a_file_or_a_missing_db_without_create_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"not a db").unwrap();
    let e = Db::open(&file, opts()).expect_err("opening a file must fail");
    assert!(e.to_string().contains("not a database"), "{e}");
    let missing = dir.path().join("none");
    let e = Db::open(
        &missing,
        Options {
            create_if_missing: false,
            ..opts()
        },
    )
    .expect_err("must fail");
    assert!(e.to_string().contains("create_if_missing"), "{e}");
    assert!(!missing.exists(), "a refused open leaves nothing behind");
}

#[test]
fn invalid_options_are_refused_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    for (o, name) in [
        (
            Options {
                write_buffer_size: 10,
                ..opts()
            },
            "write_buffer_size",
        ),
        (
            Options {
                num_levels: 1,
                ..opts()
            },
            "num_levels",
        ),
        (
            Options {
                max_bytes_for_level_multiplier: 0.5,
                ..opts()
            },
            "max_bytes_for_level_multiplier",
        ),
        (
            Options {
                level0_stop_writes_trigger: 1,
                ..opts()
            },
            "level0_stop_writes_trigger",
        ),
        (
            Options {
                block_size: 0,
                ..opts()
            },
            "block_size",
        ),
    ] {
        let e = Db::open(dir.path(), o).expect_err("invalid options accepted");
        assert!(e.to_string().contains(name), "{e} should name {name}");
    }
}

#[test]
fn failed_writes_stop_the_database_and_lose_nothing_acknowledged() {
    use lsmlab::env::{FaultFs, FaultSwitch, MemFs};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let mem = MemFs::new();
    let switch = FaultSwitch::new();
    let o = Options {
        fs: Arc::new(FaultFs::new(Arc::new(mem.clone()), switch.clone())),
        ..small_options(&mem)
    };
    let db = Db::open(DIR, o).unwrap();
    let sync = WriteOptions {
        sync: true,
        ..Default::default()
    };
    let mut acked = Vec::new();
    switch.writes_until_failure.store(300, Ordering::Relaxed);
    let mut failed = false;
    for i in 0..2000u32 {
        let mut b = WriteBatch::new();
        b.put(&key(i), &value(i, 0, 40));
        match db.write(&sync, b) {
            Ok(()) => acked.push(i),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert!(failed, "the injected fault never surfaced");
    // Once failed, the database refuses writes with a clear error.
    let e = db
        .put(b"x", b"y")
        .expect_err("write after failure accepted");
    assert!(
        e.to_string().contains("refused") || e.to_string().contains("injected"),
        "{e}"
    );
    switch.fail_writes.store(false, Ordering::Relaxed);
    switch.writes_until_failure.store(-1, Ordering::Relaxed);
    drop(db);
    let db = Db::open(DIR, small_options(&mem)).unwrap();
    for i in acked {
        assert_eq!(
            db.get(&key(i)).unwrap(),
            Some(value(i, 0, 40)),
            "acknowledged key {i} lost"
        );
    }
}

#[test]
fn latency_histograms_are_recorded_only_with_statistics() {
    use lsmlab::HistogramKind;
    for statistics in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(
            dir.path(),
            Options {
                statistics,
                ..opts()
            },
        )
        .unwrap();
        db.put(b"k", b"v").unwrap();
        assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
        let mut it = db.iter(&ReadOptions::default()).unwrap();
        it.seek(b"k");
        assert!(it.valid());
        let count = |h| db.statistics().histogram(h).count;
        let expected = u64::from(statistics);
        for h in [
            HistogramKind::DbWrite,
            HistogramKind::DbGet,
            HistogramKind::DbSeek,
        ] {
            assert_eq!(count(h), expected, "{h:?} with statistics={statistics}");
        }
    }
}
