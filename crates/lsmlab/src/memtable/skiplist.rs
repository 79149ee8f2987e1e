//! A skiplist of internal keys in an arena, for one writer at a time and any number of readers
//! without locks (LevelDB's design, with RocksDB's inline layout).
//!
//! A node is one arena allocation: its `height` next pointers, then a header (key length, value
//! length: two little-endian u32), then the internal key and the value. A node's address is the
//! address of its header, so pointer `i` sits `8 * (i + 1)` bytes below it. Entries are never
//! removed or changed: a node is written completely before a release store links it in, and
//! readers follow links with acquire loads, so a reader sees whole nodes or none.

use super::arena::Arena;
use super::block_pool::BlockPool;
use crate::key::compare_internal;
use std::cmp::Ordering as CmpOrdering;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Tallest tower. With a branching factor of 4, twelve levels keep searches logarithmic up to
/// 4^12 = 16 M entries, more than a 1 GiB memtable of 64-byte entries holds.
const MAX_HEIGHT: usize = 12;
/// One in `BRANCHING` nodes of a level also appears on the level above.
const BRANCHING: u64 = 4;
const HEADER: usize = 8;

/// A node's address (its header). Null is the end of a level.
type Node = *mut u8;

/// The writer's state: only the thread inserting touches it.
struct Writer {
    arena: Arena,
    rng: u64,
    /// The predecessors, on every level, of a key just above the last one inserted (RocksDB's
    /// "splice"): an ascending run of inserts (fillseq, a sorted batch) starts from it and skips
    /// the search from the top. Empty until the first insert.
    splice: Option<[Node; MAX_HEIGHT]>,
}

/// The skiplist.
pub(super) struct SkipList {
    head: Node,
    height: AtomicUsize,
    len: AtomicUsize,
    memory: AtomicUsize,
    writer: Mutex<Writer>,
}

// SAFETY: nodes live in the arena the list owns and are immutable once linked, except their
// next pointers, which are atomics; the writer's state is behind a mutex.
unsafe impl Send for SkipList {}
// SAFETY: as for Send: shared access only reads immutable node bytes and atomics.
unsafe impl Sync for SkipList {}

/// The next pointer of `node` at `level`.
///
/// # Safety
/// `node` is a node of this list (or its head) whose height exceeds `level`.
#[inline]
unsafe fn next_slot<'a>(node: Node, level: usize) -> &'a AtomicPtr<u8> {
    &*(node.sub(8 * (level + 1)) as *const AtomicPtr<u8>)
}

/// Initialises the (uninitialised) next pointer of `node` at `level` to `to`.
///
/// # Safety
/// `node` was allocated with a height above `level` and is not yet reachable by readers.
#[inline]
unsafe fn init_slot(node: Node, level: usize, to: Node) {
    (node.sub(8 * (level + 1)) as *mut AtomicPtr<u8>).write(AtomicPtr::new(to));
}

/// The internal key stored in `node`.
///
/// # Safety
/// `node` is a linked node of a live list (not its head).
#[inline]
pub(super) unsafe fn node_key<'a>(node: Node) -> &'a [u8] {
    let klen = (node as *const u32).read() as usize;
    std::slice::from_raw_parts(node.add(HEADER), klen)
}

/// The value stored in `node`.
///
/// # Safety
/// As for [`node_key`].
#[inline]
pub(super) unsafe fn node_value<'a>(node: Node) -> &'a [u8] {
    let klen = (node as *const u32).read() as usize;
    let vlen = (node as *const u32).add(1).read() as usize;
    std::slice::from_raw_parts(node.add(HEADER + klen), vlen)
}

impl SkipList {
    /// An empty list whose arena draws on `pool`.
    pub(super) fn new(pool: Option<Arc<BlockPool>>) -> SkipList {
        let mut arena = Arena::new(pool);
        let head = Self::alloc_node(&mut arena, MAX_HEIGHT, 0, 0);
        for i in 0..MAX_HEIGHT {
            // SAFETY: the head was just allocated with MAX_HEIGHT links and is not shared yet.
            unsafe { init_slot(head, i, ptr::null_mut()) };
        }
        SkipList {
            head,
            height: AtomicUsize::new(1),
            len: AtomicUsize::new(0),
            memory: AtomicUsize::new(arena.used()),
            writer: Mutex::new(Writer {
                arena,
                rng: 0x9E37_79B9_7F4A_7C15,
                splice: None,
            }),
        }
    }

    fn alloc_node(arena: &mut Arena, height: usize, klen: usize, vlen: usize) -> Node {
        let base = arena.allocate(8 * height + HEADER + klen + vlen);
        // SAFETY: the allocation holds the pointers, the header and the payload.
        unsafe {
            let node = base.add(8 * height);
            (node as *mut u32).write(klen as u32);
            (node as *mut u32).add(1).write(vlen as u32);
            node
        }
    }

    /// Entries in the list.
    pub(super) fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Bytes of arena the entries use.
    pub(super) fn memory(&self) -> usize {
        self.memory.load(Ordering::Relaxed)
    }

    /// Inserts the entry whose internal key is `user_key` followed by `trailer` (little-endian),
    /// returning false, and changing nothing, if that internal key is already present: an
    /// internal key names one write, so a second copy is the same write replayed.
    /// Key and value lengths must fit in u32 (the caller refuses larger ones).
    pub(super) fn insert(&self, user_key: &[u8], trailer: u64, value: &[u8]) -> bool {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let klen = user_key.len() + 8;
        let mut ikey_buf = [0u8; 64];
        let mut ikey_vec = Vec::new();
        let ikey: &[u8] = if klen <= ikey_buf.len() {
            ikey_buf[..user_key.len()].copy_from_slice(user_key);
            ikey_buf[user_key.len()..klen].copy_from_slice(&trailer.to_le_bytes());
            &ikey_buf[..klen]
        } else {
            ikey_vec.extend_from_slice(user_key);
            ikey_vec.extend_from_slice(&trailer.to_le_bytes());
            &ikey_vec
        };
        let top = self.height.load(Ordering::Relaxed);
        let (mut prev, found) = match w.splice.filter(|s| self.splice_fits(s, ikey, top)) {
            // SAFETY: splice[0] is a linked node (the last inserted) or the head.
            Some(s) => (s, unsafe { next_slot(s[0], 0).load(Ordering::Relaxed) }),
            None => {
                let mut prev = [self.head; MAX_HEIGHT];
                let found = self.find_greater_or_equal(ikey, top, Some(&mut prev));
                (prev, found)
            }
        };
        // SAFETY: `found` is null or a linked node.
        if !found.is_null() && unsafe { node_key(found) } == ikey {
            return false;
        }
        let height = Self::random_height(&mut w.rng);
        if height > top {
            // Readers that see the new height before the node find null links from the head
            // at the new levels, which is a correct (empty) level.
            self.height.store(height, Ordering::Relaxed);
        }
        let before = w.arena.used();
        let node = Self::alloc_node(&mut w.arena, height, klen, value.len());
        // SAFETY: the node was just allocated with room for `height` links, the key and the
        // value; no reader can reach it until the release stores below link it in; `prev[i]`
        // are the head or linked nodes of height > i.
        unsafe {
            ptr::copy_nonoverlapping(ikey.as_ptr(), node.add(HEADER), klen);
            ptr::copy_nonoverlapping(value.as_ptr(), node.add(HEADER + klen), value.len());
            for (i, p) in prev.iter().enumerate().take(height) {
                init_slot(node, i, next_slot(*p, i).load(Ordering::Relaxed));
                next_slot(*p, i).store(node, Ordering::Release);
            }
        }
        prev[..height].fill(node);
        w.splice = Some(prev);
        self.memory
            .fetch_add(w.arena.used() - before, Ordering::Relaxed);
        self.len.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// True if `splice` holds the predecessors of `ikey` on every level below `top`: each is
    /// below `ikey` and its successor is not. Checked from level 0 up, so a random key fails
    /// after one or two comparisons.
    fn splice_fits(&self, splice: &[Node; MAX_HEIGHT], ikey: &[u8], top: usize) -> bool {
        // Every splice node is at or below splice[0] (the last key inserted) or is the head.
        if splice[0] != self.head
            // SAFETY: a splice node other than the head is a linked node.
            && compare_internal(unsafe { node_key(splice[0]) }, ikey) != CmpOrdering::Less
        {
            return false;
        }
        (0..top).all(|i| {
            // SAFETY: splice[i] is the head or a linked node of height > i.
            let next = unsafe { next_slot(splice[i], i).load(Ordering::Relaxed) };
            // SAFETY: a non-null link points at a linked node.
            next.is_null() || compare_internal(unsafe { node_key(next) }, ikey) != CmpOrdering::Less
        })
    }

    fn random_height(rng: &mut u64) -> usize {
        let mut h = 1;
        while h < MAX_HEIGHT {
            // xorshift64*: the writer's own generator, so heights need no shared state.
            *rng ^= *rng >> 12;
            *rng ^= *rng << 25;
            *rng ^= *rng >> 27;
            let r = rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
            if !r.is_multiple_of(BRANCHING) {
                break;
            }
            h += 1;
        }
        h
    }

    /// The first node ≥ `target`, or null; fills `prev` with the last node < `target` on each
    /// level below `top`.
    fn find_greater_or_equal(
        &self,
        target: &[u8],
        top: usize,
        mut prev: Option<&mut [Node; MAX_HEIGHT]>,
    ) -> Node {
        let mut x = self.head;
        let mut level = top - 1;
        loop {
            // SAFETY: `x` is the head or a linked node reached at this level, so its height
            // exceeds `level`.
            let next = unsafe { next_slot(x, level).load(Ordering::Acquire) };
            // SAFETY: a non-null link points at a whole, linked node.
            if !next.is_null()
                && compare_internal(unsafe { node_key(next) }, target) == CmpOrdering::Less
            {
                x = next;
                continue;
            }
            if let Some(p) = prev.as_deref_mut() {
                p[level] = x;
            }
            if level == 0 {
                return next;
            }
            level -= 1;
        }
    }

    /// The first entry ≥ `target`, or null.
    pub(super) fn seek(&self, target: &[u8]) -> Node {
        self.find_greater_or_equal(target, self.height.load(Ordering::Relaxed), None)
    }

    /// The last entry < `target`, or null.
    pub(super) fn seek_before(&self, target: &[u8]) -> Node {
        let mut x = self.head;
        let mut level = self.height.load(Ordering::Relaxed) - 1;
        loop {
            // SAFETY: as in find_greater_or_equal.
            let next = unsafe { next_slot(x, level).load(Ordering::Acquire) };
            // SAFETY: a non-null link points at a whole, linked node.
            if !next.is_null()
                && compare_internal(unsafe { node_key(next) }, target) == CmpOrdering::Less
            {
                x = next;
                continue;
            }
            if level == 0 {
                return if x == self.head { ptr::null_mut() } else { x };
            }
            level -= 1;
        }
    }

    /// The first entry, or null.
    pub(super) fn first(&self) -> Node {
        // SAFETY: the head has MAX_HEIGHT links.
        unsafe { next_slot(self.head, 0).load(Ordering::Acquire) }
    }

    /// The entry after `node`, or null.
    ///
    /// # Safety
    /// `node` is a linked node of this list.
    pub(super) unsafe fn next(&self, node: Node) -> Node {
        next_slot(node, 0).load(Ordering::Acquire)
    }

    /// The last entry, or null.
    pub(super) fn last(&self) -> Node {
        let mut x = self.head;
        let mut level = self.height.load(Ordering::Relaxed) - 1;
        loop {
            // SAFETY: as in find_greater_or_equal.
            let next = unsafe { next_slot(x, level).load(Ordering::Acquire) };
            if !next.is_null() {
                x = next;
                continue;
            }
            if level == 0 {
                return if x == self.head { ptr::null_mut() } else { x };
            }
            level -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{make_internal_key, ValueKind};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Internal keys in the list's order, so a `BTreeSet` of them sorts as the list must.
    #[derive(Clone, PartialEq, Eq, Debug)]
    struct Ikey(Vec<u8>);
    impl Ord for Ikey {
        fn cmp(&self, other: &Self) -> CmpOrdering {
            compare_internal(&self.0, &other.0)
        }
    }
    impl PartialOrd for Ikey {
        fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
            Some(self.cmp(other))
        }
    }

    fn ikey(k: u16, seq: u64) -> Vec<u8> {
        make_internal_key(format!("k{k:05}").as_bytes(), seq, ValueKind::Value)
    }

    fn insert(list: &SkipList, ik: &[u8]) -> bool {
        let n = ik.len() - 8;
        let trailer = u64::from_le_bytes(ik[n..].try_into().unwrap());
        // The value names its key, so a walk can tell a node's value from another's.
        list.insert(&ik[..n], trailer, ik)
    }

    /// The keys on `level`, walked from the head.
    fn level_keys(list: &SkipList, level: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        // SAFETY: the head has MAX_HEIGHT links and each node reached on `level` is taller.
        let mut x = unsafe { next_slot(list.head, level).load(Ordering::Acquire) };
        while !x.is_null() {
            // SAFETY: a linked node of height > level.
            unsafe {
                out.push(node_key(x).to_vec());
                x = next_slot(x, level).load(Ordering::Acquire);
            }
        }
        out
    }

    fn key_at(node: Node) -> Option<Vec<u8>> {
        // SAFETY: non-null results of the list's searches are linked nodes.
        (!node.is_null()).then(|| unsafe { node_key(node).to_vec() })
    }

    #[test]
    fn an_empty_list_has_no_first_last_or_seek() {
        let list = SkipList::new(None);
        assert!(list.first().is_null() && list.last().is_null());
        assert!(list.seek(&ikey(1, 1)).is_null() && list.seek_before(&ikey(1, 1)).is_null());
        assert_eq!(list.len(), 0);
    }

    #[test]
    fn a_replayed_internal_key_is_refused_and_changes_nothing() {
        let list = SkipList::new(None);
        assert!(insert(&list, &ikey(7, 3)));
        let memory = list.memory();
        assert!(!insert(&list, &ikey(7, 3)));
        assert!(
            insert(&list, &ikey(7, 4)),
            "another sequence is another write"
        );
        assert_eq!(list.len(), 2);
        assert!(list.memory() > memory);
        assert_eq!(
            key_at(list.first()),
            Some(ikey(7, 4)),
            "newest version first"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Inserts in random order and in ascending runs (the splice path) agree with a sorted
        /// set: the walk, every level's order, first, last, seek and seek_before, and values.
        #[test]
        fn agrees_with_a_sorted_set(
            keys in prop::collection::vec((0u16..400, 1u64..4), 0..300),
            runs in prop::collection::vec((0u16..400, 1usize..40), 0..6),
            probes in prop::collection::vec((0u16..402, 0u64..5), 1..40),
        ) {
            let list = SkipList::new(None);
            let mut model = BTreeSet::new();
            let ascending = runs.iter().flat_map(|&(start, n)| {
                (0..n as u16).map(move |i| (start.saturating_add(i), 9))
            });
            for (k, seq) in keys.iter().copied().chain(ascending) {
                let ik = ikey(k, seq);
                prop_assert_eq!(insert(&list, &ik), model.insert(Ikey(ik)));
            }
            prop_assert_eq!(list.len(), model.len());
            let sorted: Vec<Vec<u8>> = model.iter().map(|k| k.0.clone()).collect();
            prop_assert_eq!(&level_keys(&list, 0), &sorted);
            for level in 1..MAX_HEIGHT {
                // Each tower level is an ordered subset of the level below it.
                let upper = level_keys(&list, level);
                prop_assert!(upper.windows(2).all(|w| compare_internal(&w[0], &w[1]).is_lt()));
                let lower: BTreeSet<Ikey> = level_keys(&list, level - 1).into_iter().map(Ikey).collect();
                prop_assert!(upper.iter().all(|k| lower.contains(&Ikey(k.clone()))));
            }
            prop_assert_eq!(key_at(list.first()), sorted.first().cloned());
            prop_assert_eq!(key_at(list.last()), sorted.last().cloned());
            let mut node = list.first();
            while !node.is_null() {
                // SAFETY: nodes reached from first() by next() are linked nodes.
                unsafe {
                    prop_assert_eq!(node_value(node), node_key(node));
                    node = list.next(node);
                }
            }
            for (k, seq) in probes {
                let target = Ikey(ikey(k, seq));
                let ge = model.range(target.clone()..).next().map(|k| k.0.clone());
                let lt = model.range(..target.clone()).next_back().map(|k| k.0.clone());
                prop_assert_eq!(key_at(list.seek(&target.0)), ge);
                prop_assert_eq!(key_at(list.seek_before(&target.0)), lt);
            }
        }
    }
}
