//! The file-system seam. Every byte the engine reads or writes goes through [`FileSystem`].
//!
//! Three implementations: [`PosixFs`] for real use, [`MemFs`] for fast tests (it can also
//! simulate a crash by dropping every byte that was not synced), and [`FaultFs`], a wrapper that
//! fails writes or syncs on demand. On top of any of them, [`Env`] counts bytes and 8 KiB pages
//! per [`IoCategory`], the raw material of write/read amplification and device time.

pub(crate) mod block_buffers;
mod fault;
mod mapped;
mod mem;
mod posix;
mod wrapper;

pub use fault::{FaultFs, FaultSwitch};
pub use mapped::MappedBytes;
pub use mem::MemFs;
pub use posix::PosixFs;
pub use wrapper::{FileSystemWrapper, WritableFileWrapper};

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
    /// Hands buffered bytes to the operating system and asks it to start writing back what it
    /// holds of this file, without waiting (`bytes_per_sync`). A hint: only `sync` makes bytes
    /// durable. The default does nothing.
    fn start_writeback(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A file read at arbitrary offsets, shared between threads.
pub trait RandomAccessFile: Send + Sync {
    /// Fills `buf` from `offset`; an error if the file ends first.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// Reads `len` bytes from `offset` into a new buffer; an error if the file ends first.
    ///
    /// The default zero-fills the buffer and calls [`read_at`](Self::read_at). A file system
    /// that can read into uninitialised memory should override it: zeroing a buffer the read
    /// then overwrites was a tenth of the time of a 16 KiB block read.
    fn read_vec_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0; len];
        self.read_at(offset, &mut buf)?;
        Ok(buf)
    }
    /// Size of the file in bytes.
    fn len(&self) -> u64;
    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The whole file, if it is mapped into memory: readers then take blocks in place
    /// ([`MappedBytes`]). An implementation that returns `Some` promises that the bytes stay
    /// at this address, unchanged, for as long as the file object lives. The default: `None`.
    fn mapped(&self) -> Option<&[u8]> {
        None
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
    /// Opens an existing, never again written file for positional reads through a memory map
    /// (`Options::allow_mmap_reads`). The default reads as [`open_random`](Self::open_random)
    /// does: a file system without maps needs nothing more.
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.open_random(path)
    }
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

/// Page size of the device-time model (docs/metrics.md: 8 KiB pages).
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

/// Bytes after which a flush's table starts its writeback when `bytes_per_sync` is 0: writers
/// wait for the flush when the memtables are full, and its sync at the end would otherwise wait
/// for the whole table to reach the device (seed 000's shape, 16 KB values, 2 threads, 2
/// alternated runs: the fill's memtable stops fell from 0.9 s to 0.5 s and the fill rose from
/// 14.8k/13.8k to 15.2k/15.8k ops/s).
const FLUSH_WRITEBACK_BYTES: u64 = 1 << 20;

/// A file system plus the I/O accounting of one database.
#[derive(Clone)]
pub struct Env {
    /// The file system underneath.
    pub fs: Arc<dyn FileSystem>,
    /// Counters per category.
    pub io: Arc<IoStats>,
    /// Files created for tables and blob files start their writeback every this many bytes
    /// (`Options::bytes_per_sync`); 0 = never.
    pub bytes_per_sync: u64,
    /// Tables and blob files are read through memory maps (`Options::allow_mmap_reads`).
    pub mmap_reads: bool,
}

impl Env {
    /// An environment over `fs` with fresh counters.
    pub fn new(fs: Arc<dyn FileSystem>) -> Env {
        Env {
            fs,
            io: Arc::new(IoStats::default()),
            bytes_per_sync: 0,
            mmap_reads: false,
        }
    }

    /// Creates a file whose writes count under `cat`.
    ///
    /// Tables and blob files start their writeback every [`Env::bytes_per_sync`] bytes (a
    /// flush's table, with `bytes_per_sync` 0, every [`FLUSH_WRITEBACK_BYTES`]); the WAL and
    /// the MANIFEST never do: their writer waits on every write, and a hint there would only
    /// add a system call to its path.
    pub fn create(&self, path: &Path, cat: IoCategory) -> Result<CountedWritable> {
        let writeback_every = match cat {
            IoCategory::Wal | IoCategory::Manifest => 0,
            IoCategory::Flush if self.bytes_per_sync == 0 => FLUSH_WRITEBACK_BYTES,
            _ => self.bytes_per_sync,
        };
        Ok(CountedWritable {
            inner: self.fs.create_file(path)?,
            io: self.io.clone(),
            cat,
            writeback_every,
            not_hinted: 0,
        })
    }

    /// Opens a file for positional reads; each read names its category. Only files that are
    /// never written again (tables, blob files) are opened here, so they may be mapped.
    pub fn open_random(&self, path: &Path) -> Result<CountedRandom> {
        let inner = if self.mmap_reads {
            self.fs.open_random_mapped(path)?
        } else {
            self.fs.open_random(path)?
        };
        Ok(CountedRandom {
            inner,
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
    /// Start writeback every this many bytes (0 = never).
    writeback_every: u64,
    /// Bytes appended since writeback was last started.
    not_hinted: u64,
}

impl CountedWritable {
    /// Appends `data`.
    pub fn append(&mut self, data: &[u8]) -> Result<()> {
        let off = self.inner.len();
        self.inner.append(data)?;
        self.io.record_write(self.cat, off, data.len() as u64);
        if self.writeback_every > 0 {
            self.not_hinted += data.len() as u64;
            if self.not_hinted >= self.writeback_every {
                self.not_hinted = 0;
                self.inner.start_writeback()?;
            }
        }
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
    /// Hands buffered bytes to the operating system and starts their writeback to the device
    /// without waiting for it (a hint: a later `sync` still makes them durable).
    pub fn start_writeback(&mut self) -> Result<()> {
        self.not_hinted = 0;
        self.inner.start_writeback()
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
    /// Reads `len` bytes from `offset` into a new buffer, counting the read under `cat`.
    pub fn read_vec_at(&self, offset: u64, len: usize, cat: IoCategory) -> Result<Vec<u8>> {
        let buf = self.inner.read_vec_at(offset, len)?;
        self.io.record_read(cat, offset, len as u64);
        Ok(buf)
    }
    /// `len` bytes from `offset`, in place, if the file is mapped (see
    /// [`RandomAccessFile::mapped`]); `None` otherwise, or if the range lies outside the map.
    /// Not counted: the caller counts what it uses with [`CountedRandom::count_read`].
    pub fn read_mapped(&self, offset: u64, len: usize) -> Option<MappedBytes> {
        MappedBytes::new(&self.inner, offset, len)
    }
    /// True if the file is mapped into memory ([`RandomAccessFile::mapped`]).
    pub fn is_mapped(&self) -> bool {
        self.inner.mapped().is_some()
    }
    /// Counts a read of `len` bytes at `offset` made in place under `cat`.
    pub fn count_read(&self, offset: u64, len: usize, cat: IoCategory) {
        self.io.record_read(cat, offset, len as u64);
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

    /// A file that records what it was asked to do.
    struct Recorder {
        len: u64,
        hints: Arc<AtomicU64>,
    }

    impl WritableFile for Recorder {
        fn append(&mut self, data: &[u8]) -> Result<()> {
            self.len += data.len() as u64;
            Ok(())
        }
        fn flush(&mut self) -> Result<()> {
            Ok(())
        }
        fn sync(&mut self) -> Result<()> {
            Ok(())
        }
        fn len(&self) -> u64 {
            self.len
        }
        fn start_writeback(&mut self) -> Result<()> {
            self.hints.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
    }

    /// Hands out [`Recorder`]s sharing one hint counter.
    struct RecorderFs(Arc<AtomicU64>);

    impl FileSystem for RecorderFs {
        fn create_file(&self, _: &Path) -> Result<Box<dyn WritableFile>> {
            Ok(Box::new(Recorder {
                len: 0,
                hints: self.0.clone(),
            }))
        }
        fn open_random(&self, _: &Path) -> Result<Arc<dyn RandomAccessFile>> {
            unimplemented!("not used")
        }
        fn read_file(&self, _: &Path) -> Result<Vec<u8>> {
            unimplemented!("not used")
        }
        fn remove_file(&self, _: &Path) -> Result<()> {
            Ok(())
        }
        fn rename(&self, _: &Path, _: &Path) -> Result<()> {
            Ok(())
        }
        fn exists(&self, _: &Path) -> bool {
            false
        }
        fn list_dir(&self, _: &Path) -> Result<Vec<String>> {
            Ok(Vec::new())
        }
        fn create_dir_all(&self, _: &Path) -> Result<()> {
            Ok(())
        }
        fn sync_dir(&self, _: &Path) -> Result<()> {
            Ok(())
        }
        fn file_size(&self, _: &Path) -> Result<u64> {
            Ok(0)
        }
        fn lock_file(&self, _: &Path) -> Result<Box<dyn FileLock>> {
            unimplemented!("not used")
        }
    }

    /// Hints started while appending `total` bytes in `chunk`-byte appends to a file of `cat`.
    fn hints_for(bytes_per_sync: u64, cat: IoCategory, chunk: usize, total: usize) -> u64 {
        let hints = Arc::new(AtomicU64::new(0));
        let mut env = Env::new(Arc::new(RecorderFs(hints.clone())));
        env.bytes_per_sync = bytes_per_sync;
        let mut f = env.create(Path::new("f"), cat).unwrap();
        for _ in 0..total / chunk {
            f.append(&vec![0u8; chunk]).unwrap();
        }
        hints.load(Ordering::Relaxed)
    }

    #[test]
    fn tables_and_blob_files_start_writeback_every_bytes_per_sync_and_flushes_always() {
        // 10 MiB in 64 KiB appends: one hint per whole MiB.
        for cat in [IoCategory::Flush, IoCategory::Compaction, IoCategory::Blob] {
            assert_eq!(hints_for(1 << 20, cat, 64 << 10, 10 << 20), 10, "{cat:?}");
        }
        // Appends larger than the interval hint once each, not once per interval they cross.
        assert_eq!(hints_for(1 << 20, IoCategory::Blob, 3 << 20, 9 << 20), 3);
        // Off by default, but for a flush's table, and never for the WAL or the MANIFEST.
        assert_eq!(hints_for(0, IoCategory::Compaction, 64 << 10, 10 << 20), 0);
        assert_eq!(hints_for(0, IoCategory::Blob, 64 << 10, 10 << 20), 0);
        assert_eq!(hints_for(0, IoCategory::Flush, 64 << 10, 10 << 20), 10);
        assert_eq!(hints_for(1 << 20, IoCategory::Wal, 64 << 10, 10 << 20), 0);
        assert_eq!(
            hints_for(1 << 20, IoCategory::Manifest, 64 << 10, 10 << 20),
            0
        );
    }
}
