//! `deterministic_background`: flushes, compactions and float-ups done by the calling thread
//! at fixed points, so that a repeat of a workload repeats every counted figure.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, ReadOptions, Ticker};
use std::collections::BTreeMap;

/// Counters and tree of one run of a mixed workload under `opts(fs)`.
fn run(opts: impl Fn(&MemFs) -> Options) -> (Vec<u64>, String, BTreeMap<Vec<u8>, Vec<u8>>) {
    let fs = MemFs::new();
    let db = Db::open(DIR, opts(&fs)).unwrap();
    let mut model = BTreeMap::new();
    let mut x = 7u64;
    for i in 0..6000u32 {
        // A fixed pseudo-random sequence: 60 % gets, the rest puts, over 800 keys.
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = ((x >> 33) % 800) as u32;
        if (x >> 20) % 10 < 6 {
            assert_eq!(
                db.get(&key(k)).unwrap(),
                model.get(&key(k)).cloned(),
                "get {k}"
            );
        } else {
            let v = value(k, i, 40);
            db.put(&key(k), &v).unwrap();
            model.insert(key(k), v);
        }
    }
    db.wait_for_background_work().unwrap();
    assert_eq!(scan(&db, &ReadOptions::default()), model);
    let s = db.statistics();
    let counters = [
        Ticker::FilesProbed,
        Ticker::FilesCheckedFound,
        Ticker::GetHitL0,
        Ticker::GetHitL1,
        Ticker::GetHitL2AndUp,
        Ticker::FloatUps,
        Ticker::FloatUpWriteBytes,
        Ticker::Flushes,
        Ticker::FlushWriteBytes,
        Ticker::Compactions,
        Ticker::CompactReadBytes,
        Ticker::CompactWriteBytes,
    ]
    .map(|t| s.ticker(t))
    .to_vec();
    (counters, db.property("rocksdb.sstables").unwrap(), model)
}

fn deterministic_fslsm(fs: &MemFs) -> Options {
    let mut o = Options {
        deterministic_background: true,
        max_background_jobs: 3,
        ..forced_fslsm_options(fs)
    };
    o.fslsm.read_ratio_window = 100;
    o
}

#[test]
fn two_runs_of_one_workload_count_the_same() {
    let (a, tree_a, model_a) = run(deterministic_fslsm);
    let (b, tree_b, model_b) = run(deterministic_fslsm);
    assert_eq!(model_a, model_b);
    assert!(a[5] > 0, "no float-up ran: {a:?}");
    assert!(a[7] > 3 && a[9] > 0, "flushes and compactions ran: {a:?}");
    assert_eq!(a, b, "counters differ between two runs");
    assert_eq!(tree_a, tree_b, "the trees differ");
    // Leveled, with victims by frequency and limits in tables, too.
    let leveled = |fs: &MemFs| Options {
        deterministic_background: true,
        max_files_for_level_base: 2,
        compaction_victims: lsmlab::CompactionVictims::LowestFrequency,
        ..small_options(fs)
    };
    let (a, tree_a, _) = run(leveled);
    let (b, tree_b, _) = run(leveled);
    assert_eq!((a, tree_a), (b, tree_b));
}
