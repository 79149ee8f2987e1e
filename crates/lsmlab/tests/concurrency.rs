//! Several writer and reader threads with background flushes and compactions; readers must see
//! each key's versions in order, and the end state must equal the model.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, ReadOptions};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const WRITERS: u32 = 4;
const KEYS_PER_WRITER: u32 = 150;
const ROUNDS: u32 = 12;

fn version_of(v: &[u8]) -> u32 {
    let s = std::str::from_utf8(v).unwrap();
    s.split('-').nth(1).unwrap().parse().unwrap()
}

#[test]
fn concurrent_writers_and_readers_agree_with_the_model() {
    let fs = MemFs::new();
    // Two compaction threads, so that compactions also race each other.
    let opts = lsmlab::Options {
        max_background_jobs: 3,
        ..small_options(&fs)
    };
    let db = Arc::new(Db::open(DIR, opts).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for r in 0..2u32 {
        let (db, stop) = (db.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            let mut seen: BTreeMap<u32, u32> = BTreeMap::new();
            let mut i = r;
            let mut reads = 0;
            while !stop.load(Ordering::Relaxed) || reads < 1000 {
                let k = (i * 31) % (WRITERS * KEYS_PER_WRITER);
                i += 1;
                reads += 1;
                if let Some(v) = db.get(&key(k)).unwrap() {
                    let ver = version_of(&v);
                    let prev = seen.insert(k, ver).unwrap_or(0);
                    assert!(
                        ver >= prev,
                        "key {k}: version went back from {prev} to {ver}"
                    );
                }
                if reads % 200 == 0 {
                    // A scan sees each key once, in order.
                    let m = scan(&db, &ReadOptions::default());
                    assert!(m.len() <= (WRITERS * KEYS_PER_WRITER) as usize);
                }
            }
        }));
    }
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let db = db.clone();
        writers.push(std::thread::spawn(move || {
            for round in 1..=ROUNDS {
                for j in 0..KEYS_PER_WRITER {
                    let k = w * KEYS_PER_WRITER + j;
                    db.put(&key(k), &value(k, round, 50)).unwrap();
                }
            }
        }));
    }
    for t in writers {
        t.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for t in readers {
        t.join().unwrap();
    }
    db.wait_for_background_work().unwrap();
    let got = scan(&db, &ReadOptions::default());
    assert_eq!(got.len(), (WRITERS * KEYS_PER_WRITER) as usize);
    for (k, v) in &got {
        let i: u32 = std::str::from_utf8(&k[3..]).unwrap().parse().unwrap();
        assert_eq!(v, &value(i, ROUNDS, 50));
    }
    let stats = db.statistics();
    assert!(stats.ticker(lsmlab::Ticker::Flushes) > 0);
}

/// Writers commit in two overlapping stages (WAL record, then memtable insert): a snapshot must
/// still be a fixed point in time. Two scans under one snapshot, taken while writers commit
/// and memtables switch, must read the same keys and values; and a key's version seen by a
/// plain get after the snapshot's scan can only be newer or equal.
#[test]
fn reads_under_one_snapshot_do_not_change_while_writers_commit() {
    let fs = MemFs::new();
    let db = Arc::new(Db::open(DIR, small_options(&fs)).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut checks = 0;
            while !stop.load(Ordering::Relaxed) || checks < 50 {
                let opts = ReadOptions {
                    snapshot: Some(db.snapshot()),
                    ..Default::default()
                };
                let first = scan(&db, &opts);
                let second = scan(&db, &opts);
                assert_eq!(first, second, "two scans under one snapshot differ");
                for (k, v) in first.iter().take(20) {
                    let now = db
                        .get(k)
                        .unwrap()
                        .expect("a key seen under a snapshot vanished");
                    assert!(version_of(&now) >= version_of(v));
                }
                checks += 1;
            }
            checks
        })
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                for round in 1..=ROUNDS {
                    for j in 0..KEYS_PER_WRITER {
                        let k = w * KEYS_PER_WRITER + j;
                        db.put(&key(k), &value(k, round, 50)).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in writers {
        t.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() >= 50);
    let got = scan(&db, &ReadOptions::default());
    assert_eq!(got.len(), (WRITERS * KEYS_PER_WRITER) as usize);
    assert!(got.values().all(|v| version_of(v) == ROUNDS));
}
