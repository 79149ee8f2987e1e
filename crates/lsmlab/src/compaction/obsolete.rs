//! Obsolete versions under a level that stays below its target, and the compactions that drop
//! them.
//!
//! Leveled compaction moves a level down only when it outgrows its target. When writes put new
//! versions into level n of keys that level n+1 already holds, and level n then stays under its
//! target, the old versions below are never dropped: the tree keeps two copies of those keys.
//! Seed 000's 16 KB cells end that way: the fill's level 1 moved into an empty level 2, the
//! overwrite wrote a second copy of every key into level 1, and the database held 57,400
//! entries for 35,300 keys, 1.6 times RocksDB's size on disk.
//!
//! To see them, a compaction into level n ≥ 1 samples the keys it writes (one new user key in
//! [`SAMPLE_STRIDE`]) and asks the filter of the deeper tables covering each whether it may
//! hold the key. The hits, scaled to the table's keys, are the entries below that the table
//! hides ([`NewFile::shadowed_below`](crate::version::NewFile), kept in the MANIFEST). They stay
//! true while the table lives: the versions it hides leave only when it, or what it is merged
//! into, meets them. Level 0 is left out: its tables compact down at a count, not a size.
//!
//! The picker sums them per level, in bytes at the deeper levels' mean entry size. Once the sum
//! passes `max_obsolete_percent` of the live bytes, the level hiding the most compacts its
//! table that hides the most into the next level, whatever that level's size. The score is
//! the sum over its allowance, so it ranks with the levels' size scores.
//!
//! An estimate, with its limits: a filter's false positives count as hidden keys (about 1 % per
//! level at 10 bits per key), and tables without a filter (`optimize_filters_for_hits`' last
//! level, `bloom_bits = 0`) hide nothing that is counted.

use super::leveled::busy;
use super::{CompactionKind, CompactionSpec, LevelInputs};
use crate::filter::key_hash;
use crate::table_cache::TableCache;
use crate::version::{FileMeta, Version};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One new user key in this many is looked up below. At 1 KB values an 8 MiB table has about
/// 8,000 keys, so about 500 samples: the estimate of a share of a half is within ±4.5 % (two
/// standard errors). A sample costs a filter probe per deeper level (about 0.1 µs each).
pub(crate) const SAMPLE_STRIDE: u64 = 16;

/// Samples the keys of the tables one compaction writes into `output_level` against the
/// filters of the levels below it.
pub(crate) struct ShadowSampler<'a> {
    /// The non-empty levels below the output, each sorted by key.
    below: Vec<&'a [Arc<FileMeta>]>,
    tables: &'a TableCache,
    /// New user keys of the current output table.
    keys: u64,
    /// Of those, the ones looked up below, and those some filter below may hold.
    sampled: u64,
    hits: u64,
}

impl<'a> ShadowSampler<'a> {
    /// A sampler for outputs into `output_level` of a compaction picked from `v`; it samples
    /// nothing into level 0 or when no level below holds a table.
    pub(crate) fn new(v: &'a Version, output_level: usize, tables: &'a TableCache) -> Self {
        let below = if output_level == 0 {
            Vec::new()
        } else {
            v.levels
                .iter()
                .skip(output_level + 1)
                .filter(|files| !files.is_empty())
                .map(|files| files.as_slice())
                .collect()
        };
        ShadowSampler {
            below,
            tables,
            keys: 0,
            sampled: 0,
            hits: 0,
        }
    }

    /// The output took the first (newest) version of `user_key`.
    pub(crate) fn new_key(&mut self, user_key: &[u8]) {
        self.keys += 1;
        if self.below.is_empty() || !(self.keys - 1).is_multiple_of(SAMPLE_STRIDE) {
            return;
        }
        self.sampled += 1;
        let hash = key_hash(user_key);
        let held = self.below.iter().any(|files| {
            let i = files.partition_point(|f| f.largest_user() < user_key);
            files.get(i).is_some_and(|f| {
                f.smallest_user() <= user_key
                    // A table that cannot be opened here is found by the reads that need it;
                    // the estimate only counts it as holding nothing.
                    && f.reader(self.tables)
                        .ok()
                        .and_then(|r| r.filter_may_hold(hash))
                        .unwrap_or(false)
            })
        });
        if held {
            self.hits += 1;
        }
    }

    /// The entries below that the output table just finished hides, estimated; the counts
    /// start again for the next table.
    pub(crate) fn table_done(&mut self) -> u64 {
        let estimate = if self.sampled == 0 {
            0
        } else {
            (self.hits as f64 * self.keys as f64 / self.sampled as f64).round() as u64
        };
        (self.keys, self.sampled, self.hits) = (0, 0, 0);
        estimate
    }
}

/// Bytes of deeper levels that each level's tables hide, level 0 and the empty levels at 0:
/// each table's estimate at the mean entry size of the levels below it, at most their bytes.
pub(crate) fn hidden_bytes(v: &Version) -> Vec<u64> {
    let n = v.levels.len();
    let mut hidden = vec![0u64; n];
    // Bytes and entries of the levels below each level, from the last up.
    let (mut bytes_below, mut entries_below) = (0u64, 0u64);
    for l in (1..n).rev() {
        if entries_below > 0 {
            let per_entry = bytes_below as f64 / entries_below as f64;
            let entries: u64 = v.levels[l].iter().map(|f| f.shadowed_below).sum();
            hidden[l] = ((entries as f64 * per_entry) as u64).min(bytes_below);
        }
        bytes_below += v.levels[l].iter().map(|f| f.size).sum::<u64>();
        entries_below += v.levels[l].iter().map(|f| f.num_entries).sum::<u64>();
    }
    hidden
}

/// How far the hidden bytes are past their allowance, `max_obsolete_percent` of the live
/// bytes (every table's bytes less the hidden): at 1 or more a reclaiming compaction is due.
/// 0 when the allowance is 0 (off).
pub(crate) fn score(v: &Version, max_obsolete_percent: u32) -> f64 {
    if max_obsolete_percent == 0 {
        return 0.0;
    }
    let hidden: u64 = hidden_bytes(v).iter().sum();
    if hidden == 0 {
        return 0.0;
    }
    let total: u64 = (0..v.levels.len()).map(|l| v.level_bytes(l)).sum();
    let live = total.saturating_sub(hidden).max(1);
    hidden as f64 / (live as f64 * f64::from(max_obsolete_percent) / 100.0)
}

/// The reclaiming compaction: in the level whose tables hide the most bytes, the table that
/// hides the most entries (and is free, with its overlap below), merged into the next level;
/// moved down when nothing there overlaps it (what it hides lies deeper).
pub(crate) fn pick(v: &Version) -> Option<CompactionSpec> {
    let hidden = hidden_bytes(v);
    let mut levels: Vec<usize> = (1..v.levels.len() - 1).filter(|&l| hidden[l] > 0).collect();
    levels.sort_by_key(|&l| std::cmp::Reverse(hidden[l]));
    levels.into_iter().find_map(|level| {
        let mut candidates: Vec<&Arc<FileMeta>> = v.levels[level]
            .iter()
            .filter(|f| f.shadowed_below > 0 && !f.being_compacted.load(Ordering::Relaxed))
            .collect();
        candidates.sort_by_key(|f| std::cmp::Reverse(f.shadowed_below));
        candidates.into_iter().find_map(|f| {
            let next = v.overlapping(level + 1, Some(f.smallest_user()), Some(f.largest_user()));
            if busy(&next) {
                return None;
            }
            if next.is_empty() {
                return Some(CompactionSpec {
                    kind: CompactionKind::Size,
                    inputs: vec![LevelInputs {
                        level,
                        files: vec![f.clone()],
                    }],
                    output_level: level + 1,
                    trivial_move: true,
                    reason: "obsolete versions below (move)",
                });
            }
            Some(CompactionSpec::two_levels(
                CompactionKind::Size,
                level,
                level + 1,
                vec![f.clone()],
                next,
                "obsolete versions below",
            ))
        })
    })
}
