//! Every ticker and histogram lsmlab declares is recorded: workloads that exercise them (puts,
//! gets that hit and miss, deletes, iterators, flushes, compactions, blob files with garbage
//! collection, filters, float-ups, and each kind of write stall) move every one of them, and
//! with `Options::statistics` off the per-operation timers record nothing.

mod common;

use common::*;
use lsmlab::env::{FileSystem, FileSystemWrapper, MemFs, WritableFile};
use lsmlab::filter::FilterOptions;
use lsmlab::{
    Db, HistogramKind, Options, ReadOptions, Statistics, Ticker, WriteBatch, WriteOptions,
};
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Names of the tickers and histograms that moved in `stats`, added to `moved`.
fn collect(stats: &Statistics, moved: &mut BTreeSet<&'static str>) {
    for &t in Ticker::ALL {
        if stats.ticker(t) > 0 {
            moved.insert(t.name());
        }
    }
    for &h in HistogramKind::ALL {
        if stats.histogram(h).count > 0 {
            moved.insert(h.name());
        }
    }
}

/// Opens table creation to everyone (`None`) or to the next `n` tables (`Some(n)`): a flush or
/// compaction creating a table past that waits until the gate opens. It holds background work
/// still while a writer runs into a stall.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<Option<usize>>, Condvar)>);

impl Gate {
    fn allow(&self, tables: Option<usize>) {
        *self.0 .0.lock() = tables;
        self.0 .1.notify_all();
    }
    fn pass(&self) {
        let mut left = self.0 .0.lock();
        loop {
            match *left {
                None => return,
                Some(n) if n > 0 => {
                    *left = Some(n - 1);
                    return;
                }
                Some(_) => self.0 .1.wait(&mut left),
            }
        }
    }
}

/// `MemFs` whose table creations pass through a [`Gate`].
struct GateFs {
    mem: MemFs,
    gate: Gate,
}

impl FileSystemWrapper for GateFs {
    fn target(&self) -> &dyn FileSystem {
        &self.mem
    }
    fn create_file(&self, path: &Path) -> lsmlab::Result<Box<dyn WritableFile>> {
        if path.extension().is_some_and(|e| e == "sst") {
            self.gate.pass();
        }
        self.mem.create_file(path)
    }
}

/// Waits until `done` holds. After a minute it opens the gate (so that no thread stays stuck
/// behind it) and fails, naming `what`.
fn wait_until(gate: &Gate, what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        if Instant::now() > deadline {
            gate.allow(None);
            panic!("gave up waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Options over a gated `MemFs`: 4 KiB memtables, statistics on.
fn gated(gate: &Gate) -> Options {
    let mem = MemFs::new();
    Options {
        fs: Arc::new(GateFs {
            mem: mem.clone(),
            gate: gate.clone(),
        }),
        statistics: true,
        ..small_options(&mem)
    }
}

/// Puts, gets (memtable, each level, filtered out, absent), deletes, a synced write, iterators,
/// flushes, compactions with trivial moves and dropped versions, blob files and their garbage
/// collection.
fn main_workload(moved: &mut BTreeSet<&'static str>) {
    let fs = MemFs::new();
    let opts = Options {
        statistics: true,
        filter: FilterOptions {
            bits_per_key: 10.0,
            ..FilterOptions::default()
        },
        enable_blob_files: true,
        min_blob_size: 100,
        blob_file_size: 8192,
        enable_blob_garbage_collection: true,
        blob_garbage_collection_age_cutoff: 1.0,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    const N: u32 = 3000;
    let len = |i: u32| if i.is_multiple_of(4) { 150 } else { 24 };
    // In key order first: tables that overlap nothing below move down without a rewrite.
    for i in 0..N {
        db.put(&key(i), &value(i, 0, len(i))).unwrap();
    }
    db.wait_for_background_work().unwrap();
    // Overwrites and deletes in scattered order: compactions drop shadowed versions.
    for j in 0..N {
        let i = j * 7919 % N;
        if i % 10 == 3 {
            db.delete(&key(i)).unwrap();
        } else {
            db.put(&key(i), &value(i, 1, len(i))).unwrap();
        }
    }
    let mut synced = WriteBatch::new();
    synced.put(b"synced", b"1");
    db.write(
        &WriteOptions {
            sync: true,
            ..WriteOptions::default()
        },
        synced,
    )
    .unwrap();
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    // One table left alone in level 0 (its trigger is 2), for gets that find their key there.
    let mut filler = 0;
    while db.property_int("rocksdb.num-files-at-level0") != Some(1) {
        filler += 1;
        db.put(format!("key{:05}~l0", filler).as_bytes(), b"f")
            .unwrap();
        db.flush().unwrap();
        db.wait_for_background_work().unwrap();
        assert!(filler < 5, "level 0 does not keep a table");
    }
    assert!(
        (2..5).any(|l| db.property_int(&format!("rocksdb.num-files-at-level{l}")) > Some(0)),
        "{}",
        db.property("rocksdb.levelstats").unwrap()
    );
    // Gets of every key, twice (the second finds blocks in the cache), keys between them
    // (filtered out or absent), the level-0 keys and a memtable key.
    db.put(b"in-memtable", b"m").unwrap();
    for _ in 0..2 {
        for i in 0..N {
            let got = db.get(&key(i)).unwrap();
            assert_eq!(got.is_some(), i % 10 != 3, "key {i}");
            assert_eq!(db.get(format!("key{i:05}-").as_bytes()).unwrap(), None);
        }
    }
    for f in 1..=filler {
        assert!(db
            .get(format!("key{f:05}~l0").as_bytes())
            .unwrap()
            .is_some());
    }
    assert_eq!(db.get(b"in-memtable").unwrap().as_deref(), Some(&b"m"[..]));
    // Iterators: seek, next, prev.
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek(&key(N / 2));
    for _ in 0..10 {
        it.next();
    }
    for _ in 0..5 {
        it.prev();
    }
    assert!(it.valid());
    it.status().unwrap();
    drop(it);
    // Everything to the last level: deletion markers die there, and garbage collection
    // relocates the live values of the old blob files.
    db.compact_range(None, None).unwrap();
    db.wait_for_background_work().unwrap();
    let stats = db.statistics();
    // What gets and iterators read from files is what the `Env` counts under `user`.
    assert_eq!(
        stats.ticker(Ticker::GetReadBytes),
        db.io_stats()
            .get(lsmlab::env::IoCategory::UserRead)
            .bytes_read
    );
    collect(&stats, moved);
}

/// Float-ups that cross a level holding newer versions, and drop the versions those shadow.
fn float_up_workload(moved: &mut BTreeSet<&'static str>) {
    let fs = MemFs::new();
    let opts = Options {
        statistics: true,
        ..forced_fslsm_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    const N: u32 = 1200;
    for round in 0..3 {
        for i in 0..N {
            let k = (i * 7919 + round) % N;
            db.put(&key(k), &value(k, round, 40 + (k % 30) as usize))
                .unwrap();
        }
    }
    db.compact_range(None, None).unwrap();
    // Newer versions of every 5th key in a shallow level, above the old ones.
    for k in (0..N).step_by(5) {
        db.put(&key(k), &value(k, 9, 30)).unwrap();
    }
    db.flush().unwrap();
    db.put(b"zz", b"z").unwrap();
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    // Reads of the keys found deep float their tables up across the newer versions.
    for _ in 0..3 {
        for k in (0..N).filter(|k| k % 5 != 0) {
            db.get(&key(k)).unwrap();
        }
        db.wait_for_background_work().unwrap();
    }
    collect(&db.statistics(), moved);
}

/// Float-ups that compaction takes back down within the read-ratio window
/// (`lsmlab.floatup.undone`). Background work runs inline, so which float-ups a compaction undoes
/// depends on the operations alone, not on when a background thread got to them.
fn undone_float_up_workload(moved: &mut BTreeSet<&'static str>) {
    let fs = MemFs::new();
    let mut opts = Options {
        fs: Arc::new(fs.clone()),
        statistics: true,
        deterministic_background: true,
        ..Options::default()
    };
    opts.apply_shape("fslsm-study").unwrap();
    opts.apply_layout_preset("fslsm").unwrap();
    opts.fslsm.gamma = 0.01;
    opts.fslsm.read_ratio_window = 500;
    opts.write_buffer_size = 64 << 10;
    let db = Db::open(DIR, opts).unwrap();
    const KEYS: u64 = 3000;
    for round in 0..2 {
        for i in 0..KEYS {
            let k = (i * 7919 % KEYS) as u32;
            db.put(&key(k), &value(k, round, 120)).unwrap();
        }
    }
    // Skewed gets with a write every fourth operation: the writes' flushes and compactions
    // take down tables that the gets floated up.
    let mut x = 1u64;
    for i in 0..3000u32 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 33) % 1000;
        let k = (r * r / 1000 * 3) as u32 % KEYS as u32;
        if i % 4 == 3 {
            db.put(&key(k), &value(k, 2 + i, 120)).unwrap();
        } else {
            db.get(&key(k)).unwrap();
        }
    }
    db.wait_for_background_work().unwrap();
    assert!(
        db.statistics().ticker(Ticker::FloatUpsUndone) > 0,
        "no float-up undone: {} float-ups",
        db.statistics().ticker(Ticker::FloatUps)
    );
    collect(&db.statistics(), moved);
}

/// A writer stopped because both memtables are full while the flush waits at the gate; writers
/// queued behind it meanwhile commit as one group once it goes on.
fn memtable_stop(moved: &mut BTreeSet<&'static str>) {
    let gate = Gate::default();
    let db = Db::open(DIR, gated(&gate)).unwrap();
    let stats = db.statistics();
    gate.allow(Some(0));
    let started = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..200 {
                db.put(&key(i), &value(i, 0, 100)).unwrap();
            }
        });
        wait_until(&gate, "a memtable stop", || {
            stats.ticker(Ticker::StallMemtableStops) > 0
        });
        for i in 0..4 {
            let (db, started) = (&db, &started);
            s.spawn(move || {
                started.fetch_add(1, Ordering::SeqCst);
                db.put(&key(1000 + i), b"queued").unwrap();
            });
        }
        wait_until(&gate, "the queued writers", || {
            started.load(Ordering::SeqCst) == 4
        });
        // Two more rounds of the stopped writer's wait: the queued writers are in the queue.
        let stops = stats.ticker(Ticker::StallMemtableStops);
        wait_until(&gate, "two more stop rounds", || {
            stats.ticker(Ticker::StallMemtableStops) >= stops + 2
        });
        gate.allow(None);
    });
    db.wait_for_background_work().unwrap();
    collect(&stats, moved);
}

/// A writer slowed, then stopped, by level 0 (`stop_ticker` = `StallL0Stops`) or by pending
/// compaction bytes (`StallPendingStops`), while the compaction that would relieve it waits at
/// the gate.
fn compaction_stop(moved: &mut BTreeSet<&'static str>, stop_ticker: Ticker) {
    let gate = Gate::default();
    let mut opts = Options {
        level0_file_num_compaction_trigger: 1,
        max_bytes_for_level_base: 1 << 30,
        // Slowdowns sleep once per KiB of writes (1 ms each).
        delayed_write_rate: 1 << 20,
        ..gated(&gate)
    };
    if stop_ticker == Ticker::StallL0Stops {
        opts.level0_slowdown_writes_trigger = 1;
        opts.level0_stop_writes_trigger = 1;
    } else {
        opts.level0_slowdown_writes_trigger = 20;
        opts.level0_stop_writes_trigger = 20;
        opts.soft_pending_compaction_bytes_limit = 1;
        opts.hard_pending_compaction_bytes_limit = 1;
    }
    let db = Db::open(DIR, opts).unwrap();
    let stats = db.statistics();
    // Level 1 holds the keys first, so that compacting the next level-0 table rewrites them.
    // They go in by flushes asked for, before a memtable fills: the writers' pace then starts
    // at `delayed_write_rate`, no rate of writes having been measured between full memtables.
    for i in 0..100 {
        db.put(&key(i), &value(i, 0, 100)).unwrap();
        if i % 20 == 19 {
            db.flush().unwrap();
        }
    }
    db.wait_for_background_work().unwrap();
    assert!(db.property_int("rocksdb.num-files-at-level1") > Some(0));
    // One table for the next flush; the compaction of it into level 1 waits at the gate.
    gate.allow(Some(1));
    for i in 0..5 {
        db.put(&key(i), &value(i, 1, 100)).unwrap();
    }
    db.flush().unwrap();
    // (The writes above may have stopped briefly while compactions ran.)
    let (stops, written) = (
        stats.ticker(stop_ticker),
        stats.ticker(Ticker::NumberKeysWritten),
    );
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..100 {
                db.put(&key(i), &value(i, 2, 100)).unwrap();
            }
        });
        wait_until(&gate, stop_ticker.name(), || {
            stats.ticker(stop_ticker) > stops
        });
        // It wrote a memtable's worth, slowed down, before it stopped.
        assert!(stats.ticker(Ticker::NumberKeysWritten) > written);
        gate.allow(None);
    });
    db.wait_for_background_work().unwrap();
    collect(&stats, moved);
}

/// Intra-L0 compactions (`intra_l0_options`): rounds of writes go on until one ran (within the
/// first few on this shape; at most 40).
fn intra_l0_workload(moved: &mut BTreeSet<&'static str>) {
    let fs = MemFs::new();
    let opts = Options {
        statistics: true,
        ..intra_l0_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    let stats = db.statistics();
    for round in 0..40 {
        if stats.ticker(Ticker::IntraL0Compactions) > 0 {
            break;
        }
        for i in 0..3000 {
            db.put(&key(i), &value(i, round, 40)).unwrap();
        }
    }
    db.wait_for_background_work().unwrap();
    collect(&stats, moved);
}

/// Declared but not produced by the workloads above, each with the reason why it cannot be
/// (none today: the gate produces even the stalls).
const NOT_PRODUCED: &[&str] = &[];

#[test]
fn every_declared_ticker_and_histogram_moves_under_a_workload_that_exercises_it() {
    let mut moved = BTreeSet::new();
    main_workload(&mut moved);
    float_up_workload(&mut moved);
    undone_float_up_workload(&mut moved);
    memtable_stop(&mut moved);
    compaction_stop(&mut moved, Ticker::StallL0Stops);
    compaction_stop(&mut moved, Ticker::StallPendingStops);
    intra_l0_workload(&mut moved);
    let declared = Ticker::ALL
        .iter()
        .map(|t| t.name())
        .chain(HistogramKind::ALL.iter().map(|h| h.name()));
    let still: Vec<&str> = declared
        .filter(|n| !moved.contains(n) && !NOT_PRODUCED.contains(n))
        .collect();
    assert!(still.is_empty(), "never recorded: {still:?}");
    for n in NOT_PRODUCED {
        assert!(
            !moved.contains(n),
            "{n} moves now: take it off NOT_PRODUCED"
        );
    }
}

#[test]
fn without_statistics_the_per_operation_timers_record_nothing() {
    let fs = MemFs::new();
    let opts = Options {
        enable_blob_files: true,
        ..small_options(&fs)
    };
    let db = Db::open(DIR, opts).unwrap();
    for i in 0..500 {
        db.put(&key(i), &value(i, 0, 40)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    for i in 0..500 {
        assert!(db.get(&key(i)).unwrap().is_some());
    }
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek(&key(7));
    assert!(it.valid());
    let stats = db.statistics();
    // The tickers still count.
    assert!(stats.ticker(Ticker::NumberKeysFound) >= 500);
    assert!(stats.ticker(Ticker::Flushes) > 0);
    for h in [
        HistogramKind::DbGet,
        HistogramKind::DbWrite,
        HistogramKind::DbSeek,
        HistogramKind::SstWrite,
        HistogramKind::SstRead,
        HistogramKind::BlobFileWrite,
    ] {
        assert_eq!(stats.histogram(h).count, 0, "{}", h.name());
    }
}
