//! The memtable: a concurrent skiplist of internal keys, written by one thread at a time (the
//! group-commit leader) and read by any number of threads without locks.

use crate::error::Result;
use crate::iter::InternalIterator;
use crate::key::{
    append_internal_key, lookup_key, parse_internal_key, user_key, InternalKey, SequenceNumber,
    ValueKind,
};
use crossbeam_skiplist::SkipMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes charged per entry for the skiplist node and the two heap allocations (tower of
/// pointers, key and value headers), so that `approximate_size` tracks real memory.
const ENTRY_OVERHEAD: usize = 64;

/// One memtable.
pub struct MemTable {
    map: SkipMap<InternalKey, Vec<u8>>,
    size: AtomicUsize,
    /// Number of the WAL that holds this memtable's writes (0 when the WAL is disabled).
    pub wal_number: u64,
}

/// What a memtable knows of a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The newest visible version is a value (or blob index, with its kind).
    Found(ValueKind, Vec<u8>),
    /// The newest visible version is a deletion.
    Deleted,
    /// The memtable holds no visible version.
    Absent,
}

impl MemTable {
    /// An empty memtable whose writes go to WAL `wal_number`.
    pub fn new(wal_number: u64) -> MemTable {
        MemTable {
            map: SkipMap::new(),
            size: AtomicUsize::new(0),
            wal_number,
        }
    }

    /// Inserts one version of a key.
    pub fn add(&self, seq: SequenceNumber, kind: ValueKind, key: &[u8], value: &[u8]) {
        let mut ik = Vec::with_capacity(key.len() + 8);
        append_internal_key(&mut ik, key, seq, kind);
        self.size
            .fetch_add(ik.len() + value.len() + ENTRY_OVERHEAD, Ordering::Relaxed);
        self.map.insert(InternalKey(ik), value.to_vec());
    }

    /// The newest version of `key` with sequence ≤ `seq`.
    pub fn get(&self, key: &[u8], seq: SequenceNumber) -> Lookup {
        self.get_lookup(&InternalKey(lookup_key(key, seq)))
    }

    /// The newest version at or before `lookup`, a [`lookup_key`]: a get builds it once for
    /// every memtable and the tables.
    pub fn get_lookup(&self, lookup: &InternalKey) -> Lookup {
        let Some(e) = self.map.lower_bound(Bound::Included(lookup)) else {
            return Lookup::Absent;
        };
        match parse_internal_key(&e.key().0) {
            Some(p) if p.user_key == user_key(&lookup.0) => match p.kind {
                ValueKind::Deletion => Lookup::Deleted,
                k => Lookup::Found(k, e.value().clone()),
            },
            _ => Lookup::Absent,
        }
    }

    /// Approximate bytes of memory used.
    pub fn approximate_size(&self) -> usize {
        self.size.load(Ordering::Relaxed)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every entry in order (for flushing).
    pub fn entries(&self) -> impl Iterator<Item = (Vec<u8>, Vec<u8>)> + '_ {
        self.map
            .iter()
            .map(|e| (e.key().0.clone(), e.value().clone()))
    }

    /// Visits every entry in order without copying.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
        for e in self.map.iter() {
            f(&e.key().0, e.value())?;
        }
        Ok(())
    }

    /// Smallest and largest user keys, if any.
    pub fn user_key_range(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        let lo = self.map.front()?;
        let hi = self.map.back()?;
        Some((
            user_key(&lo.key().0).to_vec(),
            user_key(&hi.key().0).to_vec(),
        ))
    }
}

/// A cursor over a memtable. It holds a copy of the current entry and repositions by key, so it
/// needs no borrow of the skiplist and stays valid while writers insert.
pub struct MemTableIter {
    mem: Arc<MemTable>,
    cur: Option<(InternalKey, Vec<u8>)>,
}

impl MemTableIter {
    /// A cursor over `mem`, not yet positioned.
    pub fn new(mem: Arc<MemTable>) -> MemTableIter {
        MemTableIter { mem, cur: None }
    }

    fn set(&mut self, e: Option<crossbeam_skiplist::map::Entry<'_, InternalKey, Vec<u8>>>) {
        self.cur = e.map(|e| (e.key().clone(), e.value().clone()));
    }
}

impl InternalIterator for MemTableIter {
    fn valid(&self) -> bool {
        self.cur.is_some()
    }
    fn seek_to_first(&mut self) {
        let mem = self.mem.clone();
        self.set(mem.map.front());
    }
    fn seek_to_last(&mut self) {
        let mem = self.mem.clone();
        self.set(mem.map.back());
    }
    fn seek(&mut self, target: &[u8]) {
        let mem = self.mem.clone();
        self.set(
            mem.map
                .lower_bound(Bound::Included(&InternalKey(target.to_vec()))),
        );
    }
    fn next(&mut self) {
        let mem = self.mem.clone();
        let e = match &self.cur {
            Some((k, _)) => mem.map.lower_bound(Bound::Excluded(k)),
            None => None,
        };
        self.set(e);
    }
    fn prev(&mut self) {
        let mem = self.mem.clone();
        let e = match &self.cur {
            Some((k, _)) => mem.map.upper_bound(Bound::Excluded(k)),
            None => None,
        };
        self.set(e);
    }
    fn key(&self) -> &[u8] {
        self.cur.as_ref().map(|c| &c.0 .0[..]).unwrap_or(&[])
    }
    fn value(&self) -> &[u8] {
        self.cur.as_ref().map(|c| &c.1[..]).unwrap_or(&[])
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_sees_the_newest_version_at_or_before_the_snapshot() {
        let m = MemTable::new(1);
        m.add(1, ValueKind::Value, b"k", b"v1");
        m.add(3, ValueKind::Deletion, b"k", b"");
        m.add(5, ValueKind::Value, b"k", b"v5");
        assert_eq!(m.get(b"k", 0), Lookup::Absent);
        assert_eq!(
            m.get(b"k", 2),
            Lookup::Found(ValueKind::Value, b"v1".to_vec())
        );
        assert_eq!(m.get(b"k", 4), Lookup::Deleted);
        assert_eq!(
            m.get(b"k", 9),
            Lookup::Found(ValueKind::Value, b"v5".to_vec())
        );
        assert_eq!(m.get(b"j", 9), Lookup::Absent);
        assert_eq!(m.get(b"kk", 9), Lookup::Absent);
    }

    #[test]
    fn iterator_walks_both_ways_in_internal_order() {
        let m = Arc::new(MemTable::new(1));
        for (i, k) in [b"b", b"a", b"c"].iter().enumerate() {
            m.add(i as u64 + 1, ValueKind::Value, *k, b"x");
        }
        let mut it = MemTableIter::new(m);
        it.seek_to_first();
        let mut fwd = vec![];
        while it.valid() {
            fwd.push(user_key(it.key()).to_vec());
            it.next();
        }
        assert_eq!(fwd, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        it.seek_to_last();
        it.prev();
        assert_eq!(user_key(it.key()), b"b");
    }
}
