//! The real file system, through `std::fs` and positional reads.

use super::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes buffered in user space before a `write(2)`: large enough that table and log appends of
/// a few hundred bytes do not each cost a system call.
const WRITE_BUFFER: usize = 64 * 1024;

/// The operating system's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct PosixFs;

struct PosixWritable {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
    len: u64,
    /// Set by the first failed write or sync: the file may hold part of a buffer, so every later
    /// operation fails rather than append after a hole or repeat bytes.
    failed: bool,
    /// Bytes whose writeback was already started.
    writeback_from: u64,
}

impl PosixWritable {
    fn check(&self) -> Result<()> {
        if self.failed {
            return Err(Error::io(
                "write",
                &self.path,
                std::io::Error::other("an earlier write to this file failed"),
            ));
        }
        Ok(())
    }
    fn write_out(&mut self) -> Result<()> {
        self.check()?;
        if !self.buf.is_empty() {
            if let Err(e) = self.file.write_all(&self.buf) {
                self.failed = true;
                return Err(Error::io("write", &self.path, e));
            }
            self.buf.clear();
        }
        Ok(())
    }
}

impl WritableFile for PosixWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.check()?;
        if self.buf.len() + data.len() > WRITE_BUFFER {
            self.write_out()?;
        }
        if data.len() >= WRITE_BUFFER {
            if let Err(e) = self.file.write_all(data) {
                self.failed = true;
                return Err(Error::io("write", &self.path, e));
            }
        } else {
            self.buf.extend_from_slice(data);
        }
        self.len += data.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.write_out()
    }
    fn start_writeback(&mut self) -> Result<()> {
        self.write_out()?;
        let handed = self.len;
        if handed > self.writeback_from {
            start_writeback(
                &self.file,
                self.writeback_from,
                handed - self.writeback_from,
            )
            .map_err(|e| Error::io("sync_file_range", &self.path, e))?;
            self.writeback_from = handed;
        }
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.write_out()?;
        if let Err(e) = self.file.sync_data() {
            // After a failed fsync the kernel may have dropped the dirty pages: the file's
            // content is unknown, so it is never written again.
            self.failed = true;
            return Err(Error::io("fsync", &self.path, e));
        }
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for PosixWritable {
    fn drop(&mut self) {
        // Best effort: an explicit flush or sync reports errors; drop cannot.
        let _ = self.write_out();
    }
}

/// The error of a read of `len` bytes at `offset` that the end of `path` cuts short.
fn past_end(path: &Path, offset: u64, len: usize) -> Error {
    Error::io(
        format!("read {len} bytes at offset {offset} of"),
        path,
        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
    )
}

struct PosixRandom {
    file: File,
    path: PathBuf,
    len: u64,
}

impl RandomAccessFile for PosixRandom {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file.read_exact_at(buf, offset).map_err(|e| {
            Error::io(
                format!("read {} bytes at offset {offset} of", buf.len()),
                &self.path,
                e,
            )
        })
    }
    fn read_vec_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        // Checked before allocating: a length read from a damaged file must not ask for more
        // memory than the file holds.
        if (len as u64)
            .checked_add(offset)
            .is_none_or(|end| end > self.len)
        {
            return Err(past_end(&self.path, offset, len));
        }
        let mut buf = super::block_buffers::take(len);
        let mut done = 0;
        while done < len {
            // SAFETY: `pread` writes at most `len - done` bytes through the raw pointer into the
            // vector's spare capacity, which holds `len` bytes; no reference to uninitialised
            // bytes is made, and the length is set only over bytes the kernel wrote.
            let n = unsafe {
                libc::pread(
                    self.file.as_raw_fd(),
                    buf.as_mut_ptr().add(done) as *mut libc::c_void,
                    len - done,
                    (offset + done as u64) as libc::off_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::io(
                    format!("read {len} bytes at offset {offset} of"),
                    &self.path,
                    e,
                ));
            }
            if n == 0 {
                return Err(past_end(&self.path, offset, len));
            }
            done += n as usize;
        }
        // SAFETY: the loop above initialised all `len` bytes.
        unsafe { buf.set_len(len) };
        Ok(buf)
    }
    fn len(&self) -> u64 {
        self.len
    }
}

/// A file whose block-sized reads ([`RandomAccessFile::read_vec_at`]) come from a read-only
/// shared map of all of it, while bulk reads into a caller's buffer ([`RandomAccessFile::read_at`]:
/// compaction readahead windows, a table's footer, index and filter at open) use `pread`.
/// A map saves a system call per small random read; a bulk sequential read gains nothing from
/// it, and every page read through the map counts in the process's resident set: compactions
/// reading whole tables through it grew a 100-byte fill's peak RSS from 100 to 380 MiB.
///
/// Sound because the engine maps only tables and blob files, which are complete and never
/// written, truncated or renamed over once they can be opened: deleting one (unlink) leaves an
/// existing map valid.
struct PosixMapped {
    base: *const u8,
    len: usize,
    path: PathBuf,
    /// The same file for `pread`.
    file: PosixRandom,
}

// SAFETY: the map is read-only for its whole life and unmapped only on drop, so shared reads
// from any thread see the same immutable bytes.
unsafe impl Send for PosixMapped {}
// SAFETY: as for Send.
unsafe impl Sync for PosixMapped {}

impl PosixMapped {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `base` maps `len` readable bytes until drop (see the type's comment).
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    fn range(&self, offset: u64, n: usize) -> Result<&[u8]> {
        let start = usize::try_from(offset).ok().filter(|&o| o <= self.len);
        match start.and_then(|s| s.checked_add(n).filter(|&e| e <= self.len).map(|e| (s, e))) {
            Some((s, e)) => Ok(&self.bytes()[s..e]),
            None => Err(past_end(&self.path, offset, n)),
        }
    }
}

impl RandomAccessFile for PosixMapped {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file.read_at(offset, buf)
    }
    fn read_vec_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        Ok(self.range(offset, len)?.to_vec())
    }
    fn len(&self) -> u64 {
        self.len as u64
    }
    fn mapped(&self) -> Option<&[u8]> {
        // The map is made once at open and unmapped only on drop.
        Some(self.bytes())
    }
}

impl Drop for PosixMapped {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` are the map made in `open_random_mapped`, unmapped once.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

struct PosixLock {
    _file: File,
}

impl FileLock for PosixLock {}

impl FileSystem for PosixFs {
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| Error::io("create", path, e))?;
        Ok(Box::new(PosixWritable {
            file,
            path: path.to_path_buf(),
            buf: Vec::with_capacity(WRITE_BUFFER),
            len: 0,
            failed: false,
            writeback_from: 0,
        }))
    }
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io("stat", path, e))?
            .len();
        let Ok(len) = usize::try_from(len) else {
            return self.open_random(path);
        };
        if len == 0 {
            // An empty map is an error; an empty file reads the usual way (and fails as it).
            return self.open_random(path);
        }
        // SAFETY: a fresh read-only shared map of `len` bytes of an open file; the kernel
        // checks every argument, and the result is checked for MAP_FAILED.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(Error::io("mmap", path, std::io::Error::last_os_error()));
        }
        Ok(Arc::new(PosixMapped {
            base: base as *const u8,
            len,
            path: path.to_path_buf(),
            file: PosixRandom {
                file,
                path: path.to_path_buf(),
                len: len as u64,
            },
        }))
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io("stat", path, e))?
            .len();
        Ok(Arc::new(PosixRandom {
            file,
            path: path.to_path_buf(),
            len,
        }))
    }
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        fs::read(path).map_err(|e| Error::io("read", path, e))
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        fs::remove_file(path).map_err(|e| Error::io("remove", path, e))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        fs::rename(from, to).map_err(|e| Error::io(format!("rename to {}", to.display()), from, e))
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(path).map_err(|e| Error::io("list", path, e))? {
            let entry = entry.map_err(|e| Error::io("list", path, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        fs::create_dir_all(path).map_err(|e| Error::io("create directory", path, e))
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        let dir = File::open(path).map_err(|e| Error::io("open directory", path, e))?;
        dir.sync_all()
            .map_err(|e| Error::io("fsync directory", path, e))
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        Ok(fs::metadata(path)
            .map_err(|e| Error::io("stat", path, e))?
            .len())
    }
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io("open lock file", path, e))?;
        // SAFETY: flock on a file descriptor we own; no memory is shared with the kernel.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            return Err(Error::NotADatabase(format!(
                "{} is locked: the database is already open in this or another process",
                path.display()
            )));
        }
        Ok(Box::new(PosixLock { _file: file }))
    }
}

/// Starts writeback of `len` bytes from `offset` without waiting for it.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, len: u64) -> std::io::Result<()> {
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return Ok(());
    };
    // SAFETY: a plain system call on a descriptor this file owns; no memory is passed.
    let r = unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere there is no portable way to start writeback without waiting: the hint is skipped.
#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _len: u64) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Env, IoCategory};

    #[test]
    fn writeback_hints_keep_every_byte_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.sst");
        let mut env = Env::new(Arc::new(PosixFs));
        env.bytes_per_sync = 4096;
        let mut f = env.create(&path, IoCategory::Flush).unwrap();
        let mut expect = Vec::new();
        // Appends below, at and above the 64 KiB buffer and the hint interval, so hints come
        // with the buffer empty, partly full and just bypassed.
        for (i, len) in [1, 4095, 4096, 70_000, 3, 65_536, 100_000, 17]
            .into_iter()
            .enumerate()
        {
            let chunk: Vec<u8> = (0..len).map(|j| (i * 31 + j * 7) as u8).collect();
            f.append(&chunk).unwrap();
            expect.extend_from_slice(&chunk);
        }
        f.sync().unwrap();
        assert_eq!(f.len(), expect.len() as u64);
        assert_eq!(std::fs::read(&path).unwrap(), expect);
    }

    /// `pread` into uninitialised memory and reads from a map give the file's bytes, and a
    /// range past the end is an error naming the file, not a panic or short data.
    #[test]
    fn plain_and_mapped_reads_agree_and_refuse_ranges_past_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000002.sst");
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 13 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let plain = PosixFs.open_random(&path).unwrap();
        let mapped = PosixFs.open_random_mapped(&path).unwrap();
        for f in [&plain, &mapped] {
            assert_eq!(f.len(), data.len() as u64);
            for (off, n) in [(0, 0), (0, 1), (4095, 4098), (99_000, 1_000), (1, 99_999)] {
                assert_eq!(f.read_vec_at(off, n).unwrap(), &data[off as usize..][..n]);
                let mut buf = vec![0; n];
                f.read_at(off, &mut buf).unwrap();
                assert_eq!(buf, &data[off as usize..][..n]);
            }
            for (off, n) in [(99_999, 2), (100_001, 0), (u64::MAX, 1), (0, usize::MAX)] {
                let e = f.read_vec_at(off, n).unwrap_err().to_string();
                assert!(e.contains("000002.sst"), "{e}");
            }
        }
        // An unlinked file stays readable through its map (tables are deleted while readers
        // may still hold them).
        std::fs::remove_file(&path).unwrap();
        assert_eq!(mapped.read_vec_at(10, 5).unwrap(), &data[10..15]);
        // An empty file cannot be mapped: it opens the usual way.
        let empty = dir.path().join("empty.sst");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(PosixFs.open_random_mapped(&empty).unwrap().len(), 0);
    }
}
