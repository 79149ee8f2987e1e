//! A wrapper that makes writes or syncs fail on demand, as a full or failing disk does.

use super::{FileSystem, FileSystemWrapper, WritableFile, WritableFileWrapper};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;

/// The switches of a [`FaultFs`], shared with the test that flips them.
#[derive(Default)]
pub struct FaultSwitch {
    /// Appends fail (disk full).
    pub fail_writes: AtomicBool,
    /// Syncs fail (I/O error).
    pub fail_syncs: AtomicBool,
    /// File creations fail.
    pub fail_creates: AtomicBool,
    /// When ≥ 0: appends succeed this many more times, then `fail_writes` turns on.
    pub writes_until_failure: AtomicI64,
}

impl FaultSwitch {
    /// Switches with every fault off.
    pub fn new() -> Arc<FaultSwitch> {
        let s = FaultSwitch::default();
        s.writes_until_failure.store(-1, Ordering::Relaxed);
        Arc::new(s)
    }
    fn write_fails(&self) -> bool {
        let left = self.writes_until_failure.load(Ordering::Relaxed);
        if left == 0 {
            self.fail_writes.store(true, Ordering::Relaxed);
        } else if left > 0 {
            self.writes_until_failure.fetch_sub(1, Ordering::Relaxed);
        }
        self.fail_writes.load(Ordering::Relaxed)
    }
}

/// A file system that injects the faults its [`FaultSwitch`] asks for.
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    switch: Arc<FaultSwitch>,
}

impl FaultFs {
    /// Wraps `inner`; faults are controlled through `switch`.
    pub fn new(inner: Arc<dyn FileSystem>, switch: Arc<FaultSwitch>) -> FaultFs {
        FaultFs { inner, switch }
    }
}

fn injected(op: &str, path: &Path) -> Error {
    Error::io(op, path, std::io::Error::other("injected fault"))
}

struct FaultWritable {
    inner: Box<dyn WritableFile>,
    switch: Arc<FaultSwitch>,
    path: PathBuf,
}

impl WritableFileWrapper for FaultWritable {
    fn target(&mut self) -> &mut dyn WritableFile {
        self.inner.as_mut()
    }
    fn target_ref(&self) -> &dyn WritableFile {
        self.inner.as_ref()
    }
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if self.switch.write_fails() {
            return Err(injected("write", &self.path));
        }
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        if self.switch.fail_writes.load(Ordering::Relaxed) {
            return Err(injected("write", &self.path));
        }
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        if self.switch.fail_syncs.load(Ordering::Relaxed) {
            return Err(injected("fsync", &self.path));
        }
        self.inner.sync()
    }
    fn start_writeback(&mut self) -> Result<()> {
        // It hands buffered bytes to the OS, as `flush` does, so a failing write fails it too.
        if self.switch.fail_writes.load(Ordering::Relaxed) {
            return Err(injected("write", &self.path));
        }
        self.inner.start_writeback()
    }
}

impl FileSystemWrapper for FaultFs {
    fn target(&self) -> &dyn FileSystem {
        self.inner.as_ref()
    }
    fn create_file(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        if self.switch.fail_creates.load(Ordering::Relaxed) {
            return Err(injected("create", path));
        }
        Ok(Box::new(FaultWritable {
            inner: self.inner.create_file(path)?,
            switch: self.switch.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if self.switch.fail_writes.load(Ordering::Relaxed) {
            return Err(injected("rename", from));
        }
        self.inner.rename(from, to)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        if self.switch.fail_syncs.load(Ordering::Relaxed) {
            return Err(injected("fsync directory", path));
        }
        self.inner.sync_dir(path)
    }
}
