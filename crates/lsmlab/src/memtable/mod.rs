//! The memtable: a skiplist of internal keys in an arena (`skiplist.rs`, `arena.rs`), written
//! by one thread at a time (the group-commit leader) and read by any number of threads without
//! locks.

mod arena;
mod block_pool;
mod skiplist;

pub(crate) use block_pool::BlockPool;

use crate::error::Result;
use crate::iter::InternalIterator;
use crate::key::{
    lookup_key, pack_trailer, parse_internal_key, user_key, SequenceNumber, ValueKind,
};
use crate::pinned::PinnedValue;
use skiplist::{node_key, node_value, SkipList};
use std::sync::Arc;

/// Largest key or value a memtable entry holds: lengths are stored as u32, as RocksDB's
/// (which refuses larger ones too). `Db::write` refuses a batch with a larger one.
pub const MAX_ENTRY_LEN: usize = u32::MAX as usize - 8;

/// One memtable.
pub struct MemTable {
    list: SkipList,
    /// Number of the WAL that holds this memtable's writes (0 when the WAL is disabled).
    pub wal_number: u64,
}

/// What a memtable knows of a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The newest visible version is a value (or blob index, with its kind).
    Found(ValueKind, PinnedValue),
    /// The newest visible version is a deletion.
    Deleted,
    /// The memtable holds no visible version.
    Absent,
}

impl MemTable {
    /// An empty memtable whose writes go to WAL `wal_number`.
    pub fn new(wal_number: u64) -> MemTable {
        MemTable {
            list: SkipList::new(None),
            wal_number,
        }
    }

    /// An empty memtable whose memory comes from, and goes back to, a database's `pool`.
    pub(crate) fn with_pool(wal_number: u64, pool: &Arc<BlockPool>) -> MemTable {
        MemTable {
            list: SkipList::new(Some(pool.clone())),
            wal_number,
        }
    }

    /// Inserts one version of a key. A version already present (same key and sequence) is the
    /// same write replayed and is kept as it is. Key and value are at most [`MAX_ENTRY_LEN`]
    /// bytes; longer ones are refused before they reach a memtable.
    pub fn add(&self, seq: SequenceNumber, kind: ValueKind, key: &[u8], value: &[u8]) {
        debug_assert!(key.len() <= MAX_ENTRY_LEN && value.len() <= MAX_ENTRY_LEN);
        self.list.insert(key, pack_trailer(seq, kind), value);
    }

    /// The newest version of `key` with sequence ≤ `seq`.
    pub fn get(&self, key: &[u8], seq: SequenceNumber) -> Lookup {
        self.get_lookup(&lookup_key(key, seq))
    }

    /// The newest version at or before `lookup`, a [`lookup_key`]: a get builds it once for
    /// every memtable and the tables.
    pub fn get_lookup(&self, lookup: &[u8]) -> Lookup {
        let node = self.list.seek(lookup);
        if node.is_null() {
            return Lookup::Absent;
        }
        // SAFETY: a non-null node from our own list, which `self` keeps alive.
        let (k, v) = unsafe { (node_key(node), node_value(node)) };
        match parse_internal_key(k) {
            Some(p) if p.user_key == user_key(lookup) => match p.kind {
                ValueKind::Deletion => Lookup::Deleted,
                kind => Lookup::Found(kind, v.to_vec().into()),
            },
            _ => Lookup::Absent,
        }
    }

    /// Approximate bytes of memory used: the arena bytes of every entry (its links, header, key
    /// and value), as RocksDB charges its arena.
    pub fn approximate_size(&self) -> usize {
        self.list.memory()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.list.len() == 0
    }

    /// Every entry in order, copied (a flush visits them in place with [`Self::for_each`]).
    pub fn entries(&self) -> impl Iterator<Item = (Vec<u8>, Vec<u8>)> + '_ {
        let mut node = self.list.first();
        std::iter::from_fn(move || {
            if node.is_null() {
                return None;
            }
            // SAFETY: a linked node of our own list, alive as long as `self`.
            let item = unsafe { (node_key(node).to_vec(), node_value(node).to_vec()) };
            // SAFETY: as above.
            node = unsafe { self.list.next(node) };
            Some(item)
        })
    }

    /// Visits every entry in order without copying.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
        let mut node = self.list.first();
        while !node.is_null() {
            // SAFETY: a linked node of our own list, alive as long as `self`.
            unsafe {
                f(node_key(node), node_value(node))?;
                node = self.list.next(node);
            }
        }
        Ok(())
    }

    /// Smallest and largest user keys, if any.
    pub fn user_key_range(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        let (lo, hi) = (self.list.first(), self.list.last());
        if lo.is_null() || hi.is_null() {
            return None;
        }
        // SAFETY: linked nodes of our own list.
        unsafe {
            Some((
                user_key(node_key(lo)).to_vec(),
                user_key(node_key(hi)).to_vec(),
            ))
        }
    }
}

/// A cursor over a memtable: a pointer to the current node, valid while the cursor holds the
/// memtable, so key and value are read in place and `next` is one load.
pub struct MemTableIter {
    mem: Arc<MemTable>,
    node: *mut u8,
}

// SAFETY: `node` points into the arena of `mem`, which the cursor keeps alive; linked nodes are
// immutable, so reading them from any thread is safe.
unsafe impl Send for MemTableIter {}

impl MemTableIter {
    /// A cursor over `mem`, not yet positioned.
    pub fn new(mem: Arc<MemTable>) -> MemTableIter {
        MemTableIter {
            mem,
            node: std::ptr::null_mut(),
        }
    }
}

impl InternalIterator for MemTableIter {
    fn valid(&self) -> bool {
        !self.node.is_null()
    }
    fn seek_to_first(&mut self) {
        self.node = self.mem.list.first();
    }
    fn seek_to_last(&mut self) {
        self.node = self.mem.list.last();
    }
    fn seek(&mut self, target: &[u8]) {
        self.node = self.mem.list.seek(target);
    }
    fn next(&mut self) {
        if !self.node.is_null() {
            // SAFETY: a linked node of `mem`, which we hold.
            self.node = unsafe { self.mem.list.next(self.node) };
        }
    }
    fn prev(&mut self) {
        if !self.node.is_null() {
            // SAFETY: as in next.
            let key = unsafe { node_key(self.node) };
            self.node = self.mem.list.seek_before(key);
        }
    }
    fn key(&self) -> &[u8] {
        if self.node.is_null() {
            return &[];
        }
        // SAFETY: a linked node of `mem`, which lives as long as `self`.
        unsafe { node_key(self.node) }
    }
    fn value(&self) -> &[u8] {
        if self.node.is_null() {
            return &[];
        }
        // SAFETY: as in key.
        unsafe { node_value(self.node) }
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
            Lookup::Found(ValueKind::Value, b"v1".to_vec().into())
        );
        assert_eq!(m.get(b"k", 4), Lookup::Deleted);
        assert_eq!(
            m.get(b"k", 9),
            Lookup::Found(ValueKind::Value, b"v5".to_vec().into())
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

#[cfg(test)]
mod model_tests {
    use super::*;
    use crate::key::{compare_internal, make_internal_key, InternalKey};
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn op() -> impl Strategy<Value = (Vec<u8>, u64, bool, Vec<u8>)> {
        (
            prop::collection::vec(0u8..4, 0..6),
            1u64..40,
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..20),
        )
    }

    proptest! {
        /// Inserts, point lookups at every snapshot, seeks, and walks both ways agree with a
        /// BTreeMap of internal keys; a replayed version keeps the first copy.
        #[test]
        fn memtable_agrees_with_a_btreemap(ops in prop::collection::vec(op(), 0..200), probes in prop::collection::vec(op(), 0..40)) {
            let m = Arc::new(MemTable::new(1));
            let mut model: BTreeMap<InternalKey, Vec<u8>> = BTreeMap::new();
            for (k, seq, del, v) in &ops {
                let kind = if *del { ValueKind::Deletion } else { ValueKind::Value };
                m.add(*seq, kind, k, v);
                model.entry(InternalKey(make_internal_key(k, *seq, kind))).or_insert_with(|| v.clone());
            }
            prop_assert_eq!(m.len(), model.len());
            let all: Vec<(Vec<u8>, Vec<u8>)> = m.entries().collect();
            let want: Vec<(Vec<u8>, Vec<u8>)> = model.iter().map(|(k, v)| (k.0.clone(), v.clone())).collect();
            prop_assert_eq!(&all, &want);
            let mut it = MemTableIter::new(m.clone());
            it.seek_to_last();
            let mut back = Vec::new();
            while it.valid() {
                back.push((it.key().to_vec(), it.value().to_vec()));
                it.prev();
            }
            back.reverse();
            prop_assert_eq!(&back, &want);
            for (k, seq, _, _) in &probes {
                let lookup = lookup_key(k, *seq);
                let expect = model
                    .range(InternalKey(lookup.clone())..)
                    .next()
                    .filter(|(ik, _)| user_key(&ik.0) == &k[..]);
                let got = m.get(k, *seq);
                match expect {
                    None => prop_assert_eq!(got, Lookup::Absent),
                    Some((ik, v)) => match parse_internal_key(&ik.0).map(|p| p.kind) {
                        Some(ValueKind::Deletion) => prop_assert_eq!(got, Lookup::Deleted),
                        Some(kind) => prop_assert_eq!(got, Lookup::Found(kind, v.clone().into())),
                        None => prop_assert!(false),
                    },
                }
                it.seek(&lookup);
                match model.range(InternalKey(lookup.clone())..).next() {
                    None => prop_assert!(!it.valid()),
                    Some((ik, _)) => prop_assert_eq!(it.key(), &ik.0[..]),
                }
            }
            if let Some((lo, hi)) = m.user_key_range() {
                prop_assert_eq!(&lo[..], user_key(&model.keys().next().unwrap().0));
                prop_assert_eq!(&hi[..], user_key(&model.keys().next_back().unwrap().0));
            } else {
                prop_assert!(model.is_empty());
            }
        }
    }

    proptest! {
        /// Ascending runs (which start from the last insert's splice) mixed with jumps back
        /// (which must not) keep the list equal to the model.
        #[test]
        fn ascending_runs_and_jumps_agree_with_a_btreemap(starts in prop::collection::vec((0u32..5000, 1usize..60), 1..20)) {
            let m = MemTable::new(1);
            let mut model = BTreeMap::new();
            let mut seq = 1;
            for (start, run) in starts {
                for k in start..start + run as u32 {
                    let key = k.to_be_bytes();
                    m.add(seq, ValueKind::Value, &key, &key);
                    model.insert(InternalKey(make_internal_key(&key, seq, ValueKind::Value)), key.to_vec());
                    seq += 1;
                }
            }
            let all: Vec<(Vec<u8>, Vec<u8>)> = m.entries().collect();
            let want: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().map(|(k, v)| (k.0, v)).collect();
            prop_assert_eq!(all, want);
        }
    }

    /// Entries of every size class (inside a block, larger than the next block, a block of
    /// their own) read back whole, in a fresh memtable and after many small ones.
    #[test]
    fn values_of_every_size_read_back() {
        for first in [0usize, 300] {
            let m = MemTable::new(1);
            let mut want = BTreeMap::new();
            let mut seq = 1;
            for i in 0..first {
                let k = format!("small{i:05}");
                m.add(seq, ValueKind::Value, k.as_bytes(), b"v");
                want.insert(k.into_bytes(), b"v".to_vec());
                seq += 1;
            }
            for (i, n) in [16_384usize, 5_000, 100_000, 300_000, 1 << 20, 7, 65_536]
                .iter()
                .enumerate()
            {
                let k = format!("big{i}");
                let v: Vec<u8> = (0..*n).map(|j| (j * 31 + i) as u8).collect();
                m.add(seq, ValueKind::Value, k.as_bytes(), &v);
                want.insert(k.into_bytes(), v);
                seq += 1;
            }
            for (k, v) in &want {
                assert_eq!(
                    m.get(k, seq),
                    Lookup::Found(ValueKind::Value, v.clone().into())
                );
            }
            assert_eq!(m.len(), want.len());
        }
    }

    /// Readers walking the list while the writer inserts see whole entries, in order, never
    /// fewer than were linked before they started.
    #[test]
    fn readers_see_ordered_whole_entries_during_inserts() {
        let m = Arc::new(MemTable::new(1));
        let n = 20_000u64;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (m, stop) = (m.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut walks = 0;
                    while !stop.load(std::sync::atomic::Ordering::Acquire) || walks == 0 {
                        let before = m.len();
                        let mut it = MemTableIter::new(m.clone());
                        it.seek_to_first();
                        let mut count = 0;
                        let mut last: Option<Vec<u8>> = None;
                        while it.valid() {
                            let k = it.key().to_vec();
                            // The value repeats the key's user part: a torn entry would differ.
                            assert_eq!(it.value(), user_key(&k));
                            if let Some(l) = &last {
                                assert_eq!(compare_internal(l, &k), std::cmp::Ordering::Less);
                            }
                            last = Some(k);
                            count += 1;
                            it.next();
                        }
                        assert!(count >= before);
                        walks += 1;
                    }
                })
            })
            .collect();
        for i in 0..n {
            // Scattered keys, so inserts land all over the list.
            let k = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_be_bytes();
            m.add(i + 1, ValueKind::Value, &k, &k);
        }
        stop.store(true, std::sync::atomic::Ordering::Release);
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(m.len(), n as usize);
        assert!(m.approximate_size() >= n as usize * (8 + 16 + 8 + 8));
    }
}
