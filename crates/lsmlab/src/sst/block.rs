//! Blocks: sorted entries with prefix-compressed keys and restart points.
//!
//! ```text
//! entry*  restart[num_restarts] (u32 LE each)  num_restarts (u32 LE)
//! entry = varint32 shared | varint32 non_shared | varint32 value_len | key[shared..] | value
//! ```
//! Every `restart_interval`-th entry stores its whole key (`shared = 0`) and its offset is
//! recorded in the restart array, so that a seek binary-searches the restart points and then
//! scans at most one interval, and `prev` restarts from the previous restart point.

use crate::coding::{get_fixed32, get_varint32, put_fixed32, put_varint32};
use crate::env::MappedBytes;
use crate::key::compare_internal;
use std::cmp::Ordering;

/// Bytes of one restart-array slot and of the restart count.
const U32_LEN: usize = 4;

/// Builds one block in memory.
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    /// Entries since the last restart point.
    counter: usize,
    interval: usize,
    last_key: Vec<u8>,
    entries: usize,
    finished: bool,
}

impl BlockBuilder {
    /// A builder with a restart point every `interval` keys (0 is taken as 1).
    pub fn new(interval: usize) -> BlockBuilder {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            counter: 0,
            interval: interval.max(1),
            last_key: Vec::new(),
            entries: 0,
            finished: false,
        }
    }

    /// Appends an entry. Keys must come in increasing order (the caller checks); the block
    /// must be smaller than 4 GiB, as restart offsets are 32-bit (the table builder cuts blocks
    /// long before that).
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        debug_assert!(!self.finished);
        let shared = if self.counter < self.interval {
            self.last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
            0
        };
        put_varint32(&mut self.buf, shared as u32);
        put_varint32(&mut self.buf, (key.len() - shared) as u32);
        put_varint32(&mut self.buf, value.len() as u32);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(&key[shared..]);
        self.counter += 1;
        self.entries += 1;
    }

    /// Bytes the block will have once finished.
    pub fn estimated_size(&self) -> usize {
        self.buf.len() + (self.restarts.len() + 1) * U32_LEN
    }

    /// True if no entry was added since the last reset.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The last key added.
    pub fn last_key(&self) -> &[u8] {
        &self.last_key
    }

    /// Appends the restart array and returns the finished block.
    pub fn finish(&mut self) -> &[u8] {
        if !self.finished {
            for &r in &self.restarts {
                put_fixed32(&mut self.buf, r);
            }
            put_fixed32(&mut self.buf, self.restarts.len() as u32);
            self.finished = true;
        }
        &self.buf
    }

    /// Empties the builder for the next block, keeping its allocations.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.counter = 0;
        self.last_key.clear();
        self.entries = 0;
        self.finished = false;
    }
}

/// A block's bytes: its own (read, or decompressed), or a range of a memory-mapped table read in
/// place.
enum BlockBytes {
    Owned(Vec<u8>),
    Mapped(MappedBytes),
}

impl std::ops::Deref for BlockBytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            BlockBytes::Owned(v) => v,
            BlockBytes::Mapped(m) => m,
        }
    }
}

/// A decoded block, ready to be searched. Its restart array was bounds-checked at construction;
/// entries are checked as they are decoded.
pub struct Block {
    data: BlockBytes,
    /// Offset of the restart array = end of the entries.
    restarts: usize,
    num_restarts: usize,
}

/// A block read from a file hands its buffer to the next read of the thread that drops it
/// (`env::block_buffers`): the thread that evicts it from a cache, or the last reader.
impl Drop for Block {
    fn drop(&mut self) {
        if let BlockBytes::Owned(v) = &mut self.data {
            crate::env::block_buffers::give(std::mem::take(v));
        }
    }
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("bytes", &self.data.len())
            .field("num_restarts", &self.num_restarts)
            .finish()
    }
}

/// Header of one entry: (shared, non_shared, value_len, header bytes).
#[inline]
fn decode_header(entries: &[u8], off: usize) -> Option<(usize, usize, usize, usize)> {
    let p = entries.get(off..)?;
    let (shared, non_shared, vlen, hdr) = if p.len() >= 3 && (p[0] | p[1] | p[2]) < 0x80 {
        // Fast path: the three lengths are below 128 and take one byte each.
        (p[0] as usize, p[1] as usize, p[2] as usize, 3)
    } else {
        let (a, n1) = get_varint32(p)?;
        let (b, n2) = get_varint32(p.get(n1..)?)?;
        let (c, n3) = get_varint32(p.get(n1 + n2..)?)?;
        (a as usize, b as usize, c as usize, n1 + n2 + n3)
    };
    let end = off
        .checked_add(hdr)?
        .checked_add(non_shared)?
        .checked_add(vlen)?;
    if end > entries.len() {
        return None;
    }
    Some((shared, non_shared, vlen, hdr))
}

impl Block {
    /// Checks the restart array of `data` and wraps it.
    pub fn new(data: Vec<u8>) -> Result<Block, &'static str> {
        Block::wrap(BlockBytes::Owned(data))
    }

    /// As [`Block::new`], for the bytes of an uncompressed block in a mapped table: searched
    /// in place, never copied.
    pub fn mapped(data: MappedBytes) -> Result<Block, &'static str> {
        Block::wrap(BlockBytes::Mapped(data))
    }

    fn wrap(data: BlockBytes) -> Result<Block, &'static str> {
        let len = data.len();
        if len < U32_LEN {
            return Err("block shorter than its restart count");
        }
        let n =
            get_fixed32(&data[len - U32_LEN..]).ok_or("block restart count unreadable")? as usize;
        if n == 0 {
            return Err("block without restart points");
        }
        if n > (len - U32_LEN) / U32_LEN {
            return Err("block restart count exceeds the block");
        }
        let restarts = len - U32_LEN - n * U32_LEN;
        for i in 0..n {
            let r = get_fixed32(&data[restarts + i * U32_LEN..]).ok_or("restart unreadable")?;
            if r as usize > restarts {
                return Err("block restart point past the entries");
            }
        }
        Ok(Block {
            data,
            restarts,
            num_restarts: n,
        })
    }

    /// The decoded block's bytes (entries, then the restart array).
    pub(crate) fn data(&self) -> &[u8] {
        &self.data
    }

    /// Bytes of the decoded block.
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Bytes of memory the block holds (the block cache's weight): its buffer's capacity,
    /// which is rounded up for reuse (`env::block_buffers`), or its length when mapped.
    pub fn memory(&self) -> usize {
        match &self.data {
            BlockBytes::Owned(v) => v.capacity(),
            BlockBytes::Mapped(m) => m.len(),
        }
    }

    /// Number of restart points.
    pub fn num_restarts(&self) -> usize {
        self.num_restarts
    }

    #[inline]
    fn entries(&self) -> &[u8] {
        &self.data[..self.restarts]
    }

    #[inline]
    fn restart_point(&self, i: usize) -> usize {
        // In range: checked in `new`; a bad `i` reads as the end of the entries (invalid).
        self.data
            .get(self.restarts + i * U32_LEN..)
            .and_then(get_fixed32)
            .map_or(self.restarts, |r| r as usize)
    }

    /// The whole key and the value of the entry at restart point `i`, in place.
    #[inline]
    pub fn entry_at_restart(&self, i: usize) -> Result<(&[u8], &[u8]), &'static str> {
        let off = self.restart_point(i);
        let (shared, non_shared, vlen, hdr) =
            decode_header(self.entries(), off).ok_or("bad entry at restart point")?;
        if shared != 0 {
            return Err("entry at restart point shares a prefix");
        }
        let k = off + hdr;
        let v = k + non_shared;
        Ok((&self.data[k..v], &self.data[v..v + vlen]))
    }

    /// Index of the first restart point whose key is ≥ `target` (`num_restarts` if none).
    /// With restart interval 1 (index blocks) this is the first entry ≥ `target`.
    #[inline]
    pub fn first_restart_at_or_after(&self, target: &[u8]) -> Result<usize, &'static str> {
        let (mut lo, mut hi) = (0, self.num_restarts);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (k, _) = self.entry_at_restart(mid)?;
            if compare_internal(k, target) == Ordering::Less {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Checks that every entry sits on its own restart point (restart interval 1), as index
    /// blocks are written, so that they can be searched in place.
    pub fn check_one_entry_per_restart(&self) -> Result<usize, &'static str> {
        let mut c = Cursor::new(Vec::new());
        c.seek_to_first(self)?;
        let mut n = 0;
        while c.valid(self) {
            if self.restart_point(n) != c.cur {
                return Err("index entry not on a restart point");
            }
            n += 1;
            c.next(self)?;
        }
        if n != self.num_restarts && !(n == 0 && self.num_restarts == 1) {
            return Err("index restart count differs from its entries");
        }
        Ok(n)
    }
}

/// A position in a block, kept apart from the block so that a lookup can borrow the block
/// while an iterator owns it. Every method takes the block it was positioned in.
pub(crate) struct Cursor {
    /// Offset of the current entry; `block.restarts` when not valid.
    cur: usize,
    /// Offset of the entry after the current one.
    next_off: usize,
    /// Restart region of the current entry.
    restart_idx: usize,
    /// The current key, rebuilt from its shared prefix.
    pub(crate) key: Vec<u8>,
    val: (usize, usize),
}

impl Cursor {
    /// An unpositioned cursor using `key_buf` as key buffer.
    pub(crate) fn new(key_buf: Vec<u8>) -> Cursor {
        Cursor {
            cur: usize::MAX,
            next_off: usize::MAX,
            restart_idx: 0,
            key: key_buf,
            val: (0, 0),
        }
    }

    #[inline]
    pub(crate) fn valid(&self, b: &Block) -> bool {
        self.cur < b.restarts
    }

    #[inline]
    pub(crate) fn value<'b>(&self, b: &'b Block) -> &'b [u8] {
        b.data.get(self.val.0..self.val.1).unwrap_or(&[])
    }

    /// Where [`Cursor::value`] lies in the block's bytes.
    pub(crate) fn value_range(&self) -> (usize, usize) {
        self.val
    }

    pub(crate) fn invalidate(&mut self, b: &Block) {
        self.cur = b.restarts;
        self.next_off = b.restarts;
        self.restart_idx = b.num_restarts;
        self.key.clear();
    }

    fn seek_to_restart(&mut self, b: &Block, i: usize) {
        self.key.clear();
        self.restart_idx = i;
        self.next_off = b.restart_point(i);
        self.cur = usize::MAX;
    }

    /// Decodes the entry at `next_off`; `Ok(false)` at the end of the block.
    #[inline]
    fn parse_next(&mut self, b: &Block) -> Result<bool, &'static str> {
        self.cur = self.next_off;
        if self.cur >= b.restarts {
            self.invalidate(b);
            return Ok(false);
        }
        let Some((shared, non_shared, vlen, hdr)) = decode_header(b.entries(), self.cur) else {
            self.invalidate(b);
            return Err("bad block entry");
        };
        if shared > self.key.len() {
            self.invalidate(b);
            return Err("block entry shares more than the previous key");
        }
        let k = self.cur + hdr;
        self.key.truncate(shared);
        self.key.extend_from_slice(&b.data[k..k + non_shared]);
        self.val = (k + non_shared, k + non_shared + vlen);
        self.next_off = self.val.1;
        while self.restart_idx + 1 < b.num_restarts
            && b.restart_point(self.restart_idx + 1) <= self.cur
        {
            self.restart_idx += 1;
        }
        Ok(true)
    }

    pub(crate) fn seek_to_first(&mut self, b: &Block) -> Result<(), &'static str> {
        self.seek_to_restart(b, 0);
        self.parse_next(b).map(|_| ())
    }

    pub(crate) fn seek_to_last(&mut self, b: &Block) -> Result<(), &'static str> {
        self.seek_to_restart(b, b.num_restarts - 1);
        while self.parse_next(b)? && self.next_off < b.restarts {}
        Ok(())
    }

    /// Positions at the first entry whose key is ≥ `target` (invalid if none).
    pub(crate) fn seek(&mut self, b: &Block, target: &[u8]) -> Result<(), &'static str> {
        // Last restart point whose key is < target: the answer lies in its interval or at the
        // next restart point.
        let (mut lo, mut hi) = (0, b.num_restarts - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            let (k, _) = b
                .entry_at_restart(mid)
                .inspect_err(|_| self.invalidate(b))?;
            if compare_internal(k, target) == Ordering::Less {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.seek_to_restart(b, lo);
        while self.parse_next(b)? {
            if compare_internal(&self.key, target) != Ordering::Less {
                break;
            }
        }
        Ok(())
    }

    pub(crate) fn next(&mut self, b: &Block) -> Result<(), &'static str> {
        self.parse_next(b).map(|_| ())
    }

    pub(crate) fn prev(&mut self, b: &Block) -> Result<(), &'static str> {
        let original = self.cur;
        // Back to the restart point before the current entry, then forward to the entry that
        // ends where the current one starts.
        while b.restart_point(self.restart_idx) >= original {
            if self.restart_idx == 0 {
                self.invalidate(b);
                return Ok(());
            }
            self.restart_idx -= 1;
        }
        self.seek_to_restart(b, self.restart_idx);
        loop {
            if !self.parse_next(b)? {
                return Err("block entries do not chain to the previous entry");
            }
            if self.next_off >= original {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{make_internal_key, ValueKind};
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn ik(user: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(user, seq, ValueKind::Value)
    }

    fn build(entries: &[(Vec<u8>, Vec<u8>)], interval: usize) -> Block {
        let mut b = BlockBuilder::new(interval);
        for (k, v) in entries {
            b.add(k, v);
        }
        Block::new(b.finish().to_vec()).unwrap()
    }

    #[test]
    fn empty_block_is_valid_and_has_no_entries() {
        let blk = build(&[], 16);
        let mut c = Cursor::new(Vec::new());
        c.seek_to_first(&blk).unwrap();
        assert!(!c.valid(&blk));
        c.seek_to_last(&blk).unwrap();
        assert!(!c.valid(&blk));
        c.seek(&blk, &ik(b"a", 1)).unwrap();
        assert!(!c.valid(&blk));
    }

    #[test]
    fn prefix_compression_shrinks_shared_prefixes() {
        let entries: Vec<_> = (0..100u32)
            .map(|i| (ik(format!("common-prefix-{i:05}").as_bytes(), 1), vec![]))
            .collect();
        let whole: usize = entries.iter().map(|(k, _)| k.len()).sum();
        let mut b = BlockBuilder::new(16);
        for (k, v) in &entries {
            b.add(k, v);
        }
        // Each key is 27 bytes; all but a few digits and the trailer are shared.
        assert!(b.finish().len() < whole * 2 / 3);
    }

    #[test]
    fn restart_array_past_the_end_is_refused() {
        assert!(Block::new(vec![]).is_err());
        assert!(Block::new(vec![0, 0, 0, 0]).is_err()); // zero restarts
        assert!(Block::new(vec![5, 0, 0, 0]).is_err()); // five restarts in four bytes
                                                        // One restart pointing past the entries.
        assert!(Block::new(vec![9, 9, 9, 0, 0, 0, 1, 0, 0, 0]).is_err());
    }

    /// Every byte string decodes without panicking (errors are fine).
    fn poke(data: Vec<u8>) {
        let Ok(blk) = Block::new(data) else { return };
        let mut c = Cursor::new(Vec::new());
        if c.seek_to_first(&blk).is_ok() {
            let mut n = 0;
            while c.valid(&blk) && n < 10_000 && c.next(&blk).is_ok() {
                n += 1;
            }
        }
        if c.seek_to_last(&blk).is_ok() {
            let mut n = 0;
            while c.valid(&blk) && n < 10_000 && c.prev(&blk).is_ok() {
                n += 1;
            }
        }
        let _ = c.seek(&blk, &ik(b"m", 5));
        let _ = blk.first_restart_at_or_after(&ik(b"m", 5));
        let _ = blk.check_one_entry_per_restart();
    }

    proptest! {
        #[test]
        fn block_matches_sorted_model(
            keys in proptest::collection::btree_map(
                proptest::collection::vec(0u8..4, 0..6), proptest::collection::vec(any::<u8>(), 0..8), 0..200),
            interval in 1usize..20,
            probes in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..6), 0..20),
        ) {
            // User keys from a small alphabet so that prefixes are shared; several versions.
            let mut model = BTreeMap::new();
            for (i, (u, v)) in keys.iter().enumerate() {
                for seq in [9u64, 3] {
                    model.insert(crate::key::InternalKey(ik(u, seq + i as u64)), v.clone());
                }
            }
            let entries: Vec<(Vec<u8>, Vec<u8>)> =
                model.iter().map(|(k, v)| (k.0.clone(), v.clone())).collect();
            let blk = build(&entries, interval);
            let mut c = Cursor::new(Vec::new());
            // Forward.
            c.seek_to_first(&blk).unwrap();
            let mut got = Vec::new();
            while c.valid(&blk) {
                got.push((c.key.clone(), c.value(&blk).to_vec()));
                c.next(&blk).unwrap();
            }
            prop_assert_eq!(&got, &entries);
            // Backward.
            c.seek_to_last(&blk).unwrap();
            let mut back = Vec::new();
            while c.valid(&blk) {
                back.push((c.key.clone(), c.value(&blk).to_vec()));
                c.prev(&blk).unwrap();
            }
            back.reverse();
            prop_assert_eq!(&back, &entries);
            // Seeks, then a step each way.
            for p in &probes {
                let target = crate::key::lookup_key(p, 7);
                let want = entries.iter().position(|(k, _)| compare_internal(k, &target) != Ordering::Less);
                c.seek(&blk, &target).unwrap();
                match want {
                    None => prop_assert!(!c.valid(&blk)),
                    Some(i) => {
                        prop_assert!(c.valid(&blk));
                        prop_assert_eq!(&c.key, &entries[i].0);
                        c.prev(&blk).unwrap();
                        if i == 0 {
                            prop_assert!(!c.valid(&blk));
                        } else {
                            prop_assert_eq!(&c.key, &entries[i - 1].0);
                            c.next(&blk).unwrap();
                            prop_assert_eq!(&c.key, &entries[i].0);
                        }
                    }
                }
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            poke(data);
        }

        #[test]
        fn corrupted_real_block_never_panics(pos in any::<prop::sample::Index>(), bit in 0u8..8, cut in any::<prop::sample::Index>()) {
            let entries: Vec<_> = (0..40u32).map(|i| (ik(format!("key{i:04}").as_bytes(), 1), vec![i as u8; 3])).collect();
            let mut b = BlockBuilder::new(4);
            for (k, v) in &entries { b.add(k, v); }
            let mut data = b.finish().to_vec();
            let i = pos.index(data.len());
            data[i] ^= 1 << bit;
            poke(data.clone());
            data.truncate(cut.index(data.len()));
            poke(data);
        }
    }

    #[test]
    fn index_search_in_place_finds_first_key_at_or_after() {
        let entries: Vec<_> = (0..50u32)
            .map(|i| (ik(format!("k{:03}", i * 2).as_bytes(), 1), vec![i as u8]))
            .collect();
        let blk = build(&entries, 1);
        assert_eq!(blk.check_one_entry_per_restart(), Ok(50));
        let i = blk.first_restart_at_or_after(&ik(b"k007", 1)).unwrap();
        assert_eq!(blk.entry_at_restart(i).unwrap().1, &[4u8][..]);
        assert_eq!(blk.first_restart_at_or_after(&ik(b"z", 1)), Ok(50));
        let blk16 = build(&entries, 16);
        assert!(blk16.check_one_entry_per_restart().is_err());
    }
}
