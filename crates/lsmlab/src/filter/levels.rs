//! Filter bits per level: which bits per key a table written to a level gets, from the uniform
//! setting, a per-level list, Monkey's allocation or `optimize_filters_for_hits`, and the
//! entries per level of the open tree ([`LiveLevels`]) that the last two need.

use super::allocation::{monkey_bits_per_key, FilterAllocation};
use super::FilterOptions;
use parking_lot::RwLock;
use std::sync::Arc;

/// The entries each level of an open database holds, kept current by the database (at every
/// new version) and read when a table's filter is sized.
///
/// Not a setting: a database opened with these options starts its own, and whatever a caller
/// put here is replaced at open. Two options compare equal whatever their trees hold.
#[derive(Clone, Default)]
pub struct LiveLevels(Arc<RwLock<Vec<u64>>>);

impl LiveLevels {
    /// Records the entries of each level, level 0 first.
    pub fn publish(&self, entries: Vec<u64>) {
        *self.0.write() = entries;
    }

    /// The entries of each level, level 0 first (empty before the first version).
    pub fn entries(&self) -> Vec<u64> {
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
    /// 0, where it lands) in a tree whose levels hold `entries` (level 0 first); 0 means no
    /// filter.
    ///
    /// In order: `optimize_filters_for_hits` gives no filter to compaction output into the
    /// deepest level that holds data (or deeper); `bits_per_key_per_level` gives its entry for
    /// the level (the last entry for deeper levels); Monkey's allocation gives the level's
    /// share of `bits_per_key`'s memory — `bits_per_key` itself while the level is empty; else
    /// `bits_per_key`.
    pub fn bits_for_level(&self, level: i32, entries: &[u64]) -> f64 {
        let at = usize::try_from(level).unwrap_or(0);
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
                let bits = monkey_bits_per_key(self.bits_per_key, entries);
                // The model can ask more of a tiny level than a filter is allowed (100 bits
                // per key, a rate of 1e-21): such a level's share of memory is negligible.
                bits[at].min(super::MAX_BITS_PER_KEY)
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

    #[test]
    fn uniform_is_the_same_everywhere() {
        let o = options();
        for level in -1..7 {
            assert_eq!(o.bits_for_level(level, TREE), 10.0);
        }
    }

    #[test]
    fn optimize_filters_for_hits_drops_the_deepest_level_with_data_only() {
        let o = FilterOptions {
            optimize_filters_for_hits: true,
            ..options()
        };
        let bits: Vec<f64> = (-1..7).map(|l| o.bits_for_level(l, TREE)).collect();
        assert_eq!(bits, [10.0, 10.0, 10.0, 10.0, 0.0, 0.0, 0.0, 0.0]);
        // A tree with data in level 0 only: its flushes keep their filters.
        assert_eq!(o.bits_for_level(-1, &[500, 0, 0]), 10.0);
        assert_eq!(o.bits_for_level(0, &[500, 0, 0]), 10.0);
        assert_eq!(o.bits_for_level(1, &[500, 0, 0]), 0.0);
        assert_eq!(o.bits_for_level(1, &[]), 0.0);
    }

    #[test]
    fn per_level_list_repeats_its_last_entry() {
        let o = FilterOptions {
            bits_per_key_per_level: vec![14.0, 12.0, 8.0],
            ..options()
        };
        let bits: Vec<f64> = (-1..6).map(|l| o.bits_for_level(l, TREE)).collect();
        assert_eq!(bits, [14.0, 14.0, 12.0, 8.0, 8.0, 8.0, 8.0]);
    }

    #[test]
    fn monkey_sizes_each_level_from_the_live_tree() {
        let o = FilterOptions {
            allocation: FilterAllocation::Monkey,
            ..options()
        };
        let bits: Vec<f64> = (0..4).map(|l| o.bits_for_level(l, TREE)).collect();
        assert_eq!(bits, monkey_bits_per_key(10.0, TREE)[..4]);
        assert!(bits[0] > bits[1] && bits[1] > bits[2] && bits[2] > bits[3]);
        assert!(
            bits[3] < 10.0,
            "the largest level gives memory away: {bits:?}"
        );
        // An empty level (the first compaction into it) gets the uniform setting.
        assert_eq!(o.bits_for_level(4, TREE), 10.0);
        assert_eq!(o.bits_for_level(-1, &[]), 10.0);
    }

    #[test]
    fn live_levels_are_shared_by_clones_and_ignored_by_equality() {
        let a = options();
        let b = a.clone();
        a.live.publish(vec![1, 2, 3]);
        assert_eq!(b.live.entries(), [1, 2, 3]);
        assert_eq!(
            a,
            FilterOptions {
                live: LiveLevels::default(),
                ..a.clone()
            }
        );
    }
}
