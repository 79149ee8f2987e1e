//! [`TableBuilder`]: writes data blocks as they fill, then filter, properties, index, footer.

use super::block::BlockBuilder;
use super::codec::{BlockCompressor, NO_COMPRESSION};
use super::footer::{
    block_crc, BlockHandle, Footer, IndexValue, BLOCK_TRAILER_LEN, FOOTER_LEN,
    FORMAT_FIRST_KEY_INDEX, FORMAT_PLAIN_INDEX,
};
use super::{properties, TableOptions, TableProperties, TableSummary};
use crate::env::CountedWritable;
use crate::error::{Error, Result};
use crate::filter::key_hash;
use crate::key::{
    compare_internal, pack_trailer, user_key, ValueKind, MAX_SEQUENCE, SEEK_KIND, TRAILER_LEN,
};
use crate::stats::{HistogramKind, Statistics, Ticker};
use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Largest key + value one entry may have, 256 MiB: with blocks cut at 256 MiB at most, every
/// block stays below the 1 GiB a reader accepts (`codec::MAX_BLOCK_BYTES`).
pub const MAX_ENTRY_BYTES: usize = 256 << 20;

/// A data block is cut at `min(block_size, MAX_CUT_BYTES)` bytes, 256 MiB.
const MAX_CUT_BYTES: usize = 256 << 20;

/// A table whose data blocks hold at most this many entries on average is written in format
/// [`FORMAT_FIRST_KEY_INDEX`]: its index names each block's first key and entry count.
///
/// Why: a user iterator's seek positions every level-0 table and one table per deeper level,
/// and each of them used to read the data block the target falls in. When the target lies
/// before a block's first key, the index alone tells where that table stands, and the block is
/// read only if the merge hands out its entry. That is likely when blocks hold few entries
/// (values of half a block or more: with 16 KiB values and 4 KiB blocks, every block is one
/// entry and a seek lands on a first key every time), and rare when they hold many (100-byte
/// values: ~35 entries a block). The first keys cost index memory, one key per block: ~0.6 %
/// of the data at 2 entries of 2 KiB values per block, too much for what 100-byte values
/// would gain (RocksDB's `kBinarySearchWithFirstKey` index, which it leaves to the user).
const FIRST_KEY_INDEX_MAX_ENTRIES_PER_BLOCK: u64 = 2;

/// ... and whose blocks' first keys come to at most 1/8 of its data bytes: with keys as large
/// as the values (1 KiB each, say) the first keys would make the index, which stays in memory,
/// a quarter of the data. With 16-byte keys and 2 KiB values they are ~0.6 %.
const FIRST_KEY_INDEX_MAX_SHARE_OF_DATA: u64 = 8;

/// Writes one table.
pub struct TableBuilder {
    file: CountedWritable,
    path: PathBuf,
    opts: TableOptions,
    data: BlockBuilder,
    /// The index in format 1 (handles) and in format 2 (handles, entry counts and first
    /// keys), built side by side: which one the table keeps is known at `finish`, from the
    /// entries per block. Both are about 1 % of the data.
    index: BlockBuilder,
    index_first_keys: BlockBuilder,
    /// Handle of the last data block written, whose index entry waits for the next block's
    /// first key so that a short separator can be chosen.
    pending: Option<BlockHandle>,
    /// First key and entry count of the pending block.
    pending_first: Vec<u8>,
    pending_entries: u32,
    /// First key and entry count of the block being filled.
    block_first: Vec<u8>,
    block_entries: u32,
    /// Bytes of the first keys of the blocks written.
    first_key_bytes: u64,
    last_key: Vec<u8>,
    smallest: Vec<u8>,
    hashes: Vec<u64>,
    props: TableProperties,
    /// Reused buffer for compressed blocks.
    compressed: Vec<u8>,
    compressor: BlockCompressor,
    /// The first write error; every later call returns it.
    failed: Option<Error>,
    /// Where the filter build (`lsmlab.filter.*`) and the time of each write
    /// (`rocksdb.sst.write.micros`) are recorded, if set.
    stats: Option<Arc<Statistics>>,
}

impl TableBuilder {
    /// A builder writing to `file` (at `path`, for error messages).
    pub fn new(file: CountedWritable, path: PathBuf, opts: TableOptions) -> TableBuilder {
        TableBuilder {
            file,
            path,
            data: BlockBuilder::new(opts.block_restart_interval),
            // Interval 1: every index entry is a restart point, searched in place by readers.
            index: BlockBuilder::new(1),
            index_first_keys: BlockBuilder::new(1),
            opts,
            pending: None,
            pending_first: Vec::new(),
            pending_entries: 0,
            block_first: Vec::new(),
            block_entries: 0,
            first_key_bytes: 0,
            last_key: Vec::new(),
            smallest: Vec::new(),
            hashes: Vec::new(),
            props: TableProperties::default(),
            compressed: Vec::new(),
            compressor: BlockCompressor::default(),
            failed: None,
            stats: None,
        }
    }

    /// Makes `finish` count the filter block it builds under `Ticker::FilterBlocksBuilt` and
    /// its build time under `Ticker::FilterBuildMicros` (seed 001 measures that cost), and,
    /// when `stats` times ([`Statistics::with_timing`]), records the time of each block and
    /// footer write under `HistogramKind::SstWrite`.
    pub fn with_stats(mut self, stats: Arc<Statistics>) -> TableBuilder {
        self.stats = Some(stats);
        self
    }

    /// Adds an entry; internal keys must come in strictly increasing order.
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if ikey.len() < TRAILER_LEN {
            return Err(Error::InvalidRequest(format!(
                "table {}: internal key of {} bytes is shorter than its 8-byte trailer",
                self.path.display(),
                ikey.len()
            )));
        }
        if ikey.len() + value.len() > MAX_ENTRY_BYTES {
            return Err(Error::InvalidRequest(format!(
                "table {}: entry of {} bytes exceeds {MAX_ENTRY_BYTES} bytes",
                self.path.display(),
                ikey.len() + value.len()
            )));
        }
        let first = self.props.num_entries == 0;
        if !first && compare_internal(ikey, &self.last_key) != Ordering::Greater {
            return Err(Error::InvalidRequest(format!(
                "table {}: keys added out of order",
                self.path.display()
            )));
        }
        if let Some(h) = self.pending.take() {
            let sep = separator(&self.last_key, ikey);
            self.add_index_entry(&sep, h);
        }
        if self.opts.filter.is_some() && (first || user_key(ikey) != user_key(&self.last_key)) {
            self.hashes.push(key_hash(user_key(ikey)));
        }
        if first {
            self.smallest = ikey.to_vec();
        }
        if self.data.is_empty() {
            self.block_first.clear();
            self.block_first.extend_from_slice(ikey);
            self.block_entries = 0;
        }
        self.block_entries += 1;
        self.data.add(ikey, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(ikey);
        self.props.num_entries += 1;
        self.props.raw_key_size += ikey.len() as u64;
        self.props.raw_value_size += value.len() as u64;
        if ikey[ikey.len() - TRAILER_LEN] == ValueKind::Deletion as u8 {
            self.props.num_deletions += 1;
        }
        if self.data.estimated_size() >= self.opts.block_size.min(MAX_CUT_BYTES) {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// Bytes the file will have if finished now (estimate).
    pub fn estimated_size(&self) -> u64 {
        let filter = if self.opts.filter.is_some() {
            // About 10 bits per key: the estimate only steers file cutting.
            self.hashes.len() * 10 / 8
        } else {
            0
        };
        self.file.len()
            + (self.data.estimated_size() + self.index_estimate() + filter) as u64
            + (FOOTER_LEN + 4 * BLOCK_TRAILER_LEN) as u64
    }

    /// Writes filter, properties, index and footer, and syncs the file.
    pub fn finish(self) -> Result<TableSummary> {
        let (summary, mut file) = self.finish_unsynced()?;
        file.sync()?;
        Ok(summary)
    }

    /// Writes filter, properties, index and footer and starts the file's writeback without
    /// waiting for it; returns the file, which the caller must sync before the table is named
    /// in the MANIFEST. A compaction hands it to a thread that syncs it while the job fills
    /// the next table (`compaction/output_syncs.rs`).
    pub fn finish_unsynced(mut self) -> Result<(TableSummary, CountedWritable)> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if !self.data.is_empty() {
            self.flush_data_block()?;
        }
        if let Some(h) = self.pending.take() {
            let last = successor(&self.last_key);
            self.add_index_entry(&last, h);
        }
        let first_keys = self.first_key_index();
        let mut footer = Footer {
            index: BlockHandle::default(),
            properties: BlockHandle::default(),
            filter: BlockHandle::default(),
            version: if first_keys {
                FORMAT_FIRST_KEY_INDEX
            } else {
                FORMAT_PLAIN_INDEX
            },
        };
        if let Some(policy) = self.opts.filter.clone() {
            let started = Instant::now();
            let filter = policy.build(&self.hashes);
            if let Some(st) = &self.stats {
                st.add(Ticker::FilterBlocksBuilt, 1);
                // Rounded up: a small table's filter builds in less than a microsecond, and
                // truncating would count its cost as nothing.
                st.add(
                    Ticker::FilterBuildMicros,
                    (started.elapsed().as_nanos() as u64).div_ceil(1000),
                );
            }
            footer.filter = self.write_raw(&filter, NO_COMPRESSION)?;
            self.props.filter_size = (filter.len() + BLOCK_TRAILER_LEN) as u64;
            self.props.filter_policy = policy.name().to_string();
        }
        // The index is finished first so that the properties can record its size.
        let mut index = if first_keys {
            std::mem::replace(&mut self.index_first_keys, BlockBuilder::new(1))
        } else {
            std::mem::replace(&mut self.index, BlockBuilder::new(1))
        };
        let index_bytes = index.finish();
        self.props.index_size = (index_bytes.len() + BLOCK_TRAILER_LEN) as u64;
        let props = properties::encode(&self.props);
        footer.properties = self.write_raw(&props, NO_COMPRESSION)?;
        footer.index = self.write_raw(index_bytes, NO_COMPRESSION)?;
        let f = footer.encode();
        let t = self.start_timer();
        self.append(&f)?;
        self.record_write(t);
        self.file.start_writeback()?;
        let summary = TableSummary {
            file_size: self.file.len(),
            smallest: self.smallest,
            largest: self.last_key,
            properties: self.props,
        };
        Ok((summary, self.file))
    }

    fn add_index_entry(&mut self, key: &[u8], h: BlockHandle) {
        // Two varint64s and a varint32 take at most 25 bytes.
        let mut buf = Vec::with_capacity(25 + self.pending_first.len());
        h.encode_varint(&mut buf);
        self.index.add(key, &buf);
        buf.clear();
        IndexValue::encode(h, self.pending_entries, &self.pending_first, &mut buf);
        self.index_first_keys.add(key, &buf);
    }

    /// True if the table, finished now, would be written in format 2
    /// ([`FIRST_KEY_INDEX_MAX_ENTRIES_PER_BLOCK`]).
    fn first_key_index(&self) -> bool {
        let blocks = self.props.num_data_blocks;
        blocks > 0
            && self.props.num_entries <= FIRST_KEY_INDEX_MAX_ENTRIES_PER_BLOCK * blocks
            && self.first_key_bytes * FIRST_KEY_INDEX_MAX_SHARE_OF_DATA <= self.props.data_size
    }

    /// Bytes of the index the table would keep if finished now.
    fn index_estimate(&self) -> usize {
        if self.first_key_index() {
            self.index_first_keys.estimated_size()
        } else {
            self.index.estimated_size()
        }
    }

    fn append(&mut self, data: &[u8]) -> Result<()> {
        let r = self.file.append(data);
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    /// Compresses (if asked and worth it) and writes the current data block.
    fn flush_data_block(&mut self) -> Result<()> {
        let mut data = std::mem::replace(&mut self.data, BlockBuilder::new(0));
        let raw = data.finish();
        let kind = self
            .compressor
            .compress(self.opts.compression, raw, &mut self.compressed);
        let h = if kind == NO_COMPRESSION {
            self.write_raw(raw, NO_COMPRESSION)
        } else {
            let c = std::mem::take(&mut self.compressed);
            let r = self.write_raw(&c, kind);
            self.compressed = c;
            r
        };
        data.reset();
        self.data = data;
        let h = h?;
        self.props.data_size += h.size + BLOCK_TRAILER_LEN as u64;
        self.props.num_data_blocks += 1;
        self.pending = Some(h);
        std::mem::swap(&mut self.pending_first, &mut self.block_first);
        self.first_key_bytes += self.pending_first.len() as u64;
        self.pending_entries = self.block_entries;
        Ok(())
    }

    /// Writes a block and its trailer; returns its handle.
    fn write_raw(&mut self, block: &[u8], kind: u8) -> Result<BlockHandle> {
        let h = BlockHandle {
            offset: self.file.len(),
            size: block.len() as u64,
        };
        let mut trailer = [0u8; BLOCK_TRAILER_LEN];
        trailer[0] = kind;
        trailer[1..].copy_from_slice(&block_crc(block, kind).to_le_bytes());
        let t = self.start_timer();
        self.append(block)?;
        self.append(&trailer)?;
        self.record_write(t);
        Ok(h)
    }

    /// The start of a timed write, when statistics time.
    #[inline]
    fn start_timer(&self) -> Option<Instant> {
        self.stats.as_ref().and_then(|s| s.start_timer())
    }

    /// Records a write started at `t` under `rocksdb.sst.write.micros`.
    #[inline]
    fn record_write(&self, t: Option<Instant>) {
        if let Some(s) = &self.stats {
            s.record_elapsed(HistogramKind::SstWrite, t);
        }
    }
}

/// The smallest internal key of a user key: sorts before every real entry of it.
fn max_trailer() -> [u8; TRAILER_LEN] {
    pack_trailer(MAX_SEQUENCE, SEEK_KIND).to_le_bytes()
}

/// A short internal key `k` with `a ≤ k < b` (`a < b`), for the index entry between two blocks.
pub(crate) fn separator(a: &[u8], b: &[u8]) -> Vec<u8> {
    let (ua, ub) = (user_key(a), user_key(b));
    let n = ua.iter().zip(ub).take_while(|(x, y)| x == y).count();
    if n < ua.len() && n < ub.len() {
        let byte = ua[n];
        if byte < 0xff && byte + 1 < ub[n] && n + 1 < ua.len() {
            // ua[..n] + (ua[n] + 1): greater than ua, less than ub, shorter than ua.
            let mut k = Vec::with_capacity(n + 1 + TRAILER_LEN);
            k.extend_from_slice(&ua[..n]);
            k.push(byte + 1);
            k.extend_from_slice(&max_trailer());
            return k;
        }
    }
    a.to_vec()
}

/// A short internal key `k ≥ a`, for the index entry of the last block.
pub(crate) fn successor(a: &[u8]) -> Vec<u8> {
    let ua = user_key(a);
    if let Some(i) = ua.iter().position(|&b| b != 0xff) {
        if i + 1 < ua.len() {
            let mut k = Vec::with_capacity(i + 1 + TRAILER_LEN);
            k.extend_from_slice(&ua[..i]);
            k.push(ua[i] + 1);
            k.extend_from_slice(&max_trailer());
            return k;
        }
    }
    a.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::make_internal_key;

    fn ik(u: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(u, seq, ValueKind::Value)
    }

    #[test]
    fn separators_lie_between_their_keys_and_are_short() {
        let cases: &[(&[u8], u64, &[u8], u64)] = &[
            (b"abcdefgh", 5, b"abzz", 9),
            (b"abc", 5, b"abd", 1),
            (b"abc", 5, b"abc", 1),
            (b"a\xff\xff", 1, b"b", 1),
            (b"", 1, b"a", 1),
            (b"foo", 1, b"foobar", 1),
        ];
        for &(ua, sa, ub, sb) in cases {
            let (a, b) = (ik(ua, sa), ik(ub, sb));
            let s = separator(&a, &b);
            assert_ne!(compare_internal(&a, &s), Ordering::Greater, "{ua:?} {ub:?}");
            assert_eq!(compare_internal(&s, &b), Ordering::Less, "{ua:?} {ub:?}");
            assert!(s.len() <= a.len());
        }
        assert_eq!(
            user_key(&separator(&ik(b"abcdefgh", 5), &ik(b"abzz", 9))),
            b"abd"
        );
        for ua in [&b"abc"[..], b"\xff\xff", b"\xffa", b""] {
            let a = ik(ua, 3);
            assert_ne!(compare_internal(&a, &successor(&a)), Ordering::Greater);
        }
        assert_eq!(user_key(&successor(&ik(b"\xffabc", 3))), b"\xffb");
    }
}
