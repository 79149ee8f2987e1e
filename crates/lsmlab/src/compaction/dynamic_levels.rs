//! Dynamic level sizing (RocksDB's `level_compaction_dynamic_level_bytes`): level targets are
//! set from the last level up, so that the last level holds most of the data whatever the size
//! of the database, and the space overhead stays near 1 + 1/multiplier.
//!
//! With static targets a small database fills level 1, then level 2, and the last level is
//! nearly empty; a database that shrinks keeps its old data deep down. Here the largest level's
//! current size is the last level's target; each level above targets a multiplier less; the
//! first level whose target would fall below `max_bytes_for_level_base / multiplier` is the
//! *base level*, where level 0 compacts to, and the levels between 1 and it stay empty.
//! When level 0 is backlogged (larger than the base level's target and either larger than
//! `max_bytes_for_level_base` or at twice its compaction trigger), the base target grows to
//! level 0's size and the multiplier between the base and the last level shrinks to fit, so
//! that the backlog drains without the tree changing shape for a transient burst.

use crate::options::Options;

/// The targets of every level.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelTargets {
    /// The level that level 0 compacts into (1 when the database is large enough).
    pub base_level: usize,
    /// Target bytes per level; 0 for level 0 and for the levels above the base level (data
    /// found there, e.g. written before the option was turned on, is compacted down).
    pub max_bytes: Vec<u64>,
}

/// The targets of a tree whose levels hold `level_bytes` (index = level) with `l0_files` files
/// in level 0.
pub fn level_targets(level_bytes: &[u64], l0_files: usize, opts: &Options) -> LevelTargets {
    let n = level_bytes.len();
    let last = n.saturating_sub(1);
    let mut max_bytes = vec![0u64; n];
    let mult = opts.max_bytes_for_level_multiplier;
    let base_max = opts.max_bytes_for_level_base;
    let largest = level_bytes.iter().skip(1).copied().max().unwrap_or(0);
    let Some(first_non_empty) = (1..n).find(|&l| level_bytes[l] > 0) else {
        // An empty tree: level 0 compacts straight into the last level.
        if last > 0 {
            max_bytes[last] = base_max;
        }
        return LevelTargets {
            base_level: last,
            max_bytes,
        };
    };
    // The target of the first non-empty level if the last level's target is `largest`.
    let mut size = largest as f64;
    for _ in first_non_empty..last {
        size /= mult;
    }
    let base_min = base_max as f64 / mult;
    let mut base_level = first_non_empty;
    let mut base_size = if size <= base_min {
        base_min + 1.0
    } else {
        while base_level > 1 && size > base_max as f64 {
            base_level -= 1;
            size /= mult;
        }
        size.min(base_max as f64).max(1.0)
    };
    let mut multiplier = mult;
    let l0 = level_bytes[0] as f64;
    let backlogged =
        l0 > base_max as f64 || l0_files / 2 >= opts.level0_file_num_compaction_trigger;
    if l0 > base_size && backlogged {
        base_size = l0;
        multiplier = if base_level == last {
            1.0
        } else {
            (largest as f64 / base_size).powf(1.0 / (last - base_level) as f64)
        };
    }
    let mut level_size = base_size;
    for (l, target) in max_bytes.iter_mut().enumerate().skip(base_level) {
        if l > base_level {
            level_size *= multiplier;
        }
        // No level below max_bytes_for_level_base: a tree whose upper levels are smaller than
        // level 0 would score them ahead of level 0, which then fills and stalls writes.
        *target = (level_size.min(u64::MAX as f64) as u64).max(base_max);
    }
    LevelTargets {
        base_level,
        max_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    /// Equal but for the last byte (the targets are computed in floating point).
    fn near(a: u64, b: u64) -> bool {
        a.abs_diff(b) <= 1
    }

    fn opts() -> Options {
        Options {
            max_bytes_for_level_base: 256 * MB,
            max_bytes_for_level_multiplier: 10.0,
            num_levels: 7,
            ..Options::default()
        }
    }

    #[test]
    fn an_empty_tree_compacts_level0_into_the_last_level() {
        let t = level_targets(&[0; 7], 0, &opts());
        assert_eq!(t.base_level, 6);
        assert_eq!(t.max_bytes[6], 256 * MB);
        assert!(t.max_bytes[1..6].iter().all(|&b| b == 0));
    }

    #[test]
    fn a_small_tree_keeps_its_data_in_the_last_level() {
        // 1 GiB in the last level: level 5 would target 100 MiB (≥ 25.6 MiB), level 4 10 MiB
        // (< 25.6 MiB): the base is level 5.
        let mut bytes = [0u64; 7];
        bytes[6] = 1024 * MB;
        let t = level_targets(&bytes, 0, &opts());
        assert_eq!(t.base_level, 5);
        assert_eq!(
            t.max_bytes[5],
            256 * MB,
            "raised to max_bytes_for_level_base"
        );
        assert!(near(t.max_bytes[6], 1024 * MB));
        assert_eq!(t.max_bytes[4], 0);
    }

    #[test]
    fn a_large_tree_reaches_level1_and_targets_the_last_levels_size() {
        let mut bytes = [0u64; 7];
        bytes[6] = 10_000_000 * MB;
        bytes[5] = 900_000 * MB;
        let t = level_targets(&bytes, 0, &opts());
        assert_eq!(t.base_level, 1);
        assert!(near(t.max_bytes[6], 10_000_000 * MB));
        assert_eq!(t.max_bytes[1], 256 * MB, "level 1 capped at the base");
        assert!(t.max_bytes[5] > t.max_bytes[4] && t.max_bytes[4] > t.max_bytes[3]);
    }

    #[test]
    fn a_backlogged_level0_raises_the_base_target() {
        let mut bytes = [0u64; 7];
        bytes[6] = 1024 * MB;
        bytes[0] = 600 * MB;
        let t = level_targets(&bytes, 8, &opts());
        assert_eq!(t.base_level, 5);
        assert_eq!(t.max_bytes[5], 600 * MB);
        // The multiplier shrinks so that level 6 still targets the largest level.
        assert!(near(t.max_bytes[6], 1024 * MB), "{}", t.max_bytes[6]);
        // Not backlogged (few files, under the base size): the shape stays.
        bytes[0] = 100 * MB;
        let t = level_targets(&bytes, 2, &opts());
        assert_eq!(t.max_bytes[5], 256 * MB);
    }
}
