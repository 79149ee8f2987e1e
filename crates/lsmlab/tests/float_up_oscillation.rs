//! Float-up and compaction must not undo each other without end: in deterministic mode the
//! work a user operation runs inline is bounded, every get returns, and the float-ups that a
//! compaction undid soon after are counted.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, Ticker};
use std::sync::mpsc;
use std::time::Duration;

/// The setup reported to livelock: the fslsm layout on the `fslsm-study` shape, γ = 0.01,
/// 64 KiB memtables, deterministic background work.
fn livelock_options(fs: &MemFs) -> Options {
    let mut o = Options {
        fs: std::sync::Arc::new(fs.clone()),
        deterministic_background: true,
        ..Options::default()
    };
    o.apply_shape("fslsm-study").unwrap();
    o.apply_layout_preset("fslsm").unwrap();
    o.fslsm.gamma = 0.01;
    o.fslsm.read_ratio_window = 500;
    o.write_buffer_size = 64 << 10;
    o
}

const KEYS: u32 = 3000;

/// The float-ups one user call may run inline (`InlineBudget::FLOAT_UPS`, internal to the
/// engine): as many as FSLSM queues at once.
const INLINE_FLOAT_UPS: u64 = 16;

/// Loads 3,000 keys (twice over), then runs gets of skewed keys with a write every fourth
/// operation; checks each answer and that no operation ran more float-ups than the bound.
/// Returns the float-ups run and those undone.
fn load_and_read(db: &Db) -> (u64, u64) {
    for round in 0..2 {
        for i in 0..KEYS {
            let k = (i as u64 * 7919 % KEYS as u64) as u32;
            db.put(&key(k), &value(k, round, 120)).unwrap();
        }
    }
    let mut version = vec![1u32; KEYS as usize];
    let mut x = 1u64;
    let floats = || db.statistics().ticker(Ticker::FloatUps);
    for i in 0..6000u32 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 33) % 1000;
        let k = (r * r / 1000 * 3) as u32 % KEYS;
        let before = floats();
        if i % 4 == 3 {
            version[k as usize] = 2 + i;
            db.put(&key(k), &value(k, 2 + i, 120)).unwrap();
        } else {
            let want = value(k, version[k as usize], 120);
            assert_eq!(db.get(&key(k)).unwrap(), Some(want), "get {k}");
        }
        let ran = floats() - before;
        assert!(
            ran <= INLINE_FLOAT_UPS,
            "operation {i} ran {ran} float-ups inline"
        );
    }
    db.wait_for_background_work().unwrap();
    let s = db.statistics();
    (s.ticker(Ticker::FloatUps), s.ticker(Ticker::FloatUpsUndone))
}

#[test]
fn every_get_returns_and_inline_float_ups_are_bounded_per_operation() {
    // A guard, not a timing: an operation that never returns fails the test instead of
    // hanging it.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let fs = MemFs::new();
        let db = Db::open(DIR, livelock_options(&fs)).unwrap();
        let counts = load_and_read(&db);
        let summary = db.property("rocksdb.stats").unwrap();
        let _ = tx.send((counts, summary));
    });
    let ((floats, undone), summary) = rx
        .recv_timeout(Duration::from_secs(300))
        .expect("an operation never returned (or panicked)");
    assert!(floats > 0, "no float-up ran");
    assert!(undone <= floats, "{undone} of {floats}");
    assert!(
        summary.contains(&format!(
            "undone by compaction within 500 operations: {undone}"
        )),
        "{summary}"
    );
}

#[test]
fn the_same_workload_counts_the_same_undone_float_ups() {
    let run = || {
        let fs = MemFs::new();
        let db = Db::open(DIR, livelock_options(&fs)).unwrap();
        load_and_read(&db)
    };
    assert_eq!(run(), run());
}
