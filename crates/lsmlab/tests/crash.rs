//! Crash tests: cut the power at random points (every unsynced byte may be lost, and part of an
//! unsynced tail may survive), reopen, and check that the database is exactly the state after
//! some write at or after the last write acknowledged with `sync`.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::options::Layout;
use lsmlab::{Db, Options, ReadOptions, WriteBatch, WriteOptions};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
enum Op {
    Write {
        keys: Vec<(u32, bool)>,
        sync: bool,
    },
    Flush,
    /// Gets of a run of keys: under FSLSM with float-ups forced, they start float-ups, which the
    /// power cut may catch in flight.
    Read(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (prop::collection::vec((0u32..120, prop::bool::weighted(0.85)), 1..6), prop::bool::weighted(0.2))
            .prop_map(|(keys, sync)| Op::Write { keys, sync }),
        1 => Just(Op::Flush),
        4 => (0u32..120).prop_map(Op::Read),
    ]
}

/// Options of the crash tests; `blobs` separates values of 30 bytes or more (half of them),
/// with garbage collection relocating and forcing compactions, so power cuts hit it too.
fn crash_options(fs: &MemFs, blobs: bool) -> Options {
    Options {
        enable_blob_files: blobs,
        enable_blob_garbage_collection: blobs,
        blob_garbage_collection_age_cutoff: 0.5,
        blob_garbage_collection_force_threshold: 0.2,
        min_blob_size: 30,
        blob_file_size: 1024,
        ..small_options(fs)
    }
}

/// The layout a crash run draws.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drawn {
    Leveled,
    /// The FSLSM layout with float-ups forced.
    Fslsm,
    /// Universal compaction, with two compaction threads and trivial moves allowed.
    Universal,
}

fn layout() -> impl Strategy<Value = Drawn> {
    prop_oneof![
        Just(Drawn::Leveled),
        Just(Drawn::Fslsm),
        Just(Drawn::Universal)
    ]
}

/// The options of a crash run under `layout`.
fn run_options(fs: &MemFs, blobs: bool, layout: Drawn) -> Options {
    let mut o = crash_options(fs, blobs);
    match layout {
        Drawn::Leveled => {}
        Drawn::Fslsm => {
            let forced = forced_fslsm_options(fs);
            o.layout = forced.layout;
            o.fslsm = forced.fslsm;
        }
        Drawn::Universal => {
            o.layout = Layout::Universal;
            o.max_background_jobs = 3;
            o.universal.allow_trivial_move = true;
        }
    }
    o
}

fn check_crash(ops: Vec<Op>, crash_at: usize, torn_seed: u64, blobs: bool, layout: Drawn) {
    let fs = MemFs::new();
    let opts = run_options(&fs, blobs, layout);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let mut model = BTreeMap::new();
    // states[i] = the database after the i-th write (states[0] = empty).
    let mut states = vec![model.clone()];
    let mut last_durable = 0;
    let crash_at = crash_at % (ops.len() + 1);
    for (i, op) in ops.iter().enumerate() {
        if i == crash_at {
            break;
        }
        match op {
            Op::Write { keys, sync } => {
                let mut b = WriteBatch::new();
                for &(k, put) in keys {
                    if put {
                        let v = value(k, i as u32, 20 + (k as usize * 7 + i) % 20);
                        b.put(&key(k), &v);
                        model.insert(key(k), v);
                    } else {
                        b.delete(&key(k));
                        model.remove(&key(k));
                    }
                }
                db.write(
                    &WriteOptions {
                        sync: *sync,
                        ..Default::default()
                    },
                    b,
                )
                .unwrap();
                states.push(model.clone());
                if *sync {
                    last_durable = states.len() - 1;
                }
            }
            Op::Flush => {
                db.flush().unwrap();
                // A flush makes everything before it durable.
                last_durable = states.len() - 1;
            }
            Op::Read(from) => {
                for k in *from..*from + 20 {
                    assert_eq!(
                        db.get(&key(k)).unwrap(),
                        model.get(&key(k)).cloned(),
                        "get {k}"
                    );
                }
            }
        }
    }
    let mut rng = torn_seed;
    let image = fs.crash_image(|_, unsynced| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if unsynced == 0 || rng >> 62 == 0 {
            0
        } else {
            (rng >> 20) as usize % (unsynced + 1)
        }
    });
    drop(db);
    // No automatic compaction after the reopen: the file count checked below must not move.
    let reopened = Db::open(
        DIR,
        Options {
            disable_auto_compactions: true,
            ..run_options(&image, blobs, layout)
        },
    )
    .unwrap();
    let got = scan(&reopened, &ReadOptions::default());
    let ok = states[last_durable..].contains(&got);
    assert!(
        ok,
        "recovered state is not the state after any write from #{last_durable} (the last synced) on; \
         recovered {} keys",
        got.len()
    );
    // No blob file leaks: every one left in the directory is live (orphans went at open).
    let blob_files = image
        .files()
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "blob"))
        .count() as u64;
    assert_eq!(
        Some(blob_files),
        reopened.property_int("rocksdb.num-blob-files")
    );
    // The recovered database keeps working.
    reopened.put(b"after-crash", b"1").unwrap();
    assert_eq!(reopened.get(b"after-crash").unwrap(), Some(b"1".to_vec()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn acknowledged_synced_writes_survive_power_cuts(
        ops in prop::collection::vec(op(), 1..300),
        crash_at in 0usize..400,
        torn_seed in any::<u64>(),
    ) {
        check_crash(ops, crash_at, torn_seed, false, Drawn::Leveled);
    }

    #[test]
    fn acknowledged_synced_writes_survive_power_cuts_with_blob_files(
        ops in prop::collection::vec(op(), 1..300),
        crash_at in 0usize..400,
        torn_seed in any::<u64>(),
    ) {
        check_crash(ops, crash_at, torn_seed, true, Drawn::Leveled);
    }

    #[test]
    fn acknowledged_synced_writes_survive_power_cuts_with_float_ups_in_flight(
        ops in prop::collection::vec(op(), 1..300),
        crash_at in 0usize..400,
        torn_seed in any::<u64>(),
        blobs in any::<bool>(),
    ) {
        check_crash(ops, crash_at, torn_seed, blobs, Drawn::Fslsm);
    }

    #[test]
    fn acknowledged_synced_writes_survive_power_cuts_under_any_layout(
        ops in prop::collection::vec(op(), 1..300),
        crash_at in 0usize..400,
        torn_seed in any::<u64>(),
        blobs in any::<bool>(),
        layout in layout(),
    ) {
        check_crash(ops, crash_at, torn_seed, blobs, layout);
    }
}

#[test]
fn a_crash_after_a_synced_write_keeps_it() {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    db.put(b"unsynced", b"x").unwrap();
    let mut b = WriteBatch::new();
    b.put(b"synced", b"y");
    db.write(
        &WriteOptions {
            sync: true,
            ..Default::default()
        },
        b,
    )
    .unwrap();
    let image = fs.crash_image(|_, _| 0);
    drop(db);
    let db = Db::open(DIR, small_options(&image)).unwrap();
    assert_eq!(db.get(b"synced").unwrap(), Some(b"y".to_vec()));
    // Written before the synced write into the same WAL, so it is durable too.
    assert_eq!(db.get(b"unsynced").unwrap(), Some(b"x".to_vec()));
}

#[test]
fn an_older_wal_lost_whole_stops_replay_before_a_newer_one() {
    let fs = MemFs::new();
    let db = Db::open(DIR, small_options(&fs)).unwrap();
    let logs = |fs: &MemFs| {
        let mut v: Vec<_> = fs
            .files()
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        v.sort();
        v
    };
    let mut i = 0u32;
    // Unsynced writes until the memtable switches to a second WAL, then one more write there.
    while logs(&fs).len() < 2 {
        db.put(&key(i), &value(i, 0, 100)).unwrap();
        i += 1;
    }
    db.put(b"in-the-newer-wal", b"x").unwrap();
    let older = logs(&fs)[0].clone();
    // The power cut loses all of the older WAL (never synced) but keeps the newer one.
    let image = fs.crash_image(|p, unsynced| if p == older { 0 } else { unsynced });
    drop(db);
    let db = Db::open(DIR, small_options(&image)).unwrap();
    let got = scan(&db, &ReadOptions::default());
    // The state after a prefix of the writes: the newer write only with every older one.
    if got.contains_key(&b"in-the-newer-wal"[..]) {
        assert_eq!(
            got.len() as u32,
            i + 1,
            "a newer write survived older lost ones"
        );
    }
}
