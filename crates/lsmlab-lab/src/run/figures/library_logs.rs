//! Step figures the libraries keep in their own info logs, for the runs whose output lacks
//! them: LevelDB prints no statistics (its db_bench none at all, lsmlab's driver only the
//! `leveldb.stats` table), and RocksDB's statistics have no filter size. Read from the database
//! directory after each step (readout/leveldb_log.rs, readout/rocksdb_log.rs), under the names
//! and definitions the statistics give on the other engines; a figure the output already gave
//! is never replaced.
//!
//! - LevelDB (db_bench or lsmlab's driver): `write_amp` (bytes written by flushes and
//!   compactions / the user's key + value bytes), `flush_write_mb`, `compact_write_mb`,
//!   `compactions`, `compaction_time_s` (the background thread's busy time). LevelDB starts a
//!   new log at each open, so the log is the step's own.
//! - RocksDB (db_bench or lsmlab's driver): `filter_bits_per_key` and `filter_mb` of the live
//!   tables at the end of the step, as lsmlab's `lsmlab.filter.bytes` / `.keys` give them.

use super::metrics::Metrics;
use crate::run::invoke::engines::{Engine, Kind};
use lsmlab_drivers::engine::EngineKind;
use lsmlab_drivers::readout::logs::leveldb_log::LevelDbLog;
use lsmlab_drivers::readout::logs::rocksdb_log::RocksDbLog;
use std::path::Path;

const MB: f64 = 1024.0 * 1024.0;

/// Adds the figures the library's logs in `db` give for step `label`, where `m` lacks them.
/// `benches` and `flags` are the step's; `doc` is lsmlab's `--json` of the step, if any.
pub fn add(
    m: &mut Metrics,
    label: &str,
    engine: &Engine,
    benches: &str,
    flags: &[(String, String)],
    db: &Path,
    doc: Option<&serde_json::Value>,
) {
    match engine.driver {
        EngineKind::LevelDb => {
            let Some(log) = LevelDbLog::of_database(db) else {
                return;
            };
            let user = match engine.kind {
                Kind::Lsmlab => doc.and_then(lsmlab_user_bytes),
                _ => leveldb_db_bench_user_bytes(benches, flags),
            };
            add_leveldb(m, label, &log, user);
        }
        EngineKind::RocksDb => {
            if let Some(log) = RocksDbLog::of_database(db) {
                add_rocksdb(m, label, &log);
            }
        }
        _ => {}
    }
}

fn put(m: &mut Metrics, name: String, v: f64) {
    m.entry(name).or_insert(v);
}

/// LevelDB's figures of one step from its log; write amplification only with the user's bytes.
pub fn add_leveldb(m: &mut Metrics, label: &str, log: &LevelDbLog, user_bytes: Option<u64>) {
    let table = log.table_write_bytes();
    // As for RocksDB's statistics: nothing flushed or compacted is no amplification measured.
    if let Some(user) = user_bytes.filter(|&u| u > 0 && table > 0) {
        put(m, format!("{label}.write_amp"), table as f64 / user as f64);
    }
    put(
        m,
        format!("{label}.flush_write_mb"),
        log.flush_bytes as f64 / MB,
    );
    put(
        m,
        format!("{label}.compact_write_mb"),
        log.compaction_bytes as f64 / MB,
    );
    put(m, format!("{label}.compactions"), log.compactions as f64);
    put(
        m,
        format!("{label}.compaction_time_s"),
        log.busy_micros as f64 / 1e6,
    );
}

/// RocksDB's filter figures of the live tables at the end of one step.
pub fn add_rocksdb(m: &mut Metrics, label: &str, log: &RocksDbLog) {
    if log.live_tables == 0 {
        return;
    }
    put(
        m,
        format!("{label}.filter_mb"),
        log.filter_bytes as f64 / MB,
    );
    if let Some(bpk) =
        lsmlab_drivers::readout::formulas::filter_bits_per_key(log.filter_bytes, log.filter_keys)
    {
        put(m, format!("{label}.filter_bits_per_key"), bpk);
    }
}

/// The user bytes lsmlab's driver counted over the step (`user_bytes_written` of each
/// benchmark's block, or of the YCSB phase's).
fn lsmlab_user_bytes(doc: &serde_json::Value) -> Option<u64> {
    let of = |block: Option<&serde_json::Value>| {
        block?.get("lsmlab")?.get("user_bytes_written")?.as_u64()
    };
    match doc.get("benchmarks").and_then(|b| b.as_array()) {
        Some(list) => list.iter().map(|b| of(Some(b))).sum(),
        None => of(Some(doc)),
    }
}

/// The key + value bytes LevelDB 1.23's db_bench writes for `benches` under `flags` (as the
/// study passes them, db_bench's names): each thread writes `num` entries of a fill or
/// overwrite, `num / 1000` of `fillsync` and `fill100K` (values of 100,000 bytes). `None` when
/// a benchmark writes a number it does not print (`readwhilewriting`'s writer runs until the
/// readers end; deletes write no value).
pub fn leveldb_db_bench_user_bytes(benches: &str, flags: &[(String, String)]) -> Option<u64> {
    let flag = |name: &str, default: u64| -> Option<u64> {
        match flags.iter().rev().find(|(k, _)| k == name) {
            Some((_, v)) => v.parse().ok(),
            None => Some(default),
        }
    };
    let (num, threads) = (flag("num", 1_000_000)?, flag("threads", 1)?.max(1));
    // Keys are 16 bytes after a prefix; the study maps key_size onto that prefix.
    let (key, value) = (flag("key_size", 16)?.max(16), flag("value_size", 100)?);
    let mut total = 0u64;
    for b in benches.split(',').map(str::trim).filter(|b| !b.is_empty()) {
        let (entries, value) = match b {
            "fillseq" | "fillrandom" | "overwrite" => (num, value),
            "fillsync" => (num / 1000, value),
            "fill100K" => (num / 1000, 100_000),
            "deleteseq" | "deleterandom" | "readwhilewriting" => return None,
            _ => continue,
        };
        total = total.checked_add(threads.checked_mul(entries)?.checked_mul(key + value)?)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn leveldb_user_bytes_follow_db_bench() {
        let f = flags(&[("num", "1000"), ("key_size", "32"), ("value_size", "256")]);
        assert_eq!(
            leveldb_db_bench_user_bytes("fillrandom,readrandom", &f),
            Some(1000 * 288)
        );
        let f2 = flags(&[("num", "5000"), ("threads", "2")]);
        assert_eq!(
            leveldb_db_bench_user_bytes("fillseq,fillsync,fill100K,stats", &f2),
            Some(2 * (5000 * 116 + 5 * 116 + 5 * 100_016))
        );
        assert_eq!(leveldb_db_bench_user_bytes("readwhilewriting", &f), None);
        assert_eq!(leveldb_db_bench_user_bytes("readrandom", &f), Some(0));
        assert_eq!(
            leveldb_db_bench_user_bytes("fillrandom", &flags(&[("num", "x")])),
            None
        );
    }

    #[test]
    fn leveldb_figures_fill_what_the_output_lacks_and_keep_what_it_gave() {
        let log = LevelDbLog {
            flushes: 3,
            flush_bytes: 3 << 20,
            compactions: 2,
            compaction_bytes: 5 << 20,
            busy_micros: 1_500_000,
        };
        let mut m = Metrics::new();
        m.insert("s.compactions".into(), 7.0);
        add_leveldb(&mut m, "s", &log, Some(4 << 20));
        assert_eq!(m["s.write_amp"], 2.0);
        assert_eq!(m["s.flush_write_mb"], 3.0);
        assert_eq!(m["s.compact_write_mb"], 5.0);
        assert_eq!(m["s.compaction_time_s"], 1.5);
        assert_eq!(m["s.compactions"], 7.0, "the output's own figure stays");
        let mut m = Metrics::new();
        add_leveldb(&mut m, "s", &LevelDbLog::default(), Some(100));
        assert!(!m.contains_key("s.write_amp"), "nothing written: no figure");
        add_leveldb(&mut m, "t", &log, None);
        assert!(!m.contains_key("t.write_amp"));
    }

    #[test]
    fn rocksdb_filters_of_live_tables() {
        let mut m = Metrics::new();
        let log = RocksDbLog {
            live_tables: 2,
            filter_bytes: 1250,
            filter_keys: 1000,
            ..RocksDbLog::default()
        };
        add_rocksdb(&mut m, "s", &log);
        assert_eq!(m["s.filter_bits_per_key"], 10.0);
        let mut m = Metrics::new();
        add_rocksdb(&mut m, "s", &RocksDbLog::default());
        assert!(m.is_empty());
    }

    #[test]
    fn lsmlab_json_user_bytes_sum_over_benchmarks() {
        let doc = serde_json::json!({"benchmarks": [
            {"name": "fillrandom", "lsmlab": {"user_bytes_written": 100}},
            {"name": "readrandom", "lsmlab": {"user_bytes_written": 0}}]});
        assert_eq!(lsmlab_user_bytes(&doc), Some(100));
        let ycsb = serde_json::json!({"lsmlab": {"user_bytes_written": 7}});
        assert_eq!(lsmlab_user_bytes(&ycsb), Some(7));
    }
}
