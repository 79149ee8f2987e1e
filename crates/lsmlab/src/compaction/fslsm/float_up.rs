//! Runs one FSLSM float-up: a hot table t of level i > 0 is merged into level 0.
//!
//! Invariant of the tree (kept by flushes, compactions and float-ups alike): for every user key,
//! each version in a level is newer than each version in a deeper level, level 0 counting as
//! one level whatever its tables. A get therefore keeps the newest version it finds in level 0
//! and, failing that, stops at the first deeper level holding a visible version. The float-up
//! keeps the invariant:
//! - each entry of t is compared with the newest version W of its key in the levels it crosses
//!   below level 0 (1..i−1, a merge walk over their overlapping tables). W newer and at or below
//!   the oldest snapshot: no reader can see the entry, it is dropped. W newer and a live
//!   snapshot may need the entry: it stays in level i, in a new table that replaces t (a reader
//!   at that snapshot looks past W, which it cannot see, and finds it where it was).
//! - the other entries are merged with the level-0 tables that overlap t, which leave level 0:
//!   an entry shadowed by a newer level-0 version at or below the oldest snapshot is dropped, as
//!   in any compaction; the rest is written to new level-0 tables cut at
//!   `target_file_size_base`. Level 0 is read as one level (the newest hit of all its tables
//!   wins), so how its entries are split into tables changes no answer.
//!
//! The crossed levels gain no newer version during the run: the policy's `may_start` lets no
//! job touching level 0 start while a float-up runs (nor a float-up while one runs), a
//! compaction into level i that meets t cannot pick it (the engine marks every input
//! `being_compacted` until the result is installed), and flushes only add tables of newer
//! versions, which are not inputs. docs/fslsm.md has the whole argument.

use crate::compaction::blobs::CompactionBlobs;
use crate::compaction::job::{finish_output, Output};
use crate::compaction::output_syncs::OutputSyncs;
use crate::compaction::shadow::Shadowing;
use crate::compaction::{CompactionOutcome, CompactionParams, CompactionSpec};
use crate::env::IoCategory;
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{
    append_internal_key, compare_internal, parse_internal_key, ParsedKey, SequenceNumber,
    ValueKind, MAX_SEQUENCE,
};
use crate::sst::BlockFetch;
use crate::version::{FileMeta, NewFile};
use std::path::Path;
use std::sync::Arc;

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

/// The floated table, its level and the level-0 tables it merges with, from a float-up spec.
fn float_inputs(spec: &CompactionSpec) -> Result<(usize, Arc<FileMeta>, Vec<Arc<FileMeta>>)> {
    let bad = || {
        Error::InvalidRequest(
            "float-up: needs level-0 tables (maybe none) and one table of a level ≥ 1, into \
             level 0"
                .into(),
        )
    };
    let (last, rest) = spec.inputs.split_last().ok_or_else(bad)?;
    if last.level == 0 || last.files.len() != 1 || spec.output_level != 0 {
        return Err(bad());
    }
    let mut level0 = Vec::new();
    for i in rest {
        if i.level != 0 {
            return Err(bad());
        }
        level0.extend(i.files.iter().cloned());
    }
    Ok((last.level, last.files[0].clone(), level0))
}

/// Output tables of one level, cut at `target_file_size_base` between user keys.
struct Outputs {
    level: usize,
    current: Option<Output>,
    done: Vec<NewFile>,
    /// Finished tables, synced on a thread of their own.
    syncs: OutputSyncs,
}

impl Outputs {
    fn new(level: usize, dir: &Path) -> Outputs {
        Outputs {
            level,
            current: None,
            done: Vec::new(),
            syncs: OutputSyncs::new(dir),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        p: &mut CompactionParams<'_>,
        written: &mut u64,
        new_key: bool,
        parsed: &ParsedKey<'_>,
        ikey: &[u8],
        value: &[u8],
        blob: Option<u64>,
    ) -> Result<()> {
        // Cut only between user keys, as compaction does: every version of a key in one table.
        if new_key
            && self
                .current
                .as_ref()
                .is_some_and(|c| c.estimated_size() >= p.opts.target_file_size_base)
        {
            if let Some(c) = self.current.take() {
                finish_output(c, &mut self.done, written, &mut self.syncs)?;
            }
        }
        if self.current.is_none() {
            let number = (p.new_file_number)();
            self.current = Some(Output::create(
                p.env,
                p.dir,
                number,
                IoCategory::FloatUp,
                p.opts.table_options(self.level),
                p.stats,
            )?);
        }
        if let Some(c) = self.current.as_mut() {
            c.add(parsed, ikey, value, blob)?;
        }
        Ok(())
    }

    fn finish(mut self, written: &mut u64) -> Result<Vec<NewFile>> {
        if let Some(c) = self.current.take() {
            finish_output(c, &mut self.done, written, &mut self.syncs)?;
        }
        self.syncs.wait()?;
        Ok(self.done)
    }
}

/// Merges the table of `p.spec` with the level-0 tables it overlaps into new level-0 tables
/// (and, for versions only a snapshot can read, tables left in its level). `p.spec` holds the
/// level-0 tables overlapping the floated table (inputs of level 0, possibly none), then the
/// one table of a level ≥ 1 to float (the last input), into level 0; `p.version` is the
/// version it was picked from (the crossed levels are read from it). Reads and writes count
/// under the float-up's own I/O category, whatever `p.category` says.
pub fn run_float_up(p: &mut CompactionParams<'_>) -> Result<CompactionOutcome> {
    let (level, table, level0) = float_inputs(p.spec)?;
    let cat = IoCategory::FloatUp;
    let (lo, hi) = (table.smallest_user(), table.largest_user());
    // Read at the same time: the table, each level-0 input and one table of each crossed level.
    let fetch = BlockFetch::merged(level + level0.len());
    let mut crossed: Vec<Box<dyn InternalIterator>> = Vec::new();
    let mut bytes_read = table.size + level0.iter().map(|f| f.size).sum::<u64>();
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
    let mut floated = table.reader(p.tables)?.iter(cat, fetch);
    floated.seek_to_first();
    let mut l0_children: Vec<Box<dyn InternalIterator>> = Vec::new();
    for f in &level0 {
        l0_children.push(f.reader(p.tables)?.iter(cat, fetch));
    }
    let mut l0 = MergingIterator::new(l0_children);
    l0.seek_to_first();

    let mut out = CompactionOutcome {
        bytes_read,
        ..Default::default()
    };
    let mut blobs = CompactionBlobs::new(p.env, p.dir, p.opts, p.stats, p.blobs, p.version);
    let (mut up, mut stay) = (Outputs::new(0, p.dir), Outputs::new(level, p.dir));
    // The level-0 merge: what the floated entries and the level-0 inputs become.
    let mut shadowing = Shadowing::new(p.smallest_snapshot);
    let mut last_key: Option<Vec<u8>> = None;
    let mut newest_crossed: Option<SequenceNumber> = None;
    let mut last_stayed: Option<Vec<u8>> = None;
    loop {
        // The smaller internal key of the two streams; keys are unique (one sequence each).
        let from_table = match (floated.valid(), l0.valid()) {
            (false, false) => break,
            (true, false) => true,
            (false, true) => false,
            (true, true) => compare_internal(floated.key(), l0.key()).is_lt(),
        };
        let it: &mut dyn InternalIterator = if from_table { &mut *floated } else { &mut l0 };
        if !it.prepare_value() {
            break; // the error is in `status()`, checked below
        }
        let ikey = it.key();
        let parsed = parse_internal_key(ikey).ok_or_else(|| {
            Error::corruption(
                p.tables.path_of(table.number),
                0,
                "float-up input holds a malformed internal key",
            )
        })?;
        out.entries_in += 1;
        let value = it.value();
        let fate = if from_table {
            if last_key.as_deref() != Some(parsed.user_key) {
                // The crossed levels' entries come in the same order: advance to this key;
                // its first entry there is its newest version.
                while newer.valid() && crate::key::user_key(newer.key()) < parsed.user_key {
                    newer.next();
                }
                newest_crossed = None;
                if newer.valid() && crate::key::user_key(newer.key()) == parsed.user_key {
                    newest_crossed = parse_internal_key(newer.key()).map(|k| k.seq);
                }
                last_key = Some(parsed.user_key.to_vec());
            }
            fate(parsed.seq, newest_crossed, p.smallest_snapshot)
        } else {
            // Level-0 entries are newer than every version in the crossed levels.
            Fate::Float
        };
        let blob = (parsed.kind == ValueKind::BlobIndex)
            .then(|| crate::blob::BlobIndex::decode(value).map(|b| b.file_number))
            .flatten();
        match fate {
            Fate::Drop => {
                out.entries_dropped += 1;
                blobs.dropped(&parsed, value)?;
            }
            Fate::Stay => {
                let new_key = last_stayed.as_deref() != Some(parsed.user_key);
                if new_key {
                    last_stayed = Some(parsed.user_key.to_vec());
                }
                stay.add(
                    p,
                    &mut out.bytes_written,
                    new_key,
                    &parsed,
                    ikey,
                    value,
                    blob,
                )?;
            }
            Fate::Float => {
                let seen = shadowing.next(parsed.user_key, parsed.seq);
                if seen.shadowed {
                    out.entries_dropped += 1;
                    blobs.dropped(&parsed, value)?;
                } else {
                    up.add(
                        p,
                        &mut out.bytes_written,
                        seen.first_of_key,
                        &parsed,
                        ikey,
                        value,
                        blob,
                    )?;
                }
            }
        }
        it.next();
    }
    floated.status()?;
    l0.status()?;
    newer.status()?;
    out.outputs = up.finish(&mut out.bytes_written)?;
    out.stayed = stay.finish(&mut out.bytes_written)?;
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
