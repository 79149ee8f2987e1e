//! The lsmlab block of a library engine (RocksDB, LevelDB through their C APIs): the same lines
//! and JSON names as lsmlab's block, each figure computed from what the library exposes, and
//! `n/a` (JSON `null`) for a figure it cannot give — never a zero that would read as a
//! measurement.
//!
//! Definitions are lsmlab's (docs/metrics.md); the user bytes written and returned are the
//! benchmark's own counts (key + value), on every engine alike.

use super::counters::CounterSnapshot;
use super::formulas;
use super::process::{dir_size, peak_rss_bytes};
use super::shared::{EngineFigures, ProcessFigures};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The figures a library engine gives; `None` is "the engine cannot say".
#[derive(Debug, Clone, Serialize, Default)]
pub struct ForeignFigures {
    /// The engine (`rocksdb`, `leveldb`).
    pub engine: String,
    /// User key + value bytes written (the benchmark's count).
    pub user_bytes_written: u64,
    /// Bytes written by flushes.
    pub flush_bytes: Option<u64>,
    /// Bytes written by compactions.
    pub compaction_write_bytes: Option<u64>,
    /// Bytes read by compactions.
    pub compaction_read_bytes: Option<u64>,
    /// Bytes written to tables (and blob files) by flushes and compactions together.
    pub table_write_bytes: Option<u64>,
    /// Bytes written to the WAL.
    pub wal_bytes: Option<u64>,
    /// table_write_bytes / user bytes.
    pub write_amp: Option<f64>,
    /// The same with WAL bytes added.
    pub write_amp_with_wal: Option<f64>,
    /// Bytes read from disk for user reads.
    pub user_read_disk_bytes: Option<u64>,
    /// Key + value bytes returned to the user (the benchmark's count).
    pub bytes_returned: u64,
    /// user_read_disk_bytes / bytes_returned.
    pub read_amp: Option<f64>,
    /// Tables checked per get that found its key on disk.
    pub files_checked_per_get: Option<f64>,
    /// Filter probes that said "absent".
    pub filter_useful: Option<u64>,
    /// Filter probes that said "maybe".
    pub filter_positive: Option<u64>,
    /// "Maybe" answers for keys that were present.
    pub filter_true_positive: Option<u64>,
    /// False-positive rate of the filters.
    pub filter_fpr: Option<f64>,
    /// Compactions run.
    pub compactions: Option<u64>,
    /// CPU microseconds of compactions.
    pub compaction_cpu_micros: Option<u64>,
    /// Wall seconds of compactions (LevelDB's `Time(sec)` column).
    pub compaction_seconds: Option<f64>,
    /// Bytes of every file in the database directory.
    pub db_size_bytes: Option<u64>,
    /// Bytes of the live tables.
    pub sst_files_bytes: Option<u64>,
    /// Peak resident memory of the process.
    pub peak_rss_bytes: Option<u64>,
    /// Filter bytes in memory.
    pub filter_bytes: Option<u64>,
    /// Keys added to those filters.
    pub filter_keys: Option<u64>,
    /// filter_bytes × 8 / filter_keys.
    pub filter_bits_per_key: Option<f64>,
    /// Index bytes in memory.
    pub index_bytes: Option<u64>,
    /// Memory of the open tables' readers (index and filter blocks; RocksDB's
    /// `rocksdb.estimate-table-readers-mem`).
    pub table_readers_bytes: Option<u64>,
    /// Bytes in the block cache.
    pub block_cache_bytes: Option<u64>,
    /// Memory the engine reports for memtables (and, for LevelDB, its caches).
    pub memtable_bytes: Option<u64>,
    /// CPU and wall time of the process during the benchmark (`cpu_user_s`, `cpu_sys_s`,
    /// `wall_s` in the JSON).
    #[serde(flatten)]
    pub process: ProcessFigures,
    /// The device-time model's figure: the engine has no page counters, so none.
    pub device_time_s: Option<f64>,
    /// The compaction policy, as the engine names it.
    pub layout: String,
    /// Files per level at the end (`rocksdb.num-files-at-level<N>` / `leveldb.num-files-at-level<N>`).
    pub files_per_level: Vec<u64>,
    /// Counter deltas by the engine's names (RocksDB's tickers; LevelDB's compaction table sums).
    pub tickers: BTreeMap<String, u64>,
}

impl ForeignFigures {
    /// What every engine gives alike: the benchmark's byte counts, CPU, wall time, the
    /// directory's size and peak RSS; every counter delta as a ticker.
    pub fn common(
        engine: &str,
        before: &CounterSnapshot,
        after: &CounterSnapshot,
        db_path: &Path,
        client: super::lsm::ClientCounts,
    ) -> ForeignFigures {
        ForeignFigures {
            engine: engine.to_string(),
            user_bytes_written: client.bytes_written,
            bytes_returned: client.bytes_returned,
            db_size_bytes: dir_size(db_path),
            peak_rss_bytes: peak_rss_bytes(),
            process: ProcessFigures::between((before.cpu, before.at), (after.cpu, after.at)),
            tickers: after
                .counters
                .keys()
                .filter_map(|k| Some((k.clone(), after.delta(before, k)?.round() as u64)))
                .collect(),
            ..ForeignFigures::default()
        }
    }

    /// Fills the ratios from the byte counts: write and read amplification, filter FPR.
    pub fn finish(mut self) -> ForeignFigures {
        let table =
            self.table_write_bytes
                .or(match (self.flush_bytes, self.compaction_write_bytes) {
                    (Some(f), Some(c)) => Some(f + c),
                    _ => None,
                });
        self.table_write_bytes = table;
        let user = self.user_bytes_written;
        self.write_amp = table.and_then(|t| formulas::write_amp(t, user));
        self.write_amp_with_wal = match (table, self.wal_bytes) {
            (Some(t), Some(w)) => formulas::write_amp_with_wal(t, w, user),
            _ => None,
        };
        self.read_amp = self
            .user_read_disk_bytes
            .and_then(|r| formulas::read_amp(r, self.bytes_returned));
        self.filter_bits_per_key = match (self.filter_bytes, self.filter_keys) {
            (Some(b), Some(k)) => formulas::filter_bits_per_key(b, k),
            _ => None,
        };
        self.filter_fpr = match (
            self.filter_useful,
            self.filter_positive,
            self.filter_true_positive,
        ) {
            (Some(u), Some(p), Some(tp)) => formulas::filter_fpr(u, p, tp),
            _ => None,
        };
        self
    }
}

impl EngineFigures for ForeignFigures {
    fn write_amp(&self) -> Option<f64> {
        self.write_amp
    }

    fn bytes_returned(&self) -> u64 {
        self.bytes_returned
    }

    fn process(&self) -> &ProcessFigures {
        &self.process
    }

    fn to_text(&self, title: &str) -> String {
        let na = || "n/a".to_string();
        let f = |v: Option<f64>, prec: usize| v.map(|x| format!("{x:.prec$}")).unwrap_or_else(na);
        let mb = |b: Option<u64>| {
            b.map(|b| format!("{:.1} MB", b as f64 / 1_048_576.0))
                .unwrap_or_else(na)
        };
        let n = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(na);
        let mut s = String::new();
        let _ = writeln!(s, "-- lsmlab: {title} ({}) --", self.engine);
        let _ = writeln!(
            s,
            "lsmlab write_amp            : {} (WAL-inclusive {}; user {}, flush {}, compaction {}, flush+compaction {}, WAL {})",
            f(self.write_amp, 3),
            f(self.write_amp_with_wal, 3),
            mb(Some(self.user_bytes_written)),
            mb(self.flush_bytes),
            mb(self.compaction_write_bytes),
            mb(self.table_write_bytes),
            mb(self.wal_bytes)
        );
        let _ = writeln!(
            s,
            "lsmlab read_amp             : {} (read from disk {}, returned {})",
            f(self.read_amp, 3),
            mb(self.user_read_disk_bytes),
            mb(Some(self.bytes_returned))
        );
        let _ = writeln!(
            s,
            "lsmlab files_checked_per_get: {}",
            f(self.files_checked_per_get, 3)
        );
        let _ = writeln!(
            s,
            "lsmlab filter_fpr           : {} (useful {}, positive {}, true positive {})",
            self.filter_fpr
                .map(|x| format!("{:.4}%", x * 100.0))
                .unwrap_or_else(na),
            n(self.filter_useful),
            n(self.filter_positive),
            n(self.filter_true_positive)
        );
        let _ = writeln!(
            s,
            "lsmlab compactions          : {} (read {}, written {}, CPU {}, wall {})",
            n(self.compactions),
            mb(self.compaction_read_bytes),
            mb(self.compaction_write_bytes),
            self.compaction_cpu_micros
                .map(|c| format!("{:.3} s", c as f64 / 1e6))
                .unwrap_or_else(na),
            self.compaction_seconds
                .map(|c| format!("{c:.3} s"))
                .unwrap_or_else(na)
        );
        let _ = writeln!(
            s,
            "lsmlab compaction_volume    : major {} (compaction input), minor {} (flushed)",
            mb(self.compaction_read_bytes),
            mb(self.flush_bytes)
        );
        let files: Vec<String> = self
            .files_per_level
            .iter()
            .enumerate()
            .map(|(l, n)| format!("L{l} {n}"))
            .collect();
        let _ = writeln!(
            s,
            "lsmlab layout               : {}; files per level {}",
            self.layout,
            if files.is_empty() {
                na()
            } else {
                files.join(", ")
            }
        );
        let _ = writeln!(s, "lsmlab float_ups            : n/a (lsmlab only)");
        let _ = writeln!(s, "lsmlab float_ups_undone     : n/a (lsmlab only)");
        let _ = writeln!(s, "lsmlab stalls               : n/a (lsmlab only)");
        let _ = writeln!(s, "lsmlab inline_work          : n/a (lsmlab only)");
        let _ = writeln!(
            s,
            "lsmlab db_size              : {} (SST files {})",
            mb(self.db_size_bytes),
            mb(self.sst_files_bytes)
        );
        let _ = writeln!(
            s,
            "lsmlab memory               : peak RSS {}, filters {} ({} keys, {} bits/key), index {}, table readers {}, block cache {}, memtables {}",
            mb(self.peak_rss_bytes),
            mb(self.filter_bytes),
            n(self.filter_keys),
            f(self.filter_bits_per_key, 2),
            mb(self.index_bytes),
            mb(self.table_readers_bytes),
            mb(self.block_cache_bytes),
            mb(self.memtable_bytes)
        );
        let _ = writeln!(
            s,
            "lsmlab device_time         : n/a (no page counters in {}; wall {:.3} s)",
            self.engine, self.process.wall_s
        );
        let _ = writeln!(s, "{}", self.process.cpu_line());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_engine_cannot_give_is_na_and_null() {
        let f = ForeignFigures {
            engine: "leveldb".into(),
            user_bytes_written: 100,
            table_write_bytes: Some(250),
            ..ForeignFigures::default()
        }
        .finish();
        assert_eq!(f.write_amp, Some(2.5));
        assert_eq!(f.write_amp_with_wal, None);
        let text = f.to_text("fillseq");
        assert!(
            text.contains("lsmlab write_amp            : 2.500 (WAL-inclusive n/a"),
            "{text}"
        );
        assert!(
            text.contains("lsmlab filter_fpr           : n/a (useful n/a"),
            "{text}"
        );
        assert!(text.contains("lsmlab compactions          : n/a"), "{text}");
        let json = serde_json::to_value(&f).unwrap();
        assert!(json["read_amp"].is_null() && json["compactions"].is_null());
        assert_eq!(json["write_amp"].as_f64(), Some(2.5));
        // The process figures sit, flattened, where the JSON has always had them.
        let text = serde_json::to_string(&f).unwrap();
        assert!(
            text.contains(
                r#""memtable_bytes":null,"cpu_user_s":0.0,"cpu_sys_s":0.0,"wall_s":0.0,"device_time_s":null"#
            ),
            "{text}"
        );
        let g = ForeignFigures {
            filter_useful: Some(90),
            filter_positive: Some(12),
            filter_true_positive: Some(2),
            flush_bytes: Some(10),
            compaction_write_bytes: Some(20),
            user_bytes_written: 10,
            ..ForeignFigures::default()
        }
        .finish();
        assert_eq!(g.filter_fpr, Some(0.1));
        let h = ForeignFigures {
            filter_bytes: Some(1250),
            filter_keys: Some(1000),
            ..ForeignFigures::default()
        }
        .finish();
        assert_eq!(h.filter_bits_per_key, Some(10.0));
        assert!(h
            .to_text("fillrandom")
            .contains("filters 0.0 MB (1000 keys, 10.00 bits/key)"));
        assert!(f.to_text("fillseq").contains("(n/a keys, n/a bits/key)"));
        assert_eq!(g.write_amp, Some(3.0));
    }
}
