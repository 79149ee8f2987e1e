//! The memtable's arena: entries are bump-allocated in blocks that live as long as the
//! memtable, so a skiplist node is one allocation-free write and readers can hold plain pointers.

use super::block_pool::{Block, BlockPool, MAX_BLOCK};
use std::sync::Arc;

/// The first block; blocks double up to [`MAX_BLOCK`], so a memtable of a few entries (tests,
/// tiny write buffers) does not hold a megabyte.
const FIRST_BLOCK: usize = 4 << 10;

/// Bump allocator of 8-byte-aligned memory, not initialised (the skiplist writes every byte
/// of a node that it reads): never moved and never freed before the arena is dropped.
pub(super) struct Arena {
    blocks: Vec<Block>,
    /// Next free word in the last regular block and the words left in it.
    next: *mut u64,
    left: usize,
    next_block: usize,
    used: usize,
    /// Where full-size blocks come from first and go back to on drop.
    pool: Option<Arc<BlockPool>>,
}

// SAFETY: the raw pointer points into `blocks`, which the arena owns; moving the arena to
// another thread moves the ownership of that memory with it.
unsafe impl Send for Arena {}

impl Arena {
    /// An empty arena, taking full-size blocks from `pool` when it has some.
    pub(super) fn new(pool: Option<Arc<BlockPool>>) -> Arena {
        Arena {
            blocks: Vec::new(),
            next: std::ptr::null_mut(),
            left: 0,
            next_block: FIRST_BLOCK,
            used: 0,
            pool,
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
        let reused = match &self.pool {
            Some(pool) if words * 8 == MAX_BLOCK => pool.take(),
            _ => None,
        };
        let block = reused.unwrap_or_else(|| Block::new(words * 8));
        let p = block.ptr.as_ptr();
        self.blocks.push(block);
        p
    }

    /// Bytes handed out, rounded to words.
    pub(super) fn used(&self) -> usize {
        self.used
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            pool.give_back(&mut self.blocks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_disjoint() {
        let mut a = Arena::new(None);
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

    /// Fills an arena until it holds `full` full-size blocks.
    fn fill(a: &mut Arena, full: usize) -> Vec<usize> {
        let mut starts = Vec::new();
        while a
            .blocks
            .iter()
            .filter(|b| b.layout.size() == MAX_BLOCK)
            .count()
            < full
        {
            let p = a.allocate(100_000);
            // SAFETY: the arena handed out 100,000 bytes at `p`.
            unsafe { std::ptr::write_bytes(p, 0xCD, 100_000) };
            starts.push(p as usize);
        }
        starts
    }

    #[test]
    fn full_blocks_are_aligned_and_reused_through_the_pool_up_to_its_capacity() {
        let pool = BlockPool::new(2 * MAX_BLOCK);
        let mut first = Arena::new(Some(pool.clone()));
        fill(&mut first, 3);
        let full: Vec<usize> = first
            .blocks
            .iter()
            .filter(|b| b.layout.size() == MAX_BLOCK)
            .map(|b| b.ptr.as_ptr() as usize)
            .collect();
        assert!(full.iter().all(|p| p % MAX_BLOCK == 0), "huge-page aligned");
        drop(first);
        // Three full blocks returned, two kept; the smaller blocks are freed.
        assert_eq!(pool.len(), 2);
        let mut second = Arena::new(Some(pool.clone()));
        fill(&mut second, 2);
        assert_eq!(pool.len(), 0, "the second arena took both");
        let reused = second
            .blocks
            .iter()
            .filter(|b| full.contains(&(b.ptr.as_ptr() as usize)))
            .count();
        assert_eq!(reused, 2);
        drop(second);
        assert_eq!(pool.len(), 2, "the second arena's full blocks came back");
    }
}
