//! How a table iterator fetches data blocks, and the readahead window of the sequential ones.

/// Largest window a sequential reader reads at once (2 MiB, RocksDB's
/// `compaction_readahead_size`): one system call per 2 MiB instead of one per data block.
const MAX_WINDOW: u64 = 2 << 20;

/// Smallest window (256 KiB): 64 blocks of 4 KiB per system call, so the call costs well under
/// 1 % of copying what it reads.
const MIN_WINDOW: u64 = 256 << 10;

/// Bytes the windows of one merge (a compaction, a bulk scan) hold together (8 MiB): a budget
/// per merge, so concurrent compactions and scans each hold their own. Unlike
/// RocksDB, which asks the kernel to read ahead (`readahead(2)`) and keeps no buffer, each
/// window is memory of ours; under write pressure a level-0 compaction merges up to 36 tables
/// (the stop trigger), and 2 MiB windows for the ~17 it merged in seed 000's 16 KB cell were 36
/// of the process's 74 MiB heap peak. Five inputs (a level-0 compaction at the default trigger
/// of 4, plus level 1) still get 1.6 MiB each.
const MERGE_BUDGET: u64 = 8 << 20;

/// How a table iterator fetches the data blocks that are not in the block cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFetch {
    /// One read per block, and the block enters the block cache: readers that jump around
    /// (gets, user iterators).
    Cached,
    /// `window` bytes at once into a buffer of the iterator's own, leaving the cache alone:
    /// readers that go through each table once, from start to end (compactions, float-ups,
    /// scans with `no_fill_cache`, checks). A step back over a block boundary reads a window
    /// forward from the earlier block: backward scans gain nothing from it.
    ReadAhead {
        /// Bytes per read; a larger block is read whole.
        window: u64,
    },
}

impl BlockFetch {
    /// Read-ahead for one reader alone: the largest window.
    pub const SEQUENTIAL: BlockFetch = BlockFetch::ReadAhead { window: MAX_WINDOW };

    /// Read-ahead for each of `readers` tables a merge reads at the same time (its level-0
    /// tables, plus one per deeper level): they share [`MERGE_BUDGET`], each window between
    /// [`MIN_WINDOW`] and [`MAX_WINDOW`].
    pub fn merged(readers: usize) -> BlockFetch {
        let share = MERGE_BUDGET / readers.max(1) as u64;
        BlockFetch::ReadAhead {
            window: share.clamp(MIN_WINDOW, MAX_WINDOW),
        }
    }
}

/// The part of a table a sequential reader has read ahead.
pub(super) struct Readahead {
    /// Bytes per read.
    pub(super) window: u64,
    /// File offset of `buf[0]`.
    pub(super) start: u64,
    pub(super) buf: Vec<u8>,
}

impl Readahead {
    /// An empty window of `window` bytes per read.
    pub(super) fn new(window: u64) -> Readahead {
        Readahead {
            window,
            start: 0,
            buf: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(f: BlockFetch) -> u64 {
        match f {
            BlockFetch::ReadAhead { window } => window,
            BlockFetch::Cached => panic!("not a sequential fetch"),
        }
    }

    #[test]
    fn merged_readers_share_the_budget_within_the_bounds() {
        assert_eq!(window(BlockFetch::merged(0)), MAX_WINDOW);
        assert_eq!(window(BlockFetch::merged(1)), MAX_WINDOW);
        assert_eq!(window(BlockFetch::merged(4)), MAX_WINDOW);
        assert_eq!(window(BlockFetch::merged(5)), MERGE_BUDGET / 5);
        assert_eq!(window(BlockFetch::merged(16)), 512 << 10);
        assert_eq!(window(BlockFetch::merged(36)), MIN_WINDOW);
        for n in 1..100 {
            let w = window(BlockFetch::merged(n));
            assert!((MIN_WINDOW..=MAX_WINDOW).contains(&w));
            assert!(w * n as u64 <= MERGE_BUDGET.max(MIN_WINDOW * n as u64));
        }
    }
}
