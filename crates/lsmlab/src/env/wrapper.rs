//! Wrappers that pass every call on to another file system or file, except the calls they
//! change (LevelDB's `EnvWrapper`): the fault-injecting file system, the crash tests' kill
//! points and the tests' recorders override one or two calls each and inherit the rest, so a
//! method added to [`FileSystem`] needs no edit in any of them.

use super::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use crate::error::Result;
use std::path::Path;
use std::sync::Arc;

/// A file system that forwards every call to [`target`](Self::target) unless it overrides it.
/// Implementing this trait implements [`FileSystem`].
pub trait FileSystemWrapper: Send + Sync {
    /// The file system calls go to.
    fn target(&self) -> &dyn FileSystem;

    /// As [`FileSystem::create_file`].
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.target().create_file(path)
    }
    /// As [`FileSystem::open_random`].
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.target().open_random(path)
    }
    /// As [`FileSystem::open_random_mapped`].
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.target().open_random_mapped(path)
    }
    /// As [`FileSystem::read_file`].
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        self.target().read_file(path)
    }
    /// As [`FileSystem::remove_file`].
    fn remove_file(&self, path: &Path) -> Result<()> {
        self.target().remove_file(path)
    }
    /// As [`FileSystem::rename`].
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.target().rename(from, to)
    }
    /// As [`FileSystem::exists`].
    fn exists(&self, path: &Path) -> bool {
        self.target().exists(path)
    }
    /// As [`FileSystem::list_dir`].
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        self.target().list_dir(path)
    }
    /// As [`FileSystem::create_dir_all`].
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.target().create_dir_all(path)
    }
    /// As [`FileSystem::sync_dir`].
    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.target().sync_dir(path)
    }
    /// As [`FileSystem::file_size`].
    fn file_size(&self, path: &Path) -> Result<u64> {
        self.target().file_size(path)
    }
    /// As [`FileSystem::lock_file`].
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.target().lock_file(path)
    }
}

impl<W: FileSystemWrapper> FileSystem for W {
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        FileSystemWrapper::create_file(self, path)
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        FileSystemWrapper::open_random(self, path)
    }
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        FileSystemWrapper::open_random_mapped(self, path)
    }
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        FileSystemWrapper::read_file(self, path)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        FileSystemWrapper::remove_file(self, path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        FileSystemWrapper::rename(self, from, to)
    }
    fn exists(&self, path: &Path) -> bool {
        FileSystemWrapper::exists(self, path)
    }
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        FileSystemWrapper::list_dir(self, path)
    }
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        FileSystemWrapper::create_dir_all(self, path)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        FileSystemWrapper::sync_dir(self, path)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        FileSystemWrapper::file_size(self, path)
    }
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        FileSystemWrapper::lock_file(self, path)
    }
}

/// A writable file that forwards every call to [`target`](Self::target) unless it overrides
/// it. Implementing this trait implements [`WritableFile`].
pub trait WritableFileWrapper: Send {
    /// The file calls go to.
    fn target(&mut self) -> &mut dyn WritableFile;
    /// The same file, for the one call that only reads (`len`).
    fn target_ref(&self) -> &dyn WritableFile;

    /// As [`WritableFile::append`].
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.target().append(data)
    }
    /// As [`WritableFile::flush`].
    fn flush(&mut self) -> Result<()> {
        self.target().flush()
    }
    /// As [`WritableFile::sync`].
    fn sync(&mut self) -> Result<()> {
        self.target().sync()
    }
    /// As [`WritableFile::start_writeback`].
    fn start_writeback(&mut self) -> Result<()> {
        self.target().start_writeback()
    }
}

impl<W: WritableFileWrapper> WritableFile for W {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        WritableFileWrapper::append(self, data)
    }
    fn flush(&mut self) -> Result<()> {
        WritableFileWrapper::flush(self)
    }
    fn sync(&mut self) -> Result<()> {
        WritableFileWrapper::sync(self)
    }
    fn len(&self) -> u64 {
        self.target_ref().len()
    }
    fn start_writeback(&mut self) -> Result<()> {
        WritableFileWrapper::start_writeback(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MemFs;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts renames and appends, forwards everything else.
    struct Counting {
        inner: Arc<dyn FileSystem>,
        renames: AtomicUsize,
        appends: Arc<AtomicUsize>,
    }
    struct CountingFile(Box<dyn WritableFile>, Arc<AtomicUsize>);

    impl FileSystemWrapper for Counting {
        fn target(&self) -> &dyn FileSystem {
            self.inner.as_ref()
        }
        fn rename(&self, from: &Path, to: &Path) -> Result<()> {
            self.renames.fetch_add(1, Ordering::Relaxed);
            self.inner.rename(from, to)
        }
        fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
            let appends = self.appends.clone();
            Ok(Box::new(CountingFile(
                self.inner.create_file(path)?,
                appends,
            )))
        }
    }
    impl WritableFileWrapper for CountingFile {
        fn target(&mut self) -> &mut dyn WritableFile {
            self.0.as_mut()
        }
        fn target_ref(&self) -> &dyn WritableFile {
            self.0.as_ref()
        }
        fn append(&mut self, data: &[u8]) -> Result<()> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.append(data)
        }
    }

    #[test]
    fn a_wrapper_changes_what_it_overrides_and_forwards_the_rest() {
        let counting = Counting {
            inner: Arc::new(MemFs::new()),
            renames: AtomicUsize::new(0),
            appends: Arc::new(AtomicUsize::new(0)),
        };
        let fs: &dyn FileSystem = &counting;
        fs.create_dir_all(Path::new("/d")).unwrap();
        let mut f = fs.create_file(Path::new("/d/a")).unwrap();
        f.append(b"hello").unwrap();
        f.append(b", world").unwrap();
        f.sync().unwrap();
        assert_eq!(f.len(), 12, "len is the target's");
        drop(f);
        fs.rename(Path::new("/d/a"), Path::new("/d/b")).unwrap();
        assert!(!fs.exists(Path::new("/d/a")) && fs.exists(Path::new("/d/b")));
        assert_eq!(fs.read_file(Path::new("/d/b")).unwrap(), b"hello, world");
        assert_eq!(fs.file_size(Path::new("/d/b")).unwrap(), 12);
        assert_eq!(fs.list_dir(Path::new("/d")).unwrap(), ["b"]);
        let mut buf = [0u8; 5];
        fs.open_random(Path::new("/d/b"))
            .unwrap()
            .read_at(7, &mut buf)
            .unwrap();
        assert_eq!(&buf, b"world");
        assert_eq!(counting.renames.load(Ordering::Relaxed), 1);
        assert_eq!(counting.appends.load(Ordering::Relaxed), 2);
    }
}
