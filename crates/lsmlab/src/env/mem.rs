//! An in-memory file system for tests, which can simulate a power cut.
//!
//! Each file remembers how many of its bytes were synced. [`MemFs::crash`] truncates every file
//! to that length (optionally keeping a random prefix of the unsynced tail, as a real disk may
//! have written part of it), which is exactly what a power cut may do.

use super::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashSet};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Default)]
struct MemFile {
    data: Mutex<Vec<u8>>,
    synced: Mutex<usize>,
}

#[derive(Default)]
struct State {
    files: BTreeMap<PathBuf, Arc<MemFile>>,
    locks: HashSet<PathBuf>,
}

/// A file system held in memory. Cloning gives another handle to the same files.
#[derive(Clone, Default)]
pub struct MemFs {
    state: Arc<Mutex<State>>,
}

fn not_found(op: &str, path: &Path) -> Error {
    Error::io(
        op,
        path,
        std::io::Error::new(ErrorKind::NotFound, "no such file"),
    )
}

impl MemFs {
    /// An empty file system.
    pub fn new() -> MemFs {
        MemFs::default()
    }

    /// Simulates a power cut: every file loses its unsynced bytes, except that `keep(path,
    /// unsynced_len)` may return how many of them survive (a torn write).
    pub fn crash(&self, mut keep: impl FnMut(&Path, usize) -> usize) {
        let st = self.state.lock();
        for (path, f) in &st.files {
            let mut data = f.data.lock();
            let synced = *f.synced.lock();
            let unsynced = data.len().saturating_sub(synced);
            let kept = keep(path, unsynced).min(unsynced);
            data.truncate(synced + kept);
        }
        drop(st);
        self.state.lock().locks.clear();
    }

    /// A new file system holding what a power cut would leave of this one: every file cut to
    /// its synced length plus `keep(path, unsynced_len)` bytes of its unsynced tail. The
    /// original is untouched, so a database still running on it cannot write into the image.
    pub fn crash_image(&self, mut keep: impl FnMut(&Path, usize) -> usize) -> MemFs {
        let st = self.state.lock();
        let mut files = BTreeMap::new();
        for (path, f) in &st.files {
            let data = f.data.lock();
            let synced = (*f.synced.lock()).min(data.len());
            let kept = keep(path, data.len() - synced).min(data.len() - synced);
            let copy = data[..synced + kept].to_vec();
            let len = copy.len();
            files.insert(
                path.clone(),
                Arc::new(MemFile {
                    data: Mutex::new(copy),
                    synced: Mutex::new(len),
                }),
            );
        }
        MemFs {
            state: Arc::new(Mutex::new(State {
                files,
                locks: HashSet::new(),
            })),
        }
    }

    /// The bytes of a file (empty if absent), for tests.
    pub fn read_file_for_test(&self, path: &Path) -> Vec<u8> {
        self.read_file(path).unwrap_or_default()
    }

    /// Every path and its size, for tests that corrupt files.
    pub fn files(&self) -> Vec<(PathBuf, usize)> {
        let st = self.state.lock();
        st.files
            .iter()
            .map(|(p, f)| (p.clone(), f.data.lock().len()))
            .collect()
    }

    /// Replaces a file's content (as synced), for tests that truncate or overwrite files.
    pub fn set_file_for_test(&self, path: &Path, data: &[u8]) {
        let mut st = self.state.lock();
        st.files.insert(
            path.to_path_buf(),
            Arc::new(MemFile {
                data: Mutex::new(data.to_vec()),
                synced: Mutex::new(data.len()),
            }),
        );
    }

    /// Flips one bit of a file in place.
    pub fn flip_bit(&self, path: &Path, offset: usize, bit: u8) {
        let st = self.state.lock();
        if let Some(f) = st.files.get(path) {
            let mut d = f.data.lock();
            if let Some(b) = d.get_mut(offset) {
                *b ^= 1 << (bit % 8);
            }
        }
    }
}

struct MemWritable {
    file: Arc<MemFile>,
    /// Taken by `sync`, so that a [`MemFs::crash_image`] (which holds it while copying) sees
    /// each sync wholly before or wholly after: a table synced before the MANIFEST edit that
    /// names it can never be copied unsynced while the edit is copied synced.
    state: Arc<Mutex<State>>,
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.file.data.lock().extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        let _image = self.state.lock();
        let n = self.file.data.lock().len();
        *self.file.synced.lock() = n;
        Ok(())
    }
    fn len(&self) -> u64 {
        self.file.data.lock().len() as u64
    }
}

struct MemRandom {
    file: Arc<MemFile>,
    path: PathBuf,
}

impl RandomAccessFile for MemRandom {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let d = self.file.data.lock();
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(buf.len())
            .and_then(|end| d.get(start..end))
        {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(Error::io(
                format!("read {} bytes at offset {offset} of", buf.len()),
                &self.path,
                std::io::Error::new(ErrorKind::UnexpectedEof, "past end of file"),
            )),
        }
    }
    fn len(&self) -> u64 {
        self.file.data.lock().len() as u64
    }
}

struct MemLock {
    state: Arc<Mutex<State>>,
    path: PathBuf,
}

impl FileLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        self.state.lock().locks.remove(&self.path);
    }
}

impl FileSystem for MemFs {
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = Arc::new(MemFile::default());
        self.state
            .lock()
            .files
            .insert(path.to_path_buf(), file.clone());
        Ok(Box::new(MemWritable {
            file,
            state: self.state.clone(),
        }))
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let st = self.state.lock();
        let file = st.files.get(path).ok_or_else(|| not_found("open", path))?;
        Ok(Arc::new(MemRandom {
            file: file.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        let st = self.state.lock();
        let file = st.files.get(path).ok_or_else(|| not_found("read", path))?;
        let data = file.data.lock().clone();
        Ok(data)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        self.state
            .lock()
            .files
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| not_found("remove", path))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let mut st = self.state.lock();
        let f = st
            .files
            .remove(from)
            .ok_or_else(|| not_found("rename", from))?;
        st.files.insert(to.to_path_buf(), f);
        Ok(())
    }
    fn exists(&self, path: &Path) -> bool {
        let st = self.state.lock();
        st.files.contains_key(path) || st.files.keys().any(|p| p.starts_with(path))
    }
    fn list_dir(&self, path: &Path) -> Result<Vec<String>> {
        let st = self.state.lock();
        Ok(st
            .files
            .keys()
            .filter(|p| p.parent() == Some(path))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }
    fn create_dir_all(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    fn sync_dir(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        let st = self.state.lock();
        let f = st.files.get(path).ok_or_else(|| not_found("stat", path))?;
        let n = f.data.lock().len() as u64;
        Ok(n)
    }
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let mut st = self.state.lock();
        if !st.locks.insert(path.to_path_buf()) {
            return Err(Error::NotADatabase(format!(
                "{} is locked: the database is already open",
                path.display()
            )));
        }
        Ok(Box::new(MemLock {
            state: self.state.clone(),
            path: path.to_path_buf(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_drops_exactly_the_unsynced_tail() {
        let fs = MemFs::new();
        let p = Path::new("/db/f");
        let mut w = fs.create_file(p).unwrap();
        w.append(b"synced").unwrap();
        w.sync().unwrap();
        w.append(b"-lost").unwrap();
        fs.crash(|_, _| 0);
        assert_eq!(fs.read_file(p).unwrap(), b"synced");
    }

    #[test]
    fn a_second_lock_fails_until_the_first_is_dropped() {
        let fs = MemFs::new();
        let p = Path::new("/db/LOCK");
        let l = fs.lock_file(p).unwrap();
        assert!(fs.lock_file(p).is_err());
        drop(l);
        assert!(fs.lock_file(p).is_ok());
    }
}
