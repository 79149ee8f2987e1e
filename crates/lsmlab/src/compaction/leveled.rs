//! Classic leveled compaction by bytes, as RocksDB's default: level 0 compacts into level 1 when
//! it holds `level0_file_num_compaction_trigger` files; level n ≥ 1 compacts one table into
//! level n+1 when it exceeds `max_bytes_for_level_base · multiplier^(n−1)` — or, with
//! `level_compaction_dynamic_level_bytes`, the targets of `dynamic_levels.rs`, level 0
//! compacting into the base level.
//!
//! Two options change the picker for any layout: `max_files_for_level_base` counts level i ≥ 1's
//! limit in tables instead of bytes, and `compaction_victims = LowestFrequency` compacts the
//! tables gets hit least ([`FrequencyLeveledPolicy`], `pick_level0_by_frequency`,
//! `pick_level_by_frequency`) instead of the one overlapping the next level least.
//!
//! The picker reads the limits through [`LayoutPolicy`], so a policy that moves the limits at
//! run time (FSLSM's stretch) reuses it unchanged.

use super::dynamic_levels::{level_targets, LevelTargets};
use super::frequency::Frequency;
use super::{CompactionKind, CompactionSpec, LayoutPolicy, LevelInputs};
use crate::options::Options;
use crate::version::{FileMeta, HitLocation, Version};
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The leveled policy.
#[derive(Debug, Default, Clone, Copy)]
pub struct LeveledPolicy;

/// `max_compaction_bytes` in target files: RocksDB's default of 25 × `target_file_size_base`.
const MAX_COMPACTION_FILES: u64 = 25;

/// Fewest level-0 tables an intra-L0 compaction merges (RocksDB's number too): below four, the
/// level-0 count falls by too little for the bytes rewritten.
const MIN_INTRA_L0_FILES: usize = 4;

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

fn busy(files: &[Arc<FileMeta>]) -> bool {
    files
        .iter()
        .any(|f| f.being_compacted.load(Ordering::Relaxed))
}

fn key_range(files: &[Arc<FileMeta>]) -> (Vec<u8>, Vec<u8>) {
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
    freq: Option<&Frequency>,
) -> Option<CompactionSpec> {
    let scores = scores(limits, v, opts);
    let base_level = limits.level_targets(v, opts).base_level;
    let mut order: Vec<usize> = (0..scores.len()).filter(|&l| scores[l] >= 1.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
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

/// Level 0 at or over its trigger, victims by frequency: up to `max(count − trigger, 1)` tables,
/// the ones gets hit least first (the oldest first among equals).
///
/// A level-0 table may leave only together with every level-0 table that overlaps it and holds
/// a version not newer than its newest (its *closure*): a table left behind must hold only
/// versions newer than those moved below it, or a get would stop at the older one. Victims are
/// therefore taken coldest first as long as their closure stays within the count; among
/// full-range flushes only the oldest goes alone, so level 0 keeps the newest flushes, while
/// narrow tables (FSLSM's floated ones) go by frequency. If no closure fits, the smallest goes.
fn pick_level0_by_frequency(
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
fn pick_level_by_frequency(v: &Version, level: usize, freq: &Frequency) -> Option<CompactionSpec> {
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

/// With level 0 unable to compact into the base level (a compaction of another thread holds
/// its tables or the base level's), merges the newest level-0 tables into one level-0 table,
/// as RocksDB's intra-L0 compaction: the writers' slowdown counts level-0 tables, and each
/// read positions every one. Only a second compaction thread gets here.
///
/// The run starts at the newest table and stops at the first busy one, so every table left
/// out is older than every input and the output (ordered by its largest sequence number)
/// sorts correctly among them. A table joins the run while the bytes rewritten per table
/// removed do not grow (so an older, large intra-L0 output is not rewritten for the sake of
/// a few small flushes) and the run stays within `max_compaction_bytes`.
fn pick_intra_level0(
    limits: &dyn LayoutPolicy,
    v: &Version,
    opts: &Options,
) -> Option<CompactionSpec> {
    let files = &v.levels[0];
    let trigger = limits.level0_triggers(opts).compaction;
    // RocksDB's threshold: two tables beyond the trigger, so that a level 0 the next
    // level-0 compaction will empty anyway is left alone.
    if files.len() < trigger.saturating_add(2) {
        return None;
    }
    let newest = files.first()?;
    if newest.being_compacted.load(Ordering::Relaxed) {
        return None;
    }
    let max_bytes = opts
        .target_file_size_base
        .saturating_mul(MAX_COMPACTION_FILES);
    let mut bytes = newest.size;
    let mut per_removed = u64::MAX;
    let mut n = 1;
    for f in &files[1..] {
        if f.being_compacted.load(Ordering::Relaxed) {
            break;
        }
        // `n + 1` tables become one: `n` fewer.
        let next = (bytes + f.size) / n as u64;
        if next > per_removed || bytes + f.size > max_bytes {
            break;
        }
        per_removed = next;
        bytes += f.size;
        n += 1;
    }
    if n < MIN_INTRA_L0_FILES {
        return None;
    }
    Some(CompactionSpec::two_levels(
        CompactionKind::Size,
        0,
        0,
        files[..n].to_vec(),
        Vec::new(),
        "L0 file count, base level busy (intra-L0)",
    ))
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

impl LeveledPolicy {
    fn pick_level0(&self, v: &Version, base_level: usize) -> Option<CompactionSpec> {
        let inputs0 = v.levels[0].clone();
        if inputs0.is_empty() || busy(&inputs0) {
            return None;
        }
        let (lo, hi) = key_range(&inputs0);
        let inputs1 = v.overlapping(base_level, Some(&lo), Some(&hi));
        if busy(&inputs1) {
            return None;
        }
        let trivial = inputs0.len() == 1 && inputs1.is_empty();
        let mut spec = CompactionSpec::two_levels(
            CompactionKind::Size,
            0,
            base_level,
            inputs0,
            inputs1,
            "L0 file count",
        );
        spec.trivial_move = trivial;
        Some(spec)
    }

    /// Picks the table of `level` whose overlap with the next level is smallest relative to its
    /// size (RocksDB's kMinOverlappingRatio): it rewrites the fewest bytes per byte moved down.
    fn pick_level(&self, v: &Version, level: usize, opts: &Options) -> Option<CompactionSpec> {
        let mut best: Option<(f64, Arc<FileMeta>, Vec<Arc<FileMeta>>)> = None;
        for f in &v.levels[level] {
            if f.being_compacted.load(Ordering::Relaxed) {
                continue;
            }
            let next = v.overlapping(level + 1, Some(f.smallest_user()), Some(f.largest_user()));
            if busy(&next) {
                continue;
            }
            let overlap: u64 = next.iter().map(|n| n.size).sum();
            let ratio = overlap as f64 / f.size.max(1) as f64;
            if best.as_ref().is_none_or(|b| ratio < b.0) {
                best = Some((ratio, f.clone(), next));
            }
        }
        let (_, f, next) = best?;
        if next.is_empty() {
            return Some(CompactionSpec {
                kind: CompactionKind::Size,
                inputs: vec![LevelInputs {
                    level,
                    files: self.extend_trivial_move(v, level, &f, opts),
                }],
                output_level: level + 1,
                trivial_move: true,
                reason: "level size (move)",
            });
        }
        Some(CompactionSpec::two_levels(
            CompactionKind::Size,
            level,
            level + 1,
            vec![f],
            next,
            "level size",
        ))
    }

    /// A table that overlaps nothing below moves down without being rewritten; its neighbours
    /// that lie in the same gap of the next level can move with it for free. Moving them
    /// together (up to `max_compaction_bytes`, 25 target files, as RocksDB's
    /// `TryExtendNonL0TrivialMove`) leaves the level further below its target, so the
    /// compactions into it that follow rewrite less.
    fn extend_trivial_move(
        &self,
        v: &Version,
        level: usize,
        f: &Arc<FileMeta>,
        opts: &Options,
    ) -> Vec<Arc<FileMeta>> {
        let max_bytes = opts
            .target_file_size_base
            .saturating_mul(MAX_COMPACTION_FILES);
        let files = &v.levels[level];
        let Some(pos) = files.iter().position(|g| g.number == f.number) else {
            return vec![f.clone()];
        };
        let (mut lo, mut hi) = (pos, pos);
        let mut bytes = f.size;
        let fits = |g: &Arc<FileMeta>, lo_key: &[u8], hi_key: &[u8], bytes: u64| {
            !g.being_compacted.load(Ordering::Relaxed)
                && bytes + g.size <= max_bytes
                && v.overlapping(level + 1, Some(lo_key), Some(hi_key))
                    .is_empty()
        };
        while hi + 1 < files.len()
            && fits(
                &files[hi + 1],
                files[lo].smallest_user(),
                files[hi + 1].largest_user(),
                bytes,
            )
        {
            hi += 1;
            bytes += files[hi].size;
        }
        while lo > 0
            && fits(
                &files[lo - 1],
                files[lo - 1].smallest_user(),
                files[hi].largest_user(),
                bytes,
            )
        {
            lo -= 1;
            bytes += files[lo].size;
        }
        files[lo..=hi].to_vec()
    }
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

    fn level_scores(&self, v: &Version, opts: &Options) -> Vec<f64> {
        scores(self, v, opts)
    }

    fn pick_compaction(&self, v: &Version, opts: &Options) -> Option<CompactionSpec> {
        pick(self, v, opts, IntraL0::Allowed, None)
    }
}

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

    fn pick_compaction(&self, v: &Version, opts: &Options) -> Option<CompactionSpec> {
        let freq = self.freq.lock();
        pick(self, v, opts, IntraL0::Allowed, Some(&freq))
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
