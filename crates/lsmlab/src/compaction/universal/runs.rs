//! Sorted runs, as universal compaction sees a tree: each level-0 table is one (newest first),
//! then each non-empty level below is one. Runs are in age order, so a compaction merges a
//! contiguous stretch of them and its output takes their place.

use crate::compaction::{CompactionKind, CompactionSpec, LevelInputs};
use crate::version::{FileMeta, Version};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One sorted run: a level-0 table, or all of a level ≥ 1. It borrows the version's tables:
/// a pick follows every flush and job, and levels may hold thousands of tables.
pub(super) struct SortedRun<'a> {
    /// The level it is in.
    pub level: usize,
    /// Its tables (one for level 0; the level's, in key order, otherwise).
    pub files: &'a [Arc<FileMeta>],
    /// Bytes of its tables.
    pub size: u64,
    /// A table of it is being compacted: it cannot be picked, and no pick spans it.
    pub busy: bool,
}

/// The sorted runs of `v`, newest first.
pub(super) fn sorted_runs(v: &Version) -> Vec<SortedRun<'_>> {
    let busy = |f: &Arc<FileMeta>| f.being_compacted.load(Ordering::Relaxed);
    let mut runs: Vec<SortedRun> = v.levels[0]
        .iter()
        .map(|f| SortedRun {
            level: 0,
            files: std::slice::from_ref(f),
            size: f.size,
            busy: busy(f),
        })
        .collect();
    for (level, files) in v.levels.iter().enumerate().skip(1) {
        if files.is_empty() {
            continue;
        }
        runs.push(SortedRun {
            level,
            files,
            size: files.iter().map(|f| f.size).sum(),
            busy: files.iter().any(busy),
        });
    }
    runs
}

/// Where the merge of `runs[start..end]` goes: the last level if it takes the oldest run;
/// level 0 if the next older run is a level-0 table (the output sorts among them by sequence,
/// as a flush does); else the level just above the next older run, which is empty or one of
/// the inputs.
pub(super) fn output_level(runs: &[SortedRun<'_>], end: usize, last_level: usize) -> usize {
    match runs.get(end) {
        None => last_level,
        Some(next) if next.level == 0 => 0,
        Some(next) => next.level - 1,
    }
}

/// The compaction merging `runs[start..end]`, a trivial move when `allow_move` and the output
/// is below level 0 and no two input tables overlap.
pub(super) fn merge(
    runs: &[SortedRun<'_>],
    start: usize,
    end: usize,
    last_level: usize,
    allow_move: bool,
    reason: &'static str,
) -> CompactionSpec {
    let output_level = output_level(runs, end, last_level);
    let mut inputs: Vec<LevelInputs> = Vec::new();
    for run in &runs[start..end] {
        match inputs.last_mut() {
            Some(last) if last.level == run.level => last.files.extend(run.files.iter().cloned()),
            _ => inputs.push(LevelInputs {
                level: run.level,
                files: run.files.to_vec(),
            }),
        }
    }
    let trivial_move = allow_move && output_level > 0 && disjoint(&inputs);
    CompactionSpec {
        kind: CompactionKind::Size,
        inputs,
        output_level,
        trivial_move,
        reason,
    }
}

/// True if no two input tables share a user key, so they can lie side by side in one level.
fn disjoint(inputs: &[LevelInputs]) -> bool {
    let mut files: Vec<&Arc<FileMeta>> = inputs.iter().flat_map(|i| i.files.iter()).collect();
    files.sort_by(|a, b| a.smallest_user().cmp(b.smallest_user()));
    files
        .windows(2)
        .all(|w| w[0].largest_user() < w[1].smallest_user())
}
