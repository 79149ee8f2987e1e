//! The fault campaign of docs/reliability.md: EIO and ENOSPC on the n-th write, sync, rename,
//! directory sync or creation of each kind of file (WAL, table, blob file, MANIFEST, CURRENT's
//! temporary), at open and during a workload of flushes, compactions and blob GC. Every trial:
//! the failing write is refused with an error naming the fault, nothing acknowledged is lost
//! even after a power cut, and the database reopens and passes `check`.

mod common;

use common::*;
use lsmlab::env::{FileLock, FileSystem, MemFs, RandomAccessFile, WritableFile};
use lsmlab::{Db, Error, Options, Result, WriteBatch, WriteOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Append,
    Sync,
    Rename,
    SyncDir,
    Create,
}

/// Fails the `nth` (from 1) operation `op` on files whose name `kind` matches, and every one
/// after it, until disarmed: a disk that stays full or broken.
struct Injector {
    inner: Arc<dyn FileSystem>,
    op: Op,
    kind: &'static str,
    nth: u64,
    errno: i32,
    seen: AtomicU64,
    armed: AtomicBool,
    fired: AtomicBool,
}

fn matches(kind: &str, path: &Path) -> bool {
    let n = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match kind {
        "wal" => n.ends_with(".log"),
        "table" => n.ends_with(".sst"),
        "blob" => n.ends_with(".blob"),
        "manifest" => n.starts_with("MANIFEST-"),
        "current" => n.ends_with(".dbtmp") || n == "CURRENT",
        _ => true, // "dir"
    }
}

impl Injector {
    fn hit(&self, op: Op, path: &Path) -> Result<()> {
        if op != self.op || !self.armed.load(Ordering::Relaxed) || !matches(self.kind, path) {
            return Ok(());
        }
        if self.seen.fetch_add(1, Ordering::Relaxed) + 1 >= self.nth {
            self.fired.store(true, Ordering::Relaxed);
            let what = format!("{op:?} (injected)");
            return Err(Error::io(
                what,
                path,
                std::io::Error::from_raw_os_error(self.errno),
            ));
        }
        Ok(())
    }
}

struct Writable {
    inner: Box<dyn WritableFile>,
    fs: Arc<Injector>,
    path: PathBuf,
}

impl WritableFile for Writable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.fs.hit(Op::Append, &self.path)?;
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.fs.hit(Op::Append, &self.path)?;
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.fs.hit(Op::Sync, &self.path)?;
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

struct Fs(Arc<Injector>);

impl FileSystem for Fs {
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.0.hit(Op::Create, path)?;
        Ok(Box::new(Writable {
            inner: self.0.inner.create_file(path)?,
            fs: self.0.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.0.inner.open_random(path)
    }
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        self.0.inner.read_file(path)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        self.0.inner.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.0.hit(Op::Rename, to)?;
        self.0.inner.rename(from, to)
    }
    fn exists(&self, path: &Path) -> bool {
        self.0.inner.exists(path)
    }
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        self.0.inner.list_dir(path)
    }
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.0.inner.create_dir_all(path)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.0.hit(Op::SyncDir, path)?;
        self.0.inner.sync_dir(path)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        self.0.inner.file_size(path)
    }
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.0.inner.lock_file(path)
    }
}

fn options(fs: Arc<dyn FileSystem>, mem: &MemFs) -> Options {
    Options {
        fs,
        enable_blob_files: true,
        min_blob_size: 60,
        blob_file_size: 4 << 10,
        enable_blob_garbage_collection: true,
        blob_garbage_collection_age_cutoff: 0.5,
        ..small_options(mem)
    }
}

#[derive(Default, Debug)]
struct Tally {
    trials: u32,
    fired: u32,
    failed_at_open: u32,
    refused_writes: u32,
    acked_verified: u64,
}

/// One trial; returns whether the fault fired.
fn trial(op: Op, kind: &'static str, nth: u64, errno: i32, t: &mut Tally) {
    let mem = MemFs::new();
    let inj = Arc::new(Injector {
        inner: Arc::new(mem.clone()),
        op,
        kind,
        nth,
        errno,
        seen: AtomicU64::new(0),
        armed: AtomicBool::new(true),
        fired: AtomicBool::new(false),
    });
    let what = format!("{op:?} #{nth} on {kind} (errno {errno})");
    t.trials += 1;
    let sync = WriteOptions {
        sync: true,
        ..Default::default()
    };
    let mut acked: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    // The write that failed may or may not be durable (its record may have been synced before
    // the step that failed): its key may hold either value.
    let mut in_doubt: Option<(Vec<u8>, Vec<u8>)> = None;
    match Db::open(DIR, options(Arc::new(Fs(inj.clone())), &mem)) {
        Err(e) => {
            assert!(
                inj.fired.load(Ordering::Relaxed),
                "{what}: open failed by itself: {e}"
            );
            assert!(
                e.to_string().contains("injected"),
                "{what}: open error hides the fault: {e}"
            );
            t.failed_at_open += 1;
        }
        Ok(db) => {
            for i in 0..600u32 {
                let k = (i * 7919) % 250;
                let v = value(k, i, 20 + (i % 5) as usize * 30);
                let mut b = WriteBatch::new();
                b.put(&key(k), &v);
                in_doubt = Some((key(k), v.clone()));
                match db.write(&sync, b) {
                    Ok(()) => {
                        acked.insert(key(k), v);
                    }
                    Err(e) => {
                        assert!(
                            inj.fired.load(Ordering::Relaxed),
                            "{what}: write failed by itself: {e}"
                        );
                        assert!(
                            e.to_string().contains("injected"),
                            "{what}: the error does not say what failed: {e}"
                        );
                        t.refused_writes += 1;
                        // Stays refused while the database is in this state.
                        assert!(
                            db.put(b"more", b"x").is_err(),
                            "{what}: a write after the failure was accepted"
                        );
                        break;
                    }
                }
            }
            let _ = db.wait_for_background_work();
        }
    }
    if inj.fired.load(Ordering::Relaxed) {
        t.fired += 1;
    }
    // The disk is fixed, then the power is cut: only what was synced survives.
    inj.armed.store(false, Ordering::Relaxed);
    let image = mem.crash_image(|_, _| 0);
    let db = Db::open(DIR, options(Arc::new(image.clone()), &image))
        .unwrap_or_else(|e| panic!("{what}: reopen after the fault failed: {e}"));
    for (k, v) in &acked {
        let got = db.get(k).unwrap();
        let doubtful = in_doubt
            .as_ref()
            .filter(|(dk, _)| dk == k)
            .map(|(_, dv)| dv);
        assert!(
            got.as_ref() == Some(v) || (got.is_some() && got.as_ref() == doubtful),
            "{what}: acknowledged {k:?} lost: {:?}",
            got.map(|g| String::from_utf8_lossy(&g).into_owned())
        );
    }
    t.acked_verified += acked.len() as u64;
    db.wait_for_background_work().unwrap();
    drop(db);
    let r = lsmlab::check::check_db(Path::new(DIR), Arc::new(image)).unwrap();
    assert!(r.ok(), "{what}: check after recovery: {:?}", r.problems);
}

#[test]
fn every_fault_is_refused_cleanly_and_loses_nothing_acknowledged() {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let cases: &[(Op, &[&'static str])] = &[
        (Op::Append, &["wal", "table", "blob", "manifest", "current"]),
        (Op::Sync, &["wal", "table", "blob", "manifest", "current"]),
        (Op::Create, &["wal", "table", "blob", "manifest", "current"]),
        (Op::Rename, &["current"]),
        (Op::SyncDir, &["dir"]),
    ];
    for &(op, kinds) in cases {
        for &kind in kinds {
            for nth in [1, 2, 3, 5, 8, 20] {
                for errno in [libc::EIO, libc::ENOSPC] {
                    trial(
                        op,
                        kind,
                        nth,
                        errno,
                        tallies.entry(format!("{op:?} {kind}")).or_default(),
                    );
                }
            }
        }
    }
    println!("fault              trials fired open-failed writes-refused acked-verified");
    for (name, t) in &tallies {
        println!(
            "{name:18} {:6} {:5} {:11} {:14} {:14}",
            t.trials, t.fired, t.failed_at_open, t.refused_writes, t.acked_verified
        );
    }
    // The campaign reaches every step it names.
    for (name, t) in &tallies {
        assert!(t.fired > 0, "{name}: the fault never fired");
    }
}
