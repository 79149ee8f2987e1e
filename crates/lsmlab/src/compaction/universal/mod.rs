//! Universal (tiered) compaction, as RocksDB's `kCompactionStyleUniversal`
//! (docs/compaction.md): the tree is a list of sorted runs in age order — each level-0 table,
//! then each non-empty level — and a compaction merges a contiguous stretch of them into one
//! run (`runs.rs`), picked by size amplification, size ratio or run count (`pick.rs`). Levels
//! have no byte targets: a level ≥ 1 holds one run or none, and the last level the oldest.
//!
//! Everything else — jobs, install, stall triggers on level-0 tables — is the engine's, through
//! the seam's defaults.

mod pick;
mod runs;

use super::{CompactionSpec, LayoutPolicy, Requested};
use crate::options::{Options, UniversalOptions};
use crate::version::Version;

/// The universal compaction policy.
pub struct UniversalPolicy {
    opts: UniversalOptions,
}

impl UniversalPolicy {
    /// A policy with parameters `opts`.
    pub fn new(opts: &UniversalOptions) -> UniversalPolicy {
        UniversalPolicy { opts: opts.clone() }
    }
}

impl LayoutPolicy for UniversalPolicy {
    fn steady_level_bytes(&self, _: &Version, _: &Options) -> Option<Vec<u64>> {
        None // sorted runs of any size, no level targets
    }

    fn name(&self) -> &'static str {
        "universal"
    }

    /// No level has a byte target: a level holds one sorted run whatever its size.
    fn max_bytes_for_level(&self, _opts: &Options, _level: usize) -> u64 {
        u64::MAX
    }

    fn pick_compaction(
        &self,
        v: &Version,
        opts: &Options,
        _requested: Requested,
    ) -> Option<CompactionSpec> {
        let limits = pick::Limits {
            opts: &self.opts,
            trigger: self.level0_triggers(opts).compaction,
            last_level: v.levels.len().saturating_sub(1),
        };
        pick::pick(&runs::sorted_runs(v), &limits)
    }

    /// As RocksDB scores universal compaction: level 0 holds the sorted runs not being
    /// compacted over the trigger; the other levels score 0.
    fn level_scores(&self, v: &Version, opts: &Options) -> Vec<f64> {
        let free = runs::sorted_runs(v).iter().filter(|r| !r.busy).count();
        let trigger = self.level0_triggers(opts).compaction.max(1);
        (0..v.levels.len())
            .map(|l| {
                if l == 0 {
                    free as f64 / trigger as f64
                } else {
                    0.0
                }
            })
            .collect()
    }
}
