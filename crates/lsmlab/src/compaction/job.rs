//! Runs one compaction: merges the input tables, drops what no reader can see, and writes
//! output tables cut at `target_file_size_base` (values go through [`CompactionBlobs`]).

use super::blobs::{BlobOutcome, CompactionBlobs};
use super::obsolete::ShadowSampler;
use super::output_syncs::OutputSyncs;
use super::shadow::Shadowing;
use super::CompactionSpec;
use crate::blob::BlobCache;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::filename::table_path;
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{parse_internal_key, SequenceNumber, ValueKind, MAX_SEQUENCE};
use crate::options::Options;
use crate::sst::{BlockFetch, TableBuilder};
use crate::stats::{Statistics, Ticker};
use crate::table_cache::TableCache;
use crate::version::{NewFile, Version};
use std::path::Path;
use std::sync::Arc;

/// What a compaction needs besides its inputs.
pub struct CompactionParams<'a> {
    /// The tables to merge.
    pub spec: &'a CompactionSpec,
    /// The version the inputs were picked from (deeper levels decide whether a deletion can go).
    pub version: &'a Version,
    /// Open tables.
    pub tables: &'a Arc<TableCache>,
    /// Open blob files (read when relocating).
    pub blobs: &'a BlobCache,
    /// File system and I/O accounting.
    pub env: &'a Env,
    /// Database directory.
    pub dir: &'a Path,
    /// Database options.
    pub opts: &'a Options,
    /// Versions newer than this may still be read by a snapshot and must be kept.
    pub smallest_snapshot: SequenceNumber,
    /// Hands out file numbers for outputs.
    pub new_file_number: &'a mut dyn FnMut() -> u64,
    /// Tickers.
    pub stats: &'a Arc<Statistics>,
    /// I/O category of reads and writes.
    pub category: IoCategory,
}

/// What a compaction produced.
#[derive(Debug, Default)]
pub struct CompactionOutcome {
    /// Output tables, in key order.
    pub outputs: Vec<NewFile>,
    /// A policy's job only: tables it leaves in an input level, which its
    /// [`LayoutPolicy::apply_result`](super::LayoutPolicy::apply_result) places (FSLSM's
    /// float-up: versions that a newer version in a crossed level shadows but a live snapshot
    /// can still read).
    pub stayed: Vec<NewFile>,
    /// Bytes of input tables.
    pub bytes_read: u64,
    /// Bytes of output tables and blob files.
    pub bytes_written: u64,
    /// Blob files written and blob garbage made.
    pub blobs: BlobOutcome,
    /// Entries read.
    pub entries_in: u64,
    /// Entries dropped.
    pub entries_dropped: u64,
}

/// One output table being written, with what the MANIFEST records of it.
pub(super) struct Output {
    builder: TableBuilder,
    number: u64,
    smallest_seq: u64,
    largest_seq: u64,
    deletions: u64,
    /// Oldest blob file referenced (`u64::MAX` for none yet).
    oldest_blob: u64,
    /// Entries of deeper levels its keys hide, estimated (`obsolete.rs`); 0 when not sampled.
    pub(super) shadowed_below: u64,
}

impl Output {
    /// Creates table `number` in `dir`.
    pub(super) fn create(
        env: &Env,
        dir: &Path,
        number: u64,
        category: IoCategory,
        opts: crate::sst::TableOptions,
        stats: &Arc<Statistics>,
    ) -> Result<Output> {
        let path = table_path(dir, number);
        let file = env.create(&path, category)?;
        Ok(Output {
            builder: TableBuilder::new(file, path, opts).with_stats(stats.clone()),
            number,
            smallest_seq: MAX_SEQUENCE,
            largest_seq: 0,
            deletions: 0,
            oldest_blob: u64::MAX,
            shadowed_below: 0,
        })
    }

    /// Adds one entry (in internal-key order); `blob` is the blob file it references.
    pub(super) fn add(
        &mut self,
        parsed: &crate::key::ParsedKey<'_>,
        key: &[u8],
        value: &[u8],
        blob: Option<u64>,
    ) -> Result<()> {
        self.builder.add(key, value)?;
        if let Some(b) = blob {
            self.oldest_blob = self.oldest_blob.min(b);
        }
        self.smallest_seq = self.smallest_seq.min(parsed.seq);
        self.largest_seq = self.largest_seq.max(parsed.seq);
        if parsed.kind == ValueKind::Deletion {
            self.deletions += 1;
        }
        Ok(())
    }

    /// Bytes written so far (about).
    pub(super) fn estimated_size(&self) -> u64 {
        self.builder.estimated_size()
    }
}

/// Merges the inputs of `p.spec` into new tables of `p.spec.output_level`.
pub fn run_compaction(p: &mut CompactionParams<'_>) -> Result<CompactionOutcome> {
    let spec = p.spec;
    // Tables read at the same time: each level-0 table, and one table of each deeper level.
    let readers = spec
        .inputs
        .iter()
        .map(|i| if i.level == 0 { i.files.len() } else { 1 })
        .sum();
    let fetch = BlockFetch::merged(readers);
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    for input in &spec.inputs {
        if input.level == 0 {
            // Level-0 tables overlap one another: one iterator each.
            for f in &input.files {
                children.push(f.reader(p.tables)?.iter(p.category, fetch));
            }
        } else {
            children.push(Box::new(LevelIterator::new(
                input.files.clone(),
                p.tables.clone(),
                p.category,
                fetch,
            )));
        }
    }
    let mut iter = MergingIterator::new(children);
    let mut out = CompactionOutcome {
        bytes_read: spec.all_inputs().map(|f| f.size).sum(),
        ..Default::default()
    };
    let table_opts = p.opts.table_options(spec.output_level);
    let mut current: Option<Output> = None;
    let mut syncs = OutputSyncs::new(p.dir);
    let mut shadowing = Shadowing::new(p.smallest_snapshot);
    let mut blobs = CompactionBlobs::new(p.env, p.dir, p.opts, p.stats, p.blobs, p.version);
    let mut sampler = ShadowSampler::new(p.version, spec.output_level, p.tables);
    iter.seek_to_first();
    while iter.valid() {
        let ikey = iter.key();
        let parsed = parse_internal_key(ikey).ok_or_else(|| {
            Error::corruption(p.dir, 0, "compaction input holds a malformed internal key")
        })?;
        out.entries_in += 1;
        let seen = shadowing.next(parsed.user_key, parsed.seq);
        let new_user_key = seen.first_of_key;
        // An older version is invisible to every reader once a newer one is at or below the
        // oldest snapshot; a deletion can go once nothing older can exist below the output.
        let drop = if seen.shadowed {
            p.stats.add(Ticker::CompactionKeyDropNewerEntry, 1);
            true
        } else if parsed.kind == ValueKind::Deletion
            && parsed.seq <= p.smallest_snapshot
            && is_base_level_for_key(p.version, spec.output_level, parsed.user_key)
        {
            p.stats.add(Ticker::CompactionKeyDropObsolete, 1);
            true
        } else {
            false
        };
        if drop {
            out.entries_dropped += 1;
            blobs.dropped(&parsed, iter.value())?;
        } else {
            // Cut only between user keys, so that every version of a key stays in one table and
            // tables of a level have disjoint user-key ranges. Into level 0 nothing is cut: one
            // table per compaction, as a flush, keeps the level-0 count down.
            if new_user_key
                && spec.output_level > 0
                && current
                    .as_ref()
                    .is_some_and(|c| c.estimated_size() >= p.opts.target_file_size_base)
            {
                if let Some(mut c) = current.take() {
                    c.shadowed_below = sampler.table_done();
                    finish_output(c, &mut out.outputs, &mut out.bytes_written, &mut syncs)?;
                }
            }
            if current.is_none() {
                let number = (p.new_file_number)();
                current = Some(Output::create(
                    p.env,
                    p.dir,
                    number,
                    p.category,
                    table_opts.clone(),
                    p.stats,
                )?);
            }
            if let Some(c) = current.as_mut() {
                let (k, v, blob) = blobs.kept(&parsed, ikey, iter.value(), p.new_file_number)?;
                c.add(&parsed, k, v, blob)?;
                if new_user_key {
                    sampler.new_key(parsed.user_key);
                }
            }
        }
        iter.next();
    }
    iter.status()?;
    if let Some(mut c) = current.take() {
        c.shadowed_below = sampler.table_done();
        finish_output(c, &mut out.outputs, &mut out.bytes_written, &mut syncs)?;
    }
    syncs.wait()?;
    out.blobs = blobs.finish()?;
    // As RocksDB counts them: compaction write bytes include the blob files it wrote.
    out.bytes_written += out.blobs.bytes_written;
    Ok(out)
}

/// Finishes `c`, adding its record to `outputs`, its size to `written` and its file, whose
/// writeback has started, to `syncs`: the job waits for them at its end, before any is named in
/// the MANIFEST.
pub(super) fn finish_output(
    c: Output,
    outputs: &mut Vec<NewFile>,
    written: &mut u64,
    syncs: &mut OutputSyncs,
) -> Result<()> {
    let (summary, file) = c.builder.finish_unsynced()?;
    syncs.push(file)?;
    *written += summary.file_size;
    outputs.push(NewFile {
        number: c.number,
        size: summary.file_size,
        smallest: summary.smallest,
        largest: summary.largest,
        smallest_seq: c.smallest_seq,
        largest_seq: c.largest_seq,
        num_entries: summary.properties.num_entries,
        num_deletions: c.deletions,
        oldest_blob_file: if c.oldest_blob == u64::MAX {
            0
        } else {
            c.oldest_blob
        },
        shadowed_below: c.shadowed_below,
    });
    Ok(())
}

/// True if no older table than the output may hold `user_key`: none of a level below
/// `output_level`. Into level 0 (an intra-L0 compaction) never: older level-0 tables left out
/// of the inputs may hold what a deletion hides.
fn is_base_level_for_key(v: &Version, output_level: usize, user_key: &[u8]) -> bool {
    output_level > 0
        && v.levels.iter().skip(output_level + 1).all(|files| {
            let i = files.partition_point(|f| f.largest_user() < user_key);
            files.get(i).is_none_or(|f| f.smallest_user() > user_key)
        })
}
