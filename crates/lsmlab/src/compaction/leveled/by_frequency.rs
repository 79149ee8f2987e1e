//! Victims by access frequency (`compaction_victims = LowestFrequency`): the tables gets hit
//! least leave a level first, so hot tables stay high.

use super::{busy, key_range, pick, scores, IntraL0, LeveledPolicy, Reclaim};
use crate::compaction::dynamic_levels::LevelTargets;
use crate::compaction::frequency::Frequency;
use crate::compaction::{CompactionKind, CompactionSpec, LayoutPolicy, LevelInputs, Requested};
use crate::options::Options;
use crate::version::{FileMeta, HitLocation, Version};
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Leveled compaction whose victims are the tables gets hit least
/// (`compaction_victims = LowestFrequency`): it counts each table's access frequency as FSLSM
/// does (`fslsm.frequency_window` events, an event being a get that found its key in the table
/// or the table's creation). Limits are [`LeveledPolicy`]'s.
pub struct FrequencyLeveledPolicy {
    freq: Mutex<Frequency>,
}

impl FrequencyLeveledPolicy {
    /// A policy counting frequencies over `window` events.
    pub fn new(window: usize) -> FrequencyLeveledPolicy {
        FrequencyLeveledPolicy {
            freq: Mutex::new(Frequency::new(window)),
        }
    }
}

impl LayoutPolicy for FrequencyLeveledPolicy {
    fn name(&self) -> &'static str {
        "leveled"
    }

    fn max_bytes_for_level(&self, opts: &Options, level: usize) -> u64 {
        LeveledPolicy.max_bytes_for_level(opts, level)
    }

    fn level_targets(&self, v: &Version, opts: &Options) -> LevelTargets {
        LeveledPolicy.level_targets(v, opts)
    }

    fn steady_level_bytes(&self, v: &Version, opts: &Options) -> Option<Vec<u64>> {
        LeveledPolicy.steady_level_bytes(v, opts)
    }

    fn pick_compaction(
        &self,
        v: &Version,
        opts: &Options,
        _requested: Requested,
    ) -> Option<CompactionSpec> {
        let freq = self.freq.lock();
        pick(
            self,
            v,
            opts,
            IntraL0::Allowed,
            Reclaim::Obsolete,
            Some(&freq),
        )
    }

    fn level_scores(&self, v: &Version, opts: &Options) -> Vec<f64> {
        scores(self, v, opts)
    }

    fn on_get_hit(&self, hit: HitLocation, _v: &Version) -> bool {
        self.freq.lock().event(hit.file);
        false
    }

    fn on_table_created(&self, _level: usize, number: u64) {
        self.freq.lock().event(number);
    }
}

/// Level 0 at or over its trigger, victims by frequency: up to `max(count − trigger, 1)` tables,
/// the ones gets hit least first (the oldest first among equals).
///
/// A level-0 table may leave only together with every level-0 table that overlaps it and holds
/// a version not newer than its newest (its *closure*): a table left behind must hold only
/// versions newer than those moved below it, or a get would stop at the older one. Victims are
/// therefore taken coldest first as long as their closure stays within the count; among
/// full-range flushes only the oldest goes alone, so level 0 keeps the newest flushes, while
/// narrow tables (FSLSM's floated ones) go by frequency. If no closure fits, the smallest goes.
pub(super) fn pick_level0_by_frequency(
    limits: &dyn LayoutPolicy,
    v: &Version,
    opts: &Options,
    base_level: usize,
    freq: &Frequency,
) -> Option<CompactionSpec> {
    let files = &v.levels[0];
    if files.is_empty() || busy(files) {
        return None;
    }
    let trigger = limits.level0_triggers(opts).compaction;
    let excess = files.len().saturating_sub(trigger).max(1);
    let mut order: Vec<&Arc<FileMeta>> = files.iter().collect();
    order.sort_by_cached_key(|f| (freq.of(f.number), f.largest_seq, f.number));
    let closure = |mut set: Vec<Arc<FileMeta>>| -> Vec<Arc<FileMeta>> {
        loop {
            let more: Vec<Arc<FileMeta>> = files
                .iter()
                .filter(|f| !set.iter().any(|c| c.number == f.number))
                .filter(|f| {
                    set.iter().any(|c| {
                        f.overlaps(Some(c.smallest_user()), Some(c.largest_user()))
                            && f.smallest_seq <= c.largest_seq
                    })
                })
                .cloned()
                .collect();
            if more.is_empty() {
                return set;
            }
            set.extend(more);
        }
    };
    let mut chosen: Vec<Arc<FileMeta>> = Vec::new();
    for f in &order {
        if chosen.len() >= excess {
            break;
        }
        if chosen.iter().any(|c| c.number == f.number) {
            continue;
        }
        let mut trial = chosen.clone();
        trial.push((*f).clone());
        let trial = closure(trial);
        if trial.len() <= excess {
            chosen = trial;
        }
    }
    if chosen.is_empty() {
        chosen = order
            .iter()
            .map(|f| closure(vec![(*f).clone()]))
            .min_by_key(|c| c.len())?;
    }
    // Level 0's order (newest first), as the other level-0 picks give it.
    chosen.sort_by(|a, b| {
        b.largest_seq
            .cmp(&a.largest_seq)
            .then(b.number.cmp(&a.number))
    });
    let (lo, hi) = key_range(&chosen);
    let below = v.overlapping(base_level, Some(&lo), Some(&hi));
    if busy(&below) {
        return None;
    }
    let trivial = chosen.len() == 1 && below.is_empty();
    let mut spec = CompactionSpec::two_levels(
        CompactionKind::Size,
        0,
        base_level,
        chosen,
        below,
        "L0 file count (coldest tables)",
    );
    spec.trivial_move = trivial;
    Some(spec)
}

/// Level `level` ≥ 1 at or over its limit, victims by frequency: the table gets hit least (the
/// oldest first among equals) whose overlapping tables below are free, with those tables. One
/// table a compaction: the next pick takes the next coldest while the level is still over, so
/// that outputs never span a gap between two victims where an untouched table lies below.
pub(super) fn pick_level_by_frequency(
    v: &Version,
    level: usize,
    freq: &Frequency,
) -> Option<CompactionSpec> {
    // The coldest table whose overlap below is free: candidates in order of (frequency,
    // number), the overlap computed only until one passes rather than for every table. The
    // key is looked up once per table, and the level is sorted only when the coldest table's
    // overlap is busy: with deterministic background work a pick follows every write, and
    // sorting a level of thousands of 8 KiB tables by hashed lookups each time was 70 % of a
    // write-heavy `leveldb` run's CPU on the study's shape.
    let mut candidates: Vec<((u64, u64), &Arc<FileMeta>)> = v.levels[level]
        .iter()
        .filter(|f| !f.being_compacted.load(Ordering::Relaxed))
        .map(|f| ((freq.of(f.number), f.number), f))
        .collect();
    let free_below = |f: &Arc<FileMeta>| {
        let below = v.overlapping(level + 1, Some(f.smallest_user()), Some(f.largest_user()));
        (!busy(&below)).then_some(below)
    };
    let coldest = candidates.iter().min_by_key(|(key, _)| *key)?.1;
    let (victim, below) = match free_below(coldest) {
        Some(below) => (coldest, below),
        None => {
            // Keys are unique (table numbers are), so an unstable sort gives the one order.
            candidates.sort_unstable_by_key(|(key, _)| *key);
            candidates
                .into_iter()
                .find_map(|(_, f)| free_below(f).map(|below| (f, below)))?
        }
    };
    if below.is_empty() {
        return Some(CompactionSpec {
            kind: CompactionKind::Size,
            inputs: vec![LevelInputs {
                level,
                files: vec![victim.clone()],
            }],
            output_level: level + 1,
            trivial_move: true,
            reason: "level size, coldest table (move)",
        });
    }
    Some(CompactionSpec::two_levels(
        CompactionKind::Size,
        level,
        level + 1,
        vec![victim.clone()],
        below,
        "level size, coldest table",
    ))
}
