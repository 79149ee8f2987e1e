//! A file system that kills its own process at a chosen point: in the middle of an append to a
//! WAL, a MANIFEST, a table or blob file written by a flush or by a compaction, or right before
//! CURRENT is replaced. It plugs in through `Options::fs`, so the engine runs unchanged.
//!
//! "Mid-append" means the first half of the bytes reach the operating system, then SIGKILL:
//! exactly what a crash during a `write` leaves. Flushes and compactions are told apart by the
//! engine's thread names (`lsmlab-flush`, `lsmlab-compact`); a manual compaction runs on the
//! caller's thread and counts as neither.

use lsmlab::env::{FileSystem, FileSystemWrapper, WritableFile, WritableFileWrapper};
use lsmlab::Result;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where to kill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillPoint {
    /// An append to a WAL.
    Wal,
    /// An append to a MANIFEST.
    Manifest,
    /// The rename that installs a new CURRENT.
    Current,
    /// An append to a table or blob file written by the flush thread.
    Flush,
    /// An append to a table written by a background compaction.
    Compaction,
    /// An append to a blob file written by a background compaction: garbage collection's
    /// relocation of live values.
    CompactionBlob,
}

impl KillPoint {
    /// Names accepted by `--kill-point`.
    pub const NAMES: &'static str = "wal, manifest, current, flush, compaction, compaction-blob";

    /// Parses a `--kill-point` value.
    pub fn parse(s: &str) -> Option<KillPoint> {
        Some(match s {
            "wal" => KillPoint::Wal,
            "manifest" => KillPoint::Manifest,
            "current" => KillPoint::Current,
            "flush" => KillPoint::Flush,
            "compaction" => KillPoint::Compaction,
            "compaction-blob" => KillPoint::CompactionBlob,
            _ => return None,
        })
    }

    fn matches_file(self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let thread = std::thread::current();
        let thread = thread.name().unwrap_or("");
        match self {
            KillPoint::Wal => name.ends_with(".log"),
            KillPoint::Manifest => name.starts_with("MANIFEST-"),
            KillPoint::Current => false,
            KillPoint::Flush => {
                thread == "lsmlab-flush" && (name.ends_with(".sst") || name.ends_with(".blob"))
            }
            KillPoint::Compaction => thread == "lsmlab-compact" && name.ends_with(".sst"),
            KillPoint::CompactionBlob => thread == "lsmlab-compact" && name.ends_with(".blob"),
        }
    }
}

/// Kills the process at one chance in `one_in` at each passage of its kill point.
pub struct KillFs {
    inner: Arc<dyn FileSystem>,
    point: KillPoint,
    one_in: u64,
    draws: Arc<AtomicU64>,
    seed: u64,
}

impl KillFs {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn FileSystem>, point: KillPoint, one_in: u64, seed: u64) -> KillFs {
        KillFs {
            inner,
            point,
            one_in: one_in.max(1),
            draws: Arc::new(AtomicU64::new(0)),
            seed,
        }
    }
}

fn draw(draws: &AtomicU64, seed: u64, one_in: u64) -> bool {
    let n = draws.fetch_add(1, Ordering::Relaxed);
    let mut x = seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (x ^ (x >> 29)).is_multiple_of(one_in)
}

fn die() -> ! {
    // SAFETY: kill(2) on our own pid with SIGKILL has no memory effects; it does not return.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}

struct KillWritable {
    inner: Box<dyn WritableFile>,
    draws: Arc<AtomicU64>,
    seed: u64,
    one_in: u64,
}

impl WritableFileWrapper for KillWritable {
    fn target(&mut self) -> &mut dyn WritableFile {
        self.inner.as_mut()
    }
    fn target_ref(&self) -> &dyn WritableFile {
        self.inner.as_ref()
    }
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if draw(&self.draws, self.seed, self.one_in) {
            let half = data.len() / 2;
            let _ = self.inner.append(&data[..half]);
            let _ = self.inner.flush();
            die();
        }
        self.inner.append(data)
    }
}

impl FileSystemWrapper for KillFs {
    fn target(&self) -> &dyn FileSystem {
        self.inner.as_ref()
    }
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let f = self.inner.create_file(path)?;
        if !self.point.matches_file(path) {
            return Ok(f);
        }
        Ok(Box::new(KillWritable {
            inner: f,
            draws: self.draws.clone(),
            seed: self.seed,
            one_in: self.one_in,
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if self.point == KillPoint::Current
            && to.file_name().is_some_and(|n| n == "CURRENT")
            && draw(&self.draws, self.seed, self.one_in)
        {
            die();
        }
        self.inner.rename(from, to)
    }
}
