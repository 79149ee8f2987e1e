//! A user call under `deterministic_background` runs a bounded stretch of background work, even
//! while another thread reads: that thread's gets ask for float-ups without end, and none of
//! them may extend the call (the bound is the call's own budget, not a counter another thread
//! resets). Every answer is checked against a model.

mod common;

use common::*;
use lsmlab::env::MemFs;
use lsmlab::{Db, Options, ReadOptions, Ticker};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const KEYS: u32 = 3000;
/// Operations of the first thread after the load.
const OPERATIONS: u32 = 4_000;
/// The float-ups one user call may run inline (`InlineBudget::FLOAT_UPS`, internal to the
/// engine).
const INLINE_FLOAT_UPS: u64 = 16;

/// The reported setup: FSLSM on the study's shape, every hit in a deeper level asking to float
/// (γ = 0.01) and a read-ratio window of 64 operations (so a range's cool-down after an undone
/// float-up lasts 64 operations: the second thread's reads end it quickly), stretch increments
/// [0, 2, 1], 64 KiB memtables, no blob files, work done by the calling threads.
fn options(fs: &MemFs, frequency_victims: bool) -> Options {
    let mut o = Options {
        fs: Arc::new(fs.clone()),
        deterministic_background: true,
        max_bytes_for_level_base: 32 << 10,
        max_bytes_for_level_multiplier: 4.0,
        level0_file_num_compaction_trigger: 2,
        num_levels: 6,
        ..Options::default()
    };
    o.apply_layout_preset("fslsm").unwrap();
    o.apply_shape("fslsm-study").unwrap();
    o.fslsm.gamma = 0.01;
    o.fslsm.read_ratio_window = 64;
    o.fslsm.frequency_window = 2000;
    o.fslsm.stretch_increments = vec![0, 2, 1];
    o.write_buffer_size = 64 << 10;
    o.enable_blob_files = false;
    if frequency_victims {
        o.compaction_victims = lsmlab::CompactionVictims::LowestFrequency;
    }
    o
}

/// A skewed key: most draws fall on a few hundred keys.
fn skewed(x: &mut u64) -> u32 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let r = (*x >> 33) % 1000;
    // Hot keys scattered over the key space, so that they sit in many tables of every level.
    ((r * r / 1000 * 3) as u32 % KEYS) * 7919 % KEYS
}

/// Loads the keys, then runs a mix of gets and writes on this thread while a second thread
/// reads a snapshot of the load as fast as it can; checks that no call ran more float-ups than
/// its own budget.
fn run(frequency_victims: bool) -> Figures {
    let fs = MemFs::new();
    let db = Arc::new(Db::open(DIR, options(&fs, frequency_victims)).unwrap());
    // Three rounds of every key, compacted into a deep tree, then newer versions of a fifth of
    // the keys above it: hot keys are then found in deeper levels and ask to float.
    for round in 0..3 {
        for i in 0..KEYS {
            let k = (i * 7919 + round) % KEYS;
            db.put(&key(k), &value(k, 0, 120)).unwrap();
        }
    }
    db.compact_range(None, None).unwrap();
    db.wait_for_background_work().unwrap();
    for k in (0..KEYS).step_by(5) {
        db.put(&key(k), &value(k, 1, 120)).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    let loaded = |k: u32| value(k, u32::from(k.is_multiple_of(5)), 120);
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));
    // The load, as the second thread reads it: taken before this thread writes again.
    let snap = ReadOptions {
        snapshot: Some(db.snapshot()),
        ..Default::default()
    };
    let reader = {
        let (db, stop, reads) = (db.clone(), stop.clone(), reads.clone());
        std::thread::spawn(move || {
            let mut x = 7u64;
            while !stop.load(Ordering::Relaxed) {
                let k = skewed(&mut x);
                assert_eq!(db.get_with(&snap, &key(k)).unwrap(), Some(loaded(k)));
                reads.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let mut version: Vec<u32> = (0..KEYS).map(|k| u32::from(k.is_multiple_of(5))).collect();
    let mut x = 1u64;
    for i in 0..OPERATIONS {
        let k = skewed(&mut x);
        if i % 4 == 3 {
            version[k as usize] = 2 + i;
            db.put(&key(k), &value(k, 2 + i, 120)).unwrap();
        } else {
            let want = value(k, version[k as usize], 120);
            assert_eq!(db.get(&key(k)).unwrap(), Some(want), "get {k}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().expect("the reading thread failed");
    let property = |name: &str| -> u64 {
        db.property_int(name)
            .unwrap_or_else(|| panic!("no property {name}"))
    };
    let float_ups = db.statistics().ticker(Ticker::FloatUps);
    let longest_float_ups = property("lsmlab.inline-work.longest-float-ups");
    // Each call's own budget, whatever the other thread did meanwhile.
    assert!(
        longest_float_ups <= INLINE_FLOAT_UPS,
        "a call ran {longest_float_ups} float-ups inline"
    );
    Figures {
        reads: reads.load(Ordering::Relaxed),
        float_ups,
        longest_jobs: property("lsmlab.inline-work.longest-jobs"),
    }
}

struct Figures {
    reads: u64,
    float_ups: u64,
    longest_jobs: u64,
}

/// Fails, rather than hangs, when a call never returns. A guard, not a timing: the workload
/// takes seconds; a livelocked call takes for ever.
fn within_guard(frequency_victims: bool) -> Figures {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run(frequency_victims));
    });
    rx.recv_timeout(Duration::from_secs(300))
        .expect("a call never returned while another thread read (or a check panicked)")
}

#[test]
fn every_call_returns_while_another_thread_reads_overlap_victims() {
    let f = within_guard(false);
    assert!(f.reads > 0, "the second thread never read");
    assert!(f.float_ups > 0 && f.longest_jobs > 0, "no float-up ran");
}

#[test]
fn every_call_returns_while_another_thread_reads_frequency_victims() {
    let f = within_guard(true);
    assert!(f.reads > 0, "the second thread never read");
    assert!(f.float_ups > 0 && f.longest_jobs > 0, "no float-up ran");
}
