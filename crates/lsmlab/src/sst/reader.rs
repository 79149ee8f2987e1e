//! [`TableReader`]: opens a table, answers point lookups, and iterates it.

use super::block::{Block, Cursor};
use super::block_iter::BlockIter;
use super::codec::{self, NO_COMPRESSION};
use super::footer::{
    block_crc, BlockHandle, Footer, IndexValue, BLOCK_TRAILER_LEN, FOOTER_LEN,
    FORMAT_FIRST_KEY_INDEX,
};
use super::readahead::Readahead;
use super::{properties, TableGet, TableProperties};
use crate::cache::BlockCache;
use crate::coding::get_fixed32;
use crate::env::{CountedRandom, IoCategory};
use crate::error::{Error, Result};
use crate::filter::{key_hash, FilterReader};
use crate::iter::InternalIterator;
use crate::key::{compare_internal, user_key};
use crate::pinned::PinnedValue;
use crate::stats::{HistogramKind, Statistics, Ticker};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs `read`, a read of `len` bytes of a table file: timed under `rocksdb.sst.read.micros`
/// when `stats` times, and counted under `lsmlab.user.read.bytes` when it serves a user read.
fn timed_read<T>(
    stats: &Statistics,
    len: usize,
    cat: IoCategory,
    read: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let t = stats.start_timer();
    let out = read()?;
    stats.record_elapsed(HistogramKind::SstRead, t);
    count_user_read(stats, len, cat);
    Ok(out)
}

/// Counts `len` bytes of a table under `lsmlab.user.read.bytes` when they serve a user read.
fn count_user_read(stats: &Statistics, len: usize, cat: IoCategory) {
    if cat == IoCategory::UserRead {
        stats.add(Ticker::GetReadBytes, len as u64);
    }
}

/// Fills `buf` from `offset` of a table file, counted under `cat` (see [`timed_read`]).
fn read_table(
    file: &CountedRandom,
    stats: &Statistics,
    offset: u64,
    buf: &mut [u8],
    cat: IoCategory,
) -> Result<()> {
    let len = buf.len();
    timed_read(stats, len, cat, || file.read_at(offset, buf, cat))
}

/// Reads the block at `h`, checks its CRC and decompresses it. `limit` is the offset the block
/// and its trailer must end by.
fn read_block_contents(
    file: &CountedRandom,
    stats: &Statistics,
    path: &Path,
    h: BlockHandle,
    limit: u64,
    cat: IoCategory,
) -> Result<Vec<u8>> {
    let len = block_len_within(path, h, limit)?;
    let buf = timed_read(stats, len, cat, || file.read_vec_at(h.offset, len, cat))?;
    decode_block_contents(path, h, buf)
}

/// Bytes of the block at `h` with its trailer, checked to end by `limit`.
fn block_len_within(path: &Path, h: BlockHandle, limit: u64) -> Result<usize> {
    match h.end_with_trailer() {
        Some(end) if end <= limit => Ok(h.size as usize + BLOCK_TRAILER_LEN),
        _ => Err(Error::corruption(
            path,
            h.offset,
            "block handle points past the end of the table",
        )),
    }
}

/// Checks the trailer and CRC of the block at `h` read with its trailer (`buf` = block +
/// trailer); its compression kind.
fn check_block(path: &Path, h: BlockHandle, buf: &[u8]) -> Result<u8> {
    let bad = |m: &str| Error::corruption(path, h.offset, m);
    let size = h.size as usize;
    if buf.len() != size + BLOCK_TRAILER_LEN {
        return Err(bad("block shorter than its handle says"));
    }
    let kind = buf[size];
    let stored = get_fixed32(&buf[size + 1..]).ok_or_else(|| bad("block trailer unreadable"))?;
    if block_crc(&buf[..size], kind) != stored {
        return Err(bad("block checksum mismatch"));
    }
    Ok(kind)
}

/// Checks the CRC of a block read with its trailer (`buf` = block + trailer) and decompresses it.
fn decode_block_contents(path: &Path, h: BlockHandle, mut buf: Vec<u8>) -> Result<Vec<u8>> {
    let bad = |m: &str| Error::corruption(path, h.offset, m);
    let size = h.size as usize;
    let kind = check_block(path, h, &buf)?;
    if kind == NO_COMPRESSION {
        buf.truncate(size);
        return Ok(buf);
    }
    let out = codec::decompress(kind, &buf[..size]).map_err(|m| bad(&m));
    // The compressed bytes are done with: the next read of this thread reuses their buffer.
    crate::env::block_buffers::give(buf);
    out
}

/// What a format-2 index entry says of its block besides where it is: the entry count and the
/// first internal key.
type BlockStart<'a> = (u32, &'a [u8]);

/// One entry of a table's index ([`TableReader::index_entries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// An internal key at or after the block's last key and before the next block's first.
    pub separator: Vec<u8>,
    /// Where the block is.
    pub handle: BlockHandle,
    /// Format 2: the block's entry count and first internal key.
    pub first: Option<(u32, Vec<u8>)>,
}

/// An open table: index and filter held in memory, data blocks read on demand.
pub struct TableReader {
    file: CountedRandom,
    pub(super) path: Arc<PathBuf>,
    file_number: u64,
    cache: Option<Arc<BlockCache>>,
    stats: Arc<Statistics>,
    index: Arc<Block>,
    index_offset: u64,
    /// Entries of the index block = data blocks.
    index_entries: usize,
    /// Format 2: index values carry each block's entry count and first key ([`IndexValue`]).
    pub(super) first_keys: bool,
    filter: Option<FilterReader>,
    props: TableProperties,
    /// Offset of the footer: every block ends before it.
    footer_offset: u64,
    /// End of the data blocks (start of the first meta block): readahead stops here.
    data_end: u64,
    /// The file is memory-mapped: uncompressed data blocks are read in place
    /// ([`TableReader::mapped_block`]).
    mapped: bool,
}

impl TableReader {
    /// Opens a table and reads its footer, index, filter and properties.
    pub fn open(
        file: CountedRandom,
        path: PathBuf,
        file_number: u64,
        cache: Option<Arc<BlockCache>>,
        stats: Arc<Statistics>,
    ) -> Result<TableReader> {
        let cat = IoCategory::Other;
        let len = file.len();
        if len < FOOTER_LEN as u64 {
            return Err(Error::corruption(
                path,
                0,
                format!("{len} bytes is too short for a table ({FOOTER_LEN}-byte footer)"),
            ));
        }
        let footer_offset = len - FOOTER_LEN as u64;
        let mut fbuf = [0u8; FOOTER_LEN];
        read_table(&file, &stats, footer_offset, &mut fbuf, cat)?;
        let footer =
            Footer::decode(&fbuf).map_err(|m| Error::corruption(path.clone(), footer_offset, m))?;

        let p = &path;
        let at = |off: u64| move |m: &str| Error::corruption(p.clone(), off, m);
        let index_offset = footer.index.offset;
        let index = read_block_contents(&file, &stats, &path, footer.index, footer_offset, cat)?;
        let index = Block::new(index).map_err(at(index_offset))?;
        let index_entries = index
            .check_one_entry_per_restart()
            .map_err(at(index_offset))?;

        let pb = read_block_contents(&file, &stats, &path, footer.properties, footer_offset, cat)?;
        let pb = Block::new(pb).map_err(at(footer.properties.offset))?;
        let props = properties::decode(&pb).map_err(at(footer.properties.offset))?;

        let filter = if props.filter_policy.is_empty() {
            None
        } else {
            let fb = read_block_contents(&file, &stats, &path, footer.filter, footer_offset, cat)?;
            Some(FilterReader::open(fb).map_err(|m| at(footer.filter.offset)(&m))?)
        };
        Ok(TableReader {
            mapped: file.is_mapped(),
            file,
            path: Arc::new(path),
            file_number,
            cache,
            stats,
            index: Arc::new(index),
            index_offset,
            index_entries,
            first_keys: footer.version >= FORMAT_FIRST_KEY_INDEX,
            filter,
            props,
            footer_offset,
            data_end: [footer.filter, footer.properties, footer.index]
                .iter()
                .filter(|h| h.size > 0)
                .map(|h| h.offset)
                .min()
                .unwrap_or(footer_offset)
                .min(footer_offset),
        })
    }

    /// Looks up `lookup`, an internal key `(user_key, seq, SEEK_KIND)`.
    pub fn get(&self, lookup: &[u8], cat: IoCategory) -> Result<TableGet> {
        let ukey = user_key(lookup);
        if let Some(f) = &self.filter {
            if !f.may_match(key_hash(ukey)) {
                self.stats.add(Ticker::BloomFilterUseful, 1);
                return Ok(TableGet::FilteredOut);
            }
            self.stats.add(Ticker::BloomFilterFullPositive, 1);
        }
        if self.index_entries == 0 {
            return Ok(TableGet::NotFound);
        }
        let mut i = self
            .index
            .first_restart_at_or_after(lookup)
            .map_err(|m| self.index_corruption(m))?;
        // Room for keys a little longer than the lookup, so that rebuilding keys rarely grows it.
        let mut cursor = Cursor::new(Vec::with_capacity(lookup.len() + 16));
        // The first entry ≥ lookup is in block i, or — when lookup falls between block i's last
        // key and its index separator — the first entry of a later block.
        while i < self.index_entries {
            let h = self.index_handle(i)?;
            let block = self.data_block(h, cat)?;
            cursor
                .seek(&block, lookup)
                .map_err(|m| Error::corruption(self.path.as_ref().clone(), h.offset, m))?;
            if cursor.valid(&block) {
                if user_key(&cursor.key) != ukey {
                    return Ok(TableGet::NotFound);
                }
                if self.filter.is_some() {
                    self.stats.add(Ticker::BloomFilterFullTruePositive, 1);
                }
                let (start, end) = cursor.value_range();
                let value = PinnedValue::in_block(block, start, end);
                return Ok(TableGet::Found {
                    ikey: std::mem::take(&mut cursor.key),
                    value,
                });
            }
            i += 1;
        }
        Ok(TableGet::NotFound)
    }

    /// A cursor over the index block (one entry per data block).
    pub(super) fn index_cursor(&self) -> BlockIter {
        BlockIter::new(self.index.clone(), self.path.clone(), self.index_offset)
    }

    /// The index: for each data block, the last key it holds (or a separator after it), where
    /// it is, and in format 2 its entry count and first key. For `lsmlab dump`.
    pub fn index_entries(&self) -> Result<Vec<IndexEntry>> {
        let mut it = BlockIter::new(self.index.clone(), self.path.clone(), self.index_offset);
        let mut out = Vec::new();
        it.seek_to_first();
        while it.valid() {
            let (handle, first) = self.decode_index_value(it.value())?;
            out.push(IndexEntry {
                separator: it.key().to_vec(),
                handle,
                first: first.map(|(n, k)| (n, k.to_vec())),
            });
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// Reads every data block and checks it against its index entry: its keys lie after the
    /// previous entry's separator and up to its own, and in format 2 its first key and entry
    /// count are the ones the index names (a user iterator trusts them without reading the
    /// block). For `lsmlab check`; the error names the block.
    pub fn verify_index(&self) -> Result<()> {
        let mut after: Option<Vec<u8>> = None;
        for e in self.index_entries()? {
            let bad = |m: &str| Error::corruption(self.path.as_ref().clone(), e.handle.offset, m);
            let block = self.data_block(e.handle, IoCategory::Other)?;
            let mut it = BlockIter::new(block, self.path.clone(), e.handle.offset);
            it.seek_to_first();
            let first = it.key().to_vec();
            let mut count = 0u32;
            let mut last = Vec::new();
            while it.valid() {
                count += 1;
                last.clear();
                last.extend_from_slice(it.key());
                it.next();
            }
            it.status()?;
            if count == 0 {
                return Err(bad("empty data block"));
            }
            if after
                .as_ref()
                .is_some_and(|a| compare_internal(&first, a) != std::cmp::Ordering::Greater)
            {
                return Err(bad(
                    "block starts at or before the previous index separator",
                ));
            }
            if compare_internal(&last, &e.separator) == std::cmp::Ordering::Greater {
                return Err(bad("block ends after its index separator"));
            }
            if let Some((n, k)) = &e.first {
                if *n != count {
                    return Err(bad(&format!(
                        "index says {n} entries, the block holds {count}"
                    )));
                }
                if *k != first {
                    return Err(bad("index names another first key than the block's"));
                }
            }
            after = Some(e.separator);
        }
        Ok(())
    }

    /// Whether the table's filter lets through the key of `hash` ([`key_hash`] of its user
    /// key); `None` when the table has no filter. No block is read.
    pub fn filter_may_hold(&self, hash: u64) -> Option<bool> {
        self.filter.as_ref().map(|f| f.may_match(hash))
    }

    /// Name of the filter that wrote the filter block, if any.
    pub fn filter_name(&self) -> Option<&str> {
        (!self.props.filter_policy.is_empty()).then_some(self.props.filter_policy.as_str())
    }

    /// The table's properties.
    pub fn properties(&self) -> &TableProperties {
        &self.props
    }

    /// Bytes of memory held by the reader (index and filter).
    pub fn memory_usage(&self) -> usize {
        self.index.size() + self.filter_memory()
    }

    /// Bytes of memory held by the filter.
    pub fn filter_memory(&self) -> usize {
        self.filter.as_ref().map_or(0, |f| f.memory_usage())
    }

    /// Bytes of memory held by the index block.
    pub fn index_memory(&self) -> usize {
        self.index.size()
    }

    /// The table's file number (its block-cache key).
    pub fn file_number(&self) -> u64 {
        self.file_number
    }

    /// True if the table is of format 2: its index names each block's first key and entry
    /// count.
    pub fn has_first_key_index(&self) -> bool {
        self.first_keys
    }

    /// True if the table has a filter block.
    pub fn has_filter(&self) -> bool {
        self.filter.is_some()
    }

    fn index_corruption(&self, m: &str) -> Error {
        Error::corruption(self.path.as_ref().clone(), self.index_offset, m)
    }

    #[inline]
    fn index_handle(&self, i: usize) -> Result<BlockHandle> {
        let (_, v) = self
            .index
            .entry_at_restart(i)
            .map_err(|m| self.index_corruption(m))?;
        Ok(self.decode_index_value(v)?.0)
    }

    /// An index entry's value: the block's handle and, in format 2, its entry count and first
    /// key.
    #[inline]
    pub(super) fn decode_index_value<'a>(
        &self,
        v: &'a [u8],
    ) -> Result<(BlockHandle, Option<BlockStart<'a>>)> {
        if self.first_keys {
            let iv = IndexValue::decode(v).ok_or_else(|| {
                self.index_corruption("bad index entry (handle, count, first key)")
            })?;
            Ok((iv.handle, Some((iv.entries, iv.first_key))))
        } else {
            let h = BlockHandle::decode_varint(v)
                .ok_or_else(|| self.index_corruption("bad block handle"))?;
            Ok((h, None))
        }
    }

    /// The data block at `h`, from the cache or the file (then added to the cache).
    pub(super) fn data_block(&self, h: BlockHandle, cat: IoCategory) -> Result<Arc<Block>> {
        // Before the cache: a mapped table's uncompressed blocks never enter it.
        if self.mapped {
            if let Some(block) = self.mapped_block(h, cat)? {
                return Ok(block);
            }
        }
        if let Some(c) = &self.cache {
            if let Some(b) = c.get(self.file_number, h.offset) {
                self.stats.add(Ticker::BlockCacheHit, 1);
                self.stats.add(Ticker::BlockCacheDataHit, 1);
                return Ok(b);
            }
            self.stats.add(Ticker::BlockCacheMiss, 1);
            self.stats.add(Ticker::BlockCacheDataMiss, 1);
        }
        let contents = read_block_contents(
            &self.file,
            &self.stats,
            &self.path,
            h,
            self.footer_offset,
            cat,
        )?;
        let block = Arc::new(
            Block::new(contents)
                .map_err(|m| Error::corruption(self.path.as_ref().clone(), h.offset, m))?,
        );
        if let Some(c) = &self.cache {
            c.insert(self.file_number, h.offset, block.clone());
            self.stats.add(Ticker::BlockCacheAdd, 1);
        }
        Ok(block)
    }
}

impl TableReader {
    /// An uncompressed block of a mapped table, checked and searched in place; `None` if the
    /// table is not mapped or the block is compressed (it is then read as usual).
    ///
    /// Such a block skips the block cache, as RocksDB's reads of mapped tables do: the map is
    /// as fast to read as the cache, so a cached copy would only cost a copy of the block, an
    /// allocation and an eviction per read (a third of a `readrandom` of 1 KB values through
    /// maps went to copying blocks out of them).
    fn mapped_block(&self, h: BlockHandle, cat: IoCategory) -> Result<Option<Arc<Block>>> {
        let len = block_len_within(&self.path, h, self.footer_offset)?;
        let Some(bytes) = self.file.read_mapped(h.offset, len) else {
            return Ok(None);
        };
        let size = h.size as usize;
        if bytes[size] != NO_COMPRESSION {
            return Ok(None);
        }
        // Counted as the read it replaces (the page faults, if any, come with the search).
        count_user_read(&self.stats, len, cat);
        self.file.count_read(h.offset, len, cat);
        check_block(&self.path, h, &bytes)?;
        let block = Block::mapped(bytes.truncate(size))
            .map_err(|m| Error::corruption(self.path.as_ref().clone(), h.offset, m))?;
        Ok(Some(Arc::new(block)))
    }

    /// A data block for a sequential reader: from the block cache if there, else from the
    /// readahead window, refilled with the next `ra.window` bytes when the block lies outside it.
    pub(super) fn data_block_readahead(
        &self,
        h: BlockHandle,
        cat: IoCategory,
        ra: &mut Readahead,
    ) -> Result<Arc<Block>> {
        if let Some(c) = &self.cache {
            if let Some(b) = c.get(self.file_number, h.offset) {
                self.stats.add(Ticker::BlockCacheHit, 1);
                self.stats.add(Ticker::BlockCacheDataHit, 1);
                return Ok(b);
            }
        }
        let bad = |m: &str| Error::corruption(self.path.as_ref().clone(), h.offset, m);
        let end = h.offset + block_len_within(&self.path, h, self.footer_offset)? as u64;
        let window_end = ra.start + ra.buf.len() as u64;
        if h.offset < ra.start || end > window_end {
            let len = (end - h.offset).max(ra.window.min(self.data_end.saturating_sub(h.offset)));
            ra.buf.resize(len as usize, 0);
            read_table(&self.file, &self.stats, h.offset, &mut ra.buf, cat)?;
            ra.start = h.offset;
        }
        let from = (h.offset - ra.start) as usize;
        let raw = ra.buf[from..from + (end - h.offset) as usize].to_vec();
        let contents = decode_block_contents(&self.path, h, raw)?;
        Ok(Arc::new(Block::new(contents).map_err(bad)?))
    }
}
