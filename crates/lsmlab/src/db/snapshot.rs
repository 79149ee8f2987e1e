//! Snapshots: a sequence number that compaction must keep readable while a handle lives.

use crate::key::SequenceNumber;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The sequence numbers of live snapshots, with how many handles hold each.
#[derive(Default)]
pub(crate) struct SnapshotList {
    live: Mutex<BTreeMap<SequenceNumber, usize>>,
}

impl SnapshotList {
    pub(crate) fn acquire(self: &Arc<Self>, seq: SequenceNumber) -> Snapshot {
        *self.live.lock().entry(seq).or_insert(0) += 1;
        Snapshot {
            inner: Arc::new(Handle {
                seq,
                list: self.clone(),
            }),
        }
    }

    /// The oldest live snapshot, if any.
    pub(crate) fn oldest(&self) -> Option<SequenceNumber> {
        self.live.lock().keys().next().copied()
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
