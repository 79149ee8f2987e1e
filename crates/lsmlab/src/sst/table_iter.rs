//! The cursor over one table: an index cursor choosing data blocks, a block cursor within one,
//! and the positions a format-2 table's index gives without reading a block.

use super::block_iter::BlockIter;
use super::readahead::{BlockFetch, Readahead};
use super::reader::TableReader;
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::key::compare_internal;
use std::sync::Arc;

/// What [`TableIter::defer_at_index`] found at the index cursor.
enum AtIndex {
    /// Positioned, deferred, at the block's first entry; or failed on an unreadable entry.
    Settled,
    /// The block's first entry is below the seek target; `sole_entry`: it is the only one.
    Below { sole_entry: bool },
    /// Not deferred (format 1, a sequential reader, or no index entry): read the block.
    Read,
}

/// The two-level iterator: an index cursor choosing data blocks, a block cursor within one.
///
/// In a table of format 2 a user iterator (`BlockFetch::Cached`) may stand at a block's first
/// entry knowing only its key, from the index ("deferred"): a seek whose target lies at or
/// before a block's first key, a step into the next block, or a step past a one-entry block
/// then reads no data block. The block is read when the entry's value is asked for
/// ([`InternalIterator::prepare_value`]), or when the cursor moves within it.
pub(super) struct TableIter {
    table: Arc<TableReader>,
    index: BlockIter,
    data: Option<BlockIter>,
    cat: IoCategory,
    /// Set for sequential readers ([`BlockFetch::ReadAhead`]); the others read each block
    /// through the block cache.
    readahead: Option<Readahead>,
    /// Positions may be deferred (format 2, a user iterator).
    defer: bool,
    /// Positioned, deferred, at the first entry of the block the index cursor points at:
    /// `deferred_key` is its key, `deferred_entries` the block's entry count; `data` is stale.
    deferred: bool,
    deferred_key: Vec<u8>,
    deferred_entries: u32,
    /// The first error; it makes the iterator invalid for good.
    err: Option<Error>,
}

impl TableReader {
    /// A cursor over every entry.
    pub fn iter(self: &Arc<Self>, cat: IoCategory, fetch: BlockFetch) -> Box<dyn InternalIterator> {
        let index = self.index_cursor();
        Box::new(TableIter::new(self.clone(), index, cat, fetch))
    }
}

impl TableIter {
    /// A cursor over `table`, whose index block `index` walks.
    pub(super) fn new(
        table: Arc<TableReader>,
        index: BlockIter,
        cat: IoCategory,
        fetch: BlockFetch,
    ) -> TableIter {
        TableIter {
            // Sequential readers use every value they pass: deferring the read gains them
            // nothing, and they do not call `prepare_value`.
            defer: table.first_keys && fetch == BlockFetch::Cached,
            table,
            index,
            data: None,
            cat,
            readahead: match fetch {
                BlockFetch::Cached => None,
                BlockFetch::ReadAhead { window } => Some(Readahead::new(window)),
            },
            deferred: false,
            deferred_key: Vec::new(),
            deferred_entries: 0,
            err: None,
        }
    }

    /// Loads the data block the index cursor points at (keeps it if already loaded).
    fn init_data(&mut self) {
        if !self.index.valid() {
            self.data = None;
            return;
        }
        let h = match self.table.decode_index_value(self.index.value()) {
            Ok((h, _)) => h,
            Err(e) => {
                self.err = Some(e);
                self.data = None;
                return;
            }
        };
        if self
            .data
            .as_ref()
            .is_some_and(|d| d.block_offset() == h.offset)
        {
            return;
        }
        let block = match self.readahead.as_mut() {
            Some(ra) => self.table.data_block_readahead(h, self.cat, ra),
            None => self.table.data_block(h, self.cat),
        };
        match block {
            Ok(b) => self.data = Some(BlockIter::new(b, self.table.path.clone(), h.offset)),
            Err(e) => {
                self.err = Some(e);
                self.data = None;
            }
        }
    }

    /// Stands, deferred, at the first entry of the block the index cursor points at, if this
    /// iterator defers and that entry is at or after `target` (when given); one decoding of
    /// the index entry tells the caller what else it needs (see [`AtIndex`]).
    fn defer_at_index(&mut self, target: Option<&[u8]>) -> AtIndex {
        if !self.defer || !self.index.valid() {
            return AtIndex::Read;
        }
        match self.table.decode_index_value(self.index.value()) {
            Ok((_, Some((entries, first)))) => {
                if target.is_some_and(|t| compare_internal(first, t) == std::cmp::Ordering::Less) {
                    return AtIndex::Below {
                        sole_entry: entries == 1,
                    };
                }
                self.deferred_key.clear();
                self.deferred_key.extend_from_slice(first);
                self.deferred_entries = entries;
                self.deferred = true;
                AtIndex::Settled
            }
            Ok((_, None)) => AtIndex::Read,
            Err(e) => {
                self.err = Some(e);
                self.data = None;
                AtIndex::Settled
            }
        }
    }

    /// Reads the block of a deferred position and stands at its first entry, which must be
    /// the key the index gave.
    fn undefer(&mut self) {
        if !self.deferred {
            return;
        }
        self.deferred = false;
        self.init_data();
        let Some(d) = &mut self.data else { return };
        d.seek_to_first();
        if d.valid() && d.key() != self.deferred_key.as_slice() {
            let offset = d.block_offset();
            self.err = Some(Error::corruption(
                self.table.path.as_ref().clone(),
                offset,
                "the block's first key is not the one its index entry names",
            ));
        } else if !d.valid() {
            self.err = Some(d.status().err().unwrap_or_else(|| {
                Error::corruption(
                    self.table.path.as_ref().clone(),
                    d.block_offset(),
                    "empty data block",
                )
            }));
        }
    }

    /// True when done skipping: positioned, failed, or out of index entries.
    fn settled(&mut self) -> bool {
        if self.err.is_some() || self.deferred {
            return true;
        }
        if let Some(d) = &self.data {
            if d.valid() {
                return true;
            }
            if let Err(e) = d.status() {
                self.err = Some(e);
                return true;
            }
        }
        if !self.index.valid() {
            if let Err(e) = self.index.status() {
                self.err = Some(e);
            }
            self.data = None;
            return true;
        }
        false
    }

    fn skip_forward(&mut self) {
        while !self.settled() {
            self.index.next();
            self.enter_block();
        }
    }

    /// Stands at the first entry of the block the index cursor points at: deferred if this
    /// iterator defers, else read.
    fn enter_block(&mut self) {
        if let AtIndex::Read = self.defer_at_index(None) {
            self.init_data();
            if let Some(d) = &mut self.data {
                d.seek_to_first();
            }
        }
    }

    /// Leaves the block the index cursor points at, unread, for the next one's first entry.
    fn skip_block(&mut self) {
        self.deferred = false;
        self.data = None;
        self.index.next();
        self.enter_block();
        self.skip_forward();
    }

    fn skip_backward(&mut self) {
        while !self.settled() {
            self.index.prev();
            self.init_data();
            if let Some(d) = &mut self.data {
                d.seek_to_last();
            }
        }
    }
}

impl InternalIterator for TableIter {
    fn valid(&self) -> bool {
        self.err.is_none() && (self.deferred || self.data.as_ref().is_some_and(|d| d.valid()))
    }
    fn seek_to_first(&mut self) {
        self.deferred = false;
        self.index.seek_to_first();
        self.enter_block();
        self.skip_forward();
    }
    fn seek_to_last(&mut self) {
        self.deferred = false;
        self.index.seek_to_last();
        self.init_data();
        if let Some(d) = &mut self.data {
            d.seek_to_last();
        }
        self.skip_backward();
    }
    fn seek(&mut self, target: &[u8]) {
        self.deferred = false;
        self.index.seek(target);
        match self.defer_at_index(Some(target)) {
            AtIndex::Settled => return,
            // The block's one entry is below the target (which lies between it and the index
            // separator, or past the table's last key): the answer is the next block's first
            // entry, and this block need not be read.
            AtIndex::Below { sole_entry: true } => return self.skip_block(),
            AtIndex::Below { sole_entry: false } | AtIndex::Read => {}
        }
        self.init_data();
        if let Some(d) = &mut self.data {
            d.seek(target);
        }
        self.skip_forward();
    }
    fn next(&mut self) {
        if self.deferred {
            if self.deferred_entries == 1 {
                // The block holds only the entry passed: on to the next block, unread.
                return self.skip_block();
            }
            self.undefer();
        }
        if let Some(d) = &mut self.data {
            d.next();
        }
        self.skip_forward();
    }
    fn prev(&mut self) {
        self.undefer();
        if let Some(d) = &mut self.data {
            d.prev();
        }
        self.skip_backward();
    }
    fn key(&self) -> &[u8] {
        if self.deferred {
            return &self.deferred_key;
        }
        self.data.as_ref().map_or(&[], |d| d.key())
    }
    fn value(&self) -> &[u8] {
        if self.deferred {
            // The data held is another block's: nothing rather than a wrong value.
            debug_assert!(false, "value() of a deferred entry: prepare_value() first");
            return &[];
        }
        self.data.as_ref().map_or(&[], |d| d.value())
    }
    fn prepare_value(&mut self) -> bool {
        self.undefer();
        self.valid()
    }
    fn status(&self) -> Result<()> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        self.index.status()?;
        match &self.data {
            Some(d) if !self.deferred => d.status(),
            _ => Ok(()),
        }
    }
}
