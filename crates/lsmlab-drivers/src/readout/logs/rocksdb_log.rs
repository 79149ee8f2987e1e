//! RocksDB's own account of its tables and compactions, read from the event log lines
//! (`EVENT_LOG_v1 {json}`) of the info logs (`LOG`, `LOG.old.*`) in the database directory.
//!
//! db_bench prints no table properties, and its statistics have no filter size; but every
//! table RocksDB writes is logged with its properties (`table_file_creation`, with
//! `filter_size` and `num_filter_entries`), every table it removes (`table_file_deletion`), and
//! every compaction with its wall and CPU time (`compaction_finished`). Replaying them gives the
//! filters of the live tables — what `rocksdb.aggregated-table-properties` reports in process —
//! for any RocksDB program, of any version since 6, without linking the library.

use std::collections::BTreeMap;
use std::path::Path;

/// What the event logs of one database say.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RocksDbLog {
    /// Tables created and not deleted.
    pub live_tables: u64,
    /// Filter bytes of the live tables.
    pub filter_bytes: u64,
    /// Keys added to those filters (`num_filter_entries`; `num_entries` where a version logs
    /// no such field).
    pub filter_keys: u64,
    /// Compactions that finished.
    pub compactions: u64,
    /// Their wall time, microseconds.
    pub compaction_micros: u64,
    /// Their CPU time, microseconds.
    pub compaction_cpu_micros: u64,
}

/// One table's filter.
#[derive(Debug, Clone, Copy)]
struct Table {
    filter_bytes: u64,
    filter_keys: u64,
}

/// Replays the event log lines of `texts`, oldest log first.
pub fn parse<'a>(texts: impl IntoIterator<Item = &'a str>) -> RocksDbLog {
    let mut out = RocksDbLog::default();
    let mut live: BTreeMap<u64, Table> = BTreeMap::new();
    for text in texts {
        for line in text.lines() {
            let Some((_, json)) = line.split_once("EVENT_LOG_v1 ") else {
                continue;
            };
            let Ok(e) = serde_json::from_str::<serde_json::Value>(json) else {
                continue;
            };
            let num = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_u64());
            match e.get("event").and_then(|v| v.as_str()) {
                Some("table_file_creation") => {
                    let (Some(file), Some(p)) = (num(&e, "file_number"), e.get("table_properties"))
                    else {
                        continue;
                    };
                    let keys = num(p, "num_filter_entries").or_else(|| num(p, "num_entries"));
                    live.insert(
                        file,
                        Table {
                            filter_bytes: num(p, "filter_size").unwrap_or(0),
                            filter_keys: keys.unwrap_or(0),
                        },
                    );
                }
                Some("table_file_deletion") => {
                    if let Some(file) = num(&e, "file_number") {
                        live.remove(&file);
                    }
                }
                Some("compaction_finished") => {
                    out.compactions += 1;
                    out.compaction_micros += num(&e, "compaction_time_micros").unwrap_or(0);
                    out.compaction_cpu_micros += num(&e, "compaction_time_cpu_micros").unwrap_or(0);
                }
                _ => {}
            }
        }
    }
    out.live_tables = live.len() as u64;
    out.filter_bytes = live.values().map(|t| t.filter_bytes).sum();
    out.filter_keys = live.values().map(|t| t.filter_keys).sum();
    out
}

/// The info logs of the database at `db`, oldest first: `LOG.old.<micros>` by their stamp,
/// then `LOG`. Empty when there are none.
pub fn log_files(db: &Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = std::fs::read_dir(db) else {
        return Vec::new();
    };
    let mut old: Vec<(u64, std::path::PathBuf)> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let stamp = name.strip_prefix("LOG.old.")?.parse().ok()?;
            Some((stamp, e.path()))
        })
        .collect();
    old.sort();
    let mut files: Vec<_> = old.into_iter().map(|(_, p)| p).collect();
    let current = db.join("LOG");
    if current.is_file() {
        files.push(current);
    }
    files
}

impl RocksDbLog {
    /// The event logs of the database at `db`, or `None` when it has no info log.
    pub fn of_database(db: &Path) -> Option<RocksDbLog> {
        let files = log_files(db);
        if files.is_empty() {
            return None;
        }
        let texts: Vec<String> = files
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect();
        Some(parse(texts.iter().map(String::as_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Event lines of a RocksDB 11.9 db_bench fillrandom (20,000 values of 512 B, 10 bits per
    /// key, 1 MB memtable and tables): flushes, one compaction, the tables it replaced.
    const SAMPLE: &str = include_str!("testdata/rocksdb-LOG");

    #[test]
    fn a_real_event_log_gives_the_live_filters_and_compaction_cpu() {
        let l = parse([SAMPLE]);
        // Replayed independently of this code from the same lines.
        assert_eq!(l.live_tables, 13);
        assert_eq!(l.filter_bytes, 27_777);
        assert_eq!(l.filter_keys, 21_896);
        assert_eq!(
            (l.compactions, l.compaction_micros, l.compaction_cpu_micros),
            (1, 198_784, 13_536)
        );
        let bpk = l.filter_bytes as f64 * 8.0 / l.filter_keys as f64;
        assert!((10.0..10.2).contains(&bpk), "{bpk}");
    }

    #[test]
    fn a_table_deleted_in_a_later_log_is_gone_and_old_versions_count_entries() {
        let a = r#"t 1 EVENT_LOG_v1 {"event": "table_file_creation", "file_number": 7, "table_properties": {"filter_size": 100, "num_entries": 80}}
t 1 EVENT_LOG_v1 {"event": "table_file_creation", "file_number": 8, "table_properties": {"filter_size": 50, "num_entries": 40, "num_filter_entries": 30}}"#;
        let b = r#"t 1 EVENT_LOG_v1 {"event": "table_file_deletion", "file_number": 7}
t 1 EVENT_LOG_v1 {not json
t 1 EVENT_LOG_v1 {"event": "compaction_finished", "compaction_time_micros": 9}"#;
        let l = parse([a]);
        assert_eq!(
            (l.live_tables, l.filter_bytes, l.filter_keys),
            (2, 150, 110)
        );
        let l = parse([a, b]);
        assert_eq!((l.live_tables, l.filter_bytes, l.filter_keys), (1, 50, 30));
        assert_eq!(
            (l.compactions, l.compaction_micros, l.compaction_cpu_micros),
            (1, 9, 0)
        );
    }

    #[test]
    fn logs_are_read_oldest_first() {
        let d = tempfile::tempdir().unwrap();
        for (name, text) in [
            (
                "LOG.old.20",
                r#"x EVENT_LOG_v1 {"event": "table_file_deletion", "file_number": 1}"#,
            ),
            (
                "LOG.old.3",
                r#"x EVENT_LOG_v1 {"event": "table_file_creation", "file_number": 1, "table_properties": {"filter_size": 5, "num_entries": 4}}"#,
            ),
            (
                "LOG",
                r#"x EVENT_LOG_v1 {"event": "table_file_creation", "file_number": 2, "table_properties": {"filter_size": 6, "num_entries": 8}}"#,
            ),
        ] {
            std::fs::write(d.path().join(name), text).unwrap();
        }
        let names: Vec<String> = log_files(d.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["LOG.old.3", "LOG.old.20", "LOG"]);
        let l = RocksDbLog::of_database(d.path()).unwrap();
        assert_eq!((l.live_tables, l.filter_bytes, l.filter_keys), (1, 6, 8));
        assert!(RocksDbLog::of_database(&d.path().join("none")).is_none());
    }
}
