//! Filter bits per level: which bits per key a table written to a level gets, from the uniform
//! setting, a per-level list, Monkey's allocation or `optimize_filters_for_hits`, and the
//! entries per level of the open tree ([`LiveLevels`]) that the last two need.

use super::allocation::{monkey_bits_per_key_probed, FilterAllocation};
use super::FilterOptions;
use parking_lot::RwLock;
use std::sync::Arc;

/// Most runs level 0 counts as in Monkey's allocation, far above any level-0 trigger.
pub const MAX_LEVEL0_RUNS: usize = 1 << 16;

/// What filters are sized from: the entries of each level of a tree, and how many tables level
/// 0 holds (each is a sorted run of its own that a get probes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeEntries {
    /// Entries per level, level 0 first.
    pub per_level: Vec<u64>,
    /// Tables in level 0.
    pub level0_tables: usize,
    /// The level-0 tables Monkey's allocation counts at most when it sizes a level-0 table:
    /// the tables level 0 holds when compaction keeps up with the writes (its compaction
    /// trigger); 0 counts every table. While writes outrun compaction level 0 holds many more
    /// (17 against a trigger of 4 after a fast fill), and a table sized among all of them
    /// would be sized for a debt that drains in seconds.
    pub level0_steady_tables: usize,
    /// The share of the key space each level's tables cover, level 0 first
    /// (`Version::key_space_shares`): a get of a missing key probes a level with about that
    /// probability. Empty counts every level whole (the paper's tree).
    pub key_shares: Vec<f64>,
    /// The entries each level holds when compaction keeps up (its target, at its own bytes
    /// per entry), level 0 first; a missing entry or `u64::MAX` is no bound. Monkey's
    /// allocation counts a level at most at this: a level swollen for the moment (a level 0's
    /// debt just compacted into it) would otherwise take the memory of the tables that
    /// outlive the swell.
    pub steady_entries: Vec<u64>,
}

impl TreeEntries {
    /// A tree with these entries per level and one table in level 0 if it holds any entry.
    pub fn levels(per_level: &[u64]) -> TreeEntries {
        TreeEntries {
            level0_tables: usize::from(per_level.first().is_some_and(|&n| n > 0)),
            per_level: per_level.to_vec(),
            level0_steady_tables: 0,
            key_shares: Vec::new(),
            steady_entries: Vec::new(),
        }
    }

    /// Level 0's tables: at least 1, at most one per entry and [`MAX_LEVEL0_RUNS`] (a tree
    /// published by hand may claim any number).
    fn level0_table_count(&self) -> usize {
        let entries = self.per_level.first().copied().unwrap_or(0);
        let cap = usize::try_from(entries)
            .unwrap_or(usize::MAX)
            .clamp(1, MAX_LEVEL0_RUNS);
        self.level0_tables.clamp(1, cap)
    }

    /// The runs level 0 counts as: its tables, at most `level0_steady_tables` of them.
    fn level0_runs(&self) -> usize {
        let tables = self.level0_table_count();
        match self.level0_steady_tables {
            0 => tables,
            steady => tables.min(steady),
        }
    }

    /// Each level's entries, at most its steady entries.
    fn lasting(&self) -> Vec<u64> {
        self.per_level
            .iter()
            .enumerate()
            .map(|(l, &n)| n.min(self.steady_entries.get(l).copied().unwrap_or(u64::MAX)))
            .collect()
    }

    /// The share of the keys level `level` covers (1 when not known).
    fn key_share(&self, level: usize) -> f64 {
        self.key_shares.get(level).copied().unwrap_or(1.0)
    }

    /// The share of gets of a missing key that reach each run of [`TreeEntries::runs`]: 1 for
    /// level 0's, each deeper level's share of the keys.
    fn run_shares(&self) -> Vec<f64> {
        let levels = (1..self.per_level.len()).map(|l| self.key_share(l));
        std::iter::repeat_n(1.0, self.level0_runs())
            .chain(levels)
            .collect()
    }

    /// The entries of each sorted run a get of a missing key probes: level 0's runs (each a
    /// table of the level's mean size, rounded up), then one run per deeper level.
    fn runs(&self) -> Vec<u64> {
        let l0_runs = self.level0_runs();
        let per_table = self
            .per_level
            .first()
            .map_or(0, |&l0| l0.div_ceil(self.level0_table_count() as u64));
        let mut runs = Vec::with_capacity(self.per_level.len() + l0_runs);
        if !self.per_level.is_empty() {
            runs.extend(std::iter::repeat_n(per_table, l0_runs));
        }
        runs.extend(self.lasting().iter().skip(1));
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
    /// share of `bits_per_key`'s memory — a level-0 table's in the whole tree, each level-0
    /// table a run of its own (at most `level0_steady_tables` of them), a deeper level's
    /// among the levels below level 0 only; `bits_per_key` itself while the level is empty;
    /// else `bits_per_key`.
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
                // A level-0 table is sized in the whole tree (its runs come first); a deeper
                // level's table in the levels below level 0 alone, run `at − 1`. A table's
                // filter lives as long as the table: level 0's for seconds, the deeper
                // levels' for the life of the data. Level 0's runs in the sum would hand
                // their share of memory to tables that are gone by the time the tree is
                // read, and leave the lasting levels short of uniform's memory once level 0
                // drains (docs/filters.md, "A growing tree"). Each run is weighed by the
                // share of gets that reach it.
                let bits = if at == 0 {
                    monkey_bits_per_key_probed(self.bits_per_key, &tree.runs(), &tree.run_shares())
                        [0]
                } else {
                    let lasting = tree.lasting();
                    if lasting[at] == 0 {
                        // A level that holds data only for the moment (above a dynamic base
                        // level): nothing to weigh it by.
                        return self.bits_per_key;
                    }
                    let shares: Vec<f64> = (1..entries.len()).map(|l| tree.key_share(l)).collect();
                    monkey_bits_per_key_probed(self.bits_per_key, &lasting[1..], &shares)[at - 1]
                };
                // The model can ask more of a tiny level than a filter is allowed (100 bits
                // per key, a rate of 1e-21): such a level's share of memory is negligible.
                bits.min(super::MAX_BITS_PER_KEY)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::allocation::monkey_bits_per_key;
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
        // Level 0 in the whole tree; the levels below it among themselves.
        assert_eq!(bits[0], monkey_bits_per_key(10.0, TREE)[0]);
        assert_eq!(bits[1..], monkey_bits_per_key(10.0, &TREE[1..])[..3]);
        assert!(bits[0] > bits[1] && bits[1] > bits[2] && bits[2] > bits[3]);
        assert!(
            bits[3] < 10.0,
            "the largest level gives memory away: {bits:?}"
        );
        // The levels below level 0 spend exactly uniform's memory among themselves.
        let below: f64 = (1..4).map(|l| bits[l] * TREE[l] as f64).sum();
        let uniform = 10.0 * TREE[1..].iter().sum::<u64>() as f64;
        assert!((below / uniform - 1.0).abs() < 1e-9, "{below} vs {uniform}");
        // Four level-0 tables are four runs: each counts in the sum of false positives, so
        // a level-0 table gets more bits than one run of the same entries; the levels below
        // are sized as before.
        let runs = TreeEntries {
            level0_tables: 4,
            ..tree()
        };
        let four: Vec<f64> = (0..4).map(|l| o.bits_for_level(l, &runs)).collect();
        let expected = monkey_bits_per_key(10.0, &[500, 500, 500, 500, 10_000, 100_000, 1_000_000]);
        assert_eq!(four[0], expected[0]);
        assert_eq!(four[1..], bits[1..]);
        assert!(four[0] > bits[0], "{four:?} vs {bits:?}");
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
    fn monkey_counts_level_0_at_its_steady_tables_only() {
        let o = FilterOptions {
            allocation: FilterAllocation::Monkey,
            ..options()
        };
        // Level 0 four tables deep (its trigger), and sixteen deep with the writes ahead of
        // compaction: tables of the same size either way.
        let steady = TreeEntries {
            per_level: vec![2_000, 10_000, 100_000, 1_000_000],
            level0_tables: 4,
            level0_steady_tables: 4,
            key_shares: Vec::new(),
            steady_entries: Vec::new(),
        };
        let debt = TreeEntries {
            per_level: vec![8_000, 10_000, 100_000, 1_000_000],
            level0_tables: 16,
            ..steady.clone()
        };
        let bits =
            |t: &TreeEntries| -> Vec<f64> { (0..4).map(|l| o.bits_for_level(l, t)).collect() };
        assert_eq!(bits(&debt), bits(&steady));
        // Every table counted, a level-0 table would be sized among sixteen runs.
        let uncapped = TreeEntries {
            level0_steady_tables: 0,
            ..debt.clone()
        };
        assert_ne!(bits(&uncapped)[0], bits(&debt)[0]);
        assert_eq!(bits(&uncapped)[1..], bits(&debt)[1..]);
        // Below the cap, every table counts.
        let shallow = TreeEntries {
            per_level: vec![1_000, 10_000, 100_000, 1_000_000],
            level0_tables: 2,
            ..steady.clone()
        };
        let two = TreeEntries {
            level0_steady_tables: 0,
            ..shallow.clone()
        };
        assert_eq!(bits(&shallow), bits(&two));
    }

    #[test]
    fn monkey_weighs_a_level_by_the_share_of_keys_it_covers() {
        let o = FilterOptions {
            allocation: FilterAllocation::Monkey,
            ..options()
        };
        let whole = TreeEntries::levels(&[0, 10_000, 100_000]);
        // Level 1 holds a tenth of level 2's entries over a tenth of the keys: a get that
        // reaches it finds it as dense as level 2, so the two get the same bits.
        let sliver = TreeEntries {
            key_shares: vec![1.0, 0.1, 1.0],
            ..whole.clone()
        };
        let bits =
            |t: &TreeEntries| -> Vec<f64> { (1..3).map(|l| o.bits_for_level(l, t)).collect() };
        let (w, s) = (bits(&whole), bits(&sliver));
        assert!(w[0] - w[1] > 4.0, "{w:?}");
        assert!(
            (s[0] - s[1]).abs() < 1e-9 && (s[1] - 10.0).abs() < 1e-9,
            "{s:?}"
        );
    }

    #[test]
    fn monkey_counts_a_swollen_level_at_its_steady_entries() {
        let o = FilterOptions {
            allocation: FilterAllocation::Monkey,
            ..options()
        };
        let steady = TreeEntries::levels(&[0, 10_000, 100_000]);
        // Level 1 holds five times its target for the moment.
        let swollen = TreeEntries {
            per_level: vec![0, 50_000, 100_000],
            steady_entries: vec![u64::MAX, 10_000, u64::MAX],
            ..steady.clone()
        };
        let bits =
            |t: &TreeEntries| -> Vec<f64> { (1..3).map(|l| o.bits_for_level(l, t)).collect() };
        assert_eq!(bits(&swollen), bits(&steady));
        let unbounded = TreeEntries {
            steady_entries: Vec::new(),
            ..swollen.clone()
        };
        // Unbounded, the swell would be sized as a level five times larger.
        assert!(
            bits(&unbounded)[0] < bits(&steady)[0] - 2.0,
            "{:?}",
            bits(&unbounded)
        );
        // A level whose steady size is nothing gets the uniform bits.
        let transient = TreeEntries {
            steady_entries: vec![u64::MAX, 0, u64::MAX],
            ..swollen.clone()
        };
        assert_eq!(o.bits_for_level(1, &transient), 10.0);
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
