//! The block cache: decoded data blocks shared between readers, bounded by bytes.

/// A cache of data blocks keyed by (file number, block offset).
pub struct BlockCache {}

impl BlockCache {
    /// A cache holding at most `capacity` bytes of blocks.
    pub fn new(_capacity: usize) -> BlockCache {
        todo!()
    }
    /// Bytes of blocks held now.
    pub fn usage(&self) -> usize {
        todo!()
    }
    /// Capacity in bytes.
    pub fn capacity(&self) -> usize {
        todo!()
    }
}
