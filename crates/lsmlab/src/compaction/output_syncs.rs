//! The syncs of a job's output tables, done on a thread of their own while the job writes on.
//!
//! Each sync of a finished table waits for the device twice, whatever was written before it:
//! for the file's metadata and for the device's cache flush. Done by the job between tables, on
//! a 2-core VM with 16 KB values, these waits were about a third of a compaction's time, during
//! which level 0 filled up and writers were held back. Every output is still synced before the
//! job returns, so before any is named in the MANIFEST.

use crate::env::CountedWritable;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// Finished output tables of one job, synced in the order they were finished.
pub(super) struct OutputSyncs {
    /// The database directory, for errors of the thread itself.
    dir: PathBuf,
    /// Files to the syncing thread, started with the first file.
    to_sync: Option<Sender<CountedWritable>>,
    /// The syncing thread: the first failed sync ends it with the error.
    syncer: Option<JoinHandle<Result<()>>>,
}

impl OutputSyncs {
    /// No file yet; the thread starts with the first.
    pub(super) fn new(dir: &Path) -> OutputSyncs {
        OutputSyncs {
            dir: dir.to_path_buf(),
            to_sync: None,
            syncer: None,
        }
    }

    /// Hands `file`, finished and with its writeback started, to the syncing thread.
    pub(super) fn push(&mut self, file: CountedWritable) -> Result<()> {
        if self.to_sync.is_none() {
            let (tx, rx) = channel::<CountedWritable>();
            let syncer = std::thread::Builder::new()
                .name("lsmlab-sync".into())
                .spawn(move || {
                    for mut f in rx {
                        f.sync()?;
                    }
                    Ok(())
                })
                .map_err(|e| Error::io("start the thread syncing output tables", &self.dir, e))?;
            self.to_sync = Some(tx);
            self.syncer = Some(syncer);
        }
        match self.to_sync.as_ref().map(|tx| tx.send(file)) {
            // The thread ended on a failed sync: its error is this job's.
            Some(Err(_)) => self.wait(),
            _ => Ok(()),
        }
    }

    /// Waits until every file pushed is synced; the first failed sync's error.
    pub(super) fn wait(&mut self) -> Result<()> {
        self.to_sync = None;
        match self.syncer.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(Error::io(
                "sync output tables",
                &self.dir,
                std::io::Error::other("the syncing thread panicked"),
            )),
        }
    }
}

impl Drop for OutputSyncs {
    /// A job that ends early (an error) still waits for the syncs it started, so that no
    /// thread touches its files after it returns.
    fn drop(&mut self) {
        let _ = self.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Env, FaultFs, FaultSwitch, FileSystem, IoCategory, MemFs};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    fn table(n: usize) -> PathBuf {
        PathBuf::from(format!("/db/{n:06}.sst"))
    }

    #[test]
    fn every_pushed_file_is_synced_when_wait_returns() {
        let fs = Arc::new(MemFs::new());
        let env = Env::new(fs.clone());
        let mut syncs = OutputSyncs::new(Path::new("/db"));
        for n in 0..5 {
            let mut f = env.create(&table(n), IoCategory::Compaction).unwrap();
            f.append(&[n as u8; 100]).unwrap();
            syncs.push(f).unwrap();
        }
        syncs.wait().unwrap();
        // A power cut keeps only synced bytes.
        fs.crash(|_, _| 0);
        for n in 0..5 {
            assert_eq!(fs.read_file(&table(n)).unwrap(), vec![n as u8; 100]);
        }
    }

    #[test]
    fn a_failed_sync_is_the_jobs_error() {
        let switch = FaultSwitch::new();
        let fs = Arc::new(FaultFs::new(Arc::new(MemFs::new()), switch.clone()));
        let env = Env::new(fs);
        let mut syncs = OutputSyncs::new(Path::new("/db"));
        switch.fail_syncs.store(true, Ordering::Relaxed);
        let mut first_error = None;
        for n in 0..3 {
            let mut f = env.create(&table(n), IoCategory::Compaction).unwrap();
            f.append(b"x").unwrap();
            if let Err(e) = syncs.push(f) {
                first_error = Some(e);
                break;
            }
        }
        let e = match first_error {
            Some(e) => e,
            None => syncs.wait().unwrap_err(),
        };
        assert!(e.to_string().contains("injected fault"), "{e}");
    }
}
