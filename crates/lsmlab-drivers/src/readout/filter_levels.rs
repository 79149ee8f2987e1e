//! The filters of each level in the lsmlab block: memory, bits per key and false-positive rate,
//! so that a per-level filter setting (`--optimize_filters_for_hits`,
//! `--bloom_bits_per_level`, `--bloom_allocation=monkey`) shows where it spent and saved.

use lsmlab::stats::LevelFilterCounts;
use lsmlab::Db;
use serde::Serialize;
use std::fmt::Write as _;

/// The filter probes of every level of `db` now, level 0 first.
pub fn probes(db: &Db) -> Vec<LevelFilterCounts> {
    let stats = db.statistics();
    (0..db.options().num_levels)
        .map(|l| stats.filter_level(l))
        .collect()
}

/// One level's filters.
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq)]
pub struct FilterLevelFigures {
    /// The level.
    pub level: usize,
    /// Entries its tables hold at the end (`lsmlab.num-entries-at-level<N>`).
    pub entries: u64,
    /// Memory of its filters at the end (`lsmlab.filter-bytes-at-level<N>`).
    pub filter_bytes: u64,
    /// filter_bytes × 8 / entries.
    pub bits_per_key: Option<f64>,
    /// Probes of its filters by gets that said "absent", during the benchmark.
    pub useful: u64,
    /// Probes that said "maybe present".
    pub positive: u64,
    /// Of those, probes of tables that held the key.
    pub true_positive: u64,
    /// (positive − true positive) / (positive − true positive + useful).
    pub fpr: Option<f64>,
}

/// The figures of every level that holds entries or whose filters were probed, from the
/// probes before and after a benchmark and the tree at the end.
pub fn figures(
    db: &Db,
    before: &[LevelFilterCounts],
    after: &[LevelFilterCounts],
) -> Vec<FilterLevelFigures> {
    let prop = |name: String| db.property_int(&name).unwrap_or(0);
    after
        .iter()
        .enumerate()
        .map(|(level, a)| {
            let d = a.since(&before.get(level).copied().unwrap_or_default());
            let entries = prop(format!("lsmlab.num-entries-at-level{level}"));
            let filter_bytes = prop(format!("lsmlab.filter-bytes-at-level{level}"));
            FilterLevelFigures {
                level,
                entries,
                filter_bytes,
                bits_per_key: (entries > 0).then(|| filter_bytes as f64 * 8.0 / entries as f64),
                useful: d.useful,
                positive: d.positive,
                true_positive: d.true_positive,
                fpr: d.fpr(),
            }
        })
        .filter(|f| f.entries > 0 || f.positive > 0 || f.useful > 0)
        .collect()
}

/// The block's line: per level, filter memory, bits per key, entries, the false-positive rate
/// measured and the model's for those bits.
pub fn to_line(levels: &[FilterLevelFigures]) -> String {
    let mut s = String::from("lsmlab filters_by_level     : ");
    if levels.is_empty() {
        s.push_str("no table");
    }
    for (i, f) in levels.iter().enumerate() {
        let bits = f
            .bits_per_key
            .map_or_else(|| "n/a".to_string(), |b| format!("{b:.1}"));
        let fpr = f
            .fpr
            .map_or_else(|| "n/a".to_string(), |r| format!("{:.4}%", r * 100.0));
        // The textbook Bloom rate of the bits the level spent, beside the rate measured: a
        // level whose measured rate is far above its model's was sized for another tree or
        // holds tables of several sizings.
        let model = f.bits_per_key.map_or_else(
            || "n/a".to_string(),
            |b| format!("{:.4}%", lsmlab::filter::allocation::model_fpr(b) * 100.0),
        );
        let _ = write!(
            s,
            "{}L{} {:.1} KB {} bits/key {} entries fpr {} (model {}; {} useful, {} positive)",
            if i > 0 { "; " } else { "" },
            f.level,
            f.filter_bytes as f64 / 1024.0,
            bits,
            f.entries,
            fpr,
            model,
            f.useful,
            f.positive
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsmlab::stats::FilterProbe;
    use lsmlab::Options;

    #[test]
    fn levels_with_entries_or_probes_are_listed_with_their_rate() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = Options::default();
        o.filter.bits_per_key = 10.0;
        let db = Db::open(dir.path(), o).unwrap();
        for i in 0..1000u32 {
            db.put(format!("k{i:05}").as_bytes(), b"v").unwrap();
        }
        db.flush().unwrap();
        let before = probes(&db);
        for _ in 0..9 {
            db.statistics().record_filter_probe(2, FilterProbe::Useful);
        }
        db.statistics()
            .record_filter_probe(2, FilterProbe::FalsePositive);
        let after = probes(&db);
        let levels = figures(&db, &before, &after);
        assert_eq!(levels.len(), 2, "{levels:?}");
        let (l0, l2) = (levels[0], levels[1]);
        assert_eq!((l0.level, l0.entries), (0, 1000));
        assert!(l0.filter_bytes >= 1250, "10 bits for 1000 keys: {l0:?}");
        assert!(l0.bits_per_key.unwrap() >= 10.0);
        assert_eq!((l2.level, l2.entries, l2.useful, l2.positive), (2, 0, 9, 1));
        assert_eq!(l2.fpr, Some(0.1));
        let line = to_line(&levels);
        assert!(
            line.contains(
                "; L2 0.0 KB n/a bits/key 0 entries fpr 10.0000% (model n/a; 9 useful, 1 positive)"
            ),
            "{line}"
        );
        assert!(
            line.starts_with("lsmlab filters_by_level     : L0 "),
            "{line}"
        );
    }
}
