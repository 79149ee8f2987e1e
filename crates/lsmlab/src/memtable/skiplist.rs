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
