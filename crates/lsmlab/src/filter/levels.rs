//! Filter bits per level: which bits per key a table written to a level gets, from the uniform
//! setting, a per-level list, Monkey's allocation or `optimize_filters_for_hits`, and the
//! entries per level of the open tree ([`LiveLevels`]) that the last two need.

use super::allocation::{monkey_bits_per_key, FilterAllocation};
use super::FilterOptions;
use parking_lot::RwLock;
use std::sync::Arc;

/// Most runs level 0 counts as in Monkey's allocation, far above any level-0 trigger.
pub const MAX_LEVEL0_RUNS: usize = 1 << 16;

/// What filters are sized from: the entries of each level of a tree, and how many tables level
/// 0 holds (each is a sorted run of its own that a get probes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeEntries {
    /// Entries per level, level 0 first.
    pub per_level: Vec<u64>,
    /// Tables in level 0.
    pub level0_tables: usize,
}

impl TreeEntries {
    /// A tree with these entries per level and one table in level 0 if it holds any entry.
    pub fn levels(per_level: &[u64]) -> TreeEntries {
        TreeEntries {
            level0_tables: usize::from(per_level.first().is_some_and(|&n| n > 0)),
            per_level: per_level.to_vec(),
        }
    }

    /// The runs level 0 counts as: its tables, at least 1, at most one per entry and
    /// [`MAX_LEVEL0_RUNS`] (a tree published by hand may claim any number).
    fn level0_runs(&self) -> usize {
        let entries = self.per_level.first().copied().unwrap_or(0);
        let cap = usize::try_from(entries)
            .unwrap_or(usize::MAX)
            .clamp(1, MAX_LEVEL0_RUNS);
        self.level0_tables.clamp(1, cap)
    }

    /// The entries of each sorted run a get of a missing key probes: level 0's tables (the
    /// level's entries split evenly, rounded up), then one run per deeper level.
    fn runs(&self) -> Vec<u64> {
        let l0_runs = self.level0_runs();
        let mut runs = Vec::with_capacity(self.per_level.len() + l0_runs);
        if let Some(&l0) = self.per_level.first() {
            runs.extend(std::iter::repeat_n(l0.div_ceil(l0_runs as u64), l0_runs));
        }
        runs.extend(self.per_level.iter().skip(1));
        runs
    }
}

/// The [`TreeEntries`] of an open database, kept current by the database (at every new
/// version) and read when a table's filter is sized.
///
/// Not a setting: a database opened with these options starts its own, and whatever a caller
/// put here is replaced at open. Two options compare equal whatever their trees hold.
#[derive(Clone, Default)]
pub struct LiveLevels(Arc<RwLock<TreeEntries>>);

impl LiveLevels {
    /// Records the tree's entries.
    pub fn publish(&self, tree: TreeEntries) {
        *self.0.write() = tree;
    }

    /// The tree's entries (none before the first version).
    pub fn get(&self) -> TreeEntries {
        self.0.read().clone()
    }
}

impl PartialEq for LiveLevels {
    fn eq(&self, _: &LiveLevels) -> bool {
        true
    }
}

impl std::fmt::Debug for LiveLevels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LiveLevels").field(&*self.0.read()).finish()
    }
}

impl FilterOptions {
    /// Bits per key of a table written to `level` (a flush is level −1 and is sized as level
    /// 0, where it lands) in the tree `tree`; 0 means no filter.
    ///
    /// In order: `optimize_filters_for_hits` gives no filter to compaction output into the
    /// deepest level that holds data (or deeper); `bits_per_key_per_level` gives its entry for
    /// the level (the last entry for deeper levels); Monkey's allocation gives the level's
    /// share of `bits_per_key`'s memory, each level-0 table counted as a run of its own —
    /// `bits_per_key` itself while the level is empty; else `bits_per_key`.
    pub fn bits_for_level(&self, level: i32, tree: &TreeEntries) -> f64 {
        let at = usize::try_from(level).unwrap_or(0);
        let entries = &tree.per_level;
        if self.optimize_filters_for_hits && level >= 1 {
            let deepest = entries.iter().rposition(|&n| n > 0).unwrap_or(0);
            if at >= deepest {
                return 0.0;
            }
        }
        if let Some(&last) = self.bits_per_key_per_level.last() {
            return *self.bits_per_key_per_level.get(at).unwrap_or(&last);
        }
        match self.allocation {
            FilterAllocation::Uniform => self.bits_per_key,
            FilterAllocation::Monkey => {
                if entries.get(at).copied().unwrap_or(0) == 0 {
                    return self.bits_per_key;
                }
                let bits = monkey_bits_per_key(self.bits_per_key, &tree.runs());
                // Level 0's runs come first and are alike: level `at` ≥ 1 is run
                // `at − 1` after them.
                let run = if at == 0 {
                    0
                } else {
                    tree.level0_runs() + at - 1
                };
                // The model can ask more of a tiny level than a filter is allowed (100 bits
                // per key, a rate of 1e-21): such a level's share of memory is negligible.
                bits[run].min(super::MAX_BITS_PER_KEY)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> FilterOptions {
        FilterOptions {
            bits_per_key: 10.0,
            ..FilterOptions::default()
        }
    }

    const TREE: &[u64] = &[2_000, 10_000, 100_000, 1_000_000, 0, 0, 0];

    fn tree() -> TreeEntries {
        TreeEntries::levels(TREE)
    }

    #[test]
    fn uniform_is_the_same_everywhere() {
        let o = options();
        for level in -1..7 {
            assert_eq!(o.bits_for_level(level, &tree()), 10.0);
        }
    }

    #[test]
    fn optimize_filters_for_hits_drops_the_deepest_level_with_data_only() {
        let o = FilterOptions {
            optimize_filters_for_hits: true,
            ..options()
        };
        let bits: Vec<f64> = (-1..7).map(|l| o.bits_for_level(l, &tree())).collect();
        assert_eq!(bits, [10.0, 10.0, 10.0, 10.0, 0.0, 0.0, 0.0, 0.0]);
        // A tree with data in level 0 only: its flushes keep their filters.
        assert_eq!(
            o.bits_for_level(-1, &TreeEntries::levels(&[500, 0, 0])),
            10.0
        );
        assert_eq!(
            o.bits_for_level(0, &TreeEntries::levels(&[500, 0, 0])),
            10.0
        );
        assert_eq!(o.bits_for_level(1, &TreeEntries::levels(&[500, 0, 0])), 0.0);
        assert_eq!(o.bits_for_level(1, &TreeEntries::default()), 0.0);
    }

    #[test]
    fn per_level_list_repeats_its_last_entry() {
        let o = FilterOptions {
            bits_per_key_per_level: vec![14.0, 12.0, 8.0],
            ..options()
        };
        let bits: Vec<f64> = (-1..6).map(|l| o.bits_for_level(l, &tree())).collect();
        assert_eq!(bits, [14.0, 14.0, 12.0, 8.0, 8.0, 8.0, 8.0]);
    }

    #[test]
    fn monkey_sizes_each_level_from_the_live_tree() {
        let o = FilterOptions {
            allocation: FilterAllocation::Monkey,
            ..options()
        };
        let bits: Vec<f64> = (0..4).map(|l| o.bits_for_level(l, &tree())).collect();
        assert_eq!(bits, monkey_bits_per_key(10.0, TREE)[..4]);
        assert!(bits[0] > bits[1] && bits[1] > bits[2] && bits[2] > bits[3]);
        assert!(
            bits[3] < 10.0,
            "the largest level gives memory away: {bits:?}"
        );
        // Four level-0 tables are four runs: each counts in the sum of false positives, so
        // level 0 gets more bits than as one run of the same entries, and the others fewer.
        let runs = TreeEntries {
            level0_tables: 4,
            ..tree()
        };
        let four: Vec<f64> = (0..4).map(|l| o.bits_for_level(l, &runs)).collect();
        let mut expected =
            monkey_bits_per_key(10.0, &[500, 500, 500, 500, 10_000, 100_000, 1_000_000]);
        expected.drain(1..4);
        assert_eq!(four, expected[..4]);
        assert!(
            four[0] > bits[0] && four[3] < bits[3],
            "{four:?} vs {bits:?}"
        );
        // A tree published by hand with absurd counts is sized, not a panic.
        let absurd = TreeEntries {
            level0_tables: usize::MAX,
            ..tree()
        };
        assert!(o.bits_for_level(0, &absurd) > 0.0);
        assert!(o.bits_for_level(3, &absurd).is_finite());
        // An empty level (the first compaction into it) gets the uniform setting.
        assert_eq!(o.bits_for_level(4, &tree()), 10.0);
        assert_eq!(o.bits_for_level(-1, &TreeEntries::default()), 10.0);
    }

    #[test]
    fn live_levels_are_shared_by_clones_and_ignored_by_equality() {
        let a = options();
        let b = a.clone();
        a.live.publish(TreeEntries::levels(&[1, 2, 3]));
        assert_eq!(b.live.get(), TreeEntries::levels(&[1, 2, 3]));
        assert_eq!(
            a,
            FilterOptions {
                live: LiveLevels::default(),
                ..a.clone()
            }
        );
    }
}
