//! The FSLSM-Tree layout: float-ups happen, and never change an answer — for gets, scans in
//! both directions and snapshots, across reopen, crashes at every step of a float-up, and
//! concurrent writers and readers.

mod common;

use common::*;
use lsmlab::env::{FileLock, FileSystem, MemFs, RandomAccessFile, WritableFile};
use lsmlab::{Db, Layout, Options, ReadOptions, Snapshot, Ticker};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

const KEYS: u32 = 1200;

/// A deep tree whose newest versions of every 5th key sit in shallower levels than the older
/// ones, and a snapshot taken before those overwrites (so a float-up meets versions a snapshot
/// still needs). Returns the database, the model now and the snapshot with its model.
fn deep_tree(opts: Options) -> (Db, Model, Snapshot, Model) {
    let db = Db::open(DIR, opts).unwrap();
    let mut model = Model::new();
    for round in 0..3u32 {
        for i in 0..KEYS {
            let k = (i * 7919 + round) % KEYS;
            let v = value(k, round, 40 + (k % 30) as usize);
            db.put(&key(k), &v).unwrap();
            model.insert(key(k), v);
        }
    }
    db.compact_range(None, None).unwrap();
    let snap = db.snapshot();
    let snap_model = model.clone();
    // Two flushes reach level 0's trigger (2): the overwrites move to level 1, above the
    // older versions.
    for k in (0..KEYS).step_by(5) {
        let v = value(k, 9, 30);
        db.put(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    db.flush().unwrap();
    for k in (3..KEYS).step_by(50) {
        db.delete(&key(k)).unwrap();
        model.remove(&key(k));
    }
    db.flush().unwrap();
    db.wait_for_background_work().unwrap();
    // Memtables filled up on their own on the way, so a table may be left alone in level 0:
    // one more flush brings level 0 to its trigger.
    let mut filler = 0;
    while db.property_int("rocksdb.num-files-at-level0") != Some(0) {
        filler += 1;
        let k = format!("zz-filler{filler}").into_bytes();
        db.put(&k, b"f").unwrap();
        model.insert(k, b"f".to_vec());
        db.flush().unwrap();
        db.wait_for_background_work().unwrap();
        assert!(filler < 5, "level 0 does not empty");
    }
    (db, model, snap, snap_model)
}

fn check_all(db: &Db, model: &Model, snap: Option<(&Snapshot, &Model)>) {
    let ro = ReadOptions::default();
    for k in 0..KEYS + 10 {
        assert_eq!(
            db.get(&key(k)).unwrap(),
            model.get(&key(k)).cloned(),
            "get {k}"
        );
    }
    assert_eq!(&scan(db, &ro), model, "forward scan");
    let rev: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(scan_reverse(db, &ro), rev, "reverse scan");
    if let Some((s, m)) = snap {
        let ro = ReadOptions {
            snapshot: Some(s.clone()),
            ..Default::default()
        };
        assert_eq!(&scan(db, &ro), m, "snapshot scan");
        for k in (0..KEYS).step_by(7) {
            assert_eq!(
                db.get_with(&ro, &key(k)).unwrap().as_ref(),
                m.get(&key(k)),
                "snapshot get {k}"
            );
        }
    }
}

/// Gets of every key, twice, so that deep tables are hit and float.
fn read_everything(db: &Db) {
    for _ in 0..2 {
        for k in 0..KEYS {
            db.get(&key(k)).unwrap();
        }
        db.wait_for_background_work().unwrap();
    }
}

/// Gets of the keys not overwritten only: the deep tables float while the level-1 tables that
/// hold the newer versions of the other keys stay where they are.
fn read_keys_found_deep(db: &Db) {
    for k in (0..KEYS).filter(|k| k % 5 != 0) {
        db.get(&key(k)).unwrap();
    }
    db.wait_for_background_work().unwrap();
}

#[test]
fn float_ups_move_hot_tables_up_without_changing_any_answer() {
    let fs = MemFs::new();
    let opts = forced_fslsm_options(&fs);
    let (db, model, snap, snap_model) = deep_tree(opts.clone());
    let deep_before: u64 = (2..5)
        .map(|l| {
            db.property_int(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
        })
        .sum();
    assert!(
        deep_before > 0,
        "{}",
        db.property("rocksdb.levelstats").unwrap()
    );
    read_keys_found_deep(&db);
    assert!(
        db.statistics().ticker(Ticker::FloatUps) > 0,
        "no float-up ran"
    );
    check_all(&db, &model, Some((&snap, &snap_model)));
    read_everything(&db);
    let stats = db.statistics();
    assert!(stats.ticker(Ticker::FloatUps) > 0, "no float-up ran");
    assert!(stats.ticker(Ticker::FloatUpWriteBytes) > 0);
    // Level 0's tables split into floated and flushed ones.
    let layout = db.layout();
    let floated = layout
        .level0_from_jobs
        .expect("FSLSM counts floated tables");
    assert!(floated <= layout.level0_files, "{layout:?}");
    assert!(
        db.property("rocksdb.stats")
            .unwrap()
            .contains("Float-ups: "),
        "the policy's summary is in rocksdb.stats"
    );
    check_all(&db, &model, Some((&snap, &snap_model)));
    drop(snap);
    // Without the snapshot, later float-ups drop what the newer versions shadow.
    read_everything(&db);
    check_all(&db, &model, None);
    db.close().unwrap();
    let db = Db::open(DIR, opts).unwrap();
    check_all(&db, &model, None);
    // Writes return: level 0 shrinks back to its static trigger and compacts.
    let mut model = model;
    for k in 0..KEYS {
        db.put(&key(k), &value(k, 20, 20)).unwrap();
        model.insert(key(k), value(k, 20, 20));
    }
    db.wait_for_background_work().unwrap();
    // (Checked before the gets below, which stretch level 0 again.)
    let l0 = db.property_int("rocksdb.num-files-at-level0").unwrap();
    assert!(l0 < 2, "level 0 kept {l0} tables after the writes");
    check_all(&db, &model, None);
}

#[test]
fn the_three_presets_set_layout_and_separation() {
    let mut o = Options::default();
    o.apply_layout_preset("wisckey").unwrap();
    assert_eq!(
        (o.layout, o.enable_blob_files, o.min_blob_size),
        (Layout::Leveled, true, 0)
    );
    o.apply_layout_preset("fslsm").unwrap();
    assert_eq!((o.layout, o.enable_blob_files), (Layout::Fslsm, true));
    assert_eq!(o.layout_preset(), Some("fslsm"));
    o.apply_layout_preset("leveldb").unwrap();
    assert_eq!((o.layout, o.enable_blob_files), (Layout::Leveled, false));
    let e = o.apply_layout_preset("bitcask").unwrap_err().to_string();
    assert!(e.contains("leveldb, wisckey, fslsm"), "{e}");
    // The ablations: FSLSM with one mechanism off, named back by `layout_preset`.
    let mut o = Options::default();
    o.apply_layout_preset("fslsm-nostretch").unwrap();
    assert_eq!((o.layout, o.enable_blob_files), (Layout::Fslsm, true));
    assert!(o.fslsm.stretch_increments.iter().all(|&i| i == 0));
    assert_eq!(o.layout_preset(), Some("fslsm-nostretch"));
    let mut o = Options::default();
    o.apply_layout_preset("fslsm-nofloat").unwrap();
    assert_eq!(o.fslsm.float_target, lsmlab::FloatTarget::Off);
    assert_eq!(o.layout_preset(), Some("fslsm-nofloat"));
}

#[test]
fn with_float_up_off_the_same_reads_float_nothing_and_level0_holds_only_flushes() {
    let fs = MemFs::new();
    let mut opts = forced_fslsm_options(&fs);
    opts.apply_layout_preset("fslsm-nofloat").unwrap();
    let (db, model, snap, snap_model) = deep_tree(opts);
    read_keys_found_deep(&db);
    read_everything(&db);
    db.wait_for_background_work().unwrap();
    assert_eq!(db.statistics().ticker(Ticker::FloatUps), 0);
    assert_eq!(db.layout().status.float_ups_requested, 0);
    assert_eq!(db.layout().level0_from_jobs, Some(0));
    check_all(&db, &model, Some((&snap, &snap_model)));
}

#[test]
fn bad_fslsm_parameters_are_refused_at_open_naming_the_parameter() {
    let fs = MemFs::new();
    let mut o = forced_fslsm_options(&fs);
    o.fslsm.gamma = 0.0;
    let e = Db::open(DIR, o.clone()).unwrap_err().to_string();
    assert!(e.contains("fslsm_gamma"), "{e}");
    o.fslsm.gamma = 5.0;
    o.fslsm.stretch_increments = vec![20, 2_000_000];
    let e = Db::open(DIR, o).unwrap_err().to_string();
    assert!(e.contains("fslsm_stretch_increments"), "{e}");
}

#[test]
fn pure_writes_never_float_or_stretch() {
    let fs = MemFs::new();
    let mut opts = forced_fslsm_options(&fs);
    opts.fslsm.read_ratio_window = 1234;
    let db = Db::open(DIR, opts).unwrap();
    for i in 0..3000u32 {
        db.put(&key(i % 900), &value(i, 0, 40)).unwrap();
    }
    db.wait_for_background_work().unwrap();
    assert_eq!(db.statistics().ticker(Ticker::FloatUps), 0);
    let stats = db.property("lsmlab.stats").unwrap();
    // The window is the policy's own, as it reports it.
    assert!(
        stats.contains("read ratio 0.00 over the last 1234 operations"),
        "{stats}"
    );
}

/// A file system that, once armed, keeps what a power cut would leave at every create,
/// sync, directory sync and rename (the durable steps of a float-up).
struct CaptureFs {
    mem: MemFs,
    armed: Arc<AtomicBool>,
    images: Arc<Mutex<Vec<MemFs>>>,
}

impl CaptureFs {
    fn capture(&self) {
        if self.armed.load(Ordering::Relaxed) {
            self.images.lock().push(self.mem.crash_image(|_, _| 0));
        }
    }
}

struct CaptureFile {
    inner: Box<dyn WritableFile>,
    fs: Arc<CaptureFs>,
}

impl WritableFile for CaptureFile {
    fn append(&mut self, data: &[u8]) -> lsmlab::Result<()> {
        self.inner.append(data)
    }
    fn flush(&mut self) -> lsmlab::Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> lsmlab::Result<()> {
        self.fs.capture();
        let r = self.inner.sync();
        self.fs.capture();
        r
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

struct Shared(Arc<CaptureFs>);

impl FileSystem for Shared {
    fn create_file(&self, path: &Path) -> lsmlab::Result<Box<dyn WritableFile>> {
        self.0.capture();
        Ok(Box::new(CaptureFile {
            inner: self.0.mem.create_file(path)?,
            fs: self.0.clone(),
        }))
    }
    fn open_random(&self, path: &Path) -> lsmlab::Result<Arc<dyn RandomAccessFile>> {
        self.0.mem.open_random(path)
    }
    fn read_file(&self, path: &Path) -> lsmlab::Result<Vec<u8>> {
        self.0.mem.read_file(path)
    }
    fn remove_file(&self, path: &Path) -> lsmlab::Result<()> {
        self.0.capture();
        self.0.mem.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> lsmlab::Result<()> {
        self.0.capture();
        self.0.mem.rename(from, to)
    }
    fn exists(&self, path: &Path) -> bool {
        self.0.mem.exists(path)
    }
    fn list_dir(&self, path: &Path) -> lsmlab::Result<Vec<String>> {
        self.0.mem.list_dir(path)
    }
    fn create_dir_all(&self, path: &Path) -> lsmlab::Result<()> {
        self.0.mem.create_dir_all(path)
    }
    fn sync_dir(&self, path: &Path) -> lsmlab::Result<()> {
        self.0.capture();
        let r = self.0.mem.sync_dir(path);
        self.0.capture();
        r
    }
    fn file_size(&self, path: &Path) -> lsmlab::Result<u64> {
        self.0.mem.file_size(path)
    }
    fn lock_file(&self, path: &Path) -> lsmlab::Result<Box<dyn FileLock>> {
        self.0.mem.lock_file(path)
    }
}

#[test]
fn a_crash_at_any_step_of_a_float_up_recovers_every_answer() {
    let mem = MemFs::new();
    let capture = Arc::new(CaptureFs {
        mem: mem.clone(),
        armed: Arc::new(AtomicBool::new(false)),
        images: Arc::new(Mutex::new(Vec::new())),
    });
    let opts = Options {
        fs: Arc::new(Shared(capture.clone())),
        ..forced_fslsm_options(&mem)
    };
    let (db, model, snap, _) = deep_tree(opts);
    drop(snap);
    // From here on only gets run: every file operation belongs to a float-up.
    capture.armed.store(true, Ordering::Relaxed);
    read_everything(&db);
    capture.armed.store(false, Ordering::Relaxed);
    let floats = db.statistics().ticker(Ticker::FloatUps);
    assert!(floats > 0, "no float-up ran");
    drop(db);
    let images = std::mem::take(&mut *capture.images.lock());
    assert!(images.len() >= 3, "only {} crash points", images.len());
    // Every image is checked would take long in debug builds: every 3rd, plus the last.
    let last = images.len() - 1;
    for (i, image) in images.into_iter().enumerate() {
        if i % 3 != 0 && i != last {
            continue;
        }
        let db = Db::open(
            DIR,
            Options {
                disable_auto_compactions: true,
                ..small_options(&image)
            },
        )
        .unwrap_or_else(|e| panic!("crash point {i}: reopen failed: {e}"));
        let got = scan(&db, &ReadOptions::default());
        assert!(
            got == model,
            "crash point {i}: the recovered database differs from the model"
        );
        for k in (0..KEYS).step_by(11) {
            assert_eq!(
                db.get(&key(k)).unwrap(),
                model.get(&key(k)).cloned(),
                "crash point {i}, get {k}"
            );
        }
    }
}

fn version_of(v: &[u8]) -> u32 {
    let s = std::str::from_utf8(v).unwrap();
    s.split('-').nth(1).unwrap().parse().unwrap()
}

#[test]
fn writers_readers_snapshots_and_float_ups_at_once_agree_with_the_model() {
    const WRITERS: u32 = 3;
    const PER: u32 = 200;
    const ROUNDS: u32 = 8;
    let fs = MemFs::new();
    // Two compaction threads, so that float-ups race compactions.
    let opts = Options {
        max_background_jobs: 3,
        ..forced_fslsm_options(&fs)
    };
    let db = Arc::new(Db::open(DIR, opts).unwrap());
    for k in 0..WRITERS * PER {
        db.put(&key(k), &value(k, 0, 40)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for r in 0..2u32 {
        let (db, stop) = (db.clone(), stop.clone());
        readers.push(std::thread::spawn(move || {
            let mut seen: BTreeMap<u32, u32> = BTreeMap::new();
            let mut i = r;
            let mut reads = 0u32;
            while !stop.load(Ordering::Relaxed) || reads < 2000 {
                let k = (i * 31) % (WRITERS * PER);
                i += 1;
                reads += 1;
                let v = db.get(&key(k)).unwrap().expect("every key exists");
                let ver = version_of(&v);
                let prev = seen.insert(k, ver).unwrap_or(0);
                assert!(
                    ver >= prev,
                    "key {k}: version went back from {prev} to {ver}"
                );
                if reads.is_multiple_of(400) {
                    // A snapshot's scan holds one version per key, and stays the same while
                    // float-ups and compactions go on.
                    let snap = db.snapshot();
                    let ro = ReadOptions {
                        snapshot: Some(snap),
                        ..Default::default()
                    };
                    let first = scan(&db, &ro);
                    assert_eq!(first.len(), (WRITERS * PER) as usize);
                    for _ in 0..50 {
                        db.get(&key(i % (WRITERS * PER))).unwrap();
                        i += 1;
                    }
                    assert_eq!(scan(&db, &ro), first, "a snapshot changed");
                }
            }
        }));
    }
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let db = db.clone();
        writers.push(std::thread::spawn(move || {
            for round in 1..=ROUNDS {
                for j in 0..PER {
                    let k = w * PER + j;
                    db.put(&key(k), &value(k, round, 40)).unwrap();
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
    assert_eq!(got.len(), (WRITERS * PER) as usize);
    for (k, v) in &got {
        let i: u32 = std::str::from_utf8(&k[3..]).unwrap().parse().unwrap();
        assert_eq!(v, &value(i, ROUNDS, 40));
    }
}

/// One table as `rocksdb.sstables` lists it.
#[derive(Debug, Clone, PartialEq)]
struct Table {
    level: usize,
    number: u64,
    seqs: (u64, u64),
    range: (Vec<u8>, Vec<u8>),
}

impl Table {
    fn contains(&self, k: &[u8]) -> bool {
        self.range.0.as_slice() <= k && k <= self.range.1.as_slice()
    }
    fn overlaps(&self, other: &Table) -> bool {
        self.range.0 <= other.range.1 && other.range.0 <= self.range.1
    }
}

/// Every table of the database, from `rocksdb.sstables` (keys here are printable).
fn tables(db: &Db) -> Vec<Table> {
    let text = db.property("rocksdb.sstables").unwrap();
    let mut level = 0;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(l) = line.strip_prefix("--- level ") {
            level = l.trim_end_matches(" ---").parse().unwrap();
            continue;
        }
        // " number:size[lo .. hi]['smallest' .. 'largest']"
        let (number, rest) = line.trim().split_once(':').unwrap();
        let (seqs, keys) = rest.split_once("][").unwrap();
        let (lo, hi) = seqs.split_once('[').unwrap().1.split_once(" .. ").unwrap();
        let (a, b) = keys.trim_end_matches(']').split_once(" .. ").unwrap();
        let unquote = |s: &str| s.trim_matches('\'').as_bytes().to_vec();
        out.push(Table {
            level,
            number: number.parse().unwrap(),
            seqs: (lo.parse().unwrap(), hi.parse().unwrap()),
            range: (unquote(a), unquote(b)),
        });
    }
    out
}

/// Gets `k` until a float-up ran; returns the tables before it.
fn float_by_getting(db: &Db, k: u32) -> Vec<Table> {
    let before_floats = db.statistics().ticker(Ticker::FloatUps);
    let before = tables(db);
    for _ in 0..20 {
        db.get(&key(k)).unwrap();
        db.wait_for_background_work().unwrap();
        if db.statistics().ticker(Ticker::FloatUps) > before_floats {
            assert_eq!(
                db.statistics().ticker(Ticker::FloatUps),
                before_floats + 1,
                "one get, one float-up"
            );
            return before;
        }
    }
    panic!(
        "no float-up of the table holding key {k}:\n{}\n{}",
        db.property("rocksdb.sstables").unwrap(),
        db.property("lsmlab.layout").unwrap()
    );
}

#[test]
fn a_float_up_merges_with_the_level0_tables_it_overlaps_and_no_read_sees_an_older_version() {
    let fs = MemFs::new();
    let opts = forced_fslsm_options(&fs);
    let (db, mut model, snap, _) = deep_tree(opts.clone());
    drop(snap);
    db.close().unwrap();
    // From here on only float-ups run: level 0 never reaches its trigger, level 1 never its
    // target, and one memtable holds each round of writes.
    let opts = Options {
        level0_file_num_compaction_trigger: 64,
        level0_slowdown_writes_trigger: 80,
        level0_stop_writes_trigger: 100,
        max_bytes_for_level_base: 1 << 30,
        write_buffer_size: 1 << 20,
        ..opts
    };
    let db = Db::open(DIR, opts).unwrap();
    // Newer versions of every 7th key, flushed: one level-0 table over the whole key range.
    for k in (0..KEYS).step_by(7) {
        let v = value(k, 10, 25);
        db.put(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    db.flush().unwrap();
    // k1 is found in level 1 (every 5th key was overwritten there), not in level 0; k2, next
    // to it, only in the deepest level, within the range of k1's level-1 table.
    let t = tables(&db);
    let (k1, t1) = (0..KEYS)
        .filter(|k| k % 5 == 0 && k % 7 != 0 && k % 50 != 3)
        .find_map(|k| {
            let t1 = t
                .iter()
                .find(|x| x.level == 1 && x.contains(&key(k)))?
                .clone();
            (t1.contains(&key(k + 1)) && (k + 1) % 7 != 0 && (k + 1) % 50 != 3).then_some((k, t1))
        })
        .expect("a level-1 table holding k and k + 1's range");
    let k2 = k1 + 1;
    let before = float_by_getting(&db, k1);
    let after = tables(&db);
    assert!(
        !after.iter().any(|x| x.number == t1.number),
        "the floated table left level 1"
    );
    let l0_before: Vec<_> = before.iter().filter(|x| x.level == 0).collect();
    assert!(!l0_before.is_empty());
    for x in &l0_before {
        assert_eq!(
            !after.iter().any(|y| y.number == x.number),
            x.overlaps(&t1),
            "level-0 table {} left level 0 exactly if it overlaps the floated table",
            x.number
        );
    }
    let snap = db.snapshot();
    let snap_model = model.clone();
    // Newer versions again, some of k2's neighbours among them, and a deletion.
    for k in (k1.saturating_sub(30)..k1 + 30)
        .step_by(3)
        .filter(|&k| k != k2)
    {
        let v = value(k, 11, 35);
        db.put(&key(k), &v).unwrap();
        model.insert(key(k), v);
    }
    db.delete(&key(k2 + 2)).unwrap();
    model.remove(&key(k2 + 2));
    db.flush().unwrap();
    // The deep table of k2 meets level-0 tables holding both versions older than the newest
    // flush (the level-1 entries floated above) and versions newer than its own.
    let t = tables(&db);
    let t2 = t
        .iter()
        .find(|x| x.level >= 2 && x.contains(&key(k2)))
        .expect("k2 in a deep table")
        .clone();
    let met: Vec<&Table> = t
        .iter()
        .filter(|x| x.level == 0 && x.overlaps(&t2))
        .collect();
    let newest = t
        .iter()
        .filter(|x| x.level == 0)
        .max_by_key(|x| x.seqs.1)
        .unwrap();
    assert!(
        met.contains(&newest) && met.iter().any(|x| x.seqs.1 < newest.seqs.0),
        "the deep table should meet the newest flush and older level-0 tables: {met:?}"
    );
    assert!(met.iter().all(|x| x.seqs.1 > t2.seqs.1));
    let before = float_by_getting(&db, k2);
    assert_eq!(before, t, "nothing else changed the tree");
    let after = tables(&db);
    for x in &met {
        assert!(
            !after.iter().any(|y| y.number == x.number),
            "level-0 table {} overlapping the floated table is still there",
            x.number
        );
    }
    assert!(!after.iter().any(|x| x.number == t2.number));
    // Level 0 lost the tables met and gained the merged ones, cut at the table size.
    let l0_after = after.iter().filter(|x| x.level == 0).count();
    let l0_kept = t.iter().filter(|x| x.level == 0).count() - met.len();
    assert!(
        l0_after > l0_kept,
        "{l0_after} level-0 tables, {l0_kept} untouched"
    );
    check_all(&db, &model, Some((&snap, &snap_model)));
    drop(snap);
    read_everything(&db);
    check_all(&db, &model, None);
}
