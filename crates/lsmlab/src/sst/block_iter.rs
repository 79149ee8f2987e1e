//! A bidirectional [`InternalIterator`] over one block.

use super::block::{Block, Cursor};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use std::path::PathBuf;
use std::sync::Arc;

/// Iterates one block it shares (with the block cache, typically). A corrupt entry makes it
/// invalid and its `status()` a `Corruption` naming the file and the block's offset.
pub struct BlockIter {
    block: Arc<Block>,
    cursor: Cursor,
    file: Arc<PathBuf>,
    block_offset: u64,
    err: Option<Error>,
}

impl BlockIter {
    /// An unpositioned iterator over `block`, which sits at `block_offset` in `file`.
    pub fn new(block: Arc<Block>, file: Arc<PathBuf>, block_offset: u64) -> BlockIter {
        let mut cursor = Cursor::new(Vec::new());
        cursor.invalidate(&block);
        BlockIter {
            block,
            cursor,
            file,
            block_offset,
            err: None,
        }
    }

    /// Offset of the block in its file.
    pub fn block_offset(&self) -> u64 {
        self.block_offset
    }

    fn check(&mut self, r: std::result::Result<(), &'static str>) {
        if let Err(msg) = r {
            self.cursor.invalidate(&self.block);
            if self.err.is_none() {
                self.err = Some(Error::corruption(
                    self.file.as_ref().clone(),
                    self.block_offset,
                    msg,
                ));
            }
        }
    }
}

impl InternalIterator for BlockIter {
    fn valid(&self) -> bool {
        self.err.is_none() && self.cursor.valid(&self.block)
    }
    fn seek_to_first(&mut self) {
        let r = self.cursor.seek_to_first(&self.block);
        self.check(r);
    }
    fn seek_to_last(&mut self) {
        let r = self.cursor.seek_to_last(&self.block);
        self.check(r);
    }
    fn seek(&mut self, target: &[u8]) {
        let r = self.cursor.seek(&self.block, target);
        self.check(r);
    }
    fn next(&mut self) {
        if self.valid() {
            let r = self.cursor.next(&self.block);
            self.check(r);
        }
    }
    fn prev(&mut self) {
        if self.valid() {
            let r = self.cursor.prev(&self.block);
            self.check(r);
        }
    }
    fn key(&self) -> &[u8] {
        &self.cursor.key
    }
    fn value(&self) -> &[u8] {
        self.cursor.value(&self.block)
    }
    fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{make_internal_key, ValueKind};
    use crate::sst::block::BlockBuilder;

    #[test]
    fn corrupt_entry_surfaces_as_corruption_with_block_offset() {
        let mut b = BlockBuilder::new(16);
        for i in 0..10u32 {
            b.add(
                &make_internal_key(format!("k{i}").as_bytes(), 1, ValueKind::Value),
                b"v",
            );
        }
        let mut data = b.finish().to_vec();
        // Entry 1 claims to share 200 bytes with entry 0.
        let second = 3 + 10 + 1;
        data[second] = 100;
        let blk = Arc::new(Block::new(data).unwrap());
        let mut it = BlockIter::new(blk, Arc::new(PathBuf::from("t.sst")), 4242);
        it.seek_to_first();
        assert!(it.valid());
        it.next();
        assert!(!it.valid());
        match it.status() {
            Err(Error::Corruption { offset, .. }) => assert_eq!(offset, 4242),
            other => panic!("{other:?}"),
        }
    }
}
