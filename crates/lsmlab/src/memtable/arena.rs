//! The memtable's arena: entries are bump-allocated in blocks that live as long as the
//! memtable, so a skiplist node is one allocation-free write and readers can hold plain pointers.

use std::mem::MaybeUninit;

/// The first block; blocks double up to [`MAX_BLOCK`], so a memtable of a few entries (tests,
/// tiny write buffers) does not hold a megabyte.
const FIRST_BLOCK: usize = 4 << 10;
/// Largest regular block: 1 MiB bounds the tail a full memtable wastes to under 2 % of a 64 MiB
/// write buffer.
const MAX_BLOCK: usize = 1 << 20;

/// Bump allocator of 8-byte-aligned memory, not initialised (the skiplist writes every byte
/// of a node that it reads): never moved and never freed before the arena is dropped.
pub(super) struct Arena {
    blocks: Vec<Box<[MaybeUninit<u64>]>>,
    /// Next free word in the last regular block and the words left in it.
    next: *mut u64,
    left: usize,
    next_block: usize,
    used: usize,
}

// SAFETY: the raw pointer points into `blocks`, which the arena owns; moving the arena to
// another thread moves the ownership of that memory with it.
unsafe impl Send for Arena {}

impl Arena {
    /// An empty arena.
    pub(super) fn new() -> Arena {
        Arena {
            blocks: Vec::new(),
            next: std::ptr::null_mut(),
            left: 0,
            next_block: FIRST_BLOCK,
            used: 0,
        }
    }

    /// `bytes` of uninitialised memory aligned to 8, valid until the arena is dropped.
    pub(super) fn allocate(&mut self, bytes: usize) -> *mut u8 {
        let words = bytes.div_ceil(8).max(1);
        self.used += words * 8;
        if words > self.left {
            if words * 8 > MAX_BLOCK / 4 {
                // A large entry gets a block of its own, so the current block's tail stays
                // usable for the small entries that follow.
                return self.new_block(words);
            }
            // Blocks double from FIRST_BLOCK; an entry larger than the next one (but not large
            // enough for a block of its own) skips ahead to a size that holds it.
            let mut size = self.next_block;
            while size < words * 8 {
                size *= 2;
            }
            self.next_block = (size * 2).min(MAX_BLOCK);
            let start = self.new_block(size / 8) as *mut u64;
            // SAFETY: the block has size/8 ≥ words words.
            self.next = unsafe { start.add(words) };
            self.left = size / 8 - words;
            return start as *mut u8;
        }
        let p = self.next;
        // SAFETY: `left` ≥ `words` words remain after `next` in the current block.
        self.next = unsafe { self.next.add(words) };
        self.left -= words;
        p as *mut u8
    }

    fn new_block(&mut self, words: usize) -> *mut u8 {
        // Uninitialised: zeroing a megabyte per block was 4 % of a small-value fill.
        let mut block = Box::<[u64]>::new_uninit_slice(words);
        let p = block.as_mut_ptr() as *mut u8;
        self.blocks.push(block);
        p
    }

    /// Bytes handed out, rounded to words.
    pub(super) fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_disjoint() {
        let mut a = Arena::new();
        let mut seen: Vec<(usize, usize)> = Vec::new();
        // 100 KB first: larger than the first block, smaller than a block of its own.
        let sizes = [
            100_000usize,
            1,
            7,
            8,
            9,
            4000,
            70_000,
            300_000,
            5,
            1 << 20,
            33,
            200_000,
        ];
        for (i, n) in sizes.iter().enumerate() {
            let p = a.allocate(*n);
            assert_eq!(p as usize % 8, 0, "allocation {i}");
            // SAFETY: the arena handed out `n` bytes at `p`; they are written before any read.
            unsafe { std::ptr::write_bytes(p, 0xAB, *n) };
            let r = (p as usize, p as usize + n);
            assert!(
                seen.iter().all(|&(lo, hi)| r.1 <= lo || r.0 >= hi),
                "overlap at {i}"
            );
            seen.push(r);
        }
        assert!(a.used() >= seen.iter().map(|(lo, hi)| hi - lo).sum::<usize>());
    }
}
