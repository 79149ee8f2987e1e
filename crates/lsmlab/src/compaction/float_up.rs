//! Runs one FSLSM float-up: a hot table of level i > 0 is rewritten into level 0.
//!
//! A get stops at the first level ≥ 1 that holds a visible version of its key, and in level 0
//! keeps the newest version it finds. So the float must not put a version into level 0 while a
//! newer one of the same key sits in a level it crosses (1..i−1): that get would return the
//! older one. Each entry of the table is therefore compared with the newest version of its key
//! in the crossed levels (a merge walk over their overlapping tables):
//! - newer than it, or no version there: it floats to level 0;
//! - older, and the newer version is at or below the oldest snapshot: no reader can see it, it
//!   is dropped;
//! - older, and a snapshot may still read it: it stays in level i, in a new table that
//!   replaces the floated one (readers of that snapshot look past the newer version, which they
//!   cannot see, and find it there as before).
//!
//! The engine keeps the crossed levels from gaining newer versions during the run: no
//! compaction out of level 0 starts while a float-up runs, and a compaction into level i that
//! meets the table cannot pick it (it is marked `being_compacted`).

use super::blobs::CompactionBlobs;
use super::job::{finish_output, Output};
use super::{CompactionOutcome, CompactionSpec};
use crate::blob::BlobCache;
use crate::env::{Env, IoCategory};
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{
    append_internal_key, parse_internal_key, SequenceNumber, ValueKind, MAX_SEQUENCE,
};
use crate::options::Options;
use crate::sst::BlockFetch;
use crate::stats::Statistics;
use crate::table_cache::TableCache;
use crate::version::Version;
use std::path::Path;
use std::sync::Arc;

/// What a float-up needs besides its spec.
pub struct FloatUpParams<'a> {
    /// One table (`inputs[0]`, level ≥ 1) to move to `output_level` 0.
    pub spec: &'a CompactionSpec,
    /// The version the table was picked from (the crossed levels are read from it).
    pub version: &'a Version,
    /// Open tables.
    pub tables: &'a Arc<TableCache>,
    /// Open blob files.
    pub blobs: &'a BlobCache,
    /// File system and I/O accounting (category `FloatUp`).
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
}

/// Where one entry of the floated table goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Float,
    Drop,
    Stay,
}

/// The fate of a version at `seq` when the newest version of its key in the crossed levels is
/// at `newer` (if any).
fn fate(
    seq: SequenceNumber,
    newer: Option<SequenceNumber>,
    smallest_snapshot: SequenceNumber,
) -> Fate {
    match newer {
        Some(w) if w > seq && w <= smallest_snapshot => Fate::Drop,
        Some(w) if w > seq => Fate::Stay,
        _ => Fate::Float,
    }
}

/// Rewrites the table of `p.spec` into level-0 tables (and, for versions only a snapshot can
/// read, tables left in its level).
pub fn run_float_up(p: &mut FloatUpParams<'_>) -> Result<CompactionOutcome> {
    let spec = p.spec;
    let (level, table) = match spec.inputs.first() {
        Some(i) if i.level > 0 && i.files.len() == 1 && spec.output_level == 0 => {
            (i.level, i.files[0].clone())
        }
        _ => {
            return Err(Error::InvalidArgument(
                "float-up: needs one table of a level ≥ 1 moved to level 0".into(),
            ))
        }
    };
    let cat = IoCategory::FloatUp;
    let (lo, hi) = (table.smallest_user(), table.largest_user());
    let mut crossed: Vec<Box<dyn InternalIterator>> = Vec::new();
    let mut bytes_read = table.size;
    // The floating table and one table of each level it crosses are read at the same time.
    let fetch = BlockFetch::merged(level);
    for l in 1..level {
        let files = p.version.overlapping(l, Some(lo), Some(hi));
        bytes_read += files.iter().map(|f| f.size).sum::<u64>();
        if !files.is_empty() {
            crossed.push(Box::new(LevelIterator::new(
                files,
                p.tables.clone(),
                cat,
                fetch,
            )));
        }
    }
    let mut newer = MergingIterator::new(crossed);
    let mut start = Vec::new();
    append_internal_key(&mut start, lo, MAX_SEQUENCE, ValueKind::Value);
    newer.seek(&start);
    let mut input = table.reader(p.tables)?.iter(cat, fetch);
    input.seek_to_first();

    let mut out = CompactionOutcome {
        bytes_read,
        ..Default::default()
    };
    let mut blobs = CompactionBlobs::new(p.env, p.dir, p.opts, p.stats, p.blobs, p.version);
    let (mut up, mut stay): (Option<Output>, Option<Output>) = (None, None);
    let mut last_key: Option<Vec<u8>> = None;
    let mut newest_crossed: Option<SequenceNumber> = None;
    while input.valid() {
        let ikey = input.key();
        let parsed = parse_internal_key(ikey).ok_or_else(|| {
            Error::corruption(
                p.tables.path_of(table.number),
                0,
                "float-up input holds a malformed internal key",
            )
        })?;
        out.entries_in += 1;
        let new_key = last_key.as_deref() != Some(parsed.user_key);
        if new_key {
            // The crossed levels' entries come in the same order: advance to this key; its
            // first entry there is its newest version.
            while newer.valid() && crate::key::user_key(newer.key()) < parsed.user_key {
                newer.next();
            }
            newest_crossed = None;
            if newer.valid() && crate::key::user_key(newer.key()) == parsed.user_key {
                newest_crossed = parse_internal_key(newer.key()).map(|k| k.seq);
            }
            last_key = Some(parsed.user_key.to_vec());
        }
        let slot = match fate(parsed.seq, newest_crossed, p.smallest_snapshot) {
            Fate::Drop => {
                out.entries_dropped += 1;
                blobs.dropped(&parsed, input.value())?;
                input.next();
                continue;
            }
            Fate::Float => (&mut up, 0),
            Fate::Stay => (&mut stay, level),
        };
        let (current, to_level) = slot;
        // Cut only between user keys, as compaction does.
        if new_key
            && current
                .as_ref()
                .is_some_and(|c| c.estimated_size() >= p.opts.target_file_size_base)
        {
            if let Some(c) = current.take() {
                let outputs = if to_level == 0 {
                    &mut out.outputs
                } else {
                    &mut out.stayed
                };
                finish_output(c, outputs, &mut out.bytes_written)?;
            }
        }
        if current.is_none() {
            let number = (p.new_file_number)();
            *current = Some(Output::create(
                p.env,
                p.dir,
                number,
                cat,
                p.opts.table_options(to_level),
                p.stats,
            )?);
        }
        if let Some(c) = current.as_mut() {
            let blob = (parsed.kind == ValueKind::BlobIndex)
                .then(|| crate::blob::BlobIndex::decode(input.value()).map(|b| b.file_number))
                .flatten();
            c.add(&parsed, ikey, input.value(), blob)?;
        }
        input.next();
    }
    input.status()?;
    newer.status()?;
    if let Some(c) = up.take() {
        finish_output(c, &mut out.outputs, &mut out.bytes_written)?;
    }
    if let Some(c) = stay.take() {
        finish_output(c, &mut out.stayed, &mut out.bytes_written)?;
    }
    out.blobs = blobs.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_floats_unless_a_crossed_level_holds_a_newer_one() {
        assert_eq!(fate(10, None, 100), Fate::Float);
        assert_eq!(
            fate(10, Some(5), 100),
            Fate::Float,
            "older below the hit cannot exist, but is harmless"
        );
        assert_eq!(
            fate(10, Some(20), 100),
            Fate::Drop,
            "shadowed for every reader"
        );
        assert_eq!(
            fate(10, Some(20), 15),
            Fate::Stay,
            "a snapshot at 15 still reads it"
        );
        assert_eq!(
            fate(10, Some(20), 20),
            Fate::Drop,
            "the oldest snapshot already sees 20"
        );
    }
}
