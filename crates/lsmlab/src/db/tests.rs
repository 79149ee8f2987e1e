//! Regression tests for defects found in review: races between reads, snapshots and
//! compaction (made visible with a test-only pause point), recovery edge cases, and decoders
//! fed CRC-valid but impossible records.
use super::*;
use crate::env::{FileSystem, FileSystemWrapper, MemFs, WritableFile};
use crate::filename::wal_path;
use crate::key::ValueKind;
use crate::wal::LogWriter;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

const D: &str = "/db";

/// The pause point is process-wide: tests of this module run one at a time so that only the
/// intended thread meets it.
static SERIAL: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

fn opts(fs: Arc<dyn FileSystem>) -> Options {
    Options {
        fs,
        write_buffer_size: 4096,
        target_file_size_base: 2048,
        max_bytes_for_level_base: 8192,
        max_bytes_for_level_multiplier: 4.0,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 8,
        level0_stop_writes_trigger: 12,
        num_levels: 5,
        block_size: 256,
        ..Options::default()
    }
}

/// A file system that fails to create MANIFEST files (e.g. ENOSPC / EIO during open).
struct NoManifest(MemFs);
impl FileSystemWrapper for NoManifest {
    fn target(&self) -> &dyn FileSystem {
        &self.0
    }
    fn create_file(&self, p: &Path) -> Result<Box<dyn WritableFile>> {
        if p.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("MANIFEST-")
        {
            return Err(Error::io("create", p, std::io::Error::other("injected")));
        }
        self.0.create_file(p)
    }
}

fn write_wal(fs: &MemFs, number: u64, seq: u64, k: &[u8], v: &[u8]) {
    let env = Env::new(Arc::new(fs.clone()));
    let mut w = LogWriter::new(
        env.create(&wal_path(Path::new(D), number), IoCategory::Wal)
            .unwrap(),
    );
    let mut b = WriteBatch::new();
    b.put(k, v);
    w.add_record(b.encode(seq)).unwrap();
    w.sync().unwrap();
}

/// Regression (found in review): Recovery does not mark replayed WAL numbers as used: the new WAL can get the number of a
///    WAL it just replayed and truncates it before the new MANIFEST is durable.
#[test]
fn a_failed_open_never_truncates_a_replayed_wal() {
    let _serial = SERIAL.lock();
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.close().unwrap(); // MANIFEST-000003 records next_file_number 4, log_number 2
                         // State left by a crash after two memtable switches (WAL 4, WAL 5) and before the flush
                         // thread logged any edit: both WALs hold synced, acknowledged writes.
    write_wal(&fs, 4, 1, b"k4", b"v4");
    write_wal(&fs, 5, 2, b"k5", b"v5");
    // Open fails while writing the new MANIFEST (disk full, I/O error, or power cut).
    assert!(Db::open(D, opts(Arc::new(NoManifest(fs.clone())))).is_err());
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    assert_eq!(db.get(b"k4").unwrap().as_deref(), Some(&b"v4"[..]));
    assert_eq!(
        db.get(b"k5").unwrap().as_deref(),
        Some(&b"v5"[..]),
        "synced write in WAL 5 lost"
    );
}

/// Regression (found in review): A CRC-valid WAL record holding an empty batch at sequence 0 panics recovery.
#[test]
fn an_empty_batch_in_the_wal_gives_an_error_not_a_panic() {
    let _serial = SERIAL.lock();
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.close().unwrap();
    let env = Env::new(Arc::new(fs.clone()));
    let mut w = LogWriter::new(
        env.create(&wal_path(Path::new(D), 2), IoCategory::Wal)
            .unwrap(),
    );
    let mut b = WriteBatch::new();
    w.add_record(b.encode(0)).unwrap();
    w.sync().unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Db::open(D, opts(Arc::new(fs.clone()))).map(|_| ())
    }));
    assert!(r.is_ok(), "open panicked");
}

/// Regression (found in review): A CRC-valid WAL record whose sequence is past MAX_SEQUENCE.
#[test]
fn a_sequence_past_the_maximum_gives_an_error_not_a_panic() {
    let _serial = SERIAL.lock();
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.close().unwrap();
    write_wal(&fs, 2, u64::MAX, b"k", b"v");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Db::open(D, opts(Arc::new(fs.clone()))).map(|_| ())
    }));
    assert!(r.is_ok(), "open panicked");
}

/// Regression (found in review): A torn WAL tail (normal after a power cut) plus a failed or interrupted open leaves an
///    empty, newer WAL behind; every later open then calls the torn tail "corruption".
#[test]
fn a_failed_open_after_a_torn_tail_still_recovers() {
    let _serial = SERIAL.lock();
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.write(
        &WriteOptions {
            sync: true,
            ..Default::default()
        },
        {
            let mut b = WriteBatch::new();
            b.put(b"durable", b"1");
            b
        },
    )
    .unwrap();
    db.put(b"unsynced", &[7u8; 300]).unwrap();
    // Power cut: half of the unsynced tail of the WAL reaches the disk.
    let image = fs.crash_image(|_, unsynced| unsynced / 2);
    drop(db);
    // First open after the crash fails while writing its MANIFEST (or loses power there).
    assert!(Db::open(D, opts(Arc::new(NoManifest(image.clone())))).is_err());
    let db = Db::open(D, opts(Arc::new(image.clone())));
    assert!(db.is_ok(), "reopen failed: {:?}", db.err());
    assert_eq!(
        db.unwrap().get(b"durable").unwrap().as_deref(),
        Some(&b"1"[..])
    );
}

/// Regression (found in review): Writes with disable_wal are lost by a clean close (RocksDB flushes them at close).
#[test]
fn disable_wal_writes_survive_a_clean_close() {
    let _serial = SERIAL.lock();
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.write(
        &WriteOptions {
            disable_wal: true,
            ..Default::default()
        },
        {
            let mut b = WriteBatch::new();
            b.put(b"k", b"v");
            b
        },
    )
    .unwrap();
    db.close().unwrap();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    assert_eq!(
        db.get(b"k").unwrap().as_deref(),
        Some(&b"v"[..]),
        "lost by a clean close"
    );
}

/// Regression (found in review): after a memtable switch the old WAL is no longer the newest;
/// a power cut that tears its unsynced tail must not make reopening fail, and the synced write
/// before it must survive.
#[test]
fn a_failed_memtable_switch_still_reopens() {
    let _serial = SERIAL.lock();
    use crate::env::{FaultFs, FaultSwitch};
    use std::sync::atomic::Ordering as O;
    let mem = MemFs::new();
    let sw = FaultSwitch::new();
    let fs: Arc<dyn FileSystem> = Arc::new(FaultFs::new(Arc::new(mem.clone()), sw.clone()));
    let db = Db::open(D, opts(fs)).unwrap();
    db.write(
        &WriteOptions {
            sync: true,
            ..Default::default()
        },
        {
            let mut b = WriteBatch::new();
            b.put(b"durable", b"1");
            b
        },
    )
    .unwrap();
    // Unsynced writes until the memtable is full.
    let mut i = 0;
    while db.inner.wal.lock().mem.approximate_size() < 4096 {
        db.put(format!("k{i:04}").as_bytes(), &[1u8; 100]).unwrap();
        i += 1;
    }
    sw.fail_syncs.store(true, O::Relaxed);
    // The switch: a new WAL is created; the old one is handed to the OS, not synced.
    let _ = db.put(b"switch", b"x");
    let image = mem.crash_image(|_, unsynced| unsynced / 2);
    drop(db);
    let db = Db::open(D, opts(Arc::new(image)));
    assert!(db.is_ok(), "reopen failed: {:?}", db.err());
    assert_eq!(
        db.unwrap().get(b"durable").unwrap().as_deref(),
        Some(&b"1"[..])
    );
}

/// Regression (found in review): After a MANIFEST append fails part-way (header written, payload not), the same writer
///    keeps being used: the next edit, which succeeds and is acted on (WALs deleted, inputs
///    reaped), is unreadable at recovery.
/// Regression (fault campaign under load): the refusal of the next edit said only "the MANIFEST
///    failed earlier", and became the database's background error when a flush installed before
///    the failed compaction had recorded its own, hiding the fault.
#[test]
fn after_a_failed_manifest_append_no_edit_is_appended() {
    let _serial = SERIAL.lock();
    use crate::env::{FaultFs, FaultSwitch};
    use crate::version::{NewFile, VersionEdit};
    use std::sync::atomic::Ordering as O;
    let mem = MemFs::new();
    let sw = FaultSwitch::new();
    let fs: Arc<dyn FileSystem> = Arc::new(FaultFs::new(Arc::new(mem.clone()), sw.clone()));
    let env = Env::new(fs);
    let dir = Path::new(D);
    let tables = Arc::new(TableCache::new(
        env.clone(),
        dir.into(),
        None,
        Arc::new(Statistics::new()),
    ));
    let blobs = Arc::new(crate::blob::BlobCache::new(
        env.clone(),
        dir.into(),
        Arc::new(Statistics::new()),
    ));
    let reaper = DbInner::reaper_for(&env, dir, &tables, &blobs);
    let mut vs = VersionSet::create(env.clone(), dir, 5, reaper.clone());
    vs.write_new_manifest().unwrap();
    let nf = |n: u64, k: &[u8]| NewFile {
        number: n,
        size: 100,
        smallest: crate::key::make_internal_key(k, 1, ValueKind::Value),
        largest: crate::key::make_internal_key(k, 1, ValueKind::Value),
        smallest_seq: 1,
        largest_seq: 1,
        num_entries: 1,
        num_deletions: 0,
        oldest_blob_file: 0,
        shadowed_below: 0,
    };
    // Edit 1 (e.g. a compaction) fails after its fragment header was appended.
    sw.writes_until_failure.store(1, O::Relaxed);
    let mut e1 = VersionEdit::default();
    e1.added.push((1, nf(10, b"a")));
    let Err(fault) = vs.log_and_apply(e1) else {
        panic!("edit 1 was made durable");
    };
    let fault = fault.to_string();
    sw.fail_writes.store(false, O::Relaxed);
    sw.writes_until_failure.store(-1, O::Relaxed);
    // Edit 2 (another background thread) must be refused: the MANIFEST may end in part of a
    // record, and an edit appended after it would be acted on yet unreadable at recovery.
    let mut e2 = VersionEdit::default();
    e2.added.push((0, nf(11, b"b")));
    e2.log_number = Some(9);
    let Err(refusal) = vs.log_and_apply(e2) else {
        panic!("an edit was appended after a failed one");
    };
    let refusal = refusal.to_string();
    // Its refusal may be the first error the database records (another job's failure not yet
    // recorded), so it names the fault, not only that there was one.
    assert!(
        refusal.contains(&fault),
        "the refusal {refusal:?} does not name the fault {fault:?}"
    );
    drop(vs);
    // Recovery sees the state before the failed edit.
    let vs = VersionSet::recover(Env::new(Arc::new(mem.clone())), dir, 5, reaper).expect("recover");
    assert_eq!(vs.current().files().count(), 0);
}

/// Regression (found in review): A zeroed fragment header inside a record (a zeroed sector) is taken for block padding
///    and the reader splices the record's first and last fragments into a wrong record.
#[test]
fn zeroed_middle_fragment_is_not_spliced_out() {
    let _serial = SERIAL.lock();
    use crate::wal::{LogReader, BLOCK_SIZE};
    let fs = MemFs::new();
    let env = Env::new(Arc::new(fs.clone()));
    let p = Path::new("/log");
    let mut w = LogWriter::new(env.create(p, IoCategory::Wal).unwrap());
    let rec: Vec<u8> = (0..BLOCK_SIZE * 2 + 100).map(|i| (i % 251) as u8).collect();
    w.add_record(&rec).unwrap();
    w.sync().unwrap();
    let mut data = fs.read_file_for_test(p);
    for b in &mut data[BLOCK_SIZE..BLOCK_SIZE + 7] {
        *b = 0;
    }
    let mut r = LogReader::new(&data, p);
    if let Some(got) = r.next_record() {
        assert_eq!(
            got.len(),
            rec.len(),
            "reader returned a spliced record of {} bytes",
            got.len()
        );
    }
}

/// Runs `reader` on a thread that pauses at the first test pause point it reaches (a get: after it
/// took the super version; a write: before its memtable insert) while `meanwhile` runs on this
/// thread.
fn with_pause<R: Send>(reader: impl FnOnce() -> R + Send, meanwhile: impl FnOnce()) -> R {
    use std::sync::mpsc::channel;
    let (paused_tx, paused_rx) = channel::<()>();
    let (resume_tx, resume_rx) = channel::<()>();
    let hook: Box<dyn FnOnce() + Send> = Box::new(move || {
        paused_tx.send(()).unwrap();
        resume_rx.recv().unwrap();
    });
    std::thread::scope(|s| {
        let h = s.spawn(move || {
            *TEST_PAUSE.lock() = Some((std::thread::current().id(), hook));
            reader()
        });
        paused_rx.recv().unwrap();
        meanwhile();
        resume_tx.send(()).unwrap();
        h.join().unwrap()
    })
}

/// A memtable switch waits for the group still inserting into the old memtable (the insert
/// overlaps the next group's WAL record, not the switch): a flush that read the memtable before
/// that insert ended would lose an acknowledged write.
#[test]
fn a_memtable_switch_waits_for_the_group_inserting_into_it() {
    let _serial = SERIAL.lock();
    let db = race_db();
    // The memtable holds a write, so the flush below switches it.
    db.put(b"early", b"1").unwrap();
    let flushed = std::sync::atomic::AtomicBool::new(false);
    let mut flushed_while_inserting = true;
    std::thread::scope(|s| {
        with_pause(
            || db.put(b"late", b"1").unwrap(),
            || {
                s.spawn(|| {
                    db.flush().unwrap();
                    flushed.store(true, Ordering::Release);
                });
                // Ample time for a flush of one small memtable into a MemFs.
                std::thread::sleep(std::time::Duration::from_millis(100));
                // Asserted after the pause ends: a panic here would leave the writer paused.
                flushed_while_inserting = flushed.load(Ordering::Acquire);
            },
        );
    });
    assert!(
        !flushed_while_inserting,
        "the flush did not wait for the write inserting into its memtable"
    );
    assert!(flushed.load(Ordering::Acquire));
    assert_eq!(db.get(b"late").unwrap().as_deref(), Some(&b"1"[..]));
    assert!(
        db.inner.current_mem().is_empty(),
        "the write stayed in the memtable"
    );
}

fn race_db() -> Db {
    let fs = MemFs::new();
    let mut o = opts(Arc::new(fs));
    o.disable_auto_compactions = true;
    let db = Db::open(D, o).unwrap();
    db.put(b"k", b"v1").unwrap();
    db.flush().unwrap();
    db
}

/// Regression (found in review): Db::get loads last_seq *before* cloning the super version: a compaction that runs in
///    between drops the version the get's sequence needs. The key was never deleted.
#[test]
fn a_get_racing_a_compaction_sees_its_version() {
    let _serial = SERIAL.lock();
    let db = race_db();
    let got = with_pause(
        || db.get(b"k").unwrap(),
        || {
            db.put(b"k", b"v2").unwrap();
            db.flush().unwrap();
            db.compact_range(None, None).unwrap();
        },
    );
    assert!(got.is_some(), "get of a never-deleted key returned None");
}

/// Regression (found in review): Db::snapshot loads last_seq before registering it: a compaction that computes
///     smallest_snapshot in between drops what the snapshot must see.
#[test]
fn a_snapshot_racing_a_compaction_reads_its_version() {
    let _serial = SERIAL.lock();
    let db = race_db();
    let snap = with_pause(
        || db.snapshot(),
        || {
            db.put(b"k", b"v2").unwrap();
            db.flush().unwrap();
            db.compact_range(None, None).unwrap();
        },
    );
    // Wherever the snapshot falls, its reads must see the version visible at its sequence.
    let got = db
        .get_with(
            &ReadOptions {
                snapshot: Some(snap.clone()),
                ..Default::default()
            },
            b"k",
        )
        .unwrap();
    let expected: &[u8] = if snap.sequence() >= 2 { b"v2" } else { b"v1" };
    assert_eq!(
        got.as_deref(),
        Some(expected),
        "snapshot at {} read a wrong version",
        snap.sequence()
    );
}

/// Numbers of the tables the current version lists, and of the tables on disk.
fn live_and_disk_tables(db: &Db, fs: &MemFs) -> (Vec<u64>, Vec<u64>) {
    let mut live: Vec<u64> = db
        .inner
        .super_version
        .load()
        .version
        .files()
        .map(|(_, f)| f.number)
        .collect();
    live.sort_unstable();
    let mut disk: Vec<u64> = fs
        .list_dir(Path::new(D))
        .unwrap()
        .iter()
        .filter_map(|n| crate::filename::parse(n))
        .filter(|(kind, _)| *kind == crate::filename::FileKind::Table)
        .map(|(_, n)| n)
        .collect();
    disk.sort_unstable();
    (live, disk)
}

/// Fills the database until a compaction has rewritten some tables.
fn fill_until_compacted(db: &Db) {
    for i in 0..2_000u32 {
        db.put(format!("key{:05}", i % 500).as_bytes(), &[b'v'; 64])
            .unwrap();
    }
    db.wait_for_background_work().unwrap();
    assert!(
        db.statistics()
            .ticker(crate::stats::Ticker::CompactReadBytes)
            > 0,
        "the fill ran no compaction"
    );
}

/// Regression: the compaction loop dropped its spec — the last reference to the input tables —
/// after its purge, so the inputs of the last compaction stayed on disk (and, with
/// `mmap_read`, mapped) until the next flush or compaction: an idle database kept them forever.
#[test]
fn a_finished_compaction_leaves_no_input_table_behind() {
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    fill_until_compacted(&db);
    let (live, disk) = live_and_disk_tables(&db, &fs);
    assert_eq!(disk, live, "tables on disk that no version lists");
}

/// A table whose last reader lets go after the compaction that replaced it goes without
/// another flush or compaction.
#[test]
fn a_table_released_by_an_iterator_goes_while_the_database_is_idle() {
    let fs = MemFs::new();
    let db = Db::open(D, opts(Arc::new(fs.clone()))).unwrap();
    db.put(b"a", b"1").unwrap();
    db.flush().unwrap();
    let it = db.iter(&ReadOptions::default()).unwrap();
    fill_until_compacted(&db);
    let (live, disk) = live_and_disk_tables(&db, &fs);
    assert_ne!(disk, live, "the iterator's tables should still be on disk");
    drop(it);
    // The background thread purges within its idle wake-up (500 ms); allow far more.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (live, disk) = live_and_disk_tables(&db, &fs);
        if disk == live {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "tables {disk:?} on disk, {live:?} live"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `get_pinned` answers as `get` from the memtable, a table and a blob file, and a value from a
/// table stays readable after a compaction has replaced (and deleted) the table it came from.
#[test]
fn a_pinned_value_reads_as_get_and_outlives_its_table() {
    let fs = MemFs::new();
    let mut o = opts(Arc::new(fs.clone()));
    o.enable_blob_files = true;
    o.min_blob_size = 100;
    let db = Db::open(D, o).unwrap();
    let big = vec![b'b'; 300];
    db.put(b"inline", b"small value").unwrap();
    db.put(b"blob", &big).unwrap();
    db.flush().unwrap();
    db.put(b"mem", b"in the memtable").unwrap();
    let r = ReadOptions::default();
    for k in [&b"inline"[..], b"blob", b"mem", b"absent"] {
        assert_eq!(
            db.get_pinned(&r, k).unwrap().map(|v| v.to_vec()),
            db.get(k).unwrap(),
            "{}",
            String::from_utf8_lossy(k)
        );
    }
    let pinned = db.get_pinned(&r, b"inline").unwrap().unwrap();
    let tables_before = live_and_disk_tables(&db, &fs).0;
    db.put(b"inline", b"newer").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.wait_for_background_work().unwrap();
    let disk_after = live_and_disk_tables(&db, &fs).1;
    assert!(
        tables_before.iter().all(|t| !disk_after.contains(t)),
        "the compaction should have deleted tables {tables_before:?}; on disk {disk_after:?}"
    );
    assert_eq!(&*pinned, b"small value");
    assert_eq!(pinned.into_vec(), b"small value".to_vec());
    assert_eq!(db.get(b"inline").unwrap(), Some(b"newer".to_vec()));
}

/// Fails every MANIFEST append once `fail_from_table` tables have been created: the edit of the
/// job that wrote that table is the first to fail.
struct ManifestFailsFromTable {
    mem: MemFs,
    tables: Arc<AtomicU64>,
    fail_from_table: u64,
}

struct ManifestFile {
    inner: Box<dyn WritableFile>,
    path: std::path::PathBuf,
    tables: Arc<AtomicU64>,
    fail_from_table: u64,
}

impl WritableFile for ManifestFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if self.tables.load(Ordering::Relaxed) >= self.fail_from_table {
            return Err(Error::io(
                "append",
                &self.path,
                std::io::Error::other("injected"),
            ));
        }
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystemWrapper for ManifestFailsFromTable {
    fn target(&self) -> &dyn FileSystem {
        &self.mem
    }
    fn create_file(&self, p: &Path) -> Result<Box<dyn WritableFile>> {
        let inner = self.mem.create_file(p)?;
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".sst") {
            self.tables.fetch_add(1, Ordering::Relaxed);
        }
        if !name.starts_with("MANIFEST-") {
            return Ok(inner);
        }
        Ok(Box::new(ManifestFile {
            inner,
            path: p.to_path_buf(),
            tables: self.tables.clone(),
            fail_from_table: self.fail_from_table,
        }))
    }
}

/// Regression (fault campaign under load): a compaction whose MANIFEST edit failed let go of the
///    state lock (to delete obsolete files) before recording its error. A flush that took the
///    lock in between found no error, and its refused edit ("the MANIFEST failed earlier") was
///    recorded instead of the fault; writes were accepted meanwhile. Paused in that window, the
///    database must already refuse writes, naming the fault.
#[test]
fn a_failed_compaction_refuses_writes_before_it_lets_go_of_the_lock() {
    let _serial = SERIAL.lock();
    let mem = MemFs::new();
    // Two flushes write tables 1 and 2; the compaction they trigger writes table 3.
    let fs = ManifestFailsFromTable {
        mem,
        tables: Arc::new(AtomicU64::new(0)),
        fail_from_table: 3,
    };
    let mut o = opts(Arc::new(fs));
    // The compaction runs on the flushing thread, which the test pauses.
    o.deterministic_background = true;
    let db = Db::open(D, o).unwrap();
    db.put(b"a", b"1").unwrap();
    db.flush().unwrap();
    // Overlapping the first table: merged, not moved.
    db.put(b"a", b"2").unwrap();
    let mut in_window = (0, None);
    let flushed = with_pause(
        || db.flush(),
        || {
            let running = db.inner.state.lock().compactions_running;
            in_window = (running, Some(db.put(b"c", b"1")));
        },
    );
    let (running, put) = in_window;
    assert_eq!(running, 1, "paused outside the compaction job");
    match put.expect("no write was tried in the window") {
        Ok(()) => panic!("a write was accepted after the compaction's MANIFEST edit failed"),
        Err(e) => assert!(
            e.to_string().contains("injected"),
            "the refusal does not name the fault: {e}"
        ),
    }
    let e = flushed.expect_err("the flush that ran the failed compaction succeeded");
    assert!(e.to_string().contains("injected"), "{e}");
}
