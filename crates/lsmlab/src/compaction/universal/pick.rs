//! The three rules of universal compaction, tried in RocksDB's order once there are at least
//! `level0_file_num_compaction_trigger` sorted runs: size amplification, then size ratio,
//! then run count. Each picks a contiguous stretch of runs that are not being compacted.

use super::runs::{merge, SortedRun};
use crate::compaction::CompactionSpec;
use crate::options::{StopStyle, UniversalOptions};

/// What the rules need besides the runs.
pub(super) struct Limits<'a> {
    /// The parameters.
    pub opts: &'a UniversalOptions,
    /// `level0_file_num_compaction_trigger`: runs from which compaction starts, and the most
    /// runs the tree keeps.
    pub trigger: usize,
    /// The deepest level, where a merge of the oldest run goes.
    pub last_level: usize,
}

/// The compaction the rules ask for, if any.
pub(super) fn pick(runs: &[SortedRun<'_>], l: &Limits<'_>) -> Option<CompactionSpec> {
    if runs.is_empty() || runs.len() < l.trigger {
        return None;
    }
    size_amplification(runs, l)
        .or_else(|| size_ratio(runs, l))
        .or_else(|| run_count(runs, l))
}

/// Rule 1: the runs newer than the oldest, from the oldest up to the first busy one, add up
/// to at least `max_size_amplification_percent` of the oldest: merge them all into it. Width
/// limits do not apply: this is the rule that bounds space.
fn size_amplification(runs: &[SortedRun<'_>], l: &Limits<'_>) -> Option<CompactionSpec> {
    let end = runs.len() - 1;
    if runs[end].busy {
        return None;
    }
    let start = runs[..end]
        .iter()
        .rposition(|r| r.busy)
        .map_or(0, |busy| busy + 1);
    if start == end {
        return None;
    }
    let newer: u64 = runs[start..end].iter().map(|r| r.size).sum();
    let percent = u128::from(l.opts.max_size_amplification_percent);
    if u128::from(newer) * 100 < percent * u128::from(runs[end].size) {
        return None;
    }
    Some(merge(
        runs,
        start,
        runs.len(),
        l.last_level,
        l.opts.allow_trivial_move,
        "universal: size amplification",
    ))
}

/// Rule 2: from the newest run on, the first stretch of at least `min_merge_width` runs in
/// which each next older run is at most `size_ratio` % larger than the runs before it
/// together (or, with the similar-size stop style, than the last one), up to
/// `max_merge_width` runs.
fn size_ratio(runs: &[SortedRun<'_>], l: &Limits<'_>) -> Option<CompactionSpec> {
    let (start, end) = stretch(runs, l, Some(l.opts.size_ratio), u32::MAX)?;
    Some(merge(
        runs,
        start,
        end,
        l.last_level,
        l.opts.allow_trivial_move,
        "universal: size ratio",
    ))
}

/// Rule 3: more runs not being compacted than the trigger: merge the newest ones, whatever
/// their sizes, so that the trigger's count remains.
fn run_count(runs: &[SortedRun<'_>], l: &Limits<'_>) -> Option<CompactionSpec> {
    let free = runs.iter().filter(|r| !r.busy).count();
    if free <= l.trigger {
        return None;
    }
    let width = u32::try_from(free - l.trigger + 1).unwrap_or(u32::MAX);
    let (start, end) = stretch(runs, l, None, width)?;
    Some(merge(
        runs,
        start,
        end,
        l.last_level,
        l.opts.allow_trivial_move,
        "universal: sorted run count",
    ))
}

/// The first stretch `[start, end)` of free runs, newest first, that holds at least
/// `max(min_merge_width, 2)` runs when grown while `ratio` allows (`None`: any size) and
/// while it holds fewer than `min(max_merge_width, width)`.
fn stretch(
    runs: &[SortedRun<'_>],
    l: &Limits<'_>,
    ratio: Option<u32>,
    width: u32,
) -> Option<(usize, usize)> {
    let min = l.opts.min_merge_width.max(2) as usize;
    let max = l.opts.max_merge_width.min(width) as usize;
    for start in 0..runs.len() {
        if runs[start].busy {
            continue;
        }
        let mut picked = runs[start].size;
        let mut end = start + 1;
        while end < runs.len() && end - start < max && !runs[end].busy {
            let next = runs[end].size;
            if let Some(r) = ratio {
                let grown = |size: u64| size as f64 * (100.0 + f64::from(r)) / 100.0;
                if grown(picked) < next as f64 {
                    break;
                }
                if l.opts.stop_style == StopStyle::SimilarSize && grown(next) < picked as f64 {
                    break;
                }
            }
            picked = match (ratio, l.opts.stop_style) {
                (Some(_), StopStyle::SimilarSize) => next,
                _ => picked.saturating_add(next),
            };
            end += 1;
        }
        if end - start >= min {
            return Some((start, end));
        }
    }
    None
}
