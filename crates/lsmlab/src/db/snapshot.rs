//! Snapshots: a sequence number that compaction must keep readable while a handle lives.

use crate::key::SequenceNumber;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The sequence numbers of live snapshots, with how many handles hold each.
#[derive(Default)]
pub(crate) struct SnapshotList {
    live: Mutex<BTreeMap<SequenceNumber, usize>>,
}

impl SnapshotList {
    /// Registers a snapshot at the current `last_seq`, read under the list lock so that a
    /// compaction computing [`SnapshotList::smallest`] either sees it or ran before its
    /// sequence existed.
    pub(crate) fn acquire(self: &Arc<Self>, last_seq: &AtomicU64) -> Snapshot {
        #[cfg(test)]
        super::test_pause_point();
        let mut live = self.live.lock();
        let seq = last_seq.load(Ordering::Acquire);
        *live.entry(seq).or_insert(0) += 1;
        drop(live);
        Snapshot {
            inner: Arc::new(Handle {
                seq,
                list: self.clone(),
            }),
        }
    }

    /// The sequence below which no reader can see a shadowed version: the oldest snapshot, or
    /// the last sequence if none. Both are read under the list lock (see `acquire`).
    pub(crate) fn smallest(&self, last_seq: &AtomicU64) -> SequenceNumber {
        let live = self.live.lock();
        let last = last_seq.load(Ordering::Acquire);
        live.keys().next().copied().unwrap_or(last).min(last)
    }
}

struct Handle {
    seq: SequenceNumber,
    list: Arc<SnapshotList>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let mut live = self.list.live.lock();
        if let Some(n) = live.get_mut(&self.seq) {
            *n -= 1;
            if *n == 0 {
                live.remove(&self.seq);
            }
        }
    }
}

/// A consistent read view: reads through it see the database as it was when it was taken.
/// Cloning shares the view; it is released when the last clone is dropped.
#[derive(Clone)]
pub struct Snapshot {
    inner: Arc<Handle>,
}

impl Snapshot {
    /// The sequence number the snapshot reads at.
    pub fn sequence(&self) -> SequenceNumber {
        self.inner.seq
    }
}
