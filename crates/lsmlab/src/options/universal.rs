//! Parameters of universal (tiered) compaction, RocksDB's `CompactionOptionsUniversal` with its
//! defaults and db_bench's `--universal_*` names. Used when [`Options::layout`] is
//! [`Layout::Universal`](super::Layout::Universal); the rules they tune are in
//! docs/compaction.md.
//!
//! [`Options::layout`]: super::Options::layout

use super::{invalid, CompactionVictims, Options};
use crate::error::Result;

/// When a size-ratio run of sorted runs stops growing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopStyle {
    /// A run joins while it is at most `size_ratio` % larger than all the runs picked so far
    /// together (RocksDB's `kCompactionStopStyleTotalSize`, the default).
    #[default]
    TotalSize,
    /// A run joins while it and the last run picked are within `size_ratio` % of each other
    /// (`kCompactionStopStyleSimilarSize`): merges runs of similar size only.
    SimilarSize,
}

impl StopStyle {
    /// Parses db_bench's `--universal_stop_style` values: `0` (total size) or `1` (similar
    /// size).
    pub fn parse(s: &str) -> Result<StopStyle> {
        match s {
            "0" | "total_size" => Ok(StopStyle::TotalSize),
            "1" | "similar_size" => Ok(StopStyle::SimilarSize),
            other => Err(invalid(
                "universal_stop_style",
                format!("{other:?}"),
                "allowed: 0 (total size), 1 (similar size)",
            )),
        }
    }
}

/// Universal compaction's parameters; defaults are RocksDB's.
#[derive(Debug, Clone, PartialEq)]
pub struct UniversalOptions {
    /// Percent by which the next older sorted run may exceed the runs picked so far and still
    /// join a size-ratio compaction. Larger merges more runs at a time (fewer runs, more
    /// rewriting); 0 merges only runs no larger than those before them. Default: 1.
    pub size_ratio: u32,
    /// Fewest sorted runs a size-ratio or run-count compaction merges (2 at least, whatever is
    /// set). Raise it to merge less often but more at a time. Default: 2.
    pub min_merge_width: u32,
    /// Most sorted runs a size-ratio or run-count compaction merges. Lower it to bound one
    /// compaction's size. Default: `u32::MAX` (no limit).
    pub max_merge_width: u32,
    /// Size amplification allowed, in percent: when the runs newer than the oldest add up to
    /// at least this percent of the oldest, all runs are merged into one. Lower bounds space
    /// (and rewrites more); larger lets the tree grow more runs. Default: 200.
    pub max_size_amplification_percent: u32,
    /// Move the picked runs' tables to the output level without rewriting them when no two of
    /// them overlap (sequential inserts). Default: false.
    pub allow_trivial_move: bool,
    /// When a size-ratio run stops growing. Default: [`StopStyle::TotalSize`].
    pub stop_style: StopStyle,
}

impl Default for UniversalOptions {
    fn default() -> Self {
        UniversalOptions {
            size_ratio: 1,
            min_merge_width: 2,
            max_merge_width: u32::MAX,
            max_size_amplification_percent: 200,
            allow_trivial_move: false,
            stop_style: StopStyle::TotalSize,
        }
    }
}

impl UniversalOptions {
    /// Checks every parameter; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        if self.max_merge_width < 2 {
            return Err(invalid(
                "universal_max_merge_width",
                self.max_merge_width,
                "must be at least 2 (a compaction merges two sorted runs or more)",
            ));
        }
        if self.min_merge_width > self.max_merge_width {
            return Err(invalid(
                "universal_min_merge_width",
                self.min_merge_width,
                &format!(
                    "must be at most universal_max_merge_width ({})",
                    self.max_merge_width
                ),
            ));
        }
        Ok(())
    }
}

impl Options {
    /// Universal compaction's parameters, and the leveled options it has no use for: given
    /// with it they would silently do nothing.
    pub(super) fn validate_universal(&self) -> Result<()> {
        self.universal.validate()?;
        if self.level_compaction_dynamic_level_bytes {
            return Err(invalid(
                "level_compaction_dynamic_level_bytes",
                true,
                "not with universal compaction, which has no level targets",
            ));
        }
        if self.max_files_for_level_base > 0 {
            return Err(invalid(
                "max_files_for_level_base",
                self.max_files_for_level_base,
                "must be 0 with universal compaction, which has no level limits",
            ));
        }
        if self.compaction_victims != CompactionVictims::MinOverlap {
            return Err(invalid(
                "compaction_victims",
                "frequency",
                "universal compaction merges whole sorted runs; allowed: overlap",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_rocksdb_s_and_bad_widths_are_named() {
        let d = UniversalOptions::default();
        assert_eq!(
            (d.size_ratio, d.min_merge_width, d.max_merge_width),
            (1, 2, u32::MAX)
        );
        assert_eq!(d.max_size_amplification_percent, 200);
        assert!(d.validate().is_ok());
        let narrow = UniversalOptions {
            max_merge_width: 1,
            ..d.clone()
        };
        let e = narrow.validate().unwrap_err().to_string();
        assert!(e.contains("universal_max_merge_width"), "{e}");
        let crossed = UniversalOptions {
            min_merge_width: 5,
            max_merge_width: 4,
            ..d
        };
        let e = crossed.validate().unwrap_err().to_string();
        assert!(e.contains("universal_min_merge_width"), "{e}");
        assert_eq!(StopStyle::parse("1").unwrap(), StopStyle::SimilarSize);
        assert!(StopStyle::parse("2").is_err());
    }
}
