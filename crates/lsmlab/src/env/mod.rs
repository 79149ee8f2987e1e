//! The file-system seam. Every byte the engine reads or writes goes through [`FileSystem`].
//!
//! Three implementations: [`PosixFs`] for real use, [`MemFs`] for fast tests (it can also
//! simulate a crash by dropping every byte that was not synced), and [`FaultFs`], a wrapper that
//! fails writes or syncs on demand. On top of any of them, [`Env`] counts bytes and 8 KiB pages
//! per [`IoCategory`], the raw material of write/read amplification and device time.

mod fault;
mod mem;
mod posix;

pub use fault::{FaultFs, FaultSwitch};
pub use mem::MemFs;
pub use posix::PosixFs;

use crate::error::Result;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A file being written from start to end.
pub trait WritableFile: Send {
    /// Appends `data` (possibly only to a user-space buffer).
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Hands buffered bytes to the operating system (survives a process crash, not a power cut).
    fn flush(&mut self) -> Result<()>;
    /// Makes every appended byte durable.
    fn sync(&mut self) -> Result<()>;
    /// Bytes appended so far.
    fn len(&self) -> u64;
    /// True if nothing was appended yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A file read at arbitrary offsets, shared between threads.
pub trait RandomAccessFile: Send + Sync {
    /// Fills `buf` from `offset`; an error if the file ends first.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// Size of the file in bytes.
    fn len(&self) -> u64;
    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An advisory lock held until dropped.
pub trait FileLock: Send + Sync {}

/// The operations the engine needs from a file system.
pub trait FileSystem: Send + Sync {
    /// Creates (or truncates) a file for writing.
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Opens an existing file for positional reads.
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>>;
    /// Reads a whole file (logs at recovery).
    fn read_file(&self, path: &Path) -> Result<Vec<u8>>;
    /// Removes a file.
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Atomically renames `from` to `to`, replacing `to`.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// True if `path` exists.
    fn exists(&self, path: &Path) -> bool;
    /// Names of the entries of a directory.
    fn list_dir(&self, path: &Path) -> Result<Vec<String>>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, path: &Path) -> Result<()>;
    /// Makes the directory's entries (creations, renames, removals) durable.
    fn sync_dir(&self, path: &Path) -> Result<()>;
    /// Size of a file in bytes.
    fn file_size(&self, path: &Path) -> Result<u64>;
    /// Takes an exclusive lock on `path`, creating it; fails if another holder has it.
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>>;
}

/// Why the engine reads or writes: the categories of write and read amplification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum IoCategory {
    /// Write-ahead log records.
    Wal,
    /// MANIFEST and CURRENT.
    Manifest,
    /// Tables written by flushes, and their reads during flush.
    Flush,
    /// Tables read and written by compactions.
    Compaction,
    /// Blob files written at flush and compaction.
    Blob,
    /// Blob garbage collection.
    Gc,
    /// FSLSM float-up of hot tables.
    FloatUp,
    /// Reads that serve a user's get, iterator or scan.
    UserRead,
    /// Everything else (recovery, table opening).
    Other,
}

impl IoCategory {
    /// Every category, in display order.
    pub const ALL: [IoCategory; 9] = [
        IoCategory::Wal,
        IoCategory::Manifest,
        IoCategory::Flush,
        IoCategory::Compaction,
        IoCategory::Blob,
        IoCategory::Gc,
        IoCategory::FloatUp,
        IoCategory::UserRead,
        IoCategory::Other,
    ];

    /// Lower-case name used in statistics (`lsmlab.io.<name>.bytes.written`).
    pub fn name(self) -> &'static str {
        match self {
            IoCategory::Wal => "wal",
            IoCategory::Manifest => "manifest",
            IoCategory::Flush => "flush",
            IoCategory::Compaction => "compaction",
            IoCategory::Blob => "blob",
            IoCategory::Gc => "gc",
            IoCategory::FloatUp => "floatup",
            IoCategory::UserRead => "user",
            IoCategory::Other => "other",
        }
    }
}

/// Page size of the device-time model (DESIGN.md: 8 KiB pages).
pub const PAGE_SIZE: u64 = 8 * 1024;

/// Bytes and pages moved, per category.
#[derive(Default)]
pub struct IoStats {
    counters: [[AtomicU64; 4]; 9],
}

const BYTES_READ: usize = 0;
const BYTES_WRITTEN: usize = 1;
const PAGES_READ: usize = 2;
const PAGES_WRITTEN: usize = 3;

/// A snapshot of one category's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoCounts {
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// 8 KiB pages touched by reads.
    pub pages_read: u64,
    /// 8 KiB pages started by writes.
    pub pages_written: u64,
}

/// Pages of `PAGE_SIZE` that the byte range `[offset, offset+len)` touches.
fn pages_touched(offset: u64, len: u64) -> u64 {
    if len == 0 {
        return 0;
    }
    (offset + len - 1) / PAGE_SIZE - offset / PAGE_SIZE + 1
}

impl IoStats {
    fn add(&self, cat: IoCategory, which: usize, n: u64) {
        self.counters[cat as usize][which].fetch_add(n, Ordering::Relaxed);
    }
    /// Records a read of `len` bytes at `offset`.
    pub fn record_read(&self, cat: IoCategory, offset: u64, len: u64) {
        self.add(cat, BYTES_READ, len);
        self.add(cat, PAGES_READ, pages_touched(offset, len));
    }
    /// Records an append of `len` bytes at `offset` (pages are counted when a write starts them).
    pub fn record_write(&self, cat: IoCategory, offset: u64, len: u64) {
        self.add(cat, BYTES_WRITTEN, len);
        let started = (offset + len).div_ceil(PAGE_SIZE) - offset.div_ceil(PAGE_SIZE);
        self.add(cat, PAGES_WRITTEN, started);
    }
    /// The counters of one category.
    pub fn get(&self, cat: IoCategory) -> IoCounts {
        let c = &self.counters[cat as usize];
        IoCounts {
            bytes_read: c[BYTES_READ].load(Ordering::Relaxed),
            bytes_written: c[BYTES_WRITTEN].load(Ordering::Relaxed),
            pages_read: c[PAGES_READ].load(Ordering::Relaxed),
            pages_written: c[PAGES_WRITTEN].load(Ordering::Relaxed),
        }
    }
}

/// A file system plus the I/O accounting of one database.
#[derive(Clone)]
pub struct Env {
    /// The file system underneath.
    pub fs: Arc<dyn FileSystem>,
    /// Counters per category.
    pub io: Arc<IoStats>,
}

impl Env {
    /// An environment over `fs` with fresh counters.
    pub fn new(fs: Arc<dyn FileSystem>) -> Env {
        Env {
            fs,
            io: Arc::new(IoStats::default()),
        }
    }

    /// Creates a file whose writes count under `cat`.
    pub fn create(&self, path: &Path, cat: IoCategory) -> Result<CountedWritable> {
        Ok(CountedWritable {
            inner: self.fs.create_file(path)?,
            io: self.io.clone(),
            cat,
        })
    }

    /// Opens a file for positional reads; each read names its category.
    pub fn open_random(&self, path: &Path) -> Result<CountedRandom> {
        Ok(CountedRandom {
            inner: self.fs.open_random(path)?,
            io: self.io.clone(),
        })
    }

    /// Reads a whole file, counted under `cat`.
    pub fn read_file(&self, path: &Path, cat: IoCategory) -> Result<Vec<u8>> {
        let data = self.fs.read_file(path)?;
        self.io.record_read(cat, 0, data.len() as u64);
        Ok(data)
    }
}

/// A writable file that counts its appends.
pub struct CountedWritable {
    inner: Box<dyn WritableFile>,
    io: Arc<IoStats>,
    cat: IoCategory,
}

impl CountedWritable {
    /// Appends `data`.
    pub fn append(&mut self, data: &[u8]) -> Result<()> {
        let off = self.inner.len();
        self.inner.append(data)?;
        self.io.record_write(self.cat, off, data.len() as u64);
        Ok(())
    }
    /// Hands buffered bytes to the operating system.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    /// Makes every appended byte durable.
    pub fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }
    /// Bytes appended so far.
    pub fn len(&self) -> u64 {
        self.inner.len()
    }
    /// True if nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.inner.len() == 0
    }
}

/// A random-access file whose reads are counted under the category each read names.
#[derive(Clone)]
pub struct CountedRandom {
    inner: Arc<dyn RandomAccessFile>,
    io: Arc<IoStats>,
}

impl CountedRandom {
    /// Fills `buf` from `offset`, counting the read under `cat`.
    pub fn read_at(&self, offset: u64, buf: &mut [u8], cat: IoCategory) -> Result<()> {
        self.inner.read_at(offset, buf)?;
        self.io.record_read(cat, offset, buf.len() as u64);
        Ok(())
    }
    /// Size of the file.
    pub fn len(&self) -> u64 {
        self.inner.len()
    }
    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.inner.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_count_every_page_a_range_touches() {
        assert_eq!(pages_touched(0, 0), 0);
        assert_eq!(pages_touched(0, 1), 1);
        assert_eq!(pages_touched(8191, 2), 2);
        assert_eq!(pages_touched(8192, 8192), 1);
    }

    #[test]
    fn sequential_appends_count_each_page_once() {
        let io = IoStats::default();
        let mut off = 0;
        for _ in 0..100 {
            io.record_write(IoCategory::Wal, off, 1000);
            off += 1000;
        }
        assert_eq!(
            io.get(IoCategory::Wal).pages_written,
            100_000u64.div_ceil(PAGE_SIZE)
        );
        assert_eq!(io.get(IoCategory::Wal).bytes_written, 100_000);
    }
}
