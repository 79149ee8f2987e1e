//! What a compaction does with values (RocksDB's integrated BlobDB): inline values of at least
//! `min_blob_size` bytes are separated, blob indexes pass through, every dropped blob index adds
//! its record to its file's garbage, and with garbage collection on, live blobs of the oldest
//! blob files are relocated into new ones.

use super::blob_gc::gc_boundary;
use crate::blob::{BlobCache, BlobFileBuilder, BlobIndex};
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::key::{append_internal_key, ParsedKey, ValueKind};
use crate::options::Options;
use crate::stats::{Statistics, Ticker};
use crate::version::{BlobGarbage, NewBlobFile, Version};
use std::collections::BTreeMap;
use std::path::Path;

/// The blob side of one compaction.
pub(crate) struct CompactionBlobs<'a> {
    blobs: &'a BlobCache,
    dir: &'a Path,
    stats: &'a Statistics,
    separated: BlobFileBuilder<'a>,
    relocated: BlobFileBuilder<'a>,
    /// Blob files numbered below this are relocated (none when garbage collection is off).
    gc_below: u64,
    /// Garbage per blob file: (records, bytes).
    garbage: BTreeMap<u64, (u64, u64)>,
    key_buf: Vec<u8>,
    value_buf: Vec<u8>,
}

/// The blob files a compaction wrote and the garbage it made.
#[derive(Debug, Default)]
pub struct BlobOutcome {
    /// New blob files, finished and synced.
    pub added: Vec<NewBlobFile>,
    /// Garbage per blob file.
    pub garbage: Vec<BlobGarbage>,
    /// Bytes written to blob files (separation and relocation).
    pub bytes_written: u64,
    /// Bytes of those written by relocation.
    pub gc_bytes_written: u64,
}

impl<'a> CompactionBlobs<'a> {
    pub(crate) fn new(
        env: &'a Env,
        dir: &'a Path,
        opts: &'a Options,
        stats: &'a Statistics,
        blobs: &'a BlobCache,
        version: &Version,
    ) -> CompactionBlobs<'a> {
        CompactionBlobs {
            blobs,
            dir,
            stats,
            separated: BlobFileBuilder::new(env, dir, opts, stats, IoCategory::Blob),
            relocated: BlobFileBuilder::new(env, dir, opts, stats, IoCategory::Gc),
            gc_below: gc_boundary(version, opts),
            garbage: BTreeMap::new(),
            key_buf: Vec::new(),
            value_buf: Vec::new(),
        }
    }

    fn index(&self, raw: &[u8]) -> Result<BlobIndex> {
        BlobIndex::decode(raw).ok_or_else(|| {
            Error::corruption(self.dir, 0, "compaction input holds a malformed blob index")
        })
    }

    fn add_garbage(&mut self, idx: &BlobIndex, key_len: usize) {
        let g = self.garbage.entry(idx.file_number).or_default();
        g.0 += 1;
        g.1 = g.1.saturating_add(idx.record_len(key_len));
    }

    /// An entry the compaction drops: a blob index makes its record garbage.
    pub(crate) fn dropped(&mut self, p: &ParsedKey<'_>, raw: &[u8]) -> Result<()> {
        if p.kind == ValueKind::BlobIndex {
            let idx = self.index(raw)?;
            self.add_garbage(&idx, p.user_key.len());
        }
        Ok(())
    }

    /// An entry the compaction keeps: the `(key, value)` to write to the output table, which
    /// differ from the input when the value is separated or relocated, and the blob file the
    /// written entry references, if any.
    pub(crate) fn kept<'k>(
        &'k mut self,
        p: &ParsedKey<'_>,
        ikey: &'k [u8],
        raw: &'k [u8],
        new_number: &mut dyn FnMut() -> u64,
    ) -> Result<(&'k [u8], &'k [u8], Option<u64>)> {
        match p.kind {
            ValueKind::Value if self.separated.separates(raw.len()) => {
                self.value_buf = self.separated.add(p.user_key, raw, new_number)?;
            }
            ValueKind::BlobIndex => {
                let idx = self.index(raw)?;
                if idx.file_number >= self.gc_below {
                    return Ok((ikey, raw, Some(idx.file_number)));
                }
                let value = self.blobs.read_pinned(raw, p.user_key, IoCategory::Gc)?;
                self.value_buf = self.relocated.add(p.user_key, &value, new_number)?;
                self.add_garbage(&idx, p.user_key.len());
                self.stats.add(
                    Ticker::BlobGcBytesRelocated,
                    idx.record_len(p.user_key.len()),
                );
            }
            _ => return Ok((ikey, raw, None)),
        }
        self.key_buf.clear();
        append_internal_key(&mut self.key_buf, p.user_key, p.seq, ValueKind::BlobIndex);
        let written = BlobIndex::decode(&self.value_buf).map(|i| i.file_number);
        Ok((&self.key_buf, &self.value_buf, written))
    }

    /// Finishes (and syncs) the blob files written.
    pub(crate) fn finish(self) -> Result<BlobOutcome> {
        let (mut added, sep_bytes) = self.separated.finish()?;
        let (gc_added, gc_bytes) = self.relocated.finish()?;
        added.extend(gc_added);
        Ok(BlobOutcome {
            added,
            garbage: self
                .garbage
                .into_iter()
                .map(|(number, (count, bytes))| BlobGarbage {
                    number,
                    count,
                    bytes,
                })
                .collect(),
            bytes_written: sep_bytes + gc_bytes,
            gc_bytes_written: gc_bytes,
        })
    }
}
