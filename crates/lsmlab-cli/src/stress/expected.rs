//! The expected state: for every key slot, the last acknowledged version and the version of a
//! write in flight, kept in a file (as db_stress's expected-values file) so that it survives the
//! SIGKILL of the process that runs the workload.
//!
//! A write first records its version as pending, then writes to the database, then records it
//! as committed. After a crash a key may hold its committed version or, if one is pending, that
//! one — anything else is a lost or invented write. Each slot is written with one `pwrite`,
//! which the kernel keeps when the process is killed.

use lsmlab_drivers::error::{CliError, CliResult};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// A slot's state word: version 0 means never written; the deleted bit marks a deletion (which
/// has a version too, so that versions never repeat).
pub const DELETED: u32 = 1 << 31;
const MAGIC: &[u8; 8] = b"LSMSTRS1";
const HEADER: u64 = 64;
/// Per-thread operation counters after the magic (8 threads' worth of u64 fit the header's
/// first block; more threads share the last counter).
const COUNTERS: usize = 7;

/// The state of one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Slot {
    /// Last acknowledged state (version, with [`DELETED`] for a deletion); 0 = never written.
    pub committed: u32,
    /// State of a write not yet acknowledged; 0 = none.
    pub pending: u32,
}

impl Slot {
    fn pack(self) -> u64 {
        (u64::from(self.pending) << 32) | u64::from(self.committed)
    }
    fn unpack(x: u64) -> Slot {
        Slot {
            committed: x as u32,
            pending: (x >> 32) as u32,
        }
    }
    /// The next version to write: above every version used.
    pub fn next_version(self) -> u32 {
        (self.committed & !DELETED).max(self.pending & !DELETED) + 1
    }
    /// The value a read must find, as a version; `None` for no value.
    pub fn live(state: u32) -> Option<u32> {
        (state != 0 && state & DELETED == 0).then_some(state)
    }
}

/// The expected-state file and its in-memory mirror.
pub struct ExpectedState {
    file: File,
    slots: Vec<AtomicU64>,
    /// Threads past the seventh share the last counter.
    counters: std::sync::Mutex<()>,
}

impl ExpectedState {
    /// Opens the file at `path` for `n` slots, creating it (all slots never written) if absent.
    pub fn open(path: &Path, n: u32) -> CliResult<ExpectedState> {
        let err = |e: std::io::Error| CliError::new(format!("--expected={}: {e}", path.display()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(err)?;
        let size = HEADER + 8 * u64::from(n);
        let len = file.metadata().map_err(err)?.len();
        if len == 0 {
            file.write_all_at(MAGIC, 0).map_err(err)?;
            file.set_len(size).map_err(err)?;
        } else {
            let mut magic = [0u8; 8];
            file.read_exact_at(&mut magic, 0).map_err(err)?;
            if &magic != MAGIC || len != size {
                return Err(CliError::new(format!(
                    "--expected={}: not an expected-state file for {n} keys (a different --keys, or not written by lsmlab stress)",
                    path.display()
                )));
            }
        }
        let mut raw = vec![0u8; 8 * n as usize];
        file.read_exact_at(&mut raw, HEADER).map_err(err)?;
        let slots = raw
            .chunks_exact(8)
            .map(|c| AtomicU64::new(u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))))
            .collect();
        Ok(ExpectedState {
            file,
            slots,
            counters: std::sync::Mutex::new(()),
        })
    }

    /// Number of slots.
    pub fn len(&self) -> u32 {
        self.slots.len() as u32
    }

    /// True if there are no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The state of slot `k`.
    pub fn get(&self, k: u32) -> Slot {
        Slot::unpack(self.slots[k as usize].load(Ordering::Acquire))
    }

    /// Sets slot `k`; durable against a kill of this process when it returns.
    pub fn set(&self, k: u32, s: Slot) -> CliResult<()> {
        self.slots[k as usize].store(s.pack(), Ordering::Release);
        self.file
            .write_all_at(&s.pack().to_le_bytes(), HEADER + 8 * u64::from(k))
            .map_err(|e| CliError::new(format!("expected-state file: {e}")))
    }

    /// Adds `n` to thread `t`'s operation counter.
    pub fn add_ops(&self, t: usize, n: u64) {
        let at = 8 + 8 * t.min(COUNTERS - 1) as u64;
        let _guard = self.counters.lock();
        let mut b = [0u8; 8];
        if self.file.read_exact_at(&mut b, at).is_ok() {
            let v = u64::from_le_bytes(b) + n;
            let _ = self.file.write_all_at(&v.to_le_bytes(), at);
        }
    }

    /// Operations counted by every thread of every process so far.
    pub fn ops(&self) -> u64 {
        (0..COUNTERS)
            .map(|t| {
                let mut b = [0u8; 8];
                let _ = self.file.read_exact_at(&mut b, 8 + 8 * t as u64);
                u64::from_le_bytes(b)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_survives_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("expected");
        let e = ExpectedState::open(&p, 100).unwrap();
        e.set(
            7,
            Slot {
                committed: 3,
                pending: 4,
            },
        )
        .unwrap();
        e.add_ops(0, 5);
        e.add_ops(9, 2);
        drop(e);
        let e = ExpectedState::open(&p, 100).unwrap();
        assert_eq!(
            e.get(7),
            Slot {
                committed: 3,
                pending: 4
            }
        );
        assert_eq!(e.get(8), Slot::default());
        assert_eq!(e.get(7).next_version(), 5);
        assert_eq!(e.ops(), 7);
        assert!(
            ExpectedState::open(&p, 99).is_err(),
            "a different key count is refused"
        );
    }
}
