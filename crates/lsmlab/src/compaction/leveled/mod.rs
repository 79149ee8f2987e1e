//! Classic leveled compaction by bytes, as RocksDB's default: level 0 compacts into level 1 when
//! it holds `level0_file_num_compaction_trigger` files; level n ≥ 1 compacts one table into
//! level n+1 when it exceeds `max_bytes_for_level_base · multiplier^(n−1)` — or, with
//! `level_compaction_dynamic_level_bytes`, the targets of `dynamic_levels.rs`, level 0
//! compacting into the base level.
//!
//! The pick here ranks levels by score and asks one of two victim choices: the table
//! overlapping the next level least (`min_overlap.rs`, RocksDB's), or the tables gets hit
//! least (`by_frequency.rs`, [`FrequencyLeveledPolicy`], `compaction_victims =
//! LowestFrequency`). When level 0 cannot leave, `intra_l0.rs` merges it within itself. When
//! the obsolete versions that upper tables hide pass `max_obsolete_percent` of the live data,
//! `obsolete.rs` picks a table to merge down whatever its level's size.
//! `max_files_for_level_base` counts level i ≥ 1's limit in tables instead of bytes.
//!
//! The picker reads the limits through [`LayoutPolicy`], so a policy that moves the limits at
//! run time (FSLSM's stretch) reuses it unchanged.

mod by_frequency;
mod intra_l0;
mod min_overlap;

pub use by_frequency::FrequencyLeveledPolicy;

use super::dynamic_levels::{level_targets, LevelTargets};
use super::frequency::Frequency;
use super::obsolete;
use super::{CompactionSpec, LayoutPolicy, Requested};
use crate::options::Options;
use crate::version::{FileMeta, Version};
use by_frequency::{pick_level0_by_frequency, pick_level_by_frequency};
use intra_l0::pick_intra_level0;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The leveled policy.
#[derive(Debug, Default, Clone, Copy)]
pub struct LeveledPolicy;

/// `max_compaction_bytes` in target files: RocksDB's default of 25 × `target_file_size_base`.
pub(super) const MAX_COMPACTION_FILES: u64 = 25;

/// Whether [`pick`] compacts a table down to drop the obsolete versions it hides, though its
/// level is under its target (`obsolete.rs`, past `max_obsolete_percent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reclaim {
    /// Yes: the tree's levels hold versions in key order, newest above.
    Obsolete,
    /// No: FSLSM floats tables up, so a table may sit above newer versions of its keys and
    /// the estimate of what it hides, made where it was written, no longer holds.
    Never,
}

/// Whether [`pick`] may merge level-0 tables into one level-0 table when level 0 cannot
/// compact into the base level (its tables or the base level's are busy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntraL0 {
    /// Allowed: level 0 holds flushes and earlier intra-L0 outputs only, whose sequence ranges
    /// do not interleave.
    Allowed,
    /// Not allowed: a float-up puts older sequence ranges into level 0, and an output spanning
    /// a run of level-0 tables could then sort above a table that holds newer versions.
    Never,
}

pub(in crate::compaction) fn busy(files: &[Arc<FileMeta>]) -> bool {
    files
        .iter()
        .any(|f| f.being_compacted.load(Ordering::Relaxed))
}

pub(super) fn key_range(files: &[Arc<FileMeta>]) -> (Vec<u8>, Vec<u8>) {
    let lo = files
        .iter()
        .map(|f| f.smallest_user())
        .min()
        .unwrap_or_default();
    let hi = files
        .iter()
        .map(|f| f.largest_user())
        .max()
        .unwrap_or_default();
    (lo.to_vec(), hi.to_vec())
}

/// The leveled pick under `limits`' current limits. With `freq`, victims are chosen by access
/// frequency (`compaction_victims = LowestFrequency`), else by overlap.
pub(crate) fn pick(
    limits: &dyn LayoutPolicy,
    v: &Version,
    opts: &Options,
    intra_l0: IntraL0,
    reclaim: Reclaim,
    freq: Option<&Frequency>,
) -> Option<CompactionSpec> {
    let scores = scores(limits, v, opts);
    let base_level = limits.level_targets(v, opts).base_level;
    let mut order: Vec<usize> = (0..scores.len()).filter(|&l| scores[l] >= 1.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let reclaim_score = match reclaim {
        Reclaim::Obsolete => obsolete::score(v, opts.max_obsolete_percent),
        Reclaim::Never => 0.0,
    };
    // Ranked with the size scores: before them when further past its allowance than the most
    // urgent level is past its limit, else when none of them can run.
    let reclaim_due = reclaim_score >= 1.0;
    if reclaim_due && order.first().is_none_or(|&l| reclaim_score > scores[l]) {
        if let Some(spec) = obsolete::pick(v) {
            return Some(spec);
        }
    }
    by_size(limits, v, opts, intra_l0, freq, base_level, order)
        .or_else(|| reclaim_due.then(|| obsolete::pick(v)).flatten())
}

/// The pick among the levels over their limits, most urgent first (`order`).
fn by_size(
    limits: &dyn LayoutPolicy,
    v: &Version,
    opts: &Options,
    intra_l0: IntraL0,
    freq: Option<&Frequency>,
    base_level: usize,
    order: Vec<usize>,
) -> Option<CompactionSpec> {
    if let Some(freq) = freq {
        return order.into_iter().find_map(|level| {
            if level == 0 {
                pick_level0_by_frequency(limits, v, opts, base_level, freq).or_else(|| {
                    match intra_l0 {
                        IntraL0::Allowed => pick_intra_level0(limits, v, opts),
                        IntraL0::Never => None,
                    }
                })
            } else {
                pick_level_by_frequency(v, level, freq)
            }
        });
    }
    // A trivial move writes nothing and leaves its level smaller for the compactions into
    // it that follow (level 0 into level 1 rewrites all of level 1 it overlaps): do any
    // that is due before the most urgent rewrite.
    let moves = order.iter().filter(|&&l| l > 0).find_map(|&level| {
        LeveledPolicy
            .pick_level(v, level, opts)
            .filter(|s| s.trivial_move)
    });
    if moves.is_some() {
        return moves;
    }
    order.into_iter().find_map(|level| {
        if level == 0 {
            LeveledPolicy
                .pick_level0(v, base_level)
                .or_else(|| match intra_l0 {
                    IntraL0::Allowed => pick_intra_level0(limits, v, opts),
                    IntraL0::Never => None,
                })
        } else {
            LeveledPolicy.pick_level(v, level, opts)
        }
    })
}

/// Each level's score under `limits`' current limits: level 0 by file count against its
/// compaction trigger, the others by bytes against their target; the last level scores 0.
pub(crate) fn scores(limits: &dyn LayoutPolicy, v: &Version, opts: &Options) -> Vec<f64> {
    let last = v.levels.len() - 1;
    let l0_trigger = limits.level0_triggers(opts).compaction.max(1);
    let targets = limits.level_targets(v, opts);
    (0..v.levels.len())
        .map(|l| {
            if l == 0 {
                let n = v.levels[0]
                    .iter()
                    .filter(|f| !f.being_compacted.load(Ordering::Relaxed))
                    .count();
                n as f64 / l0_trigger as f64
            } else if l == last {
                0.0 // the last level has nowhere to go
            } else if opts.max_files_for_level_base > 0 {
                let n = v.levels[l]
                    .iter()
                    .filter(|f| !f.being_compacted.load(Ordering::Relaxed))
                    .count();
                n as f64 / limits.max_files_for_level(opts, l).max(1) as f64
            } else {
                let bytes: u64 = v.levels[l]
                    .iter()
                    .filter(|f| !f.being_compacted.load(Ordering::Relaxed))
                    .map(|f| f.size)
                    .sum();
                match targets.max_bytes[l] {
                    // Above the base level (dynamic sizing): whatever is there moves down.
                    0 if bytes > 0 => 1.0 + bytes as f64 / opts.max_bytes_for_level_base as f64,
                    0 => 0.0,
                    target => bytes as f64 / target as f64,
                }
            }
        })
        .collect()
}

impl LayoutPolicy for LeveledPolicy {
    fn name(&self) -> &'static str {
        "leveled"
    }

    fn max_bytes_for_level(&self, opts: &Options, level: usize) -> u64 {
        let mut bytes = opts.max_bytes_for_level_base as f64;
        for _ in 1..level {
            bytes *= opts.max_bytes_for_level_multiplier;
        }
        bytes.min(u64::MAX as f64) as u64
    }

    fn level_targets(&self, v: &Version, opts: &Options) -> LevelTargets {
        if !opts.level_compaction_dynamic_level_bytes {
            return LevelTargets {
                base_level: 1,
                max_bytes: (0..v.levels.len())
                    .map(|l| {
                        if l == 0 {
                            0
                        } else {
                            self.max_bytes_for_level(opts, l)
                        }
                    })
                    .collect(),
            };
        }
        let bytes: Vec<u64> = (0..v.levels.len()).map(|l| v.level_bytes(l)).collect();
        level_targets(&bytes, v.levels[0].len(), opts)
    }

    fn steady_level_bytes(&self, v: &Version, opts: &Options) -> Option<Vec<u64>> {
        if !opts.level_compaction_dynamic_level_bytes {
            return Some(self.level_targets(v, opts).max_bytes);
        }
        // Level 0 left out: the dynamic base level grows with level 0's bytes so that a deep
        // level 0 can drain, a swell that is not the tree's steady shape.
        let mut bytes: Vec<u64> = (0..v.levels.len()).map(|l| v.level_bytes(l)).collect();
        bytes[0] = 0;
        Some(level_targets(&bytes, 0, opts).max_bytes)
    }

    fn level_scores(&self, v: &Version, opts: &Options) -> Vec<f64> {
        scores(self, v, opts)
    }

    fn pick_compaction(
        &self,
        v: &Version,
        opts: &Options,
        _requested: Requested,
    ) -> Option<CompactionSpec> {
        pick(self, v, opts, IntraL0::Allowed, Reclaim::Obsolete, None)
    }
}
