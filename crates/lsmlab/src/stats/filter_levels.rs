//! Filter probes of gets counted per level, so that a setting that sizes filters by level
//! (`optimize_filters_for_hits`, a per-level list, Monkey's allocation) shows its false-positive
//! rate where it acts. The counts are RocksDB's three filter tickers split by level.

use super::stripes::StripedCounters;

/// Levels counted; a probe of a deeper level counts in the last (options allow at most 32).
pub const MAX_LEVELS: usize = 32;

/// Counters per level: useful, positive, true positive.
const PER_LEVEL: usize = 3;

/// What one filter probe of a get answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterProbe {
    /// "Absent": the table was not read.
    Useful,
    /// "Maybe present", and the table did not hold the key: a false positive.
    FalsePositive,
    /// "Maybe present", and the table held the key.
    TruePositive,
}

/// The filter probes of one level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelFilterCounts {
    /// Probes that said "absent" (`rocksdb.bloom.filter.useful` of this level).
    pub useful: u64,
    /// Probes that said "maybe present" (`rocksdb.bloom.filter.full.positive`).
    pub positive: u64,
    /// Of those, probes of a table that held the key
    /// (`rocksdb.bloom.filter.full.true.positive`).
    pub true_positive: u64,
}

impl LevelFilterCounts {
    /// False positives over probes of keys the table lacked, RocksDB's formula:
    /// `(positive − true positive) / (positive − true positive + useful)`; `None` without such
    /// a probe.
    pub fn fpr(&self) -> Option<f64> {
        let false_positive = self.positive.saturating_sub(self.true_positive);
        let negatives = false_positive + self.useful;
        (negatives > 0).then(|| false_positive as f64 / negatives as f64)
    }

    /// The counts of `self` since `before`.
    pub fn since(&self, before: &LevelFilterCounts) -> LevelFilterCounts {
        LevelFilterCounts {
            useful: self.useful.saturating_sub(before.useful),
            positive: self.positive.saturating_sub(before.positive),
            true_positive: self.true_positive.saturating_sub(before.true_positive),
        }
    }

    /// True if no probe was counted.
    pub fn is_empty(&self) -> bool {
        self.useful == 0 && self.positive == 0
    }
}

/// The per-level counters of one database.
#[derive(Default)]
pub(super) struct FilterLevels(StripedCounters<{ MAX_LEVELS * PER_LEVEL }>);

impl FilterLevels {
    /// Counts one probe of a table of `level`.
    #[inline]
    pub(super) fn record(&self, level: usize, probe: FilterProbe) {
        let base = level.min(MAX_LEVELS - 1) * PER_LEVEL;
        match probe {
            FilterProbe::Useful => self.0.add(base, 1),
            FilterProbe::FalsePositive => self.0.add(base + 1, 1),
            FilterProbe::TruePositive => {
                self.0.add(base + 1, 1);
                self.0.add(base + 2, 1);
            }
        }
    }

    /// The counts of `level` (the last counted level for deeper ones).
    pub(super) fn get(&self, level: usize) -> LevelFilterCounts {
        let base = level.min(MAX_LEVELS - 1) * PER_LEVEL;
        LevelFilterCounts {
            useful: self.0.get(base),
            positive: self.0.get(base + 1),
            true_positive: self.0.get(base + 2),
        }
    }

    pub(super) fn reset(&self) {
        self.0.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_count_by_level_and_give_rocksdb_fpr() {
        let f = FilterLevels::default();
        for _ in 0..90 {
            f.record(2, FilterProbe::Useful);
        }
        for _ in 0..10 {
            f.record(2, FilterProbe::FalsePositive);
        }
        for _ in 0..5 {
            f.record(2, FilterProbe::TruePositive);
        }
        f.record(40, FilterProbe::Useful);
        let l2 = f.get(2);
        assert_eq!((l2.useful, l2.positive, l2.true_positive), (90, 15, 5));
        assert_eq!(l2.fpr(), Some(0.1));
        assert!(f.get(1).is_empty() && f.get(1).fpr().is_none());
        assert_eq!(
            f.get(MAX_LEVELS - 1).useful,
            1,
            "deeper levels count in the last"
        );
        let later = LevelFilterCounts { useful: 100, ..l2 };
        assert_eq!(later.since(&l2).useful, 10);
        f.reset();
        assert!(f.get(2).is_empty());
    }
}
