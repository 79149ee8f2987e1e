//! The block cache: decoded data blocks shared between readers, bounded by bytes.
//!
//! Built on `quick_cache` (S3-FIFO eviction, sharded locks). Entries are keyed by
//! (table file number, block offset) — both stable for the life of a table, since tables are
//! immutable and file numbers are never reused — and weigh the memory of the decoded block.

use crate::sst::block::Block;
use quick_cache::sync::Cache;
use quick_cache::Weighter;
use std::sync::Arc;

/// A typical data block, 4 KiB: sizes the cache's item table from its byte capacity.
const TYPICAL_BLOCK_BYTES: usize = 4096;

#[derive(Clone)]
struct BlockWeighter;

impl Weighter<(u64, u64), Arc<Block>> for BlockWeighter {
    fn weight(&self, _key: &(u64, u64), block: &Arc<Block>) -> u64 {
        // Never 0: quick_cache never evicts zero-weight items.
        block.memory().max(1) as u64
    }
}

/// A cache of data blocks keyed by (file number, block offset).
pub struct BlockCache {
    inner: Cache<(u64, u64), Arc<Block>, BlockWeighter>,
    capacity: usize,
}

impl BlockCache {
    /// A cache holding at most `capacity` bytes of blocks.
    pub fn new(capacity: usize) -> BlockCache {
        let items = (capacity / TYPICAL_BLOCK_BYTES).max(1);
        BlockCache {
            inner: Cache::with_weighter(items, capacity as u64, BlockWeighter),
            capacity,
        }
    }
    /// Bytes of blocks held now.
    pub fn usage(&self) -> usize {
        self.inner.weight() as usize
    }
    /// Capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// The block at `offset` of table `file_number`, if cached.
    #[inline]
    pub fn get(&self, file_number: u64, offset: u64) -> Option<Arc<Block>> {
        self.inner.get(&(file_number, offset))
    }
    /// Caches a block (a block larger than a cache shard is not kept).
    pub fn insert(&self, file_number: u64, offset: u64, block: Arc<Block>) {
        self.inner.insert((file_number, offset), block);
    }
    /// Blocks held now.
    pub fn len(&self) -> usize {
        self.inner.len()
    }
    /// True if no block is held.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sst::block::BlockBuilder;

    fn block(bytes: usize) -> Arc<Block> {
        let mut b = BlockBuilder::new(16);
        b.add(b"key-----", &vec![7u8; bytes]);
        Arc::new(Block::new(b.finish().to_vec()).unwrap())
    }

    #[test]
    fn cache_returns_what_was_inserted_under_its_key() {
        let c = BlockCache::new(1 << 20);
        let b = block(100);
        c.insert(3, 4096, b.clone());
        assert!(Arc::ptr_eq(&c.get(3, 4096).unwrap(), &b));
        assert!(c.get(3, 0).is_none());
        assert!(c.get(4, 4096).is_none());
        assert_eq!(c.usage(), b.memory());
    }

    #[test]
    fn zero_capacity_cache_keeps_nothing() {
        let c = BlockCache::new(0);
        c.insert(1, 0, block(10));
        assert!(c.get(1, 0).is_none());
        assert_eq!(c.usage(), 0);
    }

    #[test]
    fn cache_usage_stays_within_capacity() {
        let cap = 64 * 1024;
        let c = BlockCache::new(cap);
        for i in 0..1000u64 {
            c.insert(1, i * 4096, block(1000));
            assert!(c.usage() <= cap, "usage {} > {cap}", c.usage());
        }
        assert!(c.usage() > cap / 2, "cache kept only {} bytes", c.usage());
        assert_eq!(c.capacity(), cap);
    }
}
