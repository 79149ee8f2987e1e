//! The share of the key space each level's tables cover, which Monkey's allocation needs: a get
//! of a missing key probes a level only where one of its tables spans the key. A leveled tree
//! in the middle of its life has levels that cover part of the keys (a level refilled by a few
//! compactions, the level above a dynamic base level), and a level that holds few entries
//! because it covers few keys is not a small level to a get that reaches it.

use super::Version;

/// Smallest share a level is given: the estimate counts whole tables of the deepest level, so
/// shares below a percent are noise of its granularity, and a level with a share of 0 would be
/// asked for unbounded bits per key.
const MIN_SHARE: f64 = 0.01;

impl Version {
    /// For each level, the share of the deepest level's entries that lie in tables whose key
    /// range meets one of the level's tables: the deepest level, holding most of the data,
    /// stands for the keys gets ask for. 1 for level 0 (each of its tables spans what was
    /// written while it filled), for the deepest level, for empty levels and for a level that
    /// meets none of the deepest level's tables (nothing to measure it by).
    pub fn key_space_shares(&self) -> Vec<f64> {
        let mut shares = vec![1.0; self.levels.len()];
        let Some(deepest) = self.levels.iter().rposition(|files| !files.is_empty()) else {
            return shares;
        };
        let bottom = &self.levels[deepest];
        let total: u64 = bottom.iter().map(|f| f.num_entries).sum();
        if deepest == 0 || total == 0 {
            return shares;
        }
        for (level, share) in shares.iter_mut().enumerate().take(deepest).skip(1) {
            let files = &self.levels[level];
            if files.is_empty() {
                continue;
            }
            let covered: u64 = bottom
                .iter()
                .filter(|t| {
                    // The first table of `level` that does not end before `t` starts.
                    let at = files.partition_point(|f| f.largest_user() < t.smallest_user());
                    files
                        .get(at)
                        .is_some_and(|f| f.smallest_user() <= t.largest_user())
                })
                .map(|t| t.num_entries)
                .sum();
            if covered > 0 {
                *share = (covered as f64 / total as f64).clamp(MIN_SHARE, 1.0);
            }
        }
        shares
    }
}
